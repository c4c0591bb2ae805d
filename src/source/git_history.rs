//! git-history source: the fix commits of a local repository as candidates (DESIGN §3).

use super::{Base, Candidate, SourceOutput, Tree};
use crate::classify::Classifier;
use crate::git::{self, GitError, GitSourceConfig};
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
    let (formatting, fixes): (Vec<_>, Vec<_>) = mined
        .fixes
        .into_iter()
        .partition(|c| c.formatting_only.is_some());
    let candidates = fixes
        .into_iter()
        .map(|c| Candidate {
            id: instance_id(name, &c.id),
            source: SourceKind::Git,
            repo: name.clone(),
            project: name.clone(),
            base_commit: c.parent.clone(),
            fix_commit: c.id.clone(),
            environment_setup_commit: c.parent.clone(),
            problem_statement: c.message.clone(),
            created_at: crate::dataset::rfc3339(c.time),
            version: String::new(),
            fail_to_pass: Vec::new(),
            failures: Vec::new(),
            report: None,
            base: Base::Buggy(Tree::Git {
                repo: cfg.repo.clone(),
                rev: c.parent.clone(),
                prefixes: Vec::new(),
            }),
            patch: c.patch,
            test_patch: c.test_patch,
            modified_classes: Vec::new(),
            skips: c.skips,
        })
        .collect();
    let mut rejected: Vec<Rejected> = formatting
        .into_iter()
        .map(|c| {
            Rejected::new(
                instance_id(name, &c.id),
                Stage::Mine,
                RejectReason::FormattingOnly,
                c.formatting_only.unwrap_or_default(),
            )
        })
        .collect();
    rejected.extend(mined.failed.into_iter().map(|(id, e)| {
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
    }));
    Ok(SourceOutput {
        candidates,
        rejected,
        described: vec![format!(
            "git: {} ({})",
            cfg.repo.display(),
            cfg.walk.revs.as_deref().unwrap_or("all branches")
        )],
        walked: mined.walked,
        warnings: Vec::new(),
    })
}

/// `<name>-<12 hex>`, the id of a mined commit.
fn instance_id(name: &str, commit: &str) -> String {
    format!("{name}-{}", &commit[..commit.len().min(12)])
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
