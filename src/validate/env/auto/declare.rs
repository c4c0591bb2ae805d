//! `python: auto`, declare: what an instance's base tree says about its Python
//! environment (read offline, through [`crate::init::python_project`]) and the
//! interpreter chosen for it among those found.

use serde::{Deserialize, Serialize};

use super::super::pythons::Interpreter;
use super::install::{build_outputs, entry_points, project_name, tag_version, version_files};
use crate::init::{normalize_distribution as normalize, requirement_name};

/// What a base tree declares about its Python environment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declared {
    /// `requires-python` / `python_requires` (a PEP 440 specifier set).
    pub requires_python: Option<String>,
    /// Versions the project says it supports (`3.6`, `2.7`): trove classifiers and tox's
    /// envlist.
    pub versions: Vec<String>,
    /// Requirements to install, runner included.
    pub requirements: Vec<String>,
    /// The directory on `PYTHONPATH` (`src` in a src layout), relative to the project
    /// root.
    pub pythonpath: Option<String>,
    /// The commit's committer time (Unix seconds), the cut-off of the pin.
    pub date: i64,
    /// What installing the project would add that a run from the working copy lacks
    /// ([`build_outputs`]): (path relative to the workdir, contents).
    pub generated: Vec<(String, String)>,
    /// Requirements declared only for development that no Python file the tests may
    /// load imports ([`super::imports::droppable`]): the ladder drops one that sinks
    /// the resolution.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub droppable: Vec<String>,
    /// Requirements declared for the tests only ([`crate::init::PythonInference`]'s
    /// `test_libraries`): with an interpreter newer than the commit, the ladder first
    /// takes their releases of the commit's date.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub test_libraries: Vec<String>,
    /// The project's build backend, asked for the dependencies in the resolve step
    /// (computed extras, dynamic dependencies); `None` where the build files are static.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<Backend>,
    /// Requirements the instance's changes add to the build files, also in
    /// `requirements` ([`added_by_changes`]): the fixed side runs in the same environment.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added_by_changes: Vec<String>,
    /// For a tree that declares no Python 3: the first line of a file the tests may load
    /// that only Python 2 compiles (`path:line: text`, [`super::py2code`]); for one that
    /// declares Python 2 beside 3, of a test file. Such a tree is Python 2 code and gets
    /// a 2.7 interpreter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python2_code: Option<String>,
    /// Distributions the test files import that nothing declares
    /// ([`super::imports::undeclared`]): also in `requirements` and `droppable`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undeclared: Vec<String>,
    /// The module names the tree holds itself ([`super::imports::local_modules`]): an
    /// import of one is never a missing distribution.
    #[serde(skip)]
    pub local_modules: std::collections::BTreeSet<String>,
}

/// Whether the declare phase reads this file (relative to the suite's workdir): the
/// build files and requirement files a change may add a dependency to.
fn declares_requirements(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    matches!(
        name,
        "setup.py" | "setup.cfg" | "pyproject.toml" | "tox.ini"
    ) || (name.ends_with(".txt") && rel.contains("requirements"))
}

