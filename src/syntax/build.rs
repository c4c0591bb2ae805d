//! The tree builder: one pass over tree-sitter's nodes that applies the kind table and,
//! in the JavaParser shape, the contextual rules, filling a [`ParsedFile`]'s arena tree,
//! members and package.

use std::num::NonZeroU16 as FieldId;
use tree_sitter::{Node, TreeCursor};

use super::kinds::*;
use super::tree::{
    KIND_ARRAY_TYPE, KIND_EMPTY_STMT, KIND_EXPRESSION_STMT, KIND_INITIALIZER, KIND_INTERSECTION,
    KIND_LOCAL_CLASS_STMT, KIND_MODIFIER, KIND_SIMPLE_NAME, KIND_TYPE_EXPR, KIND_VAR_DECLARATOR,
    KIND_VAR_DECL_EXPR,
};
use super::{Lang, Member, ParsedFile};

/// 1-based inclusive line range of a tree-sitter node; a node ending at column 0 of a
/// later line (a trailing newline) ends on the line before.
pub(super) fn node_lines(n: &Node) -> (u32, u32) {
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

pub(super) fn build(out: &mut ParsedFile, root: Node, src: &[u8], table: &KindTable) {
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
/// mirrors one line of ARCHITECTURE §4 "JavaParser-shaped tree").
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

pub(super) fn package_name(n: Node, src: &[u8]) -> Option<String> {
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
