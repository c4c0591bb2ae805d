//! `hunkgen run` on a dataset Defects4J validated (HUNK4J): the agent's build and test
//! commands, as the agent study gives them (`defects4j compile`,
//! `run_bug_exposing_tests.sh`, `run_all_tests_trace.sh`).
//!
//! Per instance, three small scripts go to the agent's private directory (outside its
//! working copy, so never part of the patch), each calling `hunkgen d4j-tool` with a
//! configuration next to them. A call copies what changed in the working copy into a
//! Defects4J build directory — a copy of the cached buggy checkout without its `.git`,
//! also private — deletes there what the agent deleted, and runs `defects4j compile`, the
//! trigger tests one by one, or the whole suite, printing each failing test with its
//! complete stack trace (Defects4J's `failing_tests`). The calls run inside the agent's
//! own sandbox (bubblewrap does not nest), with the recipe's timeout per Defects4J call.

use crate::source::Candidate;
use crate::validate::defects4j::{
    report::is_class_load_failure, CompileOutcome, Defects4j, TestOutcome, TestScope,
};
use crate::validate::parse::parse_defects4j_failing;
use crate::validate::runner::{Runner, SandboxPolicy};
use crate::validate::stage::{
    copy_checkout, D4jCheckout, D4jEvalError, Validator, HIDDEN_FROM_AGENT,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What the agent's commands do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolAction {
    /// `defects4j compile`.
    Compile,
    /// The bug-exposing (trigger) tests, one `defects4j test -t` run each.
    Test,
    /// The whole suite, `defects4j test`.
    TestAll,
}

impl ToolAction {
    /// All three, in the order `hunkgen d4j-tool` lists them.
    pub const ALL: [ToolAction; 3] = [ToolAction::Compile, ToolAction::Test, ToolAction::TestAll];

    /// The action's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ToolAction::Compile => "compile",
            ToolAction::Test => "test",
            ToolAction::TestAll => "test-all",
        }
    }

    /// The script the agent runs, named as the agent study names it.
    pub fn script(self) -> &'static str {
        match self {
            ToolAction::Compile => "compile.sh",
            ToolAction::Test => "run_bug_exposing_tests.sh",
            ToolAction::TestAll => "run_all_tests_trace.sh",
        }
    }
}

impl std::str::FromStr for ToolAction {
    type Err = crate::model::UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::model::parse_name(s, "d4j-tool action", &Self::ALL, Self::name)
    }
}

/// The configuration `hunkgen d4j-tool` reads, written next to the scripts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolConfig {
    /// The instance.
    pub instance_id: String,
    /// The agent's working copy.
    pub work: PathBuf,
    /// The Defects4J build directory it is copied into.
    pub build: PathBuf,
    /// The Defects4J home.
    pub home: PathBuf,
    /// The JDK.
    pub java_home: PathBuf,
    /// Seconds each Defects4J call may take.
    pub timeout_secs: u64,
    /// Address-space limit of each call.
    #[serde(default)]
    pub memory_limit: Option<u64>,
}

