//! Runs one test command in its own working copy: bubblewrap sandbox, rlimits, timeout.
//!
//! This is the only place in hunkgen that spawns processes. The pattern follows
//! cargo-nextest's Unix runner: the child starts in its own session (so its process
//! group id is its pid), a timeout sends SIGTERM to the whole process tree, waits a
//! grace period, then sends SIGKILL. Inside bubblewrap the tree also lives in its own
//! PID namespace, so killing the namespace's init takes every grandchild with it, even
//! one that started a session of its own. Every process of a run also carries a token
//! in its environment (`HUNKGEN_RUN_TOKEN`), which finds, without a sandbox, a
//! grandchild that double-forked out of the group and the tree; when `run` returns,
//! no process of the run is left.
//!
//! Limits are rlimits set in the child between fork and exec: `RLIMIT_AS` (address
//! space, so the JVM needs a generous value) and `RLIMIT_NPROC`. The kernel never
//! applies `RLIMIT_NPROC` to the root user (kuid 0, also inside bubblewrap's user
//! namespace, which maps to it), so under root the process limit is recorded but not
//! enforced; [`RunOutcome::process_limit_enforced`] says which.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as ProcessCommand, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What to execute: a program with arguments, or a `/bin/sh -c` script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// A program (looked up in `PATH` unless it contains a `/`) and its arguments.
    Exec {
        /// The program.
        program: PathBuf,
        /// Its arguments.
        args: Vec<OsString>,
    },
    /// A shell script run by `/bin/sh -c`, for test commands written as one line.
    Shell(String),
}

impl Command {
    /// The program and argument vector that `exec` receives.
    fn argv(&self) -> (OsString, Vec<OsString>) {
        match self {
            Command::Exec { program, args } => (program.clone().into_os_string(), args.clone()),
            Command::Shell(script) => ("/bin/sh".into(), vec!["-c".into(), script.into()]),
        }
    }

    /// A one-line rendering for error messages and log trailers.
    pub fn display(&self) -> String {
        match self {
            Command::Exec { program, args } => {
                let mut s = program.display().to_string();
                for a in args {
                    s.push(' ');
                    s.push_str(&a.to_string_lossy());
                }
                s
            }
            Command::Shell(script) => format!("sh -c {script:?}"),
        }
    }
}

/// One run: what, where, with which environment and limits, and where its log goes.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// The command.
    pub command: Command,
    /// The run's own working copy: the current directory and the only writable tree.
    pub workdir: PathBuf,
    /// Variables set on top of the minimal base environment (`PATH`, `HOME`, `LANG`,
    /// `TZ`, `TMPDIR`), so runs do not depend on the caller's shell.
    pub env: Vec<(OsString, OsString)>,
    /// Wall-clock limit; SIGTERM to the tree when reached.
    pub timeout: Duration,
    /// Time between SIGTERM and SIGKILL.
    pub grace: Duration,
    /// `RLIMIT_AS` in bytes (address space, not resident memory).
    pub memory_limit: Option<u64>,
    /// `RLIMIT_NPROC` (not enforced by the kernel for root; see the module doc).
    pub process_limit: Option<u64>,
    /// Both stdout and stderr go here (truncated first; parent directories created).
    pub log_path: PathBuf,
    /// When set, stderr goes to this file instead and `log_path` holds stdout only (an
    /// agent whose stdout is a machine-readable log).
    pub stderr_path: Option<PathBuf>,
    /// Extra paths bound writable inside the sandbox (an environment being built,
    /// a shared package cache). Tests leave this empty.
    pub writable: Vec<PathBuf>,
    /// Extra paths bound read-only on top of the private `/tmp` (an environment or a
    /// cache that lives under `/tmp` would otherwise be hidden).
    pub readable: Vec<PathBuf>,
    /// Keep the network (environment builds that download); tests leave this false.
    pub network: bool,
}

impl RunSpec {
    /// A spec with hunkgen's defaults: 30 min timeout, 10 s grace, no limits.
    pub fn new(
        command: Command,
        workdir: impl Into<PathBuf>,
        log_path: impl Into<PathBuf>,
    ) -> Self {
        RunSpec {
            command,
            workdir: workdir.into(),
            env: Vec::new(),
            timeout: Duration::from_secs(30 * 60),
            grace: Duration::from_secs(10),
            memory_limit: None,
            process_limit: None,
            log_path: log_path.into(),
            stderr_path: None,
            writable: Vec::new(),
            readable: Vec::new(),
            network: false,
        }
    }

