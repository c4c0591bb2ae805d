//! The FixedBench abstention rule: what is left of a patch once test files, docs,
//! non-code files and comment/docstring/blank lines are dropped.
//!
//! Per file, in this order:
//! 1. a path the [`Classifier`] puts in its test class is dropped ([`DropReason::Test`]);
//! 2. docs are dropped ([`DropReason::Docs`]): a `doc`/`docs`/`documentation` directory
//!    anywhere in the path, a docs extension (`md`, `rst`, `adoc`, `txt`, …), or a
//!    conventional top-level name (`README`, `CHANGELOG`, `LICENSE`, …);
//! 3. a path without a code extension is dropped ([`DropReason::NotCode`]), and so is a
//!    binary patch ([`DropReason::Binary`]);
//! 4. the changed lines of what is left are judged: a removed line on the pre-image, an
//!    added line on the post-image (the pre-image with this file's hunks applied), by
//!    [`crate::syntax::comment_lines`]. Lines that are comments, inside docstrings or
//!    blank do not count. A file with no counting line is dropped
//!    ([`DropReason::NoCodeLines`]); this includes pure renames and mode changes, which
//!    have no lines at all.
//!
//! The patch abstains when no file is kept.
//!
//! Decisions:
//! - Blank lines are dropped like comments, so a patch that only adds or removes blank
//!   lines abstains. A whitespace-only change *to a code line* (re-indentation, trailing
//!   spaces) counts as code: it is a changed code line, and indentation is syntax in
//!   Python.
//! - The rule is per line: a code line that only gains a trailing comment
//!   (`return 1;` → `return 1; // why`) is a changed code line and counts.
//! - When the pre-image cannot be read, the file's language has no parser, or the file
//!   patch does not apply to the pre-image, that file's lines are judged by their text
//!   instead: blank, or (trimmed) starting with `//`, `/*` or `*` (Java), `#` (Python),
//!   any of these for other languages. [`Effective::heuristic`] is then set and
//!   [`Effective::notes`] says which file and why. Python docstrings are not recognized
//!   by the heuristic.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::classify::{Classifier, FileClass};
use crate::diff::{apply_file, FileChange, FilePatch, LineKind, Patch};
use crate::syntax::{comment_lines, Lang};

/// Why a file of a patch does not count toward acting on the code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// The path carries a test marker (the classifier's test class).
    Test,
    /// Documentation.
    Docs,
    /// No code extension.
    NotCode,
    /// A binary patch.
    Binary,
    /// Only comment, docstring or blank lines change (or no line at all).
    NoCodeLines,
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DropReason::Test => "test",
            DropReason::Docs => "docs",
            DropReason::NotCode => "not_code",
            DropReason::Binary => "binary",
            DropReason::NoCodeLines => "no_code_lines",
        })
    }
}

/// What is left of a patch under the abstention rule.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Effective {
    /// Files with at least one changed code line, in patch order.
    pub kept_files: Vec<String>,
    /// Every other file, with why it was dropped, in patch order.
    pub dropped: Vec<(String, DropReason)>,
    /// Changed (added + removed) code lines over the kept files.
    pub code_lines_changed: usize,
    /// Some file's lines were judged by the text heuristic instead of a parse.
    pub heuristic: bool,
    /// One line per heuristic file: which and why.
    pub notes: Vec<String>,
}

impl Effective {
    /// True when nothing is left: the patch abstains.
    pub fn is_empty(&self) -> bool {
        self.kept_files.is_empty()
    }
}

