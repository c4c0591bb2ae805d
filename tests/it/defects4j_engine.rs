//! Real Defects4J on real bugs of Cli and Codec, in the sandbox, offline: the buggy
//! version fails exactly its trigger tests, the fixed version fails none, golden
//! labelling turns the two runs into FAIL_TO_PASS = trigger tests; a patch that does not
//! compile, a timeout and a broken class path come back as what they are.
//!
//! Needs `make deps` (Defects4J's packages, JDK 11 and the framework copy with the Cli
//! and Codec histories in target/defects4j); without it these tests fail, never skip.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hunkgen::validate::defects4j::{
    BugVersion, CompileOutcome, Defects4j, TestOutcome, TestRun, TestScope,
};
use hunkgen::validate::golden;
use hunkgen::validate::parse::{InfraKind, RunResult, TestStatus};
use hunkgen::validate::runner::{Runner, Sandbox, SandboxPolicy};

use crate::common::manifest;

/// One Defects4J test at a time: each starts several JVMs, and their timings are reported.
static SERIAL: Mutex<()> = Mutex::new(());

pub(crate) fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The installation `make deps` prepares (or `HUNKGEN_D4J_HOME`/`HUNKGEN_D4J_JAVA_HOME`).
fn d4j() -> Defects4j {
    let d = Defects4j::from_env(&manifest().join("target/defects4j")).unwrap_or_else(|e| {
        panic!("{e}\nDefects4J is needed here: run `make deps` (or `make d4j-deps`) first")
    });
    for repo in ["commons-cli.git", "commons-codec.git"] {
        let p = d.home().join("project_repos").join(repo);
        assert!(
            p.is_dir(),
            "{} is missing: run `make deps` (or `make d4j-deps`) first",
            p.display()
        );
    }
    d.with_timeout(Duration::from_secs(600), Duration::from_secs(5))
}

/// The sandbox is required: these runs must never touch anything outside the work dir.
fn sandboxed() -> Runner {
    let r = Runner::new(SandboxPolicy::Required)
        .unwrap_or_else(|e| panic!("{e} (run `make deps` to install bubblewrap)"));
    assert!(matches!(r.sandbox(), Sandbox::Bwrap(_)));
    r
}

/// A fresh scratch directory under target/tmp (the sandbox has its own /tmp).
fn scratch(name: &str) -> tempfile::TempDir {
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("defects4j");
    std::fs::create_dir_all(&base).expect("target/tmp/defects4j");
    tempfile::Builder::new()
        .prefix(name)
        .tempdir_in(base)
        .expect("scratch dir")
}

fn checkout(d: &Defects4j, r: &Runner, v: &BugVersion, dir: &Path) -> (PathBuf, f64) {
    let w = dir.join(v.name());
    let c = d
        .checkout(r, v, &w, &dir.join(format!("{}-checkout.log", v.name())))
        .unwrap_or_else(|e| panic!("{e}"));
    (c.workdir, c.seconds)
}

fn test(d: &Defects4j, r: &Runner, w: &Path, scope: TestScope, log: &str) -> TestRun {
    let log = w.parent().expect("scratch parent").join(log);
    d.test(r, w, &scope, &log).unwrap_or_else(|e| panic!("{e}"))
}

/// The failing tests of a run that produced results (panics on anything else).
fn failing(run: &TestRun) -> BTreeSet<String> {
    match &run.outcome {
        TestOutcome::Tests { results, failures } => {
            let f: BTreeSet<String> = results
                .iter()
                .filter(|(_, s)| !matches!(s, TestStatus::Passed))
                .map(|(t, _)| t.clone())
                .collect();
            for t in &f {
                let trace = &failures[t].trace;
                assert!(!trace.is_empty(), "{t} has no trace");
            }
            f
        }
        other => panic!(
            "tests expected, got {other:?} (log {})",
            run.log_path.display()
        ),
    }
}

fn count(run: &TestRun) -> usize {
    match &run.outcome {
        TestOutcome::Tests { results, .. } => results.len(),
        _ => 0,
    }
}

