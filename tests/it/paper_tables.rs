//! Issue #33's new tables, every number against a value this file works out by hand from
//! what it scripted: the demo dataset (built as report.rs builds it, without validation)
//! and four scripted agents — claude, codex, gemini and qwen, each writing its
//! trajectories in its own tool's log format, normalized by `hunkgen run`'s adapters —
//! whose test outcomes come from scripted SWE-bench harness reports
//! (`evaluate --harness-report`: the demo has no `validate:`, and this way no test runs),
//! so both outcomes reach `hunkgen evaluate` and, through its results.jsonl and
//! summary.json, `hunkgen report`.
//!
//! Checked: the trajectory analytics in the agent study's and Passerine's terms
//! (`summary.json` `trajectories.analytics`, with the four kinds of tokens and the study's
//! native-tool/shell table on the page); the localization variants (the study's golden
//! files against the counted-hunk files, strict `git apply` against lenient, function
//! level from `hunks[].place`; RepoFixEval's pooled micro scores beside the macro means of
//! `evaluate --localizations`); the outcome-conditioned tables of `outcomes.json` (the
//! divergence of fixed and unfixed bugs with the rank-sum test and Cliff's δ, the bugs no
//! system fixed with their deltas, solver sets by proximity class, and the regression
//! reductions the page draws as violins).
//!
//! The demo is changed in three ways before anything runs (its card's checksum follows):
//! each bug gets one FAIL_TO_PASS and one PASS_TO_PASS test for the harness reports to
//! name; the first bug's fix also creates a source file, which has no counted hunk, so
//! the study's golden files (every file of the developer's source patch) differ from the
//! counted-hunk files there; and the second bug has no Div(P).

use crate::common::{demo_recipe, hunkgen, scratch_root, succeeds};
use hunkgen::model::{
    AgentOutcome, AgentRunRecord, ApplyMethod, Instance, PredictionResult, TrajectoryStep,
};
use hunkgen::run::agents::TrajectoryFormat;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Floats must agree to this.
const EPS: f64 = 1e-9;

/// The agent study's step categories in its order (n-grams of equal count are listed in
/// this order), then OTHER.
const CATEGORIES: [&str; 8] = [
    "WRITE",
    "READ",
    "TEST",
    "BUILD",
    "SEARCH_CONTENT",
    "SEARCH_FILES",
    "NAVIGATE",
    "OTHER",
];

/// The proximity classes nearest first, as every per-class table lists them.
const CLASSES: [&str; 5] = ["Nucleus", "Cluster", "Orbit", "Sprawl", "Fragment"];

/// Where the scripted agents worked: their logs name files under it.
const WORKDIR: &str = "/w/repo";

/// The demo dataset as this file changes it.
struct Demo {
    dir: PathBuf,
    /// The bugs by id: the order of results.jsonl and of every per-bug table.
    bugs: Vec<Value>,
    /// The source file the first bug's fix now also creates.
    created: String,
}

/// A directory kept for the whole test run (the tests share it), under the tests'
/// scratch root.
fn kept_dir() -> PathBuf {
    fs::create_dir_all(scratch_root()).expect("scratch root");
    tempfile::Builder::new()
        .prefix("paper-tables-")
        .tempdir_in(scratch_root())
        .expect("tempdir")
        .keep()
}

fn demo() -> &'static Demo {
    static DEMO: OnceLock<Demo> = OnceLock::new();
    DEMO.get_or_init(|| {
        let root = kept_dir();
        let recipe = demo_recipe(&root);
        let dir = root.join("demo");
        succeeds(
            hunkgen()
                .arg("build")
                .arg(&recipe)
                .arg("-o")
                .arg(&dir)
                .arg("-q"),
        );
        let path = dir.join("instances.jsonl");
        let before = fs::read(&path).expect("instances");
        let mut rows: Vec<Instance> = String::from_utf8(before.clone())
            .expect("utf-8")
            .lines()
            .map(|l| serde_json::from_str(l).expect("instance"))
            .collect();
        rows.sort_by(|a, b| a.instance_id.cmp(&b.instance_id));
        assert_eq!(rows.len(), 7, "the demo's seven fixes");
        for r in &mut rows {
            r.FAIL_TO_PASS = vec![format!("{}::fix", r.instance_id)];
            r.PASS_TO_PASS = vec![format!("{}::keep", r.instance_id)];
        }
        // One bug without a Div(P), as one without annotation has none.
        rows[1].divergence.as_mut().expect("annotated").value = None;
        let first = rows[0].files[0].clone();
        assert!(first.ends_with(".java"), "{first}");
        let created = format!("{}/Rounding.java", parent(&first));
        rows[0].patch.push_str(&creation(&created));
        let after: String = rows
            .iter()
            .map(|r| serde_json::to_string(r).expect("json") + "\n")
            .collect();
        fs::write(&path, &after).expect("write instances");
        let card = dir.join("dataset.yaml");
        let text = fs::read_to_string(&card).expect("card");
        let (old, new) = (
            hunkgen::dataset::sha256_hex(&before),
            hunkgen::dataset::sha256_hex(after.as_bytes()),
        );
        assert!(text.contains(&old), "the card lists the checksum");
        fs::write(&card, text.replace(&old, &new)).expect("write card");
        let bugs = rows
            .iter()
            .map(|r| serde_json::to_value(r).expect("json"))
            .collect();
        Demo { dir, bugs, created }
    })
}

/// A diff that creates `path`.
fn creation(path: &str) -> String {
    format!(
        "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n\
         @@ -0,0 +1,4 @@\n+final class Rounding {{\n+    private Rounding() {{\n+    }}\n+}}\n"
    )
}

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

fn id(bug: &Value) -> &str {
    bug["instance_id"].as_str().expect("id")
}

/// The counted-hunk files (`files`).
fn counted_files(bug: &Value) -> Vec<String> {
    bug["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f.as_str().expect("file").to_string())
        .collect()
}

/// Div(P), when the bug has one.
fn div(bug: &Value) -> Option<f64> {
    bug["divergence"]["value"].as_f64()
}

fn class(bug: &Value) -> String {
    bug["proximity"]["class"]
        .as_str()
        .unwrap_or("undecided")
        .to_string()
}

fn hunks(bug: &Value) -> &Vec<Value> {
    bug["hunks"].as_array().expect("hunks")
}

/// Its counted hunks.
fn counted_hunks(bug: &Value) -> usize {
    hunks(bug).iter().filter(|h| h["counted"] == true).count()
}

// ---------------------------------------------------------------------------------------
// The four systems, scripted.

/// What a system's patch for a bug is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fix {
    /// The golden patch (on the first bug, the file it creates included).
    Gold,
    /// The first bug's golden patch without the file it creates.
    Original,
    /// The golden patch's first hunk only.
    First,
    /// Its second hunk only.
    Second,
    /// The golden patch with the first context line of its first hunk changed, so that
    /// `git apply` refuses it and fuzz (or a 3-way merge) takes it in.
    Fuzz,
    /// No change: an abstention.
    Empty,
}

