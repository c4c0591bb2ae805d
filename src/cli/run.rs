//! `hunkgen run`.

use super::set_jobs;
use crate::model::{Scenario, StateKind};
use std::io::Write;
use std::path::PathBuf;

/// `hunkgen run`'s arguments.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The dataset directory (built with `states:`).
    dataset: PathBuf,
    /// The agents file: a YAML map of name → command, env, network, trajectory, timeout.
    #[arg(long, value_name = "FILE")]
    agents: PathBuf,
    /// Which agent of the file.
    #[arg(long)]
    agent: String,
    /// Which state.
    #[arg(long, value_enum, default_value_t = StateKind::Novel)]
    state: StateKind,
    /// Which scenario.
    #[arg(long, value_enum, default_value_t = Scenario::Best)]
    scenario: Scenario,
    /// Only these instances (repeatable, or comma-separated).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Agents run at once (default: all cores).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// Timeout per instance in seconds (overrides the agent's `timeout`).
    #[arg(long)]
    timeout: Option<u64>,
    /// Which prompt the agent gets. FixedBench's four instructions for abstention
    /// experiments: issue (the task text alone), edit, reproduce, abstain-or-fix; or the
    /// harness's template (plain) with location hints (files, hunks) or the MCP server
    /// (mcp). No built-in prompt names the golden tests. Default: plain (the agent
    /// study's template) for a Defects4J bug run with Defects4J's commands, issue for
    /// every other instance. An agent's own `prompt:` template replaces the built-in
    /// text; the variant then only decides {hints}.
    #[arg(long, value_enum)]
    prompt_variant: Option<crate::run::PromptVariant>,
    /// Run on the states written with the golden tests present
    /// (`states/<id>/<state>-<scenario>-tests`, built with `states.golden_tests:
    /// present|both` in the recipe); output goes to <out>/<agent>/<state>-<scenario>-tests.
    #[arg(long)]
    with_tests: bool,
    /// Output root (default <dataset>/runs).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Run every instance again instead of reusing results of the same key.
    #[arg(long)]
    no_cache: bool,
    /// Run each instance K times, each attempt its own sample (pass@k; `hunkgen
    /// evaluate` reports pass@k with the unbiased estimator). Attempt k ≥ 2 keeps its
    /// material under `attempt-<k>/`; predictions.jsonl holds every attempt, each row
    /// with its `attempt`; the agent sees HUNKGEN_ATTEMPT.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    attempts: u32,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Run only the instances of shard K of N (`--shard 0/4`): those whose
    /// stable_hash(instance_id) mod N is K. Default: HUNKGEN_SHARD=K/N, else
    /// SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, else JOB_COMPLETION_INDEX with
    /// HUNKGEN_SHARD_COUNT, else all. A shard writes under <dataset>/runs-shard-K-of-N
    /// (or --out), with a manifest, shard.yaml, next to its predictions.jsonl;
    /// `hunkgen merge` joins the shards.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Bug reports for the prompt: JSON Lines {"id", "title", "description"} (id the
    /// instance id, or Defects4J's `Cli-1`; `hunkgen reports` writes them with "url" and
    /// "tracker" too); they fill {report_title}, {report_body} (also
    /// {report_description}) and {bug_report} (which also gives the instance's report
    /// URL), as in the agent study's prompt. Default: <dataset>/reports.jsonl when it
    /// exists.
    #[arg(long, value_name = "FILE")]
    reports: Option<PathBuf>,
    /// Bytes of each tool call's output (command output, file text, tool result) kept in
    /// trajectory.jsonl's steps, cut on a character boundary with `output_truncated`
    /// saying how many bytes were dropped; 0 keeps none. `hunkgen judge` reads them. A
    /// run reused from an earlier one keeps the trajectory it had.
    #[arg(long, value_name = "BYTES", default_value_t = crate::run::trajectory::DEFAULT_KEEP_OUTPUT)]
    keep_output: usize,
}

/// Run `hunkgen run`.
pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let RunArgs {
        dataset: dir,
        agents,
        agent,
        state,
        scenario,
        only,
        jobs,
        timeout,
        prompt_variant,
        with_tests,
        out,
        no_cache,
        attempts,
        quiet,
        shard,
        reports,
        keep_output,
    } = args;
    set_jobs(jobs);
    let shard = crate::shard::Shard::resolve(shard.as_deref())?;
    if attempts > 1 && shard.is_some() {
        anyhow::bail!(
            "--attempts {attempts} with a shard (--shard or the scheduler's array variables): run the attempts on one machine, one `hunkgen run` per shard of instances is not supported yet"
        );
    }
    // `hunkgen reports` writes <dataset>/reports.jsonl: used when no file is named.
    let fetched = dir.join("reports.jsonl");
    let reports = match reports {
        Some(file) => crate::run::prompt::read_reports(&file)?,
        None if fetched.is_file() => crate::run::prompt::read_reports(&fetched)?,
        None => Default::default(),
    };
    let all = crate::run::agents::load(&agents)?;
    let Some(spec) = all.get(&agent).cloned() else {
        let names: Vec<&str> = all.keys().map(String::as_str).collect();
        anyhow::bail!(
            "{}: no agent `{agent}` (the file has: {})",
            agents.display(),
            names.join(", ")
        );
    };
    let summary = crate::run::run(
        &dir,
        &crate::run::RunOptions {
            agent,
            spec,
            state,
            scenario,
            only,
            timeout,
            variant: prompt_variant,
            with_tests,
            out,
            progress: !quiet,
            no_cache,
            attempts,
            shard,
            reports,
            keep_output,
        },
    )?;
    if let Some(w) = &summary.warning {
        eprintln!("warning: {w}");
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "| instance | outcome | exit | seconds | patch bytes | steps |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|")?;
    for r in &summary.records {
        writeln!(
            out,
            "| {} | {} | {} | {:.1} | {} | {} |",
            r.instance_id,
            r.outcome.name(),
            r.exit_code
                .map(|c| c.to_string())
                .unwrap_or_else(|| "-".into()),
            r.elapsed_ms as f64 / 1000.0,
            r.patch_bytes,
            r.trajectory_steps
        )?;
    }
    writeln!(
        out,
        "\n{} instance(s), {} reused from an earlier run\npredictions: {}",
        summary.records.len(),
        summary.reused,
        summary.dir.join("predictions.jsonl").display()
    )?;
    Ok(())
}
