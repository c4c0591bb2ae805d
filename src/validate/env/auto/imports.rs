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

/// The imports of `text` a test cannot run without, each with its line (0-based): those
/// outside `try:`/`except`/`if`/`else` blocks. An import under such a guard is optional
/// by the file's own choice (`try: import webob` … `except ImportError:` skips a test;
/// `if PY2: import mock`), so it never makes a distribution to install.
pub fn unguarded_imports(text: &str) -> Vec<(usize, String)> {
    const GUARDS: [&str; 6] = ["try", "except", "finally", "if", "elif", "else"];
    let mut out = Vec::new();
    // Open blocks: (indent of their header, whether they are a guard).
    let mut blocks: Vec<(usize, bool)> = Vec::new();
    let mut continued = false;
    for (i, line) in text.lines().enumerate() {
        let body = line.trim_start();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        // A line continuing the previous one (inside brackets or after `\`) opens and
        // closes nothing.
        let was_continued = continued;
        continued = body.ends_with('\\') || body.ends_with(',') || body.ends_with('(');
        if was_continued {
            continue;
        }
        let indent = line.len() - body.len();
        while blocks.last().is_some_and(|(at, _)| *at >= indent) {
            blocks.pop();
        }
        let keyword: String = body
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if body.trim_end().ends_with(':') && !keyword.is_empty() {
            blocks.push((indent, GUARDS.contains(&keyword.as_str())));
            continue;
        }
        if blocks.iter().any(|(_, guard)| *guard) {
            continue;
        }
        let mut found = BTreeSet::new();
        imported_modules(line, &mut found);
        out.extend(found.into_iter().map(|m| (i, m)));
    }
    out
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
    let modules = added_imports(changes);
    droppable.retain(|d| !provides(d, &modules));
}

/// The standard library's top-level modules: Python 3's (`sys.stdlib_module_names` of
/// 3.11, public names) and the Python 2 names Python 3 renamed or removed, so a Python 2
/// import is never taken for a missing distribution.
const STDLIB: [&str; 280] = [
    "__builtin__",
    "__future__",
    "__main__",
    "abc",
    "aifc",
    "antigravity",
    "anydbm",
    "argparse",
    "array",
    "ast",
    "asynchat",
    "asyncio",
    "asyncore",
    "atexit",
    "audioop",
    "base64",
    "BaseHTTPServer",
    "bdb",
    "binascii",
    "bisect",
    "builtins",
    "bz2",
    "calendar",
    "cgi",
    "CGIHTTPServer",
    "cgitb",
    "chunk",
    "cmath",
    "cmd",
    "code",
    "codecs",
    "codeop",
    "collections",
    "colorsys",
    "commands",
    "compileall",
    "compiler",
    "concurrent",
    "ConfigParser",
    "configparser",
    "contextlib",
    "contextvars",
    "Cookie",
    "cookielib",
    "copy",
    "copy_reg",
    "copyreg",
    "cPickle",
    "cProfile",
    "crypt",
    "cStringIO",
    "csv",
    "ctypes",
    "curses",
    "dataclasses",
    "datetime",
    "dbhash",
    "dbm",
    "decimal",
    "difflib",
    "dircache",
    "dis",
    "distutils",
    "doctest",
    "DocXMLRPCServer",
    "dumbdbm",
    "dummy_thread",
    "email",
    "encodings",
    "ensurepip",
    "enum",
    "errno",
    "exceptions",
    "faulthandler",
    "fcntl",
    "filecmp",
    "fileinput",
    "fnmatch",
    "fpformat",
    "fractions",
    "ftplib",
    "functools",
    "future_builtins",
    "gc",
    "gdbm",
    "genericpath",
    "getopt",
    "getpass",
    "gettext",
    "glob",
    "graphlib",
    "grp",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "hotshot",
    "html",
    "htmlentitydefs",
    "htmllib",
    "HTMLParser",
    "http",
    "httplib",
    "idlelib",
    "ihooks",
    "imaplib",
    "imghdr",
    "imp",
    "importlib",
    "imputil",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "lib2to3",
    "linecache",
    "locale",
    "logging",
    "lzma",
    "mailbox",
    "mailcap",
    "markupbase",
    "marshal",
    "math",
    "md5",
    "mimetools",
    "mimetypes",
    "MimeWriter",
    "mimify",
    "mmap",
    "modulefinder",
    "msilib",
    "msvcrt",
    "multifile",
    "multiprocessing",
    "mutex",
    "netrc",
    "new",
    "nis",
    "nntplib",
    "nt",
    "ntpath",
    "nturl2path",
    "numbers",
    "opcode",
    "operator",
    "optparse",
    "os",
    "ossaudiodev",
    "pathlib",
    "pdb",
    "pickle",
    "pickletools",
    "pipes",
    "pkgutil",
    "platform",
    "plistlib",
    "popen2",
    "poplib",
    "posix",
    "posixfile",
    "posixpath",
    "pprint",
    "profile",
    "pstats",
    "pty",
    "pwd",
    "py_compile",
    "pyclbr",
    "pydoc",
    "pydoc_data",
    "pyexpat",
    "Queue",
    "queue",
    "quopri",
    "random",
    "re",
    "readline",
    "repr",
    "reprlib",
    "resource",
    "rfc822",
    "rlcompleter",
    "robotparser",
    "runpy",
    "sched",
    "secrets",
    "select",
    "selectors",
    "sets",
    "sgmllib",
    "sha",
    "shelve",
    "shlex",
    "shutil",
    "signal",
    "SimpleHTTPServer",
    "SimpleXMLRPCServer",
    "site",
    "smtpd",
    "smtplib",
    "sndhdr",
    "socket",
    "socketserver",
    "SocketServer",
    "spwd",
    "sqlite3",
    "sre_compile",
    "sre_constants",
    "sre_parse",
    "ssl",
    "stat",
    "statistics",
    "statvfs",
    "string",
    "StringIO",
    "stringprep",
    "struct",
    "subprocess",
    "sunau",
    "symtable",
    "sys",
    "sysconfig",
    "syslog",
    "tabnanny",
    "tarfile",
    "telnetlib",
    "tempfile",
    "termios",
    "textwrap",
    "this",
    "thread",
    "threading",
    "time",
    "timeit",
    "tkinter",
    "Tkinter",
    "tkMessageBox",
    "token",
    "tokenize",
    "tomllib",
    "trace",
    "traceback",
    "tracemalloc",
    "tty",
    "turtle",
    "turtledemo",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "urllib2",
    "urlparse",
    "user",
    "UserDict",
    "UserList",
    "UserString",
    "uu",
    "uuid",
    "venv",
    "warnings",
    "wave",
    "weakref",
    "webbrowser",
    "whichdb",
    "winreg",
    "winsound",
    "wsgiref",
    "xdrlib",
    "xml",
    "xmlrpc",
    "xmlrpclib",
    "zipapp",
    "zipfile",
    "zipimport",
    "zlib",
    "zoneinfo",
];

