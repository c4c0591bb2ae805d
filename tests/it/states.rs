//! FixedBench states on a scripted repository whose history goes on after the fix (later
//! commits, a side branch, tags, an unreachable object): contents of every state, the
//! leak checks run independently of the gate, the gate refusing leaky repositories one
//! check at a time, shared packs, and `hunkgen checkout`.

use crate::common::{git, hunkgen, Script};
use hunkgen::git::{check_state, GateCheck, GateError, GateSpec};
use hunkgen::model::{Expected, Instance, PartialSource, Scenario, StateKind, StateManifest};
use hunkgen::states::{self, PartialChange, PartialStrategy, StateRequest};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

const CALC: &str = "src/main/java/org/acme/Calc.java";
const CALC_TEST: &str = "src/test/java/org/acme/CalcTest.java";
/// The longest line the fix adds (in its third hunk): the leak probe of Novel and of
/// Partial states that omit that hunk.
const MUL_LINE: &str = "return Math.multiplyExact(a, b); // overflow-checked product";

/// Calc.java with three methods far apart; `fixed` selects which of them are fixed.
fn calc(fixed: [bool; 3], extra: &str) -> String {
    let filler = |tag: &str| -> String {
        (0..8)
            .map(|i| format!("    // {tag} note {i}\n"))
            .collect::<String>()
    };
    let add = if fixed[0] {
        "        return Math.addExact(a, b);\n"
    } else {
        "        return a + b;\n"
    };
    let sub = if fixed[1] {
        "        return Math.subtractExact(a, b);\n"
    } else {
        "        return a - b;\n"
    };
    let mul = if fixed[2] {
        format!("        {MUL_LINE}\n")
    } else {
        "        return a * b;\n".to_string()
    };
    format!(
        "package org.acme;\n\npublic class Calc {{\n    public static long add(long a, long b) {{\n{add}    }}\n{}\n    public static long sub(long a, long b) {{\n{sub}    }}\n{}\n    public static long mul(long a, long b) {{\n{mul}    }}\n{extra}}}\n",
        filler("add"),
        filler("sub"),
    )
}

fn calc_test(fixed: bool) -> String {
    let extra = if fixed {
        "    @Test public void overflow() { assertThrows(ArithmeticException.class, () -> Calc.mul(Long.MAX_VALUE, 2)); }\n"
    } else {
        ""
    };
    format!("package org.acme;\n\npublic class CalcTest {{\n    @Test public void adds() {{ assertEquals(3, Calc.add(1, 2)); }}\n{extra}}}\n")
}

/// `hunkgen build` of a git-source recipe on `repo`: the dataset and its instances.
fn build_dataset(repo: &Path) -> (tempfile::TempDir, PathBuf, Vec<Instance>) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let recipe = tmp.path().join("r.yaml");
    std::fs::write(
        &recipe,
        format!(
            "name: calc\noutput: out\nsource:\n  git:\n    repo: {}\n    name: calc\nfiles:\n  code_extensions: [java]\nselect:\n  min_code_hunks: 2\n",
            repo.display()
        ),
    )
    .expect("recipe");
    hunkgen()
        .args(["build", "-q"])
        .arg(&recipe)
        .assert()
        .success();
    let dataset = tmp.path().join("out");
    let instances = hunkgen::dataset::read_instances(&dataset).expect("instances");
    (tmp, dataset, instances)
}

/// The source repository and a dataset built from it by `hunkgen build`.
struct Fixture {
    src: Script,
    _tmp: tempfile::TempDir,
    dataset: PathBuf,
    inst: Instance,
    base: String,
    fix: String,
    fix_message: String,
}

impl Fixture {
    fn new() -> Fixture {
        let mut src = Script::new();
        src.write(CALC, &calc([false; 3], ""));
        src.write(CALC_TEST, &calc_test(false));
        src.write("README.md", "calc\n");
        src.commit("Initial import");
        src.write("README.md", "calc: checked arithmetic\n");
        let base = src.commit("Describe the project");
        src.write(CALC, &calc([true; 3], ""));
        src.write(CALC_TEST, &calc_test(true));
        let fix_message = "Fix overflow in add, sub and mul\n\nUse the exact operations.";
        let fix = src.commit(fix_message);
        src.git(&["tag", "v1.0"]);
        src.git(&["tag", "-a", "-m", "release 1.1", "v1.1"]);
        src.write(
            CALC,
            &calc(
                [true; 3],
                "    public static long later() { return 42; } // LATER-WORK\n",
            ),
        );
        src.commit("Later work on the calculator");
        src.git(&["checkout", "-q", "-b", "side", &base]);
        src.write("SIDE.md", "side branch\n");
        src.commit("Side experiment");
        src.git(&["checkout", "-q", "main"]);
        let loose = src.dir.join("unreachable.txt");
        std::fs::write(&loose, "UNREACHABLE-SECRET\n").expect("write");
        src.git(&["hash-object", "-w", "unreachable.txt"]);
        std::fs::remove_file(&loose).expect("rm");

        let (tmp, dataset, instances) = build_dataset(&src.dir);
        assert_eq!(instances.len(), 1, "one fix commit");
        let inst = instances.into_iter().next().expect("one");
        assert_eq!(inst.fix_commit, fix);
        assert_eq!(inst.base_commit, base);
        assert_eq!(inst.stats.hunks, 3);
        Fixture {
            src,
            _tmp: tmp,
            dataset,
            inst,
            base,
            fix,
            fix_message: fix_message.to_string(),
        }
    }

    fn show(&self, rev: &str, path: &str) -> String {
        self.src.git(&["show", &format!("{rev}:{path}")]) + "\n"
    }

    fn partial(&self) -> PartialChange {
        states::partial_change(
            &self.inst,
            &self.src.dir,
            &PartialStrategy::HunkSubset {
                cap: states::SUBSET_CAP,
            },
            None,
        )
        .expect("partial")
    }

    fn materialize(
        &self,
        state: StateKind,
        scenario: Scenario,
        with_tests: bool,
        dir: &Path,
    ) -> StateManifest {
        let partial = self.partial();
        let req = StateRequest {
            instance: &self.inst,
            repo: &self.src.dir,
            state,
            scenario,
            with_tests,
            partial: Some(&partial),
        };
        states::materialize(&req, dir, None)
            .expect("materialize")
            .manifest
    }
}

fn text(dir: &Path, args: &[&str]) -> String {
    String::from_utf8(git(dir, args))
        .expect("utf-8")
        .trim()
        .to_string()
}

fn read(dir: &Path, path: &str) -> String {
    std::fs::read_to_string(dir.join(path)).expect("read state file")
}

