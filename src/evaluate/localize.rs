//! Localization metrics: file-level success (HUNK4J study), golden hunks touched, and
//! RepoFixEval-style line- and file-level precision / recall / F1.
//!
//! Lines are `(path, line)` pairs in the buggy state (the state the golden patch applies
//! to), 1-based. What a patch *touches* there, per block (a maximal run of `+`/`-` lines
//! in a hunk):
//! - a block that removes lines touches exactly the lines it removes (its `+` lines
//!   replace them and touch nothing more);
//! - a block of `+` lines only inserts between two lines: inserting before line `p`
//!   (after line `p − 1`) touches `p − 1` and `p`, the lines on both sides of the
//!   insertion point (`p − 1` only when it is ≥ 1; `p` even at the end of the file,
//!   where no line `p` exists: a prediction cannot name it, so it can only lower recall).
//!
//! The same rule gives the golden lines of a golden hunk (so an insertion-only golden
//! hunk before line `p` has golden lines `{p − 1, p}`) and the lines a predicted patch
//! touches, so a patch equal to the golden patch scores 1. Files a patch creates have no
//! buggy-side lines and touch none; they still count as patched files.
//!
//! Scores: precision = |P ∩ G| / |P|, recall = |P ∩ G| / |G|, F1 their harmonic mean.
//! `None` when G is empty (nothing to find); an empty P scores 0 / 0 / 0.
//!
//! Line numbers are the buggy state's. For a prediction made on another state (Partial,
//! Resolved) the caller maps them first or does not score lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::diff::{FileChange, FilePatch, Hunk, LineKind, Patch};
use crate::model::{HunkRecord, Scores};

/// A `(path, line)` location in the buggy state.
pub type Location = (String, u32);

/// Files a patch changes: old and new paths of every file patch.
pub fn patched_files(patch: &Patch) -> BTreeSet<String> {
    patch
        .files
        .iter()
        .flat_map(|f| [f.old_path.clone(), f.new_path.clone()])
        .flatten()
        .collect()
}

/// The agent study's golden files: every code file of the developer's patch, a file it
/// creates or deletes included, in patch order (its localization equation). The files
/// with a counted hunk (`Instance::files`) are the named variant `localized_counted`.
pub fn golden_source_files(
    golden: &Patch,
    classifier: &crate::classify::Classifier,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in &golden.files {
        let path = f.path();
        let code = [f.new_path.as_deref(), f.old_path.as_deref()]
            .into_iter()
            .flatten()
            .any(|p| classifier.classify(p) == crate::classify::FileClass::Code);
        if code && !path.is_empty() && !out.iter().any(|o| o == path) {
            out.push(path.to_string());
        }
    }
    out
}

/// The study's golden files of an instance whose golden patch is `golden`
/// ([`golden_source_files`]); its counted-hunk files (`files`) when the patch could not
/// be had.
pub fn study_golden_files(
    golden: Option<&Patch>,
    files: &[String],
    classifier: &crate::classify::Classifier,
) -> Vec<String> {
    golden
        .map(|g| golden_source_files(g, classifier))
        .unwrap_or_else(|| files.to_vec())
}

/// |P ∩ G|, |P| and |G| of one instance, to pool.
pub fn counts<T: Ord>(predicted: &BTreeSet<T>, golden: &BTreeSet<T>) -> (usize, usize, usize) {
    (
        predicted.intersection(golden).count(),
        predicted.len(),
        golden.len(),
    )
}

/// Precision, recall and F1 over one pooled set (RepoFixEval's: every case's
/// `ID^file^line` elements together, so each element weighs the same, where the mean of
/// per-instance scores weighs each instance the same); `None` when nothing is golden.
pub fn pooled_scores(parts: &[(usize, usize, usize)]) -> Option<Scores> {
    let (hit, p, g) = parts
        .iter()
        .fold((0, 0, 0), |(h, p, g), (a, b, c)| (h + a, p + b, g + c));
    from_counts(hit, p, g)
}

/// Precision, recall and F1 of `hit` right among `predicted`, of `golden`; `None` when
/// nothing is golden, 0 / 0 / 0 when nothing is predicted.
fn from_counts(hit: usize, predicted: usize, golden: usize) -> Option<Scores> {
    if golden == 0 {
        return None;
    }
    let precision = if predicted == 0 {
        0.0
    } else {
        hit as f64 / predicted as f64
    };
    let recall = hit as f64 / golden as f64;
    let f1 = if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    };
    Some(Scores {
        precision,
        recall,
        f1,
    })
}

