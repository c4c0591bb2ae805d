//! Unit tests of the annotation engine: the reversed-key defect, published lexical
//! text and anchor spans, literals and terms.

use super::*;

/// A buggy file of `n` one-line methods and a forward patch changing each method body.
fn twelve_hunks(n: usize) -> (String, Patch) {
    let mut src = String::from("class A {\n");
    let mut patch = String::from("--- a/A.java\n+++ b/A.java\n");
    for k in 0..n {
        // Each method spans 5 lines: lines 2+5k .. 6+5k.
        src.push_str(&format!(
            "  int m{k}() {{\n    int x = {k};\n    return x;\n  }}\n\n"
        ));
        let line = 3 + 5 * k;
        patch.push_str(&format!(
            "@@ -{line},1 +{line},1 @@\n-    int x = {k};\n+    int x = {k} + {k};\n"
        ));
    }
    src.push_str("}\n");
    (
        src,
        crate::diff::parse(patch.as_bytes()).expect("patch parses"),
    )
}

struct OneFile(String);
impl BuggyFiles for OneFile {
    fn buggy(&self, _path: &str) -> Result<Vec<u8>, crate::source::files::Unavailable> {
        Ok(self.0.clone().into_bytes())
    }
}

#[test]
fn reversed_key_defect_zeroes_only_inverted_same_file_pairs() {
    let (src, patch) = twelve_hunks(12);
    let rules = CountRules {
        classifier: crate::classify::Classifier::default(),
        skip_created_files: false,
        skip_import_only_hunks: false,
    };
    let run = |profile| {
        let mut annotator = Annotator::new(profile, Tokenizer::default());
        // The fixture's hunks have no context lines: keep the changed-line span so
        // that only the reversed keys tell the two profiles apart.
        annotator.switches.header_anchor_span = false;
        annotator
            .annotate(
                &patch,
                &Patch::default(),
                &rules,
                &[],
                &OneFile(src.clone()),
                PackageRule::Directories,
            )
            .divergence
            .expect("divergence")
    };
    let plain = run(Profile::Hunk4j);
    let published = run(Profile::Hunk4jPublished);
    assert_eq!(plain.pairs.len(), 66);
    let inverted = divergence::reversed_pairs(12);
    for (a, b) in plain.pairs.iter().zip(&published.pairs) {
        assert_eq!((a.i, a.j), (b.i, b.j));
        assert!(
            a.d_ast.is_some_and(|d| d > 0.0),
            "distinct methods are apart"
        );
        if inverted[a.i][a.j] {
            assert_eq!(
                b.d_ast,
                Some(0.0),
                "pair {}_{} is looked up reversed",
                a.i,
                a.j
            );
        } else {
            assert_eq!(a.d_ast, b.d_ast);
        }
    }
    // "1" and "11" share a bucket with "0": ten pairs (k, 11) for k = 1..=10 invert.
    let count = inverted.iter().flatten().filter(|x| **x).count();
    assert_eq!(count, 10);
    assert!(published.value.expect("value") < plain.value.expect("value"));
}

fn default_rules() -> CountRules {
    CountRules {
        classifier: crate::classify::Classifier::default(),
        skip_created_files: true,
        skip_import_only_hunks: true,
    }
}