/// Every file under `dir` except `.git`, with its content.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
            let p = e.path();
            if p.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).expect("prefix").display().to_string();
                out.push((rel, std::fs::read(&p).expect("read")));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The leak checks of ARCHITECTURE §6, run here with plain git rather than through the gate.
fn assert_no_leak(dir: &Path, fix: &str, fix_hidden: bool) {
    let stored = text(dir, &["cat-file", "--batch-all-objects", "--batch-check"])
        .lines()
        .count();
    let reachable = text(dir, &["rev-list", "--objects", "--all"])
        .lines()
        .count();
    assert_eq!(stored, reachable, "{}: stored = reachable", dir.display());
    assert_eq!(
        text(
            dir,
            &["fsck", "--unreachable", "--no-reflogs", "--no-progress"]
        ),
        ""
    );
    assert_eq!(
        text(dir, &["for-each-ref", "--format=%(refname)"]),
        "refs/heads/main"
    );
    assert_eq!(text(dir, &["symbolic-ref", "HEAD"]), "refs/heads/main");
    assert_eq!(text(dir, &["tag"]), "");
    assert_eq!(text(dir, &["remote"]), "");
    assert_eq!(
        text(dir, &["status", "--porcelain", "--untracked-files=all"]),
        ""
    );
    let git_dir = dir.join(".git");
    assert!(!git_dir.join("logs").exists(), "no reflogs");
    for f in ["FETCH_HEAD", "ORIG_HEAD", "packed-refs"] {
        assert!(!git_dir.join(f).exists(), "{f}");
    }
    assert!(!git_dir.join("objects/info/alternates").exists());
    let subjects = text(dir, &["log", "--all", "--format=%s"]);
    assert!(!subjects.contains("Later work"), "{subjects}");
    assert!(!subjects.contains("Side experiment"), "{subjects}");
    assert_eq!(
        text(dir, &["log", "--all", "-SLATER-WORK", "--format=%H"]),
        ""
    );
    assert_eq!(
        text(
            dir,
            &["log", "--all", "-SUNREACHABLE-SECRET", "--format=%H"]
        ),
        ""
    );
    let head_time: i64 = text(dir, &["log", "-1", "--format=%ct"])
        .parse()
        .expect("time");
    for t in text(dir, &["log", "--all", "--format=%at%n%ct"]).lines() {
        assert!(t.parse::<i64>().expect("time") <= head_time, "later commit");
    }
    let fix_stored = std::process::Command::new("git")
        .current_dir(dir)
        .args(["cat-file", "-e", fix])
        .status()
        .expect("git runs")
        .success();
    if fix_hidden {
        assert!(!fix_stored, "fix commit absent");
        assert_eq!(
            text(
                dir,
                &["log", "--all", &format!("-S{MUL_LINE}"), "--format=%H"]
            ),
            ""
        );
    }
}

fn inode(p: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).expect("metadata").ino()
}

fn history_pack(repo: &Path) -> PathBuf {
    let dir = repo.join(".git/objects/pack");
    std::fs::read_dir(&dir)
        .expect("pack dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "pack"))
        .max_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
        .expect("a pack")
}

#[test]
fn every_state_has_its_tree_no_leak_and_shared_packs() {
    let fx = Fixture::new();
    let partial = fx.partial();
    assert_eq!(partial.hunks_applied, vec![0, 1], "largest subset first");
    assert_eq!(
        partial.source,
        PartialSource::HunkSubset { omitted: vec![2] }
    );
    let which: Vec<(StateKind, Scenario)> = StateKind::ALL
        .iter()
        .flat_map(|&s| [(s, Scenario::Best), (s, Scenario::Worst)])
        .collect();
    let manifests = states::materialize_instance(
        &fx.dataset,
        &fx.inst,
        &fx.src.dir,
        &which,
        false,
        Some(&partial),
    )
    .expect("states");
    assert_eq!(manifests.len(), 6);
    let dir = |s, sc| states::state_dir(&fx.dataset, &fx.inst.instance_id, s, sc, false);
    let repo = |s, sc| dir(s, sc).join("repo");

    // Manifests: beside the repository, read back equal.
    for m in &manifests {
        let path = dir(m.state, m.scenario).join("manifest.yaml");
        assert_eq!(&states::read_manifest(&path).expect("manifest"), m);
        assert_eq!(m.FAIL_TO_PASS, fx.inst.FAIL_TO_PASS);
        assert_eq!(m.verification, None);
        assert!(!m.tests_present);
        let expected = if m.state == StateKind::Resolved {
            Expected::Abstain
        } else {
            Expected::Fix
        };
        assert_eq!(m.expected, expected);
        assert_eq!(m.gate.is_empty(), m.scenario == Scenario::Worst);
    }

    // Contents: base, base + hunks 0 and 1, base + patch; tests never applied.
    let novel = repo(StateKind::Novel, Scenario::Best);
    let part = repo(StateKind::Partial, Scenario::Best);
    let resolved = repo(StateKind::Resolved, Scenario::Best);
    assert_eq!(read(&novel, CALC), fx.show(&fx.base, CALC));
    assert_eq!(read(&part, CALC), calc([true, true, false], ""));
    assert_eq!(read(&resolved, CALC), fx.show(&fx.fix, CALC));
    for r in [&novel, &part, &resolved] {
        assert_eq!(read(r, CALC_TEST), fx.show(&fx.base, CALC_TEST));
        assert_eq!(read(r, "README.md"), "calc: checked arithmetic\n");
        assert!(!r.join("SIDE.md").exists());
    }
    // Worst = Best's work tree, without .git.
    for s in StateKind::ALL {
        let worst = repo(s, Scenario::Worst);
        assert!(!worst.join(".git").exists(), "worst has no .git");
        assert_eq!(files(&worst), files(&repo(s, Scenario::Best)), "{s:?}");
    }

    // History: Novel ends at the base, Partial and Resolved add one commit on it.
    assert_eq!(text(&novel, &["rev-parse", "HEAD"]), fx.base);
    assert_eq!(text(&part, &["rev-parse", "HEAD^"]), fx.base);
    assert_eq!(
        text(&part, &["log", "-1", "--format=%B"]),
        "work in progress"
    );
    let base_time: i64 = fx
        .src
        .git(&["log", "-1", "--format=%ct", &fx.base])
        .parse()
        .expect("t");
    assert_eq!(
        text(&part, &["log", "-1", "--format=%at %ct"]),
        format!("{} {}", base_time + 1, base_time + 1)
    );
    assert_eq!(text(&resolved, &["rev-parse", "HEAD^"]), fx.base);
    assert_eq!(
        text(&resolved, &["log", "-1", "--format=%B"]),
        fx.fix_message
    );
    let who = "--format=%an <%ae> %at %cn <%ce> %ct";
    assert_eq!(
        text(&resolved, &["log", "-1", who]),
        fx.src.git(&["log", "-1", who, &fx.fix])
    );
    assert_eq!(
        manifests[4].head_commit.as_deref(),
        Some(text(&resolved, &["rev-parse", "HEAD"]).as_str())
    );

    // No leak, checked with git directly.
    assert_no_leak(&novel, &fx.fix, true);
    assert_no_leak(&part, &fx.fix, true);
    assert_no_leak(&resolved, &fx.fix, false);
    assert!(
        !text(
            &resolved,
            &["log", "--all", &format!("-S{MUL_LINE}"), "--format=%H"]
        )
        .is_empty(),
        "the probe does find the fix where it is"
    );

    // One history pack, hardlinked into all three Best states.
    let packs: Vec<PathBuf> = [&novel, &part, &resolved].map(|r| history_pack(r)).to_vec();
    assert_eq!(inode(&packs[0]), inode(&packs[1]));
    assert_eq!(inode(&packs[0]), inode(&packs[2]));
    let idx = |p: &Path| p.with_extension("idx");
    assert_eq!(inode(&idx(&packs[0])), inode(&idx(&packs[2])));
    // Partial and Resolved hold one extra pack each (their own commit), Novel none.
    let count = |r: &Path| {
        std::fs::read_dir(r.join(".git/objects/pack"))
            .expect("dir")
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "pack"))
            .count()
    };
    assert_eq!([count(&novel), count(&part), count(&resolved)], [1, 2, 2]);
    assert_eq!(
        text(&part, &["count-objects", "-v"]).lines().next(),
        Some("count: 0")
    );
}

