//! The `defects4j` environment's engine: checkout, compile and test through Defects4J
//! itself, inside hunkgen's sandbox, offline.
//!
//! Defects4J knows each of its projects' class paths, source levels and checkout fixes;
//! hunkgen never re-implements them. What hunkgen adds is the sandbox: every call runs
//! through [`Runner`] (bubblewrap: no network, a private `/tmp`, the system and the
//! framework copy read-only, only the work directory writable) with a timeout, so a run
//! leaves no process behind and writes nowhere else. Caching by content and reruns
//! belong to the caller (the validate stage), which sees only typed outcomes here.
//!
//! A Defects4J work directory keeps the project's whole history and tags the fixed
//! version (`D4J_<P>_<id>_FIXED_VERSION`): it is a build and test directory only, never
//! something an agent sees.

mod alias;
pub mod report;
mod repos;

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

pub use report::{CompileOutcome, TestOutcome};

use super::parse::{parse_defects4j_failing, InfraFailure, InfraKind, RunResult};
use super::runner::{Command, RunError, RunOutcome, RunSpec, Runner};

/// The variable naming the Defects4J home (the directory holding `framework/`).
pub const HOME_VAR: &str = "HUNKGEN_D4J_HOME";
/// The variable naming the JDK Defects4J runs with.
pub const JAVA_HOME_VAR: &str = "HUNKGEN_D4J_JAVA_HOME";
/// Defects4J 3's JVM where Debian installs it.
pub const DEFAULT_JAVA_HOME: &str = "/usr/lib/jvm/java-11-openjdk-amd64";
/// The JUnit jar Debian's Ant needs on its own class path (`ANT_ARGS=-lib …`); without
/// it some projects skip compiling their tests and every test class fails to load.
const JUNIT_JAR: &str = "framework/projects/lib/junit-4.12-hamcrest-1.3.jar";
/// Ant's JVM for `defects4j compile` only: C1 alone and the serial collector start a
/// short-lived JVM much faster and javac writes the same classes whatever the JIT does.
/// Never for `test`: Defects4J runs JUnit inside Ant's JVM (`fork="no"`), and a test's
/// speed must stay what plain Defects4J gives it.
const COMPILE_ANT_OPTS: &str = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";
/// Defects4J refuses to run in any other time zone.
const TIME_ZONE: &str = "America/Los_Angeles";
/// The file `defects4j checkout` writes into a work directory (`pid=`, `vid=`).
const CONFIG_FILE: &str = ".defects4j.config";

/// A Defects4J call that could not be carried out (not a compile or test failure).
#[derive(Debug, thiserror::Error)]
pub enum D4jError {
    /// The framework or the JDK is missing where the handle points.
    #[error("Defects4J is not installed: {what} {path} is missing")]
    NotInstalled {
        /// What is missing (the framework's `defects4j` script, JDK 11's `java`, ...).
        what: &'static str,
        /// Where it was looked for.
        path: PathBuf,
    },
    /// A file of the framework or a work directory could not be read or written.
    #[error("cannot access {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Checkout needs a new or empty directory (Defects4J clones into it).
    #[error("cannot check out {version} into {workdir}: the directory is not empty")]
    WorkDirNotEmpty {
        /// The version, e.g. `Cli-5b`.
        version: String,
        /// The directory.
        workdir: PathBuf,
    },
    /// A directory without `.defects4j.config` is not a Defects4J work directory.
    #[error(
        "{workdir} is not a Defects4J work directory (no readable {CONFIG_FILE} with pid and vid)"
    )]
    NotAWorkDir {
        /// The directory.
        workdir: PathBuf,
    },
    /// The framework has no trigger tests for this bug (unknown project or bug id).
    #[error("Defects4J has no bug {project}-{bug}: {path} is missing")]
    UnknownBug {
        /// The project id, e.g. `Cli`.
        project: String,
        /// The bug id.
        bug: u32,
        /// The trigger-test file looked for.
        path: PathBuf,
    },
    /// Defects4J's `-t` takes `pkg.Class::method` only.
    #[error("`{test}` is not a Defects4J test id (pkg.Class::method)")]
    BadTestId {
        /// The test id given.
        test: String,
    },
    /// The sandboxed process could not be started or waited for.
    #[error("defects4j {action} in {workdir}: {source}")]
    Run {
        /// The call, e.g. `checkout Cli-5b`.
        action: String,
        /// The work directory.
        workdir: PathBuf,
        /// The runner's error.
        #[source]
        source: RunError,
    },
    /// `defects4j checkout` failed or timed out.
    #[error("defects4j checkout {version} into {workdir} failed: {reason} (log: {log_path})")]
    Checkout {
        /// The version, e.g. `Cli-5b`.
        version: String,
        /// The work directory.
        workdir: PathBuf,
        /// Exit status or timeout, and the log's last lines.
        reason: String,
        /// The run's log.
        log_path: PathBuf,
    },
}

