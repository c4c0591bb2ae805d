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
    /// swebench-predictions: the system's predictions (hunkgen run's or any harness
    /// predictions file), made on --state.
    #[arg(
        long,
        value_name = "FILE",
        required_if_eq("format", "swebench-predictions")
    )]
    predictions: Option<PathBuf>,
    /// swebench-predictions: the state the predictions were made on (novel, partial,
    /// resolved); a row naming another state is left out and counted.
    #[arg(
        long,
        value_name = "STATE",
        required_if_eq("format", "swebench-predictions")
    )]
    state: Option<String>,
}

/// Run `hunkgen export`.
pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    if args.format == ExportFormat::SwebenchPredictions {
        return predictions(args);
    }
    let ExportArgs {
        dataset: dir,
        out,
        lists,
        json,
        ..
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
    let container = Container::for_output(json, &out);
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

/// `--format swebench-predictions`: the official harness's predictions, each patch made
/// on a state written as one diff from the base commit (the state's change, then the
/// patch), so the harness scores FixedBench states unchanged.
fn predictions(args: ExportArgs) -> anyhow::Result<()> {
    let (Some(file), Some(state)) = (&args.predictions, &args.state) else {
        anyhow::bail!("--format swebench-predictions needs --predictions FILE and --state STATE");
    };
    let state: crate::model::StateKind =
        state.parse().map_err(|e| anyhow::anyhow!("--state: {e}"))?;
    let preds = crate::evaluate::predictions::read(file)?;
    let export = crate::evaluate::harness::harness_predictions(&args.dataset, &preds, state)?;
    let ext = if args.json { "json" } else { "jsonl" };
    let out = args.out.clone().unwrap_or_else(|| {
        args.dataset.join(format!(
            "export/swebench-predictions-{}.{ext}",
            state.name()
        ))
    });
    let bytes = dataset::export::Container::for_output(args.json, &out).bytes(&export.rows);
    for (id, why) in &export.not_applied {
        eprintln!("{id}: the patch does not apply to the {} state ({why}); written after the state's change, so the harness fails to apply it too", state.name());
    }
    for (id, files) in &export.binary {
        eprintln!(
            "{id}: binary file(s) changed that a text diff cannot carry: {}",
            files.join(", ")
        );
    }
    if export.other_state > 0 {
        eprintln!(
            "{} prediction(s) made on another state left out",
            export.other_state
        );
    }
    if out.as_os_str() == "-" {
        std::io::stdout().lock().write_all(&bytes)?;
        return Ok(());
    }
    dataset::write_atomic(&out, &bytes)
        .with_context(|| format!("{}: cannot write", out.display()))?;
    eprintln!(
        "{} prediction(s) for the official harness on the {} state",
        export.rows.len(),
        state.name()
    );
    writeln!(std::io::stdout().lock(), "{}", out.display())?;
    Ok(())
}

/// Schemas `hunkgen export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// SWE-bench's instance schema (`swebench.types.SWEbenchInstance`).
    Swebench,
    /// The official harness's predictions file, for patches made on a state (needs
    /// --predictions and --state).
    SwebenchPredictions,
}
