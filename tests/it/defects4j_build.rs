//! `hunkgen build` with `validate.defects4j` on real HUNK4J bugs of Cli and Codec:
//! Defects4J builds and tests the buggy and fixed versions in the sandbox, golden
//! labelling proves FAIL_TO_PASS, which must equal Defects4J's own `trigger_tests`
//! (`validation.d4j_agrees`); a test Defects4J lists as broken on the fixed version is
//! left out; a second build is answered from the cache without starting Defects4J.
//!
//! Needs `make deps` (Defects4J in target/defects4j); without it these tests fail,
//! never skip.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use hunkgen::model::Instance;
use hunkgen::pipeline::{build, BuildOptions, BuildSummary};

use crate::common::manifest;
use crate::defects4j_engine::serial;

/// The bugs built: HUNK4J bugs with small relevant test sets; Cli-1's fixed version
/// has a test Defects4J lists in `failing_tests` (`BugsTest::test19383`).
pub(crate) const BUGS: [(&str, u32); 2] = [("Cli", 1), ("Codec", 8)];

/// The Defects4J home `make deps` prepares (or `HUNKGEN_D4J_HOME`).
pub(crate) fn d4j_home() -> PathBuf {
    let home = std::env::var_os("HUNKGEN_D4J_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest().join("target/defects4j"));
    for p in [
        "framework/bin/defects4j",
        "project_repos/commons-cli.git",
        "project_repos/commons-codec.git",
    ] {
        assert!(
            home.join(p).exists(),
            "{} is missing: run `make deps` (or `make d4j-deps`) first",
            home.join(p).display()
        );
    }
    home
}

pub(crate) fn java_home() -> PathBuf {
    std::env::var_os("HUNKGEN_D4J_JAVA_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/jvm/java-11-openjdk-amd64"))
}

/// A copy of the v3.0.1 `framework/projects` tree (Cli and Codec) listing only `BUGS`.
pub(crate) fn projects_with_only_the_bugs(dir: &Path) -> PathBuf {
    projects_listing(dir, &BUGS)
}

/// A copy of the v3.0.1 `framework/projects` tree of the projects of `bugs`, each
/// project's `active-bugs.csv` listing only its bugs there.
pub(crate) fn projects_listing(dir: &Path, bugs: &[(&str, u32)]) -> PathBuf {
    let from = manifest().join("../shared/defects4j-framework/framework/projects");
    let to = dir.join("projects");
    for (project, _) in bugs {
        if to.join(project).exists() {
            continue;
        }
        copy_tree(&from.join(project), &to.join(project));
        let csv = to.join(project).join("active-bugs.csv");
        let text = fs::read_to_string(&csv).expect("active-bugs.csv");
        let kept: Vec<&str> = text
            .lines()
            .enumerate()
            .filter(|(i, l)| {
                *i == 0
                    || bugs
                        .iter()
                        .any(|(p, b)| p == project && l.split(',').next() == Some(&b.to_string()))
            })
            .map(|(_, l)| l)
            .collect();
        fs::write(&csv, kept.join("\n") + "\n").expect("write active-bugs.csv");
    }
    to
}

/// Copy a directory tree, symbolic links as links.
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("mkdir");
    for e in fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let e = e.expect("entry");
        let dest = to.join(e.file_name());
        let t = e.file_type().expect("type");
        if t.is_dir() {
            copy_tree(&e.path(), &dest);
        } else if t.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(e.path()).expect("link"), &dest)
                .expect("symlink");
        } else {
            fs::copy(e.path(), &dest).expect("copy");
        }
    }
}

pub(crate) fn recipe(dir: &Path, projects: &Path, cache: &Path, java: &Path) -> PathBuf {
    let text = format!(
        "name: d4j-golden\n\
         source:\n  defects4j:\n    path: {}\n    version: v3.0.1\n\
         files:\n  code_extensions: [java]\n  test_dirs: []\n  test_name_prefixes: []\n  test_name_suffixes: []\n\
         select:\n  min_code_hunks: 2\n  skip_created_files: true\n  skip_import_only_hunks: true\n\
         annotate:\n  enabled: false\n\
         validate:\n  reruns: 1\n  timeout: 900\n  sandbox: required\n  cache: {}\n\
         \x20 defects4j:\n    home: {}\n    java_home: {}\n    tests: relevant\n",
        projects.display(),
        cache.display(),
        d4j_home().display(),
        java.display()
    );
    let path = dir.join("recipe.yaml");
    fs::write(&path, text).expect("write recipe");
    path
}

pub(crate) fn run_build(recipe: &Path, out: &Path) -> BuildSummary {
    let repos: BTreeMap<String, PathBuf> =
        [("Cli", "commons-cli.git"), ("Codec", "commons-codec.git")]
            .into_iter()
            .map(|(p, r)| (p.to_string(), d4j_home().join("project_repos").join(r)))
            .collect();
    let plan = hunkgen::recipe::load_with(recipe, &repos).unwrap_or_else(|e| panic!("{e}"));
    let opts = BuildOptions {
        output: Some(out.to_path_buf()),
        ..Default::default()
    };
    build(&plan, &opts).unwrap_or_else(|e| panic!("{e}"))
}

fn trigger_tests(project: &str, bug: u32) -> Vec<String> {
    let text = fs::read_to_string(
        d4j_home()
            .join("framework/projects")
            .join(project)
            .join("trigger_tests")
            .join(bug.to_string()),
    )
    .expect("trigger tests");
    let mut t: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("--- "))
        .map(|l| l.trim().to_string())
        .collect();
    t.sort();
    t
}

