//! `hunkgen run`: run a coding agent on every instance of a dataset's state and collect
//! its patch as a SWE-bench-form prediction, with its prompt, logs, normalized
//! trajectory and outcome per instance.
//!
//! Per instance: the materialized state (for a Defects4J bug without states, the buggy
//! checkout: `workdir.rs`) is copied into a fresh working directory and
//! recorded in a git directory *outside* it (the agent cannot rewrite the snapshot);
//! the prompt is rendered; the agent runs in the sandbox (src/validate/runner.rs) with
//! its timeout; `model_patch` is the diff of the working directory against the
//! snapshot (a `.git` inside it never part of it). Every failure is a labelled outcome
//! of that instance ([`AgentOutcome`]); the others go on.

pub mod agents;
pub mod d4j;
mod error;
mod gemini;
mod instance;
pub mod prompt;
pub mod trajectory;
mod workdir;

pub use prompt::DEFAULT_PROMPT;
use prompt::{fill, COMMANDS};

use crate::dataset;
use crate::model::{AgentOutcome, AgentRunRecord, Instance, Scenario, StateKind};
use crate::validate::runner::{Command, RunSpec, Runner, SandboxPolicy};
use agents::{AgentSpec, TrajectorySource};
pub use error::ExecuteError;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Which prompt `hunkgen run` gives the agent: one of FixedBench's four instructions
/// (`issue`, `edit`, `reproduce`, `abstain-or-fix`), or the harness's own template with
/// optional localization hints (`plain`, `files`, `hunks`, `mcp`). No built-in variant
/// names the golden tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptVariant {
    /// The task text verbatim and nothing else (FixedBench's baseline instruction).
    Issue,
    /// An instruction to edit the code base so that the issue is addressed.
    Edit,
    /// An instruction to reproduce the issue first, then address it.
    Reproduce,
    /// An instruction to reproduce the issue first, then either address it or, with
    /// nothing to fix, leave the repository unchanged (a successful outcome).
    AbstainOrFix,
    /// The harness's template: the reported problem, changed only if it still occurs
    /// (for a Defects4J bug, the agent study's template).
    Plain,
    /// Plus the files the golden patch changes.
    Files,
    /// Plus the golden hunks' files and buggy line ranges.
    Hunks,
    /// Plus the `hunkgen mcp` repository context server (`{mcp_config}`).
    Mcp,
}

impl PromptVariant {
    /// All eight, in the order `--prompt-variant` lists them.
    pub const ALL: [PromptVariant; 8] = [
        PromptVariant::Issue,
        PromptVariant::Edit,
        PromptVariant::Reproduce,
        PromptVariant::AbstainOrFix,
        PromptVariant::Plain,
        PromptVariant::Files,
        PromptVariant::Hunks,
        PromptVariant::Mcp,
    ];

    /// The variant's name.
    pub fn name(self) -> &'static str {
        match self {
            PromptVariant::Issue => "issue",
            PromptVariant::Edit => "edit",
            PromptVariant::Reproduce => "reproduce",
            PromptVariant::AbstainOrFix => "abstain-or-fix",
            PromptVariant::Plain => "plain",
            PromptVariant::Files => "files",
            PromptVariant::Hunks => "hunks",
            PromptVariant::Mcp => "mcp",
        }
    }

    /// The variant an instance gets when `--prompt-variant` is not given: `plain` (the
    /// agent study's template) for a Defects4J bug served by the Defects4J loop, `issue`
    /// for every other instance.
    pub fn default_for(d4j: bool) -> PromptVariant {
        if d4j {
            PromptVariant::Plain
        } else {
            PromptVariant::Issue
        }
    }
}

impl std::str::FromStr for PromptVariant {
    type Err = crate::model::UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::model::parse_name(s, "prompt variant", &Self::ALL, Self::name)
    }
}

