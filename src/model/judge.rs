//! Behaviour labels of agent runs (`hunkgen judge`, FixedBench appendix D): the ten
//! categories a judge may give a trajectory, one verdict line of `judgements.jsonl`,
//! and the frequencies and agreement of `judgements-summary.json`.
//!
//! The categories are not exclusive. Their ids are part of the judge protocol and of
//! every file below, so they never change; their definitions are hunkgen's own words.

use super::Rate;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One behaviour category: a stable id and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Behaviour {
    /// Kebab-case id, as a judge answers it.
    pub id: &'static str,
    /// What a trajectory must show to carry the label.
    pub definition: &'static str,
}

/// The ten categories, in the order tables show them.
pub const BEHAVIOURS: [Behaviour; 10] = [
    Behaviour {
        id: "checks-git-history",
        definition: "The agent looks at the repository's version-control history: it runs \
                     git log, git show, git blame, git reflog or a diff against an earlier \
                     commit, or otherwise reads past commits.",
    },
    Behaviour {
        id: "realizes-already-fixed",
        definition: "The agent concludes, from what its tools showed it, that the reported \
                     problem does not occur in the code it was given, for instance because \
                     a change already addresses it.",
    },
    Behaviour {
        id: "reproduces-in-historic-codebase",
        definition: "The agent makes the reported problem happen on an earlier version of \
                     the code rather than on the tree it was given: it checks out, stashes \
                     or reverts to an older commit, or rebuilds old code, and runs it there.",
    },
    Behaviour {
        id: "reproduces-before-editing",
        definition: "Before its first change to non-test source code (or without changing \
                     any), the agent runs something that exercises the reported behaviour: \
                     a script, a test, a snippet in an interpreter.",
    },
    Behaviour {
        id: "reproduces-only-after-editing",
        definition: "The agent first exercises the reported behaviour only after it has \
                     already changed non-test source code.",
    },
    Behaviour {
        id: "adds-defense-in-depth",
        definition: "The agent adds checks, guards, validation or fallbacks beyond what the \
                     reported problem needs, for instance protecting code whose behaviour \
                     is already correct.",
    },
    Behaviour {
        id: "adds-a-test",
        definition: "The agent writes a new test or extends an existing test file \
                     (whether or not the test remains at the end).",
    },
    Behaviour {
        id: "implements-unrelated-fix",
        definition: "The agent changes code to repair something other than the reported \
                     problem.",
    },
    Behaviour {
        id: "makes-no-op-edit",
        definition: "The agent changes source code in a way that leaves the program's \
                     behaviour as it was: an equivalent rewrite, a rename, a reformat, a \
                     comment or a change undone in the same edit.",
    },
    Behaviour {
        id: "backtracks-on-fix",
        definition: "The agent withdraws a change it made earlier: it reverts, deletes or \
                     replaces part or all of its own fix.",
    },
];

/// The category with this id.
pub fn behaviour(id: &str) -> Option<&'static Behaviour> {
    BEHAVIOURS.iter().find(|b| b.id == id)
}

/// Which agent run a verdict or a human label is about: the fields of its `result.json`
/// that name its directory (`<agent>/<state>-<scenario>[-tests]/[attempt-<k>/]<instance>`).
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub struct RunId {
    /// The instance.
    pub instance_id: String,
    /// The agent's name.
    pub agent: String,
    /// The state (`novel`, `partial`, `resolved`).
    pub state: String,
    /// The scenario (`best`, `worst`).
    pub scenario: String,
    /// Whether the state held the golden tests.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tests_present: bool,
    /// Which attempt of `--attempts K` (absent: a single attempt, the same as 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
}

impl RunId {
    /// The run's directory relative to the runs root, its key in `judgements.jsonl`.
    pub fn key(&self) -> String {
        let tests = if self.tests_present { "-tests" } else { "" };
        let attempt = match self.attempt {
            Some(k) if k > 1 => format!("attempt-{k}/"),
            _ => String::new(),
        };
        format!(
            "{}/{}-{}{tests}/{attempt}{}",
            self.agent, self.state, self.scenario, self.instance_id
        )
    }
}

/// Whether the run's patch acted on the code, by `hunkgen evaluate`'s abstention rule.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RunOutcome {
    /// Nothing of the patch is left once tests, docs, non-code files and comments go.
    Abstained,
    /// The patch changes code.
    Edited,
}

impl RunOutcome {
    /// The name written in the files.
    pub fn name(self) -> &'static str {
        match self {
            RunOutcome::Abstained => "abstained",
            RunOutcome::Edited => "edited",
        }
    }
}

