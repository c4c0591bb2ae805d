//! Defects4J runs for the agent study's loop: a predicted patch evaluated on a fresh copy
//! of the cached buggy checkout (`defects4j compile`, the trigger tests, the whole suite),
//! cached by content; and the buggy checkout `hunkgen run` copies for an agent (without
//! what would reveal the fix) and for the agent's build directory.
//!
//! The checkout's `.git` holds the fixed version (`D4J_<P>_<id>_FIXED_VERSION`) and
//! `defects4j.build.properties` names the classes the fix modifies: neither is copied
//! where an agent works ([`HIDDEN_FROM_AGENT`]).

use super::{broken_on_fixed, BugRuns, D4jValidate, StageError};
use crate::cache::Key;
use crate::diff::Patch;
use crate::model::{ApplyMethod, SourceKind};
use crate::source::{Base, Candidate, Tree};
use crate::validate::apply::{apply_fuzzy, apply_to_dir, Applied, DirApplyError};
use crate::validate::defects4j::{BugVersion, CompileOutcome, Defects4j, TestOutcome, TestScope};
use crate::validate::parse::InfraKind;
use crate::validate::stage::Validator;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Top-level entries of a Defects4J checkout never copied where an agent works: the
/// history (it holds the fixed version), Defects4J's configuration and its build
/// properties (they list the classes the fix modifies).
pub const HIDDEN_FROM_AGENT: [&str; 3] =
    [".git", ".defects4j.config", "defects4j.build.properties"];

/// What Defects4J said about one tree of a bug: the state, plus a predicted patch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct D4jEvalRun {
    /// How the predicted patch went in (`None`: no predicted patch).
    pub applied: Option<ApplyMethod>,
    /// `defects4j compile`.
    pub compile: CompileOutcome,
    /// The bug's trigger tests, one `-t` run each (`None`: not compiled).
    pub trigger: Option<TestOutcome>,
    /// The whole developer-written suite (`None`: not compiled, or the trigger tests
    /// timed out).
    pub suite: Option<TestOutcome>,
    /// Wall-clock seconds of the runs made (those of the cached runs when cached).
    pub seconds: f64,
    /// Tests Defects4J lists as failing on the fixed version (`failing_tests/<rev>`): the
    /// grading leaves them out on every side, as the build does.
    #[serde(default)]
    pub excluded: Vec<String>,
    /// Answered from the cache.
    #[serde(skip)]
    pub cached: bool,
}

impl D4jEvalRun {
    /// The phase that timed out, if any: `compile`, `trigger` or `suite`.
    pub fn timed_out(&self) -> Option<&'static str> {
        let t = |o: Option<&TestOutcome>| matches!(o, Some(TestOutcome::Infra(f)) if f.kind == InfraKind::Timeout);
        if matches!(&self.compile, CompileOutcome::Infra(f) if f.kind == InfraKind::Timeout) {
            Some("compile")
        } else if t(self.trigger.as_ref()) {
            Some("trigger")
        } else if t(self.suite.as_ref()) {
            Some("suite")
        } else {
            None
        }
    }
}

/// Why a Defects4J evaluation run could not be made (its outcomes are not errors).
#[derive(Debug, thiserror::Error)]
pub enum D4jEvalError {
    /// The candidate or the recipe does not say how to run Defects4J.
    #[error("{instance}: {what}")]
    Setup {
        /// The instance.
        instance: String,
        /// What is missing.
        what: &'static str,
    },
    /// The installation, the checkout, the run directory or a Defects4J call failed.
    #[error("{instance}: {source}")]
    Stage {
        /// The instance.
        instance: String,
        /// Why.
        #[source]
        source: Box<StageError>,
    },
    /// The state's change does not apply to the buggy checkout.
    #[error("{instance}: the state does not apply to the Defects4J checkout: {source}")]
    State {
        /// The instance.
        instance: String,
        /// Where and why.
        #[source]
        source: DirApplyError,
    },
    /// The predicted patch does not apply.
    #[error("the patch does not apply: {0}")]
    DoesNotApply(#[source] DirApplyError),
}

/// A bug's buggy checkout in the cache with what runs on it need.
#[derive(Debug, Clone)]
pub struct D4jCheckout {
    /// The cached Defects4J work directory (never shown to an agent).
    pub dir: PathBuf,
    /// The Defects4J home.
    pub home: PathBuf,
    /// The JDK.
    pub java_home: PathBuf,
    /// The limit of each Defects4J call (the recipe's `validate.timeout`).
    pub timeout: Duration,
    /// The address-space limit of each call.
    pub memory_limit: Option<u64>,
    /// Content hash of the project's framework files and the JDK.
    pub fingerprint: String,
}

/// A cached evaluation run with its logs (file name → text).
#[derive(Serialize, Deserialize)]
struct CachedEval {
    run: D4jEvalRun,
    logs: Vec<(String, String)>,
}

impl Validator<'_> {
    /// Whether `c` is built and tested by Defects4J itself (`validate.defects4j`).
    pub fn is_defects4j(&self, c: &Candidate) -> bool {
        self.plan.defects4j.is_some() && c.source == SourceKind::Defects4j
    }

