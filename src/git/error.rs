//! The git adapter's typed errors: each names the repository and the revision, commit
//! or path it was about, with libgit2's reason as its source.

use std::path::{Path, PathBuf};

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
