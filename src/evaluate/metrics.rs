//! The per-prediction metrics the evaluate orchestration records, from the pure functions
//! of this module's siblings: abstention, localization (files, hunks, lines); and the
//! abstention rule on its own for a run's patch ([`AbstentionRule`], `hunkgen judge`).

use super::error::ScoreError;
use crate::classify::Classifier;
use crate::diff::Patch;
use crate::model::{Card, Instance, Scores, StateKind};
use crate::source::{Base, Candidate, Tree};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What a patch did, before any test runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metrics {
    /// Empty once tests, docs, non-code files, comments and docstrings are dropped.
    pub abstained: bool,
    /// Every golden file is among the patched files: the agent study's, every code
    /// file of the developer's patch ([`super::golden_source_files`]).
    pub localized: bool,
    /// The named variant: every file with a counted golden hunk.
    pub localized_counted: bool,
    /// Golden hunks whose buggy lines the patch touches.
    pub hunks_touched: Vec<usize>,
    /// Line-level precision / recall / F1 against the golden changed lines.
    pub line_scores: Option<Scores>,
    /// Function-level precision / recall / F1: the methods holding the lines the patch
    /// touches against the golden hunks' `place.method_lines`.
    pub function_scores: Option<Scores>,
}

/// The metrics of `patch`, made on the state `base + state_change` of `inst`. Line
/// numbers are those of the state: on Novel they are the buggy file's, on Partial and
/// Resolved the golden lines may have moved, so line figures are approximate there.
pub fn of(
    inst: &Instance,
    c: &Candidate,
    state_change: Option<&Patch>,
    patch: &Patch,
    classifier: &Classifier,
) -> Metrics {
    let abstained = super::abstains(patch, classifier, pre_image(c, state_change));
    let patched = super::patched_files(patch);
    let touched = super::lines_touched(patch);
    let golden_patch = crate::states::golden_patch(inst).ok();
    let golden = golden_patch
        .as_ref()
        .map(|g| super::golden_hunks(g, &inst.hunks))
        .unwrap_or_default();
    let study_files = super::study_golden_files(golden_patch.as_ref(), &inst.files, classifier);
    Metrics {
        abstained,
        localized: super::localized(&study_files, &patched),
        localized_counted: super::localized(&inst.files, &patched),
        hunks_touched: super::hunks_touched(&golden, &touched),
        line_scores: super::scores(&touched, &super::golden_lines(&golden)),
        function_scores: super::scores(
            &functions_touched(c, state_change, &touched),
            &golden_functions(inst),
        ),
    }
}

/// A method identity in a file: its path and the (first, last) lines of the members it
/// spans, as annotation gives a hunk's `place.method_lines`.
type Function = (String, (u32, u32));

/// The golden functions: the method identities of the counted hunks that have one.
pub fn golden_functions(inst: &Instance) -> BTreeSet<Function> {
    inst.hunks
        .iter()
        .filter(|h| h.counted)
        .filter_map(|h| Some((h.file.clone(), h.place.as_ref()?.method_lines?)))
        .collect()
}

/// The functions holding the buggy-side lines a patch touches: per file, the members of
/// the buggy file overlapping each line (the rule annotation gives a hunk's method). Only
/// on the buggy state: on another the lines are not the buggy file's, and nothing is
/// scored.
fn functions_touched(
    c: &Candidate,
    state_change: Option<&Patch>,
    touched: &BTreeSet<super::Location>,
) -> BTreeSet<Function> {
    let mut out = BTreeSet::new();
    if state_change.is_some() {
        return out;
    }
    let mut by_file: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for (path, line) in touched {
        by_file.entry(path.as_str()).or_default().push(*line);
    }
    for (path, lines) in by_file {
        let Some(lang) = crate::syntax::Lang::from_path(path) else {
            continue;
        };
        let Some(bytes) = buggy_file(c, path) else {
            continue;
        };
        let shape = match lang {
            crate::syntax::Lang::Java => crate::syntax::TreeShape::JavaParser,
            _ => crate::syntax::TreeShape::Named,
        };
        let parsed = crate::syntax::parse_file(lang, &bytes, shape);
        for l in lines {
            let span = crate::diff::Span { start: l, end: l };
            if let Some(m) = parsed.method_for(span) {
                out.insert((path.to_string(), m));
            }
        }
    }
    out
}

