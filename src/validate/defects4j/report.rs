//! Reads what one Defects4J run leaves behind (`all_tests`, `failing_tests`, its log)
//! and decides what the run says: per-test outcomes with traces, a compile error with
//! the compiler's first errors, or an infrastructure failure.
//!
//! Pure functions over text, so every verdict is unit-tested without Defects4J.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::model::Failure;
use crate::validate::parse::{
    parse_defects4j_failing, text_tail, FailingTest, InfraFailure, InfraKind, RunResult,
    TestResults, TestStatus, TRACE_LINES,
};
use crate::validate::runner::{ExitKind, RunOutcome};

/// Compiler errors kept in a [`TestOutcome::CompileError`] (the first ones explain the
/// rest; a broken file often yields dozens).
pub const FIRST_ERRORS: usize = 5;

/// What `defects4j compile` said about a working directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompileOutcome {
    /// Sources and tests compiled.
    Compiled,
    /// javac rejected the sources: its first errors, paths relative to the work dir.
    CompileError {
        /// Up to [`FIRST_ERRORS`] errors, each with the source line and caret javac prints.
        first_errors: Vec<String>,
    },
    /// The build did not get as far as the compiler (timeout, Ant or Defects4J failure).
    Infra(InfraFailure),
}

/// What `defects4j test` said about a working directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestOutcome {
    /// The tests ran: a status per test id (`pkg.Class::method`; a class-level failure
    /// under `pkg.Class`) and what each failing one says.
    Tests {
        /// Statuses: every test of `all_tests` passed unless `failing_tests` lists it.
        results: TestResults,
        /// The failing tests' first trace line and trace (first [`TRACE_LINES`] lines).
        failures: BTreeMap<String, Failure>,
    },
    /// The sources or the tests did not compile (Defects4J compiles before it tests).
    CompileError {
        /// Up to [`FIRST_ERRORS`] errors, each with the source line and caret javac prints.
        first_errors: Vec<String>,
    },
    /// No usable results: timeout, a failed run, no tests at all, or every test class
    /// failing to load (a broken class path, never "all tests failed").
    Infra(InfraFailure),
}

impl TestOutcome {
    /// The verdict in the form golden labelling reads ([`crate::validate::golden`]): a
    /// compile error is a build failure there, so it can never label a test. `log_path`
    /// is the run's log, which a compile error's infrastructure failure points to.
    pub fn run_result(&self, log_path: &Path) -> RunResult {
        match self {
            TestOutcome::Tests { results, .. } => RunResult::Tests(results.clone()),
            TestOutcome::CompileError { first_errors } => RunResult::Infra(InfraFailure {
                kind: InfraKind::BuildFailure,
                reason: format!(
                    "compile_error: {}",
                    first_errors.first().map_or("", |e| first_line(e))
                ),
                log_path: log_path.to_path_buf(),
            }),
            TestOutcome::Infra(f) => RunResult::Infra(f.clone()),
        }
    }
}

/// The lines by which Defects4J's drivers report that javac failed
/// (`d4j-compile`, `d4j-test`).
const COMPILE_FAILED: [&str; 3] = [
    "Cannot compile sources!",
    "Cannot compile test suite!",
    "Cannot compile extracted test suite!",
];

/// Why the build could not start because a build tool Defects4J's `init.sh` downloads
/// is missing (the Gradle wrapper finds no distribution offline): an infrastructure
/// failure of the machine, never a compile error of the version.
pub fn missing_build_tool(log: &str) -> Option<String> {
    if !log.contains("org.gradle.wrapper") {
        return None;
    }
    let line = log.lines().map(str::trim).find(|l| {
        l.contains("java.io.FileNotFoundException")
            || l.contains("java.net.UnknownHostException")
            || l.contains("java.net.ConnectException")
    })?;
    let line = line.strip_prefix("[exec]").map_or(line, str::trim_start);
    Some(format!(
        "Defects4J's Gradle distribution is not installed (init.sh downloads it): {}",
        line.chars().take(300).collect::<String>()
    ))
}

/// True when the log shows that Defects4J stopped because javac failed.
pub fn is_compile_failure(log: &str) -> bool {
    COMPILE_FAILED.iter().any(|m| log.contains(m))
}

