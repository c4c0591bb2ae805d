//! Unit tests of the runner: sandbox flags, `/proc` parsing, command vectors.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::process::proc_stat;
use super::sandbox::bwrap_args;
use super::Command;

#[test]
fn bwrap_flags_unshare_everything_and_bind_only_the_workdir() {
    let a: Vec<String> = bwrap_args(Path::new("/w/copy"), &[], &[], false)
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let joined = a.join(" ");
    assert!(joined.starts_with("--unshare-all --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp"));
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
