//! The git-history mining policy: the recipe's rules for which commits are fix candidates
//! (message rules, size limits, reverts), as opposed to reading git, which `git::walk`
//! does. The walk asks these rules through [`Policy`].

use crate::git::walk::{ChangeSize, Policy};
use crate::git::HunkRules;
use regex::Regex;
use serde::Deserialize;

/// Default fix-message rule: the usual words of bug-fix commits, whole words only, so
/// `prefix`/`debugger` do not match but `Fix`, `fixes`, `bug`, `bugfix`, `defect` do.
pub const DEFAULT_MESSAGE_REGEX: &str =
    r"(?i)\b(fix(e[sd]|ing)?|bug(s|fix(es)?)?|defects?|faults?|regressions?)\b";

/// Recipe rules for picking fix commits out of a history (raw serde form, unknown keys
/// rejected so a typo never silently widens the selection).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GitSourceConfig {
    /// `A..B` (or `A...B`) range or a single ref; `None` walks what shipped (`HEAD`
    /// and every tag); [`crate::git::walk::ALL_BRANCHES`] every branch (`refs/heads/*`
    /// and `refs/remotes/*`).
    pub revs: Option<String>,
    /// Commit-message rule (Rust regex syntax, case-insensitive unless the pattern says
    /// `(?-i)`), matched against the whole message; an empty string accepts every message.
    pub message_regex: String,
    /// Rule for the first line of the message only (the subject), so a squash merge's
    /// bullet list ("* fix typo") does not select it; `None` checks no subject.
    pub subject_regex: Option<String>,
    /// Messages matching this are never selected (reverts, version bumps, bots).
    pub exclude_regex: Option<String>,
    /// Require at least one test file and one code file, since validation needs a test.
    pub require_tests: bool,
    /// Upper bound on code lines added + removed, to drop sweeping refactors.
    pub max_changed_lines: Option<usize>,
    /// Upper bound on the files a commit changes (code, tests and others), to drop mass
    /// maintenance commits.
    pub max_files: Option<usize>,
    /// Upper bound on code hunks ("Drop Python 2.7", 57 hunks, is no bug fix).
    pub max_code_hunks: Option<usize>,
    /// Reject reverts: a `Revert "…"` subject or a `This reverts commit <id>` body; and
    /// the commits a later commit reverts.
    pub reject_reverts: bool,
    /// Reject a commit whose own changelog entries all file it under something other than
    /// a bug fix (a `Features` section, a `feature` fragment).
    pub reject_changelog_non_fixes: bool,
    /// Reject a commit whose subject's fix words only close an issue (`Fix #43: Save
    /// hash value`): the issue may be a bug or a feature, and the subject does not say.
    pub reject_closing_keyword_only: bool,
    /// Reject a commit whose git patch-id (`git patch-id --stable`) an earlier selected
    /// commit already has (cherry-picks, backports); the earliest is kept.
    pub reject_duplicates: bool,
    /// Minimum number of hunks in code files (2 = multi-hunk fixes only).
    pub min_code_hunks: usize,
    /// Re-hash every object the result depends on (commits, the trees along changed
    /// paths, the changed blobs) and fail on a mismatch, like libgit2's
    /// `strict_hash_verification` but with hardware SHA-1; turning it off is faster but
    /// trusts the object store, so it is an explicit opt-out.
    pub verify_objects: bool,
    /// Content rules for code hunks, decided with the syntax layer.
    pub hunk_rules: HunkRules,
}

impl Default for GitSourceConfig {
    fn default() -> Self {
        GitSourceConfig {
            revs: None,
            message_regex: DEFAULT_MESSAGE_REGEX.to_string(),
            subject_regex: None,
            exclude_regex: None,
            require_tests: true,
            max_changed_lines: None,
            max_files: None,
            max_code_hunks: None,
            reject_reverts: true,
            reject_changelog_non_fixes: true,
            reject_closing_keyword_only: true,
            reject_duplicates: true,
            min_code_hunks: 2,
            verify_objects: true,
            hunk_rules: HunkRules::default(),
        }
    }
}

