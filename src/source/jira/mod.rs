//! JIRA issue types as a commit rule of the git source (`source.git.issue_types`): the
//! JIRA twin of `issue_labels`. Apache-style histories key their commits to a JIRA
//! issue (`[TEXT-123] …`, `LANG-1234: …`) and seldom say "fix"; the type a maintainer
//! gave the issue (Bug, Improvement, New Feature, …) says what the commit was.
//!
//! With the rule on, a subject that references a JIRA key selects its commit as the
//! message rules would ([`Admission::KeyOnly`]), and after the walk every candidate's
//! keys are looked up: a fix type keeps it; a not-fix type and no fix type rejects it as
//! `issue_type_not_fix`; no evidence (no key, a 404, a type in neither list) keeps a
//! commit its own words selected, and leaves one selected only for its key, or whose
//! fix word only names the key ([`Admission::ClosingKey`]), to the rule that would
//! have judged it without the lookup.

pub mod client;
pub mod keys;

use crate::model::{RejectReason, Rejected, Stage};
use crate::progress::Progress;
use crate::source::rules::{CommitRule, MessageRules};
use crate::source::{Candidate, SourceOutput};
use client::{Client, ClientError, Lookup, RunOptions, Traffic};
use keys::KeyRule;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

/// The funnel's name of the rule (`MineFunnel::rejected`).
pub const RULE: &str = "issue_type_not_fix";

/// Issue types that say an issue is a bug, when no recipe names its own.
pub const DEFAULT_FIX: &[&str] = &["Bug"];

/// Issue types that say an issue is not a bug, when no recipe names its own: JIRA's
/// stock types and the ones Apache's JIRA adds. `Sub-task` is in neither list: a
/// sub-task of a Bug is fix work, and its type does not say whose sub-task it is.
pub const DEFAULT_NOT_FIX: &[&str] = &[
    "Improvement",
    "New Feature",
    "Task",
    "Wish",
    "Test",
    "Documentation",
    "Dependency upgrade",
    "Story",
    "Epic",
];

/// The rule's settings, resolved and checked by the recipe plan.
#[derive(Debug, Clone)]
pub struct JiraConfig {
    /// The JIRA server (`https://issues.apache.org/jira`), without a trailing `/`.
    pub url: String,
    /// Which keys of a message are this tracker's issues.
    pub keys: KeyRule,
    /// Types that mark a bug, as the recipe names them (compared by `normalize`).
    pub fix: Vec<String>,
    /// Types that mark something else, as the recipe names them.
    pub not_fix: Vec<String>,
    /// Response cache directory.
    pub cache_dir: PathBuf,
    /// Total time the build may wait for `Retry-After`.
    pub max_wait: Duration,
    /// The recipe's `reject_closing_keyword_only`: a `Fix LANG-12: …` subject whose fix
    /// word only names the issue is judged by the issue's type.
    pub closing_keyword_only: bool,
}

/// Why the rule could not run (per-commit outcomes are rejections).
#[derive(Debug, thiserror::Error)]
pub enum JiraError {
    /// JIRA could not answer for a key.
    #[error("source.git.issue_types: {key}: {source}{hint}")]
    Lookup {
        /// The key asked about.
        key: String,
        /// What went wrong.
        #[source]
        source: ClientError,
        /// What to do about it, when the error does not say.
        hint: &'static str,
    },
}

/// A type as the lists compare it: trimmed, lower case, inner spaces as one.
pub fn normalize(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Why a candidate was selected, as far as this rule cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// Its own words selected it, beyond naming a key: no evidence keeps it.
    Message,
    /// Its subject's fix word only names a JIRA issue (`Fix LANG-12: Add an option`),
    /// with the closing-keyword rule's detail: no evidence makes it
    /// `closing_keyword_only`.
    ClosingKey(String),
    /// Only its JIRA key selected it: without a fix type it is not a candidate.
    KeyOnly,
}

/// How each candidate was selected, for those not selected by their words alone (id →
/// admission); `rules` are the recipe's message rules.
pub fn admissions(
    cfg: &JiraConfig,
    rules: &MessageRules,
    candidates: &[Candidate],
) -> HashMap<String, Admission> {
    // The statement keeps the message whole but for its trailers.
    admitted_by(
        cfg,
        rules,
        candidates
            .iter()
            .map(|c| (c.id.as_str(), c.problem_statement.as_str())),
    )
}

/// [`admissions`] of `(id, message)` pairs.
fn admitted_by<'a>(
    cfg: &JiraConfig,
    rules: &MessageRules,
    messages: impl Iterator<Item = (&'a str, &'a str)>,
) -> HashMap<String, Admission> {
    let passes = |s: &str| rules.subject.as_ref().unwrap_or(&rules.message).is_match(s);
    messages
        .filter_map(|(id, message)| {
            let admission = if !rules.accepts_words(message) {
                Admission::KeyOnly
            } else {
                let why = cfg
                    .closing_keyword_only
                    .then(|| cfg.keys.closing_only(message, passes))
                    .flatten()?;
                Admission::ClosingKey(why)
            };
            Some((id.to_string(), admission))
        })
        .collect()
}

