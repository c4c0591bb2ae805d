//! One run of the golden tests on one tree of a candidate: answered from the run cache
//! when its key (tree, patches, environment, command, rerun) was seen, else made in a
//! fresh working copy, in the sandbox, and cached.

use super::{GitBase, ReportKind, Scope, StageError, Suite, TreeKind, Validator};
use crate::cache::Key;
use crate::diff::Patch;
use crate::source::Candidate;
use crate::validate::apply::{apply_fuzzy, apply_to_dir_in};
use crate::validate::env::{sh_quote, BuiltEnv, Selected};
use crate::validate::parse::{self, IdStyle, InfraFailure, InfraKind, RunResult};
use crate::validate::runner::{Command, RunSpec};
use crate::validate::select::{
    python_files, reached_by_data_files, reached_by_support_files, relevant_collection_errors,
    support_file, workdir_prefix,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// One run: (answered from the cache, seconds, result, failing tests' messages).
pub(super) type Ran = (
    bool,
    f64,
    RunResult,
    BTreeMap<String, crate::model::Failure>,
);

/// A cached run: the parsed result, its failing tests' messages and its log text.
#[derive(Serialize, Deserialize)]
struct CachedRun {
    result: RunResult,
    seconds: f64,
    log: String,
    #[serde(default)]
    failures: BTreeMap<String, crate::model::Failure>,
    /// The limit a timed-out run had: its timeout answers only runs with a limit no
    /// longer than this (`None`, from before timeouts were cached: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timeout_limit: Option<f64>,
}

impl CachedRun {
    /// Whether this entry answers a run limited to `limit`: any finished run does; a
    /// timeout only when it had at least that long.
    fn answers(&self, limit: Duration) -> bool {
        let timed_out = matches!(&self.result, RunResult::Infra(f) if f.kind == InfraKind::Timeout);
        !timed_out || self.timeout_limit.is_some_and(|l| l >= limit.as_secs_f64())
    }
}

/// What one run is: the candidate, its base, which tree, which rerun, which suite in
/// which environment, and where its log goes.
pub(super) struct RunArgs<'r> {
    pub(super) c: &'r Candidate,
    pub(super) base: &'r GitBase<'r>,
    pub(super) kind: TreeKind,
    pub(super) rerun: usize,
    pub(super) suite: &'r Suite,
    pub(super) env: &'r BuiltEnv,
    /// The tests the suite runs, chosen by [`Validator::selection`] at setup.
    pub(super) selected: &'r Selection,
    pub(super) logs: &'r Path,
    pub(super) use_cache: bool,
    /// A system's patch applied last (exactly, else with offset and fuzz), for evaluation.
    pub(super) model: Option<&'r Patch>,
    /// Name of the run in its log file (default: the tree kind).
    pub(super) label: Option<&'r str>,
}

/// The tests a suite runs: shell-quoted files for `{tests}`, Java classes for the
/// default JUnit command (both empty: the whole suite, only with `scope: full`).
#[derive(Default)]
pub(super) struct Selection {
    files: String,
    /// The selected files as paths relative to the suite's workdir, unquoted.
    paths: Vec<String>,
    classes: Vec<String>,
    /// Variables set in front of the suite's command (`python: auto`: `PYTHONPATH` for
    /// the layout, the runner's options; [`crate::validate::env::AutoEnv::command_prefix`]).
    pub(super) prefix: String,
    /// Files written into the working copy before the run where absent (`python: auto`:
    /// what installing the project would add; [`crate::validate::env::AutoEnv`]).
    pub(super) generated: Vec<(String, String)>,
    /// The instance's own command, when the suite gives none (`env: swebench`).
    pub(super) command: Option<String>,
}

impl Selection {
    /// Whether `suite` has nothing to run: its command runs only the selection (`{tests}`
    /// files, or the default Java command's classes) and that is empty.
    pub(super) fn nothing_for(&self, suite: &Suite) -> bool {
        match &suite.command {
            Some(cmd) => cmd.contains("{tests}") && self.paths.is_empty(),
            // A default command runs the selected classes only.
            None => suite.env.kind().default_command_runs_classes() && self.classes.is_empty(),
        }
    }
}

