//! Grading one run of a prediction, and how its patch applies to the state's tree:
//! shared by the native evaluation ([`super::score`]) and the official harness's reports
//! ([`super::harness`]), so both fill a result row the same way.

use super::error::ScoreError;
use crate::diff::Patch;
use crate::model::{ApplyMethod, PredictionResult, ResolutionStatus};
use crate::validate::apply::{apply_fuzzy, Applied};
use crate::validate::golden::{self, EvalType, GoldenTests, Resolution};
use crate::validate::parse::{InfraKind, RunResult, TestStatus};

/// Resolution, compilation and infrastructure fields from one run.
pub(super) fn grade(
    r: &mut PredictionResult,
    result: &RunResult,
    gold: &GoldenTests,
    error: Option<String>,
) {
    if let Some(e) = error {
        r.infra = Some(e);
        return;
    }
    match result {
        RunResult::Tests(_) => {
            r.compiled = Some(true);
            let status = golden::resolve(result, gold, EvalType::PassAndFail);
            r.resolution = Some(match status {
                Resolution::Full => ResolutionStatus::Full,
                Resolution::Partial => ResolutionStatus::Partial,
                Resolution::No => ResolutionStatus::No,
            });
            r.resolved = status == Resolution::Full;
        }
        RunResult::Infra(f) => match f.kind {
            InfraKind::BuildFailure
            | InfraKind::CollectionError
            | InfraKind::CompileError
            | InfraKind::TestCompileError => {
                r.compiled = Some(false);
                r.resolution = Some(ResolutionStatus::No);
            }
            _ => r.infra = Some(f.reason.clone()),
        },
    }
}

/// Tests not passing in a run (failed or errored); `None` when the suite did not run.
pub(super) fn failing(result: &RunResult) -> Option<usize> {
    match result {
        RunResult::Tests(t) => Some(
            t.values()
                .filter(|s| matches!(s, TestStatus::Failed | TestStatus::Error))
                .count(),
        ),
        RunResult::Infra(_) => None,
    }
}

/// How the patch applies to the state's tree, or the row's problem when it does not.
pub(super) fn apply_method(
    c: &crate::source::Candidate,
    state_change: Option<&Patch>,
    patch: &Patch,
) -> Result<ApplyMethod, String> {
    match applies(c, state_change, patch) {
        Ok(Applied::Exact) => Ok(ApplyMethod::Exact),
        Ok(Applied::Fuzz) => Ok(ApplyMethod::Fuzz),
        Ok(Applied::ThreeWay) => Ok(ApplyMethod::ThreeWay),
        Err(why) => Err(format!("the patch does not apply: {why}")),
    }
}

/// How the patch applies to the state's tree (a dry run in a scratch copy).
pub(super) fn applies(
    c: &crate::source::Candidate,
    state_change: Option<&Patch>,
    patch: &Patch,
) -> Result<Applied, ScoreError> {
    let crate::source::Base::Buggy(crate::source::Tree::Git { repo, rev, .. }) = &c.base else {
        return Err(ScoreError::NotGitBase);
    };
    let tmp = tempfile::Builder::new()
        .prefix("hunkgen-apply-")
        .tempdir()
        .map_err(ScoreError::Scratch)?;
    let root = tmp.path().join("repo");
    crate::git::export_tree(repo, rev, state_change, &root)?;
    Ok(apply_fuzzy(patch, &root, Some(repo))?)
}
