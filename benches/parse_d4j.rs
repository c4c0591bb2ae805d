//! Benchmark: parse (and print) every Defects4J patch of the active bugs; target < 0.2 s.
//!
//! Run with `cargo bench --bench parse_d4j`. Prints the best of N rounds.

use std::path::PathBuf;
use std::time::{Duration, Instant};

const ROUNDS: usize = 10;
const TARGET: Duration = Duration::from_millis(200);

fn main() {
    let root =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/defects4j/framework/projects");
    let mut paths = Vec::new();
    let mut projects: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("defects4j projects dir")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.join("active-bugs.csv").is_file())
        .collect();
    projects.sort();
    for project in &projects {
        let csv =
            std::fs::read_to_string(project.join("active-bugs.csv")).expect("active-bugs.csv");
        for row in csv.lines().skip(1) {
            let id = row.split(',').next().unwrap_or("");
            for kind in ["src", "test"] {
                let p = project.join("patches").join(format!("{id}.{kind}.patch"));
                if p.is_file() {
                    paths.push(p);
                }
            }
        }
    }
    let read_start = Instant::now();
    let inputs: Vec<Vec<u8>> = paths
        .iter()
        .map(|p| std::fs::read(p).expect("patch"))
        .collect();
    let read_time = read_start.elapsed();
    let bytes: usize = inputs.iter().map(Vec::len).sum();

    let mut best = Duration::MAX;
    let mut hunks = 0;
    for _ in 0..ROUNDS {
        let start = Instant::now();
        hunks = 0;
        for input in &inputs {
            let p = hunkgen::diff::parse(input).expect("D4J patch parses");
            hunks += p.files.iter().map(|f| f.hunks.len()).sum::<usize>();
            std::hint::black_box(&p);
        }
        best = best.min(start.elapsed());
    }
    let mut best_rt = Duration::MAX;
    for _ in 0..ROUNDS {
        let start = Instant::now();
        for input in &inputs {
            let p = hunkgen::diff::parse(input).expect("D4J patch parses");
            std::hint::black_box(p.reversed().to_bytes());
        }
        best_rt = best_rt.min(start.elapsed());
    }
    println!(
        "parse_d4j: {} patch files ({:.1} MB, {hunks} hunks) from {} projects, read once in {:.1} ms",
        inputs.len(),
        bytes as f64 / 1e6,
        projects.len(),
        read_time.as_secs_f64() * 1e3
    );
    println!(
        "parse_d4j: best of {ROUNDS}: parse {:.1} ms ({:.0} MB/s); parse+reverse+print {:.1} ms",
        best.as_secs_f64() * 1e3,
        bytes as f64 / 1e6 / best.as_secs_f64(),
        best_rt.as_secs_f64() * 1e3
    );
    println!(
        "parse_d4j: target {} ms: {}",
        TARGET.as_millis(),
        if best < TARGET { "met" } else { "MISSED" }
    );
}
