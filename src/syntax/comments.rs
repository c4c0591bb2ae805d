//! Which lines of a file are comments, docstrings or blank, for the abstention rule.
//!
//! A line is *non-code* when every non-whitespace byte on it lies inside a comment node
//! or a docstring, or when it has no non-whitespace byte at all (blank). Comments are
//! tree-sitter's `line_comment` / `block_comment` (Java, javadoc included) and `comment`
//! (Python). A Python docstring is a statement consisting of one string literal (or an
//! implicit concatenation of literals) that is the first statement of a module, a class
//! body or a function body; comments before it do not change that. A string literal
//! anywhere else (an assignment, a call argument, a later bare string) is code.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::{ts_parse, Lang};

/// 1-based lines of `src` that hold only comments, docstrings or whitespace.
///
/// A line with code and a trailing comment (`x = 1  # one`) is code. When tree-sitter
/// produces no tree at all, only blank lines are reported.
pub fn comment_lines(lang: Lang, src: &[u8]) -> BTreeSet<u32> {
    let mut covered = vec![false; src.len()];
    if let Some(tree) = ts_parse(lang, src) {
        let mut mark = |n: Node| {
            let (s, e) = (n.start_byte().min(src.len()), n.end_byte().min(src.len()));
            covered[s..e].iter_mut().for_each(|c| *c = true);
        };
        let mut cursor = tree.root_node().walk();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            let kind = node.kind();
            let is_comment = match lang {
                Lang::Java => kind == "line_comment" || kind == "block_comment",
                Lang::Python => kind == "comment",
            };
            if is_comment {
                mark(node);
                continue;
            }
            if lang == Lang::Python {
                if let Some(doc) = python_docstring(node) {
                    mark(doc);
                }
            }
            for child in node.children(&mut cursor) {
                stack.push(child);
            }
        }
    }
    let mut out = BTreeSet::new();
    let mut line = 1u32;
    let mut code = false;
    for (i, &b) in src.iter().enumerate() {
        if b == b'\n' {
            if !code {
                out.insert(line);
            }
            line += 1;
            code = false;
        } else if !b.is_ascii_whitespace() && !covered[i] {
            code = true;
        }
    }
    // The last line when the file does not end with a newline.
    if src.last().is_some_and(|&b| b != b'\n') && !code {
        out.insert(line);
    }
    out
}

/// The docstring statement of a module, class or function node, if it has one.
pub(super) fn python_docstring(node: Node) -> Option<Node> {
    let body = match node.kind() {
        "module" => node,
        "class_definition" | "function_definition" => node.child_by_field_name("body")?,
        _ => return None,
    };
    let mut cursor = body.walk();
    let first = body
        .named_children(&mut cursor)
        .find(|c| c.kind() != "comment")?;
    if first.kind() != "expression_statement" || first.named_child_count() != 1 {
        return None;
    }
    let expr = first.named_child(0)?;
    matches!(expr.kind(), "string" | "concatenated_string").then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(lang: Lang, src: &str) -> Vec<u32> {
        comment_lines(lang, src.as_bytes()).into_iter().collect()
    }

    #[test]
    fn java_comments_javadoc_and_blank_lines() {
        let src = "\
package a;            // 1 code (trailing comment)
// line comment       // 2
/**                   
 * Javadoc.
 */
class A {
    /* block */ int x; 
    int y; /* tail
       still comment */

    /* only */
}";
        // 2-5 comments, 9 (continuation of a comment that started after code), 10 blank,
        // 11 comment; 1, 6, 7, 8, 12 have code.
        assert_eq!(lines(Lang::Java, src), vec![2, 3, 4, 5, 9, 10, 11]);
    }

    #[test]
    fn python_docstrings_are_first_statements_only() {
        let src = "\
#!/usr/bin/env python
\"\"\"Module doc.\"\"\"
import os
X = \"\"\"not a doc\"\"\"
class C:
    # leading comment
    '''Class
    doc.'''
    def f(self):
        \"doc\" \"concatenated\"
        \"later string is code\"
        return 1  # tail
";
        // 1 comment, 2 module doc, 6 comment, 7-8 class doc, 10 function doc; 4 is an
        // assignment and 11 is a second statement, so both are code.
        assert_eq!(lines(Lang::Python, src), vec![1, 2, 6, 7, 8, 10]);
    }

    #[test]
    fn crlf_and_missing_final_newline() {
        assert_eq!(lines(Lang::Java, "int a;\r\n\r\n// c"), vec![2, 3]);
        assert_eq!(lines(Lang::Python, ""), Vec::<u32>::new());
    }
}
