//! swebench source: SWE-bench-format instances (JSON Lines or one JSON list) read with a
//! map `repo → local clone`, each checked against its clone and turned into a candidate
//! whose base is `base_commit`, so hunks, counting, annotation, validation and states
//! work as for mined fixes, and every SWE-bench field is kept unchanged.
//!
//! Per-instance problems (a malformed line, a missing field, a repository without a
//! clone, a `base_commit` the clone lacks, a patch that does not parse or apply) become
//! rejections naming the file and line; only an unreadable file stops the build.

use super::{names, Base, Candidate, SourceOutput, Tree};
use crate::diff::Patch;
use crate::model::{RejectReason, Rejected, SourceKind, Stage, SWEBENCH_FIELDS};
use crate::progress::Progress;
use rayon::prelude::*;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Everything the swebench source needs, resolved and checked by the recipe plan.
#[derive(Debug, Clone)]
pub struct SwebenchConfig {
    /// The instances file (`.jsonl` lines or a `.json` list; the content decides).
    pub instances: PathBuf,
    /// `repo` value (`owner/name`) → local clone.
    pub repos: BTreeMap<String, PathBuf>,
}

/// Why the instances file cannot be read at all (anything smaller is a rejection).
#[derive(Debug, thiserror::Error)]
pub enum SwebenchError {
    /// The file cannot be read, or is not UTF-8.
    #[error("{}: cannot read SWE-bench instances: {what}", path.display())]
    Read {
        /// The instances file.
        path: PathBuf,
        /// The OS error or the encoding problem.
        what: String,
    },
    /// A JSON list whose brackets or strings do not close, so no element can be told
    /// from the next.
    #[error("{}:{line}: {what}", path.display())]
    Structure {
        /// The instances file.
        path: PathBuf,
        /// 1-based line where the problem was found.
        line: usize,
        /// What was expected.
        what: String,
    },
}

/// The required fields: without any of them there is nothing to check or build.
pub const REQUIRED: [&str; 5] = ["instance_id", "repo", "base_commit", "patch", "test_patch"];

/// One instance's text and where it starts in the file.
struct Record<'a> {
    /// 1-based line where the line or list element starts.
    line: usize,
    /// The JSON text of the instance.
    text: &'a str,
}

/// Read the file's instances, check each against its clone, and build candidates.
pub fn candidates(
    cfg: &SwebenchConfig,
    progress: &Progress,
) -> Result<SourceOutput, SwebenchError> {
    let path = &cfg.instances;
    let bytes = std::fs::read(path).map_err(|e| SwebenchError::Read {
        path: path.clone(),
        what: e.to_string(),
    })?;
    let text = String::from_utf8(bytes).map_err(|e| SwebenchError::Read {
        path: path.clone(),
        what: format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to()),
    })?;
    candidates_from_text(cfg, &text, progress)
}

