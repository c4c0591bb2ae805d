//! `hunkgen evaluate` on the validated demo: the three built-in baselines give the
//! figures they must (gold resolves every Novel state; empty resolves no Novel or Partial
//! state and abstains correctly on every Resolved one; the Partial states' hunks resolve
//! no Novel state), and bad predictions are counted, never fatal.

use crate::common::{hunkgen, succeeds, validation_env};
use crate::golden::demo;
use std::fs;
use std::path::Path;

/// Evaluate the validated demo into `out` and return the summary.
pub(crate) fn evaluate(args: &[&str], out: &Path) -> serde_json::Value {
    evaluate_dataset(demo(), args, out)
}

/// Evaluate `dataset` into `out` and return the summary.
pub(crate) fn evaluate_dataset(dataset: &Path, args: &[&str], out: &Path) -> serde_json::Value {
    succeeds(
        hunkgen()
            .arg("evaluate")
            .arg(dataset)
            .args(args)
            .arg("-q")
            .arg("--output")
            .arg(out)
            .envs(validation_env()),
    );
    serde_json::from_str(&fs::read_to_string(out.join("summary.json")).expect("summary"))
        .expect("json")
}

/// A rate's `(k, n)`.
pub(crate) fn rate(v: &serde_json::Value) -> (u64, u64) {
    (v["k"].as_u64().expect("k"), v["n"].as_u64().expect("n"))
}

#[test]
fn baselines_score_as_they_must() {
    let dir = tempfile::tempdir().expect("tempdir");
    let gold = evaluate(&["--baseline", "gold"], &dir.path().join("gold"));
    assert_eq!(rate(&gold["by_state"]["novel"]["resolution"]), (6, 6));
    assert_eq!(rate(&gold["overall"]["localization"]), (6, 6));
    assert_eq!(rate(&gold["overall"]["localization_counted"]), (6, 6));
    assert_eq!(rate(&gold["overall"]["applied_strict"]), (6, 6));
    assert_eq!(rate(&gold["overall"]["abstention"]), (0, 6));
    // The golden patch touches exactly the methods annotation gave its counted hunks
    // (`place.method_lines`): function-level F1 1 wherever an instance has one.
    let with_methods: std::collections::BTreeSet<String> =
        fs::read_to_string(demo().join("instances.jsonl"))
            .expect("instances")
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("instance"))
            .filter(|i| {
                i["hunks"].as_array().is_some_and(|h| {
                    h.iter()
                        .any(|h| h["counted"] == true && h["place"]["method_lines"].is_array())
                })
            })
            .map(|i| i["instance_id"].as_str().unwrap_or_default().to_string())
            .collect();
    assert!(!with_methods.is_empty());
    let gold_rows = fs::read_to_string(dir.path().join("gold/results.jsonl")).expect("results");
    for line in gold_rows.lines() {
        let r: serde_json::Value = serde_json::from_str(line).expect("row");
        let id = r["instance_id"].as_str().unwrap_or_default();
        match with_methods.contains(id) {
            true => assert_eq!(r["function_scores"]["f1"], 1.0, "{r}"),
            false => assert!(r["function_scores"].is_null(), "{r}"),
        }
    }
    assert_eq!(gold["overall"]["mean_function_f1"], 1.0);

    let empty = evaluate(&["--baseline", "empty"], &dir.path().join("empty"));
    for state in ["novel", "partial"] {
        assert_eq!(
            rate(&empty["by_state"][state]["resolution"]),
            (0, 6),
            "{state}"
        );
        assert_eq!(
            rate(&empty["by_state"][state]["correct_abstention"]),
            (0, 6),
            "{state}"
        );
    }
    assert_eq!(
        rate(&empty["by_state"]["resolved"]["correct_abstention"]),
        (6, 6)
    );

    let partial = evaluate(&["--baseline", "partial"], &dir.path().join("partial"));
    assert_eq!(rate(&partial["by_state"]["novel"]["resolution"]), (0, 6));
    // A proper subset of the golden hunks touches some of them, never all.
    let results = fs::read_to_string(dir.path().join("partial/results.jsonl")).expect("results");
    for line in results.lines() {
        let r: serde_json::Value = serde_json::from_str(line).expect("row");
        let touched = r["hunks_touched"].as_array().expect("touched").len() as u64;
        assert!(
            touched >= 1 && touched < r["hunks_total"].as_u64().expect("total"),
            "{r}"
        );
        assert_eq!(r["applied"], "exact");
    }
    // Wilson 95% for 6/6 is [0.609666, 1].
    let low = gold["overall"]["resolution"]["low"].as_f64().expect("low");
    assert!((low - 0.609666).abs() < 1e-5, "{low}");

    // compare: gold against partial on the same Novel states, paired.
    let out = succeeds(
        hunkgen()
            .arg("compare")
            .arg(dir.path().join("gold/summary.json"))
            .arg(dir.path().join("partial/summary.json"))
            .arg("--json"),
    );
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let text = c.to_string();
    assert!(text.contains("0.03125"), "b=6, c=0 gives p = 2/64: {text}");
}