/// javac's first errors in an Ant log: each `…: error: …` line with the source line and
/// caret that follow it, Ant's `[javac]` prefix removed and `workdir/` stripped from
/// paths. When no such line is found (an Ant-level failure), the log's last lines.
pub fn compile_errors(log: &str, workdir: &Path) -> Vec<String> {
    let prefix = format!("{}/", workdir.display());
    let lines: Vec<String> = log
        .lines()
        .map(|l| {
            let l = l.trim_start();
            let l = l.strip_prefix("[javac]").unwrap_or(l);
            l.strip_prefix(' ').unwrap_or(l).replace(&prefix, "")
        })
        .collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() && out.len() < FIRST_ERRORS {
        if lines[i].contains(": error:") {
            let mut block = lines[i].trim_end().to_string();
            // javac prints the offending source line and a caret under the error.
            for next in lines.iter().skip(i + 1).take(2) {
                if next.contains(": error:") || next.trim().ends_with(" error") {
                    break;
                }
                if next.trim().ends_with(" errors") || next.trim().is_empty() {
                    break;
                }
                block.push('\n');
                block.push_str(next.trim_end());
            }
            out.push(block);
        }
        i += 1;
    }
    if out.is_empty() {
        out.push(text_tail(log, 5));
    }
    out
}

/// The ids of Defects4J's `all_tests` (`method(pkg.Class)` per line) as
/// `pkg.Class::method`, in file order; lines of another shape are skipped.
pub fn parse_all_tests(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim();
            let inner = line.strip_suffix(')')?;
            let open = inner.rfind('(')?;
            let (method, class) = (&inner[..open], &inner[open + 1..]);
            (!method.is_empty() && !class.is_empty()).then(|| format!("{class}::{method}"))
        })
        .collect()
}

/// True for a `failing_tests` entry that is a whole test class (no `::method`) which
/// could not be loaded: what every entry looks like when the class path is broken.
pub fn is_class_load_failure(f: &FailingTest) -> bool {
    let first = f.trace.lines().next().unwrap_or("");
    !f.id.contains("::")
        && (first.contains("ClassNotFoundException") || first.contains("NoClassDefFoundError"))
}

/// The verdict on one `defects4j test` run: its outcome, its log text, and the contents
/// of `all_tests` and `failing_tests` (None when Defects4J did not write the file).
pub fn test_outcome(
    run: &RunOutcome,
    log: &str,
    workdir: &Path,
    all_tests: Option<&str>,
    failing_tests: Option<&str>,
) -> TestOutcome {
    let infra = |kind, reason: String| {
        TestOutcome::Infra(InfraFailure {
            kind,
            reason,
            log_path: run.log_path.clone(),
        })
    };
    if run.timed_out {
        return infra(
            InfraKind::Timeout,
            format!("timed out after {:.1}s", run.duration.as_secs_f64()),
        );
    }
    if let Some(reason) = missing_build_tool(log) {
        return infra(InfraKind::BuildFailure, reason);
    }
    if is_compile_failure(log) {
        return TestOutcome::CompileError {
            first_errors: compile_errors(log, workdir),
        };
    }
    if let Some(reason) = failed_exit(run.exit, log) {
        return infra(InfraKind::BuildFailure, reason);
    }
    let ran = parse_all_tests(all_tests.unwrap_or(""));
    let failing = parse_defects4j_failing(failing_tests.unwrap_or(""));
    if ran.is_empty() && failing.is_empty() {
        return infra(
            InfraKind::NoResults,
            format!(
                "defects4j test ran no test (all_tests and failing_tests empty); log ends: {}",
                text_tail(log, 5)
            ),
        );
    }
    let failing_ids: std::collections::HashSet<&str> =
        failing.iter().map(|f| f.id.as_str()).collect();
    let passed = ran
        .iter()
        .filter(|t| !failing_ids.contains(t.as_str()))
        .count();
    if passed == 0 && failing.iter().all(is_class_load_failure) {
        let first = failing
            .first()
            .and_then(|f| f.trace.lines().next())
            .unwrap_or("");
        return infra(
            InfraKind::BuildFailure,
            format!(
                "class path broken: every one of {} test classes failed to load and no test ran ({first})",
                failing.len()
            ),
        );
    }
    let mut results = TestResults::new();
    for id in ran {
        results.insert(id, TestStatus::Passed);
    }
    let mut failures = BTreeMap::new();
    for f in &failing {
        // A class-level entry (a class that failed to load, or failed in its
        // @BeforeClass) is the class's own error; its methods keep their statuses.
        let status = if f.id.contains("::") {
            TestStatus::Failed
        } else {
            TestStatus::Error
        };
        results.insert(f.id.clone(), status);
        failures.insert(f.id.clone(), failure(f));
    }
    TestOutcome::Tests { results, failures }
}

/// The verdict on one `defects4j compile` run.
pub fn compile_outcome(run: &RunOutcome, log: &str, workdir: &Path) -> CompileOutcome {
    if run.timed_out {
        return CompileOutcome::Infra(InfraFailure {
            kind: InfraKind::Timeout,
            reason: format!("timed out after {:.1}s", run.duration.as_secs_f64()),
            log_path: run.log_path.clone(),
        });
    }
    if let Some(reason) = missing_build_tool(log) {
        return CompileOutcome::Infra(InfraFailure {
            kind: InfraKind::BuildFailure,
            reason,
            log_path: run.log_path.clone(),
        });
    }
    if is_compile_failure(log) {
        return CompileOutcome::CompileError {
            first_errors: compile_errors(log, workdir),
        };
    }
    match failed_exit(run.exit, log) {
        Some(reason) => CompileOutcome::Infra(InfraFailure {
            kind: InfraKind::BuildFailure,
            reason,
            log_path: run.log_path.clone(),
        }),
        None => CompileOutcome::Compiled,
    }
}

