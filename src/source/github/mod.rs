//! GitHub source: merged pull requests that close issues, as SWE-bench mines them — the
//! issue text as `problem_statement`, the discussion before the fix as `hints_text` — with
//! the patches read from a local clone's objects, never from the API's diff.
//!
//! octocrab's tokio runtime lives only here (one current-thread runtime per build); the
//! rest of hunkgen stays synchronous.

pub mod api;
pub mod issues;
pub mod labels;
pub mod links;

use super::{Base, Candidate, SourceOutput, Tree};
use crate::classify::Classifier;
use crate::git::{self, GitError};
use crate::model::{RejectReason, Rejected, Report, SourceKind, Stage};
use crate::progress::Progress;
use api::{ApiError, Client, ClientConfig, Traffic};
use serde::Deserialize;
use std::path::PathBuf;
use std::time::Duration;

/// Everything the GitHub source needs, resolved and checked by the recipe plan.
#[derive(Debug, Clone)]
pub struct GithubConfig {
    /// Repository owner.
    pub owner: String,
    /// Repository name.
    pub name: String,
    /// The local clone whose objects give the patches.
    pub clone: PathBuf,
    /// API root (`https://api.github.com`; a GitHub Enterprise or test server otherwise).
    pub api: String,
    /// Merged at or after this instant (RFC 3339, UTC).
    pub since: Option<String>,
    /// Merged at or before this instant (RFC 3339, UTC).
    pub until: Option<String>,
    /// Keep pull requests carrying at least one of these labels (all when empty).
    pub labels: Vec<String>,
    /// Only pull requests into this branch.
    pub base_branch: Option<String>,
    /// Keep pull requests that close no issue (their title and body become the statement).
    pub allow_unlinked: bool,
    /// Reject pull requests that change no test file.
    pub require_tests: bool,
    /// Stop listing after this many selected pull requests.
    pub max_pulls: Option<usize>,
    /// Response cache directory.
    pub cache_dir: PathBuf,
    /// Total time the build may wait for rate limits before it stops.
    pub max_wait: Duration,
    /// Content rules for code hunks, the same as the git source's.
    pub hunk_rules: git::HunkRules,
}

impl GithubConfig {
    /// `owner/name`, the dataset's `repo` field.
    pub fn full_name(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }
}

/// How a run talks to GitHub (not part of the recipe: it does not change the result).
/// Its `Debug` hides the token.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// Answer from the cache only.
    pub offline: bool,
    /// Token; `None` is anonymous. The CLI reads `GITHUB_TOKEN`.
    pub token: Option<String>,
    /// First retry delay after a server error (1 s when zero).
    pub backoff: Duration,
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("offline", &self.offline)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("backoff", &self.backoff)
            .finish()
    }
}

/// Why the source could not run at all (per pull request problems are rejections).
#[derive(Debug, thiserror::Error)]
pub enum GithubError {
    /// The API refused or failed.
    #[error(transparent)]
    Api(#[from] ApiError),
    /// The repository does not exist on the server (or is not visible).
    #[error(
        "{repo}: no such repository on GitHub (or not visible with these credentials): {source}"
    )]
    NoRepository {
        /// `owner/name`.
        repo: String,
        /// The 404.
        #[source]
        source: ApiError,
    },
    /// The git source's `issue_labels` rule could not read an issue's labels.
    #[error("source.git.issue_labels: {source}{hint}")]
    Labels {
        /// What the API said.
        #[source]
        source: ApiError,
        /// What to do about it, when the error does not say.
        hint: &'static str,
    },
    /// The async runtime could not start.
    #[error("cannot start the HTTP runtime: {0}")]
    Runtime(#[source] std::io::Error),
}

/// The fields of GitHub's pull-request listing this source reads.
#[derive(Debug, Clone, Deserialize)]
struct Pull {
    number: u64,
    title: String,
    body: Option<String>,
    created_at: String,
    updated_at: String,
    merged_at: Option<String>,
    #[serde(default)]
    labels: Vec<Label>,
    base: Ref,
    head: Ref,
}

