//! The recipe as written: raw serde structs that reject unknown keys, and YAML text
//! parsed into them with the place of an error and the closest valid key.

use super::RecipeError;
use crate::annotate::divergence::Profile;
use crate::annotate::proximity::PackageRule;
use crate::classify::Classifier;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A recipe as written in YAML; every section rejects unknown keys.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    /// Dataset name; also the default output directory name under `datasets/`.
    pub name: String,
    /// Free text for the dataset card.
    #[serde(default)]
    pub description: Option<String>,
    /// Output directory (relative to the recipe file); default `../datasets/<name>`.
    #[serde(default)]
    pub output: Option<PathBuf>,
    /// Where bugs come from.
    pub source: SourceSpec,
    /// Which files are code / test / other.
    #[serde(default)]
    pub files: Classifier,
    /// Which bugs and hunks are kept and counted.
    #[serde(default)]
    pub select: SelectSpec,
    /// Annotation (divergence, proximity) settings.
    #[serde(default)]
    pub annotate: AnnotateSpec,
    /// Report options.
    #[serde(default)]
    pub report: ReportSpec,
    /// Golden-test validation (ARCHITECTURE §5); absent: no test is run.
    #[serde(default)]
    pub validate: Option<ValidateSpec>,
    /// Repository states (FixedBench, ARCHITECTURE §6); absent: none are written.
    #[serde(default)]
    pub states: Option<StatesSpec>,
}

/// Which repository states a build writes under `states/`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatesSpec {
    /// `novel`, `partial`, `resolved` (default: all three).
    #[serde(default = "all_kinds")]
    pub kinds: Vec<crate::model::StateKind>,
    /// `best` (git history ending at the state) and/or `worst` (no `.git`); default both.
    #[serde(default = "both_scenarios")]
    pub scenarios: Vec<crate::model::Scenario>,
    /// Also write each state with the golden test patch applied ("tests present"); the
    /// older spelling of `golden_tests: both`.
    #[serde(default)]
    pub with_tests: bool,
    /// Whether the golden tests are in the states: `withheld` (default; the test patch
    /// is not applied, as SWE-bench hides it), `present` (applied, as in a Defects4J
    /// buggy checkout) or `both` (each state written both ways).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub golden_tests: Option<GoldenTests>,
    /// How Partial states are made: `{from: hunk-subset, cap: N}` (default),
    /// `{from: patches, dir: DIR}` or `{from: run, run: DIR}` (a weaker agent's patches
    /// from `hunkgen run` on Novel, FixedBench's way).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<PartialSpec>,
    /// Partial states from `<dir>/<instance_id>.patch` instead of golden-hunk subsets;
    /// the older spelling of `partial: {from: patches, dir: DIR}`.
    #[serde(default)]
    pub partial_patches: Option<PathBuf>,
    /// At most this many hunk subsets are tried for a Partial state (largest first).
    #[serde(default = "subset_cap")]
    pub subset_cap: usize,
}

/// Where a build's Partial states come from (`states.partial`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "from", rename_all = "kebab-case")]
pub enum PartialSpec {
    /// The largest proper subset of the golden hunks that still fails a golden test.
    HunkSubset {
        /// At most this many subsets are tried (default 64).
        #[serde(default = "subset_cap")]
        cap: usize,
    },
    /// `<dir>/<instance_id>.patch`, weak patches made elsewhere.
    Patches {
        /// The directory of patches.
        dir: PathBuf,
    },
    /// `<run>/<instance_id>/model.patch` of a `hunkgen run` on the Novel state.
    Run {
        /// The run directory (`runs/<agent>/novel-<scenario>`).
        run: PathBuf,
    },
}

/// Whether a build's states hold the golden tests (the manifest's `tests_present`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GoldenTests {
    /// The test patch is not applied: an agent must write its own tests (SWE-bench).
    Withheld,
    /// The test patch is applied: the failing tests are there to run (Defects4J's
    /// buggy version, the agent study's checkouts).
    Present,
    /// Each state is written both ways (`-tests` in the directory name when present).
    Both,
}

