//! The bubblewrap sandbox: finding `bwrap`, probing that it can make namespaces here,
//! and the flags every sandboxed run gets.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command as ProcessCommand, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether to use bubblewrap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxPolicy {
    /// Use it when it works here; otherwise run unsandboxed with a one-time warning.
    Auto,
    /// Fail ([`super::RunError::SandboxUnavailable`]) when it does not work.
    Required,
    /// Never use it (plain process group + rlimits).
    Off,
}

/// The sandbox this runner found, decided once when the runner is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sandbox {
    /// bubblewrap at this path passed the probe run.
    Bwrap(PathBuf),
    /// No sandbox, and why.
    None(String),
}

/// The host's system directories a run sees, read-only: programs, libraries and their
/// configuration. Nothing else of the host is there: not `/home`, `/root`, `/work`,
/// `/srv`, `/mnt`, `/var` or `/opt` (so no `$HOME`, `~/.ssh`, other datasets or caches),
/// only what a run names in `readable`/`writable`. A merged-`/usr` link (`/bin ->
/// usr/bin`) is recreated as a link.
pub(super) const SYSTEM_DIRS: [&str; 9] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/sys",
];

/// The uid and gid a sandboxed run has when hunkgen runs as root.
const SANDBOX_UID: &str = "1000";
/// The user name a sandboxed run has (`USER`, `LOGNAME`, its passwd entry).
pub(super) const SANDBOX_USER: &str = "hunkgen";
/// Its home directory: `HOME` and the passwd entry's, which exists and is writable (the
/// private `/tmp`).
pub(super) const SANDBOX_HOME: &str = "/tmp";
/// Files under the system directories that hold secrets, hidden behind an empty file or
/// directory (password hashes, the host's SSH keys).
const MASKED: [&str; 3] = ["/etc/shadow", "/etc/gshadow", "/etc/ssh"];

/// Size of the private `/tmp` when a run does not say (a tmpfs takes memory, so a run
/// filling it is stopped by `ENOSPC` there, not by the host's disk filling up).
pub(super) const DEFAULT_TMP_SIZE: u64 = 2 << 30;

/// Set when the probe found a bubblewrap without `--size` (older than 0.5).
static NO_SIZE: AtomicBool = AtomicBool::new(false);

/// The sandbox flags: every namespace unshared, the host's [`SYSTEM_DIRS`] read-only, a
/// private size-capped `/tmp`, then the paths a run needs bound explicitly: `readable`
/// read-only, the working copy and `writable` writable, wherever they are (under `/tmp`
/// too, which the private `/tmp` would otherwise hide); everything else read-only. Each
/// path is one argv entry, so spaces need no quoting.
pub(super) fn bwrap_args(
    workdir: &Path,
    writable: &[PathBuf],
    readable: &[PathBuf],
    network: bool,
) -> Vec<OsString> {
    bwrap_args_sized(workdir, writable, readable, &[], network, DEFAULT_TMP_SIZE)
}

