//! `hunkgen compare`.

use crate::evaluate;
use std::io::Write;
use std::path::PathBuf;

/// `hunkgen compare`'s arguments.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// System A's summary.json.
    summary_a: PathBuf,
    /// System B's summary.json.
    summary_b: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Run `hunkgen compare`.
pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    let CompareArgs {
        summary_a,
        summary_b,
        json,
    } = args;
    let a = evaluate::read_summary(&summary_a)?;
    let b = evaluate::read_summary(&summary_b)?;
    let c = evaluate::compare(&a, &b)
        .map_err(|e| anyhow::anyhow!("{} vs {}: {e}", summary_a.display(), summary_b.display()))?;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&c)?)?;
    } else {
        write!(out, "{}", c.to_table())?;
    }
    Ok(())
}
