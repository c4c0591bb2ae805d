//! The `swebench` kind's resolve step (docs/design/swebench-kind.md): the environment a
//! SWE-bench spec asks for, made without conda or Docker. The interpreter is the spec's
//! `X.Y` found on the machine (`unsupported_python` otherwise, never another version);
//! the packages are the spec's [`PipPlan`], installed by uv into a venv (the main set,
//! then `pip_packages` over it). The venv is keyed by the interpreter and the plan, so every (repo, version) whose spec
//! installs the same packages shares it; the install step may use the network (as the
//! cache allows), runs never do.

use std::path::{Path, PathBuf};

use super::{is_system_command, pip_plan, PipPlan, SpecAnswer};
use crate::init::{normalize_distribution as normalize, requirement_name};
use crate::validate::env::auto::{build_era_constraint, failure_log, tag_version};
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
    /// What the venv got besides the plan: the installers a conda environment has from
    /// its creation (`pip`, `setuptools`, `wheel`) where the plan names none.
    pub added: Vec<String>,
    /// Pins of an exact plan PyPI could not give (see [`LEFT_OUT`]).
    pub left_out: Vec<String>,
}

/// The installers `conda create python=X.Y` puts into every environment; the runs'
/// install step (`pip install -e .`, no index, no build isolation) needs them. pip is
/// the harness's era's (its images were built in 2024, with pip 23–24): pip 25.3 dropped
/// the `setup.py develop` fallback for an editable install whose backend lacks
/// `build_editable` (setuptools before 64, pylint 2.15's pin), which the harness's pip
/// took.
const CONDA_SEEDS: &[(&str, &str)] = &[
    ("pip", "pip<25.3"),
    ("setuptools", "setuptools"),
    ("wheel", "wheel"),
];

/// The directory of the environment holding the setup tree's build requirements.
pub const BUILD_REQUIRES: &str = "build-requires";

/// Prints `pyproject.toml`'s `build-system.requires`, one per line (pip's vendored
/// tomli where the interpreter has no tomllib).
const READ_BUILD_REQUIRES: &str = "try:\n    import tomllib as t\nexcept ImportError:\n    from pip._vendor import tomli as t\nwith open('pyproject.toml', 'rb') as f:\n    print('\\n'.join(t.load(f).get('build-system', {}).get('requires', [])))\n";

