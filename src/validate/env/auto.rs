//! `python: auto`: each instance's Python environment inferred from its base commit.
//!
//! What the base tree declares (read by [`crate::init::python_project`]): the project's
//! dependencies and test dependencies, the runner (`pytest<8` for nose-era suites), the
//! src or flat layout (`PYTHONPATH`), `requires-python`/`python_requires`, trove
//! classifiers and tox's envlist. From that and the commit's date:
//!
//! - **Interpreter** ([`choose`]): among the interpreters found on the machine, those
//!   `requires-python` allows (Python 3 only: uv builds no Python 2 environments, so a
//!   project that declares only Python 2 is `unsupported_python`); of them, those
//!   already released on the commit's date (a
//!   2017 commit never ran on 3.9); of them, the newest the project declares
//!   (classifiers, tox), else the newest. With none of the era, the oldest allowed one
//!   is taken, its dependencies pinned to its release date (the first day any ran on
//!   it), and the record says so. With none allowed at all, the instance is
//!   `unsupported_python`, naming what it needs.
//! - **Dependencies pinned to the commit's date** (the ladder, [`Step`]): resolved by uv
//!   for that interpreter with `--exclude-newer <committer date>`, setuptools among them
//!   as every virtualenv of the era had it (old pytest and old projects import
//!   `pkg_resources`). The exact pins install without the cut-off, so an sdist builds
//!   with today's build tools (an old setuptools cannot build today's sdists and vice
//!   versa). When the pinned set does not install, the package uv names as failing to
//!   build is exempt (its newest release, with wheels, is taken), up to [`MAX_EXEMPT`]
//!   times; then, as a last step, the dependencies are resolved unpinned. The step that
//!   worked is recorded in `validation.python`.
//!
//! The resolved requirements (exact versions) are what the environment is keyed by, so
//! commits that resolve alike share one environment: a history of hundreds of commits
//! builds a handful. Each commit's resolution is cached, so a warm rebuild runs no uv.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::kind::{InstanceEnv, InstanceTree, KeyInputs, Kind, KindRecord};
use super::pythons::{self, Interpreter};
use super::{hex8, sh_quote, write_new, BuiltEnv, EnvCache, EnvError, EnvSpec, PythonSpec};
use crate::init::{normalize_distribution as normalize, requirement_name};
use crate::validate::runner::Runner;

/// How many failing packages the ladder exempts from the date pin before it resolves
/// unpinned. Failures come in chains: pyjwt's 2015 tree on Python 3.6 failed on
/// cryptography, then cffi, then pycparser (its 2016 tree on cryptography, pycrypto,
/// setuptools); with 2 both went unpinned, to today's pytest, which refuses their
/// `[pytest]` section.
pub const MAX_EXEMPT: usize = 4;

/// The cut-off given to exempt packages: later than any release, so their newest is
/// taken (fixed, so a resolution does not depend on the day it ran).
pub const NEWEST: &str = "2100-01-01T00:00:00Z";

/// `python: auto` as a spec: nothing is spelled out, everything is read per instance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AutoSpec;

impl Kind for AutoSpec {
    fn name(&self) -> &'static str {
        "python"
    }

    fn absolutize(&mut self, _resolve: &dyn Fn(&Path) -> PathBuf) -> Result<(), String> {
        Ok(())
    }

    fn key_inputs(&self, repo: &str) -> Result<KeyInputs, EnvError> {
        Err(per_instance(repo))
    }

    fn build(
        &self,
        _cache: &EnvCache,
        _runner: &Runner,
        repo: &str,
        _key: &str,
        _tmp: &Path,
    ) -> Result<bool, EnvError> {
        Err(per_instance(repo))
    }

    /// What the base commit declares ([`declared_at`]), then the interpreter and the
    /// dependency ladder ([`EnvCache::ensure_auto`]).
    fn for_instance(
        &self,
        cache: &EnvCache,
        runner: &Runner,
        repo: &str,
        tree: &InstanceTree<'_>,
    ) -> Option<Result<InstanceEnv, EnvError>> {
        let memo = cache.commit_memo();
        let made = declared_at(tree.repo_path, tree.rev, tree.workdir, Some(&memo))
            .map_err(|why| EnvError::Auto {
                repo: repo.to_string(),
                why,
            })
            .and_then(|d| cache.ensure_auto(runner, repo, &d))
            .map(|a| InstanceEnv {
                prefix: a.command_prefix(),
                generated: a.generated.clone(),
                record: KindRecord::Python(a.record.clone()),
                env: a.env,
            });
        Some(made)
    }
}

