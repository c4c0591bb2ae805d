//! hunkgen's per-test statuses and resolution verdicts against the official `swebench`
//! package's log parser and grading functions, on the same real pytest logs: they must
//! agree on every case (pass, fail, error, skip, xfail and their mixes, a missing test, a
//! suite that did not start), under both of SWE-bench's evaluation types (PASS_AND_FAIL
//! and FAIL_ONLY); and on the statuses of a real JUnit run, with Java test ids. `make
//! deps` installs swebench from PyPI into target/venv-swebench.

use crate::common::{manifest, venv_python as python};
use hunkgen::validate::golden::{
    eval_tests_report, resolution_status, EvalType, GoldenTests, Resolution,
};
use hunkgen::validate::parse::{parse_pytest_log, TestStatus};
use std::collections::BTreeMap;
use std::fs;
use std::process::{Command, Stdio};

/// The official grader's answers for `input` (see scripts/swebench_oracle.py).
fn official(input: &[serde_json::Value]) -> Vec<serde_json::Value> {
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
            .write_all(serde_json::to_string(input).expect("json").as_bytes())
            .expect("write");
    }
    let out = oracle.wait_with_output().expect("oracle output");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answers: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(answers.len(), input.len());
    answers
}

/// hunkgen's verdict in the official grader's words.
fn verdict(
    results: &hunkgen::validate::parse::TestResults,
    f2p: &[String],
    p2p: &[String],
    eval_type: EvalType,
) -> &'static str {
    let gold = GoldenTests {
        fail_to_pass: f2p.to_vec(),
        pass_to_pass: p2p.to_vec(),
        ..GoldenTests::default()
    };
    match resolution_status(&eval_tests_report(results, &gold, false, eval_type)) {
        Resolution::Full => "RESOLVED_FULL",
        Resolution::Partial => "RESOLVED_PARTIAL",
        Resolution::No => "RESOLVED_NO",
    }
}

/// The official name of an evaluation type.
fn eval_type_name(t: EvalType) -> &'static str {
    match t {
        EvalType::PassAndFail => "pass_and_fail",
        EvalType::FailOnly => "fail_only",
    }
}

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
    let mut cases: Vec<(&str, Vec<String>, Vec<String>, &str)> = vec![
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
    // Mixes of error, skip and xfail in both lists.
    cases.extend([
        (
            log.as_str(),
            vec![id("test_pass"), id("test_xfail")],
            vec![id("test_skip"), id("test_param[1]")],
            "passing and xfail F2P, skipped and passing P2P: FULL",
        ),
        (
            log.as_str(),
            vec![id("test_xfail"), id("test_error")],
            vec![id("test_skip")],
            "an xfail and an erroring F2P: PARTIAL",
        ),
        (
            log.as_str(),
            vec![id("test_error"), id("test_skip")],
            vec![id("test_pass")],
            "an erroring and a skipped F2P: NO",
        ),
        (
            log.as_str(),
            vec![id("test_pass"), id("test_skip")],
            vec![id("test_xfail"), id("test_error")],
            "a skipped F2P, an erroring P2P: NO",
        ),
        (
            log.as_str(),
            vec![id("test_param[1]"), id("test_fail")],
            vec![id("test_skip"), id("test_xfail")],
            "a failing F2P among passing ones, P2P skipped and xfail: PARTIAL",
        ),
    ]);
    let pytest_cases = cases.len();
    // The same logs again under FAIL_ONLY (only a FAILED test counts against).
    cases.extend([
        (
            log.as_str(),
            vec![id("test_pass")],
            vec![id("test_fail")],
            "FAIL_ONLY: a failing P2P: NO",
        ),
        (
            log.as_str(),
            vec![id("test_error"), id("test_skip")],
            vec![id("test_pass")],
            "FAIL_ONLY: erroring and skipped F2P",
        ),
        (
            log.as_str(),
            vec![id("test_missing"), id("test_xfail")],
            vec![id("test_error")],
            "FAIL_ONLY: a missing F2P, an erroring P2P",
        ),
        (
            log.as_str(),
            vec![id("test_pass"), id("test_fail")],
            vec![id("test_skip")],
            "FAIL_ONLY: one F2P fails: PARTIAL",
        ),
        (
            log.as_str(),
            vec![id("test_param[2]")],
            vec![],
            "FAIL_ONLY: the F2P fails: NO",
        ),
        (
            broken.as_str(),
            vec![id("test_a")],
            vec![],
            "FAIL_ONLY: a suite that did not start",
        ),
    ]);
    let eval_type = |i: usize| {
        if i < pytest_cases {
            EvalType::PassAndFail
        } else {
            EvalType::FailOnly
        }
    };
    let input: Vec<serde_json::Value> = cases
        .iter()
        .enumerate()
        .map(|(i, (log, f2p, p2p, _))| {
            serde_json::json!({"log": log, "FAIL_TO_PASS": f2p, "PASS_TO_PASS": p2p,
                               "eval_type": eval_type_name(eval_type(i))})
        })
        .collect();
    let answers = official(&input);
    let mut verdicts = std::collections::BTreeSet::new();
    let mut fail_only = std::collections::BTreeSet::new();
    for (i, ((log, f2p, p2p, what), official)) in cases.iter().zip(&answers).enumerate() {
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
        let ours = verdict(&report.tests, f2p, p2p, eval_type(i));
        assert_eq!(
            Some(ours),
            official["resolution"].as_str(),
            "{what}: verdict"
        );
        if eval_type(i) == EvalType::PassAndFail {
            verdicts.insert(ours);
        } else {
            fail_only.insert(ours);
        }
    }
    assert_eq!(verdicts.len(), 3, "the table covers FULL, PARTIAL and NO");
    assert_eq!(fail_only.len(), 3, "FAIL_ONLY covers FULL, PARTIAL and NO");
}

