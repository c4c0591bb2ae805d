//! What a new user ran into, each pinned: non-diff input, annotation without sources,
//! messages said once, output directories, whole-dataset builds under interruption.

use crate::common::{d4j_root, hunkgen};
use predicates::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn annotate_refuses_input_without_hunks() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Deterministic "random" bytes (xorshift), plain text and an empty file.
    let mut x: u32 = 0x9E37_79B9;
    let noise: Vec<u8> = (0..512)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x & 0xff) as u8
        })
        .collect();
    let cases: [(&str, &[u8]); 3] = [
        ("noise.bin", &noise),
        ("notes.txt", b"Fixed the overflow in Calc.add.\nSee #12.\n"),
        ("empty.patch", b""),
    ];
    for (name, bytes) in cases {
        let path = dir.path().join(name);
        fs::write(&path, bytes).expect("write");
        let out = hunkgen().arg("annotate").arg(&path).output().expect("runs");
        assert_eq!(out.status.code(), Some(1), "{name}");
        let err = stderr_of(&out);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(&format!("{name}: ")), "{err}");
        assert!(
            err.contains("no diff hunks found") || err.contains(&format!("{name}:1")),
            "{err}"
        );
        assert!(!String::from_utf8_lossy(&out.stdout).contains("divergence"));
    }
}

const TWO_FILES: &str = "\
--- a/src/main/java/org/a/A.java
+++ b/src/main/java/org/a/A.java
@@ -1,3 +1,3 @@
 class A {
-  int x = 1;
+  int x = 2;
 }
--- a/src/main/java/org/b/B.java
+++ b/src/main/java/org/b/B.java
@@ -1,3 +1,3 @@
 class B {
-  String s = null;
+  String s = \"\";
 }
";

#[test]
fn annotate_without_sources_gives_what_needs_none() {
    let dir = tempfile::tempdir().expect("tempdir");
    let patch = dir.path().join("fix.patch");
    fs::write(&patch, TWO_FILES).expect("write");
    let out = hunkgen()
        .arg("annotate")
        .arg(&patch)
        .arg("--json")
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", stderr_of(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["n"], 2);
    let pair = &v["pairs"][0];
    assert!(pair["d_lex"].as_f64().expect("d_lex") > 0.0);
    assert!(pair["d_file"].as_f64().expect("d_file") > 0.0);
    // Different files: D_ast is 1 by rule, so even Div(P) needs no sources here.
    assert!(v["divergence"].as_f64().is_some());
    let notes = v["notes"].as_array().expect("notes");
    assert!(
        notes.iter().any(|n| n["kind"] == "no_repository"
            && n["detail"]
                .as_str()
                .unwrap_or("")
                .contains("no --root or --repo")),
        "{notes:?}"
    );
}

#[test]
fn a_truncated_hunk_is_described_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let patch = dir.path().join("t.patch");
    fs::write(
        &patch,
        "--- a/src/A.java\n+++ b/src/A.java\n@@ -1,4 +1,4 @@\n class A {\n-  int x = 1;\n",
    )
    .expect("write");
    let out = hunkgen()
        .arg("annotate")
        .arg(&patch)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert_eq!(err.matches("ends after").count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains("t.patch:6:"), "{err}");
}

/// A one-project Defects4J tree with two two-hunk bugs and a recipe `r.yaml` naming it.
fn small_d4j(root: &Path, recipe_extra: &str) -> PathBuf {
    let src = d4j_root().join("Lang");
    let p = root.join("projects/Lang");
    fs::create_dir_all(p.join("patches")).expect("mkdir");
    let csv = fs::read_to_string(src.join("active-bugs.csv")).expect("csv");
    let mut lines = csv.lines();
    let header = lines.next().expect("header");
    // Lang 4 and 5 are both multi-hunk.
    let rows: Vec<&str> = lines
        .filter(|l| l.starts_with("4,") || l.starts_with("5,"))
        .collect();
    fs::write(
        p.join("active-bugs.csv"),
        format!("{header}\n{}\n", rows.join("\n")),
    )
    .expect("csv");
    for id in [4, 5] {
        fs::copy(
            src.join(format!("patches/{id}.src.patch")),
            p.join(format!("patches/{id}.src.patch")),
        )
        .expect("patch");
    }
    let recipe = root.join("r.yaml");
    fs::write(
        &recipe,
        format!("name: t\noutput: out\nsource:\n  defects4j:\n    path: projects\n{recipe_extra}files:\n  code_extensions: [java]\n"),
    )
    .expect("recipe");
    recipe
}

