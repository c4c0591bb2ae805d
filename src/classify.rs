//! Classifies repository paths as code, test or other, per recipe rules; with roles on
//! (git sources), code is narrowed to source under detected source roots.

use crate::model::SkipReason;
use serde::{Deserialize, Serialize};

/// What a changed file is, because only code hunks count toward multi-hunk selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileClass {
    /// Source code in one of the recipe's code extensions, outside test directories.
    Code,
    /// A file under a test directory or named like a test.
    Test,
    /// Anything else (docs, resources, build files).
    Other,
}

/// Path classification rules, so every source splits patches the same way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Classifier {
    /// File extensions (without dot) that count as code, e.g. `java`, `py`.
    pub code_extensions: Vec<String>,
    /// Path segments that mark a test directory (`test`, `tests`, `testing`).
    pub test_dirs: Vec<String>,
    /// File-name markers of tests: a name starting with `test_` or ending in `Test.java`
    /// etc. Matched as prefixes (`test_`) or suffixes (`Test`, `_test`) of the stem.
    pub test_name_prefixes: Vec<String>,
    /// Suffixes of a file stem that mark a test file.
    pub test_name_suffixes: Vec<String>,
    /// Detect file roles from the fix's tree (source roots, non-code directories,
    /// generated files); default: on for git sources, off for Defects4J (HUNK4J keeps its
    /// path rules).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roles: Option<bool>,
    /// Directories holding the library's source (`src`, `lib/mypkg`); when set they
    /// replace the detection (Python packages, `src/main/java`, Java `package`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub source_roots: Vec<String>,
    /// Globs of code-language files that are code whatever the other role rules say.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub code: Vec<String>,
    /// Globs of files that are never code (reason `recipe_not_code`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_code: Vec<String>,
    /// Globs of generated files (reason `generated`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub generated: Vec<String>,
}

/// A changed file's role, because only code hunks count and only test files go to
/// `test_patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Library source: its hunks can count.
    Code,
    /// A test file: it goes to `test_patch`.
    Test,
    /// Anything else, with why it is not code.
    Other(SkipReason),
}

/// What role detection reads from the fix's tree (its parent's for a deletion), so the
/// rules stay independent of git.
pub trait TreeView {
    /// Whether a file exists at this repository-relative path.
    fn exists(&self, path: &str) -> bool;
    /// The content of the changed file itself (`None` when unreadable).
    fn content(&self) -> Option<&[u8]>;
    /// Another file of the tree (a build file that names single-module code); `None`
    /// when absent, unreadable, or the view cannot read others.
    fn read(&self, _path: &str) -> Option<Vec<u8>> {
        None
    }
}

