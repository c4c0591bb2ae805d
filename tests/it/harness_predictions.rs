//! `hunkgen export --format swebench-predictions`: patches an agent made on Partial
//! states, written so the official harness scores them unchanged. The harness applies a
//! prediction to the row's base commit with `git apply`; applied that way to the Novel
//! tree (the base), each exported patch must give exactly the tree the agent left on its
//! Partial state, and the official package must read the file.

use crate::common::{git, hunkgen, succeeds, validation_env, venv_python};
use crate::golden::{demo, rows};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

/// `hunkgen checkout --scenario worst` of one state into `dir`.
fn checkout(id: &str, state: &str, dir: &Path) {
    succeeds(
        hunkgen()
            .arg("checkout")
            .arg(demo())
            .arg(id)
            .arg(dir)
            .args(["--state", state, "--scenario", "worst"])
            .envs(validation_env()),
    );
}

/// Every file under `dir` but `.git`, by relative path.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).expect("read_dir") {
            let p = e.expect("entry").path();
            if p.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p
                    .strip_prefix(dir)
                    .expect("inside")
                    .to_string_lossy()
                    .into_owned();
                out.insert(rel, fs::read(&p).expect("read"));
            }
        }
    }
    out
}

/// `dir` as a git repository with one commit of everything in it.
fn commit_all(dir: &Path) {
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "state"]);
}

#[test]
fn exported_partial_predictions_give_the_agents_tree_when_the_harness_applies_them() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let instances = rows(demo());
    let mut preds = Vec::new();
    let mut expected = BTreeMap::new();
    for inst in instances.iter().take(3) {
        let id = inst["instance_id"].as_str().expect("id");
        let state = tmp.path().join(format!("{id}-partial"));
        checkout(id, "partial", &state);
        // The agent edits a file the fix touches (on top of the state's change) and adds
        // one.
        commit_all(&state);
        let patch = inst["patch"].as_str().expect("patch");
        let file = patch
            .lines()
            .find_map(|l| l.strip_prefix("+++ b/"))
            .expect("a patched file");
        let mut text = fs::read(state.join(file)).expect("read");
        text.extend_from_slice(b"\n# the agent was here\n");
        fs::write(state.join(file), text).expect("write");
        fs::write(state.join("AGENT_NOTES.md"), "checked the partial fix\n").expect("write");
        git(&state, &["add", "-N", "AGENT_NOTES.md"]);
        let agent_patch = String::from_utf8(git(&state, &["diff"])).expect("utf8");
        assert!(agent_patch.contains("the agent was here"));
        expected.insert(id.to_string(), files(&state));
        preds.push(serde_json::json!({
            "instance_id": id, "model_name_or_path": "agent", "model_patch": agent_patch,
            "state": "partial",
        }));
    }
    // A row made on another state is left out.
    preds.push(serde_json::json!({
        "instance_id": instances[0]["instance_id"], "model_name_or_path": "agent",
        "model_patch": "", "state": "resolved",
    }));
    let pred_file = tmp.path().join("preds.jsonl");
    let text: Vec<String> = preds.iter().map(|p| p.to_string()).collect();
    fs::write(&pred_file, text.join("\n") + "\n").expect("write");
    let out_file = tmp.path().join("harness.jsonl");
    let out = succeeds(
        hunkgen()
            .arg("export")
            .arg(demo())
            .args(["--format", "swebench-predictions", "--state", "partial"])
            .arg("--predictions")
            .arg(&pred_file)
            .arg("--out")
            .arg(&out_file)
            .envs(validation_env()),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("1 prediction(s) made on another state left out"),
        "{stderr}"
    );
    let exported: Vec<serde_json::Value> = fs::read_to_string(&out_file)
        .expect("export")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(exported.len(), expected.len());
    for row in &exported {
        let id = row["instance_id"].as_str().expect("id");
        // The harness: the base commit's tree, then `git apply -v` of model_patch.
        let base = tmp.path().join(format!("{id}-harness"));
        checkout(id, "novel", &base);
        commit_all(&base);
        let mut apply = Command::new("git")
            .current_dir(&base)
            .args(["apply", "-v", "-"])
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("git apply");
        {
            use std::io::Write;
            let patch = row["model_patch"].as_str().expect("model_patch");
            apply
                .stdin
                .take()
                .expect("stdin")
                .write_all(patch.as_bytes())
                .expect("write");
        }
        let done = apply.wait_with_output().expect("git apply");
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
        assert_eq!(
            files(&base),
            expected[id],
            "{id}: the harness's tree differs"
        );
        assert_eq!(row["model_name_or_path"], "agent");
    }
    // The official package reads the file as its predictions.
    let read = Command::new(venv_python("venv-swebench"))
        .arg("-c")
        .arg(
            "import json,sys\n\
             from swebench.harness.utils import get_predictions_from_file as g\n\
             p = g(sys.argv[1], 'unused', 'test')\n\
             print(json.dumps(sorted(r['instance_id'] for r in p)))",
        )
        .arg(&out_file)
        .output()
        .expect("python");
    assert!(
        read.status.success(),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
    let ids: Vec<String> = serde_json::from_slice(&read.stdout).expect("json");
    let mut want: Vec<String> = expected.keys().cloned().collect();
    want.sort();
    assert_eq!(ids, want);
}

