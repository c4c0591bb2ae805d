//! Mines fix commits from a local git history with libgit2, diffing exactly like `git diff`.
//!
//! The walk is cheap-first: merges and messages are filtered before any diff is made, the
//! tree diff is classified by path before any text diff, and full [`Patch`] values are
//! built only for commits that pass every filter (parsing every pre-image of a history
//! costs about five times the diffing itself).

use super::change::{formatting_detail, ChangeDiff, ChangedFile};
use super::{open, GitError};
use crate::classify::Classifier;
use crate::diff::{FileChange, FilePatch, Hunk, Line, LineKind, Patch};
use crate::model::{MineFunnel, SkipReason};
use crate::progress::Progress;
use crate::syntax::ChangeKind;
use git2::{Delta, Diff, DiffFindOptions, DiffOptions, Oid, Repository, RevparseMode, Sort};
use rayon::prelude::*;
use regex::Regex;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Default fix-message rule: the usual words of bug-fix commits, whole words only, so
/// `prefix`/`debugger` do not match but `Fix`, `fixes`, `bug`, `bugfix`, `defect` do.
pub const DEFAULT_MESSAGE_REGEX: &str =
    r"(?i)\b(fix(e[sd]|ing)?|bug(s|fix(es)?)?|defects?|faults?|regressions?)\b";

/// Commits per rayon task: consecutive commits share trees and blobs, so keeping them on
/// one thread (and one `Repository`, whose object cache persists) saves object loads.
const CHUNK: usize = 64;

/// Recipe rules for picking fix commits out of a history (raw serde form, unknown keys
/// rejected so a typo never silently widens the selection).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GitSourceConfig {
    /// `A..B` (or `A...B`) range or a single ref; `None` walks every branch
    /// (`refs/heads/*` and `refs/remotes/*`).
    pub revs: Option<String>,
    /// Commit-message rule (Rust regex syntax, case-insensitive unless the pattern says
    /// `(?-i)`), matched against the whole message; an empty string accepts every message.
    pub message_regex: String,
    /// Rule for the first line of the message only (the subject), so a squash merge's
    /// bullet list ("* fix typo") does not select it; `None` checks no subject.
    pub subject_regex: Option<String>,
    /// Messages matching this are never selected (reverts, version bumps, bots).
    pub exclude_regex: Option<String>,
    /// Require at least one test file and one code file, since validation needs a test.
    pub require_tests: bool,
    /// Upper bound on code lines added + removed, to drop sweeping refactors.
    pub max_changed_lines: Option<usize>,
    /// Upper bound on the files a commit changes (code, tests and others), to drop mass
    /// maintenance commits.
    pub max_files: Option<usize>,
    /// Upper bound on code hunks ("Drop Python 2.7", 57 hunks, is no bug fix).
    pub max_code_hunks: Option<usize>,
    /// Reject reverts: a `Revert "…"` subject or a `This reverts commit <id>` body.
    pub reject_reverts: bool,
    /// Reject a commit whose git patch-id (`git patch-id --stable`) an earlier selected
    /// commit already has (cherry-picks, backports); the earliest is kept.
    pub reject_duplicates: bool,
    /// Minimum number of hunks in code files (2 = multi-hunk fixes only).
    pub min_code_hunks: usize,
    /// Re-hash every object the result depends on (commits, the trees along changed
    /// paths, the changed blobs) and fail on a mismatch, like libgit2's
    /// `strict_hash_verification` but with hardware SHA-1; turning it off is faster but
    /// trusts the object store, so it is an explicit opt-out.
    pub verify_objects: bool,
    /// Content rules for code hunks, decided with the syntax layer.
    pub hunk_rules: HunkRules,
}

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

impl Default for GitSourceConfig {
    fn default() -> Self {
        GitSourceConfig {
            revs: None,
            message_regex: DEFAULT_MESSAGE_REGEX.to_string(),
            subject_regex: None,
            exclude_regex: None,
            require_tests: true,
            max_changed_lines: None,
            max_files: None,
            max_code_hunks: None,
            reject_reverts: true,
            reject_duplicates: true,
            min_code_hunks: 2,
            verify_objects: true,
            hunk_rules: HunkRules::default(),
        }
    }
}

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

/// What a walk found: the selected fix commits, the commits a commit rule rejected, and
/// the commits that could not be read (each kept with its reason, so one corrupt object
/// never hides the rest), with the funnel of counts.
#[derive(Debug, Default)]
pub struct Mined {
    /// Selected fix commits, sorted by commit time then id.
    pub fixes: Vec<FixCommit>,
    /// Commits that failed to read or diff: (full hex id, the error).
    pub failed: Vec<(String, GitError)>,
    /// Commits rejected by a commit rule, sorted by commit id.
    pub rejected: Vec<MineRejection>,
    /// Commits visited (merges included).
    pub walked: usize,
    /// Counts at each step of the walk.
    pub funnel: MineFunnel,
}

