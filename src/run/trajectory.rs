//! Trajectory adapters: an agent's machine-readable log → normalized steps
//! ([`TrajectoryStep`]), and the classification of shell commands into step kinds.
//!
//! Formats read:
//! - Claude Code `claude -p … --output-format stream-json --verbose`: one JSON event a
//!   line; `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read",
//!   "input":{"file_path":…}}],"usage":{"input_tokens":…,"output_tokens":…}}}`, tool
//!   results as `{"type":"user","message":{"content":[{"type":"tool_result",
//!   "tool_use_id":…,"content":…,"is_error":…}]}}` (the content a string or a list of
//!   `{"type":"text","text":…}` blocks), and a final `{"type":"result","duration_ms":…,
//!   "usage":…}` (Claude Code's headless-mode docs and the Agent SDK's message types).
//! - Codex `codex exec --json`: `thread.started`, `turn.started`, `item.started` /
//!   `item.completed` with items `command_execution` (`command`, `aggregated_output`,
//!   `exit_code`), `file_change` (`changes[].path`), `mcp_tool_call` (`result.content`,
//!   `error.message`), `agent_message`, `reasoning`, …, and `turn.completed` with `usage`
//!   (openai/codex `codex-rs/exec/src/exec_events.rs`).
//!
//! - Gemini CLI `gemini -p … --output-format stream-json` (`gemini.rs`), and Qwen Code
//!   `qwen -p … --output-format stream-json`, whose messages are Claude Code's envelope
//!   around Gemini CLI's tools (`read_file`, `replace`, `run_shell_command`, …).
//!
//! Each step keeps what its tool returned (`output`), cut to the caller's bound: what a
//! behaviour judge reads besides the calls themselves. The agent's own thinking and
//! messages are not steps.
//!
//! Lines that are not JSON (a timeout trailer, a warning) are skipped; a log without a
//! single event of its format is refused, so the caller keeps the raw log only.

use super::agents::TrajectoryFormat;
use crate::model::{StepKind, TrajectoryStep};
use serde_json::Value;
use std::collections::HashMap;

/// Why a log could not be normalized (the run keeps the raw log and says why).
#[derive(Debug, thiserror::Error)]
pub enum TrajectoryError {
    /// The agent's format is `raw`: there is nothing to normalize.
    #[error("raw format: log kept as is")]
    Raw,
    /// A line of a log in hunkgen's own format is not a step.
    #[error("line {line}: not a normalized step: {source}")]
    NotAStep {
        /// 1-based line.
        line: usize,
        /// The JSON error.
        #[source]
        source: serde_json::Error,
    },
    /// The log holds no Claude Code stream-json event.
    #[error("no Claude Code stream-json event (type assistant / user / result)")]
    NoClaudeEvent,
    /// The log holds no Codex `exec --json` event.
    #[error("no Codex exec --json event (thread.*, turn.*, item.*)")]
    NoCodexEvent,
    /// The log holds no Gemini CLI stream-json event.
    #[error("no Gemini CLI stream-json event (init, message, tool_use, tool_result, result)")]
    NoGeminiEvent,
}

/// How many bytes of each tool output `hunkgen run` keeps by default (`--keep-output`).
pub const DEFAULT_KEEP_OUTPUT: usize = 4096;

/// Normalize `log` written in `format`; paths under `workdir` become relative, and each
/// step keeps at most `keep_output` bytes of its tool's output (0: none).
pub fn normalize(
    format: TrajectoryFormat,
    log: &str,
    workdir: &str,
    keep_output: usize,
) -> Result<Vec<TrajectoryStep>, TrajectoryError> {
    let mut steps = match format {
        TrajectoryFormat::Normalized => normalized(log),
        TrajectoryFormat::ClaudeStreamJson => claude(log, workdir),
        TrajectoryFormat::CodexJson => codex(log, workdir),
        TrajectoryFormat::GeminiStreamJson => {
            super::gemini::steps(log, |name, input| tool_step(name, input, workdir))
                .ok_or(TrajectoryError::NoGeminiEvent)
        }
        // Qwen Code writes Claude Code's envelope; its tools are Gemini CLI's.
        TrajectoryFormat::QwenStreamJson => claude(log, workdir),
        TrajectoryFormat::Raw => Err(TrajectoryError::Raw),
    }?;
    for s in &mut steps {
        s.bound_output(keep_output);
    }
    Ok(steps)
}

