//! Hunk divergence (HUNK4J Definition 4) and the three profiles' switches (ARCHITECTURE §4).

use crate::diff::Span;
use serde::{Deserialize, Serialize};

/// Annotation profile: which variant of the published method to compute.
///
/// One type for the recipe (`annotate.profile`) and the command line (`--profile`), so
/// the two accept exactly the same names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum Profile {
    /// The authors' method as their released code implements it (default).
    #[default]
    #[serde(rename = "hunk4j")]
    Hunk4j,
    /// `hunk4j` plus the released pipeline's defects, to reproduce published numbers.
    #[serde(rename = "hunk4j-published")]
    Hunk4jPublished,
    /// The paper's Algorithm 1 as written.
    #[serde(rename = "algorithm1")]
    Algorithm1,
}

/// Every difference between profiles as a named switch, so users can see and flip each.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Switches {
    /// γ for a pair in the same file.
    pub gamma_same_file: f64,
    /// γ for a pair in different files.
    pub gamma_cross_file: f64,
    /// D_file's matched-prefix count starts at −1 (released code) instead of 0.
    pub lcp_starts_at_minus_one: bool,
    /// Order hunks by Defects4J `modified_classes`, then line (else patch order).
    pub modified_classes_order: bool,
    /// JavaParser-shaped tree (else tree-sitter named nodes).
    pub javaparser_tree: bool,
    /// Anchor = smallest covering node (else first statement in the span).
    pub covering_anchor: bool,
    /// D_lex text: added lines then deleted lines (else deleted then added).
    pub added_first: bool,
    /// D_lex text of hunk i is the hunk at position i of the whole patch file, every `@@`
    /// in textual order (released defect: its texts were listed by patch position).
    pub misaligned_lex_text: bool,
    /// D_ast anchor span from the buggy-side `@@` numbers as written, assuming three
    /// context lines each side ([`header_anchor_span()`]; released pipeline), else the
    /// changed-line span.
    pub header_anchor_span: bool,
    /// Same-file pairs whose Java HashMap key order is reversed get D_ast = 0 (released
    /// defect; cross-file pairs keep D_ast = 1, which needs no lookup).
    pub reversed_key_defect: bool,
}

impl Profile {
    /// All three, in the order `--profile` lists them.
    pub const ALL: [Profile; 3] = [
        Profile::Hunk4j,
        Profile::Hunk4jPublished,
        Profile::Algorithm1,
    ];

    /// The switches that define this profile.
    pub fn switches(self) -> Switches {
        // hunk4j: the authors' released code, defects fixed.
        let hunk4j = Switches {
            // γ: the released code weighs D_file only across files.
            gamma_same_file: 0.0,
            gamma_cross_file: 2.0,
            // The released LCP loop counts matched segments from −1.
            lcp_starts_at_minus_one: true,
            // Hunk ids follow Defects4J's modified_classes, then line order.
            modified_classes_order: true,
            // The released code parses with JavaParser.
            javaparser_tree: true,
            // The released anchor is the smallest node covering the span.
            covering_anchor: true,
            // The released text lists added lines, then deleted ones.
            added_first: true,
            // Defects, off: each hunk's own text, its changed-line span, plain pair keys.
            misaligned_lex_text: false,
            header_anchor_span: false,
            reversed_key_defect: false,
        };
        match self {
            Profile::Hunk4j => hunk4j,
            Profile::Hunk4jPublished => Switches {
                // Released texts were listed by patch position, hunks by modified_classes.
                misaligned_lex_text: true,
                // Released anchors came from the `@@` header as written, ±3 context lines.
                header_anchor_span: true,
                // Released pair keys followed Java HashMap order, looked up as "i_j".
                reversed_key_defect: true,
                ..hunk4j
            },
            // algorithm1: the paper's Algorithm 1 as written.
            Profile::Algorithm1 => Switches {
                gamma_same_file: 1.0,
                gamma_cross_file: 2.0,
                lcp_starts_at_minus_one: false,
                modified_classes_order: false,
                javaparser_tree: false,
                covering_anchor: false,
                added_first: false,
                misaligned_lex_text: false,
                header_anchor_span: false,
                reversed_key_defect: false,
            },
        }
    }

    /// Name as written in recipes and output.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Hunk4j => "hunk4j",
            Profile::Hunk4jPublished => "hunk4j-published",
            Profile::Algorithm1 => "algorithm1",
        }
    }
}

