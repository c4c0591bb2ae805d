//! The agents file of `hunkgen run`: a YAML map of agent name → how to run it.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Which trajectory format an agent writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TrajectoryFormat {
    /// hunkgen's own step format (`docs/trajectory-step.schema.json`), one step a line.
    Normalized,
    /// Claude Code's `--output-format stream-json` events.
    ClaudeStreamJson,
    /// Codex's `codex exec --json` events.
    CodexJson,
    /// Gemini CLI's `--output-format stream-json` events.
    GeminiStreamJson,
    /// Qwen Code's `--output-format stream-json` messages (Claude Code's envelope,
    /// Gemini CLI's tool names).
    QwenStreamJson,
    /// Unknown: the log is kept as is, no steps.
    Raw,
}

impl TrajectoryFormat {
    /// All six, in declaration order.
    pub const ALL: [TrajectoryFormat; 6] = [
        TrajectoryFormat::Normalized,
        TrajectoryFormat::ClaudeStreamJson,
        TrajectoryFormat::CodexJson,
        TrajectoryFormat::GeminiStreamJson,
        TrajectoryFormat::QwenStreamJson,
        TrajectoryFormat::Raw,
    ];

    /// The format's name as written in agents files and `result.json`.
    pub fn name(self) -> &'static str {
        match self {
            TrajectoryFormat::Normalized => "normalized",
            TrajectoryFormat::ClaudeStreamJson => "claude-stream-json",
            TrajectoryFormat::CodexJson => "codex-json",
            TrajectoryFormat::GeminiStreamJson => "gemini-stream-json",
            TrajectoryFormat::QwenStreamJson => "qwen-stream-json",
            TrajectoryFormat::Raw => "raw",
        }
    }
}

impl std::str::FromStr for TrajectoryFormat {
    type Err = crate::model::UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::model::parse_name(s, "trajectory format", &Self::ALL, Self::name)
    }
}

/// Where the agent's trajectory log is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrajectorySource {
    /// The agent's standard output.
    Stdout,
    /// The file the command template names as `{trajectory_file}`.
    File,
}

/// One agent of the agents file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSpec {
    /// The command line, run by `/bin/sh -c` in the working directory, with `{workdir}`,
    /// `{prompt_file}`, `{instance_id}`, `{trajectory_file}`, `{mcp_config}`, `{agents_dir}`
    /// (the agents file's directory) and (oracle
    /// agents only) `{golden_patch}` replaced by shell-quoted values.
    pub command: String,
    /// Names of environment variables passed through from hunkgen's environment (API
    /// keys); their values are redacted from every log hunkgen keeps.
    #[serde(default)]
    pub env: Vec<String>,
    /// Whether the agent may use the network (default false: none at all).
    #[serde(default)]
    pub network: bool,
    /// The trajectory format (default raw).
    #[serde(default = "raw")]
    pub trajectory: TrajectoryFormat,
    /// Where the trajectory is read (default: the file when the command names
    /// `{trajectory_file}`, else stdout).
    #[serde(default)]
    pub trajectory_from: Option<TrajectorySource>,
    /// Timeout in seconds (default 1800; `--timeout` overrides).
    #[serde(default)]
    pub timeout: Option<u64>,
    /// A prompt template file (relative to the agents file) replacing the built-in one.
    #[serde(default)]
    pub prompt: Option<PathBuf>,
    /// Extra paths the agent may read (relative to the agents file): its own scripts or
    /// installation when they live under `/tmp`, which the sandbox hides.
    #[serde(default)]
    pub readable: Vec<PathBuf>,
    /// Maximum size of `model_patch` in bytes (default 1 MiB): a larger diff is dropped
    /// and labelled `diff_too_large`.
    #[serde(default)]
    pub max_diff_bytes: Option<usize>,
    /// For testing the harness only: the agent is given `{golden_patch}`, the instance's
    /// golden patch, in a file outside its working directory. Never set for real agents.
    #[serde(default)]
    pub oracle: bool,
    /// The agents file's directory (`{agents_dir}` in the command; readable in the
    /// sandbox), set by [`load`].
    #[serde(skip)]
    pub dir: PathBuf,
}

