//! Unit tests of the syntax layer: one per JavaParser-shape rule, plus members/anchors.

use super::*;

fn jp(src: &str) -> String {
    parse_file(Lang::Java, src.as_bytes(), TreeShape::JavaParser).sexpr()
}

fn named(src: &str) -> String {
    parse_file(Lang::Java, src.as_bytes(), TreeShape::Named).sexpr()
}

/// True when `kind` appears as a node in the s-expression.
fn has_kind(sexpr: &str, kind: &str) -> bool {
    sexpr.split(['(', ')', ' ']).any(|t| t == kind)
}

/// The first `(kind …)` group of an s-expression, parentheses balanced.
fn subtree<'a>(sexpr: &'a str, kind: &str) -> Option<&'a str> {
    let at = sexpr.find(&format!("({kind} "))?;
    let mut depth = 0;
    for (i, c) in sexpr[at..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&sexpr[at..at + i + 1]);
                }
            }
            _ => {}
        }
    }
    None
}

/// One snippet per collapsed kind: the Named tree has the node, the JavaParser tree
/// does not, and the node's children survive (the tree only loses that one level).
#[test]
fn rule_collapse_list() {
    let cases: &[(&str, &str)] = &[
        ("class_body", "class A { int x; }"),
        ("interface_body", "interface I { void f(); }"),
        ("enum_body", "enum E { X }"),
        ("enum_body_declarations", "enum E { X; int y; }"),
        ("annotation_type_body", "@interface N { int v(); }"),
        ("argument_list", "class A { void f() { g(1); } }"),
        ("formal_parameters", "class A { void f(int a) {} }"),
        ("modifiers", "class A { public static int x; }"),
        ("type_arguments", "class A { java.util.List<String> x; }"),
        ("type_parameters", "class A<T> {}"),
        ("type_bound", "class A<T extends Number> {}"),
        ("superclass", "class A extends B {}"),
        ("super_interfaces", "class A implements I {}"),
        ("extends_interfaces", "interface I extends J {}"),
        ("type_list", "class A implements I, J {}"),
        ("throws", "class A { void f() throws E {} }"),
        (
            "switch_block",
            "class A { void f() { switch (x) { case 1: y(); } } }",
        ),
        (
            "switch_label",
            "class A { void f() { switch (x) { case 1: y(); } } }",
        ),
        (
            "finally_clause",
            "class A { void f() { try { g(); } finally { h(); } } }",
        ),
        (
            "catch_type",
            "class A { void f() { try { g(); } catch (E e) { } } }",
        ),
        (
            "resource_specification",
            "class A { void f() { try (R r = o()) { } } }",
        ),
        ("annotation_argument_list", "@N(1) class A {}"),
        ("inferred_parameters", "class A { Object o = (a, b) -> a; }"),
        ("dimensions", "class A { int[] x; }"),
    ];
    for (kind, src) in cases {
        let (n, j) = (named(src), jp(src));
        assert!(has_kind(&n, kind), "{kind}: snippet lacks it: {n}");
        assert!(!has_kind(&j, kind), "{kind}: not collapsed: {j}");
    }
    // Children are re-attached: the class keeps its field and the call its argument.
    assert_eq!(
        jp("class A { void f() { g(1); } }"),
        "(program (class_declaration identifier (method_declaration void_type identifier \
         (block (expression_statement (method_invocation identifier decimal_integer_literal))))))"
    );
}

#[test]
fn rule_condition_parentheses_collapse() {
    let t = jp(
        "class A { void f() { if (a) {} while (b) {} do {} while (c); \
                switch (d) {} synchronized (e) {} g((h)); } }",
    );
    assert_eq!(
        t,
        "(program (class_declaration identifier (method_declaration void_type identifier \
         (block (if_statement (identifier SimpleName) block) \
         (while_statement (identifier SimpleName) block) \
         (do_statement block (identifier SimpleName)) \
         (switch_expression (identifier SimpleName)) \
         (synchronized_statement (identifier SimpleName) block) \
         (expression_statement (method_invocation identifier \
         (parenthesized_expression (identifier SimpleName))))))))"
    );
}

#[test]
fn rule_scoped_type_under_generic_collapses() {
    // JavaParser: ClassOrInterfaceType(List) > [CIT(util) > [CIT(java) > SN, SN], SN, CIT(String)].
    assert_eq!(
        jp("class A { java.util.List<String> x; }"),
        "(program (class_declaration identifier (field_declaration (variable_declarator \
         (generic_type (scoped_type_identifier (type_identifier SimpleName) type_identifier) \
         type_identifier (type_identifier SimpleName)) identifier))))"
    );
}

