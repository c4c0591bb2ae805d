//! Syntax layer: parse a buggy file once, then answer D_ast and proximity questions.
//!
//! Only this module touches tree-sitter. [`parse_file`] turns a source file into a
//! compact arena tree ([`ParsedFile`]) shaped per [`TreeShape`] (DESIGN §4), plus the
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

pub mod changes;
mod comments;
pub mod java;
pub mod outline;
pub mod python;
pub mod tree;

use std::cell::RefCell;
use std::sync::LazyLock;

use std::num::NonZeroU16 as FieldId;
use tree_sitter::{Language, Node, Parser, TreeCursor};

pub use crate::diff::Span;
pub use changes::{
    hunk_change, java_package, may_change_no_code, ChangeKind, FileTokens, HunkLines,
};
pub use comments::comment_lines;
pub use python::python_module_path;
pub use tree::NodeId;
use tree::{
    Tree, KIND_ARRAY_TYPE, KIND_EMPTY_STMT, KIND_EXPRESSION_STMT, KIND_INITIALIZER,
    KIND_INTERSECTION, KIND_LOCAL_CLASS_STMT, KIND_MODIFIER, KIND_SIMPLE_NAME, KIND_TYPE_EXPR,
    KIND_VAR_DECLARATOR, KIND_VAR_DECL_EXPR,
};

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

/// Which syntax tree D_ast measures, because profiles differ (DESIGN §4 table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TreeShape {
    /// tree-sitter named nodes reshaped to JavaParser's node model (profiles `hunk4j`,
    /// `hunk4j-published`). Python has no JavaParser; it uses `Named`.
    JavaParser,
    /// tree-sitter named nodes, comments dropped (profile `algorithm1`).
    Named,
}

/// How a hunk's anchor node is chosen, because profiles differ (DESIGN §4 table).
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

fn language(lang: Lang) -> &'static Language {
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

/// What the builder does with a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    /// Make a node.
    Keep,
    /// Make no node; children attach to the parent.
    Collapse,
    /// Make no node and skip the subtree.
    Drop,
}

// Per-kind flags used by the contextual rules (JavaParser shape) and the queries.
const F_IDENT: u64 = 1;
const F_TYPE_IDENT: u64 = 1 << 1;
const F_PAREN: u64 = 1 << 2;
const F_COND_PARENT: u64 = 1 << 3;
const F_SCOPED_TYPE: u64 = 1 << 4;
const F_GENERIC: u64 = 1 << 5;
const F_DECLARATOR: u64 = 1 << 6;
const F_SPREAD: u64 = 1 << 7;
const F_THIS_SUPER: u64 = 1 << 8;
const F_EXPLICIT_CTOR: u64 = 1 << 9;
const F_NAME_PARENT: u64 = 1 << 10;
const F_TYPE_NAME_PARENT: u64 = 1 << 11;
const F_LOCAL_VAR: u64 = 1 << 12;
const F_STMT_PARENT: u64 = 1 << 13;
const F_TYPED_DECL: u64 = 1 << 14;
const F_MEMBER: u64 = 1 << 15;
const F_STMT: u64 = 1 << 16;
const F_TYPE_DECL: u64 = 1 << 17;
const F_PACKAGE: u64 = 1 << 18;
const F_SCOPED_ID: u64 = 1 << 19;
const F_MODIFIERS: u64 = 1 << 20;
const F_LOCAL_CLASS: u64 = 1 << 21;
const F_BLOCK: u64 = 1 << 22;
const F_CLASS_BODY: u64 = 1 << 23;
const F_CAST: u64 = 1 << 24;
const F_FOREACH: u64 = 1 << 25;
const F_RESOURCE: u64 = 1 << 26;
const F_UNION: u64 = 1 << 27;
const F_ARRAY_TYPE: u64 = 1 << 28;
const F_ARRAY_NEW: u64 = 1 << 29;
const F_DIMENSIONS: u64 = 1 << 30;
const F_METHOD_REF: u64 = 1 << 31;
const F_FIELD_ACCESS: u64 = 1 << 32;
const F_WILDCARD: u64 = 1 << 33;
const F_EMPTY_STMT_PARENT: u64 = 1 << 34;

