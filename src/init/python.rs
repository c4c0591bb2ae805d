//! The Python part of `hunkgen init`: where the package is (src layout or flat), which
//! dependencies the tests need (declared in pyproject.toml, setup.cfg, setup.py,
//! requirements files, tox.ini), and which runner (pytest; `pytest<8` for nose-era
//! suites, which pytest 8 no longer runs).

use serde::Serialize;

mod requirements;
use requirements::{included_file, requirement_lines, Role, REQUIREMENT_FILES};

/// The Python suite `hunkgen init` writes.
#[derive(Debug, Clone, Serialize)]
pub struct PythonInference {
    /// The project's root in the repository (the suite's workdir; empty: the root).
    pub root: String,
    /// The directory put on `PYTHONPATH` (`src` for a src layout), if any.
    pub pythonpath: Option<String>,
    /// Directories holding the test files (for `paths:` when Java is there too).
    pub test_dirs: Vec<String>,
    /// Requirements installed into the environment, runner included, in order.
    pub requirements: Vec<String>,
    /// Of them, the (normalized) names declared only for development (a `dev` extra, a
    /// requirements file named for development): `python: auto` may drop one that
    /// sinks the resolution when no test imports it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub optional: Vec<String>,
    /// Of them, the (normalized) names declared for the tests only (test extras,
    /// `tests_require`, test requirements files, tox), but pytest and its plugins: an
    /// old tree calls the API of their release of its date.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub test_libraries: Vec<String>,
    /// The build file whose backend knows the real dependencies (`setup.py`, which may
    /// compute its extras; a `pyproject.toml` whose dependencies are dynamic), and the
    /// test extras to ask it for: `python: auto` asks it in the resolve step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend: Option<BackendAsk>,
    /// The suite uses nose idioms: run by `pytest<8`.
    pub nose: bool,
    /// `requires-python`, when declared.
    pub requires_python: Option<String>,
    /// The suite's environment is `python: auto` (per commit), not one install line.
    pub auto: bool,
}

/// What to ask a project's build backend for: its build file (relative to the project's
/// root) and the extras.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct BackendAsk {
    /// `setup.py` or `pyproject.toml`.
    pub file: String,
    /// Test extras the build files name (a name the backend does not provide is
    /// dropped when it says so).
    pub extras: Vec<String>,
}

/// Optional-dependency and dependency-group names that hold test dependencies.
const TEST_EXTRAS: [&str; 4] = ["test", "tests", "testing", "dev"];

/// The Python project's root: the shallowest directory holding pyproject.toml,
/// setup.py or setup.cfg; else the directory above the top-level packages (a `src/`
/// directory's parent). Empty for the repository root.
fn project_root(paths: &[String]) -> String {
    let dir = |p: &str| {
        p.rsplit_once('/')
            .map(|(d, _)| d.to_string())
            .unwrap_or_default()
    };
    let depth = |d: &String| {
        if d.is_empty() {
            0
        } else {
            d.matches('/').count() + 1
        }
    };
    let mut roots: Vec<String> = paths
        .iter()
        .filter(|p| {
            let name = p.rsplit('/').next().unwrap_or(p);
            matches!(name, "pyproject.toml" | "setup.py" | "setup.cfg")
        })
        .map(|p| dir(p))
        .collect();
    if roots.is_empty() {
        let inits: std::collections::BTreeSet<String> = paths
            .iter()
            .filter(|p| p.ends_with("__init__.py") && !super::is_test_path(p))
            .map(|p| dir(p))
            .collect();
        roots = inits
            .iter()
            .filter(|pkg| !inits.contains(&dir(pkg)))
            .map(|pkg| {
                let parent = dir(pkg);
                match parent.strip_suffix("src") {
                    Some(up) if up.is_empty() || up.ends_with('/') => {
                        up.trim_end_matches('/').to_string()
                    }
                    _ => parent,
                }
            })
            .collect();
    }
    roots
        .into_iter()
        .min_by_key(|d| (depth(d), d.clone()))
        .unwrap_or_default()
}

