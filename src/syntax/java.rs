//! Java language table: the JavaParser-shaped tree rules (ARCHITECTURE §4), members, statements.
//!
//! Everything language-specific is data here; the builder in `mod.rs` reads these
//! tables once per (language, shape) into a per-kind-id table. JavaParser shape, in the
//! order the builder applies them (each has a unit test in `tests.rs`, and the whole is
//! checked against real JavaParser by `tests/syntax_oracle.rs`):
//!
//! | rule | source |
//! |---|---|
//! | drop comments ([`COMMENTS`]) | §4 |
//! | collapse [`JP_COLLAPSE`] (children re-attached to the parent) | §4 |
//! | drop [`JP_DROP`] with their subtree | §4 + `multiline_string_fragment`, `asterisk` |
//! | collapse `parenthesized_expression` under [`JP_COND_PARENTS`] | §4 |
//! | collapse `scoped_type_identifier` under `generic_type` | §4 |
//! | collapse `variable_declarator` under `spread_parameter` | §4 |
//! | collapse `this`/`super` under `explicit_constructor_invocation` | §4 |
//! | `SimpleName` leaf under `identifier` unless field in [`JP_NAME_FIELDS`] or parent in [`JP_NAME_PARENTS`] | §4 (+ package/import parents) |
//! | `SimpleName` leaf under `type_identifier` unless parent in [`JP_TYPE_NAME_PARENTS`] or last part of `scoped_type_identifier` | §4 |
//! | `ExpressionStmt` wrapper on `local_variable_declaration` under [`JP_STMT_PARENTS`] | §4 |
//! | declaration type under every `variable_declarator` ([`JP_TYPED_DECLS`]) | §4 says "first"; JavaParser clones it into each |
//! | `Modifier` leaf per modifier keyword | ours (JavaParser ≥ 3.15) |
//! | drop the last `identifier` of `scoped_identifier` (qualified `Name`) | ours |
//! | `LocalClassDeclarationStmt` wrapper ([`JP_LOCAL_TYPES`]) | ours |
//! | `InitializerDeclaration` wrapper on instance-initializer blocks ([`JP_INITIALIZER_PARENTS`]) | ours |
//! | `IntersectionType` group of a cast's `A & B` types | ours |
//! | for-each variable / resource as `VariableDeclarationExpr > VariableDeclarator`, multi-catch `catch_type` kept ([`JP_FOREACH`]) | ours |
//! | `ArrayType` per bracket pair (`int[][]`, `int x[]`), `ArrayCreationLevel` per `[]` of `new` | ours |
//! | method reference: `TypeExpr` scope, method name dropped ([`JP_TYPE_EXPR_SCOPES`]) | ours, refines §4 |
//! | expression lambda body wrapped in `ExpressionStmt` | ours |
//! | `Outer.this` as `ThisExpr(Name)`; `super` of `? super T` dropped | ours |
//! | lone `;` statement as `EmptyStmt` ([`JP_EMPTY_STMT_PARENTS`]) | ours |

/// Comment kinds, dropped in every shape.
pub const COMMENTS: &[&str] = &["line_comment", "block_comment"];

/// JavaParser shape: nodes removed with their children re-attached to the parent,
/// because JavaParser has no node for them (lists, wrappers, keyword groups).
pub const JP_COLLAPSE: &[&str] = &[
    "class_body",
    "interface_body",
    "enum_body",
    "enum_body_declarations",
    "annotation_type_body",
    "argument_list",
    "formal_parameters",
    "modifiers",
    "type_arguments",
    "type_parameters",
    "type_bound",
    "superclass",
    "super_interfaces",
    "extends_interfaces",
    "type_list",
    "throws",
    "switch_block",
    "switch_label",
    "finally_clause",
    "catch_type",
    "resource_specification",
    "annotation_argument_list",
    "inferred_parameters",
    "dimensions",
];

/// JavaParser shape: nodes dropped with their whole subtree (a string literal is one
/// leaf in JavaParser; `import a.*` is a flag). `multiline_string_fragment` (text blocks)
/// and `asterisk` are our additions to ARCHITECTURE §4's list.
pub const JP_DROP: &[&str] = &[
    "string_fragment",
    "escape_sequence",
    "multiline_string_fragment",
    "asterisk",
];

/// Contextual rule: a `parenthesized_expression` directly under one of these is the
/// statement's condition and has no JavaParser node (`IfStmt.condition` is the inner
/// expression).
pub const JP_COND_PARENTS: &[&str] = &[
    "if_statement",
    "while_statement",
    "do_statement",
    "switch_expression",
    "synchronized_statement",
];

/// Contextual rule: an `identifier` under one of these parents is a name, not a
/// `NameExpr`, so it gets no `SimpleName` leaf (`package`/`import` with a one-segment
/// name are our addition: JavaParser's `Name` there is a leaf).
pub const JP_NAME_PARENTS: &[&str] = &[
    "scoped_identifier",
    "annotation",
    "marker_annotation",
    "break_statement",
    "continue_statement",
    "labeled_statement",
    "type_parameter",
    "package_declaration",
    "import_declaration",
];