impl std::str::FromStr for Profile {
    type Err = crate::model::UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::model::parse_name(s, "profile", &Self::ALL, Self::name)
    }
}

/// The released pipeline's D_ast anchor span from a hunk's buggy-side `@@` range `c,d`
/// as written, assuming three context lines each side: start = c + 3; end = c + d − 4
/// when d ≥ 6 or c ≤ 3, else c + 3. An end below line 1 is returned as 0 (every node
/// ends at or after it, as with the negative end the pipeline computed).
pub fn header_anchor_span(c: u32, d: u32) -> Span {
    let (c64, d64) = (i64::from(c), i64::from(d));
    let end = if d >= 6 || c <= 3 {
        c64 + d64 - 4
    } else {
        c64 + 3
    };
    Span {
        start: c.saturating_add(3),
        end: u32::try_from(end.max(0)).unwrap_or(u32::MAX),
    }
}

/// D_file: 1 − |LCP(path_i, path_j)| / max(|path_i|, |path_j|) over `/` segments
/// (file name included); with `starts_at_minus_one` the matched count is one less
/// (never below 0), as in the released code.
pub fn d_file(path_i: &str, path_j: &str, starts_at_minus_one: bool) -> f64 {
    if path_i == path_j {
        return 0.0;
    }
    let a: Vec<&str> = path_i.split('/').collect();
    let b: Vec<&str> = path_j.split('/').collect();
    let matched = a.iter().zip(&b).take_while(|(x, y)| x == y).count() as i64;
    let lcp = if starts_at_minus_one {
        (matched - 1).max(0)
    } else {
        matched
    };
    let longest = a.len().max(b.len()) as f64;
    1.0 - lcp as f64 / longest
}

/// D_ast for a same-file pair: ln(1 + dist) / ln(1 + diameter), diameter taken as 1 when 0.
pub fn d_ast(dist: u32, diameter: u32) -> f64 {
    let diameter = diameter.max(1);
    let v = (1.0 + f64::from(dist)).ln() / (1.0 + f64::from(diameter)).ln();
    v.clamp(0.0, 1.0)
}

/// Div(h_i, h_j) = D_lex · (D_ast + γ·D_file) / (1 + γ).
pub fn pair_divergence(d_lex: f64, d_ast: f64, d_file: f64, gamma: f64) -> f64 {
    d_lex * (d_ast + gamma * d_file) / (1.0 + gamma)
}

/// Div(P) = ln(n) · mean pairwise divergence, in [0, ln n]; 0 for fewer than two hunks.
pub fn patch_divergence(n: usize, pair_divs: &[f64]) -> f64 {
    if n < 2 || pair_divs.is_empty() {
        return 0.0;
    }
    let mean = pair_divs.iter().sum::<f64>() / pair_divs.len() as f64;
    (n as f64).ln() * mean
}

