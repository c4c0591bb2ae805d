//! Python interpreters found on this machine, never faked: an environment that asks for
//! a version gets an interpreter of that version or an `unsupported_python` rejection
//! naming what it needs and what was found.
//!
//! Looked for, in this order (the first of a version wins):
//! 1. the machine's `python3` on `PATH` (what an environment without a version uses);
//! 2. `HUNKGEN_PYTHONS`: `:`-separated executables, or directories holding `bin/python3`
//!    or `python3` (a pyenv or uv install, a built CPython prefix);
//! 3. `python3.X` (and `python2.7`) on `PATH` (Debian's `python3.9` from bullseye, …);
//! 4. pyenv's versions directory (`$PYENV_ROOT/versions`, else `~/.pyenv/versions`);
//! 5. uv's managed interpreters (`$UV_PYTHON_INSTALL_DIR`, else
//!    `~/.local/share/uv/python`).
//!
//! Each candidate is asked for its real executable and version (`sys.executable`,
//! `sys.version_info`), outside the sandbox, once per process.

use super::EnvError;
use crate::validate::runner::find_in_path;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

/// One interpreter: its real executable and its version (`3.9.18`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interpreter {
    /// `sys.executable`.
    pub exe: PathBuf,
    /// `major.minor.micro`.
    pub version: String,
}

/// Asks `program` for its executable and version; `None` when it does not answer.
pub fn probe(program: &Path) -> Option<Interpreter> {
    let text = crate::validate::runner::host_answer(
        program,
        &[
            "-c",
            "import sys; print(sys.executable); print('%d.%d.%d' % sys.version_info[:3])",
        ],
        Duration::from_secs(60),
    )?;
    let mut lines = text.lines();
    match (lines.next(), lines.next()) {
        (Some(exe), Some(version)) if !exe.is_empty() => Some(Interpreter {
            exe: PathBuf::from(exe),
            version: version.trim().to_string(),
        }),
        _ => None,
    }
}

/// The memo key of `program`: its path, the file it resolves to and that file's
/// identity (size, modification time, inode, device).
fn probe_key(program: &Path) -> Option<crate::cache::Key> {
    use std::os::unix::fs::MetadataExt;
    let real = fs::canonicalize(program).ok()?;
    let m = fs::metadata(&real).ok()?;
    let identity = format!(
        "{} {} {} {} {}",
        m.len(),
        m.mtime(),
        m.mtime_nsec(),
        m.ino(),
        m.dev()
    );
    Some(crate::cache::Key::of(&[
        b"hunkgen-python-probe-v1",
        program.as_os_str().as_encoded_bytes(),
        real.as_os_str().as_encoded_bytes(),
        identity.as_bytes(),
    ]))
}

/// [`probe`], answered from `memo` when this executable was asked before.
fn probe_memo(program: &Path, memo: Option<&Path>) -> Option<Interpreter> {
    let Some(dir) = memo else {
        return probe(program);
    };
    let key = probe_key(program)?;
    let cache = crate::cache::Cache::new(dir);
    let remembered = cache.get(&key).and_then(|b| {
        let text = String::from_utf8(b).ok()?;
        let (exe, version) = text.split_once('\n')?;
        Some(Interpreter {
            exe: PathBuf::from(exe),
            version: version.to_string(),
        })
    });
    if remembered.is_some() {
        return remembered;
    }
    let found = probe(program)?;
    // Only answers are remembered (a probe that failed is asked again next time), and
    // only those of an interpreter that is the file keyed on: a dispatcher (pyenv's or
    // asdf's shim, a wrapper script) answers for whatever it runs today, which its own
    // file does not say. A memo that cannot be written is only a slower next build.
    let is_itself = fs::canonicalize(&found.exe).ok() == fs::canonicalize(program).ok();
    if is_itself {
        let text = format!("{}\n{}", found.exe.display(), found.version);
        let _ = cache.put(&key, text.as_bytes());
    }
    Some(found)
}

