//! Hand-computed D_ast inputs (anchor distance, diameter) on tiny Java and Python files.

use hunkgen::diff::Span;
use hunkgen::syntax::{parse_file, AnchorRule, Lang, TreeShape};

const JAVA: &str = "class A {
    int f() {
        return 1;
    }
    void g() {
        h();
    }
}
";

fn sp(start: u32, end: u32) -> Span {
    Span { start, end }
}

/// JavaParser shape, by hand (depth in brackets):
/// program[0] > class_declaration[1] > { identifier A[2],
///   method f[2] > { int[3], identifier f[3], block[3] > return[4] > literal 1[5] },
///   method g[2] > { void[3], identifier g[3], block[3] > expr_stmt[4] > call[5] > identifier h[6] } }
/// Diameter: h[6] up to class[1] = 5 edges, down to literal[5] = 4 edges → 9.
#[test]
fn java_javaparser_shape_by_hand() {
    let f = parse_file(Lang::Java, JAVA.as_bytes(), TreeShape::JavaParser);
    assert_eq!(f.diameter(), 9);
    let c = AnchorRule::Covering;
    let ret = f.anchor(sp(3, 3), c);
    let call = f.anchor(sp(6, 6), c);
    // Line 3 is covered by return[4] and literal[5], both one line: outermost wins.
    assert_eq!((f.kind(ret), f.depth(ret)), ("return_statement", 4));
    assert_eq!((f.kind(call), f.depth(call)), ("expression_statement", 4));
    // return[4] → block[3] → f[2] → class[1] → g[2] → block[3] → stmt[4]: 6 edges.
    assert_eq!(f.distance(ret, call), 6);
    // D_ast = ln(1+6)/ln(1+9).
    let d_ast =
        (1.0 + f64::from(f.distance(ret, call))).ln() / (1.0 + f64::from(f.diameter())).ln();
    assert!((d_ast - 7f64.ln() / 10f64.ln()).abs() < 1e-12);
    // Insertion before line 4 (span 4..=3): return[4] (line 3) ends right before it and is
    // the smallest covering node.
    assert_eq!(f.anchor(sp(4, 3), c), ret);
    // Header line 2: the one-line type/name of f at depth 3; to stmt[4]: 3→2→1→2→3→4 = 5.
    let head = f.anchor(sp(2, 2), c);
    assert_eq!(f.depth(head), 3);
    assert_eq!(f.distance(head, call), 5);
    // Crossing both methods: the class (lines 1-8) and the program (also 1-8: it ends at
    // the final newline) cover 3..=6 with equal spans; the tie goes to the outermost.
    let both = f.anchor(sp(3, 6), c);
    assert_eq!((f.kind(both), f.distance(both, ret)), ("program", 4));
    // Nothing covers line 20: the root.
    let root = f.anchor(sp(20, 20), c);
    assert_eq!((f.depth(root), f.distance(root, call)), (0, 4));
}

/// Named shape (Algorithm 1): program[0] > class[1] > { identifier[2], class_body[2] >
///   { method f[3] > { int[4], identifier[4], formal_parameters[4], block[4] > return[5] > 1[6] },
///     method g[3] > { void[4], identifier[4], formal_parameters[4], block[4] >
///       expr_stmt[5] > call[6] > { identifier h[7], argument_list[7] } } } }
/// Diameter: h[7] up to class_body[2] = 5, down to literal[6] = 4 → 9.
#[test]
fn java_named_shape_by_hand() {
    let f = parse_file(Lang::Java, JAVA.as_bytes(), TreeShape::Named);
    assert_eq!(f.diameter(), 9);
    let r = AnchorRule::FirstStatement;
    let ret = f.anchor(sp(3, 3), r);
    let call = f.anchor(sp(6, 6), r);
    assert_eq!((f.kind(ret), f.depth(ret)), ("return_statement", 5));
    assert_eq!((f.kind(call), f.depth(call)), ("expression_statement", 5));
    // 5→4→3→2→3→4→5: 6 edges.
    assert_eq!(f.distance(ret, call), 6);
    // A span over lines 2..=6 starts with method f's declaration (line 2), depth 3.
    let m = f.anchor(sp(2, 6), r);
    assert_eq!((f.kind(m), f.distance(m, call)), ("method_declaration", 4));
}

const PYTHON: &str = "def f(x):
    if x:
        return 1
    return 2


def g():
    pass
";

/// Python (both shapes): module[0] > { def f[1] > { identifier[2], parameters[2] > x[3],
///   block[2] (2-4) > { if[3] (2-3) > { x[4], block[4] (3) > return[5] > 1[6] }, return[3] > 2[4] } },
///   def g[1] > { identifier[2], parameters[2], block[2] (8) > pass[3] } }
/// Diameter: 1[6] up to module = 6 edges, down to pass[3] = 3 → 9.
#[test]
fn python_by_hand() {
    for shape in [TreeShape::Named, TreeShape::JavaParser] {
        let f = parse_file(Lang::Python, PYTHON.as_bytes(), shape);
        assert_eq!(f.error_count(), 0);
        assert_eq!(f.diameter(), 9);
        // Covering: line 3 is covered by the if's one-line block[4] first (outermost).
        let (a, b) = (
            f.anchor(sp(3, 3), AnchorRule::Covering),
            f.anchor(sp(8, 8), AnchorRule::Covering),
        );
        assert_eq!((f.kind(a), f.depth(a)), ("block", 4));
        assert_eq!((f.kind(b), f.depth(b)), ("block", 2));
        // block[4] → if[3] → block[2] → f[1] → module[0] → g[1] → block[2]: 6.
        assert_eq!(f.distance(a, b), 6);
        // First statement: return[5] and pass[3]: 5 up to the module, 3 down → 8.
        let (c, d) = (
            f.anchor(sp(3, 3), AnchorRule::FirstStatement),
            f.anchor(sp(8, 8), AnchorRule::FirstStatement),
        );
        assert_eq!(
            (f.kind(c), f.kind(d)),
            ("return_statement", "pass_statement")
        );
        assert_eq!(f.distance(c, d), 8);
        // The function's block ends on line 4, not on the blank lines after it.
        let blk = f.anchor(sp(2, 4), AnchorRule::Covering);
        assert_eq!((f.kind(blk), f.lines(blk)), ("block", (2, 4)));
        assert_eq!(f.method_for(sp(5, 5)), None);
        assert_eq!(f.method_for(sp(4, 4)), Some((1, 4)));
    }
}
