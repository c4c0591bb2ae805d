//! git-history source: the fix commits of a local repository as candidates (DESIGN §3).

use super::{refs, Base, Candidate, SourceOutput, Tree};
use crate::classify::Classifier;
use crate::git::{self, CommitRule, GitError, GitSourceConfig};
use crate::model::{RejectReason, Rejected, SourceKind, Stage};
use crate::progress::Progress;
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
    pub rules: git::MessageRules,
    /// Where the repository's issues live (forge address, tracker keys).
    pub links: refs::Links,
}

/// Mine the history into candidates; a commit that cannot be read becomes a rejection.
pub fn candidates(
    cfg: &GitConfig,
    classifier: &Classifier,
    progress: &Progress,
) -> Result<SourceOutput, GitError> {
    let mined =
        git::history::mine_with_rules(&cfg.repo, &cfg.walk, &cfg.rules, classifier, progress)?;
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
            match &cfg.walk.revs {
                Some(revs) => format!("range `{revs}` is empty"),
                None => "the repository has no commits on any branch".to_string(),
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
            cfg.walk.revs.as_deref().unwrap_or("all branches")
        )],
        walked: mined.walked,
        warnings,
        funnel: Some(mined.funnel),
        notes: Vec::new(),
    })
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
