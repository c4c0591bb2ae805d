//! `hunkgen evaluate`: score a system's patches on a dataset's states — apply each patch
//! (exactly, else with offset and fuzz), run the golden tests in the sandbox, grade with
//! SWE-bench's rules, and measure abstention, localization, compilation and regression.

use super::predictions::{self, Prediction};
use crate::dataset;
use crate::diff::Patch;
use crate::model::{
    ApplyMethod, Card, EvaluationSummary, Instance, PredictionResult, Scenario, StateKind,
    SCHEMA_VERSION,
};
use crate::recipe::open;
use crate::validate::golden::GoldenTests;
use crate::validate::stage::Validator;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

pub use super::error::{EvaluateError, ScoreError};
use super::grading::{apply_method, failing, grade};
pub use super::summary::table;
use super::summary::{sort_results, summarize, write_outputs};

/// Why a dataset without `validate:` gets no resolution figures.
const NO_TESTS: &str = "hunkgen does not know how to run its tests";

/// The summary's `resolution_unavailable` for a dataset without `validate:`.
fn no_tests_reason() -> String {
    format!(
        "the dataset's recipe has no `validate:` section, so {NO_TESTS}: resolution, compilation and regression are not scored (abstention, localization and whether patches apply are)"
    )
}

/// Options of one evaluation.
#[derive(Debug, Clone, Default)]
pub struct EvaluateOptions {
    /// The state predictions without their own `state` were made on (default novel).
    pub state: Option<StateKind>,
    /// The scenario predictions without their own `scenario` were made in (none: their
    /// results say `unspecified`).
    pub scenario: Option<Scenario>,
    /// Only the predictions of these instances (empty: all); each must be in the
    /// dataset.
    pub only: Vec<String>,
    /// Where results go (default `<dataset>/evaluations/<model>/`).
    pub output: Option<PathBuf>,
    /// Show a progress bar.
    pub progress: bool,
    /// Score only the predictions of this shard's instances and write a shard directory
    /// (default `<output>-shard-K-of-N`) with its manifest, `shard.yaml`.
    pub shard: Option<crate::shard::Shard>,
    /// Seconds each test (or Defects4J) run may take, instead of the recipe's
    /// `validate.timeout`; a run that takes longer is reported as a timeout.
    pub timeout: Option<u64>,
    /// Run no test: read each prediction's outcome from the official harness's reports
    /// in this directory (`<instance_id>/report.json`, one run's model directory).
    pub harness_report: Option<PathBuf>,
    /// Window lengths of the trajectory analytics' category n-grams (empty: 2 to 5).
    pub ngram_windows: Vec<usize>,
}

/// What an evaluation wrote.
#[derive(Debug)]
pub struct Evaluation {
    /// Per prediction.
    pub results: Vec<PredictionResult>,
    /// The rates.
    pub summary: EvaluationSummary,
    /// Where `results.jsonl` and `summary.json` are.
    pub output: PathBuf,
}

