//! A polite GitHub REST client: octocrab for transport and authentication, plus what
//! octocrab leaves to the caller — a disk cache of every response keyed by URL with its
//! ETag (re-runs send `If-None-Match`; a 304 costs no quota), `Link` pagination, primary
//! and secondary rate limits waited out on the progress bar under a total cap, retries
//! of server errors, and an offline mode that answers from the cache alone.
//!
//! octocrab's typed calls (`pulls().list()`) map every non-2xx status to an error and
//! hide the response headers, so the ETag, `Link` and rate-limit headers could not be
//! read; its raw `_get_with_headers` returns the `http::Response` untouched, which is
//! what this module uses. The token goes only into octocrab's auth state: it is never
//! part of a cache key, an entry or a message.

use crate::cache::{Cache, Key};
use crate::progress::Progress;
use http::header::{HeaderMap, HeaderName, HeaderValue};
use http::StatusCode;
use octocrab::Octocrab;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Server errors and transport failures are retried this many times.
const RETRIES: u32 = 3;

/// Why the API could not answer; each names the URL (never the token).
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// 401: the token is wrong or expired.
    #[error("{url}: 401 Bad credentials: {hint}")]
    BadToken {
        /// The request.
        url: String,
        /// What to do about it.
        hint: &'static str,
    },
    /// 404: no such repository (or not visible with these credentials).
    #[error("{url}: 404 Not Found: {what}")]
    NotFound {
        /// The request.
        url: String,
        /// What was expected there.
        what: String,
    },
    /// The rate limit is exhausted and waiting for it would pass the recipe's cap.
    #[error("GitHub rate limit exhausted at {url}; it resets at {reset_at}")]
    RateLimited {
        /// The request that was refused.
        url: String,
        /// When the limit resets (RFC 3339, UTC).
        reset_at: String,
    },
    /// Another non-success status (after retries for 5xx).
    #[error("{url}: HTTP {status}: {message}")]
    Status {
        /// The request.
        url: String,
        /// The status code.
        status: u16,
        /// GitHub's `message`, or the start of the body.
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
    /// The body is not the JSON the request expects.
    #[error("{url}: malformed JSON: {message}")]
    Json {
        /// The request.
        url: String,
        /// serde's reason with line and column.
        message: String,
    },
    /// The cache directory cannot be written.
    #[error("{}: cannot write the GitHub cache: {source}", dir.display())]
    Cache {
        /// The cache directory.
        dir: std::path::PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

/// What a run did, for the card and the tests' assertions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Requests sent.
    pub requests: usize,
    /// Of those, answered 304 Not Modified from the cache.
    pub not_modified: usize,
    /// Answered from the cache without a request (`--offline`).
    pub offline_hits: usize,
    /// Seconds spent waiting for rate limits.
    pub waited_secs: u64,
}

impl std::fmt::Display for Traffic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "GitHub API: {} request(s) sent, {} answered 304 Not Modified (no quota spent), {} answered from the cache offline; {} s waited for rate limits",
            self.requests, self.not_modified, self.offline_hits, self.waited_secs
        )
    }
}

/// One cached response: the body and what is needed to revalidate and paginate it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    etag: Option<String>,
    next: Option<String>,
    body: String,
    /// The server answered 404: remembered so that `--offline` gives the same answer
    /// (an issue deleted or never there); online, it is asked again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    gone: bool,
}

/// Where the client goes and how long it may wait (no `Debug`: it holds the token).
#[derive(Clone)]
pub struct ClientConfig {
    /// API root (`https://api.github.com`).
    pub base_uri: String,
    /// Token (from `GITHUB_TOKEN`); anonymous when `None`.
    pub token: Option<String>,
    /// Cache directory.
    pub cache_dir: std::path::PathBuf,
    /// Answer from the cache only.
    pub offline: bool,
    /// Total time the run may spend waiting for rate limits.
    pub max_wait: Duration,
    /// First retry delay after a server error (doubles each time).
    pub backoff: Duration,
}

/// The client; one per run, used from one task.
pub struct Client {
    octo: Octocrab,
    cache: Cache,
    base: String,
    cfg: ClientConfig,
    progress: Progress,
    /// What this run did so far.
    pub traffic: Traffic,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("base", &self.base).finish()
    }
}

