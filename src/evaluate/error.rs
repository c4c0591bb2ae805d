//! Why an evaluation could not run at all ([`EvaluateError`]), and why one prediction's
//! state or patch could not be set up ([`ScoreError`], recorded on its row, not fatal).

use super::predictions::PredictionsError;
use crate::dataset::DatasetError;
use std::path::PathBuf;

/// Why an evaluation could not run at all (per-prediction problems are not errors).
#[derive(Debug, thiserror::Error)]
pub enum EvaluateError {
    /// The dataset cannot be read.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// The predictions cannot be read.
    #[error(transparent)]
    Predictions(#[from] PredictionsError),
    /// The shards are not one complete set, or a shard's manifest cannot be written.
    #[error(transparent)]
    Shards(#[from] crate::shard::ShardSetError),
    /// The dataset has no card, its recipe no longer loads, or it has no `validate:`.
    #[error(transparent)]
    Open(crate::recipe::open::OpenError),
    /// No prediction names an instance of the dataset.
    #[error("{}: none of its {count} prediction(s) names an instance of {} (predictions for another dataset?)", predictions.display(), dataset.display())]
    ForeignPredictions {
        /// The predictions file.
        predictions: PathBuf,
        /// How many predictions it holds.
        count: usize,
        /// The dataset.
        dataset: PathBuf,
    },
    /// The sandboxed runner cannot be set up.
    #[error("validate: {0}")]
    Runner(#[source] crate::validate::RunError),
    /// A file or directory cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The predictions file the shards scored is gone or changed.
    #[error("{}: missing or changed since the shards ran (merge reads the predictions where the shards read them)", predictions.display())]
    PredictionsChanged {
        /// The predictions file the shards read.
        predictions: PathBuf,
    },
    /// The shards' dataset has no card.
    #[error("{}: no dataset.yaml", dataset.display())]
    NoCard {
        /// The dataset directory.
        dataset: PathBuf,
    },
    /// A shard's `results.jsonl` has a line that is not a results row.
    #[error("{}:{line}: not a results row: {source}", path.display())]
    BadResultRow {
        /// The shard's `results.jsonl`.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The JSON error.
        #[source]
        source: serde_json::Error,
    },
    /// The localization predictions cannot be read.
    #[error(transparent)]
    Localizations(#[from] super::LocalizeError),
    /// `--only` names an instance the dataset does not have.
    #[error("{}: no instance `{id}` (--only)", dataset.display())]
    OnlyUnknown {
        /// The dataset.
        dataset: PathBuf,
        /// The id given.
        id: String,
    },
    /// No prediction is left once `--only` chose the instances.
    #[error("{}: no prediction names the --only instance(s) {ids}", predictions.display())]
    OnlyNone {
        /// The predictions file.
        predictions: PathBuf,
        /// The ids given, comma-separated.
        ids: String,
    },
    /// A prediction cannot be written for the official harness (one line, naming it).
    #[error("harness predictions: {0}")]
    Harness(String),
    /// A prediction's state could not be made for the official harness.
    #[error("harness predictions: {0}")]
    HarnessState(#[from] ScoreError),
    /// A localization prediction names an instance the dataset does not have.
    #[error("{}: instance `{instance}` is not in {}", file.display(), dataset.display())]
    UnknownInstance {
        /// The localization predictions file.
        file: PathBuf,
        /// The instance id.
        instance: String,
        /// The dataset.
        dataset: PathBuf,
    },
}

/// A dataset that cannot be opened: its own read error stays a dataset error.
impl From<crate::recipe::open::OpenError> for EvaluateError {
    fn from(e: crate::recipe::open::OpenError) -> Self {
        match e {
            crate::recipe::open::OpenError::Dataset(e) => EvaluateError::Dataset(e),
            other => EvaluateError::Open(other),
        }
    }
}

/// Why one prediction's state could not be made or its patch tried on it; the message
/// goes to the prediction's row.
#[derive(Debug, thiserror::Error)]
pub enum ScoreError {
    /// Evaluation applies patches to a git tree; the instance's base is not one.
    #[error("evaluation needs a git base tree")]
    NotGitBase,
    /// The scratch directory for the dry run cannot be made.
    #[error("{0}")]
    Scratch(#[source] std::io::Error),
    /// The state's tree cannot be exported.
    #[error(transparent)]
    Export(#[from] crate::git::GitError),
    /// The predicted patch does not apply, even with 3-way merge or fuzz.
    #[error(transparent)]
    Apply(#[from] crate::validate::apply::DirApplyError),
    /// The instance's golden patch cannot be parsed.
    #[error(transparent)]
    Golden(#[from] crate::states::StatesError),
    /// The dataset holds no Partial state of the instance.
    #[error(
        "no Partial state of `{instance}` in the dataset (build it with `states:` in the recipe)"
    )]
    NoPartial {
        /// The instance id.
        instance: String,
    },
}