/// Per-kind-id action and flags for one (language, shape), built once from the tables.
struct KindTable {
    action: Vec<Action>,
    flags: Vec<u64>,
    /// Field ids that make an `identifier` a name (JavaParser shape).
    name_fields: Vec<FieldId>,
    /// The `type` field id (declarations).
    type_field: Option<FieldId>,
    /// The `name` field id (`scoped_identifier`'s own last segment).
    name_field: Option<FieldId>,
    /// The `dimensions` field id (`int x[]` in a for-each variable).
    dims_field: Option<FieldId>,
    /// The `field` field id (`Outer.this`).
    field_field: Option<FieldId>,
    /// Kind id of `this` (named).
    this_kind: u16,
    /// Kind id of the `;` token (empty statements).
    semicolon_kind: u16,
    /// Fields holding a statement (`body`, `consequence`, `alternative`).
    stmt_fields: Vec<Option<FieldId>>,
    /// The `body` field id (an expression-bodied lambda).
    body_field: Option<FieldId>,
    /// Kind id of `lambda_expression`, for the lambda-body rule.
    lambda_kind: u16,
    /// Kind id of `block`, for the lambda-body rule.
    block_kind: u16,
    /// Kinds that are a type name as the scope of a method reference (`TypeExpr`).
    type_expr_kinds: Vec<u16>,
    /// JavaParser-shape contextual rules apply.
    contextual: bool,
}

impl KindTable {
    fn has(&self, k: u16, f: u64) -> bool {
        self.flags.get(k as usize).is_some_and(|x| x & f != 0)
    }

