//! The data contract: every row and record hunkgen writes (`instances.jsonl`,
//! `pairs.csv`, `rejected.jsonl`, `dataset.yaml`), a superset of SWE-bench's schema.
//!
//! These types import no stage: stages produce and consume them. Field names and
//! meanings change only deliberately, with [`SCHEMA_VERSION`] bumped; the JSON Schema in
//! `docs/instance.schema.json` is generated from them and checked by a test.

mod analytics;
mod card;
mod evaluation;
mod hunk;
mod judge;
mod name;
mod note;
mod rejected;
mod state;
mod swebench;
mod trajectory;
mod validation;

pub use analytics::{
    Analytics, CategoryGram, CategoryShare, Smells, StudyCategory, TreeDistance, Via,
};
pub use card::{Card, Counts, MineFunnel};
pub use evaluation::{
    ApplyMethod, AttemptMetrics, D4jResult, EvaluationSummary, Exclusion, GoldMiss, Paired,
    PredictionResult, Rate, Rates, RegressionStats, ResolutionStatus, Scores, StudyMetrics,
    PUBLISHED_TABLE2, PUBLISHED_TABLE2_BUGS,
};
pub use hunk::{HunkPlace, ProximityClass, SkipReason};
pub use judge::{
    behaviour, Agreement, Behaviour, Category, Frequencies, HumanAgreement, Judgement,
    JudgementSummary, RunId, RunOutcome, BEHAVIOURS,
};
pub use name::{parse_name, UnknownName};
pub use note::{Note, NoteKind};
pub use rejected::{yield_counts, RejectReason, Rejected, Stage, YieldClass};
pub use state::{Expected, PartialSource, Scenario, StateKind, StateManifest, StatesRecord};
pub use swebench::{SwebenchRow, TestList, SWEBENCH_FIELDS};
pub use trajectory::{
    shell_words, AgentOutcome, AgentRunRecord, FailFast, FirstTouch, NGram, Resources, StepKind,
    ToolUse, TrajectoryMetrics, TrajectoryStep,
};
pub use validation::{
    Failure, MavenRecord, PythonRecord, SwebenchRecord, TreeRuns, TreeSeconds, ValidationRecord,
};

use crate::diff::Span;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Version of the row schemas (`instances.jsonl`, `rejected.jsonl`), written into every
/// row and the dataset card. Version 2 added `schema_version` and typed notes.
pub const SCHEMA_VERSION: u32 = 2;

/// Where an instance came from, so consumers can treat sources differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// A Defects4J bug.
    Defects4j,
    /// A fix commit mined from a git history.
    Git,
    /// An instance imported from a SWE-bench-format file (`source: swebench`).
    Swebench,
    /// A merged GitHub pull request that closes an issue.
    Github,
}

/// A line range in one file (1-based start, count), as in a `@@` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Range {
    /// First line.
    pub start: u32,
    /// Number of lines.
    pub lines: u32,
}

/// One hunk of the forward patch, with what annotation needs to know about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HunkRecord {
    /// Repository-relative path of the file (buggy side; fixed side for created files).
    pub file: String,
    /// 0-based position of the hunk among all `@@` hunks of the forward patch.
    pub patch_index: usize,
    /// `@@` range in the buggy (pre-fix) file.
    pub buggy: Range,
    /// `@@` range in the fixed file.
    pub fixed: Range,
    /// Changed-line span in the buggy file (ARCHITECTURE §4; `end = start - 1` for insertions).
    pub span: Span,
    /// Lines the fix adds.
    pub added: usize,
    /// Lines the fix removes.
    pub removed: usize,
    /// Whether the hunk counts toward the multi-hunk selection.
    pub counted: bool,
    /// Why an uncounted hunk was not counted (`not_code`, `created_file`, `import_only`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_reason: Option<SkipReason>,
    /// Where annotation placed a counted hunk (method, package); absent when not annotated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<HunkPlace>,
    /// Whether the fix needs this counted hunk, by running: the golden patch without it
    /// leaves a FAIL_TO_PASS test failing (or not running). Absent when not ablated
    /// (no validation, `validate.necessary_hunks: false`, an uncounted hunk).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub necessary: Option<bool>,
}

/// Per-instance size statistics.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Stats {
    /// Counted code hunks.
    pub hunks: usize,
    /// Files with at least one counted hunk.
    pub files: usize,
    /// Raw `@@` hunks in the patch, any file, counted or not.
    pub raw_hunks: usize,
    /// Files in the patch, any kind, counted or not.
    pub raw_files: usize,
    /// Lines added by the fix in counted hunks.
    pub lines_added: usize,
    /// Lines removed by the fix in counted hunks.
    pub lines_removed: usize,
    /// Sum over files of unmodified lines between consecutive counted hunks' changes.
    pub patch_spread: u64,
}

