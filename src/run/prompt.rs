//! The prompt of `hunkgen run`: the built-in templates (FixedBench's four instructions,
//! the harness's own template with its hints, and one after the agent study's for
//! Defects4J bugs), the placeholders they and an agent's own template fill, the hints of
//! each prompt variant, and the bug reports a user gives with `--reports`.
//!
//! No built-in template names the golden tests, and none claims what only holds on some
//! states (that a bug is there, that tests fail now): the same prompt goes to Novel,
//! Partial and Resolved states. `{fail_to_pass}` stays for an agent's own template.

use super::{d4j, Ctx, PromptVariant};
use crate::model::Instance;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The harness's built-in prompt (`plain`, `files`, `hunks`, `mcp`): true on every
/// state, whether or not the problem is still there. An agent's `prompt:` file may use
/// the same placeholders, and `{fail_to_pass}` besides.
pub const DEFAULT_PROMPT: &str = "\
You are working on the repository in {workdir} (instance {instance_id}).
The problem below was reported for this repository. If it still occurs in the code as
it is now, change the source code so that it no longer does. Do not change the tests.
When you are done, stop: the changes you left in the working directory are collected
as your patch.

## Problem

{problem_statement}
{hints}";

/// `edit` (FixedBench's second instruction): change the code so the issue is addressed.
pub const EDIT_PROMPT: &str = "\
Make changes to the code of this repository so that the issue below is addressed.

## Issue

{problem_statement}
";

/// `reproduce` (FixedBench's third instruction): reproduce the issue, then address it.
pub const REPRODUCE_PROMPT: &str = "\
Start by reproducing the issue below in this repository. Once you have reproduced it,
make changes to the code so that the issue is addressed.

## Issue

{problem_statement}
";

/// `abstain-or-fix` (FixedBench's fourth instruction): reproduce the issue, then either
/// address it or, when there is nothing to fix, change nothing; either is a success.
pub const ABSTAIN_OR_FIX_PROMPT: &str = "\
Start by trying to reproduce the issue below in this repository. Then do one of two
things:

- if the issue occurs, make changes to the code so that it is addressed;
- if it does not occur and there is nothing to fix, leave the repository exactly as it
  is.

Both are successful outcomes: leaving the code unchanged is the right answer when the
issue is already resolved.

## Issue

{problem_statement}
";

/// The built-in prompt for a Defects4J bug, after the agent study's template: the task,
/// the bug report, the workflow, the build and test commands, the success criteria.
pub const DEFAULT_D4J_PROMPT: &str = "\
Fix a bug in a Java project. The project contains failing test cases that expose the
bug. The project is in {workdir} (Defects4J bug {instance_id}).

## Bug report

{bug_report}

## Workflow

1. Identify the failing tests: run the bug-exposing tests and read their stack traces.
2. Diagnose the root cause in the source code; the fix may need changes in several
   places.
3. Fix the source code. Do not change the tests.
4. Verify: compile, run the bug-exposing tests, then the whole test suite.
5. Make sure no other test fails (no regressions).

## Build and test commands

- `{compile_command}`: compiles the project (`defects4j compile`).
- `{test_command}`: runs the bug-exposing tests (`defects4j test -t`, one by one) and
  prints each failing test with its complete stack trace.
- `{all_tests_command}`: runs the whole test suite (`defects4j test`) and prints each
  failing test with its complete stack trace.

Each command copies the current state of {workdir} into a separate build directory
first, so run them after every change.
{hints}
## Success criteria

Zero compilation errors and zero test failures. When you are done, stop: the changes
you left in {workdir} are collected as your patch.
";

/// The placeholders naming the agent's Defects4J commands, in [`d4j::ToolAction::ALL`]'s
/// order (empty for an instance without them).
pub(super) const COMMANDS: [&str; 3] = ["compile_command", "test_command", "all_tests_command"];

