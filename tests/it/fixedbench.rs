//! FixedBench's Partial states the paper's way, on the validated demo: a weaker agent
//! runs on Novel (`hunkgen run`), the next build keeps each instance's patch that applies
//! and leaves a golden test failing — verified by running the golden tests, recorded
//! with the failing tests — and rejects the rest with their reason; evaluation then
//! scores a prediction on exactly the Partial tree the agent saw (D1).

use crate::common::{hunkgen, succeeds, validation_env};
use crate::golden::{demo, rows};
use std::fs;
use std::path::{Path, PathBuf};

/// `hunkgen run DATASET --agents AGENTS --agent AGENT ARGS… -q --out OUT`, which must
/// succeed.
fn run_agent(dataset: &Path, agents: &Path, agent: &str, args: &[&str], out: &Path) {
    succeeds(
        hunkgen()
            .arg("run")
            .arg(dataset)
            .arg("--agents")
            .arg(agents)
            .args(["--agent", agent])
            .args(args)
            .args(["-q", "--out"])
            .arg(out)
            .envs(validation_env()),
    );
}

/// The demo's instance ids, in the dataset's order.
fn ids(dataset: &Path) -> Vec<String> {
    rows(dataset)
        .iter()
        .map(|v| v["instance_id"].as_str().expect("id").to_string())
        .collect()
}

/// A scripted weak agent (harness testing only): for the first id it applies the whole
/// golden patch (it resolves: no Partial), for the second it changes nothing (no
/// Partial), for every other it applies the golden patch's first hunk only and adds a
/// module the golden patch does not have, so its tree is no subset of the golden hunks.
fn weak_agent(dir: &Path, resolves: &str, idle: &str) -> PathBuf {
    let script = dir.join("weak.py");
    fs::write(
        &script,
        format!(
            r##"import os, subprocess, sys
golden = open(sys.argv[1], encoding="utf-8").read()
me = os.environ["HUNKGEN_INSTANCE_ID"]
if me == {idle:?}:
    sys.exit(0)
if me != {resolves:?}:
    lines = golden.splitlines(keepends=True)
    out, in_hunk = [], False
    for i, line in enumerate(lines):
        next_file = line.startswith("diff --git ") or (
            line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "))
        if in_hunk and (line.startswith("@@") or next_file):
            break
        in_hunk = in_hunk or line.startswith("@@")
        out.append(line)
    golden = "".join(out)
    with open("weak_note.py", "w") as f:
        f.write("# notes of a weak attempt\nATTEMPTED = True\n")
p = subprocess.run(["git", "apply", "-"], input=golden, text=True)
sys.exit(p.returncode)
"##
        ),
    )
    .expect("script");
    let agents = dir.join("agents.yaml");
    fs::write(
        &agents,
        "weak:\n  command: python3 {agents_dir}/weak.py {golden_patch}\n  oracle: true\n  timeout: 120\n",
    )
    .expect("agents");
    agents
}

fn manifest(dataset: &Path, id: &str, dir: &str) -> serde_norway::Value {
    let p = dataset
        .join("states")
        .join(id)
        .join(dir)
        .join("manifest.yaml");
    serde_norway::from_str(
        &fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
    )
    .expect("yaml")
}

/// The demo rebuilt with its Partial states from a scripted weak agent's run on Novel:
/// (its root, the dataset, the weak run's directory, the demo's ids in order).
struct WeakPartials {
    _tmp: tempfile::TempDir,
    out: PathBuf,
    run_dir: PathBuf,
    all: Vec<String>,
}

fn weak_partials() -> &'static WeakPartials {
    static ONCE: std::sync::OnceLock<WeakPartials> = std::sync::OnceLock::new();
    ONCE.get_or_init(|| {
        let demo = demo();
        let root = demo.parent().and_then(Path::parent).expect("demo root");
        let all = ids(demo);
        assert!(all.len() >= 4, "{all:?}");
        let tmp = tempfile::tempdir().expect("tempdir");
        let agents = weak_agent(tmp.path(), &all[0], &all[1]);
        let runs = tmp.path().join("runs");
        run_agent(demo, &agents, "weak", &["--state", "novel"], &runs);
        let run_dir = runs.join("weak/novel-best");
        // The same history and cache, a second recipe whose Partial states come from the
        // run.
        let recipe = root.join("recipes/fixedbench-partial.yaml");
        let text = fs::read_to_string(root.join("recipes/demo.yaml"))
            .expect("demo recipe")
            .replace("name: demo", "name: fixedbench-partial")
            .replace(
                "  kinds: [novel, partial, resolved]",
                &format!(
                    "  kinds: [novel, partial, resolved]\n  partial: {{from: run, run: {}}}",
                    run_dir.display()
                ),
            );
        assert!(text.contains("from: run"), "{text}");
        fs::write(&recipe, text).expect("recipe");
        let out = root.join("datasets/fixedbench-partial");
        succeeds(
            hunkgen()
                .args(["build", "-q"])
                .arg(&recipe)
                .arg("-o")
                .arg(&out)
                .envs(validation_env()),
        );
        WeakPartials {
            _tmp: tmp,
            out,
            run_dir,
            all,
        }
    })
}

