//! Defects4J states on real HUNK4J bugs of Cli and Codec, built with `validate.defects4j`:
//! Novel, Partial and Resolved, Best and Worst, golden tests present and withheld, all
//! through the git states' code and leak gate. The Novel tree is Defects4J's buggy version
//! (its source directory byte for byte), Resolved its fixed version; a Best state's
//! history ends at `revision.id.buggy` plus one commit, holds no tag and no object of the
//! fixed revision's source; the gate refuses a state into which one leaks, and refuses
//! Defects4J's own work directory. Partial states are verified by Defects4J runs, which
//! refuse a change that fixes the bug. `hunkgen checkout` gives the same states.
//!
//! Needs `make deps` (Defects4J in target/defects4j); without it these tests fail, never
//! skip.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use hunkgen::git::{check_state, GateCheck, GateError, GateSpec};
use hunkgen::model::{Instance, Scenario, StateKind, StateManifest};
use hunkgen::pipeline::{build, BuildOptions, BuildSummary};
use hunkgen::states;

use crate::common::{hunkgen, manifest, succeeds};
use crate::defects4j_engine::serial;

/// HUNK4J bugs whose hunks sit in different files, so a proper subset of them still
/// compiles and still fails a trigger test.
const BUGS: [(&str, u32, &str); 2] = [
    ("Cli", 34, "commons-cli.git"),
    ("Codec", 1, "commons-codec.git"),
];

/// Every state the recipe asks for (`golden_tests: both`), as directory names.
pub(crate) const WRITTEN: [&str; 12] = [
    "novel-best",
    "novel-worst",
    "partial-best",
    "partial-worst",
    "resolved-best",
    "resolved-worst",
    "novel-best-tests",
    "novel-worst-tests",
    "partial-best-tests",
    "partial-worst-tests",
    "resolved-best-tests",
    "resolved-worst-tests",
];

fn d4j_home() -> PathBuf {
    let home = std::env::var_os("HUNKGEN_D4J_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest().join("target/defects4j"));
    for (_, _, repo) in BUGS {
        let p = home.join("project_repos").join(repo);
        assert!(
            p.exists(),
            "{} is missing: run `make deps` (or `make d4j-deps`) first",
            p.display()
        );
    }
    home
}

fn java_home() -> PathBuf {
    std::env::var_os("HUNKGEN_D4J_JAVA_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/jvm/java-11-openjdk-amd64"))
}

pub(crate) fn upstream(project: &str) -> PathBuf {
    let (_, _, repo) = BUGS
        .iter()
        .find(|(p, _, _)| *p == project)
        .expect("a bug of the project");
    d4j_home().join("project_repos").join(repo)
}

fn git(dir: &Path, args: &[&str]) -> (bool, Vec<u8>) {
    let out = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .args(args)
        .output()
        .expect("git runs");
    (out.status.success(), out.stdout)
}

pub(crate) fn git_text(dir: &Path, args: &[&str]) -> String {
    let (ok, out) = git(dir, args);
    assert!(ok, "git {args:?} in {}", dir.display());
    String::from_utf8_lossy(&out).trim().to_string()
}

/// A copy of the v3.0.1 `framework/projects` tree listing only `BUGS`.
fn projects_with_only_the_bugs(dir: &Path) -> PathBuf {
    let bugs: Vec<(&str, u32)> = BUGS.iter().map(|(p, b, _)| (*p, *b)).collect();
    crate::defects4j_build::projects_listing(dir, &bugs)
}