#[test]
fn novel_predictions_are_exported_verbatim_and_bad_arguments_get_one_line() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let instances = rows(demo());
    let id = instances[0]["instance_id"].as_str().expect("id");
    let patch = instances[0]["patch"].as_str().expect("patch");
    let pred_file = tmp.path().join("preds.jsonl");
    fs::write(
        &pred_file,
        serde_json::json!({"instance_id": id, "model_name_or_path": "gold", "model_patch": patch})
            .to_string(),
    )
    .expect("write");
    // The Novel state's export of those predictions to `out`.
    let export_novel = |out: &std::ffi::OsStr| {
        succeeds(
            hunkgen()
                .arg("export")
                .arg(demo())
                .args([
                    "--format",
                    "swebench-predictions",
                    "--state",
                    "novel",
                    "--out",
                ])
                .arg(out)
                .arg("--predictions")
                .arg(&pred_file),
        )
    };
    let out = export_novel("-".as_ref());
    let row: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(row["model_patch"].as_str(), Some(patch));
    // An output named *.json is one JSON list, which is how the harness reads a .json
    // predictions file.
    let listed = tmp.path().join("harness.json");
    export_novel(listed.as_os_str());
    let list: Vec<serde_json::Value> =
        serde_json::from_str(&fs::read_to_string(&listed).expect("read")).expect("a JSON list");
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["model_patch"].as_str(), Some(patch));
    // Without --state: one line from the argument parser, non-zero.
    let bad = hunkgen()
        .arg("export")
        .arg(demo())
        .args(["--format", "swebench-predictions", "--predictions"])
        .arg(&pred_file)
        .output()
        .expect("runs");
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--state"));
}

