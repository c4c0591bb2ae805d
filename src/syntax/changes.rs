//! What a change is made of, decided on tokens rather than text: whether a hunk only
//! touches whitespace, comments, docstrings or imports, and whether a whole file's code
//! is unchanged once those are stripped (a formatting-only change).
//!
//! A file becomes a sequence of tokens: tree-sitter leaves, except that a string literal
//! is one token (its text verbatim, so whitespace inside a string is a change). Each token
//! is code, comment (Java `line_comment`/`block_comment`, Python `comment`) or docstring
//! (the statement-string that opens a Python module, class or function body, as in
//! [`super::comment_lines`]). Code tokens carry their tree depth, so re-indenting a
//! Python line into another block is a code change even though its text is the same.
//!
//! A hunk is compared on the tokens overlapping its line ranges (old range in the old
//! file, new range in the new file; the ranges include the hunk's context lines, which are
//! equal on both sides). Files with syntax errors get no verdict: the hunk counts.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::comments::python_docstring;
use super::{ts_parse, Lang};

/// Why a hunk's change does not alter code, most specific rule first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// Only whitespace (line breaks, indentation at the same depth, blank lines).
    Whitespace,
    /// Only comments changed (code tokens equal); comments and docstrings both changed
    /// also counts as comments.
    Comment,
    /// Only Python docstrings changed.
    Docstring,
    /// Every changed line is an import statement, a comment or blank.
    Import,
}

/// The token class, because comments and docstrings are stripped before comparing code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Code,
    Comment,
    Doc,
}

#[derive(Debug, Clone)]
struct Tok {
    lines: (u32, u32),
    bytes: (usize, usize),
    class: Class,
    depth: u32,
}

/// A parsed file's tokens and its import/comment/blank lines, built once per side.
#[derive(Debug, Clone)]
pub struct FileTokens {
    src: Vec<u8>,
    toks: Vec<Tok>,
    /// 1-based lines holding only imports, comments, docstrings or whitespace.
    quiet_lines: BTreeSet<u32>,
    /// 1-based lines holding only comments, docstrings or whitespace.
    comment_lines: BTreeSet<u32>,
}

impl FileTokens {
    /// Tokenize `src`; `None` when tree-sitter finds a syntax error (no verdict then).
    pub fn new(lang: Lang, src: &[u8]) -> Option<FileTokens> {
        FileTokens::for_lines(lang, src, &[(1, u32::MAX)])
    }

