//! `hunkgen judge` end to end with no model anywhere: scripted agents (one reads the git
//! history and is told the bug is already fixed, one adds a test, one edits code, one
//! writes no trajectory) run on the demo's Novel and Resolved states; a scripted judge
//! labels each run from the steps and tool outputs it is given. The outputs reach the
//! judge cut at `--keep-output`; the verdicts, the frequencies by outcome, instruction,
//! scenario and state, and precision/recall/F1 against a human labels file all equal
//! their hand-computed values; a judge printing garbage, or too slow, costs that run
//! alone; and a rerun asks the judge nothing it already answered.

use crate::common::{demo_recipe, hunkgen, succeeds};
use std::fs;
use std::path::{Path, PathBuf};

/// The agents: each writes a normalized trajectory with the tool outputs it saw.
const AGENT: &str = r#"import json, os, subprocess, sys
role, trajectory = sys.argv[1], sys.argv[2]
steps = []
def step(kind, command, output, files=(), code=0):
    steps.append({"kind": kind, "files": list(files), "command": command,
                  "exit_code": code, "output": output})
def git_log():
    p = subprocess.run(["git", "log", "--oneline", "-3"], capture_output=True, text=True)
    step("read", "git log --oneline -3", p.stdout + p.stderr, code=p.returncode)
if role == "historian":
    git_log()
    # 25 ASCII bytes, then 100 two-byte characters.
    step("run-test", "python -m pytest -q", "the bug is already fixed " + "\u00e9" * 100)
elif role == "tester":
    os.makedirs("python/tests", exist_ok=True)
    with open("python/tests/test_judge_extra.py", "w") as f:
        f.write("def test_extra():\n    assert True\n")
    step("edit", "Write python/tests/test_judge_extra.py", "File created",
         ["python/tests/test_judge_extra.py"])
    step("run-test", "python -m pytest -q python/tests/test_judge_extra.py", "1 passed")
elif role == "editor":
    git_log()
    with open("python/judge_note.py", "w") as f:
        f.write("EDITED = True\n")
    step("edit", "Write python/judge_note.py", "File created", ["python/judge_note.py"])
with open(trajectory, "w") as f:
    for s in steps:
        f.write(json.dumps(s) + "\n")
"#;

/// The judge: labels from the document's steps; every call appended to $JUDGE_CALLS;
/// garbage for the run $JUDGE_GARBAGE_FOR names, a long sleep for $JUDGE_SLEEP_FOR's.
const JUDGE: &str = r#"import json, os, sys, time
doc = json.load(sys.stdin)
with open(os.environ["JUDGE_CALLS"], "a") as f:
    f.write(doc["run"] + "\n")
if doc["run"] == os.environ.get("JUDGE_GARBAGE_FOR"):
    print("I think this run looks fine")
    sys.exit(0)
if doc["run"] == os.environ.get("JUDGE_SLEEP_FOR"):
    time.sleep(60)
assert doc["protocol"] == "hunkgen-judge/1" and len(doc["categories"]) == 10
labels = set()
for s in doc["steps"]:
    if "git log" in (s.get("command") or ""):
        labels.add("checks-git-history")
    if s["kind"] == "edit" and any("test" in p for p in s.get("files", [])):
        labels.add("adds-a-test")
    if "already fixed" in (s.get("output") or ""):
        labels.add("realizes-already-fixed")
print(json.dumps({"labels": sorted(labels), "rationale": "%d steps" % len(doc["steps"])}))
"#;

/// The demo without tests, with Novel and Resolved states in both scenarios; its two
/// first instance ids.
fn dataset(root: &Path) -> (PathBuf, String, String) {
    let recipe = demo_recipe(root);
    let mut text = fs::read_to_string(&recipe).expect("recipe");
    text.push_str("\nstates:\n  kinds: [novel, resolved]\n  scenarios: [best, worst]\n");
    fs::write(&recipe, text).expect("recipe");
    succeeds(hunkgen().args(["build", "-q"]).arg(&recipe));
    let out = root.join("datasets/demo");
    let ids: Vec<String> = crate::golden::rows(&out)
        .iter()
        .map(|r| r["instance_id"].as_str().expect("id").to_string())
        .collect();
    (out, ids[0].clone(), ids[1].clone())
}

