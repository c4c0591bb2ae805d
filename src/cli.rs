//! Command-line interface: clap definitions and the dispatch to library calls.

use crate::pipeline::{self, BuildOptions};
use crate::{dataset, recipe};
use anyhow::Context;
use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;

/// hunkgen builds program-repair benchmarks from real bug-fix histories.
///
/// One recipe in, one reproducible dataset directory out: multi-hunk bugs with forward
/// patches, test patches, failing tests and hunk statistics.
#[derive(Debug, Parser)]
#[command(name = "hunkgen", version, propagate_version = true)]
#[command(
    after_help = "Examples:\n  hunkgen build recipes/demo.yaml\n  hunkgen build recipes/hunk4j.yaml --output /tmp/hunk4j\n  hunkgen stats datasets/hunk4j --json\n\nExit codes: 0 success, 1 bad input or failed build, 2 usage error."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build a dataset directory from a recipe (YAML).
    ///
    /// Writes <output>/instances.jsonl (one instance per line, sorted by id, same bytes
    /// for the same inputs), <output>/dataset.yaml (the card: recipe, counts,
    /// checksums) and <output>/report/tables.md. Files are written to a temporary name
    /// and renamed, so an interrupted build never leaves a half-written file.
    Build {
        /// The recipe file; relative paths inside it are relative to the file.
        recipe: PathBuf,
        /// Write the dataset here instead of the recipe's `output` (default
        /// datasets/<name> beside the recipes directory).
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// Worker threads (default: all cores).
        #[arg(long, short)]
        jobs: Option<usize>,
        /// No progress bars and no summary table.
        #[arg(long, short)]
        quiet: bool,
        /// A project's git repository, e.g. `--repo Lang=/src/commons-lang` (repeatable;
        /// overrides the recipe). Projects without one keep AST fields null.
        #[arg(long = "repo", value_name = "NAME=PATH", value_parser = parse_repo_arg)]
        repos: Vec<(String, PathBuf)>,
    },
    /// Annotate one patch: hunk divergence, its components per pair, spatial proximity.
    ///
    /// The patch is forward (buggy → fixed) and applies to the tree given by --root or
    /// --repo/--rev, which is the buggy tree. With --reversed the patch goes fixed → buggy
    /// (Defects4J's direction) and the tree is the fixed one: the buggy files are
    /// obtained by applying the patch in memory.
    #[command(
        after_help = "Examples:\n  hunkgen annotate fix.patch --root ./checkout\n  hunkgen annotate Lang/patches/4.src.patch --reversed --repo commons-lang.git --rev fb47b96 --json"
    )]
    Annotate {
        /// The patch file (git or plain unified diff).
        patch: PathBuf,
        /// Directory holding the tree the patch applies to.
        #[arg(long, conflicts_with_all = ["repo", "rev"], required_unless_present = "repo")]
        root: Option<PathBuf>,
        /// Git repository holding the tree (read from the object database, no checkout).
        #[arg(long, requires = "rev")]
        repo: Option<PathBuf>,
        /// Revision of --repo the patch applies to.
        #[arg(long)]
        rev: Option<String>,
        /// The patch goes fixed → buggy (Defects4J); the tree is the fixed one.
        #[arg(long)]
        reversed: bool,
        /// Annotation profile: hunk4j, hunk4j-published or algorithm1.
        #[arg(long, default_value = "hunk4j", value_parser = parse_profile)]
        profile: crate::annotate::divergence::Profile,
        /// λ for proximity (default ⌊median package depth of the patch's hunks / 2⌋).
        #[arg(long)]
        lambda: Option<u32>,
        /// Print JSON instead of tables.
        #[arg(long)]
        json: bool,
    },
    /// Print a dataset's tables (HUNK4J Tables I, II and, when annotated, III).
    Stats {
        /// The dataset directory (holding instances.jsonl).
        dataset: PathBuf,
        /// Print machine-readable JSON instead of markdown.
        #[arg(long)]
        json: bool,
        /// Show the published HUNK4J figures beside computed ones that differ.
        #[arg(long)]
        compare_hunk4j: bool,
    },
}

