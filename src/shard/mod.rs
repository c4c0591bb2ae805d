//! Deterministic shards: splitting a build's per-instance work over machines without a
//! scheduler of our own (Slurm array tasks, Kubernetes Indexed Jobs run the pieces).
//!
//! An instance belongs to shard `stable_hash(instance_id) mod N`, where `stable_hash` is
//! the first 8 bytes of the SHA-256 of the id's UTF-8 bytes read as a big-endian `u64`.
//! The assignment depends on the id alone, never on a position, so adding instances
//! never moves the others. Each shard writes its own dataset directory with a manifest
//! (`shard.yaml`); `hunkgen merge` checks the manifests and joins the shards into the
//! dataset a one-machine build writes. `hunkgen evaluate` and `hunkgen run` shard the
//! same way ([`TaskManifest`]); `merge` recognises the kind from the manifest.

mod error;

pub use error::{BadShard, Differs, ShardChoiceError, ShardSetError};

use serde::{de::DeserializeOwned, Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One shard of N: index K in `0..N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// K, from 0.
    pub index: u64,
    /// N, at least 1.
    pub count: u64,
}

/// The first 8 bytes of SHA-256(id), big-endian: the hash shards are chosen by (stable
/// across platforms, versions and runs).
pub fn stable_hash(id: &str) -> u64 {
    let digest = Sha256::digest(id.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

impl Shard {
    /// Parse `K/N` (`0 <= K < N`).
    pub fn parse(text: &str) -> Result<Shard, BadShard> {
        let bad = || BadShard {
            text: text.to_string(),
        };
        let (k, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let index: u64 = k.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The shard a command runs: `--shard` when given; else `HUNKGEN_SHARD=K/N`; else
    /// Slurm's `SLURM_ARRAY_TASK_ID` (minus `SLURM_ARRAY_TASK_MIN`) with
    /// `SLURM_ARRAY_TASK_COUNT`; else Kubernetes' `JOB_COMPLETION_INDEX` with
    /// `HUNKGEN_SHARD_COUNT`; else none (the whole dataset).
    pub fn resolve(flag: Option<&str>) -> Result<Option<Shard>, ShardChoiceError> {
        Self::resolve_with(flag, |name| std::env::var(name).ok())
    }

    /// [`Shard::resolve`] with the environment given as a function (for tests).
    pub fn resolve_with(
        flag: Option<&str>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<Shard>, ShardChoiceError> {
        if let Some(f) = flag {
            return Shard::parse(f)
                .map(Some)
                .map_err(|source| ShardChoiceError::Flag { source });
        }
        let var = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        if let Some(v) = var("HUNKGEN_SHARD") {
            return Shard::parse(&v)
                .map(Some)
                .map_err(|source| ShardChoiceError::Var {
                    var: "HUNKGEN_SHARD",
                    source,
                });
        }
        let pair = |index_var: &'static str,
                    count_var: &'static str|
         -> Result<Option<Shard>, ShardChoiceError> {
            match (var(index_var), var(count_var)) {
                (Some(kv), Some(nv)) => {
                    Shard::parse(&format!("{kv}/{nv}"))
                        .map(Some)
                        .map_err(|source| ShardChoiceError::Pair {
                            index_var,
                            count_var,
                            source,
                        })
                }
                (Some(_), None) => Err(ShardChoiceError::NoCount {
                    index_var,
                    count_var,
                }),
                _ => Ok(None),
            }
        };
        if let Some(id) = var("SLURM_ARRAY_TASK_ID") {
            // An array numbered from 1 (`--array=1-4`) still gives shards 0..N-1.
            let min: u64 = var("SLURM_ARRAY_TASK_MIN")
                .and_then(|m| m.trim().parse().ok())
                .unwrap_or(0);
            let k = match id.trim().parse::<u64>() {
                Ok(k) => k.saturating_sub(min).to_string(),
                Err(_) => id,
            };
            let n = var("SLURM_ARRAY_TASK_COUNT").ok_or(ShardChoiceError::NoCount {
                index_var: "SLURM_ARRAY_TASK_ID",
                count_var: "SLURM_ARRAY_TASK_COUNT",
            })?;
            return Shard::parse(&format!("{k}/{n}"))
                .map(Some)
                .map_err(|source| ShardChoiceError::Pair {
                    index_var: "SLURM_ARRAY_TASK_ID",
                    count_var: "SLURM_ARRAY_TASK_COUNT",
                    source,
                });
        }
        pair("JOB_COMPLETION_INDEX", "HUNKGEN_SHARD_COUNT")
    }

    /// The shard an id belongs to among `count`.
    pub fn of(id: &str, count: u64) -> u64 {
        stable_hash(id) % count.max(1)
    }

    /// Whether this shard holds `id`.
    pub fn owns(&self, id: &str) -> bool {
        Shard::of(id, self.count) == self.index
    }
}

impl std::fmt::Display for Shard {
    /// `K/N`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The manifest file a shard directory holds (written last, inside the atomic swap).
pub const MANIFEST: &str = "shard.yaml";
/// The examined instances with a hunk that was not counted (for the report's table),
/// the same in every shard.
pub const NOT_COUNTED: &str = "shard-not-counted.jsonl";

/// Which command wrote a shard directory (the manifest's `kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `hunkgen build --shard`: a dataset directory (manifests without `kind` are these).
    #[default]
    Build,
    /// `hunkgen evaluate --shard`: results.jsonl, summary.json and logs/.
    Evaluation,
    /// `hunkgen run --shard`: predictions.jsonl and one directory per instance.
    Run,
    /// `hunkgen validate --shard`: validate.jsonl, one row per instance.
    Validation,
}

