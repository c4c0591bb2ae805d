//! Mining a scripted repository: selection rules, code/test split, and byte-equality with `git diff`.

use crate::common::Script;
use hunkgen::classify::Classifier;
use hunkgen::diff::{FileChange, LineKind};
use hunkgen::git::FixCommit;
use hunkgen::progress::Progress;
use hunkgen::source::git_history::mine;
use hunkgen::source::rules::GitSourceConfig;
use std::path::Path;

const CALC: &str = "src/main/java/org/acme/Calc.java";
const CALC_TEST: &str = "src/test/java/org/acme/CalcTest.java";

/// git's own indent-heuristic example (t4061): the heuristic moves this insertion up.
const SPACES_OLD: &str = "1\n2\na\n\nb\n3\n4\n";
const SPACES_NEW: &str = "1\n2\na\n\nb\na\n\nb\n3\n4\n";

fn calc(add_body: &str, div_body: &str, extra: &str, clamp_body: &str) -> String {
    format!(
        "package org.acme;

public class Calc {{
    public int add(int a, int b) {{
        {add_body}
    }}

    public int sub(int a, int b) {{
        return a - b;
    }}

    public int mul(int a, int b) {{
        return a * b;
    }}

    public int div(int a, int b) {{
        {div_body}
    }}
{extra}
    public int neg(int a) {{
        return -a;
    }}

    public int abs(int a) {{
        return a < 0 ? -a : a;
    }}

    public int clamp(int v, int lo, int hi) {{
        {clamp_body}
    }}
}}
"
    )
}

fn old_name_py(body: &str) -> String {
    format!(
        "\"\"\"Helpers that get renamed.\"\"\"\n\n\ndef first(xs):\n    return xs[0]\n\n\n\
         def second(xs):\n    return xs[1]\n\n\ndef third(xs):\n    {body}\n\n\n\
         def fourth(xs):\n    return xs[3]\n\n\ndef fifth(xs):\n    return xs[4]\n"
    )
}

/// The scripted history; returns the repository and the ids worth asserting on.
struct History {
    s: Script,
    root: String,
    single_hunk_fix: String,
    big_fix: String,
    merge: String,
    late_fix: String,
}

