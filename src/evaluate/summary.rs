//! What `hunkgen evaluate` writes once every prediction is scored: the summary (rates
//! overall and by class, divergence quartile, state and project; the agent study's rows;
//! the trajectories of the `hunkgen run` output), `results.jsonl` in its order, and the
//! summary table printed after an evaluation or a merge.

use super::error::EvaluateError;
use crate::dataset;
use crate::model::{
    Card, EvaluationSummary, Instance, Paired, PredictionResult, Rates, StateKind, SCHEMA_VERSION,
};
use std::collections::BTreeMap;
use std::path::Path;

/// Rates overall and by class, divergence quartile, state and project, and the
/// trajectories of the `hunkgen run` output next to the predictions.
#[allow(clippy::too_many_arguments)] // What one evaluation's summary is made from.
pub(super) fn summarize(
    card: &Card,
    dataset: &Path,
    predictions: &Path,
    model: &str,
    results: &[PredictionResult],
    by_id: &BTreeMap<&str, &Instance>,
    resolution_unavailable: Option<String>,
    trajectories: super::trajectory::Context<'_>,
) -> Result<EvaluationSummary, EvaluateError> {
    let jsonl =
        std::fs::read(dataset.join("instances.jsonl")).map_err(|source| EvaluateError::Io {
            path: dataset.join("instances.jsonl"),
            source,
        })?;
    let scored: Vec<&PredictionResult> = results
        .iter()
        .filter(|r| {
            by_id.contains_key(r.instance_id.as_str())
                && !r.problems.iter().any(|p| p.starts_with("duplicate"))
        })
        .collect();
    let divs: Vec<f64> = by_id
        .values()
        .filter_map(|i| i.divergence.as_ref().and_then(|d| d.value))
        .collect();
    let q = |p: f64| crate::stats::percentile(&divs, p);
    let (q1, q2, q3) = (q(0.25), q(0.5), q(0.75));
    // Without tests, the figures that need a test run are empty, never zero.
    let rates_of = |v: &[&PredictionResult]| {
        let mut r = super::metrics::rates(v);
        if resolution_unavailable.is_some() {
            r.resolution = None;
            r.compilation = None;
            r.mean_regression_reduction = None;
        }
        r
    };
    let group = |key: &dyn Fn(&Instance, &PredictionResult) -> String| -> BTreeMap<String, Rates> {
        let mut groups: BTreeMap<String, Vec<&PredictionResult>> = BTreeMap::new();
        for r in &scored {
            if let Some(inst) = by_id.get(r.instance_id.as_str()) {
                groups.entry(key(inst, r)).or_default().push(r);
            }
        }
        groups.into_iter().map(|(k, v)| (k, rates_of(&v))).collect()
    };
    let run_dir = predictions.parent().unwrap_or(Path::new("."));
    Ok(EvaluationSummary {
        schema_version: SCHEMA_VERSION,
        dataset: card.name.clone(),
        dataset_sha256: dataset::sha256_hex(&jsonl),
        model_name_or_path: model.to_string(),
        predictions: results.len(),
        infra: results.iter().filter(|r| r.infra.is_some()).count(),
        problems: results.iter().filter(|r| !r.problems.is_empty()).count(),
        attempts: if resolution_unavailable.is_some() {
            Vec::new()
        } else {
            super::attempts::metrics(&scored)
        },
        resolution_unavailable: resolution_unavailable.clone(),
        overall: rates_of(&scored),
        by_class: group(&|i, _| {
            i.proximity
                .as_ref()
                .and_then(|p| p.class)
                .map(|c| c.name().to_string())
                .unwrap_or_else(|| "undecided".into())
        }),
        by_divergence_quartile: group(&|i, _| match i.divergence.as_ref().and_then(|d| d.value) {
            None => "none".into(),
            Some(v) if v <= q1 => "Q1".into(),
            Some(v) if v <= q2 => "Q2".into(),
            Some(v) if v <= q3 => "Q3".into(),
            Some(_) => "Q4".into(),
        }),
        by_state: group(&|_, r| r.state.clone()),
        by_project: group(&|i, _| i.project.clone()),
        outcomes: scored
            .iter()
            .map(|r| {
                (
                    outcome_key(r),
                    Paired {
                        resolved: r.resolved,
                        abstained: r.abstained,
                    },
                )
            })
            .collect(),
        trajectories: super::trajectory::metrics(run_dir, results, by_id, trajectories),
        study: study_rows(&scored, by_id).and_then(|rows| super::study::metrics(&rows)),
        exclusions: super::misses::exclusions(&scored),
        gold_misses: super::misses::gold_misses(model, &scored),
    })
}

/// A row's key in `outcomes` (what `compare` pairs): `<instance_id>/<state>`, with
/// `/<scenario>/<instruction>` added when the row names either, so the cells of one
/// FixedBench file stay apart.
fn outcome_key(r: &PredictionResult) -> String {
    let key = outcome_key_of_cell(r);
    match r.attempt {
        Some(k) => format!("{key}#{k}"),
        None => key,
    }
}

