//! The history walk: visits the commits of a local repository with libgit2, diffs each
//! like `git diff`, and asks the mining policy (a [`Policy`], defined by the source that
//! mines) which of them are fix candidates. This module reads git; it decides nothing
//! about what a fix is.
//!
//! The walk is cheap-first: merges and messages are filtered before any diff is made, the
//! tree diff is classified by path before any text diff, and full [`Patch`] values are
//! built only for commits that pass every filter (parsing every pre-image of a history
//! costs about five times the diffing itself).

use super::change::{ChangeDiff, ChangedFile, HunkRules};
use super::decode::decode_message;
use super::error::GitError;
use super::render::{diff_options, git_abbrev_len};
use super::repo::open;
use super::verify::Verifier;
use crate::classify::Classifier;
use crate::diff::Patch;
use crate::memo::Memo;
use crate::model::SkipReason;
use crate::progress::Progress;
use git2::{Diff, DiffFindOptions, Oid, Repository, RevparseMode, Sort};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::Mutex;
use stored::{fix_commit, Stored, Trees};

mod stored;
mod whole;

/// Commits per rayon task: consecutive commits share trees and blobs, so keeping them on
/// one thread (and one `Repository`, whose object cache persists) saves object loads.
const CHUNK: usize = 64;

/// One selected fix commit with its diff split by file class, the unit later stages
/// turn into benchmark instances.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixCommit {
    /// Full hex id of the fix commit.
    pub id: String,
    /// Full hex id of its parent (the buggy revision); the empty-tree id for root commits.
    pub parent: String,
    /// The whole commit message, lossily decoded.
    pub message: String,
    /// `Name <email>` of the author.
    pub author: String,
    /// Committer time in seconds since the epoch (the order commits landed in).
    pub time: i64,
    /// Committer time-zone offset in minutes.
    pub offset_minutes: i32,
    /// Forward patch (parent → commit) of every non-test file (code, docs, config, stubs,
    /// submodule entries; binary files excepted), byte-equal to `git diff`.
    pub patch: Patch,
    /// Forward patch of the test files.
    pub test_patch: Patch,
    /// Paths of changed files that are neither code nor tests (docs, build files).
    pub other_files: Vec<String>,
    /// Number of hunks in code files (before the hunk rules).
    pub code_hunks: usize,
    /// git's stable patch-id of the whole commit diff (when duplicates are rejected).
    pub patch_id: Option<String>,
    /// Hunks of `patch` (by 0-based index over all its hunks) that do not count, decided
    /// here because it needs the trees: file roles and the hunk rules.
    pub skips: BTreeMap<usize, SkipReason>,
}

/// Totals of a walk that diffs every commit, so benchmarks can check all work was done.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WalkTotals {
    /// Non-merge commits diffed.
    pub commits: usize,
    /// File deltas seen.
    pub files: usize,
    /// Bytes of patch text produced (headers, hunk headers and lines).
    pub bytes: usize,
}

/// The mining policy's decisions, asked by the walk in its cheap-first order. The policy
/// belongs to the source that mines (what counts as a fix is not git's business); the
/// walk only reads the history and reports what each commit is.
pub trait Policy: Sync {
    /// How the policy names the rule a commit broke (stored in the memo).
    type Rule: Send + Clone + serde::Serialize + serde::de::DeserializeOwned;
    /// Whether a commit message selects the commit (asked before any diff is made).
    fn accepts_message(&self, message: &str) -> bool;
    /// Whether a commit must change a test file as well as a code file.
    fn require_tests(&self) -> bool;
    /// The fewest code hunks a candidate has (checked before and after file roles).
    fn min_code_hunks(&self) -> usize;
    /// The rule a commit breaks by its message or size, with one line saying what the
    /// rule saw; `None` keeps it.
    fn judge(&self, change: &ChangeSize<'_>) -> Option<(Self::Rule, String)>;
    /// Whether kept commits get git's patch-id (for a duplicate rule after the walk).
    fn patch_ids(&self) -> bool;
    /// Which code hunks do not count, and whether formatting-only commits are reported.
    fn hunk_rules(&self) -> HunkRules;
    /// Everything the policy decides a message-selected commit by (its rules, not which
    /// commits are walked): part of the memo key of each examined commit.
    fn fingerprint(&self) -> String;
}

/// What the policy judges a commit by, once its code files are known.
#[derive(Debug, Clone, Copy)]
pub struct ChangeSize<'a> {
    /// The whole commit message, decoded.
    pub message: &'a str,
    /// Files changed (code, tests and others).
    pub files: usize,
    /// Hunks in code files.
    pub code_hunks: usize,
    /// Code lines added plus removed.
    pub changed_lines: usize,
    /// The changelog entries the commit adds (its own account of what it is).
    pub changelog: &'a [super::changelog::ChangelogEntry],
}