/// Evaluate the predictions in `predictions` on `dataset`.
pub fn evaluate(
    dataset: &Path,
    predictions: &Path,
    opts: &EvaluateOptions,
) -> Result<Evaluation, EvaluateError> {
    // A dataset without `validate:` is still scored for abstention, localization and
    // whether patches apply; its resolution columns stay empty and say why.
    let (card, plan, mut vplan) = match open::open_with_tests(dataset, NO_TESTS) {
        Ok(w) => (w.card, w.plan, Some(w.tests)),
        Err(open::OpenError::NoTests { .. }) => {
            let o = open::open(dataset)?;
            (o.card, o.plan, None)
        }
        Err(e) => return Err(EvaluateError::from(e)),
    };
    if let (Some(t), Some(v)) = (opts.timeout, vplan.as_mut()) {
        v.timeout = std::time::Duration::from_secs(t);
    }
    let instances = dataset::read_instances(dataset)?;
    let by_id: BTreeMap<&str, &Instance> = instances
        .iter()
        .map(|i| (i.instance_id.as_str(), i))
        .collect();
    if let Some(id) = opts.only.iter().find(|id| !by_id.contains_key(id.as_str())) {
        return Err(EvaluateError::OnlyUnknown {
            dataset: dataset.to_path_buf(),
            id: id.clone(),
        });
    }
    let mut preds = predictions::read(predictions)?;
    if !opts.only.is_empty() {
        preds.retain(|p| opts.only.contains(&p.instance_id));
        if preds.is_empty() {
            return Err(EvaluateError::OnlyNone {
                predictions: predictions.to_path_buf(),
                ids: opts.only.join(","),
            });
        }
    }
    let model = preds
        .iter()
        .map(|p| p.model_name_or_path.clone())
        .find(|m| !m.is_empty())
        .unwrap_or_else(|| "unnamed".into());
    if preds
        .iter()
        .all(|p| !by_id.contains_key(p.instance_id.as_str()))
    {
        return Err(EvaluateError::ForeignPredictions {
            predictions: predictions.to_path_buf(),
            count: preds.len(),
            dataset: dataset.to_path_buf(),
        });
    }
    let validator = match &vplan {
        Some(_) if opts.harness_report.is_some() => None,
        Some(v) => {
            Some(crate::recipe::validator::validator(&plan, v).map_err(EvaluateError::Runner)?)
        }
        None => None,
    };
    let output = opts.output.clone().unwrap_or_else(|| {
        let name = model.replace(['/', '\\', ' '], "_");
        dataset.join("evaluations").join(match opts.shard {
            Some(s) => format!("{name}-shard-{}-of-{}", s.index, s.count),
            None => name,
        })
    });
    if opts.shard.is_some() {
        std::fs::create_dir_all(&output)
            .and_then(|()| crate::shard::TaskManifest::begin(&output))
            .map_err(|source| EvaluateError::Io {
                path: output.clone(),
                source,
            })?;
    }
    let logs = output.join("logs");
    let default_state = opts.state.unwrap_or(StateKind::Novel);
    // Duplicates (same instance and state) are problems, not second scores.
    let mut seen = HashSet::new();
    let all_ids: std::collections::BTreeSet<String> =
        preds.iter().map(|p| p.instance_id.clone()).collect();
    let jobs: Vec<(Prediction, Option<String>)> = preds
        .into_iter()
        // A shard scores its instances' predictions (a duplicate lands with its first).
        .filter(|p| opts.shard.is_none_or(|s| s.owns(&p.instance_id)))
        .map(|p| {
            let state = p
                .state
                .clone()
                .unwrap_or_else(|| default_state.name().into());
            // One prediction per instance, state, scenario and instruction: the cells of
            // FixedBench's table may share one file.
            let dup = !seen.insert((
                p.instance_id.clone(),
                state.clone(),
                p.scenario.clone(),
                p.prompt_variant.clone(),
                p.attempt,
            ));
            (
                p,
                dup.then(|| {
                    "duplicate prediction for this instance, state, scenario, instruction and attempt"
                        .to_string()
                }),
            )
        })
        .collect();
    let progress = if opts.progress {
        crate::progress::Progress::new("evaluate", jobs.len() as u64)
    } else {
        crate::progress::Progress::hidden()
    };
    let mut results: Vec<PredictionResult> = jobs
        .par_iter()
        .map(|(p, dup)| {
            let r = score_one(
                p,
                dup.clone(),
                default_state,
                opts.scenario,
                &by_id,
                &card,
                dataset,
                validator.as_ref(),
                opts.harness_report.as_deref(),
                &logs,
                &plan.rules.classifier,
            );
            progress.inc(1);
            r
        })
        .collect();
    progress.finish();
    // In results.jsonl's order, so the summary's sums are the same whether the rows
    // were scored here or merged from shards.
    sort_results(&mut results);
    let unavailable = (vplan.is_none() && opts.harness_report.is_none()).then(no_tests_reason);
    let summary = summarize(
        &card,
        dataset,
        predictions,
        &model,
        &results,
        &by_id,
        unavailable,
        super::trajectory::Context {
            classifier: Some(&plan.rules.classifier),
            windows: &opts.ngram_windows,
        },
    )?;
    write_outputs(&output, &results, &summary)?;
    if let Some(shard) = opts.shard {
        let pred_bytes = std::fs::read(predictions).map_err(|source| EvaluateError::Io {
            path: predictions.to_path_buf(),
            source,
        })?;
        let mut inputs: BTreeMap<String, String> = [
            ("predictions_sha256", dataset::sha256_hex(&pred_bytes)),
            ("model", model.clone()),
            ("state", default_state.name().to_string()),
        ]
        .map(|(k, v)| (k.to_string(), v))
        .into();
        // Only when given, so manifests of evaluations without it still match.
        if let Some(sc) = opts.scenario {
            inputs.insert("scenario".into(), sc.name().into());
        }
        if !opts.only.is_empty() {
            inputs.insert("only".into(), opts.only.join(","));
        }
        if !opts.ngram_windows.is_empty() {
            let w: Vec<String> = opts.ngram_windows.iter().map(usize::to_string).collect();
            inputs.insert("ngram_windows".into(), w.join(","));
        }
        let mine: std::collections::BTreeSet<String> =
            results.iter().map(|r| r.instance_id.clone()).collect();
        let mut m = crate::shard::TaskManifest::new(
            crate::shard::Kind::Evaluation,
            shard,
            dataset,
            inputs,
            all_ids.len(),
            mine.into_iter().collect(),
        )?;
        m.predictions = Some(crate::shard::absolute(predictions));
        m.finish(&output, &["results.jsonl".into(), "summary.json".into()])?;
    }
    Ok(Evaluation {
        results,
        summary,
        output,
    })
}