/// One system: its name (`model_name_or_path`), its log format, and per bug (in id
/// order) whether the harness report resolves it, its patch and its trajectory. A
/// trajectory is written as steps separated by spaces: `R`/`r` read a file (upper case:
/// through the agent's own tool; lower case: a shell command), `E`/`e` edit one, `t` run
/// tests, `b` build, `G`/`g` search contents, `F`/`f` search file names, `L`/`l` list a
/// directory, `c` change directory, `O`/`o` anything else; `:0` and `:1` name the bug's
/// first and second counted file, `:s` a file beside the first, `:d` one far from it.
struct System {
    name: &'static str,
    format: TrajectoryFormat,
    runs: [Option<(bool, Fix, &'static str)>; 7],
}

fn systems() -> [System; 4] {
    use Fix::*;
    [
        System {
            name: "claude",
            format: TrajectoryFormat::ClaudeStreamJson,
            runs: [
                Some((true, Gold, "G R:0 R:1 E:0 E:1 t")),
                Some((false, First, "g F l R:0 R:0 E:0 E:0 E:0 o")),
                Some((true, Gold, "L r:0 e:0 R:1 E:1 b t O")),
                Some((true, Fuzz, "c G r:0 E:0 t R:0 t")),
                Some((false, Empty, "f R:0 r:0 E:s b")),
                Some((false, First, "G g G R:0 e:d e:d t")),
                Some((true, Gold, "R:0 E:0 E:0 E:0 t")),
            ],
        },
        System {
            name: "codex",
            format: TrajectoryFormat::CodexJson,
            runs: [
                Some((true, Gold, "f G R:0 E:0 E:1 t")),
                Some((false, Empty, "l c g r:0 E:0 o")),
                Some((false, First, "g f l L r:0 r:0 e:s")),
                Some((true, Gold, "r:0 E:0 b t O")),
                Some((true, Gold, "G R:0 E:0 E:0 E:0 t t")),
                Some((false, Gold, "r:0 E:1 E:1 E:1 t")),
                Some((false, First, "c l r:0 e:0 E:0 b")),
            ],
        },
        System {
            name: "gemini",
            format: TrajectoryFormat::GeminiStreamJson,
            runs: [
                Some((false, Original, "F G L R:0 E:0 E:1 t")),
                Some((false, First, "R:0 R:0 E:0 o")),
                Some((true, Gold, "g R:0 E:0 R:1 E:1 b t O")),
                Some((false, Second, "l r:0 e:0 e:0 e:0 t")),
                Some((false, First, "G R:0 E:d E:s E:d")),
                Some((false, Empty, "O o c")),
                Some((true, Fuzz, "f r:0 R:0 E:0 t")),
            ],
        },
        System {
            name: "qwen",
            format: TrajectoryFormat::QwenStreamJson,
            runs: [
                Some((false, First, "G F g R:0 E:0 t")),
                Some((false, Gold, "R:0 E:0 R:0 E:0 R:0 t")),
                Some((false, Empty, "L r:0 r:1 e:s r:0 o")),
                Some((true, Gold, "g R:0 R:0 E:0 b t O")),
                Some((false, First, "c R:0 E:0 E:0 E:0")),
                // No run on this bug: it is outside qwen's split.
                None,
                Some((false, First, "f l R:1 E:d t")),
            ],
        },
    ]
}

/// Tests failing after a patch, as its harness report lists them: none after a resolving
/// one; else the FAIL_TO_PASS test, and on even bugs the PASS_TO_PASS one too.
fn failing_after(resolved: bool, k: usize) -> usize {
    match (resolved, k % 2) {
        (true, _) => 0,
        (false, 0) => 2,
        (false, _) => 1,
    }
}

/// The tokens a step's model call reports: (input not from the cache, output, read from
/// the cache, written to the cache).
fn usage(s: usize, k: usize, i: usize) -> (u64, u64, u64, u64) {
    let (s, k, i) = (s as u64, k as u64, i as u64);
    (
        900 + 1000 * s + 100 * k + 10 * i,
        30 + 3 * k + i + 5 * s,
        400 + 20 * k + 5 * i + 7 * s,
        50 + k + i + s,
    )
}

/// Milliseconds a run took (`result.json`).
fn elapsed_ms(s: usize, k: usize) -> u64 {
    10_000 * (k as u64 + 1) + 1_000 * s as u64 + 123
}

/// A scripted action.
#[derive(Clone, Debug, PartialEq)]
enum Act {
    Read(String),
    Edit(String),
    Test,
    Build,
    Grep,
    Glob,
    List(String),
    Cd,
    Other,
}

#[derive(Clone, Debug)]
struct Step {
    act: Act,
    native: bool,
}

impl Step {
    /// Its category, as the agent study names it.
    fn category(&self) -> &'static str {
        match self.act {
            Act::Edit(_) => "WRITE",
            Act::Read(_) => "READ",
            Act::Test => "TEST",
            Act::Build => "BUILD",
            Act::Grep => "SEARCH_CONTENT",
            Act::Glob => "SEARCH_FILES",
            Act::List(_) | Act::Cd => "NAVIGATE",
            Act::Other => "OTHER",
        }
    }

    /// A search command in Passerine's sense (grep, find, ls and their tools; not cd).
    fn search(&self) -> bool {
        matches!(self.act, Act::Grep | Act::Glob | Act::List(_))
    }

    fn read(&self) -> Option<&str> {
        match &self.act {
            Act::Read(f) => Some(f),
            _ => None,
        }
    }

    fn edit(&self) -> Option<&str> {
        match &self.act {
            Act::Edit(f) => Some(f),
            _ => None,
        }
    }

    /// The shell command of the step.
    fn shell(&self) -> String {
        match &self.act {
            Act::Read(f) => format!("cat {f}"),
            Act::Edit(f) => format!("sed -i 's/a/b/' {f}"),
            Act::Test => "python -m pytest -q".into(),
            Act::Build => "javac -d out Main.java".into(),
            Act::Grep => "grep -rn width src".into(),
            Act::Glob => "find . -name '*.java'".into(),
            Act::List(d) => format!("ls {d}"),
            Act::Cd => "cd src".into(),
            Act::Other => "echo done".into(),
        }
    }
}

fn abs(path: &str) -> String {
    format!("{WORKDIR}/{path}")
}

/// The steps of a trajectory script on `bug`.
fn steps(script: &str, bug: &Value) -> Vec<Step> {
    let files = counted_files(bug);
    let f0 = files[0].clone();
    let ext = f0.rsplit('.').next().expect("extension").to_string();
    let top = f0.split('/').next().expect("top").to_string();
    let file = |r: Option<&str>| match r.expect("a file") {
        "0" => f0.clone(),
        "1" => files.get(1).unwrap_or(&f0).clone(),
        "s" => format!("{}/Scratch.{ext}", parent(&f0)),
        "d" => format!("{top}/other/Scratch.{ext}"),
        other => panic!("no file {other}"),
    };
    script
        .split_whitespace()
        .map(|tok| {
            let (head, r) = match tok.split_once(':') {
                Some((h, r)) => (h, Some(r)),
                None => (tok, None),
            };
            let c = head.chars().next().expect("a step");
            let act = match c.to_ascii_lowercase() {
                'r' => Act::Read(file(r)),
                'e' => Act::Edit(file(r)),
                't' => Act::Test,
                'b' => Act::Build,
                'g' => Act::Grep,
                'f' => Act::Glob,
                'l' => Act::List(parent(&f0).to_string()),
                'c' => Act::Cd,
                'o' => Act::Other,
                other => panic!("no step {other}"),
            };
            let native = c.is_ascii_uppercase();
            assert!(
                !(native && matches!(act, Act::Test | Act::Build | Act::Cd)),
                "{tok}: no agent has a tool of its own for it"
            );
            Step { act, native }
        })
        .collect()
}

/// A tool call of Claude Code (`claude`), Gemini CLI (`gemini`) or Qwen Code (`qwen`):
/// its name and input.
fn tool_call(tool: &str, step: &Step) -> (String, Value) {
    let todo = json!({"todos": [{"content": "check the width", "status": "pending"}]});
    let (name, input) = match (tool, step.native, &step.act) {
        ("claude", false, _) => ("Bash", json!({"command": step.shell()})),
        (_, false, _) => ("run_shell_command", json!({"command": step.shell()})),
        ("claude", true, Act::Read(f)) => ("Read", json!({"file_path": abs(f)})),
        ("claude", true, Act::Edit(f)) => (
            "Edit",
            json!({"file_path": abs(f), "old_string": "a", "new_string": "b"}),
        ),
        ("claude", true, Act::Grep) => ("Grep", json!({"pattern": "width"})),
        ("claude", true, Act::Glob) => ("Glob", json!({"pattern": "**/*.java"})),
        ("claude", true, Act::List(d)) => ("LS", json!({"path": abs(d)})),
        ("claude", true, Act::Other) => ("TodoWrite", todo),
        (_, true, Act::Read(f)) => ("read_file", json!({"absolute_path": abs(f)})),
        ("gemini", true, Act::Edit(f)) => (
            "replace",
            json!({"file_path": abs(f), "old_string": "a", "new_string": "b"}),
        ),
        (_, true, Act::Edit(f)) => (
            "edit",
            json!({"file_path": abs(f), "old_string": "a", "new_string": "b"}),
        ),
        ("gemini", true, Act::Grep) => ("search_file_content", json!({"pattern": "width"})),
        (_, true, Act::Grep) => ("grep_search", json!({"pattern": "width"})),
        (_, true, Act::Glob) => ("glob", json!({"pattern": "**/*.java"})),
        (_, true, Act::List(d)) => ("list_directory", json!({"path": abs(d)})),
        ("gemini", true, Act::Other) => ("save_memory", json!({"fact": "widths count signs"})),
        (_, true, Act::Other) => ("todo_write", todo),
        (_, true, act) => panic!("no tool for {act:?}"),
    };
    (name.to_string(), input)
}

/// The log a system's agent writes for `steps` in its own format.
fn log(format: TrajectoryFormat, s: usize, k: usize, steps: &[Step]) -> String {
    let mut lines: Vec<Value> = Vec::new();
    let total = |f: &dyn Fn((u64, u64, u64, u64)) -> u64| -> u64 {
        (0..steps.len()).map(|i| f(usage(s, k, i))).sum()
    };
    match format {
        TrajectoryFormat::ClaudeStreamJson | TrajectoryFormat::QwenStreamJson => {
            let claude = format == TrajectoryFormat::ClaudeStreamJson;
            lines.push(
                json!({"type": "system", "subtype": "init", "cwd": WORKDIR, "session_id": "s1"}),
            );
            for (i, step) in steps.iter().enumerate() {
                let (name, input) = tool_call(if claude { "claude" } else { "qwen" }, step);
                let (a, o, c, w) = usage(s, k, i);
                // Claude Code reports what it read from and wrote to the prompt cache apart
                // from `input_tokens`; Qwen Code reports the reads only.
                let usage = if claude {
                    json!({"input_tokens": a, "cache_read_input_tokens": c, "cache_creation_input_tokens": w, "output_tokens": o})
                } else {
                    json!({"input_tokens": a, "cache_read_input_tokens": c, "output_tokens": o})
                };
                lines.push(json!({"type": "assistant", "message": {"id": format!("m{i}"), "type": "message", "role": "assistant",
                    "content": [{"type": "text", "text": "Next."}, {"type": "tool_use", "id": format!("t{i}"), "name": name, "input": input}],
                    "usage": usage}}));
                lines.push(json!({"type": "user", "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": format!("t{i}"), "content": "ok", "is_error": false}]}}));
            }
            // The session's totals repeat the messages' usage: not counted twice.
            lines.push(json!({"type": "result", "subtype": "success", "is_error": false, "duration_ms": elapsed_ms(s, k),
                "usage": {"input_tokens": total(&|u| u.0), "output_tokens": total(&|u| u.1)}}));
        }
        TrajectoryFormat::CodexJson => {
            lines.push(json!({"type": "thread.started", "thread_id": "t1"}));
            for (i, step) in steps.iter().enumerate() {
                lines.push(json!({"type": "turn.started"}));
                if i == 0 {
                    lines.push(json!({"type": "item.completed", "item": {"id": "r0", "type": "reasoning", "text": "Looking."}}));
                }
                let mcp = |tool: &str, args: Value| {
                    json!({"id": format!("item_{i}"), "type": "mcp_tool_call", "server": "hunkgen", "tool": tool,
                        "arguments": args, "result": {"content": [{"type": "text", "text": "ok"}]}, "status": "completed"})
                };
                let item = match (step.native, &step.act) {
                    (false, _) => {
                        let cmd = step.shell();
                        let wrapped = if cmd.contains('\'') {
                            format!("bash -lc \"{cmd}\"")
                        } else {
                            format!("bash -lc '{cmd}'")
                        };
                        json!({"id": format!("item_{i}"), "type": "command_execution", "command": wrapped,
                            "aggregated_output": "", "exit_code": 0, "status": "completed"})
                    }
                    (true, Act::Read(f)) => mcp("get_class_skeleton", json!({"file_path": abs(f)})),
                    (true, Act::Edit(f)) => {
                        json!({"id": format!("item_{i}"), "type": "file_change",
                        "changes": [{"path": abs(f), "kind": "update"}], "status": "completed"})
                    }
                    (true, Act::Grep) => mcp("find_code", json!({"code": "width"})),
                    (true, Act::List(d)) => {
                        mcp("get_repository_structure", json!({"path": abs(d)}))
                    }
                    (true, Act::Other) => {
                        json!({"id": format!("item_{i}"), "type": "web_search", "query": "zero padding"})
                    }
                    (true, act) => panic!("codex has no tool of its own for {act:?}"),
                };
                lines.push(json!({"type": "item.completed", "item": item}));
                // Codex's `input_tokens` hold the cached ones.
                let (a, o, c, _) = usage(s, k, i);
                lines.push(json!({"type": "turn.completed", "usage": {"input_tokens": a + c, "cached_input_tokens": c, "output_tokens": o}}));
            }
        }
        TrajectoryFormat::GeminiStreamJson => {
            lines.push(json!({"type": "init", "session_id": "g1", "model": "gemini-2.5-pro"}));
            lines.push(json!({"type": "message", "role": "user", "content": "Fix the bug."}));
            for (i, step) in steps.iter().enumerate() {
                let (name, params) = tool_call("gemini", step);
                let tool_id = format!("{name}-{i}");
                lines.push(json!({"type": "tool_use", "tool_name": name, "tool_id": tool_id, "parameters": params}));
                lines.push(json!({"type": "tool_result", "tool_id": tool_id, "status": "success", "output": "ok"}));
            }
            // Gemini CLI reports the session's totals only; its input holds the cached.
            let input = total(&|u| u.0 + u.2);
            let output = total(&|u| u.1);
            lines.push(json!({"type": "result", "status": "success", "stats": {"total_tokens": input + output,
                "input_tokens": input, "output_tokens": output, "cached": total(&|u| u.2),
                "duration_ms": elapsed_ms(s, k), "tool_calls": steps.len()}}));
        }
        other => panic!("not scripted: {other:?}"),
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The hunks of a unified diff, each with the header of its file, in order.
fn split_hunks(patch: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut header = String::new();
    let mut hunk: Option<String> = None;
    for line in patch.split_inclusive('\n') {
        if line.starts_with("diff --git ") {
            out.extend(hunk.take().map(|h| (header.clone(), h)));
            header = line.to_string();
        } else if line.starts_with("@@ ") {
            out.extend(hunk.take().map(|h| (header.clone(), h)));
            hunk = Some(line.to_string());
        } else if let Some(h) = hunk.as_mut() {
            h.push_str(line);
        } else {
            header.push_str(line);
        }
    }
    out.extend(hunk.map(|h| (header.clone(), h)));
    out
}

