//! Command-line interface: clap definitions and the dispatch to library calls.

use crate::annotate::divergence::Profile;
use crate::annotate::proximity::PackageRule;
use crate::model::{Scenario, StateKind};
use crate::pipeline::{self, BuildOptions};
use crate::shard::{self, Merged};
use crate::source::Tree;
use crate::states::checkout::{self as state_checkout, Checkout};
use crate::validate::revalidate::{self, RevalidateOptions, VALIDATION_ROWS};
use crate::{dataset, evaluate, recipe, report, states};
use anyhow::Context;
use clap::{Parser, Subcommand};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

/// hunkgen builds program-repair benchmarks from real bug-fix histories.
///
/// One recipe in, one reproducible dataset directory out: multi-hunk bugs with forward
/// patches, test patches, failing tests and hunk statistics.
#[derive(Debug, Parser)]
#[command(name = "hunkgen", version, propagate_version = true)]
#[command(
    after_help = "Examples:\n  hunkgen build recipes/demo.yaml\n  hunkgen build recipes/hunk4j.yaml --output /tmp/hunk4j\n  hunkgen stats datasets/hunk4j --json\n  hunkgen evaluate datasets/demo --baseline gold\n  hunkgen compare a/summary.json b/summary.json\n  hunkgen checkout datasets/demo <id> --state partial --scenario best /tmp/state\n  hunkgen report datasets/demo --results datasets/demo/evaluations/baseline-gold\n  hunkgen export datasets/demo --format swebench\n\nExit codes: 0 success, 1 bad input or failed build, 2 usage error, 130 interrupted."
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
    /// for the same inputs), rejected.jsonl (items that could not be read, with the
    /// reason), pairs.csv, dataset.yaml (the card: recipe, counts, checksums) and
    /// report/tables.md + tables.json. The dataset changes as a whole: the build writes a
    /// hidden sibling directory and swaps it in at the end, so an interrupted build
    /// (Ctrl-C exits 130) leaves the previous dataset intact.
    ///
    /// The output directory is the recipe's `output`, else datasets/<name> in the
    /// directory above the recipe file (recipes/demo.yaml → datasets/demo).
    #[command(
        after_help = "Examples:\n  hunkgen build recipes/demo.yaml\n  hunkgen build recipes/hunk4j.yaml --repos repos.yaml\n  hunkgen build recipes/hunk4j.yaml --repo Lang=/src/commons-lang -o /tmp/hunk4j"
    )]
    Build {
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
        /// build otherwise resumes: runs finished before an interruption are reused).
        #[arg(long)]
        no_cache: bool,
        /// GitHub source: answer every API request from the response cache, sending
        /// nothing (a request the cache lacks is an error).
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
    },
    /// Annotate one patch: hunk divergence, its components per pair, spatial proximity.
    ///
    /// The patch is forward (buggy → fixed) and applies to the tree given by --root or
    /// --repo/--rev, which is the buggy tree. With --reversed the patch goes fixed → buggy
    /// (Defects4J's direction) and the tree is the fixed one: the buggy files are
    /// obtained by applying the patch in memory. Without a tree, what needs no sources is
    /// computed (hunk counts, D_lex, D_file) and the rest is reported as missing.
    #[command(
        after_help = "Examples:\n  hunkgen annotate fix.patch --root ./checkout\n  hunkgen annotate fix.patch                  # D_lex and D_file only\n  hunkgen annotate Lang/patches/4.src.patch --reversed --repo commons-lang.git --rev fb47b96 --json"
    )]
    Annotate {
        /// The patch file (git or plain unified diff).
        patch: PathBuf,
        /// Directory holding the tree the patch applies to.
        #[arg(long, conflicts_with_all = ["repo", "rev"])]
        root: Option<PathBuf>,
        /// Git repository holding the tree (read from the object database, no checkout).
        #[arg(long, requires = "rev")]
        repo: Option<PathBuf>,
        /// Revision of --repo the patch applies to.
        #[arg(long, requires = "repo")]
        rev: Option<String>,
        /// The patch goes fixed → buggy (Defects4J); the tree is the fixed one.
        #[arg(long)]
        reversed: bool,
        /// Annotation profile (DESIGN §4).
        #[arg(long, value_enum, default_value_t = Profile::Hunk4j)]
        profile: Profile,
        /// λ for proximity (default ⌊median package depth of the patch's hunks / 2⌋).
        #[arg(long)]
        lambda: Option<u32>,
        /// How hunk packages are found: `modules` (Java `package`, Python dotted
        /// package), `directories` (HUNK4J: directories minus the first), or `auto`
        /// (directories with --reversed, i.e. Defects4J patches; else modules).
        #[arg(long, value_enum, default_value_t = PackageRule::Auto)]
        packages: PackageRule,
        /// Print JSON instead of tables.
        #[arg(long)]
        json: bool,
    },
    /// Run a dataset's golden tests again and compare with its recorded labels.
    ///
    /// For each instance (or those given with --only): the base, base + test patch and
    /// base + test patch + patch are tested again as the dataset's recipe says, and
    /// FAIL_TO_PASS / PASS_TO_PASS are compared with the recorded ones. Prints one row per
    /// instance — confirmed, changed, flaky or broken — and exits 1 when any changed or
    /// broke. Runs are answered from the result cache when nothing they depend on
    /// changed (an unchanged dataset re-validates at once); --no-cache runs everything.
    /// With --output DIR the rows also go to DIR/validate.jsonl; a shard (--shard K/N)
    /// writes DIR (default <dataset>/validations/validate-shard-K-of-N) with its manifest,
    /// shard.yaml, and `hunkgen merge` joins the shards' rows in the dataset's order.
    #[command(
        after_help = "Examples:\n  hunkgen validate datasets/demo\n  hunkgen validate datasets/demo --only acme-5d04f4b5e53d --no-cache\n  hunkgen validate datasets/demo --json\n  hunkgen validate datasets/demo --shard 0/2   # and 1/2, then:\n  hunkgen merge datasets/demo/validations/all datasets/demo/validations/validate-shard-*-of-2"
    )]
    Validate {
        /// The dataset directory.
        dataset: PathBuf,
        /// Only these instances (repeatable, or comma-separated).
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
        /// Run every test again instead of answering from the result cache.
        #[arg(long)]
        no_cache: bool,
        /// Worker threads (default: all cores).
        #[arg(long, short)]
        jobs: Option<usize>,
        /// Print JSON Lines (one object per instance) instead of a table.
        #[arg(long)]
        json: bool,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
        /// Also write the rows to DIR/validate.jsonl (a shard: DIR with shard.yaml).
        #[arg(long, short, value_name = "DIR")]
        output: Option<PathBuf>,
        /// Work only on shard K of N (`--shard 0/4`): the instances whose
        /// stable_hash(instance_id) mod N is K. Default: HUNKGEN_SHARD=K/N, else
        /// SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, else JOB_COMPLETION_INDEX with
        /// HUNKGEN_SHARD_COUNT, else the whole dataset.
        #[arg(long, value_name = "K/N")]
        shard: Option<String>,
    },
    /// Join shard directories of `hunkgen build`, `validate`, `evaluate` or `run --shard
    /// K/N` into what one machine writes.
    ///
    /// The kind comes from each shard's manifest (shard.yaml); shards of different
    /// commands are refused. Also refused: shards of different recipes (build), datasets,
    /// predictions (evaluate) or agents, states and prompt variants (run), tool versions
    /// or shard counts, a missing or doubled shard, an instance in two shards or in the
    /// wrong one, and partial shards (no complete shard.yaml, or files that do not match
    /// its checksums). A build merge writes the one-machine build byte for byte
    /// (instances.jsonl, pairs.csv, rejected.jsonl, report/, logs/, states/); in
    /// dataset.yaml only built_at differs (the latest shard's build time). An evaluate
    /// merge writes results.jsonl and summary.json (recomputed from all rows) as one
    /// evaluation does, and copies logs/; a run merge writes predictions.jsonl in the
    /// dataset's order and copies each instance's directory (whose prompt.md names the
    /// shard's directory; a later run into the merged directory reuses every result); a
    /// validate merge writes validate.jsonl, the shards' rows in the dataset's order.
    /// Validate, evaluate and run merges read the dataset (and the predictions) where
    /// the shards read them. The shards' hosts are printed.
    #[command(
        after_help = "Examples:\n  hunkgen merge datasets/demo shards/0 shards/1 shards/2 shards/3\n  hunkgen merge datasets/demo shards/*\n  hunkgen merge datasets/demo/evaluations/baseline-gold datasets/demo/evaluations/baseline-gold-shard-*-of-4\n  hunkgen merge datasets/demo/runs/oracle/novel-best datasets/demo/runs-shard-*-of-4/oracle/novel-best\n  hunkgen merge datasets/demo/validations/all datasets/demo/validations/validate-shard-*-of-4"
    )]
    Merge {
        /// The directory to write (replaced as a whole, like a build's): a dataset, an
        /// evaluation's output, a run's `<agent>/<state>-<scenario>` directory or a
        /// validation's (validate.jsonl).
        output: PathBuf,
        /// The shard directories, in any order.
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        /// Replace an output directory that holds something else.
        #[arg(long)]
        force: bool,
    },
    /// Materialize one repository state of an instance (FixedBench) into a directory.
    ///
    /// States: novel = the buggy base; partial = the base with a proper, non-empty subset
    /// of the golden code hunks (the largest that applies, or --partial-patches
    /// DIR/<id>.patch); resolved = the base with the golden patch. Scenarios: best = a git
    /// repository whose history ends at the state (for resolved, its last commit is the
    /// real fix's message, author and date), written as a pack of exactly that history and
    /// refused unless it passes the leak gate (no fix commit, tags, remotes, reflogs,
    /// unreachable objects or later commits; `git log --all -S` finds no line of the fix);
    /// worst = a plain directory without .git. The golden test patch is applied only with
    /// --with-tests.
    ///
    /// The state is written next to <dir>, checked, then renamed to <dir>; the manifest
    /// (instance, state, expected behaviour, hunks applied, golden tests, gate checks) is
    /// printed as YAML on stdout, and written to --manifest FILE if given. The source
    /// repository is the one recorded in the dataset card (git sources), or --repo.
    #[command(
        after_help = "Examples (make demo builds datasets/demo):\n  hunkgen checkout datasets/demo acme-14c2831b2f4c --state partial --scenario best /tmp/p\n  hunkgen checkout datasets/demo acme-14c2831b2f4c --state resolved --scenario worst \\\n      --with-tests /tmp/w\n  hunkgen checkout datasets/demo acme-14c2831b2f4c --state novel --scenario best \\\n      --manifest /tmp/n.yaml /tmp/n"
    )]
    Checkout {
        /// The dataset directory (holding instances.jsonl and dataset.yaml).
        dataset: PathBuf,
        /// The instance id.
        id: String,
        /// Which state.
        #[arg(long, value_enum)]
        state: StateKind,
        /// Which scenario.
        #[arg(long, value_enum)]
        scenario: Scenario,
        /// Apply the golden test patch too (the "tests already present" variant).
        #[arg(long)]
        with_tests: bool,
        /// Partial states from DIR/<instance_id>.patch instead of a subset of the golden hunks.
        #[arg(long, value_name = "DIR")]
        partial_patches: Option<PathBuf>,
        /// The source repository (default: the one the dataset card records).
        #[arg(long, value_name = "PATH")]
        repo: Option<PathBuf>,
        /// Also write the manifest to this file.
        #[arg(long, value_name = "FILE")]
        manifest: Option<PathBuf>,
        /// Where the state goes; must not exist or be an empty directory.
        dir: PathBuf,
    },
    /// Compare two systems' evaluation summaries of the same dataset (McNemar's test).
    ///
    /// Pairs the outcomes (instance and state) both summary.json files have and prints,
    /// for resolution and for abstention, both rates with 95% Wilson intervals, the
    /// discordant counts b (A has it, B does not) and c (the reverse) and the two-sided
    /// exact McNemar p-value. Outcomes only one summary has are left out and counted.
    /// Summaries of different datasets (dataset_sha256) are refused.
    #[command(
        after_help = "Examples:\n  hunkgen compare results/a/summary.json results/b/summary.json\n  hunkgen compare a.json b.json --json"
    )]
    Compare {
        /// System A's summary.json.
        summary_a: PathBuf,
        /// System B's summary.json.
        summary_b: PathBuf,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Score a system's patches on a dataset's states.
    ///
    /// Each prediction's patch is applied to its state (exactly, else by a 3-way merge
    /// from its own base blob, else with offset and fuzz; which is reported), the golden tests are run in the sandbox as the dataset's
    /// recipe says, and graded with SWE-bench's rules (FULL / PARTIAL / NO). Also
    /// measured: abstention (the patch is empty once tests, docs, non-code files, comments
    /// and docstrings are dropped — the FixedBench rule), localization (golden files ⊆
    /// patched files; golden hunks touched; line-level precision/recall/F1), compilation,
    /// and regression (failing tests before − after). Writes results.jsonl and
    /// summary.json (rates with 95% Wilson intervals, by proximity class, divergence
    /// quartile, state and project) to <dataset>/evaluations/<model>/ or --output.
    /// Per-prediction problems (unknown instance, duplicate, not a diff, does not apply)
    /// are counted, not fatal.
    #[command(
        after_help = "Examples:\n  hunkgen evaluate datasets/demo --predictions preds.jsonl\n  hunkgen evaluate datasets/demo --predictions preds.json --state resolved\n  hunkgen evaluate datasets/demo --baseline gold      # sanity baselines: gold, empty, partial\n  hunkgen evaluate datasets/demo --baseline gold --shard 0/4   # one shard of four\n  hunkgen merge datasets/demo/evaluations/baseline-gold \\\n      datasets/demo/evaluations/baseline-gold-shard-*-of-4"
    )]
    Evaluate {
        /// The dataset directory.
        dataset: PathBuf,
        /// Predictions: JSON Lines, a JSON list, or an object keyed by instance_id, with
        /// instance_id, model_name_or_path, model_patch and an optional state.
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
        /// change on every state), partial (the Partial states' hunks on Novel).
        #[arg(long, value_enum)]
        baseline: Option<crate::evaluate::predictions::Baseline>,
        /// The state of predictions that do not name one (default novel).
        #[arg(long, value_enum)]
        state: Option<crate::model::StateKind>,
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
    },
    /// Write a dataset's report as one self-contained HTML page.
    ///
    /// The page (default <dataset>/report/index.html) shows the dataset card, the build
    /// funnel with rejections by reason, Tables I–III, the divergence histogram and its
    /// components, proximity classes, and a searchable table of instances, each with its
    /// hunks, patch and links to its test logs. With --results (results.jsonl of
    /// `hunkgen evaluate`, or a directory holding it and summary.json): resolution by
    /// proximity class and divergence quartile, abstention by state and, for several
    /// systems, which solved which tasks. Results of another dataset are refused. The
    /// page fetches nothing (inline CSS and SVG); it is written atomically and its path
    /// printed.
    #[command(
        after_help = "Examples (make demo builds datasets/demo):\n  hunkgen report datasets/demo\n  hunkgen report datasets/demo --results runs/gpt/results.jsonl --results runs/agentless/\n  hunkgen report datasets/hunk4j -o /tmp/hunk4j.html"
    )]
    Report {
        /// The dataset directory (holding instances.jsonl, dataset.yaml).
        dataset: PathBuf,
        /// A system's results.jsonl, or a directory holding it (and summary.json);
        /// repeatable, one per system.
        #[arg(long = "results", value_name = "FILE|DIR")]
        results: Vec<PathBuf>,
        /// Write the page here instead of <dataset>/report/index.html.
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Write a dataset's instances in another benchmark's schema (SWE-bench).
    ///
    /// `--format swebench` writes exactly SWE-bench's twelve fields per instance, in its
    /// order (repo, instance_id, base_commit, patch, test_patch, problem_statement,
    /// hints_text, created_at, version, FAIL_TO_PASS, PASS_TO_PASS,
    /// environment_setup_commit), with the test lists as JSON-encoded strings as the
    /// published datasets store them (`--lists array` for plain arrays). hunkgen's own
    /// fields (hunks, divergence, states, …) are left out; `source: swebench` reads the
    /// file back. JSON Lines by default, one JSON list with --json (the default when
    /// --out ends in .json). The file is written to a temporary name and renamed.
    #[command(
        after_help = "Examples (make demo builds datasets/demo):\n  hunkgen export datasets/demo --format swebench\n  hunkgen export datasets/demo --format swebench --out demo.swebench.jsonl\n  hunkgen export datasets/demo --format swebench --out demo.json --lists array\n  hunkgen export datasets/demo --format swebench --out - | head -c 300"
    )]
    Export {
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
    /// Run a coding agent on a dataset's states and collect its patches as predictions.
    ///
    /// For each instance (or those given with --only): the state (built by the recipe's
    /// `states:`) is copied into a fresh working directory and snapshotted in a git
    /// directory outside it; the prompt (problem statement, failing tests, optional file
    /// or hunk hints, or the `hunkgen mcp` server) is written; the agent's command runs in
    /// the sandbox with its timeout (the whole process tree killed at it); its patch is
    /// the diff of the working directory against the snapshot. Writes
    /// <out>/<agent>/<state>-<scenario>/predictions.jsonl (SWE-bench form, for `hunkgen
    /// evaluate`) and, per instance, prompt.md, stdout.log, stderr.log, model.patch,
    /// trajectory.jsonl (normalized) and result.json (outcome, exit code, time). An
    /// instance whose agent, prompt and state are unchanged is not run again.
    #[command(
        after_help = "Examples (make demo builds datasets/demo):\n  hunkgen run datasets/demo --agents demo/agents/agents.yaml --agent oracle --state novel\n  hunkgen run datasets/demo --agents agents.yaml --agent claude --prompt-variant mcp --jobs 2\n  hunkgen evaluate datasets/demo --predictions datasets/demo/runs/oracle/novel-best/predictions.jsonl\n  hunkgen run datasets/demo --agents demo/agents/agents.yaml --agent oracle --shard 0/4\n  hunkgen merge datasets/demo/runs/oracle/novel-best \\\n      datasets/demo/runs-shard-*-of-4/oracle/novel-best"
    )]
    Run {
        /// The dataset directory (built with `states:`).
        dataset: PathBuf,
        /// The agents file: a YAML map of name → command, env, network, trajectory, timeout.
        #[arg(long, value_name = "FILE")]
        agents: PathBuf,
        /// Which agent of the file.
        #[arg(long)]
        agent: String,
        /// Which state.
        #[arg(long, value_enum, default_value_t = StateKind::Novel)]
        state: StateKind,
        /// Which scenario.
        #[arg(long, value_enum, default_value_t = Scenario::Best)]
        scenario: Scenario,
        /// Only these instances (repeatable, or comma-separated).
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
        /// Agents run at once (default: all cores).
        #[arg(long, short)]
        jobs: Option<usize>,
        /// Timeout per instance in seconds (overrides the agent's `timeout`).
        #[arg(long)]
        timeout: Option<u64>,
        /// What the prompt gives beyond the problem and failing tests.
        #[arg(long, value_enum, default_value_t = crate::run::PromptVariant::Plain)]
        prompt_variant: crate::run::PromptVariant,
        /// Output root (default <dataset>/runs).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Run every instance again instead of reusing results of the same key.
        #[arg(long)]
        no_cache: bool,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
        /// Run only the instances of shard K of N (`--shard 0/4`): those whose
        /// stable_hash(instance_id) mod N is K. Default: HUNKGEN_SHARD=K/N, else
        /// SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, else JOB_COMPLETION_INDEX with
        /// HUNKGEN_SHARD_COUNT, else all. A shard writes under <dataset>/runs-shard-K-of-N
        /// (or --out), with a manifest, shard.yaml, next to its predictions.jsonl;
        /// `hunkgen merge` joins the shards.
        #[arg(long, value_name = "K/N")]
        shard: Option<String>,
    },
    /// Serve repository context to a coding agent over MCP (stdio): find classes,
    /// methods and code, class skeletons and the directory structure.
    #[command(
        after_help = "The server speaks the Model Context Protocol's stdio transport: one JSON-RPC message per line on stdin, answers on stdout, logs on stderr. Register it with an agent, e.g. Claude Code:\n  claude mcp add hunkgen -- hunkgen mcp --root /path/to/checkout\nTools: find_method_in_class, find_class_in_file, find_method_in_file, find_code_in_file, get_class_skeleton, find_class, find_method, find_code, get_repository_structure."
    )]
    Mcp {
        /// The repository checkout the tools read (Java and Python files).
        #[arg(long, default_value = ".")]
        root: PathBuf,
    },
}

