//! Counting verdicts: category frequencies over groups of runs, and the judge's
//! precision, recall and F1 against human labels.

use crate::model::{
    Agreement, Frequencies, HumanAgreement, Judgement, JudgementSummary, RunId, BEHAVIOURS,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Frequencies of the categories over `runs` (each with its labels).
pub fn frequencies(runs: &[&Judgement]) -> Frequencies {
    Frequencies {
        runs: runs.len(),
        categories: BEHAVIOURS
            .iter()
            .map(|b| {
                let k = runs
                    .iter()
                    .filter(|j| j.labels.iter().any(|l| l == b.id))
                    .count();
                (b.id.to_string(), crate::stats::wilson(k, runs.len()))
            })
            .collect(),
    }
}

/// Frequencies per value of `group` (the runs' outcome, instruction, …).
fn by(runs: &[&Judgement], group: impl Fn(&Judgement) -> String) -> BTreeMap<String, Frequencies> {
    let mut groups: BTreeMap<String, Vec<&Judgement>> = BTreeMap::new();
    for j in runs {
        groups.entry(group(j)).or_default().push(j);
    }
    groups
        .into_iter()
        .map(|(k, v)| (k, frequencies(&v)))
        .collect()
}

/// The summary of verdicts: `verdicts` are the judged runs (labels, no error); the counts
/// say how many runs there were, failed and were skipped.
pub fn summarize(
    verdicts: &[&Judgement],
    runs: usize,
    errors: usize,
    skipped: usize,
) -> JudgementSummary {
    let judges: BTreeSet<String> = verdicts.iter().map(|j| j.judge.clone()).collect();
    JudgementSummary {
        judges: judges.into_iter().collect(),
        runs,
        judged: verdicts.len(),
        errors,
        skipped,
        categories: BEHAVIOURS.iter().map(Into::into).collect(),
        overall: frequencies(verdicts),
        by_outcome: by(verdicts, |j| {
            j.outcome
                .map(|o| o.name().to_string())
                .unwrap_or_else(|| "unknown".into())
        }),
        by_instruction: by(verdicts, |j| j.instruction.clone()),
        by_scenario: by(verdicts, |j| j.id.scenario.clone()),
        by_state: by(verdicts, |j| j.id.state.clone()),
        by_agent: by(verdicts, |j| j.id.agent.clone()),
        human: None,
    }
}

/// One line of a human labels file: which run, and its labels.
#[derive(Debug, Clone, PartialEq)]
pub struct HumanLabel {
    /// The run's key ([`RunId::key`]).
    pub run: String,
    /// The labels, each a category id.
    pub labels: BTreeSet<String>,
}

/// A human labels file that cannot be used, with the file and line named.
#[derive(Debug, thiserror::Error)]
pub enum HumanError {
    /// The file cannot be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A line is not a label line.
    #[error("{}:{line}: {what}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        what: String,
    },
}

/// Read a human labels file: JSON Lines, each naming a run by `run` (its key, as in
/// `judgements.jsonl`) or by `instance_id`, `agent`, `state`, `scenario` (and
/// `tests_present`, `attempt` where they apply), with `labels` (category ids). Other
/// fields are ignored, so the lines of `judgements.jsonl` with their labels corrected
/// are a human labels file.
pub fn read_human(path: &Path) -> Result<Vec<HumanLabel>, HumanError> {
    let text = std::fs::read_to_string(path).map_err(|source| HumanError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut out: Vec<HumanLabel> = Vec::new();
    let mut seen = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |what: String| HumanError::Line {
            path: path.to_path_buf(),
            line: n + 1,
            what,
        };
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| bad(format!("not JSON: {e}")))?;
        let run = match v.get("run").and_then(serde_json::Value::as_str) {
            Some(r) => r.to_string(),
            None => serde_json::from_value::<RunId>(v.clone())
                .map_err(|e| {
                    bad(format!(
                        "names no run: give `run`, or instance_id, agent, state and scenario ({e})"
                    ))
                })?
                .key(),
        };
        let labels: Vec<String> = v
            .get("labels")
            .cloned()
            .ok_or_else(|| bad("no `labels` (a list of category ids)".into()))
            .and_then(|l| {
                serde_json::from_value(l)
                    .map_err(|e| bad(format!("`labels` is not a list of category ids: {e}")))
            })?;
        if let Some(u) = labels.iter().find(|l| crate::model::behaviour(l).is_none()) {
            let known: Vec<&str> = BEHAVIOURS.iter().map(|b| b.id).collect();
            return Err(bad(format!(
                "unknown label `{u}` (known: {})",
                known.join(", ")
            )));
        }
        if let Some(first) = seen.insert(run.clone(), n + 1) {
            return Err(bad(format!(
                "the run `{run}` is labelled twice (also line {first})"
            )));
        }
        out.push(HumanLabel {
            run,
            labels: labels.into_iter().collect(),
        });
    }
    Ok(out)
}

