//! Agent runs (`hunkgen run`): the normalized trajectory step every adapter writes
//! (`trajectory.jsonl`), a run's `result.json`, and the trajectory metrics of
//! `hunkgen evaluate` (the multi-hunk agent study's tool use, localization and cost).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What one agent action was, in the study's vocabulary.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum StepKind {
    /// Read a file (or part of one).
    Read,
    /// Searched the repository (grep, find, glob, a symbol lookup).
    Search,
    /// Changed a file.
    Edit,
    /// Compiled or built the project.
    RunBuild,
    /// Ran tests.
    RunTest,
    /// Anything else (a shell command of another kind, a plan, a message).
    Other,
}

impl StepKind {
    /// The kind's name as written in trajectories and shown in reports.
    pub fn name(self) -> &'static str {
        match self {
            StepKind::Read => "read",
            StepKind::Search => "search",
            StepKind::Edit => "edit",
            StepKind::RunBuild => "run-build",
            StepKind::RunTest => "run-test",
            StepKind::Other => "other",
        }
    }
}

/// One line of a normalized `trajectory.jsonl`: one agent action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrajectoryStep {
    /// What the action was.
    pub kind: StepKind,
    /// Files it read or changed, relative to the working directory when known.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// The shell command or tool call, as the agent gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The command's exit code, when it ran one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// Model input tokens spent on this step, when the agent reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_in: Option<u64>,
    /// Model output tokens spent on this step, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_out: Option<u64>,
    /// Of the input tokens, those read from the provider's prompt cache, when reported
    /// (Claude's `cache_read_input_tokens`, Codex's `cached_input_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_cache_read: Option<u64>,
    /// Of the input tokens, those written to the prompt cache, when reported (Claude's
    /// `cache_creation_input_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_cache_write: Option<u64>,
    /// When the step started (RFC 3339), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// When it ended (RFC 3339), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    /// Milliseconds since the run started at which the step ended, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_ms: Option<u64>,
    /// What the tool call returned (a command's output, a file's text, an edit's
    /// confirmation), cut to `hunkgen run --keep-output` bytes on a character boundary,
    /// so a behaviour judge sees what the agent saw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Bytes of the output dropped at that bound; absent when all of it is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_truncated: Option<u64>,
}

impl TrajectoryStep {
    /// A step of this kind with nothing else known.
    pub fn new(kind: StepKind) -> Self {
        TrajectoryStep {
            kind,
            files: Vec::new(),
            command: None,
            exit_code: None,
            tokens_in: None,
            tokens_out: None,
            tokens_cache_read: None,
            tokens_cache_write: None,
            started_at: None,
            ended_at: None,
            elapsed_ms: None,
            output: None,
            output_truncated: None,
        }
    }

    /// Keep at most `bytes` of the output (cut on a character boundary), adding what is
    /// dropped to [`TrajectoryStep::output_truncated`]; `0` keeps none.
    pub fn bound_output(&mut self, bytes: usize) {
        let Some(text) = self.output.as_mut() else {
            return;
        };
        if bytes == 0 && text.is_empty() {
            self.output = None;
            return;
        }
        if text.len() <= bytes {
            return;
        }
        let mut cut = bytes;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let dropped = (text.len() - cut) as u64;
        text.truncate(cut);
        self.output_truncated = Some(self.output_truncated.unwrap_or(0) + dropped);
        if cut == 0 {
            self.output = None;
        }
    }
}

/// How one agent run on one instance ended, as labelled by `hunkgen run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AgentOutcome {
    /// The agent exited 0; its diff is the prediction.
    Completed,
    /// The agent exited non-zero (its diff is still collected).
    NonzeroExit,
    /// The timeout was reached; the whole process tree was killed (diff collected).
    Timeout,
    /// The agent deleted its working directory (no prediction).
    WorkdirDeleted,
    /// The diff held binary files: they are left out of `model_patch` and listed.
    BinaryDiff,
    /// The diff exceeded the size limit: the patch is dropped.
    DiffTooLarge,
    /// The agent could not be run at all (spawn, sandbox, copy or snapshot failure).
    SandboxError,
}

