//! Outlines of Java and Python files — package, imports, classes and methods with their
//! signatures and line ranges — so the repository context server (`hunkgen mcp`) can
//! answer "where is X" questions from the same parser the annotation uses.

use super::{ts_parse, Lang};
use serde::Serialize;
use tree_sitter::Node;

/// What a declaration is, so clients can filter classes from methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    /// A Java `class` or a Python `class`.
    Class,
    /// A Java `interface`.
    Interface,
    /// A Java `enum`.
    Enum,
    /// A Java `record`.
    Record,
    /// A Java annotation type (`@interface`).
    Annotation,
    /// A Java method.
    Method,
    /// A Java constructor.
    Constructor,
    /// A Python `def` (module-level or in a class).
    Function,
}

impl ItemKind {
    /// Whether this kind declares a type (class, interface, enum, record, annotation).
    pub fn is_type(self) -> bool {
        !matches!(
            self,
            ItemKind::Method | ItemKind::Constructor | ItemKind::Function
        )
    }
}

/// One declared type or method with where it is in its file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// Class or method kind.
    pub kind: ItemKind,
    /// Simple name (`Money`, `parse`).
    pub name: String,
    /// Name with its enclosing types (`Outer.Inner`, `Money.parse`).
    pub qualified: String,
    /// Qualified name of the enclosing type, for methods and nested types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// The declaration up to its body, whitespace collapsed
    /// (`public static long parse(String text)`, `def mean(xs):`).
    pub signature: String,
    /// First line, 1-based (decorators included for Python).
    pub start_line: u32,
    /// Last line, inclusive.
    pub end_line: u32,
}

/// A file's outline.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Outline {
    /// Java `package` declaration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// Import statements as written (whitespace collapsed) with their first line.
    pub imports: Vec<(u32, String)>,
    /// Every declared type, in source order.
    pub classes: Vec<Item>,
    /// Every method, constructor or function, in source order.
    pub methods: Vec<Item>,
    /// ERROR and MISSING nodes: the outline of a file with errors may miss items.
    pub error_count: usize,
}

/// Outline a source file (tree-sitter never refuses input: a broken file gives a
/// partial outline and a non-zero `error_count`).
pub fn outline(lang: Lang, src: &[u8]) -> Outline {
    let mut out = Outline::default();
    let Some(tree) = ts_parse(lang, src) else {
        out.error_count = 1;
        return out;
    };
    let mut owners: Vec<String> = Vec::new();
    visit(lang, tree.root_node(), src, &mut owners, &mut out);
    out
}

fn visit(lang: Lang, n: Node, src: &[u8], owners: &mut Vec<String>, out: &mut Outline) {
    if n.is_error() || n.is_missing() {
        out.error_count += 1;
    }
    let kind = classify(lang, n.kind());
    let mut pushed = false;
    match kind {
        Some(Decl::Item(k)) => {
            let name = n
                .child_by_field_name("name")
                .map_or("?".to_string(), |x| text(x, src));
            let owner = (!owners.is_empty()).then(|| owners.join("."));
            let mut qualified_parts = owners.clone();
            qualified_parts.push(name.clone());
            // A Python decorated definition starts at its first decorator.
            let outer = match n.parent() {
                Some(p) if p.kind() == "decorated_definition" => p,
                _ => n,
            };
            let sig_end = n
                .child_by_field_name("body")
                .map_or(n.end_byte(), |b| b.start_byte());
            let item = Item {
                kind: k,
                name: name.clone(),
                qualified: qualified_parts.join("."),
                owner,
                signature: collapse(&src[outer.start_byte()..sig_end.max(outer.start_byte())]),
                start_line: outer.start_position().row as u32 + 1,
                end_line: end_line(&n),
            };
            if k.is_type() {
                out.classes.push(item);
                owners.push(name);
                pushed = true;
            } else {
                out.methods.push(item);
                // Python classes nested in functions keep the function out of their
                // qualified name, like Java local classes keep the method out.
            }
        }
        Some(Decl::Package) if out.package.is_none() => {
            let mut c = n.walk();
            out.package = n
                .named_children(&mut c)
                .find(|k| matches!(k.kind(), "scoped_identifier" | "identifier"))
                .map(|k| collapse(&src[k.start_byte()..k.end_byte()]).replace(' ', ""));
        }
        Some(Decl::Package) => {}
        Some(Decl::Import) => {
            out.imports.push((
                n.start_position().row as u32 + 1,
                collapse(&src[n.start_byte()..n.end_byte()]),
            ));
            return;
        }
        None => {}
    }
    let mut c = n.walk();
    for child in n.children(&mut c) {
        visit(lang, child, src, owners, out);
    }
    if pushed {
        owners.pop();
    }
}

