//! Commit rules on a scripted history, table-driven: reverts (subject and body), duplicate
//! patches by git patch-id (cherry-picks), the size limits, merges; the funnel counts;
//! and bad histories (empty repository, shallow clone, non-UTF-8 messages).

use crate::common::Script;
use hunkgen::classify::Classifier;
use hunkgen::git::walk::ALL_BRANCHES;
use hunkgen::model::MineFunnel;
use hunkgen::progress::Progress;
use hunkgen::source::git_history::{mine, Mined};
use hunkgen::source::rules::{CommitRule, GitSourceConfig};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const CODE: &str = "src/main/java/A.java";

/// A kept fix whose message has issue references and git trailers.
const REFS_MSG: &str = "Fix f0 and f19 (#41)\n\nFixes #12; see LANG-7.\n\n\
                        Signed-off-by: Ada Tester <ada@example.org>\n\
                        Co-authored-by: Bob <bob@example.org>\n";
const REFS_SUBJECT: &str = "Fix f0 and f19 (#41)";

/// `A.java` with 40 one-line methods whose return values are `vals`.
fn java(vals: &[i64; 40]) -> String {
    let body: String = vals
        .iter()
        .enumerate()
        .map(|(i, v)| format!("    int f{i}() {{ return {v}; }}\n"))
        .collect();
    format!("class A {{\n{body}}}\n")
}

/// A scripted history with one commit per rule; `vals` is the current code.
struct Fixture {
    s: Script,
    vals: [i64; 40],
    /// Commit id per subject.
    ids: BTreeMap<String, String>,
    n: usize,
}

impl Fixture {
    fn new() -> Self {
        let mut s = Script::new();
        let vals: [i64; 40] = std::array::from_fn(|i| i as i64);
        s.write(CODE, &java(&vals));
        s.write("src/test/java/ATest.java", "class ATest {}\n");
        s.commit("Initial import");
        Fixture {
            s,
            vals,
            ids: BTreeMap::new(),
            n: 0,
        }
    }

    /// Set methods `at` to new values, add a test file (when `test`) and `docs` other
    /// files, and commit with `msg`.
    fn change(&mut self, at: &[usize], test: bool, docs: usize, msg: &str) -> String {
        self.n += 1;
        for &i in at {
            self.vals[i] += 1000;
        }
        self.s.write(CODE, &java(&self.vals));
        if test {
            self.s.write(
                &format!("src/test/java/T{}Test.java", self.n),
                &format!("class T{}Test {{}}\n", self.n),
            );
        }
        for d in 0..docs {
            self.s.write(&format!("docs/n{}-{d}.md", self.n), "notes\n");
        }
        let id = self.s.commit(msg);
        self.ids
            .insert(msg.lines().next().unwrap_or("").to_string(), id.clone());
        id
    }

    fn id(&self, subject: &str) -> &str {
        &self.ids[subject]
    }
}

/// The fixture: every rule has one commit that only it rejects.
/// `git clone --depth 2` of the fixture's main into `dir/shallow`.
fn shallow_clone(f: &Fixture, dir: &Path) -> PathBuf {
    let shallow = dir.join("shallow");
    crate::common::git(
        dir,
        &[
            "clone",
            "-q",
            "--depth",
            "2",
            "--branch",
            "main",
            &format!("file://{}", f.s.dir.display()),
            shallow.to_str().expect("utf-8 path"),
        ],
    );
    shallow
}

