//! Benchmark: `env: maven: auto` validation against the same Maven runs done by hand
//! (issue #31's target: at most 1.2× the hand runs), and a warm rebuild from the cache
//! (target: under 2 s per 100 instances).
//!
//! A Maven project is made here as a git history: an import of `N` calculators, each
//! wrong in two places far apart, then one commit per calculator that fixes both and
//! adds its test (one instance each). Everything resolves offline from the seed `make
//! deps` fills (`HUNKGEN_MAVEN_SEED`).
//!
//! - **hunkgen**: `hunkgen build --no-cache --jobs 1` with the environment warm, so it
//!   runs every Maven command again in its sandbox, besides mining, exporting and
//!   patching the trees, parsing the reports and writing the dataset.
//! - **by hand (the baseline)**: for every kept instance, the three runs hunkgen makes
//!   (base, base + test patch, + fix), each `mvn -o test -Dtest=<class>` with the
//!   environment's settings, JDK and local repository, in a tree exported and patched
//!   beforehand (untimed), one after another; only the `mvn` processes are timed.
//!
//! Run with `make bench`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use hunkgen::validate::env::maven::kind::{mvn_args, TEST_FLAGS};

/// Calculators (and so instances) in the history.
const N: usize = 8;

fn run(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().expect("command starts");
    assert!(
        out.status.success(),
        "{:?}: {}{}",
        cmd,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    run(Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.org")
        .env("GIT_COMMITTER_NAME", "bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.org")
        .env("GIT_AUTHOR_DATE", "2024-05-01T12:00:00Z")
        .env("GIT_COMMITTER_DATE", "2024-05-01T12:00:00Z"))
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

/// The calc project's pom, as `tests/it/maven_auto.rs` builds it (the seed's versions).
const POM: &str = include_str!("../tests/fixtures/maven/calc/pom.xml");

fn calc(i: usize, fixed: bool) -> String {
    let (lo, hi) = if fixed {
        ("a + b", "a * b")
    } else {
        ("a - b", "a + b")
    };
    format!(
        "package org.acme;\n\npublic class Calc{i} {{\n    public static int add(int a, int b) {{\n        \
         return {lo};\n    }}\n{pad}\n    public static int mul(int a, int b) {{\n        return {hi};\n    }}\n}}\n",
        pad = "\n    // padding\n".repeat(8)
    )
}

fn test(i: usize) -> String {
    format!(
        "package org.acme;\n\nimport static org.junit.Assert.assertEquals;\n\nimport org.junit.Test;\n\n\
         public class Calc{i}Test {{\n    @Test\n    public void addsAndMultiplies() {{\n        \
         assertEquals(5, Calc{i}.add(2, 3));\n        assertEquals(6, Calc{i}.mul(2, 3));\n    }}\n}}\n"
    )
}

/// The history: an import, then one fix per calculator.
fn history(repo: &Path) {
    std::fs::create_dir_all(repo).expect("mkdir");
    git(repo, &["init", "-q", "-b", "main"]);
    write(repo, "pom.xml", POM);
    for i in 0..N {
        write(
            repo,
            &format!("src/main/java/org/acme/Calc{i}.java"),
            &calc(i, false),
        );
    }
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "Initial import"]);
    for i in 0..N {
        write(
            repo,
            &format!("src/main/java/org/acme/Calc{i}.java"),
            &calc(i, true),
        );
        write(
            repo,
            &format!("src/test/java/org/acme/Calc{i}Test.java"),
            &test(i),
        );
        git(repo, &["add", "-A"]);
        git(
            repo,
            &["commit", "-q", "-m", &format!("Fix add and mul of Calc{i}")],
        );
    }
}

/// One `hunkgen build … --timings`: its wall time and its validate stage's seconds.
fn hunkgen(args: &[&str], root: &Path, cache: &Path) -> (f64, f64) {
    let exe = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/release/hunkgen");
    let start = Instant::now();
    let out = run(Command::new(exe)
        .args(args)
        .arg("--timings")
        .current_dir(root)
        .env("HUNKGEN_CACHE_DIR", cache));
    let wall = start.elapsed().as_secs_f64();
    let said = String::from_utf8_lossy(&out.stderr);
    let validate = said
        .lines()
        .find_map(|l| l.strip_prefix("timings: "))
        .and_then(|l| l.split(", ").find_map(|p| p.strip_prefix("validate ")))
        .and_then(|p| p.trim_end_matches(" s").parse::<f64>().ok())
        .expect("`--timings` names the validate stage");
    (wall, validate)
}

