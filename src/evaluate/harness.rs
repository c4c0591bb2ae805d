//! Round trips with the official SWE-bench harness (issue #32): predictions it can score
//! on FixedBench's Partial and Resolved states unchanged. The harness applies a
//! prediction's `model_patch` to the row's base commit, so a patch made on a state is
//! written as one diff from the base: the state's change and the agent's patch composed,
//! the agent's patch applied to the state's tree exactly as `hunkgen evaluate` applies it
//! (exactly, three-way, or with offset and fuzz).

use std::collections::BTreeMap;
use std::path::Path;

use super::error::{EvaluateError, ScoreError};
use super::predictions::Prediction;
use crate::diff::Patch;
use crate::model::{Instance, StateKind};
use crate::source::{Base, Candidate, Tree};
use crate::validate::apply::apply_fuzzy;

/// What exporting predictions for the harness gave.
#[derive(Debug, Default)]
pub struct HarnessExport {
    /// The harness's prediction rows (`instance_id`, `model_name_or_path`, `model_patch`),
    /// in the predictions' order.
    pub rows: Vec<serde_json::Value>,
    /// Rows left out because they were made on another state than the one exported.
    pub other_state: usize,
    /// Rows whose patch does not apply to the state, with why: written as the state's
    /// change followed by the patch, which the harness fails to apply as evaluate does.
    pub not_applied: Vec<(String, String)>,
    /// Rows whose composed change touches binary files a text diff cannot carry.
    pub binary: Vec<(String, Vec<String>)>,
}

/// The harness's prediction rows for `predictions` made on `state` of the dataset in
/// `dataset` (a row naming another state is left out and counted).
pub fn harness_predictions(
    dataset: &Path,
    predictions: &[Prediction],
    state: StateKind,
) -> Result<HarnessExport, EvaluateError> {
    let o = crate::recipe::open::open(dataset)?;
    let instances: BTreeMap<String, Instance> = crate::dataset::read_instances(dataset)?
        .into_iter()
        .map(|i| (i.instance_id.clone(), i))
        .collect();
    let mut out = HarnessExport::default();
    for p in predictions {
        if let Some(s) = &p.state {
            if s.parse::<StateKind>().ok() != Some(state) {
                out.other_state += 1;
                continue;
            }
        }
        let agent = p.model_patch.clone().unwrap_or_default();
        let inst = instances.get(&p.instance_id).ok_or_else(|| {
            EvaluateError::Harness(format!("the dataset has no instance `{}`", p.instance_id))
        })?;
        let model_patch = if state == StateKind::Novel {
            agent
        } else {
            let c = Candidate::from_instance(inst, &o.card)
                .map_err(|e| EvaluateError::Harness(format!("{}: {e}", inst.instance_id)))?;
            let change = super::metrics::state_change(inst, state, dataset)?;
            match compose(&c, change.as_ref(), &agent)? {
                Composed::Patch { text, binary } => {
                    if !binary.is_empty() {
                        out.binary.push((p.instance_id.clone(), binary));
                    }
                    text
                }
                Composed::NotApplied { why } => {
                    out.not_applied.push((p.instance_id.clone(), why));
                    let mut text = change.map(|c| c.to_text()).unwrap_or_default();
                    text.push_str(&agent);
                    text
                }
            }
        };
        out.rows.push(serde_json::json!({
            "instance_id": p.instance_id,
            "model_name_or_path": p.model_name_or_path,
            "model_patch": model_patch,
        }));
    }
    Ok(out)
}

/// One prediction composed with its state's change.
#[derive(Debug, PartialEq, Eq)]
pub enum Composed {
    /// The diff from the base to the state with the patch applied; binary files it
    /// leaves out.
    Patch {
        /// The unified diff (git's format).
        text: String,
        /// Binary files that changed and are not in `text`.
        binary: Vec<String>,
    },
    /// The patch does not apply to the state's tree.
    NotApplied {
        /// Why, in one line.
        why: String,
    },
}

/// The base tree of `c` and the same tree with `change` and then `agent` applied, as one
/// diff.
pub fn compose(c: &Candidate, change: Option<&Patch>, agent: &str) -> Result<Composed, ScoreError> {
    let Base::Buggy(Tree::Git { repo, rev, .. }) = &c.base else {
        return Err(ScoreError::NotGitBase);
    };
    let agent = if agent.trim().is_empty() {
        Patch::default()
    } else {
        match crate::diff::parse(agent.as_bytes()) {
            Ok(p) => p,
            Err(e) => {
                return Ok(Composed::NotApplied {
                    why: format!("not a diff: line {}: {}", e.line, e.kind),
                })
            }
        }
    };
    let tmp = tempfile::Builder::new()
        .prefix("hunkgen-compose-")
        .tempdir()
        .map_err(ScoreError::Scratch)?;
    let base = tmp.path().join("base");
    let state = tmp.path().join("state");
    let snapshot = tmp.path().join("snapshot.git");
    crate::git::export_tree(repo, rev, None, &base)?;
    crate::git::export_tree(repo, rev, change, &state)?;
    if !agent.files.is_empty() {
        if let Err(e) = apply_fuzzy(&agent, &state, Some(repo)) {
            return Ok(Composed::NotApplied { why: e.to_string() });
        }
    }
    let tree = crate::git::snapshot_worktree(&snapshot, &base)?;
    let diff = crate::git::diff_worktree(&snapshot, &state, &tree)?;
    Ok(Composed::Patch {
        text: String::from_utf8_lossy(&diff.patch).into_owned(),
        binary: diff.binary,
    })
}

