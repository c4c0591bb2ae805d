//! git-history source: the fix commits of a local repository as candidates (ARCHITECTURE §3).

use super::refs;
use super::rules::{BadRegex, CommitRule, GitSourceConfig, MessageRules, Selection};
use super::{Base, Candidate, SourceOutput, Tree};
use crate::classify::Classifier;
use crate::git::walk::{self, Outcome};
use crate::git::{self, FixCommit, GitError, WalkTotals};
use crate::model::{MineFunnel, RejectReason, Rejected, SourceKind, Stage};
use crate::progress::Progress;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Everything the git source needs, resolved and checked by the recipe plan.
#[derive(Debug, Clone)]
pub struct GitConfig {
    /// The repository.
    pub repo: PathBuf,
    /// Name used in ids and the `repo` field.
    pub name: String,
    /// Walk settings.
    pub walk: GitSourceConfig,
    /// The compiled message rules (message, subject, exclude).
    pub rules: MessageRules,
    /// Where the repository's issues live (forge address, tracker keys).
    pub links: refs::Links,
    /// The issue-label rule (`issue_labels`), when the recipe asks for it.
    pub issue_labels: Option<super::github::labels::LabelConfig>,
    /// The JIRA issue-type rule (`issue_types`), when the recipe asks for it.
    pub issue_types: Option<super::jira::JiraConfig>,
}

/// Mine the history into candidates; a commit that cannot be read becomes a rejection.
/// With a `memo`, commits examined by an earlier build are answered from it.
pub fn candidates(
    cfg: &GitConfig,
    classifier: &Classifier,
    progress: &Progress,
    memo: Option<&crate::memo::Memo>,
) -> Result<SourceOutput, GitError> {
    let mined = mine_with_rules(&cfg.repo, &cfg.walk, &cfg.rules, classifier, progress, memo)?;
    let name = &cfg.name;
    let candidates = mined
        .fixes
        .into_iter()
        .map(|c| {
            let references = refs::references(&c.message, &cfg.links);
            Candidate {
                id: instance_id(name, &c.id),
                source: SourceKind::Git,
                repo: name.clone(),
                project: name.clone(),
                base_commit: c.parent.clone(),
                fix_commit: c.id.clone(),
                environment_setup_commit: c.parent.clone(),
                problem_statement: refs::strip_trailers(&c.message),
                hints_text: String::new(),
                created_at: crate::dataset::rfc3339(c.time),
                version: String::new(),
                fail_to_pass: Vec::new(),
                pass_to_pass: Vec::new(),
                failures: Vec::new(),
                // The first reference (closing ones come first) is the report.
                report: references.first().cloned(),
                references,
                base: Base::Buggy(Tree::Git {
                    repo: cfg.repo.clone(),
                    rev: c.parent.clone(),
                    prefixes: Vec::new(),
                }),
                patch: c.patch,
                test_patch: c.test_patch,
                modified_classes: Vec::new(),
                skips: c.skips,
                repo_commits: None,
            }
        })
        .collect();
    let mut rejected: Vec<Rejected> = mined
        .failed
        .into_iter()
        .map(|(id, e)| {
            let mut detail = e.to_string();
            if let Some(src) = std::error::Error::source(&e) {
                detail = format!("{detail}: {src}");
            }
            Rejected::new(
                instance_id(name, &id),
                Stage::Mine,
                RejectReason::GitObjects,
                detail,
            )
        })
        .collect();
    rejected.extend(mined.rejected.iter().map(|r| {
        let detail = match &r.kept {
            Some(kept) => format!("{}; kept {}", r.detail, instance_id(name, kept)),
            None => r.detail.clone(),
        };
        Rejected::new(
            instance_id(name, &r.commit),
            Stage::Mine,
            reject_reason(r.rule),
            detail,
        )
    }));
    let mut warnings = Vec::new();
    if mined.walked == 0 {
        warnings.push(format!(
            "{}: no commits to walk ({}); the dataset is empty",
            cfg.repo.display(),
            match cfg.walk.revs.as_deref() {
                None => "the repository has no commits on its default branch or tags".to_string(),
                Some(walk::ALL_BRANCHES) =>
                    "the repository has no commits on any branch".to_string(),
                Some(revs) => format!("range `{revs}` is empty"),
            }
        ));
    }
    if mined.funnel.missing_parent > 0 {
        warnings.push(format!(
            "{}: {} selected commit(s) have no parent in the repository (a shallow clone?) and were not examined; fetch more history (`git fetch --unshallow`) to include them",
            cfg.repo.display(),
            mined.funnel.missing_parent
        ));
    }
    Ok(SourceOutput {
        candidates,
        rejected,
        described: vec![format!(
            "git: {} ({})",
            cfg.repo.display(),
            match cfg.walk.revs.as_deref() {
                None => "the default branch and tags",
                Some(walk::ALL_BRANCHES) => "all branches",
                Some(revs) => revs,
            }
        )],
        walked: mined.walked,
        warnings,
        funnel: Some(mined.funnel),
        notes: Vec::new(),
    })
}

