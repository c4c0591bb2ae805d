//! `hunkgen build`.

use super::{install_interrupt_handler, set_jobs};
use crate::pipeline::{self, BuildOptions};
use crate::{recipe, report};
use anyhow::Context;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

/// `hunkgen build`'s arguments.
#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// The recipe file; relative paths inside it are relative to the file.
    recipe: PathBuf,
    /// Write the dataset here instead of the recipe's `output` (default:
    /// datasets/<name> in the directory above the recipe file).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// No progress bars and no summary tables (warnings and errors still print).
    #[arg(long, short)]
    quiet: bool,
    /// Replace an output directory that holds another recipe's dataset (or is not a
    /// dataset at all).
    #[arg(long)]
    force: bool,
    /// Exit 1 when any bug or commit is rejected, leaving the previous dataset as it
    /// was (without --strict, rejections are listed in rejected.jsonl).
    #[arg(long)]
    strict: bool,
    /// Run every golden test again instead of answering from the result cache (a
    /// build otherwise resumes: runs finished before an interruption are reused), and
    /// examine, annotate and judge everything again instead of answering from the
    /// build memo (`<cache>/memo`, which makes a warm rebuild take seconds).
    #[arg(long)]
    no_cache: bool,
    /// GitHub source and the git source's `issue_labels` and `issue_types` (JIRA):
    /// answer every API request from the response cache, sending nothing (a request
    /// the cache lacks is an error).
    #[arg(long)]
    offline: bool,
    /// A project's git repository, e.g. `--repo Lang=/src/commons-lang` (repeatable;
    /// overrides --repos and the recipe). Projects without one keep AST fields null.
    /// For `source: swebench`, a row's `repo` and its clone
    /// (`--repo astropy/astropy=/src/astropy`).
    #[arg(long = "repo", value_name = "NAME=PATH", value_parser = parse_repo_arg)]
    repos: Vec<(String, PathBuf)>,
    /// A YAML map of project → repository path (`Lang: /src/commons-lang`), relative
    /// paths relative to the file; `scripts/clone-d4j-repos.sh` writes one.
    #[arg(long = "repos", value_name = "FILE")]
    repos_file: Option<PathBuf>,
    /// Build only shard K of N (`--shard 0/4`): the instances whose
    /// stable_hash(instance_id) mod N is K. Default: HUNKGEN_SHARD=K/N, else
    /// SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, else JOB_COMPLETION_INDEX with
    /// HUNKGEN_SHARD_COUNT, else the whole dataset.
    /// A shard writes <output>-shard-K-of-N (or --output) with a manifest, shard.yaml;
    /// `hunkgen merge` joins the shards.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Print each stage's wall time to stderr at the end (mine, extract, annotate,
    /// validate, necessary hunks, states, write): where a slow build spends its time.
    #[arg(long)]
    timings: bool,
}