/// `python: auto` asked of [`EnvCache::ensure`], which builds what is spelled out.
fn per_instance(repo: &str) -> EnvError {
    EnvError::Auto {
        repo: repo.to_string(),
        why: "resolved per instance from its base commit (EnvCache::ensure_auto)".into(),
    }
}

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
    /// The tree declares Python 2 versions only, which no interpreter found here can
    /// change: uv resolves and builds Python 3 environments only.
    pub python2_only: bool,
}

/// Release dates (UTC midnight, Unix seconds) of CPython minor versions: a commit is
/// not tested on a Python released after it. A minor not listed counts as released.
const RELEASED: [(&str, i64); 12] = [
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
fn release_date(version: &str) -> Option<i64> {
    let minor = minor_of(version);
    RELEASED.iter().find(|(m, _)| *m == minor).map(|(_, t)| *t)
}

fn minor_of(version: &str) -> String {
    version.split('.').take(2).collect::<Vec<_>>().join(".")
}

fn parts(v: &str) -> Vec<u64> {
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

fn cmp_versions(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
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
    let declares_only_2 = !d.versions.is_empty() && !declares_3;
    let allowed: Vec<&Interpreter> = found
        .iter()
        // uv, which resolves and builds the environments, targets Python 3 only.
        .filter(|i| {
            !declares_only_2
                && i.version.starts_with("3.")
                && d.requires_python
                    .as_deref()
                    .is_none_or(|r| satisfies(&i.version, r))
        })
        .collect();
    if allowed.is_empty() {
        let needs = match (&d.requires_python, declares_only_2) {
            (_, true) => d.versions.join(" or "),
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
    let req = d
        .requires_python
        .as_deref()
        .map(|r| format!("requires-python {r}; "))
        .unwrap_or_default();
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
        at_root("tox.ini"),
    );
    let texts: Vec<String> = [&setup_py, &setup_cfg, &pyproject]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
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
    let pythonpath = match (project.root.as_str(), project.pythonpath) {
        (_, None) if project.root.is_empty() => None,
        ("", Some(p)) => Some(p),
        (r, Some(p)) => Some(format!("{r}/{p}")),
        (r, None) => Some(r.to_string()),
    };
    let version = match memo {
        Some(m) => crate::git::nearest_tag_memo(repo, rev, m),
        None => crate::git::nearest_tag(repo, rev),
    }
    .ok()
    .flatten()
    .and_then(|t| release_of(&t))
    .unwrap_or_else(|| "0.0.0".into());
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
    );
    Ok(Declared {
        requires_python: project
            .requires_python
            .or_else(|| python_requires(setup_py.as_deref(), setup_cfg.as_deref())),
        versions: declared_versions(&texts, tox.as_deref()),
        requirements,
        pythonpath,
        date,
        generated,
    })
}

/// The release a tag names (`v4.12.0` → `4.12.0`), if it names one.
fn release_of(tag: &str) -> Option<String> {
    static RELEASE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^\D{0,12}?(\d+(?:\.\d+)*)").expect("fixed regex")
    });
    let name = tag.rsplit('/').next().unwrap_or(tag);
    RELEASE.captures(name).map(|c| c[1].to_string())
}

/// The distribution's name: `[project] name`, setup.cfg's `[metadata] name`, or a
/// literal `name=` in setup.py.
fn project_name(
    pyproject: Option<&toml::Table>,
    setup_cfg: Option<&str>,
    setup_py: Option<&str>,
) -> Option<String> {
    static CFG: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?m)^\[metadata\][^\[]*?^name\s*=\s*([A-Za-z0-9._-]+)\s*$")
            .expect("fixed regex")
    });
    static PY: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"(?:^|[^\w.])name\s*=\s*["']([A-Za-z0-9._-]+)["']"#)
            .expect("fixed regex")
    });
    let from_toml = pyproject
        .and_then(|doc| doc.get("project"))
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
        .map(str::to_string);
    let from_cfg = || Some(CFG.captures(setup_cfg?)?[1].to_string());
    let from_py = || Some(PY.captures(setup_py?)?[1].to_string());
    from_toml.or_else(from_cfg).or_else(from_py)
}

