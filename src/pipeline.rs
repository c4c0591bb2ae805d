//! Build orchestration: recipe → source → extract → dataset directory.

use crate::annotate::engine::{self, Annotator, NoSources};
use crate::annotate::proximity;
use crate::annotate::tokenize::Tokenizer;
use crate::dataset::{self, Card, Counts, DatasetError};
use crate::diff::Patch;
use crate::extract::{self, CountRules};
use crate::model::{Extra, Proximity};
use crate::model::{Instance, Report, SourceKind};
use crate::progress::Progress;
use crate::recipe::{Defects4jSpec, LoadedRecipe, Source};
use crate::source::defects4j::{self, D4jBug, D4jError};
use crate::source::files::{Tree, TreeFiles};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Why a build stopped; every variant prints as one line naming the input at fault.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Bad Defects4J input.
    #[error(transparent)]
    Defects4j(#[from] D4jError),
    /// Bad git input.
    #[error(transparent)]
    Git(#[from] crate::source::git_history::GitSourceError),
    /// The dataset could not be written.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// A recipe value that only shows up as wrong when used.
    #[error("{file}: `{key}`: {what}")]
    Recipe {
        /// The recipe file.
        file: PathBuf,
        /// Dotted key.
        key: String,
        /// What is wrong.
        what: String,
    },
}

/// What a build produced, for the CLI summary.
#[derive(Debug)]
pub struct BuildSummary {
    /// The dataset directory.
    pub output: PathBuf,
    /// Bugs or commits examined.
    pub examined: usize,
    /// The kept instances, sorted.
    pub instances: Vec<Instance>,
    /// One line per problem that left annotation fields null (per project, not per bug).
    pub warnings: Vec<String>,
}

/// Options that are not part of the recipe (they do not change the result).
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Override the recipe's output directory.
    pub output: Option<PathBuf>,
    /// Show progress bars (still only on a terminal).
    pub progress: bool,
    /// Repository paths per project (`--repo NAME=PATH`), over the recipe's.
    pub repos: BTreeMap<String, PathBuf>,
}

/// A project's repository (if any), revision map and path prefixes.
type ProjectBase = (Option<PathBuf>, BTreeMap<String, String>, Vec<String>);

impl BuildOptions {
    /// A progress bar for a stage, or a hidden one when progress is off.
    fn progress_bar(&self, stage: &str, len: u64) -> Progress {
        if self.progress {
            Progress::new(stage, len)
        } else {
            Progress::hidden()
        }
    }
}

/// A mined bug: its instance plus what annotation needs that the row does not keep.
#[derive(Debug, Clone)]
pub struct Mined {
    /// The instance row.
    pub instance: Instance,
    /// Forward code patch.
    pub patch: Patch,
    /// Forward test patch.
    pub test_patch: Patch,
    /// Defects4J `modified_classes` (file order for pairs); empty for other sources.
    pub modified_classes: Vec<String>,
    /// Where the base tree is, or why there is none.
    pub base: Result<Tree, String>,
    /// The base tree is the fixed revision (Defects4J): apply the reversed patch.
    pub base_is_fixed: bool,
    /// Set by annotation: every counted hunk's method is known.
    pub methods_known: bool,
}

