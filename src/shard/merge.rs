//! `hunkgen merge`: one entry for every kind of shard. The kind comes from the shards'
//! manifests; each kind's merge writes what one machine writes.

use super::build::MergeSummary;
use super::{Kind, ShardSetError};
use crate::dataset::{open::OpenError, DatasetError};
use crate::evaluate::score::Evaluation;
use crate::validate::revalidate::MergedValidation;
use std::path::{Path, PathBuf};

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
        shard: super::Shard,
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

/// What a merge wrote, by the kind of its shards.
#[derive(Debug)]
pub enum Merged {
    /// Build shards, joined into a dataset.
    Build(MergeSummary),
    /// Evaluation shards, joined into one evaluation.
    Evaluation {
        /// The evaluation written (boxed: it holds every result row).
        evaluation: Box<Evaluation>,
        /// The hosts that ran the shards (sorted, distinct).
        hosts: Vec<String>,
    },
    /// Validate shards, joined into one validate.jsonl.
    Validation(MergedValidation),
    /// Run shards, joined into one run directory.
    Run {
        /// Instances merged.
        count: usize,
        /// The hosts that ran the shards (sorted, distinct).
        hosts: Vec<String>,
    },
}

/// Join shard directories of `build`, `validate`, `evaluate` or `run` into `output`:
/// recognise their kind (shards of different commands are refused) and merge them as
/// that command's merge does.
pub fn merge(output: &Path, shards: &[PathBuf], force: bool) -> Result<Merged, MergeError> {
    let kind = super::kind_of_all(shards)?;
    Ok(match kind {
        Kind::Build => Merged::Build(super::build::merge_build(output, shards, force)?),
        Kind::Evaluation => {
            let (evaluation, hosts) = crate::evaluate::score::merge_shards(output, shards, force)
                .map_err(MergeError::Evaluation)?;
            Merged::Evaluation {
                evaluation: Box::new(evaluation),
                hosts,
            }
        }
        Kind::Validation => Merged::Validation(crate::validate::revalidate::merge_validation(
            output, shards, force,
        )?),
        Kind::Run => {
            let (count, hosts) =
                crate::run::merge_shards(output, shards, force).map_err(MergeError::Run)?;
            Merged::Run { count, hosts }
        }
    })
}