    /// Shorthand for a `/bin/sh -c` run.
    pub fn shell(
        script: impl Into<String>,
        workdir: impl Into<PathBuf>,
        log_path: impl Into<PathBuf>,
    ) -> Self {
        RunSpec::new(Command::Shell(script.into()), workdir, log_path)
    }

    /// Adds one environment variable (builder style).
    pub fn with_env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Sets the timeout and grace period (builder style).
    pub fn with_timeout(mut self, timeout: Duration, grace: Duration) -> Self {
        self.timeout = timeout;
        self.grace = grace;
        self
    }
}

/// How the command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitKind {
    /// Normal exit with this code.
    Code(i32),
    /// Killed by this signal (the sandbox reports a signalled command as 128 + n).
    Signal(i32),
}

impl ExitKind {
    /// True for exit code 0, the only success.
    pub fn success(self) -> bool {
        self == ExitKind::Code(0)
    }
}

/// What happened to one run; the log file holds its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    /// Exit code or signal of the top process (bubblewrap forwards its command's code).
    pub exit: ExitKind,
    /// The timeout was reached and the tree was terminated.
    pub timed_out: bool,
    /// Wall-clock time from spawn to reaping.
    pub duration: Duration,
    /// Where stdout and stderr went.
    pub log_path: PathBuf,
    /// Whether the run was inside bubblewrap.
    pub sandboxed: bool,
    /// False when a process limit was asked for but the kernel exempts this user (root).
    pub process_limit_enforced: bool,
}

/// Why a run could not be carried out at all (not a test failure).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The log file or its directory could not be created.
    #[error("cannot write the run log {path}: {source}")]
    Log {
        /// The log path.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// The working copy is missing or not a directory.
    #[error("working copy {path} is not a directory")]
    Workdir {
        /// The working directory.
        path: PathBuf,
    },
    /// `fork`/`exec` failed (program not found, not executable, ...).
    #[error("cannot start `{command}` in {workdir}: {source}")]
    Spawn {
        /// The command as displayed.
        command: String,
        /// The working directory.
        workdir: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// Waiting for the child failed.
    #[error("cannot wait for `{command}`: {source}")]
    Wait {
        /// The command as displayed.
        command: String,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// A sandbox was required but bubblewrap is missing or cannot make namespaces.
    #[error("a sandbox is required but unavailable: {reason}")]
    SandboxUnavailable {
        /// Why (missing binary, or bubblewrap's own error on the probe run).
        reason: String,
    },
}

/// Whether to use bubblewrap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxPolicy {
    /// Use it when it works here; otherwise run unsandboxed with a one-time warning.
    Auto,
    /// Fail ([`RunError::SandboxUnavailable`]) when it does not work.
    Required,
    /// Never use it (plain process group + rlimits).
    Off,
}

/// The sandbox this runner found, decided once when the runner is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sandbox {
    /// bubblewrap at this path passed the probe run.
    Bwrap(PathBuf),
    /// No sandbox, and why.
    None(String),
}

/// Spawns runs; holds the sandbox decision and the "warn once" flag.
#[derive(Debug)]
pub struct Runner {
    sandbox: Sandbox,
    warned: AtomicBool,
}

impl Runner {
    /// Decides the sandbox: `HUNKGEN_BWRAP` or `bwrap` on `PATH`, checked by a probe run
    /// with the real flags (bubblewrap may be installed yet unable to make namespaces,
    /// e.g. in an unprivileged container).
    pub fn new(policy: SandboxPolicy) -> Result<Runner, RunError> {
        let sandbox = match policy {
            SandboxPolicy::Off => Sandbox::None("sandbox turned off".into()),
            SandboxPolicy::Auto | SandboxPolicy::Required => match locate_bwrap() {
                Ok(bwrap) => probe_bwrap(&bwrap),
                Err(reason) => Sandbox::None(reason.to_string()),
            },
        };
        Runner::decided(sandbox, policy)
    }

    /// Like [`Runner::new`] with this bubblewrap binary (probed the same way).
    pub fn with_bwrap(
        bwrap: impl Into<PathBuf>,
        policy: SandboxPolicy,
    ) -> Result<Runner, RunError> {
        let sandbox = match policy {
            SandboxPolicy::Off => Sandbox::None("sandbox turned off".into()),
            _ => probe_bwrap(&bwrap.into()),
        };
        Runner::decided(sandbox, policy)
    }

