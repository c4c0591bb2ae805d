//! The swebench environment kind's declare phase against the official package (swebench
//! 4.1.0 from PyPI, `make deps` installs it into target/venv-swebench4): the specs, test
//! directives and commands of real SWE-bench repositories come out as the package holds
//! them, requirement files come from the local repository at `environment_setup_commit`
//! (never from the network), and logs are read by each repository's official parser.

use crate::common::{git_at, scratch_root, venv_python};
use hunkgen::validate::env::swebench::{Helper, LogRef, RowRef};
use hunkgen::validate::parse::TestStatus;
use std::fs;

fn helper(root: &std::path::Path) -> Helper {
    Helper::new(&venv_python("venv-swebench4"), &root.join("helper")).expect("helper")
}

/// A repository whose requirement file changes between two commits; their ids.
fn two_commit_repo(dir: &std::path::Path) -> (String, String) {
    fs::create_dir_all(dir.join("tests/requirements")).expect("mkdir");
    git_at(dir, &["init", "-q"], 0);
    fs::write(dir.join("tests/requirements/py3.txt"), "asgiref\n").expect("write");
    git_at(dir, &["add", "-A"], 0);
    git_at(dir, &["commit", "-qm", "base"], 0);
    let base = String::from_utf8(git_at(dir, &["rev-parse", "HEAD"], 0)).expect("utf8");
    fs::write(
        dir.join("tests/requirements/py3.txt"),
        "asgiref >= 3.2\n-r extra.txt\n# a comment\n-e .\npytz\n",
    )
    .expect("write");
    fs::write(dir.join("tests/requirements/extra.txt"), "sqlparse\n").expect("write");
    git_at(dir, &["add", "-A"], 1);
    git_at(dir, &["commit", "-qm", "setup"], 1);
    let setup = String::from_utf8(git_at(dir, &["rev-parse", "HEAD"], 1)).expect("utf8");
    (base.trim().to_string(), setup.trim().to_string())
}

const DJANGO_TEST_PATCH: &str = "\
diff --git a/tests/auth_tests/test_validators.py b/tests/auth_tests/test_validators.py
--- a/tests/auth_tests/test_validators.py
+++ b/tests/auth_tests/test_validators.py
@@ -1 +1 @@
-old
+new
diff --git a/tests/auth_tests/README.txt b/tests/auth_tests/README.txt
--- a/tests/auth_tests/README.txt
+++ b/tests/auth_tests/README.txt
@@ -1 +1 @@
-old
+new
";

#[test]
fn specs_come_from_the_package_and_requirements_from_the_setup_commit() {
    let root = scratch_root().join("swebench-specs");
    let _ = fs::remove_dir_all(&root);
    let repo = root.join("django");
    let (base, setup) = two_commit_repo(&repo);
    let h = helper(&root);
    assert!(h.version().expect("version").starts_with("4.1."));
    let django = RowRef {
        repo: "django/django".into(),
        version: "3.0".into(),
        instance_id: "django__django-11099".into(),
        base_commit: base.clone(),
        environment_setup_commit: Some(setup),
        test_patch: DJANGO_TEST_PATCH.into(),
    };
    let sympy = RowRef {
        repo: "sympy/sympy".into(),
        version: "1.1".into(),
        instance_id: "sympy__sympy-13480".into(),
        base_commit: base.clone(),
        environment_setup_commit: None,
        test_patch:
            "diff --git a/sympy/core/tests/test_basic.py b/sympy/core/tests/test_basic.py\n".into(),
    };
    let unknown = RowRef {
        repo: "nobody/nothing".into(),
        version: "0.1".into(),
        instance_id: "nobody__nothing-1".into(),
        base_commit: base.clone(),
        environment_setup_commit: None,
        test_patch: String::new(),
    };
    let answers = h
        .specs(&[django.clone(), sympy, unknown], Some(&repo.join(".git")))
        .expect("specs");

    let d = &answers[0];
    assert_eq!(d.error, None);
    assert_eq!(d.python.as_deref(), Some("3.6"));
    assert_eq!(d.parser.as_deref(), Some("parse_log_django"));
    // Django's directives are dotted modules under tests/; the .txt file is no test.
    assert_eq!(d.test_directives, vec!["auth_tests.test_validators"]);
    assert_eq!(
        d.test_command.as_deref(),
        Some("./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 auth_tests.test_validators")
    );
    assert_eq!(d.install.as_deref(), Some("python -m pip install -e ."));
    let hash = d.spec_hash.as_deref().expect("hash");
    assert!(hash.len() == 64 && hash.chars().all(|c| c.is_ascii_hexdigit()));
    // Read at environment_setup_commit (the base commit's file has no pytz), with its
    // `-r` file, and without comments or `-e .`.
    let packages = d.packages.as_ref().expect("packages");
    assert_eq!(packages.kind, "requirements.txt");
    let lines: Vec<&str> = packages
        .text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(lines, vec!["sqlparse", "asgiref >= 3.2", "pytz"]);

    let s = &answers[1];
    assert_eq!(s.error, None);
    assert_eq!(s.python.as_deref(), Some("3.9"));
    assert_eq!(s.parser.as_deref(), Some("parse_log_sympy"));
    assert_eq!(s.test_directives, vec!["sympy/core/tests/test_basic.py"]);
    assert_eq!(
        s.pip_packages,
        vec!["mpmath==1.3.0", "flake8-comprehensions"]
    );
    assert_eq!(
        s.conda_as_pip().expect("pip twins"),
        vec!["mpmath".to_string(), "flake8".into()]
    );
    assert_ne!(s.spec_hash, d.spec_hash);

    let u = &answers[2];
    assert!(
        u.error.as_deref().is_some_and(|e| e.starts_with("spec: ")),
        "{:?}",
        u.error
    );

    // With no local repository the package's download is refused: no network, and the
    // step that failed is named.
    let offline = h.specs(&[django], None).expect("specs");
    assert!(
        offline[0]
            .error
            .as_deref()
            .is_some_and(|e| e.starts_with("packages: ")),
        "{:?}",
        offline[0].error
    );
}

