//! Test report parsers (JUnit XML, pytest, Defects4J) and the run verdict they feed.
//!
//! Test ids: Java tests are `pkg.Class::method` (Defects4J's form; `()` and parameter
//! lists stripped, a `[n]` invocation suffix kept); pytest tests are node ids
//! (`tests/test_x.py::TestC::test_a[1-2]`). Statuses carry SWE-bench's `TestStatus`
//! names. A run whose suite never started is an [`InfraFailure`], never "every test
//! failed", so a compile error cannot turn into fail-to-pass labels.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::runner::{ExitKind, RunOutcome};

/// One test's status, named as in SWE-bench's `TestStatus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TestStatus {
    /// Ran and passed (pytest XPASS counts here, as in its JUnit report).
    Passed,
    /// An assertion failed.
    Failed,
    /// The test errored (JUnit `<error>`, pytest fixture error).
    Error,
    /// Skipped or disabled.
    Skipped,
    /// pytest expected failure that failed as expected (SWE-bench counts it as passing).
    Xfail,
}

impl TestStatus {
    /// SWE-bench's spelling, e.g. `PASSED`.
    pub fn as_str(self) -> &'static str {
        match self {
            TestStatus::Passed => "PASSED",
            TestStatus::Failed => "FAILED",
            TestStatus::Error => "ERROR",
            TestStatus::Skipped => "SKIPPED",
            TestStatus::Xfail => "XFAIL",
        }
    }
}

/// Per-test statuses of one run, keyed by test id (sorted, so output is stable).
pub type TestResults = BTreeMap<String, TestStatus>;

/// Why a run produced no usable test results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InfraKind {
    /// The run hit its timeout.
    Timeout,
    /// pytest could not import/collect a test module.
    CollectionError,
    /// Non-zero exit and no results: build, compile or start-up failure.
    BuildFailure,
    /// Exit 0 but no test results at all (wrong test selection, reports not written).
    NoResults,
    /// The build tool could not resolve a dependency offline (`maven: auto`).
    Unresolved,
    /// The code under test did not compile (`maven: auto`).
    CompileError,
    /// The test code did not compile (`maven: auto`): before a fix, a test calling
    /// what the fix adds.
    TestCompileError,
    /// The selected test classes exist but ran no test (JUnit 5 under an old surefire).
    ZeroTests,
    /// A setup step of the run failed before any test (`env: swebench`: the spec's
    /// `pre_install` or install in the working copy).
    Environment,
}

/// The prefix of the line a kind's run script ends its log with to say why no test
/// ran (`hunkgen: compile_error: …`); the build tool's own words are above it.
pub const MARK: &str = "hunkgen: ";

/// The kind a run's log names on one of its last lines, with that line's words.
fn marked(tail: &str) -> Option<(InfraKind, String)> {
    let line = tail.rsplit(" | ").find_map(|l| l.strip_prefix(MARK))?;
    let (code, why) = line.split_once(": ").unwrap_or((line, ""));
    let kind = match code {
        "dependency_unresolvable" => InfraKind::Unresolved,
        "compile_error" => InfraKind::CompileError,
        "test_compile_error" => InfraKind::TestCompileError,
        "zero_tests" => InfraKind::ZeroTests,
        "environment" => InfraKind::Environment,
        _ => return None,
    };
    Some((kind, format!("{code}: {why}")))
}

/// A run whose suite did not run: kind, a human reason, and the log to read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InfraFailure {
    /// The category.
    pub kind: InfraKind,
    /// One or a few lines: exit status, collection errors, the log's last lines.
    pub reason: String,
    /// The run's log.
    pub log_path: PathBuf,
}

/// The verdict on one run: test statuses, or an infrastructure failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunResult {
    /// The suite ran; these are its tests.
    Tests(TestResults),
    /// The suite did not run.
    Infra(InfraFailure),
}

/// A report that could not be read or parsed.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// Reading a report file failed.
    #[error("cannot read test report {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Malformed XML.
    #[error("test report {path} is not well-formed XML: {message}")]
    Xml {
        /// The file (or `<text>`).
        path: PathBuf,
        /// The XML parser's message with its position.
        message: String,
    },
}