/// What examining one commit found, in the order the walk looks.
#[derive(Debug)]
pub enum Outcome<R> {
    /// A merge commit: skipped.
    Merge,
    /// The policy's message rules did not select it.
    NoMessage,
    /// Its parent is not in the repository (shallow clone): it cannot be diffed. The
    /// string says what the walk saw.
    MissingParent(String),
    /// Selected by message but touching no code (or no tests when they are required).
    NoCodeOrTests,
    /// Fewer code hunks than the policy's minimum.
    FewHunks,
    /// The policy rejected it by message or size.
    Rejected(R, String),
    /// Its code is unchanged once whitespace, comments and docstrings are stripped (only
    /// reported when [`HunkRules::formatting_only`] is on): the code files.
    FormattingOnly(Vec<String>),
    /// A candidate fix.
    Fix(Box<FixCommit>),
}

/// One visited commit: its full hex id and what examining it found, or why it could not
/// be read (one corrupt object never hides the rest).
pub type Examined<R> = (String, Result<Outcome<R>, GitError>);

/// The messages (lossily decoded) of the commits `ids` names (a walk's ids, in its
/// order): for rules that read what one commit says of another (a revert names the
/// reverted one). Messages only; no diff is made, and the walk's list is not made again.
pub fn messages_of(repo: &Path, ids: &[String]) -> Result<Vec<(String, String)>, GitError> {
    let r = open(repo)?;
    Ok(ids
        .iter()
        .filter_map(|id| {
            let commit = r.find_commit(Oid::from_str(id).ok()?).ok()?;
            let message = String::from_utf8_lossy(commit.message_bytes()).into_owned();
            Some((id.clone(), message))
        })
        .collect())
}

/// How many commits are on some branch but reached neither from the default branch nor
/// from a tag: what the default walk (what shipped) leaves out, for the funnel. The
/// count depends only on where the refs point, so `memo` keeps it by their targets
/// (libgit2 reads every hidden commit to count).
pub fn count_unshipped(repo: &Path, memo: Option<&Memo>) -> Result<usize, GitError> {
    let r = open(repo)?;
    let walk_err = |e: git2::Error| GitError::Walk {
        path: repo.to_path_buf(),
        source: e.into(),
    };
    let key = memo.and_then(|m| {
        let mut refs: Vec<String> = r
            .references()
            .ok()?
            .filter_map(|rf: Result<git2::Reference<'_>, git2::Error>| {
                let rf = rf.ok()?;
                let name = rf.name().ok()?.to_string();
                let target = rf.resolve().ok()?.target()?;
                Some(format!("{name} {target}"))
            })
            .collect();
        refs.sort();
        let head = r
            .head()
            .ok()
            .and_then(|h| h.target())
            .map(|t| t.to_string());
        let text = format!("{head:?}\n{}", refs.join("\n"));
        Some((m, Memo::key("walk-unshipped-v1", &[text.as_bytes()])))
    });
    if let Some(n) = key.as_ref().and_then(|(m, k)| m.get::<usize>(k)) {
        return Ok(n);
    }
    let mut walk = r.revwalk().map_err(walk_err)?;
    walk.push_glob("refs/heads/*").map_err(walk_err)?;
    walk.push_glob("refs/remotes/*").map_err(walk_err)?;
    if r.head().ok().and_then(|h| h.target()).is_some() {
        walk.hide_head().map_err(walk_err)?;
    }
    walk.hide_glob("refs/tags/*").map_err(walk_err)?;
    let n = walk.filter(Result::is_ok).count();
    if let Some((m, k)) = &key {
        m.put(k, &n);
    }
    Ok(n)
}

