//! Faults lose nothing: `build`, `validate`, `evaluate` and `run` are SIGKILLed at seeded
//! random moments over a generated dataset of more than 100 instances (`--jobs 2`); a
//! clean re-run then gives output byte for byte that of an uninterrupted run, with no
//! JSONL row lost or doubled and no temporary file or directory left behind.
//!
//! The kills that land per command are `HUNKGEN_KILLS` (default 20), the seed `HUNKGEN_KILL_SEED`
//! (default below); a failure names the seed, the command and the kill. The figures
//! (kills, survivals, uninterrupted lengths) go to stderr and, with
//! `HUNKGEN_FAULTS_REPORT=FILE`, to that file.

use crate::common::manifest;
use crate::shard::{build_files, tree};
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::process::CommandExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Fix commits in the generated history: one instance each.
const FIXES: usize = 100;
/// Source files (and test files) the fixes are spread over.
const GROUPS: usize = 10;
/// The seed when `HUNKGEN_KILL_SEED` is not set.
const DEFAULT_SEED: u64 = 0x2026_1125;
/// Kills between two checked re-runs.
const CHAIN: usize = 5;

/// xorshift64*: the kill delays, reproducible from the seed.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// A number in `0..n`.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}

/// The test runner the generated repository carries: each `# expect NAME FILE WORD` line
/// of a test file is one JUnit test case, passing when FILE holds WORD.
const RUNNER: &str = r#"#!/bin/sh
# run-tests.sh REPORT_DIR TEST_FILE...
out="$1"; shift; mkdir -p "$out"
for t in "$@"; do
  n=$(basename "$t" .py)
  {
    echo "<testsuite name=\"tests.$n\">"
    grep '^# expect ' "$t" 2>/dev/null | while read -r _ _ name file word; do
      if grep -q "$word" "$file" 2>/dev/null; then
        echo "<testcase classname=\"tests.$n\" name=\"$name\"/>"
      else
        echo "<testcase classname=\"tests.$n\" name=\"$name\"><failure message=\"no $word in $file\"/></testcase>"
      fi
    done
    echo "</testsuite>"
  } > "$out/TEST-$n.xml"
done
"#;

/// Module group `k` (the functions of fixes `k`, `k + GROUPS`, …) with fixes `0..done`
/// applied: each fix changes two lines far apart, so it is two hunks.
fn module(k: usize, done: usize, fixes: usize) -> String {
    let word = |i: usize| if i < done { "FIXED" } else { "BUG" };
    let members: Vec<usize> = (k..fixes).step_by(GROUPS).collect();
    let mut text = String::new();
    for &i in &members {
        text.push_str(&format!(
            "def first_{i}(x):\n    return \"{}_{i}_A\"\n\n\n",
            word(i)
        ));
    }
    text.push_str("def middle():\n");
    for n in 0..12 {
        text.push_str(&format!("    y{n} = {n}\n"));
    }
    text.push_str("    return 0\n");
    for &i in &members {
        text.push_str(&format!(
            "\n\ndef second_{i}(x):\n    return \"{}_{i}_B\"\n",
            word(i)
        ));
    }
    text
}

/// The test file of group `k` once fixes `0..done` are in: two tests per fix.
fn tests_of(k: usize, done: usize) -> String {
    (k..done)
        .step_by(GROUPS)
        .map(|i| {
            format!(
                "# expect a{i} src/g{k}.py FIXED_{i}_A\n# expect b{i} src/g{k}.py FIXED_{i}_B\n"
            )
        })
        .collect()
}

/// One commit of a `git fast-import` stream, at `tick` hours after a fixed epoch.
fn commit(stream: &mut String, tick: usize, msg: &str, files: &[(String, String)]) {
    let when = 1_700_000_000 + tick * 3600;
    stream.push_str(&format!(
        "commit refs/heads/main\nauthor Ada Tester <ada@example.org> {when} +0000\ncommitter Ada Tester <ada@example.org> {when} +0000\ndata {}\n{msg}\n",
        msg.len()
    ));
    for (path, text) in files {
        stream.push_str(&format!(
            "M 100644 inline {path}\ndata {}\n{text}\n",
            text.len()
        ));
    }
}

