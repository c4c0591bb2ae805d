//! A per-run pids cgroup: the process limit the kernel enforces for every user, root
//! included (`RLIMIT_NPROC` exempts root, and counts all of a user's processes rather
//! than one run's). The run's top process joins it between fork and exec, so every
//! process the run makes is counted; what is left in it after the run is killed, and
//! the cgroup removed. Where no pids controller is writable (an unprivileged user
//! without a delegated cgroup), there is none and `RLIMIT_NPROC` is the limit.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A cgroup made for one run, removed when dropped.
#[derive(Debug)]
pub(super) struct PidsCgroup {
    dir: PathBuf,
    procs: File,
}

impl PidsCgroup {
    /// A new cgroup `hunkgen-<token>` under this process's own pids cgroup, limited to
    /// `max` processes (threads count too); None when no pids controller is writable.
    pub(super) fn create(token: &str, max: u64) -> Option<PidsCgroup> {
        let parent = own_pids_cgroup()?;
        remove_stale(&parent);
        let dir = parent.join(format!("hunkgen-{token}"));
        fs::create_dir(&dir).ok()?;
        let made = (|| {
            fs::write(dir.join("pids.max"), max.to_string()).ok()?;
            OpenOptions::new()
                .write(true)
                .open(dir.join("cgroup.procs"))
                .ok()
        })();
        match made {
            Some(procs) => Some(PidsCgroup { dir, procs }),
            None => {
                let _ = fs::remove_dir(&dir);
                None
            }
        }
    }

    /// The descriptor the child writes `0` to, which moves it into the cgroup.
    pub(super) fn procs_fd(&self) -> std::os::fd::RawFd {
        self.procs.as_raw_fd()
    }

    /// Pids still in the cgroup.
    fn members(&self) -> Vec<libc::pid_t> {
        fs::read_to_string(self.dir.join("cgroup.procs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }
}

impl Drop for PidsCgroup {
    /// Kills whatever is left in the cgroup (a daemon the supervisor missed), then
    /// removes it (a cgroup with members cannot be removed).
    fn drop(&mut self) {
        let start = Instant::now();
        loop {
            let left = self.members();
            if left.is_empty() || start.elapsed() > Duration::from_secs(5) {
                break;
            }
            for pid in left {
                // SAFETY: a pid listed in our run's own cgroup.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.procs.flush();
        while fs::remove_dir(&self.dir).is_err() && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// Removes the cgroups of runs whose hunkgen is gone (killed before it could remove
/// them): `hunkgen-<pid>-…` with no live `<pid>`; a cgroup still holding processes
/// cannot be removed and stays.
fn remove_stale(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix("hunkgen-"))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok());
        if let Some(pid) = pid {
            if !Path::new(&format!("/proc/{pid}")).exists() {
                let _ = fs::remove_dir(e.path());
            }
        }
    }
}

/// This process's cgroup directory in the hierarchy that has the pids controller:
/// a cgroup v1 `pids` mount, else the unified (v2) one when it offers `pids`.
fn own_pids_cgroup() -> Option<PathBuf> {
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").ok()?;
    let own = fs::read_to_string("/proc/self/cgroup").ok()?;
    let mut v2 = None;
    for line in mountinfo.lines() {
        // <id> <parent> <maj:min> <root> <mount point> <opts> [optional…] - <fstype> <source> <super opts>
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let point = left.split(' ').nth(4).map(unescape);
        let mut r = right.split(' ');
        let (fstype, _source, sopts) = (r.next(), r.next(), r.next().unwrap_or(""));
        match (fstype, point) {
            (Some("cgroup"), Some(point)) if sopts.split(',').any(|o| o == "pids") => {
                let rel = own.lines().find_map(|l| {
                    let mut f = l.splitn(3, ':');
                    let (_, ctrls, path) = (f.next()?, f.next()?, f.next()?);
                    ctrls.split(',').any(|c| c == "pids").then_some(path)
                })?;
                return Some(Path::new(&point).join(rel.trim_start_matches('/')));
            }
            (Some("cgroup2"), Some(point)) => v2 = Some(point),
            _ => {}
        }
    }
    let point = v2?;
    let rel = own.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = Path::new(&point).join(rel.trim_start_matches('/'));
    let offered = fs::read_to_string(dir.join("cgroup.controllers")).ok()?;
    if !offered.split_whitespace().any(|c| c == "pids") {
        return None;
    }
    // Enabling pids for children fails while this cgroup holds processes itself (v2's
    // no-internal-processes rule); then there is no pids cgroup to make.
    let _ = fs::write(dir.join("cgroup.subtree_control"), "+pids");
    Some(dir)
}

/// A mountinfo path with its octal escapes (`\040` for a space) decoded.
fn unescape(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let octal = b
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
        if let (b'\\', Some(d)) = (b[i], octal) {
            out.push(
                d.iter()
                    .fold(0u8, |v, c| v.wrapping_mul(8).wrapping_add(c - b'0')),
            );
            i += 4;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