/// HUNK4J localization success: every golden file is among the patched files (an empty
/// golden list is vacuously localized).
pub fn localized(golden_files: &[String], patched: &BTreeSet<String>) -> bool {
    golden_files.iter().all(|f| patched.contains(f))
}

/// Buggy-side lines a patch touches (module docs define the rule).
pub fn lines_touched(patch: &Patch) -> BTreeSet<Location> {
    let mut out = BTreeSet::new();
    for fp in &patch.files {
        let Some(path) = old_side_path(fp) else {
            continue;
        };
        for h in &fp.hunks {
            out.extend(hunk_lines(h).into_iter().map(|l| (path.to_string(), l)));
        }
    }
    out
}

/// The buggy-side path of a file patch; `None` for a created file.
fn old_side_path(fp: &FilePatch) -> Option<&str> {
    if fp.change == FileChange::Added {
        return None;
    }
    fp.old_path.as_deref()
}

/// Old-side lines one hunk touches.
fn hunk_lines(h: &Hunk) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    let mut old = h.old_start + u32::from(h.old_lines == 0);
    let mut block_removes = false;
    let mut in_insertion = false;
    for l in &h.lines {
        match l.kind {
            LineKind::Context => {
                if in_insertion && !block_removes {
                    insertion_point(old, &mut out);
                }
                in_insertion = false;
                block_removes = false;
                old += 1;
            }
            LineKind::Removed => {
                out.insert(old);
                block_removes = true;
                old += 1;
            }
            LineKind::Added => in_insertion = true,
        }
    }
    if in_insertion && !block_removes {
        insertion_point(old, &mut out);
    }
    out
}

/// An insertion before line `p` touches `p − 1` (when ≥ 1) and `p`.
fn insertion_point(p: u32, out: &mut BTreeSet<u32>) {
    if p > 1 {
        out.insert(p - 1);
    }
    out.insert(p);
}

/// One counted golden hunk and its buggy-side lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoldenHunk {
    /// The hunk's `patch_index` in the forward patch.
    pub patch_index: usize,
    /// Buggy-side path.
    pub file: String,
    /// Lines it touches in the buggy file (module docs).
    pub lines: BTreeSet<u32>,
}

/// The counted golden hunks with their lines, taken from the golden patch's hunk at each
/// record's `patch_index`; when that hunk is missing or in another file, from the
/// record's span (`start..=end`, or `{start − 1, start}` for an insertion).
pub fn golden_hunks(golden: &Patch, records: &[HunkRecord]) -> Vec<GoldenHunk> {
    let all: Vec<(&FilePatch, &Hunk)> = golden
        .files
        .iter()
        .flat_map(|f| f.hunks.iter().map(move |h| (f, h)))
        .collect();
    records
        .iter()
        .filter(|r| r.counted)
        .map(|r| {
            let from_patch = all.get(r.patch_index).and_then(|(f, h)| {
                (old_side_path(f) == Some(r.file.as_str())).then(|| hunk_lines(h))
            });
            let lines = from_patch.unwrap_or_else(|| {
                let mut s = BTreeSet::new();
                if r.span.end < r.span.start {
                    insertion_point(r.span.start, &mut s);
                } else {
                    s.extend(r.span.start..=r.span.end);
                }
                s
            });
            GoldenHunk {
                patch_index: r.patch_index,
                file: r.file.clone(),
                lines,
            }
        })
        .collect()
}

/// All golden lines of the given hunks.
pub fn golden_lines(hunks: &[GoldenHunk]) -> BTreeSet<Location> {
    hunks
        .iter()
        .flat_map(|h| h.lines.iter().map(|&l| (h.file.clone(), l)))
        .collect()
}

/// Patch indices of the golden hunks sharing at least one line with `touched`.
pub fn hunks_touched(golden: &[GoldenHunk], touched: &BTreeSet<Location>) -> Vec<usize> {
    golden
        .iter()
        .filter(|h| {
            h.lines
                .iter()
                .any(|&l| touched.contains(&(h.file.clone(), l)))
        })
        .map(|h| h.patch_index)
        .collect()
}