#[test]
fn published_lex_text_is_taken_by_patch_position() {
    // The patch lists B.java, a non-code file, then A.java; modified_classes puts A
    // first. Counted ids: 0 = a0, 1 = a1, 2 = b0, 3 = b1; patch positions: 0 = b0,
    // 1 = b1, 2 = notes.txt (not counted), 3 = a0, 4 = a1.
    let file = |name: &str, words: [&str; 2]| {
        let mut f = format!("--- a/src/p/{name}\n+++ b/src/p/{name}\n");
        for (k, w) in words.iter().enumerate() {
            let line = 2 + 10 * k;
            f.push_str(&format!(
                "@@ -{line},1 +{line},1 @@\n-    int {w} = {k};\n+    int {w} = call({w}, {k});\n"
            ));
        }
        f
    };
    let text = format!(
        "{}--- a/notes.txt\n+++ b/notes.txt\n@@ -1,1 +1,1 @@\n-old note here\n+new note here\n{}",
        file("B.java", ["beta", "bravo"]),
        file("A.java", ["alpha", "alfa"])
    );
    let patch = crate::diff::parse(text.as_bytes()).expect("patch parses");
    let by_position: Vec<&Hunk> = patch.files.iter().flat_map(|f| &f.hunks).collect();
    assert_eq!(by_position.len(), 5);
    let classes = ["p.A".to_string(), "p.B".to_string()];
    let run = |profile: Profile| {
        let annotator = Annotator::new(profile, Tokenizer::default());
        let ann = annotator.annotate(
            &patch,
            &Patch::default(),
            &default_rules(),
            &classes,
            &crate::source::files::NoSources(crate::source::files::Unavailable::new(
                crate::model::NoteKind::NoRepository,
                "no sources in this test",
            )),
            PackageRule::Directories,
        );
        (annotator, ann)
    };
    let d_lex = |a: &Annotator, x: &Hunk, y: &Hunk| {
        let mut interner = Interner::default();
        let tx = interner.ids(&a.tokenizer.tokenize(&a.hunk_text(x)));
        let ty = interner.ids(&a.tokenizer.tokenize(&a.hunk_text(y)));
        1.0 - sentence_bleu4_ids(&tx, &ty)
    };
    for profile in [Profile::Hunk4j, Profile::Hunk4jPublished] {
        let (annotator, ann) = run(profile);
        // Ids follow modified_classes either way.
        let order: Vec<(usize, usize)> = ann.places.iter().map(|(ix, p)| (*ix, p.order)).collect();
        assert_eq!(order, [(3, 0), (4, 1), (0, 2), (1, 3)], "{profile:?}");
        let own = [3, 4, 0, 1];
        let div = ann.divergence.expect("divergence");
        assert_eq!(div.pairs.len(), 6);
        for p in &div.pairs {
            let (x, y) = if profile == Profile::Hunk4jPublished {
                (p.i, p.j)
            } else {
                (own[p.i], own[p.j])
            };
            let want = d_lex(&annotator, by_position[x], by_position[y]);
            assert!(
                (p.d_lex - want).abs() < 1e-12,
                "{profile:?} pair {}_{}: {} vs {want}",
                p.i,
                p.j,
                p.d_lex
            );
        }
    }
    // The published pair 2_3 compares the non-code hunk with a0 (position 2 vs 3).
    let (_, plain) = run(Profile::Hunk4j);
    let (_, published) = run(Profile::Hunk4jPublished);
    let pair = |d: &Divergence, i, j| {
        d.pairs
            .iter()
            .find(|p| (p.i, p.j) == (i, j))
            .map(|p| p.d_lex)
            .expect("pair")
    };
    let (plain, published) = (
        plain.divergence.expect("divergence"),
        published.divergence.expect("divergence"),
    );
    assert!((pair(&plain, 2, 3) - pair(&published, 2, 3)).abs() > 1e-6);
}

/// A buggy file whose last line is the class's closing brace (line 13).
const TAIL_SRC: &str = "package p;\n\nclass A {\n  int f() {\n    int x = 1;\n    return x;\n  }\n\n  int g() {\n    int y = 2;\n    return y;\n  }\n}\n";

