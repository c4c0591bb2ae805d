//! A candidate's setup, shared by the three entry points of the stage (validate, the
//! Partial-state check, an evaluation run): its base, the suites that cover its test
//! patch, each suite's environment (shared by the repository, or declared per instance
//! by its kind) and the tests it runs.

use super::{run, StageError, Suite, Validator};
use crate::diff::Patch;
use crate::source::{Base, Candidate, Tree};
use crate::validate::env::swebench::{row_of, RowRef};
use crate::validate::env::{BuiltEnv, InstanceEnv, InstanceTree, KindRecord};
use std::path::Path;
use std::sync::Arc;

/// A candidate's base: git repository, revision, (Defects4J) fixed→buggy patch, and
/// the id of the revision's tree, which keys the run cache.
pub(super) struct GitBase<'c> {
    pub(super) repo: &'c Path,
    pub(super) rev: &'c str,
    pub(super) to_buggy: Option<&'c Patch>,
    pub(super) tree_id: String,
}

/// What every run of a candidate needs, made once by [`Validator::setup`] for each of
/// the three entry points (validate, partial check, evaluation run).
pub(super) struct Setup<'c, 'p> {
    pub(super) base: GitBase<'c>,
    /// The suites covering the test patch, each with its environment and the tests it
    /// runs (chosen once here, not again per run).
    pub(super) suites: Vec<(&'p Suite, BuiltEnv, run::Selection)>,
    /// What a kind declared per instance records (the first such suite's), for
    /// `validation{}`.
    pub(super) record: Option<KindRecord>,
}

/// One suite's environment as an agent gets it in the Best scenario.
#[derive(Debug, Clone)]
pub struct AgentEnv {
    /// The suite's name.
    pub suite: String,
    /// The suite's working directory in the repository (empty: its root).
    pub workdir: String,
    /// The environment (a venv, a class path, or commands only).
    pub env: BuiltEnv,
}

/// Why a candidate cannot be set up, in the order the checks run.
pub(super) enum SetupError {
    /// The base is missing or not a git tree.
    Base(String),
    /// No suite of the recipe covers the test patch.
    NoSuite,
    /// The suites covering the test patch select none of its files as tests.
    NothingSelected,
    /// A suite's environment cannot be built.
    Env(StageError),
    /// The base revision's tree cannot be read.
    Tree {
        /// The revision.
        rev: String,
        /// git's error.
        error: String,
    },
}

impl Validator<'_> {
    fn env(&self, repo: &str, suite: &Suite) -> Result<BuiltEnv, StageError> {
        let id = format!("{repo}\0{}", suite.name);
        let named = |source| StageError::Env {
            suite: suite.name.clone(),
            source,
        };
        if let Ok(map) = self.built.lock() {
            if let Some(r) = map.get(&id) {
                return r.clone().map_err(named);
            }
        }
        let r = self
            .envs
            .ensure(&self.runner, repo, &suite.env)
            .map_err(Arc::new);
        if let Ok(mut map) = self.built.lock() {
            map.insert(id, r.clone());
        }
        r.map_err(named)
    }

