//! FixedBench states (ARCHITECTURE §6): Novel, Partial and Resolved trees of an instance, each
//! as a leak-gated git repository (Best) or a plain directory (Worst), with a manifest.
//!
//! On disk, in a dataset: `states/<instance_id>/<state>-<scenario>[-tests]/` holds
//! `repo/` (the state: a repository with its work tree, or a plain directory) and
//! `manifest.yaml` beside it, outside the repository, so the manifest neither dirties the
//! work tree nor tells an agent what the state is. A state is written into a hidden
//! sibling directory, gated (Best), then renamed into place: a refused state is never
//! published.

pub mod checkout;
pub mod layers;
mod partial;
pub mod write;

pub use layers::LayeredStore;
pub use partial::{
    choose_partial, hunk_subsets, partial_change, subset_patch, worst_state_verifier,
    ChangeVerifier, PartialChange, PartialStrategy, SubsetVerifier,
};

use crate::dataset::{self, DatasetError};
use crate::diff::{self, LineKind, Patch, PatchFileError};
use crate::git::{self, CommitMeta, GateError, GateSpec, GitError, HistoryPack, Person};
use crate::model::{Instance, PartialSource, Scenario, SourceKind, StateKind, StateManifest};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Default cap on the hunk subsets a `hunk-subset` Partial strategy tries.
pub const SUBSET_CAP: usize = 64;

/// The file beside a Partial state's `manifest.yaml` holding its change (base → Partial)
/// as a patch: evaluation rebuilds exactly the tree the agent saw from it, whatever
/// strategy made the change.
pub const PARTIAL_PATCH: &str = "partial.patch";

/// Message of the neutral commit a Partial state (or a state with tests) adds.
pub const WIP_MESSAGE: &str = "work in progress\n";

/// Why a state could not be materialized, naming the instance or path.
#[derive(Debug, thiserror::Error)]
pub enum StatesError {
    /// Reading the source repository or writing the state failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The leak gate refused the state; it was not published.
    #[error(transparent)]
    Gate(#[from] GateError),
    /// The instance cannot give this state (no Partial change, unparsable patch).
    #[error("{instance}: {what}")]
    Instance {
        /// The instance id.
        instance: String,
        /// What is missing or wrong.
        what: String,
    },
    /// A weak patch (`patches`/`run` Partial) was refused by its run: every golden test
    /// passes with it, or the tests could not run; `seen` is what the run recorded.
    #[error("{instance}: no Partial state: with {} every golden test (FAIL_TO_PASS and PASS_TO_PASS) passes, or the tests could not run (the weak patch resolves the instance, or it cannot be checked){}", file.display(), seen.as_ref().map(|v| format!(": {v}")).unwrap_or_default())]
    WeakPatchPasses {
        /// The instance id.
        instance: String,
        /// The weak patch's file.
        file: PathBuf,
        /// What the refusing run recorded, when known.
        seen: Option<serde_json::Value>,
    },
    /// A `patch-file` Partial patch does not parse.
    #[error(transparent)]
    PatchFile(#[from] PatchFileError),
    /// The target exists and is not an empty directory, or another I/O failure.
    #[error("{}: {what}", path.display())]
    Path {
        /// The path.
        path: PathBuf,
        /// What is wrong with it.
        what: String,
    },
    /// The manifest could not be written.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
}

fn path_err(path: &Path) -> impl FnOnce(std::io::Error) -> StatesError + '_ {
    move |e| StatesError::Path {
        path: path.to_path_buf(),
        what: e.to_string(),
    }
}

/// One state to materialize.
#[derive(Debug, Clone, Copy)]
pub struct StateRequest<'a> {
    /// The instance.
    pub instance: &'a Instance,
    /// Its source repository (holding base and fix commits).
    pub repo: &'a Path,
    /// Which state.
    pub state: StateKind,
    /// Which scenario.
    pub scenario: Scenario,
    /// Apply the golden test patch too (the "tests already present" variant).
    pub with_tests: bool,
    /// The Partial change; required for [`StateKind::Partial`], ignored otherwise.
    pub partial: Option<&'a PartialChange>,
}