/// Why a commit that passed the message rules did not become a candidate.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum CommitRule {
    /// It reverts another commit (`reject_reverts`).
    Revert,
    /// Its patch-id equals an earlier commit's (`reject_duplicates`).
    DuplicatePatch,
    /// More changed files than `max_files`.
    MaxFiles,
    /// More code hunks than `max_code_hunks`.
    MaxCodeHunks,
    /// More changed code lines than `max_changed_lines`.
    MaxChangedLines,
    /// Its parent is not in the repository (shallow clone): it cannot be diffed.
    MissingParent,
    /// Its code is unchanged once whitespace, comments and docstrings are stripped
    /// (`select.reject_formatting_only`).
    FormattingOnly,
    /// Its own changelog entries file it under features, not bug fixes
    /// (`reject_changelog_non_fixes`).
    ChangelogNotFix,
    /// A later commit of the walk reverts it (`reject_reverts`): the fix did not stand.
    RevertedLater,
    /// Its subject's fix words only close an issue (`reject_closing_keyword_only`).
    ClosingKeywordOnly,
}

impl CommitRule {
    /// Stable snake_case name, as the funnel counts it: the `rejected.jsonl` reason.
    pub fn key(self) -> &'static str {
        match self {
            CommitRule::Revert => "revert",
            CommitRule::DuplicatePatch => "duplicate_patch",
            CommitRule::MaxFiles => "too_many_files",
            CommitRule::MaxCodeHunks => "too_many_hunks",
            CommitRule::MaxChangedLines => "too_many_changed_lines",
            CommitRule::MissingParent => "missing_parent",
            CommitRule::FormattingOnly => "formatting_only",
            CommitRule::ChangelogNotFix => "changelog_not_fix",
            CommitRule::RevertedLater => "reverted_later",
            CommitRule::ClosingKeywordOnly => "closing_keyword_only",
        }
    }
}

/// The message rules of a walk, compiled once (case-insensitive by default).
#[derive(Debug, Clone)]
pub struct MessageRules {
    /// Must match somewhere in the whole message.
    pub message: Regex,
    /// Must match the subject (first line), when set.
    pub subject: Option<Regex>,
    /// Must not match the message, when set.
    pub exclude: Option<Regex>,
    /// JIRA keys that select a commit whose subject references one, fix word or not
    /// (`source.git.issue_types`: the issue's type decides after the walk); `None` off.
    pub issue_keys: Option<crate::source::jira::keys::KeyRule>,
}

impl MessageRules {
    /// Compile `cfg`'s three rules; an error names the rule.
    pub fn compile(cfg: &GitSourceConfig) -> Result<MessageRules, BadRegex> {
        Ok(MessageRules {
            message: compile_rule("message_regex", &cfg.message_regex)?,
            subject: cfg
                .subject_regex
                .as_deref()
                .map(|r| compile_rule("subject_regex", r))
                .transpose()?,
            exclude: cfg
                .exclude_regex
                .as_deref()
                .map(|r| compile_rule("exclude_regex", r))
                .transpose()?,
            issue_keys: None,
        })
    }