fn history() -> Fixture {
    let mut f = Fixture::new();
    f.change(&[5, 30], true, 0, "Fix f5 and f30");
    // A revert by subject only (no body), and one by body only.
    f.change(&[6, 31], true, 0, "Revert \"Fix the f6 thing\"");
    let fixed = f.id("Fix f5 and f30").to_string();
    f.change(
        &[8, 25],
        true,
        0,
        &format!("Undo the broken fix of f8\n\nThis reverts commit {fixed}.\n"),
    );
    // A fix on a topic branch, cherry-picked onto main later: same patch-id.
    f.s.git(&["checkout", "-q", "-b", "topic"]);
    let topic_vals = f.vals;
    f.change(&[10, 20], true, 0, "Fix f10 and f20");
    f.s.git(&["checkout", "-q", "main"]);
    f.vals = topic_vals;
    f.change(&[2, 36], true, 0, "Fix f2 and f36");
    f.s.tick += 1;
    f.s.git(&["cherry-pick", "topic"]);
    let pick = f.s.git(&["rev-parse", "HEAD"]);
    f.ids.insert("cherry-pick".into(), pick);
    for i in [10, 20] {
        f.vals[i] += 1000;
    }
    // Size limits: many files; many hunks; many changed lines.
    f.change(&[12, 28], true, 4, "Fix f12 and f28 with notes");
    f.change(&[1, 14, 22, 38], true, 0, "Fix four methods");
    f.change(
        &[15, 16, 17, 33, 34, 35],
        true,
        0,
        "Fix two blocks of methods",
    );
    // Funnel noise: no fix word; code without tests; a single hunk; a merge.
    f.change(&[3, 27], true, 0, "Add feature");
    f.change(&[4, 26], false, 0, "Fix without a test");
    f.change(&[9], true, 0, "Fix one line");
    f.s.git(&["checkout", "-q", "-b", "side"]);
    let main_vals = f.vals;
    f.change(&[39], false, 1, "Notes on f39");
    f.s.git(&["checkout", "-q", "main"]);
    f.vals = main_vals;
    f.change(&[0, 19], true, 0, REFS_MSG);
    f.s.tick += 1;
    f.s.git(&[
        "merge",
        "-q",
        "--no-ff",
        "-m",
        "Merge side: fix notes",
        "side",
    ]);
    f
}

/// Mine every branch (the fixture's cherry-picked fix lives on `topic`), unless `cfg`
/// names its revisions.
fn run(repo: &Path, cfg: &GitSourceConfig) -> Mined {
    let mut cfg = cfg.clone();
    cfg.revs.get_or_insert_with(|| ALL_BRANCHES.to_string());
    mine_as_is(repo, &cfg)
}

fn mine_as_is(repo: &Path, cfg: &GitSourceConfig) -> Mined {
    let mined = mine(repo, cfg, &Classifier::default(), &Progress::hidden()).expect("mine");
    assert!(mined.failed.is_empty(), "{:?}", mined.failed);
    mined
}

/// `git show <id> | git patch-id --stable`, the reference patch-id.
fn git_patch_id(repo: &Path, id: &str) -> String {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("git show {id} | git patch-id --stable"))
        .current_dir(repo)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git patch-id runs");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn each_rule_rejects_its_commit() {
    let f = history();
    let limits = GitSourceConfig {
        max_files: Some(5),
        max_code_hunks: Some(3),
        max_changed_lines: Some(10),
        ..GitSourceConfig::default()
    };
    let off = GitSourceConfig {
        reject_reverts: false,
        reject_duplicates: false,
        ..GitSourceConfig::default()
    };
    // "Fix f5 and f30" is reverted later ("Undo the broken fix of f8" reverts it).
    let base_kept = ["Fix f10 and f20", "Fix f2 and f36", REFS_SUBJECT];
    let sized = [
        "Fix f12 and f28 with notes",
        "Fix four methods",
        "Fix two blocks of methods",
    ];
    let reverts = [
        ("Revert \"Fix the f6 thing\"", CommitRule::Revert),
        ("Undo the broken fix of f8", CommitRule::Revert),
        ("Fix f5 and f30", CommitRule::RevertedLater),
    ];
    type Case<'a> = (
        &'a str,
        GitSourceConfig,
        Vec<&'a str>,
        Vec<(&'a str, CommitRule)>,
    );
    let cases: Vec<Case<'_>> = vec![
        (
            "defaults: reverts and duplicates rejected, no size limits",
            GitSourceConfig::default(),
            base_kept.iter().chain(&sized).copied().collect(),
            reverts
                .iter()
                .copied()
                .chain([("cherry-pick", CommitRule::DuplicatePatch)])
                .collect(),
        ),
        (
            "every limit on",
            limits,
            base_kept.to_vec(),
            reverts
                .iter()
                .copied()
                .chain([
                    ("cherry-pick", CommitRule::DuplicatePatch),
                    ("Fix f12 and f28 with notes", CommitRule::MaxFiles),
                    ("Fix four methods", CommitRule::MaxCodeHunks),
                    ("Fix two blocks of methods", CommitRule::MaxChangedLines),
                ])
                .collect(),
        ),
        (
            "revert and duplicate rules off",
            off,
            base_kept
                .iter()
                .chain(&sized)
                .copied()
                .chain(reverts.iter().map(|r| r.0))
                .chain(["cherry-pick"])
                .collect(),
            Vec::new(),
        ),
    ];
    for (what, cfg, kept, rejected) in cases {
        let mined = run(&f.s.dir, &cfg);
        let mut got: Vec<&str> = mined.fixes.iter().map(|c| c.id.as_str()).collect();
        got.sort();
        let mut want: Vec<&str> = kept.iter().map(|s| f.id(s)).collect();
        want.sort();
        assert_eq!(got, want, "{what}: kept");
        let mut got: Vec<(&str, CommitRule)> = mined
            .rejected
            .iter()
            .map(|r| (r.commit.as_str(), r.rule))
            .collect();
        got.sort();
        let mut want: Vec<(&str, CommitRule)> =
            rejected.iter().map(|(s, r)| (f.id(s), *r)).collect();
        want.sort();
        assert_eq!(got, want, "{what}: rejected");
        for r in &mined.rejected {
            assert!(!r.detail.is_empty() && !r.detail.contains('\n'), "{r:?}");
        }
        // The funnel adds up: kept = multi-hunk − rejected, and the merge is only counted.
        let fun = &mined.funnel;
        assert_eq!(fun.walked, f.s.git(&["rev-list", "--all"]).lines().count());
        assert_eq!(fun.non_merge, fun.walked - 1, "{what}");
        assert_eq!(
            fun.kept,
            fun.multi_hunk - fun.rejected.values().sum::<usize>(),
            "{what}"
        );
        assert_eq!(fun.kept, mined.fixes.len());
    }
}

