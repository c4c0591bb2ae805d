//! `python: auto`, resolve: the dependencies of what a tree declares, resolved for the
//! chosen interpreter down the ladder (pinned to the commit's date, exempt, unpinned)
//! and built into a venv shared by every commit that resolves alike; each commit's
//! resolution cached.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::super::{content_file, sh_quote, BuiltEnv, EnvCache, EnvError, EnvSpec, PythonSpec};
use super::super::{python2, pythons};
use super::direct::direct_fetch_failed;
use super::failures::{
    build_era_constraint, failing_packages, failure_log, host_failure, including_packages,
};
use super::{choose, direct_reference_name, AutoEnv, Declared};
use crate::init::normalize_distribution as normalize;
use crate::init::requirement_name;
use crate::validate::runner::Runner;

/// How many failing packages the ladder exempts from the date pin before it resolves
/// unpinned. Failures come in chains: pyjwt's 2015 tree on Python 3.6 failed on
/// cryptography, then cffi, then pycparser (its 2016 tree on cryptography, pycrypto,
/// setuptools); with 2 both went unpinned, to today's pytest, which refuses their
/// `[pytest]` section.
pub const MAX_EXEMPT: usize = 4;

/// The cut-off given to exempt packages: later than any release, so their newest is
/// taken (fixed, so a resolution does not depend on the day it ran).
pub const NEWEST: &str = "2100-01-01T00:00:00Z";
/// Which rung of the ladder gave an environment that installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Every dependency at its release of the commit's date (setuptools too).
    Pinned,
    /// Pinned, with the packages named in `exempt` at their newest.
    Exempt,
    /// Nothing pinned: today's releases.
    Unpinned,
}

/// A project's build file given to `uv pip compile` beside the requirements: its backend
/// computes the dependencies, with these extras, under this interpreter.
#[derive(Clone, Copy)]
struct ProjectBuild<'a> {
    /// The exported tree (bound read-only into the sandbox).
    tree: &'a Path,
    file: &'a Path,
    extras: &'a [String],
    python: &'a Path,
}

/// `validation.python.metadata` for a backend that answered: its file, the extras asked,
/// and the dependencies it named that the static reading (`declared`) did not.
fn backend_said(
    b: &super::Backend,
    extras: &[String],
    names: &[String],
    declared: &[String],
) -> String {
    let missed: Vec<&str> = names
        .iter()
        .filter(|n| {
            !declared
                .iter()
                .any(|r| normalize(requirement_name(r.trim())) == **n)
        })
        .map(String::as_str)
        .collect();
    let mut said = format!("{}'s build backend", b.file);
    if !extras.is_empty() {
        said.push_str(&format!(", extras {}", extras.join(", ")));
    }
    if !missed.is_empty() {
        said.push_str(&format!(
            " (beyond the static reading: {})",
            missed.join(", ")
        ));
    }
    said
}

/// The next rung after a failure at (`step`, `exempt`), given the packages the failure
/// names: exempt the first new one while fewer than [`MAX_EXEMPT`] are, else unpinned;
/// `None` after unpinned.
pub fn next_rung(step: Step, exempt: &[String], failing: &[String]) -> Option<(Step, Vec<String>)> {
    match step {
        Step::Unpinned => None,
        _ => {
            let new = failing.iter().find(|f| !exempt.contains(f));
            match new {
                Some(f) if exempt.len() < MAX_EXEMPT => {
                    let mut e = exempt.to_vec();
                    e.push(f.clone());
                    Some((Step::Exempt, e))
                }
                _ => Some((Step::Unpinned, Vec::new())),
            }
        }
    }
}

/// The version pinned for `package` in exact requirements (`pytest==6.1.2`).
pub fn pinned_version(requirements: &str, package: &str) -> Option<String> {
    requirements.lines().find_map(|l| {
        let (name, version) = l.split(';').next()?.split_once("==")?;
        (normalize(name.trim()) == normalize(package)).then(|| version.trim().to_string())
    })
}

