//! Recipe: what to mine, how to select and where to write, validated into a [`Plan`]
//! before any work starts.
//!
//! Loading is two steps (STYLE §3): YAML → raw serde structs that reject unknown keys,
//! then [`load`] resolves paths against the recipe file's directory, compiles regexes,
//! builds the count rules, loads the tokenizer and opens the repositories, so every
//! recipe error surfaces up front. Errors name the file, the line and column, the key
//! path, and the closest valid key.

use crate::annotate::divergence::Profile;
use crate::annotate::proximity::PackageRule;
use crate::annotate::tokenize::Tokenizer;
use crate::classify::Classifier;
use crate::extract::CountRules;
use crate::source::defects4j::{self, D4jConfig, ProjectRepo};
use crate::source::git_history::{self, GitConfig};
use crate::source::github::GithubConfig;
use crate::source::rules::{GitSourceConfig, MessageRules};
use crate::source::swebench::SwebenchConfig;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
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
    /// Golden-test validation (DESIGN §5); absent: no test is run.
    #[serde(default)]
    pub validate: Option<ValidateSpec>,
    /// Repository states (FixedBench, DESIGN §6); absent: none are written.
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
    /// Also write each state with the golden test patch applied ("tests present").
    #[serde(default)]
    pub with_tests: bool,
    /// Partial states from `<dir>/<instance_id>.patch` instead of golden-hunk subsets.
    #[serde(default)]
    pub partial_patches: Option<PathBuf>,
    /// At most this many hunk subsets are tried for a Partial state (largest first).
    #[serde(default = "subset_cap")]
    pub subset_cap: usize,
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
    /// `hunk4j` (default), `hunk4j-published` or `algorithm1` (DESIGN §4).
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
const SOURCE_KINDS: &str = "expected exactly one of `defects4j`, `git`, `github`, `swebench`";

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
    /// `A..B` range or a single ref; all branches when omitted.
    #[serde(default)]
    pub revs: Option<String>,
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
    /// Reject a commit whose git patch-id an earlier commit has (cherry-picks); the
    /// earliest is kept.
    #[serde(default = "yes")]
    pub reject_duplicates: bool,
    /// Re-check every object's hash while reading (libgit2's default); `false` is faster.
    #[serde(default = "yes")]
    pub verify_objects: bool,
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

/// A recipe that cannot be used, with where and why, printed as one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecipeError {
    /// The recipe file.
    pub file: PathBuf,
    /// 1-based line and column, when known.
    pub location: Option<(usize, usize)>,
    /// Dotted key path of the offending value (`source.defects4j.projects`).
    pub key: String,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for RecipeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some((l, c)) = self.location {
            write!(f, ":{l}:{c}")?;
        }
        if self.key.is_empty() {
            write!(f, ": {}", self.message)
        } else {
            write!(f, ": `{}`: {}", self.key, self.message)
        }
    }
}

impl std::error::Error for RecipeError {}

/// A validated recipe: everything each stage needs, resolved and compiled, so no stage
/// re-reads the YAML or discovers a recipe error halfway through a build. Each stage
/// reads its own part; later stages (validate, states, evaluate) add theirs here.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Dataset name.
    pub name: String,
    /// The recipe file as given.
    pub file: PathBuf,
    /// The recipe text, kept verbatim for the dataset card.
    pub text: String,
    /// Where the dataset goes unless `--output` says otherwise.
    pub output: PathBuf,
    /// The source stage.
    pub source: SourcePlan,
    /// The extract stage: which hunks count (built here, in one place).
    pub rules: CountRules,
    /// The selection: keep candidates with at least this many counted hunks.
    pub min_code_hunks: usize,
    /// The annotate stage; `None` when `annotate.enabled` is false.
    pub annotate: Option<AnnotatePlan>,
    /// Report options.
    pub report: ReportSpec,
    /// The validate stage; `None` when the recipe has no `validate:`.
    pub validate: Option<crate::validate::stage::ValidatePlan>,
    /// Its sandbox policy.
    pub sandbox: SandboxChoice,
    /// The states stage; `None` when the recipe has no `states:`.
    pub states: Option<StatesSpec>,
}