/// Walk the commits of `repo` selected by `revs` (what shipped when `None`) and examine
/// each under `policy`; the result lists every visited commit in walk order (newest
/// first, parents after their children).
///
/// Raises libgit2's process-wide object-cache limits (see `tune_libgit2`) and turns its
/// own hash verification off; `verify_objects` is enforced here instead.
pub fn walk<P: Policy>(
    repo: &Path,
    revs: Option<&str>,
    verify_objects: bool,
    policy: &P,
    classifier: &Classifier,
    progress: &Progress,
    memo: Option<&Memo>,
) -> Result<Vec<Examined<P::Rule>>, GitError> {
    tune_libgit2();
    let r = open(repo)?;
    let abbrev = git_abbrev_len(&r);
    let fingerprint = format!("{}\n{classifier:?}\n{abbrev}", policy.fingerprint());
    // Where the walk starts decides which commits it visits: a warm rebuild of unchanged
    // refs answers from the memo without reading one commit.
    let whole = memo.and_then(|m| {
        let fp = format!("{fingerprint}\nverify {verify_objects}");
        Some((m, whole::key(&r, revs, &fp)?))
    });
    if let Some(all) = whole.as_ref().and_then(|(m, k)| whole::load(m, k)) {
        progress.set_len(all.len() as u64);
        progress.inc(all.len() as u64);
        return Ok(all);
    }
    let ids = commit_ids(&r, repo, revs)?;
    drop(r);
    let ctx = Ctx {
        policy,
        classifier,
        abbrev,
        shallow: shallow_boundary(repo),
        memo: memo.map(|m| (m, fingerprint)),
    };
    progress.set_len(ids.len() as u64);
    let pool = RepoPool::new(repo, verify_objects);
    let per_chunk: Vec<Result<Vec<Examined<P::Rule>>, GitError>> = ids
        .par_chunks(CHUNK)
        .map(|chunk| {
            pool.with(|w| {
                let mut examined = Vec::with_capacity(chunk.len());
                for &oid in chunk {
                    let outcome = examine(w, oid, &ctx).map_err(|e| commit_error(repo, oid, e));
                    examined.push((oid.to_string(), outcome));
                    progress.inc(1);
                }
                Ok(examined)
            })
        })
        .collect();
    let mut all = Vec::with_capacity(ids.len());
    for chunk in per_chunk {
        all.extend(chunk?);
    }
    if let Some((m, k)) = &whole {
        whole::store(m, k, &all);
    }
    Ok(all)
}

/// Commits listed in `.git/shallow`: their parents were cut off by a shallow clone.
fn shallow_boundary(repo: &Path) -> HashSet<Oid> {
    let Ok(r) = open(repo) else {
        return HashSet::new();
    };
    if !r.is_shallow() {
        return HashSet::new();
    }
    std::fs::read_to_string(r.path().join("shallow"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| Oid::from_str(l.trim()).ok())
        .collect()
}

/// Diff every non-merge commit selected by `revs` into patch text (as `git log -p`
/// does) without filtering, the baseline workload of the benchmark.
pub fn diff_all(
    repo: &Path,
    revs: Option<&str>,
    verify_objects: bool,
    progress: &Progress,
) -> Result<WalkTotals, GitError> {
    tune_libgit2();
    let (ids, abbrev) = {
        let r = open(repo)?;
        (commit_ids(&r, repo, revs)?, git_abbrev_len(&r))
    };
    progress.set_len(ids.len() as u64);
    let pool = RepoPool::new(repo, verify_objects);
    let per_chunk: Vec<Result<WalkTotals, GitError>> = ids
        .par_chunks(CHUNK)
        .map(|chunk| {
            pool.with(|w| {
                let mut t = WalkTotals::default();
                for &oid in chunk {
                    diff_one(w, oid, abbrev, &mut t).map_err(|e| commit_error(repo, oid, e))?;
                    progress.inc(1);
                }
                Ok(t)
            })
        })
        .collect();
    let mut total = WalkTotals::default();
    for t in per_chunk {
        let t = t?;
        total.commits += t.commits;
        total.files += t.files;
        total.bytes += t.bytes;
    }
    Ok(total)
}

/// A commit that could not be read or diffed, named with its repository.
fn commit_error(repo: &Path, oid: Oid, e: git2::Error) -> GitError {
    GitError::Object {
        path: repo.to_path_buf(),
        what: format!("commit {oid}"),
        source: e.into(),
    }
}

/// One worker state per rayon thread: `Repository` is `Send` but not `Sync`, and reusing
/// it keeps libgit2's object cache (and the set of verified objects) warm across chunks.
struct RepoPool<'p> {
    path: &'p Path,
    verify: bool,
    slots: Vec<Mutex<Option<Worker>>>,
}

