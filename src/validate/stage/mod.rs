//! The validate stage: prove each instance's golden tests by running them on the base,
//! base + test patch, and base + test patch + patch, each in a fresh working copy, in the
//! sandbox, `reruns` times; label the tests and keep or reject the instance (ARCHITECTURE §5).
//!
//! Every run is cached by the hash of what determines it (base tree, patches applied,
//! environment, command, rerun index), so re-validating an unchanged dataset costs no
//! test run and an interrupted build resumes where it stopped. One run is made in `run`;
//! the three entry points (validate, the Partial-state check, an evaluation run) share
//! one setup of base, tree, suites and environments.

mod d4j;
mod error;
mod memo;
mod run;
mod setup;

pub use d4j::{
    broken_on_fixed, copy_checkout, D4jCheckout, D4jEvalError, D4jEvalRun, D4jTests, D4jValidate,
    HIDDEN_FROM_AGENT,
};
pub use error::StageError;
pub use setup::AgentEnv;
use setup::{GitBase, SetupError};

use super::env::{BuiltEnv, EnvCache, EnvError, EnvSpec, InstanceEnv};
use super::golden::{self, Label, Rejection};
use super::parse::{InfraFailure, InfraKind, RunResult};
use super::runner::Runner;
use crate::cache::Cache;
use crate::diff::Patch;
use crate::model::{RejectReason, TreeRuns, TreeSeconds, ValidationRecord};
use crate::source::Candidate;
use memo::pass_runs;
use run::RunArgs;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Which tests a run covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// The test files the test patch touches (SWE-bench's test directives).
    #[default]
    Touched,
    /// The whole suite.
    Full,
}

/// Where the proven lists differ from a SWE-bench row's published ones, as sets, one
/// entry per list and direction (empty: they agree).
fn published_differences(c: &Candidate, f2p: &[String], p2p: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (name, proven, published) in [
        ("FAIL_TO_PASS", f2p, &c.fail_to_pass),
        ("PASS_TO_PASS", p2p, &c.pass_to_pass),
    ] {
        let proven: BTreeSet<&String> = proven.iter().collect();
        let published: BTreeSet<&String> = published.iter().collect();
        let only = |a: &BTreeSet<&String>, b: &BTreeSet<&String>| {
            let d: Vec<&str> = a.difference(b).map(|t| t.as_str()).collect();
            let n = d.len();
            let mut shown: Vec<&str> = d.into_iter().take(5).collect();
            if n > 5 {
                shown.push("…");
            }
            (n, shown.join(", "))
        };
        let (n, list) = only(&proven, &published);
        if n > 0 {
            out.push(format!("{name}: {n} proven but not published ({list})"));
        }
        let (n, list) = only(&published, &proven);
        if n > 0 {
            out.push(format!("{name}: {n} published but not proven ({list})"));
        }
    }
    out
}

/// How a suite reports its results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportKind {
    /// pytest: `--junitxml={report_dir}/pytest.xml` plus the `-rA` summary in the log.
    Pytest,
    /// JUnit XML files (`TEST-*.xml`) in `{report_dir}`.
    Junit,
    /// The run's log, read by the official `swebench` package's parser of the row's
    /// repository (with `env: swebench`, which names the package).
    Swebench,
}

/// One way to run tests, chosen for an instance by the paths its test patch touches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    /// Name, for logs and the validation record.
    pub name: String,
    /// Repository-relative prefixes of the test files this suite runs (empty: all).
    #[serde(default)]
    pub paths: Vec<String>,
    /// Directory (relative to the repository root) the command runs in.
    #[serde(default)]
    pub workdir: Option<String>,
    /// The environment.
    pub env: EnvSpec,
    /// Shell command; `{tests}` becomes the selected test files (relative to `workdir`)
    /// and `{report_dir}` the directory reports go to. Java environments default to
    /// javac + the JUnit console launcher.
    #[serde(default)]
    pub command: Option<String>,
    /// How results are read.
    pub report: ReportKind,
}

