//! Bug reports (title and description) fetched for a dataset's instances from the
//! trackers their `report.url` names, the ones Defects4J's `active-bugs.csv` uses: Apache
//! JIRA (REST `…/rest/api/2/issue/KEY`), GitHub issues (the API client the git and GitHub
//! sources use), SourceForge's Allura tickets (`/rest/p/<project>/<tool>/<n>`) and the
//! archive of Google Code issues (JSON files on storage.googleapis.com; a
//! `code.google.com/p/<project>/issues/detail?id=<n>` link is read there). The agent
//! study puts the report's title and description into its prompt; `hunkgen run
//! --reports` reads what this writes.
//!
//! Every answer is cached on disk (a 404 too), so `--offline` answers from the cache:
//! a second run asks JIRA, SourceForge and Google Code nothing, and GitHub only whether
//! its answers changed (ETags; a `304` costs no quota). A tracker that cannot be reached costs its reports,
//! with one line naming it; the other trackers' reports are still written.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::cache::Key;
use crate::progress::Progress;
use crate::source::github::{issues as github_issues, RunOptions as GithubOptions};
use crate::source::jira::client::{parse, Client as HttpClient, ClientError, RunOptions};

/// Where one report lives and how it is asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tracker {
    /// A JIRA server (`base` = `https://issues.apache.org/jira`) and the issue key.
    Jira {
        /// The server's root.
        base: String,
        /// `CLI-13`.
        key: String,
    },
    /// A GitHub issue.
    GitHub {
        /// `owner/repo`.
        repo: String,
        /// The issue number.
        number: u64,
    },
    /// A SourceForge (Allura) ticket: its REST document's URL.
    SourceForge {
        /// `https://sourceforge.net/rest/p/jfreechart/bugs/983`.
        api: String,
    },
    /// An issue of Google Code's archive: its JSON file's URL.
    GoogleCode {
        /// `https://storage.googleapis.com/google-code-archive/v2/code.google.com/<p>/issues/issue-<n>.json`.
        json: String,
    },
}

impl Tracker {
    /// The tracker's name in messages and in the written rows.
    pub fn kind(&self) -> &'static str {
        match self {
            Tracker::Jira { .. } => "jira",
            Tracker::GitHub { .. } => "github",
            Tracker::SourceForge { .. } => "sourceforge",
            Tracker::GoogleCode { .. } => "google-code",
        }
    }

    /// The server a failure is charged to: one line per unreachable one.
    pub fn server(&self) -> String {
        let host = |u: &str| {
            let rest = u.split_once("://").map_or(u, |(_, r)| r);
            rest.split('/').next().unwrap_or(rest).to_string()
        };
        match self {
            Tracker::Jira { base, .. } => base.clone(),
            Tracker::GitHub { .. } => "GitHub".to_string(),
            Tracker::SourceForge { api } => host(api),
            Tracker::GoogleCode { json } => host(json),
        }
    }
}

/// `url` with the longest matching `from` prefix of `rewrites` replaced by its `to` (a
/// mirror, or a loopback server in the tests); unchanged when none matches.
pub fn rewrite(url: &str, rewrites: &[(String, String)]) -> String {
    rewrites
        .iter()
        .filter(|(from, _)| url.starts_with(from.as_str()))
        .max_by_key(|(from, _)| from.len())
        .map(|(from, to)| format!("{to}{}", &url[from.len()..]))
        .unwrap_or_else(|| url.to_string())
}

