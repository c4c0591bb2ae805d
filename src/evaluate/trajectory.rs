//! Trajectory metrics of agent runs (the multi-hunk agent study): tokens and time split
//! by success and failure, tool use per kind, first-touch localization of the golden
//! files, action n-grams and "fail fast". Read from `hunkgen run` output lying next to
//! the predictions file (`<dir>/<instance>/result.json`, `trajectory.jsonl`).

use crate::model::{
    AgentRunRecord, FailFast, FirstTouch, Instance, NGram, PredictionResult, Resources, StepKind,
    ToolUse, TrajectoryMetrics, TrajectoryStep,
};
use crate::stats::mean;
use crate::table::Table;
use std::collections::BTreeMap;
use std::path::Path;

/// How many n-grams of each length are kept.
const TOP_NGRAMS: usize = 5;

/// One run as the metrics see it.
struct Run {
    resolved: bool,
    record: AgentRunRecord,
    steps: Option<Vec<TrajectoryStep>>,
    golden: Vec<String>,
}

/// What the trajectory metrics take from the evaluation besides the runs.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The dataset's classifier, for the agent study's golden files (every code file of
    /// the developer's patch); without one, the files with a counted hunk.
    pub classifier: Option<&'a crate::classify::Classifier>,
    /// Window lengths of the category n-grams (empty: [`super::analytics::WINDOWS`]).
    pub windows: &'a [usize],
}

/// Metrics of the runs in `dir` whose predictions were scored as `results`; `None` when
/// no result has a `result.json` there.
pub fn metrics(
    dir: &Path,
    results: &[PredictionResult],
    by_id: &BTreeMap<&str, &Instance>,
    cx: Context<'_>,
) -> Option<TrajectoryMetrics> {
    let mut runs = Vec::new();
    for r in results {
        let Some(inst) = by_id.get(r.instance_id.as_str()) else {
            continue;
        };
        let base = dir.join(&r.instance_id);
        let Some(record) = std::fs::read_to_string(base.join("result.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<AgentRunRecord>(&t).ok())
            .filter(|rec| rec.state == r.state)
        else {
            continue;
        };
        let steps = std::fs::read_to_string(base.join("trajectory.jsonl"))
            .ok()
            .map(|t| {
                t.lines()
                    .filter_map(|l| serde_json::from_str::<TrajectoryStep>(l).ok())
                    .collect()
            });
        // The agent study's golden files (every code file of the developer's patch, a
        // created or deleted one included); the counted-hunk files without a classifier.
        let mut golden: Vec<String> = match cx.classifier {
            Some(c) => {
                let g = crate::states::golden_patch(inst).ok();
                super::study_golden_files(g.as_ref(), &inst.files, c)
            }
            None => inst.files.clone(),
        };
        golden.sort();
        golden.dedup();
        runs.push(Run {
            // On Resolved nothing is to be fixed: success there is abstaining.
            resolved: if r.state == crate::model::StateKind::Resolved.name() {
                r.abstention_correct
            } else {
                r.resolved
            },
            record,
            steps,
            golden,
        });
    }
    if runs.is_empty() {
        return None;
    }
    Some(compute(&runs, cx.windows))
}

fn tokens(steps: &[TrajectoryStep]) -> Option<u64> {
    steps
        .iter()
        .filter_map(|s| match (s.tokens_in, s.tokens_out) {
            (None, None) => None,
            (i, o) => Some(i.unwrap_or(0) + o.unwrap_or(0)),
        })
        .reduce(|a, b| a + b)
}

/// Tokens (input + output) of each run that reports them.
fn run_tokens(runs: &[&Run]) -> Vec<f64> {
    runs.iter()
        .filter_map(|r| r.steps.as_deref().and_then(tokens))
        .map(|t| t as f64)
        .collect()
}

/// The means of a group of runs, `toks` being [`run_tokens`] of them.
fn resources(runs: &[&Run], toks: &[f64]) -> Resources {
    let secs: Vec<f64> = runs
        .iter()
        .map(|r| r.record.elapsed_ms as f64 / 1000.0)
        .collect();
    let steps: Vec<f64> = runs
        .iter()
        .filter_map(|r| r.steps.as_ref().map(|s| s.len() as f64))
        .collect();
    // Each kind of token over the runs whose steps report it.
    let kind = |get: fn(&TrajectoryStep) -> Option<u64>| {
        let per_run: Vec<f64> = runs
            .iter()
            .filter_map(|r| {
                r.steps
                    .as_deref()?
                    .iter()
                    .filter_map(get)
                    .reduce(|a, b| a + b)
            })
            .map(|t| t as f64)
            .collect();
        mean(&per_run)
    };
    Resources {
        runs: runs.len(),
        mean_tokens: mean(toks),
        mean_seconds: mean(&secs),
        mean_steps: mean(&steps),
        mean_input_tokens: kind(|s| s.tokens_in),
        mean_output_tokens: kind(|s| s.tokens_out),
        mean_cache_read_tokens: kind(|s| s.tokens_cache_read),
        mean_cache_write_tokens: kind(|s| s.tokens_cache_write),
    }
}

/// A step's file names this golden file (paths may be relative or absolute).
fn names(step_file: &str, golden: &str) -> bool {
    let f = step_file.trim_start_matches("./");
    f == golden || f.ends_with(&format!("/{golden}")) || golden.ends_with(&format!("/{f}"))
}

fn ngrams(runs: &[Run], n: usize) -> Vec<NGram> {
    let mut counts: BTreeMap<Vec<StepKind>, usize> = BTreeMap::new();
    for r in runs {
        let kinds: Vec<StepKind> = r.steps.iter().flatten().map(|s| s.kind).collect();
        for w in kinds.windows(n) {
            *counts.entry(w.to_vec()).or_default() += 1;
        }
    }
    let mut v: Vec<NGram> = counts
        .into_iter()
        .map(|(kinds, count)| NGram { kinds, count })
        .collect();
    v.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.kinds.cmp(&b.kinds)));
    v.truncate(TOP_NGRAMS);
    v
}