#[test]
fn partial_from_a_weak_run_is_verified_recorded_and_scored_on_its_own_tree() {
    let fb = weak_partials();
    let (out, run_dir, all) = (&fb.out, &fb.run_dir, &fb.all);
    let (resolves, idle) = (all[0].clone(), all[1].clone());
    let tmp = tempfile::tempdir().expect("tempdir");
    let rows = rows(out);
    let row = |id: &str| {
        rows.iter()
            .find(|r| r["instance_id"] == id)
            .unwrap_or_else(|| panic!("{id}"))
    };
    // Rejected, each with its reason.
    let missing = |id: &str| row(id)["states"]["missing"].to_string();
    assert!(
        missing(&resolves).contains("every golden test (FAIL_TO_PASS and PASS_TO_PASS) passes"),
        "{}",
        missing(&resolves)
    );
    assert!(missing(&idle).contains("is empty"), "{}", missing(&idle));
    for id in [&resolves, &idle] {
        assert!(
            !out.join("states").join(id).join("partial-best").exists(),
            "{id}"
        );
    }
    // Kept: verified by running, with the tests it still fails and its own patch.
    let kept: Vec<&String> = all.iter().skip(2).collect();
    for id in &kept {
        let m = manifest(out, id, "partial-worst");
        assert_eq!(
            m["partial"]["strategy"].as_str(),
            Some("run"),
            "{id}: {m:?}"
        );
        assert_eq!(m["partial"]["agent"].as_str(), Some("weak"), "{id}");
        assert_eq!(m["hunks_applied"].as_sequence().map(Vec::len), Some(0));
        let v = &m["verification"];
        assert_eq!(v["golden_tests"].as_str(), Some("fail"), "{id}: {v:?}");
        let failing: Vec<&str> = v["failing_tests"]
            .as_sequence()
            .expect("failing_tests")
            .iter()
            .filter_map(|t| t.as_str())
            .collect();
        let f2p: Vec<&str> = row(id)["FAIL_TO_PASS"]
            .as_array()
            .expect("f2p")
            .iter()
            .filter_map(|t| t.as_str())
            .collect();
        assert!(!failing.is_empty(), "{id}");
        assert!(failing.iter().all(|t| f2p.contains(t)), "{id}: {failing:?}");
        let weak = fs::read(run_dir.join(id).join("model.patch")).expect("model.patch");
        for dir in ["partial-best", "partial-worst"] {
            let kept = fs::read(out.join("states").join(id).join(dir).join("partial.patch"))
                .expect("partial.patch");
            assert_eq!(kept, weak, "{id}/{dir}: the state holds the weak patch");
            assert!(
                out.join("states")
                    .join(id)
                    .join(dir)
                    .join("repo/weak_note.py")
                    .is_file(),
                "{id}/{dir}"
            );
        }
    }

    // D1: a prediction made on the Partial tree edits the weak module, which only that
    // tree has: it applies exactly there (on Novel it could not apply at all).
    let preds = tmp.path().join("preds.jsonl");
    let edit = "--- a/weak_note.py\n+++ b/weak_note.py\n@@ -1,2 +1,2 @@\n # notes of a weak attempt\n-ATTEMPTED = True\n+ATTEMPTED = False\n";
    let lines: String = kept
        .iter()
        .map(|id| {
            serde_json::json!({"instance_id": id, "model_name_or_path": "m", "model_patch": edit, "state": "partial"})
                .to_string()
                + "\n"
        })
        .collect();
    fs::write(&preds, lines).expect("preds");
    let eval = tmp.path().join("eval");
    succeeds(
        hunkgen()
            .arg("evaluate")
            .arg(out)
            .arg("--predictions")
            .arg(&preds)
            .arg("-q")
            .arg("--output")
            .arg(&eval)
            .envs(validation_env()),
    );
    let results = fs::read_to_string(eval.join("results.jsonl")).expect("results");
    let mut n = 0;
    for line in results.lines() {
        let r: serde_json::Value = serde_json::from_str(line).expect("row");
        assert_eq!(r["applied"], "exact", "{r}");
        assert_eq!(r["resolved"], false, "{r}");
        // A change to a new non-test module is an edit: no abstention.
        assert_eq!(r["abstained"], false, "{r}");
        assert!(r["failing_before"].as_u64().unwrap_or(0) >= 1, "{r}");
        n += 1;
    }
    assert_eq!(n, kept.len());

    // `hunkgen checkout` gives the dataset's own Partial tree, not a hunk subset.
    let target = tmp.path().join("checkout");
    succeeds(
        hunkgen()
            .arg("checkout")
            .arg(out)
            .arg(kept[0].as_str())
            .args(["--state", "partial", "--scenario", "worst"])
            .arg(&target),
    );
    assert!(target.join("weak_note.py").is_file());
}

