//! The per-source plan builders (Defects4J, SWE-bench, git history, GitHub) and the
//! checks that belong to one kind of source.

use super::context::{api_url, default_cache_dir, Ctx};
use super::schema::{Defects4jSpec, GitSpec, GithubSpec, Recipe, SelectSpec, SwebenchSpec};
use super::RecipeError;
use crate::source::defects4j::{self, D4jConfig, ProjectRepo};
use crate::source::git_history::{self, GitConfig};
use crate::source::github::GithubConfig;
use crate::source::rules::{GitSourceConfig, MessageRules};
use crate::source::swebench::SwebenchConfig;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub(super) fn d4j_plan(
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
            Some(m) => defects4j::read_revision_map(
                &cx.resolve(&m.file),
                &m.from,
                &m.to,
                m.buggy_to.as_deref(),
            )
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
    let bugs = match &spec.bugs {
        None => None,
        Some(list) => Some(d4j_bugs(cx, list, &projects)?),
    };
    Ok(D4jConfig {
        root,
        version: spec.version.clone(),
        projects,
        bugs,
        repos,
    })
}

/// `source.defects4j.bugs`: each entry an active bug (`<Project>_<id>`) of a project in
/// the build, so a typo is one clear line instead of a silently smaller dataset.
fn d4j_bugs(
    cx: &Ctx<'_>,
    list: &[String],
    projects: &[(String, PathBuf)],
) -> Result<std::collections::BTreeSet<String>, RecipeError> {
    let mut active: BTreeMap<&str, std::collections::BTreeSet<u32>> = BTreeMap::new();
    for (name, dir) in projects {
        let rows = defects4j::read_active_bugs(&dir.join("active-bugs.csv"))
            .map_err(|e| cx.err("source.defects4j.path", e.to_string()))?;
        active.insert(name, rows.into_iter().map(|r| r.id).collect());
    }
    let mut out = std::collections::BTreeSet::new();
    for (i, bug) in list.iter().enumerate() {
        let key = format!("source.defects4j.bugs[{i}]");
        let (project, id) = bug
            .rsplit_once('_')
            .and_then(|(p, n)| n.parse::<u32>().ok().map(|n| (p, n)))
            .ok_or_else(|| {
                cx.err(
                    &key,
                    format!("`{bug}`: expected <Project>_<number>, e.g. Lang_10"),
                )
            })?;
        match active.get(project) {
            None => {
                return Err(cx.err(&key, format!("`{bug}`: no project {project} in this build")))
            }
            Some(ids) if !ids.contains(&id) => {
                return Err(cx.err(&key, format!("`{bug}`: not an active bug of {project}")))
            }
            Some(_) => {}
        }
        out.insert(bug.clone());
    }
    Ok(out)
}

