//! Recipe: what to mine, how to select and where to write, validated into a [`Plan`]
//! before any work starts.
//!
//! Loading is two steps (ARCHITECTURE §9): YAML → raw serde structs that reject unknown keys,
//! then [`load`] resolves paths against the recipe file's directory, compiles regexes,
//! builds the count rules, loads the tokenizer and opens the repositories, so every
//! recipe error surfaces up front. Errors name the file, the line and column, the key
//! path, and the closest valid key.
//!
//! `schema` holds the raw structs and the YAML parse, `plan` turns them into a [`Plan`],
//! `sources` builds each kind of source's part of it; `open` reads a built dataset back
//! with its recipe and `validator` makes the validator a plan's `validate:` asks for.

mod context;
mod jira;
pub mod open;
mod plan;
mod schema;
mod sources;
pub mod validator;

pub use context::default_cache_dir;
pub use schema::{
    locate, parse, AnnotateSpec, Defects4jSpec, GitSpec, GithubSpec, GoldenTests, IssueLabelsSpec,
    PartialSpec, Recipe, RepoSpec, ReportSpec, RevisionMap, SampleSpec, SandboxChoice, SelectSpec,
    Source, SourceSpec, StatesSpec, Stratify, SwebenchSpec, ValidateSpec,
};

use crate::annotate::divergence::Profile;
use crate::annotate::proximity::PackageRule;
use crate::annotate::tokenize::Tokenizer;
use crate::extract::CountRules;
use crate::source::defects4j::D4jConfig;
use crate::source::git_history::GitConfig;
use crate::source::github::GithubConfig;
use crate::source::swebench::SwebenchConfig;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

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
    /// Keep validated instances with at least this many necessary hunks (`select.min_necessary_hunks`).
    pub min_necessary_hunks: Option<usize>,
    /// Reject validated instances whose tests only call what the patch adds
    /// (`select.reject_new_api_only`).
    pub reject_new_api_only: bool,
    /// Keep a reproducible sample of the selected instances (`select.sample`).
    pub sample: Option<SampleSpec>,
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
    plan::plan(recipe, file, text, repos)
}

/// Validate recipe `text` as if it were the file `file` (relative paths resolve against
/// its directory): how a dataset's own copy of its recipe (in the card) is re-planned.
pub fn load_text(
    text: &str,
    file: &Path,
    repos: &BTreeMap<String, PathBuf>,
) -> Result<Plan, RecipeError> {
    let recipe = parse(text, file)?;
    plan::plan(recipe, file, text.to_string(), repos)
}

/// Per-project map of names to paths, resolved against the recipe directory.
pub type PathMap = BTreeMap<String, PathBuf>;

#[cfg(test)]
mod tests;
