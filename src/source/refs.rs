//! Links out of a commit message: issue references (`#N`, `GH-N`, closing keywords, issue
//! URLs, tracker keys such as `LANG-123`) with URLs when the forge is known, git
//! trailers stripped for the problem statement, and the SWE-bench-shaped id prefix.

use crate::model::Report;
use regex::Regex;
use std::sync::LazyLock;

/// The kind of forge hosting a repository, which decides its issue URLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forge {
    /// `https://github.com/o/r/issues/N`.
    Github,
    /// `https://gitlab.com/o/r/-/issues/N`.
    Gitlab,
    /// Gitea, Forgejo, Codeberg: `…/o/r/issues/N`.
    Gitea,
}

impl Forge {
    /// Parse a recipe's `forge:` value.
    pub fn parse(s: &str) -> Option<Forge> {
        match s.trim().to_ascii_lowercase().as_str() {
            "github" => Some(Forge::Github),
            "gitlab" => Some(Forge::Gitlab),
            "gitea" | "forgejo" | "codeberg" => Some(Forge::Gitea),
            _ => None,
        }
    }

    /// The forge a well-known host runs, if it is one.
    pub fn of_host(host: &str) -> Option<Forge> {
        let host = host.to_ascii_lowercase();
        if host == "github.com" || host.starts_with("github.") {
            Some(Forge::Github)
        } else if host.contains("gitlab") {
            Some(Forge::Gitlab)
        } else if host == "codeberg.org" || host.contains("gitea") || host.contains("forgejo") {
            Some(Forge::Gitea)
        } else {
            None
        }
    }

    fn issue_path(self) -> &'static str {
        match self {
            Forge::Gitlab => "/-/issues/",
            Forge::Github | Forge::Gitea => "/issues/",
        }
    }
}

/// Where a repository's issues live, compiled from the recipe.
#[derive(Debug, Clone, Default)]
pub struct Links {
    /// The repository's web address on its forge, without a trailing `/`
    /// (`https://github.com/owner/repo`), and the forge; `None` when unknown.
    pub repo: Option<(String, Forge)>,
    /// Tracker keys (`LANG-\d+`) and the URL template of one (`{id}` replaced).
    pub tracker: Option<(Regex, Option<String>)>,
}

impl Links {
    /// The web address of `owner/repo`'s issue `n` on this forge (same host).
    fn issue_url(&self, owner_repo: Option<&str>, n: &str) -> String {
        let Some((url, forge)) = &self.repo else {
            return String::new();
        };
        let base = match owner_repo {
            None => url.clone(),
            Some(o_r) => match url
                .find("://")
                .and_then(|i| url[i + 3..].find('/').map(|j| i + 3 + j))
            {
                Some(host_end) => format!("{}/{o_r}", &url[..host_end]),
                None => return String::new(),
            },
        };
        format!("{base}{}{n}", forge.issue_path())
    }

    /// `owner/repo` of this repository's forge address.
    fn own(&self) -> Option<&str> {
        let (url, _) = self.repo.as_ref()?;
        let path = url.split_once("://")?.1.split_once('/')?.1;
        Some(path.trim_end_matches('/'))
    }
}

/// `owner/repo` from a forge address (`https://github.com/owner/repo(.git)`).
pub fn owner_repo(url: &str) -> Option<String> {
    let path = url.split_once("://")?.1.split_once('/')?.1;
    let path = path.trim_end_matches('/').trim_end_matches(".git");
    let mut parts = path.split('/');
    let (owner, repo) = (parts.next()?, parts.next()?);
    (!owner.is_empty() && !repo.is_empty()).then(|| format!("{owner}/{repo}"))
}

/// The id prefix of a repository name, SWE-bench's shape: `owner/repo` → `owner__repo`.
pub fn id_prefix(name: &str) -> String {
    name.replace('/', "__")
}

static CLOSING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+((?:[\w.-]+/[\w.-]+)?#\d+|GH-\d+|https?://\S+/issues/\d+)")
        .expect("closing-keyword regex")
});
static URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"https?://[^\s/]+/([\w.-]+/[\w.-]+)/(?:-/)?issues/(\d+)").expect("issue URL regex")
});
static HASH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[^\w&/#])(?:([\w.-]+/[\w.-]+))?#(\d+)\b").expect("#N regex")
});
static GH: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\bGH-(\d+)\b").expect("GH-N regex"));

/// An issue a closing keyword names (`Fixes #12`, `closes o/r#3`, `resolves <issue URL>`,
/// `fixes GH-7`): one parser for commit messages and pull requests alike.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closing {
    /// `owner/repo` when the reference names one (`o/r#N`, an issue URL).
    pub repo: Option<String>,
    /// The issue number.
    pub number: u64,
    /// Written `GH-N`, which GitHub links but does not close by.
    pub gh_style: bool,
}