/// Which of a bug's two program versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Version {
    /// The buggy version (`<id>b`).
    Buggy,
    /// The fixed version (`<id>f`).
    Fixed,
}

/// One program version of one Defects4J bug, e.g. `Cli-5b`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BugVersion {
    /// Defects4J's project id (`Cli`, `Codec`, `Lang`, ...).
    pub project: String,
    /// The bug id.
    pub bug: u32,
    /// Buggy or fixed.
    pub version: Version,
}

impl BugVersion {
    /// The buggy version of `project`-`bug`.
    pub fn buggy(project: impl Into<String>, bug: u32) -> Self {
        BugVersion {
            project: project.into(),
            bug,
            version: Version::Buggy,
        }
    }

    /// The fixed version of `project`-`bug`.
    pub fn fixed(project: impl Into<String>, bug: u32) -> Self {
        BugVersion {
            project: project.into(),
            bug,
            version: Version::Fixed,
        }
    }

    /// Defects4J's version id, `5b` or `5f`.
    pub fn vid(&self) -> String {
        let v = match self.version {
            Version::Buggy => 'b',
            Version::Fixed => 'f',
        };
        format!("{}{v}", self.bug)
    }

    /// `Cli-5b`, for messages.
    pub fn name(&self) -> String {
        format!("{}-{}", self.project, self.vid())
    }

    /// Parses `.defects4j.config` (`pid=Cli`, `vid=5b`).
    fn from_config(text: &str) -> Option<BugVersion> {
        let value = |key: &str| {
            text.lines()
                .find_map(|l| l.trim().strip_prefix(key)?.strip_prefix('='))
                .map(str::trim)
        };
        let project = value("pid")?.to_string();
        let vid = value("vid")?;
        let (bug, version) = match vid.strip_suffix('b') {
            Some(b) => (b, Version::Buggy),
            None => (vid.strip_suffix('f')?, Version::Fixed),
        };
        Some(BugVersion {
            project,
            bug: bug.parse().ok()?,
            version,
        })
    }
}

/// Which tests `defects4j test` runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestScope {
    /// The bug's trigger tests (the framework's `projects/<P>/trigger_tests/<id>`), one
    /// `-t` run each, within one timeout.
    Trigger,
    /// The relevant tests (`-r`: test classes that load a class the fix modifies).
    Relevant,
    /// The whole developer-written suite.
    All,
    /// One test, `pkg.Class::method` (`-t`).
    Single(String),
}

/// A finished checkout.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkout {
    /// The work directory, now holding the version.
    pub workdir: PathBuf,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The run's log.
    pub log_path: PathBuf,
}

/// A finished `defects4j compile`.
#[derive(Debug, Clone, PartialEq)]
pub struct CompileRun {
    /// Compiled, compile error or infrastructure failure.
    pub outcome: CompileOutcome,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The run's log.
    pub log_path: PathBuf,
}

/// A finished `defects4j test` (one or several runs for [`TestScope::Trigger`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TestRun {
    /// Per-test outcomes, compile error or infrastructure failure.
    pub outcome: TestOutcome,
    /// Wall-clock seconds of all runs.
    pub seconds: f64,
    /// The log (every run's output, one after the other).
    pub log_path: PathBuf,
}

impl TestRun {
    /// The verdict in the form golden labelling reads.
    pub fn run_result(&self) -> RunResult {
        self.outcome.run_result(&self.log_path)
    }
}

