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
    /// `--with-tests`, and the dataset holds no such state with the golden tests.
    #[error("no {state}-{scenario}-tests state of `{instance}` in the dataset ({} missing): --with-tests needs states built with `states.golden_tests: present|both` in the recipe", dir.display())]
    NoTestsState {
        /// The instance.
        instance: String,
        /// The state kind's name (`novel`).
        state: &'static str,
        /// The scenario's name (`best`).
        scenario: &'static str,
        /// The directory not found (`…/<state>-<scenario>-tests`, or its `repo`).
        dir: PathBuf,
    },
    /// The dataset holds no such state, and the instance's Defects4J checkout cannot be
    /// used instead.
    #[error("no {state}-{scenario} state of `{instance}` in the dataset ({} missing; build it with `states:` in the recipe); no Defects4J checkout either: {why}", repo.display())]
    NoStateNoD4j {
        /// The instance.
        instance: String,
        /// The state kind's name (`novel`).
        state: &'static str,
        /// The scenario's name (`best`).
        scenario: &'static str,
        /// The state's repository directory looked for.
        repo: PathBuf,
        /// Why Defects4J is not available for the dataset.
        why: String,
    },
    /// The Defects4J checkout of the instance cannot be made.
    #[error(transparent)]
    D4jCheckout(#[from] crate::validate::stage::D4jEvalError),
    /// The Defects4J checkout cannot be copied into the working directory.
    #[error("cannot copy the checkout into {}: {source}", work.display())]
    CopyCheckout {
        /// The working directory.
        work: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
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
