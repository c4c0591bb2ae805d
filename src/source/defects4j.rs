//! Defects4J source: reads a `framework/projects` tree into forward-direction bugs.
//!
//! Defects4J patches go from the fixed to the buggy revision; everything produced here
//! is reversed into the usual buggy → fixed direction.

use super::{Base, Candidate, SourceOutput, Tree};
use crate::diff::{self, Patch};
use crate::model::{RejectReason, Rejected, RepoCommits, Report, SourceKind, Stage};
use crate::progress::Progress;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A Defects4J input that cannot be used, with the file and place.
#[derive(Debug, thiserror::Error)]
pub enum D4jError {
    /// The projects directory or a project is missing.
    #[error("{path}: {what}")]
    Missing {
        /// The missing path.
        path: PathBuf,
        /// What was expected there.
        what: String,
    },
    /// A file could not be read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A CSV file is malformed.
    #[error("{path}:{line}: {what}")]
    Csv {
        /// The CSV file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What was expected.
        what: String,
    },
    /// A patch does not parse (`path:line: what`).
    #[error(transparent)]
    Patch(#[from] diff::PatchFileError),
}

/// One active bug of a project, with its patches already in forward direction.
#[derive(Debug, Clone)]
pub struct D4jBug {
    /// Project name (`Lang`).
    pub project: String,
    /// Defects4J bug number.
    pub id: u32,
    /// `revision.id.buggy`.
    pub buggy_rev: String,
    /// `revision.id.fixed`.
    pub fixed_rev: String,
    /// `report.id` (`UNKNOWN` becomes `None`).
    pub report_id: Option<String>,
    /// `report.url` (`UNKNOWN` becomes `None`).
    pub report_url: Option<String>,
    /// Forward (buggy → fixed) source patch.
    pub patch: Patch,
    /// The source patch as Defects4J ships it (fixed → buggy), hunk numbers realigned.
    pub to_buggy: Patch,
    /// Forward test patch (empty when Defects4J has none).
    pub test_patch: Patch,
    /// Failing tests, `pkg.Class::method`.
    pub trigger_tests: Vec<String>,
    /// What each trigger test says when it fails (message and trimmed trace).
    pub failures: Vec<crate::model::Failure>,
    /// Classes the fix modifies, in `modified_classes` order.
    pub modified_classes: Vec<String>,
}

/// The project directories under `root`, all or the named subset, in name order.
pub fn project_dirs(
    root: &Path,
    only: Option<&[String]>,
) -> Result<Vec<(String, PathBuf)>, D4jError> {
    if !root.is_dir() {
        return Err(D4jError::Missing {
            path: root.to_path_buf(),
            what: "not a directory (expected Defects4J's framework/projects)".into(),
        });
    }
    let mut dirs = Vec::new();
    match only {
        Some(names) => {
            for name in names {
                let dir = root.join(name);
                if !dir.join("active-bugs.csv").is_file() {
                    return Err(D4jError::Missing {
                        path: dir.join("active-bugs.csv"),
                        what: format!("missing (is `{name}` a Defects4J project?)"),
                    });
                }
                dirs.push((name.clone(), dir));
            }
        }
        None => {
            let entries = std::fs::read_dir(root).map_err(|source| D4jError::Io {
                path: root.to_path_buf(),
                source,
            })?;
            for entry in entries.flatten() {
                let path = entry.path();
                if path.join("active-bugs.csv").is_file() {
                    dirs.push((entry.file_name().to_string_lossy().into_owned(), path));
                }
            }
            if dirs.is_empty() {
                return Err(D4jError::Missing {
                    path: root.join("*/active-bugs.csv"),
                    what: "no project directory with an active-bugs.csv".into(),
                });
            }
        }
    }
    dirs.sort();
    Ok(dirs)
}

/// A row of `active-bugs.csv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActiveBug {
    /// `bug.id`.
    pub id: u32,
    /// `revision.id.buggy`.
    pub buggy_rev: String,
    /// `revision.id.fixed`.
    pub fixed_rev: String,
    /// `report.id`.
    pub report_id: Option<String>,
    /// `report.url`.
    pub report_url: Option<String>,
}

