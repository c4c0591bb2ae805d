//! `hunkgen reports`.

use crate::bugreports::{self, Options};
use crate::dataset;
use anyhow::Context;
use std::path::PathBuf;
use std::time::Duration;

/// `hunkgen reports`' arguments.
#[derive(Debug, clap::Args)]
pub struct ReportsArgs {
    /// The dataset directory (holding instances.jsonl).
    dataset: PathBuf,
    /// Where to write the reports (default <dataset>/reports.jsonl, which `hunkgen run`
    /// reads when it is given no --reports).
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Answer every request from the cache, sending nothing (a report the cache lacks is
    /// counted under its tracker as unreachable).
    #[arg(long)]
    offline: bool,
    /// GitHub's API root (GitHub Enterprise, or a mirror).
    #[arg(long, value_name = "URL", default_value = "https://api.github.com")]
    github_api: String,
    /// Read report URLs that start with FROM at TO instead (a mirror of a tracker):
    /// `--tracker-url https://issues.apache.org/jira=https://jira.mirror.example/jira`.
    /// Repeatable; the longest FROM wins.
    #[arg(long, value_name = "FROM=TO")]
    tracker_url: Vec<String>,
    /// The longest a tracker's `Retry-After` may be waited for, in seconds, in total.
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    max_wait: u64,
    /// Print what was done as one JSON object on stdout.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Run `hunkgen reports`.
pub fn run(args: ReportsArgs) -> anyhow::Result<()> {
    let instances = dataset::read_instances(&args.dataset)
        .with_context(|| format!("{}: not a hunkgen dataset", args.dataset.display()))?;
    let mut rewrites = Vec::new();
    for r in &args.tracker_url {
        let Some((from, to)) = r
            .split_once('=')
            .filter(|(f, t)| !f.is_empty() && !t.is_empty())
        else {
            anyhow::bail!("--tracker-url {r}: expected FROM=TO (two URL prefixes)");
        };
        rewrites.push((from.to_string(), to.to_string()));
    }
    let rows: Vec<(String, String)> = instances
        .iter()
        .map(|i| {
            let url = i.report.as_ref().map(|r| r.url.clone()).unwrap_or_default();
            (i.instance_id.clone(), url)
        })
        .collect();
    let token = |name: &str| std::env::var(name).ok().filter(|t| !t.trim().is_empty());
    let opts = Options {
        offline: args.offline,
        cache_dir: crate::recipe::default_cache_dir(),
        github_api: args.github_api.clone(),
        github_token: token("GITHUB_TOKEN"),
        jira_token: token("JIRA_TOKEN"),
        rewrites,
        max_wait: Duration::from_secs(args.max_wait),
        backoff: Duration::ZERO,
    };
    let progress = match args.quiet || args.json {
        true => crate::progress::Progress::hidden(),
        false => crate::progress::Progress::new("reports", rows.len() as u64),
    };
    let outcome = bugreports::fetch(&rows, &opts, &progress);
    progress.finish();
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| args.dataset.join("reports.jsonl"));
    dataset::write_atomic(&out, &dataset::jsonl(&outcome.fetched))
        .with_context(|| format!("{}: cannot write the reports", out.display()))?;
    for (server, (why, lost)) in &outcome.unreachable {
        eprintln!(
            "warning: {server}: unreachable, {} report(s) not fetched ({}): {why}",
            lost.len(),
            lost.join(", ")
        );
    }
    let trackers: Vec<String> = outcome
        .by_tracker
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    let unreachable: usize = outcome.unreachable.values().map(|(_, l)| l.len()).sum();
    if args.json {
        let v = serde_json::json!({
            "out": out.display().to_string(),
            "instances": rows.len(),
            "fetched": outcome.fetched.len(),
            "by_tracker": outcome.by_tracker,
            "not_found": outcome.gone,
            "no_tracker": outcome.unknown.iter().map(|(id, url)| serde_json::json!({"id": id, "url": url})).collect::<Vec<_>>(),
            "unreachable": outcome.unreachable.iter().map(|(s, (why, lost))| serde_json::json!({"server": s, "why": why, "instances": lost})).collect::<Vec<_>>(),
            "requests": outcome.requests,
            "cache_hits": outcome.cache_hits,
        });
        println!("{v}");
    } else {
        println!(
            "wrote {}: {} report(s) of {} instance(s){}; {} not found, {} with no known tracker, \
             {} unreachable; {} request(s) sent, {} answered from the cache",
            out.display(),
            outcome.fetched.len(),
            rows.len(),
            match trackers.is_empty() {
                true => String::new(),
                false => format!(" ({})", trackers.join(", ")),
            },
            outcome.gone.len(),
            outcome.unknown.len(),
            unreachable,
            outcome.requests,
            outcome.cache_hits
        );
    }
    Ok(())
}
