//! What a Gradle tree and this machine say about its build, read offline: the version
//! the tree's wrapper asks for, and where a distribution of it is installed (the wrapper's
//! cache, `GRADLE_HOME`, `PATH`). `hunkgen init` reads it to say whether a Gradle
//! history can be validated here; `gradle: auto` (validate/env/gradle.rs) to decide.

use std::ffi::OsString;
use std::path::PathBuf;

/// Where a wrapper names its distribution, relative to the build's root.
pub const WRAPPER_PROPERTIES: &str = "gradle/wrapper/gradle-wrapper.properties";

/// The wrapper's properties of a build rooted at `workdir` (empty: the tree's root).
pub fn wrapper_at(workdir: &str) -> String {
    match workdir.trim_matches('/') {
        "" => WRAPPER_PROPERTIES.to_string(),
        w => format!("{w}/{WRAPPER_PROPERTIES}"),
    }
}

/// The Gradle version a wrapper's `distributionUrl` downloads
/// (`…/distributions/gradle-8.5-bin.zip` → `8.5`).
pub fn wrapper_version(properties: &str) -> Option<String> {
    let url = properties.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.trim() == "distributionUrl").then(|| v.trim().replace("\\:", ":"))
    })?;
    let file = url.rsplit('/').next()?;
    let v = file
        .strip_prefix("gradle-")?
        .strip_suffix(".zip")?
        .trim_end_matches("-bin")
        .trim_end_matches("-all");
    (!v.is_empty()).then(|| v.to_string())
}

/// A Gradle distribution found on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Its `bin/gradle`.
    pub launcher: PathBuf,
    /// Where it was found (wrapper cache, `GRADLE_HOME`, `PATH`).
    pub origin: &'static str,
}

/// The places a distribution is looked for, each with what it would hold.
pub struct Places {
    /// `$GRADLE_USER_HOME` (else `~/.gradle`).
    pub user_home: Option<PathBuf>,
    /// `$GRADLE_HOME`.
    pub gradle_home: Option<PathBuf>,
    /// `$PATH`.
    pub path: Option<OsString>,
}

impl Places {
    /// The places this process's environment names.
    pub fn from_env() -> Places {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        Places {
            user_home: std::env::var_os("GRADLE_USER_HOME")
                .map(PathBuf::from)
                .or_else(|| home.map(|h| h.join(".gradle"))),
            gradle_home: std::env::var_os("GRADLE_HOME").map(PathBuf::from),
            path: std::env::var_os("PATH"),
        }
    }

    /// A distribution of `version` (any, when the tree has no wrapper): the wrapper's
    /// cache first (`wrapper/dists/gradle-<v>-{bin,all}/<hash>/gradle-<v>/bin/gradle`),
    /// then `GRADLE_HOME`, then `PATH`; or what was looked at, for the one line.
    pub fn find(&self, version: Option<&str>) -> Result<Found, String> {
        let mut looked = Vec::new();
        if let (Some(home), Some(v)) = (&self.user_home, version) {
            for flavour in ["bin", "all"] {
                let dists = home.join(format!("wrapper/dists/gradle-{v}-{flavour}"));
                let found = std::fs::read_dir(&dists).ok().and_then(|d| {
                    d.flatten()
                        .map(|e| e.path().join(format!("gradle-{v}/bin/gradle")))
                        .find(|p| p.is_file())
                });
                if let Some(launcher) = found {
                    return Ok(Found {
                        launcher,
                        origin: "the wrapper's cache",
                    });
                }
                looked.push(dists.display().to_string());
            }
        }
        match &self.gradle_home {
            Some(h) if h.join("bin/gradle").is_file() => {
                return Ok(Found {
                    launcher: h.join("bin/gradle"),
                    origin: "GRADLE_HOME",
                })
            }
            Some(h) => looked.push(format!("GRADLE_HOME={}", h.display())),
            None => looked.push("GRADLE_HOME (unset)".into()),
        }
        let on_path = self.path.as_ref().and_then(|p| {
            std::env::split_paths(p)
                .map(|d| d.join("gradle"))
                .find(|g| g.is_file())
        });
        if let Some(launcher) = on_path {
            return Ok(Found {
                launcher,
                origin: "PATH",
            });
        }
        looked.push("gradle on PATH".into());
        Err(looked.join(", "))
    }
}
