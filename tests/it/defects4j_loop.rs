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
    let cli = &row(&rows, "Cli_1", "novel")["defects4j"];
    assert_eq!(
        cli["excluded"],
        serde_json::json!(["org.apache.commons.cli.BugsTest::test19383"])
    );
    // Each left-out test says why, in the row, the summary and the printed table; a
    // gold baseline that resolves everything lists no miss.
    let why = cli["excluded_why"]["org.apache.commons.cli.BugsTest::test19383"]
        .as_str()
        .expect("why");
    assert!(why.starts_with("defects4j failing_tests"), "{why}");
    assert_eq!(gold["exclusions"][0]["why"], why, "{gold:#}");
    assert!(gold.get("gold_misses").is_none(), "{gold:#}");
    assert!(
        stdout.contains("| Cli_1    | org.apache.commons.cli.BugsTest::test19383")
            || stdout.contains("| Cli_1 | org.apache.commons.cli.BugsTest::test19383"),
        "{stdout}"
    );
    let rr = &study["regression"];
    assert_eq!(rr["n"], 2);
    assert_eq!(rr["positive"], 2);
    // The report shows the same row in Table 2's layout.
    let html = dir.path().join("report.html");
    succeeds(
        hunkgen()
            .arg("report")
            .arg(dataset())
            .arg("--results")
            .arg(dir.path().join("gold"))
            .arg("-o")
            .arg(&html),
    );
    let page = fs::read_to_string(&html).expect("report");
    assert!(page.contains("the agent study's Table 2"), "no Table 2");
    assert!(
        page.contains(
            "<td>baseline-gold</td><td class=\"n\">2</td><td class=\"n\">2 (100.00%)</td>"
        ),
        "Table 2 row missing"
    );
    // The study's own rows are beside it, as published.
    assert!(
        page.contains("<td>Claude Code (published)</td><td class=\"n\">372</td><td class=\"n\">238 (63.98%)</td>"),
        "published Table 2 missing"
    );

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
    }
    // Unchecked, as documented: Cli-1's omitted hunk is not needed by its tests, so the
    // subset resolves; Codec-8's does not compile without the omitted hunk.
    let cli = row(&rows, "Cli_1", "novel");
    assert_eq!(
        (&cli["compiled"], &cli["resolved"]),
        (&true.into(), &true.into())
    );
    let codec = row(&rows, "Codec_8", "novel");
    assert_eq!(codec["compiled"], false, "{codec:#}");
    assert_eq!(rate(&partial["study"]["repair"]), (1, 2));
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

/// `file` of a bug's buggy version, from whichever build directory the cache holds:
/// the build makes the buggy version from the fixed one, evaluation checks it out.
fn buggy_file(project: &str, bug: u32, file: &str) -> std::path::PathBuf {
    let d4j = dataset()
        .parent()
        .expect("dataset parent")
        .join("cache/d4j");
    ["checkouts/{}b", "compiled/{}b", "compiled/{}b-full"]
        .iter()
        .map(|d| {
            d4j.join(d.replace("{}", &format!("{project}-{bug}")))
                .join(file)
        })
        .find(|f| f.is_file())
        .unwrap_or_else(|| {
            panic!(
                "no buggy build directory of {project}-{bug} in {}",
                d4j.display()
            )
        })
}

/// A patch inserting `line` after line `after` (1-based) of `file` in the buggy checkout.
fn insert_after(project: &str, bug: u32, file: &str, after: usize, line: &str) -> String {
    let path = buggy_file(project, bug, file);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let lines: Vec<&str> = text.lines().collect();
    let (a, b) = (lines[after - 1], lines[after]);
    format!(
        "diff --git a/{file} b/{file}\n--- a/{file}\n+++ b/{file}\n@@ -{after},2 +{after},3 @@\n {a}\n+{line}\n {b}\n"
    )
}

/// A predictions file of (instance, patch) on Novel.
fn predictions(path: &Path, model: &str, rows: &[(&str, String)]) {
    let text: String = rows
        .iter()
        .map(|(id, patch)| {
            serde_json::json!({"instance_id": id, "model_name_or_path": model,
                "model_patch": patch, "state": "novel"})
            .to_string()
                + "\n"
        })
        .collect();
    fs::write(path, text).expect("write predictions");
}