/// The candidates the closing-keyword rule would reject (id → its detail), when the
/// recipe's `issue_labels` decides that rule instead of the walk; empty otherwise.
pub fn closing_keyword_only(cfg: &GitConfig, candidates: &[Candidate]) -> HashMap<String, String> {
    if !cfg
        .issue_labels
        .as_ref()
        .is_some_and(|l| l.closing_keyword_only)
    {
        return HashMap::new();
    }
    candidates
        .iter()
        .filter_map(|c| {
            // The statement keeps the subject, the message's first line, whole.
            let why = cfg.rules.closing_keyword_only(&c.problem_statement)?;
            Some((c.id.clone(), why))
        })
        .collect()
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

/// Why [`mine`] found nothing: a message rule does not compile, or git failed.
#[derive(Debug, thiserror::Error)]
pub enum MineError {
    /// A message rule of `cfg` is not a valid regex.
    #[error(transparent)]
    Rule(#[from] BadRegex),
    /// Reading the history failed.
    #[error(transparent)]
    Git(#[from] GitError),
}

/// Find the fix commits of `repo` selected by `cfg`, compiling its message rules.
pub fn mine(
    repo: &Path,
    cfg: &GitSourceConfig,
    classifier: &Classifier,
    progress: &Progress,
) -> Result<Mined, MineError> {
    let rules = MessageRules::compile(cfg)?;
    Ok(mine_with_rules(
        repo, cfg, &rules, classifier, progress, None,
    )?)
}

/// Which commits of the walk (`ids`, in its order) revert another: `(reverted id or
/// prefix, reverting id)`. It depends only on the ids (a commit's message is part of
/// what its id hashes), so `memo` keeps it by them and a warm rebuild reads no message.
fn reverted_by(
    repo: &Path,
    ids: &[String],
    memo: Option<&crate::memo::Memo>,
) -> Result<Vec<(String, String)>, GitError> {
    let key = memo.map(|m| {
        let all = ids.join("\n");
        (
            m,
            crate::memo::Memo::key("mine-reverted-v1", &[all.as_bytes()]),
        )
    });
    if let Some(found) = key.as_ref().and_then(|(m, k)| m.get(k)) {
        return Ok(found);
    }
    let reverted: Vec<(String, String)> = walk::messages_of(repo, ids)?
        .into_iter()
        .filter_map(|(by, message)| Some((super::rules::reverted_commit(&message)?, by)))
        .collect();
    if let Some((m, k)) = &key {
        m.put(k, &reverted);
    }
    Ok(reverted)
}

/// Find the fix commits of `repo` selected by `cfg`, with the message rule already
/// compiled (the recipe plan compiles it once, before any work starts); `memo` keeps
/// examined commits across builds.
///
/// The walk ([`walk::walk`]) raises libgit2's process-wide object-cache limits and turns
/// its own hash verification off; `cfg.verify_objects` is enforced there instead.
pub fn mine_with_rules(
    repo: &Path,
    cfg: &GitSourceConfig,
    rules: &MessageRules,
    classifier: &Classifier,
    progress: &Progress,
    memo: Option<&crate::memo::Memo>,
) -> Result<Mined, GitError> {
    let policy = Selection { cfg, rules };
    let examined = walk::walk(
        repo,
        cfg.revs.as_deref(),
        cfg.verify_objects,
        &policy,
        classifier,
        progress,
        memo,
    )?;
    let mut mined = Mined {
        walked: examined.len(),
        ..Mined::default()
    };
    if cfg.revs.is_none() {
        // What the default left out: commits only on branches that never shipped.
        mined.funnel.unshipped = walk::count_unshipped(repo, memo).unwrap_or(0);
    }
    // Walk position of each fix: the walk lists parents after their children.
    let mut rank: HashMap<String, usize> = HashMap::new();
    let ids: Vec<String> = match cfg.reject_reverts {
        true => examined.iter().map(|(id, _)| id.clone()).collect(),
        false => Vec::new(),
    };
    for (i, (id, outcome)) in examined.into_iter().enumerate() {
        match outcome {
            Ok(outcome) => {
                if matches!(outcome, Outcome::Fix(_)) {
                    rank.insert(id.clone(), i);
                }
                mined.count(id, outcome);
            }
            Err(e) => mined.failed.push((id, e)),
        }
    }
    // Earliest first: committer time, then walk position, so of two commits with one
    // patch-id the older one is kept.
    let order = |f: &FixCommit| (f.time, usize::MAX - rank.get(&f.id).copied().unwrap_or(0));
    mined.fixes.sort_by_key(order);
    if cfg.reject_reverts {
        // A fix that a later commit reverts did not stand.
        let reverted = reverted_by(repo, &ids, memo)?;
        if !reverted.is_empty() {
            let mut kept = Vec::with_capacity(mined.fixes.len());
            for fix in std::mem::take(&mut mined.fixes) {
                match reverted
                    .iter()
                    .find(|(id, _)| fix.id.starts_with(id.as_str()))
                {
                    Some((_, by)) => mined.rejected.push(MineRejection {
                        commit: fix.id.clone(),
                        rule: CommitRule::RevertedLater,
                        detail: format!(
                            "reverted later by {by} (`This reverts commit {}`)",
                            fix.id
                        ),
                        kept: None,
                    }),
                    None => kept.push(fix),
                }
            }
            mined.fixes = kept;
        }
    }
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
    mined.funnel.walked = mined.walked;
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

/// Diff every non-merge commit selected by `cfg.revs` into patch text (as `git log -p`
/// does) without filtering, the baseline workload of the benchmark.
pub fn diff_all(
    repo: &Path,
    cfg: &GitSourceConfig,
    progress: &Progress,
) -> Result<WalkTotals, GitError> {
    walk::diff_all(repo, cfg.revs.as_deref(), cfg.verify_objects, progress)
}

impl Mined {
    /// Fold one commit's outcome into the funnel and the result.
    fn count(&mut self, id: String, outcome: Outcome<CommitRule>) {
        let f = &mut self.funnel;
        if matches!(outcome, Outcome::Merge) {
            return;
        }
        f.non_merge += 1;
        if matches!(outcome, Outcome::NoMessage) {
            return;
        }
        f.message_matched += 1;
        if let Outcome::MissingParent(detail) = outcome {
            f.missing_parent += 1;
            self.rejected.push(MineRejection {
                commit: id,
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
        let (rule, detail) = match outcome {
            Outcome::Rejected(rule, detail) => (rule, detail),
            Outcome::FormattingOnly(files) => {
                (CommitRule::FormattingOnly, git::formatting_detail(&files))
            }
            Outcome::Fix(fix) => {
                self.fixes.push(*fix);
                return;
            }
            _ => return,
        };
        self.rejected.push(MineRejection {
            commit: id,
            rule,
            detail,
            kept: None,
        });
    }
}

/// The stable `rejected.jsonl` reason of a commit rule.
fn reject_reason(rule: CommitRule) -> RejectReason {
    match rule {
        CommitRule::Revert => RejectReason::Revert,
        CommitRule::DuplicatePatch => RejectReason::DuplicatePatch,
        CommitRule::MaxFiles => RejectReason::TooManyFiles,
        CommitRule::MaxCodeHunks => RejectReason::TooManyHunks,
        CommitRule::MaxChangedLines => RejectReason::TooManyChangedLines,
        CommitRule::MissingParent => RejectReason::MissingParent,
        CommitRule::FormattingOnly => RejectReason::FormattingOnly,
        CommitRule::ChangelogNotFix => RejectReason::ChangelogNotFix,
        CommitRule::RevertedLater => RejectReason::RevertedLater,
        CommitRule::ClosingKeywordOnly => RejectReason::ClosingKeywordOnly,
    }
}

/// `<name>-<12 hex>`, the id of a mined commit, in SWE-bench's shape: a `/` in the
/// name becomes `__` (`pallets/click` → `pallets__click-0123456789ab`).
pub fn instance_id(name: &str, commit: &str) -> String {
    format!(
        "{}-{}",
        refs::id_prefix(name),
        &commit[..commit.len().min(12)]
    )
}

/// A repository's directory name without `.git`, the default `name`.
pub fn repo_name(path: &Path) -> String {
    let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let mut name = canonical
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".into());
    if name == ".git" {
        if let Some(parent) = canonical.parent().and_then(|p| p.file_name()) {
            name = parent.to_string_lossy().into_owned();
        }
    }
    name.trim_end_matches(".git").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::fixture::commit_on_head as commit;
    use crate::memo::Memo;

    /// 30 numbered lines, with `changed` lines replaced.
    fn text(changed: &[usize]) -> String {
        (0..30)
            .map(|i| match changed.contains(&i) {
                true => format!("line {i} fixed\n"),
                false => format!("line {i}\n"),
            })
            .collect()
    }

    #[test]
    fn a_walk_from_unchanged_refs_is_answered_whole_from_the_memo() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path().join("repo");
        let (code, test) = ("src/main/java/A.java", "src/test/java/ATest.java");
        commit(&dir, &[(code, &text(&[])), (test, &text(&[]))], "start");
        commit(
            &dir,
            &[(code, &text(&[2, 20])), (test, &text(&[5]))],
            "Fix one bug",
        );
        let cfg = GitSourceConfig::default();
        let rules = MessageRules::compile(&cfg).expect("rules");
        let memo = Memo::new(tmp.path().join("cache"), true);
        let mine = |memo: Option<&Memo>| {
            mine_with_rules(
                &dir,
                &cfg,
                &rules,
                &Classifier::default(),
                &Progress::hidden(),
                memo,
            )
            .expect("mine")
        };
        let ids = |m: &Mined| m.fixes.iter().map(|f| f.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&mine(Some(&memo))).len(), 1);
        // A new commit moves HEAD: walked afresh, both fixes found.
        let second = commit(
            &dir,
            &[(code, &text(&[4, 25])), (test, &text(&[9]))],
            "Fix another",
        );
        let fresh = mine(Some(&memo));
        assert_eq!(ids(&fresh).len(), 2);
        // With the refs where they were, the memo answers without reading one commit: the
        // newest one's object can be gone.
        let hex = &second;
        let object = dir.join(".git/objects").join(&hex[..2]).join(&hex[2..]);
        std::fs::remove_file(&object).expect("loose object");
        let warm = mine(Some(&memo));
        assert_eq!(ids(&warm), ids(&fresh));
        assert_eq!(warm.fixes, fresh.fixes);
        assert_eq!(warm.funnel, fresh.funnel);
        // Without the memo the walk reads it, and cannot.
        let unmemoized = mine_with_rules(
            &dir,
            &cfg,
            &rules,
            &Classifier::default(),
            &Progress::hidden(),
            None,
        );
        assert!(unmemoized.map_or(true, |m| m.fixes.len() < 2));
    }
}