impl GoldenTests {
    /// The recipe's word for it.
    pub fn name(self) -> &'static str {
        match self {
            GoldenTests::Withheld => "withheld",
            GoldenTests::Present => "present",
            GoldenTests::Both => "both",
        }
    }
}

impl StatesSpec {
    /// Which `tests_present` variants a build writes, in order: `golden_tests`, else
    /// `with_tests` (both when true), else withheld only.
    pub fn test_variants(&self) -> &'static [bool] {
        match (self.golden_tests, self.with_tests) {
            (Some(GoldenTests::Withheld), _) | (None, false) => &[false],
            (Some(GoldenTests::Present), _) => &[true],
            (Some(GoldenTests::Both), _) | (None, true) => &[false, true],
        }
    }
}

fn all_kinds() -> Vec<crate::model::StateKind> {
    crate::model::StateKind::ALL.to_vec()
}

fn both_scenarios() -> Vec<crate::model::Scenario> {
    vec![crate::model::Scenario::Best, crate::model::Scenario::Worst]
}

fn subset_cap() -> usize {
    64
}

/// Golden-test validation settings.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValidateSpec {
    /// Runs per tree; a test whose outcome differs between them is flaky and excluded.
    #[serde(default = "one")]
    pub reruns: usize,
    /// Seconds one run may take before its whole process tree is stopped.
    #[serde(default = "default_timeout")]
    pub timeout: u64,
    /// Address-space limit per run, in MiB.
    #[serde(default)]
    pub memory_mb: Option<u64>,
    /// Processes (threads included) a run may have at once (default 4096 in the
    /// sandbox): a fork bomb stops there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_processes: Option<u64>,
    /// The largest file a run may write, in MiB (default 4096): a run filling the disk
    /// through one file gets `EFBIG` there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_file_mb: Option<u64>,
    /// `touched` (the test files the test patch touches, as SWE-bench) or `full`.
    #[serde(default)]
    pub scope: crate::validate::stage::Scope,
    /// `auto` (bubblewrap when it works, else a warning), `required` or `off`.
    #[serde(default)]
    pub sandbox: SandboxChoice,
    /// Cache directory for environments and run results (default `$HUNKGEN_CACHE_DIR`,
    /// else `~/.cache/hunkgen`).
    #[serde(default)]
    pub cache: Option<PathBuf>,
    /// Let environment builds download packages when the cache lacks them.
    #[serde(default = "yes")]
    pub network_for_setup: bool,
    /// How to run tests; each instance uses the suites whose `paths` its test patch
    /// touches.
    #[serde(default)]
    pub suites: Vec<crate::validate::stage::Suite>,
    /// Defects4J sources: build and test each bug's buggy and fixed versions with
    /// Defects4J itself (no suites needed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defects4j: Option<crate::validate::stage::D4jValidate>,
    /// Ablate each counted hunk of a confirmed instance (the patch without it) and run
    /// its FAIL_TO_PASS tests: `hunks[].necessary`. Default on, off for Defects4J
    /// sources (each ablation is a whole Defects4J compile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub necessary_hunks: Option<bool>,
}

/// Sandbox policy as the recipe spells it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SandboxChoice {
    /// bubblewrap when it works here, else process groups and rlimits with a warning.
    #[default]
    Auto,
    /// Fail when bubblewrap cannot sandbox.
    Required,
    /// No sandbox (trusted code only).
    Off,
}

impl SandboxChoice {
    /// The runner's policy for this choice.
    pub fn policy(self) -> crate::validate::SandboxPolicy {
        match self {
            SandboxChoice::Auto => crate::validate::SandboxPolicy::Auto,
            SandboxChoice::Required => crate::validate::SandboxPolicy::Required,
            SandboxChoice::Off => crate::validate::SandboxPolicy::Off,
        }
    }
}

fn one() -> usize {
    1
}

fn default_timeout() -> u64 {
    600
}

