//! Trajectory analytics of one system's runs, in the papers' terms: the agent study's
//! seven step categories and their n-grams as shares by outcome, and Passerine's four
//! smells, command frequency by step index and the file-tree distance from the files
//! an unresolved run edited to the golden files.
//!
//! A step's category comes from its kind and, for searches and other commands, from
//! the program or tool that ran: `grep`/`rg`/`ag`/`ack`/`git grep` and content-search
//! tools are SEARCH_CONTENT, `find`/`fd`/`locate`/`git ls-files` and glob tools
//! SEARCH_FILES, `ls`/`tree`/`cd`/`pwd` and directory-listing tools NAVIGATE.

use crate::model::{
    Analytics, CategoryGram, CategoryShare, Smells, StepKind, StudyCategory, TrajectoryStep,
    TreeDistance,
};
use std::collections::BTreeMap;

/// The n-gram lengths computed by default (`evaluate --ngram-windows` sets others):
/// windows of 2 to 5 steps, short enough to recur in runs
/// of a few dozen steps.
pub const WINDOWS: [usize; 4] = [2, 3, 4, 5];

/// How many n-grams of each length and outcome are kept.
const TOP: usize = 5;

/// How many leading step indexes the frequency by step index covers.
pub const STEP_INDEXES: usize = 30;

/// One run as the analytics see it.
pub struct RunSteps<'a> {
    /// Resolved (or, on Resolved, abstained correctly).
    pub success: bool,
    /// Its normalized steps.
    pub steps: &'a [TrajectoryStep],
    /// The golden files (repository paths).
    pub golden: &'a [String],
}

/// The program or tool a step ran: a shell command's first word past variable
/// assignments (its base name, inside a `bash -lc` wrapper), or a tool call's name
/// (`Grep {…}` → `Grep`; an MCP tool's last `__` part).
fn program(step: &TrajectoryStep) -> String {
    let Some(cmd) = step.command.as_deref() else {
        return String::new();
    };
    let cmd = crate::model::shell_words(cmd).join(" ");
    let cmd = cmd.as_str();
    let first = cmd
        .split_whitespace()
        .find(|w| !w.contains('=') || w.starts_with('-'))
        .unwrap_or("");
    let base = first.rsplit('/').next().unwrap_or(first);
    let base = base.rsplit("__").next().unwrap_or(base);
    match base {
        "git" => cmd
            .split_whitespace()
            .nth(1)
            .map(|sub| format!("git {sub}"))
            .unwrap_or_else(|| "git".into()),
        b => b.to_string(),
    }
}

/// A step's category in the agent study's terms.
pub fn category(step: &TrajectoryStep) -> StudyCategory {
    const CONTENT: &[&str] = &[
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "ag",
        "ack",
        "git grep",
        "Grep",
        "search_file_content",
        "grep_search",
        "find_code",
        "find_code_in_file",
        "find_method",
        "find_method_in_file",
        "find_method_in_class",
        "find_class",
        "find_class_in_file",
    ];
    const FILES: &[&str] = &["find", "fd", "locate", "git ls-files", "Glob", "glob"];
    const NAVIGATE: &[&str] = &[
        "ls",
        "tree",
        "cd",
        "pwd",
        "LS",
        "list_directory",
        "get_repository_structure",
    ];
    match step.kind {
        StepKind::Edit => StudyCategory::Write,
        StepKind::Read => StudyCategory::Read,
        StepKind::RunTest => StudyCategory::Test,
        StepKind::RunBuild => StudyCategory::Build,
        StepKind::Search | StepKind::Other => {
            let p = program(step);
            if CONTENT.contains(&p.as_str()) {
                StudyCategory::SearchContent
            } else if FILES.contains(&p.as_str()) {
                StudyCategory::SearchFiles
            } else if NAVIGATE.contains(&p.as_str()) {
                StudyCategory::Navigate
            } else if step.kind == StepKind::Search {
                // A search of no known program: what it looked through is unknown.
                StudyCategory::SearchContent
            } else {
                StudyCategory::Other
            }
        }
    }
}

/// Whether a step ran through one of the agent's own tools rather than a shell command:
/// a normalized tool call is written `Name {json}` (or `Name` alone) with Name a tool
/// of Claude Code, Gemini CLI or Qwen Code, or an MCP tool (`mcp__server__tool`); a
/// step with no command (Codex's file changes) is its own tool too.
pub fn native(step: &TrajectoryStep) -> bool {
    const TOOLS: &[&str] = &[
        "Read",
        "Write",
        "Edit",
        "MultiEdit",
        "Grep",
        "Glob",
        "LS",
        "NotebookRead",
        "NotebookEdit",
        "TodoWrite",
        "Task",
        "WebFetch",
        "WebSearch",
        "read_file",
        "read_many_files",
        "write_file",
        "replace",
        "edit",
        "search_file_content",
        "grep_search",
        "glob",
        "list_directory",
        "web_fetch",
        "google_web_search",
        "save_memory",
        "write_todos",
        "todo_write",
    ];
    let Some(cmd) = step.command.as_deref() else {
        return true;
    };
    let (name, rest) = cmd.split_once(' ').unwrap_or((cmd, ""));
    let shaped = rest.is_empty() || rest.trim_start().starts_with('{');
    shaped && (TOOLS.contains(&name) || name.contains("__"))
}