/// The source stage's resolved configuration.
#[derive(Debug, Clone)]
pub enum SourcePlan {
    /// A Defects4J tree.
    Defects4j(D4jConfig),
    /// A git history (boxed: its walk settings make it the larger variant).
    Git(Box<GitConfig>),
    /// A SWE-bench-format file with local clones.
    Swebench(SwebenchConfig),
    /// GitHub pull requests.
    Github(GithubConfig),
}

/// The annotate stage's resolved configuration.
#[derive(Debug, Clone)]
pub struct AnnotatePlan {
    /// The profile.
    pub profile: Profile,
    /// Fixed λ, or `None` for the dataset's own.
    pub lambda: Option<u32>,
    /// Hunk package rule (`auto` is resolved per instance by its source).
    pub packages: PackageRule,
    /// The tokenizer for D_lex, with its Punkt model loaded.
    pub tokenizer: Tokenizer,
}

/// Load a recipe file and validate it into a [`Plan`].
pub fn load(file: &Path) -> Result<Plan, RecipeError> {
    load_with(file, &BTreeMap::new())
}

/// Load a recipe with repository paths from the command line (`--repo`, `--repos`)
/// taking precedence over the recipe's.
pub fn load_with(file: &Path, repos: &BTreeMap<String, PathBuf>) -> Result<Plan, RecipeError> {
    let text = std::fs::read_to_string(file).map_err(|e| RecipeError {
        file: file.to_path_buf(),
        location: None,
        key: String::new(),
        message: format!("cannot read recipe: {e}"),
    })?;
    let recipe = parse(&text, file)?;
    plan(recipe, file, text, repos)
}

/// Validate recipe `text` as if it were the file `file` (relative paths resolve against
/// its directory): how a dataset's own copy of its recipe (in the card) is re-planned.
pub fn load_text(
    text: &str,
    file: &Path,
    repos: &BTreeMap<String, PathBuf>,
) -> Result<Plan, RecipeError> {
    let recipe = parse(text, file)?;
    plan(recipe, file, text.to_string(), repos)
}

/// Resolves recipe paths and reports errors at the key's place in the text.
struct Ctx<'a> {
    file: &'a Path,
    text: &'a str,
}

impl Ctx<'_> {
    fn resolve(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            return p.to_path_buf();
        }
        self.file.parent().unwrap_or(Path::new(".")).join(p)
    }

    fn err(&self, key: &str, message: impl Into<String>) -> RecipeError {
        RecipeError {
            file: self.file.to_path_buf(),
            location: locate(self.text, key),
            key: key.to_string(),
            message: message.into(),
        }
    }
}

