//! Buggy-side file contents for annotation: from a directory or a git revision, with an
//! optional patch that turns the base tree into the buggy one (Defects4J's direction).

use super::Base;
use crate::diff::{apply_file, Patch};
use crate::git::{self, GitError};
use crate::model::NoteKind;
use std::path::PathBuf;

/// Where a base tree is.
#[derive(Debug, Clone)]
pub enum Tree {
    /// A working directory.
    Dir(PathBuf),
    /// A revision of a git repository, read from the object database (no checkout);
    /// `prefixes` are tried in order when a path is missing (e.g. `JodaTime/`).
    Git {
        /// The repository (bare or not).
        repo: PathBuf,
        /// Commit-ish.
        rev: String,
        /// Directory prefixes to try after the plain path.
        prefixes: Vec<String>,
    },
}

/// Why a buggy file cannot be had: the note kind and its detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable {
    /// The kind of problem.
    pub kind: NoteKind,
    /// What exactly (the project, the revision, the OS error).
    pub detail: String,
}

impl Unavailable {
    /// A problem of a kind with its detail.
    pub fn new(kind: NoteKind, detail: impl Into<String>) -> Self {
        Unavailable {
            kind,
            detail: detail.into(),
        }
    }
}

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.detail)
    }
}

/// Where buggy-side file contents come from (a directory, a git revision, nowhere).
pub trait BuggyFiles: Sync {
    /// The buggy file at `path`, or why it cannot be had.
    fn buggy(&self, path: &str) -> Result<Vec<u8>, Unavailable>;
}

/// No sources: every AST-dependent field is null with this reason.
pub struct NoSources(pub Unavailable);

impl BuggyFiles for NoSources {
    fn buggy(&self, _path: &str) -> Result<Vec<u8>, Unavailable> {
        Err(self.0.clone())
    }
}

/// A base tree plus an optional patch that maps base → buggy.
pub struct TreeFiles<'a> {
    /// The base tree.
    pub tree: &'a Tree,
    /// Applied to each base file to get the buggy file (Defects4J's reversed patch,
    /// applied to the fixed revision); `None` when the base is already buggy.
    pub to_buggy: Option<&'a Patch>,
}

/// The buggy files of a candidate's base, whatever kind of base it is.
pub fn buggy_files(base: &Base) -> Box<dyn BuggyFiles + '_> {
    match base {
        Base::Buggy(tree) => Box::new(TreeFiles {
            tree,
            to_buggy: None,
        }),
        Base::Fixed { tree, to_buggy } => Box::new(TreeFiles {
            tree,
            to_buggy: Some(to_buggy),
        }),
        Base::Missing { reason } => Box::new(NoSources(Unavailable::new(
            NoteKind::NoRepository,
            reason.clone(),
        ))),
    }
}

fn unavailable(e: GitError) -> Unavailable {
    match &e {
        GitError::UnknownRevision { path, rev, .. } => Unavailable::new(
            NoteKind::UnknownRevision,
            format!("unknown revision `{rev}` in {}", path.display()),
        ),
        GitError::PathMissing { rev, .. } => Unavailable::new(
            NoteKind::PathMissing,
            format!("path missing at revision {rev}"),
        ),
        _ => {
            let mut detail = e.to_string();
            if let Some(src) = std::error::Error::source(&e) {
                detail = format!("{detail} ({src})");
            }
            Unavailable::new(NoteKind::RepositoryError, detail)
        }
    }
}

impl BuggyFiles for TreeFiles<'_> {
    fn buggy(&self, path: &str) -> Result<Vec<u8>, Unavailable> {
        // With a base→buggy patch, the base file has the patch's old-side name.
        let fp = self
            .to_buggy
            .and_then(|p| p.files.iter().find(|f| f.new_path.as_deref() == Some(path)));
        let base_path = fp.and_then(|f| f.old_path.as_deref()).unwrap_or(path);
        let base = match self.tree {
            Tree::Dir(root) => std::fs::read(root.join(base_path)).map_err(|e| {
                Unavailable::new(
                    NoteKind::ReadError,
                    format!("cannot read {}: {e}", root.join(base_path).display()),
                )
            })?,
            Tree::Git {
                repo,
                rev,
                prefixes,
            } => git::read_blob(repo, rev, base_path, prefixes).map_err(unavailable)?,
        };
        match fp {
            Some(fp) => apply_file(fp, &base).map_err(|e| {
                Unavailable::new(
                    NoteKind::PatchDoesNotApply,
                    format!("patch does not apply: {e}"),
                )
            }),
            None => Ok(base),
        }
    }
}
