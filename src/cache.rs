//! A content-addressed cache on disk: environments and test results keyed by the hash of
//! what produced them, so re-validation is incremental and an interrupted build resumes.
//!
//! Writes go to a unique temporary name and are renamed into place, so concurrent writers
//! (threads, processes, machines sharing the directory) never corrupt an entry and never
//! wait for each other; the last rename wins with identical content. Each entry carries
//! the SHA-256 of its payload, checked on every read: a truncated or corrupted entry is
//! reported once (one warning line naming its key), removed and read as a miss, so what
//! it held is made again; it is never used as a result.

use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// A cache directory (`<dir>/<2 hex>/<62 hex>` per entry).
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

/// A key: the SHA-256 of everything that determines the value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key(String);

impl Key {
    /// Hash the parts in order, each length-prefixed so `("ab","c")` ≠ `("a","bc")`.
    pub fn of(parts: &[&[u8]]) -> Key {
        let mut h = Sha256::new();
        for p in parts {
            h.update((p.len() as u64).to_le_bytes());
            h.update(p);
        }
        Key(hex(&h.finalize()))
    }

    /// The hex digest.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

const MAGIC: &[u8] = b"hunkgen-cache 1 ";

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Cache roots whose temporary files of dead writers this process has swept.
static SWEPT: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

/// Keys whose entry failed its check in this process: each is reported once.
static REPORTED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// The warning for a bad entry, once per key and process (on stderr, like every warning
/// of a command: the run goes on and makes the entry again).
fn report_bad(key: &Key, path: &Path, len: usize) {
    let first = REPORTED
        .lock()
        .map(|mut seen| seen.insert(key.0.clone()))
        .unwrap_or(true);
    if first {
        eprintln!("{}", bad_entry_warning(key, path, len));
    }
}

/// The one line that reports a bad entry.
fn bad_entry_warning(key: &Key, path: &Path, len: usize) -> String {
    format!(
        "warning: cache entry {} ({}, {len} bytes) fails its SHA-256 check (truncated or corrupted): not used, made again",
        key.0,
        path.display()
    )
}

impl Cache {
    /// A cache rooted at `dir` (created on first write).
    pub fn new(dir: impl Into<PathBuf>) -> Cache {
        Cache { dir: dir.into() }
    }

    /// The root directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, key: &Key) -> PathBuf {
        self.dir.join(&key.0[..2]).join(&key.0[2..])
    }

    /// The payload stored under `key`, or `None` for a miss (absent, truncated or
    /// corrupted — a bad entry is reported once, and removed so the next writer
    /// replaces it).
    pub fn get(&self, key: &Key) -> Option<Vec<u8>> {
        self.checked(key).map(|bytes| bytes[HEADER..].to_vec())
    }

    /// The SHA-256 (hex) of the payload stored under `key`, checked as [`Cache::get`]
    /// checks it, for a caller that only needs to know the entry is still the one it
    /// read.
    pub fn sum(&self, key: &Key) -> Option<String> {
        self.checked(key).map(|bytes| recorded_sum(&bytes))
    }

    /// [`Cache::get`] and [`Cache::sum`] from one read of the entry.
    pub fn get_with_sum(&self, key: &Key) -> Option<(Vec<u8>, String)> {
        self.checked(key)
            .map(|bytes| (bytes[HEADER..].to_vec(), recorded_sum(&bytes)))
    }

    /// The whole entry under `key` once its checksum holds; a bad entry is reported
    /// once and removed.
    fn checked(&self, key: &Key) -> Option<Vec<u8>> {
        let path = self.path(key);
        let bytes = std::fs::read(&path).ok()?;
        if decode(&bytes).is_none() {
            report_bad(key, &path, bytes.len());
            let _ = std::fs::remove_file(&path);
            return None;
        }
        Some(bytes)
    }