    /// Tokenize only the lines `ranges` (1-based, inclusive) touch, so the walk over a
    /// large file costs its parse plus the hunks' regions; hunks outside them get no
    /// tokens.
    pub fn for_lines(lang: Lang, src: &[u8], ranges: &[(u32, u32)]) -> Option<FileTokens> {
        let overlaps = |(s, e): (u32, u32)| ranges.iter().any(|&(a, b)| s <= b && e >= a);
        let tree = ts_parse(lang, src)?;
        let root = tree.root_node();
        if root.has_error() {
            return None;
        }
        let mut toks = Vec::new();
        let mut import_spans: Vec<(usize, usize)> = Vec::new();
        let mut stack: Vec<(Node, u32, bool)> = vec![(root, 0, false)];
        let mut cursor = root.walk();
        let mut docs: Vec<usize> = Vec::new();
        while let Some((node, depth, in_doc)) = stack.pop() {
            if depth > 0 && !overlaps(super::node_lines(&node)) {
                continue;
            }
            let kind = node.kind();
            let comment = match lang {
                Lang::Java => kind == "line_comment" || kind == "block_comment",
                Lang::Python => kind == "comment",
            };
            let import = match lang {
                Lang::Java => kind == "import_declaration",
                Lang::Python => matches!(
                    kind,
                    "import_statement" | "import_from_statement" | "future_import_statement"
                ),
            };
            if import {
                import_spans.push((node.start_byte(), node.end_byte()));
            }
            let string = matches!(
                kind,
                "string" | "string_literal" | "character_literal" | "text_block"
            );
            if comment || string || node.child_count() == 0 {
                if node.end_byte() > node.start_byte() {
                    let class = if comment {
                        Class::Comment
                    } else if in_doc {
                        Class::Doc
                    } else {
                        Class::Code
                    };
                    toks.push(Tok {
                        lines: super::node_lines(&node),
                        bytes: (node.start_byte(), node.end_byte()),
                        class,
                        depth,
                    });
                }
                continue;
            }
            if lang == Lang::Python {
                // The docstring statement lies in the body, below this node.
                docs.extend(python_docstring(node).map(|d| d.id()));
            }
            let children: Vec<Node> = node.children(&mut cursor).collect();
            for child in children.into_iter().rev() {
                let child_doc = in_doc || docs.contains(&child.id());
                stack.push((child, depth + 1, child_doc));
            }
        }
        toks.sort_by_key(|t| t.bytes.0);
        // Line classes over the ranges' bytes only.
        let starts: Vec<usize> = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', src).map(|i| i + 1))
            .collect();
        let line_start = |l: u32| starts.get(l as usize - 1).copied().unwrap_or(src.len());
        let lo = ranges
            .iter()
            .map(|r| line_start(r.0.max(1)))
            .min()
            .unwrap_or(0);
        let hi = ranges
            .iter()
            .map(|r| line_start(r.1.saturating_add(1).min(starts.len() as u32 + 1)))
            .max()
            .unwrap_or(0)
            .max(lo);
        let mut quiet = vec![false; hi - lo];
        let mut commented = vec![false; hi - lo];
        let clip = |s: usize, e: usize| (s.clamp(lo, hi) - lo, e.clamp(lo, hi) - lo);
        for t in toks.iter().filter(|t| t.class != Class::Code) {
            let (s, e) = clip(t.bytes.0, t.bytes.1);
            quiet[s..e].iter_mut().for_each(|c| *c = true);
            commented[s..e].iter_mut().for_each(|c| *c = true);
        }
        for &(s, e) in &import_spans {
            let (s, e) = clip(s, e);
            quiet[s..e].iter_mut().for_each(|c| *c = true);
        }
        let first_line = starts.partition_point(|&st| st <= lo) as u32;
        Some(FileTokens {
            src: src.to_vec(),
            toks,
            quiet_lines: lines_covered(&src[lo..hi], &quiet, first_line),
            comment_lines: lines_covered(&src[lo..hi], &commented, first_line),
        })
    }

    fn text(&self, t: &Tok) -> &[u8] {
        &self.src[t.bytes.0.min(self.src.len())..t.bytes.1.min(self.src.len())]
    }

    /// Tokens overlapping lines `start..=end` (none for an empty range).
    fn within(&self, start: u32, end: u32) -> impl Iterator<Item = &Tok> {
        self.toks
            .iter()
            .filter(move |t| start <= end && t.lines.0 <= end && t.lines.1 >= start)
    }

    fn seq<'a>(
        &'a self,
        toks: impl Iterator<Item = &'a Tok> + 'a,
        keep: impl Fn(Class) -> bool + 'a,
    ) -> Vec<(&'a [u8], Class, u32)> {
        toks.filter(move |t| keep(t.class))
            .map(|t| {
                // Depth matters for code only: comments move freely between blocks.
                let depth = if t.class == Class::Code { t.depth } else { 0 };
                (self.text(t), t.class, depth)
            })
            .collect()
    }

    /// Whether the code of two versions is the same once comments, docstrings and
    /// whitespace are stripped (a formatting-only change).
    pub fn same_code(&self, other: &FileTokens) -> bool {
        let code = |c: Class| c == Class::Code;
        self.seq(self.toks.iter(), code) == other.seq(other.toks.iter(), code)
    }
}