fn parse_patch(inst: &Instance, which: &str, text: &str) -> Result<Patch, StatesError> {
    diff::parse(text.as_bytes()).map_err(|e| StatesError::Instance {
        instance: inst.instance_id.clone(),
        what: format!("{which} does not parse: line {}: {}", e.line, e.kind),
    })
}

/// The golden patch of an instance, parsed.
pub fn golden_patch(inst: &Instance) -> Result<Patch, StatesError> {
    parse_patch(inst, "patch", &inst.patch)
}

/// The golden test patch of an instance, parsed (empty when it has none).
pub fn test_patch(inst: &Instance) -> Result<Patch, StatesError> {
    if inst.test_patch.trim().is_empty() {
        return Ok(Patch::default());
    }
    parse_patch(inst, "test_patch", &inst.test_patch)
}

/// The tree an instance's states start from. A git-history instance starts from its base
/// commit's tree. A Defects4J bug starts from Defects4J's buggy version with the golden
/// tests withheld: the fixed revision with the source patch and the test patch reversed
/// (the buggy version keeps the fix commit's other changes), while its history ends at
/// `base_commit`, Defects4J's `revision.id.buggy` (or, where the recipe maps Defects4J's
/// revisions onto another import, their commits there: [`Instance::repo_base`]).
pub fn base_tree(inst: &Instance) -> Result<git::BaseTree, StatesError> {
    if inst.source != SourceKind::Defects4j {
        return Ok(git::BaseTree::commit(inst.repo_base()));
    }
    if inst.repo_fix().is_empty() {
        return Err(StatesError::Instance {
            instance: inst.instance_id.clone(),
            what: "a Defects4J instance without fix_commit (revision.id.fixed) has no buggy version to start from".into(),
        });
    }
    let mut patches = vec![golden_patch(inst)?.reversed()];
    let tests = test_patch(inst)?;
    if !tests.files.is_empty() {
        patches.push(tests.reversed());
    }
    Ok(git::BaseTree {
        rev: inst.repo_fix().to_string(),
        patches,
    })
}

/// The files a state with `change` applied to the base tree has that differ from the base
/// commit's tree ([`base_tree`]); fails when the change does not apply.
pub fn state_edits(
    inst: &Instance,
    repo: &Path,
    change: Option<&Patch>,
) -> Result<Vec<git::FileEdit>, StatesError> {
    Ok(git::tree_edits(
        repo,
        &base_tree(inst)?,
        change,
        inst.repo_base(),
    )?)
}

/// `a` then `b`'s file patches, as one patch (code then tests).
fn concat(a: &Patch, b: &Patch) -> Patch {
    Patch {
        preamble: Vec::new(),
        files: a.files.iter().chain(&b.files).cloned().collect(),
    }
}

/// A process-unique number for temporary names (several states may be written at once).
fn unique() -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Removes a temporary directory when dropped, unless it was published.
struct TempDir(Option<PathBuf>);

impl Drop for TempDir {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_dir_all(p);
        }
    }
}

/// A hidden sibling of `target` to write into before the rename.
fn sibling(target: &Path, what: &str) -> Result<PathBuf, StatesError> {
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(path_err(&parent))?;
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "state".into());
    Ok(parent.join(format!(".{name}.hunkgen-{what}-{}", unique())))
}

/// Refuse a target that exists and is not an empty directory.
fn check_target(target: &Path) -> Result<(), StatesError> {
    match std::fs::read_dir(target) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                Err(StatesError::Path {
                    path: target.to_path_buf(),
                    what: "exists and is not empty; give an empty or new directory".into(),
                })
            } else {
                Ok(())
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => Err(StatesError::Path {
            path: target.to_path_buf(),
            what: "exists and is not a directory".into(),
        }),
        Err(e) => Err(path_err(target)(e)),
    }
}

/// Move the finished state into place (replacing an empty directory).
fn publish(tmp: &mut TempDir, target: &Path) -> Result<(), StatesError> {
    check_target(target)?;
    if target.is_dir() {
        std::fs::remove_dir(target).map_err(path_err(target))?;
    }
    if let Some(from) = &tmp.0 {
        std::fs::rename(from, target).map_err(path_err(target))?;
    }
    tmp.0 = None;
    Ok(())
}

