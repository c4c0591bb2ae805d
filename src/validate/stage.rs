//! The validate stage: prove each instance's golden tests by running them on the base,
//! base + test patch, and base + test patch + patch, each in a fresh working copy, in the
//! sandbox, `reruns` times; label the tests and keep or reject the instance (DESIGN §5).
//!
//! Every run is cached by the hash of what determines it (base tree, patches applied,
//! environment, command, rerun index), so re-validating an unchanged dataset costs no
//! test run and an interrupted build resumes where it stopped.

use super::apply::{apply_fuzzy, apply_to_dir};
use super::env::{java_test_command, sh_quote, BuiltEnv, EnvCache, EnvSpec};
use super::golden::{self, Label, Rejection};
use super::parse::{self, IdStyle, InfraFailure, InfraKind, RunResult};
use super::runner::{Command, RunSpec, Runner};
use crate::cache::{Cache, Key};
use crate::diff::Patch;
use crate::model::{RejectReason, TreeRuns, TreeSeconds, ValidationRecord};
use crate::source::{Base, Candidate, Tree};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
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

/// How a suite reports its results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportKind {
    /// pytest: `--junitxml={report_dir}/pytest.xml` plus the `-rA` summary in the log.
    Pytest,
    /// JUnit XML files (`TEST-*.xml`) in `{report_dir}`.
    Junit,
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
    /// Touched test files or the full suite.
    pub scope: Scope,
    /// The suites.
    pub suites: Vec<Suite>,
    /// Cache root (environments, run results, uv's package cache).
    pub cache_dir: PathBuf,
    /// Allow environment builds to use the network (first install).
    pub network_for_setup: bool,
}

/// What validating one instance gave.
#[derive(Debug, Clone)]
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
    built: Mutex<HashMap<String, Result<BuiltEnv, String>>>,
}

/// One run: (answered from the cache, seconds, result, failing tests' messages).
type Ran = (
    bool,
    f64,
    RunResult,
    BTreeMap<String, crate::model::Failure>,
);

/// The git repository, revision and (Defects4J) fixed→buggy patch of a candidate's base.
type GitBase<'c> = (&'c Path, &'c str, Option<&'c Patch>);

/// The candidate's base as a git tree, or why it is not one.
fn git_base(c: &Candidate) -> Result<GitBase<'_>, String> {
    match &c.base {
        Base::Buggy(Tree::Git { repo, rev, .. }) => Ok((repo, rev, None)),
        Base::Fixed {
            tree: Tree::Git { repo, rev, .. },
            to_buggy,
        } => Ok((repo, rev, Some(to_buggy))),
        Base::Missing { reason } => Err(reason.clone()),
        _ => Err("validation needs a git base tree".into()),
    }
}