/// The places to look, in order (see the module doc); duplicates are fine.
fn candidates() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = find_in_path("python3")
        .map(|p| {
            let dir = std::env::var_os("PYENV_DIR")
                .map(PathBuf::from)
                .or_else(|| std::env::current_dir().ok());
            let version = std::env::var("PYENV_VERSION").ok();
            pyenv_shim_target(&p, version.as_deref(), dir.as_deref()).unwrap_or(p)
        })
        .into_iter()
        .collect();
    let in_dir = |d: &Path| -> Option<PathBuf> {
        ["bin/python3", "bin/python", "python3", "python"]
            .iter()
            .map(|n| d.join(n))
            .find(|p| p.is_file())
    };
    if let Some(list) = std::env::var_os("HUNKGEN_PYTHONS") {
        for p in std::env::split_paths(&list).filter(|p| !p.as_os_str().is_empty()) {
            if p.is_dir() {
                out.extend(in_dir(&p));
            } else {
                out.push(p);
            }
        }
    }
    // pyenv's shims stand for the versions found below; probing one runs pyenv's shell
    // scripts (a tenth of a second each) and answers only for its global version.
    let versioned = (0..=20)
        .rev()
        .map(|minor| format!("python3.{minor}"))
        .chain(["python2.7".to_string()]);
    out.extend(
        versioned
            .filter_map(|name| find_in_path(&name))
            .filter(|p| !is_pyenv_shim(p)),
    );
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let pyenv = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".pyenv")));
    let uv = std::env::var_os("UV_PYTHON_INSTALL_DIR")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".local/share/uv/python")));
    for root in [pyenv.map(|p| p.join("versions")), uv]
        .into_iter()
        .flatten()
    {
        let Ok(entries) = fs::read_dir(&root) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        dirs.sort();
        out.extend(dirs.iter().filter_map(|d| in_dir(d)));
    }
    out
}

/// The interpreter pyenv's `python3` shim `shim` runs, read the way pyenv reads it
/// (`version`, pyenv's `PYENV_VERSION`; else the nearest `.python-version` up from `dir`,
/// its `PYENV_DIR` or the working directory; else `<root>/version`): probing the shim
/// itself runs pyenv's shell scripts, a tenth of a second on every command. `None`
/// when `shim` is no pyenv shim, or it stands for `system` or a version that is not
/// installed: then the shim is probed as it is.
fn pyenv_shim_target(shim: &Path, version: Option<&str>, dir: Option<&Path>) -> Option<PathBuf> {
    if !is_pyenv_shim(shim) {
        return None;
    }
    let root = shim.parent()?.parent()?;
    let first_word = |text: &str| text.split_whitespace().next().map(str::to_string);
    let from_file = |f: &Path| fs::read_to_string(f).ok().and_then(|t| first_word(&t));
    let name = match version {
        Some(v) => v.split(':').next().map(str::to_string),
        None => dir
            .and_then(|d| {
                d.ancestors()
                    .find_map(|a| from_file(&a.join(".python-version")))
            })
            .or_else(|| from_file(&root.join("version"))),
    }?;
    let exe = root.join("versions").join(&name).join("bin/python3");
    (name != "system" && !name.contains('/') && exe.is_file()).then_some(exe)
}

/// True for pyenv's shim of a command (`<root>/shims/python3.9` beside
/// `<root>/versions`).
fn is_pyenv_shim(p: &Path) -> bool {
    let dir = p.parent();
    dir.is_some_and(|d| d.file_name().is_some_and(|n| n == "shims"))
        && dir
            .and_then(Path::parent)
            .is_some_and(|root| root.join("versions").is_dir())
}

/// Every interpreter found, the machine's `python3` first, one per version (probed
/// once per process, all candidates at once).
pub fn discover() -> &'static [Interpreter] {
    discover_in(None)
}