#[test]
fn output_that_is_a_file_says_what_was_expected() {
    let dir = tempfile::tempdir().expect("tempdir");
    let recipe = small_d4j(dir.path(), "");
    fs::write(dir.path().join("out"), "not a directory").expect("file");
    let out = hunkgen()
        .args(["build", "-q"])
        .arg(&recipe)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("out: exists and is not a directory (expected a dataset directory"),
        "{err}"
    );
}

#[test]
fn another_recipes_dataset_is_refused_without_force() {
    let dir = tempfile::tempdir().expect("tempdir");
    let recipe = small_d4j(dir.path(), "");
    hunkgen()
        .args(["build", "-q"])
        .arg(&recipe)
        .assert()
        .success();
    let other = dir.path().join("other.yaml");
    fs::write(
        &other,
        fs::read_to_string(&recipe)
            .expect("recipe")
            .replace("name: t", "name: other"),
    )
    .expect("recipe");
    let before = fs::read(dir.path().join("out/instances.jsonl")).expect("built");
    hunkgen()
        .args(["build", "-q"])
        .arg(&other)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("holds dataset `t` from another recipe")
                .and(predicate::str::contains("--force")),
        );
    assert_eq!(
        fs::read(dir.path().join("out/instances.jsonl")).expect("kept"),
        before
    );
    hunkgen()
        .args(["build", "-q", "--force"])
        .arg(&other)
        .assert()
        .success();
    let card = fs::read_to_string(dir.path().join("out/dataset.yaml")).expect("card");
    assert!(card.starts_with("name: other\n"), "{card}");
}

#[test]
fn quiet_hides_progress_but_not_warnings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let recipe = small_d4j(dir.path(), "");
    let out = hunkgen()
        .args(["build", "-q"])
        .arg(&recipe)
        .output()
        .expect("runs");
    assert!(out.status.success());
    let err = stderr_of(&out);
    assert!(
        err.contains("warning: no repository for project Lang"),
        "{err}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stdout.contains("Table I"),
        "quiet prints no tables: {stdout}"
    );
    assert!(stdout.starts_with("built "), "{stdout}");
}

#[test]
fn default_output_directory_is_stated_and_used() {
    let dir = tempfile::tempdir().expect("tempdir");
    hunkgen()
        .args(["build", "--help"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("datasets/<name> in the directory above the").and(
                predicate::str::contains("recipes/demo.yaml → datasets/demo"),
            ),
        );
    let recipe = small_d4j(dir.path(), "");
    // A recipe in x/bad/ without `output` writes x/datasets/<name>.
    let bad = dir.path().join("x/bad");
    fs::create_dir_all(&bad).expect("mkdir");
    let text = fs::read_to_string(&recipe)
        .expect("recipe")
        .replace("output: out\n", "")
        .replace(
            "path: projects",
            &format!("path: {}", dir.path().join("projects").display()),
        );
    fs::write(bad.join("r.yaml"), text).expect("recipe");
    let out = hunkgen()
        .args(["build", "-q"])
        .arg(bad.join("r.yaml"))
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", stderr_of(&out));
    let expected = dir
        .path()
        .join("x/datasets/t")
        .canonicalize()
        .expect("written there");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with(&format!("built {}:", expected.display())),
        "{stdout}"
    );
}

#[test]
fn a_missing_repository_names_the_recipe_and_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let recipe = small_d4j(
        dir.path(),
        "    repos:\n      Lang:\n        path: no/such/clone\n",
    );
    let out = hunkgen()
        .args(["build", "-q"])
        .arg(&recipe)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("r.yaml:8:9: `source.defects4j.repos.Lang.path`"),
        "{err}"
    );
    assert!(err.contains("no/such/clone: not a git repository"), "{err}");
}

