//! RepoFixEval's pairwise correlations of the task metrics, across systems: each system's
//! Novel rows give one point per metric (files localized, mean line F1, strict `git apply`,
//! resolved), and each pair of metrics gets Pearson's r and Spearman's ρ with their
//! two-sided t-test p-values (`scipy.stats.pearsonr` / `spearmanr`).

use crate::model::{ApplyMethod, PredictionResult, StateKind};
use crate::report::results::SystemResults;
use serde::Serialize;

/// One pair of task metrics over the systems that have both.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskCorrelation {
    /// The first metric's name.
    pub a: String,
    /// The second metric's name.
    pub b: String,
    /// Systems (points) with both metrics.
    pub systems: usize,
    /// Pearson's r.
    pub pearson: f64,
    /// Its two-sided p (t test, n − 2 degrees of freedom; 1 with two points).
    pub pearson_p: f64,
    /// Spearman's ρ (average ranks for ties); `None` when a side's ranks are all tied.
    pub spearman: Option<f64>,
    /// Its two-sided p (t test), when defined.
    pub spearman_p: Option<f64>,
}

/// The task metrics of one system's Novel rows, in table order, as `evaluate`'s rates
/// define them (read from the rows, since `report` reads evaluations through `model`
/// only); `None` where no row gives the figure.
fn metrics(s: &SystemResults) -> [(&'static str, Option<f64>); 4] {
    let novel: Vec<&PredictionResult> = s
        .rows
        .iter()
        .filter(|r| r.state == StateKind::Novel.name())
        .collect();
    let share = |f: &dyn Fn(&PredictionResult) -> bool| {
        (!novel.is_empty())
            .then(|| novel.iter().filter(|r| f(r)).count() as f64 / novel.len() as f64)
    };
    let f1: Vec<f64> = novel
        .iter()
        .filter_map(|r| r.line_scores.map(|x| x.f1))
        .collect();
    [
        ("files localized", share(&|r| r.localized)),
        ("mean line F1", crate::stats::mean(&f1)),
        (
            "git apply (strict)",
            share(&|r| r.applied == ApplyMethod::Exact),
        ),
        (
            "resolved",
            share(&|r| r.resolved).filter(|_| !s.resolution_unavailable),
        ),
    ]
}

/// Every pair of task metrics that at least three systems have and that varies across
/// them (a correlation needs both); empty with fewer than three systems.
pub fn compute(systems: &[SystemResults]) -> Vec<TaskCorrelation> {
    let per: Vec<[(&str, Option<f64>); 4]> = systems.iter().map(metrics).collect();
    let mut out = Vec::new();
    for i in 0..4 {
        for j in i + 1..4 {
            let (x, y): (Vec<f64>, Vec<f64>) =
                per.iter().filter_map(|m| Some((m[i].1?, m[j].1?))).unzip();
            if x.len() < 3 {
                continue;
            }
            let Some((r, p)) = crate::stats::pearson(&x, &y) else {
                continue;
            };
            let rho = crate::stats::spearman(&x, &y);
            out.push(TaskCorrelation {
                a: per[0][i].0.to_string(),
                b: per[0][j].0.to_string(),
                systems: x.len(),
                pearson: r,
                pearson_p: p,
                spearman: rho,
                spearman_p: rho.and_then(|r| crate::stats::spearman_p_t(r, x.len())),
            });
        }
    }
    out
}
