//! `hunkgen export`.

use crate::dataset;
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

/// `hunkgen export`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The dataset directory (holding instances.jsonl).
    dataset: PathBuf,
    /// The schema to write.
    #[arg(long, value_enum)]
    format: ExportFormat,
    /// Where to write (default <dataset>/export/swebench.jsonl, or .json with --json);
    /// `-` writes to stdout.
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,
    /// How FAIL_TO_PASS / PASS_TO_PASS are written: json-string (`"[\"t\"]"`, as
    /// published) or array.
    #[arg(long, value_enum, default_value_t = dataset::export::ListStyle::JsonString)]
    lists: dataset::export::ListStyle,
    /// One JSON list instead of JSON Lines.
    #[arg(long)]
    json: bool,
}

/// Run `hunkgen export`.
pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    let ExportArgs {
        dataset: dir,
        format: ExportFormat::Swebench,
        out,
        lists,
        json,
    } = args;
    use dataset::export::Container;
    let mut instances = dataset::read_instances(&dir)
        .with_context(|| format!("{}: not a hunkgen dataset", dir.display()))?;
    instances.sort_by_key(|i| dataset::natural_key(&i.instance_id));
    let out = out.unwrap_or_else(|| {
        dir.join(if json {
            "export/swebench.json"
        } else {
            "export/swebench.jsonl"
        })
    });
    let container = if json || out.extension().is_some_and(|e| e == "json") {
        Container::JsonList
    } else {
        Container::Jsonl
    };
    if out.as_os_str() == "-" {
        let bytes = dataset::export::swebench_bytes(&instances, lists, container);
        std::io::stdout().lock().write_all(&bytes)?;
        return Ok(());
    }
    dataset::export::write_swebench(&instances, &out, lists, container)?;
    eprintln!("{} instance(s) in SWE-bench's schema", instances.len());
    writeln!(std::io::stdout().lock(), "{}", out.display())?;
    Ok(())
}

/// Schemas `hunkgen export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// SWE-bench's instance schema (`swebench.types.SWEbenchInstance`).
    Swebench,
}
