//! Validation end to end with real processes: sandbox, timeouts, environments, parsers.
//!
//! The sandbox tests require bubblewrap and fail (never skip) without it: `make deps`
//! installs it, uv, pytest and the JUnit jars.

use std::collections::BTreeSet;
use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use hunkgen::validate::env::{find_uv, EnvCache, EnvError, EnvSpec, JavaSpec, PythonSpec};
use hunkgen::validate::golden::{self, Label, Outcome};
use hunkgen::validate::parse::{self, IdStyle, InfraKind, RunResult, TestStatus};
use hunkgen::validate::runner::{ExitKind, RunSpec, Runner, Sandbox, SandboxPolicy};

/// A runner that must be sandboxed: fails the test when bubblewrap is missing.
fn sandboxed() -> Runner {
    let r = Runner::new(SandboxPolicy::Required)
        .unwrap_or_else(|e| panic!("{e} (run `make deps` to install bubblewrap)"));
    assert!(matches!(r.sandbox(), Sandbox::Bwrap(_)));
    assert_eq!(r.take_warning(), None);
    r
}

fn unsandboxed() -> Runner {
    Runner::new(SandboxPolicy::Off).unwrap()
}

/// A scratch directory under target/tmp, or `HUNKGEN_TEST_TMPDIR` (see
/// [`crate::common::scratch_root`]).
fn scratch(name: &str) -> tempfile::TempDir {
    let base = crate::common::scratch_root().join("validate");
    fs::create_dir_all(&base).unwrap();
    tempfile::Builder::new()
        .prefix(name)
        .tempdir_in(base)
        .unwrap()
}

fn read(p: &Path) -> String {
    fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn both_streams_go_to_the_log_and_exit_codes_are_kept() {
    let w = scratch("streams");
    for runner in [sandboxed(), unsandboxed()] {
        let log = w.path().join("logs/i1/run.log");
        let spec = RunSpec::shell(
            "echo out; echo err >&2; echo \"$GREETING\"; exit 3",
            w.path(),
            &log,
        )
        .with_env("GREETING", "hello");
        let o = runner.run(&spec).unwrap();
        assert_eq!(o.exit, ExitKind::Code(3));
        assert!(!o.timed_out);
        assert_eq!(o.sandboxed, runner.is_sandboxed());
        let text = read(&log);
        assert!(
            text.contains("out\n") && text.contains("err\n") && text.contains("hello\n"),
            "{text}"
        );
    }
    let sig = unsandboxed()
        .run(&RunSpec::shell(
            "kill -9 $$",
            w.path(),
            w.path().join("k.log"),
        ))
        .unwrap();
    assert_eq!(sig.exit, ExitKind::Signal(9));
}

#[test]
fn missing_sandbox_is_reported_once() {
    let r = unsandboxed();
    let w = r.take_warning().expect("a warning the first time");
    assert!(w.contains("without a sandbox"), "{w}");
    assert_eq!(r.take_warning(), None);
}

#[test]
fn a_bubblewrap_that_cannot_make_namespaces_falls_back_or_fails() {
    // /bin/false stands for a bwrap that exits non-zero, as in an unprivileged container.
    let r = Runner::with_bwrap("/bin/false", SandboxPolicy::Auto).unwrap();
    assert!(!r.is_sandboxed());
    let w = r.take_warning().expect("warned once");
    assert!(w.contains("cannot create namespaces"), "{w}");
    assert_eq!(r.take_warning(), None);
    let e = Runner::with_bwrap("/nonexistent/bwrap", SandboxPolicy::Required).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/bwrap"), "{e}");
    // It still runs, in its own process group with rlimits.
    let w = scratch("fallback");
    let o = r
        .run(&RunSpec::shell("exit 4", w.path(), w.path().join("f.log")))
        .unwrap();
    assert_eq!(o.exit, ExitKind::Code(4));
    assert!(!o.sandboxed);
}

#[test]
fn sandbox_denies_network() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(AtomicBool::new(false));
    listener.set_nonblocking(true).unwrap();
    let script = format!(
        "import socket, sys\n\
         try:\n    socket.create_connection(('127.0.0.1', {port}), timeout=3).close()\n\
         except OSError as e:\n    print('refused', e); sys.exit(7)\n\
         print('connected')\n"
    );
    let w = scratch("net");
    fs::write(w.path().join("connect.py"), script).unwrap();
    let spec = |log: &str| RunSpec::shell("python3 connect.py", w.path(), w.path().join(log));

    let inside = sandboxed().run(&spec("sandboxed.log")).unwrap();
    assert_eq!(
        inside.exit,
        ExitKind::Code(7),
        "{}",
        read(&w.path().join("sandboxed.log"))
    );
    // The control: the same script outside the sandbox reaches the listener.
    let outside = unsandboxed().run(&spec("plain.log")).unwrap();
    assert_eq!(
        outside.exit,
        ExitKind::Code(0),
        "{}",
        read(&w.path().join("plain.log"))
    );
    if listener.accept().is_ok() {
        accepted.store(true, Ordering::SeqCst);
    }
    assert!(
        accepted.load(Ordering::SeqCst),
        "the unsandboxed connection was accepted"
    );
}