/// Schemas `hunkgen export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// SWE-bench's instance schema (`swebench.types.SWEbenchInstance`).
    Swebench,
}

/// Run the parsed command; errors carry their one-line context.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Build {
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
        } => {
            install_interrupt_handler();
            let shard =
                crate::shard::Shard::resolve(shard.as_deref()).map_err(anyhow::Error::msg)?;
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
            match &summary.funnel {
                Some(f) => writeln!(
                    out,
                    "built {}: {} instances ({} hunks) from {} commits walked: {} non-merge, {} message matched, {} touching code and tests, {} multi-hunk, {} past the commit rules, {} with fewer counted hunks once non-code hunks are skipped; {} rejected",
                    shown.display(),
                    summary.instances.len(),
                    hunks,
                    f.walked,
                    f.non_merge,
                    f.message_matched,
                    f.code_and_tests,
                    f.multi_hunk,
                    f.kept,
                    f.few_counted_hunks,
                    summary.rejected.len()
                )?,
                None => writeln!(
                    out,
                    "built {}: {} instances ({} hunks); {} walked, {} examined, {} with fewer than {} counted hunks, {} rejected",
                    shown.display(),
                    summary.instances.len(),
                    hunks,
                    summary.walked,
                    summary.examined,
                    summary.few_counted_hunks,
                    plan.min_code_hunks,
                    summary.rejected.len()
                )?,
            }
            if !quiet {
                let tables =
                    report::Tables::compute(&summary.instances, &[], plan.annotate.is_some());
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
        Command::Merge {
            output,
            shards,
            force,
        } => {
            install_interrupt_handler();
            let merged = shard::merge(&output, &shards, force)?;
            let mut out = std::io::stdout().lock();
            match merged {
                Merged::Build(summary) => {
                    writeln!(
                        out,
                        "merged {} shard(s) into {}: {} instances, {} rejected; built on {}",
                        shards.len(),
                        summary.output.display(),
                        summary.instances,
                        summary.rejected,
                        summary.hosts.join(", ")
                    )?;
                }
                Merged::Evaluation {
                    evaluation: ev,
                    hosts,
                } => {
                    write!(out, "{}", crate::evaluate::score::table(&ev.summary))?;
                    writeln!(
                        out,
                        "merged {} evaluation shard(s) into {}: {} result(s); run on {}",
                        shards.len(),
                        ev.output.display(),
                        ev.results.len(),
                        hosts.join(", ")
                    )?;
                }
                Merged::Validation(merged) => {
                    let count = |s: &str| merged.statuses.get(s).copied().unwrap_or(0);
                    writeln!(
                        out,
                        "merged {} validation shard(s) into {}: {} confirmed, {} changed, {} flaky, {} broken; run on {}",
                        shards.len(),
                        output.join(VALIDATION_ROWS).display(),
                        count("confirmed"),
                        count("changed"),
                        count("flaky"),
                        count("broken"),
                        merged.hosts.join(", ")
                    )?;
                }
                Merged::Run { count, hosts } => {
                    writeln!(
                        out,
                        "merged {} run shard(s) into {}: {count} instance(s); run on {}\npredictions: {}",
                        shards.len(),
                        output.display(),
                        hosts.join(", "),
                        output.join("predictions.jsonl").display()
                    )?;
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
            packages,
            json,
        } => {
            let tree = match (root, repo, rev) {
                (Some(root), _, _) => Some(Tree::Dir(root)),
                (None, Some(repo), Some(rev)) => Some(Tree::Git {
                    repo,
                    rev,
                    prefixes: Vec::new(),
                }),
                _ => None,
            };
            let report = crate::annotate::single::annotate_patch_file(
                &patch, tree, reversed, profile, lambda, packages,
            )?;
            let mut out = std::io::stdout().lock();
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
            } else {
                write!(out, "{}", report.to_table())?;
            }
            Ok(())
        }
        Command::Validate {
            dataset: dir,
            only,
            no_cache,
            jobs,
            json,
            quiet,
            output,
            shard,
        } => {
            set_jobs(jobs);
            let shard =
                crate::shard::Shard::resolve(shard.as_deref()).map_err(anyhow::Error::msg)?;
            let rows = revalidate::validate_dataset(
                &dir,
                &only,
                output,
                &RevalidateOptions {
                    progress: !quiet,
                    no_cache,
                    shard,
                },
            )?;
            let mut out = std::io::stdout().lock();
            if json {
                for r in &rows {
                    writeln!(out, "{}", serde_json::to_string(r)?)?;
                }
            } else {
                writeln!(
                    out,
                    "| instance | status | runs (cached/executed) | detail |"
                )?;
                writeln!(out, "|---|---|---|---|")?;
                for r in &rows {
                    writeln!(
                        out,
                        "| {} | {} | {}/{} | {} |",
                        r.instance_id, r.status, r.cached_runs, r.executed_runs, r.detail
                    )?;
                }
                let count = |s: &str| rows.iter().filter(|r| r.status == s).count();
                writeln!(
                    out,
                    "\n{} confirmed, {} changed, {} flaky, {} broken",
                    count("confirmed"),
                    count("changed"),
                    count("flaky"),
                    count("broken")
                )?;
            }
            let bad = rows
                .iter()
                .filter(|r| r.status == "changed" || r.status == "broken")
                .count();
            if bad > 0 {
                anyhow::bail!(
                    "{bad} of {} instance(s) changed or broke since the dataset was built",
                    rows.len()
                );
            }
            Ok(())
        }
        Command::Checkout {
            dataset,
            id,
            state,
            scenario,
            with_tests,
            partial_patches,
            repo,
            manifest,
            dir,
        } => {
            let manifest = state_checkout::checkout(&Checkout {
                dataset,
                id,
                state,
                scenario,
                with_tests,
                partial_patches,
                repo,
                manifest,
                target: dir,
            })?;
            let mut out = std::io::stdout().lock();
            write!(out, "{}", states::manifest_yaml(&manifest))?;
            Ok(())
        }
        Command::Compare {
            summary_a,
            summary_b,
            json,
        } => {
            let a = evaluate::read_summary(&summary_a)?;
            let b = evaluate::read_summary(&summary_b)?;
            let c = evaluate::compare(&a, &b).map_err(|e| {
                anyhow::anyhow!("{} vs {}: {e}", summary_a.display(), summary_b.display())
            })?;
            let mut out = std::io::stdout().lock();
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&c)?)?;
            } else {
                write!(out, "{}", c.to_table())?;
            }
            Ok(())
        }
        Command::Evaluate {
            dataset: dir,
            predictions,
            localizations,
            baseline,
            state,
            output,
            jobs,
            quiet,
            shard,
        } => {
            set_jobs(jobs);
            if let Some(file) = localizations {
                let out_dir = output.unwrap_or_else(|| dir.join("evaluations/localization"));
                let (rows, files_f1, lines_f1) =
                    crate::evaluate::score::evaluate_localizations(&dir, &file, &out_dir)?;
                let mut out = std::io::stdout().lock();
                writeln!(
                    out,
                    "{} instance(s): mean file-level F1 {files_f1:.3}, mean line-level F1 {lines_f1:.3}\nresults: {}",
                    rows.len(),
                    out_dir.join("localization.jsonl").display()
                )?;
                return Ok(());
            }
            let shard =
                crate::shard::Shard::resolve(shard.as_deref()).map_err(anyhow::Error::msg)?;
            let file = match (predictions, baseline) {
                (Some(p), _) => p,
                (None, Some(b)) => {
                    let instances = dataset::read_instances(&dir)?;
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
                    output,
                    progress: !quiet,
                    shard,
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
        Command::Report {
            dataset: dir,
            results,
            output,
        } => {
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
            let page = report::page::Page::load(&dir, &out, &results)?;
            for s in page.systems.iter().filter(|s| s.unknown > 0) {
                eprintln!(
                    "warning: {}: {} row(s) of `{}` name instances this dataset lacks; left out",
                    s.file.display(),
                    s.unknown,
                    s.name
                );
            }
            dataset::write_atomic(&out, report::html::render(&page).as_bytes())?;
            writeln!(std::io::stdout().lock(), "{}", out.display())?;
            Ok(())
        }
        Command::Export {
            dataset: dir,
            format: ExportFormat::Swebench,
            out,
            lists,
            json,
        } => {
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
        Command::Stats {
            dataset: dir,
            json,
            compare_hunk4j,
        } => {
            let instances = dataset::read_instances(&dir)
                .with_context(|| format!("{}: not a hunkgen dataset", dir.display()))?;
            let annotated = instances.iter().any(|i| i.divergence.is_some());
            let tables = report::Tables::compute(&instances, &instances, annotated);
            let mut out = std::io::stdout().lock();
            if json {
                writeln!(out, "{}", report::json(&tables))?;
            } else {
                write!(
                    out,
                    "{}",
                    report::tables12_markdown(&tables, compare_hunk4j)
                )?;
                if let Some(a) = &tables.annotation {
                    write!(out, "{}", report::table3_markdown(a))?;
                }
            }
            Ok(())
        }
        Command::Run {
            dataset: dir,
            agents,
            agent,
            state,
            scenario,
            only,
            jobs,
            timeout,
            prompt_variant,
            out,
            no_cache,
            quiet,
            shard,
        } => {
            set_jobs(jobs);
            let shard =
                crate::shard::Shard::resolve(shard.as_deref()).map_err(anyhow::Error::msg)?;
            let all = crate::run::agents::load(&agents)?;
            let Some(spec) = all.get(&agent).cloned() else {
                let names: Vec<&str> = all.keys().map(String::as_str).collect();
                anyhow::bail!(
                    "{}: no agent `{agent}` (the file has: {})",
                    agents.display(),
                    names.join(", ")
                );
            };
            let summary = crate::run::run(
                &dir,
                &crate::run::RunOptions {
                    agent,
                    spec,
                    state,
                    scenario,
                    only,
                    timeout,
                    variant: prompt_variant,
                    out,
                    progress: !quiet,
                    no_cache,
                    shard,
                },
            )?;
            if let Some(w) = &summary.warning {
                eprintln!("warning: {w}");
            }
            let mut out = std::io::stdout().lock();
            writeln!(
                out,
                "| instance | outcome | exit | seconds | patch bytes | steps |"
            )?;
            writeln!(out, "|---|---|---|---|---|---|")?;
            for r in &summary.records {
                writeln!(
                    out,
                    "| {} | {} | {} | {:.1} | {} | {} |",
                    r.instance_id,
                    r.outcome.name(),
                    r.exit_code
                        .map(|c| c.to_string())
                        .unwrap_or_else(|| "-".into()),
                    r.elapsed_ms as f64 / 1000.0,
                    r.patch_bytes,
                    r.trajectory_steps
                )?;
            }
            writeln!(
                out,
                "\n{} instance(s), {} reused from an earlier run\npredictions: {}",
                summary.records.len(),
                summary.reused,
                summary.dir.join("predictions.jsonl").display()
            )?;
            Ok(())
        }
        Command::Mcp { root } => {
            let mut repo = crate::mcp::tools::Repo::open(&root)
                .with_context(|| format!("{}: not a readable directory", root.display()))?;
            eprintln!("hunkgen mcp: serving {} on stdio", root.display());
            crate::mcp::serve(&mut repo, std::io::stdin().lock(), std::io::stdout().lock())?;
            Ok(())
        }
    }
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

/// `--jobs N`: rayon's worker count (only fails if a global pool exists, which is
/// harmless).
fn set_jobs(jobs: Option<usize>) {
    if let Some(j) = jobs {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(j)
            .build_global();
    }
}

/// Ctrl-C during a build: remove the build's temporary directory (the previous dataset
/// is untouched), say so in one line and exit 130.
fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        crate::dataset::writer::abandon_all();
        eprintln!(
            "interrupted: the build was abandoned; the previous dataset (if any) is unchanged"
        );
        std::process::exit(130);
    });
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