/// Apply the abstention rule to `patch`; `pre_image(path)` reads a file of the state the
/// patch applies to (`None`: unreadable, which triggers the text heuristic).
pub fn effective_patch(
    patch: &Patch,
    classifier: &Classifier,
    pre_image: impl Fn(&str) -> Option<Vec<u8>>,
) -> Effective {
    let mut out = Effective::default();
    for fp in &patch.files {
        let path = fp.path().to_string();
        let reason = match classifier.classify(&path) {
            FileClass::Test => Some(DropReason::Test),
            _ if is_docs(&path) => Some(DropReason::Docs),
            FileClass::Other => Some(DropReason::NotCode),
            FileClass::Code if fp.binary => Some(DropReason::Binary),
            FileClass::Code => None,
        };
        if let Some(r) = reason {
            out.dropped.push((path, r));
            continue;
        }
        let (n, note) = code_lines(fp, &pre_image);
        if let Some(note) = note {
            out.heuristic = true;
            out.notes
                .push(format!("{path}: {note}; judged lines by their text"));
        }
        if n == 0 {
            out.dropped.push((path, DropReason::NoCodeLines));
        } else {
            out.code_lines_changed += n;
            out.kept_files.push(path);
        }
    }
    out
}

/// True when the patch is empty under the abstention rule (see [`effective_patch`]).
pub fn abstains(
    patch: &Patch,
    classifier: &Classifier,
    pre_image: impl Fn(&str) -> Option<Vec<u8>>,
) -> bool {
    effective_patch(patch, classifier, pre_image).is_empty()
}

/// Documentation by directory, extension or conventional name.
fn is_docs(path: &str) -> bool {
    const DIRS: &[&str] = &["doc", "docs", "documentation"];
    const EXTS: &[&str] = &["md", "markdown", "rst", "adoc", "asciidoc", "txt", "rdoc"];
    const NAMES: &[&str] = &[
        "readme",
        "changelog",
        "changes",
        "news",
        "history",
        "authors",
        "contributing",
        "license",
        "notice",
    ];
    let mut segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let file = segs.pop().unwrap_or("");
    if segs
        .iter()
        .any(|s| DIRS.iter().any(|d| s.eq_ignore_ascii_case(d)))
    {
        return true;
    }
    let (stem, ext) = match file.rfind('.') {
        Some(i) if i > 0 => (&file[..i], &file[i + 1..]),
        _ => (file, ""),
    };
    EXTS.iter().any(|e| ext.eq_ignore_ascii_case(e))
        || NAMES.iter().any(|n| stem.eq_ignore_ascii_case(n))
}

/// Changed code lines of one code file, and why the heuristic was used if it was.
fn code_lines(
    fp: &FilePatch,
    pre_image: &impl Fn(&str) -> Option<Vec<u8>>,
) -> (usize, Option<String>) {
    let path = fp.path();
    let lang = Lang::from_path(path);
    let parsed = (|| {
        let Some(lang) = lang else {
            return Err("no parser for this language".to_string());
        };
        let pre = if fp.change == FileChange::Added {
            Vec::new()
        } else {
            let old = fp.old_path.as_deref().unwrap_or(path);
            pre_image(old).ok_or_else(|| format!("cannot read {old} in the state"))?
        };
        let post = apply_file(fp, &pre).map_err(|e| format!("the patch does not apply ({e})"))?;
        Ok((comment_lines(lang, &pre), comment_lines(lang, &post)))
    })();
    let (judged, note) = match parsed {
        Ok(sets) => (Some(sets), None),
        Err(why) => (None, Some(why)),
    };
    let mut n = 0;
    for (kind, line_no, text) in changed_lines(fp) {
        let non_code = match &judged {
            Some((old, new)) => match kind {
                LineKind::Removed => old.contains(&line_no),
                _ => new.contains(&line_no),
            },
            None => looks_like_comment(lang, text),
        };
        if !non_code {
            n += 1;
        }
    }
    (n, note)
}

/// Every added or removed line with its number: old-side numbers for removed lines,
/// new-side numbers for added lines. New-side numbers are derived from the old side
/// (old start plus the net lines of earlier hunks), as applying does, so hand-edited
/// headers do not shift them.
fn changed_lines(fp: &FilePatch) -> Vec<(LineKind, u32, &[u8])> {
    let mut out = Vec::new();
    let mut offset: i64 = 0;
    for h in &fp.hunks {
        let mut old = i64::from(h.old_start) + i64::from(h.old_lines == 0);
        let mut new = old + offset;
        for l in &h.lines {
            match l.kind {
                LineKind::Context => {
                    old += 1;
                    new += 1;
                }
                LineKind::Removed => {
                    out.push((l.kind, u32::try_from(old).unwrap_or(0), l.text()));
                    old += 1;
                }
                LineKind::Added => {
                    out.push((l.kind, u32::try_from(new).unwrap_or(0), l.text()));
                    new += 1;
                }
            }
        }
        offset += h.added() as i64 - h.removed() as i64;
    }
    out
}