/// What a state applies to the base: its patch (None for plain Novel), the golden hunks
/// in it, and the commit that carries it in the Best scenario.
struct Change {
    patch: Option<Patch>,
    hunks: Vec<usize>,
    partial: Option<PartialSource>,
    meta: Option<CommitMeta>,
}

/// The neutral commit on a base: its author's identity, one second after it, a message
/// that says nothing about the fix.
fn wip_meta(repo: &Path, base: &str) -> Result<CommitMeta, StatesError> {
    let b = git::commit_meta(repo, base)?;
    let when = |p: &Person| Person {
        time: b.committer.time.max(b.author.time) + 1,
        offset_minutes: p.offset_minutes,
        name: b.author.name.clone(),
        email: b.author.email.clone(),
    };
    Ok(CommitMeta {
        message: WIP_MESSAGE.into(),
        author: when(&b.author),
        committer: when(&b.committer),
    })
}

/// The Resolved state's commit: the real fix's message, author and dates when the
/// instance names a fix commit; for imported instances without one (SWE-bench has only a
/// base commit), the base author one second after the base with the message `Fix
/// <instance_id>`.
fn fix_meta(repo: &Path, inst: &Instance) -> Result<CommitMeta, StatesError> {
    if !inst.repo_fix().is_empty() {
        return Ok(git::commit_meta(repo, inst.repo_fix())?);
    }
    let mut meta = wip_meta(repo, inst.repo_base())?;
    meta.message = format!("Fix {}\n", inst.instance_id);
    Ok(meta)
}

fn change_of(req: &StateRequest<'_>) -> Result<Change, StatesError> {
    let inst = req.instance;
    let tests = if req.with_tests {
        Some(test_patch(inst)?)
    } else {
        None
    };
    let with_tests = |p: Patch| match &tests {
        Some(t) => concat(&p, t),
        None => p,
    };
    Ok(match req.state {
        StateKind::Novel => Change {
            meta: match tests {
                Some(_) => Some(wip_meta(req.repo, inst.repo_base())?),
                None => None,
            },
            patch: tests.clone(),
            hunks: Vec::new(),
            partial: None,
        },
        StateKind::Partial => {
            let p = req.partial.ok_or_else(|| StatesError::Instance {
                instance: inst.instance_id.clone(),
                what: "no Partial change given".into(),
            })?;
            Change {
                patch: Some(with_tests(p.patch.clone())),
                hunks: p.hunks_applied.clone(),
                partial: Some(p.source.clone()),
                meta: Some(wip_meta(req.repo, inst.repo_base())?),
            }
        }
        StateKind::Resolved => {
            let golden = golden_patch(inst)?;
            let mut hunks: Vec<usize> = inst.hunks.iter().map(|h| h.patch_index).collect();
            hunks.sort_unstable();
            Change {
                patch: Some(with_tests(golden)),
                hunks,
                partial: None,
                meta: Some(fix_meta(req.repo, inst)?),
            }
        }
    })
}

/// The `log -S` probe of a Novel or Partial state: the longest trimmed line the golden
/// patch adds in a hunk the state lacks, that no file of the base tree or of the state's
/// change already contains and no commit of the base's history added or removed (such a
/// line would be found without any leak); `None` when the few longest all were.
pub fn leak_probe(
    inst: &Instance,
    repo: &Path,
    applied: &[usize],
    change: Option<&Patch>,
) -> Result<Option<Vec<u8>>, StatesError> {
    let golden = golden_patch(inst)?;
    let applied: BTreeSet<usize> = applied.iter().copied().collect();
    let mut lines: Vec<Vec<u8>> = Vec::new();
    let mut index = 0usize;
    for fp in &golden.files {
        for h in &fp.hunks {
            if !applied.contains(&index) {
                for l in h.lines.iter().filter(|l| l.kind == LineKind::Added) {
                    let t = l.text().trim_ascii();
                    if !t.is_empty() {
                        lines.push(t.to_vec());
                    }
                }
            }
            index += 1;
        }
    }
    lines.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    lines.dedup();
    let changed: Vec<Vec<u8>> = state_edits(inst, repo, change)?
        .into_iter()
        .filter_map(|e| e.content)
        .collect();
    let needles: Vec<&[u8]> = lines.iter().map(Vec::as_slice).collect();
    let in_base = git::tree_contains(repo, inst.repo_base(), &needles)?;
    let candidates = lines.into_iter().zip(in_base).filter_map(|(l, in_base)| {
        let in_change = changed
            .iter()
            .any(|c| memchr::memmem::find(c, &l).is_some());
        (!in_base && !in_change).then_some(l)
    });
    // The longest such line the base's history never added or removed; each try scans
    // the history once, so a few at most (none: the other checks still run).
    for line in candidates.take(PROBE_TRIES) {
        if !git::history_touches(repo, inst.repo_base(), &line)? {
            return Ok(Some(line));
        }
    }
    Ok(None)
}