#[test]
fn bad_predictions_are_counted_not_fatal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rows = fs::read_to_string(demo().join("instances.jsonl")).expect("rows");
    let first: serde_json::Value =
        serde_json::from_str(rows.lines().next().expect("row")).expect("json");
    let id = first["instance_id"].as_str().expect("id");
    let preds = dir.path().join("preds.jsonl");
    let bad_hunk = "--- a/java/src/main/java/org/acme/num/Money.java\n+++ b/java/src/main/java/org/acme/num/Money.java\n@@ -1,2 +1,2 @@\n-this line is not there\n+nor this\n context that does not exist\n";
    let lines = [
        serde_json::json!({"instance_id": "nope-123", "model_name_or_path": "m", "model_patch": ""}),
        serde_json::json!({"instance_id": id, "model_name_or_path": "m", "model_patch": "just prose, no diff"}),
        serde_json::json!({"instance_id": id, "model_name_or_path": "m", "model_patch": "", "state": "resolved"}),
        serde_json::json!({"instance_id": id, "model_name_or_path": "m", "model_patch": "", "state": "resolved"}),
        serde_json::json!({"instance_id": id, "model_name_or_path": "m", "model_patch": bad_hunk, "state": "partial"}),
    ];
    fs::write(
        &preds,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .expect("preds");
    let summary = evaluate(
        &["--predictions", preds.to_str().expect("path")],
        &dir.path().join("out"),
    );
    assert_eq!(summary["predictions"], 5);
    assert_eq!(summary["problems"], 4, "{summary}");
    let results = fs::read_to_string(dir.path().join("out/results.jsonl")).expect("results");
    for needle in [
        "unknown instance `nope-123`",
        "model_patch is not a diff",
        "duplicate prediction",
        "the patch does not apply",
    ] {
        assert!(results.contains(needle), "{needle}: {results}");
    }

    // An empty file, and predictions for another dataset: one clear line, exit 1.
    let empty = dir.path().join("empty.jsonl");
    fs::write(&empty, "").expect("empty");
    let other = dir.path().join("other.jsonl");
    fs::write(
        &other,
        "{\"instance_id\":\"django__django-1\",\"model_name_or_path\":\"m\",\"model_patch\":\"\"}\n",
    )
    .expect("other");
    for (file, expected) in [(&empty, "no predictions"), (&other, "another dataset")] {
        let out = hunkgen()
            .arg("evaluate")
            .arg(demo())
            .arg("--predictions")
            .arg(file)
            .arg("-q")
            .envs(validation_env())
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(expected), "{err}");
    }
}