/// Why a commit that passed the message rules did not become a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CommitRule {
    /// It reverts another commit (`reject_reverts`).
    Revert,
    /// Its patch-id equals an earlier commit's (`reject_duplicates`).
    DuplicatePatch,
    /// More changed files than `max_files`.
    MaxFiles,
    /// More code hunks than `max_code_hunks`.
    MaxCodeHunks,
    /// More changed code lines than `max_changed_lines`.
    MaxChangedLines,
    /// Its parent is not in the repository (shallow clone): it cannot be diffed.
    MissingParent,
    /// Its code is unchanged once whitespace, comments and docstrings are stripped
    /// (`select.reject_formatting_only`).
    FormattingOnly,
}

impl CommitRule {
    /// Stable snake_case name, as the funnel counts it: the `rejected.jsonl` reason.
    pub fn key(self) -> &'static str {
        match self {
            CommitRule::Revert => "revert",
            CommitRule::DuplicatePatch => "duplicate_patch",
            CommitRule::MaxFiles => "too_many_files",
            CommitRule::MaxCodeHunks => "too_many_hunks",
            CommitRule::MaxChangedLines => "too_many_changed_lines",
            CommitRule::MissingParent => "missing_parent",
            CommitRule::FormattingOnly => "formatting_only",
        }
    }
}

/// One commit a commit rule rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MineRejection {
    /// Full hex id of the commit.
    pub commit: String,
    /// The rule.
    pub rule: CommitRule,
    /// One line saying what the rule saw.
    pub detail: String,
    /// For a duplicate, the full id of the earlier commit that was kept.
    pub kept: Option<String>,
}

/// The message rules of a walk, compiled once (case-insensitive by default).
#[derive(Debug, Clone)]
pub struct MessageRules {
    /// Must match somewhere in the whole message.
    pub message: Regex,
    /// Must match the subject (first line), when set.
    pub subject: Option<Regex>,
    /// Must not match the message, when set.
    pub exclude: Option<Regex>,
}

impl MessageRules {
    /// Compile `cfg`'s three rules; an error names the rule.
    pub fn compile(cfg: &GitSourceConfig) -> Result<MessageRules, GitError> {
        Ok(MessageRules {
            message: compile_rule("message_regex", &cfg.message_regex)?,
            subject: cfg
                .subject_regex
                .as_deref()
                .map(|r| compile_rule("subject_regex", r))
                .transpose()?,
            exclude: cfg
                .exclude_regex
                .as_deref()
                .map(|r| compile_rule("exclude_regex", r))
                .transpose()?,
        })
    }

    /// Whether a commit message passes every rule.
    pub fn accepts(&self, message: &str) -> bool {
        let subject = message.lines().next().unwrap_or("");
        self.message.is_match(message)
            && self.subject.as_ref().is_none_or(|r| r.is_match(subject))
            && !self.exclude.as_ref().is_some_and(|r| r.is_match(message))
    }
}

/// Find the fix commits of `repo` selected by `cfg`, compiling its message rules.
pub fn mine(
    repo: &Path,
    cfg: &GitSourceConfig,
    classifier: &Classifier,
    progress: &Progress,
) -> Result<Mined, GitError> {
    let rules = MessageRules::compile(cfg)?;
    mine_with_rules(repo, cfg, &rules, classifier, progress)
}

/// Find the fix commits of `repo` selected by `cfg`, with the message rule already
/// compiled (the recipe plan compiles it once, before any work starts).
///
/// Raises libgit2's process-wide object-cache limits (see `tune_libgit2`) and turns its
/// own hash verification off; `cfg.verify_objects` is enforced here instead.
pub fn mine_with_rules(
    repo: &Path,
    cfg: &GitSourceConfig,
    rules: &MessageRules,
    classifier: &Classifier,
    progress: &Progress,
) -> Result<Mined, GitError> {
    tune_libgit2();
    let (ids, abbrev) = {
        let r = open(repo)?;
        (
            commit_ids(&r, repo, cfg.revs.as_deref())?,
            git_abbrev_len(&r),
        )
    };
    let ctx = Ctx {
        cfg,
        rules: rules.clone(),
        classifier,
        abbrev,
        shallow: shallow_boundary(repo),
    };
    progress.set_len(ids.len() as u64);
    let pool = RepoPool::new(repo, cfg.verify_objects);
    let per_chunk: Vec<Result<Mined, GitError>> = ids
        .par_chunks(CHUNK)
        .map(|chunk| {
            pool.with(|w| {
                let mut m = Mined::default();
                for &oid in chunk {
                    match examine(w, oid, &ctx) {
                        Ok(outcome) => m.count(oid, outcome),
                        Err(e) => m.failed.push((oid.to_string(), commit_error(repo, oid, e))),
                    }
                    progress.inc(1);
                }
                Ok(m)
            })
        })
        .collect();
    let mut mined = Mined {
        walked: ids.len(),
        ..Mined::default()
    };
    for chunk in per_chunk {
        let m = chunk?;
        mined.fixes.extend(m.fixes);
        mined.failed.extend(m.failed);
        mined.rejected.extend(m.rejected);
        let (f, g) = (&mut mined.funnel, m.funnel);
        f.non_merge += g.non_merge;
        f.message_matched += g.message_matched;
        f.code_and_tests += g.code_and_tests;
        f.multi_hunk += g.multi_hunk;
        f.missing_parent += g.missing_parent;
    }
    // Earliest first: committer time, then walk position (the walk lists parents after
    // their children), so of two commits with one patch-id the older one is kept.
    let rank: HashMap<String, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id.to_string(), i))
        .collect();
    let order = |f: &FixCommit| (f.time, usize::MAX - rank.get(&f.id).copied().unwrap_or(0));
    mined.fixes.sort_by_key(order);
    if cfg.reject_duplicates {
        let mut first: HashMap<String, String> = HashMap::new();
        let mut kept = Vec::with_capacity(mined.fixes.len());
        for fix in std::mem::take(&mut mined.fixes) {
            let Some(pid) = fix.patch_id.clone() else {
                kept.push(fix);
                continue;
            };
            match first.get(&pid) {
                Some(earlier) => mined.rejected.push(MineRejection {
                    commit: fix.id.clone(),
                    rule: CommitRule::DuplicatePatch,
                    detail: format!("same git patch-id {pid} as earlier commit {earlier}"),
                    kept: Some(earlier.clone()),
                }),
                None => {
                    first.insert(pid, fix.id.clone());
                    kept.push(fix);
                }
            }
        }
        mined.fixes = kept;
    }
    mined
        .fixes
        .sort_by(|a, b| (a.time, &a.id).cmp(&(b.time, &b.id)));
    mined.failed.sort_by(|a, b| a.0.cmp(&b.0));
    mined.rejected.sort_by(|a, b| a.commit.cmp(&b.commit));
    mined.funnel.walked = ids.len();
    for r in &mined.rejected {
        if r.rule != CommitRule::MissingParent {
            *mined
                .funnel
                .rejected
                .entry(r.rule.key().into())
                .or_default() += 1;
        }
    }
    mined.funnel.kept = mined.fixes.len();
    mined.funnel.unreadable = mined.failed.len();
    Ok(mined)
}