fn compute(runs: &[Run], windows: &[usize]) -> TrajectoryMetrics {
    let mut m = TrajectoryMetrics {
        runs: runs.len(),
        with_trajectory: runs.iter().filter(|r| r.steps.is_some()).count(),
        ..Default::default()
    };
    for r in runs {
        *m.outcomes
            .entry(r.record.outcome.name().to_string())
            .or_default() += 1;
    }
    let ok: Vec<&Run> = runs.iter().filter(|r| r.resolved).collect();
    let bad: Vec<&Run> = runs.iter().filter(|r| !r.resolved).collect();
    let (ok_tokens, bad_tokens) = (run_tokens(&ok), run_tokens(&bad));
    m.success = resources(&ok, &ok_tokens);
    m.failure = resources(&bad, &bad_tokens);
    for (outcome, per_run) in [("success", ok_tokens), ("failure", bad_tokens)] {
        if !per_run.is_empty() {
            m.tokens_per_run.insert(outcome.to_string(), per_run);
        }
    }
    let ratio = |f: Option<f64>, s: Option<f64>| match (f, s) {
        (Some(f), Some(s)) if s > 0.0 => Some(f / s),
        _ => None,
    };
    m.fail_fast = FailFast {
        tokens: ratio(m.failure.mean_tokens, m.success.mean_tokens),
        seconds: ratio(m.failure.mean_seconds, m.success.mean_seconds),
        steps: ratio(m.failure.mean_steps, m.success.mean_steps),
    };
    let mut calls: BTreeMap<StepKind, usize> = BTreeMap::new();
    for s in runs.iter().filter_map(|r| r.steps.as_ref()).flatten() {
        *calls.entry(s.kind).or_default() += 1;
    }
    let total: usize = calls.values().sum();
    m.tool_use = calls
        .into_iter()
        .map(|(k, c)| {
            (
                k.name().to_string(),
                ToolUse {
                    calls: c,
                    share: c as f64 / total as f64,
                },
            )
        })
        .collect();
    let (mut idx, mut rel, mut ms) = (Vec::new(), Vec::new(), Vec::new());
    let mut ft = FirstTouch::default();
    for r in runs {
        let Some(steps) = &r.steps else { continue };
        for g in &r.golden {
            ft.golden_files += 1;
            let first = steps.iter().position(|s| {
                matches!(s.kind, StepKind::Read | StepKind::Edit)
                    && s.files.iter().any(|f| names(f, g))
            });
            if let Some(i) = first {
                ft.touched += 1;
                idx.push(i as f64);
                rel.push(i as f64 / steps.len() as f64);
                if let Some(t) = steps[i].elapsed_ms {
                    ms.push(t as f64);
                }
            }
        }
    }
    ft.mean_step = mean(&idx);
    ft.mean_relative_step = mean(&rel);
    ft.mean_ms = mean(&ms);
    m.first_touch = ft;
    m.bigrams = ngrams(runs, 2);
    m.trigrams = ngrams(runs, 3);
    let with_steps: Vec<super::analytics::RunSteps<'_>> = runs
        .iter()
        .filter_map(|r| {
            Some(super::analytics::RunSteps {
                success: r.resolved,
                steps: r.steps.as_deref()?,
                golden: &r.golden,
            })
        })
        .collect();
    m.analytics = (!with_steps.is_empty()).then(|| super::analytics::compute(&with_steps, windows));
    m
}

/// A number or a dash.
fn num(x: Option<f64>, digits: usize) -> String {
    x.map(|v| format!("{v:.digits$}"))
        .unwrap_or_else(|| "–".into())
}