impl Client {
    /// A client for `cfg`; needs a tokio runtime to be entered (octocrab's connector).
    pub fn new(cfg: ClientConfig, progress: Progress) -> Result<Client, ApiError> {
        let base = cfg.base_uri.trim_end_matches('/').to_string();
        let transport = |message: String| ApiError::Transport {
            url: base.clone(),
            message,
        };
        let mut builder = Octocrab::builder()
            .base_uri(base.as_str())
            .map_err(|e| transport(format!("not a base URI: {e}")))?
            .set_connect_timeout(Some(Duration::from_secs(30)))
            .set_read_timeout(Some(Duration::from_secs(60)));
        if let Some(token) = &cfg.token {
            builder = builder.personal_token(token.clone());
        }
        let octo = builder.build().map_err(|e| transport(e.to_string()))?;
        Ok(Client {
            octo,
            cache: Cache::new(cfg.cache_dir.clone()),
            base,
            cfg,
            progress,
            traffic: Traffic::default(),
        })
    }

    /// The full URL of a path, for messages.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Every page of a listing, `Link: rel="next"` followed, items in order.
    pub async fn get_all<T: serde::de::DeserializeOwned>(
        &mut self,
        path: &str,
        max_items: Option<usize>,
    ) -> Result<Vec<T>, ApiError> {
        let mut items: Vec<T> = Vec::new();
        let mut next = Some(path.to_string());
        while let Some(p) = next.take() {
            let entry = self.get_entry(&p).await?;
            let page: Vec<T> = parse(&self.url(&p), &entry.body)?;
            let empty = page.is_empty();
            items.extend(page);
            if max_items.is_some_and(|m| items.len() >= m) || empty {
                break;
            }
            next = entry.next;
        }
        Ok(items)
    }

    /// Pages of a listing one at a time: the items of `path` and the next page's path.
    pub async fn get_page<T: serde::de::DeserializeOwned>(
        &mut self,
        path: &str,
    ) -> Result<(Vec<T>, Option<String>), ApiError> {
        let entry = self.get_entry(path).await?;
        Ok((parse(&self.url(path), &entry.body)?, entry.next))
    }

    /// One JSON document.
    pub async fn get<T: serde::de::DeserializeOwned>(&mut self, path: &str) -> Result<T, ApiError> {
        let entry = self.get_entry(path).await?;
        parse(&self.url(path), &entry.body)
    }

    fn key(&self, path: &str) -> Key {
        Key::of(&[b"github-api 1", self.base.as_bytes(), path.as_bytes()])
    }