fn build() -> History {
    let mut s = Script::new();
    s.write(
        CALC,
        &calc(
            "return a + b;",
            "return a / b;",
            "",
            "return v < lo ? lo : v;",
        ),
    );
    s.write(
        CALC_TEST,
        "package org.acme;\n\nclass CalcTest {\n    void add() {}\n}\n",
    );
    s.write(
        "lib/crlf.py",
        "def a():\r\n    return 1\r\n\r\n\r\ndef b():\r\n    return 2\r\n",
    );
    s.write("lib/nonl.py", "X = 1\nY = 2\nZ = 3");
    s.write("lib/spaces.py", SPACES_OLD);
    s.write("lib/old_name.py", &old_name_py("return xs[2]"));
    s.write("tests/test_lib.py", "def test_a():\n    assert True\n");
    s.write("README.md", "# Calc\n");
    let root = s.commit("Initial import");

    s.write("README.md", "# Calc\n\nA calculator.\n");
    s.commit("Fix typo in README");

    s.write(
        CALC,
        &calc(
            "return a + b;",
            "return b == 0 ? 0 : a / b;",
            "",
            "return v < lo ? lo : v;",
        ),
    );
    s.write(
        CALC_TEST,
        "package org.acme;\n\nclass CalcTest {\n    void add() {}\n    void div() {}\n}\n",
    );
    let single_hunk_fix = s.commit("Fix division by zero");

    // The multi-hunk fix: code in Java (3 hunks incl. an inserted method), a CRLF file, a
    // file without final newline, a renamed file with edits; tests; a docs file.
    s.write(
        CALC,
        &calc(
            "return Math.addExact(a, b);",
            "return b == 0 ? 0 : a / b;",
            "\n    public int twice(int a) {\n        return add(a, a);\n    }\n",
            "return v < lo ? lo : v > hi ? hi : v;",
        ),
    );
    s.write(
        "lib/crlf.py",
        "def a():\r\n    return 10\r\n\r\n\r\ndef b():\r\n    return 2\r\n",
    );
    s.write("lib/nonl.py", "X = 1\nY = 2\nZ = 4");
    s.write("lib/spaces.py", SPACES_NEW);
    std::fs::remove_file(s.dir.join("lib/old_name.py")).unwrap();
    s.write(
        "lib/new_name.py",
        &old_name_py("return xs[2] if len(xs) > 2 else None"),
    );
    s.write(
        CALC_TEST,
        "package org.acme;\n\nclass CalcTest {\n    void add() {}\n    void div() {}\n    void clamp() {}\n}\n",
    );
    s.write(
        "tests/test_lib.py",
        "def test_a():\n    assert True\n\n\ndef test_third():\n    assert True\n",
    );
    s.write("docs/CHANGES.md", "* overflow fixed\n");
    let big_fix = s.commit("Fix overflow in add and clamp upper bound\n\nAlso fixes lib helpers.");

    // A side branch merged back with a fix-like message: the merge itself is skipped.
    s.git(&["checkout", "-q", "-b", "topic"]);
    s.write("lib/nonl.py", "W = 0\nX = 1\nY = 2\nZ = 4");
    s.commit("Add W constant");
    s.git(&["checkout", "-q", "main"]);
    s.write("docs/CHANGES.md", "* overflow fixed\n* more\n");
    s.commit("Update changes");
    s.tick += 1;
    s.git(&[
        "merge",
        "-q",
        "--no-ff",
        "-m",
        "Merge branch 'topic' (fixes W bug)",
        "topic",
    ]);
    let merge = s.git(&["rev-parse", "HEAD"]);

    // Multi-hunk change with tests but no fix word: not selected.
    s.write(
        CALC,
        &calc(
            "return Math.addExact(a, b);",
            "return b == 0 ? 0 : Math.floorDiv(a, b);",
            "\n    public int twice(int a) {\n        return add(a, a);\n    }\n",
            "return Math.max(lo, Math.min(hi, v));",
        ),
    );
    s.write(
        CALC_TEST,
        "package org.acme;\n\nclass CalcTest {\n    void add() {}\n    void div() {}\n    void clamp() {}\n    void more() {}\n}\n",
    );
    s.commit("Refactor Calc with Math helpers");

    // A later multi-hunk fix, to check ordering and ranges.
    s.write(
        CALC,
        &calc(
            "return Math.addExact(a, b);",
            "return b == 0 ? 0 : Math.floorDiv(a, b);",
            "\n    public int twice(int a) {\n        return Math.multiplyExact(a, 2);\n    }\n",
            "return Math.max(lo, Math.min(hi, v)); // bounds inclusive",
        ),
    );
    s.write(
        CALC_TEST,
        "package org.acme;\n\nclass CalcTest {\n    void add() {}\n    void div() {}\n    void clamp() {}\n    void more() {}\n    void twice() {}\n}\n",
    );
    let late_fix = s.commit("Bug: twice overflowed silently");
    History {
        s,
        root,
        single_hunk_fix,
        big_fix,
        merge,
        late_fix,
    }
}

fn mine_default(repo: &Path, cfg: &GitSourceConfig) -> Vec<FixCommit> {
    let mined = mine(repo, cfg, &Classifier::default(), &Progress::hidden()).unwrap();
    assert!(mined.failed.is_empty(), "{:?}", mined.failed);
    mined.fixes
}

fn paths(p: &hunkgen::diff::Patch) -> Vec<&str> {
    p.files.iter().map(|f| f.path()).collect()
}