/// [`discover`], each probe's answer remembered in `memo` under the executable's
/// identity (path, size, modification time, inode): a warm rebuild starts no
/// interpreter, and an upgraded one is a new file, asked again. Whichever call comes
/// first in a process decides for all.
pub fn discover_in(memo: Option<&Path>) -> &'static [Interpreter] {
    static FOUND: OnceLock<Vec<Interpreter>> = OnceLock::new();
    FOUND.get_or_init(|| {
        let mut seen = std::collections::HashSet::new();
        let unique: Vec<PathBuf> = candidates()
            .into_iter()
            .filter(|c| seen.insert(fs::canonicalize(c).unwrap_or_else(|_| c.clone())))
            .collect();
        let probed: Vec<Option<Interpreter>> = std::thread::scope(|s| {
            let handles: Vec<_> = unique
                .iter()
                .map(|c| s.spawn(|| probe_memo(c, memo)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().ok().flatten())
                .collect()
        });
        let mut found: Vec<Interpreter> = Vec::new();
        for i in probed.into_iter().flatten() {
            if !found.iter().any(|f| f.version == i.version) {
                found.push(i);
            }
        }
        found
    })
}

/// True when `requested` (`3`, `3.11`, `3.11.7`) names the `available` version.
pub fn python_matches(requested: &str, available: &str) -> bool {
    let r: Vec<&str> = requested.trim().split('.').collect();
    let a: Vec<&str> = available.split('.').collect();
    r.len() <= a.len() && r.iter().zip(&a).all(|(x, y)| x == y)
}

/// The interpreter for `requested` among `found`: the first (the machine's `python3`)
/// when nothing is requested or it matches, else the newest that matches.
pub fn choose<'a>(found: &'a [Interpreter], requested: Option<&str>) -> Option<&'a Interpreter> {
    let Some(req) = requested else {
        return found.first();
    };
    if let Some(first) = found.first().filter(|f| python_matches(req, &f.version)) {
        return Some(first);
    }
    found
        .iter()
        .filter(|f| python_matches(req, &f.version))
        .max_by_key(|f| version_key(&f.version))
}