/// [`bwrap_args`] with `hidden` paths covered again after the binds and the private
/// `/tmp` capped at `tmp_size` bytes.
pub(super) fn bwrap_args_sized(
    workdir: &Path,
    writable: &[PathBuf],
    readable: &[PathBuf],
    hidden: &[PathBuf],
    network: bool,
    tmp_size: u64,
) -> Vec<OsString> {
    let mut a: Vec<OsString> = ["--unshare-all"].iter().map(OsString::from).collect();
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        // A run is an ordinary user, never root, even when hunkgen is: root may write a
        // read-only file, so a test that checks permissions (Cli's FileValidatorTest, on
        // Defects4J's own fixed version) fails as root. bwrap maps the caller onto this
        // uid in a user namespace of its own; every file the caller owns stays writable.
        for arg in ["--unshare-user", "--uid", SANDBOX_UID, "--gid", SANDBOX_UID] {
            a.push(arg.into());
        }
    }
    if network {
        a.push("--share-net".into());
    }
    for dir in SYSTEM_DIRS {
        match fs::symlink_metadata(dir) {
            Ok(m) if m.file_type().is_symlink() => {
                if let Ok(target) = fs::read_link(dir) {
                    a.push("--symlink".into());
                    a.push(target.into());
                    a.push(dir.into());
                }
            }
            Ok(m) if m.is_dir() => {
                a.push("--ro-bind".into());
                a.push(dir.into());
                a.push(dir.into());
            }
            _ => {}
        }
    }
    for secret in MASKED {
        match fs::symlink_metadata(secret) {
            Ok(m) if m.is_dir() => {
                a.push("--tmpfs".into());
                a.push(secret.into());
            }
            Ok(_) => {
                a.push("--ro-bind".into());
                a.push("/dev/null".into());
                a.push(secret.into());
            }
            Err(_) => {}
        }
    }
    // One coherent identity: the run's uid is `hunkgen`, whose home is `HOME` (the
    // private /tmp), so `user.home`, `getpwuid` and `~` agree and the home exists.
    if let Some((passwd, group)) = identity_files() {
        for (file, at) in [(passwd, "/etc/passwd"), (group, "/etc/group")] {
            a.push("--ro-bind".into());
            a.push(file.into());
            a.push(at.into());
        }
    }
    if network {
        // The resolver configuration may link out of /etc (systemd-resolved's stub).
        if let Ok(real) = fs::canonicalize("/etc/resolv.conf") {
            if let Some(dir) = real.parent().filter(|d| !d.starts_with("/etc")) {
                a.push("--ro-bind".into());
                a.push(dir.into());
                a.push(dir.into());
            }
        }
    }
    a.push("--dev".into());
    a.push("/dev".into());
    a.push("--proc".into());
    a.push("/proc".into());
    if !NO_SIZE.load(Ordering::Relaxed) {
        a.push("--size".into());
        a.push(tmp_size.to_string().into());
    }
    a.push("--tmpfs".into());
    a.push("/tmp".into());
    // After the /tmp tmpfs: bwrap makes the mount points of paths under it there,
    // every directory named on the way too (a path through `..` keeps resolving).
    let mut ro: Vec<&PathBuf> = Vec::new();
    for dir in readable.iter().filter(|d| d.exists() && bindable(d)) {
        if !ro.contains(&dir) {
            ro.push(dir);
        }
    }
    for dir in ro {
        a.push("--ro-bind".into());
        a.push(dir.into());
        a.push(dir.into());
    }
    // The working copy first: a wider writable path bound after it (an environment and
    // uv's cache under one ancestor) then makes one mount, so hardlinks work across it.
    let mut rw: Vec<&Path> = Vec::new();
    for dir in std::iter::once(workdir).chain(writable.iter().map(PathBuf::as_path)) {
        if bindable(dir) && !rw.contains(&dir) {
            rw.push(dir);
        }
    }
    for dir in rw {
        a.push("--bind".into());
        a.push(dir.into());
        a.push(dir.into());
    }
    for p in hidden {
        match fs::symlink_metadata(p) {
            Ok(m) if m.is_dir() => {
                a.push("--tmpfs".into());
                a.push(p.into());
            }
            Ok(_) => {
                a.push("--ro-bind".into());
                a.push("/dev/null".into());
                a.push(p.into());
            }
            Err(_) => {}
        }
    }
    // The root bwrap built (a tmpfs holding the mount points) read-only: a run writes
    // only to its working copy, `writable` and the private /tmp.
    a.push("--remount-ro".into());
    a.push("/".into());
    a.push("--chdir".into());
    a.push(workdir.into());
    a.push("--die-with-parent".into());
    a.push("--new-session".into());
    a
}

/// The uid and gid a sandboxed run has: [`SANDBOX_UID`] when hunkgen is root, else the
/// caller's own (an unprivileged user namespace maps the caller onto itself).
fn run_ids() -> (u32, u32) {
    // SAFETY: geteuid/getegid have no preconditions and cannot fail.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    match uid {
        0 => {
            let id = SANDBOX_UID.parse().unwrap_or(1000);
            (id, id)
        }
        _ => (uid, gid),
    }
}

/// The host's passwd and group files with the run's uid and gid renamed to
/// [`SANDBOX_USER`] (home [`SANDBOX_HOME`]): a run whose uid has the host's entry would
/// get a home directory the sandbox does not hold (Lang's `testGetUserHome` fails on the
/// fixed version then), and one whose uid has none gets no `user.name`.
pub(super) fn identity_text(passwd: &str, group: &str, uid: u32, gid: u32) -> (String, String) {
    // The file's lines without the entry of `id` (third field) or of our name, then ours.
    let replace = |text: &str, id: u32, ours: String| {
        let id = id.to_string();
        let mut lines: Vec<&str> = text
            .lines()
            .filter(|l| {
                let mut f = l.split(':');
                let name = f.next();
                name != Some(SANDBOX_USER) && f.nth(1) != Some(id.as_str())
            })
            .collect();
        lines.push(&ours);
        lines.join("\n") + "\n"
    };
    (
        replace(
            passwd,
            uid,
            format!("{SANDBOX_USER}:x:{uid}:{gid}:{SANDBOX_USER}:{SANDBOX_HOME}:/bin/sh"),
        ),
        replace(group, gid, format!("{SANDBOX_USER}:x:{gid}:")),
    )
}