/// How JUnit `testcase` elements become ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdStyle {
    /// `classname::name` with `()`/parameter lists stripped (Surefire, Ant, Gradle,
    /// JUnit console launcher).
    Java,
    /// pytest node ids from `file`/`classname`/`name` (use `-o junit_family=xunit1` so
    /// the `file` attribute is present).
    Pytest,
}

/// Parses one JUnit XML document (a `<testsuites>` or `<testsuite>` root, nested
/// suites allowed). A test reported twice keeps its worst status.
pub fn parse_junit_xml(text: &str, style: IdStyle, path: &Path) -> Result<TestResults, ParseError> {
    let doc = roxmltree::Document::parse(text).map_err(|e| ParseError::Xml {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let mut out = TestResults::new();
    for case in doc.descendants().filter(|n| n.has_tag_name("testcase")) {
        let (id, status) = junit_case(&case, style);
        insert_worst(&mut out, id, status);
    }
    Ok(out)
}

/// Reads every `TEST-*.xml` report directly in `dir` (e.g. `target/surefire-reports`,
/// `build/test-results/test`, the console launcher's `--reports-dir`) and merges them.
/// A missing directory yields no results (the verdict then calls it an infra failure).
pub fn parse_junit_dir(dir: &Path, style: IdStyle) -> Result<TestResults, ParseError> {
    let mut out = TestResults::new();
    let files = junit_files(dir);
    for path in files {
        let text = fs::read_to_string(&path).map_err(|source| ParseError::Read {
            path: path.clone(),
            source,
        })?;
        for (id, status) in parse_junit_xml(&text, style, &path)? {
            insert_worst(&mut out, id, status);
        }
    }
    Ok(out)
}

/// The id and status of one `<testcase>`.
fn junit_case(case: &roxmltree::Node, style: IdStyle) -> (String, TestStatus) {
    let suite_name = case
        .ancestors()
        .find(|n| n.has_tag_name("testsuite"))
        .and_then(|s| s.attribute("name"))
        .unwrap_or("");
    let classname = case
        .attribute("classname")
        .filter(|c| !c.is_empty())
        .unwrap_or(suite_name);
    let name = case.attribute("name").unwrap_or("");
    let id = match style {
        IdStyle::Java => java_id(classname, name),
        IdStyle::Pytest => pytest_id(case.attribute("file"), classname, name),
    };
    (id, junit_case_status(case))
}

/// Status of one `<testcase>` from its children.
fn junit_case_status(case: &roxmltree::Node) -> TestStatus {
    let mut status = TestStatus::Passed;
    for child in case.children().filter(|c| c.is_element()) {
        let s = match child.tag_name().name() {
            "failure" | "rerunFailure" => TestStatus::Failed,
            "error" | "rerunError" => TestStatus::Error,
            "skipped" => {
                // pytest writes xfail as <skipped type="pytest.xfail">.
                if child.attribute("type") == Some("pytest.xfail") {
                    TestStatus::Xfail
                } else {
                    TestStatus::Skipped
                }
            }
            // Surefire's flakyFailure/flakyError: failed, then passed on a rerun.
            _ => continue,
        };
        status = worst(status, s);
    }
    status
}

/// Keeps the more severe of two reports of the same test.
fn worst(a: TestStatus, b: TestStatus) -> TestStatus {
    let rank = |s| match s {
        TestStatus::Error => 4,
        TestStatus::Failed => 3,
        TestStatus::Skipped => 2,
        TestStatus::Xfail => 1,
        TestStatus::Passed => 0,
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

fn insert_worst(out: &mut TestResults, id: String, status: TestStatus) {
    let s = out.get(&id).map_or(status, |old| worst(*old, status));
    out.insert(id, s);
}

/// `pkg.Class::method`, with `()` or a parameter list removed from the method name:
/// `add(int, int)[2]` → `add[2]`.
pub fn java_id(classname: &str, name: &str) -> String {
    let method = match (name.find('('), name.find(')')) {
        (Some(open), Some(close)) if open < close && !name[..open].contains('[') => {
            format!("{}{}", &name[..open], &name[close + 1..])
        }
        _ => name.to_string(),
    };
    format!("{classname}::{method}")
}

/// A pytest node id from a JUnit testcase: `file` attribute when present (xunit1),
/// otherwise the classname split into module path and `Test*` classes.
fn pytest_id(file: Option<&str>, classname: &str, name: &str) -> String {
    let parts: Vec<&str> = classname.split('.').filter(|p| !p.is_empty()).collect();
    let (file, classes): (String, Vec<&str>) = match file {
        Some(f) => {
            let module_depth = f.trim_end_matches(".py").split('/').count();
            (
                f.to_string(),
                parts.iter().skip(module_depth).copied().collect(),
            )
        }
        None => {
            let first_class = parts
                .iter()
                .position(|p| p.starts_with("Test"))
                .unwrap_or(parts.len());
            (
                format!("{}.py", parts[..first_class].join("/")),
                parts[first_class..].to_vec(),
            )
        }
    };
    let mut id = file;
    for c in classes {
        id.push_str("::");
        id.push_str(c);
    }
    id.push_str("::");
    id.push_str(name);
    id
}

/// A pytest node id in JUnit's dotted form: `tests/test_x.py::C::t[1]` → `tests.test_x.C.t[1]`.
fn dotted_node_id(id: &str) -> String {
    let (file, rest) = id.split_once("::").unwrap_or((id, ""));
    let module = file.trim_end_matches(".py").replace('/', ".");
    if rest.is_empty() {
        module
    } else {
        format!("{module}.{}", rest.replace("::", "."))
    }
}

/// What a pytest run reported: tests and collection errors.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PytestReport {
    /// Per-test statuses by node id.
    pub tests: TestResults,
    /// Modules (or messages) that failed to collect.
    pub collection_errors: Vec<String>,
}

/// Parses pytest's `-rA` short test summary from a log: `PASSED id`, `FAILED id - msg`,
/// `ERROR id - msg`, `XFAIL id - reason`, `XPASS id` (→ PASSED). `SKIPPED` summary
/// lines carry a location, not a node id; skips come from the JUnit XML. An `ERROR`
/// without `::` is a collection error, as is "error(s) during collection".
pub fn parse_pytest_log(log: &str) -> PytestReport {
    let mut rep = PytestReport::default();
    let mut in_summary = false;
    for line in log.lines() {
        let t = line.trim_end();
        if t.starts_with('=') && t.contains("short test summary info") {
            in_summary = true;
            continue;
        }
        if t.contains("error during collection") || t.contains("errors during collection") {
            let msg = t
                .trim_matches(|c: char| c == '!' || c == '=' || c == ' ')
                .to_string();
            if !rep.collection_errors.contains(&msg) {
                rep.collection_errors.push(msg);
            }
        }
        if !in_summary {
            continue;
        }
        if t.starts_with('=') {
            in_summary = false;
            continue;
        }
        let Some((word, rest)) = t.split_once(' ') else {
            continue;
        };
        let status = match word {
            "PASSED" | "XPASS" => TestStatus::Passed,
            "FAILED" => TestStatus::Failed,
            "ERROR" => TestStatus::Error,
            "XFAIL" => TestStatus::Xfail,
            _ => continue,
        };
        let id = summary_node_id(rest);
        if id.is_empty() {
            continue;
        }
        if status == TestStatus::Error && !id.contains("::") {
            rep.collection_errors.push(id);
            continue;
        }
        insert_worst(&mut rep.tests, id, status);
    }
    rep
}

/// The node id at the start of a summary line's remainder: up to " - " outside the
/// parametrize brackets (ids may contain spaces and dashes inside `[...]`).
fn summary_node_id(rest: &str) -> String {
    let mut depth = 0i32;
    let bytes = rest.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'[' => depth += 1,
            b']' => depth -= 1,
            b' ' if depth <= 0 && rest[i..].starts_with(" - ") => return rest[..i].to_string(),
            _ => {}
        }
    }
    rest.trim().to_string()
}

/// Merges a pytest JUnit report (for skips and for tests the summary omits) with the
/// `-rA` summary (authoritative for the ids and statuses it lists). Collection errors
/// also come from JUnit testcases that report a "collection failure".
pub fn parse_pytest(
    junit_xml: Option<&str>,
    log: &str,
    xml_path: &Path,
) -> Result<PytestReport, ParseError> {
    let mut rep = parse_pytest_log(log);
    let logged: std::collections::HashSet<String> =
        rep.tests.keys().map(|id| dotted_node_id(id)).collect();
    if let Some(xml) = junit_xml {
        let doc = roxmltree::Document::parse(xml).map_err(|e| ParseError::Xml {
            path: xml_path.to_path_buf(),
            message: e.to_string(),
        })?;
        for case in doc.descendants().filter(|n| n.has_tag_name("testcase")) {
            let collect_fail = case.children().any(|c| {
                c.has_tag_name("error")
                    && c.attribute("message")
                        .is_some_and(|m| m.contains("collection failure"))
            });
            if collect_fail {
                // pytest's pseudo-testcase for a module that failed to import.
                let module = case.attribute("name").unwrap_or("").replace('.', "/") + ".py";
                if !rep.collection_errors.iter().any(|e| e.contains(&module)) {
                    rep.collection_errors.push(module);
                }
                continue;
            }
            // The `-rA` summary names tests exactly; the XML's classname is dotted and
            // cannot always be split into file and classes (a `StatsTest` class in
            // `tests/test_stats.py`), so a case the summary already has is skipped.
            let dotted = format!(
                "{}.{}",
                case.attribute("classname").unwrap_or(""),
                case.attribute("name").unwrap_or("")
            );
            if logged.contains(&dotted) {
                continue;
            }
            let (id, status) = junit_case(&case, IdStyle::Pytest);
            rep.tests.entry(id).or_insert(status);
        }
    }
    Ok(rep)
}

/// One entry of Defects4J's `failing_tests` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailingTest {
    /// `pkg.Class::method` (or just `pkg.Class` for a class-level failure).
    pub id: String,
    /// The stack trace lines that follow the `---` header.
    pub trace: String,
}

