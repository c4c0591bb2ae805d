//! `env: swebench` end to end (issue #32): SWE-bench-format rows over a repository the
//! test creates, with specs the test supplies through the helper's `extra` (the official
//! package, swebench 4.1.0 from `make deps`, adds them to its tables and reads the logs
//! with its own parsers: a Django-style runner and a sympy-style runner). `hunkgen build`
//! runs each row's install and test command in the sandbox and compares the proven
//! lists with the published ones; a missing interpreter and a broken install are
//! rejected with their reason.

use crate::common::{build_validated, scratch_root, venv_python, Script};
use serde_json::{json, Value};
use std::fs;

const RUNTESTS: &str = r#"import os, sys, unittest
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
files = [a for a in sys.argv[1:] if a.endswith(".py")]
names = [os.path.splitext(os.path.relpath(os.path.abspath(f), here))[0].replace(os.sep, ".") for f in files]
suite = unittest.defaultTestLoader.loadTestsFromNames(names)
sys.exit(not unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful())
"#;

/// A sympy-style runner: `test_name ok` / `test_name F` / `test_name E` per test.
const BIN_TEST: &str = r#"import importlib.util, os, sys
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
failed = False
for f in [a for a in sys.argv[1:] if a.endswith(".py")]:
    spec = importlib.util.spec_from_file_location("under_test", os.path.join(root, f))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    print(f + "[%d]" % len([n for n in dir(m) if n.startswith("test_")]))
    for name in sorted(n for n in dir(m) if n.startswith("test_")):
        try:
            getattr(m, name)()
            print(name + " ok")
        except AssertionError:
            print(name + " F")
            failed = True
        except Exception:
            print(name + " E")
            failed = True
sys.exit(int(failed))
"#;

const DJANGO_TESTS: &str = "import os, unittest\nimport calc\nfrom calc import version\n\n\n\
class CalcTests(unittest.TestCase):\n    def test_sub(self):\n        self.assertEqual(calc.sub(3, 1), 2)\n\n    \
def test_version(self):\n        self.assertEqual(version.VERSION, 1)\n\n    \
def test_mode(self):\n        self.assertEqual(os.environ.get(\"CALC_MODE\"), \"strict\")\n";

const DJANGO_ADDED: &str =
    "\n    def test_add(self):\n        self.assertEqual(calc.add(2, 2), 4)\n";

const SYMPY_TESTS: &str = "import calc\n\n\ndef test_sub():\n    assert calc.sub(3, 1) == 2\n";

const SYMPY_ADDED: &str = "\n\ndef test_add():\n    assert calc.add(2, 2) == 4\n";

const PYPROJECT: &str =
    "[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"\n\n\
[project]\nname = \"calc\"\nversion = \"1.0\"\n\n[tool.setuptools]\npackages = [\"calc\"]\n";

/// The diff of `git` from `from` to `to` limited to `paths`.
fn diff(s: &Script, from: &str, to: &str, paths: &[&str]) -> String {
    let mut args = vec!["diff", from, to, "--"];
    args.extend_from_slice(paths);
    String::from_utf8(s.git_bytes(&args)).expect("utf-8")
}

#[allow(clippy::too_many_arguments)]
fn row(
    id: &str,
    repo: &str,
    version: &str,
    base: &str,
    setup: &str,
    patch: &str,
    test_patch: &str,
    f2p: &[&str],
    p2p: &[&str],
) -> String {
    json!({
        "repo": repo, "instance_id": id, "base_commit": base, "patch": patch,
        "test_patch": test_patch, "problem_statement": "add subtracts",
        "hints_text": "", "created_at": "2024-01-01T00:00:00Z", "version": version,
        "FAIL_TO_PASS": serde_json::to_string(f2p).expect("json"),
        "PASS_TO_PASS": serde_json::to_string(p2p).expect("json"),
        "environment_setup_commit": setup,
    })
    .to_string()
}

