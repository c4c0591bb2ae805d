//! Scoring one prediction on a dataset Defects4J validated (HUNK4J), as the agent study
//! does: the predicted patch on a fresh copy of the cached buggy checkout (plus the
//! state's change), `defects4j compile` (a compile error is an immediate rejection),
//! then the trigger tests in their own runs and the whole suite; the same runs without
//! the patch give the failing tests before it. Tests Defects4J lists as failing on the
//! fixed version are left out on both sides, as the build leaves them out of the labels,
//! and so are tests that fail on the fixed version here (the buggy checkout plus the
//! golden patch, in the same sandbox and JDK: a suite test that needs the network, or
//! class-generation code an old library cannot run on this JDK); a golden test failing
//! there is never left out, and the row names it.

use crate::diff::Patch;
use crate::model::{ApplyMethod, D4jResult, Instance, PredictionResult, ResolutionStatus};
use crate::source::Candidate;
use crate::validate::defects4j::{CompileOutcome, TestOutcome};
use crate::validate::golden::{self, EvalType, GoldenTests, Resolution};
use crate::validate::parse::{RunResult, TestResults, TestStatus};
use crate::validate::stage::{D4jEvalError, D4jEvalRun, Validator};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// What one prediction needs besides its row: the instance, its candidate, the state's
/// change, the parsed patch, and where logs go under which label.
pub(super) struct Job<'a> {
    /// The instance.
    pub inst: &'a Instance,
    /// Its candidate (base, golden tests).
    pub candidate: &'a Candidate,
    /// The state's change from the buggy version (Partial, Resolved).
    pub state_change: Option<&'a Patch>,
    /// The predicted patch (empty: no change).
    pub patch: &'a Patch,
    /// `eval-<state>`.
    pub label: &'a str,
    /// The evaluation's `logs/`.
    pub logs: &'a Path,
}

/// Grade `r` (its patch metrics already filled) by running Defects4J.
pub(super) fn score(
    mut r: PredictionResult,
    job: &Job<'_>,
    validator: &Validator<'_>,
) -> PredictionResult {
    let before = validator.d4j_evaluate(
        job.candidate,
        job.state_change,
        None,
        &format!("{}-before", job.label),
        job.logs,
    );
    let before = match before {
        Ok(b) => b,
        Err(e) => {
            r.infra = Some(e.to_string());
            return r;
        }
    };
    // Tests that fail on the fixed version here are no regression of any patch.
    let fixed = fixed_version_failures(job, validator);
    let mut why: BTreeMap<String, String> = before
        .excluded
        .iter()
        .map(|t| (t.clone(), DEFECTS4J_LISTED.to_string()))
        .collect();
    let golden: BTreeSet<&str> = job.inst.FAIL_TO_PASS.iter().map(String::as_str).collect();
    let mut golden_failing = Vec::new();
    for t in fixed {
        if golden.contains(t.as_str()) {
            golden_failing.push(t);
        } else {
            why.entry(t)
                .or_insert_with(|| FAILS_ON_FIXED_HERE.to_string());
        }
    }
    let excluded: BTreeSet<&str> = why.keys().map(String::as_str).collect();
    r.failing_before = suite(&before, &excluded).map(|(_, failing)| failing.len());
    let after = if job.patch.files.is_empty() {
        Ok(D4jEvalRun {
            applied: Some(ApplyMethod::Empty),
            ..before.clone()
        })
    } else {
        validator.d4j_evaluate(
            job.candidate,
            job.state_change,
            Some(job.patch),
            job.label,
            job.logs,
        )
    };
    let after = match after {
        Ok(a) => a,
        Err(e @ D4jEvalError::DoesNotApply { .. }) => {
            r.problems.push(e.to_string());
            return r;
        }
        Err(e) => {
            r.infra = Some(e.to_string());
            return r;
        }
    };
    grade(&mut r, job, &after, &excluded);
    if let Some(d) = r.defects4j.as_mut() {
        d.excluded_why = why.clone();
        d.golden_failing_on_fixed = golden_failing;
    }
    if let (Some(d), Some(phase)) = (r.defects4j.as_mut(), before.timed_out()) {
        d.timed_out.get_or_insert_with(|| format!("before-{phase}"));
    }
    r
}

/// Why a test Defects4J lists as failing on the fixed version is left out.
pub const DEFECTS4J_LISTED: &str = "defects4j failing_tests (fails on the fixed version)";
/// Why a test that fails on the fixed version in this environment is left out.
pub const FAILS_ON_FIXED_HERE: &str =
    "fails on the fixed version here (buggy version + golden patch, same sandbox and JDK)";

