//! A dataset changes as a whole: a build writes into a temporary sibling directory and
//! swaps it in at the end, so until then the previous dataset stays intact, and an
//! interrupted build (Ctrl-C, a kill, a full disk) never leaves a mix of old and new.

use super::{io_err, read_card, DatasetError};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Temporary directories of builds in progress, removed by the Ctrl-C handler.
static IN_PROGRESS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Set, under the `IN_PROGRESS` lock, when a writer of this process has swapped its
/// dataset in, so the Ctrl-C handler can tell which dataset is in place.
static COMMITTED: AtomicBool = AtomicBool::new(false);

/// Remove the temporary directories of builds in progress (for the Ctrl-C handler; the
/// datasets themselves are untouched). Waits for a swap under way to finish, and returns
/// whether a dataset of this process had already been swapped in.
pub fn abandon_all() -> bool {
    let guard = IN_PROGRESS.lock();
    // Read while the lock is held: a swap is either wholly before this or after it.
    let committed = COMMITTED.load(Ordering::SeqCst);
    let dirs = guard
        .map(|mut v| std::mem::take(&mut *v))
        .unwrap_or_default();
    for d in dirs {
        let _ = std::fs::remove_dir_all(d);
    }
    committed
}

/// A dataset being built: files go into a hidden sibling of the output directory, and
/// [`DatasetWriter::commit`] exchanges it with the output directory in one step.
#[derive(Debug)]
pub struct DatasetWriter {
    output: PathBuf,
    tmp: PathBuf,
    /// Held until the writer is gone: a second writer of the output is refused.
    _lock: crate::lock::OutputLock,
}

impl DatasetWriter {
    /// Check that `output` may receive dataset `name` and create the temporary sibling.
    ///
    /// Refused: an output path that is a file; a directory that holds another recipe's
    /// dataset, or something that is not a dataset, unless `force`; an output another
    /// process is writing (its lock, [`super::lock_output`], is held).
    pub fn begin(output: &Path, name: &str, force: bool) -> Result<Self, DatasetError> {
        let lock = super::lock_output(output)?;
        let refuse = |what: String| DatasetError::Refused {
            path: output.to_path_buf(),
            what,
        };
        if output.exists() && !output.is_dir() {
            return Err(refuse(
                "exists and is not a directory (expected a dataset directory to create or replace)"
                    .into(),
            ));
        }
        if output.is_dir() && !force {
            match read_card(output) {
                Ok(Some(card)) if card.name != name => {
                    return Err(refuse(format!(
                        "holds dataset `{}` from another recipe ({}); pass --force to replace it, or choose another --output",
                        card.name, card.recipe_file
                    )))
                }
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => {
                    let empty = std::fs::read_dir(output)
                        .map(|mut d| d.next().is_none())
                        .unwrap_or(false);
                    if !empty {
                        return Err(refuse(
                            "exists and is not a hunkgen dataset (no readable dataset.yaml); pass --force to replace it, or choose another --output".into(),
                        ));
                    }
                }
            }
        }
        let parent = match output.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(io_err(&parent))?;
        let base = output
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "dataset".into());
        remove_stale(&parent, &base);
        let tmp = parent.join(format!(".{base}.building-{}", std::process::id()));
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp).map_err(io_err(&tmp))?;
        }
        std::fs::create_dir(&tmp).map_err(io_err(&tmp))?;
        if let Ok(mut v) = IN_PROGRESS.lock() {
            v.push(tmp.clone());
        }
        Ok(DatasetWriter {
            output: output.to_path_buf(),
            tmp,
            _lock: lock,
        })
    }

    /// The output directory (holding the previous dataset, if any, until the commit).
    pub fn output(&self) -> &Path {
        &self.output
    }

    /// The directory being written (not yet visible at the output path).
    pub fn dir(&self) -> &Path {
        &self.tmp
    }

    /// Write one file of the new dataset (`report/tables.md` creates `report/`).
    pub fn write(&self, relative: &str, bytes: &[u8]) -> Result<(), DatasetError> {
        let path = self.tmp.join(relative);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        }
        std::fs::write(&path, bytes).map_err(io_err(&path))
    }

    /// Make the new dataset the output directory in one step; the old one is removed.
    pub fn commit(self) -> Result<(), DatasetError> {
        sync_dir(&self.tmp);
        // The swap happens under the lock the Ctrl-C handler takes, so the handler sees
        // either the old dataset with this build abandoned, or the new one in place.
        let mut guard = IN_PROGRESS.lock().ok();
        let had_old = self.output.exists();
        let result = if had_old {
            exchange(&self.tmp, &self.output)
        } else {
            std::fs::rename(&self.tmp, &self.output)
        };
        if result.is_ok() {
            COMMITTED.store(true, Ordering::SeqCst);
        }
        if let Some(v) = guard.as_mut() {
            v.retain(|p| p != &self.tmp);
        }
        drop(guard);
        if result.is_ok() && had_old {
            // The old dataset now sits at the temporary path (a kill here leaves it for
            // the next build to sweep).
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
        result.map_err(io_err(&self.output))
    }
}

impl Drop for DatasetWriter {
    /// A build that fails before commit leaves nothing behind.
    fn drop(&mut self) {
        if self.tmp.exists() {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}

/// Remove temporary siblings left by builds that were killed (their process is gone).
fn remove_stale(parent: &Path, base: &str) {
    let prefix = format!(".{base}.building-");
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix(&prefix) else {
            continue;
        };
        let alive = pid
            .parse::<u32>()
            .is_ok_and(|p| Path::new(&format!("/proc/{p}")).exists());
        if !alive {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

fn sync_dir(dir: &Path) {
    if let Ok(f) = std::fs::File::open(dir) {
        let _ = f.sync_all();
    }
}

/// Atomically exchange two directories (Linux `renameat2(RENAME_EXCHANGE)`); where the
/// file system cannot, fall back to two renames (a crash between them leaves the old
/// dataset under a hidden name, never a mix).
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let ca = CString::new(a.as_os_str().as_bytes())?;
        let cb = CString::new(b.as_os_str().as_bytes())?;
        // SAFETY: both arguments are valid NUL-terminated paths that outlive the call.
        let rc = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                ca.as_ptr(),
                libc::AT_FDCWD,
                cb.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        if rc == 0 {
            return Ok(());
        }
    }
    let old = a.with_extension("old");
    std::fs::rename(b, &old)?;
    std::fs::rename(a, b)?;
    std::fs::rename(&old, a)
}
