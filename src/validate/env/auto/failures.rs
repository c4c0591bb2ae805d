//! `python: auto`, what a failed resolution says: the packages uv names as failing or as
//! pulling a failing one in, the older build tools a failure asks for, and whether the
//! host itself failed. Read by the ladder ([`super::resolve`]) and by `env: swebench`.

use std::fs;

use super::super::EnvError;
use crate::init::normalize_distribution as normalize;

/// The packages uv says failed to build (`Failed to build `zope-interface==4.4.3``), has
/// no release of before the cutoff (`` `atomicwrites` was filtered by `exclude-newer` ``:
/// a project that deleted its old releases) or cannot find at all (`Because foo was not
/// found in the package registry`), normalized, in order of appearance.
pub fn failing_packages(log: &str) -> Vec<String> {
    static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)(?:failed to (?:download and )?build[^`]*`([A-Za-z0-9._-]+))|(?:`([A-Za-z0-9._-]+)` was filtered by `exclude-newer`)|(?:because ([A-Za-z0-9._-]+) was not found in the (?:package registry|cache))",
        )
        .expect("fixed regex")
    });
    let mut out: Vec<String> = Vec::new();
    for c in RE.captures_iter(log) {
        let Some(m) = c.get(1).or_else(|| c.get(2)).or_else(|| c.get(3)) else {
            continue;
        };
        let name = normalize(m.as_str().trim());
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// The packages uv says pulled a failing one in (`` help: `pyyaml` (v3.12) was included
/// because `sphinx` (v1.7.5) depends on `pyyaml` ``): every package the line names after
/// `because`, normalized, in order.
pub fn including_packages(log: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in log.lines() {
        let Some((_, chain)) = line.split_once("was included because") else {
            continue;
        };
        for name in chain.split('`').skip(1).step_by(2) {
            let name = normalize(name.split_whitespace().next().unwrap_or_default());
            if !name.is_empty() && !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// Whether a failure's words show the host failing (a full disk, a quota), which says
/// nothing of the tree being resolved.
pub fn host_failure(log: &str) -> bool {
    ["No space left on device", "Disk quota exceeded"]
        .iter()
        .any(|said| log.contains(said))
}

/// What a failed step said: its log, or the error itself when it has none.
pub(in crate::validate::env) fn failure_log(e: &EnvError) -> String {
    match e {
        EnvError::Step { log, .. } => fs::read_to_string(log).unwrap_or_default(),
        e => e.to_string(),
    }
}

/// Build failures of old sdists that an older setuptools cures: what the failure says,
/// and the constraint (uv's legacy build path needs setuptools 40.8 or later). The first
/// that matches wins, so the stricter come first.
const BUILD_ERAS: &[(&str, &str)] = &[
    // `setuptools.Feature`, removed in 46.0 (MarkupSafe 1.0's setup.py imports it).
    ("cannot import name 'Feature'", "setuptools>=40.8.0,<46"),
    // The `use_2to3` option, removed in 58.0 (demjson 2.2.4).
    ("use_2to3 is invalid", "setuptools>=40.8.0,<58"),
];

/// The build-tool constraint a failure asks for, if it names one ([`BUILD_ERAS`]).
pub fn build_era_constraint(log: &str) -> Option<&'static str> {
    BUILD_ERAS
        .iter()
        .find(|(said, _)| log.contains(said))
        .map(|(_, constraint)| *constraint)
}