/// Tests (trigger runs and whole suite) that fail on the bug's fixed version, the buggy
/// checkout plus the golden patch, run as a prediction would be in this environment; the
/// run is the gold baseline's on Novel, so it is cached once per bug. Empty when it did
/// not run to test results (the caller's own runs then say why).
fn fixed_version_failures(job: &Job<'_>, validator: &Validator<'_>) -> BTreeSet<String> {
    let Ok(run) = validator.d4j_evaluate(
        job.candidate,
        None,
        Some(&job.candidate.patch),
        "eval-fixed",
        job.logs,
    ) else {
        return BTreeSet::new();
    };
    let mut out = BTreeSet::new();
    for outcome in [&run.trigger, &run.suite].into_iter().flatten() {
        if let TestOutcome::Tests { results, .. } = outcome {
            out.extend(failing_ids(results));
        }
    }
    out
}

/// The whole suite's results without the excluded tests, and its failing tests.
fn suite(run: &D4jEvalRun, excluded: &BTreeSet<&str>) -> Option<(TestResults, Vec<String>)> {
    let Some(TestOutcome::Tests { results, .. }) = &run.suite else {
        return None;
    };
    let kept: TestResults = results
        .iter()
        .filter(|(id, _)| !excluded.contains(id.as_str()))
        .map(|(id, s)| (id.clone(), *s))
        .collect();
    let failing = failing_ids(&kept);
    Some((kept, failing))
}

/// Tests that failed or errored.
fn failing_ids(results: &TestResults) -> Vec<String> {
    results
        .iter()
        .filter(|(_, s)| matches!(s, TestStatus::Failed | TestStatus::Error))
        .map(|(id, _)| id.clone())
        .collect()
}

/// The row's compilation, resolution and Defects4J record from the run with the patch.
fn grade(r: &mut PredictionResult, job: &Job<'_>, after: &D4jEvalRun, excluded: &BTreeSet<&str>) {
    r.applied = after.applied.unwrap_or(ApplyMethod::Empty);
    let mut d = D4jResult {
        compile: String::new(),
        compile_errors: Vec::new(),
        trigger_failing: None,
        suite_tests: None,
        suite_failing: None,
        excluded: excluded.iter().map(|s| s.to_string()).collect(),
        excluded_why: BTreeMap::new(),
        golden_failing_on_fixed: Vec::new(),
        timed_out: after.timed_out().map(str::to_string),
        seconds: after.seconds,
        cached: after.cached,
    };
    let infra = |what: &str, f: &crate::validate::parse::InfraFailure| {
        format!(
            "defects4j {what}: {} ({})",
            f.reason,
            f.log_path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        )
    };
    match &after.compile {
        CompileOutcome::Compiled => {
            d.compile = "compiled".into();
            r.compiled = Some(true);
        }
        CompileOutcome::CompileError { first_errors } => {
            d.compile = "compile_error".into();
            d.compile_errors = first_errors.clone();
            r.compiled = Some(false);
            r.resolution = Some(ResolutionStatus::No);
        }
        CompileOutcome::Infra(f) => {
            d.compile = if d.timed_out.is_some() {
                "timeout"
            } else {
                "infra"
            }
            .into();
            r.infra = Some(infra("compile", f));
        }
    }
    let gold = GoldenTests {
        fail_to_pass: job.inst.FAIL_TO_PASS.clone(),
        pass_to_pass: job.inst.PASS_TO_PASS.clone(),
        ..GoldenTests::default()
    };
    match &after.trigger {
        Some(TestOutcome::Tests { results, .. }) => {
            let mut not_passing: BTreeSet<String> = gold
                .fail_to_pass
                .iter()
                .filter(|id| !golden::test_passed(id, results))
                .cloned()
                .collect();
            not_passing.extend(failing_ids(results));
            not_passing.retain(|id| !excluded.contains(id.as_str()));
            d.trigger_failing = Some(not_passing.into_iter().collect());
        }
        Some(TestOutcome::CompileError { first_errors }) => {
            d.compile_errors = first_errors.clone();
            r.compiled = Some(false);
        }
        Some(TestOutcome::Infra(f)) => r.infra = Some(infra("test (trigger tests)", f)),
        None => {}
    }
    match (&after.suite, suite(after, excluded)) {
        (_, Some((kept, failing))) => {
            d.suite_tests = Some(kept.len());
            r.failing_after = Some(failing.len());
            let status = golden::resolve(&RunResult::Tests(kept), &gold, EvalType::PassAndFail);
            r.resolution = Some(match status {
                Resolution::Full => ResolutionStatus::Full,
                Resolution::Partial => ResolutionStatus::Partial,
                Resolution::No => ResolutionStatus::No,
            });
            d.suite_failing = Some(failing);
        }
        (Some(TestOutcome::CompileError { first_errors }), None) => {
            d.compile_errors = first_errors.clone();
            r.compiled = Some(false);
        }
        (Some(TestOutcome::Infra(f)), None) => {
            r.infra
                .get_or_insert_with(|| infra("test (whole suite)", f));
        }
        _ => {}
    }
    r.resolved = r.compiled == Some(true)
        && d.trigger_failing.as_ref().is_some_and(Vec::is_empty)
        && d.suite_failing.as_ref().is_some_and(Vec::is_empty);
    if r.resolution.is_none() && r.compiled.is_some() {
        r.resolution = Some(ResolutionStatus::No);
    }
    r.defects4j = Some(d);
}