/// How many candidate lines `leak_probe` checks against the base's history.
const PROBE_TRIES: usize = 4;

/// A published state.
#[derive(Debug, Clone)]
pub struct Materialized {
    /// Its manifest (not yet written anywhere).
    pub manifest: StateManifest,
    /// For a Best state, its history packs as published (in its store), to hardlink
    /// into the instance's other states; empty for Worst.
    pub history: Vec<HistoryPack>,
}

/// Materialize one state into `target` (created; must not exist or be empty) and return
/// its manifest. Best states are built in a hidden sibling, gated, then renamed into
/// place. `history` gives packs that together hold exactly the objects reachable from
/// the base (an instance's history pack, or a layered store's segments), hardlinked
/// instead of packing the base history out of the source again.
pub fn materialize(
    req: &StateRequest<'_>,
    target: &Path,
    history: Option<&[HistoryPack]>,
) -> Result<Materialized, StatesError> {
    check_target(target)?;
    let inst = req.instance;
    let change = change_of(req)?;
    let edits = state_edits(inst, req.repo, change.patch.as_ref())?;
    let mut tmp = TempDir(Some(sibling(target, "state")?));
    let tmp_dir = tmp.0.clone().unwrap_or_default();
    let mut manifest = StateManifest {
        schema_version: inst.schema_version,
        instance_id: inst.instance_id.clone(),
        repo: inst.repo.clone(),
        state: req.state,
        scenario: req.scenario,
        expected: req.state.expected(),
        base_commit: inst.repo_base().to_string(),
        fix_commit: inst.repo_fix().to_string(),
        head_commit: None,
        hunks_applied: change.hunks.clone(),
        partial: change.partial.clone(),
        tests_present: req.with_tests,
        FAIL_TO_PASS: inst.FAIL_TO_PASS.clone(),
        PASS_TO_PASS: inst.PASS_TO_PASS.clone(),
        gate: Vec::new(),
        verification: None,
    };
    let mut history_names = Vec::new();
    match req.scenario {
        Scenario::Worst => {
            git::export_edits(req.repo, inst.repo_base(), &edits, &tmp_dir)?;
        }
        Scenario::Best => {
            let staged;
            let mut staging = TempDir(None);
            let history = match history {
                Some(h) => h,
                None => {
                    let dir = sibling(target, "pack")?;
                    staging.0 = Some(dir.clone());
                    staged = [git::pack_history(req.repo, inst.repo_base(), &dir)?];
                    &staged[..]
                }
            };
            // A state whose tree is not its base commit's gets one commit: the change's
            // (Partial, Resolved, tests added), else a neutral one (a Defects4J Novel).
            let neutral;
            let top = match &change.meta {
                Some(m) => Some((edits.as_slice(), m)),
                None if edits.is_empty() => None,
                None => {
                    neutral = wip_meta(req.repo, inst.repo_base())?;
                    Some((edits.as_slice(), &neutral))
                }
            };
            let built = git::build_state_repo(&tmp_dir, inst.repo_base(), history, top)?;
            history_names = history
                .iter()
                .map(|h| (h.name.clone(), h.base.clone()))
                .collect();
            drop(staging);
            let mut spec = GateSpec::default();
            if req.state != StateKind::Resolved {
                if !inst.repo_fix().is_empty() {
                    spec.absent_commits.push(inst.repo_fix().to_string());
                }
                let code = match req.state {
                    StateKind::Partial => req.partial.map(|p| &p.patch),
                    _ => None,
                };
                let applied = if req.state == StateKind::Partial {
                    change.hunks.as_slice()
                } else {
                    &[]
                };
                if let Some(probe) = leak_probe(inst, req.repo, applied, code)? {
                    spec.probes.push(probe);
                }
            }
            let report = git::check_state(&tmp_dir, &spec)?;
            manifest.head_commit = Some(built.head);
            manifest.gate = report.passed.iter().map(|c| c.name().to_string()).collect();
        }
    }
    publish(&mut tmp, target)?;
    Ok(Materialized {
        manifest,
        history: history_names
            .into_iter()
            .map(|(name, base)| HistoryPack {
                dir: target.join(".git/objects/pack"),
                name,
                base,
            })
            .collect(),
    })
}