fn recipe(dir: &Path, projects: &Path, cache: &Path) -> PathBuf {
    let text = format!(
        "name: d4j-states\n\
         source:\n  defects4j:\n    path: {}\n    version: v3.0.1\n\
         files:\n  code_extensions: [java]\n  test_dirs: []\n  test_name_prefixes: []\n  test_name_suffixes: []\n\
         select:\n  min_code_hunks: 2\n  skip_created_files: true\n  skip_import_only_hunks: true\n\
         annotate:\n  enabled: false\n\
         validate:\n  reruns: 1\n  timeout: 900\n  sandbox: required\n  cache: {}\n\
         \x20 defects4j:\n    home: {}\n    java_home: {}\n    tests: relevant\n\
         states:\n  golden_tests: both\n  subset_cap: 4\n",
        projects.display(),
        cache.display(),
        d4j_home().display(),
        java_home().display()
    );
    let path = dir.join("recipe.yaml");
    fs::write(&path, text).expect("write recipe");
    path
}

fn repos() -> BTreeMap<String, PathBuf> {
    BUGS.iter()
        .map(|(p, _, _)| (p.to_string(), upstream(p)))
        .collect()
}

fn run_build(recipe: &Path, out: &Path) -> BuildSummary {
    let plan = hunkgen::recipe::load_with(recipe, &repos()).unwrap_or_else(|e| panic!("{e}"));
    let opts = BuildOptions {
        output: Some(out.to_path_buf()),
        ..Default::default()
    };
    build(&plan, &opts).unwrap_or_else(|e| panic!("{e}"))
}

/// Every file under `dir` (not `.git`) with its bytes, by relative path.
pub(crate) fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for e in entries {
            let e = e.expect("entry");
            let p = e.path();
            if e.file_name() == ".git" {
                continue;
            }
            if e.file_type().expect("type").is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).expect("under root");
                out.insert(
                    rel.to_string_lossy().into_owned(),
                    fs::read(&p).unwrap_or_default(),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// `files` under one subdirectory, keyed by path relative to the root.
fn files_under(root: &Path, sub: &str) -> BTreeMap<String, Vec<u8>> {
    files(&root.join(sub))
        .into_iter()
        .map(|(k, v)| (format!("{sub}/{k}"), v))
        .collect()
}

/// Defects4J's source and test directories at a revision (`dir-layout.csv`).
fn layout(project: &str, rev: &str) -> (String, String) {
    let csv = d4j_home()
        .join("framework/projects")
        .join(project)
        .join("dir-layout.csv");
    let text = fs::read_to_string(&csv).expect("dir-layout.csv");
    let row = text
        .lines()
        .find(|l| l.starts_with(rev))
        .unwrap_or_else(|| panic!("{rev} not in {}", csv.display()));
    let cells: Vec<&str> = row.split(',').map(str::trim).collect();
    (cells[1].to_string(), cells[2].to_string())
}

/// A file's bytes at a revision of the upstream repository (None when absent).
fn blob_at(repo: &Path, rev: &str, path: &str) -> Option<Vec<u8>> {
    let (ok, out) = git(repo, &["show", &format!("{rev}:{path}")]);
    ok.then_some(out)
}

/// Where the validate stage keeps a version's Defects4J work directory: its checkout,
/// else its compiled build directory (the buggy version is made from the fixed one).
fn d4j_version_dir(cache: &Path, project: &str, bug: u32, v: char) -> PathBuf {
    let name = format!("{project}-{bug}{v}");
    let dirs = [
        cache.join("d4j/checkouts").join(&name),
        cache.join("d4j/compiled").join(&name),
    ];
    dirs.iter()
        .find(|d| d.join(".defects4j.config").is_file())
        .cloned()
        .unwrap_or_else(|| {
            panic!(
                "no Defects4J work directory of {name} in {}",
                cache.display()
            )
        })
}

fn instance<'s>(s: &'s BuildSummary, id: &str) -> &'s Instance {
    s.instances
        .iter()
        .find(|i| i.instance_id == id)
        .unwrap_or_else(|| panic!("{id} not kept; rejected: {:?}", s.rejected))
}