/// A commit's resolution as cached: the record and the exact requirements it installed
/// (or the failure of the whole ladder).
#[derive(Debug, Clone, Serialize, Deserialize)]
enum Resolved {
    /// The ladder's rung that worked and the requirements it resolved.
    Ok {
        record: Box<crate::model::PythonRecord>,
        requirements: String,
    },
    /// Every rung failed: the last error.
    Failed(String),
}

/// What a resolution gives: the record, the requirements installed, the environment.
type Outcome = (crate::model::PythonRecord, String, BuiltEnv);

/// A Python 2 tree's environment (see [`python2`]): the declared requirements as they
/// are, installed by pip 20.3 from the newest releases that support 2.7; when that
/// fails, once more without the development-only requirements no test imports (pip's
/// failures name no package as uv's do). `Err` only for what no retry changes.
fn python2_ladder(
    d: &Declared,
    choice: &super::Choice,
    build: impl Fn(&str) -> Result<BuiltEnv, EnvError>,
) -> Result<Result<Outcome, EnvError>, EnvError> {
    let mut requirements = d.requirements.clone();
    let mut dropped: Vec<String> = Vec::new();
    let mut tried: Vec<String> = Vec::new();
    loop {
        let mut text = requirements.join("\n");
        text.push('\n');
        match build(&text) {
            Ok(env) => {
                let record = crate::model::PythonRecord {
                    version: choice.interpreter.version.clone(),
                    chosen: choice.why.clone(),
                    step: "python2".into(),
                    pinned_to: None,
                    exempt: Vec::new(),
                    undeclared: kept(&d.undeclared, &dropped),
                    dropped,
                    test_era: None,
                    metadata: None,
                    build_constraints: Vec::new(),
                    tried,
                    added_by_changes: d.added_by_changes.clone(),
                };
                return Ok(Ok((record, text, env)));
            }
            Err(e @ (EnvError::Step { .. } | EnvError::Auto { .. })) => {
                let droppable: Vec<String> = requirements
                    .iter()
                    .map(|r| normalize(requirement_name(r.trim())))
                    .filter(|n| d.droppable.contains(n))
                    .collect();
                if droppable.is_empty() {
                    return Ok(Err(e));
                }
                tried.push(format!(
                    "python2 failed: dropped the development-only {}",
                    droppable.join(", ")
                ));
                requirements
                    .retain(|r| !droppable.contains(&normalize(requirement_name(r.trim()))));
                dropped.extend(droppable);
            }
            Err(e) => return Err(e),
        }
    }
}

