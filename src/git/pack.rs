//! History packs: every object reachable from a commit (or a layer of a chain of bases)
//! copied out of the source repository by `git pack-objects --revs`, the store a Best
//! state starts from (ARCHITECTURE §6).

use super::command;
use super::error::{io_err, GitError};
use super::repo::{resolve_commit, with_repo};
use std::path::{Path, PathBuf};

/// A pack holding every object reachable from one commit, written once per instance and
/// hardlinked into each of its Best states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryPack {
    /// Directory holding the pack files.
    pub dir: PathBuf,
    /// File stem, `pack-<hash>`.
    pub name: String,
    /// Full id of the commit whose history it holds.
    pub base: String,
}

impl HistoryPack {
    /// The pack's files (`.pack`, `.idx`, and `.rev` when git wrote one), so all of them
    /// are linked together.
    pub fn files(&self) -> Result<Vec<PathBuf>, GitError> {
        pack_files(&self.dir, &self.name)
    }
}

/// `<dir>/<name>.*`: the files of one pack.
pub(super) fn pack_files(dir: &Path, name: &str) -> Result<Vec<PathBuf>, GitError> {
    let prefix = format!("{name}.");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io_err(dir))? {
        let entry = entry.map_err(io_err(dir))?;
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            files.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}

/// Pack every object reachable from `rev` in the source repository into `into` (created
/// if missing) with `git pack-objects --revs`: exactly that commit's history, nothing
/// else of the store (no other branches, tags, later commits or unreachable objects).
pub fn pack_history(repo: &Path, rev: &str, into: &Path) -> Result<HistoryPack, GitError> {
    pack_segment(repo, rev, None, into)
}

/// Pack the objects reachable from `tip` but not from `exclude` (an ancestor of `tip`):
/// one layer of a chain of bases, so the states of many instances share their common
/// history (ARCHITECTURE §6). Objects the walk cannot prove reachable from `exclude` are
/// included, so the layers of a chain always cover a state's history.
pub fn pack_segment(
    repo: &Path,
    tip: &str,
    exclude: Option<&str>,
    into: &Path,
) -> Result<HistoryPack, GitError> {
    let base = with_repo(repo, |r| resolve_commit(r, repo, tip))?.to_string();
    let mut input = format!("{base}\n");
    if let Some(ex) = exclude {
        let ex = with_repo(repo, |r| resolve_commit(r, repo, ex))?;
        input.push_str(&format!("^{ex}\n"));
    }
    std::fs::create_dir_all(into).map_err(io_err(into))?;
    // git runs in the source repository: the output path must not be relative.
    let into = &std::path::absolute(into).map_err(io_err(into))?;
    let prefix = into.join("pack");
    let prefix = prefix.to_string_lossy();
    let out = command::run_ok(
        repo,
        &[
            "pack-objects",
            "--revs",
            "--delta-base-offset",
            "-q",
            &prefix,
        ],
        input.as_bytes(),
    )
    .map_err(|e| pack_failure(e, &base))?;
    let hash = String::from_utf8_lossy(&out).trim().to_string();
    Ok(HistoryPack {
        dir: into.to_path_buf(),
        name: format!("pack-{hash}"),
        base,
    })
}

/// A failed history pack, said without the build's temporary output path (a rebuild
/// writes the same line) and, when git could not read an object, with what that means:
/// a partial or damaged clone cannot give a state its whole history.
fn pack_failure(e: GitError, base: &str) -> GitError {
    match e {
        GitError::Command { path, detail, .. } => {
            let detail = match detail.contains("unable to read") {
                true => format!(
                    "{detail} (the clone lacks objects of this history, as a partial or \
                     damaged clone does: `git fsck` lists them; a state needs every one)"
                ),
                false => detail,
            };
            GitError::Command {
                path,
                command: format!("git pack-objects --revs {base}"),
                detail,
            }
        }
        e => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clone missing a blob of the history (a fetched snapshot that left out large
    /// files, a partial clone) cannot be packed; the line names the base commit and what
    /// is wrong, never the build's temporary output path, so a rebuild says the same.
    #[test]
    fn a_history_missing_an_object_is_said_without_the_output_path() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let repo = tmp.path().join("repo");
        let r = git2::Repository::init(&repo).expect("init");
        let head = crate::git::fixture::commit(
            &r,
            &[("a.txt", "kept\n"), ("big.bin", "left out\n")],
            1_600_000_000,
            None,
            Some("HEAD"),
        );
        let blob = r.blob(b"left out\n").expect("blob").to_string();
        let loose = repo.join(".git/objects").join(&blob[..2]).join(&blob[2..]);
        std::fs::remove_file(&loose).expect("remove the blob");
        for out in ["out-1", "out-2"] {
            let into = tmp.path().join(out);
            let e = pack_history(&repo, &head.to_string(), &into).expect_err("a missing blob");
            let line = e.to_string();
            assert!(line.contains(&blob), "{line}");
            assert!(line.contains("lacks objects of this history"), "{line}");
            assert!(
                line.contains(&format!("git pack-objects --revs {head}")),
                "{line}"
            );
            assert!(!line.contains(out), "{line}");
        }
    }
}