/// `manifest.yaml` text.
pub fn manifest_yaml(m: &StateManifest) -> String {
    serde_norway::to_string(m).unwrap_or_default()
}

/// Write a manifest atomically.
pub fn write_manifest(path: &Path, m: &StateManifest) -> Result<(), StatesError> {
    Ok(dataset::write_atomic(path, manifest_yaml(m).as_bytes())?)
}

/// Read a manifest back.
pub fn read_manifest(path: &Path) -> Result<StateManifest, StatesError> {
    let text = std::fs::read_to_string(path).map_err(path_err(path))?;
    serde_norway::from_str(&text).map_err(|e| StatesError::Path {
        path: path.to_path_buf(),
        what: format!("not a state manifest: {e}"),
    })
}

/// Where a state lives in a dataset: `states/<id>/<state>-<scenario>[-tests]/`, holding
/// `repo/` and `manifest.yaml`.
pub fn state_dir(
    dataset: &Path,
    instance_id: &str,
    state: StateKind,
    scenario: Scenario,
    with_tests: bool,
) -> PathBuf {
    let tests = if with_tests { "-tests" } else { "" };
    dataset.join("states").join(instance_id).join(format!(
        "{}-{}{tests}",
        state.name(),
        scenario.name()
    ))
}

/// Materialize several states of one instance under a dataset's `states/` with one
/// history pack: packed once from the source for the first Best state, hardlinked into
/// every other. Each state is published whole (repo and manifest) or not at all.
pub fn materialize_instance(
    dataset: &Path,
    inst: &Instance,
    repo: &Path,
    which: &[(StateKind, Scenario)],
    with_tests: bool,
    partial: Option<&PartialChange>,
) -> Result<Vec<StateManifest>, StatesError> {
    states_of(dataset, inst, repo, which, with_tests, partial, Vec::new())
}

/// The states of one instance, starting from `history` (empty: pack it for the first
/// Best state and share that pack).
fn states_of(
    dataset: &Path,
    inst: &Instance,
    repo: &Path,
    which: &[(StateKind, Scenario)],
    with_tests: bool,
    partial: Option<&PartialChange>,
    mut history: Vec<HistoryPack>,
) -> Result<Vec<StateManifest>, StatesError> {
    let mut out = Vec::new();
    for &(state, scenario) in which {
        let dir = state_dir(dataset, &inst.instance_id, state, scenario, with_tests);
        let req = StateRequest {
            instance: inst,
            repo,
            state,
            scenario,
            with_tests,
            partial,
        };
        let repo_dir = dir.join("repo");
        let shared = (!history.is_empty()).then_some(history.as_slice());
        let done = materialize(&req, &repo_dir, shared)?;
        if history.is_empty() {
            history = done.history;
        }
        if let (StateKind::Partial, Some(p)) = (state, partial) {
            // Before the manifest, which marks the state complete.
            dataset::write_atomic(&dir.join(PARTIAL_PATCH), &p.patch.to_bytes())?;
        }
        write_manifest(&dir.join("manifest.yaml"), &done.manifest)?;
        out.push(done.manifest);
    }
    Ok(out)
}

