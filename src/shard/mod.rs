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
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("`{text}`: expected K/N with 0 <= K < N, e.g. 0/4");
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
    pub fn resolve(flag: Option<&str>) -> Result<Option<Shard>, String> {
        Self::resolve_with(flag, |name| std::env::var(name).ok())
    }

    /// [`Shard::resolve`] with the environment given as a function (for tests).
    pub fn resolve_with(
        flag: Option<&str>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<Shard>, String> {
        if let Some(f) = flag {
            return Shard::parse(f)
                .map(Some)
                .map_err(|e| format!("--shard {e}"));
        }
        let var = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        if let Some(v) = var("HUNKGEN_SHARD") {
            return Shard::parse(&v)
                .map(Some)
                .map_err(|e| format!("HUNKGEN_SHARD={e}"));
        }
        let pair = |k: &str, n: &str| -> Result<Option<Shard>, String> {
            match (var(k), var(n)) {
                (Some(kv), Some(nv)) => Shard::parse(&format!("{kv}/{nv}"))
                    .map(Some)
                    .map_err(|e| format!("{k}/{n}: {e}")),
                (Some(_), None) => Err(format!(
                    "{k} is set but {n} is not: set {n} to the number of shards"
                )),
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
            let n = var("SLURM_ARRAY_TASK_COUNT").ok_or_else(|| {
                "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not: set SLURM_ARRAY_TASK_COUNT to the number of shards".to_string()
            })?;
            return Shard::parse(&format!("{k}/{n}"))
                .map(Some)
                .map_err(|e| format!("SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT: {e}"));
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
pub fn read_manifest(dir: &Path) -> Result<Manifest, String> {
    read_checked(dir, |m: &Manifest| (m.format, &m.checksums))
}

/// Read `dir/shard.yaml` as `T`, check its format and that every file it lists has its
/// checksum.
fn read_checked<T: DeserializeOwned>(
    dir: &Path,
    parts: impl Fn(&T) -> (u32, &[(String, String)]),
) -> Result<T, String> {
    let path = dir.join(MANIFEST);
    let m: T = read_yaml(dir)?;
    let (format, checksums) = parts(&m);
    if format != FORMAT {
        return Err(format!(
            "{}: manifest format {format} (this hunkgen reads {FORMAT})",
            path.display()
        ));
    }
    for (file, sum) in checksums {
        let p = dir.join(file);
        let bytes = std::fs::read(&p).map_err(|e| {
            format!(
                "{}: not a complete shard ({e}); run the shard again",
                p.display()
            )
        })?;
        if &crate::dataset::sha256_hex(&bytes) != sum {
            return Err(format!(
                "{}: does not match its manifest's checksum (a partial or edited shard); run the shard again",
                p.display()
            ));
        }
    }
    Ok(m)
}

/// `dir/shard.yaml` parsed as `T`; a missing or unreadable one is an incomplete shard.
fn read_yaml<T: DeserializeOwned>(dir: &Path) -> Result<T, String> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "{}: not a complete shard ({}: {e}); run the shard again",
            dir.display(),
            MANIFEST
        )
    })?;
    serde_norway::from_str(&text).map_err(|e| {
        format!(
            "{}: not a complete shard manifest ({e}); run the shard again",
            path.display()
        )
    })
}

