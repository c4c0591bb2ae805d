//! A build's states stage: each kept instance's repository states written under the
//! dataset's `states/` (git sources), with the verification each state's manifest records.
//!
//! A Partial state is the largest proper subset of the golden hunks that, with a
//! validator, still builds and still fails a FAIL_TO_PASS test on every rerun. States
//! that cannot be made are listed in the instance's `states.missing`, never fatal.

use super::PartialStrategy;
use crate::model::{Instance, Scenario, StateKind, StatesRecord};
use crate::recipe::{Plan, SourcePlan, StatesSpec};
use crate::source::Candidate;
use crate::validate::stage::Validator;
use std::path::{Path, PathBuf};

/// An instance's Partial change (or why there is none) and the verdict of the run that
/// confirmed it still fails, if a validator ran one.
pub type PartialOutcome = (
    Result<super::PartialChange, NoPartial>,
    Option<serde_json::Value>,
);

/// Why an instance has no Partial change (listed in its `states.missing`).
#[derive(Debug, thiserror::Error)]
pub enum NoPartial {
    /// The recipe's `states.kinds` has no `partial`.
    #[error("Partial states are not asked for")]
    NotAsked,
    /// The recipe names no repository the instance's states can be made from.
    #[error("no repository for `{repo}`")]
    NoRepository {
        /// The instance.
        instance: String,
        /// The instance's `repo`.
        repo: String,
    },
    /// No subset of the golden hunks makes a Partial state.
    #[error(transparent)]
    States(#[from] super::StatesError),
}

/// What writing a dataset's states needs: the recipe's `states:`, the validator (if the
/// recipe validates) and the dataset directory being written.
pub struct StatesWriter<'a> {
    plan: &'a Plan,
    spec: &'a StatesSpec,
    validator: Option<&'a Validator<'a>>,
    dataset: &'a Path,
    strategy: PartialStrategy,
    logs: PathBuf,
}

impl<'a> StatesWriter<'a> {
    /// A writer of `spec`'s states into `dataset`, verifying Partial states with
    /// `validator` when there is one.
    pub fn new(
        plan: &'a Plan,
        spec: &'a StatesSpec,
        validator: Option<&'a Validator<'a>>,
        dataset: &'a Path,
    ) -> Self {
        let strategy = match &spec.partial_patches {
            Some(dir) => PartialStrategy::PatchFile { dir: dir.clone() },
            None => PartialStrategy::HunkSubset {
                cap: spec.subset_cap,
            },
        };
        StatesWriter {
            plan,
            spec,
            validator,
            dataset,
            strategy,
            logs: dataset.join("logs"),
        }
    }

    /// The instance's Partial change (test runs; safe to call in parallel), when the
    /// recipe asks for Partial states.
    pub fn partial(&self, c: &Candidate, inst: &Instance) -> PartialOutcome {
        if !self.spec.kinds.contains(&StateKind::Partial) {
            return (Err(NoPartial::NotAsked), None);
        }
        let Some(repo) = state_repo(self.plan, &inst.repo) else {
            let no_repo = NoPartial::NoRepository {
                instance: inst.instance_id.clone(),
                repo: inst.repo.clone(),
            };
            return (Err(no_repo), None);
        };
        let verdict = std::sync::Mutex::new(None);
        let verify = |subset: &[usize]| -> bool {
            let Some(v) = self.validator else { return true };
            let change = match super::golden_patch(inst) {
                Ok(g) => super::subset_patch(&g, subset),
                Err(_) => return false,
            };
            let (ok, record) = v.partial_still_fails(c, &change, &inst.FAIL_TO_PASS, &self.logs);
            if ok {
                if let Ok(mut slot) = verdict.lock() {
                    *slot = Some(record);
                }
            }
            ok
        };
        let change = super::partial_change(inst, repo, &self.strategy, Some(&verify))
            .map_err(NoPartial::from);
        let record = verdict.into_inner().ok().flatten();
        (change, record)
    }

    /// Write the instance's states (git writing; one instance at a time) and say which
    /// were written and which are missing.
    pub fn write(&self, inst: &Instance, partial: PartialOutcome) -> StatesRecord {
        let (partial, partial_record) = partial;
        let mut record = StatesRecord::default();
        let Some(repo) = state_repo(self.plan, &inst.repo) else {
            record
                .missing
                .push(format!("states: no repository for `{}`", inst.repo));
            return record;
        };
        let mut which: Vec<(StateKind, Scenario)> = Vec::new();
        for &kind in &self.spec.kinds {
            if kind == StateKind::Partial {
                if let Err(why) = &partial {
                    record.missing.push(format!("partial: {why}"));
                    continue;
                }
            }
            for &sc in &self.spec.scenarios {
                which.push((kind, sc));
            }
        }
        let verification = |kind: StateKind| -> Option<serde_json::Value> {
            let v = inst.validation.as_ref()?;
            match kind {
                StateKind::Novel => Some(serde_json::json!({
                    "golden_tests": "fail",
                    "runs": v.runs.before,
                    "from": "validation: base + test patch",
                })),
                StateKind::Resolved => Some(serde_json::json!({
                    "golden_tests": "pass",
                    "runs": v.runs.after,
                    "from": "validation: base + test patch + patch",
                })),
                StateKind::Partial => partial_record.clone(),
            }
        };
        let with_tests: &[bool] = if self.spec.with_tests {
            &[false, true]
        } else {
            &[false]
        };
        let dataset = self.dataset;
        for &tests in with_tests {
            let result = super::materialize_layered(dataset, repo, &[inst], &which, tests, &|_| {
                partial.as_ref().ok().cloned()
            });
            let outcome = match result {
                Ok(mut v) => v.pop().map(|(_, r)| r),
                Err(e) => Some(Err(e)),
            };
            match outcome {
                Some(Ok(manifests)) => {
                    for mut m in manifests {
                        let dir = super::state_dir(
                            dataset,
                            &inst.instance_id,
                            m.state,
                            m.scenario,
                            tests,
                        );
                        m.verification = verification(m.state);
                        let _ = super::write_manifest(&dir.join("manifest.yaml"), &m);
                        record.written.push(
                            dir.file_name()
                                .map(|n| n.to_string_lossy().into_owned())
                                .unwrap_or_default(),
                        );
                    }
                }
                Some(Err(e)) => record.missing.push(format!("states: {e}")),
                None => {}
            }
        }
        record
    }
}

/// The repository an instance's states are made from: the git source's, or the clone a
/// SWE-bench import names for the instance's `repo` (imports may name several).
pub fn state_repo<'p>(plan: &'p Plan, repo: &str) -> Option<&'p Path> {
    match &plan.source {
        SourcePlan::Git(git) => Some(&git.repo),
        SourcePlan::Swebench(s) => s.repos.get(repo).map(|p| p.as_path()),
        SourcePlan::Github(g) => Some(g.clone.as_path()),
        SourcePlan::Defects4j(_) => None,
    }
}
