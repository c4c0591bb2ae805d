//! A build's states stage: each kept instance's repository states written under the
//! dataset's `states/`, with the verification each state's manifest records.
//!
//! A Partial state is the largest proper subset of the golden hunks that, with a
//! validator, still builds and still fails a FAIL_TO_PASS test on every rerun. States
//! that cannot be made are listed in the instance's `states.missing`, never fatal.

use super::layers::LayeredStore;
use super::PartialStrategy;
use crate::model::{Instance, Scenario, SourceKind, StateKind, StatesRecord};
use crate::recipe::{PartialSpec, Plan, SourcePlan, StatesSpec};
use crate::source::defects4j::upstream_repo;
use crate::source::Candidate;
use crate::validate::stage::Validator;
use std::collections::BTreeMap;
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

/// Bump when the bytes of a written state change for the same inputs, so a rebuild does
/// not reuse states an older hunkgen wrote ([`StatesWriter::reusing`]).
const STATES_FORMAT: &str = "hunkgen-states-v2";

/// The directory in `states/` of the layered history packs ([`super::layers_dir`]).
const PACKS: &str = ".packs";

/// The file in `states/<id>/` naming what the instance's states were written from.
const KEY_FILE: &str = ".hunkgen-key";

/// What writing a dataset's states needs: the recipe's `states:`, the validator (if the
/// recipe validates) and the dataset directory being written.
pub struct StatesWriter<'a> {
    plan: &'a Plan,
    spec: &'a StatesSpec,
    validator: Option<&'a Validator<'a>>,
    dataset: &'a Path,
    strategy: PartialStrategy,
    logs: PathBuf,
    previous: Option<PathBuf>,
    pending: std::sync::Mutex<Reused>,
    /// Per repository name, the bases of every instance this build writes
    /// ([`StatesWriter::sharing`]).
    bases: BTreeMap<String, Vec<String>>,
    /// Per repository name, the layered store all its instances' Best states share.
    stores: std::sync::Mutex<BTreeMap<String, LayeredStore>>,
}

/// The states a build takes over from the dataset it replaces, not yet linked in: they
/// are linked only when the new dataset differs from the old one, so a rebuild that
/// changes nothing keeps the old dataset without touching its states.
#[derive(Debug, Default)]
pub struct Reused {
    /// The reused instances.
    instances: Vec<ReusedInstance>,
    /// Whether this build wrote any state itself (then the datasets differ anyway).
    wrote: bool,
}

/// One instance whose states a build takes over: its id, and each state's manifest as
/// this build writes it (the state directory's name, `novel-best`, and the text).
#[derive(Debug)]
struct ReusedInstance {
    id: String,
    manifests: Vec<(String, String)>,
}

impl Reused {
    /// Whether the `previous` dataset's `states/` holds exactly these reused instances
    /// with these manifests, and this build wrote no state of its own.
    pub fn same_as(&self, previous: &Path) -> bool {
        if self.wrote {
            return false;
        }
        let states = previous.join("states");
        let Ok(entries) = std::fs::read_dir(&states) else {
            return self.instances.is_empty();
        };
        // The layered packs (`states/.packs`) come along with the states that use them.
        let there = entries.flatten().filter(|e| e.file_name() != PACKS).count();
        there == self.instances.len()
            && self.instances.iter().all(|r| {
                r.manifests.iter().all(|(dir, text)| {
                    let old = states.join(&r.id).join(dir).join("manifest.yaml");
                    std::fs::read_to_string(old).is_ok_and(|t| &t == text)
                })
            })
    }

