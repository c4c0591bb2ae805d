//! Dataset directory: layout, atomic writes, the dataset card and the report.

pub mod tables;

use crate::model::{Instance, SCHEMA_VERSION};
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

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> DatasetError + '_ {
    move |source| DatasetError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Write `bytes` to `path` through a temporary sibling and a rename, so a crash never
/// leaves a half-written file where a complete one is expected.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), DatasetError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io_err(path))
}

/// Instances as JSON Lines, sorted by `instance_id` so builds are byte-reproducible.
pub fn instances_jsonl(instances: &mut [Instance]) -> Vec<u8> {
    instances.sort_by_key(|i| natural_key(&i.instance_id));
    let mut out = Vec::new();
    for inst in instances.iter() {
        // Serializing plain data structs to a Vec cannot fail.
        if serde_json::to_writer(&mut out, inst).is_ok() {
            out.push(b'\n');
        }
    }
    out
}

/// Sort key that orders `Lang_2` before `Lang_10`.
fn natural_key(id: &str) -> (String, u64, String) {
    match id.rsplit_once('_') {
        Some((p, n)) if n.bytes().all(|b| b.is_ascii_digit()) && !n.is_empty() => {
            (p.to_string(), n.parse().unwrap_or(u64::MAX), String::new())
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

/// The dataset card (`dataset.yaml`).
#[derive(Debug, Serialize)]
pub struct Card<'a> {
    /// Dataset name.
    pub name: &'a str,
    /// Instance row schema version.
    pub schema_version: u32,
    /// hunkgen version that built it.
    pub tool_version: &'a str,
    /// Build time (UTC, RFC 3339).
    pub built_at: String,
    /// Source description (paths, revisions).
    pub sources: Vec<String>,
    /// Counts.
    pub counts: Counts,
    /// SHA-256 of each data file.
    pub checksums: Vec<(String, String)>,
    /// The recipe, verbatim.
    pub recipe: &'a str,
}

/// Counts for the card.
#[derive(Debug, Serialize, Default)]
pub struct Counts {
    /// Bugs or commits examined.
    pub examined: usize,
    /// Instances kept.
    pub instances: usize,
    /// Counted hunks over all instances.
    pub hunks: usize,
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
pub fn card_yaml(card: &Card<'_>) -> String {
    serde_norway::to_string(card).unwrap_or_default()
}

/// The `report/tables.md` text: tables plus the list of bugs whose raw `@@` count differs
/// from the counted one.
///
/// `examined` holds every bug the source produced, kept or not, so bugs that a counting
/// rule pushed below the threshold are listed too.
pub fn report_markdown(
    name: &str,
    instances: &[Instance],
    examined: &[Instance],
    compare: bool,
) -> String {
    let mut out = format!("# {name}: dataset report\n\n");
    let _ = writeln!(
        out,
        "{} instances, {} counted hunks (schema v{SCHEMA_VERSION}).\n",
        instances.len(),
        instances.iter().map(|i| i.stats.hunks).sum::<usize>()
    );
    out.push_str(&tables::render(instances, compare));
    out.push_str(&tables::render_all_files_variant(instances, compare));
    let _ = writeln!(out, "\n## Hunks not counted\n");
    let kept: std::collections::BTreeSet<&str> =
        instances.iter().map(|i| i.instance_id.as_str()).collect();
    let differing: Vec<&Instance> = examined
        .iter()
        .filter(|i| i.hunks.iter().any(|h| !h.counted))
        .collect();
    if differing.is_empty() {
        let _ = writeln!(out, "Every `@@` hunk of every instance is counted.");
    } else {
        let _ = writeln!(
            out,
            "Raw `@@` hunks of the patch against counted hunks, for every examined bug \
             where they differ, with the rule that excluded each hunk.\n"
        );
        let _ = writeln!(
            out,
            "| instance | raw `@@` | counted | kept | rule: hunks |"
        );
        let _ = writeln!(out, "|---|---|---|---|---|");
        for i in differing {
            let mut reasons: std::collections::BTreeMap<&str, usize> = Default::default();
            for h in i.hunks.iter().filter(|h| !h.counted) {
                *reasons
                    .entry(h.skip_reason.as_deref().unwrap_or("?"))
                    .or_default() += 1;
            }
            let why: Vec<String> = reasons.iter().map(|(r, n)| format!("{r}: {n}")).collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                i.instance_id,
                i.hunks.len(),
                i.stats.hunks,
                if kept.contains(i.instance_id.as_str()) {
                    "yes"
                } else {
                    "no"
                },
                why.join(", ")
            );
        }
    }
    out
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

/// Table III (proximity class × bugs × mean divergence) and the divergence distribution.
pub fn annotation_report(instances: &[Instance], warnings: &[String]) -> String {
    let mut out = proximity_table(instances);
    out.push_str(&distribution(instances));
    if !warnings.is_empty() {
        let _ = writeln!(out, "\n## Annotation warnings\n");
        for w in warnings {
            let _ = writeln!(out, "- {w}");
        }
    }
    let counts = note_counts(instances);
    if !counts.is_empty() {
        let _ = writeln!(out, "\n## Instances with annotation notes\n");
        let _ = writeln!(out, "| note | instances |");
        let _ = writeln!(out, "|---|---|");
        for (what, n) in counts {
            let _ = writeln!(out, "| {what} | {n} |");
        }
    }
    out
}

/// Table III: proximity class × bugs × mean divergence (with λ).
pub fn proximity_table(instances: &[Instance]) -> String {
    use crate::annotate::proximity::ProximityClass;
    let mut out = String::from("\n## Table III — proximity class × mean hunk divergence\n\n");
    let lambda = instances
        .iter()
        .find_map(|i| i.proximity.as_ref().map(|p| p.lambda));
    if let Some(l) = lambda {
        let _ = writeln!(out, "λ = {l}.\n");
    }
    let _ = writeln!(out, "| class | bugs | mean divergence |");
    let _ = writeln!(out, "|---|---|---|");
    let class_of = |i: &Instance| i.proximity.as_ref().and_then(|p| p.class);
    let div_of = |i: &Instance| i.divergence.as_ref().and_then(|d| d.value);
    for class in ProximityClass::ALL {
        let divs: Vec<f64> = instances
            .iter()
            .filter(|i| class_of(i) == Some(class))
            .filter_map(div_of)
            .collect();
        let bugs = instances
            .iter()
            .filter(|i| class_of(i) == Some(class))
            .count();
        let mean = if divs.is_empty() {
            "–".to_string()
        } else {
            format!("{:.4}", divs.iter().sum::<f64>() / divs.len() as f64)
        };
        let _ = writeln!(out, "| {} | {bugs} | {mean} |", class.name());
    }
    let unclassified = instances.iter().filter(|i| class_of(i).is_none()).count();
    if unclassified > 0 {
        let _ = writeln!(out, "| (undecided: no sources) | {unclassified} | |");
    }

    out
}

/// The divergence distribution summary (Div(P) and component quantiles).
fn distribution(instances: &[Instance]) -> String {
    let div_of = |i: &Instance| i.divergence.as_ref().and_then(|d| d.value);
    let mut out = String::new();
    let _ = writeln!(out, "\n## Divergence distribution\n");
    let divs: Vec<f64> = instances.iter().filter_map(div_of).collect();
    let _ = writeln!(
        out,
        "{} of {} instances have Div(P) (the rest lack a same-file D_ast).\n",
        divs.len(),
        instances.len()
    );
    let _ = writeln!(out, "| measure | min | median | mean | p75 | max |");
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    let row = |out: &mut String, name: &str, v: &[f64]| {
        if v.is_empty() {
            let _ = writeln!(out, "| {name} | – | – | – | – | – |");
            return;
        }
        let s = tables::summary(v);
        let _ = writeln!(
            out,
            "| {name} | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} |",
            s[0],
            s[1],
            s[2],
            percentile(v, 0.75),
            s[3]
        );
    };
    row(&mut out, "Div(P)", &divs);
    let pairs: Vec<&crate::model::PairRecord> = instances
        .iter()
        .filter_map(|i| i.divergence.as_ref())
        .flat_map(|d| d.pairs.iter())
        .collect();
    let lex: Vec<f64> = pairs.iter().map(|p| p.d_lex).collect();
    let ast: Vec<f64> = pairs.iter().filter_map(|p| p.d_ast).collect();
    let multi_file_dfile: Vec<f64> = pairs
        .iter()
        .map(|p| p.d_file)
        .filter(|d| *d > 0.0)
        .collect();
    row(&mut out, "D_lex (pairs)", &lex);
    let same_file_ast: Vec<f64> = pairs
        .iter()
        .filter(|p| p.d_file == 0.0)
        .filter_map(|p| p.d_ast)
        .collect();
    row(&mut out, "D_ast (all pairs; cross-file = 1)", &ast);
    row(&mut out, "D_ast (same-file pairs)", &same_file_ast);
    row(&mut out, "D_file (cross-file pairs)", &multi_file_dfile);
    out
}

/// Kinds of per-instance annotation notes, each counted once per instance.
pub fn note_counts(instances: &[Instance]) -> Vec<(&'static str, usize)> {
    const KINDS: [(&str, &str); 8] = [
        (
            "no repository for project",
            "no repository (AST fields null)",
        ),
        ("path missing at revision", "path missing at the revision"),
        ("unknown revision", "revision not in the repository"),
        (
            "patch does not apply",
            "patch does not apply (e.g. hunk outside the file)",
        ),
        ("not UTF-8", "file not UTF-8 (decoded lossily)"),
        ("over the 5 MB parse limit", "file over 5 MB (AST skipped)"),
        ("syntax error node", "syntax errors (tree kept)"),
        ("methods unknown", "single-file proximity undecided"),
    ];
    KINDS
        .iter()
        .map(|(needle, what)| {
            let n = instances
                .iter()
                .filter(|i| i.notes.iter().any(|n| n.contains(needle)))
                .count();
            (*what, n)
        })
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// Linear-interpolation percentile (numpy's default), as the paper's p75.
pub fn percentile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let pos = q * (v.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}