#[derive(Debug, Clone, Deserialize)]
struct Label {
    name: String,
}

#[derive(Debug, Clone, Deserialize)]
struct Ref {
    #[serde(rename = "ref")]
    branch: String,
    sha: String,
}

#[derive(Debug, Clone, Deserialize)]
struct PullCommit {
    commit: CommitBody,
}

#[derive(Debug, Clone, Deserialize)]
struct CommitBody {
    message: String,
    author: Option<Signature>,
}

#[derive(Debug, Clone, Deserialize)]
struct Signature {
    date: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
struct Issue {
    number: u64,
    title: String,
    body: Option<String>,
    #[serde(default)]
    html_url: String,
    /// Present when the "issue" is a pull request.
    pull_request: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
struct Comment {
    body: Option<String>,
    created_at: String,
}

#[derive(Debug, Clone, Deserialize)]
struct RepoInfo {
    full_name: String,
}

/// What one pull request became.
enum Outcome {
    Kept(Box<Candidate>),
    Rejected(Rejected),
}

/// Mine the merged pull requests into candidates. An exhausted rate limit stops the run
/// cleanly: what was built is kept, a warning says when the limit resets, and the cache
/// holds every response fetched so a re-run resumes without spending quota on them.
pub fn candidates(
    cfg: &GithubConfig,
    classifier: &Classifier,
    opts: &RunOptions,
    progress: &Progress,
) -> Result<(SourceOutput, Traffic), GithubError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(GithubError::Runtime)?;
    runtime.block_on(mine(cfg, classifier, opts, progress))
}

/// The API client of one run: the recipe's API root, cache and rate-limit cap, the run's
/// token and `--offline` (needs the runtime entered, as octocrab's connector does).
fn client(
    api: &str,
    cache_dir: &std::path::Path,
    max_wait: Duration,
    opts: &RunOptions,
    progress: &Progress,
) -> Result<Client, ApiError> {
    Client::new(
        ClientConfig {
            base_uri: api.to_string(),
            token: opts.token.clone(),
            cache_dir: cache_dir.to_path_buf(),
            offline: opts.offline,
            max_wait,
            backoff: if opts.backoff.is_zero() {
                Duration::from_secs(1)
            } else {
                opts.backoff
            },
        },
        progress.clone(),
    )
}

async fn mine(
    cfg: &GithubConfig,
    classifier: &Classifier,
    opts: &RunOptions,
    progress: &Progress,
) -> Result<(SourceOutput, Traffic), GithubError> {
    let mut client = client(&cfg.api, &cfg.cache_dir, cfg.max_wait, opts, progress)?;
    let repo = cfg.full_name();
    let mut out = SourceOutput {
        described: vec![format!(
            "github: {repo} via {} (clone {})",
            cfg.api,
            cfg.clone.display()
        )],
        ..SourceOutput::default()
    };
    let info: RepoInfo = match client.get(&format!("/repos/{repo}")).await {
        Ok(info) => info,
        Err(e @ ApiError::NotFound { .. }) => {
            return Err(GithubError::NoRepository { repo, source: e })
        }
        Err(e) => return Err(e.into()),
    };
    if !info.full_name.eq_ignore_ascii_case(&repo) {
        out.warnings.push(format!(
            "{repo} is now {} on GitHub (renamed or transferred)",
            info.full_name
        ));
    }
    progress.set_message("listing pull requests");
    let pulls = match list_pulls(&mut client, cfg).await {
        Ok(p) => p,
        Err(ApiError::RateLimited { reset_at, .. }) => {
            out.warnings.push(stopped_warning(0, None, &reset_at));
            return Ok((out, client.traffic));
        }
        Err(e) => return Err(e.into()),
    };
    out.walked = pulls.len();
    progress.set_len(pulls.len() as u64);
    for (done, pull) in pulls.iter().enumerate() {
        match pull_candidate(&mut client, cfg, classifier, pull).await {
            Ok(Outcome::Kept(c)) => out.candidates.push(*c),
            Ok(Outcome::Rejected(r)) => out.rejected.push(r),
            Err(ApiError::RateLimited { reset_at, .. }) => {
                out.warnings
                    .push(stopped_warning(done, Some(pulls.len()), &reset_at));
                break;
            }
            Err(e @ ApiError::Json { .. }) => out.rejected.push(Rejected::new(
                instance_id(cfg, pull.number),
                Stage::Mine,
                RejectReason::Metadata,
                e.to_string(),
            )),
            Err(e) => return Err(e.into()),
        }
        progress.inc(1);
    }
    Ok((out, client.traffic))
}

fn stopped_warning(done: usize, of: Option<usize>, reset_at: &str) -> String {
    let progress = match of {
        Some(n) => format!("after {done} of {n} pull requests"),
        None => "while listing pull requests".to_string(),
    };
    format!(
        "GitHub rate limit exhausted {progress}; it resets at {reset_at}; the dataset holds what was built, and a re-run after the reset continues from the cache"
    )
}

/// `owner__name-<number>`, SWE-bench's instance id.
fn instance_id(cfg: &GithubConfig, number: u64) -> String {
    format!("{}__{}-{number}", cfg.owner, cfg.name)
}

/// Merged pull requests that pass the recipe's filters, oldest number first.
async fn list_pulls(client: &mut Client, cfg: &GithubConfig) -> Result<Vec<Pull>, ApiError> {
    let mut path = format!(
        "/repos/{}/pulls?state=closed&sort=updated&direction=desc&per_page=100",
        cfg.full_name()
    );
    if let Some(b) = &cfg.base_branch {
        path.push_str("&base=");
        // Branch names may hold `/`, `+`, `#`.
        path.push_str(&crate::dataset::percent_encode(b));
    }
    let mut kept: Vec<Pull> = Vec::new();
    let mut next = Some(path);
    'pages: while let Some(p) = next.take() {
        let (page, after): (Vec<Pull>, _) = client.get_page(&p).await?;
        for pull in page {
            // Newest update first: a PR updated before `since` was merged before it, and
            // so is every PR after it in this order.
            if cfg.since.as_ref().is_some_and(|s| pull.updated_at < *s) {
                break 'pages;
            }
            if keep(cfg, &pull) {
                kept.push(pull);
                if cfg.max_pulls.is_some_and(|m| kept.len() >= m) {
                    break 'pages;
                }
            }
        }
        next = after;
    }
    kept.sort_by_key(|p| p.number);
    Ok(kept)
}