fn plan(
    recipe: Recipe,
    file: &Path,
    text: String,
    cli_repos: &BTreeMap<String, PathBuf>,
) -> Result<Plan, RecipeError> {
    let cx = Ctx { file, text: &text };
    let output = match &recipe.output {
        Some(p) => cx.resolve(p),
        None => cx.resolve(&Path::new("../datasets").join(&recipe.name)),
    };
    let d4j_source = matches!(recipe.source.kind(), Some(Source::Defects4j(_)));
    if recipe
        .validate
        .as_ref()
        .is_some_and(|v| v.defects4j.is_some())
        && !d4j_source
    {
        return Err(cx.err(
            "validate.defects4j",
            "applies to Defects4J sources only (other sources name `suites`)",
        ));
    }
    let source = match recipe.source.kind() {
        Some(Source::Defects4j(d)) => SourcePlan::Defects4j(d4j_plan(&cx, d, cli_repos)?),
        Some(Source::Swebench(s)) => SourcePlan::Swebench(swebench_plan(&cx, s, cli_repos)?),
        Some(Source::Git(g)) => {
            if let Some(name) = cli_repos.keys().next() {
                return Err(cx.err(
                    "source.git",
                    format!("`--repo {name}=…` is for Defects4J projects; a git recipe names its repository in `source.git.repo`"),
                ));
            }
            SourcePlan::Git(Box::new(git_plan(&cx, g, &recipe.select, &recipe.files)?))
        }
        Some(Source::Github(g)) => {
            if let Some(name) = cli_repos.keys().next() {
                return Err(cx.err(
                    "source.github",
                    format!("`--repo {name}=…` is for Defects4J projects; a GitHub recipe names its clone in `source.github.clone`"),
                ));
            }
            SourcePlan::Github(github_plan(&cx, g, &recipe.select, &recipe.files)?)
        }
        None => return Err(cx.err("source", SOURCE_KINDS)),
    };
    // Git history and GitHub pull requests read both trees of a change: file roles and
    // the hunk rules apply to them; Defects4J and SWE-bench imports keep path rules.
    let is_git = matches!(source, SourcePlan::Git(_) | SourcePlan::Github(_));
    if !is_git {
        git_only(&cx, &recipe)?;
    }
    let mut classifier = recipe.files.clone();
    // Roles are read from the fix's tree: on by default for git, never for Defects4J
    // (HUNK4J keeps its path rules).
    classifier.roles = Some(is_git && classifier.roles.unwrap_or(true));
    let annotate = if recipe.annotate.enabled {
        let tokenizer = match &recipe.annotate.punkt {
            Some(dir) => Tokenizer::from_dir(&cx.resolve(dir))
                .map_err(|e| cx.err("annotate.punkt", e.to_string()))?,
            None => Tokenizer::from_env()
                .map_err(|e| cx.err("annotate.punkt", format!("HUNKGEN_PUNKT_DIR: {e}")))?
                .unwrap_or_default(),
        };
        Some(AnnotatePlan {
            profile: recipe.annotate.profile,
            lambda: recipe.annotate.lambda,
            packages: recipe.annotate.packages,
            tokenizer,
        })
    } else {
        None
    };
    Ok(Plan {
        name: recipe.name.clone(),
        file: file.to_path_buf(),
        output,
        source,
        rules: CountRules {
            classifier,
            skip_created_files: recipe.select.skip_created_files,
            // Git sources decide import-only hunks with the parser, in the source.
            skip_import_only_hunks: !is_git
                && recipe.select.skip_import_only_hunks.unwrap_or(false),
        },
        min_code_hunks: recipe.select.min_code_hunks,
        annotate,
        report: recipe.report.clone(),
        sandbox: recipe
            .validate
            .as_ref()
            .map(|v| v.sandbox)
            .unwrap_or_default(),
        states: match &recipe.states {
            Some(st) => {
                if matches!(recipe.source.kind(), Some(Source::Defects4j(_))) {
                    return Err(cx.err(
                        "states",
                        "states are written for git-history sources (a Defects4J base is a fixed revision plus a patch, not a commit)",
                    ));
                }
                let mut st = st.clone();
                st.partial_patches = st.partial_patches.as_ref().map(|p| cx.resolve(p));
                Some(st)
            }
            None => None,
        },
        validate: match &recipe.validate {
            Some(v) => Some(validate_plan(&cx, v)?),
            None => None,
        },
        text,
    })
}

