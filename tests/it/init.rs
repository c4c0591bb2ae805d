//! `hunkgen init` as a new user meets it: a clone in, a recipe out that builds as is
//! (real pytest in the sandbox), what was and was not inferred said, bad input refused
//! in one line, an existing recipe never replaced without --force.

use crate::common::{build_validated, hunkgen, Script};
use std::fs;

/// A src-layout library with a pyproject.toml declaring its test runner (pinned, so the
/// seeded package cache serves it offline) and one two-hunk fix with its test.
fn library() -> Script {
    let mut s = Script::new();
    let core = |v: u32| {
        format!(
            "def low():\n    return {v}\n{pad}\ndef high():\n    return {v}\n",
            pad = "\n# padding\n".repeat(5)
        )
    };
    s.write("src/lib_x/__init__.py", "");
    s.write("src/lib_x/core.py", &core(1));
    s.write(
        "pyproject.toml",
        "[project]\nname = \"lib-x\"\nversion = \"1.0\"\nrequires-python = \">=3.9\"\n\
         dependencies = []\n\n[project.optional-dependencies]\ntest = [\"pytest==9.2.0\"]\n",
    );
    s.write(
        "tests/test_core.py",
        "from lib_x import core\n\n\ndef test_low():\n    assert core.low() >= 1\n",
    );
    s.commit("Initial import");
    s.write("src/lib_x/core.py", &core(2));
    s.write(
        "tests/test_core.py",
        "from lib_x import core\n\n\ndef test_low():\n    assert core.low() >= 1\n\n\n\
         def test_both():\n    assert core.low() + core.high() == 4\n",
    );
    s.commit("Fix low and high returning one");
    s
}

#[test]
fn init_writes_a_recipe_that_builds_as_is() {
    let repo = library();
    let work = tempfile::tempdir().expect("tempdir");
    let recipe = work.path().join("recipes/lib.yaml");
    let o = hunkgen()
        .arg("init")
        .arg(&repo.dir)
        .arg("-o")
        .arg(&recipe)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for line in [
        "inferred: languages at HEAD: py (2 source files)",
        "inferred: Python: src layout (src/ on PYTHONPATH), test files under tests",
        "inferred: runner: pytest, as the project declares it",
        "inferred: environment: `python: auto`",
        "inferred: selection: `min_necessary_hunks: 2`",
        "not inferred: the forge address",
    ] {
        assert!(stdout.contains(line), "{line:?} in {stdout}");
    }
    assert!(stdout.contains("next: hunkgen build"), "{stdout}");
    let text = fs::read_to_string(&recipe).expect("recipe");
    assert!(text.contains("# Not inferred (check these):"), "{text}");
    assert!(
        text.contains("repo: '../"),
        "relative to the recipe: {text}"
    );
    // `python: auto` puts src/ on PYTHONPATH per commit, so the command does not.
    assert!(text.contains("        python: auto\n"), "{text}");
    assert!(text.contains("command: python -m pytest"), "{text}");
    assert!(text.contains("\n  min_necessary_hunks: 2 "), "{text}");
    // `--env fixed`: one install line of today's dependencies, said to be so.
    let fixed = work.path().join("recipes/fixed.yaml");
    let o = hunkgen()
        .args(["init", "--env", "fixed"])
        .arg(&repo.dir)
        .arg("-o")
        .arg(&fixed)
        .output()
        .expect("runs");
    let fixed_out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for line in [
        "inferred: requires-python >=3.9",
        "not inferred: dependency versions of each commit's date",
    ] {
        assert!(fixed_out.contains(line), "{line:?} in {fixed_out}");
    }
    let fixed_text = fs::read_to_string(&fixed).expect("recipe");
    assert!(
        fixed_text.contains("command: PYTHONPATH=src python -m pytest"),
        "{fixed_text}"
    );
    assert!(
        fixed_text.contains("pip install --quiet ''pytest==9.2.0''"),
        "{fixed_text}"
    );
    // `-o -`: the recipe on standard output, the inference on standard error.
    let o = hunkgen()
        .arg("init")
        .arg(&repo.dir)
        .args(["-o", "-"])
        .current_dir(work.path())
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("python: auto"));
    assert!(String::from_utf8_lossy(&o.stderr).contains("inferred: runner: pytest"));
    assert!(!work.path().join("-").exists());
    // It builds as written (but for `network_for_setup: false`, which keeps the test off
    // the package index: uv resolves from the cache `make deps` seeded): the fix is
    // confirmed by running its test.
    fs::write(
        &recipe,
        text.replace("validate:\n", "validate:\n  network_for_setup: false\n"),
    )
    .expect("offline");
    let out = work.path().join("out");
    let o = build_validated(&recipe, &out, &work.path().join("cache"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = fs::read_to_string(out.join("instances.jsonl")).expect("rows");
    let row: serde_json::Value =
        serde_json::from_str(rows.lines().next().expect("one instance")).expect("json");
    assert_eq!(
        row["FAIL_TO_PASS"],
        serde_json::json!(["tests/test_core.py::test_both"]),
        "{row}"
    );
    // The project pins pytest 9.2.0, released after this 2023 commit: pinned to the
    // commit's date it does not resolve (uv: pytest "was filtered by exclude-newer"), so
    // the ladder exempts pytest, then what pytest 9.2.0 needs newer (iniconfig,
    // packaging, pluggy: up to 4 packages in all), then goes unpinned, saying so at each
    // step.
    let py = &row["validation"]["python"];
    assert_eq!(py["step"], "unpinned", "{py}");
    let tried: Vec<&str> = py["tried"]
        .as_array()
        .map(|a| a.iter().filter_map(|t| t.as_str()).collect())
        .unwrap_or_default();
    assert_eq!(tried.first(), Some(&"pinned failed on pytest"), "{py}");
    assert!((3..=5).contains(&tried.len()), "{py}");
    assert!(
        tried[1..].iter().all(|t| t.starts_with("exempt failed")),
        "{py}"
    );
    assert!(py.get("pinned_to").is_none(), "{py}");
    // Run again: the recipe is not replaced without --force; a non-repository is one line.
    let again = hunkgen()
        .arg("init")
        .arg(&repo.dir)
        .arg("-o")
        .arg(&recipe)
        .output()
        .expect("runs");
    assert_eq!(again.status.code(), Some(1));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("exists; pass --force"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(fs::read_to_string(&recipe)
        .expect("kept")
        .contains("network_for_setup: false"));
    let nowhere = hunkgen()
        .arg("init")
        .arg(work.path().join("no-such-repo"))
        .output()
        .expect("runs");
    assert_eq!(nowhere.status.code(), Some(1));
    let err = String::from_utf8_lossy(&nowhere.stderr);
    assert!(err.contains("no-such-repo"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}