impl EnvCache {
    /// The environment `python: auto` infers for a tree that declares `d` (see the
    /// module doc): the interpreter chosen, the dependencies resolved for it pinned to the
    /// commit's date down the ladder, and the venv built from the exact requirements
    /// (shared by every commit that resolves alike). Each commit's resolution is cached,
    /// failures included, so a warm rebuild runs no uv.
    pub fn ensure_auto(
        &self,
        runner: &Runner,
        repo: &str,
        d: &Declared,
    ) -> Result<AutoEnv, EnvError> {
        let found = pythons::discover_in(Some(&self.root.join("pythons")));
        let choice = choose(d, found).map_err(|n| match n.python2_only {
            true => EnvError::Python2Only {
                repo: repo.to_string(),
                versions: n.needs,
            },
            false => EnvError::UnsupportedPython {
                repo: repo.to_string(),
                requested: n.needs,
                available: found
                    .iter()
                    .map(|f| f.version.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            },
        })?;
        let version = choice.interpreter.version.clone();
        let date = choice.pin_date.to_le_bytes();
        // An interpreter newer than the commit (none of its era is here) pins everything
        // to its own release date; the libraries only the tests use are first taken as
        // of the commit's date, whose API the tree calls (`lists(average_size=…)` was
        // removed from hypothesis two years after trees that call it).
        let commit_day = crate::dataset::rfc3339(d.date);
        let mut era: Vec<String> = match choice.pin_date > d.date {
            true => d.test_libraries.clone(),
            false => Vec::new(),
        };
        let mut parts: Vec<&[u8]> = vec![
            // v2: the ladder also exempts a package with no release before the cutoff;
            // v3: up to 4 packages, not 2; v4: sdists that use `use_2to3` are built
            // with an old setuptools (a v3 failure on them is not reused).
            b"hunkgen-auto-v4",
            repo.as_bytes(),
            version.as_bytes(),
            &date,
        ];
        parts.extend(d.requirements.iter().map(String::as_bytes));
        // What may be dropped changes what resolves; trees with none keep their keys.
        if !d.droppable.is_empty() {
            parts.push(b"droppable");
            parts.extend(d.droppable.iter().map(String::as_bytes));
        }
        // A direct reference may be taken from the index ([`direct_reference_name`]);
        // trees with none keep their keys.
        if d.requirements
            .iter()
            .any(|r| direct_reference_name(r).is_some())
        {
            parts.push(b"direct-from-index");
        }
        if !era.is_empty() {
            parts.push(b"test-era");
            parts.extend(era.iter().map(String::as_bytes));
        }
        // So does what the build backend says.
        if let Some(b) = &d.backend {
            parts.push(b"backend");
            parts.push(b.file.as_bytes());
            parts.extend(b.extras.iter().map(String::as_bytes));
            parts.push(b.digest.as_bytes());
        }
        let key = crate::cache::Key::of(&parts);
        let hex: String = key.as_str().chars().take(16).collect();
        let resolved_dir = self.root.join("resolved");
        let memos = crate::cache::Cache::new(&resolved_dir);
        let write_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| EnvError::Write { path, source }
        };
        let cached: Option<Resolved> = memos
            .get(&key)
            .and_then(|b| serde_json::from_slice(&b).ok());
        let build = |requirements: &str, constraints: &[String]| -> Result<BuiltEnv, EnvError> {
            let build_constraints = match constraints.is_empty() {
                true => None,
                false => Some(content_file(
                    &resolved_dir,
                    "build-constraints",
                    &format!("{}\n", constraints.join("\n")),
                )?),
            };
            self.ensure(
                runner,
                repo,
                &EnvSpec::Python(PythonSpec {
                    python: Some(version.clone()),
                    requirements: Some(content_file(&resolved_dir, "requirements", requirements)?),
                    install: None,
                    build_constraints,
                }),
            )
        };
        // The pinned pytest, or (Python 2: nothing pinned) the one installed.
        let done =
            |record: crate::model::PythonRecord, requirements: &str, env: BuiltEnv| AutoEnv {
                pytest: pinned_version(requirements, "pytest")
                    .or_else(|| python2::installed_version(&env.dir, "pytest")),
                env,
                record,
                pythonpath: d.pythonpath.clone(),
                generated: d.generated.clone(),
            };
        match cached {
            Some(Resolved::Ok {
                record,
                requirements,
            }) => {
                return build(&requirements, &record.build_constraints)
                    .map(|env| done(*record, &requirements, env))
            }
            Some(Resolved::Failed(why)) => {
                return Err(EnvError::Auto {
                    repo: repo.to_string(),
                    why,
                })
            }
            None => {}
        }
        fs::create_dir_all(&resolved_dir).map_err(write_err(&resolved_dir))?;
        if python2::is_python2(&version) {
            let outcome = python2_ladder(d, &choice, |r: &str| build(r, &[]))?;
            return self.remember(&memos, &key, outcome, &resolved_dir, done);
        }
        let cutoff = crate::dataset::rfc3339(choice.pin_date);
        let (mut rung, mut exempt) = (Step::Pinned, Vec::<String>::new());
        let mut tried = Vec::new();
        // The requirements resolved: the declared ones, less those dropped.
        let mut requirements = d.requirements.clone();
        let mut dropped: Vec<String> = Vec::new();
        // Constraints on the sdist build tools each failure asked for, in order; the
        // last one holds (a later, stricter one replaces an earlier).
        let mut eras_tried: Vec<&str> = Vec::new();
        // The project's build backend, asked once (pinned to the date) for the
        // dependencies with the test extras; static reading alone when it cannot say.
        let tree = match &d.backend {
            Some(b) => Some(self.export_project(repo, &hex, b)?),
            None => None,
        };
        let mut backend_names: Vec<String> = Vec::new();
        let (mut project, mut metadata) = match (&d.backend, &tree) {
            (Some(b), Some((work, file))) => {
                let asked = ProjectBuild {
                    tree: work.path(),
                    file,
                    extras: &b.extras,
                    python: &choice.interpreter.exe,
                };
                match self.probe_backend(runner, repo, &hex, &version, asked, &cutoff) {
                    Ok((extras, names)) => {
                        // The static reading, without the undeclared imports: what the
                        // backend names of those it declares after all.
                        let read: Vec<String> = d
                            .requirements
                            .iter()
                            .filter(|r| {
                                !d.undeclared
                                    .contains(&normalize(requirement_name(r.trim())))
                            })
                            .cloned()
                            .collect();
                        let said = backend_said(b, &extras, &names, &read);
                        backend_names = names;
                        (Some((work.path(), file.as_path(), extras)), Some(said))
                    }
                    Err(why) => (
                        None,
                        Some(format!(
                            "static reading of the build files: {}'s build backend failed: {why}",
                            b.file
                        )),
                    ),
                }
            }
            _ => (None, None),
        };
        let outcome = loop {
            let constraints: Vec<String> = eras_tried
                .last()
                .map(|c| c.to_string())
                .into_iter()
                .collect();
            let pinned = (rung != Step::Unpinned).then_some(cutoff.as_str());
            // Exempt packages by name, then the test libraries' own cut-off as flags (an
            // exempt one is at its newest instead).
            let mut args = exempt.clone();
            args.extend(
                era.iter()
                    .filter(|l| !exempt.contains(l))
                    .map(|l| format!("--exclude-newer-package={l}={commit_day}")),
            );
            let attempt = self
                .compile(
                    runner,
                    repo,
                    &hex,
                    &version,
                    &requirements,
                    project.as_ref().map(|(tree, file, extras)| ProjectBuild {
                        tree,
                        file,
                        extras,
                        python: &choice.interpreter.exe,
                    }),
                    pinned,
                    &args,
                    &constraints,
                )
                .and_then(|reqs| build(&reqs, &constraints).map(|env| (reqs, env)));
            let failure = match attempt {
                Ok((requirements, env)) => {
                    let record = crate::model::PythonRecord {
                        version: version.clone(),
                        chosen: choice.why.clone(),
                        step: match rung {
                            Step::Pinned => "pinned",
                            Step::Exempt => "exempt",
                            Step::Unpinned => "unpinned",
                        }
                        .into(),
                        pinned_to: pinned.map(str::to_string),
                        exempt: exempt.clone(),
                        dropped: dropped.clone(),
                        test_era: (!era.is_empty()).then(|| {
                            format!(
                                "{} as of {commit_day}, the commit's date (the interpreter is newer)",
                                era.join(", ")
                            )
                        }),
                        metadata: metadata.clone(),
                        build_constraints: constraints.clone(),
                        tried: tried.clone(),
                        added_by_changes: d.added_by_changes.clone(),
                        undeclared: kept(&d.undeclared, &dropped)
                            .into_iter()
                            .filter(|u| !backend_names.contains(u))
                            .collect(),
                    };
                    break Ok((record, requirements, env));
                }
                Err(e @ (EnvError::Step { .. } | EnvError::Auto { .. })) => e,
                Err(e) => return Err(e),
            };
            let log = failure_log(&failure);
            // A direct reference that cannot be fetched: the same rung with the
            // package from the index, pinned like the rest (recorded in `tried`).
            let unfetched: Vec<(usize, String)> = requirements
                .iter()
                .enumerate()
                .filter_map(|(i, r)| Some((i, direct_reference_name(r)?)))
                .filter(|(i, _)| direct_fetch_failed(&log, &requirements[*i]))
                .collect();
            if !unfetched.is_empty() {
                for (i, name) in unfetched {
                    tried.push(format!(
                        "{} failed fetching {}: {name} from the index instead",
                        format!("{rung:?}").to_lowercase(),
                        requirements[i].trim()
                    ));
                    requirements[i] = name;
                }
                continue;
            }
            let failing = failing_packages(&log);
            // A development-only requirement no test imports, failing itself or pulling
            // the failing package in, is dropped and the same rung tried again.
            let drop = failing
                .iter()
                .chain(&including_packages(&log))
                .find(|p| d.droppable.contains(p) && !dropped.contains(p))
                .cloned();
            if let Some(p) = drop {
                requirements.retain(|r| normalize(requirement_name(r.trim())) != p);
                tried.push(format!("{rung:?} failed on {p}: dropped").to_lowercase());
                dropped.push(p);
                continue;
            }
            // A package that builds only with older build tools: the same rung with
            // them constrained (each constraint once; a later one replaces an earlier).
            if let Some(c) = build_era_constraint(&log).filter(|c| !eras_tried.contains(c)) {
                eras_tried.push(c);
                let who = failing.first().map(String::as_str).unwrap_or("an sdist");
                tried.push(format!(
                    "{} failed on {who}: its setup.py needs an older setuptools; retried building sdists with {c}",
                    format!("{rung:?}").to_lowercase()
                ));
                continue;
            }
            // The project's own build failed on this rung (a setup.py that today's
            // tools cannot run unpinned): the static reading from here on.
            if project.is_some() && failing.is_empty() && log.contains("build backend") {
                tried
                    .push(format!("{rung:?} failed in the project's build backend").to_lowercase());
                project = None;
                if let Some(b) = &d.backend {
                    metadata = Some(format!(
                        "static reading of the build files: {}'s build backend failed on a later rung",
                        b.file
                    ));
                }
                continue;
            }
            // The test libraries of the commit's date do not resolve or build with the
            // rest (or the failure names nothing): the same rung without them.
            if !era.is_empty() && (failing.is_empty() || failing.iter().any(|f| era.contains(f))) {
                tried.push(format!(
                    "{} with {} as of the commit failed",
                    format!("{rung:?}").to_lowercase(),
                    era.join(", ")
                ));
                era.clear();
                continue;
            }
            // Named: the package this failure adds to the exempt ones (an exempt one may
            // fail again, and uv names it first).
            let new = failing.iter().find(|f| !exempt.contains(f));
            tried.push(match new.or(failing.first()) {
                Some(f) => format!("{rung:?} failed on {f}").to_lowercase(),
                None => format!("{rung:?} failed").to_lowercase(),
            });
            match next_rung(rung, &exempt, &failing) {
                Some((r, e)) => {
                    rung = r;
                    exempt = e;
                }
                None => break Err(failure),
            }
        };
        self.remember(&memos, &key, outcome, &resolved_dir, done)
    }

