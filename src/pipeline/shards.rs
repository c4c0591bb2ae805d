//! Build shards: the files a `hunkgen build --shard K/N` adds to its dataset directory
//! (the not-counted instances and the manifest), and the merge of build shards into the
//! dataset a one-machine build writes.

use super::assemble::Assembled;
use super::merge_error::MergeError;
use crate::annotate::proximity;
use crate::dataset::{self, DatasetWriter};
use crate::model::{Card, Instance, Rejected};
use crate::recipe::open::{self, OpenError};
use crate::shard::{
    self, check_set, read_manifest, Kind, Manifest, Part, Same, Shard, ShardSetError,
};
use std::path::{Path, PathBuf};

/// What a build shard knows beyond its dataset files, for its manifest.
#[derive(Debug, Clone)]
pub struct BuildShard {
    /// Which shard.
    pub shard: Shard,
    /// Ids of all shards together (multi-hunk candidates and mining rejections).
    pub total_assigned: usize,
    /// This shard's share of them.
    pub assigned: Vec<String>,
    /// Package depths of the shard's annotated hunks before validation.
    pub depths: Vec<usize>,
    /// Source and annotation warnings (the same in every shard).
    pub warnings: Vec<String>,
    /// The validator's one-time warning, if it gave one.
    pub validator_warning: Option<String>,
}

impl BuildShard {
    /// Add the shard's files to a build's `files`: the examined instances with an
    /// uncounted hunk (the merged report's not-counted table), then the manifest, last
    /// (a shard directory without it is not complete).
    pub fn add_files(
        self,
        card: &Card,
        examined: &[Instance],
        kept: &[Instance],
        rejected: &[Rejected],
        files: &mut Vec<(String, Vec<u8>)>,
    ) {
        let not_counted: Vec<&Instance> = examined
            .iter()
            .filter(|i| i.hunks.iter().any(|h| !h.counted))
            .collect();
        files.push((shard::NOT_COUNTED.into(), dataset::jsonl(&not_counted)));
        let sum = |name: &str| {
            files
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, b)| dataset::sha256_hex(b))
                .unwrap_or_default()
        };
        let checksums = ["instances.jsonl", "rejected.jsonl", shard::NOT_COUNTED]
            .iter()
            .map(|n| (n.to_string(), sum(n)))
            .collect();
        let manifest = Manifest {
            format: shard::FORMAT,
            kind: Kind::Build,
            name: card.name.clone(),
            recipe_sha256: card.recipe_sha256.clone(),
            tool_version: card.tool_version.clone(),
            shard: self.shard.index,
            count: self.shard.count,
            host: shard::host_name(),
            built_at: card.built_at.clone(),
            total_assigned: self.total_assigned,
            assigned: self.assigned,
            instances: kept.iter().map(|i| i.instance_id.clone()).collect(),
            rejected: rejected.iter().map(|r| r.id.clone()).collect(),
            depths: self.depths,
            warnings: self.warnings,
            validator_warning: self.validator_warning,
            checksums,
        };
        files.push((
            shard::MANIFEST.into(),
            serde_norway::to_string(&manifest)
                .unwrap_or_default()
                .into_bytes(),
        ));
    }
}

/// What a build merge joined, for the CLI summary.
#[derive(Debug)]
pub struct MergeSummary {
    /// The dataset directory written.
    pub output: PathBuf,
    /// Instances kept.
    pub instances: usize,
    /// Rows in rejected.jsonl.
    pub rejected: usize,
    /// The hosts that built the shards (sorted, distinct).
    pub hosts: Vec<String>,
}