/// The text heuristic: blank, or a comment marker of the language at the start.
fn looks_like_comment(lang: Option<Lang>, text: &[u8]) -> bool {
    let t = text.trim_ascii();
    let java = t.starts_with(b"//") || t.starts_with(b"/*") || t.starts_with(b"*");
    let python = t.starts_with(b"#");
    t.is_empty()
        || match lang {
            Some(Lang::Java) => java,
            Some(Lang::Python) => python,
            None => java || python,
        }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A one-hunk, zero-context git diff turning `pre` into `post` (common leading and
    /// trailing lines become unchanged); `None` for `pre` creates the file.
    fn diff(path: &str, pre: Option<&str>, post: &str) -> String {
        let a: Vec<&str> = pre.unwrap_or("").split_inclusive('\n').collect();
        let b: Vec<&str> = post.split_inclusive('\n').collect();
        let mut p = 0;
        while p < a.len() && p < b.len() && a[p] == b[p] {
            p += 1;
        }
        let mut s = 0;
        while s < a.len() - p && s < b.len() - p && a[a.len() - 1 - s] == b[b.len() - 1 - s] {
            s += 1;
        }
        let (old, new) = (&a[p..a.len() - s], &b[p..b.len() - s]);
        let start = |n: usize| if n == 0 { p } else { p + 1 };
        let from = if pre.is_some() {
            format!("a/{path}")
        } else {
            "/dev/null".into()
        };
        let mut d = format!(
            "--- {from}\n+++ b/{path}\n@@ -{},{} +{},{} @@\n",
            start(old.len()),
            old.len(),
            start(new.len()),
            new.len()
        );
        for l in old {
            d.push('-');
            d.push_str(l);
        }
        for l in new {
            d.push('+');
            d.push_str(l);
        }
        d
    }

    const JAVA: &str = "\
package a;

class A {
    /** Doc. */
    int f() {
        return 1; // one
    }
}
";

    const PY: &str = "\
\"\"\"Module doc.\"\"\"
import os


class C:
    \"\"\"Class doc.\"\"\"

    def f(self):
        \"\"\"Function
        doc.\"\"\"
        return 1  # one
";

    /// Run the rule on one changed file given its pre-image and post-image.
    fn judge(path: &str, pre: Option<&str>, post: &str) -> Effective {
        let patch = crate::diff::parse(diff(path, pre, post).as_bytes()).expect("diff parses");
        let files: BTreeMap<String, String> = pre
            .map(|p| (path.to_string(), p.to_string()))
            .into_iter()
            .collect();
        effective_patch(&patch, &Classifier::default(), |p| {
            files.get(p).map(|s| s.as_bytes().to_vec())
        })
    }

    /// (case, path, pre-image, post-image, abstains, changed code lines).
    type Case = (
        &'static str,
        &'static str,
        Option<String>,
        String,
        bool,
        usize,
    );

    #[test]
    fn single_file_table() {
        let j = |from: &str, to: &str| JAVA.replacen(from, to, 1);
        let p = |from: &str, to: &str| PY.replacen(from, to, 1);
        let cases: Vec<Case> = vec![
            (
                "java line comment added",
                "src/a/A.java",
                Some(JAVA.into()),
                j("    int f() {\n", "    // note\n    int f() {\n"),
                true,
                0,
            ),
            (
                "java javadoc rewritten",
                "src/a/A.java",
                Some(JAVA.into()),
                j(
                    "    /** Doc. */\n",
                    "    /**\n     * Better doc.\n     */\n",
                ),
                true,
                0,
            ),
            (
                "java block comment added",
                "src/a/A.java",
                Some(JAVA.into()),
                j("class A {\n", "/* header\n   more */\nclass A {\n"),
                true,
                0,
            ),
            (
                "java comment removed",
                "src/a/A.java",
                Some(JAVA.into()),
                j("    /** Doc. */\n", ""),
                true,
                0,
            ),
            (
                "java code changed",
                "src/a/A.java",
                Some(JAVA.into()),
                j("return 1;", "return 2;"),
                false,
                2,
            ),
            (
                "java trailing comment on code line counts",
                "src/a/A.java",
                Some(JAVA.into()),
                j("// one", "// two"),
                false,
                2,
            ),
            (
                "java code line removed",
                "src/a/A.java",
                Some(JAVA.into()),
                j("        return 1; // one\n", ""),
                false,
                1,
            ),
            (
                "java blank lines only",
                "src/a/A.java",
                Some(JAVA.into()),
                j("class A {\n", "\n\nclass A {\n").replacen("package a;\n\n", "package a;\n", 1),
                true,
                0,
            ),
            (
                "java re-indented code line counts",
                "src/a/A.java",
                Some(JAVA.into()),
                j("        return 1;", "    return 1;"),
                false,
                2,
            ),
            (
                "python comment added",
                "pkg/m.py",
                Some(PY.into()),
                p("import os\n", "import os\n# note\n"),
                true,
                0,
            ),
            (
                "python module docstring changed",
                "pkg/m.py",
                Some(PY.into()),
                p("Module doc.", "Better module doc."),
                true,
                0,
            ),
            (
                "python class docstring changed",
                "pkg/m.py",
                Some(PY.into()),
                p("Class doc.", "Class\n    doc, longer."),
                true,
                0,
            ),
            (
                "python function docstring line removed",
                "pkg/m.py",
                Some(PY.into()),
                p(
                    "        \"\"\"Function\n        doc.\"\"\"\n",
                    "        \"\"\"Function.\"\"\"\n",
                ),
                true,
                0,
            ),
            (
                "python docstring added to a function",
                "pkg/m.py",
                Some(PY.into()),
                p(
                    "    def f(self):\n        \"\"\"Function\n        doc.\"\"\"\n",
                    "    def f(self):\n        \"\"\"New doc.\"\"\"\n",
                ),
                true,
                0,
            ),
            (
                "python string assignment is code",
                "pkg/m.py",
                Some(PY.into()),
                p("import os\n", "import os\nX = \"\"\"doc\"\"\"\n"),
                false,
                1,
            ),
            (
                "python second string statement is code",
                "pkg/m.py",
                Some(PY.into()),
                p(
                    "        return 1",
                    "        \"not a doc\"\n        return 1",
                ),
                false,
                1,
            ),
            (
                "python code changed",
                "pkg/m.py",
                Some(PY.into()),
                p("return 1", "return 2"),
                false,
                2,
            ),
            (
                "python blank line removed",
                "pkg/m.py",
                Some(PY.into()),
                p("import os\n\n\n", "import os\n\n"),
                true,
                0,
            ),
            (
                "new python file with only a docstring and comments",
                "pkg/new.py",
                None,
                "\"\"\"New module.\"\"\"\n# todo\n\n".into(),
                true,
                0,
            ),
            (
                "new java file with code",
                "src/a/B.java",
                None,
                "// header\nclass B {}\n".into(),
                false,
                1,
            ),
        ];
        for (case, path, pre, post, abstain, n) in cases {
            let e = judge(path, pre.as_deref(), &post);
            assert_eq!(e.is_empty(), abstain, "{case}: {e:?}");
            assert_eq!(e.code_lines_changed, n, "{case}: {e:?}");
            assert!(!e.heuristic, "{case}: {e:?}");
            if abstain {
                assert_eq!(
                    e.dropped,
                    vec![(path.to_string(), DropReason::NoCodeLines)],
                    "{case}"
                );
            } else {
                assert_eq!(e.kept_files, vec![path.to_string()], "{case}");
            }
        }
    }

    #[test]
    fn files_dropped_by_path() {
        let cases = [
            ("src/test/java/a/ATest.java", DropReason::Test),
            ("pkg/test_m.py", DropReason::Test),
            ("tests/helpers.py", DropReason::Test),
            ("README.md", DropReason::Docs),
            ("docs/x.rst", DropReason::Docs),
            ("docs/conf.py", DropReason::Docs),
            ("CHANGELOG", DropReason::Docs),
            ("pom.xml", DropReason::NotCode),
            ("setup.cfg", DropReason::NotCode),
        ];
        for (path, reason) in cases {
            // A real code change, so only the path can make it drop.
            let e = judge(path, Some("x = 1\n"), "x = 2\n");
            assert!(e.is_empty(), "{path}: {e:?}");
            assert_eq!(e.dropped, vec![(path.to_string(), reason)], "{path}");
        }
    }

    #[test]
    fn mixed_patches_and_the_empty_patch() {
        let classifier = Classifier::default();
        let files: BTreeMap<&str, &str> = [
            ("README.md", "# Title\n"),
            ("src/test/java/a/ATest.java", "class ATest {}\n"),
            ("src/a/A.java", JAVA),
        ]
        .into_iter()
        .collect();
        let read = |p: &str| files.get(p).map(|s| s.as_bytes().to_vec());
        let readme = diff("README.md", Some("# Title\n"), "# Title\nMore.\n");
        let test = diff(
            "src/test/java/a/ATest.java",
            Some("class ATest {}\n"),
            "class ATest { int x; }\n",
        );
        let comment = diff(
            "src/a/A.java",
            Some(JAVA),
            &JAVA.replacen("/** Doc. */", "/** Doc! */", 1),
        );
        let code = diff(
            "src/a/A.java",
            Some(JAVA),
            &JAVA.replacen("return 1;", "return 2;", 1),
        );

        let patch = crate::diff::parse(format!("{readme}{test}{code}").as_bytes()).expect("ok");
        let e = effective_patch(&patch, &classifier, read);
        assert!(!e.is_empty());
        assert_eq!(e.kept_files, vec!["src/a/A.java"]);
        assert_eq!(e.code_lines_changed, 2);
        let reasons: Vec<DropReason> = e.dropped.iter().map(|(_, r)| *r).collect();
        assert_eq!(reasons, vec![DropReason::Docs, DropReason::Test]);

        let patch = crate::diff::parse(format!("{readme}{test}{comment}").as_bytes()).expect("ok");
        assert!(abstains(&patch, &classifier, read));

        assert!(abstains(&crate::diff::Patch::default(), &classifier, read));
    }

    #[test]
    fn heuristic_when_the_state_cannot_be_read_or_the_patch_does_not_apply() {
        let classifier = Classifier::default();
        let comment = diff(
            "src/a/A.java",
            Some(JAVA),
            &JAVA.replacen("/** Doc. */", "// Doc", 1),
        );
        let code = diff(
            "src/a/A.java",
            Some(JAVA),
            &JAVA.replacen("return 1;", "return 2;", 1),
        );
        let none = |_: &str| None;
        let stale = |_: &str| Some(b"package b;\n".to_vec());
        for (name, read) in [
            ("unreadable", &none as &dyn Fn(&str) -> Option<Vec<u8>>),
            ("stale", &stale),
        ] {
            let p = crate::diff::parse(comment.as_bytes()).expect("ok");
            let e = effective_patch(&p, &classifier, read);
            assert!(e.is_empty() && e.heuristic, "{name}: {e:?}");
            assert_eq!(e.notes.len(), 1, "{name}");
            assert!(
                e.notes[0].starts_with("src/a/A.java: "),
                "{name}: {:?}",
                e.notes
            );
            let p = crate::diff::parse(code.as_bytes()).expect("ok");
            let e = effective_patch(&p, &classifier, read);
            assert!(!e.is_empty() && e.heuristic, "{name}: {e:?}");
            assert_eq!(e.code_lines_changed, 2, "{name}");
        }
        // The heuristic is per language: `#` is no Java comment.
        assert!(!looks_like_comment(Some(Lang::Java), b"  # x"));
        assert!(looks_like_comment(Some(Lang::Python), b"  # x"));
        assert!(looks_like_comment(None, b" * x"));
        assert!(looks_like_comment(Some(Lang::Python), b" \t\r"));
    }
}
