//! Deterministic shards and `hunkgen merge`: the validated demo built as 4 shards (2 at
//! a time, each really running its golden tests) and merged is the one-machine build,
//! made by another execution with a cache of its own (up to measured times), and byte
//! for byte the build the shards' cache answers; merge refuses partial, missing, doubled and foreign shards; a
//! shard killed midway leaves nothing a merge accepts, and re-running it gives the same
//! output.

use crate::common::{demo_recipe_validated, hunkgen, validation_env};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every file under `root` (relative path → bytes; symlinks as `-> target`), except the
/// two kinds of git files that no two builds reproduce, even on one machine: `.git/index`
/// (it caches file stat data: inode, mtime) and pack files (pack-objects' delta search
/// is not deterministic). Git repositories are compared by their objects instead
/// ([`git_objects`]). In `dataset.yaml` the `built_at:` line is dropped: it is the one
/// card field a merge does not reproduce (it holds the latest shard's build time).
pub(crate) fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in fs::read_dir(dir).expect("read_dir") {
            let e = e.expect("entry");
            let p = e.path();
            let rel = p
                .strip_prefix(root)
                .expect("under root")
                .display()
                .to_string();
            let meta = fs::symlink_metadata(&p).expect("meta");
            let name = e.file_name().to_string_lossy().into_owned();
            if meta.is_dir() {
                walk(root, &p, out);
            } else if meta.file_type().is_symlink() {
                let t = fs::read_link(&p).expect("link");
                out.insert(rel, format!("-> {}", t.display()).into_bytes());
            } else if (name == "index" && rel.contains(".git/"))
                || (name.starts_with("pack-")
                    && (rel.contains("objects/pack/") || rel.contains(".packs/")))
            {
                continue;
            } else if rel == "dataset.yaml" {
                let text = fs::read_to_string(&p).expect("card");
                let kept: Vec<&str> = text
                    .lines()
                    .filter(|l| !l.starts_with("built_at:"))
                    .collect();
                out.insert(rel, kept.join("\n").into_bytes());
            } else {
                out.insert(rel, fs::read(&p).expect("read"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Each git repository under `root` (a directory holding `.git`) → its objects (id, type,
/// size) and HEAD.
pub(crate) fn git_objects(root: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        if dir.join(".git").is_dir() {
            let run = |args: &[&str]| {
                let o = Command::new("git")
                    .arg("-C")
                    .arg(dir)
                    .args(args)
                    .output()
                    .expect("git");
                assert!(o.status.success(), "{}: git {args:?}", dir.display());
                String::from_utf8_lossy(&o.stdout).into_owned()
            };
            let rel = dir.strip_prefix(root).expect("under").display().to_string();
            let objects = run(&["cat-file", "--batch-all-objects", "--batch-check"]);
            let head = run(&["rev-parse", "HEAD"]);
            out.insert(rel, format!("{head}{objects}"));
            return;
        }
        for e in fs::read_dir(dir).expect("read_dir").flatten() {
            if e.file_type().map(|t| t.is_dir()).unwrap_or(false) {
                walk(root, &e.path(), out);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Assert two dataset directories are the same build (see [`tree`]).
pub(crate) fn assert_same_dataset(one: &Path, merged: &Path) {
    let (a, b) = (tree(one), tree(merged));
    let names = |t: &BTreeMap<String, Vec<u8>>| t.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b), "the same files");
    for (name, bytes) in &a {
        assert!(
            &b[name] == bytes,
            "{name} differs between {} and {}",
            one.display(),
            merged.display()
        );
    }
    assert_eq!(
        git_objects(one),
        git_objects(merged),
        "the same state repositories"
    );
}

/// A build's files with what an independent execution of the same recipe measures or
/// places differently masked: each test log's contents (times, working-copy paths; the
/// same logs exist), `validation.seconds` in instances.jsonl and the card's checksum of
/// it, and the directory `home` the build ran in wherever a text file names it (the
/// card's recipe and repository paths, the report's sources). What later commands write
/// into a dataset (evaluations, runs, validations, hidden entries such as
/// `.validate-logs`) is left out.
pub(crate) fn build_files(root: &Path, home: &Path) -> BTreeMap<String, Vec<u8>> {
    let home = home.display().to_string();
    let later = |rel: &str| {
        let top = rel.split('/').next().unwrap_or("");
        ["evaluations", "runs", "validations"].contains(&top)
            || top.starts_with("runs-shard-")
            || top.starts_with('.')
    };
    let mut out = BTreeMap::new();
    for (rel, bytes) in tree(root) {
        if later(&rel) {
            continue;
        }
        let text = || String::from_utf8_lossy(&bytes).into_owned();
        let kept = if rel.starts_with("logs/") {
            b"(a test log)".to_vec()
        } else if rel == "instances.jsonl" {
            let rows: Vec<String> = text()
                .lines()
                .map(|l| {
                    let mut row: serde_json::Value = serde_json::from_str(l).expect("row");
                    if let Some(v) = row["validation"].as_object_mut() {
                        v.remove("seconds");
                    }
                    row.to_string()
                })
                .collect();
            rows.join("\n").into_bytes()
        } else if rel == "dataset.yaml" {
            let t = text().replace(&home, "<home>");
            let mut lines: Vec<&str> = t.lines().collect();
            if let Some(i) = lines.iter().position(|l| *l == "- - instances.jsonl") {
                if i + 1 < lines.len() {
                    lines[i + 1] = "  (its checksum)";
                }
            }
            lines.join("\n").into_bytes()
        } else {
            match String::from_utf8(bytes) {
                Ok(t) => t.replace(&home, "<home>").into_bytes(),
                Err(e) => e.into_bytes(),
            }
        };
        out.insert(rel, kept);
    }
    out
}

/// Assert two builds of one recipe, each made by its own execution with an empty cache
/// of its own in its own directory (`one_home`, `merged_home`), are the same dataset up
/// to what is measured (see [`build_files`]).
pub(crate) fn assert_same_build(one: &Path, one_home: &Path, merged: &Path, merged_home: &Path) {
    let (a, b) = (build_files(one, one_home), build_files(merged, merged_home));
    let names = |t: &BTreeMap<String, Vec<u8>>| t.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b), "the same files");
    for (name, bytes) in &a {
        assert!(
            &b[name] == bytes,
            "{name} differs between {} and {}",
            one.display(),
            merged.display()
        );
    }
    assert_eq!(
        git_objects(one),
        git_objects(merged),
        "the same state repositories"
    );
}

fn build_shard(recipe: &Path, shard: &str, out: &Path) -> std::process::Output {
    hunkgen()
        .args(["build", "-q", "--shard", shard, "-o"])
        .arg(out)
        .arg(recipe)
        .envs(validation_env())
        .output()
        .expect("runs")
}

/// Wait until `started` holds (at most a minute), let the process work 300 ms more,
/// check it is still running, and SIGKILL it: a shard killed midway.
pub(crate) fn kill_midway(mut child: std::process::Child, started: impl Fn() -> bool) {
    let since = std::time::Instant::now();
    while !started() {
        assert!(since.elapsed().as_secs() < 60, "the shard never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        child.try_wait().expect("try_wait").is_none(),
        "still running when killed"
    );
    child.kill().expect("kill");
    child.wait().expect("reaped");
}

pub(crate) fn merge(out: &Path, shards: &[PathBuf]) -> std::process::Output {
    hunkgen()
        .arg("merge")
        .arg(out)
        .args(shards)
        .output()
        .expect("runs")
}

/// Assert success; stdout.
fn ok(o: &std::process::Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub(crate) fn refused(o: &std::process::Output, says: &[&str]) {
    assert!(!o.status.success(), "merge accepted it");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    for s in says {
        assert!(err.contains(s), "`{s}` not in: {err}");
    }
}

/// Shard files whose bytes a re-run reproduces: all but the build time and host lines.
fn shard_bytes(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut t = tree(dir);
    if let Some(m) = t.get_mut("shard.yaml") {
        let text = String::from_utf8_lossy(m).into_owned();
        *m = text
            .lines()
            .filter(|l| !l.starts_with("built_at:") && !l.starts_with("host:"))
            .collect::<Vec<_>>()
            .join("\n")
            .into_bytes();
    }
    t
}

#[test]
fn four_shards_merged_equal_the_one_machine_build_and_bad_shards_are_refused() {
    let root = tempfile::tempdir().expect("tempdir");
    let recipe = demo_recipe_validated(root.path());
    let shards: Vec<PathBuf> = (0..4)
        .map(|k| root.path().join(format!("shards/{k}")))
        .collect();
    // Cold cache: the shards run the golden tests themselves, two at a time.
    for pair in [[0, 1], [2, 3]] {
        let children: Vec<_> = pair
            .iter()
            .map(|&k| {
                let mut c: Command = Command::new(assert_cmd::cargo::cargo_bin("hunkgen"));
                c.args(["build", "-q", "-o"])
                    .arg(&shards[k])
                    .arg(&recipe)
                    .envs(validation_env())
                    .env("HUNKGEN_SHARD", format!("{k}/4"));
                c.stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .expect("spawn")
            })
            .collect();
        for c in children {
            let o = c.wait_with_output().expect("wait");
            ok(&o);
        }
    }
    let mut ids = Vec::new();
    for (k, s) in shards.iter().enumerate() {
        let m: serde_json::Value =
            serde_norway::from_str(&fs::read_to_string(s.join("shard.yaml")).expect("manifest"))
                .expect("yaml");
        assert_eq!(m["shard"], k as u64);
        assert_eq!(m["count"], 4);
        for id in m["instances"].as_array().expect("ids") {
            let id = id.as_str().expect("id");
            assert_eq!(
                hunkgen::shard::Shard::of(id, 4),
                k as u64,
                "{id} by its hash"
            );
            ids.push(id.to_string());
        }
    }
    assert_eq!(ids.len(), 6, "the six demo instances, once each: {ids:?}");
    // The one-machine build: the shared validated demo, built from the same recipe in a
    // directory of its own, so with its own empty cache (the recipe's is relative to
    // it). Merged equals one machine across two independent executions of every test.
    let one = crate::golden::demo();
    let one_home = one
        .parent()
        .and_then(Path::parent)
        .expect("the demo's directory");
    assert_ne!(one_home, root.path());
    assert!(
        one_home.join("target/hunkgen-cache/runs").is_dir(),
        "its own cache"
    );
    let merged = root.path().join("merged");
    let mut reversed = shards.clone();
    reversed.reverse();
    let o = merge(&merged, &reversed);
    ok(&o);
    assert!(String::from_utf8_lossy(&o.stdout).contains("6 instances"));
    assert_same_build(one, one_home, &merged, root.path());
    // The merged card differs only in built_at, besides the directory each build ran in
    // and the checksum of the measured rows.
    let card = |d: &Path| fs::read_to_string(d.join("dataset.yaml")).expect("card");
    let one_card = card(one);
    let lines: Vec<&str> = one_card.lines().collect();
    let home = |l: &str, h: &Path| l.replace(&h.display().to_string(), "<home>");
    let diff: Vec<(usize, String, String)> = lines
        .iter()
        .zip(card(&merged).lines())
        .enumerate()
        .filter(|(_, (a, b))| home(a, one_home) != home(b, root.path()))
        .map(|(i, (a, b))| (i, a.to_string(), b.to_string()))
        .collect();
    assert!(
        diff.iter().all(|(i, a, _)| a.starts_with("built_at:")
            || (*i > 0 && lines[i - 1] == "- - instances.jsonl")),
        "{diff:?}"
    );
    // The shards' cache now answers a one-machine build of the same recipe: byte for
    // byte the merged dataset.
    let cached = root.path().join("datasets/demo");
    ok(&hunkgen()
        .args(["build", "-q"])
        .arg(&recipe)
        .envs(validation_env())
        .output()
        .expect("runs"));
    assert_same_dataset(&cached, &merged);

    // Refusals, one line each, naming what is wrong.
    let out = root.path().join("refused");
    refused(&merge(&out, &shards[..3]), &["3/4", "missing"]);
    let mut twice = shards.clone();
    twice.push(shards[1].clone());
    refused(&merge(&out, &twice), &["1/4", "twice"]);
    let partial = root.path().join("partial");
    crate::common::cp_a(&shards[2], &partial);
    fs::remove_file(partial.join("shard.yaml")).expect("rm");
    let mut with_partial = shards.clone();
    with_partial[2] = partial.clone();
    refused(
        &merge(&out, &with_partial),
        &["partial", "not a complete shard"],
    );
    let edited = root.path().join("edited");
    crate::common::cp_a(&shards[3], &edited);
    fs::write(edited.join("instances.jsonl"), "").expect("truncate");
    let mut with_edited = shards.clone();
    with_edited[3] = edited;
    refused(&merge(&out, &with_edited), &["edited", "checksum"]);
    let other_n = root.path().join("other-n");
    ok(&build_shard(&recipe, "0/2", &other_n));
    let mut with_n = shards.clone();
    with_n[0] = other_n;
    refused(&merge(&out, &with_n), &["shard count"]);
    let other_recipe = root.path().join("recipes/demo-changed.yaml");
    let text = fs::read_to_string(&recipe).expect("recipe");
    fs::write(&other_recipe, format!("{text}\n# another recipe\n")).expect("write");
    let foreign = root.path().join("foreign");
    ok(&build_shard(&other_recipe, "1/4", &foreign));
    let mut with_foreign = shards.clone();
    with_foreign[1] = foreign;
    refused(&merge(&out, &with_foreign), &["recipe sha256"]);
    assert!(!out.exists(), "nothing written by a refused merge");

    // A shard killed midway: nothing a merge accepts; re-run, the same output.
    let retry = root.path().join("retry-1");
    let child = Command::new(assert_cmd::cargo::cargo_bin("hunkgen"))
        .args(["build", "-q", "--no-cache", "--shard", "1/4", "-o"])
        .arg(&retry)
        .arg(&recipe)
        .envs(validation_env())
        .spawn()
        .expect("spawn");
    let building = || {
        fs::read_dir(root.path()).ok().is_some_and(|d| {
            d.flatten().any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with(".retry-1.building-")
            })
        })
    };
    kill_midway(child, building);
    let mut with_killed = shards.clone();
    with_killed[1] = retry.clone();
    refused(
        &merge(&out, &with_killed),
        &["retry-1", "not a complete shard"],
    );
    ok(&build_shard(&recipe, "1/4", &retry));
    assert_eq!(
        shard_bytes(&retry),
        shard_bytes(&shards[1]),
        "re-run is the same"
    );
    let again = root.path().join("merged-again");
    ok(&merge(&again, &with_killed));
    assert_same_dataset(&cached, &again);
    assert_same_build(one, one_home, &again, root.path());
}

#[test]
fn shard_from_the_environment_and_bad_values() {
    let root = tempfile::tempdir().expect("tempdir");
    let recipe = crate::common::demo_recipe(root.path());
    let o = hunkgen()
        .args(["build", "-q", "--shard", "4/4"])
        .arg(&recipe)
        .output()
        .expect("runs");
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--shard `4/4`"));
    let o = hunkgen()
        .args(["build", "-q"])
        .arg(&recipe)
        .env("JOB_COMPLETION_INDEX", "2")
        .env_remove("HUNKGEN_SHARD")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .output()
        .expect("runs");
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("HUNKGEN_SHARD_COUNT"));
    // Slurm's variables: the default output is <output>-shard-K-of-N.
    let o = hunkgen()
        .args(["build", "-q"])
        .arg(&recipe)
        .env_remove("HUNKGEN_SHARD")
        .env("SLURM_ARRAY_TASK_ID", "2")
        .env("SLURM_ARRAY_TASK_COUNT", "3")
        .output()
        .expect("runs");
    ok(&o);
    let dir = root.path().join("datasets/demo-shard-2-of-3");
    let m = fs::read_to_string(dir.join("shard.yaml")).expect("manifest");
    assert!(m.contains("shard: 2\n") && m.contains("count: 3\n"), "{m}");
}

#[test]
fn validate_by_shard_covers_every_instance_once() {
    let dataset = crate::golden::demo();
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut seen = Vec::new();
    let mut shards = Vec::new();
    for k in 0..3 {
        let dir = tmp.path().join(format!("shard-{k}"));
        let o = hunkgen()
            .args(["validate", "-q", "--json", "-o"])
            .arg(&dir)
            .arg(dataset)
            .env("HUNKGEN_SHARD", format!("{k}/3"))
            .envs(validation_env())
            .output()
            .expect("runs");
        ok(&o);
        for line in String::from_utf8_lossy(&o.stdout).lines() {
            let row: serde_json::Value = serde_json::from_str(line).expect("row");
            let id = row["instance_id"].as_str().expect("id").to_string();
            assert_eq!(hunkgen::shard::Shard::of(&id, 3), k, "{id}");
            assert_eq!(row["status"], "confirmed", "{row}");
            seen.push(id);
        }
        // The shard's directory: the rows it printed, and a manifest.
        assert_eq!(
            fs::read(dir.join("validate.jsonl")).expect("rows"),
            o.stdout,
            "validate.jsonl holds what --json printed"
        );
        let m = fs::read_to_string(dir.join("shard.yaml")).expect("manifest");
        assert!(m.contains("kind: validation"), "{m}");
        shards.push(dir);
    }
    seen.sort();
    let mut all: Vec<String> = fs::read_to_string(dataset.join("instances.jsonl"))
        .expect("rows")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("row");
            v["instance_id"].as_str().expect("id").to_string()
        })
        .collect();
    all.sort();
    assert_eq!(seen, all, "each instance validated by exactly one shard");

    // Merged (given in any order) = one machine's `validate --output`.
    let merged = tmp.path().join("merged");
    let mut reversed = shards.clone();
    reversed.reverse();
    let said = ok(&merge(&merged, &reversed));
    assert!(
        said.contains(&format!(
            "merged 3 validation shard(s) into {}: {} confirmed, 0 changed",
            merged.join("validate.jsonl").display(),
            all.len()
        )),
        "{said}"
    );
    let one = tmp.path().join("one");
    ok(&hunkgen()
        .args(["validate", "-q", "-o"])
        .arg(&one)
        .arg(dataset)
        .env_remove("HUNKGEN_SHARD")
        .envs(validation_env())
        .output()
        .expect("runs"));
    assert!(!one.join("shard.yaml").exists(), "not a shard");
    assert_eq!(
        fs::read(one.join("validate.jsonl")).expect("one"),
        fs::read(merged.join("validate.jsonl")).expect("merged"),
        "validate.jsonl byte for byte"
    );
    let refused_out = tmp.path().join("refused");
    refused(&merge(&refused_out, &shards[1..]), &["0/3", "missing"]);
    assert!(!refused_out.exists());
}
