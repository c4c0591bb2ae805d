//! One change between two trees, split the way every git-backed source counts it: test
//! files apart, each other file with the reason it does not count (not code, a
//! submodule, an LFS pointer, its role in the tree), and code hunks judged by the hunk
//! rules. The history walk (a commit against its parent) and pull requests (a head
//! against its merge-base) both go through here, so both count alike.

use super::render::{diff_entries, file_patch, weak_renames};
use crate::classify::{Classifier, FileClass, Role, TreeView};
use crate::diff::{FilePatch, Hunk, LineKind, Patch};
use crate::model::SkipReason;
use crate::syntax::{ChangeKind, FileTokens, HunkLines, Lang};
use git2::{Delta, Diff, Repository, Tree};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Files larger than this are not tokenized for the hunk rules (their hunks count).
const MAX_TOKENIZE_BYTES: usize = 5 * 1024 * 1024;

/// Which code hunks do not count because of what they change (each a switch, each with
/// its skip reason), and whether formatting-only commits are rejected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HunkRules {
    /// Hunks that change only whitespace (`whitespace_only`).
    pub whitespace_only: bool,
    /// Hunks that change only comments (`comment_only`).
    pub comment_only: bool,
    /// Hunks that change only Python docstrings (`docstring_only`).
    pub docstring_only: bool,
    /// Hunks whose changed lines are only imports, comments or blank (`import_only`).
    pub import_only: bool,
    /// Reject commits whose code is unchanged once whitespace, comments and docstrings are
    /// stripped (`formatting_only` in `rejected.jsonl`).
    pub formatting_only: bool,
}

impl HunkRules {
    /// Every rule on (the git source's default in recipes).
    pub const ALL: HunkRules = HunkRules {
        whitespace_only: true,
        comment_only: true,
        docstring_only: true,
        import_only: true,
        formatting_only: true,
    };

    pub(crate) fn any(self) -> bool {
        self.whitespace_only
            || self.comment_only
            || self.docstring_only
            || self.import_only
            || self.formatting_only
    }

    /// The reason a hunk of this kind is skipped, when its rule is on.
    pub(crate) fn reason(self, kind: ChangeKind) -> Option<SkipReason> {
        match kind {
            ChangeKind::Whitespace => self.whitespace_only.then_some(SkipReason::WhitespaceOnly),
            ChangeKind::Comment => self.comment_only.then_some(SkipReason::CommentOnly),
            ChangeKind::Docstring => self.docstring_only.then_some(SkipReason::DocstringOnly),
            ChangeKind::Import => self.import_only.then_some(SkipReason::ImportOnly),
        }
    }
}

/// A change's diff as git prints it: libgit2's rename-detected diff, plus a diff without
/// renames from which renames git would not pair (score < 50%) are taken as a deletion
/// and an addition.
pub(crate) struct ChangeDiff<'r> {
    diff: Diff<'r>,
    plain: Option<Diff<'r>>,
    /// `(from the plain diff, delta index, classifying path)`, in patch order.
    entries: Vec<(bool, usize, String)>,
}

/// A non-test file of a change, in patch order, and why it does not count when it does
/// not (`None`: a code file whose hunks count).
pub(crate) struct ChangedFile {
    /// The delta lives in the diff without renames.
    pub plain: bool,
    /// The delta's index in its diff.
    pub index: usize,
    /// The path it is classified by.
    pub path: String,
    /// Why its hunks do not count.
    pub reason: Option<SkipReason>,
}

/// The non-test files of a change as one patch, with what does not count in it.
pub(crate) struct Assembled {
    /// Every non-test file's text patch (binary non-code files left out).
    pub patch: Patch,
    /// Paths of the files that are not code (or not counted as code).
    pub other: Vec<String>,
    /// Hunks of `patch` (0-based over all its hunks) that do not count, with why.
    pub skips: BTreeMap<usize, SkipReason>,
    /// The code files, when the formatting-only rule is on and every one of them is
    /// unchanged once whitespace, comments and docstrings are stripped.
    pub formatting_only: Option<Vec<String>>,
}

