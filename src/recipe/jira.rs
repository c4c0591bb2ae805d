//! The plan of the git source's `issue_types` rule: the JIRA server, the project keys
//! (named, or inferred from `issue_regex`) and the type lists, checked.

use super::context::{default_cache_dir, Ctx};
use super::schema::{locate, IssueTypesSpec};
use super::RecipeError;
use crate::source::jira::keys::KeyRule;
use crate::source::jira::{normalize, JiraConfig, DEFAULT_FIX, DEFAULT_NOT_FIX};
use crate::source::refs::Links;

const KEY: &str = "source.git.issue_types";

/// The issue-type rule of a git recipe, checked. `closing_keyword_only` is the recipe's
/// `reject_closing_keyword_only`; `issue_url` its tracker template, for a hint.
pub(super) fn issue_types_plan(
    cx: &Ctx<'_>,
    spec: &IssueTypesSpec,
    links: &Links,
    closing_keyword_only: bool,
    issue_url: Option<&str>,
) -> Result<JiraConfig, RecipeError> {
    let Some(url) = &spec.url else {
        // `browse/{id}` pages live under the server's address.
        let hint = issue_url
            .and_then(|u| u.split_once("/browse/"))
            .map(|(root, _)| format!("`url: {root}`"))
            .unwrap_or_else(|| "`url: https://issues.apache.org/jira`".into());
        return Err(RecipeError {
            file: cx.file.to_path_buf(),
            location: locate(cx.text, KEY),
            key: format!("{KEY}.url"),
            message: format!("missing: the JIRA server whose issue types are read, e.g. {hint}"),
        });
    };
    super::context::api_url(cx, &format!("{KEY}.url"), url)?;
    let projects = match &spec.projects {
        None => Vec::new(),
        Some(p) if p.is_empty() => {
            return Err(cx.err(
                &format!("{KEY}.projects"),
                "expected at least one project key (omit `projects` to accept any key)",
            ))
        }
        Some(p) => {
            let mut out = Vec::new();
            for raw in p {
                let key = raw.trim().to_ascii_uppercase();
                let mut chars = key.chars();
                let ok = chars.next().is_some_and(|c| c.is_ascii_uppercase())
                    && key.len() >= 2
                    && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
                if !ok {
                    return Err(cx.err(
                        &format!("{KEY}.projects"),
                        format!("`{raw}`: expected a JIRA project key such as LANG (letters, digits, `_`)"),
                    ));
                }
                out.push(key);
            }
            out
        }
    };
    let tracker = match projects.is_empty() {
        true => links.tracker.as_ref().map(|(re, _)| re.clone()),
        false => None,
    };
    let list = |k: &str, given: &Option<Vec<String>>, default: &[&str]| {
        let raw: Vec<String> = match given {
            Some(v) => v.clone(),
            None => default.iter().map(|s| s.to_string()).collect(),
        };
        let out: Vec<String> = raw.iter().map(|t| t.trim().to_string()).collect();
        match out.iter().any(|t| normalize(t).is_empty()) {
            true => Err(cx.err(&format!("{KEY}.{k}"), "an issue type is empty")),
            false => Ok(out),
        }
    };
    let fix = list("fix", &spec.fix, DEFAULT_FIX)?;
    let not_fix = list("not_fix", &spec.not_fix, DEFAULT_NOT_FIX)?;
    if let Some(both) = fix
        .iter()
        .find(|t| not_fix.iter().any(|n| normalize(n) == normalize(t)))
    {
        return Err(cx.err(
            KEY,
            format!("`{both}` is in both `fix` and `not_fix` (compared without case); a type can say only one"),
        ));
    }
    Ok(JiraConfig {
        url: url.trim_end_matches('/').to_string(),
        keys: KeyRule { projects, tracker },
        fix,
        not_fix,
        cache_dir: match &spec.cache {
            Some(p) => cx.resolve(p),
            None => default_cache_dir().join("jira"),
        },
        max_wait: std::time::Duration::from_secs(spec.max_wait),
        closing_keyword_only,
    })
}