/// The validate stage's resolved configuration (from the recipe's `validate:`).
#[derive(Debug, Clone)]
pub struct ValidatePlan {
    /// Runs per tree (a test whose outcome differs between them is flaky).
    pub reruns: usize,
    /// Per-run wall-clock limit.
    pub timeout: Duration,
    /// Address-space limit per run, bytes.
    pub memory_limit: Option<u64>,
    /// Processes per run (None: the runner's default in the sandbox).
    pub process_limit: Option<u64>,
    /// Largest file a run may write, bytes (None: the runner's default).
    pub file_size_limit: Option<u64>,
    /// Touched test files or the full suite.
    pub scope: Scope,
    /// The suites.
    pub suites: Vec<Suite>,
    /// Cache root (environments, run results, uv's package cache).
    pub cache_dir: PathBuf,
    /// Allow environment builds to use the network (first install).
    pub network_for_setup: bool,
    /// Defects4J bugs are built and tested by Defects4J itself (`validate.defects4j`).
    pub defects4j: Option<D4jValidate>,
    /// Ablate each counted hunk of a confirmed instance (`hunks[].necessary`).
    pub necessary_hunks: bool,
}

/// What validating one instance gave (kept in the build memo, hence serde).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Outcome {
    /// FAIL_TO_PASS in SWE-bench form (f2p, s2p, n2p).
    pub fail_to_pass: Vec<String>,
    /// PASS_TO_PASS.
    pub pass_to_pass: Vec<String>,
    /// What each FAIL_TO_PASS test says when it fails before the fix.
    pub failures: Vec<crate::model::Failure>,
    /// The `validation{}` record.
    pub record: ValidationRecord,
    /// `Some` when the instance is rejected: the reason code and one line.
    pub rejection: Option<(RejectReason, String)>,
    /// Runs that were answered from the cache.
    pub cached_runs: usize,
    /// Runs actually executed.
    pub executed_runs: usize,
}

/// Shared state of a validation pass: the runner, environments, result cache.
pub struct Validator<'a> {
    plan: &'a ValidatePlan,
    runner: Runner,
    envs: EnvCache,
    results: Cache,
    /// Verdicts of instances whose runs are all cached, keyed by those runs.
    memo: crate::memo::Memo,
    built: Mutex<HashMap<String, Result<BuiltEnv, Arc<EnvError>>>>,
    /// Environments declared per instance (`python: auto`), per repository, suite and
    /// base revision.
    instance_built: Mutex<HashMap<String, Result<InstanceEnv, Arc<EnvError>>>>,
    /// Content hashes of Defects4J projects and JDKs, once per pass.
    d4j_fingerprints: Mutex<HashMap<String, String>>,
    /// With [`Validator::defer_cached_logs`]: the logs of runs answered from the cache,
    /// held until the build knows whether it changes anything.
    deferred_logs: Option<Mutex<DeferredLogs>>,
}

/// Logs of cached runs not yet written: path → text, and their total size.
#[derive(Default)]
struct DeferredLogs {
    bytes: usize,
    files: std::collections::BTreeMap<PathBuf, String>,
}

/// Log bytes held back at most; past it a cached run's log is written at once.
const DEFERRED_LOG_BYTES: usize = 256 << 20;

/// The three trees of an instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TreeKind {
    Base,
    Before,
    After,
}

impl TreeKind {
    fn name(self) -> &'static str {
        match self {
            TreeKind::Base => "base",
            TreeKind::Before => "before",
            TreeKind::After => "after",
        }
    }
}

impl<'a> Validator<'a> {
    /// A validator over `plan` with the given runner.
    pub fn new(plan: &'a ValidatePlan, runner: Runner) -> Self {
        let uv_cache = std::env::var_os("HUNKGEN_UV_CACHE")
            .map(PathBuf::from)
            .unwrap_or_else(|| plan.cache_dir.join("uv"));
        let mut envs = EnvCache::new(plan.cache_dir.join("envs"), uv_cache)
            .with_network(plan.network_for_setup);
        if let Some(uv) = super::env::find_uv() {
            envs = envs.with_uv(uv);
        }
        Validator {
            plan,
            runner,
            envs,
            results: Cache::new(plan.cache_dir.join("runs")),
            memo: crate::memo::Memo::new(&plan.cache_dir, true),
            built: Mutex::new(HashMap::new()),
            instance_built: Mutex::new(HashMap::new()),
            d4j_fingerprints: Mutex::new(HashMap::new()),
            deferred_logs: None,
        }
    }

    /// Hold the logs of runs answered from the cache instead of writing them: a warm
    /// rebuild that changes nothing then writes (and removes) no log at all, and the
    /// build writes them with [`Validator::take_deferred_logs`] when it publishes.
    pub fn defer_cached_logs(&mut self) {
        self.deferred_logs = Some(Mutex::default());
    }