/// Annotation settings.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AnnotateSpec {
    /// Annotate at all (divergence needs no sources; D_ast and methods do).
    pub enabled: bool,
    /// `hunk4j` (default), `hunk4j-published` or `algorithm1` (ARCHITECTURE §4).
    pub profile: Profile,
    /// Fixed λ for proximity; the dataset's ⌊median package depth / 2⌋ when omitted.
    pub lambda: Option<u32>,
    /// Hunk packages: `auto` (HUNK4J's directory rule for Defects4J, module paths for
    /// other sources), `directories` or `modules`.
    pub packages: PackageRule,
    /// `punkt_tab` directory for the tokenizer (else `HUNKGEN_PUNKT_DIR`, else none).
    pub punkt: Option<PathBuf>,
}

impl Default for AnnotateSpec {
    fn default() -> Self {
        AnnotateSpec {
            enabled: true,
            profile: Default::default(),
            lambda: None,
            packages: PackageRule::Auto,
            punkt: None,
        }
    }
}

/// The bug source; exactly one kind per recipe (a map with one key, since YAML enums
/// would need tags that users should not have to write).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    /// A Defects4J `framework/projects` tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defects4j: Option<Defects4jSpec>,
    /// A local git repository's history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<GitSpec>,
    /// A SWE-bench-format instances file and local clones of its repositories.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swebench: Option<SwebenchSpec>,
    /// Merged GitHub pull requests that close issues, patches from a local clone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub github: Option<GithubSpec>,
}

/// The one source a recipe names.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// See [`Defects4jSpec`].
    Defects4j(&'a Defects4jSpec),
    /// See [`GitSpec`].
    Git(&'a GitSpec),
    /// See [`SwebenchSpec`].
    Swebench(&'a SwebenchSpec),
    /// See [`GithubSpec`].
    Github(&'a GithubSpec),
}

/// What a recipe must name exactly one of, for messages.
pub(super) const SOURCE_KINDS: &str =
    "expected exactly one of `defects4j`, `git`, `github`, `swebench`";

impl SourceSpec {
    /// The single configured source.
    pub fn kind(&self) -> Option<Source<'_>> {
        match (&self.defects4j, &self.git, &self.github, &self.swebench) {
            (Some(d), None, None, None) => Some(Source::Defects4j(d)),
            (None, Some(g), None, None) => Some(Source::Git(g)),
            (None, None, Some(g), None) => Some(Source::Github(g)),
            (None, None, None, Some(s)) => Some(Source::Swebench(s)),
            _ => None,
        }
    }
}

/// SWE-bench-format import settings (`source: swebench`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwebenchSpec {
    /// The instances: JSON Lines or one JSON list, in SWE-bench's schema (relative to
    /// the recipe file).
    pub instances: PathBuf,
    /// Each instance `repo` (`owner/name`) → a local clone holding its `base_commit`
    /// (relative to the recipe file); instances of other repositories are rejected.
    pub repos: BTreeMap<String, PathBuf>,
}

/// Defects4J source settings.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defects4jSpec {
    /// The `framework/projects` directory (relative to the recipe file).
    pub path: PathBuf,
    /// Projects to read; all projects found when omitted.
    #[serde(default)]
    pub projects: Option<Vec<String>>,
    /// Bugs to read (`Lang_10`, `Closure_3`); every active bug of the projects when
    /// omitted. A fixed sample for a measurement that cannot afford the whole set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bugs: Option<Vec<String>>,
    /// The Defects4J release the tree comes from (`v2.1.0`), as the recipe states it;
    /// reported in the card and the report, not checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Per project: where its git repository is and how Defects4J revisions map onto it.
    /// Projects without a repository keep their instances with AST fields null.
    #[serde(default)]
    pub repos: BTreeMap<String, RepoSpec>,
}

/// A project's repository and the data that maps Defects4J's view onto it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepoSpec {
    /// Local clone or mirror (relative to the recipe file); `--repo NAME=PATH` overrides.
    #[serde(default)]
    pub path: Option<PathBuf>,
    /// CSV that maps Defects4J's fixed revision to a commit of this repository.
    #[serde(default)]
    pub revision_map: Option<RevisionMap>,
    /// Directory prefixes tried when a path is missing at a revision (`JodaTime`).
    #[serde(default)]
    pub path_prefixes: Vec<String>,
}

