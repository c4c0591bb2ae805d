//! Repository states (FixedBench): which state, which scenario, and the `manifest.yaml`
//! written beside each materialized state.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How far the golden fix is applied, because the expected agent behaviour depends on it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum StateKind {
    /// The buggy base R: the golden tests fail.
    Novel,
    /// R with a proper subset of the golden code hunks (or a weak patch): still buggy.
    Partial,
    /// R with the golden patch: nothing is left to fix.
    Resolved,
}

impl StateKind {
    /// All three, in the order of the fix's progress.
    pub const ALL: [StateKind; 3] = [StateKind::Novel, StateKind::Partial, StateKind::Resolved];

    /// Lower-case name, as in paths and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            StateKind::Novel => "novel",
            StateKind::Partial => "partial",
            StateKind::Resolved => "resolved",
        }
    }

    /// What an agent should do in this state: fix, or abstain when it is resolved.
    pub fn expected(self) -> Expected {
        match self {
            StateKind::Novel | StateKind::Partial => Expected::Fix,
            StateKind::Resolved => Expected::Abstain,
        }
    }
}

/// How much context an agent gets, because history can reveal the fix (Best) or be gone.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Scenario {
    /// A git repository whose history ends at the state (leak-gated).
    Best,
    /// A plain directory without `.git`.
    Worst,
}

impl Scenario {
    /// Both, the leak-gated one first.
    pub const ALL: [Scenario; 2] = [Scenario::Best, Scenario::Worst];

    /// Lower-case name, as in paths and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::Best => "best",
            Scenario::Worst => "worst",
        }
    }
}

impl std::str::FromStr for StateKind {
    type Err = super::UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        super::parse_name(s, "state", &Self::ALL, Self::name)
    }
}

impl std::fmt::Display for StateKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Scenario {
    type Err = super::UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        super::parse_name(s, "scenario", &Self::ALL, Self::name)
    }
}

impl std::fmt::Display for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The behaviour a benchmark scores in a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Expected {
    /// Make the golden tests pass.
    Fix,
    /// Change no code.
    Abstain,
}

/// Where a Partial state's change came from, so results can be grouped by strategy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", tag = "strategy")]
pub enum PartialSource {
    /// A proper, non-empty subset of the counted golden hunks (plus every uncounted one).
    HunkSubset {
        /// The counted hunks left out (patch indices).
        omitted: Vec<usize>,
    },
    /// An external patch file.
    PatchFile {
        /// The file, as given.
        path: String,
    },
    /// A weaker agent's patch from a `hunkgen run` on the Novel state (FixedBench's
    /// construction: the agent's failing attempt becomes the Partial state).
    Run {
        /// The run directory (`runs/<agent>/novel-<scenario>`), as given.
        run: String,
        /// The agent that made the patch, as its `result.json` names it.
        agent: String,
    },
}

/// `manifest.yaml` of one materialized state: what it is, what it should elicit and what
/// it was checked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[allow(non_snake_case)] // FAIL_TO_PASS / PASS_TO_PASS are SWE-bench's field names.
pub struct StateManifest {
    /// Row schema version of the dataset the state was made from.
    pub schema_version: u32,
    /// The instance.
    pub instance_id: String,
    /// Repository name (the instance's `repo`).
    pub repo: String,
    /// Which state.
    pub state: StateKind,
    /// Which scenario.
    pub scenario: Scenario,
    /// `fix` for Novel and Partial, `abstain` for Resolved.
    pub expected: Expected,
    /// The buggy base commit, in the repository the state was made from (the instance's
    /// `repo_commits` when it has them).
    pub base_commit: String,
    /// The real fix commit, in that repository (absent from Novel and Partial Best states).
    pub fix_commit: String,
    /// HEAD of a Best state (the base, or the state's own commit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_commit: Option<String>,
    /// Patch indices (`HunkRecord::patch_index`) of the golden hunks applied.
    pub hunks_applied: Vec<usize>,
    /// Where a Partial state's change came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<PartialSource>,
    /// Whether the golden test patch is applied (the "tests already present" variant).
    pub tests_present: bool,
    /// Golden failing tests, copied from the instance.
    pub FAIL_TO_PASS: Vec<String>,
    /// Golden passing tests, copied from the instance.
    pub PASS_TO_PASS: Vec<String>,
    /// Leak-gate checks the state passed (Best only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gate: Vec<String>,
    /// The test runner's verdict on this state; empty until validation fills it.
    #[serde(default)]
    pub verification: Option<serde_json::Value>,
}

/// The `states{}` record of an instance: which states were written, and why any was not.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct StatesRecord {
    /// Written states, as their directory names under `states/<id>/` (`novel-best`, …).
    pub written: Vec<String>,
    /// States not written, each with the reason (`partial: no subset still fails`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}
