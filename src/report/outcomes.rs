//! Outcome-conditioned breakdowns of systems' results (issue #33 §1), as the agent study
//! and HUNK4J tabulate them: how the divergence of the bugs a system fixed differs from
//! that of the bugs it did not (the study's Table 3, HUNK4J's Tables VI–VII), with the
//! rank-sum test and Cliff's δ; the bugs no system fixed, with what each system did on
//! them and how they differ from all bugs (the study's Table 4); which systems solved
//! which tasks, split by proximity class (its UpSet figure); and the per-bug values the
//! page draws as violins.
//!
//! A **bug** is an instance with a row in the Novel state (the buggy version, where the
//! study ran its agents); a system **fixed** it when one of its Novel rows is resolved (a
//! system with several attempts counts a bug once). Bugs a system has no Novel row for
//! are outside its split. The solver sets count **tasks** (an instance in a state that
//! needs a fix), as the page's overall sets do, so the classes add up to them.

use super::results::{class_name, class_order, ranked, solvers, SystemResults};
use crate::model::{Instance, PredictionResult, StateKind};
use crate::stats::{cliffs_delta, cliffs_magnitude, mean, rank_sum};
use crate::table::Table;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// n, min, median, mean, max and sample standard deviation of a sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spread {
    /// Values.
    pub n: usize,
    /// Smallest value (`None` for an empty sample).
    pub min: Option<f64>,
    /// Median (the mean of the two middle values for an even n).
    pub median: Option<f64>,
    /// Arithmetic mean.
    pub mean: Option<f64>,
    /// Largest value.
    pub max: Option<f64>,
    /// Sample standard deviation (n − 1 in the denominator, as pandas' `std` and
    /// `describe` give it); `None` below two values.
    pub std: Option<f64>,
}

impl Spread {
    /// The spread of `values` (NaN values are not expected: divergence and RR are finite).
    pub fn of(values: &[f64]) -> Spread {
        let n = values.len();
        if n == 0 {
            return Spread {
                n,
                min: None,
                median: None,
                mean: None,
                max: None,
                std: None,
            };
        }
        let [min, median, m, max] = crate::stats::summary(values);
        let std = (n >= 2).then(|| {
            let ss: f64 = values.iter().map(|v| (v - m) * (v - m)).sum();
            (ss / (n - 1) as f64).sqrt()
        });
        Spread {
            n,
            min: Some(min),
            median: Some(median),
            mean: Some(m),
            max: Some(max),
            std,
        }
    }
}

/// One system's divergence of fixed against unfixed bugs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DivergenceSplit {
    /// The system.
    pub system: String,
    /// Div(P) of the bugs it fixed.
    pub fixed: Spread,
    /// Div(P) of the bugs it did not fix.
    pub unfixed: Spread,
    /// Its bugs without a Div(P) (no annotation, or a single counted hunk), left out.
    pub no_divergence: usize,
    /// Two-sided p of the Wilcoxon rank-sum test, fixed against unfixed
    /// (`scipy.stats.ranksums`; `None` when a side is empty or every value is tied).
    pub rank_sum_p: Option<f64>,
    /// Two-sided p of the Mann–Whitney U test with tie and continuity corrections
    /// (`scipy.stats.mannwhitneyu`, asymptotic), the same comparison.
    pub mann_whitney_p: Option<f64>,
    /// Cliff's δ of fixed against unfixed (negative: fixed bugs diverge less).
    pub cliffs_delta: Option<f64>,
    /// The usual word for |δ| (negligible, small, medium, large).
    pub magnitude: Option<String>,
    /// The values, fixed then unfixed, for the page's violins.
    pub values: [Vec<f64>; 2],
}

/// A bug no system fixed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnfixedBug {
    /// The instance.
    pub instance_id: String,
    /// Counted hunks.
    pub hunks: usize,
    /// Div(P), when annotated.
    pub divergence: Option<f64>,
    /// Proximity class (`undecided` when none).
    pub class: String,
    /// Per system (table order): whether a Novel row of it touched every golden file
    /// (`localized`); `None` when the system has no Novel row for the bug.
    pub localized: Vec<Option<bool>>,
}

/// One figure over all bugs beside the same over the bugs no system fixed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Delta {
    /// What is measured (`share sparse`, `mean hunks`, `localization <system>`, …).
    pub what: String,
    /// Over all bugs.
    pub all: f64,
    /// Over the bugs no system fixed.
    pub unfixed: f64,
    /// `unfixed − all`.
    pub delta: f64,
}

/// The study's Table 4: the bugs no system fixed, and how they differ from all bugs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnfixedTable {
    /// The systems, in column order.
    pub systems: Vec<String>,
    /// Bugs with a Novel row of any system.
    pub bugs: usize,
    /// The bugs no system fixed, by id.
    pub rows: Vec<UnfixedBug>,
    /// Shares (0–1) and means over all bugs beside the unfixed ones.
    pub deltas: Vec<Delta>,
}