/// Statuses of a real JUnit run (javac + the console launcher, the way validation runs
/// a Java suite), keyed by hunkgen's Java test ids.
fn junit_results(dir: &std::path::Path) -> hunkgen::validate::parse::TestResults {
    use hunkgen::validate::env::{java_test_command, EnvCache, EnvSpec, JavaSpec};
    use hunkgen::validate::parse::{parse_junit_dir, IdStyle};
    use hunkgen::validate::runner::{RunSpec, Runner, SandboxPolicy};
    let jars: Vec<std::path::PathBuf> = [
        "junit-platform-console-standalone.jar",
        "junit-jupiter-params.jar",
        "junit4.jar",
        "hamcrest-core.jar",
    ]
    .iter()
    .map(|j| std::path::Path::new("/usr/share/java").join(j))
    .collect();
    for j in &jars {
        assert!(j.exists(), "{} missing: run `make deps`", j.display());
    }
    let spec = EnvSpec::Java(JavaSpec {
        jars,
        source_dirs: vec!["src".into()],
        test_dirs: vec!["test".into()],
    });
    let runner = Runner::new(SandboxPolicy::Off).expect("runner");
    let env = EnvCache::new(dir.join("envs"), dir.join("uv"))
        .ensure(&runner, "org/calc", &spec)
        .expect("java environment");
    let tree = dir.join("tree");
    let write = |rel: &str, text: &str| {
        let p = tree.join(rel);
        fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        fs::write(p, text).expect("write");
    };
    write(
        "src/calc/Calc.java",
        "package calc;\npublic class Calc { public static int add(int a, int b) { return a - b; } }\n",
    );
    write(
        "test/calc/CalcTest.java",
        r#"package calc;
import org.junit.jupiter.api.*;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import static org.junit.jupiter.api.Assertions.*;
class CalcTest {
    @Test void zero() { assertEquals(0, Calc.add(0, 0)); }
    @Test void adds() { assertEquals(5, Calc.add(2, 3)); }
    @Test @Disabled("later") void disabled() { }
    @Test void crashes() { throw new IllegalStateException("boom"); }
    @ParameterizedTest @CsvSource({"1, 1", "2, 0"}) void minus(int a, int b) { assertEquals(0, Calc.add(a, b)); }
}
"#,
    );
    write(
        "test/calc/OldTest.java",
        "package calc;\nimport org.junit.Test;\nimport static org.junit.Assert.*;\npublic class OldTest {\n  @Test public void testOld() { assertEquals(0, Calc.add(1, 1)); }\n  @Test public void testOldFails() { assertEquals(2, Calc.add(1, 1)); }\n}\n",
    );
    let cmd = java_test_command(&env, "reports", &[]).expect("command");
    let mut rs = RunSpec::new(cmd, &tree, tree.join("java.log"));
    env.enter(&mut rs);
    let o = runner.run(&rs).expect("runs");
    let results = parse_junit_dir(&tree.join("reports"), IdStyle::Java).expect("reports");
    assert!(
        results.len() >= 8,
        "{results:?}: {}",
        fs::read_to_string(&o.log_path).unwrap_or_default()
    );
    results
}

