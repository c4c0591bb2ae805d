//! A Defects4J project whose repository is another import than the one Defects4J's ids
//! name (Math's ids come from an older git-svn import, Lang's from pull refs): the
//! recipe's `revision_map` says which commit to read instead. The test makes such an
//! import of the real Cli history (every commit rewritten, so none of Defects4J's ids
//! exists in it), maps Cli_34 onto it, and checks that annotation, states, the Partial
//! choice and `hunkgen checkout` all follow the map: the states hold the trees the
//! unmapped repository gives and their manifests name the rewritten commits.
//!
//! Needs `make deps` (the Cli mirror in target/defects4j); without it this fails, never
//! skips.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use hunkgen::pipeline::{build, BuildOptions, BuildSummary};

use crate::common::{hunkgen, succeeds};
use crate::defects4j_states::{files, git_text, manifest_of, repo_of, upstream};

const BUG: (&str, u32) = ("Cli", 34);

/// Every state a recipe with `states: {}` writes (without the golden tests), as
/// directory names.
const STATES: &[&str] = crate::defects4j_states::WRITTEN.split_at(6).0;

/// `committer <who> <seconds> <zone>` with one second added: a different commit id for
/// every commit, the same trees.
fn later(line: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(line);
    let mut parts: Vec<&str> = text.rsplitn(3, ' ').collect();
    parts.reverse();
    let seconds: i64 = parts[1].parse().expect("committer time");
    format!("{} {} {}", parts[0], seconds + 1, parts[2]).into_bytes()
}

/// A `git fast-export` stream with every committer time moved by a second (blob and
/// message bytes copied as they are).
fn rewrite(stream: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(stream.len());
    let mut i = 0;
    while i < stream.len() {
        let end = stream[i..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(stream.len(), |p| i + p);
        let line = &stream[i..end];
        if let Some(n) = line.strip_prefix(b"data ") {
            let n: usize = String::from_utf8_lossy(n).parse().expect("data length");
            out.extend_from_slice(line);
            out.push(b'\n');
            out.extend_from_slice(&stream[end + 1..end + 1 + n]);
            i = end + 1 + n;
            continue;
        }
        if line.starts_with(b"committer ") {
            out.extend_from_slice(&later(line));
        } else {
            out.extend_from_slice(line);
        }
        out.push(b'\n');
        i = end + 1;
    }
    out
}

/// `:<mark> <id>` lines of a marks file.
fn marks(file: &Path) -> BTreeMap<String, String> {
    fs::read_to_string(file)
        .expect("marks")
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(m, id)| (m.to_string(), id.to_string()))
        .collect()
}

/// A bare import of `from` in which every commit has another id; returns old id → new id.
fn rewritten_import(from: &Path, to: &Path, scratch: &Path) -> BTreeMap<String, String> {
    let init = Command::new("git")
        .args(["init", "-q", "--bare"])
        .arg(to)
        .status()
        .expect("git init");
    assert!(init.success(), "git init");
    let (old_marks, new_marks) = (scratch.join("old.marks"), scratch.join("new.marks"));
    let export = Command::new("git")
        .current_dir(from)
        .args(["fast-export", "--all", "--signed-tags=strip"])
        .args(["--tag-of-filtered-object=drop", "--reencode=no"])
        .arg(format!("--export-marks={}", old_marks.display()))
        .output()
        .expect("git fast-export");
    assert!(export.status.success(), "git fast-export failed");
    let mut import = Command::new("git")
        .current_dir(to)
        .args(["fast-import", "--quiet"])
        .arg(format!("--export-marks={}", new_marks.display()))
        .stdin(Stdio::piped())
        .spawn()
        .expect("git fast-import");
    import
        .stdin
        .take()
        .expect("stdin")
        .write_all(&rewrite(&export.stdout))
        .expect("feed fast-import");
    assert!(
        import.wait().expect("wait").success(),
        "git fast-import failed"
    );
    let new = marks(&new_marks);
    marks(&old_marks)
        .into_iter()
        .filter_map(|(m, old)| Some((old, new.get(&m)?.clone())))
        .filter(|(old, new)| old != new)
        .collect()
}

/// `revision.id.fixed` of the bug (active-bugs.csv's fourth column).
fn d4j_fixed(projects: &Path) -> String {
    let csv = fs::read_to_string(projects.join(BUG.0).join("active-bugs.csv")).expect("csv");
    let row = csv
        .lines()
        .find(|l| l.split(',').next() == Some(&BUG.1.to_string()))
        .expect("the bug's row");
    row.split(',')
        .nth(2)
        .expect("revision.id.fixed")
        .to_string()
}