impl<'r> ChangeDiff<'r> {
    /// Wrap a rename-detected diff; `plain` makes the diff without renames, called only
    /// when a weak rename needs splitting.
    pub fn new(
        repo: &Repository,
        diff: Diff<'r>,
        plain: impl FnOnce() -> Result<Diff<'r>, git2::Error>,
    ) -> Result<Self, git2::Error> {
        let weak = weak_renames(repo, &diff)?;
        let plain = if weak.is_empty() {
            None
        } else {
            Some(plain()?)
        };
        let entries = diff_entries(&diff, &weak, plain.as_ref());
        Ok(ChangeDiff {
            diff,
            plain,
            entries,
        })
    }

    /// The diff a delta lives in.
    pub fn source(&self, plain_side: bool) -> &Diff<'r> {
        match (plain_side, &self.plain) {
            (true, Some(p)) => p,
            _ => &self.diff,
        }
    }

    /// The rename-detected diff (for the patch-id).
    pub fn diff(&self) -> &Diff<'r> {
        &self.diff
    }

    /// Number of changed files.
    pub fn files(&self) -> usize {
        self.entries.len()
    }

    /// Split by path alone (no tree reads): the non-test files, each code file without a
    /// reason, and the test files as `(plain side, delta index)`.
    pub fn split(&self, classifier: &Classifier) -> (Vec<ChangedFile>, Vec<(bool, usize)>) {
        let mut nontest = Vec::new();
        let mut tests = Vec::new();
        for (plain, index, path) in self.entries.iter().cloned() {
            let gitlink = self.source(plain).get_delta(index).is_some_and(|d| {
                d.old_file().mode() == git2::FileMode::Commit
                    || d.new_file().mode() == git2::FileMode::Commit
            });
            let reason = if gitlink {
                Some(SkipReason::Submodule)
            } else {
                match classifier.classify(&path) {
                    FileClass::Code => None,
                    FileClass::Test => {
                        tests.push((plain, index));
                        continue;
                    }
                    FileClass::Other => Some(SkipReason::NotCode),
                }
            };
            nontest.push(ChangedFile {
                plain,
                index,
                path,
                reason,
            });
        }
        (nontest, tests)
    }

    /// Read the trees for the code files: an LFS pointer does not count, and (with roles
    /// on) neither does a file whose role in its tree is not code. `old` is the tree
    /// before the change (`None` for a root commit), `new` the tree after it.
    pub fn mark_roles(
        &self,
        repo: &Repository,
        files: &mut [ChangedFile],
        old: Option<&Tree<'_>>,
        new: &Tree<'_>,
        classifier: &Classifier,
    ) {
        for f in files.iter_mut().filter(|f| f.reason.is_none()) {
            let Some(delta) = self.source(f.plain).get_delta(f.index) else {
                continue;
            };
            let deleted = delta.status() == Delta::Deleted;
            let content = if deleted {
                side_content(repo, delta.old_file())
            } else {
                side_content(repo, delta.new_file())
            };
            if content.as_deref().is_some_and(is_lfs_pointer) {
                f.reason = Some(SkipReason::LfsPointer);
                continue;
            }
            if !classifier.roles_on() {
                continue;
            }
            let tree = match (old, deleted) {
                (Some(t), true) => t,
                _ => new,
            };
            let view = GitView {
                repo,
                tree,
                content,
            };
            if let Role::Other(why) = classifier.role(&f.path, &view) {
                f.reason = Some(why);
            }
        }
    }

    /// Name LFS pointers among the files that are not code (their text is a pointer,
    /// not the file).
    pub fn mark_lfs_others(&self, repo: &Repository, files: &mut [ChangedFile]) {
        for f in files
            .iter_mut()
            .filter(|f| f.reason == Some(SkipReason::NotCode))
        {
            let lfs = self.source(f.plain).get_delta(f.index).is_some_and(|d| {
                let file = if d.status() == Delta::Deleted {
                    d.old_file()
                } else {
                    d.new_file()
                };
                side_content(repo, file).is_some_and(|c| is_lfs_pointer(&c))
            });
            if lfs {
                f.reason = Some(SkipReason::LfsPointer);
            }
        }
    }

    /// The text patches of the files (`None` where libgit2 makes none).
    pub fn patches(
        &self,
        files: &[ChangedFile],
    ) -> Result<Vec<Option<git2::Patch<'r>>>, git2::Error> {
        files
            .iter()
            .map(|f| git2::Patch::from_diff(self.source(f.plain), f.index))
            .collect()
    }

    /// Join the non-test files' patches into one, judging code hunks by the hunk rules.
    /// `patches` is aligned with `files`.
    pub fn assemble(
        &self,
        repo: &Repository,
        files: &[ChangedFile],
        patches: &mut [Option<git2::Patch<'_>>],
        rules: HunkRules,
        abbrev: u16,
    ) -> Result<Assembled, git2::Error> {
        let rules_on = rules.any();
        let mut patch = Patch::default();
        let mut other = Vec::new();
        let mut skips = BTreeMap::new();
        let mut index = 0usize;
        let mut formatting = Some(Vec::new());
        for (f, p) in files.iter().zip(patches.iter_mut()) {
            let Some(p) = p else { continue };
            let fp = file_patch(repo, p, abbrev)?;
            if f.reason.is_some() {
                other.push(f.path.clone());
                if fp.binary {
                    // Binary files are left out: `git diff` prints no applicable content.
                    continue;
                }
            }
            let verdicts = match (f.reason, rules_on) {
                (None, true) => {
                    let (old, new) = match self.source(f.plain).get_delta(f.index) {
                        Some(d) => (
                            side_content(repo, d.old_file()),
                            side_content(repo, d.new_file()),
                        ),
                        None => (None, None),
                    };
                    let verdicts = hunk_verdicts(&f.path, old.as_deref(), new.as_deref(), &fp);
                    // Formatting-only holds while every code file's code is unchanged.
                    if verdicts.1 {
                        if let Some(files) = formatting.as_mut() {
                            files.push(f.path.clone());
                        }
                    } else {
                        formatting = None;
                    }
                    verdicts.0
                }
                _ => {
                    if f.reason.is_none() {
                        formatting = None;
                    }
                    vec![None; fp.hunks.len()]
                }
            };
            for (k, v) in verdicts.iter().enumerate() {
                let why = f.reason.or_else(|| v.and_then(|kind| rules.reason(kind)));
                if let Some(why) = why {
                    skips.insert(index + k, why);
                }
            }
            index += fp.hunks.len();
            patch.files.push(fp);
        }
        Ok(Assembled {
            patch,
            other,
            skips,
            formatting_only: formatting.filter(|files| rules.formatting_only && !files.is_empty()),
        })
    }

    /// The test files' patch.
    pub fn test_patch(
        &self,
        repo: &Repository,
        tests: &[(bool, usize)],
        abbrev: u16,
    ) -> Result<Patch, git2::Error> {
        let mut out = Patch::default();
        for &(side, i) in tests {
            if let Some(mut p) = git2::Patch::from_diff(self.source(side), i)? {
                out.files.push(file_patch(repo, &mut p, abbrev)?);
            }
        }
        Ok(out)
    }
}

