//! Cross-checks hunkgen's JavaParser-shaped tree against real JavaParser (tests/oracle).
//!
//! Needs a JDK (`javac`, `java`) and Debian's `libjavaparser-java` (or the jar named by
//! `HUNKGEN_JAVAPARSER_JAR`); the test fails, never skips, when they are missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use hunkgen::annotate::divergence::header_anchor_span;
use hunkgen::diff::Span;
use hunkgen::syntax::{parse_file, AnchorRule, Lang, TreeShape};

const FIXTURES: &[(&str, &str)] = &[
    (
        "Nested.java",
        include_str!("../oracle/fixtures/Nested.java"),
    ),
    (
        "Lambdas.java",
        include_str!("../oracle/fixtures/Lambdas.java"),
    ),
    ("Enums.java", include_str!("../oracle/fixtures/Enums.java")),
    (
        "Control.java",
        include_str!("../oracle/fixtures/Control.java"),
    ),
    (
        "Annots.java",
        include_str!("../oracle/fixtures/Annots.java"),
    ),
    (
        "Fields.java",
        include_str!("../oracle/fixtures/Fields.java"),
    ),
    (
        "Generics.java",
        include_str!("../oracle/fixtures/Generics.java"),
    ),
    ("Ctors.java", include_str!("../oracle/fixtures/Ctors.java")),
    (
        "Switches.java",
        include_str!("../oracle/fixtures/Switches.java"),
    ),
    ("Misc.java", include_str!("../oracle/fixtures/Misc.java")),
    (
        "Arrays.java",
        include_str!("../oracle/fixtures/Arrays.java"),
    ),
    ("Empty.java", include_str!("../oracle/fixtures/Empty.java")),
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
    let mut out = vec![
        format!("nodes {}", f.node_count()),
        format!("diameter {}", f.diameter()),
    ];
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

/// Runs the oracle once over all jobs (one JVM); returns each file's output lines.
fn oracle(cp: &str, jobs: &[(PathBuf, Vec<Span>)]) -> Vec<Vec<String>> {
    let jobs: Vec<(PathBuf, Vec<String>)> = jobs
        .iter()
        .map(|(file, spans)| {
            let args = spans.iter().map(|s| format!("{}:{}", s.start, s.end));
            (file.clone(), args.collect())
        })
        .collect();
    oracle_args(cp, None, &jobs)
}

/// Runs the oracle with an optional leading flag over jobs given as raw span arguments
/// (`S:E` or a header range `C,D`).
fn oracle_args(cp: &str, flag: Option<&str>, jobs: &[(PathBuf, Vec<String>)]) -> Vec<Vec<String>> {
    let mut args: Vec<String> = flag.map(str::to_string).into_iter().collect();
    for (file, spans) in jobs {
        args.push(file.display().to_string());
        args.extend(spans.iter().cloned());
        args.push("--".into());
    }
    let out = Command::new("java")
        .arg("-Xss64m")
        .arg("-cp")
        .arg(cp)
        .arg("JpOracle")
        .args(&args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run java: {e}"));
    assert!(
        out.status.success(),
        "oracle failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut res: Vec<Vec<String>> = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if line.starts_with("file ") {
            res.push(Vec::new());
        } else if let Some(cur) = res.last_mut() {
            assert!(
                !line.starts_with("error"),
                "JavaParser rejected a fixture: {line}"
            );
            cur.push(line.to_owned());
        }
    }
    assert_eq!(res.len(), jobs.len(), "oracle output lost a file");
    res
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
    let jobs: Vec<(PathBuf, Vec<Span>)> = FIXTURES
        .iter()
        .map(|(name, src)| {
            let path = dir.path().join(name);
            std::fs::write(&path, src).unwrap();
            (path, spans_for(src))
        })
        .collect();
    let answers = oracle(&cp, &jobs);
    for (((name, src), (_, spans)), want) in FIXTURES.iter().zip(&jobs).zip(&answers) {
        let got = ours(src, spans);
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

/// Header ranges `(c, d)` over a file of `n` lines: every start, with counts on both
/// sides of the released rule's branches (d < 6 and d ≥ 6, c ≤ 3 and c > 3), including
/// ranges at the file's first lines whose end falls below line 1 and ranges running
/// past the last line (no trailing context).
fn header_ranges(n: u32) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    for c in 0..=n {
        for d in [0, 1, 3, 4, 5, 6, 7, 9, 13] {
            if c + d <= n + 3 {
                v.push((c, d));
            }
        }
    }
    v
}

#[test]
fn header_span_anchors_match_javaparser() {
    let jar = jar();
    let dir = tempfile::tempdir().unwrap();
    build_oracle(dir.path(), &jar);
    let cp = format!("{}:{}", jar.display(), dir.path().display());
    let jobs: Vec<(PathBuf, Vec<String>)> = FIXTURES
        .iter()
        .map(|(name, src)| {
            let path = dir.path().join(name);
            std::fs::write(&path, src).unwrap();
            let ranges = header_ranges(src.lines().count() as u32);
            let args = ranges.iter().map(|(c, d)| format!("{c},{d}")).collect();
            (path, args)
        })
        .collect();
    let answers = oracle_args(&cp, Some("--anchors"), &jobs);
    let (mut checked, mut below_one, mut report) = (0, 0, Vec::new());
    for ((name, src), want) in FIXTURES.iter().zip(&answers) {
        let f = parse_file(Lang::Java, src.as_bytes(), TreeShape::JavaParser);
        let ranges = header_ranges(src.lines().count() as u32);
        let spans: Vec<&String> = want.iter().filter(|l| l.starts_with("span ")).collect();
        let anchors: Vec<&String> = want.iter().filter(|l| l.starts_with("anchor ")).collect();
        assert_eq!(spans.len(), ranges.len(), "{name}: span lines");
        assert_eq!(anchors.len(), ranges.len(), "{name}: anchor lines");
        for (k, &(c, d)) in ranges.iter().enumerate() {
            let span = header_anchor_span(c, d);
            // The oracle's end may be negative; hunkgen returns it as 0, which every
            // node covers just the same.
            let e: i64 = spans[k]
                .rsplit(' ')
                .next()
                .and_then(|x| x.parse().ok())
                .expect("span line ends in a number");
            below_one += usize::from(e < 1);
            let want_span = format!("span {k} {} {}", span.start, e);
            assert_eq!(spans[k], &want_span, "{name}: range {c},{d}");
            assert_eq!(i64::from(span.end), e.max(0), "{name}: range {c},{d}");
            let a = f.anchor(span, AnchorRule::Covering);
            let (b, en) = f.lines(a);
            let got = format!("anchor {k} {b} {en} {} {}", f.depth(a), f.kind(a));
            if !same(anchors[k], &got) {
                report.push(format!(
                    "{name} {c},{d}: javaparser `{}` vs hunkgen `{got}`",
                    anchors[k]
                ));
            }
            checked += 1;
        }
    }
    eprintln!("{checked} header ranges checked, {below_one} with an end below line 1");
    assert!(below_one > 0, "the file-start branch was exercised");
    assert!(report.is_empty(), "mismatches:\n{}", report.join("\n"));
}