impl Kind {
    /// The word for it in messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Build => "build",
            Kind::Evaluation => "evaluation",
            Kind::Run => "run",
            Kind::Validation => "validation",
        }
    }

    /// The command that writes this kind of shard.
    pub fn command(self) -> &'static str {
        match self {
            Kind::Build => "build",
            Kind::Evaluation => "evaluate",
            Kind::Run => "run",
            Kind::Validation => "validate",
        }
    }
}

/// What a shard directory holds and what `merge` needs beyond its dataset files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Manifest format version.
    pub format: u32,
    /// Always [`Kind::Build`] (older manifests lack it).
    #[serde(default)]
    pub kind: Kind,
    /// The dataset name (the recipe's).
    pub name: String,
    /// SHA-256 of the recipe text: shards of different recipes are not merged.
    pub recipe_sha256: String,
    /// hunkgen's version that built the shard.
    pub tool_version: String,
    /// K.
    pub shard: u64,
    /// N.
    pub count: u64,
    /// The machine that built it (for the merged build's host list).
    pub host: String,
    /// When it was built (RFC 3339).
    pub built_at: String,
    /// Ids every shard together must account for (multi-hunk candidates and mining
    /// rejections), over all shards: the same number in every shard.
    pub total_assigned: usize,
    /// This shard's share of them.
    pub assigned: Vec<String>,
    /// Kept instance ids (instances.jsonl, in file order).
    pub instances: Vec<String>,
    /// Rejected ids (rejected.jsonl, in file order).
    pub rejected: Vec<String>,
    /// Package depths of the shard's annotated hunks before validation (λ is chosen
    /// from all shards' depths at merge).
    pub depths: Vec<usize>,
    /// Source and annotation warnings (the same in every shard).
    pub warnings: Vec<String>,
    /// The validator's one-time warning, if it gave one.
    pub validator_warning: Option<String>,
    /// SHA-256 of this shard's instances.jsonl, rejected.jsonl and the not-counted file.
    pub checksums: Vec<(String, String)>,
}

/// Current manifest format.
pub const FORMAT: u32 = 1;

/// Read a shard directory's manifest; `Err` says, in one line, why it is not a complete
/// shard.
pub fn read_manifest(dir: &Path) -> Result<Manifest, ShardSetError> {
    read_checked(dir, |m: &Manifest| (m.format, &m.checksums))
}

/// Read `dir/shard.yaml` as `T`, check its format and that every file it lists has its
/// checksum.
fn read_checked<T: DeserializeOwned>(
    dir: &Path,
    parts: impl Fn(&T) -> (u32, &[(String, String)]),
) -> Result<T, ShardSetError> {
    let path = dir.join(MANIFEST);
    let m: T = read_yaml(dir)?;
    let (format, checksums) = parts(&m);
    if format != FORMAT {
        return Err(ShardSetError::Format { path, format });
    }
    for (file, sum) in checksums {
        let p = dir.join(file);
        let bytes = match std::fs::read(&p) {
            Ok(b) => b,
            Err(source) => return Err(ShardSetError::Incomplete { path: p, source }),
        };
        if &crate::dataset::sha256_hex(&bytes) != sum {
            return Err(ShardSetError::Checksum { path: p });
        }
    }
    Ok(m)
}