#[test]
fn with_tests_resolved_is_the_fix_commit_itself() {
    let fx = Fixture::new();
    let tmp = tempfile::tempdir().expect("tempdir");
    let best = tmp.path().join("best");
    let m = fx.materialize(StateKind::Resolved, Scenario::Best, true, &best);
    assert!(m.tests_present);
    assert_eq!(read(&best, CALC_TEST), fx.show(&fx.fix, CALC_TEST));
    // Same parent, tree, identities, dates and message: the very same commit object.
    assert_eq!(m.head_commit.as_deref(), Some(fx.fix.as_str()));
    assert_no_leak(&best, &fx.fix, false);
    // Novel with tests: the tests arrive in a neutral commit, the fix stays absent.
    let novel = tmp.path().join("novel");
    let m = fx.materialize(StateKind::Novel, Scenario::Best, true, &novel);
    assert_eq!(read(&novel, CALC_TEST), fx.show(&fx.fix, CALC_TEST));
    assert_eq!(read(&novel, CALC), fx.show(&fx.base, CALC));
    assert_eq!(m.hunks_applied, Vec::<usize>::new());
    assert_no_leak(&novel, &fx.fix, true);
    let worst = tmp.path().join("worst");
    fx.materialize(StateKind::Partial, Scenario::Worst, true, &worst);
    assert_eq!(read(&worst, CALC_TEST), fx.show(&fx.fix, CALC_TEST));
    assert_eq!(read(&worst, CALC), calc([true, true, false], ""));
}

#[test]
fn a_non_empty_target_is_refused_and_nothing_is_left_behind() {
    let fx = Fixture::new();
    let tmp = tempfile::tempdir().expect("tempdir");
    let target = tmp.path().join("t");
    std::fs::create_dir(&target).expect("mkdir");
    std::fs::write(target.join("keep"), "x").expect("write");
    let partial = fx.partial();
    let req = StateRequest {
        instance: &fx.inst,
        repo: &fx.src.dir,
        state: StateKind::Novel,
        scenario: Scenario::Best,
        with_tests: false,
        partial: Some(&partial),
    };
    let err = states::materialize(&req, &target, None).expect_err("refused");
    assert!(err.to_string().contains("not empty"), "{err}");
    // An empty directory is fine; no hidden temporaries remain.
    let empty = tmp.path().join("e");
    std::fs::create_dir(&empty).expect("mkdir");
    states::materialize(&req, &empty, None).expect("empty dir accepted");
    let names: Vec<String> = std::fs::read_dir(tmp.path())
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

/// Run the gate as Novel would be gated.
fn gate_novel(fx: &Fixture, dir: &Path) -> Result<(), GateError> {
    let spec = GateSpec {
        absent_commits: vec![fx.fix.clone()],
        probes: vec![MUL_LINE.as_bytes().to_vec()],
    };
    check_state(dir, &spec).map(|_| ())
}

fn refused_by(res: Result<(), GateError>) -> GateCheck {
    match res {
        Err(GateError::Failed { check, .. }) => check,
        other => panic!("expected a failed check, got {other:?}"),
    }
}

#[test]
fn the_gate_refuses_each_kind_of_leak() {
    let fx = Fixture::new();
    let tmp = tempfile::tempdir().expect("tempdir");
    let fresh = |name: &str| -> PathBuf {
        let d = tmp.path().join(name);
        fx.materialize(StateKind::Novel, Scenario::Best, false, &d);
        gate_novel(&fx, &d).expect("a fresh state passes");
        d
    };
    let src_objects = fx.src.dir.join(".git/objects");
    type Mutation<'a> = (&'a str, GateCheck, Box<dyn Fn(&Path) + 'a>);
    let mutations: Vec<Mutation<'_>> = vec![
        (
            "alternates",
            GateCheck::OwnStore,
            Box::new(|d: &Path| {
                std::fs::write(
                    d.join(".git/objects/info/alternates"),
                    format!("{}\n", src_objects.display()),
                )
                .expect("write")
            }),
        ),
        (
            "reflog",
            GateCheck::NoReflogs,
            Box::new(|d: &Path| {
                std::fs::create_dir_all(d.join(".git/logs")).expect("mkdir");
                std::fs::write(d.join(".git/logs/HEAD"), "x\n").expect("write");
            }),
        ),
        (
            "orig-head",
            GateCheck::NoSpecialHeads,
            Box::new(|d: &Path| {
                std::fs::write(d.join(".git/ORIG_HEAD"), format!("{}\n", fx.base)).expect("w")
            }),
        ),
        (
            "tag",
            GateCheck::NoTags,
            Box::new(|d: &Path| {
                git(d, &["tag", "v0"]);
            }),
        ),
        (
            "remote",
            GateCheck::NoRemotes,
            Box::new(|d: &Path| {
                git(
                    d,
                    &["remote", "add", "origin", &fx.src.dir.display().to_string()],
                );
            }),
        ),
        (
            "branch",
            GateCheck::OneBranch,
            Box::new(|d: &Path| {
                git(d, &["branch", "other"]);
            }),
        ),
        (
            "unreachable-object",
            GateCheck::StoredIsReachable,
            Box::new(|d: &Path| {
                let f = d.join(".git/secret");
                std::fs::write(&f, "UNREACHABLE-SECRET\n").expect("write");
                git(d, &["hash-object", "-w", ".git/secret"]);
                std::fs::remove_file(f).expect("rm");
            }),
        ),
        (
            "fix-fetched",
            GateCheck::FixAbsent,
            Box::new(|d: &Path| {
                // The fix's history, then main moved onto it: every object reachable.
                git(
                    d,
                    &[
                        "fetch",
                        "-q",
                        "--no-tags",
                        &fx.src.dir.display().to_string(),
                        &fx.fix,
                    ],
                );
                std::fs::remove_file(d.join(".git/FETCH_HEAD")).expect("rm");
                git(d, &["update-ref", "refs/heads/main", &fx.fix]);
                git(d, &["reset", "-q", "--hard"]);
                let _ = std::fs::remove_file(d.join(".git/ORIG_HEAD"));
            }),
        ),
        (
            "earlier-head",
            GateCheck::NoLaterCommit,
            Box::new(|d: &Path| {
                // A commit dated before its parent (tick 0 is before every fixture commit).
                crate::common::git_at(d, &["commit", "-q", "--allow-empty", "-m", "x"], 0);
                std::fs::remove_file(d.join(".git/COMMIT_EDITMSG")).expect("rm");
            }),
        ),
        (
            "dirty",
            GateCheck::CleanTree,
            Box::new(|d: &Path| std::fs::write(d.join("README.md"), "edited\n").expect("w")),
        ),
    ];
    for (name, check, mutate) in &mutations {
        let d = fresh(name);
        mutate(&d);
        assert_eq!(refused_by(gate_novel(&fx, &d)), *check, "{name}");
    }

    // The pickaxe: a commit on the state adding the fix's line, all else in order.
    let d = fresh("pickaxe");
    std::fs::write(d.join(CALC), calc([false, false, true], "")).expect("write");
    git(&d, &["commit", "-q", "-am", "wip"]);
    std::fs::remove_file(d.join(".git/COMMIT_EDITMSG")).expect("rm");
    assert_eq!(refused_by(gate_novel(&fx, &d)), GateCheck::Pickaxe);

    // A plain clone of the source leaks in several ways; the gate refuses it.
    let clone = tmp.path().join("clone");
    git(
        tmp.path(),
        &[
            "clone",
            "-q",
            "--no-local",
            &fx.src.dir.display().to_string(),
            "clone",
        ],
    );
    git(&clone, &["reset", "-q", "--hard", &fx.base]);
    let _ = std::fs::remove_file(clone.join(".git/ORIG_HEAD"));
    refused_by(gate_novel(&fx, &clone));
    // A worktree of the source shares its store.
    git(
        &fx.src.dir,
        &[
            "worktree",
            "add",
            "-q",
            "--detach",
            &tmp.path().join("wt").display().to_string(),
            &fx.base,
        ],
    );
    assert_eq!(
        refused_by(gate_novel(&fx, &tmp.path().join("wt"))),
        GateCheck::OwnStore
    );
}