/// Why a run that exited unsuccessfully failed, with the log's last lines.
fn failed_exit(exit: ExitKind, log: &str) -> Option<String> {
    match exit {
        ExitKind::Code(0) => None,
        ExitKind::Code(c) => Some(format!(
            "defects4j exited with code {c}; log ends: {}",
            text_tail(log, 5)
        )),
        ExitKind::Signal(s) => Some(format!(
            "defects4j was killed by signal {s}; log ends: {}",
            text_tail(log, 5)
        )),
    }
}

/// A failing test as the validation record keeps it: first trace line, trimmed trace.
fn failure(f: &FailingTest) -> Failure {
    let trace: Vec<&str> = f.trace.lines().take(TRACE_LINES).collect();
    Failure {
        test: f.id.clone(),
        message: trace
            .first()
            .map_or(String::new(), |l| l.chars().take(500).collect()),
        trace: trace.join("\n"),
    }
}

/// The first line of a possibly multi-line message.
fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::time::Duration;

    fn run(exit: ExitKind, timed_out: bool) -> RunOutcome {
        RunOutcome {
            exit,
            timed_out,
            duration: Duration::from_millis(1500),
            log_path: PathBuf::from("t.log"),
            sandboxed: true,
            process_limit_enforced: true,
        }
    }

    const FAILING: &str = "\
--- org.apache.commons.cli.UtilTest::testStripLeadingHyphens
java.lang.NullPointerException
\tat org.apache.commons.cli.Util.stripLeadingHyphens(Util.java:36)
--- org.apache.commons.cli.bug.BugCLI133Test::testOrder
java.lang.NullPointerException
\tat org.apache.commons.cli.Util.stripLeadingHyphens(Util.java:36)
";
    const ALL: &str = "\
testAnt(org.apache.commons.cli.ApplicationTest)
testStripLeadingHyphens(org.apache.commons.cli.UtilTest)
testOrder(org.apache.commons.cli.bug.BugCLI133Test)
testParams[2](org.example.ParamTest)
";

    #[test]
    fn all_tests_lines_become_class_method_ids() {
        assert_eq!(
            parse_all_tests(ALL),
            [
                "org.apache.commons.cli.ApplicationTest::testAnt",
                "org.apache.commons.cli.UtilTest::testStripLeadingHyphens",
                "org.apache.commons.cli.bug.BugCLI133Test::testOrder",
                "org.example.ParamTest::testParams[2]",
            ]
        );
        assert!(parse_all_tests("garbage\n()\n").is_empty());
    }

    #[test]
    fn failing_tests_fail_and_the_rest_of_all_tests_pass() {
        let w = Path::new("/w");
        let TestOutcome::Tests { results, failures } = test_outcome(
            &run(ExitKind::Code(0), false),
            "",
            w,
            Some(ALL),
            Some(FAILING),
        ) else {
            panic!("tests expected")
        };
        assert_eq!(
            results["org.apache.commons.cli.ApplicationTest::testAnt"],
            TestStatus::Passed
        );
        assert_eq!(
            results["org.apache.commons.cli.bug.BugCLI133Test::testOrder"],
            TestStatus::Failed
        );
        assert_eq!(results.len(), 4);
        let f = &failures["org.apache.commons.cli.UtilTest::testStripLeadingHyphens"];
        assert_eq!(f.message, "java.lang.NullPointerException");
        assert!(f.trace.contains("Util.java:36"));
    }

    #[test]
    fn every_class_failing_to_load_is_infrastructure_not_all_failed() {
        let failing = "\
--- org.apache.commons.cli.ApplicationTest
java.lang.ClassNotFoundException: org.apache.commons.cli.ApplicationTest
\tat org.apache.tools.ant.AntClassLoader.findClassInComponents(AntClassLoader.java:1402)
--- org.apache.commons.cli.BugsTest
java.lang.NoClassDefFoundError: junit/framework/TestCase
";
        match test_outcome(
            &run(ExitKind::Code(0), false),
            "",
            Path::new("/w"),
            Some(""),
            Some(failing),
        ) {
            TestOutcome::Infra(f) => {
                assert_eq!(f.kind, InfraKind::BuildFailure);
                assert!(f.reason.contains("class path broken"), "{}", f.reason);
            }
            other => panic!("{other:?}"),
        }
        // One class failing to load while other tests pass is a test result.
        let some_pass = test_outcome(
            &run(ExitKind::Code(0), false),
            "",
            Path::new("/w"),
            Some(ALL),
            Some(failing),
        );
        let TestOutcome::Tests { results, .. } = some_pass else {
            panic!("{some_pass:?}")
        };
        assert_eq!(
            results["org.apache.commons.cli.BugsTest"],
            TestStatus::Error
        );
    }

    #[test]
    fn timeouts_failed_runs_and_empty_runs_are_infrastructure() {
        let w = Path::new("/w");
        let kind = |o: TestOutcome| match o {
            TestOutcome::Infra(f) => f.kind,
            other => panic!("{other:?}"),
        };
        let t = test_outcome(&run(ExitKind::Signal(15), true), "", w, None, None);
        assert_eq!(kind(t), InfraKind::Timeout);
        let t = test_outcome(
            &run(ExitKind::Code(1), false),
            "Cannot run tests!",
            w,
            Some(ALL),
            None,
        );
        assert_eq!(kind(t), InfraKind::BuildFailure);
        let t = test_outcome(&run(ExitKind::Code(0), false), "", w, Some(""), Some(""));
        assert_eq!(kind(t), InfraKind::NoResults);
    }

    const JAVAC_LOG: &str = "\
compile:
    [javac] Compiling 1 source file to /w/ork/target/classes
    [javac] warning: [options] source value 6 is obsolete and will be removed in a future release
    [javac] /w/ork/src/java/org/apache/commons/cli/Util.java:45: error: illegal start of expression
    [javac]         return str +;
    [javac]                     ^
    [javac] /w/ork/src/java/org/apache/commons/cli/Util.java:65: error: illegal start of expression
    [javac]         return str +;
    [javac]                     ^
    [javac] 2 errors
    [javac] 4 warnings

