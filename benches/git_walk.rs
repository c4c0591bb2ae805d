//! End-to-end timing of the git-history walk against `git log -p` (and PyDriller) on a real repository.
//!
//! Usage: `cargo bench --bench git_walk -- <repo>` or `HUNKGEN_BENCH_REPO=<repo>`; with no
//! repository it prints a skip message and exits 0 (tests never need fetched data).

use hunkgen::classify::Classifier;
use hunkgen::progress::Progress;
use hunkgen::source::git_history::{diff_all, mine};
use hunkgen::source::rules::GitSourceConfig;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// CPU seconds (user + system) of this process and of its waited-for children, from
/// /proc/self/stat (Linux; clock ticks assumed 100/s), so results stay meaningful when
/// other work shares the cores.
fn cpu_secs() -> (f64, f64) {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return (f64::NAN, f64::NAN);
    };
    let rest = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(f64::NAN))
        .collect();
    // After the command name: state is field 3, utime..cstime are fields 14..17.
    let at = |n: usize| f.get(n - 3).copied().unwrap_or(f64::NAN) / 100.0;
    (at(14) + at(15), at(16) + at(17))
}

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
    // PyDriller runs git in a work tree; GIT_DIR lets it read a bare repository too.
    let out = Command::new("python3")
        .env("GIT_DIR", repo)
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

/// Compare up to `limit` mined patches with `git diff` on the real repository (message
/// filter off, one code hunk suffices): a byte-equality check on real history.
fn check_against_git(repo: &Path, limit: usize) {
    let cfg = GitSourceConfig {
        message_regex: String::new(),
        min_code_hunks: 1,
        require_tests: false,
        ..GitSourceConfig::default()
    };
    let fixes = match mine(repo, &cfg, &Classifier::default(), &Progress::hidden()) {
        Ok(m) => m.fixes,
        Err(e) => return eprintln!("check: {e}"),
    };
    let step = (fixes.len() / limit.max(1)).max(1);
    let (mut checked, mut equal) = (0usize, 0usize);
    for fix in fixes.iter().step_by(step).take(limit) {
        let mut cmd = Command::new("git");
        cmd.arg("--git-dir").arg(repo).args([
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--indent-heuristic",
            "-M",
            &fix.parent,
            &fix.id,
            "--",
        ]);
        for f in &fix.patch.files {
            cmd.args(f.old_path.iter().chain(f.new_path.iter()));
        }
        let Ok(out) = cmd.output() else { continue };
        checked += 1;
        if out.stdout == fix.patch.to_bytes() {
            equal += 1;
        } else {
            println!("    differs from git diff: {}", fix.id);
            // HUNKGEN_BENCH_DUMP=<dir> keeps both sides of each mismatch for inspection.
            if let Some(dir) = std::env::var_os("HUNKGEN_BENCH_DUMP").map(PathBuf::from) {
                let _ = std::fs::create_dir_all(&dir);
                let _ = std::fs::write(dir.join(format!("{}.ours", fix.id)), fix.patch.to_bytes());
                let _ = std::fs::write(dir.join(format!("{}.git", fix.id)), &out.stdout);
            }
        }
    }
    println!("(x) patches byte-equal to git diff: {equal}/{checked}");
}

