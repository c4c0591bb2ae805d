//! Dataset directory: layout, atomic writes, the dataset card and the report.

pub mod export;
pub mod writer;

pub use writer::DatasetWriter;

use crate::model::{Card, Instance};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A dataset file that could not be written or read, with its path.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// An I/O failure on a dataset file.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The output path cannot hold a dataset, or holds another recipe's.
    #[error("{path}: {what}")]
    Refused {
        /// The output directory.
        path: PathBuf,
        /// Why, and what would make it go.
        what: String,
    },
    /// Another process is writing the same output (its lock is held).
    #[error("{}: being written by another hunkgen, {holder} (lock {}); wait for it to finish, or choose another output", path.display(), lock.display())]
    Locked {
        /// The output directory.
        path: PathBuf,
        /// The lock file.
        lock: PathBuf,
        /// Who holds it: `pid N on HOST (hunkgen COMMAND)`.
        holder: String,
    },
    /// A malformed `instances.jsonl` line.
    #[error("{path}:{line}: {what}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What was wrong.
        what: String,
    },
}

/// Take the lock on output directory `output` for this process, or say who holds it.
pub fn lock_output(output: &Path) -> Result<crate::lock::OutputLock, DatasetError> {
    crate::lock::OutputLock::acquire(output).map_err(|e| match e {
        crate::lock::LockError::Held(h) => DatasetError::Locked {
            path: output.to_path_buf(),
            lock: h.lock,
            holder: h.holder,
        },
        crate::lock::LockError::Io(path, source) => DatasetError::Io { path, source },
    })
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> DatasetError + '_ {
    move |source| DatasetError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Write `bytes` to `path` through a temporary sibling and a rename, so a crash never
/// leaves a half-written file where a complete one is expected.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), DatasetError> {
    write_all_atomic(&[(path, bytes)])
}

/// Write several files as [`write_atomic`] does, all their temporary siblings first and
/// only then the renames: a failure while writing (a full disk) leaves every one of them
/// as it was. Each temporary file is locked (`flock`) while it is written, so a later
/// write of the same file removes those of a writer that was killed.
pub fn write_all_atomic(files: &[(&Path, &[u8])]) -> Result<(), DatasetError> {
    let mut written: Vec<(PathBuf, &Path)> = Vec::new();
    let mut result = Ok(());
    for (path, bytes) in files {
        let dir = path.parent().unwrap_or(Path::new("."));
        if let Err(e) = std::fs::create_dir_all(dir) {
            result = Err(io_err(dir)(e));
            break;
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        remove_dead_temporaries(dir, &format!(".{name}.tmp-"));
        let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
        let r = (|| {
            let mut f = crate::lock::create_locked(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()
        })();
        written.push((tmp, path));
        if let Err(e) = r {
            result = Err(io_err(path)(e));
            break;
        }
    }
    if result.is_ok() {
        for (tmp, path) in &written {
            if let Err(e) = std::fs::rename(tmp, path) {
                result = Err(io_err(path)(e));
                break;
            }
        }
    }
    for (tmp, _) in &written {
        if tmp.exists() {
            let _ = std::fs::remove_file(tmp);
        }
    }
    result
}

/// Remove the files in `dir` named `<prefix>…` whose writer is gone (their lock is free).
fn remove_dead_temporaries(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with(prefix)
            && crate::lock::dead_temporary(&e.path())
        {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Instances as JSON Lines, sorted by `instance_id` so builds are byte-reproducible.
pub fn instances_jsonl(instances: &mut [Instance]) -> Vec<u8> {
    instances.sort_by_key(|i| natural_key(&i.instance_id));
    jsonl(instances)
}

/// Rows as JSON Lines, in the given order.
pub fn jsonl<T: Serialize>(rows: &[T]) -> Vec<u8> {
    let mut out = Vec::new();
    for row in rows {
        // Serializing plain data structs to a Vec cannot fail.
        if serde_json::to_writer(&mut out, row).is_ok() {
            out.push(b'\n');
        }
    }
    out
}

/// Percent-encode everything but RFC 3986's unreserved characters: one URL path segment
/// (the report's links) or query value (the GitHub source's branch filter).
pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Sort key that orders `Lang_2` before `Lang_10`. The id itself breaks ties (`Lang_7`
/// and `Lang_07`, numbers past `u64`), so the order never depends on the input's order:
/// merged shards sort exactly as one machine's rows.
pub fn natural_key(id: &str) -> (String, u64, String) {
    match id.rsplit_once('_') {
        Some((p, n)) if n.bytes().all(|b| b.is_ascii_digit()) && !n.is_empty() => {
            (p.to_string(), n.parse().unwrap_or(u64::MAX), id.to_string())
        }
        _ => (id.to_string(), 0, String::new()),
    }
}

/// Read a dataset's `instances.jsonl`.
pub fn read_instances(dataset: &Path) -> Result<Vec<Instance>, DatasetError> {
    let path = dataset.join("instances.jsonl");
    let text = std::fs::read_to_string(&path).map_err(io_err(&path))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| DatasetError::Parse {
                path: path.clone(),
                line: i + 1,
                what: format!("not an instance: {e}"),
            })
        })
        .collect()
}

/// Hex SHA-256 of bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Seconds since the epoch as an RFC 3339 UTC timestamp (no extra dependency).
pub fn rfc3339(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Card text for a finished build.
pub fn card_yaml(card: &Card) -> String {
    serde_norway::to_string(card).unwrap_or_default()
}

/// Read a dataset's `rejected.jsonl` (empty when the file is absent).
pub fn read_rejected(dataset: &Path) -> Result<Vec<crate::model::Rejected>, DatasetError> {
    let path = dataset.join("rejected.jsonl");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(&path)(e)),
    };
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| DatasetError::Parse {
                path: path.clone(),
                line: i + 1,
                what: format!("not a rejected row: {e}"),
            })
        })
        .collect()
}

