//! A command's temporary files in one place that a killed process does not leave
//! behind: `$TMPDIR/hunkgen-scratch-<pid>-<random>`, made the process's `TMPDIR` (so
//! every working copy and temporary directory of the command lands inside it), locked
//! by the process for its life (`flock` on `.lock` inside) and removed at its end. The
//! next command removes the roots whose lock is free: their process is gone.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// The prefix of scratch roots in the system's temporary directory.
const PREFIX: &str = "hunkgen-scratch-";

/// A root younger than this whose lock file is not yet there is being made: kept.
const BEING_MADE: Duration = Duration::from_secs(600);

/// The root of this process, for [`abandon`] (Ctrl-C).
static ROOT: Mutex<Option<PathBuf>> = Mutex::new(None);

/// This process's scratch root: the lock that says it is alive, and the directory.
#[derive(Debug)]
pub struct Scratch {
    _lock: std::fs::File,
    root: PathBuf,
}

impl Scratch {
    /// Sweep the roots of dead processes, make this process's root and point `TMPDIR`
    /// at it. Call it before any other thread starts (it sets an environment
    /// variable). `None` when the temporary directory cannot hold one: the command
    /// then uses the temporary directory as it is.
    pub fn enter() -> Option<Scratch> {
        let base = std::env::temp_dir();
        sweep(&base);
        let dir = tempfile::Builder::new()
            .prefix(&format!("{PREFIX}{}-", std::process::id()))
            .tempdir_in(&base)
            .ok()?
            .keep();
        // Made and locked under another name, then renamed: a sweep by another command
        // starting now never sees this root's lock file unlocked.
        let lock = crate::lock::create_locked(&dir.join(".lock")).ok();
        let Some(lock) = lock else {
            let _ = std::fs::remove_dir_all(&dir);
            return None;
        };
        std::env::set_var("TMPDIR", &dir);
        if let Ok(mut r) = ROOT.lock() {
            *r = Some(dir.clone());
        }
        Some(Scratch {
            _lock: lock,
            root: dir,
        })
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl Drop for Scratch {
    /// The command is over: its temporary files go.
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
        if let Ok(mut r) = ROOT.lock() {
            *r = None;
        }
    }
}

/// Remove this process's scratch root now (the Ctrl-C handler, which exits).
pub fn abandon() {
    let root = ROOT.lock().ok().and_then(|mut r| r.take());
    if let Some(root) = root {
        let _ = std::fs::remove_dir_all(root);
    }
}

/// Remove the scratch roots in `base` whose process is gone: its lock free, or the
/// process its name records (`hunkgen-scratch-<pid>-…`) no longer on this host with no
/// lock held in the root (killed before it had locked it); and those without a lock
/// file that are older than [`BEING_MADE`].
fn sweep(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(PREFIX) else {
            continue;
        };
        let dir = e.path();
        let lock = dir.join(".lock");
        let gone = rest
            .split('-')
            .next()
            .and_then(|p| p.parse::<u32>().ok())
            .is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists());
        let unlocked = |p: &Path| !p.exists() || !crate::lock::held_elsewhere(p);
        let killed_early = gone && unlocked(&lock) && unlocked(&dir.join(".lock.new"));
        if killed_early || crate::lock::abandoned(&dir, &lock, BEING_MADE) {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_processs_root_is_swept_and_a_live_one_kept() {
        let base = tempfile::tempdir().expect("tempdir");
        let dead = base.path().join(format!("{PREFIX}1-dead"));
        std::fs::create_dir(&dead).expect("mkdir");
        std::fs::write(dead.join(".lock"), "").expect("lock file");
        std::fs::write(dead.join("left"), "x").expect("file");
        let live = base.path().join(format!("{PREFIX}2-live"));
        std::fs::create_dir(&live).expect("mkdir");
        let held = std::fs::File::create(live.join(".lock")).expect("lock file");
        assert!(crate::lock::try_exclusive(&held).expect("flock"));
        // A live process's root still being made (no lock file yet, or only the staging
        // one): kept.
        let young = base
            .path()
            .join(format!("{PREFIX}{}-young", std::process::id()));
        std::fs::create_dir(&young).expect("mkdir");
        std::fs::write(young.join(".lock.new"), "").expect("staging");
        // A process killed before it had locked its root: its pid is gone (pids stay
        // below the kernel's pid_max, so that one never names a process).
        let gone: u32 = std::fs::read_to_string("/proc/sys/kernel/pid_max")
            .expect("pid_max")
            .trim()
            .parse()
            .expect("a number");
        let early = base.path().join(format!("{PREFIX}{gone}-early"));
        std::fs::create_dir(&early).expect("mkdir");
        std::fs::write(early.join(".lock.new"), "").expect("staging");
        let other = base.path().join("someone-else");
        std::fs::create_dir(&other).expect("mkdir");
        sweep(base.path());
        assert!(!dead.exists() && !early.exists());
        assert!(live.exists() && young.exists() && other.exists());
    }
}
