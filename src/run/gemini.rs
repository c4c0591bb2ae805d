//! The Gemini CLI adapter: `gemini -p … --output-format stream-json` writes one JSON
//! event a line (google-gemini/gemini-cli `packages/core/src/output/types.ts`):
//! `init` (session, model), `message` (user and assistant text), `tool_use`
//! (`tool_name`, `tool_id`, `parameters`), `tool_result` (`tool_id`, `status` success or
//! error, `output`, `error.message`), `error`, and a final `result` whose `stats` count
//! `input_tokens` (of them `cached`), `output_tokens`, `duration_ms` and `tool_calls`.
//! The tools are Gemini CLI's own (`read_file`, `replace`, `write_file`,
//! `run_shell_command`, `search_file_content`, `glob`, `list_directory`, …), made steps
//! by the caller's `tool_step` (trajectory.rs's, which maps Claude Code's tools and
//! Qwen Code's, a fork that keeps these names, the same way).

use crate::model::{StepKind, TrajectoryStep};
use serde_json::Value;
use std::collections::HashMap;

/// The steps of a Gemini CLI stream-json log, each tool call made a step by
/// `tool_step(name, parameters)`; `None` when the log holds no event of the format.
/// Tokens, which the stream reports only as the session's totals, go to the last step,
/// as the run's duration does.
pub fn steps(
    log: &str,
    tool_step: impl Fn(&str, &Value) -> TrajectoryStep,
) -> Option<Vec<TrajectoryStep>> {
    let events: Vec<Value> = log
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .filter(|e| {
            matches!(
                e.get("type").and_then(Value::as_str),
                Some("init" | "message" | "tool_use" | "tool_result" | "error" | "result")
            )
        })
        .collect();
    if events.is_empty() {
        return None;
    }
    let mut steps: Vec<TrajectoryStep> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for e in &events {
        match e.get("type").and_then(Value::as_str) {
            Some("tool_use") => {
                let name = e.get("tool_name").and_then(Value::as_str).unwrap_or("tool");
                let step = tool_step(name, e.get("parameters").unwrap_or(&Value::Null));
                if let Some(id) = e.get("tool_id").and_then(Value::as_str) {
                    by_id.insert(id.to_string(), steps.len());
                }
                steps.push(step);
            }
            Some("tool_result") => {
                let Some(&i) = e
                    .get("tool_id")
                    .and_then(Value::as_str)
                    .and_then(|id| by_id.get(id))
                else {
                    continue;
                };
                let failed = e.get("status").and_then(Value::as_str) == Some("error");
                if !matches!(steps[i].kind, StepKind::Edit | StepKind::Read) {
                    steps[i].exit_code = Some(i64::from(failed));
                }
                steps[i].output = e
                    .get("output")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .or_else(|| {
                        e.get("error")
                            .and_then(|x| x.get("message"))
                            .and_then(Value::as_str)
                            .map(|m| format!("error: {m}"))
                    });
            }
            Some("result") => {
                let Some(last) = steps.last_mut() else {
                    continue;
                };
                let stats = e.get("stats").unwrap_or(&Value::Null);
                let n = |k: &str| stats.get(k).and_then(Value::as_u64);
                last.tokens_in = n("input_tokens");
                last.tokens_out = n("output_tokens");
                last.tokens_cache_read = n("cached");
                last.elapsed_ms = n("duration_ms");
            }
            _ => {}
        }
    }
    Some(steps)
}