/// `dir/shard.yaml` parsed as `T`; a missing or unreadable one is an incomplete shard.
fn read_yaml<T: DeserializeOwned>(dir: &Path) -> Result<T, ShardSetError> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|source| ShardSetError::NoManifest {
        dir: dir.to_path_buf(),
        source,
    })?;
    serde_norway::from_str(&text).map_err(|source| ShardSetError::BadManifest { path, source })
}

/// The kind of every shard directory given: one kind, or `Err` naming two that differ.
pub fn kind_of_all(dirs: &[PathBuf]) -> Result<Kind, ShardSetError> {
    #[derive(Deserialize)]
    struct Peek {
        #[serde(default)]
        kind: Kind,
    }
    let mut first: Option<(&PathBuf, Kind)> = None;
    for dir in dirs {
        let kind = read_yaml::<Peek>(dir)?.kind;
        match first {
            None => first = Some((dir, kind)),
            Some((d, k)) if k != kind => {
                return Err(ShardSetError::Kinds {
                    dir: dir.clone(),
                    kind,
                    first_dir: d.clone(),
                    first_kind: k,
                })
            }
            Some(_) => {}
        }
    }
    first.map(|(_, k)| k).ok_or(ShardSetError::NoShards)
}

/// A value every shard of one set must have: what it is, how it is shown, and what is
/// compared (the shown value unless more must agree).
#[derive(Debug, Clone)]
pub struct Same {
    /// What the value is, for messages ("recipe sha256").
    pub what: &'static str,
    /// How it is shown.
    pub shown: String,
    /// What is compared.
    pub key: String,
}

impl Same {
    /// A value compared as shown.
    pub fn new(what: &'static str, value: impl ToString) -> Same {
        let shown = value.to_string();
        Same {
            what,
            key: shown.clone(),
            shown,
        }
    }
}

/// What `merge` checks the same way in every kind of shard.
#[derive(Debug, Clone)]
pub struct Part<'a> {
    /// The shard directory.
    pub dir: &'a Path,
    /// K.
    pub shard: u64,
    /// N.
    pub count: u64,
    /// Values every shard must share, in the order they are checked.
    pub same: Vec<Same>,
    /// Ids that must be in the shard their hash names.
    pub owned: Vec<&'a str>,
    /// Ids that must be in no other shard.
    pub unique: Vec<&'a str>,
}

/// Check that shards belong together: the same values (`of_one` names what they are
/// shards of, "build"), every K in `0..N` given once, every id in the shard its hash
/// names and the unique ones in one shard only. `Err` is one line naming the shard.
pub fn check_set(parts: &[Part<'_>], of_one: &str) -> Result<(), ShardSetError> {
    let Some(first) = parts.first() else {
        return Err(ShardSetError::NoShards);
    };
    for p in parts {
        for (a, b) in first.same.iter().zip(&p.same) {
            if a.key != b.key {
                return Err(ShardSetError::Differs(Box::new(Differs {
                    dir: p.dir.to_path_buf(),
                    what: b.what,
                    shown: b.shown.clone(),
                    first_dir: first.dir.to_path_buf(),
                    first_shown: a.shown.clone(),
                    of_one: of_one.to_string(),
                })));
            }
        }
    }
    let n = first.count;
    let mut by_index: BTreeMap<u64, Vec<&Path>> = BTreeMap::new();
    for p in parts {
        by_index.entry(p.shard).or_default().push(p.dir);
    }
    let missing: Vec<u64> = (0..n).filter(|k| !by_index.contains_key(k)).collect();
    if !missing.is_empty() {
        return Err(ShardSetError::Missing {
            missing,
            given: by_index.len(),
            count: n,
        });
    }
    if let Some((k, dirs)) = by_index.iter().find(|(_, d)| d.len() > 1) {
        return Err(ShardSetError::Twice {
            shard: Shard {
                index: *k,
                count: n,
            },
            dirs: dirs.iter().map(|d| d.to_path_buf()).collect(),
        });
    }
    let mut sorted: Vec<&Part> = parts.iter().collect();
    sorted.sort_by_key(|p| p.shard);
    let mut seen: BTreeMap<&str, &Path> = BTreeMap::new();
    for p in sorted {
        let shard = Shard {
            index: p.shard,
            count: n,
        };
        if let Some(id) = p.owned.iter().find(|id| !shard.owns(id)) {
            return Err(ShardSetError::NotOwned {
                dir: p.dir.to_path_buf(),
                id: id.to_string(),
                owner: Shard::of(id, n),
                shard,
            });
        }
        for id in &p.unique {
            if let Some(other) = seen.insert(id, p.dir) {
                return Err(ShardSetError::InTwo {
                    id: id.to_string(),
                    first: other.to_path_buf(),
                    second: p.dir.to_path_buf(),
                });
            }
        }
    }
    Ok(())
}

/// The manifest of an `evaluate`, `run` or `validate` shard: what it worked on, so `merge` can
/// check that the shards belong together and cover every instance once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskManifest {
    /// Manifest format version.
    pub format: u32,
    /// Evaluation or run.
    pub kind: Kind,
    /// hunkgen's version that ran the shard.
    pub tool_version: String,
    /// K.
    pub shard: u64,
    /// N.
    pub count: u64,
    /// The machine that ran it.
    pub host: String,
    /// When it finished (RFC 3339).
    pub finished_at: String,
    /// The dataset directory, absolute (merge reads it there).
    pub dataset: String,
    /// SHA-256 of the dataset's instances.jsonl.
    pub dataset_sha256: String,
    /// What else every shard must share: for an evaluation `predictions_sha256`,
    /// `model`, `state` (and `scenario` when given); for a run `agent`, `agent_sha256`,
    /// `prompt_variant`, `state`, `scenario`, `timeout` and `only` (and `tests_present`
    /// with `--with-tests`); for a validation `only`.
    pub inputs: BTreeMap<String, String>,
    /// The predictions file, absolute (an evaluation's merge reads the `hunkgen run`
    /// records next to it, as `evaluate` does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predictions: Option<String>,
    /// Instances every shard together covers.
    pub total: usize,
    /// This shard's instances, sorted.
    pub instances: Vec<String>,
    /// SHA-256 of the shard's files (relative path, digest).
    pub checksums: Vec<(String, String)>,
}