#[test]
fn duplicate_keeps_the_earliest_and_points_to_it() {
    let f = history();
    let mined = run(&f.s.dir, &GitSourceConfig::default());
    let dup = mined
        .rejected
        .iter()
        .find(|r| r.rule == CommitRule::DuplicatePatch)
        .expect("a duplicate");
    let (kept, pick) = (f.id("Fix f10 and f20"), f.id("cherry-pick"));
    assert_eq!(dup.commit, pick);
    assert_eq!(dup.kept.as_deref(), Some(kept));
    assert!(dup.detail.contains(kept), "{}", dup.detail);
    // The patch-id is git's own (`git patch-id --stable`), equal on both commits.
    let ours = mined
        .fixes
        .iter()
        .find(|c| c.id == kept)
        .and_then(|c| c.patch_id.clone())
        .expect("patch id");
    assert_eq!(ours, git_patch_id(&f.s.dir, kept));
    assert_eq!(ours, git_patch_id(&f.s.dir, pick));
    assert!(dup.detail.contains(&ours), "{}", dup.detail);
    // Every kept commit's patch-id matches git's.
    for c in &mined.fixes {
        assert_eq!(
            c.patch_id.as_deref(),
            Some(git_patch_id(&f.s.dir, &c.id).as_str())
        );
    }
}

#[test]
fn funnel_numbers_on_the_fixture() {
    let f = history();
    let mined = run(
        &f.s.dir,
        &GitSourceConfig {
            max_files: Some(5),
            max_code_hunks: Some(3),
            max_changed_lines: Some(10),
            ..GitSourceConfig::default()
        },
    );
    // 16 commits: the root, 13 changes (one on `side`), the cherry-pick and a merge.
    let want = MineFunnel {
        walked: 16,
        non_merge: 15,
        // Not: "Initial import", "Add feature", "Notes on f39".
        message_matched: 12,
        // Not: "Fix without a test".
        code_and_tests: 11,
        // Not: "Fix one line".
        multi_hunk: 10,
        rejected: BTreeMap::from([
            ("duplicate_patch".to_string(), 1),
            ("revert".to_string(), 2),
            // "Fix f5 and f30", which "Undo the broken fix of f8" reverts.
            ("reverted_later".to_string(), 1),
            ("too_many_changed_lines".to_string(), 1),
            ("too_many_files".to_string(), 1),
            ("too_many_hunks".to_string(), 1),
        ]),
        kept: 3,
        // Set by the build, not the walk.
        few_counted_hunks: 0,
        not_sampled: 0,
        missing_parent: 0,
        unreadable: 0,
        // Every branch was walked.
        unshipped: 0,
    };
    assert_eq!(mined.funnel, want);
}