/// [`candidates`] on the file's `text` (`cfg.instances` only names it in messages): the
/// fuzz target and the regression corpus test feed rows through here.
pub fn candidates_from_text(
    cfg: &SwebenchConfig,
    text: &str,
    progress: &Progress,
) -> Result<SourceOutput, SwebenchError> {
    let path = &cfg.instances;
    let records = records(text).map_err(|(line, what)| SwebenchError::Structure {
        path: path.clone(),
        line,
        what,
    })?;
    progress.set_len(records.len() as u64);
    let file = path.display().to_string();
    let read: Vec<Result<(Candidate, Option<String>), Rejected>> = records
        .par_iter()
        .map(|r| {
            let out = instance(cfg, &file, r);
            progress.inc(1);
            out
        })
        .collect();
    let mut out = SourceOutput {
        walked: records.len(),
        ..Default::default()
    };
    // Duplicates: the first occurrence wins, later ones are rejected naming it.
    let mut first_line: BTreeMap<String, usize> = BTreeMap::new();
    let mut placed = Vec::new();
    for (r, result) in records.iter().zip(read) {
        match result {
            Ok((c, note)) => {
                placed.extend(note);
                if let Some(line) = first_line.get(&c.id) {
                    out.rejected.push(Rejected::new(
                        c.id.clone(),
                        Stage::Mine,
                        RejectReason::Metadata,
                        format!(
                            "{file}:{}: duplicate instance_id `{}` (first at line {line})",
                            r.line, c.id
                        ),
                    ));
                } else {
                    first_line.insert(c.id.clone(), r.line);
                    out.candidates.push(c);
                }
            }
            Err(rejected) => out.rejected.push(rejected),
        }
    }
    let extra = extra_fields(&records);
    let repos: Vec<String> = cfg
        .repos
        .iter()
        .map(|(name, p)| format!("{name}={}", p.display()))
        .collect();
    let mut described = format!(
        "swebench: {} ({} instances; clones: {})",
        path.display(),
        records.len(),
        repos.join(", ")
    );
    if !extra.is_empty() {
        described.push_str(&format!(
            "; extra fields ignored: {}",
            extra.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    out.described = vec![described];
    if !placed.is_empty() {
        out.described.push(format!(
            "swebench: patches placed as `git apply` places them (hunk offsets in lines): {}",
            placed.join("; ")
        ));
    }
    Ok(out)
}

/// Names of fields that are not SWE-bench's, over all records that parse as objects.
fn extra_fields(records: &[Record<'_>]) -> BTreeSet<String> {
    records
        .iter()
        .filter_map(|r| serde_json::from_str::<Map<String, Value>>(r.text).ok())
        .flat_map(|o| o.into_iter().map(|(k, _)| k))
        .filter(|k| !SWEBENCH_FIELDS.contains(&k.as_str()))
        .collect()
}

/// Split the file into instance texts: a JSON list's elements when its first
/// non-blank character is `[`, else one per non-blank line (JSON Lines).
fn records(text: &str) -> Result<Vec<Record<'_>>, (usize, String)> {
    let trimmed = text.trim_start_matches('\u{feff}');
    let offset = text.len() - trimmed.len();
    match trimmed.trim_start().starts_with('[') {
        true => list_elements(text, offset),
        false => Ok(text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| Record {
                line: i + 1,
                text: l,
            })
            .collect()),
    }
}

/// The top-level elements of a JSON list, found by tracking strings and nesting only,
/// so each element is parsed (and rejected) on its own with its own line number.
fn list_elements(text: &str, from: usize) -> Result<Vec<Record<'_>>, (usize, String)> {
    let bytes = text.as_bytes();
    let line_at = |pos: usize| 1 + bytes[..pos].iter().filter(|&&b| b == b'\n').count();
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut start: Option<usize> = None;
    let mut closed = None;
    let mut i = from;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                if depth == 1 && start.is_none() {
                    start = Some(i);
                }
            }
            b'[' | b'{' => {
                if depth == 1 && start.is_none() {
                    start = Some(i);
                }
                depth += 1;
            }
            b']' | b'}' => {
                if depth == 0 {
                    return Err((line_at(i), format!("unexpected `{}`", b as char)));
                }
                depth -= 1;
                if depth == 0 {
                    if let Some(s) = start.take() {
                        out.push((s, i));
                    }
                    closed = Some(i);
                    break;
                }
            }
            b',' if depth == 1 => match start.take() {
                Some(s) => out.push((s, i)),
                None => return Err((line_at(i), "expected a list element before `,`".into())),
            },
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ => {
                if depth == 1 && start.is_none() {
                    start = Some(i);
                }
            }
        }
        i += 1;
    }
    let Some(end) = closed else {
        let what = if in_string {
            "a string that does not end"
        } else {
            "a JSON list that does not end (expected `]`)"
        };
        return Err((line_at(bytes.len().saturating_sub(1)), what.into()));
    };
    if let Some(pos) = text[end + 1..].find(|c: char| !c.is_whitespace()) {
        return Err((
            line_at(end + 1 + pos),
            "text after the end of the JSON list".into(),
        ));
    }
    Ok(out
        .into_iter()
        .map(|(s, e)| Record {
            line: line_at(s),
            text: text[s..e].trim_end(),
        })
        .collect())
}