/// 1-based lines on which every non-whitespace byte is covered (blank lines included);
/// `src` starts at line `first`.
fn lines_covered(src: &[u8], covered: &[bool], first: u32) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    let (mut line, mut loud) = (first, false);
    for (i, &b) in src.iter().enumerate() {
        if b == b'\n' {
            if !loud {
                out.insert(line);
            }
            line += 1;
            loud = false;
        } else if !b.is_ascii_whitespace() && !covered[i] {
            loud = true;
        }
    }
    if !loud && src.last().is_some_and(|&b| b != b'\n') {
        out.insert(line);
    }
    out
}

/// One hunk in both versions: its old and new line ranges (`start`, `count`, as in the
/// `@@` header) and the lines it removes (old numbering) and adds (new numbering).
#[derive(Debug, Clone, Default)]
pub struct HunkLines {
    /// Old range start and length.
    pub old: (u32, u32),
    /// New range start and length.
    pub new: (u32, u32),
    /// Removed lines, old numbering.
    pub removed: Vec<u32>,
    /// Added lines, new numbering.
    pub added: Vec<u32>,
}

/// What a hunk changes, when it changes no code; `None` when it changes code.
pub fn hunk_change(old: &FileTokens, new: &FileTokens, h: &HunkLines) -> Option<ChangeKind> {
    let range = |(start, n): (u32, u32)| {
        if n == 0 {
            (1, 0)
        } else {
            (start, start + n - 1)
        }
    };
    let (os, oe) = range(h.old);
    let (ns, ne) = range(h.new);
    let all = |_: Class| true;
    let o_all = old.seq(old.within(os, oe), all);
    let n_all = new.seq(new.within(ns, ne), all);
    if o_all == n_all {
        return Some(ChangeKind::Whitespace);
    }
    let code = |c: Class| c == Class::Code;
    if old.seq(old.within(os, oe), code) == new.seq(new.within(ns, ne), code) {
        let comment = |c: Class| c == Class::Comment;
        let comments_differ =
            old.seq(old.within(os, oe), comment) != new.seq(new.within(ns, ne), comment);
        return Some(if comments_differ {
            ChangeKind::Comment
        } else {
            ChangeKind::Docstring
        });
    }
    let quiet_old = h.removed.iter().all(|l| old.quiet_lines.contains(l));
    let quiet_new = h.added.iter().all(|l| new.quiet_lines.contains(l));
    let touches_import = h.removed.iter().any(|l| !old.comment_lines.contains(l))
        || h.added.iter().any(|l| !new.comment_lines.contains(l));
    (quiet_old && quiet_new && touches_import).then_some(ChangeKind::Import)
}

