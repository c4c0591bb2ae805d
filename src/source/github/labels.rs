//! Issue labels as a commit rule of the git source (`source.git.issue_labels`): a commit
//! whose referenced GitHub issues and pull requests are labelled as something other than
//! a bug (`enhancement`, `feature`, …) and none as a bug is rejected as
//! `issue_label_not_fix`. A commit message says "fix" for features too; the label a
//! maintainer gave the issue is the history's own word on what it was.
//!
//! Only references to the repository's own issues count (`#12`, `GH-12`, its issue URLs);
//! an issue that is gone (404) or has no label from either list is no evidence, and the
//! commit is kept. Responses go through the GitHub source's client: the same ETag cache
//! (a rebuild revalidates at no quota, `--offline` answers from it), rate limits and
//! retries.

use super::api::{ApiError, Traffic};
use super::{GithubError, RunOptions};
use crate::model::{RejectReason, Rejected, Stage};
use crate::progress::Progress;
use crate::source::rules::CommitRule;
use crate::source::SourceOutput;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

/// The funnel's name of the rule (`MineFunnel::rejected`).
pub const RULE: &str = "issue_label_not_fix";

/// Labels that say an issue is a bug, when no recipe names its own (GitHub's default
/// `bug` and the common variants).
pub const DEFAULT_FIX: &[&str] = &["bug", "bugfix", "bug fix", "regression", "defect", "crash"];

/// Labels that say an issue is not a bug, when no recipe names its own: GitHub's default
/// `enhancement`, `documentation` and `question`, and the common names for features,
/// refactors, performance work and deliberate breaking changes.
pub const DEFAULT_NOT_FIX: &[&str] = &[
    "enhancement",
    "feature",
    "feature request",
    "new feature",
    "improvement",
    "documentation",
    "docs",
    "question",
    "refactor",
    "refactoring",
    "performance",
    "breaking change",
];

/// The rule's settings, resolved and checked by the recipe plan.
#[derive(Debug, Clone)]
pub struct LabelConfig {
    /// Repository owner on GitHub.
    pub owner: String,
    /// Repository name on GitHub.
    pub name: String,
    /// API root (`https://api.github.com`; GitHub Enterprise or a test server otherwise).
    pub api: String,
    /// Labels that mark a bug, normalized (`normalize`).
    pub fix: Vec<String>,
    /// Labels that mark something else, normalized.
    pub not_fix: Vec<String>,
    /// Response cache directory (shared with the GitHub source).
    pub cache_dir: PathBuf,
    /// Total time the build may wait for rate limits.
    pub max_wait: Duration,
    /// The recipe's `reject_closing_keyword_only`, decided here instead of in the walk:
    /// a `Fix #43: …` subject does not say whether #43 is a bug, and its label does.
    pub closing_keyword_only: bool,
}

/// A label as the lists compare it: lower case, a `type:`/`kind/`-style prefix dropped,
/// separators (`-`, `_`, runs of spaces) as one space, emoji and punctuation around it
/// trimmed; `Type: Bug`, `kind/bug` and `🐛 bug` are all `bug`.
pub fn normalize(label: &str) -> String {
    let lower = label.to_lowercase();
    let rest = match lower.rfind([':', '/']) {
        Some(i) => &lower[i + 1..],
        None => lower.as_str(),
    };
    rest.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the labels of a commit's referenced issues say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// At least one reference is labelled a bug: kept, whatever else is labelled.
    Fix,
    /// No reference is labelled a bug and one is labelled otherwise (`#946 is labelled
    /// enhancement`).
    NotFix(String),
    /// No label from either list (or no reference): kept, there is no evidence.
    Unknown,
}