/// Requirements the tree of `rev` declares once `changes` are applied, under names the
/// base (`base`) does not declare and not only for development: a fix that starts using
/// a library (jsonschema's 2020 `fqdn` in `setup.cfg`) runs its fixed side in the same
/// environment as its base. Empty when no change touches a file the declare phase
/// reads, so other instances keep their keys.
pub fn added_by_changes(
    repo: &std::path::Path,
    rev: &str,
    workdir: &str,
    changes: &[&crate::diff::Patch],
    base: &Declared,
) -> Vec<String> {
    let prefix = match workdir.trim_matches('/') {
        "" | "." => String::new(),
        w => format!("{w}/"),
    };
    let touched: Vec<&crate::diff::FilePatch> = changes
        .iter()
        .flat_map(|p| p.files.iter())
        .filter(|f| {
            f.path()
                .strip_prefix(&prefix)
                .is_some_and(declares_requirements)
        })
        .collect();
    if touched.is_empty() {
        return Vec::new();
    }
    let Ok(all) = crate::git::tree_paths(repo, rev) else {
        return Vec::new();
    };
    let mut paths: Vec<String> = all;
    for f in &touched {
        match f.change {
            crate::diff::FileChange::Deleted => paths.retain(|p| p != f.path()),
            _ if !paths.iter().any(|p| p == f.path()) => paths.push(f.path().to_string()),
            _ => {}
        }
    }
    let paths: Vec<String> = paths
        .iter()
        .filter_map(|p| p.strip_prefix(&prefix).map(str::to_string))
        .collect();
    let read = |p: &str| -> Option<String> {
        let full = format!("{prefix}{p}");
        let base_text = crate::git::read_blob(repo, rev, &full, &[]).ok();
        let mut text = base_text.clone();
        for f in touched.iter().filter(|f| f.path() == full) {
            if f.change == crate::diff::FileChange::Deleted {
                return None;
            }
            let from = text.clone().unwrap_or_default();
            text = Some(crate::diff::apply_file(f, &from).ok()?);
        }
        text.map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let after = crate::init::python_project(&paths, &read);
    let known: std::collections::HashSet<String> = base
        .requirements
        .iter()
        .map(|r| normalize(requirement_name(r.trim())))
        .collect();
    let optional: std::collections::HashSet<String> = after
        .optional
        .iter()
        .map(|r| normalize(requirement_name(r.trim())))
        .collect();
    let mut out: Vec<String> = Vec::new();
    for r in after.requirements {
        let name = normalize(requirement_name(r.trim()));
        let local = r.trim().starts_with('.') || r.trim().starts_with('/') || r.contains("file:");
        if !name.is_empty()
            && !local
            && !known.contains(&name)
            && !optional.contains(&name)
            && !out.iter().any(|o| normalize(requirement_name(o)) == name)
        {
            out.push(r);
        }
    }
    out
}

/// Where the resolve step finds a project's build, and what it asks it for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Backend {
    /// The git repository.
    pub repo: std::path::PathBuf,
    /// The base revision, whose tree the build runs in.
    pub rev: String,
    /// The build file in the repository (`setup.py`, `lib/pyproject.toml`).
    pub file: String,
    /// The test extras to ask for.
    pub extras: Vec<String>,
    /// SHA-256 of the project's build files (`setup.py`, `setup.cfg`, `pyproject.toml`),
    /// part of the resolution's key.
    pub digest: String,
}

/// The interpreter chosen for an instance, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The interpreter.
    pub interpreter: Interpreter,
    /// One line: what decided it.
    pub why: String,
    /// The cut-off of the dependency pin: the commit's date, or, for an interpreter
    /// released after the commit (none of its era was found), that interpreter's
    /// release date, the first day dependencies could have run on it.
    pub pin_date: i64,
}

/// No interpreter found satisfies what the tree requires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoInterpreter {
    /// What the tree requires, as a version request (`>=3.12`, `2.6 or 2.7`, `3`).
    pub needs: String,
    /// The tree declares Python 2 versions only, and no Python 2.7 interpreter was
    /// found.
    pub python2_only: bool,
}

/// Release dates (UTC midnight, Unix seconds) of CPython minor versions: a commit is
/// not tested on a Python released after it. A minor not listed counts as released.
pub(super) const RELEASED: [(&str, i64); 12] = [
    ("2.7", 1_278_115_200),  // 2010-07-03
    ("3.4", 1_394_928_000),  // 2014-03-16
    ("3.5", 1_442_102_400),  // 2015-09-13
    ("3.6", 1_482_451_200),  // 2016-12-23
    ("3.7", 1_530_057_600),  // 2018-06-27
    ("3.8", 1_571_011_200),  // 2019-10-14
    ("3.9", 1_601_856_000),  // 2020-10-05
    ("3.10", 1_633_305_600), // 2021-10-04
    ("3.11", 1_666_569_600), // 2022-10-24
    ("3.12", 1_696_204_800), // 2023-10-02
    ("3.13", 1_728_259_200), // 2024-10-07
    ("3.14", 1_759_795_200), // 2025-10-07
];