fn validate_plan(
    cx: &Ctx<'_>,
    v: &ValidateSpec,
) -> Result<crate::validate::stage::ValidatePlan, RecipeError> {
    use crate::validate::env::EnvSpec;
    if v.suites.is_empty() && v.defects4j.is_none() {
        return Err(cx.err(
            "validate.suites",
            "expected at least one suite (or `defects4j:` for a Defects4J source)",
        ));
    }
    if v.reruns == 0 {
        return Err(cx.err("validate.reruns", "expected at least 1"));
    }
    // Absolute: test runs use these paths from inside their own working copies.
    let absolute = |p: PathBuf| std::path::absolute(&p).unwrap_or(p);
    let mut suites = v.suites.clone();
    for (i, s) in suites.iter_mut().enumerate() {
        let key = format!("validate.suites.{i}.env");
        match &mut s.env {
            EnvSpec::Python(p) => {
                if let Some(r) = &p.requirements {
                    let r = absolute(cx.resolve(r));
                    if !r.is_file() {
                        return Err(
                            cx.err(&key, format!("{}: no such requirements file", r.display()))
                        );
                    }
                    p.requirements = Some(r);
                }
            }
            EnvSpec::Java(j) => {
                for jar in j.jars.iter_mut() {
                    *jar = absolute(cx.resolve(jar));
                    if !jar.is_file() {
                        return Err(cx.err(
                            &key,
                            format!("{}: no such jar (Debian: junit5, junit4, libhamcrest-java; `make deps` installs them)", jar.display()),
                        ));
                    }
                }
            }
            EnvSpec::Command { inputs, .. } => {
                for f in inputs.iter_mut() {
                    *f = absolute(cx.resolve(f));
                }
            }
        }
    }
    let cache_dir = absolute(match &v.cache {
        Some(p) => cx.resolve(p),
        None => default_cache_dir(),
    });
    Ok(crate::validate::stage::ValidatePlan {
        reruns: v.reruns,
        timeout: std::time::Duration::from_secs(v.timeout),
        memory_limit: v.memory_mb.map(|m| m * 1024 * 1024),
        scope: v.scope,
        suites,
        cache_dir,
        network_for_setup: v.network_for_setup,
        defects4j: v.defects4j.as_ref().map(|d| {
            let mut d = d.clone();
            d.home = d.home.as_ref().map(|p| absolute(cx.resolve(p)));
            d.java_home = d.java_home.as_ref().map(|p| absolute(cx.resolve(p)));
            d
        }),
    })
}

/// `$HUNKGEN_CACHE_DIR`, else `$XDG_CACHE_HOME/hunkgen`, else `~/.cache/hunkgen`.
pub fn default_cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("HUNKGEN_CACHE_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("hunkgen");
    }
    std::env::var_os("HOME")
        .map(|h| PathBuf::from(h).join(".cache/hunkgen"))
        .unwrap_or_else(|| std::env::temp_dir().join("hunkgen-cache"))
}