/// The patch `fix` on bug `k`.
fn patch_of(fix: Fix, k: usize) -> String {
    let d = demo();
    let gold = d.bugs[k]["patch"].as_str().expect("patch").to_string();
    let hunk = |n: usize| {
        let (header, hunk) = split_hunks(&gold).swap_remove(n);
        header + &hunk
    };
    match fix {
        Fix::Gold => gold,
        Fix::Original => {
            assert_eq!(k, 0, "only the first bug's fix creates a file");
            gold.strip_suffix(&creation(&d.created))
                .expect("the creation")
                .to_string()
        }
        Fix::First => hunk(0),
        Fix::Second => hunk(1),
        Fix::Fuzz => {
            let at = gold.find("\n@@ ").expect("a hunk") + 1;
            let first = at + gold[at..].find('\n').expect("header") + 1;
            assert!(gold[first..].starts_with(' '), "a context line first");
            format!("{} X{}", &gold[..first], &gold[first + 1..])
        }
        Fix::Empty => String::new(),
    }
}

/// The counted golden hunks a patch keeps (by `patch_index`).
fn hunks_kept(fix: Fix, bug: &Value) -> Vec<usize> {
    let n = hunks(bug).len();
    match fix {
        Fix::Gold | Fix::Original | Fix::Fuzz => (0..n).collect(),
        Fix::First => vec![0],
        Fix::Second => vec![1],
        Fix::Empty => Vec::new(),
    }
}

/// Files a diff names (`diff --git a/X b/Y`: both sides).
fn files_in(patch: &str) -> BTreeSet<String> {
    patch
        .lines()
        .filter_map(|l| l.strip_prefix("diff --git a/"))
        .flat_map(|l| {
            let (a, b) = l.split_once(" b/").expect("two paths");
            [a.to_string(), b.to_string()]
        })
        .collect()
}

/// Buggy-side `(path, line)` locations.
type Lines = BTreeSet<(String, u32)>;

/// The buggy-side lines a unified diff touches, by the rule of docs/evaluate.md: a block
/// of changed lines (between two context lines) that removes lines touches exactly those;
/// one that only inserts before old line p touches p − 1 (when ≥ 1) and p; a file the
/// diff creates has no buggy side.
fn touched(patch: &str) -> Lines {
    fn insertion(out: &mut Lines, file: &str, p: u32, removes: bool, inserts: bool) {
        if inserts && !removes {
            if p > 1 {
                out.insert((file.to_string(), p - 1));
            }
            out.insert((file.to_string(), p));
        }
    }
    let range = |s: &str| -> (u32, u32) {
        let (a, b) = s.split_once(',').unwrap_or((s, "1"));
        (a.parse().expect("start"), b.parse().expect("count"))
    };
    let mut out = BTreeSet::new();
    let mut path: Option<String> = None;
    let mut lines = patch.lines();
    while let Some(l) = lines.next() {
        if let Some(p) = l.strip_prefix("--- ") {
            path = p.strip_prefix("a/").map(str::to_string);
            continue;
        }
        let Some(h) = l.strip_prefix("@@ -") else {
            continue;
        };
        let mut parts = h.split(' ');
        let (start, mut left_old) = range(parts.next().expect("old range"));
        let (_, mut left_new) = range(parts.next().expect("new range").trim_start_matches('+'));
        let mut old = start + u32::from(left_old == 0);
        let (mut removes, mut inserts) = (false, false);
        while left_old > 0 || left_new > 0 {
            let line = lines.next().expect("hunk line");
            let Some(file) = path.as_deref() else {
                // A created file: its lines are all new.
                left_new -= 1;
                continue;
            };
            match line.as_bytes().first() {
                Some(b'-') => {
                    out.insert((file.to_string(), old));
                    removes = true;
                    old += 1;
                    left_old -= 1;
                }
                Some(b'+') => {
                    inserts = true;
                    left_new -= 1;
                }
                Some(b'\\') => {}
                _ => {
                    insertion(&mut out, file, old, removes, inserts);
                    (removes, inserts) = (false, false);
                    old += 1;
                    left_old -= 1;
                    left_new -= 1;
                }
            }
        }
        if let Some(file) = path.as_deref() {
            insertion(&mut out, file, old, removes, inserts);
        }
    }
    out
}

/// Precision, recall and F1 of `hit` right of `predicted`, of `golden` (`None` when
/// nothing is golden; 0 / 0 / 0 when nothing is predicted).
fn prf(hit: usize, predicted: usize, golden: usize) -> Option<[f64; 3]> {
    if golden == 0 {
        return None;
    }
    let p = if predicted == 0 {
        0.0
    } else {
        hit as f64 / predicted as f64
    };
    let r = hit as f64 / golden as f64;
    let f = if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    };
    Some([p, r, f])
}

fn set_prf<T: Ord>(predicted: &BTreeSet<T>, golden: &BTreeSet<T>) -> Option<[f64; 3]> {
    prf(
        predicted.intersection(golden).count(),
        predicted.len(),
        golden.len(),
    )
}

/// Edges between two files' leaves of the directory tree.
fn tree_distance(a: &str, b: &str) -> usize {
    if a == b {
        return 0;
    }
    let a: Vec<&str> = a.split('/').collect();
    let b: Vec<&str> = b.split('/').collect();
    let common = a[..a.len() - 1]
        .iter()
        .zip(&b[..b.len() - 1])
        .take_while(|(x, y)| x == y)
        .count();
    (a.len() - common) + (b.len() - common)
}

/// One scored run as this file expects it.
struct Expected {
    k: usize,
    resolved: bool,
    fix: Fix,
    steps: Vec<Step>,
    /// Per-run token sums: input, output, cache read, cache write (`None`: not reported).
    tokens: [Option<u64>; 4],
}

/// Everything the scripted pipeline wrote.
struct Pipeline {
    work: PathBuf,
    /// Per system (in `systems()` order), its runs by bug.
    runs: Vec<Vec<Expected>>,
}