/// A repository with `fixes` two-hunk fixes, each with two tests, written at once by
/// `git fast-import`.
fn history(repo: &Path, fixes: usize) {
    crate::common::git(
        repo.parent().expect("parent"),
        &["init", "-q", "-b", "main", &repo.display().to_string()],
    );
    let mut stream = String::new();
    let mut first = vec![
        ("run-tests.sh".to_string(), RUNNER.to_string()),
        ("src/__init__.py".to_string(), String::new()),
    ];
    first.extend((0..GROUPS).map(|k| (format!("src/g{k}.py"), module(k, 0, fixes))));
    commit(&mut stream, 0, "Initial modules", &first);
    for i in 0..fixes {
        let k = i % GROUPS;
        commit(
            &mut stream,
            i + 1,
            &format!("Fix both ends of function pair {i}"),
            &[
                (format!("src/g{k}.py"), module(k, i + 1, fixes)),
                (format!("tests/test_g{k}.py"), tests_of(k, i + 1)),
            ],
        );
    }
    let mut child = Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(repo)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(Stdio::piped())
        .spawn()
        .expect("git fast-import");
    use std::io::Write;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stream.as_bytes())
        .expect("stream");
    assert!(child.wait().expect("wait").success(), "fast-import failed");
}

/// A generated repository of `fixes` fixes and a recipe over it (golden tests by the
/// runner above, Novel states as plain trees) in `root`; returns the recipe.
pub(crate) fn fixture(root: &Path, fixes: usize) -> PathBuf {
    let repo = root.join("repo");
    history(&repo, fixes);
    let recipe = root.join("r.yaml");
    fs::write(
        &recipe,
        format!(
            "name: faults\noutput: out\nsource:\n  git:\n    repo: {}\nfiles:\n  code_extensions: [py]\nselect:\n  min_code_hunks: 2\nvalidate:\n  reruns: 1\n  timeout: 60\n  sandbox: off\n  cache: cache\n  suites:\n    - name: sh\n      paths: [tests/]\n      env:\n        command:\n          setup: 'true'\n      command: sh run-tests.sh {{report_dir}} {{tests}}\n      report: junit\nstates:\n  kinds: [novel]\n  scenarios: [worst]\n",
            repo.display()
        ),
    )
    .expect("recipe");
    recipe
}

/// A command of the harness: its arguments, where its output lands, what to compare.
struct Step {
    name: &'static str,
    args: Vec<std::ffi::OsString>,
    /// The directory the command writes.
    output: PathBuf,
    /// The JSONL file whose rows must each appear once.
    rows: &'static str,
}

/// Spawn hunkgen with `args` (TMPDIR = `tmp`), optionally SIGKILLed after `kill_after`;
/// returns how it ended, its stderr and how long it ran.
fn spawn(
    args: &[std::ffi::OsString],
    tmp: &Path,
    kill_after: Option<Duration>,
) -> (std::process::ExitStatus, String, Duration) {
    let start = Instant::now();
    let bin = assert_cmd::cargo::cargo_bin("hunkgen");
    // Its own process group, killed whole with every descendant, as a scheduler kills a
    // job (its cgroup): the recipe runs its tests without the sandbox (which would take
    // them down with it), and an orphaned test process writing on after the kill is not
    // the fault tested here.
    let mut child = Command::new(bin)
        .args(args)
        .process_group(0)
        .env("TMPDIR", tmp)
        .env_remove("HUNKGEN_SHARD")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn hunkgen");
    if let Some(after) = kill_after {
        while start.elapsed() < after {
            if child.try_wait().expect("try_wait").is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        kill_job(child.id() as i32);
    }
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status, err, start.elapsed())
}