/// What names one run: its command, its key in the run cache and its log file.
pub(super) struct RunName {
    command: Command,
    pub(super) key: Key,
    pub(super) log: std::path::PathBuf,
}

/// Where a run's reports go, inside its working directory.
const REPORT_DIR: &str = ".hunkgen-reports";

/// A cached run's log alone (the parsed result is skipped, not built).
#[derive(Deserialize)]
pub(super) struct CachedLog {
    pub(super) log: String,
}

impl Validator<'_> {
    /// The command, cache key and log file of a run, without running it.
    pub(super) fn run_name(&self, a: &RunArgs<'_>) -> Result<RunName, StageError> {
        let suite = a.suite;
        let workdir = suite.workdir.clone().unwrap_or_default();
        let selected = a.selected;
        let report_dir = REPORT_DIR;
        let command = match (&suite.command, &selected.command) {
            (None, Some(own)) => Command::Shell(own.clone()),
            (Some(cmd), _) => Command::Shell(format!(
                "{}{}",
                selected.prefix,
                cmd.replace("{tests}", &selected.files)
                    .replace("{report_dir}", report_dir)
            )),
            (None, None) => {
                match suite
                    .env
                    .kind()
                    .default_command(a.env, report_dir, &selected.classes)
                {
                    Some(c) => c.map_err(StageError::DefaultCommand)?,
                    None => {
                        return Err(StageError::NoCommand {
                            suite: suite.name.clone(),
                            kind: suite.env.kind().name(),
                        })
                    }
                }
            }
        };
        let test_patch = matches!(a.kind, TreeKind::Before | TreeKind::After);
        let patch = a.kind == TreeKind::After;
        // What is written into the working copy is part of the run, like its command
        // (and adds nothing to the key of a run that writes nothing).
        let command_key = match selected.generated.is_empty() {
            true => command.display(),
            false => format!(
                "{}\n{}",
                command.display(),
                serde_json::to_string(&selected.generated).unwrap_or_default()
            ),
        };
        let key = Key::of(&[
            b"hunkgen-run-v3",
            a.base.tree_id.as_bytes(),
            a.base
                .to_buggy
                .map(|p| p.to_bytes())
                .unwrap_or_default()
                .as_slice(),
            if test_patch {
                a.c.test_patch.to_bytes()
            } else {
                Vec::new()
            }
            .as_slice(),
            if patch {
                a.c.patch.to_bytes()
            } else {
                Vec::new()
            }
            .as_slice(),
            a.env.key.as_bytes(),
            command_key.as_bytes(),
            workdir.as_bytes(),
            &(a.rerun as u64).to_le_bytes(),
            a.model.map(|m| m.to_bytes()).unwrap_or_default().as_slice(),
        ]);
        let log = a.logs.join(&a.c.id).join(format!(
            "{}-{}-{}.log",
            a.label.unwrap_or(a.kind.name()),
            suite.name,
            a.rerun
        ));
        Ok(RunName { command, key, log })
    }

    /// One run (from the cache when possible): (cached, seconds, result).
    pub(super) fn run(&self, a: RunArgs<'_>) -> Result<Ran, StageError> {
        let RunName { command, key, log } = self.run_name(&a)?;
        let suite = a.suite;
        let workdir = suite.workdir.clone().unwrap_or_default();
        let selected = a.selected;
        let report_dir = REPORT_DIR;
        let test_patch = matches!(a.kind, TreeKind::Before | TreeKind::After);
        let patch = a.kind == TreeKind::After;
        if a.use_cache {
            if let Some(hit) = self
                .results
                .get(&key)
                .and_then(|b| serde_json::from_slice::<CachedRun>(&b).ok())
                .filter(|hit| hit.answers(self.plan.timeout))
            {
                self.cached_log(&log, hit.log);
                return Ok((true, hit.seconds, hit.result, hit.failures));
            }
        }
        let wc = tempfile::Builder::new()
            .prefix("hunkgen-wc-")
            .tempdir()
            .map_err(StageError::WorkingCopy)?;
        let root = wc.path().join("repo");
        crate::git::export_tree(a.base.repo, a.base.rev, None, &root)
            .map_err(StageError::Export)?;
        let mut patches: Vec<(&str, &Patch)> = Vec::new();
        if let Some(p) = a.base.to_buggy {
            patches.push(("the base patch", p));
        }
        if test_patch {
            patches.push(("test_patch", &a.c.test_patch));
        }
        if patch {
            patches.push(("patch", &a.c.patch));
        }
        for (name, p) in patches {
            apply_to_dir_in(p, &root, Some(a.base.repo))
                .map_err(|source| StageError::Patch { name, source })?;
        }
        if let Some(m) = a.model {
            // Its changes to the golden test files are dropped: the golden tests decide.
            let golden_tests: Vec<&str> = a.c.test_patch.files.iter().map(|f| f.path()).collect();
            let mut m = m.clone();
            m.files.retain(|f| !golden_tests.contains(&f.path()));
            apply_fuzzy(&m, &root, Some(a.base.repo)).map_err(StageError::Predicted)?;
        }
        let dir = root.join(&workdir);
        for (path, text) in &selected.generated {
            let file = dir.join(path);
            if !file.exists() {
                if let Some(parent) = file.parent() {
                    let _ = std::fs::create_dir_all(parent);
                }
                let _ = std::fs::write(&file, text);
            }
        }
        // Made for the runner: pytest before 3.x does not create the directory of its
        // --junitxml file.
        let _ = std::fs::create_dir_all(dir.join(report_dir));
        let mut spec = RunSpec::new(command, &dir, &log)
            .with_timeout(self.plan.timeout, Duration::from_secs(10));
        spec.memory_limit = self.plan.memory_limit;
        spec.process_limit = self.plan.process_limit;
        spec.file_size_limit = self.plan.file_size_limit;
        // The environment (and what its venv links to) and uv's package cache, which its
        // files are hardlinked from, are bound read-only wherever they live (under the
        // private /tmp too); the whole working copy is the run's (tests may read beyond
        // their workdir).
        a.env.enter(&mut spec);
        spec.readable.push(self.envs.uv_cache().to_path_buf());
        spec.writable = vec![root.clone()];
        let result = match self.runner.run(&spec) {
            Ok(outcome) => {
                let reports = dir.join(report_dir);
                let (tests, mut collection) = match suite.report {
                    // The run wrote this directory: a link in it would have hunkgen read
                    // a file of the host's into the dataset.
                    _ if through_link(&root, &reports) => (
                        Default::default(),
                        vec![format!(
                            "{report_dir}: refused: a symbolic link on the way to the reports"
                        )],
                    ),
                    ReportKind::Pytest => {
                        let xml = std::fs::read_to_string(reports.join("pytest.xml")).ok();
                        let text = std::fs::read(&log)
                            .map(|b| String::from_utf8_lossy(&b).into_owned())
                            .unwrap_or_default();
                        match parse::parse_pytest(
                            xml.as_deref(),
                            &text,
                            &reports.join("pytest.xml"),
                        ) {
                            // An error in a file the run was not given is not its own.
                            Ok(r) => (
                                r.tests,
                                relevant_collection_errors(&r.collection_errors, &selected.paths),
                            ),
                            Err(e) => (Default::default(), vec![e.to_string()]),
                        }
                    }
                    ReportKind::Junit => match parse::parse_junit_dir(&reports, IdStyle::Java) {
                        Ok(t) => (t, Vec::new()),
                        Err(e) => (Default::default(), vec![e.to_string()]),
                    },
                    ReportKind::Swebench => match self.parse_swebench(a.c, suite, &log) {
                        Ok(t) => (t, Vec::new()),
                        Err(e) => (Default::default(), vec![e]),
                    },
                };
                // A test name that would leave the working copy as a path is refused
                // (one line each), which makes the run an infrastructure failure.
                collection.extend(
                    tests
                        .keys()
                        .filter_map(|id| crate::source::names::check_test_name(id).err())
                        .map(|e| format!("refused: {e}")),
                );
                (
                    outcome.duration.as_secs_f64(),
                    parse::verdict(&outcome, tests, &collection),
                )
            }
            Err(e) => (
                0.0,
                RunResult::Infra(InfraFailure {
                    kind: InfraKind::BuildFailure,
                    reason: e.to_string(),
                    log_path: log.clone(),
                }),
            ),
        };
        let log_text = std::fs::read(&log)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        let reports = dir.join(report_dir);
        let style = match suite.report {
            ReportKind::Pytest | ReportKind::Swebench => IdStyle::Pytest,
            ReportKind::Junit => IdStyle::Java,
        };
        let mut files = parse::junit_files(&reports);
        if reports.join("pytest.xml").is_file() {
            files.push(reports.join("pytest.xml"));
        }
        let timed_out = matches!(&result.1, RunResult::Infra(f) if f.kind == InfraKind::Timeout);
        let entry = CachedRun {
            result: result.1.clone(),
            seconds: result.0,
            log: log_text,
            failures: parse::junit_failures(&files, style),
            // A timeout is cached too (a rebuild would otherwise wait the whole limit
            // again for every runaway test), with its limit: a longer timeout, or
            // `--no-cache`, runs it again.
            timeout_limit: timed_out.then_some(self.plan.timeout.as_secs_f64()),
        };
        if let Ok(bytes) = serde_json::to_vec(&entry) {
            let _ = self.results.put(&key, &bytes);
        }
        Ok((false, result.0, result.1, entry.failures))
    }

    /// A run's log read by the official parser of the row's repository (`report:
    /// swebench`); a log whose steps failed before the tests (its last line says
    /// `hunkgen: environment: …`) has no results, and the verdict reads that line.
    fn parse_swebench(
        &self,
        c: &Candidate,
        suite: &Suite,
        log: &Path,
    ) -> Result<crate::validate::parse::TestResults, String> {
        let crate::validate::env::EnvSpec::Swebench(spec) = &suite.env else {
            return Err(format!(
                "suite {}: `report: swebench` reads logs with the package `env: swebench` names",
                suite.name
            ));
        };
        let text = std::fs::read(log)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|e| format!("{}: {e}", log.display()))?;
        if !text.contains(crate::validate::env::swebench::START_TEST_OUTPUT) {
            return Ok(Default::default());
        }
        let helper = spec.helper(&self.envs.swebench_dir())?;
        let row = crate::validate::env::swebench::LogRef {
            repo: &c.repo,
            version: &c.version,
            instance_id: &c.id,
            log: &text,
        };
        let mut parsed = helper
            .parse(std::slice::from_ref(&row))
            .map_err(|e| format!("the swebench parser: {e}"))?;
        match parsed.pop() {
            Some(Ok(t)) => Ok(t),
            // The harness's reader finds no test output: no results (the verdict says so).
            Some(Err(_)) | None => Ok(Default::default()),
        }
    }

    /// The test files (or Java classes) of the candidate's test patch that `suite` runs:
    /// under its `paths` and `workdir`, not deleted, and for pytest only the files pytest
    /// collects (`python_files` of the base tree's configuration). Empty with `scope:
    /// full`, where the whole suite runs.
    pub(super) fn selection(
        &self,
        c: &Candidate,
        suite: &Suite,
        repo: &Path,
        rev: &str,
    ) -> Selection {
        if self.plan.scope == Scope::Full {
            return Selection::default();
        }
        let prefix = workdir_prefix(suite.workdir.as_deref().unwrap_or_default());
        let in_suite = |path: &str| {
            (suite.paths.is_empty() || suite.paths.iter().any(|p| path.starts_with(p.as_str())))
                && path.starts_with(&prefix)
        };
        let mut touched: Vec<String> = c
            .test_patch
            .files
            .iter()
            .filter(|fp| fp.new_path.is_some()) // deleted test files are not run
            .map(|fp| fp.path().to_string())
            .filter(|path| in_suite(path))
            .collect();
        // A file of the base tree, as text.
        let read_base = |p: &str| {
            crate::git::read_blob(repo, rev, p, &[])
                .ok()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        };
        let collected = (suite.report == ReportKind::Pytest && !touched.is_empty()).then(|| {
            let names: Vec<&str> = touched.iter().map(String::as_str).collect();
            python_files(&names, read_base)
        });
        // pytest collects a test module, or a doctest text file (`tests/test_x.txt`) the
        // patch shows examples (`>>>`) of: a data file of that name holds none.
        // A module of another name that defines a unittest case is run by name too.
        let runs = |pf: &crate::validate::select::PythonFiles, path: &str| {
            pf.collects(path)
                || (pf.doctest_file(path) && shows_examples(c, path))
                || (path.ends_with(".py")
                    && !support_file(path)
                    && crate::validate::select::defines_test_case(&module_text(c, repo, rev, path)))
        };
        // Only a test package's shared code changed: run what it reaches.
        if let Some(pf) = &collected {
            if !touched.iter().any(|t| runs(pf, t)) {
                let names: Vec<&str> = touched.iter().map(String::as_str).collect();
                let tree = crate::git::tree_paths(repo, rev).unwrap_or_default();
                let mut reached: Vec<String> = reached_by_support_files(&names, pf, &tree)
                    .into_iter()
                    .filter(|p| in_suite(p))
                    .collect();
                // Only data changed: run the modules that read it.
                if reached.is_empty() {
                    reached = reached_by_data_files(&names, pf, &tree, read_base)
                        .into_iter()
                        .filter(|p| in_suite(p))
                        .collect();
                }
                touched = reached;
            }
        }
        let mut sel = Selection::default();
        let rels: Vec<&str> = touched
            .iter()
            .filter(|path| collected.as_ref().is_none_or(|pf| runs(pf, path)))
            .map(|path| &path[prefix.len()..])
            .collect();
        let how = suite.env.kind().select_at(&rels, repo, rev);
        for (rel, selected) in rels.into_iter().zip(how) {
            match selected {
                Selected::Classes(classes) => sel.classes.extend(classes),
                Selected::File => sel.paths.push(rel.to_string()),
            }
        }
        sel.files = sel.paths.iter().map(sh_quote).collect::<Vec<_>>().join(" ");
        sel
    }
}