const COLUMNS: [&str; 5] = [
    "bug.id",
    "revision.id.buggy",
    "revision.id.fixed",
    "report.id",
    "report.url",
];

/// Parse `active-bugs.csv` by column name, so column order does not matter.
pub fn read_active_bugs(path: &Path) -> Result<Vec<ActiveBug>, D4jError> {
    let text = std::fs::read_to_string(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => D4jError::Missing {
            path: path.to_path_buf(),
            what: "missing (expected the project's active-bugs.csv)".into(),
        },
        _ => D4jError::Io {
            path: path.to_path_buf(),
            source,
        },
    })?;
    let mut lines = text.lines().enumerate();
    let csv_err = |line: usize, what: String| D4jError::Csv {
        path: path.to_path_buf(),
        line,
        what,
    };
    let header: Vec<&str> = match lines.next() {
        Some((_, h)) => h.split(',').map(str::trim).collect(),
        None => return Err(csv_err(1, "empty file (expected a header line)".into())),
    };
    let mut idx = [0usize; 5];
    for (slot, col) in idx.iter_mut().zip(COLUMNS) {
        *slot = header.iter().position(|h| *h == col).ok_or_else(|| {
            csv_err(
                1,
                format!("missing column `{col}` (header has: {})", header.join(", ")),
            )
        })?;
    }
    let unknown = |s: &str| (s != "UNKNOWN" && !s.is_empty()).then(|| s.to_string());
    let mut bugs = Vec::new();
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() < header.len() {
            return Err(csv_err(
                i + 1,
                format!("expected {} columns, found {}", header.len(), cells.len()),
            ));
        }
        let id = cells[idx[0]].parse().map_err(|_| {
            csv_err(
                i + 1,
                format!("`bug.id` is `{}`, expected a number", cells[idx[0]]),
            )
        })?;
        bugs.push(ActiveBug {
            id,
            buggy_rev: cells[idx[1]].to_string(),
            fixed_rev: cells[idx[2]].to_string(),
            report_id: unknown(cells[idx[3]]),
            report_url: unknown(cells[idx[4]]),
        });
    }
    bugs.sort_by_key(|b| b.id);
    Ok(bugs)
}

fn read_bytes(path: &Path) -> Result<Vec<u8>, D4jError> {
    std::fs::read(path).map_err(|source| D4jError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Parse a reversed Defects4J patch file and turn it forward; a missing file is empty.
pub fn read_forward_patch(path: &Path, required: bool) -> Result<Patch, D4jError> {
    read_patch(path, required).map(|(forward, _)| forward)
}

/// A Defects4J patch file as (forward, as shipped): the fixed → buggy patch with its
/// hunk numbers realigned, and its reversal. A missing optional file is empty.
fn read_patch(path: &Path, required: bool) -> Result<(Patch, Patch), D4jError> {
    if !required && !path.exists() {
        return Ok((Patch::default(), Patch::default()));
    }
    let bytes = read_bytes(path)?;
    let mut reversed = diff::parse(&bytes).map_err(|e| e.with_file(path))?;
    // Defects4J applies its patch to the fixed file by the old side; a hand-trimmed
    // patch's stated buggy-side numbers can be off, and spans must be where the lines are.
    for fp in &mut reversed.files {
        fp.realign_new_starts();
    }
    Ok((reversed.reversed(), reversed))
}

/// Test names from a `trigger_tests/<id>` file (`--- pkg.Class::method` lines).
pub fn read_trigger_tests(path: &Path) -> Result<Vec<String>, D4jError> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let bytes = read_bytes(path)?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(text
        .lines()
        .filter_map(|l| l.strip_prefix("--- "))
        .map(|t| t.trim().to_string())
        .collect())
}

/// Each trigger test's failure: the `--- id` line, the exception line that follows (the
/// message) and the stack trace, trimmed to its first 20 lines.
pub fn read_trigger_failures(path: &Path) -> Result<Vec<crate::model::Failure>, D4jError> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let bytes = read_bytes(path)?;
    let text = String::from_utf8_lossy(&bytes);
    let mut out: Vec<(String, Vec<&str>)> = Vec::new();
    for line in text.lines() {
        match line.strip_prefix("--- ") {
            Some(id) => out.push((id.trim().to_string(), Vec::new())),
            None => {
                if let Some((_, lines)) = out.last_mut() {
                    lines.push(line);
                }
            }
        }
    }
    Ok(out
        .into_iter()
        .map(|(test, lines)| crate::model::Failure {
            test,
            message: lines
                .first()
                .map(|l| l.trim().to_string())
                .unwrap_or_default(),
            trace: lines
                .iter()
                .take(20)
                .copied()
                .collect::<Vec<_>>()
                .join("\n"),
        })
        .collect())
}