/// The verdict on `(reference, its labels)` pairs, in the commit's reference order.
pub fn verdict(cfg: &LabelConfig, labelled: &[(String, Vec<String>)]) -> Verdict {
    // Each label with its normalized form, normalized once.
    let normalized: Vec<(&String, Vec<(&str, String)>)> = labelled
        .iter()
        .map(|(r, ls)| (r, ls.iter().map(|l| (l.as_str(), normalize(l))).collect()))
        .collect();
    if normalized
        .iter()
        .any(|(_, ls)| ls.iter().any(|(_, n)| cfg.fix.contains(n)))
    {
        return Verdict::Fix;
    }
    let not_fix: Vec<String> = normalized
        .iter()
        .filter_map(|(r, ls)| {
            let hits: Vec<&str> = ls
                .iter()
                .filter(|(_, n)| cfg.not_fix.contains(n))
                .map(|(l, _)| *l)
                .collect();
            (!hits.is_empty()).then(|| format!("{r} is labelled `{}`", hits.join("`, `")))
        })
        .collect();
    if not_fix.is_empty() {
        Verdict::Unknown
    } else {
        Verdict::NotFix(not_fix.join("; "))
    }
}

/// An API failure of the rule, with what to do when the error does not say it.
fn labels_error(source: ApiError) -> GithubError {
    let hint = match source {
        ApiError::Transport { .. } | ApiError::Status { .. } => {
            "; the rule reads GitHub's API: build where it is reachable, or with --offline once a run has filled the cache, or remove `issue_labels`"
        }
        _ => "",
    };
    GithubError::Labels { source, hint }
}

/// The issue number of a reference to the repository's own tracker (`#12`).
fn own_number(id: &str) -> Option<u64> {
    id.strip_prefix('#')?.parse().ok()
}

/// The one field of an issue (or pull request, through the issues endpoint) read here.
#[derive(Debug, Deserialize)]
struct Labelled {
    #[serde(default)]
    labels: Vec<Label>,
}

#[derive(Debug, Deserialize)]
struct Label {
    name: String,
}