/// Precision / recall / F1 of `predicted` against `golden` (module docs: `None` when
/// `golden` is empty).
pub fn scores<T: Ord>(predicted: &BTreeSet<T>, golden: &BTreeSet<T>) -> Option<Scores> {
    let (hit, p, g) = counts(predicted, golden);
    from_counts(hit, p, g)
}

/// File-level scores of predicted files against the golden files.
pub fn file_scores(predicted: &BTreeSet<String>, golden_files: &[String]) -> Option<Scores> {
    let golden: BTreeSet<String> = golden_files.iter().cloned().collect();
    scores(predicted, &golden)
}

/// One row of a localization prediction file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Localization {
    /// The instance.
    pub instance_id: String,
    /// Predicted files; when the row has no `files`, the files of its `lines`.
    pub files: BTreeSet<String>,
    /// Predicted `(path, line)` locations.
    pub lines: BTreeSet<Location>,
    /// 1-based line of the row in its file.
    pub row: usize,
}

/// A localization prediction file that cannot be used, naming file, line and field.
#[derive(Debug, thiserror::Error)]
pub enum LocalizeError {
    /// The file cannot be read.
    #[error("{}: cannot read localization predictions: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A row is malformed.
    #[error("{}:{line}: {reason}", path.display())]
    Row {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong, naming the field.
        #[source]
        reason: RowError,
    },
}

/// What is wrong with one row of a localization prediction file, naming the field.
#[derive(Debug, thiserror::Error)]
pub enum RowError {
    /// The row is not JSON.
    #[error("not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    /// The row is JSON but not an object.
    #[error("expected a JSON object")]
    NotObject,
    /// The row has no `instance_id`.
    #[error("missing field `instance_id`")]
    NoInstanceId,
    /// `instance_id` is not a non-empty string.
    #[error("field `instance_id`: expected a non-empty string, got {got}")]
    BadInstanceId {
        /// The value given.
        got: Value,
    },
    /// `files` or `lines` is not an array.
    #[error("field `{field}`: expected an array, got {got}")]
    NotArray {
        /// `files` or `lines`.
        field: String,
        /// The value given.
        got: Value,
    },
    /// An item of `files` or `lines` is not a non-empty string.
    #[error("field `{field}[{index}]`: expected a non-empty string, got {got}")]
    BadItem {
        /// `files` or `lines`.
        field: String,
        /// 0-based index in the array.
        index: usize,
        /// The value given.
        got: Value,
    },
    /// An item of `lines` is not `path:line` with a line ≥ 1.
    #[error("field `lines[{index}]`: expected \"path:line\" with a line number ≥ 1, got {got:?}")]
    BadLine {
        /// 0-based index in `lines`.
        index: usize,
        /// The text given.
        got: String,
    },
    /// A second row for the same instance.
    #[error("field `instance_id`: `{instance}` already predicted on line {previous}")]
    Duplicate {
        /// The instance id.
        instance: String,
        /// 1-based line of the first row.
        previous: usize,
    },
}

/// Read a localization prediction file: JSON Lines
/// `{"instance_id": .., "files": [..], "lines": ["path:line", ..]}`; blank lines are
/// skipped, other fields ignored, `files` and `lines` optional (empty when absent).
pub fn read_localizations(path: &Path) -> Result<BTreeMap<String, Localization>, LocalizeError> {
    let text = std::fs::read_to_string(path).map_err(|source| LocalizeError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_localizations(&text, path)
}

/// [`read_localizations`] on text already read; `path` names it in errors.
pub fn parse_localizations(
    text: &str,
    path: &Path,
) -> Result<BTreeMap<String, Localization>, LocalizeError> {
    let mut out: BTreeMap<String, Localization> = BTreeMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let err = |reason: RowError| LocalizeError::Row {
            path: path.to_path_buf(),
            line,
            reason,
        };
        let row = parse_row(raw, line).map_err(err)?;
        if let Some(prev) = out.get(&row.instance_id) {
            return Err(err(RowError::Duplicate {
                instance: row.instance_id.clone(),
                previous: prev.row,
            }));
        }
        out.insert(row.instance_id.clone(), row);
    }
    Ok(out)
}

