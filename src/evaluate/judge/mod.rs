//! `hunkgen judge`: behaviour labels for agent runs (FixedBench appendix D). For each run
//! of `hunkgen run` under a runs root, a document (the run, its outcome by the abstention
//! rule, the ten categories, the normalized steps with their tool outputs) goes to the
//! user's judge command on stdin; its answer, the labels, is recorded in
//! `<runs>/judgements.jsonl`, one line per run, rewritten atomically after every verdict.
//! A run whose document is unchanged is not judged again by the same command. The
//! verdicts are then counted: frequencies by outcome, instruction, scenario, state and
//! agent, and the judge's precision, recall and F1 against human labels.
//!
//! The judge is the user's own command (it may call a model API): it runs outside the
//! sandbox with the caller's environment, in its own process group, under a timeout.

mod protocol;
pub mod runs;
pub mod tally;

pub use protocol::{parse_answer, Document, PROTOCOL};
pub use runs::FoundRun;

use crate::dataset;
use crate::model::{Judgement, JudgementSummary, RunOutcome};
use crate::validate::runner::{Runner, SandboxPolicy};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// The verdicts file under the runs root.
pub const JUDGEMENTS: &str = "judgements.jsonl";
/// The summary file under the runs root.
pub const SUMMARY: &str = "judgements-summary.json";
/// Default seconds a judge may take per run.
pub const DEFAULT_TIMEOUT: u64 = 600;

/// Options of one `hunkgen judge`.
#[derive(Debug, Clone)]
pub struct JudgeOptions {
    /// The runs root (`hunkgen run --out`, default `<dataset>/runs`), or a directory below.
    pub runs: PathBuf,
    /// The judge command, run by `sh -c`.
    pub command: String,
    /// Time per run before the judge's process group is killed.
    pub timeout: Duration,
    /// Judge again runs already judged by this command on the same document.
    pub force: bool,
    /// Only the runs of these instances (empty: all); the others keep their verdicts.
    pub only: Vec<String>,
    /// Human labels to measure the judge against.
    pub human: Option<PathBuf>,
    /// Show a progress bar.
    pub progress: bool,
}

/// What a judgement wrote and found.
#[derive(Debug)]
pub struct JudgeReport {
    /// Every run's line of `judgements.jsonl`, by key.
    pub judgements: Vec<Judgement>,
    /// The counts (also written to `judgements-summary.json` by the caller).
    pub summary: JudgementSummary,
    /// Runs the judge was asked about this time.
    pub called: usize,
    /// Runs answered by an earlier verdict.
    pub reused: usize,
    /// Runs without a normalized trajectory, not judged: `<run>: <why>`.
    pub skipped: Vec<String>,
    /// Verdict lines of runs no longer under the root, dropped from the file.
    pub dropped: usize,
    /// The runs of this judgement (all, or `--only`'s) without a verdict, each as
    /// `<run>: <error>`.
    pub failed: Vec<String>,
}