/// A worker's repository handle and object verifier.
struct Worker {
    repo: Repository,
    verifier: Verifier,
}

impl<'p> RepoPool<'p> {
    fn new(path: &'p Path, verify: bool) -> Self {
        let n = rayon::current_num_threads().max(1);
        RepoPool {
            path,
            verify,
            slots: (0..n).map(|_| Mutex::new(None)).collect(),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut Worker) -> Result<T, GitError>) -> Result<T, GitError> {
        let i = rayon::current_thread_index().unwrap_or(0) % self.slots.len();
        // A poisoned slot only means another chunk panicked; the repository is still usable.
        let mut slot = self.slots[i].lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(Worker {
                repo: open(self.path)?,
                verifier: Verifier::new(self.verify),
            });
        }
        match slot.as_mut() {
            Some(w) => f(w),
            None => Err(GitError::NotARepository {
                path: self.path.to_path_buf(),
                source: git2::Error::from_str("repository handle unavailable").into(),
            }),
        }
    }
}

/// `revs` meaning every branch, local and remote-tracking (`all_branches: true`); not a
/// revision git could parse (a ref name never starts with `-`).
pub const ALL_BRANCHES: &str = "--branches";

/// The commits `revs` selects — `None`: what shipped (the default branch, `HEAD`, and
/// every tag: releases); [`ALL_BRANCHES`]; else a ref or a range — newest first in
/// topological order, merges included (they are skipped per commit, where the parent
/// count is known anyway).
fn commit_ids(repo: &Repository, path: &Path, revs: Option<&str>) -> Result<Vec<Oid>, GitError> {
    let walk_err = |e: git2::Error| GitError::Walk {
        path: path.to_path_buf(),
        source: e.into(),
    };
    let mut walk = repo.revwalk().map_err(walk_err)?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)
        .map_err(walk_err)?;
    match revs {
        Some(ALL_BRANCHES) => {
            walk.push_glob("refs/heads/*").map_err(walk_err)?;
            walk.push_glob("refs/remotes/*").map_err(walk_err)?;
        }
        None => {
            // An unborn or missing HEAD leaves the tags (and an empty walk).
            if repo.head().ok().and_then(|h| h.target()).is_some() {
                walk.push_head().map_err(walk_err)?;
            }
            walk.push_glob("refs/tags/*").map_err(walk_err)?;
        }
        Some(rev) => {
            let unknown = |e: git2::Error| GitError::UnknownRevision {
                path: path.to_path_buf(),
                rev: rev.to_string(),
                source: e.into(),
            };
            let spec = repo.revparse(rev).map_err(unknown)?;
            let commit_of = |o: Option<&git2::Object<'_>>| -> Result<Oid, GitError> {
                match o {
                    Some(o) => o.peel_to_commit().map(|c| c.id()).map_err(unknown),
                    None => Err(unknown(git2::Error::from_str("empty side of range"))),
                }
            };
            let mode = spec.mode();
            if mode.contains(RevparseMode::SINGLE) {
                walk.push(commit_of(spec.from())?).map_err(walk_err)?;
            } else {
                let from = commit_of(spec.from())?;
                let to = commit_of(spec.to())?;
                walk.push(to).map_err(walk_err)?;
                if mode.contains(RevparseMode::MERGE_BASE) {
                    walk.push(from).map_err(walk_err)?;
                    let base = repo.merge_base(from, to).map_err(unknown)?;
                    walk.hide(base).map_err(walk_err)?;
                } else {
                    walk.hide(from).map_err(walk_err)?;
                }
            }
        }
    }
    walk.collect::<Result<Vec<Oid>, _>>().map_err(walk_err)
}

