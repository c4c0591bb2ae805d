//! The prompt of `hunkgen run`: the built-in templates (one for every dataset, one after
//! the agent study's for Defects4J bugs), the placeholders they and an agent's own
//! template fill, the hints of each prompt variant, and the bug reports a user gives
//! with `--reports`.

use super::{d4j, Ctx, PromptVariant};
use crate::model::Instance;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The built-in prompt; an agent's `prompt:` file may use the same placeholders.
pub const DEFAULT_PROMPT: &str = "\
You are working on the repository in {workdir} (instance {instance_id}).
Fix the bug described below by changing the source code. Do not change the tests.
When you are done, stop: the changes you left in the working directory are collected
as your patch.

## Problem

{problem_statement}

## Failing tests

These tests fail now and must pass after your change (other tests must keep passing):

{fail_to_pass}
{hints}";

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

impl Ctx<'_> {
    /// The instance's prompt: the agent's template, else the built-in one (the agent
    /// study's for a Defects4J bug with its build and test commands).
    pub(super) fn prompt(
        &self,
        inst: &Instance,
        work: &Path,
        private: &Path,
        mcp_config: &Path,
        d4j: bool,
    ) -> String {
        let template = match (self.template, d4j) {
            (Some(t), _) => t,
            (None, true) => DEFAULT_D4J_PROMPT,
            (None, false) => DEFAULT_PROMPT,
        };
        let report = self.opts.reports.get(&inst.instance_id);
        let mut vars = vec![
            ("workdir", work.display().to_string()),
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
            ("hints", hints(inst, self.opts.variant, mcp_config)),
            ("mcp_config", mcp_config.display().to_string()),
        ];
        for (name, (_, path)) in COMMANDS.iter().zip(d4j::Tools::commands(private)) {
            vars.push((
                name,
                if d4j {
                    path.display().to_string()
                } else {
                    String::new()
                },
            ));
        }
        // The user's text last, so no placeholder inside it is filled.
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
            ("bug_report", bug_report(inst, report)),
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

/// Replace `{name}` placeholders.
pub fn fill(template: &str, vars: &[(&str, String)]) -> String {
    let mut out = template.to_string();
    for (k, v) in vars {
        out = out.replace(&format!("{{{k}}}"), v);
    }
    out
}

/// The prompt's hints for a variant.
pub fn hints(inst: &Instance, variant: PromptVariant, mcp_config: &Path) -> String {
    match variant {
        PromptVariant::Plain => String::new(),
        PromptVariant::Files => {
            let mut files: Vec<&str> = inst
                .hunks
                .iter()
                .filter(|h| h.counted)
                .map(|h| h.file.as_str())
                .collect();
            files.dedup();
            let list: Vec<String> = files.iter().map(|f| format!("- {f}")).collect();
            format!("\n## Where\n\nThe fix changes these files:\n\n{}\n", list.join("\n"))
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
                "\n## Where\n\nThe fix changes these places (buggy-side lines):\n\n{}\n",
                list.join("\n")
            )
        }
        PromptVariant::Mcp => format!(
            "\n## Repository context\n\nA Model Context Protocol server named `hunkgen` serves this repository \
             (configuration: {}). Its tools find a class or method anywhere or in a file, find code, \
             give a class skeleton (package, imports, signatures) and the repository structure, \
             with file and line ranges. Use them to locate the code to change.\n",
            mcp_config.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