/// The version files a build writes from the history, relative to the project root:
/// setuptools_scm's `write_to`/`version_file` (pyproject or setup.py's
/// `use_scm_version`) and hatch-vcs's `version-file`.
fn version_files(pyproject: Option<&toml::Table>, setup_py: Option<&str>) -> Vec<String> {
    static WRITE_TO: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"["']?write_to["']?\s*[:=]\s*["']([^"']+)["']"#).expect("fixed regex")
    });
    let mut out = Vec::new();
    if let Some(doc) = pyproject {
        let tool = doc.get("tool");
        let scm = tool.and_then(|t| t.get("setuptools_scm"));
        for key in ["write_to", "version_file"] {
            if let Some(f) = scm.and_then(|s| s.get(key)).and_then(|v| v.as_str()) {
                out.push(f.to_string());
            }
        }
        let vcs = tool
            .and_then(|t| t.get("hatch"))
            .and_then(|h| h.get("build"))
            .and_then(|b| b.get("hooks"))
            .and_then(|h| h.get("vcs"))
            .and_then(|v| v.get("version-file"))
            .and_then(|v| v.as_str());
        out.extend(vcs.map(str::to_string));
    }
    if let Some(text) = setup_py {
        out.extend(WRITE_TO.captures_iter(text).map(|c| c[1].to_string()));
    }
    out.sort();
    out.dedup();
    out
}

/// What installing the project (as `pip install -e .` does) would add that a run from
/// the working copy on `PYTHONPATH` lacks, as (path relative to the workdir, contents):
/// the distribution's metadata in `site` (the `PYTHONPATH` directory, or the workdir),
/// which `importlib.metadata.version(…)` and `pkg_resources.get_distribution(…)` read
/// (humanize's `__init__`), and the version files its build writes from the history
/// (setuptools_scm's template), which the package imports. `version` is the nearest
/// tag's. A path leaving the working copy (absolute, `..`) is never written.
pub fn build_outputs(
    name: Option<&str>,
    version: &str,
    site: &str,
    version_files: &[String],
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let inside = |p: &str| {
        let path = std::path::Path::new(p);
        !p.is_empty()
            && path
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
    };
    if let Some(name) = name {
        let dir = format!("{}-{version}.dist-info", name.replace(['-', '.'], "_"));
        let path = match site.trim_matches('/') {
            "" => format!("{dir}/METADATA"),
            s => format!("{s}/{dir}/METADATA"),
        };
        if inside(&path) {
            out.push((
                path,
                format!("Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"),
            ));
        }
    }
    let parts: Vec<&str> = version.split('.').collect();
    let tuple = if parts.iter().all(|p| p.parse::<u64>().is_ok()) {
        parts.join(", ")
    } else {
        format!("{version:?}")
    };
    for f in version_files.iter().filter(|f| inside(f)) {
        out.push((
            f.clone(),
            format!(
                "# file generated by setuptools_scm (written by hunkgen: the build is not run)\n\
                 __version__ = version = '{version}'\n\
                 __version_tuple__ = version_tuple = ({tuple},)\n"
            ),
        ));
    }
    out
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

/// Which rung of the ladder gave an environment that installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Every dependency at its release of the commit's date (setuptools too).
    Pinned,
    /// Pinned, with the packages named in `exempt` at their newest.
    Exempt,
    /// Nothing pinned: today's releases.
    Unpinned,
}

/// The packages uv says failed to build (`Failed to build `zope-interface==4.4.3``), or
/// has no release of before the cutoff (`` `atomicwrites` was filtered by `exclude-newer` ``:
/// a project that deleted its old releases), normalized, in order of appearance.
pub fn failing_packages(log: &str) -> Vec<String> {
    static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)(?:failed to (?:download and )?build[^`]*`([A-Za-z0-9._-]+))|(?:`([A-Za-z0-9._-]+)` was filtered by `exclude-newer`)",
        )
        .expect("fixed regex")
    });
    let mut out: Vec<String> = Vec::new();
    for c in RE.captures_iter(log) {
        let Some(m) = c.get(1).or_else(|| c.get(2)) else {
            continue;
        };
        let name = normalize(m.as_str().trim());
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// The next rung after a failure at (`step`, `exempt`), given the packages the failure
/// names: exempt the first new one while fewer than [`MAX_EXEMPT`] are, else unpinned;
/// `None` after unpinned.
pub fn next_rung(step: Step, exempt: &[String], failing: &[String]) -> Option<(Step, Vec<String>)> {
    match step {
        Step::Unpinned => None,
        _ => {
            let new = failing.iter().find(|f| !exempt.contains(f));
            match new {
                Some(f) if exempt.len() < MAX_EXEMPT => {
                    let mut e = exempt.to_vec();
                    e.push(f.clone());
                    Some((Step::Exempt, e))
                }
                _ => Some((Step::Unpinned, Vec::new())),
            }
        }
    }
}

/// What `python: auto` chose for one instance (`validation.python`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutoEnv {
    /// The environment.
    pub env: BuiltEnv,
    /// The record: interpreter, why, the ladder's step.
    pub record: crate::model::PythonRecord,
    /// `PYTHONPATH` for the runs (`src` in a src layout), relative to the workdir.
    pub pythonpath: Option<String>,
    /// The pinned pytest's version, when the requirements hold one.
    pub pytest: Option<String>,
    /// Files written into the working copy before each run, where absent
    /// ([`build_outputs`]).
    #[serde(default)]
    pub generated: Vec<(String, String)>,
}