    /// The response for `path` (path and query under the base URI): from the cache when
    /// offline or when GitHub says 304, else fresh (and then cached).
    async fn get_entry(&mut self, path: &str) -> Result<Entry, ApiError> {
        let url = self.url(path);
        let key = self.key(path);
        let cached: Option<Entry> = self
            .cache
            .get(&key)
            .and_then(|b| serde_json::from_slice(&b).ok());
        if self.cfg.offline {
            self.traffic.offline_hits += usize::from(cached.is_some());
            return match cached {
                Some(e) if e.gone => Err(ApiError::NotFound {
                    url,
                    what: "Not Found (remembered from an online run)".into(),
                }),
                Some(e) => Ok(e),
                None => Err(ApiError::Offline { url }),
            };
        }
        let mut failures = 0u32;
        loop {
            let mut headers = HeaderMap::new();
            headers.insert(
                http::header::ACCEPT,
                HeaderValue::from_static("application/vnd.github+json"),
            );
            headers.insert(
                HeaderName::from_static("x-github-api-version"),
                HeaderValue::from_static("2022-11-28"),
            );
            if let Some(etag) = cached.as_ref().and_then(|e| e.etag.as_deref()) {
                if let Ok(v) = HeaderValue::from_str(etag) {
                    headers.insert(http::header::IF_NONE_MATCH, v);
                }
            }
            self.traffic.requests += 1;
            let response = match self.octo._get_with_headers(path, Some(headers)).await {
                Ok(r) => r,
                Err(e) => {
                    failures += 1;
                    if failures > RETRIES {
                        return Err(ApiError::Transport {
                            url,
                            message: error_chain(&e),
                        });
                    }
                    self.backoff(failures).await;
                    continue;
                }
            };
            let status = response.status();
            let head = response.headers().clone();
            let body =
                self.octo
                    .body_to_string(response)
                    .await
                    .map_err(|e| ApiError::Transport {
                        url: url.clone(),
                        message: format!("reading the body: {}", error_chain(&e)),
                    })?;
            if status == StatusCode::NOT_MODIFIED {
                if let Some(entry) = cached {
                    self.traffic.not_modified += 1;
                    return Ok(entry);
                }
                return Err(ApiError::Status {
                    url,
                    status: 304,
                    message: "304 without a cached copy".into(),
                });
            }
            if status.is_success() {
                let entry = Entry {
                    etag: header(&head, "etag"),
                    next: header(&head, "link").and_then(|l| self.next_path(&l)),
                    body,
                    gone: false,
                };
                let bytes = serde_json::to_vec(&entry).map_err(|e| ApiError::Json {
                    url: url.clone(),
                    message: e.to_string(),
                })?;
                self.cache
                    .put(&key, &bytes)
                    .map_err(|source| ApiError::Cache {
                        dir: self.cache.dir().to_path_buf(),
                        source,
                    })?;
                return Ok(entry);
            }
            if let Some(wait) = rate_limit_wait(status, &head, now_secs()) {
                self.wait_out(&url, wait).await?;
                continue;
            }
            match status.as_u16() {
                401 => {
                    return Err(ApiError::BadToken {
                        url,
                        hint: if self.cfg.token.is_some() {
                            "GITHUB_TOKEN was refused (wrong or expired); fix it or unset it to go anonymous"
                        } else {
                            "this request needs authentication; set GITHUB_TOKEN"
                        },
                    })
                }
                404 => {
                    let gone = Entry {
                        etag: None,
                        next: None,
                        body: String::new(),
                        gone: true,
                    };
                    if let Ok(bytes) = serde_json::to_vec(&gone) {
                        // Best effort: an unwritable cache only costs the offline answer.
                        let _ = self.cache.put(&key, &bytes);
                    }
                    return Err(ApiError::NotFound {
                        url,
                        what: github_message(&body),
                    });
                }
                500..=599 if failures < RETRIES => {
                    failures += 1;
                    self.backoff(failures).await;
                }
                code => {
                    return Err(ApiError::Status {
                        url,
                        status: code,
                        message: github_message(&body),
                    })
                }
            }
        }
    }

    /// `Link`'s `rel="next"` target as a path under the base URI (pages of the test
    /// server and of GitHub Enterprise share their prefix with it).
    fn next_path(&self, link: &str) -> Option<String> {
        let target = link.split(',').find_map(|part| {
            let (url, params) = part.split_once(';')?;
            params
                .split(';')
                .any(|p| p.trim().trim_start_matches("rel=").trim_matches('"') == "next")
                .then(|| url.trim().trim_start_matches('<').trim_end_matches('>'))
        })?;
        match target.strip_prefix(&self.base) {
            Some(rest) => Some(rest.to_string()),
            None => {
                // Another host form of the same API (`https://api.github.com` vs the
                // configured one): keep the path and query.
                let uri: http::Uri = target.parse().ok()?;
                uri.path_and_query().map(|p| p.as_str().to_string())
            }
        }
    }

    /// Wait for a rate limit, on the progress bar, unless the run's cap would be passed.
    async fn wait_out(&mut self, url: &str, wait: Wait) -> Result<(), ApiError> {
        let total = self.traffic.waited_secs + wait.secs;
        if Duration::from_secs(total) > self.cfg.max_wait {
            return Err(ApiError::RateLimited {
                url: url.to_string(),
                reset_at: crate::dataset::rfc3339(wait.reset),
            });
        }
        let until = crate::dataset::rfc3339(wait.reset);
        for left in (1..=wait.secs).rev() {
            self.progress.set_message(format!(
                "{} rate limit: waiting {left}s (resets {until})",
                wait.kind
            ));
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        self.progress.set_message("");
        self.traffic.waited_secs = total;
        Ok(())
    }

    async fn backoff(&self, failures: u32) {
        let delay = self.cfg.backoff * 2u32.saturating_pow(failures.saturating_sub(1));
        self.progress
            .set_message(format!("server error: retry {failures} in {delay:?}"));
        tokio::time::sleep(delay).await;
        self.progress.set_message("");
    }
}

/// A rate-limit wait: how long, until when, which limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Wait {
    secs: u64,
    reset: i64,
    kind: &'static str,
}