#[test]
fn repos_file_maps_projects_to_repositories() {
    let dir = tempfile::tempdir().expect("tempdir");
    let recipe = small_d4j(dir.path(), "");
    // An empty repository: it opens, but Lang's revisions are not in it, which the
    // instances then say (the path was used).
    let repo = dir.path().join("clones/lang.git");
    crate::common::git(
        dir.path(),
        &["init", "-q", "--bare", &repo.display().to_string()],
    );
    let repos = dir.path().join("clones/repos.yaml");
    fs::write(&repos, "Lang: lang.git\n").expect("repos file");
    hunkgen()
        .args(["build", "-q", "--repos"])
        .arg(&repos)
        .arg(&recipe)
        .assert()
        .success();
    let jsonl = fs::read_to_string(dir.path().join("out/instances.jsonl")).expect("built");
    assert!(jsonl.contains("\"kind\":\"unknown_revision\""), "{jsonl}");
    assert!(!jsonl.contains("no_repository"));

    fs::write(&repos, "Lang: [not, a, path]\n").expect("repos file");
    let out = hunkgen()
        .args(["build", "-q", "--repos"])
        .arg(&repos)
        .arg(&recipe)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("repos.yaml:1:"),
        "{}",
        stderr_of(&out)
    );
    fs::write(&repos, "Nope: lang.git\n").expect("repos file");
    hunkgen()
        .args(["build", "-q", "--repos"])
        .arg(&repos)
        .arg(&recipe)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("`--repo Nope`: no such project"));
}

/// What an output directory holds: a complete dataset whose files agree with each
/// other (card checksum = instances.jsonl; report count = rows), and which recipe.
fn consistent_dataset(out: &Path) -> String {
    let card = fs::read_to_string(out.join("dataset.yaml")).expect("card");
    let card: serde_norway::Value = serde_norway::from_str(&card).expect("card yaml");
    let jsonl = fs::read(out.join("instances.jsonl")).expect("instances");
    let sum = &card["checksums"][0][1];
    assert_eq!(
        sum.as_str(),
        Some(hunkgen::dataset::sha256_hex(&jsonl).as_str()),
        "card and instances.jsonl from different builds"
    );
    let rows = jsonl.iter().filter(|b| **b == b'\n').count();
    let report = fs::read_to_string(out.join("report/tables.md")).expect("report");
    assert!(
        report.contains(&format!("\n{rows} instances,")),
        "report and instances from different builds"
    );
    card["recipe"].as_str().expect("recipe").to_string()
}

/// Run a build, send it `signal` after `after`, and return its pid and output.
fn interrupt_at(recipe: &Path, signal: i32, after: Duration) -> (u32, std::process::Output) {
    let bin = assert_cmd::cargo::cargo_bin("hunkgen");
    let child = Command::new(bin)
        .args(["build", "-q"])
        .arg(recipe)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    std::thread::sleep(after);
    // SAFETY: signalling a child we spawned and have not reaped.
    unsafe {
        libc::kill(child.id() as i32, signal);
    }
    let pid = child.id();
    (pid, child.wait_with_output().expect("wait"))
}

