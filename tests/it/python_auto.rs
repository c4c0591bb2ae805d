//! `python: auto` on histories of the shapes it is for: a `setup.py`-only project of
//! 2020 whose commits get the era's interpreter and pytest pinned to their dates (one
//! environment shared by the commits that resolve alike), a commit whose tree requires
//! a Python no machine has (`unsupported_python`), Python 2 trees on 2.7 (declared, or
//! by their code), and the ladder's fall to unpinned when
//! a declared pin is newer than the commit. `hunkgen init` writes the recipe; the only
//! edit is `network_for_setup: false`, so everything comes from the uv cache `make deps`
//! seeded for these dates.

use crate::common::{build_validated, hunkgen, jsonl, Script};
use serde_json::Value;
use std::fs;
use std::path::Path;

/// `core.py` with two functions far apart (two hunks when both change).
fn core(v: u32) -> String {
    format!(
        "def low():\n    return {v}\n{pad}\ndef high():\n    return {v}\n",
        pad = "\n# padding\n".repeat(5)
    )
}

fn setup_py(requires: &str) -> String {
    format!(
        "from setuptools import setup\n\nsetup(\n    name=\"oldlib\",\n    version=\"1.0\",\n    \
         packages=[\"oldlib\"],\n    python_requires=\"{requires}\",\n    classifiers=[\n        \
         \"Programming Language :: Python :: 3.8\",\n        \
         \"Programming Language :: Python :: 3.9\",\n    ],\n    tests_require=[\"pytest\"],\n)\n"
    )
}

/// [`setup_py`] (`>=3.6`) with `line` (an argument of `setup()`) after `packages=`.
fn setup_py_adding(line: &str) -> String {
    let setup = setup_py(">=3.6").replace(
        "    packages=[\"oldlib\"],\n",
        &format!("    packages=[\"oldlib\"],\n    {line}\n"),
    );
    assert!(setup.contains(line), "{setup}");
    setup
}

/// The tests of version `v` of `core.py`: the sum test the fix to `v` adds.
fn test_file(v: u32) -> String {
    let mut t =
        String::from("from oldlib import core\n\n\ndef test_low():\n    assert core.low() >= 1\n");
    if v > 1 {
        t.push_str(&format!(
            "\n\ndef test_sum_{v}():\n    assert core.low() + core.high() == {}\n",
            2 * v
        ));
    }
    t
}

/// Commits at `tick` hours after the fixture epoch (2023-11-14T22:13:20Z); -26170 is
/// 2020-11-19T12:13:20Z, the cut-offs `make deps` seeded pytest for end at -26146.
fn commit_at(s: &mut Script, tick: i64, msg: &str) -> String {
    s.tick = tick - 1;
    s.commit(msg)
}

/// A flat `setup.py` project of November 2020: two fixes a day apart (both bases resolve
/// to the same pins) and a third whose base requires Python >= 3.99.
fn history_2020() -> Script {
    let mut s = first_fix_2020(&setup_py(">=3.6"));
    s.write("README.txt", "oldlib\n");
    commit_at(&mut s, -26146, "Add a readme");
    s.write("oldlib/core.py", &core(3));
    s.write("tests/test_core.py", &test_file(3));
    commit_at(&mut s, -26145, "Fix low and high returning two");
    s.write("setup.py", &setup_py(">=3.99"));
    commit_at(&mut s, -26120, "Require the newest Python");
    s.write("oldlib/core.py", &core(4));
    s.write("tests/test_core.py", &test_file(4));
    commit_at(&mut s, -26119, "Fix low and high returning three");
    s
}

/// The project (with this `setup.py`) imported on 2020-11-19 and its first fix an
/// hour later.
fn first_fix_2020(setup: &str) -> Script {
    first_fix_2020_tested(setup, test_file)
}

/// [`first_fix_2020`] with these tests of each version of `core.py`.
fn first_fix_2020_tested(setup: &str, test: impl Fn(u32) -> String) -> Script {
    first_fix_2020_in(setup, "oldlib", &[], test)
}