#[test]
fn selects_only_multi_hunk_fixes_with_tests() {
    let h = build();
    let fixes = mine_default(&h.s.dir, &GitSourceConfig::default());
    let ids: Vec<&str> = fixes.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids, vec![h.big_fix.as_str(), h.late_fix.as_str()]);
    for skipped in [&h.root, &h.single_hunk_fix, &h.merge] {
        assert!(!ids.contains(&skipped.as_str()));
    }
    let big = &fixes[0];
    assert_eq!(
        big.message,
        "Fix overflow in add and clamp upper bound\n\nAlso fixes lib helpers.\n"
    );
    assert_eq!(big.author, "Ada Tester <ada@example.org>");
    assert_eq!(big.offset_minutes, 60);
    assert_eq!(big.time, 1_700_000_000 + 4 * 3600);
    assert_eq!(
        big.parent,
        h.s.git(&["rev-parse", &format!("{}^", h.big_fix)])
    );
    assert!(fixes[0].time < fixes[1].time);
}

#[test]
fn splits_code_tests_and_other_files() {
    let h = build();
    let fixes = mine_default(&h.s.dir, &GitSourceConfig::default());
    let big = &fixes[0];
    // `patch` holds every non-test file, as SWE-bench does (the docs file too).
    assert_eq!(
        paths(&big.patch),
        vec![
            "docs/CHANGES.md",
            "lib/crlf.py",
            "lib/new_name.py",
            "lib/nonl.py",
            "lib/spaces.py",
            CALC
        ]
    );
    assert_eq!(paths(&big.test_patch), vec![CALC_TEST, "tests/test_lib.py"]);
    assert_eq!(big.other_files, vec!["docs/CHANGES.md".to_string()]);

    let renamed = &big.patch.files[2];
    assert_eq!(renamed.change, FileChange::Renamed);
    assert_eq!(renamed.old_path.as_deref(), Some("lib/old_name.py"));
    assert_eq!(renamed.new_path.as_deref(), Some("lib/new_name.py"));

    let crlf = &big.patch.files[1];
    assert!(crlf.hunks[0]
        .lines
        .iter()
        .all(|l| l.content.ends_with(b"\r\n")));

    let nonl = &big.patch.files[3];
    let last = nonl.hunks[0].lines.iter().rev().take(2).collect::<Vec<_>>();
    assert_eq!(last[0].kind, LineKind::Added);
    assert_eq!(last[0].content, b"Z = 4");
    assert!(last[0].no_newline.is_some());
    assert_eq!(last[1].kind, LineKind::Removed);
    assert_eq!(last[1].content, b"Z = 3");
    assert!(last[1].no_newline.is_some());
}

#[test]
fn hunk_ranges_match_the_design() {
    let h = build();
    let fixes = mine_default(&h.s.dir, &GitSourceConfig::default());
    let big = &fixes[0];
    let calc = &big.patch.files[5];
    let ranges: Vec<(u32, u32, u32, u32)> = calc
        .hunks
        .iter()
        .map(|h| (h.old_start, h.old_lines, h.new_start, h.new_lines))
        .collect();
    // add() body at line 5; twice() inserted after div() (git's indent heuristic puts the
    // blank line after the new method); clamp() body at line 29.
    assert_eq!(ranges, vec![(2, 7, 2, 7), (17, 6, 17, 10), (26, 6, 30, 6)]);
    assert_eq!(calc.hunks[0].old_span().start, 5);
    assert_eq!(calc.hunks[1].new_span().start, 20);
    assert_eq!(calc.hunks[1].new_span().end, 23);
    // With the indent heuristic (git's default) the insertion starts at line 5; without
    // it, at line 6 (`@@ -3,5 +3,8 @@`): this history tells the two apart.
    let spaces = &big.patch.files[4];
    assert_eq!(spaces.hunks.len(), 1);
    assert_eq!(spaces.hunks[0].header, b"@@ -2,6 +2,9 @@\n");
    let plain = h.s.git(&[
        "diff",
        "--no-indent-heuristic",
        &format!("{}^", h.big_fix),
        &h.big_fix,
        "--",
        "lib/spaces.py",
    ]);
    assert!(plain.contains("@@ -3,5 +3,8 @@"), "{plain}");
    assert_eq!(big.code_hunks, 3 + 1 + 1 + 1 + 1);
    // The docs file's hunk is in `patch` but is not a code hunk.
    assert_eq!(
        big.code_hunks + 1,
        big.patch.files.iter().map(|f| f.hunks.len()).sum::<usize>()
    );
}

