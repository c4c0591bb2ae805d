//! Java language table: the JavaParser-shaped tree rules (DESIGN §4), members, statements.
//!
//! Everything language-specific is data here; `build.rs`-style logic lives in `mod.rs`,
//! which reads these tables through [`super::KindTable`].

/// Comment kinds, dropped in every shape.
pub(crate) const COMMENTS: &[&str] = &["line_comment", "block_comment"];

/// JavaParser shape: nodes removed with their children re-attached to the parent,
/// because JavaParser has no node for them (lists, wrappers, keyword groups).
pub(crate) const JP_COLLAPSE: &[&str] = &[
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
/// and `asterisk` are our additions to DESIGN's list.
pub(crate) const JP_DROP: &[&str] = &[
    "string_fragment",
    "escape_sequence",
    "multiline_string_fragment",
    "asterisk",
];

/// Contextual rule: a `parenthesized_expression` directly under one of these is the
/// statement's condition and has no JavaParser node (`IfStmt.condition` is the inner
/// expression).
pub(crate) const JP_COND_PARENTS: &[&str] = &[
    "if_statement",
    "while_statement",
    "do_statement",
    "switch_expression",
    "synchronized_statement",
];

/// Contextual rule: an `identifier` under one of these parents is a name, not a
/// `NameExpr`, so it gets no `SimpleName` leaf (`package`/`import` with a one-segment
/// name are our addition: JavaParser's `Name` there is a leaf).
pub(crate) const JP_NAME_PARENTS: &[&str] = &[
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

/// Contextual rule (our refinement of DESIGN's "no SimpleName under method_reference"):
/// the first child of a `method_reference` of one of these kinds is JavaParser's
/// `TypeExpr` scope (wrapped; an identifier also gets its `SimpleName`), and the trailing
/// method-name identifier is dropped (a plain string in JavaParser). Likewise an
/// expression lambda body is wrapped in `ExpressionStmt`.
pub(crate) const JP_TYPE_EXPR_SCOPES: &[&str] = &[
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

/// Contextual rule: an `identifier` in one of these fields is a name (`SimpleName`
/// itself), not a `NameExpr`.
pub(crate) const JP_NAME_FIELDS: &[&str] = &["name", "field", "key"];

/// Contextual rule: a `type_identifier` directly under these is the parent's own name,
/// so it gets no `SimpleName` leaf (the last part of a `scoped_type_identifier` too).
pub(crate) const JP_TYPE_NAME_PARENTS: &[&str] = &["generic_type", "type_parameter"];

/// Contextual rule: a `local_variable_declaration` directly under these is a statement
/// and gets an `ExpressionStmt` wrapper (JavaParser: `ExpressionStmt(VariableDeclarationExpr)`).
pub(crate) const JP_STMT_PARENTS: &[&str] =
    &["block", "constructor_body", "switch_block_statement_group"];

/// Contextual rule: a type declared directly under a statement parent
/// ([`JP_STMT_PARENTS`]) gets a `LocalClassDeclarationStmt` wrapper.
pub(crate) const JP_LOCAL_TYPES: &[&str] = &[
    "class_declaration",
    "record_declaration",
    "enum_declaration",
    "interface_declaration",
];

/// Contextual rule: a `block` directly under these is an instance initializer and gets
/// an `InitializerDeclaration` wrapper (`static_initializer` already is one).
pub(crate) const JP_INITIALIZER_PARENTS: &[&str] = &["class_body", "enum_body_declarations"];

/// Contextual rules (our additions, checked against JavaParser): the variable of an
/// `enhanced_for_statement` (modifiers, type, name, dimensions) is grouped under
/// `VariableDeclarationExpr > VariableDeclarator`; a `resource` declaring a variable gets
/// a `VariableDeclarator` child holding all but its modifiers, and a resource that only
/// names a variable collapses; a `catch_type` with two or more types (`A | B`, JavaParser's
/// `UnionType`) is kept instead of collapsed.
pub(crate) const JP_FOREACH: &str = "enhanced_for_statement";
/// See [`JP_FOREACH`].
pub(crate) const JP_RESOURCE: &str = "resource";
/// See [`JP_FOREACH`].
pub(crate) const JP_UNION: &str = "catch_type";

/// Contextual rule: declarations whose `type` child moves under the first
/// `variable_declarator` (JavaParser keeps the type on the declarator).
pub(crate) const JP_TYPED_DECLS: &[&str] = &[
    "local_variable_declaration",
    "field_declaration",
    "constant_declaration",
];

/// Members that count as methods for spatial proximity (DESIGN §4), at any depth.
pub(crate) const MEMBERS: &[&str] = &["method_declaration", "constructor_declaration"];

/// Type declarations, for a member's display label.
pub(crate) const TYPES: &[&str] = &[
    "class_declaration",
    "interface_declaration",
    "enum_declaration",
    "record_declaration",
    "annotation_type_declaration",
];

/// Statement-like kinds for the `FirstStatement` anchor rule (Algorithm 1): the
/// grammar's statements, declarations and class members.
pub(crate) const STATEMENTS: &[&str] = &[
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