/// By default the walk takes what shipped: the default branch and every tag. The fix on
/// `topic` (cherry-picked to main) and the notes on `side` are reached by `main`'s merge
/// or not at all; a maintenance fix reached only by its release tag is walked.
#[test]
fn the_default_walks_the_default_branch_and_tags() {
    let mut f = history();
    // A maintenance release: a fix on a branch that is tagged and then deleted.
    f.s.git(&["checkout", "-q", "-b", "maint"]);
    let main_vals = f.vals;
    f.change(&[13, 29], true, 0, "Fix f13 and f29 for 1.0.1");
    f.s.git(&["tag", "v1.0.1"]);
    f.s.git(&["checkout", "-q", "main"]);
    f.s.git(&["branch", "-q", "-D", "maint"]);
    f.vals = main_vals;
    // A development branch that never shipped.
    f.s.git(&["checkout", "-q", "-b", "wip"]);
    f.change(&[7, 23], true, 0, "Fix f7 and f23 on wip");
    f.s.git(&["checkout", "-q", "main"]);
    f.vals = main_vals;
    let shipped = mine_as_is(&f.s.dir, &GitSourceConfig::default());
    let subjects = |m: &Mined| -> Vec<String> {
        m.fixes
            .iter()
            .map(|x| x.message.lines().next().unwrap_or_default().to_string())
            .collect()
    };
    let got = subjects(&shipped);
    assert!(
        got.contains(&"Fix f13 and f29 for 1.0.1".to_string()),
        "{got:?}"
    );
    assert!(!got.iter().any(|s| s.contains("on wip")), "{got:?}");
    // Left out, and counted: `topic`'s fix and `wip`'s.
    assert_eq!(shipped.funnel.unshipped, 2, "{:?}", shipped.funnel);
    let all = run(&f.s.dir, &GitSourceConfig::default());
    assert!(subjects(&all).iter().any(|s| s.contains("on wip")));
    assert_eq!(all.funnel.walked, shipped.funnel.walked + 2 - 1);
    assert_eq!(all.funnel.unshipped, 0);
}

#[test]
fn empty_repository_walks_nothing() {
    let s = Script::new();
    let mined = run(&s.dir, &GitSourceConfig::default());
    assert_eq!(mined.funnel, MineFunnel::default());
    assert!(mined.fixes.is_empty() && mined.rejected.is_empty());
}

#[test]
fn shallow_clone_says_which_commits_lack_parents() {
    let f = history();
    let tmp = tempfile::tempdir().expect("tempdir");
    let shallow = shallow_clone(&f, tmp.path());
    let mined = run(&shallow, &GitSourceConfig::default());
    // Depth 2 of main: the merge, its first parent "Fix f0 and f19" and its second parent
    // "Notes on f39" (no fix word); the fix sits on the boundary.
    let boundary: Vec<&str> = mined
        .rejected
        .iter()
        .filter(|r| r.rule == CommitRule::MissingParent)
        .map(|r| r.commit.as_str())
        .collect();
    assert_eq!(boundary, vec![f.id(REFS_SUBJECT)]);
    assert_eq!(mined.funnel.missing_parent, 1);
    assert!(
        mined.fixes.is_empty(),
        "nothing is diffed against an empty tree"
    );
}