    /// Why a subject's fix words only close an issue, when they do: with every closing
    /// keyword and its reference (`Fix #43:`, `Fixes GH-7`, `fixed issue #9`) taken
    /// out, the subject no longer passes the subject rule (the message rule when there
    /// is none).
    pub fn closing_keyword_only(&self, message: &str) -> Option<String> {
        static CLOSING: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
            Regex::new(r"(?i)\b(fix(e[sd])?|close[sd]?|resolve[sd]?)\s*:?\s*(issue\s*)?(#|gh-)\d+\s*[:,.]?")
                .expect("fixed regex")
        });
        let subject = message.lines().next().unwrap_or("");
        let rule = self.subject.as_ref().unwrap_or(&self.message);
        if !CLOSING.is_match(subject) || !rule.is_match(subject) {
            return None;
        }
        let rest = CLOSING.replace_all(subject, " ");
        (!rule.is_match(&rest)).then(|| {
            format!(
                "the subject's fix word only closes an issue (`{}`), which may be a bug or a feature: `{}`",
                CLOSING
                    .find(subject)
                    .map(|m| m.as_str().trim().trim_end_matches([':', ',', '.']))
                    .unwrap_or_default(),
                one_line(subject)
            )
        })
    }

    /// Whether `message` passes the rules: the message rule and the subject rule, or a
    /// subject that references one of `issue_keys`; and no exclusion.
    pub fn accepts(&self, message: &str) -> bool {
        (self.accepts_words(message)
            || self
                .issue_keys
                .as_ref()
                .is_some_and(|k| k.in_subject(message)))
            && !self.excluded(message)
    }

    /// Whether `message` passes the message and subject rules and no exclusion, keys
    /// aside: whether its own words select it.
    pub fn accepts_words(&self, message: &str) -> bool {
        let subject = message.lines().next().unwrap_or("");
        self.message.is_match(message)
            && self.subject.as_ref().is_none_or(|r| r.is_match(subject))
            && !self.excluded(message)
    }

    fn excluded(&self, message: &str) -> bool {
        self.exclude.as_ref().is_some_and(|r| r.is_match(message))
    }
}

/// The walk's view of a source config and its compiled message rules.
#[derive(Debug, Clone, Copy)]
pub struct Selection<'a> {
    /// The walk settings.
    pub cfg: &'a GitSourceConfig,
    /// The compiled message rules.
    pub rules: &'a MessageRules,
}

impl Policy for Selection<'_> {
    type Rule = CommitRule;

    fn accepts_message(&self, message: &str) -> bool {
        self.rules.accepts(message)
    }

    fn require_tests(&self) -> bool {
        self.cfg.require_tests
    }

    fn min_code_hunks(&self) -> usize {
        self.cfg.min_code_hunks
    }

    fn judge(&self, change: &ChangeSize<'_>) -> Option<(CommitRule, String)> {
        let cfg = self.cfg;
        let (files, hunks, changed) = (change.files, change.code_hunks, change.changed_lines);
        if cfg.reject_reverts {
            if let Some(why) = revert_reason(change.message) {
                return Some((CommitRule::Revert, why));
            }
        }
        if cfg.reject_closing_keyword_only {
            if let Some(why) = self.rules.closing_keyword_only(change.message) {
                return Some((CommitRule::ClosingKeywordOnly, why));
            }
        }
        if cfg.reject_changelog_non_fixes {
            if let Some(why) = changelog_not_fix(change.changelog) {
                return Some((CommitRule::ChangelogNotFix, why));
            }
        }
        if let Some(max) = cfg.max_files.filter(|&max| files > max) {
            return Some((
                CommitRule::MaxFiles,
                format!("{files} files changed, more than max_files {max}"),
            ));
        }
        if let Some(max) = cfg.max_code_hunks.filter(|&max| hunks > max) {
            return Some((
                CommitRule::MaxCodeHunks,
                format!("{hunks} code hunks, more than max_code_hunks {max}"),
            ));
        }
        if let Some(max) = cfg.max_changed_lines.filter(|&max| changed > max) {
            return Some((
                CommitRule::MaxChangedLines,
                format!("{changed} code lines changed, more than max_changed_lines {max}"),
            ));
        }
        None
    }

    fn patch_ids(&self) -> bool {
        self.cfg.reject_duplicates
    }

    fn hunk_rules(&self) -> HunkRules {
        self.cfg.hunk_rules
    }

    fn fingerprint(&self) -> String {
        // Which commits are walked, and whether their objects are re-hashed, decide
        // nothing about one commit.
        let rules = GitSourceConfig {
            revs: None,
            verify_objects: true,
            ..self.cfg.clone()
        };
        format!("{rules:?}")
    }
}

/// What a changelog section or fragment type says a change is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangelogKind {
    /// A bug fix (`Bug fixes`, `Fixed`, `bugfix`).
    Fix,
    /// Something else the changelog files separately: features, changes, removals,
    /// deprecations, documentation, performance.
    NotFix,
}