/// Options of one `hunkgen run`.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The agent's name (a directory name under `runs/`).
    pub agent: String,
    /// Its spec from the agents file.
    pub spec: AgentSpec,
    /// The state to run on.
    pub state: StateKind,
    /// The scenario.
    pub scenario: Scenario,
    /// Only these instances (empty: all).
    pub only: Vec<String>,
    /// Timeout in seconds overriding the spec's.
    pub timeout: Option<u64>,
    /// The prompt variant (`None`: [`PromptVariant::default_for`] each instance).
    pub variant: Option<PromptVariant>,
    /// Run on the states written with the golden tests present
    /// (`<state>-<scenario>-tests`, built with `states.golden_tests: present|both`).
    pub with_tests: bool,
    /// Output root (default `<dataset>/runs`).
    pub out: Option<PathBuf>,
    /// Show a progress bar.
    pub progress: bool,
    /// Do not reuse earlier results.
    pub no_cache: bool,
    /// How many times each instance is run (pass@k); attempt k ≥ 2 keeps its material
    /// under `attempt-<k>/` of the run directory.
    pub attempts: u32,
    /// Run only this shard's instances, under a root of its own (default
    /// `<dataset>/runs-shard-K-of-N`), with a manifest, `shard.yaml`.
    pub shard: Option<crate::shard::Shard>,
    /// Bug reports by instance (`--reports`): their title and description fill
    /// `{report_title}`, `{report_description}` and `{bug_report}`.
    pub reports: prompt::Reports,
    /// Bytes of each tool output a normalized step keeps (`--keep-output`; 0: none), so
    /// `hunkgen judge` sees what the agent saw without trajectories growing unbounded.
    pub keep_output: usize,
}

/// What a run wrote.
#[derive(Debug)]
pub struct RunSummary {
    /// `runs/<agent>/<state>-<scenario>/` (`…-tests/` with the golden tests).
    pub dir: PathBuf,
    /// One record per instance, sorted by id.
    pub records: Vec<AgentRunRecord>,
    /// Instances answered from an earlier run with the same key.
    pub reused: usize,
    /// The sandbox warning, if runs were not sandboxed.
    pub warning: Option<String>,
}

