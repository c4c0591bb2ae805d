//! CLI behaviour: help, exit codes, and one clear line for each kind of bad input.
use crate::common::hunkgen;

use predicates::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};

const LANG1_FORWARD_REVERSED: &str = "\
diff --git a/src/A.java b/src/A.java
index 1111111..2222222 100644
--- a/src/A.java
+++ b/src/A.java
@@ -1,4 +1,4 @@
 class A {
-  int x = 1;
+  int x = 0;
   int y = 2;
 
@@ -10,3 +10,3 @@ class A {
   void f() {
-    g(1);
+    g(0);
   }
";

/// A one-project Defects4J tree with one two-hunk bug; `patch` replaces its src patch.
fn d4j_tree(root: &Path, patch: &str, header: &str) -> PathBuf {
    let p = root.join("projects/Demo");
    fs::create_dir_all(p.join("patches")).expect("mkdir");
    fs::create_dir_all(p.join("trigger_tests")).expect("mkdir");
    fs::write(
        p.join("active-bugs.csv"),
        format!("{header}\n1,aaaa,bbbb,DEMO-1,https://example.invalid/DEMO-1\n"),
    )
    .expect("csv");
    fs::write(p.join("patches/1.src.patch"), patch).expect("patch");
    fs::write(
        p.join("trigger_tests/1"),
        "--- demo.ATest::testF\njava.lang.AssertionError\n",
    )
    .expect("trigger");
    root.join("projects")
}

const HEADER: &str = "bug.id,revision.id.buggy,revision.id.fixed,report.id,report.url";

fn recipe(root: &Path, body: &str) -> PathBuf {
    let path = root.join("r.yaml");
    fs::write(&path, body).expect("recipe");
    path
}

fn d4j_recipe(root: &Path) -> PathBuf {
    recipe(
        root,
        "name: t\noutput: out\nsource:\n  defects4j:\n    path: projects\nfiles:\n  code_extensions: [java]\n",
    )
}

#[test]
fn help_teaches_and_command_tree_is_consistent() {
    use clap::CommandFactory;
    hunkgen::cli::Cli::command().debug_assert();
    hunkgen()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("build").and(predicate::str::contains("Exit codes")));
    hunkgen()
        .args(["build", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("instances.jsonl"));
    hunkgen().arg("frobnicate").assert().code(2);
}

#[test]
fn builds_a_small_defects4j_tree() {
    let dir = tempfile::tempdir().expect("tempdir");
    d4j_tree(dir.path(), LANG1_FORWARD_REVERSED, HEADER);
    let r = d4j_recipe(dir.path());
    hunkgen()
        .args(["build", "--quiet"])
        .arg(&r)
        .assert()
        .success();
    let jsonl = fs::read_to_string(dir.path().join("out/instances.jsonl")).expect("written");
    assert_eq!(jsonl.lines().count(), 1);
    let v: serde_json::Value = serde_json::from_str(jsonl.trim()).expect("json");
    assert_eq!(v["instance_id"], "Demo_1");
    assert_eq!(v["FAIL_TO_PASS"][0], "demo.ATest::testF");
    // Forward patch: the fix turns 0 back into 1.
    assert!(v["patch"]
        .as_str()
        .unwrap_or("")
        .contains("\n+  int x = 1;\n"));
    assert_eq!(v["stats"]["hunks"], 2);
    let out = hunkgen()
        .args(["stats", "--json"])
        .arg(dir.path().join("out"))
        .assert()
        .success();
    let stats: serde_json::Value =
        serde_json::from_slice(&out.get_output().stdout).expect("stats --json is JSON");
    assert_eq!(stats["table1"][0], serde_json::json!([1, 0, 0]));
    assert_eq!(stats["table2"][0]["project"], "Demo");
    // Without sources a single-file patch's class is undecided: no class counts it.
    let t3 = stats["annotation"]["table3"].as_array().expect("table3");
    assert_eq!(t3.len(), 5);
    assert!(t3.iter().all(|row| row["bugs"] == 0));
    assert_eq!(stats["annotation"]["undecided"], 1);
}

/// A previous dataset named `t` in `out`: a minimal card and a marker instances file.
fn seed_previous(out: &Path) {
    fs::create_dir_all(out).expect("mkdir");
    fs::write(
        out.join("dataset.yaml"),
        "name: t\nschema_version: 2\ntool_version: x\nbuilt_at: x\nsources: []\ncounts: {examined: 0, instances: 0, hunks: 0}\nchecksums: []\nrecipe: ''\n",
    )
    .expect("seed card");
    fs::write(out.join("instances.jsonl"), "previous\n").expect("seed");
}

/// Runs a failing build and checks: exit 1, one line on stderr matching `expected`,
/// and no instances.jsonl written (an earlier one is left untouched).
fn assert_bad(r: &Path, out: &Path, expected: &[&str]) {
    assert_bad_with(r, out, &[], expected)
}

fn assert_bad_with(r: &Path, out: &Path, flags: &[&str], expected: &[&str]) {
    seed_previous(out);
    let assert = hunkgen()
        .args(["build", "--quiet"])
        .args(flags)
        .arg(r)
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    for e in expected {
        assert!(stderr.contains(e), "expected {e:?} in {stderr:?}");
    }
    assert_eq!(
        fs::read_to_string(out.join("instances.jsonl")).expect("kept"),
        "previous\n",
        "a failed build must not touch instances.jsonl"
    );
    let leftovers: Vec<_> = fs::read_dir(out.parent().expect("parent"))
        .expect("ls")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".building-"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "temporary directories left: {leftovers:?}"
    );
}

/// One bad bug becomes a rejection with its reason; the build goes on, and `--strict`
/// turns the rejection into exit 1 (the dataset is written either way).
#[test]
fn malformed_diffs_are_rejected_with_file_and_line() {
    let cases: [(&str, &str, &[&str]); 3] = [
        (
            "truncated hunk",
            "--- a/src/A.java\n+++ b/src/A.java\n@@ -1,4 +1,4 @@\n class A {\n-  int x = 1;\n",
            &["patches/1.src.patch:", "line"],
        ),
        (
            "wrong counts",
            "--- a/src/A.java\n+++ b/src/A.java\n@@ -1,2 +1,9 @@\n class A {\n-  x\n+  y\n",
            &["patches/1.src.patch:"],
        ),
        (
            "garbage header",
            "--- a/src/A.java\n+++ b/src/A.java\n@@ -x,1 +1 @@ nonsense\n-a\n+b\n",
            &["patches/1.src.patch:3"],
        ),
    ];
    for (name, patch, expected) in cases {
        let dir = tempfile::tempdir().expect("tempdir");
        let projects = d4j_tree(dir.path(), patch, HEADER);
        // A second, good bug: the bad one must not take it down.
        let demo = projects.join("Demo");
        fs::write(
            demo.join("active-bugs.csv"),
            format!("{HEADER}\n1,aaaa,bbbb,DEMO-1,u\n2,cccc,dddd,DEMO-2,u\n"),
        )
        .expect("csv");
        fs::write(demo.join("patches/2.src.patch"), LANG1_FORWARD_REVERSED).expect("patch");
        let r = d4j_recipe(dir.path());
        eprintln!("case: {name}");
        let out = dir.path().join("out");
        hunkgen()
            .args(["build", "--quiet"])
            .arg(&r)
            .assert()
            .success()
            .stderr(predicate::str::contains("1 item(s) rejected"));
        let rejected = fs::read_to_string(out.join("rejected.jsonl")).expect("rejected.jsonl");
        assert_eq!(rejected.lines().count(), 1, "{rejected}");
        let row: serde_json::Value = serde_json::from_str(rejected.trim()).expect("json");
        assert_eq!(row["id"], "Demo_1");
        assert_eq!(row["stage"], "mine");
        assert_eq!(row["reason"], "patch_parse");
        for e in expected {
            let detail = row["detail"].as_str().expect("detail");
            assert!(detail.contains(e), "expected {e:?} in {detail:?}");
        }
        let kept = fs::read_to_string(out.join("instances.jsonl")).expect("instances");
        assert!(kept.contains("\"instance_id\":\"Demo_2\""), "{kept}");
        let card = fs::read_to_string(out.join("dataset.yaml")).expect("card");
        assert!(card.contains("rejected: 1"), "{card}");
        assert_bad_with(
            &r,
            &out,
            &["--strict"],
            &["1 item(s) rejected and --strict is on", "Demo_1"],
        );
    }
}

#[test]
fn missing_active_bugs_and_missing_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let projects = d4j_tree(dir.path(), LANG1_FORWARD_REVERSED, HEADER);
    let r = recipe(
        dir.path(),
        "name: t\noutput: out\nsource:\n  defects4j:\n    path: projects\n    projects: [Nope]\n",
    );
    assert_bad(
        &r,
        &dir.path().join("out"),
        &["Nope/active-bugs.csv: missing"],
    );

    fs::write(
        projects.join("Demo/active-bugs.csv"),
        "bug.id,revision.id.buggy,report.id,report.url\n1,a,X,u\n",
    )
    .expect("csv");
    let r = d4j_recipe(dir.path());
    assert_bad(
        &r,
        &dir.path().join("out"),
        &["Demo/active-bugs.csv:1: missing column `revision.id.fixed`"],
    );
}