/// The kind a changelog heading or fragment type names; `None` for a heading that is no
/// category (a version, a date, `Changelog`), which says nothing. A heading that joins
/// categories (`Features and Improvements`, `Deprecations & Removals`,
/// `Trivial/Internal Changes`) names their kind when all name the same one, and nothing
/// when it mixes fixes with others (`Bug fixes and minor improvements`); a qualifier in
/// front (`Minor`, `Improved`, `Other`) is no category of its own.
pub fn changelog_kind(section: &str) -> Option<ChangelogKind> {
    static SPLIT: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
        Regex::new(r"(?i)\s+and\s+|\s*[&/,+]\s*").expect("fixed regex")
    });
    let parts: Vec<Option<ChangelogKind>> = SPLIT
        .split(section.trim())
        .filter(|p| !p.trim().is_empty())
        .map(category_kind)
        .collect();
    match parts.first() {
        Some(&first) if parts.iter().all(|&k| k == first) => first,
        _ => None,
    }
}

/// [`changelog_kind`] of one category word (`Bug fixes`, `New features`, `Minor
/// improvements`, `Documentation updates`).
fn category_kind(part: &str) -> Option<ChangelogKind> {
    static FIX: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
        Regex::new(r"(?i)^\W*((minor|major|small|other|various)\s+)?(bug\s*-?fix(es)?|bugs?(\s+fixed)?|fix(es|ed)?|bug\s+fixes)\W*$")
            .expect("fixed regex")
    });
    static NOT_FIX: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
        Regex::new(
            r"(?i)^\W*((minor|major|small|other|various|improved|updated)\s+)?(new\s+)?(features?|feat|enhancements?|improvements?|added|additions?|new|changed|api|behaviou?r|deprecat\w*|remov\w*|breaking|backwards?\s+incompatible|performance|perf|doc|docs|documentation|misc\w*|trivial|internal|packaging|security)(\s+(changes?|updates?|additions?))?\W*$",
        )
        .expect("fixed regex")
    });
    let s = part.trim();
    if FIX.is_match(s) {
        Some(ChangelogKind::Fix)
    } else if NOT_FIX.is_match(s) {
        Some(ChangelogKind::NotFix)
    } else {
        None
    }
}

/// The kind a Maven `changes.xml` entry states itself (`<action … type="fix">`: `fix`
/// is a fix; `add`, `update`, `remove` are not), whatever text stands above it.
fn maven_action_kind(line: &str) -> Option<ChangelogKind> {
    static ACTION: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
        Regex::new(r#"<action\b[^>]*\btype\s*=\s*["'](\w+)["']"#).expect("fixed regex")
    });
    let c = ACTION.captures(line)?;
    match c[1].to_ascii_lowercase().as_str() {
        "fix" => Some(ChangelogKind::Fix),
        "add" | "update" | "remove" => Some(ChangelogKind::NotFix),
        _ => None,
    }
}

/// Why a commit's changelog entries say it is not a bug fix: some entry is filed under a
/// category and none under bug fixes. `None` when an entry is a fix or none is filed.
pub fn changelog_not_fix(entries: &[crate::git::changelog::ChangelogEntry]) -> Option<String> {
    let mut not_fix = None;
    for e in entries {
        let kind =
            maven_action_kind(&e.line).or_else(|| e.section.as_deref().and_then(changelog_kind));
        match kind {
            Some(ChangelogKind::Fix) => return None,
            Some(ChangelogKind::NotFix) => {
                not_fix.get_or_insert(e);
            }
            None => {}
        }
    }
    not_fix.map(|e| match maven_action_kind(&e.line) {
        Some(_) => format!(
            "its changelog action in {} is typed other than `fix`: `{}`",
            e.file,
            one_line(&e.line)
        ),
        None => format!(
            "its changelog entry is filed under `{}` in {}, not as a bug fix: `{}`",
            e.section.as_deref().unwrap_or_default(),
            e.file,
            one_line(&e.line)
        ),
    })
}