/// Why an agent's command could not be carried out (its outcomes are not errors).
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The configuration cannot be read.
    #[error("{}: {what}", path.display())]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// The working copy cannot be copied into the build directory.
    #[error("cannot copy the working copy into {}: {what}", build.display())]
    Sync {
        /// The build directory.
        build: PathBuf,
        /// The I/O error, with the file.
        what: String,
    },
    /// Defects4J could not be run.
    #[error(transparent)]
    Defects4j(#[from] crate::validate::defects4j::D4jError),
    /// The runner cannot be made.
    #[error(transparent)]
    Runner(#[from] crate::validate::runner::RunError),
    /// The output cannot be written.
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
}

/// Where an instance's Defects4J tools live in the agent's private directory.
pub struct Tools {
    /// `bin/`, holding the three scripts.
    pub bin: PathBuf,
    /// Paths the agent's sandbox must be able to read (the framework, the JDK).
    pub readable: Vec<PathBuf>,
    /// Paths under those hidden from the agent: the repositories in Defects4J's
    /// `project_repos`, whose histories hold every fix.
    pub hidden: Vec<PathBuf>,
}

impl Tools {
    /// The paths of the three scripts, before they are written: `{compile_command}`,
    /// `{test_command}`, `{all_tests_command}`.
    pub fn commands(private: &Path) -> [(ToolAction, PathBuf); 3] {
        ToolAction::ALL.map(|a| (a, private.join("bin").join(a.script())))
    }
}

/// The Defects4J side of a run: the validator that keeps the checkouts, and the card the
/// instances' candidates come from.
pub struct Loop<'a> {
    /// The dataset's validator (its recipe's `validate:`).
    pub validator: &'a Validator<'a>,
    /// The dataset's card.
    pub card: &'a crate::model::Card,
    /// Where checkout logs go.
    pub logs: PathBuf,
}

impl Loop<'_> {
    /// The candidate of a Defects4J instance this loop serves; `None` for another.
    pub fn candidate(&self, inst: &crate::model::Instance) -> Option<Candidate> {
        let c = Candidate::from_instance(inst, self.card).ok()?;
        self.validator.is_defects4j(&c).then_some(c)
    }

    /// The cached buggy checkout of a Defects4J instance (checked out once).
    pub fn checkout(&self, c: &Candidate) -> Result<D4jCheckout, D4jEvalError> {
        self.validator.d4j_buggy_checkout(c, &self.logs)
    }

    /// Write the build directory, the configuration and the three scripts under
    /// `private`, for the working copy `work`.
    pub fn prepare(
        &self,
        c: &Candidate,
        checkout: &D4jCheckout,
        private: &Path,
        work: &Path,
    ) -> Result<Tools, super::ExecuteError> {
        let io = |p: &Path, source: std::io::Error| super::ExecuteError::Io {
            what: "cannot write",
            path: p.to_path_buf(),
            source,
        };
        let dir = private.join("d4j");
        let build = dir.join("build");
        copy_checkout(&checkout.dir, &build, &[".git"]).map_err(|e| io(&build, e))?;
        let config = ToolConfig {
            instance_id: c.id.clone(),
            work: work.to_path_buf(),
            build,
            home: checkout.home.clone(),
            java_home: checkout.java_home.clone(),
            timeout_secs: checkout.timeout.as_secs(),
            memory_limit: checkout.memory_limit,
        };
        let config_path = dir.join("tool.json");
        let json = serde_json::to_string_pretty(&config).unwrap_or_default();
        std::fs::write(&config_path, json).map_err(|e| io(&config_path, e))?;
        // The files the agent starts from: deleting one of them deletes it from the build.
        let files = files_of(work).map_err(|e| io(work, e))?;
        write_tracked(&dir, &files).map_err(|e| io(&dir, e))?;
        let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("hunkgen"));
        let bin = private.join("bin");
        std::fs::create_dir_all(&bin).map_err(|e| io(&bin, e))?;
        for (action, path) in Tools::commands(private) {
            let script = format!(
                "#!/bin/sh\n# {} for {} (hunkgen run): copies the working copy into the \
                 Defects4J build directory, then runs Defects4J.\nexec {} d4j-tool {} --config {}\n",
                action.script(),
                c.id,
                super::sh_quote(&exe.display().to_string()),
                action.name(),
                super::sh_quote(&config_path.display().to_string()),
            );
            std::fs::write(&path, script).map_err(|e| io(&path, e))?;
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| io(&path, e))?;
        }
        Ok(Tools {
            bin,
            readable: vec![checkout.home.clone(), checkout.java_home.clone()],
            hidden: repositories(&checkout.home),
        })
    }
}