BUILD FAILED
Cannot compile sources! at framework/bin/d4j/d4j-compile line 82.
";

    #[test]
    fn compile_errors_keep_javac_messages_with_relative_paths() {
        let w = Path::new("/w/ork");
        let errs = compile_errors(JAVAC_LOG, w);
        assert_eq!(errs.len(), 2);
        assert_eq!(
            errs[0],
            "src/java/org/apache/commons/cli/Util.java:45: error: illegal start of expression\n        return str +;\n                    ^"
        );
        let o = compile_outcome(&run(ExitKind::Code(1), false), JAVAC_LOG, w);
        assert!(
            matches!(o, CompileOutcome::CompileError { ref first_errors } if first_errors.len() == 2)
        );
        let t = test_outcome(&run(ExitKind::Code(1), false), JAVAC_LOG, w, None, None);
        assert!(matches!(t, TestOutcome::CompileError { .. }));
        match t.run_result(Path::new("t.log")) {
            RunResult::Infra(f) => {
                assert_eq!(f.kind, InfraKind::BuildFailure);
                assert!(
                    f.reason.starts_with("compile_error: src/java/"),
                    "{}",
                    f.reason
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            compile_outcome(&run(ExitKind::Code(0), false), "BUILD SUCCESSFUL", w),
            CompileOutcome::Compiled
        );
    }

    #[test]
    fn a_missing_gradle_distribution_is_infrastructure_not_a_compile_error() {
        // Mockito-2b's log on a machine whose Defects4J has no Gradle distribution.
        let log = "gradle.compile:\n     [exec] Downloading file:/d4j/framework/lib/build_systems/gradle/dists/gradle-4.9-bin.zip\n     [exec] Exception in thread \"main\" java.lang.RuntimeException: java.io.FileNotFoundException: /d4j/framework/lib/build_systems/gradle/dists/gradle-4.9-bin.zip (No such file or directory)\n     [exec] \tat org.gradle.wrapper.ExclusiveFileAccessManager.access(ExclusiveFileAccessManager.java:78)\nBUILD FAILED\nCannot compile test suite! at /d4j/framework/bin/d4j/d4j-test line 130.\n";
        let r = run(ExitKind::Code(1), false);
        let w = Path::new("/w");
        match test_outcome(&r, log, w, None, None) {
            TestOutcome::Infra(f) => {
                assert_eq!(f.kind, InfraKind::BuildFailure);
                assert!(
                    f.reason.contains("Gradle distribution is not installed"),
                    "{}",
                    f.reason
                );
                assert!(f.reason.contains("gradle-4.9-bin.zip"), "{}", f.reason);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            compile_outcome(&r, log, w),
            CompileOutcome::Infra(_)
        ));
        // A javac failure in a Gradle build stays a compile error.
        let javac =
            "gradle.compile:\n[exec] Foo.java:3: error: ';' expected\nCannot compile sources!\n";
        assert!(matches!(
            compile_outcome(&r, javac, w),
            CompileOutcome::CompileError { .. }
        ));
    }
}
