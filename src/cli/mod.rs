//! Command-line interface: the clap definitions of `hunkgen` and its subcommands, and the
//! dispatch; each subcommand's file parses its arguments and calls one library function.

pub mod annotate;
pub mod build;
pub mod checkout;
pub mod compare;
pub mod d4j_tool;
pub mod evaluate;
pub mod export;
pub mod init;
pub mod judge;
pub mod mcp;
pub mod merge;
pub mod report;
pub mod reports;
pub mod run;
pub mod stats;
pub mod validate;
mod values;

pub use export::ExportFormat;

use clap::{Parser, Subcommand};

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
    /// Write a recipe for a repository, inferred from what it holds.
    ///
    /// Reads the repository at HEAD — its languages, test directories, build and
    /// dependency files (pyproject.toml, setup.cfg, setup.py, requirements files,
    /// tox.ini, pom.xml) — and writes a commented recipe that builds as is: the git
    /// source with the Python or Java precision preset's rules, file roles, and a
    /// `validate:` section whose suites run the tests in the sandbox (pytest, or javac
    /// and the JUnit console launcher). It prints what it inferred and what it could not
    /// (the recipe's header says the same). Then `hunkgen build <recipe>`.
    #[command(
        after_help = "Examples:\n  hunkgen init ../click                 # writes click.yaml\n  hunkgen init ../click -o recipes/click.yaml && hunkgen build recipes/click.yaml\n  hunkgen init ../commons-cli --json"
    )]
    Init(init::InitArgs),
    /// Build a dataset directory from a recipe (YAML).
    ///
    /// Writes <output>/instances.jsonl (one instance per line, sorted by id, same bytes
    /// for the same inputs), rejected.jsonl (items that could not be read, with the
    /// reason), pairs.csv, dataset.yaml (the card: recipe, counts, checksums) and
    /// report/tables.md + tables.json. The dataset changes as a whole: the build writes a
    /// hidden sibling directory and swaps it in at the end, so an interrupted build
    /// (Ctrl-C exits 130) leaves the previous dataset intact. A rebuild that would write
    /// the same dataset (all but the card's built_at) keeps the old one as it is.
    ///
    /// The output directory is the recipe's `output`, else datasets/<name> in the
    /// directory above the recipe file (recipes/demo.yaml → datasets/demo).
    #[command(
        after_help = "Examples:\n  hunkgen build recipes/demo.yaml\n  hunkgen build recipes/hunk4j.yaml --repos repos.yaml\n  hunkgen build recipes/hunk4j.yaml --repo Lang=/src/commons-lang -o /tmp/hunk4j"
    )]
    Build(build::BuildArgs),
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
    Annotate(annotate::AnnotateArgs),
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
    Validate(validate::ValidateArgs),
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
    Merge(merge::MergeArgs),
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
    Checkout(checkout::CheckoutArgs),
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
    Compare(compare::CompareArgs),
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
    Evaluate(evaluate::EvaluateArgs),
    /// Write a dataset's report as one self-contained HTML page.
    ///
    /// The page (default <dataset>/report/index.html) shows the dataset card, the build
    /// funnel with rejections by reason, Tables I–III, the divergence histogram and its
    /// components, proximity classes, and a searchable table of instances, each with its
    /// hunks, patch and links to its test logs. With --results (results.jsonl of
    /// `hunkgen evaluate`, or a directory holding it and summary.json): resolution by
    /// proximity class and divergence quartile, abstention by state and, for several
    /// systems, which solved which tasks; with rows on the Novel state, the agent
    /// study's outcome-conditioned tables (divergence of fixed vs unfixed bugs with the
    /// rank-sum test and Cliff's δ, the bugs no system fixed, solver sets by class),
    /// also written beside the page as outcomes.json and outcomes.md. Results of
    /// another dataset are refused. The
    /// page fetches nothing (inline CSS and SVG); it is written atomically and its path
    /// printed.
    #[command(
        after_help = "Examples (make demo builds datasets/demo):\n  hunkgen report datasets/demo\n  hunkgen report datasets/demo --results runs/gpt/results.jsonl --results runs/agentless/\n  hunkgen report datasets/hunk4j -o /tmp/hunk4j.html"
    )]
    Report(report::ReportArgs),
    /// Fetch the bug reports (title and description) of a dataset's instances.
    ///
    /// Each instance's `report.url` names its tracker, as Defects4J's active-bugs.csv
    /// does: Apache JIRA (its REST API), GitHub issues, SourceForge tickets (Allura's
    /// REST API) and Google Code's issue archive. Writes <dataset>/reports.jsonl (rows
    /// {"id", "title", "description", "url", "tracker"}), which `hunkgen run` puts into
    /// the prompt's {report_title}, {report_body} and {bug_report}. Every answer is
    /// cached (a 404 too), so --offline gives the same file without the network. A
    /// tracker that cannot be reached costs only its own reports, with one warning line
    /// naming it. JIRA_TOKEN and GITHUB_TOKEN are sent to their own servers only.
    #[command(
        after_help = "Examples:\n  hunkgen reports datasets/hunk4j\n  hunkgen reports datasets/hunk4j --offline --json\n  hunkgen reports datasets/hunk4j --tracker-url https://issues.apache.org/jira=https://jira.mirror.example/jira"
    )]
    Reports(reports::ReportsArgs),
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
    Export(export::ExportArgs),
    /// Print a dataset's tables (HUNK4J Tables I, II and, when annotated, III).
    Stats(stats::StatsArgs),
    /// Run a coding agent on a dataset's states and collect its patches as predictions.
    ///
    /// For each instance (or those given with --only): the state (built by the recipe's
    /// `states:`; for a Defects4J bug without states on Novel, the buggy checkout without
    /// its history) is copied into a fresh working directory and snapshotted in a git
    /// directory outside it (--with-tests: the state with the golden tests present); the
    /// prompt (--prompt-variant: by default the task text alone, FixedBench's `issue`;
    /// for a Defects4J bug the agent study's template with the bug report of --reports
    /// and the compile and test commands; never the golden tests' names) is
    /// written; the agent's command runs in
    /// the sandbox with its timeout (the whole process tree killed at it); its patch is
    /// the diff of the working directory against the snapshot. Writes
    /// <out>/<agent>/<state>-<scenario>[-tests]/predictions.jsonl (SWE-bench form with
    /// state and scenario, for `hunkgen evaluate`) and, per instance, prompt.md, stdout.log, stderr.log, model.patch,
    /// trajectory.jsonl (normalized) and result.json (outcome, exit code, time). An
    /// instance whose agent, prompt and state are unchanged is not run again.
    #[command(
        after_help = "Examples (make demo builds datasets/demo):\n  hunkgen run datasets/demo --agents demo/agents/agents.yaml --agent oracle --state novel\n  hunkgen run datasets/demo --agents agents.yaml --agent claude --prompt-variant mcp --jobs 2\n  hunkgen run datasets/demo --agents agents.yaml --agent claude --state resolved --prompt-variant abstain-or-fix\n  hunkgen evaluate datasets/demo --predictions datasets/demo/runs/oracle/novel-best/predictions.jsonl\n  hunkgen run datasets/demo --agents demo/agents/agents.yaml --agent oracle --shard 0/4\n  hunkgen merge datasets/demo/runs/oracle/novel-best \\\n      datasets/demo/runs-shard-*-of-4/oracle/novel-best"
    )]
    Run(run::RunArgs),
    /// Label agent runs with behaviours (FixedBench appendix D) by a judge command, and
    /// count them.
    ///
    /// For each run of `hunkgen run` under --runs (result.json with a normalized
    /// trajectory.jsonl), the judge command gets one JSON document on stdin and answers
    /// on stdout which of ten behaviours the run shows (not exclusive): checks-git-history,
    /// realizes-already-fixed, reproduces-in-historic-codebase, reproduces-before-editing,
    /// reproduces-only-after-editing, adds-defense-in-depth, adds-a-test,
    /// implements-unrelated-fix, makes-no-op-edit, backtracks-on-fix (their definitions
    /// are in the document). The judge is yours: it runs by `sh -c` in the current
    /// directory with your environment (it may call a model API), not sandboxed, in its
    /// own process group, killed at --timeout.
    ///
    /// Verdicts go to <runs>/judgements.jsonl, one line per run (its ids, instruction,
    /// outcome, labels, the judge command, the document's SHA-256, or a one-line error),
    /// rewritten atomically after each verdict; a rerun asks the judge only about runs it
    /// has no verdict for from this command on the same document (--force: all). A judge
    /// that exits non-zero, times out or prints no valid answer makes that run's verdict
    /// an error; the others go on, and the command exits 1 at the end. Frequencies — each
    /// behaviour's share of the judged runs overall and by outcome (abstained or edited,
    /// by `hunkgen evaluate`'s abstention rule on the run's patch), instruction, scenario,
    /// state and agent — go to <runs>/judgements-summary.json and .md and to stdout
    /// (--json: the summary JSON); `hunkgen report` shows them. With --human, the judge's
    /// precision, recall and F1 against human labels, micro-averaged over (run,
    /// behaviour) pairs and per behaviour, over the runs both labelled.
    #[command(after_help = JUDGE_HELP)]
    Judge(judge::JudgeArgs),
    /// Serve repository context to a coding agent over MCP (stdio): find classes,
    /// methods and code, class skeletons and the directory structure.
    #[command(
        after_help = "The server speaks the Model Context Protocol's stdio transport: one JSON-RPC message per line on stdin, answers on stdout, logs on stderr. Register it with an agent, e.g. Claude Code:\n  claude mcp add hunkgen -- hunkgen mcp --root /path/to/checkout\nTools: find_method_in_class, find_class_in_file, find_method_in_file, find_code_in_file, get_class_skeleton, find_class, find_method, find_code, get_repository_structure."
    )]
    Mcp(mcp::McpArgs),
    /// The Defects4J build and test commands `hunkgen run` gives an agent: copy the
    /// working copy into the build directory, then compile, run the bug-exposing tests
    /// or the whole suite, printing each failing test with its complete stack trace.
    #[command(hide = true)]
    D4jTool(d4j_tool::D4jToolArgs),
}

