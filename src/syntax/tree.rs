//! Compact arena syntax tree: what D_ast needs (anchors, distances, diameter) in O(N).
//!
//! Nodes are stored in pre-order, so a node's index is its pre-order rank, every child
//! has a larger index than its parent, and one reverse sweep computes all heights.

use crate::diff::Span;

/// Index of a node in a [`Tree`]'s arena, equal to its pre-order rank (root = 0), so
/// "first in pre-order" is simply "smallest id".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

/// Parent marker of the root node.
const NO_PARENT: u32 = u32::MAX;

/// Kind id of the synthetic `SimpleName` leaf added by the JavaParser shape.
pub const KIND_SIMPLE_NAME: u16 = u16::MAX - 1;
/// Kind id of the synthetic `ExpressionStmt` wrapper added by the JavaParser shape.
pub const KIND_EXPRESSION_STMT: u16 = u16::MAX - 2;
/// Kind id of the synthetic `LocalClassDeclarationStmt` wrapper (JavaParser shape).
pub const KIND_LOCAL_CLASS_STMT: u16 = u16::MAX - 3;
/// Kind id of the synthetic `InitializerDeclaration` wrapper of an instance initializer.
pub const KIND_INITIALIZER: u16 = u16::MAX - 4;
/// Kind id of the synthetic `Modifier` leaf made from a modifier keyword.
pub const KIND_MODIFIER: u16 = u16::MAX - 5;

/// Kind id of the synthetic `IntersectionType` grouping a cast's `A & B` types.
pub const KIND_INTERSECTION: u16 = u16::MAX - 6;

/// Kind id of the synthetic `VariableDeclarationExpr` of a for-each variable.
pub const KIND_VAR_DECL_EXPR: u16 = u16::MAX - 7;
/// Kind id of the synthetic `VariableDeclarator` of a for-each variable or a resource.
pub const KIND_VAR_DECLARATOR: u16 = u16::MAX - 8;

/// Kind id of the synthetic `ArrayType` levels (JavaParser: one per bracket pair).
pub const KIND_ARRAY_TYPE: u16 = u16::MAX - 9;

/// Kind id of the synthetic `TypeExpr` wrapping a method reference's type scope.
pub const KIND_TYPE_EXPR: u16 = u16::MAX - 10;

/// Kind id of the synthetic `EmptyStmt` made from a lone `;` statement.
pub const KIND_EMPTY_STMT: u16 = u16::MAX - 11;

/// Name of a synthetic kind id, `None` for grammar kinds.
pub fn synthetic_name(k: u16) -> Option<&'static str> {
    Some(match k {
        KIND_SIMPLE_NAME => "SimpleName",
        KIND_EXPRESSION_STMT => "ExpressionStmt",
        KIND_LOCAL_CLASS_STMT => "LocalClassDeclarationStmt",
        KIND_INITIALIZER => "InitializerDeclaration",
        KIND_MODIFIER => "Modifier",
        KIND_INTERSECTION => "IntersectionType",
        KIND_VAR_DECL_EXPR => "VariableDeclarationExpr",
        KIND_VAR_DECLARATOR => "VariableDeclarator",
        KIND_ARRAY_TYPE => "ArrayType",
        KIND_TYPE_EXPR => "TypeExpr",
        KIND_EMPTY_STMT => "EmptyStmt",
        _ => return None,
    })
}

/// Struct-of-arrays tree: one small record per node, no per-node allocation.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    /// Grammar kind id (tree-sitter symbol) or one of the synthetic `KIND_*` ids.
    pub(crate) kind: Vec<u16>,
    /// Parent index; `NO_PARENT` for the root.
    pub(crate) parent: Vec<u32>,
    /// Depth in edges from the root.
    pub(crate) depth: Vec<u32>,
    /// First line (1-based).
    pub(crate) start: Vec<u32>,
    /// Last line (1-based, inclusive).
    pub(crate) end: Vec<u32>,
}

impl Tree {
    /// Appends a node under `parent` (`None` for the root) and returns its id; callers
    /// push in pre-order.
    pub(crate) fn push(&mut self, kind: u16, parent: Option<u32>, start: u32, end: u32) -> u32 {
        let id = self.kind.len() as u32;
        let (p, d) = match parent {
            Some(p) => (p, self.depth[p as usize] + 1),
            None => (NO_PARENT, 0),
        };
        self.kind.push(kind);
        self.parent.push(p);
        self.depth.push(d);
        self.start.push(start);
        self.end.push(end);
        id
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.kind.len()
    }

    /// True for a tree without nodes (only when parsing produced nothing at all).
    pub fn is_empty(&self) -> bool {
        self.kind.is_empty()
    }

    /// Parent of a node, `None` for the root.
    pub fn parent(&self, n: NodeId) -> Option<NodeId> {
        match self.parent[n.0 as usize] {
            NO_PARENT => None,
            p => Some(NodeId(p)),
        }
    }

    /// Line range (1-based, inclusive) of a node.
    pub fn lines(&self, n: NodeId) -> (u32, u32) {
        (self.start[n.0 as usize], self.end[n.0 as usize])
    }

    /// Depth of a node in edges from the root.
    pub fn depth(&self, n: NodeId) -> u32 {
        self.depth[n.0 as usize]
    }

    /// Grammar kind id of a node (or a synthetic `KIND_*`).
    pub fn kind_id(&self, n: NodeId) -> u16 {
        self.kind[n.0 as usize]
    }

