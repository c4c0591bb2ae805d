//! The dataset card (`dataset.yaml`): what was built, from what, by which version.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The dataset card, written beside `instances.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Card {
    /// Dataset name (the recipe's `name`).
    pub name: String,
    /// Row schema version.
    pub schema_version: u32,
    /// hunkgen version that built it.
    pub tool_version: String,
    /// Build time (UTC, RFC 3339).
    pub built_at: String,
    /// SHA-256 of the recipe text, so a rebuild can tell its own dataset from another's.
    #[serde(default)]
    pub recipe_sha256: String,
    /// The recipe file the dataset was built from.
    #[serde(default)]
    pub recipe_file: String,
    /// Source description (paths, revisions).
    pub sources: Vec<String>,
    /// Repository path per instance `repo` name, so states can be materialized from the
    /// dataset alone (`hunkgen checkout`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub repositories: BTreeMap<String, String>,
    /// Counts.
    pub counts: Counts,
    /// SHA-256 of each data file.
    pub checksums: Vec<(String, String)>,
    /// The recipe, verbatim.
    pub recipe: String,
}

/// Counts for the card and the build summary.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq, Eq)]
pub struct Counts {
    /// Items the source walked (bugs listed, commits visited); 0 in cards written before
    /// it was recorded.
    #[serde(default)]
    pub walked: usize,
    /// Bugs or commits examined (candidates produced by the source).
    pub examined: usize,
    /// Candidates with at least `min_code_hunks` counted hunks.
    #[serde(default)]
    pub multi_hunk: usize,
    /// Of the `multi_hunk` candidates, those `select.sample` drew (absent without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled: Option<usize>,
    /// Of the `multi_hunk` candidates, those `select.sample` left out: not rejections,
    /// never validated, in no file of the dataset (absent without a sample).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_sampled: Option<usize>,
    /// Items rejected (`rejected.jsonl`).
    #[serde(default)]
    pub rejected: usize,
    /// Instances whose golden tests were run and confirmed (0 without validation).
    #[serde(default)]
    pub validated: usize,
    /// Instances kept.
    pub instances: usize,
    /// Counted hunks over all instances.
    pub hunks: usize,
    /// The git walk's funnel, step by step (git sources only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub funnel: Option<MineFunnel>,
}

/// How a git walk narrowed the history down to candidates, so a dataset says how many
/// commits were looked at, not only how many were kept.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq, Eq)]
pub struct MineFunnel {
    /// Commits visited, merges included.
    pub walked: usize,
    /// Commits left out because they are only on branches that never shipped (neither
    /// the default branch nor a tag reaches them; `all_branches: true` walks them).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unshipped: usize,
    /// Commits with at most one parent (merges are skipped, never rejected).
    pub non_merge: usize,
    /// Non-merge commits whose message passed the message rules.
    pub message_matched: usize,
    /// Of those, commits touching code and tests (code only when tests are not required).
    pub code_and_tests: usize,
    /// Of those, commits with at least `min_code_hunks` code hunks.
    pub multi_hunk: usize,
    /// Multi-hunk commits rejected, per commit rule (`revert`, `duplicate_patch`, …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rejected: BTreeMap<String, usize>,
    /// Commits kept as candidates (`multi_hunk` minus the rejected ones).
    pub kept: usize,
    /// Of the kept commits, those left with fewer than `min_code_hunks` counted hunks once
    /// file roles and the hunk rules (whitespace-, comment-, docstring-, import-only) are
    /// applied: no instance (listed in `report/tables.md` with kept = no); the instances
    /// are `kept` minus these.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub few_counted_hunks: usize,
    /// Of the instances, those `select.sample` did not draw (not rejections: left out
    /// before validation, in no file of the dataset).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_sampled: usize,
    /// Commits whose parent is missing from the repository (a shallow clone's boundary);
    /// never examined.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub missing_parent: usize,
    /// Commits that could not be read or diffed (`git_objects` rows); outside the steps.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unreadable: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