/// Join build shard directories into the dataset a one-machine build writes: the
/// instances, rejections and tables from all shards, λ chosen from every shard's depths,
/// the `logs/` and `states/` trees copied. Only the card's `built_at` differs (the latest
/// shard's).
pub fn merge_build(
    output: &Path,
    shards: &[PathBuf],
    force: bool,
) -> Result<MergeSummary, MergeError> {
    let mut read: Vec<(PathBuf, Manifest)> = Vec::new();
    for dir in shards {
        read.push((dir.clone(), read_manifest(dir)?));
    }
    let Some((first_dir, first)) = read.first().cloned() else {
        return Err(ShardSetError::NoShards.into());
    };
    let parts: Vec<Part> = read
        .iter()
        .map(|(dir, m)| Part {
            dir,
            shard: m.shard,
            count: m.count,
            same: vec![
                Same::new("recipe sha256", &m.recipe_sha256),
                Same::new("shard count", m.count),
                Same::new("tool version", &m.tool_version),
                Same {
                    what: "a different mining result (total ids)",
                    shown: m.total_assigned.to_string(),
                    key: format!("{} {:?}", m.total_assigned, m.warnings),
                },
            ],
            owned: m
                .instances
                .iter()
                .chain(&m.rejected)
                .map(String::as_str)
                .collect(),
            unique: m.instances.iter().map(String::as_str).collect(),
        })
        .collect();
    check_set(&parts, "build")?;
    read.sort_by_key(|(_, m)| m.shard);
    // Each assigned id kept or rejected.
    let mut assigned_total = 0;
    for (dir, m) in &read {
        assigned_total += m.assigned.len();
        for id in &m.assigned {
            if !m.instances.contains(id) && !m.rejected.contains(id) {
                return Err(MergeError::Unaccounted {
                    dir: dir.clone(),
                    id: id.clone(),
                    shard: Shard {
                        index: m.shard,
                        count: m.count,
                    },
                });
            }
        }
    }
    if assigned_total != first.total_assigned {
        return Err(MergeError::Accounting {
            accounted: assigned_total,
            total: first.total_assigned,
        });
    }
    let opened = open::open(&first_dir).map_err(|e| match e {
        OpenError::NoCard { dir } => MergeError::NoCard { dir },
        OpenError::Recipe { dir, error } => MergeError::Recipe { dir, source: error },
        other => MergeError::Open(other),
    })?;
    let (card, plan) = (opened.card, opened.plan);
    let mut kept = Vec::new();
    let mut rejected = Vec::new();
    let mut depths = Vec::new();
    let mut validator_warnings: Vec<String> = Vec::new();
    for (dir, m) in &read {
        kept.extend(dataset::read_instances(dir)?);
        rejected.extend(dataset::read_rejected(dir)?);
        depths.extend(m.depths.iter().copied());
        if let Some(w) = &m.validator_warning {
            if !validator_warnings.contains(w) {
                validator_warnings.push(w.clone());
            }
        }
    }
    if let Some(spec) = &plan.annotate {
        // λ from every shard's depths, as one machine chooses it from all instances.
        let lambda = spec
            .lambda
            .unwrap_or_else(|| proximity::lambda_from_depths(&depths));
        proximity::classify_all(&mut kept, Some(lambda));
    }
    let nc_path = first_dir.join(shard::NOT_COUNTED);
    let nc_text = std::fs::read_to_string(&nc_path).map_err(dataset::io_err(&nc_path))?;
    let mut not_counted: Vec<Instance> = Vec::new();
    for (i, line) in nc_text.lines().enumerate() {
        not_counted.push(
            serde_json::from_str(line).map_err(|source| MergeError::NotCounted {
                path: nc_path.clone(),
                line: i + 1,
                source,
            })?,
        );
    }
    let mut warnings = first.warnings.clone();
    if plan.validate.is_some() {
        warnings.extend(validator_warnings);
        warnings.extend(crate::recipe::validator::env_failure_warnings(&rejected));
    }
    let validated = if plan.validate.is_some() {
        kept.len()
    } else {
        0
    };
    let built_at = read
        .iter()
        .map(|(_, m)| m.built_at.clone())
        .max()
        .unwrap_or_default();
    let mut hosts: Vec<String> = read.iter().map(|(_, m)| m.host.clone()).collect();
    hosts.sort();
    hosts.dedup();
    let writer = DatasetWriter::begin(output, &plan.name, force)?;
    // The examined count is the shards' (all say the same); the report's not-counted
    // table needs only the examined instances with an uncounted hunk.
    let assembled = Assembled {
        plan: &plan,
        kept,
        rejected,
        examined: &not_counted,
        walked: card.counts.walked,
        multi_hunk: card.counts.multi_hunk,
        // Every shard drew the same sample over all instances: the first one's count.
        not_sampled: card.counts.not_sampled,
        validated,
        funnel: card.counts.funnel.clone(),
        described: card.sources.clone(),
        repositories: card.repositories.clone(),
        recipe_file: card.recipe_file.clone(),
        built_at,
        warnings,
    };
    let (mut out_card, mut files, kept, rejected) = assembled.render();
    // The card counts every examined candidate, not only the not-counted ones.
    out_card.counts.examined = card.counts.examined;
    for (name, bytes) in files.iter_mut() {
        if name == "dataset.yaml" {
            *bytes = dataset::card_yaml(&out_card).into_bytes();
        }
    }
    let mut links = std::collections::HashMap::new();
    for (dir, _) in &read {
        for tree in ["logs", "states"] {
            let from = dir.join(tree);
            if from.is_dir() {
                dataset::copy_tree(&from, &writer.dir().join(tree), &mut links)?;
            }
        }
    }
    for (name, bytes) in &files {
        writer.write(name, bytes)?;
    }
    writer.commit()?;
    Ok(MergeSummary {
        output: output.to_path_buf(),
        instances: kept.len(),
        rejected: rejected.len(),
        hosts,
    })
}
