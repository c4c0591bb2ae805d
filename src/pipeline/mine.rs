//! Stage 1, mine: the source's candidates and rejections.

use super::{BuildError, BuildOptions};
use crate::recipe::{Plan, SourcePlan};
use crate::source::{self, SourceOutput};

/// The plan's source, walked.
pub(super) fn mine(plan: &Plan, opts: &BuildOptions) -> Result<SourceOutput, BuildError> {
    Ok(match &plan.source {
        SourcePlan::Defects4j(cfg) => {
            let progress = opts.progress_bar("defects4j", 0);
            let out = source::defects4j::candidates(cfg, &progress)?;
            progress.finish();
            out
        }
        SourcePlan::Git(cfg) => {
            let progress = opts.progress_bar("git", 0);
            let memo = super::memo(plan, opts);
            let mut out = source::git_history::candidates(
                cfg,
                &plan.rules.classifier,
                &progress,
                Some(&memo),
            )?;
            progress.finish();
            if let Some(labels) = &cfg.issue_labels {
                let closing = source::git_history::closing_keyword_only(cfg, &out.candidates);
                let progress = opts.progress_bar("labels", 0);
                let traffic = source::github::labels::apply(
                    labels,
                    &mut out,
                    &closing,
                    &github_run(opts),
                    &progress,
                )?;
                progress.finish();
                out.notes.push(traffic.to_string());
            }
            if let Some(jira) = &cfg.issue_types {
                let admitted = source::jira::admissions(jira, &cfg.rules, &out.candidates);
                let progress = opts.progress_bar("jira", 0);
                let traffic =
                    source::jira::apply(jira, &mut out, &admitted, &jira_run(opts), &progress)?;
                progress.finish();
                out.notes.push(traffic.to_string());
            }
            out
        }
        SourcePlan::Swebench(cfg) => {
            let progress = opts.progress_bar("swebench", 0);
            let out = source::swebench::candidates(cfg, &progress)?;
            progress.finish();
            out
        }
        SourcePlan::Github(cfg) => {
            let progress = opts.progress_bar("github", 0);
            let (mut out, traffic) = source::github::candidates(
                cfg,
                &plan.rules.classifier,
                &github_run(opts),
                &progress,
            )?;
            progress.finish();
            out.notes.push(traffic.to_string());
            out
        }
    })
}

/// How this build talks to GitHub: `--offline`, and the token in `GITHUB_TOKEN`.
fn github_run(opts: &BuildOptions) -> source::github::RunOptions {
    source::github::RunOptions {
        offline: opts.offline,
        token: std::env::var("GITHUB_TOKEN").ok().filter(|t| !t.is_empty()),
        backoff: std::time::Duration::ZERO,
    }
}

/// How this build talks to JIRA: `--offline`, and the Bearer token in `JIRA_TOKEN`.
fn jira_run(opts: &BuildOptions) -> source::jira::client::RunOptions {
    source::jira::client::RunOptions {
        offline: opts.offline,
        token: std::env::var("JIRA_TOKEN").ok().filter(|t| !t.is_empty()),
        backoff: std::time::Duration::ZERO,
    }
}