/// [`outcome_key`] without the attempt.
fn outcome_key_of_cell(r: &PredictionResult) -> String {
    let scenario = (r.scenario != "unspecified").then_some(r.scenario.as_str());
    match (scenario, r.instruction.as_deref()) {
        (None, None) => format!("{}/{}", r.instance_id, r.state),
        (sc, i) => format!(
            "{}/{}/{}/{}",
            r.instance_id,
            r.state,
            sc.unwrap_or("unspecified"),
            i.unwrap_or("unspecified")
        ),
    }
}

/// The rows the agent study's metrics are over when Defects4J evaluated the predictions:
/// those on the buggy version (Novel) of Defects4J instances, problems included.
fn study_rows<'r>(
    scored: &[&'r PredictionResult],
    by_id: &BTreeMap<&str, &Instance>,
) -> Option<Vec<&'r PredictionResult>> {
    if !scored.iter().any(|r| r.defects4j.is_some()) {
        return None;
    }
    Some(
        scored
            .iter()
            .filter(|r| r.state == StateKind::Novel.name())
            .filter(|r| {
                by_id
                    .get(r.instance_id.as_str())
                    .is_some_and(|i| i.source == crate::model::SourceKind::Defects4j)
            })
            .copied()
            .collect(),
    )
}

/// results.jsonl's order: by instance and state, equal ones as the predictions had them.
pub(super) fn sort_results(results: &mut [PredictionResult]) {
    results.sort_by(|a, b| (&a.instance_id, &a.state).cmp(&(&b.instance_id, &b.state)));
}

pub(super) fn write_outputs(
    dir: &Path,
    results: &[PredictionResult],
    summary: &EvaluationSummary,
) -> Result<(), EvaluateError> {
    let json = serde_json::to_string_pretty(summary).unwrap_or_default();
    // Both or neither: a full disk leaves the previous evaluation as it was.
    dataset::write_all_atomic(&[
        (&dir.join("results.jsonl"), &dataset::jsonl(results)),
        (&dir.join("summary.json"), json.as_bytes()),
    ])?;
    Ok(())
}

/// The evaluation table printed after a run: rates overall and by state.
pub fn table(s: &EvaluationSummary) -> String {
    let pct = |r: &Option<crate::model::Rate>| match r {
        Some(r) => format!(
            "{:.1}% ({}/{}; {:.1}–{:.1})",
            100.0 * r.rate,
            r.k,
            r.n,
            100.0 * r.low,
            100.0 * r.high
        ),
        None => "–".into(),
    };
    let mut out = format!(
        "{} on {}: {} prediction(s), {} infrastructure failure(s), {} with problems\n\n",
        s.model_name_or_path, s.dataset, s.predictions, s.infra, s.problems
    );
    if let Some(why) = &s.resolution_unavailable {
        out.push_str(&format!("Not scored: {why}.\n\n"));
    }
    let mut table = crate::table::Table::new([
        "group",
        "resolved",
        "abstained",
        "correct abstention",
        "localized",
        "localized (counted-hunk files)",
        "git apply (strict)",
        "applied (lenient)",
        "compiled",
    ])
    .right(1..9);
    let mut row = |name: String, r: &Rates| {
        table.push([
            name,
            pct(&r.resolution),
            pct(&r.abstention),
            pct(&r.correct_abstention),
            pct(&r.localization),
            pct(&r.localization_counted),
            pct(&r.applied_strict),
            pct(&r.applied_lenient),
            pct(&r.compilation),
        ]);
    };
    row("all".into(), &s.overall);
    for (state, r) in &s.by_state {
        row(format!("state {state}"), r);
    }
    out.push_str(&table.to_markdown());
    if !s.attempts.is_empty() {
        let mut t = crate::table::Table::new([
            "state",
            "scenario",
            "instruction",
            "instances",
            "pass@k (k = 1, 2, …)",
            "resolved within k",
            "per attempt: mean ± sd",
        ]);
        let list = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{:.1}", 100.0 * x))
                .collect::<Vec<_>>()
                .join(", ")
        };
        for a in &s.attempts {
            t.push([
                a.state.clone(),
                a.scenario.clone(),
                a.instruction.clone(),
                a.instances.to_string(),
                list(&a.pass_at_k),
                list(&a.resolved_within),
                format!("{:.1} ± {:.1}", 100.0 * a.mean, 100.0 * a.sd),
            ]);
        }
        out.push_str("\nRepeated attempts (percent):\n\n");
        out.push_str(&t.to_markdown());
    }
    if let Some(m) = &s.study {
        out.push_str(&super::study::table2(&[(
            s.model_name_or_path.clone(),
            m.clone(),
        )]));
    }
    if let Some(m) = &s.trajectories {
        out.push_str(&super::trajectory::markdown(m));
    }
    out.push_str(&super::misses::markdown(s));
    out
}