/// The `rejected.jsonl` detail of a formatting-only change.
pub fn formatting_detail(files: &[String]) -> String {
    format!(
        "formatting-only: the code of {} is unchanged once whitespace and comments are stripped",
        files.join(", ")
    )
}

/// A changed file as role detection sees it: the tree it lives in and its content.
struct GitView<'r> {
    repo: &'r Repository,
    tree: &'r Tree<'r>,
    content: Option<Vec<u8>>,
}

impl TreeView for GitView<'_> {
    fn exists(&self, path: &str) -> bool {
        self.tree.get_path(Path::new(path)).is_ok()
    }
    fn content(&self) -> Option<&[u8]> {
        self.content.as_deref()
    }
    fn read(&self, path: &str) -> Option<Vec<u8>> {
        let entry = self.tree.get_path(Path::new(path)).ok()?;
        let blob = entry.to_object(self.repo).ok()?.into_blob().ok()?;
        Some(blob.content().to_vec())
    }
}

/// A Git LFS pointer: the file's content is stored outside the repository.
fn is_lfs_pointer(content: &[u8]) -> bool {
    content.starts_with(b"version https://git-lfs.github.com/spec/")
}

/// The content of one side of a delta (`None` for a missing side or a gitlink).
fn side_content(repo: &Repository, file: git2::DiffFile<'_>) -> Option<Vec<u8>> {
    if file.id().is_zero() || file.mode() == git2::FileMode::Commit {
        return None;
    }
    repo.find_blob(file.id()).ok().map(|b| b.content().to_vec())
}