    /// Store `payload` under `key` atomically (temporary file, fsync, rename). The
    /// temporary file is locked (`flock`) from before it has its name until it is renamed,
    /// so the first write of a process can remove those of writers that were killed
    /// (their lock is free) and never one a live writer has just made.
    pub fn put(&self, key: &Key, payload: &[u8]) -> std::io::Result<()> {
        let path = self.path(key);
        let dir = path.parent().unwrap_or(&self.dir);
        std::fs::create_dir_all(dir)?;
        self.sweep_once();
        let tmp = dir.join(format!(
            ".{}.{}-{}-{}",
            &key.0[2..10],
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed),
            thread_tag()
        ));
        let result = (|| {
            let mut f = crate::lock::create_locked(&tmp)?;
            f.write_all(MAGIC)?;
            f.write_all(hex(&Sha256::digest(payload)).as_bytes())?;
            f.write_all(b"\n")?;
            f.write_all(payload)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result
    }
}

impl Cache {
    /// Remove, once per process and root, the temporary files (`.<key>.<pid>-…`) of
    /// writers that died before their rename.
    fn sweep_once(&self) {
        let first = SWEPT
            .lock()
            .map(|mut s| s.insert(self.dir.clone()))
            .unwrap_or(false);
        if !first {
            return;
        }
        let Ok(subdirs) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for sub in subdirs.flatten() {
            let Ok(files) = std::fs::read_dir(sub.path()) else {
                continue;
            };
            for f in files.flatten() {
                let temporary = f.file_name().to_string_lossy().starts_with('.');
                if temporary && crate::lock::dead_temporary(&f.path()) {
                    let _ = std::fs::remove_file(f.path());
                }
            }
        }
    }
}

fn thread_tag() -> String {
    format!("{:?}", std::thread::current().id())
        .chars()
        .filter(char::is_ascii_digit)
        .collect()
}

/// Bytes before an entry's payload: the magic, 64 hex digits, a newline.
const HEADER: usize = MAGIC.len() + 65;

/// The checksum the header of a checked entry records.
fn recorded_sum(entry: &[u8]) -> String {
    String::from_utf8_lossy(&entry[MAGIC.len()..HEADER - 1]).into_owned()
}

fn decode(bytes: &[u8]) -> Option<&[u8]> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let (sum, payload) = (rest.get(..64)?, rest.get(65..)?);
    (rest.get(64) == Some(&b'\n') && hex(&Sha256::digest(payload)).as_bytes() == sum)
        .then_some(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corruption_reads_as_a_miss() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = Cache::new(dir.path());
        let key = Key::of(&[b"tree", b"env", b"cmd"]);
        assert_ne!(key, Key::of(&[b"tre", b"eenv", b"cmd"]));
        assert_eq!(cache.get(&key), None);
        cache.put(&key, b"{\"ok\":true}").expect("put");
        assert_eq!(cache.get(&key).as_deref(), Some(&b"{\"ok\":true}"[..]));
        // Truncate the entry: a miss, and the file is gone.
        let path = cache.path(&key);
        let bytes = std::fs::read(&path).expect("entry");
        std::fs::write(&path, &bytes[..bytes.len() - 3]).expect("truncate");
        assert_eq!(cache.get(&key), None);
        assert!(!path.exists());
        // Flip a payload byte: also a miss.
        cache.put(&key, b"payload").expect("put");
        let mut bytes = std::fs::read(&path).expect("entry");
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&path, &bytes).expect("corrupt");
        assert_eq!(cache.get(&key), None);
    }

    #[test]
    fn the_recorded_sum_is_the_payloads() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = Cache::new(dir.path());
        let key = Key::of(&[b"s"]);
        assert_eq!(cache.sum(&key), None);
        cache.put(&key, b"payload").expect("put");
        assert_eq!(cache.sum(&key), Some(hex(&Sha256::digest(b"payload"))));
        cache.put(&key, b"other").expect("put");
        assert_eq!(cache.sum(&key), Some(hex(&Sha256::digest(b"other"))));
        assert_eq!(
            cache.get_with_sum(&key),
            Some((b"other".to_vec(), hex(&Sha256::digest(b"other"))))
        );
        // A payload that no longer matches its header: a miss, and the entry is gone.
        let path = cache.path(&key);
        let mut bytes = std::fs::read(&path).expect("entry");
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&path, bytes).expect("flip");
        assert_eq!(cache.sum(&key), None);
        assert!(!path.exists());
    }

    #[test]
    fn a_bad_entry_is_reported_by_key_once() {
        let key = Key::of(&[b"k"]);
        let line = bad_entry_warning(&key, Path::new("/c/ab/cd"), 7);
        assert!(line.starts_with("warning: cache entry "), "{line}");
        assert!(line.contains(key.as_str()) && line.contains("/c/ab/cd, 7 bytes"));
        assert!(!line.contains('\n'));
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = Cache::new(dir.path());
        cache.put(&key, b"payload").expect("put");
        std::fs::write(cache.path(&key), b"hunkgen-cache 1 ").expect("truncate");
        assert_eq!(cache.get(&key), None);
        assert!(REPORTED.lock().expect("lock").contains(key.as_str()));
    }

    #[test]
    fn concurrent_writers_of_one_key_never_corrupt_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = Cache::new(dir.path());
        let key = Key::of(&[b"same"]);
        let payload = vec![7u8; 256 * 1024];
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..10 {
                        cache.put(&key, &payload).expect("put");
                        if let Some(got) = cache.get(&key) {
                            assert_eq!(got, payload);
                        }
                    }
                });
            }
        });
        assert_eq!(cache.get(&key), Some(payload));
        let leftovers = std::fs::read_dir(cache.path(&key).parent().expect("dir"))
            .expect("ls")
            .count();
        assert_eq!(leftovers, 1, "only the entry remains");
    }

    #[test]
    fn a_killed_writers_temporary_file_goes_at_the_next_write() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = Cache::new(dir.path());
        let key = Key::of(&[b"a"]);
        let sub = cache.path(&key).parent().expect("dir").to_path_buf();
        std::fs::create_dir_all(&sub).expect("mkdir");
        // A writer that died: its file is there, unlocked. A live one holds its lock.
        let dead = sub.join(".0123abcd.99999-0-1");
        std::fs::write(&dead, "half").expect("write");
        let live = sub.join(".4567cdef.1-0-1");
        let held = std::fs::File::create(&live).expect("create");
        assert!(crate::lock::try_exclusive(&held).expect("flock"));
        // Staging names: one a writer is locking now (young, unlocked), one a writer
        // killed in that window left long ago.
        let locking = sub.join(".89abcdef.2-0-1.new");
        std::fs::write(&locking, "").expect("write");
        let stale = sub.join(".fedcba98.3-0-1.new");
        let old = std::fs::File::create(&stale).expect("create");
        let long_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(600);
        old.set_modified(long_ago).expect("mtime");
        cache.put(&key, b"x").expect("put");
        assert!(!dead.exists(), "the dead writer's file is gone");
        assert!(live.exists(), "the live writer's file is kept");
        assert!(locking.exists(), "a writer's fresh staging file is kept");
        assert!(!stale.exists(), "an old staging file is gone");
    }
}