/// Modules every environment `python: auto` builds has (the runner and the installer's
/// own), or that no index serves as a distribution of that name (platform bindings,
/// namespaces shared by many distributions).
const NEVER_ADDED: [&str; 22] = [
    "pytest",
    "_pytest",
    "py",
    "pluggy",
    "setuptools",
    "pkg_resources",
    "pip",
    "wheel",
    "google",
    "win32api",
    "win32con",
    "win32com",
    "pywintypes",
    "winerror",
    "java",
    "clr",
    "js",
    "gi",
    "wx",
    "objc",
    "Foundation",
    "AppKit",
];

/// The distribution of an import name that is not its own (an undeclared import is
/// installed under it): the aliases above read backwards, and a few more.
const DISTRIBUTION_OF: [(&str, &str); 10] = [
    ("dateutil", "python-dateutil"),
    ("jwt", "pyjwt"),
    ("dotenv", "python-dotenv"),
    ("serial", "pyserial"),
    ("zmq", "pyzmq"),
    ("git", "gitpython"),
    ("memcache", "python-memcached"),
    ("ldap", "python-ldap"),
    ("magic", "python-magic"),
    ("markdown", "markdown"),
];

/// Whether `path` (relative to the project) is a test file or test support: a `.py`
/// file under a `test`, `tests` or `testing` directory, a `test_*.py`, `*_test.py`,
/// `tests.py` or `conftest.py`.
pub fn is_test_file(path: &str) -> bool {
    if !may_serve_tests(path) {
        return false;
    }
    let mut parts: Vec<&str> = path.split('/').collect();
    let name = parts.pop().unwrap_or_default();
    parts.iter().any(|d| {
        matches!(
            d.to_ascii_lowercase().as_str(),
            "test" | "tests" | "testing"
        )
    }) || name.starts_with("test_")
        || name.ends_with("_test.py")
        || matches!(name, "tests.py" | "test.py" | "conftest.py")
}

/// The module names a tree holds itself, normalized: every directory and every `.py`
/// file's stem, at any depth (a test importing `helpers` finds `tests/helpers.py`).
pub fn local_modules(paths: &[String]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for p in paths {
        let mut parts: Vec<&str> = p.split('/').collect();
        let name = parts.pop().unwrap_or_default();
        out.extend(parts.iter().map(|d| normalize(d)));
        if let Some(stem) = name
            .strip_suffix(".py")
            .or_else(|| name.strip_suffix(".so"))
        {
            out.insert(normalize(stem.split('.').next().unwrap_or(stem)));
        }
    }
    out
}

