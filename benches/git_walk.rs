//! End-to-end timing of the git-history walk against `git log -p` (and PyDriller) on a real repository.
//!
//! Usage: `cargo bench --bench git_walk -- <repo>` or `HUNKGEN_BENCH_REPO=<repo>`; with no
//! repository it prints a skip message and exits 0 (tests never need fetched data).

use hunkgen::classify::Classifier;
use hunkgen::progress::Progress;
use hunkgen::source::git_history::{diff_all, mine, GitSourceConfig};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn repo_arg() -> Option<PathBuf> {
    std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HUNKGEN_BENCH_REPO").map(PathBuf::from))
}

/// `git log -p --branches --remotes --no-merges` (the same commits our walk visits), stdout read and discarded (what a script would parse).
fn git_log_p(repo: &Path) -> Result<(Duration, usize), String> {
    let start = Instant::now();
    let mut child = Command::new("git")
        .arg("--git-dir")
        .arg(repo)
        .args([
            "log",
            "-p",
            "--branches",
            "--remotes",
            "--no-merges",
            "--no-color",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let mut total = 0usize;
    let mut buf = vec![0u8; 1 << 16];
    if let Some(mut out) = child.stdout.take() {
        loop {
            match out.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => total += n,
                Err(e) => return Err(format!("reading git output: {e}")),
            }
        }
    }
    let status = child.wait().map_err(|e| format!("git: {e}"))?;
    if !status.success() {
        return Err(format!("git log failed: {status}"));
    }
    Ok((start.elapsed(), total))
}

const PYDRILLER: &str = r#"
import sys, pydriller
n = 0; b = 0
for c in pydriller.Repository(sys.argv[1], include_remotes=True).traverse_commits():
    if c.merge:
        continue
    n += 1
    for m in c.modified_files:
        b += len(m.diff)
print(n, b)
"#;

fn pydriller(repo: &Path) -> Option<Result<(Duration, String), String>> {
    let ok = Command::new("python3")
        .args(["-c", "import pydriller"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return None;
    }
    let start = Instant::now();
    let out = Command::new("python3")
        .args(["-c", PYDRILLER])
        .arg(repo)
        .output();
    Some(match out {
        Ok(o) if o.status.success() => Ok((
            start.elapsed(),
            String::from_utf8_lossy(&o.stdout).trim().to_string(),
        )),
        Ok(o) => Err(String::from_utf8_lossy(&o.stderr)
            .lines()
            .last()
            .unwrap_or("")
            .to_string()),
        Err(e) => Err(e.to_string()),
    })
}

fn main() {
    let Some(repo) = repo_arg() else {
        println!("git_walk: no repository given (arg after `--` or HUNKGEN_BENCH_REPO); skipping");
        return;
    };
    let threads = rayon::current_num_threads();
    println!("git_walk: {} ({threads} threads)", repo.display());
    let verified = GitSourceConfig::default();
    let unverified = GitSourceConfig {
        verify_objects: false,
        ..GitSourceConfig::default()
    };

    let (git_time, git_bytes) = match git_log_p(&repo) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("git_walk: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "(c) git log -p --branches --remotes --no-merges:{:>8.2}s  {git_bytes} bytes",
        git_time.as_secs_f64()
    );

    let run = |label: &str, cfg: &GitSourceConfig| {
        let start = Instant::now();
        match diff_all(&repo, cfg, &Progress::hidden()) {
            Ok(t) => {
                let secs = start.elapsed().as_secs_f64();
                println!(
                    "{label}: {secs:>8.2}s  {} commits, {} files, {} bytes  ratio to git log -p: {:.2}",
                    t.commits,
                    t.files,
                    t.bytes,
                    secs / git_time.as_secs_f64()
                );
            }
            Err(e) => eprintln!("{label}: {e}"),
        }
    };
    run("(a) diff all, verify on        ", &verified);
    run("(b) diff all, verify off       ", &unverified);

    let start = Instant::now();
    match mine(
        &repo,
        &verified,
        &Classifier::default(),
        &Progress::hidden(),
    ) {
        Ok(f) => println!(
            "    mine (default rules)        : {:>8.2}s  {} fix commits  ratio: {:.2}",
            start.elapsed().as_secs_f64(),
            f.len(),
            start.elapsed().as_secs_f64() / git_time.as_secs_f64()
        ),
        Err(e) => eprintln!("mine: {e}"),
    }

    match pydriller(&repo) {
        None => println!("(d) pydriller: not installed, skipped"),
        Some(Ok((t, out))) => println!(
            "(d) pydriller                  : {:>8.2}s  ({out})  ratio: {:.2}",
            t.as_secs_f64(),
            t.as_secs_f64() / git_time.as_secs_f64()
        ),
        Some(Err(e)) => println!("(d) pydriller failed: {e}"),
    }
}