/// Buggy and fixed versions of one bug, every scope, golden labels; prints the timings.
fn bug_end_to_end(project: &str, bug: u32) {
    let _one = serial();
    let d = d4j();
    let r = sandboxed();
    let dir = scratch(&format!("{project}-{bug}-"));
    let trigger: BTreeSet<String> = d
        .trigger_tests(project, bug)
        .expect("trigger tests")
        .into_iter()
        .collect();
    assert!(!trigger.is_empty());

    let (buggy, co_b) = checkout(&d, &r, &BugVersion::buggy(project, bug), dir.path());
    let (fixed, co_f) = checkout(&d, &r, &BugVersion::fixed(project, bug), dir.path());
    // Only the work directory is written: Defects4J's tag of the answer stays there.
    let tags = std::process::Command::new("git")
        .args(["-C", &buggy.to_string_lossy(), "tag"])
        .output()
        .expect("git tag");
    assert!(String::from_utf8_lossy(&tags.stdout)
        .contains(&format!("D4J_{project}_{bug}_FIXED_VERSION")));

    let mut times = Vec::new();
    let mut buggy_all: Option<TestRun> = None;
    for (w, co) in [(&buggy, co_b), (&fixed, co_f)] {
        let name = w
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let c = d
            .compile(&r, w, &dir.path().join(format!("{name}-compile.log")))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            c.outcome,
            CompileOutcome::Compiled,
            "log {}",
            c.log_path.display()
        );
        let all = test(&d, &r, w, TestScope::All, &format!("{name}-all.log"));
        let rel = test(
            &d,
            &r,
            w,
            TestScope::Relevant,
            &format!("{name}-relevant.log"),
        );
        let trig = test(
            &d,
            &r,
            w,
            TestScope::Trigger,
            &format!("{name}-trigger.log"),
        );
        times.push(format!(
            "{name}: checkout {co:.1}s, compile {:.1}s, test trigger {:.1}s ({} tests), relevant {:.1}s ({} tests), all {:.1}s ({} tests)",
            c.seconds,
            trig.seconds,
            count(&trig),
            rel.seconds,
            count(&rel),
            all.seconds,
            count(&all)
        ));
        if w == &buggy {
            assert_eq!(failing(&all), trigger, "{name}, whole suite");
            assert_eq!(failing(&rel), trigger, "{name}, relevant tests");
            assert_eq!(failing(&trig), trigger, "{name}, trigger tests");
            assert!(count(&rel) < count(&all) && count(&rel) > trigger.len());
            assert_eq!(count(&trig), trigger.len());
            buggy_all = Some(all);
        } else {
            assert_eq!(failing(&all), BTreeSet::new(), "{name}, whole suite");
            assert_eq!(failing(&rel), BTreeSet::new(), "{name}, relevant tests");
            assert_eq!(failing(&trig), BTreeSet::new(), "{name}, trigger tests");
            // Golden labelling over the two whole-suite runs: FAIL_TO_PASS = triggers.
            let before = buggy_all.take().expect("the buggy version ran first");
            let v = golden::validate(&[before.run_result()], &[all.run_result()]);
            assert_eq!(v.rejection, None);
            let f2p: BTreeSet<String> = v.golden.fail_to_pass.into_iter().collect();
            assert_eq!(f2p, trigger);
            assert_eq!(v.golden.pass_to_pass.len(), count(&all) - trigger.len());
        }
    }
    for t in times {
        eprintln!("defects4j timing {t}");
    }
}

#[test]
fn cli_5_buggy_fails_exactly_its_trigger_tests_and_fixed_fails_none() {
    bug_end_to_end("Cli", 5);
}

#[test]
fn codec_2_buggy_fails_exactly_its_trigger_tests_and_fixed_fails_none() {
    bug_end_to_end("Codec", 2);
}