/// Process-wide libgit2 settings for a walk: libgit2's own hash verification off, and object
/// cache limits raised so trees (a big package's tree exceeds the 4 KB default) and blobs
/// (not cached by default) read for one commit are reused for its neighbour: a blob
/// changed by commit C is the old side of the next change to that file, and each cache
/// hit skips an inflate (diff-everything walk of commons-lang under load: 31 s → 21 s).
fn tune_libgit2() {
    // Verification is ours (see `Verifier::verify_diff`): libgit2's re-hash uses SHA1DC,
    // several times slower than the hardware SHA-1 of the `sha1` crate.
    git2::opts::strict_hash_verification(false);
    static CACHE: std::sync::Once = std::sync::Once::new();
    CACHE.call_once(|| {
        // SAFETY: these only set libgit2's global cache limits (libgit2 is initialised by
        // the `strict_hash_verification` call above); `Once` keeps them from racing.
        unsafe {
            let _ = git2::opts::set_cache_object_limit(git2::ObjectType::Tree, 1 << 20);
            let _ = git2::opts::set_cache_object_limit(git2::ObjectType::Blob, 1 << 20);
            let _ = git2::opts::set_cache_max_size(512 << 20);
        }
    });
}

/// Parent tree → commit tree with rename detection (`-M`); root commits diff against
/// the empty tree.
fn commit_diff<'r>(
    repo: &'r Repository,
    commit: &git2::Commit<'_>,
    abbrev: u16,
) -> Result<Diff<'r>, git2::Error> {
    let mut diff = plain_diff(repo, commit, abbrev)?;
    let mut find = DiffFindOptions::new();
    find.renames(true);
    diff.find_similar(Some(&mut find))?;
    Ok(diff)
}

/// Diff one commit into patch text and add it to the totals (merges are skipped).
fn diff_one(w: &mut Worker, oid: Oid, abbrev: u16, t: &mut WalkTotals) -> Result<(), git2::Error> {
    let Worker { repo, verifier } = w;
    let commit = repo.find_commit(oid)?;
    if commit.parent_count() > 1 {
        return Ok(());
    }
    let diff = commit_diff(repo, &commit, abbrev)?;
    verifier.verify_diff(repo, &commit, &diff, true)?;
    t.commits += 1;
    t.files += diff.deltas().len();
    let mut bytes = 0usize;
    diff.print(git2::DiffFormat::Patch, |_, _, line| {
        bytes += line.content().len();
        true
    })?;
    t.bytes += bytes;
    Ok(())
}

/// The commit's diff without rename detection (for splitting weak renames).
fn plain_diff<'r>(
    repo: &'r Repository,
    commit: &git2::Commit<'_>,
    abbrev: u16,
) -> Result<Diff<'r>, git2::Error> {
    let tree = commit.tree()?;
    let parent_tree = if commit.parent_count() == 1 {
        Some(commit.parent(0)?.tree()?)
    } else {
        None
    };
    let mut opts = diff_options();
    opts.id_abbrev(abbrev);
    repo.diff_tree_to_tree(parent_tree.as_ref(), Some(&tree), Some(&mut opts))
}

/// git's well-known id of the empty tree, the "parent" a root commit is diffed against.
fn empty_tree_id() -> String {
    "4b825dc642cb6eb9a060e54bf8d69288fbee4904".to_string()
}

/// Per-run settings shared by the workers.
struct Ctx<'a, P> {
    policy: &'a P,
    classifier: &'a Classifier,
    /// Hex digits of abbreviated ids in `index` lines, as git computes them for this repo.
    abbrev: u16,
    /// Commits whose parents a shallow clone cut off.
    shallow: HashSet<Oid>,
    /// Where examined commits are kept across builds, with the fingerprint of the
    /// policy, classifier and id length that decided them.
    memo: Option<(&'a Memo, String)>,
}

