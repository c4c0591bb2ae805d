//! A pull request's change as the local clone's objects give it: the merge-base of its
//! head with its base, and the base → head diff split into code and test patches with
//! the same classifier and `git diff` options as the history walk.

use super::history::{diff_entries, diff_options, file_patch, git_abbrev_len, weak_renames};
use super::{open, GitError};
use crate::classify::{Classifier, FileClass};
use crate::diff::Patch;
use git2::{Diff, DiffFindOptions, Oid, Repository, Tree};
use std::path::Path;

/// A pull request's change read from the local clone.
#[derive(Debug, Clone)]
pub struct PullDiff {
    /// Merge-base of the head with the base commit: the tree the patches apply to.
    pub merge_base: String,
    /// Forward code patch (merge-base → head), byte-equal to `git diff -M`.
    pub patch: Patch,
    /// Forward test patch.
    pub test_patch: Patch,
    /// Changed paths that are neither code nor tests.
    pub other_files: Vec<String>,
}

/// Diff a pull request: `base` is the base branch's commit the pull request was merged
/// into (GitHub's `base.sha`), `head` its last commit. Either missing from the clone is
/// [`GitError::MissingCommit`] naming it.
pub fn pull_diff(
    path: &Path,
    base: &str,
    head: &str,
    classifier: &Classifier,
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
    let split = split_diff(&repo, merge_base, head_id, classifier)
        .map_err(object_err(format!("diff {merge_base}..{head}")))?;
    Ok(PullDiff {
        merge_base: merge_base.to_string(),
        ..split
    })
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

/// `old → new` split by file class; a rename git would not pair (score < 50%) is split
/// into a deletion and an addition, as the history walk does.
fn split_diff(
    repo: &Repository,
    old: Oid,
    new: Oid,
    classifier: &Classifier,
) -> Result<PullDiff, git2::Error> {
    let abbrev = git_abbrev_len(repo);
    let (old_tree, new_tree) = (commit_tree(repo, old)?, commit_tree(repo, new)?);
    let diff = tree_diff(repo, &old_tree, &new_tree, abbrev, false)?;
    let weak = weak_renames(repo, &diff)?;
    let plain = if weak.is_empty() {
        None
    } else {
        Some(tree_diff(repo, &old_tree, &new_tree, abbrev, true)?)
    };
    let entries = diff_entries(&diff, &weak, plain.as_ref());
    let mut out = PullDiff {
        merge_base: old.to_string(),
        patch: Patch::default(),
        test_patch: Patch::default(),
        other_files: Vec::new(),
    };
    for (plain_side, i, path) in entries {
        let source = match (plain_side, &plain) {
            (true, Some(p)) => p,
            _ => &diff,
        };
        let target = match classifier.classify(&path) {
            FileClass::Code => &mut out.patch,
            FileClass::Test => &mut out.test_patch,
            FileClass::Other => {
                out.other_files.push(path);
                continue;
            }
        };
        if let Some(mut p) = git2::Patch::from_diff(source, i)? {
            target.files.push(file_patch(repo, &mut p, abbrev)?);
        }
    }
    Ok(out)
}