fn d4j_plan(
    cx: &Ctx<'_>,
    spec: &Defects4jSpec,
    cli_repos: &BTreeMap<String, PathBuf>,
) -> Result<D4jConfig, RecipeError> {
    let root = cx.resolve(&spec.path);
    let projects = defects4j::project_dirs(&root, spec.projects.as_deref()).map_err(|e| {
        let key = if spec.projects.is_some() && root.is_dir() {
            "source.defects4j.projects"
        } else {
            "source.defects4j.path"
        };
        cx.err(key, e.to_string())
    })?;
    for name in cli_repos.keys() {
        if !projects.iter().any(|(p, _)| p == name) {
            return Err(RecipeError {
                file: cx.file.to_path_buf(),
                location: None,
                key: format!("--repo {name}"),
                message: format!(
                    "no such project in this build (projects: {})",
                    projects
                        .iter()
                        .map(|p| p.0.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
    }
    let mut repos = BTreeMap::new();
    for (name, _) in &projects {
        let spec_repo = spec.repos.get(name).cloned().unwrap_or_default();
        let key = format!("source.defects4j.repos.{name}");
        let path = match cli_repos.get(name) {
            Some(p) => {
                if !crate::git::is_repository(p) {
                    return Err(RecipeError {
                        file: cx.file.to_path_buf(),
                        location: None,
                        key: format!("--repo {name}"),
                        message: format!("{}: not a git repository", p.display()),
                    });
                }
                Some(p.clone())
            }
            None => match &spec_repo.path {
                Some(p) => {
                    let p = cx.resolve(p);
                    if !crate::git::is_repository(&p) {
                        return Err(cx.err(
                            &format!("{key}.path"),
                            format!("{}: not a git repository (expected a clone or mirror of {name}'s upstream repository)", p.display()),
                        ));
                    }
                    Some(p)
                }
                None => None,
            },
        };
        let revision_map = match &spec_repo.revision_map {
            Some(m) => defects4j::read_revision_map(&cx.resolve(&m.file), &m.from, &m.to)
                .map_err(|e| cx.err(&format!("{key}.revision_map"), e.to_string()))?,
            None => BTreeMap::new(),
        };
        repos.insert(
            name.clone(),
            ProjectRepo {
                path,
                revision_map,
                prefixes: spec_repo.path_prefixes.clone(),
            },
        );
    }
    for name in spec.repos.keys() {
        if !projects.iter().any(|(p, _)| p == name) && spec.projects.is_none() {
            return Err(cx.err(
                &format!("source.defects4j.repos.{name}"),
                "no such project under `source.defects4j.path`",
            ));
        }
    }
    Ok(D4jConfig {
        root,
        version: spec.version.clone(),
        projects,
        repos,
    })
}

fn swebench_plan(
    cx: &Ctx<'_>,
    spec: &SwebenchSpec,
    cli_repos: &BTreeMap<String, PathBuf>,
) -> Result<SwebenchConfig, RecipeError> {
    let instances = cx.resolve(&spec.instances);
    if let Err(e) = std::fs::File::open(&instances) {
        return Err(cx.err(
            "source.swebench.instances",
            format!("{}: cannot read: {e}", instances.display()),
        ));
    }
    if !instances.is_file() {
        return Err(cx.err(
            "source.swebench.instances",
            format!(
                "{}: not a file (expected SWE-bench instances as JSON Lines or a JSON list)",
                instances.display()
            ),
        ));
    }
    let mut repos = BTreeMap::new();
    for (name, path) in &spec.repos {
        let path = cx.resolve(path);
        if !cli_repos.contains_key(name) && !crate::git::is_repository(&path) {
            return Err(cx.err(
                &format!("source.swebench.repos.{name}"),
                format!(
                    "{}: not a git repository (expected a local clone of {name})",
                    path.display()
                ),
            ));
        }
        repos.insert(name.clone(), path);
    }
    for (name, path) in cli_repos {
        if !crate::git::is_repository(path) {
            return Err(RecipeError {
                file: cx.file.to_path_buf(),
                location: None,
                key: format!("--repo {name}"),
                message: format!("{}: not a git repository", path.display()),
            });
        }
        repos.insert(name.clone(), path.clone());
    }
    if repos.is_empty() {
        return Err(cx.err(
            "source.swebench.repos",
            "expected at least one `owner/name: <local clone>` entry",
        ));
    }
    Ok(SwebenchConfig { instances, repos })
}

/// Refuse git-only keys in a Defects4J recipe, so a switch never silently does nothing.
fn git_only(cx: &Ctx<'_>, recipe: &Recipe) -> Result<(), RecipeError> {
    let s = &recipe.select;
    let f = &recipe.files;
    let keys = [
        (
            "select.skip_whitespace_only_hunks",
            s.skip_whitespace_only_hunks == Some(true),
        ),
        (
            "select.skip_comment_only_hunks",
            s.skip_comment_only_hunks == Some(true),
        ),
        (
            "select.skip_docstring_only_hunks",
            s.skip_docstring_only_hunks == Some(true),
        ),
        (
            "select.reject_formatting_only",
            s.reject_formatting_only == Some(true),
        ),
        ("files.roles", f.roles == Some(true)),
        ("files.source_roots", !f.source_roots.is_empty()),
        ("files.code", !f.code.is_empty()),
        ("files.not_code", !f.not_code.is_empty()),
        ("files.generated", !f.generated.is_empty()),
    ];
    match keys.iter().find(|(_, set)| *set) {
        Some((key, _)) => Err(cx.err(
            key,
            "applies to git and GitHub sources only (Defects4J keeps HUNK4J's path rules)",
        )),
        None => Ok(()),
    }
}

/// The hunk rules of a git-backed source (git history, GitHub): each on unless the
/// recipe turns it off.
fn hunk_rules(select: &SelectSpec) -> crate::git::HunkRules {
    let on = |o: Option<bool>| o.unwrap_or(true);
    crate::git::HunkRules {
        whitespace_only: on(select.skip_whitespace_only_hunks),
        comment_only: on(select.skip_comment_only_hunks),
        docstring_only: on(select.skip_docstring_only_hunks),
        import_only: on(select.skip_import_only_hunks),
        formatting_only: on(select.reject_formatting_only),
    }
}

/// `files.source_roots` must name directories of the repository at HEAD.
fn source_roots_exist(
    cx: &Ctx<'_>,
    repo: &Path,
    files: &crate::classify::Classifier,
) -> Result<(), RecipeError> {
    for root in &files.source_roots {
        if !crate::git::dir_at_head(repo, root) {
            return Err(cx.err(
                "files.source_roots",
                format!(
                    "`{root}`: no such directory in {} at HEAD (expected a directory of the repository, relative to its root)",
                    repo.display()
                ),
            ));
        }
    }
    Ok(())
}

fn git_plan(
    cx: &Ctx<'_>,
    spec: &GitSpec,
    select: &SelectSpec,
    files: &crate::classify::Classifier,
) -> Result<GitConfig, RecipeError> {
    let repo = cx.resolve(&spec.repo);
    if !crate::git::is_repository(&repo) {
        return Err(cx.err(
            "source.git.repo",
            format!("{}: not a git repository", repo.display()),
        ));
    }
    if let Some(max) = spec.max_code_hunks.filter(|&m| m < select.min_code_hunks) {
        return Err(cx.err(
            "source.git.max_code_hunks",
            format!(
                "{max} is below select.min_code_hunks {}: no commit could be kept",
                select.min_code_hunks
            ),
        ));
    }
    source_roots_exist(cx, &repo, files)?;
    let mut walk = GitSourceConfig {
        revs: spec.revs.clone(),
        require_tests: spec.require_tests,
        max_changed_lines: spec.max_changed_lines,
        max_files: spec.max_files,
        max_code_hunks: spec.max_code_hunks,
        reject_reverts: spec.reject_reverts,
        reject_duplicates: spec.reject_duplicates,
        min_code_hunks: select.min_code_hunks,
        verify_objects: spec.verify_objects,
        hunk_rules: hunk_rules(select),
        ..GitSourceConfig::default()
    };
    if let Some(re) = &spec.message_regex {
        walk.message_regex = re.clone();
    }
    walk.subject_regex = spec.subject_regex.clone();
    walk.exclude_regex = spec.exclude_regex.clone();
    let rules = MessageRules::compile(&walk).map_err(|e| match e {
        crate::git::GitError::BadRegex { key, message, .. } => cx.err(
            &format!("source.git.{key}"),
            format!("not a valid regex: {message}"),
        ),
        other => cx.err("source.git", other.to_string()),
    })?;
    let links = links(cx, spec)?;
    let name = match (&spec.name, &spec.url) {
        (Some(name), _) => name.clone(),
        (None, Some(url)) => {
            crate::source::refs::owner_repo(url).unwrap_or_else(|| git_history::repo_name(&repo))
        }
        (None, None) => git_history::repo_name(&repo),
    };
    Ok(GitConfig {
        name,
        repo,
        walk,
        rules,
        links,
    })
}

fn github_plan(
    cx: &Ctx<'_>,
    spec: &GithubSpec,
    select: &SelectSpec,
    files: &crate::classify::Classifier,
) -> Result<GithubConfig, RecipeError> {
    let key = |k: &str| format!("source.github.{k}");
    let (owner, name) = spec
        .repo
        .split_once('/')
        .filter(|(o, n)| {
            let ok = |s: &str| {
                !s.is_empty()
                    && s.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            };
            ok(o) && ok(n)
        })
        .ok_or_else(|| {
            cx.err(
                &key("repo"),
                format!("expected `owner/name`, got `{}`", spec.repo),
            )
        })?;
    let clone = cx.resolve(&spec.clone);
    if !crate::git::is_repository(&clone) {
        return Err(cx.err(
            &key("clone"),
            format!(
                "{}: not a git repository (clone it: `git clone https://github.com/{}.git`)",
                clone.display(),
                spec.repo
            ),
        ));
    }
    source_roots_exist(cx, &clone, files)?;
    if spec
        .api
        .parse::<http::Uri>()
        .ok()
        .filter(|u| u.scheme().is_some() && u.host().is_some())
        .is_none()
    {
        return Err(cx.err(
            &key("api"),
            format!("expected an http(s) URL, got `{}`", spec.api),
        ));
    }
    let instant =
        |k: &str, v: &Option<String>, end_of_day: bool| -> Result<Option<String>, RecipeError> {
            let Some(v) = v else { return Ok(None) };
            let date = |s: &str| {
                s.len() == 10
                    && s.bytes().enumerate().all(|(i, b)| match i {
                        4 | 7 => b == b'-',
                        _ => b.is_ascii_digit(),
                    })
            };
            let full =
                v.len() == 20 && date(&v[..10]) && v.as_bytes()[10] == b'T' && v.ends_with('Z');
            if date(v) {
                Ok(Some(format!(
                    "{v}T{}Z",
                    if end_of_day { "23:59:59" } else { "00:00:00" }
                )))
            } else if full {
                Ok(Some(v.clone()))
            } else {
                Err(cx.err(
                    &key(k),
                    format!("expected `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SSZ`, got `{v}`"),
                ))
            }
        };
    let since = instant("since", &spec.since, false)?;
    let until = instant("until", &spec.until, true)?;
    if let (Some(s), Some(u)) = (&since, &until) {
        if s > u {
            return Err(cx.err(
                &key("until"),
                format!("`until` ({u}) is before `since` ({s})"),
            ));
        }
    }
    if spec.max_pulls == Some(0) {
        return Err(cx.err(&key("max_pulls"), "expected at least 1"));
    }
    Ok(GithubConfig {
        owner: owner.to_string(),
        name: name.to_string(),
        clone,
        api: spec.api.trim_end_matches('/').to_string(),
        since,
        until,
        labels: spec.labels.clone(),
        base_branch: spec.base_branch.clone(),
        allow_unlinked: spec.allow_unlinked,
        require_tests: spec.require_tests,
        max_pulls: spec.max_pulls,
        cache_dir: match &spec.cache {
            Some(p) => cx.resolve(p),
            None => default_cache_dir().join("github"),
        },
        max_wait: std::time::Duration::from_secs(spec.max_wait),
        hunk_rules: hunk_rules(select),
    })
}

/// The forge address and tracker keys of a git recipe, checked.
fn links(cx: &Ctx<'_>, spec: &GitSpec) -> Result<crate::source::refs::Links, RecipeError> {
    use crate::source::refs::{Forge, Links};
    let forge = match &spec.forge {
        Some(f) => Some(Forge::parse(f).ok_or_else(|| {
            cx.err(
                "source.git.forge",
                format!("unknown forge `{f}`: expected github, gitlab or gitea"),
            )
        })?),
        None => None,
    };
    let repo = match &spec.url {
        None if forge.is_some() => {
            return Err(cx.err(
                "source.git.forge",
                "`forge` needs `url` (the repository's web address)".to_string(),
            ))
        }
        None => None,
        Some(url) => {
            let host = url
                .strip_prefix("https://")
                .or_else(|| url.strip_prefix("http://"))
                .and_then(|rest| rest.split('/').next())
                .filter(|h| !h.is_empty())
                .ok_or_else(|| {
                    cx.err(
                        "source.git.url",
                        format!("`{url}`: expected an http(s) address such as https://github.com/owner/repo"),
                    )
                })?;
            let forge = forge.or_else(|| Forge::of_host(host)).ok_or_else(|| {
                cx.err(
                    "source.git.url",
                    format!("cannot tell which forge runs `{host}`; set `forge:` (github, gitlab or gitea)"),
                )
            })?;
            Some((
                url.trim_end_matches('/')
                    .trim_end_matches(".git")
                    .to_string(),
                forge,
            ))
        }
    };
    let tracker = match (&spec.issue_regex, &spec.issue_url) {
        (None, Some(_)) => {
            return Err(cx.err(
                "source.git.issue_url",
                "`issue_url` needs `issue_regex` (the tracker keys it links)".to_string(),
            ))
        }
        (None, None) => None,
        (Some(re), template) => {
            let compiled = regex::Regex::new(re).map_err(|e| {
                cx.err(
                    "source.git.issue_regex",
                    format!(
                        "not a valid regex: {}",
                        e.to_string().lines().last().unwrap_or("").trim()
                    ),
                )
            })?;
            if let Some(t) = template.as_deref().filter(|t| !t.contains("{id}")) {
                return Err(cx.err(
                    "source.git.issue_url",
                    format!("`{t}` has no `{{id}}` to replace with the key"),
                ));
            }
            Some((compiled, template.clone()))
        }
    };
    Ok(Links { repo, tracker })
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

/// Per-project map of names to paths, resolved against the recipe directory.
pub type PathMap = BTreeMap<String, PathBuf>;

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> RecipeError {
        parse(text, Path::new("r.yaml")).expect_err("recipe should be rejected")
    }

    #[test]
    fn accepts_minimal_defects4j_recipe() {
        let r = parse(
            "name: x\nsource:\n  defects4j:\n    path: d4j\n",
            Path::new("r.yaml"),
        )
        .expect("valid");
        assert_eq!(r.select.min_code_hunks, 2);
        assert!(matches!(r.source.kind(), Some(Source::Defects4j(_))));
    }

    #[test]
    fn unknown_key_names_file_place_and_closest_key() {
        let e = err("name: x\nsource:\n  defects4j:\n    path: d4j\n    projcts: [Lang]\n");
        let s = e.to_string();
        assert!(s.starts_with("r.yaml:5:"), "{s}");
        assert!(s.contains("`source.defects4j`"), "{s}");
        assert!(
            s.contains("unknown key `projcts`, did you mean `projects`?"),
            "{s}"
        );
    }

    #[test]
    fn unknown_source_kind_suggests_closest() {
        let s = err("name: x\nsource:\n  defect4j:\n    path: d\n").to_string();
        assert!(s.contains("did you mean `defects4j`?"), "{s}");
    }

    #[test]
    fn two_sources_rejected() {
        let s =
            err("name: x\nsource:\n  defects4j:\n    path: d\n  git:\n    repo: r\n").to_string();
        assert_eq!(
            s,
            "r.yaml: `source`: expected exactly one of `defects4j`, `git`, `github`, `swebench`"
        );
    }

    #[test]
    fn wrong_type_names_key() {
        let s =
            err("name: x\nsource:\n  defects4j:\n    path: d\nselect:\n  min_code_hunks: two\n")
                .to_string();
        assert!(s.contains("`select.min_code_hunks`"), "{s}");
        assert!(s.contains("invalid type"), "{s}");
        assert!(s.starts_with("r.yaml:6:"), "{s}");
    }

    #[test]
    fn locate_follows_nesting() {
        let text = "name: x\nsource:\n  git:\n    repo: r\n    message_regex: '('\nselect:\n  min_code_hunks: 2\n";
        assert_eq!(locate(text, "source.git.message_regex"), Some((5, 5)));
        assert_eq!(locate(text, "select.min_code_hunks"), Some((7, 3)));
        assert_eq!(locate(text, "source.defects4j"), None);
    }
}