    /// Applies the policy to a sandbox decision.
    fn decided(sandbox: Sandbox, policy: SandboxPolicy) -> Result<Runner, RunError> {
        if let (SandboxPolicy::Required, Sandbox::None(reason)) = (policy, &sandbox) {
            return Err(RunError::SandboxUnavailable {
                reason: reason.clone(),
            });
        }
        Ok(Runner {
            sandbox,
            warned: AtomicBool::new(false),
        })
    }

    /// The sandbox decision.
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    /// True when runs go through bubblewrap.
    pub fn is_sandboxed(&self) -> bool {
        matches!(self.sandbox, Sandbox::Bwrap(_))
    }

    /// The missing-sandbox warning, returned by the first call only, for the caller to
    /// print once per build rather than once per run.
    pub fn take_warning(&self) -> Option<String> {
        match &self.sandbox {
            Sandbox::Bwrap(_) => None,
            Sandbox::None(reason) => {
                if self.warned.swap(true, Ordering::SeqCst) {
                    None
                } else {
                    Some(format!(
                        "tests run without a sandbox ({reason}): no network or filesystem \
                         isolation; install bubblewrap (`apt-get install bubblewrap`)"
                    ))
                }
            }
        }
    }

    /// Runs `spec` to completion or timeout; test failures are outcomes, not errors.
    pub fn run(&self, spec: &RunSpec) -> Result<RunOutcome, RunError> {
        if !spec.workdir.is_dir() {
            return Err(RunError::Workdir {
                path: spec.workdir.clone(),
            });
        }
        let log_err = |source| RunError::Log {
            path: spec.log_path.clone(),
            source,
        };
        if let Some(dir) = spec.log_path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir).map_err(log_err)?;
        }
        let log = File::create(&spec.log_path).map_err(log_err)?;
        let log2 = match &spec.stderr_path {
            Some(p) => File::create(p).map_err(|source| RunError::Log {
                path: p.clone(),
                source,
            })?,
            None => log.try_clone().map_err(log_err)?,
        };

        let token = run_token();
        let mut cmd = self.build_command(spec);
        cmd.env(TOKEN_VAR, &token);
        cmd.stdin(Stdio::null())
            .stdout(Stdio::from(log))
            .stderr(Stdio::from(log2));
        let memory = spec.memory_limit;
        let nproc = spec.process_limit;
        // SAFETY: the closure runs between fork and exec and only makes
        // async-signal-safe system calls (no allocation, no locks).
        unsafe {
            cmd.pre_exec(move || child_setup(memory, nproc));
        }

        let start = Instant::now();
        let child = cmd.spawn().map_err(|source| RunError::Spawn {
            command: spec.command.display(),
            workdir: spec.workdir.clone(),
            source,
        })?;
        let sandboxed = self.is_sandboxed();
        let (exit, timed_out) =
            supervise(child, spec, sandboxed, &token).map_err(|source| RunError::Wait {
                command: spec.command.display(),
                source,
            })?;
        let duration = start.elapsed();
        if timed_out {
            // Appended after the whole tree is gone, so nothing else writes the file.
            let mut f = OpenOptions::new()
                .append(true)
                .open(&spec.log_path)
                .map_err(log_err)?;
            writeln!(
                f,
                "\n[hunkgen] timed out after {:.1}s: SIGTERM to the process tree, SIGKILL after {:.1}s",
                spec.timeout.as_secs_f64(),
                spec.grace.as_secs_f64()
            )
            .map_err(log_err)?;
        }
        Ok(RunOutcome {
            exit,
            timed_out,
            duration,
            log_path: spec.log_path.clone(),
            sandboxed,
            process_limit_enforced: nproc.is_none() || unsafe { libc::getuid() } != 0,
        })
    }

    /// The `std::process::Command`: bubblewrap around the command, or the command itself.
    fn build_command(&self, spec: &RunSpec) -> ProcessCommand {
        let (program, args) = spec.command.argv();
        let mut cmd = match &self.sandbox {
            Sandbox::Bwrap(bwrap) => {
                let mut c = ProcessCommand::new(bwrap);
                c.args(bwrap_args(
                    &spec.workdir,
                    &spec.writable,
                    &spec.readable,
                    spec.network,
                ));
                c.arg("--").arg(program).args(args);
                c
            }
            Sandbox::None(_) => {
                let mut c = ProcessCommand::new(program);
                c.args(args);
                c
            }
        };
        cmd.current_dir(&spec.workdir).env_clear();
        for (k, v) in base_env() {
            cmd.env(k, v);
        }
        for (k, v) in &spec.env {
            cmd.env(k, v);
        }
        cmd
    }
}