impl AutoEnv {
    /// The variables set in front of a suite's command: `PYTHONPATH` for the layout, and
    /// `PYTEST_ADDOPTS='-o junit_family=xunit1'` for a pytest that has the option
    /// (5.1 on; xunit2, the default from 6.0, drops the file of each test case). Older
    /// pytest writes xunit1 only and refuses `-o` before 3.0, so the option is not in
    /// the command `init` writes.
    pub fn command_prefix(&self) -> String {
        let mut out = String::new();
        if let Some(p) = &self.pythonpath {
            out.push_str(&format!("PYTHONPATH={} ", sh_quote(p)));
        }
        let has_junit_family = self
            .pytest
            .as_deref()
            .is_none_or(|v| cmp_versions(&parts(v), &[5, 1]) != std::cmp::Ordering::Less);
        if has_junit_family {
            out.push_str("PYTEST_ADDOPTS='-o junit_family=xunit1' ");
        }
        out
    }
}

/// The version pinned for `package` in exact requirements (`pytest==6.1.2`).
pub fn pinned_version(requirements: &str, package: &str) -> Option<String> {
    requirements.lines().find_map(|l| {
        let (name, version) = l.split(';').next()?.split_once("==")?;
        (normalize(name.trim()) == normalize(package)).then(|| version.trim().to_string())
    })
}

/// A commit's resolution as cached: the record and the exact requirements it installed
/// (or the failure of the whole ladder).
#[derive(Debug, Clone, Serialize, Deserialize)]
enum Resolved {
    /// The ladder's rung that worked and the requirements it resolved.
    Ok {
        record: crate::model::PythonRecord,
        requirements: String,
    },
    /// Every rung failed: the last error.
    Failed(String),
}