/// The Partial change a dataset's Partial states of `inst` hold: the patch kept beside a
/// Partial state's manifest ([`PARTIAL_PATCH`]), else, for a hunk-subset state written
/// before that file existed, the golden hunks its manifest lists. `Ok(None)` when the
/// dataset has no Partial state of the instance.
pub fn stored_partial(
    dataset: &Path,
    inst: &Instance,
) -> Result<Option<PartialChange>, StatesError> {
    for tests in [false, true] {
        for sc in [Scenario::Worst, Scenario::Best] {
            let dir = state_dir(dataset, &inst.instance_id, StateKind::Partial, sc, tests);
            let Ok(m) = read_manifest(&dir.join("manifest.yaml")) else {
                continue;
            };
            let file = dir.join(PARTIAL_PATCH);
            let patch = match std::fs::read(&file) {
                Ok(bytes) => diff::parse(&bytes).map_err(|e| e.with_file(&file))?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => match &m.partial {
                    Some(PartialSource::HunkSubset { .. }) | None => {
                        subset_patch(&golden_patch(inst)?, &m.hunks_applied)
                    }
                    Some(_) => {
                        return Err(StatesError::Instance {
                            instance: inst.instance_id.clone(),
                            what: format!(
                                "{} is missing: this Partial state was written by an older hunkgen that did not keep a weak patch; build the dataset again",
                                file.display()
                            ),
                        })
                    }
                },
                Err(e) => return Err(path_err(&file)(e)),
            };
            return Ok(Some(PartialChange {
                patch,
                hunks_applied: m.hunks_applied,
                source: m.partial.unwrap_or(PartialSource::HunkSubset {
                    omitted: Vec::new(),
                }),
            }));
        }
    }
    Ok(None)
}

/// One instance's id and its states' manifests, or why they could not be made.
pub type InstanceStates = (String, Result<Vec<StateManifest>, StatesError>);

/// Where a repository's layered segment packs live in a dataset.
pub fn layers_dir(dataset: &Path, repo_name: &str) -> PathBuf {
    dataset
        .join("states/.packs")
        .join(repo_name.replace(['/', '\\'], "_"))
}

/// Materialize the states of many instances of one repository under a dataset's
/// `states/`, their Best states sharing layered history packs ([`LayeredStore`]): each
/// links the O(log n) segments covering its base's history, plus a small pack of its own
/// commit. One instance's failure (no Partial change, a refused gate) is its result
/// only; the others go on.
pub fn materialize_layered(
    dataset: &Path,
    repo: &Path,
    instances: &[&Instance],
    which: &[(StateKind, Scenario)],
    with_tests: bool,
    partial_for: &dyn Fn(&Instance) -> Option<PartialChange>,
) -> Result<Vec<InstanceStates>, StatesError> {
    let Some(first) = instances.first() else {
        return Ok(Vec::new());
    };
    let bases: Vec<&str> = instances.iter().map(|i| i.repo_base()).collect();
    let mut store = LayeredStore::new(repo, &layers_dir(dataset, &first.repo), &bases)?;
    let mut out = Vec::new();
    for inst in instances {
        let partial = partial_for(inst);
        let result = materialize_from_store(
            dataset,
            repo,
            &mut store,
            inst,
            which,
            with_tests,
            partial.as_ref(),
        );
        out.push((inst.instance_id.clone(), result));
    }
    Ok(out)
}

/// One instance's states, its Best states linking the segments of `store` (built with
/// the bases of every instance of the repository, so instances share them).
pub fn materialize_from_store(
    dataset: &Path,
    repo: &Path,
    store: &mut LayeredStore,
    inst: &Instance,
    which: &[(StateKind, Scenario)],
    with_tests: bool,
    partial: Option<&PartialChange>,
) -> Result<Vec<StateManifest>, StatesError> {
    let best = which.iter().any(|(_, sc)| *sc == Scenario::Best);
    let history = if best {
        store.packs_for(inst.repo_base())?
    } else {
        Vec::new()
    };
    states_of(dataset, inst, repo, which, with_tests, partial, history)
}