/// The harness's report of one instance, written by the official package's own
/// `get_eval_report` from a test log (pytest's `-rA` output between the harness's
/// markers), with the instance's lists.
fn official_report(dir: &Path, inst: &serde_json::Value, model_patch: &str, log: &str) {
    let id = inst["instance_id"].as_str().expect("id");
    let inst_dir = dir.join(id);
    fs::create_dir_all(&inst_dir).expect("mkdir");
    let log_path = inst_dir.join("test_output.txt");
    fs::write(
        &log_path,
        format!(">>>>> Start Test Output\n{log}\n>>>>> End Test Output\n"),
    )
    .expect("write");
    let script = "import json, sys\n\
        from swebench.harness.grading import get_eval_report\n\
        from swebench.types import TestSpec\n\
        a = json.loads(sys.argv[1])\n\
        spec = TestSpec(instance_id=a['id'], image='none', eval_script_list=[], repo='acme/demo',\n\
            version='0', FAIL_TO_PASS=a['f2p'], PASS_TO_PASS=a['p2p'],\n\
            log_parser='parse_log_pytest', eval_type='pass_and_fail')\n\
        pred = {'instance_id': a['id'], 'model_name_or_path': 'm', 'model_patch': a['patch']}\n\
        print(json.dumps(get_eval_report(spec, pred, a['log'], include_tests_status=True)))";
    let arg = serde_json::json!({
        "id": id, "f2p": inst["FAIL_TO_PASS"], "p2p": inst["PASS_TO_PASS"],
        "patch": model_patch, "log": log_path,
    });
    let out = Command::new(venv_python("venv-swebench"))
        .arg("-c")
        .arg(script)
        .arg(arg.to_string())
        .output()
        .expect("python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    fs::write(inst_dir.join("report.json"), &out.stdout).expect("write");
}

/// results.jsonl of an evaluation, its Novel rows by instance id.
fn results(dir: &Path) -> BTreeMap<String, serde_json::Value> {
    fs::read_to_string(dir.join("results.jsonl"))
        .expect("results")
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json"))
        .filter(|v| v["state"] == "novel")
        .map(|v| (v["instance_id"].as_str().expect("id").to_string(), v))
        .collect()
}

#[test]
fn harness_reports_score_as_the_native_evaluation_of_the_same_runs() {
    use crate::evaluate::evaluate_dataset;
    let tmp = tempfile::tempdir().expect("tempdir");
    // The demo's instances tested by pytest alone: their logs are what the harness's
    // pytest parser reads.
    let pytest_only = |list: &serde_json::Value| {
        list.as_array().is_some_and(|t| {
            t.iter()
                .all(|t| t.as_str().is_some_and(|t| t.contains(".py::")))
        })
    };
    let instances: Vec<serde_json::Value> = rows(demo())
        .into_iter()
        .filter(|i| pytest_only(&i["FAIL_TO_PASS"]) && pytest_only(&i["PASS_TO_PASS"]))
        .collect();
    assert!(!instances.is_empty());
    let only: Vec<&str> = instances
        .iter()
        .map(|i| i["instance_id"].as_str().expect("id"))
        .collect();
    let only = only.join(",");
    for baseline in ["gold", "empty", "partial"] {
        let native = tmp.path().join(format!("native-{baseline}"));
        let native_summary =
            evaluate_dataset(demo(), &["--baseline", baseline, "--only", &only], &native);
        let preds = results(&native);
        // The harness's run of the same predictions: the same test output, graded by
        // the official code.
        let harness = tmp.path().join(format!("harness-{baseline}"));
        let file = demo().join(format!("evaluations/baseline-{baseline}.jsonl"));
        let patches: BTreeMap<String, String> = fs::read_to_string(&file)
            .expect("predictions")
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json"))
            .filter(|v| v["state"].as_str().is_none_or(|s| s == "novel"))
            .map(|v| {
                (
                    v["instance_id"].as_str().expect("id").to_string(),
                    v["model_patch"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        for inst in &instances {
            let id = inst["instance_id"].as_str().expect("id");
            let logs = native.join("logs").join(id);
            let after = logs.join("eval-novel-python-0.log");
            let log = fs::read_to_string(if after.exists() {
                after
            } else {
                logs.join("eval-novel-before-python-0.log")
            })
            .unwrap_or_else(|e| {
                let list: Vec<_> = fs::read_dir(&logs)
                    .map(|d| d.flatten().map(|e| e.file_name()).collect())
                    .unwrap_or_default();
                panic!("{baseline} {id}: {e}: {} holds {list:?}", logs.display())
            });
            official_report(&harness, inst, &patches[id], &log);
        }
        let scored = tmp.path().join(format!("scored-{baseline}"));
        let summary = evaluate_dataset(
            demo(),
            &[
                "--baseline",
                baseline,
                "--only",
                &only,
                "--harness-report",
                harness.to_str().expect("utf8"),
            ],
            &scored,
        );
        let got = results(&scored);
        for (id, want) in &preds {
            for field in [
                "resolved",
                "resolution",
                "abstained",
                "abstention_correct",
                "applied",
            ] {
                assert_eq!(got[id][field], want[field], "{baseline} {id} {field}");
            }
            assert!(got[id].get("problems").is_none(), "{:?}", got[id]);
        }
        assert_eq!(
            summary["by_state"]["novel"]["resolution"],
            native_summary["by_state"]["novel"]["resolution"],
            "{baseline}"
        );
    }
    // No report: an infrastructure row; the harness's apply failure: a failed
    // application, never a resolution.
    let id = instances[0]["instance_id"].as_str().expect("id");
    let missing = tmp.path().join("harness-missing");
    fs::create_dir_all(missing.join(id)).expect("mkdir");
    let gold_from_missing = |out: &str| {
        let out = tmp.path().join(out);
        let dir = missing.to_str().expect("utf8");
        evaluate_dataset(
            demo(),
            &["--baseline", "gold", "--only", id, "--harness-report", dir],
            &out,
        );
        results(&out).remove(id).expect("the row")
    };
    let row = gold_from_missing("scored-missing");
    let infra = row["infra"].as_str().unwrap_or_default();
    assert!(infra.contains("no harness report"), "{row}");
    fs::write(
        missing.join(id).join("run_instance.log"),
        "... >>>>> Patch Apply Failed\n",
    )
    .expect("write");
    let row = gold_from_missing("scored-unapplied");
    assert_eq!(row["applied"], "failed");
    assert_eq!(row["resolved"], false);
}