/// `mine 0.31 s, extract 0.02 s, …, total 1.10 s`.
fn timings_line(laps: &[(&str, std::time::Duration)]) -> String {
    let total: std::time::Duration = laps.iter().map(|(_, d)| *d).sum();
    laps.iter()
        .chain(std::iter::once(&("total", total)))
        .map(|(stage, d)| format!("{stage} {:.2} s", d.as_secs_f64()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Run `hunkgen build`.
pub fn run(args: BuildArgs) -> anyhow::Result<()> {
    let BuildArgs {
        recipe,
        output,
        jobs,
        quiet,
        force,
        strict,
        no_cache,
        offline,
        repos,
        repos_file,
        shard,
        timings,
    } = args;
    install_interrupt_handler();
    let shard = crate::shard::Shard::resolve(shard.as_deref())?;
    set_jobs(jobs);
    let mut repo_map = match &repos_file {
        Some(f) => read_repos_file(f)?,
        None => BTreeMap::new(),
    };
    repo_map.extend(repos);
    let plan = recipe::load_with(&recipe, &repo_map)?;
    let summary = pipeline::build(
        &plan,
        &BuildOptions {
            output,
            progress: !quiet,
            force,
            strict,
            no_cache,
            offline,
            shard,
        },
    )?;
    let shown = summary
        .output
        .canonicalize()
        .unwrap_or_else(|_| summary.output.clone());
    print_warnings(&summary.warnings);
    if timings {
        eprintln!("timings: {}", timings_line(&summary.timings));
    }
    for note in &summary.notes {
        eprintln!("note: {note}");
    }
    if !summary.rejected.is_empty() {
        eprintln!(
            "warning: {} item(s) rejected (first: {}: {}); see {}",
            summary.rejected.len(),
            summary.rejected[0].id,
            summary.rejected[0].detail,
            shown.join("rejected.jsonl").display()
        );
    }
    let mut out = std::io::stdout().lock();
    let hunks: usize = summary.instances.iter().map(|i| i.stats.hunks).sum();
    let sampled = sample_clause(&plan, &summary);
    match &summary.funnel {
        Some(f) => writeln!(
            out,
            "built {}: {} instances ({} hunks) from {} commits walked{}: {} non-merge, {} message matched, {} touching code and tests, {} multi-hunk, {} past the commit rules, {} with fewer counted hunks once non-code hunks are skipped{sampled}; {}",
            shown.display(),
            summary.instances.len(),
            hunks,
            f.walked,
            if f.unshipped > 0 {
                format!(
                    " ({} more only on branches that never shipped, left out)",
                    f.unshipped
                )
            } else {
                String::new()
            },
            f.non_merge,
            f.message_matched,
            f.code_and_tests,
            f.multi_hunk,
            f.kept,
            f.few_counted_hunks,
            rejected_line(&summary.rejected)
        )?,
        None => writeln!(
            out,
            "built {}: {} instances ({} hunks); {} walked, {} examined, {} with fewer than {} counted hunks{sampled}, {}",
            shown.display(),
            summary.instances.len(),
            hunks,
            summary.walked,
            summary.examined,
            summary.few_counted_hunks,
            plan.min_code_hunks,
            rejected_line(&summary.rejected)
        )?,
    }
    if !quiet {
        let tables = report::Tables::compute(&summary.instances, &[], plan.annotate.is_some());
        writeln!(out, "\n{}", report::tables12_markdown(&tables, false))?;
        if let Some(a) = &tables.annotation {
            write!(out, "{}", report::table3_markdown(a))?;
        }
        if plan.validate.is_some() || plan.states.is_some() {
            write!(out, "{}", report::instances_markdown(&summary.instances))?;
        }
        writeln!(
            out,
            "\nfull report: {}",
            shown.join("report/tables.md").display()
        )?;
    }
    Ok(())
}

/// `, 2 of 5 sampled (select.sample, seed 7), 3 not_sampled` when the recipe samples.
fn sample_clause(plan: &recipe::Plan, summary: &pipeline::BuildSummary) -> String {
    let (Some(spec), Some(not_sampled)) = (&plan.sample, summary.not_sampled) else {
        return String::new();
    };
    let population = summary.examined - summary.few_counted_hunks.min(summary.examined);
    let strata = match spec.stratify_by {
        recipe::Stratify::None => String::new(),
        by => format!(", by {}", by.name()),
    };
    format!(
        ", {} of {population} sampled (select.sample, seed {}{strata}), {not_sampled} not_sampled",
        population - not_sampled.min(population),
        spec.seed
    )
}

/// Build warnings on stderr; one line for all projects without a repository, with how to
/// give them, instead of one line per project.
fn print_warnings(warnings: &[String]) {
    const NO_REPO: &str = "no repository for project ";
    let (no_repo, other): (Vec<&String>, Vec<&String>) =
        warnings.iter().partition(|w| w.starts_with(NO_REPO));
    for w in other {
        eprintln!("warning: {w}");
    }
    match no_repo.as_slice() {
        [] => {}
        [one] => eprintln!("warning: {one}"),
        many => {
            let names: Vec<String> = many
                .iter()
                .map(|w| {
                    let rest = &w[NO_REPO.len()..];
                    let name = rest.split(':').next().unwrap_or(rest);
                    let n = rest
                        .split(": ")
                        .nth(1)
                        .and_then(|t| t.split(' ').next())
                        .unwrap_or("?");
                    format!("{name} {n}")
                })
                .collect();
            eprintln!(
                "warning: no repository for {} projects (instances without AST fields: {}); give them with --repo NAME=PATH or --repos FILE (scripts/clone-d4j-repos.sh)",
                many.len(),
                names.join(", ")
            );
        }
    }
}

/// Read a `--repos` file: a YAML map of project name → repository path.
fn read_repos_file(file: &std::path::Path) -> anyhow::Result<BTreeMap<String, PathBuf>> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("{}: cannot read --repos file", file.display()))?;
    let map: BTreeMap<String, PathBuf> = serde_norway::from_str(&text).map_err(|e| {
        let place = e
            .location()
            .map(|l| format!(":{}:{}", l.line(), l.column()))
            .unwrap_or_default();
        anyhow::anyhow!(
            "{}{place}: expected a map of project name to repository path (`Lang: /src/commons-lang`): {}",
            file.display(),
            e.to_string().split(" at line ").next().unwrap_or_default()
        )
    })?;
    let base = file.parent().unwrap_or(std::path::Path::new("."));
    Ok(map
        .into_iter()
        .map(|(k, v)| {
            let v = if v.is_absolute() { v } else { base.join(v) };
            (k, v)
        })
        .collect())
}

fn parse_repo_arg(s: &str) -> Result<(String, PathBuf), String> {
    match s.split_once('=') {
        Some((name, path)) if !name.is_empty() && !path.is_empty() => {
            Ok((name.to_string(), PathBuf::from(path)))
        }
        _ => Err(format!("expected NAME=PATH, got `{s}`")),
    }
}

/// "N rejected", then how many of them answer each of the maintainer's questions
/// (not a fix, broken fix, environment, test infrastructure, timeout, …).
fn rejected_line(rejected: &[crate::model::Rejected]) -> String {
    let counts = crate::model::yield_counts(rejected);
    if counts.is_empty() {
        return format!("{} rejected", rejected.len());
    }
    let parts: Vec<String> = counts
        .iter()
        .map(|(c, n)| format!("{n} {}", c.short()))
        .collect();
    format!("{} rejected ({})", rejected.len(), parts.join(", "))
}
