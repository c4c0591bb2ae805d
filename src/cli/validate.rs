//! `hunkgen validate`.

use super::set_jobs;
use crate::pipeline::revalidate::{self, RevalidateOptions};
use std::io::Write;
use std::path::PathBuf;

/// `hunkgen validate`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// The dataset directory.
    dataset: PathBuf,
    /// Only these instances (repeatable, or comma-separated).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Run every test again instead of answering from the result cache.
    #[arg(long)]
    no_cache: bool,
    /// Worker threads (default: all cores).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// Print JSON Lines (one object per instance) instead of a table.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Also write the rows to DIR/validate.jsonl (a shard: DIR with shard.yaml).
    #[arg(long, short, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Work only on shard K of N (`--shard 0/4`): the instances whose
    /// stable_hash(instance_id) mod N is K. Default: HUNKGEN_SHARD=K/N, else
    /// SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, else JOB_COMPLETION_INDEX with
    /// HUNKGEN_SHARD_COUNT, else the whole dataset.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
}

/// Run `hunkgen validate`.
pub fn run(args: ValidateArgs) -> anyhow::Result<()> {
    let ValidateArgs {
        dataset: dir,
        only,
        no_cache,
        jobs,
        json,
        quiet,
        output,
        shard,
    } = args;
    set_jobs(jobs);
    let shard = crate::shard::Shard::resolve(shard.as_deref())?;
    let rows = revalidate::validate_dataset(
        &dir,
        &only,
        output,
        &RevalidateOptions {
            progress: !quiet,
            no_cache,
            shard,
        },
    )?;
    let mut out = std::io::stdout().lock();
    if json {
        for r in &rows {
            writeln!(out, "{}", serde_json::to_string(r)?)?;
        }
    } else {
        writeln!(
            out,
            "| instance | status | runs (cached/executed) | detail |"
        )?;
        writeln!(out, "|---|---|---|---|")?;
        for r in &rows {
            writeln!(
                out,
                "| {} | {} | {}/{} | {} |",
                r.instance_id, r.status, r.cached_runs, r.executed_runs, r.detail
            )?;
        }
        let count = |s: &str| rows.iter().filter(|r| r.status == s).count();
        writeln!(
            out,
            "\n{} confirmed, {} changed, {} flaky, {} broken",
            count("confirmed"),
            count("changed"),
            count("flaky"),
            count("broken")
        )?;
    }
    let bad = rows
        .iter()
        .filter(|r| r.status == "changed" || r.status == "broken")
        .count();
    if bad > 0 {
        anyhow::bail!(
            "{bad} of {} instance(s) changed or broke since the dataset was built",
            rows.len()
        );
    }
    Ok(())
}
