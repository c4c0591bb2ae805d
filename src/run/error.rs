//! Why one agent run could not be made (a sandbox error, recorded on its row).

use std::path::PathBuf;

/// Why preparing, running or collecting one instance's agent run failed; the message is
/// the run record's `detail` for a sandbox error.
#[derive(Debug, thiserror::Error)]
pub enum ExecuteError {
    /// A directory or file of the run cannot be created or written.
    #[error("{what} {}: {source}", path.display())]
    Io {
        /// `cannot create` or `cannot write`.
        what: &'static str,
        /// The directory or file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The dataset holds no state of the kind and scenario asked for.
    #[error("no {state}-{scenario} state of `{instance}` in the dataset ({} missing; build it with `states:` in the recipe)", repo.display())]
    NoState {
        /// The instance.
        instance: String,
        /// The state kind's name (`novel`).
        state: &'static str,
        /// The scenario's name (`best`).
        scenario: &'static str,
        /// The state's repository directory looked for.
        repo: PathBuf,
    },
    /// The state cannot be copied into the working directory.
    #[error("cannot copy the state into {}: {source}", work.display())]
    CopyState {
        /// The working directory.
        work: PathBuf,
        /// Why.
        #[source]
        source: crate::dataset::DatasetError,
    },
    /// The agent's working copy (a state, or a Defects4J bug's buggy version) cannot
    /// be made.
    #[error("{reason}")]
    WorkingCopy {
        /// The instance.
        instance: String,
        /// Why, as the working-copy step said it.
        reason: String,
    },
    /// The working directory cannot be snapshot before the agent runs.
    #[error("cannot snapshot the working directory: {0}")]
    Snapshot(#[source] crate::git::GitError),
    /// The sandbox could not run the agent.
    #[error(transparent)]
    Sandbox(#[from] crate::validate::runner::RunError),
    /// The working directory cannot be diffed against its snapshot.
    #[error("cannot diff the working directory: {0}")]
    Diff(#[source] crate::git::GitError),
}
