//! Stage 2, extract: every candidate as an instance (counted hunks, statistics), then the
//! selection of the multi-hunk ones this build (or shard) works on.

use super::{BuildOptions, Item};
use crate::model::Instance;
use crate::recipe::{Plan, Stratify};
use crate::source::Candidate;
use rayon::prelude::*;

/// Every candidate as an instance, in the source's order.
pub(super) fn extract(plan: &Plan, candidates: &[Candidate]) -> Vec<Instance> {
    candidates
        .par_iter()
        .map(|c| crate::extract::instance(c, &plan.rules))
        .collect()
}

/// The multi-hunk candidates, and the items of those this build works on.
pub(super) struct Selected<'c> {
    /// Candidates with at least `min_code_hunks` counted hunks (all shards').
    pub multi_hunk: Vec<&'c Candidate>,
    /// Their instance rows as extracted (all shards'): what `select.sample` draws from.
    pub rows: Vec<&'c Instance>,
    /// Those of them this shard owns (all without a shard), as items; every one of them
    /// when the sample is stratified by proximity class, which each shard must know for
    /// all instances before it keeps its own.
    pub items: Vec<Item<'c>>,
}

/// Keep the candidates with enough counted hunks. A shard works only on its instances;
/// mining and extraction (cheap) stay whole so every shard knows the counts and the
/// report's not-counted table.
pub(super) fn select<'c>(
    plan: &Plan,
    opts: &BuildOptions,
    candidates: &'c [Candidate],
    examined: &'c [Instance],
) -> Selected<'c> {
    let by_class = plan
        .sample
        .as_ref()
        .is_some_and(|s| s.stratify_by == Stratify::Class);
    let mut multi_hunk = Vec::new();
    let mut rows = Vec::new();
    let mut items = Vec::new();
    for (candidate, instance) in candidates.iter().zip(examined) {
        if instance.stats.hunks < plan.min_code_hunks {
            continue;
        }
        multi_hunk.push(candidate);
        rows.push(instance);
        if by_class || opts.shard.is_none_or(|s| s.owns(&instance.instance_id)) {
            items.push(Item {
                candidate,
                instance: instance.clone(),
            });
        }
    }
    Selected {
        multi_hunk,
        rows,
        items,
    }
}