/// [`identity_text`] written once where bwrap can bind it from: a directory of this
/// user's under the system temporary directory, named by the content, so processes
/// share it and nothing accumulates. `None` (the host's files stay) when it cannot be
/// written.
fn identity_files() -> Option<(PathBuf, PathBuf)> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    static FILES: std::sync::OnceLock<Option<(PathBuf, PathBuf)>> = std::sync::OnceLock::new();
    FILES
        .get_or_init(|| {
            let (uid, gid) = run_ids();
            let host = |f: &str| fs::read_to_string(f).unwrap_or_default();
            let (passwd, group) =
                identity_text(&host("/etc/passwd"), &host("/etc/group"), uid, gid);
            let key = crate::cache::Key::of(&[passwd.as_bytes(), group.as_bytes()]);
            // SAFETY: geteuid has no preconditions and cannot fail.
            let me = unsafe { libc::geteuid() };
            let parent = std::env::temp_dir().join(format!("hunkgen-identity-{me}"));
            let _ = fs::DirBuilder::new().mode(0o700).create(&parent);
            // Only a directory this user owns and nobody else may write to.
            let meta = fs::symlink_metadata(&parent).ok()?;
            if !meta.is_dir() || meta.uid() != me || meta.mode() & 0o022 != 0 {
                return None;
            }
            let dir = parent.join(&key.as_str()[..16]);
            let (p, g) = (dir.join("passwd"), dir.join("group"));
            let holds = |f: &Path, text: &str| fs::read_to_string(f).is_ok_and(|t| t == text);
            if !holds(&p, &passwd) || !holds(&g, &group) {
                let tmp = parent.join(format!(".{}-{}", &key.as_str()[..16], std::process::id()));
                fs::create_dir_all(&tmp).ok()?;
                fs::write(tmp.join("passwd"), &passwd).ok()?;
                fs::write(tmp.join("group"), &group).ok()?;
                let _ = fs::remove_dir_all(&dir);
                if fs::rename(&tmp, &dir).is_err() {
                    let _ = fs::remove_dir_all(&tmp);
                }
            }
            (holds(&p, &passwd) && holds(&g, &group)).then_some((p, g))
        })
        .clone()
}

/// False for `/`, `/tmp` and anything holding `/tmp` (also when reached through `..` or
/// a symlink): binding one of them would put the host's `/tmp` back over the private one.
fn bindable(p: &Path) -> bool {
    let real = fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    p.is_absolute() && !Path::new("/tmp").starts_with(&real)
}

/// No bubblewrap to sandbox with (the reason a run goes unsandboxed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("bubblewrap (bwrap) not found on PATH")]
pub(super) struct NoBwrap;

/// `HUNKGEN_BWRAP`, else `bwrap` on `PATH`.
pub(super) fn locate_bwrap() -> Result<PathBuf, NoBwrap> {
    match std::env::var_os("HUNKGEN_BWRAP") {
        Some(p) => Ok(PathBuf::from(p)),
        None => find_in_path("bwrap").ok_or(NoBwrap),
    }
}

/// Checks that `bwrap` can make every namespace here, with the flags runs use.
pub(super) fn probe_bwrap(bwrap: &Path) -> Sandbox {
    let root = Path::new("/");
    let probe = || {
        ProcessCommand::new(bwrap)
            .args(bwrap_args(root, &[], &[], false))
            .args(["--", "/bin/sh", "-c", "exit 0"])
            .stdin(Stdio::null())
            .output()
    };
    let mut out = probe();
    // bubblewrap before 0.5 has no `--size`: its /tmp is then uncapped (still private).
    if out
        .as_ref()
        .is_ok_and(|o| !o.status.success() && String::from_utf8_lossy(&o.stderr).contains("--size"))
    {
        NO_SIZE.store(true, Ordering::Relaxed);
        out = probe();
    }
    match out {
        Ok(o) if o.status.success() => Sandbox::Bwrap(bwrap.to_path_buf()),
        Ok(o) => Sandbox::None(format!(
            "{} cannot create namespaces here: {}",
            bwrap.display(),
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Sandbox::None(format!("cannot run {}: {e}", bwrap.display())),
    }
}

/// `PATH` lookup of an executable file.
pub(crate) fn find_in_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| {
            fs::metadata(p)
                .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
        })
}
