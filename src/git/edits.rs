//! A state's tree as edits to the tree of the commit its history ends at: the files that
//! differ, with their content and mode. A git-history state starts from its base commit's
//! own tree; a Defects4J state starts from the fixed revision's tree with Defects4J's
//! patch back to the buggy version applied, while its history ends at
//! `revision.id.buggy` (ARCHITECTURE §6). Both are written the same way from the edits:
//! exported over the base commit's tree (Worst), or committed on it (Best).

use super::error::{io_err, GitError};
use super::repo::with_repo;
use super::write::{no_symlink_between, object_err, remove_with_empty_parents, safe_join};
use super::write::{write_file, write_tree_dir, FileEdit};
use crate::diff::{apply_patch_to_files_placed, Patch, Placement};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The tree a state starts from: `rev`'s tree with `patches` applied in order, so a tree
/// no commit holds (Defects4J's buggy version) is described by what makes it.
#[derive(Debug, Clone, PartialEq)]
pub struct BaseTree {
    /// The revision whose tree is read.
    pub rev: String,
    /// Patches applied to it, in order, before the state's own change.
    pub patches: Vec<Patch>,
}

impl BaseTree {
    /// A commit's own tree (git-history sources).
    pub fn commit(rev: &str) -> Self {
        BaseTree {
            rev: rev.to_string(),
            patches: Vec::new(),
        }
    }
}

/// A file's content and mode, or `None` when absent.
type Entry = Option<(Vec<u8>, u32)>;

/// The blob at `path` in `tree` with its mode; `None` when absent or not a blob (a
/// directory or a submodule has no content to write).
fn blob_entry(r: &git2::Repository, tree: &git2::Tree<'_>, path: &str) -> Entry {
    let entry = tree.get_path(Path::new(path)).ok()?;
    if entry.kind() != Some(git2::ObjectType::Blob) {
        return None;
    }
    let blob = entry.to_object(r).ok()?.peel_to_blob().ok()?;
    Some((blob.content().to_vec(), entry.filemode() as u32))
}

/// The edits that turn `onto`'s tree into `base`'s tree with `change` applied after its
/// patches. When `base` is `onto`'s own tree, they are exactly the files the patches
/// touch; otherwise every file whose content or mode differs from `onto`'s. A patch that
/// does not apply is an error naming `base.rev`.
pub fn tree_edits(
    repo: &Path,
    base: &BaseTree,
    change: Option<&Patch>,
    onto: &str,
) -> Result<Vec<FileEdit>, GitError> {
    with_repo(repo, |r| {
        let tree = super::repo::tree_at(r, repo, &base.rev)?;
        let mut overlay: BTreeMap<String, Entry> = BTreeMap::new();
        // A tree made by patches (Defects4J's, applied by `git apply`) places hunks as
        // `git apply` does, and so does the change made against it; a commit's own
        // tree takes its patches exactly.
        let placement = if base.patches.is_empty() {
            Placement::Exact
        } else {
            Placement::Offset
        };
        for patch in base.patches.iter().chain(change) {
            let applied = apply_patch_to_files_placed(
                patch,
                |f| match overlay.get(f) {
                    Some(e) => e.as_ref().map(|(c, _)| c.clone()),
                    None => blob_entry(r, &tree, f).map(|(c, _)| c),
                },
                placement,
            )
            .map_err(|source| GitError::Apply {
                path: repo.to_path_buf(),
                rev: base.rev.clone(),
                source: Box::new(source),
            })?;
            for (file, content) in applied {
                // The patch's new mode, else the file's current mode, else a plain file.
                let mode = patch
                    .files
                    .iter()
                    .rev()
                    .find(|fp| fp.new_path.as_deref() == Some(file.as_str()))
                    .and_then(|fp| fp.new_mode)
                    .or_else(|| match overlay.get(&file) {
                        Some(e) => e.as_ref().map(|(_, m)| *m),
                        None => tree
                            .get_path(Path::new(&file))
                            .ok()
                            .map(|e| e.filemode() as u32),
                    })
                    .unwrap_or(0o100644);
                overlay.insert(file, content.map(|c| (c, mode)));
            }
        }
        let onto_tree = super::repo::tree_at(r, repo, onto)?;
        let edit = |path: String, e: Entry| match e {
            Some((content, mode)) => FileEdit {
                path,
                content: Some(content),
                mode,
            },
            None => FileEdit {
                path,
                content: None,
                mode: 0,
            },
        };
        if onto_tree.id() == tree.id() {
            return Ok(overlay.into_iter().map(|(p, e)| edit(p, e)).collect());
        }
        let mut paths: BTreeSet<String> = overlay.keys().cloned().collect();
        let diff = r
            .diff_tree_to_tree(Some(&onto_tree), Some(&tree), None)
            .map_err(object_err(repo, format!("diff of {onto} and {}", base.rev)))?;
        for d in diff.deltas() {
            for f in [d.old_file(), d.new_file()] {
                if let Some(p) = f.path() {
                    paths.insert(p.to_string_lossy().into_owned());
                }
            }
        }
        let mut edits = Vec::new();
        for path in paths {
            let new = match overlay.remove(&path) {
                Some(e) => e,
                None => blob_entry(r, &tree, &path),
            };
            if new != blob_entry(r, &onto_tree, &path) {
                edits.push(edit(path, new));
            }
        }
        Ok(edits)
    })
}

