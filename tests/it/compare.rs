//! `hunkgen compare`: two hand-made summary.json files, paired outcomes, McNemar.

use crate::common::hunkgen;
use std::path::{Path, PathBuf};

/// Writes a summary.json with the given `(key, resolved, abstained)` outcomes.
fn write_summary(dir: &Path, name: &str, sha: &str, outcomes: &[(String, bool, bool)]) -> PathBuf {
    let map: serde_json::Map<String, serde_json::Value> = outcomes
        .iter()
        .map(|(k, r, a)| {
            (
                k.clone(),
                serde_json::json!({"resolved": r, "abstained": a}),
            )
        })
        .collect();
    let v = serde_json::json!({
        "schema_version": 1,
        "dataset": "demo",
        "dataset_sha256": sha,
        "model_name_or_path": name,
        "predictions": outcomes.len(),
        "infra": 0,
        "problems": 0,
        "overall": {},
        "by_class": {},
        "by_divergence_quartile": {},
        "by_state": {},
        "by_project": {},
        "outcomes": map,
    });
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, serde_json::to_string_pretty(&v).expect("json")).expect("write");
    path
}

/// 20 paired outcomes plus one only A has.
/// Resolution: i < 12 A only (b = 12), 12..15 B only (c = 3), 15..18 both, 18, 19
/// neither: A 15/20, B 6/20, p = 2·(1 + 15 + 105 + 455)/2^15 = 0.03515625.
/// Abstention: i < 7 B only (c = 7), i = 19 A only (b = 1): A 1/20, B 7/20,
/// p = 2·(1 + 8)/2^8 = 0.0703125.
fn pair(dir: &Path, sha_b: &str) -> (PathBuf, PathBuf) {
    let mut a = Vec::new();
    let mut b = Vec::new();
    for i in 0..20 {
        let key = format!("inst-{i:02}/novel");
        let (ra, rb) = match i {
            0..12 => (true, false),
            12..15 => (false, true),
            15..18 => (true, true),
            _ => (false, false),
        };
        a.push((key.clone(), ra, i == 19));
        b.push((key, rb, i < 7));
    }
    a.push(("extra/partial".to_string(), true, false));
    (
        write_summary(dir, "sys-a", "abc123", &a),
        write_summary(dir, "sys-b", sha_b, &b),
    )
}

#[test]
fn compare_prints_rates_discordant_counts_and_p() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (a, b) = pair(tmp.path(), "abc123");
    let out = hunkgen().arg("compare").arg(&a).arg(&b).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains("A: sys-a\nB: sys-b\n"), "{text}");
    assert!(
        text.contains("20 paired outcomes (1 only in A, 0 only in B"),
        "{text}"
    );
    // 15/20: Wilson [53.1%, 88.8%]; 6/20: [14.5%, 51.9%].
    assert!(
        text.contains("| resolution | 15/20 = 75.0% [53.1%, 88.8%] | 6/20 = 30.0% [14.5%, 51.9%] | 12 | 3 | 0.0352 |"),
        "{text}"
    );
    assert!(text.contains("| abstention | 1/20 = 5.0% ["), "{text}");
    assert!(text.contains("| 1 | 7 | 0.0703 |"), "{text}");
}

#[test]
fn compare_json() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (a, b) = pair(tmp.path(), "abc123");
    let out = hunkgen()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .arg("--json")
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    assert_eq!(v["paired"], 20);
    assert_eq!(v["only_in_a"], 1);
    assert_eq!(v["dataset_sha256"], "abc123");
    assert_eq!(v["resolution"]["a_only"], 12);
    assert_eq!(v["resolution"]["b_only"], 3);
    assert_eq!(v["resolution"]["a"]["k"], 15);
    let p = v["resolution"]["p_value"].as_f64().expect("number");
    assert!((p - 0.03515625).abs() < 1e-12, "{p}");
    let p = v["abstention"]["p_value"].as_f64().expect("number");
    assert!((p - 0.0703125).abs() < 1e-12, "{p}");
    assert_eq!(v["abstention"]["b"]["k"], 7);
}

#[test]
fn compare_refuses_other_datasets_and_bad_files_in_one_line() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (a, b) = pair(tmp.path(), "def456");
    let out = hunkgen().arg("compare").arg(&a).arg(&b).assert().code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("different datasets"), "{err}");
    assert!(err.contains("abc123") && err.contains("def456"), "{err}");

    let bad = tmp.path().join("bad.json");
    std::fs::write(&bad, "{\n  \"schema_version\": 1,\n  \"dataset\": 3\n}\n").expect("write");
    let out = hunkgen().arg("compare").arg(&a).arg(&bad).assert().code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("bad.json:3:"), "{err}");
    assert!(err.contains("not an evaluation summary"), "{err}");
}
