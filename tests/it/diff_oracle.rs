//! libgit2's own diff parser as an oracle for ours on every git-format Defects4J patch.

use std::path::{Path, PathBuf};

use hunkgen::diff::{parse, FileChange, Patch};

/// What both parsers must agree on for one file patch.
#[derive(Debug, PartialEq, Eq)]
struct FileView {
    old: String,
    new: String,
    change: FileChange,
    /// (old_start, old_lines, new_start, new_lines, body lines incl. no-newline markers)
    hunks: Vec<(u32, u32, u32, u32, usize)>,
}

fn ours(p: &Patch) -> Vec<FileView> {
    p.files
        .iter()
        .map(|f| FileView {
            old: f.old_path.clone().unwrap_or_else(|| f.path().to_string()),
            new: f.new_path.clone().unwrap_or_else(|| f.path().to_string()),
            change: f.change,
            hunks: f
                .hunks
                .iter()
                .map(|h| {
                    let markers = h.lines.iter().filter(|l| l.no_newline.is_some()).count();
                    (
                        h.old_start,
                        h.old_lines,
                        h.new_start,
                        h.new_lines,
                        h.lines.len() + markers,
                    )
                })
                .collect(),
        })
        .collect()
}

fn libgit2(bytes: &[u8]) -> Result<Vec<FileView>, git2::Error> {
    let diff = git2::Diff::from_buffer(bytes)?;
    let mut out = Vec::new();
    for (i, d) in diff.deltas().enumerate() {
        let path = |p: Option<&Path>| p.map(|p| p.to_string_lossy().into_owned());
        let old = path(d.old_file().path());
        let new = path(d.new_file().path());
        let change = match d.status() {
            git2::Delta::Added => FileChange::Added,
            git2::Delta::Deleted => FileChange::Deleted,
            git2::Delta::Renamed => FileChange::Renamed,
            git2::Delta::Copied => FileChange::Copied,
            _ => FileChange::Modified,
        };
        let mut hunks = Vec::new();
        if let Some(patch) = git2::Patch::from_diff(&diff, i)? {
            for h in 0..patch.num_hunks() {
                let (hunk, lines) = patch.hunk(h)?;
                hunks.push((
                    hunk.old_start(),
                    hunk.old_lines(),
                    hunk.new_start(),
                    hunk.new_lines(),
                    lines,
                ));
            }
        }
        out.push(FileView {
            old: old.clone().or(new.clone()).unwrap_or_default(),
            new: new.or(old).unwrap_or_default(),
            change,
            hunks,
        });
    }
    Ok(out)
}

/// The patch with any `\t...` suffix removed from its `---`/`+++` lines.
fn strip_timestamps(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        let tab = line.iter().position(|&b| b == b'\t');
        match tab {
            Some(t) if line.starts_with(b"--- ") || line.starts_with(b"+++ ") => {
                out.extend_from_slice(&line[..t]);
                out.push(b'\n');
            }
            _ => out.extend_from_slice(line),
        }
    }
    out
}

#[test]
fn libgit2_agrees_on_every_git_format_d4j_patch() {
    let root = crate::common::d4j_root();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flat_map(|p| {
            std::fs::read_dir(p.unwrap().path().join("patches"))
                .into_iter()
                .flatten()
        })
        .map(|f| f.unwrap().path())
        .collect();
    paths.sort();
    let (mut checked, mut files, mut hunks) = (0, 0, 0);
    let mut libgit2_failed = Vec::new();
    let mut disagree = Vec::new();
    for path in &paths {
        let bytes = std::fs::read(path).unwrap();
        if !bytes.windows(11).any(|w| w == b"diff --git ") {
            continue;
        }
        let mine = ours(&parse(&bytes).unwrap());
        match libgit2(&bytes) {
            Err(e) => {
                // libgit2 takes everything after `--- ` as the path; GNU diff timestamps
                // (`\t2020-01-24 ...`) then break its name check. Compare hunks without them.
                let stripped = strip_timestamps(&bytes);
                let theirs = libgit2(&stripped).unwrap();
                let again = ours(&parse(&stripped).unwrap());
                for (a, b) in again.iter().zip(&theirs) {
                    assert_eq!((&a.old, &a.new, &a.hunks), (&b.old, &b.new, &b.hunks));
                }
                assert_eq!(again.len(), theirs.len());
                let rel = path.strip_prefix(&root).unwrap().display().to_string();
                libgit2_failed.push(format!("{rel}: {}", e.message()));
            }
            Ok(theirs) => {
                checked += 1;
                files += mine.len();
                hunks += mine.iter().map(|f| f.hunks.len()).sum::<usize>();
                if theirs != mine {
                    disagree.push(format!(
                        "{}:\n  ours   {mine:?}\n  libgit2 {theirs:?}",
                        path.display()
                    ));
                }
            }
        }
    }
    eprintln!("{checked} git-format patches agree ({files} files, {hunks} hunks); libgit2 failed on {}: {libgit2_failed:#?}", libgit2_failed.len());
    assert!(
        disagree.is_empty(),
        "{} disagreements:\n{}",
        disagree.len(),
        disagree.join("\n")
    );
    assert_eq!(
        checked + libgit2_failed.len(),
        1682,
        "git-format patch count"
    );
    assert_eq!(
        libgit2_failed,
        ["Codec/patches/14.src.patch: mismatched old path names"],
        "the only patch libgit2 rejects: GNU timestamps after git-style paths"
    );
}
