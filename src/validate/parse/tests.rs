//! Unit tests of the report parsers: Surefire, Gradle and Ant XML, pytest summaries,
//! Defects4J failing-test files, and the run verdict.

use super::*;
use std::time::Duration;

fn p() -> &'static Path {
    Path::new("<text>")
}

#[test]
fn surefire_report_with_failure_error_skip_and_flaky_rerun() {
    let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="3.0" name="org.apache.commons.lang3.StringUtilsTest" time="0.2" tests="5" errors="1" skipped="1" failures="1">
  <properties><property name="java.version" value="1.8.0_292"/></properties>
  <testcase name="testJoin" classname="org.apache.commons.lang3.StringUtilsTest" time="0.01"/>
  <testcase name="testSplit" classname="org.apache.commons.lang3.StringUtilsTest" time="0.02">
    <failure message="expected:&lt;1&gt; but was:&lt;2&gt;" type="junit.framework.AssertionFailedError">junit.framework.AssertionFailedError: expected:&lt;1&gt; but was:&lt;2&gt;
	at org.apache.commons.lang3.StringUtilsTest.testSplit(StringUtilsTest.java:42)</failure>
  </testcase>
  <testcase name="testNpe" classname="org.apache.commons.lang3.StringUtilsTest" time="0">
    <error message="boom" type="java.lang.NullPointerException">java.lang.NullPointerException</error>
  </testcase>
  <testcase name="testIgnored" classname="org.apache.commons.lang3.StringUtilsTest" time="0"><skipped/></testcase>
  <testcase name="testFlaky" classname="org.apache.commons.lang3.StringUtilsTest" time="0.1">
    <flakyFailure message="once" type="java.lang.AssertionError"><stackTrace>x</stackTrace></flakyFailure>
  </testcase>
</testsuite>"#;
    let r = parse_junit_xml(xml, IdStyle::Java, p()).unwrap();
    let c = "org.apache.commons.lang3.StringUtilsTest::";
    assert_eq!(r[&format!("{c}testJoin")], TestStatus::Passed);
    assert_eq!(r[&format!("{c}testSplit")], TestStatus::Failed);
    assert_eq!(r[&format!("{c}testNpe")], TestStatus::Error);
    assert_eq!(r[&format!("{c}testIgnored")], TestStatus::Skipped);
    assert_eq!(r[&format!("{c}testFlaky")], TestStatus::Passed);
    assert_eq!(r.len(), 5);
}

#[test]
fn gradle_nested_suites_and_ant_without_classname() {
    let gradle = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="com.example.CalcTest" tests="2" skipped="0" failures="1" errors="0" timestamp="2024-01-01T00:00:00" hostname="h" time="0.01">
    <properties/>
    <testcase name="adds()" classname="com.example.CalcTest" time="0.001"/>
    <testcase name="divides(int, int)[2]" classname="com.example.CalcTest" time="0.001"><failure message="x" type="org.opentest4j.AssertionFailedError">x</failure></testcase>
    <system-out><![CDATA[]]></system-out>
  </testsuite>
</testsuites>"#;
    let r = parse_junit_xml(gradle, IdStyle::Java, p()).unwrap();
    assert_eq!(r["com.example.CalcTest::adds"], TestStatus::Passed);
    assert_eq!(r["com.example.CalcTest::divides[2]"], TestStatus::Failed);
    let ant = r#"<testsuite name="org.jfree.chart.AxisTest" tests="1"><testcase name="testEquals" time="0.0"/></testsuite>"#;
    let r = parse_junit_xml(ant, IdStyle::Java, p()).unwrap();
    assert_eq!(
        r["org.jfree.chart.AxisTest::testEquals"],
        TestStatus::Passed
    );
}

#[test]
fn malformed_xml_is_an_error_naming_the_file() {
    let e = parse_junit_xml(
        "<testsuite><testcase>",
        IdStyle::Java,
        Path::new("r/TEST-x.xml"),
    )
    .unwrap_err();
    assert!(e.to_string().contains("r/TEST-x.xml"), "{e}");
}

#[test]
fn java_ids_strip_parentheses_and_parameters() {
    assert_eq!(java_id("a.B", "test()"), "a.B::test");
    assert_eq!(java_id("a.B", "test"), "a.B::test");
    assert_eq!(java_id("a.B", "add(int, int)[1]"), "a.B::add[1]");
    assert_eq!(java_id("a.B", "[1] x(y)"), "a.B::[1] x(y)");
}

