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
    /// The commit's own changelog entries file it under features (or another category),
    /// not as a bug fix (the detail quotes the entry and its section).
    ChangelogNotFix,
    /// A later commit reverts the commit (`This reverts commit <id>`): the fix did not
    /// stand (the detail names the reverting commit).
    RevertedLater,
    /// The subject's fix words only close an issue (`Fix #43: Save hash value`); what the
    /// issue is, a bug or a feature, the subject does not say.
    ClosingKeywordOnly,
    /// The repository's GitHub issues the commit references are labelled as something
    /// other than a bug (`enhancement`, `feature`, …) and none as a bug
    /// (`source.git.issue_labels`; the detail names each issue and label).
    IssueLabelNotFix,
    /// The JIRA issues the commit references are of a type other than a bug
    /// (`Improvement`, `New Feature`, …) and none of a bug type, or the commit was
    /// selected only for its JIRA key and none is of a bug type
    /// (`source.git.issue_types`; the detail names each key and type).
    IssueTypeNotFix,
    /// The code under test does not compile: a Defects4J version with the JDK in use, or
    /// a `maven: auto` run's main sources (the detail quotes the compiler's first errors).
    CompileError,
    /// The proven FAIL_TO_PASS is not Defects4J's `trigger_tests` (the detail names both).
    D4jDisagrees,
    /// The proven FAIL_TO_PASS / PASS_TO_PASS of a SWE-bench row are not its published
    /// lists (the detail names what differs, both ways).
    PublishedDisagrees,
    /// The environment asks for a Python version no interpreter on this machine has (the
    /// detail names the version needed and those found), or the tree is Python 2 code
    /// that the Python 3 run could not collect (the detail quotes the evidence).
    UnsupportedPython,
    /// The build needs a JDK no JDK on this machine is (`maven: auto`; the detail names
    /// the level or range needed and the JDKs found).
    UnsupportedJdk,
    /// The build tool could not resolve a dependency (`maven: auto`: no network for the
    /// resolve step and no seed repository, or an artifact a run needs that the resolve
    /// step did not fetch; the detail quotes the tool).
    DependencyUnresolvable,
    /// The build tool a suite needs is not on this machine (`gradle: auto` without a
    /// Gradle distribution; the detail says where it was looked for).
    BuildToolUnavailable,
    /// The test code does not compile (`maven: auto`; the detail quotes the compiler).
    TestCompileError,
    /// The selected test classes ran no test (JUnit 5 under an old surefire, a class
    /// that is no test): never counted as passing.
    ZeroTests,
    /// A suite's environment could not be built (the detail names the step that failed).
    Environment,
    /// A test run did not finish within the recipe's timeout.
    Timeout,
    /// Fewer necessary hunks than `select.min_necessary_hunks` (the detail lists each
    /// counted hunk and whether its removal still passes the golden tests).
    FewNecessaryHunks,
    /// Every FAIL_TO_PASS test failed before the fix only because a name the patch adds
    /// was missing (`select.reject_new_api_only`): the tests show what the commit adds.
    NewApiOnly,
}

/// The maintainer's question a rejection answers: why a candidate did not become a
/// published instance, in the words of the yield table (`report`, the build summary).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum YieldClass {
    /// Mined, but no test goes from failing to passing: not a fix these tests can show.
    NotAFix,
    /// The fix breaks a test that passed before it.
    BrokenFix,
    /// The environment could not be built (a step failed, or the Python it needs is absent).
    Environment,
    /// The tests did not run: collection or compile errors, no suite, no results.
    TestInfrastructure,
    /// A run did not finish in time.
    Timeout,
    /// Defects4J's own record disagrees with the proven tests.
    D4jDisagrees,
    /// A SWE-bench row's published test lists disagree with the proven ones.
    PublishedDisagrees,
    /// A commit rule of the recipe (revert, duplicate, size, formatting only, …).
    CommitRule,
    /// Its objects, files or patches could not be read.
    Unreadable,
    /// Fewer hunks than `select.min_necessary_hunks` are needed by the fix, by running.
    FewNecessaryHunks,
}

impl YieldClass {
    /// Every class, in the table's order.
    pub const ALL: [YieldClass; 10] = [
        YieldClass::NotAFix,
        YieldClass::BrokenFix,
        YieldClass::Environment,
        YieldClass::TestInfrastructure,
        YieldClass::Timeout,
        YieldClass::D4jDisagrees,
        YieldClass::PublishedDisagrees,
        YieldClass::FewNecessaryHunks,
        YieldClass::CommitRule,
        YieldClass::Unreadable,
    ];