/// One record as a candidate, or its rejection.
/// One row as a candidate, with a note when a patch field had to be placed (see
/// `place` below).
fn instance(
    cfg: &SwebenchConfig,
    file: &str,
    r: &Record<'_>,
) -> Result<(Candidate, Option<String>), Rejected> {
    let at = format!("{file}:{}", r.line);
    let fallback_id = format!("{}:{}", file_name(file), r.line);
    let reject = |id: &str, reason, detail: String| {
        Rejected::new(
            id.to_string(),
            Stage::Mine,
            reason,
            format!("{at}: {detail}"),
        )
    };
    let obj: Map<String, Value> = match serde_json::from_str::<Value>(r.text) {
        Ok(Value::Object(o)) => o,
        Ok(other) => {
            return Err(reject(
                &fallback_id,
                RejectReason::Metadata,
                format!("expected a JSON object, found {}", kind(&other)),
            ))
        }
        Err(e) => {
            return Err(reject(
                &fallback_id,
                RejectReason::Metadata,
                format!("not JSON: {e}"),
            ))
        }
    };
    // An id that could not name a directory is refused here, under the file:line id,
    // before it names anything on disk.
    let id = match obj.get("instance_id") {
        Some(Value::String(s)) if !s.is_empty() => match names::check_id(s) {
            Ok(()) => s.clone(),
            Err(e) => return Err(reject(&fallback_id, RejectReason::Metadata, e.to_string())),
        },
        _ => fallback_id,
    };
    let field = |name: &str| -> Result<String, Rejected> {
        match obj.get(name) {
            Some(Value::String(s)) => Ok(s.clone()),
            None | Some(Value::Null) if REQUIRED.contains(&name) => Err(reject(
                &id,
                RejectReason::Metadata,
                format!("missing required field `{name}`"),
            )),
            None | Some(Value::Null) => Ok(String::new()),
            Some(other) => Err(reject(
                &id,
                RejectReason::Metadata,
                format!("field `{name}`: expected a string, found {}", kind(other)),
            )),
        }
    };
    let tests = |name: &str| -> Result<Vec<String>, Rejected> {
        test_list(obj.get(name)).map_err(|what| {
            reject(
                &id,
                RejectReason::Metadata,
                format!("field `{name}`: {what}"),
            )
        })
    };
    let instance_id = field("instance_id")?;
    if instance_id.is_empty() {
        return Err(reject(
            &id,
            RejectReason::Metadata,
            "field `instance_id`: expected a non-empty string".into(),
        ));
    }
    let repo = field("repo")?;
    let base_commit = field("base_commit")?;
    let patch_text = field("patch")?;
    let test_patch_text = field("test_patch")?;
    let problem_statement = field("problem_statement")?;
    let hints_text = field("hints_text")?;
    let created_at = field("created_at")?;
    let version = field("version")?;
    let environment_setup_commit = field("environment_setup_commit")?;
    let fail_to_pass = tests("FAIL_TO_PASS")?;
    let pass_to_pass = tests("PASS_TO_PASS")?;
    let unsafe_name = |field: &str, e: names::UnsafeName| {
        reject(&id, RejectReason::Metadata, format!("field `{field}`: {e}"))
    };
    names::check_repo(&repo).map_err(|e| unsafe_name("repo", e))?;
    for (name, list) in [
        ("FAIL_TO_PASS", &fail_to_pass),
        ("PASS_TO_PASS", &pass_to_pass),
    ] {
        for t in list.iter() {
            names::check_test_name(t).map_err(|e| unsafe_name(name, e))?;
        }
    }
    let Some(clone) = cfg.repos.get(&repo) else {
        return Err(reject(
            &id,
            RejectReason::Metadata,
            format!(
                "repo `{repo}` has no clone in `source.swebench.repos` (known: {})",
                cfg.repos.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        ));
    };
    let parse = |name: &str, text: &str| -> Result<Patch, Rejected> {
        let p = crate::diff::parse(text.as_bytes()).map_err(|e| {
            reject(
                &id,
                RejectReason::PatchParse,
                format!("field `{name}` does not parse as a diff: {e}"),
            )
        })?;
        // The instance keeps the text as given; a parse that would print it back
        // differently would change the field, so it is refused rather than altered.
        if p.to_bytes() != text.as_bytes() {
            return Err(reject(
                &id,
                RejectReason::PatchParse,
                format!("field `{name}` does not print back byte-for-byte after parsing"),
            ));
        }
        for f in &p.files {
            for path in [f.old_path.as_deref(), f.new_path.as_deref()]
                .into_iter()
                .flatten()
            {
                names::check_relative_path(path).map_err(|e| {
                    reject(
                        &id,
                        RejectReason::PatchParse,
                        format!("field `{name}`: {e}"),
                    )
                })?;
            }
        }
        Ok(p)
    };
    let patch = parse("patch", &patch_text)?;
    let test_patch = parse("test_patch", &test_patch_text)?;
    if let Err(e) = crate::git::commit_time(clone, &base_commit) {
        return Err(reject(
            &id,
            RejectReason::GitObjects,
            format!(
                "base_commit {base_commit} is not a commit of {} ({}); fetch it (`git -C {} fetch origin {base_commit}`) or point `source.swebench.repos.{repo}` at a full clone",
                clone.display(),
                root_cause(&e),
                clone.display()
            ),
        ));
    }
    // The harness applies both with `git apply`, which moves a hunk whose stated line
    // is off to the nearest exact match; such a field is placed so (its hunk headers
    // rewritten, the card lists it) and applies exactly from here on.
    let mut placed = Vec::new();
    let mut place = |name: &str, p: Patch| -> Result<Patch, Rejected> {
        let Err(e) = crate::git::patched_tree_files(clone, &base_commit, &p) else {
            return Ok(p);
        };
        match crate::git::placed_patch(clone, &base_commit, &p) {
            Ok((moved, offsets)) if !offsets.is_empty() => {
                placed.push(format!("`{name}` ({})", offsets.join("; ")));
                Ok(moved)
            }
            _ => Err(reject(
                &id,
                RejectReason::BaseTree,
                format!(
                    "field `{name}` does not apply at base_commit {base_commit}: {}",
                    root_cause(&e)
                ),
            )),
        }
    };
    let patch = place("patch", patch)?;
    let test_patch = place("test_patch", test_patch)?;
    let note = (!placed.is_empty()).then(|| format!("{id}: {}", placed.join(", ")));
    let candidate = Candidate {
        id: instance_id,
        source: SourceKind::Swebench,
        project: repo.rsplit('/').next().unwrap_or(&repo).to_string(),
        repo,
        environment_setup_commit: if environment_setup_commit.is_empty() {
            base_commit.clone()
        } else {
            environment_setup_commit
        },
        fix_commit: String::new(),
        problem_statement,
        hints_text,
        created_at,
        version,
        fail_to_pass,
        pass_to_pass,
        failures: Vec::new(),
        report: None,
        references: Vec::new(),
        patch,
        test_patch,
        modified_classes: Vec::new(),
        skips: Default::default(),
        repo_commits: None,
        base: Base::Buggy(Tree::Git {
            repo: clone.clone(),
            rev: base_commit.clone(),
            prefixes: Vec::new(),
        }),
        base_commit,
    };
    Ok((candidate, note))
}

/// Why a SWE-bench test list could not be read (the row is rejected with it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TestListError {
    /// An element of the list is not a string.
    #[error("element {index}: expected a test name (string), found {found}")]
    NotAString {
        /// The element's position.
        index: usize,
        /// What it is instead (`a number`, ...).
        found: &'static str,
    },
    /// A string that holds JSON, but not an array.
    #[error("expected a JSON array of test names or a string holding one, found a string holding {found}")]
    NotAnArray {
        /// What the string holds instead.
        found: &'static str,
    },
    /// A string that is not JSON at all.
    #[error("expected a JSON array of test names or a string holding one, found a string that is not JSON ({reason})")]
    NotJson {
        /// The JSON parser's message.
        reason: String,
    },
    /// Neither an array nor a string.
    #[error("expected a JSON array of test names or a string holding one, found {found}")]
    WrongType {
        /// What the field is instead.
        found: &'static str,
    },
}

