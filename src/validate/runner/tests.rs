//! Unit tests of the runner: sandbox flags, `/proc` parsing, command vectors.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::process::proc_stat;
use super::sandbox::{bwrap_args, SYSTEM_DIRS};
use super::Command;

#[test]
fn bwrap_flags_unshare_everything_and_bind_only_the_workdir() {
    let a: Vec<String> = bwrap_args(Path::new("/w/copy"), &[], &[], false)
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let joined = a.join(" ");
    assert!(joined.starts_with("--unshare-all "));
    assert!(joined.contains("--ro-bind /usr /usr"), "{joined}");
    // Never the whole host: no `/` bound, so no home, dataset or cache by path.
    assert!(!joined.contains("--ro-bind / /"), "{joined}");
    assert!(
        !joined.contains("/home") && !joined.contains("/root"),
        "{joined}"
    );
    assert!(joined.contains("--dev /dev --proc /proc --size 2147483648 --tmpfs /tmp"));
    assert!(joined.contains("--bind /w/copy /w/copy --remount-ro / --chdir /w/copy"));
    assert!(joined.ends_with("--die-with-parent --new-session"));
    assert!(!joined.contains("--share-net"));
    assert_eq!(a.iter().filter(|s| *s == "--bind").count(), 1);
    let with_net = bwrap_args(Path::new("/w"), &[PathBuf::from("/cache")], &[], true);
    assert!(with_net.iter().any(|s| s == "--share-net"));
    assert_eq!(with_net.iter().filter(|s| *s == "--bind").count(), 2);
}

/// The flags as strings, for matching.
fn flags(workdir: &str, writable: &[&str], readable: &[&str]) -> Vec<String> {
    let w: Vec<PathBuf> = writable.iter().map(PathBuf::from).collect();
    let r: Vec<PathBuf> = readable.iter().map(PathBuf::from).collect();
    bwrap_args(Path::new(workdir), &w, &r, false)
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect()
}

/// The (flag, path) pairs of the binds, in order.
fn binds(a: &[String]) -> Vec<(String, String)> {
    a.windows(3)
        .filter(|w| w[0] == "--bind" || w[0] == "--ro-bind")
        .filter(|w| w[1] == w[2] && w[1] != "/" && !SYSTEM_DIRS.contains(&w[1].as_str()))
        .map(|w| (w[0].clone(), w[1].clone()))
        .collect()
}

#[test]
fn paths_under_tmp_are_bound_after_the_private_tmp_one_argument_each() {
    let dir = tempfile::Builder::new()
        .prefix("hunkgen runner ")
        .tempdir_in("/tmp")
        .expect("tempdir");
    let p = |rel: &str| {
        let q = dir.path().join(rel);
        std::fs::create_dir_all(&q).expect("mkdir");
        q.to_string_lossy().into_owned()
    };
    let (work, env, cache) = (p("work copy"), p("my env"), p("the cache"));
    let a = flags(&work, &[&cache], &[&env, "/nonexistent/hunkgen"]);
    let tmpfs = a.iter().position(|s| s == "--tmpfs").expect("tmpfs");
    let first_bind = a.iter().position(|s| s == &env).expect("env bound");
    assert!(tmpfs < first_bind, "{a:?}");
    assert_eq!(
        binds(&a),
        [
            ("--ro-bind".to_string(), env.clone()),
            ("--bind".to_string(), work.clone()),
            ("--bind".to_string(), cache.clone()),
        ],
        "a missing readable path is left out: {a:?}"
    );
    // A path with spaces is one argument, never split.
    assert!(a.iter().any(|s| s == &work) && a.iter().all(|s| s != "copy"));
    assert_eq!(a[a.len() - 3], work, "--chdir into the working copy");
}

#[test]
fn the_working_copy_is_bound_before_wider_paths_and_tmp_itself_never() {
    let dir = tempfile::Builder::new()
        .prefix("hunkgen-runner-")
        .tempdir_in("/tmp")
        .expect("tempdir");
    let root = dir.path().to_string_lossy().into_owned();
    let work = dir.path().join("envs/.tmp-build");
    std::fs::create_dir_all(&work).expect("mkdir");
    let work = work.to_string_lossy().into_owned();
    // The wider writable path after the working copy inside it: its mount covers the
    // copy's, one mount for both (hardlinks work); a path given twice is bound once.
    let a = flags(&work, &[&root, &root], &[]);
    assert_eq!(
        binds(&a),
        [
            ("--bind".to_string(), work.clone()),
            ("--bind".to_string(), root.clone())
        ],
        "{a:?}"
    );
    // `/` and `/tmp` (or anything holding it, however written) would bring back the
    // host's /tmp.
    let up = format!("{root}/..");
    let a = flags(&work, &["/tmp", "/", &up], &["/", "/tmp/", &up]);
    assert_eq!(binds(&a), [("--bind".to_string(), work.clone())], "{a:?}");
    assert_eq!(a.iter().filter(|s| *s == "/tmp").count(), 1, "{a:?}");
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

#[test]
fn the_sandbox_passwd_renames_the_run_uid_and_keeps_the_rest() {
    use super::sandbox::identity_text;
    let passwd = "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\nhunkgen:x:4242:4242::/nowhere:/bin/sh\n";
    let group = "root:x:0:\nalice:x:1000:\n";
    let (p, g) = identity_text(passwd, group, 1000, 1000);
    assert_eq!(
        p,
        "root:x:0:0:root:/root:/bin/bash\nhunkgen:x:1000:1000:hunkgen:/tmp:/bin/sh\n"
    );
    assert_eq!(g, "root:x:0:\nhunkgen:x:1000:\n");
    // A uid the host does not list gets the entry too.
    let (p, _) = identity_text(passwd, group, 5000, 5000);
    assert!(
        p.contains("alice:x:1000") && p.ends_with("hunkgen:x:5000:5000:hunkgen:/tmp:/bin/sh\n")
    );
}

#[test]
fn a_file_can_be_the_commands_stdin_and_the_callers_environment_passed_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("in.json");
    std::fs::write(&input, "{\"x\": 1}").expect("write");
    let log = dir.path().join("out.log");
    let runner = super::Runner::new(super::SandboxPolicy::Off).expect("runner");
    // Cargo sets this for the test process; the base environment never passes it.
    let script = "cat; echo; echo \"dir=${CARGO_MANIFEST_DIR:-none}\"";
    let mut spec = super::RunSpec::shell(script, dir.path(), &log);
    spec.stdin = Some(input.clone());
    runner.run(&spec).expect("runs");
    let out = std::fs::read_to_string(&log).expect("log");
    assert!(out.starts_with("{\"x\": 1}\n"), "{out}");
    assert!(out.contains("dir=none"), "{out}");
    spec.inherit_env = true;
    runner.run(&spec).expect("runs");
    let out = std::fs::read_to_string(&log).expect("log");
    if let Some(d) = std::env::var_os("CARGO_MANIFEST_DIR") {
        assert!(
            out.contains(&format!("dir={}", d.to_string_lossy())),
            "{out}"
        );
    }
    spec.stdin = Some(dir.path().join("missing"));
    let e = runner.run(&spec).expect_err("no stdin file");
    assert!(e.to_string().contains("for the command's stdin"), "{e}");
}