/// Examine one commit cheap-first, asking `ctx.policy` at each step.
fn examine<P: Policy>(
    w: &mut Worker,
    oid: Oid,
    ctx: &Ctx<'_, P>,
) -> Result<Outcome<P::Rule>, git2::Error> {
    let policy = ctx.policy;
    let Worker { repo, verifier } = w;
    let commit = repo.find_commit(oid)?;
    verifier.verify_object(repo, oid)?;
    if commit.parent_count() > 1 {
        return Ok(Outcome::Merge);
    }
    let message = decode_message(
        commit.message_bytes(),
        commit.message_encoding().ok().flatten(),
    );
    if !policy.accepts_message(&message) {
        return Ok(Outcome::NoMessage);
    }
    if ctx.shallow.contains(&oid) {
        return Ok(Outcome::MissingParent(
            "its parent is not in the repository (shallow clone boundary); not examined".into(),
        ));
    }
    if commit.parent_count() == 1 {
        if let Err(e) = commit.parent(0) {
            if e.code() == git2::ErrorCode::NotFound {
                return Ok(Outcome::MissingParent(format!(
                    "its parent {} is not in the repository; not examined",
                    commit.parent_id(0)?
                )));
            }
            return Err(e);
        }
    }
    // Past the message and parent checks, what the commit is depends only on its trees
    // and the rules: a warm rebuild answers it from the memo.
    let key = ctx.memo.as_ref().map(|(m, fp)| {
        (
            *m,
            Memo::key("walk-examine-v1", &[oid.as_bytes(), fp.as_bytes()]),
        )
    });
    if let Some((m, key)) = &key {
        if let Some(stored) = m.get::<Stored<P::Rule>>(key) {
            if let Some(outcome) = stored.into_outcome(&commit, message.clone())? {
                return Ok(outcome);
            }
        }
    }
    let outcome = examine_trees(repo, verifier, &commit, message, ctx)?;
    if let Some((m, key)) = &key {
        if let Some(stored) = Stored::of(&outcome) {
            m.put(key, &stored);
        }
    }
    Ok(outcome)
}