    /// Hardlink the reused states of `previous` into `dataset` and write their
    /// manifests, with the previous dataset's layered history packs the new one lacks
    /// (a segment's name, `<tip>-<exclude>`, says what it holds, so old and new segments
    /// mix; `checkout` recreates a Best state from them).
    pub fn link(self, previous: &Path, dataset: &Path) -> Result<(), crate::dataset::DatasetError> {
        let (old, new) = (previous.join("states"), dataset.join("states"));
        if self.instances.is_empty() {
            return Ok(());
        }
        for r in self.instances {
            crate::dataset::link_tree(&old.join(&r.id), &new.join(&r.id))?;
            for (dir, text) in r.manifests {
                // A new file, not a write through the link into the old dataset.
                let path = new.join(&r.id).join(dir).join("manifest.yaml");
                crate::dataset::write_atomic(&path, text.as_bytes())?;
            }
        }
        let Ok(repos) = std::fs::read_dir(old.join(PACKS)) else {
            return Ok(());
        };
        for repo in repos.flatten() {
            let Ok(segments) = std::fs::read_dir(repo.path()) else {
                continue;
            };
            for seg in segments.flatten() {
                let name = seg.file_name();
                let to = new.join(PACKS).join(repo.file_name()).join(&name);
                // Only complete segments (a writer's temporary ones start with a dot).
                if !name.to_string_lossy().starts_with('.') && !to.exists() {
                    crate::dataset::link_tree(&seg.path(), &to)?;
                }
            }
        }
        Ok(())
    }
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
        let strategy = match (&spec.partial, &spec.partial_patches) {
            (Some(PartialSpec::Patches { dir }), _) | (None, Some(dir)) => {
                PartialStrategy::PatchFile { dir: dir.clone() }
            }
            (Some(PartialSpec::Run { run }), _) => PartialStrategy::Run { dir: run.clone() },
            (Some(PartialSpec::HunkSubset { cap }), _) => PartialStrategy::HunkSubset { cap: *cap },
            (None, None) => PartialStrategy::HunkSubset {
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
            previous: None,
            pending: std::sync::Mutex::new(Reused::default()),
            bases: BTreeMap::new(),
            stores: std::sync::Mutex::new(BTreeMap::new()),
        }
    }