#[test]
fn sandbox_denies_writes_outside_the_working_copy() {
    let w = scratch("copy");
    let outside = scratch("outside");
    let target = outside.path().join("escaped");
    let script = format!(
        "echo inside > inside.txt && echo private > /tmp/private.txt && \
         if echo x > '{}'; then echo WROTE; else echo DENIED; fi",
        target.display()
    );
    let log = w.path().join("w.log");
    // The other directory is visible to the run (bound read-only: it may live under
    // /tmp, which the sandbox replaces), and not writable.
    let mut spec = RunSpec::shell(&script, w.path(), &log);
    spec.readable.push(outside.path().to_path_buf());
    let o = sandboxed().run(&spec).unwrap();
    assert_eq!(o.exit, ExitKind::Code(0), "{}", read(&log));
    assert!(read(&log).contains("DENIED"), "{}", read(&log));
    assert!(
        read(&log).contains("Read-only file system"),
        "{}",
        read(&log)
    );
    assert!(!target.exists());
    assert_eq!(read(&w.path().join("inside.txt")), "inside\n");
    // The sandbox's /tmp is private: nothing lands in the host's /tmp.
    assert!(!Path::new("/tmp/private.txt").exists());
    // The control: without the sandbox the same write succeeds.
    let o = unsandboxed()
        .run(&RunSpec::shell(&script, w.path(), w.path().join("u.log")))
        .unwrap();
    assert_eq!(o.exit, ExitKind::Code(0));
    assert!(target.exists());
    let _ = fs::remove_file("/tmp/private.txt");
}

/// Live (non-zombie) processes whose command line contains `marker`: pid, command line.
fn pids_with(marker: &str) -> BTreeSet<(u32, String)> {
    let mut out = BTreeSet::new();
    for e in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmd) = fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.contains(marker) && alive(pid) {
            out.insert((pid, cmd));
        }
    }
    out
}

/// True while the pid exists and is not a zombie.
fn alive(pid: u32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => {
            s.rsplit(')')
                .next()
                .and_then(|r| r.split_whitespace().next())
                != Some("Z")
        }
        Err(_) => false,
    }
}

/// A test that hangs: a shell that traps TERM (prints, then exits), a grandchild that
/// ignores TERM, a double-forked orphan in a session of its own, and a plain sleeper.
fn hanging_tree(runner: Runner, name: &str) {
    let w = scratch(name);
    // Unique per test, so concurrent tests never see each other's sleepers.
    let secs = format!(
        "{}.{}",
        300 + std::process::id() % 97,
        name.len() * 1000 + 7
    );
    let script = format!(
        "trap 'echo got-term; exit 143' TERM\n\
         sh -c 'trap \"\" TERM; sleep {secs}' &\n\
         ( setsid sleep {secs} & ) \n\
         sleep {secs} &\n\
         wait\n"
    );
    let log = w.path().join("t.log");
    let spec = RunSpec::shell(script, w.path(), &log)
        .with_timeout(Duration::from_millis(1500), Duration::from_millis(700));
    let marker = format!("sleep {secs}");
    let seen = thread::scope(|s| {
        let watcher = s.spawn(|| {
            let start = Instant::now();
            let mut seen = BTreeSet::new();
            while start.elapsed() < Duration::from_millis(1300) {
                seen.extend(pids_with(&marker));
                thread::sleep(Duration::from_millis(50));
            }
            seen
        });
        let o = runner.run(&spec).unwrap();
        assert!(o.timed_out);
        assert!(
            o.duration >= Duration::from_millis(1500),
            "{:?}",
            o.duration
        );
        assert!(o.duration < Duration::from_secs(5), "{:?}", o.duration);
        watcher.join().unwrap()
    });
    let sleepers = seen
        .iter()
        .filter(|(_, cmd)| cmd.trim_end() == marker)
        .count();
    assert_eq!(sleepers, 3, "three sleepers ran: {seen:?}");
    let seen: BTreeSet<u32> = seen.into_iter().map(|(pid, _)| pid).collect();
    let left: Vec<u32> = seen.iter().copied().filter(|p| alive(*p)).collect();
    let info: Vec<String> = left
        .iter()
        .map(|p| fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default())
        .collect();
    assert!(left.is_empty(), "still alive after the timeout: {info:?}");
    let text = read(&log);
    assert!(text.contains("got-term"), "SIGTERM came first: {text}");
    assert!(text.contains("[hunkgen] timed out"), "{text}");
    let r = parse::verdict(&runner_outcome_for_log(&log), Default::default(), &[]);
    assert!(matches!(r, RunResult::Infra(_)));
}

/// A timed-out outcome pointing at `log`, to check the verdict on it.
fn runner_outcome_for_log(log: &Path) -> hunkgen::validate::RunOutcome {
    hunkgen::validate::RunOutcome {
        exit: ExitKind::Code(143),
        timed_out: true,
        duration: Duration::from_secs(1),
        log_path: log.to_path_buf(),
        sandboxed: true,
        process_limit_enforced: true,
    }
}

