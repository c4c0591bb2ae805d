//! Build orchestration: a short list of stages from a validated plan to a dataset.
//!
//! mine (source → candidates) → extract (candidates → instances, selection) → annotate
//! (places, divergence, then proximity with the dataset's λ) → write (the whole dataset
//! directory, swapped in at once).

use crate::annotate::engine::Annotator;
use crate::annotate::proximity;
use crate::dataset::{self, DatasetError, DatasetWriter};
use crate::model::{Card, Counts, Instance, Rejected, SCHEMA_VERSION};
use crate::progress::Progress;
use crate::recipe::{Plan, SourcePlan};
use crate::source::{self, defects4j::D4jError, Candidate, SourceOutput};
use crate::{extract, report};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Why a build stopped; every variant prints as one line naming the input at fault.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Bad Defects4J input.
    #[error(transparent)]
    Defects4j(#[from] D4jError),
    /// Bad git input.
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
    /// The dataset could not be written.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// `--strict` and some items were rejected; nothing was written.
    #[error("{count} item(s) rejected and --strict is on, dataset not written (first: {first}); run without --strict to see them all in rejected.jsonl")]
    Strict {
        /// How many.
        count: usize,
        /// The first rejection, as one line.
        first: String,
    },
}

/// What a build produced, for the CLI summary.
#[derive(Debug)]
pub struct BuildSummary {
    /// The dataset directory.
    pub output: PathBuf,
    /// Items the source walked (bugs listed, commits visited).
    pub walked: usize,
    /// Candidates examined (bugs read, fix commits selected by message and files).
    pub examined: usize,
    /// The kept instances, sorted.
    pub instances: Vec<Instance>,
    /// Items rejected, with their reasons.
    pub rejected: Vec<Rejected>,
    /// One line per problem that left annotation fields null (per project, not per bug).
    pub warnings: Vec<String>,
}

/// Options that are not part of the recipe (they do not change the result).
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Override the plan's output directory.
    pub output: Option<PathBuf>,
    /// Show progress bars (still only on a terminal).
    pub progress: bool,
    /// Replace a dataset built from another recipe.
    pub force: bool,
    /// Fail (exit 1) when any item is rejected, without writing the dataset.
    pub strict: bool,
}

impl BuildOptions {
    /// A progress bar for a stage, or a hidden one when progress is off.
    fn progress_bar(&self, stage: &str, len: u64) -> Progress {
        if self.progress {
            Progress::new(stage, len)
        } else {
            Progress::hidden()
        }
    }
}

