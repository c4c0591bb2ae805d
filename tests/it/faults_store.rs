//! Faults in what a command stores: a cache entry truncated or bit-flipped on disk is
//! caught by its hash, reported once and made again, never trusted; a full disk fails a
//! command in one line and leaves the previous output as it was; a second writer of one
//! output is refused, naming the holder, and a killed holder's lock blocks nobody.

use crate::common::hunkgen;
use crate::faults::fixture;
use crate::shard::{build_files, tree};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The fixture's recipe with golden tests in the sandbox (no "without a sandbox"
/// warning in the way of the one line a failure prints).
fn sandboxed_fixture(root: &Path, fixes: usize) -> PathBuf {
    let recipe = fixture(root, fixes);
    let text = fs::read_to_string(&recipe).expect("recipe");
    fs::write(&recipe, text.replace("sandbox: off", "sandbox: required")).expect("recipe");
    recipe
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn build(recipe: &Path, extra: &[&str]) -> Output {
    hunkgen()
        .args(["build", "-q", "--jobs", "2"])
        .args(extra)
        .arg(recipe)
        .output()
        .expect("runs")
}

/// Every cache entry under `runs`: (key as written in a warning, path).
fn entries(runs: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for sub in fs::read_dir(runs).expect("cache").flatten() {
        for f in fs::read_dir(sub.path()).expect("cache dir").flatten() {
            let key = format!(
                "{}{}",
                sub.file_name().to_string_lossy(),
                f.file_name().to_string_lossy()
            );
            out.push((key, f.path()));
        }
    }
    out.sort();
    out
}

/// An entry is whole: its header's SHA-256 is its payload's.
fn whole(path: &Path) -> bool {
    let bytes = fs::read(path).expect("entry");
    let Some(nl) = bytes.iter().position(|b| *b == b'\n') else {
        return false;
    };
    let header = String::from_utf8_lossy(&bytes[..nl]);
    header.strip_prefix("hunkgen-cache 1 ")
        == Some(hunkgen::dataset::sha256_hex(&bytes[nl + 1..]).as_str())
}

#[test]
fn a_truncated_or_bit_flipped_cache_entry_is_reported_once_and_made_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let recipe = fixture(dir.path(), 3);
    let first = build(&recipe, &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    let out = dir.path().join("out");
    let before = build_files(&out, dir.path());
    let runs = dir.path().join("cache/runs");
    let all = entries(&runs);
    // Flip one bit of a test id in the run where fix 0's tests pass (`a0` → `a1`):
    // trusted, it would pass a test that does not exist and drop one that does.
    let flipped = all
        .iter()
        .find(|(_, p)| {
            String::from_utf8_lossy(&fs::read(p).expect("entry"))
                .contains("\"tests.test_g0::a0\":\"PASSED\"")
        })
        .expect("the passing run of fix 0")
        .clone();
    let mut bytes = fs::read(&flipped.1).expect("entry");
    let at = String::from_utf8_lossy(&bytes)
        .find("::a0\":\"PASSED")
        .expect("id")
        + 3;
    bytes[at] ^= 0b1;
    fs::write(&flipped.1, &bytes).expect("flip");
    // Truncate another entry to half its length.
    let truncated = all
        .iter()
        .find(|(k, _)| *k != flipped.0)
        .expect("a second entry")
        .clone();
    let bytes = fs::read(&truncated.1).expect("entry");
    fs::write(&truncated.1, &bytes[..bytes.len() / 2]).expect("truncate");

    let second = build(&recipe, &[]);
    let err = stderr(&second);
    assert!(second.status.success(), "{err}");
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("warning: cache entry "))
        .collect();
    assert_eq!(warnings.len(), 2, "one line per bad entry: {err}");
    for (key, path) in [&flipped, &truncated] {
        let lines: Vec<&&str> = warnings
            .iter()
            .filter(|l| l.contains(key.as_str()))
            .collect();
        assert_eq!(lines.len(), 1, "{key} reported once: {err}");
        assert!(lines[0].contains("fails its SHA-256 check"), "{}", lines[0]);
        // Made again: a whole entry under the same key.
        assert!(whole(path), "{} not made again", path.display());
    }
    // Never trusted: the dataset is what the first build found, fix 0's tests included.
    assert_eq!(build_files(&out, dir.path()), before);
    let rows = fs::read_to_string(out.join("instances.jsonl")).expect("rows");
    assert!(rows.contains("\"FAIL_TO_PASS\":[\"tests.test_g0::a0\",\"tests.test_g0::b0\"]"));
    assert!(!rows.contains("::a1\",\"tests.test_g0"));

    let third = build(&recipe, &[]);
    assert!(third.status.success());
    assert!(
        !stderr(&third).contains("cache entry"),
        "{}",
        stderr(&third)
    );
}

