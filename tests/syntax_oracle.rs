//! Cross-checks hunkgen's JavaParser-shaped tree against real JavaParser (tests/oracle).
//!
//! Needs a JDK (`javac`, `java`) and Debian's `libjavaparser-java` (or the jar named by
//! `HUNKGEN_JAVAPARSER_JAR`); the test fails, never skips, when they are missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use hunkgen::diff::Span;
use hunkgen::syntax::{parse_file, AnchorRule, Lang, TreeShape};

const FIXTURES: &[(&str, &str)] = &[
    ("Nested.java", include_str!("oracle/fixtures/Nested.java")),
    ("Lambdas.java", include_str!("oracle/fixtures/Lambdas.java")),
    ("Enums.java", include_str!("oracle/fixtures/Enums.java")),
    ("Control.java", include_str!("oracle/fixtures/Control.java")),
    ("Annots.java", include_str!("oracle/fixtures/Annots.java")),
    ("Fields.java", include_str!("oracle/fixtures/Fields.java")),
    (
        "Generics.java",
        include_str!("oracle/fixtures/Generics.java"),
    ),
    ("Ctors.java", include_str!("oracle/fixtures/Ctors.java")),
    (
        "Switches.java",
        include_str!("oracle/fixtures/Switches.java"),
    ),
    ("Misc.java", include_str!("oracle/fixtures/Misc.java")),
];

fn jar() -> PathBuf {
    let p = std::env::var_os("HUNKGEN_JAVAPARSER_JAR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/share/java/javaparser-core.jar"));
    assert!(
        p.is_file(),
        "JavaParser jar not found at {} — install Debian's libjavaparser-java \
         (apt-get install libjavaparser-java) or set HUNKGEN_JAVAPARSER_JAR",
        p.display()
    );
    p
}

/// Compiles JpOracle.java into `dir`.
fn build_oracle(dir: &Path, jar: &Path) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/JpOracle.java");
    let out = Command::new("javac")
        .arg("-cp")
        .arg(jar)
        .arg("-d")
        .arg(dir)
        .arg(&src)
        .output()
        .unwrap_or_else(|e| panic!("cannot run javac (install a JDK): {e}"));
    assert!(
        out.status.success(),
        "javac failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Spans every line, a few multi-line ranges and a few pure insertions.
fn spans_for(src: &str) -> Vec<Span> {
    let n = src.lines().count() as u32;
    let mut v: Vec<Span> = (1..=n).map(|l| Span { start: l, end: l }).collect();
    for l in (2..n).step_by(5) {
        v.push(Span {
            start: l,
            end: (l + 2).min(n),
        });
        v.push(Span {
            start: l,
            end: l - 1,
        });
    }
    v
}

/// hunkgen's answer in the oracle's output format.
fn ours(src: &str, spans: &[Span]) -> Vec<String> {
    let f = parse_file(Lang::Java, src.as_bytes(), TreeShape::JavaParser);
    assert_eq!(f.error_count(), 0, "fixture does not parse cleanly");
    let mut out = vec![format!("diameter {}", f.diameter())];
    let anchors: Vec<_> = spans
        .iter()
        .map(|s| f.anchor(*s, AnchorRule::Covering))
        .collect();
    for (k, a) in anchors.iter().enumerate() {
        let (b, e) = f.lines(*a);
        out.push(format!("anchor {k} {b} {e} {} {}", f.depth(*a), f.kind(*a)));
    }
    for i in 0..anchors.len() {
        for j in i + 1..anchors.len() {
            out.push(format!(
                "dist {i} {j} {}",
                f.distance(anchors[i], anchors[j])
            ));
        }
    }
    out
}

fn oracle(cp: &str, file: &Path, spans: &[Span]) -> Vec<String> {
    let out = Command::new("java")
        .arg("-Xss64m")
        .arg("-cp")
        .arg(cp)
        .arg("JpOracle")
        .arg(file)
        .args(spans.iter().map(|s| format!("{}:{}", s.start, s.end)))
        .output()
        .unwrap_or_else(|e| panic!("cannot run java: {e}"));
    assert!(
        out.status.success(),
        "oracle failed on {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with("nodes "))
        .map(str::to_owned)
        .collect()
}

/// Compares one line of each side: anchors by lines and depth only (kind names differ
/// between the two node models).
fn same(a: &str, b: &str) -> bool {
    if a.starts_with("anchor ") && b.starts_with("anchor ") {
        let x: Vec<_> = a.split(' ').take(5).collect();
        let y: Vec<_> = b.split(' ').take(5).collect();
        return x == y;
    }
    a == b
}

#[test]
fn javaparser_shape_matches_javaparser() {
    let jar = jar();
    let dir = tempfile::tempdir().unwrap();
    build_oracle(dir.path(), &jar);
    let cp = format!("{}:{}", jar.display(), dir.path().display());
    let mut report = Vec::new();
    let (mut diam_ok, mut pairs, mut pairs_ok) = (0, 0, 0);
    for (name, src) in FIXTURES {
        let path = dir.path().join(name);
        std::fs::write(&path, src).unwrap();
        let spans = spans_for(src);
        let want = oracle(&cp, &path, &spans);
        let got = ours(src, &spans);
        assert_eq!(want.len(), got.len(), "{name}: output shapes differ");
        for (w, g) in want.iter().zip(&got) {
            let ok = same(w, g);
            if w.starts_with("diameter") && ok {
                diam_ok += 1;
            }
            if w.starts_with("dist") {
                pairs += 1;
                pairs_ok += ok as usize;
            }
            if !ok && !w.starts_with("dist") {
                report.push(format!("{name}: javaparser `{w}` vs hunkgen `{g}`"));
            }
        }
    }
    eprintln!(
        "diameters {diam_ok}/{} equal, anchor distances {pairs_ok}/{pairs} equal",
        FIXTURES.len()
    );
    assert!(report.is_empty(), "mismatches:\n{}", report.join("\n"));
    assert_eq!(pairs_ok, pairs);
}
