//! Locks that die with their process: `flock(2)` on a lock file, released by the kernel
//! when the holder exits or is killed, so a SIGKILLed command never leaves a lock that
//! blocks the next one.
//!
//! [`OutputLock`] keeps two commands from writing one output directory at once (a
//! second `build` into the same dataset is refused, not interleaved);
//! [`create_locked`] makes a temporary file that is never seen unlocked and
//! [`dead_temporary`] tells a sweeper whether the process that made it is still at work
//! on it; [`WorkDir`] is a directory filled and then renamed into a cache
//! (an environment, a Defects4J checkout) whose leftovers the next writer sweeps.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::{Read, Seek, Write};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Try to take an exclusive lock on `file` without waiting: `Ok(false)` when another
/// open file description holds it.
pub fn try_exclusive(file: &File) -> std::io::Result<bool> {
    // SAFETY: flock on a descriptor this `File` owns for the duration of the call.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc == 0 {
        return Ok(true);
    }
    let err = std::io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(err)
    }
}

/// Open (creating) `path` and wait for an exclusive lock on it: one builder per cache
/// key at a time, across threads (each open is its own description) and processes.
pub fn wait_exclusive(path: &Path) -> std::io::Result<File> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    loop {
        // SAFETY: flock on a descriptor this `File` owns for the duration of the call.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        if rc == 0 {
            return Ok(file);
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// Whether a live process holds the lock on `path` (a file it created and locked); a
/// file that is gone or cannot be opened counts as held (leave it alone).
pub fn held_elsewhere(path: &Path) -> bool {
    match File::open(path) {
        Ok(f) => !matches!(try_exclusive(&f), Ok(true)),
        Err(_) => true,
    }
}

/// How old a staging file (`<temporary>.new`) must be before a sweeper removes it: its
/// writer was killed between creating and renaming it, a window of microseconds.
const STAGING_GRACE: Duration = Duration::from_secs(60);

/// Create the temporary file `path` already locked by this process: it is made and
/// locked as `<path>.new` and then renamed, so a sweeper in another thread, process or
/// host ([`dead_temporary`]) never finds it between its creation and its lock.
pub fn create_locked(path: &Path) -> std::io::Result<File> {
    let mut staging = path.as_os_str().to_owned();
    staging.push(".new");
    let staging = PathBuf::from(staging);
    let file = File::create(&staging)?;
    let renamed = try_exclusive(&file).and_then(|locked| match locked {
        true => std::fs::rename(&staging, path),
        false => Err(std::io::Error::other(format!(
            "{} is locked by another process",
            staging.display()
        ))),
    });
    if let Err(e) = renamed {
        let _ = std::fs::remove_file(&staging);
        return Err(e);
    }
    Ok(file)
}

/// Whether a sweeper may remove the temporary file `path` made by [`create_locked`]: its
/// writer is gone (the lock is free), or it is a staging file older than a minute.
pub fn dead_temporary(path: &Path) -> bool {
    if path.as_os_str().to_string_lossy().ends_with(".new") {
        return older_than(path, STAGING_GRACE) && !held_elsewhere(path);
    }
    !held_elsewhere(path)
}

/// Whether `path` was last modified more than `grace` ago (false when it cannot be
/// told).
fn older_than(path: &Path, grace: Duration) -> bool {
    std::fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age > grace)
}

/// An exclusive lock on an output directory, held while a command writes it: the file
/// `.<name>.lock` beside the directory (the directory itself is swapped whole, so the
/// lock cannot live inside it) holding the holder's pid, host and command.
#[derive(Debug)]
pub struct OutputLock {
    _file: File,
    path: PathBuf,
}

/// Another process holds the lock: the lock file and what it says of its holder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    /// The lock file.
    pub lock: PathBuf,
    /// `pid N on HOST (COMMAND)`, as the holder wrote it.
    pub holder: String,
}

/// Why an output lock was not taken.
#[derive(Debug)]
pub enum LockError {
    /// Another live process is writing the output.
    Held(Held),
    /// The lock file cannot be created or locked.
    Io(PathBuf, std::io::Error),
}