    /// The logs held back so far (path → text), emptying the hold.
    pub fn take_deferred_logs(&self) -> std::collections::BTreeMap<PathBuf, String> {
        self.deferred_logs
            .as_ref()
            .map(|m| {
                let mut held = m.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                std::mem::take(&mut *held).files
            })
            .unwrap_or_default()
    }

    /// Write a cached run's log to `path`, or hold it when logs are deferred.
    fn cached_log(&self, path: &Path, text: String) {
        if let Some(m) = &self.deferred_logs {
            let mut held = m.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if held.bytes + text.len() <= DEFERRED_LOG_BYTES {
                held.bytes += text.len();
                if let Some(replaced) = held.files.insert(path.to_path_buf(), text) {
                    held.bytes -= replaced.len();
                }
                return;
            }
        }
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = std::fs::write(path, text.as_bytes());
    }

    /// The runner's one-time warning (sandbox missing), if any.
    pub fn take_warning(&self) -> Option<String> {
        self.runner.take_warning()
    }

    /// Whether runs are sandboxed.
    pub fn sandboxed(&self) -> bool {
        self.runner.is_sandboxed()
    }

    /// Validate one candidate, writing run logs under `logs/<instance id>/`.
    pub fn validate(&self, c: &Candidate, logs: &Path, use_cache: bool) -> Outcome {
        let mut out = Outcome {
            fail_to_pass: Vec::new(),
            pass_to_pass: Vec::new(),
            failures: Vec::new(),
            record: ValidationRecord {
                suites: Vec::new(),
                scope: match self.plan.scope {
                    Scope::Touched => "touched".into(),
                    Scope::Full => "full".into(),
                },
                runs: TreeRuns::default(),
                seconds: TreeSeconds::default(),
                labels: BTreeMap::new(),
                flaky: Vec::new(),
                environments: Vec::new(),
                sandboxed: self.runner.is_sandboxed(),
                before_unbuilt: None,
                d4j_agrees: None,
                d4j_excluded: Vec::new(),
                python: None,
                maven: None,
                swebench: None,
                published_agrees: None,
            },
            rejection: None,
            cached_runs: 0,
            executed_runs: 0,
        };
        if let (Some(d), crate::model::SourceKind::Defects4j) = (&self.plan.defects4j, c.source) {
            return self.validate_defects4j(d, c, logs, use_cache, out);
        }
        let setup = match self.setup(c) {
            Ok(s) => s,
            Err(e) => {
                out.rejection = Some(match e {
                    SetupError::Base(why) => (RejectReason::BaseTree, why),
                    SetupError::NoSuite => {
                        let test_files: Vec<&str> =
                            c.test_patch.files.iter().map(|f| f.path()).collect();
                        (
                            RejectReason::NoTestSuite,
                            format!(
                                "no test suite of the recipe covers the test files ({})",
                                test_files.join(", ")
                            ),
                        )
                    }
                    SetupError::NothingSelected => {
                        let test_files: Vec<&str> =
                            c.test_patch.files.iter().map(|f| f.path()).collect();
                        (
                            RejectReason::NoTestSuite,
                            format!(
                                "the test patch touches no file its suites run as a test ({}): \
                                 nothing to run (check each suite's workdir and pytest's python_files)",
                                test_files.join(", ")
                            ),
                        )
                    }
                    SetupError::Env(why) => {
                        let reason = match &why {
                            StageError::Env { source, .. } => source.reject_reason(),
                            _ => RejectReason::Environment,
                        };
                        (reason, why.to_string())
                    }
                    SetupError::Tree { error, .. } => (RejectReason::BaseTree, error),
                });
                return out;
            }
        };
        if let Some(r) = &setup.record {
            r.write(&mut out.record);
        }
        for (s, env, _) in &setup.suites {
            out.record.environments.push(env.key.clone());
            out.record.suites.push(s.name.clone());
        }
        // Every run named: a warm rebuild whose runs are all cached, unchanged, answers
        // the verdict from the memo (writing the runs' logs) instead of reading and
        // labelling each result again.
        let names = self.run_names(c, &setup, logs, use_cache);
        let memo_key = names.as_ref().map(|n| self.outcome_key(c, n, &out));
        if let (Some(key), Some(names), true) = (&memo_key, &names, use_cache) {
            if let Some(hit) = self.memo_hit(key, names, &out) {
                return hit;
            }
        }
        let out = self.validate_runs(c, &setup, logs, use_cache, out);
        if let (Some(key), Some(names)) = (&memo_key, &names) {
            if out.cached_runs + out.executed_runs == names.len() {
                self.memo_put(key, names, &out);
            }
        }
        out
    }