/// The text of a tool result: a string, or the `text` of a list of content blocks (an
/// image block stands as `[image]`); `None` when there is none.
fn result_text(content: &Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(blocks) => Some(
            blocks
                .iter()
                .filter_map(|b| match b.get("type").and_then(Value::as_str) {
                    Some("text") => b.get("text").and_then(Value::as_str).map(str::to_string),
                    Some("image") => Some("[image]".to_string()),
                    _ => b.as_str().map(str::to_string),
                })
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => None,
    }
}

/// hunkgen's own format, checked line by line.
fn normalized(log: &str) -> Result<Vec<TrajectoryStep>, TrajectoryError> {
    let mut steps = Vec::new();
    for (n, line) in log.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let step: TrajectoryStep =
            serde_json::from_str(line).map_err(|source| TrajectoryError::NotAStep {
                line: n + 1,
                source,
            })?;
        steps.push(step);
    }
    Ok(steps)
}

/// JSON objects of a log, with non-JSON lines skipped.
fn events(log: &str) -> Vec<Value> {
    log.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .filter(Value::is_object)
        .collect()
}

fn relative(path: &str, workdir: &str) -> String {
    let w = workdir.trim_end_matches('/');
    match path.strip_prefix(w) {
        Some(rest) if rest.starts_with('/') => rest.trim_start_matches('/').to_string(),
        Some("") => ".".into(),
        _ => path.to_string(),
    }
}

fn u64_of(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64)
}

/// Tokens of a `usage` object, kept apart: input (with cached input), output, and of
/// the input what was read from the prompt cache and what was written to it.
#[derive(Debug, Clone, Copy, Default)]
struct Usage {
    input: Option<u64>,
    output: Option<u64>,
    cache_read: Option<u64>,
    cache_write: Option<u64>,
}

impl Usage {
    /// Claude's `input_tokens` leaves out the cache's reads and writes
    /// (`cache_read_input_tokens`, `cache_creation_input_tokens`), so the input is their
    /// sum; Codex's `input_tokens` holds its `cached_input_tokens` already.
    fn of(u: &Value) -> Usage {
        let input = [
            "input_tokens",
            "cache_read_input_tokens",
            "cache_creation_input_tokens",
        ]
        .iter()
        .filter_map(|k| u64_of(u, k))
        .reduce(|a, b| a + b);
        Usage {
            input,
            output: u64_of(u, "output_tokens"),
            cache_read: u64_of(u, "cache_read_input_tokens")
                .or_else(|| u64_of(u, "cached_input_tokens")),
            cache_write: u64_of(u, "cache_creation_input_tokens"),
        }
    }

    fn any(&self) -> bool {
        self.input.is_some() || self.output.is_some()
    }

    fn add(&mut self, o: Usage) {
        add(&mut self.input, o.input);
        add(&mut self.output, o.output);
        add(&mut self.cache_read, o.cache_read);
        add(&mut self.cache_write, o.cache_write);
    }

    /// Adds these tokens to `step`'s.
    fn onto(self, step: &mut TrajectoryStep) {
        add(&mut step.tokens_in, self.input);
        add(&mut step.tokens_out, self.output);
        add(&mut step.tokens_cache_read, self.cache_read);
        add(&mut step.tokens_cache_write, self.cache_write);
    }
}

fn add(slot: &mut Option<u64>, v: Option<u64>) {
    if let Some(v) = v {
        *slot = Some(slot.unwrap_or(0) + v);
    }
}