/// The tree of `p.commit` at `tree`, exported under a temporary name of its own and
/// renamed (a thread that exported it first wins; its copy is the same).
fn export_once(p: ProjectAt<'_>, tree: &Path) -> Result<(), String> {
    let parent = tree.parent().ok_or("no parent directory")?;
    std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    let tmp = tempfile::Builder::new()
        .prefix(".tree.")
        .tempdir_in(parent)
        .map_err(|e| e.to_string())?;
    let dest = tmp.path().join("tree");
    crate::git::export_tree(p.repo_path, p.commit, None, &dest).map_err(|e| e.to_string())?;
    match std::fs::rename(&dest, tree) {
        Ok(()) => Ok(()),
        Err(_) if tree.is_dir() => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

/// The list of the environment's pins left out (see [`exact_step`]), in its directory.
pub const LEFT_OUT: &str = "left-out.txt";

/// The build step of an exact plan (the harness's export): each pin of `pins` installed
/// alone without its dependencies (the export is closed), so one that PyPI cannot give
/// (a conda-only build, a version PyPI never had) is left out and listed in
/// [`LEFT_OUT`] instead of failing the rest. Offline (uv's cache only), any pin missing
/// fails the step, so that it is tried again with the network.
fn exact_step(pins: &Path) -> String {
    format!(
        ": > {LEFT_OUT} && while IFS= read -r hunkgen_req || [ -n \"$hunkgen_req\" ]; do \
         case \"$hunkgen_req\" in ''|'#'*) continue;; esac; \
         \"$HUNKGEN_UV\" pip install --quiet --no-deps \"$hunkgen_req\" 2>> pins.log \
         || {{ if [ -n \"$UV_OFFLINE\" ]; then exit 1; fi; echo \"$hunkgen_req\" >> {LEFT_OUT}; }}; \
         done < {}",
        sh_quote(pins)
    )
}

/// The build step that installs the project at the setup commit with its dependencies
/// and uninstalls the project (see [`EnvCache::ensure_swebench`]).
fn project_deps_step(tree: &Path, answer: &SpecAnswer, version: &str) -> String {
    // The step runs in the directory the environment is built in.
    let mut s = format!(
        "export SETUPTOOLS_SCM_PRETEND_VERSION={} && hunkgen_top=\"$PWD\" && rm -rf project && cp -R {} project && cd project",
        sh_quote(version),
        sh_quote(tree)
    );
    for cmd in answer.pre_install.iter().filter(|c| !is_system_command(c)) {
        s.push_str(&format!(" && ( {cmd} )"));
    }
    let extras = answer
        .install
        .as_deref()
        .and_then(|i| {
            let at = i.find(".[")?;
            let end = i[at..].find(']')?;
            Some(i[at + 1..at + end + 1].to_string())
        })
        .unwrap_or_default();
    // pip builds a tree without pyproject.toml by running its setup.py in the
    // environment (the spec's setuptools), not in an isolated one with today's. A tree
    // with one is built in isolation from its `build-system.requires`: those go into
    // `build-requires/` beside the venv (never into it), which the runs' offline
    // install puts first on the path, as the isolated build environment would. They
    // take the environment's versions where it has the package (the harness's
    // isolated build got its era's setuptools, not today's, whose `develop` hands an
    // old tree's editable install back to pip, which cannot build offline), and
    // today's where the pins cannot hold.
    s.push_str(&format!(
        " && if [ -f pyproject.toml ]; then hunkgen_iso= \
         && python -c {} > \"$hunkgen_top/build-requires.txt\" \
         && if [ -s \"$hunkgen_top/build-requires.txt\" ]; then \
         \"$HUNKGEN_UV\" pip freeze | grep '==' > \"$hunkgen_top/env-pins.txt\"; \
         {{ \"$HUNKGEN_UV\" pip install --quiet --target \"$hunkgen_top/{BUILD_REQUIRES}\" \
         -r \"$hunkgen_top/build-requires.txt\" -c \"$hunkgen_top/env-pins.txt\" \
         || \"$HUNKGEN_UV\" pip install --quiet --target \"$hunkgen_top/{BUILD_REQUIRES}\" \
         -r \"$hunkgen_top/build-requires.txt\"; }}; fi; \
         else hunkgen_iso=--no-build-isolation; fi",
        sh_quote(READ_BUILD_REQUIRES)
    ));
    s.push_str(&format!(
        " && cd \"$hunkgen_top\" && \"$HUNKGEN_UV\" pip install --quiet $hunkgen_iso {} \
         && hunkgen_name=$(\"$HUNKGEN_UV\" pip freeze | sed -n 's| @ file://.*/project$||p' | head -n 1) \
         && rm -rf project \
         && if [ -n \"$hunkgen_name\" ]; then \"$HUNKGEN_UV\" pip uninstall --quiet \"$hunkgen_name\"; fi",
        sh_quote(format!("./project{extras}"))
    ));
    s
}

/// The repository whose dependencies the environment gets, at `environment_setup_commit`.
#[derive(Debug, Clone, Copy)]
pub struct ProjectAt<'a> {
    /// The git repository.
    pub repo_path: &'a Path,
    /// The commit (the row's `environment_setup_commit`).
    pub commit: &'a str,
}

impl EnvCache {
    /// The environment of a SWE-bench row's spec (see the module doc): `Err` names the
    /// step that failed (the spec itself, the interpreter, the plan, the install).
    ///
    /// With `project`, the environment also gets what the spec's install step would
    /// pull from the network: the project at that commit is installed (after the spec's
    /// tree-editing `pre_install`, with the install's extras), then uninstalled, which
    /// leaves its dependencies; the runs install the working copy itself with no index
    /// and no dependencies. Keyed by the commit too (one environment per repo × version,
    /// as the harness's images).
    pub fn ensure_swebench(
        &self,
        runner: &Runner,
        repo: &str,
        answer: &SpecAnswer,
        project: Option<ProjectAt<'_>>,
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
        let named: Vec<String> = plan
            .requirements
            .iter()
            .chain(&plan.then)
            .map(|r| normalize(requirement_name(r.trim())))
            .collect();
        let added: Vec<String> = CONDA_SEEDS
            .iter()
            .filter(|(name, _)| !named.iter().any(|n| n == name))
            .map(|(_, req)| req.to_string())
            .collect();
        let mut text = plan
            .requirements
            .iter()
            .chain(&added)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n");
        text.push('\n');
        let dir = self.swebench_dir();
        // The spec's pip_packages: a second install over the main set, as the harness.
        let mut steps: Vec<String> = Vec::new();
        let pins = if plan.exact {
            let pins = content_file(&dir, "pins", &text)?;
            steps.push(exact_step(&pins));
            Some(pins)
        } else {
            None
        };
        if !plan.then.is_empty() {
            let quoted: Vec<String> = plan.then.iter().map(sh_quote).collect();
            steps.push(format!(
                "\"$HUNKGEN_UV\" pip install --quiet {}",
                quoted.join(" ")
            ));
        }
        if let Some(p) = project {
            let tree = dir.join("trees").join(p.commit);
            if !tree.is_dir() {
                export_once(p, &tree)
                    .map_err(|e| failed(format!("exporting {}: {e}", p.commit)))?;
            }
            text.push_str(&format!(
                "# and the dependencies of {repo} at {}\n",
                p.commit
            ));
            let version = tag_version(p.repo_path, p.commit, None);
            steps.push(project_deps_step(&tree, answer, &version));
        }
        // An exact plan's pins are installed by its step, not resolved as requirements.
        let file = match pins {
            Some(_) => None,
            None => Some(content_file(&dir, "requirements", &text)?),
        };
        let then = (!steps.is_empty()).then(|| steps.join(" && "));
        let spec = |build_constraints: Option<PathBuf>| {
            EnvSpec::Python(PythonSpec {
                python: Some(python.to_string()),
                requirements: file.clone(),
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
        let left_out = std::fs::read_to_string(env.dir.join(LEFT_OUT))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect();
        Ok(SwebenchEnv {
            env,
            plan,
            left_out,
            interpreter: interpreter.version,
            build_constraints,
            added,
        })
    }
}
