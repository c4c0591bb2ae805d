//! Per-kind actions and flags: the rule tables of [`super::java`] and [`super::python`]
//! turned into one lookup table per (language, shape), built once.

use std::num::NonZeroU16 as FieldId;
use std::sync::LazyLock;

use super::{java, language, python, Lang, TreeShape};

/// What the builder does with a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Action {
    /// Make a node.
    Keep,
    /// Make no node; children attach to the parent.
    Collapse,
    /// Make no node and skip the subtree.
    Drop,
}

// Per-kind flags used by the contextual rules (JavaParser shape) and the queries.
pub(super) const F_IDENT: u64 = 1;
pub(super) const F_TYPE_IDENT: u64 = 1 << 1;
pub(super) const F_PAREN: u64 = 1 << 2;
pub(super) const F_COND_PARENT: u64 = 1 << 3;
pub(super) const F_SCOPED_TYPE: u64 = 1 << 4;
pub(super) const F_GENERIC: u64 = 1 << 5;
pub(super) const F_DECLARATOR: u64 = 1 << 6;
pub(super) const F_SPREAD: u64 = 1 << 7;
pub(super) const F_THIS_SUPER: u64 = 1 << 8;
pub(super) const F_EXPLICIT_CTOR: u64 = 1 << 9;
pub(super) const F_NAME_PARENT: u64 = 1 << 10;
pub(super) const F_TYPE_NAME_PARENT: u64 = 1 << 11;
pub(super) const F_LOCAL_VAR: u64 = 1 << 12;
pub(super) const F_STMT_PARENT: u64 = 1 << 13;
pub(super) const F_TYPED_DECL: u64 = 1 << 14;
pub(super) const F_MEMBER: u64 = 1 << 15;
pub(super) const F_STMT: u64 = 1 << 16;
pub(super) const F_TYPE_DECL: u64 = 1 << 17;
pub(super) const F_PACKAGE: u64 = 1 << 18;
pub(super) const F_SCOPED_ID: u64 = 1 << 19;
pub(super) const F_MODIFIERS: u64 = 1 << 20;
pub(super) const F_LOCAL_CLASS: u64 = 1 << 21;
pub(super) const F_BLOCK: u64 = 1 << 22;
pub(super) const F_CLASS_BODY: u64 = 1 << 23;
pub(super) const F_CAST: u64 = 1 << 24;
pub(super) const F_FOREACH: u64 = 1 << 25;
pub(super) const F_RESOURCE: u64 = 1 << 26;
pub(super) const F_UNION: u64 = 1 << 27;
pub(super) const F_ARRAY_TYPE: u64 = 1 << 28;
pub(super) const F_ARRAY_NEW: u64 = 1 << 29;
pub(super) const F_DIMENSIONS: u64 = 1 << 30;
pub(super) const F_METHOD_REF: u64 = 1 << 31;
pub(super) const F_FIELD_ACCESS: u64 = 1 << 32;
pub(super) const F_WILDCARD: u64 = 1 << 33;
pub(super) const F_EMPTY_STMT_PARENT: u64 = 1 << 34;

/// Per-kind-id action and flags for one (language, shape), built once from the tables.
pub(super) struct KindTable {
    pub(super) action: Vec<Action>,
    pub(super) flags: Vec<u64>,
    /// Field ids that make an `identifier` a name (JavaParser shape).
    pub(super) name_fields: Vec<FieldId>,
    /// The `type` field id (declarations).
    pub(super) type_field: Option<FieldId>,
    /// The `name` field id (`scoped_identifier`'s own last segment).
    pub(super) name_field: Option<FieldId>,
    /// The `dimensions` field id (`int x[]` in a for-each variable).
    pub(super) dims_field: Option<FieldId>,
    /// The `field` field id (`Outer.this`).
    pub(super) field_field: Option<FieldId>,
    /// Kind id of `this` (named).
    pub(super) this_kind: u16,
    /// Kind id of the `;` token (empty statements).
    pub(super) semicolon_kind: u16,
    /// Fields holding a statement (`body`, `consequence`, `alternative`).
    pub(super) stmt_fields: Vec<Option<FieldId>>,
    /// The `body` field id (an expression-bodied lambda).
    pub(super) body_field: Option<FieldId>,
    /// Kind id of `lambda_expression`, for the lambda-body rule.
    pub(super) lambda_kind: u16,
    /// Kind id of `block`, for the lambda-body rule.
    pub(super) block_kind: u16,
    /// Kinds that are a type name as the scope of a method reference (`TypeExpr`).
    pub(super) type_expr_kinds: Vec<u16>,
    /// JavaParser-shape contextual rules apply.
    pub(super) contextual: bool,
}

impl KindTable {
    pub(super) fn has(&self, k: u16, f: u64) -> bool {
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

pub(super) fn kind_table(lang: Lang, shape: TreeShape) -> &'static KindTable {
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
