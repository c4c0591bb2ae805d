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

/// One task of `sbatch --array` running deploy/slurm/hunkgen-array.sh: Slurm's variables
/// (`None` leaves one unset) and the real hunkgen.
fn array_task(
    recipe: &std::path::Path,
    shards: &std::path::Path,
    vars: &[(&str, Option<&str>)],
) -> std::process::Output {
    let mut c = Command::new("sh");
    c.arg(manifest().join("deploy/slurm/hunkgen-array.sh"))
        .env("HUNKGEN", env!("CARGO_BIN_EXE_hunkgen"))
        .env("HUNKGEN_RECIPE", recipe)
        .env("HUNKGEN_SHARDS_DIR", shards);
    for v in [
        "HUNKGEN_SHARD",
        "HUNKGEN_REPOS",
        "JOB_COMPLETION_INDEX",
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_COUNT",
    ] {
        c.env_remove(v);
    }
    for (k, v) in vars {
        if let Some(v) = v {
            c.env(k, v);
        }
    }
    c.output().expect("sh runs")
}

/// (shard, count, instances) of a shard directory's manifest.
fn shard_of(dir: &std::path::Path) -> (u64, u64, Vec<String>) {
    let text = fs::read_to_string(dir.join("shard.yaml"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let m: serde_json::Value = serde_norway::from_str(&text).expect("yaml");
    let ids = m["instances"]
        .as_array()
        .expect("instances")
        .iter()
        .map(|i| i.as_str().expect("id").to_string())
        .collect();
    (
        m["shard"].as_u64().expect("shard"),
        m["count"].as_u64().expect("count"),
        ids,
    )
}

#[test]
fn the_slurm_array_script_maps_each_task_to_its_shard() {
    let root = tempfile::tempdir().expect("tempdir");
    let recipe = crate::common::demo_recipe(root.path());
    let ok = |o: &std::process::Output| {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    // --array=0-2 (Slurm sets SLURM_ARRAY_TASK_MIN=0; without it, 0 too).
    let zero = root.path().join("zero-based");
    for id in 0..3u64 {
        let min = (id != 1).then_some("0");
        let task = id.to_string();
        ok(&array_task(
            &recipe,
            &zero,
            &[
                ("SLURM_ARRAY_TASK_ID", Some(&task)),
                ("SLURM_ARRAY_TASK_MIN", min),
                ("SLURM_ARRAY_TASK_COUNT", Some("3")),
            ],
        ));
    }
    // --array=1-3: task K+1 is shard K, written to K.
    let one = root.path().join("one-based");
    for id in 1..=3u64 {
        let task = id.to_string();
        ok(&array_task(
            &recipe,
            &one,
            &[
                ("SLURM_ARRAY_TASK_ID", Some(&task)),
                ("SLURM_ARRAY_TASK_MIN", Some("1")),
                ("SLURM_ARRAY_TASK_COUNT", Some("3")),
            ],
        ));
    }
    let mut all = Vec::new();
    for k in 0..3u64 {
        let (shard, count, ids) = shard_of(&zero.join(k.to_string()));
        assert_eq!((shard, count), (k, 3), "0-based task {k}");
        assert_eq!(
            shard_of(&one.join(k.to_string())),
            (k, 3, ids.clone()),
            "1-based task {}",
            k + 1
        );
        for id in &ids {
            assert_eq!(hunkgen::shard::Shard::of(id, 3), k, "{id} by its hash");
        }
        all.extend(ids);
    }
    assert!(
        !one.join("3").exists(),
        "no shard directory named after the task id"
    );
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 7, "every demo instance in exactly one shard");
    // A task re-submitted alone with its shard given: sbatch --array=2 with HUNKGEN_SHARD.
    let again = root.path().join("again");
    ok(&array_task(
        &recipe,
        &again,
        &[
            ("HUNKGEN_SHARD", Some("2/3")),
            ("SLURM_ARRAY_TASK_ID", Some("2")),
            ("SLURM_ARRAY_TASK_MIN", Some("2")),
            ("SLURM_ARRAY_TASK_COUNT", Some("1")),
        ],
    ));
    assert_eq!(shard_of(&again.join("2")).0, 2);

    // Bad counts and ids: an error naming the variable, exit 2, nothing written.
    let bad = root.path().join("bad");
    for (id, min, count, says) in [
        ("0", Some("0"), Some("0"), "SLURM_ARRAY_TASK_COUNT=0"),
        ("0", Some("0"), Some("four"), "SLURM_ARRAY_TASK_COUNT=four"),
        ("0", Some("0"), None, "SLURM_ARRAY_TASK_COUNT="),
        (
            "5",
            Some("0"),
            Some("4"),
            "task 5 is shard 5, but there are 4 tasks",
        ),
        (
            "4",
            Some("1"),
            Some("3"),
            "task 4 is shard 3, but there are 3 tasks",
        ),
        ("0", Some("1"), Some("3"), "below SLURM_ARRAY_TASK_MIN=1"),
        ("x", Some("0"), Some("3"), "SLURM_ARRAY_TASK_ID=x"),
    ] {
        let o = array_task(
            &recipe,
            &bad,
            &[
                ("SLURM_ARRAY_TASK_ID", Some(id)),
                ("SLURM_ARRAY_TASK_MIN", min),
                ("SLURM_ARRAY_TASK_COUNT", count),
            ],
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{id} {count:?}: {err}");
        assert!(err.contains(says), "`{says}` not in: {err}");
        assert!(!bad.exists(), "{id} {count:?} wrote {}", bad.display());
    }
}

#[test]
fn the_slurm_check_fails_when_slurm_cannot_be_had_unless_skipped_deliberately() {
    use std::os::unix::fs::PermissionsExt;
    // A machine without Slurm or munge whose apt-get fails: a PATH with neither (Debian
    // installs the daemons in /usr/sbin) and an apt-get that exits 100.
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = dir.path().join("bin");
    fs::create_dir(&bin).expect("mkdir");
    let apt = bin.join("apt-get");
    fs::write(&apt, "#!/bin/sh\necho 'E: no network' >&2\nexit 100\n").expect("stub");
    fs::set_permissions(&apt, fs::Permissions::from_mode(0o755)).expect("chmod");
    for d in ["/usr/bin", "/bin"] {
        assert!(!std::path::Path::new(d).join("slurmctld").exists(), "{d}");
    }
    let check = |skip: Option<&str>| {
        let mut c = Command::new("bash");
        c.arg(manifest().join("scripts/check-slurm.sh"))
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .env("SLURM_CHECK_DIR", dir.path().join("w"))
            .env_remove("HUNKGEN_SKIP_SLURM");
        if let Some(v) = skip {
            c.env("HUNKGEN_SKIP_SLURM", v);
        }
        c.output().expect("bash runs")
    };
    let o = check(None);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(1), "NOT RUN must fail: {said}");
    assert!(said.contains("slurm check: NOT RUN ("), "{said}");
    assert!(
        !said.contains("PASSED") && !said.contains("SKIPPED"),
        "{said}"
    );
    // Only the explicit opt-out skips it, and says so.
    let o = check(Some("1"));
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        "slurm check: SKIPPED (HUNKGEN_SKIP_SLURM=1)"
    );
    assert_eq!(
        check(Some("yes")).status.code(),
        Some(1),
        "only =1 opts out"
    );
    // `make test` runs it, and CI never opts out.
    let makefile = fs::read_to_string(manifest().join("Makefile")).expect("Makefile");
    let test_target = makefile
        .split("\ntest:")
        .nth(1)
        .and_then(|t| t.split("\n\n").next())
        .expect("a test target");
    assert!(test_target.contains("$(MAKE) check-slurm"), "{test_target}");
    let ci = fs::read_to_string(manifest().join(".ci/run")).expect(".ci/run");
    assert!(ci.contains("make test"));
    assert!(
        !ci.contains("HUNKGEN_SKIP_SLURM"),
        ".ci/run must not skip the Slurm check"
    );
}

#[test]
fn the_slurm_array_script_hands_hunkgen_repos_to_the_build() {
    let root = tempfile::tempdir().expect("tempdir");
    let recipe = crate::common::demo_recipe(root.path());
    let missing = root.path().join("no-such-repos.yaml");
    let missing_text = missing.display().to_string();
    let out = array_task(
        &recipe,
        &root.path().join("shards"),
        &[
            ("SLURM_ARRAY_TASK_ID", Some("0")),
            ("SLURM_ARRAY_TASK_COUNT", Some("2")),
            ("HUNKGEN_REPOS", Some(&missing_text)),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "a missing --repos file must fail the task"
    );
    assert!(
        stderr.contains("no-such-repos.yaml"),
        "the error names the --repos file: {stderr}"
    );
    assert!(!root.path().join("shards/0/instances.jsonl").exists());
}