/// Parses Defects4J's `failing_tests`: `--- pkg.Class::method` then its stack trace.
pub fn parse_defects4j_failing(text: &str) -> Vec<FailingTest> {
    let mut out: Vec<FailingTest> = Vec::new();
    for line in text.lines() {
        if let Some(id) = line.strip_prefix("--- ") {
            out.push(FailingTest {
                id: id.trim().to_string(),
                trace: String::new(),
            });
        } else if let Some(last) = out.last_mut() {
            if !last.trace.is_empty() {
                last.trace.push('\n');
            }
            last.trace.push_str(line);
        }
    }
    out
}

/// Defects4J failing tests as statuses (all FAILED); the passing ones are not listed
/// in that file, so callers combine this with the list of tests that ran.
pub fn defects4j_results(failing: &[FailingTest]) -> TestResults {
    failing
        .iter()
        .map(|f| (f.id.clone(), TestStatus::Failed))
        .collect()
}

/// Said in a collection error's reason when the log shows Python 2 code run by Python 3:
/// the instance is `unsupported_python`, not an infrastructure failure.
pub const PYTHON2_CODE: &str = "the tree is Python 2 code, which this Python 3 cannot run";

/// Modules of Python 2's standard library that Python 3 renamed or removed.
const PYTHON2_MODULES: &[&str] = &[
    "cStringIO",
    "StringIO",
    "cPickle",
    "urllib2",
    "urlparse",
    "ConfigParser",
    "Queue",
    "__builtin__",
    "httplib",
    "HTMLParser",
    "Cookie",
    "cookielib",
    "SocketServer",
    "Tkinter",
    "commands",
    "sets",
];