/// Exact solver sets of the tasks of one proximity class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassSets {
    /// The class (`undecided` when the instance has none).
    pub class: String,
    /// Tasks of the class.
    pub tasks: usize,
    /// Which systems resolved a task, and how many tasks have exactly that set (the
    /// empty set: nobody), largest first.
    pub combinations: Vec<(Vec<bool>, usize)>,
}

/// Every outcome-conditioned table of the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutcomeTables {
    /// The systems, in table order.
    pub systems: Vec<String>,
    /// Per system with Novel rows: divergence of fixed against unfixed bugs.
    pub divergence: Vec<DivergenceSplit>,
    /// The bugs no system fixed (`None` without Novel rows).
    pub unfixed: Option<UnfixedTable>,
    /// Solver sets per proximity class (with two or more systems).
    pub sets_by_class: Vec<ClassSets>,
    /// Per system: the regression reduction of each compiled Novel row (the study's RR),
    /// for the page's violins; empty when its rows carry no failing counts.
    pub regression: Vec<(String, Vec<f64>)>,
    /// RepoFixEval's pairwise correlations of the task metrics across systems (three
    /// systems or more).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub correlations: Vec<super::correlations::TaskCorrelation>,
}

fn divergence_of(i: &Instance) -> Option<f64> {
    i.divergence.as_ref().and_then(|d| d.value)
}

/// Per system: bug → (fixed, localized), over its Novel rows of known instances.
type Bugs<'a> = BTreeMap<&'a str, (bool, bool)>;

fn novel_bugs<'a>(s: &'a SystemResults, by_id: &HashMap<&str, &Instance>) -> Bugs<'a> {
    let mut bugs: Bugs<'a> = BTreeMap::new();
    for r in s.rows.iter().filter(|r| {
        r.state == StateKind::Novel.name() && by_id.contains_key(r.instance_id.as_str())
    }) {
        let e = bugs.entry(r.instance_id.as_str()).or_default();
        e.0 |= r.resolved;
        e.1 |= r.localized;
    }
    bugs
}

impl OutcomeTables {
    /// Tabulate; `None` when no system has a Novel row or a task of a known instance.
    pub fn compute(instances: &[Instance], systems: &[SystemResults]) -> Option<OutcomeTables> {
        let by_id: HashMap<&str, &Instance> = instances
            .iter()
            .map(|i| (i.instance_id.as_str(), i))
            .collect();
        let per: Vec<Bugs> = systems.iter().map(|s| novel_bugs(s, &by_id)).collect();
        let divergence = systems
            .iter()
            .zip(&per)
            .filter(|(_, b)| !b.is_empty())
            .map(|(s, bugs)| split(&s.name, bugs, &by_id))
            .collect();
        let unfixed = unfixed_table(systems, &per, &by_id);
        let sets_by_class = if systems.len() > 1 {
            sets_by_class(systems, &by_id)
        } else {
            Vec::new()
        };
        let regression = systems
            .iter()
            .map(|s| {
                let rr: Vec<f64> = s
                    .rows
                    .iter()
                    .filter(|r| r.state == StateKind::Novel.name())
                    .filter_map(PredictionResult::regression_reduction)
                    .map(|v| v as f64)
                    .collect();
                (s.name.clone(), rr)
            })
            .filter(|(_, v)| !v.is_empty())
            .collect();
        let t = OutcomeTables {
            systems: systems.iter().map(|s| s.name.clone()).collect(),
            divergence,
            unfixed,
            sets_by_class,
            regression,
            correlations: super::correlations::compute(systems),
        };
        (!t.divergence.is_empty() || !t.sets_by_class.is_empty()).then_some(t)
    }

    /// The tables as markdown (`report/outcomes.md`).
    pub fn to_markdown(&self) -> String {
        let mut out = String::from("# Outcome-conditioned breakdowns\n\n");
        if !self.divergence.is_empty() {
            out.push_str("## Divergence of fixed and unfixed bugs (Novel state)\n\n");
            out.push_str(&self.divergence_table().to_markdown());
            out.push('\n');
        }
        if let Some(u) = &self.unfixed {
            out.push_str(&format!(
                "## Bugs no system fixed ({} of {})\n\n",
                u.rows.len(),
                u.bugs
            ));
            out.push_str(&u.rows_table().to_markdown());
            out.push_str("\n### Against all bugs\n\n");
            out.push_str(&u.deltas_table().to_markdown());
            out.push('\n');
        }
        if !self.sets_by_class.is_empty() {
            out.push_str("## Exact solver sets by proximity class (tasks)\n\n");
            out.push_str(&self.sets_table().to_markdown());
        }
        if !self.correlations.is_empty() {
            out.push_str("\n## Task metrics correlated across systems (Novel rows)\n\n");
            out.push_str(&self.correlations_table().to_markdown());
        }
        out
    }