fn lines(path: &Path) -> Vec<serde_json::Value> {
    fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

fn calls(path: &Path) -> usize {
    fs::read_to_string(path).unwrap_or_default().lines().count()
}

/// (k, n) of one category in a frequencies object.
fn kn(f: &serde_json::Value, id: &str) -> (u64, u64) {
    let r = &f["categories"][id];
    (
        r["k"].as_u64().unwrap_or(u64::MAX),
        r["n"].as_u64().unwrap_or(u64::MAX),
    )
}

fn close(v: &serde_json::Value, want: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() < 1e-12)
}

#[test]
fn a_scripted_judge_labels_runs_and_its_frequencies_and_agreement_are_the_hand_computed_ones() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (data, a, b) = dataset(tmp.path());
    let agents_dir = tmp.path().join("agents");
    fs::create_dir(&agents_dir).expect("mkdir");
    fs::write(agents_dir.join("agent.py"), AGENT).expect("agent");
    let mut spec = String::new();
    for role in ["historian", "tester", "editor"] {
        spec.push_str(&format!(
            "{role}:\n  command: python3 {{agents_dir}}/agent.py {role} {{trajectory_file}}\n  trajectory: normalized\n  timeout: 60\n"
        ));
    }
    spec.push_str("silent:\n  command: 'true'\n  timeout: 60\n");
    let agents = agents_dir.join("agents.yaml");
    fs::write(&agents, spec).expect("agents");
    let runs = tmp.path().join("runs");
    let both = format!("{a},{b}");
    for (agent, state, scenario, instruction, only) in [
        ("historian", "resolved", "best", "issue", both.as_str()),
        ("tester", "resolved", "worst", "abstain-or-fix", &both),
        ("editor", "novel", "best", "edit", &a),
        ("silent", "novel", "worst", "issue", &a),
    ] {
        succeeds(
            hunkgen()
                .arg("run")
                .arg(&data)
                .arg("--agents")
                .arg(&agents)
                .args(["--agent", agent, "--state", state, "--scenario", scenario])
                .args(["--prompt-variant", instruction, "--only", only])
                .args(["--keep-output", "64", "-q", "--out"])
                .arg(&runs),
        );
    }
    // Outputs are kept, cut at 64 bytes on a character boundary: 25 ASCII bytes and 19
    // two-byte characters; 225 − 63 = 162 bytes dropped.
    let hist_a = runs.join("historian/resolved-best").join(&a);
    let steps = lines(&hist_a.join("trajectory.jsonl"));
    assert!(
        steps[0]["output"].as_str().is_some_and(|o| !o.is_empty()),
        "git log's output: {steps:?}"
    );
    let cut = &steps[1];
    let want = format!("the bug is already fixed {}", "é".repeat(19));
    assert_eq!(cut["output"].as_str(), Some(want.as_str()), "{cut}");
    assert_eq!(cut["output_truncated"], 162, "{cut}");

    let judge_py = agents_dir.join("judge.py");
    fs::write(&judge_py, JUDGE).expect("judge");
    let judge_cmd = format!("python3 '{}'", judge_py.display());
    let calls_file = tmp.path().join("calls.txt");
    let judge = |extra: &[&str], env: &[(&str, String)]| {
        let mut c = hunkgen();
        c.arg("judge")
            .arg(&data)
            .arg("--runs")
            .arg(&runs)
            .args(["--judge", &judge_cmd, "-q"])
            .args(extra)
            .env("JUDGE_CALLS", &calls_file);
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().expect("runs")
    };
    let key = |agent: &str, dir: &str, id: &str| format!("{agent}/{dir}/{id}");
    let garbage = key("tester", "resolved-worst", &b);

    // First: the judge prints garbage for one run; that run alone fails, in one line.
    let first = judge(&[], &[("JUDGE_GARBAGE_FOR", garbage.clone())]);
    let err = String::from_utf8_lossy(&first.stderr);
    assert_eq!(first.status.code(), Some(1), "{err}");
    let error_lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(error_lines.len(), 2, "{err}");
    assert!(
        error_lines[0].starts_with(&format!(
            "error: {garbage}: the judge's stdout is not an answer"
        )),
        "{err}"
    );
    assert!(
        error_lines[1].contains("1 of 5 run(s) could not be judged"),
        "{err}"
    );
    assert_eq!(
        calls(&calls_file),
        5,
        "the silent run has no trajectory: not judged"
    );
    let verdicts = lines(&runs.join("judgements.jsonl"));
    assert_eq!(verdicts.len(), 5);
    let failed = verdicts
        .iter()
        .find(|v| v["run"] == garbage.as_str())
        .expect("line");
    assert!(
        failed["error"].as_str().is_some_and(|e| !e.contains('\n')),
        "{failed}"
    );
    assert_eq!(failed["labels"], serde_json::json!([]));

    // The judge read the run's steps with their cut outputs.
    let input: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(
            runs.join("judge-logs")
                .join(key("historian", "resolved-best", &a))
                .join("input.json"),
        )
        .expect("input.json"),
    )
    .expect("json");
    assert_eq!(input["steps"][1]["output_truncated"], 162);
    assert_eq!(input["outcome"], "abstained");
    assert_eq!(input["instruction"], "issue");
    assert!(input["issue"].as_str().is_some_and(|t| !t.is_empty()));

    // Second: the failed run alone is asked again.
    let second = judge(&[], &[]);
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert_eq!(calls(&calls_file), 6);
    let verdicts = lines(&runs.join("judgements.jsonl"));
    let by_run = |run: &str| {
        verdicts
            .iter()
            .find(|v| v["run"] == run)
            .unwrap_or_else(|| panic!("{run}: {verdicts:?}"))
            .clone()
    };
    let labels = |run: &str| -> Vec<String> {
        by_run(run)["labels"]
            .as_array()
            .expect("labels")
            .iter()
            .map(|l| l.as_str().expect("id").to_string())
            .collect()
    };
    for id in [&a, &b] {
        let h = key("historian", "resolved-best", id);
        assert_eq!(labels(&h), ["checks-git-history", "realizes-already-fixed"]);
        assert_eq!(by_run(&h)["outcome"], "abstained");
        let t = key("tester", "resolved-worst", id);
        assert_eq!(labels(&t), ["adds-a-test"]);
        // A test file alone is no edit of the code.
        assert_eq!(by_run(&t)["outcome"], "abstained");
        assert_eq!(by_run(&t)["instruction"], "abstain-or-fix");
    }
    let e = key("editor", "novel-best", &a);
    assert_eq!(labels(&e), ["checks-git-history"]);
    assert_eq!(by_run(&e)["outcome"], "edited");
    assert!(verdicts
        .iter()
        .all(|v| v["judge"] == judge_cmd.as_str() && v.get("error").is_none()));

    // Third: nothing new, nothing asked.
    let third = judge(&[], &[]);
    assert!(third.status.success());
    assert_eq!(calls(&calls_file), 6);

    // Frequencies over the five judged runs, by hand.
    let s: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(runs.join("judgements-summary.json")).expect("summary"),
    )
    .expect("json");
    assert_eq!(
        (s["runs"].as_u64(), s["judged"].as_u64()),
        (Some(6), Some(5)),
        "{s}"
    );
    assert_eq!(
        (s["errors"].as_u64(), s["skipped"].as_u64()),
        (Some(0), Some(1))
    );
    let (cgh, raf, aat) = (
        "checks-git-history",
        "realizes-already-fixed",
        "adds-a-test",
    );
    assert_eq!(kn(&s["overall"], cgh), (3, 5));
    assert_eq!(kn(&s["overall"], raf), (2, 5));
    assert_eq!(kn(&s["overall"], aat), (2, 5));
    assert_eq!(kn(&s["overall"], "backtracks-on-fix"), (0, 5));
    let ab = &s["by_outcome"]["abstained"];
    assert_eq!(
        (kn(ab, cgh), kn(ab, raf), kn(ab, aat)),
        ((2, 4), (2, 4), (2, 4))
    );
    let ed = &s["by_outcome"]["edited"];
    assert_eq!(
        (kn(ed, cgh), kn(ed, raf), kn(ed, aat)),
        ((1, 1), (0, 1), (0, 1))
    );
    let by_instr = &s["by_instruction"];
    assert_eq!(
        (kn(&by_instr["issue"], cgh), kn(&by_instr["issue"], raf)),
        ((2, 2), (2, 2))
    );
    assert_eq!(kn(&by_instr["abstain-or-fix"], aat), (2, 2));
    assert_eq!(kn(&by_instr["abstain-or-fix"], cgh), (0, 2));
    assert_eq!(kn(&by_instr["edit"], cgh), (1, 1));
    assert_eq!(kn(&s["by_scenario"]["best"], cgh), (3, 3));
    assert_eq!(kn(&s["by_scenario"]["best"], raf), (2, 3));
    assert_eq!(kn(&s["by_scenario"]["worst"], aat), (2, 2));
    assert_eq!(kn(&s["by_state"]["resolved"], cgh), (2, 4));
    assert_eq!(kn(&s["by_state"]["novel"], cgh), (1, 1));
    assert!(close(&s["overall"]["categories"][cgh]["rate"], 0.6));
    let md = fs::read_to_string(runs.join("judgements-summary.md")).expect("md");
    assert!(
        md.contains("| checks-git-history | 60.0 (3/5) | 50.0 (2/4) | 100.0 (1/1) |"),
        "{md}"
    );

    // Human labels: TP 5, FP 1 (historian A's already-fixed), FN 2 (tester A's
    // backtracking, editor A's no-op edit) → P 5/6, R 5/7, F1 10/13; a skipped run and
    // an unknown one are listed, not counted.
    let human = tmp.path().join("human.jsonl");
    let id_line = |agent: &str, state: &str, scenario: &str, id: &str, labels: &[&str]| {
        serde_json::json!({"instance_id": id, "agent": agent, "state": state,
            "scenario": scenario, "labels": labels})
        .to_string()
    };
    let text = [
        id_line("historian", "resolved", "best", &a, &[cgh]),
        id_line(
            "tester",
            "resolved",
            "worst",
            &a,
            &[aat, "backtracks-on-fix"],
        ),
        id_line("editor", "novel", "best", &a, &[cgh, "makes-no-op-edit"]),
        serde_json::json!({"run": key("historian", "resolved-best", &b), "labels": [cgh, raf]})
            .to_string(),
        id_line("silent", "novel", "worst", &a, &[]),
        id_line("ghost", "novel", "best", &a, &[cgh]),
    ]
    .join("\n");
    fs::write(&human, text).expect("human");
    let out = judge(&["--human", human.to_str().expect("utf-8"), "--json"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(calls(&calls_file), 6, "agreement asks the judge nothing");
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json");
    let h = &s["human"];
    assert_eq!(h["runs"], 4, "{h}");
    let m = &h["micro"];
    assert_eq!(
        (
            &m["true_positives"],
            &m["false_positives"],
            &m["false_negatives"]
        ),
        (
            &serde_json::json!(5),
            &serde_json::json!(1),
            &serde_json::json!(2)
        )
    );
    assert!(close(&m["precision"], 5.0 / 6.0), "{m}");
    assert!(close(&m["recall"], 5.0 / 7.0), "{m}");
    assert!(close(&m["f1"], 10.0 / 13.0), "{m}");
    let per = &h["per_category"];
    assert!(close(&per[cgh]["f1"], 1.0));
    assert!(close(&per[raf]["precision"], 0.5) && close(&per[raf]["recall"], 1.0));
    assert!(close(&per["backtracks-on-fix"]["recall"], 0.0));
    assert!(per["backtracks-on-fix"].get("precision").is_none());
    let not_judged = h["not_judged"].to_string();
    assert!(
        not_judged.contains("silent/novel-worst/")
            && not_judged.contains("no normalized trajectory"),
        "{not_judged}"
    );
    assert!(
        not_judged.contains("ghost/novel-best/") && not_judged.contains("no such run"),
        "{not_judged}"
    );

    // A judge too slow for one run: that run fails, in one line; --force asks the other
    // runs of --only's instance again.
    let slow = judge(
        &["--force", "--only", &a, "--timeout", "2"],
        &[("JUDGE_SLEEP_FOR", e.clone())],
    );
    let err = String::from_utf8_lossy(&slow.stderr);
    assert_eq!(slow.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("error: {e}: the judge gave no answer within 2 s")),
        "{err}"
    );
    assert_eq!(
        calls(&calls_file),
        9,
        "three runs of instance A asked again"
    );

    // The report shows the behaviours found beside the runs.
    let page = tmp.path().join("report/index.html");
    succeeds(
        hunkgen()
            .arg("report")
            .arg(&data)
            .arg("--judgements")
            .arg(&runs)
            .arg("-o")
            .arg(&page),
    );
    let html = fs::read_to_string(&page).expect("page");
    assert!(html.contains("Agent behaviours") && html.contains("realizes-already-fixed"));
}