/// The three Maven runs of one instance by hand; the seconds `mvn` took.
fn by_hand(row: &serde_json::Value, repo: &Path, envs: &Path, work: &Path) -> f64 {
    let id = row["instance_id"].as_str().expect("id");
    let env = envs.join(
        row["validation"]["environments"][0]
            .as_str()
            .expect("environment"),
    );
    let home = std::fs::read_to_string(env.join("java_home")).expect("java_home");
    let home = home.trim();
    let extra = std::fs::read_to_string(env.join("mvn.args")).unwrap_or_default();
    let class = row["FAIL_TO_PASS"][0]
        .as_str()
        .expect("a FAIL_TO_PASS test")
        .split("::")
        .next()
        .expect("class")
        .to_string();
    let script = format!(
        "mvn -o -q {} {} -Dtest={class} {} test",
        mvn_args(&env.display().to_string()),
        extra.trim(),
        TEST_FLAGS.join(" ")
    );
    let base = row["base_commit"].as_str().expect("base");
    let patches = [
        row["test_patch"].as_str().unwrap_or_default(),
        row["patch"].as_str().unwrap_or_default(),
    ];
    let mut seconds = 0.0;
    for (name, n) in [("base", 0), ("before", 1), ("after", 2)] {
        let tree = work.join(id).join(name);
        std::fs::create_dir_all(&tree).expect("mkdir");
        let archive = git(repo, &["archive", base]).stdout;
        let mut tar = Command::new("tar")
            .args(["-x", "-C"])
            .arg(&tree)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("tar");
        std::io::Write::write_all(&mut tar.stdin.take().expect("stdin"), &archive).expect("tar in");
        assert!(tar.wait().expect("tar").success());
        for p in &patches[..n] {
            let mut apply = Command::new("git")
                .args(["apply", "-"])
                .current_dir(&tree)
                .stdin(std::process::Stdio::piped())
                .spawn()
                .expect("git apply");
            std::io::Write::write_all(&mut apply.stdin.take().expect("stdin"), p.as_bytes())
                .expect("apply in");
            assert!(apply.wait().expect("apply").success());
        }
        let path = format!("{home}/bin:{}", std::env::var("PATH").unwrap_or_default());
        let start = Instant::now();
        let out = Command::new("sh")
            .args(["-c", &script])
            .current_dir(&tree)
            .env("JAVA_HOME", home)
            .env("PATH", path)
            .output()
            .expect("mvn");
        seconds += start.elapsed().as_secs_f64();
        assert!(
            out.status.success(),
            "{script}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    seconds
}

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let repo = root.join("calc");
    history(&repo);
    let cache = root.join("cache");
    std::fs::write(
        root.join("recipe.yaml"),
        "name: calc\nsource:\n  git:\n    repo: calc\nfiles:\n  code_extensions: [java]\n\
         select:\n  min_code_hunks: 2\nvalidate:\n  reruns: 1\n  timeout: 600\n  \
         network_for_setup: false\n  suites:\n    - name: maven\n      env:\n        \
         maven: auto\n      report: junit\n",
    )
    .expect("recipe");
    let build = |extra: &[&str]| {
        let mut args = vec!["build", "-q", "--jobs", "1", "recipe.yaml", "-o", "out"];
        args.extend_from_slice(extra);
        hunkgen(&args, root, &cache)
    };
    let (cold, _) = build(&[]);
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(root.join("out/instances.jsonl"))
        .expect("instances")
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    assert_eq!(rows.len(), N, "every fix is kept");
    let (warm, validate) = build(&["--no-cache"]);
    let work = root.join("hand");
    let hand: f64 = rows
        .iter()
        .map(|r| by_hand(r, &repo, &cache.join("envs"), &work))
        .sum();
    let (cached, _) = build(&[]);
    println!("validate_maven ({N} instances, 3 Maven runs each; one worker)");
    println!("  cold build (environment resolved from the seed, all runs) : {cold:>8.2}s wall");
    println!(
        "  by hand: the same {} mvn -o runs                           : {hand:>8.2}s   (baseline)",
        3 * N
    );
    println!(
        "  hunkgen's validate stage, --no-cache (warm environment)   : {validate:>8.2}s   ratio {:.3} of the hand runs (target <= 1.2)",
        validate / hand.max(1e-9)
    );
    println!(
        "  the whole build, --no-cache (+ mining, states, report)    : {warm:>8.2}s   ratio {:.3}",
        warm / hand.max(1e-9)
    );
    println!(
        "  rebuild from the cache                                    : {cached:>8.2}s   {:.2}s per 100 instances (target < 2)",
        cached * 100.0 / N as f64
    );
}
