//! `python: auto`, what the tests can need: the top-level modules a tree's Python files
//! import, and whether a distribution provides one of them. A requirement declared only
//! for development (a `requirements-dev.txt` line, a `dev` extra) that no such file
//! imports may be dropped when it sinks the resolution (`validation.python.dropped`).

use std::collections::BTreeSet;

use crate::init::normalize_distribution as normalize;

/// Directories whose Python files no test imports (documentation, examples, release and
/// CI scripts): their imports do not keep a development requirement.
const NOT_TESTED_DIRS: [&str; 10] = [
    "docs",
    "doc",
    "examples",
    "example",
    "benchmarks",
    "bench",
    "scripts",
    "tools",
    "ci",
    ".github",
];

/// Build and task files at any depth whose imports are the tooling's, not the tests'
/// (`ez_setup.py` and `distribute_setup.py`: the bootstrap scripts old trees vendored).
const TOOLING_FILES: [&str; 8] = [
    "setup.py",
    "ez_setup.py",
    "distribute_setup.py",
    "conf.py",
    "noxfile.py",
    "tasks.py",
    "fabfile.py",
    "release.py",
];

/// Distributions whose import name says nothing of their own (normalized both sides).
const IMPORT_ALIASES: [(&str, &str); 14] = [
    ("beautifulsoup4", "bs4"),
    ("pillow", "pil"),
    ("scikit-learn", "sklearn"),
    ("attrs", "attr"),
    ("pyopenssl", "openssl"),
    ("pycryptodome", "crypto"),
    ("pycrypto", "crypto"),
    ("protobuf", "google"),
    ("setuptools", "pkg-resources"),
    ("dnspython", "dns"),
    ("mysqlclient", "mysqldb"),
    ("psycopg2-binary", "psycopg2"),
    ("opencv-python", "cv2"),
    ("pyyaml", "yaml"),
];

/// Whether the file at `path` (relative to the project) may hold imports the tests need:
/// a `.py` file outside documentation, examples and tooling.
pub fn may_serve_tests(path: &str) -> bool {
    if !path.ends_with(".py") {
        return false;
    }
    let mut parts = path.split('/').collect::<Vec<_>>();
    let name = parts.pop().unwrap_or_default();
    !TOOLING_FILES.contains(&name)
        && !parts
            .iter()
            .any(|d| NOT_TESTED_DIRS.contains(&d.to_ascii_lowercase().as_str()))
}

/// The top-level modules `text` (Python source) imports, normalized as distribution names
/// are (`import yaml.constructor`, `from Crypto.Cipher import AES` → `yaml`, `crypto`);
/// relative imports are the project's own.
pub fn imported_modules(text: &str, into: &mut BTreeSet<String>) {
    static IMPORT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^\s*import\s+([A-Za-z_][\w.]*(?:\s+as\s+\w+)?(?:\s*,\s*[A-Za-z_][\w.]*(?:\s+as\s+\w+)?)*)")
            .expect("fixed regex")
    });
    static FROM: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^\s*from\s+([A-Za-z_][\w.]*)\s+import\b").expect("fixed regex")
    });
    for line in text.lines() {
        if let Some(c) = FROM.captures(line) {
            into.insert(top(&c[1]));
        } else if let Some(c) = IMPORT.captures(line) {
            for item in c[1].split(',') {
                if let Some(module) = item.split_whitespace().next() {
                    into.insert(top(module));
                }
            }
        }
    }
}

/// `a.b.c` → `a`, normalized.
fn top(module: &str) -> String {
    normalize(module.split('.').next().unwrap_or(module))
}