impl AgentOutcome {
    /// The label as written in `result.json`.
    pub fn name(self) -> &'static str {
        match self {
            AgentOutcome::Completed => "completed",
            AgentOutcome::NonzeroExit => "nonzero_exit",
            AgentOutcome::Timeout => "timeout",
            AgentOutcome::WorkdirDeleted => "workdir_deleted",
            AgentOutcome::BinaryDiff => "binary_diff",
            AgentOutcome::DiffTooLarge => "diff_too_large",
            AgentOutcome::SandboxError => "sandbox_error",
        }
    }
}

/// `runs/<agent>/<state>-<scenario>[-tests]/<instance>/result.json`: one agent run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgentRunRecord {
    /// The instance.
    pub instance_id: String,
    /// The agent's name in the agents file.
    pub agent: String,
    /// The state (`novel`, `partial`, `resolved`).
    pub state: String,
    /// The scenario (`best`, `worst`).
    pub scenario: String,
    /// The prompt variant the instance got (`issue`, `edit`, `reproduce`,
    /// `abstain-or-fix`, `plain`, `files`, `hunks`, `mcp`).
    pub prompt_variant: String,
    /// Whether the state held the golden tests (`hunkgen run --with-tests`); absent in
    /// records written before the flag existed.
    #[serde(default)]
    pub tests_present: bool,
    /// SHA-256 of the agent spec, the prompt and the state manifest: a run with the same
    /// key is not repeated.
    pub key: String,
    /// How the run ended.
    pub outcome: AgentOutcome,
    /// The agent's exit code (`None` when killed by a signal or never started).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Wall-clock milliseconds of the agent process.
    pub elapsed_ms: u64,
    /// When the run started (RFC 3339).
    pub started_at: String,
    /// Whether the agent ran inside bubblewrap.
    pub sandboxed: bool,
    /// Bytes of the collected `model_patch`.
    pub patch_bytes: usize,
    /// Binary files left out of `model_patch`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub binary_files: Vec<String>,
    /// The trajectory format read (`normalized`, `claude-stream-json`, `codex-json`,
    /// `raw`); `raw` when the log could not be normalized.
    pub trajectory_format: String,
    /// Normalized steps written to `trajectory.jsonl` (0 when only the raw log is kept).
    pub trajectory_steps: usize,
    /// Why the log could not be normalized, or the run failed, as one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// What the agent had besides its working copy (FixedBench's Best scenario: the
    /// state's git history and the environment validation built): `history`, and one
    /// entry per environment (`python venv <dir>`, `CLASSPATH …`); empty in Worst.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub had: Vec<String>,
    /// Why a Best run got no environment although the dataset has tests (the agent ran
    /// without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment_error: Option<String>,
    /// Which of `--attempts K` this run is (1-based); absent for a single attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
    /// Bytes of each tool output `trajectory.jsonl` keeps (`--keep-output`), so a rerun
    /// asking for another bound rewrites it from the raw log instead of running the
    /// agent again; absent in records written before it was kept (the default bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_output: Option<usize>,
}

/// Mean tokens and time of a group of runs.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Resources {
    /// Runs in the group.
    pub runs: usize,
    /// Mean tokens (input + output) per run, over runs that report tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_tokens: Option<f64>,
    /// Mean wall-clock seconds per run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_seconds: Option<f64>,
    /// Mean trajectory steps per run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_steps: Option<f64>,
    /// Mean input tokens per run (cache reads and writes included), over runs that
    /// report them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_input_tokens: Option<f64>,
    /// Mean output tokens per run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_output_tokens: Option<f64>,
    /// Mean input tokens read from the prompt cache per run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_cache_read_tokens: Option<f64>,
    /// Mean input tokens written to the prompt cache per run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_cache_write_tokens: Option<f64>,
}

/// Calls of one tool kind.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolUse {
    /// Steps of this kind over all runs.
    pub calls: usize,
    /// U_a = calls(a) / Σ calls.
    pub share: f64,
}