/// The environment variable that marks every process of one run, so a process that
/// left the process group (and, without a sandbox, the process tree) is still found.
const TOKEN_VAR: &str = "HUNKGEN_RUN_TOKEN";

/// A token unique to one run on this machine: pid, a counter, the time.
fn run_token() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{}-{n}-{t}", std::process::id())
}

/// The sandbox flags: every namespace unshared, the system read-only, the working copy
/// and a private `/tmp` writable.
fn bwrap_args(
    workdir: &Path,
    writable: &[PathBuf],
    readable: &[PathBuf],
    network: bool,
) -> Vec<OsString> {
    let mut a: Vec<OsString> = ["--unshare-all"].iter().map(OsString::from).collect();
    if network {
        a.push("--share-net".into());
    }
    for s in [
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
    ] {
        a.push(s.into());
    }
    // After the /tmp tmpfs, so a working copy under /tmp is bound on top of it.
    for dir in readable {
        a.push("--ro-bind".into());
        a.push(dir.into());
        a.push(dir.into());
    }
    // The working copy first: a wider writable path bound after it (an environment and
    // uv's cache under one ancestor) then makes one mount, so hardlinks work across it.
    for dir in std::iter::once(workdir).chain(writable.iter().map(PathBuf::as_path)) {
        a.push("--bind".into());
        a.push(dir.into());
        a.push(dir.into());
    }
    a.push("--chdir".into());
    a.push(workdir.into());
    a.push("--die-with-parent".into());
    a.push("--new-session".into());
    a
}

/// The base environment of every run, so results do not depend on the caller's shell.
fn base_env() -> Vec<(OsString, OsString)> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    let home = std::env::var_os("HOME").unwrap_or_else(|| "/tmp".into());
    let mut env: Vec<(OsString, OsString)> = vec![
        ("PATH".into(), path),
        ("HOME".into(), home),
        ("LANG".into(), "C.UTF-8".into()),
        ("TZ".into(), "UTC".into()),
        ("TMPDIR".into(), "/tmp".into()),
    ];
    // How this machine reaches package indexes (certificates, proxies, mirrors): an
    // environment build that downloads needs them, and they change no test result.
    for key in PASSED_THROUGH {
        if let Some(v) = std::env::var_os(key) {
            env.push((key.into(), v));
        }
    }
    env
}

/// Variables passed from hunkgen's environment to every run: TLS trust and proxies.
const PASSED_THROUGH: [&str; 10] = [
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "PIP_CERT",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
];

/// No bubblewrap to sandbox with (the reason a run goes unsandboxed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("bubblewrap (bwrap) not found on PATH")]
struct NoBwrap;

/// `HUNKGEN_BWRAP`, else `bwrap` on `PATH`.
fn locate_bwrap() -> Result<PathBuf, NoBwrap> {
    match std::env::var_os("HUNKGEN_BWRAP") {
        Some(p) => Ok(PathBuf::from(p)),
        None => find_in_path("bwrap").ok_or(NoBwrap),
    }
}

/// Checks that `bwrap` can make every namespace here, with the flags runs use.
fn probe_bwrap(bwrap: &Path) -> Sandbox {
    let root = Path::new("/");
    let out = ProcessCommand::new(bwrap)
        .args(bwrap_args(root, &[], &[], false))
        .args(["--", "/bin/sh", "-c", "exit 0"])
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(o) if o.status.success() => Sandbox::Bwrap(bwrap.to_path_buf()),
        Ok(o) => Sandbox::None(format!(
            "{} cannot create namespaces here: {}",
            bwrap.display(),
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Sandbox::None(format!("cannot run {}: {e}", bwrap.display())),
    }
}

/// `PATH` lookup of an executable file.
pub(crate) fn find_in_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| {
            fs::metadata(p)
                .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
        })
}