#[test]
fn timeout_kills_the_whole_tree_in_the_sandbox() {
    hanging_tree(sandboxed(), "tree-sandboxed");
}

#[test]
fn timeout_kills_the_whole_tree_without_sandbox() {
    hanging_tree(unsandboxed(), "tree-plain");
}

#[test]
fn memory_limit_is_enforced_and_process_limit_set() {
    let w = scratch("limits");
    let mut spec = RunSpec::shell(
        "grep -E 'Max (processes|address space)' /proc/self/limits; \
         python3 -c 'b = bytearray(800 * 1024 * 1024)' && echo ALLOCATED",
        w.path(),
        w.path().join("l.log"),
    );
    spec.memory_limit = Some(400 * 1024 * 1024);
    spec.process_limit = Some(64);
    let o = sandboxed().run(&spec).unwrap();
    let text = read(&o.log_path);
    assert!(text.contains("MemoryError"), "{text}");
    assert!(!text.contains("ALLOCATED"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("Max processes") && l.contains(" 64 ")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("Max address space") && l.contains("419430400")),
        "{text}"
    );
    // Root is exempt from RLIMIT_NPROC: the limit holds for root only through a pids
    // cgroup (tests/it/hostile.rs runs a fork bomb against it); the outcome says which.
    let root = fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"));
    assert!(o.process_limit_enforced || root);
}

// ---------------------------------------------------------------- environments

/// uv from `make deps` (HUNKGEN_UV, PATH, or target/venv-validate); fails without it.
fn uv() -> PathBuf {
    find_uv()
        .or_else(|| {
            let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/venv-validate/bin/uv");
            p.is_file().then_some(p)
        })
        .expect("uv not found: run `make deps`")
}

/// uv's shared cache, seeded by `make deps` so these tests need no network.
fn uv_cache() -> PathBuf {
    let p = std::env::var_os("HUNKGEN_UV_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/uv-cache"));
    assert!(
        p.join(crate::common::uv_seeded_marker()).exists(),
        "{} is not seeded ({}): run `make deps`",
        p.display(),
        crate::common::uv_seeded_marker()
    );
    p
}

fn pytest_spec(dir: &Path, requirements: &str) -> EnvSpec {
    let req = dir.join("requirements.txt");
    fs::write(&req, requirements).unwrap();
    EnvSpec::Python(PythonSpec {
        python: None,
        requirements: Some(req),
        install: None,
        build_constraints: None,
    })
}

/// One pytest venv for the tests that run pytest (built offline from the seeded cache).
fn pytest_env() -> &'static hunkgen::validate::env::BuiltEnv {
    static ENV: OnceLock<hunkgen::validate::env::BuiltEnv> = OnceLock::new();
    ENV.get_or_init(|| {
        // A persistent cache: later test runs reuse this environment.
        let dir = crate::common::scratch_root().join("validate-envs");
        fs::create_dir_all(&dir).unwrap();
        let spec = pytest_spec(&dir, "pytest==9.2.0\n");
        let cache = EnvCache::new(dir.join("envs"), uv_cache())
            .with_uv(uv())
            .with_network(false);
        cache.ensure(&sandboxed(), "shared/pytest", &spec).unwrap()
    })
}

