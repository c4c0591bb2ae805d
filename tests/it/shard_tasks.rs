//! `hunkgen evaluate --shard` and `hunkgen run --shard` on the validated demo, and
//! `hunkgen merge` of their shards: 4 evaluation shards merged are byte for byte one
//! evaluation (results.jsonl, summary.json, logs/); run shards merged give the one-machine
//! predictions.jsonl byte for byte and the same per-instance material up to the paths and
//! timings it records; merge refuses missing, partial and foreign shards and mixed kinds.

use crate::common::{hunkgen, manifest, validation_env};
use crate::shard::{kill_midway, merge, refused, tree};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A private copy of the shared validated demo (shards write under the dataset), whose
/// recipe keeps test results in a cache of its own: other tests evaluating the same
/// patches on the shared demo would otherwise replace cache entries (and the test logs
/// they hold) between this test's runs.
fn demo_copy(root: &Path) -> PathBuf {
    let to = root.join("demo");
    let o = Command::new("cp")
        .arg("-a")
        .arg(crate::golden::demo())
        .arg(&to)
        .output()
        .expect("cp");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let card = to.join("dataset.yaml");
    let text = fs::read_to_string(&card).expect("card");
    let shared = "    cache: ../target/hunkgen-cache\n";
    assert!(text.contains(shared), "the demo recipe's cache line moved");
    let private = format!("    cache: {}\n", root.join("cache").display());
    fs::write(&card, text.replace(shared, &private)).expect("card");
    to
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn evaluate(dataset: &Path, args: &[&str]) -> Output {
    hunkgen()
        .arg("evaluate")
        .arg(dataset)
        .arg("-q")
        .args(args)
        .envs(validation_env())
        .env_remove("HUNKGEN_SHARD")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .output()
        .expect("runs")
}

fn manifest_of(dir: &Path) -> serde_json::Value {
    let text = fs::read_to_string(dir.join("shard.yaml"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    serde_norway::from_str(&text).expect("yaml")
}

/// The ids a shard's manifest lists, checked to hash to its K.
fn ids_of(dir: &Path, k: u64, n: u64) -> Vec<String> {
    let m = manifest_of(dir);
    assert_eq!(
        (m["shard"].as_u64(), m["count"].as_u64()),
        (Some(k), Some(n))
    );
    m["instances"]
        .as_array()
        .expect("instances")
        .iter()
        .map(|id| {
            let id = id.as_str().expect("id").to_string();
            assert_eq!(hunkgen::shard::Shard::of(&id, n), k, "{id} by its hash");
            id
        })
        .collect()
}

/// Assert two directories hold the same files, byte for byte.
fn assert_same_tree(one: &Path, merged: &Path) {
    let (a, b) = (tree(one), tree(merged));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "the same files"
    );
    for (name, bytes) in &a {
        assert!(&b[name] == bytes, "{name} differs");
    }
}

#[test]
fn evaluate_in_four_shards_merged_is_one_evaluation_and_bad_sets_are_refused() {
    let root = tempfile::tempdir().expect("tempdir");
    let demo = demo_copy(root.path());
    let one = root.path().join("one");
    ok(&evaluate(
        &demo,
        &["--baseline", "gold", "-o", one.to_str().expect("utf-8")],
    ));
    // Shards 0, 1, 3 by flag, shard 2 from HUNKGEN_SHARD; default output names.
    let shards: Vec<PathBuf> = (0..4)
        .map(|k| demo.join(format!("evaluations/baseline-gold-shard-{k}-of-4")))
        .collect();
    let mut ids = Vec::new();
    for k in 0..4u64 {
        let o = if k == 2 {
            hunkgen()
                .args(["evaluate", "-q", "--baseline", "gold"])
                .arg(&demo)
                .envs(validation_env())
                .env("HUNKGEN_SHARD", "2/4")
                .output()
                .expect("runs")
        } else {
            evaluate(&demo, &["--baseline", "gold", "--shard", &format!("{k}/4")])
        };
        ok(&o);
        let m = manifest_of(&shards[k as usize]);
        assert_eq!(m["kind"], "evaluation");
        assert_eq!(m["total"], 6);
        assert_eq!(m["inputs"]["model"], "baseline-gold");
        let shard_ids = ids_of(&shards[k as usize], k, 4);
        let rows = fs::read_to_string(shards[k as usize].join("results.jsonl")).expect("rows");
        assert_eq!(
            rows.lines().count(),
            shard_ids.len(),
            "shard {k} scores its own"
        );
        ids.extend(shard_ids);
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 6, "every demo instance in exactly one shard");

    let merged = root.path().join("merged");
    let mut reversed = shards.clone();
    reversed.reverse();
    let out = ok(&merge(&merged, &reversed));
    assert!(out.contains("merged 4 evaluation shard(s)"), "{out}");
    assert!(out.contains("| all | 100.0% (6/6"), "{out}");
    for f in ["results.jsonl", "summary.json"] {
        assert_eq!(
            fs::read(one.join(f)).expect("one"),
            fs::read(merged.join(f)).expect("merged"),
            "{f} byte for byte"
        );
    }
    // logs/ too: the shards' test runs are answered from the cache one machine filled.
    assert_same_tree(&one, &merged);

    // Refusals, one line each, naming what is wrong; nothing written.
    let refused_out = root.path().join("refused");
    refused(&merge(&refused_out, &shards[1..]), &["0/4", "missing"]);
    let gold = demo.join("evaluations/baseline-gold.jsonl");
    let text = fs::read_to_string(&gold).expect("predictions");
    let mut lines: Vec<&str> = text.lines().collect();
    lines.reverse();
    let other = root.path().join("other.jsonl");
    fs::write(&other, lines.join("\n") + "\n").expect("write");
    let other_shard = root.path().join("other-shard-1");
    ok(&evaluate(
        &demo,
        &[
            "--predictions",
            other.to_str().expect("utf-8"),
            "--shard",
            "1/4",
            "-o",
            other_shard.to_str().expect("utf-8"),
        ],
    ));
    let mut with_other = shards.clone();
    with_other[1] = other_shard;
    refused(
        &merge(&refused_out, &with_other),
        &["predictions_sha256", "shards of one evaluation only"],
    );
    let partial = root.path().join("partial");
    let o = Command::new("cp")
        .arg("-a")
        .arg(&shards[3])
        .arg(&partial)
        .output()
        .expect("cp");
    assert!(o.status.success());
    fs::write(partial.join("results.jsonl"), "").expect("truncate");
    let mut with_partial = shards.clone();
    with_partial[3] = partial.clone();
    refused(
        &merge(&refused_out, &with_partial),
        &["partial", "checksum"],
    );
    fs::remove_file(partial.join("shard.yaml")).expect("rm");
    refused(
        &merge(&refused_out, &with_partial),
        &["partial", "not a complete shard"],
    );
    // A build shard among evaluation shards.
    let recipe = crate::common::demo_recipe(&root.path().join("build"));
    let build_shard = root.path().join("build-shard-0");
    ok(&hunkgen()
        .args(["build", "-q", "--shard", "0/4", "-o"])
        .arg(&build_shard)
        .arg(&recipe)
        .output()
        .expect("runs"));
    let mut mixed = shards.clone();
    mixed[0] = build_shard;
    refused(
        &merge(&refused_out, &mixed),
        &["`hunkgen build`", "`hunkgen evaluate`", "one command"],
    );
    assert!(!refused_out.exists(), "nothing written by a refused merge");
}

/// `hunkgen run` of a demo agent on `only`, as shard `shard` when given, into `--out
/// out` when given; the run's `<agent>/novel-best` directory.
fn run_agent(
    dataset: &Path,
    agent: &str,
    only: &str,
    shard: Option<&str>,
    out: Option<&Path>,
) -> PathBuf {
    let mut cmd = hunkgen();
    cmd.arg("run")
        .arg(dataset)
        .arg("--agents")
        .arg(manifest().join("demo/agents/agents.yaml"))
        .args(["--agent", agent, "-q", "--only", only]);
    if let Some(s) = shard {
        cmd.args(["--shard", s]);
    }
    if let Some(o) = out {
        cmd.arg("--out").arg(o);
    }
    ok(&cmd
        .env_remove("HUNKGEN_SHARD")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .output()
        .expect("runs"));
    let root = match (out, shard) {
        (Some(o), _) => o.to_path_buf(),
        (None, None) => dataset.join("runs"),
        (None, Some(s)) => dataset.join(format!("runs-shard-{}", s.replace('/', "-of-"))),
    };
    root.join(agent).join("novel-best")
}

/// A JSON file without the fields that are measurements or depend on the run
/// directory's path.
fn json_without(path: &Path, drop: &[&str]) -> serde_json::Value {
    let mut v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(path).expect("json")).expect("json");
    if let Some(o) = v.as_object_mut() {
        for d in drop {
            o.remove(*d);
        }
    }
    v
}

#[test]
fn run_in_shards_merged_is_one_run_up_to_paths_and_timings() {
    let root = tempfile::tempdir().expect("tempdir");
    let demo = demo_copy(root.path());
    let rows = fs::read_to_string(demo.join("instances.jsonl")).expect("instances");
    let all: Vec<String> = rows
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("row");
            v["instance_id"].as_str().expect("id").to_string()
        })
        .collect();
    // Four of the six, given out of the dataset's order.
    let mut chosen: Vec<String> = all[1..5].to_vec();
    chosen.reverse();
    let only = chosen.join(",");
    let one_root = root.path().join("one");
    let one = run_agent(&demo, "oracle", &only, None, Some(&one_root));
    // Shard 0 in its default root (<dataset>/runs-shard-0-of-3, where its manifest is
    // read below), the others in --out.
    let mut shards = vec![run_agent(&demo, "oracle", &only, Some("0/3"), None)];
    for k in 1..3 {
        let out = root.path().join(format!("shards/{k}"));
        shards.push(run_agent(
            &demo,
            "oracle",
            &only,
            Some(&format!("{k}/3")),
            Some(&out),
        ));
    }
    let mut covered = Vec::new();
    for (k, s) in shards.iter().enumerate() {
        let m = manifest_of(s);
        assert_eq!(m["kind"], "run");
        assert_eq!(m["total"], 4);
        assert_eq!(m["inputs"]["agent"], "oracle");
        covered.extend(ids_of(s, k as u64, 3));
    }
    covered.sort();
    let mut want = chosen.clone();
    want.sort();
    assert_eq!(
        covered, want,
        "each chosen instance run by exactly one shard"
    );

    let merged = root.path().join("merged/oracle/novel-best");
    let out = ok(&merge(&merged, &shards));
    assert!(out.contains("merged 3 run shard(s)"), "{out}");
    assert_eq!(
        fs::read(one.join("predictions.jsonl")).expect("one"),
        fs::read(merged.join("predictions.jsonl")).expect("merged"),
        "predictions.jsonl byte for byte, in the dataset's order"
    );
    let visible = |d: &Path| -> Vec<String> {
        tree(d)
            .into_keys()
            .filter(|k| !k.starts_with('.'))
            .collect()
    };
    assert_eq!(visible(&one), visible(&merged), "the same files");
    for id in &chosen {
        let (a, b) = (one.join(id), merged.join(id));
        for f in ["model.patch", "stdout.log", "stderr.log"] {
            assert_eq!(
                fs::read(a.join(f)).expect("one"),
                fs::read(b.join(f)).expect("merged"),
                "{id}/{f}"
            );
        }
        // What differs: the run directory's path in the prompt (not in the result key)
        // and the measured times.
        let shard = shards
            .iter()
            .find(|s| s.join(id).is_dir())
            .expect("a shard");
        let prompt = |d: &Path, run_dir: &Path| {
            fs::read_to_string(d.join("prompt.md"))
                .expect("prompt")
                .replace(
                    &run_dir.canonicalize().expect("dir").display().to_string(),
                    "RUN",
                )
        };
        assert_eq!(prompt(&a, &one), prompt(&b, shard), "{id}/prompt.md");
        let drop = ["elapsed_ms", "started_at"];
        assert_eq!(
            json_without(&a.join("result.json"), &drop),
            json_without(&b.join("result.json"), &drop),
            "{id}/result.json"
        );
    }

    // The merged folder resumes like one machine's: a run into it reuses every result.
    let again = hunkgen()
        .arg("run")
        .arg(&demo)
        .arg("--agents")
        .arg(manifest().join("demo/agents/agents.yaml"))
        .args(["--agent", "oracle", "--only", &only, "--out"])
        .arg(root.path().join("merged"))
        .output()
        .expect("runs");
    assert!(
        ok(&again).contains("4 instance(s), 4 reused from an earlier run"),
        "{}",
        ok(&again)
    );

    // Evaluating the merged run's predictions in 2 shards: the merge recomputes the
    // trajectory metrics from the run records next to the predictions, as one evaluation.
    let preds = merged.join("predictions.jsonl");
    let p = preds.to_str().expect("utf-8");
    let eval_one = root.path().join("eval-one");
    ok(&evaluate(
        &demo,
        &["--predictions", p, "-o", eval_one.to_str().expect("utf-8")],
    ));
    let mut eval_shards = Vec::new();
    for k in 0..2 {
        let d = root.path().join(format!("eval-shard-{k}"));
        ok(&evaluate(
            &demo,
            &[
                "--predictions",
                p,
                "--shard",
                &format!("{k}/2"),
                "-o",
                d.to_str().expect("utf-8"),
            ],
        ));
        eval_shards.push(d);
    }
    let eval_merged = root.path().join("eval-merged");
    ok(&merge(&eval_merged, &eval_shards));
    let summary = fs::read_to_string(eval_merged.join("summary.json")).expect("summary");
    assert!(summary.contains("\"trajectories\""), "{summary}");
    assert_same_tree(&eval_one, &eval_merged);

    // Refusals: another agent's shard, a missing shard, an evaluation shard.
    let refused_out = root.path().join("refused");
    let comment = root.path().join("comment");
    let mut foreign = shards.clone();
    foreign[1] = run_agent(&demo, "comment", &only, Some("1/3"), Some(&comment));
    refused(
        &merge(&refused_out, &foreign),
        &["agent", "shards of one run only"],
    );
    refused(&merge(&refused_out, &shards[..2]), &["2/3", "missing"]);
    let mut mixed = shards.clone();
    mixed[2] = eval_shards[0].clone();
    refused(
        &merge(&refused_out, &mixed),
        &["`hunkgen evaluate`", "`hunkgen run`"],
    );
    assert!(!refused_out.exists(), "nothing written by a refused merge");
}

