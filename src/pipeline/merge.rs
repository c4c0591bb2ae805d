//! `hunkgen merge`: one entry for every kind of shard. The kind comes from the shards'
//! manifests; each kind's merge writes what one machine writes.

use super::merge_error::MergeError;
use super::shards::MergeSummary;
use crate::evaluate::score::Evaluation;
use crate::pipeline::revalidate::MergedValidation;
use crate::shard::{self, Kind};
use std::path::{Path, PathBuf};

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
    let kind = shard::kind_of_all(shards)?;
    Ok(match kind {
        Kind::Build => Merged::Build(super::shards::merge_build(output, shards, force)?),
        Kind::Evaluation => {
            let (evaluation, hosts) = crate::evaluate::score::merge_shards(output, shards, force)
                .map_err(MergeError::Evaluation)?;
            Merged::Evaluation {
                evaluation: Box::new(evaluation),
                hosts,
            }
        }
        Kind::Validation => Merged::Validation(crate::pipeline::revalidate::merge_validation(
            output, shards, force,
        )?),
        Kind::Run => {
            let (count, hosts) =
                crate::run::merge_shards(output, shards, force).map_err(MergeError::Run)?;
            Merged::Run { count, hosts }
        }
    })
}
