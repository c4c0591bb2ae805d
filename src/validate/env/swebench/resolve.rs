//! The `swebench` kind's resolve step (docs/design/swebench-kind.md): the environment a
//! SWE-bench spec asks for, made without conda or Docker. The interpreter is the spec's
//! `X.Y` found on the machine (`unsupported_python` otherwise, never another version);
//! the packages are the spec's [`PipPlan`], installed by uv into a venv (the main set,
//! then `pip_packages` over it). The venv is keyed by the interpreter and the plan, so every (repo, version) whose spec
//! installs the same packages shares it; the install step may use the network (as the
//! cache allows), runs never do.

use std::path::PathBuf;

use super::{pip_plan, PipPlan, SpecAnswer};
use crate::validate::env::auto::{build_era_constraint, failure_log};
use crate::validate::env::{
    content_file, pythons, sh_quote, BuiltEnv, EnvCache, EnvError, EnvSpec, PythonSpec,
};
use crate::validate::runner::Runner;

/// What the resolve step made for one spec.
#[derive(Debug, Clone)]
pub struct SwebenchEnv {
    /// The venv with the spec's packages (shared by every spec with the same plan).
    pub env: BuiltEnv,
    /// The packages as installed, with what was renamed and what only conda has.
    pub plan: PipPlan,
    /// The interpreter's full version (`3.9.18`).
    pub interpreter: String,
    /// Constraints put on sdist builds because one needed an older setuptools.
    pub build_constraints: Vec<String>,
}

impl EnvCache {
    /// The environment of a SWE-bench row's spec (see the module doc): `Err` names the
    /// step that failed (the spec itself, the interpreter, the plan, the install).
    pub fn ensure_swebench(
        &self,
        runner: &Runner,
        repo: &str,
        answer: &SpecAnswer,
    ) -> Result<SwebenchEnv, EnvError> {
        let failed = |why: String| EnvError::Swebench {
            repo: repo.to_string(),
            why,
        };
        if let Some(e) = &answer.error {
            return Err(failed(format!("the swebench package's spec: {e}")));
        }
        let python = answer.python.as_deref().ok_or_else(|| {
            failed(format!(
                "the spec of version {} names no Python",
                answer.version
            ))
        })?;
        let interpreter = pythons::for_request(repo, Some(python))?;
        let plan = pip_plan(answer).map_err(|e| failed(format!("its packages: {e}")))?;
        let mut text = plan.requirements.join("\n");
        text.push('\n');
        let dir = self.root.join("swebench");
        let file = content_file(&dir, "requirements", &text)?;
        // The spec's pip_packages: a second install over the main set, as the harness.
        let then = (!plan.then.is_empty()).then(|| {
            let quoted: Vec<String> = plan.then.iter().map(sh_quote).collect();
            format!("\"$HUNKGEN_UV\" pip install --quiet {}", quoted.join(" "))
        });
        let spec = |build_constraints: Option<PathBuf>| {
            EnvSpec::Python(PythonSpec {
                python: Some(python.to_string()),
                requirements: Some(file.clone()),
                install: then.clone(),
                build_constraints,
            })
        };
        // An old sdist that today's setuptools cannot build (conda would have installed
        // a binary): once more with the setuptools its setup.py needs, recorded.
        let (env, build_constraints) = match self.ensure(runner, repo, &spec(None)) {
            Ok(env) => (env, Vec::new()),
            Err(e) => {
                let Some(c) = build_era_constraint(&failure_log(&e)) else {
                    return Err(e);
                };
                let path = content_file(&dir, "build-constraints", &format!("{c}\n"))?;
                let env = self.ensure(runner, repo, &spec(Some(path)))?;
                (env, vec![c.to_string()])
            }
        };
        Ok(SwebenchEnv {
            env,
            plan,
            interpreter: interpreter.version,
            build_constraints,
        })
    }
}
