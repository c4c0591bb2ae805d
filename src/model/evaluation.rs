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
    /// The scenario the patch was made in (`best`, `worst`): the prediction's own, else
    /// `--scenario`, else `unspecified`.
    pub scenario: String,
    /// The prompt's instruction the prediction was made under (`issue`, `edit`,
    /// `reproduce`, `abstain-or-fix`, …), from the prediction's `prompt_variant`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instruction: Option<String>,
    /// Which attempt of several it is (1-based; `hunkgen run --attempts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
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
    /// Every golden file is among the files the patch changes: the agent study's
    /// golden files, every code file of the developer's patch (created and deleted ones
    /// included).
    pub localized: bool,
    /// The named variant of `localized`: every file with a counted golden hunk is among
    /// the files the patch changes (rows written before it read as false).
    #[serde(default)]
    pub localized_counted: bool,
    /// Patch indices of the golden hunks whose buggy lines the patch touches.
    pub hunks_touched: Vec<usize>,
    /// Counted golden hunks.
    pub hunks_total: usize,
    /// Line-level precision / recall / F1 of the lines the patch touches against the
    /// golden changed lines (RepoFixEval); `None` when undefined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_scores: Option<Scores>,
    /// Function-level precision / recall / F1: the methods holding the lines the patch
    /// touches (on the buggy state) against the golden hunks' methods
    /// (`hunks[].place.method_lines`); `None` when undefined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_scores: Option<Scores>,
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
    /// What Defects4J said, on a dataset Defects4J validated (HUNK4J).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defects4j: Option<D4jResult>,
}

/// The study's Table 2 as published (372 bugs each): agent, localization, compilation,
/// mean regression reduction, repair accuracy; shown under the computed rows so that a
/// reproduction reads against it.
pub const PUBLISHED_TABLE2: [(&str, usize, usize, f64, usize); 4] = [
    ("Qwen Code", 142, 364, -1.34, 96),
    ("Gemini CLI", 173, 347, -1.92, 155),
    ("Codex", 279, 367, 2.25, 324),
    ("Claude Code", 238, 372, 2.47, 347),
];

/// Bugs of each published Table 2 row.
pub const PUBLISHED_TABLE2_BUGS: usize = 372;

impl PredictionResult {
    /// The agent study's non-empty and valid patch: it changed something and applied.
    pub fn study_non_empty(&self) -> bool {
        !matches!(self.applied, ApplyMethod::Empty | ApplyMethod::Failed)
    }

    /// The agent study's compilation: non-empty and compiled.
    pub fn study_compiles(&self) -> bool {
        self.study_non_empty() && self.compiled == Some(true)
    }

    /// The agent study's regression reduction (failing tests before − after), defined
    /// only for a compiled patch whose failing counts are known; here so that `evaluate`
    /// and `report` share one definition.
    pub fn regression_reduction(&self) -> Option<i64> {
        if !self.study_compiles() {
            return None;
        }
        Some(self.failing_before? as i64 - self.failing_after? as i64)
    }
}

/// A prediction under Defects4J: `defects4j compile`, the trigger tests in their own
/// runs, then the whole suite, on a fresh copy of the buggy checkout with the patch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct D4jResult {
    /// What `defects4j compile` said: `compiled`, `compile_error`, `timeout` or `infra`.
    pub compile: String,
    /// javac's first errors when it failed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compile_errors: Vec<String>,
    /// Trigger tests that did not pass in their own runs (`None`: they did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger_failing: Option<Vec<String>>,
    /// Tests the whole suite ran after the patch (`None`: it did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_tests: Option<usize>,
    /// Tests failing in the whole suite after the patch, the excluded ones left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_failing: Option<Vec<String>>,
    /// Tests left out on both sides: Defects4J lists them as failing on the fixed
    /// version (`failing_tests/<revision>`), as the build does, or they fail on the
    /// fixed version here (same sandbox and JDK); `excluded_why` says which.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excluded: Vec<String>,
    /// Why each excluded test is left out (`defects4j failing_tests`, `fails on the
    /// fixed version here`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub excluded_why: BTreeMap<String, String>,
    /// Golden (trigger) tests that fail on the fixed version here: never excluded, so
    /// no patch resolves the bug in this environment; this says why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub golden_failing_on_fixed: Vec<String>,
    /// The run that timed out (`compile`, `trigger`, `suite`; `before` for the run
    /// without the patch), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timed_out: Option<String>,
    /// Seconds of the Defects4J runs with the patch (those of the cached runs when
    /// answered from the cache).
    pub seconds: f64,
    /// Whether the runs with the patch were answered from the cache.
    pub cached: bool,
}