/// The directory a setuptools build maps the root package namespace to, as its files
/// declare it: `package_dir={'': 'lib'}` in `setup.py`, `package_dir = =lib` under
/// `[options]` of `setup.cfg`, `package-dir = {"" = "lib"}` under `[tool.setuptools]` of
/// `pyproject.toml`. A single relative directory, else `None`.
fn declared_package_dir(read: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    static SETUP_PY: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    static PYPROJECT: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let from_setup_py = || {
        let re = SETUP_PY
            .get_or_init(|| {
                regex::Regex::new(
                    r#"package_dir\s*=\s*\{\s*(?:''|"")\s*:\s*(?:'([^']*)'|"([^"]*)")"#,
                )
                .ok()
            })
            .as_ref()?;
        let text = read("setup.py")?;
        let c = re.captures(&text)?;
        c.get(1).or(c.get(2)).map(|m| m.as_str().to_string())
    };
    let from_setup_cfg = || {
        let text = read("setup.cfg")?;
        let (first, rest) = crate::pyconfig::ini_value(&text, "options", "package_dir")?;
        std::iter::once(first).chain(rest).find_map(|l| {
            let (k, v) = l.split_once('=')?;
            k.trim().is_empty().then(|| v.trim().to_string())
        })
    };
    let from_pyproject = || {
        let re = PYPROJECT
            .get_or_init(|| {
                regex::Regex::new(r#"(?m)^\s*package-dir\s*=\s*\{\s*""\s*=\s*"([^"]*)""#).ok()
            })
            .as_ref()?;
        let text = read("pyproject.toml")?;
        let section = text.split("[tool.setuptools]").nth(1)?;
        let section = section.split("\n[").next().unwrap_or(section);
        re.captures(section)?.get(1).map(|m| m.as_str().to_string())
    };
    let dir = from_setup_py()
        .or_else(from_setup_cfg)
        .or_else(from_pyproject)?;
    let dir = dir.trim().trim_start_matches("./").trim_end_matches('/');
    (!dir.is_empty() && dir != "." && !dir.starts_with('/') && !dir.split('/').any(|c| c == ".."))
        .then(|| dir.to_string())
}

pub(super) fn infer(
    all_paths: &[String],
    read_repo: &dyn Fn(&str) -> Option<String>,
    auto: bool,
    inferred: &mut Vec<String>,
    not_inferred: &mut Vec<String>,
) -> PythonInference {
    let root = project_root(all_paths);
    let prefix = if root.is_empty() {
        String::new()
    } else {
        format!("{root}/")
    };
    // Below, paths are relative to the project's root.
    let paths: Vec<String> = all_paths
        .iter()
        .filter_map(|p| p.strip_prefix(&prefix).map(str::to_string))
        .collect();
    let read = |p: &str| read_repo(&format!("{prefix}{p}"));
    let paths = &paths[..];
    let has = |p: &str| paths.iter().any(|x| x == p);
    let src_layout = paths.iter().any(|p| {
        p.starts_with("src/") && p.ends_with("/__init__.py") && p.matches('/').count() == 2
    });
    // Where the build itself says the packages are (`package_dir={'': 'lib'}`), when a
    // package lies there: older trees keep them under `lib/` as often as under `src/`.
    let declared_dir = declared_package_dir(&read).filter(|d| {
        paths.iter().any(|p| {
            p.strip_prefix(d.as_str())
                .and_then(|r| r.strip_prefix('/'))
                .is_some_and(|r| r.ends_with("/__init__.py") && r.matches('/').count() == 1)
        })
    });
    let src_layout = src_layout || declared_dir.as_deref() == Some("src");
    let pythonpath = match &declared_dir {
        Some(d) => Some(d.clone()),
        None => src_layout.then(|| "src".to_string()),
    };
    let mut test_dirs: Vec<String> = paths
        .iter()
        .filter(|p| {
            let name = p.rsplit('/').next().unwrap_or(p);
            p.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
        })
        .filter_map(|p| p.split('/').next().filter(|d| *d != p.as_str()))
        .map(str::to_string)
        .collect();
    test_dirs.sort();
    test_dirs.dedup();
    if !root.is_empty() {
        inferred.push(format!(
            "Python project root: {root}/ (the suite's workdir)"
        ));
    }
    inferred.push(format!(
        "Python: {} layout{}, test files under {}",
        match &declared_dir {
            Some(d) if d != "src" => format!("{d}/ (the build's package_dir)"),
            _ if src_layout => "src".to_string(),
            _ => "flat".to_string(),
        },
        match &pythonpath {
            Some(d) => format!(" ({d}/ on PYTHONPATH)"),
            None => String::new(),
        },
        if test_dirs.is_empty() {
            "(none found)".to_string()
        } else {
            test_dirs.join(", ")
        }
    ));
    // (requirement, where it was declared, what for).
    let mut reqs: Vec<(String, &'static str, Role)> = Vec::new();
    let for_extra = |extra: &str| match extra {
        "dev" => Role::Dev,
        _ => Role::Test,
    };
    let for_key = |key: &str| match key {
        "tests_require" => Role::Test,
        _ => Role::Install,
    };
    // The extras a test run installs: the usual test names, and those tox's test
    // environment asks for (`extras = tests,reco`). tox's configuration may live in
    // `tox.ini`, `pyproject.toml` or `setup.cfg`.
    let (tox_file, tox) = match crate::pyconfig::tox_config(&read) {
        Some((file, text)) => (file, Some(text)),
        None => ("tox.ini", None),
    };
    let mut extras: Vec<String> = TEST_EXTRAS.iter().map(|e| e.to_string()).collect();
    if let Some(text) = &tox {
        for e in ini_list(text, "testenv", "extras") {
            if !e.contains('{') && !extras.contains(&e) {
                extras.push(e);
            }
        }
    }
    let mut project_name = None;
    let mut requires_python = None;
    if let Some(text) = read("pyproject.toml") {
        if let Ok(doc) = text.parse::<toml::Table>() {
            let project = doc.get("project");
            project_name = project
                .and_then(|p| p.get("name"))
                .and_then(|n| n.as_str())
                .map(normalize);
            requires_python = project
                .and_then(|p| p.get("requires-python"))
                .and_then(|n| n.as_str())
                .map(str::to_string);
            let strings = |v: Option<&toml::Value>| -> Vec<String> {
                v.and_then(|v| v.as_array())
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            for d in strings(project.and_then(|p| p.get("dependencies"))) {
                reqs.push((d, "pyproject.toml", Role::Install));
            }
            for extra in extras.iter().map(String::as_str) {
                let opt = project
                    .and_then(|p| p.get("optional-dependencies"))
                    .and_then(|o| o.get(extra));
                for d in strings(opt) {
                    reqs.push((d, "pyproject.toml", for_extra(extra)));
                }
                for d in strings(doc.get("dependency-groups").and_then(|g| g.get(extra))) {
                    reqs.push((d, "pyproject.toml", for_extra(extra)));
                }
            }
        }
    }
    if let Some(text) = read("setup.cfg") {
        for key in ["install_requires", "tests_require"] {
            for d in ini_list(&text, "options", key) {
                reqs.push((d, "setup.cfg", for_key(key)));
            }
        }
        for extra in &extras {
            for d in ini_list(&text, "options.extras_require", extra) {
                reqs.push((d, "setup.cfg", for_extra(extra)));
            }
        }
    }
    let setup_py = read("setup.py");
    if let Some(text) = &setup_py {
        for key in ["install_requires", "tests_require"] {
            for d in py_list(text, key) {
                reqs.push((d, "setup.py", for_key(key)));
            }
        }
        // `extras_require={"tests": [...]}`, a dict named elsewhere (`EXTRAS_REQUIRE =
        // {"tests": [...]}`) or `extras_require=dict(test=[...])`: the list under each
        // extra.
        for extra in &extras {
            for key in [
                format!("\"{extra}\":"),
                format!("'{extra}':"),
                extra.clone(),
            ] {
                for d in py_list(text, &key) {
                    reqs.push((d, "setup.py", for_extra(extra)));
                }
            }
        }
    }
    // Each file once, whether listed here or included by another (`-r`).
    let mut files_read = std::collections::BTreeSet::new();
    for f in REQUIREMENT_FILES {
        // A file named for development gives Dev lines whatever it is given.
        let role = if f.contains("test") {
            Role::Test
        } else {
            Role::Install
        };
        for (l, role) in requirement_lines(&read, f, role, &mut files_read) {
            reqs.push((l, "requirements", role));
        }
    }
    // Direct references only some tox environments ask for (`pytestmain:
    // git+https://…@main`): no registry serves them and no date pins them.
    let mut left_out = Vec::new();
    if let Some(text) = &tox {
        // `trio: trio` is a dependency of the environments with factor `trio` only: the
        // dependency, without its factor condition, for some tests.
        static FACTOR: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r"^[A-Za-z0-9_.,!-]+:\s+(\S.*)$").expect("fixed regex")
        });
        for d in ini_list(text, "testenv", "deps") {
            let (d, role) = match FACTOR.captures(&d) {
                Some(c) => (c[1].to_string(), Role::SomeTests),
                None => (d, Role::Test),
            };
            // `-r tests/requirements.txt` (or `-r{toxinidir}/…`): that file's lines.
            if let Some(file) = included_file(&d) {
                let file = file.strip_prefix("{toxinidir}/").unwrap_or(file);
                if !file.contains('{') {
                    for (l, role) in requirement_lines(&read, file, role, &mut files_read) {
                        reqs.push((l, tox_file, role));
                    }
                }
                continue;
            }
            if d.starts_with('-') || d.contains('{') {
                continue;
            }
            if role == Role::SomeTests && d.contains("://") {
                left_out.push(d);
                continue;
            }
            reqs.push((d, tox_file, role));
        }
    }
    // One requirement per distribution and environment marker (a project may ask for
    // one pytest on old Pythons and another on new ones): the first seen that says
    // which versions, so a bare `attrs` in setup.py gives way to the `attrs==19.1.0` the
    // requirements file pins (glom's 2020 pytest 4.1 breaks on a newer attrs); never the
    // project itself.
    let mut seen = std::collections::BTreeSet::new();
    let mut seen_with_marker: std::collections::BTreeMap<(String, String), usize> =
        std::collections::BTreeMap::new();
    let mut requirements: Vec<String> = Vec::new();
    let mut sources = std::collections::BTreeSet::new();
    let bare = |r: &str| {
        let spec = r.split(';').next().unwrap_or(r);
        !spec[requirement_name(spec).len()..].contains(['=', '<', '>', '!', '~', '@'])
    };
    // Names some declaration outside development files and extras asks for, and names
    // the project's own dependencies (not only its tests') ask for.
    let mut needed = std::collections::BTreeSet::new();
    let mut some_tests = std::collections::BTreeSet::new();
    let mut installed = std::collections::BTreeSet::new();
    for (r, from, role) in reqs {
        let name = normalize(requirement_name(&r));
        match role {
            Role::Dev => {}
            Role::SomeTests => {
                some_tests.insert(name.clone());
            }
            Role::Install | Role::Test => {
                needed.insert(name.clone());
            }
        }
        if role == Role::Install {
            installed.insert(name.clone());
        }
        let marker = r
            .split_once(';')
            .map(|(_, m)| m.split_whitespace().collect::<String>())
            .unwrap_or_default();
        if name.is_empty() || Some(&name) == project_name.as_ref() {
            continue;
        }
        match seen_with_marker.get(&(name.clone(), marker.clone())) {
            Some(&i) => {
                if bare(&requirements[i]) && !bare(&r) {
                    requirements[i] = r;
                    sources.insert(from);
                }
            }
            None => {
                seen_with_marker.insert((name.clone(), marker), requirements.len());
                seen.insert(name);
                sources.insert(from);
                requirements.push(r);
            }
        }
    }
    let nose = seen.contains("nose")
        || read("setup.cfg").is_some_and(|t| t.contains("[nosetests]"))
        || has(".noserc");
    // Pinned to its date (`python: auto`), nose itself installs and runs on the era's
    // interpreter, and the suite may import it (`nose.tools`); today's does not.
    if nose && !auto {
        requirements.retain(|r| normalize(requirement_name(r)) != "nose");
    }
    let has_pytest = seen.contains("pytest");
    if nose {
        requirements.retain(|r| normalize(requirement_name(r)) != "pytest");
        requirements.insert(0, "pytest<8".into());
        inferred.push("runner: pytest<8 (the suite uses nose, which pytest 8 dropped)".into());
    } else if !has_pytest {
        requirements.insert(0, "pytest".into());
        inferred.push("runner: pytest (it also runs unittest and plain test functions)".into());
    } else {
        inferred.push("runner: pytest, as the project declares it".into());
    }
    if sources.is_empty() {
        not_inferred.push(
            "the project's dependencies: no pyproject.toml, setup.cfg, setup.py or \
             requirements file declares any; add them to the suite's install line"
                .into(),
        );
    } else {
        inferred.push(format!(
            "dependencies from {}: {}",
            sources.into_iter().collect::<Vec<_>>().join(", "),
            requirements.join(", ")
        ));
    }
    if !left_out.is_empty() {
        inferred.push(format!(
            "left out: {} (only some tox environments ask for it, from an address no \
             registry serves and no date pins)",
            left_out.join(", ")
        ));
    }
    inferred.push(
        "selection: `min_necessary_hunks: 2`: a fix is kept when leaving out each of its \
         hunks in turn shows at least two of them needed to pass its FAIL_TO_PASS tests \
         (one more test run per hunk; a second hunk that only reformats is not needed)"
            .into(),
    );
    if auto {
        inferred.push(
            "environment: `python: auto`, per commit from its own tree: the interpreter \
             (requires-python, classifiers, tox, the commit's date), these dependencies \
             as that commit declares them pinned to its date, PYTHONPATH for its layout"
                .into(),
        );
    } else {
        if let Some(rp) = &requires_python {
            inferred.push(format!(
                "requires-python {rp} (the machine's python3 is used)"
            ));
        }
        not_inferred.push(
            "dependency versions of each commit's date: the install line takes today's \
             releases, which an old commit may not run with (`--env auto` pins them)"
                .into(),
        );
    }
    if setup_py
        .as_deref()
        .is_some_and(|t| t.contains("ext_modules") || t.contains("Extension("))
    {
        not_inferred.push(
            "C extensions (setup.py builds some): the tests import the package from the \
             working copy without building them"
                .into(),
        );
    }
    let optional = seen.difference(&needed).cloned().collect();
    // Declared for the tests only; pytest, its plugins and setuptools follow the
    // interpreter, not the tree.
    let test_libraries = needed
        .union(&some_tests)
        .filter(|n| !installed.contains(*n))
        .filter(|n| seen.contains(*n))
        .filter(|n| *n != "pytest" && !n.starts_with("pytest-") && *n != "setuptools")
        .cloned()
        .collect();
    let pyproject_text = read("pyproject.toml");
    let dynamic_deps = pyproject_text
        .as_deref()
        .and_then(|t| t.parse::<toml::Table>().ok())
        .and_then(|doc| {
            let dynamic = doc.get("project")?.get("dynamic")?.as_array()?.clone();
            Some(
                dynamic
                    .iter()
                    .any(|d| matches!(d.as_str(), Some("dependencies" | "optional-dependencies"))),
            )
        })
        .unwrap_or(false);
    let backend_file = if setup_py.is_some() {
        Some("setup.py")
    } else if dynamic_deps {
        Some("pyproject.toml")
    } else {
        None
    };
    let setup_cfg = read("setup.cfg");
    let backend = backend_file.map(|file| {
        let texts: Vec<&str> = [&setup_py, &setup_cfg, &pyproject_text]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect();
        BackendAsk {
            file: file.to_string(),
            // A `dev` extra holds development tools as often as test dependencies; its
            // static list is read above, and marked optional.
            extras: extras
                .iter()
                .filter(|e| e.as_str() != "dev")
                .filter(|e| texts.iter().any(|t| names_extra(t, e)))
                .cloned()
                .collect(),
        }
    });
    PythonInference {
        root,
        pythonpath,
        test_dirs,
        requirements,
        optional,
        test_libraries,
        backend,
        nose,
        requires_python,
        auto,
    }
}