pub(super) fn swebench_plan(
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
pub(super) fn git_only(cx: &Ctx<'_>, recipe: &Recipe) -> Result<(), RecipeError> {
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

pub(super) fn git_plan(
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
    if spec.all_branches && spec.revs.is_some() {
        return Err(cx.err(
            "source.git.all_branches",
            "expected either `revs` or `all_branches: true`, not both",
        ));
    }
    let mut walk = GitSourceConfig {
        revs: spec.revs.clone().or_else(|| {
            spec.all_branches
                .then(|| crate::git::walk::ALL_BRANCHES.into())
        }),
        require_tests: spec.require_tests,
        max_changed_lines: spec.max_changed_lines,
        max_files: spec.max_files,
        max_code_hunks: spec.max_code_hunks,
        reject_reverts: spec.reject_reverts,
        reject_changelog_non_fixes: spec.reject_changelog_non_fixes,
        reject_closing_keyword_only: spec.reject_closing_keyword_only,
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
    let mut rules = MessageRules::compile(&walk).map_err(|e| {
        cx.err(
            &format!("source.git.{}", e.key),
            format!("not a valid regex: {}", e.message),
        )
    })?;
    let links = links(cx, spec)?;
    let name = match (&spec.name, &spec.url) {
        (Some(name), _) => name.clone(),
        (None, Some(url)) => {
            crate::source::refs::owner_repo(url).unwrap_or_else(|| git_history::repo_name(&repo))
        }
        (None, None) => git_history::repo_name(&repo),
    };
    let issue_labels = match &spec.issue_labels {
        Some(l) => {
            // A closing keyword's issue is looked up: its label decides, not the walk.
            let labels = issue_labels_plan(cx, l, &links, walk.reject_closing_keyword_only)?;
            walk.reject_closing_keyword_only = false;
            Some(labels)
        }
        None => None,
    };
    let issue_types = match &spec.issue_types {
        Some(t) => {
            let jira = super::jira::issue_types_plan(
                cx,
                t,
                &links,
                spec.reject_closing_keyword_only,
                spec.issue_url.as_deref(),
            )?;
            // A subject naming one of its keys is selected: the type decides.
            rules.issue_keys = Some(jira.keys.clone());
            Some(jira)
        }
        None => None,
    };
    Ok(GitConfig {
        name,
        repo,
        walk,
        rules,
        links,
        issue_labels,
        issue_types,
    })
}

/// The issue-label rule of a git recipe, checked: it needs the repository on GitHub.
/// `closing_keyword_only` is the recipe's closing-keyword rule, which the label step
/// decides instead of the walk.
fn issue_labels_plan(
    cx: &Ctx<'_>,
    spec: &super::schema::IssueLabelsSpec,
    links: &crate::source::refs::Links,
    closing_keyword_only: bool,
) -> Result<crate::source::github::labels::LabelConfig, RecipeError> {
    use crate::source::github::labels::{normalize, LabelConfig, DEFAULT_FIX, DEFAULT_NOT_FIX};
    use crate::source::refs::{owner_repo, Forge};
    let key = "source.git.issue_labels";
    let (owner, name) = match &links.repo {
        Some((url, Forge::Github)) => owner_repo(url)
            .and_then(|o_r| {
                let (o, n) = o_r.split_once('/')?;
                Some((o.to_string(), n.to_string()))
            })
            .ok_or_else(|| {
                cx.err(
                    "source.git.url",
                    format!("`{url}`: expected https://github.com/owner/repo for issue_labels"),
                )
            })?,
        Some((url, _)) => {
            return Err(cx.err(
                key,
                format!("`{url}` is not on GitHub; issue labels are read from GitHub's API only"),
            ))
        }
        None => {
            return Err(cx.err(
                key,
                "needs `url:` (the repository's GitHub address, https://github.com/owner/repo)",
            ))
        }
    };
    api_url(cx, &format!("{key}.api"), &spec.api)?;
    let list = |k: &str, given: &Option<Vec<String>>, default: &[&str]| {
        let raw: Vec<String> = match given {
            Some(v) => v.clone(),
            None => default.iter().map(|s| s.to_string()).collect(),
        };
        let out: Vec<String> = raw.iter().map(|l| normalize(l)).collect();
        match raw.iter().zip(&out).find(|(_, n)| n.is_empty()) {
            Some((l, _)) => Err(cx.err(
                &format!("{key}.{k}"),
                format!("`{l}` has no letters or digits to compare"),
            )),
            None => Ok(out),
        }
    };
    let fix = list("fix", &spec.fix, DEFAULT_FIX)?;
    let not_fix = list("not_fix", &spec.not_fix, DEFAULT_NOT_FIX)?;
    if let Some(both) = fix.iter().find(|l| not_fix.contains(l)) {
        return Err(cx.err(
            key,
            format!("`{both}` is in both `fix` and `not_fix`; a label can say only one"),
        ));
    }
    Ok(LabelConfig {
        owner,
        name,
        api: spec.api.trim_end_matches('/').to_string(),
        fix,
        not_fix,
        cache_dir: match &spec.cache {
            Some(p) => cx.resolve(p),
            None => default_cache_dir().join("github"),
        },
        max_wait: std::time::Duration::from_secs(spec.max_wait),
        closing_keyword_only,
    })
}

pub(super) fn github_plan(
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
    api_url(cx, &key("api"), &spec.api)?;
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