#[test]
fn a_dataset_without_tests_is_scored_for_abstention_and_says_why_resolution_is_empty() {
    let root = tempfile::tempdir().expect("tempdir");
    let recipe = crate::common::demo_recipe(root.path());
    let mut text = fs::read_to_string(&recipe).expect("recipe");
    text.push_str("\nstates:\n  kinds: [novel, resolved]\n  scenarios: [worst]\n");
    fs::write(&recipe, text).expect("recipe");
    let out = root.path().join("datasets/demo");
    succeeds(hunkgen().args(["build", "-q"]).arg(&recipe));
    let n = ids(&out).len() as u64;
    let empty = root.path().join("empty");
    let printed = succeeds(
        hunkgen()
            .arg("evaluate")
            .arg(&out)
            .args(["--baseline", "empty", "-q", "--output"])
            .arg(&empty),
    );
    let s: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(empty.join("summary.json")).expect("summary"))
            .expect("json");
    let why = s["resolution_unavailable"].as_str().expect("a reason");
    assert!(why.contains("no `validate:` section"), "{why}");
    assert!(
        String::from_utf8_lossy(&printed.stdout).contains("Not scored:"),
        "the table says so"
    );
    // Abstention is scored: the empty patch abstains everywhere, rightly on Resolved.
    let rate = |v: &serde_json::Value| crate::evaluate::rate(v);
    assert_eq!(
        rate(&s["by_state"]["resolved"]["correct_abstention"]),
        (n, n)
    );
    assert_eq!(rate(&s["by_state"]["novel"]["correct_abstention"]), (0, n));
    // Resolution is empty, never a zero.
    for group in [&s["overall"], &s["by_state"]["novel"]] {
        assert!(group["resolution"].is_null(), "{group}");
        assert!(group["compilation"].is_null(), "{group}");
    }
    // A weak run inside the dataset a build replaces is refused in one line.
    let inside = out.join("runs/weak/novel-best");
    fs::create_dir_all(&inside).expect("mkdir");
    let text = fs::read_to_string(&recipe).expect("recipe").replace(
        "  kinds: [novel, resolved]",
        &format!(
            "  kinds: [novel, partial, resolved]\n  partial: {{from: run, run: {}}}",
            inside.display()
        ),
    );
    let inside_recipe = root.path().join("recipes/inside.yaml");
    fs::write(&inside_recipe, text).expect("recipe");
    let refused = hunkgen()
        .args(["build", "-q"])
        .arg(&inside_recipe)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{err}");
    assert!(
        err.contains("is inside") && err.contains("--out DIR"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        out.join("instances.jsonl").is_file(),
        "the dataset is untouched"
    );
    // `--only` scores the chosen instances' predictions alone; an unknown one is one line.
    let first = ids(&out)[0].clone();
    let only = root.path().join("only");
    succeeds(
        hunkgen()
            .arg("evaluate")
            .arg(&out)
            .args(["--baseline", "empty", "-q", "--only", &first, "--output"])
            .arg(&only),
    );
    let s: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(only.join("summary.json")).expect("summary"))
            .expect("json");
    assert_eq!(s["predictions"], 3, "{s}");
    let bad = hunkgen()
        .arg("evaluate")
        .arg(&out)
        .args(["--baseline", "empty", "-q", "--only", "nope"])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(1), "{err}");
    assert!(err.contains("no instance `nope` (--only)"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // The golden patch on Novel: applied exactly, not an abstention.
    let gold = root.path().join("gold");
    succeeds(
        hunkgen()
            .arg("evaluate")
            .arg(&out)
            .args(["--baseline", "gold", "-q", "--output"])
            .arg(&gold),
    );
    let results = fs::read_to_string(gold.join("results.jsonl")).expect("results");
    for line in results.lines() {
        let r: serde_json::Value = serde_json::from_str(line).expect("row");
        assert_eq!(r["applied"], "exact", "{r}");
        assert_eq!(r["abstained"], false, "{r}");
        assert!(r.get("resolution").is_none(), "{r}");
    }
}

#[test]
fn best_runs_get_the_environment_validation_built_and_worst_runs_do_not() {
    let demo = demo();
    // One instance whose golden tests are pytest's, one whose are JUnit's.
    let rows = rows(demo);
    let with = |python: bool| {
        rows.iter()
            .find(|r| {
                r["FAIL_TO_PASS"]
                    .as_array()
                    .expect("f2p")
                    .iter()
                    .all(|t| t.as_str().unwrap_or("").contains(".py::") == python)
            })
            .and_then(|r| r["instance_id"].as_str())
            .expect("an instance")
            .to_string()
    };
    let (py, java) = (with(true), with(false));
    let tmp = tempfile::tempdir().expect("tempdir");
    fs::write(
        tmp.path().join("env.sh"),
        "echo \"venv=${VIRTUAL_ENV:-none}\"\n\
         echo \"classpath=${CLASSPATH:-none}\"\n\
         echo \"prefix=$(python -c 'import sys; print(sys.prefix)' 2>/dev/null || echo none)\"\n\
         echo \"pytest=$(python -c 'import pytest; print(pytest.__version__)' 2>/dev/null || echo none)\"\n\
         echo \"git=$(test -d .git && echo yes || echo no)\"\n",
    )
    .expect("script");
    let agents = tmp.path().join("agents.yaml");
    fs::write(
        &agents,
        "env:\n  command: sh {agents_dir}/env.sh\n  timeout: 60\n",
    )
    .expect("agents");
    let runs = tmp.path().join("runs");
    // (scenario, instance) → (stdout, result.json)
    let mut seen = std::collections::BTreeMap::new();
    for scenario in ["best", "worst"] {
        let only = format!("{py},{java}");
        let args = ["--state", "novel", "--scenario", scenario, "--only", &only];
        run_agent(demo, &agents, "env", &args, &runs);
        for id in [&py, &java] {
            let dir = runs.join("env").join(format!("novel-{scenario}")).join(id);
            let out = fs::read_to_string(dir.join("stdout.log")).expect("stdout");
            let result: serde_json::Value =
                serde_json::from_str(&fs::read_to_string(dir.join("result.json")).expect("result"))
                    .expect("json");
            seen.insert((scenario, id.clone()), (out, result));
        }
    }
    // Best: the venv validation built for the instance, its interpreter first on PATH
    // with the pinned pytest, and the history.
    let (best, best_result) = &seen[&("best", py.clone())];
    let venv = best
        .lines()
        .find_map(|l| l.strip_prefix("venv="))
        .expect("venv line");
    assert_ne!(venv, "none", "{best}");
    assert!(best.contains(&format!("prefix={venv}")), "{best}");
    assert!(best.contains("pytest=9.2.0"), "{best}");
    assert!(best.contains("git=yes"), "{best}");
    let had = best_result["had"].to_string();
    assert!(
        had.contains("history") && had.contains("python venv"),
        "{had}"
    );
    // The Java instance's suite: its class path.
    let (best, best_result) = &seen[&("best", java.clone())];
    assert!(
        best.contains("junit-platform-console-standalone.jar"),
        "{best}"
    );
    assert!(best_result["had"].to_string().contains("CLASSPATH"));
    // Worst: neither history nor environment.
    for id in [&py, &java] {
        let (worst, worst_result) = &seen[&("worst", id.clone())];
        assert!(
            worst.contains("venv=none") && worst.contains("classpath=none"),
            "{worst}"
        );
        assert!(worst.contains("git=no"), "{worst}");
        assert!(worst_result.get("had").is_none(), "{worst_result}");
    }
}

/// FixedBench's protocol end to end on a validated Python + Java history: Novel, an
/// agent-made Partial and Resolved, × Best/Worst × the four instructions, with three
/// scripted agents (one always edits code, one abstains, one applies the golden patch);
/// every cell of the report's FixedBench table equals the value the agents' behaviour
/// gives by hand.
#[test]
fn the_fixedbench_table_of_three_scripted_agents_equals_the_hand_computed_one() {
    let fb = weak_partials();
    let rows = rows(&fb.out);
    // Two instances with a Partial state: one with pytest golden tests, another with
    // JUnit ones.
    let with_partial: Vec<&serde_json::Value> = rows
        .iter()
        .filter(|r| r["states"]["written"].to_string().contains("partial-best"))
        .collect();
    let runs_in = |r: &serde_json::Value, python: bool| {
        r["FAIL_TO_PASS"]
            .as_array()
            .expect("f2p")
            .iter()
            .any(|t| t.as_str().unwrap_or("").contains(".py::") == python)
    };
    let id_of = |r: &serde_json::Value| r["instance_id"].as_str().expect("id").to_string();
    let py = with_partial
        .iter()
        .find(|r| runs_in(r, true))
        .map(|r| id_of(r))
        .expect("a Python instance");
    let java = with_partial
        .iter()
        .find(|r| id_of(r) != py && runs_in(r, false))
        .map(|r| id_of(r))
        .expect("a Java instance");
    let ids = vec![py, java];
    let n = ids.len() as u64;
    let tmp = tempfile::tempdir().expect("tempdir");
    let agents_dir = tmp.path().join("agents");
    fs::create_dir(&agents_dir).expect("mkdir");
    fs::copy(
        crate::common::manifest().join("demo/agents/oracle.py"),
        agents_dir.join("oracle.py"),
    )
    .expect("oracle");
    fs::write(
        agents_dir.join("edit.sh"),
        "printf 'TOUCHED = 1\\n' > hunkgen_touch.py\n",
    )
    .expect("edit");
    let agents = agents_dir.join("agents.yaml");
    fs::write(
        &agents,
        "edits:\n  command: sh {agents_dir}/edit.sh\n  timeout: 60\n\
         abstains:\n  command: 'true'\n  timeout: 60\n\
         golden:\n  command: python3 {agents_dir}/oracle.py {golden_patch} {trajectory_file}\n  trajectory: normalized\n  oracle: true\n  timeout: 120\n",
    )
    .expect("agents");
    let runs = tmp.path().join("runs");
    let agent_names = ["edits", "abstains", "golden"];
    let states = ["novel", "partial", "resolved"];
    let scenarios = ["best", "worst"];
    let instructions = ["issue", "edit", "reproduce", "abstain-or-fix"];
    let only = ids.join(",");
    for agent in agent_names {
        let mut preds = String::new();
        for state in states {
            for sc in scenarios {
                for instr in instructions {
                    let args = [
                        "--state",
                        state,
                        "--scenario",
                        sc,
                        "--prompt-variant",
                        instr,
                        "--only",
                        &only,
                    ];
                    run_agent(&fb.out, &agents, agent, &args, &runs);
                    let dir = runs.join(agent).join(format!("{state}-{sc}"));
                    for id in &ids {
                        let prompt =
                            fs::read_to_string(dir.join(id).join("prompt.md")).expect("prompt");
                        let row = rows.iter().find(|r| r["instance_id"] == id.as_str());
                        let task = row.and_then(|r| r["problem_statement"].as_str());
                        if instr == "issue" {
                            assert_eq!(Some(prompt.as_str()), task, "{agent} {state} {sc}");
                        }
                    }
                    preds.push_str(
                        &fs::read_to_string(dir.join("predictions.jsonl")).expect("predictions"),
                    );
                }
            }
        }
        let file = tmp.path().join(format!("{agent}.jsonl"));
        fs::write(&file, preds).expect("predictions");
        succeeds(
            hunkgen()
                .arg("evaluate")
                .arg(&fb.out)
                .arg("--predictions")
                .arg(&file)
                .args(["-q", "--output"])
                .arg(tmp.path().join("evals").join(agent))
                .envs(validation_env()),
        );
    }
    let page = tmp.path().join("report/index.html");
    let mut report = hunkgen();
    report.arg("report").arg(&fb.out);
    // Thinking effort, as the paper correlates it with abstention (the scripted agents
    // stand in for one model at three efforts).
    report.args([
        "--effort",
        "abstains=1",
        "--effort",
        "edits=2",
        "--effort",
        "golden=3",
    ]);
    for agent in agent_names {
        report
            .arg("--results")
            .arg(tmp.path().join("evals").join(agent));
    }
    succeeds(report.arg("-o").arg(&page));
    let table: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(tmp.path().join("report/fixedbench.json")).expect("fixedbench.json"),
    )
    .expect("json");
    // Spearman's ρ between effort and abstention, by hand. Each system has 16
    // predictions per task (2 instances × 2 scenarios × 4 instructions); effort ranks are
    // 8.5, 24.5, 40.5 by system. Novel and Partial: only `abstains` abstains, abstention
    // ranks 40.5 vs 16.5: Σdxdy = 16·(−16·16 − 16·8) = −6144, Σdx² = 8192, Σdy² = 6144,
    // ρ = −√3/2. Resolved: `abstains` and `golden` abstain, `edits` does not: Σdxdy = 0.
    let effort = table["effort"].as_array().expect("effort rows");
    let rho_of = |task: &str| {
        effort
            .iter()
            .find(|c| c["task"] == task)
            .and_then(|c| c["rho"].as_f64())
            .unwrap_or_else(|| panic!("no ρ for {task}: {effort:?}"))
    };
    for task in ["novel", "partial"] {
        assert!(
            (rho_of(task) + 3f64.sqrt() / 2.0).abs() < 1e-9,
            "{task}: {effort:?}"
        );
    }
    assert!(rho_of("resolved").abs() < 1e-12, "{effort:?}");
    assert!(effort.iter().all(|c| c["n"] == 48), "{effort:?}");
    // Systems in name order: abstains, edits, golden.
    let systems: Vec<&str> = table["systems"]
        .as_array()
        .expect("systems")
        .iter()
        .filter_map(|s| s.as_str())
        .collect();
    assert_eq!(systems, ["abstains", "edits", "golden"]);
    // By hand, from what each agent does (k of n per cell):
    // - abstains changes nothing: it abstains everywhere and resolves only Resolved;
    // - edits adds a code module: it never abstains and resolves only Resolved (the
    //   module breaks no test, and fixes nothing);
    // - golden applies the golden patch hunk by hunk: on Novel and Partial (whose weak
    //   patch already holds the first hunk) it resolves; on Resolved nothing applies, so
    //   it abstains, rightly, and every golden test passes.
    let expected = |system: &str, task: &str| -> ((u64, u64), (u64, u64)) {
        let all = (n, n);
        let none = (0, n);
        match (system, task) {
            ("abstains", "resolved") => (all, all),
            ("abstains", _) => (all, none),
            ("edits", "resolved") => (none, all),
            ("edits", _) => (none, none),
            ("golden", "resolved") => (all, all),
            ("golden", _) => (none, all),
            _ => unreachable!(),
        }
    };
    let kn = |r: &serde_json::Value| (r["k"].as_u64().expect("k"), r["n"].as_u64().expect("n"));
    let table_rows = table["rows"].as_array().expect("rows");
    assert_eq!(
        table_rows.len(),
        states.len() * scenarios.len() * instructions.len()
    );
    let mut i = 0;
    for task in states {
        for sc in scenarios {
            for instr in instructions {
                let row = &table_rows[i];
                i += 1;
                assert_eq!(
                    (
                        row["task"].as_str(),
                        row["scenario"].as_str(),
                        row["instruction"].as_str()
                    ),
                    (Some(task), Some(sc), Some(instr))
                );
                for (s, system) in systems.iter().enumerate() {
                    let cell = &row["cells"][s];
                    let (abs, res) = expected(system, task);
                    assert_eq!(kn(&cell["abstention"]), abs, "{system} {task} {sc} {instr}");
                    assert_eq!(kn(&cell["resolution"]), res, "{system} {task} {sc} {instr}");
                }
            }
        }
    }
    // The Partial control: Novel resolution of the same instances.
    let control = table["partial_control"].as_array().expect("control");
    assert_eq!(control.len(), scenarios.len() * instructions.len());
    for row in control {
        let cells: Vec<(u64, u64)> = row["cells"]
            .as_array()
            .expect("cells")
            .iter()
            .map(kn)
            .collect();
        assert_eq!(cells, [(0, n), (0, n), (n, n)], "{row}");
    }
    let md = fs::read_to_string(tmp.path().join("report/fixedbench.md")).expect("md");
    assert!(md.contains("abstains Abs."), "{md}");
    let html = fs::read_to_string(&page).expect("page");
    assert!(html.contains("FixedBench: abstention and resolution"));
}

