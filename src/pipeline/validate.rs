//! Stage 4, validate: run each kept instance's golden tests; confirmed instances get
//! FAIL_TO_PASS, PASS_TO_PASS and `validation{}`, the others a rejection.

use super::{BuildOptions, Item};
use crate::model::Rejected;
use crate::validate::stage::{Outcome, Validator};
use rayon::prelude::*;
use std::path::Path;

/// Keep the confirmed items (in order) and return the rejections of the others; logs go
/// under `dataset/logs`.
pub(super) fn validate(
    validator: &Validator<'_>,
    items: &mut Vec<Item>,
    dataset: &Path,
    opts: &BuildOptions,
) -> Vec<Rejected> {
    let logs = dataset.join("logs");
    let progress = opts.progress_bar("validate", items.len() as u64);
    let outcomes: Vec<Outcome> = items
        .par_iter()
        .map(|it| {
            let o = validator.validate(it.candidate, &logs, !opts.no_cache);
            progress.inc(1);
            o
        })
        .collect();
    progress.finish();
    let mut confirmed = Vec::with_capacity(items.len());
    let mut rejected = Vec::new();
    for (mut it, o) in items.drain(..).zip(outcomes) {
        match o.rejection {
            Some((reason, detail)) => rejected.push(Rejected::new(
                it.instance.instance_id.clone(),
                crate::model::Stage::Validate,
                reason,
                detail,
            )),
            None => {
                it.instance.FAIL_TO_PASS = o.fail_to_pass;
                it.instance.PASS_TO_PASS = o.pass_to_pass;
                it.instance.failures = o.failures;
                it.instance.validation = Some(o.record);
                confirmed.push(it);
            }
        }
    }
    *items = confirmed;
    rejected
}

/// Ablate each counted hunk of the confirmed items (`validate.necessary_hunks`): the
/// golden patch without that hunk, with the test patch, run as a Partial candidate is
/// (same cache keys, so a Partial state's subsets and the ablations share runs). A hunk
/// is necessary when its removal leaves a FAIL_TO_PASS test failing on every rerun or
/// keeps the tests from running; not necessary when every FAIL_TO_PASS test still
/// passes. Logs go to `logs/<id>/without-hunk-<k>/`.
pub(super) fn necessary_hunks(
    validator: &Validator<'_>,
    items: &mut [Item],
    dataset: &Path,
    opts: &BuildOptions,
) {
    let logs = dataset.join("logs");
    let progress = opts.progress_bar("necessary hunks", items.len() as u64);
    items.par_iter_mut().for_each(|it| {
        ablate(validator, it, &logs);
        progress.inc(1);
    });
    progress.finish();
}

fn ablate(validator: &Validator<'_>, it: &mut Item, logs: &Path) {
    let Ok(golden) = crate::states::golden_patch(&it.instance) else {
        return;
    };
    let all: Vec<usize> = it.instance.hunks.iter().map(|h| h.patch_index).collect();
    let counted: Vec<usize> = it
        .instance
        .hunks
        .iter()
        .filter(|h| h.counted)
        .map(|h| h.patch_index)
        .collect();
    for k in counted {
        let keep: Vec<usize> = all.iter().copied().filter(|&i| i != k).collect();
        let change = crate::states::subset_patch(&golden, &keep);
        let mut c = it.candidate.clone();
        c.id = format!("{}/without-hunk-{k}", c.id);
        let (still_fails, record) =
            validator.partial_still_fails(&c, &change, &it.instance.FAIL_TO_PASS, logs);
        let necessary = if still_fails {
            Some(true)
        } else if record.get("golden_tests").and_then(|v| v.as_str()) == Some("pass") {
            Some(false)
        } else if record.get("kind").is_some() {
            // The tree without it did not build or collect: the fix needs it to run.
            Some(true)
        } else {
            None
        };
        if let Some(h) = it.instance.hunks.iter_mut().find(|h| h.patch_index == k) {
            h.necessary = necessary;
        }
    }
}

/// Reject the items with fewer necessary hunks than `min` (`select.min_necessary_hunks`),
/// each with one line naming every counted hunk and whether the fix needs it.
pub(super) fn select_necessary(items: &mut Vec<Item>, min: usize) -> Vec<Rejected> {
    let mut rejected = Vec::new();
    items.retain(|it| {
        let counted: Vec<&crate::model::HunkRecord> =
            it.instance.hunks.iter().filter(|h| h.counted).collect();
        let necessary = counted.iter().filter(|h| h.necessary == Some(true)).count();
        if necessary >= min {
            return true;
        }
        let each: Vec<String> = counted
            .iter()
            .map(|h| {
                format!(
                    "{}:{} {}",
                    h.file,
                    h.buggy.start,
                    match h.necessary {
                        Some(true) => "necessary",
                        Some(false) => "not necessary (the golden tests pass without it)",
                        None => "undecided",
                    }
                )
            })
            .collect();
        rejected.push(Rejected::new(
            it.instance.instance_id.clone(),
            crate::model::Stage::Validate,
            crate::model::RejectReason::FewNecessaryHunks,
            format!(
                "{necessary} of {} counted hunks necessary, fewer than select.min_necessary_hunks {min}: {}",
                counted.len(),
                each.join("; ")
            ),
        ));
        false
    });
    rejected
}

/// `select.reject_new_api_only`: drop the instances whose every FAIL_TO_PASS test failed
/// before the fix only because a name the patch adds was missing.
pub(super) fn select_new_api(items: &mut Vec<Item>) -> Vec<Rejected> {
    let mut rejected = Vec::new();
    items.retain(|it| {
        let Some(missing) = crate::validate::new_api::only_new_api(&it.instance) else {
            return true;
        };
        let each: Vec<String> = missing
            .iter()
            .map(|(test, name)| format!("{test}: `{name}`"))
            .collect();
        rejected.push(Rejected::new(
            it.instance.instance_id.clone(),
            crate::model::Stage::Validate,
            crate::model::RejectReason::NewApiOnly,
            format!(
                "every FAIL_TO_PASS test failed before the fix only because a name the patch adds was missing (new API, not a wrong behaviour): {}",
                each.join("; ")
            ),
        ));
        false
    });
    rejected
}