fn pipeline() -> &'static Pipeline {
    static P: OnceLock<Pipeline> = OnceLock::new();
    P.get_or_init(|| {
        let d = demo();
        let work = kept_dir();
        let mut all = Vec::new();
        for (s, sys) in systems().iter().enumerate() {
            let base = work.join(sys.name);
            let harness = work.join("harness").join(sys.name);
            let mut preds = String::new();
            let mut expected = Vec::new();
            for (k, run) in sys.runs.iter().enumerate() {
                let Some((resolved, fix, script)) = *run else {
                    continue;
                };
                let bug = &d.bugs[k];
                let iid = id(bug);
                let patch = patch_of(fix, k);
                preds.push_str(
                    &json!({"instance_id": iid, "model_name_or_path": sys.name, "model_patch": patch})
                        .to_string(),
                );
                preds.push('\n');
                // The harness report: the bug's FAIL_TO_PASS test passes when resolved.
                let fails = failing_after(resolved, k);
                let (f2p, p2p) = ([format!("{iid}::fix")], [format!("{iid}::keep")]);
                let side = |tests: &[String; 1], failed: bool| {
                    if failed {
                        json!({"success": [], "failure": tests})
                    } else {
                        json!({"success": tests, "failure": []})
                    }
                };
                let mut report = serde_json::Map::new();
                report.insert(
                    iid.to_string(),
                    json!({"patch_successfully_applied": true, "resolved": resolved,
                        "tests_status": {"FAIL_TO_PASS": side(&f2p, fails >= 1),
                            "PASS_TO_PASS": side(&p2p, fails >= 2)}}),
                );
                let report = Value::Object(report);
                fs::create_dir_all(harness.join(iid)).expect("mkdir");
                fs::write(harness.join(iid).join("report.json"), report.to_string()).expect("report");
                // The run: its log in the agent's format, normalized as `hunkgen run` does.
                let steps = steps(script, bug);
                let raw = log(sys.format, s, k, &steps);
                let normalized =
                    hunkgen::run::trajectory::normalize(sys.format, &raw, WORKDIR, 4096)
                        .unwrap_or_else(|e| panic!("{} on {iid}: {e}\n{raw}", sys.name));
                assert_eq!(normalized.len(), steps.len(), "{} on {iid}: {raw}", sys.name);
                let dir = base.join(iid);
                fs::create_dir_all(&dir).expect("mkdir");
                let jsonl: String = normalized
                    .iter()
                    .map(|t: &TrajectoryStep| serde_json::to_string(t).expect("json") + "\n")
                    .collect();
                fs::write(dir.join("trajectory.raw"), &raw).expect("raw");
                fs::write(dir.join("trajectory.jsonl"), jsonl).expect("trajectory");
                let record = AgentRunRecord {
                    instance_id: iid.to_string(),
                    agent: sys.name.to_string(),
                    state: "novel".into(),
                    scenario: "best".into(),
                    prompt_variant: "plain".into(),
                    tests_present: false,
                    key: String::new(),
                    outcome: AgentOutcome::Completed,
                    exit_code: Some(0),
                    elapsed_ms: elapsed_ms(s, k),
                    started_at: "2026-01-01T00:00:00Z".into(),
                    sandboxed: true,
                    patch_bytes: patch.len(),
                    binary_files: Vec::new(),
                    trajectory_format: sys.format.name().into(),
                    trajectory_steps: steps.len(),
                    detail: None,
                    had: Vec::new(),
                    environment_error: None,
                    keep_output: None,
                    attempt: None,
                };
                fs::write(
                    dir.join("result.json"),
                    serde_json::to_string(&record).expect("json"),
                )
                .expect("result");
                // Each format's token counts, by its documentation: Claude Code's input is
                // the uncached input plus the cache's reads and writes; Codex's, Gemini
                // CLI's and Qwen Code's input holds the cache's reads; only Claude Code
                // reports the cache's writes.
                let sum = |f: &dyn Fn((u64, u64, u64, u64)) -> u64| -> u64 {
                    (0..steps.len()).map(|i| f(usage(s, k, i))).sum()
                };
                let claude = sys.format == TrajectoryFormat::ClaudeStreamJson;
                let tokens = [
                    Some(if claude {
                        sum(&|u| u.0 + u.2 + u.3)
                    } else {
                        sum(&|u| u.0 + u.2)
                    }),
                    Some(sum(&|u| u.1)),
                    Some(sum(&|u| u.2)),
                    claude.then(|| sum(&|u| u.3)),
                ];
                expected.push(Expected {
                    k,
                    resolved,
                    fix,
                    steps,
                    tokens,
                });
            }
            let pred_file = base.join("predictions.jsonl");
            fs::write(&pred_file, preds).expect("predictions");
            succeeds(
                hunkgen()
                    .arg("evaluate")
                    .arg(&d.dir)
                    .arg("--predictions")
                    .arg(&pred_file)
                    .arg("--harness-report")
                    .arg(&harness)
                    .arg("--output")
                    .arg(work.join("eval").join(sys.name))
                    .arg("-q")
                    .env_remove("HUNKGEN_SHARD")
                    .env_remove("SLURM_ARRAY_TASK_ID")
                    .env_remove("JOB_COMPLETION_INDEX"),
            );
            all.push(expected);
        }
        let mut report = hunkgen();
        report.arg("report").arg(&d.dir);
        for sys in systems() {
            report.arg("--results").arg(work.join("eval").join(sys.name));
        }
        succeeds(report.arg("-o").arg(work.join("page/index.html")));
        Pipeline { work, runs: all }
    })
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(
        &fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .expect("json")
}

// ---------------------------------------------------------------------------------------
// Comparison helpers.

#[track_caller]
fn close(got: &Value, want: f64, what: &str) {
    let g = got
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: {got} is not a number (want {want})"));
    assert!((g - want).abs() < EPS, "{what}: got {g}, want {want}");
}

#[track_caller]
fn close_opt(got: &Value, want: Option<f64>, what: &str) {
    match want {
        Some(w) => close(got, w, what),
        None => assert!(got.is_null(), "{what}: got {got}, want nothing"),
    }
}

#[track_caller]
fn close_all(got: &Value, want: &[f64], what: &str) {
    let g = got.as_array().unwrap_or_else(|| panic!("{what}: {got}"));
    assert_eq!(g.len(), want.len(), "{what}: {got} against {want:?}");
    for (i, (x, y)) in g.iter().zip(want).enumerate() {
        close(x, *y, &format!("{what}[{i}]"));
    }
}

/// The keys of a JSON object (none for null).
#[track_caller]
fn keys(v: &Value) -> Vec<String> {
    match v {
        Value::Null => Vec::new(),
        Value::Object(m) => m.keys().cloned().collect(),
        other => panic!("not an object: {other}"),
    }
}

#[track_caller]
fn check_scores(got: &Value, want: Option<[f64; 3]>, what: &str) {
    match want {
        None => assert!(got.is_null(), "{what}: {got}"),
        Some([p, r, f]) => {
            close(&got["precision"], p, &format!("{what} precision"));
            close(&got["recall"], r, &format!("{what} recall"));
            close(&got["f1"], f, &format!("{what} F1"));
        }
    }
}

