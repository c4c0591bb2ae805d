//! Buggy-side file contents for annotation: from a directory or a git revision, with an
//! optional patch that turns the base tree into the buggy one (Defects4J's direction).

use crate::annotate::engine::BuggyFiles;
use crate::diff::{apply_file, Patch};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Where the base tree is.
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

/// A base tree plus an optional patch that maps base → buggy.
pub struct TreeFiles<'a> {
    /// The base tree.
    pub tree: Tree,
    /// Applied to each base file to get the buggy file (Defects4J's reversed patch,
    /// applied to the fixed revision); `None` when the base is already buggy.
    pub to_buggy: Option<&'a Patch>,
}

thread_local! {
    /// One open repository per path per thread: `git2::Repository` is not `Sync`.
    static REPOS: RefCell<HashMap<PathBuf, git2::Repository>> = RefCell::new(HashMap::new());
}

/// Run `f` with this thread's handle on the repository at `path`.
pub fn with_repo<T>(
    path: &Path,
    f: impl FnOnce(&git2::Repository) -> Result<T, String>,
) -> Result<T, String> {
    REPOS.with(|cell| {
        let mut map = cell.borrow_mut();
        if !map.contains_key(path) {
            let repo = git2::Repository::open(path).map_err(|e| {
                format!("{}: not a git repository ({})", path.display(), e.message())
            })?;
            map.insert(path.to_path_buf(), repo);
        }
        match map.get(path) {
            Some(repo) => f(repo),
            None => Err(format!("{}: repository not open", path.display())),
        }
    })
}

/// Read `path` at `rev` (trying `prefixes`), or say why not.
pub fn read_blob(
    repo: &Path,
    rev: &str,
    path: &str,
    prefixes: &[String],
) -> Result<Vec<u8>, String> {
    with_repo(repo, |r| {
        let commit = r
            .revparse_single(rev)
            .and_then(|o| o.peel_to_commit())
            .map_err(|_| format!("unknown revision `{rev}` in {}", repo.display()))?;
        let tree = commit.tree().map_err(|e| e.message().to_string())?;
        let candidates = std::iter::once(path.to_string()).chain(
            prefixes
                .iter()
                .map(|p| format!("{}/{path}", p.trim_end_matches('/'))),
        );
        for candidate in candidates {
            if let Ok(entry) = tree.get_path(Path::new(&candidate)) {
                let blob = entry
                    .to_object(r)
                    .and_then(|o| o.peel_to_blob())
                    .map_err(|e| format!("{candidate}: {}", e.message()))?;
                return Ok(blob.content().to_vec());
            }
        }
        Err(format!("path missing at revision {rev}"))
    })
}

impl BuggyFiles for TreeFiles<'_> {
    fn buggy(&self, path: &str) -> Result<Vec<u8>, String> {
        // With a base→buggy patch, the base file has the patch's old-side name.
        let fp = self
            .to_buggy
            .and_then(|p| p.files.iter().find(|f| f.new_path.as_deref() == Some(path)));
        let base_path = fp.and_then(|f| f.old_path.as_deref()).unwrap_or(path);
        let base = match &self.tree {
            Tree::Dir(root) => std::fs::read(root.join(base_path))
                .map_err(|e| format!("cannot read {}: {e}", root.join(base_path).display()))?,
            Tree::Git {
                repo,
                rev,
                prefixes,
            } => read_blob(repo, rev, base_path, prefixes)?,
        };
        match fp {
            Some(fp) => apply_file(fp, &base).map_err(|e| format!("patch does not apply: {e}")),
            None => Ok(base),
        }
    }
}
