//! A user whose checkout, caches or dataset live under `/tmp`, in a path with spaces: the
//! sandbox replaces `/tmp` with a private one, so what a run needs is bound into it
//! explicitly (the environment, uv and its cache, the working copy), and golden tests
//! run there as anywhere else instead of failing as infrastructure.

use crate::common::{hunkgen, validation_env};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory directly under `/tmp` whose name has spaces in it.
fn tmp_dir(prefix: &str) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in("/tmp")
        .expect("a directory under /tmp");
    assert!(dir.path().to_string_lossy().contains(' '));
    dir
}

/// uv and its seeded package cache (`make deps`), copied under `root`: everything a
/// Python environment build reads then lives under the private `/tmp`.
fn uv_under(root: &Path) -> Vec<(&'static str, PathBuf)> {
    let env: std::collections::BTreeMap<_, _> = validation_env().into_iter().collect();
    let uv = root.join("uv bin/uv");
    fs::create_dir_all(uv.parent().expect("parent")).expect("mkdir");
    fs::copy(&env["HUNKGEN_UV"], &uv).expect("copy uv");
    let cache = root.join("uv cache");
    crate::common::cp_a(&env["HUNKGEN_UV_CACHE"], &cache);
    assert!(
        cache.join(crate::common::uv_seeded_marker()).exists(),
        "the uv cache is seeded"
    );
    vec![("HUNKGEN_UV", uv), ("HUNKGEN_UV_CACHE", cache)]
}

#[test]
fn the_validation_tests_pass_with_everything_under_tmp_in_a_path_with_spaces() {
    let root = tmp_dir("hunkgen tmp check ");
    // This test binary again, on the sandbox and environment tests only, with their
    // scratch directories, environments and uv's cache under /tmp.
    let out = Command::new(std::env::current_exe().expect("the test binary"))
        .args(["validate::", "--test-threads", "2"])
        .envs(uv_under(root.path()))
        .env("HUNKGEN_TEST_TMPDIR", root.path().join("scratch dir"))
        .output()
        .expect("the tests run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let passed: usize = stdout
        .lines()
        .find_map(|l| l.strip_prefix("test result: ok. "))
        .and_then(|l| l.split(' ').next()?.parse().ok())
        .unwrap_or(0);
    assert!(passed >= 14, "the validate:: tests ran: {stdout}");
    for t in [
        "validate::sandbox_denies_writes_outside_the_working_copy",
        "validate::python_env_is_built_once_offline_with_hardlinks_and_reused",
        "validate::real_pytest_reports_parse_to_node_ids",
        "validate::golden_labels_and_a_flaky_test_from_real_reruns",
        "validate::real_junit_console_launcher_reports_parse_to_java_ids",
    ] {
        assert!(
            stdout.contains(&format!("test {t} ... ok")),
            "{t}: {stdout}"
        );
    }
}

#[test]
fn a_dataset_and_its_cache_under_tmp_in_a_path_with_spaces_validate() {
    let root = tmp_dir("hunkgen tmp data ");
    let demo = root.path().join("data set");
    crate::common::cp_a(crate::golden::demo(), &demo);
    // The recipe's own cache line goes: the cache is then HUNKGEN_CACHE_DIR's, also
    // under /tmp (cold, so the environment is built and every test really runs).
    let card = demo.join("dataset.yaml");
    let text = fs::read_to_string(&card).expect("card");
    let line = "    cache: ../target/hunkgen-cache\n";
    assert!(text.contains(line), "the demo recipe's cache line moved");
    fs::write(&card, text.replace(line, "")).expect("card");
    let cache = root.path().join("hunkgen cache");
    // A Python-only instance: its venv is built by `"$HUNKGEN_UV" pip install` in the
    // cache (the Java environment under /tmp is one of the validate:: tests).
    let rows = fs::read_to_string(demo.join("instances.jsonl")).expect("rows");
    let id = rows
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("row"))
        .find(|r| r["validation"]["suites"] == serde_json::json!(["python"]))
        .and_then(|r| r["instance_id"].as_str().map(str::to_string))
        .unwrap_or_else(|| panic!("no Python-only instance in the demo: {rows}"));
    let id = id.as_str();
    let o = hunkgen()
        .args(["validate", "-q", "--json", "--only", id])
        .arg(&demo)
        .envs(uv_under(root.path()))
        .env("HUNKGEN_CACHE_DIR", &cache)
        .env_remove("HUNKGEN_SHARD")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    assert_eq!(rows.len(), 1, "{stdout}");
    assert_eq!(rows[0]["instance_id"], id);
    assert_eq!(rows[0]["status"], "confirmed", "{}", rows[0]);
    // The environment and the runs were made in that cache, not elsewhere.
    let envs: Vec<String> = fs::read_dir(cache.join("envs"))
        .expect("environments in HUNKGEN_CACHE_DIR")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(envs.iter().any(|e| e.starts_with("acme-")), "{envs:?}");
    assert!(cache.join("runs").is_dir());
}