/// In the child after fork: own session (pgid = pid), death with the parent, rlimits.
fn child_setup(memory: Option<u64>, nproc: Option<u64>) -> io::Result<()> {
    // SAFETY: plain system calls on this process with valid arguments.
    unsafe {
        if libc::setsid() < 0 {
            return Err(io::Error::last_os_error());
        }
        // If hunkgen dies, so does the run (bubblewrap's --die-with-parent covers the
        // inner tree; this covers the top process when there is no sandbox).
        if libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        ) < 0
        {
            return Err(io::Error::last_os_error());
        }
        for (resource, value) in [(libc::RLIMIT_AS, memory), (libc::RLIMIT_NPROC, nproc)] {
            if let Some(v) = value {
                let lim = libc::rlimit {
                    rlim_cur: v as libc::rlim_t,
                    rlim_max: v as libc::rlim_t,
                };
                if libc::setrlimit(resource, &lim) < 0 {
                    return Err(io::Error::last_os_error());
                }
            }
        }
    }
    Ok(())
}

/// Waits for the child, enforcing the timeout; returns how it ended and whether it
/// timed out. Every process of the run is gone when this returns: leftovers of a
/// normal exit (background processes) are killed too. The group is signalled before
/// the child is reaped, so its pgid cannot name an unrelated process in between.
fn supervise(
    mut child: Child,
    spec: &RunSpec,
    sandboxed: bool,
    token: &str,
) -> io::Result<(ExitKind, bool)> {
    let pid = child.id() as libc::pid_t;
    let deadline = Instant::now() + spec.timeout;
    let mut timed_out = false;
    let mut known = Vec::new();
    if !wait_exited(pid, deadline)? {
        timed_out = true;
        known = terminate_tree(pid, spec.grace, sandboxed, token)?;
    }
    // SAFETY: signalling the process group of our own child's session.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
    sweep(pid, token, &known, Duration::from_secs(5));
    let status = child.wait()?;
    use std::os::unix::process::ExitStatusExt;
    let exit = match (status.code(), status.signal()) {
        (Some(c), _) => ExitKind::Code(c),
        (None, Some(s)) => ExitKind::Signal(s),
        (None, None) => ExitKind::Code(-1),
    };
    Ok((exit, timed_out))
}

/// Polls (without reaping) until `pid` has exited or `deadline` passes.
fn wait_exited(pid: libc::pid_t, deadline: Instant) -> io::Result<bool> {
    let mut nap = Duration::from_millis(1);
    loop {
        // SAFETY: waitid with WNOWAIT only inspects our own child; the siginfo is zeroed.
        let exited = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let r = libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            );
            if r < 0 {
                return Err(io::Error::last_os_error());
            }
            info.si_pid() != 0
        };
        if exited {
            return Ok(true);
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(false);
        }
        std::thread::sleep(nap.min(deadline - now));
        nap = (nap * 2).min(Duration::from_millis(20));
    }
}

/// SIGTERM to the tree, a grace period, then SIGKILL to whatever is left.
///
/// The tree is the child's process group, its descendants, and every process carrying
/// the run's token in its environment (which catches a grandchild that double-forked
/// into a session of its own and was reparented away). With bubblewrap the command runs
/// in a new session inside a PID namespace whose init is bubblewrap's; SIGTERM goes to
/// every process but the top bubblewrap (whose death would tear the namespace down at
/// once and skip the grace), and SIGKILL to it kills the namespace and all inside.
fn terminate_tree(
    pid: libc::pid_t,
    grace: Duration,
    sandboxed: bool,
    token: &str,
) -> io::Result<Vec<ProcId>> {
    let mut tree = run_processes(pid, token);
    // SAFETY: signals to our own child's group; others are checked by start time.
    unsafe {
        if !sandboxed {
            libc::kill(-pid, libc::SIGTERM);
        }
    }
    for p in &tree {
        p.signal(libc::SIGTERM);
    }
    wait_exited(pid, Instant::now() + grace)?;
    for p in run_processes(pid, token) {
        if !tree.contains(&p) {
            tree.push(p);
        }
    }
    // SAFETY: as above; the child is not reaped yet, so its pid is still ours.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
        libc::kill(pid, libc::SIGKILL);
    }
    for p in &tree {
        p.signal(libc::SIGKILL);
    }
    Ok(tree)
}