fn keep(cfg: &GithubConfig, pull: &Pull) -> bool {
    let Some(merged) = &pull.merged_at else {
        return false;
    };
    cfg.since.as_ref().is_none_or(|s| merged >= s)
        && cfg.until.as_ref().is_none_or(|u| merged <= u)
        && cfg
            .base_branch
            .as_ref()
            .is_none_or(|b| pull.base.branch == *b)
        && (cfg.labels.is_empty()
            || pull
                .labels
                .iter()
                .any(|l| cfg.labels.iter().any(|w| w.eq_ignore_ascii_case(&l.name))))
}

/// One pull request's candidate, or why it is rejected; API errors other than malformed
/// JSON (which rejects only this pull request) are the caller's to judge.
async fn pull_candidate(
    client: &mut Client,
    cfg: &GithubConfig,
    classifier: &Classifier,
    pull: &Pull,
) -> Result<Outcome, ApiError> {
    let repo = cfg.full_name();
    let id = instance_id(cfg, pull.number);
    let reject = |reason: RejectReason, detail: String| {
        Ok(Outcome::Rejected(Rejected::new(
            id.clone(),
            Stage::Mine,
            reason,
            detail,
        )))
    };
    let commits: Vec<PullCommit> = client
        .get_all(
            &format!("/repos/{repo}/pulls/{}/commits?per_page=100", pull.number),
            None,
        )
        .await?;
    let body = pull.body.clone().unwrap_or_default();
    let mut texts: Vec<&str> = vec![&body];
    texts.extend(commits.iter().map(|c| c.commit.message.as_str()));
    let numbers = links::closed_issues(&cfg.owner, &cfg.name, pull.number, &texts);
    let mut issues: Vec<Issue> = Vec::new();
    for n in &numbers {
        match client
            .get::<Issue>(&format!("/repos/{repo}/issues/{n}"))
            .await
        {
            Ok(issue) if issue.pull_request.is_none() => issues.push(issue),
            // A link to another pull request, or to an issue since deleted or moved.
            Ok(_) | Err(ApiError::NotFound { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    if issues.is_empty() && !cfg.allow_unlinked {
        let detail = if numbers.is_empty() {
            format!(
                "pull request #{} closes no issue (no closing keyword with an issue of {repo} in its body or commit messages)",
                pull.number
            )
        } else {
            format!(
                "pull request #{} links {} but none is an issue of {repo}",
                pull.number,
                numbers
                    .iter()
                    .map(|n| format!("#{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        return reject(RejectReason::NoLinkedIssue, detail);
    }
    // The discussion a solver could have read before the fix began.
    let first_commit = commits
        .iter()
        .filter_map(|c| c.commit.author.as_ref()?.date.clone())
        .min();
    let mut statement = String::new();
    let mut hints: Vec<String> = Vec::new();
    for issue in &issues {
        statement.push_str(&format!(
            "{}\n{}\n",
            issue.title,
            issue.body.as_deref().unwrap_or("")
        ));
        let comments: Vec<Comment> = client
            .get_all(
                &format!(
                    "/repos/{repo}/issues/{}/comments?per_page=100",
                    issue.number
                ),
                None,
            )
            .await?;
        hints.extend(
            comments
                .into_iter()
                .filter(|c| first_commit.as_ref().is_some_and(|f| c.created_at < *f))
                .map(|c| c.body.unwrap_or_default()),
        );
    }
    if issues.is_empty() {
        statement = format!("{}\n{}\n", pull.title, body);
    }
    let diff = match git::pull_diff(
        &cfg.clone,
        &pull.base.sha,
        &pull.head.sha,
        classifier,
        cfg.hunk_rules,
    ) {
        Ok(d) => d,
        Err(e @ GitError::MissingCommit { .. }) => {
            return reject(
                RejectReason::GitObjects,
                format!("pull request #{}: {e}", pull.number),
            )
        }
        Err(e) => {
            let mut detail = format!("pull request #{}: {e}", pull.number);
            if let Some(src) = std::error::Error::source(&e) {
                detail = format!("{detail}: {src}");
            }
            return reject(RejectReason::GitObjects, detail);
        }
    };
    if cfg.require_tests && diff.test_patch.files.is_empty() {
        return reject(
            RejectReason::NoTestPatch,
            format!(
                "pull request #{} changes no test file (set `require_tests: false` to keep it)",
                pull.number
            ),
        );
    }
    if let Some(files) = &diff.formatting_only {
        return reject(
            RejectReason::FormattingOnly,
            format!(
                "pull request #{}: {}",
                pull.number,
                git::formatting_detail(files)
            ),
        );
    }
    // The closed issues, in order; the first is the report.
    let references: Vec<Report> = issues
        .iter()
        .map(|i| Report {
            id: format!("#{}", i.number),
            url: i.html_url.clone(),
        })
        .collect();
    Ok(Outcome::Kept(Box::new(Candidate {
        id,
        source: SourceKind::Github,
        repo: repo.clone(),
        project: repo,
        base_commit: diff.merge_base.clone(),
        fix_commit: pull.head.sha.clone(),
        environment_setup_commit: diff.merge_base.clone(),
        problem_statement: statement,
        hints_text: hints.join("\n"),
        pass_to_pass: Vec::new(),
        created_at: pull.created_at.clone(),
        version: String::new(),
        fail_to_pass: Vec::new(),
        failures: Vec::new(),
        report: references.first().cloned(),
        references,
        base: Base::Buggy(Tree::Git {
            repo: cfg.clone.clone(),
            rev: diff.merge_base.clone(),
            prefixes: Vec::new(),
        }),
        patch: diff.patch,
        test_patch: diff.test_patch,
        modified_classes: Vec::new(),
        skips: diff.skips,
        repo_commits: None,
    })))
}
