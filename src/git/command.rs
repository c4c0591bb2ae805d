//! Starts `git` processes: the one place outside `validate` where hunkgen spawns a
//! program. libgit2 does some jobs slowly or not at all (packing with delta reuse,
//! `fsck`, pickaxe search, `merge-file`, work-tree snapshots), and the leak gate must see
//! a state exactly as the `git` an agent runs would. Each run gets an environment that
//! cannot redirect it to another repository, and git's complaint ends up in the error.

use super::error::GitError;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Environment variables that would make git read or write another repository, object
/// store or index than the one named, or rewrite history on the fly (`replace` refs).
const REDIRECTING_VARS: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_QUARANTINE_PATH",
    "GIT_REPLACE_REF_BASE",
    "GIT_GRAFT_FILE",
    "GIT_SHALLOW_FILE",
];

/// What one `git` run printed, for callers that parse it or judge its status.
#[derive(Debug)]
pub(crate) struct GitOutput {
    /// Whether git exited 0.
    pub success: bool,
    /// Standard output, raw.
    pub stdout: Vec<u8>,
    /// Standard error, lossily decoded and trimmed.
    pub stderr: String,
}

/// Run `git <args>` in `dir` (a work tree or a git directory), feeding `stdin`; a git that
/// cannot be started is an error, a non-zero exit is reported in the output.
pub(crate) fn run(
    dir: &Path,
    args: &[&std::ffi::OsStr],
    stdin: &[u8],
) -> Result<GitOutput, GitError> {
    let shown = || {
        let words: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        format!("git {}", words.join(" "))
    };
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .args(["-c", "color.ui=never", "-c", "core.pager=cat"])
        .args(args)
        .env("GIT_NO_REPLACE_OBJECTS", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for var in REDIRECTING_VARS {
        cmd.env_remove(var);
    }
    let spawn_err = |e: std::io::Error| GitError::Command {
        path: dir.to_path_buf(),
        command: shown(),
        detail: format!("cannot run git: {e}"),
    };
    let mut child = cmd.spawn().map_err(spawn_err)?;
    // Write stdin from another thread so a large output cannot deadlock against it.
    let writer = child.stdin.take().map(|mut pipe| {
        let input = stdin.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        })
    });
    let out = child.wait_with_output().map_err(spawn_err)?;
    if let Some(w) = writer {
        let _ = w.join();
    }
    Ok(GitOutput {
        success: out.status.success(),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
    })
}

/// Like [`run`] with plain string arguments, failing with git's stderr on a non-zero exit.
pub(crate) fn run_ok(dir: &Path, args: &[&str], stdin: &[u8]) -> Result<Vec<u8>, GitError> {
    let os: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    let out = run(dir, &os, stdin)?;
    if out.success {
        Ok(out.stdout)
    } else {
        Err(GitError::Command {
            path: dir.to_path_buf(),
            command: format!("git {}", args.join(" ")),
            detail: first_line(&out.stderr),
        })
    }
}

/// The first line of git's complaint, or a note that it said nothing.
pub(crate) fn first_line(stderr: &str) -> String {
    stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| "failed without a message".into())
}

/// A working copy's changes against its snapshot: the text patch and the binary files
/// left out of it.
#[derive(Debug, Default)]
pub struct WorktreeDiff {
    /// `git diff` of the text files (a unified diff; empty when nothing changed).
    pub patch: Vec<u8>,
    /// Paths of binary files that changed (not in `patch`).
    pub binary: Vec<String>,
}

/// `git --git-dir=<git_dir> --work-tree=<work_tree> <args>`, checked; the snapshot's git
/// directory lives outside the working copy, so what runs inside cannot rewrite it.
fn snapshot_git(git_dir: &Path, work_tree: &Path, args: &[&str]) -> Result<Vec<u8>, GitError> {
    let gd = format!("--git-dir={}", git_dir.display());
    let wt = format!("--work-tree={}", work_tree.display());
    let mut all: Vec<&str> = vec![
        &gd,
        &wt,
        "-c",
        "core.bare=false",
        "-c",
        "core.autocrlf=false",
        "-c",
        "core.quotepath=off",
        "-c",
        "core.fileMode=true",
        "-c",
        "diff.noprefix=false",
        "-c",
        "diff.mnemonicPrefix=false",
    ];
    all.extend_from_slice(args);
    run_ok(work_tree, &all, b"")
}

/// Record `work_tree` as it is now in a new bare-ish git directory `git_dir` (outside
/// it) and return the snapshot's tree id. A `.git` inside the working copy is never part
/// of the snapshot (git does not add paths named `.git`).
pub fn snapshot_worktree(git_dir: &Path, work_tree: &Path) -> Result<String, GitError> {
    let gd = git_dir.display().to_string();
    run_ok(work_tree, &["init", "--quiet", "--bare", &gd], b"")?;
    snapshot_git(git_dir, work_tree, &["add", "-A", "--", "."])?;
    let tree = snapshot_git(git_dir, work_tree, &["write-tree"])?;
    Ok(String::from_utf8_lossy(&tree).trim().to_string())
}

/// The working copy's changes against the snapshot `tree` of [`snapshot_worktree`]:
/// everything is staged in the snapshot's own index and diffed against the tree.
pub fn diff_worktree(
    git_dir: &Path,
    work_tree: &Path,
    tree: &str,
) -> Result<WorktreeDiff, GitError> {
    snapshot_git(git_dir, work_tree, &["add", "-A", "--", "."])?;
    let numstat = snapshot_git(
        git_dir,
        work_tree,
        &["diff", "--cached", "--no-renames", "--numstat", "-z", tree],
    )?;
    // `-z` numstat: "<added>\t<removed>\t<path>\0"; binary files show "-\t-".
    let mut binary = Vec::new();
    for rec in numstat.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let rec = String::from_utf8_lossy(rec);
        let mut parts = rec.splitn(3, '\t');
        if let (Some("-"), Some("-"), Some(path)) = (parts.next(), parts.next(), parts.next()) {
            binary.push(path.trim_start_matches('\n').to_string());
        }
    }
    let excludes: Vec<String> = binary
        .iter()
        .map(|p| format!(":(exclude,literal){p}"))
        .collect();
    let mut args = vec![
        "diff",
        "--cached",
        "--no-renames",
        "--no-color",
        "--no-ext-diff",
        tree,
        "--",
        ".",
    ];
    args.extend(excludes.iter().map(String::as_str));
    let patch = snapshot_git(git_dir, work_tree, &args)?;
    Ok(WorktreeDiff { patch, binary })
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
    let out = run(dir.path(), &args, b"")?;
    // Exit 0: merged cleanly; a positive exit counts conflicts.
    Ok(out.success.then_some(out.stdout))
}