/// The issues closing keywords in `text` name, in order of appearance.
pub fn closing_refs(text: &str) -> Vec<Closing> {
    static QUALIFIED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^(?:([\w.-]+/[\w.-]+))?#(\d+)$").expect("o/r#N regex"));
    let mut out = Vec::new();
    for c in CLOSING.captures_iter(text) {
        let Some(target) = c.get(1).map(|m| m.as_str()) else {
            continue;
        };
        let (repo, number, gh_style) = if let Some(n) = target.strip_prefix("GH-") {
            (None, n, true)
        } else if let Some(q) = QUALIFIED.captures(target) {
            let n = q.get(2).map_or("", |m| m.as_str());
            (q.get(1).map(|m| m.as_str().to_string()), n, false)
        } else if let Some(u) = URL
            .captures(target)
            .filter(|u| u.get(0).map(|m| m.as_str()) == Some(target))
        {
            let n = u.get(2).map_or("", |m| m.as_str());
            (u.get(1).map(|m| m.as_str().to_string()), n, false)
        } else {
            continue;
        };
        if let Ok(number) = number.parse() {
            out.push(Closing {
                repo,
                number,
                gh_style,
            });
        }
    }
    out
}

/// Every issue reference of `message`, without repeats: those after a closing keyword
/// (`Fixes #12`) first, then the others in the order they appear. The first one is the
/// instance's `report`.
pub fn references(message: &str, links: &Links) -> Vec<Report> {
    // (is closing, position, reference)
    let mut found: Vec<(bool, usize, Report)> = Vec::new();
    let own = links.own().map(|s| s.to_ascii_lowercase());
    let issue = |o_r: Option<&str>, n: &str| -> Report {
        let o_r = o_r.filter(|o| Some(o.to_ascii_lowercase()) != own);
        Report {
            id: match o_r {
                Some(o) => format!("{o}#{n}"),
                None => format!("#{n}"),
            },
            url: links.issue_url(o_r, n),
        }
    };
    let mut url_spans = Vec::new();
    for c in URL.captures_iter(message) {
        let (Some(all), Some(o_r), Some(n)) = (c.get(0), c.get(1), c.get(2)) else {
            continue;
        };
        url_spans.push(all.range());
        let mut r = issue(Some(o_r.as_str()), n.as_str());
        r.url = all.as_str().to_string();
        found.push((false, all.start(), r));
    }
    for c in HASH.captures_iter(message) {
        let Some(n) = c.get(2) else { continue };
        if url_spans.iter().any(|s| s.contains(&n.start())) {
            continue;
        }
        found.push((
            false,
            n.start(),
            issue(c.get(1).map(|m| m.as_str()), n.as_str()),
        ));
    }
    for c in GH.captures_iter(message) {
        if let Some(n) = c.get(1) {
            found.push((false, n.start(), issue(None, n.as_str())));
        }
    }
    if let Some((re, template)) = &links.tracker {
        for m in re.find_iter(message) {
            if url_spans.iter().any(|s| s.contains(&m.start())) {
                continue;
            }
            found.push((
                false,
                m.start(),
                Report {
                    id: m.as_str().to_string(),
                    url: template
                        .as_deref()
                        .map(|t| t.replace("{id}", m.as_str()))
                        .unwrap_or_default(),
                },
            ));
        }
    }
    // A reference right after a closing keyword closes its issue.
    for c in CLOSING.captures_iter(message) {
        if let Some(target) = c.get(1) {
            for f in found.iter_mut() {
                if target.range().contains(&f.1) {
                    f.0 = true;
                }
            }
        }
    }
    found.sort_by_key(|f| (!f.0, f.1));
    let mut out: Vec<Report> = Vec::new();
    for (_, _, r) in found {
        if !out.iter().any(|o| o.id == r.id) {
            out.push(r);
        }
    }
    out
}

static TRAILER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[A-Za-z0-9][A-Za-z0-9-]*:\s|\(cherry picked from commit [0-9a-f]+\)$)")
        .expect("trailer regex")
});