    /// The row's words.
    pub fn label(self) -> &'static str {
        match self {
            YieldClass::NotAFix => "not a fix (no fail-to-pass test, or only new API)",
            YieldClass::BrokenFix => "broken fix (a pass-to-fail test)",
            YieldClass::Environment => "environment could not be built",
            YieldClass::TestInfrastructure => "test infrastructure (collection, compile, no suite)",
            YieldClass::Timeout => "timeout",
            YieldClass::D4jDisagrees => "disagrees with Defects4J's trigger tests",
            YieldClass::PublishedDisagrees => "disagrees with the row's published test lists",
            YieldClass::CommitRule => "commit rules",
            YieldClass::Unreadable => "unreadable (objects, files, patches)",
            YieldClass::FewNecessaryHunks => "fewer necessary hunks than asked (by ablation)",
        }
    }

    /// The short name, as in the build summary.
    pub fn short(self) -> &'static str {
        match self {
            YieldClass::NotAFix => "not a fix",
            YieldClass::BrokenFix => "broken fix",
            YieldClass::Environment => "environment",
            YieldClass::TestInfrastructure => "test infrastructure",
            YieldClass::Timeout => "timeout",
            YieldClass::D4jDisagrees => "Defects4J disagrees",
            YieldClass::PublishedDisagrees => "published lists disagree",
            YieldClass::CommitRule => "commit rules",
            YieldClass::Unreadable => "unreadable",
            YieldClass::FewNecessaryHunks => "few necessary hunks",
        }
    }
}

impl RejectReason {
    /// The yield-table class of this reason.
    pub fn yield_class(self) -> YieldClass {
        use RejectReason as R;
        match self {
            R::NoFailToPass | R::NewApiOnly => YieldClass::NotAFix,
            R::PassToFail => YieldClass::BrokenFix,
            R::Environment
            | R::UnsupportedPython
            | R::UnsupportedJdk
            | R::DependencyUnresolvable
            | R::BuildToolUnavailable => YieldClass::Environment,
            R::Infrastructure
            | R::NoTestSuite
            | R::CompileError
            | R::TestCompileError
            | R::ZeroTests => YieldClass::TestInfrastructure,
            R::Timeout => YieldClass::Timeout,
            R::FewNecessaryHunks => YieldClass::FewNecessaryHunks,
            R::D4jDisagrees => YieldClass::D4jDisagrees,
            R::PublishedDisagrees => YieldClass::PublishedDisagrees,
            R::NoLinkedIssue
            | R::NoTestPatch
            | R::Revert
            | R::DuplicatePatch
            | R::TooManyFiles
            | R::TooManyHunks
            | R::TooManyChangedLines
            | R::FormattingOnly
            | R::ChangelogNotFix
            | R::RevertedLater
            | R::ClosingKeywordOnly
            | R::IssueLabelNotFix
            | R::IssueTypeNotFix => YieldClass::CommitRule,
            R::PatchParse
            | R::Read
            | R::GitObjects
            | R::Metadata
            | R::BaseTree
            | R::MissingParent => YieldClass::Unreadable,
        }
    }
}

/// Rejections counted per yield class, in the table's order, classes with none left out.
pub fn yield_counts(rejected: &[Rejected]) -> Vec<(YieldClass, usize)> {
    YieldClass::ALL
        .iter()
        .map(|c| {
            (
                *c,
                rejected
                    .iter()
                    .filter(|r| r.reason.yield_class() == *c)
                    .count(),
            )
        })
        .filter(|(_, n)| *n > 0)
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rejection_answers_one_question_in_the_tables_order() {
        let row = |reason| Rejected::new("x", Stage::Validate, reason, String::new());
        let rows = [
            row(RejectReason::Timeout),
            row(RejectReason::NoFailToPass),
            row(RejectReason::Environment),
            row(RejectReason::UnsupportedPython),
            row(RejectReason::NoFailToPass),
            row(RejectReason::NoTestSuite),
            row(RejectReason::Revert),
        ];
        assert_eq!(
            yield_counts(&rows),
            vec![
                (YieldClass::NotAFix, 2),
                (YieldClass::Environment, 2),
                (YieldClass::TestInfrastructure, 1),
                (YieldClass::Timeout, 1),
                (YieldClass::CommitRule, 1),
            ]
        );
        assert!(yield_counts(&[]).is_empty());
    }
}