pub(crate) fn manifest_of(dataset: &Path, id: &str, name: &str) -> StateManifest {
    states::read_manifest(
        &dataset
            .join("states")
            .join(id)
            .join(name)
            .join("manifest.yaml"),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

pub(crate) fn repo_of(dataset: &Path, id: &str, name: &str) -> PathBuf {
    dataset.join("states").join(id).join(name).join("repo")
}

/// The paths a patch text changes (new side, or old side of a deletion).
fn patch_paths(text: &str) -> Vec<String> {
    let p = hunkgen::diff::parse(text.as_bytes()).expect("patch parses");
    p.files.iter().map(|f| f.path().to_string()).collect()
}

#[test]
fn defects4j_states_are_written_gated_verified_and_checked_out() {
    let _one = serial();
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("defects4j");
    fs::create_dir_all(&base).expect("target/tmp/defects4j");
    let dir = tempfile::Builder::new()
        .prefix("states-")
        .tempdir_in(base)
        .expect("scratch");
    let projects = projects_with_only_the_bugs(dir.path());
    let cache = dir.path().join("cache");
    let recipe = recipe(dir.path(), &projects, &cache);

    let start = Instant::now();
    let built = run_build(&recipe, &dir.path().join("first"));
    eprintln!(
        "defects4j build with states: {} bugs in {:.1}s",
        BUGS.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(built.rejected.is_empty(), "{:?}", built.rejected);
    let data = built.output.clone();

    for (project, bug, _) in BUGS {
        let id = format!("{project}_{bug}");
        let inst = instance(&built, &id);
        let repo = upstream(project);
        let (src, test) = layout(project, &inst.base_commit);
        let record = inst.states.as_ref().expect("states record");
        assert!(record.missing.is_empty(), "{id}: {:?}", record.missing);
        let written: BTreeSet<&str> = record.written.iter().map(String::as_str).collect();
        assert_eq!(written, WRITTEN.into_iter().collect(), "{id}");

        // Every manifest says what it is; Best states passed the whole gate.
        for name in WRITTEN {
            let m = manifest_of(&data, &id, name);
            assert_eq!(m.tests_present, name.ends_with("-tests"), "{id} {name}");
            assert_eq!(m.base_commit, inst.base_commit);
            assert_eq!(m.fix_commit, inst.fix_commit);
            if m.scenario == Scenario::Best {
                assert!(
                    m.gate.contains(&"stored-is-reachable".to_string()),
                    "{name}"
                );
                if m.state != StateKind::Resolved {
                    assert!(m.gate.contains(&"fix-absent".to_string()), "{name}");
                }
                // Novel lacks every line the fix adds; a Partial state may hold them all
                // already (Cli-34's omitted line is part of the one it applies), so the
                // pickaxe has nothing to look for there.
                if m.state == StateKind::Novel {
                    assert!(m.gate.contains(&"pickaxe".to_string()), "{name}");
                }
            } else {
                assert!(m.gate.is_empty() && m.head_commit.is_none(), "{name}");
            }
        }
        // Partial: a proper subset of the hunks, kept because Defects4J still fails.
        let partial = manifest_of(&data, &id, "partial-best");
        let counted = inst.hunks.iter().filter(|h| h.counted).count();
        assert!(
            !partial.hunks_applied.is_empty() && partial.hunks_applied.len() < counted,
            "{id}: {:?}",
            partial.hunks_applied
        );
        let v = partial.verification.as_ref().expect("Partial verified");
        assert_eq!(v["golden_tests"], "fail", "{id}: {v}");
        assert_eq!(v["suite"], "defects4j", "{id}: {v}");
        assert_eq!(v["runs"], 1, "{id}: {v}");
        eprintln!(
            "{id}: Partial applies hunks {:?} of {counted}: {v}",
            partial.hunks_applied
        );

        // Trees. Worst and Best hold the same files.
        for name in WRITTEN.iter().filter(|n| n.contains("-best")) {
            let worst = name.replace("-best", "-worst");
            assert!(
                files(&repo_of(&data, &id, name)) == files(&repo_of(&data, &id, &worst)),
                "{id}: {name} and {worst} differ"
            );
        }
        // Novel is Defects4J's buggy version, Resolved its fixed one: the source
        // directory byte for byte, the test directory too with the golden tests present
        // (but for the tests Defects4J itself disables in its checkout, leaving `.bak`).
        let d4j_buggy = d4j_version_dir(&dir.path().join("cache"), project, bug, 'b');
        let d4j_fixed = d4j_version_dir(&dir.path().join("cache"), project, bug, 'f');
        let novel = repo_of(&data, &id, "novel-worst-tests");
        let resolved = repo_of(&data, &id, "resolved-worst-tests");
        assert!(
            files_under(&novel, &src) == files_under(&d4j_buggy, &src),
            "{id}"
        );
        assert!(
            files_under(&resolved, &src) == files_under(&d4j_fixed, &src),
            "{id}"
        );
        assert!(
            files_under(&novel, &src) != files_under(&resolved, &src),
            "{id}"
        );
        let touched_by_d4j = |tree: &BTreeMap<String, Vec<u8>>| -> BTreeSet<String> {
            tree.keys()
                .filter_map(|k| k.strip_suffix(".bak"))
                .map(str::to_string)
                .collect()
        };
        let d4j_tests = files_under(&d4j_buggy, &test);
        let skip = touched_by_d4j(&d4j_tests);
        let strip = |t: BTreeMap<String, Vec<u8>>| -> BTreeMap<String, Vec<u8>> {
            t.into_iter()
                .filter(|(k, _)| !k.ends_with(".bak") && !skip.contains(k))
                .collect()
        };
        assert!(
            strip(files_under(&novel, &test)) == strip(d4j_tests.clone()),
            "{id}: tests of the Novel state with tests present"
        );
        // Golden tests: present = the fixed revision's test files, withheld = the buggy
        // revision's (absent when the fix adds them); every other file the same.
        let test_files = patch_paths(&inst.test_patch);
        assert!(!test_files.is_empty(), "{id}");
        let present = files(&novel);
        let withheld = files(&repo_of(&data, &id, "novel-worst"));
        for f in &test_files {
            assert_eq!(present.get(f), blob_at(&repo, &inst.fix_commit, f).as_ref());
            assert_eq!(
                withheld.get(f),
                blob_at(&repo, &inst.base_commit, f).as_ref()
            );
        }
        let others = |t: &BTreeMap<String, Vec<u8>>| -> BTreeMap<String, Vec<u8>> {
            t.iter()
                .filter(|(k, _)| !test_files.contains(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        };
        assert!(others(&present) == others(&withheld), "{id}");
        // Partial lies strictly between Novel and Resolved in the source directory.
        let part = files_under(&repo_of(&data, &id, "partial-worst-tests"), &src);
        assert!(part != files_under(&novel, &src) && part != files_under(&resolved, &src));

        // Best: history up to revision.id.buggy plus one commit, nothing later.
        for name in ["novel-best", "novel-best-tests", "partial-best-tests"] {
            let r = repo_of(&data, &id, name);
            assert_eq!(git_text(&r, &["rev-parse", "HEAD~1"]), inst.base_commit);
            let count = git_text(&r, &["rev-list", "--count", "--all"]);
            let upstream_count = git_text(&repo, &["rev-list", "--count", &inst.base_commit]);
            assert_eq!(
                count.parse::<usize>().expect("count"),
                upstream_count.parse::<usize>().expect("count") + 1,
                "{id} {name}"
            );
            assert_eq!(git_text(&r, &["tag", "--list"]), "", "{id} {name}");
            assert_eq!(git_text(&r, &["branch", "--list"]), "* main");
            let (fix_stored, _) = git(&r, &["cat-file", "-e", &inst.fix_commit]);
            assert!(!fix_stored, "{id} {name}: the fixed revision is stored");
            let fixed_tree = git_text(
                &repo,
                &["rev-parse", &format!("{}^{{tree}}", inst.fix_commit)],
            );
            assert!(!git(&r, &["cat-file", "-e", &fixed_tree]).0, "{id} {name}");
            // No blob of a source file as the fixed revision has it (a Partial state
            // holds the fixed version of a file whose every hunk it applies).
            let applied = manifest_of(&data, &id, name).hunks_applied;
            let unfixed: BTreeSet<&str> = inst
                .hunks
                .iter()
                .filter(|h| !applied.contains(&h.patch_index))
                .map(|h| h.file.as_str())
                .collect();
            assert!(!unfixed.is_empty(), "{id} {name}");
            for f in unfixed {
                let blob = git_text(&repo, &["rev-parse", &format!("{}:{f}", inst.fix_commit)]);
                assert!(!git(&r, &["cat-file", "-e", &blob]).0, "{id} {name}: {f}");
            }
        }
        // Resolved with the golden tests is the fixed revision: the fix commit itself.
        let r = repo_of(&data, &id, "resolved-best-tests");
        assert_eq!(
            git_text(&r, &["rev-parse", "HEAD"]),
            inst.fix_commit,
            "{id}"
        );
    }

    // The gate refuses a Best state into which a fixed-revision object leaks, and
    // Defects4J's own work directory (its history holds the fix).
    let (project, bug, _) = BUGS[0];
    let id = format!("{project}_{bug}");
    let inst = instance(&built, &id);
    let leaky = dir.path().join("leaky");
    crate::defects4j_build::copy_tree(&repo_of(&data, &id, "novel-best"), &leaky);
    let spec = GateSpec {
        absent_commits: vec![inst.fix_commit.clone()],
        probes: Vec::new(),
    };
    check_state(&leaky, &spec).unwrap_or_else(|e| panic!("the copy passes: {e}"));
    let f = &patch_paths(&inst.patch)[0];
    let fixed = blob_at(&upstream(project), &inst.fix_commit, f).expect("fixed file");
    let stray = leaky.join("fixed.java");
    fs::write(&stray, &fixed).expect("write");
    git_text(&leaky, &["hash-object", "-w", "fixed.java"]);
    fs::remove_file(&stray).expect("rm");
    match check_state(&leaky, &spec) {
        Err(GateError::Failed { check, .. }) => assert_eq!(check, GateCheck::StoredIsReachable),
        other => panic!("a stored fixed-revision blob passed the gate: {other:?}"),
    }
    let work = dir.path().join("d4j-work");
    crate::defects4j_build::copy_tree(
        &d4j_version_dir(&dir.path().join("cache"), project, bug, 'f'),
        &work,
    );
    let (_, tags) = git(&work, &["tag", "--list", "D4J_*FIXED_VERSION"]);
    assert!(!tags.is_empty(), "Defects4J tags its fixed version");
    match check_state(&work, &spec) {
        Err(GateError::Failed { check, detail, .. }) => {
            eprintln!("Defects4J's work directory refused: {check}: {detail}")
        }
        other => panic!("Defects4J's work directory passed the gate: {other:?}"),
    }
    // Without its reflogs and leftover heads, its tags (D4J_<P>_<id>_FIXED_VERSION among
    // them) refuse it.
    let mut by_tags = false;
    for _ in 0..4 {
        match check_state(&work, &spec) {
            Err(GateError::Failed {
                check: GateCheck::NoReflogs,
                ..
            }) => fs::remove_dir_all(work.join(".git/logs")).expect("rm reflogs"),
            Err(GateError::Failed {
                check: GateCheck::NoSpecialHeads,
                detail,
                ..
            }) => {
                let file = detail.strip_suffix(" exists").expect("a file");
                fs::remove_file(work.join(file)).expect("rm special head")
            }
            Err(GateError::Failed { check, detail, .. }) => {
                assert_eq!(check, GateCheck::NoTags, "{detail}");
                by_tags = true;
                break;
            }
            other => panic!("Defects4J's work directory passed the gate: {other:?}"),
        }
    }
    assert!(
        by_tags,
        "Defects4J's work directory was not refused for its tags"
    );

    // Verification by running refuses a change that fixes the bug: the whole golden patch.
    let plan = hunkgen::recipe::load_with(&recipe, &repos()).unwrap_or_else(|e| panic!("{e}"));
    let vplan = plan.validate.as_ref().expect("validate plan");
    let validator = hunkgen::recipe::validator::validator(&plan, vplan).expect("validator");
    let card = hunkgen::dataset::read_card(&data)
        .expect("card")
        .expect("a card");
    let c = hunkgen::source::Candidate::from_instance(inst, &card).expect("candidate");
    let golden = states::golden_patch(inst).expect("golden patch");
    let (kept, why) =
        validator.partial_still_fails(&c, &golden, &inst.FAIL_TO_PASS, &dir.path().join("logs"));
    assert!(
        !kept,
        "the golden patch was kept as a Partial change: {why}"
    );
    assert_eq!(why["golden_tests"], "pass", "{why}");

    // `hunkgen checkout` makes the same states from the dataset and the card's repository.
    for (project, bug, _) in BUGS {
        let id = format!("{project}_{bug}");
        let start = Instant::now();
        for (state, scenario, tests, name) in [
            ("novel", "best", true, "novel-best-tests"),
            ("resolved", "worst", false, "resolved-worst"),
        ] {
            let target = dir.path().join(format!("co-{id}-{name}"));
            let mut cmd = hunkgen();
            cmd.args(["checkout", &data.to_string_lossy(), &id, "--state", state]);
            cmd.args(["--scenario", scenario]);
            if tests {
                cmd.arg("--with-tests");
            }
            cmd.arg(&target);
            succeeds(&mut cmd);
            let written = repo_of(&data, &id, name);
            assert!(files(&target) == files(&written), "{id} {name}");
            if scenario == "best" {
                assert_eq!(
                    git_text(&target, &["rev-parse", "HEAD"]),
                    git_text(&written, &["rev-parse", "HEAD"]),
                    "{id} {name}"
                );
            }
        }
        eprintln!(
            "hunkgen checkout of two {id} states: {:.1}s",
            start.elapsed().as_secs_f64()
        );
    }

    // Again from the cache: no Defects4J run, so this is what writing the states costs.
    let start = Instant::now();
    let again = run_build(&recipe, &dir.path().join("second"));
    let seconds = start.elapsed().as_secs_f64();
    eprintln!(
        "defects4j build with states from the run cache: {seconds:.1}s ({:.1}s per bug, 12 states each)",
        seconds / BUGS.len() as f64
    );
    for (a, b) in built.instances.iter().zip(&again.instances) {
        assert_eq!(a.states, b.states, "{}", a.instance_id);
    }
}

/// A Defects4J recipe may ask for states; `golden_tests` that contradicts `with_tests`
/// is refused at its key.
#[test]
fn a_defects4j_recipe_takes_states_and_the_golden_tests_switch() {
    let file = manifest().join("recipes/hunk4j.yaml");
    let text = fs::read_to_string(&file).expect("hunk4j recipe");
    let none = BTreeMap::new();
    for (golden, variants) in [
        ("", vec![false]),
        ("  golden_tests: present\n", vec![true]),
        ("  golden_tests: withheld\n", vec![false]),
        ("  golden_tests: both\n", vec![false, true]),
    ] {
        let with = format!("{text}\nstates:\n  kinds: [novel]\n{golden}");
        let plan =
            hunkgen::recipe::load_text(&with, &file, &none).unwrap_or_else(|e| panic!("{e}"));
        let spec = plan.states.expect("states");
        assert_eq!(spec.test_variants(), variants.as_slice(), "{golden}");
    }
    let bad = format!("{text}\nstates:\n  with_tests: true\n  golden_tests: present\n");
    let e = hunkgen::recipe::load_text(&bad, &file, &none).expect_err("contradiction");
    assert_eq!(e.key, "states.golden_tests", "{e}");
    assert!(e.to_string().contains("with_tests"), "{e}");
}
