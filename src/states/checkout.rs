//! `hunkgen checkout`: one state of one built instance, gated, into a directory.
//!
//! A Best state the dataset already holds, made as this checkout would make it, is
//! recreated from its own packs (hardlinked), its `main` and its work tree: the cost of a
//! `git worktree add`. Otherwise the state is made from the source repository, linking
//! the dataset's layered history packs when they cover its base instead of packing the
//! history again, and gated.

use super::{PartialChange, PartialStrategy, StateRequest, StatesError};
use crate::dataset::{self, DatasetError};
use crate::model::{Instance, Scenario, StateKind, StateManifest};
use std::path::{Path, PathBuf};

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
    // The Partial change the dataset's own Partial states hold (verified when it was
    // built), unless patches are given; a dataset without Partial states gets the
    // largest hunk subset that applies.
    let partial = match (req.state, &req.partial_patches) {
        (StateKind::Partial, Some(dir)) => Some(super::partial_change(
            inst,
            &repo,
            &PartialStrategy::PatchFile { dir: dir.clone() },
            None,
        )?),
        (StateKind::Partial, None) => match super::stored_partial(dir, inst)? {
            Some(p) => Some(p),
            None => Some(super::partial_change(
                inst,
                &repo,
                &PartialStrategy::HunkSubset {
                    cap: super::SUBSET_CAP,
                },
                None,
            )?),
        },
        _ => None,
    };
    let state = StateRequest {
        instance: inst,
        repo: &repo,
        state: req.state,
        scenario: req.scenario,
        with_tests: req.with_tests,
        partial: partial.as_ref(),
    };
    let manifest = match from_dataset(dir, inst, req, partial.as_ref())? {
        Some(m) => m,
        None => {
            let history = (req.scenario == Scenario::Best)
                .then(|| {
                    super::layers::packs_in(&super::layers_dir(dir, &inst.repo), inst.repo_base())
                })
                .flatten();
            let done = match history {
                // Packs that do not hold what they should fail the build or the gate; the
                // source's own history is the fallback.
                Some(h) => super::materialize(&state, &req.target, Some(&h))
                    .or_else(|_| super::materialize(&state, &req.target, None))?,
                None => super::materialize(&state, &req.target, None)?,
            };
            done.manifest
        }
    };
    if let Some(path) = &req.manifest {
        super::write_manifest(path, &manifest)?;
    }
    Ok(manifest)
}

/// The Best state as the dataset holds it, recreated at the target, when its manifest
/// says it was made as this checkout would make it (same instance, state, scenario,
/// tests, base, fix and hunks) and gated: its packs hardlinked into a new repository,
/// `main` at its head, the tree checked out. The copy holds the same objects, refs and
/// tree as the gated original, so nothing is packed, committed or gated again; the
/// manifest is the one a fresh state would get (no `verification`). `None` when the
/// dataset has no such state or its store cannot be linked.
fn from_dataset(
    dataset: &Path,
    inst: &Instance,
    req: &Checkout,
    partial: Option<&PartialChange>,
) -> Result<Option<StateManifest>, CheckoutError> {
    if req.scenario != Scenario::Best {
        return Ok(None);
    }
    let dir = super::state_dir(
        dataset,
        &inst.instance_id,
        req.state,
        req.scenario,
        req.with_tests,
    );
    let Ok(stored) = super::read_manifest(&dir.join("manifest.yaml")) else {
        return Ok(None);
    };
    let hunks = match req.state {
        StateKind::Novel => Vec::new(),
        StateKind::Partial => partial.map(|p| p.hunks_applied.clone()).unwrap_or_default(),
        StateKind::Resolved => {
            let mut all: Vec<usize> = inst.hunks.iter().map(|h| h.patch_index).collect();
            all.sort_unstable();
            all
        }
    };
    let same = stored.schema_version == inst.schema_version
        && stored.instance_id == inst.instance_id
        && stored.state == req.state
        && stored.scenario == req.scenario
        && stored.tests_present == req.with_tests
        && stored.base_commit == inst.repo_base()
        && stored.fix_commit == inst.repo_fix()
        && stored.hunks_applied == hunks
        && stored.partial == partial.map(|p| p.source.clone())
        && !stored.gate.is_empty();
    let (true, Some(head)) = (same, stored.head_commit.clone()) else {
        return Ok(None);
    };
    let Some(packs) = store_packs(&dir.join("repo/.git/objects")) else {
        return Ok(None);
    };
    super::check_target(&req.target)?;
    let mut tmp = super::TempDir(Some(super::sibling(&req.target, "state")?));
    let tmp_dir = tmp.0.clone().unwrap_or_default();
    if crate::git::link_state_repo(&tmp_dir, &packs, &head).is_err() {
        return Ok(None);
    }
    super::publish(&mut tmp, &req.target)?;
    Ok(Some(StateManifest {
        repo: inst.repo.clone(),
        expected: req.state.expected(),
        FAIL_TO_PASS: inst.FAIL_TO_PASS.clone(),
        PASS_TO_PASS: inst.PASS_TO_PASS.clone(),
        head_commit: Some(head),
        verification: None,
        ..stored
    }))
}

/// The pack files (`.pack`, `.idx`, `.rev`) of a state's object store, or `None` when it
/// has no pack or holds loose objects too (a store `build` did not leave as it does).
fn store_packs(objects: &Path) -> Option<Vec<PathBuf>> {
    let loose = std::fs::read_dir(objects).ok()?.flatten().any(|e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        name.len() == 2
            && name.chars().all(|c| c.is_ascii_hexdigit())
            && std::fs::read_dir(e.path()).is_ok_and(|mut d| d.next().is_some())
    });
    if loose {
        return None;
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(objects.join("pack"))
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x == "pack" || x == "idx" || x == "rev")
        })
        .collect();
    files.sort();
    files
        .iter()
        .any(|p| p.extension().is_some_and(|x| x == "pack"))
        .then_some(files)
}
