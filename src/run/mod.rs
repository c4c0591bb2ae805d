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

/// Where one instance's run keeps its material under the run directory.
struct InstancePaths {
    /// What the run leaves: prompt, logs, model.patch, result.json.
    inst_dir: PathBuf,
    /// The agent's working copy of the state.
    work: PathBuf,
    /// The outside snapshot the patch is diffed against.
    snapshot: PathBuf,
    /// Files for the agent's process only (MCP configuration, trajectory log).
    private: PathBuf,
    /// The oracle agent's answer.
    oracle_dir: PathBuf,
    /// The MCP configuration given to the agent.
    mcp_config: PathBuf,
}

impl Ctx<'_> {
    /// The run directory's places for instance `id`.
    fn paths(&self, id: &str) -> InstancePaths {
        let private = self.dir.join(".agent").join(id);
        InstancePaths {
            inst_dir: self.dir.join(id),
            work: self.dir.join(".work").join(id),
            snapshot: self.dir.join(".snapshots").join(format!("{id}.git")),
            oracle_dir: self.dir.join(".oracle").join(id),
            mcp_config: private.join("mcp.json"),
            private,
        }
    }

    /// One instance: (record, model_patch, reused).
    fn one(&self, inst: &Instance) -> (AgentRunRecord, String, bool) {
        let opts = self.opts;
        let id = &inst.instance_id;
        let InstancePaths {
            inst_dir,
            work,
            snapshot,
            private,
            oracle_dir,
            mcp_config,
        } = self.paths(id);
        let state =
            crate::states::state_dir(self.dataset, id, opts.state, opts.scenario, opts.with_tests);
        let manifest = std::fs::read(state.join("manifest.yaml")).unwrap_or_default();
        let candidate = self.d4j.and_then(|l| l.candidate(inst));
        let variant = opts
            .variant
            .unwrap_or_else(|| PromptVariant::default_for(candidate.is_some()));
        let prompt = self.prompt(
            inst,
            variant,
            &work,
            &private,
            &mcp_config,
            candidate.is_some(),
        );
        // A Defects4J working copy without a state is the checkout of this installation.
        let environment = match (self.d4j, &candidate) {
            (Some(l), Some(c)) if manifest.is_empty() => l
                .validator
                .d4j_environment(c)
                .map(String::into_bytes)
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        let envs: BestEnvs = match (self.envs, &candidate) {
            (Some(e), None) => crate::source::Candidate::from_instance(inst, e.card)
                .map_err(|why| why.to_string())
                .and_then(|c| e.validator.agent_environments(&c)),
            _ => Ok(Vec::new()),
        };
        let key = {
            let spec = serde_json::to_string(&opts.spec).unwrap_or_default();
            // The run folder's own path is not part of the key: a folder moved, or merged
            // from shards, keeps its results.
            let prompt = prompt.replace(&self.dir.display().to_string(), "<run>");
            let mut material = Vec::new();
            for part in [
                opts.agent.as_bytes(),
                spec.as_bytes(),
                variant.name().as_bytes(),
                prompt.as_bytes(),
                &manifest,
                format!("{:?}", opts.timeout).as_bytes(),
            ] {
                material.extend_from_slice(part);
                material.push(0);
            }
            if !environment.is_empty() {
                material.extend_from_slice(&environment);
                material.push(0);
            }
            // Only when true, so keys of runs without the golden tests stay as they were.
            if opts.with_tests {
                material.extend_from_slice(b"tests_present\0");
            }
            // Each attempt is its own sample.
            if let Some(k) = self.attempt {
                material.extend_from_slice(format!("attempt {k}\0").as_bytes());
            }
            // The environments a Best run gets, by their content keys.
            match &envs {
                Ok(v) if v.is_empty() => {}
                Ok(v) => {
                    for e in v {
                        material.extend_from_slice(
                            format!("env {} {}\0", e.suite, e.env.key).as_bytes(),
                        );
                    }
                }
                Err(why) => material.extend_from_slice(format!("env error {why}\0").as_bytes()),
            }
            dataset::sha256_hex(&material)
        };
        let result_path = inst_dir.join("result.json");
        if !opts.no_cache {
            let old = std::fs::read_to_string(&result_path)
                .ok()
                .and_then(|t| serde_json::from_str::<AgentRunRecord>(&t).ok());
            if let Some(old) = old.filter(|o| o.key == key) {
                if let Ok(patch) = std::fs::read_to_string(inst_dir.join("model.patch")) {
                    return (old, patch, true);
                }
            }
        }
        let mut record = AgentRunRecord {
            instance_id: id.clone(),
            agent: opts.agent.clone(),
            state: opts.state.name().into(),
            scenario: opts.scenario.name().into(),
            prompt_variant: variant.name().into(),
            tests_present: opts.with_tests,
            key,
            outcome: AgentOutcome::SandboxError,
            exit_code: None,
            elapsed_ms: 0,
            started_at: dataset::rfc3339(now_secs()),
            sandboxed: self.runner.is_sandboxed(),
            patch_bytes: 0,
            binary_files: Vec::new(),
            trajectory_format: opts.spec.trajectory.name().into(),
            trajectory_steps: 0,
            detail: None,
            had: Vec::new(),
            environment_error: envs.as_ref().err().cloned(),
            attempt: self.attempt,
        };
        for p in [&inst_dir, &work, &snapshot, &private, &oracle_dir] {
            remove(p);
        }
        let envs = envs.unwrap_or_default();
        let patch = match self.execute(
            inst,
            &state,
            candidate.as_ref(),
            &prompt,
            &envs,
            &mut record,
        ) {
            Ok(patch) => patch,
            Err(why) => {
                record.outcome = AgentOutcome::SandboxError;
                record.detail = Some(why.to_string());
                String::new()
            }
        };
        for p in [&work, &snapshot, &private, &oracle_dir] {
            remove(p);
        }
        record.patch_bytes = patch.len();
        let _ = dataset::write_atomic(&inst_dir.join("model.patch"), patch.as_bytes());
        let json = serde_json::to_string_pretty(&record).unwrap_or_default() + "\n";
        let _ = dataset::write_atomic(&result_path, json.as_bytes());
        (record, patch, false)
    }

    /// Prepare, run and collect one instance; `Err` is a sandbox error's reason.
    fn execute(
        &self,
        inst: &Instance,
        state: &Path,
        candidate: Option<&crate::source::Candidate>,
        prompt: &str,
        envs: &[crate::validate::stage::AgentEnv],
        record: &mut AgentRunRecord,
    ) -> Result<String, ExecuteError> {
        let opts = self.opts;
        let spec = &opts.spec;
        let id = &inst.instance_id;
        let InstancePaths {
            inst_dir,
            work,
            snapshot,
            private,
            oracle_dir,
            mcp_config,
        } = self.paths(id);
        let trajectory_file = private.join("trajectory.log");
        let io = |what, p: &Path, source| ExecuteError::Io {
            what,
            path: p.to_path_buf(),
            source,
        };
        for d in [&inst_dir, &private] {
            std::fs::create_dir_all(d).map_err(|e| io("cannot create", d, e))?;
        }
        let secrets = secrets(spec);
        let prompt_file = inst_dir.join("prompt.md");
        std::fs::write(&prompt_file, prompt).map_err(|e| io("cannot write", &prompt_file, e))?;
        let tools = self.materialize(inst, state, candidate, &work, &private)?;
        let tree =
            crate::git::snapshot_worktree(&snapshot, &work).map_err(ExecuteError::Snapshot)?;
        let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("hunkgen"));
        let mcp = serde_json::json!({"mcpServers": {"hunkgen": {
            "command": exe, "args": ["mcp", "--root", work]}}});
        std::fs::write(
            &mcp_config,
            serde_json::to_string_pretty(&mcp).unwrap_or_default(),
        )
        .map_err(|e| io("cannot write", &mcp_config, e))?;
        // The agent sees the system directories, its working copy and private directory,
        // and only these paths of the host: never the dataset (golden patches), other
        // runs, hunkgen's cache or the caller's home (ARCHITECTURE, security model).
        let mut readable = vec![inst_dir.clone()];
        let mut hidden = Vec::new();
        if let Some(t) = &tools {
            readable.extend(t.readable.iter().filter_map(|p| p.canonicalize().ok()));
            hidden.extend(t.hidden.iter().filter_map(|p| p.canonicalize().ok()));
        }
        if let Some(bin) = exe.parent() {
            readable.push(bin.to_path_buf());
        }
        readable.extend(
            std::iter::once(&spec.dir)
                .chain(&spec.readable)
                .filter_map(|p| p.canonicalize().ok()),
        );
        let golden = oracle_dir.join("golden.patch");
        if spec.oracle {
            std::fs::create_dir_all(&oracle_dir)
                .map_err(|e| io("cannot create", &oracle_dir, e))?;
            std::fs::write(&golden, &inst.patch).map_err(|e| io("cannot write", &golden, e))?;
            readable.push(oracle_dir.clone());
        }
        let mut vars = vec![
            ("workdir", sh_quote(&work.display().to_string())),
            ("prompt_file", sh_quote(&prompt_file.display().to_string())),
            ("instance_id", sh_quote(id)),
            (
                "trajectory_file",
                sh_quote(&trajectory_file.display().to_string()),
            ),
            ("mcp_config", sh_quote(&mcp_config.display().to_string())),
            ("agents_dir", sh_quote(&spec.dir.display().to_string())),
        ];
        if spec.oracle {
            vars.push(("golden_patch", sh_quote(&golden.display().to_string())));
        }
        for (name, (_, path)) in COMMANDS.iter().zip(d4j::Tools::commands(&private)) {
            let path = if tools.is_some() {
                path.display().to_string()
            } else {
                String::new()
            };
            vars.push((name, sh_quote(&path)));
        }
        let command = fill(&spec.command, &vars);
        let timeout = opts.timeout.or(spec.timeout).unwrap_or(DEFAULT_TIMEOUT);
        let stdout = inst_dir.join("stdout.log");
        let stderr = inst_dir.join("stderr.log");
        let mut run = RunSpec::new(Command::Shell(command), &work, &stdout)
            .with_timeout(Duration::from_secs(timeout), Duration::from_secs(5));
        run.stderr_path = Some(stderr.clone());
        run.network = spec.network;
        run.writable = vec![private.clone()];
        run.readable = readable;
        run.hidden = hidden;
        for (k, v) in &secrets {
            run.env.push((k.into(), v.into()));
        }
        run.env.push(("HUNKGEN_INSTANCE_ID".into(), id.into()));
        if let Some(k) = self.attempt {
            run.env
                .push(("HUNKGEN_ATTEMPT".into(), k.to_string().into()));
        }
        record.had = self.enter_best(&mut run, envs, tools.is_some());
        // git in a working copy without `.git` must not find a repository around it (the
        // dataset's own, or hunkgen's).
        if let Some(parent) = work.parent() {
            run.env
                .push(("GIT_CEILING_DIRECTORIES".into(), parent.as_os_str().into()));
        }
        let started = std::time::Instant::now();
        let outcome = self.runner.run(&run);
        record.elapsed_ms = started.elapsed().as_millis() as u64;
        redact_file(&stdout, &secrets);
        redact_file(&stderr, &secrets);
        let outcome = outcome?;
        record.exit_code = match outcome.exit {
            crate::validate::runner::ExitKind::Code(c) => Some(c),
            crate::validate::runner::ExitKind::Signal(_) => None,
        };
        self.trajectory(
            record,
            &stdout,
            &trajectory_file,
            &inst_dir,
            &work,
            &secrets,
        );
        let gone = std::fs::read_dir(&work)
            .map(|mut d| d.next().is_none())
            .unwrap_or(true);
        if gone {
            record.outcome = AgentOutcome::WorkdirDeleted;
            return Ok(String::new());
        }
        let diff =
            crate::git::diff_worktree(&snapshot, &work, &tree).map_err(ExecuteError::Diff)?;
        let mut patch = redact(&String::from_utf8_lossy(&diff.patch), &secrets);
        record.binary_files = diff.binary;
        let max = spec.max_diff_bytes.unwrap_or(DEFAULT_MAX_DIFF);
        record.outcome = if outcome.timed_out {
            AgentOutcome::Timeout
        } else if patch.len() > max {
            record.detail = Some(format!(
                "the diff has {} bytes, over the limit of {max}; dropped",
                patch.len()
            ));
            patch.clear();
            AgentOutcome::DiffTooLarge
        } else if !record.binary_files.is_empty() {
            AgentOutcome::BinaryDiff
        } else if !outcome.exit.success() {
            AgentOutcome::NonzeroExit
        } else {
            AgentOutcome::Completed
        };
        Ok(patch)
    }

    /// What a run has besides its working copy, set up on `run`: in Best, the state's
    /// history and the environments validation built (each venv's `bin` first on `PATH`
    /// with `VIRTUAL_ENV`, the class path as `CLASSPATH`, all readable in the sandbox) or
    /// Defects4J's tools; in Worst, nothing but Defects4J's tools, the agent study's
    /// build and test loop. Returns the manifest's `had` list.
    fn enter_best(
        &self,
        run: &mut RunSpec,
        envs: &[crate::validate::stage::AgentEnv],
        d4j_tools: bool,
    ) -> Vec<String> {
        let mut had = Vec::new();
        if self.opts.scenario == Scenario::Best {
            had.push("history".to_string());
        }
        if d4j_tools {
            had.push("defects4j compile and test commands".into());
        }
        let mut bins = Vec::new();
        for e in envs {
            run.readable.extend(e.env.binds());
            let at = if e.workdir.is_empty() {
                String::new()
            } else {
                format!(" (runs in {})", e.workdir)
            };
            if let Some(py) = e.env.python() {
                let venv = e.env.dir.join("venv");
                // A clean path: what `sys.prefix` says inside the venv.
                let venv = venv.canonicalize().unwrap_or(venv);
                bins.push(venv.join("bin"));
                run.env.push(("VIRTUAL_ENV".into(), venv.clone().into()));
                had.push(format!(
                    "suite {}: python venv {}{at}",
                    e.suite,
                    py.display()
                ));
            }
            let cp = e.env.class_path();
            if !cp.is_empty() {
                run.env.push((
                    "CLASSPATH".into(),
                    std::env::join_paths(&cp).unwrap_or_default(),
                ));
                had.push(format!(
                    "suite {}: CLASSPATH of {} jar(s){at}",
                    e.suite,
                    cp.len()
                ));
            }
            if e.env.python().is_none() && cp.is_empty() {
                had.push(format!("suite {}: its commands{at}", e.suite));
            }
            run.env
                .push(("HUNKGEN_ENV_DIR".into(), e.env.dir.clone().into_os_string()));
        }
        if !bins.is_empty() {
            if let Some(p) = std::env::var_os("PATH") {
                bins.extend(std::env::split_paths(&p));
            }
            run.env.push((
                "PATH".into(),
                std::env::join_paths(bins).unwrap_or_default(),
            ));
        }
        had
    }

    /// Keep the raw trajectory log and write the normalized one when it can be read.
    fn trajectory(
        &self,
        record: &mut AgentRunRecord,
        stdout: &Path,
        file: &Path,
        inst_dir: &Path,
        work: &Path,
        secrets: &[(String, String)],
    ) {
        let spec = &self.opts.spec;
        let source = match spec.trajectory_source() {
            TrajectorySource::Stdout => stdout,
            TrajectorySource::File => file,
        };
        let raw = std::fs::read(source)
            .map(|b| redact(&String::from_utf8_lossy(&b), secrets))
            .unwrap_or_default();
        if spec.trajectory_source() == TrajectorySource::File && source.is_file() {
            let _ = dataset::write_atomic(&inst_dir.join("trajectory.raw"), raw.as_bytes());
        }
        match trajectory::normalize(
            spec.trajectory,
            &raw,
            &work.display().to_string(),
            self.opts.keep_output,
        ) {
            Ok(steps) => {
                record.trajectory_steps = steps.len();
                let _ = dataset::write_atomic(
                    &inst_dir.join("trajectory.jsonl"),
                    &dataset::jsonl(&steps),
                );
            }
            Err(why) => {
                record.trajectory_format = "raw".into();
                if spec.trajectory != agents::TrajectoryFormat::Raw {
                    record.detail = Some(format!(
                        "trajectory not {}: {why}; raw log kept",
                        spec.trajectory.name()
                    ));
                }
            }
        }
    }
}
