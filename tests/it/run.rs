//! `hunkgen run` on the validated demo: the scripted harness-test agents of demo/agents
//! (an oracle applying the golden patch hunk by hunk, a comment-only editor) on Novel
//! and Resolved states, scored by `hunkgen evaluate` with trajectory metrics; every bad
//! agent (hang, delete, write outside, exit non-zero, binary or enormous diff, unknown
//! trajectory format, leaked secret) is a labelled outcome; and the two real agent log
//! adapters on fixture logs.

use crate::common::{hunkgen, manifest, succeeds, Script};
use crate::evaluate::rate;
use crate::golden::demo;
use hunkgen::model::{StepKind, TrajectoryStep};
use hunkgen::run::agents::TrajectoryFormat;
use std::fs;
use std::path::{Path, PathBuf};

/// One demo instance whose golden patch is Python, and one Java.
fn python_and_java() -> (String, String) {
    let text = fs::read_to_string(demo().join("instances.jsonl")).expect("instances");
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    let by_ext = |ext: &str| {
        rows.iter()
            .find(|r| {
                r["hunks"]
                    .as_array()
                    .expect("hunks")
                    .iter()
                    .all(|h| h["file"].as_str().unwrap_or("").ends_with(ext))
            })
            .and_then(|r| r["instance_id"].as_str())
            .expect("an instance")
            .to_string()
    };
    (by_ext(".py"), by_ext(".java"))
}

/// `hunkgen run` with these arguments into `out`; returns (success, stdout, stderr).
fn run(agents: &Path, agent: &str, out: &Path, args: &[&str]) -> (bool, String, String) {
    let res = hunkgen()
        .arg("run")
        .arg(demo())
        .arg("--agents")
        .arg(agents)
        .args(["--agent", agent, "-q", "--out"])
        .arg(out)
        .args(args)
        .output()
        .expect("runs");
    (
        res.status.success(),
        String::from_utf8_lossy(&res.stdout).into_owned(),
        String::from_utf8_lossy(&res.stderr).into_owned(),
    )
}