/// A patch that does not compile: `compile` and `test` say so with javac's message,
/// and golden labelling sees a build failure, not failing tests.
#[test]
fn a_patch_that_does_not_compile_is_a_compile_error_with_javacs_message() {
    let _one = serial();
    let d = d4j();
    let r = sandboxed();
    let dir = scratch("compile-error-");
    let (w, _) = checkout(&d, &r, &BugVersion::fixed("Cli", 5), dir.path());
    let file = w.join("src/java/org/apache/commons/cli/Util.java");
    let src = std::fs::read_to_string(&file).expect("Util.java");
    assert!(src.contains("return str;"));
    std::fs::write(&file, src.replacen("return str;", "return str +;", 1)).expect("write");

    let c = d
        .compile(&r, &w, &dir.path().join("compile.log"))
        .expect("compile runs");
    let CompileOutcome::CompileError { first_errors } = &c.outcome else {
        panic!("compile error expected, got {:?}", c.outcome)
    };
    assert!(
        first_errors[0].starts_with("src/java/org/apache/commons/cli/Util.java:")
            && first_errors[0].contains("error: illegal start of expression")
            && first_errors[0].contains("return str +;"),
        "{first_errors:?}"
    );
    let t = test(&d, &r, &w, TestScope::All, "test.log");
    assert!(
        matches!(t.outcome, TestOutcome::CompileError { .. }),
        "{:?}",
        t.outcome
    );
    match t.run_result() {
        RunResult::Infra(f) => assert!(f.reason.starts_with("compile_error: "), "{}", f.reason),
        other => panic!("{other:?}"),
    }
}

/// A tiny timeout: Timeout, and no process of the run is left in the work directory.
#[test]
fn a_timeout_is_reported_and_leaves_nothing_running() {
    let _one = serial();
    let d = d4j();
    let r = sandboxed();
    let dir = scratch("timeout-");
    let (w, _) = checkout(&d, &r, &BugVersion::buggy("Cli", 5), dir.path());
    let quick = d
        .clone()
        // Shorter than starting Defects4J, Ant and the JVM takes: the whole suite of
        // Cli-5 once finished within 3 s on a quiet machine.
        .with_timeout(Duration::from_millis(500), Duration::from_secs(1));
    let start = Instant::now();
    let t = test(&quick, &r, &w, TestScope::All, "timeout.log");
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
    match &t.outcome {
        TestOutcome::Infra(f) => assert_eq!(f.kind, InfraKind::Timeout, "{}", f.reason),
        other => panic!("timeout expected, got {other:?}"),
    }
    let left = processes_in(&w);
    assert!(
        left.is_empty(),
        "processes left in {}: {left:?}",
        w.display()
    );
}

/// Without JUnit on Ant's class path the tests are never compiled and every test class
/// fails to load: an infrastructure failure, never "every test failed".
#[test]
fn a_broken_class_path_is_an_infrastructure_failure_not_all_tests_failed() {
    let _one = serial();
    let d = d4j();
    let r = sandboxed();
    let dir = scratch("class-path-");
    let (w, _) = checkout(&d, &r, &BugVersion::buggy("Cli", 5), dir.path());
    let broken = d.clone().with_env("ANT_ARGS", "");
    let t = test(&broken, &r, &w, TestScope::All, "no-junit.log");
    match &t.outcome {
        TestOutcome::Infra(f) => {
            assert_eq!(f.kind, InfraKind::BuildFailure);
            assert!(f.reason.contains("class path broken"), "{}", f.reason);
        }
        other => panic!("infrastructure failure expected, got {other:?}"),
    }
    let v = golden::validate(&[t.run_result()], &[t.run_result()]);
    assert!(matches!(v.rejection, Some(golden::Rejection::Infra { .. })));
}

/// Processes whose current directory is inside `dir`.
fn processes_in(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| {
            let e = e.ok()?;
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            let cwd = std::fs::read_link(e.path().join("cwd")).ok()?;
            cwd.starts_with(dir).then(|| {
                let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
                format!(
                    "{pid}: {}",
                    String::from_utf8_lossy(&cmd).replace('\0', " ")
                )
            })
        })
        .collect()
}