/// The metrics as markdown lines for the terminal.
pub fn markdown(m: &TrajectoryMetrics) -> String {
    use std::fmt::Write as _;
    let mut out = format!(
        "\ntrajectories: {} run(s), {} with a normalized trajectory; outcomes: {}\n\n",
        m.runs,
        m.with_trajectory,
        m.outcomes
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut table =
        Table::new(["runs", "n", "mean tokens", "mean seconds", "mean steps"]).right(1..5);
    for (name, r) in [("successful", &m.success), ("failed", &m.failure)] {
        table.push([
            name.to_string(),
            r.runs.to_string(),
            num(r.mean_tokens, 0),
            num(r.mean_seconds, 1),
            num(r.mean_steps, 1),
        ]);
    }
    out.push_str(&table.to_markdown());
    for (name, r) in [("successful", &m.success), ("failed", &m.failure)] {
        if r.mean_input_tokens.is_some() || r.mean_output_tokens.is_some() {
            let _ = writeln!(
                out,
                "mean tokens of {name} runs: input {} (cache read {}, cache write {}), output {}",
                num(r.mean_input_tokens, 0),
                num(r.mean_cache_read_tokens, 0),
                num(r.mean_cache_write_tokens, 0),
                num(r.mean_output_tokens, 0)
            );
        }
    }
    let uses: Vec<String> = m
        .tool_use
        .iter()
        .map(|(k, u)| format!("{k} {} ({:.0}%)", u.calls, 100.0 * u.share))
        .collect();
    let _ = writeln!(out, "\ntool use: {}", uses.join(", "));
    let ft = &m.first_touch;
    let _ = writeln!(
        out,
        "first touch of golden files: {}/{} touched, mean step {} (relative {})",
        ft.touched,
        ft.golden_files,
        num(ft.mean_step, 1),
        num(ft.mean_relative_step, 2)
    );
    let gram = |g: &NGram| {
        let k: Vec<&str> = g.kinds.iter().map(|k| k.name()).collect();
        format!("{} ×{}", k.join(" → "), g.count)
    };
    let _ = writeln!(
        out,
        "top bigrams: {}",
        m.bigrams.iter().map(gram).collect::<Vec<_>>().join("; ")
    );
    let _ = writeln!(
        out,
        "fail fast (failed / successful): tokens {}, time {}, steps {}",
        num(m.fail_fast.tokens, 2),
        num(m.fail_fast.seconds, 2),
        num(m.fail_fast.steps, 2)
    );
    if let Some(a) = &m.analytics {
        out.push_str(&super::analytics::markdown(a));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::AgentOutcome;

    fn step(kind: StepKind, file: &str, tokens: u64) -> TrajectoryStep {
        let mut s = TrajectoryStep::new(kind);
        if !file.is_empty() {
            s.files.push(file.into());
        }
        s.tokens_in = Some(tokens);
        s
    }

    fn run(resolved: bool, ms: u64, steps: Vec<TrajectoryStep>) -> Run {
        Run {
            resolved,
            record: AgentRunRecord {
                instance_id: "i".into(),
                agent: "a".into(),
                state: "novel".into(),
                scenario: "best".into(),
                prompt_variant: "plain".into(),
                tests_present: false,
                key: String::new(),
                outcome: AgentOutcome::Completed,
                exit_code: Some(0),
                elapsed_ms: ms,
                started_at: String::new(),
                sandboxed: true,
                patch_bytes: 0,
                binary_files: Vec::new(),
                trajectory_format: "normalized".into(),
                trajectory_steps: steps.len(),
                detail: None,
                had: Vec::new(),
                environment_error: None,
                keep_output: None,
                attempt: None,
            },
            steps: Some(steps),
            golden: vec!["src/a.py".into(), "src/b.py".into()],
        }
    }

    #[test]
    fn the_study_metrics_by_hand() {
        use StepKind::*;
        let runs = vec![
            // Resolved: 4 steps, 100 tokens, 2 s; touches a.py at step 1, b.py at step 2.
            run(
                true,
                2000,
                vec![
                    step(Search, "", 10),
                    step(Read, "src/a.py", 20),
                    step(Edit, "./src/b.py", 30),
                    step(RunTest, "", 40),
                ],
            ),
            // Failed: 2 steps, 50 tokens, 1 s; never touches a golden file.
            run(
                false,
                1000,
                vec![step(Search, "", 25), step(Read, "src/c.py", 25)],
            ),
        ];
        let m = compute(&runs, &[]);
        assert_eq!(m.runs, 2);
        assert_eq!(m.success.mean_tokens, Some(100.0));
        assert_eq!(m.failure.mean_tokens, Some(50.0));
        assert_eq!(m.fail_fast.tokens, Some(0.5));
        assert_eq!(m.fail_fast.seconds, Some(0.5));
        assert_eq!(m.fail_fast.steps, Some(0.5));
        assert_eq!(m.tool_use["search"].calls, 2);
        assert!((m.tool_use["search"].share - 2.0 / 6.0).abs() < 1e-12);
        assert_eq!(m.first_touch.golden_files, 4);
        assert_eq!(m.first_touch.touched, 2);
        assert_eq!(m.first_touch.mean_step, Some(1.5));
        assert_eq!(m.bigrams[0].kinds, vec![Search, Read]);
        assert_eq!(m.bigrams[0].count, 2);
        assert_eq!(m.trigrams.len(), 2);
    }
}