fn read_lines(path: &Path) -> Result<Vec<String>, D4jError> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let bytes = read_bytes(path)?;
    Ok(String::from_utf8_lossy(&bytes)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect())
}

/// Read one active bug's files.
pub fn read_bug(project: &str, dir: &Path, row: &ActiveBug) -> Result<D4jBug, D4jError> {
    let id = row.id;
    let (patch, to_buggy) = read_patch(&dir.join(format!("patches/{id}.src.patch")), true)?;
    let test_patch = read_forward_patch(&dir.join(format!("patches/{id}.test.patch")), false)?;
    Ok(D4jBug {
        project: project.to_string(),
        id,
        buggy_rev: row.buggy_rev.clone(),
        fixed_rev: row.fixed_rev.clone(),
        report_id: row.report_id.clone(),
        report_url: row.report_url.clone(),
        patch,
        to_buggy,
        test_patch,
        trigger_tests: read_trigger_tests(&dir.join(format!("trigger_tests/{id}")))?,
        failures: read_trigger_failures(&dir.join(format!("trigger_tests/{id}")))?,
        modified_classes: read_lines(&dir.join(format!("modified_classes/{id}.src")))?,
    })
}

/// Upstream repository of each Defects4J project (from Defects4J's documentation), so
/// instances carry a real `repo` field.
pub fn upstream_repo(project: &str) -> Option<&'static str> {
    Some(match project {
        "Chart" => "jfree/jfreechart",
        "Cli" => "apache/commons-cli",
        "Closure" => "google/closure-compiler",
        "Codec" => "apache/commons-codec",
        "Collections" => "apache/commons-collections",
        "Compress" => "apache/commons-compress",
        "Csv" => "apache/commons-csv",
        "Gson" => "google/gson",
        "JacksonCore" => "FasterXML/jackson-core",
        "JacksonDatabind" => "FasterXML/jackson-databind",
        "JacksonXml" => "FasterXML/jackson-dataformat-xml",
        "Jsoup" => "jhy/jsoup",
        "JxPath" => "apache/commons-jxpath",
        "Lang" => "apache/commons-lang",
        "Math" => "apache/commons-math",
        "Mockito" => "mockito/mockito",
        "Time" => "JodaOrg/joda-time",
        _ => return None,
    })
}

/// One row of a revision map: the commit to read instead of Defects4J's fixed revision
/// and, when the map gives it, the one to end a state's history at.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MappedRevision {
    /// The fix, in the repository.
    pub fixed: String,
    /// The buggy revision, in the repository (`None`: the fix's first parent).
    pub buggy: Option<String>,
}