/// The release date of `version`'s minor (`3.6.15` → 2016-12-23), when listed.
pub(super) fn release_date(version: &str) -> Option<i64> {
    let minor = minor_of(version);
    RELEASED.iter().find(|(m, _)| *m == minor).map(|(_, t)| *t)
}

pub(super) fn minor_of(version: &str) -> String {
    version.split('.').take(2).collect::<Vec<_>>().join(".")
}

pub(super) fn parts(v: &str) -> Vec<u64> {
    v.split('.')
        .map(|p| {
            p.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse()
                .unwrap_or(0)
        })
        .collect()
}

pub(super) fn cmp_versions(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
    let n = a.len().max(b.len());
    for i in 0..n {
        let (x, y) = (
            a.get(i).copied().unwrap_or(0),
            b.get(i).copied().unwrap_or(0),
        );
        if x != y {
            return x.cmp(&y);
        }
    }
    std::cmp::Ordering::Equal
}

/// Whether `version` (`3.6.15`) satisfies a PEP 440 specifier set (`>=3.6, !=3.0.*,
/// <4`). Clauses it cannot read are ignored, never fatal.
pub fn satisfies(version: &str, spec: &str) -> bool {
    let v = parts(version);
    spec.split(',').all(|clause| {
        let c = clause.trim();
        if c.is_empty() {
            return true;
        }
        let ops = ["~=", "===", "==", "!=", "<=", ">=", "<", ">"];
        let Some(op) = ops.iter().find(|o| c.starts_with(**o)) else {
            return true;
        };
        let rhs = c[op.len()..].trim();
        let wildcard = rhs.ends_with(".*");
        let r = parts(rhs.trim_end_matches(".*"));
        if r.is_empty() {
            return true;
        }
        let prefix_eq = v.len() >= r.len() && v[..r.len()] == r[..];
        use std::cmp::Ordering::*;
        let ord = cmp_versions(&v, &r);
        match *op {
            "==" | "===" if wildcard => prefix_eq,
            "==" | "===" => ord == Equal,
            "!=" if wildcard => !prefix_eq,
            "!=" => ord != Equal,
            ">=" => ord != Less,
            "<=" => ord != Greater,
            ">" => ord == Greater,
            "<" => ord == Less,
            "~=" => {
                let keep = r.len().saturating_sub(1).max(1);
                ord != Less && v.len() >= keep && v[..keep] == r[..keep]
            }
            _ => true,
        }
    })
}