/// A revision map file and the two columns to read from it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RevisionMap {
    /// The CSV file (relative to the recipe file).
    pub file: PathBuf,
    /// Column holding Defects4J's `revision.id.fixed`.
    pub from: String,
    /// Column holding the commit to read instead.
    pub to: String,
    /// Column holding the buggy revision's commit in the repository, where a state's
    /// history ends (default: the first parent of `to`'s commit).
    #[serde(default)]
    pub buggy_to: Option<String>,
}

/// git-history source settings.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GitSpec {
    /// The repository (relative to the recipe file).
    pub repo: PathBuf,
    /// Name used in `instance_id` and `repo` fields (`owner/repo` gives ids
    /// `owner__repo-<12 hex>`); default: `owner/repo` of `url`, else the repository
    /// directory name.
    #[serde(default)]
    pub name: Option<String>,
    /// The repository's web address on its forge (`https://github.com/owner/repo`), so
    /// issue references (`#12`) get URLs.
    #[serde(default)]
    pub url: Option<String>,
    /// The forge at `url` (`github`, `gitlab`, `gitea`) when its host does not say.
    #[serde(default)]
    pub forge: Option<String>,
    /// Regex of issue-tracker keys in messages (`LANG-\d+`), case-sensitive.
    #[serde(default)]
    pub issue_regex: Option<String>,
    /// URL of a tracker key, `{id}` replaced by it
    /// (`https://issues.apache.org/jira/browse/{id}`).
    #[serde(default)]
    pub issue_url: Option<String>,
    /// `A..B` range or a single ref; what shipped when omitted (the default branch and
    /// every tag).
    #[serde(default)]
    pub revs: Option<String>,
    /// Walk every branch, local and remote-tracking, not only what shipped (development
    /// branches, fix-ups on unmerged branches).
    #[serde(default)]
    pub all_branches: bool,
    /// Regex a fix commit's whole message must match (case-insensitive unless `(?-i)`);
    /// a fix/bug word rule when omitted.
    #[serde(default)]
    pub message_regex: Option<String>,
    /// Regex the subject (first line) must match, so a squash merge's body ("* fix
    /// typo") does not select it; no subject rule when omitted.
    #[serde(default)]
    pub subject_regex: Option<String>,
    /// Messages matching this are never selected (reverts, version bumps, bots).
    #[serde(default)]
    pub exclude_regex: Option<String>,
    /// Require the commit to touch at least one test file as well as code.
    #[serde(default = "yes")]
    pub require_tests: bool,
    /// Upper bound on changed code lines (added + removed); a larger commit becomes a
    /// `too_many_changed_lines` rejection.
    #[serde(default)]
    pub max_changed_lines: Option<usize>,
    /// Upper bound on the files a commit changes (code, tests and other files); a larger
    /// commit becomes a `too_many_files` rejection.
    #[serde(default)]
    pub max_files: Option<usize>,
    /// Upper bound on code hunks; a larger commit becomes a `too_many_hunks` rejection.
    #[serde(default)]
    pub max_code_hunks: Option<usize>,
    /// Reject reverts (`Revert "…"` subject, `This reverts commit <id>` body).
    #[serde(default = "yes")]
    pub reject_reverts: bool,
    /// Reject a commit whose own changelog entries (lines added to CHANGES/HISTORY/NEWS
    /// files, towncrier fragments) file it under a category other than bug fixes.
    #[serde(default = "yes")]
    pub reject_changelog_non_fixes: bool,
    /// Reject a commit whose subject's fix words only close an issue (`Fix #43: Save
    /// hash value`), which may be a bug or a feature.
    #[serde(default = "yes")]
    pub reject_closing_keyword_only: bool,
    /// Reject a commit whose referenced GitHub issues are labelled as something other
    /// than a bug and none as a bug (`issue_label_not_fix`); needs `url:` on GitHub and
    /// the API. Off when omitted; `issue_labels: {}` takes the default lists.
    #[serde(default)]
    pub issue_labels: Option<IssueLabelsSpec>,
    /// Reject a commit whose referenced JIRA issues are of a type other than a bug and
    /// none of a bug type (`issue_type_not_fix`); a subject naming a JIRA key selects its
    /// commit so the type can decide. Needs `url:` (the JIRA server). Off when omitted.
    #[serde(default)]
    pub issue_types: Option<IssueTypesSpec>,
    /// Reject a commit whose git patch-id an earlier commit has (cherry-picks); the
    /// earliest is kept.
    #[serde(default = "yes")]
    pub reject_duplicates: bool,
    /// Re-check every object's hash while reading (libgit2's default); `false` is faster.
    #[serde(default = "yes")]
    pub verify_objects: bool,
}

