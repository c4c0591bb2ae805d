//! Whole-process timing of `hunkgen build` on multi-hunk Defects4J bugs against a Python pipeline.
//!
//! Usage: `HUNKGEN_BENCH_D4J_REPOS="Lang=/path,Jsoup=/path" cargo bench --bench annotate_d4j`
//! or `cargo bench --bench annotate_d4j -- Lang=/path Jsoup=/path`. With no repository it
//! prints a skip message and exits 0 (tests never need fetched data).
//!
//! It builds nothing: it runs the already-built release binary (`target/release/hunkgen`,
//! or `HUNKGEN_BIN`; `make bench` builds it first) on a temporary recipe restricted to the
//! given projects with the HUNK4J settings, best of 5, whole-process wall time, CPU time
//! and peak RSS of the child (from `wait4`). Then, if the Python baseline's venv works
//! (`target/venv-bench/bin/python` or `HUNKGEN_BENCH_PYTHON`), it runs
//! `scripts/baseline_annotate.py` once and cross-checks D_lex per pair and Div(P).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

const ROUNDS: usize = 5;
/// Lang + Jsoup, whole process.
const TARGET_LANG_JSOUP: Duration = Duration::from_millis(150);
/// Speed-up over the efficient Python pipeline.
const TARGET_RATIO: f64 = 40.0;
/// All 17 projects, whole process.
const TARGET_ALL: Duration = Duration::from_secs(2);
/// Peak resident memory.
const TARGET_RSS_MB: f64 = 500.0;
/// pairs.csv prints six decimals.
const DLEX_TOLERANCE: f64 = 1e-6;
const ALL_PROJECTS: usize = 17;

/// Resources of one finished child process.
#[derive(Debug, Clone, Copy)]
struct Usage {
    wall: Duration,
    cpu: Duration,
    max_rss_mb: f64,
}

#[cfg(target_os = "linux")]
mod sys {
    //! `wait4` (glibc/musl, x86_64 and aarch64 `struct rusage` layout) for a child's own
    //! CPU time and peak RSS; the crate has no libc dependency.

    #[repr(C)]
    #[derive(Default)]
    pub struct Timeval {
        pub sec: i64,
        pub usec: i64,
    }

    #[repr(C)]
    #[derive(Default)]
    pub struct Rusage {
        pub utime: Timeval,
        pub stime: Timeval,
        /// Kilobytes on Linux.
        pub maxrss: i64,
        pub rest: [i64; 13],
    }

    extern "C" {
        fn wait4(pid: i32, status: *mut i32, options: i32, rusage: *mut Rusage) -> i32;
    }

    /// Reap `pid`; its exit status word and resource usage.
    pub fn wait(pid: u32) -> Result<(i32, Rusage), String> {
        let mut status = 0i32;
        let mut usage = Rusage::default();
        let pid = i32::try_from(pid).map_err(|_| format!("pid {pid} out of range"))?;
        loop {
            // SAFETY: plain syscall wrapper; both pointers are valid for the call.
            let r = unsafe { wait4(pid, &mut status, 0, &mut usage) };
            if r == pid {
                return Ok((status, usage));
            }
            let err = std::io::Error::last_os_error();
            if err.kind() != std::io::ErrorKind::Interrupted {
                return Err(format!("wait4: {err}"));
            }
        }
    }
}