impl TaskManifest {
    /// Start a shard's output in `dir`: remove its old manifest, so the directory is not
    /// a complete shard until [`TaskManifest::finish`] writes the new one.
    pub fn begin(dir: &Path) -> std::io::Result<()> {
        match std::fs::remove_file(dir.join(MANIFEST)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// Checksum `files` (relative to `dir`) and write the manifest last, atomically.
    pub fn finish(mut self, dir: &Path, files: &[String]) -> Result<(), ShardSetError> {
        self.instances.sort();
        self.checksums = Vec::new();
        for f in files {
            let p = dir.join(f);
            let bytes = match std::fs::read(&p) {
                Ok(b) => b,
                Err(source) => return Err(ShardSetError::Read { path: p, source }),
            };
            self.checksums
                .push((f.clone(), crate::dataset::sha256_hex(&bytes)));
        }
        let text = serde_norway::to_string(&self).map_err(ShardSetError::Serialize)?;
        crate::dataset::write_atomic(&dir.join(MANIFEST), text.as_bytes())
            .map_err(ShardSetError::Write)
    }

    /// A manifest of shard `shard` of `kind` on `dataset` (finished by
    /// [`TaskManifest::finish`]).
    pub fn new(
        kind: Kind,
        shard: Shard,
        dataset: &Path,
        inputs: BTreeMap<String, String>,
        total: usize,
        instances: Vec<String>,
    ) -> Result<TaskManifest, ShardSetError> {
        let jsonl = dataset.join("instances.jsonl");
        let bytes = match std::fs::read(&jsonl) {
            Ok(b) => b,
            Err(source) => {
                return Err(ShardSetError::Read {
                    path: jsonl,
                    source,
                })
            }
        };
        Ok(TaskManifest {
            format: FORMAT,
            kind,
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            shard: shard.index,
            count: shard.count,
            host: host_name(),
            finished_at: crate::dataset::rfc3339(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_secs() as i64)
                    .unwrap_or(0),
            ),
            dataset: absolute(dataset),
            dataset_sha256: crate::dataset::sha256_hex(&bytes),
            inputs,
            predictions: None,
            total,
            instances,
            checksums: Vec::new(),
        })
    }
}

/// A path made absolute (as given when that fails), as text.
pub fn absolute(p: &Path) -> String {
    std::path::absolute(p)
        .unwrap_or_else(|_| p.to_path_buf())
        .display()
        .to_string()
}

/// Read the shards of one `evaluate` or `run` and check them as `merge` does a build's:
/// complete, of one dataset, tool version, N and inputs, every shard once, every
/// instance in its own shard and all of them covered. Returned by K.
pub fn read_task_shards(
    dirs: &[PathBuf],
    kind: Kind,
) -> Result<Vec<(PathBuf, TaskManifest)>, ShardSetError> {
    let mut read = Vec::new();
    for dir in dirs {
        let m: TaskManifest = read_checked(dir, |m: &TaskManifest| (m.format, &m.checksums))?;
        read.push((dir.clone(), m));
    }
    let keys: std::collections::BTreeSet<&String> =
        read.iter().flat_map(|(_, m)| m.inputs.keys()).collect();
    let parts: Vec<Part> = read
        .iter()
        .map(|(dir, m)| {
            let mut same = vec![
                Same::new("dataset sha256", &m.dataset_sha256),
                Same::new("shard count", m.count),
                Same::new("tool version", &m.tool_version),
            ];
            same.extend(keys.iter().map(|k| Same {
                what: "a different input",
                shown: format!("{k}: {}", m.inputs.get(*k).map_or("(none)", |v| v)),
                key: m.inputs.get(*k).cloned().unwrap_or_default(),
            }));
            same.push(Same::new("a different instance total", m.total));
            let ids: Vec<&str> = m.instances.iter().map(String::as_str).collect();
            Part {
                dir,
                shard: m.shard,
                count: m.count,
                same,
                owned: ids.clone(),
                unique: ids,
            }
        })
        .collect();
    check_set(&parts, kind.name())?;
    read.sort_by_key(|(_, m)| m.shard);
    let covered: usize = read.iter().map(|(_, m)| m.instances.len()).sum();
    let total = read.first().map_or(0, |(_, m)| m.total);
    if covered != total {
        return Err(ShardSetError::Coverage {
            covered,
            total,
            kind,
        });
    }
    Ok(read)
}

/// Every shard's rows of `file` (JSON Lines, each with an `instance_id`), each line as
/// written with its parsed value, in the order of the dataset's `instances` — the order
/// one machine writes. A line that is not JSON, lacks `instance_id` or names no instance
/// of the dataset is refused, naming its file and line.
pub fn rows_in_dataset_order(
    read: &[(PathBuf, TaskManifest)],
    file: &str,
    instances: &[crate::model::Instance],
) -> Result<Vec<(String, serde_json::Value)>, ShardSetError> {
    let order: std::collections::HashMap<&str, usize> = instances
        .iter()
        .enumerate()
        .map(|(k, i)| (i.instance_id.as_str(), k))
        .collect();
    let mut rows = Vec::new();
    for (dir, _) in read {
        let path = dir.join(file);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(source) => return Err(ShardSetError::Read { path, source }),
        };
        for (n, line) in text.lines().enumerate() {
            let line_no = n + 1;
            let v: serde_json::Value =
                serde_json::from_str(line).map_err(|source| ShardSetError::NotARow {
                    path: path.clone(),
                    line: line_no,
                    source,
                })?;
            let id = v["instance_id"]
                .as_str()
                .ok_or_else(|| ShardSetError::NoInstanceId {
                    path: path.clone(),
                    line: line_no,
                })?;
            let at = *order
                .get(id)
                .ok_or_else(|| ShardSetError::UnknownInstance {
                    path: path.clone(),
                    line: line_no,
                    id: id.to_string(),
                })?;
            rows.push((at, line.to_string(), v));
        }
    }
    rows.sort_by_key(|r| r.0);
    Ok(rows.into_iter().map(|r| (r.1, r.2)).collect())
}

/// The dataset a set of shards worked on, checked unchanged (its instances.jsonl has the
/// SHA-256 the manifest records).
pub fn dataset_of(m: &TaskManifest) -> Result<PathBuf, ShardSetError> {
    let dir = PathBuf::from(&m.dataset);
    let jsonl = dir.join("instances.jsonl");
    let bytes = match std::fs::read(&jsonl) {
        Ok(b) => b,
        Err(source) => {
            return Err(ShardSetError::DatasetGone {
                path: jsonl,
                source,
            })
        }
    };
    if crate::dataset::sha256_hex(&bytes) != m.dataset_sha256 {
        return Err(ShardSetError::DatasetChanged { path: jsonl });
    }
    Ok(dir)
}

/// The hosts that ran the shards (sorted, distinct).
pub fn hosts<'a>(hosts: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut v: Vec<String> = hosts.map(str::to_string).collect();
    v.sort();
    v.dedup();
    v
}

pub use crate::lock::host_name;

#[cfg(test)]
mod tests;