/// Whether a hunk may change no code, by a cheap look at its text, so a file whose
/// hunks all plainly change code is never parsed. It errs towards `true` (a parse then
/// decides): the window may lie in a block comment or triple-quoted string (a `/*` or
/// triple quote before it is not closed, or one is inside it), a changed line may be an
/// import, or the changed lines are equal once whitespace, line comments and lines
/// opening with a quote (Python docstrings) are dropped. `old`/`new` are the two files.
pub fn may_change_no_code(lang: Lang, old: &[u8], new: &[u8], h: &HunkLines) -> bool {
    let (open, close): (&[&[u8]], &[u8]) = match lang {
        Lang::Java => (&[b"/*"], b"*/"),
        Lang::Python => (&[b"\"\"\"", b"'''"], b""),
    };
    let starts = |src: &[u8]| -> Vec<usize> {
        std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', src).map(|i| i + 1))
            .collect()
    };
    let (so, sn) = (starts(old), starts(new));
    let at = |st: &[usize], src: &[u8], l: u32| {
        st.get((l.max(1) - 1) as usize)
            .copied()
            .unwrap_or(src.len())
    };
    // The window (context included) on each side: may it start inside a block comment
    // or a triple-quoted string?
    let first_line = |(s, n): (u32, u32)| if n == 0 { s + 1 } else { s };
    for (src, st, range) in [(old, &so, h.old), (new, &sn, h.new)] {
        let ws = at(st, src, first_line(range));
        let before = &src[..ws.min(src.len())];
        for delim in open {
            let maybe_inside = match lang {
                Lang::Java => {
                    let last_open = memchr::memmem::rfind(before, delim);
                    let last_close = memchr::memmem::rfind(before, close);
                    last_open.is_some_and(|o| last_close.is_none_or(|c| c < o))
                }
                Lang::Python => memchr::memmem::find_iter(before, delim).count() % 2 == 1,
            };
            if maybe_inside {
                return true;
            }
        }
    }
    let line = |src: &[u8], st: &[usize], l: u32| -> Vec<u8> {
        let (s, e) = (at(st, src, l), at(st, src, l + 1));
        src[s.min(src.len())..e.min(src.len())].to_vec()
    };
    // Python: a changed line may continue a multi-line import whose first line (at column
    // 0) lies above the window.
    if lang == Lang::Python {
        for (src, st, lines) in [(old, &so, &h.removed), (new, &sn, &h.added)] {
            let Some(&first) = lines.first() else {
                continue;
            };
            let top = (1..=first)
                .rev()
                .map(|l| line(src, st, l))
                .find(|t| t.first().is_some_and(|b| !b.is_ascii_whitespace()));
            if top.is_some_and(|t| t.starts_with(b"from ") || t.starts_with(b"import ")) {
                return true;
            }
        }
    }
    // The changed lines' text outside comments and (triple-quoted) strings, whitespace
    // dropped, scanning the window in order so a comment opened on a context line counts.
    let mut sides: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
    for (k, (src, st, range, changed)) in
        [(old, &so, h.old, &h.removed), (new, &sn, h.new, &h.added)]
            .into_iter()
            .enumerate()
    {
        let first = first_line(range);
        let mut state: Option<&[u8]> = None;
        for l in first..first + range.1 {
            let text = line(src, st, l);
            let is_changed = changed.contains(&l);
            if is_changed {
                let t = text.trim_ascii_start();
                if t.starts_with(b"import ") || (lang == Lang::Python && t.starts_with(b"from ")) {
                    return true;
                }
                if lang == Lang::Python
                    && state.is_none()
                    && matches!(t.first(), Some(b'"' | b'\''))
                {
                    // A one-line docstring, or the start of one.
                    continue;
                }
            }
            let out = if is_changed {
                Some(&mut sides[k])
            } else {
                None
            };
            code_text(lang, &text, &mut state, out);
        }
    }
    sides[0] == sides[1]
}

/// Append the non-whitespace bytes of `line` outside comments and triple-quoted strings
/// to `out`, carrying the open block (its closing delimiter) from line to line.
fn code_text<'d>(
    lang: Lang,
    line: &[u8],
    state: &mut Option<&'d [u8]>,
    mut out: Option<&mut Vec<u8>>,
) {
    let mut rest = line;
    loop {
        if let Some(close) = *state {
            match memchr::memmem::find(rest, close) {
                Some(i) => {
                    rest = &rest[i + close.len()..];
                    *state = None;
                }
                None => return,
            }
        }
        let marks: &[(&'d [u8], Option<&'d [u8]>)] = match lang {
            Lang::Java => &[(b"/*", Some(b"*/")), (b"//", None)],
            Lang::Python => &[
                (b"\"\"\"", Some(b"\"\"\"")),
                (b"'''", Some(b"'''")),
                (b"#", None),
            ],
        };
        let next = marks
            .iter()
            .filter_map(|(m, c)| memchr::memmem::find(rest, m).map(|i| (i, m.len(), *c)))
            .min_by_key(|x| x.0);
        let end = next.map_or(rest.len(), |x| x.0);
        if let Some(o) = out.as_mut() {
            o.extend(
                rest[..end]
                    .iter()
                    .copied()
                    .filter(|b| !b.is_ascii_whitespace()),
            );
        }
        match next {
            None | Some((_, _, None)) => return,
            Some((i, len, Some(close))) => {
                rest = &rest[i + len..];
                *state = Some(close);
            }
        }
    }
}

