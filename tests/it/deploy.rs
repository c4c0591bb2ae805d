//! The deployment files: the Kubernetes manifests are read by the official `kubernetes`
//! Python client's model classes (a misspelled field fails), and the Indexed Job runs
//! as many shards as it has completions.

use crate::common::{manifest, venv_python};
use std::fs;
use std::process::Command;

fn check(files: &[std::path::PathBuf]) -> std::process::Output {
    Command::new(venv_python("venv-k8s"))
        .arg(manifest().join("scripts/check_k8s_manifest.py"))
        .args(files)
        .output()
        .expect("python runs")
}

/// Every file of deploy/kubernetes/ but its README: each is a manifest to check (a file
/// added there is checked without anyone listing it).
fn kubernetes_files() -> Vec<std::path::PathBuf> {
    let dir = manifest().join("deploy/kubernetes");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .expect("deploy/kubernetes")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    files.sort();
    files
}

#[test]
fn kubernetes_manifests_are_valid_for_the_official_client() {
    let files = kubernetes_files();
    assert!(files.len() >= 3, "{files:?}");
    let o = check(&files);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // Each file was read as at least one object of the client's models.
    for f in &files {
        let name = f.display().to_string();
        assert!(
            out.lines()
                .any(|l| l.starts_with(&format!("{name}[")) && l.contains(": V1")),
            "{name} was not checked: {out}"
        );
    }
    assert!(out.contains("V1Job hunkgen-shards"), "{out}");
    assert!(
        out.contains("V1PersistentVolumeClaim hunkgen-work"),
        "{out}"
    );

    // A deliberately misspelled field, deep and shallow, fails and is named.
    let tmp = tempfile::tempdir().expect("tempdir");
    let job = manifest().join("deploy/kubernetes/job.yaml");
    let text = fs::read_to_string(&job).expect("job");
    for (good, bad, named) in [
        ("completionMode:", "completionMod:", "spec.completionMod"),
        (
            "mountPath: /work\n",
            "mountpath: /work\n",
            "volumeMounts[0].mountpath",
        ),
        (
            "claimName:",
            "claimname:",
            "persistentVolumeClaim.claimname",
        ),
    ] {
        assert!(text.contains(good), "{good}");
        let broken = tmp.path().join("broken.yaml");
        fs::write(&broken, text.replacen(good, bad, 1)).expect("write");
        let o = check(&[broken]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{bad} accepted");
        assert!(err.contains(named) && err.contains("not a field"), "{err}");
    }
}

#[test]
fn the_indexed_job_runs_one_shard_per_completion() {
    let text = fs::read_to_string(manifest().join("deploy/kubernetes/job.yaml")).expect("job");
    let job: serde_json::Value = serde_norway::from_str(&text).expect("yaml");
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    let completions = spec["completions"].as_u64().expect("completions");
    assert!(spec["parallelism"].as_u64().expect("parallelism") <= completions);
    let container = &spec["template"]["spec"]["containers"][0];
    let count = container["env"]
        .as_array()
        .expect("env")
        .iter()
        .find(|e| e["name"] == "HUNKGEN_SHARD_COUNT")
        .and_then(|e| e["value"].as_str())
        .expect("HUNKGEN_SHARD_COUNT");
    assert_eq!(
        count,
        completions.to_string(),
        "N is the number of completions"
    );
    let args = container["args"].to_string();
    assert!(args.contains("$JOB_COMPLETION_INDEX"), "{args}");
    let mounts: Vec<&str> = container["volumeMounts"]
        .as_array()
        .expect("mounts")
        .iter()
        .filter_map(|m| m["subPath"].as_str())
        .collect();
    assert_eq!(mounts, ["work", "cache", "shards"]);
    let merge =
        fs::read_to_string(manifest().join("deploy/kubernetes/merge-job.yaml")).expect("merge");
    for k in 0..completions {
        assert!(
            merge.contains(&format!("\"shards/{k}\"")),
            "merge names shard {k}"
        );
    }
}