/// Why `message` is a revert, when it is one: a `Revert "…"` subject or a
/// `This reverts commit <id>` line (what `git revert` writes).
pub fn revert_reason(message: &str) -> Option<String> {
    let subject = message.lines().next().unwrap_or("").trim();
    if subject.starts_with("Revert \"") || subject.starts_with("Revert '") {
        return Some(format!("revert: subject `{}`", one_line(subject)));
    }
    reverted_commit(message).map(|id| format!("revert: body says `This reverts commit {id}`"))
}

/// The commit `message` says it reverts (`This reverts commit <id>`, what `git revert`
/// writes): the id as written (7 to 40 hex digits), lowercase.
pub fn reverted_commit(message: &str) -> Option<String> {
    message.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("This reverts commit ")?;
        let id: String = rest.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
        (7..=40)
            .contains(&id.len())
            .then(|| id.to_ascii_lowercase())
    })
}

/// At most 100 characters of one line, for rejection details.
fn one_line(s: &str) -> String {
    let s = s.lines().next().unwrap_or("");
    if s.chars().count() > 100 {
        format!("{}…", s.chars().take(100).collect::<String>())
    } else {
        s.to_string()
    }
}

/// A message rule of the git source that does not compile (the recipe plan reports it
/// against its key, `source.git.<key>`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("git source: invalid {key} `{regex}`: {message}")]
pub struct BadRegex {
    /// Which rule (`message_regex`, `subject_regex`, `exclude_regex`).
    pub key: &'static str,
    /// The pattern from the config.
    pub regex: String,
    /// The regex compiler's reason (first line).
    pub message: String,
}