    /// The runs of a set-up candidate and their verdict.
    fn validate_runs(
        &self,
        c: &Candidate,
        setup: &setup::Setup<'_, '_>,
        logs: &Path,
        use_cache: bool,
        mut out: Outcome,
    ) -> Outcome {
        let mut by_tree: [Vec<RunResult>; 3] = Default::default();
        let mut before_failures: BTreeMap<String, crate::model::Failure> = BTreeMap::new();
        for (t, (kind, reruns)) in self.tree_runs().into_iter().enumerate() {
            for k in 0..reruns {
                let mut merged: Option<RunResult> = None;
                for args in pass_runs(c, setup, kind, k, logs, use_cache) {
                    match self.run(args) {
                        Ok((cached, seconds, result, failures)) => {
                            if kind == TreeKind::Before && k == 0 {
                                before_failures.extend(failures);
                            }
                            if cached {
                                out.cached_runs += 1;
                            } else {
                                out.executed_runs += 1;
                            }
                            match kind {
                                TreeKind::Base => out.record.seconds.base += seconds,
                                TreeKind::Before => out.record.seconds.before += seconds,
                                TreeKind::After => out.record.seconds.after += seconds,
                            }
                            merged = Some(merge(merged, result));
                        }
                        Err(why) => {
                            out.rejection = Some((RejectReason::BaseTree, why.to_string()));
                            return out;
                        }
                    }
                }
                if let Some(m) = merged {
                    by_tree[t].push(m);
                }
            }
        }
        out.record.runs = TreeRuns {
            base: by_tree[0].len(),
            before: by_tree[1].len(),
            after: by_tree[2].len(),
        };
        // A new test that cannot even be collected or compiled before the fix (it imports
        // or calls what the fix adds) is absent there, as SWE-bench's grading counts it,
        // when every after-run ran: its tests become n2p instead of an infrastructure
        // rejection. Any other infrastructure failure still rejects the instance.
        let unbuilt = |r: &RunResult| {
            matches!(r, RunResult::Infra(f)
                if matches!(f.kind, InfraKind::CollectionError | InfraKind::BuildFailure | InfraKind::TestCompileError))
        };
        let before_unbuilt = !by_tree[1].is_empty()
            && by_tree[1].iter().all(unbuilt)
            && by_tree[2].iter().all(|r| matches!(r, RunResult::Tests(_)));
        if before_unbuilt {
            if let Some(RunResult::Infra(f)) = by_tree[1].first() {
                out.record.before_unbuilt = Some(f.reason.clone());
            }
            for r in by_tree[1].iter_mut() {
                *r = RunResult::Tests(Default::default());
            }
        }
        let v = golden::validate(&by_tree[1], &by_tree[2]);
        for label in [
            Label::F2P,
            Label::P2P,
            Label::F2F,
            Label::P2F,
            Label::S2P,
            Label::N2P,
        ] {
            let n = v.labels.with(label).len();
            if n > 0 {
                out.record.labels.insert(label.code().to_string(), n);
            }
        }
        out.record.flaky = v.labels.flaky.keys().cloned().collect();
        let labels_seen: Vec<String> = out
            .record
            .labels
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        out.fail_to_pass = v.golden.fail_to_pass.clone();
        out.failures = out
            .fail_to_pass
            .iter()
            .filter_map(|t| before_failures.get(t).cloned())
            .collect();
        out.pass_to_pass = v.golden.pass_to_pass.clone();
        out.rejection = v.rejection.map(|r| match r {
            Rejection::Infra { side, run, failure } => (
                match failure.kind {
                    InfraKind::Timeout => RejectReason::Timeout,
                    InfraKind::Unresolved => RejectReason::DependencyUnresolvable,
                    InfraKind::CompileError => RejectReason::CompileError,
                    InfraKind::TestCompileError => RejectReason::TestCompileError,
                    InfraKind::ZeroTests => RejectReason::ZeroTests,
                    InfraKind::Environment => RejectReason::Environment,
                    InfraKind::CollectionError
                        if failure.reason.contains(super::parse::PYTHON2_CODE) =>
                    {
                        RejectReason::UnsupportedPython
                    }
                    _ => RejectReason::Infrastructure,
                },
                infra_detail(&c.id, &side, run, &failure),
            ),
            Rejection::NoFailToPass => (
                RejectReason::NoFailToPass,
                format!(
                    "no test fails before the fix and passes after it ({})",
                    if labels_seen.is_empty() {
                        "no stable test ran".to_string()
                    } else {
                        labels_seen.join(", ")
                    }
                ),
            ),
            Rejection::PassToFail { tests } => (
                RejectReason::PassToFail,
                format!(
                    "the fix breaks test(s) that passed before: {}",
                    tests.join(", ")
                ),
            ),
        });
        if out.rejection.is_none() && out.record.swebench.is_some() {
            // Compared as the rows' lists were made: an XFAIL after the fix is listed
            // nowhere there, though it grades as passing (golden::as_collected).
            let results = |runs: &[RunResult]| -> Vec<super::TestResults> {
                runs.iter()
                    .filter_map(|r| match r {
                        RunResult::Tests(t) => Some(t.clone()),
                        RunResult::Infra(_) => None,
                    })
                    .collect()
            };
            let collected = golden::as_collected(&results(&by_tree[1]), &results(&by_tree[2]));
            let differs =
                published_differences(c, &collected.fail_to_pass, &collected.pass_to_pass);
            out.record.published_agrees = Some(differs.is_empty());
            if !differs.is_empty() {
                out.rejection = Some((RejectReason::PublishedDisagrees, differs.join("; ")));
            }
        }
        out
    }