/// Defects4J's Perl passes its work directory to `git clone` and `ant` unquoted, so a
/// checkout under a path with a space fails inside Defects4J; hunkgen gives it a
/// symlink of a plain path instead. One Cli bug built and validated by the real
/// Defects4J with the projects, the cache (and so the checkouts) and the dataset under
/// `/tmp`, in a path with spaces.
#[test]
fn defects4j_validates_a_bug_whose_checkouts_live_in_a_path_with_spaces() {
    use crate::defects4j_build::{d4j_home, java_home, recipe};
    let _one = crate::defects4j_engine::serial();
    let root = tmp_dir("hunkgen d4j space ");
    let from =
        crate::common::manifest().join("../shared/defects4j-framework/framework/projects/Cli");
    let projects = root.path().join("the projects");
    fs::create_dir_all(&projects).expect("mkdir");
    crate::common::cp_a(&from, &projects.join("Cli"));
    let csv = projects.join("Cli/active-bugs.csv");
    let text = fs::read_to_string(&csv).expect("active-bugs.csv");
    let kept: Vec<&str> = text
        .lines()
        .enumerate()
        .filter(|(i, l)| *i == 0 || l.starts_with("1,"))
        .map(|(_, l)| l)
        .collect();
    fs::write(&csv, kept.join("\n") + "\n").expect("active-bugs.csv");
    let cache = root.path().join("the cache");
    let recipe = recipe(root.path(), &projects, &cache, &java_home());
    let repos = [(
        "Cli".to_string(),
        d4j_home().join("project_repos/commons-cli.git"),
    )]
    .into();
    let plan = hunkgen::recipe::load_with(&recipe, &repos).unwrap_or_else(|e| panic!("{e}"));
    let opts = hunkgen::pipeline::BuildOptions {
        output: Some(root.path().join("the dataset")),
        ..Default::default()
    };
    let summary = hunkgen::pipeline::build(&plan, &opts).unwrap_or_else(|e| panic!("{e}"));
    assert!(summary.rejected.is_empty(), "{:?}", summary.rejected);
    let cli1 = summary
        .instances
        .iter()
        .find(|i| i.instance_id == "Cli_1")
        .expect("Cli_1 kept");
    let v = cli1.validation.as_ref().expect("validation record");
    assert_eq!(v.d4j_agrees, Some(true), "{v:?}");
    assert!(!cli1.FAIL_TO_PASS.is_empty());
    // The checkouts were made where the cache is, under the path with spaces.
    let checkouts: Vec<String> = fs::read_dir(cache.join("d4j/checkouts"))
        .expect("checkouts in the cache")
        .flatten()
        .filter(|e| e.path().join(".defects4j.config").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        checkouts.iter().any(|c| c.starts_with("Cli-1")),
        "no checkout in {}: {checkouts:?}",
        cache.display()
    );
}
