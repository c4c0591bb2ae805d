//! Why one run of the validate stage could not be made: its command, working copy or
//! patches (git bases), its environment, or the Defects4J checkout and run directory.

use crate::validate::apply::DirApplyError;
use crate::validate::defects4j::D4jError;
use crate::validate::env::EnvError;
use std::path::PathBuf;
use std::sync::Arc;

/// Why a run could not be made; the message becomes the instance's rejection detail
/// or the evaluation row's infrastructure note.
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    /// A suite without `command` whose environment kind has no default one.
    #[error(
        "suite `{suite}`: no `command`, and `env: {kind}` has none of its own (only `java` has)"
    )]
    NoCommand {
        /// The suite.
        suite: String,
        /// The kind of its environment.
        kind: &'static str,
    },
    /// A suite's environment cannot be built (shared: built once per pass).
    #[error("environment `{suite}`: {source}")]
    Env {
        /// The suite.
        suite: String,
        /// Why.
        #[source]
        source: Arc<EnvError>,
    },
    /// The kind's default test command cannot be made.
    #[error(transparent)]
    DefaultCommand(EnvError),
    /// The temporary working copy cannot be created.
    #[error("cannot create a working copy: {0}")]
    WorkingCopy(#[source] std::io::Error),
    /// The base tree cannot be exported into the working copy.
    #[error("{}", with_cause(.0))]
    Export(#[source] crate::git::GitError),
    /// The base patch, the test patch or the patch does not apply exactly.
    #[error("{name} does not apply: {source}")]
    Patch {
        /// `the base patch`, `test_patch` or `patch`.
        name: &'static str,
        /// Where and why.
        #[source]
        source: DirApplyError,
    },
    /// A system's patch does not apply, even with 3-way merge or fuzz.
    #[error("the predicted patch does not apply: {0}")]
    Predicted(#[source] DirApplyError),
    /// Defects4J failed (its handle, checkout or test).
    #[error(transparent)]
    D4j(#[from] D4jError),
    /// A Defects4J project directory is missing from the framework.
    #[error("Defects4J is not installed: {} is missing", path.display())]
    D4jProjectMissing {
        /// `framework/projects/<P>`.
        path: PathBuf,
    },
    /// A file or directory of the cache cannot be read or made.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A run directory cannot be made in the cache.
    #[error("cannot create a run directory in {}: {source}", dir.display())]
    RunDir {
        /// The cache's `runs` directory.
        dir: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A cached checkout or build directory cannot be copied.
    #[error("cannot copy {} to {}: {source}", from.display(), to.display())]
    Copy {
        /// The cached checkout or build directory.
        from: PathBuf,
        /// Where the copy goes.
        to: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The cache's build directory was not compiled (no mark), though it was just made.
    #[error("{}: not a compiled build directory of {version}", dir.display())]
    NotCompiled {
        /// The build directory.
        dir: PathBuf,
        /// The version, e.g. `Cli-5b`.
        version: String,
    },
    /// The cache's checkout is not of the version asked for.
    #[error("{}: not a checkout of {version}", dir.display())]
    NotACheckout {
        /// The checkout directory.
        dir: PathBuf,
        /// The version, e.g. `Cli-5b`.
        version: String,
    },
}

/// An error and, after a colon, its source (git's errors keep libgit2's reason there),
/// as a run's rejection detail shows it.
fn with_cause(e: &crate::git::GitError) -> String {
    match std::error::Error::source(e) {
        Some(src) => format!("{e}: {src}"),
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_suite_without_a_command_names_its_environment_kind() {
        let spec: crate::validate::env::EnvSpec =
            serde_json::from_str(r#"{"python": "auto"}"#).expect("spec");
        let e = StageError::NoCommand {
            suite: "py".into(),
            kind: spec.kind().name(),
        };
        assert_eq!(
            e.to_string(),
            "suite `py`: no `command`, and `env: python` has none of its own (only `java` has)"
        );
    }
}