/// SIGKILL `root`, its process group and every process descended from it (runners put
/// their children in sessions of their own), as a scheduler kills a job's cgroup: the
/// tree is stopped first, so nothing forks while it is gathered.
fn kill_job(root: i32) {
    let mut tree = descendants(root);
    for round in 0..3 {
        if round > 0 {
            tree = descendants(root);
        }
        for &p in &tree {
            // SAFETY: signalling processes of the tree this test spawned.
            unsafe {
                libc::kill(p, libc::SIGSTOP);
            }
        }
    }
    let last = descendants(root);
    let killed: Vec<i32> = tree.into_iter().chain(last).collect();
    for &p in &killed {
        // SAFETY: as above; a process already gone makes kill fail harmlessly.
        unsafe {
            libc::kill(p, libc::SIGKILL);
        }
    }
    // SAFETY: the process group of the child we spawned and have not reaped.
    unsafe {
        libc::kill(-root, libc::SIGKILL);
    }
    // A scheduler's kill ends when the job's cgroup is empty: wait until every killed
    // process has died (gone, or a zombie, which holds no files or locks any more).
    let deadline = Instant::now() + Duration::from_secs(30);
    while killed.iter().any(|&p| p != root && alive(p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Whether process `pid` exists and is not a zombie.
fn alive(pid: i32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X")
    })
}

/// `root` and the processes descended from it, read from `/proc/*/stat`.
fn descendants(root: i32) -> Vec<i32> {
    let mut parent_of: Vec<(i32, i32)> = Vec::new();
    for e in fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`, where comm may hold spaces and parentheses.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<i32>().ok());
        if let Some(ppid) = ppid {
            parent_of.push((pid, ppid));
        }
    }
    let mut tree = vec![root];
    let mut i = 0;
    while i < tree.len() {
        let p = tree[i];
        tree.extend(parent_of.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    tree
}

/// What a command's output directory holds, in the form compared between runs: every
/// file by name, and its bytes except where they say when or how fast a run went rather
/// than what it found. A build's files as [`build_files`] masks them (test logs, the
/// measured `validation.seconds` and the card's checksum of them); validate.jsonl
/// without its two cache counters (their sum stays); a run's logs and `result.json`
/// (start time, duration) and a test log's contents by name only.
fn comparable(step: &Step, home: &Path) -> BTreeMap<String, Vec<u8>> {
    if step.name == "build" {
        return build_files(&step.output, home);
    }
    let mut files = tree(&step.output);
    for (name, bytes) in files.iter_mut() {
        let file = name.rsplit('/').next().unwrap_or_default();
        if name.contains("logs/")
            || file.ends_with(".log")
            || ["result.json", "trajectory.jsonl", "trajectory.raw"].contains(&file)
        {
            *bytes = b"(measured)".to_vec();
        } else if file == "validate.jsonl" {
            let rows: Vec<String> = String::from_utf8_lossy(bytes)
                .lines()
                .map(|l| {
                    let mut row: serde_json::Value = serde_json::from_str(l).expect("row");
                    let o = row.as_object_mut().expect("object");
                    let runs = o
                        .remove("cached_runs")
                        .and_then(|c| c.as_u64())
                        .unwrap_or(0)
                        + o.remove("executed_runs")
                            .and_then(|c| c.as_u64())
                            .unwrap_or(0);
                    o.insert("runs".into(), runs.into());
                    row.to_string()
                })
                .collect();
            *bytes = rows.join("\n").into_bytes();
        }
    }
    files
}

/// Every `instance_id` of a JSONL file once, and as many as `expected`.
fn rows_once(path: &Path, expected: usize) {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut seen = std::collections::BTreeSet::new();
    for line in text.lines() {
        let row: serde_json::Value = serde_json::from_str(line).expect("row");
        let id = row["instance_id"]
            .as_str()
            .expect("instance_id")
            .to_string();
        assert!(seen.insert(id.clone()), "{}: {id} twice", path.display());
    }
    assert_eq!(seen.len(), expected, "{}: rows lost", path.display());
}

/// Temporary files and directories under `dir` (recursively): the names hunkgen gives
/// what it writes before a rename (`.NAME.tmp-PID`, `.NAME.building-PID`,
/// `.NAME.hunkgen-state-N`, `.tmp-…`, a cache entry's `.KEY.PID-N-T`), and a run's
/// scratch folders (`.work`, `.snapshots`, `.agent`, `.oracle`) that hold anything.
/// Git repositories are not entered.
fn leftovers(dir: &Path) -> Vec<String> {
    let cache_temporary = |name: &str| {
        let parts: Vec<&str> = name.split('.').collect();
        parts.len() == 3
            && parts[0].is_empty()
            && parts[1].len() == 8
            && parts[2]
                .split('-')
                .next()
                .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    };
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = e.path();
        let scratch = [".work", ".snapshots", ".agent", ".oracle"].contains(&name.as_str());
        let temporary = name.contains(".tmp")
            || name.contains(".building-")
            || name.contains(".hunkgen-state")
            || name.contains(".partial")
            || cache_temporary(&name);
        if temporary {
            out.push(path.display().to_string());
        } else if scratch {
            if fs::read_dir(&path)
                .map(|mut d| d.next().is_some())
                .unwrap_or(false)
            {
                out.push(path.display().to_string());
            }
        } else if path.is_dir() && !path.join(".git").exists() && name != ".git" {
            out.extend(leftovers(&path));
        }
    }
    out
}

/// A clean re-run of `step` gives `expected` and each of `instances` rows once.
fn rerun_matches(
    step: &Step,
    root: &Path,
    tmp: &Path,
    expected: &BTreeMap<String, Vec<u8>>,
    instances: usize,
    at: &str,
) {
    let (status, err, _) = spawn(&step.args, tmp, None);
    assert!(status.success(), "{at}, the re-run: {err}");
    let got = comparable(step, root);
    let differing: Vec<&String> = expected
        .keys()
        .chain(got.keys())
        .filter(|k| expected.get(*k) != got.get(*k))
        .collect();
    assert!(
        differing.is_empty(),
        "{at}: the re-run differs from the uninterrupted run in {differing:?}"
    );
    rows_once(&step.output.join(step.rows), instances);
}

/// How many kills must land per command (`HUNKGEN_KILLS`, default 20) and the seed.
fn kills_and_seed() -> (usize, u64) {
    let kills = std::env::var("HUNKGEN_KILLS")
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or(20);
    let seed = std::env::var("HUNKGEN_KILL_SEED")
        .ok()
        .and_then(|s| {
            s.strip_prefix("0x")
                .map_or_else(|| s.parse().ok(), |h| u64::from_str_radix(h, 16).ok())
        })
        .unwrap_or(DEFAULT_SEED);
    (kills, seed)
}

#[test]
fn sigkill_at_random_moments_loses_nothing() {
    let (kills, seed) = kills_and_seed();
    let mut rng = Rng::new(seed);
    let root = tempfile::tempdir().expect("tempdir");
    // HUNKGEN_FAULTS_KEEP keeps the directory, to look at after a failure.
    let root = if std::env::var_os("HUNKGEN_FAULTS_KEEP").is_some() {
        root.keep()
    } else {
        root.path().to_path_buf()
    };
    let root = root.as_path();
    let tmp = root.join("tmp");
    fs::create_dir(&tmp).expect("tmp");
    let recipe = fixture(root, FIXES);
    let agents = manifest().join("demo/agents/agents.yaml");
    let os = |s: &str| std::ffi::OsString::from(s);
    let path = |p: &Path| p.as_os_str().to_os_string();
    let out = root.join("out");
    let cache_runs = root.join("cache/runs");
    let steps = [
        Step {
            name: "build",
            args: vec![os("build"), os("-q"), os("--jobs"), os("2"), path(&recipe)],
            output: out.clone(),
            rows: "instances.jsonl",
        },
        Step {
            name: "validate",
            args: vec![
                os("validate"),
                os("-q"),
                os("--jobs"),
                os("2"),
                os("--output"),
                path(&root.join("validated")),
                path(&out),
            ],
            output: root.join("validated"),
            rows: "validate.jsonl",
        },
        Step {
            name: "run",
            args: vec![
                os("run"),
                path(&out),
                os("--agents"),
                path(&agents),
                os("--agent"),
                os("oracle"),
                os("--state"),
                os("novel"),
                os("--scenario"),
                os("worst"),
                os("-q"),
                os("--jobs"),
                os("2"),
                os("--out"),
                path(&root.join("runs")),
            ],
            output: root.join("runs/oracle/novel-worst"),
            rows: "predictions.jsonl",
        },
        Step {
            name: "evaluate",
            args: vec![
                os("evaluate"),
                path(&out),
                os("--predictions"),
                path(&root.join("runs/oracle/novel-worst/predictions.jsonl")),
                os("-q"),
                os("--jobs"),
                os("2"),
                os("--output"),
                path(&root.join("evaluated")),
            ],
            output: root.join("evaluated"),
            rows: "results.jsonl",
        },
    ];
    let mut report = Vec::new();
    let mut instances = 0;
    for step in &steps {
        let fresh = |step: &Step| {
            // A cold start: no output, no test results in the cache (environments stay).
            let _ = fs::remove_dir_all(&step.output);
            let _ = fs::remove_dir_all(&cache_runs);
        };
        // The uninterrupted run, timed: the kills land within its length.
        fresh(step);
        let (status, err, mut length) = spawn(&step.args, &tmp, None);
        assert!(status.success(), "{}: {err}", step.name);
        let expected = comparable(step, root);
        if step.name == "build" {
            instances = fs::read_to_string(out.join("instances.jsonl"))
                .expect("instances")
                .lines()
                .count();
            let rejected = fs::read_to_string(out.join("rejected.jsonl")).unwrap_or_default();
            assert!(
                instances >= 100,
                "only {instances} instances: {}",
                rejected.lines().next().unwrap_or_default()
            );
        }
        // From cold, killed again and again, each attempt resuming the last, until
        // `kills` kills have landed; a chain ends after CHAIN kills or with an attempt
        // that finished first, and then a clean re-run must give the uninterrupted
        // run's output and the next chain starts cold. A kill lands within the length
        // of the attempt before it (an attempt that resumes has less to do).
        fresh(step);
        let mut window = length;
        // Attempts, kills that landed in all, and since the last checked re-run.
        let (mut tried, mut survived, mut landed, mut since) = (0, 0, 0, 0);
        while landed < kills && tried < kills * 4 {
            let k = tried;
            tried += 1;
            let ms = rng.below(window.as_millis() as u64 + 1);
            let cold = since == 0;
            let (status, err, took) = spawn(&step.args, &tmp, Some(Duration::from_millis(ms)));
            let at = format!("seed {seed:#x}, {} kill {k} at {ms} ms", step.name);
            let finished = status.signal() != Some(libc::SIGKILL);
            if finished {
                assert!(status.success(), "{at}: {err}");
                // A cold attempt that finished first was an uninterrupted run too: the
                // shorter of the two is the window (the timed run may have met a
                // loaded machine, and kills past the end land nowhere).
                if cold {
                    length = length.min(took);
                }
            } else {
                landed += 1;
                since += 1;
                // Nothing but the warning the recipe asks for (`sandbox: off`), which a
                // command prints when it starts its first run, however soon it dies.
                let unexpected: Vec<&str> = err
                    .lines()
                    .filter(|l| !l.starts_with("warning: tests run without a sandbox"))
                    .collect();
                assert!(unexpected.is_empty(), "{at}: {err}");
            }
            // What a kill leaves visible is nothing or the whole result.
            if step.output.join(step.rows).exists() {
                assert!(
                    comparable(step, root).get(step.rows) == expected.get(step.rows),
                    "{at}: a partial {}",
                    step.rows
                );
            }
            if finished || since == CHAIN || landed == kills {
                rerun_matches(step, root, &tmp, &expected, instances, &at);
                for place in [root, tmp.as_path()] {
                    let left = leftovers(place);
                    assert!(left.is_empty(), "{at}: left behind {left:?}");
                }
                let in_tmp: Vec<_> = fs::read_dir(&tmp).expect("tmp").flatten().collect();
                assert!(in_tmp.is_empty(), "{at}: left in TMPDIR {in_tmp:?}");
                survived += since;
                since = 0;
                fresh(step);
                window = length;
            }
        }
        assert!(
            landed >= kills,
            "seed {seed:#x}, {}: only {landed} of {tried} kills landed before the command ended",
            step.name
        );
        // Leave the complete output for the next command.
        rerun_matches(step, root, &tmp, &expected, instances, "final");
        report.push(format!(
            "{}: {tried} kills tried, {landed} landed before the command ended and {survived} of those survived; an uninterrupted run {:.1} s",
            step.name,
            length.as_secs_f64()
        ));
    }
    let figures = format!("seed {seed:#x}\n{}\n", report.join("\n"));
    eprint!("{figures}");
    // HUNKGEN_FAULTS_REPORT: also append the figures to that file (a full `cargo test`
    // captures stderr).
    if let Some(file) = std::env::var_os("HUNKGEN_FAULTS_REPORT") {
        use std::io::Write;
        let mut f = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(file)
            .expect("report file");
        f.write_all(figures.as_bytes()).expect("report");
    }
}
