//! Patch application to a working copy on disk: exactly, as the golden patches need;
//! or, for a system's predicted patch, as `git apply --3way` and then GNU patch would
//! (offset and fuzz). The validate stage and the evaluation both apply patches here.

use crate::diff::{apply_patch_to_files_in, ApplyError, FileChange, LineKind, Patch, Placement};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a patch could not be applied to a directory, naming the file (comparable, so a
/// test can assert on a whole result).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DirApplyError {
    /// The patch does not apply exactly: a line differs or a file it modifies is missing.
    #[error(transparent)]
    Exact(#[from] ApplyError),
    /// A file of the directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The repository-relative path.
        path: String,
        /// The OS error.
        #[source]
        source: IoCause,
    },
    /// A path of the patch would leave the directory: `..`, absolute, or through a
    /// symbolic link the tree placed on the way (`link -> /etc`, then `link/file`).
    #[error("{path}: refused: {reason}")]
    Unsafe {
        /// The path as the patch names it.
        path: String,
        /// Why, in one line.
        reason: String,
    },
    /// A hunk matches nowhere in its file, even with offset and fuzz.
    #[error("{path}: hunk at line {line} matches nowhere")]
    NoPlace {
        /// The file the hunk is for.
        path: String,
        /// The hunk's stated start line in the old file.
        line: u32,
    },
}

/// An I/O error that can be cloned and compared (by kind and message), so
/// [`DirApplyError`] stays a plain value.
#[derive(Debug, Clone)]
pub struct IoCause(pub Arc<std::io::Error>);

impl PartialEq for IoCause {
    fn eq(&self, other: &Self) -> bool {
        self.0.kind() == other.0.kind() && self.0.to_string() == other.0.to_string()
    }
}

impl Eq for IoCause {}

impl std::fmt::Display for IoCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for IoCause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// Map an I/O error to [`DirApplyError::Io`] naming `path`.
fn io_err(path: &str) -> impl FnOnce(std::io::Error) -> DirApplyError + '_ {
    move |e| DirApplyError::Io {
        path: path.to_string(),
        source: IoCause(Arc::new(e)),
    }
}

/// `root/path` when `path` stays inside `root`: relative, no `..`, and no symbolic link
/// between `root` and the file (one would take the write, or the read, elsewhere).
fn inside(root: &Path, path: &str) -> Result<PathBuf, DirApplyError> {
    let unsafe_path = |reason: String| DirApplyError::Unsafe {
        path: path.to_string(),
        reason,
    };
    crate::source::names::check_relative_path(path).map_err(|e| unsafe_path(e.to_string()))?;
    let target = root.join(path);
    let mut dir = target.parent();
    while let Some(d) = dir {
        if d == root || !d.starts_with(root) {
            break;
        }
        if std::fs::symlink_metadata(d).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(unsafe_path(format!(
                "`{}` is a symbolic link; writing through it would leave the working copy",
                d.strip_prefix(root).unwrap_or(d).display()
            )));
        }
        dir = d.parent();
    }
    Ok(target)
}

/// Every path of `p` checked with [`inside`] before anything is read or written.
fn check_paths(p: &Patch, root: &Path) -> Result<(), DirApplyError> {
    for fp in &p.files {
        for path in [fp.old_path.as_deref(), fp.new_path.as_deref()]
            .into_iter()
            .flatten()
        {
            inside(root, path)?;
        }
    }
    Ok(())
}

/// The content of `root/path` as git sees it: a symbolic link's own text (never the
/// file it points to), else the file's bytes; None when missing or unsafe.
fn read_file(root: &Path, path: &str) -> Option<Vec<u8>> {
    let target = inside(root, path).ok()?;
    let meta = std::fs::symlink_metadata(&target).ok()?;
    if meta.file_type().is_symlink() {
        use std::os::unix::ffi::OsStrExt;
        return std::fs::read_link(&target)
            .ok()
            .map(|t| t.as_os_str().as_bytes().to_vec());
    }
    std::fs::read(&target).ok()
}

/// Write `bytes` to `root/path`, creating its directory; a symbolic link there is
/// replaced, not written through.
fn write_file(root: &Path, path: &str, bytes: &[u8]) -> Result<(), DirApplyError> {
    let target = inside(root, path)?;
    if let Some(dir) = target.parent() {
        std::fs::create_dir_all(dir).map_err(io_err(path))?;
    }
    if std::fs::symlink_metadata(&target).is_ok_and(|m| m.file_type().is_symlink()) {
        std::fs::remove_file(&target).map_err(io_err(path))?;
    }
    std::fs::write(&target, bytes).map_err(io_err(path))
}

/// Remove `root/path` (a symbolic link itself, never its target) when it is inside.
fn remove_file(root: &Path, path: &str) {
    if let Ok(target) = inside(root, path) {
        let _ = std::fs::remove_file(target);
    }
}

/// Apply a patch to the files of a directory (renames, additions and deletions too).
pub fn apply_to_dir(p: &Patch, root: &Path) -> Result<(), DirApplyError> {
    apply_to_dir_in(p, root, None)
}

