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
    /// An unreadable SWE-bench instances file.
    #[error(transparent)]
    Swebench(#[from] crate::source::swebench::SwebenchError),
    /// The GitHub API could not be used (bad token, no such repository, offline miss).
    #[error(transparent)]
    Github(#[from] crate::source::github::GithubError),
    /// The dataset could not be written.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// Validation could not start (the sandbox is required but unavailable).
    #[error("validate: {0}")]
    Validate(String),
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
    /// The git walk's funnel (git sources only).
    pub funnel: Option<crate::model::MineFunnel>,
    /// Candidates left with fewer counted hunks than `min_code_hunks` (not rejections:
    /// the multi-hunk filter), so the summary accounts for every candidate.
    pub few_counted_hunks: usize,
    /// The kept instances, sorted.
    pub instances: Vec<Instance>,
    /// Items rejected, with their reasons.
    pub rejected: Vec<Rejected>,
    /// One line per problem that left annotation fields null (per project, not per bug).
    pub warnings: Vec<String>,
    /// One line per fact about this run that is not part of the dataset (API traffic).
    pub notes: Vec<String>,
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
    /// Run every test again instead of answering from the result cache.
    pub no_cache: bool,
    /// GitHub source: answer API requests from the response cache only.
    pub offline: bool,
    /// Work only on this shard's instances and write a shard directory (`shard.yaml`).
    pub shard: Option<crate::shard::Shard>,
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
    let output = match (&opts.output, opts.shard) {
        (Some(o), _) => o.clone(),
        (None, None) => plan.output.clone(),
        (None, Some(s)) => {
            let mut name = plan.output.file_name().unwrap_or_default().to_os_string();
            name.push(format!("-shard-{}-of-{}", s.index, s.count));
            plan.output.with_file_name(name)
        }
    };
    // Refuse early, before any work, to overwrite another recipe's dataset.
    let writer = DatasetWriter::begin(&output, &plan.name, opts.force)?;

    let mut mined = mine(plan, opts)?;
    let examined = extract(plan, &mined.candidates);
    let keep_all: Vec<usize> = (0..examined.len())
        .filter(|&k| examined[k].stats.hunks >= plan.min_code_hunks)
        .collect();
    if let Some(f) = mined.funnel.as_mut() {
        f.few_counted_hunks = examined.len() - keep_all.len();
    }
    // A shard works only on its instances; mining and extraction (cheap) stay whole so
    // every shard knows the counts and the report's not-counted table.
    let owned = |id: &str| opts.shard.is_none_or(|s| s.owns(id));
    let keep: Vec<usize> = keep_all
        .iter()
        .copied()
        .filter(|&k| owned(&examined[k].instance_id))
        .collect();
    let mut kept: Vec<Instance> = keep.iter().map(|&k| examined[k].clone()).collect();
    let mut warnings = match &plan.annotate {
        Some(spec) => {
            let of_kept: Vec<&Candidate> = keep.iter().map(|&k| &mined.candidates[k]).collect();
            annotate(spec, &of_kept, &mut kept, opts, plan);
            let of_all: Vec<&Candidate> = keep_all.iter().map(|&k| &mined.candidates[k]).collect();
            missing_ast_warnings(&of_all)
        }
        None => Vec::new(),
    };
    let depths = crate::annotate::proximity::depths(&kept);
    // Source-wide problems (a stopped GitHub run) come first.
    warnings.splice(0..0, mined.warnings.iter().cloned());
    let early_warnings = warnings.clone();
    let mut assigned: Vec<String> = keep
        .iter()
        .map(|&k| examined[k].instance_id.clone())
        .collect();
    let total_assigned = keep_all.len() + mined.rejected.len();
    let mut rejected: Vec<Rejected> = mined
        .rejected
        .iter()
        .filter(|r| owned(&r.id))
        .cloned()
        .collect();
    assigned.extend(rejected.iter().map(|r| r.id.clone()));
    let mut validated = 0;
    let validator = match &plan.validate {
        Some(vplan) => Some(validator(plan, vplan)?),
        None => None,
    };
    let mut validator_warning = None;
    // Kept instances' candidates, in step with `kept` through every stage below.
    let mut kept_c: Vec<&Candidate> = keep.iter().map(|&k| &mined.candidates[k]).collect();
    if let Some(v) = &validator {
        let (kept_now, kept_c_now, rejected_now) =
            validate(v, kept_c, std::mem::take(&mut kept), &writer, opts);
        kept = kept_now;
        kept_c = kept_c_now;
        validated = kept.len();
        rejected.extend(rejected_now);
        validator_warning = v.take_warning();
        warnings.extend(validator_warning.clone());
        warnings.extend(env_failure_warnings(&rejected));
    }
    if let Some(spec) = &plan.states {
        write_states(
            plan,
            spec,
            validator.as_ref(),
            &kept_c,
            &mut kept,
            writer.dir(),
            opts,
        );
    }
    let summary_warnings = warnings.clone();
    let assembled = Assembled {
        plan,
        kept,
        rejected,
        examined: &examined,
        walked: mined.walked,
        multi_hunk: keep_all.len(),
        validated,
        funnel: mined.funnel.clone(),
        described: mined.described.clone(),
        repositories: repositories(plan),
        recipe_file: std::path::absolute(&plan.file)
            .unwrap_or_else(|_| plan.file.clone())
            .display()
            .to_string(),
        built_at: dataset::rfc3339(now_secs()),
        warnings,
    };
    let (card, mut files, kept, rejected) = assembled.render();
    if opts.strict && !rejected.is_empty() {
        // Nothing is published: the previous dataset stays as it was.
        return Err(BuildError::Strict {
            count: rejected.len(),
            first: format!("{}: {}", rejected[0].id, rejected[0].detail),
        });
    }
    if let Some(shard) = opts.shard {
        let not_counted: Vec<&Instance> = examined
            .iter()
            .filter(|i| i.hunks.iter().any(|h| !h.counted))
            .collect();
        files.push((
            crate::shard::NOT_COUNTED.into(),
            dataset::jsonl(&not_counted),
        ));
        let sum = |name: &str| {
            files
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, b)| dataset::sha256_hex(b))
                .unwrap_or_default()
        };
        let checksums = [
            "instances.jsonl",
            "rejected.jsonl",
            crate::shard::NOT_COUNTED,
        ]
        .iter()
        .map(|n| (n.to_string(), sum(n)))
        .collect();
        let manifest = crate::shard::Manifest {
            format: crate::shard::FORMAT,
            kind: crate::shard::Kind::Build,
            name: plan.name.clone(),
            recipe_sha256: card.recipe_sha256.clone(),
            tool_version: card.tool_version.clone(),
            shard: shard.index,
            count: shard.count,
            host: crate::shard::host_name(),
            built_at: card.built_at.clone(),
            total_assigned,
            assigned,
            instances: kept.iter().map(|i| i.instance_id.clone()).collect(),
            rejected: rejected.iter().map(|r| r.id.clone()).collect(),
            depths,
            warnings: early_warnings,
            validator_warning,
            checksums,
        };
        // Written last: a shard directory without it is not complete.
        files.push((
            crate::shard::MANIFEST.into(),
            serde_norway::to_string(&manifest)
                .unwrap_or_default()
                .into_bytes(),
        ));
    }
    for (name, bytes) in &files {
        writer.write(name, bytes)?;
    }
    writer.commit()?;
    Ok(BuildSummary {
        output,
        walked: mined.walked,
        examined: examined.len(),
        funnel: mined.funnel,
        few_counted_hunks: examined.len() - keep_all.len(),
        instances: kept,
        rejected,
        warnings: mined.warnings.into_iter().chain(summary_warnings).collect(),
        notes: mined.notes,
    })
}

