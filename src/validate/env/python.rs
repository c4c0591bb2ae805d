//! `env: python: {…}`: a uv venv from a requirements file and/or an install command, on
//! an interpreter found on the machine ([`super::pythons`]), shared by every instance of
//! a repository. On a Python 2 interpreter, virtualenv and pip build it instead
//! ([`super::python2`]).

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use super::kind::{KeyInputs, Kind};
use super::{prepend_path, pythons, sh_quote, EnvCache, EnvError, PythonSpec};
use crate::validate::runner::Runner;

impl Kind for PythonSpec {
    fn name(&self) -> &'static str {
        "python"
    }

    fn absolutize(&mut self, resolve: &dyn Fn(&Path) -> PathBuf) -> Result<(), String> {
        if let Some(r) = &self.requirements {
            let r = resolve(r);
            if !r.is_file() {
                return Err(format!("{}: no such requirements file", r.display()));
            }
            self.requirements = Some(r);
        }
        if let Some(c) = &self.build_constraints {
            let c = resolve(c);
            if !c.is_file() {
                return Err(format!("{}: no such build constraints file", c.display()));
            }
            self.build_constraints = Some(c);
        }
        Ok(())
    }

    fn key_inputs(&self, repo: &str) -> Result<KeyInputs, EnvError> {
        let version = pythons::for_request(repo, self.python.as_deref())?.version;
        let mut facts = vec![version];
        // Which file is which (a spec without constraints keeps its key).
        if self.build_constraints.is_some() {
            facts.push(format!(
                "build constraints last of {}",
                1 + usize::from(self.requirements.is_some())
            ));
        }
        Ok(KeyInputs {
            facts,
            files: self
                .requirements
                .iter()
                .chain(&self.build_constraints)
                .cloned()
                .collect(),
        })
    }

    fn build(
        &self,
        cache: &EnvCache,
        runner: &Runner,
        repo: &str,
        key: &str,
        tmp: &Path,
    ) -> Result<bool, EnvError> {
        let interpreter = pythons::for_request(repo, self.python.as_deref())?;
        if super::python2::is_python2(&interpreter.version) {
            return super::python2::build(self, cache, runner, repo, key, tmp, &interpreter.exe);
        }
        let python = interpreter.exe;
        let uv = cache.require_uv()?;
        fs::create_dir_all(&cache.uv_cache).map_err(|source| EnvError::Write {
            path: cache.uv_cache.clone(),
            source,
        })?;
        // What the steps read besides the environment being built: uv and the
        // interpreter's installation (under the private /tmp too).
        let mut readable: Vec<PathBuf> = vec![uv.clone()];
        if let Some(prefix) = fs::canonicalize(&python)
            .ok()
            .and_then(|p| p.parent()?.parent().map(Path::to_path_buf))
        {
            readable.push(prefix);
        }
        let venv = tmp.join("venv");
        let mut script = format!(
            "{} venv --quiet --relocatable --python {} {}",
            sh_quote(&uv),
            sh_quote(&python),
            sh_quote(&venv)
        );
        // Copied into the environment: the sandbox's /tmp hides the host's.
        let req_copy = tmp.join("requirements.txt");
        if self.requirements.is_some() {
            script.push_str(&format!(
                " && {} pip install --quiet --python {} --link-mode hardlink -r {}",
                sh_quote(&uv),
                sh_quote(venv.join("bin/python")),
                sh_quote(&req_copy)
            ));
        }
        let constraints_copy = tmp.join("build-constraints.txt");
        let prepare = || -> Result<(), EnvError> {
            super::fresh(tmp)?;
            let copies = [
                (&self.requirements, &req_copy),
                (&self.build_constraints, &constraints_copy),
            ];
            for (from, to) in copies {
                if let Some(from) = from {
                    fs::copy(from, to).map_err(|source| EnvError::Read {
                        path: from.clone(),
                        source,
                    })?;
                }
            }
            Ok(())
        };
        if let Some(cmd) = &self.install {
            script.push_str(&format!(" && ( {cmd} )"));
        }
        let mut vars: Vec<(OsString, OsString)> = vec![
            ("UV_CACHE_DIR".into(), cache.uv_cache.clone().into()),
            ("UV_LINK_MODE".into(), "hardlink".into()),
            ("UV_PYTHON_DOWNLOADS".into(), "never".into()),
            ("UV_NO_CONFIG".into(), "1".into()),
            ("VIRTUAL_ENV".into(), venv.clone().into()),
            ("HUNKGEN_UV".into(), uv.clone().into()),
            ("PATH".into(), prepend_path(&venv.join("bin"))),
        ];
        if self.build_constraints.is_some() {
            vars.push((
                "UV_BUILD_CONSTRAINT".into(),
                constraints_copy.clone().into(),
            ));
        }
        let offline_vars = {
            let mut v = vars.clone();
            v.push(("UV_OFFLINE".into(), "1".into()));
            v
        };
        cache.offline_first(prepare, |online| {
            cache.step(
                runner,
                repo,
                &format!("{key}-{}", if online { "online" } else { "offline" }),
                script.clone(),
                tmp,
                online,
                if online { &vars } else { &offline_vars },
                &readable,
                &[],
            )
        })
    }

    fn vars(&self, dir: &Path) -> Vec<(OsString, OsString)> {
        let venv = dir.join("venv");
        vec![
            ("VIRTUAL_ENV".into(), venv.clone().into()),
            ("PATH".into(), prepend_path(&venv.join("bin"))),
        ]
    }

    /// The base interpreter's installation the venv's `python` links to (it may be
    /// under `/tmp`, which the sandbox replaces).
    fn binds(&self, dir: &Path) -> Vec<PathBuf> {
        let cfg = fs::read_to_string(dir.join("venv/pyvenv.cfg")).unwrap_or_default();
        let home = cfg.lines().find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == "home").then(|| PathBuf::from(v.trim()))
        });
        home.as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .into_iter()
            .collect()
    }

    fn interpreter(&self, dir: &Path) -> Option<PathBuf> {
        Some(dir.join("venv/bin/python"))
    }
}
