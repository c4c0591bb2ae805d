//! `hunkgen annotate`: one patch against a directory or a git revision.
use crate::common::hunkgen;

use std::fs;
use std::path::Path;

const BUGGY: &str = "package demo;

class Calc {
    int add(int a, int b) {
        return a - b;
    }

    int twice(int a) {
        return a + 1;
    }
}
";

/// Forward fix of two methods of one file: a Cluster.
const FIX: &str = "--- a/src/demo/Calc.java
+++ b/src/demo/Calc.java
@@ -4,3 +4,3 @@ class Calc {
     int add(int a, int b) {
-        return a - b;
+        return a + b;
     }
@@ -8,3 +8,3 @@ class Calc {
     int twice(int a) {
-        return a + 1;
+        return a * 2;
     }
";

fn tree(dir: &Path) {
    fs::create_dir_all(dir.join("src/demo")).expect("mkdir");
    fs::write(dir.join("src/demo/Calc.java"), BUGGY).expect("write");
    fs::write(dir.join("fix.patch"), FIX).expect("write");
}

#[test]
fn annotates_a_patch_against_a_directory() {
    let dir = tempfile::tempdir().expect("tempdir");
    tree(dir.path());
    let out = hunkgen()
        .arg("annotate")
        .arg(dir.path().join("fix.patch"))
        .arg("--root")
        .arg(dir.path())
        .arg("--json")
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    assert_eq!(v["n"], 2);
    assert_eq!(v["proximity"], "Cluster");
    assert_eq!(v["hunks"][0]["place"]["method"], "Calc.add(int,int)");
    assert_eq!(v["hunks"][1]["place"]["method"], "Calc.twice(int)");
    let pair = &v["pairs"][0];
    // Same file: γ = 0 and Div = D_lex · D_ast.
    assert_eq!(pair["gamma"], 0.0);
    let (lex, ast, div) = (
        pair["d_lex"].as_f64().expect("d_lex"),
        pair["d_ast"].as_f64().expect("d_ast"),
        pair["div"].as_f64().expect("div"),
    );
    assert!(ast > 0.0 && ast < 1.0, "{ast}");
    assert!((div - lex * ast).abs() < 1e-12);
    let total = v["divergence"].as_f64().expect("divergence");
    assert!((total - 2f64.ln() * div).abs() < 1e-12);
    // The table form names the methods too.
    hunkgen()
        .arg("annotate")
        .arg(dir.path().join("fix.patch"))
        .arg("--root")
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicates::str::contains("proximity Cluster"));
}

#[test]
fn a_patch_that_does_not_apply_is_one_clear_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    tree(dir.path());
    fs::write(
        dir.path().join("src/demo/Calc.java"),
        BUGGY.replace("a - b", "a % b"),
    )
    .expect("write");
    let out = hunkgen()
        .arg("annotate")
        .arg(dir.path().join("fix.patch"))
        .arg("--root")
        .arg(dir.path())
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("fix.patch: does not apply: src/demo/Calc.java: hunk #1"),
        "{err}"
    );
    assert!(err.contains("a % b"), "{err}");
}

