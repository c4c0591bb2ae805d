//! Locks that die with their process: `flock(2)` on a lock file, released by the kernel
//! when the holder exits or is killed, so a SIGKILLed command never leaves a lock that
//! blocks the next one.
//!
//! [`OutputLock`] keeps two commands from writing one output directory at once (a
//! second `build` into the same dataset is refused, not interleaved);
//! [`held_elsewhere`] tells a sweeper whether the process that made a temporary file is
//! still at work on it.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

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

/// Whether a live process holds the lock on `path` (a file it created and locked); a
/// file that is gone or cannot be opened counts as held (leave it alone).
pub fn held_elsewhere(path: &Path) -> bool {
    match File::open(path) {
        Ok(f) => !matches!(try_exclusive(&f), Ok(true)),
        Err(_) => true,
    }
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
        if !try_exclusive(&file).map_err(io)? {
            let mut holder = String::new();
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
        assert!(!held_elsewhere(&dir.path().join(".out.lock")));
        OutputLock::acquire(&out).expect("free again");
    }
}