/// Join `hunkgen evaluate --shard` directories into what one machine's `evaluate`
/// writes: every shard's results.jsonl rows in results.jsonl's order, summary.json
/// computed from them by the code `evaluate` uses (never from the shards' summaries),
/// and the shards' `logs/` copied. The dataset and the predictions file must still be
/// where the shards read them, unchanged. Returns the evaluation and the shards' hosts.
pub fn merge_shards(
    output: &Path,
    shards: &[PathBuf],
    force: bool,
) -> Result<(Evaluation, Vec<String>), EvaluateError> {
    use crate::shard::{self, Kind};
    let read = shard::read_task_shards(shards, Kind::Evaluation)?;
    let Some((_, first)) = read.first() else {
        return Err(shard::ShardSetError::NoShards.into());
    };
    let dataset = shard::dataset_of(first)?;
    let predictions = PathBuf::from(first.predictions.clone().unwrap_or_default());
    let unchanged = std::fs::read(&predictions)
        .ok()
        .map(|b| dataset::sha256_hex(&b))
        == first.inputs.get("predictions_sha256").cloned();
    if !unchanged {
        return Err(EvaluateError::PredictionsChanged { predictions });
    }
    let card = dataset::read_card(&dataset)?.ok_or_else(|| EvaluateError::NoCard {
        dataset: dataset.clone(),
    })?;
    let instances = dataset::read_instances(&dataset)?;
    let by_id: BTreeMap<&str, &Instance> = instances
        .iter()
        .map(|i| (i.instance_id.as_str(), i))
        .collect();
    let mut results: Vec<PredictionResult> = Vec::new();
    for (dir, _) in &read {
        let path = dir.join("results.jsonl");
        let text = std::fs::read_to_string(&path).map_err(|source| EvaluateError::Io {
            path: path.clone(),
            source,
        })?;
        for (i, line) in text.lines().enumerate() {
            results.push(serde_json::from_str(line).map_err(|source| {
                EvaluateError::BadResultRow {
                    path: path.clone(),
                    line: i + 1,
                    source,
                }
            })?);
        }
    }
    sort_results(&mut results);
    let model = first.inputs.get("model").cloned().unwrap_or_default();
    // The shards' own n-gram windows (recorded when not the default).
    let windows: Vec<usize> = first
        .inputs
        .get("ngram_windows")
        .map(|w| w.split(',').filter_map(|n| n.parse().ok()).collect())
        .unwrap_or_default();
    let opened = open::open(&dataset).ok();
    let unavailable = opened
        .as_ref()
        .filter(|o| o.plan.validate.is_none())
        .map(|_| no_tests_reason());
    let summary = summarize(
        &card,
        &dataset,
        &predictions,
        &model,
        &results,
        &by_id,
        unavailable,
        super::trajectory::Context {
            classifier: opened.as_ref().map(|o| &o.plan.rules.classifier),
            windows: &windows,
        },
    )?;
    let writer = dataset::DatasetWriter::begin(output, &model, force)?;
    let mut links = std::collections::HashMap::new();
    for (dir, m) in &read {
        // Only the shard's own instances' logs (`logs/<id>/`), not stale ones.
        for id in &m.instances {
            let from = dir.join("logs").join(id);
            if from.is_dir() {
                dataset::copy_tree(&from, &writer.dir().join("logs").join(id), &mut links)?;
            }
        }
    }
    write_outputs(writer.dir(), &results, &summary)?;
    writer.commit()?;
    let hosts = shard::hosts(read.iter().map(|(_, m)| m.host.as_str()));
    Ok((
        Evaluation {
            results,
            summary,
            output: output.to_path_buf(),
        },
        hosts,
    ))
}