/// Defects4J's project repositories (`project_repos/*` but the `README` its version
/// check reads): compiling and testing a checkout never reads them, and their histories
/// hold every fix.
fn repositories(home: &Path) -> Vec<PathBuf> {
    let mut repos: Vec<PathBuf> = std::fs::read_dir(home.join("project_repos"))
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name() != "README")
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    repos.sort();
    repos
}

/// The list of files a sync mirrors, kept beside the configuration.
const TRACKED: &str = "tracked";

fn write_tracked(dir: &Path, files: &BTreeSet<String>) -> std::io::Result<()> {
    let text: String = files.iter().map(|f| format!("{f}\n")).collect();
    std::fs::write(dir.join(TRACKED), text)
}

/// Every file under `root` (relative, `/`-separated), any `.git` left out, and
/// Defects4J's own files at the top left out.
fn files_of(root: &Path) -> std::io::Result<BTreeSet<String>> {
    fn walk(root: &Path, rel: &str, out: &mut BTreeSet<String>) -> std::io::Result<()> {
        for e in std::fs::read_dir(root.join(rel))? {
            let e = e?;
            let name = e.file_name().to_string_lossy().into_owned();
            if name == ".git" || (rel.is_empty() && HIDDEN_FROM_AGENT.contains(&name.as_str())) {
                continue;
            }
            let path = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if e.file_type()?.is_dir() {
                walk(root, &path, out)?;
            } else {
                out.insert(path);
            }
        }
        Ok(())
    }
    let mut out = BTreeSet::new();
    walk(root, "", &mut out)?;
    Ok(out)
}

/// Make the build directory mirror the working copy: files that differ are copied,
/// files the agent deleted (known from earlier syncs) are removed; build outputs that
/// were never in the working copy stay. Returns how many files changed.
pub fn sync(work: &Path, build: &Path, state_dir: &Path) -> Result<usize, ToolError> {
    let err = |p: &Path, e: std::io::Error| ToolError::Sync {
        build: build.to_path_buf(),
        what: format!("{}: {e}", p.display()),
    };
    let now = files_of(work).map_err(|e| err(work, e))?;
    let tracked: BTreeSet<String> = std::fs::read_to_string(state_dir.join(TRACKED))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect();
    let mut changed = 0;
    for f in &now {
        let (from, to) = (work.join(f), build.join(f));
        let meta = std::fs::symlink_metadata(&from).map_err(|e| err(&from, e))?;
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&from).map_err(|e| err(&from, e))?;
            if std::fs::read_link(&to).ok().as_ref() != Some(&target) {
                let _ = std::fs::remove_file(&to);
                if let Some(d) = to.parent() {
                    std::fs::create_dir_all(d).map_err(|e| err(d, e))?;
                }
                std::os::unix::fs::symlink(&target, &to).map_err(|e| err(&to, e))?;
                changed += 1;
            }
            continue;
        }
        let new = std::fs::read(&from).map_err(|e| err(&from, e))?;
        if std::fs::read(&to).ok().as_deref() != Some(new.as_slice()) {
            if let Some(d) = to.parent() {
                std::fs::create_dir_all(d).map_err(|e| err(d, e))?;
            }
            let _ = std::fs::remove_file(&to);
            std::fs::copy(&from, &to).map_err(|e| err(&to, e))?;
            changed += 1;
        }
    }
    for gone in tracked.difference(&now) {
        let p = build.join(gone);
        if std::fs::symlink_metadata(&p).is_ok() {
            std::fs::remove_file(&p).map_err(|e| err(&p, e))?;
            changed += 1;
        }
    }
    let all: BTreeSet<String> = tracked.union(&now).cloned().collect();
    write_tracked(state_dir, &all).map_err(|e| err(state_dir, e))?;
    Ok(changed)
}