#[test]
fn pytest_ids_from_classname_without_file_attribute() {
    assert_eq!(
        pytest_id(None, "tests.test_x", "test_a[1-2]"),
        "tests/test_x.py::test_a[1-2]"
    );
    assert_eq!(
        pytest_id(None, "tests.test_x.TestC", "test_b"),
        "tests/test_x.py::TestC::test_b"
    );
    assert_eq!(
        pytest_id(Some("tests/test_x.py"), "tests.test_x.TestC", "test_b"),
        "tests/test_x.py::TestC::test_b"
    );
}

#[test]
fn pytest_summary_with_parametrized_ids_and_messages() {
    let log = "\
============================= test session starts ==============================
collected 7 items

tests/test_x.py .F.sxX                                                    [100%]

=========================== short test summary info ============================
PASSED tests/test_x.py::test_a[1-2]
PASSED tests/test_x.py::test_a[a - b]
FAILED tests/test_x.py::TestC::test_b - assert 1 == 2
ERROR tests/test_x.py::test_e - RuntimeError: fixture
SKIPPED [1] tests/test_x.py:20: unconditional skip
XFAIL tests/test_x.py::test_xf - known bug
XPASS tests/test_x.py::test_xp
======== 1 failed, 2 passed, 1 skipped, 1 xfailed, 1 xpassed, 1 error in 0.05s ========
";
    let r = parse_pytest_log(log);
    assert!(r.collection_errors.is_empty());
    assert_eq!(r.tests["tests/test_x.py::test_a[1-2]"], TestStatus::Passed);
    assert_eq!(
        r.tests["tests/test_x.py::test_a[a - b]"],
        TestStatus::Passed
    );
    assert_eq!(
        r.tests["tests/test_x.py::TestC::test_b"],
        TestStatus::Failed
    );
    assert_eq!(r.tests["tests/test_x.py::test_e"], TestStatus::Error);
    assert_eq!(r.tests["tests/test_x.py::test_xf"], TestStatus::Xfail);
    assert_eq!(r.tests["tests/test_x.py::test_xp"], TestStatus::Passed);
    assert_eq!(r.tests.len(), 6);
}

#[test]
fn pytest_collection_error_in_summary() {
    let log = "\
==================================== ERRORS ====================================
______________________ ERROR collecting tests/test_bad.py ______________________
E   ModuleNotFoundError: No module named 'nope'
=========================== short test summary info ============================
ERROR tests/test_bad.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
";
    let r = parse_pytest_log(log);
    assert!(r.tests.is_empty());
    assert!(
        r.collection_errors.iter().any(|e| e == "tests/test_bad.py"),
        "{:?}",
        r.collection_errors
    );
}

#[test]
fn defects4j_failing_tests_file() {
    let text = "\
--- org.apache.commons.lang3.math.NumberUtilsTest::TestLang747
java.lang.NumberFormatException: For input string: \"80000000\"
\tat java.lang.Integer.parseInt(Integer.java:583)
\tat org.apache.commons.lang3.math.NumberUtils.createInteger(NumberUtils.java:684)
--- org.apache.commons.lang3.math.NumberUtilsTest::testCreateNumber
junit.framework.AssertionFailedError: expected:<4> but was:<5>
";
    let f = parse_defects4j_failing(text);
    assert_eq!(f.len(), 2);
    assert_eq!(
        f[0].id,
        "org.apache.commons.lang3.math.NumberUtilsTest::TestLang747"
    );
    assert!(f[0].trace.starts_with("java.lang.NumberFormatException"));
    assert_eq!(f[0].trace.lines().count(), 3);
    let r = defects4j_results(&f);
    assert_eq!(
        r["org.apache.commons.lang3.math.NumberUtilsTest::testCreateNumber"],
        TestStatus::Failed
    );
}

fn outcome(exit: ExitKind, timed_out: bool, log: &Path) -> RunOutcome {
    RunOutcome {
        exit,
        timed_out,
        duration: Duration::from_millis(5),
        log_path: log.to_path_buf(),
        sandboxed: false,
        process_limit_enforced: true,
    }
}