/// Export `onto`'s tree into `dir` (created if missing), then write `edits` over it:
/// removals first, then files, never through a symbolic link the tree placed.
pub fn export_edits(
    repo: &Path,
    onto: &str,
    edits: &[FileEdit],
    dir: &Path,
) -> Result<(), GitError> {
    with_repo(repo, |r| {
        let tree = super::repo::tree_at(r, repo, onto)?;
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        write_tree_dir(r, repo, &tree, dir, "")?;
        Ok(())
    })?;
    for e in edits.iter().filter(|e| e.content.is_none()) {
        let target = safe_join(dir, &e.path)?;
        no_symlink_between(dir, &target, &e.path)?;
        remove_with_empty_parents(&target, dir)?;
    }
    for e in edits {
        if let Some(bytes) = &e.content {
            let target = safe_join(dir, &e.path)?;
            no_symlink_between(dir, &target, &e.path)?;
            write_file(&target, bytes, e.mode)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A repository with two commits: `a` (A.java, B.java) and `b` on it (A.java changed,
    /// C.java added), returned with both ids.
    fn two_commits(dir: &Path) -> (String, String) {
        let r = git2::Repository::init(dir).expect("init");
        let commit = |files: &[(&str, &str)], parent: Option<git2::Oid>| {
            crate::git::fixture::commit(&r, files, 1, parent, None)
        };
        let a = commit(&[("A.java", "a\nb\n"), ("B.java", "x\n")], None);
        let b = commit(
            &[("A.java", "a\nB\n"), ("B.java", "x\n"), ("C.java", "c\n")],
            Some(a),
        );
        (a.to_string(), b.to_string())
    }

    fn patch(text: &str) -> Patch {
        crate::diff::parse(text.as_bytes()).expect("patch")
    }

    #[test]
    fn edits_on_the_own_tree_are_the_patched_files_and_on_another_the_differences() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (a, b) = two_commits(dir.path());
        let to_b = patch("--- a/B.java\n+++ b/B.java\n@@ -1 +1 @@\n-x\n+y\n");
        // On its own tree: exactly the files the patch touches.
        let own = tree_edits(dir.path(), &BaseTree::commit(&a), Some(&to_b), &a).expect("own");
        assert_eq!(
            own,
            [FileEdit {
                path: "B.java".into(),
                content: Some(b"y\n".to_vec()),
                mode: 0o100644
            }]
        );
        // b's tree with A.java's change reversed, seen from a: only C.java and the patch
        // differ (A.java is back to a's content, so it is no edit).
        let back = patch("--- a/A.java\n+++ b/A.java\n@@ -1,2 +1,2 @@\n a\n-B\n+b\n");
        let base = BaseTree {
            rev: b.clone(),
            patches: vec![back],
        };
        let edits = tree_edits(dir.path(), &base, Some(&to_b), &a).expect("derived");
        let paths: Vec<&str> = edits.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["B.java", "C.java"]);
        assert_eq!(edits[1].content.as_deref(), Some(&b"c\n"[..]));
        // Seen from b itself, the reversal is the one edit.
        let none = tree_edits(dir.path(), &base, None, &b).expect("from b");
        assert_eq!(none.len(), 1);
        assert_eq!(none[0].content.as_deref(), Some(&b"a\nb\n"[..]));
        // Exported over a, the edits give the derived tree; a patch that does not apply
        // names the revision.
        let out = dir.path().join("out");
        export_edits(dir.path(), &a, &edits, &out).expect("export");
        assert_eq!(std::fs::read(out.join("A.java")).expect("A"), b"a\nb\n");
        assert_eq!(std::fs::read(out.join("C.java")).expect("C"), b"c\n");
        let bad = patch("--- a/B.java\n+++ b/B.java\n@@ -1 +1 @@\n-q\n+y\n");
        let e = tree_edits(dir.path(), &base, Some(&bad), &a).expect_err("no apply");
        assert!(e.to_string().contains(&b[..7]), "{e}");
    }

    #[test]
    fn a_tree_made_by_patches_places_hunks_as_git_apply_but_a_commit_tree_exactly() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (_, b) = two_commits(dir.path());
        // The hunk says line 2, but `a` is line 1 of b's A.java: one line off, as
        // Defects4J's Codec-12 source patch is.
        let off = patch("--- a/A.java\n+++ b/A.java\n@@ -2,1 +2,1 @@\n-a\n+z\n");
        let base = BaseTree {
            rev: b.clone(),
            patches: vec![off.clone()],
        };
        let edits = tree_edits(dir.path(), &base, None, &b).expect("offset applies");
        assert_eq!(edits[0].content.as_deref(), Some(&b"z\nB\n"[..]));
        // The same patch as a change on a commit's own tree must apply exactly.
        let exact = tree_edits(dir.path(), &BaseTree::commit(&b), Some(&off), &b);
        assert!(exact.is_err(), "a commit's own tree takes patches exactly");
    }
}
