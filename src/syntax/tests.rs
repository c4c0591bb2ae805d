//! Unit tests of the syntax layer: one per JavaParser-shape rule, plus members/anchors.

use super::*;

fn jp(src: &str) -> String {
    parse_file(Lang::Java, src.as_bytes(), TreeShape::JavaParser).sexpr()
}

#[test]
fn dump() {
    println!(
        "{}",
        jp("class A { int x = 1, y; void f(int a) { if (a) { g(a); } } }")
    );
}