#[test]
fn a_gate_failure_publishes_nothing() {
    // Clock skew in the source: the base is dated before its parent, so a Novel state
    // would hold a commit dated after its HEAD.
    let mut src = Script::new();
    src.tick = 10;
    src.write(CALC, &calc([false; 3], ""));
    src.write(CALC_TEST, &calc_test(false));
    src.commit("Initial import");
    src.tick = 0;
    src.write("README.md", "calc\n");
    src.commit("Describe the project");
    src.tick = 20;
    src.write(CALC, &calc([true; 3], ""));
    src.write(CALC_TEST, &calc_test(true));
    src.commit("Fix overflow in add, sub and mul");
    let (_tmp, _dataset, instances) = build_dataset(&src.dir);
    let inst = &instances[0];
    let out = tempfile::tempdir().expect("tempdir");
    let target = out.path().join("novel");
    let req = StateRequest {
        instance: inst,
        repo: &src.dir,
        state: StateKind::Novel,
        scenario: Scenario::Best,
        with_tests: false,
        partial: None,
    };
    let err = states::materialize(&req, &target, None).expect_err("refused");
    assert!(
        matches!(
            err,
            states::StatesError::Gate(GateError::Failed {
                check: GateCheck::NoLaterCommit,
                ..
            })
        ),
        "{err}"
    );
    assert!(err.to_string().contains("no-later-commit"), "{err}");
    assert_eq!(
        std::fs::read_dir(out.path()).expect("dir").count(),
        0,
        "neither the state nor its temporaries are left"
    );
    // Worst has no history to leak and is still made.
    let req = StateRequest {
        scenario: Scenario::Worst,
        ..req
    };
    states::materialize(&req, &target, None).expect("worst");
    assert_eq!(read(&target, CALC), calc([false; 3], ""));
}

#[test]
fn patch_file_partial_and_the_leak_probe() {
    let fx = Fixture::new();
    let tmp = tempfile::tempdir().expect("tempdir");
    // An external weak patch: only the mul hunk of the fix.
    let patches = tmp.path().join("patches");
    std::fs::create_dir(&patches).expect("mkdir");
    let golden = states::golden_patch(&fx.inst).expect("patch");
    let mul_only = states::subset_patch(&golden, &[2]);
    std::fs::write(
        patches.join(format!("{}.patch", fx.inst.instance_id)),
        mul_only.to_bytes(),
    )
    .expect("write");
    let partial = states::partial_change(
        &fx.inst,
        &fx.src.dir,
        &PartialStrategy::PatchFile { dir: patches },
        None,
    )
    .expect("patch file applies");
    assert!(partial.hunks_applied.is_empty());
    let target = tmp.path().join("p");
    let req = StateRequest {
        instance: &fx.inst,
        repo: &fx.src.dir,
        state: StateKind::Partial,
        scenario: Scenario::Best,
        with_tests: false,
        partial: Some(&partial),
    };
    // The probe skips lines the state itself holds: the gate looks for the longest fix
    // line the state lacks (the subtractExact line), and finds none.
    let done = states::materialize(&req, &target, None).expect("passes");
    assert!(matches!(
        done.manifest.partial,
        Some(PartialSource::PatchFile { .. })
    ));
    assert_eq!(read(&target, CALC), calc([false, false, true], ""));
    let probe = states::leak_probe(&fx.inst, &fx.src.dir, &[], Some(&partial.patch))
        .expect("probe")
        .expect("some line");
    assert_eq!(
        String::from_utf8(probe).expect("utf-8"),
        "return Math.subtractExact(a, b);"
    );
    assert_no_leak(&target, &fx.fix, false);
    assert_eq!(
        text(
            &target,
            &[
                "log",
                "--all",
                "-Sreturn Math.subtractExact(a, b);",
                "--format=%H"
            ]
        ),
        ""
    );
}