#[track_caller]
fn check_rate(got: &Value, k: usize, n: usize, what: &str) {
    assert_eq!(
        (got["k"].as_u64(), got["n"].as_u64()),
        (Some(k as u64), Some(n as u64)),
        "{what}: {got}"
    );
    close(&got["rate"], k as f64 / n as f64, what);
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// erfc(x) from the Maclaurin series of erf, erf(x) = 2/√π Σ (−1)ⁿ x²ⁿ⁺¹ / (n! (2n + 1)),
/// which is exact to ~1e-15 for the |x| < 3 of these small samples.
fn erfc(x: f64) -> f64 {
    assert!(x.abs() < 3.0, "{x}");
    let (mut sum, mut power, mut n) = (0.0, x, 0u32);
    loop {
        let term = power / f64::from(2 * n + 1);
        sum += if n % 2 == 0 { term } else { -term };
        if term.abs() < 1e-18 {
            break;
        }
        n += 1;
        power *= x * x / f64::from(n);
    }
    1.0 - 2.0 / std::f64::consts::PI.sqrt() * sum
}

// ---------------------------------------------------------------------------------------
// The trajectory analytics.

/// `summary.json`'s `trajectories` of each system against its scripted runs: the four
/// kinds of tokens and the means per outcome, the seven categories by outcome, their
/// n-grams of two to five steps, Passerine's smells, command frequency by step index,
/// the study's native-tool/shell table and the tree distance of unresolved runs' edits.
#[test]
fn trajectory_analytics_of_four_agents_by_hand() {
    let p = pipeline();
    let d = demo();
    let page = fs::read_to_string(p.work.join("page/index.html")).expect("page");
    assert!(page.contains("Trajectory analytics"), "the page's section");
    assert!(
        page.contains("<h4>Tokens per run</h4>"),
        "the token violins"
    );
    for (s, (sys, runs)) in systems().iter().zip(&p.runs).enumerate() {
        let summary = read_json(&p.work.join("eval").join(sys.name).join("summary.json"));
        let t = &summary["trajectories"];
        let who = sys.name;
        assert_eq!(t["runs"], runs.len(), "{who}");
        assert_eq!(t["with_trajectory"], runs.len(), "{who}");
        assert_eq!(t["outcomes"], json!({"completed": runs.len()}), "{who}");
        // Means per outcome, the four kinds of tokens apart.
        let mut means = BTreeMap::new();
        for (outcome, success) in [("success", true), ("failure", false)] {
            let group: Vec<&Expected> = runs.iter().filter(|r| r.resolved == success).collect();
            let g = &t[outcome];
            let what = format!("{who} {outcome}");
            assert_eq!(g["runs"], group.len(), "{what}");
            let per_run = |f: &dyn Fn(&Expected) -> Option<f64>| -> Vec<f64> {
                group.iter().filter_map(|r| f(r)).collect()
            };
            let mut each = per_run(&|r| Some((r.tokens[0]? + r.tokens[1]?) as f64));
            let tokens = mean(&each);
            // The distribution the page draws: every run's tokens, by outcome.
            each.sort_by(f64::total_cmp);
            let mut drawn: Vec<f64> = t["tokens_per_run"][outcome]
                .as_array()
                .map(|v| v.iter().filter_map(Value::as_f64).collect())
                .unwrap_or_default();
            drawn.sort_by(f64::total_cmp);
            assert_eq!(drawn, each, "{what} tokens per run");
            let seconds = mean(&per_run(&|r| Some(elapsed_ms(s, r.k) as f64 / 1000.0)));
            let steps = mean(&per_run(&|r| Some(r.steps.len() as f64)));
            close_opt(&g["mean_tokens"], tokens, &format!("{what} mean tokens"));
            close_opt(&g["mean_seconds"], seconds, &format!("{what} mean seconds"));
            close_opt(&g["mean_steps"], steps, &format!("{what} mean steps"));
            for (j, key) in [
                "mean_input_tokens",
                "mean_output_tokens",
                "mean_cache_read_tokens",
                "mean_cache_write_tokens",
            ]
            .iter()
            .enumerate()
            {
                let want = mean(&per_run(&|r| r.tokens[j].map(|v| v as f64)));
                close_opt(&g[key], want, &format!("{what} {key}"));
            }
            means.insert(outcome, (tokens, seconds, steps));
        }
        let ratio = |f: Option<f64>, s: Option<f64>| match (f, s) {
            (Some(f), Some(s)) if s > 0.0 => Some(f / s),
            _ => None,
        };
        let (ok, bad) = (means["success"], means["failure"]);
        close_opt(
            &t["fail_fast"]["tokens"],
            ratio(bad.0, ok.0),
            "fail fast tokens",
        );
        close_opt(
            &t["fail_fast"]["seconds"],
            ratio(bad.1, ok.1),
            "fail fast seconds",
        );
        close_opt(
            &t["fail_fast"]["steps"],
            ratio(bad.2, ok.2),
            "fail fast steps",
        );
        check_analytics(&t["analytics"], runs, who, d);
        // The study's Table 7 on the page: each category's steps by the agent's own tools
        // and by shell commands.
        let cells: Vec<String> = CATEGORIES
            .iter()
            .filter_map(|c| {
                let of: Vec<&Step> = runs
                    .iter()
                    .flat_map(|r| &r.steps)
                    .filter(|s| s.category() == *c)
                    .collect();
                (!of.is_empty()).then(|| {
                    let native = of.iter().filter(|s| s.native).count();
                    format!("{c} {native} / {}", of.len() - native)
                })
            })
            .collect();
        let row = format!("<tr><td>{who}</td><td>{}</td></tr>", cells.join(", "));
        assert!(page.contains(&row), "the page lacks {row}");
    }
}

fn check_analytics(a: &Value, runs: &[Expected], who: &str, d: &Demo) {
    let outcomes = [("success", true), ("failure", false)];
    // Steps per category by outcome, as shares of the outcome's steps.
    for (outcome, success) in outcomes {
        let steps: Vec<&Step> = runs
            .iter()
            .filter(|r| r.resolved == success)
            .flat_map(|r| &r.steps)
            .collect();
        let got = &a["categories"][outcome];
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for s in &steps {
            *counts.entry(s.category()).or_default() += 1;
        }
        assert_eq!(
            keys(got),
            counts.keys().map(|k| k.to_string()).collect::<Vec<_>>(),
            "{who} {outcome} categories"
        );
        for (c, n) in counts {
            assert_eq!(got[c]["steps"], n, "{who} {outcome} {c}");
            close(
                &got[c]["share"],
                n as f64 / steps.len() as f64,
                &format!("{who} {outcome} {c} share"),
            );
        }
    }
    assert_eq!(keys(&a["categories"]), ["failure", "success"], "{who}");
    // n-grams of 2 to 5 steps (the default windows).
    check_ngrams(a, runs, who, &[2, 3, 4, 5]);
    // Passerine's smells per outcome: how many trajectories show each.
    for (outcome, success) in outcomes {
        let group: Vec<&Expected> = runs.iter().filter(|r| r.resolved == success).collect();
        let count = |f: &dyn Fn(&[Step]) -> bool| group.iter().filter(|r| f(&r.steps)).count();
        let no_test = count(&|s| !s.iter().any(|x| x.category() == "TEST"));
        // A file read again with no edit of it since its previous read.
        let no_op_cat = count(&|s| {
            (0..s.len()).any(|i| {
                let Some(f) = s[i].read() else { return false };
                s[..i]
                    .iter()
                    .rposition(|x| x.read() == Some(f))
                    .is_some_and(|j| !s[j + 1..i].iter().any(|x| x.edit() == Some(f)))
            })
        });
        let consecutive_search = count(&|s| s.windows(3).any(|w| w.iter().all(Step::search)));
        let consecutive_edit = count(&|s| {
            s.windows(3)
                .any(|w| w[0].edit().is_some() && w.iter().all(|x| x.edit() == w[0].edit()))
        });
        assert_eq!(
            a["smells"][outcome],
            json!({"trajectories": group.len(), "no_test": no_test, "no_op_cat": no_op_cat,
                "consecutive_search": consecutive_search, "consecutive_edit": consecutive_edit}),
            "{who} {outcome} smells"
        );
    }
    // Steps per category at each step index, over every run.
    let longest = runs.iter().map(|r| r.steps.len()).max().expect("runs");
    let by_step: Vec<BTreeMap<&str, usize>> = (0..longest.min(30))
        .map(|i| {
            let mut at = BTreeMap::new();
            for r in runs {
                if let Some(s) = r.steps.get(i) {
                    *at.entry(s.category()).or_default() += 1;
                }
            }
            at
        })
        .collect();
    assert_eq!(a["by_step"], json!(by_step), "{who} by step index");
    // Native tools against shell commands, per category.
    let mut via: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for s in runs.iter().flat_map(|r| &r.steps) {
        let v = via.entry(s.category()).or_default();
        if s.native {
            v.0 += 1;
        } else {
            v.1 += 1;
        }
    }
    let via: BTreeMap<&str, Value> = via
        .into_iter()
        .map(|(c, (n, sh))| (c, json!({"native": n, "shell": sh})))
        .collect();
    assert_eq!(a["via"], json!(via), "{who} native / shell");
    // Unresolved runs that edited files: per run the mean distance from each edited file
    // to the nearest golden file (the study's: every file of the source patch), in
    // results.jsonl's order (bugs by id).
    let mut per_run = Vec::new();
    for r in runs.iter().filter(|r| !r.resolved) {
        let edited: BTreeSet<&str> = r.steps.iter().filter_map(Step::edit).collect();
        if edited.is_empty() {
            continue;
        }
        let golden = files_in(d.bugs[r.k]["patch"].as_str().expect("patch"));
        let dist: Vec<f64> = edited
            .iter()
            .map(|e| {
                golden
                    .iter()
                    .map(|g| tree_distance(e, g))
                    .min()
                    .expect("golden") as f64
            })
            .collect();
        per_run.push(dist.iter().sum::<f64>() / dist.len() as f64);
    }
    let t = &a["tree_distance"];
    assert_eq!(t["runs"], per_run.len(), "{who} tree distance runs");
    close_all(&t["per_run"], &per_run, &format!("{who} tree distance"));
    close_opt(
        &t["mean"],
        mean(&per_run),
        &format!("{who} tree distance mean"),
    );
    close_opt(
        &t["median"],
        (!per_run.is_empty()).then(|| median(&per_run)),
        &format!("{who} tree distance median"),
    );
}

// ---------------------------------------------------------------------------------------
// Localization as each paper defines it.

/// Per row of results.jsonl and over each system: the study's localization (every file
/// of the developer's source patch, the created one included) beside the counted-hunk
/// variant, `git apply`'s strict rate beside the lenient one, line- and function-level
/// scores, and what the scripted harness reports decided.
#[test]
fn localization_variants_and_apply_rates_by_hand() {
    let p = pipeline();
    let d = demo();
    for (sys, runs) in systems().iter().zip(&p.runs) {
        let dir = p.work.join("eval").join(sys.name);
        let rows: Vec<Value> = crate::common::jsonl(&dir.join("results.jsonl"));
        assert_eq!(rows.len(), runs.len(), "{}", sys.name);
        let (mut loc, mut counted, mut strict, mut lenient, mut abst) = (0, 0, 0, 0, 0);
        let (mut line_f1, mut fn_f1) = (Vec::new(), Vec::new());
        for (row, r) in rows.iter().zip(runs) {
            let bug = &d.bugs[r.k];
            let what = format!("{} on {}", sys.name, id(bug));
            assert_eq!(row["instance_id"], id(bug), "{what}");
            assert_eq!(row["state"], "novel", "{what}");
            let patch = patch_of(r.fix, r.k);
            let patched = files_in(&patch);
            // The study's golden files: every file of the source patch; the variant's: the
            // files with a counted hunk.
            let study = files_in(bug["patch"].as_str().expect("patch"));
            let variant: BTreeSet<String> = counted_files(bug).into_iter().collect();
            let localized = study.is_subset(&patched);
            let localized_counted = variant.is_subset(&patched);
            assert_eq!(row["localized"], localized, "{what}");
            assert_eq!(row["localized_counted"], localized_counted, "{what}");
            loc += usize::from(localized);
            counted += usize::from(localized_counted);
            let applied = row["applied"].as_str().expect("applied");
            match r.fix {
                Fix::Empty => assert_eq!(applied, "empty", "{what}"),
                Fix::Fuzz => assert!(
                    applied == "fuzz" || applied == "three_way",
                    "{what}: {applied}"
                ),
                _ => assert_eq!(applied, "exact", "{what}"),
            }
            strict += usize::from(applied == "exact");
            lenient += usize::from(r.fix != Fix::Empty);
            let empty = r.fix == Fix::Empty;
            abst += usize::from(empty);
            assert_eq!(row["abstained"], empty, "{what}");
            assert_eq!(row["abstention_correct"], !empty, "{what}");
            assert_eq!(row["resolved"], r.resolved, "{what}");
            assert_eq!(row["compiled"], true, "{what}");
            assert_eq!(
                row["failing_after"],
                failing_after(r.resolved, r.k),
                "{what}"
            );
            assert!(
                row["failing_before"].is_null(),
                "{what}: the harness runs once"
            );
            assert!(
                row["problems"].as_array().is_none_or(Vec::is_empty),
                "{what}: {}",
                row["problems"]
            );
            // Lines: the buggy-side lines the patch touches against the golden hunks'.
            let gold_lines = touched(bug["patch"].as_str().expect("patch"));
            let lines = set_prf(&touched(&patch), &gold_lines);
            check_scores(&row["line_scores"], lines, &format!("{what} lines"));
            line_f1.extend(lines.map(|s| s[2]));
            // Functions: the methods (`place.method_lines`) of the golden hunks kept.
            let method = |n: usize| {
                let h = &hunks(bug)[n];
                assert_eq!(h["patch_index"], n, "{what}: hunks in patch order");
                assert_eq!(h["counted"], true, "{what}");
                let lines = &h["place"]["method_lines"];
                (!lines.is_null()).then(|| {
                    (
                        h["file"].as_str().expect("file").to_string(),
                        lines.to_string(),
                    )
                })
            };
            let golden_fns: BTreeSet<_> = (0..hunks(bug).len()).filter_map(method).collect();
            let kept: BTreeSet<_> = hunks_kept(r.fix, bug)
                .into_iter()
                .filter_map(method)
                .collect();
            let fns = set_prf(&kept, &golden_fns);
            check_scores(&row["function_scores"], fns, &format!("{what} functions"));
            fn_f1.extend(fns.map(|s| s[2]));
        }
        let s = read_json(&dir.join("summary.json"));
        let o = &s["overall"];
        let n = runs.len();
        let who = sys.name;
        assert_eq!(s["predictions"], n, "{who}");
        assert_eq!(
            (s["problems"].as_u64(), s["infra"].as_u64()),
            (Some(0), Some(0))
        );
        assert!(s["resolution_unavailable"].is_null(), "{who}");
        let fixed = runs.iter().filter(|r| r.resolved).count();
        check_rate(&o["resolution"], fixed, n, &format!("{who} resolution"));
        check_rate(&o["compilation"], n, n, &format!("{who} compilation"));
        check_rate(&o["abstention"], abst, n, &format!("{who} abstention"));
        check_rate(&o["localization"], loc, n, &format!("{who} localization"));
        check_rate(
            &o["localization_counted"],
            counted,
            n,
            &format!("{who} localization (counted)"),
        );
        check_rate(&o["applied_strict"], strict, n, &format!("{who} strict"));
        check_rate(&o["applied_lenient"], lenient, n, &format!("{who} lenient"));
        close_opt(
            &o["mean_line_f1"],
            mean(&line_f1),
            &format!("{who} line F1"),
        );
        close_opt(
            &o["mean_function_f1"],
            mean(&fn_f1),
            &format!("{who} function F1"),
        );
        assert!(o["mean_regression_reduction"].is_null(), "{who}");
    }
    // The variants part somewhere: gemini's patch of the first bug leaves out the file
    // the fix creates; a fuzzed patch applies leniently only.
    let gemini = crate::common::jsonl(&p.work.join("eval/gemini/results.jsonl"));
    assert_eq!(
        (&gemini[0]["localized"], &gemini[0]["localized_counted"]),
        (&json!(false), &json!(true))
    );
}

/// RepoFixEval's localization task (`evaluate --localizations`): per instance file- and
/// line-level scores, their means over instances (macro) and RepoFixEval's own pooled
/// set of every instance's elements (micro).
#[test]
fn repofixeval_micro_beside_macro_by_hand() {
    let d = demo();
    let work = tempfile::tempdir().expect("tempdir");
    let b = &d.bugs;
    let gold_lines: Vec<Lines> = b
        .iter()
        .map(|bug| touched(bug["patch"].as_str().expect("patch")))
        .collect();
    let loc = |f: &str, l: u32| format!("{f}:{l}");
    let f = |k: usize, i: usize| counted_files(&b[k])[i].clone();
    let first_lines = |k: usize, n: usize| -> Vec<(String, u32)> {
        gold_lines[k].iter().take(n).cloned().collect()
    };
    // Bug 3: its file, two golden lines and line 1 (not golden there). Bug 0: its first
    // file and the file the fix creates; one golden line and a line of its second file
    // that is not golden. Bug 5: files only. Bug 1: lines only (its files come from them).
    let (l3, l0) = (first_lines(3, 2), first_lines(0, 1));
    assert!(!gold_lines[3].contains(&(f(3, 0), 1)) && !gold_lines[0].contains(&(f(0, 1), 1)));
    let rows = [
        (
            3,
            Some(vec![f(3, 0)]),
            vec![l3[0].clone(), l3[1].clone(), (f(3, 0), 1)],
        ),
        (
            0,
            Some(vec![f(0, 0), d.created.clone()]),
            vec![l0[0].clone(), (f(0, 1), 1)],
        ),
        (5, Some(vec![f(5, 1)]), Vec::new()),
        (1, None, gold_lines[1].iter().cloned().collect()),
    ];
    let mut text = String::new();
    let mut predicted: BTreeMap<usize, (BTreeSet<String>, Lines)> = BTreeMap::new();
    for (k, files, lines) in &rows {
        let mut row = json!({"instance_id": id(&b[*k])});
        if let Some(files) = files {
            row["files"] = json!(files);
        }
        if !lines.is_empty() {
            row["lines"] = json!(lines.iter().map(|(f, l)| loc(f, *l)).collect::<Vec<_>>());
        }
        text.push_str(&format!("{row}\n"));
        let lines: Lines = lines.iter().cloned().collect();
        let files: BTreeSet<String> = match files {
            Some(f) => f.iter().cloned().collect(),
            None => lines.iter().map(|(f, _)| f.clone()).collect(),
        };
        predicted.insert(*k, (files, lines));
    }
    let file = work.path().join("loc.jsonl");
    fs::write(&file, text).expect("write");
    let out = work.path().join("out");
    succeeds(
        hunkgen()
            .arg("evaluate")
            .arg(&d.dir)
            .arg("--localizations")
            .arg(&file)
            .arg("--output")
            .arg(&out),
    );
    let got_rows = crate::common::jsonl(&out.join("localization.jsonl"));
    assert_eq!(got_rows.len(), b.len());
    let none = (BTreeSet::new(), BTreeSet::new());
    let (mut file_f1, mut line_f1) = (Vec::new(), Vec::new());
    let (mut fh, mut fp, mut fg, mut lh, mut lp, mut lg) = (0, 0, 0, 0, 0, 0);
    for (k, bug) in b.iter().enumerate() {
        let row = got_rows
            .iter()
            .find(|r| r["instance_id"] == id(bug))
            .expect("a row per instance");
        let (files, lines) = predicted.get(&k).unwrap_or(&none);
        let golden_files: BTreeSet<String> = counted_files(bug).into_iter().collect();
        let fs_ = set_prf(files, &golden_files);
        let ls = set_prf(lines, &gold_lines[k]);
        check_scores(&row["files"], fs_, &format!("{} files", id(bug)));
        check_scores(&row["lines"], ls, &format!("{} lines", id(bug)));
        file_f1.extend(fs_.map(|s| s[2]));
        line_f1.extend(ls.map(|s| s[2]));
        fh += files.intersection(&golden_files).count();
        fp += files.len();
        fg += golden_files.len();
        lh += lines.intersection(&gold_lines[k]).count();
        lp += lines.len();
        lg += gold_lines[k].len();
    }
    assert_eq!(file_f1.len(), 7, "every instance has golden files");
    let s = read_json(&out.join("localization-summary.json"));
    close(
        &s["mean_files_f1"],
        mean(&file_f1).expect("f1"),
        "macro files F1",
    );
    close(
        &s["mean_lines_f1"],
        mean(&line_f1).expect("f1"),
        "macro lines F1",
    );
    check_scores(&s["pooled_files"], prf(fh, fp, fg), "micro files");
    check_scores(&s["pooled_lines"], prf(lh, lp, lg), "micro lines");
    // The two averages differ here, as they should.
    let macro_lines = mean(&line_f1).expect("f1");
    let micro_lines = prf(lh, lp, lg).expect("golden")[2];
    assert!(
        (macro_lines - micro_lines).abs() > 1e-3,
        "{macro_lines} {micro_lines}"
    );
}

// ---------------------------------------------------------------------------------------
// The outcome-conditioned tables.

/// Rank-sum z (`scipy.stats.ranksums`) and its two-sided p, the Mann–Whitney p with the
/// continuity correction (`mannwhitneyu`, asymptotic; no ties here, so no tie
/// correction), and Cliff's δ of `x` against `y`.
fn tests_of(x: &[f64], y: &[f64]) -> (f64, f64, f64) {
    let all: Vec<f64> = x.iter().chain(y).copied().collect();
    let distinct: BTreeSet<u64> = all.iter().map(|v| v.to_bits()).collect();
    assert_eq!(distinct.len(), all.len(), "no ties in {all:?}");
    // Rank of each x among all values (1 = smallest).
    let r1: f64 = x
        .iter()
        .map(|v| (all.iter().filter(|w| *w < v).count() + 1) as f64)
        .sum();
    let (n1, n2) = (x.len() as f64, y.len() as f64);
    let n = n1 + n2;
    let z = (r1 - n1 * (n + 1.0) / 2.0) / (n1 * n2 * (n + 1.0) / 12.0).sqrt();
    let rank_sum_p = erfc(z.abs() / std::f64::consts::SQRT_2);
    let u1 = r1 - n1 * (n1 + 1.0) / 2.0;
    let u = u1.max(n1 * n2 - u1);
    let uz = (u - n1 * n2 / 2.0 - 0.5) / (n1 * n2 * (n + 1.0) / 12.0).sqrt();
    let mann_whitney_p = erfc(uz / std::f64::consts::SQRT_2).min(1.0);
    let (mut above, mut below) = (0, 0);
    for a in x {
        for b in y {
            above += usize::from(a > b);
            below += usize::from(a < b);
        }
    }
    let delta = (above as f64 - below as f64) / (n1 * n2);
    (rank_sum_p, mann_whitney_p, delta)
}

/// Romano et al.'s words for |δ|.
fn magnitude(delta: f64) -> &'static str {
    match delta.abs() {
        d if d < 0.147 => "negligible",
        d if d < 0.33 => "small",
        d if d < 0.474 => "medium",
        _ => "large",
    }
}