/// The step of a tool call by name (Claude Code's tools; Gemini CLI's, which Qwen Code
/// keeps; MCP tools such as hunkgen's).
fn tool_step(name: &str, input: &Value, workdir: &str) -> TrajectoryStep {
    let path = ["file_path", "absolute_path", "notebook_path", "path"]
        .iter()
        .find_map(|k| input.get(k).and_then(Value::as_str))
        .map(|p| relative(p, workdir));
    let short = name.rsplit("__").next().unwrap_or(name);
    let mut step = match short {
        "Read" | "NotebookRead" | "get_class_skeleton" | "read_file" | "read_many_files" => {
            TrajectoryStep::new(StepKind::Read)
        }
        "Grep"
        | "Glob"
        | "LS"
        | "search_file_content"
        | "grep_search"
        | "glob"
        | "list_directory"
        | "find_method_in_class"
        | "find_class_in_file"
        | "find_method_in_file"
        | "find_code_in_file"
        | "find_class"
        | "find_method"
        | "find_code"
        | "get_repository_structure" => TrajectoryStep::new(StepKind::Search),
        "Edit" | "Write" | "MultiEdit" | "NotebookEdit" | "replace" | "write_file" | "edit" => {
            TrajectoryStep::new(StepKind::Edit)
        }
        "Bash" | "run_shell_command" => {
            let cmd = input.get("command").and_then(Value::as_str).unwrap_or("");
            let (kind, files) = classify_command(cmd);
            let mut s = TrajectoryStep::new(kind);
            s.files = files.into_iter().map(|f| relative(&f, workdir)).collect();
            s.command = Some(cmd.to_string());
            return s;
        }
        _ => TrajectoryStep::new(StepKind::Other),
    };
    step.files.extend(path);
    step.command = Some(match input.as_object() {
        Some(o) if !o.is_empty() => format!("{name} {input}"),
        _ => name.to_string(),
    });
    step
}

/// Claude Code's stream-json events.
fn claude(log: &str, workdir: &str) -> Result<Vec<TrajectoryStep>, TrajectoryError> {
    let evs = events(log);
    if !evs.iter().any(|e| {
        matches!(
            e.get("type").and_then(Value::as_str),
            Some("assistant" | "result" | "system")
        )
    }) {
        return Err(TrajectoryError::NoClaudeEvent);
    }
    let mut steps: Vec<TrajectoryStep> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut pending = Usage::default();
    let mut per_message_usage = false;
    for e in &evs {
        match e.get("type").and_then(Value::as_str) {
            Some("assistant") => {
                let msg = e.get("message").unwrap_or(&Value::Null);
                if let Some(u) = msg.get("usage") {
                    let u = Usage::of(u);
                    per_message_usage |= u.any();
                    pending.add(u);
                }
                let blocks = msg.get("content").and_then(Value::as_array);
                for b in blocks.into_iter().flatten() {
                    if b.get("type").and_then(Value::as_str) != Some("tool_use") {
                        continue;
                    }
                    let name = b.get("name").and_then(Value::as_str).unwrap_or("tool");
                    let mut step = tool_step(name, b.get("input").unwrap_or(&Value::Null), workdir);
                    // The message's tokens go to its first tool call.
                    std::mem::take(&mut pending).onto(&mut step);
                    if let Some(id) = b.get("id").and_then(Value::as_str) {
                        by_id.insert(id.to_string(), steps.len());
                    }
                    steps.push(step);
                }
            }
            Some("user") => {
                let blocks = e
                    .get("message")
                    .and_then(|m| m.get("content"))
                    .and_then(Value::as_array);
                for b in blocks.into_iter().flatten() {
                    if b.get("type").and_then(Value::as_str) != Some("tool_result") {
                        continue;
                    }
                    let idx = b
                        .get("tool_use_id")
                        .and_then(Value::as_str)
                        .and_then(|id| by_id.get(id));
                    if let Some(&i) = idx {
                        // Only `is_error` is reported; a shell command's code is not.
                        if steps[i].kind != StepKind::Edit && steps[i].kind != StepKind::Read {
                            let err = b.get("is_error").and_then(Value::as_bool).unwrap_or(false);
                            steps[i].exit_code = Some(if err { 1 } else { 0 });
                        }
                        steps[i].output = b.get("content").and_then(result_text);
                    }
                }
            }
            Some("result") => {
                if !per_message_usage {
                    if let Some(u) = e.get("usage") {
                        pending.add(Usage::of(u));
                    }
                }
                if let (Some(last), Some(ms)) = (steps.last_mut(), u64_of(e, "duration_ms")) {
                    last.elapsed_ms = Some(ms);
                }
            }
            _ => {}
        }
    }
    if let Some(last) = steps.last_mut() {
        pending.onto(last);
    }
    Ok(steps)
}

