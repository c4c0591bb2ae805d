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