/// The tracker a report URL names, by its path's shape (so a mirror's or a loopback
/// host is read the same way); `None` for a URL of no known shape.
pub fn classify(url: &str) -> Option<Tracker> {
    let url = url.trim();
    let (scheme, rest) = url.split_once("://")?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let root = format!("{scheme}://{host}");
    let path = path.split('#').next().unwrap_or(path);
    let (path, query) = path.split_once('?').unwrap_or((path, ""));
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    // JIRA: <base>/browse/KEY-123.
    if let Some(at) = parts.iter().position(|p| *p == "browse") {
        let key = parts.get(at + 1)?;
        let (project, n) = key.rsplit_once('-')?;
        if project.is_empty() || n.is_empty() || !n.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let base = std::iter::once(root.clone())
            .chain(parts[..at].iter().map(|p| p.to_string()))
            .collect::<Vec<_>>()
            .join("/");
        return Some(Tracker::Jira {
            base,
            key: key.to_string(),
        });
    }
    // The Google Code archive's JSON file, or a code.google.com issue link.
    if parts
        .last()
        .is_some_and(|f| f.starts_with("issue-") && f.ends_with(".json"))
    {
        return Some(Tracker::GoogleCode {
            json: url.to_string(),
        });
    }
    if host == "code.google.com" {
        // /p/<project>/issues/detail?id=<n>
        if let ["p", project, "issues", "detail"] = parts[..] {
            let id = query
                .split('&')
                .find_map(|kv| kv.strip_prefix("id="))
                .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))?;
            return Some(Tracker::GoogleCode {
                json: format!(
                    "https://storage.googleapis.com/google-code-archive/v2/code.google.com/{project}/issues/issue-{id}.json"
                ),
            });
        }
        return None;
    }
    // GitHub: <owner>/<repo>/issues/<n> (or pull/<n>: pull requests are issues too).
    if let [owner, repo, "issues" | "pull", n] = parts[..] {
        if let Ok(number) = n.parse::<u64>() {
            return Some(Tracker::GitHub {
                repo: format!("{owner}/{repo}"),
                number,
            });
        }
    }
    // SourceForge (Allura): /p/<project>/<tool>/<n>.
    if let ["p", project, tool, n] = parts[..] {
        if n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty() {
            return Some(Tracker::SourceForge {
                api: format!("{root}/rest/p/{project}/{tool}/{n}"),
            });
        }
    }
    None
}

/// One fetched report, the row `hunkgen run --reports` reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fetched {
    /// The instance.
    pub id: String,
    /// The report's title.
    pub title: String,
    /// Its description (the first comment, on Google Code).
    pub description: String,
    /// The report's URL, as the instance names it.
    pub url: String,
    /// `jira`, `github`, `sourceforge` or `google-code`.
    pub tracker: String,
}

/// What a tracker said of one report; also the cache entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Text {
    /// Title.
    pub title: String,
    /// Description.
    pub description: String,
}

/// How the fetching goes (not part of any output).
#[derive(Debug, Clone)]
pub struct Options {
    /// Answer from the cache only.
    pub offline: bool,
    /// The cache directory (`<cache>/reports`; GitHub's answers under `<cache>/github`).
    pub cache_dir: PathBuf,
    /// GitHub's API root.
    pub github_api: String,
    /// `GITHUB_TOKEN`.
    pub github_token: Option<String>,
    /// `JIRA_TOKEN`, sent to JIRA servers only.
    pub jira_token: Option<String>,
    /// URL prefixes read elsewhere (`FROM=TO`).
    pub rewrites: Vec<(String, String)>,
    /// The longest a `Retry-After` may be waited for, in total.
    pub max_wait: Duration,
    /// First retry delay after a server error (1 s when zero).
    pub backoff: Duration,
}

/// What a run fetched and what it could not.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The reports, by instance id.
    pub fetched: Vec<Fetched>,
    /// Instances whose report the tracker does not have (404).
    pub gone: Vec<String>,
    /// Instances without a report URL, or with one of no known tracker (id, url).
    pub unknown: Vec<(String, String)>,
    /// Per unreachable server: its first error and the instances it cost.
    pub unreachable: BTreeMap<String, (String, Vec<String>)>,
    /// Fetched per tracker kind.
    pub by_tracker: BTreeMap<&'static str, usize>,
    /// Requests sent.
    pub requests: usize,
    /// Answers from the cache (GitHub's `304 Not Modified` too).
    pub cache_hits: usize,
}

/// A failure that costs the whole server's reports (a connection, a refusal, offline
/// without the answer), as opposed to one report's bad JSON.
fn server_wide(e: &ClientError) -> bool {
    !matches!(e, ClientError::Json { .. })
}