impl EnvCache {
    /// The environment `python: auto` infers for a tree that declares `d` (see the
    /// module doc): the interpreter chosen, the dependencies resolved for it pinned to the
    /// commit's date down the ladder, and the venv built from the exact requirements
    /// (shared by every commit that resolves alike). Each commit's resolution is cached,
    /// failures included, so a warm rebuild runs no uv.
    pub fn ensure_auto(
        &self,
        runner: &Runner,
        repo: &str,
        d: &Declared,
    ) -> Result<AutoEnv, EnvError> {
        let found = pythons::discover_in(Some(&self.root.join("pythons")));
        let choice = choose(d, found).map_err(|n| match n.python2_only {
            true => EnvError::Python2Only {
                repo: repo.to_string(),
                versions: n.needs,
            },
            false => EnvError::UnsupportedPython {
                repo: repo.to_string(),
                requested: n.needs,
                available: found
                    .iter()
                    .map(|f| f.version.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            },
        })?;
        let version = choice.interpreter.version.clone();
        let date = choice.pin_date.to_le_bytes();
        let mut parts: Vec<&[u8]> = vec![
            // v2: the ladder also exempts a package with no release before the cutoff;
            // v3: up to 4 packages, not 2.
            b"hunkgen-auto-v3",
            repo.as_bytes(),
            version.as_bytes(),
            &date,
        ];
        parts.extend(d.requirements.iter().map(String::as_bytes));
        let key = crate::cache::Key::of(&parts);
        let hex: String = key.as_str().chars().take(16).collect();
        let resolved_dir = self.root.join("resolved");
        let memos = crate::cache::Cache::new(&resolved_dir);
        let write_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| EnvError::Write { path, source }
        };
        let cached: Option<Resolved> = memos
            .get(&key)
            .and_then(|b| serde_json::from_slice(&b).ok());
        let build = |requirements: &str| -> Result<BuiltEnv, EnvError> {
            let mut rh = Sha256::new();
            rh.update(requirements.as_bytes());
            let file = resolved_dir.join(format!("requirements-{}.txt", hex8(rh)));
            if !file.is_file() {
                write_new(&file, requirements.as_bytes()).map_err(write_err(&file))?;
            }
            self.ensure(
                runner,
                repo,
                &EnvSpec::Python(PythonSpec {
                    python: Some(version.clone()),
                    requirements: Some(file),
                    install: None,
                }),
            )
        };
        let done =
            |record: crate::model::PythonRecord, requirements: &str, env: BuiltEnv| AutoEnv {
                env,
                record,
                pythonpath: d.pythonpath.clone(),
                pytest: pinned_version(requirements, "pytest"),
                generated: d.generated.clone(),
            };
        match cached {
            Some(Resolved::Ok {
                record,
                requirements,
            }) => return build(&requirements).map(|env| done(record, &requirements, env)),
            Some(Resolved::Failed(why)) => {
                return Err(EnvError::Auto {
                    repo: repo.to_string(),
                    why,
                })
            }
            None => {}
        }
        fs::create_dir_all(&resolved_dir).map_err(write_err(&resolved_dir))?;
        let cutoff = crate::dataset::rfc3339(choice.pin_date);
        let (mut rung, mut exempt) = (Step::Pinned, Vec::<String>::new());
        let mut tried = Vec::new();
        let outcome = loop {
            let pinned = (rung != Step::Unpinned).then_some(cutoff.as_str());
            let attempt = self
                .compile(
                    runner,
                    repo,
                    &hex,
                    &version,
                    &d.requirements,
                    pinned,
                    &exempt,
                )
                .and_then(|reqs| build(&reqs).map(|env| (reqs, env)));
            let failure = match attempt {
                Ok((requirements, env)) => {
                    let record = crate::model::PythonRecord {
                        version: version.clone(),
                        chosen: choice.why.clone(),
                        step: match rung {
                            Step::Pinned => "pinned",
                            Step::Exempt => "exempt",
                            Step::Unpinned => "unpinned",
                        }
                        .into(),
                        pinned_to: pinned.map(str::to_string),
                        exempt: exempt.clone(),
                        tried: tried.clone(),
                    };
                    break Ok((record, requirements, env));
                }
                Err(e @ (EnvError::Step { .. } | EnvError::Auto { .. })) => e,
                Err(e) => return Err(e),
            };
            let log = match &failure {
                EnvError::Step { log, .. } => fs::read_to_string(log).unwrap_or_default(),
                e => e.to_string(),
            };
            let failing = failing_packages(&log);
            // Named: the package this failure adds to the exempt ones (an exempt one may
            // fail again, and uv names it first).
            let new = failing.iter().find(|f| !exempt.contains(f));
            tried.push(match new.or(failing.first()) {
                Some(f) => format!("{rung:?} failed on {f}").to_lowercase(),
                None => format!("{rung:?} failed").to_lowercase(),
            });
            match next_rung(rung, &exempt, &failing) {
                Some((r, e)) => {
                    rung = r;
                    exempt = e;
                }
                None => break Err(failure),
            }
        };
        let memo_bytes = match &outcome {
            Ok((record, requirements, _)) => serde_json::to_vec(&Resolved::Ok {
                record: record.clone(),
                requirements: requirements.clone(),
            }),
            Err(e) => serde_json::to_vec(&Resolved::Failed(e.to_string())),
        }
        .unwrap_or_default();
        memos
            .put(&key, &memo_bytes)
            .map_err(write_err(&resolved_dir))?;
        outcome.map(|(record, requirements, env)| done(record, &requirements, env))
    }