#[test]
fn swebench_rows_run_by_the_official_specs_and_parsers_agree_with_their_published_lists() {
    let root = scratch_root().join("swebench-kind");
    let _ = fs::remove_dir_all(&root);
    fs::create_dir_all(&root).expect("mkdir");
    let mut s = Script::new();
    s.write("pyproject.toml", PYPROJECT);
    s.write(
        "calc/__init__.py",
        "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n",
    );
    s.write("calc/version.py", "VERSION = 0\n");
    s.write("tests/runtests.py", RUNTESTS);
    s.write("tests/test_calc.py", DJANGO_TESTS);
    s.write("bin/test", BIN_TEST);
    s.write("tests/sym/test_sym.py", SYMPY_TESTS);
    let base = s.commit("calc");
    // The fix and its tests, as the rows carry them.
    s.write(
        "calc/__init__.py",
        "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
    );
    s.write(
        "tests/test_calc.py",
        &format!("{DJANGO_TESTS}{DJANGO_ADDED}"),
    );
    s.write(
        "tests/sym/test_sym.py",
        &format!("{SYMPY_TESTS}{SYMPY_ADDED}"),
    );
    let fixed = s.commit("fix add");
    let patch = diff(&s, &base, &fixed, &["calc"]);
    let django_tests = diff(&s, &base, &fixed, &["tests/test_calc.py"]);
    let sympy_tests = diff(&s, &base, &fixed, &["tests/sym/test_sym.py"]);
    // A base whose build file is broken: its install fails in the run.
    s.git(&["checkout", "-q", "-b", "broken", &base]);
    s.write("pyproject.toml", "[build-system\nrequires = \n");
    let broken = s.commit("break the build file");

    let test = |name: &str| format!("{name} (test_calc.CalcTests.{name})");
    let p2p = [test("test_mode"), test("test_sub"), test("test_version")];
    let p2p: Vec<&str> = p2p.iter().map(String::as_str).collect();
    let mut wrong_p2p = p2p.clone();
    let mul = test("test_mul");
    wrong_p2p.push(&mul);
    let add = test("test_add");
    let (dj, sy) = ("hunkgen-test/djangoish", "hunkgen-test/sympyish");
    // The Django-style rows differ in version, base and published PASS_TO_PASS only.
    let django_row = |id: &str, version: &str, at: &str, p2p: &[&str]| {
        row(
            id,
            dj,
            version,
            at,
            &base,
            &patch,
            &django_tests,
            &[&add],
            p2p,
        )
    };
    let rows = [
        django_row("djangoish-1", "1.0", &base, &p2p),
        django_row("djangoish-2", "1.0", &base, &wrong_p2p),
        django_row("djangoish-3", "1.0", &broken, &p2p),
        django_row("djangoish-4", "0.1", &base, &p2p),
        row(
            "sympyish-1",
            sy,
            "1.0",
            &base,
            &base,
            &patch,
            &sympy_tests,
            &["test_add"],
            &["test_sub"],
        ),
    ];
    fs::write(root.join("rows.jsonl"), rows.join("\n") + "\n").expect("rows");
    let django_spec = json!({
        "python": "3.11",
        "install": "python -m pip install -e .",
        "pre_install": [
            "apt-get update && apt-get install -y locales",
            "sed -i 's/VERSION = 0/VERSION = 1/' calc/version.py",
        ],
        "eval_commands": ["export CALC_MODE=strict"],
        "test_cmd": "python tests/runtests.py --verbosity 2",
    });
    let mut old_spec = django_spec.clone();
    old_spec["python"] = json!("2.6");
    let extra = json!({
        "specs": {
            dj: {"1.0": django_spec, "0.1": old_spec},
            // Started through a symlink elsewhere, as tox-current-env starts sphinx's
            // tests: the run's interpreter must still see the environment and the install.
            // Its environment is the harness's export below (mock comes only from there).
            sy: {"1.0": {"python": "3.11", "install": "python -m pip install -e .",
                         "test_cmd": "python -c 'import mock' && mkdir -p .tox/py/bin \
                                      && ln -sf \"$(command -v python)\" .tox/py/bin/python \
                                      && .tox/py/bin/python bin/test -C --verbose"}},
        },
        "parsers": {dj: "parse_log_django", sy: "parse_log_sympy"},
    });
    fs::write(root.join("extra.json"), extra.to_string()).expect("extra");
    // The harness's export of sympyish-1's environment, laid out as the official
    // repository keeps them: system libraries and the interpreter (left out), mock as
    // `make deps` puts in uv's cache (for python_auto.rs), and a pin PyPI cannot give.
    let export = root.join("exports/sympyish/1");
    fs::create_dir_all(&export).expect("mkdir");
    fs::write(
        export.join("environment.yml"),
        "name: testbed\nchannels:\n  - defaults\ndependencies:\n  - _libgcc_mutex=0.1=main\n  \
         - python=3.11.7=he870216_1\n  - pip:\n      - mock==4.0.2\n      \
         - hunkgen-no-such-package==1.0\nprefix: /opt/miniconda3/envs/testbed\n",
    )
    .expect("export");
    let recipe = format!(
        "name: swebench-kind\nsource:\n  swebench:\n    instances: rows.jsonl\n    repos:\n      \
         {dj}: {repo}\n      {sy}: {repo}\nselect:\n  min_code_hunks: 1\nvalidate:\n  reruns: 1\n  \
         suites:\n    - name: swebench\n      env:\n        swebench:\n          python: {python}\n          \
         extra: extra.json\n          environments: exports\n      report: swebench\n",
        repo = s.dir.display(),
        python = venv_python("venv-swebench4").display(),
    );
    fs::write(root.join("recipe.yaml"), recipe).expect("recipe");
    let out = build_validated(
        &root.join("recipe.yaml"),
        &root.join("out"),
        &root.join("cache"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read = |f: &str| -> Vec<Value> {
        fs::read_to_string(root.join("out").join(f))
            .expect("read")
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect()
    };
    let instances = read("instances.jsonl");
    let rejected = read("rejected.jsonl");
    let ids: Vec<&str> = instances
        .iter()
        .filter_map(|i| i["instance_id"].as_str())
        .collect();
    assert_eq!(ids, ["djangoish-1", "sympyish-1"], "rejected: {rejected:?}");
    let dj1 = &instances[0];
    assert_eq!(dj1["FAIL_TO_PASS"], json!([add]));
    assert_eq!(dj1["validation"]["published_agrees"], json!(true));
    let rec = &dj1["validation"]["swebench"];
    assert_eq!(rec["parser"], json!("parse_log_django"));
    assert_eq!(
        rec["test_command"],
        json!("python tests/runtests.py --verbosity 2 tests/test_calc.py")
    );
    // The system command is recorded and not run; the tree edit and the export ran
    // (test_version and test_mode pass), and `import calc` came from the install.
    assert_eq!(
        rec["skipped"],
        json!(["apt-get update && apt-get install -y locales"])
    );
    let sym = &instances[1];
    assert_eq!(sym["FAIL_TO_PASS"], json!(["test_add"]));
    assert_eq!(sym["PASS_TO_PASS"], json!(["test_sub"]));
    let sym_rec = &sym["validation"]["swebench"];
    assert_eq!(sym_rec["parser"], json!("parse_log_sympy"));
    assert!(
        sym_rec["export"]
            .as_str()
            .is_some_and(|p| p.ends_with("exports/sympyish/1/environment.yml")),
        "{sym_rec}"
    );
    assert_eq!(sym_rec["left_out"], json!(["hunkgen-no-such-package==1.0"]));
    assert_eq!(
        rec["export"],
        Value::Null,
        "no export for the Django-style rows"
    );
    let reason = |id: &str| -> (String, String) {
        let r = rejected
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id} not rejected: {rejected:?}"));
        (
            r["reason"].as_str().unwrap_or_default().to_string(),
            r["detail"].as_str().unwrap_or_default().to_string(),
        )
    };
    let (why, detail) = reason("djangoish-2");
    assert_eq!(why, "published_disagrees");
    assert_eq!(
        detail,
        format!("PASS_TO_PASS: 1 published but not proven ({mul})")
    );
    let (why, detail) = reason("djangoish-3");
    assert_eq!(why, "environment", "{detail}");
    assert!(
        detail.contains("install failed: python -m pip install -e ."),
        "{detail}"
    );
    let (why, detail) = reason("djangoish-4");
    assert_eq!(why, "unsupported_python", "{detail}");
    assert!(detail.contains("2.6"), "{detail}");
    // A warm rebuild answers from the caches (the helper's answers, the environments,
    // the runs) and writes the same dataset.
    let first = fs::read(root.join("out/instances.jsonl")).expect("instances");
    let remembered = || {
        fs::read_dir(root.join("cache/envs/swebench/answers"))
            .expect("remembered answers")
            .count()
    };
    let before = remembered();
    assert!(
        before >= rows.len(),
        "one remembered answer per row at least"
    );
    let again = build_validated(
        &root.join("recipe.yaml"),
        &root.join("again"),
        &root.join("cache"),
    );
    assert!(again.status.success());
    assert_eq!(
        fs::read(root.join("again/instances.jsonl")).expect("instances"),
        first
    );
    assert_eq!(
        remembered(),
        before,
        "the rebuild asked the package nothing new"
    );
}
