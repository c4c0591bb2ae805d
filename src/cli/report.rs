//! `hunkgen report`.

use crate::{dataset, report};
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

/// `hunkgen report`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// The dataset directory (holding instances.jsonl, dataset.yaml).
    dataset: PathBuf,
    /// A system's results.jsonl, or a directory holding it (and summary.json);
    /// repeatable, one per system.
    #[arg(long = "results", value_name = "FILE|DIR")]
    results: Vec<PathBuf>,
    /// Write the page here instead of <dataset>/report/index.html.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// The behaviour labels of agent runs by `hunkgen judge`: its
    /// judgements-summary.json, the runs directory holding it, or the judgements.jsonl
    /// beside it. Default: <dataset>/runs/judgements-summary.json when it exists.
    #[arg(long, value_name = "FILE|DIR")]
    judgements: Option<PathBuf>,
    /// The thinking effort a system was run with, as a number (a reasoning budget, or
    /// 1/2/3 for low/medium/high); repeatable. With two or more, FixedBench's table adds
    /// Spearman's ρ between effort and abstention per task.
    #[arg(long, value_name = "SYSTEM=NUMBER")]
    effort: Vec<String>,
}

/// Run `hunkgen report`.
pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    let ReportArgs {
        dataset: dir,
        results,
        output,
        judgements,
        effort,
    } = args;
    let efforts = report::effort::parse(&effort)?;
    if !dir.join("instances.jsonl").is_file() {
        anyhow::bail!(
            "{}: not a hunkgen dataset (no instances.jsonl)",
            dir.display()
        );
    }
    let out = output.unwrap_or_else(|| dir.join("report/index.html"));
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("{}: cannot create directory", parent.display()))?;
    }
    let judgements = match judgements {
        Some(arg) => Some(report::judgements::summary_path(&arg)),
        None => Some(dir.join("runs/judgements-summary.json")).filter(|p| p.is_file()),
    };
    let mut page = report::page::Page::load(&dir, &out, &results, judgements.as_deref())?;
    let rows: Vec<_> = page.systems.iter().flat_map(|s| &s.rows).collect();
    let correlations = report::effort::compute(&rows, &efforts)?;
    match page.results.as_mut().and_then(|r| r.fixedbench.as_mut()) {
        Some(t) => t.effort = correlations,
        None if !efforts.is_empty() => {
            anyhow::bail!("--effort: the --results hold no FixedBench rows (no Resolved or Partial state, no FixedBench instruction)")
        }
        None => {}
    }
    for s in page.systems.iter().filter(|s| s.unknown > 0) {
        eprintln!(
            "warning: {}: {} row(s) of `{}` name instances this dataset lacks; left out",
            s.file.display(),
            s.unknown,
            s.name
        );
    }
    let beside = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    // FixedBench's table, machine-readable and as markdown, beside the page.
    if let Some(t) = page.results.as_ref().and_then(|r| r.fixedbench.as_ref()) {
        let json = serde_json::to_string_pretty(t)? + "\n";
        dataset::write_atomic(&beside.join("fixedbench.json"), json.as_bytes())?;
        dataset::write_atomic(&beside.join("fixedbench.md"), t.to_markdown().as_bytes())?;
    }
    // The outcome-conditioned breakdowns (the agent study's Tables 3 and 4), likewise.
    if let Some(t) = page.outcomes.as_ref() {
        let json = serde_json::to_string_pretty(t)? + "\n";
        dataset::write_atomic(&beside.join("outcomes.json"), json.as_bytes())?;
        dataset::write_atomic(&beside.join("outcomes.md"), t.to_markdown().as_bytes())?;
    }
    dataset::write_atomic(&out, report::html::render(&page).as_bytes())?;
    writeln!(std::io::stdout().lock(), "{}", out.display())?;
    Ok(())
}