/// [`first_fix_2020_tested`] with the package in `package` (a directory) and `extra`
/// files beside it from the start.
fn first_fix_2020_in(
    setup: &str,
    package: &str,
    extra: &[(&str, &str)],
    test: impl Fn(u32) -> String,
) -> Script {
    let mut s = Script::new();
    s.write("setup.py", setup);
    s.write(&format!("{package}/__init__.py"), "");
    s.write(&format!("{package}/core.py"), &core(1));
    for (path, text) in extra {
        s.write(path, text);
    }
    s.write("tests/test_core.py", &test(1));
    commit_at(&mut s, -26170, "Initial import");
    s.write(&format!("{package}/core.py"), &core(2));
    s.write("tests/test_core.py", &test(2));
    commit_at(&mut s, -26169, "Fix low and high returning one");
    s
}

/// A project with this `setup.py` and `conftest.py` imported at `tick` and its first
/// fix an hour later.
fn one_fix(setup: &str, conftest: &str, tick: i64) -> Script {
    let mut s = Script::new();
    s.write("setup.py", setup);
    s.write("conftest.py", conftest);
    s.write("oldlib/__init__.py", "");
    s.write("oldlib/core.py", &core(1));
    s.write("tests/test_core.py", &test_file(1));
    commit_at(&mut s, tick, "Initial import");
    s.write("oldlib/core.py", &core(2));
    s.write("tests/test_core.py", &test_file(2));
    commit_at(&mut s, tick + 1, "Fix low and high returning one");
    s
}