/// Distributions to install for modules the tests import (`modules`) that no
/// requirement of `declared` provides, the standard library lacks and the tree does
/// not hold (`local`): a test suite of 2009 importing `simplejson` it never declared.
/// Named by the import (`dateutil` gives `python-dateutil`); sorted.
pub fn undeclared(
    modules: &BTreeSet<String>,
    declared: &[String],
    local: &BTreeSet<String>,
) -> Vec<String> {
    static STD: std::sync::LazyLock<BTreeSet<String>> = std::sync::LazyLock::new(|| {
        STDLIB
            .iter()
            .chain(&NEVER_ADDED)
            .map(|m| normalize(m))
            .collect()
    });
    let names: Vec<String> = declared
        .iter()
        .map(|r| normalize(crate::init::requirement_name(r.trim())))
        .collect();
    let mut out: Vec<String> = modules
        .iter()
        .filter(|m| !m.starts_with('-') && !m.starts_with('_') && m.len() > 1)
        .filter(|m| !STD.contains(*m) && !local.contains(*m))
        .filter(|m| {
            let one: BTreeSet<String> = std::iter::once((*m).clone()).collect();
            !names.iter().any(|d| provides(d, &one))
        })
        .map(|m| {
            DISTRIBUTION_OF
                .iter()
                .map(|(module, dist)| (normalize(module), *dist))
                .chain(
                    IMPORT_ALIASES
                        .iter()
                        .map(|(dist, module)| (normalize(module), *dist)),
                )
                .find(|(module, _)| module == m)
                .map(|(_, dist)| normalize(dist))
                .unwrap_or_else(|| m.clone())
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The modules the added lines of `changes` import in Python files without a guard
/// ([`unguarded_imports`], read on each hunk's new side: its context and added lines).
pub fn added_required_imports(changes: &[&crate::diff::Patch]) -> BTreeSet<String> {
    let mut modules = BTreeSet::new();
    for file in changes.iter().flat_map(|p| &p.files) {
        if !file.path().ends_with(".py") {
            continue;
        }
        for hunk in &file.hunks {
            let new_side: Vec<_> = hunk
                .lines
                .iter()
                .filter(|l| l.kind != crate::diff::LineKind::Removed)
                .collect();
            let text: String = new_side
                .iter()
                .map(|l| {
                    let s = String::from_utf8_lossy(&l.content).into_owned();
                    if s.ends_with('\n') {
                        s
                    } else {
                        s + "\n"
                    }
                })
                .collect();
            for (i, m) in unguarded_imports(&text) {
                if new_side
                    .get(i)
                    .is_some_and(|l| l.kind == crate::diff::LineKind::Added)
                {
                    modules.insert(m);
                }
            }
        }
    }
    modules
}

/// The modules the added lines of `changes` import in Python files.
pub fn added_imports(changes: &[&crate::diff::Patch]) -> BTreeSet<String> {
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
    modules
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

    #[test]
    fn imports_under_a_try_or_an_if_are_optional_and_others_required() {
        let text =
            "import os\nimport simplejson\ntry:\n    from webob.multidict import MultiDict\n\
                    \n    has_webob = True\nexcept ImportError:\n    import fallbacklib\n\
                    if sys.version_info < (3,):\n    import mock\nelse:\n    import other\n\
                    from foo import (\n    a,\n    b,\n)\n\
                    class T:\n    def test_it(self):\n        import lazylib\n\
                    \n        try:\n            import deeper\n        except ImportError:\n\
                    \x20           pass\n        import after_try\nimport last\n";
        let got: Vec<String> = unguarded_imports(text)
            .into_iter()
            .map(|(_, m)| m)
            .collect();
        let want: Vec<String> = ["os", "simplejson", "foo", "lazylib", "after-try", "last"]
            .iter()
            .map(|s| normalize(s))
            .collect();
        assert_eq!(got, want);
        let lines: Vec<usize> = unguarded_imports(text)
            .into_iter()
            .map(|(i, _)| i)
            .collect();
        assert_eq!(lines[..2], [0, 1]);
    }

    #[test]
    fn test_imports_nothing_declares_are_named_by_their_distributions() {
        let mut m = BTreeSet::new();
        imported_modules(
            "import os, simplejson\nimport mock\nfrom StringIO import StringIO\n\
             import yaml\nfrom dateutil import tz\nimport helpers\nimport oldlib.core\n\
             import pytest\nimport _speedups\nimport attr\nimport google.appengine\n",
            &mut m,
        );
        let local = local_modules(&["oldlib/core.py".to_string(), "tests/helpers.py".to_string()]);
        let declared = vec![
            "attrs>=17".to_string(),
            "mock; python_version<'3.3'".to_string(),
        ];
        assert_eq!(
            undeclared(&m, &declared, &local),
            vec!["python-dateutil", "pyyaml", "simplejson"]
        );
        assert!(is_test_file("tests/helpers.py") && is_test_file("conftest.py"));
        assert!(is_test_file("pkg/test_x.py") && is_test_file("pkg/x_test.py"));
        assert!(!is_test_file("pkg/core.py") && !is_test_file("docs/tests/conf.py"));
    }
}