/// The built-in template of a variant; `d4j` for a Defects4J bug served by the
/// Defects4J loop (`plain`, `files`, `hunks` and `mcp` then follow the agent study's
/// template). `None` for `issue`, whose prompt is the problem statement as it is.
pub fn builtin_template(variant: PromptVariant, d4j: bool) -> Option<&'static str> {
    match variant {
        PromptVariant::Issue => None,
        PromptVariant::Edit => Some(EDIT_PROMPT),
        PromptVariant::Reproduce => Some(REPRODUCE_PROMPT),
        PromptVariant::AbstainOrFix => Some(ABSTAIN_OR_FIX_PROMPT),
        PromptVariant::Plain | PromptVariant::Files | PromptVariant::Hunks | PromptVariant::Mcp => {
            Some(if d4j {
                DEFAULT_D4J_PROMPT
            } else {
                DEFAULT_PROMPT
            })
        }
    }
}

impl Ctx<'_> {
    /// The instance's prompt: the agent's template, else the variant's built-in one
    /// (the agent study's for a Defects4J bug with its build and test commands; the
    /// problem statement verbatim for `issue`).
    pub(super) fn prompt(
        &self,
        inst: &Instance,
        variant: PromptVariant,
        work: &Path,
        private: &Path,
        mcp_config: &Path,
        d4j: bool,
    ) -> String {
        Render {
            template: self.template,
            variant,
            d4j,
            work,
            private,
            mcp_config,
            report: self.opts.reports.get(&inst.instance_id),
        }
        .render(inst)
    }
}

/// What an instance's prompt is made from besides the instance.
struct Render<'a> {
    /// The agent's own template (`None`: the variant's built-in one).
    template: Option<&'a str>,
    /// The prompt variant.
    variant: PromptVariant,
    /// A Defects4J bug served by the Defects4J loop.
    d4j: bool,
    /// The agent's working copy.
    work: &'a Path,
    /// The agent's private directory (its Defects4J commands).
    private: &'a Path,
    /// The MCP configuration file.
    mcp_config: &'a Path,
    /// The instance's bug report from `--reports`.
    report: Option<&'a BugReport>,
}

impl Render<'_> {
    /// The prompt of `inst`.
    fn render(&self, inst: &Instance) -> String {
        let template = match self.template {
            Some(t) => t,
            None => match builtin_template(self.variant, self.d4j) {
                Some(t) => t,
                None => return inst.problem_statement.clone(),
            },
        };
        let report = self.report;
        let mut vars = vec![
            ("workdir", self.work.display().to_string()),
            ("instance_id", inst.instance_id.clone()),
            (
                "problem_statement",
                inst.problem_statement.trim().to_string(),
            ),
            (
                "fail_to_pass",
                inst.FAIL_TO_PASS
                    .iter()
                    .map(|t| format!("- {t}"))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            ("hints", hints(inst, self.variant, self.mcp_config)),
            ("mcp_config", self.mcp_config.display().to_string()),
        ];
        for (name, (_, path)) in COMMANDS.iter().zip(d4j::Tools::commands(self.private)) {
            vars.push((
                name,
                if self.d4j {
                    path.display().to_string()
                } else {
                    String::new()
                },
            ));
        }
        let url = inst
            .report
            .as_ref()
            .map(|r| r.url.clone())
            .unwrap_or_default();
        vars.extend([
            ("report_url", url),
            (
                "report_title",
                report
                    .map(|r| r.title.trim().to_string())
                    .unwrap_or_default(),
            ),
            (
                "report_description",
                report
                    .map(|r| r.description.trim().to_string())
                    .unwrap_or_default(),
            ),
            (
                "report_body",
                report
                    .map(|r| r.description.trim().to_string())
                    .unwrap_or_default(),
            ),
            ("bug_report", bug_report(inst, report)),
            ("failures", failures(inst)),
        ]);
        fill(template, &vars)
    }
}

/// A bug report the user gives for an instance (`--reports`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BugReport {
    /// The instance (`Cli_1`; `Cli-1` also names it).
    #[serde(alias = "instance_id")]
    pub id: String,
    /// The report's title.
    #[serde(default)]
    pub title: String,
    /// The report's description.
    #[serde(default)]
    pub description: String,
    /// Where it was fetched from (`hunkgen reports`), not used in the prompt.
    #[serde(default)]
    pub url: Option<String>,
    /// Its tracker (`jira`, `github`, `sourceforge`, `google-code`).
    #[serde(default)]
    pub tracker: Option<String>,
}