#[test]
fn published_anchor_span_comes_from_the_header() {
    // Hunk 0 starts at line 1 (no leading context); hunk 1 ends at the file's last
    // line (no trailing context) and changes that line.
    let text = "--- a/A.java\n+++ b/A.java\n\
        @@ -1,4 +1,4 @@\n-package p;\n+package q;\n \n class A {\n   int f() {\n\
        @@ -8,6 +8,7 @@\n \n   int g() {\n     int y = 2;\n     return y;\n   }\n-}\n+  int h() { return 0; }\n+}\n";
    let patch = crate::diff::parse(text.as_bytes()).expect("patch parses");
    let hunks = &patch.files[0].hunks;
    let plain = Annotator::new(Profile::Hunk4j, Tokenizer::default());
    let published = Annotator::new(Profile::Hunk4jPublished, Tokenizer::default());
    let spans = |a: &Annotator| -> Vec<(u32, u32)> {
        hunks
            .iter()
            .map(|h| {
                let s = a.anchor_span(h);
                (s.start, s.end)
            })
            .collect()
    };
    // Changed lines: line 1; line 13.
    assert_eq!(spans(&plain), [(1, 1), (13, 13)]);
    // Header: 1,4 → 4..1 (c ≤ 3); 8,6 → 11..10 (d ≥ 6), short of the changed line.
    assert_eq!(spans(&published), [(4, 1), (11, 10)]);
    let pf = syntax::parse_file(Lang::Java, TAIL_SRC.as_bytes(), TreeShape::JavaParser);
    let anchor =
        |a: &Annotator, h: &Hunk| pf.lines(pf.anchor(a.anchor_span(h), AnchorRule::Covering));
    assert_eq!(
        anchor(&plain, &hunks[1]),
        (3, 13),
        "the class covers line 13"
    );
    assert_eq!(
        anchor(&published, &hunks[1]),
        (10, 10),
        "`int y = 2;` (line 10) covers 11..10"
    );
    // The pair's distance follows: D_ast is computed from the header anchors.
    let dist = |a: &Annotator| {
        let ann = a.annotate(
            &patch,
            &Patch::default(),
            &default_rules(),
            &[],
            &OneFile(TAIL_SRC.to_string()),
            PackageRule::Directories,
        );
        let div = ann.divergence.expect("divergence");
        div.pairs[0].dist.expect("same-file distance")
    };
    let (d_plain, d_published) = (dist(&plain), dist(&published));
    let want = |a: &Annotator| {
        let x = pf.anchor(a.anchor_span(&hunks[0]), AnchorRule::Covering);
        let y = pf.anchor(a.anchor_span(&hunks[1]), AnchorRule::Covering);
        (pf.distance(x, y), pf.diameter())
    };
    assert_eq!(d_plain, want(&plain));
    assert_eq!(d_published, want(&published));
    assert_ne!(d_plain.0, d_published.0);
    // Places (methods, proximity) keep the changed-line span in every profile.
    let places = |a: &Annotator| {
        a.annotate(
            &patch,
            &Patch::default(),
            &default_rules(),
            &[],
            &OneFile(TAIL_SRC.to_string()),
            PackageRule::Directories,
        )
        .places
    };
    assert_eq!(places(&plain), places(&published));
}

#[test]
fn published_anchor_span_ignores_realignment_of_hand_trimmed_headers() {
    // A reversed (fixed → buggy) Defects4J patch whose second hunk states buggy-side
    // start +20 although, after the first hunk's extra line, it lands at 10.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("1.src.patch");
    let reversed = "--- a/A.java\n+++ b/A.java\n\
        @@ -1,2 +1,3 @@\n a\n+b\n c\n\
        @@ -9,1 +20,1 @@\n-e\n+d\n";
    std::fs::write(&path, reversed).expect("write");
    let forward = crate::source::defects4j::read_forward_patch(&path, true).expect("patch reads");
    let h = &forward.files[0].hunks[1];
    assert_eq!((h.old_start, h.old_lines), (10, 1), "realigned");
    assert_eq!(h.old_range_as_written(), (20, 1), "as written");
    let plain = Annotator::new(Profile::Hunk4j, Tokenizer::default());
    let published = Annotator::new(Profile::Hunk4jPublished, Tokenizer::default());
    assert_eq!(plain.anchor_span(h), Span { start: 10, end: 10 });
    assert_eq!(
        published.anchor_span(h),
        divergence::header_anchor_span(20, 1)
    );
    assert_eq!(published.anchor_span(h), Span { start: 23, end: 23 });
}

#[test]
fn literals_and_terms() {
    assert_eq!(
        string_literals(r#"assertEquals("a\"b", f("x"));"#),
        [r#"a\"b"#, "x"]
    );
    assert_eq!(
        code_terms("NumberUtils.createNumber fails for parse_int and Foo. See getX and 1.5."),
        ["NumberUtils.createNumber", "parse_int", "getX"]
    );
    assert_eq!(
        code_terms("Fix lost sign in Money.parse and Money.format (e.g. -1)"),
        ["Money.parse", "Money.format"]
    );
}