/// The issue-label rule of the git source: which GitHub labels mark a bug and which
/// mark something else, and how to reach the API.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IssueLabelsSpec {
    /// API root; GitHub Enterprise is `https://HOST/api/v3`.
    #[serde(default = "github_api")]
    pub api: String,
    /// Labels that mark a bug: a commit referencing one such issue is kept (default
    /// `bug`, `bugfix`, `bug fix`, `regression`, `defect`, `crash`).
    #[serde(default)]
    pub fix: Option<Vec<String>>,
    /// Labels that mark something else (default `enhancement`, `feature`, `feature
    /// request`, `new feature`, `improvement`, `documentation`, `docs`, `question`,
    /// `refactor`, `refactoring`, `performance`, `breaking change`). Compared without
    /// case, `type:`/`kind/` prefixes or decoration.
    #[serde(default)]
    pub not_fix: Option<Vec<String>>,
    /// Response cache (default `<hunkgen cache>/github`, shared with the GitHub source).
    #[serde(default)]
    pub cache: Option<PathBuf>,
    /// Seconds the build may wait for rate limits before it keeps the rest unchecked.
    #[serde(default = "default_max_wait")]
    pub max_wait: u64,
}

/// The issue-type rule of the git source: the JIRA server, which projects' keys count,
/// which issue types mark a bug and which mark something else.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IssueTypesSpec {
    /// The JIRA server (`https://issues.apache.org/jira`); required.
    #[serde(default)]
    pub url: Option<String>,
    /// Project keys whose issues count (`[LANG]`); default: the keys `issue_regex`
    /// matches when the recipe has one, else any `ABC-123` key.
    #[serde(default)]
    pub projects: Option<Vec<String>>,
    /// Issue types that mark a bug: a commit referencing one such issue is kept
    /// (default `Bug`).
    #[serde(default)]
    pub fix: Option<Vec<String>>,
    /// Issue types that mark something else (default `Improvement`, `New Feature`,
    /// `Task`, `Wish`, `Test`, `Documentation`, `Dependency upgrade`, `Story`, `Epic`).
    /// Compared without case.
    #[serde(default)]
    pub not_fix: Option<Vec<String>>,
    /// Response cache (default `<hunkgen cache>/jira`).
    #[serde(default)]
    pub cache: Option<PathBuf>,
    /// Seconds the build may wait for `Retry-After` before it judges the rest without
    /// their types.
    #[serde(default = "default_max_wait")]
    pub max_wait: u64,
}

/// GitHub source settings (SWE-bench's mining: merged pull requests that close issues).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GithubSpec {
    /// `owner/name` on GitHub.
    pub repo: String,
    /// Local clone holding the pull requests' commits (relative to the recipe file).
    pub clone: PathBuf,
    /// API root; GitHub Enterprise is `https://HOST/api/v3`.
    #[serde(default = "github_api")]
    pub api: String,
    /// Pull requests merged on or after this date (`2024-01-01` or RFC 3339, UTC).
    #[serde(default)]
    pub since: Option<String>,
    /// Pull requests merged on or before this date (a bare date includes the whole day).
    #[serde(default)]
    pub until: Option<String>,
    /// Keep pull requests carrying at least one of these labels (any label when empty).
    #[serde(default)]
    pub labels: Vec<String>,
    /// Only pull requests into this branch (any branch when omitted).
    #[serde(default)]
    pub base_branch: Option<String>,
    /// Keep pull requests that close no issue, with their own title and body as the
    /// problem statement (rejected as `no_linked_issue` otherwise).
    #[serde(default)]
    pub allow_unlinked: bool,
    /// Reject pull requests that change no test file (`no_test_patch`).
    #[serde(default = "yes")]
    pub require_tests: bool,
    /// Stop after this many merged pull requests (newest updated first).
    #[serde(default)]
    pub max_pulls: Option<usize>,
    /// Response cache (default `<hunkgen cache>/github`).
    #[serde(default)]
    pub cache: Option<PathBuf>,
    /// Seconds the whole build may wait for rate limits before it stops and keeps what
    /// it has.
    #[serde(default = "default_max_wait")]
    pub max_wait: u64,
}