    /// The environment of `suite` for a candidate whose base is `rev` of `repo_path`:
    /// the suite's own, shared by the repository, or the one its kind declares from the
    /// base commit (`python: auto`), with what the runs need and the record.
    fn env_for(
        &self,
        repo: &str,
        suite: &Suite,
        repo_path: &Path,
        rev: &str,
        changes: &[&Patch],
        row: Option<&RowRef>,
    ) -> Result<(BuiltEnv, Option<InstanceEnv>), StageError> {
        // A row's environment and command are its own, even where two rows share a base.
        let row_id = row.map(|r| r.instance_id.as_str()).unwrap_or_default();
        let id = format!("{repo}\0{}\0{rev}\0{row_id}", suite.name);
        let named = |source| StageError::Env {
            suite: suite.name.clone(),
            source,
        };
        if let Ok(map) = self.instance_built.lock() {
            if let Some(r) = map.get(&id) {
                return r.clone().map(|a| (a.env.clone(), Some(a))).map_err(named);
            }
        }
        let tree = InstanceTree {
            repo_path,
            rev,
            workdir: suite.workdir.as_deref().unwrap_or_default(),
            changes,
            row,
        };
        let Some(made) = suite
            .env
            .kind()
            .for_instance(&self.envs, &self.runner, repo, &tree)
        else {
            return self.env(repo, suite).map(|e| (e, None));
        };
        let r = made.map_err(Arc::new);
        if let Ok(mut map) = self.instance_built.lock() {
            map.insert(id, r.clone());
        }
        r.map(|a| (a.env.clone(), Some(a))).map_err(named)
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

    /// The candidate's base, its tree id, and its suites with their environments; checks
    /// run in this order: base, suites, environments, tree.
    pub(super) fn setup<'c>(&self, c: &'c Candidate) -> Result<Setup<'c, '_>, SetupError> {
        let (repo, rev, to_buggy) = match &c.base {
            Base::Buggy(Tree::Git { repo, rev, .. }) => (repo.as_path(), rev.as_str(), None),
            Base::Fixed {
                tree: Tree::Git { repo, rev, .. },
                to_buggy,
            } => (repo.as_path(), rev.as_str(), Some(to_buggy)),
            Base::Missing { reason } => return Err(SetupError::Base(reason.clone())),
            _ => return Err(SetupError::Base("validation needs a git base tree".into())),
        };
        let suites = self.suites_for(c);
        if suites.is_empty() {
            return Err(SetupError::NoSuite);
        }
        // A suite that runs only the selected tests and has none selected runs nothing
        // (never the whole suite).
        let matched = suites;
        let suites: Vec<(&Suite, run::Selection)> = matched
            .iter()
            .map(|&s| (s, self.selection(c, s, repo, rev)))
            .filter(|(s, sel)| !sel.nothing_for(s))
            .collect();
        if suites.is_empty() {
            // A kind that cannot build this tree at all says so (a Maven 1 or Ant tree
            // under `maven: auto`), rather than "nothing selected".
            let unbuildable = matched.iter().find_map(|s| {
                let why = s.env.kind().unbuildable(&c.repo, repo, rev)?;
                Some(StageError::Env {
                    suite: s.name.clone(),
                    source: std::sync::Arc::new(why),
                })
            });
            return Err(unbuildable.map_or(SetupError::NothingSelected, SetupError::Env));
        }
        let mut record = None;
        let row = row_of(c);
        let suites = suites
            .into_iter()
            .map(|(s, mut sel)| {
                let changes = [&c.test_patch, &c.patch];
                let (env, made) = self.env_for(&c.repo, s, repo, rev, &changes, row.as_ref())?;
                if let Some(a) = made {
                    sel.prefix = a.prefix;
                    sel.generated = a.generated;
                    sel.command = a.command;
                    record.get_or_insert(a.record);
                }
                Ok((s, env, sel))
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(SetupError::Env)?;
        let tree_id = crate::git::tree_id(repo, rev).map_err(|e| SetupError::Tree {
            rev: rev.to_string(),
            error: e.to_string(),
        })?;
        Ok(Setup {
            base: GitBase {
                repo,
                rev,
                to_buggy,
                tree_id,
            },
            suites,
            record,
        })
    }

    /// The environments validation built for a candidate, one per suite that runs its
    /// golden tests (with the suite's name and working directory), for an agent's
    /// Best-scenario run (FixedBench: the execution environment is set up). Built now if
    /// the cache lacks them; `Err` says why there is none.
    pub fn agent_environments(&self, c: &Candidate) -> Result<Vec<AgentEnv>, String> {
        let setup = self.setup(c).map_err(|e| match e {
            SetupError::Base(why) => why,
            SetupError::NoSuite => "no test suite of the recipe covers the golden tests".into(),
            SetupError::NothingSelected => "the suites select no golden test".into(),
            SetupError::Env(e) => e.to_string(),
            SetupError::Tree { rev, error } => format!("{rev}: {error}"),
        })?;
        Ok(setup
            .suites
            .into_iter()
            .map(|(s, env, _)| AgentEnv {
                suite: s.name.clone(),
                workdir: s.workdir.clone().unwrap_or_default(),
                env,
            })
            .collect())
    }
}