#[track_caller]
fn check_spread(got: &Value, v: &[f64], what: &str) {
    assert_eq!(got["n"], v.len(), "{what}");
    if v.is_empty() {
        for k in ["min", "median", "mean", "max", "std"] {
            assert!(got[k].is_null(), "{what} {k}");
        }
        return;
    }
    let m = mean(v).expect("values");
    close(
        &got["min"],
        v.iter().copied().fold(f64::INFINITY, f64::min),
        &format!("{what} min"),
    );
    close(&got["median"], median(v), &format!("{what} median"));
    close(&got["mean"], m, &format!("{what} mean"));
    close(
        &got["max"],
        v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        &format!("{what} max"),
    );
    let std = (v.len() >= 2)
        .then(|| (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64).sqrt());
    close_opt(&got["std"], std, &format!("{what} std"));
}

/// `outcomes.json` beside the page: per system the divergence of the bugs it fixed
/// against those it did not, with the rank-sum test and Cliff's δ; the bugs no system
/// fixed, with each system's localization and the deltas against all bugs; the solver
/// sets of each proximity class; no regression reductions (the harness runs the tests
/// once, after the patch).
#[test]
fn outcome_conditioned_tables_by_hand() {
    let p = pipeline();
    let d = demo();
    let o = read_json(&p.work.join("page/outcomes.json"));
    let names: Vec<&str> = systems().iter().map(|s| s.name).collect();
    assert_eq!(o["systems"], json!(names));
    // Divergence of fixed against unfixed bugs.
    let splits = o["divergence"].as_array().expect("divergence");
    assert_eq!(splits.len(), 4);
    for ((split, sys), runs) in splits.iter().zip(systems()).zip(&p.runs) {
        let who = sys.name;
        assert_eq!(split["system"], who);
        let side = |fixed: bool| -> Vec<f64> {
            runs.iter()
                .filter(|r| r.resolved == fixed)
                .filter_map(|r| div(&d.bugs[r.k]))
                .collect()
        };
        let (fixed, unfixed) = (side(true), side(false));
        check_spread(&split["fixed"], &fixed, &format!("{who} fixed"));
        check_spread(&split["unfixed"], &unfixed, &format!("{who} unfixed"));
        let without = runs.iter().filter(|r| div(&d.bugs[r.k]).is_none()).count();
        assert_eq!(without, 1, "{who} ran the bug without Div(P)");
        assert_eq!(split["no_divergence"], without, "{who}");
        close_all(&split["values"][0], &fixed, &format!("{who} fixed values"));
        close_all(
            &split["values"][1],
            &unfixed,
            &format!("{who} unfixed values"),
        );
        let (rs, mw, delta) = tests_of(&fixed, &unfixed);
        close(&split["rank_sum_p"], rs, &format!("{who} rank-sum p"));
        close(
            &split["mann_whitney_p"],
            mw,
            &format!("{who} Mann-Whitney p"),
        );
        close(
            &split["cliffs_delta"],
            delta,
            &format!("{who} Cliff's delta"),
        );
        assert_eq!(split["magnitude"], magnitude(delta), "{who}");
    }
    // The bugs no system fixed.
    let fixed_by = |k: usize| -> Vec<bool> {
        p.runs
            .iter()
            .map(|runs| runs.iter().any(|r| r.k == k && r.resolved))
            .collect()
    };
    let nobody: Vec<usize> = (0..d.bugs.len())
        .filter(|&k| !fixed_by(k).contains(&true))
        .collect();
    assert_eq!(nobody, [1, 5], "as scripted");
    let u = &o["unfixed"];
    assert_eq!(u["systems"], json!(names));
    assert_eq!(u["bugs"], d.bugs.len());
    // Whether a system's patch of bug k patched every file of the developer's patch
    // (`None`: no run on it).
    let localized = |s: usize, k: usize| -> Option<bool> {
        let r = p.runs[s].iter().find(|r| r.k == k)?;
        let study = files_in(d.bugs[k]["patch"].as_str().expect("patch"));
        Some(study.is_subset(&files_in(&patch_of(r.fix, k))))
    };
    let rows = u["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), nobody.len());
    for (row, &k) in rows.iter().zip(&nobody) {
        let bug = &d.bugs[k];
        assert_eq!(row["instance_id"], id(bug));
        assert_eq!(row["hunks"], counted_hunks(bug));
        close_opt(&row["divergence"], div(bug), "unfixed Div(P)");
        assert_eq!(row["class"], class(bug));
        let want: Vec<Option<bool>> = (0..4).map(|s| localized(s, k)).collect();
        assert_eq!(row["localized"], json!(want), "{}", id(bug));
    }
    assert!(
        rows.iter()
            .any(|r| r["localized"][3].is_null() && r["divergence"].is_number())
            && rows.iter().any(|r| r["divergence"].is_null()),
        "a system without a run on an unfixed bug, and an unfixed bug without Div(P)"
    );
    // Against all bugs: each class's share, the mean hunks and Div(P), each system's
    // localization rate over the bugs it ran.
    let all: Vec<usize> = (0..d.bugs.len()).collect();
    let share = |set: &[usize], c: &str| {
        set.iter().filter(|&&k| class(&d.bugs[k]) == c).count() as f64 / set.len() as f64
    };
    let of = |set: &[usize], f: &dyn Fn(&Value) -> Option<f64>| -> f64 {
        let v: Vec<f64> = set.iter().filter_map(|&k| f(&d.bugs[k])).collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    let mut deltas: Vec<(String, f64, f64)> = Vec::new();
    for c in CLASSES {
        if all.iter().any(|&k| class(&d.bugs[k]) == c) {
            deltas.push((format!("share {c}"), share(&all, c), share(&nobody, c)));
        }
    }
    deltas.push((
        "mean hunks".into(),
        of(&all, &|b| Some(counted_hunks(b) as f64)),
        of(&nobody, &|b| Some(counted_hunks(b) as f64)),
    ));
    deltas.push(("mean Div(P)".into(), of(&all, &div), of(&nobody, &div)));
    for (s, name) in names.iter().enumerate() {
        let rate = |set: &[usize]| -> f64 {
            let ran: Vec<bool> = set.iter().filter_map(|&k| localized(s, k)).collect();
            ran.iter().filter(|l| **l).count() as f64 / ran.len() as f64
        };
        deltas.push((format!("localization {name}"), rate(&all), rate(&nobody)));
    }
    let got = u["deltas"].as_array().expect("deltas");
    assert_eq!(got.len(), deltas.len(), "{got:?}");
    for (g, (what, a, n)) in got.iter().zip(&deltas) {
        assert_eq!(g["what"], what.as_str());
        close(&g["all"], *a, &format!("{what} over all bugs"));
        close(&g["unfixed"], *n, &format!("{what} over the unfixed"));
        close(&g["delta"], n - a, &format!("{what} delta"));
    }
    // Solver sets per class: the Novel task of every bug, by who resolved it; the
    // largest sets first, and among equal ones those with more solvers.
    let mut by_class: BTreeMap<String, BTreeMap<Vec<bool>, usize>> = BTreeMap::new();
    for k in &all {
        *by_class
            .entry(class(&d.bugs[*k]))
            .or_default()
            .entry(fixed_by(*k))
            .or_default() += 1;
    }
    let sets = o["sets_by_class"].as_array().expect("sets");
    let order: Vec<&str> = CLASSES
        .iter()
        .copied()
        .filter(|c| by_class.contains_key(*c))
        .collect();
    assert_eq!(sets.len(), order.len());
    for (g, c) in sets.iter().zip(order) {
        let combos = &by_class[c];
        assert_eq!(g["class"], c);
        assert_eq!(g["tasks"], combos.values().sum::<usize>(), "{c}");
        let mut want: Vec<(Vec<bool>, usize)> =
            combos.iter().map(|(s, n)| (s.clone(), *n)).collect();
        want.sort_by(|a, b| {
            let solvers = |s: &[bool]| s.iter().filter(|x| **x).count();
            b.1.cmp(&a.1)
                .then_with(|| solvers(&b.0).cmp(&solvers(&a.0)))
                .then_with(|| b.0.cmp(&a.0))
        });
        assert_eq!(g["combinations"], json!(want), "{c}");
    }
    assert_eq!(o["regression"], json!([]));
    let md = fs::read_to_string(p.work.join("page/outcomes.md")).expect("outcomes.md");
    assert!(
        md.contains(&format!(
            "## Bugs no system fixed ({} of {})",
            nobody.len(),
            d.bugs.len()
        )),
        "{md}"
    );
}

/// The regression reductions the page draws as violins (`outcomes.json` `regression`):
/// per system, failing tests before − after of each compiled, non-empty Novel row with
/// both counts, in the rows' order; rows on another state, uncompiled, empty or without
/// a count are left out, and a system with none is left out.
#[test]
fn regression_reduction_distributions_by_hand() {
    let d = demo();
    let work = tempfile::tempdir().expect("tempdir");
    let row = |k: usize,
               system: &str,
               state: &str,
               applied: ApplyMethod,
               compiled: Option<bool>,
               counts: (Option<usize>, Option<usize>)| PredictionResult {
        schema_version: 1,
        instance_id: id(&d.bugs[k]).to_string(),
        model_name_or_path: system.to_string(),
        state: state.to_string(),
        scenario: "best".into(),
        instruction: None,
        attempt: None,
        applied,
        compiled,
        resolution: None,
        resolved: false,
        abstained: applied == ApplyMethod::Empty,
        abstention_correct: applied != ApplyMethod::Empty,
        localized: false,
        localized_counted: false,
        hunks_touched: Vec::new(),
        hunks_total: 2,
        line_scores: None,
        function_scores: None,
        failing_before: counts.0,
        failing_after: counts.1,
        infra: None,
        problems: Vec::new(),
        defects4j: None,
    };
    use ApplyMethod::*;
    let (y, n) = (Some(true), Some(false));
    let scripted = [
        (
            "claude",
            vec![
                row(0, "claude", "novel", Exact, y, (Some(5), Some(2))),
                row(1, "claude", "novel", Exact, y, (Some(1), Some(2))),
                row(2, "claude", "novel", Fuzz, y, (Some(4), Some(4))),
                row(3, "claude", "novel", Exact, n, (Some(4), Some(9))),
                row(4, "claude", "novel", Empty, y, (Some(3), Some(3))),
                row(5, "claude", "novel", Exact, y, (Some(2), None)),
            ],
        ),
        (
            "codex",
            vec![
                row(0, "codex", "novel", ThreeWay, y, (Some(6), Some(4))),
                row(1, "codex", "novel", Exact, y, (Some(7), Some(2))),
                row(2, "codex", "partial", Exact, y, (Some(9), Some(0))),
                row(3, "codex", "novel", Failed, None, (Some(3), None)),
            ],
        ),
        (
            "gemini",
            vec![row(0, "gemini", "novel", Exact, y, (None, Some(1)))],
        ),
        (
            "qwen",
            vec![row(0, "qwen", "novel", Exact, y, (Some(0), Some(4)))],
        ),
    ];
    let mut report = hunkgen();
    report.arg("report").arg(&d.dir);
    let mut want = Vec::new();
    for (name, rows) in &scripted {
        let file = work.path().join(format!("{name}.jsonl"));
        let text: String = rows
            .iter()
            .map(|r| serde_json::to_string(r).expect("json") + "\n")
            .collect();
        fs::write(&file, text).expect("write");
        report.arg("--results").arg(&file);
        // By hand: the rows that count, before − after.
        let rr: Vec<f64> = rows
            .iter()
            .filter(|r| r.state == "novel" && r.compiled == Some(true))
            .filter(|r| !matches!(r.applied, Empty | Failed))
            .filter_map(|r| Some(r.failing_before? as f64 - r.failing_after? as f64))
            .collect();
        if !rr.is_empty() {
            want.push((name.to_string(), rr));
        }
    }
    assert_eq!(
        want,
        [
            ("claude".to_string(), vec![3.0, -1.0, 0.0]),
            ("codex".to_string(), vec![2.0, 5.0]),
            ("qwen".to_string(), vec![-4.0]),
        ]
    );
    succeeds(report.arg("-o").arg(work.path().join("page/index.html")));
    let o = read_json(&work.path().join("page/outcomes.json"));
    let got = o["regression"].as_array().expect("regression");
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, (name, rr)) in got.iter().zip(&want) {
        assert_eq!(g[0], name.as_str());
        close_all(&g[1], rr, &format!("{name} RR"));
    }
}

/// The page with the new tables and figures of the four systems (the RR violins come from
/// the scripted rows of `regression_reduction_distributions_by_hand`, since harness
/// reports carry no failing-before count), as a browser shows it:
/// no console error, no request leaving the page, not blank (the check `report.rs`
/// runs on the two-system page); its screenshot is kept under `target/report-check/`.
#[test]
fn the_page_with_the_new_tables_renders_in_a_browser() {
    let p = pipeline();
    let page = p.work.join("page/index.html");
    let html = fs::read_to_string(&page).expect("page");
    for needle in [
        "Trajectory analytics",
        "steps by native tools / shell commands",
        "<h4>Tokens per run</h4>",
        "Divergence of fixed and unfixed bugs",
        "Bugs no system fixed",
        "Exact solver sets by proximity class",
    ] {
        assert!(html.contains(needle), "the page lacks {needle}");
    }
    let dir = crate::common::manifest().join("target/report-check");
    fs::create_dir_all(&dir).expect("mkdir");
    let shot = dir.join("paper-tables.png");
    let rendered = crate::report::render(&page, &shot);
    let problems = crate::report::faults(&rendered, &html);
    assert!(
        problems.is_empty(),
        "{problems:?} (screenshot: {})",
        shot.display()
    );
}

/// Average ranks (1 = smallest; ties share the mean of their places).
fn avg_ranks(v: &[f64]) -> Vec<f64> {
    v.iter()
        .map(|x| {
            let below = v.iter().filter(|y| *y < x).count() as f64;
            let equal = v.iter().filter(|y| *y == x).count() as f64;
            below + (equal + 1.0) / 2.0
        })
        .collect()
}

/// Pearson's r written out; `None` when a side does not vary.
fn pearson_by_hand(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    let syy: f64 = y.iter().map(|b| (b - my).powi(2)).sum();
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// RepoFixEval's pairwise correlations of the task metrics across the four systems
/// (outcomes.json and the page): each system's files localized, mean line F1, strict
/// apply and resolved rates from what the test scripted, r and ρ written out, and their
/// p-values from SciPy's `pearsonr` / `spearmanr` on the same points.
#[test]
fn task_metric_correlations_by_hand() {
    let p = pipeline();
    let d = demo();
    let mut points: Vec<[f64; 4]> = Vec::new();
    for runs in &p.runs {
        let n = runs.len() as f64;
        let (mut loc, mut strict, mut fixed, mut f1) = (0.0, 0.0, 0.0, Vec::new());
        for r in runs {
            let bug = &d.bugs[r.k];
            let patch = patch_of(r.fix, r.k);
            let study = files_in(bug["patch"].as_str().expect("patch"));
            loc += f64::from(u8::from(study.is_subset(&files_in(&patch))));
            strict += f64::from(u8::from(!matches!(r.fix, Fix::Empty | Fix::Fuzz)));
            fixed += f64::from(u8::from(r.resolved));
            let gold = touched(bug["patch"].as_str().expect("patch"));
            f1.extend(set_prf(&touched(&patch), &gold).map(|s| s[2]));
        }
        let f1 = f1.iter().sum::<f64>() / f1.len() as f64;
        points.push([loc / n, f1, strict / n, fixed / n]);
    }
    let names = [
        "files localized",
        "mean line F1",
        "git apply (strict)",
        "resolved",
    ];
    let o = read_json(&p.work.join("page/outcomes.json"));
    let got = o["correlations"].as_array().cloned().unwrap_or_default();
    let mut k = 0;
    let python = crate::stats_scipy::scipy_python();
    for i in 0..4 {
        for j in i + 1..4 {
            let x: Vec<f64> = points.iter().map(|m| m[i]).collect();
            let y: Vec<f64> = points.iter().map(|m| m[j]).collect();
            let Some(r) = pearson_by_hand(&x, &y) else {
                continue;
            };
            let c = &got[k];
            k += 1;
            let what = format!("{} with {}", names[i], names[j]);
            assert_eq!(
                (c["a"].as_str(), c["b"].as_str()),
                (Some(names[i]), Some(names[j]))
            );
            assert_eq!(c["systems"], 4, "{what}");
            close(&c["pearson"], r, &format!("{what} r"));
            let rho = pearson_by_hand(&avg_ranks(&x), &avg_ranks(&y));
            close_opt(&c["spearman"], rho, &format!("{what} rho"));
            let script = format!(
                "from scipy import stats; import json; x={x:?}; y={y:?}; \
                 print(json.dumps([stats.pearsonr(x, y).pvalue, float(stats.spearmanr(x, y).pvalue)]))"
            );
            let out = std::process::Command::new(&python)
                .args(["-c", &script])
                .output()
                .expect("scipy");
            let ps: Vec<Option<f64>> = serde_json::from_slice::<Vec<Value>>(&out.stdout)
                .expect("scipy's p-values")
                .iter()
                .map(Value::as_f64)
                .collect();
            close(
                &c["pearson_p"],
                ps[0].expect("pearson p"),
                &format!("{what} p"),
            );
            close_opt(
                &c["spearman_p"],
                ps[1].filter(|_| rho.is_some()),
                &format!("{what} rho p"),
            );
        }
    }
    assert!(
        k >= 3,
        "most pairs vary across the four systems: {points:?}"
    );
    assert_eq!(got.len(), k, "{got:?}");
    let page = fs::read_to_string(p.work.join("page/index.html")).expect("page");
    assert!(page.contains("Task metrics correlated across systems"));
}

/// Category n-grams of each window length in `windows`, per outcome: the five most
/// frequent, as shares of the outcome's windows of that length; equal counts in the
/// study's category order.
fn check_ngrams(a: &Value, runs: &[Expected], who: &str, windows: &[usize]) {
    let outcomes = [("success", true), ("failure", false)];
    let mut want_keys: Vec<String> = windows.iter().map(usize::to_string).collect();
    want_keys.sort();
    assert_eq!(keys(&a["ngrams"]), want_keys, "{who}");
    for &n in windows {
        for (outcome, success) in outcomes {
            let mut counts: BTreeMap<Vec<usize>, usize> = BTreeMap::new();
            let mut windows = 0;
            for r in runs.iter().filter(|r| r.resolved == success) {
                let cats: Vec<usize> = r
                    .steps
                    .iter()
                    .map(|s| {
                        CATEGORIES
                            .iter()
                            .position(|c| *c == s.category())
                            .expect("c")
                    })
                    .collect();
                for w in cats.windows(n) {
                    windows += 1;
                    *counts.entry(w.to_vec()).or_default() += 1;
                }
            }
            let got = &a["ngrams"][n.to_string()][outcome];
            let what = format!("{who} {n}-grams {outcome}");
            if windows == 0 {
                assert!(got.is_null(), "{what}: {got}");
                continue;
            }
            let mut grams: Vec<(Vec<usize>, usize)> = counts.into_iter().collect();
            grams.sort_by(|x, y| y.1.cmp(&x.1).then_with(|| x.0.cmp(&y.0)));
            grams.truncate(5);
            let list = got.as_array().unwrap_or_else(|| panic!("{what}: {got}"));
            assert_eq!(list.len(), grams.len(), "{what}: {got}");
            for (g, (cats, count)) in list.iter().zip(&grams) {
                let names: Vec<&str> = cats.iter().map(|&c| CATEGORIES[c]).collect();
                assert_eq!(g["categories"], json!(names), "{what}: {got}");
                assert_eq!(g["count"], *count, "{what}: {got}");
                close(
                    &g["share"],
                    *count as f64 / windows as f64,
                    &format!("{what} {names:?}"),
                );
            }
        }
    }
}

/// `evaluate --ngram-windows 3,7` on one system: n-grams of exactly those windows, each
/// against the hand count; a window outside 1..=30 is refused in one line.
#[test]
fn ngram_windows_are_the_users_choice() {
    let p = pipeline();
    let d = demo();
    let sys = &systems()[0];
    let out = p.work.join("eval-windows").join(sys.name);
    succeeds(
        hunkgen()
            .arg("evaluate")
            .arg(&d.dir)
            .arg("--predictions")
            .arg(p.work.join(sys.name).join("predictions.jsonl"))
            .arg("--harness-report")
            .arg(p.work.join("harness").join(sys.name))
            .arg("--output")
            .arg(&out)
            .args(["-q", "--ngram-windows", "3,7"])
            .env_remove("HUNKGEN_SHARD")
            .env_remove("SLURM_ARRAY_TASK_ID")
            .env_remove("JOB_COMPLETION_INDEX"),
    );
    let s = read_json(&out.join("summary.json"));
    check_ngrams(
        &s["trajectories"]["analytics"],
        &p.runs[0],
        sys.name,
        &[3, 7],
    );
    let bad = hunkgen()
        .arg("evaluate")
        .arg(&d.dir)
        .arg("--predictions")
        .arg(p.work.join(sys.name).join("predictions.jsonl"))
        .args(["--ngram-windows", "2,31"])
        .output()
        .expect("runs");
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("--ngram-windows") && err.contains("31"),
        "{err}"
    );
}
