//! `hunkgen evaluate`.

use super::set_jobs;
use crate::dataset;
use std::io::Write;
use std::path::PathBuf;

/// `hunkgen evaluate`'s arguments.
#[derive(Debug, clap::Args)]
pub struct EvaluateArgs {
    /// The dataset directory.
    dataset: PathBuf,
    /// Predictions: JSON Lines, a JSON list, or an object keyed by instance_id, with
    /// instance_id, model_name_or_path, model_patch and an optional state and scenario
    /// (`hunkgen run` writes both).
    #[arg(
        long,
        required_unless_present_any = ["baseline", "localizations"],
        conflicts_with_all = ["baseline", "localizations"]
    )]
    predictions: Option<PathBuf>,
    /// Score predicted fault locations instead (RepoFixEval): JSON Lines
    /// {"instance_id", "files": [..], "lines": ["path:line", ..]}; file- and line-level
    /// precision, recall and F1 against the golden changed lines (no test runs).
    #[arg(long, conflicts_with = "baseline", value_name = "FILE")]
    localizations: Option<PathBuf>,
    /// Score a built-in baseline instead: gold (golden patches on Novel), empty (no
    /// change on every state), partial (the Partial states' hunks on Novel; for a
    /// Defects4J bug without states, its largest proper subset of counted hunks).
    #[arg(long, value_enum)]
    baseline: Option<crate::evaluate::predictions::Baseline>,
    /// The state of predictions that do not name one (default novel).
    #[arg(long, value_enum)]
    state: Option<crate::model::StateKind>,
    /// The scenario of predictions that do not name one, recorded in results.jsonl
    /// (without it such rows say `unspecified`).
    #[arg(long, value_enum)]
    scenario: Option<crate::model::Scenario>,
    /// Score only the predictions of these instances (repeatable, or comma-separated),
    /// as `hunkgen run --only` runs only them: e.g. the instances given as Partial, for
    /// FixedBench's Partial control on their Novel versions.
    #[arg(long, value_delimiter = ',', conflicts_with = "localizations")]
    only: Vec<String>,
    /// Where results.jsonl and summary.json go.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Score only the predictions of shard K of N (`--shard 0/4`): those whose
    /// stable_hash(instance_id) mod N is K. Default: HUNKGEN_SHARD=K/N, else
    /// SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, else JOB_COMPLETION_INDEX with
    /// HUNKGEN_SHARD_COUNT, else all. A shard writes
    /// <dataset>/evaluations/<model>-shard-K-of-N (or --output) with a manifest,
    /// shard.yaml; `hunkgen merge` joins the shards into what one evaluation writes.
    #[arg(long, value_name = "K/N", conflicts_with = "localizations")]
    shard: Option<String>,
    /// Seconds each test run (each Defects4J call) may take, instead of the recipe's
    /// validate.timeout; a run that takes longer is reported as a timeout.
    #[arg(long, value_name = "SECONDS", conflicts_with = "localizations")]
    timeout: Option<u64>,
    /// Run no test: take each prediction's test outcome from the official SWE-bench
    /// harness's reports (DIR/<instance_id>/report.json, the model directory of one
    /// harness run on `hunkgen export --format swebench-predictions`), and score
    /// resolution, abstention and every table as a native evaluation does.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["localizations", "shard"])]
    harness_report: Option<PathBuf>,
    /// Window lengths of the trajectory analytics' category n-grams (comma-separated,
    /// each 1 to 30; default 2,3,4,5): e.g. `--ngram-windows 2,3,8` for 8-step patterns.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "N,..",
        value_parser = clap::value_parser!(u8).range(1..=30),
        conflicts_with = "localizations"
    )]
    ngram_windows: Vec<u8>,
}

/// Run `hunkgen evaluate`.
pub fn run(args: EvaluateArgs) -> anyhow::Result<()> {
    let EvaluateArgs {
        dataset: dir,
        predictions,
        localizations,
        baseline,
        state,
        scenario,
        only,
        output,
        jobs,
        quiet,
        shard,
        timeout,
        harness_report,
        ngram_windows,
    } = args;
    set_jobs(jobs);
    if let Some(file) = localizations {
        let out_dir = output.unwrap_or_else(|| dir.join("evaluations/localization"));
        let s = crate::evaluate::score::evaluate_localizations(&dir, &file, &out_dir)?;
        let prf = |x: Option<crate::model::Scores>| match x {
            Some(x) => format!("P {:.3} R {:.3} F1 {:.3}", x.precision, x.recall, x.f1),
            None => "– (nothing golden)".to_string(),
        };
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "{} instance(s): mean file-level F1 {:.3}, mean line-level F1 {:.3} (per instance)\n\
             pooled, RepoFixEval's one set: files {}; lines {}\nresults: {}",
            s.rows.len(),
            s.mean_files_f1,
            s.mean_lines_f1,
            prf(s.pooled_files),
            prf(s.pooled_lines),
            out_dir.join("localization.jsonl").display()
        )?;
        return Ok(());
    }
    let shard = crate::shard::Shard::resolve(shard.as_deref())?;
    let file = match (predictions, baseline) {
        (Some(p), _) => p,
        (None, Some(b)) => {
            let instances = dataset::read_instances(&dir)?;
            if instances.is_empty() {
                anyhow::bail!(
                    "{}: the dataset has no instances, so the {} baseline has nothing to score (its rejections are in rejected.jsonl)",
                    dir.display(),
                    b.name()
                );
            }
            let preds = crate::evaluate::predictions::baseline(b, &instances, &dir);
            let path = dir.join("evaluations").join(format!("{}.jsonl", b.name()));
            let rows: Vec<serde_json::Value> = preds
                .iter()
                .map(|p| {
                    serde_json::json!({"instance_id": p.instance_id,
                        "model_name_or_path": p.model_name_or_path,
                        "model_patch": p.model_patch, "state": p.state})
                })
                .collect();
            dataset::write_atomic(&path, &dataset::jsonl(&rows))?;
            path
        }
        (None, None) => anyhow::bail!("give --predictions FILE or --baseline NAME"),
    };
    let ev = crate::evaluate::score::evaluate(
        &dir,
        &file,
        &crate::evaluate::score::EvaluateOptions {
            state,
            scenario,
            only,
            output,
            progress: !quiet,
            shard,
            timeout,
            harness_report,
            ngram_windows: ngram_windows.into_iter().map(usize::from).collect(),
        },
    )?;
    let mut out = std::io::stdout().lock();
    write!(out, "{}", crate::evaluate::score::table(&ev.summary))?;
    writeln!(
        out,
        "results: {}",
        ev.output.join("results.jsonl").display()
    )?;
    Ok(())
}