/// Run a plan end to end and write the dataset directory.
pub fn build(plan: &Plan, opts: &BuildOptions) -> Result<BuildSummary, BuildError> {
    let output = opts.output.clone().unwrap_or_else(|| plan.output.clone());
    // Refuse early, before any work, to overwrite another recipe's dataset.
    let writer = DatasetWriter::begin(&output, &plan.name, opts.force)?;

    let mined = mine(plan, opts)?;
    let examined = extract(plan, &mined.candidates);
    let keep: Vec<usize> = (0..examined.len())
        .filter(|&k| examined[k].stats.hunks >= plan.min_code_hunks)
        .collect();
    let mut kept: Vec<Instance> = keep.iter().map(|&k| examined[k].clone()).collect();
    let warnings = match &plan.annotate {
        Some(spec) => {
            let of_kept: Vec<&Candidate> = keep.iter().map(|&k| &mined.candidates[k]).collect();
            annotate(plan, spec, &of_kept, &mut kept, opts)
        }
        None => Vec::new(),
    };
    let mut rejected = mined.rejected;
    rejected.sort_by_key(|r| dataset::natural_key(&r.id));
    let counts = Counts {
        examined: examined.len(),
        multi_hunk: kept.len(),
        rejected: rejected.len(),
        instances: kept.len(),
        hunks: kept.iter().map(|i| i.stats.hunks).sum(),
    };
    let jsonl = dataset::instances_jsonl(&mut kept);
    let mut tables = report::Tables::compute(&kept, &examined, plan.annotate.is_some());
    tables.inputs = report::inputs(&mined.described, plan.annotate.as_ref().map(|a| a.profile));
    let compare = plan.report.compare_with.as_deref() == Some("hunk4j");
    let mut card = Card {
        name: plan.name.clone(),
        schema_version: SCHEMA_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        built_at: dataset::rfc3339(now_secs()),
        recipe_sha256: dataset::sha256_hex(plan.text.as_bytes()),
        recipe_file: plan.file.display().to_string(),
        sources: mined.described,
        repositories: repositories(plan),
        counts,
        checksums: vec![("instances.jsonl".into(), dataset::sha256_hex(&jsonl))],
        recipe: plan.text.clone(),
    };
    let mut files: Vec<(&str, Vec<u8>)> = Vec::new();
    if plan.annotate.is_some() {
        files.push(("pairs.csv", dataset::pairs_csv(&kept).into_bytes()));
    }
    let rejected_jsonl = dataset::jsonl(&rejected);
    card.checksums.push((
        "rejected.jsonl".into(),
        dataset::sha256_hex(&rejected_jsonl),
    ));
    files.push(("rejected.jsonl", rejected_jsonl));
    files.push((
        "report/tables.md",
        report::markdown(&plan.name, &tables, &warnings, compare).into_bytes(),
    ));
    files.push(("report/tables.json", report::json(&tables).into_bytes()));
    files.push(("dataset.yaml", dataset::card_yaml(&card).into_bytes()));
    files.push(("instances.jsonl", jsonl));
    if opts.strict && !rejected.is_empty() {
        // Nothing is published: the previous dataset stays as it was.
        return Err(BuildError::Strict {
            count: rejected.len(),
            first: format!("{}: {}", rejected[0].id, rejected[0].detail),
        });
    }
    for (name, bytes) in &files {
        writer.write(name, bytes)?;
    }
    writer.commit()?;
    Ok(BuildSummary {
        output,
        walked: mined.walked,
        examined: examined.len(),
        instances: kept,
        rejected,
        warnings,
    })
}

/// Instance `repo` name → repository path (absolute when it resolves), so states can be
/// materialized from the dataset alone. Git sources only: a Defects4J instance's base is
/// a fixed revision plus a patch, not a commit a state repository can start from.
fn repositories(plan: &Plan) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    if let SourcePlan::Git(cfg) = &plan.source {
        let path = cfg.repo.canonicalize().unwrap_or_else(|_| cfg.repo.clone());
        map.insert(cfg.name.clone(), path.display().to_string());
    }
    map
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Stage 1: the source's candidates and rejections.
fn mine(plan: &Plan, opts: &BuildOptions) -> Result<SourceOutput, BuildError> {
    Ok(match &plan.source {
        SourcePlan::Defects4j(cfg) => {
            let progress = opts.progress_bar("defects4j", 0);
            let out = source::defects4j::candidates(cfg, &progress)?;
            progress.finish();
            out
        }
        SourcePlan::Git(cfg) => {
            let progress = opts.progress_bar("git", 0);
            let out = source::git_history::candidates(cfg, &plan.rules.classifier, &progress)?;
            progress.finish();
            out
        }
    })
}

/// Stage 2: every candidate as an instance (counted hunks, statistics).
fn extract(plan: &Plan, candidates: &[Candidate]) -> Vec<Instance> {
    candidates
        .par_iter()
        .map(|c| extract::instance(c, &plan.rules))
        .collect()
}

/// Stage 3: annotate the kept instances (`candidates[k]` is `kept[k]`'s), then classify
/// proximity with one λ. Returns one warning line per distinct reason that left AST
/// fields null.
fn annotate(
    plan: &Plan,
    spec: &crate::recipe::AnnotatePlan,
    candidates: &[&Candidate],
    kept: &mut [Instance],
    opts: &BuildOptions,
) -> Vec<String> {
    let annotator = Annotator::new(spec.profile, spec.tokenizer.clone());
    let progress = opts.progress_bar("annotate", kept.len() as u64);
    kept.par_iter_mut()
        .zip(candidates.par_iter())
        .for_each(|(inst, c)| {
            annotator.annotate_instance(c, &plan.rules, inst);
            progress.inc(1);
        });
    progress.finish();
    proximity::classify_all(kept, spec.lambda);
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
