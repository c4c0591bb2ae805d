//! Validation end to end with real processes: sandbox, timeouts, environments, parsers.
//!
//! The sandbox tests require bubblewrap and fail (never skip) without it: `make deps`
//! installs it, uv, pytest and the JUnit jars.

use std::collections::BTreeSet;
use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

// use hunkgen::validate::env::{find_uv, EnvCache, EnvSpec, JavaSpec, PythonSpec};
// use hunkgen::validate::golden::{self, Label, Outcome};
use hunkgen::validate::parse::{self, RunResult};
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

/// A scratch directory under target/tmp (not /tmp, which the sandbox replaces).
fn scratch(name: &str) -> tempfile::TempDir {
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("validate");
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
    let o = sandboxed()
        .run(&RunSpec::shell(&script, w.path(), &log))
        .unwrap();
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
    // Root is exempt from RLIMIT_NPROC; the outcome says so instead of pretending.
    let root = fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"));
    assert_eq!(o.process_limit_enforced, !root);
}