#[allow(clippy::too_many_arguments)] // One prediction needs all of the evaluation's context.
fn score_one(
    p: &Prediction,
    duplicate: Option<String>,
    default_state: StateKind,
    default_scenario: Option<Scenario>,
    by_id: &BTreeMap<&str, &Instance>,
    card: &Card,
    dataset: &Path,
    validator: Option<&Validator<'_>>,
    harness: Option<&Path>,
    logs: &Path,
    classifier: &crate::classify::Classifier,
) -> PredictionResult {
    let state = p
        .state
        .clone()
        .unwrap_or_else(|| default_state.name().into());
    // The prediction's own scenario, else `--scenario`, else unknown.
    let scenario = p
        .scenario
        .clone()
        .or_else(|| default_scenario.map(|s| s.name().into()))
        .unwrap_or_else(|| "unspecified".into());
    let mut r = PredictionResult {
        schema_version: SCHEMA_VERSION,
        instance_id: p.instance_id.clone(),
        model_name_or_path: p.model_name_or_path.clone(),
        state: state.clone(),
        scenario: scenario.clone(),
        instruction: p.prompt_variant.clone(),
        attempt: p.attempt,
        applied: ApplyMethod::Failed,
        compiled: None,
        resolution: None,
        resolved: false,
        abstained: false,
        abstention_correct: false,
        localized: false,
        localized_counted: false,
        hunks_touched: Vec::new(),
        hunks_total: 0,
        line_scores: None,
        function_scores: None,
        failing_before: None,
        failing_after: None,
        infra: None,
        problems: Vec::new(),
        defects4j: None,
    };
    if let Some(d) = duplicate {
        r.problems.push(d);
        return r;
    }
    let Some(inst) = by_id.get(p.instance_id.as_str()) else {
        r.problems
            .push(format!("unknown instance `{}`", p.instance_id));
        return r;
    };
    r.hunks_total = inst.stats.hunks;
    let kind = match state.as_str() {
        "novel" => StateKind::Novel,
        "partial" => StateKind::Partial,
        "resolved" => StateKind::Resolved,
        other => {
            r.problems.push(format!(
                "unknown state `{other}` (novel, partial, resolved)"
            ));
            return r;
        }
    };
    if p.scenario.is_some() && scenario.parse::<Scenario>().is_err() {
        r.problems
            .push(format!("unknown scenario `{scenario}` (best, worst)"));
        return r;
    }
    let candidate = match crate::source::Candidate::from_instance(inst, card) {
        Ok(c) => c,
        Err(why) => {
            r.infra = Some(why.to_string());
            return r;
        }
    };
    let state_change = match super::metrics::state_change(inst, kind, dataset) {
        Ok(c) => c,
        Err(why) => {
            r.problems.push(why.to_string());
            return r;
        }
    };
    let text = p.model_patch.clone().unwrap_or_default();
    let patch = if text.trim().is_empty() {
        Patch::default()
    } else {
        match crate::diff::parse(text.as_bytes()) {
            Ok(p)
                if p.files.iter().any(|f| {
                    !f.hunks.is_empty() || f.change != crate::diff::FileChange::Modified
                }) =>
            {
                p
            }
            Ok(_) => {
                r.problems
                    .push("model_patch is not a diff (no file or hunk found)".into());
                return r;
            }
            Err(e) => {
                r.problems.push(format!(
                    "model_patch is not a diff: line {}: {}",
                    e.line, e.kind
                ));
                return r;
            }
        }
    };
    let metrics = super::metrics::of(inst, &candidate, state_change.as_ref(), &patch, classifier);
    r.abstained = metrics.abstained;
    r.abstention_correct = match kind {
        StateKind::Resolved => r.abstained,
        _ => !r.abstained,
    };
    r.localized = metrics.localized;
    r.localized_counted = metrics.localized_counted;
    r.hunks_touched = metrics.hunks_touched;
    r.line_scores = metrics.line_scores;
    r.function_scores = metrics.function_scores;
    if let Some(dir) = harness {
        if kind != default_state {
            // One harness run scores one state (it keys predictions by instance id).
            r.problems.push(format!(
                "the harness's reports are of the {} state (--state); this prediction is on {}",
                default_state.name(),
                kind.name()
            ));
        } else {
            super::harness::grade_from_report(
                &mut r,
                dir,
                &candidate,
                state_change.as_ref(),
                &patch,
            );
        }
        return r;
    }
    let Some(validator) = validator else {
        // No tests to run: whether the patch applies is all that is left to say.
        r.applied = if patch.files.is_empty() {
            ApplyMethod::Empty
        } else {
            match apply_method(&candidate, state_change.as_ref(), &patch) {
                Ok(m) => m,
                Err(problem) => {
                    r.problems.push(problem);
                    ApplyMethod::Failed
                }
            }
        };
        return r;
    };
    let label = format!("eval-{}", kind.name());
    if validator.is_defects4j(&candidate) {
        let job = super::d4j::Job {
            inst,
            candidate: &candidate,
            state_change: state_change.as_ref(),
            patch: &patch,
            label: &label,
            logs,
        };
        return super::d4j::score(r, &job, validator);
    }
    let gold = GoldenTests {
        fail_to_pass: inst.FAIL_TO_PASS.clone(),
        pass_to_pass: inst.PASS_TO_PASS.clone(),
        ..GoldenTests::default()
    };
    // The state with the golden tests, without the patch: what fails before it.
    let before = validator.evaluate_run(
        &candidate,
        state_change.as_ref(),
        None,
        &format!("{label}-before"),
        logs,
    );
    r.failing_before = failing(&before.result);
    if patch.files.is_empty() {
        r.applied = ApplyMethod::Empty;
        grade(&mut r, &before.result, &gold, before.error);
        return r;
    }
    r.applied = match apply_method(&candidate, state_change.as_ref(), &patch) {
        Ok(m) => m,
        Err(problem) => {
            r.problems.push(problem);
            return r;
        }
    };
    let after = validator.evaluate_run(
        &candidate,
        state_change.as_ref(),
        Some(&patch),
        &label,
        logs,
    );
    grade(&mut r, &after.result, &gold, after.error);
    r.failing_after = failing(&after.result);
    r
}