    /// Whether a Partial change is a still-buggy state: base + `change` + test patch must
    /// build and run, and at least one of `fail_to_pass` (the states writer passes every
    /// golden test, FAIL_TO_PASS and PASS_TO_PASS: unresolved as evaluation scores it)
    /// must still not pass on every rerun. Returns the verdict and a JSON record for the
    /// state's manifest.
    pub fn partial_still_fails(
        &self,
        c: &Candidate,
        change: &Patch,
        fail_to_pass: &[String],
        logs: &Path,
    ) -> (bool, serde_json::Value) {
        if let (Some(d), crate::model::SourceKind::Defects4j) = (&self.plan.defects4j, c.source) {
            return self.d4j_partial_still_fails(d, c, change, fail_to_pass, logs);
        }
        let mut partial = c.clone();
        partial.patch = change.clone();
        partial.id = format!("{}/partial", c.id);
        let setup = match self.setup(c) {
            Ok(s) => s,
            Err(e) => {
                let error = match e {
                    SetupError::Base(why) => why,
                    SetupError::NoSuite => "no suite".into(),
                    SetupError::NothingSelected => "no test selected".into(),
                    SetupError::Env(_) => "environment unavailable".into(),
                    SetupError::Tree { .. } => "base tree unreadable".into(),
                };
                return (false, serde_json::json!({ "error": error }));
            }
        };
        let mut still_failing_each_run = Vec::new();
        let mut failing_every_run: Option<Vec<String>> = None;
        for k in 0..self.plan.reruns.max(1) {
            let mut merged: Option<RunResult> = None;
            for (s, env, selected) in &setup.suites {
                match self.run(RunArgs {
                    c: &partial,
                    base: &setup.base,
                    kind: TreeKind::After,
                    rerun: k,
                    suite: s,
                    env,
                    selected,
                    logs,
                    use_cache: true,
                    model: None,
                    label: None,
                }) {
                    Ok((_, _, r, _)) => merged = Some(merge(merged, r)),
                    Err(why) => return (false, serde_json::json!({"error": why.to_string()})),
                }
            }
            match merged {
                Some(RunResult::Tests(t)) => {
                    let failing: Vec<String> = fail_to_pass
                        .iter()
                        .filter(|id| !golden::test_passed(id, &t))
                        .cloned()
                        .collect();
                    if failing.is_empty() {
                        return (
                            false,
                            serde_json::json!({"golden_tests": "pass", "rerun": k}),
                        );
                    }
                    still_failing_each_run.push(failing.len());
                    failing_every_run = Some(still_failing(failing_every_run.take(), failing));
                }
                Some(RunResult::Infra(f)) => {
                    return (
                        false,
                        serde_json::json!({"error": f.reason, "kind": format!("{:?}", f.kind)}),
                    )
                }
                None => return (false, serde_json::json!({"error": "no suite"})),
            }
        }
        (
            true,
            serde_json::json!({
                "golden_tests": "fail",
                "runs": still_failing_each_run.len(),
                "failing_per_run": still_failing_each_run,
                "of": fail_to_pass.len(),
                "failing_tests": failing_every_run.unwrap_or_default(),
            }),
        )
    }
}