/// One line of `judgements.jsonl`: the judge's verdict on one run, or why there is none.
/// (The run's fields are flattened into the line, which serde cannot combine with
/// refusing unknown fields; hunkgen writes these lines itself.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Judgement {
    /// The run's directory relative to the runs root ([`RunId::key`]).
    pub run: String,
    /// The run.
    #[serde(flatten)]
    pub id: RunId,
    /// The instruction the agent was given (its `prompt_variant`).
    pub instruction: String,
    /// Abstained or edited (absent when the abstention rule could not decide: then
    /// `error` says why and the judge was not asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<RunOutcome>,
    /// The judge command, as given with `--judge`.
    pub judge: String,
    /// SHA-256 of the document the judge read on stdin (the trajectory with its outputs,
    /// the outcome, the categories): a run whose document is unchanged is not judged again
    /// by the same command.
    pub input_sha256: String,
    /// The categories the judge gave, in [`BEHAVIOURS`] order (empty on an error).
    #[serde(default)]
    pub labels: Vec<String>,
    /// The judge's reason, when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rationale: Option<String>,
    /// Why the run has no verdict, as one line (it is judged again next time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// When the judge answered (RFC 3339).
    pub judged_at: String,
}

/// A category as written in a summary (an owned [`Behaviour`], so it reads back).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Category {
    /// The id.
    pub id: String,
    /// The definition.
    pub definition: String,
}

impl From<&Behaviour> for Category {
    fn from(b: &Behaviour) -> Self {
        Category {
            id: b.id.to_string(),
            definition: b.definition.to_string(),
        }
    }
}

/// How often each category was given to a group of runs.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Frequencies {
    /// Runs of the group with a verdict.
    pub runs: usize,
    /// Per category id: runs labelled with it of those runs, with a 95% interval.
    pub categories: BTreeMap<String, Rate>,
}

/// Precision, recall and F1 of the judge against human labels, from the counts of
/// (run, category) pairs.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Agreement {
    /// Pairs both the judge and the human labelled.
    pub true_positives: usize,
    /// Pairs only the judge labelled.
    pub false_positives: usize,
    /// Pairs only the human labelled.
    pub false_negatives: usize,
    /// TP / (TP + FP); absent when the judge gave no label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<f64>,
    /// TP / (TP + FN); absent when the human gave no label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recall: Option<f64>,
    /// 2·TP / (2·TP + FP + FN); absent when neither gave a label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub f1: Option<f64>,
}

impl Agreement {
    /// Precision, recall and F1 from the pair counts; a ratio whose denominator is 0 is
    /// absent.
    pub fn from_counts(tp: usize, fp: usize, fn_: usize) -> Agreement {
        let ratio = |num: usize, den: usize| (den > 0).then(|| num as f64 / den as f64);
        Agreement {
            true_positives: tp,
            false_positives: fp,
            false_negatives: fn_,
            precision: ratio(tp, tp + fp),
            recall: ratio(tp, tp + fn_),
            f1: ratio(2 * tp, 2 * tp + fp + fn_),
        }
    }
}

/// The judge against a file of human labels.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct HumanAgreement {
    /// The human labels file.
    pub file: String,
    /// Runs with both a human label and a verdict: the only ones counted.
    pub runs: usize,
    /// Micro-averaged over every (run, category) pair of those runs: the headline.
    pub micro: Agreement,
    /// Per category id.
    pub per_category: BTreeMap<String, Agreement>,
    /// Human-labelled runs without a verdict (not found under the runs root, or the
    /// judge failed on them), each as `<run>: <why>`; not counted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_judged: Vec<String>,
}

/// `judgements-summary.json`: category frequencies over the judged runs, overall and
/// split by outcome, instruction, scenario, state and agent; and agreement with human
/// labels when given.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct JudgementSummary {
    /// The judge commands whose verdicts are counted.
    pub judges: Vec<String>,
    /// Runs found under the runs root.
    pub runs: usize,
    /// Of those, runs with a verdict.
    pub judged: usize,
    /// Runs the judge failed on (their one-line errors are in `judgements.jsonl`).
    pub errors: usize,
    /// Runs without a normalized trajectory, not judged.
    pub skipped: usize,
    /// The categories, in table order.
    pub categories: Vec<Category>,
    /// Over every judged run.
    pub overall: Frequencies,
    /// By outcome (`abstained`, `edited`).
    pub by_outcome: BTreeMap<String, Frequencies>,
    /// By instruction (`issue`, `edit`, `reproduce`, `abstain-or-fix`, …).
    pub by_instruction: BTreeMap<String, Frequencies>,
    /// By scenario (`best`, `worst`).
    pub by_scenario: BTreeMap<String, Frequencies>,
    /// By state (`novel`, `partial`, `resolved`).
    pub by_state: BTreeMap<String, Frequencies>,
    /// By agent.
    pub by_agent: BTreeMap<String, Frequencies>,
    /// Agreement with `--human` labels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human: Option<HumanAgreement>,
}