#[test]
fn reversed_patch_against_a_git_revision() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = git2::Repository::init(dir.path().join("repo")).expect("init");
    // The repository holds the FIXED file; the Defects4J-style patch turns it buggy.
    let fixed = BUGGY.replace("a - b", "a + b").replace("a + 1", "a * 2");
    let blob = repo.blob(fixed.as_bytes()).expect("blob");
    let mut sub = repo.treebuilder(None).expect("tb");
    sub.insert("Calc.java", blob, 0o100644).expect("insert");
    let demo = sub.write().expect("write");
    let mut src = repo.treebuilder(None).expect("tb");
    src.insert("demo", demo, 0o040000).expect("insert");
    let src_id = src.write().expect("write");
    let mut root = repo.treebuilder(None).expect("tb");
    root.insert("src", src_id, 0o040000).expect("insert");
    let tree_id = root.write().expect("write");
    let tree = repo.find_tree(tree_id).expect("tree");
    let sig = git2::Signature::new("t", "t@example.invalid", &git2::Time::new(0, 0)).expect("sig");
    let commit = repo
        .commit(Some("HEAD"), &sig, &sig, "fixed", &tree, &[])
        .expect("commit");
    let reversed: String = FIX
        .lines()
        .map(|l| {
            if let Some(r) = l.strip_prefix("-        ") {
                format!("+        {r}")
            } else if let Some(r) = l.strip_prefix("+        ") {
                format!("-        {r}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    fs::write(dir.path().join("d4j.patch"), reversed).expect("write");
    let out = hunkgen()
        .arg("annotate")
        .arg(dir.path().join("d4j.patch"))
        .arg("--reversed")
        .arg("--repo")
        .arg(dir.path().join("repo"))
        .arg("--rev")
        .arg(commit.to_string())
        .arg("--json")
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    assert_eq!(v["proximity"], "Cluster");
    assert_eq!(v["hunks"][0]["span"]["start"], 5);
    assert!(v["divergence"].as_f64().expect("div") > 0.0);

    hunkgen()
        .arg("annotate")
        .arg(dir.path().join("d4j.patch"))
        .args(["--reversed", "--rev", "no-such-rev", "--repo"])
        .arg(dir.path().join("repo"))
        .assert()
        .code(1)
        .stderr(predicates::str::contains("unknown revision `no-such-rev`"));
}

const STATS: &str = "def mean(xs):
    total = sum(xs)
    n = len(xs)
    first = xs[0]
    last = xs[-1]
    return total / n


def spread(xs):
    lo = min(xs)
    hi = max(xs)
    return hi - lo
";

/// Two hunks in `mean`: one inserts after its first line, one appends to its body (a
/// pure insertion after its last line, indented as the body).
const PY_FIX: &str = "--- a/pkg/stats.py
+++ b/pkg/stats.py
@@ -1,3 +1,5 @@
 def mean(xs):
+    if not xs:
+        raise ValueError(\"mean of empty data\")
     total = sum(xs)
     n = len(xs)
@@ -4,6 +6,7 @@ def mean(xs):
     first = xs[0]
     last = xs[-1]
     return total / n
+    del first, last
 
 
 def spread(xs):
";

/// Runs `hunkgen annotate --json` on `patch` against `dir` with extra arguments.
fn annotate_json(dir: &Path, patch: &str, extra: &[&str]) -> serde_json::Value {
    fs::write(dir.join("fix.patch"), patch).expect("write");
    let out = hunkgen()
        .arg("annotate")
        .arg(dir.join("fix.patch"))
        .arg("--root")
        .arg(dir)
        .args(extra)
        .arg("--json")
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).expect("json")
}

#[test]
fn python_packages_are_modules_and_tail_insertions_belong_to_the_function() {
    let dir = tempfile::tempdir().expect("tempdir");
    for pkg in ["pkg", "src/other"] {
        fs::create_dir_all(dir.path().join(pkg)).expect("mkdir");
        fs::write(dir.path().join(pkg).join("__init__.py"), "").expect("write");
        fs::write(dir.path().join(pkg).join("stats.py"), STATS).expect("write");
    }
    let v = annotate_json(dir.path(), PY_FIX, &[]);
    assert_eq!(v["n"], 2);
    for h in 0..2 {
        assert_eq!(v["hunks"][h]["place"]["method"], "mean(xs)", "hunk {h}");
        assert_eq!(
            v["hunks"][h]["place"]["package"],
            serde_json::json!(["pkg"])
        );
        assert_eq!(v["hunks"][h]["place"]["declared_package"], "pkg");
    }
    // Both hunks in one function: a Nucleus, not "code outside methods".
    assert_eq!(v["proximity"], "Nucleus");

    // The same module under src/ is in package `other`, not `src/other` or nothing.
    let src_layout = PY_FIX.replace("pkg/stats.py", "src/other/stats.py");
    let v = annotate_json(dir.path(), &src_layout, &[]);
    assert_eq!(
        v["hunks"][0]["place"]["package"],
        serde_json::json!(["other"])
    );
    // HUNK4J's directory rule, on request, drops the first segment instead.
    let v = annotate_json(dir.path(), &src_layout, &["--packages", "directories"]);
    assert_eq!(
        v["hunks"][0]["place"]["package"],
        serde_json::json!(["other"])
    );
    let v = annotate_json(dir.path(), PY_FIX, &["--packages", "directories"]);
    assert_eq!(v["hunks"][0]["place"]["package"], serde_json::json!([]));
}