/// Whether a single-file module at the root (or under `src/`), `name` without `.py`, is
/// declared as the distribution's code: setup.py's `py_modules=[…]`, setup.cfg's
/// `py_modules =`, pyproject's `py-modules = […]`, flit's `[tool.flit.module] name`.
fn declared_module(name: &str, tree: &dyn TreeView) -> bool {
    let quoted =
        |list: &str| list.contains(&format!("'{name}'")) || list.contains(&format!("\"{name}\""));
    let text = |f: &str| {
        tree.read(f)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let after = |t: &str, key: &str, len: usize| -> Vec<String> {
        t.match_indices(key)
            .map(|(i, _)| t[i..].chars().take(len).collect())
            .collect()
    };
    if let Some(t) = text("setup.py") {
        if after(&t, "py_modules", 300).iter().any(|a| {
            let list = a.split(']').next().unwrap_or_default();
            quoted(list)
        }) {
            return true;
        }
    }
    if let Some(t) = text("setup.cfg") {
        if let Some((first, rest)) = crate::pyconfig::ini_value(&t, "options", "py_modules") {
            if std::iter::once(first)
                .chain(rest)
                .flat_map(|l| {
                    l.split([',', ' '])
                        .map(|m| m.trim().to_string())
                        .collect::<Vec<_>>()
                })
                .any(|m| m == name)
            {
                return true;
            }
        }
    }
    if let Some(t) = text("pyproject.toml") {
        if after(&t, "py-modules", 300).iter().any(|a| {
            let list = a.split(']').next().unwrap_or_default();
            quoted(list)
        }) {
            return true;
        }
        if t.contains("[tool.flit.module]")
            && after(&t, "[tool.flit.module]", 200)
                .iter()
                .any(|a| quoted(a))
        {
            return true;
        }
    }
    false
}

/// Top-level directories whose code-language files are not library code.
const NON_CODE_DIRS: &[(&str, SkipReason)] = &[
    ("docs", SkipReason::Docs),
    ("doc", SkipReason::Docs),
    ("examples", SkipReason::Examples),
    ("example", SkipReason::Examples),
    ("benchmarks", SkipReason::Benchmarks),
    ("benchmark", SkipReason::Benchmarks),
    ("bench", SkipReason::Benchmarks),
    ("scripts", SkipReason::Scripts),
];

/// Directory names of vendored copies of other projects, at any depth.
const VENDORED_DIRS: &[&str] = &["vendor", "_vendor", "vendored", "third_party", "thirdparty"];

impl Default for Classifier {
    fn default() -> Self {
        Classifier {
            code_extensions: vec!["java".into(), "py".into()],
            test_dirs: vec!["test".into(), "tests".into(), "testing".into()],
            test_name_prefixes: vec!["test_".into()],
            test_name_suffixes: vec![
                "Test".into(),
                "Tests".into(),
                "_test".into(),
                "TestCase".into(),
            ],
            roles: None,
            source_roots: Vec::new(),
            code: Vec::new(),
            not_code: Vec::new(),
            generated: Vec::new(),
        }
    }
}

impl Classifier {
    /// Classify a repository-relative path (forward slashes).
    pub fn classify(&self, path: &str) -> FileClass {
        let mut segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let file = segments.pop().unwrap_or("");
        let (stem, ext) = match file.rfind('.') {
            Some(i) if i > 0 => (&file[..i], &file[i + 1..]),
            _ => (file, ""),
        };
        let in_test_dir = segments
            .iter()
            .any(|s| self.test_dirs.iter().any(|t| t == s));
        // A single-file suite (`tests.py`, `test.py`); not `testing.py`, often the
        // testing helpers a library ships (numpy.testing).
        let test_name = matches!(stem, "test" | "tests")
            || self
                .test_name_prefixes
                .iter()
                .any(|p| stem.starts_with(p.as_str()))
            || self
                .test_name_suffixes
                .iter()
                .any(|p| stem.ends_with(p.as_str()));
        if in_test_dir || (test_name && self.is_code_ext(ext)) {
            FileClass::Test
        } else if self.is_code_ext(ext) {
            FileClass::Code
        } else {
            FileClass::Other
        }
    }

    fn is_code_ext(&self, ext: &str) -> bool {
        self.code_extensions.iter().any(|e| e == ext)
    }

    /// Whether role detection is on (unset means off; the recipe plan sets it per source).
    pub fn roles_on(&self) -> bool {
        self.roles.unwrap_or(false)
    }

    /// The role of a changed file. Rules, first match wins: the path class (test, or not a
    /// code extension: other); `code` globs; `not_code` and `generated` globs; `setup.py`,
    /// `conftest.py`; a vendored directory at any depth; a top-level (or under `src/`)
    /// `docs/`, `examples/`, `benchmarks/`, `scripts/`; a generated-file marker in the
    /// first five lines; then the source roots (recipe `source_roots`, else detected).
    pub fn role(&self, path: &str, tree: &dyn TreeView) -> Role {
        match self.classify(path) {
            FileClass::Test => return Role::Test,
            FileClass::Other => return Role::Other(SkipReason::NotCode),
            FileClass::Code => {}
        }
        if !self.roles_on() || self.code.iter().any(|g| glob_match(g, path)) {
            return Role::Code;
        }
        if self.not_code.iter().any(|g| glob_match(g, path)) {
            return Role::Other(SkipReason::RecipeNotCode);
        }
        if self.generated.iter().any(|g| glob_match(g, path)) {
            return Role::Other(SkipReason::Generated);
        }
        let mut segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let file = segments.pop().unwrap_or("");
        match file {
            "setup.py" => return Role::Other(SkipReason::SetupScript),
            "conftest.py" => return Role::Other(SkipReason::Conftest),
            _ => {}
        }
        if segments.iter().any(|s| VENDORED_DIRS.contains(s)) {
            return Role::Other(SkipReason::Vendored);
        }
        let top = match segments.as_slice() {
            ["src", next, ..] => Some(*next),
            [first, ..] => Some(*first),
            [] => None,
        };
        if let Some(top) = top {
            if let Some((_, reason)) = NON_CODE_DIRS.iter().find(|(d, _)| *d == top) {
                return Role::Other(*reason);
            }
            if top.ends_with("-examples") || top.ends_with("_examples") {
                return Role::Other(SkipReason::Examples);
            }
        }
        let content = tree.content();
        if content.is_some_and(is_generated) {
            return Role::Other(SkipReason::Generated);
        }
        let dir = segments.join("/");
        let in_root = if !self.source_roots.is_empty() {
            self.source_roots.iter().any(|r| {
                let r = r.trim_matches('/');
                r.is_empty() || dir == r || dir.starts_with(&format!("{r}/"))
            })
        } else if file.ends_with(".py") {
            let init = if dir.is_empty() {
                "__init__.py".to_string()
            } else {
                format!("{dir}/__init__.py")
            };
            tree.exists(&init)
                || ((dir.is_empty() || dir == "src")
                    && declared_module(file.trim_end_matches(".py"), tree))
        } else if file.ends_with(".java") {
            path.starts_with("src/main/java/")
                || path.contains("/src/main/java/")
                || content
                    .and_then(crate::syntax::java_package)
                    .is_some_and(|p| {
                        let p = p.replace('.', "/");
                        dir == p || dir.ends_with(&format!("/{p}"))
                    })
        } else {
            true
        };
        if in_root {
            Role::Code
        } else {
            Role::Other(SkipReason::OutsideSourceRoot)
        }
    }
}

/// A generated-file marker (`@generated`, `DO NOT EDIT`) in the first five lines.
fn is_generated(content: &[u8]) -> bool {
    let end = memchr::memchr_iter(b'\n', content)
        .nth(4)
        .unwrap_or(content.len());
    let head = &content[..end.min(1024).min(content.len())];
    let head = String::from_utf8_lossy(head);
    head.contains("@generated") || head.contains("DO NOT EDIT")
}

/// Whether `path` matches a glob: `*` and `?` within one segment, `**` across segments
/// (`docs/**`, `**/_pb2.py`, `src/*/gen/*.py`). A glob without `/` matches the file name
/// at any depth.
pub fn glob_match(glob: &str, path: &str) -> bool {
    let glob = glob.trim_start_matches("./");
    if !glob.contains('/') {
        let name = path.rsplit('/').next().unwrap_or(path);
        return segment_match(glob.as_bytes(), name.as_bytes());
    }
    let g: Vec<&str> = glob.split('/').collect();
    let p: Vec<&str> = path.split('/').collect();
    segments_match(&g, &p)
}

fn segments_match(g: &[&str], p: &[&str]) -> bool {
    match g.split_first() {
        None => p.is_empty(),
        Some((&"**", rest)) => (0..=p.len()).any(|i| segments_match(rest, &p[i..])),
        Some((first, rest)) => p.split_first().is_some_and(|(head, tail)| {
            segment_match(first.as_bytes(), head.as_bytes()) && segments_match(rest, tail)
        }),
    }
}

fn segment_match(g: &[u8], s: &[u8]) -> bool {
    match g.split_first() {
        None => s.is_empty(),
        Some((b'*', rest)) => (0..=s.len()).any(|i| segment_match(rest, &s[i..])),
        Some((b'?', rest)) => !s.is_empty() && segment_match(rest, &s[1..]),
        Some((c, rest)) => s.first() == Some(c) && segment_match(rest, &s[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_typical_layouts() {
        let c = Classifier::default();
        assert_eq!(c.classify("src/main/java/a/B.java"), FileClass::Code);
        assert_eq!(c.classify("src/test/java/a/BTest.java"), FileClass::Test);
        assert_eq!(c.classify("pkg/util.py"), FileClass::Code);
        assert_eq!(c.classify("pkg/test_util.py"), FileClass::Test);
        assert_eq!(c.classify("tests/helpers.py"), FileClass::Test);
        assert_eq!(c.classify("tests.py"), FileClass::Test);
        assert_eq!(c.classify("pkg/test.py"), FileClass::Test);
        assert_eq!(c.classify("pkg/testing.py"), FileClass::Code);
        assert_eq!(c.classify("pkg/testsuite.py"), FileClass::Code);
        assert_eq!(c.classify("README.md"), FileClass::Other);
        assert_eq!(
            c.classify("src/main/resources/x.properties"),
            FileClass::Other
        );
        assert_eq!(c.classify("src/main/java/a/Testable.java"), FileClass::Code);
    }

    struct View<'a> {
        files: &'a [&'a str],
        content: &'a str,
    }

    impl TreeView for View<'_> {
        fn exists(&self, path: &str) -> bool {
            self.files.contains(&path)
        }
        fn content(&self) -> Option<&[u8]> {
            Some(self.content.as_bytes())
        }
    }

    /// A tree whose build files can be read.
    struct Built<'a> {
        files: &'a [(&'a str, &'a str)],
    }

    impl TreeView for Built<'_> {
        fn exists(&self, path: &str) -> bool {
            self.files.iter().any(|(p, _)| *p == path)
        }
        fn content(&self) -> Option<&[u8]> {
            Some(b"")
        }
        fn read(&self, path: &str) -> Option<Vec<u8>> {
            self.files
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, t)| t.as_bytes().to_vec())
        }
    }

    #[test]
    fn a_single_module_the_build_declares_is_code() {
        let c = Classifier {
            roles: Some(true),
            ..Classifier::default()
        };
        let code = |files: &[(&str, &str)], path: &str| c.role(path, &Built { files });
        let setup = [(
            "setup.py",
            "setup(name='itsdangerous',\n      py_modules=['itsdangerous'],\n)",
        )];
        assert_eq!(code(&setup, "itsdangerous.py"), Role::Code);
        assert_eq!(
            code(&setup, "tools.py"),
            Role::Other(SkipReason::OutsideSourceRoot)
        );
        let cfg = [("setup.cfg", "[options]\npy_modules =\n    six\n    other\n")];
        assert_eq!(code(&cfg, "six.py"), Role::Code);
        assert_eq!(code(&cfg, "src/other.py"), Role::Code);
        let toml = [(
            "pyproject.toml",
            "[tool.setuptools]\npy-modules = [\"attr_x\"]\n",
        )];
        assert_eq!(code(&toml, "attr_x.py"), Role::Code);
        let flit = [("pyproject.toml", "[tool.flit.module]\nname = \"mod_y\"\n")];
        assert_eq!(code(&flit, "mod_y.py"), Role::Code);
        // Deeper single files are not single-module distributions.
        assert_eq!(
            code(&setup, "lib/itsdangerous.py"),
            Role::Other(SkipReason::OutsideSourceRoot)
        );
    }

    #[test]
    fn roles_table() {
        let files = ["pkg/__init__.py", "src/lib/__init__.py", "docs/__init__.py"];
        let mut c = Classifier {
            roles: Some(true),
            ..Classifier::default()
        };
        let rows: &[(&str, &str, Role)] = &[
            ("pkg/core.py", "", Role::Code),
            ("src/lib/core.py", "", Role::Code),
            (
                "loose/core.py",
                "",
                Role::Other(SkipReason::OutsideSourceRoot),
            ),
            ("tool.py", "", Role::Other(SkipReason::OutsideSourceRoot)),
            ("setup.py", "", Role::Other(SkipReason::SetupScript)),
            ("conftest.py", "", Role::Other(SkipReason::Conftest)),
            ("docs/conf.py", "", Role::Other(SkipReason::Docs)),
            ("docs/x.py", "", Role::Other(SkipReason::Docs)),
            ("examples/a.py", "", Role::Other(SkipReason::Examples)),
            (
                "typing-examples/a.py",
                "",
                Role::Other(SkipReason::Examples),
            ),
            ("benchmarks/b.py", "", Role::Other(SkipReason::Benchmarks)),
            ("bench/b.py", "", Role::Other(SkipReason::Benchmarks)),
            ("scripts/s.py", "", Role::Other(SkipReason::Scripts)),
            ("pkg/_vendor/six.py", "", Role::Other(SkipReason::Vendored)),
            (
                "pkg/gen.py",
                "# @generated by protoc\n",
                Role::Other(SkipReason::Generated),
            ),
            ("pkg/core.pyi", "", Role::Other(SkipReason::NotCode)),
            ("README.md", "", Role::Other(SkipReason::NotCode)),
            ("tests/test_core.py", "", Role::Test),
            ("m/src/main/java/a/B.java", "", Role::Code),
            ("java/a/B.java", "package a;\nclass B {}", Role::Code),
            (
                "java/a/B.java",
                "package b;\nclass B {}",
                Role::Other(SkipReason::OutsideSourceRoot),
            ),
        ];
        for (path, content, want) in rows {
            let view = View {
                files: &files,
                content,
            };
            assert_eq!(c.role(path, &view), *want, "{path}");
        }
        c.source_roots = vec!["loose".into()];
        c.not_code = vec!["loose/skip_*.py".into()];
        c.code = vec!["tool.py".into()];
        c.generated = vec!["**/*_pb2.py".into()];
        let view = View {
            files: &files,
            content: "",
        };
        assert_eq!(c.role("loose/core.py", &view), Role::Code);
        assert_eq!(
            c.role("pkg/core.py", &view),
            Role::Other(SkipReason::OutsideSourceRoot)
        );
        assert_eq!(
            c.role("loose/skip_me.py", &view),
            Role::Other(SkipReason::RecipeNotCode)
        );
        assert_eq!(c.role("tool.py", &view), Role::Code);
        assert_eq!(
            c.role("loose/a/x_pb2.py", &view),
            Role::Other(SkipReason::Generated)
        );
        c.roles = Some(false);
        assert_eq!(c.role("setup.py", &view), Role::Code);
    }

    #[test]
    fn globs() {
        assert!(glob_match("docs/**", "docs/a/b.py"));
        assert!(glob_match("**/gen/*.py", "a/b/gen/x.py"));
        assert!(glob_match("*_pb2.py", "a/x_pb2.py"));
        assert!(!glob_match("src/*.py", "src/a/b.py"));
        assert!(glob_match("src/?.py", "src/a.py"));
    }
}