/// Per hunk of a code file, what it changes when that is not code, and whether the
/// whole file's code is unchanged once whitespace and comments are stripped. Files in
/// other languages, too large or with syntax errors get no verdicts (their hunks count).
fn hunk_verdicts(
    path: &str,
    old: Option<&[u8]>,
    new: Option<&[u8]>,
    fp: &FilePatch,
) -> (Vec<Option<ChangeKind>>, bool) {
    let none = (vec![None; fp.hunks.len()], false);
    let Some(lang) = Lang::from_path(path) else {
        return none;
    };
    let (Some(old), Some(new)) = (old, new) else {
        return none;
    };
    if old.len() > MAX_TOKENIZE_BYTES || new.len() > MAX_TOKENIZE_BYTES {
        return none;
    }
    // A cheap look at the text first: a file whose hunks all plainly change code is not
    // parsed (most files of a fix).
    let lines: Vec<HunkLines> = fp.hunks.iter().map(hunk_lines).collect();
    let need: Vec<bool> = lines
        .iter()
        .map(|h| crate::syntax::may_change_no_code(lang, old, new, h))
        .collect();
    if !need.contains(&true) {
        return none;
    }
    // Only the hunks' regions are tokenized: outside them both versions are equal.
    let ranges = |side: fn(&Hunk) -> (u32, u32)| -> Vec<(u32, u32)> {
        fp.hunks
            .iter()
            .zip(&need)
            .filter(|(_, &n)| n)
            .map(|(h, _)| side(h))
            .filter(|&(_, n)| n > 0)
            .map(|(s, n)| (s, s + n - 1))
            .collect()
    };
    let (Some(o), Some(n)) = (
        FileTokens::for_lines(lang, old, &ranges(|h| (h.old_start, h.old_lines))),
        FileTokens::for_lines(lang, new, &ranges(|h| (h.new_start, h.new_lines))),
    ) else {
        return none;
    };
    let verdicts: Vec<Option<ChangeKind>> = lines
        .iter()
        .zip(&need)
        .map(|(h, &needed)| {
            if needed {
                crate::syntax::hunk_change(&o, &n, h)
            } else {
                None
            }
        })
        .collect();
    // The code is unchanged when every hunk changes only layout, comments or docstrings
    // (outside the hunks the two versions are byte-equal).
    let same = !verdicts.is_empty()
        && verdicts.iter().all(|v| {
            matches!(
                v,
                Some(ChangeKind::Whitespace | ChangeKind::Comment | ChangeKind::Docstring)
            )
        });
    (verdicts, same)
}

/// A hunk's ranges and changed line numbers, as the syntax layer takes them.
fn hunk_lines(h: &Hunk) -> HunkLines {
    let mut out = HunkLines {
        old: (h.old_start, h.old_lines),
        new: (h.new_start, h.new_lines),
        ..HunkLines::default()
    };
    let (mut o, mut n) = (h.old_start.max(1), h.new_start.max(1));
    for l in &h.lines {
        match l.kind {
            LineKind::Context => {
                o += 1;
                n += 1;
            }
            LineKind::Removed => {
                out.removed.push(o);
                o += 1;
            }
            LineKind::Added => {
                out.added.push(n);
                n += 1;
            }
        }
    }
    out
}
