//! `hunkgen mcp`: a client in the test speaks MCP over the server's stdin/stdout pipes
//! on a checkout of the demo repository, and so does the official MCP Python SDK (PyPI
//! `mcp`, in target/venv-mcp); every expected file and line range below was read off the
//! demo sources by hand.
use crate::common::{demo_recipe, git};

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A client holding the server process and its pipes.
struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Client {
    fn start(root: &Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hunkgen"))
            .args(["mcp", "--root"])
            .arg(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start hunkgen mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Client {
            child,
            stdin,
            stdout,
            next: 1,
        }
    }

    fn send_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write");
        self.stdin.flush().expect("flush");
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read");
        assert!(!line.is_empty(), "server closed its output");
        serde_json::from_str(&line).expect("a JSON response per line")
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_line(&msg.to_string());
        let resp = self.read();
        assert_eq!(resp["jsonrpc"], "2.0");
        assert_eq!(resp["id"], id, "{resp}");
        resp
    }

    /// A tool call's result (a protocol error fails the test).
    fn tool(&mut self, name: &str, args: Value) -> Value {
        let resp = self.request("tools/call", json!({"name": name, "arguments": args}));
        assert!(resp.get("error").is_none(), "{name}: {resp}");
        resp["result"].clone()
    }

    /// (file, start, end, name) of each match of a successful tool call.
    fn places(&mut self, name: &str, args: Value) -> Vec<(String, u64, u64, String)> {
        let r = self.tool(name, args);
        assert_eq!(r["isError"], false, "{r}");
        r["structuredContent"]["matches"]
            .as_array()
            .expect("matches")
            .iter()
            .map(|m| {
                (
                    m["file"].as_str().unwrap_or("").to_string(),
                    m["start_line"].as_u64().unwrap_or(0),
                    m["end_line"].as_u64().unwrap_or(0),
                    m["name"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn p(file: &str, start: u64, end: u64, name: &str) -> (String, u64, u64, String) {
    (file.to_string(), start, end, name.to_string())
}

const MONEY: &str = "java/src/main/java/org/acme/num/Money.java";
const PAD: &str = "java/src/main/java/org/acme/text/Pad.java";
const STATS: &str = "python/acme_x/stats.py";

/// A checkout of the demo repository's head in a temporary directory (the repository
/// is built by the test, as `make demo` builds it).
fn demo_checkout() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    demo_recipe(dir.path());
    let co = dir.path().join("co");
    git(
        dir.path(),
        &[
            "clone",
            "-q",
            dir.path()
                .join("target/demo-repo")
                .to_str()
                .expect("utf-8 path"),
            co.to_str().expect("utf-8 path"),
        ],
    );
    dir
}

#[test]
fn every_tool_answers_with_files_and_line_ranges_on_the_demo() {
    let dir = demo_checkout();
    let root = dir.path().join("co");
    let mut c = Client::start(&root);

    let init = c.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "it", "version": "0"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(init["result"]["serverInfo"]["name"], "hunkgen");
    assert!(init["result"]["capabilities"]["tools"].is_object());
    c.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);

    let list = c.request("tools/list", json!({}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        names,
        [
            "find_method_in_class",
            "find_class_in_file",
            "find_method_in_file",
            "find_code_in_file",
            "get_class_skeleton",
            "find_class",
            "find_method",
            "find_code",
            "get_repository_structure"
        ]
    );
    for t in list["result"]["tools"].as_array().expect("tools") {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
    }

    // Money.sum: lines 32-38, with its code.
    let r = c.tool(
        "find_method_in_class",
        json!({"class_name": "Money", "method_name": "sum"}),
    );
    let m = &r["structuredContent"]["matches"][0];
    assert_eq!(
        (
            m["file"].as_str(),
            m["start_line"].as_u64(),
            m["end_line"].as_u64()
        ),
        (Some(MONEY), Some(32), Some(38))
    );
    assert_eq!(m["signature"], "public static long sum(long... amounts)");
    assert!(m["code"]
        .as_str()
        .unwrap_or("")
        .contains("Math.addExact(total, a)"));
    assert!(r["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .contains("Money.java:32-38"));

    assert_eq!(
        c.places(
            "find_class_in_file",
            json!({"file_path": PAD, "class_name": "Pad"})
        ),
        [p(PAD, 4, 45, "Pad")]
    );
    assert_eq!(
        c.places(
            "find_method_in_file",
            json!({"file_path": STATS, "method_name": "mean"})
        ),
        [p(STATS, 23, 26, "mean")]
    );
    // Text: both uses of math.fsum, each with the function around it.
    assert_eq!(
        c.places(
            "find_code_in_file",
            json!({"file_path": STATS, "code": "math.fsum("})
        ),
        [p(STATS, 26, 26, "mean"), p(STATS, 34, 34, "variance")]
    );

    let sk = c.tool("get_class_skeleton", json!({"file_path": MONEY}));
    let s = &sk["structuredContent"];
    assert_eq!(s["package"], "org.acme.num");
    assert_eq!(
        s["imports"],
        json!([{"line": 3, "text": "import org.acme.text.Pad;"}])
    );
    let members: Vec<(u64, u64, &str)> = s["classes"][0]["members"]
        .as_array()
        .expect("members")
        .iter()
        .map(|m| {
            (
                m["start_line"].as_u64().unwrap_or(0),
                m["end_line"].as_u64().unwrap_or(0),
                m["name"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        members,
        [
            (7, 8, "Money"),
            (11, 29, "parse"),
            (32, 38, "sum"),
            (41, 49, "percent"),
            (52, 56, "format"),
            (59, 61, "column")
        ]
    );
    // Python: the dotted package from __init__.py files, module-level functions.
    let sk = c.tool("get_class_skeleton", json!({"file_path": STATS}));
    assert_eq!(sk["structuredContent"]["package"], "acme_x");
    assert_eq!(sk["structuredContent"]["functions"][1]["name"], "median");
    assert_eq!(sk["structuredContent"]["functions"][1]["start_line"], 14);

    assert_eq!(
        c.places("find_class", json!({"class_name": "Pad"})),
        [p(PAD, 4, 45, "Pad")]
    );
    assert_eq!(
        c.places("find_method", json!({"method_name": "median"})),
        [p(STATS, 14, 20, "median")]
    );
    assert_eq!(
        c.places("find_code", json!({"code": "Pad.left(Long"})),
        [p(MONEY, 54, 54, "Money.format")]
    );

    let st = c.tool("get_repository_structure", json!({"max_depth": 3}));
    let text = st["content"][0]["text"].as_str().unwrap_or("");
    assert!(
        text.contains("    acme_x/\n      __init__.py\n      record.py\n      stats.py\n"),
        "{text}"
    );
    assert!(text.contains("test_stats.py  [StatsTest]"), "{text}");
    assert!(!text.contains(".git"), "{text}");
    let entries = st["structuredContent"]["entries"]
        .as_array()
        .expect("entries");
    assert!(entries
        .iter()
        .any(|e| e["path"] == "python/acme_x/stats.py"));
    // Depth 3 stops above java/src/main/java.
    assert!(!entries.iter().any(|e| e["path"] == MONEY));
    let st = c.tool(
        "get_repository_structure",
        json!({"path": "java/src/main/java/org/acme"}),
    );
    let text = st["content"][0]["text"].as_str().unwrap_or("");
    assert!(
        text.contains("num/\n    Fraction.java  [Fraction]"),
        "{text}"
    );

    c.request("ping", json!({}));
}

#[test]
fn bad_requests_and_broken_files_are_answered_not_fatal() {
    let dir = demo_checkout();
    let root = dir.path().join("co");
    std::fs::write(
        root.join("java/src/main/java/org/acme/Broken.java"),
        "package org.acme;\n\nclass Broken {\n    void f( {\n        int x = ;\n    }\n\n    int g() {\n        return 1;\n    }\n}\n",
    )
    .expect("write");
    std::fs::write(
        root.join("python/acme_x/latin1.py"),
        b"# caf\xe9\ndef g():\n    return 1\n",
    )
    .expect("write");
    let mut c = Client::start(&root);
    let init = c.request("initialize", json!({"protocolVersion": "1999-01-01"}));
    // An unknown revision gets the newest this server speaks.
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");

    // Malformed JSON: a parse error with a null id, and the session goes on.
    c.send_line("{not json");
    let e = c.read();
    assert_eq!(e["error"]["code"], -32700);
    assert_eq!(e["id"], Value::Null);
    let e = c.request("resources/list", json!({}));
    assert_eq!(e["error"]["code"], -32601);

    // Bad arguments are protocol errors naming the argument.
    let e = c.request("tools/call", json!({"name": "find_class", "arguments": {}}));
    assert_eq!(e["error"]["code"], -32602);
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("class_name"),
        "{e}"
    );
    let e = c.request(
        "tools/call",
        json!({"name": "find_class", "arguments": {"class_name": 3}}),
    );
    assert_eq!(e["error"]["code"], -32602);
    let e = c.request(
        "tools/call",
        json!({"name": "find_class", "arguments": {"class_name": "Pad", "extra": 1}}),
    );
    assert_eq!(e["error"]["code"], -32602);
    let e = c.request(
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    assert_eq!(e["error"]["code"], -32602);
    let e = c.request(
        "tools/call",
        json!({"name": "get_repository_structure", "arguments": {"max_depth": 0}}),
    );
    assert_eq!(e["error"]["code"], -32602);

    // Paths that leave the root, missing files and non-source files: tool errors.
    for (path, says) in [
        ("../../etc/passwd", "may not leave"),
        ("/etc/passwd", "may not leave"),
        ("java/Nope.java", "no such file"),
        ("README.md", "not a Java or Python file"),
    ] {
        let r = c.tool(
            "find_class_in_file",
            json!({"file_path": path, "class_name": "X"}),
        );
        assert_eq!(r["isError"], true, "{path}: {r}");
        let text = r["content"][0]["text"].as_str().unwrap_or("");
        assert!(text.contains(says), "{path}: {text}");
    }
    let r = c.tool(
        "get_class_skeleton",
        json!({"file_path": STATS, "class_name": "Nope"}),
    );
    assert_eq!(r["isError"], true);

    // A file that does not parse: what can be found is, with a warning.
    let broken = "java/src/main/java/org/acme/Broken.java";
    let r = c.tool(
        "find_method_in_file",
        json!({"file_path": broken, "method_name": "g"}),
    );
    assert_eq!(r["isError"], false, "{r}");
    let s = &r["structuredContent"];
    assert_eq!(s["matches"][0]["start_line"], 8);
    assert_eq!(s["matches"][0]["end_line"], 10);
    assert!(
        s["warnings"][0]
            .as_str()
            .unwrap_or("")
            .contains("syntax error"),
        "{s}"
    );
    // A file that is not UTF-8 is read lossily, with a warning.
    let r = c.tool(
        "find_method_in_file",
        json!({"file_path": "python/acme_x/latin1.py", "method_name": "g"}),
    );
    assert_eq!(r["structuredContent"]["matches"][0]["start_line"], 2);
    assert!(r["structuredContent"]["warnings"][0]
        .as_str()
        .unwrap_or("")
        .contains("not UTF-8"));
    // Still serving.
    assert_eq!(
        c.places("find_method", json!({"method_name": "Money.sum"})),
        [p(MONEY, 32, 38, "Money.sum")]
    );
}

#[test]
fn the_official_mcp_sdk_lists_and_calls_every_tool() {
    let dir = demo_checkout();
    let root = dir.path().join("co");
    // One call per tool, as a client nobody here wrote sends it.
    let calls = json!({
        "find_method_in_class": {"class_name": "Money", "method_name": "sum"},
        "find_class_in_file": {"file_path": PAD, "class_name": "Pad"},
        "find_method_in_file": {"file_path": STATS, "method_name": "mean"},
        "find_code_in_file": {"file_path": STATS, "code": "math.fsum("},
        "get_class_skeleton": {"file_path": MONEY},
        "find_class": {"class_name": "Pad"},
        "find_method": {"method_name": "median"},
        "find_code": {"code": "Pad.left(Long"},
        "get_repository_structure": {"max_depth": 3},
    });
    let o = Command::new(crate::common::venv_python("venv-mcp"))
        .arg(crate::common::manifest().join("scripts/mcp_sdk_client.py"))
        .arg(env!("CARGO_BIN_EXE_hunkgen"))
        .arg(&root)
        .arg(calls.to_string())
        .output()
        .expect("the SDK client runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out: Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(out["protocol_version"], "2025-06-18");
    assert_eq!(out["server"], "hunkgen");
    let listed: Vec<&str> = out["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let mut called: Vec<&str> = calls
        .as_object()
        .expect("calls")
        .keys()
        .map(String::as_str)
        .collect();
    called.sort();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(sorted, called, "every listed tool is called once");
    assert!(out["schema_types"]
        .as_array()
        .expect("types")
        .iter()
        .all(|t| t == "object"));
    for name in &listed {
        let r = &out["calls"][name];
        assert_eq!(r["is_error"], false, "{name}: {r}");
        assert!(
            !r["text"][0].as_str().unwrap_or("").is_empty(),
            "{name}: {r}"
        );
    }
    // What the SDK read back is what the demo's sources say (see the test above).
    let place = |name: &str, k: usize| {
        let m = &out["calls"][name]["structured"]["matches"][k];
        (
            m["file"].as_str().unwrap_or("").to_string(),
            m["start_line"].as_u64().unwrap_or(0),
            m["end_line"].as_u64().unwrap_or(0),
            m["name"].as_str().unwrap_or("").to_string(),
        )
    };
    assert_eq!(
        place("find_method_in_class", 0),
        p(MONEY, 32, 38, "Money.sum")
    );
    assert_eq!(place("find_class_in_file", 0), p(PAD, 4, 45, "Pad"));
    assert_eq!(place("find_method_in_file", 0), p(STATS, 23, 26, "mean"));
    assert_eq!(place("find_code_in_file", 1), p(STATS, 34, 34, "variance"));
    assert_eq!(place("find_class", 0), p(PAD, 4, 45, "Pad"));
    assert_eq!(place("find_method", 0), p(STATS, 14, 20, "median"));
    assert_eq!(place("find_code", 0), p(MONEY, 54, 54, "Money.format"));
    assert_eq!(
        out["calls"]["get_class_skeleton"]["structured"]["package"],
        "org.acme.num"
    );
    let text = out["calls"]["get_repository_structure"]["text"][0]
        .as_str()
        .unwrap_or("");
    assert!(text.contains("test_stats.py  [StatsTest]"), "{text}");
}
