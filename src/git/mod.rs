//! The only module that uses git2: one repository cache, blob and tree reading, history
//! mining that prints like `git diff`, object verification, and typed errors.
//!
//! Everything git-shaped that other stages need goes through here, so libgit2's
//! process-wide settings and its non-`Sync` handles stay in one place.

mod change;
mod command;
pub mod gate;
pub use command::{diff_worktree, snapshot_worktree, WorktreeDiff};
pub mod history;
pub mod pull;
pub mod write;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use change::formatting_detail;
pub use gate::{check_state, GateCheck, GateError, GateReport, GateSpec};
pub use history::{
    diff_all, mine, CommitRule, FixCommit, GitSourceConfig, MessageRules, MineRejection, Mined,
    WalkTotals,
};
pub use pull::{pull_diff, PullDiff};
pub use write::{
    build_state_repo, commit_meta, commit_time, export_tree, is_ancestor, pack_history,
    pack_segment, patched_tree_files, tree_contains, CommitMeta, HistoryPack, Person, StateRepo,
};

/// libgit2's error, shown as its message only (its class and code are kept for
/// programmatic use through [`Libgit2::code`]).
#[derive(Debug)]
pub struct Libgit2(pub git2::Error);

impl Libgit2 {
    /// libgit2's error code, for callers that branch on it.
    pub fn code(&self) -> git2::ErrorCode {
        self.0.code()
    }
}

impl std::fmt::Display for Libgit2 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.message())
    }
}

impl std::error::Error for Libgit2 {}

impl From<git2::Error> for Libgit2 {
    fn from(e: git2::Error) -> Self {
        Libgit2(e)
    }
}

/// Why a git operation failed; each variant names the repository and the revision,
/// commit or path, with libgit2's reason as its source.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The path cannot be opened as a git repository.
    #[error("{}: not a git repository", path.display())]
    NotARepository {
        /// The path given.
        path: PathBuf,
        /// libgit2's reason.
        #[source]
        source: Libgit2,
    },
    /// A revision names nothing in the repository.
    #[error("{}: unknown revision `{rev}`", path.display())]
    UnknownRevision {
        /// The repository.
        path: PathBuf,
        /// The revision text.
        rev: String,
        /// libgit2's reason.
        #[source]
        source: Libgit2,
    },
    /// A path is not in the tree of a revision.
    #[error("{}: path missing at revision {rev}", file)]
    PathMissing {
        /// The repository-relative path.
        file: String,
        /// The revision.
        rev: String,
    },
    /// `message_regex` does not compile.
    #[error("git source: invalid {key} `{regex}`: {message}")]
    BadRegex {
        /// Which rule (`message_regex`, `subject_regex`, `exclude_regex`).
        key: &'static str,
        /// The pattern from the config.
        regex: String,
        /// The regex compiler's reason (first line).
        message: String,
    },
    /// Walking the history failed.
    #[error("{}: cannot walk history", path.display())]
    Walk {
        /// The repository.
        path: PathBuf,
        /// libgit2's reason.
        #[source]
        source: Libgit2,
    },
    /// Reading or diffing one commit, tree or blob failed (missing or corrupt objects).
    #[error("{}: {what}", path.display())]
    Object {
        /// The repository.
        path: PathBuf,
        /// Which commit, tree or blob.
        what: String,
        /// libgit2's reason.
        #[source]
        source: Libgit2,
    },
    /// A `git` command failed or could not be started.
    #[error("{}: `{command}` failed: {detail}", path.display())]
    Command {
        /// Where it ran.
        path: PathBuf,
        /// The command line.
        command: String,
        /// git's first line of complaint.
        detail: String,
    },
    /// Writing a state (files, links, directories) failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A patch does not apply to the tree it was made for.
    #[error("{}: patch does not apply at {rev}: {source}", path.display())]
    Apply {
        /// The repository.
        path: PathBuf,
        /// The revision or tree.
        rev: String,
        /// Where and why (boxed to keep `Result`s small).
        #[source]
        source: Box<crate::diff::ApplyError>,
    },
    /// A commit the caller names is not in the repository (a pull request's head after
    /// a squash merge, when `refs/pull/*` was never fetched).
    #[error("{}: commit {commit} is not in this clone; fetch pull-request heads with `git fetch origin '+refs/pull/*/head:refs/remotes/origin/pr/*'`", path.display())]
    MissingCommit {
        /// The repository.
        path: PathBuf,
        /// The full hex id.
        commit: String,
    },
    /// A path in a tree or patch would escape the target directory (`..`, absolute).
    #[error("{}: refusing to write path `{file}` outside the directory", dir.display())]
    UnsafePath {
        /// The target directory.
        dir: PathBuf,
        /// The offending path.
        file: String,
    },
}

/// Map an I/O error to [`GitError::Io`] naming `path`.
pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> GitError + '_ {
    move |source| GitError::Io {
        path: path.to_path_buf(),
        source,
    }
}

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
fn with_repo<T>(
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
    if prefix.len() < 4 || !prefix.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    with_repo(repo, |r| {
        let obj = r.revparse_single(prefix).map_err(|e| GitError::Object {
            path: repo.to_path_buf(),
            what: format!("blob {prefix}"),
            source: e.into(),
        })?;
        let blob = obj.peel_to_blob().map_err(|e| GitError::Object {
            path: repo.to_path_buf(),
            what: format!("blob {prefix}"),
            source: e.into(),
        })?;
        Ok(blob.content().to_vec())
    })
    .ok()
}

/// Three-way merge of one file as `git merge-file` does it: the changes from `base` to
/// `theirs` carried onto `ours`. `None` when they conflict.
pub fn merge_file(ours: &[u8], base: &[u8], theirs: &[u8]) -> Result<Option<Vec<u8>>, GitError> {
    let dir = tempfile::tempdir().map_err(|source| GitError::Io {
        path: std::env::temp_dir(),
        source,
    })?;
    for (name, bytes) in [("ours", ours), ("base", base), ("theirs", theirs)] {
        std::fs::write(dir.path().join(name), bytes).map_err(|source| GitError::Io {
            path: dir.path().join(name),
            source,
        })?;
    }
    let args: Vec<&std::ffi::OsStr> = ["merge-file", "-p", "ours", "base", "theirs"]
        .iter()
        .map(std::ffi::OsStr::new)
        .collect();
    let out = command::run(dir.path(), &args, b"")?;
    // Exit 0: merged cleanly; a positive exit counts conflicts.
    Ok(out.success.then_some(out.stdout))
}