/// Which of Passerine's smells a trajectory shows: NO_TEST, NO_OP_CAT,
/// CONSECUTIVE_SEARCH, CONSECUTIVE_EDIT.
pub fn smells_of(steps: &[TrajectoryStep]) -> [bool; 4] {
    let no_test = !steps.iter().any(|s| s.kind == StepKind::RunTest);
    // A file is "fresh" from its read until an edit of it.
    let mut read_since_edit: std::collections::HashSet<&str> = Default::default();
    let mut no_op_cat = false;
    for s in steps {
        match s.kind {
            StepKind::Read => {
                for f in &s.files {
                    no_op_cat |= !read_since_edit.insert(f.trim_start_matches("./"));
                }
            }
            StepKind::Edit => {
                for f in &s.files {
                    read_since_edit.remove(f.trim_start_matches("./"));
                }
            }
            _ => {}
        }
    }
    let mut run = 0;
    let mut consecutive_search = false;
    for s in steps {
        run = if s.kind == StepKind::Search {
            run + 1
        } else {
            0
        };
        consecutive_search |= run >= 3;
    }
    let mut consecutive_edit = false;
    let mut same: Option<(&str, usize)> = None;
    for s in steps {
        same = match (s.kind, s.files.as_slice()) {
            (StepKind::Edit, [f]) => {
                let f = f.trim_start_matches("./");
                match same {
                    Some((g, n)) if g == f => Some((g, n + 1)),
                    _ => Some((f, 1)),
                }
            }
            _ => None,
        };
        consecutive_edit |= same.is_some_and(|(_, n)| n >= 3);
    }
    [no_test, no_op_cat, consecutive_search, consecutive_edit]
}

/// Edges between two files' leaves of the directory tree: 0 for the same file, 2 for
/// two files of one directory, one more per directory level apart.
pub fn tree_distance(a: &str, b: &str) -> usize {
    let parts = |p: &str| -> Vec<String> {
        p.trim_start_matches("./")
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    };
    let (a, b) = (parts(a), parts(b));
    if a == b {
        return 0;
    }
    let dirs = |v: &[String]| v.len().saturating_sub(1);
    let common = a[..dirs(&a)]
        .iter()
        .zip(&b[..dirs(&b)])
        .take_while(|(x, y)| x == y)
        .count();
    (a.len() - common) + (b.len() - common)
}

fn outcome(success: bool) -> &'static str {
    if success {
        "success"
    } else {
        "failure"
    }
}

