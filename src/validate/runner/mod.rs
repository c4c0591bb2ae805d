//! Runs one test command in its own working copy: bubblewrap sandbox, rlimits, timeout.
//!
//! With `git/command.rs` (the `git` program), this is one of the two places in hunkgen
//! that spawn processes; `sandbox.rs` only probes bubblewrap. The pattern follows
//! cargo-nextest's Unix runner: the child starts in its own session (so its process
//! group id is its pid), a timeout sends SIGTERM to the whole process tree, waits a
//! grace period, then sends SIGKILL. Inside bubblewrap the tree also lives in its own
//! PID namespace, so killing the namespace's init takes every grandchild with it, even
//! one that started a session of its own. Every process of a run also carries a token
//! in its environment (`HUNKGEN_RUN_TOKEN`), which finds, without a sandbox, a
//! grandchild that double-forked out of the group and the tree; when `run` returns,
//! no process of the run is left.
//!
//! Limits are set in the child between fork and exec: rlimits `RLIMIT_AS` (address
//! space, so the JVM needs a generous value), `RLIMIT_FSIZE` (the largest file) and
//! `RLIMIT_NPROC`, and a per-run pids cgroup (`limits.rs`) that the child joins. The
//! kernel never applies `RLIMIT_NPROC` to the root user (kuid 0, also inside
//! bubblewrap's user namespace, which maps to it), so under root the process limit
//! holds only through the cgroup; where none can be made it is recorded but not
//! enforced, and [`RunOutcome::process_limit_enforced`] says which. What a sandboxed
//! run sees of the host is in `sandbox.rs` and docs/security.md.

mod limits;
mod process;
mod sandbox;

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command as ProcessCommand, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use limits::PidsCgroup;
use process::{child_setup, run_token, supervise, ChildLimits, TOKEN_VAR};
pub(crate) use sandbox::find_in_path;
use sandbox::{bwrap_args_sized, locate_bwrap, probe_bwrap};
pub use sandbox::{Sandbox, SandboxPolicy};

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
    /// Processes (and threads) the run may have at once: a pids cgroup where one can be
    /// made, else `RLIMIT_NPROC` (which the kernel does not apply to root; see the
    /// module doc). None: [`DEFAULT_PROCESS_LIMIT`] in the sandbox, no limit outside.
    pub process_limit: Option<u64>,
    /// `RLIMIT_FSIZE`: the largest file a run may write (None: [`DEFAULT_FILE_SIZE`]).
    pub file_size_limit: Option<u64>,
    /// Size of the sandbox's private `/tmp` (None: 2 GiB).
    pub tmp_size: Option<u64>,
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
    /// Paths under `readable` hidden again (an empty directory, or an empty file, in
    /// their place): a tool's installation minus what the run must not see.
    pub hidden: Vec<PathBuf>,
    /// Keep the network (environment builds that download); tests leave this false.
    pub network: bool,
    /// A file given to the command on stdin (None: `/dev/null`), e.g. the document a
    /// behaviour judge reads.
    pub stdin: Option<PathBuf>,
    /// Pass hunkgen's whole environment instead of the base allow-list: only for a
    /// command the user runs as their own outside the sandbox (a judge that calls a model
    /// API with its key), never for tests or agents.
    pub inherit_env: bool,
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
            file_size_limit: None,
            tmp_size: None,
            log_path: log_path.into(),
            stderr_path: None,
            writable: Vec::new(),
            readable: Vec::new(),
            hidden: Vec::new(),
            network: false,
            stdin: None,
            inherit_env: false,
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
    /// False when a process limit was asked for but neither a pids cgroup could be
    /// made nor `RLIMIT_NPROC` applies (root without a writable pids controller).
    pub process_limit_enforced: bool,
}

/// Processes a sandboxed run may have when its spec sets none: a fork bomb stops there
/// (a JVM and its build tool use a few hundred threads at most).
pub const DEFAULT_PROCESS_LIMIT: u64 = 4096;