/// Contextual rule (our refinement of ARCHITECTURE §4's "no SimpleName under method_reference"):
/// the first child of a `method_reference` of one of these kinds is JavaParser's
/// `TypeExpr` scope (wrapped; an identifier also gets its `SimpleName`), and the trailing
/// method-name identifier is dropped (a plain string in JavaParser). Likewise an
/// expression lambda body is wrapped in `ExpressionStmt`.
pub const JP_TYPE_EXPR_SCOPES: &[&str] = &[
    "identifier",
    "field_access",
    "type_identifier",
    "scoped_type_identifier",
    "generic_type",
    "array_type",
    "integral_type",
    "floating_point_type",
    "boolean_type",
];

/// Contextual rule (our addition): an anonymous `;` directly under one of these, or in
/// one of [`JP_STMT_FIELDS`], is an empty statement (`EmptyStmt` in JavaParser).
pub const JP_EMPTY_STMT_PARENTS: &[&str] = &[
    "block",
    "constructor_body",
    "switch_block_statement_group",
    "labeled_statement",
];

/// See [`JP_EMPTY_STMT_PARENTS`].
pub const JP_STMT_FIELDS: &[&str] = &["body", "consequence", "alternative"];

/// Contextual rule: an `identifier` in one of these fields is a name (`SimpleName`
/// itself), not a `NameExpr`.
pub const JP_NAME_FIELDS: &[&str] = &["name", "field", "key"];

/// Contextual rule: a `type_identifier` directly under these is the parent's own name,
/// so it gets no `SimpleName` leaf (the last part of a `scoped_type_identifier` too).
pub const JP_TYPE_NAME_PARENTS: &[&str] = &["generic_type", "type_parameter"];

/// Contextual rule: a `local_variable_declaration` directly under these is a statement
/// and gets an `ExpressionStmt` wrapper (JavaParser: `ExpressionStmt(VariableDeclarationExpr)`).
pub const JP_STMT_PARENTS: &[&str] = &["block", "constructor_body", "switch_block_statement_group"];

/// Contextual rule: a type declared directly under a statement parent
/// ([`JP_STMT_PARENTS`]) gets a `LocalClassDeclarationStmt` wrapper.
pub const JP_LOCAL_TYPES: &[&str] = &[
    "class_declaration",
    "record_declaration",
    "enum_declaration",
    "interface_declaration",
];

/// Contextual rule: a `block` directly under these is an instance initializer and gets
/// an `InitializerDeclaration` wrapper (`static_initializer` already is one).
pub const JP_INITIALIZER_PARENTS: &[&str] = &["class_body", "enum_body_declarations"];

/// Contextual rules (our additions, checked against JavaParser): the variable of an
/// `enhanced_for_statement` (modifiers, type, name, dimensions) is grouped under
/// `VariableDeclarationExpr > VariableDeclarator`; a `resource` declaring a variable gets
/// a `VariableDeclarator` child holding all but its modifiers, and a resource that only
/// names a variable collapses; a `catch_type` with two or more types (`A | B`, JavaParser's
/// `UnionType`) is kept instead of collapsed.
pub const JP_FOREACH: &str = "enhanced_for_statement";
/// See [`JP_FOREACH`].
pub const JP_RESOURCE: &str = "resource";
/// See [`JP_FOREACH`].
pub const JP_UNION: &str = "catch_type";

/// Contextual rule: declarations whose `type` child moves under the first
/// `variable_declarator` (JavaParser keeps the type on the declarator).
pub const JP_TYPED_DECLS: &[&str] = &[
    "local_variable_declaration",
    "field_declaration",
    "constant_declaration",
];

/// Members that count as methods for spatial proximity (ARCHITECTURE §4), at any depth.
pub const MEMBERS: &[&str] = &["method_declaration", "constructor_declaration"];

/// Type declarations, for a member's display label.
pub const TYPES: &[&str] = &[
    "class_declaration",
    "interface_declaration",
    "enum_declaration",
    "record_declaration",
    "annotation_type_declaration",
];

/// Statement-like kinds for the `FirstStatement` anchor rule (Algorithm 1): the
/// grammar's statements, declarations and class members.
pub const STATEMENTS: &[&str] = &[
    "assert_statement",
    "block",
    "break_statement",
    "continue_statement",
    "do_statement",
    "enhanced_for_statement",
    "expression_statement",
    "for_statement",
    "if_statement",
    "labeled_statement",
    "local_variable_declaration",
    "return_statement",
    "switch_expression",
    "synchronized_statement",
    "throw_statement",
    "try_statement",
    "try_with_resources_statement",
    "while_statement",
    "yield_statement",
    "explicit_constructor_invocation",
    "package_declaration",
    "import_declaration",
    "class_declaration",
    "interface_declaration",
    "enum_declaration",
    "record_declaration",
    "annotation_type_declaration",
    "annotation_type_element_declaration",
    "field_declaration",
    "constant_declaration",
    "method_declaration",
    "constructor_declaration",
    "compact_constructor_declaration",
    "static_initializer",
    "enum_constant",
];
