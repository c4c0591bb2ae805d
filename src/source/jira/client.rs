//! A small JIRA REST client for one question, an issue's type
//! (`GET {url}/rest/api/2/issue/{KEY}?fields=issuetype`), over blocking HTTP (ureq):
//! every answer cached on disk (a 404 too, so `--offline` gives the same answer),
//! `429`/`503` with `Retry-After` waited out under the recipe's cap, server errors and
//! dropped connections retried, and an optional `JIRA_TOKEN` sent as a Bearer token,
//! never stored in a cache key, an entry or a message.

use crate::cache::{Cache, Key};
use crate::progress::Progress;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Server errors and transport failures are retried this many times.
const RETRIES: u32 = 3;

/// The wait a `429` without `Retry-After` gets (JIRA Cloud always sends one).
const DEFAULT_WAIT_SECS: u64 = 60;

/// How a run talks to JIRA (not part of the recipe: it does not change the result).
/// Its `Debug` hides the token.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// Answer from the cache only.
    pub offline: bool,
    /// Bearer token; `None` is anonymous. The CLI reads `JIRA_TOKEN`.
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

/// What JIRA says of one key; also the cache entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lookup {
    /// The issue exists: its key as JIRA answers it (another when it was moved) and the
    /// name of its type (`Bug`, `Improvement`).
    Type {
        /// The issue's key now.
        key: String,
        /// `fields.issuetype.name`.
        name: String,
    },
    /// 404: no such issue (or not visible with these credentials): no evidence.
    Gone,
}

/// Why JIRA could not answer; each names the URL (never the token).
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// 401: the token is wrong or expired, or the server wants one.
    #[error("{url}: 401 Unauthorized: {hint}")]
    BadToken {
        /// The request.
        url: String,
        /// What to do about it.
        hint: &'static str,
    },
    /// `Retry-After` asks for more than the recipe's `max_wait` has left.
    #[error("{url}: the server asks to retry after {secs} s, past max_wait")]
    RateLimited {
        /// The request that was refused.
        url: String,
        /// Seconds it asked for.
        secs: u64,
    },
    /// Another non-success status (after retries for 5xx).
    #[error("{url}: HTTP {status}: {message}")]
    Status {
        /// The request.
        url: String,
        /// The status code.
        status: u16,
        /// JIRA's `errorMessages`, or the start of the body.
        message: String,
    },
    /// The connection failed (after retries).
    #[error("{url}: {message}")]
    Transport {
        /// The request.
        url: String,
        /// The client's reason.
        message: String,
    },
    /// `--offline` and the cache has no answer for this request.
    #[error("{url}: not in the cache and --offline was given (run once online to fill the cache)")]
    Offline {
        /// The request.
        url: String,
    },
    /// The body is not an issue with a type.
    #[error("{url}: malformed JSON: {message}")]
    Json {
        /// The request.
        url: String,
        /// serde's reason with the place.
        message: String,
    },
    /// The cache directory cannot be written.
    #[error("{}: cannot write the JIRA cache: {source}", dir.display())]
    Cache {
        /// The cache directory.
        dir: std::path::PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

/// What a run did, for the build's notes and the tests' assertions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Requests sent.
    pub requests: usize,
    /// Answered from the cache without a request.
    pub cache_hits: usize,
    /// Seconds spent waiting for `Retry-After`.
    pub waited_secs: u64,
}

impl std::fmt::Display for Traffic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "JIRA API: {} request(s) sent, {} answered from the cache; {} s waited for Retry-After",
            self.requests, self.cache_hits, self.waited_secs
        )
    }
}

/// The client; one per run (no `Debug`: it holds the token).
pub struct Client {
    agent: ureq::Agent,
    cache: Cache,
    base: String,
    opts: RunOptions,
    max_wait: Duration,
    progress: Progress,
    /// What this run did so far.
    pub traffic: Traffic,
}

/// The fields of an issue read here.
#[derive(Debug, Deserialize)]
struct Issue {
    key: String,
    fields: Fields,
}

#[derive(Debug, Deserialize)]
struct Fields {
    issuetype: IssueType,
}

#[derive(Debug, Deserialize)]
struct IssueType {
    name: String,
}

impl Client {
    /// A client of the JIRA server at `base` (`https://issues.apache.org/jira`).
    pub fn new(
        base: &str,
        cache_dir: &std::path::Path,
        max_wait: Duration,
        opts: &RunOptions,
        progress: Progress,
    ) -> Client {
        let agent = crate::http::config(Duration::from_secs(90))
            .http_status_as_error(false)
            .build()
            .into();
        Client {
            agent,
            cache: Cache::new(cache_dir.to_path_buf()),
            base: base.trim_end_matches('/').to_string(),
            opts: opts.clone(),
            max_wait,
            progress,
            traffic: Traffic::default(),
        }
    }

