//! Results of deterministic build steps kept on disk across builds, so a warm rebuild
//! (same repository, recipe and cache) redoes no work: a commit examined by the walk, an
//! instance's annotation, an instance's validation verdict from its cached runs.
//!
//! Every key starts with [`BUILD_ID`], the hash of the sources the binary was compiled
//! from, then names its step and everything the step reads; a changed rule, profile,
//! patch or hunkgen gives another key, never a stale value. Entries live in the cache
//! (`<cache>/memo`) with its checks: a bad entry reads as a miss and is made again.
//! `--no-cache` reads none of them (and still writes fresh ones).

use crate::cache::{Cache, Key};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::path::PathBuf;

/// Hash of the sources this binary was built from (`build.rs`).
pub const BUILD_ID: &str = env!("HUNKGEN_BUILD_ID");

/// A memo directory, and whether this build may answer from it.
#[derive(Debug, Clone)]
pub struct Memo {
    cache: Cache,
    read: bool,
}

impl Memo {
    /// The memo under `cache_dir` (`<cache_dir>/memo`); `read: false` (`--no-cache`)
    /// makes every lookup a miss.
    pub fn new(cache_dir: impl Into<PathBuf>, read: bool) -> Memo {
        Memo {
            cache: Cache::new(cache_dir.into().join("memo")),
            read,
        }
    }

    /// The key of `step`'s result for `parts` (everything the step reads), under this
    /// binary's [`BUILD_ID`].
    pub fn key(step: &str, parts: &[&[u8]]) -> Key {
        let mut all: Vec<&[u8]> = Vec::with_capacity(parts.len() + 2);
        all.push(BUILD_ID.as_bytes());
        all.push(step.as_bytes());
        all.extend_from_slice(parts);
        Key::of(&all)
    }

    /// The value stored under `key`; `None` for a miss, a value of another shape, or a
    /// memo this build may not read.
    pub fn get<T: DeserializeOwned>(&self, key: &Key) -> Option<T> {
        if !self.read {
            return None;
        }
        serde_json::from_slice(&self.cache.get(key)?).ok()
    }

    /// Store `value` under `key`. A failed write only costs the next build the work.
    pub fn put<T: Serialize>(&self, key: &Key, value: &T) {
        if let Ok(bytes) = serde_json::to_vec(value) {
            let _ = self.cache.put(key, &bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_comes_back_only_under_its_key_and_only_when_reading() {
        let dir = tempfile::tempdir().expect("tempdir");
        let memo = Memo::new(dir.path(), true);
        let key = Memo::key("step", &[b"a", b"b"]);
        assert_ne!(key, Memo::key("other step", &[b"a", b"b"]));
        assert_ne!(key, Memo::key("step", &[b"ab"]));
        assert_eq!(memo.get::<Vec<u32>>(&key), None);
        memo.put(&key, &vec![1u32, 2, 3]);
        assert_eq!(memo.get::<Vec<u32>>(&key), Some(vec![1, 2, 3]));
        // Another shape reads as a miss, not as an error.
        assert_eq!(memo.get::<String>(&key), None);
        // --no-cache: nothing is read.
        assert_eq!(Memo::new(dir.path(), false).get::<Vec<u32>>(&key), None);
        assert!(dir.path().join("memo").is_dir());
        assert_eq!(BUILD_ID.len(), 32);
    }
}
