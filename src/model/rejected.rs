//! `rejected.jsonl` rows: a bug or commit that did not become an instance, and why.
//!
//! One bad item never kills a build (ARCHITECTURE §10): it is recorded here, counted in the
//! summary, and `--strict` turns any rejection into a failed build.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The stage at which an item was rejected.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Reading the source (a Defects4J bug's files, a commit's objects).
    Mine,
    /// Turning a candidate into an instance.
    Extract,
    /// Running the golden tests.
    Validate,
    /// Writing repository states.
    States,
}

/// Why an item was rejected.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RejectReason {
    /// A patch file does not parse.
    PatchParse,
    /// A file of the item cannot be read.
    Read,
    /// A commit or its objects cannot be read (missing or corrupt objects).
    GitObjects,
    /// The item's metadata is malformed.
    Metadata,
    /// No test goes from failing to passing.
    NoFailToPass,
    /// The golden patch breaks a test that passed before it.
    PassToFail,
    /// A test run did not start or finish (build failure, collection error, timeout).
    Infrastructure,
    /// No test suite of the recipe covers the instance's test files.
    NoTestSuite,
    /// The instance's base tree cannot be read or its patches do not apply to it.
    BaseTree,
    /// A pull request closes no issue (and the recipe does not allow unlinked ones).
    NoLinkedIssue,
    /// A pull request changes no test file (and the recipe requires tests).
    NoTestPatch,
    /// The commit reverts another (`Revert "…"` subject or `This reverts commit` body).
    Revert,
    /// The commit's patch has the git patch-id of an earlier commit (a cherry-pick).
    DuplicatePatch,
    /// The commit changes more files than `max_files`.
    TooManyFiles,
    /// The commit has more code hunks than `max_code_hunks`.
    TooManyHunks,
    /// The commit changes more code lines than `max_changed_lines`.
    TooManyChangedLines,
    /// The commit's parent is not in the repository (the boundary of a shallow clone).
    MissingParent,
    /// The commit's code is unchanged once whitespace, comments and docstrings are
    /// stripped (hunk rule `formatting_only` of the git source).
    FormattingOnly,
    /// A Defects4J version does not compile with the JDK in use (the detail quotes the
    /// compiler's first errors).
    CompileError,
    /// The proven FAIL_TO_PASS is not Defects4J's `trigger_tests` (the detail names both).
    D4jDisagrees,
    /// The environment asks for a Python version no interpreter on this machine has (the
    /// detail names the version needed and those found).
    UnsupportedPython,
}

/// One `rejected.jsonl` row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Rejected {
    /// Row schema version (the same as the instance rows').
    pub schema_version: u32,
    /// The id the instance would have had (`Lang_7`, `acme-1a2b3c4d5e6f`).
    pub id: String,
    /// Where it was rejected.
    pub stage: Stage,
    /// Why, as a stable code.
    pub reason: RejectReason,
    /// One line naming the file, place or commit at fault.
    pub detail: String,
}

impl Rejected {
    /// A rejection row with the current schema version.
    pub fn new(id: impl Into<String>, stage: Stage, reason: RejectReason, detail: String) -> Self {
        Rejected {
            schema_version: super::SCHEMA_VERSION,
            id: id.into(),
            stage,
            reason,
            detail,
        }
    }
}
