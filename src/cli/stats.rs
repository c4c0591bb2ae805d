//! `hunkgen stats`.

use crate::{dataset, report};
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

/// `hunkgen stats`'s arguments.
#[derive(Debug, clap::Args)]
pub struct StatsArgs {
    /// The dataset directory (holding instances.jsonl).
    dataset: PathBuf,
    /// Print machine-readable JSON instead of markdown.
    #[arg(long)]
    json: bool,
    /// Show the published HUNK4J figures beside computed ones that differ.
    #[arg(long)]
    compare_hunk4j: bool,
}

/// Run `hunkgen stats`.
pub fn run(args: StatsArgs) -> anyhow::Result<()> {
    let StatsArgs {
        dataset: dir,
        json,
        compare_hunk4j,
    } = args;
    let instances = dataset::read_instances(&dir)
        .with_context(|| format!("{}: not a hunkgen dataset", dir.display()))?;
    let annotated = instances.iter().any(|i| i.divergence.is_some());
    let tables = report::Tables::compute(&instances, &instances, annotated);
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", report::json(&tables))?;
    } else {
        write!(
            out,
            "{}",
            report::tables12_markdown(&tables, compare_hunk4j)
        )?;
        if let Some(a) = &tables.annotation {
            write!(out, "{}", report::table3_markdown(a))?;
        }
    }
    Ok(())
}
