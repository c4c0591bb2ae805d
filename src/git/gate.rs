//! The leak gate (ARCHITECTURE §6, SWE-bench #465): a Best state is published only when git
//! itself finds nothing in it beyond the history that ends at its HEAD.
//!
//! Each check runs the `git` command an agent would run, in the state repository.

use super::command;
use super::error::GitError;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One gate check, so a refusal names what leaked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GateCheck {
    /// No `objects/info/alternates`, no `commondir`, `.git` a directory: the store is the
    /// state's own, not a window on the shared one.
    OwnStore,
    /// No reflog files.
    NoReflogs,
    /// No FETCH_HEAD, ORIG_HEAD, MERGE_HEAD, COMMIT_EDITMSG or similar leftovers.
    NoSpecialHeads,
    /// No tags.
    NoTags,
    /// No remotes (refs or configuration).
    NoRemotes,
    /// Exactly one ref, `refs/heads/main`, and HEAD points to it.
    OneBranch,
    /// Stored objects (`cat-file --batch-all-objects`) = reachable objects
    /// (`rev-list --objects --all`).
    StoredIsReachable,
    /// `fsck --connectivity-only --unreachable --no-reflogs` prints nothing.
    Fsck,
    /// The fix commit is absent (`cat-file -e` fails); Novel and Partial only.
    FixAbsent,
    /// `log --all -S<line the fix adds>` finds nothing; Novel and Partial only.
    Pickaxe,
    /// No commit is dated after HEAD.
    NoLaterCommit,
    /// `git status` is clean: the work tree matches HEAD.
    CleanTree,
}

impl GateCheck {
    /// The check's name in messages and manifests.
    pub fn name(self) -> &'static str {
        match self {
            GateCheck::OwnStore => "own-store",
            GateCheck::NoReflogs => "no-reflogs",
            GateCheck::NoSpecialHeads => "no-special-heads",
            GateCheck::NoTags => "no-tags",
            GateCheck::NoRemotes => "no-remotes",
            GateCheck::OneBranch => "one-branch",
            GateCheck::StoredIsReachable => "stored-is-reachable",
            GateCheck::Fsck => "fsck-unreachable",
            GateCheck::FixAbsent => "fix-absent",
            GateCheck::Pickaxe => "pickaxe",
            GateCheck::NoLaterCommit => "no-later-commit",
            GateCheck::CleanTree => "clean-tree",
        }
    }
}

impl std::fmt::Display for GateCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What must be absent from a state, beyond the checks every state gets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GateSpec {
    /// Commit ids that must not be stored (the fix commit for Novel and Partial).
    pub absent_commits: Vec<String>,
    /// Strings no commit of the history may add or remove (`log --all -S`), e.g. the
    /// longest line the fix adds that the state does not hold.
    pub probes: Vec<Vec<u8>>,
}

/// What a passed gate checked, for the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateReport {
    /// The checks run, all passed, in order.
    pub passed: Vec<GateCheck>,
    /// Objects stored (= reachable).
    pub objects: usize,
}

/// Why a state was refused, naming the repository and the check.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    /// A check found a leak.
    #[error("{}: leak gate check `{check}` failed: {detail}", path.display())]
    Failed {
        /// The state repository.
        path: PathBuf,
        /// The failed check.
        check: GateCheck,
        /// What it found.
        detail: String,
    },
    /// A git command needed by the gate could not run.
    #[error(transparent)]
    Git(#[from] GitError),
}

/// Files in a git directory that carry refs, messages or objects outside HEAD's history.
const SPECIAL_FILES: &[&str] = &[
    "FETCH_HEAD",
    "ORIG_HEAD",
    "MERGE_HEAD",
    "MERGE_MSG",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
    "BISECT_LOG",
    "COMMIT_EDITMSG",
    "SQUASH_MSG",
    "AUTO_MERGE",
    "rebase-merge",
    "rebase-apply",
    "lost-found",
];

fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether `dir` holds any file (recursively).
fn has_files(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let p = e.path();
        if p.is_dir() {
            has_files(&p)
        } else {
            true
        }
    })
}