    fn build(lang: Lang, shape: TreeShape) -> KindTable {
        let l = language(lang);
        let n = l.node_kind_count();
        let mut action = vec![Action::Keep; n];
        let mut flags = vec![0u64; n];
        let (comments, members, types, stmts) = match lang {
            Lang::Java => (java::COMMENTS, java::MEMBERS, java::TYPES, java::STATEMENTS),
            Lang::Python => (
                python::COMMENTS,
                python::MEMBERS,
                python::TYPES,
                python::STATEMENTS,
            ),
        };
        let contextual = lang == Lang::Java && shape == TreeShape::JavaParser;
        let mut flag_sets: Vec<(&[&str], u64)> =
            vec![(members, F_MEMBER), (types, F_TYPE_DECL), (stmts, F_STMT)];
        if lang == Lang::Java {
            flag_sets.push((&["package_declaration"], F_PACKAGE));
        }
        if contextual {
            flag_sets.extend_from_slice(&[
                (&["identifier"][..], F_IDENT),
                (&["type_identifier"], F_TYPE_IDENT),
                (&["parenthesized_expression"], F_PAREN),
                (java::JP_COND_PARENTS, F_COND_PARENT),
                (&["scoped_type_identifier"], F_SCOPED_TYPE),
                (&["generic_type"], F_GENERIC),
                (&["variable_declarator"], F_DECLARATOR),
                (&["spread_parameter"], F_SPREAD),
                (&["this", "super"], F_THIS_SUPER),
                (&["explicit_constructor_invocation"], F_EXPLICIT_CTOR),
                (java::JP_NAME_PARENTS, F_NAME_PARENT),
                (java::JP_TYPE_NAME_PARENTS, F_TYPE_NAME_PARENT),
                (&["local_variable_declaration"], F_LOCAL_VAR),
                (java::JP_STMT_PARENTS, F_STMT_PARENT),
                (java::JP_TYPED_DECLS, F_TYPED_DECL),
                (&["scoped_identifier"], F_SCOPED_ID),
                (&["modifiers"], F_MODIFIERS),
                (java::JP_LOCAL_TYPES, F_LOCAL_CLASS),
                (&["block"], F_BLOCK),
                (java::JP_INITIALIZER_PARENTS, F_CLASS_BODY),
                (&["cast_expression"], F_CAST),
                (&[java::JP_FOREACH], F_FOREACH),
                (&[java::JP_RESOURCE], F_RESOURCE),
                (&[java::JP_UNION], F_UNION),
                (&["array_type"], F_ARRAY_TYPE),
                (&["array_creation_expression"], F_ARRAY_NEW),
                (&["dimensions"], F_DIMENSIONS),
                (&["method_reference"], F_METHOD_REF),
                (&["field_access"], F_FIELD_ACCESS),
                (&["wildcard"], F_WILDCARD),
                (java::JP_EMPTY_STMT_PARENTS, F_EMPTY_STMT_PARENT),
            ]);
        }
        for id in 0..n {
            let id16 = id as u16;
            let Some(name) = l.node_kind_for_id(id16) else {
                continue;
            };
            let named = l.node_kind_is_named(id16);
            if !named {
                action[id] = Action::Collapse;
                continue;
            }
            if comments.contains(&name) {
                action[id] = Action::Drop;
            }
            if contextual {
                if java::JP_COLLAPSE.contains(&name) {
                    action[id] = Action::Collapse;
                }
                if java::JP_DROP.contains(&name) {
                    action[id] = Action::Drop;
                }
            }
            for (set, f) in &flag_sets {
                if set.contains(&name) {
                    flags[id] |= f;
                }
            }
        }
        let name_fields = if contextual {
            java::JP_NAME_FIELDS
                .iter()
                .filter_map(|f| l.field_id_for_name(f))
                .collect()
        } else {
            Vec::new()
        };
        KindTable {
            action,
            flags,
            name_fields,
            type_field: l.field_id_for_name("type"),
            name_field: l.field_id_for_name("name"),
            dims_field: l.field_id_for_name("dimensions"),
            body_field: l.field_id_for_name("body"),
            field_field: l.field_id_for_name("field"),
            this_kind: l.id_for_node_kind("this", true),
            semicolon_kind: l.id_for_node_kind(";", false),
            stmt_fields: java::JP_STMT_FIELDS
                .iter()
                .map(|f| l.field_id_for_name(f))
                .collect(),
            lambda_kind: l.id_for_node_kind("lambda_expression", true),
            block_kind: l.id_for_node_kind("block", true),
            type_expr_kinds: java::JP_TYPE_EXPR_SCOPES
                .iter()
                .map(|k| l.id_for_node_kind(k, true))
                .filter(|&k| k != 0)
                .collect(),
            contextual,
        }
    }
}

fn kind_table(lang: Lang, shape: TreeShape) -> &'static KindTable {
    static T: LazyLock<[KindTable; 3]> = LazyLock::new(|| {
        [
            KindTable::build(Lang::Java, TreeShape::JavaParser),
            KindTable::build(Lang::Java, TreeShape::Named),
            KindTable::build(Lang::Python, TreeShape::Named),
        ]
    });
    match (lang, shape) {
        (Lang::Java, TreeShape::JavaParser) => &T[0],
        (Lang::Java, TreeShape::Named) => &T[1],
        (Lang::Python, _) => &T[2],
    }
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