/// Run a command to completion; stdout discarded, stderr kept for error messages.
fn run(cmd: &mut Command, stderr_file: &Path) -> Result<Usage, String> {
    let err = std::fs::File::create(stderr_file)
        .map_err(|e| format!("{}: {e}", stderr_file.display()))?;
    let start = Instant::now();
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    let failed = |what: String| {
        let log = std::fs::read_to_string(stderr_file).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(5).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        format!("{:?} {what}: {}", cmd.get_program(), tail.join(" | "))
    };
    #[cfg(target_os = "linux")]
    {
        let (status, ru) = sys::wait(child.id())?;
        let wall = start.elapsed();
        if status != 0 {
            return Err(failed(format!("failed (wait status {status})")));
        }
        let tv = |t: &sys::Timeval| Duration::from_micros((t.sec * 1_000_000 + t.usec) as u64);
        Ok(Usage {
            wall,
            cpu: tv(&ru.utime) + tv(&ru.stime),
            max_rss_mb: ru.maxrss as f64 / 1024.0,
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let mut child = child;
        let status = child.wait().map_err(|e| format!("wait: {e}"))?;
        if !status.success() {
            return Err(failed(format!("failed ({status})")));
        }
        Ok(Usage {
            wall: start.elapsed(),
            cpu: Duration::ZERO,
            max_rss_mb: f64::NAN,
        })
    }
}

/// `Name=/path` pairs from the arguments after `--` (comma lists allowed) or the env var.
fn repos_arg() -> BTreeMap<String, PathBuf> {
    let mut specs: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if specs.is_empty() {
        specs = std::env::var("HUNKGEN_BENCH_D4J_REPOS")
            .map(|v| vec![v])
            .unwrap_or_default();
    }
    specs
        .iter()
        .flat_map(|s| s.split(','))
        .filter_map(|s| {
            let (name, path) = s.trim().split_once('=')?;
            (!name.is_empty() && !path.is_empty()).then(|| (name.to_string(), path.into()))
        })
        .collect()
}

/// The HUNK4J recipe settings (recipes/hunk4j.yaml) restricted to `projects`, with the
/// upstream mapping of Math (rewritten hashes) and Time (old `JodaTime/` layout) from
/// the Defects4J README; repository paths come from `--repo`.
fn recipe_text(projects_dir: &Path, projects: &[&str]) -> String {
    let maps = projects_dir.join("../../upstream-maps/d4j-math-upstream-map.csv");
    format!(
        "name: bench-annotate-d4j\n\
         source:\n  defects4j:\n    path: {}\n    projects: [{}]\n\
         \x20   repos:\n\
         \x20     Math:\n        revision_map: {{file: {}, from: d4j.revision.id.fixed, to: upstream.fixed}}\n\
         \x20     Time:\n        path_prefixes: [JodaTime]\n\
         files:\n  code_extensions: [java]\n  test_dirs: []\n  test_name_prefixes: []\n  test_name_suffixes: []\n\
         select:\n  min_code_hunks: 2\n  skip_created_files: true\n  skip_import_only_hunks: true\n",
        projects_dir.display(),
        projects.join(", "),
        maps.display()
    )
}

/// What both pipelines report, for the cross-check.
#[derive(Debug, Default)]
struct Outcome {
    bugs: usize,
    hunks: usize,
    pairs: usize,
    /// (bug, i, j) → D_lex.
    d_lex: BTreeMap<(String, usize, usize), f64>,
    /// Div(P) per bug (absent where a pipeline could not compute it).
    div: Vec<f64>,
    /// Hunk texts per bug (Python side only), for disagreement examples.
    texts: BTreeMap<String, Vec<String>>,
}

fn read_hunkgen(out: &Path) -> Result<Outcome, String> {
    let mut r = Outcome::default();
    let jsonl = out.join("instances.jsonl");
    let text = std::fs::read_to_string(&jsonl).map_err(|e| format!("{}: {e}", jsonl.display()))?;
    for (k, line) in text.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| format!("{}:{}: {e}", jsonl.display(), k + 1))?;
        r.bugs += 1;
        let div = &v["divergence"];
        r.hunks += div["n"].as_u64().unwrap_or(0) as usize;
        if let Some(x) = div["value"].as_f64() {
            r.div.push(x);
        }
    }
    let csv_path = out.join("pairs.csv");
    let csv =
        std::fs::read_to_string(&csv_path).map_err(|e| format!("{}: {e}", csv_path.display()))?;
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| format!("{}: no column {name}", csv_path.display()))
    };
    let (ci, cj, cd, cid) = (col("i")?, col("j")?, col("d_lex")?, col("instance_id")?);
    for (k, line) in lines.enumerate() {
        // Paths never contain commas in Defects4J; a bad row is reported, not skipped.
        let f: Vec<&str> = line.split(',').collect();
        let bad = || format!("{}:{}: bad row", csv_path.display(), k + 2);
        let get = |c: usize| f.get(c).copied().ok_or_else(bad);
        let i: usize = get(ci)?.parse().map_err(|_| bad())?;
        let j: usize = get(cj)?.parse().map_err(|_| bad())?;
        let d: f64 = get(cd)?.parse().map_err(|_| bad())?;
        r.d_lex.insert((get(cid)?.to_string(), i, j), d);
        r.pairs += 1;
    }
    Ok(r)
}

