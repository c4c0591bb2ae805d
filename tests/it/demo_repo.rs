//! The embedded demo: its scripted history builds, and mining it finds exactly the seven
//! multi-hunk fix commits (six real fixes and one that validation rejects).

use crate::common::git;
use hunkgen::classify::Classifier;
use hunkgen::git::FixCommit;
use hunkgen::progress::Progress;
use hunkgen::source::git_history::mine;
use hunkgen::source::rules::GitSourceConfig;
use std::path::{Path, PathBuf};
use std::process::Command;

fn build_demo(out: &Path) -> String {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("demo/build-repo.sh");
    let res = Command::new("sh").arg(&script).arg(out).output().unwrap();
    assert!(
        res.status.success(),
        "build-repo.sh failed: {}",
        String::from_utf8_lossy(&res.stderr)
    );
    String::from_utf8(res.stdout).unwrap().trim().to_string()
}

const WRAP: &str = "java/src/main/java/org/acme/text/Wrap.java";
const PAD: &str = "java/src/main/java/org/acme/text/Pad.java";
const RECORD: &str = "java/src/main/java/org/acme/text/Record.java";
const MONEY: &str = "java/src/main/java/org/acme/num/Money.java";
const FRACTION: &str = "java/src/main/java/org/acme/num/Fraction.java";
const MATHUTIL: &str = "java/src/main/java/org/acme/num/MathUtil.java";
const RECORD_PY: &str = "python/acme_x/record.py";
const STATS_PY: &str = "python/acme_x/stats.py";

/// (subject, code files, code hunks) of every fix the demo is designed to yield, oldest first.
const EXPECTED: &[(&str, &[&str], usize)] = &[
    (
        "Fix word wrapping at the exact width and of a one-letter last line",
        &[WRAP],
        2,
    ),
    (
        "Fix lost sign of negative amounts in Money.parse and Money.format",
        &[MONEY],
        2,
    ),
    (
        "Fix sign normalisation of fractions with a negative denominator",
        &[FRACTION, MATHUTIL],
        2,
    ),
    (
        "Fix zero-padded money columns: width and minus sign",
        &[MONEY, PAD],
        2,
    ),
    (
        "Fix round trip of backslashes in the record format (Java and Python)",
        &[RECORD, RECORD_PY],
        2,
    ),
    (
        "Fix median of even-sized samples and percentile rank rounding",
        &[STATS_PY],
        2,
    ),
    // Mined like the others, but its new test passes before the change too: golden-test
    // validation rejects it (no FAIL_TO_PASS).
    (
        "Fix empty-data check of mean and the percentile rank arithmetic",
        &[STATS_PY],
        2,
    ),
];

fn subject(f: &FixCommit) -> &str {
    f.message.lines().next().unwrap_or("")
}

/// Package of a file per ARCHITECTURE §4: directory segments without the first path segment.
fn package(path: &str) -> Vec<&str> {
    let mut segs: Vec<&str> = path.split('/').collect();
    segs.pop();
    segs.into_iter().skip(1).collect()
}

fn lcp(a: &[&str], b: &[&str]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

#[test]
fn demo_builds_deterministically_and_yields_the_designed_fixes() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("acme");
    let head = build_demo(&repo);
    assert_eq!(head.len(), 40);
    // Rebuilding over a previous demo repository is allowed and gives the same history.
    assert_eq!(build_demo(&repo), head);

    let fixes = mine(
        &repo,
        &GitSourceConfig::default(),
        &Classifier::default(),
        &Progress::hidden(),
    )
    .unwrap()
    .fixes;
    let got: Vec<(&str, Vec<&str>, usize)> = fixes
        .iter()
        .map(|f| {
            let mut files: Vec<&str> = f.patch.files.iter().map(|p| p.path()).collect();
            files.sort_unstable();
            (subject(f), files, f.code_hunks)
        })
        .collect();
    let want: Vec<(&str, Vec<&str>, usize)> = EXPECTED
        .iter()
        .map(|(s, files, h)| {
            let mut files = files.to_vec();
            files.sort_unstable();
            (*s, files, *h)
        })
        .collect();
    assert_eq!(got, want);
    for f in &fixes {
        assert!(
            !f.test_patch.files.is_empty(),
            "{} has no test changes",
            subject(f)
        );
    }

    // The README's proximity arithmetic: λ = ⌊median package depth / 2⌋ = 3, the Sprawl
    // fix's packages share 5 segments (> λ), the Fragment fix's share none (≤ λ).
    let mut depths: Vec<usize> = fixes
        .iter()
        .flat_map(|f| {
            f.patch
                .files
                .iter()
                .flat_map(|p| std::iter::repeat_n(package(p.path()).len(), p.hunks.len()))
        })
        .collect();
    depths.sort_unstable();
    assert_eq!(depths.len(), 14);
    let median = (depths[6] + depths[7]) as f64 / 2.0;
    assert_eq!((median / 2.0).floor() as usize, 3);
    assert_eq!(lcp(&package(MONEY), &package(PAD)), 5);
    assert_eq!(lcp(&package(RECORD), &package(RECORD_PY)), 0);
}

