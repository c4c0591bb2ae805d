//! One cached repository handle per path and thread, and the plain reads other stages
//! need from it: blobs and trees at a revision, blobs by an abbreviated id.

use super::error::GitError;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

thread_local! {
    /// One open repository per path per thread: `git2::Repository` is not `Sync`.
    static REPOS: RefCell<HashMap<PathBuf, git2::Repository>> = RefCell::new(HashMap::new());
}

/// Open a repository (bare or not) or say which path is not one.
pub(crate) fn open(path: &Path) -> Result<git2::Repository, GitError> {
    git2::Repository::open(path).map_err(|e| GitError::NotARepository {
        path: path.to_path_buf(),
        source: e.into(),
    })
}

/// Run `f` with this thread's cached handle on the repository at `path`.
pub(crate) fn with_repo<T>(
    path: &Path,
    f: impl FnOnce(&git2::Repository) -> Result<T, GitError>,
) -> Result<T, GitError> {
    REPOS.with(|cell| {
        let mut map = cell.borrow_mut();
        let repo = match map.entry(path.to_path_buf()) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => v.insert(open(path)?),
        };
        f(repo)
    })
}

/// Resolve `rev` to a commit id, naming the repository when it names nothing.
pub(super) fn resolve_commit(
    r: &git2::Repository,
    path: &Path,
    rev: &str,
) -> Result<git2::Oid, GitError> {
    r.revparse_single(rev)
        .and_then(|o| o.peel_to_commit())
        .map(|c| c.id())
        .map_err(|e| GitError::UnknownRevision {
            path: path.to_path_buf(),
            rev: rev.to_string(),
            source: e.into(),
        })
}

/// Whether `path` opens as a git repository (for up-front recipe checks).
pub fn is_repository(path: &Path) -> bool {
    with_repo(path, |_| Ok(())).is_ok()
}

/// Whether `dir` is a directory in the tree of `HEAD` (false when there is no `HEAD`),
/// so a recipe's source roots are checked before any work starts.
pub fn dir_at_head(repo: &Path, dir: &str) -> bool {
    with_repo(repo, |r| {
        let tree = r.head().and_then(|h| h.peel_to_tree());
        Ok(tree
            .and_then(|t| t.get_path(Path::new(dir.trim_matches('/'))))
            .is_ok_and(|e| e.kind() == Some(git2::ObjectType::Tree)))
    })
    .unwrap_or(false)
}

/// Read `file` at `rev` from the object database (no checkout), trying each of
/// `prefixes` before the file when the plain path is missing (`JodaTime/`).
pub fn read_blob(
    repo: &Path,
    rev: &str,
    file: &str,
    prefixes: &[String],
) -> Result<Vec<u8>, GitError> {
    with_repo(repo, |r| {
        let commit = r
            .revparse_single(rev)
            .and_then(|o| o.peel_to_commit())
            .map_err(|e| GitError::UnknownRevision {
                path: repo.to_path_buf(),
                rev: rev.to_string(),
                source: e.into(),
            })?;
        let object_err = |what: String| {
            let path = repo.to_path_buf();
            move |e: git2::Error| GitError::Object {
                path,
                what,
                source: e.into(),
            }
        };
        let tree = commit
            .tree()
            .map_err(object_err(format!("tree of {rev}")))?;
        let candidates = std::iter::once(file.to_string()).chain(
            prefixes
                .iter()
                .map(|p| format!("{}/{file}", p.trim_end_matches('/'))),
        );
        for candidate in candidates {
            if let Ok(entry) = tree.get_path(Path::new(&candidate)) {
                let blob = entry
                    .to_object(r)
                    .and_then(|o| o.peel_to_blob())
                    .map_err(object_err(format!("{candidate} at {rev}")))?;
                return Ok(blob.content().to_vec());
            }
        }
        Err(GitError::PathMissing {
            file: file.to_string(),
            rev: rev.to_string(),
        })
    })
}

/// The id of the tree of `rev` (the content a working copy of it holds).
pub fn tree_id(repo: &Path, rev: &str) -> Result<String, GitError> {
    with_repo(repo, |r| {
        r.revparse_single(rev)
            .and_then(|o| o.peel_to_tree())
            .map(|t| t.id().to_string())
            .map_err(|e| GitError::UnknownRevision {
                path: repo.to_path_buf(),
                rev: rev.to_string(),
                source: e.into(),
            })
    })
}

/// The contents of the blob whose id starts with `prefix` (an `index abc1234..` line of
/// a patch), if the repository has exactly one.
pub fn blob_by_prefix(repo: &Path, prefix: &str) -> Option<Vec<u8>> {
    if !is_id_prefix(prefix) {
        return None;
    }
    with_repo(repo, |r| Ok(blob_in(r, prefix))).ok().flatten()
}

/// [`blob_by_prefix`] in a repository already open.
pub(crate) fn blob_in(r: &git2::Repository, prefix: &str) -> Option<Vec<u8>> {
    if !is_id_prefix(prefix) {
        return None;
    }
    let blob = r.revparse_single(prefix).ok()?.peel_to_blob().ok()?;
    Some(blob.content().to_vec())
}

/// At least four hex digits: an abbreviated object id, never a ref name.
fn is_id_prefix(prefix: &str) -> bool {
    prefix.len() >= 4 && prefix.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Every file path (blobs and links) in the tree of `rev`, for `hunkgen init` to infer a
/// recipe from what the repository holds.
pub fn tree_paths(repo: &Path, rev: &str) -> Result<Vec<String>, GitError> {
    with_repo(repo, |r| {
        let tree = tree_at(r, repo, rev)?;
        let mut paths = Vec::new();
        let _ = tree.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
            if entry.kind() == Some(git2::ObjectType::Blob) {
                if let Ok(name) = entry.name() {
                    paths.push(format!("{dir}{name}"));
                }
            }
            git2::TreeWalkResult::Ok
        });
        Ok(paths)
    })
}

/// The URL of the remote `origin`, when the repository has one.
pub fn origin_url(repo: &Path) -> Option<String> {
    with_repo(repo, |r| {
        Ok(r.find_remote("origin")
            .ok()
            .and_then(|o| o.url().ok().map(str::to_string)))
    })
    .ok()
    .flatten()
}

/// The tree of `rev` in the open repository `r` (at `repo`, for the error).
pub(crate) fn tree_at<'r>(
    r: &'r git2::Repository,
    repo: &Path,
    rev: &str,
) -> Result<git2::Tree<'r>, GitError> {
    r.revparse_single(rev)
        .and_then(|o| o.peel_to_tree())
        .map_err(|e| GitError::UnknownRevision {
            path: repo.to_path_buf(),
            rev: rev.to_string(),
            source: e.into(),
        })
}