/// Run every check on the Best state whose work tree is `dir`; the first failure is the
/// error, so an unpublished state says exactly why.
pub fn check_state(dir: &Path, spec: &GateSpec) -> Result<GateReport, GateError> {
    let fail = |check: GateCheck, detail: String| GateError::Failed {
        path: dir.to_path_buf(),
        check,
        detail,
    };
    let mut passed = Vec::new();
    let git_dir = dir.join(".git");

    // The store is the state's own.
    if !git_dir.is_dir() {
        return Err(fail(
            GateCheck::OwnStore,
            ".git is not a directory (a worktree or gitdir link shares another store)".into(),
        ));
    }
    for f in [
        "objects/info/alternates",
        "objects/info/http-alternates",
        "commondir",
    ] {
        if git_dir.join(f).exists() {
            return Err(fail(GateCheck::OwnStore, format!(".git/{f} exists")));
        }
    }
    passed.push(GateCheck::OwnStore);

    if has_files(&git_dir.join("logs")) {
        return Err(fail(GateCheck::NoReflogs, ".git/logs holds reflogs".into()));
    }
    passed.push(GateCheck::NoReflogs);

    if let Some(f) = SPECIAL_FILES.iter().find(|f| git_dir.join(f).exists()) {
        return Err(fail(GateCheck::NoSpecialHeads, format!(".git/{f} exists")));
    }
    passed.push(GateCheck::NoSpecialHeads);

    let refs = lines(&command::run_ok(
        dir,
        &["for-each-ref", "--format=%(refname)"],
        b"",
    )?);
    if let Some(t) = refs.iter().find(|r| r.starts_with("refs/tags/")) {
        return Err(fail(GateCheck::NoTags, format!("tag {t}")));
    }
    passed.push(GateCheck::NoTags);
    if let Some(t) = refs.iter().find(|r| r.starts_with("refs/remotes/")) {
        return Err(fail(GateCheck::NoRemotes, format!("remote ref {t}")));
    }
    let remotes = lines(&command::run_ok(dir, &["remote"], b"")?);
    if let Some(r) = remotes.first() {
        return Err(fail(
            GateCheck::NoRemotes,
            format!("remote `{r}` configured"),
        ));
    }
    passed.push(GateCheck::NoRemotes);
    if refs != ["refs/heads/main"] {
        return Err(fail(
            GateCheck::OneBranch,
            format!(
                "refs are [{}], expected only refs/heads/main",
                refs.join(", ")
            ),
        ));
    }
    let head = command::run(dir, &["symbolic-ref".as_ref(), "HEAD".as_ref()], b"")?;
    let head_ref = String::from_utf8_lossy(&head.stdout).trim().to_string();
    if !head.success || head_ref != "refs/heads/main" {
        return Err(fail(
            GateCheck::OneBranch,
            format!("HEAD is `{head_ref}`, not refs/heads/main"),
        ));
    }
    passed.push(GateCheck::OneBranch);

    let first_word = |l: &String| l.split_whitespace().next().unwrap_or("").to_string();
    let stored: BTreeSet<String> = lines(&command::run_ok(
        dir,
        &[
            "cat-file",
            "--batch-all-objects",
            "--batch-check=%(objectname)",
        ],
        b"",
    )?)
    .iter()
    .map(first_word)
    .collect();
    let reachable: BTreeSet<String> = lines(&command::run_ok(
        dir,
        &["rev-list", "--objects", "--all"],
        b"",
    )?)
    .iter()
    .map(first_word)
    .collect();
    if stored != reachable {
        let extra: Vec<&String> = stored.difference(&reachable).take(3).collect();
        return Err(fail(
            GateCheck::StoredIsReachable,
            format!(
                "{} objects stored, {} reachable from refs (unreachable e.g. {})",
                stored.len(),
                reachable.len(),
                extra
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    passed.push(GateCheck::StoredIsReachable);

    let fsck = command::run(
        dir,
        &[
            "fsck".as_ref(),
            // Lists unreachable objects like a full fsck but reads no blob: 0.2 s instead
            // of 2.5 s on commons-lang. Object integrity is not what the gate is about.
            "--connectivity-only".as_ref(),
            "--unreachable".as_ref(),
            "--no-reflogs".as_ref(),
            "--no-progress".as_ref(),
        ],
        b"",
    )?;
    let found = lines(&fsck.stdout);
    if !fsck.success || !found.is_empty() {
        let detail = match found.first() {
            Some(l) => format!("{} line(s), first: {l}", found.len()),
            None => command::first_line(&fsck.stderr),
        };
        return Err(fail(GateCheck::Fsck, detail));
    }
    passed.push(GateCheck::Fsck);

    if !spec.absent_commits.is_empty() {
        for id in &spec.absent_commits {
            let out = command::run(dir, &["cat-file".as_ref(), "-e".as_ref(), id.as_ref()], b"")?;
            if out.success {
                return Err(fail(GateCheck::FixAbsent, format!("commit {id} is stored")));
            }
        }
        passed.push(GateCheck::FixAbsent);
    }

    if !spec.probes.is_empty() {
        for probe in &spec.probes {
            let hits = pickaxe(dir, &["--all"], probe).map_err(GateError::Git)?;
            if let Some(c) = hits.first() {
                return Err(fail(
                    GateCheck::Pickaxe,
                    format!(
                        "commit {c} adds or removes `{}`",
                        String::from_utf8_lossy(probe)
                    ),
                ));
            }
        }
        passed.push(GateCheck::Pickaxe);
    }

    let dates = |rev: &[&str]| -> Result<Vec<(String, i64)>, GitError> {
        let mut args = vec!["log", "--format=%H %at %ct"];
        args.extend_from_slice(rev);
        Ok(lines(&command::run_ok(dir, &args, b"")?)
            .iter()
            .map(|l| {
                let mut w = l.split_whitespace();
                let id = w.next().unwrap_or("").to_string();
                let latest = w.filter_map(|t| t.parse::<i64>().ok()).max().unwrap_or(0);
                (id, latest)
            })
            .collect())
    };
    let limit = dates(&["-1", "HEAD"])?
        .first()
        .map(|(_, t)| *t)
        .unwrap_or(i64::MAX);
    if let Some((id, t)) = dates(&["--all"])?.into_iter().find(|(_, t)| *t > limit) {
        return Err(fail(
            GateCheck::NoLaterCommit,
            format!("commit {id} is dated {t}, after HEAD ({limit})"),
        ));
    }
    passed.push(GateCheck::NoLaterCommit);

    let status = lines(&command::run_ok(
        dir,
        &[
            "--no-optional-locks",
            "status",
            "--porcelain=v1",
            "--untracked-files=all",
        ],
        b"",
    )?);
    if let Some(first) = status.first() {
        return Err(fail(
            GateCheck::CleanTree,
            format!("{} change(s), first: {first}", status.len()),
        ));
    }
    passed.push(GateCheck::CleanTree);

    Ok(GateReport {
        passed,
        objects: stored.len(),
    })
}

/// Whether a commit reachable from `rev` in `repo` adds or removes `needle`
/// (`git log -S`), so a leak probe is never a line the history already touched: a line
/// an old commit held and a later one removed would make the gate find those commits,
/// which are no leak (Defects4J fixes often restore such lines).
pub fn history_touches(repo: &Path, rev: &str, needle: &[u8]) -> Result<bool, GitError> {
    Ok(!pickaxe(repo, &["-1", rev, "--"], needle)?.is_empty())
}

/// The commits `git log -S<needle> <args>` lists (those that add or remove it).
fn pickaxe(repo: &Path, args: &[&str], needle: &[u8]) -> Result<Vec<String>, GitError> {
    let mut arg = std::ffi::OsString::from("-S");
    arg.push(os_from_bytes(needle));
    let mut argv: Vec<&std::ffi::OsStr> = vec!["log".as_ref(), "--format=%H".as_ref()];
    argv.push(arg.as_os_str());
    argv.extend(args.iter().map(|a| std::ffi::OsStr::new(*a)));
    let out = command::run(repo, &argv, b"")?;
    if !out.success {
        return Err(GitError::Command {
            path: repo.to_path_buf(),
            command: format!("git log -S<probe> {}", args.join(" ")),
            detail: command::first_line(&out.stderr),
        });
    }
    Ok(lines(&out.stdout))
}

#[cfg(unix)]
fn os_from_bytes(b: &[u8]) -> &std::ffi::OsStr {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(b)
}

#[cfg(not(unix))]
fn os_from_bytes(b: &[u8]) -> std::ffi::OsString {
    String::from_utf8_lossy(b).into_owned().into()
}