/// `hunkgen d4j-tool ACTION --config FILE`: sync, run Defects4J, print what it says.
/// Returns the exit code: 0 nothing failed, 1 tests failed or compilation failed, 2 the
/// run timed out or Defects4J could not run.
pub fn tool(config_path: &Path, action: ToolAction, out: &mut dyn Write) -> Result<i32, ToolError> {
    let text = std::fs::read_to_string(config_path).map_err(|e| ToolError::Config {
        path: config_path.to_path_buf(),
        what: e.to_string(),
    })?;
    let cfg: ToolConfig = serde_json::from_str(&text).map_err(|e| ToolError::Config {
        path: config_path.to_path_buf(),
        what: format!("not a d4j-tool configuration: {e}"),
    })?;
    let state_dir = config_path.parent().unwrap_or(Path::new("."));
    let logs = state_dir.join("logs");
    std::fs::create_dir_all(&logs)?;
    let changed = sync(&cfg.work, &cfg.build, state_dir)?;
    writeln!(
        out,
        "{} file(s) of {} copied to the build directory.",
        changed,
        cfg.work.display()
    )?;
    let d4j = Defects4j::new(&cfg.home, &cfg.java_home)?
        .with_timeout(
            Duration::from_secs(cfg.timeout_secs),
            Duration::from_secs(5),
        )
        .with_memory_limit(cfg.memory_limit);
    // Inside the agent's sandbox bubblewrap cannot nest; the run then stays in the
    // agent's sandbox, in a process group of its own, with the timeout.
    let runner = Runner::new(SandboxPolicy::Auto)?;
    let _ = runner.take_warning();
    let log = |name: &str| logs.join(format!("{name}.log"));
    match action {
        ToolAction::Compile => {
            let c = d4j.compile(&runner, &cfg.build, &log("compile"))?;
            writeln!(out, "defects4j compile ({:.1}s):", c.seconds)?;
            Ok(match c.outcome {
                CompileOutcome::Compiled => {
                    writeln!(out, "Compilation succeeded.")?;
                    0
                }
                CompileOutcome::CompileError { first_errors } => {
                    writeln!(out, "Compilation failed:\n\n{}", first_errors.join("\n\n"))?;
                    writeln!(out, "\nFull log: {}", c.log_path.display())?;
                    1
                }
                CompileOutcome::Infra(f) => {
                    writeln!(out, "Defects4J did not compile: {}", f.reason)?;
                    2
                }
            })
        }
        ToolAction::Test => {
            let v = Defects4j::work_dir_version(&cfg.build)?;
            let tests = d4j.trigger_tests(&v.project, v.bug)?;
            writeln!(
                out,
                "Running {} bug-exposing test(s), one `defects4j test -t` each.",
                tests.len()
            )?;
            let mut code = 0;
            let mut traces = String::new();
            let mut failing = Vec::new();
            for (k, t) in tests.iter().enumerate() {
                let run = d4j.test(
                    &runner,
                    &cfg.build,
                    &TestScope::Single(t.clone()),
                    &log(&format!("test-{k}")),
                )?;
                match report(&run.outcome, out)? {
                    Some(ids) => {
                        failing.extend(ids);
                        traces.push_str(&read_failing(&cfg.build));
                    }
                    None => return Ok(2),
                }
                code = code.max(i32::from(!failing.is_empty()));
            }
            writeln!(out, "Failing tests: {}", failing.len())?;
            for f in &failing {
                writeln!(out, "  - {f}")?;
            }
            write!(out, "{traces}")?;
            Ok(code)
        }
        ToolAction::TestAll => {
            let run = d4j.test(&runner, &cfg.build, &TestScope::All, &log("test-all"))?;
            let Some(failing) = report(&run.outcome, out)? else {
                return Ok(2);
            };
            if let TestOutcome::Tests { results, .. } = &run.outcome {
                writeln!(out, "Tests run: {} ({:.1}s)", results.len(), run.seconds)?;
            }
            writeln!(out, "Failing tests: {}", failing.len())?;
            for f in &failing {
                writeln!(out, "  - {f}")?;
            }
            write!(out, "{}", read_failing(&cfg.build))?;
            Ok(i32::from(!failing.is_empty()))
        }
    }
}

