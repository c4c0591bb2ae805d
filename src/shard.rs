//! Deterministic shards: splitting a build's per-instance work over machines without a
//! scheduler of our own (Slurm array tasks, Kubernetes Indexed Jobs run the pieces).
//!
//! An instance belongs to shard `stable_hash(instance_id) mod N`, where `stable_hash` is
//! the first 8 bytes of the SHA-256 of the id's UTF-8 bytes read as a big-endian `u64`.
//! The assignment depends on the id alone, never on a position, so adding instances
//! never moves the others. Each shard writes its own dataset directory with a manifest
//! (`shard.yaml`); `hunkgen merge` checks the manifests and joins the shards into the
//! dataset a one-machine build writes.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::Path;

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

/// What a shard directory holds and what `merge` needs beyond its dataset files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Manifest format version.
    pub format: u32,
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
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "{}: not a complete shard ({}: {e}); run the shard again",
            dir.display(),
            MANIFEST
        )
    })?;
    let m: Manifest = serde_norway::from_str(&text).map_err(|e| {
        format!(
            "{}: not a complete shard manifest ({e}); run the shard again",
            path.display()
        )
    })?;
    if m.format != FORMAT {
        return Err(format!(
            "{}: manifest format {} (this hunkgen reads {FORMAT})",
            path.display(),
            m.format
        ));
    }
    for (file, sum) in &m.checksums {
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
