//! Benchmark: golden-test validation of Defects4J bugs, hunkgen against plain Defects4J
//! on the same bugs in the same invocation (target: hunkgen ≥ 2× faster per bug).
//!
//! Baseline: what a user's script does for each bug, one after the other:
//! `defects4j checkout -v <id>b && compile && test -r` (the relevant tests, the same ones
//! hunkgen runs), then the same for `<id>f`; its fail-to-pass tests are those failing on
//! `b` and not on `f`. hunkgen:
//! `hunkgen build` of a recipe naming the same bugs, `validate.defects4j` with the
//! relevant tests and one run per version, from an empty cache, once with one worker and
//! once with two; then again from the warm cache. Both run the same framework and JDK.
//! The verdicts must agree (hunkgen's FAIL_TO_PASS equals the baseline's, bug by bug).
//!
//! `make bench` runs it against the framework `make d4j-deps` installs (Cli and Codec).
//! For Lang (and any other project) point `HUNKGEN_BENCH_D4J_HOME` at a full Defects4J
//! tree whose `project_repos` holds the upstream mirrors
//! (`scripts/install-defects4j.sh framework <defects4j checkout> <mirrors> <dest>`);
//! `HUNKGEN_BENCH_D4J_BUGS=Cli_1,Lang_4` chooses the bugs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// HUNK4J bugs of the three projects the issue names; those whose project is missing
/// from the framework are left out (and said so).
const DEFAULT_BUGS: &[&str] = &["Cli_1", "Cli_7", "Codec_6", "Codec_8", "Lang_4", "Lang_5"];

const JAVA_HOME: &str = "/usr/lib/jvm/java-11-openjdk-amd64";

