//! A pull request's change as the local clone's objects give it: the merge-base of its
//! head with its base, and the base → head diff split into code and test patches with
//! the same classifier, file roles, hunk rules and `git diff` options as the history walk.

use super::change::{ChangeDiff, HunkRules};
use super::error::GitError;
use super::render::{diff_options, git_abbrev_len};
use super::repo::open;
use crate::classify::Classifier;
use crate::diff::Patch;
use crate::model::SkipReason;
use git2::{Diff, DiffFindOptions, Oid, Repository, Tree};
use std::collections::BTreeMap;
use std::path::Path;

/// A pull request's change read from the local clone, split and judged as the history
/// walk judges a commit (file roles, LFS pointers, submodules, hunk rules).
#[derive(Debug, Clone)]
pub struct PullDiff {
    /// Merge-base of the head with the base commit: the tree the patches apply to.
    pub merge_base: String,
    /// Forward patch of every non-test file (merge-base → head), byte-equal to
    /// `git diff -M`; hunks that do not count are in `skips`.
    pub patch: Patch,
    /// Forward test patch.
    pub test_patch: Patch,
    /// Changed paths that are not counted as code (docs, build files, generated code).
    pub other_files: Vec<String>,
    /// Hunks of `patch` (0-based over all its hunks) that do not count, with why.
    pub skips: BTreeMap<usize, SkipReason>,
    /// Code files, when the formatting-only rule is on and the change leaves every one's
    /// code unchanged once whitespace, comments and docstrings are stripped.
    pub formatting_only: Option<Vec<String>>,
}

/// Diff a pull request: `base` is the base branch's commit the pull request was merged
/// into (GitHub's `base.sha`), `head` its last commit. Either missing from the clone is
/// [`GitError::MissingCommit`] naming it.
pub fn pull_diff(
    path: &Path,
    base: &str,
    head: &str,
    classifier: &Classifier,
    rules: HunkRules,
) -> Result<PullDiff, GitError> {
    let repo = open(path)?;
    let find = |rev: &str| -> Result<Oid, GitError> {
        let missing = || GitError::MissingCommit {
            path: path.to_path_buf(),
            commit: rev.to_string(),
        };
        let oid = Oid::from_str(rev).map_err(|_| missing())?;
        repo.find_commit(oid).map_err(|_| missing())?;
        Ok(oid)
    };
    let (base_id, head_id) = (find(base)?, find(head)?);
    let object_err = |what: String| {
        move |e: git2::Error| GitError::Object {
            path: path.to_path_buf(),
            what,
            source: e.into(),
        }
    };
    let merge_base = repo
        .merge_base(head_id, base_id)
        .map_err(object_err(format!("merge-base of {head} and {base}")))?;
    split_diff(&repo, merge_base, head_id, classifier, rules)
        .map_err(object_err(format!("diff {merge_base}..{head}")))
}

fn commit_tree(repo: &Repository, id: Oid) -> Result<Tree<'_>, git2::Error> {
    repo.find_commit(id)?.tree()
}

/// The tree diff with git's options; renames detected unless `plain`.
fn tree_diff<'r>(
    repo: &'r Repository,
    old: &Tree<'_>,
    new: &Tree<'_>,
    abbrev: u16,
    plain: bool,
) -> Result<Diff<'r>, git2::Error> {
    let mut opts = diff_options();
    opts.id_abbrev(abbrev);
    let mut diff = repo.diff_tree_to_tree(Some(old), Some(new), Some(&mut opts))?;
    if !plain {
        let mut find = DiffFindOptions::new();
        find.renames(true);
        diff.find_similar(Some(&mut find))?;
    }
    Ok(diff)
}

/// `old → new` split and judged like a commit of the history walk.
fn split_diff(
    repo: &Repository,
    old: Oid,
    new: Oid,
    classifier: &Classifier,
    rules: HunkRules,
) -> Result<PullDiff, git2::Error> {
    let abbrev = git_abbrev_len(repo);
    let (old_tree, new_tree) = (commit_tree(repo, old)?, commit_tree(repo, new)?);
    let change = ChangeDiff::new(
        repo,
        tree_diff(repo, &old_tree, &new_tree, abbrev, false)?,
        || tree_diff(repo, &old_tree, &new_tree, abbrev, true),
    )?;
    let (mut files, tests) = change.split(classifier);
    change.mark_roles(repo, &mut files, Some(&old_tree), &new_tree, classifier);
    change.mark_lfs_others(repo, &mut files);
    let mut patches = change.patches(&files)?;
    let assembled = change.assemble(repo, &files, &mut patches, rules, abbrev)?;
    Ok(PullDiff {
        merge_base: old.to_string(),
        patch: assembled.patch,
        test_patch: change.test_patch(repo, &tests, abbrev)?,
        other_files: assembled.other,
        skips: assembled.skips,
        formatting_only: assembled.formatting_only,
    })
}
