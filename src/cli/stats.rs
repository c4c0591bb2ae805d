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
    /// Show the published HUNK4J figures beside computed ones that differ (Tables I–III
    /// and the divergence summary).
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
    let mut tables = report::Tables::compute(&instances, &instances, annotated);
    tables.sample = sample_line(&dir);
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", report::json(&tables))?;
    } else {
        if let Some(s) = &tables.sample {
            write!(out, "{}", s.markdown())?;
        }
        write!(
            out,
            "{}",
            report::tables12_markdown(&tables, compare_hunk4j)
        )?;
        if let Some(a) = &tables.annotation {
            write!(
                out,
                "{}",
                report::table3_markdown_compared(a, compare_hunk4j)
            )?;
            if compare_hunk4j {
                write!(
                    out,
                    "\n## Divergence distribution\n\n{}",
                    report::distribution_table_compared(&a.distribution, false, true).to_markdown()
                )?;
            }
        }
    }
    Ok(())
}

/// What `select.sample` drew, from the dataset's card and the recipe it holds, so the
/// statistics of a sample say they are N of M; `None` for an unsampled dataset (or one
/// without a readable card).
fn sample_line(dir: &std::path::Path) -> Option<report::tables::SampleLine> {
    let card = dataset::read_card(dir).ok().flatten()?;
    let (sampled, not_sampled) = (card.counts.sampled?, card.counts.not_sampled?);
    let recipe =
        crate::recipe::parse(&card.recipe, std::path::Path::new(&card.recipe_file)).ok()?;
    let spec = recipe.select.sample?;
    Some(report::tables::SampleLine {
        n: spec.n,
        seed: spec.seed,
        stratify_by: spec.stratify_by.name(),
        population: card.counts.multi_hunk,
        sampled,
        not_sampled,
    })
}