#[test]
fn patch_file_partial_is_verified_by_running_and_refusals_say_why() {
    let fx = Fixture::new();
    let tmp = tempfile::tempdir().expect("tempdir");
    let patches = tmp.path().join("patches");
    std::fs::create_dir(&patches).expect("mkdir");
    let golden = states::golden_patch(&fx.inst).expect("patch");
    let file = patches.join(format!("{}.patch", fx.inst.instance_id));
    let strategy = PartialStrategy::PatchFile { dir: patches };
    // "Still fails" while the mul fix is missing, as a golden-test run would say.
    let scratch = tempfile::tempdir().expect("tempdir");
    let check = |d: &Path| !read(d, CALC).contains("multiplyExact");
    let verify = states::worst_state_verifier(&fx.inst, &fx.src.dir, scratch.path(), &check);
    let partial = |bytes: Vec<u8>| {
        std::fs::write(&file, bytes).expect("write");
        states::partial_change(&fx.inst, &fx.src.dir, &strategy, Some(&verify))
    };
    // The whole fix passes the verifier's tests: not a Partial state.
    let e = partial(golden.to_bytes())
        .expect_err("resolves")
        .to_string();
    assert!(
        e.contains("every golden test (FAIL_TO_PASS and PASS_TO_PASS) passes"),
        "{e}"
    );
    // The mul hunk alone fixes what the verifier checks: refused too.
    let e = partial(states::subset_patch(&golden, &[2]).to_bytes())
        .expect_err("passes")
        .to_string();
    assert!(
        e.contains("every golden test (FAIL_TO_PASS and PASS_TO_PASS) passes"),
        "{e}"
    );
    // Without the mul hunk it still fails: kept, and not as golden hunks.
    let kept = partial(states::subset_patch(&golden, &[0, 1]).to_bytes()).expect("still fails");
    assert!(kept.hunks_applied.is_empty());
    assert!(matches!(kept.source, PartialSource::PatchFile { .. }));
    // An empty weak patch changes nothing.
    let e = partial(Vec::new()).expect_err("empty").to_string();
    assert!(e.contains("is empty"), "{e}");
}

#[test]
fn hunk_subsets_are_proper_largest_first_and_capped() {
    let fx = Fixture::new();
    let all = states::hunk_subsets(&fx.inst, 64);
    assert_eq!(
        all,
        vec![
            vec![0, 1],
            vec![0, 2],
            vec![1, 2],
            vec![0],
            vec![1],
            vec![2]
        ]
    );
    assert_eq!(states::hunk_subsets(&fx.inst, 2).len(), 2);
    assert_eq!(states::choose_partial(&all, None), Some(&[0, 1][..]));
    let no_mul_first = |s: &[usize]| s.contains(&2);
    assert_eq!(
        states::choose_partial(&all, Some(&no_mul_first)),
        Some(&[0, 2][..])
    );
    assert_eq!(
        states::choose_partial(&all, Some(&|_: &[usize]| false)),
        None
    );

    // The Worst-state verifier sees base + subset + golden tests in a directory.
    let scratch = tempfile::tempdir().expect("tempdir");
    let seen = std::cell::RefCell::new(Vec::new());
    let check = |d: &Path| {
        seen.borrow_mut().push((read(d, CALC), read(d, CALC_TEST)));
        // "Still fails": the mul fix is missing.
        !read(d, CALC).contains("multiplyExact")
    };
    let verify = states::worst_state_verifier(&fx.inst, &fx.src.dir, scratch.path(), &check);
    let change = states::partial_change(
        &fx.inst,
        &fx.src.dir,
        &PartialStrategy::HunkSubset { cap: 64 },
        Some(&verify),
    )
    .expect("partial");
    assert_eq!(change.hunks_applied, vec![0, 1]);
    let seen = seen.borrow().clone();
    assert_eq!(seen.len(), 1, "the largest subset was accepted at once");
    assert_eq!(seen[0].0, calc([true, true, false], ""));
    assert_eq!(seen[0].1, calc_test(true));
    assert_eq!(
        std::fs::read_dir(scratch.path()).expect("dir").count(),
        0,
        "verification directories are removed"
    );
}