fn github_api() -> String {
    "https://api.github.com".into()
}

fn default_max_wait() -> u64 {
    3600
}

fn yes() -> bool {
    true
}

/// Selection and hunk-counting rules (HUNK4J's rules are switches here, not code).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelectSpec {
    /// Keep bugs with at least this many counted code hunks (2 = multi-hunk).
    pub min_code_hunks: usize,
    /// Do not count hunks of files that the fix creates.
    pub skip_created_files: bool,
    /// Do not count import-only hunks. Defects4J: hunks that only delete import lines
    /// (HUNK4J's text rule; default off). Git: hunks whose changed lines are all imports,
    /// comments or blank, decided with the parser (default on).
    pub skip_import_only_hunks: Option<bool>,
    /// Git and GitHub sources: do not count hunks that change only whitespace (default on).
    pub skip_whitespace_only_hunks: Option<bool>,
    /// Git and GitHub sources: do not count hunks that change only comments (default on).
    pub skip_comment_only_hunks: Option<bool>,
    /// Git and GitHub sources: do not count hunks that change only Python docstrings (default on).
    pub skip_docstring_only_hunks: Option<bool>,
    /// Git and GitHub sources: reject commits whose code is unchanged once whitespace, comments and
    /// docstrings are stripped, to `rejected.jsonl` as `formatting_only` (default on).
    pub reject_formatting_only: Option<bool>,
    /// Keep validated instances with at least this many necessary hunks (a counted hunk
    /// whose removal makes a FAIL_TO_PASS test fail); needs `validate:`. Others go to
    /// `rejected.jsonl` as `few_necessary_hunks`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_necessary_hunks: Option<usize>,
    /// Reject validated instances whose every FAIL_TO_PASS test failed before the fix only
    /// because a name the patch adds was missing (a new function, class, attribute or
    /// keyword argument: a feature); needs `validate:`. To `rejected.jsonl` as
    /// `new_api_only`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub reject_new_api_only: bool,
    /// Keep a reproducible sample of N of the instances that pass the filters above,
    /// chosen by a hash of the seed and each instance id (before validation and states,
    /// so the others cost nothing); the rest are counted as `not_sampled`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample: Option<SampleSpec>,
}

/// `select.sample`: how many instances to keep, and how they are drawn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampleSpec {
    /// How many instances to keep (at least 1); all of them when fewer pass the filters.
    pub n: usize,
    /// The seed of the draw: the same seed picks the same instances on any machine.
    #[serde(default)]
    pub seed: u64,
    /// `none` (default), `project` or `class` (proximity): N shared among the strata in
    /// proportion to their sizes, then drawn within each.
    #[serde(default)]
    pub stratify_by: Stratify,
}

/// The strata a sample is drawn from (`select.sample.stratify_by`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stratify {
    /// One stratum: the whole set.
    #[default]
    None,
    /// One stratum per project (an instance's `project`).
    Project,
    /// One stratum per proximity class (needs annotation).
    Class,
}

impl Stratify {
    /// The recipe's word for it.
    pub fn name(self) -> &'static str {
        match self {
            Stratify::None => "none",
            Stratify::Project => "project",
            Stratify::Class => "class",
        }
    }
}

impl Default for SelectSpec {
    fn default() -> Self {
        SelectSpec {
            min_code_hunks: 2,
            skip_created_files: false,
            skip_import_only_hunks: None,
            skip_whitespace_only_hunks: None,
            skip_comment_only_hunks: None,
            skip_docstring_only_hunks: None,
            reject_formatting_only: None,
            min_necessary_hunks: None,
            reject_new_api_only: false,
            sample: None,
        }
    }
}

