//! Sources of bug fixes: each turns some history into candidates — forward fix patches
//! with a typed base tree — plus the items it could not read, as rejections.

pub mod defects4j;
pub mod files;
pub mod git_history;
pub mod github;
pub mod jira;
pub mod names;
pub mod refs;
pub mod rules;
pub mod swebench;

use crate::diff::Patch;
use crate::model::{Rejected, Report, SourceKind};
pub use files::Tree;

/// The tree a candidate's patches apply to, as a typed value.
#[derive(Debug, Clone)]
pub enum Base {
    /// The buggy tree itself (a fix commit's parent).
    Buggy(Tree),
    /// The fixed tree plus the patch that makes it buggy (Defects4J ships patches in the
    /// fixed → buggy direction; this is that patch as read, realigned, never re-reversed).
    Fixed {
        /// The fixed tree.
        tree: Tree,
        /// Fixed → buggy patch.
        to_buggy: Patch,
    },
    /// No tree is available; everything that needs sources is left null.
    Missing {
        /// Why (`no repository for project Lang`).
        reason: String,
    },
}

/// One bug or fix commit as a source produced it: the instance's identity and
/// metadata, its forward patches, and where its base tree is.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Instance id.
    pub id: String,
    /// Which source.
    pub source: SourceKind,
    /// Repository name (`apache/commons-lang`, or the local repository's name).
    pub repo: String,
    /// Project name.
    pub project: String,
    /// The buggy revision the patches apply to.
    pub base_commit: String,
    /// The fix revision.
    pub fix_commit: String,
    /// Revision whose environment runs the tests.
    pub environment_setup_commit: String,
    /// Issue text when known.
    pub problem_statement: String,
    /// Issue discussion before the fix was started (SWE-bench's `hints_text`); empty when
    /// the source has none.
    pub hints_text: String,
    /// ISO-8601 date of the fix when known.
    pub created_at: String,
    /// Version label.
    pub version: String,
    /// Failing tests the source already names (Defects4J's trigger tests).
    pub fail_to_pass: Vec<String>,
    /// Passing tests the source already names (SWE-bench's PASS_TO_PASS); empty otherwise.
    pub pass_to_pass: Vec<String>,
    /// What those tests say when they fail (Defects4J's trigger_tests traces).
    pub failures: Vec<crate::model::Failure>,
    /// Issue-tracker reference.
    pub report: Option<Report>,
    /// Every issue reference found (the first is `report`); empty when none.
    pub references: Vec<Report>,
    /// Forward (buggy → fixed) code patch.
    pub patch: Patch,
    /// Forward test patch.
    pub test_patch: Patch,
    /// Defects4J `modified_classes` (file order for pairs); empty for other sources.
    pub modified_classes: Vec<String>,
    /// Where the base tree is.
    pub base: Base,
    /// The bug's commits in the repository states are made from, when `base_commit` and
    /// `fix_commit` name another import's commits (a Defects4J `revision_map`).
    pub repo_commits: Option<crate::model::RepoCommits>,
    /// Hunks of `patch` (by index over all its hunks) the source already decided do not
    /// count (git: file roles and hunk rules, which need the trees); empty otherwise.
    pub skips: std::collections::BTreeMap<usize, crate::model::SkipReason>,
}

/// What a source produced.
#[derive(Debug, Default)]
pub struct SourceOutput {
    /// Candidates, in the source's order.
    pub candidates: Vec<Candidate>,
    /// Items that could not be read, each with its reason.
    pub rejected: Vec<Rejected>,
    /// One line per input for the dataset card (paths, revisions).
    pub described: Vec<String>,
    /// Items the source walked (bugs listed, commits visited).
    pub walked: usize,
    /// One line per problem that affects many candidates (a project without repository).
    pub warnings: Vec<String>,
    /// The git walk's funnel (git sources only).
    pub funnel: Option<crate::model::MineFunnel>,
    /// One line per fact about this run that is not part of the dataset (API traffic).
    pub notes: Vec<String>,
}

/// Why an instance row cannot be turned back into a candidate (the row's `broken` note
/// in re-validation, its infrastructure note in evaluation).
#[derive(Debug, thiserror::Error)]
pub enum InstanceError {
    /// The card's `repositories` has no path for the row's repository.
    #[error("the card names no repository for `{repo}`")]
    NoRepository {
        /// The instance.
        instance: String,
        /// The row's `repo`.
        repo: String,
    },
    /// A patch field of the row does not parse.
    #[error("{field} does not parse: {source}")]
    BadPatch {
        /// The instance.
        instance: String,
        /// `patch` or `test_patch`.
        field: &'static str,
        /// Where and why.
        #[source]
        source: crate::diff::ParseError,
    },
}

impl Candidate {
    /// The candidate an instance row was built from (patches parsed back, base tree from
    /// the card's repositories), so a built dataset can be validated and scored again.
    pub fn from_instance(
        inst: &crate::model::Instance,
        card: &crate::model::Card,
    ) -> Result<Candidate, InstanceError> {
        let parse = |field: &'static str, text: &str| {
            crate::diff::parse(text.as_bytes()).map_err(|source| InstanceError::BadPatch {
                instance: inst.instance_id.clone(),
                field,
                source,
            })
        };
        let repo =
            card.repositories
                .get(&inst.repo)
                .ok_or_else(|| InstanceError::NoRepository {
                    instance: inst.instance_id.clone(),
                    repo: inst.repo.clone(),
                })?;
        let patch = parse("patch", &inst.patch)?;
        let base = match inst.source {
            SourceKind::Git | SourceKind::Swebench | SourceKind::Github => Base::Buggy(Tree::Git {
                repo: std::path::PathBuf::from(repo),
                rev: inst.base_commit.clone(),
                prefixes: Vec::new(),
            }),
            SourceKind::Defects4j => Base::Fixed {
                tree: Tree::Git {
                    repo: std::path::PathBuf::from(repo),
                    rev: inst.repo_fix().to_string(),
                    prefixes: Vec::new(),
                },
                to_buggy: patch.reversed(),
            },
        };
        Ok(Candidate {
            id: inst.instance_id.clone(),
            source: inst.source,
            repo: inst.repo.clone(),
            project: inst.project.clone(),
            base_commit: inst.base_commit.clone(),
            fix_commit: inst.fix_commit.clone(),
            environment_setup_commit: inst.environment_setup_commit.clone(),
            problem_statement: inst.problem_statement.clone(),
            hints_text: inst.hints_text.clone(),
            created_at: inst.created_at.clone(),
            version: inst.version.clone(),
            fail_to_pass: inst.FAIL_TO_PASS.clone(),
            pass_to_pass: inst.PASS_TO_PASS.clone(),
            failures: inst.failures.clone(),
            report: inst.report.clone(),
            references: inst.references.clone(),
            test_patch: parse("test_patch", &inst.test_patch)?,
            patch,
            modified_classes: Vec::new(),
            base,
            repo_commits: inst.repo_commits.clone(),
            // The row's own verdicts, so re-reading an instance counts the same hunks.
            skips: inst
                .hunks
                .iter()
                .filter(|h| !h.counted)
                .filter_map(|h| Some((h.patch_index, h.skip_reason?)))
                .collect(),
        })
    }
}
