//! The local Maven repositories `maven: auto` resolves into: one per clone, JDK and
//! Maven (a *pool*), shared by every key of that clone.
//!
//! A key (the build files, JDK and Maven) changes whenever a pom does, and Apache poms
//! change at almost every commit (a version bump, a new developer, a plugin update),
//! while the artifacts they need mostly do not: on jsoup's history 45 candidates had 32
//! keys. A private repository per key was a full copy of the previous one plus what the
//! new poms added. A pool is one Maven local repository that holds many versions side
//! by side, as a developer's `~/.m2` does: each key's resolve run still runs (offline
//! against the pool first, online for what it lacks) and still decides the key's
//! environment, but it adds to the pool instead of copying it. A key's environment
//! links its `repository` to the pool, so its runs read the pool (read-only, offline).
//!
//! Runs resolve exact versions, so what other keys added is never picked instead of
//! what the run's own poms name; a version range or `LATEST` in a pom could be (none
//! of the measured histories has one), which is the price of sharing.

use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::super::{hex8, slug};

/// Where the pools live, in the environment cache.
pub(super) const POOLS_DIR: &str = ".pools";

/// A pool held for one resolve: its repository, and the lock that keeps other resolves
/// of the same clone, JDK and Maven out until this one is done.
pub(super) struct Pool {
    /// The Maven local repository (`<pool>/repository`).
    pub repository: PathBuf,
    _held: fs::File,
}

impl Pool {
    /// The pool of `repo` resolved `with` (its clone, JDK and Maven lines), created when
    /// new, locked until the returned value is dropped.
    pub fn hold(root: &Path, repo: &str, with: &str) -> std::io::Result<Pool> {
        let mut h = Sha256::new();
        h.update(b"hunkgen-maven-pool-v1\0");
        h.update(with.as_bytes());
        let dir = root
            .join(POOLS_DIR)
            .join(format!("{}-{}", slug(repo), hex8(h)));
        fs::create_dir_all(dir.join("repository"))?;
        // Absolute: environments link to it from elsewhere in the cache.
        let repository = fs::canonicalize(dir.join("repository"))?;
        let held = crate::lock::wait_exclusive(&dir.join(".lock"))?;
        Ok(Pool {
            repository,
            _held: held,
        })
    }

    /// Whether a resolve has put anything in it yet (else the seed, or the network,
    /// is where a resolve starts).
    pub fn filled(&self) -> bool {
        fs::read_dir(&self.repository)
            .map(|mut d| d.next().is_some())
            .unwrap_or(false)
    }
}

/// The pool an environment's `repository` links to; none for an environment with a
/// repository of its own (made before pools, or from a seed without one).
pub fn of_env(dir: &Path) -> Option<PathBuf> {
    let link = dir.join("repository");
    fs::symlink_metadata(&link)
        .ok()
        .filter(|m| m.file_type().is_symlink())?;
    fs::read_link(&link).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pool_per_clone_jdk_and_maven_and_an_environment_links_to_it() {
        let root = tempfile::tempdir().expect("tempdir");
        let a = Pool::hold(root.path(), "o/r", "/c\n11\nMaven 3.8.7\n").expect("pool");
        assert!(!a.filled());
        fs::write(a.repository.join("x"), "").expect("write");
        assert!(a.filled());
        let first = a.repository.clone();
        assert!(first.is_absolute());
        drop(a);
        let again = Pool::hold(root.path(), "o/r", "/c\n11\nMaven 3.8.7\n").expect("pool");
        assert_eq!(again.repository, first);
        drop(again);
        let other = Pool::hold(root.path(), "o/r", "/c\n17\nMaven 3.8.7\n").expect("pool");
        assert_ne!(other.repository, first);
        let env = root.path().join("env");
        fs::create_dir_all(&env).expect("mkdir");
        assert_eq!(of_env(&env), None);
        std::os::unix::fs::symlink(&first, env.join("repository")).expect("link");
        assert_eq!(of_env(&env), Some(first));
    }
}
