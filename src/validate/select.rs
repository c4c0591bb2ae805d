//! Which test files a suite runs for an instance, so that a selection never silently
//! becomes "the whole suite" or hands the runner files it does not collect as tests.
//!
//! - A suite's `workdir` is a path prefix of the test patch's files: `.`, `./` and the
//!   empty string all mean the repository root (`./tests/x.py` is `tests/x.py`).
//! - A pytest suite names only the files pytest itself collects: a `.py` file matching
//!   `python_files` from the configuration file pytest would read in the base tree
//!   (`pytest.ini`, `.pytest.ini`, `pyproject.toml`, `tox.ini`, `setup.cfg`, nearest the
//!   test files first), `test_*.py` and `*_test.py` by default. Samples, fixtures and data
//!   under `tests/` are not named: pytest imports every file it is given as a test module.
//! - A tree that configures nose (`[nosetests]` in `setup.cfg`, `nose.cfg`, `.noserc`)
//!   or runs it (`nosetests`, `python -m nose`, `setup.py nosetests` in `tox.ini`'s
//!   commands or a `Makefile`) also names the files nose collects (its `testMatch`,
//!   `(?:^|[\b_./-])[Tt]est` by default, so `parser_tests.py`, `tests_main.py`): such a
//!   suite runs under pytest, which collects a file it is given by name whatever
//!   `python_files` says.
//! - A `.py` file that defines a `unittest` test case (a class whose bases name a
//!   `…TestCase`) is a test module whatever its name: trees run by a hand-written runner
//!   (`alltests.py`, `runtests.py` importing `lexer`, `validators`) name their modules
//!   freely, and pytest collects a file it is given by name (run.rs reads the file as the
//!   base tree and the test patch give it; `conftest.py` and `__init__.py` are never
//!   named).
//! - A text file matching pytest's doctest globs (`test*.txt` by default) is a test
//!   file when the test patch shows a doctest example in it (run.rs checks the patch).
//! - A test patch that changes only a test package's `__init__.py` or a `conftest.py`
//!   (a mixin of test methods, a fixture) runs the test files pytest collects below it,
//!   which are what the change reaches.
//! - A collection error that names a file neither selected nor a `conftest.py` above a
//!   selected file does not make the run an infrastructure failure.

/// The suite's working directory as a prefix of repository paths: empty for the root
/// (`""`, `"."`, `"./"`), else `"dir/"` with any leading `./` dropped.
pub fn workdir_prefix(workdir: &str) -> String {
    let mut w = workdir.trim();
    while let Some(rest) = w.strip_prefix("./") {
        w = rest.trim_start_matches('/');
    }
    let w = w.trim_end_matches('/');
    if w.is_empty() || w == "." {
        String::new()
    } else {
        format!("{w}/")
    }
}

/// pytest's default `python_files`.
pub const DEFAULT_PYTHON_FILES: [&str; 2] = ["test_*.py", "*_test.py"];

/// The configuration files pytest looks for in one directory, in its order, with the
/// section that makes a file count (`None`: the file counts even when empty).
const CONFIG_FILES: [(&str, Option<&str>); 5] = [
    ("pytest.ini", None),
    (".pytest.ini", None),
    ("pyproject.toml", Some("tool.pytest")),
    ("tox.ini", Some("pytest")),
    ("setup.cfg", Some("tool:pytest")),
];

/// nose's default `testMatch`: "test" or "Test" at the start of a name or after `_`, `.`,
/// `/` or `-` (Python's `[\b]` in its class is a backspace, which no file name holds).
pub const NOSE_TEST_MATCH: &str = r"(?:^|[_./-])[Tt]est";

/// Where pytest's configuration was found and the `python_files` patterns it gives.
#[derive(Debug, Clone)]
pub struct PythonFiles {
    /// The configuration file (repository-relative), if any.
    pub config: Option<String>,
    /// The patterns (the default when the file sets none).
    pub patterns: Vec<String>,
    /// nose's `testMatch`, when the tree configures nose: the files it matches are
    /// test modules too.
    pub nose: Option<regex::Regex>,
    /// pytest's `--doctest-glob` patterns from the configuration's `addopts`, else its
    /// default `test*.txt`: text files pytest runs as doctests.
    pub doctest_globs: Vec<String>,
}