/// Read a dataset's card, if it has one.
pub fn read_card(dataset: &Path) -> Result<Option<Card>, DatasetError> {
    let path = dataset.join("dataset.yaml");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(&path)(e)),
    };
    serde_norway::from_str(&text)
        .map(Some)
        .map_err(|e| DatasetError::Parse {
            path,
            line: e.location().map(|l| l.line()).unwrap_or(0),
            what: format!("not a hunkgen dataset card: {e}"),
        })
}

/// `pairs.csv`: one row per hunk pair of every annotated instance.
pub fn pairs_csv(instances: &[Instance]) -> String {
    let mut out = String::from(
        "instance_id,profile,i,j,file_i,file_j,d_lex,d_ast,d_file,gamma,div,dist,diameter\n",
    );
    let opt = |v: Option<f64>| v.map(|x| format!("{x:.6}")).unwrap_or_default();
    for inst in instances {
        let Some(div) = &inst.divergence else {
            continue;
        };
        let files: Vec<&str> = ordered_files(inst);
        for p in &div.pairs {
            let (dist, diam) = p
                .dist
                .map(|(d, m)| (d.to_string(), m.to_string()))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{:.6},{},{:.6},{},{},{},{}",
                inst.instance_id,
                div.profile,
                p.i,
                p.j,
                files.get(p.i).copied().unwrap_or(""),
                files.get(p.j).copied().unwrap_or(""),
                p.d_lex,
                opt(p.d_ast),
                p.d_file,
                p.gamma,
                opt(p.div),
                dist,
                diam
            );
        }
    }
    out
}

/// Files of the counted hunks in annotation order (pair indices refer to it).
fn ordered_files(inst: &Instance) -> Vec<&str> {
    let mut v: Vec<(usize, &str)> = inst
        .hunks
        .iter()
        .filter(|h| h.counted)
        .enumerate()
        .map(|(k, h)| {
            (
                h.place.as_ref().map(|p| p.order).unwrap_or(k),
                h.file.as_str(),
            )
        })
        .collect();
    v.sort();
    v.into_iter().map(|(_, f)| f).collect()
}

/// Copy a directory tree into `to`, merging with what is there: files with their
/// permissions, symlinks as symlinks, files hardlinked together in the source (`links`,
/// shared across calls) hardlinked together here; an existing file is kept (a shard's
/// layered pack that another shard also wrote).
pub fn copy_tree(
    from: &Path,
    to: &Path,
    links: &mut std::collections::HashMap<(u64, u64), std::path::PathBuf>,
) -> Result<(), DatasetError> {
    use std::os::unix::fs::MetadataExt;
    std::fs::create_dir_all(to).map_err(io_err(to))?;
    for entry in std::fs::read_dir(from).map_err(io_err(from))? {
        let entry = entry.map_err(io_err(from))?;
        let src = entry.path();
        let dst = to.join(entry.file_name());
        let meta = std::fs::symlink_metadata(&src).map_err(io_err(&src))?;
        if meta.is_dir() {
            copy_tree(&src, &dst, links)?;
        } else if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&src).map_err(io_err(&src))?;
            std::os::unix::fs::symlink(&target, &dst).map_err(io_err(&dst))?;
        } else if dst.exists() {
            // A layered pack another shard also wrote (same name, same objects).
        } else if let Some(first) = links.get(&(meta.dev(), meta.ino())) {
            std::fs::hard_link(first, &dst).map_err(io_err(&dst))?;
        } else {
            std::fs::copy(&src, &dst).map_err(io_err(&dst))?;
            if meta.nlink() > 1 {
                links.insert((meta.dev(), meta.ino()), dst);
            }
        }
    }
    Ok(())
}