/// One system's row of the agent study's Table 2 (multi-hunk repair with coding
/// agents), over its predictions on the Novel state of a Defects4J dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StudyMetrics {
    /// Bugs: the denominator of every rate.
    pub bugs: usize,
    /// Localization success: a non-empty patch that applied and compiled and whose
    /// patched files include every golden file.
    pub localization: Rate,
    /// Compilation: a non-empty patch that compiled.
    pub compilation: Rate,
    /// Repair accuracy: a non-empty patch after which the trigger tests pass and no test
    /// of the whole suite fails.
    pub repair: Rate,
    /// Regression reduction (failing before − failing after, whole suite) over the
    /// patches that compiled; `None` when none did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regression: Option<RegressionStats>,
}

/// The distribution of regression reduction over the compiled patches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RegressionStats {
    /// Patches it is defined for.
    pub n: usize,
    /// Mean.
    pub mean: f64,
    /// Standard deviation (population: over the n values).
    pub sd: f64,
    /// Smallest.
    pub min: i64,
    /// Largest.
    pub max: i64,
    /// Patches with fewer failing tests after than before.
    pub positive: usize,
    /// Patches with as many.
    pub zero: usize,
    /// Patches with more.
    pub negative: usize,
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
    /// Half-width of the 95% normal-approximation interval, 1.96·sqrt(p(1−p)/n): the ±
    /// FixedBench reports (65.0 ± 6.6 at n = 200), beside the Wilson bounds.
    #[serde(default)]
    pub normal_half_width: f64,
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
    /// The named variant: files with a counted golden hunk ⊆ patched files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub localization_counted: Option<Rate>,
    /// Compilation success among patches whose suite ran.
    pub compilation: Option<Rate>,
    /// RepoFixEval's `Apply`, strict: the patch applied as `git apply` takes it, every
    /// context line matching, over every row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied_strict: Option<Rate>,
    /// The lenient rate hunkgen scores with: applied exactly, by a 3-way merge or with
    /// fuzz, over every row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied_lenient: Option<Rate>,
    /// Mean line-level F1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_line_f1: Option<f64>,
    /// Mean function-level F1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_function_f1: Option<f64>,
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
    /// pass@k and the other repeated-attempt figures, per state × scenario ×
    /// instruction, when predictions carry several attempts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<AttemptMetrics>,
    /// Why resolution, compilation and regression figures are empty (a dataset built
    /// without `validate:` is scored for abstention only); absent when they were scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution_unavailable: Option<String>,
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
    /// The agent study's Table 2 row, when Defects4J evaluated the predictions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub study: Option<StudyMetrics>,
    /// Per bug, the tests left out of "failing after" and why (Defects4J evaluation).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclusions: Vec<Exclusion>,
    /// The gold baseline's unresolved predictions with their cause (empty for other
    /// systems): a validated dataset's gold rate is 100% unless this names why not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gold_misses: Vec<GoldMiss>,
}

/// A test left out of an instance's evaluation, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Exclusion {
    /// The instance.
    pub instance_id: String,
    /// The test.
    pub test: String,
    /// Why it is left out.
    pub why: String,
}

/// One prediction of the gold baseline that did not resolve, with its cause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GoldMiss {
    /// The instance.
    pub instance_id: String,
    /// The state it was scored on.
    pub state: String,
    /// The cause, in one line (an infrastructure failure, a problem, a compile error, the
    /// golden or suite tests that still fail).
    pub cause: String,
}

/// Repeated attempts of one group (state × scenario × instruction): the unbiased pass@k
/// estimator (Chen et al. 2021) averaged over instances, the share of instances resolved
/// at least once within the first k attempts (Passerine's curve), and the resolution rate
/// of each attempt with their mean and sample standard deviation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AttemptMetrics {
    /// The state.
    pub state: String,
    /// The scenario.
    pub scenario: String,
    /// The instruction (`unspecified` when the predictions do not say).
    pub instruction: String,
    /// Instances with at least one attempt.
    pub instances: usize,
    /// The most attempts any instance has.
    pub attempts: usize,
    /// `pass_at_k[k-1]`: mean over instances with at least k attempts of
    /// 1 − C(n−c, k)/C(n, k) (n attempts, c resolved).
    pub pass_at_k: Vec<f64>,
    /// `resolved_within[k-1]`: share of instances resolved by one of attempts 1..=k.
    pub resolved_within: Vec<f64>,
    /// Resolution rate of attempt 1, 2, … over the instances that have it.
    pub per_attempt: Vec<f64>,
    /// Mean of `per_attempt`.
    pub mean: f64,
    /// Sample standard deviation of `per_attempt` (0 for one attempt).
    pub sd: f64,
}