const CLI_FILE: &str = "src/java/org/apache/commons/cli/CommandLine.java";
const CODEC_FILE: &str = "src/java/org/apache/commons/codec/binary/Base64.java";

#[test]
fn a_patch_that_does_not_compile_and_a_timeout_are_reported_as_such() {
    let _one = serial();
    let dir = scratch("loop-broken-");
    let broken = dir.path().join("broken.jsonl");
    // After the class's opening line: a statement where only members may stand.
    let line = fs::read_to_string(buggy_file("Cli", 1, CLI_FILE))
        .expect("buggy file")
        .lines()
        .position(|l| l.starts_with("public class CommandLine"))
        .expect("class line")
        + 2;
    predictions(
        &broken,
        "broken",
        &[(
            "Cli_1",
            insert_after("Cli", 1, CLI_FILE, line, "    this does not compile;"),
        )],
    );
    let (summary, rows, stdout) = evaluate(
        &["--predictions", broken.to_str().expect("utf-8")],
        &dir.path().join("broken"),
    );
    let r = row(&rows, "Cli_1", "novel");
    assert_eq!(r["compiled"], false, "{r:#}");
    assert_eq!(r["resolved"], false);
    assert_eq!(r["defects4j"]["compile"], "compile_error");
    let errors = r["defects4j"]["compile_errors"][0]
        .as_str()
        .expect("errors");
    assert!(errors.starts_with(CLI_FILE), "{errors}");
    // Regression reduction is undefined: no whole-suite run after the patch.
    assert!(r.get("failing_after").is_none(), "{r:#}");
    assert!(r["defects4j"].get("suite_tests").is_none(), "{r:#}");
    assert_eq!(rate(&summary["study"]["compilation"]), (0, 1));
    assert!(summary["study"].get("regression").is_none(), "{summary:#}");
    assert!(stdout.contains("| broken | 0 of 1 | – |"), "{stdout}");

    // A one-second limit: `defects4j compile` cannot finish, and says so.
    let slow = dir.path().join("slow.jsonl");
    predictions(
        &slow,
        "slow",
        &[(
            "Codec_8",
            insert_after("Codec", 8, CODEC_FILE, 20, "// hunkgen's timeout test"),
        )],
    );
    let (summary, rows, _) = evaluate(
        &[
            "--predictions",
            slow.to_str().expect("utf-8"),
            "--timeout",
            "1",
        ],
        &dir.path().join("slow"),
    );
    let r = row(&rows, "Codec_8", "novel");
    assert_eq!(r["defects4j"]["timed_out"], "compile", "{r:#}");
    assert_eq!(r["defects4j"]["compile"], "timeout", "{r:#}");
    let infra = r["infra"].as_str().expect("infra");
    assert!(infra.contains("timed out after"), "{infra}");
    assert!(
        r.get("compiled").is_none() && r["resolved"] == false,
        "{r:#}"
    );
    assert_eq!(summary["infra"], 1);
    assert_eq!(r["defects4j"]["cached"], false, "{r:#}");
    // A timeout is not cached: the same evaluation runs Defects4J again.
    let (_, rows, _) = evaluate(
        &[
            "--predictions",
            slow.to_str().expect("utf-8"),
            "--timeout",
            "1",
        ],
        &dir.path().join("slow-again"),
    );
    let r = row(&rows, "Codec_8", "novel");
    assert_eq!(r["defects4j"]["timed_out"], "compile", "{r:#}");
    assert_eq!(r["defects4j"]["cached"], false, "{r:#}");
}

/// The stand-in agent: lists its working copy, compiles, runs the bug-exposing tests,
/// applies the golden patch it is handed (an oracle, for testing the harness), runs
/// them again and then the whole suite.
const STAND_IN: &str = r#"set -u
compile="$1"; tests="$2"; all="$3"; golden="$4"
echo "== files"; ls -a
echo "== compile"; "$compile"; echo "exit $?"
echo "== test"; "$tests"; echo "exit $?"
git apply "$golden"; echo "applied $?"
echo "== test after"; "$tests"; echo "exit $?"
echo "== all after"; "$all"; echo "exit $?"
"#;

