//! The agent study's loop on a HUNK4J dataset validated by real Defects4J (Cli-1 and
//! Codec-8, built once for the whole test binary): `hunkgen evaluate` compiles each
//! patch on a fresh copy of the buggy checkout, runs the trigger tests and the whole
//! suite, and reports the study's Table 2 — the gold baseline resolves every bug, the
//! empty one none, the partial one as its definition says; a patch that does not compile
//! is rejected with regression reduction undefined; a timeout is reported as one; and
//! `hunkgen run` gives a stand-in agent `compile` and `test` commands that show it the
//! failing tests with their traces, with a bug report from `--reports` in its prompt.
//!
//! Needs `make deps` (Defects4J in target/defects4j); without it these tests fail,
//! never skip.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Instant;

use crate::common::{hunkgen, succeeds};
use crate::defects4j_build::{java_home, projects_with_only_the_bugs, recipe, run_build, BUGS};
use crate::defects4j_engine::serial;
use crate::evaluate::rate;

/// The dataset every test here reads: built once per test binary under target/tmp.
fn dataset() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("defects4j/loop");
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("target/tmp/defects4j/loop");
        let projects = projects_with_only_the_bugs(&dir);
        let start = Instant::now();
        let built = run_build(
            &recipe(&dir, &projects, &dir.join("cache"), &java_home()),
            &dir.join("hunk4j"),
        );
        eprintln!(
            "defects4j loop: dataset of {} bugs built in {:.1}s",
            built.instances.len(),
            start.elapsed().as_secs_f64()
        );
        assert_eq!(built.instances.len(), BUGS.len(), "{:?}", built.rejected);
        built.output
    })
}

/// `hunkgen evaluate <dataset> ARGS -o out`: (summary.json, results.jsonl rows, stdout).
fn evaluate(args: &[&str], out: &Path) -> (serde_json::Value, Vec<serde_json::Value>, String) {
    let start = Instant::now();
    let res = succeeds(
        hunkgen()
            .arg("evaluate")
            .arg(dataset())
            .args(args)
            .arg("-q")
            .arg("--output")
            .arg(out),
    );
    eprintln!(
        "defects4j loop: evaluate {args:?} in {:.1}s",
        start.elapsed().as_secs_f64()
    );
    let summary =
        serde_json::from_str(&fs::read_to_string(out.join("summary.json")).expect("summary"))
            .expect("json");
    let rows = fs::read_to_string(out.join("results.jsonl"))
        .expect("results")
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    (
        summary,
        rows,
        String::from_utf8_lossy(&res.stdout).into_owned(),
    )
}

/// The row of an instance on a state.
fn row<'r>(rows: &'r [serde_json::Value], id: &str, state: &str) -> &'r serde_json::Value {
    rows.iter()
        .find(|r| r["instance_id"] == id && r["state"] == state)
        .unwrap_or_else(|| panic!("no {id}/{state} row in {rows:#?}"))
}

fn scratch(name: &str) -> tempfile::TempDir {
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("defects4j");
    fs::create_dir_all(&base).expect("target/tmp/defects4j");
    tempfile::Builder::new()
        .prefix(name)
        .tempdir_in(base)
        .expect("scratch")
}