/// The message without its git trailers: when the last paragraph (not the subject) is
/// made only of `Key: value` lines (`Signed-off-by:`, `Co-authored-by:`, …), their
/// indented continuations and `(cherry picked from commit …)`, it is dropped. Any other
/// message is returned unchanged.
pub fn strip_trailers(message: &str) -> String {
    let body = message.trim_end();
    let lines: Vec<&str> = body.lines().collect();
    let Some(blank) = lines.iter().rposition(|l| l.trim().is_empty()) else {
        return message.to_string();
    };
    let last = &lines[blank + 1..];
    let is_trailers = last.first().is_some_and(|l| TRAILER.is_match(l))
        && last
            .iter()
            .all(|l| TRAILER.is_match(l) || l.starts_with([' ', '\t']));
    if !is_trailers {
        return message.to_string();
    }
    let kept = lines[..blank].join("\n");
    let kept = kept.trim_end();
    if kept.is_empty() {
        return message.to_string();
    }
    format!("{kept}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn github() -> Links {
        Links {
            repo: Some(("https://github.com/acme/widgets".into(), Forge::Github)),
            tracker: Some((
                Regex::new(r"\bLANG-\d+\b").unwrap(),
                Some("https://issues.example.org/browse/{id}".into()),
            )),
        }
    }

    fn ids(message: &str, links: &Links) -> Vec<(String, String)> {
        references(message, links)
            .into_iter()
            .map(|r| (r.id, r.url))
            .collect()
    }

    #[test]
    fn issue_references_table() {
        let gh = |n: &str| format!("https://github.com/acme/widgets/issues/{n}");
        let cases: Vec<(&str, Vec<(String, String)>)> = vec![
            ("Fix parser (#1099)", vec![("#1099".into(), gh("1099"))]),
            (
                "Fix parser (#1099)\n\nFixes #2745",
                vec![("#2745".into(), gh("2745")), ("#1099".into(), gh("1099"))],
            ),
            ("closes: GH-17", vec![("#17".into(), gh("17"))]),
            (
                "Resolved https://github.com/acme/widgets/issues/5 and #5 again",
                vec![("#5".into(), gh("5"))],
            ),
            (
                "See https://github.com/other/lib/issues/8",
                vec![(
                    "other/lib#8".into(),
                    "https://github.com/other/lib/issues/8".into(),
                )],
            ),
            (
                "Fix other/lib#3",
                vec![(
                    "other/lib#3".into(),
                    "https://github.com/other/lib/issues/3".into(),
                )],
            ),
            (
                "LANG-123: fix split",
                vec![(
                    "LANG-123".into(),
                    "https://issues.example.org/browse/LANG-123".into(),
                )],
            ),
            ("Fix &#123; entity and C# code", vec![]),
            ("No reference at all", vec![]),
        ];
        for (msg, want) in cases {
            assert_eq!(ids(msg, &github()), want, "{msg:?}");
        }
    }

    #[test]
    fn without_a_forge_ids_have_no_url() {
        let got = ids("Fixes #4", &Links::default());
        assert_eq!(got, vec![("#4".to_string(), String::new())]);
        let gitlab = Links {
            repo: Some(("https://gitlab.com/g/p".into(), Forge::Gitlab)),
            tracker: None,
        };
        assert_eq!(
            ids("fix #4", &gitlab),
            vec![(
                "#4".to_string(),
                "https://gitlab.com/g/p/-/issues/4".to_string()
            )]
        );
    }

    #[test]
    fn trailers_are_stripped() {
        let cases = [
            (
                "Fix X\n\nBody.\n\nSigned-off-by: A <a@x>\nCo-authored-by: B <b@x>\n",
                "Fix X\n\nBody.\n",
            ),
            (
                "Fix X\n\nReviewed-by: A\n  continued\n(cherry picked from commit abc123)\n",
                "Fix X\n",
            ),
            // Prose in the last paragraph: nothing is a trailer.
            (
                "Fix X\n\nSee: the notes.\nThis is prose.\n",
                "Fix X\n\nSee: the notes.\nThis is prose.\n",
            ),
            ("Fix X\n", "Fix X\n"),
            (
                "Signed-off-by: only a subject\n",
                "Signed-off-by: only a subject\n",
            ),
        ];
        for (msg, want) in cases {
            assert_eq!(strip_trailers(msg), want, "{msg:?}");
        }
    }

    #[test]
    fn ids_and_names() {
        assert_eq!(id_prefix("pallets/click"), "pallets__click");
        assert_eq!(id_prefix("acme"), "acme");
        assert_eq!(
            owner_repo("https://github.com/pallets/click.git").as_deref(),
            Some("pallets/click")
        );
        assert_eq!(owner_repo("https://github.com/pallets"), None);
        assert_eq!(Forge::of_host("github.com"), Some(Forge::Github));
        assert_eq!(Forge::of_host("gitlab.gnome.org"), Some(Forge::Gitlab));
        assert_eq!(Forge::of_host("example.org"), None);
    }
}
