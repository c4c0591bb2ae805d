//! The test files a suite runs, on a real pytest: `workdir: .` selects the test patch's
//! files (never "everything"), only files pytest collects are named (`python_files` from
//! the tree's pyproject.toml; a sample under `tests/` that cannot even be imported is
//! not one), a doctest text file the test patch adds is run, a module of any name that
//! defines a unittest case is run by name (an old tree's hand-written runner lists it),
//! a test patch of data files runs the modules that name their directory, and a test
//! patch with nothing to run is rejected as such, without running the whole
//! suite.

use crate::common::{hunkgen, validation_env, Script};
use std::collections::BTreeMap;
use std::fs;

/// `pkg/core.py` with the functions in `fixed` returning 2 (else 1), each pair of a fix
/// far apart so that it is two hunks.
fn core(fixed: &[&str]) -> String {
    let mut t = String::new();
    for name in [
        "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n",
    ] {
        let v = if fixed.contains(&name) { 2 } else { 1 };
        t.push_str(&format!("def {name}():\n    return {v}\n"));
        t.push_str(&"\n# padding\n".repeat(4));
        t.push('\n');
    }
    t
}

/// The history: a package, a passing test, a sample under `tests/typing/` that fails to
/// import, a pyproject.toml adding `check_*.py` to pytest's patterns, then three fixes.
fn history() -> (Script, BTreeMap<&'static str, String>) {
    let mut s = Script::new();
    s.write("pkg/__init__.py", "");
    s.write("pkg/core.py", &core(&[]));
    s.write(
        "pyproject.toml",
        "[project]\nname = \"pkg\"\n\n[tool.pytest.ini_options]\n\
         python_files = [\"test_*.py\", \"check_*.py\"]\n",
    );
    s.write(
        "tests/test_core.py",
        "from pkg import core\n\n\ndef test_import():\n    assert core.a() in (1, 2)\n",
    );
    s.write(
        "tests/typing/sample.py",
        "import a_module_nobody_installed  # a type-checking sample, never run\n",
    );
    // A mixin of test methods in the test package, run through its subclass.
    s.write(
        "tests/__init__.py",
        "from pkg import core\n\n\nclass Mixin:\n    def test_g(self):\n        assert core.g() >= 1\n",
    );
    s.write(
        "tests/test_mix.py",
        "from tests import Mixin\n\n\nclass TestMix(Mixin):\n    pass\n",
    );
    // A module that checks every case file of a data directory beside it.
    s.write(
        "tests/test_cases.py",
        "import os\n\nfrom pkg import core\n\nHERE = os.path.dirname(__file__)\n\n\n\
         def test_cases():\n    for f in sorted(os.listdir(os.path.join(HERE, 'cases'))):\n        \
         if f.endswith('.txt'):\n            names, want = open(os.path.join(HERE, 'cases', f)).read().split()\n            \
         assert sum(getattr(core, n)() for n in names.split('+')) == int(want)\n",
    );
    s.write("tests/cases/.keep", "");
    s.commit("Initial import");
    let mut fixes = BTreeMap::new();
    // Its test patch adds a test and edits the sample: only the test is named.
    s.write("pkg/core.py", &core(&["a", "b"]));
    s.write(
        "tests/test_core.py",
        "from pkg import core\n\n\ndef test_import():\n    assert core.a() in (1, 2)\n\n\n\
         def test_ab():\n    assert core.a() + core.b() == 4\n",
    );
    s.write(
        "tests/typing/sample.py",
        "import a_module_nobody_installed  # a type-checking sample, never run\nx: int = 1\n",
    );
    fixes.insert("sample", s.commit("Fix a and b returning one"));
    // Its test is collected by the tree's own python_files.
    s.write("pkg/core.py", &core(&["a", "b", "c", "d"]));
    s.write(
        "tests/check_cd.py",
        "from pkg import core\n\n\ndef test_cd():\n    assert core.c() + core.d() == 4\n",
    );
    fixes.insert("pattern", s.commit("Fix c and d returning one"));
    // Its test patch is data only (one file named as pytest's doctest files are, with no
    // example in it): nothing to run.
    s.write("pkg/core.py", &core(&["a", "b", "c", "d", "e", "f"]));
    s.write("tests/data/expected.txt", "2\n");
    s.write("tests/data/test_input.txt", "1 2\n");
    fixes.insert("data", s.commit("Fix e and f returning one"));
    // Its test patch changes only the test package's mixin: the files below it run.
    s.write(
        "pkg/core.py",
        &core(&["a", "b", "c", "d", "e", "f", "g", "h"]),
    );
    s.write(
        "tests/__init__.py",
        "from pkg import core\n\n\nclass Mixin:\n    def test_g(self):\n        assert core.g() >= 1\n\n\
         \n    def test_gh(self):\n        assert core.g() + core.h() == 4\n",
    );
    fixes.insert("mixin", s.commit("Fix g and h returning one"));
    // Its test is a doctest text file, which pytest runs when given its name.
    s.write(
        "pkg/core.py",
        &core(&["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]),
    );
    s.write(
        "tests/test_sums.txt",
        "Sums of the core:\n\n>>> from pkg import core\n>>> core.i() + core.j()\n4\n",
    );
    fixes.insert("doctest", s.commit("Fix i and j returning one"));
    // Its test module has no test_ name (a hand-written runner lists it) but defines a
    // unittest case; the runner's helper it also changes is no test module and is never
    // named (importing it would fail).
    s.write(
        "pkg/core.py",
        &core(&["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]),
    );
    s.write(
        "tests/lexer.py",
        "import unittest\n\nfrom pkg import core\n\n\nclass LexerTest(unittest.TestCase):\n    \
         def test_kl(self):\n        self.assertEqual(core.k() + core.l(), 4)\n",
    );
    s.write(
        "tests/alltests.py",
        "import a_module_nobody_installed  # the old runner: imports lexer and runs it\n",
    );
    fixes.insert("unittest", s.commit("Fix k and l returning one"));
    // Its test patch is a case file only, which the module beside its directory reads.
    s.write(
        "pkg/core.py",
        &core(&[
            "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n",
        ]),
    );
    s.write("tests/cases/mn.txt", "m+n 4\n");
    fixes.insert("cases", s.commit("Fix m and n returning one"));
    (s, fixes)
}

/// `hunkgen build` of a recipe over `repo` with one pytest suite at the root
/// (`workdir: .`) and `select` lines added; the output directory and stdout.
fn build(
    repo: &std::path::Path,
    select: &str,
    work: &std::path::Path,
) -> (std::path::PathBuf, String) {
    let recipe = work.join("sel.yaml");
    fs::write(
        &recipe,
        format!(
            "name: sel\nsource:\n  git:\n    repo: {}\n    name: sel\n    \
             subject_regex: '^Fix '\nfiles:\n  code_extensions: [py]\nselect:\n  \
             min_code_hunks: 2\n{select}validate:\n  reruns: 1\n  timeout: 120\n  cache: cache\n  \
             suites:\n    - name: python\n      workdir: .\n      env:\n        python:\n          \
             install: '\"$HUNKGEN_UV\" pip install --quiet pytest==9.2.0'\n      \
             command: python -m pytest -rA -p no:cacheprovider -o junit_family=xunit1 \
             --junitxml={{report_dir}}/pytest.xml {{tests}}\n      report: pytest\n",
            repo.display()
        ),
    )
    .expect("recipe");
    let out = work.join("out");
    let o = hunkgen()
        .args(["build", "-q", "--force"])
        .arg(&recipe)
        .arg("-o")
        .arg(&out)
        .envs(validation_env())
        .env_remove("HUNKGEN_CACHE_DIR")
        .env_remove("HUNKGEN_SHARD")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .output()
        .expect("hunkgen runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (out, String::from_utf8_lossy(&o.stdout).into_owned())
}

/// The rows of a dataset: kept instances, then rejections.
fn rows(out: &std::path::Path) -> Vec<serde_json::Value> {
    let read = |f: &str| -> Vec<serde_json::Value> {
        fs::read_to_string(out.join(f))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("row"))
            .collect()
    };
    read("instances.jsonl")
        .into_iter()
        .chain(read("rejected.jsonl"))
        .collect()
}

#[test]
fn workdir_dot_selects_only_what_pytest_collects_and_never_everything() {
    let (repo, fixes) = history();
    let work = tempfile::tempdir().expect("tempdir");
    let (out, stdout) = build(&repo.dir, "", work.path());
    // The build's summary says what the rejection answers.
    assert!(
        stdout.contains("1 rejected (1 test infrastructure)"),
        "{stdout}"
    );
    let rows = rows(&out);
    let row = |case: &str| -> &serde_json::Value {
        let commit = &fixes[case][..12];
        rows.iter()
            .find(|r| {
                r["instance_id"]
                    .as_str()
                    .or(r["id"].as_str())
                    .is_some_and(|id| id.ends_with(commit))
            })
            .unwrap_or_else(|| panic!("{case}: no row among {rows:?}"))
    };
    // The sample is not handed to pytest: no collection error, the test is proven.
    let sample = row("sample");
    assert_eq!(
        sample["FAIL_TO_PASS"],
        serde_json::json!(["tests/test_core.py::test_ab"]),
        "{sample}"
    );
    assert_eq!(
        sample["PASS_TO_PASS"],
        serde_json::json!(["tests/test_core.py::test_import"]),
        "only the selected file ran: {sample}"
    );
    // The tree's pyproject.toml makes check_cd.py a test file.
    let pattern = row("pattern");
    assert_eq!(
        pattern["FAIL_TO_PASS"],
        serde_json::json!(["tests/check_cd.py::test_cd"]),
        "{pattern}"
    );
    // The mixin's change runs the test file below it that pytest collects.
    let mixin = row("mixin");
    assert_eq!(
        mixin["FAIL_TO_PASS"],
        serde_json::json!(["tests/test_mix.py::TestMix::test_gh"]),
        "{mixin}"
    );
    // The doctest file the test patch adds is run and proven.
    let doctest = row("doctest");
    let f2p = doctest["FAIL_TO_PASS"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        f2p.len() == 1 && f2p[0].as_str().is_some_and(|t| t.contains("test_sums.txt")),
        "{doctest}"
    );
    // The unittest module of another name is run by name; its runner is not.
    let unittest = row("unittest");
    assert_eq!(
        unittest["FAIL_TO_PASS"],
        serde_json::json!(["tests/lexer.py::LexerTest::test_kl"]),
        "{unittest}"
    );
    // A case file only: the module that reads its directory is run.
    let cases = row("cases");
    assert_eq!(
        cases["FAIL_TO_PASS"],
        serde_json::json!(["tests/test_cases.py::test_cases"]),
        "{cases}"
    );
    // Nothing to run (no module names its data): rejected as such; the whole suite never
    // ran for it.
    let data = row("data");
    assert_eq!(data["reason"], "no_test_suite", "{data}");
    assert!(
        data["detail"]
            .as_str()
            .is_some_and(|d| d.contains("nothing to run")),
        "{data}"
    );
    let logs = out
        .join("logs")
        .join(data["id"].as_str().unwrap_or_default());
    assert!(!logs.exists(), "no run was made for it: {}", logs.display());
}

/// A fix of three counted hunks: two the failing test needs, one behaviour-neutral
/// (`while 1` → `while True` in a function no test calls).
fn neutral_history() -> Script {
    let mut s = Script::new();
    let module = |fixed: bool| {
        let v = if fixed { 2 } else { 1 };
        let lp = if fixed { "True" } else { "1" };
        format!(
            "def a():\n    return {v}\n{pad}\ndef spin(n):\n    while {lp}:\n        n -= 1\n        if n < 0:\n            return n\n{pad}\ndef b():\n    return {v}\n",
            pad = "\n# padding\n".repeat(4)
        )
    };
    s.write("pkg/__init__.py", "");
    s.write("pkg/core.py", &module(false));
    s.write(
        "tests/test_core.py",
        "from pkg import core\n\n\ndef test_import():\n    assert core.spin(2) < 0\n",
    );
    s.commit("Initial import");
    s.write("pkg/core.py", &module(true));
    s.write(
        "tests/test_core.py",
        "from pkg import core\n\n\ndef test_import():\n    assert core.spin(2) < 0\n\n\n\
         def test_ab():\n    assert core.a() + core.b() == 4\n",
    );
    s.commit("Fix a and b returning one");
    s
}

#[test]
fn necessary_hunks_by_ablation_and_the_rule_that_selects_on_them() {
    let repo = neutral_history();
    let work = tempfile::tempdir().expect("tempdir");
    let (out, _) = build(&repo.dir, "", work.path());
    let first = rows(&out);
    assert_eq!(first.len(), 1, "{first:?}");
    let hunks = first[0]["hunks"].as_array().expect("hunks");
    let necessary: Vec<(u64, &serde_json::Value)> = hunks
        .iter()
        .filter(|h| h["counted"] == true)
        .map(|h| (h["buggy"]["start"].as_u64().unwrap_or(0), &h["necessary"]))
        .collect();
    assert_eq!(necessary.len(), 3, "{hunks:?}");
    // a() and b() are needed; the loop spelling is not.
    assert_eq!(necessary[0].1, true, "{hunks:?}");
    assert_eq!(necessary[1].1, false, "{hunks:?}");
    assert_eq!(necessary[2].1, true, "{hunks:?}");
    let tables = fs::read_to_string(out.join("report/tables.md")).expect("tables");
    assert!(tables.contains("## Necessary hunks"), "{tables}");
    assert!(tables.contains("| hunks | 3 | 2 | 1 | 0 |"), "{tables}");
    // Asking for three necessary hunks rejects it, naming the one that is not; two keep it.
    let (out, stdout) = build(&repo.dir, "  min_necessary_hunks: 3\n", work.path());
    let strict = rows(&out);
    assert_eq!(strict[0]["reason"], "few_necessary_hunks", "{strict:?}");
    let detail = strict[0]["detail"].as_str().unwrap_or_default();
    assert!(
        detail.starts_with("2 of 3 counted hunks necessary")
            && detail.contains("not necessary (the golden tests pass without it)"),
        "{detail}"
    );
    assert!(
        stdout.contains("1 rejected (1 few necessary hunks)"),
        "{stdout}"
    );
    let (out, _) = build(&repo.dir, "  min_necessary_hunks: 2\n", work.path());
    assert!(rows_kept(&out) == 1);
}

fn rows_kept(out: &std::path::Path) -> usize {
    fs::read_to_string(out.join("instances.jsonl"))
        .unwrap_or_default()
        .lines()
        .count()
}

/// A history with a feature whose message says "fix" (it adds `nth()` and lists it in
/// `NAMES`; its test only calls the new function) and a real fix (wrong results of a
/// function that existed).
fn feature_history() -> Script {
    let mut s = Script::new();
    let module = |first: &str, last: &str, nth: bool| {
        let names = if nth {
            "[\"first\", \"last\", \"nth\"]"
        } else {
            "[\"first\", \"last\"]"
        };
        let mut t = format!("NAMES = {names}\n\n\ndef first(xs):\n    return xs[{first}]\n");
        t.push_str(&"\n# padding\n".repeat(5));
        t.push_str(&format!("\n\ndef last(xs):\n    return xs[{last}]\n"));
        if nth {
            t.push_str("\n\ndef nth(xs, i):\n    return xs[i]\n");
        }
        t
    };
    s.write("pkg/__init__.py", "");
    s.write("pkg/core.py", &module("1", "0", false));
    s.write(
        "tests/test_core.py",
        "from pkg import core\n\n\ndef test_names():\n    assert \"first\" in core.NAMES\n",
    );
    s.commit("Initial import");
    s.write("pkg/core.py", &module("1", "0", true));
    s.write(
        "tests/test_nth.py",
        "from pkg import core\n\n\ndef test_nth():\n    assert core.nth([1, 2, 3], 1) == 2\n",
    );
    s.commit("Fix nth() so it gives any element");
    s.write("pkg/core.py", &module("0", "-1", true));
    s.write(
        "tests/test_ends.py",
        "from pkg import core\n\n\ndef test_ends():\n    assert (core.first([1, 2]), core.last([1, 2])) == (1, 2)\n",
    );
    s.commit("Fix first() and last() returning the wrong ends");
    s
}

#[test]
fn a_fix_whose_tests_only_call_what_it_adds_is_new_api_only() {
    let repo = feature_history();
    let work = tempfile::tempdir().expect("tempdir");
    let (out, _) = build(&repo.dir, "", work.path());
    assert_eq!(rows_kept(&out), 2, "{:?}", rows(&out));
    let (out, stdout) = build(&repo.dir, "  reject_new_api_only: true\n", work.path());
    let all = rows(&out);
    assert_eq!(rows_kept(&out), 1, "{all:?}");
    assert!(
        all[0]["problem_statement"]
            .as_str()
            .unwrap_or_default()
            .contains("wrong ends"),
        "{all:?}"
    );
    assert_eq!(all[1]["reason"], "new_api_only", "{all:?}");
    let detail = all[1]["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("tests/test_nth.py::test_nth: `nth`"),
        "{detail}"
    );
    assert!(stdout.contains("1 not a fix"), "{stdout}");
}
