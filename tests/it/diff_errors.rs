//! Bad input: exact error messages, and no panic on any mutation of real patches.

use hunkgen::diff::{apply_file, parse, ApplyErrorKind, LineKind, ParseErrorKind};

fn d4j(rel: &str) -> Vec<u8> {
    let root = crate::common::d4j_root();
    std::fs::read(root.join(rel)).unwrap()
}

const GOOD: &str = "diff --git a/src/A.java b/src/A.java
index 1111111..2222222 100644
--- a/src/A.java
+++ b/src/A.java
@@ -3,4 +3,5 @@ class A {
 one
-two
+TWO
+extra
 three
 four
";

#[test]
fn truncated_hunk_names_line_and_counts() {
    let text = GOOD.replace(" three\n four\n", "");
    let e = parse(text.as_bytes())
        .unwrap_err()
        .with_file("Lang/patches/1.src.patch");
    assert_eq!(
        e.to_string(),
        "Lang/patches/1.src.patch:10: hunk \"@@ -3,4 +3,5 @@ class A {\" ends after 2 of 4 old \
         lines and 3 of 5 new lines (expected ' ', '-' or '+' line, found end of input)"
    );
    // Cut short by the next file: the found line is named.
    let text = GOOD.replace(" four\n", "diff --git a/B b/B\n");
    let e = parse(text.as_bytes()).unwrap_err();
    assert_eq!(e.line, 11);
    assert!(
        e.to_string().ends_with("found \"diff --git a/B b/B\")"),
        "{e}"
    );
}

#[test]
fn wrong_counts_are_errors() {
    // Header says 3 new lines but the body has 4 (+ one '+' too many).
    let text = GOOD.replace("+3,5", "+3,4");
    let e = parse(text.as_bytes()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "line 11: hunk \"@@ -3,4 +3,4 @@ class A {\" has more new lines than its header counts (4) \
         (found \" four\")"
    );
    // Header counts fewer lines than the body: the leftover body line is reported.
    let text = GOOD.replace("-3,4 +3,5", "-3,3 +3,4");
    let e = parse(text.as_bytes()).unwrap_err();
    assert_eq!(e.line, 11);
    assert!(
        matches!(
            e.kind,
            ParseErrorKind::TooManyLines {
                side: "old",
                total: 3,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn garbage_hunk_header_is_an_error() {
    for bad in [
        "@@ -3,4 +3,5 @",
        "@@ -3,4 3,5 @@",
        "@@ -x +1 @@",
        "@@@ -1 +1 @@@",
    ] {
        let text = GOOD.replace("@@ -3,4 +3,5 @@", bad);
        let e = parse(text.as_bytes()).unwrap_err();
        assert_eq!(e.line, 5, "{bad}");
        assert!(
            matches!(e.kind, ParseErrorKind::BadHunkHeader { .. }),
            "{bad}: {e}"
        );
        assert!(e
            .to_string()
            .contains("expected \"@@ -start[,count] +start[,count] @@\""));
    }
    let e = parse(b"diff --git a/x b/x\n--- a/x\nnot plus\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "line 3: expected a \"+++\" line after the \"---\" line, found \"not plus\""
    );
    let e = parse(b"--- a/x\n+++ b/x\nhello\n").unwrap_err();
    assert!(matches!(e.kind, ParseErrorKind::MissingHunk { .. }));
    let e =
        parse(b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n\\ again\n")
            .unwrap_err();
    assert_eq!(e.line, 7);
    assert!(matches!(e.kind, ParseErrorKind::StrayNoNewline { .. }));
}

#[test]
fn patch_that_does_not_apply_names_file_and_hunk() {
    let fp = &parse(GOOD.as_bytes()).unwrap().files[0];
    let e = apply_file(fp, b"zero\n0\none\ntwo\nthree\nFOUR\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "src/A.java: hunk #1 \"@@ -3,4 +3,5 @@ class A {\": line 6: expected \"four\", found \"FOUR\""
    );
    // A real Defects4J patch on a base whose context differs in one line, in its last hunk.
    let p = (1..=106)
        .map(|id| parse(&d4j(&format!("Math/patches/{id}.src.patch"))).unwrap())
        .find(|p| p.files.iter().any(|f| f.hunks.len() >= 2))
        .expect("a Math patch with a 2-hunk file");
    let fp = p.files.iter().find(|f| f.hunks.len() >= 2).unwrap();
    let n = fp.hunks.len();
    let mut base: Vec<Vec<u8>> = Vec::new();
    for h in &fp.hunks {
        while base.len() + 1 < h.old_start as usize {
            base.push(b"filler\n".to_vec());
        }
        base.extend(
            h.lines
                .iter()
                .filter(|l| l.kind != LineKind::Added)
                .map(|l| l.content.clone()),
        );
    }
    let target = fp.hunks[n - 1].old_start as usize - 1;
    base[target] = b"changed by the test\n".to_vec();
    let e = apply_file(fp, &base.concat()).unwrap_err();
    assert!(matches!(*e.kind, ApplyErrorKind::Mismatch { .. }));
    assert_eq!(e.hunk, Some(n));
    assert_eq!(e.line, Some(target + 1));
    let msg = e.to_string();
    assert!(
        msg.starts_with(&format!("{}: hunk #{n} \"@@ -", fp.path())),
        "{msg}"
    );
    assert!(msg.ends_with("found \"changed by the test\""), "{msg}");
    assert!(!msg.contains('\n'));
}

/// On Ok, the invariants every parse result must keep.
fn check(input: &[u8]) -> bool {
    match parse(input) {
        Ok(p) => {
            let show = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            assert_eq!(show(&p.to_bytes()), show(input));
            let r = p.reversed();
            assert_eq!(show(&r.reversed().to_bytes()), show(input));
            assert_eq!(parse(&r.to_bytes()).as_ref(), Ok(&r), "{}", show(input));
            true
        }
        Err(e) => {
            assert!(!e.to_string().contains('\n'), "one-line errors: {e}");
            assert!(e.line >= 1);
            false
        }
    }
}

#[test]
fn no_panic_on_mutations_of_real_patches() {
    let samples = [
        d4j("Chart/patches/7.src.patch"),             // SVN, CRLF
        d4j("Compress/patches/7.test.patch"),         // not UTF-8
        d4j("Cli/patches/2.src.patch"),               // no newline at end of file
        d4j("JacksonDatabind/patches/65.test.patch"), // rename
        GOOD.as_bytes().to_vec(),
        b"diff --git a/x b/x\nnew file mode 100644\nGIT binary patch\nliteral 3\nKcmZ?w\n\nliteral 0\nHcmV?d\n\n-- \n2.1\n".to_vec(),
    ];
    let (mut runs, mut ok) = (0, 0);
    for s in &samples {
        for cut in 0..=s.len() {
            runs += 1;
            ok += usize::from(check(&s[..cut]));
        }
        for i in 0..s.len() {
            for b in [b'\n', b'@', b'+', b'-', b' ', b'\\', b'\t', 0xff] {
                let mut m = s.clone();
                m[i] = b;
                runs += 1;
                ok += usize::from(check(&m));
            }
        }
    }
    // Random byte strings drawn from diff-ish tokens (xorshift, fixed seed).
    let tokens: [&[u8]; 14] = [
        b"@@ -1,2 +1,2 @@\n",
        b"@@ -0,0 +1 @@\n",
        b"--- a/x\n",
        b"+++ b/x\n",
        b"diff --git a/x b/x\n",
        b" c\n",
        b"-r\n",
        b"+a\n",
        b"\\ No newline at end of file\n",
        b"Index: x\n",
        b"====\n",
        b"\r\n",
        b"\xff",
        b"rename from y\n",
    ];
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..10_000 {
        let mut buf = Vec::new();
        for _ in 0..(x % 12) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf.extend_from_slice(tokens[(x % tokens.len() as u64) as usize]);
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        runs += 1;
        ok += usize::from(check(&buf));
    }
    eprintln!("{runs} mutated inputs, {ok} parsed");
    assert!(runs > 35_000 && ok > 1000 && ok < runs);
}