/// Report options.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReportSpec {
    /// Published figures to print beside the computed ones (`hunk4j`).
    pub compare_with: Option<String>,
}

/// The 1-based line and column of a dotted key in recipe YAML text (block style), found
/// by following each segment at a deeper indentation than its parent.
pub fn locate(text: &str, key: &str) -> Option<(usize, usize)> {
    let mut found = None;
    let mut min_indent = 0usize;
    let mut start = 0usize;
    let lines: Vec<&str> = text.lines().collect();
    for seg in key.split('.').filter(|s| !s.is_empty()) {
        let mut hit = None;
        for (i, line) in lines.iter().enumerate().skip(start) {
            let trimmed = line.trim_start();
            let indent = line.len() - trimmed.len();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            if found.is_some() && indent < min_indent {
                break;
            }
            let key_part = trimmed.trim_start_matches("- ");
            if key_part
                .strip_prefix(seg)
                .is_some_and(|r| r.starts_with(':'))
            {
                hit = Some((i, indent + (trimmed.len() - key_part.len())));
                break;
            }
        }
        let (i, col) = hit?;
        found = Some((i + 1, col + 1));
        min_indent = col + 1;
        start = i + 1;
    }
    found
}

/// Parse recipe text; `file` is only used in error messages.
pub fn parse(text: &str, file: &Path) -> Result<Recipe, RecipeError> {
    let de = serde_norway::Deserializer::from_str(text);
    let recipe: Recipe = serde_path_to_error::deserialize(de).map_err(|e| {
        let key = e.path().to_string();
        let inner = e.into_inner();
        let location = inner.location().map(|l| (l.line(), l.column()));
        let raw = inner.to_string();
        // serde_norway appends " at line L column C"; we print the location up front.
        let mut message = match raw.find(" at line ") {
            Some(i) => raw[..i].to_string(),
            None => raw,
        };
        // serde_norway prefixes the parent's path ("source.defects4j: unknown field ...").
        if let Some((head, rest)) = message.split_once(": ") {
            if key.starts_with(head) && !head.contains(' ') {
                message = rest.to_string();
            }
        }
        // For an unknown key, the place is the map that holds it.
        let key = if message.starts_with("unknown field") {
            key.rsplit_once('.')
                .map(|(p, _)| p.to_string())
                .unwrap_or_default()
        } else {
            key
        };
        RecipeError {
            file: file.to_path_buf(),
            location,
            key: if key == "." { String::new() } else { key },
            message: with_suggestion(&message),
        }
    })?;
    if recipe.source.kind().is_none() {
        return Err(RecipeError {
            file: file.to_path_buf(),
            location: None,
            key: "source".into(),
            message: SOURCE_KINDS.into(),
        });
    }
    if recipe.name.trim().is_empty() || recipe.name.contains('/') {
        return Err(RecipeError {
            file: file.to_path_buf(),
            location: None,
            key: "name".into(),
            message: "expected a non-empty name without `/`".into(),
        });
    }
    Ok(recipe)
}

/// Turn serde's "unknown field `x`, expected one of `a`, `b`" into a "did you mean" hint.
fn with_suggestion(message: &str) -> String {
    let unknown = ["unknown field `", "unknown variant `"]
        .iter()
        .find_map(|p| {
            message
                .strip_prefix(p)
                .map(|rest| (p.contains("field"), rest))
        });
    let Some((is_field, rest)) = unknown else {
        return message.to_string();
    };
    let Some(end) = rest.find('`') else {
        return message.to_string();
    };
    let bad = &rest[..end];
    let candidates: Vec<&str> = rest[end + 1..].split('`').skip(1).step_by(2).collect();
    let what = if is_field { "key" } else { "value" };
    let list = candidates
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let best = candidates
        .iter()
        .map(|c| (strsim::jaro_winkler(bad, c), *c))
        .filter(|(score, _)| *score > 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match best {
        Some((_, c)) => format!("unknown {what} `{bad}`, did you mean `{c}`? (valid: {list})"),
        None => format!("unknown {what} `{bad}` (valid: {list})"),
    }
}