#[test]
fn rule_declarator_under_spread_parameter_collapses() {
    assert_eq!(
        jp("class A { void f(int... xs) {} }"),
        "(program (class_declaration identifier (method_declaration void_type identifier \
         (spread_parameter integral_type identifier) block)))"
    );
}

#[test]
fn rule_this_super_of_explicit_constructor_invocation_collapse() {
    assert_eq!(
        jp("class A { A() { this(1); } A(int x) { super(); } }"),
        "(program (class_declaration identifier \
         (constructor_declaration identifier (constructor_body \
         (explicit_constructor_invocation decimal_integer_literal))) \
         (constructor_declaration identifier (formal_parameter integral_type identifier) \
         (constructor_body explicit_constructor_invocation))))"
    );
    // Elsewhere `this` stays (ThisExpr).
    assert!(has_kind(
        &jp("class A { Object f() { return this; } }"),
        "this"
    ));
}

#[test]
fn rule_string_parts_dropped() {
    let t = jp("class A { String s = \"a\\nb\"; }");
    assert_eq!(
        t,
        "(program (class_declaration identifier (field_declaration (variable_declarator \
         (type_identifier SimpleName) identifier string_literal))))"
    );
    assert!(has_kind(
        &named("class A { String s = \"a\\nb\"; }"),
        "escape_sequence"
    ));
}

#[test]
fn rule_simple_name_under_expression_identifiers() {
    // `x` (NameExpr) gets one; the method name (field `name`) and `.f` (field `field`)
    // do not; `o` as the field access object does.
    assert_eq!(
        jp("class A { void m() { g(x, o.f); } }"),
        "(program (class_declaration identifier (method_declaration void_type identifier \
         (block (expression_statement (method_invocation identifier (identifier SimpleName) \
         (field_access (identifier SimpleName) identifier)))))))"
    );
    // key of an annotation element pair: no SimpleName.
    assert_eq!(
        jp("@N(k = v) class A {}"),
        "(program (class_declaration (annotation identifier (element_value_pair identifier \
         (identifier SimpleName))) identifier))"
    );
}

#[test]
fn rule_no_simple_name_under_name_parents() {
    let cases: &[(&str, &str)] = &[
        ("scoped_identifier", "import a.b.C;"),
        ("annotation", "@N(1) class A {}"),
        ("marker_annotation", "@N class A {}"),
        (
            "break_statement",
            "class A { void f() { l: while (true) { break l; } } }",
        ),
        (
            "continue_statement",
            "class A { void f() { l: while (true) { continue l; } } }",
        ),
        ("labeled_statement", "class A { void f() { l: f(); } }"),
        ("type_parameter", "class A<T> {}"),
        ("package_declaration", "package p;"),
        ("import_declaration", "import p;"),
    ];
    for (parent, src) in cases {
        let t = jp(src);
        let sub = subtree(&t, parent).unwrap_or_else(|| panic!("{parent}: {t}"));
        assert!(sub.contains("identifier"), "{parent}: {sub}");
        assert!(!sub.contains("SimpleName"), "{parent}: {sub}");
    }
    // Method reference (refined): scope `a` is `TypeExpr(ClassOrInterfaceType(SimpleName))`,
    // the method name `b` is a string in JavaParser (dropped).
    assert_eq!(
        jp("class A { Object o = a::b; }"),
        "(program (class_declaration identifier (field_declaration (variable_declarator \
         (type_identifier SimpleName) identifier (method_reference (TypeExpr (identifier \
         SimpleName)))))))"
    );
    assert!(jp("class A { Object o = this::b; }").contains("(method_reference this)"));
}

#[test]
fn rule_simple_name_under_type_identifiers() {
    // Plain type: ClassOrInterfaceType > SimpleName.
    assert!(jp("class A { B x; }").contains("(type_identifier SimpleName)"));
    // Directly under generic_type: the generic type's own name, a bare leaf.
    assert_eq!(
        jp("class A { L<B> x; }"),
        "(program (class_declaration identifier (field_declaration (variable_declarator \
         (generic_type type_identifier (type_identifier SimpleName)) identifier))))"
    );
    // Under type_parameter: TypeParameter's name.
    assert_eq!(
        jp("class A<T> {}"),
        "(program (class_declaration identifier (type_parameter type_identifier)))"
    );
    // Last part of a scoped type: its own name; the scope part gets a SimpleName.
    assert_eq!(
        jp("class A { p.B x; }"),
        "(program (class_declaration identifier (field_declaration (variable_declarator \
         (scoped_type_identifier (type_identifier SimpleName) type_identifier) identifier))))"
    );
}

