//! `hunkgen judge`.

use super::set_jobs;
use crate::dataset;
use crate::evaluate::judge::{self, JudgeOptions};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// `hunkgen judge`'s arguments.
#[derive(Debug, clap::Args)]
pub struct JudgeArgs {
    /// The dataset the runs were made on (for the issue texts and the abstention rule).
    dataset: PathBuf,
    /// The runs: `hunkgen run --out` (default <dataset>/runs), one agent's directory or
    /// one run directory below it.
    #[arg(long, value_name = "DIR")]
    runs: Option<PathBuf>,
    /// The judge: a shell command (run by `sh -c` in the current directory, with your
    /// environment, not sandboxed) that reads one run's document on stdin and prints
    /// {"labels": [...]} on stdout.
    #[arg(long = "judge", value_name = "CMD")]
    command: String,
    /// Seconds the judge may take per run; then its whole process group is killed and
    /// the run's verdict is an error.
    #[arg(long, value_name = "SECS", default_value_t = judge::DEFAULT_TIMEOUT)]
    timeout: u64,
    /// Judge every run again, also those this command already judged on the same
    /// document.
    #[arg(long)]
    force: bool,
    /// Only the runs of these instances (repeatable, or comma-separated); the others keep
    /// their verdicts.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Human labels (JSON Lines: a run named by `run`, or by instance_id, agent, state,
    /// scenario and where needed tests_present and attempt; with `labels`): report the
    /// judge's precision, recall and F1 against them.
    #[arg(long, value_name = "FILE")]
    human: Option<PathBuf>,
    /// Print the summary as JSON instead of markdown tables.
    #[arg(long)]
    json: bool,
    /// Judges run at once (default: all cores).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Run `hunkgen judge`.
pub fn run(args: JudgeArgs) -> anyhow::Result<()> {
    let JudgeArgs {
        dataset: dir,
        runs,
        command,
        timeout,
        force,
        only,
        human,
        json,
        jobs,
        quiet,
    } = args;
    set_jobs(jobs);
    if command.trim().is_empty() {
        anyhow::bail!("--judge is empty: give the command that labels one run");
    }
    let runs = runs.unwrap_or_else(|| dir.join("runs"));
    let report = judge::judge(
        &dir,
        &JudgeOptions {
            runs: runs.clone(),
            command,
            timeout: Duration::from_secs(timeout),
            force,
            only,
            human,
            progress: !quiet,
        },
    )?;
    let summary_json = serde_json::to_string_pretty(&report.summary)? + "\n";
    let markdown = crate::report::judgements::markdown(&report.summary);
    dataset::write_atomic(&runs.join(judge::SUMMARY), summary_json.as_bytes())?;
    dataset::write_atomic(
        &runs.join(judge::SUMMARY).with_extension("md"),
        markdown.as_bytes(),
    )?;
    let mut out = std::io::stdout().lock();
    if json {
        out.write_all(summary_json.as_bytes())?;
    } else {
        writeln!(out, "{markdown}")?;
    }
    let mut err = std::io::stderr().lock();
    writeln!(
        err,
        "{} run(s) judged now, {} kept from earlier verdicts, {} without a trajectory; verdicts: {}",
        report.called,
        report.reused,
        report.skipped.len(),
        runs.join(judge::JUDGEMENTS).display()
    )?;
    if report.dropped > 0 {
        writeln!(
            err,
            "note: {} verdict(s) of runs no longer under {} dropped",
            report.dropped,
            runs.display()
        )?;
    }
    for e in &report.failed {
        writeln!(err, "error: {e}")?;
    }
    if !report.failed.is_empty() {
        anyhow::bail!(
            "{} of {} run(s) could not be judged (each error above; rerun to judge them again)",
            report.failed.len(),
            report.called + report.reused
        );
    }
    Ok(())
}