/// Examine a message-selected commit by its trees: files, hunks, size rules, patches.
fn examine_trees<P: Policy>(
    repo: &Repository,
    verifier: &mut Verifier,
    commit: &git2::Commit<'_>,
    message: String,
    ctx: &Ctx<'_, P>,
) -> Result<Outcome<P::Rule>, git2::Error> {
    let (policy, classifier) = (ctx.policy, ctx.classifier);
    let diff = commit_diff(repo, commit, ctx.abbrev)?;
    verifier.verify_diff(repo, commit, &diff, false)?;
    let change = ChangeDiff::new(repo, diff, || plain_diff(repo, commit, ctx.abbrev))?;
    let files = change.files();
    // Cheap split by path first; roles (tree reads) only for commits that pass it.
    let (mut nontest, tests) = change.split(classifier);
    let has_code = |n: &[ChangedFile]| n.iter().any(|f| f.reason.is_none());
    if !has_code(&nontest) || (policy.require_tests() && tests.is_empty()) {
        return Ok(Outcome::NoCodeOrTests);
    }
    // Code files (by path) are diffed first: a commit with fewer code hunks than the
    // minimum needs no tree reads. The other files' text diffs (changelogs can be large)
    // are made only for commits that pass the size rules.
    for &(side, i) in &tests {
        verifier.verify_blobs(repo, change.source(side), i)?;
    }
    let mut patches: Vec<Option<git2::Patch<'_>>> = Vec::with_capacity(nontest.len());
    let mut raw_hunks = 0usize;
    for f in &nontest {
        if f.reason.is_some() {
            patches.push(None);
            continue;
        }
        verifier.verify_blobs(repo, change.source(f.plain), f.index)?;
        let p = git2::Patch::from_diff(change.source(f.plain), f.index)?;
        raw_hunks += p.as_ref().map_or(0, |p| p.num_hunks());
        patches.push(p);
    }
    if raw_hunks < policy.min_code_hunks() {
        return Ok(Outcome::FewHunks);
    }
    let new_tree = commit.tree()?;
    let old_tree = if commit.parent_count() == 1 {
        Some(commit.parent(0)?.tree()?)
    } else {
        None
    };
    change.mark_roles(repo, &mut nontest, old_tree.as_ref(), &new_tree, classifier);
    if !has_code(&nontest) {
        return Ok(Outcome::NoCodeOrTests);
    }
    let (mut hunks, mut changed) = (0usize, 0usize);
    for (f, p) in nontest.iter().zip(&patches) {
        if let (None, Some(p)) = (f.reason, p) {
            let (_, added, removed) = p.line_stats()?;
            hunks += p.num_hunks();
            changed += added + removed;
        }
    }
    if hunks < policy.min_code_hunks() {
        return Ok(Outcome::FewHunks);
    }
    // The commit's changelog entries: read only for files named like changelogs.
    let mut changelog = Vec::new();
    for f in nontest
        .iter()
        .filter(|f| f.reason.is_some() && super::changelog::is_changelog(&f.path))
    {
        verifier.verify_blobs(repo, change.source(f.plain), f.index)?;
        let Some(p) = git2::Patch::from_diff(change.source(f.plain), f.index)? else {
            continue;
        };
        let id = p.delta().new_file().id();
        let content = if id.is_zero() {
            Vec::new()
        } else {
            repo.find_blob(id)?.content().to_vec()
        };
        changelog.extend(super::changelog::entries(&f.path, &p, &content));
    }
    let size = ChangeSize {
        message: &message,
        files,
        code_hunks: hunks,
        changed_lines: changed,
        changelog: &changelog,
    };
    if let Some((rule, detail)) = policy.judge(&size) {
        return Ok(Outcome::Rejected(rule, detail));
    }
    // Only commits that passed every cheap rule pay for a patch-id.
    let patch_id = if policy.patch_ids() {
        Some(change.diff().patchid(None)?.to_string())
    } else {
        None
    };
    change.mark_lfs_others(repo, &mut nontest);
    for (f, p) in nontest.iter().zip(patches.iter_mut()) {
        if f.reason.is_some() && p.is_none() {
            verifier.verify_blobs(repo, change.source(f.plain), f.index)?;
            *p = git2::Patch::from_diff(change.source(f.plain), f.index)?;
        }
    }
    let assembled = change.assemble(
        repo,
        &nontest,
        &mut patches,
        policy.hunk_rules(),
        ctx.abbrev,
    )?;
    if let Some(files) = assembled.formatting_only {
        return Ok(Outcome::FormattingOnly(files));
    }
    let test_patch = change.test_patch(repo, &tests, ctx.abbrev)?;
    Ok(Outcome::Fix(Box::new(fix_commit(
        commit,
        message,
        Trees {
            patch: assembled.patch,
            test_patch,
            other_files: assembled.other,
            code_hunks: hunks,
            patch_id,
            skips: assembled.skips,
        },
    )?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::fixture::commit;

    #[test]
    fn the_unshipped_count_is_memoized_by_where_the_refs_point() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path().join("repo");
        let r = git2::Repository::init(&dir).expect("init");
        let base = commit(&r, &[("a", "1")], 1, None, Some("HEAD"));
        let wip = commit(&r, &[("a", "2")], 2, Some(base), Some("refs/heads/wip"));
        let memo = Memo::new(tmp.path().join("cache"), true);
        assert_eq!(count_unshipped(&dir, Some(&memo)).expect("count"), 1);
        // The memo answers while the refs point where they did.
        let memoized = |n: usize| {
            let dirs = std::fs::read_dir(tmp.path().join("cache/memo")).expect("memo");
            assert!(dirs.count() > 0);
            assert_eq!(count_unshipped(&dir, Some(&memo)).expect("count"), n);
        };
        memoized(1);
        // One more commit on the branch moves its ref: counted afresh.
        commit(&r, &[("a", "3")], 3, Some(wip), Some("refs/heads/wip"));
        memoized(2);
        assert_eq!(count_unshipped(&dir, None).expect("count"), 2);
    }
}
