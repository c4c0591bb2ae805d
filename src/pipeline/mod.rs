//! Build orchestration: a short list of stages from a validated plan to a dataset.
//!
//! mine (source → candidates) → extract (candidates → instances, selection) → annotate
//! (places, divergence, then proximity with the dataset's λ) → sample (`select.sample`) →
//! validate (golden tests) → states (repository states) → write (the whole dataset
//! directory, swapped in at once).
//! One `Item` per kept instance flows through the stages.
//!
//! Beside the build, the other orchestration over whole datasets: `assemble` renders a
//! dataset's files (for a build and for merged build shards alike), `shards` writes a
//! build shard's manifest and merges build shards, `revalidate` runs a built dataset's
//! golden tests again (`hunkgen validate`) and merges its shards, and `merge` recognises
//! the kind of shard directories and hands them to their merge.

pub mod assemble;
pub mod merge;
pub mod merge_error;
pub mod revalidate;
pub mod shards;

pub use merge::{merge, Merged};
pub use merge_error::MergeError;

mod annotate;
mod extract;
mod mine;
mod sample;
mod states;
mod validate;
mod write;

use crate::annotate::proximity;
use crate::dataset::{DatasetError, DatasetWriter};
use crate::model::{Instance, Rejected};
use crate::progress::Progress;
use crate::recipe::Plan;
use crate::source::{defects4j::D4jError, Candidate};
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
    /// The JIRA API of the git source's `issue_types` could not be used (bad token,
    /// malformed answer, offline miss).
    #[error(transparent)]
    Jira(#[from] crate::source::jira::JiraError),
    /// The dataset could not be written.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// Validation could not start (the sandbox is required but unavailable).
    #[error("validate: {0}")]
    Validate(#[source] crate::validate::RunError),
    /// `states.partial.run` lies inside the dataset the build replaces.
    #[error("states.partial.run: {} is inside {}, which this build replaces with everything in it; run the weak agent with `hunkgen run … --out DIR` outside the dataset and point `run:` there", run.display(), output.display())]
    PartialRunInside {
        /// The run directory.
        run: std::path::PathBuf,
        /// The dataset directory.
        output: std::path::PathBuf,
    },
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
    /// Of the candidates with enough counted hunks, those `select.sample` did not draw
    /// (`None` without a sample).
    pub not_sampled: Option<usize>,
    /// The kept instances, sorted.
    pub instances: Vec<Instance>,
    /// Items rejected, with their reasons.
    pub rejected: Vec<Rejected>,
    /// One line per problem that left annotation fields null (per project, not per bug).
    pub warnings: Vec<String>,
    /// One line per fact about this run that is not part of the dataset (API traffic).
    pub notes: Vec<String>,
    /// Wall time of each stage, in order (`build --timings` prints them), so a slow
    /// rebuild says where its time went.
    pub timings: Vec<(&'static str, std::time::Duration)>,
}

/// Wall time per stage: each `lap` closes the stage that ran since the previous one.
struct StageClock {
    last: std::time::Instant,
    laps: Vec<(&'static str, std::time::Duration)>,
}

impl StageClock {
    fn start() -> Self {
        Self {
            last: std::time::Instant::now(),
            laps: Vec::new(),
        }
    }

    fn lap(&mut self, stage: &'static str) {
        let now = std::time::Instant::now();
        self.laps.push((stage, now - self.last));
        self.last = now;
    }
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

/// One kept instance on its way through the stages: the candidate it came from and its
/// row so far.
struct Item<'c> {
    candidate: &'c Candidate,
    instance: Instance,
}

/// The memo of this build's deterministic steps: under the validation cache (the default
/// cache without validation); read unless `--no-cache`.
fn memo(plan: &Plan, opts: &BuildOptions) -> crate::memo::Memo {
    let dir = match &plan.validate {
        Some(v) => v.cache_dir.clone(),
        None => crate::recipe::default_cache_dir(),
    };
    crate::memo::Memo::new(dir, !opts.no_cache)
}

/// Run a plan end to end and write the dataset directory.
pub fn build(plan: &Plan, opts: &BuildOptions) -> Result<BuildSummary, BuildError> {
    let mut clock = StageClock::start();
    let output = output_dir(plan, opts);
    // A weak run inside the dataset would be gone with the old dataset.
    if let Some(crate::recipe::PartialSpec::Run { run }) =
        plan.states.as_ref().and_then(|s| s.partial.as_ref())
    {
        if let (Ok(r), Ok(o)) = (run.canonicalize(), output.canonicalize()) {
            if r.starts_with(&o) {
                return Err(BuildError::PartialRunInside {
                    run: run.clone(),
                    output,
                });
            }
        }
    }
    // Refuse early, before any work, to overwrite another recipe's dataset.
    let writer = DatasetWriter::begin(&output, &plan.name, opts.force)?;

    let mut mined = mine::mine(plan, opts)?;
    clock.lap("mine");
    let examined = extract::extract(plan, &mined.candidates);
    let selected = extract::select(plan, opts, &mined.candidates, &examined);
    clock.lap("extract");
    if let Some(f) = mined.funnel.as_mut() {
        f.few_counted_hunks = examined.len() - selected.multi_hunk.len();
    }
    let mut items = selected.items;
    // Source-wide problems (a stopped GitHub run) come first.
    let mut warnings = mined.warnings.clone();
    if let Some(spec) = &plan.annotate {
        annotate::annotate(spec, plan, opts, &mut items);
        warnings.extend(annotate::missing_ast_warnings(&selected.multi_hunk));
        clock.lap("annotate");
    }

    // What a shard's manifest records of the stages so far: the depths of its own
    // instances, all of them, sampled or not (λ is the whole set's, as on one machine).
    let owned = |id: &str| opts.shard.is_none_or(|s| s.owns(id));
    let depths: Vec<usize> = items
        .iter()
        .filter(|it| owned(&it.instance.instance_id))
        .flat_map(|it| proximity::depths(std::slice::from_ref(&it.instance)))
        .collect();
    let early_warnings = warnings.clone();
    // The sample is drawn over every shard's instances; then a shard keeps its own.
    let not_sampled = plan
        .sample
        .as_ref()
        .map(|spec| sample::sample(spec, &selected.rows, &mut items));
    items.retain(|it| owned(&it.instance.instance_id));
    if let (Some(f), Some(n)) = (mined.funnel.as_mut(), not_sampled) {
        f.not_sampled = n;
    }
    if plan.sample.is_some() {
        clock.lap("sample");
    }
    let mut rejected: Vec<Rejected> = mined
        .rejected
        .iter()
        .filter(|r| owned(&r.id))
        .cloned()
        .collect();
    let assigned: Vec<String> = items
        .iter()
        .map(|it| it.instance.instance_id.clone())
        .chain(rejected.iter().map(|r| r.id.clone()))
        .collect();
    // Instances not sampled are nobody's: neither kept nor rejected by any shard.
    let total_assigned =
        selected.multi_hunk.len() - not_sampled.unwrap_or(0) + mined.rejected.len();

    let validator = match &plan.validate {
        Some(vplan) => {
            let mut v =
                crate::recipe::validator::validator(plan, vplan).map_err(BuildError::Validate)?;
            v.defer_cached_logs();
            Some(v)
        }
        None => None,
    };
    let mut validated = 0;
    let mut validator_warning = None;
    if let Some(v) = &validator {
        rejected.extend(validate::validate(v, &mut items, writer.dir(), opts));
        clock.lap("validate");
        if plan.validate.as_ref().is_some_and(|p| p.necessary_hunks) {
            validate::necessary_hunks(v, &mut items, writer.dir(), opts);
            clock.lap("necessary hunks");
        }
        validated = items.len();
        if plan.reject_new_api_only {
            rejected.extend(validate::select_new_api(&mut items));
        }
        if let Some(min) = plan.min_necessary_hunks {
            rejected.extend(validate::select_necessary(&mut items, min));
        }
        validator_warning = v.take_warning();
        warnings.extend(validator_warning.clone());
        warnings.extend(crate::recipe::validator::env_failure_warnings(&rejected));
    }
    let mut reused = crate::states::write::Reused::default();
    if let Some(spec) = &plan.states {
        reused = states::states(
            plan,
            spec,
            validator.as_ref(),
            &mut items,
            (writer.dir(), &output),
            opts,
        );
        clock.lap("states");
    }

    let summary_warnings = warnings.clone();
    let assembled = write::assemble(
        plan,
        items.into_iter().map(|it| it.instance).collect(),
        rejected,
        &examined,
        &mined,
        (selected.multi_hunk.len(), not_sampled),
        validated,
        warnings,
    );
    let shard = opts.shard.map(|shard| shards::BuildShard {
        shard,
        total_assigned,
        assigned,
        depths,
        warnings: early_warnings,
        validator_warning,
    });
    let held_logs = validator
        .as_ref()
        .map(|v| v.take_deferred_logs())
        .unwrap_or_default();
    let write::Written {
        kept,
        rejected,
        unchanged,
    } = write::write(
        assembled,
        &examined,
        shard,
        (writer, reused, held_logs),
        opts.strict,
    )?;
    clock.lap("write");
    let mut notes = mined.notes;
    if let Some(built_at) = unchanged {
        notes.push(format!(
            "nothing changed: {} already holds this build (built at {built_at}) and is kept as it was",
            output.display()
        ));
    }
    Ok(BuildSummary {
        output,
        walked: mined.walked,
        examined: examined.len(),
        funnel: mined.funnel,
        few_counted_hunks: examined.len() - selected.multi_hunk.len(),
        not_sampled,
        instances: kept,
        rejected,
        warnings: mined.warnings.into_iter().chain(summary_warnings).collect(),
        notes,
        timings: clock.laps,
    })
}

/// The dataset directory: `--output`, else the plan's (a shard's beside it).
fn output_dir(plan: &Plan, opts: &BuildOptions) -> PathBuf {
    match (&opts.output, opts.shard) {
        (Some(o), _) => o.clone(),
        (None, None) => plan.output.clone(),
        (None, Some(s)) => {
            let mut name = plan.output.file_name().unwrap_or_default().to_os_string();
            name.push(format!("-shard-{}-of-{}", s.index, s.count));
            plan.output.with_file_name(name)
        }
    }
}
