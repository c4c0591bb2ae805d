//! Syntax layer: parse a buggy file once, then answer D_ast and proximity questions.
//!
//! Only this module touches tree-sitter. [`parse_file`] turns a source file into a
//! compact arena tree ([`ParsedFile`]) shaped per [`TreeShape`] (ARCHITECTURE §4), plus the
//! file's members (methods that count for spatial proximity) and Java package.
//!
//! Line conventions: every line is 1-based and inclusive. A hunk [`Span`] with
//! `end = start − 1` is a pure insertion before line `start`:
//! - [`ParsedFile::anchor`] with [`AnchorRule::Covering`] picks the node with the
//!   smallest `end − start` among nodes with `start ≤ span.start` and `end ≥ span.end`
//!   (ties: smallest pre-order id, i.e. outermost); for an insertion this admits nodes
//!   ending on line `start − 1`. Root when nothing covers the span.
//! - [`AnchorRule::FirstStatement`] picks the first statement-like node in pre-order
//!   whose first line lies in `span.start..=span.end`; when there is none (always for an
//!   insertion) it falls back to the covering node.
//! - [`ParsedFile::method_for`] matches members overlapping the span:
//!   `begin ≤ span.end && end ≥ span.start`. For an insertion this is
//!   `begin < start ≤ end`: strictly inside the member (not before its first line).
//!
//! Rules table (JavaParser shape, Java): see the [`java`] module docs; the Named shape
//! keeps every named node except comments. Python uses the Named rules in both shapes
//! (there is no JavaParser for Python).
//!
//! Cost: one tree-sitter parse plus one pass over its nodes; the arena is five flat
//! vectors; [`ParsedFile::diameter`] is computed once at build (O(N)),
//! [`ParsedFile::anchor`] is O(N) per call, [`ParsedFile::distance`] O(depth).
//! Detecting oversized files (> 5 MB) is the caller's job.

mod build;
pub mod changes;
mod comments;
pub mod java;
mod kinds;
pub mod outline;
pub mod python;
pub mod tree;

use std::cell::RefCell;
use std::sync::LazyLock;

use tree_sitter::{Language, Parser};

pub use crate::diff::Span;
pub use changes::{
    hunk_change, java_package, may_change_no_code, ChangeKind, FileTokens, HunkLines,
};
pub use comments::comment_lines;
pub use python::python_module_path;
pub use tree::NodeId;

// `node_lines` and `package_name` are shared with [`changes`].
use build::{build, node_lines, package_name};
use kinds::{kind_table, F_STMT};
use tree::Tree;

/// Source language, because the grammar and the rule tables depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    /// Java (tree-sitter-java 0.23).
    Java,
    /// Python (tree-sitter-python 0.25).
    Python,
}

impl Lang {
    /// Language of a path by extension (`.java`, `.py`), so callers need no table.
    pub fn from_path(path: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.').map(|(_, e)| e)?;
        match ext {
            "java" => Some(Lang::Java),
            "py" | "pyi" => Some(Lang::Python),
            _ => None,
        }
    }
}

/// Which syntax tree D_ast measures, because profiles differ (ARCHITECTURE §4 table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TreeShape {
    /// tree-sitter named nodes reshaped to JavaParser's node model (profiles `hunk4j`,
    /// `hunk4j-published`). Python has no JavaParser; it uses `Named`.
    JavaParser,
    /// tree-sitter named nodes, comments dropped (profile `algorithm1`).
    Named,
}

/// How a hunk's anchor node is chosen, because profiles differ (ARCHITECTURE §4 table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AnchorRule {
    /// Smallest line-span node covering the span; ties → outermost; root if none.
    Covering,
    /// First statement-like node starting within the span; covering node if none.
    FirstStatement,
}