/// The reports of `rows` (instance id, report URL), fetched from their trackers; a
/// server that fails once is not asked again in this run.
pub fn fetch(rows: &[(String, String)], opts: &Options, progress: &Progress) -> Outcome {
    let mut out = Outcome::default();
    let mut http = HttpClient::new(
        "",
        &opts.cache_dir.join("reports"),
        opts.max_wait,
        &RunOptions {
            offline: opts.offline,
            token: opts.jira_token.clone(),
            backoff: opts.backoff,
        },
        progress.clone(),
    );
    let classified: Vec<(&String, &String, Option<Tracker>)> = rows
        .iter()
        .map(|(id, url)| (id, url, classify(&rewrite(url, &opts.rewrites))))
        .collect();
    // GitHub's issues in one go, through the GitHub source's client.
    let wanted: Vec<(String, u64)> = classified
        .iter()
        .filter_map(|(_, _, t)| match t {
            Some(Tracker::GitHub { repo, number }) => Some((repo.clone(), *number)),
            _ => None,
        })
        .collect();
    let (mut from_github, traffic) = match wanted.is_empty() {
        true => (Vec::new(), Default::default()),
        false => github_issues::issue_texts(
            &opts.github_api,
            &opts.cache_dir.join("github"),
            opts.max_wait,
            &GithubOptions {
                offline: opts.offline,
                token: opts.github_token.clone(),
                backoff: opts.backoff,
            },
            &wanted,
            progress,
        ),
    };
    from_github.reverse();
    progress.set_len(rows.len() as u64);
    for (id, url, tracker) in classified {
        progress.inc(1);
        let Some(tracker) = tracker else {
            out.unknown.push((id.clone(), url.clone()));
            continue;
        };
        let answer: Result<Option<Text>, (bool, String)> = match &tracker {
            Tracker::GitHub { .. } => match from_github.pop() {
                Some(a) => a.map(|t| t.map(|(title, description)| Text { title, description })),
                None => Err((true, "no answer".to_string())),
            },
            t => {
                if let Some((_, lost)) = out.unreachable.get_mut(&t.server()) {
                    lost.push(id.clone());
                    continue;
                }
                other(&mut http, t).map_err(|e| (server_wide(&e), e.to_string()))
            }
        };
        let server = tracker.server();
        match answer {
            Ok(Some(text)) => {
                *out.by_tracker.entry(tracker.kind()).or_default() += 1;
                out.fetched.push(Fetched {
                    id: id.clone(),
                    title: text.title,
                    description: text.description,
                    url: url.clone(),
                    tracker: tracker.kind().to_string(),
                });
            }
            Ok(None) => out.gone.push(id.clone()),
            Err((true, why)) => {
                let (_, lost) = out.unreachable.entry(server).or_insert((why, Vec::new()));
                lost.push(id.clone());
            }
            Err((false, why)) => {
                out.unreachable
                    .entry(format!("{server} ({id})"))
                    .or_insert((why, vec![id.clone()]));
            }
        }
    }
    out.requests = http.traffic.requests + traffic.requests;
    out.cache_hits = http.traffic.cache_hits + traffic.offline_hits + traffic.not_modified;
    out
}

/// A JIRA issue's, a SourceForge ticket's or a Google Code issue's text.
fn other(http: &mut HttpClient, t: &Tracker) -> Result<Option<Text>, ClientError> {
    match t {
        Tracker::Jira { base, key } => {
            let url = format!("{base}/rest/api/2/issue/{key}?fields=summary,description");
            let ck = Key::of(&[b"bug-report jira 1", url.as_bytes()]);
            http.cached(&ck, &url, true, |url, body| {
                #[derive(Deserialize)]
                struct Issue {
                    fields: Fields,
                }
                #[derive(Deserialize)]
                struct Fields {
                    summary: String,
                    #[serde(default)]
                    description: Option<String>,
                }
                let i: Issue = parse(url, body)?;
                Ok(Text {
                    title: i.fields.summary,
                    description: i.fields.description.unwrap_or_default(),
                })
            })
        }
        Tracker::SourceForge { api } => {
            let ck = Key::of(&[b"bug-report sourceforge 1", api.as_bytes()]);
            http.cached(&ck, api, false, |url, body| {
                #[derive(Deserialize)]
                struct Doc {
                    ticket: Ticket,
                }
                #[derive(Deserialize)]
                struct Ticket {
                    summary: String,
                    #[serde(default)]
                    description: String,
                }
                let d: Doc = parse(url, body)?;
                Ok(Text {
                    title: d.ticket.summary,
                    description: d.ticket.description,
                })
            })
        }
        Tracker::GoogleCode { json } => {
            let ck = Key::of(&[b"bug-report google-code 1", json.as_bytes()]);
            http.cached(&ck, json, false, |url, body| {
                #[derive(Deserialize)]
                struct Issue {
                    summary: String,
                    #[serde(default)]
                    comments: Vec<Comment>,
                }
                #[derive(Deserialize)]
                struct Comment {
                    #[serde(default)]
                    content: String,
                }
                let i: Issue = parse(url, body)?;
                Ok(Text {
                    title: i.summary,
                    description: i
                        .comments
                        .into_iter()
                        .next()
                        .map(|c| c.content)
                        .unwrap_or_default(),
                })
            })
        }
        Tracker::GitHub { .. } => Ok(None),
    }
}

#[cfg(test)]
mod tests;