    /// Caches a commit's resolution (a failure too, so a warm rebuild runs nothing) and
    /// gives its environment.
    fn remember(
        &self,
        memos: &crate::cache::Cache,
        key: &crate::cache::Key,
        outcome: Result<Outcome, EnvError>,
        resolved_dir: &Path,
        done: impl Fn(crate::model::PythonRecord, &str, BuiltEnv) -> AutoEnv,
    ) -> Result<AutoEnv, EnvError> {
        let memo = match &outcome {
            Ok((record, requirements, _)) => Some(Resolved::Ok {
                record: Box::new(record.clone()),
                requirements: requirements.clone(),
            }),
            // A full disk is the host's failure, not the tree's: not remembered, so the
            // next build resolves again.
            Err(e) if host_failure(&failure_log(e)) || host_failure(&e.to_string()) => None,
            // So is a missing or unusable tool (uv, virtualenv): installing it cures every
            // key that failed for it.
            Err(EnvError::MissingTool { .. }) => None,
            Err(e) => Some(Resolved::Failed(e.to_string())),
        };
        if let Some(memo) = memo {
            let bytes = serde_json::to_vec(&memo).unwrap_or_default();
            memos.put(key, &bytes).map_err(|source| EnvError::Write {
                path: resolved_dir.to_path_buf(),
                source,
            })?;
        }
        outcome.map(|(record, requirements, env)| done(record, &requirements, env))
    }