/// A cached run: the parsed result, its failing tests' messages and its log text.
#[derive(Serialize, Deserialize)]
struct CachedRun {
    result: RunResult,
    seconds: f64,
    log: String,
    #[serde(default)]
    failures: BTreeMap<String, crate::model::Failure>,
}

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
            built: Mutex::new(HashMap::new()),
        }
    }

    /// The runner's one-time warning (sandbox missing), if any.
    pub fn take_warning(&self) -> Option<String> {
        self.runner.take_warning()
    }

    /// Whether runs are sandboxed.
    pub fn sandboxed(&self) -> bool {
        self.runner.is_sandboxed()
    }

    fn env(&self, repo: &str, suite: &Suite) -> Result<BuiltEnv, String> {
        let id = format!("{repo}\0{}", suite.name);
        if let Ok(map) = self.built.lock() {
            if let Some(r) = map.get(&id) {
                return r.clone();
            }
        }
        let r = self
            .envs
            .ensure(&self.runner, repo, &suite.env)
            .map_err(|e| format!("environment `{}`: {e}", suite.name));
        if let Ok(mut map) = self.built.lock() {
            map.insert(id, r.clone());
        }
        r
    }

    /// The suites that run a candidate's tests: those whose `paths` its test patch touches.
    fn suites_for(&self, c: &Candidate) -> Vec<&Suite> {
        self.plan
            .suites
            .iter()
            .filter(|s| {
                s.paths.is_empty()
                    || c.test_patch
                        .files
                        .iter()
                        .any(|f| s.paths.iter().any(|p| f.path().starts_with(p.as_str())))
            })
            .collect()
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
            },
            rejection: None,
            cached_runs: 0,
            executed_runs: 0,
        };
        let reject = |out: &mut Outcome, r: RejectReason, why: String| {
            out.rejection = Some((r, why));
        };
        let (repo, rev, to_buggy) = match git_base(c) {
            Ok(b) => b,
            Err(why) => {
                reject(&mut out, RejectReason::BaseTree, why);
                return out;
            }
        };
        let test_files: Vec<String> = c
            .test_patch
            .files
            .iter()
            .map(|f| f.path().to_string())
            .collect();
        let suites = self.suites_for(c);
        if suites.is_empty() {
            reject(
                &mut out,
                RejectReason::NoTestSuite,
                format!(
                    "no test suite of the recipe covers the test files ({})",
                    test_files.join(", ")
                ),
            );
            return out;
        }
        let mut envs = Vec::new();
        for s in &suites {
            match self.env(&c.repo, s) {
                Ok(e) => {
                    out.record.environments.push(e.key.clone());
                    envs.push(e);
                }
                Err(why) => {
                    reject(&mut out, RejectReason::Infrastructure, why);
                    return out;
                }
            }
            out.record.suites.push(s.name.clone());
        }
        let tree_id = match crate::git::tree_id(repo, rev) {
            Ok(t) => t,
            Err(e) => {
                reject(&mut out, RejectReason::BaseTree, e.to_string());
                return out;
            }
        };
        let mut by_tree: [Vec<RunResult>; 3] = Default::default();
        let mut before_failures: BTreeMap<String, crate::model::Failure> = BTreeMap::new();
        for (t, kind) in [TreeKind::Base, TreeKind::Before, TreeKind::After]
            .into_iter()
            .enumerate()
        {
            let reruns = if kind == TreeKind::Base {
                1
            } else {
                self.plan.reruns.max(1)
            };
            for k in 0..reruns {
                let mut merged: Option<RunResult> = None;
                for (s, env) in suites.iter().zip(&envs) {
                    let run = self.run(RunArgs {
                        c,
                        repo,
                        rev,
                        to_buggy,
                        tree_id: &tree_id,
                        kind,
                        rerun: k,
                        suite: s,
                        env,
                        logs,
                        use_cache,
                        model: None,
                        label: None,
                    });
                    match run {
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
                            reject(&mut out, RejectReason::BaseTree, why);
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
                if matches!(f.kind, InfraKind::CollectionError | InfraKind::BuildFailure))
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
                RejectReason::Infrastructure,
                format!(
                    "{side} run {run}: {} (logs/{}/{})",
                    failure.reason,
                    c.id,
                    failure
                        .log_path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default()
                ),
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
        out
    }

    /// Whether a Partial change is a still-buggy state: base + `change` + test patch must
    /// build and run, and at least one of `fail_to_pass` must still not pass on every
    /// rerun. Returns the verdict and a JSON record for the state's manifest.
    pub fn partial_still_fails(
        &self,
        c: &Candidate,
        change: &Patch,
        fail_to_pass: &[String],
        logs: &Path,
    ) -> (bool, serde_json::Value) {
        let mut partial = c.clone();
        partial.patch = change.clone();
        partial.id = format!("{}/partial", c.id);
        let (repo, rev, to_buggy) = match git_base(c) {
            Ok(b) => b,
            Err(why) => return (false, serde_json::json!({ "error": why })),
        };
        let Ok(tree_id) = crate::git::tree_id(repo, rev) else {
            return (false, serde_json::json!({"error": "base tree unreadable"}));
        };
        let suites = self.suites_for(c);
        let mut still_failing_each_run = Vec::new();
        for k in 0..self.plan.reruns.max(1) {
            let mut merged: Option<RunResult> = None;
            for s in &suites {
                let Ok(env) = self.env(&c.repo, s) else {
                    return (
                        false,
                        serde_json::json!({"error": "environment unavailable"}),
                    );
                };
                match self.run(RunArgs {
                    c: &partial,
                    repo,
                    rev,
                    to_buggy,
                    tree_id: &tree_id,
                    kind: TreeKind::After,
                    rerun: k,
                    suite: s,
                    env: &env,
                    logs,
                    use_cache: true,
                    model: None,
                    label: None,
                }) {
                    Ok((_, _, r, _)) => merged = Some(merge(merged, r)),
                    Err(why) => return (false, serde_json::json!({"error": why})),
                }
            }
            match merged {
                Some(RunResult::Tests(t)) => {
                    let failing: Vec<&String> = fail_to_pass
                        .iter()
                        .filter(|id| !golden::test_passed(id, &t))
                        .collect();
                    if failing.is_empty() {
                        return (
                            false,
                            serde_json::json!({"golden_tests": "pass", "rerun": k}),
                        );
                    }
                    still_failing_each_run.push(failing.len());
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
            }),
        )
    }

    /// One run (from the cache when possible): (cached, seconds, result).
    fn run(&self, a: RunArgs<'_>) -> Result<Ran, String> {
        let suite = a.suite;
        let workdir = suite.workdir.clone().unwrap_or_default();
        let selected = self.selection(a.c, suite, &workdir);
        let report_dir = ".hunkgen-reports";
        let command = match (&suite.command, &suite.env) {
            (Some(cmd), _) => Command::Shell(
                cmd.replace("{tests}", &selected.files)
                    .replace("{report_dir}", report_dir),
            ),
            (None, EnvSpec::Java(_)) => java_test_command(a.env, report_dir, &selected.classes)
                .map_err(|e| e.to_string())?,
            (None, _) => {
                return Err(format!(
                    "suite `{}`: no `command` (only Java environments have a default)",
                    suite.name
                ))
            }
        };
        let test_patch = matches!(a.kind, TreeKind::Before | TreeKind::After);
        let patch = a.kind == TreeKind::After;
        let key = Key::of(&[
            b"hunkgen-run-v2",
            a.tree_id.as_bytes(),
            a.to_buggy
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
            command.display().as_bytes(),
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
        if a.use_cache {
            if let Some(hit) = self
                .results
                .get(&key)
                .and_then(|b| serde_json::from_slice::<CachedRun>(&b).ok())
            {
                if let Some(dir) = log.parent() {
                    let _ = std::fs::create_dir_all(dir);
                }
                let _ = std::fs::write(&log, hit.log.as_bytes());
                return Ok((true, hit.seconds, hit.result, hit.failures));
            }
        }
        let wc = tempfile::Builder::new()
            .prefix("hunkgen-wc-")
            .tempdir()
            .map_err(|e| format!("cannot create a working copy: {e}"))?;
        let root = wc.path().join("repo");
        crate::git::export_tree(a.repo, a.rev, None, &root).map_err(|e| {
            let mut s = e.to_string();
            if let Some(src) = std::error::Error::source(&e) {
                s = format!("{s}: {src}");
            }
            s
        })?;
        let mut patches: Vec<(&str, &Patch)> = Vec::new();
        if let Some(p) = a.to_buggy {
            patches.push(("the base patch", p));
        }
        if test_patch {
            patches.push(("test_patch", &a.c.test_patch));
        }
        if patch {
            patches.push(("patch", &a.c.patch));
        }
        for (name, p) in patches {
            apply_to_dir(p, &root).map_err(|e| format!("{name} does not apply: {e}"))?;
        }
        if let Some(m) = a.model {
            // Its changes to the golden test files are dropped: the golden tests decide.
            let golden_tests: Vec<&str> = a.c.test_patch.files.iter().map(|f| f.path()).collect();
            let mut m = m.clone();
            m.files.retain(|f| !golden_tests.contains(&f.path()));
            apply_fuzzy(&m, &root, Some(a.repo))
                .map_err(|e| format!("the predicted patch does not apply: {e}"))?;
        }
        let dir = root.join(&workdir);
        let mut spec = RunSpec::new(command, &dir, &log)
            .with_timeout(self.plan.timeout, Duration::from_secs(10));
        spec.memory_limit = self.plan.memory_limit;
        spec.env.extend(a.env.vars());
        // The whole working copy is the run's (tests may read beyond their workdir); the
        // environment is visible read-only even when it lives under /tmp.
        spec.writable = vec![root.clone()];
        spec.readable = vec![a.env.dir.clone()];
        if let Some(uv_cache) = std::env::var_os("HUNKGEN_UV_CACHE") {
            // uv venvs hardlink into the package cache; the files must stay reachable.
            let p = PathBuf::from(uv_cache);
            if p.is_dir() {
                spec.readable.push(p);
            }
        }
        let result = match self.runner.run(&spec) {
            Ok(outcome) => {
                let reports = dir.join(report_dir);
                let (tests, collection) = match suite.report {
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
                            Ok(r) => (r.tests, r.collection_errors),
                            Err(e) => (Default::default(), vec![e.to_string()]),
                        }
                    }
                    ReportKind::Junit => match parse::parse_junit_dir(&reports, IdStyle::Java) {
                        Ok(t) => (t, Vec::new()),
                        Err(e) => (Default::default(), vec![e.to_string()]),
                    },
                };
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
            ReportKind::Pytest => IdStyle::Pytest,
            ReportKind::Junit => IdStyle::Java,
        };
        let mut files = parse::junit_files(&reports);
        if reports.join("pytest.xml").is_file() {
            files.push(reports.join("pytest.xml"));
        }
        let entry = CachedRun {
            result: result.1.clone(),
            seconds: result.0,
            log: log_text,
            failures: parse::junit_failures(&files, style),
        };
        // A timeout may be the machine's load, not the test: do not cache it.
        let timed_out = matches!(&result.1, RunResult::Infra(f) if f.kind == InfraKind::Timeout);
        if !timed_out {
            if let Ok(bytes) = serde_json::to_vec(&entry) {
                let _ = self.results.put(&key, &bytes);
            }
        }
        Ok((false, result.0, result.1, entry.failures))
    }

    fn selection(&self, c: &Candidate, suite: &Suite, workdir: &str) -> Selection {
        if self.plan.scope == Scope::Full {
            return Selection::default();
        }
        let prefix = if workdir.is_empty() {
            String::new()
        } else {
            format!("{}/", workdir.trim_end_matches('/'))
        };
        let mut files = Vec::new();
        let mut classes = Vec::new();
        for fp in &c.test_patch.files {
            if fp.new_path.is_none() {
                continue; // deleted test files are not run
            }
            let path = fp.path();
            if !suite.paths.is_empty() && !suite.paths.iter().any(|p| path.starts_with(p.as_str()))
            {
                continue;
            }
            let Some(rel) = path.strip_prefix(&prefix) else {
                continue;
            };
            match &suite.env {
                EnvSpec::Java(j) if rel.ends_with(".java") => {
                    for d in &j.test_dirs {
                        let d = format!("{}/", d.trim_end_matches('/'));
                        if let Some(class) = rel.strip_prefix(&d) {
                            classes.push(class.trim_end_matches(".java").replace('/', "."));
                        }
                    }
                }
                _ => files.push(sh_quote(rel)),
            }
        }
        Selection {
            files: files.join(" "),
            classes,
        }
    }
}

#[derive(Default)]
struct Selection {
    files: String,
    classes: Vec<String>,
}

struct RunArgs<'r> {
    c: &'r Candidate,
    repo: &'r Path,
    rev: &'r str,
    to_buggy: Option<&'r Patch>,
    tree_id: &'r str,
    kind: TreeKind,
    rerun: usize,
    suite: &'r Suite,
    env: &'r BuiltEnv,
    logs: &'r Path,
    use_cache: bool,
    /// A system's patch applied last (exactly, else with offset and fuzz), for evaluation.
    model: Option<&'r Patch>,
    /// Name of the run in its log file (default: the tree kind).
    label: Option<&'r str>,
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
        let (repo, rev, to_buggy) = match git_base(c) {
            Ok(b) => b,
            Err(why) => return fail(why),
        };
        let Ok(tree_id) = crate::git::tree_id(repo, rev) else {
            return fail(format!("{rev}: base tree unreadable"));
        };
        let mut cand = c.clone();
        let kind = match state_change {
            Some(ch) => {
                cand.patch = ch.clone();
                TreeKind::After
            }
            None => TreeKind::Before,
        };
        let suites = self.suites_for(c);
        if suites.is_empty() {
            return fail("no test suite of the recipe covers the golden tests".into());
        }
        let mut merged: Option<RunResult> = None;
        for s in suites {
            let env = match self.env(&c.repo, s) {
                Ok(e) => e,
                Err(why) => return fail(why),
            };
            match self.run(RunArgs {
                c: &cand,
                repo,
                rev,
                to_buggy,
                tree_id: &tree_id,
                kind,
                rerun: 0,
                suite: s,
                env: &env,
                logs,
                use_cache: true,
                model,
                label: Some(label),
            }) {
                Ok((_, _, r, _)) => merged = Some(merge(merged, r)),
                Err(why) => return fail(why),
            }
        }
        EvalRun {
            result: merged.unwrap_or_else(|| RunResult::Tests(Default::default())),
            error: None,
        }
    }
}