/// A method that counts for spatial proximity, with its display label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// First line (1-based), including annotations/modifiers, excluding doc comments.
    pub begin: u32,
    /// Last line (1-based, inclusive).
    pub end: u32,
    /// `Type.name(params)` for display only: it can repeat within a file.
    pub label: String,
    /// Column (bytes) where the member starts, so a Python body line can be told from
    /// one after the function (a body is indented deeper than its `def`).
    pub indent: u32,
}

/// One parsed file: its shaped tree, error count, members and package.
#[derive(Debug, Clone)]
pub struct ParsedFile {
    lang: Lang,
    tree: Tree,
    diameter: u32,
    error_count: usize,
    package: Option<String>,
    members: Vec<Member>,
}

impl ParsedFile {
    /// Number of ERROR and MISSING nodes, so callers can flag unparseable sources.
    pub fn error_count(&self) -> usize {
        self.error_count
    }

    /// Number of nodes in the shaped tree.
    pub fn node_count(&self) -> usize {
        self.tree.len()
    }

    /// Longest path (edges) in the shaped tree; the D_ast denominator (computed once).
    pub fn diameter(&self) -> u32 {
        self.diameter
    }

    /// A hunk's anchor node (module docs define the span arithmetic).
    pub fn anchor(&self, span: Span, rule: AnchorRule) -> NodeId {
        match rule {
            AnchorRule::Covering => self.tree.covering(span),
            AnchorRule::FirstStatement => {
                let table = kind_table(self.lang, TreeShape::Named);
                self.tree
                    .first_starting_within(span, |k| table.has(k, F_STMT))
                    .unwrap_or_else(|| self.tree.covering(span))
            }
        }
    }

    /// Edges between two nodes, the D_ast numerator.
    pub fn distance(&self, a: NodeId, b: NodeId) -> u32 {
        self.tree.distance(a, b)
    }

    /// Java `package` name (`a.b.c`); `None` without one and for Python.
    pub fn package(&self) -> Option<&str> {
        self.package.as_deref()
    }

    /// Members that count as methods, in source order.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// Method identity of a hunk: (min begin, max end) over members overlapping `span`;
    /// `None` when no member overlaps (the caller gives the hunk a fresh id).
    pub fn method_for(&self, span: Span) -> Option<(u32, u32)> {
        self.members
            .iter()
            .filter(|m| m.begin <= span.end && m.end >= span.start)
            .fold(None, |acc, m| match acc {
                None => Some((m.begin, m.end)),
                Some((b, e)) => Some((b.min(m.begin), e.max(m.end))),
            })
    }

    /// Python bodies have no closing line, so a pure insertion right after a function's
    /// last line belongs to it when indented deeper than its `def`: the innermost such
    /// function ending at `last_line` (the last non-blank line before the insertion).
    /// Always `None` for Java, whose closing brace makes [`Self::method_for`] enough.
    pub fn function_extended_by(&self, last_line: u32, indent: u32) -> Option<&Member> {
        if self.lang != Lang::Python {
            return None;
        }
        self.members
            .iter()
            .filter(|m| m.end == last_line && m.indent < indent)
            .max_by_key(|m| (m.indent, m.begin))
    }

    /// Line range of a node (1-based, inclusive), for debugging and reports.
    pub fn lines(&self, n: NodeId) -> (u32, u32) {
        self.tree.lines(n)
    }

    /// Kind name of a node (`SimpleName`/`ExpressionStmt` for the synthetic ones).
    pub fn kind(&self, n: NodeId) -> &'static str {
        kind_name(self.lang, self.tree.kind_id(n))
    }

    /// Depth of a node in edges from the root.
    pub fn depth(&self, n: NodeId) -> u32 {
        self.tree.depth(n)
    }

    /// One line per node in pre-order, indented by depth: `kind begin-end`, for debugging
    /// against other parsers' dumps.
    pub fn outline(&self) -> String {
        let mut out = String::new();
        for i in 0..self.tree.len() as u32 {
            let n = NodeId(i);
            let (b, e) = self.lines(n);
            let pad = 2 * self.depth(n) as usize;
            out.push_str(&format!("{:pad$}{} {b}-{e}\n", "", self.kind(n)));
        }
        out
    }

    /// The tree as an s-expression (`(kind child…)`), for tests and debugging.
    pub fn sexpr(&self) -> String {
        let lang = self.lang;
        self.tree.sexpr(|k| kind_name(lang, k))
    }
}