/// The line of a run's log that shows Python 2 code under Python 3: an import of a
/// module only Python 2 had, or a `print`/`exec` statement.
pub fn python2_evidence(log: &Path) -> Option<String> {
    let text = std::fs::read(log).ok()?;
    let text = String::from_utf8_lossy(&text);
    text.lines().map(str::trim).find_map(|line| {
        let statement = line.contains("SyntaxError: Missing parentheses in call to 'print'")
            || line.contains("SyntaxError: Missing parentheses in call to 'exec'");
        let module = line
            .split_once("No module named '")
            .and_then(|(_, rest)| rest.split_once('\''))
            .map(|(name, _)| name)
            .is_some_and(|name| PYTHON2_MODULES.contains(&name));
        (statement || module).then(|| {
            line.trim_start_matches(|c: char| c == 'E' || c.is_whitespace())
                .to_string()
        })
    })
}

/// The verdict on one run from its outcome and what its reports said.
pub fn verdict(
    outcome: &RunOutcome,
    tests: TestResults,
    collection_errors: &[String],
) -> RunResult {
    let infra = |kind, reason: String| {
        RunResult::Infra(InfraFailure {
            kind,
            reason,
            log_path: outcome.log_path.clone(),
        })
    };
    let tail = log_tail(&outcome.log_path, 5);
    if outcome.timed_out {
        return infra(
            InfraKind::Timeout,
            format!("timed out after {:.1}s", outcome.duration.as_secs_f64()),
        );
    }
    if !collection_errors.is_empty() {
        let mut reason = format!("collection error: {}", collection_errors.join("; "));
        if let Some(evidence) = python2_evidence(&outcome.log_path) {
            reason.push_str(&format!("; {PYTHON2_CODE} ({evidence})"));
        }
        return infra(InfraKind::CollectionError, reason);
    }
    if tests.is_empty() {
        if let Some((kind, why)) = marked(&log_tail(&outcome.log_path, 3)) {
            return infra(kind, format!("{why}; log ends: {tail}"));
        }
        return match outcome.exit {
            ExitKind::Code(0) => infra(
                InfraKind::NoResults,
                format!("exit 0 but no test results; log ends: {tail}"),
            ),
            ExitKind::Code(c) => infra(
                InfraKind::BuildFailure,
                format!(
                    "exit code {c} and no test results (build or start failure); log ends: {tail}"
                ),
            ),
            ExitKind::Signal(s) => infra(
                InfraKind::BuildFailure,
                format!("killed by signal {s} before any test result; log ends: {tail}"),
            ),
        };
    }
    RunResult::Tests(tests)
}