/// The harness's marker in `run_instance.log` when it could not apply a patch.
const APPLY_FAILED: &str = ">>>>> Patch Apply Failed";

/// One instance's `report.json` as the harness writes it (`get_eval_report`).
#[derive(Debug, serde::Deserialize)]
struct Report {
    #[serde(default)]
    patch_successfully_applied: bool,
    #[serde(default)]
    resolved: bool,
    #[serde(default)]
    infra_failure: bool,
    #[serde(default)]
    infra_failure_reason: Option<String>,
    #[serde(default)]
    tests_status: BTreeMap<String, Outcomes>,
}

/// The tests of one list that passed and failed.
#[derive(Debug, Default, serde::Deserialize)]
struct Outcomes {
    #[serde(default)]
    success: Vec<String>,
    #[serde(default)]
    failure: Vec<String>,
}

/// Fill `r`'s application, resolution and infrastructure fields from the harness's
/// report of `r.instance_id` under `dir`, as [`super::score`] fills them from its own
/// runs: the tests the report lists as passing and failing, graded against the
/// dataset's golden lists; a report whose verdict differs from that grade is a problem
/// on the row (its lists are not the dataset's).
pub(super) fn grade_from_report(
    r: &mut crate::model::PredictionResult,
    dir: &Path,
    c: &Candidate,
    state_change: Option<&Patch>,
    patch: &Patch,
) {
    use crate::model::ApplyMethod;
    use crate::validate::parse::{RunResult, TestStatus};
    let inst_dir = dir.join(&r.instance_id);
    let path = inst_dir.join("report.json");
    let report = match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice::<BTreeMap<String, Report>>(&bytes)
            .map_err(|e| format!("{}: not a harness report: {e}", path.display()))
            .and_then(|mut m| {
                m.remove(&r.instance_id)
                    .ok_or_else(|| format!("{}: no entry for `{}`", path.display(), r.instance_id))
            }),
        Err(_) => {
            let log =
                std::fs::read_to_string(inst_dir.join("run_instance.log")).unwrap_or_default();
            if log.contains(APPLY_FAILED) {
                r.applied = ApplyMethod::Failed;
                r.problems
                    .push("the harness could not apply the patch".into());
            } else {
                r.infra = Some(format!("no harness report at {}", path.display()));
            }
            return;
        }
    };
    let report = match report {
        Ok(rep) => rep,
        Err(why) => {
            r.infra = Some(why);
            return;
        }
    };
    r.applied = if patch.files.is_empty() {
        ApplyMethod::Empty
    } else {
        // How it applies to the state's tree; the harness applied it with its own
        // fallbacks, so a patch only they take in counts as fuzzed.
        super::grading::apply_method(c, state_change, patch).unwrap_or(ApplyMethod::Fuzz)
    };
    if !report.patch_successfully_applied {
        if report.infra_failure {
            r.infra = Some(format!(
                "the harness's run failed: {}",
                report
                    .infra_failure_reason
                    .as_deref()
                    .unwrap_or("no reason given")
            ));
        } else {
            r.compiled = Some(false);
            r.resolution = Some(crate::model::ResolutionStatus::No);
            r.problems.push(
                "the harness found no test results (the patch or the test patch did not apply, or the tests did not run)".into(),
            );
        }
        return;
    }
    let mut tests = crate::validate::parse::TestResults::new();
    for outcomes in report.tests_status.values() {
        for t in &outcomes.success {
            tests.insert(t.clone(), TestStatus::Passed);
        }
        for t in &outcomes.failure {
            tests.insert(t.clone(), TestStatus::Failed);
        }
    }
    let gold = crate::validate::golden::GoldenTests {
        fail_to_pass: c.fail_to_pass.clone(),
        pass_to_pass: c.pass_to_pass.clone(),
        ..Default::default()
    };
    let run = RunResult::Tests(tests);
    super::grading::grade(r, &run, &gold, None);
    r.failing_after = super::grading::failing(&run);
    if r.resolved != report.resolved {
        r.problems.push(format!(
            "the harness's report says resolved={}, the dataset's golden lists say {}: the harness ran other lists",
            report.resolved, r.resolved
        ));
    }
}