/// `3.11.7` → `[3, 11, 7]`, ordered as versions are (a missing part is 0).
pub(super) fn version_key(v: &str) -> Vec<u32> {
    v.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

/// The interpreter an environment of `repo` asking for `requested` uses: see [`choose`];
/// a missing `python3` or an absent version is an error naming what was found.
pub fn for_request(repo: &str, requested: Option<&str>) -> Result<Interpreter, EnvError> {
    let found = discover();
    if found.is_empty() {
        return Err(EnvError::MissingTool {
            tool: "python3".into(),
            hint: "install Python 3, or name interpreters in HUNKGEN_PYTHONS".into(),
        });
    }
    choose(found, requested)
        .cloned()
        .ok_or_else(|| EnvError::UnsupportedPython {
            repo: repo.to_string(),
            requested: requested.unwrap_or_default().to_string(),
            available: found
                .iter()
                .map(|f| f.version.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// An interpreter of `version` at a made-up path, for tests of choosing among them.
#[cfg(test)]
pub(super) fn made_up(version: &str) -> Interpreter {
    Interpreter {
        exe: PathBuf::from(format!("/py/{version}/bin/python")),
        version: version.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(v: &str) -> Interpreter {
        made_up(v)
    }

    #[test]
    fn version_matching_is_by_components() {
        assert!(python_matches("3.11", "3.11.7"));
        assert!(python_matches("3", "3.11.7"));
        assert!(python_matches("3.11.7", "3.11.7"));
        assert!(!python_matches("3.1", "3.11.7"));
        assert!(!python_matches("3.9", "3.11.7"));
        assert!(!python_matches("3.11.7.1", "3.11.7"));
    }

    #[test]
    fn the_machines_python_first_then_the_newest_match() {
        let found = [
            i("3.11.2"),
            i("3.9.18"),
            i("3.6.15"),
            i("3.12.1"),
            i("2.7.18"),
        ];
        assert_eq!(choose(&found, None), Some(&found[0]));
        assert_eq!(choose(&found, Some("3.11")), Some(&found[0]));
        assert_eq!(choose(&found, Some("3")), Some(&found[0]));
        assert_eq!(choose(&found, Some("3.9")), Some(&found[1]));
        assert_eq!(choose(&found, Some("2")), Some(&found[4]));
        assert_eq!(choose(&found, Some("3.5")), None);
        assert_eq!(choose(&[], None), None);
    }

    #[test]
    fn a_pyenv_shim_is_read_as_pyenv_reads_it() {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path().join("pyenv");
        let shim = root.join("shims/python3");
        for f in [&shim, &root.join("versions/3.9.1/bin/python3")] {
            fs::create_dir_all(f.parent().expect("dir")).expect("mkdir");
            fs::write(f, "").expect("write");
        }
        fs::create_dir_all(root.join("versions/3.8.0")).expect("mkdir");
        let exe = |v: &str| root.join("versions").join(v).join("bin/python3");
        let project = tmp.path().join("project/sub");
        fs::create_dir_all(&project).expect("mkdir");
        // The global version file.
        fs::write(root.join("version"), "3.9.1\n").expect("write");
        assert_eq!(
            pyenv_shim_target(&shim, None, Some(&project)),
            Some(exe("3.9.1"))
        );
        // A .python-version above the directory wins; one naming a version that is not
        // installed (3.8.0 has no bin/python3) leaves the shim to be probed.
        fs::write(tmp.path().join("project/.python-version"), "3.8.0\n").expect("write");
        assert_eq!(pyenv_shim_target(&shim, None, Some(&project)), None);
        // PYENV_VERSION wins over both; `system` is left to the shim.
        assert_eq!(
            pyenv_shim_target(&shim, Some("3.9.1:3.8.0"), Some(&project)),
            Some(exe("3.9.1"))
        );
        assert_eq!(pyenv_shim_target(&shim, Some("system"), None), None);
        // Not a shim: a python3 elsewhere is probed as it is.
        assert_eq!(pyenv_shim_target(&exe("3.9.1"), Some("3.9.1"), None), None);
    }

    #[test]
    fn a_probe_is_remembered_under_the_executables_identity() {
        // The interpreter itself (python3 on PATH may be a shim).
        let shim = find_in_path("python3").expect("python3 on PATH");
        let python = probe(&shim).expect("answers").exe;
        let dir = tempfile::tempdir().expect("tmp");
        let asked = probe_memo(&python, Some(dir.path())).expect("answers");
        assert_eq!(Some(&asked), probe(&python).as_ref());
        let memo = crate::cache::Cache::new(dir.path());
        let key = probe_key(&python).expect("key");
        let held = memo.get(&key).expect("remembered");
        assert_eq!(
            String::from_utf8_lossy(&held),
            format!("{}\n{}", asked.exe.display(), asked.version)
        );
        // What the memo holds is what is answered: no interpreter is started again.
        memo.put(&key, format!("{}\n0.0.1", asked.exe.display()).as_bytes())
            .expect("put");
        let again = probe_memo(&python, Some(dir.path())).expect("answers");
        assert_eq!((&again.exe, again.version.as_str()), (&asked.exe, "0.0.1"));

        // A wrapper script answers for the interpreter it runs today: asked, never
        // remembered.
        let wrapper = dir.path().join("python3-wrapper");
        fs::write(
            &wrapper,
            format!("#!/bin/sh\nexec '{}' \"$@\"\n", python.display()),
        )
        .expect("write");
        let mut mode = fs::metadata(&wrapper).expect("stat").permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
        fs::set_permissions(&wrapper, mode).expect("chmod");
        let through = probe_memo(&wrapper, Some(dir.path())).expect("answers");
        assert_eq!(through.exe, asked.exe);
        let key = probe_key(&wrapper).expect("key");
        assert_eq!(
            memo.get(&key),
            None,
            "a dispatcher's answer is not remembered"
        );
    }

    #[test]
    fn the_machines_python3_is_found_and_answers() {
        let found = discover();
        let first = found.first().expect("python3 on PATH");
        assert!(first.exe.is_absolute() && first.exe.exists(), "{first:?}");
        assert_eq!(first.version.split('.').count(), 3, "{first:?}");
        // One entry per version.
        let mut versions: Vec<&str> = found.iter().map(|f| f.version.as_str()).collect();
        versions.sort();
        versions.dedup();
        assert_eq!(versions.len(), found.len());
    }
}
