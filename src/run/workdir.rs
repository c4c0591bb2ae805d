//! An instance's working copy for `hunkgen run`: the state the recipe wrote, or for a
//! Defects4J bug without one the cached buggy checkout without what would reveal the
//! fix; and, for a Defects4J bug, the agent's build and test commands beside it. The one
//! place that decides where an agent's working copy comes from.

use super::{d4j, Ctx, ExecuteError};
use crate::model::{Instance, StateKind};
use crate::source::Candidate;
use std::path::{Path, PathBuf};

/// Where an instance's working copy comes from.
enum WorkingCopy {
    /// The state the recipe's `states:` wrote (`…/repo`).
    State(PathBuf),
    /// The cached Defects4J buggy checkout, copied without what would reveal the fix.
    D4jCheckout(crate::validate::stage::D4jCheckout),
}

impl Ctx<'_> {
    /// The working copy of instance `inst`: the dataset's state when it has one; else,
    /// for a Defects4J bug on the Novel state, the cached buggy checkout (copied without
    /// its history and Defects4J's files).
    fn working_copy(
        &self,
        inst: &Instance,
        state: &Path,
        candidate: Option<&Candidate>,
    ) -> Result<WorkingCopy, ExecuteError> {
        let repo = state.join("repo");
        if repo.is_dir() {
            return Ok(WorkingCopy::State(repo));
        }
        if let (Some(l), Some(c), StateKind::Novel) = (self.d4j, candidate, self.opts.state) {
            return Ok(WorkingCopy::D4jCheckout(l.checkout(c)?));
        }
        // The directory that is not there: the state's own, else its repository.
        let missing = if state.is_dir() {
            repo.clone()
        } else {
            state.to_path_buf()
        };
        let (instance, state, scenario) = (
            inst.instance_id.clone(),
            self.opts.state.name(),
            self.opts.scenario.name(),
        );
        if self.opts.with_tests {
            return Err(ExecuteError::NoTestsState {
                instance,
                state,
                scenario,
                dir: missing,
            });
        }
        Err(match &self.no_d4j {
            Some(why) if inst.source == crate::model::SourceKind::Defects4j => {
                ExecuteError::NoStateNoD4j {
                    instance,
                    state,
                    scenario,
                    repo,
                    why: why.clone(),
                }
            }
            _ => ExecuteError::NoState {
                instance,
                state,
                scenario,
                repo,
            },
        })
    }

    /// Copy the instance's working copy into `work` and, for a Defects4J bug, write its
    /// build and test commands under `private`.
    pub(super) fn materialize(
        &self,
        inst: &Instance,
        state: &Path,
        candidate: Option<&Candidate>,
        work: &Path,
        private: &Path,
    ) -> Result<Option<d4j::Tools>, ExecuteError> {
        let source = self.working_copy(inst, state, candidate)?;
        match &source {
            WorkingCopy::State(repo) => {
                crate::dataset::copy_tree(repo, work, &mut Default::default()).map_err(
                    |source| ExecuteError::CopyState {
                        work: work.to_path_buf(),
                        source,
                    },
                )?
            }
            WorkingCopy::D4jCheckout(c) => crate::validate::stage::copy_checkout(
                &c.dir,
                work,
                &crate::validate::stage::HIDDEN_FROM_AGENT,
            )
            .map_err(|source| ExecuteError::CopyCheckout {
                work: work.to_path_buf(),
                source,
            })?,
        }
        Ok(match (self.d4j, candidate) {
            (Some(l), Some(c)) => {
                let checkout = match source {
                    WorkingCopy::D4jCheckout(checkout) => checkout,
                    WorkingCopy::State(_) => l.checkout(c)?,
                };
                Some(l.prepare(c, &checkout, private, work)?)
            }
            _ => None,
        })
    }
}