/// A test module's text for the rule that reads its classes: the base tree's file (if
/// it has one) and the lines the test patch leaves in it (all of them for a file the
/// patch adds).
fn module_text(c: &Candidate, repo: &Path, rev: &str, path: &str) -> String {
    let mut text = crate::git::read_blob(repo, rev, path, &[])
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    for l in c
        .test_patch
        .files
        .iter()
        .filter(|f| f.path() == path)
        .flat_map(|f| &f.hunks)
        .flat_map(|h| &h.lines)
        .filter(|l| l.kind != crate::diff::LineKind::Removed)
    {
        text.push('\n');
        text.push_str(&String::from_utf8_lossy(l.text()));
    }
    text
}

/// Whether the candidate's test patch shows a doctest example (a line starting `>>>`,
/// added, removed or context) in its change to `path`.
fn shows_examples(c: &Candidate, path: &str) -> bool {
    c.test_patch
        .files
        .iter()
        .filter(|f| f.path() == path)
        .flat_map(|f| &f.hunks)
        .flat_map(|h| &h.lines)
        .any(|l| {
            String::from_utf8_lossy(&l.content)
                .trim_start()
                .starts_with(">>>")
        })
}

/// Whether a symbolic link lies between `root` and `path` (inclusive), or `path` holds
/// one among its entries: what a run left there is not read then.
fn through_link(root: &Path, path: &Path) -> bool {
    let link = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
    let mut p = Some(path);
    while let Some(d) = p.filter(|d| *d != root && d.starts_with(root)) {
        if link(d) {
            return true;
        }
        p = d.parent();
    }
    std::fs::read_dir(path).is_ok_and(|entries| entries.flatten().any(|e| link(&e.path())))
}
