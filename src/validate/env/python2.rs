//! Python 2.7 environments: uv builds and resolves for Python 3 only, so a `python:`
//! environment on a 2.x interpreter is made by virtualenv (20.21, the last release that
//! creates 2.7 environments, seeding pip 20.3, the last pip for 2.7) and installed by
//! that pip. pip 20.3 resolves by each release's `Requires-Python` (the newest release
//! that still supports 2.7) and has no date cut-off, so these environments are not
//! pinned to a commit's date.
//!
//! Wheels come from one wheelhouse beside uv's cache ([`EnvCache::py2_wheels`]): the
//! offline step installs from it alone (`--no-index`); when that fails and the network
//! is allowed, the online step first builds every requirement and dependency into it
//! (`pip wheel`), then installs the same way, so the next build of the key is offline.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use super::{prepend_path, sh_quote, EnvCache, EnvError, PythonSpec};
use crate::validate::runner::Runner;

/// pip's flags for every step: quiet, no version nags, no cache of its own (the
/// wheelhouse is the cache).
const PIP_FLAGS: &str =
    "--quiet --disable-pip-version-check --no-python-version-warning --no-cache-dir";

/// Whether `version` (`2.7.18`) is a Python 2 interpreter's.
pub fn is_python2(version: &str) -> bool {
    version.starts_with("2.")
}

/// The installed version of `package` in a built Python 2 environment (`dir`, as
/// [`EnvCache::ensure`] publishes it), from its `.dist-info` or `.egg-info` directory.
pub fn installed_version(dir: &Path, package: &str) -> Option<String> {
    let lib = dir.join("venv/lib");
    let want = crate::init::normalize_distribution(package);
    for py in fs::read_dir(&lib).ok()?.flatten() {
        for e in fs::read_dir(py.path().join("site-packages"))
            .ok()?
            .flatten()
        {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(stem) = name
                .strip_suffix(".dist-info")
                .or_else(|| name.strip_suffix(".egg-info"))
            else {
                continue;
            };
            let Some((n, v)) = stem.split_once('-') else {
                continue;
            };
            if crate::init::normalize_distribution(n) == want {
                return Some(v.split('-').next().unwrap_or(v).to_string());
            }
        }
    }
    None
}

/// The version `virtualenv --version` prints (`virtualenv 20.21.1 from …`), asked outside
/// the sandbox like an interpreter's; `None` when it says nothing readable (then the build
/// step's own error tells).
fn virtualenv_version(program: &Path) -> Option<String> {
    let text = crate::validate::runner::host_answer(
        program,
        &["--version"],
        std::time::Duration::from_secs(60),
    )?;
    parse_virtualenv_version(&text)
}

/// The version in virtualenv's `--version` line (`virtualenv 20.21.1 from /x/…`).
fn parse_virtualenv_version(text: &str) -> Option<String> {
    let mut words = text.split_whitespace();
    (words.next()? == "virtualenv")
        .then(|| words.next())
        .flatten()
        .filter(|v| v.starts_with(|c: char| c.is_ascii_digit()))
        .map(str::to_string)
}

/// Whether virtualenv `version` still creates Python 2.7 environments: 20.22 dropped them.
fn makes_python2(version: &str) -> bool {
    super::pythons::version_key(version) < vec![20, 22]
}