#[test]
fn build_script_refuses_to_overwrite_other_directories() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("keep.txt"), "precious").unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("demo/build-repo.sh");
    let res = Command::new("sh")
        .arg(&script)
        .arg(tmp.path())
        .output()
        .unwrap();
    assert!(!res.status.success());
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(err.contains("refusing to overwrite"), "{err}");
    assert!(tmp.path().join("keep.txt").exists());
}

/// Run the Python unit tests (plain unittest, no pytest needed) in `tree/python`.
fn python_tests_pass(tree: &Path) -> bool {
    Command::new("python3")
        .current_dir(tree.join("python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .args(["-m", "unittest", "discover", "-q", "-s", "tests", "-t", "."])
        .output()
        .unwrap()
        .status
        .success()
}

#[test]
fn python_fixes_fail_before_and_pass_after() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("acme");
    build_demo(&repo);
    let fixes = mine(
        &repo,
        &GitSourceConfig::default(),
        &Classifier::default(),
        &Progress::hidden(),
    )
    .unwrap()
    .fixes;
    // The real Python fixes (#11 is mined but changes no behaviour; see the next test).
    let python: Vec<&FixCommit> = fixes
        .iter()
        .filter(|f| f.patch.files.iter().any(|p| p.path().ends_with(".py")))
        .filter(|f| !subject(f).starts_with("Fix empty-data check of mean"))
        .collect();
    assert_eq!(python.len(), 2);
    for fix in python {
        // Buggy revision plus the fix's test changes: some test must fail...
        let buggy = buggy_with_tests(
            &repo,
            fix,
            &tmp.path().join(format!("buggy-{}", &fix.id[..7])),
        );
        assert!(!python_tests_pass(&buggy), "{} passes before", subject(fix));
        // ...and the fixed revision passes.
        let fixed = worktree(
            &repo,
            &fix.id,
            &tmp.path().join(format!("fixed-{}", &fix.id[..7])),
        );
        assert!(python_tests_pass(&fixed), "{} fails after", subject(fix));
    }
}

/// Commit #11 is mined (fix words, code + test, two hunks) but its new test passes on its
/// parent too: the case golden-test validation exists to reject.
#[test]
fn the_behaviour_preserving_fix_passes_before_as_well() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("acme");
    build_demo(&repo);
    let fixes = mine(
        &repo,
        &GitSourceConfig::default(),
        &Classifier::default(),
        &Progress::hidden(),
    )
    .unwrap()
    .fixes;
    let fix = fixes
        .iter()
        .find(|f| subject(f).starts_with("Fix empty-data check of mean"))
        .expect("#11 is mined");
    let buggy = buggy_with_tests(&repo, fix, &tmp.path().join("buggy"));
    assert!(
        python_tests_pass(&buggy),
        "its test passes before the change"
    );
}

/// A detached worktree of `rev` at `dir`.
fn worktree(repo: &Path, rev: &str, dir: &Path) -> std::path::PathBuf {
    git(
        repo,
        &[
            "worktree",
            "add",
            "-q",
            "--detach",
            dir.to_str().unwrap(),
            rev,
        ],
    );
    dir.to_path_buf()
}

/// The fix's parent with the fix's test changes applied: what its tests see before it.
fn buggy_with_tests(repo: &Path, fix: &FixCommit, dir: &Path) -> std::path::PathBuf {
    let buggy = worktree(repo, &fix.parent, dir);
    let test_patch = buggy.join("test.patch");
    std::fs::write(&test_patch, fix.test_patch.to_bytes()).unwrap();
    git(&buggy, &["apply", test_patch.to_str().unwrap()]);
    std::fs::remove_file(&test_patch).unwrap();
    buggy
}
