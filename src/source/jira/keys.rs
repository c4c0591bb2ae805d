//! JIRA issue keys in commit messages (`[TEXT-123] …`, `LANG-1234: …`, `Fix LANG-12`),
//! restricted to the projects the recipe names or infers, and the subjects whose fix
//! word only names such a key (`Fix LANG-12: Add an option`).

use regex::Regex;
use std::sync::LazyLock;

/// A JIRA key as JIRA writes it: an upper-case project key of two or more characters,
/// a hyphen and the issue number. Case-sensitive on purpose: `lang-12` is prose.
static KEY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Z][A-Z0-9_]+-[0-9]+\b").expect("JIRA key regex"));

/// A URL in a message; a key inside one counts only on JIRA's issue page (`/browse/KEY`).
static URL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b[A-Za-z][A-Za-z0-9+.-]*://\S+").expect("URL regex"));

/// A fix or closing word right before a key (`Fix LANG-12:`, `fixes issue LANG-3`,
/// `Resolves: TEXT-9.`): the shape of the closing-keyword rule, with a JIRA key for `#N`.
static CLOSING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i:\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?))\s*:?\s*(?i:issue\s*)?([A-Z][A-Z0-9_]+-[0-9]+)\b\s*[:,.]?")
        .expect("closing-key regex")
});

/// Which keys of a message are the tracker's issues.
#[derive(Debug, Clone, Default)]
pub struct KeyRule {
    /// Project keys (`LANG`), upper case; empty: any project.
    pub projects: Vec<String>,
    /// The recipe's `issue_regex`, used when no project is named: a key counts when the
    /// regex matches all of it. `None`: every key counts.
    pub tracker: Option<Regex>,
}

impl KeyRule {
    /// Whether `key` (`LANG-12`) belongs to the configured projects.
    pub fn accepts(&self, key: &str) -> bool {
        if !self.projects.is_empty() {
            return key
                .rsplit_once('-')
                .is_some_and(|(p, _)| self.projects.iter().any(|q| q == p));
        }
        match &self.tracker {
            Some(re) => re.find(key).is_some_and(|m| m.as_str() == key),
            None => true,
        }
    }

    /// The accepted keys of `text`, without repeats, in order of appearance.
    pub fn keys(&self, text: &str) -> Vec<String> {
        let urls: Vec<std::ops::Range<usize>> = URL.find_iter(text).map(|m| m.range()).collect();
        let mut out: Vec<String> = Vec::new();
        for m in KEY.find_iter(text) {
            let before = &text[..m.start()];
            // `xLANG-1` and `commons-LANG-1` are not keys; `\b` already checked `_`.
            if before
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
            {
                continue;
            }
            // `JAVA-1.8` is a version, not an issue.
            let after = &text[m.end()..];
            if after.starts_with('.') && after[1..].starts_with(|c: char| c.is_ascii_digit()) {
                continue;
            }
            if urls.iter().any(|u| u.contains(&m.start())) && !before.ends_with("/browse/") {
                continue;
            }
            let key = m.as_str();
            if self.accepts(key) && !out.iter().any(|k| k == key) {
                out.push(key.to_string());
            }
        }
        out
    }

    /// Whether the subject (first line) of `message` references an accepted key.
    pub fn in_subject(&self, message: &str) -> bool {
        !self.keys(message.lines().next().unwrap_or("")).is_empty()
    }