#[test]
fn non_utf8_messages_are_decoded_not_fatal() {
    let mut s = Script::new();
    let vals: [i64; 40] = std::array::from_fn(|i| i as i64);
    s.write(CODE, &java(&vals));
    s.commit("Initial import");
    let msg_file = s.dir.parent().expect("parent").join("msg");
    let commit = |s: &mut Script, n: i64, bytes: &[u8], encoding: &str| -> String {
        let mut v = vals;
        v[5] += n;
        v[30] += n;
        s.write(CODE, &java(&v));
        s.write(&format!("src/test/java/T{n}Test.java"), "class T {}\n");
        std::fs::write(&msg_file, bytes).expect("write message");
        s.tick += 1;
        s.git(&["add", "-A"]);
        s.git(&[
            "-c",
            &format!("i18n.commitEncoding={encoding}"),
            "commit",
            "-q",
            "-F",
            msg_file.to_str().expect("utf-8 path"),
        ]);
        s.git(&["rev-parse", "HEAD"])
    };
    // "Fix café crash" in Latin-1 with its encoding header; the same bytes without one.
    let latin1 = commit(&mut s, 1, b"Fix caf\xe9 crash\n", "ISO-8859-1");
    // git re-encodes invalid UTF-8 as Latin-1 on commit, so the raw bytes are written
    // as a commit object by hand, replacing HEAD.
    let placeholder = commit(&mut s, 2, b"placeholder\n", "UTF-8");
    let mut object = s.git_bytes(&["cat-file", "commit", &placeholder]);
    let at = object.len() - b"placeholder\n".len();
    object.truncate(at);
    object.extend_from_slice(b"Fix caf\xe9 bug\n");
    std::fs::write(&msg_file, &object).expect("write object");
    let raw = s.git(&[
        "hash-object",
        "-t",
        "commit",
        "-w",
        msg_file.to_str().expect("utf-8 path"),
    ]);
    s.git(&["update-ref", "refs/heads/main", &raw]);
    let mined = run(&s.dir, &GitSourceConfig::default());
    let msg = |id: &str| {
        mined
            .fixes
            .iter()
            .find(|c| c.id == id)
            .map(|c| c.message.clone())
            .expect("kept")
    };
    assert_eq!(msg(&latin1), "Fix café crash\n");
    assert_eq!(msg(&raw), "Fix caf\u{fffd} bug\n");
}

