//! `hunkgen validate`: run a built dataset's golden tests again and compare with the
//! recorded labels; write the rows (and a shard's manifest), and merge validate shards.

use super::merge_error::MergeError;
use crate::dataset::{self, DatasetError};
use crate::model::{Card, Instance};
use crate::progress::Progress;
use crate::recipe::open::{self, OpenError};
use crate::shard::{self, Kind};
use crate::source::Candidate;
use crate::validate::stage::Validator;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why re-validation could not run or its rows could not be written.
#[derive(Debug, thiserror::Error)]
pub enum RevalidateError {
    /// The dataset could not be read or the rows written.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// The dataset has no card, its recipe no longer loads, or it has no `validate:`.
    #[error("validate: {0}")]
    Open(#[source] OpenError),
    /// An instance asked for is not in the dataset.
    #[error("validate: {}: no instance `{id}`", dataset.display())]
    NoInstance {
        /// The dataset.
        dataset: PathBuf,
        /// The instance id asked for.
        id: String,
    },
    /// The sandboxed runner cannot be set up.
    #[error("validate: {0}")]
    Runner(#[source] crate::validate::RunError),
    /// The output directory cannot be made.
    #[error("validate: {}: {source}", dir.display())]
    Io {
        /// The output directory.
        dir: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A shard's manifest cannot be written.
    #[error("validate: {}: {source}", dir.display())]
    Output {
        /// The output directory.
        dir: PathBuf,
        /// Why.
        source: crate::shard::ShardSetError,
    },
    /// A shard's output directory cannot be prepared.
    #[error("{}: cannot write", dir.display())]
    CannotWrite {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl From<OpenError> for RevalidateError {
    fn from(e: OpenError) -> Self {
        match e {
            OpenError::Dataset(e) => RevalidateError::Dataset(e),
            other => RevalidateError::Open(other),
        }
    }
}

/// Options of one re-validation (they do not change its rows).
#[derive(Debug, Clone, Default)]
pub struct RevalidateOptions {
    /// Show a progress bar (still only on a terminal).
    pub progress: bool,
    /// Run every test again instead of answering from the result cache.
    pub no_cache: bool,
    /// Work only on this shard's instances.
    pub shard: Option<shard::Shard>,
}

/// One instance's outcome when a dataset's golden tests are run again.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Revalidated {
    /// The instance.
    pub instance_id: String,
    /// `confirmed`, `changed`, `flaky` or `broken`.
    pub status: &'static str,
    /// What differs, or why it is broken.
    pub detail: String,
    /// Runs answered from the cache / executed.
    pub cached_runs: usize,
    /// Runs executed.
    pub executed_runs: usize,
}

/// The file `hunkgen validate --output` (and a validate shard, and their merge) writes:
/// one JSON object per instance, in the dataset's order, as `--json` prints them.
pub const VALIDATION_ROWS: &str = "validate.jsonl";

/// Write a validation's rows to `dir/validate.jsonl`; for a shard, also its manifest
/// (`shard.yaml`, last). `total` counts the instances of all shards together.
pub fn write_validation(
    dataset: &Path,
    dir: &Path,
    rows: &[Revalidated],
    only: &[String],
    shard: Option<shard::Shard>,
    total: usize,
) -> Result<(), RevalidateError> {
    let fail = |source: shard::ShardSetError| RevalidateError::Output {
        dir: dir.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(|source| RevalidateError::Io {
        dir: dir.to_path_buf(),
        source,
    })?;
    dataset::write_atomic(&dir.join(VALIDATION_ROWS), &dataset::jsonl(rows))?;
    if let Some(shard) = shard {
        let inputs = BTreeMap::from([("only".to_string(), only.join(","))]);
        let ids = rows.iter().map(|r| r.instance_id.clone()).collect();
        shard::TaskManifest::new(Kind::Validation, shard, dataset, inputs, total, ids)
            .and_then(|m| m.finish(dir, &[VALIDATION_ROWS.to_string()]))
            .map_err(fail)?;
    }
    Ok(())
}

/// What a merge of validate shards wrote, for the CLI's line.
#[derive(Debug)]
pub struct MergedValidation {
    /// Rows per status (`confirmed`, `changed`, `flaky`, `broken`).
    pub statuses: BTreeMap<String, usize>,
    /// The hosts that ran the shards (sorted, distinct).
    pub hosts: Vec<String>,
}

/// Join `hunkgen validate --shard` directories into the validate.jsonl one machine's
/// `hunkgen validate --output` writes: every shard's rows, unchanged, in the dataset's
/// order.
pub fn merge_validation(
    output: &Path,
    shards: &[PathBuf],
    force: bool,
) -> Result<MergedValidation, MergeError> {
    let read = shard::read_task_shards(shards, Kind::Validation)?;
    let Some((_, first)) = read.first() else {
        return Err(shard::ShardSetError::NoShards.into());
    };
    let dataset_dir = shard::dataset_of(first)?;
    let instances = dataset::read_instances(&dataset_dir)?;
    let rows = shard::rows_in_dataset_order(&read, VALIDATION_ROWS, &instances)?;
    let mut text = String::new();
    let mut statuses = BTreeMap::new();
    for (line, v) in &rows {
        text.push_str(line);
        text.push('\n');
        let status = v["status"].as_str().unwrap_or_default().to_string();
        *statuses.entry(status).or_insert(0) += 1;
    }
    let writer = dataset::DatasetWriter::begin(output, "validate", force)?;
    dataset::write_atomic(&writer.dir().join(VALIDATION_ROWS), text.as_bytes())?;
    writer.commit()?;
    Ok(MergedValidation {
        statuses,
        hosts: shard::hosts(read.iter().map(|(_, m)| m.host.as_str())),
    })
}

/// `hunkgen validate`: re-validate the dataset ([`revalidate`]) and, with an output
/// directory (a shard's by default: `<dataset>/validations/validate-shard-K-of-N`), write
/// the rows there ([`write_validation`]).
pub fn validate_dataset(
    dataset: &Path,
    only: &[String],
    output: Option<PathBuf>,
    opts: &RevalidateOptions,
) -> Result<Vec<Revalidated>, RevalidateError> {
    let shard = opts.shard;
    let output = match (output, shard) {
        (Some(o), _) => Some(o),
        (None, Some(s)) => Some(
            dataset
                .join("validations")
                .join(format!("validate-shard-{}-of-{}", s.index, s.count)),
        ),
        (None, None) => None,
    };
    // One writer per output directory: a second validation into it is refused.
    let _lock = output.as_deref().map(dataset::lock_output).transpose()?;
    // A shard's directory is not complete until its new manifest is written.
    if let (Some(o), Some(_)) = (&output, shard) {
        std::fs::create_dir_all(o)
            .and_then(|()| shard::TaskManifest::begin(o))
            .map_err(|source| RevalidateError::CannotWrite {
                dir: o.clone(),
                source,
            })?;
    }
    let rows = revalidate(dataset, only, opts)?;
    if let Some(o) = &output {
        let mut ids: Vec<String> = if only.is_empty() {
            dataset::read_instances(dataset)?
                .into_iter()
                .map(|i| i.instance_id)
                .collect()
        } else {
            only.to_vec()
        };
        ids.sort();
        ids.dedup();
        write_validation(dataset, o, &rows, only, shard, ids.len())?;
    }
    Ok(rows)
}

/// Run a dataset's golden tests again (`hunkgen validate`) and compare with the recorded
/// FAIL_TO_PASS / PASS_TO_PASS: confirmed (the same), changed (different lists, or now
/// rejected), flaky (the same, but some test's outcome varied between reruns) or broken
/// (the runs could not be made: base tree, environment, sandbox).
pub fn revalidate(
    dataset: &Path,
    only: &[String],
    opts: &RevalidateOptions,
) -> Result<Vec<Revalidated>, RevalidateError> {
    let opened = open::open_with_tests(dataset, "there are no golden runs to repeat")?;
    let instances = dataset::read_instances(dataset)?;
    for id in only {
        if !instances.iter().any(|i| &i.instance_id == id) {
            return Err(RevalidateError::NoInstance {
                dataset: dataset.to_path_buf(),
                id: id.clone(),
            });
        }
    }
    let chosen: Vec<&Instance> = instances
        .iter()
        .filter(|i| only.is_empty() || only.contains(&i.instance_id))
        .filter(|i| opts.shard.is_none_or(|s| s.owns(&i.instance_id)))
        .collect();
    let validator = crate::recipe::validator::validator(&opened.plan, &opened.tests)
        .map_err(RevalidateError::Runner)?;
    let logs = dataset.join(".validate-logs");
    let progress = if opts.progress {
        Progress::new("validate", chosen.len() as u64)
    } else {
        Progress::hidden()
    };
    let rows = chosen
        .par_iter()
        .map(|inst| {
            let row = revalidate_one(inst, &opened.card, &validator, &logs, opts);
            progress.inc(1);
            row
        })
        .collect();
    progress.finish();
    if let Some(w) = validator.take_warning() {
        eprintln!("warning: {w}");
    }
    Ok(rows)
}

fn revalidate_one(
    inst: &Instance,
    card: &Card,
    validator: &Validator<'_>,
    logs: &Path,
    opts: &RevalidateOptions,
) -> Revalidated {
    let row = |status, detail: String, cached, executed| Revalidated {
        instance_id: inst.instance_id.clone(),
        status,
        detail,
        cached_runs: cached,
        executed_runs: executed,
    };
    let candidate = match Candidate::from_instance(inst, card) {
        Ok(c) => c,
        Err(why) => return row("broken", why.to_string(), 0, 0),
    };
    let o = validator.validate(&candidate, logs, !opts.no_cache);
    let (cached, executed) = (o.cached_runs, o.executed_runs);
    if let Some((reason, detail)) = &o.rejection {
        use crate::model::RejectReason as R;
        let status = match reason {
            R::Infrastructure
            | R::BaseTree
            | R::NoTestSuite
            | R::Environment
            | R::UnsupportedPython
            | R::UnsupportedJdk
            | R::DependencyUnresolvable
            | R::BuildToolUnavailable
            | R::TestCompileError
            | R::ZeroTests
            | R::Timeout => "broken",
            _ => "changed",
        };
        return row(status, detail.clone(), cached, executed);
    }
    let diff = |name: &str, old: &[String], new: &[String]| -> Option<String> {
        let gone: Vec<&String> = old.iter().filter(|t| !new.contains(t)).collect();
        let added: Vec<&String> = new.iter().filter(|t| !old.contains(t)).collect();
        (!gone.is_empty() || !added.is_empty()).then(|| {
            format!(
                "{name}: {} no longer, {} newly ({})",
                gone.len(),
                added.len(),
                gone.iter()
                    .map(|t| format!("-{t}"))
                    .chain(added.iter().map(|t| format!("+{t}")))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        })
    };
    let changes: Vec<String> = [
        diff("FAIL_TO_PASS", &inst.FAIL_TO_PASS, &o.fail_to_pass),
        diff("PASS_TO_PASS", &inst.PASS_TO_PASS, &o.pass_to_pass),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !changes.is_empty() {
        return row("changed", changes.join("; "), cached, executed);
    }
    if !o.record.flaky.is_empty() {
        return row(
            "flaky",
            format!("varied between reruns: {}", o.record.flaky.join(", ")),
            cached,
            executed,
        );
    }
    row("confirmed", String::new(), cached, executed)
}