fn main() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let home = std::env::var_os("HUNKGEN_BENCH_D4J_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("target/defects4j"));
    let java = std::env::var_os("HUNKGEN_D4J_JAVA_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(JAVA_HOME));
    if !home.join("framework/bin/defects4j").is_file() {
        panic!(
            "no Defects4J at {} (run `make d4j-deps`, or set HUNKGEN_BENCH_D4J_HOME)",
            home.display()
        );
    }
    let wanted: Vec<String> = std::env::var("HUNKGEN_BENCH_D4J_BUGS")
        .ok()
        .filter(|v| !v.is_empty())
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
        .unwrap_or_else(|| DEFAULT_BUGS.iter().map(|s| s.to_string()).collect());
    let projects = home.join("framework/projects");
    let mut bugs: Vec<(String, u32)> = Vec::new();
    for b in &wanted {
        let (p, n) = b.rsplit_once('_').expect("bug ids are <Project>_<number>");
        let n: u32 = n.parse().expect("bug number");
        let repo_ok = project_repo(&home, p).is_some_and(|r| r.exists());
        if projects.join(p).is_dir() && repo_ok {
            bugs.push((p.to_string(), n));
        } else {
            println!(
                "validate_d4j: {b} left out: {p} is not installed in {}",
                home.display()
            );
        }
    }
    assert!(!bugs.is_empty(), "no bug to run");

    let scratch = tempfile::tempdir().expect("tempdir");
    let root = scratch.path();

    // Baseline: plain Defects4J, bug after bug.
    let mut base_secs: BTreeMap<String, f64> = BTreeMap::new();
    let mut base_f2p: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (p, n) in &bugs {
        let id = format!("{p}_{n}");
        let start = Instant::now();
        let mut failing: Vec<BTreeSet<String>> = Vec::new();
        for v in ["b", "f"] {
            let w = root.join(format!("plain/{p}-{n}{v}"));
            d4j(
                &home,
                &java,
                root,
                &[
                    "checkout",
                    "-p",
                    p,
                    "-v",
                    &format!("{n}{v}"),
                    "-w",
                    &w.to_string_lossy(),
                ],
            );
            d4j(&home, &java, &w, &["compile"]);
            d4j(&home, &java, &w, &["test", "-r"]);
            failing.push(failing_tests(&w.join("failing_tests")));
        }
        let secs = start.elapsed().as_secs_f64();
        // Printed as it goes: a long baseline that dies later still leaves its figures.
        println!("  plain defects4j {id:<12}: {secs:>8.1}s (checkout+compile+test -r, b and f)");
        base_secs.insert(id.clone(), secs);
        base_f2p.insert(id, failing[0].difference(&failing[1]).cloned().collect());
    }

    // hunkgen, from an empty cache: one worker, then two; then warm.
    let recipe = root.join("recipe.yaml");
    let ids: Vec<String> = bugs.iter().map(|(p, n)| format!("{p}_{n}")).collect();
    let mut hunkgen_runs = Vec::new();
    for (label, jobs, cache) in [
        ("cold, 1 worker ", "1", "cache-1"),
        ("cold, 2 workers", "2", "cache-2"),
        ("warm (cache)   ", "2", "cache-2"),
    ] {
        write_recipe(&recipe, &projects, &home, &java, &root.join(cache), &ids);
        let out = root.join(format!("ds-{cache}"));
        let start = Instant::now();
        let run = Command::new(manifest.join("target/release/hunkgen"))
            .args(["build", "-q", "--jobs", jobs, "-o"])
            .arg(&out)
            .arg(&recipe)
            .output()
            .expect("hunkgen runs (cargo build --release first)");
        let secs = start.elapsed().as_secs_f64();
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        println!(
            "  hunkgen {label}      : {secs:>8.1}s for {} bugs",
            ids.len()
        );
        hunkgen_runs.push((label, secs, read_f2p(&out)));
    }

    // The verdicts agree, bug by bug (with any run of hunkgen).
    let mut agree = 0;
    for id in &ids {
        let plain = &base_f2p[id];
        let mine = hunkgen_runs[0].2.get(id);
        if mine == Some(plain) {
            agree += 1;
        } else {
            println!(
                "validate_d4j: {id}: plain Defects4J fail-to-pass {plain:?}, hunkgen {mine:?} (rejected.jsonl has the reason)"
            );
        }
    }

    let n = ids.len() as f64;
    let plain_total: f64 = base_secs.values().sum();
    println!(
        "validate_d4j ({} bugs: {}; framework {})",
        ids.len(),
        ids.join(", "),
        home.display()
    );
    println!(
        "  plain defects4j per bug      : {:>8.1}s   (baseline)",
        plain_total / n
    );
    for (label, secs, _) in &hunkgen_runs {
        println!(
            "  hunkgen {label}      : {:>8.1}s per bug   {:.2}x faster (target >= 2)",
            secs / n,
            plain_total / secs
        );
    }
    println!(
        "  verdicts agree               : {agree}/{} bugs",
        ids.len()
    );
    assert_eq!(agree, ids.len(), "hunkgen and plain Defects4J disagree");
}

/// `project_repos/<name>.git` of a project, from `my $name` in its Perl module.
fn project_repo(home: &Path, project: &str) -> Option<PathBuf> {
    let pm =
        std::fs::read_to_string(home.join(format!("framework/core/Project/{project}.pm"))).ok()?;
    let line = pm
        .lines()
        .find(|l| l.trim_start().starts_with("my $name"))?;
    let name = line.split('"').nth(1)?;
    Some(home.join("project_repos").join(format!("{name}.git")))
}

/// One plain `defects4j` call, as a user's script makes it (no sandbox).
fn d4j(home: &Path, java: &Path, cwd: &Path, args: &[&str]) {
    let path = format!(
        "{}:{}",
        java.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(home.join("framework/bin/defects4j"))
        .args(args)
        .current_dir(cwd)
        .env("TZ", "America/Los_Angeles")
        .env("JAVA_HOME", java)
        .env("PATH", path)
        .env(
            "ANT_ARGS",
            format!(
                "-lib {}",
                home.join("framework/projects/lib/junit-4.12-hamcrest-1.3.jar")
                    .display()
            ),
        )
        .output()
        .expect("defects4j runs");
    assert!(
        out.status.success(),
        "defects4j {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The test ids of Defects4J's `failing_tests` (`--- pkg.Class::method` lines).
fn failing_tests(path: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.strip_prefix("--- "))
        .map(|t| t.trim().to_string())
        .collect()
}

fn write_recipe(
    path: &Path,
    projects: &Path,
    home: &Path,
    java: &Path,
    cache: &Path,
    ids: &[String],
) {
    let names: BTreeSet<&str> = ids
        .iter()
        .filter_map(|i| i.rsplit_once('_'))
        .map(|(p, _)| p)
        .collect();
    let text = format!(
        "name: bench-d4j\n\
         source:\n  defects4j:\n    path: {}\n    projects: [{}]\n    bugs: [{}]\n\
         files:\n  code_extensions: [java]\n  test_dirs: []\n  test_name_prefixes: []\n  test_name_suffixes: []\n\
         select:\n  min_code_hunks: 1\n\
         annotate:\n  enabled: false\n\
         validate:\n  reruns: 1\n  timeout: 1800\n  sandbox: required\n  cache: {}\n\
         \x20 defects4j:\n    home: {}\n    java_home: {}\n    tests: relevant\n",
        projects.display(),
        names.into_iter().collect::<Vec<_>>().join(", "),
        ids.join(", "),
        cache.display(),
        home.display(),
        java.display()
    );
    std::fs::write(path, text).expect("write recipe");
}

/// FAIL_TO_PASS per instance of a built dataset.
fn read_f2p(dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let text = std::fs::read_to_string(dir.join("instances.jsonl")).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| {
            let id = v["instance_id"].as_str().unwrap_or_default().to_string();
            let f2p = v["FAIL_TO_PASS"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|t| t.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            (id, f2p)
        })
        .collect()
}