/// RepoFixEval's localization task on the demo: one prediction, hand-computed. The Wrap
/// fix changes buggy lines 26 and 39 of Wrap.java; predicting lines 26 and 100 gives
/// line precision 1/2, recall 1/2, F1 1/2 and file P = R = F1 = 1; the five instances
/// without a prediction score 0, so the means are 1/6 (files) and 1/12 (lines).
#[test]
fn localization_predictions_are_scored_per_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let wrap = "java/src/main/java/org/acme/text/Wrap.java";
    let file = dir.path().join("loc.jsonl");
    fs::write(
        &file,
        format!(
            "{}\n",
            serde_json::json!({"instance_id": "acme-9d015a1dbe61", "files": [wrap],
                "lines": [format!("{wrap}:26"), format!("{wrap}:100")]})
        ),
    )
    .expect("write");
    let out = succeeds(
        hunkgen()
            .arg("evaluate")
            .arg(demo())
            .arg("--localizations")
            .arg(&file)
            .arg("--output")
            .arg(dir.path().join("out")),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("mean file-level F1 0.167, mean line-level F1 0.083"),
        "{stdout}"
    );
    let rows = fs::read_to_string(dir.path().join("out/localization.jsonl")).expect("rows");
    let wrap_row: serde_json::Value = rows
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("row"))
        .find(|r| r["instance_id"] == "acme-9d015a1dbe61")
        .expect("row");
    assert_eq!(wrap_row["lines"]["precision"], 0.5);
    assert_eq!(wrap_row["lines"]["recall"], 0.5);
    assert_eq!(wrap_row["files"]["f1"], 1.0);
    assert_eq!(
        wrap_row["hunks_touched"].as_array().expect("touched").len(),
        1
    );
    // RepoFixEval pools every instance's elements into one set: the one predicted file is
    // golden, of all the golden files of the dataset; one of the two predicted lines is.
    let golden_files: usize = fs::read_to_string(demo().join("instances.jsonl"))
        .expect("instances")
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).expect("instance")["files"]
                .as_array()
                .map_or(0, Vec::len)
        })
        .sum();
    assert!(golden_files > 1, "{golden_files}");
    let summary: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(dir.path().join("out/localization-summary.json")).expect("summary"),
    )
    .expect("json");
    let files = &summary["pooled_files"];
    assert_eq!(files["precision"], 1.0);
    assert_eq!(files["recall"].as_f64(), Some(1.0 / golden_files as f64));
    let lines = &summary["pooled_lines"];
    assert_eq!(lines["precision"], 0.5);
    // One hit among the golden lines of every instance: at least the Wrap instance's 2.
    let recall = lines["recall"].as_f64().expect("recall");
    let golden_lines = (1.0 / recall).round();
    assert!(
        golden_lines > 2.0 && (recall * golden_lines - 1.0).abs() < 1e-12,
        "{recall}"
    );
    assert!(
        stdout.contains(&format!(
            "pooled, RepoFixEval's one set: files P 1.000 R {:.3}",
            1.0 / golden_files as f64
        )),
        "{stdout}"
    );
}

/// The three ways a predicted patch gets in, on a fixture history: exactly; by a 3-way
/// merge from the patch's own base blob when the file changed where fuzz cannot reach
/// (a patch with five context lines, the state changed three lines from its edge); with
/// fuzz when only an outer context line differs and the blob is unknown.
#[test]
fn predicted_patches_apply_exactly_three_way_or_with_fuzz() {
    use hunkgen::validate::apply::{apply_fuzzy, Applied};
    let mut s = crate::common::Script::new();
    let v1: String = (1..=12).map(|i| format!("a{i}\n")).collect();
    s.write("f.txt", &v1);
    s.commit("v1");
    s.write("f.txt", &v1.replace("a6\n", "A6\n"));
    let patch_text = s.git_bytes(&["diff", "-U5"]);
    s.git(&["checkout", "-q", "--", "f.txt"]);
    s.write("f.txt", &v1.replace("a3\n", "z3\n"));
    s.commit("v2: line 3 changed");
    let patch = hunkgen::diff::parse(&patch_text).expect("patch");
    let copy = |content: &str| {
        let d = tempfile::tempdir().expect("tempdir");
        fs::write(d.path().join("f.txt"), content).expect("write");
        d
    };
    // Exactly, on v1.
    let d = copy(&v1);
    assert_eq!(
        apply_fuzzy(&patch, d.path(), Some(&s.dir)),
        Ok(Applied::Exact)
    );
    // 3-way on v2: fuzz (≤ 2 outer context lines) cannot skip a changed 3rd line.
    let v2 = v1.replace("a3\n", "z3\n");
    let d = copy(&v2);
    assert_eq!(
        apply_fuzzy(&patch, d.path(), Some(&s.dir)),
        Ok(Applied::ThreeWay)
    );
    assert_eq!(
        fs::read_to_string(d.path().join("f.txt")).expect("read"),
        v2.replace("a6\n", "A6\n")
    );
    let d = copy(&v2);
    assert!(
        apply_fuzzy(&patch, d.path(), None).is_err(),
        "without the base blob, neither 3-way nor fuzz gets it in"
    );
    // Fuzz: only the outermost context line differs.
    let v3 = v1.replace("a1\n", "y1\n");
    let d = copy(&v3);
    assert_eq!(apply_fuzzy(&patch, d.path(), None), Ok(Applied::Fuzz));
    assert_eq!(
        fs::read_to_string(d.path().join("f.txt")).expect("read"),
        v3.replace("a6\n", "A6\n")
    );
}
