//! Stage 5, states: each kept instance's repository states under `states/` (git
//! histories, imports and Defects4J bugs alike); see [`crate::states::write`].

use super::{BuildOptions, Item};
use crate::recipe::{Plan, StatesSpec};
use crate::states::write::{Reused, StatesWriter};
use crate::validate::stage::Validator;
use rayon::prelude::*;
use std::path::Path;

/// Partial changes first (test runs, in parallel), then the states (git writing, one
/// instance at a time); each item's `states` records what was written and what is missing.
/// States of `previous` (the dataset being replaced) whose inputs are unchanged are
/// reused, unless `--no-cache`: returned to be linked in only if the dataset changed.
pub(super) fn states(
    plan: &Plan,
    spec: &StatesSpec,
    validator: Option<&Validator<'_>>,
    items: &mut [Item],
    (dataset, previous): (&Path, &Path),
    opts: &BuildOptions,
) -> Reused {
    let previous = (!opts.no_cache && previous.is_dir()).then_some(previous);
    let writer = StatesWriter::new(plan, spec, validator, dataset)
        .reusing(previous)
        .sharing(items.iter().map(|it| &it.instance));
    let progress = opts.progress_bar("states", items.len() as u64);
    let partials: Vec<_> = items
        .par_iter()
        .map(|it| writer.partial(it.candidate, &it.instance))
        .collect();
    for (it, partial) in items.iter_mut().zip(partials) {
        it.instance.states = Some(writer.write(&it.instance, partial));
        progress.inc(1);
    }
    progress.finish();
    writer.finish()
}