/// Whether build file `text` names extra `e`: as a string (`"tests"`, `'tests'`), a
/// keyword (`tests=[…]`) or a key (`tests = …` in setup.cfg, pyproject.toml).
fn names_extra(text: &str, e: &str) -> bool {
    text.contains(&format!("\"{e}\""))
        || text.contains(&format!("'{e}'"))
        || text.lines().any(|l| {
            let l = l.trim_start();
            l.strip_prefix(e)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
}

impl PythonInference {
    /// The suite's YAML (`paths:` only when another language's suite is there too).
    pub(super) fn suite(&self, with_paths: bool) -> String {
        let mut s = String::from("    - name: python\n");
        if with_paths {
            let dirs: Vec<String> = if !self.root.is_empty() {
                vec![super::yq(&format!("{}/", self.root))]
            } else {
                self.test_dirs
                    .iter()
                    .map(|d| super::yq(&format!("{d}/")))
                    .collect()
            };
            if !dirs.is_empty() {
                s.push_str(&format!("      paths: [{}]\n", dirs.join(", ")));
            }
        }
        let workdir = if self.root.is_empty() {
            "."
        } else {
            &self.root
        };
        let env = if self.auto {
            s.push_str(&format!(
                "      workdir: {}\n      env:\n        # Per instance, from its base commit (docs/validate.md, `python: auto`): the\n        # interpreter, the dependencies it declares pinned to its date, PYTHONPATH for\n        # its layout. `python: {{python: \"3.11\", install: …}}` fixes one for all.\n        python: auto\n",
                super::yq(workdir),
            ));
            String::new()
        } else {
            let quoted: Vec<String> = self.requirements.iter().map(|r| sh_single(r)).collect();
            let install = format!("\"$HUNKGEN_UV\" pip install --quiet {}", quoted.join(" "));
            s.push_str(&format!(
                "      workdir: {}\n      env:\n        python:\n          install: {}\n",
                super::yq(workdir),
                super::yq(&install)
            ));
            self.pythonpath
                .as_ref()
                .map(|p| format!("PYTHONPATH={p} "))
                .unwrap_or_default()
        };
        // `python: auto` gives `-o junit_family=xunit1` to the pytests that have it.
        let junit_family = if self.auto {
            ""
        } else {
            "-o junit_family=xunit1 "
        };
        s.push_str(&format!(
            "      command: {env}python -m pytest -rA -p no:cacheprovider {junit_family}--junitxml={{report_dir}}/pytest.xml {{tests}}\n      report: pytest\n"
        ));
        s
    }
}

/// Single-quoted for `/bin/sh`.
fn sh_single(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The distribution name of a requirement (`attrs>=19; python_version<'3'` → `attrs`).
pub(crate) fn requirement_name(r: &str) -> &str {
    let end = r
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(r.len());
    &r[..end]
}

/// PEP 503's normalized name.
pub(crate) fn normalize(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// A list-valued key of an ini-style section: one item per continuation line, or
/// `;`/`,`-separated on the first line.
fn ini_list(text: &str, section: &str, key: &str) -> Vec<String> {
    let Some((first, rest)) = crate::pyconfig::ini_value(text, section, key) else {
        return Vec::new();
    };
    first
        .split([';', ','])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .chain(rest)
        .collect()
}

/// The strings of the list literal setup.py gives `key`: `key=[…]` or `key = […]` (a
/// keyword argument or an assignment), `"tests": […]` when `key` is a dict key with its
/// colon; a bare name in place of the list (`tests_require=tests_require`, `dict(test=
/// TESTS)`) is followed to the module-level list it is assigned. Items are the quoted
/// strings, so a specifier's comma (`'pytest >3,<4'`) stays inside its item.
fn py_list(text: &str, key: &str) -> Vec<String> {
    let before = match key.strip_suffix(':') {
        Some(k) => format!(r"{}\s*:", regex::escape(k)),
        None => format!(r"(?:^|[^\w.]){}\s*=", regex::escape(key)),
    };
    let Some(at) = memo_regex(&format!(r"{before}\s*(\[|[A-Za-z_]\w*)")) else {
        return Vec::new();
    };
    for caps in at.captures_iter(text) {
        let Some(value) = caps.get(1) else { continue };
        let open = if value.as_str() == "[" {
            Some(value.start())
        } else {
            let assigned = format!(r"(?m)^{}\s*=\s*\[", regex::escape(value.as_str()));
            memo_regex(&assigned)
                .and_then(|re| re.find(text))
                .map(|m| m.end() - 1)
        };
        if let Some(items) = open.and_then(|o| list_items(&text[o..])) {
            return items;
        }
    }
    Vec::new()
}

/// `pattern` compiled once per process: `py_list` asks for the same few patterns (one
/// per key and list name) for every commit of a history, and compiling them dominated a
/// warm rebuild. `None` for a pattern that does not compile.
fn memo_regex(pattern: &str) -> Option<regex::Regex> {
    type Memo = std::sync::Mutex<std::collections::HashMap<String, Option<regex::Regex>>>;
    static MEMO: std::sync::LazyLock<Memo> = std::sync::LazyLock::new(Default::default);
    let mut memo = MEMO
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    memo.entry(pattern.to_string())
        .or_insert_with(|| regex::Regex::new(pattern).ok())
        .clone()
}

/// The quoted strings of the list literal `text` starts with (`[` … `]`), comments
/// left out; `None` when it does not close.
fn list_items(text: &str) -> Option<Vec<String>> {
    static QUOTED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#""([^"\\\n]*)"|'([^'\\\n]*)'|(#[^\n]*)|(\])"#).expect("fixed regex")
    });
    let mut items = Vec::new();
    for c in QUOTED.captures_iter(text) {
        if c.get(4).is_some() {
            return Some(items);
        }
        if let Some(s) = c.get(1).or_else(|| c.get(2)) {
            let s = s.as_str().trim();
            if !s.is_empty() {
                items.push(s.to_string());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::requirements::development_file;
    use super::*;
    use std::collections::HashMap;

    fn run(files: &[(&str, &str)]) -> (PythonInference, Vec<String>, Vec<String>) {
        run_in(files, false)
    }

    fn run_in(files: &[(&str, &str)], auto: bool) -> (PythonInference, Vec<String>, Vec<String>) {
        let map: HashMap<String, String> = files
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let paths: Vec<String> = map.keys().cloned().collect();
        let read = |p: &str| map.get(p).cloned();
        let (mut i, mut n) = (Vec::new(), Vec::new());
        let inf = infer(&paths, &read, auto, &mut i, &mut n);
        (inf, i, n)
    }

    /// The build's own `package_dir` names the directory on PYTHONPATH (mako's `lib/`),
    /// in setup.py, setup.cfg or pyproject.toml; a directory that holds no package, or
    /// a mapping of one package only, changes nothing.
    #[test]
    fn a_package_dir_the_build_declares_is_put_on_pythonpath() {
        let setup_py = "from setuptools import setup\nsetup(name='mako',\n      package_dir={'':'lib'},\n      packages=['mako'])\n";
        for (file, text) in [
            ("setup.py", setup_py),
            (
                "setup.cfg",
                "[metadata]\nname = mako\n[options]\npackage_dir =\n    =lib\n",
            ),
            (
                "pyproject.toml",
                "[project]\nname = \"mako\"\n[tool.setuptools]\npackage-dir = {\"\" = \"lib\"}\n",
            ),
        ] {
            let (inf, inferred, _) = run(&[
                ("lib/mako/__init__.py", ""),
                ("test/test_a.py", ""),
                (file, text),
            ]);
            assert_eq!(inf.pythonpath.as_deref(), Some("lib"), "{file}");
            assert!(
                inferred.iter().any(|l| l.contains("lib/ on PYTHONPATH")),
                "{file}: {inferred:?}"
            );
        }
        // No package under the declared directory; one package mapped by name.
        let (inf, _, _) = run(&[("mako/__init__.py", ""), ("setup.py", setup_py)]);
        assert_eq!(inf.pythonpath, None);
        let (inf, _, _) = run(&[
            ("lib/mako/__init__.py", ""),
            ("setup.py", "setup(package_dir={'mako': 'lib/mako'})\n"),
        ]);
        assert_eq!(inf.pythonpath, None);
    }

    /// tox names a requirements file (`-r{toxinidir}/…`, `-rfile`): its lines are the
    /// tests' (pytest-cov, which `--cov` in pytest.ini needs); a factor's file is optional.
    #[test]
    fn a_requirements_file_tox_names_is_read() {
        let (inf, _, _) = run_in(
            &[
                ("pkg/__init__.py", ""),
                ("tests/test_a.py", ""),
                (
                    "tox.ini",
                    "[testenv]\ndeps =\n    -r{toxinidir}/tests/requirements.txt\n    \
                     lint: -rrequirements/lint.txt\n",
                ),
                ("tests/requirements.txt", "pytest\npytest-cov\n"),
                ("requirements/lint.txt", "flake8\n"),
            ],
            true,
        );
        let has = |r: &str| inf.requirements.iter().any(|x| x == r);
        assert!(has("pytest-cov") && has("flake8"), "{:?}", inf.requirements);
        assert!(
            inf.optional.contains(&"flake8".to_string()),
            "{:?}",
            inf.optional
        );
        assert!(
            !inf.optional.contains(&"pytest-cov".to_string()),
            "{:?}",
            inf.optional
        );
    }

    /// tox configured inside `pyproject.toml` (`legacy_tox_ini`), its test environment's
    /// deps given by reference (`{[core]deps}`): the referenced packages are the tests'.
    #[test]
    fn tox_configuration_kept_in_pyproject_is_read_through_its_references() {
        let (inf, _, _) = run_in(
            &[
                ("pkg/__init__.py", ""),
                ("tests/test_a.py", ""),
                (
                    "pyproject.toml",
                    "[project]\nname = \"pkg\"\n[tool.tox]\nlegacy_tox_ini = \"\"\"\n\
                     [core]\ndeps =\n    pytest-asyncio\n[testenv]\ndeps =\n    {[core]deps}\n\"\"\"\n",
                ),
            ],
            true,
        );
        assert!(
            inf.requirements.iter().any(|r| r == "pytest-asyncio"),
            "{:?}",
            inf.requirements
        );
    }

    #[test]
    fn pyproject_dependencies_and_test_extras_the_project_itself_left_out() {
        let (inf, inferred, _) = run(&[
            ("src/pkg/__init__.py", ""),
            ("tests/test_a.py", ""),
            (
                "pyproject.toml",
                "[project]\nname = \"My_Pkg\"\nrequires-python = \">=3.8\"\ndependencies = [\"attrs>=19\"]\n\
                 [project.optional-dependencies]\ntest = [\"pytest==9.2.0\", \"my-pkg[extra]\"]\n\
                 docs = [\"sphinx\"]\n[dependency-groups]\ndev = [\"hypothesis\"]\n",
            ),
        ]);
        assert_eq!(inf.pythonpath.as_deref(), Some("src"));
        assert_eq!(inf.test_dirs, vec!["tests"]);
        assert_eq!(
            inf.requirements,
            vec!["attrs>=19", "pytest==9.2.0", "hypothesis"]
        );
        assert_eq!(inf.requires_python.as_deref(), Some(">=3.8"));
        // One requirement per name and marker: both of a split pin are kept.
        let (split, _, _) = run(&[
            ("pkg/__init__.py", ""),
            (
                "pyproject.toml",
                "[dependency-groups]\ndev = [\"pytest>=7,<8; python_version < '3.8'\", \
                 \"pytest>=8; python_version >= '3.8'\", \"pytest>=9\"]\n",
            ),
        ]);
        assert_eq!(
            split.requirements,
            vec![
                "pytest>=7,<8; python_version < '3.8'",
                "pytest>=8; python_version >= '3.8'",
                "pytest>=9"
            ]
        );
        assert!(inferred
            .iter()
            .any(|l| l.contains("as the project declares it")));
    }

    #[test]
    fn setup_py_extras_in_a_named_dict_and_the_extras_tox_installs() {
        let (inf, _, _) = run(&[
            ("src/pkg/__init__.py", ""),
            ("tests/test_a.py", ""),
            (
                "setup.py",
                "EXTRAS_REQUIRE = {\n    'reco': ['python-dateutil>=2.7.0', 'simplejson'],\n    \
                 \"tests\": [\"pytest\", \"pytz\"],\n    'lint': ['flake8'],\n}\n\
                 setup(name='pkg', extras_require=EXTRAS_REQUIRE)\n",
            ),
            (
                "tox.ini",
                "[tox]\nenvlist = py37\n[testenv]\nextras = tests,reco\n",
            ),
        ]);
        assert_eq!(
            inf.requirements,
            vec!["pytest", "pytz", "python-dateutil>=2.7.0", "simplejson"]
        );
        // Without tox naming it, an extra of another name is not a test dependency.
        let (plain, _, _) = run(&[
            ("pkg/__init__.py", ""),
            (
                "setup.py",
                "setup(extras_require={'reco': ['simplejson'], 'test': ['mock']})\n",
            ),
        ]);
        assert_eq!(plain.requirements, vec!["pytest", "mock"]);
    }

    #[test]
    fn setup_py_lists_by_name_and_dict_keywords_keep_their_commas() {
        // PyJWT's setup.py of 2017: the list assigned to a name, passed by that name
        // and by `dict(test=...)`; a specifier with a comma; a comment in the list.
        let (inf, _, _) = run(&[
            ("jwt/__init__.py", ""),
            ("tests/test_a.py", ""),
            (
                "setup.py",
                "tests_require = [\n    'pytest >3,<4',  # the era's\n    'pytest-cov',\n    \"pytest-runner\",\n]\n\
                 needs_pytest = set(('pytest', 'test')).intersection(sys.argv)\n\
                 setup(\n    name='PyJWT',\n    tests_require=tests_require,\n    extras_require=dict(\n        \
                 test=tests_require,\n        crypto=['cryptography >= 1.4'],\n    ),\n)\n",
            ),
        ]);
        assert_eq!(
            inf.requirements,
            vec!["pytest >3,<4", "pytest-cov", "pytest-runner"]
        );
        assert_eq!(
            py_list("x = compute()\nsetup(tests_require=x)\n", "tests_require"),
            Vec::<String>::new()
        );
        assert_eq!(
            py_list("setup(latest=['a'])\n", "test"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_pin_in_a_requirements_file_wins_over_a_bare_name_in_setup_py() {
        // glom in 2020: setup.py asks for `attrs`, requirements.txt pins the attrs its
        // pytest 4.1 runs with; a later bare name or a second pin changes nothing.
        let (inf, _, _) = run(&[
            ("glom/__init__.py", ""),
            ("glom/test/test_a.py", ""),
            (
                "setup.py",
                "setup(name='glom', install_requires=['face>=20.1.1', 'attrs', 'boltons'])\n",
            ),
            (
                "requirements.txt",
                "attrs==19.1.0\nboltons>=20.2.0\npytest==4.1.1\nattrs==20.0\nface\n",
            ),
        ]);
        assert_eq!(
            inf.requirements,
            vec![
                "face>=20.1.1",
                "attrs==19.1.0",
                "boltons>=20.2.0",
                "pytest==4.1.1"
            ]
        );
    }

    #[test]
    fn a_nose_era_suite_gets_pytest_before_8_and_setup_files_are_read() {
        let (inf, _, not) = run(&[
            ("pkg/__init__.py", ""),
            ("pkg/tests/test_a.py", ""),
            (
                "setup.py",
                "setup(name='pkg',\n      install_requires=['six', \"simplejson>=2\"],\n      tests_require=['nose'],\n      ext_modules=[])\n",
            ),
            ("requirements-test.txt", "# testing\nmock==1.0  # old\n-r requirements.txt\n"),
            ("tox.ini", "[tox]\nenvlist = py27\n[testenv]\ndeps =\n    coverage\n    {env:X}\n    trio: trio>=0.11\n"),
        ]);
        assert_eq!(inf.pythonpath, None);
        assert!(inf.nose);
        assert_eq!(
            inf.requirements,
            vec![
                "pytest<8",
                "six",
                "simplejson>=2",
                "mock==1.0",
                "coverage",
                "trio>=0.11"
            ]
        );
        assert!(not.iter().any(|l| l.contains("C extensions")), "{not:?}");
        let suite = inf.suite(false);
        assert!(
            suite.contains(r#"--quiet ''pytest<8'' ''six'' ''simplejson>=2'' ''mock==1.0''"#),
            "{suite}"
        );
        assert!(suite.contains("command: python -m pytest -rA"), "{suite}");
        // Pinned to its date (`python: auto`), nose itself is installed: tests import it.
        let (auto, _, _) = run_in(
            &[
                ("pkg/__init__.py", ""),
                ("setup.py", "setup(name='pkg', tests_require=['nose'])\n"),
            ],
            true,
        );
        assert_eq!(auto.requirements, vec!["pytest<8", "nose"]);
        let suite = auto.suite(false);
        assert!(suite.contains("        python: auto\n"), "{suite}");
        assert!(!suite.contains("pip install"), "{suite}");
    }

    #[test]
    fn a_project_in_a_subdirectory_is_its_own_root() {
        let (inf, _, _) = run(&[
            ("README.md", ""),
            ("python/acme_x/__init__.py", ""),
            ("python/tests/__init__.py", ""),
            ("python/tests/test_stats.py", ""),
            ("java/src/main/java/org/A.java", ""),
        ]);
        assert_eq!(inf.root, "python");
        assert_eq!(inf.test_dirs, vec!["tests"]);
        let suite = inf.suite(true);
        assert!(
            suite.contains("paths: ['python/']\n      workdir: 'python'"),
            "{suite}"
        );
        // A src layout's root is above src/.
        assert_eq!(
            project_root(&["src/pkg/__init__.py".into(), "tests/test_a.py".into()]),
            ""
        );
        assert_eq!(
            project_root(&["lib/src/pkg/__init__.py".into(), "lib/setup.py".into()]),
            "lib"
        );
    }

    #[test]
    fn requirements_declared_only_for_development_are_optional() {
        let (inf, _, _) = run(&[
            (
                "pyproject.toml",
                "[project]\nname = \"p\"\ndependencies = [\"six\"]\n\
                 [project.optional-dependencies]\ntest = [\"pytest\", \"mock\"]\n\
                 dev = [\"black\", \"mock\"]\n",
            ),
            ("requirements-dev.txt", "Sphinx==1.2\nsix\nzest.releaser\n"),
            ("tests/test_p.py", "import p\n"),
        ]);
        // six and mock are also asked for outside development declarations.
        assert_eq!(inf.optional, vec!["black", "sphinx", "zest-releaser"]);
        // mock is for the tests only; six is the project's own; pytest follows the
        // interpreter.
        assert_eq!(inf.test_libraries, vec!["mock"]);
        assert!(development_file("requirements/dev.txt"));
        assert!(development_file("requirements-docs.txt"));
        assert!(development_file("requirements_release.txt"));
        assert!(!development_file("requirements-test.txt"));
        assert!(!development_file("requirements.txt"));
    }

    #[test]
    fn a_tox_dependency_under_a_factor_is_optional_and_a_forge_address_is_left_out() {
        let (inf, said, _) = run(&[
            ("pkg/__init__.py", ""),
            ("tests/test_a.py", "import pkg\n"),
            (
                "tox.ini",
                "[tox]\nenvlist = py{36,37}-{native,libs}, py310-pytestmain\n[testenv]\ndeps =\n    \
                 nose\n    libs: demjson\n    !native: ujson>=1.35\n    \
                 pytestmain: git+https://github.com/pytest-dev/pytest.git@main\n",
            ),
        ]);
        // Every environment has nose; only some have demjson and ujson.
        assert_eq!(inf.optional, vec!["demjson", "ujson"]);
        assert!(
            inf.requirements.contains(&"demjson".to_string()),
            "{:?}",
            inf.requirements
        );
        assert!(inf.requirements.contains(&"ujson>=1.35".to_string()));
        // Still the tests' libraries, of the tree's era when present.
        assert_eq!(inf.test_libraries, vec!["demjson", "nose", "ujson"]);
        // The forge address is no requirement, and init says so.
        assert!(
            !inf.requirements.iter().any(|r| r.contains("://")),
            "{:?}",
            inf.requirements
        );
        assert!(
            said.iter().any(|l| l
                == "left out: git+https://github.com/pytest-dev/pytest.git@main (only some tox \
                    environments ask for it, from an address no registry serves and no date pins)"),
            "{said:?}"
        );
    }

    #[test]
    fn names_normalize_as_pep_503_says() {
        assert_eq!(normalize("My_Pkg.Name"), "my-pkg-name");
        assert_eq!(requirement_name("attrs>=19; python_version<'3'"), "attrs");
        assert_eq!(requirement_name("zope.interface"), "zope.interface");
    }
}