/// Java `String.hashCode`.
fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// Iteration order of a Java `HashMap<String, _>` after inserting "0".."n−1" in order
/// (capacity 16, doubling past 0.75 load; bucket = (h ^ h>>>16) & (cap − 1); buckets
/// ascending, insertion order within a bucket), for the released pipeline's pair keys.
pub fn java_hashmap_order(n: usize) -> Vec<usize> {
    let mut cap = 16usize;
    while n > cap * 3 / 4 {
        cap *= 2;
    }
    // Resizing preserves relative order within each new bucket, so the final order is
    // the final bucket index, then insertion order.
    let mut keyed: Vec<(usize, usize)> = (0..n)
        .map(|i| {
            let h = java_string_hash(&i.to_string()) as u32;
            let spread = h ^ (h >> 16);
            ((spread as usize) & (cap - 1), i)
        })
        .collect();
    keyed.sort();
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// For each pair (i, j), i < j, whether the released pipeline wrote its key as "j_i".
pub fn reversed_pairs(n: usize) -> Vec<Vec<bool>> {
    let order = java_hashmap_order(n);
    let mut pos = vec![0usize; n];
    for (p, &id) in order.iter().enumerate() {
        pos[id] = p;
    }
    (0..n)
        .map(|i| (0..n).map(|j| i < j && pos[j] < pos[i]).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Div(P) for n hunks whose pairs all have divergence `d`.
    fn uniform(n: usize, d: f64) -> f64 {
        let pairs = vec![d; n * (n - 1) / 2];
        patch_divergence(n, &pairs)
    }

    #[test]
    fn papers_worked_examples() {
        assert_eq!(uniform(5, 0.0), 0.0, "5 identical hunks");
        assert!(
            (uniform(5, 1.0) - 5f64.ln()).abs() < 1e-12,
            "all pairs at 1 → ln 5"
        );
        assert!(
            (uniform(5, 0.5) - 0.5 * 5f64.ln()).abs() < 1e-12,
            "mean 0.5 → 0.5·ln 5"
        );
        assert!((5f64.ln() - 1.6094).abs() < 1e-4);
    }

    #[test]
    fn d_file_both_counting_rules() {
        let a = "src/main/java/org/apache/commons/lang3/A.java";
        let b = "src/main/java/org/apache/commons/lang3/B.java";
        // 7 shared segments of 8: released code counts 6.
        assert!((d_file(a, b, true) - 0.25).abs() < 1e-12);
        assert!((d_file(a, b, false) - 0.125).abs() < 1e-12);
        assert_eq!(d_file(a, a, true), 0.0);
        assert_eq!(d_file("x/A.java", "y/B.java", true), 1.0);
    }

    #[test]
    fn d_ast_edges() {
        assert_eq!(d_ast(0, 10), 0.0);
        assert!((d_ast(10, 10) - 1.0).abs() < 1e-12);
        assert_eq!(d_ast(0, 0), 0.0);
        // ln 4 / ln 16 = 0.5
        assert!((d_ast(3, 15) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn header_anchor_span_assumes_three_context_lines() {
        let span = |c, d| {
            let s = header_anchor_span(c, d);
            (s.start, s.end)
        };
        // Full context (d ≥ 6): the lines between three context lines each side.
        assert_eq!(span(53, 13), (56, 62));
        assert_eq!(span(40, 6), (43, 42), "one inserted line: end = start − 1");
        // d < 6 away from the file start: end = start.
        assert_eq!(span(10, 4), (13, 13));
        assert_eq!(span(10, 5), (13, 13));
        // At the file start (c ≤ 3) the d ≥ 6 formula holds whatever d is.
        assert_eq!(span(3, 5), (6, 4));
        assert_eq!(span(1, 4), (4, 1));
        // An end below line 1 comes back as 0: every node covers it.
        assert_eq!(span(1, 2), (4, 0));
        assert_eq!(span(0, 0), (3, 0));
        // Only the profile reproducing the published numbers reads the header.
        assert!(Profile::Hunk4jPublished.switches().header_anchor_span);
        assert!(!Profile::Hunk4j.switches().header_anchor_span);
        assert!(!Profile::Algorithm1.switches().header_anchor_span);
    }

    #[test]
    fn hashmap_order_inverts_first_at_twelve() {
        for n in 2..=11 {
            assert_eq!(java_hashmap_order(n), (0..n).collect::<Vec<_>>(), "n = {n}");
        }
        let order = java_hashmap_order(12);
        assert_eq!(order, vec![0, 11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        let rev = reversed_pairs(12);
        assert!(rev[1][11] && rev[10][11] && !rev[0][11] && !rev[1][2]);
        assert_eq!(java_string_hash("10"), 1567);
        assert_eq!(java_string_hash("hello"), 99_162_322);
    }

    proptest! {
        #[test]
        fn divergence_bounds(
            comps in proptest::collection::vec((0.0f64..=1.0, 0.0f64..=1.0, 0.0f64..=1.0, prop_oneof![Just(0.0), Just(1.0), Just(2.0)]), 1..60),
            extra in 0usize..5,
        ) {
            let divs: Vec<f64> = comps.iter().map(|&(l, a, f, g)| pair_divergence(l, a, f, g)).collect();
            for d in &divs {
                prop_assert!((0.0..=1.0 + 1e-12).contains(d));
            }
            let n = 2 + extra;
            let p = patch_divergence(n, &divs);
            prop_assert!(p >= 0.0 && p <= (n as f64).ln() + 1e-12);
        }

        #[test]
        fn d_file_in_unit_interval(a in "[a-c]{1,2}(/[a-c]{1,2}){0,4}", b in "[a-c]{1,2}(/[a-c]{1,2}){0,4}", m in any::<bool>()) {
            let d = d_file(&a, &b, m);
            prop_assert!((0.0..=1.0).contains(&d));
        }
    }
}
