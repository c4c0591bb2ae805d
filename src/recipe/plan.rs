//! A parsed recipe validated into a [`Plan`]: paths resolved against the recipe file,
//! the stage plans built, every error reported at its key's place in the text.

use super::context::{default_cache_dir, Ctx};
use super::schema::{
    GoldenTests, PartialSpec, Recipe, SampleSpec, Source, Stratify, ValidateSpec, SOURCE_KINDS,
};
use super::sources::{d4j_plan, git_only, git_plan, github_plan, swebench_plan};
use super::{AnnotatePlan, Plan, RecipeError, SourcePlan};
use crate::annotate::tokenize::Tokenizer;
use crate::extract::CountRules;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub(super) fn plan(
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
        min_necessary_hunks: match (recipe.select.min_necessary_hunks, &recipe.validate) {
            (Some(_), None) => {
                return Err(cx.err(
                    "select.min_necessary_hunks",
                    "needs a `validate:` section: necessary hunks are found by running the golden tests",
                ))
            }
            (Some(_), Some(v)) if v.necessary_hunks == Some(false) => {
                return Err(cx.err(
                    "select.min_necessary_hunks",
                    "contradicts `validate.necessary_hunks: false`",
                ))
            }
            (n, _) => n,
        },
        reject_new_api_only: match (recipe.select.reject_new_api_only, &recipe.validate) {
            (true, None) => {
                return Err(cx.err(
                    "select.reject_new_api_only",
                    "needs a `validate:` section: the failures it reads come from running the golden tests",
                ))
            }
            (on, _) => on,
        },
        sample: sample_plan(&cx, &recipe)?,
        annotate,
        report: recipe.report.clone(),
        sandbox: recipe
            .validate
            .as_ref()
            .map(|v| v.sandbox)
            .unwrap_or_default(),
        states: match &recipe.states {
            Some(st) => {
                if let (true, Some(g)) = (st.with_tests, st.golden_tests) {
                    if g != GoldenTests::Both {
                        return Err(cx.err(
                            "states.golden_tests",
                            format!(
                                "`{}` contradicts `with_tests: true` (the older spelling of `golden_tests: both`); keep one of the two",
                                g.name()
                            ),
                        ));
                    }
                }
                let mut st = st.clone();
                st.partial = match (st.partial.take(), st.partial_patches.take()) {
                    (Some(_), Some(_)) => {
                        return Err(cx.err(
                            "states.partial_patches",
                            "the older spelling of `partial: {from: patches, dir: …}`; keep one of `partial` and `partial_patches`",
                        ))
                    }
                    (None, Some(dir)) => Some(PartialSpec::Patches { dir }),
                    (p, None) => p,
                };
                st.partial = st.partial.map(|p| match p {
                    PartialSpec::Patches { dir } => PartialSpec::Patches {
                        dir: cx.resolve(&dir),
                    },
                    PartialSpec::Run { run } => PartialSpec::Run {
                        run: cx.resolve(&run),
                    },
                    PartialSpec::HunkSubset { cap } => PartialSpec::HunkSubset { cap },
                });
                if let Some(PartialSpec::Run { run }) = &st.partial {
                    if !run.is_dir() {
                        return Err(cx.err(
                            "states.partial.run",
                            format!(
                                "{} is not a directory; give the directory a `hunkgen run` on the Novel state wrote (runs/<agent>/novel-<scenario>)",
                                run.display()
                            ),
                        ));
                    }
                }
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

/// `select.sample`, checked: at least one instance, and a class stratum only when the
/// instances are annotated (the proximity class comes from annotation).
fn sample_plan(cx: &Ctx<'_>, recipe: &Recipe) -> Result<Option<SampleSpec>, RecipeError> {
    let Some(sample) = &recipe.select.sample else {
        return Ok(None);
    };
    // Written in flow style (`sample: {n: 0}`), the inner key has no line of its own:
    // the error points at `sample:` instead.
    let err = |key: &str, message: &str| {
        let mut e = cx.err(key, message);
        if e.location.is_none() {
            e.location = super::schema::locate(cx.text, "select.sample");
        }
        e
    };
    if sample.n == 0 {
        return Err(err(
            "select.sample.n",
            "expected at least 1 (leave `sample` out to keep every instance)",
        ));
    }
    if sample.stratify_by == Stratify::Class && !recipe.annotate.enabled {
        return Err(err(
            "select.sample.stratify_by",
            "`class` needs the proximity class, which annotation computes; it contradicts `annotate.enabled: false`",
        ));
    }
    Ok(Some(sample.clone()))
}

fn validate_plan(
    cx: &Ctx<'_>,
    v: &ValidateSpec,
) -> Result<crate::validate::stage::ValidatePlan, RecipeError> {
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
        let resolve = |p: &Path| absolute(cx.resolve(p));
        s.env
            .kind_mut()
            .absolutize(&resolve)
            .map_err(|why| cx.err(&key, why))?;
    }
    let cache_dir = absolute(match &v.cache {
        Some(p) => cx.resolve(p),
        None => default_cache_dir(),
    });
    Ok(crate::validate::stage::ValidatePlan {
        reruns: v.reruns,
        timeout: std::time::Duration::from_secs(v.timeout),
        memory_limit: v.memory_mb.map(|m| m * 1024 * 1024),
        process_limit: v.max_processes,
        file_size_limit: v.max_file_mb.map(|m| m * 1024 * 1024),
        scope: v.scope,
        suites,
        cache_dir,
        network_for_setup: v.network_for_setup,
        necessary_hunks: v.necessary_hunks.unwrap_or(v.defects4j.is_none()),
        defects4j: v.defects4j.as_ref().map(|d| {
            let mut d = d.clone();
            d.home = d.home.as_ref().map(|p| absolute(cx.resolve(p)));
            d.java_home = d.java_home.as_ref().map(|p| absolute(cx.resolve(p)));
            d
        }),
    })
}