    /// Share history across `instances` (every instance the build writes): the Best
    /// states of one repository's instances link the segments of one layered store made
    /// from all their bases, so the root history is stored once per repository, not once
    /// per instance.
    pub fn sharing<'i>(mut self, instances: impl IntoIterator<Item = &'i Instance>) -> Self {
        for inst in instances {
            let bases = self.bases.entry(inst.repo.clone()).or_default();
            if !bases.iter().any(|b| b == inst.repo_base()) {
                bases.push(inst.repo_base().to_string());
            }
        }
        self
    }

    /// The instance's states, its Best states linking the repository's shared store
    /// (made on first use from the bases the repository holds); an instance whose base
    /// is not among them (an unknown revision, or a writer not told with
    /// [`StatesWriter::sharing`]) gets a store of its own, which names its error.
    fn layered(
        &self,
        repo: &Path,
        inst: &Instance,
        which: &[(StateKind, Scenario)],
        tests: bool,
        partial: Option<&super::PartialChange>,
    ) -> Result<Vec<crate::model::StateManifest>, super::StatesError> {
        let mut stores = self
            .stores
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !stores.contains_key(&inst.repo) {
            let known: Vec<&str> = self
                .bases
                .get(&inst.repo)
                .into_iter()
                .flatten()
                .map(String::as_str)
                .filter(|b| crate::git::commit_time(repo, b).is_ok())
                .collect();
            let root = super::layers_dir(self.dataset, &inst.repo);
            if let Ok(store) = LayeredStore::new(repo, &root, &known) {
                stores.insert(inst.repo.clone(), store);
            }
        }
        match stores.get_mut(&inst.repo) {
            Some(store) if store.has(inst.repo_base()) => super::materialize_from_store(
                self.dataset,
                repo,
                store,
                inst,
                which,
                tests,
                partial,
            ),
            _ => {
                let mut v =
                    super::materialize_layered(self.dataset, repo, &[inst], which, tests, &|_| {
                        partial.cloned()
                    })?;
                v.pop().map(|(_, r)| r).unwrap_or_else(|| Ok(Vec::new()))
            }
        }
    }

    /// Reuse the states of `previous` (the dataset this build replaces) whose inputs are
    /// unchanged: an instance whose `states/<id>/.hunkgen-key` there equals its key now
    /// (the instance's commits, patches and golden tests, the states asked for, the Partial change,
    /// this hunkgen's version and [`STATES_FORMAT`]) takes its state directories from
    /// there instead of writing and gating them again; their manifests are written anew.
    /// They are hardlinked in by [`Reused::link`] ([`StatesWriter::finish`] hands them
    /// over) only if the new dataset differs from the old one. Git objects are named by
    /// their content and the old dataset is removed once the new one is in place, so the
    /// links share nothing that changes.
    pub fn reusing(mut self, previous: Option<&Path>) -> Self {
        self.previous = previous.map(Path::to_path_buf);
        self
    }

    /// The states taken over from the previous dataset, still to be linked in.
    pub fn finish(self) -> Reused {
        self.pending.into_inner().unwrap_or_default()
    }

    /// What an instance's states are written from (see [`StatesWriter::reusing`]).
    fn key(&self, inst: &Instance, partial: Option<&super::PartialChange>) -> String {
        // Only what shapes a state and its manifest: not the annotations (a shard's
        // proximity is finished at merge) nor what running the tests recorded.
        let row = serde_json::to_vec(&(
            inst.schema_version,
            &inst.instance_id,
            &inst.repo,
            inst.source,
            &inst.base_commit,
            &inst.fix_commit,
            &inst.repo_commits,
            &inst.patch,
            &inst.test_patch,
            &inst.FAIL_TO_PASS,
            &inst.PASS_TO_PASS,
        ))
        .unwrap_or_default();
        let change = format!("{partial:?}");
        let spec = format!(
            "{:?} {:?} {:?} {:?}",
            self.spec.kinds,
            self.spec.scenarios,
            self.spec.test_variants(),
            self.strategy
        );
        crate::cache::Key::of(&[
            STATES_FORMAT.as_bytes(),
            env!("CARGO_PKG_VERSION").as_bytes(),
            &row,
            change.as_bytes(),
            spec.as_bytes(),
        ])
        .as_str()
        .to_string()
    }

    /// The previous dataset, when its `states/<id>/` has key `key` and every state
    /// directory in `dirs` with its manifest.
    fn reusable(&self, inst: &Instance, key: &str, dirs: &[PathBuf]) -> Option<&Path> {
        let previous = self.previous.as_deref()?;
        let old = previous.join("states").join(&inst.instance_id);
        let same = std::fs::read_to_string(old.join(KEY_FILE)).is_ok_and(|k| k.trim() == key);
        let complete = dirs.iter().all(|d| {
            d.file_name().is_some_and(|n| {
                old.join(n).join("manifest.yaml").is_file() && old.join(n).join("repo").is_dir()
            })
        });
        (same && complete).then_some(previous)
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
        let refusal = std::sync::Mutex::new(None);
        let refusals = std::sync::Mutex::new(BTreeMap::<&'static str, usize>::new());
        let verify = |change: &crate::diff::Patch| -> bool {
            let Some(v) = self.validator else { return true };
            // Still unresolved by the rule resolution is scored by (SWE-bench's, FixedBench's):
            // some golden test, FAIL_TO_PASS or PASS_TO_PASS, does not pass.
            let golden: Vec<String> = inst
                .FAIL_TO_PASS
                .iter()
                .chain(&inst.PASS_TO_PASS)
                .cloned()
                .collect();
            let (ok, record) = v.partial_still_fails(c, change, &golden, &self.logs);
            if !ok {
                if let Ok(mut tally) = refusals.lock() {
                    *tally.entry(refusal_cause(&record)).or_default() += 1;
                }
            }
            let slot = if ok { &verdict } else { &refusal };
            if let Ok(mut slot) = slot.lock() {
                *slot = Some(record);
            }
            ok
        };
        let change = super::partial_change(inst, repo, &self.strategy, Some(&verify));
        let record = verdict.into_inner().ok().flatten();
        let tally = refusals.into_inner().unwrap_or_default();
        // A weak patch refused by its run says what the run saw (every golden test
        // passing, or why the tests did not run).
        let change = match change {
            Err(super::StatesError::WeakPatchPasses { instance, file, .. }) => {
                Err(NoPartial::States(super::StatesError::WeakPatchPasses {
                    instance,
                    file,
                    seen: refusal.into_inner().ok().flatten(),
                }))
            }
            // Every candidate refused: say how many were refused for what.
            Err(super::StatesError::Instance { instance, what }) if !tally.is_empty() => {
                let causes: Vec<String> = tally.iter().map(|(c, n)| format!("{n} {c}")).collect();
                Err(NoPartial::States(super::StatesError::Instance {
                    instance,
                    what: format!("{what}: {}", causes.join(", ")),
                }))
            }
            r => r.map_err(NoPartial::from),
        };
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
        let d4j = inst.source == SourceKind::Defects4j;
        let verification = |kind: StateKind| -> Option<serde_json::Value> {
            let v = inst.validation.as_ref()?;
            match kind {
                StateKind::Novel => Some(serde_json::json!({
                    "golden_tests": "fail",
                    "runs": v.runs.before,
                    "from": if d4j {
                        "validation: Defects4J's buggy version"
                    } else {
                        "validation: base + test patch"
                    },
                })),
                StateKind::Resolved => Some(serde_json::json!({
                    "golden_tests": "pass",
                    "runs": v.runs.after,
                    "from": if d4j {
                        "validation: Defects4J's fixed version"
                    } else {
                        "validation: base + test patch + patch"
                    },
                })),
                StateKind::Partial => partial_record.clone(),
            }
        };
        let dataset = self.dataset;
        let key = self.key(inst, partial.as_ref().ok());
        let dirs: Vec<PathBuf> = self
            .spec
            .test_variants()
            .iter()
            .flat_map(|&tests| {
                which
                    .iter()
                    .map(move |&(k, sc)| super::state_dir(dataset, &inst.instance_id, k, sc, tests))
            })
            .collect();
        let reused = self.reusable(inst, &key, &dirs);
        let mut manifests_now = Vec::new();
        for &tests in self.spec.test_variants() {
            let outcome = if let Some(previous) = reused {
                let read: Result<Vec<_>, _> = which
                    .iter()
                    .map(|&(k, sc)| {
                        let dir = super::state_dir(previous, &inst.instance_id, k, sc, tests);
                        super::read_manifest(&dir.join("manifest.yaml"))
                    })
                    .collect();
                Some(read)
            } else {
                Some(self.layered(repo, inst, &which, tests, partial.as_ref().ok()))
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
                        let name = dir
                            .file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_default();
                        if reused.is_some() {
                            manifests_now.push((name.clone(), super::manifest_yaml(&m)));
                        } else {
                            let _ = super::write_manifest(&dir.join("manifest.yaml"), &m);
                        }
                        record.written.push(name);
                    }
                }
                Some(Err(e)) => record.missing.push(format!("states: {e}")),
                None => {}
            }
        }
        let wrote_here = reused.is_none();
        if let Ok(mut pending) = self.pending.lock() {
            match reused {
                Some(_) => pending.instances.push(ReusedInstance {
                    id: inst.instance_id.clone(),
                    manifests: manifests_now,
                }),
                None => pending.wrote = true,
            }
        }
        // Only a complete set of states may be reused by the next build.
        let all = record.written.len() == dirs.len();
        if wrote_here && all {
            let file = dataset
                .join("states")
                .join(&inst.instance_id)
                .join(KEY_FILE);
            let _ = crate::dataset::write_atomic(&file, format!("{key}\n").as_bytes());
        }
        record
    }
}