/// Codex's `exec --json` events.
fn codex(log: &str, workdir: &str) -> Result<Vec<TrajectoryStep>, TrajectoryError> {
    let evs = events(log);
    let known =
        |t: &str| t.starts_with("item.") || t.starts_with("turn.") || t.starts_with("thread.");
    if !evs
        .iter()
        .any(|e| e.get("type").and_then(Value::as_str).is_some_and(known))
    {
        return Err(TrajectoryError::NoCodexEvent);
    }
    let mut steps: Vec<TrajectoryStep> = Vec::new();
    let mut turn_start = 0;
    for e in &evs {
        match e.get("type").and_then(Value::as_str) {
            Some("turn.started") => turn_start = steps.len(),
            Some("item.completed") => {
                let item = e.get("item").unwrap_or(&Value::Null);
                let kind = item
                    .get("type")
                    .or_else(|| item.get("item_type"))
                    .and_then(Value::as_str);
                let step = match kind {
                    Some("command_execution") => {
                        let cmd = item.get("command").and_then(Value::as_str).unwrap_or("");
                        let (k, files) = classify_command(cmd);
                        let mut s = TrajectoryStep::new(k);
                        s.files = files.into_iter().map(|f| relative(&f, workdir)).collect();
                        s.command = Some(cmd.to_string());
                        s.exit_code = item.get("exit_code").and_then(Value::as_i64);
                        s.output = item
                            .get("aggregated_output")
                            .and_then(Value::as_str)
                            .map(str::to_string);
                        s
                    }
                    Some("file_change") => {
                        let mut s = TrajectoryStep::new(StepKind::Edit);
                        let changes = item.get("changes").and_then(Value::as_array);
                        s.files = changes
                            .into_iter()
                            .flatten()
                            .filter_map(|c| c.get("path").and_then(Value::as_str))
                            .map(|p| relative(p, workdir))
                            .collect();
                        s
                    }
                    Some("mcp_tool_call") => {
                        let tool = item.get("tool").and_then(Value::as_str).unwrap_or("mcp");
                        // Named as Claude Code names an MCP tool (`mcp__server__tool`): a
                        // tool of the agent's own, not a shell command.
                        let name = match item.get("server").and_then(Value::as_str) {
                            Some(server) => format!("mcp__{server}__{tool}"),
                            None => format!("mcp__{tool}"),
                        };
                        let mut s = tool_step(
                            &name,
                            item.get("arguments").unwrap_or(&Value::Null),
                            workdir,
                        );
                        s.output = item
                            .get("result")
                            .and_then(|r| r.get("content"))
                            .and_then(result_text)
                            .or_else(|| {
                                let e = item.get("error")?.get("message")?.as_str()?;
                                Some(format!("error: {e}"))
                            });
                        s
                    }
                    Some("web_search") => TrajectoryStep::new(StepKind::Other),
                    _ => continue,
                };
                steps.push(step);
            }
            Some("turn.completed") => {
                let u = e.get("usage").map(Usage::of).unwrap_or_default();
                // A turn's tokens go to its first step (or a step of their own when the
                // turn only talked).
                match steps.get_mut(turn_start) {
                    Some(s) => u.onto(s),
                    None if u.any() => {
                        let mut s = TrajectoryStep::new(StepKind::Other);
                        u.onto(&mut s);
                        steps.push(s);
                    }
                    None => {}
                }
                turn_start = steps.len();
            }
            _ => {}
        }
    }
    Ok(steps)
}