fn instance<'s>(s: &'s BuildSummary, id: &str) -> &'s Instance {
    s.instances
        .iter()
        .find(|i| i.instance_id == id)
        .unwrap_or_else(|| panic!("{id} not kept; rejected: {:?}", s.rejected))
}

#[test]
fn hunk4j_bugs_validated_by_defects4j_agree_with_its_trigger_tests_and_cache() {
    let _one = serial();
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("defects4j");
    fs::create_dir_all(&base).expect("target/tmp/defects4j");
    let dir = tempfile::Builder::new()
        .prefix("build-")
        .tempdir_in(base)
        .expect("scratch");
    let projects = projects_with_only_the_bugs(dir.path());
    let cache = dir.path().join("cache");
    // What a checkout killed midway left (its lock released): swept by the next build.
    let checkouts = cache.join("d4j/checkouts");
    let killed = checkouts.join(".tmp-Cli-1f-999999-0-0badc0de");
    fs::create_dir_all(killed.join("src")).expect("mkdir");
    fs::write(checkouts.join(".tmp-Cli-1f-999999-0-0badc0de.lock"), "").expect("lock");

    let start = Instant::now();
    let first = run_build(
        &recipe(dir.path(), &projects, &cache, &java_home()),
        &dir.path().join("first"),
    );
    let seconds = start.elapsed().as_secs_f64();
    eprintln!(
        "defects4j build: {} bugs in {seconds:.1}s ({:.1}s per bug)",
        BUGS.len(),
        seconds / BUGS.len() as f64
    );
    assert!(first.rejected.is_empty(), "{:?}", first.rejected);
    let left: Vec<String> = fs::read_dir(&checkouts)
        .expect("checkouts")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "left in {}: {left:?}", checkouts.display());
    for (project, bug) in BUGS {
        let i = instance(&first, &format!("{project}_{bug}"));
        let mut f2p = i.FAIL_TO_PASS.clone();
        f2p.sort();
        assert_eq!(f2p, trigger_tests(project, bug), "{}", i.instance_id);
        let v = i.validation.as_ref().expect("validation record");
        assert_eq!(v.d4j_agrees, Some(true), "{}", i.instance_id);
        assert_eq!(v.suites, ["defects4j"]);
        assert_eq!(v.scope, "relevant");
        assert_eq!((v.runs.before, v.runs.after), (1, 1));
        assert!(v.sandboxed);
        assert!(!i.PASS_TO_PASS.is_empty(), "{}", i.instance_id);
        assert_eq!(i.failures.len(), i.FAIL_TO_PASS.len(), "{}", i.instance_id);
    }
    // Cli-1's fixed version fails BugsTest::test19383 (Defects4J's failing_tests):
    // left out of the labels, and recorded.
    let cli1 = instance(&first, "Cli_1");
    let broken = "org.apache.commons.cli.BugsTest::test19383".to_string();
    assert_eq!(
        cli1.validation.as_ref().expect("record").d4j_excluded,
        std::slice::from_ref(&broken)
    );
    assert!(!cli1.PASS_TO_PASS.contains(&broken));
    assert!(!cli1.FAIL_TO_PASS.contains(&broken));
    // The report counts the agreement per project.
    let report = fs::read_to_string(first.output.join("report/tables.md")).expect("report");
    assert!(report.contains("## Agreement with Defects4J"), "{report}");
    for project in ["Cli", "Codec"] {
        assert!(
            report.contains(&format!("| {project} | 1 | 0 | 100.0% | 0 | 0 |")),
            "{report}"
        );
    }

    // Again, with a JDK directory that holds only the JDK's `release` file: the same
    // JDK by content, so every run comes from the cache; had Defects4J been started it
    // would have found no `java` and the bugs would be rejected.
    let fake_java = dir.path().join("jdk-release-only");
    fs::create_dir_all(&fake_java).expect("mkdir");
    fs::copy(java_home().join("release"), fake_java.join("release")).expect("release file");
    let start = Instant::now();
    let second = run_build(
        &recipe(dir.path(), &projects, &cache, &fake_java),
        &dir.path().join("second"),
    );
    eprintln!(
        "defects4j build from the cache: {:.1}s",
        start.elapsed().as_secs_f64()
    );
    assert!(second.rejected.is_empty(), "{:?}", second.rejected);
    for (a, b) in first.instances.iter().zip(&second.instances) {
        assert_eq!(a.FAIL_TO_PASS, b.FAIL_TO_PASS);
        assert_eq!(a.PASS_TO_PASS, b.PASS_TO_PASS);
        assert_eq!(a.validation, b.validation);
    }
    assert_eq!(first.instances.len(), second.instances.len());
}

/// `validate.defects4j` belongs to Defects4J sources; a git recipe naming it is refused
/// at its place, before any work.
#[test]
fn validate_defects4j_is_refused_for_a_git_source() {
    let file = manifest().join("recipes/demo.yaml");
    let text = fs::read_to_string(&file).expect("demo recipe");
    let text = text.replacen("validate:\n", "validate:\n  defects4j: {}\n", 1);
    let e = hunkgen::recipe::load_text(&text, &file, &BTreeMap::new())
        .expect_err("refused for a git source");
    assert_eq!(e.key, "validate.defects4j", "{e}");
    assert!(e.to_string().contains("Defects4J sources only"), "{e}");
}