/// The repository an instance's states are made from: the git source's, the clone a
/// SWE-bench import names for the instance's `repo` (imports may name several), or the
/// upstream repository given for the Defects4J project whose upstream `repo` is.
pub fn state_repo<'p>(plan: &'p Plan, repo: &str) -> Option<&'p Path> {
    match &plan.source {
        SourcePlan::Git(git) => Some(&git.repo),
        SourcePlan::Swebench(s) => s.repos.get(repo).map(|p| p.as_path()),
        SourcePlan::Github(g) => Some(g.clone.as_path()),
        SourcePlan::Defects4j(d) => d
            .repos
            .iter()
            .find(|(project, _)| upstream_repo(project).unwrap_or(project) == repo)
            .and_then(|(_, r)| r.path.as_deref()),
    }
}

/// Why the Partial verifier refused a candidate, from its record: what a closing
/// "none accepted" line counts.
fn refusal_cause(record: &serde_json::Value) -> &'static str {
    if record["golden_tests"] == "pass" {
        return "let every golden test pass";
    }
    let error = record["error"].as_str().unwrap_or_default();
    if error.starts_with("compile_error") {
        "do not compile"
    } else if record["kind"] == "Timeout" {
        "time out"
    } else {
        "fail to run (the logs say why)"
    }
}