/// A Defects4J installation and the limits its runs get.
#[derive(Debug, Clone)]
pub struct Defects4j {
    home: PathBuf,
    java_home: PathBuf,
    timeout: Duration,
    grace: Duration,
    memory_limit: Option<u64>,
    extra_env: Vec<(OsString, OsString)>,
    /// Where linked project repositories and their alternates live, outside `home`.
    repo_places: Vec<PathBuf>,
}

impl Defects4j {
    /// A handle on the framework at `home` (the directory holding `framework/` and
    /// `project_repos/`) run with the JDK at `java_home`; checks both are there.
    pub fn new(home: impl Into<PathBuf>, java_home: impl Into<PathBuf>) -> Result<Self, D4jError> {
        let d = Defects4j {
            home: absolute(home.into())?,
            java_home: absolute(java_home.into())?,
            timeout: Duration::from_secs(30 * 60),
            grace: Duration::from_secs(10),
            memory_limit: None,
            extra_env: Vec::new(),
            repo_places: Vec::new(),
        };
        let needed: [(&'static str, PathBuf); 4] = [
            ("the defects4j script", d.script()),
            ("the JUnit jar for Ant", d.home.join(JUNIT_JAR)),
            ("the project repositories", d.home.join("project_repos")),
            ("the JDK's java", d.java_home.join("bin/java")),
        ];
        for (what, path) in needed {
            if !path.exists() {
                return Err(D4jError::NotInstalled { what, path });
            }
        }
        let repo_places = repos::outside_places(&d.home);
        Ok(Defects4j { repo_places, ..d })
    }

    /// A handle from `HUNKGEN_D4J_HOME` (else `default_home`) and
    /// `HUNKGEN_D4J_JAVA_HOME` (else Debian's JDK 11).
    pub fn from_env(default_home: &Path) -> Result<Self, D4jError> {
        let home = std::env::var_os(HOME_VAR)
            .map(PathBuf::from)
            .unwrap_or_else(|| default_home.to_path_buf());
        let java = std::env::var_os(JAVA_HOME_VAR)
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(DEFAULT_JAVA_HOME));
        Defects4j::new(home, java)
    }

    /// Sets the wall-clock limit of each call (builder style; default 30 min) and the
    /// time between SIGTERM and SIGKILL.
    pub fn with_timeout(mut self, timeout: Duration, grace: Duration) -> Self {
        self.timeout = timeout;
        self.grace = grace;
        self
    }

    /// Sets the address-space limit of each run (the JVMs need several GB of it).
    pub fn with_memory_limit(mut self, bytes: Option<u64>) -> Self {
        self.memory_limit = bytes;
        self
    }

