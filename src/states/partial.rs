//! Partial states (ARCHITECTURE §6): which change a Partial state applies to its base, as
//! a proper subset of the golden hunks, an external patch file, or a weaker agent's patch
//! from a `hunkgen run` on the Novel state (FixedBench's way); each verified by running
//! the golden tests when a verifier is given.

use super::{concat, golden_patch, path_err, test_patch, unique, StatesError};
use crate::diff::{self, Patch};
use crate::git;
use crate::model::{Instance, PartialSource};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// How a Partial state's change is chosen (ARCHITECTURE §6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartialStrategy {
    /// A proper, non-empty subset of the counted golden hunks, largest first.
    HunkSubset {
        /// At most this many subsets are tried.
        cap: usize,
    },
    /// `<dir>/<instance_id>.patch`, an external weak patch.
    PatchFile {
        /// The directory of patches.
        dir: PathBuf,
    },
    /// `<dir>/<instance_id>/model.patch` of a `hunkgen run` on the Novel state: a
    /// weaker agent's attempt (FixedBench, appendix A).
    Run {
        /// The run directory, `runs/<agent>/novel-<scenario>`.
        dir: PathBuf,
    },
}

impl PartialStrategy {
    /// The strategy's name as the recipe's `states.partial.from` spells it.
    pub fn name(&self) -> &'static str {
        match self {
            PartialStrategy::HunkSubset { .. } => "hunk-subset",
            PartialStrategy::PatchFile { .. } => "patches",
            PartialStrategy::Run { .. } => "run",
        }
    }
}

/// The change a Partial state applies to the base.
#[derive(Debug, Clone, PartialEq)]
pub struct PartialChange {
    /// Forward patch (base → Partial), code only.
    pub patch: Patch,
    /// Patch indices of the golden hunks it applies (empty for a patch file).
    pub hunks_applied: Vec<usize>,
    /// Where it came from.
    pub source: PartialSource,
}

/// The hunks of `patch` whose global index (position among all `@@` hunks, as in
/// `HunkRecord::patch_index`) is in `keep`; file patches without hunks (pure renames,
/// mode changes) are kept, files left without hunks are dropped. Hunks apply by their
/// old-side position, so any subset of a patch that applies applies too.
pub fn subset_patch(patch: &Patch, keep: &[usize]) -> Patch {
    let keep: BTreeSet<usize> = keep.iter().copied().collect();
    let mut index = 0usize;
    let mut out = Patch {
        preamble: Vec::new(),
        files: Vec::new(),
    };
    for fp in &patch.files {
        if fp.hunks.is_empty() {
            out.files.push(fp.clone());
            continue;
        }
        let mut f = fp.clone();
        f.hunks = fp
            .hunks
            .iter()
            .filter(|_| {
                let k = index;
                index += 1;
                keep.contains(&k)
            })
            .cloned()
            .collect();
        if !f.hunks.is_empty() {
            out.files.push(f);
        }
    }
    out
}

/// Proper, non-empty subsets of an instance's counted hunks, largest first (then in
/// lexicographic order), at most `cap`; each is returned with every uncounted hunk added
/// (imports, created files: the counted hunks may need them), as sorted patch indices.
pub fn hunk_subsets(inst: &Instance, cap: usize) -> Vec<Vec<usize>> {
    let counted: Vec<usize> = inst
        .hunks
        .iter()
        .filter(|h| h.counted)
        .map(|h| h.patch_index)
        .collect();
    let uncounted: Vec<usize> = inst
        .hunks
        .iter()
        .filter(|h| !h.counted)
        .map(|h| h.patch_index)
        .collect();
    let n = counted.len();
    let mut out = Vec::new();
    for k in (1..n).rev() {
        // Combinations of k positions out of n, lexicographic.
        let mut pos: Vec<usize> = (0..k).collect();
        loop {
            if out.len() >= cap {
                return out;
            }
            let mut subset: Vec<usize> = pos.iter().map(|&p| counted[p]).collect();
            subset.extend(&uncounted);
            subset.sort_unstable();
            out.push(subset);
            let Some(i) = (0..k).rev().find(|&i| pos[i] < n - k + i) else {
                break;
            };
            pos[i] += 1;
            for j in i + 1..k {
                pos[j] = pos[j - 1] + 1;
            }
        }
    }
    out
}