/// Everything a dataset's files are made from: a build's stages, or merged shards.
struct Assembled<'a> {
    plan: &'a Plan,
    kept: Vec<Instance>,
    rejected: Vec<Rejected>,
    examined: &'a [Instance],
    walked: usize,
    multi_hunk: usize,
    validated: usize,
    funnel: Option<crate::model::MineFunnel>,
    described: Vec<String>,
    repositories: BTreeMap<String, String>,
    recipe_file: String,
    built_at: String,
    warnings: Vec<String>,
}

/// A dataset's files (name, bytes), with the card, sorted instances and rejections.
type Rendered = (Card, Vec<(String, Vec<u8>)>, Vec<Instance>, Vec<Rejected>);

impl Assembled<'_> {
    /// The dataset's files, byte for byte what a one-machine build writes.
    fn render(self) -> Rendered {
        let Assembled {
            plan,
            mut kept,
            mut rejected,
            examined,
            walked,
            multi_hunk,
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
        SourcePlan::Swebench(cfg) => {
            let progress = opts.progress_bar("swebench", 0);
            let out = source::swebench::candidates(cfg, &progress)?;
            progress.finish();
            out
        }
        SourcePlan::Github(cfg) => {
            let progress = opts.progress_bar("github", 0);
            let run = source::github::RunOptions {
                offline: opts.offline,
                token: std::env::var("GITHUB_TOKEN").ok().filter(|t| !t.is_empty()),
                backoff: std::time::Duration::ZERO,
            };
            let (mut out, traffic) =
                source::github::candidates(cfg, &plan.rules.classifier, &run, &progress)?;
            progress.finish();
            out.notes.push(traffic.to_string());
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
/// proximity with one λ.
fn annotate(
    spec: &crate::recipe::AnnotatePlan,
    candidates: &[&Candidate],
    kept: &mut [Instance],
    opts: &BuildOptions,
    plan: &Plan,
) {
    let mut annotator = Annotator::new(spec.profile, spec.tokenizer.clone());
    annotator.packages = spec.packages;
    let progress = opts.progress_bar("annotate", kept.len() as u64);
    kept.par_iter_mut()
        .zip(candidates.par_iter())
        .for_each(|(inst, c)| {
            annotator.annotate_instance(c, &plan.rules, inst);
            progress.inc(1);
        });
    progress.finish();
    proximity::classify_all(kept, spec.lambda);
}

/// One warning line per distinct reason that left AST fields null among the kept
/// candidates (all of them, also in a shard, so every shard says the same).
fn missing_ast_warnings(candidates: &[&Candidate]) -> Vec<String> {
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

/// An environment that cannot be built rejects every instance that needs it: say it
/// once, as a build warning, not only per instance.
fn env_failure_warnings(rejected: &[Rejected]) -> Vec<String> {
    let mut env_failures: Vec<&str> = rejected
        .iter()
        .filter(|r| r.detail.starts_with("environment `"))
        .map(|r| r.detail.as_str())
        .collect();
    env_failures.sort_unstable();
    env_failures.dedup();
    env_failures.into_iter().map(|d| d.to_string()).collect()
}

/// Repository name → path, for the card (later commands find the objects there).
fn repositories(plan: &Plan) -> BTreeMap<String, String> {
    let abs = |p: &std::path::Path| {
        p.canonicalize()
            .unwrap_or_else(|_| p.to_path_buf())
            .display()
            .to_string()
    };
    match &plan.source {
        SourcePlan::Git(g) => BTreeMap::from([(g.name.clone(), abs(&g.repo))]),
        SourcePlan::Swebench(s) => s
            .repos
            .iter()
            .map(|(name, path)| (name.clone(), abs(path)))
            .collect(),
        SourcePlan::Github(g) => BTreeMap::from([(g.full_name(), abs(&g.clone))]),
        SourcePlan::Defects4j(d) => d
            .repos
            .iter()
            .filter_map(|(project, r)| {
                let path = r.path.as_ref()?;
                let name = crate::source::defects4j::upstream_repo(project)
                    .unwrap_or(project)
                    .to_string();
                Some((name, abs(path)))
            })
            .collect(),
    }
}

/// The runner and validator a plan's `validate:` asks for.
pub fn validator<'p>(
    plan: &Plan,
    vplan: &'p crate::validate::stage::ValidatePlan,
) -> Result<crate::validate::stage::Validator<'p>, BuildError> {
    let runner = crate::validate::Runner::new(plan.sandbox.policy())
        .map_err(|e| BuildError::Validate(e.to_string()))?;
    Ok(crate::validate::stage::Validator::new(vplan, runner))
}

/// The confirmed instances with their candidates, and the rejected ones.
type Validated<'c> = (Vec<Instance>, Vec<&'c Candidate>, Vec<Rejected>);

/// Stage 4: run each kept instance's golden tests; confirmed instances get
/// FAIL_TO_PASS, PASS_TO_PASS and `validation{}`, the others a rejection.
fn validate<'c>(
    validator: &crate::validate::stage::Validator<'_>,
    candidates: Vec<&'c Candidate>,
    kept: Vec<Instance>,
    writer: &DatasetWriter,
    opts: &BuildOptions,
) -> Validated<'c> {
    let logs = writer.dir().join("logs");
    let progress = opts.progress_bar("validate", kept.len() as u64);
    let outcomes: Vec<crate::validate::stage::Outcome> = candidates
        .par_iter()
        .map(|c| {
            let o = validator.validate(c, &logs, !opts.no_cache);
            progress.inc(1);
            o
        })
        .collect();
    progress.finish();
    let mut confirmed = Vec::new();
    let mut confirmed_c = Vec::new();
    let mut rejected = Vec::new();
    for ((mut inst, c), o) in kept.into_iter().zip(candidates).zip(outcomes) {
        match o.rejection {
            Some((reason, detail)) => rejected.push(Rejected::new(
                inst.instance_id.clone(),
                crate::model::Stage::Validate,
                reason,
                detail,
            )),
            None => {
                inst.FAIL_TO_PASS = o.fail_to_pass;
                inst.PASS_TO_PASS = o.pass_to_pass;
                inst.failures = o.failures;
                inst.validation = Some(o.record);
                confirmed.push(inst);
                confirmed_c.push(c);
            }
        }
    }
    (confirmed, confirmed_c, rejected)
}