/// A Defects4J home whose `project_repos/commons-cli.git` is a link to a clone kept
/// elsewhere (a mirror directory), and that clone borrows its objects from a third place
/// through git's alternates: the sandbox binds only what a run names, and Defects4J's
/// `git clone` must still find the repository and its objects.
#[test]
fn a_checkout_reads_project_repositories_linked_from_elsewhere() {
    let _one = serial();
    let d = d4j();
    let r = sandboxed();
    let dir = scratch("linked-repos-");
    let home = dir.path().join("home");
    let repos = home.join("project_repos");
    std::fs::create_dir_all(&repos).expect("mkdir");
    for part in ["framework", "major"] {
        let ok = std::process::Command::new("cp")
            .arg("-a")
            .arg(d.home().join(part))
            .arg(&home)
            .status()
            .expect("cp");
        assert!(ok.success(), "copy {part}");
    }
    std::fs::copy(d.home().join("project_repos/README"), repos.join("README")).expect("README");
    // The mirror: a bare clone whose objects stay in the original (`--shared`).
    let mirror = dir.path().join("mirrors/commons-cli.git");
    let ok = std::process::Command::new("git")
        .args(["clone", "-q", "--bare", "--shared"])
        .arg(d.home().join("project_repos/commons-cli.git"))
        .arg(&mirror)
        .status()
        .expect("git clone");
    assert!(ok.success());
    assert!(mirror.join("objects/info/alternates").is_file());
    std::os::unix::fs::symlink(&mirror, repos.join("commons-cli.git")).expect("link");
    let linked = Defects4j::new(&home, d.java_home())
        .unwrap_or_else(|e| panic!("{e}"))
        .with_timeout(Duration::from_secs(600), Duration::from_secs(5));
    let (w, _) = checkout(&linked, &r, &BugVersion::buggy("Cli", 5), dir.path());
    assert!(
        w.join("src/java/org/apache/commons/cli/Util.java")
            .is_file(),
        "no sources in {}",
        w.display()
    );
}

/// Switching a copied work directory to the other version rewrites only the files the
/// source patch touches: every other file keeps its time, so Ant's javac recompiles just
/// those (a stale index made `git checkout -f` rewrite the whole tree, and the buggy
/// version was compiled from scratch every time).
#[test]
fn switching_a_copied_work_directory_rewrites_only_the_patched_files() {
    let _one = serial();
    let d = d4j();
    let r = sandboxed();
    let dir = scratch("switch-");
    let (fixed, _) = checkout(&d, &r, &BugVersion::fixed("Cli", 5), dir.path());
    let copy = dir.path().join("copy");
    let ok = std::process::Command::new("cp")
        .arg("-a")
        .arg(&fixed)
        .arg(&copy)
        .status()
        .expect("cp");
    assert!(ok.success(), "cp -a");
    let git =
        |args: &[&str]| String::from_utf8_lossy(&crate::common::git(&copy, args)).into_owned();
    let patched: BTreeSet<String> = git(&[
        "diff",
        "--name-only",
        "D4J_Cli_5_FIXED_VERSION",
        "D4J_Cli_5_BUGGY_VERSION",
    ])
    .lines()
    .filter(|f| f.ends_with(".java"))
    .map(String::from)
    .collect();
    assert!(!patched.is_empty(), "Cli-5's source patch touches a file");
    let tracked: Vec<String> = git(&["ls-files"])
        .lines()
        .filter(|f| f.ends_with(".java"))
        .map(String::from)
        .collect();
    let mtime = |f: &str| {
        std::fs::metadata(copy.join(f))
            .and_then(|m| m.modified())
            .unwrap_or_else(|e| panic!("{f}: {e}"))
    };
    let before: Vec<_> = tracked.iter().map(|f| mtime(f)).collect();
    d.switch_version(
        &r,
        &copy,
        &BugVersion::buggy("Cli", 5),
        false,
        &dir.path().join("switch.log"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut rewritten = BTreeSet::new();
    for (f, t) in tracked.iter().zip(before) {
        if mtime(f) != t {
            rewritten.insert(f.clone());
        }
    }
    assert_eq!(
        rewritten,
        patched,
        "only the patched sources get a new time ({} Java files tracked)",
        tracked.len()
    );
    assert_eq!(
        Defects4j::work_dir_version(&copy).unwrap_or_else(|e| panic!("{e}")),
        BugVersion::buggy("Cli", 5)
    );
}
