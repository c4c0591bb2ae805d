//! The per-prediction metrics the evaluate orchestration records, from the pure functions
//! of this module's siblings: abstention, localization (files, hunks, lines).

use crate::classify::Classifier;
use crate::diff::Patch;
use crate::model::{Instance, Scores};
use crate::source::{Base, Candidate, Tree};

/// What a patch did, before any test runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metrics {
    /// Empty once tests, docs, non-code files, comments and docstrings are dropped.
    pub abstained: bool,
    /// Every golden file is among the patched files.
    pub localized: bool,
    /// Golden hunks whose buggy lines the patch touches.
    pub hunks_touched: Vec<usize>,
    /// Line-level precision / recall / F1 against the golden changed lines.
    pub line_scores: Option<Scores>,
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
    let pre_image = |path: &str| -> Option<Vec<u8>> {
        let base = buggy_file(c, path);
        match state_change.and_then(|p| p.files.iter().find(|f| f.path() == path)) {
            Some(fp) => crate::diff::apply_file(fp, &base.unwrap_or_default()).ok(),
            None => base,
        }
    };
    let abstained = super::abstains(patch, classifier, pre_image);
    let patched = super::patched_files(patch);
    let touched = super::lines_touched(patch);
    let golden = crate::states::golden_patch(inst)
        .map(|g| super::golden_hunks(&g, &inst.hunks))
        .unwrap_or_default();
    Metrics {
        abstained,
        localized: super::localized(&inst.files, &patched),
        hunks_touched: super::hunks_touched(&golden, &touched),
        line_scores: super::scores(&touched, &super::golden_lines(&golden)),
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