impl PythonFiles {
    /// Whether `path` is a text file (not Python) whose name pytest's doctest globs match:
    /// pytest runs the examples (`>>>` lines) of such a file as one doctest item.
    pub fn doctest_file(&self, path: &str) -> bool {
        let base = path.rsplit('/').next().unwrap_or(path);
        !base.ends_with(".py") && self.doctest_globs.iter().any(|g| fnmatch(g, base))
    }

    /// Whether pytest collects `path` (repository-relative) as a test module.
    pub fn collects(&self, path: &str) -> bool {
        if !path.ends_with(".py") {
            return false;
        }
        let base = path.rsplit('/').next().unwrap_or(path);
        // A single-file suite is run by naming it, which pytest collects whatever
        // python_files says.
        if matches!(base, "tests.py" | "test.py") {
            return true;
        }
        if self.nose.as_ref().is_some_and(|m| m.is_match(base)) {
            return true;
        }
        self.patterns.iter().any(|p| {
            if p.contains('/') {
                // pytest's fnmatch_ex: a relative pattern with a separator matches the
                // end of the path.
                fnmatch(
                    &format!("*/{}", p.trim_start_matches('/')),
                    &format!("/{path}"),
                )
            } else {
                fnmatch(p, base)
            }
        })
    }
}

/// pytest's `python_files` for test files under the directories of `test_files`: the
/// first configuration file found walking up from their common directory to the root,
/// read with `read` (a repository-relative path to its text, `None` when absent).
pub fn python_files(test_files: &[&str], read: impl Fn(&str) -> Option<String>) -> PythonFiles {
    let dirs = dirs_up(test_files);
    let nose = nose_match(&dirs, &read);
    for dir in &dirs {
        for (name, section) in CONFIG_FILES {
            let path = in_dir(dir, name);
            let Some(text) = read(&path) else { continue };
            let found = match (name, section) {
                ("pyproject.toml", _) => toml_python_files(&text),
                (_, Some(section)) => ini_python_files(&text, section),
                (_, None) => Some(ini_python_files(&text, "pytest").unwrap_or_default()),
            };
            if let Some(patterns) = found {
                return PythonFiles {
                    config: Some(path),
                    patterns: if patterns.is_empty() {
                        default_patterns()
                    } else {
                        patterns
                    },
                    nose,
                    doctest_globs: doctest_globs(&addopts(name, section, &text)),
                };
            }
        }
    }
    PythonFiles {
        config: None,
        patterns: default_patterns(),
        nose,
        doctest_globs: doctest_globs(""),
    }
}

/// pytest's `addopts` in a configuration file (`name`, its `section`), as one line.
fn addopts(name: &str, section: Option<&str>, text: &str) -> String {
    if name == "pyproject.toml" {
        let Ok(doc) = text.parse::<toml::Table>() else {
            return String::new();
        };
        let pytest = doc.get("tool").and_then(|t| t.get("pytest"));
        let table = pytest.and_then(|p| p.get("ini_options")).or(pytest);
        return match table.and_then(|t| t.get("addopts")) {
            Some(toml::Value::String(s)) => s.clone(),
            Some(toml::Value::Array(items)) => items
                .iter()
                .filter_map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            _ => String::new(),
        };
    }
    crate::pyconfig::ini_value(text, section.unwrap_or("pytest"), "addopts")
        .map(|(first, rest)| {
            std::iter::once(first)
                .chain(rest)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

/// The `--doctest-glob` patterns of `addopts` (`--doctest-glob=*.rst`, `--doctest-glob
/// '*.txt'`), or pytest's default `test*.txt` when it gives none.
fn doctest_globs(addopts: &str) -> Vec<String> {
    let words: Vec<&str> = addopts.split_whitespace().collect();
    let mut globs: Vec<String> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let value = match w.strip_prefix("--doctest-glob") {
            Some(rest) if rest.starts_with('=') => Some(&rest[1..]),
            Some("") => words.get(i + 1).copied(),
            _ => None,
        };
        if let Some(v) = value.map(|v| v.trim_matches(|c| c == '\'' || c == '"')) {
            if !v.is_empty() {
                globs.push(v.to_string());
            }
        }
    }
    if globs.is_empty() {
        globs.push("test*.txt".to_string());
    }
    globs
}

/// The directories from the common directory of `files` up to the root (`""`), nearest
/// first: where pytest and nose look for their configuration.
fn dirs_up(files: &[&str]) -> Vec<String> {
    let mut dir = common_dir(files);
    let mut out = vec![dir.clone()];
    while !dir.is_empty() {
        dir = dir
            .rsplit_once('/')
            .map(|(up, _)| up.to_string())
            .unwrap_or_default();
        out.push(dir.clone());
    }
    out
}

/// `name` in repository directory `dir` (`""`: the root).
fn in_dir(dir: &str, name: &str) -> String {
    match dir.is_empty() {
        true => name.to_string(),
        false => format!("{dir}/{name}"),
    }
}

/// [`NOSE_TEST_MATCH`], compiled once.
fn default_nose_match() -> Option<regex::Regex> {
    static RE: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    RE.get_or_init(|| regex::Regex::new(NOSE_TEST_MATCH).ok())
        .clone()
}

/// Whether `text` (a `tox.ini` or `Makefile`) runs nose: a line, not a comment, that
/// calls `nosetests`, `python -m nose` or `setup.py nosetests`.
fn runs_nose(text: &str) -> bool {
    static RE: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?:^|[\s;&|(=@-])(?:nosetests|python[\d.]*\s+-m\s+nose)(?:\s|$)").ok()
    });
    text.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .any(|l| RE.as_ref().is_some_and(|re| re.is_match(l)))
}