#[test]
fn python_env_is_built_once_offline_with_hardlinks_and_reused() {
    let dir = scratch("envcache");
    let spec = pytest_spec(dir.path(), "pytest==9.2.0\n");
    let runner = sandboxed();
    let cache = EnvCache::new(dir.path().join("envs"), uv_cache())
        .with_uv(uv())
        .with_network(false);
    // What a build killed midway left: its half-made environment and its released lock.
    let killed = dir.path().join("envs/.tmp-0123abcd-999999-0-0badc0de");
    fs::create_dir_all(killed.join("venv/lib")).unwrap();
    fs::write(killed.join("venv/lib/half"), "x").unwrap();
    fs::write(
        dir.path().join("envs/.tmp-0123abcd-999999-0-0badc0de.lock"),
        "",
    )
    .unwrap();
    let first = cache.ensure(&runner, "org/app", &spec).unwrap();
    assert!(!first.reused && first.offline);
    assert!(first.dir.starts_with(dir.path().join("envs")));
    let again = cache.ensure(&runner, "org/app", &spec).unwrap();
    assert!(again.reused);
    assert_eq!(again.dir, first.dir);
    // No temporary directory is left behind, and the killed build's is swept.
    let names: Vec<String> = fs::read_dir(dir.path().join("envs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with(".tmp")), "{names:?}");

    // The venv works after the rename, inside the sandbox.
    let w = scratch("pyver");
    let mut rs = RunSpec::shell(
        "python -m pytest --version",
        w.path(),
        w.path().join("v.log"),
    );
    first.enter(&mut rs);
    let o = runner.run(&rs).unwrap();
    assert_eq!(o.exit, ExitKind::Code(0), "{}", read(&o.log_path));
    assert!(read(&o.log_path).contains("pytest 9.2.0"));

    // Installed files are hardlinks into uv's cache.
    use std::os::unix::fs::MetadataExt;
    let site = fs::read_dir(first.dir.join("venv/lib"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let init = site.join("site-packages/_pytest/__init__.py");
    assert!(
        fs::metadata(&init).unwrap().nlink() >= 2,
        "{} is not hardlinked",
        init.display()
    );

    // Other dependency contents, another environment.
    let other = pytest_spec(dir.path(), "pytest==9.2.0\n# pinned\n");
    assert_ne!(cache.key("org/app", &other).unwrap(), first.key);

    // Offline and not in the cache: a step failure with its log, no environment.
    let missing = pytest_spec(dir.path(), "surely-not-a-cached-package-hunkgen==1.0\n");
    match cache.ensure(&runner, "org/app", &missing) {
        Err(e @ EnvError::Step { .. }) => {
            let EnvError::Step { log, tail, .. } = &e else {
                unreachable!()
            };
            assert!(log.exists());
            assert!(tail.contains("surely-not-a-cached-package-hunkgen"), "{e}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn install_commands_and_setup_commands_build_environments() {
    let dir = scratch("setup");
    let runner = sandboxed();
    let cache = EnvCache::new(dir.path().join("envs"), uv_cache())
        .with_uv(uv())
        .with_network(false);
    // A venv whose packages come from an install command using the cache's uv.
    let spec = EnvSpec::Python(PythonSpec {
        python: Some("3".into()),
        requirements: None,
        install: Some("\"$HUNKGEN_UV\" pip install --quiet pytest==9.2.0".into()),
        build_constraints: None,
    });
    let env = cache.ensure(&runner, "org/cmd", &spec).unwrap();
    assert!(env.offline);
    assert!(env.python().unwrap().exists());
    assert!(fs::read_dir(env.dir.join("venv/lib")).unwrap().any(|d| d
        .unwrap()
        .path()
        .join("site-packages/pytest")
        .is_dir()));
    // Any setup command, with its input file in the key.
    let input = dir.path().join("tool.cfg");
    fs::write(&input, "v1").unwrap();
    let setup = EnvSpec::Command(hunkgen::validate::env::CommandEnv {
        setup: "mkdir bin && printf '#!/bin/sh\\necho tool-ok\\n' > bin/tool && chmod +x bin/tool"
            .into(),
        inputs: vec![input.clone()],
    });
    let built = cache.ensure(&runner, "org/cmd", &setup).unwrap();
    assert!(!built.reused);
    assert!(built.dir.join("bin/tool").exists());
    assert!(cache.ensure(&runner, "org/cmd", &setup).unwrap().reused);
    fs::write(&input, "v2").unwrap();
    let rebuilt = cache.ensure(&runner, "org/cmd", &setup).unwrap();
    assert!(!rebuilt.reused);
    assert_ne!(rebuilt.dir, built.dir);
    // A failing setup leaves nothing behind but its log.
    let bad = EnvSpec::Command(hunkgen::validate::env::CommandEnv {
        setup: "echo nope >&2; exit 9".into(),
        inputs: vec![],
    });
    match cache.ensure(&runner, "org/cmd", &bad) {
        Err(e @ EnvError::Step { .. }) => assert!(e.to_string().contains("nope"), "{e}"),
        other => panic!("{other:?}"),
    }
    let leftovers: Vec<_> = fs::read_dir(dir.path().join("envs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_python_version_no_interpreter_has_is_unsupported() {
    let dir = scratch("pyvers");
    let cache = EnvCache::new(dir.path().join("envs"), uv_cache()).with_uv(uv());
    // No machine has a 2.5 today: not the machine's, not on PATH, not in pyenv.
    let spec = EnvSpec::Python(PythonSpec {
        python: Some("2.5".into()),
        requirements: None,
        install: None,
        build_constraints: None,
    });
    match cache.ensure(&unsandboxed(), "org/old", &spec) {
        Err(e @ EnvError::UnsupportedPython { .. }) => {
            let text = e.to_string();
            assert!(text.contains("Python 2.5 requested"), "{text}");
            // It names what was found: the machine's python3 at least.
            let (_, machine) = hunkgen::validate::env::machine_python().expect("python3");
            assert!(text.contains(&machine), "{text}");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        !dir.path().join("envs").exists()
            || fs::read_dir(dir.path().join("envs")).unwrap().count() == 0
    );
}

/// A second interpreter (`make deps` installs Debian bullseye's python3.9) is found on
/// PATH and used: the venv's python is 3.9, in the sandbox too.
#[test]
fn a_second_interpreter_is_found_and_its_venv_runs_in_the_sandbox() {
    let found = hunkgen::validate::env::pythons::discover();
    assert!(
        found.iter().any(|i| i.version.starts_with("3.9.")),
        "no Python 3.9 found ({found:?}): `make deps` installs python3.9"
    );
    let dir = scratch("py39");
    let cache = EnvCache::new(dir.path().join("envs"), uv_cache())
        .with_uv(uv())
        .with_network(false);
    let spec = EnvSpec::Python(PythonSpec {
        python: Some("3.9".into()),
        requirements: None,
        install: None,
        build_constraints: None,
    });
    let env = cache
        .ensure(&sandboxed(), "org/py39", &spec)
        .expect("a 3.9 venv");
    let python = env.python().expect("a venv python");
    let w = dir.path().join("w");
    fs::create_dir_all(&w).unwrap();
    let log = dir.path().join("version.log");
    let mut run = RunSpec::shell(
        format!(
            "{} -c 'import sys; print(sys.version_info[:2])'",
            hunkgen::validate::env::sh_quote(&python)
        ),
        &w,
        &log,
    );
    env.enter(&mut run);
    run.writable = vec![w.clone()];
    let o = sandboxed().run(&run).expect("runs");
    let text = read(&log);
    assert!(o.exit.success(), "{text}");
    assert!(text.contains("(3, 9)"), "{text}");
    // Another version asked of the same repository is another environment.
    let key_39 = cache.key("org/py39", &spec).expect("key");
    let machine = EnvSpec::Python(PythonSpec {
        python: None,
        requirements: None,
        install: None,
        build_constraints: None,
    });
    assert_ne!(key_39, cache.key("org/py39", &machine).expect("key"));
}

// ---------------------------------------------------------------- pytest

const PYTEST_FILE: &str = r#"
import pytest

def test_pass():
    assert True

def test_fail():
    assert 1 == 2

@pytest.fixture
def broken():
    raise RuntimeError("fixture")

def test_error(broken):
    pass

@pytest.mark.skip(reason="not today")
def test_skip():
    pass

@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False

@pytest.mark.xfail(reason="fixed meanwhile")
def test_xpass():
    pass

@pytest.mark.parametrize("a,b", [(1, 2), (3, 3)])
def test_param(a, b):
    assert a < b

@pytest.mark.parametrize("s", ["a - b", "x::y"])
def test_odd_ids(s):
    pass

class TestGroup:
    def test_method(self):
        pass
"#;

/// Runs pytest the way validation does: -rA summary and an xunit1 JUnit report.
fn run_pytest(
    runner: &Runner,
    w: &Path,
    log: &str,
) -> (hunkgen::validate::RunOutcome, parse::PytestReport) {
    let mut rs = RunSpec::shell(
        "python -m pytest -rA -p no:cacheprovider --junitxml=report.xml -o junit_family=xunit1 tests",
        w,
        w.join(log),
    );
    pytest_env().enter(&mut rs);
    rs.env.push(("PYTHONDONTWRITEBYTECODE".into(), "1".into()));
    let o = runner.run(&rs).unwrap();
    let xml = fs::read_to_string(w.join("report.xml")).ok();
    let rep =
        parse::parse_pytest(xml.as_deref(), &read(&o.log_path), &w.join("report.xml")).unwrap();
    let _ = fs::remove_file(w.join("report.xml"));
    (o, rep)
}

#[test]
fn real_pytest_reports_parse_to_node_ids() {
    let w = scratch("pytest");
    fs::create_dir_all(w.path().join("tests")).unwrap();
    fs::write(w.path().join("tests/test_x.py"), PYTEST_FILE).unwrap();
    let runner = sandboxed();
    let (o, rep) = run_pytest(&runner, w.path(), "run.log");
    assert_eq!(o.exit, ExitKind::Code(1), "{}", read(&o.log_path));
    assert!(
        rep.collection_errors.is_empty(),
        "{:?}",
        rep.collection_errors
    );
    let f = "tests/test_x.py::";
    let expected: Vec<(String, TestStatus)> = [
        ("test_pass", TestStatus::Passed),
        ("test_fail", TestStatus::Failed),
        ("test_error", TestStatus::Error),
        ("test_skip", TestStatus::Skipped),
        ("test_xfail", TestStatus::Xfail),
        ("test_xpass", TestStatus::Passed),
        ("test_param[1-2]", TestStatus::Passed),
        ("test_param[3-3]", TestStatus::Failed),
        ("test_odd_ids[a - b]", TestStatus::Passed),
        ("test_odd_ids[x::y]", TestStatus::Passed),
        ("TestGroup::test_method", TestStatus::Passed),
    ]
    .iter()
    .map(|(t, s)| (format!("{f}{t}"), *s))
    .collect();
    let got: Vec<(String, TestStatus)> = rep.tests.clone().into_iter().collect();
    let mut want = expected.clone();
    want.sort();
    assert_eq!(got, want);
    assert!(matches!(
        parse::verdict(&o, rep.tests, &rep.collection_errors),
        RunResult::Tests(_)
    ));

    // A module that cannot be imported: a collection error, not failed tests.
    fs::write(
        w.path().join("tests/test_bad.py"),
        "import surely_missing_module\n",
    )
    .unwrap();
    let (o, rep) = run_pytest(&runner, w.path(), "bad.log");
    assert!(!rep.collection_errors.is_empty(), "{}", read(&o.log_path));
    match parse::verdict(&o, rep.tests, &rep.collection_errors) {
        RunResult::Infra(f) => {
            assert_eq!(f.kind, InfraKind::CollectionError);
            assert!(f.reason.contains("tests/test_bad.py"), "{}", f.reason);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn golden_labels_and_a_flaky_test_from_real_reruns() {
    // The bug: add() subtracts. test_flaky fails on every other run (its counter file
    // lives in the working copy, as leaked state does in real flaky tests).
    let module = |body: &str| format!("def add(a, b):\n    return {body}\n");
    let tests = r#"
import pathlib
from calc import add

def test_add():
    assert add(2, 3) == 5

def test_stable():
    assert add(0, 0) == 0

def test_flaky():
    p = pathlib.Path("counter.txt")
    n = int(p.read_text()) + 1 if p.exists() else 1
    p.write_text(str(n))
    assert n % 2 == 0
"#;
    let runner = sandboxed();
    let mut sides = Vec::new();
    for (name, body) in [("before", "a - b"), ("after", "a + b")] {
        let w = scratch(name);
        fs::create_dir_all(w.path().join("tests")).unwrap();
        fs::write(w.path().join("calc.py"), module(body)).unwrap();
        fs::write(w.path().join("tests/test_calc.py"), tests).unwrap();
        fs::write(w.path().join("conftest.py"), "").unwrap();
        let runs: Vec<RunResult> = (0..3)
            .map(|k| {
                let (o, rep) = run_pytest(&runner, w.path(), &format!("{name}-{k}.log"));
                parse::verdict(&o, rep.tests, &rep.collection_errors)
            })
            .collect();
        sides.push(runs);
    }
    let v = golden::validate(&sides[0], &sides[1]);
    assert_eq!(v.rejection, None, "{v:?}");
    assert_eq!(v.golden.fail_to_pass, vec!["tests/test_calc.py::test_add"]);
    assert_eq!(
        v.golden.pass_to_pass,
        vec!["tests/test_calc.py::test_stable"]
    );
    assert_eq!(v.labels.tests["tests/test_calc.py::test_add"], Label::F2P);
    let flaky = &v.labels.flaky["tests/test_calc.py::test_flaky"];
    assert_eq!(
        flaky.before,
        vec![Outcome::Fail, Outcome::Pass, Outcome::Fail]
    );
    assert!(!v
        .labels
        .tests
        .contains_key("tests/test_calc.py::test_flaky"));
    // The fixed tree resolves fully under SWE-bench's rules; the buggy one does not.
    let g = &v.golden;
    assert_eq!(
        golden::resolve(&sides[1][0], g, golden::EvalType::PassAndFail),
        golden::Resolution::Full
    );
    assert_eq!(
        golden::resolve(&sides[0][0], g, golden::EvalType::PassAndFail),
        golden::Resolution::No
    );
}

// ---------------------------------------------------------------- Java

#[test]
fn real_junit_console_launcher_reports_parse_to_java_ids() {
    let jars: Vec<PathBuf> = [
        "junit-platform-console-standalone.jar",
        "junit-jupiter-params.jar",
        "junit4.jar",
        "hamcrest-core.jar",
    ]
    .iter()
    .map(|j| Path::new("/usr/share/java").join(j))
    .collect();
    for j in &jars {
        assert!(j.exists(), "{} missing: run `make deps`", j.display());
    }
    let dir = scratch("javaenv");
    let spec = EnvSpec::Java(JavaSpec {
        jars,
        source_dirs: vec!["src".into()],
        test_dirs: vec!["test".into()],
    });
    let cache = EnvCache::new(dir.path().join("envs"), uv_cache());
    let runner = sandboxed();
    let env = cache.ensure(&runner, "org/calc", &spec).unwrap();
    assert!(cache.ensure(&runner, "org/calc", &spec).unwrap().reused);

    let w = scratch("javatree");
    let write = |rel: &str, text: &str| {
        let p = w.path().join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    };
    write("src/calc/Calc.java", "package calc;\npublic class Calc { public static int add(int a, int b) { return a - b; } }\n");
    write(
        "test/calc/CalcTest.java",
        r#"package calc;
import org.junit.jupiter.api.*;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import static org.junit.jupiter.api.Assertions.*;
class CalcTest {
    @Test void zero() { assertEquals(0, Calc.add(0, 0)); }
    @Test void adds() { assertEquals(5, Calc.add(2, 3)); }
    @Test @Disabled("later") void disabled() { }
    @Test void crashes() { throw new IllegalStateException("boom"); }
    @ParameterizedTest @CsvSource({"1, 1", "2, 0"}) void minus(int a, int b) { assertEquals(0, Calc.add(a, b)); }
}
"#,
    );
    write(
        "test/calc/OldTest.java",
        "package calc;\nimport org.junit.Test;\nimport static org.junit.Assert.*;\npublic class OldTest {\n  @Test public void testOld() { assertEquals(0, Calc.add(1, 1)); }\n  @Test public void testOldFails() { assertEquals(2, Calc.add(1, 1)); }\n}\n",
    );
    let cmd = hunkgen::validate::env::java_test_command(&env, "reports", &[]).unwrap();
    let mut rs = RunSpec::new(cmd.clone(), w.path(), w.path().join("java.log"));
    env.enter(&mut rs);
    let o = runner.run(&rs).unwrap();
    assert!(
        w.path().join("reports/TEST-junit-jupiter.xml").exists(),
        "{}",
        read(&o.log_path)
    );
    assert!(
        w.path().join("reports/TEST-junit-vintage.xml").exists(),
        "{}",
        read(&o.log_path)
    );
    let r = parse::parse_junit_dir(&w.path().join("reports"), IdStyle::Java).unwrap();
    let got: Vec<(&str, TestStatus)> = r.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(
        got,
        vec![
            ("calc.CalcTest::adds", TestStatus::Failed),
            ("calc.CalcTest::crashes", TestStatus::Error),
            ("calc.CalcTest::disabled", TestStatus::Skipped),
            ("calc.CalcTest::minus[1]", TestStatus::Passed),
            ("calc.CalcTest::minus[2]", TestStatus::Failed),
            ("calc.CalcTest::zero", TestStatus::Passed),
            ("calc.OldTest::testOld", TestStatus::Passed),
            ("calc.OldTest::testOldFails", TestStatus::Failed),
        ]
    );
    assert!(matches!(parse::verdict(&o, r, &[]), RunResult::Tests(_)));

    // A compile error: no reports, an infrastructure failure naming javac's output.
    write("src/calc/Calc.java", "package calc;\npublic class Calc { public static int add(int a, int b) { return a - ; } }\n");
    let mut rs = RunSpec::new(cmd, w.path(), w.path().join("broken.log"));
    env.enter(&mut rs);
    let o = runner.run(&rs).unwrap();
    let r = parse::parse_junit_dir(&w.path().join("reports"), IdStyle::Java).unwrap();
    match parse::verdict(&o, r, &[]) {
        RunResult::Infra(f) => {
            assert_eq!(f.kind, InfraKind::BuildFailure);
            assert!(f.reason.contains("error"), "{}", f.reason);
        }
        other => panic!("{other:?}"),
    }
}

/// A run is never root, even when hunkgen is: a read-only file of the working copy stays
/// read-only to it (as root, `test -w` says writable and Cli's FileValidatorTest fails on
/// Defects4J's own fixed version), while the files it owns stay writable.
#[test]
fn a_sandboxed_run_is_not_root_and_respects_read_only_files() {
    let w = scratch("perm");
    let ro = w.path().join("readable.txt");
    std::fs::write(&ro, "data\n").unwrap();
    let mut perms = std::fs::metadata(&ro).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&ro, perms).unwrap();
    let script = "id -u; if [ -w readable.txt ]; then echo WRITABLE; else echo READ-ONLY; fi; \
                  echo own > own.txt && echo OWN-OK";
    let log = w.path().join("p.log");
    let o = sandboxed()
        .run(&RunSpec::shell(script, w.path(), &log))
        .unwrap();
    assert_eq!(o.exit, ExitKind::Code(0), "{}", read(&log));
    let text = read(&log);
    assert!(text.contains("READ-ONLY"), "{text}");
    assert!(text.contains("OWN-OK"), "{text}");
    assert!(
        !text.lines().any(|l| l.trim() == "0"),
        "uid 0 inside: {text}"
    );
}

/// A build whose golden tests hang: the runs time out, the instance is rejected as
/// `timeout`, and a rebuild answers the timeouts from the cache instead of waiting the
/// limit again; a longer limit runs them again.
#[test]
fn a_timed_out_run_is_cached_with_its_limit() {
    let root = tempfile::tempdir().expect("tempdir");
    let recipe = crate::faults::fixture(root.path(), 1);
    let counter = root.path().join("runs.txt");
    let text = fs::read_to_string(&recipe).expect("recipe");
    let hanging = |timeout: u32| {
        let t = text
            .replace("timeout: 60", &format!("timeout: {timeout}"))
            .replace(
                "command: sh run-tests.sh {report_dir} {tests}",
                &format!("command: echo run >> {}; sleep 30", counter.display()),
            );
        assert_ne!(t, text);
        fs::write(&recipe, t).expect("recipe");
    };
    let runs = || {
        fs::read_to_string(&counter)
            .unwrap_or_default()
            .lines()
            .count()
    };
    let build = || {
        crate::common::hunkgen()
            .args(["build", "-q"])
            .arg(&recipe)
            .assert()
            .success();
        let rejected =
            fs::read_to_string(root.path().join("out/rejected.jsonl")).expect("rejected");
        assert!(rejected.contains("\"timeout\""), "{rejected}");
    };
    hanging(1);
    build();
    let first = runs();
    assert!(first >= 1, "the tests ran");
    build();
    assert_eq!(runs(), first, "the timeouts came from the cache");
    hanging(2);
    build();
    assert!(runs() > first, "a longer limit runs them again");
}

/// A sandboxed run is one coherent user: its passwd entry names `USER`, its home is
/// `HOME`, which exists and is writable, and Java's `user.home` and `user.name` agree (a
/// suite test that reads the home directory, such as Lang's `testGetUserHome`, passes on
/// the fixed version). The host's entry for the uid, if any, would name a home the
/// sandbox does not hold.
#[test]
fn a_sandboxed_run_has_one_coherent_identity_with_an_existing_home() {
    let w = scratch("identity");
    let log = w.path().join("identity.log");
    let script = r#"
import getpass, os, pwd, subprocess
p = pwd.getpwuid(os.getuid())
print("passwd", p.pw_name, p.pw_dir)
print("env", os.environ["USER"], os.environ["HOME"], getpass.getuser())
assert p.pw_dir == os.environ["HOME"] == os.path.expanduser("~"), p
assert os.path.isdir(p.pw_dir) and os.access(p.pw_dir, os.W_OK), p.pw_dir
assert p.pw_name == os.environ["USER"] == getpass.getuser(), p
import grp
print("group", grp.getgrgid(os.getgid()).gr_name)
props = subprocess.run(["java", "-XshowSettings:properties", "-version"], capture_output=True, text=True).stderr
home = [l.split("=", 1)[1].strip() for l in props.splitlines() if l.strip().startswith("user.home =")]
name = [l.split("=", 1)[1].strip() for l in props.splitlines() if l.strip().startswith("user.name =")]
print("java", home, name)
assert home == [p.pw_dir] and name == [p.pw_name], (home, name)
print("coherent")
"#;
    fs::write(w.path().join("id.py"), script).expect("script");
    let o = sandboxed()
        .run(&RunSpec::shell("python3 id.py", w.path(), &log))
        .expect("run");
    let text = read(&log);
    assert_eq!(
        o.exit,
        hunkgen::validate::runner::ExitKind::Code(0),
        "{text}"
    );
    assert!(text.contains("coherent"), "{text}");
    assert!(text.contains("passwd hunkgen /tmp"), "{text}");
}

#[test]
fn a_swebench_spec_gets_its_interpreter_and_its_pip_plan_or_names_what_is_missing() {
    use hunkgen::validate::env::swebench::{Packages, SpecAnswer};
    let spec = |python: &str, kind: &str, text: &str| SpecAnswer {
        repo: "org/lib".into(),
        version: "1.0".into(),
        python: Some(python.into()),
        packages: Some(Packages {
            kind: kind.into(),
            text: text.into(),
        }),
        ..SpecAnswer::default()
    };
    let dir = scratch("swebench-env");
    let cache = EnvCache::new(dir.path().join("envs"), uv_cache())
        .with_uv(uv())
        .with_network(false);
    let runner = sandboxed();
    // xarray's shape: an environment.yml with the interpreter, pip, a conda-only
    // library and the runner pinned the conda way; offline from the seeded cache.
    let yml =
        "name: testbed\ndependencies:\n  - python=3.11\n  - hdf5\n  - pytest=9.2.0\n  - pip\n";
    // Its pip_packages go in a second install over the main set, as the harness's.
    let mut xarray_like = spec("3.11", "environment.yml", yml);
    xarray_like.pip_packages = vec!["setuptools".into()];
    let made = cache
        .ensure_swebench(&runner, "org/lib", &xarray_like, None)
        .expect("an environment");
    assert!(
        made.interpreter.starts_with("3.11."),
        "{}",
        made.interpreter
    );
    assert_eq!(made.plan.requirements, ["pytest==9.2.0"]);
    assert_eq!(made.plan.then, ["setuptools"]);
    assert_eq!(made.plan.conda_only, ["hdf5"]);
    let python = made.env.python().expect("a venv python");
    let out = std::process::Command::new(&python)
        .args([
            "-c",
            "import pytest, setuptools, sys; print(pytest.__version__, sys.version_info[:2])",
        ])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "9.2.0 (3, 11)");
    // Another spec with the same packages shares the environment.
    let mut same = spec("3.11", "conda", "pytest=9.2.0");
    same.pip_packages = vec!["setuptools".into()];
    let again = cache
        .ensure_swebench(&runner, "org/lib", &same, None)
        .expect("the same environment");
    assert!(again.env.reused && again.env.dir == made.env.dir);
    // An interpreter the machine lacks is named, never replaced by another version.
    match cache.ensure_swebench(&runner, "org/lib", &spec("3.99", "conda", "pytest"), None) {
        Err(e @ EnvError::UnsupportedPython { .. }) => {
            assert!(e.to_string().contains("3.99"), "{e}")
        }
        other => panic!("expected unsupported_python, got {other:?}"),
    }
    // A spec the package could not make, and packages pip cannot install: one line each.
    let mut broken = spec("3.11", "conda", "pytest");
    broken.error = Some("get_requirements: no such file".into());
    let e = cache
        .ensure_swebench(&runner, "org/lib", &broken, None)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "swebench environment for org/lib: the swebench package's spec: get_requirements: no such file"
    );
    let e = cache
        .ensure_swebench(
            &runner,
            "org/lib",
            &spec("3.11", "conda", "conda-forge::numpy"),
            None,
        )
        .unwrap_err();
    assert!(e.to_string().contains("conda channel"), "{e}");
    assert_eq!(e.reject_reason(), hunkgen::model::RejectReason::Environment);
}