    /// RepoFixEval's pairwise correlations, one row per pair of task metrics.
    pub fn correlations_table(&self) -> Table {
        let mut t = Table::new([
            "metric",
            "with",
            "systems",
            "Pearson r",
            "p",
            "Spearman ρ",
            "p",
        ])
        .right(2..7);
        for c in &self.correlations {
            t.push([
                c.a.clone(),
                c.b.clone(),
                c.systems.to_string(),
                format!("{:.4}", c.pearson),
                format!("{:.4}", c.pearson_p),
                num(c.spearman, 4),
                num(c.spearman_p, 4),
            ]);
        }
        t
    }

    /// The divergence split, one row per system.
    pub fn divergence_table(&self) -> Table {
        let mut t = Table::new([
            "system",
            "fixed n",
            "fixed median",
            "fixed mean",
            "fixed max",
            "fixed std",
            "unfixed n",
            "unfixed median",
            "unfixed mean",
            "unfixed max",
            "unfixed std",
            "rank-sum p",
            "Cliff's δ",
            "no Div(P)",
        ])
        .right(1..14)
        .with_row_headers();
        for d in &self.divergence {
            let mut row = vec![d.system.clone()];
            for s in [&d.fixed, &d.unfixed] {
                row.push(s.n.to_string());
                for v in [s.median, s.mean, s.max, s.std] {
                    row.push(num(v, 4));
                }
            }
            row.push(num(d.rank_sum_p, 4));
            row.push(match (d.cliffs_delta, &d.magnitude) {
                (Some(v), Some(m)) => format!("{v:.3} ({m})"),
                _ => "–".into(),
            });
            row.push(d.no_divergence.to_string());
            t.push(row);
        }
        t
    }

    /// Solver sets per class: one row per (class, set).
    pub fn sets_table(&self) -> Table {
        let mut t = Table::new(["class", "solved by", "tasks"]).right([2]);
        for c in &self.sets_by_class {
            for (set, count) in &c.combinations {
                t.push([
                    c.class.clone(),
                    set_label(&self.systems, set),
                    count.to_string(),
                ]);
            }
        }
        t
    }
}

