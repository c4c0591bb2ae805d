//! Stage 6, write: the dataset's files rendered from the stages' results (and, for a
//! shard, its manifest), written into the dataset directory and swapped in at once.

use super::assemble::Assembled;
use super::shards::BuildShard;
use super::BuildError;
use crate::dataset::{self, DatasetWriter};
use crate::model::{Instance, Rejected};
use crate::recipe::{Plan, SourcePlan};
use crate::source::SourceOutput;
use crate::states::write::Reused;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What the dataset's files are made from.
#[allow(clippy::too_many_arguments)] // One per thing the card and tables count.
pub(super) fn assemble<'a>(
    plan: &'a Plan,
    kept: Vec<Instance>,
    rejected: Vec<Rejected>,
    examined: &'a [Instance],
    mined: &SourceOutput,
    (multi_hunk, not_sampled): (usize, Option<usize>),
    validated: usize,
    warnings: Vec<String>,
) -> Assembled<'a> {
    Assembled {
        plan,
        kept,
        rejected,
        examined,
        walked: mined.walked,
        multi_hunk,
        not_sampled,
        validated,
        funnel: mined.funnel.clone(),
        described: mined.described.clone(),
        repositories: repositories(plan),
        recipe_file: std::path::absolute(&plan.file)
            .unwrap_or_else(|_| plan.file.clone())
            .display()
            .to_string(),
        built_at: dataset::rfc3339(now_secs()),
        warnings,
    }
}

/// What the write stage published.
pub(super) struct Written {
    /// The kept instances, sorted.
    pub kept: Vec<Instance>,
    /// The rejections, sorted.
    pub rejected: Vec<Rejected>,
    /// The previous dataset's `built_at` when it already held exactly this build and
    /// was kept as it was (its states untouched, nothing swapped).
    pub unchanged: Option<String>,
}

/// Render and write the dataset (refused, with nothing written, under `--strict` when
/// anything was rejected). `logs` are the cached runs' logs the validator held back
/// (path → text): written only when the dataset changes.
pub(super) fn write(
    assembled: Assembled<'_>,
    examined: &[Instance],
    shard: Option<BuildShard>,
    (writer, reused, logs): (DatasetWriter, Reused, BTreeMap<PathBuf, String>),
    strict: bool,
) -> Result<Written, BuildError> {
    let (card, mut files, kept, rejected) = assembled.render();
    if strict && !rejected.is_empty() {
        // Nothing is published: the previous dataset stays as it was.
        return Err(BuildError::Strict {
            count: rejected.len(),
            first: format!("{}: {}", rejected[0].id, rejected[0].detail),
        });
    }
    if let Some(shard) = shard {
        shard.add_files(&card, examined, &kept, &rejected, &mut files);
    }
    for (name, bytes) in &files {
        writer.write(name, bytes)?;
    }
    // Held logs by their place in the dataset; one elsewhere is written where it goes.
    let mut held: BTreeMap<PathBuf, String> = BTreeMap::new();
    for (path, text) in logs {
        match path.strip_prefix(writer.dir()) {
            Ok(rel) => {
                held.insert(rel.to_path_buf(), text);
            }
            Err(_) => write_log(&path, &text)?,
        }
    }
    let previous = writer.output();
    if reused.same_as(previous) && dataset::same_but_built_at(writer.dir(), &held, previous) {
        let built_at = dataset::read_card(previous)
            .ok()
            .flatten()
            .map(|c| c.built_at)
            .unwrap_or_default();
        // Dropping the writer removes what this build wrote; the dataset stays.
        return Ok(Written {
            kept,
            rejected,
            unchanged: Some(built_at),
        });
    }
    for (rel, text) in &held {
        let path = writer.dir().join(rel);
        // A log a later run wrote at the same place is the newer one.
        if !path.exists() {
            write_log(&path, text)?;
        }
    }
    reused.link(previous, writer.dir())?;
    writer.commit()?;
    Ok(Written {
        kept,
        rejected,
        unchanged: None,
    })
}

/// Write one held log, its directories first.
fn write_log(path: &Path, text: &str) -> Result<(), BuildError> {
    let io = |source| {
        BuildError::Dataset(crate::dataset::DatasetError::Io {
            path: path.to_path_buf(),
            source,
        })
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    std::fs::write(path, text).map_err(io)
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Repository name → path, for the card (later commands find the objects there).
fn repositories(plan: &Plan) -> BTreeMap<String, String> {
    let abs = |p: &std::path::Path| {
        p.canonicalize()
            .unwrap_or_else(|_| p.to_path_buf())
            .display()
            .to_string()
    };
    match &plan.source {
        SourcePlan::Git(g) => BTreeMap::from([(g.name.clone(), abs(&g.repo))]),
        SourcePlan::Swebench(s) => s
            .repos
            .iter()
            .map(|(name, path)| (name.clone(), abs(path)))
            .collect(),
        SourcePlan::Github(g) => BTreeMap::from([(g.full_name(), abs(&g.clone))]),
        SourcePlan::Defects4j(d) => d
            .repos
            .iter()
            .filter_map(|(project, r)| {
                let path = r.path.as_ref()?;
                let name = crate::source::defects4j::upstream_repo(project)
                    .unwrap_or(project)
                    .to_string();
                Some((name, abs(path)))
            })
            .collect(),
    }
}