    /// Sets one more variable for every run, after (so over) the four Defects4J needs.
    pub fn with_env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.extra_env.push((key.into(), value.into()));
        self
    }

    /// What a run reads (bound read-only; the sandbox shows nothing else of the host):
    /// the framework, the JDK, and linked project repositories with their alternates.
    fn readable(&self) -> Vec<PathBuf> {
        let mut r = vec![self.home.clone(), self.java_home.clone()];
        r.extend(self.repo_places.iter().cloned());
        r
    }

    /// The Defects4J home.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The JDK runs use.
    pub fn java_home(&self) -> &Path {
        &self.java_home
    }

    /// The `defects4j` command.
    fn script(&self) -> PathBuf {
        self.home.join("framework/bin/defects4j")
    }

    /// The environment of every run: `TZ`, `JAVA_HOME`, the JDK first on `PATH`,
    /// `ANT_ARGS` with JUnit, then the extra variables.
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        let mut path = OsString::from(self.java_home.join("bin"));
        path.push(":");
        path.push(
            std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into()),
        );
        let mut ant_args = OsString::from("-lib ");
        ant_args.push(self.home.join(JUNIT_JAR));
        let mut env: Vec<(OsString, OsString)> = vec![
            ("TZ".into(), TIME_ZONE.into()),
            ("JAVA_HOME".into(), self.java_home.clone().into()),
            ("PATH".into(), path),
            ("ANT_ARGS".into(), ant_args),
        ];
        env.extend(self.extra_env.iter().cloned());
        env
    }

    /// [`Defects4j::env`] for one kind of call: a compile also gets
    /// [`COMPILE_ANT_OPTS`] unless the caller set `ANT_OPTS` itself.
    fn env_for(&self, action: &str) -> Vec<(OsString, OsString)> {
        let mut env = self.env();
        if action == "compile" && !env.iter().any(|(k, _)| k == "ANT_OPTS") {
            env.push(("ANT_OPTS".into(), COMPILE_ANT_OPTS.into()));
        }
        env
    }

    /// The bug's trigger tests from `projects/<P>/trigger_tests/<id>`, in file order.
    pub fn trigger_tests(&self, project: &str, bug: u32) -> Result<Vec<String>, D4jError> {
        let path = self
            .home
            .join("framework/projects")
            .join(project)
            .join("trigger_tests")
            .join(bug.to_string());
        if !path.is_file() {
            return Err(D4jError::UnknownBug {
                project: project.to_string(),
                bug,
                path,
            });
        }
        let text = read_lossy(&path)?;
        Ok(parse_defects4j_failing(&text)
            .into_iter()
            .map(|f| f.id)
            .collect())
    }

    /// The version a work directory holds (its `.defects4j.config`).
    pub fn work_dir_version(workdir: &Path) -> Result<BugVersion, D4jError> {
        let text =
            fs::read_to_string(workdir.join(CONFIG_FILE)).map_err(|_| D4jError::NotAWorkDir {
                workdir: workdir.to_path_buf(),
            })?;
        BugVersion::from_config(&text).ok_or_else(|| D4jError::NotAWorkDir {
            workdir: workdir.to_path_buf(),
        })
    }

    /// `defects4j checkout`: `version` into `workdir` (created; must be empty), cloned
    /// from the framework's `project_repos`. The log goes to `log_path`.
    pub fn checkout(
        &self,
        runner: &Runner,
        version: &BugVersion,
        workdir: &Path,
        log_path: &Path,
    ) -> Result<Checkout, D4jError> {
        fs::create_dir_all(workdir).map_err(|source| D4jError::Io {
            path: workdir.to_path_buf(),
            source,
        })?;
        let workdir = absolute(workdir.to_path_buf())?;
        let empty = fs::read_dir(&workdir)
            .map_err(|source| D4jError::Io {
                path: workdir.clone(),
                source,
            })?
            .next()
            .is_none();
        if !empty {
            return Err(D4jError::WorkDirNotEmpty {
                version: version.name(),
                workdir,
            });
        }
        let args = vec![
            "checkout".into(),
            "-p".into(),
            version.project.clone().into(),
            "-v".into(),
            version.vid().into(),
            "-w".into(),
            workdir.clone().into(),
        ];
        let action = format!("checkout {}", version.name());
        let run = self.run(runner, &action, args, &workdir, log_path, self.timeout)?;
        let failed = |reason: String| D4jError::Checkout {
            version: version.name(),
            workdir: workdir.clone(),
            reason,
            log_path: log_path.to_path_buf(),
        };
        if run.timed_out {
            return Err(failed(format!(
                "timed out after {:.1}s",
                run.duration.as_secs_f64()
            )));
        }
        if !run.exit.success() || Defects4j::work_dir_version(&workdir).is_err() {
            let log = read_lossy(log_path)?;
            return Err(failed(format!(
                "{:?}; log ends: {}",
                run.exit,
                super::parse::text_tail(&log, 5)
            )));
        }
        Ok(Checkout {
            workdir,
            seconds: run.duration.as_secs_f64(),
            log_path: log_path.to_path_buf(),
        })
    }

    /// Turn a bug's work directory into its other version in place: `git checkout` of
    /// the tag Defects4J's checkout made (`D4J_<P>_<id>_BUGGY_VERSION` or
    /// `…_FIXED_VERSION`), in the sandbox. Only the files the source patch touches
    /// change, with a new mtime, so the next compile rebuilds those and keeps the rest;
    /// `clean` also removes every untracked file (build outputs too), as Defects4J's own
    /// re-checkout of a work directory does.
    pub fn switch_version(
        &self,
        runner: &Runner,
        workdir: &Path,
        to: &BugVersion,
        clean: bool,
        log_path: &Path,
    ) -> Result<(), D4jError> {
        let workdir = absolute(workdir.to_path_buf())?;
        let from = Defects4j::work_dir_version(&workdir)?;
        let tag = format!(
            "D4J_{}_{}_{}",
            to.project,
            to.bug,
            match to.version {
                Version::Buggy => "BUGGY_VERSION",
                Version::Fixed => "FIXED_VERSION",
            }
        );
        let action = format!("switch {} to {}", from.name(), to.name());
        // A copied work directory's index holds the original files' stat data, so git
        // takes every file as possibly changed and `checkout -f` rewrites them all, with
        // new times: Ant's javac then recompiles the whole project. Refreshing the index
        // first (content unchanged, stat data renewed) leaves untouched files as they are.
        let mut steps: Vec<Vec<OsString>> = vec![
            vec!["update-index".into(), "-q".into(), "--refresh".into()],
            vec![
                "-c".into(),
                "core.hooksPath=/dev/null".into(),
                "checkout".into(),
                "-q".into(),
                "-f".into(),
                tag.into(),
            ],
        ];
        if clean {
            steps.push(vec!["clean".into(), "-xdfq".into()]);
        }
        for args in steps {
            let mut spec = RunSpec::new(
                Command::Exec {
                    program: PathBuf::from("git"),
                    args,
                },
                &workdir,
                log_path,
            )
            .with_timeout(self.timeout, self.grace);
            spec.readable = self.readable();
            let run = runner.run(&spec).map_err(|source| D4jError::Run {
                action: action.clone(),
                workdir: workdir.clone(),
                source,
            })?;
            if run.timed_out || !run.exit.success() {
                let log = read_lossy(log_path)?;
                return Err(D4jError::Checkout {
                    version: to.name(),
                    workdir,
                    reason: format!(
                        "git in the work directory: {:?}; log ends: {}",
                        run.exit,
                        super::parse::text_tail(&log, 5)
                    ),
                    log_path: log_path.to_path_buf(),
                });
            }
        }
        match Defects4j::work_dir_version(&workdir) {
            Ok(got) if &got == to => Ok(()),
            _ => Err(D4jError::Checkout {
                version: to.name(),
                workdir: workdir.clone(),
                reason: format!("{CONFIG_FILE} does not name {} after the switch", to.name()),
                log_path: log_path.to_path_buf(),
            }),
        }
    }

    /// `defects4j compile` in a work directory.
    pub fn compile(
        &self,
        runner: &Runner,
        workdir: &Path,
        log_path: &Path,
    ) -> Result<CompileRun, D4jError> {
        let workdir = absolute(workdir.to_path_buf())?;
        Defects4j::work_dir_version(&workdir)?;
        let args = vec!["compile".into(), "-w".into(), workdir.clone().into()];
        let run = self.run(runner, "compile", args, &workdir, log_path, self.timeout)?;
        let log = read_lossy(log_path)?;
        Ok(CompileRun {
            outcome: report::compile_outcome(&run, &log, &workdir),
            seconds: run.duration.as_secs_f64(),
            log_path: log_path.to_path_buf(),
        })
    }

    /// `defects4j test` in a work directory over `scope`; Defects4J compiles what is
    /// out of date first, so a compile error is an outcome here too.
    pub fn test(
        &self,
        runner: &Runner,
        workdir: &Path,
        scope: &TestScope,
        log_path: &Path,
    ) -> Result<TestRun, D4jError> {
        let workdir = absolute(workdir.to_path_buf())?;
        let version = Defects4j::work_dir_version(&workdir)?;
        let base: Vec<OsString> = vec!["test".into(), "-w".into(), workdir.clone().into()];
        let runs: Vec<Vec<OsString>> = match scope {
            TestScope::All => vec![base],
            TestScope::Relevant => vec![[base, vec!["-r".into()]].concat()],
            TestScope::Single(test) => vec![single(&base, test)?],
            TestScope::Trigger => self
                .trigger_tests(&version.project, version.bug)?
                .iter()
                .map(|t| single(&base, t))
                .collect::<Result<_, _>>()?,
        };
        let deadline = Instant::now() + self.timeout;
        let mut seconds = 0.0;
        let mut log = String::new();
        let mut merged: Option<TestOutcome> = None;
        for args in runs {
            let label = args
                .iter()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" ");
            let left = deadline.saturating_duration_since(Instant::now());
            for f in ["failing_tests", "all_tests"] {
                remove_if_present(&workdir.join(f))?;
            }
            let run = self.run(runner, "test", args, &workdir, log_path, left)?;
            seconds += run.duration.as_secs_f64();
            let text = read_lossy(log_path)?;
            let outcome = report::test_outcome(
                &run,
                &text,
                &workdir,
                read_optional(&workdir.join("all_tests"))?.as_deref(),
                read_optional(&workdir.join("failing_tests"))?.as_deref(),
            );
            log.push_str(&format!("== defects4j {label}\n{text}\n"));
            merged = Some(match merged {
                None => outcome,
                Some(prev) => merge(prev, outcome),
            });
            if !matches!(merged, Some(TestOutcome::Tests { .. })) {
                break;
            }
        }
        fs::write(log_path, &log).map_err(|source| D4jError::Io {
            path: log_path.to_path_buf(),
            source,
        })?;
        let outcome = merged.unwrap_or_else(|| {
            TestOutcome::Infra(InfraFailure {
                kind: InfraKind::NoResults,
                reason: format!("{} has no trigger tests to run", version.name()),
                log_path: log_path.to_path_buf(),
            })
        });
        Ok(TestRun {
            outcome,
            seconds,
            log_path: log_path.to_path_buf(),
        })
    }

    /// One sandboxed `defects4j` run: the framework read-only, `workdir` writable.
    fn run(
        &self,
        runner: &Runner,
        action: &str,
        args: Vec<OsString>,
        workdir: &Path,
        log_path: &Path,
        timeout: Duration,
    ) -> Result<RunOutcome, D4jError> {
        let mut spec = RunSpec::new(
            Command::Exec {
                program: self.script(),
                args,
            },
            workdir,
            log_path,
        )
        .with_timeout(timeout, self.grace);
        spec.env = self.env_for(action);
        spec.memory_limit = self.memory_limit;
        spec.readable = self.readable();
        let _alias = alias::plain_workdir(&mut spec)?;
        runner.run(&spec).map_err(|source| D4jError::Run {
            action: action.to_string(),
            workdir: workdir.to_path_buf(),
            source,
        })
    }
}