/// Why a judgement could not start or could not record (a run's failure is its verdict's
/// `error`, never this).
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// The runs cannot be listed.
    #[error(transparent)]
    Find(#[from] runs::FindError),
    /// No run under the root.
    #[error("{}: no run of `hunkgen run` (no <agent>/<state>-<scenario>/<instance>/result.json below it)", root.display())]
    NoRuns {
        /// The root.
        root: PathBuf,
    },
    /// `--only` names an instance without a run.
    #[error("{}: no run of instance `{id}` (--only)", root.display())]
    OnlyUnknown {
        /// The root.
        root: PathBuf,
        /// The id.
        id: String,
    },
    /// The dataset cannot be opened for the abstention rule.
    #[error(transparent)]
    Dataset(#[from] Box<super::error::EvaluateError>),
    /// The human labels file is unusable.
    #[error(transparent)]
    Human(#[from] tally::HumanError),
    /// A line of an existing `judgements.jsonl` is not a verdict.
    #[error("{}:{line}: not a verdict line: {source} (move the file away to start over)", path.display())]
    BadLine {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The JSON error.
        source: serde_json::Error,
    },
    /// The judge cannot be run at all.
    #[error("cannot run the judge: {0}")]
    Runner(#[source] crate::validate::runner::RunError),
    /// A file cannot be written.
    #[error(transparent)]
    Write(#[from] dataset::DatasetError),
}

/// Judge the runs under `opts.runs`, made on `dataset`'s states.
pub fn judge(dataset: &Path, opts: &JudgeOptions) -> Result<JudgeReport, JudgeError> {
    let root = &opts.runs;
    let found = runs::find(root)?;
    if found.is_empty() {
        return Err(JudgeError::NoRuns { root: root.clone() });
    }
    if let Some(id) = opts
        .only
        .iter()
        .find(|id| !found.iter().any(|r| &r.record.instance_id == *id))
    {
        return Err(JudgeError::OnlyUnknown {
            root: root.clone(),
            id: id.clone(),
        });
    }
    let human = match &opts.human {
        Some(p) => Some((p, tally::read_human(p)?)),
        None => None,
    };
    let rule = super::AbstentionRule::open(dataset).map_err(Box::new)?;
    let runner = Runner::new(SandboxPolicy::Off).map_err(JudgeError::Runner)?;
    let file = root.join(JUDGEMENTS);
    // One judgement at a time writes the verdicts of a runs root.
    let _lock = dataset::lock_output(&file)?;
    let old = read_judgements(&file)?;
    // Runs without a normalized trajectory have nothing to judge.
    let mut skipped: BTreeMap<String, String> = BTreeMap::new();
    for r in &found {
        if let Err(why) = r.steps() {
            skipped.insert(r.key(), why);
        }
    }
    let keys: std::collections::BTreeSet<String> = found.iter().map(FoundRun::key).collect();
    let dropped = old.keys().filter(|k| !keys.contains(*k)).count();
    // The file holds the runs under the root that have a trajectory.
    let book: Mutex<BTreeMap<String, Judgement>> = Mutex::new(
        old.into_iter()
            .filter(|(k, _)| keys.contains(k) && !skipped.contains_key(k))
            .collect(),
    );
    let chosen: Vec<&FoundRun> = found
        .iter()
        .filter(|r| !skipped.contains_key(&r.key()))
        .filter(|r| opts.only.is_empty() || opts.only.contains(&r.record.instance_id))
        .collect();
    let progress = if opts.progress {
        crate::progress::Progress::new("judge", chosen.len() as u64)
    } else {
        crate::progress::Progress::hidden()
    };
    let ctx = Ctx {
        rule: &rule,
        runner: &runner,
        opts,
        file: &file,
        book: &book,
    };
    let called: Vec<bool> = chosen
        .par_iter()
        .map(|run| {
            progress.set_message(run.key());
            let d = ctx.one(run);
            progress.inc(1);
            d
        })
        .collect::<Result<_, _>>()?;
    progress.finish();
    let book = book.into_inner().unwrap_or_else(|p| p.into_inner());
    write_judgements(&file, &book)?;
    let verdicts: Vec<&Judgement> = book.values().filter(|j| j.error.is_none()).collect();
    let errors = book.values().filter(|j| j.error.is_some()).count();
    let mut summary = tally::summarize(&verdicts, found.len(), errors, skipped.len());
    if let Some((path, labels)) = &human {
        let by_key: BTreeMap<String, &Judgement> =
            verdicts.iter().map(|j| (j.run.clone(), *j)).collect();
        summary.human = Some(tally::agree(path, labels, &by_key, |key| {
            match (book.get(key), skipped.get(key)) {
                (Some(j), _) => format!(
                    "the judge failed: {}",
                    j.error.as_deref().unwrap_or("no verdict")
                ),
                (None, Some(why)) => format!("not judged: {why}"),
                (None, None) if keys.contains(key) => "not judged yet (--only)".into(),
                (None, None) => format!("no such run under {}", root.display()),
            }
        }));
    }
    let n_called = called.iter().filter(|c| **c).count();
    let failed = chosen
        .iter()
        .filter_map(|r| book.get(&r.key()))
        .filter_map(|j| j.error.as_ref().map(|e| format!("{}: {e}", j.run)))
        .collect();
    Ok(JudgeReport {
        called: n_called,
        reused: called.len() - n_called,
        judgements: book.into_values().collect(),
        summary,
        skipped: skipped
            .into_iter()
            .map(|(k, why)| format!("{k}: {why}"))
            .collect(),
        dropped,
        failed,
    })
}

/// What every run's judgement shares.
struct Ctx<'a> {
    rule: &'a super::AbstentionRule,
    runner: &'a Runner,
    opts: &'a JudgeOptions,
    file: &'a Path,
    book: &'a Mutex<BTreeMap<String, Judgement>>,
}

impl Ctx<'_> {
    /// Judge one run (or reuse its verdict) and record it; true when the judge was
    /// asked (or the run's outcome could not be decided), false when a verdict stands.
    fn one(&self, run: &FoundRun) -> Result<bool, JudgeError> {
        let key = run.key();
        // Runs without steps were set aside before.
        let steps = run.steps().unwrap_or_default();
        let r = &run.record;
        let mut verdict = Judgement {
            run: key.clone(),
            id: run.id.clone(),
            instruction: r.prompt_variant.clone(),
            outcome: None,
            judge: self.opts.command.clone(),
            input_sha256: String::new(),
            labels: Vec::new(),
            rationale: None,
            error: None,
            judged_at: String::new(),
        };
        let patch = run.text("model.patch");
        let outcome = match self.rule.abstains(&r.instance_id, &r.state, &patch) {
            Ok(true) => RunOutcome::Abstained,
            Ok(false) => RunOutcome::Edited,
            Err(why) => {
                verdict.error = Some(format!("cannot tell whether the run abstained: {why}"));
                verdict.judged_at = now();
                self.record(verdict)?;
                return Ok(true);
            }
        };
        verdict.outcome = Some(outcome);
        let issue = self
            .rule
            .instance(&r.instance_id)
            .map(|i| i.problem_statement.as_str())
            .unwrap_or("");
        let doc = Document::new(run, outcome, issue, steps);
        let bytes = serde_json::to_vec_pretty(&doc).unwrap_or_default();
        verdict.input_sha256 = dataset::sha256_hex(&bytes);
        if !self.opts.force {
            let book = self.book.lock().unwrap_or_else(|p| p.into_inner());
            let stands = book.get(&key).is_some_and(|o| {
                o.error.is_none()
                    && o.judge == verdict.judge
                    && o.input_sha256 == verdict.input_sha256
            });
            if stands {
                return Ok(false);
            }
        }
        let logs = self.opts.runs.join(runs::LOGS_DIR).join(&key);
        let answer = protocol::call(
            self.runner,
            &self.opts.command,
            &bytes,
            &logs,
            &run.dir,
            self.opts.timeout,
        )
        .and_then(|out| parse_answer(&out));
        verdict.judged_at = now();
        match answer {
            Ok((labels, rationale)) => {
                verdict.labels = labels;
                verdict.rationale = rationale;
            }
            Err(e) => verdict.error = Some(e),
        }
        self.record(verdict)?;
        Ok(true)
    }

    /// Put the verdict in the book and rewrite the file (temporary file, then rename), so
    /// an interrupted judgement keeps every verdict already given.
    fn record(&self, verdict: Judgement) -> Result<(), JudgeError> {
        let mut book = self.book.lock().unwrap_or_else(|p| p.into_inner());
        book.insert(verdict.run.clone(), verdict);
        write_judgements(self.file, &book)
    }
}

fn now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    dataset::rfc3339(secs)
}

/// The verdicts of an earlier judgement, by run key (none when there is no file).
pub fn read_judgements(path: &Path) -> Result<BTreeMap<String, Judgement>, JudgeError> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(BTreeMap::new());
    };
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let j: Judgement = serde_json::from_str(line).map_err(|source| JudgeError::BadLine {
            path: path.to_path_buf(),
            line: n + 1,
            source,
        })?;
        out.insert(j.run.clone(), j);
    }
    Ok(out)
}

fn write_judgements(path: &Path, book: &BTreeMap<String, Judgement>) -> Result<(), JudgeError> {
    let rows: Vec<&Judgement> = book.values().collect();
    Ok(dataset::write_atomic(path, &dataset::jsonl(&rows))?)
}