/// nose's `testMatch` when one of `dirs` (nearest first) configures nose: a
/// `[nosetests]` section in `setup.cfg`, `nose.cfg` or `.noserc` (its `match` or
/// `testMatch` when set and readable as a regex, else the default), a
/// `nose.cfg`/`.noserc` without one, or a `tox.ini` or `Makefile` that runs nose (the
/// default).
fn nose_match(dirs: &[String], read: &impl Fn(&str) -> Option<String>) -> Option<regex::Regex> {
    for dir in dirs {
        for name in ["setup.cfg", "nose.cfg", ".noserc", "tox.ini", "Makefile"] {
            let Some(text) = read(&in_dir(dir, name)) else {
                continue;
            };
            let configured = text.lines().any(|l| l.trim() == "[nosetests]");
            if !configured && name == "setup.cfg" {
                continue;
            }
            if matches!(name, "tox.ini" | "Makefile") && !runs_nose(&text) {
                continue;
            }
            let set = ["testmatch", "testMatch", "match"].iter().find_map(|k| {
                crate::pyconfig::ini_value(&text, "nosetests", k)
                    .map(|(first, _)| first)
                    .filter(|m| !m.trim().is_empty())
            });
            return set
                .and_then(|m| regex::Regex::new(m.trim()).ok())
                .or_else(default_nose_match);
        }
    }
    None
}

fn default_patterns() -> Vec<String> {
    DEFAULT_PYTHON_FILES.iter().map(|s| s.to_string()).collect()
}

/// Whether Python source `text` defines a `unittest` test case: a class whose bases name
/// a `…TestCase` (`unittest.TestCase`, `TestCase`, `IsolatedAsyncioTestCase`). pytest
/// collects such classes from a file it is given by name, whatever the file is called,
/// so a module an old tree's own runner lists (`test/lexer.py`) can be run by name.
pub fn defines_test_case(text: &str) -> bool {
    static RE: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    RE.get_or_init(|| regex::Regex::new(r"(?m)^[ \t]*class[ \t]+\w+[ \t]*\(([^)]*)\)[ \t]*:").ok())
        .as_ref()
        .is_some_and(|re| {
            re.captures_iter(text).any(|c| {
                c.get(1).is_some_and(|bases| {
                    bases.as_str().split(',').any(|b| {
                        b.trim()
                            .rsplit('.')
                            .next()
                            .is_some_and(|n| n.ends_with("TestCase"))
                    })
                })
            })
        })
}

/// Whether `path` is a test package's `__init__.py` or a `conftest.py`: code the tests
/// share, never a test module of its own.
pub fn support_file(path: &str) -> bool {
    matches!(path.rsplit('/').next(), Some("__init__.py" | "conftest.py"))
}