/// The `package` a Java file declares, read with the parser (comments and annotations
/// before it do not matter); `None` for the default package or a file that does not parse.
pub fn java_package(src: &[u8]) -> Option<String> {
    // The declaration precedes the first type body: parse only up to its `{`.
    let src = &src[..memchr::memchr(b'{', src).unwrap_or(src.len())];
    let tree = ts_parse(Lang::Java, src)?;
    let root = tree.root_node();
    let mut c = root.walk();
    let decl = root
        .named_children(&mut c)
        .find(|n| n.kind() == "package_declaration")?;
    super::package_name(decl, src)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Classify a one-hunk change from `old` to `new` given as full files, with the hunk
    /// covering every line of both.
    fn kind(lang: Lang, old: &str, new: &str) -> Option<ChangeKind> {
        let (o, n) = (
            FileTokens::new(lang, old.as_bytes()).expect("old parses"),
            FileTokens::new(lang, new.as_bytes()).expect("new parses"),
        );
        let (ol, nl) = (old.lines().count() as u32, new.lines().count() as u32);
        let old_lines: Vec<&str> = old.lines().collect();
        let new_lines: Vec<&str> = new.lines().collect();
        let h = HunkLines {
            old: (1, ol),
            new: (1, nl),
            removed: (1..=ol)
                .filter(|&i| !new_lines.contains(&old_lines[i as usize - 1]))
                .collect(),
            added: (1..=nl)
                .filter(|&i| !old_lines.contains(&new_lines[i as usize - 1]))
                .collect(),
        };
        hunk_change(&o, &n, &h)
    }

    #[test]
    fn table_of_change_kinds() {
        use ChangeKind::*;
        let rows: &[(Lang, &str, &str, Option<ChangeKind>)] = &[
            (
                Lang::Java,
                "class A { int x = 1; }\n",
                "class A {\n  int x = 1;\n}\n",
                Some(Whitespace),
            ),
            (
                Lang::Java,
                "class A { int x = 1; }\n",
                "class A { int x = 2; }\n",
                None,
            ),
            (
                Lang::Java,
                "class A { String s = \"a b\"; }\n",
                "class A { String s = \"a  b\"; }\n",
                None,
            ),
            (
                Lang::Java,
                "class A {\n  // old\n  int x;\n}\n",
                "class A {\n  // new\n  int x;\n}\n",
                Some(Comment),
            ),
            (
                Lang::Java,
                "class A {\n  int x;\n}\n",
                "class A {\n  /** Doc. */\n  int x;\n}\n",
                Some(Comment),
            ),
            (
                Lang::Java,
                "import a.B;\nclass A {}\n",
                "import a.B;\nimport a.C;\nclass A {}\n",
                Some(Import),
            ),
            (
                Lang::Java,
                "import a.B;\nclass A {}\n",
                "class A {}\n",
                Some(Import),
            ),
            (
                Lang::Python,
                "def f():\n    \"\"\"Old.\"\"\"\n    return 1\n",
                "def f():\n    \"\"\"New.\"\"\"\n    return 1\n",
                Some(Docstring),
            ),
            (
                Lang::Python,
                "def f():\n    return 1  # one\n",
                "def f():\n    return 1  # uno\n",
                Some(Comment),
            ),
            (
                Lang::Python,
                "x = [1,\n  2]\n",
                "x = [1, 2]\n",
                Some(Whitespace),
            ),
            (
                Lang::Python,
                "if a:\n    b()\n    c()\n",
                "if a:\n    b()\nc()\n",
                None,
            ),
            (Lang::Python, "x = 'a'\n", "x = 'b'\n", None),
            (
                Lang::Python,
                "import os\nx = 1\n",
                "import os\nimport sys\nx = 1\n",
                Some(Import),
            ),
            (
                Lang::Python,
                "import os\nx = 1\n",
                "import os\nx = 2\n",
                None,
            ),
            (
                Lang::Python,
                "def f():\n    return 1\n",
                "def f():\n    \"\"\"Doc.\"\"\"\n    return 1\n",
                Some(Docstring),
            ),
        ];
        for (i, (lang, old, new, want)) in rows.iter().enumerate() {
            assert_eq!(kind(*lang, old, new), *want, "row {i}: {old:?} -> {new:?}");
        }
    }

    #[test]
    fn the_text_prefilter_never_hides_a_non_code_change() {
        // Every row of the table whose verdict is not code must pass the prefilter; the
        // plain code changes need no parse.
        let cases: &[(Lang, &str, &str, bool)] = &[
            (
                Lang::Java,
                "class A {\n  int x = 1;\n}\n",
                "class A {\n  int x = 2;\n}\n",
                false,
            ),
            (
                Lang::Java,
                "class A {\n  // old\n  int x;\n}\n",
                "class A {\n  // new\n  int x;\n}\n",
                true,
            ),
            (
                Lang::Java,
                "/*\n a\n b\n c\n d\n*/\nclass A {}\n",
                "/*\n a\n B\n c\n d\n*/\nclass A {}\n",
                true,
            ),
            (
                Lang::Python,
                "def f():\n    \"\"\"\n    a\n    b\n    c\n    d\n    \"\"\"\n",
                "def f():\n    \"\"\"\n    a\n    b\n    C\n    d\n    \"\"\"\n",
                true,
            ),
            (Lang::Python, "x = [1,\n  2]\n", "x = [1, 2]\n", true),
            (Lang::Python, "x = 1\n", "x = 2\n", false),
            (
                Lang::Python,
                "from a import (b,\n    c,\n    d,\n    e,\n    f)\n",
                "from a import (b,\n    c,\n    d,\n    e,\n    f, g)\n",
                true,
            ),
        ];
        for (i, (lang, old, new, want)) in cases.iter().enumerate() {
            let old_lines: Vec<&str> = old.lines().collect();
            let new_lines: Vec<&str> = new.lines().collect();
            let (ol, nl) = (old_lines.len() as u32, new_lines.len() as u32);
            // Narrow the window to the changed lines only (no context), the hard case.
            let removed: Vec<u32> = (1..=ol)
                .filter(|&k| !new_lines.contains(&old_lines[k as usize - 1]))
                .collect();
            let added: Vec<u32> = (1..=nl)
                .filter(|&k| !old_lines.contains(&new_lines[k as usize - 1]))
                .collect();
            let span = |v: &[u32]| v.first().map_or((1, 0), |&f| (f, v.len() as u32));
            let h = HunkLines {
                old: span(&removed),
                new: span(&added),
                removed,
                added,
            };
            assert_eq!(
                may_change_no_code(*lang, old.as_bytes(), new.as_bytes(), &h),
                *want,
                "case {i}"
            );
        }
    }

    #[test]
    fn syntax_errors_give_no_tokens() {
        assert!(FileTokens::new(Lang::Python, b"def f(:\n").is_none());
        assert!(FileTokens::new(Lang::Java, b"class A { int }").is_none());
    }

    #[test]
    fn same_code_ignores_comments_and_layout() {
        let a = FileTokens::new(Lang::Java, b"class A { int x; }").unwrap();
        let b = FileTokens::new(Lang::Java, b"/* c */\nclass A {\n  int x; // y\n}\n").unwrap();
        let c = FileTokens::new(Lang::Java, b"class A { long x; }").unwrap();
        assert!(a.same_code(&b));
        assert!(!a.same_code(&c));
    }

    #[test]
    fn java_package_is_read_after_comments() {
        assert_eq!(
            java_package(b"/* license */\npackage org.acme . num;\nclass A {}").as_deref(),
            Some("org.acme.num")
        );
        assert_eq!(java_package(b"class A {}"), None);
    }
}