fn main() {
    let Some(repo) = repo_arg() else {
        println!("git_walk: no repository given (arg after `--` or HUNKGEN_BENCH_REPO); skipping");
        return;
    };
    // Steps to run (c = git log -p, a/b = diff all with/without verification, m = mine,
    // r = mine with every message and commit rule on, d = PyDriller, x = byte check
    // against git diff); all but x by default.
    let steps = std::env::var("HUNKGEN_BENCH_STEPS").unwrap_or_else(|_| "cabmrd".into());
    let threads = rayon::current_num_threads();
    println!("git_walk: {} ({threads} threads)", repo.display());
    let verified = GitSourceConfig::default();
    let unverified = GitSourceConfig {
        verify_objects: false,
        ..GitSourceConfig::default()
    };

    let mut git_secs = f64::NAN;
    let mut git_cpu = f64::NAN;
    if steps.contains('c') {
        let cpu0 = cpu_secs().1;
        match git_log_p(&repo) {
            Ok((t, bytes)) => {
                git_secs = t.as_secs_f64();
                git_cpu = cpu_secs().1 - cpu0;
                println!(
                    "(c) git log -p --branches --remotes --no-merges: {git_secs:>8.2}s wall {git_cpu:>7.2}s cpu  {bytes} bytes"
                );
            }
            Err(e) => {
                eprintln!("git_walk: {e}");
                std::process::exit(1);
            }
        }
    }

    let run = |label: &str, cfg: &GitSourceConfig| {
        let start = Instant::now();
        let cpu0 = cpu_secs().0;
        match diff_all(&repo, cfg, &Progress::hidden()) {
            Ok(t) => {
                let secs = start.elapsed().as_secs_f64();
                let cpu = cpu_secs().0 - cpu0;
                println!(
                    "{label}: {secs:>8.2}s wall {cpu:>7.2}s cpu  {} commits, {} files, {} bytes  \
                     ratio to git log -p: wall {:.2}, cpu {:.2}",
                    t.commits,
                    t.files,
                    t.bytes,
                    secs / git_secs,
                    cpu / git_cpu
                );
            }
            Err(e) => eprintln!("{label}: {e}"),
        }
    };
    if steps.contains('a') {
        run("(a) diff all, verify on ", &verified);
    }
    if steps.contains('b') {
        run("(b) diff all, verify off", &unverified);
    }
    if steps.contains('m') {
        let start = Instant::now();
        let cpu0 = cpu_secs().0;
        match mine(
            &repo,
            &verified,
            &Classifier::default(),
            &Progress::hidden(),
        ) {
            Ok(f) => {
                let secs = start.elapsed().as_secs_f64();
                let cpu = cpu_secs().0 - cpu0;
                println!(
                    "    mine, default rules : {secs:>8.2}s wall {cpu:>7.2}s cpu  {} fix commits  \
                     ratio: wall {:.2}, cpu {:.2}",
                    f.fixes.len(),
                    secs / git_secs,
                    cpu / git_cpu
                );
            }
            Err(e) => eprintln!("mine: {e}"),
        }
        // Every rule a git recipe turns on by default: file roles and the hunk rules.
        let all = GitSourceConfig {
            hunk_rules: hunkgen::git::HunkRules::ALL,
            ..GitSourceConfig::default()
        };
        let roles = Classifier {
            roles: Some(true),
            ..Classifier::default()
        };
        let start = Instant::now();
        let cpu0 = cpu_secs().0;
        match mine(&repo, &all, &roles, &Progress::hidden()) {
            Ok(f) => {
                let secs = start.elapsed().as_secs_f64();
                let cpu = cpu_secs().0 - cpu0;
                println!(
                    "    mine, all rules     : {secs:>8.2}s wall {cpu:>7.2}s cpu  {} fix commits, {} formatting-only  \
                     ratio: wall {:.2}, cpu {:.2}",
                    f.fixes.len(),
                    f.funnel.rejected.get("formatting_only").copied().unwrap_or(0),
                    secs / git_secs,
                    cpu / git_cpu
                );
            }
            Err(e) => eprintln!("mine: {e}"),
        }
    }
    if steps.contains('r') {
        // Every rule of recipes/java-preset.yaml: subject and exclude rules, reverts,
        // patch-id duplicates, the three size limits, file roles and the hunk rules.
        let all_rules = GitSourceConfig {
            hunk_rules: hunkgen::git::HunkRules::ALL,
            subject_regex: Some(
                r"\b(fix(e[sd]|ing)?|bug(s|fix(es)?)?|regressions?|npe|nullpointerexception)\b"
                    .into(),
            ),
            exclude_regex: Some(
                r"^(revert|reapply)\b|^[^\n]*\bbump(s|ed)?\b|^[^\n]*\[maven-release-plugin\]|dependabot|renovate|\[bot\]|^[^\n]*\btypos?\b|^[^\n]*\b(checkstyle|pmd|javadoc|lint)\b|^[^\n]*\b(docs?|documentation|readme|site)\b"
                    .into(),
            ),
            max_files: Some(25),
            max_code_hunks: Some(12),
            max_changed_lines: Some(300),
            ..GitSourceConfig::default()
        };
        let start = Instant::now();
        let cpu0 = cpu_secs().0;
        let roles = Classifier {
            roles: Some(true),
            ..Classifier::default()
        };
        match mine(&repo, &all_rules, &roles, &Progress::hidden()) {
            Ok(m) => {
                let secs = start.elapsed().as_secs_f64();
                let cpu = cpu_secs().0 - cpu0;
                let f = &m.funnel;
                println!(
                    "(r) mine, every rule   : {secs:>8.2}s wall {cpu:>7.2}s cpu  {} fix commits  \
                     ratio: wall {:.2}, cpu {:.2}\n    funnel: {} walked, {} non-merge, {} message, \
                     {} code+tests, {} multi-hunk, rejected {:?}, {} kept",
                    m.fixes.len(),
                    secs / git_secs,
                    cpu / git_cpu,
                    f.walked,
                    f.non_merge,
                    f.message_matched,
                    f.code_and_tests,
                    f.multi_hunk,
                    f.rejected,
                    f.kept
                );
            }
            Err(e) => eprintln!("mine: {e}"),
        }
    }
    if steps.contains('d') {
        let cpu0 = cpu_secs().1;
        match pydriller(&repo) {
            None => println!("(d) pydriller: not installed, skipped"),
            Some(Ok((t, out))) => {
                let cpu = cpu_secs().1 - cpu0;
                println!(
                    "(d) pydriller           : {:>8.2}s wall {cpu:>7.2}s cpu  (commits, diff bytes: {out})  \
                     ratio: wall {:.2}, cpu {:.2}",
                    t.as_secs_f64(),
                    t.as_secs_f64() / git_secs,
                    cpu / git_cpu
                )
            }
            Some(Err(e)) => println!("(d) pydriller failed: {e}"),
        }
    }
    if steps.contains('x') {
        let n = std::env::var("HUNKGEN_BENCH_CHECK")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(300);
        check_against_git(&repo, n);
    }
}