    /// The base tree of `b` exported under the cache (kept while the returned directory
    /// lives), and its build file's path there.
    fn export_project(
        &self,
        repo: &str,
        tag: &str,
        b: &super::Backend,
    ) -> Result<(crate::lock::WorkDir, PathBuf), EnvError> {
        let work = crate::lock::WorkDir::reserve(&self.root, &format!("tree-{tag}")).map_err(
            |source| EnvError::Write {
                path: self.root.clone(),
                source,
            },
        )?;
        crate::git::export_tree(&b.repo, &b.rev, None, work.path()).map_err(|e| {
            EnvError::Auto {
                repo: repo.to_string(),
                why: format!("exporting {} for its build backend: {e}", b.rev),
            }
        })?;
        let file = work.path().join(&b.file);
        Ok((work, file))
    }

    /// Asks the build backend of `asked` (in an exported tree) for the project's direct
    /// dependencies with its extras, pinned to `cutoff` (`uv pip compile --no-deps`, in
    /// the sandbox: the backend runs the project's code). An extra the backend says it
    /// does not provide is left out and the question asked again. The extras kept and
    /// the dependencies' names, or the backend's first error line.
    #[allow(clippy::too_many_arguments)]
    fn probe_backend(
        &self,
        runner: &Runner,
        repo: &str,
        tag: &str,
        version: &str,
        asked: ProjectBuild<'_>,
        cutoff: &str,
    ) -> Result<(Vec<String>, Vec<String>), String> {
        let mut extras = asked.extras.to_vec();
        loop {
            let asked = self.compile(
                runner,
                repo,
                &format!("{tag}-backend"),
                version,
                &[],
                Some(ProjectBuild {
                    extras: &extras,
                    ..asked
                }),
                Some(cutoff),
                &["--no-deps".to_string()],
                &[],
            );
            let e = match asked {
                Ok(text) => {
                    let names = text
                        .lines()
                        .map(|l| l.split('#').next().unwrap_or_default().trim())
                        .filter(|l| !l.is_empty() && !l.starts_with('-'))
                        .map(|l| normalize(requirement_name(l)))
                        .collect();
                    return Ok((extras, names));
                }
                Err(e) => e,
            };
            let log = failure_log(&e);
            let missing = log.lines().find_map(|l| {
                l.split_once("Requested extra not found: ")
                    .map(|(_, x)| x.trim().to_string())
            });
            match missing {
                Some(x) if extras.contains(&x) => extras.retain(|e| *e != x),
                _ => {
                    // uv's error and its first cause (`Call to
                    // setuptools.build_meta… failed`), as one line.
                    let said: Vec<&str> = log
                        .lines()
                        .map(str::trim)
                        .filter(|l| l.starts_with("error:") || l.starts_with("cause:"))
                        .take(2)
                        .collect();
                    return Err(match said.is_empty() {
                        true => "uv failed".to_string(),
                        false => said.join(" ").chars().take(240).collect(),
                    });
                }
            }
        }
    }