#[test]
fn patch_bytes_equal_git_diff() {
    let h = build();
    let fixes = mine_default(&h.s.dir, &GitSourceConfig::default());
    assert!(!fixes.is_empty());
    for fix in &fixes {
        for (patch, files) in [
            (&fix.patch, &fix.patch.files),
            (&fix.test_patch, &fix.test_patch.files),
        ] {
            let mut args: Vec<String> = [
                "diff",
                "--no-color",
                "--no-ext-diff",
                "--indent-heuristic",
                "-M",
                &fix.parent,
                &fix.id,
                "--",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect();
            for f in files {
                args.extend(f.old_path.clone());
                args.extend(f.new_path.clone());
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let expected = h.s.git_bytes(&args);
            assert_eq!(
                String::from_utf8_lossy(&patch.to_bytes()),
                String::from_utf8_lossy(&expected),
                "commit {}",
                fix.message
            );
            assert_eq!(patch.to_bytes(), expected);
        }
    }
}

#[test]
fn verification_off_gives_the_same_result() {
    let h = build();
    let on = mine_default(&h.s.dir, &GitSourceConfig::default());
    let off = mine_default(
        &h.s.dir,
        &GitSourceConfig {
            verify_objects: false,
            ..GitSourceConfig::default()
        },
    );
    assert_eq!(on, off);
}

#[test]
fn verification_catches_a_corrupt_object() {
    let h = build();
    let blob_of = |rev: &str| h.s.git(&["rev-parse", &format!("{rev}:{CALC}")]);
    let (good, victim) = (blob_of(&format!("{}^", h.big_fix)), blob_of(&h.big_fix));
    let loose = |id: &str| h.s.dir.join(".git/objects").join(&id[..2]).join(&id[2..]);
    // The victim's file now holds another blob: same format, wrong content for its id.
    std::fs::remove_file(loose(&victim)).unwrap();
    std::fs::copy(loose(&good), loose(&victim)).unwrap();

    // The corrupt commit is reported on its own; the walk goes on past it.
    let mined = mine(
        &h.s.dir,
        &GitSourceConfig::default(),
        &Classifier::default(),
        &Progress::hidden(),
    )
    .unwrap();
    assert_eq!(mined.failed.len(), 1, "{:?}", mined.failed);
    let (id, e) = &mined.failed[0];
    assert_eq!(id, &h.big_fix);
    let err = format!("{e}: {}", std::error::Error::source(e).unwrap());
    assert!(err.contains(&format!("commit {}", h.big_fix)), "{err}");
    assert!(
        err.contains(&format!("object {victim} is corrupt")),
        "{err}"
    );
    assert!(!err.contains('\n'), "{err}");
    assert!(!mined.fixes.is_empty(), "other fixes are still found");
    assert_eq!(mined.funnel.unreadable, 1, "the funnel counts it apart");

    // Opting out trusts the store: the run completes (with the wrong content).
    let unverified = GitSourceConfig {
        verify_objects: false,
        ..GitSourceConfig::default()
    };
    let mined = mine(
        &h.s.dir,
        &unverified,
        &Classifier::default(),
        &Progress::hidden(),
    )
    .unwrap();
    assert!(mined.failed.is_empty());
}

#[test]
fn revision_ranges_limit_the_walk() {
    let h = build();
    let range = format!("{}..main", h.big_fix);
    let fixes = mine_default(
        &h.s.dir,
        &GitSourceConfig {
            revs: Some(range),
            ..GitSourceConfig::default()
        },
    );
    assert_eq!(fixes.len(), 1);
    assert_eq!(fixes[0].id, h.late_fix);

    let single = mine_default(
        &h.s.dir,
        &GitSourceConfig {
            revs: Some(h.big_fix.clone()),
            ..GitSourceConfig::default()
        },
    );
    assert_eq!(single.len(), 1);
    assert_eq!(single[0].id, h.big_fix);
}

#[test]
fn filters_by_size_and_rules() {
    let h = build();
    let strict = mine_default(
        &h.s.dir,
        &GitSourceConfig {
            min_code_hunks: 4,
            ..GitSourceConfig::default()
        },
    );
    assert_eq!(strict.len(), 1);
    assert_eq!(strict[0].id, h.big_fix);

    let small = mine_default(
        &h.s.dir,
        &GitSourceConfig {
            max_changed_lines: Some(4),
            ..GitSourceConfig::default()
        },
    );
    assert_eq!(small.len(), 1);
    assert_eq!(small[0].id, h.late_fix);

    // Accept every message and single hunks: the root commit, single-hunk fix and the
    // refactor now count, the merge still does not.
    let all = mine_default(
        &h.s.dir,
        &GitSourceConfig {
            message_regex: String::new(),
            min_code_hunks: 1,
            ..GitSourceConfig::default()
        },
    );
    let ids: Vec<&str> = all.iter().map(|f| f.id.as_str()).collect();
    assert!(ids.contains(&h.root.as_str()));
    assert!(ids.contains(&h.single_hunk_fix.as_str()));
    assert!(!ids.contains(&h.merge.as_str()));
    assert_eq!(ids.len(), 5);
    let root = all.iter().find(|f| f.id == h.root).unwrap();
    assert_eq!(root.parent, "4b825dc642cb6eb9a060e54bf8d69288fbee4904");
    assert!(root
        .patch
        .files
        .iter()
        .all(|f| f.change == FileChange::Added && f.old_path.is_none()));
    assert_eq!(root.patch.files[0].new_mode, Some(0o100644));
}

#[test]
fn not_a_repository_is_one_clear_line() {
    let tmp = tempfile::tempdir().unwrap();
    let err = mine(
        tmp.path(),
        &GitSourceConfig::default(),
        &Classifier::default(),
        &Progress::hidden(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with(&format!("{}: not a git repository", tmp.path().display())),
        "{err}"
    );
    assert!(!err.contains('\n'), "{err}");
}

#[test]
fn unknown_revision_is_one_clear_line() {
    let h = build();
    for rev in ["no-such-branch", "no-such..main"] {
        let err = mine(
            &h.s.dir,
            &GitSourceConfig {
                revs: Some(rev.into()),
                ..GitSourceConfig::default()
            },
            &Classifier::default(),
            &Progress::hidden(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with(&format!("{}: unknown revision `{rev}`", h.s.dir.display())),
            "{err}"
        );
        assert!(!err.contains('\n'), "{err}");
    }
}

/// Message rules, table-driven on one history: the whole-message rule is
/// case-insensitive; a subject rule ignores matches in the body (a squash merge's bullet
/// list); an exclude rule drops reverts.
#[test]
fn message_rules_subject_case_and_exclude() {
    let mut s = Script::new();
    let body = |n: usize| -> String {
        (0..40)
            .map(|i| {
                if i == 5 || i == 30 {
                    format!("    int f{i}() {{ return {n}; }}\n")
                } else {
                    format!("    int f{i}() {{ return {i}; }}\n")
                }
            })
            .collect()
    };
    let java = |n: usize| format!("class A {{\n{}}}\n", body(n));
    let test = |n: usize| format!("class ATest {{ int t = {n}; }}\n");
    s.write("src/main/java/A.java", &java(0));
    s.write("src/test/java/ATest.java", &test(0));
    s.commit("Initial");
    let mut ids = Vec::new();
    for (n, msg) in [
        (1, "FIX the overflow in A"),
        (2, "Add feature B\n\n* fix typo\n* polish"),
        (
            3,
            "Revert \"Fix the overflow in A\"\n\nThis reverts commit 1234567.",
        ),
        (4, "fix: rounding of f5 and f30"),
    ] {
        s.write("src/main/java/A.java", &java(n));
        s.write("src/test/java/ATest.java", &test(n));
        ids.push((msg.lines().next().unwrap_or("").to_string(), s.commit(msg)));
    }
    let subjects = |cfg: GitSourceConfig| -> Vec<String> {
        let mut got: Vec<String> = mine_default(&s.dir, &cfg)
            .iter()
            .map(|f| f.message.lines().next().unwrap_or("").to_string())
            .collect();
        got.sort();
        got
    };
    // Reverts kept, so the message rules alone decide (the revert rule has its own test).
    let keep_reverts = GitSourceConfig {
        reject_reverts: false,
        ..GitSourceConfig::default()
    };
    let cases: [(GitSourceConfig, &[&str]); 5] = [
        // The default rule, and a lower-case user rule: upper-case FIX matches both.
        (
            keep_reverts.clone(),
            &[
                "Add feature B",
                "FIX the overflow in A",
                "Revert \"Fix the overflow in A\"",
                "fix: rounding of f5 and f30",
            ],
        ),
        (
            GitSourceConfig {
                message_regex: r"\bfix".into(),
                ..keep_reverts.clone()
            },
            &[
                "Add feature B",
                "FIX the overflow in A",
                "Revert \"Fix the overflow in A\"",
                "fix: rounding of f5 and f30",
            ],
        ),
        // A subject rule: the bullet list in the body no longer selects "Add feature B".
        (
            GitSourceConfig {
                subject_regex: Some(r"\bfix".into()),
                ..keep_reverts.clone()
            },
            &[
                "FIX the overflow in A",
                "Revert \"Fix the overflow in A\"",
                "fix: rounding of f5 and f30",
            ],
        ),
        // And an exclude rule for reverts.
        (
            GitSourceConfig {
                subject_regex: Some(r"\bfix".into()),
                exclude_regex: Some(r"^Revert |This reverts commit".into()),
                ..keep_reverts.clone()
            },
            &["FIX the overflow in A", "fix: rounding of f5 and f30"],
        ),
        // The default revert rule drops it without an exclude rule.
        (
            GitSourceConfig {
                subject_regex: Some(r"\bfix".into()),
                ..GitSourceConfig::default()
            },
            &["FIX the overflow in A", "fix: rounding of f5 and f30"],
        ),
    ];
    for (cfg, want) in cases {
        let mut want: Vec<String> = want.iter().map(|w| w.to_string()).collect();
        want.sort();
        assert_eq!(subjects(cfg.clone()), want, "{cfg:?}");
    }
}

/// The nearest tag `python: auto` versions a build with: remembered per commit, and
/// asked again when the tags change.
#[test]
fn the_nearest_tag_is_remembered_until_the_tags_change() {
    let mut s = Script::new();
    s.write("a.txt", "a\n");
    let a = s.commit("first");
    s.git(&["tag", "v1.0"]);
    s.write("a.txt", "b\n");
    let b = s.commit("second");
    let memo_dir = tempfile::tempdir().expect("tmp");
    let memo = hunkgen::cache::Cache::new(memo_dir.path());
    let entries = || {
        walk_files(memo_dir.path())
            .into_iter()
            .filter(|p| {
                !p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .count()
    };
    let tag = |rev: &str| hunkgen::git::nearest_tag_memo(&s.dir, rev, &memo).expect("describe");
    assert_eq!(tag(&b), Some("v1.0".into()));
    assert_eq!(entries(), 1, "remembered");
    assert_eq!(tag(&b), Some("v1.0".into()), "from the memo");
    assert_eq!(entries(), 1, "no second entry");
    assert_eq!(
        tag(&b),
        hunkgen::git::nearest_tag(&s.dir, &b).expect("describe"),
        "the memo answers what describe answers"
    );
    // A new tag changes the key: asked again, with the new answer.
    s.git(&["tag", "-a", "-m", "release 2.0", "v2.0", &b]);
    assert_eq!(tag(&b), Some("v2.0".into()));
    assert_eq!(tag(&a), Some("v1.0".into()));
    assert_eq!(entries(), 3);
}

fn walk_files(d: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk_files(&p));
        } else {
            out.push(p);
        }
    }
    out
}
