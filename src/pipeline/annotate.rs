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
    let memo = super::memo(plan, opts);
    let fingerprint = format!("{}\n{:?}", annotator.fingerprint(), plan.rules);
    items.par_iter_mut().for_each(|it| {
        let key = memo_key(it.candidate, &fingerprint);
        let ann = match key.as_ref().and_then(|k| memo.get(k)) {
            Some(ann) => ann,
            None => {
                let ann = annotator.annotation(it.candidate, &plan.rules);
                if let Some(k) = &key {
                    memo.put(k, &ann);
                }
                ann
            }
        };
        Annotator::apply(ann, &mut it.instance);
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

/// The memo key of a candidate's annotation: its patches, skips, file order and source
/// kind, and its base named by a commit id (content); `None` for a base that is a
/// directory or missing, whose files can change under the same name.
fn memo_key(c: &Candidate, fingerprint: &str) -> Option<crate::cache::Key> {
    use crate::source::files::Tree;
    let commit = |tree: &Tree| match tree {
        Tree::Git { rev, prefixes, .. }
            if rev.len() == 40 && rev.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            Some(format!("{rev} {prefixes:?}"))
        }
        _ => None,
    };
    let (base, to_buggy) = match &c.base {
        source::Base::Buggy(tree) => (commit(tree)?, Vec::new()),
        source::Base::Fixed { tree, to_buggy } => (commit(tree)?, to_buggy.to_bytes()),
        source::Base::Missing { .. } => return None,
    };
    let rest = format!("{:?}\n{:?}\n{:?}", c.source, c.skips, c.modified_classes);
    Some(crate::memo::Memo::key(
        "annotate-v1",
        &[
            fingerprint.as_bytes(),
            base.as_bytes(),
            &to_buggy,
            &c.patch.to_bytes(),
            &c.test_patch.to_bytes(),
            rest.as_bytes(),
        ],
    ))
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