    /// Why a subject's fix words only name a JIRA issue, when they do: with every fix
    /// word right before an accepted key taken out with the key, `passes` (the recipe's
    /// subject rule, else its message rule) no longer holds for the subject.
    pub fn closing_only(&self, message: &str, passes: impl Fn(&str) -> bool) -> Option<String> {
        let subject = message.lines().next().unwrap_or("");
        let named = |c: &regex::Captures<'_>| c.get(1).is_some_and(|k| self.accepts(k.as_str()));
        let first = CLOSING.captures_iter(subject).find(|c| named(c))?;
        if !passes(subject) {
            return None;
        }
        let rest = CLOSING.replace_all(subject, |c: &regex::Captures<'_>| {
            if named(c) {
                " ".to_string()
            } else {
                c.get(0).map_or(String::new(), |m| m.as_str().to_string())
            }
        });
        (!passes(&rest)).then(|| {
            let said = first
                .get(0)
                .map(|m| m.as_str().trim().trim_end_matches([':', ',', '.']))
                .unwrap_or_default();
            format!(
                "the subject's fix word only names a JIRA issue (`{said}`), which may be a bug or not: `{}`",
                subject.trim()
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn any() -> KeyRule {
        KeyRule::default()
    }

    fn projects(p: &[&str]) -> KeyRule {
        KeyRule {
            projects: p.iter().map(|s| s.to_string()).collect(),
            tracker: None,
        }
    }

    #[test]
    fn keys_in_the_usual_places_are_found_in_order_without_repeats() {
        for (text, want) in [
            ("[TEXT-123] Add StrBuilder.foo", vec!["TEXT-123"]),
            ("LANG-1234: NPE in StringUtils", vec!["LANG-1234"]),
            ("Fix LANG-12", vec!["LANG-12"]),
            (
                "LANG-1, LANG-2 and (LANG-1 again); see LANG-30.",
                vec!["LANG-1", "LANG-2", "LANG-30"],
            ),
            (
                "COLLECTIONS-701/COLLECTIONS-702",
                vec!["COLLECTIONS-701", "COLLECTIONS-702"],
            ),
            ("MY_PROJ-7 underscores", vec!["MY_PROJ-7"]),
        ] {
            assert_eq!(any().keys(text), want, "{text:?}");
        }
    }

    #[test]
    fn lower_case_glued_and_version_lookalikes_are_not_keys() {
        for text in [
            "lang-123: lower case is prose",
            "Lang-123 mixed case",
            "A-1 one letter is no project",
            "xLANG-1 glued to a word",
            "commons-LANG-3 an artifact",
            "LANG-12abc glued on the right",
            "JAVA-1.8 is a version",
        ] {
            assert_eq!(any().keys(text), Vec::<String>::new(), "{text:?}");
        }
    }

    #[test]
    fn a_key_inside_a_url_counts_only_on_jiras_issue_page() {
        let rule = any();
        assert_eq!(
            rule.keys("See https://issues.apache.org/jira/browse/LANG-1234 for details"),
            vec!["LANG-1234"]
        );
        assert_eq!(
            rule.keys("https://github.com/apache/commons-text/tree/TEXT-12-branch and https://example.org/ISO-8859-1.html"),
            Vec::<String>::new()
        );
        assert_eq!(
            rule.keys("https://example.org/a?b=LANG-5 then LANG-6"),
            vec!["LANG-6"]
        );
    }

    #[test]
    fn projects_or_the_tracker_regex_restrict_the_keys() {
        let text = "LANG-1: UTF-8 text, TEXT-2 and ISO-8859";
        assert_eq!(
            any().keys(text),
            vec!["LANG-1", "UTF-8", "TEXT-2", "ISO-8859"]
        );
        assert_eq!(
            projects(&["LANG", "TEXT"]).keys(text),
            vec!["LANG-1", "TEXT-2"]
        );
        let inferred = KeyRule {
            projects: Vec::new(),
            tracker: Some(Regex::new(r"\bLANG-\d+\b").expect("regex")),
        };
        assert_eq!(inferred.keys(text), vec!["LANG-1"]);
        assert!(inferred.in_subject("LANG-1: x\n\nTEXT-2"));
        assert!(!inferred.in_subject("x\n\nLANG-1"));
    }

    #[test]
    fn a_fix_word_that_only_names_a_key_is_found() {
        let fix = Regex::new(r"(?i)\bfix(e[sd])?\b").expect("regex");
        let passes = |s: &str| fix.is_match(s);
        let rule = projects(&["LANG"]);
        let why = rule
            .closing_only("Fix LANG-12: Add an option\n\nbody fixes", passes)
            .expect("closing only");
        assert_eq!(
            why,
            "the subject's fix word only names a JIRA issue (`Fix LANG-12`), which may be a bug or not: `Fix LANG-12: Add an option`"
        );
        assert!(rule.closing_only("Fixes issue LANG-3.", passes).is_some());
        // Still says what it fixes, or names no key of the project, or no fix word.
        for subject in [
            "Fix LANG-12: fix the NPE",
            "LANG-12: Fix the NPE",
            "Fix TEXT-12: Add an option",
            "LANG-12: Add an option",
        ] {
            assert_eq!(rule.closing_only(subject, passes), None, "{subject}");
        }
    }
}