/// Run the parsed command; errors carry their one-line context.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Build {
            recipe,
            output,
            jobs,
            quiet,
            repos,
        } => {
            if let Some(j) = jobs {
                // Only fails if a global pool already exists, which is harmless.
                let _ = rayon::ThreadPoolBuilder::new()
                    .num_threads(j)
                    .build_global();
            }
            let loaded = recipe::load(&recipe)?;
            let summary = pipeline::build(
                &loaded,
                &BuildOptions {
                    output,
                    progress: !quiet,
                    repos: repos.into_iter().collect(),
                },
            )?;
            if !quiet {
                let mut out = std::io::stdout().lock();
                let hunks: usize = summary.instances.iter().map(|i| i.stats.hunks).sum();
                let shown = summary
                    .output
                    .canonicalize()
                    .unwrap_or_else(|_| summary.output.clone());
                writeln!(
                    out,
                    "built {}: {} instances ({} hunks) from {} examined",
                    shown.display(),
                    summary.instances.len(),
                    hunks,
                    summary.examined
                )?;
                writeln!(
                    out,
                    "\n{}",
                    dataset::tables::render(&summary.instances, false)
                )?;
                if loaded.recipe.annotate.enabled {
                    write!(out, "{}", dataset::proximity_table(&summary.instances))?;
                }
                writeln!(
                    out,
                    "\nfull report: {}",
                    shown.join("report/tables.md").display()
                )?;
                for w in &summary.warnings {
                    eprintln!("warning: {w}");
                }
            }
            Ok(())
        }
        Command::Annotate {
            patch,
            root,
            repo,
            rev,
            reversed,
            profile,
            lambda,
            json,
        } => {
            let tree = match (root, repo, rev) {
                (Some(root), _, _) => crate::source::files::Tree::Dir(root),
                (None, Some(repo), Some(rev)) => crate::source::files::Tree::Git {
                    repo,
                    rev,
                    prefixes: Vec::new(),
                },
                _ => anyhow::bail!("give --root DIR, or --repo GIT with --rev REV"),
            };
            let report = crate::annotate::single::annotate_patch_file(
                &patch, tree, reversed, profile, lambda,
            )?;
            let mut out = std::io::stdout().lock();
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
            } else {
                write!(out, "{}", report.to_table())?;
            }
            Ok(())
        }
        Command::Stats {
            dataset: dir,
            json,
            compare_hunk4j,
        } => {
            let instances = dataset::read_instances(&dir)
                .with_context(|| format!("{}: not a hunkgen dataset", dir.display()))?;
            let mut out = std::io::stdout().lock();
            if json {
                let t1 = dataset::tables::table1(&instances);
                let t2: Vec<serde_json::Value> = dataset::tables::table2(&instances, false)
                    .into_iter()
                    .map(|(p, bugs, h, f)| {
                        serde_json::json!({"project": p, "bugs": bugs,
                            "hunks": {"min": h[0], "median": h[1], "mean": h[2], "max": h[3]},
                            "files": {"min": f[0], "median": f[1], "mean": f[2], "max": f[3]}})
                    })
                    .collect();
                let t3: Vec<serde_json::Value> = crate::annotate::proximity::ProximityClass::ALL
                    .iter()
                    .map(|c| {
                        let of_class: Vec<&crate::model::Instance> = instances
                            .iter()
                            .filter(|i| i.proximity.as_ref().and_then(|p| p.class) == Some(*c))
                            .collect();
                        let divs: Vec<f64> = of_class
                            .iter()
                            .filter_map(|i| i.divergence.as_ref()?.value)
                            .collect();
                        let mean = (!divs.is_empty())
                            .then(|| divs.iter().sum::<f64>() / divs.len() as f64);
                        serde_json::json!({"class": c.name(), "bugs": of_class.len(), "mean_divergence": mean})
                    })
                    .collect();
                let v = serde_json::json!({
                    "instances": instances.len(),
                    "table1": {"single_file": t1[0], "multi_file": t1[1]},
                    "table2": t2,
                    "table3": t3,
                });
                writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
            } else {
                write!(
                    out,
                    "{}",
                    dataset::tables::render(&instances, compare_hunk4j)
                )?;
            }
            Ok(())
        }
    }
}

fn parse_repo_arg(s: &str) -> Result<(String, PathBuf), String> {
    match s.split_once('=') {
        Some((name, path)) if !name.is_empty() && !path.is_empty() => {
            Ok((name.to_string(), PathBuf::from(path)))
        }
        _ => Err(format!("expected NAME=PATH, got `{s}`")),
    }
}

fn parse_profile(s: &str) -> Result<crate::annotate::divergence::Profile, String> {
    use crate::annotate::divergence::Profile;
    [
        Profile::Hunk4j,
        Profile::Hunk4jPublished,
        Profile::Algorithm1,
    ]
    .into_iter()
    .find(|p| p.name() == s)
    .ok_or_else(|| format!("unknown profile `{s}` (hunk4j, hunk4j-published, algorithm1)"))
}