/// Builds `spec`'s environment in `tmp` on the Python 2 interpreter `python` (see the
/// module doc); whether it stayed offline.
pub(super) fn build(
    spec: &PythonSpec,
    cache: &EnvCache,
    runner: &Runner,
    repo: &str,
    key: &str,
    tmp: &Path,
    python: &Path,
) -> Result<bool, EnvError> {
    let virtualenv = cache.require_virtualenv()?;
    if let Some(found) = virtualenv_version(&virtualenv).filter(|v| !makes_python2(v)) {
        return Err(EnvError::MissingTool {
            tool: "virtualenv 20.21 or older".into(),
            hint: format!(
                "{} is virtualenv {found}, which makes no Python 2.7 environments: set \
                 HUNKGEN_VIRTUALENV to one older than 20.22 (`pip install 'virtualenv<20.22'`; \
                 `make deps`)",
                virtualenv.display()
            ),
        });
    }
    let wheels = cache.py2_wheels();
    fs::create_dir_all(&wheels).map_err(|source| EnvError::Write {
        path: wheels.clone(),
        source,
    })?;
    // What the steps read besides the environment: virtualenv's own venv and the
    // interpreter it runs on, and the 2.7 interpreter's installation.
    let mut readable: Vec<PathBuf> = Vec::new();
    if let Some(venv) = virtualenv.parent().and_then(Path::parent) {
        readable.push(venv.to_path_buf());
        readable.extend(
            fs::canonicalize(venv.join("bin/python"))
                .ok()
                .and_then(|p| p.parent()?.parent().map(Path::to_path_buf)),
        );
    }
    readable.extend(
        fs::canonicalize(python)
            .ok()
            .and_then(|p| p.parent()?.parent().map(Path::to_path_buf)),
    );
    let venv = tmp.join("venv");
    let pip = sh_quote(venv.join("bin/pip"));
    // virtualenv's application data (its copies of the seed wheels) in the step's own
    // directory, removed at the end: the sandbox's home is not writable.
    let app_data = tmp.join("virtualenv-data");
    let create = format!(
        "{} --quiet --no-download --no-periodic-update --python {} {}",
        sh_quote(&virtualenv),
        sh_quote(python),
        sh_quote(&venv)
    );
    let req_copy = tmp.join("requirements.txt");
    let install = format!(
        "{pip} install {PIP_FLAGS} --no-index --find-links {} -r {}",
        sh_quote(&wheels),
        sh_quote(&req_copy)
    );
    let fetch = format!(
        "{pip} wheel {PIP_FLAGS} --wheel-dir {} --find-links {} -r {}",
        sh_quote(&wheels),
        sh_quote(&wheels),
        sh_quote(&req_copy)
    );
    // Builds of other keys share the wheelhouse: one fills it at a time (`flock`), and
    // none reads it meanwhile.
    let lock = sh_quote(wheels.join(".lock"));
    let script = |online: bool| {
        let mut s = create.clone();
        if spec.requirements.is_some() {
            let pip = match online {
                true => format!("{fetch} && {install}"),
                false => install.clone(),
            };
            let mode = if online { "-x" } else { "-s" };
            s.push_str(&format!(" && flock {mode} {lock} sh -c {}", sh_quote(&pip)));
        }
        if let Some(cmd) = &spec.install {
            s.push_str(&format!(" && ( {cmd} )"));
        }
        s.push_str(&format!(" && rm -rf {}", sh_quote(&app_data)));
        s
    };
    let prepare = || -> Result<(), EnvError> {
        super::fresh(tmp)?;
        if let Some(from) = &spec.requirements {
            fs::copy(from, &req_copy).map_err(|source| EnvError::Read {
                path: from.clone(),
                source,
            })?;
        }
        Ok(())
    };
    let vars: Vec<(OsString, OsString)> = vec![
        (
            "VIRTUALENV_OVERRIDE_APP_DATA".into(),
            app_data.clone().into(),
        ),
        ("VIRTUAL_ENV".into(), venv.clone().into()),
        ("PATH".into(), prepend_path(&venv.join("bin"))),
        ("PIP_NO_INPUT".into(), "1".into()),
    ];
    let step = |online: bool| {
        cache.step(
            runner,
            repo,
            &format!("{key}-{}", if online { "online" } else { "offline" }),
            script(online),
            tmp,
            online,
            &vars,
            &readable,
            &[],
        )
    };
    let offline = cache.offline_first(prepare, step)?;
    relocate_scripts(&venv)?;
    Ok(offline)
}