/// What examining one commit decided.
enum Outcome {
    /// A merge commit: skipped, counted.
    Merge,
    /// The message rules did not select it.
    NoMessage,
    /// Selected by message but touching no code (or no tests when they are required).
    NoCodeOrTests,
    /// Fewer code hunks than `min_code_hunks`.
    FewHunks,
    /// Rejected by a commit rule (after the message rules, or its parent is missing).
    Rejected(CommitRule, String),
    /// A candidate fix.
    Fix(Box<FixCommit>),
}

impl Mined {
    /// Fold one commit's outcome into this (per-chunk) result.
    fn count(&mut self, oid: Oid, outcome: Outcome) {
        let f = &mut self.funnel;
        if matches!(outcome, Outcome::Merge) {
            return;
        }
        f.non_merge += 1;
        if matches!(outcome, Outcome::NoMessage) {
            return;
        }
        f.message_matched += 1;
        if let Outcome::Rejected(CommitRule::MissingParent, detail) = outcome {
            f.missing_parent += 1;
            self.rejected.push(MineRejection {
                commit: oid.to_string(),
                rule: CommitRule::MissingParent,
                detail,
                kept: None,
            });
            return;
        }
        if matches!(outcome, Outcome::NoCodeOrTests) {
            return;
        }
        f.code_and_tests += 1;
        if matches!(outcome, Outcome::FewHunks) {
            return;
        }
        f.multi_hunk += 1;
        match outcome {
            Outcome::Rejected(rule, detail) => self.rejected.push(MineRejection {
                commit: oid.to_string(),
                rule,
                detail,
                kept: None,
            }),
            Outcome::Fix(fix) => self.fixes.push(*fix),
            _ => {}
        }
    }
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

/// Why `message` is a revert, when it is one: a `Revert "…"` subject or a
/// `This reverts commit <id>` line (what `git revert` writes).
pub fn revert_reason(message: &str) -> Option<String> {
    let subject = message.lines().next().unwrap_or("").trim();
    if subject.starts_with("Revert \"") || subject.starts_with("Revert '") {
        return Some(format!("revert: subject `{}`", one_line(subject)));
    }
    message.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("This reverts commit ")?;
        let id: String = rest.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
        (id.len() >= 7).then(|| format!("revert: body says `This reverts commit {id}`"))
    })
}

/// At most 100 characters of one line, for rejection details.
fn one_line(s: &str) -> String {
    let s = s.lines().next().unwrap_or("");
    if s.chars().count() > 100 {
        format!("{}…", s.chars().take(100).collect::<String>())
    } else {
        s.to_string()
    }
}