/// What a node declares, by language.
enum Decl {
    Item(ItemKind),
    Package,
    Import,
}

fn classify(lang: Lang, kind: &str) -> Option<Decl> {
    Some(match (lang, kind) {
        (Lang::Java, "class_declaration") => Decl::Item(ItemKind::Class),
        (Lang::Java, "interface_declaration") => Decl::Item(ItemKind::Interface),
        (Lang::Java, "enum_declaration") => Decl::Item(ItemKind::Enum),
        (Lang::Java, "record_declaration") => Decl::Item(ItemKind::Record),
        (Lang::Java, "annotation_type_declaration") => Decl::Item(ItemKind::Annotation),
        (Lang::Java, "method_declaration") => Decl::Item(ItemKind::Method),
        (Lang::Java, "constructor_declaration" | "compact_constructor_declaration") => {
            Decl::Item(ItemKind::Constructor)
        }
        (Lang::Java, "package_declaration") => Decl::Package,
        (Lang::Java, "import_declaration") => Decl::Import,
        (Lang::Python, "class_definition") => Decl::Item(ItemKind::Class),
        (Lang::Python, "function_definition") => Decl::Item(ItemKind::Function),
        (
            Lang::Python,
            "import_statement" | "import_from_statement" | "future_import_statement",
        ) => Decl::Import,
        _ => return None,
    })
}

fn text(n: Node, src: &[u8]) -> String {
    String::from_utf8_lossy(&src[n.start_byte()..n.end_byte()]).into_owned()
}

/// Source text with every whitespace run (newlines included) collapsed to one space.
fn collapse(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Last line of a node, 1-based inclusive (a node ending at column 0 ends on the line
/// before).
fn end_line(n: &Node) -> u32 {
    let s = n.start_position();
    let e = n.end_position();
    if e.column == 0 && e.row > s.row {
        e.row as u32
    } else {
        e.row as u32 + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JAVA: &str = "package a.b;\n\nimport java.util.List;\nimport static java.lang.Math.abs;\n\n/** Doc. */\npublic class Outer {\n    private int x;\n\n    Outer(int x) {\n        this.x = x;\n    }\n\n    @Override\n    public String toString() {\n        return \"\" + x;\n    }\n\n    interface Shape {\n        double area(\n            int scale);\n    }\n}\n";

    #[test]
    fn java_outline_has_lines_signatures_and_owners() {
        let o = outline(Lang::Java, JAVA.as_bytes());
        assert_eq!(o.package.as_deref(), Some("a.b"));
        assert_eq!(
            o.imports,
            vec![
                (3, "import java.util.List;".to_string()),
                (4, "import static java.lang.Math.abs;".to_string())
            ]
        );
        let classes: Vec<(&str, u32, u32)> = o
            .classes
            .iter()
            .map(|c| (c.qualified.as_str(), c.start_line, c.end_line))
            .collect();
        assert_eq!(classes, vec![("Outer", 7, 23), ("Outer.Shape", 19, 22)]);
        let methods: Vec<(&str, &str, u32, u32)> = o
            .methods
            .iter()
            .map(|m| {
                (
                    m.qualified.as_str(),
                    m.signature.as_str(),
                    m.start_line,
                    m.end_line,
                )
            })
            .collect();
        assert_eq!(
            methods,
            vec![
                ("Outer.Outer", "Outer(int x)", 10, 12),
                (
                    "Outer.toString",
                    "@Override public String toString()",
                    14,
                    17
                ),
                ("Outer.Shape.area", "double area( int scale);", 20, 21),
            ]
        );
        assert_eq!(o.methods[2].owner.as_deref(), Some("Outer.Shape"));
        assert_eq!(o.error_count, 0);
    }

    #[test]
    fn python_outline_with_decorators_and_broken_code() {
        let src = "import os\nfrom a import (b,\n    c)\n\nclass C:\n    @staticmethod\n    def m(x):\n        return x\n\ndef f():\n    pass\n";
        let o = outline(Lang::Python, src.as_bytes());
        assert_eq!(o.imports[1], (2, "from a import (b, c)".to_string()));
        assert_eq!(o.classes[0].start_line, 5);
        assert_eq!(o.classes[0].end_line, 8);
        let m = &o.methods[0];
        assert_eq!(
            (m.qualified.as_str(), m.start_line, m.end_line),
            ("C.m", 6, 8)
        );
        assert_eq!(m.signature, "@staticmethod def m(x):");
        assert_eq!(o.methods[1].qualified, "f");
        let broken = outline(Lang::Python, b"def f(:\n    pass\n");
        assert!(broken.error_count > 0);
    }
}