/// The largest file a run may write when its spec sets none (`RLIMIT_FSIZE`).
pub const DEFAULT_FILE_SIZE: u64 = 4 << 30;

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
    /// The file meant for the command's stdin cannot be opened.
    #[error("cannot read {path} for the command's stdin: {source}")]
    Stdin {
        /// The file.
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
        let stdin = match &spec.stdin {
            Some(p) => Stdio::from(File::open(p).map_err(|source| RunError::Stdin {
                path: p.clone(),
                source,
            })?),
            None => Stdio::null(),
        };
        cmd.stdin(stdin)
            .stdout(Stdio::from(log))
            .stderr(Stdio::from(log2));
        let sandboxed = self.is_sandboxed();
        let nproc = spec
            .process_limit
            .or(sandboxed.then_some(DEFAULT_PROCESS_LIMIT));
        // Made before the fork and kept until every process of the run is gone.
        let cgroup = nproc.and_then(|max| PidsCgroup::create(&token, max));
        // SAFETY: getuid has no preconditions.
        let root = unsafe { libc::getuid() } == 0;
        let limits = ChildLimits {
            memory: spec.memory_limit,
            // RLIMIT_NPROC counts every process of the user, so it stands in for the
            // cgroup only when asked for explicitly (or inside the sandbox's own user
            // namespace, where it counts the run's).
            nproc: match (&cgroup, spec.process_limit) {
                (_, Some(n)) => Some(n),
                (None, None) if sandboxed => nproc,
                _ => None,
            },
            fsize: Some(spec.file_size_limit.unwrap_or(DEFAULT_FILE_SIZE)),
            cgroup_procs: cgroup.as_ref().map(PidsCgroup::procs_fd),
        };
        let process_limit_enforced = nproc.is_none() || cgroup.is_some() || !root;
        // SAFETY: the closure runs between fork and exec and only makes
        // async-signal-safe system calls (no allocation, no locks).
        unsafe {
            cmd.pre_exec(move || child_setup(limits));
        }

        let start = Instant::now();
        let child = cmd.spawn().map_err(|source| RunError::Spawn {
            command: spec.command.display(),
            workdir: spec.workdir.clone(),
            source,
        })?;
        let (exit, timed_out) =
            supervise(child, spec, sandboxed, &token).map_err(|source| RunError::Wait {
                command: spec.command.display(),
                source,
            })?;
        drop(cgroup);
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
            process_limit_enforced,
        })
    }

    /// The `std::process::Command`: bubblewrap around the command, or the command itself.
    fn build_command(&self, spec: &RunSpec) -> ProcessCommand {
        let (program, args) = spec.command.argv();
        let mut cmd = match &self.sandbox {
            Sandbox::Bwrap(bwrap) => {
                let mut c = ProcessCommand::new(bwrap);
                c.args(bwrap_args_sized(
                    &spec.workdir,
                    &spec.writable,
                    &spec.readable,
                    &spec.hidden,
                    spec.network,
                    spec.tmp_size.unwrap_or(sandbox::DEFAULT_TMP_SIZE),
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
        cmd.current_dir(&spec.workdir);
        if !spec.inherit_env {
            cmd.env_clear();
            for (k, v) in base_env(self.is_sandboxed()) {
                cmd.env(k, v);
            }
        }
        for (k, v) in &spec.env {
            cmd.env(k, v);
        }
        cmd
    }
}

/// The base environment of every run, so results do not depend on the caller's shell:
/// an allow-list (nothing else of hunkgen's environment reaches a run, so no
/// `GITHUB_TOKEN` or API key). In the sandbox `HOME` is the private `/tmp`: the
/// caller's home is not there.
fn base_env(sandboxed: bool) -> Vec<(OsString, OsString)> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    let home = match sandboxed {
        true => sandbox::SANDBOX_HOME.into(),
        false => std::env::var_os("HOME").unwrap_or_else(|| "/tmp".into()),
    };
    let mut env: Vec<(OsString, OsString)> = vec![
        ("PATH".into(), path),
        ("HOME".into(), home),
        ("LANG".into(), "C.UTF-8".into()),
        ("TZ".into(), "UTC".into()),
        ("TMPDIR".into(), "/tmp".into()),
    ];
    if sandboxed {
        // The name the sandbox's passwd gives the run's uid.
        env.push(("USER".into(), sandbox::SANDBOX_USER.into()));
        env.push(("LOGNAME".into(), sandbox::SANDBOX_USER.into()));
    }
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

/// What a host tool prints when asked about itself (an interpreter's `-c` probe,
/// `mvn --version`, `virtualenv --version`): run outside the sandbox with `timeout`, its
/// standard output when it exits 0 in time, else `None`.
pub fn host_answer(program: &std::path::Path, args: &[&str], timeout: Duration) -> Option<String> {
    let runner = Runner::new(SandboxPolicy::Off).ok()?;
    let dir = tempfile::Builder::new()
        .prefix("hunkgen-ask-")
        .tempdir()
        .ok()?;
    let stdout = dir.path().join("stdout");
    let mut spec = RunSpec::new(
        Command::Exec {
            program: program.to_path_buf(),
            args: args.iter().map(OsString::from).collect(),
        },
        dir.path(),
        &stdout,
    )
    .with_timeout(timeout, Duration::from_secs(5));
    spec.stderr_path = Some(dir.path().join("stderr"));
    let out = runner.run(&spec).ok()?;
    if !out.exit.success() || out.timed_out {
        return None;
    }
    fs::read(&stdout)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

#[cfg(test)]
mod tests;