/// One row of `localization.jsonl`: a predicted fault location against the golden
/// changed lines (RepoFixEval's localization task).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LocalizationResult {
    /// The instance.
    pub instance_id: String,
    /// File-level precision / recall / F1.
    pub files: Option<crate::model::Scores>,
    /// Line-level precision / recall / F1 (buggy-side `path:line`).
    pub lines: Option<crate::model::Scores>,
    /// Golden hunks whose lines the prediction names.
    pub hunks_touched: Vec<usize>,
    /// Counted golden hunks.
    pub hunks_total: usize,
}

/// The localization task's figures over a dataset: the rows, the mean of per-instance F1
/// (each instance weighs the same), and RepoFixEval's own, one pooled set of every
/// instance's elements (each file or line weighs the same).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LocalizationSummary {
    /// One row per instance.
    #[serde(skip)]
    pub rows: Vec<LocalizationResult>,
    /// Mean file-level F1 over instances with golden files (macro).
    pub mean_files_f1: f64,
    /// Mean line-level F1 over instances with golden lines (macro).
    pub mean_lines_f1: f64,
    /// File-level precision / recall / F1 of the pooled set (micro, RepoFixEval's).
    pub pooled_files: Option<crate::model::Scores>,
    /// Line-level precision / recall / F1 of the pooled set (micro, RepoFixEval's).
    pub pooled_lines: Option<crate::model::Scores>,
}

