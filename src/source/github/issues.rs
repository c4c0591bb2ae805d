//! Issue texts (title and body) by number, for `hunkgen reports`: the same client,
//! cache and rate limits as the GitHub source, its tokio runtime kept here.

use super::api::{ApiError, Traffic};
use super::RunOptions;
use crate::progress::Progress;
use serde::Deserialize;
use std::path::Path;
use std::time::Duration;

/// One issue's answer: its title and body, `None` for a 404, or why it could not be
/// had (`true` when the failure is the server's, not this issue's: every issue after
/// it is not asked).
pub type IssueText = Result<Option<(String, String)>, (bool, String)>;

/// The title and body of each `(owner/repo, number)` of `issues`, asked of the API at
/// `api` with the GitHub source's client (its cache under `cache_dir`, its rate-limit cap
/// `max_wait`, the run's token and `--offline`), in order; after a failure of the server
/// (a refused connection, a spent rate limit, `--offline` without the answer) the rest
/// get that failure without being asked.
pub fn issue_texts(
    api: &str,
    cache_dir: &Path,
    max_wait: Duration,
    opts: &RunOptions,
    issues: &[(String, u64)],
    progress: &Progress,
) -> (Vec<IssueText>, Traffic) {
    let failed = |why: String| (vec![Err((true, why)); issues.len()], Traffic::default());
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return failed(format!("starting the GitHub client: {e}")),
    };
    runtime.block_on(async {
        let mut client = match super::client(api, cache_dir, max_wait, opts, progress) {
            Ok(c) => c,
            Err(e) => return failed(e.to_string()),
        };
        let mut out: Vec<IssueText> = Vec::with_capacity(issues.len());
        let mut down: Option<String> = None;
        for (repo, number) in issues {
            if let Some(why) = &down {
                out.push(Err((true, why.clone())));
                continue;
            }
            #[derive(Deserialize)]
            struct Issue {
                title: String,
                #[serde(default)]
                body: Option<String>,
            }
            let answer = match client
                .get::<Issue>(&format!("/repos/{repo}/issues/{number}"))
                .await
            {
                Ok(i) => Ok(Some((i.title, i.body.unwrap_or_default()))),
                Err(ApiError::NotFound { .. }) => Ok(None),
                Err(e @ ApiError::Json { .. }) => Err((false, e.to_string())),
                Err(e) => {
                    down = Some(e.to_string());
                    Err((true, e.to_string()))
                }
            };
            out.push(answer);
        }
        (out, client.traffic)
    })
}
