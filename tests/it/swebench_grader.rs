//! hunkgen's per-test statuses and resolution verdicts against the official `swebench`
//! package's log parser and grading functions, on the same real pytest logs: they must
//! agree on every case (pass, fail, error, skip, xfail, a missing test, a suite that did
//! not start). `make deps` installs swebench from PyPI into target/venv-swebench.

use crate::common::{manifest, venv_python as python};
use hunkgen::validate::golden::{
    eval_tests_report, resolution_status, EvalType, GoldenTests, Resolution,
};
use hunkgen::validate::parse::{parse_pytest_log, TestStatus};
use std::fs;
use std::process::{Command, Stdio};

/// A real `pytest -rA` log of a module with every outcome.
fn pytest_log(dir: &std::path::Path, module: &str) -> String {
    fs::write(dir.join("test_mod.py"), module).expect("module");
    let out = Command::new(python("venv-validate"))
        .args([
            "-m",
            "pytest",
            "-rA",
            "-p",
            "no:cacheprovider",
            "test_mod.py",
        ])
        .current_dir(dir)
        .output()
        .expect("pytest runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn statuses_and_verdicts_agree_with_the_official_grader() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = pytest_log(
        dir.path(),
        r#"
import pytest

def test_pass():
    assert True

def test_fail():
    assert 1 == 2

@pytest.fixture
def broken():
    raise RuntimeError("fixture")

def test_error(broken):
    pass

@pytest.mark.skip(reason="not here")
def test_skip():
    pass

@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False

@pytest.mark.parametrize("x", [1, 2])
def test_param(x):
    assert x == 1
"#,
    );
    let broken = pytest_log(
        dir.path(),
        "import no_such_module_anywhere\n\ndef test_a():\n    pass\n",
    );
    let id = |t: &str| format!("test_mod.py::{t}");
    // (log, FAIL_TO_PASS, PASS_TO_PASS, what it covers)
    let cases: Vec<(&str, Vec<String>, Vec<String>, &str)> = vec![
        (
            &log,
            vec![id("test_pass")],
            vec![],
            "an F2P that passes: FULL",
        ),
        (
            &log,
            vec![id("test_pass"), id("test_fail")],
            vec![],
            "one F2P fails: PARTIAL",
        ),
        (&log, vec![id("test_fail")], vec![], "the F2P fails: NO"),
        (
            &log,
            vec![id("test_pass")],
            vec![id("test_error")],
            "a P2P errors: NO",
        ),
        (
            &log,
            vec![id("test_pass")],
            vec![id("test_skip")],
            "a skipped P2P is kept: FULL",
        ),
        (
            &log,
            vec![id("test_skip")],
            vec![],
            "a skipped F2P is not resolved",
        ),
        (
            &log,
            vec![id("test_xfail")],
            vec![],
            "an xfail F2P counts as passing",
        ),
        (
            &log,
            vec![id("test_pass"), id("test_missing")],
            vec![],
            "a missing F2P fails",
        ),
        (
            &log,
            vec![id("test_param[1]")],
            vec![id("test_param[2]")],
            "parametrized ids",
        ),
        (
            &broken,
            vec![id("test_a")],
            vec![],
            "a suite that did not start: NO",
        ),
    ];
    let input: Vec<serde_json::Value> = cases
        .iter()
        .map(|(log, f2p, p2p, _)| {
            serde_json::json!({"log": log, "FAIL_TO_PASS": f2p, "PASS_TO_PASS": p2p})
        })
        .collect();
    let mut oracle = Command::new(python("venv-swebench"))
        .arg(manifest().join("scripts/swebench_oracle.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("oracle runs");
    {
        use std::io::Write;
        let mut stdin = oracle.stdin.take().expect("stdin");
        stdin
            .write_all(serde_json::to_string(&input).expect("json").as_bytes())
            .expect("write");
    }
    let out = oracle.wait_with_output().expect("oracle output");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answers: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(answers.len(), cases.len());
    let mut verdicts = std::collections::BTreeSet::new();
    for ((log, f2p, p2p, what), official) in cases.iter().zip(&answers) {
        let report = parse_pytest_log(log);
        let ours: std::collections::BTreeMap<String, String> = report
            .tests
            .iter()
            .map(|(k, v): (&String, &TestStatus)| (k.clone(), v.as_str().to_string()))
            .collect();
        let theirs: std::collections::BTreeMap<String, String> =
            serde_json::from_value(official["statuses"].clone()).expect("statuses");
        if report.collection_errors.is_empty() {
            assert_eq!(ours, theirs, "{what}: per-test statuses");
        } else {
            // hunkgen calls it an infrastructure failure: no test ran. The official parser
            // may list the module's ERROR line; no test of the golden lists is among them.
            assert!(ours.is_empty(), "{what}");
            assert!(
                f2p.iter().all(|t| !theirs.contains_key(t)),
                "{what}: {theirs:?}"
            );
        }
        let gold = GoldenTests {
            fail_to_pass: f2p.clone(),
            pass_to_pass: p2p.clone(),
            ..GoldenTests::default()
        };
        let verdict = resolution_status(&eval_tests_report(
            &report.tests,
            &gold,
            false,
            EvalType::PassAndFail,
        ));
        let ours = match verdict {
            Resolution::Full => "RESOLVED_FULL",
            Resolution::Partial => "RESOLVED_PARTIAL",
            Resolution::No => "RESOLVED_NO",
        };
        assert_eq!(
            Some(ours),
            official["resolution"].as_str(),
            "{what}: verdict"
        );
        verdicts.insert(ours);
    }
    assert_eq!(verdicts.len(), 3, "the table covers FULL, PARTIAL and NO");
}