    /// The request of `key`'s type.
    pub fn url(&self, key: &str) -> String {
        format!("{}/rest/api/2/issue/{key}?fields=issuetype", self.base)
    }

    fn cache_key(&self, key: &str) -> Key {
        Key::of(&[b"jira-issuetype 1", self.base.as_bytes(), key.as_bytes()])
    }

    /// The type of issue `key`: from the cache when it holds an answer (a filed issue's
    /// type is settled, and a rebuild of a long history must not ask a thousand times
    /// again), else asked and cached; offline, a miss is an error.
    pub fn issue_type(&mut self, key: &str) -> Result<Lookup, ClientError> {
        let url = self.url(key);
        let ck = self.cache_key(key);
        self.cached(&ck, &url, true, |url, body| {
            let issue: Issue = parse(url, body)?;
            Ok(Lookup::Type {
                key: issue.key,
                name: issue.fields.issuetype.name,
            })
        })
        .map(|found| found.unwrap_or(Lookup::Gone))
    }

    /// The answer to `url` as `read` makes it of the body, `None` for a 404 (no such
    /// issue, no evidence): from the cache under `ck` when it holds one, else asked (with
    /// the token when `token`: only the server it was given for ever sees it) and
    /// cached, a 404 too, so `--offline` gives the same answer; offline, a miss is an
    /// error. Trackers other than JIRA (SourceForge, Google Code's archive) are asked
    /// this way too, without the token.
    pub fn cached<T>(
        &mut self,
        ck: &Key,
        url: &str,
        token: bool,
        read: impl Fn(&str, &str) -> Result<T, ClientError>,
    ) -> Result<Option<T>, ClientError>
    where
        T: Serialize + serde::de::DeserializeOwned,
    {
        let cached: Option<Option<T>> = self
            .cache
            .get(ck)
            .and_then(|b| serde_json::from_slice(&b).ok());
        if let Some(answer) = cached {
            self.traffic.cache_hits += 1;
            return Ok(answer);
        }
        if self.opts.offline {
            return Err(ClientError::Offline {
                url: url.to_string(),
            });
        }
        let found = match self.get(url, token)? {
            Some(body) => Some(read(url, &body)?),
            None => None,
        };
        let bytes = serde_json::to_vec(&found).map_err(|e| ClientError::Json {
            url: url.to_string(),
            message: e.to_string(),
        })?;
        match (&found, self.cache.put(ck, &bytes)) {
            (_, Ok(())) => {}
            // Best effort for a 404: an unwritable cache only costs the offline answer.
            (None, Err(_)) => {}
            (Some(_), Err(source)) => {
                return Err(ClientError::Cache {
                    dir: self.cache.dir().to_path_buf(),
                    source,
                })
            }
        }
        Ok(found)
    }

    /// The body of `url`, `None` for a 404: `429`/`503` with `Retry-After` waited out
    /// under the cap, server errors and dropped connections retried.
    fn get(&mut self, url: &str, token: bool) -> Result<Option<String>, ClientError> {
        let url = url.to_string();
        let mut failures = 0u32;
        loop {
            let mut request = self.agent.get(&url).header("accept", "application/json");
            if let Some(token) = self.opts.token.as_ref().filter(|_| token) {
                request = request.header("authorization", format!("Bearer {token}"));
            }
            self.traffic.requests += 1;
            let mut response = match request.call() {
                Ok(r) => r,
                Err(e) => {
                    failures += 1;
                    if failures > RETRIES {
                        return Err(ClientError::Transport {
                            url,
                            message: e.to_string(),
                        });
                    }
                    self.backoff(failures);
                    continue;
                }
            };
            let status = response.status().as_u16();
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let body =
                response
                    .body_mut()
                    .read_to_string()
                    .map_err(|e| ClientError::Transport {
                        url: url.clone(),
                        message: format!("reading the body: {e}"),
                    })?;
            return match status {
                200..=299 => Ok(Some(body)),
                404 => Ok(None),
                429 | 503 if status == 429 || retry_after.is_some() => {
                    let secs = retry_after
                        .as_deref()
                        .and_then(|v| retry_after_secs(v, now_secs()))
                        .unwrap_or(DEFAULT_WAIT_SECS);
                    self.wait_out(&url, secs)?;
                    continue;
                }
                401 => Err(ClientError::BadToken {
                    url,
                    hint: if self.opts.token.is_some() && token {
                        "JIRA_TOKEN was refused (wrong or expired); fix it or unset it to go anonymous"
                    } else {
                        "this server needs authentication; set JIRA_TOKEN"
                    },
                }),
                500..=599 if failures < RETRIES => {
                    failures += 1;
                    self.backoff(failures);
                    continue;
                }
                code => Err(ClientError::Status {
                    url,
                    status: code,
                    message: jira_message(&body),
                }),
            };
        }
    }