#[test]
fn run_gives_the_agent_compile_and_test_commands_and_the_report() {
    let _one = serial();
    let dir = scratch("loop-run-");
    let agents = dir.path().join("agents");
    fs::create_dir_all(&agents).expect("mkdir");
    fs::write(agents.join("standin.sh"), STAND_IN).expect("agent");
    fs::write(
        agents.join("agents.yaml"),
        "standin:\n  command: sh {agents_dir}/standin.sh {compile_command} {test_command} \
         {all_tests_command} {golden_patch}\n  oracle: true\n  timeout: 900\n",
    )
    .expect("agents file");
    let reports = dir.path().join("reports.jsonl");
    fs::write(
        &reports,
        "{\"id\": \"Cli-1\", \"title\": \"PosixParser interupts on \\\"-target opt\\\"\", \
         \"description\": \"Options given by their long name lose their values.\"}\n",
    )
    .expect("reports");
    let out = dir.path().join("runs");
    let start = Instant::now();
    let res = succeeds(
        hunkgen()
            .arg("run")
            .arg(dataset())
            .arg("--agents")
            .arg(agents.join("agents.yaml"))
            .args(["--agent", "standin", "--only", "Cli_1", "-q", "--reports"])
            .arg(&reports)
            .arg("--out")
            .arg(&out),
    );
    eprintln!(
        "defects4j loop: stand-in agent run in {:.1}s",
        start.elapsed().as_secs_f64()
    );
    let stdout = String::from_utf8_lossy(&res.stdout);
    assert!(stdout.contains("| Cli_1 | completed | 0 |"), "{stdout}");
    let inst = out.join("standin/novel-best/Cli_1");
    let prompt = fs::read_to_string(inst.join("prompt.md")).expect("prompt");
    for text in [
        "Fix a bug in a Java project. The project contains failing test cases",
        "Title: PosixParser interupts on \"-target opt\"",
        "Options given by their long name lose their values.",
        "Report: https://issues.apache.org/jira/browse/CLI-13",
        "bin/run_bug_exposing_tests.sh`: runs the bug-exposing tests",
        "bin/run_all_tests_trace.sh`",
        "bin/compile.sh`",
        "Zero compilation errors and zero test failures.",
    ] {
        assert!(prompt.contains(text), "{text:?} not in:\n{prompt}");
    }
    let log = fs::read_to_string(inst.join("stdout.log")).expect("agent stdout");
    let section = |name: &str| -> &str {
        let start = log
            .find(&format!("== {name}\n"))
            .unwrap_or_else(|| panic!("no {name} in:\n{log}"));
        let rest = &log[start + name.len() + 4..];
        &rest[..rest.find("\n== ").map_or(rest.len(), |i| i + 1)]
    };
    // The working copy: the buggy version without its history or Defects4J's files.
    let files: Vec<&str> = section("files").lines().collect();
    assert!(
        files.contains(&"build.xml") && files.contains(&"src"),
        "{files:?}"
    );
    for hidden in [".git", ".defects4j.config", "defects4j.build.properties"] {
        assert!(!files.contains(&hidden), "{hidden} shown: {files:?}");
    }
    assert!(
        section("compile").contains("Compilation succeeded."),
        "{log}"
    );
    assert!(section("compile").ends_with("exit 0\n"), "{log}");
    let before = section("test");
    assert!(before.contains("Failing tests: 1\n"), "{log}");
    assert!(
        before.contains("--- org.apache.commons.cli.bug.BugCLI13Test::testCLI13\n"),
        "{log}"
    );
    // The complete stack trace, down to JUnit's own frames.
    assert!(before.contains("\tat junit.framework."), "{log}");
    assert!(before.contains("\nexit 1\napplied 0\n"), "{log}");
    let after = section("test after");
    assert!(
        after.contains("Failing tests: 0\n") && after.ends_with("exit 0\n"),
        "{log}"
    );
    let all = section("all after");
    assert!(all.contains("Tests run: "), "{log}");
    assert!(
        all.contains("Failing tests: 0\n") && all.ends_with("exit 0\n"),
        "{log}"
    );

    // The agent's patch is the golden fix: collected, and it resolves the bug.
    let preds = out.join("standin/novel-best/predictions.jsonl");
    let (summary, rows, _) = evaluate(
        &["--predictions", preds.to_str().expect("utf-8")],
        &dir.path().join("eval"),
    );
    let r = row(&rows, "Cli_1", "novel");
    assert_eq!(r["resolved"], true, "{r:#}");
    assert_eq!(rate(&summary["study"]["repair"]), (1, 1));
}