    /// `uv pip compile` of `requirements` for Python `version` on Linux: pinned to
    /// `cutoff` (`exempt` at their newest) or unpinned; against the
    /// index when the network is allowed, else from uv's cache. The exact requirements.
    #[allow(clippy::too_many_arguments)]
    fn compile(
        &self,
        runner: &Runner,
        repo: &str,
        tag: &str,
        version: &str,
        requirements: &[String],
        cutoff: Option<&str>,
        exempt: &[String],
    ) -> Result<String, EnvError> {
        let uv = self.uv.clone().ok_or_else(|| EnvError::MissingTool {
            tool: "uv".into(),
            hint: "set HUNKGEN_UV or put uv on PATH (`pip install uv`; `make deps`)".into(),
        })?;
        let write_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| EnvError::Write { path, source }
        };
        fs::create_dir_all(&self.uv_cache).map_err(write_err(&self.uv_cache))?;
        let work = crate::lock::WorkDir::reserve(&self.root, &format!("resolve-{tag}"))
            .map_err(write_err(&self.root))?;
        let dir = work.path().to_path_buf();
        fs::create_dir_all(&dir).map_err(write_err(&dir))?;
        let input = dir.join("requirements.in");
        let mut text = requirements.join("\n");
        text.push('\n');
        fs::write(&input, text).map_err(write_err(&input))?;
        let output = dir.join("requirements.txt");
        let mut script = format!(
            "{} pip compile --quiet --no-header --no-annotate --python-version {} \
             --python-platform linux -o {} {}",
            sh_quote(&uv),
            sh_quote(version),
            sh_quote(&output),
            sh_quote(&input)
        );
        if let Some(cutoff) = cutoff {
            script.push_str(&format!(" --exclude-newer {}", sh_quote(cutoff)));
            for p in exempt {
                script.push_str(&format!(
                    " --exclude-newer-package {}",
                    sh_quote(format!("{p}={}", NEWEST))
                ));
            }
        }
        // Online when allowed: offline, uv resolves among the versions whose metadata
        // happens to be cached, which is not what the cut-off gives. Offline (no network
        // for setup), the answer is the cache's: a cache seeded for the dates resolves
        // as the index would.
        let online = self.allow_network;
        let mut vars: Vec<(OsString, OsString)> = vec![
            ("UV_CACHE_DIR".into(), self.uv_cache.clone().into()),
            ("UV_PYTHON_DOWNLOADS".into(), "never".into()),
            ("UV_NO_CONFIG".into(), "1".into()),
        ];
        if !online {
            vars.push(("UV_OFFLINE".into(), "1".into()));
        }
        let readable: Vec<PathBuf> = self.uv.iter().cloned().collect();
        let log = format!(
            "resolve-{tag}-{}",
            if online { "online" } else { "offline" }
        );
        self.step(runner, repo, &log, script, &dir, online, &vars, &readable)?;
        fs::read_to_string(&output).map_err(|source| EnvError::Read {
            path: output,
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn i(v: &str) -> Interpreter {
        pythons::made_up(v)
    }

    fn at(day: &str) -> i64 {
        // Days since the epoch by the civil calendar, midnight UTC.
        let y: i64 = day[..4].parse().expect("y");
        let m: i64 = day[5..7].parse().expect("m");
        let d: i64 = day[8..10].parse().expect("d");
        let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let doy = (153 * m + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        (era * 146_097 + doe - 719_468) * 86_400
    }

    #[test]
    fn specifiers_are_read_as_pep_440_says() {
        assert!(satisfies("3.6.15", ">=3.6"));
        assert!(!satisfies("3.5.9", ">=3.6"));
        assert!(satisfies("3.9.18", ">=3.6, <4"));
        assert!(!satisfies("3.0.1", ">=2.7, !=3.0.*, !=3.1.*"));
        assert!(satisfies("2.7.18", ">=2.7, !=3.0.*, !=3.1.*"));
        assert!(satisfies("3.7.16", "~=3.7"));
        assert!(!satisfies("4.0.0", "~=3.7"));
        assert!(satisfies("3.10.13", ">3.9"));
        assert!(!satisfies("3.9.0", ">3.9"));
        assert!(satisfies("3.9.18", ">3.9"));
        assert!(satisfies("3.9.18", "==3.9.*"));
        assert!(satisfies("3.11.7", "garbage"));
    }

    #[test]
    fn the_newest_declared_interpreter_of_the_commits_era_is_chosen() {
        let found = [
            i("3.11.7"),
            i("3.9.18"),
            i("3.6.15"),
            i("3.12.1"),
            i("2.7.18"),
        ];
        let mut d = Declared {
            date: at("2017-12-13"),
            ..Default::default()
        };
        // Nothing declared: the newest released by the date.
        assert_eq!(
            choose(&d, &found).expect("choice").interpreter.version,
            "3.6.15"
        );
        // Declared versions within the era win over newer ones.
        d.date = at("2021-03-01");
        assert_eq!(choose(&d, &found).expect("c").interpreter.version, "3.9.18");
        d.versions = vec!["3.6".into(), "3.7".into()];
        assert_eq!(choose(&d, &found).expect("c").interpreter.version, "3.6.15");
        // requires-python rules out what it excludes.
        d.requires_python = Some(">=3.7".into());
        assert_eq!(choose(&d, &found).expect("c").interpreter.version, "3.9.18");
        // None of the era found: the oldest allowed, said so.
        let c = choose(
            &Declared {
                date: at("2015-01-01"),
                ..Default::default()
            },
            &found,
        )
        .expect("c");
        assert_eq!(c.interpreter.version, "3.6.15");
        assert!(c.why.contains("oldest"), "{}", c.why);
        // Its dependencies are those of its release: none of 2015 ran on 3.6.
        assert_eq!(c.pin_date, at("2016-12-23"));
        assert_eq!(
            choose(&d, &found).expect("c").pin_date,
            d.date,
            "an interpreter of the era pins to the commit's date"
        );
        // A project that declares only Python 2 is unsupported (uv builds Python 3
        // environments only), whatever interpreters are found.
        let py2 = Declared {
            date: at("2015-01-01"),
            versions: vec!["2.6".into(), "2.7".into()],
            ..Default::default()
        };
        assert_eq!(
            choose(&py2, &found),
            Err(NoInterpreter {
                needs: "2.6 or 2.7".into(),
                python2_only: true
            })
        );
        // Nothing allowed: what it needs.
        let new = Declared {
            requires_python: Some(">=3.14".into()),
            date: at("2026-01-01"),
            ..Default::default()
        };
        assert_eq!(
            choose(&new, &found),
            Err(NoInterpreter {
                needs: ">=3.14".into(),
                python2_only: false
            })
        );
    }

    #[test]
    fn what_an_install_would_add_is_named_from_the_build_config() {
        // humanize, 2024: hatch-vcs writes src/humanize/_version.py; the package on
        // PYTHONPATH=src also needs its metadata (2020's __init__ asks pkg_resources).
        let pyproject = "[project]\nname = \"humanize\"\n[tool.hatch.build.hooks.vcs]\nversion-file = \"src/humanize/_version.py\"\n";
        let pyproject: toml::Table = pyproject.parse().expect("toml");
        assert_eq!(
            project_name(Some(&pyproject), None, None).as_deref(),
            Some("humanize")
        );
        assert_eq!(
            version_files(Some(&pyproject), None),
            vec!["src/humanize/_version.py"]
        );
        let setup_py = "setup(\n    name='humanize',\n    use_scm_version={'write_to': 'src/humanize/_v.py'},\n)\n";
        assert_eq!(
            project_name(None, None, Some(setup_py)).as_deref(),
            Some("humanize")
        );
        assert_eq!(
            version_files(None, Some(setup_py)),
            vec!["src/humanize/_v.py"]
        );
        let cfg = "[metadata]\nversion = 1\nname = my.pkg\n[options]\nname = no\n";
        assert_eq!(
            project_name(None, Some(cfg), None).as_deref(),
            Some("my.pkg")
        );
        assert_eq!(release_of("v4.12.0").as_deref(), Some("4.12.0"));
        assert_eq!(release_of("release-2.0").as_deref(), Some("2.0"));
        assert_eq!(release_of("nightly"), None);
        let out = build_outputs(
            Some("my.pkg"),
            "4.12.0",
            "src",
            &[
                "src/pkg/_version.py".into(),
                "../outside.py".into(),
                "/etc/x".into(),
            ],
        );
        assert_eq!(out.len(), 2, "{out:?}");
        assert_eq!(out[0].0, "src/my_pkg-4.12.0.dist-info/METADATA");
        assert!(out[0].1.contains("Name: my.pkg\nVersion: 4.12.0\n"));
        assert_eq!(out[1].0, "src/pkg/_version.py");
        assert!(out[1].1.contains("__version__ = version = '4.12.0'"));
        assert!(out[1].1.contains("version_tuple = (4, 12, 0,)"));
        assert_eq!(
            build_outputs(Some("a"), "1", "", &[])[0].0,
            "a-1.dist-info/METADATA"
        );
    }

    #[test]
    fn classifiers_tox_and_python_requires_are_read() {
        let setup = r#"setup(
    python_requires=">=3.5",
    classifiers=[
        "Programming Language :: Python :: 3.5",
        "Programming Language :: Python :: 3.6",
        "Programming Language :: Python :: 3",
    ])"#;
        let tox = "[tox]\nenvlist = py27,py36, pypy3\n  py37\n";
        assert_eq!(
            declared_versions(&[setup.to_string()], Some(tox)),
            vec!["2.7", "3.5", "3.6", "3.7"]
        );
        assert_eq!(python_requires(Some(setup), None).as_deref(), Some(">=3.5"));
        let cfg = "[options]\npython_requires = >=3.7\n";
        assert_eq!(python_requires(None, Some(cfg)).as_deref(), Some(">=3.7"));
        assert_eq!(python_requires(None, None), None);
    }

    #[test]
    fn the_command_prefix_follows_the_layout_and_the_pinned_pytest() {
        let pins = "attrs==20.3.0\npytest==2.9.2 ; python_version >= \"3\"\nsix==1.15.0\n";
        assert_eq!(pinned_version(pins, "pytest").as_deref(), Some("2.9.2"));
        assert_eq!(pinned_version(pins, "py"), None);
        let env = |pytest: Option<&str>, pythonpath: Option<&str>| AutoEnv {
            env: BuiltEnv {
                dir: PathBuf::from("/e"),
                key: "k".into(),
                spec: EnvSpec::PythonAuto(AutoSpec),
                reused: false,
                offline: true,
            },
            record: crate::model::PythonRecord {
                version: "3.6.15".into(),
                chosen: String::new(),
                step: "pinned".into(),
                pinned_to: None,
                exempt: Vec::new(),
                tried: Vec::new(),
            },
            pythonpath: pythonpath.map(str::to_string),
            pytest: pytest.map(str::to_string),
            generated: Vec::new(),
        };
        assert_eq!(
            env(Some("2.9.2"), Some("src")).command_prefix(),
            "PYTHONPATH='src' "
        );
        assert_eq!(env(Some("5.0.1"), None).command_prefix(), "");
        assert_eq!(
            env(Some("6.1.2"), None).command_prefix(),
            "PYTEST_ADDOPTS='-o junit_family=xunit1' "
        );
    }

    #[test]
    fn the_ladder_exempts_what_fails_then_goes_unpinned() {
        let log = "  × Failed to build `zope.interface==4.4.3`\n  ├─▶ The build backend returned an error\n";
        let failing = failing_packages(log);
        assert_eq!(failing, vec!["zope-interface"]);
        let (s, e) = next_rung(Step::Pinned, &[], &failing).expect("rung");
        assert_eq!(
            (s, e.clone()),
            (Step::Exempt, vec!["zope-interface".to_string()])
        );
        // Each failure names the next package of a chain (cryptography → cffi →
        // pycparser on a 2015 tree); each is exempt in turn, up to the bound.
        let (mut s, mut e) = (s, e);
        for next in ["cffi", "pycparser", "six"].iter().take(MAX_EXEMPT - 1) {
            (s, e) = next_rung(s, &e, &[next.to_string()]).expect("rung");
            assert_eq!(s, Step::Exempt);
        }
        assert_eq!(e.len(), MAX_EXEMPT);
        assert_eq!(
            next_rung(s, &e, &["lxml".into()]).map(|r| r.0),
            Some(Step::Unpinned)
        );
        // A failure that names nothing new goes straight to unpinned.
        assert_eq!(
            next_rung(Step::Pinned, &[], &[]).map(|r| r.0),
            Some(Step::Unpinned)
        );
        assert_eq!(next_rung(Step::Unpinned, &[], &failing), None);
        assert_eq!(
            failing_packages("error: Failed to download and build `PyYAML==3.12`"),
            vec!["pyyaml"]
        ); // A project that deleted its old releases (uv's words, 0.9).
        let gone = "error: No solution found when resolving dependencies\n  cause: Because there are no versions of atomicwrites and pytest>=3.6.2 depends on atomicwrites>=1.0, we can conclude that pytest>=3.6.2 cannot be used.\n\nhint: `atomicwrites` was filtered by `exclude-newer` to only include packages uploaded before 2018-07-01T21:39:51Z.";
        assert_eq!(failing_packages(gone), vec!["atomicwrites"]);
    }
}