/// The files pytest collects below each `__init__.py` or `conftest.py` of `touched`
/// (repository paths), from `tree` (every file of the base tree), sorted: what a change
/// to a test package's shared code reaches when no test file itself changed.
pub fn reached_by_support_files(
    touched: &[&str],
    pf: &PythonFiles,
    tree: &[String],
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in touched.iter().filter(|t| support_file(t)) {
        let dir = t.rsplit_once('/').map_or("", |(d, _)| d);
        let under = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        out.extend(
            tree.iter()
                .filter(|p| p.starts_with(&under) && pf.collects(p))
                .cloned(),
        );
    }
    out.sort();
    out.dedup();
    out
}

/// The test modules of `tree` (as `pf` collects them; `read` gives a repository path's
/// text) that name a data file of `touched`: what a test patch that changes only data
/// (pycodestyle's `testing/data/E50.py`, read file by file by `tests/test_data.py`)
/// reaches. A module names a file by its name in a string (`'E50.py'`,
/// `"data/E50.py"`), or by its directory: as one path string (`"testing/data"`) or as
/// successive string literals on one line (`os.path.join(ROOT, 'testing', 'data')`),
/// taken relative to the module's own directory when the data lies below it (`'data'`
/// beside `__file__`).
pub fn reached_by_data_files(
    touched: &[&str],
    pf: &PythonFiles,
    tree: &[String],
    read: impl Fn(&str) -> Option<String>,
) -> Vec<String> {
    let data: Vec<&str> = touched
        .iter()
        .copied()
        .filter(|t| !pf.collects(t) && !support_file(t))
        .collect();
    if data.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<String> = tree
        .iter()
        .filter(|m| pf.collects(m) && !data.contains(&m.as_str()))
        .filter(|m| read(m).is_some_and(|text| data.iter().any(|d| names_data_file(&text, m, d))))
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Whether the text of test module `module` names data file `data` (both repository
/// paths); see [`reached_by_data_files`].
fn names_data_file(text: &str, module: &str, data: &str) -> bool {
    let (dir, name) = data.rsplit_once('/').unwrap_or(("", data));
    // `s` inside a string: after a quote or `/`, before a quote (or `/` for a directory).
    let quoted = |s: &str, closes: &[char]| {
        ['\'', '"', '/'].iter().any(|open| {
            closes
                .iter()
                .any(|close| text.contains(&format!("{open}{s}{close}")))
        })
    };
    if quoted(name, &['\'', '"']) {
        return true;
    }
    let module_dir = module.rsplit_once('/').map_or("", |(d, _)| d);
    let rel = match dir.strip_prefix(module_dir) {
        Some(r) if !module_dir.is_empty() && (r.is_empty() || r.starts_with('/')) => {
            r.trim_start_matches('/')
        }
        _ => dir,
    };
    if rel.is_empty() {
        return false;
    }
    if quoted(rel, &['\'', '"', '/']) {
        return true;
    }
    let parts: Vec<&str> = rel.split('/').collect();
    text.lines().any(|line| {
        let mut rest = line;
        parts.iter().all(|p| {
            let at = [format!("'{p}'"), format!("\"{p}\"")]
                .iter()
                .filter_map(|lit| rest.find(lit.as_str()).map(|i| i + lit.len()))
                .min();
            match at {
                Some(i) => {
                    rest = &rest[i..];
                    true
                }
                None => false,
            }
        })
    })
}

/// The longest directory all of `files` are under (empty: the root).
fn common_dir(files: &[&str]) -> String {
    let dirs: Vec<Vec<&str>> = files
        .iter()
        .map(|f| {
            let mut parts: Vec<&str> = f.split('/').filter(|s| !s.is_empty()).collect();
            parts.pop();
            parts
        })
        .collect();
    let Some(first) = dirs.first() else {
        return String::new();
    };
    let mut n = first.len();
    for d in &dirs[1..] {
        n = n.min(first.iter().zip(d).take_while(|(a, b)| a == b).count());
    }
    first[..n].join("/")
}

/// `python_files` from an ini-style file's `[section]`: `Some` when the section exists
/// (an empty list when it sets no patterns), `None` when it does not.
fn ini_python_files(text: &str, section: &str) -> Option<Vec<String>> {
    let (first, rest) = crate::pyconfig::ini_value(text, section, "python_files")?;
    Some(
        std::iter::once(first.as_str())
            .chain(rest.iter().map(String::as_str))
            .flat_map(str::split_whitespace)
            .map(str::to_string)
            .collect(),
    )
}

/// `python_files` from `pyproject.toml`: `[tool.pytest.ini_options]` (a string of
/// patterns or a list) or pytest 9's native `[tool.pytest]`; `None` when neither exists
/// or the file is not TOML.
fn toml_python_files(text: &str) -> Option<Vec<String>> {
    let doc: toml::Table = text.parse().ok()?;
    let pytest = doc.get("tool")?.get("pytest")?;
    let table = pytest.get("ini_options").unwrap_or(pytest);
    Some(match table.get("python_files") {
        Some(toml::Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
        Some(toml::Value::Array(items)) => items
            .iter()
            .filter_map(|v| v.as_str())
            .flat_map(|s| s.split_whitespace())
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    })
}

/// Python's `fnmatch` (case-sensitive): `*` any run (including `/`), `?` one character,
/// `[seq]` and `[!seq]` one character of (not of) a set.
pub fn fnmatch(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Iterative matching with one backtrack point for the last `*`.
    let (mut pi, mut ni) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
                continue;
            }
            Some('?') => Some(pi + 1),
            Some('[') => match class_match(&p, pi, n[ni]) {
                Some((true, end)) => Some(end),
                Some((false, _)) => None,
                None => (n[ni] == '[').then_some(pi + 1),
            },
            Some(c) => (*c == n[ni]).then_some(pi + 1),
            None => None,
        };
        match step {
            Some(next) => {
                pi = next;
                ni += 1;
            }
            None => match star {
                Some((sp, sn)) => {
                    pi = sp + 1;
                    ni = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// Whether `c` is in the set starting at `p[start] == '['`: (matched, index after `]`),
/// or `None` when the set is not closed (then `[` is literal, as in Python).
fn class_match(p: &[char], start: usize, c: char) -> Option<(bool, usize)> {
    let mut i = start + 1;
    let negate = p.get(i) == Some(&'!');
    if negate {
        i += 1;
    }
    let first = i;
    let mut matched = false;
    while i < p.len() && (p[i] != ']' || i == first) {
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|e| *e != ']') {
            if p[i] <= c && c <= p[i + 2] {
                matched = true;
            }
            i += 3;
        } else {
            if p[i] == c {
                matched = true;
            }
            i += 1;
        }
    }
    (i < p.len()).then_some((matched != negate, i + 1))
}

/// The collection errors that concern a run whose selection is `selected` (paths
/// relative to the suite's workdir): those naming a selected file or a `conftest.py` in
/// a directory above one, and those naming no Python file at all (pytest's "N errors
/// during collection") when some error of the first kind exists or no error names a
/// file. An empty selection keeps every error.
pub fn relevant_collection_errors(errors: &[String], selected: &[String]) -> Vec<String> {
    if selected.is_empty() {
        return errors.to_vec();
    }
    let concerns = |path: &str| {
        selected.iter().any(|s| s == path)
            || path.strip_suffix("conftest.py").is_some_and(|dir| {
                (dir.is_empty() || dir.ends_with('/'))
                    && selected.iter().any(|s| s.starts_with(dir))
            })
    };
    let mut named_any = false;
    let mut relevant = Vec::new();
    let mut generic = Vec::new();
    for e in errors {
        match py_paths(e).as_slice() {
            [] => generic.push(e.clone()),
            paths => {
                named_any = true;
                if paths.iter().any(|p| concerns(p)) {
                    relevant.push(e.clone());
                }
            }
        }
    }
    if !relevant.is_empty() || !named_any {
        relevant.extend(generic);
    }
    relevant
}

/// The `.py` paths a message names (words ending in `.py`, a `::` suffix dropped).
fn py_paths(message: &str) -> Vec<&str> {
    message
        .split(|c: char| c.is_whitespace() || c == '"' || c == '\'' || c == ',')
        .map(|w| w.split("::").next().unwrap_or(w))
        .map(|w| {
            w.trim_end_matches([':', ';', ')'])
                .trim_start_matches(['(', '.', '/'])
        })
        .filter(|w| w.ends_with(".py") && w.len() > 3)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn workdir_dot_is_the_root() {
        for w in ["", ".", "./", " . ", ".//"] {
            assert_eq!(workdir_prefix(w), "", "{w:?}");
        }
        assert_eq!(workdir_prefix("python"), "python/");
        assert_eq!(workdir_prefix("./python/"), "python/");
        assert_eq!(workdir_prefix("a/b"), "a/b/");
    }

    #[test]
    fn fnmatch_is_pythons() {
        assert!(fnmatch("test_*.py", "test_x.py"));
        assert!(fnmatch("*_test.py", "x_test.py"));
        assert!(!fnmatch("test_*.py", "sample.py"));
        assert!(!fnmatch("test_*.py", "test_x.pyc"));
        assert!(fnmatch("*", "anything/at/all"));
        assert!(fnmatch("t?st.py", "test.py"));
        assert!(fnmatch("check[0-9].py", "check3.py"));
        assert!(!fnmatch("check[!0-9].py", "check3.py"));
        assert!(fnmatch("a[.py", "a[.py"));
        assert!(fnmatch("*/tests/*.py", "/pkg/tests/a.py"));
    }

    /// Repository paths as the tree lists them.
    fn owned(paths: &[&str]) -> Vec<String> {
        paths.iter().map(|s| s.to_string()).collect()
    }

    fn files(map: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = map
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |p| m.get(p).cloned()
    }

    #[test]
    fn default_patterns_without_a_config() {
        let pf = python_files(&["tests/test_a.py"], files(&[]));
        assert_eq!(pf.config, None);
        assert!(pf.collects("tests/test_a.py"));
        assert!(pf.collects("tests/a_test.py"));
        assert!(!pf.collects("tests/typing/sample.py"));
        assert!(!pf.collects("tests/conftest.py"));
        // A single-file suite, run by naming it.
        assert!(pf.collects("tests.py"));
        assert!(pf.collects("pkg/test.py"));
        assert!(!pf.collects("tests/data/test_input.txt"));
    }

    #[test]
    fn the_nearest_config_file_wins_in_pytests_order() {
        let read = files(&[
            ("setup.cfg", "[metadata]\nname = x\n[tool:pytest]\npython_files = check_*.py\n"),
            ("tox.ini", "[tox]\nenvlist = py27\n"),
            (
                "pyproject.toml",
                "[tool.black]\nline-length = 1\n[tool.pytest.ini_options]\npython_files = [\"t_*.py\", \"*_t.py\"]\n",
            ),
        ]);
        // pyproject.toml comes before tox.ini (no [pytest]) and setup.cfg in one directory.
        let pf = python_files(&["tests/t_a.py", "tests/sub/t_b.py"], &read);
        assert_eq!(pf.config.as_deref(), Some("pyproject.toml"));
        assert_eq!(pf.patterns, vec!["t_*.py", "*_t.py"]);
        // A pytest.ini nearer the tests wins, even without python_files.
        let read = files(&[
            ("tests/pytest.ini", "[pytest]\naddopts = -q\n"),
            ("setup.cfg", "[tool:pytest]\npython_files = check_*.py\n"),
        ]);
        let pf = python_files(&["tests/test_a.py"], &read);
        assert_eq!(pf.config.as_deref(), Some("tests/pytest.ini"));
        assert_eq!(pf.patterns, DEFAULT_PYTHON_FILES.to_vec());
        // setup.cfg's [tool:pytest] with a continued value.
        let read = files(&[(
            "setup.cfg",
            "[tool:pytest]\npython_files =\n    check_*.py\n    *_spec.py\ntestpaths = t\n",
        )]);
        let pf = python_files(&["t/check_a.py"], &read);
        assert_eq!(pf.patterns, vec!["check_*.py", "*_spec.py"]);
        assert!(pf.collects("t/a_spec.py"));
        assert!(!pf.collects("t/test_a.py"));
        // pytest 9's native [tool.pytest], a string value.
        let read = files(&[(
            "pyproject.toml",
            "[tool.pytest]\npython_files = \"it_*.py\"\n",
        )]);
        assert_eq!(python_files(&["it_a.py"], &read).patterns, vec!["it_*.py"]);
    }

    /// A class whose bases name a `…TestCase` makes a module a test module (old trees'
    /// `test/lexer.py` under a hand-written runner); a plain class, a pytest-style
    /// `class TestX:`, a base merely named `Test…` or a `TestCase` in a comment do not.
    #[test]
    fn a_module_defining_a_unittest_case_is_a_test_module() {
        for yes in [
            "import unittest\nclass LexerTest(unittest.TestCase):\n    def test_a(self): pass\n",
            "from unittest import TestCase\n\nclass T(object, TestCase) :\n    pass\n",
            "class A(unittest.IsolatedAsyncioTestCase):\n    pass\n",
            "if True:\n    class Nested(django.test.TestCase):\n        pass\n",
        ] {
            assert!(defines_test_case(yes), "{yes}");
        }
        for no in [
            "class TestLexer:\n    def test_a(self): pass\n",
            "class Helper(object):\n    pass\n",
            "class Sample(TestBase):\n    pass\n",
            "# class X(unittest.TestCase):\nx = 1\n",
            "class TestCaseFactory(object):\n    pass\n",
            "",
        ] {
            assert!(!defines_test_case(no), "{no}");
        }
    }

    /// A tree that configures nose names what nose collects (`parser_tests.py`, as
    /// arrow's 2013-2019 trees do), by its own `match` when set; without nose, pytest's
    /// patterns alone.
    #[test]
    fn a_nose_configured_tree_names_the_files_nose_collects() {
        let nose_cfg = "[nosetests]\nwhere = tests\nverbosity = 2\n";
        let pf = python_files(
            &["tests/parser_tests.py"],
            files(&[("setup.cfg", nose_cfg)]),
        );
        for yes in [
            "tests/parser_tests.py",
            "tests/test_a.py",
            "tests/Test-b.py",
            "tests/util.test.py",
        ] {
            assert!(pf.collects(yes), "{yes}");
        }
        for no in [
            "tests/conftest.py",
            "tests/utils.py",
            "tests/contest.py",
            "tests/parser_tests.txt",
        ] {
            assert!(!pf.collects(no), "{no}");
        }
        let pf = python_files(
            &["tests/parser_tests.py"],
            files(&[("setup.cfg", "[nosetests]\nmatch = ^check\n")]),
        );
        assert!(pf.collects("tests/check_a.py") && !pf.collects("tests/parser_tests.py"));
        let pf = python_files(&["tests/parser_tests.py"], files(&[("tests/.noserc", "")]));
        assert!(pf.collects("tests/parser_tests.py"));
        // A tree whose tox.ini or Makefile runs nose (tqdm's 2016-2020 tox.ini, arrow's
        // Makefile), whatever its setup.cfg says.
        let tox =
            "[testenv]\ndeps =\n    nose\ncommands =\n    nosetests --with-coverage -d -v tqdm/\n";
        let make = "test:\n\tpython -m nose tests/\n";
        let setup = "python setup.py nosetests";
        for (name, text) in [("tox.ini", tox), ("Makefile", make), ("Makefile", setup)] {
            let pf = python_files(
                &["tqdm/tests/tests_main.py"],
                files(&[
                    (name, text),
                    ("setup.cfg", "[bdist_wheel]\nuniversal = 1\n"),
                ]),
            );
            assert!(pf.collects("tqdm/tests/tests_main.py"), "{name}: {text}");
        }
        for quiet in [
            "[testenv]\ndeps = nose\ncommands = pytest\n",
            "# nosetests tests/\ntest:\n\tpytest\n",
            "test:\n\tpytest --nosetests-compat\n",
        ] {
            let pf = python_files(&["tests/parser_tests.py"], files(&[("tox.ini", quiet)]));
            assert!(!pf.collects("tests/parser_tests.py"), "{quiet}");
        }
        // No nose: pytest's own patterns.
        let pf = python_files(
            &["tests/parser_tests.py"],
            files(&[("setup.cfg", "[bdist_wheel]\nuniversal = 1\n")]),
        );
        assert!(!pf.collects("tests/parser_tests.py"));
    }

    #[test]
    fn a_test_packages_shared_code_reaches_the_test_files_below_it() {
        let pf = python_files(&["tests/__init__.py"], files(&[]));
        let tree = owned(&[
            "tests/__init__.py",
            "tests/test_lru.py",
            "tests/sub/test_ttl.py",
            "tests/helpers.py",
            "other/test_x.py",
        ]);
        assert_eq!(
            reached_by_support_files(&["tests/__init__.py"], &pf, &tree),
            vec!["tests/sub/test_ttl.py", "tests/test_lru.py"]
        );
        assert_eq!(
            reached_by_support_files(&["tests/sub/conftest.py"], &pf, &tree),
            vec!["tests/sub/test_ttl.py"]
        );
        assert!(reached_by_support_files(&["tests/helpers.py"], &pf, &tree).is_empty());
    }

    #[test]
    fn a_patch_of_data_files_reaches_the_modules_that_read_them() {
        let pf = python_files(&["tests/test_data.py"], files(&[]));
        let tree = owned(&[
            "tests/test_data.py",
            "tests/test_api.py",
            "tests/test_shell.py",
            "tests/test_other.py",
            "tests/sub/test_near.py",
            "tests/sub/data/case.json",
            "testing/data/E50.py",
        ]);
        let text = |p: &str| -> Option<String> {
            Some(
                match p {
                    // The directory as successive literals on one line.
                    "tests/test_data.py" => {
                        "for f in os.listdir(os.path.join(ROOT, 'testing', 'data')):\n"
                    }
                    // The file by name, in a path string.
                    "tests/test_api.py" => "E50 = ROOT + \"/testing/data/E50.py\"\n",
                    // The components, but not in order on one line.
                    "tests/test_shell.py" => "x = 'data'\ny = 'testing'\n",
                    // A longer name that starts like the directory is not it.
                    "tests/test_other.py" => "x = 'testing/database'\n",
                    // Below the module's own directory: relative to it.
                    "tests/sub/test_near.py" => "open(os.path.join(HERE, 'data', 'x'))\n",
                    _ => return None,
                }
                .to_string(),
            )
        };
        assert_eq!(
            reached_by_data_files(&["testing/data/E50.py"], &pf, &tree, text),
            vec!["tests/test_api.py", "tests/test_data.py"]
        );
        assert_eq!(
            reached_by_data_files(&["tests/sub/data/case.json"], &pf, &tree, text),
            vec!["tests/sub/test_near.py"]
        );
        // A test module of the patch is no data file.
        assert!(reached_by_data_files(&["tests/test_other.py"], &pf, &tree, text).is_empty());
    }

    #[test]
    fn collection_errors_outside_the_selection_do_not_count() {
        let sel = vec!["tests/test_a.py".to_string()];
        let errs = vec![
            "tests/typing/sample.py".to_string(),
            "1 error during collection".to_string(),
        ];
        assert!(relevant_collection_errors(&errs, &sel).is_empty());
        let errs = vec![
            "ERROR tests/test_a.py - ImportError: cannot import name 'x'".to_string(),
            "tests/other/test_b.py".to_string(),
            "2 errors during collection".to_string(),
        ];
        assert_eq!(
            relevant_collection_errors(&errs, &sel),
            vec![errs[0].clone(), errs[2].clone()]
        );
        // A conftest.py above a selected file concerns it; one beside another does not.
        let errs = vec!["tests/conftest.py".to_string()];
        assert_eq!(relevant_collection_errors(&errs, &sel), errs);
        let errs = vec!["docs/conftest.py".to_string()];
        assert!(relevant_collection_errors(&errs, &sel).is_empty());
        // An error naming no file stands on its own.
        let errs = vec!["1 error during collection".to_string()];
        assert_eq!(relevant_collection_errors(&errs, &sel), errs);
        // No selection (the whole suite): every error counts.
        assert_eq!(relevant_collection_errors(&errs, &[]), errs);
    }

    #[test]
    fn doctest_text_files_follow_the_configured_globs() {
        let pf = python_files(&["tests/test_a.py"], |_| None);
        assert!(pf.doctest_file("tests/test_response.txt"));
        assert!(!pf.doctest_file("tests/response.txt") && !pf.doctest_file("tests/test_a.py"));
        for (name, text) in [
            (
                "setup.cfg",
                "[tool:pytest]\naddopts = -q --doctest-glob='*.rst'\n",
            ),
            (
                "pytest.ini",
                "[pytest]\naddopts =\n    --doctest-glob *.rst\n",
            ),
            (
                "pyproject.toml",
                "[tool.pytest.ini_options]\naddopts = [\"--doctest-glob=*.rst\"]\n",
            ),
        ] {
            let pf = python_files(&["tests/test_a.py"], |p| {
                (p == name).then(|| text.to_string())
            });
            assert!(pf.doctest_file("docs/usage.rst"), "{name}");
            assert!(
                !pf.doctest_file("tests/test_response.txt"),
                "{name}: replaces the default"
            );
        }
    }
}