/// The kind of every shard directory given: one kind, or `Err` naming two that differ.
pub fn kind_of_all(dirs: &[PathBuf]) -> Result<Kind, String> {
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
                return Err(format!(
                    "{} is a shard of `hunkgen {}` but {} is one of `hunkgen {}`: merge shards of one command",
                    dir.display(),
                    kind.command(),
                    d.display(),
                    k.command()
                ))
            }
            Some(_) => {}
        }
    }
    first
        .map(|(_, k)| k)
        .ok_or_else(|| "no shard directories given".to_string())
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
pub fn check_set(parts: &[Part<'_>], of_one: &str) -> Result<(), String> {
    let Some(first) = parts.first() else {
        return Err("no shard directories given".into());
    };
    for p in parts {
        for (a, b) in first.same.iter().zip(&p.same) {
            if a.key != b.key {
                return Err(format!(
                    "{} has {} `{}` but {} has `{}`: shards of one {of_one} only",
                    p.dir.display(),
                    b.what,
                    b.shown,
                    first.dir.display(),
                    a.shown
                ));
            }
        }
    }
    let n = first.count;
    let mut by_index: BTreeMap<u64, Vec<&Path>> = BTreeMap::new();
    for p in parts {
        by_index.entry(p.shard).or_default().push(p.dir);
    }
    let missing: Vec<String> = (0..n)
        .filter(|k| !by_index.contains_key(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "shard(s) {} missing (given {} of {n})",
            missing.join(", "),
            by_index.len()
        ));
    }
    if let Some((k, dirs)) = by_index.iter().find(|(_, d)| d.len() > 1) {
        return Err(format!(
            "shard {k}/{n} given twice: {}",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
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
            return Err(format!(
                "{}: `{id}` belongs to shard {}/{n}, not {shard}",
                p.dir.display(),
                Shard::of(id, n)
            ));
        }
        for id in &p.unique {
            if let Some(other) = seen.insert(id, p.dir) {
                return Err(format!(
                    "instance `{id}` is in two shards: {} and {}",
                    other.display(),
                    p.dir.display()
                ));
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
    /// `model` and `state`; for a run `agent`, `agent_sha256`, `prompt_variant`,
    /// `state`, `scenario`, `timeout` and `only`; for a validation `only`.
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
    pub fn finish(mut self, dir: &Path, files: &[String]) -> Result<(), String> {
        self.instances.sort();
        self.checksums = Vec::new();
        for f in files {
            let p = dir.join(f);
            let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            self.checksums
                .push((f.clone(), crate::dataset::sha256_hex(&bytes)));
        }
        let text = serde_norway::to_string(&self).map_err(|e| e.to_string())?;
        crate::dataset::write_atomic(&dir.join(MANIFEST), text.as_bytes())
            .map_err(|e| e.to_string())
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
    ) -> Result<TaskManifest, String> {
        let jsonl = dataset.join("instances.jsonl");
        let bytes = std::fs::read(&jsonl).map_err(|e| format!("{}: {e}", jsonl.display()))?;
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
) -> Result<Vec<(PathBuf, TaskManifest)>, String> {
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
        return Err(format!(
            "the shards cover {covered} instance(s) but the {} has {total}",
            kind.name()
        ));
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
) -> Result<Vec<(String, serde_json::Value)>, String> {
    let order: std::collections::HashMap<&str, usize> = instances
        .iter()
        .enumerate()
        .map(|(k, i)| (i.instance_id.as_str(), k))
        .collect();
    let mut rows = Vec::new();
    for (dir, _) in read {
        let path = dir.join(file);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        for (n, line) in text.lines().enumerate() {
            let bad = |what: &str| format!("{}:{}: {what}", path.display(), n + 1);
            let v: serde_json::Value =
                serde_json::from_str(line).map_err(|e| bad(&format!("not a row: {e}")))?;
            let id = v["instance_id"]
                .as_str()
                .ok_or_else(|| bad("no instance_id"))?;
            let at = *order
                .get(id)
                .ok_or_else(|| bad(&format!("`{id}` is not an instance of the dataset")))?;
            rows.push((at, line.to_string(), v));
        }
    }
    rows.sort_by_key(|r| r.0);
    Ok(rows.into_iter().map(|r| (r.1, r.2)).collect())
}

/// The dataset a set of shards worked on, checked unchanged (its instances.jsonl has the
/// SHA-256 the manifest records).
pub fn dataset_of(m: &TaskManifest) -> Result<PathBuf, String> {
    let dir = PathBuf::from(&m.dataset);
    let jsonl = dir.join("instances.jsonl");
    let bytes = std::fs::read(&jsonl).map_err(|e| {
        format!(
            "{}: {e} (merge reads the dataset where the shards read it)",
            jsonl.display()
        )
    })?;
    if crate::dataset::sha256_hex(&bytes) != m.dataset_sha256 {
        return Err(format!(
            "{}: changed since the shards ran (its SHA-256 is not the manifests' dataset_sha256)",
            jsonl.display()
        ));
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

/// This machine's host name (`/etc/hostname`, else `HOSTNAME`, else `unknown`).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_documented_sha256_prefix() {
        // SHA-256("abc") = ba7816bf 8f01cfea ...
        assert_eq!(stable_hash("abc"), 0xba78_16bf_8f01_cfea);
        assert_eq!(Shard::of("abc", 4), 0xba78_16bf_8f01_cfea % 4);
    }

    #[test]
    fn every_id_has_exactly_one_shard_and_adding_ids_moves_none() {
        let ids: Vec<String> = (0..200).map(|i| format!("acme-{i:04}")).collect();
        for id in &ids {
            let owners: Vec<u64> = (0..4)
                .filter(|&k| Shard { index: k, count: 4 }.owns(id))
                .collect();
            assert_eq!(owners.len(), 1, "{id}");
        }
        let before: Vec<u64> = ids.iter().map(|i| Shard::of(i, 4)).collect();
        // Not by position: the same id lands in the same shard whatever else exists.
        let after: Vec<u64> = ids.iter().rev().map(|i| Shard::of(i, 4)).collect();
        assert_eq!(before, after.into_iter().rev().collect::<Vec<_>>());
        let used: std::collections::BTreeSet<u64> = before.into_iter().collect();
        assert_eq!(used.len(), 4, "200 ids spread over all four shards");
    }

    #[test]
    fn a_set_is_checked_for_values_gaps_doubles_and_owners() {
        let ids: Vec<String> = (0..40).map(|i| format!("acme-{i:04}")).collect();
        let owned = |k: u64| -> Vec<&str> {
            ids.iter()
                .map(String::as_str)
                .filter(|id| Shard::of(id, 3) == k)
                .collect()
        };
        let dirs: Vec<PathBuf> = (0..3).map(|k| PathBuf::from(format!("s{k}"))).collect();
        let part = |k: u64, v: &str| Part {
            dir: &dirs[k as usize],
            shard: k,
            count: 3,
            same: vec![Same::new("dataset sha256", v)],
            owned: owned(k),
            unique: owned(k),
        };
        let good: Vec<Part> = (0..3).map(|k| part(k, "a")).collect();
        assert_eq!(check_set(&good, "run"), Ok(()));
        let e = check_set(&[part(0, "a"), part(1, "b"), part(2, "a")], "run").expect_err("value");
        assert_eq!(
            e,
            "s1 has dataset sha256 `b` but s0 has `a`: shards of one run only"
        );
        let e = check_set(&good[..2], "run").expect_err("gap");
        assert!(e.starts_with("shard(s) 2/3 missing"), "{e}");
        let e = check_set(
            &[part(0, "a"), part(1, "a"), part(2, "a"), part(1, "a")],
            "run",
        )
        .expect_err("double");
        assert!(e.starts_with("shard 1/3 given twice"), "{e}");
        let mut wrong = part(2, "a");
        wrong.owned.push(owned(0)[0]);
        let e = check_set(&[part(0, "a"), part(1, "a"), wrong], "run").expect_err("owner");
        assert!(e.contains("belongs to shard 0/3, not 2/3"), "{e}");
    }

    #[test]
    fn parse_and_environment() {
        assert_eq!(Shard::parse("1/4"), Ok(Shard { index: 1, count: 4 }));
        for bad in ["4/4", "1", "a/4", "0/0", "-1/4"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let s = |k, n| Ok(Some(Shard { index: k, count: n }));
        assert_eq!(Shard::resolve_with(None, env(&[])), Ok(None));
        assert_eq!(
            Shard::resolve_with(Some("2/3"), env(&[("HUNKGEN_SHARD", "0/2")])),
            s(2, 3)
        );
        assert_eq!(
            Shard::resolve_with(
                None,
                env(&[("HUNKGEN_SHARD", "0/2"), ("SLURM_ARRAY_TASK_ID", "1")])
            ),
            s(0, 2)
        );
        assert_eq!(
            Shard::resolve_with(
                None,
                env(&[
                    ("SLURM_ARRAY_TASK_ID", "3"),
                    ("SLURM_ARRAY_TASK_COUNT", "4"),
                    ("JOB_COMPLETION_INDEX", "1")
                ])
            ),
            s(3, 4)
        );
        assert_eq!(
            Shard::resolve_with(
                None,
                env(&[
                    ("SLURM_ARRAY_TASK_ID", "4"),
                    ("SLURM_ARRAY_TASK_COUNT", "4"),
                    ("SLURM_ARRAY_TASK_MIN", "1")
                ])
            ),
            s(3, 4)
        );
        assert_eq!(
            Shard::resolve_with(
                None,
                env(&[("JOB_COMPLETION_INDEX", "1"), ("HUNKGEN_SHARD_COUNT", "4")])
            ),
            s(1, 4)
        );
        let e =
            Shard::resolve_with(None, env(&[("JOB_COMPLETION_INDEX", "1")])).expect_err("no count");
        assert!(e.contains("HUNKGEN_SHARD_COUNT"), "{e}");
        assert!(Shard::resolve_with(None, env(&[("HUNKGEN_SHARD", "5/4")])).is_err());
    }
}