#[test]
fn checkout_cli_materializes_and_explains_refusals() {
    let fx = Fixture::new();
    let tmp = tempfile::tempdir().expect("tempdir");
    let target = tmp.path().join("state");
    let out = hunkgen()
        .arg("checkout")
        .arg(&fx.dataset)
        .arg(&fx.inst.instance_id)
        .args(["--state", "partial", "--scenario", "best"])
        .arg(&target)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let m: StateManifest = serde_norway::from_slice(&out).expect("manifest on stdout");
    assert_eq!(m.state, StateKind::Partial);
    assert_eq!(m.hunks_applied, vec![0, 1]);
    assert!(m.gate.iter().any(|c| c == "pickaxe"), "{:?}", m.gate);
    assert_eq!(read(&target, CALC), calc([true, true, false], ""));
    assert_no_leak(&target, &fx.fix, true);

    // Worst with tests and a manifest file.
    let worst = tmp.path().join("worst");
    let manifest = tmp.path().join("worst.yaml");
    hunkgen()
        .arg("checkout")
        .arg(&fx.dataset)
        .arg(&fx.inst.instance_id)
        .args([
            "--state",
            "resolved",
            "--scenario",
            "worst",
            "--with-tests",
            "--manifest",
        ])
        .arg(&manifest)
        .arg(&worst)
        .assert()
        .success();
    assert!(!worst.join(".git").exists());
    assert_eq!(read(&worst, CALC_TEST), fx.show(&fx.fix, CALC_TEST));
    let m = states::read_manifest(&manifest).expect("manifest");
    assert_eq!(
        (m.state, m.scenario, m.expected),
        (StateKind::Resolved, Scenario::Worst, Expected::Abstain)
    );

    let one_line_error = |args: &[&str], dir: &Path, needle: &str| {
        let out = hunkgen()
            .arg("checkout")
            .arg(&fx.dataset)
            .args(args)
            .arg(dir)
            .assert()
            .code(1)
            .get_output()
            .stderr
            .clone();
        let err = String::from_utf8(out).expect("utf-8");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{err}");
    };
    let id = fx.inst.instance_id.as_str();
    one_line_error(
        &[id, "--state", "novel", "--scenario", "best"],
        &target,
        "not empty",
    );
    one_line_error(
        &[
            "calc-000000000000",
            "--state",
            "novel",
            "--scenario",
            "best",
        ],
        &tmp.path().join("x"),
        "no instance `calc-000000000000`",
    );
    one_line_error(
        &[
            id,
            "--state",
            "novel",
            "--scenario",
            "best",
            "--repo",
            "/nonexistent/repo",
        ],
        &tmp.path().join("y"),
        "not a git repository",
    );
    // A card without the repository names what to do.
    let card = fx.dataset.join("dataset.yaml");
    let text = std::fs::read_to_string(&card).expect("card");
    assert!(text.contains("repositories:"), "{text}");
    let stripped: String = text
        .lines()
        .filter(|l| !l.starts_with("repositories:") && !l.starts_with("  calc:"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&card, stripped).expect("write");
    one_line_error(
        &[id, "--state", "novel", "--scenario", "best"],
        &tmp.path().join("z"),
        "--repo PATH",
    );
    assert!(!tmp.path().join("z").exists());

    hunkgen()
        .args(["checkout", "--help"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("Examples (make demo").and(predicate::str::contains(
                "acme-14c2831b2f4c --state partial",
            )),
        );
    hunkgen()
        .args([
            "checkout",
            "d",
            "i",
            "--state",
            "half",
            "--scenario",
            "best",
            "x",
        ])
        .assert()
        .code(2);
}

/// A class with eight methods far apart; `fixed[m]` selects method m's fixed body.
fn many(fixed: [bool; 8]) -> String {
    let mut s = String::from("package org.acme;\n\npublic class Many {\n");
    for (m, f) in fixed.iter().enumerate() {
        let body = if *f {
            format!("        return Math.addExact(x, {m}); // fixed m{m}\n")
        } else {
            format!("        return x + {m};\n")
        };
        s.push_str(&format!("    static long m{m}(long x) {{\n{body}    }}\n"));
        for i in 0..8 {
            s.push_str(&format!("    // m{m} note {i}\n"));
        }
    }
    s.push_str("}\n");
    s
}

/// Number of objects in a pack, read from its index.
fn pack_objects(idx: &Path) -> usize {
    let out = std::process::Command::new("git")
        .args(["show-index"])
        .stdin(std::fs::File::open(idx).expect("idx"))
        .output()
        .expect("git show-index");
    String::from_utf8_lossy(&out.stdout).lines().count()
}

#[test]
fn layered_packs_share_history_across_instances() {
    const MANY: &str = "src/main/java/org/acme/Many.java";
    const MANY_TEST: &str = "src/test/java/org/acme/ManyTest.java";
    let mut src = Script::new();
    let mut fixed = [false; 8];
    src.write(MANY, &many(fixed));
    src.write(MANY_TEST, "tests 0\n");
    src.commit("Initial import");
    let mut fixes = Vec::new();
    let mut fix1 = String::new();
    for k in 0..4 {
        src.write("README.md", &format!("notes {k}\n"));
        src.commit(&format!("Notes {k}"));
        fixed[2 * k] = true;
        fixed[2 * k + 1] = true;
        src.write(MANY, &many(fixed));
        src.write(MANY_TEST, &format!("tests {}\n", k + 1));
        let id = src.commit(&format!("Fix overflow in m{} and m{}", 2 * k, 2 * k + 1));
        if k == 0 {
            fix1 = id.clone();
        }
        fixes.push(id);
    }
    // A fix on a side branch: its base is no descendant of the later main bases.
    src.git(&["checkout", "-q", "-b", "side", &fix1]);
    src.write("SIDE.md", "side\n");
    src.commit("Side notes");
    src.write(
        MANY,
        &many([true, true, false, false, false, false, true, true]),
    );
    src.write(MANY_TEST, "tests side\n");
    src.commit("Fix overflow in m6 and m7 on the side branch");
    // Released from the side branch (tags are walked, as what shipped).
    src.git(&["tag", "v0.9.1"]);
    src.git(&["checkout", "-q", "main"]);

    let (_tmp, dataset, instances) = build_dataset(&src.dir);
    assert_eq!(instances.len(), 5);
    let refs: Vec<&Instance> = instances.iter().collect();
    let which = [
        (StateKind::Novel, Scenario::Best),
        (StateKind::Resolved, Scenario::Best),
    ];
    let results = states::materialize_layered(&dataset, &src.dir, &refs, &which, false, &|_| None)
        .expect("layered");
    for (id, r) in &results {
        assert!(
            r.is_ok(),
            "{id}: {:?}",
            r.as_ref().err().map(|e| e.to_string())
        );
    }

    let bases: Vec<&str> = refs.iter().map(|i| i.base_commit.as_str()).collect();
    let store = states::LayeredStore::new(&src.dir, &states::layers_dir(&dataset, "calc"), &bases)
        .expect("store");
    assert_eq!(
        store.chains().iter().map(Vec::len).collect::<Vec<_>>(),
        vec![4, 1],
        "main's bases on one chain, the side base on its own"
    );
    let main_chain = store.chains()[0].clone();

    let segment_inodes: std::collections::BTreeSet<u64> =
        walk_packs(&states::layers_dir(&dataset, "calc"))
            .iter()
            .map(|p| inode(p))
            .collect();
    let mut stored_sum = 0;
    for inst in &instances {
        for state in [StateKind::Novel, StateKind::Resolved] {
            let repo = states::state_dir(&dataset, &inst.instance_id, state, Scenario::Best, false)
                .join("repo");
            assert_no_leak(&repo, &inst.fix_commit, state == StateKind::Novel);
            let history: Vec<PathBuf> = walk_packs(&repo.join(".git/objects/pack"))
                .into_iter()
                .filter(|p| segment_inodes.contains(&inode(p)))
                .collect();
            let expected = match main_chain.iter().position(|b| *b == inst.base_commit) {
                Some(p) => 1 + hunkgen::states::layers::decomposition(p).len(),
                None => 1,
            };
            assert_eq!(
                history.len(),
                expected,
                "{}: segment packs",
                inst.instance_id
            );
            if state == StateKind::Novel {
                stored_sum += text(&repo, &["rev-list", "--objects", "--all"])
                    .lines()
                    .count();
            }
        }
    }
    // The fourth base links the root and two segments; all five instances store fewer
    // objects in segments than one full history pack each would.
    let in_segments: usize = walk_packs(&states::layers_dir(&dataset, "calc"))
        .iter()
        .map(|p| pack_objects(&p.with_extension("idx")))
        .sum();
    assert!(
        in_segments < stored_sum,
        "segments hold {in_segments} objects, per-instance packs would hold {stored_sum}"
    );
}

/// `.pack` files under `dir`, recursively.
fn walk_packs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk_packs(&p));
        } else if p.extension().is_some_and(|x| x == "pack") {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn export_keeps_modes_and_links_and_never_writes_through_a_link() {
    use std::os::unix::fs::PermissionsExt;
    let outside = tempfile::tempdir().expect("tempdir");
    let mut src = Script::new();
    src.write("run.sh", "#!/bin/sh\necho hi\n");
    std::fs::set_permissions(
        src.dir.join("run.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .expect("chmod");
    std::os::unix::fs::symlink(outside.path(), src.dir.join("out")).expect("symlink");
    std::os::unix::fs::symlink("run.sh", src.dir.join("alias.sh")).expect("symlink");
    let head = src.commit("Initial import");
    let tmp = tempfile::tempdir().expect("tempdir");

    let plain = tmp.path().join("plain");
    hunkgen::git::export_tree(&src.dir, &head, None, &plain).expect("export");
    let mode = std::fs::metadata(plain.join("run.sh"))
        .expect("meta")
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "executable kept");
    assert_eq!(
        std::fs::read_link(plain.join("alias.sh")).expect("a link"),
        PathBuf::from("run.sh")
    );

    let evil = hunkgen::diff::parse(
        b"diff --git a/out/evil.txt b/out/evil.txt\nnew file mode 100644\n--- /dev/null\n+++ b/out/evil.txt\n@@ -0,0 +1 @@\n+gotcha\n",
    )
    .expect("patch");
    let err = hunkgen::git::export_tree(&src.dir, &head, Some(&evil), &tmp.path().join("e"))
        .expect_err("refused");
    assert!(err.to_string().contains("outside the directory"), "{err}");
    assert_eq!(
        std::fs::read_dir(outside.path()).expect("dir").count(),
        0,
        "nothing written through the link"
    );
    let dotdot =
        hunkgen::diff::parse(b"--- /dev/null\n+++ b/../escape.txt\n@@ -0,0 +1 @@\n+gotcha\n")
            .expect("patch");
    assert!(
        hunkgen::git::export_tree(&src.dir, &head, Some(&dotdot), &tmp.path().join("d")).is_err()
    );
    assert!(!tmp.path().join("escape.txt").exists());
}

/// What a state repository is to an agent: reachable and stored objects, refs, HEAD,
/// local config, status and the work tree.
fn repository_view(dir: &Path) -> Vec<String> {
    let sorted = |args: &[&str]| {
        let mut lines: Vec<String> = text(dir, args).lines().map(str::to_string).collect();
        lines.sort();
        lines.join("\n")
    };
    vec![
        sorted(&["rev-list", "--all", "--objects"]),
        sorted(&[
            "cat-file",
            "--batch-all-objects",
            "--batch-check=%(objectname) %(objecttype)",
        ]),
        text(dir, &["for-each-ref", "--format=%(refname) %(objectname)"]),
        text(dir, &["symbolic-ref", "HEAD"]),
        text(dir, &["rev-parse", "HEAD"]),
        sorted(&["config", "--local", "--list"]),
        text(
            dir,
            &[
                "status",
                "--porcelain=v1",
                "--untracked-files=all",
                "--ignored",
            ],
        ),
        format!("{:?}", files(dir)),
    ]
}

/// Inode numbers of a repository's pack files.
fn pack_inodes(git_dir: &Path) -> std::collections::BTreeSet<u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::read_dir(git_dir.join("objects/pack"))
        .expect("pack dir")
        .flatten()
        .map(|e| e.metadata().expect("meta").ino())
        .collect()
}

/// `hunkgen checkout` of a Best state the dataset holds hardlinks that state's packs,
/// and of one it does not hold links the dataset's layered history packs; either way
/// the repository and the manifest (gate included) are those of a checkout made from
/// the source alone.
#[test]
fn checkout_links_the_datasets_packs_and_makes_the_same_repository() {
    use hunkgen::states::checkout::{checkout, Checkout};
    let fx = Fixture::new();
    let which: Vec<(StateKind, Scenario)> = StateKind::ALL
        .iter()
        .map(|&s| (s, Scenario::Best))
        .collect();
    let partial = fx.partial();
    for tests in [false, true] {
        let made = states::materialize_layered(
            &fx.dataset,
            &fx.src.dir,
            &[&fx.inst],
            &which,
            tests,
            &|_| Some(partial.clone()),
        )
        .expect("states");
        assert!(made.iter().all(|(_, r)| r.is_ok()), "{made:?}");
    }
    // The same dataset without its states (a checkout as before: packed from the
    // source), and with its layered history packs only.
    let tmp = tempfile::tempdir().expect("tempdir");
    let bare = tmp.path().join("bare");
    let layered = tmp.path().join("layered");
    for d in [&bare, &layered] {
        std::fs::create_dir_all(d).expect("mkdir");
        for f in ["instances.jsonl", "dataset.yaml"] {
            std::fs::copy(fx.dataset.join(f), d.join(f)).expect("copy");
        }
    }
    let packs = states::layers_dir(&fx.dataset, &fx.inst.repo);
    let layered_packs = states::layers_dir(&layered, &fx.inst.repo);
    hunkgen::dataset::copy_tree(&packs, &layered_packs, &mut Default::default())
        .expect("copy packs");
    let request = |dataset: &Path, state, tests, target: PathBuf| Checkout {
        dataset: dataset.to_path_buf(),
        id: fx.inst.instance_id.clone(),
        state,
        scenario: Scenario::Best,
        with_tests: tests,
        partial_patches: None,
        repo: None,
        manifest: None,
        target,
    };
    for &(state, _) in &which {
        for tests in [false, true] {
            let name = format!("{}-{tests}", state.name());
            let out = |what: &str| tmp.path().join(format!("{name}-{what}"));
            let fresh = checkout(&request(&bare, state, tests, out("fresh"))).expect("fresh");
            let linked =
                checkout(&request(&fx.dataset, state, tests, out("linked"))).expect("linked");
            let from_layers =
                checkout(&request(&layered, state, tests, out("layers"))).expect("layers");
            assert!(!fresh.gate.is_empty(), "{name}: gated");
            assert_eq!(linked, fresh, "{name}: manifest");
            assert_eq!(from_layers, fresh, "{name}: manifest");
            let view = repository_view(&out("fresh"));
            assert_eq!(repository_view(&out("linked")), view, "{name}");
            assert_eq!(repository_view(&out("layers")), view, "{name}");
            assert_no_leak(&out("linked"), &fx.fix, state != StateKind::Resolved);

            // Linked, not packed again: the dataset's own pack files.
            let held = states::state_dir(
                &fx.dataset,
                &fx.inst.instance_id,
                state,
                Scenario::Best,
                tests,
            )
            .join("repo/.git");
            assert_eq!(
                pack_inodes(&out("linked").join(".git")),
                pack_inodes(&held),
                "{name}: the dataset's packs, hardlinked"
            );
            let segment_inodes: std::collections::BTreeSet<u64> = {
                use std::os::unix::fs::MetadataExt;
                let mut all = std::collections::BTreeSet::new();
                for seg in std::fs::read_dir(&layered_packs)
                    .expect("segments")
                    .flatten()
                {
                    for f in std::fs::read_dir(seg.path()).expect("segment").flatten() {
                        all.insert(f.metadata().expect("meta").ino());
                    }
                }
                all
            };
            assert!(
                pack_inodes(&out("layers").join(".git"))
                    .intersection(&segment_inodes)
                    .count()
                    >= 2,
                "{name}: the layered history pack, hardlinked"
            );
        }
    }
}

/// A fix that restores a line an old commit held and a later one removed (as many
/// Defects4J fixes do): the line is no leak probe, since `log -S` finds those old
/// commits in any honest history; the probe is the next longest line, and the Novel
/// state is written and gated.
#[test]
fn a_line_the_history_once_held_is_no_leak_probe() {
    let mut src = Script::new();
    src.write(CALC, &calc([false, false, true], ""));
    src.write(CALC_TEST, &calc_test(false));
    src.commit("Initial import");
    src.write(CALC, &calc([false; 3], ""));
    src.commit("Simplify mul");
    src.write("README.md", "calc\n");
    let base = src.commit("Describe the project");
    src.write(CALC, &calc([true; 3], ""));
    src.write(CALC_TEST, &calc_test(true));
    let fix = src.commit("Fix overflow in add, sub and mul");
    let (_tmp, _dataset, instances) = build_dataset(&src.dir);
    let inst = instances
        .into_iter()
        .find(|i| i.fix_commit == fix)
        .expect("the fix is mined");
    assert_eq!(inst.base_commit, base);

    let probe = states::leak_probe(&inst, &src.dir, &[], None)
        .expect("probe")
        .expect("some line");
    assert_eq!(
        String::from_utf8(probe).expect("utf-8"),
        "return Math.subtractExact(a, b);",
        "the longest fix line ({MUL_LINE}) was held and removed before the base"
    );
    let tmp = tempfile::tempdir().expect("tempdir");
    let target = tmp.path().join("novel");
    let req = StateRequest {
        instance: &inst,
        repo: &src.dir,
        state: StateKind::Novel,
        scenario: Scenario::Best,
        with_tests: false,
        partial: None,
    };
    let done = states::materialize(&req, &target, None).expect("the Novel state is written");
    assert!(done.manifest.gate.iter().any(|c| c == "pickaxe"));
    // Every other leak check holds (the fix's own line is in the honest history here).
    assert_no_leak(&target, &fix, false);
    let fix_stored = std::process::Command::new("git")
        .current_dir(&target)
        .args(["cat-file", "-e", &fix])
        .status()
        .expect("git runs")
        .success();
    assert!(!fix_stored, "fix commit absent");
    // The old line as a probe would refuse this honest history.
    let spec = GateSpec {
        absent_commits: vec![fix.clone()],
        probes: vec![MUL_LINE.as_bytes().to_vec()],
    };
    assert_eq!(
        refused_by(check_state(&target, &spec).map(|_| ())),
        GateCheck::Pickaxe
    );
}

#[test]
fn a_rebuild_reuses_unchanged_states_and_rewrites_changed_ones() {
    let fx = Fixture::new();
    let recipe = fx._tmp.path().join("r.yaml");
    let body = std::fs::read_to_string(&recipe).expect("recipe");
    let with_states = |kinds: &str| {
        let states = format!("states:\n  kinds: [{kinds}]\n  scenarios: [best]\n");
        std::fs::write(&recipe, format!("{body}{states}")).expect("recipe");
    };
    with_states("novel, partial, resolved");
    let id = &fx.inst.instance_id;
    let state = |name: &str| fx.dataset.join("states").join(id).join(name).join("repo");
    let rebuild = |extra: &[&str]| -> String {
        let out = hunkgen()
            .args(["build", "-q"])
            .args(extra)
            .arg(&recipe)
            .assert()
            .success();
        String::from_utf8_lossy(&out.get_output().stderr).into_owned()
    };
    rebuild(&[]);
    let before = inode(&history_pack(&state("novel-best")));
    let head = text(&state("resolved-best"), &["rev-parse", "HEAD"]);
    let dataset = inode(&fx.dataset);

    // Nothing changed: the dataset on disk is kept as it was, not swapped for a copy.
    let err = rebuild(&[]);
    assert!(err.contains("nothing changed"), "{err}");
    assert_eq!(inode(&fx.dataset), dataset, "kept");
    assert_eq!(inode(&history_pack(&state("novel-best"))), before, "kept");

    // A change to the dataset but not to the states (the recipe's bytes, which the card
    // records): a new dataset, its states linked from the one it replaces, and each
    // repository the same and clean.
    std::fs::write(
        &recipe,
        format!(
            "{}# a comment\n",
            std::fs::read_to_string(&recipe).expect("recipe")
        ),
    )
    .expect("recipe");
    let err = rebuild(&[]);
    assert!(!err.contains("nothing changed"), "{err}");
    assert_ne!(inode(&fx.dataset), dataset, "replaced");
    assert_eq!(inode(&history_pack(&state("novel-best"))), before, "reused");
    // The layered packs `checkout` recreates Best states from come along.
    let packs = fx.dataset.join("states/.packs");
    assert!(
        std::fs::read_dir(&packs).is_ok_and(|mut d| d.next().is_some()),
        "{} kept",
        packs.display()
    );
    assert_eq!(text(&state("resolved-best"), &["rev-parse", "HEAD"]), head);
    assert_eq!(text(&state("partial-best"), &["status", "--porcelain"]), "");
    let manifest = states::read_manifest(
        &fx.dataset
            .join("states")
            .join(id)
            .join("novel-best/manifest.yaml"),
    )
    .expect("manifest");
    assert_eq!(manifest.instance_id, *id);

    // --no-cache writes every state again.
    rebuild(&["--no-cache"]);
    let fresh = inode(&history_pack(&state("novel-best")));
    assert_ne!(fresh, before, "--no-cache rewrites");

    // Other states asked for: the key changes, the states are written anew.
    with_states("novel, resolved");
    rebuild(&[]);
    assert_ne!(
        inode(&history_pack(&state("novel-best"))),
        fresh,
        "rewritten"
    );
    assert!(!fx
        .dataset
        .join("states")
        .join(id)
        .join("partial-best")
        .exists());
    assert_eq!(text(&state("resolved-best"), &["rev-parse", "HEAD"]), head);
}
