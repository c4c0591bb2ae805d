//! The judge protocol: the JSON document a judge command reads on stdin, running the
//! command (through the runner: its own process group, a timeout that kills the whole
//! group; not sandboxed, with the caller's environment), and reading its answer
//! `{"labels": [...], "rationale": "..."}` from stdout.

use super::runs::FoundRun;
use crate::model::{Behaviour, RunOutcome, TrajectoryStep, BEHAVIOURS};
use crate::validate::runner::{Command, ExitKind, RunSpec, Runner};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Duration;

/// The protocol's name and version, the document's first field.
pub const PROTOCOL: &str = "hunkgen-judge/1";

/// What the judge is asked to print, repeated in every document so a judge that hands
/// the document to a model needs no prompt of its own to say it.
const ANSWER: &str = "Label the run with every category whose definition its steps (tool \
                      calls and their outputs) show; categories are not exclusive. Print \
                      one JSON object on stdout: {\"labels\": [category ids], \
                      \"rationale\": \"optional, one paragraph\"}.";

/// The document a judge reads on stdin: one run.
#[derive(Debug, Serialize)]
pub struct Document<'a> {
    /// [`PROTOCOL`].
    pub protocol: &'static str,
    /// What to answer.
    pub answer: &'static str,
    /// The run's key (its directory under the runs root).
    pub run: String,
    /// The instance.
    pub instance_id: &'a str,
    /// The agent.
    pub agent: &'a str,
    /// The state the agent was given.
    pub state: &'a str,
    /// The scenario.
    pub scenario: &'a str,
    /// Whether the state held the golden tests.
    pub tests_present: bool,
    /// Which attempt, with `--attempts`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
    /// The instruction (`issue`, `edit`, `reproduce`, `abstain-or-fix`, …).
    pub instruction: &'a str,
    /// How the agent process ended (`completed`, `timeout`, …).
    pub run_outcome: &'static str,
    /// Whether its patch acted on the code, by the abstention rule.
    pub outcome: RunOutcome,
    /// The issue text (the instance's problem statement).
    pub issue: &'a str,
    /// The prompt the agent was given.
    pub prompt: String,
    /// The patch the agent left (what `outcome` was decided on).
    pub patch: String,
    /// The ten categories.
    pub categories: &'static [Behaviour],
    /// The normalized steps, with their tool outputs.
    pub steps: Vec<TrajectoryStep>,
}

impl<'a> Document<'a> {
    /// The document of `run`, whose patch's outcome is `outcome`.
    pub fn new(
        run: &'a FoundRun,
        outcome: RunOutcome,
        issue: &'a str,
        steps: Vec<TrajectoryStep>,
    ) -> Self {
        let r = &run.record;
        Document {
            protocol: PROTOCOL,
            answer: ANSWER,
            run: run.key(),
            instance_id: &r.instance_id,
            agent: &r.agent,
            state: &r.state,
            scenario: &r.scenario,
            tests_present: r.tests_present,
            attempt: r.attempt,
            instruction: &r.prompt_variant,
            run_outcome: r.outcome.name(),
            outcome,
            issue,
            prompt: run.text("prompt.md"),
            patch: run.text("model.patch"),
            categories: &BEHAVIOURS,
            steps,
        }
    }
}

/// A judge's answer, as printed on its stdout.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Answer {
    labels: Vec<String>,
    #[serde(default)]
    rationale: Option<String>,
}

/// Labels in [`BEHAVIOURS`] order, each once.
pub type Labels = Vec<String>;

