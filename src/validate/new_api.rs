//! New API only: a validated instance whose every FAIL_TO_PASS test failed before the fix
//! only because a name the patch adds did not exist yet. Such tests show what the commit
//! adds (a function, a class, an attribute, a keyword argument: a feature), not a wrong
//! behaviour it corrects. Read from the failures validation recorded (Python's messages).

use crate::model::{Failure, Instance};
use regex::Regex;
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// The missing names Python's error messages give: an attribute, an import, a global, a
/// keyword argument, a submodule (its last component).
fn patterns() -> &'static [Regex] {
    static P: OnceLock<Vec<Regex>> = OnceLock::new();
    P.get_or_init(|| {
        [
            r"AttributeError: .*has no attribute '(\w+)'",
            r"ImportError: cannot import name '(\w+)'",
            r"NameError: (?:global )?name '(\w+)' is not defined",
            r"TypeError: .*got an unexpected keyword argument '(\w+)'",
            r"ModuleNotFoundError: No module named '(?:[\w.]*\.)?(\w+)'",
        ]
        .iter()
        .filter_map(|p| Regex::new(p).ok())
        .collect()
    })
}

/// The name a failure message says is missing, if it says one.
pub fn missing_name(message: &str) -> Option<String> {
    patterns()
        .iter()
        .find_map(|re| re.captures(message))
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_string())
}

/// The identifiers of a unified diff's added lines that none of its removed lines has.
fn added_names(patch: &str) -> BTreeSet<String> {
    static WORD: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(word) = WORD.get_or_init(|| Regex::new(r"[A-Za-z_]\w*").ok()) else {
        return BTreeSet::new();
    };
    let mut added = BTreeSet::new();
    let mut removed = BTreeSet::new();
    for line in patch.lines() {
        let (set, text) = match line.as_bytes().first() {
            Some(b'+') if !line.starts_with("+++") => (&mut added, &line[1..]),
            Some(b'-') if !line.starts_with("---") => (&mut removed, &line[1..]),
            _ => continue,
        };
        set.extend(word.find_iter(text).map(|m| m.as_str().to_string()));
    }
    added.retain(|w| !removed.contains(w));
    added
}

/// Each FAIL_TO_PASS test with the added name its failure says was missing, when every
/// one failed that way; `None` when any failed otherwise, or has no recorded failure.
pub fn only_new_api(inst: &Instance) -> Option<Vec<(String, String)>> {
    missing_added_names(&inst.FAIL_TO_PASS, &inst.failures, &inst.patch)
}

/// [`only_new_api`] on its parts: the FAIL_TO_PASS tests, their failures, the patch.
fn missing_added_names(
    fail_to_pass: &[String],
    failures: &[Failure],
    patch: &str,
) -> Option<Vec<(String, String)>> {
    if fail_to_pass.is_empty() {
        return None;
    }
    let added = added_names(patch);
    fail_to_pass
        .iter()
        .map(|test| {
            let failure = failures.iter().find(|f| &f.test == test)?;
            let name = missing_name(&failure.message)
                .or_else(|| failure.trace.lines().rev().find_map(missing_name))?;
            added.contains(&name).then(|| (test.clone(), name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_messages_name_what_is_missing() {
        let cases = [
            (
                "AttributeError: module 'more_itertools' has no attribute 'nth_product'",
                Some("nth_product"),
            ),
            (
                "ImportError: cannot import name 'removeprefix' from 'boltons.strutils'",
                Some("removeprefix"),
            ),
            (
                "NameError: name 'frobnicate' is not defined",
                Some("frobnicate"),
            ),
            (
                "TypeError: sample() got an unexpected keyword argument 'strict'",
                Some("strict"),
            ),
            (
                "ModuleNotFoundError: No module named 'pkg.newmod'",
                Some("newmod"),
            ),
            ("AssertionError: assert 3 == 4", None),
            (
                "TypeError: unsupported operand type(s) for +: 'int' and 'str'",
                None,
            ),
        ];
        for (message, want) in cases {
            assert_eq!(missing_name(message).as_deref(), want, "{message}");
        }
    }

    /// Whether `failures` (test, message) on `patch` are new API only.
    fn check(patch: &str, failures: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        let f2p: Vec<String> = failures.iter().map(|f| f.0.to_string()).collect();
        let failures: Vec<Failure> = failures
            .iter()
            .map(|(t, m)| Failure {
                test: t.to_string(),
                message: m.to_string(),
                trace: String::new(),
            })
            .collect();
        missing_added_names(&f2p, &failures, patch)
    }

    #[test]
    fn only_when_every_test_misses_a_name_the_patch_adds() {
        let patch = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,4 @@\n-def old(x):\n+def old(x, strict=False):\n+def nth(i):\n     return x\n";
        let missing = "AttributeError: module 'm' has no attribute 'nth'";
        let feature = check(
            patch,
            &[
                ("t::a", missing),
                (
                    "t::b",
                    "TypeError: old() got an unexpected keyword argument 'strict'",
                ),
            ],
        );
        assert_eq!(
            feature,
            Some(vec![
                ("t::a".into(), "nth".into()),
                ("t::b".into(), "strict".into())
            ])
        );
        // One test fails by behaviour: a fix.
        assert_eq!(
            check(
                patch,
                &[("t::a", missing), ("t::b", "AssertionError: 1 != 2")]
            ),
            None
        );
        // The name is not one the patch adds (it also removes it: moved, not new).
        let moved = "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-nth = 1\n+def nth(i): pass\n";
        assert_eq!(check(moved, &[("t::a", missing)]), None);
        // No recorded failure: undecided, kept.
        let none: Vec<Failure> = Vec::new();
        assert_eq!(
            missing_added_names(&["t::a".to_string()], &none, patch),
            None
        );
    }
}