#[test]
fn an_interrupted_rebuild_leaves_the_old_dataset_or_the_new_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The whole of Defects4J, to give the build some length.
    let recipe = dir.path().join("r.yaml");
    let body = |min: usize| {
        format!(
            "name: t\noutput: out\nsource:\n  defects4j:\n    path: {}\nfiles:\n  code_extensions: [java]\nselect:\n  min_code_hunks: {min}\n",
            d4j_root().display()
        )
    };
    fs::write(&recipe, body(3)).expect("recipe");
    hunkgen()
        .args(["build", "-q"])
        .arg(&recipe)
        .assert()
        .success();
    let old = body(3);
    let new = body(2);
    fs::write(&recipe, &new).expect("recipe");
    let out = dir.path().join("out");
    let mut seen_old = false;
    let mut seen_130 = 0;
    for (signal, ms) in [
        (libc::SIGINT, 40),
        (libc::SIGKILL, 40),
        (libc::SIGINT, 150),
        (libc::SIGKILL, 150),
        (libc::SIGINT, 300),
        (libc::SIGKILL, 300),
        (libc::SIGKILL, 600),
        (libc::SIGINT, 900),
    ] {
        let (pid, res) = interrupt_at(&recipe, signal, Duration::from_millis(ms));
        let recipe_now = consistent_dataset(&out);
        assert!(recipe_now == old || recipe_now == new, "unknown dataset");
        seen_old |= recipe_now == old;
        if signal == libc::SIGINT {
            match res.status.code() {
                // Interrupted: one line, exit 130, and its own temporary directory gone.
                // (One left by an earlier SIGKILLed build is swept by the next build that
                // reaches its writer; on a loaded machine the signal can land before that.)
                Some(130) => {
                    seen_130 += 1;
                    // The build's own warnings may come first when the signal lands after
                    // the dataset is written; the interruption itself is one line, and says
                    // which dataset is in place.
                    let err = stderr_of(&res);
                    let own: Vec<&str> = err
                        .lines()
                        .filter(|l| !l.starts_with("warning: ") && !l.starts_with("note: "))
                        .collect();
                    assert_eq!(own.len(), 1, "{err}");
                    assert!(own[0].starts_with("interrupted: "), "{err}");
                    if own[0].contains("already written") {
                        assert_eq!(recipe_now, new, "{err}");
                    } else {
                        assert!(own[0].contains("abandoned"), "{err}");
                        assert_eq!(recipe_now, old, "{err}");
                    }
                    let own = format!(".out.building-{pid}");
                    let left: Vec<_> = fs::read_dir(dir.path())
                        .expect("ls")
                        .flatten()
                        .filter(|e| e.file_name().to_string_lossy() == own)
                        .collect();
                    assert!(left.is_empty(), "{left:?}");
                }
                // Finished before the signal.
                Some(0) => assert_eq!(recipe_now, new),
                // On a loaded machine the signal can land before the process has set its
                // handler; the dataset checks above still hold.
                None => {}
                other => panic!("unexpected exit {other:?}: {}", stderr_of(&res)),
            }
        }
        if recipe_now == new {
            // Back to the old one for the next round.
            fs::write(&recipe, &old).expect("recipe");
            hunkgen()
                .args(["build", "-q"])
                .arg(&recipe)
                .assert()
                .success();
            fs::write(&recipe, &new).expect("recipe");
        }
    }
    assert!(seen_old, "no interruption landed before the swap");
    assert!(seen_130 > 0, "no Ctrl-C was handled");
    // A later build clears what killed builds left behind.
    hunkgen()
        .args(["build", "-q"])
        .arg(&recipe)
        .assert()
        .success();
    assert_eq!(consistent_dataset(&out), new);
    let left: Vec<_> = fs::read_dir(dir.path())
        .expect("ls")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".building-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn recipe_errors_surface_before_any_work_with_place_and_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("repo");
    crate::common::git(dir.path(), &["init", "-q", &repo.display().to_string()]);
    let cases = [
        (
            "name: t\noutput: out\nsource:\n  git:\n    repo: repo\n    message_regex: 'fix(('\n",
            "r.yaml:6:5: `source.git.message_regex`: not a valid regex",
        ),
        (
            "name: t\noutput: out\nsource:\n  git:\n    repo: repo\n    subject_regex: '[fix'\n",
            "r.yaml:6:5: `source.git.subject_regex`: not a valid regex",
        ),
        (
            "name: t\noutput: out\nsource:\n  git:\n    repo: repo\nannotate:\n  punkt: no/such/dir\n",
            "r.yaml:7:3: `annotate.punkt`: cannot read Punkt model file",
        ),
        (
            "name: t\noutput: out\nsource:\n  defects4j:\n    path: nowhere\n",
            "r.yaml:5:5: `source.defects4j.path`:",
        ),
        (
            "name: t\noutput: out\nsource:\n  git:\n    repo: repo\nselect:\n  min_necessary_hunks: 2\n",
            "r.yaml:7:3: `select.min_necessary_hunks`: needs a `validate:` section",
        ),
        (
            "name: t\noutput: out\nsource:\n  git:\n    repo: repo\n    revs: main\n    all_branches: true\n",
            "r.yaml:7:5: `source.git.all_branches`: expected either `revs` or `all_branches: true`, not both",
        ),
    ];
    for (text, expected) in cases {
        fs::write(dir.path().join("r.yaml"), text).expect("recipe");
        let out = hunkgen()
            .args(["build", "-q"])
            .arg(dir.path().join("r.yaml"))
            .current_dir(dir.path())
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1));
        let err = stderr_of(&out);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(expected), "expected {expected:?} in {err}");
        assert!(
            !dir.path().join("out").exists(),
            "no work before the plan holds"
        );
    }
}

#[test]
fn stats_prints_table_three_and_says_when_a_mean_covers_fewer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let recipe = small_d4j(dir.path(), "");
    hunkgen()
        .args(["build", "-q"])
        .arg(&recipe)
        .assert()
        .success();
    hunkgen()
        .arg("stats")
        .arg(dir.path().join("out"))
        .assert()
        .success()
        .stdout(
            predicate::str::contains("## Table III")
                .and(predicate::str::contains("| total | "))
                .and(predicate::str::contains("(undecided: no sources)")),
        );
}