fn result(out: &Path, agent: &str, state: &str, id: &str) -> serde_json::Value {
    let p = out
        .join(agent)
        .join(format!("{state}-best"))
        .join(id)
        .join("result.json");
    serde_json::from_str(&fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .expect("json")
}

fn predictions(out: &Path, agent: &str, state: &str) -> Vec<serde_json::Value> {
    fs::read_to_string(
        out.join(agent)
            .join(format!("{state}-best/predictions.jsonl")),
    )
    .expect("predictions")
    .lines()
    .map(|l| serde_json::from_str(l).expect("row"))
    .collect()
}

fn evaluate(preds: &Path, out: &Path) -> serde_json::Value {
    crate::evaluate::evaluate(&["--predictions", preds.to_str().expect("utf-8")], out)
}

#[test]
fn oracle_resolves_and_comment_only_agent_abstains() {
    let agents = manifest().join("demo/agents/agents.yaml");
    let (py, java) = python_and_java();
    let only = format!("{py},{java}");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("runs");

    let (ok, stdout, stderr) = run(&agents, "oracle", &out, &["--only", &only, "--jobs", "2"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("| completed |"), "{stdout}");
    for id in [&py, &java] {
        let r = result(&out, "oracle", "novel", id);
        assert_eq!(r["outcome"], "completed", "{r}");
        assert_eq!(r["sandboxed"], true);
        assert_eq!(r["trajectory_format"], "normalized");
        assert!(r["trajectory_steps"].as_u64().unwrap_or(0) >= 3, "{r}");
        let base = out.join("oracle/novel-best").join(id);
        for f in [
            "prompt.md",
            "stdout.log",
            "stderr.log",
            "trajectory.jsonl",
            "trajectory.raw",
        ] {
            assert!(base.join(f).is_file(), "{id}: {f} missing");
        }
        let prompt = fs::read_to_string(base.join("prompt.md")).expect("prompt");
        assert!(!prompt.contains("{problem_statement}") && !prompt.contains("## Failing tests"));
        // The golden patch is never in the prompt, only in the oracle's private file.
        assert!(!prompt.contains("diff --git"));
    }
    let preds = predictions(&out, "oracle", "novel");
    assert_eq!(preds.len(), 2);
    for p in &preds {
        assert_eq!(p["model_name_or_path"], "oracle");
        assert_eq!(p["state"], "novel");
        let patch = p["model_patch"].as_str().expect("patch");
        assert!(patch.starts_with("diff --git a/"), "{patch}");
        assert!(!patch.contains(".git/"), "{patch}");
    }
    // A second run with nothing changed reuses every result.
    let (ok, stdout, _) = run(&agents, "oracle", &out, &["--only", &only]);
    assert!(ok && stdout.contains("2 reused"), "{stdout}");
    assert_eq!(predictions(&out, "oracle", "novel"), preds);

    let s = evaluate(
        &out.join("oracle/novel-best/predictions.jsonl"),
        &dir.path().join("eval-oracle"),
    );
    assert_eq!(rate(&s["overall"]["resolution"]), (2, 2), "{s}");
    let t = &s["trajectories"];
    assert_eq!(t["runs"], 2, "{t}");
    assert_eq!(t["outcomes"]["completed"], 2);
    assert_eq!(t["success"]["runs"], 2);
    assert_eq!(t["failure"]["runs"], 0);
    assert!(
        t["success"]["mean_tokens"].as_f64().unwrap_or(0.0) > 0.0,
        "{t}"
    );
    // The oracle reads each golden file right before editing it: every one touched.
    assert_eq!(
        t["first_touch"]["touched"],
        t["first_touch"]["golden_files"]
    );
    assert!(t["tool_use"]["edit"]["calls"].as_u64().unwrap_or(0) >= 2);
    // In the agent study's categories the edits are WRITE steps, as many as edits; the
    // oracle runs no test, so every trajectory has Passerine's NO_TEST smell.
    let a = &t["analytics"];
    assert_eq!(
        a["categories"]["success"]["WRITE"]["steps"], t["tool_use"]["edit"]["calls"],
        "{a}"
    );
    assert_eq!(a["smells"]["success"]["trajectories"], 2, "{a}");
    assert_eq!(a["smells"]["success"]["no_test"], 2, "{a}");
    assert_eq!(
        t["bigrams"][0]["kinds"],
        serde_json::json!(["read", "edit"]),
        "{t}"
    );

    for state in ["novel", "resolved"] {
        let (ok, _, stderr) = run(
            &agents,
            "comment",
            &out,
            &["--only", &only, "--state", state],
        );
        assert!(ok, "{stderr}");
        for id in [&py, &java] {
            assert_eq!(result(&out, "comment", state, id)["outcome"], "completed");
        }
        let s = evaluate(
            &out.join(format!("comment/{state}-best/predictions.jsonl")),
            &dir.path().join(format!("eval-comment-{state}")),
        );
        // On Resolved the golden tests pass already: "resolution" there is no repair
        // (the report counts Novel and Partial only); abstaining is what is right.
        if state == "novel" {
            assert_eq!(rate(&s["overall"]["resolution"]), (0, 2), "{s}");
        }
        assert_eq!(rate(&s["overall"]["abstention"]), (2, 2), "{state}: {s}");
        let correct = if state == "resolved" { 2 } else { 0 };
        assert_eq!(
            rate(&s["overall"]["correct_abstention"]),
            (correct, 2),
            "{state}"
        );
        // Success is resolving on Novel, abstaining on Resolved.
        let (ok, failed) = if state == "resolved" { (2, 0) } else { (0, 2) };
        assert_eq!(s["trajectories"]["success"]["runs"], ok, "{state}");
        assert_eq!(s["trajectories"]["failure"]["runs"], failed, "{state}");
    }

    // The report shows the agents' trajectory metrics beside the accuracy tables.
    let page = dir.path().join("report.html");
    succeeds(
        hunkgen()
            .arg("report")
            .arg(demo())
            .arg("--results")
            .arg(dir.path().join("eval-oracle"))
            .arg("--results")
            .arg(dir.path().join("eval-comment-novel"))
            .arg("-o")
            .arg(&page),
    );
    let html = fs::read_to_string(&page).expect("page");
    assert!(html.contains("Agent trajectories"));
    assert!(html.contains("read → edit"), "the n-grams are shown");
    assert!(
        html.contains("Trajectory analytics") && html.contains("READ → WRITE"),
        "the study's categories are shown"
    );
}

/// An agents file of misbehaving agents, written for this test; `hang` sleeps for
/// `{sleep}1` and `{sleep}2` seconds, numbers no other process on the machine uses.
fn bad_agents(dir: &Path, outside: &Path, sleep: &str) -> PathBuf {
    let file = dir.join("agents.yaml");
    let text = format!(
        r#"hang:
  command: "sleep {sleep}1 & sleep {sleep}2"
  timeout: 2
delete:
  command: "cd / && rm -rf {{workdir}}; exit 0"
outside:
  command: "echo leaked > {outside}; echo tried"
exit3:
  command: "echo partial > notes.txt; exit 3"
binary:
  command: "printf 'a\\000b\\001c' > blob.bin && echo 'text change' > notes.txt"
huge:
  command: "head -c 5000000 /dev/zero | tr '\\000' 'a' | fold -w 100 > big.txt"
  max_diff_bytes: 100000
garbled:
  command: "echo this is not stream-json"
  trajectory: claude-stream-json
secret:
  command: "echo key=$HUNKGEN_TEST_SECRET; echo $HUNKGEN_TEST_SECRET >&2; echo $HUNKGEN_TEST_SECRET > notes.txt"
  env: [HUNKGEN_TEST_SECRET]
"#,
        outside = outside.display()
    );
    fs::write(&file, text).expect("agents");
    file
}

/// Processes on this machine whose command line contains `needle`.
fn processes_with(needle: &str) -> usize {
    fs::read_dir("/proc")
        .expect("proc")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter(|e| {
            fs::read(e.path().join("cmdline"))
                .map(|c| {
                    String::from_utf8_lossy(&c)
                        .replace('\0', " ")
                        .contains(needle)
                })
                .unwrap_or(false)
        })
        .count()
}

#[test]
fn misbehaving_agents_are_labelled_outcomes() {
    let (py, _) = python_and_java();
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("runs");
    // Outside /tmp (the sandbox's /tmp is private): the real file system, read-only.
    let outside = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("run-outside-{}.txt", std::process::id()));
    let _ = fs::remove_file(&outside);
    // This test's own sleep lengths: other runs of this suite on the machine (another
    // checkout's, at the same time) have other ones.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let sleep = format!("9{}{nanos:09}", std::process::id());
    let agents = bad_agents(dir.path(), &outside, &sleep);
    let one = |agent: &str| {
        let (ok, stdout, stderr) = run(&agents, agent, &out, &["--only", &py]);
        assert!(ok, "{agent}: {stderr}");
        assert!(stdout.contains(&py), "{stdout}");
        let r = result(&out, agent, "novel", &py);
        let patch = predictions(&out, agent, "novel")[0]["model_patch"]
            .as_str()
            .expect("patch")
            .to_string();
        (r, patch)
    };

    let started = std::time::Instant::now();
    let (r, _) = one("hang");
    assert_eq!(r["outcome"], "timeout", "{r}");
    assert!(started.elapsed().as_secs() < 60);
    // Both the agent and its background child are gone.
    assert_eq!(processes_with(&format!("sleep {sleep}")), 0);

    let (r, patch) = one("delete");
    assert_eq!(r["outcome"], "workdir_deleted", "{r}");
    assert_eq!(patch, "");

    let (r, patch) = one("outside");
    assert_eq!(r["outcome"], "completed", "{r}");
    assert!(
        !outside.exists(),
        "the sandbox let the agent write {}",
        outside.display()
    );
    assert_eq!(patch, "");

    let (r, patch) = one("exit3");
    assert_eq!(r["outcome"], "nonzero_exit", "{r}");
    assert_eq!(r["exit_code"], 3);
    assert!(
        patch.contains("+partial"),
        "the diff is still collected: {patch}"
    );

    let (r, patch) = one("binary");
    assert_eq!(r["outcome"], "binary_diff", "{r}");
    assert_eq!(r["binary_files"], serde_json::json!(["blob.bin"]));
    assert!(
        patch.contains("notes.txt") && !patch.contains("blob.bin"),
        "{patch}"
    );

    let (r, patch) = one("huge");
    assert_eq!(r["outcome"], "diff_too_large", "{r}");
    assert_eq!(patch, "");

    let (r, _) = one("garbled");
    assert_eq!(r["outcome"], "completed");
    assert_eq!(r["trajectory_format"], "raw", "{r}");
    assert!(
        r["detail"].as_str().unwrap_or("").contains("raw log kept"),
        "{r}"
    );
    let base = out.join("garbled/novel-best").join(&py);
    assert!(!base.join("trajectory.jsonl").exists());
    assert!(fs::read_to_string(base.join("stdout.log"))
        .expect("stdout")
        .contains("this is not stream-json"));

    let secret = "s3cr3t-value-4711";
    let res = hunkgen()
        .arg("run")
        .arg(demo())
        .arg("--agents")
        .arg(&agents)
        .args(["--agent", "secret", "-q", "--only", &py, "--out"])
        .arg(&out)
        .env("HUNKGEN_TEST_SECRET", secret)
        .output()
        .expect("runs");
    assert!(res.status.success());
    let base = out.join("secret/novel-best").join(&py);
    let stdout = fs::read_to_string(base.join("stdout.log")).expect("stdout");
    assert!(
        stdout.contains("key=[redacted:HUNKGEN_TEST_SECRET]"),
        "{stdout}"
    );
    for f in ["stdout.log", "stderr.log", "model.patch", "result.json"] {
        let text = fs::read_to_string(base.join(f)).expect(f);
        assert!(!text.contains(secret), "{f} leaks the secret");
    }
    let preds = fs::read_to_string(out.join("secret/novel-best/predictions.jsonl")).expect("p");
    assert!(!preds.contains(secret) && preds.contains("[redacted:HUNKGEN_TEST_SECRET]"));
}

#[test]
fn prompt_variants_and_a_missing_state() {
    let (py, _) = python_and_java();
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("runs");
    let agents = dir.path().join("agents.yaml");
    fs::write(&agents, "mcp:\n  command: cat {mcp_config} > mcp.json\n").expect("agents");
    let inst: serde_json::Value = fs::read_to_string(demo().join("instances.jsonl"))
        .expect("instances")
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("row"))
        .find(|r| r["instance_id"] == py.as_str())
        .expect("instance");
    let golden_file = inst["hunks"][0]["file"].as_str().expect("file").to_string();

    let (ok, _, stderr) = run(
        &agents,
        "mcp",
        &out,
        &["--only", &py, "--prompt-variant", "mcp"],
    );
    assert!(ok, "{stderr}");
    let base = out.join("mcp/novel-best").join(&py);
    let prompt = fs::read_to_string(base.join("prompt.md")).expect("prompt");
    assert!(
        prompt.contains("Model Context Protocol server named `hunkgen`"),
        "{prompt}"
    );
    assert!(
        !prompt.contains(&golden_file),
        "no location hint in the mcp variant"
    );
    // The agent could read its MCP configuration: hunkgen mcp rooted at its workdir.
    let patch = fs::read_to_string(base.join("model.patch")).expect("patch");
    assert!(
        patch.contains("mcpServers") && patch.contains("\"--root\""),
        "{patch}"
    );
    assert!(patch.contains(&format!(".work/{py}")), "{patch}");

    for (variant, needle) in [
        ("files", "fix for this problem changes these files"),
        ("hunks", " lines "),
    ] {
        let o = dir.path().join(variant);
        let (ok, _, stderr) = run(
            &agents,
            "mcp",
            &o,
            &["--only", &py, "--prompt-variant", variant],
        );
        assert!(ok, "{stderr}");
        let prompt =
            fs::read_to_string(o.join("mcp/novel-best").join(&py).join("prompt.md")).expect("p");
        assert!(
            prompt.contains(needle) && prompt.contains(&golden_file),
            "{prompt}"
        );
    }

    // A dataset without states: every instance is a labelled sandbox error.
    let bare = dir.path().join("bare");
    fs::create_dir_all(&bare).expect("mkdir");
    fs::copy(demo().join("instances.jsonl"), bare.join("instances.jsonl")).expect("copy");
    succeeds(
        hunkgen()
            .arg("run")
            .arg(&bare)
            .arg("--agents")
            .arg(&agents)
            .args(["--agent", "mcp", "-q", "--only", &py]),
    );
    let r: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(
            bare.join("runs/mcp/novel-best")
                .join(&py)
                .join("result.json"),
        )
        .expect("result"),
    )
    .expect("json");
    assert_eq!(r["outcome"], "sandbox_error");
    assert!(
        r["detail"]
            .as_str()
            .unwrap_or("")
            .contains("no novel-best state"),
        "{r}"
    );
}