#[test]
fn rule_local_variable_declaration_wrapped_in_statement() {
    let body = |s: &str| jp(&format!("class A {{ {s} }}"));
    // Block.
    assert!(
        body("void f() { int x; }").contains("(block (ExpressionStmt (local_variable_declaration")
    );
    // Constructor body.
    assert!(body("A() { int x; }")
        .contains("(constructor_body (ExpressionStmt (local_variable_declaration"));
    // Switch group.
    assert!(body("void f() { switch (k) { case 1: int x; } }")
        .contains("(switch_block_statement_group decimal_integer_literal (ExpressionStmt"));
    // For init: no wrapper (JavaParser's ForStmt holds the VariableDeclarationExpr).
    let t = body("void f() { for (int i = 0; ; ) {} }");
    assert!(
        t.contains("(for_statement (local_variable_declaration"),
        "{t}"
    );
    assert!(!t.contains("ExpressionStmt"), "{t}");
}

#[test]
fn rule_declaration_type_copied_under_every_declarator() {
    // JavaParser clones the declaration's type into each declarator (`juggleArrayType`
    // ends in `.clone()`), so every declarator gets a copy, not only the first.
    // Local.
    assert!(jp("class A { void f() { int a = 1, b; } }").contains(
        "(local_variable_declaration (variable_declarator integral_type identifier \
         decimal_integer_literal) (variable_declarator integral_type identifier))"
    ));
    // Field; brackets after a name wrap that declarator's copy in ArrayType.
    assert_eq!(
        jp("class A { int a, b[]; }"),
        "(program (class_declaration identifier (field_declaration (variable_declarator \
         integral_type identifier) (variable_declarator (ArrayType integral_type) identifier))))"
    );
    // A syntax error inside the type is counted once, not once per copy.
    let one = parse_file(Lang::Java, b"class A { M<S,> a; }", TreeShape::JavaParser);
    let two = parse_file(
        Lang::Java,
        b"class A { M<S,> a, b; }",
        TreeShape::JavaParser,
    );
    assert!(one.error_count() > 0);
    assert_eq!(one.error_count(), two.error_count(), "{}", two.sexpr());
    assert!(two.sexpr().matches("ERROR").count() >= 2, "{}", two.sexpr());
    // Interface constant.
    assert_eq!(
        jp("interface I { int A = 1; }"),
        "(program (interface_declaration identifier (constant_declaration \
         (variable_declarator integral_type identifier decimal_integer_literal))))"
    );
}

#[test]
fn rule_modifier_keywords_become_leaves() {
    assert_eq!(
        jp("class A { public static int x; }"),
        "(program (class_declaration identifier (field_declaration Modifier Modifier \
         (variable_declarator integral_type identifier))))"
    );
}

#[test]
fn rule_local_class_and_initializer_wrappers() {
    assert!(jp("class A { void f() { class L {} } }")
        .contains("(block (LocalClassDeclarationStmt (class_declaration identifier)))"));
    assert_eq!(
        jp("class A { { f(); } static { g(); } }"),
        "(program (class_declaration identifier (InitializerDeclaration (block \
         (expression_statement (method_invocation identifier)))) (static_initializer (block \
         (expression_statement (method_invocation identifier))))))"
    );
}

#[test]
fn rule_intersection_cast_grouped() {
    assert!(jp("class A { Object o = (R & S) () -> {}; }").contains(
        "(cast_expression (IntersectionType (type_identifier SimpleName) \
         (type_identifier SimpleName)) (lambda_expression block))"
    ));
    // A plain cast has no group.
    assert!(!jp("class A { Object o = (R) p; }").contains("IntersectionType"));
}

#[test]
fn rule_qualified_name_last_segment_and_asterisk_dropped() {
    // JavaParser: ImportDeclaration > Name(a.b) > Name(a).
    assert_eq!(
        jp("import a.b.*;"),
        "(program (import_declaration (scoped_identifier identifier)))"
    );
    assert_eq!(
        jp("package a.b.c;"),
        "(program (package_declaration (scoped_identifier (scoped_identifier identifier))))"
    );
}