    /// Wait `secs` on the progress bar, unless the run's cap would be passed.
    fn wait_out(&mut self, url: &str, secs: u64) -> Result<(), ClientError> {
        let total = self.traffic.waited_secs + secs;
        if Duration::from_secs(total) > self.max_wait {
            return Err(ClientError::RateLimited {
                url: url.to_string(),
                secs,
            });
        }
        for left in (1..=secs).rev() {
            self.progress
                .set_message(format!("JIRA asks to wait: {left}s (Retry-After)"));
            std::thread::sleep(Duration::from_secs(1));
        }
        self.progress.set_message("");
        self.traffic.waited_secs = total;
        Ok(())
    }

    fn backoff(&self, failures: u32) {
        let first = if self.opts.backoff.is_zero() {
            Duration::from_secs(1)
        } else {
            self.opts.backoff
        };
        let delay = first * 2u32.saturating_pow(failures.saturating_sub(1));
        self.progress
            .set_message(format!("JIRA server error: retry {failures} in {delay:?}"));
        std::thread::sleep(delay);
        self.progress.set_message("");
    }
}

/// `Retry-After` in seconds from `now`: delta-seconds (`120`) or an HTTP date
/// (`Wed, 21 Oct 2015 07:28:00 GMT`); at least one second; `None` when unreadable.
fn retry_after_secs(value: &str, now: i64) -> Option<u64> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(secs.max(1));
    }
    let at = http_date(value)?;
    Some((at - now).max(1) as u64)
}

/// Seconds since the epoch of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
fn http_date(s: &str) -> Option<i64> {
    let mut parts = s.split_whitespace();
    let (_, day, month, year, time, zone) = (
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
    );
    if zone != "GMT" || parts.next().is_some() {
        return None;
    }
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let m = MONTHS.iter().position(|x| *x == month)? as i64 + 1;
    let (d, y): (i64, i64) = (day.parse().ok()?, year.parse().ok()?);
    let hms: Vec<i64> = time
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let [h, mi, sec] = hms[..] else { return None };
    // Days from the civil date (Howard Hinnant's algorithm).
    let yy = if m <= 2 { y - 1 } else { y };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + mi * 60 + sec)
}

/// JIRA's `{"errorMessages": [...]}`, or the body's first line.
fn jira_message(body: &str) -> String {
    #[derive(Deserialize)]
    struct Errors {
        #[serde(rename = "errorMessages", default)]
        error_messages: Vec<String>,
    }
    match serde_json::from_str::<Errors>(body) {
        Ok(e) if !e.error_messages.is_empty() => e.error_messages.join("; "),
        _ => body
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(200)
            .collect(),
    }
}

/// `body`, the answer to `url`, read as `T`; a mismatch names the place in the JSON
/// (also the reader of `hunkgen reports`' other trackers).
pub(crate) fn parse<T: serde::de::DeserializeOwned>(
    url: &str,
    body: &str,
) -> Result<T, ClientError> {
    let de = &mut serde_json::Deserializer::from_str(body);
    serde_path_to_error::deserialize(de).map_err(|e| ClientError::Json {
        url: url.to_string(),
        message: if e.path().to_string() == "." {
            e.inner().to_string()
        } else {
            format!("at `{}`: {}", e.path(), e.inner())
        },
    })
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_seconds_or_an_http_date() {
        assert_eq!(retry_after_secs("1", 0), Some(1));
        assert_eq!(retry_after_secs(" 0 ", 0), Some(1));
        assert_eq!(
            http_date("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777)
        );
        assert_eq!(
            retry_after_secs("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_700),
            Some(77)
        );
        assert_eq!(retry_after_secs("soon", 0), None);
        assert_eq!(http_date("Sun, 06 Nov 1994 08:49:37 CET"), None);
    }

    #[test]
    fn an_issue_without_a_type_is_malformed_and_says_where() {
        let e = parse::<Issue>("http://j/x", r#"{"key":"LANG-1","fields":{}}"#)
            .expect_err("no issuetype");
        let s = e.to_string();
        assert!(
            s.starts_with("http://j/x: malformed JSON: at `fields`: missing field `issuetype`"),
            "{s}"
        );
        assert!(!s.contains('\n'), "{s}");
        let ok: Issue = parse(
            "http://j/x",
            r#"{"key":"LANG-1","fields":{"issuetype":{"name":"Bug","subtask":false}}}"#,
        )
        .expect("issue");
        assert_eq!(
            (ok.key.as_str(), ok.fields.issuetype.name.as_str()),
            ("LANG-1", "Bug")
        );
    }

    #[test]
    fn jira_error_messages_are_read() {
        assert_eq!(
            jira_message(r#"{"errorMessages":["Issue Does Not Exist"],"errors":{}}"#),
            "Issue Does Not Exist"
        );
        assert_eq!(jira_message("<html>\nbusy"), "<html>");
    }
}
