//! Recipe model: what to mine, how to select and where to write, validated up front.
//!
//! Loading is two steps (STYLE §3): YAML → raw serde structs that reject unknown keys,
//! then path resolution against the recipe file's directory. Errors name the file, the
//! line and column, the key path, and the closest valid key.

use crate::classify::Classifier;
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
}

/// Annotation settings.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AnnotateSpec {
    /// Annotate at all (divergence needs no sources; D_ast and methods do).
    pub enabled: bool,
    /// `hunk4j` (default), `hunk4j-published` or `algorithm1` (DESIGN §4).
    pub profile: crate::annotate::divergence::Profile,
    /// Fixed λ for proximity; the dataset's ⌊median package depth / 2⌋ when omitted.
    pub lambda: Option<u32>,
    /// `punkt_tab` directory for the tokenizer (else `HUNKGEN_PUNKT_DIR`, else none).
    pub punkt: Option<PathBuf>,
}

impl Default for AnnotateSpec {
    fn default() -> Self {
        AnnotateSpec {
            enabled: true,
            profile: Default::default(),
            lambda: None,
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
}

/// The one source a recipe names.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// See [`Defects4jSpec`].
    Defects4j(&'a Defects4jSpec),
    /// See [`GitSpec`].
    Git(&'a GitSpec),
}

impl SourceSpec {
    /// The single configured source.
    pub fn kind(&self) -> Option<Source<'_>> {
        match (&self.defects4j, &self.git) {
            (Some(d), None) => Some(Source::Defects4j(d)),
            (None, Some(g)) => Some(Source::Git(g)),
            _ => None,
        }
    }
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
    /// Name used in `instance_id` and `repo` fields; default: the repository directory name.
    #[serde(default)]
    pub name: Option<String>,
    /// `A..B` range or a single ref; all branches when omitted.
    #[serde(default)]
    pub revs: Option<String>,
    /// Case-insensitive regex a fix commit's message must match; a fix/bug regex when omitted.
    #[serde(default)]
    pub message_regex: Option<String>,
    /// Require the commit to touch at least one test file as well as code.
    #[serde(default = "yes")]
    pub require_tests: bool,
    /// Upper bound on changed code lines (added + removed).
    #[serde(default)]
    pub max_changed_lines: Option<usize>,
    /// Re-check every object's hash while reading (libgit2's default); `false` is faster.
    #[serde(default = "yes")]
    pub verify_objects: bool,
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
    /// Do not count hunks whose only change, in the fix direction, deletes import lines.
    pub skip_import_only_hunks: bool,
}

impl Default for SelectSpec {
    fn default() -> Self {
        SelectSpec {
            min_code_hunks: 2,
            skip_created_files: false,
            skip_import_only_hunks: false,
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

/// A recipe plus the directory its relative paths are resolved against.
#[derive(Debug, Clone)]
pub struct LoadedRecipe {
    /// The parsed recipe.
    pub recipe: Recipe,
    /// The recipe file as given.
    pub file: PathBuf,
    /// The recipe text, kept verbatim for the dataset card.
    pub text: String,
}

impl LoadedRecipe {
    /// Resolve a recipe path against the recipe file's directory.
    pub fn resolve(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            return p.to_path_buf();
        }
        let base = self.file.parent().unwrap_or(Path::new("."));
        base.join(p)
    }

    /// Where the dataset goes.
    pub fn output_dir(&self) -> PathBuf {
        match &self.recipe.output {
            Some(p) => self.resolve(p),
            None => self.resolve(&Path::new("../datasets").join(&self.recipe.name)),
        }
    }
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

/// Load and check a recipe file.
pub fn load(file: &Path) -> Result<LoadedRecipe, RecipeError> {
    let text = std::fs::read_to_string(file).map_err(|e| RecipeError {
        file: file.to_path_buf(),
        location: None,
        key: String::new(),
        message: format!("cannot read recipe: {e}"),
    })?;
    let recipe = parse(&text, file)?;
    Ok(LoadedRecipe {
        recipe,
        file: file.to_path_buf(),
        text,
    })
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
            message: "expected exactly one of `defects4j`, `git`".into(),
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
            "r.yaml: `source`: expected exactly one of `defects4j`, `git`"
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
    fn paths_resolve_against_recipe_dir() {
        let r = parse(
            "name: demo\nsource:\n  git:\n    repo: ../x\n",
            Path::new("r.yaml"),
        )
        .expect("valid");
        let l = LoadedRecipe {
            recipe: r,
            file: PathBuf::from("/a/recipes/demo.yaml"),
            text: String::new(),
        };
        assert_eq!(
            l.resolve(Path::new("../x")),
            PathBuf::from("/a/recipes/../x")
        );
        assert_eq!(l.output_dir(), PathBuf::from("/a/recipes/../datasets/demo"));
    }
}