/// A reports file that cannot be used, with its place.
#[derive(Debug, thiserror::Error)]
pub enum ReportsError {
    /// The file cannot be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A line is not a report.
    #[error("{}:{line}: not a bug report ({what}); expected {{\"id\", \"title\", \"description\"}}", path.display())]
    Row {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The JSON error.
        what: String,
    },
    /// Two lines name the same instance.
    #[error("{}:{line}: a second report for `{id}`", path.display())]
    Duplicate {
        /// The file.
        path: PathBuf,
        /// 1-based line of the second one.
        line: usize,
        /// The instance.
        id: String,
    },
}

/// Bug reports by instance id.
pub type Reports = BTreeMap<String, BugReport>;

/// Read a reports file: JSON Lines of `{"id", "title", "description"}`; an id in
/// Defects4J's form (`Cli-1`) names the instance `Cli_1`.
pub fn read_reports(path: &Path) -> Result<Reports, ReportsError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReportsError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut out = Reports::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let r: BugReport = serde_json::from_str(line).map_err(|e| ReportsError::Row {
            path: path.to_path_buf(),
            line: i + 1,
            what: e.to_string(),
        })?;
        let id = normalize_id(&r.id);
        if out.insert(id.clone(), r).is_some() {
            return Err(ReportsError::Duplicate {
                path: path.to_path_buf(),
                line: i + 1,
                id,
            });
        }
    }
    Ok(out)
}

/// `Cli-1` → `Cli_1` (Defects4J's bug name to the instance id); other ids unchanged.
fn normalize_id(id: &str) -> String {
    match id.rsplit_once('-') {
        Some((p, n))
            if !p.is_empty()
                && p.chars().all(|c| c.is_ascii_alphanumeric())
                && !n.is_empty()
                && n.chars().all(|c| c.is_ascii_digit()) =>
        {
            format!("{p}_{n}")
        }
        _ => id.to_string(),
    }
}