/// The labels and rationale of a judge's stdout, or one line saying what is wrong with
/// it. The stdout is one JSON object, or ends with one on its last non-empty line (a
/// judge may log before answering).
pub fn parse_answer(stdout: &str) -> Result<(Labels, Option<String>), String> {
    let text = stdout.trim();
    if text.is_empty() {
        return Err(
            "the judge printed nothing on stdout (expected {\"labels\": [...]})".to_string(),
        );
    }
    let answer: Answer = match serde_json::from_str(text) {
        Ok(a) => a,
        Err(whole) => {
            let last = text
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            serde_json::from_str(last.trim()).map_err(|_| {
                format!(
                    "the judge's stdout is not an answer {{\"labels\": [...]}}: {whole}; it begins `{}`",
                    one_line(text, 60)
                )
            })?
        }
    };
    let unknown: Vec<&str> = answer
        .labels
        .iter()
        .map(String::as_str)
        .filter(|l| crate::model::behaviour(l).is_none())
        .collect();
    if !unknown.is_empty() {
        let known: Vec<&str> = BEHAVIOURS.iter().map(|b| b.id).collect();
        return Err(format!(
            "the judge answered unknown label(s) {} (known: {})",
            unknown
                .iter()
                .map(|u| format!("`{}`", one_line(u, 40)))
                .collect::<Vec<_>>()
                .join(", "),
            known.join(", ")
        ));
    }
    let labels = BEHAVIOURS
        .iter()
        .filter(|b| answer.labels.iter().any(|l| l == b.id))
        .map(|b| b.id.to_string())
        .collect();
    Ok((labels, answer.rationale.filter(|r| !r.trim().is_empty())))
}

/// The first `max` characters of `text` on one line (newlines as spaces).
fn one_line(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.trim();
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat.to_string(),
    }
}

/// Run `command` by `sh -c` in the current directory with `document` on stdin, its
/// streams kept in `logs` (`input.json`, `stdout.log`, `stderr.log`); the process group is
/// killed at `timeout`. Returns its stdout, or one line saying why there is no answer.
pub fn call(
    runner: &Runner,
    command: &str,
    document: &[u8],
    logs: &Path,
    run_dir: &Path,
    timeout: Duration,
) -> Result<String, String> {
    let input = logs.join("input.json");
    let stdout = logs.join("stdout.log");
    let stderr = logs.join("stderr.log");
    std::fs::create_dir_all(logs)
        .and_then(|()| std::fs::write(&input, document))
        .map_err(|e| format!("cannot write {}: {e}", input.display()))?;
    let cwd = std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?;
    let mut spec = RunSpec::new(Command::Shell(command.to_string()), cwd, &stdout)
        .with_timeout(timeout, Duration::from_secs(5));
    spec.stderr_path = Some(stderr.clone());
    spec.stdin = Some(input);
    spec.inherit_env = true;
    spec.env
        .push(("HUNKGEN_RUN_DIR".into(), run_dir.as_os_str().to_owned()));
    let outcome = runner.run(&spec).map_err(|e| e.to_string())?;
    let err_tail = || {
        let text = std::fs::read_to_string(&stderr).unwrap_or_default();
        let last = text.lines().rev().find(|l| !l.trim().is_empty());
        last.map(|l| format!(": {}", one_line(l, 200)))
            .unwrap_or_default()
    };
    if outcome.timed_out {
        return Err(format!(
            "the judge gave no answer within {} s (its process group was killed)",
            timeout.as_secs()
        ));
    }
    match outcome.exit {
        ExitKind::Code(0) => {}
        ExitKind::Code(c) => return Err(format!("the judge exited with code {c}{}", err_tail())),
        ExitKind::Signal(s) => {
            return Err(format!("the judge was killed by signal {s}{}", err_tail()))
        }
    }
    let out =
        std::fs::read(&stdout).map_err(|e| format!("cannot read {}: {e}", stdout.display()))?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_in_category_order_and_bad_ones_are_one_line() {
        let (labels, why) =
            parse_answer("{\"labels\": [\"adds-a-test\", \"checks-git-history\", \"adds-a-test\"], \"rationale\": \"ran git log\"}\n")
                .expect("ok");
        assert_eq!(labels, ["checks-git-history", "adds-a-test"]);
        assert_eq!(why.as_deref(), Some("ran git log"));
        // A judge that logs first answers on its last line.
        let (labels, _) = parse_answer("thinking...\n{\"labels\": []}\n").expect("ok");
        assert!(labels.is_empty());
        for bad in [
            "",
            "not json at all",
            "{\"label\": [\"adds-a-test\"]}",
            "{\"labels\": [\"adds-tests\"]}",
            "{\"labels\": \"adds-a-test\"}",
        ] {
            let e = parse_answer(bad).expect_err(bad);
            assert_eq!(e.lines().count(), 1, "{e}");
        }
        let e = parse_answer("{\"labels\": [\"adds-tests\"]}").expect_err("unknown");
        assert!(
            e.contains("`adds-tests`") && e.contains("adds-a-test"),
            "{e}"
        );
    }
}