    /// `uv pip compile` of `requirements` (and of `project`'s build file with its extras,
    /// through its build backend) for Python `version` on Linux: pinned to `cutoff`
    /// (`exempt` at their newest; an entry starting with `--` is a flag) or unpinned;
    /// against the index when the network is allowed, else from uv's cache. The exact
    /// requirements.
    #[allow(clippy::too_many_arguments)]
    fn compile(
        &self,
        runner: &Runner,
        repo: &str,
        tag: &str,
        version: &str,
        requirements: &[String],
        project: Option<ProjectBuild<'_>>,
        cutoff: Option<&str>,
        exempt: &[String],
        build_constraints: &[String],
    ) -> Result<String, EnvError> {
        let uv = self.require_uv()?;
        let write_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| EnvError::Write { path, source }
        };
        fs::create_dir_all(&self.uv_cache).map_err(write_err(&self.uv_cache))?;
        let work = crate::lock::WorkDir::reserve(&self.root, &format!("resolve-{tag}"))
            .map_err(write_err(&self.root))?;
        let dir = work.path().to_path_buf();
        fs::create_dir_all(&dir).map_err(write_err(&dir))?;
        let input = dir.join("requirements.in");
        let mut text = requirements.join("\n");
        text.push('\n');
        fs::write(&input, text).map_err(write_err(&input))?;
        let output = dir.join("requirements.txt");
        let mut script = format!(
            "{} pip compile --quiet --no-header --no-annotate --python-version {} \
             --python-platform linux -o {} {}",
            sh_quote(&uv),
            sh_quote(version),
            sh_quote(&output),
            sh_quote(&input)
        );
        if let Some(p) = &project {
            // The backend writes into the tree (setuptools' egg-info): it runs in a copy
            // in this step's own directory, under the chosen interpreter (not whichever
            // uv finds).
            let copy = dir.join("project");
            let file = copy.join(p.file.strip_prefix(p.tree).unwrap_or(p.file));
            script = format!(
                "cp -R {} {} && {script} --python {} {}",
                sh_quote(p.tree),
                sh_quote(&copy),
                sh_quote(p.python),
                sh_quote(&file)
            );
            for e in p.extras {
                script.push_str(&format!(" --extra {}", sh_quote(e)));
            }
        }
        for flag in exempt.iter().filter(|e| e.starts_with("--")) {
            script.push_str(&format!(" {}", sh_quote(flag)));
        }
        if let Some(cutoff) = cutoff {
            script.push_str(&format!(" --exclude-newer {}", sh_quote(cutoff)));
            for p in exempt.iter().filter(|e| !e.starts_with("--")) {
                script.push_str(&format!(
                    " --exclude-newer-package {}",
                    sh_quote(format!("{p}={}", NEWEST))
                ));
            }
        }
        // Online when allowed: offline, uv resolves among the versions whose metadata
        // happens to be cached, which is not what the cut-off gives. Offline (no network
        // for setup), the answer is the cache's: a cache seeded for the dates resolves
        // as the index would.
        let online = self.allow_network;
        let mut vars: Vec<(OsString, OsString)> = vec![
            ("UV_CACHE_DIR".into(), self.uv_cache.clone().into()),
            ("UV_PYTHON_DOWNLOADS".into(), "never".into()),
            ("UV_NO_CONFIG".into(), "1".into()),
        ];
        if !online {
            vars.push(("UV_OFFLINE".into(), "1".into()));
        }
        if !build_constraints.is_empty() {
            let file = dir.join("build-constraints.txt");
            let mut text = build_constraints.join("\n");
            text.push('\n');
            fs::write(&file, text).map_err(write_err(&file))?;
            vars.push(("UV_BUILD_CONSTRAINT".into(), file.into()));
        }
        let mut readable: Vec<PathBuf> = self.uv.iter().cloned().collect();
        // The tree and the interpreter's installation, for a build backend run under it.
        if let Some(p) = &project {
            readable.push(p.tree.to_path_buf());
        }
        if let Some(prefix) = project.as_ref().and_then(|p| {
            fs::canonicalize(p.python)
                .ok()
                .and_then(|e| e.parent()?.parent().map(Path::to_path_buf))
        }) {
            readable.push(prefix);
        }
        let log = format!(
            "resolve-{tag}-{}",
            if online { "online" } else { "offline" }
        );
        self.step(
            runner,
            repo,
            &log,
            script,
            &dir,
            online,
            &vars,
            &readable,
            &[],
        )?;
        fs::read_to_string(&output).map_err(|source| EnvError::Read {
            path: output,
            source,
        })
    }
}

/// Of `undeclared`, those not `dropped`: what the environment installed for them.
fn kept(undeclared: &[String], dropped: &[String]) -> Vec<String> {
    undeclared
        .iter()
        .filter(|u| !dropped.contains(u))
        .cloned()
        .collect()
}