/// The wait a 403/429 asks for: `retry-after` (secondary limit) first, else an exhausted
/// primary limit until `x-ratelimit-reset` (plus a second of slack); `None` for other
/// refusals (a 403 for permissions is an error, not a wait).
fn rate_limit_wait(status: StatusCode, head: &HeaderMap, now: i64) -> Option<Wait> {
    if status != StatusCode::FORBIDDEN && status != StatusCode::TOO_MANY_REQUESTS {
        return None;
    }
    let num = |name: &str| header(head, name).and_then(|v| v.trim().parse::<i64>().ok());
    if let Some(after) = num("retry-after") {
        let secs = after.max(1) as u64;
        return Some(Wait {
            secs,
            reset: now + secs as i64,
            kind: "secondary",
        });
    }
    if num("x-ratelimit-remaining") == Some(0) {
        let reset = num("x-ratelimit-reset").unwrap_or(now + 60);
        let secs = (reset - now + 1).max(1) as u64;
        return Some(Wait {
            secs,
            reset,
            kind: "primary",
        });
    }
    None
}

fn header(head: &HeaderMap, name: &str) -> Option<String> {
    head.get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// GitHub's `{"message": ...}`, or the body's first line.
fn github_message(body: &str) -> String {
    #[derive(Deserialize)]
    struct Message {
        message: String,
    }
    match serde_json::from_str::<Message>(body) {
        Ok(m) => m.message,
        Err(_) => body
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(200)
            .collect(),
    }
}

fn parse<T: serde::de::DeserializeOwned>(url: &str, body: &str) -> Result<T, ApiError> {
    let de = &mut serde_json::Deserializer::from_str(body);
    serde_path_to_error::deserialize(de).map_err(|e| ApiError::Json {
        url: url.to_string(),
        message: if e.path().to_string() == "." {
            e.inner().to_string()
        } else {
            format!("at `{}`: {}", e.path(), e.inner())
        },
    })
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(inner) = src {
        let text = inner.to_string();
        if !s.contains(&text) {
            s = format!("{s}: {text}");
        }
        src = inner.source();
    }
    s
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

    fn heads(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).expect("header"));
        }
        h
    }

    #[test]
    fn primary_limit_waits_until_reset_secondary_until_retry_after() {
        let h = heads(&[
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "1100"),
        ]);
        let w = rate_limit_wait(StatusCode::FORBIDDEN, &h, 1000).expect("wait");
        assert_eq!((w.secs, w.reset, w.kind), (101, 1100, "primary"));
        let h = heads(&[("retry-after", "30"), ("x-ratelimit-remaining", "12")]);
        let w = rate_limit_wait(StatusCode::TOO_MANY_REQUESTS, &h, 1000).expect("wait");
        assert_eq!((w.secs, w.reset, w.kind), (30, 1030, "secondary"));
        // A permissions 403 (quota left, no retry-after) is not a wait.
        let h = heads(&[("x-ratelimit-remaining", "40")]);
        assert_eq!(rate_limit_wait(StatusCode::FORBIDDEN, &h, 1000), None);
        assert_eq!(
            rate_limit_wait(StatusCode::OK, &heads(&[("retry-after", "1")]), 0),
            None
        );
    }

    #[test]
    fn malformed_json_names_the_place() {
        let e = parse::<Vec<u32>>("http://x/y", "[1, \"two\"]").expect_err("malformed");
        let s = e.to_string();
        assert!(s.starts_with("http://x/y: malformed JSON: at `[1]`"), "{s}");
    }
}