fn recipe(dir: &Path, name: &str, projects: &Path, repo: &Path, map: Option<&Path>) -> PathBuf {
    let map = map
        .map(|m| {
            format!(
                "\n        revision_map: {{file: {}, from: d4j.fixed, to: mine.fixed}}",
                m.display()
            )
        })
        .unwrap_or_default();
    let text = format!(
        "name: {name}\n\
         source:\n  defects4j:\n    path: {}\n    version: v3.0.1\n    repos:\n      Cli:\n        path: {}{map}\n\
         files:\n  code_extensions: [java]\n  test_dirs: []\n  test_name_prefixes: []\n  test_name_suffixes: []\n\
         select:\n  min_code_hunks: 2\n  skip_created_files: true\n  skip_import_only_hunks: true\n\
         states:\n  subset_cap: 4\n",
        projects.display(),
        repo.display(),
    );
    let path = dir.join(format!("{name}.yaml"));
    fs::write(&path, text).expect("write recipe");
    path
}

fn run_build(recipe: &Path, out: &Path) -> BuildSummary {
    let plan = hunkgen::recipe::load(recipe).unwrap_or_else(|e| panic!("{e}"));
    let opts = BuildOptions {
        output: Some(out.to_path_buf()),
        ..Default::default()
    };
    build(&plan, &opts).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn states_follow_the_revision_map_onto_another_import_of_the_history() {
    let dir = tempfile::tempdir().expect("tempdir");
    let projects = crate::defects4j_build::projects_listing(dir.path(), &[BUG]);
    let original = upstream(BUG.0);
    let rewritten = dir.path().join("rewritten.git");
    let new_of = rewritten_import(&original, &rewritten, dir.path());
    let fixed = d4j_fixed(&projects);
    let mapped_fix = new_of
        .get(&fixed)
        .unwrap_or_else(|| panic!("{fixed} was not rewritten"))
        .clone();
    let map = dir.path().join("map.csv");
    fs::write(
        &map,
        format!(
            "bug.id,d4j.fixed,mine.fixed\n{},{fixed},{mapped_fix}\n",
            BUG.1
        ),
    )
    .expect("map");

    let plain = run_build(
        &recipe(dir.path(), "plain", &projects, &original, None),
        &dir.path().join("plain"),
    );
    let mapped = run_build(
        &recipe(dir.path(), "mapped", &projects, &rewritten, Some(&map)),
        &dir.path().join("mapped"),
    );
    let id = format!("{}_{}", BUG.0, BUG.1);
    let one = |s: &BuildSummary| {
        s.instances
            .iter()
            .find(|i| i.instance_id == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id} not kept; rejected: {:?}", s.rejected))
    };
    let (p, m) = (one(&plain), one(&mapped));

    // The row keeps Defects4J's ids and says where the bug is in the other import; the
    // history there ends at the fix's first parent.
    assert_eq!(m.fix_commit, fixed);
    assert_eq!(m.base_commit, p.base_commit);
    let parent = git_text(&rewritten, &["rev-parse", &format!("{mapped_fix}^")]);
    let rc = m.repo_commits.as_ref().expect("repo_commits");
    assert_eq!(
        (rc.base.as_str(), rc.fix.as_str()),
        (parent.as_str(), mapped_fix.as_str())
    );
    assert!(p.repo_commits.is_none(), "{:?}", p.repo_commits);
    // Annotation reads the mapped commit: the same values.
    assert_eq!(m.divergence, p.divergence);
    assert_eq!(m.proximity, p.proximity);

    // Every state written, with the trees the unmapped repository gives and the same
    // Partial hunks; the manifests name the rewritten commits.
    let (ps, ms) = (
        p.states.as_ref().expect("plain states"),
        m.states.as_ref().expect("mapped states"),
    );
    assert!(ms.missing.is_empty(), "{:?}", ms.missing);
    assert!(ps.missing.is_empty(), "{:?}", ps.missing);
    for name in STATES {
        let (a, b) = (
            repo_of(&dir.path().join("plain"), &id, name),
            repo_of(&dir.path().join("mapped"), &id, name),
        );
        assert!(files(&a) == files(&b), "{name}: the trees differ");
        let (ma, mb) = (
            manifest_of(&dir.path().join("plain"), &id, name),
            manifest_of(&dir.path().join("mapped"), &id, name),
        );
        assert_eq!(ma.hunks_applied, mb.hunks_applied, "{name}");
        assert_eq!(mb.base_commit, parent, "{name}");
        assert_eq!(mb.fix_commit, mapped_fix, "{name}");
        assert_eq!(ma.gate.is_empty(), mb.gate.is_empty(), "{name}: gated once");
        if name.ends_with("best") {
            let count = |r: &Path| git_text(r, &["rev-list", "--count", "HEAD"]);
            assert_eq!(count(&a), count(&b), "{name}: history lengths differ");
        }
    }

    // `hunkgen checkout` from the mapped dataset gives the state it holds.
    let target = dir.path().join("co");
    let data = dir.path().join("mapped");
    succeeds(
        hunkgen()
            .args(["checkout", &data.to_string_lossy(), &id])
            .args(["--state", "partial", "--scenario", "best"])
            .arg(&target),
    );
    let written = repo_of(&data, &id, "partial-best");
    assert!(files(&target) == files(&written), "checkout differs");
    assert_eq!(
        git_text(&target, &["rev-parse", "HEAD"]),
        git_text(&written, &["rev-parse", "HEAD"])
    );
}