/// Whether distribution `dist` plausibly provides one of `modules`: its own name, the
/// name without a `python-`/`py` prefix or `-python` suffix, its first dashed part (a
/// namespace: `zope.interface` → `zope`), or a known alias. Generous on purpose: a
/// distribution it wrongly calls imported is only kept, as before.
pub fn provides(dist: &str, modules: &BTreeSet<String>) -> bool {
    let d = normalize(dist);
    let mut names = vec![d.clone()];
    for prefix in ["python-", "py-", "py"] {
        if let Some(rest) = d.strip_prefix(prefix).filter(|r| !r.is_empty()) {
            names.push(rest.to_string());
        }
    }
    if let Some(rest) = d.strip_suffix("-python") {
        names.push(rest.to_string());
    }
    if let Some((first, _)) = d.split_once('-') {
        names.push(first.to_string());
    }
    names.extend(
        IMPORT_ALIASES
            .iter()
            .filter(|(from, _)| *from == d)
            .map(|(_, to)| to.to_string()),
    );
    names.iter().any(|n| modules.contains(n))
}

/// Of `optional` (distribution names declared only for development), those no module of
/// `modules` comes from and that are no pytest plugin (pytest loads plugins by entry
/// point, not import, and its options may name them): what the ladder may drop.
pub fn droppable(optional: &[String], modules: &BTreeSet<String>) -> Vec<String> {
    optional
        .iter()
        .map(|d| normalize(d))
        .filter(|d| d != "pytest" && !d.starts_with("pytest-") && d != "setuptools")
        .filter(|d| !provides(d, modules))
        .collect()
}

/// `droppable` without what the lines `changes` add to Python files import (a test
/// patch that starts importing a development requirement needs it).
pub fn keep_added_imports(droppable: &mut Vec<String>, changes: &[&crate::diff::Patch]) {
    if droppable.is_empty() {
        return;
    }
    let mut modules = BTreeSet::new();
    for file in changes.iter().flat_map(|p| &p.files) {
        if !file.path().ends_with(".py") {
            continue;
        }
        let added: String = file
            .hunks
            .iter()
            .flat_map(|h| &h.lines)
            .filter(|l| l.kind == crate::diff::LineKind::Added)
            .map(|l| String::from_utf8_lossy(&l.content).into_owned())
            .collect();
        imported_modules(&added, &mut modules);
    }
    droppable.retain(|d| !provides(d, &modules));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_of_every_form_are_read_as_top_level_modules() {
        let mut m = BTreeSet::new();
        imported_modules(
            "import os, yaml.constructor as yc\nfrom Crypto.Cipher import AES\n\
             from . import local\n    import hypothesis.strategies as st\n\
             x = 'import nothing'\nfrom __future__ import annotations\n",
            &mut m,
        );
        let want: BTreeSet<String> = ["os", "yaml", "crypto", "hypothesis", "__future__"]
            .iter()
            .map(|s| normalize(s))
            .collect();
        assert_eq!(m, want);
    }

    #[test]
    fn a_distribution_is_matched_to_its_import_name_generously() {
        let m: BTreeSet<String> = ["yaml", "dateutil", "zope", "bs4", "jwt"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        for d in [
            "PyYAML",
            "python-dateutil",
            "zope.interface",
            "beautifulsoup4",
            "PyJWT",
        ] {
            assert!(provides(d, &m), "{d}");
        }
        for d in ["sphinx", "twine", "flake8", "zest.releaser"] {
            assert!(!provides(d, &m), "{d}");
        }
        let optional: Vec<String> = ["Sphinx", "pytest-cov", "PyYAML", "twine", "setuptools"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(droppable(&optional, &m), vec!["sphinx", "twine"]);
    }

    #[test]
    fn documentation_examples_and_tooling_serve_no_test() {
        assert!(may_serve_tests("tests/test_x.py"));
        assert!(may_serve_tests("conftest.py"));
        assert!(may_serve_tests("src/pkg/core.py"));
        assert!(!may_serve_tests("docs/conf.py"));
        assert!(!may_serve_tests("Doc/tools/x.py"));
        assert!(!may_serve_tests("setup.py"));
        assert!(!may_serve_tests("tasks.py"));
        assert!(!may_serve_tests("README.rst"));
    }
}