/// Decides whether a Partial candidate (sorted patch indices of the hunks it applies) is
/// kept: it should still compile and still fail a golden test.
pub type SubsetVerifier<'a> = dyn Fn(&[usize]) -> bool + 'a;

/// Decides whether a Partial change (base → Partial, as a patch) is kept: base + change +
/// golden tests must build and still fail a golden test. Every strategy's candidate goes
/// through it, hunk subsets and weak patches alike.
pub type ChangeVerifier<'a> = dyn Fn(&Patch) -> bool + 'a;

/// The first (largest) candidate the verifier accepts, or the first one when there is
/// no verifier; a verifier compiles and runs the golden tests on the Partial tree and
/// accepts subsets that still compile and still fail (see [`worst_state_verifier`]).
pub fn choose_partial<'a>(
    candidates: &'a [Vec<usize>],
    verify: Option<&SubsetVerifier<'_>>,
) -> Option<&'a [usize]> {
    match verify {
        None => candidates.first().map(Vec::as_slice),
        Some(v) => candidates.iter().map(Vec::as_slice).find(|c| v(c)),
    }
}

/// A change verifier for [`partial_change`] from a directory verifier: each candidate
/// change is exported as a Worst state with the golden tests present into a fresh
/// directory under `scratch`, handed to `check`, then removed. Export failures reject it.
pub fn worst_state_verifier<'a>(
    inst: &'a Instance,
    repo: &'a Path,
    scratch: &'a Path,
    check: &'a dyn Fn(&Path) -> bool,
) -> impl Fn(&Patch) -> bool + 'a {
    move |change: &Patch| {
        let Ok(tests) = test_patch(inst) else {
            return false;
        };
        let dir = scratch.join(format!(".verify-{}", unique()));
        let patch = concat(change, &tests);
        let exported = super::state_edits(inst, repo, Some(&patch))
            .and_then(|edits| Ok(git::export_edits(repo, inst.repo_base(), &edits, &dir)?));
        let ok = exported.is_ok() && check(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        ok
    }
}