#[test]
fn a_bad_agents_file_is_one_line_with_its_place() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("agents.yaml");
    // The agents file is read before the dataset: no dataset needed here.
    let run = |agent: &str| {
        let res = hunkgen()
            .arg("run")
            .arg(dir.path())
            .arg("--agents")
            .arg(&file)
            .args(["--agent", agent])
            .output()
            .expect("runs");
        (
            res.status.success(),
            String::from_utf8_lossy(&res.stderr).into_owned(),
        )
    };
    fs::write(&file, "a:\n  command: x\n  netwrok: true\n").expect("write");
    let (ok, stderr) = run("a");
    assert!(!ok);
    assert!(stderr.contains("agents.yaml:3:"), "{stderr}");
    assert!(stderr.contains("netwrok"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    fs::write(&file, "a:\n  command: x\n").expect("write");
    let (ok, stderr) = run("b");
    assert!(!ok && stderr.contains("no agent `b`"), "{stderr}");
}

fn fixture(name: &str) -> String {
    fs::read_to_string(manifest().join("tests/data/trajectories").join(name)).expect("fixture")
}

/// The steps of a recorded log under /w/repo, and their kinds.
fn normalized(format: TrajectoryFormat, name: &str) -> (Vec<TrajectoryStep>, Vec<StepKind>) {
    let steps = hunkgen::run::trajectory::normalize(
        format,
        &fixture(name),
        "/w/repo",
        hunkgen::run::trajectory::DEFAULT_KEEP_OUTPUT,
    )
    .expect("normalizes");
    let kinds = steps.iter().map(|s| s.kind).collect();
    (steps, kinds)
}

#[test]
fn claude_stream_json_log_normalizes() {
    let (steps, kinds) = normalized(TrajectoryFormat::ClaudeStreamJson, "claude-stream.jsonl");
    assert_eq!(
        kinds,
        [
            StepKind::Search,
            StepKind::Read,
            StepKind::Edit,
            StepKind::Search,
            StepKind::RunTest
        ]
    );
    assert_eq!(steps[0].files, ["python"]);
    assert_eq!(
        (steps[0].tokens_in, steps[0].tokens_out),
        (Some(1500), Some(40))
    );
    // Of those 1500, 300 were read from the prompt cache; none were written to it.
    assert_eq!(
        (steps[0].tokens_cache_read, steps[0].tokens_cache_write),
        (Some(300), None)
    );
    assert_eq!(steps[1].files, ["python/acme/text.py"]);
    assert_eq!(steps[2].files, ["python/acme/text.py"]);
    assert_eq!(
        (steps[2].tokens_in, steps[2].tokens_out),
        (Some(1800), Some(120))
    );
    // The second tool call of a message carries no tokens of its own.
    assert_eq!(steps[3].tokens_in, None);
    let test = &steps[4];
    assert_eq!(
        test.command.as_deref(),
        Some("python -m pytest -q python/tests/test_text.py")
    );
    assert_eq!(test.exit_code, Some(1), "is_error marks a failed command");
    // The last message (text only) is charged to the last step; the run's duration too.
    assert_eq!((test.tokens_in, test.tokens_out), (Some(4400), Some(85)));
    assert_eq!(test.elapsed_ms, Some(41250));
    let total: u64 = steps.iter().filter_map(|s| s.tokens_out).sum();
    assert_eq!(total, 275, "every message's output tokens counted once");
    // What each tool returned, as the agent saw it.
    assert_eq!(
        steps[0].output.as_deref(),
        Some("python/acme/text.py:12:def pad(s, width):")
    );
    assert_eq!(test.output.as_deref(), Some("1 failed, 3 passed"));
    assert!(steps.iter().all(|s| s.output_truncated.is_none()));
}

/// A Gemini CLI stream-json log (written here in the format of gemini-cli's
/// `packages/core/src/output/types.ts`): its own tool names to step kinds, a failed
/// shell command's error as its output, the session's token totals and duration on the
/// last step, `message` and `error` events no steps.
#[test]
fn gemini_stream_json_log_normalizes() {
    let (steps, kinds) = normalized(TrajectoryFormat::GeminiStreamJson, "gemini-stream.jsonl");
    assert_eq!(
        kinds,
        [
            StepKind::Search,
            StepKind::Read,
            StepKind::Edit,
            StepKind::RunTest,
            StepKind::Search
        ]
    );
    assert_eq!(steps[0].files, ["python"]);
    assert_eq!(steps[1].files, ["python/acme/text.py"]);
    assert_eq!(steps[2].files, ["python/acme/text.py"]);
    assert_eq!(
        steps[3].command.as_deref(),
        Some("python -m pytest -q python/tests/test_text.py")
    );
    assert_eq!(steps[3].exit_code, Some(1), "status error");
    assert_eq!(
        steps[3].output.as_deref(),
        Some("error: 1 failed, 3 passed")
    );
    assert_eq!(steps[0].exit_code, Some(0));
    let last = &steps[4];
    assert_eq!(
        (last.tokens_in, last.tokens_out, last.tokens_cache_read),
        (Some(5000), Some(200), Some(1200))
    );
    assert_eq!(last.elapsed_ms, Some(38000));
    assert!(steps[..4].iter().all(|s| s.tokens_in.is_none()));
    // In the study's categories: content search, read, write, test, navigate.
    let cats: Vec<&str> = steps
        .iter()
        .map(|s| hunkgen::evaluate::analytics::category(s).name())
        .collect();
    assert_eq!(
        cats,
        ["SEARCH_CONTENT", "READ", "WRITE", "TEST", "NAVIGATE"]
    );
    assert!(hunkgen::run::trajectory::normalize(
        TrajectoryFormat::GeminiStreamJson,
        "not json\n{\"type\":\"assistant\"}\n",
        "/w/repo",
        0
    )
    .is_err());
}

/// A Qwen Code stream-json log (written here in the format of Qwen Code's headless-mode
/// docs): Claude Code's envelope, Gemini CLI's tool names, per-message usage with the
/// cache read kept apart.
#[test]
fn qwen_stream_json_log_normalizes() {
    let (steps, kinds) = normalized(TrajectoryFormat::QwenStreamJson, "qwen-stream.jsonl");
    assert_eq!(
        kinds,
        [
            StepKind::Search,
            StepKind::Read,
            StepKind::Edit,
            StepKind::RunTest
        ]
    );
    let money = "java/src/main/java/org/acme/num/Money.java";
    assert_eq!(steps[1].files, [money]);
    assert_eq!(steps[2].files, [money]);
    assert_eq!(
        steps[3].command.as_deref(),
        Some("mvn -q test -Dtest=MoneyTest")
    );
    assert_eq!(steps[3].exit_code, Some(0));
    assert_eq!(
        (
            steps[0].tokens_in,
            steps[0].tokens_out,
            steps[0].tokens_cache_read
        ),
        (Some(4000), Some(50), Some(1000))
    );
    assert_eq!(steps[3].elapsed_ms, Some(52000));
    let total: u64 = steps.iter().filter_map(|s| s.tokens_out).sum();
    assert_eq!(total, 210, "the result's totals are not counted again");
}

#[test]
fn codex_exec_json_log_normalizes() {
    let (steps, kinds) = normalized(TrajectoryFormat::CodexJson, "codex-exec.jsonl");
    assert_eq!(
        kinds,
        [
            StepKind::Search,
            StepKind::Read,
            StepKind::Edit,
            StepKind::RunBuild,
            StepKind::RunTest
        ]
    );
    assert_eq!(
        steps[1].files,
        ["java/src/main/java/org/acme/num/Money.java"]
    );
    assert_eq!(
        steps[2].files,
        [
            "java/src/main/java/org/acme/num/Money.java",
            "java/src/main/java/org/acme/text/Pad.java"
        ]
    );
    assert_eq!(steps[4].exit_code, Some(127));
    assert_eq!(steps[0].exit_code, Some(0));
    // The turn's usage goes to its first step.
    assert_eq!(
        (steps[0].tokens_in, steps[0].tokens_out),
        (Some(24763), Some(122))
    );
    // Codex's input holds its cached part already.
    assert_eq!(steps[0].tokens_cache_read, Some(24448));
    assert!(steps[1..].iter().all(|s| s.tokens_in.is_none()));
    assert_eq!(
        steps[4].output.as_deref(),
        Some("bash: mvn: command not found\n")
    );
    assert_eq!(steps[2].output, None, "a file change returns nothing");
}

/// The demo's instances.jsonl rows.
fn demo_rows() -> Vec<serde_json::Value> {
    fs::read_to_string(demo().join("instances.jsonl"))
        .expect("instances")
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect()
}

/// An agents file with `noop`, an agent that changes nothing.
fn noop_agents(dir: &Path) -> PathBuf {
    let agents = dir.join("agents.yaml");
    fs::write(&agents, "noop:\n  command: \"true\"\n").expect("agents");
    agents
}

#[test]
fn the_default_prompt_is_the_issue_and_no_variant_names_the_golden_tests() {
    let (py, java) = python_and_java();
    let dir = tempfile::tempdir().expect("tempdir");
    let agents = noop_agents(dir.path());
    let rows = demo_rows();
    let only = format!("{py},{java}");

    // No --prompt-variant on a dataset without Defects4J bugs: FixedBench's `issue`, the
    // task text exactly as the instance has it.
    let out = dir.path().join("default");
    let (ok, _, stderr) = run(&agents, "noop", &out, &["--only", &only]);
    assert!(ok, "{stderr}");
    for id in [&py, &java] {
        let inst = rows
            .iter()
            .find(|r| r["instance_id"] == id.as_str())
            .expect("instance");
        let prompt =
            fs::read_to_string(out.join("noop/novel-best").join(id).join("prompt.md")).expect("p");
        assert_eq!(
            prompt,
            inst["problem_statement"].as_str().expect("text"),
            "{id}"
        );
        assert_eq!(result(&out, "noop", "novel", id)["prompt_variant"], "issue");
    }

    let variants = [
        "issue",
        "edit",
        "reproduce",
        "abstain-or-fix",
        "plain",
        "files",
        "hunks",
        "mcp",
    ];
    for variant in variants {
        let out = dir.path().join(variant);
        let (ok, _, stderr) = run(
            &agents,
            "noop",
            &out,
            &["--only", &only, "--prompt-variant", variant],
        );
        assert!(ok, "{variant}: {stderr}");
        for id in [&py, &java] {
            let inst = rows
                .iter()
                .find(|r| r["instance_id"] == id.as_str())
                .expect("instance");
            let prompt = fs::read_to_string(out.join("noop/novel-best").join(id).join("prompt.md"))
                .expect("prompt");
            let tests = inst["FAIL_TO_PASS"].as_array().expect("f2p");
            assert!(!tests.is_empty());
            for t in tests {
                let t = t.as_str().expect("test");
                assert!(!prompt.contains(t), "{variant} names {t}: {prompt}");
            }
            assert!(
                prompt.contains(inst["problem_statement"].as_str().expect("text").trim()),
                "{variant}: {prompt}"
            );
            assert_eq!(result(&out, "noop", "novel", id)["prompt_variant"], variant);
        }
    }
    // --help teaches the choice.
    let help = succeeds(hunkgen().args(["run", "--help"]));
    let help = String::from_utf8_lossy(&help.stdout);
    for v in variants {
        assert!(help.contains(v), "{v} missing from --help: {help}");
    }
}

/// A repository whose fix changes two far-apart functions of acme/calc.py and adds the
/// test file tests/test_calc.py.
fn calc_repo() -> Script {
    let calc = |fixed: bool| {
        let filler: String = (0..10).map(|i| format!("# note {i}\n")).collect();
        let (add, mul) = if fixed {
            ("return int(a) + int(b)", "return int(a) * int(b)")
        } else {
            ("return a + b", "return a * b")
        };
        format!("def add(a, b):\n    {add}\n\n{filler}\ndef mul(a, b):\n    {mul}\n")
    };
    let mut src = Script::new();
    src.write("acme/__init__.py", "");
    src.write("acme/calc.py", &calc(false));
    src.write("README.md", "calc\n");
    src.commit("Initial import");
    src.write("acme/calc.py", &calc(true));
    src.write(
        "tests/test_calc.py",
        "from acme.calc import add, mul\n\n\ndef test_strings():\n    assert add('1', '2') == 3\n    assert mul('2', '3') == 6\n",
    );
    src.commit("Fix add and mul for numeric strings");
    src
}

#[test]
fn with_tests_runs_on_the_states_holding_the_golden_tests() {
    let src = calc_repo();
    let tmp = tempfile::tempdir().expect("tempdir");
    let recipe = tmp.path().join("r.yaml");
    fs::write(
        &recipe,
        format!(
            "name: calc\noutput: out\nsource:\n  git:\n    repo: {}\n    name: calc\nfiles:\n  code_extensions: [py]\nselect:\n  min_code_hunks: 2\nstates:\n  kinds: [novel]\n  scenarios: [worst]\n  golden_tests: both\n",
            src.dir.display()
        ),
    )
    .expect("recipe");
    succeeds(hunkgen().args(["build", "-q"]).arg(&recipe));
    let dataset = tmp.path().join("out");
    let ids: Vec<String> = hunkgen::dataset::read_instances(&dataset)
        .expect("instances")
        .into_iter()
        .map(|i| i.instance_id)
        .collect();
    assert_eq!(ids.len(), 1, "one fix: {ids:?}");
    let id = &ids[0];
    let agents = tmp.path().join("agents.yaml");
    fs::write(
        &agents,
        "probe:\n  command: \"if test -f tests/test_calc.py; then echo TEST-FILE-PRESENT; else echo TEST-FILE-ABSENT; fi\"\n",
    )
    .expect("agents");
    let run_on = |extra: &[&str]| {
        succeeds(
            hunkgen()
                .arg("run")
                .arg(&dataset)
                .arg("--agents")
                .arg(&agents)
                .args(["--agent", "probe", "-q", "--scenario", "worst"])
                .args(extra),
        );
    };
    let read_json = |p: PathBuf| -> serde_json::Value {
        serde_json::from_str(
            &fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
        )
        .expect("json")
    };

    for (flag, dir, seen) in [
        (true, "novel-worst-tests", "TEST-FILE-PRESENT"),
        (false, "novel-worst", "TEST-FILE-ABSENT"),
    ] {
        run_on(if flag { &["--with-tests"] } else { &[] });
        let base = dataset.join("runs/probe").join(dir);
        let stdout = fs::read_to_string(base.join(id).join("stdout.log")).expect("stdout");
        assert_eq!(stdout.trim(), seen, "{dir}");
        let r = read_json(base.join(id).join("result.json"));
        assert_eq!(r["outcome"], "completed", "{r}");
        assert_eq!(r["tests_present"], flag, "{r}");
        let preds = fs::read_to_string(base.join("predictions.jsonl")).expect("predictions");
        let row: serde_json::Value =
            serde_json::from_str(preds.lines().next().expect("a row")).expect("json");
        assert_eq!(row["scenario"], "worst", "{row}");
        assert_eq!(
            row.get("tests_present"),
            flag.then_some(&serde_json::Value::Bool(true)),
            "{row}"
        );
    }

    // A state the dataset does not hold with the tests: one line naming the directory
    // and the recipe key that builds it.
    run_on(&["--with-tests", "--state", "resolved"]);
    let r = read_json(
        dataset
            .join("runs/probe/resolved-worst-tests")
            .join(id)
            .join("result.json"),
    );
    assert_eq!(r["outcome"], "sandbox_error", "{r}");
    let detail = r["detail"].as_str().expect("detail");
    assert!(
        detail.contains("resolved-worst-tests")
            && detail.contains("states.golden_tests: present|both"),
        "{detail}"
    );
    assert_eq!(detail.lines().count(), 1, "{detail}");
}

#[test]
fn results_carry_the_scenario_the_run_was_made_in() {
    let (py, java) = python_and_java();
    let dir = tempfile::tempdir().expect("tempdir");
    let agents = noop_agents(dir.path());
    let out = dir.path().join("runs");
    let scenario_of = |eval: &Path| -> Vec<(String, String, Vec<serde_json::Value>)> {
        fs::read_to_string(eval.join("results.jsonl"))
            .expect("results")
            .lines()
            .map(|l| {
                let r: serde_json::Value = serde_json::from_str(l).expect("row");
                (
                    r["instance_id"].as_str().expect("id").to_string(),
                    r["scenario"].as_str().expect("scenario").to_string(),
                    r["problems"].as_array().cloned().unwrap_or_default(),
                )
            })
            .collect()
    };
    for scenario in ["best", "worst"] {
        let (ok, _, stderr) = run(
            &agents,
            "noop",
            &out,
            &["--only", &py, "--scenario", scenario],
        );
        assert!(ok, "{stderr}");
        let preds = out.join(format!("noop/novel-{scenario}/predictions.jsonl"));
        let eval = dir.path().join(format!("eval-{scenario}"));
        evaluate(&preds, &eval);
        assert_eq!(
            scenario_of(&eval),
            [(py.clone(), scenario.to_string(), Vec::new())],
            "{scenario}"
        );
    }

    // Rows without a scenario take --scenario, else say `unspecified`; a bad one is a
    // problem of its row.
    let preds = dir.path().join("preds.jsonl");
    fs::write(
        &preds,
        format!(
            "{}\n{}\n",
            serde_json::json!({"instance_id": py, "model_name_or_path": "m", "model_patch": ""}),
            serde_json::json!({"instance_id": java, "model_name_or_path": "m", "model_patch": "", "scenario": "medium"}),
        ),
    )
    .expect("preds");
    let p = preds.to_str().expect("utf-8");
    let with = dir.path().join("eval-with");
    crate::evaluate::evaluate(&["--predictions", p, "--scenario", "worst"], &with);
    let rows = scenario_of(&with);
    let by = |id: &str| rows.iter().find(|r| r.0 == id).expect("row").clone();
    assert_eq!(by(&py).1, "worst");
    assert!(by(&py).2.is_empty(), "{rows:?}");
    assert_eq!(by(&java).1, "medium");
    assert_eq!(
        by(&java).2,
        [serde_json::json!("unknown scenario `medium` (best, worst)")]
    );
    let without = dir.path().join("eval-without");
    crate::evaluate::evaluate(&["--predictions", p], &without);
    let rows = scenario_of(&without);
    let py_row = rows.iter().find(|r| r.0 == py).expect("row");
    assert_eq!(py_row.1, "unspecified", "{rows:?}");
}