#[test]
fn named_shape_drops_only_comments() {
    let src = "class A { /* c */ int x; // d\n }";
    assert_eq!(
        named(src),
        "(program (class_declaration identifier (class_body (field_declaration \
         integral_type (variable_declarator identifier)))))"
    );
    assert!(!has_kind(&jp(src), "block_comment"));
    assert!(!has_kind(&jp(src), "line_comment"));
}

#[test]
fn python_is_named_minus_comments_in_both_shapes() {
    let src = "def f(a):\n    # c\n    return a  # d\n";
    let want = "(module (function_definition identifier (parameters identifier) \
                (block (return_statement identifier))))";
    for shape in [TreeShape::Named, TreeShape::JavaParser] {
        assert_eq!(
            parse_file(Lang::Python, src.as_bytes(), shape).sexpr(),
            want
        );
    }
}

#[test]
fn syntax_errors_are_counted_not_fatal() {
    let f = parse_file(
        Lang::Java,
        b"class A { void f( { int x = ; }",
        TreeShape::JavaParser,
    );
    assert!(f.error_count() > 0);
    assert!(f.node_count() > 1);
    let ok = parse_file(Lang::Java, b"class A {}", TreeShape::JavaParser);
    assert_eq!(ok.error_count(), 0);
    for src in [&b""[..], b"\xff\xfe\x00", b"}}}}", b"def (:\n"] {
        for lang in [Lang::Java, Lang::Python] {
            let f = parse_file(lang, src, TreeShape::JavaParser);
            let _ = f.anchor(Span { start: 3, end: 2 }, AnchorRule::FirstStatement);
            let _ = f.diameter();
        }
    }
    assert!(parse_file(Lang::Python, b"def (:\n", TreeShape::Named).error_count() > 0);
}

#[test]
fn deep_nesting_does_not_overflow() {
    // 20k-term concatenation: tree-sitter nests it left-deep; the builder is iterative.
    let mut s = String::from("class A { String s = \"\"");
    for _ in 0..20_000 {
        s.push_str(" + a");
    }
    s.push_str("; }");
    let f = parse_file(Lang::Java, s.as_bytes(), TreeShape::JavaParser);
    assert_eq!(f.error_count(), 0);
    assert!(f.diameter() > 20_000);
}

const MEMBERS_SRC: &str = "package p.q;
class A {
    int f = 1;
    static { init(); }
    A(int x) {
        Runnable r = () -> {
            go();
        };
    }
    void m(String[] a, java.util.List<String> b, int... c) {
        new Object() {
            public String toString() {
                return \"x\";
            }
        };
        class L { void inner() {} }
    }
    enum E {
        X {
            void e() {}
        };
        void e() {}
    }
    @interface N { int v(); }
    record R(int a) {
        R {
        }
    }
}
";

#[test]
fn java_members_and_labels() {
    let f = parse_file(Lang::Java, MEMBERS_SRC.as_bytes(), TreeShape::JavaParser);
    let got: Vec<(u32, u32, &str)> = f
        .members()
        .iter()
        .map(|m| (m.begin, m.end, m.label.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            (5, 9, "A.A(int)"),
            (10, 17, "A.m(String[],java.util.List<String>,int...)"),
            (12, 14, "A.toString()"),
            (16, 16, "A.L.inner()"),
            (20, 20, "A.E.e()"),
            (22, 22, "A.E.e()"),
        ]
    );
    assert_eq!(f.package(), Some("p.q"));
}

#[test]
fn method_for_uses_overlap_and_strict_insertion() {
    let f = parse_file(Lang::Java, MEMBERS_SRC.as_bytes(), TreeShape::JavaParser);
    let sp = |start, end| Span { start, end };
    // Inside the anonymous class within m → m's whole range.
    assert_eq!(f.method_for(sp(13, 13)), Some((10, 17)));
    // Inside the lambda of the constructor → the constructor.
    assert_eq!(f.method_for(sp(7, 7)), Some((5, 9)));
    // Crossing the constructor and m → a merged id of its own.
    assert_eq!(f.method_for(sp(9, 10)), Some((5, 17)));
    // Field, initializer, annotation member, compact constructor: nothing.
    for l in [3, 4, 24, 26] {
        assert_eq!(f.method_for(sp(l, l)), None, "line {l}");
    }
    // Pure insertions (end = start − 1): before line 5 (the constructor's first line) is
    // outside; before line 6 is strictly inside; before line 10 (after the ctor's last
    // line 9, before m) is outside both.
    assert_eq!(f.method_for(sp(5, 4)), None);
    assert_eq!(f.method_for(sp(6, 5)), Some((5, 9)));
    assert_eq!(f.method_for(sp(10, 9)), None);
    // Before the last line of a member is still inside.
    assert_eq!(f.method_for(sp(9, 8)), Some((5, 9)));
}