/// The baseline's counts and D_lex, its phase timings and its per-file errors.
fn read_python(json: &Path) -> Result<(Outcome, serde_json::Value, Vec<String>), String> {
    let text = std::fs::read_to_string(json).map_err(|e| format!("{}: {e}", json.display()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", json.display()))?;
    let mut r = Outcome::default();
    for bug in v["bugs"].as_array().into_iter().flatten() {
        let id = bug["id"].as_str().unwrap_or("?").to_string();
        r.bugs += 1;
        r.hunks += bug["n"].as_u64().unwrap_or(0) as usize;
        if let Some(x) = bug["divergence"].as_f64() {
            r.div.push(x);
        }
        for p in bug["pairs"].as_array().into_iter().flatten() {
            let (Some(i), Some(j), Some(d)) =
                (p["i"].as_u64(), p["j"].as_u64(), p["d_lex"].as_f64())
            else {
                return Err(format!("{}: {id}: bad pair {p}", json.display()));
            };
            r.d_lex.insert((id.clone(), i as usize, j as usize), d);
            r.pairs += 1;
        }
        let texts = bug["texts"].as_array().into_iter().flatten();
        r.texts.insert(
            id,
            texts
                .map(|t| t.as_str().unwrap_or("").to_string())
                .collect(),
        );
    }
    let seconds = v["seconds"].clone();
    let errors = v["errors"].as_array().into_iter().flatten();
    let errors = errors
        .map(|e| e.as_str().unwrap_or("?").to_string())
        .collect();
    Ok((r, seconds, errors))
}

fn median_mean(xs: &[f64]) -> (f64, f64) {
    if xs.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    let median = if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    };
    (median, v.iter().sum::<f64>() / v.len() as f64)
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "PASS"
    } else {
        "MISS"
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn short(s: &str) -> String {
    let one: String = s.replace('\n', " ⏎ ");
    let one = one.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 100 {
        format!("{}…", one.chars().take(100).collect::<String>())
    } else {
        one
    }
}

fn main() -> ExitCode {
    match bench() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("annotate_d4j: {e}");
            ExitCode::FAILURE
        }
    }
}