/// Move the candidates whose references are labelled as not a bug into `out.rejected`,
/// counted under `RULE` in the funnel. `closing` holds the candidates whose subject's fix
/// word only closes an issue (id → the closing-keyword rule's detail): a bug label keeps
/// them, and without one they are `closing_keyword_only` as the walk would have made
/// them. A rate limit that outlasts `max_wait` stops the lookups: the candidates not yet
/// looked up are kept, and a warning says how many.
pub fn apply(
    cfg: &LabelConfig,
    out: &mut SourceOutput,
    closing: &HashMap<String, String>,
    opts: &RunOptions,
    progress: &Progress,
) -> Result<Traffic, GithubError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(GithubError::Runtime)?;
    runtime.block_on(async {
        let mut client = super::client(&cfg.api, &cfg.cache_dir, cfg.max_wait, opts, progress)
            .map_err(labels_error)?;
        let repo = format!("{}/{}", cfg.owner, cfg.name);
        progress.set_message("issue labels");
        progress.set_len(out.candidates.len() as u64);
        let mut known: HashMap<u64, Vec<String>> = HashMap::new();
        let mut rejected = Vec::new();
        let mut closing_rejected = Vec::new();
        let mut kept = Vec::with_capacity(out.candidates.len());
        let mut stopped: Option<(usize, String)> = None;
        let total = out.candidates.len();
        for (done, c) in std::mem::take(&mut out.candidates).into_iter().enumerate() {
            // `None` once the rate limit stopped the lookups: unchecked.
            let mut labelled = stopped.is_none().then(Vec::new);
            let refs: &[_] = if labelled.is_some() { &c.references } else { &[] };
            for r in refs {
                let Some(n) = own_number(&r.id) else { continue };
                if let std::collections::hash_map::Entry::Vacant(slot) = known.entry(n) {
                    match client
                        .get::<Labelled>(&format!("/repos/{repo}/issues/{n}"))
                        .await
                    {
                        Ok(l) => {
                            slot.insert(l.labels.into_iter().map(|l| l.name).collect());
                        }
                        // Deleted, moved, or never an issue: no evidence.
                        Err(ApiError::NotFound { .. }) => {
                            slot.insert(Vec::new());
                        }
                        Err(ApiError::RateLimited { reset_at, .. }) => {
                            stopped = Some((done, reset_at));
                            labelled = None;
                            break;
                        }
                        Err(e) => return Err(labels_error(e)),
                    }
                }
                if let Some(l) = labelled.as_mut() {
                    l.push((r.id.clone(), known.get(&n).cloned().unwrap_or_default()));
                }
            }
            let checked = labelled.map(|l| verdict(cfg, &l));
            let reject = |reason, detail| Rejected::new(c.id.clone(), Stage::Mine, reason, detail);
            match (checked, closing.get(&c.id)) {
                (Some(Verdict::NotFix(why)), _) => rejected.push(reject(
                    RejectReason::IssueLabelNotFix,
                    format!("{why}, and no referenced issue is labelled a bug"),
                )),
                (Some(Verdict::Unknown), Some(why)) => closing_rejected.push(reject(
                    RejectReason::ClosingKeywordOnly,
                    format!("{why}; no referenced issue is labelled a bug or otherwise"),
                )),
                // Unchecked: the closing-keyword rule stands as the walk applies it.
                (None, Some(why)) => closing_rejected.push(reject(
                    RejectReason::ClosingKeywordOnly,
                    format!("{why}; its issue's labels were not looked up (rate limit)"),
                )),
                (Some(Verdict::Fix), _) | (_, None) => kept.push(c),
            }
            if stopped.is_none() {
                progress.inc(1);
            }
        }
        if let Some((done, reset_at)) = stopped {
            out.warnings.push(format!(
                "GitHub rate limit exhausted after looking up the issue labels of {done} of {total} candidates; it resets at {reset_at}; the other {} are kept unchecked, and a re-run after the reset continues from the cache",
                total - done
            ));
        }
        if let Some(f) = out.funnel.as_mut() {
            for (rule, n) in [
                (RULE, rejected.len()),
                (CommitRule::ClosingKeywordOnly.key(), closing_rejected.len()),
            ] {
                if n > 0 {
                    *f.rejected.entry(rule.to_string()).or_default() += n;
                    f.kept = f.kept.saturating_sub(n);
                }
            }
        }
        out.candidates = kept;
        out.rejected.extend(rejected);
        out.rejected.extend(closing_rejected);
        Ok(client.traffic)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> LabelConfig {
        LabelConfig {
            owner: "o".into(),
            name: "r".into(),
            api: "http://127.0.0.1:9".into(),
            fix: DEFAULT_FIX.iter().map(|s| normalize(s)).collect(),
            not_fix: DEFAULT_NOT_FIX.iter().map(|s| normalize(s)).collect(),
            cache_dir: PathBuf::from("/nonexistent"),
            max_wait: Duration::ZERO,
            closing_keyword_only: true,
        }
    }

    fn refs(v: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
        v.iter()
            .map(|(r, ls)| (r.to_string(), ls.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn labels_are_compared_without_prefixes_case_or_decoration() {
        for (raw, want) in [
            ("Type: Bug", "bug"),
            ("kind/bug", "bug"),
            ("🐛 bug", "bug"),
            ("Feature-Request", "feature request"),
            ("type: breaking_change", "breaking change"),
            ("enhancement", "enhancement"),
        ] {
            assert_eq!(normalize(raw), want, "{raw}");
        }
    }

    #[test]
    fn a_bug_label_anywhere_keeps_the_commit_and_only_a_non_fix_label_rejects_it() {
        let c = cfg();
        assert_eq!(
            verdict(
                &c,
                &refs(&[("#1", &["enhancement"]), ("#2", &["Type: Bug"])])
            ),
            Verdict::Fix
        );
        assert_eq!(
            verdict(
                &c,
                &refs(&[("#946", &["enhancement", "good first issue"]), ("#3", &[])])
            ),
            Verdict::NotFix("#946 is labelled `enhancement`".into())
        );
        assert_eq!(
            verdict(&c, &refs(&[("#5", &["help wanted", "wontfix"])])),
            Verdict::Unknown
        );
        assert_eq!(verdict(&c, &[]), Verdict::Unknown);
    }

    #[test]
    fn only_the_repositorys_own_references_are_looked_up() {
        assert_eq!(own_number("#12"), Some(12));
        assert_eq!(own_number("other/repo#12"), None);
        assert_eq!(own_number("LANG-12"), None);
    }
}