/// End to end through `hunkgen build`: SWE-bench-shaped ids, rejection rows with their
/// reasons and the duplicate's pointer, issue references with URLs, trailers stripped,
/// and the funnel in the card, the tables and the summary.
#[test]
fn build_writes_rows_links_and_the_funnel() {
    let f = history();
    let tmp = tempfile::tempdir().expect("tempdir");
    let recipe = tmp.path().join("widgets.yaml");
    std::fs::write(
        &recipe,
        format!(
            "name: widgets\nsource:\n  git:\n    repo: {}\n    name: acme/widgets\n    \
             url: https://github.com/acme/widgets\n    issue_regex: 'LANG-\\d+'\n    \
             issue_url: 'https://issues.example.org/browse/{{id}}'\n    max_files: 5\n    \
             max_code_hunks: 3\n    max_changed_lines: 10\n    all_branches: true\n",
            f.s.dir.display()
        ),
    )
    .expect("recipe");
    let out = tmp.path().join("out");
    let assert = crate::common::hunkgen()
        .args(["build", "-q"])
        .arg(&recipe)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(
        stdout.contains("3 instances")
            && stdout.contains("from 16 commits walked: 15 non-merge, 12 message matched, 11 touching code and tests, 10 multi-hunk, 3 past the commit rules, 0 with fewer counted hunks once non-code hunks are skipped; 7 rejected"),
        "{stdout}"
    );
    let short = |subject: &str| format!("acme__widgets-{}", &f.id(subject)[..12]);
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(out.join("rejected.jsonl"))
        .expect("rejected")
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    let mut got: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            assert_eq!(r["stage"], "mine");
            (
                r["id"].as_str().unwrap_or("").to_string(),
                r["reason"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    got.sort();
    let mut want: Vec<(String, String)> = [
        ("Revert \"Fix the f6 thing\"", "revert"),
        ("Undo the broken fix of f8", "revert"),
        ("Fix f5 and f30", "reverted_later"),
        ("cherry-pick", "duplicate_patch"),
        ("Fix f12 and f28 with notes", "too_many_files"),
        ("Fix four methods", "too_many_hunks"),
        ("Fix two blocks of methods", "too_many_changed_lines"),
    ]
    .iter()
    .map(|(s, r)| (short(s), r.to_string()))
    .collect();
    want.sort();
    assert_eq!(got, want);
    let dup = rows
        .iter()
        .find(|r| r["reason"] == "duplicate_patch")
        .expect("duplicate row");
    assert!(
        dup["detail"]
            .as_str()
            .unwrap_or("")
            .ends_with(&format!("; kept {}", short("Fix f10 and f20"))),
        "{dup}"
    );

    let instances: Vec<serde_json::Value> = std::fs::read_to_string(out.join("instances.jsonl"))
        .expect("instances")
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    assert_eq!(instances.len(), 3);
    for i in &instances {
        let id = i["instance_id"].as_str().unwrap_or("");
        assert!(
            id.starts_with("acme__widgets-") && !id.contains('/'),
            "{id}"
        );
        assert_eq!(i["repo"], "acme/widgets");
        let created = i["created_at"].as_str().unwrap_or("");
        assert!(created.len() == 20 && created.ends_with('Z'), "{created}");
    }
    let refs = instances
        .iter()
        .find(|i| i["instance_id"] == short(REFS_SUBJECT))
        .expect("the instance with references");
    assert_eq!(
        refs["problem_statement"],
        "Fix f0 and f19 (#41)\n\nFixes #12; see LANG-7.\n"
    );
    assert_eq!(
        refs["report"],
        serde_json::json!({"id": "#12", "url": "https://github.com/acme/widgets/issues/12"})
    );
    assert_eq!(
        refs["references"],
        serde_json::json!([
            {"id": "#12", "url": "https://github.com/acme/widgets/issues/12"},
            {"id": "#41", "url": "https://github.com/acme/widgets/issues/41"},
            {"id": "LANG-7", "url": "https://issues.example.org/browse/LANG-7"},
        ])
    );
    let plain = instances
        .iter()
        .find(|i| i["instance_id"] == short("Fix f2 and f36"))
        .expect("a plain instance");
    assert!(plain.get("report").is_none() && plain.get("references").is_none());

    let card: serde_json::Value =
        serde_norway::from_str(&std::fs::read_to_string(out.join("dataset.yaml")).expect("card"))
            .expect("card yaml");
    let funnel = &card["counts"]["funnel"];
    assert_eq!(funnel["walked"], 16);
    assert_eq!(funnel["multi_hunk"], 10);
    assert_eq!(funnel["rejected"]["revert"], 2);
    assert_eq!(funnel["rejected"]["reverted_later"], 1);
    assert_eq!(funnel["kept"], 3);
    let tables = std::fs::read_to_string(out.join("report/tables.md")).expect("tables");
    assert!(tables.contains("## Funnel"), "{tables}");
    assert!(tables.contains("| walked | 16 |"), "{tables}");
    assert!(
        tables.contains("| rejected: duplicate_patch | 1 |"),
        "{tables}"
    );
    // The yield table: the kept ones and every rejection under the question it answers.
    assert!(tables.contains("## Yield"), "{tables}");
    assert!(tables.contains("| kept | 3 |"), "{tables}");
    assert!(tables.contains("| commit rules | 7 |"), "{tables}");
}

/// An empty repository and a shallow clone build (with a warning), never fail.
#[test]
fn empty_and_shallow_repositories_build_with_a_warning() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let empty = Script::new();
    let f = history();
    let shallow = shallow_clone(&f, tmp.path());
    for (what, repo, warning) in [
        ("empty", empty.dir.clone(), "no commits to walk"),
        ("shallow", shallow, "have no parent in the repository"),
    ] {
        let recipe = tmp.path().join(format!("{what}.yaml"));
        std::fs::write(
            &recipe,
            format!(
                "name: {what}\nsource:\n  git:\n    repo: {}\n",
                repo.display()
            ),
        )
        .expect("recipe");
        let out = tmp.path().join(format!("out-{what}"));
        let assert = crate::common::hunkgen()
            .args(["build", "-q"])
            .arg(&recipe)
            .arg("-o")
            .arg(&out)
            .assert()
            .success();
        let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
        assert!(stderr.contains(warning), "{what}: {stderr}");
        assert!(out.join("instances.jsonl").exists(), "{what}");
    }
}

/// The shipped presets load against a fixture repository (only `repo` replaced), their
/// commit rules and links are on, and their message rules select fixes and drop the
/// maintenance commits they name.
#[test]
fn presets_load_and_filter_maintenance_commits() {
    use hunkgen::recipe::SourcePlan;
    let f = history();
    let tmp = tempfile::tempdir().expect("tempdir");
    type Case<'a> = (&'a str, &'a [&'a str], &'a [&'a str]);
    let common_no: &[&str] = &[
        "Revert \"Fix parser\"\n\nThis reverts commit 0123456789abcdef.",
        "Bump version to 1.2.3 (fixes release)",
        "Fix typo in error message",
        "docs: fix broken links",
        "Fix lint errors",
        "Build(deps): bump foo from 1.0 to 1.1\n\nSigned-off-by: dependabot[bot] <x@y>",
        "Refactor the parser",
        "Fix the docs of split",
    ];
    let cases: [Case<'_>; 2] = [
        (
            "python-preset.yaml",
            &[
                "Fix crash when value is None (#123)",
                "fix: regression in parser\n\nAlso fixes a typo.",
                "Bugfix for CVE-2024-12345",
            ],
            &["[pre-commit.ci] auto fixes from pre-commit.com hooks"],
        ),
        (
            "java-preset.yaml",
            &[
                "LANG-1234: Fix NPE in StringUtils.split",
                "[LANG-99] NullPointerException in join",
            ],
            &["[maven-release-plugin] prepare release fix-1.0"],
        ),
    ];
    for (file, yes, no) in cases {
        let text = std::fs::read_to_string(crate::common::manifest().join("recipes").join(file))
            .expect("preset");
        let replaced: String = text
            .lines()
            .map(|l| {
                if l.trim_start().starts_with("repo: ") {
                    format!("    repo: {}\n", f.s.dir.display())
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        assert_ne!(replaced, text, "{file}: no `repo:` line");
        let path = tmp.path().join(file);
        std::fs::write(&path, replaced).expect("write");
        let plan = hunkgen::recipe::load_with(&path, &BTreeMap::new())
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        let SourcePlan::Git(git) = &plan.source else {
            panic!("{file}: not a git source")
        };
        let w = &git.walk;
        assert!(
            w.reject_reverts && w.reject_duplicates && w.require_tests,
            "{file}"
        );
        assert!(
            w.max_files.is_some() && w.max_code_hunks.is_some() && w.max_changed_lines.is_some(),
            "{file}"
        );
        assert!(
            git.links.repo.is_some() && git.links.tracker.is_some(),
            "{file}"
        );
        assert!(!git.name.contains(' ') && git.name.contains('/'), "{file}");
        for msg in yes {
            assert!(git.rules.accepts(msg), "{file} should select {msg:?}");
        }
        for msg in common_no.iter().chain(no) {
            assert!(!git.rules.accepts(msg), "{file} should drop {msg:?}");
        }
    }
}

/// Bad link and limit keys are one line naming the recipe, the place and the key.
#[test]
fn bad_link_and_limit_keys_are_one_clear_line() {
    let s = Script::new();
    let tmp = tempfile::tempdir().expect("tempdir");
    let cases = [
        (
            "max_code_hunks: 1",
            "source.git.max_code_hunks",
            "below select.min_code_hunks",
        ),
        (
            "issue_regex: 'LANG-('",
            "source.git.issue_regex",
            "not a valid regex",
        ),
        (
            "url: https://example.org/o/r",
            "source.git.url",
            "set `forge:`",
        ),
        (
            "url: github.com/o/r",
            "source.git.url",
            "expected an http(s) address",
        ),
        ("forge: sourceforge", "source.git.forge", "unknown forge"),
        (
            "issue_url: 'https://x/{id}'",
            "source.git.issue_url",
            "needs `issue_regex`",
        ),
        (
            "issue_regex: 'X-\\d+'\n    issue_url: 'https://x/'",
            "source.git.issue_url",
            "has no `{id}`",
        ),
    ];
    for (line, key, message) in cases {
        let recipe = tmp.path().join("r.yaml");
        std::fs::write(
            &recipe,
            format!(
                "name: r\nsource:\n  git:\n    repo: {}\n    {line}\n",
                s.dir.display()
            ),
        )
        .expect("recipe");
        let out = crate::common::hunkgen()
            .args(["build", "-q"])
            .arg(&recipe)
            .assert()
            .code(1);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert_eq!(stderr.trim().lines().count(), 1, "{line}: {stderr}");
        assert!(
            // The key is on the case's last line.
            stderr.contains(&format!(
                "{}:{}:",
                recipe.display(),
                4 + line.lines().count()
            )) && stderr.contains(key)
                && stderr.contains(message),
            "{line}: {stderr}"
        );
    }
}

/// A commit's own changelog entry decides what it is: filed under features (a CHANGES
/// section or a towncrier fragment type) it is rejected as `changelog_not_fix`, filed
/// under bug fixes it is kept; a heading that names no category says nothing.
#[test]
fn a_changelog_entry_filed_as_a_feature_rejects_the_commit() {
    let mut f = Fixture::new();
    let changes = |fix: &str, feature: &str| {
        format!(
            "Changelog\n=========\n\n2.0 (unreleased)\n----------------\n\nBug fixes\n~~~~~~~~~\n\n{fix}\nFeatures\n~~~~~~~~\n\n{feature}\n1.0\n---\n\n- First release.\n"
        )
    };
    f.s.write("CHANGES.rst", &changes("", ""));
    f.s.commit("Add a changelog");
    f.s.write("CHANGES.rst", &changes("", "- Add an option to f5.\n"));
    f.change(&[5, 30], true, 0, "Fix f5 and f30 and add an option");
    f.s.write(
        "CHANGES.rst",
        &changes("- Fix a crash in f6.\n", "- Add an option to f5.\n"),
    );
    f.change(&[6, 31], true, 0, "Fix f6 and f31");
    f.s.write("changes/12.feature.rst", "Support f8 in bulk.\n");
    f.change(&[8, 25], true, 0, "Fix f8 and f25 for bulk use");
    f.s.write("changes/13.bugfix.rst", "f9 no longer crashes.\n");
    f.change(&[9, 26], true, 0, "Fix f9 and f26");
    // Under a version heading only: no category, no signal.
    f.s.write("HISTORY.md", "# 1.1\n\n- Fixed f10.\n");
    f.change(&[10, 27], true, 0, "Fix f10 and f27");
    // The subject's fix word only closes an issue.
    f.change(&[11, 24], true, 0, "Fix #77: Add an option to f11");
    let mined = run(&f.s.dir, &GitSourceConfig::default());
    let kept: Vec<&str> = mined
        .fixes
        .iter()
        .map(|x| x.message.lines().next().unwrap_or_default())
        .collect();
    assert_eq!(
        kept,
        vec!["Fix f6 and f31", "Fix f9 and f26", "Fix f10 and f27"],
        "{:?}",
        mined.rejected
    );
    let rejected: Vec<(&str, &str)> = mined
        .rejected
        .iter()
        .map(|r| (r.commit.as_str(), r.detail.as_str()))
        .collect();
    assert_eq!(
        mined.funnel.rejected.get("changelog_not_fix"),
        Some(&2),
        "{rejected:?}"
    );
    assert_eq!(
        mined.funnel.rejected.get("closing_keyword_only"),
        Some(&1),
        "{rejected:?}"
    );
    let rejection = |subject: &str| {
        mined
            .rejected
            .iter()
            .find(|r| r.commit == f.id(subject))
            .expect("rejected")
    };
    let feature = rejection("Fix f5 and f30 and add an option");
    assert_eq!(feature.rule, CommitRule::ChangelogNotFix);
    assert_eq!(
        feature.detail,
        "its changelog entry is filed under `Features` in CHANGES.rst, not as a bug fix: `- Add an option to f5.`"
    );
    let fragment = rejection("Fix f8 and f25 for bulk use");
    assert!(
        fragment
            .detail
            .contains("`feature` in changes/12.feature.rst"),
        "{}",
        fragment.detail
    );
    // Off, both are kept.
    let off = run(
        &f.s.dir,
        &GitSourceConfig {
            reject_changelog_non_fixes: false,
            reject_closing_keyword_only: false,
            ..GitSourceConfig::default()
        },
    );
    assert_eq!(off.fixes.len(), 6);
}