#[test]
fn an_evaluate_shard_killed_midway_is_refused_and_its_rerun_merges_to_one_evaluation() {
    let root = tempfile::tempdir().expect("tempdir");
    // A fresh private cache: the shard's test runs are real, so it can be caught midway.
    let demo = demo_copy(root.path());
    let retry = root.path().join("shard-1");
    let child = Command::new(assert_cmd::cargo::cargo_bin("hunkgen"))
        .arg("evaluate")
        .arg(&demo)
        .args(["-q", "--baseline", "gold", "--shard", "1/2", "-o"])
        .arg(&retry)
        .envs(validation_env())
        .spawn()
        .expect("spawn");
    kill_midway(child, || retry.is_dir());
    assert!(
        !retry.join("shard.yaml").exists(),
        "no manifest: not complete"
    );
    let first = root.path().join("shard-0");
    ok(&evaluate(
        &demo,
        &[
            "--baseline",
            "gold",
            "--shard",
            "0/2",
            "-o",
            first.to_str().expect("utf-8"),
        ],
    ));
    let merged = root.path().join("merged");
    let shards = [first, retry.clone()];
    refused(
        &merge(&merged, &shards),
        &["shard-1", "not a complete shard"],
    );
    assert!(!merged.exists(), "nothing written by a refused merge");
    // The re-run (its finished test runs answered by the cache) completes the set.
    ok(&evaluate(
        &demo,
        &[
            "--baseline",
            "gold",
            "--shard",
            "1/2",
            "-o",
            retry.to_str().expect("utf-8"),
        ],
    ));
    ok(&merge(&merged, &shards));
    let one = root.path().join("one");
    ok(&evaluate(
        &demo,
        &["--baseline", "gold", "-o", one.to_str().expect("utf-8")],
    ));
    for f in ["results.jsonl", "summary.json"] {
        assert_eq!(
            fs::read(one.join(f)).expect("one"),
            fs::read(merged.join(f)).expect("merged"),
            "{f} byte for byte"
        );
    }
}