/// The failing tests of a run, or `None` after saying why there are no results.
fn report(o: &TestOutcome, out: &mut dyn Write) -> std::io::Result<Option<Vec<String>>> {
    match o {
        TestOutcome::Tests { results, .. } => Ok(Some(
            results
                .iter()
                .filter(|(_, s)| {
                    matches!(
                        s,
                        crate::validate::parse::TestStatus::Failed
                            | crate::validate::parse::TestStatus::Error
                    )
                })
                .map(|(id, _)| id.clone())
                .collect(),
        )),
        TestOutcome::CompileError { first_errors } => {
            writeln!(
                out,
                "Compilation failed, no test ran:\n\n{}",
                first_errors.join("\n\n")
            )?;
            Ok(None)
        }
        TestOutcome::Infra(f) => {
            writeln!(out, "No test results: {}", f.reason)?;
            Ok(None)
        }
    }
}

/// Defects4J's `failing_tests` of the last run: each failing test and its complete
/// stack trace (a class that failed to load is said to be one).
fn read_failing(build: &Path) -> String {
    let text = std::fs::read(build.join("failing_tests"))
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let broken = parse_defects4j_failing(&text)
        .iter()
        .any(is_class_load_failure);
    if broken {
        format!("{text}(a test class failed to load: does the project compile?)\n")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sync_copies_changes_and_deletions_but_keeps_build_outputs() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (work, build, state) = (
            dir.path().join("w"),
            dir.path().join("b"),
            dir.path().join("s"),
        );
        for d in [&work, &build, &state] {
            std::fs::create_dir_all(d.join("src")).expect("mkdir");
        }
        for (f, text) in [("src/A.java", "a"), ("src/B.java", "b"), ("build.xml", "x")] {
            std::fs::write(work.join(f), text).expect("write");
            std::fs::write(build.join(f), text).expect("write");
        }
        std::fs::create_dir_all(build.join("target/classes")).expect("mkdir");
        std::fs::write(build.join("target/classes/A.class"), "c").expect("write");
        std::fs::write(build.join("defects4j.build.properties"), "p").expect("write");
        write_tracked(&state, &files_of(&work).expect("files")).expect("tracked");
        assert_eq!(sync(&work, &build, &state).expect("sync"), 0);

        std::fs::write(work.join("src/A.java"), "a2").expect("edit");
        std::fs::remove_file(work.join("src/B.java")).expect("delete");
        std::fs::create_dir_all(work.join("src/new")).expect("mkdir");
        std::fs::write(work.join("src/new/C.java"), "c").expect("create");
        // An agent's own `.defects4j.config` never reaches the build directory.
        std::fs::write(work.join(".defects4j.config"), "pid=X").expect("write");
        assert_eq!(sync(&work, &build, &state).expect("sync"), 3);
        assert_eq!(
            std::fs::read_to_string(build.join("src/A.java")).expect("a"),
            "a2"
        );
        assert!(!build.join("src/B.java").exists());
        assert!(build.join("src/new/C.java").is_file());
        assert!(build.join("target/classes/A.class").is_file());
        assert!(build.join("defects4j.build.properties").is_file());
        assert!(!build.join(".defects4j.config").exists());

        // A file created, synced, then deleted goes too.
        std::fs::remove_file(work.join("src/new/C.java")).expect("delete");
        assert_eq!(sync(&work, &build, &state).expect("sync"), 1);
        assert!(!build.join("src/new/C.java").exists());
    }

    #[test]
    fn actions_parse_by_name() {
        assert_eq!(
            "test-all".parse::<ToolAction>().ok(),
            Some(ToolAction::TestAll)
        );
        assert!("tests".parse::<ToolAction>().is_err());
    }
}
