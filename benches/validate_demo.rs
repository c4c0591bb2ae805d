//! Benchmark: golden-test validation of the demo, hunkgen's own time against the time of
//! the test processes it runs (target: overhead ≤ 10% of the test time), a re-validation
//! from the cache, and how fast a warm Python environment is ready (target < 0.5 s).
//!
//! Run with `make bench` (it installs uv, pytest, bubblewrap and JUnit first). The build
//! runs with one worker, so wall time = hunkgen's own time + the test processes' time.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn hunkgen(args: &[&str], cwd: &Path) -> (f64, std::process::Output) {
    let exe = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/release/hunkgen");
    let start = Instant::now();
    let out = Command::new(exe)
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("hunkgen runs (cargo build --release first)");
    (start.elapsed().as_secs_f64(), out)
}

fn main() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    common::demo_layout(root);

    // Cold: environments built, every run executed.
    let (cold, out) = hunkgen(&["build", "-q", "--jobs", "1", "recipes/demo.yaml"], root);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Warm environments, every test run again: the overhead measurement.
    let (wall, out) = hunkgen(
        &[
            "build",
            "-q",
            "--jobs",
            "1",
            "--no-cache",
            "recipes/demo.yaml",
        ],
        root,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows =
        std::fs::read_to_string(root.join("datasets/demo/instances.jsonl")).expect("instances");
    let mut tests = 0.0;
    for line in rows.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("row");
        let s = &v["validation"]["seconds"];
        tests += s["base"].as_f64().unwrap_or(0.0)
            + s["before"].as_f64().unwrap_or(0.0)
            + s["after"].as_f64().unwrap_or(0.0);
    }
    let overhead = wall - tests;
    println!("validate_demo (6 instances confirmed, 1 rejected; one worker)");
    println!("  cold build (environments + all runs) : {cold:>8.2}s wall");
    println!("  warm build, --no-cache               : {wall:>8.2}s wall");
    println!("  test processes (sum of runs)         : {tests:>8.2}s   (baseline)");
    println!(
        "  hunkgen's own time                   : {overhead:>8.2}s   ratio {:.3} of the test time (target <= 0.10)",
        overhead / tests.max(1e-9)
    );
    let (cached, out) = hunkgen(&["build", "-q", "--jobs", "1", "recipes/demo.yaml"], root);
    assert!(out.status.success());
    println!(
        "  rebuild from the cache               : {cached:>8.2}s wall   ratio {:.3} of the warm build",
        cached / wall
    );
    let (revalidate, out) = hunkgen(&["validate", "-q", "datasets/demo"], root);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    println!("  hunkgen validate (cached)            : {revalidate:>8.2}s wall");

    // A warm Python environment: the cache lookup a run pays before it starts.
    use hunkgen::validate::env::{EnvCache, EnvSpec, PythonSpec};
    use hunkgen::validate::{Runner, SandboxPolicy};
    let runner = Runner::new(SandboxPolicy::Auto).expect("runner");
    let uv_cache = std::env::var_os("HUNKGEN_UV_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("target/uv-cache"));
    let cache = EnvCache::new(root.join("target/hunkgen-cache/envs"), uv_cache);
    let spec = EnvSpec::Python(PythonSpec {
        python: None,
        requirements: None,
        install: Some("\"$HUNKGEN_UV\" pip install --quiet pytest==9.2.0".into()),
        build_constraints: None,
    });
    let start = Instant::now();
    let env = cache.ensure(&runner, "acme", &spec).expect("warm env");
    let warm = start.elapsed().as_secs_f64();
    println!(
        "  warm Python environment ready        : {warm:>8.3}s (reused: {}; target < 0.5 s)",
        env.reused
    );
}