fn parse_row(raw: &str, line: usize) -> Result<Localization, RowError> {
    let v: Value = serde_json::from_str(raw).map_err(RowError::NotJson)?;
    let Value::Object(obj) = v else {
        return Err(RowError::NotObject);
    };
    let instance_id = match obj.get("instance_id") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(other) => return Err(RowError::BadInstanceId { got: other.clone() }),
        None => return Err(RowError::NoInstanceId),
    };
    let strings = |field: &str| -> Result<Option<Vec<String>>, RowError> {
        match obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(j, it)| match it {
                    Value::String(s) if !s.is_empty() => Ok(s.clone()),
                    other => Err(RowError::BadItem {
                        field: field.to_string(),
                        index: j,
                        got: other.clone(),
                    }),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(other) => Err(RowError::NotArray {
                field: field.to_string(),
                got: other.clone(),
            }),
        }
    };
    let mut lines = BTreeSet::new();
    for (j, s) in strings("lines")?
        .unwrap_or_default()
        .into_iter()
        .enumerate()
    {
        let parsed = s
            .rsplit_once(':')
            .and_then(|(p, n)| Some((p, n.parse::<u32>().ok()?)))
            .filter(|(p, n)| !p.is_empty() && *n >= 1);
        match parsed {
            Some((p, n)) => {
                lines.insert((p.to_string(), n));
            }
            None => return Err(RowError::BadLine { index: j, got: s }),
        }
    }
    let files = match strings("files")? {
        Some(f) => f.into_iter().collect(),
        None => lines.iter().map(|(p, _)| p.clone()).collect(),
    };
    Ok(Localization {
        instance_id,
        files,
        lines,
        row: line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::{parse, Span};
    use crate::model::Range;

    fn set(items: &[(&str, u32)]) -> BTreeSet<Location> {
        items.iter().map(|(p, l)| (p.to_string(), *l)).collect()
    }

    // Hunk 0 (A.java): replaces line 3, context, removes line 5.
    // Hunk 1 (A.java): inserts two lines after line 20, i.e. before line 21.
    // Hunk 2 (b.py): a -U0 insertion at the top of the file (`-0,0`: before line 1).
    // Hunk 3 (new.py): a created file.
    const PATCH: &str = "\
--- a/A.java
+++ b/A.java
@@ -2,5 +2,4 @@
 two
-three
+THREE
 four
-five
 six
@@ -19,3 +18,5 @@
 nineteen
 twenty
+new1
+new2
 twenty-one
--- a/b.py
+++ b/b.py
@@ -0,0 +1 @@
+import os
--- /dev/null
+++ b/new.py
@@ -0,0 +1 @@
+x = 1
";

    #[test]
    fn touched_lines_by_hand() {
        let p = parse(PATCH.as_bytes()).expect("parses");
        // Hunk 0 removes 3 and 5; hunk 1 inserts before 21 → {20, 21}; hunk 2 inserts
        // before line 1 → {1} (there is no line 0); new.py touches nothing.
        assert_eq!(
            lines_touched(&p),
            set(&[
                ("A.java", 3),
                ("A.java", 5),
                ("A.java", 20),
                ("A.java", 21),
                ("b.py", 1)
            ])
        );
        assert_eq!(
            patched_files(&p).into_iter().collect::<Vec<_>>(),
            vec!["A.java", "b.py", "new.py"]
        );
    }

    fn record(file: &str, patch_index: usize, span: (u32, u32), counted: bool) -> HunkRecord {
        HunkRecord {
            file: file.into(),
            patch_index,
            buggy: Range { start: 0, lines: 0 },
            fixed: Range { start: 0, lines: 0 },
            span: Span {
                start: span.0,
                end: span.1,
            },
            added: 0,
            removed: 0,
            counted,
            skip_reason: None,
            place: None,
            necessary: None,
        }
    }

    #[test]
    fn golden_hunks_and_hunks_touched() {
        let golden = parse(PATCH.as_bytes()).expect("parses");
        let records = vec![
            record("A.java", 0, (3, 5), true),
            record("A.java", 1, (21, 20), true),
            record("b.py", 2, (1, 0), false), // not counted: ignored
            // Index out of range: the span is used, an insertion before 41 → {40, 41}.
            record("C.java", 9, (41, 40), true),
        ];
        let g = golden_hunks(&golden, &records);
        let lines: Vec<Vec<u32>> = g
            .iter()
            .map(|h| h.lines.iter().copied().collect())
            .collect();
        // Hunk 0 from the patch is {3, 5}, not the span's {3, 4, 5}.
        assert_eq!(lines, vec![vec![3, 5], vec![20, 21], vec![40, 41]]);

        // A patch touching line 5 and inserting before line 20 (→ {19, 20}).
        let touched = set(&[("A.java", 5), ("A.java", 19), ("A.java", 20)]);
        assert_eq!(hunks_touched(&g, &touched), vec![0, 1]);
        // Same lines in another file touch nothing.
        assert!(hunks_touched(&g, &set(&[("B.java", 5)])).is_empty());
        // The golden patch itself touches every counted hunk it contains.
        assert_eq!(hunks_touched(&g, &lines_touched(&golden)), vec![0, 1]);
    }

    #[test]
    fn scores_by_hand() {
        let golden = set(&[("A.java", 3), ("A.java", 5), ("A.java", 20), ("A.java", 21)]);
        // 3 predicted, 2 hit: P = 2/3, R = 2/4, F1 = 2·(2/3)(1/2)/((2/3)+(1/2)) = 4/7.
        let pred = set(&[("A.java", 3), ("A.java", 21), ("B.java", 1)]);
        let s = scores(&pred, &golden).expect("defined");
        assert!((s.precision - 2.0 / 3.0).abs() < 1e-12);
        assert!((s.recall - 0.5).abs() < 1e-12);
        assert!((s.f1 - 4.0 / 7.0).abs() < 1e-12);
        // Perfect.
        let s = scores(&golden, &golden).expect("defined");
        assert_eq!((s.precision, s.recall, s.f1), (1.0, 1.0, 1.0));
        // Nothing predicted: 0/0/0; nothing to find: undefined.
        let s = scores(&BTreeSet::new(), &golden).expect("defined");
        assert_eq!((s.precision, s.recall, s.f1), (0.0, 0.0, 0.0));
        assert_eq!(scores(&pred, &BTreeSet::new()), None);
        // Disjoint: P = R = 0 → F1 = 0, not NaN.
        let s = scores(&set(&[("Z", 1)]), &golden).expect("defined");
        assert_eq!(s.f1, 0.0);

        // Files: golden {A, B}, predicted {A, C, D}: P = 1/3, R = 1/2, F1 = 2/5.
        let files: BTreeSet<String> = ["A", "C", "D"].iter().map(|s| s.to_string()).collect();
        let s = file_scores(&files, &["A".into(), "B".into()]).expect("defined");
        assert!((s.precision - 1.0 / 3.0).abs() < 1e-12);
        assert!((s.recall - 0.5).abs() < 1e-12);
        assert!((s.f1 - 0.4).abs() < 1e-12);
    }

    #[test]
    fn localized_is_subset() {
        let patched: BTreeSet<String> = ["A", "B"].iter().map(|s| s.to_string()).collect();
        assert!(localized(&["A".into()], &patched));
        assert!(localized(&["A".into(), "B".into()], &patched));
        assert!(!localized(&["A".into(), "C".into()], &patched));
        assert!(!localized(&["A".into()], &BTreeSet::new()));
    }

    #[test]
    fn localization_file_rows_and_errors() {
        let f = Path::new("loc.jsonl");
        let text = "\
{\"instance_id\": \"x-1\", \"files\": [\"A.java\"], \"lines\": [\"A.java:3\", \"src/b:c.py:12\"]}

{\"instance_id\": \"x-2\", \"lines\": [\"B.java:7\"], \"model\": \"m\"}
";
        let rows = parse_localizations(text, f).expect("valid");
        let x1 = &rows["x-1"];
        assert_eq!(x1.files.iter().collect::<Vec<_>>(), vec!["A.java"]);
        // The line number is after the last colon, so paths may contain colons.
        assert_eq!(x1.lines, set(&[("A.java", 3), ("src/b:c.py", 12)]));
        let x2 = &rows["x-2"];
        assert_eq!(x2.row, 3);
        assert_eq!(
            x2.files.iter().collect::<Vec<_>>(),
            vec!["B.java"],
            "from lines"
        );

        let bad = [
            ("[1]", "loc.jsonl:1: expected a JSON object"),
            ("{\"files\": []}", "loc.jsonl:1: missing field `instance_id`"),
            ("{\"instance_id\": 3}", "loc.jsonl:1: field `instance_id`: expected a non-empty string, got 3"),
            ("{\"instance_id\": \"a\", \"files\": \"A\"}", "loc.jsonl:1: field `files`: expected an array, got \"A\""),
            ("{\"instance_id\": \"a\", \"lines\": [\"A:1\", \"A:0\"]}", "loc.jsonl:1: field `lines[1]`: expected \"path:line\" with a line number ≥ 1, got \"A:0\""),
            ("{\"instance_id\": \"a\", \"lines\": [\"A\"]}", "loc.jsonl:1: field `lines[0]`: expected \"path:line\" with a line number ≥ 1, got \"A\""),
            ("{\"instance_id\": \"a\", \"lines\": [5]}", "loc.jsonl:1: field `lines[0]`: expected a non-empty string, got 5"),
            ("{\"instance_id\": \"a\"}\n{\"instance_id\": \"a\"}", "loc.jsonl:2: field `instance_id`: `a` already predicted on line 1"),
        ];
        for (text, want) in bad {
            let e = parse_localizations(text, f).expect_err(text);
            assert_eq!(e.to_string(), want, "{text}");
        }
        let e = parse_localizations("{oops", f).expect_err("not json");
        assert!(e.to_string().starts_with("loc.jsonl:1: not JSON: "), "{e}");
    }

    #[test]
    fn the_study_golden_files_are_every_code_file_of_the_developer_patch() {
        // A modified code file, a created one, a deleted one, a doc and a test.
        let text = "--- a/src/A.java\n+++ b/src/A.java\n@@ -1 +1 @@\n-a\n+b\n\
                    --- /dev/null\n+++ b/src/New.java\n@@ -0,0 +1 @@\n+n\n\
                    --- a/src/Old.java\n+++ /dev/null\n@@ -1 +0,0 @@\n-o\n\
                    --- a/CHANGES.md\n+++ b/CHANGES.md\n@@ -1 +1 @@\n-c\n+d\n\
                    --- a/src/test/java/ATest.java\n+++ b/src/test/java/ATest.java\n@@ -1 +1 @@\n-t\n+u\n";
        let golden = parse(text.as_bytes()).expect("patch");
        let classifier = crate::classify::Classifier {
            code_extensions: vec!["java".into()],
            ..Default::default()
        };
        let files = golden_source_files(&golden, &classifier);
        assert_eq!(files, ["src/A.java", "src/New.java", "src/Old.java"]);
        // A prediction that edits only the file with a counted hunk is localized by the
        // counted-hunk variant, not by the study's rule.
        let only_a =
            parse(b"--- a/src/A.java\n+++ b/src/A.java\n@@ -1 +1 @@\n-a\n+c\n").expect("patch");
        let patched = patched_files(&only_a);
        assert!(localized(&["src/A.java".to_string()], &patched));
        assert!(!localized(&files, &patched));
        // Creating the file and deleting the other one too: localized.
        let all = parse(
            b"--- a/src/A.java\n+++ b/src/A.java\n@@ -1 +1 @@\n-a\n+c\n\
              --- /dev/null\n+++ b/src/New.java\n@@ -0,0 +1 @@\n+m\n\
              --- a/src/Old.java\n+++ /dev/null\n@@ -1 +0,0 @@\n-o\n",
        )
        .expect("patch");
        assert!(localized(&files, &patched_files(&all)));
    }

    #[test]
    fn pooled_scores_weigh_each_element_and_the_mean_each_instance() {
        // Instance 1: 1 of 1 predicted is golden, of 1 golden. Instance 2: 0 of 3, of 9.
        let one: BTreeSet<u32> = [1].into();
        let two_p: BTreeSet<u32> = [1, 2, 3].into();
        let two_g: BTreeSet<u32> = (10..19).collect();
        let parts = [counts(&one, &one), counts(&two_p, &two_g)];
        assert_eq!(parts, [(1, 1, 1), (0, 3, 9)]);
        let pooled = pooled_scores(&parts).expect("golden");
        assert_eq!((pooled.precision, pooled.recall), (0.25, 0.1));
        assert!((pooled.f1 - 2.0 * 0.25 * 0.1 / 0.35).abs() < 1e-12);
        // The per-instance mean of F1 is (1 + 0) / 2 instead.
        let macro_f1 =
            (scores(&one, &one).expect("s").f1 + scores(&two_p, &two_g).expect("s").f1) / 2.0;
        assert_eq!(macro_f1, 0.5);
        assert_eq!(pooled_scores(&[(0, 2, 0)]), None);
        assert_eq!(
            pooled_scores(&[(0, 0, 4)]).map(|s| (s.precision, s.f1)),
            Some((0.0, 0.0))
        );
    }
}