/// SIGKILLs the run's remaining processes until none is left (or `limit` passes).
/// `known` are processes seen earlier: a process being torn down (a PID namespace
/// dies asynchronously after its init) has no environment left to find it by.
fn sweep(pid: libc::pid_t, token: &str, known: &[ProcId], limit: Duration) {
    let start = Instant::now();
    loop {
        let mut left = run_processes(pid, token);
        left.extend(known.iter().filter(|p| p.alive()));
        if left.is_empty() || start.elapsed() > limit {
            return;
        }
        for p in &left {
            p.signal(libc::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The run's live processes other than the top one: descendants and token holders.
fn run_processes(pid: libc::pid_t, token: &str) -> Vec<ProcId> {
    let mut all = descendants(pid);
    for p in token_holders(token) {
        if p.pid != pid && !all.contains(&p) {
            all.push(p);
        }
    }
    all
}

/// A process identified by pid and start time, so a recycled pid is never signalled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ProcId {
    pid: libc::pid_t,
    start: u64,
}

impl ProcId {
    /// True while the pid names the same, not yet dead (zombie) process.
    fn alive(&self) -> bool {
        proc_stat(self.pid).is_some_and(|s| s.start == self.start && s.state != 'Z')
    }

    /// Sends `sig` if the pid still names the same process.
    fn signal(&self, sig: libc::c_int) {
        if proc_stat(self.pid).map(|s| s.start) == Some(self.start) {
            // SAFETY: the start time check makes this the process we saw.
            unsafe {
                libc::kill(self.pid, sig);
            }
        }
    }
}

/// The fields of `/proc/<pid>/stat` this module needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProcStat {
    /// Parent pid.
    pub(crate) ppid: libc::pid_t,
    /// One-letter state (`Z` = zombie).
    pub(crate) state: char,
    /// Start time in clock ticks since boot.
    pub(crate) start: u64,
}

/// Reads `/proc/<pid>/stat` (None when the process is gone).
pub(crate) fn proc_stat(pid: libc::pid_t) -> Option<ProcStat> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may itself contain spaces or parentheses.
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some(ProcStat {
        state: fields.first()?.chars().next()?,
        ppid: fields.get(1)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
    })
}

/// Live processes whose environment holds `HUNKGEN_RUN_TOKEN=<token>`.
fn token_holders(token: &str) -> Vec<ProcId> {
    let needle = format!("{TOKEN_VAR}={token}\0");
    let Ok(dir) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter(|pid| {
            fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| memchr::memmem::find(&env, needle.as_bytes()).is_some())
        })
        .filter_map(|pid| {
            let st = proc_stat(pid)?;
            (st.state != 'Z').then_some(ProcId {
                pid,
                start: st.start,
            })
        })
        .collect()
}

/// Every live descendant of `root` (not `root` itself), parents before children.
fn descendants(root: libc::pid_t) -> Vec<ProcId> {
    let Ok(dir) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut procs: Vec<(libc::pid_t, ProcStat)> = dir
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter_map(|pid| Some((pid, proc_stat(pid)?)))
        .collect();
    procs.sort_by_key(|(pid, _)| *pid);
    let mut out = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for (pid, st) in &procs {
            if st.ppid == parent && st.state != 'Z' {
                out.push(ProcId {
                    pid: *pid,
                    start: st.start,
                });
                frontier.push(*pid);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bwrap_flags_unshare_everything_and_bind_only_the_workdir() {
        let a: Vec<String> = bwrap_args(Path::new("/w/copy"), &[], &[], false)
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        let joined = a.join(" ");
        assert!(
            joined.starts_with("--unshare-all --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp")
        );
        assert!(joined.contains("--bind /w/copy /w/copy --chdir /w/copy"));
        assert!(joined.ends_with("--die-with-parent --new-session"));
        assert!(!joined.contains("--share-net"));
        assert_eq!(a.iter().filter(|s| *s == "--bind").count(), 1);
        let with_net = bwrap_args(Path::new("/w"), &[PathBuf::from("/cache")], &[], true);
        assert!(with_net.iter().any(|s| s == "--share-net"));
        assert_eq!(with_net.iter().filter(|s| *s == "--bind").count(), 2);
    }

    #[test]
    fn proc_stat_reads_this_process() {
        let me = proc_stat(std::process::id() as libc::pid_t).expect("own /proc entry");
        assert_eq!(me.ppid, unsafe { libc::getppid() });
        assert!(me.start > 0);
        assert!(proc_stat(-5).is_none());
    }

    #[test]
    fn shell_command_runs_through_sh() {
        let (prog, args) = Command::Shell("echo hi".into()).argv();
        assert_eq!(prog, "/bin/sh");
        assert_eq!(args, vec![OsString::from("-c"), OsString::from("echo hi")]);
    }
}