/// Choose the Partial change of an instance by `strategy`. With `hunk-subset` the
/// subsets that do not apply to the base are skipped and `verify` (if any) picks among
/// the rest, largest first; a weak patch (`patches`, `run`) must be non-empty, apply to
/// the base and, with `verify`, leave a golden test failing. Each refusal says why.
pub fn partial_change(
    inst: &Instance,
    repo: &Path,
    strategy: &PartialStrategy,
    verify: Option<&ChangeVerifier<'_>>,
) -> Result<PartialChange, StatesError> {
    let no = |what: String| StatesError::Instance {
        instance: inst.instance_id.clone(),
        what,
    };
    let golden = golden_patch(inst)?;
    match strategy {
        PartialStrategy::HunkSubset { cap } => {
            let all = hunk_subsets(inst, *cap);
            if all.is_empty() {
                return Err(no(
                    "no Partial state: fewer than two counted hunks, so no proper non-empty subset"
                        .into(),
                ));
            }
            let applying: Vec<Vec<usize>> = all
                .into_iter()
                .filter(|s| super::state_edits(inst, repo, Some(&subset_patch(&golden, s))).is_ok())
                .collect();
            let golden_ref = &golden;
            let by_subset = verify.map(|v| move |s: &[usize]| v(&subset_patch(golden_ref, s)));
            let chosen = choose_partial(
                &applying,
                by_subset.as_ref().map(|f| f as &SubsetVerifier<'_>),
            )
            .ok_or_else(|| {
                no(format!(
                    "no Partial state: none of {} hunk subset(s) {}",
                    applying.len(),
                    if verify.is_some() {
                        "was accepted by the verifier"
                    } else {
                        "applies to the base"
                    }
                ))
            })?;
            let omitted = inst
                .hunks
                .iter()
                .filter(|h| h.counted && !chosen.contains(&h.patch_index))
                .map(|h| h.patch_index)
                .collect();
            Ok(PartialChange {
                patch: subset_patch(&golden, chosen),
                hunks_applied: chosen.to_vec(),
                source: PartialSource::HunkSubset { omitted },
            })
        }
        PartialStrategy::PatchFile { dir } => {
            let file = dir.join(format!("{}.patch", inst.instance_id));
            let patch = read_patch(&file)?;
            let source = PartialSource::PatchFile {
                path: file.display().to_string(),
            };
            weak_change(inst, repo, patch, source, &file, verify)
        }
        PartialStrategy::Run { dir } => {
            let (patch, source, file) = run_patch(inst, dir)?;
            weak_change(inst, repo, patch, source, &file, verify)
        }
    }
}

/// A weak patch as a Partial change: it must change something, apply to the base, and
/// (with a verifier) leave at least one golden test failing.
fn weak_change(
    inst: &Instance,
    repo: &Path,
    patch: Patch,
    source: PartialSource,
    file: &Path,
    verify: Option<&ChangeVerifier<'_>>,
) -> Result<PartialChange, StatesError> {
    let no = |what: String| StatesError::Instance {
        instance: inst.instance_id.clone(),
        what,
    };
    if patch.files.is_empty() {
        return Err(no(format!(
            "no Partial state: {} is empty (the weak patch changes nothing)",
            file.display()
        )));
    }
    if let Err(e) = super::state_edits(inst, repo, Some(&patch)) {
        return Err(no(format!(
            "no Partial state: {} does not apply to the base: {e}",
            file.display()
        )));
    }
    if let Some(v) = verify {
        if !v(&patch) {
            return Err(StatesError::WeakPatchPasses {
                instance: inst.instance_id.clone(),
                file: file.to_path_buf(),
                seen: None,
            });
        }
    }
    Ok(PartialChange {
        patch,
        // Not made of golden hunks: its tree is the patch itself (kept beside the
        // state's manifest, [`super::PARTIAL_PATCH`]).
        hunks_applied: Vec::new(),
        source,
    })
}

/// The patch a `hunkgen run` left for an instance (`<dir>/<id>/model.patch`), checked
/// against its `result.json`: the run must have been on the Novel state.
fn run_patch(inst: &Instance, dir: &Path) -> Result<(Patch, PartialSource, PathBuf), StatesError> {
    let no = |what: String| StatesError::Instance {
        instance: inst.instance_id.clone(),
        what,
    };
    let here = dir.join(&inst.instance_id);
    let result = here.join("result.json");
    let text = std::fs::read_to_string(&result).map_err(|_| {
        no(format!(
            "no Partial state: the run {} has no result for this instance ({} is missing)",
            dir.display(),
            result.display()
        ))
    })?;
    let record: crate::model::AgentRunRecord = serde_json::from_str(&text).map_err(|e| {
        no(format!(
            "no Partial state: {} is not a run result: {e}",
            result.display()
        ))
    })?;
    if record.state != crate::model::StateKind::Novel.name() {
        return Err(no(format!(
            "no Partial state: {} ran on the `{}` state; a Partial patch comes from a run on `novel`",
            result.display(),
            record.state
        )));
    }
    let file = here.join("model.patch");
    let patch = read_patch(&file)?;
    let source = PartialSource::Run {
        run: dir.display().to_string(),
        agent: record.agent,
    };
    Ok((patch, source, file))
}

/// A weak patch file; an empty one (an agent that changed nothing) is the empty patch.
fn read_patch(file: &Path) -> Result<Patch, StatesError> {
    let bytes = std::fs::read(file).map_err(path_err(file))?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Patch::default());
    }
    Ok(diff::parse(&bytes).map_err(|e| e.with_file(file))?)
}