/// A message rule, case-insensitive unless the pattern turns that off with `(?-i)`.
fn compile_rule(key: &'static str, pattern: &str) -> Result<Regex, BadRegex> {
    regex::RegexBuilder::new(pattern)
        .case_insensitive(true)
        .build()
        .map_err(|e| BadRegex {
            key,
            regex: pattern.to_string(),
            message: e
                .to_string()
                .lines()
                .last()
                .unwrap_or("")
                .trim()
                .to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subject_whose_fix_word_only_closes_an_issue_says_nothing() {
        let cfg = GitSourceConfig {
            subject_regex: Some(r"\b(fix(e[sd]|ing)?|bugs?|crash(es|ed)?)\b".into()),
            ..GitSourceConfig::default()
        };
        let rules = MessageRules::compile(&cfg).expect("rules");
        for (subject, only) in [
            ("Fix #43: Save hash value for decorator keys.", true),
            ("Fixes GH-7, add an option", true),
            ("fixed issue #9", true),
            (
                "Fix #218: Fix and properly document cache_key handling.",
                false,
            ),
            ("Fix #12: crash on empty input", false),
            ("Fix pickling of large caches", false),
            ("Add an option (fixes #3)", true),
            ("Fix the bug in #3's handler", false),
        ] {
            assert_eq!(
                rules.closing_keyword_only(subject).is_some(),
                only,
                "{subject}"
            );
        }
        let why = rules
            .closing_keyword_only("Fix #43: Save hash value for decorator keys.")
            .expect("why");
        assert_eq!(
            why,
            "the subject's fix word only closes an issue (`Fix #43`), which may be a bug or a feature: `Fix #43: Save hash value for decorator keys.`"
        );
    }

    #[test]
    fn a_maven_changes_action_states_its_own_type() {
        use crate::git::changelog::ChangelogEntry;
        let entry = |line: &str, section: &str| ChangelogEntry {
            file: "src/changes/changes.xml".into(),
            section: Some(section.into()),
            line: line.into(),
        };
        // Below a release description's "Main enhancements" heading, a fix is a fix.
        let fix = entry(
            r#"<action issue="VALIDATOR-464" type="fix" dev="sebb">"#,
            "Main enhancements",
        );
        assert_eq!(changelog_not_fix(&[fix]), None);
        let add = entry(
            r#"<action issue="TEXT-1" type="add" dev="x">"#,
            "DEPENDENCIES",
        );
        assert_eq!(
            changelog_not_fix(&[add]).as_deref(),
            Some(
                "its changelog action in src/changes/changes.xml is typed other than `fix`: \
                 `<action issue=\"TEXT-1\" type=\"add\" dev=\"x\">`"
            )
        );
    }

    #[test]
    fn changelog_sections_and_fragment_types_name_their_kind() {
        use ChangelogKind::*;
        for (section, kind) in [
            ("Bug fixes", Some(Fix)),
            ("Bugfixes", Some(Fix)),
            ("Bug Fixes:", Some(Fix)),
            ("Fixed", Some(Fix)),
            ("bugfix", Some(Fix)),
            ("Features", Some(NotFix)),
            ("New features", Some(NotFix)),
            ("Added", Some(NotFix)),
            ("feature", Some(NotFix)),
            ("Backwards incompatible changes", Some(NotFix)),
            ("Deprecations", Some(NotFix)),
            ("removal", Some(NotFix)),
            ("2.0 (unreleased)", None),
            ("Changelog", None),
            // A file titled "Changes" with entries right under it: no category.
            ("Changes", None),
            ("Version 1.2.3", None),
            ("Fixes and features", None),
            // Joined categories, qualifiers, and the usual suffixes.
            ("Features and Improvements", Some(NotFix)),
            ("New Features & Enhancements", Some(NotFix)),
            ("Deprecations and Removals", Some(NotFix)),
            ("Trivial/Internal Changes", Some(NotFix)),
            ("Improved Documentation", Some(NotFix)),
            ("Minor improvements:", Some(NotFix)),
            ("Documentation updates", Some(NotFix)),
            ("API changes", Some(NotFix)),
            ("Behavior changes", Some(NotFix)),
            ("Other bug fixes", Some(Fix)),
            ("Bugs fixed", Some(Fix)),
            ("Bug fixes and minor improvements", None),
            ("Other changes", None),
            ("1.2.0 (2020-01-01)", None),
            // Maven's changes.xml names a section DEPENDENCIES above entries of every
            // type (commons-validator files a `type="fix"` action below it).
            ("DEPENDENCIES", None),
        ] {
            assert_eq!(changelog_kind(section), kind, "{section}");
        }
    }

    #[test]
    fn default_regex_matches_fix_words_only() {
        let r = compile_rule("message_regex", DEFAULT_MESSAGE_REGEX).unwrap();
        for yes in [
            "Fix NPE in parser",
            "fixes #12",
            "Fixed off-by-one",
            "bugfix: x",
            "BUG 7",
            "regression in 2.1",
        ] {
            assert!(r.is_match(yes), "{yes}");
        }
        for no in [
            "Add prefix option",
            "debugger support",
            "Refactor helpers",
            "suffix tree",
        ] {
            assert!(!r.is_match(no), "{no}");
        }
    }

    #[test]
    fn config_rejects_unknown_keys() {
        let err = serde_json::from_str::<GitSourceConfig>(r#"{"message_regx": "x"}"#).unwrap_err();
        assert!(err.to_string().contains("message_regx"), "{err}");
        let cfg: GitSourceConfig = serde_json::from_str(r#"{"min_code_hunks": 3}"#).unwrap();
        assert_eq!(cfg.min_code_hunks, 3);
        assert!(cfg.verify_objects && cfg.require_tests);
    }

    #[test]
    fn reverts_by_subject_or_body() {
        let cases: [(&str, bool); 6] = [
            ("Revert \"Fix X\"\n", true),
            ("Revert 'Fix X'\n", true),
            ("Undo X\n\nThis reverts commit 0123456789abcdef.\n", true),
            ("Fix X\n\nThis reverts commit abc.\n", false), // too short to be an id
            ("Reverting the cache was a mistake; fix it\n", false),
            ("Fix revert handling\n", false),
        ];
        for (msg, want) in cases {
            assert_eq!(revert_reason(msg).is_some(), want, "{msg:?}");
        }
    }

    #[test]
    fn bad_regex_is_one_line() {
        let err = compile_rule("message_regex", "(fix")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("git source: invalid message_regex `(fix`"),
            "{err}"
        );
        assert!(!err.contains('\n'), "{err}");
    }
}