    /// Longest path in edges, by one reverse pre-order sweep keeping each node's two
    /// tallest child heights.
    pub fn diameter(&self) -> u32 {
        let n = self.len();
        let mut h1 = vec![0u32; n];
        let mut h2 = vec![0u32; n];
        let mut best = 0;
        for i in (0..n).rev() {
            best = best.max(h1[i] + h2[i]);
            let p = self.parent[i];
            if p != NO_PARENT {
                let p = p as usize;
                let h = h1[i] + 1;
                if h > h1[p] {
                    h2[p] = h1[p];
                    h1[p] = h;
                } else if h > h2[p] {
                    h2[p] = h;
                }
            }
        }
        best
    }

    /// Edges between two nodes: climb the deeper one to the other's depth, then both to
    /// their lowest common ancestor. O(depth), no preprocessing.
    pub fn distance(&self, a: NodeId, b: NodeId) -> u32 {
        let (mut a, mut b) = (a.0, b.0);
        let mut d = 0;
        while self.depth[a as usize] > self.depth[b as usize] {
            a = self.parent[a as usize];
            d += 1;
        }
        while self.depth[b as usize] > self.depth[a as usize] {
            b = self.parent[b as usize];
            d += 1;
        }
        while a != b {
            a = self.parent[a as usize];
            b = self.parent[b as usize];
            d += 2;
        }
        d
    }

    /// Smallest line-span node covering `span` (`start ≤ span.start` and
    /// `end ≥ span.end`); ties go to the first in pre-order (the outermost); the root when
    /// nothing covers it. A pure insertion (`span.end = span.start − 1`) is therefore
    /// covered by any node with `start ≤ span.start` and `end ≥ span.start − 1`: a node
    /// ending on the line just before the insertion point covers it as well.
    pub fn covering(&self, span: Span) -> NodeId {
        let mut best: Option<(u32, u32)> = None;
        for i in 0..self.len() {
            let (s, e) = (self.start[i], self.end[i]);
            if s <= span.start && e >= span.end {
                let width = e - s;
                if best.is_none_or(|(w, _)| width < w) {
                    best = Some((width, i as u32));
                }
            }
        }
        NodeId(best.map_or(0, |(_, i)| i))
    }

    /// First node in pre-order of a kind accepted by `is_stmt` whose first line lies in
    /// `span.start..=span.end`; `None` when there is none (always for a pure insertion).
    pub fn first_starting_within(
        &self,
        span: Span,
        is_stmt: impl Fn(u16) -> bool,
    ) -> Option<NodeId> {
        (0..self.len())
            .find(|&i| {
                let s = self.start[i];
                s >= span.start && s <= span.end && is_stmt(self.kind[i])
            })
            .map(|i| NodeId(i as u32))
    }

    /// S-expression of the tree (`(kind child…)`, leaves bare), for tests and debugging.
    pub fn sexpr(&self, name: impl Fn(u16) -> &'static str) -> String {
        let n = self.len();
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
        for i in 1..n {
            let p = self.parent[i];
            if p != NO_PARENT {
                children[p as usize].push(i as u32);
            }
        }
        let mut out = String::new();
        if n > 0 {
            write_sexpr(0, &children, &self.kind, &name, &mut out);
        }
        out
    }
}

fn write_sexpr(
    i: u32,
    children: &[Vec<u32>],
    kind: &[u16],
    name: &impl Fn(u16) -> &'static str,
    out: &mut String,
) {
    let k = name(kind[i as usize]);
    let ch = &children[i as usize];
    if ch.is_empty() {
        out.push_str(k);
        return;
    }
    out.push('(');
    out.push_str(k);
    for &c in ch {
        out.push(' ');
        write_sexpr(c, children, kind, name, out);
    }
    out.push(')');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// root(0) ─ a(1) ─ b(2) ─ c(3)
    ///        └ d(4) ─ e(5)
    fn sample() -> Tree {
        let mut t = Tree::default();
        let r = t.push(0, None, 1, 10);
        let a = t.push(1, Some(r), 2, 6);
        let b = t.push(2, Some(a), 3, 5);
        t.push(3, Some(b), 4, 4);
        let d = t.push(4, Some(r), 7, 9);
        t.push(5, Some(d), 8, 8);
        t
    }

    #[test]
    fn diameter_and_distance_by_hand() {
        let t = sample();
        // Longest path c-b-a-root-d-e: 5 edges.
        assert_eq!(t.diameter(), 5);
        assert_eq!(t.distance(NodeId(3), NodeId(5)), 5);
        assert_eq!(t.distance(NodeId(3), NodeId(1)), 2);
        assert_eq!(t.distance(NodeId(4), NodeId(4)), 0);
    }

    #[test]
    fn covering_ties_and_insertions() {
        let t = sample();
        assert_eq!(t.covering(Span { start: 4, end: 4 }), NodeId(3));
        assert_eq!(t.covering(Span { start: 3, end: 5 }), NodeId(2));
        // Beyond every node: the root.
        assert_eq!(t.covering(Span { start: 20, end: 20 }), NodeId(0));
        // Insertion before line 5 (end = 4): c (line 4) ends right before it.
        assert_eq!(t.covering(Span { start: 5, end: 4 }), NodeId(3));
        let stmt = |k: u16| k == 2 || k == 4;
        assert_eq!(
            t.first_starting_within(Span { start: 3, end: 8 }, stmt),
            Some(NodeId(2))
        );
        assert_eq!(
            t.first_starting_within(Span { start: 5, end: 4 }, stmt),
            None
        );
    }
}