/// A commit message as text: UTF-8 when it is; else decoded by its `encoding` header
/// when that is Latin-1 or Windows-1252; else lossily (U+FFFD for each bad byte).
pub fn decode_message(bytes: &[u8], encoding: Option<&str>) -> String {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return s.to_string();
    }
    let enc = encoding.unwrap_or("").trim().to_ascii_lowercase();
    match enc.as_str() {
        "iso-8859-1" | "iso8859-1" | "latin1" | "latin-1" | "l1" => {
            bytes.iter().map(|&b| char::from(b)).collect()
        }
        "windows-1252" | "cp1252" => bytes.iter().map(|&b| cp1252(b)).collect(),
        _ => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// One Windows-1252 byte as a char (0x80–0x9F differ from Latin-1).
fn cp1252(b: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž',
        '\u{8f}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}',
        'ž', 'Ÿ',
    ];
    match b {
        0x80..=0x9f => HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

/// Diff every non-merge commit selected by `cfg.revs` into patch text (as `git log -p`
/// does) without filtering, the baseline workload of the benchmark.
pub fn diff_all(
    repo: &Path,
    cfg: &GitSourceConfig,
    progress: &Progress,
) -> Result<WalkTotals, GitError> {
    tune_libgit2();
    let (ids, abbrev) = {
        let r = open(repo)?;
        (
            commit_ids(&r, repo, cfg.revs.as_deref())?,
            git_abbrev_len(&r),
        )
    };
    progress.set_len(ids.len() as u64);
    let pool = RepoPool::new(repo, cfg.verify_objects);
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

/// A message rule, case-insensitive unless the pattern turns that off with `(?-i)`.
fn compile_rule(key: &'static str, pattern: &str) -> Result<Regex, GitError> {
    regex::RegexBuilder::new(pattern)
        .case_insensitive(true)
        .build()
        .map_err(|e| GitError::BadRegex {
            key,
            regex: pattern.to_string(),
            message: e
                .to_string()
                .lines()
                .last()
                .unwrap_or("")
                .trim()
                .to_string(),
        })
}

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

/// Object verification state of one worker.
struct Verifier {
    /// `Some` when objects are verified: the ids already hashed by this worker, so trees
    /// and blobs shared by neighbouring commits are hashed once.
    seen: Option<HashSet<Oid>>,
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
                verifier: Verifier {
                    seen: self.verify.then(HashSet::new),
                },
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

/// The commits to visit, newest first in topological order, merges included (they are
/// skipped per commit, where the parent count is known anyway).
fn commit_ids(repo: &Repository, path: &Path, revs: Option<&str>) -> Result<Vec<Oid>, GitError> {
    let walk_err = |e: git2::Error| GitError::Walk {
        path: path.to_path_buf(),
        source: e.into(),
    };
    let mut walk = repo.revwalk().map_err(walk_err)?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)
        .map_err(walk_err)?;
    match revs {
        None => {
            walk.push_glob("refs/heads/*").map_err(walk_err)?;
            walk.push_glob("refs/remotes/*").map_err(walk_err)?;
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
    // Verification is ours (see `Worker::verify_diff`): libgit2's re-hash uses SHA1DC,
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

/// git's `diff` defaults where libgit2's differ: indent heuristic on, 3 lines of context.
pub(crate) fn diff_options() -> DiffOptions {
    let mut o = DiffOptions::new();
    o.context_lines(3).indent_heuristic(true);
    o
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

/// The path that classifies a delta: the new path, or the old one for deletions.
pub(crate) fn delta_path(delta: &git2::DiffDelta<'_>) -> String {
    let file = if delta.status() == Delta::Deleted {
        delta.old_file()
    } else {
        delta.new_file()
    };
    file.path_bytes()
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .unwrap_or_default()
}

/// The deltas of a diff as `(from the plain diff, delta index, classifying path)`: the
/// rename-detected diff's deltas, except weak renames (`weak`), which are taken split
/// from `plain` (the diff without renames) as a deletion and an addition, as git does.
pub(crate) fn diff_entries(
    diff: &Diff<'_>,
    weak: &[usize],
    plain: Option<&Diff<'_>>,
) -> Vec<(bool, usize, String)> {
    let mut entries: Vec<(bool, usize, String)> = diff
        .deltas()
        .enumerate()
        .filter(|(i, _)| !weak.contains(i))
        .map(|(i, d)| (false, i, delta_path(&d)))
        .collect();
    if let Some(plain) = plain {
        let split: Vec<(Option<&Path>, Option<&Path>)> = weak
            .iter()
            .filter_map(|&i| diff.get_delta(i))
            .map(|d| (d.old_file().path(), d.new_file().path()))
            .collect();
        for (i, delta) in plain.deltas().enumerate() {
            let hit = match delta.status() {
                Delta::Deleted => split.iter().any(|s| s.0 == delta.old_file().path()),
                Delta::Added => split.iter().any(|s| s.1 == delta.new_file().path()),
                _ => false,
            };
            if hit {
                entries.push((true, i, delta_path(&delta)));
            }
        }
        entries.sort_by(|a, b| a.2.cmp(&b.2));
    }
    entries
}

/// Per-run settings shared by the workers.
struct Ctx<'a> {
    cfg: &'a GitSourceConfig,
    rules: MessageRules,
    classifier: &'a Classifier,
    /// Hex digits of abbreviated ids in `index` lines, as git computes them for this repo.
    abbrev: u16,
    /// Commits whose parents a shallow clone cut off.
    shallow: HashSet<Oid>,
}

fn examine(w: &mut Worker, oid: Oid, ctx: &Ctx<'_>) -> Result<Outcome, git2::Error> {
    let (cfg, rules, classifier) = (ctx.cfg, &ctx.rules, ctx.classifier);
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
    if !rules.accepts(&message) {
        return Ok(Outcome::NoMessage);
    }
    if ctx.shallow.contains(&oid) {
        return Ok(Outcome::Rejected(
            CommitRule::MissingParent,
            "its parent is not in the repository (shallow clone boundary); not examined".into(),
        ));
    }
    if commit.parent_count() == 1 {
        if let Err(e) = commit.parent(0) {
            if e.code() == git2::ErrorCode::NotFound {
                return Ok(Outcome::Rejected(
                    CommitRule::MissingParent,
                    format!(
                        "its parent {} is not in the repository; not examined",
                        commit.parent_id(0)?
                    ),
                ));
            }
            return Err(e);
        }
    }
    let diff = commit_diff(repo, &commit, ctx.abbrev)?;
    verifier.verify_diff(repo, &commit, &diff, false)?;
    let change = ChangeDiff::new(repo, diff, || plain_diff(repo, &commit, ctx.abbrev))?;
    let files = change.files();
    // Cheap split by path first; roles (tree reads) only for commits that pass it.
    let (mut nontest, tests) = change.split(classifier);
    let has_code = |n: &[ChangedFile]| n.iter().any(|f| f.reason.is_none());
    if !has_code(&nontest) || (cfg.require_tests && tests.is_empty()) {
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
    if raw_hunks < cfg.min_code_hunks {
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
    if hunks < cfg.min_code_hunks {
        return Ok(Outcome::FewHunks);
    }
    let rejected = |rule, detail| Ok(Outcome::Rejected(rule, detail));
    if cfg.reject_reverts {
        if let Some(why) = revert_reason(&message) {
            return rejected(CommitRule::Revert, why);
        }
    }
    if let Some(max) = cfg.max_files.filter(|&max| files > max) {
        return rejected(
            CommitRule::MaxFiles,
            format!("{files} files changed, more than max_files {max}"),
        );
    }
    if let Some(max) = cfg.max_code_hunks.filter(|&max| hunks > max) {
        return rejected(
            CommitRule::MaxCodeHunks,
            format!("{hunks} code hunks, more than max_code_hunks {max}"),
        );
    }
    if let Some(max) = cfg.max_changed_lines.filter(|&max| changed > max) {
        return rejected(
            CommitRule::MaxChangedLines,
            format!("{changed} code lines changed, more than max_changed_lines {max}"),
        );
    }
    // Only commits that passed every cheap rule pay for a patch-id.
    let patch_id = if cfg.reject_duplicates {
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
    let assembled = change.assemble(repo, &nontest, &mut patches, cfg.hunk_rules, ctx.abbrev)?;
    if let Some(files) = &assembled.formatting_only {
        return rejected(CommitRule::FormattingOnly, formatting_detail(files));
    }
    let test_patch = change.test_patch(repo, &tests, ctx.abbrev)?;
    let parent = if commit.parent_count() == 1 {
        commit.parent_id(0)?.to_string()
    } else {
        empty_tree_id()
    };
    let author = commit.author();
    let time = commit.time();
    Ok(Outcome::Fix(Box::new(FixCommit {
        id: oid.to_string(),
        parent,
        message,
        author: format!(
            "{} <{}>",
            String::from_utf8_lossy(author.name_bytes()),
            String::from_utf8_lossy(author.email_bytes())
        ),
        time: time.seconds(),
        offset_minutes: time.offset_minutes(),
        patch: assembled.patch,
        test_patch,
        other_files: assembled.other,
        code_hunks: hunks,
        patch_id,
        skips: assembled.skips,
    })))
}

impl Verifier {
    /// Hash one object's raw bytes and compare with its id, once per worker; a no-op when
    /// verification is off. Catches corrupt or tampered object stores like libgit2's
    /// `strict_hash_verification`, with a hardware-accelerated SHA-1.
    fn verify_object(&mut self, repo: &Repository, id: Oid) -> Result<(), git2::Error> {
        let Some(seen) = self.seen.as_mut() else {
            return Ok(());
        };
        if id.is_zero() || !seen.insert(id) {
            return Ok(());
        }
        let odb = repo.odb()?;
        let obj = odb.read(id)?;
        check_hash(obj.kind(), obj.data(), id)
    }

    /// Verify both blobs of delta `i` (read through the object cache, so the diff that
    /// follows reuses them instead of reading them again).
    fn verify_blobs(
        &mut self,
        repo: &Repository,
        diff: &Diff<'_>,
        i: usize,
    ) -> Result<(), git2::Error> {
        let Some(seen) = self.seen.as_mut() else {
            return Ok(());
        };
        let Some(delta) = diff.get_delta(i) else {
            return Ok(());
        };
        for file in [delta.old_file(), delta.new_file()] {
            let id = file.id();
            // Submodule entries (gitlinks) name commits of another repository.
            if id.is_zero() || file.mode() == git2::FileMode::Commit || !seen.insert(id) {
                continue;
            }
            let blob = repo.find_blob(id)?;
            check_hash(git2::ObjectType::Blob, blob.content(), id)?;
        }
        Ok(())
    }

    /// Verify everything a commit's diff was computed from: the commit, both root trees,
    /// the trees along every changed path and, with `blobs`, the changed blobs. Unchanged
    /// subtrees are compared by id only, so their content never reaches the output.
    fn verify_diff(
        &mut self,
        repo: &Repository,
        commit: &git2::Commit<'_>,
        diff: &Diff<'_>,
        blobs: bool,
    ) -> Result<(), git2::Error> {
        if self.seen.is_none() {
            return Ok(());
        }
        self.verify_object(repo, commit.id())?;
        let new_root = commit.tree_id();
        let old_root = if commit.parent_count() == 1 {
            Some(commit.parent(0)?.tree_id())
        } else {
            None
        };
        let mut trees: Vec<Oid> = vec![new_root];
        trees.extend(old_root);
        for (i, delta) in diff.deltas().enumerate() {
            for (root, file) in [
                (old_root, delta.old_file()),
                (Some(new_root), delta.new_file()),
            ] {
                let (Some(root), Some(path)) = (root, file.path()) else {
                    continue;
                };
                if file.id().is_zero() {
                    continue;
                }
                let root = repo.find_tree(root)?;
                let mut dir = PathBuf::new();
                let parents: Vec<_> = path
                    .parent()
                    .into_iter()
                    .flat_map(|p| p.components())
                    .collect();
                for comp in parents {
                    dir.push(comp);
                    trees.push(root.get_path(&dir)?.id());
                }
            }
            if blobs {
                self.verify_blobs(repo, diff, i)?;
            }
        }
        for id in trees {
            self.verify_object(repo, id)?;
        }
        Ok(())
    }
}

/// Compare an object's git hash (`<kind> <len>\0<data>`) with its id.
fn check_hash(kind: git2::ObjectType, data: &[u8], id: Oid) -> Result<(), git2::Error> {
    use sha1::{Digest, Sha1};
    let mut h = Sha1::new();
    h.update(format!("{} {}\0", kind.str(), data.len()).as_bytes());
    h.update(data);
    if h.finalize().as_slice() == id.as_bytes() {
        Ok(())
    } else {
        Err(git2::Error::from_str(&format!(
            "object {id} is corrupt: its content does not hash to its id"
        )))
    }
}

/// Indices of renamed deltas that git's own score would not pair (below its default
/// 50% `-M` threshold); only renames cost blob reads here, and they are rare.
pub(crate) fn weak_renames(repo: &Repository, diff: &Diff<'_>) -> Result<Vec<usize>, git2::Error> {
    let mut weak = Vec::new();
    for (i, d) in diff.deltas().enumerate() {
        if d.status() != Delta::Renamed || d.old_file().id() == d.new_file().id() {
            continue;
        }
        let old = repo.find_blob(d.old_file().id())?;
        let new = repo.find_blob(d.new_file().id())?;
        if git_similarity(old.content(), new.content()) < 50 {
            weak.push(i);
        }
    }
    Ok(weak)
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

/// Convert one libgit2 file patch into the crate's model, byte-exact with `git diff`:
/// the file header comes as one chunk (split into lines), hunk headers verbatim, and the
/// end-of-file markers (origins `=`, `>`, `<`, content `\n\ No newline at end of file\n`)
/// attach to the line before them, whose content then lacks a terminator.
pub(crate) fn file_patch(
    repo: &Repository,
    p: &mut git2::Patch<'_>,
    abbrev: u16,
) -> Result<FilePatch, git2::Error> {
    let delta = p.delta();
    let rename_score = if delta.status() == Delta::Renamed {
        let old = repo.find_blob(delta.old_file().id())?;
        let new = repo.find_blob(delta.new_file().id())?;
        Some(git_similarity(old.content(), new.content()))
    } else {
        None
    };
    let path_of = |f: git2::DiffFile<'_>| {
        f.path_bytes()
            .map(|b| String::from_utf8_lossy(b).into_owned())
    };
    let status = delta.status();
    let ids = (delta.old_file().id(), delta.new_file().id());
    let change = match status {
        Delta::Added => FileChange::Added,
        Delta::Deleted => FileChange::Deleted,
        Delta::Renamed => FileChange::Renamed,
        Delta::Copied => FileChange::Copied,
        _ => FileChange::Modified,
    };
    let old_path = if status == Delta::Added {
        None
    } else {
        path_of(delta.old_file())
    };
    let new_path = if status == Delta::Deleted {
        None
    } else {
        path_of(delta.new_file())
    };
    let mut fp = FilePatch {
        trailer: Vec::new(),
        header: Vec::new(),
        old_path,
        new_path,
        change,
        binary: false,
        old_mode: None,
        new_mode: None,
        hunks: Vec::new(),
    };
    p.print(&mut |_, hunk, line| {
        let content = line.content();
        match line.origin() {
            'F' => fp
                .header
                .extend(content.split_inclusive(|&b| b == b'\n').map(|l| {
                    match rename_score {
                        // libgit2 scores similarity its own way; print git's score instead.
                        Some(score) if l.starts_with(b"similarity index ") => {
                            format!("similarity index {score}%\n").into_bytes()
                        }
                        _ if l.starts_with(b"index ") => index_line(repo, ids, l, abbrev),
                        _ => l.to_vec(),
                    }
                })),
            'B' => {
                fp.binary = true;
                fp.header.push(content.to_vec());
            }
            'H' => {
                if let Some(h) = hunk {
                    fp.hunks.push(Hunk {
                        old_start: h.old_start(),
                        old_lines: h.old_lines(),
                        new_start: h.new_start(),
                        new_lines: h.new_lines(),
                        header: hunk_header(content),
                        lines: Vec::new(),
                    });
                }
            }
            origin @ (' ' | '+' | '-') => {
                let kind = match origin {
                    '+' => LineKind::Added,
                    '-' => LineKind::Removed,
                    _ => LineKind::Context,
                };
                if let Some(h) = fp.hunks.last_mut() {
                    h.lines.push(Line {
                        kind,
                        content: content.to_vec(),
                        no_newline: None,
                    });
                }
            }
            '=' | '>' | '<' => {
                if let Some(l) = fp.hunks.last_mut().and_then(|h| h.lines.last_mut()) {
                    l.no_newline = Some(content.to_vec());
                }
            }
            _ => {}
        }
        true
    })?;
    for h in &fp.header {
        let text = String::from_utf8_lossy(h);
        let text = text.trim_end();
        let mode = |prefix: &str| {
            text.strip_prefix(prefix)
                .and_then(|m| u32::from_str_radix(m.trim(), 8).ok())
        };
        if let Some(m) = mode("old mode ").or_else(|| mode("deleted file mode ")) {
            fp.old_mode = Some(m);
        }
        if let Some(m) = mode("new mode ").or_else(|| mode("new file mode ")) {
            fp.new_mode = Some(m);
        }
    }
    Ok(fp)
}

/// A hunk header as git prints it: libgit2 cuts the function context at 80 bytes but,
/// unlike git's xdiff, keeps whitespace left at the cut, so trailing whitespace of the
/// context is trimmed here.
fn hunk_header(raw: &[u8]) -> Vec<u8> {
    let body = raw.strip_suffix(b"\n").unwrap_or(raw);
    // `@@ -a,b +c,d @@` ends at the second `@@`.
    let Some(end) = body
        .get(2..)
        .and_then(|b| b.windows(2).position(|w| w == b"@@"))
        .map(|i| i + 4)
    else {
        return raw.to_vec();
    };
    let (ranges, func) = body.split_at(end);
    let func = func.trim_ascii_end();
    let mut out = ranges.to_vec();
    if func.len() > 1 {
        out.extend_from_slice(func);
    }
    out.push(b'\n');
    out
}

/// The `index A..B[ mode]` line with git's abbreviations: at least `abbrev` digits, longer
/// where the prefix is ambiguous in this repository (git's `find_unique_abbrev`).
fn index_line(repo: &Repository, ids: (Oid, Oid), line: &[u8], abbrev: u16) -> Vec<u8> {
    let Ok(odb) = repo.odb() else {
        return line.to_vec();
    };
    let min = usize::from(abbrev);
    let short = |id: Oid| -> String {
        let hex = id.to_string();
        if id.is_zero() {
            return hex[..min.min(hex.len())].to_string();
        }
        for len in min..hex.len() {
            let unique = Oid::from_str(&hex[..len])
                .map(|prefix| odb.exists_prefix(prefix, len).is_ok())
                .unwrap_or(true);
            if unique {
                return hex[..len].to_string();
            }
        }
        hex
    };
    // Keep what follows the two ids (a space and the mode, and the line end).
    let rest_at = line[6..]
        .iter()
        .position(|&b| b == b' ' || b == b'\n')
        .map_or(line.len(), |i| i + 6);
    let mut out = format!("index {}..{}", short(ids.0), short(ids.1)).into_bytes();
    out.extend_from_slice(&line[rest_at..]);
    out
}

/// The abbreviation length git uses for this repository: `core.abbrev` if set to a
/// number, otherwise "auto" = half the bit length of the packed-object count, rounded up,
/// at least 7 (git's `repo_approximate_object_count` counts packed objects only).
pub(crate) fn git_abbrev_len(repo: &Repository) -> u16 {
    if let Ok(v) = repo.config().and_then(|c| c.get_string("core.abbrev")) {
        if let Ok(n) = v.trim().parse::<u16>() {
            return n.clamp(4, 40);
        }
        if v.trim().eq_ignore_ascii_case("no") {
            return 40;
        }
    }
    let objects = repo.path().join("objects");
    let mut dirs = vec![objects.join("pack")];
    if let Ok(alt) = std::fs::read_to_string(objects.join("info/alternates")) {
        dirs.extend(
            alt.lines()
                .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
                .map(|l| objects.join(l.trim()).join("pack")),
        );
    }
    let mut count: u64 = 0;
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            if e.path().extension().is_some_and(|x| x == "idx") {
                count += pack_idx_count(&e.path()).unwrap_or(0);
            }
        }
    }
    let bits = 64 - count.leading_zeros();
    (bits.div_ceil(2) as u16).max(7)
}

/// Object count of a pack index (v2: magic, version, then 256 fan-out entries whose last
/// is the total; v1: the fan-out table comes first).
fn pack_idx_count(path: &Path) -> Option<u64> {
    use std::io::Read;
    let mut head = [0u8; 8 + 256 * 4];
    std::fs::File::open(path).ok()?.read_exact(&mut head).ok()?;
    let fanout_end = if head[..4] == [0xff, b't', b'O', b'c'] {
        8 + 256 * 4
    } else {
        256 * 4
    };
    let last = &head[fanout_end - 4..fanout_end];
    Some(u64::from(u32::from_be_bytes([
        last[0], last[1], last[2], last[3],
    ])))
}

/// git's rename score in percent (`diffcore-rename.c` `estimate_similarity` over
/// `diffcore-delta.c` span hashes), so `similarity index` lines match `git diff -M`.
fn git_similarity(old: &[u8], new: &[u8]) -> u32 {
    const MAX_SCORE: u64 = 60_000;
    let max_size = old.len().max(new.len()) as u64;
    if new.is_empty() || max_size == 0 {
        return 0;
    }
    if old == new {
        return 100;
    }
    let src = span_hashes(old);
    let dst = span_hashes(new);
    let copied: u64 = src
        .iter()
        .map(|(h, &n)| n.min(dst.get(h).copied().unwrap_or(0)))
        .sum();
    let score = copied * MAX_SCORE / max_size;
    (score * 100 / MAX_SCORE) as u32
}

/// Byte counts per span hash: spans end at a newline or after 64 bytes; a CR before LF is
/// ignored in text (git's `hash_chars`).
fn span_hashes(buf: &[u8]) -> std::collections::HashMap<u32, u64> {
    const HASHBASE: u32 = 107_927;
    let text = !buf[..buf.len().min(8000)].contains(&0);
    let mut map = std::collections::HashMap::new();
    let (mut a1, mut a2, mut n) = (0u32, 0u32, 0u64);
    for (i, &c) in buf.iter().enumerate() {
        if text && c == b'\r' && buf.get(i + 1) == Some(&b'\n') {
            continue;
        }
        let old1 = a1;
        a1 = (a1 << 7) ^ (a2 >> 25);
        a2 = (a2 << 7) ^ (old1 >> 25);
        a1 = a1.wrapping_add(u32::from(c));
        n += 1;
        if n < 64 && c != b'\n' {
            continue;
        }
        let h = a1.wrapping_add(a2.wrapping_mul(0x61)) % HASHBASE;
        *map.entry(h).or_insert(0) += n;
        n = 0;
        a1 = 0;
        a2 = 0;
    }
    if n > 0 {
        let h = a1.wrapping_add(a2.wrapping_mul(0x61)) % HASHBASE;
        *map.entry(h).or_insert(0) += n;
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_regex_matches_fix_words_only() {
        let r = compile_rule("message_regex", DEFAULT_MESSAGE_REGEX).unwrap();
        for yes in [
            "Fix NPE in parser",
            "fixes #12",
            "Fixed off-by-one",
            "bugfix: x",
            "BUG 7",
            "regression in 2.1",
        ] {
            assert!(r.is_match(yes), "{yes}");
        }
        for no in [
            "Add prefix option",
            "debugger support",
            "Refactor helpers",
            "suffix tree",
        ] {
            assert!(!r.is_match(no), "{no}");
        }
    }

    #[test]
    fn config_rejects_unknown_keys() {
        let err = serde_json::from_str::<GitSourceConfig>(r#"{"message_regx": "x"}"#).unwrap_err();
        assert!(err.to_string().contains("message_regx"), "{err}");
        let cfg: GitSourceConfig = serde_json::from_str(r#"{"min_code_hunks": 3}"#).unwrap();
        assert_eq!(cfg.min_code_hunks, 3);
        assert!(cfg.verify_objects && cfg.require_tests);
    }

    #[test]
    fn hunk_header_trims_like_git() {
        assert_eq!(
            hunk_header(b"@@ -1,2 +1,3 @@ class A {   \n"),
            b"@@ -1,2 +1,3 @@ class A {\n"
        );
        assert_eq!(hunk_header(b"@@ -1 +1 @@\n"), b"@@ -1 +1 @@\n");
        assert_eq!(hunk_header(b"@@ -1 +1 @@ \n"), b"@@ -1 +1 @@\n");
    }

    #[test]
    fn git_similarity_matches_git_scores() {
        // Identical content is 100; git scores the CRLF-insensitive span overlap.
        assert_eq!(git_similarity(b"a\nb\n", b"a\nb\n"), 100);
        assert_eq!(git_similarity(b"a\r\nb\r\n", b"a\nb\n"), 66); // checked with git 2.47
        assert_eq!(git_similarity(b"x\n", b""), 0);
    }

    #[test]
    fn reverts_by_subject_or_body() {
        let cases: [(&str, bool); 6] = [
            ("Revert \"Fix X\"\n", true),
            ("Revert 'Fix X'\n", true),
            ("Undo X\n\nThis reverts commit 0123456789abcdef.\n", true),
            ("Fix X\n\nThis reverts commit abc.\n", false), // too short to be an id
            ("Reverting the cache was a mistake; fix it\n", false),
            ("Fix revert handling\n", false),
        ];
        for (msg, want) in cases {
            assert_eq!(revert_reason(msg).is_some(), want, "{msg:?}");
        }
    }

    #[test]
    fn messages_decode_by_their_encoding_header() {
        assert_eq!(decode_message("café".as_bytes(), None), "café");
        assert_eq!(decode_message(b"caf\xe9", Some("ISO-8859-1")), "café");
        assert_eq!(
            decode_message(b"\x93q\x94 \x80", Some("windows-1252")),
            "“q” €"
        );
        assert_eq!(decode_message(b"caf\xe9", None), "caf\u{fffd}");
        assert_eq!(decode_message(b"caf\xe9", Some("EUC-JP")), "caf\u{fffd}");
    }

    #[test]
    fn bad_regex_is_one_line() {
        let err = compile_rule("message_regex", "(fix")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("git source: invalid message_regex `(fix`"),
            "{err}"
        );
        assert!(!err.contains('\n'), "{err}");
    }
}