/// [`apply_to_dir`], taking a binary file's new content from `repo` (the blob its
/// `index` line names), as `git apply` does in a repository that holds the fix.
pub fn apply_to_dir_in(p: &Patch, root: &Path, repo: Option<&Path>) -> Result<(), DirApplyError> {
    check_paths(p, root)?;
    let objects = |id: &str| repo.and_then(|r| crate::git::blob_by_prefix(r, id));
    let files =
        apply_patch_to_files_in(p, |path| read_file(root, path), Placement::Exact, &objects)?;
    for (path, content) in files {
        match content {
            Some(bytes) => write_file(root, &path, &bytes)?,
            None => remove_file(root, &path),
        }
    }
    Ok(())
}

/// How [`apply_fuzzy`] got a patch in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// Every hunk at its stated place with all its context.
    Exact,
    /// A file did not apply exactly; the patch's own base blob (its `index` line) was
    /// found in the repository, and the change merged cleanly onto the file (3-way).
    ThreeWay,
    /// Some hunk needed another place (offset) or fewer context lines (fuzz ≤ 2).
    Fuzz,
}

/// Apply a patch to a directory: exactly when it can; otherwise, as `git apply --3way`,
/// by merging each file's change onto it from the patch's own base blob (found in `repo`
/// through the `index` line); otherwise hunk by hunk at the nearest place its lines match
/// (offset), dropping up to two outer context lines (fuzz), as GNU patch does.
pub fn apply_fuzzy(p: &Patch, root: &Path, repo: Option<&Path>) -> Result<Applied, DirApplyError> {
    check_paths(p, root)?;
    if apply_to_dir_in(p, root, repo).is_ok() {
        return Ok(Applied::Exact);
    }
    if let Some(repo) = repo {
        if let Some(merged) = three_way(p, root, repo) {
            for (path, bytes) in merged {
                write_file(root, &path, &bytes)?;
            }
            return Ok(Applied::ThreeWay);
        }
    }
    for fp in &p.files {
        let old = fp.old_path.as_deref().unwrap_or(fp.path());
        let new = fp.path();
        let text = if fp.change == FileChange::Added {
            Vec::new()
        } else {
            read_file(root, old).ok_or_else(|| {
                io_err(old)(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no such file in the working copy",
                ))
            })?
        };
        let mut lines: Vec<Vec<u8>> = text
            .split_inclusive(|b| *b == b'\n')
            .map(<[u8]>::to_vec)
            .collect();
        // Hunks from the bottom up, so earlier positions stay valid.
        for h in fp.hunks.iter().rev() {
            let olds: Vec<&[u8]> = h
                .lines
                .iter()
                .filter(|l| l.kind != LineKind::Added)
                .map(|l| l.text())
                .collect();
            let news: Vec<Vec<u8>> = h
                .lines
                .iter()
                .filter(|l| l.kind != LineKind::Removed)
                .map(|l| {
                    let mut t = l.text().to_vec();
                    t.push(b'\n');
                    t
                })
                .collect();
            let lead = h
                .lines
                .iter()
                .take_while(|l| l.kind == LineKind::Context)
                .count();
            let trail = h
                .lines
                .iter()
                .rev()
                .take_while(|l| l.kind == LineKind::Context)
                .count();
            let mut placed = false;
            for fuzz in 0..=2usize {
                let (cut_lead, cut_trail) = (fuzz.min(lead), fuzz.min(trail));
                let want = &olds[cut_lead..olds.len() - cut_trail];
                let repl = &news[cut_lead..news.len() - cut_trail];
                let stated = (h.old_start as usize).saturating_sub(1) + cut_lead;
                let fits = |at: usize| {
                    at + want.len() <= lines.len()
                        && want.iter().enumerate().all(|(i, w)| {
                            let l = &lines[at + i];
                            let l = l.strip_suffix(b"\n").unwrap_or(l);
                            l.strip_suffix(b"\r").unwrap_or(l) == *w || l == *w
                        })
                };
                let found = (0..=lines.len()).find_map(|d| {
                    [stated.checked_sub(d), stated.checked_add(d)]
                        .into_iter()
                        .flatten()
                        .find(|&at| fits(at))
                });
                if let Some(at) = found {
                    lines.splice(at..at + want.len(), repl.iter().cloned());
                    placed = true;
                    break;
                }
            }
            if !placed {
                return Err(DirApplyError::NoPlace {
                    path: new.to_string(),
                    line: h.old_start,
                });
            }
        }
        if fp.change == FileChange::Deleted {
            remove_file(root, old);
            continue;
        }
        write_file(root, new, &lines.concat())?;
        if old != new {
            remove_file(root, old);
        }
    }
    Ok(Applied::Fuzz)
}

/// Every modified file of `p` merged 3-way onto the files under `root`, or `None` when a
/// file has no `index` line, its base blob is not in `repo`, or a merge conflicts.
fn three_way(p: &Patch, root: &Path, repo: &Path) -> Option<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    for fp in &p.files {
        if fp.change != FileChange::Modified {
            return None;
        }
        let path = fp.path().to_string();
        let ours = read_file(root, &path)?;
        if let Ok(exact) = crate::diff::apply_file(fp, &ours) {
            out.push((path, exact));
            continue;
        }
        let (index, _) = crate::diff::index_ids(fp)?;
        let base = crate::git::blob_by_prefix(repo, &index)?;
        let theirs = crate::diff::apply_file(fp, &base).ok()?;
        let merged = crate::git::merge_file(&ours, &base, &theirs).ok()??;
        out.push((path, merged));
    }
    Some(out)
}