#[test]
fn python_members_and_no_package() {
    let src = "class C:\n    def m(self, x=1):\n        def inner(y):\n            return y\n        return inner\n\nlam = lambda z: z\n";
    let f = parse_file(Lang::Python, src.as_bytes(), TreeShape::Named);
    let got: Vec<(u32, u32, &str)> = f
        .members()
        .iter()
        .map(|m| (m.begin, m.end, m.label.as_str()))
        .collect();
    assert_eq!(got, vec![(2, 5, "C.m(self,x)"), (3, 4, "C.inner(y)")]);
    assert_eq!(f.package(), None);
    assert_eq!(f.method_for(Span { start: 4, end: 4 }), Some((2, 5)));
    assert_eq!(f.method_for(Span { start: 7, end: 7 }), None);
}

#[test]
fn first_statement_anchor_and_fallback() {
    let src = "class A {\n  void f() {\n    int x = 1;\n    g(x);\n  }\n}\n";
    let f = parse_file(Lang::Java, src.as_bytes(), TreeShape::Named);
    let a = f.anchor(Span { start: 3, end: 4 }, AnchorRule::FirstStatement);
    assert_eq!(
        (f.kind(a), f.lines(a)),
        ("local_variable_declaration", (3, 3))
    );
    let b = f.anchor(Span { start: 4, end: 4 }, AnchorRule::FirstStatement);
    assert_eq!((f.kind(b), f.lines(b)), ("expression_statement", (4, 4)));
    // Method header line: the method declaration starts there, before its block.
    let c = f.anchor(Span { start: 2, end: 2 }, AnchorRule::FirstStatement);
    assert_eq!(f.kind(c), "method_declaration");
    // Pure insertion: falls back to the covering node (the line-3 statement ends right
    // before the insertion point).
    let d = f.anchor(Span { start: 4, end: 3 }, AnchorRule::FirstStatement);
    assert_eq!(d, f.anchor(Span { start: 4, end: 3 }, AnchorRule::Covering));
    assert_eq!(f.lines(d), (3, 3));
    assert_eq!(f.kind(d), "local_variable_declaration");
}

#[test]
fn lang_from_path() {
    assert_eq!(Lang::from_path("src/a/B.java"), Some(Lang::Java));
    assert_eq!(Lang::from_path("pkg/m.py"), Some(Lang::Python));
    assert_eq!(Lang::from_path("README"), None);
    assert_eq!(Lang::from_path("a.js"), None);
}

#[test]
fn rule_foreach_variable_resource_and_union_catch() {
    assert!(
        jp("class A { void f() { for (final int x : xs) {} } }").contains(
            "(enhanced_for_statement (VariableDeclarationExpr Modifier (VariableDeclarator \
         integral_type identifier)) (identifier SimpleName) block)"
        )
    );
    let t = jp("class A { void f() { try (R r = o(); s) { } catch (E | F e) { } } }");
    assert!(
        t.contains(
            "(try_with_resources_statement (resource (VariableDeclarator \
             (type_identifier SimpleName) identifier (method_invocation identifier))) \
             (identifier SimpleName) block"
        ),
        "{t}"
    );
    assert!(
        t.contains(
            "(catch_formal_parameter (catch_type (type_identifier SimpleName) \
             (type_identifier SimpleName)) identifier)"
        ),
        "{t}"
    );
    // A single caught type collapses as before.
    assert!(jp("class A { void f() { try { } catch (E e) { } } }")
        .contains("(catch_formal_parameter (type_identifier SimpleName) identifier)"));
}