/// Why a whole run could not start (per-instance failures are outcomes, not errors).
#[derive(Debug, thiserror::Error)]
pub enum RunAgentError {
    /// The dataset's instances cannot be read.
    #[error("{}: not a hunkgen dataset: {source}", dir.display())]
    NotADataset {
        /// The dataset directory.
        dir: PathBuf,
        /// Why.
        source: dataset::DatasetError,
    },
    /// `--only` names an instance the dataset does not have.
    #[error("{}: no instance `{id}` (--only)", dir.display())]
    NoInstance {
        /// The dataset directory.
        dir: PathBuf,
        /// The id given.
        id: String,
    },
    /// The agent's prompt template cannot be read.
    #[error("{}: cannot read the prompt template: {source}", path.display())]
    PromptTemplate {
        /// The template file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The run's output directory cannot be created.
    #[error("{}: cannot create: {source}", dir.display())]
    CannotCreate {
        /// The directory.
        dir: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// No sandbox could be set up.
    #[error("{0}")]
    Sandbox(#[source] crate::validate::runner::RunError),
    /// The predictions or a merged run cannot be written.
    #[error("{0}")]
    Dataset(#[from] dataset::DatasetError),
    /// The shards are not one complete set, or the manifest cannot be written.
    #[error("{0}")]
    Shards(#[from] crate::shard::ShardSetError),
    /// The run shards' predictions do not cover the run's instances.
    #[error("the shards' predictions name {count} instance(s) of {} but the run has {total}", dataset.display())]
    Coverage {
        /// Predictions in the shards.
        count: usize,
        /// The dataset directory.
        dataset: PathBuf,
        /// Instances of the run.
        total: usize,
    },
}

/// Default timeout of an agent run.
const DEFAULT_TIMEOUT: u64 = 1800;
/// Default limit of `model_patch`.
const DEFAULT_MAX_DIFF: usize = 1 << 20;

/// Run the agent on the dataset's instances.
pub fn run(dataset_dir: &Path, opts: &RunOptions) -> Result<RunSummary, RunAgentError> {
    let instances =
        dataset::read_instances(dataset_dir).map_err(|source| RunAgentError::NotADataset {
            dir: dataset_dir.to_path_buf(),
            source,
        })?;
    for id in &opts.only {
        if !instances.iter().any(|i| &i.instance_id == id) {
            return Err(RunAgentError::NoInstance {
                dir: dataset_dir.to_path_buf(),
                id: id.clone(),
            });
        }
    }
    let mut chosen: Vec<&Instance> = instances
        .iter()
        .filter(|i| opts.only.is_empty() || opts.only.contains(&i.instance_id))
        .collect();
    let total = chosen.len();
    if let Some(s) = opts.shard {
        chosen.retain(|i| s.owns(&i.instance_id));
    }
    let template =
        match &opts.spec.prompt {
            Some(p) => Some(std::fs::read_to_string(p).map_err(|source| {
                RunAgentError::PromptTemplate {
                    path: p.clone(),
                    source,
                }
            })?),
            None => None,
        };
    let root = match (&opts.out, opts.shard) {
        (Some(out), _) => out.clone(),
        (None, None) => dataset_dir.join("runs"),
        (None, Some(s)) => dataset_dir.join(format!("runs-shard-{}-of-{}", s.index, s.count)),
    };
    let dir = root.join(&opts.agent).join(run_dir_name(opts));
    std::fs::create_dir_all(&dir)
        .and_then(|()| match opts.shard {
            Some(_) => crate::shard::TaskManifest::begin(&dir),
            None => Ok(()),
        })
        .map_err(|source| RunAgentError::CannotCreate {
            dir: dir.clone(),
            source,
        })?;
    let dir = dir.canonicalize().unwrap_or(dir);
    let runner = Runner::new(SandboxPolicy::Auto).map_err(RunAgentError::Sandbox)?;
    let warning = runner.take_warning();
    let progress = if opts.progress {
        crate::progress::Progress::new("run", (chosen.len() * opts.attempts.max(1) as usize) as u64)
    } else {
        crate::progress::Progress::hidden()
    };
    // Defects4J bugs get Defects4J's build and test commands (the agent study's loop).
    let any_d4j = chosen
        .iter()
        .any(|i| i.source == crate::model::SourceKind::Defects4j);
    // Best states come with the environment validation built (FixedBench: the execution
    // environment is set up), so a Best run opens the recipe's tests as Defects4J does.
    let best = opts.scenario == Scenario::Best;
    let (opened, no_d4j) = if any_d4j || best {
        match crate::recipe::open::open_with_tests(dataset_dir, "Defects4J cannot run") {
            Ok(o) if o.tests.defects4j.is_some() || !any_d4j => (Some(o), None),
            Ok(o) => (
                Some(o),
                Some("its recipe has no `validate.defects4j`".to_string()),
            ),
            Err(e) => (None, any_d4j.then(|| e.to_string())),
        }
    } else {
        (None, None)
    };
    let validator = match &opened {
        Some(o) => Some(
            crate::recipe::validator::validator(&o.plan, &o.tests)
                .map_err(RunAgentError::Sandbox)?,
        ),
        None => None,
    };
    let has_d4j = opened.as_ref().is_some_and(|o| o.tests.defects4j.is_some());
    let envs = match (&opened, &validator, best) {
        (Some(o), Some(v), true) => Some(Envs {
            validator: v,
            card: &o.card,
        }),
        _ => None,
    };
    let d4j_loop = match (&opened, &validator) {
        (Some(o), Some(v)) if has_d4j => Some(d4j::Loop {
            validator: v,
            card: &o.card,
            logs: dir.join(".d4j-logs"),
        }),
        _ => None,
    };
    let attempts = opts.attempts.max(1);
    let mut done: Vec<(AgentRunRecord, String, bool)> = Vec::new();
    for attempt in 1..=attempts {
        let attempt_dir = match attempt {
            1 => dir.clone(),
            k => dir.join(format!("attempt-{k}")),
        };
        let ctx = Ctx {
            dataset: dataset_dir,
            opts,
            template: template.as_deref(),
            dir: &attempt_dir,
            runner: &runner,
            d4j: d4j_loop.as_ref(),
            no_d4j: no_d4j.clone(),
            envs: envs.as_ref(),
            attempt: (attempts > 1).then_some(attempt),
        };
        done.extend(
            chosen
                .par_iter()
                .map(|inst| {
                    progress.set_message(inst.instance_id.clone());
                    let r = ctx.one(inst);
                    progress.inc(1);
                    r
                })
                .collect::<Vec<_>>(),
        );
    }
    progress.finish();
    let rows: Vec<serde_json::Value> = done
        .iter()
        .map(|(r, patch, _)| {
            let mut row = serde_json::json!({
                "instance_id": r.instance_id,
                "model_name_or_path": opts.agent,
                "model_patch": patch,
                "state": r.state,
                "scenario": r.scenario,
                "prompt_variant": r.prompt_variant,
            });
            // Only when true, so predictions of runs without the golden tests stay as
            // they were.
            if let (true, Some(o)) = (r.tests_present, row.as_object_mut()) {
                o.insert("tests_present".into(), true.into());
            }
            if let (Some(k), Some(o)) = (r.attempt, row.as_object_mut()) {
                o.insert("attempt".into(), k.into());
            }
            row
        })
        .collect();
    dataset::write_atomic(&dir.join("predictions.jsonl"), &dataset::jsonl(&rows))?;
    if let Some(shard) = opts.shard {
        write_manifest(dataset_dir, &dir, opts, shard, total, &done)?;
    }
    let reused = done.iter().filter(|d| d.2).count();
    Ok(RunSummary {
        dir,
        records: done.into_iter().map(|d| d.0).collect(),
        reused,
        warning,
    })
}

/// The run directory's name under `<root>/<agent>/`: `<state>-<scenario>`, with `-tests`
/// when the states hold the golden tests (as the states' own directories are named).
pub fn run_dir_name(opts: &RunOptions) -> String {
    let tests = if opts.with_tests { "-tests" } else { "" };
    format!("{}-{}{tests}", opts.state.name(), opts.scenario.name())
}

/// A run shard's manifest: what every shard of the run shares, its instances, and the
/// checksums of predictions.jsonl and of each instance's result.json and model.patch.
fn write_manifest(
    dataset_dir: &Path,
    dir: &Path,
    opts: &RunOptions,
    shard: crate::shard::Shard,
    total: usize,
    done: &[(AgentRunRecord, String, bool)],
) -> Result<(), crate::shard::ShardSetError> {
    let spec = serde_json::to_string(&opts.spec).unwrap_or_default();
    let mut inputs: std::collections::BTreeMap<String, String> = [
        ("agent", opts.agent.clone()),
        ("agent_sha256", dataset::sha256_hex(spec.as_bytes())),
        (
            "prompt_variant",
            opts.variant
                .map_or("default", PromptVariant::name)
                .to_string(),
        ),
        ("state", opts.state.name().to_string()),
        ("scenario", opts.scenario.name().to_string()),
        (
            "timeout",
            opts.timeout.map(|t| t.to_string()).unwrap_or_default(),
        ),
        ("only", opts.only.join(",")),
    ]
    .map(|(k, v)| (k.to_string(), v))
    .into();
    // Only when true, so manifests of runs without the golden tests still match.
    if opts.with_tests {
        inputs.insert("tests_present".into(), "true".into());
    }
    // Shards given other bug reports are not one run (only named when there are some,
    // so runs without them keep their manifests).
    if !opts.reports.is_empty() {
        let text: String = opts
            .reports
            .values()
            .map(|r| format!("{}\0{}\0{}\0", r.id, r.title, r.description))
            .collect();
        inputs.insert(
            "reports_sha256".into(),
            dataset::sha256_hex(text.as_bytes()),
        );
    }
    let ids: Vec<String> = done.iter().map(|d| d.0.instance_id.clone()).collect();
    let mut files = vec!["predictions.jsonl".to_string()];
    for id in &ids {
        files.push(format!("{id}/result.json"));
        files.push(format!("{id}/model.patch"));
    }
    crate::shard::TaskManifest::new(
        crate::shard::Kind::Run,
        shard,
        dataset_dir,
        inputs,
        total,
        ids,
    )?
    .finish(dir, &files)
}

/// Join `hunkgen run --shard` directories (each `<root>/<agent>/<state>-<scenario>`)
/// into what one machine's run writes there: predictions.jsonl in the dataset's order,
/// and each instance's directory copied. The dataset must still be where the shards
/// read it, unchanged. Returns the number of instances and the shards' hosts.
pub fn merge_shards(
    output: &Path,
    shards: &[PathBuf],
    force: bool,
) -> Result<(usize, Vec<String>), RunAgentError> {
    use crate::shard::{self, Kind};
    let read = shard::read_task_shards(shards, Kind::Run)?;
    let Some((_, first)) = read.first() else {
        return Err(shard::ShardSetError::NoShards.into());
    };
    let dataset_dir = shard::dataset_of(first)?;
    let instances = dataset::read_instances(&dataset_dir)?;
    // The order one machine writes: the dataset's.
    let rows = shard::rows_in_dataset_order(&read, "predictions.jsonl", &instances)?;
    let merged: String = rows.iter().map(|(line, _)| format!("{line}\n")).collect();
    let count = rows.len();
    if count != first.total {
        return Err(RunAgentError::Coverage {
            count,
            dataset: dataset_dir,
            total: first.total,
        });
    }
    let agent = first.inputs.get("agent").cloned().unwrap_or_default();
    let writer = dataset::DatasetWriter::begin(output, &agent, force)?;
    let mut links = std::collections::HashMap::new();
    for (dir, m) in &read {
        for id in &m.instances {
            dataset::copy_tree(&dir.join(id), &writer.dir().join(id), &mut links)?;
        }
    }
    writer
        .write("predictions.jsonl", merged.as_bytes())
        .and_then(|()| writer.commit())?;
    let hosts = shard::hosts(read.iter().map(|(_, m)| m.host.as_str()));
    Ok((count, hosts))
}

/// Everything one instance's run needs.
struct Ctx<'a> {
    dataset: &'a Path,
    opts: &'a RunOptions,
    /// The agent's own template (`None`: the built-in one for the instance).
    template: Option<&'a str>,
    dir: &'a Path,
    runner: &'a Runner,
    /// The Defects4J side, when the dataset's bugs are validated by Defects4J.
    d4j: Option<&'a d4j::Loop<'a>>,
    /// Why a dataset with Defects4J bugs has no Defects4J side.
    no_d4j: Option<String>,
    /// Where a Best run's environments come from (a dataset with `validate:`).
    envs: Option<&'a Envs<'a>>,
    /// Which attempt this is, when the run makes several (`--attempts`).
    attempt: Option<u32>,
}

/// The validator that built a dataset's environments, for Best runs.
struct Envs<'a> {
    validator: &'a crate::validate::stage::Validator<'a>,
    card: &'a crate::model::Card,
}

/// A Best run's environments (none for Worst, for a Defects4J bug, whose tools are its
/// environment, and for a dataset without tests), or why they cannot be had.
type BestEnvs = Result<Vec<crate::validate::stage::AgentEnv>, String>;

/// Single-quote a value for `/bin/sh`.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Secrets passed through to the agent: name and value.
fn secrets(spec: &AgentSpec) -> Vec<(String, String)> {
    spec.env
        .iter()
        .filter_map(|k| std::env::var(k).ok().map(|v| (k.clone(), v)))
        .filter(|(_, v)| !v.is_empty())
        .collect()
}

/// `text` with every secret value replaced by `[redacted:NAME]`.
pub fn redact(text: &str, secrets: &[(String, String)]) -> String {
    let mut out = text.to_string();
    for (k, v) in secrets {
        out = out.replace(v.as_str(), &format!("[redacted:{k}]"));
    }
    out
}

/// Rewrite a file with its secrets redacted (nothing when there are none).
fn redact_file(path: &Path, secrets: &[(String, String)]) {
    if secrets.is_empty() {
        return;
    }
    if let Ok(bytes) = std::fs::read(path) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = dataset::write_atomic(path, redact(&text, secrets).as_bytes());
    }
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Remove a path if present, file or directory.
fn remove(path: &Path) {
    if path.is_dir() {
        let _ = std::fs::remove_dir_all(path);
    } else {
        let _ = std::fs::remove_file(path);
    }
}
