//! Benchmark: the demo's validation as 4 shards (2 at a time, each with all cores) plus
//! `hunkgen merge`, against the one-machine validation (all cores), in the same run
//! (target: at most 1.2× — sharding costs little).
//!
//! Both sides run every test again (`--no-cache`) with environments already built, so
//! they do the same test work; a shard repeats only mining and extraction. Run with
//! `make bench`; `HUNKGEN_BENCH_BIN` picks another hunkgen binary (default
//! target/release/hunkgen).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

fn exe() -> PathBuf {
    std::env::var_os("HUNKGEN_BENCH_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/release/hunkgen"))
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn run(args: &[&str], cwd: &Path) -> Output {
    Command::new(exe())
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("hunkgen runs (cargo build --release first)")
}

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    common::demo_layout(root);
    // Environments built once, for both sides.
    ok(&run(
        &["build", "-q", "recipes/demo.yaml", "-o", "warm"],
        root,
    ));

    let start = Instant::now();
    ok(&run(
        &[
            "build",
            "-q",
            "--no-cache",
            "recipes/demo.yaml",
            "-o",
            "one",
        ],
        root,
    ));
    let one = start.elapsed().as_secs_f64();

    let start = Instant::now();
    // Two slots, like `sbatch --array=0-3%2`: the next shard starts as soon as one ends.
    let spawn = |k: usize| {
        Command::new(exe())
            .args(["build", "-q", "--no-cache", "--shard"])
            .arg(format!("{k}/4"))
            .args(["recipes/demo.yaml", "-o"])
            .arg(format!("shards/{k}"))
            .current_dir(root)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    let mut running: Vec<std::process::Child> = vec![spawn(0), spawn(1)];
    let mut next = 2;
    while !running.is_empty() {
        let mut still = Vec::new();
        for mut c in running {
            match c.try_wait().expect("try_wait") {
                Some(_) => {
                    ok(&c.wait_with_output().expect("wait"));
                    if next < 4 {
                        still.push(spawn(next));
                        next += 1;
                    }
                }
                None => still.push(c),
            }
        }
        running = still;
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    ok(&run(
        &[
            "merge", "merged", "shards/0", "shards/1", "shards/2", "shards/3",
        ],
        root,
    ));
    let sharded = start.elapsed().as_secs_f64();
    let count = |d: &str| {
        std::fs::read_to_string(root.join(d).join("instances.jsonl"))
            .expect("instances")
            .lines()
            .count()
    };
    assert_eq!(count("one"), count("merged"), "the same instances");
    println!("shards (demo validation, every test run again, environments warm)");
    println!("  one machine, all cores             : {one:>8.2}s wall (baseline)");
    println!(
        "  4 shards, 2 at a time, + merge     : {sharded:>8.2}s wall   ratio {:.3} (target <= 1.2)",
        sharded / one
    );
}