#[test]
fn rule_array_levels() {
    // `int[][]`: two nested ArrayType nodes; `String a[]` parameter: ArrayType wrap.
    assert!(jp("class A { int[][] x; }")
        .contains("(variable_declarator (array_type (ArrayType integral_type)) identifier)"));
    assert!(jp("class A { void f(String a[]) {} }")
        .contains("(formal_parameter (ArrayType (type_identifier SimpleName)) identifier)"));
    // `new int[] {…}` keeps its empty level (ArrayCreationLevel); `new int[4]` has none
    // beyond the dimension expression.
    assert!(jp("class A { Object o = new int[] {1}; }").contains(
        "(array_creation_expression integral_type dimensions (array_initializer \
         decimal_integer_literal))"
    ));
    assert!(jp("class A { Object o = new int[4]; }").contains(
        "(array_creation_expression integral_type (dimensions_expr decimal_integer_literal))"
    ));
}

#[test]
fn rule_lambda_expression_body_wrapped() {
    assert!(jp("class A { Object o = x -> x; }").contains(
        "(lambda_expression (identifier SimpleName) (ExpressionStmt (identifier SimpleName)))"
    ));
    assert!(jp("class A { Object o = () -> {}; }").contains("(lambda_expression block)"));
}

#[test]
fn rule_qualified_this_and_wildcard_super() {
    assert!(jp("class A { Object f() { return A.this; } }")
        .contains("(return_statement (field_access identifier))"));
    // `this.x` is unaffected.
    assert!(
        jp("class A { Object f() { return this.x; } }").contains("(field_access this identifier)")
    );
    assert!(jp("class A { L<? super B> x; }").contains("(wildcard (type_identifier SimpleName))"));
}

#[test]
fn rule_empty_statements() {
    let t = jp("class E { void f() { ; while (a); if (b); else ; l: ; } }");
    assert!(t.contains("(block EmptyStmt (while_statement"), "{t}");
    assert!(
        t.contains("(while_statement (identifier SimpleName) EmptyStmt)"),
        "{t}"
    );
    assert!(
        t.contains("(if_statement (identifier SimpleName) EmptyStmt EmptyStmt)"),
        "{t}"
    );
    assert!(
        t.contains("(labeled_statement identifier EmptyStmt)"),
        "{t}"
    );
    // Terminators are not statements.
    assert!(!jp("class E { int x; void f() { g(); } }").contains("EmptyStmt"));
}

#[test]
fn python_labels_render_separators_splats_and_types() {
    let src = "def f(a, b: int = 1, /, c=2, *args: str, d, e: Dict[str,  Any], **kwargs: Any) -> None:\n    pass\n\ndef g(x, *, y):\n    pass\n\ndef h(*a, **k):\n    pass\n";
    let f = parse_file(Lang::Python, src.as_bytes(), TreeShape::Named);
    let got: Vec<&str> = f.members().iter().map(|m| m.label.as_str()).collect();
    assert_eq!(
        got,
        vec![
            "f(a,b: int,/,c,*args: str,d,e: Dict[str, Any],**kwargs: Any)",
            "g(x,*,y)",
            "h(*a,**k)",
        ]
    );
}

#[test]
fn python_insertion_after_a_function_body_extends_it() {
    // Lines: 1 class, 2 def m, 3 body, 4 body end, 5 blank, 6 def top, 7 body, 8 blank,
    // 9 def nested-owner, 10 def inner, 11 inner body, 12 owner body.
    let src = "class C:\n    def m(self):\n        x = 1\n        return x\n\ndef top():\n    pass\n\ndef owner():\n    def inner():\n        return 1\n    return inner\n";
    let f = parse_file(Lang::Python, src.as_bytes(), TreeShape::Named);
    let m = |last, indent| {
        f.function_extended_by(last, indent)
            .map(|m| m.label.as_str())
    };
    // Indented as m's body, after its last line → m.
    assert_eq!(m(4, 8), Some("C.m(self)"));
    // Indented as the class body → not m (a new method or class attribute).
    assert_eq!(m(4, 4), None);
    assert_eq!(m(7, 4), Some("top()"));
    // At module level → nothing.
    assert_eq!(m(7, 0), None);
    // Deeper than inner's def but ends inside owner → the innermost ending there.
    assert_eq!(m(11, 8), Some("inner()"));
    assert_eq!(m(12, 4), Some("owner()"));
    // Java bodies close with a brace: never extended.
    let j = parse_file(
        Lang::Java,
        b"class A {\n  void f() {\n  }\n}\n",
        TreeShape::Named,
    );
    assert_eq!(j.function_extended_by(3, 4), None);
}