/// A tmpfs mounted on a directory for the test's life (unmounted when dropped).
struct Tmpfs(PathBuf);

impl Tmpfs {
    /// Mount a tmpfs of `size` at `dir`; `None` when mounting is refused (not root, no
    /// mount namespace) — which fails the test under CI instead of skipping it.
    fn mount(dir: &Path, size: &str) -> Option<Tmpfs> {
        fs::create_dir_all(dir).expect("mount point");
        let o = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output();
        match o {
            Ok(o) if o.status.success() => Some(Tmpfs(dir.to_path_buf())),
            other => {
                let why = match other {
                    Ok(o) => stderr(&o),
                    Err(e) => e.to_string(),
                };
                let ci = std::env::var("CI").unwrap_or_default();
                assert!(
                    ci.is_empty() || ci == "false" || ci == "0",
                    "CI={ci}: the full-disk test needs to mount a tmpfs (as root): {why}"
                );
                eprintln!("SKIPPED: cannot mount a tmpfs to fill ({why})");
                None
            }
        }
    }

    /// Take every free byte of the file system.
    fn fill(&self) {
        use std::io::Write;
        let mut f = fs::File::create(self.0.join("filler")).expect("filler");
        let block = vec![0u8; 4096];
        while f.write_all(&block).is_ok() {}
        let _ = f.flush();
        let mut f = fs::File::create(self.0.join("filler-small")).expect("filler");
        while f.write_all(&[0u8]).is_ok() {}
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// The one line a command that found no space says: exit 1, one `error:` line naming a
/// path on the full file system and the OS's words.
fn says_no_space(o: &Output, disk: &Path, what: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "{what}: {err}");
    let lines: Vec<&str> = err.lines().collect();
    eprintln!("{what}: {err}");
    assert_eq!(lines.len(), 1, "{what}: one line: {err}");
    assert!(lines[0].starts_with("error: "), "{what}: {err}");
    assert!(
        lines[0].contains(&disk.display().to_string())
            && lines[0].contains("No space left on device"),
        "{what}: {err}"
    );
}

#[test]
fn a_full_disk_fails_in_one_line_and_keeps_the_previous_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (recipe, disk) = (sandboxed_fixture(dir.path(), 3), dir.path().join("disk"));
    let Some(tmpfs) = Tmpfs::mount(&disk, "8m") else {
        return;
    };
    let out = disk.join("out");
    let validated = disk.join("validated");
    let evaluated = disk.join("evaluated");
    // The previous outputs, written while there was room.
    let ok = build(&recipe, &["--output", out.to_str().expect("utf-8")]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    let validate = || {
        hunkgen()
            .args(["validate", "-q", "--output"])
            .arg(&validated)
            .arg(&out)
            .output()
            .expect("runs")
    };
    // The gold baseline's predictions, kept off the small disk, are what is evaluated.
    let gold = hunkgen()
        .args(["evaluate", "-q", "--baseline", "gold", "--output"])
        .arg(&evaluated)
        .arg(&out)
        .output()
        .expect("runs");
    assert!(gold.status.success(), "{}", stderr(&gold));
    let predictions = dir.path().join("gold.jsonl");
    fs::copy(out.join("evaluations/baseline-gold.jsonl"), &predictions).expect("gold");
    let evaluate = || {
        hunkgen()
            .args(["evaluate", "-q", "--predictions"])
            .arg(&predictions)
            .arg("--output")
            .arg(&evaluated)
            .arg(&out)
            .output()
            .expect("runs")
    };
    for o in [validate(), evaluate()] {
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let before = [tree(&out), tree(&validated), tree(&evaluated)];
    tmpfs.fill();
    let rebuilt = build(&recipe, &["--output", out.to_str().expect("utf-8")]);
    says_no_space(&rebuilt, &disk, "build");
    says_no_space(&validate(), &disk, "validate");
    says_no_space(&evaluate(), &disk, "evaluate");
    let after = [tree(&out), tree(&validated), tree(&evaluated)];
    for (name, (a, b)) in ["dataset", "validation", "evaluation"]
        .iter()
        .zip(before.iter().zip(&after))
    {
        assert!(a == b, "the previous {name} changed");
    }
    // Nothing half-written is left on the full disk.
    let stray: Vec<String> = fs::read_dir(&disk)
        .expect("ls")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".building-") || n.contains(".tmp-"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

/// Spawn `hunkgen args…`, wait until it holds the lock `lock` (its pid in the file),
/// then stop it (SIGSTOP) so it holds the lock as long as the test needs.
fn holder(args: &[&std::ffi::OsStr], lock: &Path) -> std::process::Child {
    let child = Command::new(assert_cmd::cargo::cargo_bin("hunkgen"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let pid = format!("pid {} ", child.id());
    let start = Instant::now();
    while !fs::read_to_string(lock).is_ok_and(|t| t.starts_with(&pid)) {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "{} never took the lock",
            child.id()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // SAFETY: signalling a child we spawned and have not reaped.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGSTOP);
    }
    child
}

fn kill(mut child: std::process::Child) {
    // SAFETY: signalling a child we spawned and have not reaped.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGKILL);
    }
    let _ = child.wait();
}

/// Refused in one line naming the holder's pid, the output untouched.
fn refused(o: &Output, output: &Path, pid: u32) {
    let err = stderr(o);
    let line = format!(
        "{}: being written by another hunkgen, pid {pid} on ",
        output.display()
    );
    assert!(
        o.status.code() == Some(1) && err.lines().count() == 1 && err.contains(&line),
        "expected one line with {line:?}: {err}"
    );
}

#[test]
fn a_second_writer_of_one_output_is_refused_and_a_killed_ones_lock_blocks_nobody() {
    let dir = tempfile::tempdir().expect("tempdir");
    let recipe = fixture(dir.path(), 12);
    let out = dir.path().join("out");
    let b = |s: &'static str| std::ffi::OsStr::new(s);
    let first = holder(
        &[b("build"), b("-q"), recipe.as_os_str()],
        &dir.path().join(".out.lock"),
    );
    refused(&build(&recipe, &[]), &out, first.id());
    refused(&build(&recipe, &["--force"]), &out, first.id());
    // Killed while it holds the lock: the kernel releases it, the next build runs.
    kill(first);
    let again = build(&recipe, &[]);
    assert!(again.status.success(), "{}", stderr(&again));

    // Two validations writing one directory: the same.
    let validated = dir.path().join("validated");
    let args = [
        b("validate"),
        b("-q"),
        b("--no-cache"),
        b("--output"),
        validated.as_os_str(),
        out.as_os_str(),
    ];
    let first = holder(&args, &dir.path().join(".validated.lock"));
    let second = hunkgen().args(args).output().expect("runs");
    refused(&second, &validated, first.id());
    kill(first);
    let o = hunkgen().args(args).output().expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
}