/// The interpreter for a tree that declares `d`, among `found` (see the module doc).
pub fn choose(d: &Declared, found: &[Interpreter]) -> Result<Choice, NoInterpreter> {
    let declares_3 = d.versions.iter().any(|v| v.starts_with('3'));
    let declares_2 = d.versions.iter().any(|v| v.starts_with('2'));
    // Python 2 only: by what the tree declares, or by its code where the tree declares
    // no Python 3 or Python 2 beside it (a line no Python 3 compiles: the 3 is a plan).
    let declares_only_2 = ((!d.versions.is_empty() || d.python2_code.is_some()) && !declares_3)
        || (declares_2 && d.python2_code.is_some());
    let admits = |i: &&Interpreter| {
        d.requires_python
            .as_deref()
            .is_none_or(|r| satisfies(&i.version, r))
    };
    let allowed: Vec<&Interpreter> = found
        .iter()
        .filter(|i| !declares_only_2 && i.version.starts_with("3."))
        .filter(admits)
        .collect();
    // A tree that declares Python 2 only gets a 2.7 interpreter (virtualenv and pip
    // build its environment, unpinned: see `python2`); never a tree that declares
    // nothing, whose Python 3 code would run on it.
    let python2: Vec<&Interpreter> = match declares_only_2 {
        true => found
            .iter()
            .filter(|i| i.version.starts_with("2.7."))
            .filter(admits)
            .collect(),
        false => Vec::new(),
    };
    let req = d
        .requires_python
        .as_deref()
        .map(|r| format!("requires-python {r}; "))
        .unwrap_or_default();
    if let Some(i) = python2
        .iter()
        .max_by(|a, b| cmp_versions(&parts(&a.version), &parts(&b.version)))
    {
        let said = match (&d.python2_code, d.versions.is_empty()) {
            (Some(code), true) => {
                format!("the tree declares no version and is Python 2 code ({code})")
            }
            (Some(code), false) if declares_3 => format!(
                "the tree declares Python {} but is Python 2 code, which no Python 3 \
                 compiles ({code})",
                d.versions.join(", ")
            ),
            _ => format!("the tree declares Python {} only", d.versions.join(", ")),
        };
        return Ok(Choice {
            why: format!(
                "{req}{said}: Python 2.7, its environment built by virtualenv and pip from \
                 the newest releases that support 2.7 (not pinned to the commit's date)"
            ),
            interpreter: (*i).clone(),
            pin_date: d.date,
        });
    }
    if allowed.is_empty() {
        let needs = match (&d.requires_python, declares_only_2) {
            (_, true) => {
                let twos: Vec<&str> = d
                    .versions
                    .iter()
                    .filter(|v| v.starts_with('2'))
                    .map(String::as_str)
                    .collect();
                match twos.is_empty() {
                    true => "2.7".into(),
                    false => twos.join(" or "),
                }
            }
            (Some(r), false) => r.clone(),
            (None, false) => "3".into(),
        };
        return Err(NoInterpreter {
            needs,
            python2_only: declares_only_2,
        });
    }
    let released = |i: &Interpreter| release_date(&i.version).is_none_or(|t| t <= d.date);
    let newest = |v: &[&Interpreter]| -> Option<Interpreter> {
        v.iter()
            .max_by(|a, b| cmp_versions(&parts(&a.version), &parts(&b.version)))
            .map(|i| (*i).clone())
    };
    let era: Vec<&Interpreter> = allowed.iter().copied().filter(|i| released(i)).collect();
    let date = crate::dataset::rfc3339(d.date);
    let day = date.get(..10).unwrap_or(&date);
    if era.is_empty() {
        let oldest = allowed
            .iter()
            .min_by(|a, b| cmp_versions(&parts(&a.version), &parts(&b.version)))
            .map(|i| (*i).clone());
        if let Some(i) = oldest {
            let released = release_date(&i.version).unwrap_or(d.date).max(d.date);
            let moved = crate::dataset::rfc3339(released);
            return Ok(Choice {
                why: format!(
                    "{req}no interpreter found was released by the commit's date ({day}): \
                     the oldest allowed one, dependencies pinned to its release ({})",
                    moved.get(..10).unwrap_or(&moved)
                ),
                interpreter: i,
                pin_date: released,
            });
        }
    }
    let declared: Vec<&Interpreter> = era
        .iter()
        .copied()
        .filter(|i| d.versions.contains(&minor_of(&i.version)))
        .collect();
    if let Some(i) = newest(&declared) {
        return Ok(Choice {
            why: format!(
                "{req}the newest of the declared versions ({}) released by {day}",
                d.versions.join(", ")
            ),
            interpreter: i,
            pin_date: d.date,
        });
    }
    match newest(&era) {
        Some(i) => Ok(Choice {
            why: format!("{req}the newest interpreter found released by {day}"),
            interpreter: i,
            pin_date: d.date,
        }),
        None => Err(NoInterpreter {
            needs: "3".into(),
            python2_only: false,
        }),
    }
}