/// The last `n` non-empty lines of a log file, joined with " | " (empty if unreadable).
pub fn log_tail(path: &Path, n: usize) -> String {
    let text = fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    text_tail(&text, n)
}

/// The last `n` non-empty lines of a log's text, joined with " | ".
pub fn text_tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}

#[cfg(test)]
mod pytest_class_ids {
    use super::*;

    /// A unittest-style class whose name does not start with `Test`: the `-rA` summary's
    /// node id is kept and the XML's dotted classname does not add a second id.
    #[test]
    fn unittest_class_not_named_test_is_counted_once() {
        let xml = r#"<testsuites><testsuite><testcase classname="tests.test_stats.StatsTest" name="test_median_even" time="0.001"/></testsuite></testsuites>"#;
        let log = "===== short test summary info =====\nPASSED tests/test_stats.py::StatsTest::test_median_even\n===== 1 passed in 0.01s =====\n";
        let rep = parse_pytest(Some(xml), log, Path::new("pytest.xml")).expect("parses");
        assert_eq!(
            rep.tests.keys().collect::<Vec<_>>(),
            ["tests/test_stats.py::StatsTest::test_median_even"]
        );
    }
}

/// Failure messages and stack traces of the failing tests of JUnit XML reports (JUnit,
/// Surefire, pytest's `--junitxml`), keyed like the statuses: what a failing test says.
pub fn junit_failures(
    files: &[PathBuf],
    style: IdStyle,
) -> BTreeMap<String, crate::model::Failure> {
    let mut out = BTreeMap::new();
    for path in files {
        let Ok(text) = fs::read_to_string(path) else {
            continue;
        };
        let Ok(doc) = roxmltree::Document::parse(&text) else {
            continue;
        };
        for case in doc.descendants().filter(|n| n.has_tag_name("testcase")) {
            let Some(f) = case
                .children()
                .find(|c| c.has_tag_name("failure") || c.has_tag_name("error"))
            else {
                continue;
            };
            let (id, _) = junit_case(&case, style);
            let trace: Vec<&str> = f.text().unwrap_or("").lines().take(TRACE_LINES).collect();
            out.entry(id.clone()).or_insert(crate::model::Failure {
                test: id,
                message: f
                    .attribute("message")
                    .unwrap_or("")
                    .lines()
                    .next()
                    .unwrap_or("")
                    .chars()
                    .take(500)
                    .collect(),
                trace: trace.join("\n"),
            });
        }
    }
    out
}

/// Lines of a stack trace kept in a failure statement.
pub const TRACE_LINES: usize = 20;

/// The `TEST-*.xml` files of a report directory, sorted.
pub fn junit_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("TEST-") && n.ends_with(".xml"))
        })
        .collect();
    files.sort();
    files
}

#[cfg(test)]
mod tests;