    /// What every run of a Defects4J candidate shares.
    fn bug_runs_of<'v>(&'v self, c: &Candidate, logs: &Path) -> Result<BugRuns<'v>, D4jEvalError> {
        let setup = |what: &'static str| D4jEvalError::Setup {
            instance: c.id.clone(),
            what,
        };
        let spec: &D4jValidate = self
            .plan
            .defects4j
            .as_ref()
            .ok_or_else(|| setup("the recipe has no `validate.defects4j`"))?;
        let bug =
            c.id.strip_prefix(&format!("{}_", c.project))
                .and_then(|b| b.parse::<u32>().ok())
                .ok_or_else(|| setup("not a Defects4J bug id (<Project>_<number>)"))?;
        let home = spec.home().ok_or_else(|| {
            setup("no Defects4J home: set `validate.defects4j.home` or HUNKGEN_D4J_HOME")
        })?;
        let fingerprint = self
            .d4j_fingerprint(&home, &c.project, &spec.java_home())
            .map_err(|source| stage(c, source))?;
        Ok(BugRuns {
            spec,
            home,
            project: c.project.clone(),
            bug,
            fingerprint,
            logs: logs.join(&c.id),
        })
    }

    /// The Defects4J environment of a candidate (the content hash of its project's
    /// framework files and of the JDK): what, with the bug, makes its checkout.
    pub fn d4j_environment(&self, c: &Candidate) -> Result<String, D4jEvalError> {
        Ok(self.bug_runs_of(c, Path::new(""))?.fingerprint)
    }

    /// The Defects4J handle runs of `b` use: the plan's timeout and memory limit.
    pub(super) fn d4j_handle(&self, b: &BugRuns<'_>) -> Result<Defects4j, StageError> {
        Ok(Defects4j::new(&b.home, b.spec.java_home())?
            .with_timeout(self.plan.timeout, Duration::from_secs(10))
            .with_memory_limit(self.plan.memory_limit))
    }

    /// A fresh run directory under `<root>/runs`, named after `prefix`, removed when
    /// dropped: every Defects4J run (test, Partial check, evaluation) works in one.
    pub(in crate::validate::stage) fn d4j_run_dir(
        &self,
        root: &Path,
        prefix: &str,
    ) -> Result<tempfile::TempDir, StageError> {
        let runs = root.join("runs");
        std::fs::create_dir_all(&runs).map_err(|source| StageError::Io {
            path: runs.clone(),
            source,
        })?;
        tempfile::Builder::new()
            .prefix(prefix)
            .tempdir_in(&runs)
            .map_err(|source| StageError::RunDir { dir: runs, source })
    }

    /// The buggy checkout of a Defects4J candidate in the cache (checked out once, as
    /// validation checks out the fixed one), with what runs on it need; checkout logs
    /// go under `logs/<id>/`.
    pub fn d4j_buggy_checkout(
        &self,
        c: &Candidate,
        logs: &Path,
    ) -> Result<D4jCheckout, D4jEvalError> {
        let b = self.bug_runs_of(c, logs)?;
        let st = |source| stage(c, source);
        let d4j = self.d4j_handle(&b).map_err(st)?;
        let v = BugVersion::buggy(&b.project, b.bug);
        let dir = self
            .d4j_checkout(&d4j, &self.plan.cache_dir.join("d4j"), &v, &b.logs)
            .map_err(st)?;
        Ok(D4jCheckout {
            dir,
            home: d4j.home().to_path_buf(),
            java_home: d4j.java_home().to_path_buf(),
            timeout: self.plan.timeout,
            memory_limit: self.plan.memory_limit,
            fingerprint: b.fingerprint.clone(),
        })
    }

    /// Evaluate one tree of a Defects4J bug: a fresh copy of the cached buggy checkout,
    /// plus `state` (a Partial or Resolved state's change, applied exactly), plus `model`
    /// (a predicted patch, exactly else 3-way else with offset and fuzz; its changes to
    /// the golden test files dropped); then `defects4j compile`, the trigger tests and
    /// the whole suite, in the sandbox. The checkout, not a compiled build directory: the
    /// whole project is compiled with the patch, so a change that breaks another class
    /// shows. Answered from the cache when the same trees were run before; a run with a
    /// timeout is not cached. Logs go to `logs/<id>/<label>-{compile,trigger,suite}.log`.
    pub fn d4j_evaluate(
        &self,
        c: &Candidate,
        state: Option<&Patch>,
        model: Option<&Patch>,
        label: &str,
        logs: &Path,
    ) -> Result<D4jEvalRun, D4jEvalError> {
        let b = self.bug_runs_of(c, logs)?;
        let st = |source| stage(c, source);
        let model = model.map(|m| {
            let golden_tests: Vec<&str> = c.test_patch.files.iter().map(|f| f.path()).collect();
            let mut m = m.clone();
            m.files.retain(|f| !golden_tests.contains(&f.path()));
            m
        });
        let v = BugVersion::buggy(&b.project, b.bug);
        let key = Key::of(&[
            b"hunkgen-d4j-eval-v2",
            b.fingerprint.as_bytes(),
            b.project.as_bytes(),
            v.vid().as_bytes(),
            state.map(Patch::to_bytes).unwrap_or_default().as_slice(),
            model
                .as_ref()
                .map(Patch::to_bytes)
                .unwrap_or_default()
                .as_slice(),
        ]);
        std::fs::create_dir_all(&b.logs).map_err(|source| {
            st(StageError::Io {
                path: b.logs.clone(),
                source,
            })
        })?;
        let log_name = |phase: &str| format!("{label}-{phase}.log");
        let excluded: Vec<String> = broken_on_fixed(&b.home, &b.project, &c.fix_commit)
            .into_iter()
            .collect();
        if let Some(hit) = self
            .results
            .get(&key)
            .and_then(|bytes| serde_json::from_slice::<CachedEval>(&bytes).ok())
        {
            for (name, text) in &hit.logs {
                let _ = std::fs::write(b.logs.join(name), text.as_bytes());
            }
            return Ok(D4jEvalRun {
                cached: true,
                excluded,
                ..hit.run
            });
        }
        let d4j = self.d4j_handle(&b).map_err(st)?;
        let root = self.plan.cache_dir.join("d4j");
        // The checkout is setup, not the patch's run: the plan's timeout (evaluate's
        // `--timeout`) limits compile and tests, never the one-time checkout.
        let setup = self.d4j_handle(&b).map_err(st)?.with_timeout(
            self.plan.timeout.max(Duration::from_secs(1800)),
            Duration::from_secs(10),
        );
        let checkout = self.d4j_checkout(&setup, &root, &v, &b.logs).map_err(st)?;
        let tmp = self
            .d4j_run_dir(&root, &format!("{}-eval-", v.name()))
            .map_err(st)?;
        let work = tmp.path().join("w");
        copy_checkout(&checkout, &work, &[".git"]).map_err(|source| {
            st(StageError::Copy {
                from: checkout.clone(),
                to: work.clone(),
                source,
            })
        })?;
        if let Some(s) = state {
            apply_to_dir(s, &work).map_err(|source| D4jEvalError::State {
                instance: c.id.clone(),
                source,
            })?;
        }
        let applied = match &model {
            None => None,
            Some(m) if m.files.is_empty() => Some(ApplyMethod::Empty),
            Some(m) => {
                let repo = match &c.base {
                    Base::Fixed {
                        tree: Tree::Git { repo, .. },
                        ..
                    }
                    | Base::Buggy(Tree::Git { repo, .. }) => Some(repo.as_path()),
                    _ => None,
                };
                Some(match apply_fuzzy(m, &work, repo) {
                    Ok(Applied::Exact) => ApplyMethod::Exact,
                    Ok(Applied::ThreeWay) => ApplyMethod::ThreeWay,
                    Ok(Applied::Fuzz) => ApplyMethod::Fuzz,
                    Err(e) => return Err(D4jEvalError::DoesNotApply(e)),
                })
            }
        };
        let mut logs_kept = Vec::new();
        let mut keep = |name: String| {
            let text = std::fs::read(b.logs.join(&name))
                .map(|t| String::from_utf8_lossy(&t).into_owned())
                .unwrap_or_default();
            logs_kept.push((name, text));
        };
        let compile_log = log_name("compile");
        let compiled = d4j
            .compile(&self.runner, &work, &b.logs.join(&compile_log))
            .map_err(|e| st(e.into()))?;
        keep(compile_log);
        let mut run = D4jEvalRun {
            applied,
            compile: compiled.outcome,
            trigger: None,
            suite: None,
            seconds: compiled.seconds,
            excluded,
            cached: false,
        };
        if run.compile == CompileOutcome::Compiled {
            for (phase, scope) in [("trigger", TestScope::Trigger), ("suite", TestScope::All)] {
                if run.timed_out().is_some() {
                    break;
                }
                let name = log_name(phase);
                let t = d4j
                    .test(&self.runner, &work, &scope, &b.logs.join(&name))
                    .map_err(|e| st(e.into()))?;
                keep(name);
                run.seconds += t.seconds;
                match phase {
                    "trigger" => run.trigger = Some(t.outcome),
                    _ => run.suite = Some(t.outcome),
                }
            }
        }
        if run.timed_out().is_none() {
            let entry = CachedEval {
                run: run.clone(),
                logs: logs_kept,
            };
            if let Ok(bytes) = serde_json::to_vec(&entry) {
                let _ = self.results.put(&key, &bytes);
            }
        }
        Ok(run)
    }
}