/// The golden tests a Partial state fails on every rerun so far: `run`'s failing tests
/// kept only where every earlier run failed them too (the manifest's `failing_tests`).
pub(crate) fn still_failing(so_far: Option<Vec<String>>, run: Vec<String>) -> Vec<String> {
    match so_far {
        None => run,
        Some(prev) => run.into_iter().filter(|t| prev.contains(t)).collect(),
    }
}

/// Results of several suites on one tree as one run: the union of their tests; any
/// suite that did not run makes the whole run an infrastructure failure.
fn merge(acc: Option<RunResult>, next: RunResult) -> RunResult {
    match (acc, next) {
        (None, r) => r,
        (Some(RunResult::Infra(f)), _) | (Some(RunResult::Tests(_)), RunResult::Infra(f)) => {
            RunResult::Infra(f)
        }
        (Some(RunResult::Tests(mut a)), RunResult::Tests(b)) => {
            a.extend(b);
            RunResult::Tests(a)
        }
    }
}

/// One evaluation run's outcome: the tests of state + golden tests (+ the predicted
/// patch), merged over the instance's suites.
#[derive(Debug, Clone)]
pub struct EvalRun {
    /// The result (tests, or why the suite did not run).
    pub result: RunResult,
    /// Why the run could not even be made (a patch that does not apply, no suite).
    pub error: Option<String>,
}

impl<'a> Validator<'a> {
    /// Run the golden tests on a state: the base, plus `state_change` (Partial or
    /// Resolved), plus the test patch, plus `model` (a system's patch, applied exactly or
    /// with fuzz, its test-file changes dropped). One run (rerun 0), cached like the rest.
    pub fn evaluate_run(
        &self,
        c: &Candidate,
        state_change: Option<&Patch>,
        model: Option<&Patch>,
        label: &str,
        logs: &Path,
    ) -> EvalRun {
        let fail = |why: String| EvalRun {
            result: RunResult::Infra(InfraFailure {
                kind: InfraKind::BuildFailure,
                reason: why.clone(),
                log_path: PathBuf::new(),
            }),
            error: Some(why),
        };
        let setup = match self.setup(c) {
            Ok(s) => s,
            Err(SetupError::Base(why)) => return fail(why),
            Err(SetupError::Env(why)) => return fail(why.to_string()),
            Err(SetupError::NoSuite) => {
                return fail("no test suite of the recipe covers the golden tests".into())
            }
            Err(SetupError::NothingSelected) => {
                return fail("no suite runs any of the golden test files".into())
            }
            Err(SetupError::Tree { rev, .. }) => {
                return fail(format!("{rev}: base tree unreadable"))
            }
        };
        let mut cand = c.clone();
        let kind = match state_change {
            Some(ch) => {
                cand.patch = ch.clone();
                TreeKind::After
            }
            None => TreeKind::Before,
        };
        let mut merged: Option<RunResult> = None;
        for (s, env, selected) in &setup.suites {
            match self.run(RunArgs {
                c: &cand,
                base: &setup.base,
                kind,
                rerun: 0,
                suite: s,
                env,
                selected,
                logs,
                use_cache: true,
                model,
                label: Some(label),
            }) {
                Ok((_, _, r, _)) => merged = Some(merge(merged, r)),
                Err(why) => return fail(why.to_string()),
            }
        }
        EvalRun {
            result: merged.unwrap_or_else(|| RunResult::Tests(Default::default())),
            error: None,
        }
    }
}
/// The rejection detail of a run that produced no results: which side and rerun,
/// why, and the log it left under `logs/<id>/`.
pub(super) fn infra_detail(id: &str, side: &str, run: usize, failure: &InfraFailure) -> String {
    format!(
        "{side} run {run}: {} (logs/{id}/{})",
        failure.reason,
        failure
            .log_path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    )
}