/// Read a revision map CSV: the `from` column's value → the `to` column's value (and the
/// `buggy` column's, when named), so rewritten histories (Math) or re-imported main lines
/// (Lang) are data, not code.
pub fn read_revision_map(
    path: &Path,
    from: &str,
    to: &str,
    buggy: Option<&str>,
) -> Result<std::collections::BTreeMap<String, MappedRevision>, D4jError> {
    let text = std::fs::read_to_string(path).map_err(|source| D4jError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines
        .next()
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| D4jError::Csv {
                path: path.to_path_buf(),
                line: 1,
                what: format!(
                    "missing column `{name}` (header has: {})",
                    header.join(", ")
                ),
            })
    };
    let (f, t) = (col(from)?, col(to)?);
    let b = buggy.map(col).transpose()?;
    let mut map = std::collections::BTreeMap::new();
    for line in lines {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if let (Some(a), Some(fixed)) = (cells.get(f), cells.get(t)) {
            if !a.is_empty() && !fixed.is_empty() {
                let buggy = b
                    .and_then(|b| cells.get(b))
                    .filter(|v| !v.is_empty())
                    .map(|v| v.to_string());
                map.insert(
                    a.to_string(),
                    MappedRevision {
                        fixed: fixed.to_string(),
                        buggy,
                    },
                );
            }
        }
    }
    Ok(map)
}

/// A project's repository and how Defects4J's revisions map onto it.
#[derive(Debug, Clone, Default)]
pub struct ProjectRepo {
    /// Local clone or mirror; `None` leaves AST fields null for the project.
    pub path: Option<PathBuf>,
    /// Defects4J `revision.id.fixed` → the commits to read instead.
    pub revision_map: BTreeMap<String, MappedRevision>,
    /// Directory prefixes tried when a path is missing at a revision.
    pub prefixes: Vec<String>,
}

/// Everything the Defects4J source needs, resolved and checked by the recipe plan.
#[derive(Debug, Clone)]
pub struct D4jConfig {
    /// The `framework/projects` directory.
    pub root: PathBuf,
    /// The Defects4J release the recipe says the tree is (`v2.1.0`), for the card.
    pub version: Option<String>,
    /// The project directories to read, in name order.
    pub projects: Vec<(String, PathBuf)>,
    /// Only these bugs (`<Project>_<id>`), when the recipe names them.
    pub bugs: Option<std::collections::BTreeSet<String>>,
    /// Per project: its repository (absent projects have none).
    pub repos: BTreeMap<String, ProjectRepo>,
}