/// The analytics of `runs`.
pub fn compute(runs: &[RunSteps<'_>], windows: &[usize]) -> Analytics {
    let windows = if windows.is_empty() {
        &WINDOWS[..]
    } else {
        windows
    };
    let mut a = Analytics::default();
    // Categories by outcome.
    for want in [true, false] {
        let cats: Vec<StudyCategory> = runs
            .iter()
            .filter(|r| r.success == want)
            .flat_map(|r| r.steps.iter().map(category))
            .collect();
        if cats.is_empty() {
            continue;
        }
        let mut counts: BTreeMap<StudyCategory, usize> = BTreeMap::new();
        for c in &cats {
            *counts.entry(*c).or_default() += 1;
        }
        a.categories.insert(
            outcome(want).into(),
            counts
                .into_iter()
                .map(|(c, n)| {
                    (
                        c.name().to_string(),
                        CategoryShare {
                            steps: n,
                            share: n as f64 / cats.len() as f64,
                        },
                    )
                })
                .collect(),
        );
    }
    // n-grams by window and outcome, as shares of that group's windows.
    for &n in windows {
        let mut by_outcome = BTreeMap::new();
        for want in [true, false] {
            let mut counts: BTreeMap<Vec<StudyCategory>, usize> = BTreeMap::new();
            let mut windows = 0usize;
            for r in runs.iter().filter(|r| r.success == want) {
                let cats: Vec<StudyCategory> = r.steps.iter().map(category).collect();
                for w in cats.windows(n) {
                    windows += 1;
                    *counts.entry(w.to_vec()).or_default() += 1;
                }
            }
            if windows == 0 {
                continue;
            }
            let mut grams: Vec<CategoryGram> = counts
                .into_iter()
                .map(|(categories, count)| CategoryGram {
                    categories,
                    count,
                    share: count as f64 / windows as f64,
                })
                .collect();
            grams.sort_by(|x, y| {
                y.count
                    .cmp(&x.count)
                    .then_with(|| x.categories.cmp(&y.categories))
            });
            grams.truncate(TOP);
            by_outcome.insert(outcome(want).to_string(), grams);
        }
        a.ngrams.insert(n.to_string(), by_outcome);
    }
    // Smells by outcome.
    for r in runs {
        let s = a.smells.entry(outcome(r.success).into()).or_default();
        let [t, c, se, e] = smells_of(r.steps);
        *s = Smells {
            trajectories: s.trajectories + 1,
            no_test: s.no_test + usize::from(t),
            no_op_cat: s.no_op_cat + usize::from(c),
            consecutive_search: s.consecutive_search + usize::from(se),
            consecutive_edit: s.consecutive_edit + usize::from(e),
        };
    }
    // Native tools vs shell commands, per category.
    for s in runs.iter().flat_map(|r| r.steps) {
        let v = a.via.entry(category(s).name().to_string()).or_default();
        match native(s) {
            true => v.native += 1,
            false => v.shell += 1,
        }
    }
    // Frequency by step index.
    let longest = runs.iter().map(|r| r.steps.len()).max().unwrap_or(0);
    for i in 0..longest.min(STEP_INDEXES) {
        let mut at: BTreeMap<String, usize> = BTreeMap::new();
        for r in runs {
            if let Some(s) = r.steps.get(i) {
                *at.entry(category(s).name().to_string()).or_default() += 1;
            }
        }
        a.by_step.push(at);
    }
    // Tree distance of unresolved runs' edits.
    let mut per_run = Vec::new();
    for r in runs.iter().filter(|r| !r.success && !r.golden.is_empty()) {
        let mut edited: Vec<&str> = r
            .steps
            .iter()
            .filter(|s| s.kind == StepKind::Edit)
            .flat_map(|s| s.files.iter().map(|f| f.trim_start_matches("./")))
            .collect();
        edited.sort_unstable();
        edited.dedup();
        if edited.is_empty() {
            continue;
        }
        let d: Vec<f64> = edited
            .iter()
            .map(|e| {
                r.golden
                    .iter()
                    .map(|g| tree_distance(e, g))
                    .min()
                    .unwrap_or(0) as f64
            })
            .collect();
        per_run.push(d.iter().sum::<f64>() / d.len() as f64);
    }
    a.tree_distance = TreeDistance {
        runs: per_run.len(),
        mean: crate::stats::mean(&per_run),
        median: (!per_run.is_empty()).then(|| crate::stats::percentile(&per_run, 0.5)),
        per_run,
    };
    a
}

/// The analytics as markdown lines for the terminal.
pub fn markdown(a: &Analytics) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    for (o, cats) in &a.categories {
        let parts: Vec<String> = StudyCategory::ALL
            .iter()
            .filter_map(|c| cats.get(c.name()).map(|s| (c, s)))
            .map(|(c, s)| format!("{} {} ({})", c.name(), s.steps, pct(s.share)))
            .collect();
        let _ = writeln!(out, "step categories, {o}: {}", parts.join(", "));
    }
    for (n, by) in &a.ngrams {
        for (o, grams) in by {
            let g: Vec<String> = grams
                .iter()
                .map(|g| {
                    let c: Vec<&str> = g.categories.iter().map(|c| c.name()).collect();
                    format!("{} {}", c.join(" → "), pct(g.share))
                })
                .collect();
            let _ = writeln!(out, "top {n}-grams, {o}: {}", g.join("; "));
        }
    }
    for (o, s) in &a.smells {
        let share = |n: usize| pct(n as f64 / s.trajectories.max(1) as f64);
        let _ = writeln!(
            out,
            "smells, {o} ({} trajectories): NO_TEST {}, NO_OP_CAT {}, CONSECUTIVE_SEARCH {}, CONSECUTIVE_EDIT {}",
            s.trajectories,
            share(s.no_test),
            share(s.no_op_cat),
            share(s.consecutive_search),
            share(s.consecutive_edit)
        );
    }
    let via: Vec<String> = StudyCategory::ALL
        .iter()
        .filter_map(|c| a.via.get(c.name()).map(|v| (c, v)))
        .map(|(c, v)| format!("{} {}/{}", c.name(), v.native, v.shell))
        .collect();
    if !via.is_empty() {
        let _ = writeln!(out, "native tools / shell commands: {}", via.join(", "));
    }
    let t = &a.tree_distance;
    if t.runs > 0 {
        let _ = writeln!(
            out,
            "tree distance of unresolved runs' edits from the golden files: {} run(s), mean {:.2}, median {:.2}",
            t.runs,
            t.mean.unwrap_or(0.0),
            t.median.unwrap_or(0.0)
        );
    }
    out
}

#[cfg(test)]
#[path = "analytics_tests.rs"]
mod tests;