/// `test … -t pkg.Class::method`, after checking the id's shape.
fn single(base: &[OsString], test: &str) -> Result<Vec<OsString>, D4jError> {
    let ok = test
        .split_once("::")
        .is_some_and(|(c, m)| !c.is_empty() && !m.is_empty() && !m.contains(':'))
        && !test.contains(char::is_whitespace);
    if !ok {
        return Err(D4jError::BadTestId {
            test: test.to_string(),
        });
    }
    let mut args = base.to_vec();
    args.push("-t".into());
    args.push(test.into());
    Ok(args)
}

/// Two runs' outcomes as one: the first non-result wins, else the union of results.
fn merge(a: TestOutcome, b: TestOutcome) -> TestOutcome {
    match (a, b) {
        (
            TestOutcome::Tests {
                mut results,
                mut failures,
            },
            TestOutcome::Tests {
                results: r2,
                failures: f2,
            },
        ) => {
            results.extend(r2);
            failures.extend(f2);
            TestOutcome::Tests { results, failures }
        }
        (TestOutcome::Tests { .. }, b) => b,
        (a, _) => a,
    }
}

/// An absolute path (the sandbox binds and Defects4J's `-w` need one).
fn absolute(p: PathBuf) -> Result<PathBuf, D4jError> {
    std::path::absolute(&p).map_err(|source| D4jError::Io { path: p, source })
}

/// A file's text, invalid UTF-8 replaced (logs carry whatever tests print).
fn read_lossy(path: &Path) -> Result<String, D4jError> {
    fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .map_err(|source| D4jError::Io {
            path: path.to_path_buf(),
            source,
        })
}

/// A file's text, or None when it does not exist.
fn read_optional(path: &Path) -> Result<Option<String>, D4jError> {
    match fs::read(path) {
        Ok(b) => Ok(Some(String::from_utf8_lossy(&b).into_owned())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(D4jError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Removes a stale result file, so a run that dies early cannot be read as current.
fn remove_if_present(path: &Path) -> Result<(), D4jError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(D4jError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests;