#[test]
fn verdict_separates_infra_failures_from_test_failures() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.log");
    fs::write(&log, "javac: error: cannot find symbol\n1 error\n").unwrap();
    let one: TestResults = [("a.B::t".to_string(), TestStatus::Failed)].into();
    match verdict(
        &outcome(ExitKind::Code(1), false, &log),
        TestResults::new(),
        &[],
    ) {
        RunResult::Infra(f) => {
            assert_eq!(f.kind, InfraKind::BuildFailure);
            assert!(
                f.reason.contains("exit code 1") && f.reason.contains("1 error"),
                "{}",
                f.reason
            );
        }
        other => panic!("{other:?}"),
    }
    let r = verdict(
        &outcome(ExitKind::Code(0), false, &log),
        TestResults::new(),
        &[],
    );
    assert!(matches!(
        r,
        RunResult::Infra(InfraFailure {
            kind: InfraKind::NoResults,
            ..
        })
    ));
    let r = verdict(&outcome(ExitKind::Code(1), true, &log), one.clone(), &[]);
    assert!(matches!(
        r,
        RunResult::Infra(InfraFailure {
            kind: InfraKind::Timeout,
            ..
        })
    ));
    let r = verdict(
        &outcome(ExitKind::Code(2), false, &log),
        TestResults::new(),
        &["t/x.py".into()],
    );
    assert!(matches!(
        r,
        RunResult::Infra(InfraFailure {
            kind: InfraKind::CollectionError,
            ..
        })
    ));
    assert_eq!(
        verdict(&outcome(ExitKind::Code(1), false, &log), one.clone(), &[]),
        RunResult::Tests(one)
    );
}

/// A kind's last-line mark names why nothing ran; an unknown mark, a mark above the
/// last lines or one beside test results changes nothing.
#[test]
fn a_marked_log_names_its_infrastructure_kind() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.log");
    let kind = |text: &str, exit: i32, tests: TestResults| {
        fs::write(&log, text).unwrap();
        match verdict(&outcome(ExitKind::Code(exit), false, &log), tests, &[]) {
            RunResult::Infra(f) => Some((f.kind, f.reason)),
            RunResult::Tests(_) => None,
        }
    };
    let cases = [
        ("dependency_unresolvable", InfraKind::Unresolved, 1),
        ("compile_error", InfraKind::CompileError, 1),
        ("test_compile_error", InfraKind::TestCompileError, 1),
        ("zero_tests", InfraKind::ZeroTests, 0),
    ];
    for (code, want, exit) in cases {
        let text = format!("[ERROR] BUILD FAILURE\n\n{MARK}{code}: because\n");
        let (k, reason) = kind(&text, exit, TestResults::new()).unwrap();
        assert_eq!(k, want, "{code}");
        assert!(reason.starts_with(&format!("{code}: because")), "{reason}");
    }
    let (k, _) = kind("x\nhunkgen: no_such_reason: y\n", 1, TestResults::new()).unwrap();
    assert_eq!(k, InfraKind::BuildFailure);
    let buried = format!("{MARK}compile_error: old\na\nb\nc\nd\n");
    assert_eq!(
        kind(&buried, 1, TestResults::new()).unwrap().0,
        InfraKind::BuildFailure
    );
    let one: TestResults = [("a.B::t".to_string(), TestStatus::Failed)].into();
    assert_eq!(kind(&format!("{MARK}zero_tests: x\n"), 0, one), None);
}

#[test]
fn a_collection_error_from_python_2_code_says_so_and_others_do_not() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.log");
    // pytest's words for dateutil's 2003-2010 test.py under Python 3.
    fs::write(
        &log,
        "collected 0 items / 1 errors\nImportError while importing test module 'test.py'.\n\
         E   ModuleNotFoundError: No module named 'cStringIO'\n\
         !!!!!!!! Interrupted: 1 errors during collection !!!!!!!!\n",
    )
    .unwrap();
    assert_eq!(
        python2_evidence(&log).as_deref(),
        Some("ModuleNotFoundError: No module named 'cStringIO'")
    );
    let collect = |log: &Path| match verdict(
        &outcome(ExitKind::Code(2), false, log),
        TestResults::new(),
        &["test.py".into()],
    ) {
        RunResult::Infra(f) => f,
        other => panic!("{other:?}"),
    };
    let f = collect(&log);
    assert_eq!(f.kind, InfraKind::CollectionError);
    assert!(
        f.reason.ends_with(&format!(
            "{PYTHON2_CODE} (ModuleNotFoundError: No module named 'cStringIO')"
        )),
        "{}",
        f.reason
    );
    fs::write(&log, "  File \"t.py\", line 3\n    print 'x'\nSyntaxError: Missing parentheses in call to 'print'. Did you mean print(...)?\n").unwrap();
    assert!(collect(&log).reason.contains(PYTHON2_CODE));
    // A module a Python 3 project lacks (its own dependency) is not Python 2 code.
    fs::write(
        &log,
        "E   ModuleNotFoundError: No module named 'hypothesis'\n",
    )
    .unwrap();
    assert_eq!(python2_evidence(&log), None);
    assert!(!collect(&log).reason.contains(PYTHON2_CODE));
}