#[test]
fn junit_ids_get_the_official_verdicts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let results = junit_results(dir.path());
    let statuses: BTreeMap<String, String> = results
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().to_string()))
        .collect();
    let id = |t: &str| t.to_string();
    use EvalType::{FailOnly, PassAndFail};
    // (FAIL_TO_PASS, PASS_TO_PASS, evaluation type, what it covers)
    let cases: Vec<(Vec<String>, Vec<String>, EvalType, &str)> = vec![
        (
            vec![id("calc.CalcTest::zero"), id("calc.OldTest::testOld")],
            vec![id("calc.CalcTest::minus[1]")],
            PassAndFail,
            "Jupiter, vintage and parameterized ids pass: FULL",
        ),
        (
            vec![id("calc.CalcTest::zero"), id("calc.CalcTest::adds")],
            vec![],
            PassAndFail,
            "one F2P fails: PARTIAL",
        ),
        (
            vec![id("calc.CalcTest::zero")],
            vec![id("calc.CalcTest::crashes")],
            PassAndFail,
            "a P2P errors: NO",
        ),
        (
            vec![id("calc.CalcTest::zero")],
            vec![id("calc.CalcTest::disabled")],
            PassAndFail,
            "a disabled P2P is kept: FULL",
        ),
        (
            vec![id("calc.CalcTest::disabled")],
            vec![],
            PassAndFail,
            "a disabled F2P is not resolved",
        ),
        (
            vec![id("calc.CalcTest::minus[2]")],
            vec![],
            PassAndFail,
            "a failing parameterized F2P: NO",
        ),
        (
            vec![id("calc.CalcTest::zero"), id("calc.CalcTest::missing")],
            vec![],
            PassAndFail,
            "a missing F2P fails",
        ),
        (
            vec![id("calc.CalcTest::crashes"), id("calc.CalcTest::disabled")],
            vec![id("calc.OldTest::testOld")],
            FailOnly,
            "FAIL_ONLY: erroring and disabled F2P",
        ),
        (
            vec![id("calc.CalcTest::zero"), id("calc.OldTest::testOldFails")],
            vec![],
            FailOnly,
            "FAIL_ONLY: one F2P fails: PARTIAL",
        ),
        (
            vec![id("calc.CalcTest::zero")],
            vec![id("calc.CalcTest::adds")],
            FailOnly,
            "FAIL_ONLY: a failing P2P: NO",
        ),
    ];
    let input: Vec<serde_json::Value> = cases
        .iter()
        .map(|(f2p, p2p, t, _)| {
            serde_json::json!({"statuses": statuses, "FAIL_TO_PASS": f2p,
                               "PASS_TO_PASS": p2p, "eval_type": eval_type_name(*t)})
        })
        .collect();
    let answers = official(&input);
    let mut verdicts = std::collections::BTreeSet::new();
    for ((f2p, p2p, t, what), official) in cases.iter().zip(&answers) {
        for test in f2p.iter().chain(p2p) {
            assert!(
                results.contains_key(test) || test.ends_with("::missing"),
                "{what}: {test} is not among the JUnit results {results:?}"
            );
        }
        let ours = verdict(&results, f2p, p2p, *t);
        assert_eq!(
            Some(ours),
            official["resolution"].as_str(),
            "{what}: verdict"
        );
        verdicts.insert(ours);
    }
    assert_eq!(verdicts.len(), 3, "the table covers FULL, PARTIAL and NO");
}
