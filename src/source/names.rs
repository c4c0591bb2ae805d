//! Names from input that become paths: instance ids (log, run and state directories are
//! named by them), test names (files selected for a run) and file paths (in patches and
//! SWE-bench rows). Each is checked where it enters, so a `..`, an absolute path or a
//! control character is refused with one line naming it, before anything is written.

use std::path::{Component, Path};

/// Why a name from input cannot be used as (part of) a path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnsafeName {
    /// Empty where a name is required.
    #[error("{what} is empty")]
    Empty {
        /// What the name is (`instance_id`, `test name`, `path`).
        what: &'static str,
    },
    /// It would leave the directory it is joined to.
    #[error("{what} `{name}` leaves its directory ({why})")]
    Escapes {
        /// What the name is.
        what: &'static str,
        /// The name, escaped for one line.
        name: String,
        /// `a .. component`, `an absolute path`, `a / in an id`.
        why: &'static str,
    },
    /// A control character (NUL, newline, ...) or an overlong name.
    #[error("{what} `{name}` {why}")]
    Malformed {
        /// What the name is.
        what: &'static str,
        /// The name, escaped for one line (and cut when overlong).
        name: String,
        /// What is wrong with it.
        why: &'static str,
    },
}

/// Longest id accepted: one path component on every common file system.
const MAX_ID: usize = 200;

/// `s` on one line, cut to 120 characters, for messages.
fn shown(s: &str) -> String {
    let e: String = s.escape_debug().collect();
    match e.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &e[..i]),
        None => e,
    }
}

/// An instance id is one path component: not empty, `.` or `..`, no `/` or `\`, no
/// control characters, at most 200 bytes.
pub fn check_id(id: &str) -> Result<(), UnsafeName> {
    check_component("instance_id", id)
}

/// A repository name (`owner/name`): each part one path component as [`check_id`]
/// wants it (a clone, a state or an export may be named by it).
pub fn check_repo(repo: &str) -> Result<(), UnsafeName> {
    const WHAT: &str = "repo";
    for part in repo.split('/') {
        check_component(WHAT, part).map_err(|e| match e {
            UnsafeName::Escapes { .. } => UnsafeName::Escapes {
                what: WHAT,
                name: shown(repo),
                why: "a `..` component",
            },
            UnsafeName::Malformed { why, .. } => UnsafeName::Malformed {
                what: WHAT,
                name: shown(repo),
                why,
            },
            UnsafeName::Empty { .. } => UnsafeName::Malformed {
                what: WHAT,
                name: shown(repo),
                why: "has an empty part",
            },
        })?;
    }
    Ok(())
}

/// One path component named `what` in messages (see [`check_id`]).
fn check_component(what: &'static str, id: &str) -> Result<(), UnsafeName> {
    if id.is_empty() {
        return Err(UnsafeName::Empty { what });
    }
    let escapes = |why| UnsafeName::Escapes {
        what,
        name: shown(id),
        why,
    };
    if id == "." || id == ".." {
        return Err(escapes("a `.` or `..` id names a directory above"));
    }
    if id.contains(['/', '\\']) {
        return Err(escapes("a path separator in an id"));
    }
    if id.chars().any(char::is_control) {
        return Err(UnsafeName::Malformed {
            what,
            name: shown(id),
            why: "holds a control character",
        });
    }
    if id.len() > MAX_ID {
        return Err(UnsafeName::Malformed {
            what,
            name: shown(id),
            why: "is longer than 200 bytes",
        });
    }
    Ok(())
}

/// A repository-relative path (a patch's file, a test file): relative, no `..`
/// component, no NUL.
pub fn check_relative_path(path: &str) -> Result<(), UnsafeName> {
    check_path_as("path", path)
}

/// [`check_relative_path`] naming the input as `what`.
fn check_path_as(what: &'static str, path: &str) -> Result<(), UnsafeName> {
    if path.is_empty() {
        return Err(UnsafeName::Empty { what });
    }
    if path.contains('\0') {
        return Err(UnsafeName::Malformed {
            what,
            name: shown(path),
            why: "holds a NUL byte",
        });
    }
    let escapes = |why| UnsafeName::Escapes {
        what,
        name: shown(path),
        why,
    };
    for c in Path::new(path).components() {
        match c {
            Component::ParentDir => return Err(escapes("a `..` component")),
            Component::RootDir | Component::Prefix(_) => return Err(escapes("an absolute path")),
            Component::CurDir | Component::Normal(_) => {}
        }
    }
    Ok(())
}

/// A test name (`file::name` for pytest, `pkg.Class::method` for Java): no control
/// characters, and its file part (before the first `::`) a relative path without
/// `..`. Parameters after `::` may hold anything printable (`test[a/../b]` is a name).
pub fn check_test_name(name: &str) -> Result<(), UnsafeName> {
    const WHAT: &str = "test name";
    if name.trim().is_empty() {
        return Err(UnsafeName::Empty { what: WHAT });
    }
    if name.chars().any(char::is_control) {
        return Err(UnsafeName::Malformed {
            what: WHAT,
            name: shown(name),
            why: "holds a control character",
        });
    }
    let file = name.split("::").next().unwrap_or(name);
    if file.is_empty() {
        return Ok(());
    }
    check_path_as(WHAT, file).map_err(|e| match e {
        UnsafeName::Escapes { what, why, .. } => UnsafeName::Escapes {
            what,
            name: shown(name),
            why,
        },
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_one_path_component() {
        for ok in [
            "astropy__astropy-12907",
            "acme-0123456789ab",
            "Lang_4",
            "a.b",
        ] {
            assert_eq!(check_id(ok), Ok(()), "{ok}");
        }
        for bad in ["", ".", "..", "../x", "a/b", "a\\b", "/etc", "a\nb", "a\0b"] {
            assert!(check_id(bad).is_err(), "{bad:?}");
        }
        assert!(check_id(&"x".repeat(201)).is_err());
        assert_eq!(check_repo("pallets/click"), Ok(()));
        for bad in ["../x", "a/..", "a//b", "/a"] {
            assert!(check_repo(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            check_id("../../etc").unwrap_err().to_string(),
            "instance_id `../../etc` leaves its directory (a path separator in an id)"
        );
    }

    #[test]
    fn paths_stay_inside_and_test_names_keep_their_parameters() {
        for ok in ["a.py", "src/a/b.py", "./a", "a..b/c"] {
            assert_eq!(check_relative_path(ok), Ok(()), "{ok}");
        }
        for bad in ["", "../a", "a/../../b", "/etc/passwd", "a\0b"] {
            assert!(check_relative_path(bad).is_err(), "{bad:?}");
        }
        for ok in [
            "tests/test_a.py::test_x",
            "tests/test_a.py::test_p[a/../b]",
            "org.acme.FooTest::bar",
            "::odd",
        ] {
            assert_eq!(check_test_name(ok), Ok(()), "{ok}");
        }
        for bad in ["../../x.py::t", "/etc/x.py::t", "t\nu", ""] {
            assert!(check_test_name(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            check_test_name("../../escape.py::test_x")
                .unwrap_err()
                .to_string(),
            "test name `../../escape.py::test_x` leaves its directory (a `..` component)"
        );
    }
}