/// The judge's verdicts against human labels: runs with both are counted; each human
/// label whose run has no verdict is listed with `why_not(run)`.
pub fn agree(
    file: &Path,
    human: &[HumanLabel],
    verdicts: &BTreeMap<String, &Judgement>,
    why_not: impl Fn(&str) -> String,
) -> HumanAgreement {
    let mut per: BTreeMap<&str, (usize, usize, usize)> =
        BEHAVIOURS.iter().map(|b| (b.id, (0, 0, 0))).collect();
    let mut runs = 0;
    let mut not_judged = Vec::new();
    for h in human {
        let Some(j) = verdicts.get(&h.run) else {
            not_judged.push(format!("{}: {}", h.run, why_not(&h.run)));
            continue;
        };
        runs += 1;
        for (id, (tp, fp, fn_)) in per.iter_mut() {
            let by_judge = j.labels.iter().any(|l| l == id);
            let by_human = h.labels.contains(*id);
            match (by_judge, by_human) {
                (true, true) => *tp += 1,
                (true, false) => *fp += 1,
                (false, true) => *fn_ += 1,
                (false, false) => {}
            }
        }
    }
    let (tp, fp, fn_) = per
        .values()
        .fold((0, 0, 0), |a, c| (a.0 + c.0, a.1 + c.1, a.2 + c.2));
    HumanAgreement {
        file: file.display().to_string(),
        runs,
        micro: Agreement::from_counts(tp, fp, fn_),
        per_category: per
            .into_iter()
            .map(|(id, (tp, fp, fn_))| (id.to_string(), Agreement::from_counts(tp, fp, fn_)))
            .collect(),
        not_judged,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RunOutcome;

    fn verdict(
        instance: &str,
        instruction: &str,
        outcome: RunOutcome,
        labels: &[&str],
    ) -> Judgement {
        Judgement {
            run: String::new(),
            id: RunId {
                instance_id: instance.into(),
                agent: "a".into(),
                state: "resolved".into(),
                scenario: "best".into(),
                tests_present: false,
                attempt: None,
            },
            instruction: instruction.into(),
            outcome: Some(outcome),
            judge: "j".into(),
            input_sha256: String::new(),
            labels: labels.iter().map(|l| l.to_string()).collect(),
            rationale: None,
            error: None,
            judged_at: String::new(),
        }
    }

    #[test]
    fn precision_recall_and_f1_follow_their_definitions() {
        // 3 agreed, 1 only the judge's, 2 only the human's.
        let a = Agreement::from_counts(3, 1, 2);
        assert_eq!(a.precision, Some(0.75));
        assert_eq!(a.recall, Some(0.6));
        // F1 = 2PR/(P+R) = 0.9/1.35 = 2/3 = 2·3/(2·3+1+2).
        let f1 = a.f1.expect("f1");
        assert!((f1 - 2.0 / 3.0).abs() < 1e-12, "{f1}");
        // Nothing labelled by the judge: no precision; by neither: nothing at all.
        let none = Agreement::from_counts(0, 0, 4);
        assert_eq!(
            (none.precision, none.recall, none.f1),
            (None, Some(0.0), Some(0.0))
        );
        let empty = Agreement::from_counts(0, 0, 0);
        assert_eq!(
            (empty.precision, empty.recall, empty.f1),
            (None, None, None)
        );
    }

    #[test]
    fn micro_averages_count_pairs_and_unjudged_runs_are_listed() {
        let a = verdict(
            "i1",
            "issue",
            RunOutcome::Edited,
            &["checks-git-history", "adds-a-test"],
        );
        let b = verdict(
            "i2",
            "issue",
            RunOutcome::Abstained,
            &["realizes-already-fixed"],
        );
        let verdicts: BTreeMap<String, &Judgement> =
            [("r1".to_string(), &a), ("r2".to_string(), &b)].into();
        let human = vec![
            HumanLabel {
                run: "r1".into(),
                labels: ["checks-git-history".to_string()].into(),
            },
            HumanLabel {
                run: "r2".into(),
                labels: [
                    "realizes-already-fixed".to_string(),
                    "backtracks-on-fix".to_string(),
                ]
                .into(),
            },
            HumanLabel {
                run: "r3".into(),
                labels: BTreeSet::new(),
            },
        ];
        let h = agree(Path::new("h.jsonl"), &human, &verdicts, |_| {
            "not found".into()
        });
        assert_eq!(h.runs, 2);
        // TP: git history, already fixed; FP: adds-a-test; FN: backtracks.
        assert_eq!(
            (
                h.micro.true_positives,
                h.micro.false_positives,
                h.micro.false_negatives
            ),
            (2, 1, 1)
        );
        assert_eq!(h.micro.precision, Some(2.0 / 3.0));
        assert_eq!(h.per_category["adds-a-test"].precision, Some(0.0));
        assert_eq!(h.per_category["backtracks-on-fix"].recall, Some(0.0));
        assert_eq!(h.per_category["makes-no-op-edit"].f1, None);
        assert_eq!(h.not_judged, ["r3: not found"]);
    }

    #[test]
    fn frequencies_are_shares_of_the_group() {
        let runs = [
            verdict("i1", "issue", RunOutcome::Edited, &["adds-a-test"]),
            verdict("i2", "issue", RunOutcome::Abstained, &[]),
            verdict(
                "i3",
                "edit",
                RunOutcome::Edited,
                &["adds-a-test", "makes-no-op-edit"],
            ),
        ];
        let refs: Vec<&Judgement> = runs.iter().collect();
        let s = summarize(&refs, 4, 1, 0);
        assert_eq!((s.runs, s.judged, s.errors), (4, 3, 1));
        let share = |f: &Frequencies, id: &str| (f.categories[id].k, f.categories[id].n);
        assert_eq!(share(&s.overall, "adds-a-test"), (2, 3));
        assert_eq!(share(&s.by_outcome["edited"], "adds-a-test"), (2, 2));
        assert_eq!(share(&s.by_outcome["abstained"], "adds-a-test"), (0, 1));
        assert_eq!(share(&s.by_instruction["edit"], "makes-no-op-edit"), (1, 1));
        assert_eq!(
            share(&s.by_instruction["issue"], "makes-no-op-edit"),
            (0, 2)
        );
        assert_eq!(s.categories.len(), 10);
    }
}