/// Read every active bug of the configured projects into candidates; a bug whose files
/// do not parse or cannot be read becomes a rejection and the rest go on.
pub fn candidates(cfg: &D4jConfig, progress: &Progress) -> Result<SourceOutput, D4jError> {
    let mut work = Vec::new();
    for (name, dir) in &cfg.projects {
        let rows = read_active_bugs(&dir.join("active-bugs.csv"))?;
        work.extend(
            rows.into_iter()
                .filter(|r| {
                    cfg.bugs
                        .as_ref()
                        .is_none_or(|b| b.contains(&format!("{name}_{}", r.id)))
                })
                .map(|r| (name.as_str(), dir.as_path(), r)),
        );
    }
    progress.set_len(work.len() as u64);
    let results: Vec<Result<Candidate, Rejected>> = work
        .par_iter()
        .map(|(name, dir, row)| {
            let read = read_bug(name, dir, row);
            progress.inc(1);
            read.map(|bug| candidate(bug, cfg.repos.get(*name)))
                .map_err(|e| rejection(name, row.id, e))
        })
        .collect();
    let mut out = SourceOutput {
        walked: work.len(),
        ..SourceOutput::default()
    };
    for r in results {
        match r {
            Ok(c) => out.candidates.push(c),
            Err(r) => out.rejected.push(r),
        }
    }
    out.described.push(format!(
        "defects4j{}: {} ({} projects: {})",
        cfg.version
            .as_deref()
            .map(|v| format!(" {v}"))
            .unwrap_or_default(),
        cfg.root.display(),
        cfg.projects.len(),
        cfg.projects
            .iter()
            .map(|p| p.0.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    Ok(out)
}

fn rejection(project: &str, id: u32, e: D4jError) -> Rejected {
    let reason = match e {
        D4jError::Patch(_) => RejectReason::PatchParse,
        D4jError::Csv { .. } => RejectReason::Metadata,
        D4jError::Io { .. } | D4jError::Missing { .. } => RejectReason::Read,
    };
    Rejected::new(
        format!("{project}_{id}"),
        Stage::Mine,
        reason,
        e.to_string(),
    )
}

/// A candidate from a Defects4J bug: the base is the fixed revision plus Defects4J's
/// own fixed → buggy patch.
pub fn candidate(bug: D4jBug, repo: Option<&ProjectRepo>) -> Candidate {
    let mut repo_commits = None;
    let base = match repo {
        Some(ProjectRepo {
            path: Some(path),
            revision_map,
            prefixes,
        }) => {
            let mapped = revision_map.get(&bug.fixed_rev);
            if let Some(m) = mapped {
                repo_commits = Some(repo_commits_of(path, m, &bug.buggy_rev));
            }
            Base::Fixed {
                tree: Tree::Git {
                    repo: path.clone(),
                    rev: mapped.map_or_else(|| bug.fixed_rev.clone(), |m| m.fixed.clone()),
                    prefixes: prefixes.clone(),
                },
                to_buggy: bug.to_buggy,
            }
        }
        _ => Base::Missing {
            reason: format!("no repository for project {}", bug.project),
        },
    };
    Candidate {
        id: format!("{}_{}", bug.project, bug.id),
        source: SourceKind::Defects4j,
        repo: upstream_repo(&bug.project)
            .unwrap_or(&bug.project)
            .to_string(),
        project: bug.project,
        base_commit: bug.buggy_rev.clone(),
        fix_commit: bug.fixed_rev,
        environment_setup_commit: bug.buggy_rev,
        problem_statement: String::new(),
        hints_text: String::new(),
        created_at: String::new(),
        version: String::new(),
        fail_to_pass: bug.trigger_tests,
        pass_to_pass: Vec::new(),
        failures: bug.failures,
        report: match (bug.report_id, bug.report_url) {
            (None, None) => None,
            (id, url) => Some(Report {
                id: id.unwrap_or_default(),
                url: url.unwrap_or_default(),
            }),
        },
        references: Vec::new(),
        patch: bug.patch,
        test_patch: bug.test_patch,
        modified_classes: bug.modified_classes,
        base,
        skips: Default::default(),
        repo_commits,
    }
}

/// A mapped bug's commits in the repository: the map's fixed commit and its buggy one,
/// or else the fix's first parent (Defects4J's buggy revision is the one before its fix).
/// A map naming a commit the repository lacks keeps it as given, so the states say which
/// revision is unknown.
fn repo_commits_of(repo: &Path, m: &MappedRevision, d4j_buggy: &str) -> RepoCommits {
    let fix = crate::git::commit_id(repo, &m.fixed).unwrap_or_else(|_| m.fixed.clone());
    let base = match &m.buggy {
        Some(b) => crate::git::commit_id(repo, b).unwrap_or_else(|_| b.clone()),
        None => crate::git::commit_id(repo, &format!("{fix}^"))
            .unwrap_or_else(|_| d4j_buggy.to_string()),
    };
    RepoCommits { base, fix }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_revision_map_reads_the_fix_and_optionally_the_buggy_column() {
        let dir = tempfile::tempdir().expect("tempdir");
        let csv = dir.path().join("map.csv");
        std::fs::write(
            &csv,
            "bug.id,d4j.fixed,up.fixed,up.buggy(first parent)\n1,aaa,bbb,ccc\n2,ddd,eee,\n3,,fff,ggg\n",
        )
        .expect("csv");
        let with = read_revision_map(
            &csv,
            "d4j.fixed",
            "up.fixed",
            Some("up.buggy(first parent)"),
        )
        .expect("map");
        assert_eq!(with.len(), 2, "{with:?}");
        assert_eq!(with["aaa"].fixed, "bbb");
        assert_eq!(with["aaa"].buggy.as_deref(), Some("ccc"));
        // An empty cell means the fix's first parent.
        assert_eq!(with["ddd"].buggy, None);
        let without = read_revision_map(&csv, "d4j.fixed", "up.fixed", None).expect("map");
        assert_eq!(without["aaa"].buggy, None);
        let e = read_revision_map(&csv, "d4j.fixed", "up.fixed", Some("nope")).expect_err("column");
        assert!(e.to_string().contains("missing column `nope`"), "{e}");
    }
}