/// A test list: a JSON array of strings, or a string holding one (published datasets
/// store them that way); absent, null or `""` is empty.
pub fn test_list(v: Option<&Value>) -> Result<Vec<String>, TestListError> {
    let strings = |items: &[Value]| -> Result<Vec<String>, TestListError> {
        items
            .iter()
            .enumerate()
            .map(|(i, t)| match t {
                Value::String(s) => Ok(s.clone()),
                other => Err(TestListError::NotAString {
                    index: i,
                    found: kind(other),
                }),
            })
            .collect()
    };
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => strings(items),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(Vec::new()),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Array(items)) => strings(&items),
            Ok(other) => Err(TestListError::NotAnArray {
                found: kind(&other),
            }),
            Err(e) => Err(TestListError::NotJson {
                reason: e.to_string(),
            }),
        },
        Some(other) => Err(TestListError::WrongType { found: kind(other) }),
    }
}

/// "a number", "an object", … for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The innermost reason of an error chain, with the outer message when it adds a place.
fn root_cause(e: &crate::git::GitError) -> String {
    match e {
        crate::git::GitError::Apply { source, .. } => source.to_string(),
        other => match std::error::Error::source(other) {
            Some(src) => src.to_string(),
            None => other.to_string(),
        },
    }
}

/// The file's name, for ids of rows that have none.
fn file_name(file: &str) -> String {
    Path::new(file)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_elements_carry_their_lines() {
        let text = "[\n  {\"a\": \"x,]\\\"\"},\n  {\"b\": [1, {\"c\": 2}]}\n,\n 3\n]\n";
        let r = records(text).expect("splits");
        let got: Vec<(usize, &str)> = r.iter().map(|r| (r.line, r.text)).collect();
        assert_eq!(
            got,
            vec![
                (2, "{\"a\": \"x,]\\\"\"}"),
                (3, "{\"b\": [1, {\"c\": 2}]}"),
                (5, "3"),
            ]
        );
        assert_eq!(records("[]").expect("empty").len(), 0);
    }

    #[test]
    fn broken_lists_are_one_error_with_a_line() {
        assert_eq!(
            records("[\n{\"a\": 1},\n{\"b\": \"open\n")
                .err()
                .map(|e| e.0),
            Some(3)
        );
        assert!(
            records("[{}, ]").is_ok(),
            "a trailing comma leaves no element"
        );
        assert_eq!(records("[{}]\n x").err().map(|e| e.0), Some(2));
        assert!(records("[,{}]").is_err());
    }

    #[test]
    fn jsonl_skips_blank_lines() {
        let r = records("{\"a\":1}\n\n  \n{\"b\":2}\n").expect("lines");
        assert_eq!(r.iter().map(|r| r.line).collect::<Vec<_>>(), vec![1, 4]);
    }

    #[test]
    fn test_lists_as_strings_or_arrays() {
        let j = |s: &str| serde_json::from_str::<Value>(s).expect("json");
        assert_eq!(
            test_list(Some(&j(r#"["a", "b"]"#))),
            Ok(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            test_list(Some(&j(r#""[\"a\", \"b\"]""#))),
            Ok(vec!["a".into(), "b".into()])
        );
        assert_eq!(test_list(None), Ok(vec![]));
        assert_eq!(test_list(Some(&j(r#""""#))), Ok(vec![]));
        assert!(test_list(Some(&j("3")))
            .unwrap_err()
            .to_string()
            .contains("found a number"));
        assert!(test_list(Some(&j(r#""a, b""#)))
            .unwrap_err()
            .to_string()
            .contains("not JSON"));
        assert!(test_list(Some(&j(r#"[1]"#)))
            .unwrap_err()
            .to_string()
            .contains("element 0"));
    }
}
