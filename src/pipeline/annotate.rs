//! Stage 3, annotate: places and divergence of each kept instance, then proximity with
//! one λ for the whole set.

use super::{BuildOptions, Item};
use crate::annotate::engine::Annotator;
use crate::annotate::proximity;
use crate::model::Instance;
use crate::recipe::{AnnotatePlan, Plan};
use crate::source::{self, Candidate};
use rayon::prelude::*;
use std::collections::BTreeMap;

/// Annotate every item, then classify proximity.
pub(super) fn annotate(
    spec: &AnnotatePlan,
    plan: &Plan,
    opts: &BuildOptions,
    items: &mut Vec<Item>,
) {
    let mut annotator = Annotator::new(spec.profile, spec.tokenizer.clone());
    annotator.packages = spec.packages;
    let progress = opts.progress_bar("annotate", items.len() as u64);
    items.par_iter_mut().for_each(|it| {
        annotator.annotate_instance(it.candidate, &plan.rules, &mut it.instance);
        progress.inc(1);
    });
    progress.finish();
    // Proximity works on the instances as one set (λ from all their depths).
    let (candidates, mut instances): (Vec<&Candidate>, Vec<Instance>) = items
        .drain(..)
        .map(|it| (it.candidate, it.instance))
        .unzip();
    proximity::classify_all(&mut instances, spec.lambda);
    items.extend(
        candidates
            .into_iter()
            .zip(instances)
            .map(|(candidate, instance)| Item {
                candidate,
                instance,
            }),
    );
}

/// One warning line per distinct reason that left AST fields null among the multi-hunk
/// candidates (all of them, also in a shard, so every shard says the same).
pub(super) fn missing_ast_warnings(candidates: &[&Candidate]) -> Vec<String> {
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for c in candidates {
        if let source::Base::Missing { reason } = &c.base {
            *reasons.entry(reason).or_default() += 1;
        }
    }
    reasons
        .into_iter()
        .map(|(why, n)| format!("{why}: {n} instance(s) without AST fields"))
        .collect()
}