/// A file of the state `base + state_change` the patch applies to (`None`: unreadable).
fn pre_image<'a>(
    c: &'a Candidate,
    state_change: Option<&'a Patch>,
) -> impl Fn(&str) -> Option<Vec<u8>> + 'a {
    move |path: &str| {
        let base = buggy_file(c, path);
        match state_change.and_then(|p| p.files.iter().find(|f| f.path() == path)) {
            Some(fp) => crate::diff::apply_file(fp, &base.unwrap_or_default()).ok(),
            None => base,
        }
    }
}

/// The change from the base to a state: none (Novel), the golden patch (Resolved), or
/// the change the dataset's Partial state holds ([`crate::states::stored_partial`]: the
/// weak patch itself, whatever made it), so a prediction is scored on exactly the tree
/// the agent saw.
pub(super) fn state_change(
    inst: &Instance,
    kind: StateKind,
    dataset: &Path,
) -> Result<Option<Patch>, ScoreError> {
    match kind {
        StateKind::Novel => Ok(None),
        StateKind::Resolved => Ok(Some(crate::states::golden_patch(inst)?)),
        StateKind::Partial => match crate::states::stored_partial(dataset, inst)? {
            Some(p) => Ok(Some(p.patch)),
            None => Err(ScoreError::NoPartial {
                instance: inst.instance_id.clone(),
            }),
        },
    }
}

/// `hunkgen evaluate`'s abstention rule for patches outside an evaluation (an agent
/// run's `model.patch`, judged by `hunkgen judge`): the same classifier, the same state
/// trees, the same decision.
#[derive(Debug)]
pub struct AbstentionRule {
    dataset: PathBuf,
    card: Card,
    classifier: Classifier,
    instances: BTreeMap<String, Instance>,
}

impl AbstentionRule {
    /// The rule of the dataset in `dataset` (its recipe's file roles, its instances).
    pub fn open(dataset: &Path) -> Result<AbstentionRule, super::error::EvaluateError> {
        let o = crate::recipe::open::open(dataset)?;
        let instances = crate::dataset::read_instances(dataset)?
            .into_iter()
            .map(|i| (i.instance_id.clone(), i))
            .collect();
        Ok(AbstentionRule {
            dataset: dataset.to_path_buf(),
            card: o.card,
            classifier: o.plan.rules.classifier,
            instances,
        })
    }

    /// The instance with this id, if the dataset has it.
    pub fn instance(&self, id: &str) -> Option<&Instance> {
        self.instances.get(id)
    }

    /// Whether `patch` (a unified diff; empty is an abstention) left on `state` of
    /// instance `id` abstains; `Err` says in one line why it cannot be decided.
    pub fn abstains(&self, id: &str, state: &str, patch: &str) -> Result<bool, String> {
        let inst = self
            .instances
            .get(id)
            .ok_or_else(|| format!("the dataset has no instance `{id}`"))?;
        let kind: StateKind = state.parse().map_err(|e| format!("{e}"))?;
        let patch = if patch.trim().is_empty() {
            Patch::default()
        } else {
            crate::diff::parse(patch.as_bytes())
                .map_err(|e| format!("model.patch is not a diff: line {}: {}", e.line, e.kind))?
        };
        let c = Candidate::from_instance(inst, &self.card).map_err(|e| e.to_string())?;
        let change = state_change(inst, kind, &self.dataset).map_err(|e| e.to_string())?;
        Ok(super::abstains(
            &patch,
            &self.classifier,
            pre_image(&c, change.as_ref()),
        ))
    }
}

/// A file of the candidate's buggy version: read at the buggy revision, or (Defects4J)
/// at the fixed revision with the fixed → buggy patch applied.
fn buggy_file(c: &Candidate, path: &str) -> Option<Vec<u8>> {
    match &c.base {
        Base::Buggy(Tree::Git { repo, rev, .. }) => {
            crate::git::read_blob(repo, rev, path, &[]).ok()
        }
        Base::Fixed {
            tree: Tree::Git { repo, rev, .. },
            to_buggy,
        } => match to_buggy.files.iter().find(|f| f.path() == path) {
            Some(fp) => {
                let fixed = match fp.old_path.as_deref() {
                    Some(old) => crate::git::read_blob(repo, rev, old, &[]).ok()?,
                    None => Vec::new(),
                };
                crate::diff::apply_file(fp, &fixed).ok()
            }
            None => crate::git::read_blob(repo, rev, path, &[]).ok(),
        },
        _ => None,
    }
}

/// The rates of a group of results (re-exported for the orchestration).
pub fn rates(results: &[&crate::model::PredictionResult]) -> crate::model::Rates {
    super::rates(results)
}
