//! `hunkgen merge`.

use super::install_interrupt_handler;
use crate::pipeline::revalidate::VALIDATION_ROWS;
use crate::pipeline::{self, Merged};
use std::io::Write;
use std::path::PathBuf;

/// `hunkgen merge`'s arguments.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The directory to write (replaced as a whole, like a build's): a dataset, an
    /// evaluation's output, a run's `<agent>/<state>-<scenario>` directory or a
    /// validation's (validate.jsonl).
    output: PathBuf,
    /// The shard directories, in any order.
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// Replace an output directory that holds something else.
    #[arg(long)]
    force: bool,
}

/// Run `hunkgen merge`.
pub fn run(args: MergeArgs) -> anyhow::Result<()> {
    let MergeArgs {
        output,
        shards,
        force,
    } = args;
    install_interrupt_handler();
    let merged = pipeline::merge(&output, &shards, force)?;
    let mut out = std::io::stdout().lock();
    match merged {
        Merged::Build(summary) => {
            writeln!(
                out,
                "merged {} shard(s) into {}: {} instances, {} rejected; built on {}",
                shards.len(),
                summary.output.display(),
                summary.instances,
                summary.rejected,
                summary.hosts.join(", ")
            )?;
        }
        Merged::Evaluation {
            evaluation: ev,
            hosts,
        } => {
            write!(out, "{}", crate::evaluate::score::table(&ev.summary))?;
            writeln!(
                out,
                "merged {} evaluation shard(s) into {}: {} result(s); run on {}",
                shards.len(),
                ev.output.display(),
                ev.results.len(),
                hosts.join(", ")
            )?;
        }
        Merged::Validation(merged) => {
            let count = |s: &str| merged.statuses.get(s).copied().unwrap_or(0);
            writeln!(
                out,
                "merged {} validation shard(s) into {}: {} confirmed, {} changed, {} flaky, {} broken; run on {}",
                shards.len(),
                output.join(VALIDATION_ROWS).display(),
                count("confirmed"),
                count("changed"),
                count("flaky"),
                count("broken"),
                merged.hosts.join(", ")
            )?;
        }
        Merged::Run { count, hosts } => {
            writeln!(
                out,
                "merged {} run shard(s) into {}: {count} instance(s); run on {}\npredictions: {}",
                shards.len(),
                output.display(),
                hosts.join(", "),
                output.join("predictions.jsonl").display()
            )?;
        }
    }
    Ok(())
}