#[test]
fn logs_are_read_by_each_repository_parser() {
    let root = scratch_root().join("swebench-parse");
    let _ = fs::remove_dir_all(&root);
    let h = helper(&root);
    let django_log = "\
test_ascii_validator (auth_tests.test_validators.UsernameValidatorsTests) ... ok
test_unicode_validator (auth_tests.test_validators.UsernameValidatorsTests) ... FAIL
test_broken (auth_tests.test_validators.OtherTests) ... ERROR
";
    let sympy_log = "\
test_basic ok
test_subs F
test_atoms E
";
    // A test's own output with a line the pytest parser reads as test `Wrong` with the
    // status word `ERROR:` (pytest-dev__pytest-10356's log has one): the harness grades
    // no such word, so that entry is left out and the rest of the log is read.
    let pytest_log = "\
PASSED testing/test_mark.py::test_ok
ERROR: Wrong number of arguments in parametrize
FAILED testing/test_mark.py::test_mark_mro - AssertionError
";
    let parsed = h
        .parse(&[
            LogRef {
                repo: "django/django",
                version: "3.0",
                instance_id: "django__django-11099",
                log: django_log,
            },
            LogRef {
                repo: "sympy/sympy",
                version: "1.1",
                instance_id: "sympy__sympy-13480",
                log: sympy_log,
            },
            LogRef {
                repo: "pytest-dev/pytest",
                version: "7.2",
                instance_id: "pytest-dev__pytest-10356",
                log: pytest_log,
            },
            LogRef {
                repo: "nobody/nothing",
                version: "0.1",
                instance_id: "x",
                log: "",
            },
        ])
        .expect("parse");
    let django = parsed[0].as_ref().expect("django statuses");
    let id = |m: &str, c: &str| format!("{m} (auth_tests.test_validators.{c})");
    assert_eq!(
        django.get(&id("test_ascii_validator", "UsernameValidatorsTests")),
        Some(&TestStatus::Passed)
    );
    assert_eq!(
        django.get(&id("test_unicode_validator", "UsernameValidatorsTests")),
        Some(&TestStatus::Failed)
    );
    assert_eq!(
        django.get(&id("test_broken", "OtherTests")),
        Some(&TestStatus::Error)
    );
    assert_eq!(django.len(), 3);
    let sympy = parsed[1].as_ref().expect("sympy statuses");
    assert_eq!(sympy.get("test_basic"), Some(&TestStatus::Passed));
    assert_eq!(sympy.get("test_subs"), Some(&TestStatus::Failed));
    assert_eq!(sympy.get("test_atoms"), Some(&TestStatus::Error));
    let pytest = parsed[2].as_ref().expect("pytest statuses");
    assert_eq!(
        pytest.get("testing/test_mark.py::test_ok"),
        Some(&TestStatus::Passed)
    );
    assert_eq!(
        pytest.get("testing/test_mark.py::test_mark_mro"),
        Some(&TestStatus::Failed)
    );
    assert_eq!(pytest.len(), 2, "{pytest:?}");
    assert!(parsed[3].is_err());
}