/// Stage 5: write each kept instance's repository states under `states/` (git sources).
/// A Partial state is the largest proper subset of the golden hunks that, with a
/// validator, still builds and still fails a FAIL_TO_PASS test on every rerun. States
/// that cannot be made are listed in the instance's `states.missing`, never fatal.
fn write_states(
    plan: &Plan,
    spec: &crate::recipe::StatesSpec,
    validator: Option<&crate::validate::stage::Validator<'_>>,
    candidates: &[&Candidate],
    kept: &mut [Instance],
    dataset: &std::path::Path,
    opts: &BuildOptions,
) {
    use crate::model::{Scenario, StateKind, StatesRecord};
    use crate::states::{self, PartialStrategy};
    let strategy = match &spec.partial_patches {
        Some(dir) => PartialStrategy::PatchFile { dir: dir.clone() },
        None => PartialStrategy::HunkSubset {
            cap: spec.subset_cap,
        },
    };
    let logs = dataset.join("logs");
    let progress = opts.progress_bar("states", kept.len() as u64);
    // Partial changes first (test runs, in parallel), then the states (git writing).
    let partials: Vec<(
        Result<states::PartialChange, String>,
        Option<serde_json::Value>,
    )> = kept
        .par_iter()
        .zip(candidates.par_iter())
        .map(|(inst, c)| {
            if !spec.kinds.contains(&StateKind::Partial) {
                return (Err(String::new()), None);
            }
            let Some(repo) = state_repo(plan, &inst.repo) else {
                return (Err(format!("no repository for `{}`", inst.repo)), None);
            };
            let verdict = std::sync::Mutex::new(None);
            let verify = |subset: &[usize]| -> bool {
                let Some(v) = validator else { return true };
                let change = match states::golden_patch(inst) {
                    Ok(g) => states::subset_patch(&g, subset),
                    Err(_) => return false,
                };
                let (ok, record) = v.partial_still_fails(c, &change, &inst.FAIL_TO_PASS, &logs);
                if ok {
                    if let Ok(mut slot) = verdict.lock() {
                        *slot = Some(record);
                    }
                }
                ok
            };
            let change = states::partial_change(inst, repo, &strategy, Some(&verify))
                .map_err(|e| e.to_string());
            let record = verdict.into_inner().ok().flatten();
            (change, record)
        })
        .collect();
    let with_tests: &[bool] = if spec.with_tests {
        &[false, true]
    } else {
        &[false]
    };
    for (inst, (partial, partial_record)) in kept.iter_mut().zip(partials) {
        let mut record = StatesRecord::default();
        let Some(repo) = state_repo(plan, &inst.repo) else {
            record
                .missing
                .push(format!("states: no repository for `{}`", inst.repo));
            inst.states = Some(record);
            progress.inc(1);
            continue;
        };
        let mut which: Vec<(StateKind, Scenario)> = Vec::new();
        for &kind in &spec.kinds {
            if kind == StateKind::Partial {
                if let Err(why) = &partial {
                    record.missing.push(format!("partial: {why}"));
                    continue;
                }
            }
            for &sc in &spec.scenarios {
                which.push((kind, sc));
            }
        }
        let verification = |kind: StateKind| -> Option<serde_json::Value> {
            let v = inst.validation.as_ref()?;
            match kind {
                StateKind::Novel => Some(serde_json::json!({
                    "golden_tests": "fail",
                    "runs": v.runs.before,
                    "from": "validation: base + test patch",
                })),
                StateKind::Resolved => Some(serde_json::json!({
                    "golden_tests": "pass",
                    "runs": v.runs.after,
                    "from": "validation: base + test patch + patch",
                })),
                StateKind::Partial => partial_record.clone(),
            }
        };
        for &tests in with_tests {
            let snapshot = inst.clone();
            let result =
                states::materialize_layered(dataset, repo, &[&snapshot], &which, tests, &|_| {
                    partial.as_ref().ok().cloned()
                });
            let outcome = match result {
                Ok(mut v) => v.pop().map(|(_, r)| r),
                Err(e) => Some(Err(e)),
            };
            match outcome {
                Some(Ok(manifests)) => {
                    for mut m in manifests {
                        let dir = states::state_dir(
                            dataset,
                            &inst.instance_id,
                            m.state,
                            m.scenario,
                            tests,
                        );
                        m.verification = verification(m.state);
                        let _ = states::write_manifest(&dir.join("manifest.yaml"), &m);
                        record.written.push(
                            dir.file_name()
                                .map(|n| n.to_string_lossy().into_owned())
                                .unwrap_or_default(),
                        );
                    }
                }
                Some(Err(e)) => record.missing.push(format!("states: {e}")),
                None => {}
            }
        }
        inst.states = Some(record);
        progress.inc(1);
    }
    progress.finish();
}