/// Run a recipe end to end and write the dataset directory.
pub fn build(recipe: &LoadedRecipe, opts: &BuildOptions) -> Result<BuildSummary, BuildError> {
    let rules = CountRules {
        classifier: recipe.recipe.files.clone(),
        skip_created_files: recipe.recipe.select.skip_created_files,
        skip_import_only_hunks: recipe.recipe.select.skip_import_only_hunks,
    };
    let (examined, sources) = match recipe.recipe.source.kind() {
        Some(Source::Defects4j(spec)) => defects4j_instances(recipe, spec, &rules, opts)?,
        Some(Source::Git(spec)) => git_instances(recipe, spec, &rules, opts)?,
        None => {
            return Err(BuildError::Recipe {
                file: recipe.file.clone(),
                key: "source".into(),
                what: "expected exactly one of `defects4j`, `git`".into(),
            })
        }
    };
    let min = recipe.recipe.select.min_code_hunks;
    let mut mined = examined;
    let examined: Vec<Instance> = mined.iter().map(|m| m.instance.clone()).collect();
    mined.retain(|m| m.instance.stats.hunks >= min);
    let mut warnings = Vec::new();
    if recipe.recipe.annotate.enabled {
        warnings = annotate_all(recipe, &rules, &mut mined, opts)?;
    }
    let mut kept: Vec<Instance> = mined.into_iter().map(|m| m.instance).collect();
    let output = opts.output.clone().unwrap_or_else(|| recipe.output_dir());
    let jsonl = dataset::instances_jsonl(&mut kept);
    let compare = recipe.recipe.report.compare_with.as_deref() == Some("hunk4j");
    let mut report = dataset::report_markdown(&recipe.recipe.name, &kept, &examined, compare);
    report.push_str(&inputs_section(recipe, &sources));
    if recipe.recipe.annotate.enabled {
        report.push_str(&dataset::annotation_report(&kept, &warnings));
        dataset::write_atomic(
            &output.join("pairs.csv"),
            dataset::pairs_csv(&kept).as_bytes(),
        )?;
    }
    dataset::write_atomic(&output.join("report/tables.md"), report.as_bytes())?;
    let card = Card {
        name: &recipe.recipe.name,
        schema_version: crate::model::SCHEMA_VERSION,
        tool_version: env!("CARGO_PKG_VERSION"),
        built_at: dataset::rfc3339(now_secs()),
        sources,
        counts: Counts {
            examined: examined.len(),
            instances: kept.len(),
            hunks: kept.iter().map(|i| i.stats.hunks).sum(),
        },
        checksums: vec![("instances.jsonl".into(), dataset::sha256_hex(&jsonl))],
        recipe: &recipe.text,
    };
    // instances.jsonl last: its presence marks a complete build.
    dataset::write_atomic(
        &output.join("dataset.yaml"),
        dataset::card_yaml(&card).as_bytes(),
    )?;
    dataset::write_atomic(&output.join("instances.jsonl"), &jsonl)?;
    Ok(BuildSummary {
        output,
        examined: examined.len(),
        instances: kept,
        warnings,
    })
}