/// Recreate the tree `from` at `to` (which must not exist) with every file hardlinked
/// (copied where a link is refused), symlinks as symlinks: a rebuild's unchanged states
/// taken from the dataset it replaces without copying their bytes.
pub fn link_tree(from: &Path, to: &Path) -> Result<(), DatasetError> {
    std::fs::create_dir_all(to.parent().unwrap_or(Path::new("."))).map_err(io_err(to))?;
    std::fs::create_dir(to).map_err(io_err(to))?;
    for entry in std::fs::read_dir(from).map_err(io_err(from))? {
        let entry = entry.map_err(io_err(from))?;
        let src = entry.path();
        let dst = to.join(entry.file_name());
        let kind = entry.file_type().map_err(io_err(&src))?;
        if kind.is_dir() {
            link_tree(&src, &dst)?;
        } else if kind.is_symlink() {
            let target = std::fs::read_link(&src).map_err(io_err(&src))?;
            std::os::unix::fs::symlink(&target, &dst).map_err(io_err(&dst))?;
        } else if std::fs::hard_link(&src, &dst).is_err() {
            std::fs::copy(&src, &dst).map_err(io_err(&dst))?;
        }
    }
    Ok(())
}

/// Whether dataset directory `new`, with the files `held` (relative path → text) that
/// are still to be written into it, holds the same files as `old`, `states/` aside: the
/// same paths with the same bytes, but for the `built_at:` line of `dataset.yaml`. A
/// rebuild that would change nothing but the time keeps the old dataset.
pub fn same_but_built_at(
    new: &Path,
    held: &std::collections::BTreeMap<PathBuf, String>,
    old: &Path,
) -> bool {
    fn files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for e in std::fs::read_dir(dir)? {
            let e = e?;
            let path = e.path();
            if dir == root && e.file_name() == "states" {
                continue;
            }
            if e.file_type()?.is_dir() {
                files(root, &path, out)?;
            } else {
                out.push(path.strip_prefix(root).unwrap_or(&path).to_path_buf());
            }
        }
        Ok(())
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    if files(new, new, &mut a).is_err() || files(old, old, &mut b).is_err() {
        return false;
    }
    a.extend(held.keys().filter(|p| !new.join(p).exists()).cloned());
    a.sort();
    b.sort();
    let timeless = |bytes: Vec<u8>| -> Vec<u8> {
        bytes
            .split_inclusive(|&c| c == b'\n')
            .filter(|l| !l.starts_with(b"built_at:"))
            .flatten()
            .copied()
            .collect()
    };
    a == b
        && a.iter().all(|rel| {
            match (
                std::fs::read(new.join(rel))
                    .or_else(|e| held.get(rel).map(|t| t.as_bytes().to_vec()).ok_or(e)),
                std::fs::read(old.join(rel)),
            ) {
                (Ok(x), Ok(y)) if rel.as_os_str() == "dataset.yaml" => timeless(x) == timeless(y),
                (Ok(x), Ok(y)) => x == y,
                _ => false,
            }
        })
}

#[cfg(test)]
mod tests {
    use super::{natural_key, percent_encode};

    #[test]
    fn percent_encoding_keeps_only_unreserved_bytes() {
        assert_eq!(percent_encode("a b/<c>"), "a%20b%2F%3Cc%3E");
        assert_eq!(percent_encode("fix/x+y#1~ok-._"), "fix%2Fx%2By%231~ok-._");
    }

    #[test]
    fn natural_order_is_total_whatever_the_input_order() {
        let mut a = vec![
            "Lang_10", "Lang_07", "Lang_2", "Lang_7", "acme-1f", "Chart_1",
        ];
        let mut b = a.clone();
        b.reverse();
        a.sort_by_key(|id| natural_key(id));
        b.sort_by_key(|id| natural_key(id));
        assert_eq!(a, b);
        assert_eq!(
            a,
            ["Chart_1", "Lang_2", "Lang_07", "Lang_7", "Lang_10", "acme-1f"]
        );
    }
}
