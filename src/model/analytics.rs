//! Trajectory analytics in the terms of the papers the agent runs are compared with: the
//! multi-hunk agent study's seven step categories and category n-grams by outcome, and the
//! Passerine study's four smells, command frequency by step index and the file-tree
//! distance of unresolved runs' edits from the golden files (`summary.json`
//! `trajectories.analytics`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A step in the agent study's seven categories (`OTHER` for what none of them is: a
/// plan, a message, an unknown tool).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum StudyCategory {
    /// Changed a file.
    Write,
    /// Read a file.
    Read,
    /// Ran tests.
    Test,
    /// Compiled or built.
    Build,
    /// Searched file contents (grep, rg, a Grep tool).
    SearchContent,
    /// Searched file names (find, a Glob tool).
    SearchFiles,
    /// Moved around or listed directories (ls, tree, cd, a directory-listing tool).
    Navigate,
    /// None of the seven.
    Other,
}

impl StudyCategory {
    /// Every category, in the study's order.
    pub const ALL: [StudyCategory; 8] = [
        StudyCategory::Write,
        StudyCategory::Read,
        StudyCategory::Test,
        StudyCategory::Build,
        StudyCategory::SearchContent,
        StudyCategory::SearchFiles,
        StudyCategory::Navigate,
        StudyCategory::Other,
    ];

    /// The study's name (`SEARCH_CONTENT`).
    pub fn name(self) -> &'static str {
        match self {
            StudyCategory::Write => "WRITE",
            StudyCategory::Read => "READ",
            StudyCategory::Test => "TEST",
            StudyCategory::Build => "BUILD",
            StudyCategory::SearchContent => "SEARCH_CONTENT",
            StudyCategory::SearchFiles => "SEARCH_FILES",
            StudyCategory::Navigate => "NAVIGATE",
            StudyCategory::Other => "OTHER",
        }
    }
}

/// Steps of one category in one group of runs.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct CategoryShare {
    /// Steps.
    pub steps: usize,
    /// Of all steps of the group (0–1).
    pub share: f64,
}

/// One category n-gram of a group of runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CategoryGram {
    /// The categories, in order.
    pub categories: Vec<StudyCategory>,
    /// Windows of the group equal to it.
    pub count: usize,
    /// Of all windows of this length in the group (0–1).
    pub share: f64,
}

/// Passerine's four smells in one group of trajectories: how many show each.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Smells {
    /// Trajectories in the group.
    pub trajectories: usize,
    /// NO_TEST: no test command at all.
    pub no_test: usize,
    /// NO_OP_CAT: a file read again with no edit to it since it was last read.
    pub no_op_cat: usize,
    /// CONSECUTIVE_SEARCH: three or more searches in a row.
    pub consecutive_search: usize,
    /// CONSECUTIVE_EDIT: three or more edits of the same file in a row.
    pub consecutive_edit: usize,
}

/// The file-tree distance of unresolved runs' edited files from the golden files.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct TreeDistance {
    /// Unresolved runs that edited at least one file.
    pub runs: usize,
    /// Per run, the mean over its edited files of the distance to the nearest golden
    /// file (edges between the two leaves of the directory tree: 0 the same file, 2 a
    /// sibling), in run order.
    pub per_run: Vec<f64>,
    /// Their mean.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean: Option<f64>,
    /// Their median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median: Option<f64>,
}

/// Steps of one category by how they ran: a tool of the agent's own (Read, Grep,
/// `read_file`, an MCP tool, Codex's file changes) or a shell command.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Via {
    /// Through the agent's own tools.
    pub native: usize,
    /// Through shell commands.
    pub shell: usize,
}

/// The analytics of one system's runs (`trajectories.analytics`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Analytics {
    /// Steps per category by outcome (`success`, `failure`), then category name.
    pub categories: BTreeMap<String, BTreeMap<String, CategoryShare>>,
    /// The most frequent category n-grams by window length (`"2"`, `"3"`), then outcome.
    pub ngrams: BTreeMap<String, BTreeMap<String, Vec<CategoryGram>>>,
    /// Smells by outcome.
    pub smells: BTreeMap<String, Smells>,
    /// Per step index (0-based, the first steps of every run), steps per category.
    pub by_step: Vec<BTreeMap<String, usize>>,
    /// Unresolved runs' edits against the golden files.
    pub tree_distance: TreeDistance,
    /// Per category, steps through native tools and through the shell (the agent
    /// study's Table 7).
    #[serde(default)]
    pub via: BTreeMap<String, Via>,
}
