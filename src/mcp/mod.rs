//! `hunkgen mcp`: a Model Context Protocol server over stdio that gives coding agents
//! repository context (the MAPLE tools, see [`tools`]).
//!
//! The transport is MCP's stdio transport: one JSON-RPC 2.0 message per line on stdin,
//! one response per request on stdout, logs on stderr. This is a small synchronous
//! layer rather than the `rmcp` SDK: the server is nine read-only tools over local
//! files, the rest of hunkgen is synchronous, and `rmcp` would bring an async runtime
//! and macro-generated schemas for what is a line loop and a `match`.

pub mod tools;

use serde_json::{json, Map, Value};
use std::io::{BufRead, Write};
use tools::{Repo, ToolError};

/// Protocol revisions this server speaks, newest first; a client asking for another
/// gets the newest (the spec's negotiation rule).
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-06-18", "2025-03-26", "2024-11-05"];

/// JSON-RPC error codes used here.
mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
}

/// Serve `repo` on `input`/`output` until the input ends. Malformed messages get a
/// JSON-RPC error, never end the session.
pub fn serve(repo: &mut Repo, input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        if let Some(response) = handle_line(repo, &line) {
            serde_json::to_writer(&mut output, &response)?;
            output.write_all(b"\n")?;
            output.flush()?;
        }
    }
    Ok(())
}

/// The response to one message, `None` for notifications.
pub fn handle_line(repo: &mut Repo, line: &str) -> Option<Value> {
    let msg: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            return Some(error(
                Value::Null,
                code::PARSE_ERROR,
                format!("parse error: {e}"),
            ))
        }
    };
    let Value::Object(msg) = msg else {
        return Some(error(
            Value::Null,
            code::INVALID_REQUEST,
            "a message must be one JSON object (batches are not part of MCP 2025-06-18)".into(),
        ));
    };
    let id = msg.get("id").cloned();
    let Some(method) = msg.get("method").and_then(Value::as_str) else {
        // A response from the client (we send no requests) or garbage.
        return id.map(|id| error(id, code::INVALID_REQUEST, "missing `method`".into()));
    };
    let Some(id) = id else {
        // Notifications (initialized, cancelled, …) need no answer.
        return None;
    };
    let params = msg.get("params").cloned().unwrap_or(Value::Null);
    Some(match method {
        "initialize" => {
            let asked = params.get("protocolVersion").and_then(Value::as_str);
            let version = asked
                .filter(|v| PROTOCOL_VERSIONS.contains(v))
                .unwrap_or(PROTOCOL_VERSIONS[0]);
            ok(
                id,
                json!({
                    "protocolVersion": version,
                    "capabilities": {"tools": {"listChanged": false}},
                    "serverInfo": {"name": "hunkgen", "version": env!("CARGO_PKG_VERSION")},
                    "instructions": "Repository context for one checkout: find classes, methods and code by name or text, class skeletons and the directory structure. Paths are relative to the repository root; answers give files and 1-based inclusive line ranges.",
                }),
            )
        }
        "ping" => ok(id, json!({})),
        "tools/list" => ok(id, json!({"tools": tools::definitions()})),
        "tools/call" => call(repo, id, &params),
        other => error(
            id,
            code::METHOD_NOT_FOUND,
            format!("unknown method `{other}`"),
        ),
    })
}

fn call(repo: &mut Repo, id: Value, params: &Value) -> Value {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return error(id, code::INVALID_PARAMS, "tools/call needs `name`".into());
    };
    let empty = Map::new();
    let args = match params.get("arguments") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(m)) => m,
        Some(other) => {
            return error(
                id,
                code::INVALID_PARAMS,
                format!("`arguments` must be an object, got {other}"),
            )
        }
    };
    match repo.call(name, args) {
        Ok(a) => ok(
            id,
            json!({
                "content": [{"type": "text", "text": a.text}],
                "structuredContent": a.structured,
                "isError": false,
            }),
        ),
        Err(ToolError::InvalidParams(m)) => error(id, code::INVALID_PARAMS, m),
        Err(ToolError::Failed(m)) => ok(
            id,
            json!({"content": [{"type": "text", "text": m}], "isError": true}),
        ),
    }
}

fn ok(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn error(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}