#[test]
fn gold_resolves_every_bug_empty_none_and_partial_as_defined() {
    let _one = serial();
    let dir = scratch("loop-baselines-");
    let (gold, rows, stdout) = evaluate(&["--baseline", "gold"], &dir.path().join("gold"));
    let study = &gold["study"];
    assert_eq!(study["bugs"], 2, "{gold:#}");
    for metric in ["localization", "compilation", "repair"] {
        assert_eq!(rate(&study[metric]), (2, 2), "{metric}: {gold:#}");
    }
    assert!(
        stdout.contains("| baseline-gold | 2 | 2 (100.00%) | 2 (100.00%) |"),
        "{stdout}"
    );
    for (project, bug) in BUGS {
        let id = format!("{project}_{bug}");
        let r = row(&rows, &id, "novel");
        let d = &r["defects4j"];
        assert_eq!(r["resolved"], true, "{r:#}");
        assert_eq!(r["compiled"], true, "{r:#}");
        assert_eq!(r["resolution"], "FULL", "{r:#}");
        assert_eq!(d["compile"], "compiled");
        assert_eq!(d["trigger_failing"], serde_json::json!([]), "{r:#}");
        assert_eq!(d["suite_failing"], serde_json::json!([]), "{r:#}");
        // Regression reduction on the whole suite: the trigger tests failed before.
        let before = r["failing_before"].as_u64().expect("failing before");
        assert!(before >= 1, "{r:#}");
        assert_eq!(r["failing_after"], 0, "{r:#}");
        let suite = d["suite_tests"].as_u64().expect("suite ran");
        let relevant = 1 + instance(&id)["PASS_TO_PASS"].as_array().expect("p2p").len() as u64;
        assert!(
            suite >= relevant,
            "{id}: whole suite {suite} < relevant {relevant}"
        );
    }
    // Cli-1's fixed version fails BugsTest::test19383 (Defects4J's failing_tests): left
    // out on both sides, so the developer's fix has no failing test.
    assert_eq!(
        row(&rows, "Cli_1", "novel")["defects4j"]["excluded"],
        serde_json::json!(["org.apache.commons.cli.BugsTest::test19383"])
    );
    let rr = &study["regression"];
    assert_eq!(rr["n"], 2);
    assert_eq!(rr["positive"], 2);

    let (empty, rows, _) = evaluate(&["--baseline", "empty"], &dir.path().join("empty"));
    let study = &empty["study"];
    for metric in ["localization", "compilation", "repair"] {
        assert_eq!(rate(&study[metric]), (0, 2), "{metric}: {empty:#}");
    }
    assert!(study.get("regression").is_none(), "{empty:#}");
    assert_eq!(rate(&empty["by_state"]["novel"]["resolution"]), (0, 2));
    // On the fixed version, changing nothing is right: it passes, and abstains.
    assert_eq!(
        rate(&empty["by_state"]["resolved"]["correct_abstention"]),
        (2, 2)
    );
    assert!(!empty["by_state"]
        .as_object()
        .expect("states")
        .contains_key("partial"));
    for (project, bug) in BUGS {
        let r = row(&rows, &format!("{project}_{bug}"), "novel");
        assert_eq!(r["applied"], "empty");
        assert_eq!(r["resolved"], false, "{r:#}");
        assert_eq!(r["failing_before"], r["failing_after"], "{r:#}");
        // Answered from the runs without a patch: no Defects4J run of its own.
        assert_eq!(r["defects4j"]["cached"], true, "{r:#}");
    }

    // Partial, for a bug without states: its largest proper subset of counted hunks.
    let (partial, rows, _) = evaluate(&["--baseline", "partial"], &dir.path().join("partial"));
    let preds = fs::read_to_string(dataset().join("evaluations/baseline-partial.jsonl"))
        .expect("partial predictions");
    for (project, bug) in BUGS {
        let id = format!("{project}_{bug}");
        let inst = instance(&id);
        let counted: Vec<u64> = inst["hunks"]
            .as_array()
            .expect("hunks")
            .iter()
            .filter(|h| h["counted"] == true)
            .map(|h| h["patch_index"].as_u64().expect("index"))
            .collect();
        let r = row(&rows, &id, "novel");
        let touched = r["hunks_touched"].as_array().expect("touched").len();
        assert_eq!(touched, counted.len() - 1, "{id}: {r:#}");
        assert!(preds.contains(&id), "{preds}");
        eprintln!(
            "defects4j loop: partial {id}: compiled {}, resolved {}, failing {} → {}",
            r["compiled"], r["resolved"], r["failing_before"], r["failing_after"]
        );
    }
    assert!(partial["study"].is_object(), "{partial:#}");
}

/// One instance of the dataset, as JSON.
fn instance(id: &str) -> serde_json::Value {
    fs::read_to_string(dataset().join("instances.jsonl"))
        .expect("instances")
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("row"))
        .find(|r| r["instance_id"] == id)
        .unwrap_or_else(|| panic!("no instance {id}"))
}
