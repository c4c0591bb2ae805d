//! A dataset's files rendered from what a build's stages (or merged shards) produced:
//! instances, rejections, card, pairs and report tables, byte for byte the same either way.

use crate::dataset;
use crate::model::{Card, Counts, Instance, MineFunnel, Rejected, SCHEMA_VERSION};
use crate::recipe::Plan;
use crate::report;
use std::collections::BTreeMap;

/// Everything a dataset's files are made from: a build's stages, or merged shards.
#[derive(Debug)]
pub struct Assembled<'a> {
    /// The recipe's plan.
    pub plan: &'a Plan,
    /// The kept instances, in any order.
    pub kept: Vec<Instance>,
    /// The rejections, in any order.
    pub rejected: Vec<Rejected>,
    /// The examined instances the report's not-counted table is made from.
    pub examined: &'a [Instance],
    /// Items the source walked.
    pub walked: usize,
    /// Candidates with enough counted hunks.
    pub multi_hunk: usize,
    /// Of those, the ones `select.sample` did not draw (`None` without a sample).
    pub not_sampled: Option<usize>,
    /// Instances confirmed by validation.
    pub validated: usize,
    /// The git walk's funnel (git sources only).
    pub funnel: Option<MineFunnel>,
    /// The source's inputs, one line each.
    pub described: Vec<String>,
    /// Repository name → path, for the card.
    pub repositories: BTreeMap<String, String>,
    /// The recipe file, as the card records it.
    pub recipe_file: String,
    /// The build time, RFC 3339.
    pub built_at: String,
    /// Warnings for the report's tables.
    pub warnings: Vec<String>,
}

/// A dataset's files (name, bytes), with the card, sorted instances and rejections.
pub type Rendered = (Card, Vec<(String, Vec<u8>)>, Vec<Instance>, Vec<Rejected>);

impl Assembled<'_> {
    /// The dataset's files, byte for byte what a one-machine build writes.
    pub fn render(self) -> Rendered {
        let Assembled {
            plan,
            mut kept,
            mut rejected,
            examined,
            walked,
            multi_hunk,
            not_sampled,
            validated,
            funnel,
            described,
            repositories,
            recipe_file,
            built_at,
            warnings,
        } = self;
        rejected.sort_by_key(|r| dataset::natural_key(&r.id));
        let counts = Counts {
            walked,
            examined: examined.len(),
            multi_hunk,
            sampled: not_sampled.map(|n| multi_hunk - n.min(multi_hunk)),
            not_sampled,
            rejected: rejected.len(),
            validated,
            instances: kept.len(),
            hunks: kept.iter().map(|i| i.stats.hunks).sum(),
            funnel: funnel.clone(),
        };
        let jsonl = dataset::instances_jsonl(&mut kept);
        let mut tables = report::Tables::compute(&kept, examined, plan.annotate.is_some());
        tables.inputs = report::inputs(&described, plan.annotate.as_ref().map(|a| a.profile));
        tables.funnel = funnel;
        tables.sample = plan.sample.as_ref().map(|spec| report::tables::SampleLine {
            n: spec.n,
            seed: spec.seed,
            stratify_by: spec.stratify_by.name(),
            population: multi_hunk,
            sampled: counts.sampled.unwrap_or(multi_hunk),
            not_sampled: counts.not_sampled.unwrap_or(0),
        });
        tables.d4j_agreement = report::d4j::agreement(&kept, &rejected);
        tables.yields = crate::model::yield_counts(&rejected);
        let compare = plan.report.compare_with.as_deref() == Some("hunk4j");
        let mut card = Card {
            name: plan.name.clone(),
            schema_version: SCHEMA_VERSION,
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            built_at,
            recipe_sha256: dataset::sha256_hex(plan.text.as_bytes()),
            recipe_file,
            sources: described,
            repositories,
            counts,
            checksums: vec![("instances.jsonl".into(), dataset::sha256_hex(&jsonl))],
            recipe: plan.text.clone(),
        };
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        if plan.annotate.is_some() {
            files.push(("pairs.csv".into(), dataset::pairs_csv(&kept).into_bytes()));
        }
        let rejected_jsonl = dataset::jsonl(&rejected);
        card.checksums.push((
            "rejected.jsonl".into(),
            dataset::sha256_hex(&rejected_jsonl),
        ));
        files.push(("rejected.jsonl".into(), rejected_jsonl));
        files.push((
            "report/tables.md".into(),
            report::markdown(&plan.name, &tables, &warnings, compare).into_bytes(),
        ));
        files.push((
            "report/tables.json".into(),
            report::json(&tables).into_bytes(),
        ));
        files.push((
            "dataset.yaml".into(),
            dataset::card_yaml(&card).into_bytes(),
        ));
        files.push(("instances.jsonl".into(), jsonl));
        (card, files, kept, rejected)
    }
}