#[test]
fn recipe_errors_name_file_key_and_suggestion() {
    let dir = tempfile::tempdir().expect("tempdir");
    let r = recipe(
        dir.path(),
        "name: t\noutput: out\nsource:\n  defects4j:\n    path: projects\nselect:\n  min_code_hunk: 2\n",
    );
    assert_bad(
        &r,
        &dir.path().join("out"),
        &["r.yaml:7:3: `select`: unknown key `min_code_hunk`, did you mean `min_code_hunks`?"],
    );
    let r = recipe(
        dir.path(),
        "name: t\noutput: out\nsource:\n  defects4j:\n    path: projects\nselect:\n  min_code_hunks: [2]\n",
    );
    assert_bad(
        &r,
        &dir.path().join("out"),
        &[
            "r.yaml:7:",
            "`select.min_code_hunks`: invalid type: sequence, expected usize",
        ],
    );
}

#[test]
fn git_source_rejects_non_repository_and_unknown_revision() {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::create_dir_all(dir.path().join("plain")).expect("mkdir");
    let r = recipe(
        dir.path(),
        "name: t\noutput: out\nsource:\n  git:\n    repo: plain\n",
    );
    assert_bad(
        &r,
        &dir.path().join("out"),
        &["plain", "not a git repository"],
    );

    let repo = dir.path().join("repo");
    git2::Repository::init(&repo).expect("init");
    let r = recipe(
        dir.path(),
        "name: t\noutput: out\nsource:\n  git:\n    repo: repo\n    revs: v9.9..main\n",
    );
    assert_bad(&r, &dir.path().join("out"), &["v9.9"]);
}
