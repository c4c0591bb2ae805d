//! Requirements files: which are read, what each line is for, and the files they
//! include (`-r`), as pip and tox read them.

/// What a declaration of a requirement is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// The project's own dependencies.
    Install,
    /// Its tests'.
    Test,
    /// Development, docs, release or lint tools.
    Dev,
    /// The tests' in some test environments only (a tox dependency under a factor
    /// condition, `libs: demjson`): the others run the suite without it, so it is
    /// optional like a development tool, but of the tests' era when present.
    SomeTests,
}

/// Requirements files whose lines are installed, when present (with the files they
/// include).
pub(super) const REQUIREMENT_FILES: [&str; 13] = [
    "requirements.txt",
    "requirements-test.txt",
    "requirements_test.txt",
    "requirements-tests.txt",
    "test-requirements.txt",
    "test_requirements.txt",
    "requirements-dev.txt",
    "dev-requirements.txt",
    "requirements/test.txt",
    "requirements/tests.txt",
    "requirements/dev.txt",
    "tests/requirements.txt",
    "test/requirements.txt",
];

/// Whether requirements file `f` is named for development, documentation, release or
/// linting (`requirements-dev.txt`, `requirements/dev.txt`): its lines are optional.
pub(super) fn development_file(f: &str) -> bool {
    let stem = f.trim_end_matches(".txt").to_ascii_lowercase();
    stem.split(['/', '-', '_']).any(|w| {
        [
            "dev",
            "develop",
            "development",
            "docs",
            "doc",
            "release",
            "lint",
        ]
        .contains(&w)
    })
}
/// The file a requirements line includes (`-r FILE`, `-rFILE`, `--requirement FILE`,
/// `--requirement=FILE`), as pip and tox read it; constraints (`-c`) are no requirements.
pub(super) fn included_file(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("--requirement")
        .or_else(|| line.strip_prefix("-r"))?;
    let file = rest.trim_start_matches('=').trim();
    (!file.is_empty() && !file.starts_with('-')).then_some(file)
}

/// The requirements of file `file` (relative to the project's root) and of the files it
/// includes (`-r other.txt`, relative to the including file's directory, as pip reads
/// them), each with its role: a file named for development gives optional lines (and so
/// do its includes); any other keeps the role of the file or tox environment that names
/// it. A file already read, absent, or outside the project gives nothing.
pub(super) fn requirement_lines(
    read: &dyn Fn(&str) -> Option<String>,
    file: &str,
    role: Role,
    files_read: &mut std::collections::BTreeSet<String>,
) -> Vec<(String, Role)> {
    let mut out = Vec::new();
    let Some(file) = normalized_path(file) else {
        return out;
    };
    if !files_read.insert(file.clone()) {
        return out;
    }
    let Some(text) = read(&file) else {
        return out;
    };
    let role = if development_file(&file) {
        Role::Dev
    } else {
        role
    };
    let dir = file.rsplit_once('/').map(|(d, _)| d).unwrap_or_default();
    for line in text.lines() {
        let l = line.split(" #").next().unwrap_or(line).trim();
        if let Some(inc) = included_file(l) {
            let inc = if dir.is_empty() {
                inc.to_string()
            } else {
                format!("{dir}/{inc}")
            };
            out.extend(requirement_lines(read, &inc, role, files_read));
            continue;
        }
        if l.is_empty() || l.starts_with('#') || l.starts_with('-') {
            continue;
        }
        out.push((l.to_string(), role));
    }
    out
}

/// `a/./b/../c.txt` as `a/c.txt`; `None` for a path that leaves the project's root or
/// is absolute.
fn normalized_path(path: &str) -> Option<String> {
    if path.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeSet, HashMap};

    /// Files name others (`-r`, relative to their own directory): each is read once, a
    /// file outside the project and a constraints file never; a file named for
    /// development makes its lines (and its includes') optional, any other keeps the
    /// role of the file that names it.
    #[test]
    fn included_files_are_read_once_with_the_includers_role() {
        let map: HashMap<&str, &str> = [
            (
                "tests/requirements.txt",
                "pytest  # runner\n-r ../requirements/base.txt\n--requirement=common.txt\n\
                 -c pins.txt\n-r ../../outside.txt\n-e .\n",
            ),
            (
                "requirements/base.txt",
                "attrs>=19\n-r ../tests/requirements.txt\n",
            ),
            (
                "tests/common.txt",
                "hypothesis\n-r ../requirements-docs.txt\n",
            ),
            ("requirements-docs.txt", "sphinx\n-r docs-extra.txt\n"),
            ("docs-extra.txt", "furo\n"),
            ("tests/pins.txt", "never==1\n"),
        ]
        .into_iter()
        .collect();
        let read = |p: &str| map.get(p).map(|s| s.to_string());
        let mut seen = BTreeSet::new();
        let got = requirement_lines(&read, "./tests/requirements.txt", Role::Test, &mut seen);
        assert_eq!(
            got,
            vec![
                ("pytest".to_string(), Role::Test),
                ("attrs>=19".to_string(), Role::Test),
                ("hypothesis".to_string(), Role::Test),
                ("sphinx".to_string(), Role::Dev),
                ("furo".to_string(), Role::Dev),
            ]
        );
        // Read already: nothing the second time.
        assert!(
            requirement_lines(&read, "requirements/base.txt", Role::Install, &mut seen).is_empty()
        );
        assert_eq!(included_file("-rreq.txt"), Some("req.txt"));
        assert_eq!(included_file("--requirement req.txt"), Some("req.txt"));
        assert_eq!(included_file("-c req.txt"), None);
        assert_eq!(
            normalized_path("a/./b/../c.txt").as_deref(),
            Some("a/c.txt")
        );
        assert_eq!(normalized_path("../c.txt"), None);
        assert_eq!(normalized_path("/etc/c.txt"), None);
    }
}