/// Score localization predictions against a dataset's golden changed lines; instances
/// without a prediction score zero recall (they count, as RepoFixEval does). Writes
/// `localization.jsonl` and `localization-summary.json`, and returns both.
pub fn evaluate_localizations(
    dataset: &Path,
    file: &Path,
    output: &Path,
) -> Result<LocalizationSummary, EvaluateError> {
    let instances = dataset::read_instances(dataset)?;
    let predicted = super::read_localizations(file)?;
    let ids: HashSet<&str> = instances.iter().map(|i| i.instance_id.as_str()).collect();
    if let Some(unknown) = predicted.keys().find(|k| !ids.contains(k.as_str())) {
        return Err(EvaluateError::UnknownInstance {
            file: file.to_path_buf(),
            instance: unknown.clone(),
            dataset: dataset.to_path_buf(),
        });
    }
    let empty = super::Localization {
        instance_id: String::new(),
        files: Default::default(),
        lines: Default::default(),
        row: 0,
    };
    let (mut pooled_files, mut pooled_lines) = (Vec::new(), Vec::new());
    let rows: Vec<LocalizationResult> = instances
        .iter()
        .map(|inst| {
            let p = predicted.get(&inst.instance_id).unwrap_or(&empty);
            let golden = crate::states::golden_patch(inst)
                .map(|g| super::golden_hunks(&g, &inst.hunks))
                .unwrap_or_default();
            let golden_lines = super::golden_lines(&golden);
            let golden_files: std::collections::BTreeSet<String> =
                inst.files.iter().cloned().collect();
            pooled_files.push(super::counts(&p.files, &golden_files));
            pooled_lines.push(super::counts(&p.lines, &golden_lines));
            LocalizationResult {
                instance_id: inst.instance_id.clone(),
                files: super::file_scores(&p.files, &inst.files),
                lines: super::scores(&p.lines, &golden_lines),
                hunks_touched: super::hunks_touched(&golden, &p.lines),
                hunks_total: inst.stats.hunks,
            }
        })
        .collect();
    let mean = |f: &dyn Fn(&LocalizationResult) -> Option<f64>| {
        let v: Vec<f64> = rows.iter().filter_map(f).collect();
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let summary = LocalizationSummary {
        mean_files_f1: mean(&|r| r.files.map(|s| s.f1)),
        mean_lines_f1: mean(&|r| r.lines.map(|s| s.f1)),
        pooled_files: super::pooled_scores(&pooled_files),
        pooled_lines: super::pooled_scores(&pooled_lines),
        rows,
    };
    dataset::write_atomic(
        &output.join("localization.jsonl"),
        &dataset::jsonl(&summary.rows),
    )?;
    let json = serde_json::to_string_pretty(&summary).unwrap_or_default() + "\n";
    dataset::write_atomic(&output.join("localization-summary.json"), json.as_bytes())?;
    Ok(summary)
}