/// When agents first touched (read or edited) the golden files.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct FirstTouch {
    /// (run, golden file) pairs.
    pub golden_files: usize,
    /// Of those, the files the agent read or edited at all.
    pub touched: usize,
    /// Mean 0-based step index of the first touch, over touched files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_step: Option<f64>,
    /// Mean fraction of the run's steps before the first touch (0 = at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_relative_step: Option<f64>,
    /// Mean milliseconds from the run's start to the first touch, where steps carry time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_ms: Option<f64>,
}

/// An action n-gram over the normalized kinds and how often it occurs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NGram {
    /// The kinds, in order (`read → edit → run-test`).
    pub kinds: Vec<StepKind>,
    /// Occurrences over all runs.
    pub count: usize,
}

/// "Fail fast": mean resources of failed runs relative to successful ones (< 1: failures
/// give up sooner).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct FailFast {
    /// Tokens ratio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<f64>,
    /// Time ratio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// Steps ratio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<f64>,
}

/// Trajectory metrics of an agent's runs (`summary.json` `trajectories`), computed when
/// `hunkgen run` output lies next to the predictions.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct TrajectoryMetrics {
    /// Runs with a `result.json`.
    pub runs: usize,
    /// Runs with a normalized trajectory.
    pub with_trajectory: usize,
    /// Runs per outcome label.
    pub outcomes: BTreeMap<String, usize>,
    /// Resources of successful runs: resolved on Novel and Partial, correctly abstained
    /// on Resolved.
    pub success: Resources,
    /// Resources of the others.
    pub failure: Resources,
    /// Tool use per kind.
    pub tool_use: BTreeMap<String, ToolUse>,
    /// First-touch localization of the golden files.
    pub first_touch: FirstTouch,
    /// The most frequent action bigrams.
    pub bigrams: Vec<NGram>,
    /// The most frequent action trigrams.
    pub trigrams: Vec<NGram>,
    /// Failed relative to successful runs.
    pub fail_fast: FailFast,
    /// The study's step categories, Passerine's smells and the other trajectory
    /// analytics; absent in summaries written before them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analytics: Option<super::Analytics>,
    /// Tokens (input + output) of each run that reports them, by outcome (`success`,
    /// `failure`): the distributions the page draws as violins; absent in summaries
    /// written before them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tokens_per_run: BTreeMap<String, Vec<f64>>,
}

/// The words of a step's shell command, with a `bash -lc '…'` / `sh -c "…"` wrapper
/// unwrapped (Codex runs every command so): how `run` classifies a command and the
/// evaluation's analytics read its program, one reading for both.
pub fn shell_words(cmd: &str) -> Vec<String> {
    let mut w: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
    if w.len() >= 3
        && ["bash", "sh", "zsh", "/bin/bash", "/bin/sh"].contains(&w[0].as_str())
        && w[1].starts_with('-')
        && w[1].contains('c')
    {
        let inner = w[2..].join(" ");
        let inner = inner.trim_matches(|c| c == '\'' || c == '"');
        w = inner.split_whitespace().map(str::to_string).collect();
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_output(text: &str) -> TrajectoryStep {
        let mut s = TrajectoryStep::new(StepKind::Other);
        s.output = Some(text.to_string());
        s
    }

    #[test]
    fn outputs_are_cut_on_a_character_boundary_and_say_what_was_dropped() {
        let mut s = with_output("héllo");
        s.bound_output(2);
        // "é" is two bytes: cutting after its first byte would split it.
        assert_eq!(s.output.as_deref(), Some("h"));
        assert_eq!(s.output_truncated, Some(5));
        // Bounding again adds to what was dropped.
        s.bound_output(0);
        assert_eq!((s.output, s.output_truncated), (None, Some(6)));
        let mut short = with_output("ok");
        short.bound_output(2);
        assert_eq!(
            (short.output.as_deref(), short.output_truncated),
            (Some("ok"), None)
        );
        let mut empty = with_output("");
        empty.bound_output(0);
        assert_eq!((empty.output, empty.output_truncated), (None, None));
    }
}