impl UnfixedTable {
    /// One row per bug no system fixed.
    pub fn rows_table(&self) -> Table {
        let mut headers: Vec<String> = ["bug", "hunks", "Div(P)", "class"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        headers.extend(self.systems.iter().map(|s| format!("{s} localized")));
        let mut t = Table::new(headers).right([1, 2]).with_row_headers();
        for b in &self.rows {
            let mut row = vec![
                b.instance_id.clone(),
                b.hunks.to_string(),
                num(b.divergence, 4),
                b.class.clone(),
            ];
            row.extend(b.localized.iter().map(|l| match l {
                Some(true) => "yes".to_string(),
                Some(false) => "no".to_string(),
                None => "–".to_string(),
            }));
            t.push(row);
        }
        t
    }

    /// The figures over all bugs beside the unfixed ones.
    pub fn deltas_table(&self) -> Table {
        let mut t = Table::new(["figure", "all bugs", "no system fixed", "delta"])
            .right([1, 2, 3])
            .with_row_headers();
        for d in &self.deltas {
            t.push([
                d.what.clone(),
                format!("{:.4}", d.all),
                format!("{:.4}", d.unfixed),
                format!("{:+.4}", d.delta),
            ]);
        }
        t
    }
}

/// `a ∧ b`, `a only` or `nobody`.
pub fn set_label(systems: &[String], set: &[bool]) -> String {
    let members: Vec<&str> = systems
        .iter()
        .zip(set)
        .filter(|(_, s)| **s)
        .map(|(n, _)| n.as_str())
        .collect();
    match members.len() {
        0 => "nobody".to_string(),
        1 => format!("{} only", members[0]),
        _ => members.join(" ∧ "),
    }
}

fn num(v: Option<f64>, digits: usize) -> String {
    v.map(|v| format!("{v:.digits$}"))
        .unwrap_or_else(|| "–".into())
}

fn split(system: &str, bugs: &Bugs, by_id: &HashMap<&str, &Instance>) -> DivergenceSplit {
    let (mut fixed, mut unfixed, mut none) = (Vec::new(), Vec::new(), 0);
    for (id, (ok, _)) in bugs {
        match by_id.get(id).and_then(|i| divergence_of(i)) {
            Some(v) if *ok => fixed.push(v),
            Some(v) => unfixed.push(v),
            None => none += 1,
        }
    }
    let rs = rank_sum(&fixed, &unfixed);
    let delta = cliffs_delta(&fixed, &unfixed);
    DivergenceSplit {
        system: system.to_string(),
        fixed: Spread::of(&fixed),
        unfixed: Spread::of(&unfixed),
        no_divergence: none,
        rank_sum_p: rs.map(|r| r.z_p),
        mann_whitney_p: rs.map(|r| r.u_p),
        cliffs_delta: delta,
        magnitude: delta.map(|d| cliffs_magnitude(d).to_string()),
        values: [fixed, unfixed],
    }
}

fn unfixed_table(
    systems: &[SystemResults],
    per: &[Bugs],
    by_id: &HashMap<&str, &Instance>,
) -> Option<UnfixedTable> {
    // Every bug some system ran on, and whether any fixed it.
    let mut all: BTreeMap<&str, bool> = BTreeMap::new();
    for bugs in per {
        for (id, (ok, _)) in bugs {
            *all.entry(id).or_default() |= *ok;
        }
    }
    if all.is_empty() {
        return None;
    }
    let unfixed_ids: Vec<&str> = all
        .iter()
        .filter(|(_, ok)| !**ok)
        .map(|(id, _)| *id)
        .collect();
    let rows: Vec<UnfixedBug> = unfixed_ids
        .iter()
        .filter_map(|id| by_id.get(id))
        .map(|i| UnfixedBug {
            instance_id: i.instance_id.clone(),
            hunks: i.stats.hunks,
            divergence: divergence_of(i),
            class: class_name(i),
            localized: per
                .iter()
                .map(|b| b.get(i.instance_id.as_str()).map(|(_, l)| *l))
                .collect(),
        })
        .collect();
    let all_ids: Vec<&str> = all.keys().copied().collect();
    let insts = |ids: &[&str]| -> Vec<&Instance> {
        ids.iter().filter_map(|id| by_id.get(id).copied()).collect()
    };
    let (everyone, unfixed) = (insts(&all_ids), insts(&unfixed_ids));
    let mut deltas = Vec::new();
    let mut push = |what: String, a: Option<f64>, u: Option<f64>| {
        if let (Some(all), Some(unfixed)) = (a, u) {
            deltas.push(Delta {
                what,
                all,
                unfixed,
                delta: unfixed - all,
            });
        }
    };
    let share = |set: &[&Instance], class: &str| -> Option<f64> {
        (!set.is_empty()).then(|| {
            set.iter().filter(|i| class_name(i) == class).count() as f64 / set.len() as f64
        })
    };
    for c in class_order() {
        if everyone.iter().any(|i| class_name(i) == c) {
            push(
                format!("share {c}"),
                share(&everyone, &c),
                share(&unfixed, &c),
            );
        }
    }
    let hunks =
        |set: &[&Instance]| -> Vec<f64> { set.iter().map(|i| i.stats.hunks as f64).collect() };
    push(
        "mean hunks".into(),
        mean(&hunks(&everyone)),
        mean(&hunks(&unfixed)),
    );
    let divs =
        |set: &[&Instance]| -> Vec<f64> { set.iter().filter_map(|i| divergence_of(i)).collect() };
    push(
        "mean Div(P)".into(),
        mean(&divs(&everyone)),
        mean(&divs(&unfixed)),
    );
    for (s, bugs) in systems.iter().zip(per) {
        let rate = |ids: &[&str]| -> Option<f64> {
            let ran: Vec<bool> = ids
                .iter()
                .filter_map(|id| bugs.get(id).map(|(_, l)| *l))
                .collect();
            (!ran.is_empty()).then(|| ran.iter().filter(|l| **l).count() as f64 / ran.len() as f64)
        };
        push(
            format!("localization {}", s.name),
            rate(&all_ids),
            rate(&unfixed_ids),
        );
    }
    Some(UnfixedTable {
        systems: systems.iter().map(|s| s.name.clone()).collect(),
        bugs: all.len(),
        rows,
        deltas,
    })
}

fn sets_by_class(systems: &[SystemResults], by_id: &HashMap<&str, &Instance>) -> Vec<ClassSets> {
    // The overall sets' tasks, so that the classes add up to them.
    let mut by_class: BTreeMap<String, BTreeMap<Vec<bool>, usize>> = BTreeMap::new();
    for ((id, _), solved) in solvers(systems) {
        let class = by_id
            .get(id)
            .map(|i| class_name(i))
            .unwrap_or_else(|| "undecided".into());
        *by_class
            .entry(class)
            .or_default()
            .entry(solved)
            .or_default() += 1;
    }
    class_order()
        .into_iter()
        .filter_map(|c| {
            let combos = by_class.remove(&c)?;
            Some(ClassSets {
                class: c,
                tasks: combos.values().sum(),
                combinations: ranked(combos),
            })
        })
        .collect()
}

#[cfg(test)]
#[path = "outcomes_tests.rs"]
mod tests;