/// A Defects4J evaluation error from the stage's error, naming the instance.
fn stage(c: &Candidate, source: StageError) -> D4jEvalError {
    D4jEvalError::Stage {
        instance: c.id.clone(),
        source: Box::new(source),
    }
}

/// Copies a checkout without the top-level entries named in `skip`, keeping symbolic
/// links as links, file permissions and modification times.
pub fn copy_checkout(from: &Path, to: &Path, skip: &[&str]) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        if skip.iter().any(|s| e.file_name() == *s) {
            continue;
        }
        let dest = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            super::copy_tree(&e.path(), &dest, true)?;
        } else if e.file_type()?.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(e.path())?, &dest)?;
        } else {
            std::fs::copy(e.path(), &dest)?;
            std::fs::File::options()
                .write(true)
                .open(&dest)?
                .set_modified(e.metadata()?.modified()?)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_for_an_agent_leaves_out_the_history_and_defects4j_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        let from = dir.path().join("from");
        std::fs::create_dir_all(from.join(".git/refs")).expect("mkdir");
        std::fs::create_dir_all(from.join("src/java")).expect("mkdir");
        for f in [
            ".defects4j.config",
            "defects4j.build.properties",
            "build.xml",
            "src/java/A.java",
            ".git/HEAD",
        ] {
            std::fs::write(from.join(f), f).expect("write");
        }
        let to = dir.path().join("to");
        copy_checkout(&from, &to, &HIDDEN_FROM_AGENT).expect("copy");
        assert!(to.join("build.xml").is_file() && to.join("src/java/A.java").is_file());
        for hidden in HIDDEN_FROM_AGENT {
            assert!(!to.join(hidden).exists(), "{hidden}");
        }
    }
}