/// One dataset row: SWE-bench's fields first, then hunkgen's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[allow(non_snake_case)] // FAIL_TO_PASS / PASS_TO_PASS are SWE-bench's field names.
pub struct Instance {
    /// Row schema version ([`SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// Unique id, `Project_N` for Defects4J, `<repo>_<short commit>` for git.
    pub instance_id: String,
    /// Repository name (`apache/commons-lang`, or the local repository's name).
    pub repo: String,
    /// The buggy revision the patches apply to.
    pub base_commit: String,
    /// Forward (buggy → fixed) code patch.
    pub patch: String,
    /// Forward test patch.
    pub test_patch: String,
    /// Issue text when known (report URL line for Defects4J, commit message for git).
    pub problem_statement: String,
    /// Extra hints (empty unless a source provides them).
    pub hints_text: String,
    /// ISO-8601 date of the fix when known.
    pub created_at: String,
    /// Version label (Defects4J project version or empty).
    pub version: String,
    /// Tests that fail before and pass after the fix.
    pub FAIL_TO_PASS: Vec<String>,
    /// Tests that pass before and after (filled by validation).
    pub PASS_TO_PASS: Vec<String>,
    /// Revision whose environment runs the tests.
    pub environment_setup_commit: String,
    /// Which source produced the row.
    pub source: SourceKind,
    /// The fix revision.
    pub fix_commit: String,
    /// Project name (Defects4J project, or repository name).
    pub project: String,
    /// Issue-tracker id and URL when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<Report>,
    /// Every issue reference of the fix (git: found in the commit message, closing
    /// references first; the first is `report`); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<Report>,
    /// All code hunks of the forward patch, counted or not, in patch order.
    pub hunks: Vec<HunkRecord>,
    /// Files with counted hunks, in patch order.
    pub files: Vec<String>,
    /// Size statistics.
    pub stats: Stats,
    /// Hunk divergence over the counted hunks (absent when not annotated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Divergence>,
    /// Spatial proximity (absent when not annotated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proximity: Option<Proximity>,
    /// Cheap extra annotations (code terms, magic constants).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<Extra>,
    /// Why annotation fields are null or approximate for this instance.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<Note>,
    /// How the golden tests were proven by running them (absent when not validated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation: Option<ValidationRecord>,
    /// Per FAIL_TO_PASS test, its failure message and trimmed stack trace before the fix
    /// (from the validation runs; Defects4J's trigger_tests for Defects4J instances).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<Failure>,
    /// Repository states written under `states/<instance_id>/` (absent when none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub states: Option<StatesRecord>,
    /// The bug's commits in the repository its states are made from, when `base_commit`
    /// and `fix_commit` name commits of another import (Defects4J's Math and Lang ids,
    /// through the recipe's `revision_map`); absent when they are the same commits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo_commits: Option<RepoCommits>,
}

/// A bug's buggy and fixed commits in one particular repository.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepoCommits {
    /// Where the history of the bug's states ends (the commit before the fix).
    pub base: String,
    /// The fix.
    pub fix: String,
}

impl Instance {
    /// The commit the states' history ends at, in the repository they are made from.
    pub fn repo_base(&self) -> &str {
        self.repo_commits
            .as_ref()
            .map_or(self.base_commit.as_str(), |r| r.base.as_str())
    }

    /// The fix commit in the repository the states are made from.
    pub fn repo_fix(&self) -> &str {
        self.repo_commits
            .as_ref()
            .map_or(self.fix_commit.as_str(), |r| r.fix.as_str())
    }
}

/// Extra annotations from the curation literature (ARCHITECTURE §4).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Extra {
    /// snake_case / CamelCase identifiers in the problem statement.
    pub code_terms: Vec<String>,
    /// String literals the test patch adds that the buggy files of the fix lack.
    pub magic_constants: Vec<String>,
}

/// An issue-tracker reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Report {
    /// Tracker id (`LANG-747`, `#123` on the repository's forge, `owner/repo#5` on another).
    pub id: String,
    /// Link to the issue; empty when the tracker's address is unknown.
    pub url: String,
}

/// One hunk pair's components (a `pairs.csv` row).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PairRecord {
    /// Index of the first hunk in annotation order.
    pub i: usize,
    /// Index of the second hunk (i < j).
    pub j: usize,
    /// 1 − BLEU(hunk i, hunk j).
    pub d_lex: f64,
    /// Normalized tree distance; `null` when the file's tree is unavailable.
    pub d_ast: Option<f64>,
    /// Path distance.
    pub d_file: f64,
    /// γ used for this pair.
    pub gamma: f64,
    /// Pair divergence; `null` when `d_ast` is.
    pub div: Option<f64>,
    /// Raw anchor distance and tree diameter behind `d_ast`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dist: Option<(u32, u32)>,
}

/// Instance-level divergence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Divergence {
    /// Div(P); `null` when any pair lacks D_ast.
    pub value: Option<f64>,
    /// Number of hunks.
    pub n: usize,
    /// Profile name.
    pub profile: String,
    /// Every pair i < j.
    pub pairs: Vec<PairRecord>,
}

/// Instance-level proximity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Proximity {
    /// The class; `null` when it cannot be decided without sources.
    pub class: Option<ProximityClass>,
    /// λ used.
    pub lambda: u32,
}

/// The JSON Schema of an `instances.jsonl` row, generated from the types (checked in as
/// `docs/instance.schema.json`; a test keeps the two equal).
pub fn instance_schema() -> String {
    let schema = schemars::schema_for!(Instance);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// The JSON Schema of a `rejected.jsonl` row (`docs/rejected.schema.json`).
pub fn rejected_schema() -> String {
    let schema = schemars::schema_for!(Rejected);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// The JSON Schema of a state's `manifest.yaml` (`docs/state-manifest.schema.json`).
pub fn state_manifest_schema() -> String {
    let schema = schemars::schema_for!(StateManifest);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// The JSON Schema of a normalized trajectory step (`docs/trajectory-step.schema.json`).
pub fn trajectory_step_schema() -> String {
    let schema = schemars::schema_for!(TrajectoryStep);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// The JSON Schema of a `judgements.jsonl` line of `hunkgen judge`
/// (`docs/judgement.schema.json`).
pub fn judgement_schema() -> String {
    let schema = schemars::schema_for!(Judgement);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}
