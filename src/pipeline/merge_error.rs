//! Why shards could not be merged, for every kind of shard: the build merge, the
//! validation merge and the dispatching `merge` all answer with it.

use crate::dataset::DatasetError;
use crate::recipe::open::OpenError;
use crate::shard::ShardSetError;
use std::path::PathBuf;

/// Why shards could not be merged: one line naming the shard and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// The shards are not one complete set, or a shard's file cannot be read.
    #[error("merge: {0}")]
    Shards(#[from] ShardSetError),
    /// A shard's dataset files, or the output, cannot be read or written.
    #[error("merge: {0}")]
    Dataset(#[from] DatasetError),
    /// A build shard has no dataset card.
    #[error("merge: {}: no dataset.yaml (not a complete shard)", dir.display())]
    NoCard {
        /// The shard directory.
        dir: PathBuf,
    },
    /// A build shard's recipe cannot be read.
    #[error("merge: {}: the shard's recipe: {source}", dir.display())]
    Recipe {
        /// The shard directory.
        dir: PathBuf,
        /// What is wrong with the recipe.
        source: crate::recipe::RecipeError,
    },
    /// A build shard's dataset cannot be opened otherwise.
    #[error("merge: {0}")]
    Open(#[source] OpenError),
    /// An id a build shard was assigned is neither kept nor rejected.
    #[error("merge: {}: `{id}` was assigned to shard {shard} but is neither kept nor rejected", dir.display())]
    Unaccounted {
        /// The shard directory.
        dir: PathBuf,
        /// The id.
        id: String,
        /// The shard.
        shard: crate::shard::Shard,
    },
    /// The build shards' assigned ids do not add up to the build's.
    #[error("merge: the shards account for {accounted} ids but the build has {total}")]
    Accounting {
        /// Ids the shards account for.
        accounted: usize,
        /// Ids of the build.
        total: usize,
    },
    /// A line of a build shard's not-counted file is not an instance.
    #[error("merge: {}:{line}: not an instance: {source}", path.display())]
    NotCounted {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The parse error.
        source: serde_json::Error,
    },
    /// Evaluation shards cannot be merged.
    #[error("merge: {0}")]
    Evaluation(#[source] crate::evaluate::score::EvaluateError),
    /// Run shards cannot be merged.
    #[error("merge: {0}")]
    Run(#[source] crate::run::RunAgentError),
}