/// `hunkgen judge --help`'s protocol and examples.
const JUDGE_HELP: &str = "The protocol (hunkgen-judge/1). On stdin, one JSON object per call:
  {\"protocol\": \"hunkgen-judge/1\", \"answer\": \"<what to print>\",
   \"run\": \"claude/resolved-best/acme-1a2b\", \"instance_id\", \"agent\", \"state\", \"scenario\",
   \"tests_present\", \"attempt\", \"instruction\": \"issue\", \"run_outcome\": \"completed\",
   \"outcome\": \"abstained\" | \"edited\", \"issue\": \"<problem statement>\", \"prompt\",
   \"patch\": \"<the run's model.patch>\",
   \"categories\": [{\"id\": \"checks-git-history\", \"definition\": \"...\"}, ...],
   \"steps\": [{\"kind\": \"read\", \"files\": [...], \"command\": \"git log -3\",
              \"exit_code\": 0, \"output\": \"<what the tool returned>\", \"output_truncated\": 120}, ...]}
HUNKGEN_RUN_DIR names the run's directory. On stdout, one JSON object (or as the last
non-empty line):
  {\"labels\": [\"checks-git-history\", \"realizes-already-fixed\"], \"rationale\": \"optional\"}
Unknown label ids, other keys, no answer, a non-zero exit or a timeout: that run's error.

Human labels (--human): JSON Lines, e.g. judgements.jsonl with its labels corrected:
  {\"instance_id\": \"acme-1a2b\", \"agent\": \"claude\", \"state\": \"resolved\", \"scenario\": \"best\",
   \"labels\": [\"checks-git-history\"]}

Examples:
  hunkgen run datasets/demo --agents agents.yaml --agent claude --state resolved --keep-output 8192
  hunkgen judge datasets/demo --judge 'python3 judge.py'
  hunkgen judge datasets/demo --runs /tmp/runs --judge './judge.sh' --timeout 300 --jobs 4
  hunkgen judge datasets/demo --judge 'python3 judge.py' --human labels.jsonl --json
  hunkgen report datasets/demo --judgements datasets/demo/runs";

/// Parse the command line (exits with clap's usage error on bad input), so the binary
/// needs no clap of its own.
pub fn parse() -> Cli {
    Cli::parse()
}

/// Run the parsed command; errors carry their one-line context.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    // The command's temporary files go to a root of its own, removed at its end or, if
    // it is killed, by the next command (the MCP server and the Defects4J tool run
    // inside an agent's sandbox and write none).
    let _scratch = match cli.command {
        Command::Mcp(_) | Command::D4jTool(_) => None,
        _ => crate::scratch::Scratch::enter(),
    };
    match cli.command {
        Command::Init(args) => init::run(args),
        Command::Build(args) => build::run(args),
        Command::Annotate(args) => annotate::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Checkout(args) => checkout::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Evaluate(args) => evaluate::run(args),
        Command::Report(args) => report::run(args),
        Command::Reports(args) => reports::run(args),
        Command::Export(args) => export::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Run(args) => run::run(args),
        Command::Judge(args) => judge::run(args),
        Command::Mcp(args) => mcp::run(args),
        Command::D4jTool(args) => d4j_tool::run(args),
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
/// is untouched), say so in one line and exit 130. Once the new dataset is swapped in (the
/// summary is still printing), say that instead.
fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        let written = crate::dataset::writer::abandon_all();
        crate::scratch::abandon();
        if written {
            eprintln!("interrupted: the build had already written its dataset, which stays");
        } else {
            eprintln!(
                "interrupted: the build was abandoned; the previous dataset (if any) is unchanged"
            );
        }
        std::process::exit(130);
    });
}