fn raw() -> TrajectoryFormat {
    TrajectoryFormat::Raw
}

impl AgentSpec {
    /// Where the trajectory is read, with the default applied.
    pub fn trajectory_source(&self) -> TrajectorySource {
        self.trajectory_from
            .unwrap_or(if self.command.contains("{trajectory_file}") {
                TrajectorySource::File
            } else {
                TrajectorySource::Stdout
            })
    }
}

/// An agents file that cannot be used, with the file, the place and what was expected.
#[derive(Debug, thiserror::Error)]
#[error("{}{}: {message}", file.display(), location.map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default())]
pub struct AgentsError {
    /// The file.
    pub file: PathBuf,
    /// 1-based line and column, when known.
    pub location: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
}

/// Read an agents file: relative `prompt` and `readable` paths become relative to it.
pub fn load(file: &Path) -> Result<BTreeMap<String, AgentSpec>, AgentsError> {
    let text = std::fs::read_to_string(file).map_err(|e| AgentsError {
        file: file.to_path_buf(),
        location: None,
        message: format!("cannot read: {e}"),
    })?;
    let mut agents = parse(&text, file)?;
    let base = file.parent().unwrap_or(Path::new("."));
    for spec in agents.values_mut() {
        if let Some(p) = &spec.prompt {
            spec.prompt = Some(base.join(p));
        }
        spec.readable = spec.readable.iter().map(|p| base.join(p)).collect();
        spec.dir = base.canonicalize().unwrap_or_else(|_| base.to_path_buf());
    }
    Ok(agents)
}

/// Parse agents-file text; `file` names it in errors.
pub fn parse(text: &str, file: &Path) -> Result<BTreeMap<String, AgentSpec>, AgentsError> {
    let de = serde_norway::Deserializer::from_str(text);
    let agents: BTreeMap<String, AgentSpec> =
        serde_path_to_error::deserialize(de).map_err(|e| {
            let key = e.path().to_string();
            let inner = e.into_inner();
            let location = inner.location().map(|l| (l.line(), l.column()));
            let raw = inner.to_string();
            let message = match raw.find(" at line ") {
                Some(i) => raw[..i].to_string(),
                None => raw,
            };
            AgentsError {
                file: file.to_path_buf(),
                location,
                message: if key == "." || message.contains(&key) {
                    message
                } else {
                    format!("{key}: {message}")
                },
            }
        })?;
    for (name, spec) in &agents {
        if spec.command.trim().is_empty() {
            return Err(AgentsError {
                file: file.to_path_buf(),
                location: None,
                message: format!("{name}.command: expected a command line, found nothing"),
            });
        }
        if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
            return Err(AgentsError {
                file: file.to_path_buf(),
                location: None,
                message: format!(
                    "agent name `{name}`: expected a name without `/` (it names a directory)"
                ),
            });
        }
    }
    Ok(agents)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_key_is_refused_with_its_place() {
        let e = parse(
            "a:\n  command: run.sh\n  netwrk: true\n",
            Path::new("agents.yaml"),
        )
        .expect_err("unknown key");
        let s = e.to_string();
        assert!(s.starts_with("agents.yaml:3:"), "{s}");
        assert!(s.contains("netwrk"), "{s}");
    }

    #[test]
    fn defaults_and_trajectory_source() {
        let a = parse(
            "a:\n  command: x --log {trajectory_file}\n  trajectory: claude-stream-json\nb:\n  command: y\n",
            Path::new("f.yaml"),
        )
        .expect("parses");
        assert_eq!(a["a"].trajectory, TrajectoryFormat::ClaudeStreamJson);
        assert_eq!(a["a"].trajectory_source(), TrajectorySource::File);
        assert_eq!(a["b"].trajectory, TrajectoryFormat::Raw);
        assert_eq!(a["b"].trajectory_source(), TrajectorySource::Stdout);
        assert!(!a["b"].network && !a["b"].oracle);
    }
}