fn bench() -> Result<(), String> {
    let repos = repos_arg();
    if repos.is_empty() {
        println!(
            "annotate_d4j: skipped (set HUNKGEN_BENCH_D4J_REPOS=\"Lang=/path,Jsoup=/path\" \
             or pass Name=/path after --)"
        );
        return Ok(());
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let bin = std::env::var_os("HUNKGEN_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/release/hunkgen"));
    if !bin.is_file() {
        return Err(format!(
            "{} not found: build it first (`cargo build --release`, or `make bench`)",
            bin.display()
        ));
    }
    let projects_dir = root.join("../shared/defects4j/framework/projects");
    let projects_dir = projects_dir
        .canonicalize()
        .map_err(|e| format!("{}: {e}", projects_dir.display()))?;
    let punkt = std::env::var_os("HUNKGEN_PUNKT_DIR")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/punkt_tab/english"));
    if !punkt.join("abbrev_types.txt").is_file() {
        return Err(format!(
            "no Punkt model at {} (run `make deps` or set HUNKGEN_PUNKT_DIR)",
            punkt.display()
        ));
    }
    let tmp = std::env::temp_dir().join(format!("hunkgen-bench-d4j-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let result = bench_in(&tmp, &bin, &projects_dir, &punkt, &repos, &root);
    // Best effort: a leftover temp dir is harmless.
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

fn hunkgen_cmd(
    bin: &Path,
    recipe: &Path,
    out: &Path,
    punkt: &Path,
    repos: &BTreeMap<String, PathBuf>,
) -> Command {
    let mut cmd = Command::new(bin);
    cmd.arg("build")
        .arg(recipe)
        .arg("-q")
        .arg("-o")
        .arg(out)
        .env("HUNKGEN_PUNKT_DIR", punkt);
    for (name, path) in repos {
        cmd.arg("--repo").arg(format!("{name}={}", path.display()));
    }
    cmd
}

fn bench_in(
    tmp: &Path,
    bin: &Path,
    projects_dir: &Path,
    punkt: &Path,
    repos: &BTreeMap<String, PathBuf>,
    root: &Path,
) -> Result<(), String> {
    let names: Vec<&str> = repos.keys().map(String::as_str).collect();
    let recipe = tmp.join("recipe.yaml");
    std::fs::write(&recipe, recipe_text(projects_dir, &names))
        .map_err(|e| format!("{}: {e}", recipe.display()))?;
    let out = tmp.join("out");
    let log = tmp.join("hunkgen.stderr");
    let mut best: Option<Usage> = None;
    let mut best_cpu = Duration::MAX;
    let mut peak_rss = 0f64;
    for _ in 0..ROUNDS {
        let u = run(&mut hunkgen_cmd(bin, &recipe, &out, punkt, repos), &log)?;
        best_cpu = best_cpu.min(u.cpu);
        peak_rss = peak_rss.max(u.max_rss_mb);
        if best.is_none_or(|b| u.wall < b.wall) {
            best = Some(u);
        }
    }
    let best = best.ok_or("no rounds")?;
    let hg = read_hunkgen(&out)?;
    println!(
        "annotate_d4j: hunkgen on {} ({} bugs, {} hunks, {} pairs): best of {ROUNDS} {:.1} ms wall \
         (best CPU {:.1} ms), peak RSS {:.1} MB",
        names.join("+"),
        hg.bugs,
        hg.hunks,
        hg.pairs,
        ms(best.wall),
        ms(best_cpu),
        peak_rss
    );

    // All 17 projects: only a target when every repository is given; otherwise informative.
    let all_recipe = tmp.join("all.yaml");
    let mut all_names: Vec<String> = std::fs::read_dir(projects_dir)
        .map_err(|e| format!("{}: {e}", projects_dir.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("active-bugs.csv").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    all_names.sort();
    let all_refs: Vec<&str> = all_names.iter().map(String::as_str).collect();
    std::fs::write(&all_recipe, recipe_text(projects_dir, &all_refs))
        .map_err(|e| format!("{}: {e}", all_recipe.display()))?;
    let all_out = tmp.join("out-all");
    let mut all_best: Option<Usage> = None;
    for _ in 0..3 {
        let u = run(
            &mut hunkgen_cmd(bin, &all_recipe, &all_out, punkt, repos),
            &log,
        )?;
        peak_rss = peak_rss.max(u.max_rss_mb);
        if all_best.is_none_or(|b| u.wall < b.wall) {
            all_best = Some(u);
        }
    }
    let all_best = all_best.ok_or("no rounds")?;
    let all_hg = read_hunkgen(&all_out)?;
    println!(
        "annotate_d4j: hunkgen on all {} projects (trees for {} of them): {} bugs, {} hunks, \
         best of 3 {:.1} ms wall (CPU {:.1} ms), peak RSS {:.1} MB",
        all_names.len(),
        repos.len(),
        all_hg.bugs,
        all_hg.hunks,
        ms(all_best.wall),
        ms(all_best.cpu),
        all_best.max_rss_mb
    );

    // The Python baseline, once.
    let python = std::env::var_os("HUNKGEN_BENCH_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/venv-bench/bin/python"));
    let py_ok = Command::new(&python)
        .args(["-c", "import javalang, nltk"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let mut ratio = None;
    if !py_ok {
        println!(
            "annotate_d4j: Python baseline skipped ({} cannot import javalang and nltk; \
             `make bench` creates target/venv-bench from scripts/requirements-bench.txt)",
            python.display()
        );
    } else {
        let py_out = tmp.join("baseline.json");
        let mut cmd = Command::new(&python);
        cmd.arg(root.join("scripts/baseline_annotate.py"))
            .arg("--projects")
            .arg(projects_dir)
            .arg("--punkt-dir")
            .arg(punkt)
            .arg("-o")
            .arg(&py_out);
        for (name, path) in repos {
            cmd.arg("--repo").arg(format!("{name}={}", path.display()));
        }
        let u = run(&mut cmd, &tmp.join("python.stderr"))?;
        let (py, seconds, errors) = read_python(&py_out)?;
        let r = u.wall.as_secs_f64() / best.wall.as_secs_f64();
        ratio = Some(r);
        println!(
            "annotate_d4j: Python baseline ({} bugs, {} hunks, {} pairs): {:.2} s wall \
             (CPU {:.2} s), peak RSS {:.1} MB; phases {}",
            py.bugs,
            py.hunks,
            py.pairs,
            u.wall.as_secs_f64(),
            u.cpu.as_secs_f64(),
            u.max_rss_mb,
            seconds
        );
        if !errors.is_empty() {
            println!(
                "annotate_d4j: Python baseline: {} file(s) without a tree, e.g. {}",
                errors.len(),
                errors[0]
            );
        }
        println!(
            "annotate_d4j: speed-up {r:.1}× wall, {:.1}× CPU",
            u.cpu.as_secs_f64() / best_cpu.as_secs_f64()
        );
        let mut agree = 0usize;
        let mut differ = Vec::new();
        for (key, d) in &hg.d_lex {
            if let Some(p) = py.d_lex.get(key) {
                if (d - p).abs() <= DLEX_TOLERANCE {
                    agree += 1;
                } else {
                    differ.push((key, *d, *p));
                }
            }
        }
        let only_hg = hg
            .d_lex
            .keys()
            .filter(|k| !py.d_lex.contains_key(*k))
            .count();
        let only_py = py
            .d_lex
            .keys()
            .filter(|k| !hg.d_lex.contains_key(*k))
            .count();
        println!(
            "annotate_d4j: D_lex agreement (|Δ| ≤ {DLEX_TOLERANCE}): {agree}/{} common pairs; \
             {} differ; {only_hg} pairs only in hunkgen, {only_py} only in Python",
            agree + differ.len(),
            differ.len()
        );
        for ((bug, i, j), d, p) in differ.iter().take(5) {
            let text = |k: usize| {
                py.texts
                    .get(bug)
                    .and_then(|t| t.get(k))
                    .map(|s| short(s))
                    .unwrap_or_default()
            };
            println!(
                "  {bug} ({i},{j}): hunkgen {d:.6} python {p:.6}\n    h{i}: {}\n    h{j}: {}",
                text(*i),
                text(*j)
            );
        }
        let (hm, ha) = median_mean(&hg.div);
        let (pm, pa) = median_mean(&py.div);
        println!(
            "annotate_d4j: Div(P) median/mean: hunkgen {hm:.4}/{ha:.4} ({} bugs), \
             python {pm:.4}/{pa:.4} ({} bugs; javalang tree, so D_ast differs)",
            hg.div.len(),
            py.div.len()
        );
    }

    let lang_jsoup = names == ["Jsoup", "Lang"];
    println!("annotate_d4j: targets (2 cores):");
    if lang_jsoup {
        println!(
            "  Lang + Jsoup whole process < {} ms: {:.1} ms {}",
            TARGET_LANG_JSOUP.as_millis(),
            ms(best.wall),
            verdict(best.wall < TARGET_LANG_JSOUP)
        );
    } else {
        println!(
            "  Lang + Jsoup whole process < {} ms: n/a (projects given: {})",
            TARGET_LANG_JSOUP.as_millis(),
            names.join(", ")
        );
    }
    match ratio {
        Some(r) => println!(
            "  ≥ {TARGET_RATIO:.0}× the Python pipeline: {r:.1}× {}",
            verdict(r >= TARGET_RATIO)
        ),
        None => println!("  ≥ {TARGET_RATIO:.0}× the Python pipeline: n/a (no Python)"),
    }
    // Chart's revisions are SVN numbers with no git trunk (Defects4J README): 16 is all.
    let with_git = all_names.iter().filter(|n| n.as_str() != "Chart").count();
    if repos.len() >= with_git.min(ALL_PROJECTS) {
        println!(
            "  all {ALL_PROJECTS} projects < {} s ({} repositories): {:.2} s {}",
            TARGET_ALL.as_secs(),
            repos.len(),
            all_best.wall.as_secs_f64(),
            verdict(all_best.wall < TARGET_ALL)
        );
    } else {
        println!(
            "  all {ALL_PROJECTS} projects < {} s: n/a (repositories for {} of {ALL_PROJECTS}; \
             with trees for those only it took {:.2} s)",
            TARGET_ALL.as_secs(),
            repos.len(),
            all_best.wall.as_secs_f64()
        );
    }
    println!(
        "  peak memory < {TARGET_RSS_MB:.0} MB: {peak_rss:.1} MB {}",
        verdict(peak_rss < TARGET_RSS_MB)
    );
    Ok(())
}