/// The report's record of what produced its numbers: the sources (with the Defects4J
/// version the recipe states) and the annotation profile with every switch.
fn inputs_section(recipe: &LoadedRecipe, sources: &[String]) -> String {
    let mut out = String::from("\n## Inputs\n\n");
    for s in sources {
        out.push_str(&format!("- source: {s}\n"));
    }
    let annotate = &recipe.recipe.annotate;
    if annotate.enabled {
        let switches = serde_json::to_string(&annotate.profile.switches())
            .unwrap_or_default()
            .replace(['{', '}', '"'], "")
            .replace(':', " = ")
            .replace(',', ", ");
        out.push_str(&format!(
            "- annotation profile `{}`: {switches}\n",
            annotate.profile.name()
        ));
    }
    out
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

fn defects4j_instances(
    recipe: &LoadedRecipe,
    spec: &Defects4jSpec,
    rules: &CountRules,
    opts: &BuildOptions,
) -> Result<(Vec<Mined>, Vec<String>), BuildError> {
    let root = recipe.resolve(&spec.path);
    let projects = defects4j::project_dirs(&root, spec.projects.as_deref())?;
    let mut work = Vec::new();
    let mut bases: BTreeMap<String, ProjectBase> = BTreeMap::new();
    for (name, dir) in &projects {
        let rows = defects4j::read_active_bugs(&dir.join("active-bugs.csv"))?;
        work.extend(rows.into_iter().map(|r| (name.as_str(), dir.as_path(), r)));
        let repo_spec = spec.repos.get(name).cloned().unwrap_or_default();
        let path = opts
            .repos
            .get(name)
            .cloned()
            .or_else(|| repo_spec.path.as_ref().map(|p| recipe.resolve(p)));
        let map = match &repo_spec.revision_map {
            Some(m) => defects4j::read_revision_map(&recipe.resolve(&m.file), &m.from, &m.to)?,
            None => BTreeMap::new(),
        };
        bases.insert(name.clone(), (path, map, repo_spec.path_prefixes.clone()));
    }
    for name in opts.repos.keys() {
        if !bases.contains_key(name) {
            return Err(BuildError::Recipe {
                file: recipe.file.clone(),
                key: format!("--repo {name}"),
                what: format!(
                    "no such project in this build (projects: {})",
                    bases.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            });
        }
    }
    let progress = opts.progress_bar("defects4j", work.len() as u64);
    let instances = work
        .par_iter()
        .map(|(name, dir, row)| {
            let bug = defects4j::read_bug(name, dir, row)?;
            progress.inc(1);
            let base = match bases.get(*name) {
                Some((Some(repo), map, prefixes)) => Ok(Tree::Git {
                    repo: repo.clone(),
                    rev: map
                        .get(&bug.fixed_rev)
                        .cloned()
                        .unwrap_or_else(|| bug.fixed_rev.clone()),
                    prefixes: prefixes.clone(),
                }),
                _ => Err(format!("no repository for project {name}")),
            };
            Ok(Mined {
                instance: d4j_instance(&bug, rules),
                modified_classes: bug.modified_classes.clone(),
                patch: bug.patch,
                test_patch: bug.test_patch,
                base,
                base_is_fixed: true,
                methods_known: false,
            })
        })
        .collect::<Result<Vec<_>, D4jError>>()?;
    progress.finish();
    let sources = vec![format!(
        "defects4j{}: {} ({} projects: {})",
        spec.version
            .as_deref()
            .map(|v| format!(" {v}"))
            .unwrap_or_default(),
        root.display(),
        projects.len(),
        projects
            .iter()
            .map(|p| p.0.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )];
    Ok((instances, sources))
}

/// The source-independent part of an instance: patches, hunk records and statistics,
/// with every other field empty for the source to fill in.
fn instance_from_patches(patch: &Patch, test_patch: &Patch, rules: &CountRules) -> Instance {
    let (hunks, stats) = extract::hunk_records(patch, rules);
    Instance {
        instance_id: String::new(),
        repo: String::new(),
        base_commit: String::new(),
        patch: patch.to_text(),
        test_patch: test_patch.to_text(),
        problem_statement: String::new(),
        hints_text: String::new(),
        created_at: String::new(),
        version: String::new(),
        FAIL_TO_PASS: Vec::new(),
        PASS_TO_PASS: Vec::new(),
        environment_setup_commit: String::new(),
        source: SourceKind::Git,
        fix_commit: String::new(),
        project: String::new(),
        report: None,
        files: extract::counted_files(&hunks),
        hunks,
        stats,
        divergence: None,
        proximity: None,
        extra: None,
        notes: Vec::new(),
    }
}

/// An instance from a Defects4J bug.
pub fn d4j_instance(bug: &D4jBug, rules: &CountRules) -> Instance {
    Instance {
        instance_id: format!("{}_{}", bug.project, bug.id),
        repo: defects4j::upstream_repo(&bug.project)
            .unwrap_or(&bug.project)
            .to_string(),
        base_commit: bug.buggy_rev.clone(),
        FAIL_TO_PASS: bug.trigger_tests.clone(),
        environment_setup_commit: bug.buggy_rev.clone(),
        source: SourceKind::Defects4j,
        fix_commit: bug.fixed_rev.clone(),
        project: bug.project.clone(),
        report: match (&bug.report_id, &bug.report_url) {
            (None, None) => None,
            (id, url) => Some(Report {
                id: id.clone().unwrap_or_default(),
                url: url.clone().unwrap_or_default(),
            }),
        },
        ..instance_from_patches(&bug.patch, &bug.test_patch, rules)
    }
}

/// Instances from a git history (DESIGN §3 "git").
pub fn git_instances(
    recipe: &LoadedRecipe,
    spec: &crate::recipe::GitSpec,
    rules: &CountRules,
    opts: &BuildOptions,
) -> Result<(Vec<Mined>, Vec<String>), BuildError> {
    use crate::source::git_history::{self, GitSourceConfig};
    let repo = recipe.resolve(&spec.repo);
    let mut cfg = GitSourceConfig {
        revs: spec.revs.clone(),
        require_tests: spec.require_tests,
        max_changed_lines: spec.max_changed_lines,
        min_code_hunks: recipe.recipe.select.min_code_hunks,
        verify_objects: spec.verify_objects,
        ..GitSourceConfig::default()
    };
    if let Some(re) = &spec.message_regex {
        cfg.message_regex = re.clone();
    }
    let name = spec.name.clone().unwrap_or_else(|| repo_name(&repo));
    let progress = opts.progress_bar("git", 0);
    let commits = git_history::mine(&repo, &cfg, &rules.classifier, &progress).map_err(|e| {
        match e {
            // The pattern came from the recipe: say where.
            git_history::GitSourceError::BadRegex { message, .. } => BuildError::Recipe {
                file: recipe.file.clone(),
                key: "source.git.message_regex".into(),
                what: format!("not a valid regex: {message}"),
            },
            other => other.into(),
        }
    })?;
    progress.finish();
    let instances = commits
        .into_iter()
        .map(|c| {
            let instance = Instance {
                instance_id: format!("{name}-{}", &c.id[..c.id.len().min(12)]),
                repo: name.clone(),
                base_commit: c.parent.clone(),
                problem_statement: c.message.clone(),
                created_at: dataset::rfc3339(c.time),
                environment_setup_commit: c.parent.clone(),
                source: SourceKind::Git,
                fix_commit: c.id.clone(),
                project: name.clone(),
                ..instance_from_patches(&c.patch, &c.test_patch, rules)
            };
            Mined {
                instance,
                base: Ok(Tree::Git {
                    repo: repo.clone(),
                    rev: c.parent.clone(),
                    prefixes: Vec::new(),
                }),
                patch: c.patch,
                test_patch: c.test_patch,
                modified_classes: Vec::new(),
                base_is_fixed: false,
                methods_known: false,
            }
        })
        .collect();
    let sources = vec![format!(
        "git: {} ({})",
        repo.display(),
        spec.revs.as_deref().unwrap_or("all branches")
    )];
    Ok((instances, sources))
}

/// A repository's directory name without `.git`, for ids.
fn repo_name(path: &std::path::Path) -> String {
    let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let mut name = canonical
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".into());
    if name == ".git" {
        if let Some(parent) = canonical.parent().and_then(|p| p.file_name()) {
            name = parent.to_string_lossy().into_owned();
        }
    }
    name.trim_end_matches(".git").to_string()
}

/// Annotate every kept instance, then classify proximity with the dataset's λ.
/// Returns one warning line per distinct reason that left AST fields null.
fn annotate_all(
    recipe: &LoadedRecipe,
    rules: &CountRules,
    mined: &mut [Mined],
    opts: &BuildOptions,
) -> Result<Vec<String>, BuildError> {
    let spec = &recipe.recipe.annotate;
    let tokenizer = match &spec.punkt {
        Some(dir) => Tokenizer::from_dir(&recipe.resolve(dir)).map_err(|e| BuildError::Recipe {
            file: recipe.file.clone(),
            key: "annotate.punkt".into(),
            what: e.to_string(),
        })?,
        None => Tokenizer::from_env()
            .map_err(|e| BuildError::Recipe {
                file: recipe.file.clone(),
                key: "annotate.punkt (HUNKGEN_PUNKT_DIR)".into(),
                what: e.to_string(),
            })?
            .unwrap_or_default(),
    };
    let annotator = Annotator::new(spec.profile, tokenizer);
    let progress = opts.progress_bar("annotate", mined.len() as u64);
    mined.par_iter_mut().for_each(|m| {
        annotate_one(&annotator, rules, m);
        progress.inc(1);
    });
    progress.finish();

    let depths: Vec<usize> = mined
        .iter()
        .flat_map(|m| m.instance.hunks.iter().filter(|h| h.counted))
        .map(|h| proximity::package_of(&h.file).len())
        .collect();
    let lambda = spec
        .lambda
        .unwrap_or_else(|| proximity::lambda_from_depths(&depths));
    for m in mined.iter_mut() {
        let inst = &mut m.instance;
        let places: Vec<proximity::HunkPlace> = inst
            .hunks
            .iter()
            .filter(|h| h.counted)
            .map(|h| proximity::HunkPlace {
                file: h.file.clone(),
                method: h.place.as_ref().and_then(|p| p.method_lines),
            })
            .collect();
        let known = m.methods_known;
        inst.proximity = Some(Proximity {
            class: proximity::classify(&places, lambda, known),
            lambda,
        });
    }
    // One warning per distinct reason, with how many instances it affected.
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for m in mined.iter() {
        if let Err(why) = &m.base {
            *reasons.entry(why.clone()).or_default() += 1;
        }
    }
    let warnings = reasons
        .into_iter()
        .map(|(why, n)| format!("{why}: {n} instance(s) without AST fields"))
        .collect();
    Ok(warnings)
}

fn annotate_one(annotator: &Annotator, rules: &CountRules, m: &mut Mined) {
    let reversed;
    let ann = match &m.base {
        Ok(tree) => {
            let to_buggy = if m.base_is_fixed {
                reversed = m.patch.reversed();
                Some(&reversed)
            } else {
                None
            };
            let files = TreeFiles {
                tree: tree.clone(),
                to_buggy,
            };
            annotator.annotate(&m.patch, &m.test_patch, rules, &m.modified_classes, &files)
        }
        Err(why) => annotator.annotate(
            &m.patch,
            &m.test_patch,
            rules,
            &m.modified_classes,
            &NoSources(why.clone()),
        ),
    };
    let inst = &mut m.instance;
    for (patch_index, place) in ann.places {
        if let Some(h) = inst.hunks.iter_mut().find(|h| h.patch_index == patch_index) {
            h.place = Some(place);
        }
    }
    inst.divergence = ann.divergence;
    inst.notes = ann.notes.into_iter().map(|n| format!("ast: {n}")).collect();
    m.methods_known = ann.methods_known;
    if !ann.methods_known {
        inst.notes
            .push("ast: methods unknown; single-file proximity undecided".into());
    }
    inst.notes.sort();
    inst.notes.dedup();
    inst.extra = Some(Extra {
        code_terms: engine::code_terms(&inst.problem_statement),
        magic_constants: ann.magic_constants,
    });
}