/// What the types of a commit's keys say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// At least one issue is of a fix type: kept, whatever else is referenced.
    Fix,
    /// No fix type and at least one not-fix type; the detail names each key and type.
    NotFix(String),
    /// Neither (or no key); the detail says what was found.
    Unknown(String),
}

/// `LANG-2 is of type `Improvement``, `LANG-9 was not found`, for each key.
fn described(looked_up: &[(String, Lookup)]) -> String {
    looked_up
        .iter()
        .map(|(k, l)| match l {
            Lookup::Type { key, name } if key != k => {
                format!("{k} (now {key}) is of type `{name}`")
            }
            Lookup::Type { name, .. } => format!("{k} is of type `{name}`"),
            Lookup::Gone => format!("{k} was not found"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The verdict on `(key, what JIRA says)` pairs, in the commit's key order.
pub fn verdict(cfg: &JiraConfig, looked_up: &[(String, Lookup)]) -> Verdict {
    let is = |list: &[String]| {
        looked_up.iter().any(|(_, l)| match l {
            Lookup::Type { name, .. } => {
                let name = normalize(name);
                list.iter().any(|t| normalize(t) == name)
            }
            Lookup::Gone => false,
        })
    };
    if is(&cfg.fix) {
        Verdict::Fix
    } else if is(&cfg.not_fix) {
        Verdict::NotFix(described(looked_up))
    } else if looked_up.is_empty() {
        Verdict::Unknown("it references no JIRA issue".into())
    } else {
        Verdict::Unknown(described(looked_up))
    }
}

/// An API failure of the rule, with what to do when the error does not say it.
fn lookup_error(key: &str, source: ClientError) -> JiraError {
    let hint = match source {
        ClientError::Transport { .. } | ClientError::Status { .. } => {
            "; the rule reads JIRA's REST API: build where it is reachable, or with --offline once a run has filled the cache, or remove `issue_types`"
        }
        _ => "",
    };
    JiraError::Lookup {
        key: key.to_string(),
        source,
        hint,
    }
}

/// `` `Bug` `` or `` `Bug`, `Defect` ``: the fix types, for details.
fn fix_types(cfg: &JiraConfig) -> String {
    format!("`{}`", cfg.fix.join("`, `"))
}

/// Move the candidates whose JIRA issues are not of a fix type into `out.rejected`,
/// counted under `RULE` (or `closing_keyword_only`) in the funnel; `admitted` is
/// [`admissions`]. A `Retry-After` that outlasts `max_wait` stops the lookups: the
/// candidates not yet looked up are judged as without the rule, with a warning.
pub fn apply(
    cfg: &JiraConfig,
    out: &mut SourceOutput,
    admitted: &HashMap<String, Admission>,
    opts: &RunOptions,
    progress: &Progress,
) -> Result<Traffic, JiraError> {
    let mut client = Client::new(
        &cfg.url,
        &cfg.cache_dir,
        cfg.max_wait,
        opts,
        progress.clone(),
    );
    progress.set_message("JIRA issue types");
    progress.set_len(out.candidates.len() as u64);
    let mut known: HashMap<String, Lookup> = HashMap::new();
    let (mut rejected, mut closing_rejected) = (Vec::new(), Vec::new());
    let mut kept = Vec::with_capacity(out.candidates.len());
    let mut stopped: Option<(usize, u64)> = None;
    let total = out.candidates.len();
    for (done, c) in std::mem::take(&mut out.candidates).into_iter().enumerate() {
        // `None` once a wait past `max_wait` stopped the lookups: unchecked.
        let mut looked_up = stopped.is_none().then(Vec::new);
        if looked_up.is_some() {
            for key in cfg.keys.keys(&c.problem_statement) {
                if !known.contains_key(&key) {
                    match client.issue_type(&key) {
                        Ok(l) => {
                            known.insert(key.clone(), l);
                        }
                        Err(ClientError::RateLimited { secs, .. }) => {
                            stopped = Some((done, secs));
                            looked_up = None;
                            break;
                        }
                        Err(e) => return Err(lookup_error(&key, e)),
                    }
                }
                if let (Some(l), Some(found)) = (looked_up.as_mut(), known.get(&key)) {
                    l.push((key, found.clone()));
                }
            }
        }
        let checked = looked_up.map(|l| verdict(cfg, &l));
        let admission = admitted.get(&c.id).unwrap_or(&Admission::Message);
        let reject = |reason, detail| Rejected::new(c.id.clone(), Stage::Mine, reason, detail);
        let not_fix = RejectReason::IssueTypeNotFix;
        match (checked, admission) {
            (Some(Verdict::Fix), _) | (Some(Verdict::Unknown(_)) | None, Admission::Message) => {
                kept.push(c)
            }
            (Some(Verdict::NotFix(why)), _) => rejected.push(reject(
                not_fix,
                format!(
                    "{why}; no referenced JIRA issue is of a fix type ({})",
                    fix_types(cfg)
                ),
            )),
            (Some(Verdict::Unknown(why)), Admission::KeyOnly) => rejected.push(reject(
                not_fix,
                format!(
                    "its message has no fix word and no referenced JIRA issue is of a fix type ({}): {why}",
                    fix_types(cfg)
                ),
            )),
            (None, Admission::KeyOnly) => rejected.push(reject(
                not_fix,
                "its message has no fix word and its JIRA issues were not looked up (Retry-After past max_wait)".to_string(),
            )),
            (Some(Verdict::Unknown(why)), Admission::ClosingKey(closing)) => {
                closing_rejected.push(reject(
                    RejectReason::ClosingKeywordOnly,
                    format!("{closing}; no referenced JIRA issue is of a fix or not-fix type: {why}"),
                ))
            }
            (None, Admission::ClosingKey(closing)) => closing_rejected.push(reject(
                RejectReason::ClosingKeywordOnly,
                format!("{closing}; its JIRA issues were not looked up (Retry-After past max_wait)"),
            )),
        }
        if stopped.is_none() {
            progress.inc(1);
        }
    }
    if let Some((done, secs)) = stopped {
        out.warnings.push(format!(
            "JIRA asked to wait {secs} s (Retry-After), past issue_types.max_wait, after the issue types of {done} of {total} candidates were looked up; the other {} are judged without their types (kept when their own words say fix), and a re-run continues from the cache",
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> JiraConfig {
        JiraConfig {
            url: "http://127.0.0.1:9".into(),
            keys: KeyRule::default(),
            fix: DEFAULT_FIX.iter().map(|s| s.to_string()).collect(),
            not_fix: DEFAULT_NOT_FIX.iter().map(|s| s.to_string()).collect(),
            cache_dir: PathBuf::from("/nonexistent"),
            max_wait: Duration::ZERO,
            closing_keyword_only: true,
        }
    }

    fn typed(v: &[(&str, Option<&str>)]) -> Vec<(String, Lookup)> {
        v.iter()
            .map(|(k, t)| {
                let l = match t {
                    Some(name) => Lookup::Type {
                        key: k.to_string(),
                        name: name.to_string(),
                    },
                    None => Lookup::Gone,
                };
                (k.to_string(), l)
            })
            .collect()
    }

    #[test]
    fn types_are_compared_without_case_or_extra_spaces() {
        assert_eq!(normalize(" New   Feature "), "new feature");
        assert_eq!(normalize("BUG"), "bug");
    }

    #[test]
    fn a_fix_type_anywhere_keeps_and_only_a_not_fix_type_rejects() {
        let c = cfg();
        assert_eq!(
            verdict(
                &c,
                &typed(&[("LANG-1", Some("Improvement")), ("LANG-2", Some("bug"))])
            ),
            Verdict::Fix
        );
        assert_eq!(
            verdict(
                &c,
                &typed(&[("LANG-3", Some("New Feature")), ("LANG-4", None), ("LANG-5", Some("Sub-task"))])
            ),
            Verdict::NotFix(
                "LANG-3 is of type `New Feature`, LANG-4 was not found, LANG-5 is of type `Sub-task`"
                    .into()
            )
        );
        assert_eq!(
            verdict(
                &c,
                &typed(&[("LANG-6", None), ("LANG-7", Some("Question"))])
            ),
            Verdict::Unknown("LANG-6 was not found, LANG-7 is of type `Question`".into())
        );
        assert_eq!(
            verdict(&c, &[]),
            Verdict::Unknown("it references no JIRA issue".into())
        );
        let moved = vec![(
            "LANG-8".to_string(),
            Lookup::Type {
                key: "TEXT-1".into(),
                name: "Task".into(),
            },
        )];
        assert_eq!(
            verdict(&c, &moved),
            Verdict::NotFix("LANG-8 (now TEXT-1) is of type `Task`".into())
        );
    }

    #[test]
    fn admissions_tell_key_only_and_closing_subjects_from_fix_words() {
        use crate::source::rules::GitSourceConfig;
        let mut rules = MessageRules::compile(&GitSourceConfig::default()).expect("rules");
        let mut c = cfg();
        c.keys.projects = vec!["LANG".into()];
        rules.issue_keys = Some(c.keys.clone());
        let cands = [
            ("a", "LANG-1: Fix the NPE in split"),
            ("b", "LANG-2: Add StringUtils.foo"),
            ("c", "Fix LANG-3: Add an option"),
            ("d", "[LANG-4] Bugfix for the parser"),
        ];
        for m in ["LANG-2: Add StringUtils.foo", "Fix LANG-3: Add an option"] {
            assert!(rules.accepts(m), "{m}");
        }
        assert!(!rules.accepts("TEXT-2: Add StringUtils.foo"));
        let got = admitted_by(&c, &rules, cands.into_iter());
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got["b"], Admission::KeyOnly);
        assert!(matches!(&got["c"], Admission::ClosingKey(w) if w.contains("`Fix LANG-3`")));
        c.closing_keyword_only = false;
        assert_eq!(admitted_by(&c, &rules, cands.into_iter()).len(), 1);
    }
}