/// The repository an instance's states are made from: the git source's, or the clone a
/// SWE-bench import names for the instance's `repo` (imports may name several).
fn state_repo<'p>(plan: &'p Plan, repo: &str) -> Option<&'p std::path::Path> {
    match &plan.source {
        SourcePlan::Git(git) => Some(&git.repo),
        SourcePlan::Swebench(s) => s.repos.get(repo).map(|p| p.as_path()),
        SourcePlan::Github(g) => Some(g.clone.as_path()),
        SourcePlan::Defects4j(_) => None,
    }
}

/// One instance's outcome when a dataset's golden tests are run again.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Revalidated {
    /// The instance.
    pub instance_id: String,
    /// `confirmed`, `changed`, `flaky` or `broken`.
    pub status: &'static str,
    /// What differs, or why it is broken.
    pub detail: String,
    /// Runs answered from the cache / executed.
    pub cached_runs: usize,
    /// Runs executed.
    pub executed_runs: usize,
}

/// The file `hunkgen validate --output` (and a validate shard, and their merge) writes:
/// one JSON object per instance, in the dataset's order, as `--json` prints them.
pub const VALIDATION_ROWS: &str = "validate.jsonl";

/// Write a validation's rows to `dir/validate.jsonl`; for a shard, also its manifest
/// (`shard.yaml`, last). `total` counts the instances of all shards together.
pub fn write_validation(
    dataset: &std::path::Path,
    dir: &std::path::Path,
    rows: &[Revalidated],
    only: &[String],
    shard: Option<crate::shard::Shard>,
    total: usize,
) -> Result<(), BuildError> {
    let fail = |e: String| BuildError::Validate(format!("{}: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(|e| fail(e.to_string()))?;
    dataset::write_atomic(&dir.join(VALIDATION_ROWS), &dataset::jsonl(rows))?;
    if let Some(shard) = shard {
        let inputs = BTreeMap::from([("only".to_string(), only.join(","))]);
        let ids = rows.iter().map(|r| r.instance_id.clone()).collect();
        crate::shard::TaskManifest::new(
            crate::shard::Kind::Validation,
            shard,
            dataset,
            inputs,
            total,
            ids,
        )
        .and_then(|m| m.finish(dir, &[VALIDATION_ROWS.to_string()]))
        .map_err(fail)?;
    }
    Ok(())
}

/// What a merge of validate shards wrote, for the CLI's line.
#[derive(Debug)]
pub struct MergedValidation {
    /// Rows per status (`confirmed`, `changed`, `flaky`, `broken`).
    pub statuses: BTreeMap<String, usize>,
    /// The hosts that ran the shards (sorted, distinct).
    pub hosts: Vec<String>,
}

/// Join `hunkgen validate --shard` directories into the validate.jsonl one machine's
/// `hunkgen validate --output` writes: every shard's rows, unchanged, in the dataset's
/// order.
pub fn merge_validation(
    output: &std::path::Path,
    shards: &[PathBuf],
    force: bool,
) -> Result<MergedValidation, MergeError> {
    use crate::shard::{self, Kind};
    let read = shard::read_task_shards(shards, Kind::Validation).map_err(MergeError)?;
    let Some((_, first)) = read.first() else {
        return Err(MergeError("no shard directories given".into()));
    };
    let dataset_dir = shard::dataset_of(first).map_err(MergeError)?;
    let instances = dataset::read_instances(&dataset_dir)?;
    let rows =
        shard::rows_in_dataset_order(&read, VALIDATION_ROWS, &instances).map_err(MergeError)?;
    let mut text = String::new();
    let mut statuses = BTreeMap::new();
    for (line, v) in &rows {
        text.push_str(line);
        text.push('\n');
        let status = v["status"].as_str().unwrap_or_default().to_string();
        *statuses.entry(status).or_insert(0) += 1;
    }
    let writer = dataset::DatasetWriter::begin(output, "validate", force)?;
    dataset::write_atomic(&writer.dir().join(VALIDATION_ROWS), text.as_bytes())?;
    writer.commit()?;
    Ok(MergedValidation {
        statuses,
        hosts: shard::hosts(read.iter().map(|(_, m)| m.host.as_str())),
    })
}

/// Run a dataset's golden tests again (`hunkgen validate`) and compare with the recorded
/// FAIL_TO_PASS / PASS_TO_PASS: confirmed (the same), changed (different lists, or now
/// rejected), flaky (the same, but some test's outcome varied between reruns) or broken
/// (the runs could not be made: base tree, environment, sandbox).
pub fn revalidate(
    dataset: &std::path::Path,
    only: &[String],
    opts: &BuildOptions,
) -> Result<Vec<Revalidated>, BuildError> {
    let card = dataset::read_card(dataset)?.ok_or_else(|| {
        BuildError::Validate(format!(
            "{}: not a hunkgen dataset (no dataset.yaml)",
            dataset.display()
        ))
    })?;
    let plan = crate::recipe::load_text(
        &card.recipe,
        std::path::Path::new(&card.recipe_file),
        &BTreeMap::new(),
    )
    .map_err(|e| BuildError::Validate(format!("the dataset's recipe: {e}")))?;
    let Some(vplan) = &plan.validate else {
        return Err(BuildError::Validate(format!(
            "{}: its recipe has no `validate:` section, so there are no golden runs to repeat",
            dataset.display()
        )));
    };
    let instances = dataset::read_instances(dataset)?;
    for id in only {
        if !instances.iter().any(|i| &i.instance_id == id) {
            return Err(BuildError::Validate(format!(
                "{}: no instance `{id}`",
                dataset.display()
            )));
        }
    }
    let chosen: Vec<&Instance> = instances
        .iter()
        .filter(|i| only.is_empty() || only.contains(&i.instance_id))
        .filter(|i| opts.shard.is_none_or(|s| s.owns(&i.instance_id)))
        .collect();
    let validator = validator(&plan, vplan)?;
    let logs = dataset.join(".validate-logs");
    let progress = opts.progress_bar("validate", chosen.len() as u64);
    let rows = chosen
        .par_iter()
        .map(|inst| {
            let row = revalidate_one(inst, &card, &validator, &logs, opts);
            progress.inc(1);
            row
        })
        .collect();
    progress.finish();
    if let Some(w) = validator.take_warning() {
        eprintln!("warning: {w}");
    }
    Ok(rows)
}

fn revalidate_one(
    inst: &Instance,
    card: &Card,
    validator: &crate::validate::stage::Validator<'_>,
    logs: &std::path::Path,
    opts: &BuildOptions,
) -> Revalidated {
    let row = |status, detail: String, cached, executed| Revalidated {
        instance_id: inst.instance_id.clone(),
        status,
        detail,
        cached_runs: cached,
        executed_runs: executed,
    };
    let candidate = match candidate_of(inst, card) {
        Ok(c) => c,
        Err(why) => return row("broken", why, 0, 0),
    };
    let o = validator.validate(&candidate, logs, !opts.no_cache);
    let (cached, executed) = (o.cached_runs, o.executed_runs);
    if let Some((reason, detail)) = &o.rejection {
        use crate::model::RejectReason as R;
        let status = match reason {
            R::Infrastructure | R::BaseTree | R::NoTestSuite => "broken",
            _ => "changed",
        };
        return row(status, detail.clone(), cached, executed);
    }
    let diff = |name: &str, old: &[String], new: &[String]| -> Option<String> {
        let gone: Vec<&String> = old.iter().filter(|t| !new.contains(t)).collect();
        let added: Vec<&String> = new.iter().filter(|t| !old.contains(t)).collect();
        (!gone.is_empty() || !added.is_empty()).then(|| {
            format!(
                "{name}: {} no longer, {} newly ({})",
                gone.len(),
                added.len(),
                gone.iter()
                    .map(|t| format!("-{t}"))
                    .chain(added.iter().map(|t| format!("+{t}")))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        })
    };
    let changes: Vec<String> = [
        diff("FAIL_TO_PASS", &inst.FAIL_TO_PASS, &o.fail_to_pass),
        diff("PASS_TO_PASS", &inst.PASS_TO_PASS, &o.pass_to_pass),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !changes.is_empty() {
        return row("changed", changes.join("; "), cached, executed);
    }
    if !o.record.flaky.is_empty() {
        return row(
            "flaky",
            format!("varied between reruns: {}", o.record.flaky.join(", ")),
            cached,
            executed,
        );
    }
    row("confirmed", String::new(), cached, executed)
}

/// The candidate an instance row was built from (patches parsed back, base tree from
/// the card's repositories).
pub fn candidate_of(inst: &Instance, card: &Card) -> Result<Candidate, String> {
    let parse = |name: &str, text: &str| {
        crate::diff::parse(text.as_bytes()).map_err(|e| format!("{name} does not parse: {e}"))
    };
    let repo = card
        .repositories
        .get(&inst.repo)
        .ok_or_else(|| format!("the card names no repository for `{}`", inst.repo))?;
    let patch = parse("patch", &inst.patch)?;
    let base = match inst.source {
        crate::model::SourceKind::Git
        | crate::model::SourceKind::Swebench
        | crate::model::SourceKind::Github => source::Base::Buggy(source::Tree::Git {
            repo: PathBuf::from(repo),
            rev: inst.base_commit.clone(),
            prefixes: Vec::new(),
        }),
        crate::model::SourceKind::Defects4j => source::Base::Fixed {
            tree: source::Tree::Git {
                repo: PathBuf::from(repo),
                rev: inst.fix_commit.clone(),
                prefixes: Vec::new(),
            },
            to_buggy: patch.reversed(),
        },
    };
    Ok(Candidate {
        id: inst.instance_id.clone(),
        source: inst.source,
        repo: inst.repo.clone(),
        project: inst.project.clone(),
        base_commit: inst.base_commit.clone(),
        fix_commit: inst.fix_commit.clone(),
        environment_setup_commit: inst.environment_setup_commit.clone(),
        problem_statement: inst.problem_statement.clone(),
        hints_text: inst.hints_text.clone(),
        created_at: inst.created_at.clone(),
        version: inst.version.clone(),
        fail_to_pass: inst.FAIL_TO_PASS.clone(),
        pass_to_pass: inst.PASS_TO_PASS.clone(),
        failures: inst.failures.clone(),
        report: inst.report.clone(),
        references: inst.references.clone(),
        test_patch: parse("test_patch", &inst.test_patch)?,
        patch,
        modified_classes: Vec::new(),
        base,
        // The row's own verdicts, so re-reading an instance counts the same hunks.
        skips: inst
            .hunks
            .iter()
            .filter(|h| !h.counted)
            .filter_map(|h| Some((h.patch_index, h.skip_reason?)))
            .collect(),
    })
}

/// What `merge` joined, for the CLI summary.
#[derive(Debug)]
pub struct MergeSummary {
    /// The dataset directory written.
    pub output: PathBuf,
    /// Instances kept.
    pub instances: usize,
    /// Rows in rejected.jsonl.
    pub rejected: usize,
    /// The hosts that built the shards (sorted, distinct).
    pub hosts: Vec<String>,
}

/// Why shards could not be merged: one line naming the shard and what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("merge: {0}")]
pub struct MergeError(pub String);

impl From<DatasetError> for MergeError {
    fn from(e: DatasetError) -> Self {
        MergeError(e.to_string())
    }
}

/// Join shard directories into the dataset a one-machine build writes: the instances,
/// rejections and tables from all shards, λ chosen from every shard's depths, the
/// `logs/` and `states/` trees copied. Only the card's `built_at` differs (the latest
/// shard's).
pub fn merge(
    output: &std::path::Path,
    shards: &[PathBuf],
    force: bool,
) -> Result<MergeSummary, MergeError> {
    use crate::shard::{read_manifest, Manifest, Same};
    let err = |s: String| MergeError(s);
    let mut read: Vec<(PathBuf, Manifest)> = Vec::new();
    for dir in shards {
        read.push((dir.clone(), read_manifest(dir).map_err(err)?));
    }
    let Some((first_dir, first)) = read.first().cloned() else {
        return Err(err("no shard directories given".into()));
    };
    let parts: Vec<crate::shard::Part> = read
        .iter()
        .map(|(dir, m)| crate::shard::Part {
            dir,
            shard: m.shard,
            count: m.count,
            same: vec![
                Same::new("recipe sha256", &m.recipe_sha256),
                Same::new("shard count", m.count),
                Same::new("tool version", &m.tool_version),
                Same {
                    what: "a different mining result (total ids)",
                    shown: m.total_assigned.to_string(),
                    key: format!("{} {:?}", m.total_assigned, m.warnings),
                },
            ],
            owned: m
                .instances
                .iter()
                .chain(&m.rejected)
                .map(String::as_str)
                .collect(),
            unique: m.instances.iter().map(String::as_str).collect(),
        })
        .collect();
    crate::shard::check_set(&parts, "build").map_err(err)?;
    read.sort_by_key(|(_, m)| m.shard);
    // Each assigned id kept or rejected.
    let mut assigned_total = 0;
    for (dir, m) in &read {
        assigned_total += m.assigned.len();
        for id in &m.assigned {
            if !m.instances.contains(id) && !m.rejected.contains(id) {
                return Err(err(format!(
                    "{}: `{id}` was assigned to shard {}/{} but is neither kept nor rejected",
                    dir.display(),
                    m.shard,
                    m.count
                )));
            }
        }
    }
    if assigned_total != first.total_assigned {
        return Err(err(format!(
            "the shards account for {assigned_total} ids but the build has {}",
            first.total_assigned
        )));
    }
    let card = dataset::read_card(&first_dir)?.ok_or_else(|| {
        err(format!(
            "{}: no dataset.yaml (not a complete shard)",
            first_dir.display()
        ))
    })?;
    let plan = crate::recipe::load_text(
        &card.recipe,
        std::path::Path::new(&card.recipe_file),
        &BTreeMap::new(),
    )
    .map_err(|e| err(format!("{}: the shard's recipe: {e}", first_dir.display())))?;
    let mut kept = Vec::new();
    let mut rejected = Vec::new();
    let mut depths = Vec::new();
    let mut validator_warnings: Vec<String> = Vec::new();
    for (dir, m) in &read {
        kept.extend(dataset::read_instances(dir)?);
        rejected.extend(dataset::read_rejected(dir)?);
        depths.extend(m.depths.iter().copied());
        if let Some(w) = &m.validator_warning {
            if !validator_warnings.contains(w) {
                validator_warnings.push(w.clone());
            }
        }
    }
    if let Some(spec) = &plan.annotate {
        // λ from every shard's depths, as one machine chooses it from all instances.
        let lambda = spec
            .lambda
            .unwrap_or_else(|| proximity::lambda_from_depths(&depths));
        proximity::classify_all(&mut kept, Some(lambda));
    }
    let nc_path = first_dir.join(crate::shard::NOT_COUNTED);
    let nc_text = std::fs::read_to_string(&nc_path).map_err(dataset::io_err(&nc_path))?;
    let mut not_counted: Vec<Instance> = Vec::new();
    for (i, line) in nc_text.lines().enumerate() {
        not_counted.push(serde_json::from_str(line).map_err(|e| {
            err(format!(
                "{}:{}: not an instance: {e}",
                nc_path.display(),
                i + 1
            ))
        })?);
    }
    let mut warnings = first.warnings.clone();
    if plan.validate.is_some() {
        warnings.extend(validator_warnings);
        warnings.extend(env_failure_warnings(&rejected));
    }
    let validated = if plan.validate.is_some() {
        kept.len()
    } else {
        0
    };
    let built_at = read
        .iter()
        .map(|(_, m)| m.built_at.clone())
        .max()
        .unwrap_or_default();
    let mut hosts: Vec<String> = read.iter().map(|(_, m)| m.host.clone()).collect();
    hosts.sort();
    hosts.dedup();
    let writer = DatasetWriter::begin(output, &plan.name, force)?;
    // The examined count is the shards' (all say the same); the report's not-counted
    // table needs only the examined instances with an uncounted hunk.
    let assembled = Assembled {
        plan: &plan,
        kept,
        rejected,
        examined: &not_counted,
        walked: card.counts.walked,
        multi_hunk: card.counts.multi_hunk,
        validated,
        funnel: card.counts.funnel.clone(),
        described: card.sources.clone(),
        repositories: card.repositories.clone(),
        recipe_file: card.recipe_file.clone(),
        built_at,
        warnings,
    };
    let (mut out_card, mut files, kept, rejected) = assembled.render();
    // The card counts every examined candidate, not only the not-counted ones.
    out_card.counts.examined = card.counts.examined;
    for (name, bytes) in files.iter_mut() {
        if name == "dataset.yaml" {
            *bytes = dataset::card_yaml(&out_card).into_bytes();
        }
    }
    let mut links = std::collections::HashMap::new();
    for (dir, _) in &read {
        for tree in ["logs", "states"] {
            let from = dir.join(tree);
            if from.is_dir() {
                dataset::copy_tree(&from, &writer.dir().join(tree), &mut links)?;
            }
        }
    }
    for (name, bytes) in &files {
        writer.write(name, bytes)?;
    }
    writer.commit()?;
    Ok(MergeSummary {
        output: output.to_path_buf(),
        instances: kept.len(),
        rejected: rejected.len(),
        hosts,
    })
}
