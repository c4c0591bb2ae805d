//! `env: gradle: auto`: a Gradle build per instance. Gradle publishes its distributions
//! only on services.gradle.org (never on Maven Central), so the kind first looks for
//! one already on the machine: the wrapper's version unpacked under
//! `$GRADLE_USER_HOME/wrapper/dists` (`~/.gradle` by default), `GRADLE_HOME`, or a
//! `gradle` on `PATH`. Without one, every instance is `build_tool_unavailable`, naming
//! the version its wrapper asks for and every place looked at: one line, never a
//! download. Running a found distribution (resolve once per key, `gradle --offline
//! test --tests …`) is not built yet, and is said the same way.

use std::path::{Path, PathBuf};

use super::kind::{InstanceEnv, InstanceTree, Kind};
use super::{EnvCache, EnvError};
use crate::validate::runner::Runner;

pub use crate::init::gradle::{wrapper_at, wrapper_version, Found, Places, WRAPPER_PROPERTIES};

/// `gradle: auto` as a spec: everything is read per instance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GradleAutoSpec;

/// The one line of an instance whose Gradle build cannot run here.
pub fn unavailable(repo: &str, version: Option<&str>, places: &Places) -> EnvError {
    let wanted = match version {
        Some(v) => format!("Gradle {v} (its wrapper's distributionUrl)"),
        None => "a Gradle distribution (the tree has no wrapper)".to_string(),
    };
    let why = match places.find(version) {
        Err(looked) => format!(
            "the tree builds with {wanted}, which is not on this machine (looked at: {looked}); \
             Gradle is published only on services.gradle.org, so hunkgen never downloads it: \
             unpack it there or set GRADLE_HOME"
        ),
        Ok(found) => format!(
            "the tree builds with {wanted}, found in {} ({}), but running Gradle builds is not \
             built into hunkgen yet",
            found.origin,
            found.launcher.display()
        ),
    };
    EnvError::BuildToolUnavailable {
        repo: repo.to_string(),
        why,
    }
}

impl Kind for GradleAutoSpec {
    fn name(&self) -> &'static str {
        "gradle"
    }

    fn absolutize(&mut self, _resolve: &dyn Fn(&Path) -> PathBuf) -> Result<(), String> {
        Ok(())
    }

    fn not_shared(&self, repo: &str) -> EnvError {
        unavailable(repo, None, &Places::from_env())
    }

    fn for_instance(
        &self,
        _cache: &EnvCache,
        _runner: &Runner,
        repo: &str,
        tree: &InstanceTree<'_>,
    ) -> Option<Result<InstanceEnv, EnvError>> {
        let version =
            crate::git::read_blob(tree.repo_path, tree.rev, &wrapper_at(tree.workdir), &[])
                .ok()
                .and_then(|b| wrapper_version(&String::from_utf8_lossy(&b)));
        Some(Err(unavailable(
            repo,
            version.as_deref(),
            &Places::from_env(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wrapper_names_its_version() {
        let p = "distributionBase=GRADLE_USER_HOME\n\
                 distributionUrl=https\\://services.gradle.org/distributions/gradle-8.5-bin.zip\n";
        assert_eq!(wrapper_version(p).as_deref(), Some("8.5"));
        let all = "distributionUrl=https://services.gradle.org/distributions/gradle-4.10.3-all.zip";
        assert_eq!(wrapper_version(all).as_deref(), Some("4.10.3"));
        assert_eq!(wrapper_version("zipStoreBase=GRADLE_USER_HOME\n"), None);
    }

    #[test]
    fn a_distribution_is_found_in_the_wrapper_cache_else_named_as_missing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let places = Places {
            user_home: Some(dir.path().to_path_buf()),
            gradle_home: None,
            path: Some(std::ffi::OsString::new()),
        };
        let e = unavailable("r", Some("8.5"), &places).to_string();
        assert!(
            e.starts_with("r: build_tool_unavailable: the tree builds with Gradle 8.5"),
            "{e}"
        );
        assert!(e.contains("wrapper/dists/gradle-8.5-bin"), "{e}");
        assert!(
            e.contains("GRADLE_HOME (unset)") && e.contains("never downloads"),
            "{e}"
        );
        assert!(!e.contains('\n'));
        let bin = dir
            .path()
            .join("wrapper/dists/gradle-8.5-bin/abc123/gradle-8.5/bin");
        std::fs::create_dir_all(&bin).expect("dirs");
        std::fs::write(bin.join("gradle"), "#!/bin/sh\n").expect("launcher");
        let found = places.find(Some("8.5")).expect("found");
        assert_eq!(found.origin, "the wrapper's cache");
        assert_eq!(found.launcher, bin.join("gradle"));
        // Another version is still missing.
        assert!(places.find(Some("7.6")).is_err());
    }
}