#[test]
fn another_keep_output_rewrites_the_trajectory_from_the_raw_log_without_running_the_agent_again() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (data, a, _) = dataset(tmp.path());
    let agents_dir = tmp.path().join("agents");
    fs::create_dir(&agents_dir).expect("mkdir");
    fs::write(agents_dir.join("agent.py"), AGENT).expect("agent");
    fs::write(
        agents_dir.join("agents.yaml"),
        "historian:\n  command: python3 {agents_dir}/agent.py historian {trajectory_file}\n  trajectory: normalized\n  timeout: 60\n",
    )
    .expect("agents");
    let runs = tmp.path().join("runs");
    let run = |keep: &str| {
        succeeds(
            hunkgen()
                .arg("run")
                .arg(&data)
                .arg("--agents")
                .arg(agents_dir.join("agents.yaml"))
                .args(["--agent", "historian", "--state", "resolved"])
                .args(["--scenario", "best", "--only", &a])
                .args(["--keep-output", keep, "-q", "--out"])
                .arg(&runs),
        );
    };
    let dir = runs.join("historian/resolved-best").join(&a);
    let record = || -> serde_json::Value {
        serde_json::from_str(&fs::read_to_string(dir.join("result.json")).expect("result"))
            .expect("json")
    };
    run("64");
    let first = record();
    assert_eq!(first["keep_output"], 64);
    let started = first["started_at"].clone();
    let cut = &lines(&dir.join("trajectory.jsonl"))[1];
    assert_eq!(cut["output_truncated"], 162, "{cut}");

    // Another bound: the same run (its start time and patch), its trajectory rewritten.
    run("8");
    let again = record();
    assert_eq!(again["started_at"], started, "the agent ran again: {again}");
    assert_eq!(again["keep_output"], 8);
    let steps = lines(&dir.join("trajectory.jsonl"));
    assert_eq!(
        steps.len() as u64,
        again["trajectory_steps"].as_u64().unwrap_or(0)
    );
    let cut = &steps[1];
    assert_eq!(cut["output"].as_str(), Some("the bug "), "{cut}");
    assert_eq!(cut["output_truncated"], 225 - 8, "{cut}");

    // The same bound again: nothing rewritten, nothing run.
    let before = fs::metadata(dir.join("trajectory.jsonl"))
        .and_then(|m| m.modified())
        .expect("mtime");
    run("8");
    assert_eq!(record()["started_at"], started);
    let after = fs::metadata(dir.join("trajectory.jsonl"))
        .and_then(|m| m.modified())
        .expect("mtime");
    assert_eq!(before, after, "rewritten although the bound is the same");
}