/// What the tree of `rev` declares below `workdir` (the suite's; `.` or empty for the
/// root), and the commit's date; `memo`, when given, remembers the commit's nearest tag
/// between builds.
pub fn declared_at(
    repo: &std::path::Path,
    rev: &str,
    workdir: &str,
    memo: Option<&crate::cache::Cache>,
) -> Result<Declared, String> {
    let all = crate::git::tree_paths(repo, rev).map_err(|e| e.to_string())?;
    let prefix = match workdir.trim_matches('/') {
        "" | "." => String::new(),
        w => format!("{w}/"),
    };
    let paths: Vec<String> = all
        .iter()
        .filter_map(|p| p.strip_prefix(&prefix).map(str::to_string))
        .collect();
    let read = |p: &str| -> Option<String> {
        crate::git::read_blob(repo, rev, &format!("{prefix}{p}"), &[])
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let project = crate::init::python_project(&paths, &read);
    let root = match project.root.as_str() {
        "" => String::new(),
        r => format!("{r}/"),
    };
    let at_root = |f: &str| read(&format!("{root}{f}"));
    let (setup_py, setup_cfg, pyproject, tox) = (
        at_root("setup.py"),
        at_root("setup.cfg"),
        at_root("pyproject.toml"),
        crate::pyconfig::tox_config(&|f: &str| at_root(f)).map(|(_, text)| text),
    );
    let texts: Vec<String> = [&setup_py, &setup_cfg, &pyproject]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    let versions = declared_versions(&texts, tox.as_deref());
    let requires_python = project
        .requires_python
        .clone()
        .or_else(|| python_requires(setup_py.as_deref(), setup_cfg.as_deref()));
    // Only a tree with development-only requirements, or one that names no Python 3 or
    // Python 2 beside it, pays for reading its sources.
    let wants_modules = !project.optional.is_empty();
    let mut python2_code: Option<String> = None;
    let declares_3 = versions.iter().any(|v| v.starts_with('3'));
    // Beside a declaration of Python 3 only a test file decides: a module of the package
    // may be Python 2's half of a compatibility pair that no Python 3 imports.
    let test_files_only = declares_3;
    let mut wants_python2 = (!declares_3 || versions.iter().any(|v| v.starts_with('2')))
        && requires_python
            .as_deref()
            .is_none_or(|r| satisfies("2.7.18", r));
    let mut modules = std::collections::BTreeSet::new();
    // What the test files import without a guard, always: a module nothing declares is
    // installed.
    let mut test_modules = std::collections::BTreeSet::new();
    for p in &paths {
        let Some(rel) = p.strip_prefix(&root) else {
            continue;
        };
        let is_test = super::imports::is_test_file(rel);
        if !super::imports::may_serve_tests(rel) || !(wants_modules || wants_python2 || is_test) {
            continue;
        }
        let Some(text) = read(p) else { continue };
        if wants_python2 && (is_test || !test_files_only) {
            if let Some((line, code)) = super::py2code::python2_line(&text) {
                python2_code = Some(format!("{p}:{line}: {code}"));
                wants_python2 = false;
            }
        }
        if wants_modules {
            super::imports::imported_modules(&text, &mut modules);
        }
        if is_test {
            test_modules.extend(
                super::imports::unguarded_imports(&text)
                    .into_iter()
                    .map(|(_, m)| m),
            );
        }
    }
    let mut droppable = match wants_modules {
        true => super::imports::droppable(&project.optional, &modules),
        false => Vec::new(),
    };
    let local_modules = super::imports::local_modules(&paths);
    let date = crate::git::commit_time(repo, rev).map_err(|e| e.to_string())?;
    // Local paths and editable installs name the project itself: it runs from the
    // working copy (PYTHONPATH), not installed.
    let mut requirements: Vec<String> = project
        .requirements
        .into_iter()
        .filter(|r| {
            let r = r.trim();
            !(r.starts_with('.') || r.starts_with('/') || r.starts_with("file:"))
        })
        .collect();
    // Every virtualenv of the era had setuptools (pkg_resources): pinned with the rest.
    if !requirements
        .iter()
        .any(|r| normalize(requirement_name(r.trim())) == "setuptools")
    {
        requirements.push("setuptools".into());
    }
    // Imported by the tests, declared nowhere: installed, and dropped like a
    // development-only requirement if it does not resolve.
    let undeclared = super::imports::undeclared(&test_modules, &requirements, &local_modules);
    requirements.extend(undeclared.iter().cloned());
    droppable.extend(undeclared.iter().cloned());
    let pythonpath = match (project.root.as_str(), project.pythonpath) {
        (_, None) if project.root.is_empty() => None,
        ("", Some(p)) => Some(p),
        (r, Some(p)) => Some(format!("{r}/{p}")),
        (r, None) => Some(r.to_string()),
    };
    let version = tag_version(repo, rev, memo);
    let pyproject_doc = pyproject
        .as_deref()
        .and_then(|t| t.parse::<toml::Table>().ok());
    let generated = build_outputs(
        project_name(
            pyproject_doc.as_ref(),
            setup_cfg.as_deref(),
            setup_py.as_deref(),
        )
        .as_deref(),
        &version,
        pythonpath.as_deref().unwrap_or_default(),
        &version_files(pyproject_doc.as_ref(), setup_py.as_deref())
            .into_iter()
            .map(|f| format!("{root}{f}"))
            .collect::<Vec<_>>(),
        &entry_points(
            pyproject_doc.as_ref(),
            setup_cfg.as_deref(),
            setup_py.as_deref(),
        ),
    );
    let backend = project.backend.as_ref().map(|ask| {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        for text in [&setup_py, &setup_cfg, &pyproject] {
            h.update(text.as_deref().unwrap_or_default().as_bytes());
            h.update([0]);
        }
        Backend {
            repo: repo.to_path_buf(),
            rev: rev.to_string(),
            file: format!("{prefix}{root}{}", ask.file),
            extras: ask.extras.clone(),
            digest: format!("{:x}", h.finalize()),
        }
    });
    Ok(Declared {
        requires_python,
        versions,
        requirements,
        pythonpath,
        date,
        generated,
        droppable,
        test_libraries: project.test_libraries.clone(),
        backend,
        added_by_changes: Vec::new(),
        python2_code,
        undeclared,
        local_modules,
    })
}

/// Versions a file declares: `Programming Language :: Python :: 3.6` classifiers, and
/// tox envlist names (`py36`, `py27`).
pub fn declared_versions(classifier_texts: &[String], tox_ini: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let classifier =
        regex::Regex::new(r"Programming Language :: Python :: ([23]\.\d+)\b").expect("fixed regex");
    for t in classifier_texts {
        for c in classifier.captures_iter(t) {
            out.push(c[1].to_string());
        }
    }
    if let Some(tox) = tox_ini {
        let env = regex::Regex::new(r"\bpy([23])(\d{1,2})\b").expect("fixed regex");
        if let Some((first, rest)) = crate::pyconfig::ini_value(tox, "tox", "envlist") {
            let text = std::iter::once(first)
                .chain(rest)
                .collect::<Vec<_>>()
                .join(" ");
            for c in env.captures_iter(&text) {
                out.push(format!("{}.{}", &c[1], &c[2]));
            }
        }
    }
    out.sort_by(|a, b| cmp_versions(&parts(a), &parts(b)));
    out.dedup();
    out
}

/// `python_requires='>=3.6'` in a setup.py, or `python_requires = >=3.6` in setup.cfg.
pub fn python_requires(setup_py: Option<&str>, setup_cfg: Option<&str>) -> Option<String> {
    if let Some(t) = setup_py {
        let re = regex::Regex::new(r#"python_requires\s*=\s*['"]([^'"]+)['"]"#).expect("fixed");
        if let Some(c) = re.captures(t) {
            return Some(c[1].trim().to_string());
        }
    }
    setup_cfg
        .and_then(|t| crate::pyconfig::ini_value(t, "options", "python_requires"))
        .map(|(v, _)| v)
        .filter(|v| !v.is_empty())
}