pub(super) fn language(lang: Lang) -> &'static Language {
    static JAVA: LazyLock<Language> = LazyLock::new(|| tree_sitter_java::LANGUAGE.into());
    static PYTHON: LazyLock<Language> = LazyLock::new(|| tree_sitter_python::LANGUAGE.into());
    match lang {
        Lang::Java => &JAVA,
        Lang::Python => &PYTHON,
    }
}

fn kind_name(lang: Lang, k: u16) -> &'static str {
    tree::synthetic_name(k).unwrap_or_else(|| language(lang).node_kind_for_id(k).unwrap_or("?"))
}

thread_local! {
    /// One parser per language per thread (a `Parser` must not cross threads).
    static PARSERS: RefCell<[Option<Parser>; 2]> = const { RefCell::new([None, None]) };
}

/// Parses `src` and builds the shaped tree. Never panics: syntax errors are counted in
/// [`ParsedFile::error_count`] and the (partial) tree is kept; if tree-sitter produces no
/// tree at all the result is an empty tree with an error count of 1.
pub fn parse_file(lang: Lang, src: &[u8], shape: TreeShape) -> ParsedFile {
    let ts_tree = ts_parse(lang, src);
    let table = kind_table(lang, shape);
    let mut out = ParsedFile {
        lang,
        tree: Tree::default(),
        diameter: 0,
        error_count: 0,
        package: None,
        members: Vec::new(),
    };
    match ts_tree {
        Some(t) => build(&mut out, t.root_node(), src, table),
        None => out.error_count = 1,
    }
    out.diameter = out.tree.diameter();
    out
}

/// The trees parsed so far in this process, per language, keyed by the whole source:
/// a build parses one file in mining (hunk verdicts), annotation and the Partial state,
/// and a warm rebuild spent most of its time parsing the same bytes again. A tree is
/// a reference-counted copy, and the memo is cleared once it holds [`MEMO_BYTES`] of
/// source, so memory stays bounded on histories of any size.
type TreeMemo = std::sync::Mutex<(
    usize,
    [std::collections::HashMap<Box<[u8]>, tree_sitter::Tree>; 2],
)>;
static TREES: LazyLock<TreeMemo> = LazyLock::new(Default::default);

/// Source bytes the tree memo holds at most (its trees take a multiple of that).
const MEMO_BYTES: usize = 16 << 20;

/// The tree-sitter tree of `src`: from the memo, or parsed with this thread's parser
/// for `lang`; `None` only when tree-sitter produces no tree at all.
fn ts_parse(lang: Lang, src: &[u8]) -> Option<tree_sitter::Tree> {
    let memo = || {
        TREES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    if let Some(t) = memo().1[lang as usize].get(src) {
        return Some(t.clone());
    }
    let tree = ts_parse_fresh(lang, src)?;
    let mut m = memo();
    if m.0 + src.len() > MEMO_BYTES {
        *m = Default::default();
    }
    if src.len() <= MEMO_BYTES {
        m.0 += src.len();
        m.1[lang as usize].insert(src.into(), tree.clone());
    }
    Some(tree)
}

/// One tree-sitter parse with this thread's parser for `lang`.
fn ts_parse_fresh(lang: Lang, src: &[u8]) -> Option<tree_sitter::Tree> {
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let slot = &mut parsers[lang as usize];
        if slot.is_none() {
            let mut p = Parser::new();
            // Cannot fail: the grammar crates match the tree-sitter ABI we link.
            if p.set_language(language(lang)).is_err() {
                return None;
            }
            *slot = Some(p);
        }
        let p = slot.as_mut()?;
        p.reset();
        p.parse(src, None)
    })
}

#[cfg(test)]
mod tests;