/// The kind of a shell command and the files it names: tests, builds, searches, reads,
/// edits (pytest, mvn test, gradle test, javac, grep/rg/find, cat/sed -n, sed -i …).
pub fn classify_command(cmd: &str) -> (StepKind, Vec<String>) {
    let w = crate::model::shell_words(cmd);
    let text = w.join(" ");
    let has = |s: &str| text.contains(s);
    let first = w.first().map(String::as_str).unwrap_or("");
    let prog = first.rsplit('/').next().unwrap_or(first);
    // sed's and awk's first operand is their script unless `-e`/`-f` gave it
    // (`sed -i s/a/b/ f.py` edits f.py, not `s/a/b/`).
    let script_operand = ["sed", "awk", "gawk"].contains(&prog)
        && !w.iter().skip(1).any(|a| {
            a == "-e" || a == "-f" || a.starts_with("--expression") || a.starts_with("--file")
        });
    let script_at = script_operand
        .then(|| w.iter().skip(1).position(|a| !a.starts_with('-')))
        .flatten();
    let files: Vec<String> = w
        .iter()
        .skip(1)
        .enumerate()
        .filter(|(i, _)| Some(*i) != script_at)
        .map(|(_, a)| a)
        .filter(|a| !a.starts_with('-') && !a.contains(['|', '>', '<', '*', '=', '\'']))
        .filter(|a| a.contains('.') && a.len() > 2 || a.contains('/'))
        .cloned()
        .collect();
    let test = ["pytest", "unittest", "tox", "nosetests"].contains(&prog)
        || has("-m pytest")
        || has("-m unittest")
        || ([
            "mvn", "mvnw", "gradle", "gradlew", "cargo", "go", "npm", "ant",
        ]
        .contains(&prog)
            && w.iter().any(|a| a == "test" || a == "check"))
        || has("junit")
        || has("defects4j test")
        || ["run_bug_exposing_tests.sh", "run_all_tests_trace.sh"].contains(&prog);
    let build = ["javac", "make", "cmake", "ant", "tsc", "gcc", "cc"].contains(&prog)
        || (["mvn", "mvnw", "gradle", "gradlew", "cargo", "npm"].contains(&prog)
            && w.iter()
                .any(|a| ["compile", "build", "package", "install"].contains(&a.as_str())))
        || has("py_compile")
        || has("compileall")
        || has("defects4j compile")
        || prog == "compile.sh";
    let search = [
        "grep", "egrep", "rg", "ag", "ack", "find", "fd", "ls", "tree", "locate",
    ]
    .contains(&prog)
        || (prog == "git" && w.get(1).is_some_and(|a| a == "grep" || a == "ls-files"));
    let edit = (prog == "sed" && w.iter().any(|a| a.starts_with("-i")))
        || ["apply_patch", "patch", "tee", "mv", "cp", "touch", "rm"].contains(&prog)
        || (prog == "git" && w.get(1).is_some_and(|a| a == "apply"))
        || text.contains(" > ")
        || text.contains(" >> ");
    let read = [
        "cat", "head", "tail", "less", "more", "nl", "sed", "awk", "bat", "wc",
    ]
    .contains(&prog)
        || (prog == "git"
            && w.get(1)
                .is_some_and(|a| a == "show" || a == "diff" || a == "log"));
    let kind = if test {
        StepKind::RunTest
    } else if build {
        StepKind::RunBuild
    } else if edit {
        StepKind::Edit
    } else if search {
        StepKind::Search
    } else if read {
        StepKind::Read
    } else {
        StepKind::Other
    };
    let files = match kind {
        StepKind::Read | StepKind::Edit => files,
        _ => Vec::new(),
    };
    (kind, files)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claude's four counts kept apart (its input is the sum), Codex's cached part read
    /// as a part of its input.
    #[test]
    fn usage_keeps_input_output_and_the_caches_apart() {
        let u = Usage::of(&serde_json::json!({
            "input_tokens": 10, "cache_read_input_tokens": 200,
            "cache_creation_input_tokens": 30, "output_tokens": 4
        }));
        assert_eq!(
            (u.input, u.output, u.cache_read, u.cache_write),
            (Some(240), Some(4), Some(200), Some(30))
        );
        let c = Usage::of(&serde_json::json!({
            "input_tokens": 100, "cached_input_tokens": 60, "output_tokens": 7
        }));
        assert_eq!(
            (c.input, c.output, c.cache_read, c.cache_write),
            (Some(100), Some(7), Some(60), None)
        );
    }

    #[test]
    fn commands_classify_by_what_they_run() {
        let k = |c: &str| classify_command(c).0;
        assert_eq!(k("python -m pytest -q tests/test_x.py"), StepKind::RunTest);
        assert_eq!(k("pytest tests"), StepKind::RunTest);
        assert_eq!(k("mvn -q test -Dtest=FooTest"), StepKind::RunTest);
        assert_eq!(k("./gradlew test"), StepKind::RunTest);
        // The agent study's scripts, as `hunkgen run` gives them for Defects4J bugs.
        assert_eq!(
            k("/r/.agent/Cli_1/bin/run_bug_exposing_tests.sh"),
            StepKind::RunTest
        );
        assert_eq!(k("./run_all_tests_trace.sh"), StepKind::RunTest);
        assert_eq!(k("/r/.agent/Cli_1/bin/compile.sh"), StepKind::RunBuild);
        assert_eq!(k("javac -d out src/A.java"), StepKind::RunBuild);
        assert_eq!(k("mvn compile"), StepKind::RunBuild);
        assert_eq!(k("grep -rn foo src"), StepKind::Search);
        assert_eq!(k("rg Foo"), StepKind::Search);
        assert_eq!(k("find . -name '*.java'"), StepKind::Search);
        assert_eq!(k("bash -lc 'cat src/a.py'"), StepKind::Read);
        // An unquoted sed script is no file; with -e the first operand is a file.
        assert_eq!(
            classify_command("sed -i s/a/b/ src/x.py"),
            (StepKind::Edit, vec!["src/x.py".to_string()])
        );
        assert_eq!(
            classify_command("sed -n -e 1,5p src/y.py").1,
            vec!["src/y.py".to_string()]
        );
        assert_eq!(k("sed -n 1,40p src/A.java"), StepKind::Read);
        assert_eq!(k("sed -i s/a/b/ src/A.java"), StepKind::Edit);
        assert_eq!(k("echo hi"), StepKind::Other);
        assert_eq!(
            classify_command("cat src/a.py").1,
            vec!["src/a.py".to_string()]
        );
    }

    #[test]
    fn a_log_of_another_format_is_refused() {
        let keep = DEFAULT_KEEP_OUTPUT;
        assert!(normalize(
            TrajectoryFormat::ClaudeStreamJson,
            "hello\nworld\n",
            "/w",
            keep
        )
        .is_err());
        assert!(normalize(
            TrajectoryFormat::CodexJson,
            "{\"type\":\"assistant\"}\n",
            "/w",
            keep
        )
        .is_err());
        assert!(normalize(
            TrajectoryFormat::Normalized,
            "{\"kind\":\"fly\"}\n",
            "/w",
            keep
        )
        .is_err());
        assert!(normalize(TrajectoryFormat::Raw, "", "/w", keep).is_err());
    }

    #[test]
    fn tool_results_become_bounded_outputs() {
        let claude = concat!(
            r#"{"type":"assistant","message":{"content":["#,
            r#"{"type":"tool_use","id":"a","name":"Bash","input":{"command":"git log --oneline"}},"#,
            r#"{"type":"tool_use","id":"b","name":"Read","input":{"file_path":"/w/x.py"}}]}}"#,
            "\n",
            r#"{"type":"user","message":{"content":["#,
            r#"{"type":"tool_result","tool_use_id":"a","content":"abc123 fix the thing"},"#,
            r#"{"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"line 1"},{"type":"text","text":"line 2"}]}]}}"#,
            "\n"
        );
        let steps = normalize(TrajectoryFormat::ClaudeStreamJson, claude, "/w", 10).expect("ok");
        assert_eq!(steps[0].output.as_deref(), Some("abc123 fix"));
        assert_eq!(steps[0].output_truncated, Some(10));
        assert_eq!(steps[1].output.as_deref(), Some("line 1\nlin"));
        assert_eq!(steps[1].output_truncated, Some(3));
        let none = normalize(TrajectoryFormat::ClaudeStreamJson, claude, "/w", 0).expect("ok");
        assert!(none.iter().all(|s| s.output.is_none()));
        let codex = concat!(
            r#"{"type":"item.completed","item":{"type":"command_execution","command":"ls","aggregated_output":"a.py\n","exit_code":0}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"type":"mcp_tool_call","tool":"find_class","arguments":{},"error":{"message":"no such class"}}}"#,
            "\n"
        );
        let steps = normalize(TrajectoryFormat::CodexJson, codex, "/w", 100).expect("ok");
        assert_eq!(steps[0].output.as_deref(), Some("a.py\n"));
        assert_eq!(steps[1].output.as_deref(), Some("error: no such class"));
        let own = "{\"kind\":\"other\",\"output\":\"0123456789\",\"output_truncated\":5}\n";
        let steps = normalize(TrajectoryFormat::Normalized, own, "/w", 4).expect("ok");
        assert_eq!(steps[0].output.as_deref(), Some("0123"));
        assert_eq!(
            steps[0].output_truncated,
            Some(11),
            "its own cut is kept, and added to"
        );
    }
}
