//! Process-group supervision: the child's session and rlimits, the timeout, and
//! terminating every process of a run (its group, its descendants, its token holders).

use std::fs;
use std::io;
use std::process::Child;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::{ExitKind, RunSpec};

/// The environment variable that marks every process of one run, so a process that
/// left the process group (and, without a sandbox, the process tree) is still found.
pub(super) const TOKEN_VAR: &str = "HUNKGEN_RUN_TOKEN";

/// A token unique to one run on this machine: pid, a counter, the time.
pub(super) fn run_token() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{}-{n}-{t}", std::process::id())
}

/// The limits applied in the child between fork and exec.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ChildLimits {
    /// `RLIMIT_AS`.
    pub(super) memory: Option<u64>,
    /// `RLIMIT_NPROC`.
    pub(super) nproc: Option<u64>,
    /// `RLIMIT_FSIZE`: a larger write fails with `EFBIG` (or `SIGXFSZ`).
    pub(super) fsize: Option<u64>,
    /// A pids cgroup's `cgroup.procs`, which the child joins by writing `0` to it.
    pub(super) cgroup_procs: Option<std::os::fd::RawFd>,
}

/// In the child after fork: own session (pgid = pid), death with the parent, its pids
/// cgroup, rlimits.
pub(super) fn child_setup(limits: ChildLimits) -> io::Result<()> {
    let ChildLimits {
        memory,
        nproc,
        fsize,
        cgroup_procs,
    } = limits;
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
        if let Some(fd) = cgroup_procs {
            // "0": the writing process. Before exec, so everything it starts is counted.
            if libc::write(fd, b"0\n".as_ptr().cast(), 2) < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        for (resource, value) in [
            (libc::RLIMIT_AS, memory),
            (libc::RLIMIT_NPROC, nproc),
            (libc::RLIMIT_FSIZE, fsize),
        ] {
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
pub(super) fn supervise(
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
pub(super) struct ProcStat {
    /// Parent pid.
    pub(super) ppid: libc::pid_t,
    /// One-letter state (`Z` = zombie).
    pub(super) state: char,
    /// Start time in clock ticks since boot.
    pub(super) start: u64,
}

/// Reads `/proc/<pid>/stat` (None when the process is gone).
pub(super) fn proc_stat(pid: libc::pid_t) -> Option<ProcStat> {
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