/// One tree-sitter parse with this thread's parser for `lang`; `None` only when
/// tree-sitter produces no tree at all.
fn ts_parse(lang: Lang, src: &[u8]) -> Option<tree_sitter::Tree> {
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

/// 1-based inclusive line range of a tree-sitter node; a node ending at column 0 of a
/// later line (a trailing newline) ends on the line before.
fn node_lines(n: &Node) -> (u32, u32) {
    let s = n.start_position();
    let e = n.end_position();
    let start = s.row as u32 + 1;
    let end = if e.column == 0 && e.row > s.row {
        e.row as u32
    } else {
        e.row as u32 + 1
    };
    (start, end)
}

/// A pending visit: a tree-sitter node, where its output goes, and the context the
/// contextual rules look at.
struct Item<'t> {
    node: Node<'t>,
    attach: Option<u32>,
    parent_kind: Option<u16>,
    field: Option<FieldId>,
    last_named: bool,
    /// First named child of its parent.
    first_named: bool,
    /// Child of a `field_access` whose field is `this` (`Outer.this`): JavaParser's
    /// `ThisExpr(Name)`, so the `this` leaf goes and the qualifier is a bare `Name`.
    in_qualified_this: bool,
    /// A declaration's `type` child to visit first under this declarator.
    /// The flag marks a copy (second and later declarators).
    pending_type: Option<(Node<'t>, u16, bool)>,
    /// Synthetic node (kind, lines) to create under `attach` first; this node and the
    /// following `use_made` siblings go under it (keeps the arena in pre-order).
    make: Option<(u16, u32, u32)>,
    /// Attach under the synthetic node made by the nearest preceding `make` sibling.
    use_made: bool,
    /// A second visit of a subtree (a declaration's type copied under a later
    /// declarator): errors and members are not counted again.
    dup: bool,
    /// Synthetic `ArrayType` levels to wrap this (type) node in: JavaParser nests one
    /// `ArrayType` per bracket pair, including pairs written after the name (`int x[]`).
    array_wraps: u32,
}

fn build(out: &mut ParsedFile, root: Node, src: &[u8], table: &KindTable) {
    let mut stack = vec![Item {
        node: root,
        attach: None,
        parent_kind: None,
        field: None,
        last_named: false,
        first_named: false,
        in_qualified_this: false,
        pending_type: None,
        make: None,
        use_made: false,
        dup: false,
        array_wraps: 0,
    }];
    let mut made: Option<u32> = None;
    let mut cursor: TreeCursor = root.walk();
    let mut kids: Vec<(Node, Option<FieldId>)> = Vec::new();
    while let Some(it) = stack.pop() {
        let node = it.node;
        if !it.dup && (node.is_error() || node.is_missing()) {
            out.error_count += 1;
        }
        let kind = node.kind_id();
        if !it.dup && table.has(kind, F_MEMBER) {
            out.members.push(member(out.lang, node, src, table));
        }
        if table.has(kind, F_PACKAGE) && out.package.is_none() {
            out.package = package_name(node, src);
        }
        let d = decide(table, &it, kind);
        let mut attach = match it.attach {
            None if !out.tree.is_empty() => Some(0),
            a => a,
        };
        if it.use_made && made.is_some() {
            attach = made;
        }
        if let Some((k, s, e)) = it.make {
            made = Some(out.tree.push(k, attach, s, e));
            attach = made;
        }
        if it.array_wraps > 0 {
            let (s, e) = node_lines(&node);
            for _ in 0..it.array_wraps {
                attach = Some(out.tree.push(KIND_ARRAY_TYPE, attach, s, e));
            }
        }
        let here = match d.action {
            Action::Drop => continue,
            Action::Collapse => attach,
            Action::Keep => {
                let (s, e) = node_lines(&node);
                let mut parent = attach;
                if let Some(w) = d.wrap {
                    parent = Some(out.tree.push(w, parent, s, e));
                }
                let id = out.tree.push(d.kind.unwrap_or(kind), parent, s, e);
                if d.simple_name {
                    out.tree.push(KIND_SIMPLE_NAME, Some(id), s, e);
                }
                for _ in 0..d.more_levels {
                    out.tree.push(kind, parent, s, e);
                }
                Some(id)
            }
        };
        kids.clear();
        cursor.reset(node);
        if cursor.goto_first_child() {
            loop {
                kids.push((cursor.node(), cursor.field_id()));
                if !cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        let last_named = kids.iter().rposition(|(k, _)| k.is_named());
        let first_named = kids.iter().position(|(k, _)| k.is_named());
        let qualified_this = table.contextual
            && table.has(kind, F_FIELD_ACCESS)
            && kids.iter().any(|(k, f)| {
                f.is_some() && *f == table.field_field && k.kind_id() == table.this_kind
            });
        // Declaration type → first declarator (JavaParser shape).
        // Declaration type → a copy under every declarator (JavaParser clones it).
        let mut moved: Option<usize> = None;
        if table.contextual && table.has(kind, F_TYPED_DECL) {
            moved = kids
                .iter()
                .position(|(_, f)| f.is_some() && *f == table.type_field);
        }
        // Bracket pairs after a name (`int x[]`, `String a[]` parameters) wrap the type.
        let dims_after = if table.contextual {
            kids.iter()
                .find(|(_, f)| f.is_some() && *f == table.dims_field)
                .map_or(0, |(d, _)| bracket_pairs(d))
        } else {
            0
        };
        // `int[][]`: one tree-sitter `array_type`, two nested JavaParser `ArrayType`s.
        let mut element_under = here;
        if table.contextual && table.has(kind, F_ARRAY_TYPE) {
            let (s, e) = node_lines(&node);
            for _ in 1..dims_after.max(1) {
                element_under = Some(out.tree.push(KIND_ARRAY_TYPE, element_under, s, e));
            }
        }
        // `(A & B) x`: JavaParser groups the cast's types in an `IntersectionType`; it is
        // created right after the cast node, so pre-order still holds.
        let mut types_under = here;
        if table.contextual && table.has(kind, F_CAST) {
            let mut tys = kids
                .iter()
                .filter(|(_, f)| f.is_some() && *f == table.type_field);
            if let (Some(first), Some(last)) = (tys.next(), tys.next_back()) {
                let (s, _) = node_lines(&first.0);
                let (_, e) = node_lines(&last.0);
                types_under = Some(out.tree.push(KIND_INTERSECTION, here, s, e));
            }
        }
        // For-each variable and resource declarations: JavaParser's
        // `VariableDeclarationExpr > VariableDeclarator` (see `java::JP_FOREACH`).
        // The declarator is made lazily, after any modifiers, so the arena stays pre-order.
        let mut var_decl: Option<(Option<u32>, u32, u32)> = None;
        let is_var_child = |k: &Node, f: &Option<FieldId>| {
            if table.has(kind, F_RESOURCE) {
                !table.has(k.kind_id(), F_MODIFIERS)
            } else {
                f.is_some()
                    && (*f == table.type_field || *f == table.name_field || *f == table.dims_field)
            }
        };
        let has_type = kids
            .iter()
            .any(|(_, f)| f.is_some() && *f == table.type_field);
        if table.contextual && has_type {
            let first = kids.iter().find(|(k, f)| is_var_child(k, f));
            let last = kids.iter().rfind(|(k, f)| is_var_child(k, f));
            if let (Some(a), Some(b)) = (first, last) {
                let (s, e) = (node_lines(&a.0).0, node_lines(&b.0).1);
                if table.has(kind, F_FOREACH) {
                    let vde = out.tree.push(KIND_VAR_DECL_EXPR, here, s, e);
                    var_decl = Some((Some(vde), s, e));
                } else if table.has(kind, F_RESOURCE) {
                    var_decl = Some((here, s, e));
                }
            }
        }
        let first_var = var_decl.and_then(|_| kids.iter().position(|(k, f)| is_var_child(k, f)));
        let mut first_declarator = kids
            .iter()
            .position(|(k, _)| table.has(k.kind_id(), F_DECLARATOR));
        if moved.is_none() {
            first_declarator = None;
        }
        for (i, &(child, field)) in kids.iter().enumerate().rev() {
            if moved == Some(i) {
                continue;
            }
            let typed = field.is_some() && field == table.type_field;
            let (mut attach_child, mut make, mut use_made) = (here, None, false);
            if types_under != here && typed {
                attach_child = types_under;
            } else if let Some((decl_parent, s, e)) = var_decl {
                attach_child = decl_parent;
                if first_var == Some(i) {
                    make = Some((KIND_VAR_DECLARATOR, s, e));
                } else if is_var_child(&child, &field) {
                    use_made = true;
                } else if !table.has(child.kind_id(), F_MODIFIERS) {
                    attach_child = here;
                }
            }
            let pending_type = match moved {
                Some(t) if table.has(child.kind_id(), F_DECLARATOR) => {
                    Some((kids[t].0, kind, first_declarator != Some(i)))
                }
                _ => None,
            };
            if table.has(kind, F_ARRAY_TYPE) && element_under != here {
                attach_child = element_under;
            }
            let array_wraps = if typed && !table.has(kind, F_ARRAY_TYPE | F_ARRAY_NEW) {
                dims_after
            } else {
                0
            };
            stack.push(Item {
                node: child,
                attach: attach_child,
                parent_kind: Some(kind),
                field,
                last_named: Some(i) == last_named,
                first_named: Some(i) == first_named,
                in_qualified_this: qualified_this,
                pending_type,
                make,
                use_made,
                dup: it.dup,
                array_wraps,
            });
        }
        if let Some((ty, decl_kind, dup)) = it.pending_type {
            stack.push(Item {
                node: ty,
                attach: here,
                parent_kind: Some(decl_kind),
                field: table.type_field,
                last_named: false,
                first_named: true,
                in_qualified_this: false,
                pending_type: None,
                make: None,
                use_made: false,
                dup: it.dup || dup,
                array_wraps: dims_after,
            });
        }
    }
}

/// The builder's decision for one node.
struct Decision {
    action: Action,
    /// Kind to record instead of the grammar's (a keyword becoming `Modifier`).
    kind: Option<u16>,
    /// Add a `SimpleName` leaf child.
    simple_name: bool,
    /// Synthetic wrapper node to insert above this one.
    wrap: Option<u16>,
    /// Extra copies of this (leaf) node as following siblings: one `ArrayCreationLevel`
    /// per bracket pair of `new int[][] {…}`.
    more_levels: u32,
}

/// Applies the kind table and, in the JavaParser shape, the contextual rules (each
/// mirrors one line of DESIGN §4 "JavaParser-shaped tree").
fn decide(table: &KindTable, it: &Item, kind: u16) -> Decision {
    let mut d = Decision {
        action: if it.node.is_named() {
            table
                .action
                .get(kind as usize)
                .copied()
                .unwrap_or(Action::Keep)
        } else {
            Action::Collapse
        },
        kind: None,
        simple_name: false,
        wrap: None,
        more_levels: 0,
    };
    if !table.contextual {
        return d;
    }
    let pk = it.parent_kind.unwrap_or(u16::MAX);
    let parent_has = |f| table.has(pk, f);
    if !it.node.is_named() {
        // Modifier keywords are nodes in JavaParser ≥ 3.15.
        if parent_has(F_MODIFIERS) {
            d.action = Action::Keep;
            d.kind = Some(KIND_MODIFIER);
        }
        // A lone `;` in statement position is JavaParser's `EmptyStmt`.
        if kind == table.semicolon_kind
            && (parent_has(F_EMPTY_STMT_PARENT)
                || it.field.is_some() && table.stmt_fields.contains(&it.field))
        {
            d.action = Action::Keep;
            d.kind = Some(KIND_EMPTY_STMT);
        }
        return d;
    }
    // `new int[] {…}`: the empty `[]` is an `ArrayCreationLevel` in JavaParser.
    if table.has(kind, F_DIMENSIONS) && parent_has(F_ARRAY_NEW) {
        d.action = Action::Keep;
        d.more_levels = bracket_pairs(&it.node).saturating_sub(1);
        return d;
    }
    if table.has(kind, F_UNION) && it.node.named_child_count() >= 2 {
        d.action = Action::Keep;
        return d;
    }
    if table.has(kind, F_RESOURCE) && it.node.child_by_field_name("type").is_none() {
        d.action = Action::Collapse;
        return d;
    }
    if d.action != Action::Keep {
        return d;
    }
    // `? super T`: the bound's direction is a flag in JavaParser.
    if table.has(kind, F_THIS_SUPER) && parent_has(F_WILDCARD) {
        d.action = Action::Drop;
        return d;
    }
    // `Outer.this`: `ThisExpr(Name)` — no `this` leaf, the qualifier is a bare name.
    if it.in_qualified_this {
        if table.has(kind, F_THIS_SUPER) {
            d.action = Action::Drop;
        }
        return d;
    }
    // Method reference: the method name is a plain string in JavaParser (dropped); a
    // type-like scope is a `TypeExpr` (an identifier scope also gets its `SimpleName`).
    if parent_has(F_METHOD_REF) {
        if table.has(kind, F_IDENT) && it.last_named && !it.first_named {
            d.action = Action::Drop;
            return d;
        }
        if it.first_named && table.type_expr_kinds.contains(&kind) {
            d.wrap = Some(KIND_TYPE_EXPR);
            d.simple_name = table.has(kind, F_IDENT) || table.has(kind, F_TYPE_IDENT);
            return d;
        }
    }
    // Expression-bodied lambda: JavaParser's body is `ExpressionStmt(expr)`.
    if it.parent_kind == Some(table.lambda_kind)
        && it.field.is_some()
        && it.field == table.body_field
    {
        if kind != table.block_kind {
            d.wrap = Some(KIND_EXPRESSION_STMT);
        }
        if table.has(kind, F_IDENT) {
            d.simple_name = true;
        }
        return d;
    }
    // The last segment of a qualified name is the `Name` node itself.
    if table.has(kind, F_IDENT) && parent_has(F_SCOPED_ID) && it.field == table.name_field {
        d.action = Action::Drop;
        return d;
    }
    if table.has(kind, F_PAREN) && parent_has(F_COND_PARENT)
        || table.has(kind, F_SCOPED_TYPE) && parent_has(F_GENERIC)
        || table.has(kind, F_DECLARATOR) && parent_has(F_SPREAD)
        || table.has(kind, F_THIS_SUPER) && parent_has(F_EXPLICIT_CTOR)
    {
        d.action = Action::Collapse;
        return d;
    }
    if table.has(kind, F_IDENT) {
        let name_field = it.field.is_some_and(|f| table.name_fields.contains(&f));
        d.simple_name = !name_field && !parent_has(F_NAME_PARENT);
    } else if table.has(kind, F_TYPE_IDENT) {
        let last_of_scoped = parent_has(F_SCOPED_TYPE) && it.last_named;
        d.simple_name = !parent_has(F_TYPE_NAME_PARENT) && !last_of_scoped;
    } else if table.has(kind, F_LOCAL_VAR) && parent_has(F_STMT_PARENT) {
        d.wrap = Some(KIND_EXPRESSION_STMT);
    } else if table.has(kind, F_LOCAL_CLASS) && parent_has(F_STMT_PARENT) {
        d.wrap = Some(KIND_LOCAL_CLASS_STMT);
    } else if table.has(kind, F_BLOCK) && parent_has(F_CLASS_BODY) {
        d.wrap = Some(KIND_INITIALIZER);
    }
    d
}

/// Number of `[` tokens in a `dimensions` node.
fn bracket_pairs(d: &Node) -> u32 {
    let mut c = d.walk();
    d.children(&mut c).filter(|k| k.kind() == "[").count() as u32
}

fn text<'s>(n: Node, src: &'s [u8]) -> &'s str {
    n.utf8_text(src).unwrap_or("?")
}

fn squeeze(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

fn package_name(n: Node, src: &[u8]) -> Option<String> {
    let mut c = n.walk();
    let name = n
        .named_children(&mut c)
        .find(|k| matches!(k.kind(), "scoped_identifier" | "identifier"))?;
    Some(squeeze(text(name, src)))
}

/// Display label `Outer.Inner.name(T1,T2)` (Java: parameter types; Python: names).
fn member(lang: Lang, n: Node, src: &[u8], table: &KindTable) -> Member {
    let (begin, end) = node_lines(&n);
    let mut owners: Vec<&str> = Vec::new();
    let mut p = n.parent();
    while let Some(q) = p {
        if table.has(q.kind_id(), F_TYPE_DECL) {
            if let Some(nm) = q.child_by_field_name("name") {
                owners.push(text(nm, src));
            }
        }
        p = q.parent();
    }
    owners.reverse();
    let name = n.child_by_field_name("name").map_or("?", |x| text(x, src));
    let mut params: Vec<String> = Vec::new();
    if let Some(ps) = n.child_by_field_name("parameters") {
        let mut c = ps.walk();
        for prm in ps.named_children(&mut c) {
            let s = match (lang, prm.kind()) {
                (Lang::Java, "formal_parameter") => {
                    let ty = prm
                        .child_by_field_name("type")
                        .map_or("?", |t| text(t, src));
                    let dims = prm
                        .child_by_field_name("dimensions")
                        .map_or(String::new(), |d| squeeze(text(d, src)));
                    format!("{}{}", squeeze(ty), dims)
                }
                (Lang::Java, "spread_parameter") => {
                    let mut c2 = prm.walk();
                    let ty = prm
                        .named_children(&mut c2)
                        .find(|k| !matches!(k.kind(), "modifiers" | "variable_declarator"))
                        .map_or("?", |t| text(t, src));
                    format!("{}...", squeeze(ty))
                }
                (Lang::Java, _) => continue,
                (Lang::Python, _) => python_param(prm, src),
            };
            params.push(s);
        }
    }
    owners.push(name);
    Member {
        begin,
        end,
        label: format!("{}({})", owners.join("."), params.join(",")),
        indent: n.start_position().column as u32,
    }
}

/// A Python parameter as written, without its default: `x`, `x: T`, `*args`,
/// `**kwargs: T`, and the bare `*` and `/` separators.
fn python_param(prm: Node, src: &[u8]) -> String {
    let typed = |name: String| match prm.child_by_field_name("type") {
        Some(t) => format!("{name}: {}", squeeze_commas(text(t, src))),
        None => name,
    };
    match prm.kind() {
        "identifier" => text(prm, src).to_owned(),
        "keyword_separator" => "*".to_owned(),
        "positional_separator" => "/".to_owned(),
        "list_splat_pattern" | "dictionary_splat_pattern" => squeeze(text(prm, src)),
        "default_parameter" | "typed_default_parameter" => {
            let name = prm
                .child_by_field_name("name")
                .map_or("?".to_owned(), |n| squeeze(text(n, src)));
            typed(name)
        }
        "typed_parameter" => {
            let mut c = prm.walk();
            let name = prm
                .named_children(&mut c)
                .find(|k| {
                    matches!(
                        k.kind(),
                        "identifier" | "list_splat_pattern" | "dictionary_splat_pattern"
                    )
                })
                .map_or("?".to_owned(), |n| squeeze(text(n, src)));
            typed(name)
        }
        _ => squeeze(text(prm, src)),
    }
}

/// A type as written with its whitespace collapsed to `, ` after commas only
/// (`Dict[str,  Any]` → `Dict[str, Any]`), so labels are stable across formatting.
fn squeeze_commas(s: &str) -> String {
    squeeze(s).replace(',', ", ")
}

#[cfg(test)]
mod tests;