/// The `{failures}` block: each FAIL_TO_PASS test's failure before the fix, its message
/// and trimmed stack trace, as validation recorded them: the error messages of the
/// failing tests that RepoFixEval's issue-discovery task starts from.
pub fn failures(inst: &Instance) -> String {
    inst.failures
        .iter()
        .map(|f| {
            let (message, trace) = (f.message.trim(), f.trace.trim());
            let body = match (
                message.is_empty() || trace.contains(message),
                trace.is_empty(),
            ) {
                (true, _) => trace.to_string(),
                (false, true) => message.to_string(),
                (false, false) => format!("{message}\n{trace}"),
            };
            format!("--- {}\n{body}", f.test)
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The `{bug_report}` block: the report's title and description when given, and the
/// instance's report URL either way.
pub fn bug_report(inst: &Instance, report: Option<&BugReport>) -> String {
    let url = inst.report.as_ref().map(|r| r.url.as_str()).unwrap_or("");
    let mut out = String::new();
    if let Some(r) = report {
        if !r.title.trim().is_empty() {
            out.push_str(&format!("Title: {}\n\n", r.title.trim()));
        }
        if !r.description.trim().is_empty() {
            out.push_str(&format!("{}\n\n", r.description.trim()));
        }
    }
    if out.is_empty() {
        out.push_str("No report text is given.\n\n");
    }
    if !url.is_empty() {
        out.push_str(&format!("Report: {url}\n"));
    }
    out.trim_end().to_string()
}

/// Replace `{name}` placeholders in one pass: text a value brings in is never filled
/// again (a problem statement that says `{fail_to_pass}` stays as it is). An unknown
/// `{name}` is left as it is.
pub fn fill(template: &str, vars: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let hit = vars.iter().find(|(k, _)| {
            tail.strip_prefix('{')
                .and_then(|t| t.strip_prefix(*k))
                .is_some_and(|t| t.starts_with('}'))
        });
        match hit {
            Some((k, v)) => {
                out.push_str(v);
                rest = &tail[k.len() + 2..];
            }
            None => {
                out.push('{');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The prompt's hints for a variant (none for FixedBench's instructions and `plain`).
/// They say where the reference fix changes the code, which is true whether or not the
/// state still needs it.
pub fn hints(inst: &Instance, variant: PromptVariant, mcp_config: &Path) -> String {
    match variant {
        PromptVariant::Plain
        | PromptVariant::Issue
        | PromptVariant::Edit
        | PromptVariant::Reproduce
        | PromptVariant::AbstainOrFix => String::new(),
        PromptVariant::Files => {
            let mut files: Vec<&str> = inst
                .hunks
                .iter()
                .filter(|h| h.counted)
                .map(|h| h.file.as_str())
                .collect();
            files.dedup();
            let list: Vec<String> = files.iter().map(|f| format!("- {f}")).collect();
            format!(
                "\n## Where\n\nThe reference fix for this problem changes these files:\n\n{}\n",
                list.join("\n")
            )
        }
        PromptVariant::Hunks => {
            let list: Vec<String> = inst
                .hunks
                .iter()
                .filter(|h| h.counted)
                .map(|h| {
                    let end = h.span.end.max(h.span.start);
                    format!("- {} lines {}-{}", h.file, h.span.start, end)
                })
                .collect();
            format!(
                "\n## Where\n\nThe reference fix for this problem changes these places (line \
                 numbers of the code before that fix):\n\n{}\n",
                list.join("\n")
            )
        }
        PromptVariant::Mcp => format!(
            "\n## Repository context\n\nA Model Context Protocol server named `hunkgen` serves this repository \
             (configuration: {}). Its tools find a class or method anywhere or in a file, find code, \
             give a class skeleton (package, imports, signatures) and the repository structure, \
             with file and line ranges. Use them to find the code the problem concerns.\n",
            mcp_config.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An instance with two golden tests and a problem statement that has surrounding
    /// whitespace and a placeholder's name in it.
    fn instance() -> Instance {
        serde_json::from_value(serde_json::json!({
            "schema_version": 1, "instance_id": "acme_1", "repo": "acme",
            "base_commit": "b", "patch": "", "test_patch": "",
            "problem_statement": "  Sorting drops {fail_to_pass} items.\n\nSteps: run it.\n\n",
            "hints_text": "", "created_at": "", "version": "",
            "FAIL_TO_PASS": ["tests/test_sort.py::test_keeps_all", "SortTest.keepsAll"],
            "PASS_TO_PASS": ["tests/test_sort.py::test_empty"],
            "environment_setup_commit": "b", "source": "git", "fix_commit": "f",
            "project": "acme", "hunks": [], "files": [], "stats": {
                "hunks": 0, "files": 0, "raw_hunks": 0, "raw_files": 0,
                "lines_added": 0, "lines_removed": 0, "patch_spread": 0
            }
        }))
        .expect("an instance")
    }

    fn render(
        inst: &Instance,
        template: Option<&str>,
        variant: PromptVariant,
        d4j: bool,
    ) -> String {
        Render {
            template,
            variant,
            d4j,
            work: Path::new("/w/repo"),
            private: Path::new("/w/private"),
            mcp_config: Path::new("/w/private/mcp.json"),
            report: None,
        }
        .render(inst)
    }

    #[test]
    fn no_builtin_variant_names_the_golden_tests_and_issue_is_verbatim() {
        let inst = instance();
        assert_eq!(PromptVariant::default_for(false), PromptVariant::Issue);
        assert_eq!(PromptVariant::default_for(true), PromptVariant::Plain);
        assert_eq!(
            render(&inst, None, PromptVariant::Issue, false),
            inst.problem_statement,
            "issue is the task text as it is, untrimmed"
        );
        for variant in PromptVariant::ALL {
            for d4j in [false, true] {
                let p = render(&inst, None, variant, d4j);
                for t in inst.FAIL_TO_PASS.iter().chain(&inst.PASS_TO_PASS) {
                    assert!(!p.contains(t.as_str()), "{variant:?} names {t}: {p}");
                }
                assert!(
                    !p.contains("Failing tests") && !p.contains("fail now"),
                    "{variant:?}: {p}"
                );
                if !d4j {
                    // The task text is there, its placeholder-like words left alone.
                    assert!(
                        p.contains("Sorting drops {fail_to_pass} items."),
                        "{variant:?}: {p}"
                    );
                }
            }
        }
        let reproduce = render(&inst, None, PromptVariant::Reproduce, false);
        assert!(reproduce.to_lowercase().contains("reproduc"), "{reproduce}");
        let abstain = render(&inst, None, PromptVariant::AbstainOrFix, false);
        assert!(
            abstain.contains("leave the repository exactly as it")
                && abstain.contains("successful"),
            "{abstain}"
        );
        // An agent's own template may still list them.
        let own = render(
            &inst,
            Some("{problem_statement}\n{fail_to_pass}\n"),
            PromptVariant::Issue,
            false,
        );
        assert!(
            own.ends_with("- tests/test_sort.py::test_keeps_all\n- SortTest.keepsAll\n"),
            "{own}"
        );
        assert!(
            own.starts_with("Sorting drops {fail_to_pass} items."),
            "{own}"
        );
    }

    #[test]
    fn fill_is_one_pass() {
        let vars = [("a", "{b}".to_string()), ("b", "B".to_string())];
        assert_eq!(fill("{a}-{b}-{c}-{", &vars), "{b}-B-{c}-{");
        assert_eq!(fill("x{a", &vars), "x{a");
    }

    #[test]
    fn reports_are_read_by_instance_id_and_checked() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("reports.jsonl");
        std::fs::write(
            &p,
            "{\"id\": \"Cli-1\", \"title\": \"T\", \"description\": \"D\"}\n\n{\"instance_id\": \"acme_1\", \"title\": \"U\"}\n",
        )
        .expect("write");
        let r = read_reports(&p).expect("reads");
        assert_eq!(r["Cli_1"].title, "T");
        assert_eq!(r["acme_1"].description, "");
        std::fs::write(&p, "{\"id\": \"Cli_1\"}\n{\"id\": \"Cli-1\"}\n").expect("write");
        let e = read_reports(&p).expect_err("duplicate").to_string();
        assert!(e.ends_with(":2: a second report for `Cli_1`"), "{e}");
        std::fs::write(&p, "{\"id\": \"x\", \"titel\": \"T\"}\n").expect("write");
        let e = read_reports(&p).expect_err("unknown key").to_string();
        assert!(
            e.contains(":1: not a bug report") && e.contains("titel"),
            "{e}"
        );
        assert_eq!(normalize_id("commons-cli-5"), "commons-cli-5");
        assert_eq!(normalize_id("Lang-x"), "Lang-x");
    }

    /// A report fills `{report_title}` and `{report_body}` (what `hunkgen reports` writes,
    /// its `url` and `tracker` read past); `{failures}` lists each failing test with its
    /// trace, the message first where the trace lacks it.
    #[test]
    fn report_body_and_failures_fill_their_placeholders() {
        let mut inst = instance();
        inst.failures = vec![
            crate::model::Failure {
                test: "SortTest::keepsAll".into(),
                message: "expected 3 but was 2".into(),
                trace: "java.lang.AssertionError: expected 3 but was 2\n\tat SortTest.keepsAll"
                    .into(),
            },
            crate::model::Failure {
                test: "tests/test_sort.py::test_keeps_all".into(),
                message: "assert 2 == 3".into(),
                trace: "tests/test_sort.py:4: in test_keeps_all".into(),
            },
        ];
        let report: BugReport = serde_json::from_str(
            "{\"id\": \"acme_1\", \"title\": \" Sort drops items \", \"description\": \"It drops.\", \
             \"url\": \"https://x/browse/A-1\", \"tracker\": \"jira\"}",
        )
        .expect("a fetched report reads");
        let p = Render {
            template: Some("[{report_title}] {report_body}\n{failures}"),
            variant: PromptVariant::Issue,
            d4j: false,
            work: Path::new("/w/repo"),
            private: Path::new("/w/private"),
            mcp_config: Path::new("/w/private/mcp.json"),
            report: Some(&report),
        }
        .render(&inst);
        assert_eq!(
            p,
            "[Sort drops items] It drops.\n--- SortTest::keepsAll\njava.lang.AssertionError: \
             expected 3 but was 2\n\tat SortTest.keepsAll\n\n--- tests/test_sort.py::test_keeps_all\n\
             assert 2 == 3\ntests/test_sort.py:4: in test_keeps_all"
        );
    }
}