/// `hunkgen run --attempts 3` with a scripted agent that applies the golden patch on its
/// second attempt only: per instance n = 3, c = 1, so pass@1 = 1/3, pass@2 = 2/3,
/// pass@3 = 1; resolved within 1, 2, 3 attempts: 0, 1, 1; per attempt 0, 1, 0 (mean 1/3,
/// sd sqrt(1/3)); a second prediction for the same attempt stays a duplicate.
#[test]
fn repeated_attempts_give_pass_at_k_by_the_unbiased_estimator() {
    let demo = demo();
    let id = ids(demo)[0].clone();
    let tmp = tempfile::tempdir().expect("tempdir");
    fs::copy(
        crate::common::manifest().join("demo/agents/oracle.py"),
        tmp.path().join("oracle.py"),
    )
    .expect("oracle");
    fs::write(
        tmp.path().join("second.sh"),
        "[ \"$HUNKGEN_ATTEMPT\" = 2 ] && exec python3 \"$1\" \"$2\" \"$3\"\nexit 0\n",
    )
    .expect("agent");
    let agents = tmp.path().join("agents.yaml");
    fs::write(
        &agents,
        "second:\n  command: sh {agents_dir}/second.sh {agents_dir}/oracle.py {golden_patch} {trajectory_file}\n  oracle: true\n  timeout: 120\n",
    )
    .expect("agents");
    let runs = tmp.path().join("runs");
    let args = ["--state", "novel", "--attempts", "3", "--only", &id];
    run_agent(demo, &agents, "second", &args, &runs);
    let dir = runs.join("second/novel-best");
    assert!(dir
        .join("attempt-3")
        .join(&id)
        .join("result.json")
        .is_file());
    let preds = dir.join("predictions.jsonl");
    let text = fs::read_to_string(&preds).expect("predictions");
    assert_eq!(text.lines().count(), 3, "{text}");
    // One more copy of attempt 2: a duplicate, not a fourth attempt.
    let dup = text.lines().nth(1).expect("attempt 2").to_string();
    fs::write(&preds, format!("{text}{dup}\n")).expect("dup");
    let out = tmp.path().join("eval");
    succeeds(
        hunkgen()
            .arg("evaluate")
            .arg(demo)
            .arg("--predictions")
            .arg(&preds)
            .args(["-q", "--output"])
            .arg(&out)
            .envs(validation_env()),
    );
    let s: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("summary.json")).expect("summary"))
            .expect("json");
    assert_eq!(s["problems"], 1, "{s}");
    let a = &s["attempts"][0];
    let v = |k: &str| -> Vec<f64> {
        a[k].as_array()
            .expect(k)
            .iter()
            .filter_map(|x| x.as_f64())
            .collect()
    };
    let close = |x: &[f64], y: &[f64]| {
        x.len() == y.len() && x.iter().zip(y).all(|(a, b)| (a - b).abs() < 1e-9)
    };
    assert!(close(&v("pass_at_k"), &[1.0 / 3.0, 2.0 / 3.0, 1.0]), "{a}");
    assert!(close(&v("resolved_within"), &[0.0, 1.0, 1.0]), "{a}");
    assert!(close(&v("per_attempt"), &[0.0, 1.0, 0.0]), "{a}");
    assert!((a["mean"].as_f64().expect("mean") - 1.0 / 3.0).abs() < 1e-9);
    assert!((a["sd"].as_f64().expect("sd") - (1.0f64 / 3.0).sqrt()).abs() < 1e-9);
    assert_eq!(a["instances"], 1);
}