impl OutputLock {
    /// Lock `output` for writing (its parent directory is created); refused at once,
    /// without waiting, when another process holds it.
    pub fn acquire(output: &Path) -> Result<OutputLock, LockError> {
        let path = lock_path(output);
        let io = |e| LockError::Io(path.clone(), e);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        if !take_or_outwait_the_dead(&mut file).map_err(io)? {
            let mut holder = String::new();
            let _ = file.rewind();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            return Err(LockError::Held(Held {
                lock: path.clone(),
                holder: if holder.is_empty() {
                    "a process that has not yet said which".into()
                } else {
                    holder.to_string()
                },
            }));
        }
        let command: Vec<String> = std::env::args().skip(1).take(1).collect();
        let note = format!(
            "pid {} on {} (hunkgen {})\n",
            std::process::id(),
            host_name(),
            command.join(" ")
        );
        // The holder's note is advisory: a failure to write it does not stop the command.
        let _ = file
            .set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(note.as_bytes()));
        Ok(OutputLock { _file: file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// How long a lock whose recorded holder is dead may stay held before it counts as
/// another writer's: a SIGKILLed command's child caught between fork and exec still
/// shares the lock's file description until it has finished dying.
const DEAD_HOLDER_GRACE: Duration = Duration::from_secs(5);

/// Take the lock on `file`; while it is held and the holder it records (`pid N on
/// HOST`) is this host's and no longer alive, wait for the holder's last process to
/// let go (up to [`DEAD_HOLDER_GRACE`]) instead of refusing a re-run started at once.
fn take_or_outwait_the_dead(file: &mut File) -> std::io::Result<bool> {
    let deadline = std::time::Instant::now() + DEAD_HOLDER_GRACE;
    loop {
        if try_exclusive(file)? {
            return Ok(true);
        }
        let mut note = String::new();
        file.rewind()?;
        // A note that cannot be read says nothing of its holder: treat it as alive.
        let _ = file.read_to_string(&mut note);
        if !recorded_holder_is_dead(&note) || std::time::Instant::now() >= deadline {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether a lock note (`pid N on HOST (…)`) names a process of this host that has
/// exited. Anything else (another host, an unreadable note, a live pid) is `false`.
fn recorded_holder_is_dead(note: &str) -> bool {
    let Some(rest) = note.trim().strip_prefix("pid ") else {
        return false;
    };
    let Some((pid, rest)) = rest.split_once(" on ") else {
        return false;
    };
    let Ok(pid) = pid.parse::<libc::pid_t>() else {
        return false;
    };
    let host = rest.split(" (").next().unwrap_or_default();
    if pid <= 0 || host != host_name() {
        return false;
    }
    // SAFETY: signal 0 only checks whether the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    rc < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// `<parent>/.<name>.lock` for output directory `<parent>/<name>`.
pub fn lock_path(output: &Path) -> PathBuf {
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let parent = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    parent.join(format!(".{name}.lock"))
}

/// This machine's host name (`/etc/hostname`, else `HOSTNAME`, else `unknown`), named
/// in lock files and shard manifests.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".into())
}

/// A work directory without a lock file younger than this may be an older hunkgen's,
/// still at work: kept.
const UNLOCKED_GRACE: Duration = Duration::from_secs(3600);

/// The start of every work directory's name.
const WORK_PREFIX: &str = ".tmp-";

/// A directory a process fills and then renames into a shared cache (an environment,
/// a Defects4J checkout or compiled copy, a history pack): `<parent>/.tmp-<tag>-<pid>-
/// <n>-<nonce>`, with the lock file `<that>.lock` held for as long as the process lives, so
/// a later writer removes what a killed one left (on this host or another sharing the
/// cache) and never what a live one is filling. The directory itself is not made (tools
/// such as `git clone` make it); dropping the guard removes what is left of it and the
/// lock file.
#[derive(Debug)]
pub struct WorkDir {
    path: PathBuf,
    lock: PathBuf,
    _file: File,
}

impl WorkDir {
    /// Reserve a fresh name under `parent` (created), after sweeping `parent`'s dead
    /// work directories once per process.
    pub fn reserve(parent: &Path, tag: &str) -> std::io::Result<WorkDir> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        static SWEPT: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
        std::fs::create_dir_all(parent)?;
        let first = SWEPT
            .lock()
            .map(|mut s| {
                s.get_or_insert_with(HashSet::new)
                    .insert(parent.to_path_buf())
            })
            .unwrap_or(false);
        if first {
            sweep_dead_work(parent);
        }
        // Process ids repeat across hosts sharing a cache; the nonce keeps names apart.
        let nonce = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        let name = format!(
            "{WORK_PREFIX}{tag}-{}-{}-{:08x}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst),
            nonce as u32
        );
        let path = parent.join(&name);
        let lock = parent.join(format!("{name}.lock"));
        // Locked under a staging name first and then renamed: a sweeper never sees the
        // lock file of a live writer unlocked.
        let file = create_locked(&lock)?;
        Ok(WorkDir {
            path,
            lock,
            _file: file,
        })
    }

    /// The reserved directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for WorkDir {
    /// Renamed into place or given up: what is left of the directory goes, then the lock.
    fn drop(&mut self) {
        if self.path.exists() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
        let _ = std::fs::remove_file(&self.lock);
    }
}

/// Whether `path`, made by a writer that holds `lock` for its life, was abandoned: the
/// lock file is there and free (the kernel released it), or there is none and `path` is
/// older than `grace` (a writer that never made one, or has not made it yet).
pub fn abandoned(path: &Path, lock: &Path, grace: Duration) -> bool {
    if lock.exists() {
        return !held_elsewhere(lock);
    }
    older_than(path, grace)
}

/// Remove the work directories `<parent>/.tmp-…` of writers that are gone: a lock file
/// the kernel released, or (an older hunkgen's, without one) older than an hour; and
/// lock files left without their directory.
pub fn sweep_dead_work(parent: &Path) {
    let prefix = WORK_PREFIX;
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.starts_with(prefix) {
            continue;
        }
        let path = e.path();
        if name.ends_with(".lock") || name.ends_with(".lock.new") {
            let dir = parent.join(name.trim_end_matches(".new").trim_end_matches(".lock"));
            // A `.lock.new` is unlocked for a moment after its writer creates it (before
            // `flock`): only an old one is a dead writer's (another thread of this
            // process, or another process, may be reserving right now).
            if !dir.exists() && dead_temporary(&path) {
                let _ = std::fs::remove_file(&path);
            }
            continue;
        }
        let lock = parent.join(format!("{name}.lock"));
        if abandoned(&path, &lock, UNLOCKED_GRACE) {
            let _ = std::fs::remove_dir_all(&path);
            let _ = std::fs::remove_file(&lock);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_and_told_who_holds_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (out, first) = {
            let out = dir.path().join("out");
            (out.clone(), OutputLock::acquire(&out).expect("first"))
        };
        assert_eq!(first.path(), dir.path().join(".out.lock"));
        // flock locks belong to open file descriptions: a second open is a second holder.
        match OutputLock::acquire(&out) {
            Err(LockError::Held(h)) => {
                assert!(
                    h.holder
                        .starts_with(&format!("pid {} on ", std::process::id())),
                    "{h:?}"
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(held_elsewhere(first.path()));
        drop(first);
        // Another test's child, forked while `first` was open, may share its lock until
        // its exec: free within moments, not necessarily at once.
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while held_elsewhere(&dir.path().join(".out.lock")) {
            assert!(std::time::Instant::now() < deadline, "the lock stayed held");
            std::thread::sleep(Duration::from_millis(10));
        }
        OutputLock::acquire(&out).expect("free again");
    }

    #[test]
    fn a_lock_whose_recorded_holder_is_dead_is_waited_for_not_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out");
        // A pid no process has (above the kernel's pid_max), as a killed command's note
        // names it: no process is started here.
        let pid_max: u64 = std::fs::read_to_string("/proc/sys/kernel/pid_max")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(4_194_304);
        let dead = pid_max + 1;
        // The lock held by another file description (the killed command's forked child
        // that has not finished dying), its note naming the dead command.
        let lock = lock_path(&out);
        let mut held = File::create(&lock).expect("lock file");
        assert!(try_exclusive(&held).expect("flock"));
        writeln!(held, "pid {dead} on {} (hunkgen validate)", host_name()).expect("note");
        let letgo = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            drop(held);
        });
        let start = std::time::Instant::now();
        let got = OutputLock::acquire(&out);
        letgo.join().expect("thread");
        assert!(got.is_ok(), "{got:?}");
        assert!(start.elapsed() >= Duration::from_millis(250));
        // A note naming a live process (this one) is refused at once.
        drop(got);
        let mut live = File::options().write(true).open(&lock).expect("open");
        // Another test's child, forked while `got` was open, may share its lock for the
        // moment until its exec (the very case this module waits out).
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while !try_exclusive(&live).expect("flock") {
            assert!(std::time::Instant::now() < deadline, "the lock stayed held");
            std::thread::sleep(Duration::from_millis(10));
        }
        live.set_len(0).expect("truncate");
        writeln!(
            live,
            "pid {} on {} (hunkgen build)",
            std::process::id(),
            host_name()
        )
        .expect("note");
        let start = std::time::Instant::now();
        assert!(matches!(OutputLock::acquire(&out), Err(LockError::Held(_))));
        assert!(start.elapsed() < DEAD_HOLDER_GRACE);
        // Another host's dead-looking pid is never judged from here.
        assert!(!recorded_holder_is_dead(&format!(
            "pid {dead} on another-host (hunkgen build)"
        )));
        assert!(recorded_holder_is_dead(&format!(
            "pid {dead} on {} (hunkgen build)",
            host_name()
        )));
    }

    #[test]
    fn a_killed_writers_work_directory_is_swept_and_a_live_ones_kept() {
        let parent = tempfile::tempdir().expect("tempdir");
        let p = parent.path();
        // A killed writer: its lock file is there, nobody holds it.
        let dead = p.join(".tmp-a-1-0-00000000");
        std::fs::create_dir_all(dead.join("deep")).expect("mkdir");
        std::fs::write(p.join(".tmp-a-1-0-00000000.lock"), "").expect("lock");
        // A lock file whose directory went (killed between the two removals).
        std::fs::write(p.join(".tmp-b-2-0-00000000.lock"), "").expect("lock");
        // An older hunkgen's directory, no lock file, just made: kept.
        let young = p.join(".tmp-c-3-0");
        std::fs::create_dir(&young).expect("mkdir");
        // A staging lock file another thread has just created and not yet locked: kept;
        // one a writer killed in that moment left long ago: removed.
        std::fs::write(p.join(".tmp-d-4-0-00000000.lock.new"), "").expect("staging");
        let stale = std::fs::File::create(p.join(".tmp-e-5-0-00000000.lock.new")).expect("old");
        let long_ago = std::time::SystemTime::now() - Duration::from_secs(600);
        stale.set_modified(long_ago).expect("mtime");
        // A live writer, and something else.
        let live = WorkDir::reserve(p, "live").expect("reserve");
        std::fs::create_dir(live.path()).expect("mkdir");
        let other = p.join("finished");
        std::fs::create_dir(&other).expect("mkdir");
        sweep_dead_work(p);
        let mut left: Vec<String> = std::fs::read_dir(p)
            .expect("read")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let live_name = live
            .path()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        assert_eq!(
            left,
            [
                ".tmp-c-3-0".to_string(),
                ".tmp-d-4-0-00000000.lock.new".to_string(),
                live_name.clone(),
                format!("{live_name}.lock"),
                "finished".into()
            ]
        );
        drop(live);
        let left = std::fs::read_dir(p).expect("read").count();
        assert_eq!(left, 3, "the guard removes its directory and lock");
    }
}
