//! `hunkgen checkout`: one state of one built instance, gated, into a directory.

use super::{PartialStrategy, StateRequest, StatesError};
use crate::dataset::{self, DatasetError};
use crate::model::{Scenario, StateKind, StateManifest};
use std::path::PathBuf;

/// Which state of which instance goes where.
#[derive(Debug, Clone)]
pub struct Checkout {
    /// The dataset directory (holding instances.jsonl and dataset.yaml).
    pub dataset: PathBuf,
    /// The instance id.
    pub id: String,
    /// Which state.
    pub state: StateKind,
    /// Which scenario.
    pub scenario: Scenario,
    /// Apply the golden test patch too.
    pub with_tests: bool,
    /// Partial states from `DIR/<instance_id>.patch` instead of a subset of the golden
    /// hunks.
    pub partial_patches: Option<PathBuf>,
    /// The source repository (default: the one the dataset card records).
    pub repo: Option<PathBuf>,
    /// Also write the manifest to this file.
    pub manifest: Option<PathBuf>,
    /// Where the state goes; must not exist or be an empty directory.
    pub target: PathBuf,
}

/// Why a checkout could not be made, naming the dataset, instance or repository.
#[derive(Debug, thiserror::Error)]
pub enum CheckoutError {
    /// The dataset's instances cannot be read.
    #[error("{}: not a hunkgen dataset", dir.display())]
    NotADataset {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: DatasetError,
    },
    /// No instance has the id.
    #[error("{}: no instance `{id}` ({count} instances{examples})", dir.display())]
    NoInstance {
        /// The directory.
        dir: PathBuf,
        /// The id asked for.
        id: String,
        /// How many instances there are.
        count: usize,
        /// `, e.g. <first three ids>`, or empty.
        examples: String,
    },
    /// The card records no repository for the instance and none was given.
    #[error("{}: the dataset card records no repository for `{repo}`; give one with --repo PATH", card.display())]
    NoRepository {
        /// The card file.
        card: PathBuf,
        /// The instance's repository name.
        repo: String,
    },
    /// The repository is missing or not a git repository.
    #[error("{}: repository of `{repo}` is missing or not a git repository; give one with --repo PATH", path.display())]
    NotARepository {
        /// The path given or recorded.
        path: PathBuf,
        /// The instance's repository name.
        repo: String,
    },
    /// The card cannot be read.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// The state could not be made or its manifest written.
    #[error(transparent)]
    States(#[from] StatesError),
}

/// Materialize the state `req` asks for (checked by the leak gate for Best), write its
/// manifest where asked, and return the manifest.
pub fn checkout(req: &Checkout) -> Result<StateManifest, CheckoutError> {
    let dir = req.dataset.as_path();
    let id = req.id.as_str();
    let instances = dataset::read_instances(dir).map_err(|source| CheckoutError::NotADataset {
        dir: dir.to_path_buf(),
        source,
    })?;
    let Some(inst) = instances.iter().find(|i| i.instance_id == id) else {
        let some: Vec<&str> = instances
            .iter()
            .take(3)
            .map(|i| i.instance_id.as_str())
            .collect();
        return Err(CheckoutError::NoInstance {
            dir: dir.to_path_buf(),
            id: id.to_string(),
            count: instances.len(),
            examples: if some.is_empty() {
                String::new()
            } else {
                format!(", e.g. {}", some.join(", "))
            },
        });
    };
    let repo = match &req.repo {
        Some(r) => r.clone(),
        None => {
            let card = dataset::read_card(dir)?;
            match card.as_ref().and_then(|c| c.repositories.get(&inst.repo)) {
                Some(p) => PathBuf::from(p),
                None => {
                    return Err(CheckoutError::NoRepository {
                        card: dir.join("dataset.yaml"),
                        repo: inst.repo.clone(),
                    })
                }
            }
        }
    };
    if !crate::git::is_repository(&repo) {
        return Err(CheckoutError::NotARepository {
            path: repo,
            repo: inst.repo.clone(),
        });
    }
    let partial = if req.state == StateKind::Partial {
        let strategy = match &req.partial_patches {
            Some(dir) => PartialStrategy::PatchFile { dir: dir.clone() },
            None => PartialStrategy::HunkSubset {
                cap: super::SUBSET_CAP,
            },
        };
        Some(super::partial_change(inst, &repo, &strategy, None)?)
    } else {
        None
    };
    let state = StateRequest {
        instance: inst,
        repo: &repo,
        state: req.state,
        scenario: req.scenario,
        with_tests: req.with_tests,
        partial: partial.as_ref(),
    };
    let done = super::materialize(&state, &req.target, None)?;
    if let Some(path) = &req.manifest {
        super::write_manifest(path, &done.manifest)?;
    }
    Ok(done.manifest)
}
