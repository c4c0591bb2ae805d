//! Evaluation rows (`results.jsonl`) and summaries (`summary.json`): how a system's
//! patches did on a dataset's states, with the papers' metrics (FixedBench, HUNK4J study).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How a predicted patch was applied to its state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ApplyMethod {
    /// The patch was empty (after nothing was dropped): nothing to apply.
    Empty,
    /// Applied exactly (every context line matched).
    Exact,
    /// Applied by a 3-way merge against the state's history.
    ThreeWay,
    /// Applied with fuzz (context allowed to differ).
    Fuzz,
    /// Did not apply.
    Failed,
}

/// SWE-bench's resolution status of a prediction on the golden tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ResolutionStatus {
    /// Every FAIL_TO_PASS and PASS_TO_PASS test passes.
    Full,
    /// Some FAIL_TO_PASS pass, and every PASS_TO_PASS.
    Partial,
    /// Anything else.
    No,
}

/// One `results.jsonl` row: one prediction on one state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PredictionResult {
    /// Row schema version.
    pub schema_version: u32,
    /// The instance.
    pub instance_id: String,
    /// The system that made the prediction.
    pub model_name_or_path: String,
    /// The state the prediction was made on (`novel`, `partial`, `resolved`).
    pub state: String,
    /// The scenario (`best`, `worst`).
    pub scenario: String,
    /// How the patch applied.
    pub applied: ApplyMethod,
    /// Whether the code built (`None` when the suite never ran for another reason).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compiled: Option<bool>,
    /// SWE-bench's FULL / PARTIAL / NO on the golden tests (`None`: not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<ResolutionStatus>,
    /// Resolved in SWE-bench's sense (FULL).
    pub resolved: bool,
    /// The effective patch is empty once test files, docs, non-code files, comment-only
    /// and docstring-only changes are dropped (the FixedBench rule).
    pub abstained: bool,
    /// Whether abstaining was right: on Resolved it is, on Novel and Partial it is not.
    pub abstention_correct: bool,
    /// Every golden file is among the files the patch changes.
    pub localized: bool,
    /// Patch indices of the golden hunks whose buggy lines the patch touches.
    pub hunks_touched: Vec<usize>,
    /// Counted golden hunks.
    pub hunks_total: usize,
    /// Line-level precision / recall / F1 of the lines the patch touches against the
    /// golden changed lines (RepoFixEval); `None` when undefined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_scores: Option<Scores>,
    /// Tests failing on the state (with the golden tests) before the patch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failing_before: Option<usize>,
    /// Tests failing after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failing_after: Option<usize>,
    /// Infrastructure failure (counted in the denominator as not resolved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub infra: Option<String>,
    /// Per-prediction problems (patch is not a diff, unknown instance, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

/// Precision, recall and F1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Scores {
    /// |predicted ∩ golden| / |predicted|.
    pub precision: f64,
    /// |predicted ∩ golden| / |golden|.
    pub recall: f64,
    /// Harmonic mean (0 when both are 0).
    pub f1: f64,
}

/// A rate with its 95% Wilson score interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Rate {
    /// Successes.
    pub k: usize,
    /// Trials.
    pub n: usize,
    /// k / n (0 when n = 0).
    pub rate: f64,
    /// Lower bound of the 95% Wilson interval.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

/// The rates of one group of results.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Rates {
    /// Resolution (FULL) rate.
    pub resolution: Option<Rate>,
    /// Abstention rate (any state).
    pub abstention: Option<Rate>,
    /// Correct abstention (abstained on Resolved, acted on Novel/Partial).
    pub correct_abstention: Option<Rate>,
    /// Localization success (golden files ⊆ patched files).
    pub localization: Option<Rate>,
    /// Compilation success among patches whose suite ran.
    pub compilation: Option<Rate>,
    /// Mean line-level F1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_line_f1: Option<f64>,
    /// Mean regression reduction (failing before − failing after).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_regression_reduction: Option<f64>,
}

/// Paired outcomes per (instance, state), for McNemar's test between two summaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Paired {
    /// Resolved (FULL).
    pub resolved: bool,
    /// Abstained.
    pub abstained: bool,
}

/// `summary.json`: the rates overall and broken down, with the paired outcomes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EvaluationSummary {
    /// Summary schema version.
    pub schema_version: u32,
    /// Dataset name (card `name`) and the SHA-256 of its `instances.jsonl`, so results
    /// of another dataset are recognized.
    pub dataset: String,
    /// `instances.jsonl` checksum.
    pub dataset_sha256: String,
    /// The system.
    pub model_name_or_path: String,
    /// Predictions scored (per-prediction problems included, as not resolved).
    pub predictions: usize,
    /// Infrastructure failures (in the denominator).
    pub infra: usize,
    /// Per-prediction problems.
    pub problems: usize,
    /// Over everything.
    pub overall: Rates,
    /// By proximity class (`Nucleus`, …, `undecided`).
    pub by_class: BTreeMap<String, Rates>,
    /// By divergence quartile (`Q1` … `Q4`, `none`).
    pub by_divergence_quartile: BTreeMap<String, Rates>,
    /// By state (`novel`, `partial`, `resolved`).
    pub by_state: BTreeMap<String, Rates>,
    /// By project.
    pub by_project: BTreeMap<String, Rates>,
    /// `<instance_id>/<state>` → outcome.
    pub outcomes: BTreeMap<String, Paired>,
    /// Trajectory metrics, when `hunkgen run` output lies next to the predictions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trajectories: Option<super::TrajectoryMetrics>,
}