/// `hunkgen init` then `hunkgen build` with the setup network off; the dataset's rows
/// and rejections.
fn init_and_build(repo: &Path, work: &Path) -> (Vec<Value>, Vec<Value>, String) {
    let recipe = work.join("recipe.yaml");
    let o = hunkgen()
        .arg("init")
        .arg(repo)
        .arg("-o")
        .arg(&recipe)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let text = fs::read_to_string(&recipe).expect("recipe");
    assert!(text.contains("        python: auto\n"), "{text}");
    fs::write(
        &recipe,
        text.replace("validate:\n", "validate:\n  network_for_setup: false\n"),
    )
    .expect("offline");
    let out = work.join("out");
    let o = build_validated(&recipe, &out, &work.join("cache"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = |f: &str| jsonl(&out.join(f));
    (rows("instances.jsonl"), rows("rejected.jsonl"), stdout)
}

#[test]
fn each_commit_gets_its_eras_interpreter_and_dependencies_pinned_to_its_date() {
    let repo = history_2020();
    let work = tempfile::tempdir().expect("tempdir");
    let (kept, rejected, stdout) = init_and_build(&repo.dir, work.path());
    assert!(stdout.contains("environment: `python: auto`"), "{stdout}");
    assert_eq!(kept.len(), 2, "kept {kept:?}\nrejected {rejected:?}");
    for row in &kept {
        let py = &row["validation"]["python"];
        // 3.9 was out by November 2020 and is declared; 3.11 (the machine's) was not out.
        assert!(
            py["version"]
                .as_str()
                .is_some_and(|v| v.starts_with("3.9.")),
            "{row}"
        );
        assert_eq!(py["step"], "pinned", "{py}");
        assert!(
            py["pinned_to"]
                .as_str()
                .is_some_and(|d| d.starts_with("2020-11-")),
            "{py}"
        );
        assert!(
            py["chosen"]
                .as_str()
                .is_some_and(|c| c.contains("declared")),
            "{py}"
        );
    }
    // The two bases, a day apart, resolve alike: one environment for both.
    assert_eq!(
        kept[0]["validation"]["environments"], kept[1]["validation"]["environments"],
        "{kept:?}"
    );
    let resolved = work.path().join("cache/envs/resolved");
    let requirements: Vec<String> = fs::read_dir(&resolved)
        .expect("resolved")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("requirements-"))
        .collect();
    assert_eq!(requirements.len(), 1, "{requirements:?}");
    let pins = fs::read_to_string(resolved.join(&requirements[0])).expect("pins");
    // pytest of the date, not today's.
    assert!(pins.contains("pytest==6.1.2"), "{pins}");
    // setuptools too, as every virtualenv of the era had it (pkg_resources).
    assert!(pins.contains("setuptools=="), "{pins}");
    // The base that requires Python >= 3.99 is refused, naming what it needs.
    let unsupported: Vec<&Value> = rejected
        .iter()
        .filter(|r| r["reason"] == "unsupported_python")
        .collect();
    assert_eq!(unsupported.len(), 1, "{rejected:?}");
    assert!(
        unsupported[0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("Python >=3.99 requested")),
        "{:?}",
        unsupported[0]
    );
}

/// A src-layout project of November 2020 whose package imports the version file
/// setuptools_scm writes at build time and asks for its own installed version: what
/// an install adds, a run from the working copy needs.
#[test]
fn a_package_that_needs_its_build_outputs_runs_from_the_working_copy() {
    let mut s = Script::new();
    s.write(
        "setup.py",
        "from setuptools import setup, find_packages\n\nsetup(\n    name=\"ver-lib\",\n    \
         use_scm_version={\"write_to\": \"src/verlib/_version.py\"},\n    \
         setup_requires=[\"setuptools_scm\"],\n    package_dir={\"\": \"src\"},\n    \
         packages=find_packages(\"src\"),\n    python_requires=\">=3.6\",\n    classifiers=[\n        \
         \"Programming Language :: Python :: 3.9\",\n    ],\n    tests_require=[\"pytest\"],\n)\n",
    );
    s.write(
        "src/verlib/__init__.py",
        "from importlib.metadata import version\n\nfrom ._version import __version__\n\n\
         assert version(\"ver-lib\") == __version__ == \"1.4.0\", __version__\n",
    );
    s.write("src/verlib/core.py", &core(1));
    s.write(
        "tests/test_core.py",
        &test_file(1).replace("from oldlib", "from verlib"),
    );
    s.write(".gitignore", "src/verlib/_version.py\n");
    commit_at(&mut s, -26170, "Initial import");
    s.git(&["tag", "v1.4.0"]);
    s.write("src/verlib/core.py", &core(2));
    s.write(
        "tests/test_core.py",
        &test_file(2).replace("from oldlib", "from verlib"),
    );
    commit_at(&mut s, -26169, "Fix low and high returning one");
    proves_the_first_fix(&s);
    // Nothing was written into the repository itself.
    assert_eq!(s.git(&["status", "--porcelain", "--ignored"]), "");
}

/// A setup.py that maps its packages to `lib/` (`package_dir={'': 'lib'}`, as 2007-2010
/// trees of mako do): the tests import the package from there.
#[test]
fn a_package_under_the_builds_package_dir_is_imported_from_there() {
    let setup = setup_py_adding("package_dir={'': 'lib'},");
    proves_the_first_fix(&first_fix_2020_in(&setup, "lib/oldlib", &[], test_file));
}

/// A pytest plugin (a `pytest11` entry point in setup.py) whose tests use the fixture it
/// registers: run from the working copy, the plugin loads only through the entry points
/// written beside the project's metadata (without them the fixture is missing on both
/// sides and no test fails then passes).
#[test]
fn a_pytest_plugin_is_loaded_through_the_entry_points_it_declares() {
    let setup = setup_py_adding("entry_points={'pytest11': ['oldlib = oldlib.plugin']},");
    let tests = |v: u32| {
        let mut t = String::from("def test_low():\n    assert True\n");
        if v > 1 {
            t.push_str("\n\ndef test_sum_2(total):\n    assert total == 4\n");
        }
        t
    };
    let plugin = "import pytest\n\nfrom oldlib import core\n\n\n\
                  @pytest.fixture\ndef total():\n    return core.low() + core.high()\n";
    proves_the_first_fix(&first_fix_2020_in(
        &setup,
        "oldlib",
        &[("oldlib/plugin.py", plugin)],
        tests,
    ));
}

/// `init` + `build` of a history whose one fix adds `test_sum_2`: the one row kept,
/// with that test as its FAIL_TO_PASS.
fn proves_the_first_fix(s: &Script) -> Value {
    let work = tempfile::tempdir().expect("tempdir");
    let (kept, rejected, _) = init_and_build(&s.dir, work.path());
    assert_eq!(kept.len(), 1, "kept {kept:?}\nrejected {rejected:?}");
    assert_eq!(
        kept[0]["FAIL_TO_PASS"],
        serde_json::json!(["tests/test_core.py::test_sum_2"]),
        "{}",
        kept[0]
    );
    kept[0].clone()
}

/// A project with this `setup.py` and tests (of each version of `core.py`) imported in
/// November 2020 and its first fix an hour later, built as `init` writes it: the one
/// row kept, proven on Python 2.7 (its FAIL_TO_PASS checked), and its
/// `validation.python`.
fn proven_on_python_2(setup: &str, test: impl Fn(u32) -> String) -> Value {
    let row = proves_the_first_fix(&first_fix_2020_tested(setup, test));
    let py = row["validation"]["python"].clone();
    assert!(
        py["version"]
            .as_str()
            .is_some_and(|v| v.starts_with("2.7.")),
        "{py}"
    );
    assert_eq!(py["step"], "python2", "{py}");
    assert!(py["pinned_to"].is_null(), "{py}");
    py
}

#[test]
fn a_python_2_only_tree_runs_on_python_2_7_from_the_wheelhouse() {
    // A tree that declares Python 2 only, with tests only Python 2 runs (`cStringIO`):
    // virtualenv and pip build its environment on 2.7, offline from the wheelhouse
    // `make deps` seeded (pytest 4.6, the last for 2.7), and the fix is proven there.
    let py2 = setup_py(">=3.6")
        .replace("    python_requires=\">=3.6\",\n", "")
        .replace(":: 3.8", ":: 2.7")
        .replace(":: 3.9", ":: 2 :: Only");
    let py = proven_on_python_2(&py2, |v| {
        format!("from cStringIO import StringIO\n{}", test_file(v))
    });
    assert!(
        py["chosen"]
            .as_str()
            .is_some_and(|c| c.contains("declares Python 2.7 only") && c.contains("not pinned")),
        "{py}"
    );
}

#[test]
fn python_2_code_that_declares_no_version_runs_on_python_2_7() {
    // Nothing declared (no classifiers, no python_requires), and a test with a `print`
    // statement, which no Python 3 compiles: the tree is Python 2 code, and 2.7 runs it.
    let bare = "from setuptools import setup\n\nsetup(name=\"oldlib\", version=\"1.0\", packages=[\"oldlib\"])\n";
    let py = proven_on_python_2(bare, |v| {
        test_file(v).replace(
            "def test_low():\n",
            "def test_low():\n    print \"checking\", core.low()\n",
        )
    });
    assert!(
        py["chosen"]
            .as_str()
            .is_some_and(|c| c
                .contains("Python 2 code (tests/test_core.py:5: print \"checking\", core.low())")),
        "{py}"
    );
}

#[test]
fn python_2_code_under_a_declaration_of_2_and_3_runs_on_python_2_7() {
    // Classifiers for 2.7 and 3.9, and a test with a `print` statement, which no Python 3
    // compiles: the 3 is a plan the tree has not carried out, and 2.7 runs it.
    let both = setup_py(">=3.6")
        .replace("    python_requires=\">=3.6\",\n", "")
        .replace(":: 3.8", ":: 2.7");
    let py = proven_on_python_2(&both, |v| {
        test_file(v).replace(
            "def test_low():\n",
            "def test_low():\n    print \"checking\", core.low()\n",
        )
    });
    assert!(
        py["chosen"].as_str().is_some_and(|c| c
            .contains("declares Python 2.7, 3.9 but is Python 2 code, which no Python 3 compiles")),
        "{py}"
    );
}

#[test]
fn python_2_imports_under_a_python_3_declaration_are_unsupported_python_with_the_evidence() {
    // dateutil's shape before 2010: nothing in the build files says Python 2 (here they
    // even name Python 3), and no line is Python 2 syntax, so a Python 3 runs the suite;
    // its tests import what only Python 2 had. That is the tree's Python, not an
    // infrastructure failure: `unsupported_python`, with pytest's words as evidence.
    let mut s = Script::new();
    s.write("setup.py", &setup_py(">=3.6"));
    s.write("oldlib/__init__.py", "");
    s.write("oldlib/core.py", &core(1));
    let py2 = |v: u32| format!("from cStringIO import StringIO\n{}", test_file(v));
    s.write("tests/test_core.py", &py2(1));
    commit_at(&mut s, -26170, "Initial import");
    s.write("oldlib/core.py", &core(2));
    s.write("tests/test_core.py", &py2(2));
    commit_at(&mut s, -26169, "Fix low and high returning one");
    let work = tempfile::tempdir().expect("tempdir");
    let (kept, rejected, _) = init_and_build(&s.dir, work.path());
    assert!(kept.is_empty(), "{kept:?}");
    let validate: Vec<&Value> = rejected
        .iter()
        .filter(|r| r["stage"] == "validate")
        .collect();
    assert_eq!(validate.len(), 1, "{rejected:?}");
    assert_eq!(validate[0]["reason"], "unsupported_python", "{rejected:?}");
    let detail = validate[0]["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("the tree is Python 2 code")
            && detail.contains("No module named 'cStringIO'"),
        "{detail}"
    );
}

#[test]
fn a_dead_development_tool_no_test_imports_is_dropped_and_one_a_test_imports_is_not() {
    // 2020: requirements-dev.txt names a release tool no index has (as old histories'
    // dev files name tools since deleted). The first fix's tests import nothing of it:
    // it is dropped and the fix confirmed. Then conftest.py starts importing it, and the
    // second fix's environment cannot be made: `environment`, as before.
    let mut s = first_fix_2020(&setup_py(">=3.6"));
    s.write("requirements-dev.txt", "hunkgen-dead-release-tool==0.3\n");
    commit_at(&mut s, -26168, "Add the release tooling");
    s.write("oldlib/core.py", &core(3));
    s.write("tests/test_core.py", &test_file(3));
    commit_at(&mut s, -26167, "Fix low and high returning two");
    s.write(
        "conftest.py",
        "import hunkgen_dead_release_tool  # the suite's own hook\n",
    );
    commit_at(&mut s, -26150, "Hook the release tool into the suite");
    s.write("oldlib/core.py", &core(4));
    s.write("tests/test_core.py", &test_file(4));
    commit_at(&mut s, -26149, "Fix low and high returning three");
    let work = tempfile::tempdir().expect("tempdir");
    let (kept, rejected, _) = init_and_build(&s.dir, work.path());
    let subjects = |rows: &[Value]| -> Vec<String> {
        rows.iter()
            .map(|r| r["subject"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    // The first fix (before requirements-dev.txt) and the one it was dropped for.
    assert_eq!(kept.len(), 2, "kept {kept:?}\nrejected {rejected:?}");
    let with_tool = kept
        .iter()
        .find(|r| r["validation"]["python"]["dropped"].is_array())
        .unwrap_or_else(|| panic!("a row with `dropped`: {kept:?}"));
    let py = &with_tool["validation"]["python"];
    assert_eq!(
        py["dropped"],
        serde_json::json!(["hunkgen-dead-release-tool"]),
        "{py}"
    );
    assert_eq!(
        py["step"], "pinned",
        "the pin still holds for the rest: {py}"
    );
    assert!(
        py["tried"].as_array().is_some_and(|t| t
            .iter()
            .any(|x| x == "pinned failed on hunkgen-dead-release-tool: dropped")),
        "{py}"
    );
    // Imported by conftest.py, the tool is needed: nothing is dropped, the ladder fails.
    let env: Vec<&Value> = rejected
        .iter()
        .filter(|r| r["reason"] == "environment")
        .collect();
    assert_eq!(env.len(), 1, "{rejected:?} (kept {:?})", subjects(&kept));
    assert!(
        env[0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("hunkgen-dead-release-tool")),
        "{:?}",
        env[0]
    );
}

#[test]
fn test_extras_a_setup_py_computes_come_from_its_build_backend() {
    // The extra is built in code (`EXTRAS["tests"] = EXTRAS["tests_no_zope"] + [...]`),
    // which reading setup.py's text cannot follow; conftest.py imports what only that
    // extra names. The resolve step asks setup.py's build backend (pinned to the date,
    // in the sandbox), so mock is installed and the fix confirmed.
    let setup = "from setuptools import setup\n\nEXTRAS = {\"tests_no_zope\": [\"pytest\"]}\n\
                 EXTRAS[\"tests\"] = EXTRAS[\"tests_no_zope\"] + [\"mock\"]\n\n\
                 setup(\n    name=\"oldlib\",\n    version=\"1.0\",\n    packages=[\"oldlib\"],\n    \
                 python_requires=\">=3.6\",\n    classifiers=[\n        \
                 \"Programming Language :: Python :: 3.9\",\n    ],\n    extras_require=EXTRAS,\n)\n";
    let s = one_fix(
        setup,
        "import mock  # the suite's fixtures use it\n",
        -26170,
    );
    let work = tempfile::tempdir().expect("tempdir");
    let (kept, rejected, _) = init_and_build(&s.dir, work.path());
    assert_eq!(kept.len(), 1, "kept {kept:?}\nrejected {rejected:?}");
    let py = &kept[0]["validation"]["python"];
    assert_eq!(py["step"], "pinned", "{py}");
    assert_eq!(
        py["metadata"], "setup.py's build backend, extras tests (beyond the static reading: mock)",
        "{py}"
    );
}

#[test]
fn a_test_only_library_is_taken_as_of_an_old_commit_whose_interpreter_is_newer() {
    // A 2017 tree that allows Python 3.9 and newer only (anachronistic, so that every
    // machine, whatever older interpreters it has, finds none of its era) gets 3.9, and
    // its dependencies are pinned to 3.9's release date (2020-10-05). Its
    // tests call the mock it was written against (2.x: the conftest checks the major
    // version, as a call of a since-removed API would fail): the test-only library is
    // taken as of the commit's date, pytest as of 3.9's.
    let setup = "from setuptools import setup\n\nsetup(\n    name=\"oldlib\",\n    \
                 version=\"1.0\",\n    packages=[\"oldlib\"],\n    python_requires=\">=3.9\",\n    \
                 classifiers=[\n        \"Programming Language :: Python :: 3.9\",\n    ],\n    \
                 tests_require=[\"pytest\", \"mock\"],\n)\n";
    let conftest = "import mock\n\nassert mock.__version__.startswith(\"2.\"), mock.__version__\n";
    let s = one_fix(setup, conftest, -56578);
    let work = tempfile::tempdir().expect("tempdir");
    let (kept, rejected, _) = init_and_build(&s.dir, work.path());
    assert_eq!(kept.len(), 1, "kept {kept:?}\nrejected {rejected:?}");
    let py = &kept[0]["validation"]["python"];
    assert!(
        py["version"]
            .as_str()
            .is_some_and(|v| v.starts_with("3.9.")),
        "{py}"
    );
    assert_eq!(py["pinned_to"], "2020-10-05T00:00:00Z", "{py}");
    assert_eq!(
        py["test_era"],
        "mock as of 2017-06-01T12:13:20Z, the commit's date (the interpreter is newer)",
        "{py}"
    );
}

#[test]
fn a_direct_reference_that_cannot_be_fetched_is_taken_from_the_index() {
    // 2020: the test requirements name mock by a git address (as jsonschema's 2018
    // tree names betterpath) that cannot be fetched (no network here, and a closed port
    // besides); the suite imports it, so it cannot be dropped. The ladder takes mock
    // from the index, pinned to the date like the rest, and records why.
    let mut s = one_fix(&setup_py(">=3.6"), "", -26170);
    s.write("conftest.py", "import mock  # the suite needs it\n");
    s.write(
        "test-requirements.txt",
        "git+https://127.0.0.1:9/testing-cabal/mock#egg=mock\n",
    );
    commit_at(&mut s, -26168, "Take mock from its repository");
    s.write("oldlib/core.py", &core(3));
    s.write("tests/test_core.py", &test_file(3));
    commit_at(&mut s, -26167, "Fix low and high returning two");
    let work = tempfile::tempdir().expect("tempdir");
    let (kept, rejected, _) = init_and_build(&s.dir, work.path());
    assert_eq!(kept.len(), 2, "kept {kept:?}\nrejected {rejected:?}");
    let from_git = kept
        .iter()
        .map(|r| &r["validation"]["python"])
        .find(|py| py["tried"].is_array())
        .unwrap_or_else(|| panic!("a row whose ladder tried something: {kept:?}"));
    assert_eq!(from_git["step"], "pinned", "{from_git}");
    assert_eq!(
        from_git["tried"],
        serde_json::json!([
            "pinned failed fetching git+https://127.0.0.1:9/testing-cabal/mock#egg=mock: \
             mock from the index instead"
        ]),
        "{from_git}"
    );
}

#[test]
fn a_requirement_the_fix_adds_is_installed_for_both_sides() {
    // 2020: the fix starts using mock and declares it in setup.py in the same commit
    // (as jsonschema's 2020 fix declared fqdn). The base declares no mock, so an
    // environment of the base alone cannot run the fixed side; the requirement the
    // changes add is installed too, and recorded.
    let mut s = Script::new();
    s.write("setup.py", &setup_py(">=3.6"));
    s.write("oldlib/__init__.py", "");
    s.write("oldlib/core.py", &core(1));
    s.write("tests/test_core.py", &test_file(1));
    commit_at(&mut s, -26170, "Initial import");
    s.write(
        "setup.py",
        &setup_py(">=3.6").replace(
            "tests_require=[\"pytest\"],",
            "tests_require=[\"pytest\"],\n    install_requires=[\"mock\"],",
        ),
    );
    s.write("oldlib/core.py", &format!("import mock\n{}", core(2)));
    s.write("tests/test_core.py", &test_file(2));
    commit_at(&mut s, -26169, "Fix low and high returning one");
    let work = tempfile::tempdir().expect("tempdir");
    let (kept, rejected, _) = init_and_build(&s.dir, work.path());
    assert_eq!(kept.len(), 1, "kept {kept:?}\nrejected {rejected:?}");
    let py = &kept[0]["validation"]["python"];
    assert_eq!(py["added_by_changes"], serde_json::json!(["mock"]), "{py}");
    assert_eq!(
        kept[0]["FAIL_TO_PASS"],
        serde_json::json!(["tests/test_core.py::test_sum_2"])
    );
}

#[test]
fn a_module_the_tests_import_and_nothing_declares_is_installed_by_its_name() {
    // 2020: the suite's conftest imports mock, which setup.py never lists (as html5lib's
    // 2009 tests imported simplejson), a helper imports a module no index serves, and a
    // third module is tried under `try:`. mock is installed by its import name and the
    // fix proven; the helper's module is dropped, recorded; the tried one is optional by
    // the file's own choice and never asked for (as wtforms' tests try webob).
    let conftest =
        "import mock  # the fixtures use it\n\ntry:\n    import hunkgen_optional_module\n\
                    except ImportError:\n    hunkgen_optional_module = None\n\n\n\
                    def helper():\n    import hunkgen_nowhere_module\n    \
                    return hunkgen_nowhere_module\n";
    let row = proves_the_first_fix(&one_fix(&setup_py(">=3.6"), conftest, -26170));
    let py = &row["validation"]["python"];
    assert_eq!(py["undeclared"], serde_json::json!(["mock"]), "{py}");
    assert!(!py.to_string().contains("optional-module"), "{py}");
    assert_eq!(
        py["dropped"],
        serde_json::json!(["hunkgen-nowhere-module"]),
        "{py}"
    );
}

/// A fix whose test patch adds a binary test resource (a file with NUL bytes, which
/// `git diff` shows only as `Binary files … differ`): the runs take the file from the
/// blob its `index` line names in the history, as `git apply` does, and the fix is
/// proven; before, the instance was `base_tree` ("binary patches cannot be applied").
#[test]
fn a_binary_resource_the_test_patch_adds_comes_from_the_history() {
    let mut s = first_fix_2020(&setup_py(">=3.6"));
    s.write("oldlib/core.py", &core(3));
    let reads = "\n\ndef test_resource():\n    import os\n    here = os.path.dirname(__file__)\n    \
                 with open(os.path.join(here, 'data', 'sample.bin'), 'rb') as f:\n        \
                 data = f.read()\n    assert data[:2] == bytes([0, 1])\n    assert core.low() + core.high() == 6\n";
    s.write("tests/test_core.py", &(test_file(3) + reads));
    s.write("tests/data/sample.bin", "\u{0}\u{1}binary\u{0}resource\n");
    commit_at(&mut s, -26168, "Fix low and high returning two");
    let work = tempfile::tempdir().expect("tempdir");
    let (kept, rejected, _) = init_and_build(&s.dir, work.path());
    let last = kept
        .iter()
        .find(|r| {
            r["test_patch"]
                .as_str()
                .is_some_and(|p| p.contains("sample.bin"))
        })
        .unwrap_or_else(|| panic!("kept {kept:?}\nrejected {rejected:?}"));
    let patch = last["test_patch"].as_str().unwrap_or_default();
    assert!(
        patch.contains("Binary files /dev/null and b/tests/data/sample.bin differ"),
        "{patch}"
    );
    let f2p: Vec<&str> = last["FAIL_TO_PASS"]
        .as_array()
        .expect("f2p")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(f2p.iter().any(|t| t.ends_with("::test_resource")), "{last}");
    assert!(
        !rejected.iter().any(|r| r["reason"] == "base_tree"),
        "{rejected:?}"
    );
}