/// A weak patch is a Partial state exactly when evaluation would score it unresolved: one
/// that makes the failing test pass but breaks a passing one (PASS_TO_PASS) is an
/// incorrect patch and is kept, with the broken test as what it fails; one with which
/// every golden test passes is refused, saying so.
#[test]
fn a_weak_patch_that_breaks_a_passing_test_is_a_partial_state() {
    let mut s = crate::common::Script::new();
    let ops = |double: &str, half: &str| {
        format!("def double(x):\n    return {double}\n\n\ndef half(x):\n    return {half}\n")
    };
    s.write("pkg/__init__.py", "");
    s.write("pkg/ops.py", &ops("x + x + 1", "x // 2"));
    let half_test =
        "from pkg.ops import double, half\n\n\ndef test_half():\n    assert half(8) == 4\n";
    s.write("tests/test_ops.py", half_test);
    s.commit("Add ops");
    s.write("pkg/ops.py", &ops("x + x", "x // 2"));
    s.write(
        "tests/test_ops.py",
        &format!("{half_test}\n\ndef test_double():\n    assert double(3) == 6\n"),
    );
    s.commit("Fix double adding one");
    // Weak patches made against the buggy version.
    s.git(&["checkout", "-q", "HEAD~1"]);
    let weak = |double: &str, half: &str| {
        s.write("pkg/ops.py", &ops(double, half));
        let p = s.git_bytes(&["diff"]);
        s.git(&["checkout", "-q", "--", "."]);
        p
    };
    let breaks = weak("x + x", "x // 3");
    let resolves = weak("2 * x", "x // 2");
    s.git(&["checkout", "-q", "main"]);
    let dir = tempfile::tempdir().expect("tempdir");
    let recipe = |partial: &str| {
        let r = dir.path().join("r.yaml");
        fs::write(
            &r,
            crate::golden::pytest_recipe(
                "ops",
                &s.dir,
                "min_code_hunks: 1\n",
                "",
                &format!(
                    "states:\n  kinds: [novel, partial, resolved]\n  scenarios: [worst]\n{partial}"
                ),
            ),
        )
        .expect("recipe");
        succeeds(
            hunkgen()
                .args(["build", "-q"])
                .arg(&r)
                .envs(validation_env()),
        );
        rows(&dir.path().join("out"))
    };
    let first = recipe("");
    assert_eq!(first.len(), 1, "{first:?}");
    let id = first[0]["instance_id"].as_str().expect("id").to_string();
    assert_eq!(
        first[0]["PASS_TO_PASS"],
        serde_json::json!(["tests/test_ops.py::test_half"])
    );
    let patches = dir.path().join("patches");
    fs::create_dir(&patches).expect("mkdir");
    let partial = format!("  partial: {{from: patches, dir: {}}}\n", patches.display());
    fs::write(patches.join(format!("{id}.patch")), &breaks).expect("patch");
    let kept = recipe(&partial);
    let m = manifest(&dir.path().join("out"), &id, "partial-worst");
    assert_eq!(
        m["verification"]["failing_tests"],
        serde_norway::Value::from(vec!["tests/test_ops.py::test_half"]),
        "{m:?}"
    );
    assert!(
        kept[0]["states"]["missing"].is_null(),
        "{:?}",
        kept[0]["states"]
    );
    fs::write(patches.join(format!("{id}.patch")), &resolves).expect("patch");
    let refused = recipe(&partial);
    let missing = refused[0]["states"]["missing"].to_string();
    assert!(
        missing.contains("every golden test (FAIL_TO_PASS and PASS_TO_PASS) passes"),
        "{missing}"
    );
}