/// Points the scripts pip wrote (`pytest`, `nosetests`) at whichever `python` is first on
/// `PATH` (the environment's, which runs put first) instead of the build directory's
/// interpreter, in the `#!` line and in the `exec` line pip writes for a long path: the
/// environment is published under another name.
fn relocate_scripts(venv: &Path) -> Result<(), EnvError> {
    let bin = venv.join("bin");
    let ours = format!("{}/python", bin.display());
    let entries = fs::read_dir(&bin).map_err(|source| EnvError::Read {
        path: bin.clone(),
        source,
    })?;
    for e in entries.flatten() {
        let path = e.path();
        let Ok(text) = fs::read(&path).map(String::from_utf8) else {
            continue;
        };
        let Ok(text) = text else {
            continue; // Not a script (the interpreter itself).
        };
        if !text.starts_with("#!") || !text.contains(&ours) {
            continue;
        }
        let out = text.replace(&ours, "/usr/bin/env python");
        fs::write(&path, out).map_err(|source| EnvError::Write { path, source })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_virtualenv_newer_than_20_21_is_told_apart_by_its_version_line() {
        let v = parse_virtualenv_version("virtualenv 20.21.1 from /x/virtualenv/__init__.py\n");
        assert_eq!(v.as_deref(), Some("20.21.1"));
        assert!(makes_python2("20.21.1"));
        assert!(makes_python2("16.7.12"));
        assert!(!makes_python2("20.22.0"));
        assert!(!makes_python2("21.1"));
        assert_eq!(parse_virtualenv_version("usage: something else"), None);
        assert_eq!(parse_virtualenv_version("virtualenv from /x"), None);
    }

    #[test]
    fn the_version_is_asked_of_the_virtualenv_itself() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fake = dir.path().join("virtualenv");
        // Stands in for the version query only: a real virtualenv 20.26 prints this line.
        fs::write(
            &fake,
            "#!/bin/sh\necho \"virtualenv 20.26.6 from /opt/virtualenv/__init__.py\"\n",
        )
        .expect("write");
        fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .expect("chmod");
        assert_eq!(virtualenv_version(&fake).as_deref(), Some("20.26.6"));
    }

    #[test]
    fn scripts_point_at_the_python_on_path_and_installed_versions_are_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let venv = dir.path().join("venv");
        let bin = venv.join("bin");
        fs::create_dir_all(&bin).expect("bin");
        let py = bin.join("python");
        let short = format!("#!{}\n# -*- coding: utf-8 -*-\nimport sys\n", py.display());
        fs::write(bin.join("pytest"), &short).expect("pytest");
        // pip's form for a path too long for `#!`.
        let long = format!(
            "#!/bin/sh\n'''exec' {}2.7 \"$0\" \"$@\"\n' '''\nimport sys\n",
            py.display()
        );
        fs::write(bin.join("pip"), &long).expect("pip");
        fs::write(&py, b"\x7fELF\x00\x01binary").expect("python");
        relocate_scripts(&venv).expect("relocated");
        let read = |n: &str| fs::read_to_string(bin.join(n)).expect("read");
        assert_eq!(
            read("pytest"),
            "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nimport sys\n"
        );
        assert!(
            read("pip").contains("'''exec' /usr/bin/env python2.7 \"$0\""),
            "{}",
            read("pip")
        );
        assert_eq!(fs::read(&py).expect("python"), b"\x7fELF\x00\x01binary");

        let site = venv.join("lib/python2.7/site-packages");
        fs::create_dir_all(site.join("pytest-4.6.11.dist-info")).expect("dist-info");
        fs::create_dir_all(site.join("Py_Yaml-3.12-py2.7.egg-info")).expect("egg-info");
        assert_eq!(
            installed_version(dir.path(), "pytest").as_deref(),
            Some("4.6.11")
        );
        assert_eq!(
            installed_version(dir.path(), "py-yaml").as_deref(),
            Some("3.12")
        );
        assert_eq!(installed_version(dir.path(), "mock"), None);
        assert!(is_python2("2.7.18") && !is_python2("3.11.7"));
    }
}
