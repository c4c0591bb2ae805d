//! Which issues a pull request closes: GitHub's closing keywords followed by `#N`, or by
//! a link to an issue of the same repository, in the PR body and its commit messages.

use regex::Regex;
use std::sync::OnceLock;

/// `close/closes/closed, fix/fixes/fixed, resolve/resolves/resolved`, an optional colon,
/// then `#N`, `owner/repo#N` or `https://host/owner/repo/issues/N`.
fn pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        // The pattern is a constant; a typo here fails every test at once.
        Regex::new(
            r"(?i)\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?):?\s+(?:https?://[^/\s]+/(?P<uo>[\w.-]+)/(?P<ur>[\w.-]+)/issues/(?P<un>\d+)\b|(?:(?P<so>[\w.-]+)/(?P<sr>[\w.-]+))?#(?P<sn>\d+)\b)",
        )
        .expect("closing-keyword pattern compiles")
    })
}

/// Issue numbers of `owner/repo` that `texts` close, in order of first mention, without
/// repeats and without `own` (a PR's own number in its commits' messages).
pub fn closed_issues(owner: &str, repo: &str, own: u64, texts: &[&str]) -> Vec<u64> {
    let same = |o: Option<regex::Match<'_>>, r: Option<regex::Match<'_>>| match (o, r) {
        (Some(o), Some(r)) => {
            o.as_str().eq_ignore_ascii_case(owner) && r.as_str().eq_ignore_ascii_case(repo)
        }
        _ => true,
    };
    let mut out = Vec::new();
    for text in texts {
        for c in pattern().captures_iter(text) {
            let (ok, n) = match (c.name("un"), c.name("sn")) {
                (Some(n), _) => (same(c.name("uo"), c.name("ur")), n),
                (None, Some(n)) => (same(c.name("so"), c.name("sr")), n),
                (None, None) => continue,
            };
            let Ok(n) = n.as_str().parse::<u64>() else {
                continue;
            };
            if ok && n != own && !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::closed_issues;

    fn closed(text: &str) -> Vec<u64> {
        closed_issues("acme", "widget", 99, &[text])
    }

    #[test]
    fn every_keyword_form_links() {
        for kw in [
            "close", "closes", "closed", "fix", "fixes", "fixed", "resolve", "resolves",
            "resolved", "Fixes", "CLOSES",
        ] {
            assert_eq!(closed(&format!("{kw} #12")), vec![12], "{kw}");
        }
        assert_eq!(closed("Fixes: #7"), vec![7]);
    }

    #[test]
    fn same_repository_urls_and_qualified_refs_link_others_do_not() {
        assert_eq!(
            closed("resolves https://github.com/acme/widget/issues/31 and fixes other/lib#4"),
            vec![31]
        );
        assert_eq!(closed("Closes Acme/Widget#5"), vec![5]);
        assert_eq!(
            closed("fixes https://github.com/other/lib/issues/8"),
            Vec::<u64>::new()
        );
    }

    #[test]
    fn mentions_without_keyword_and_near_words_do_not_link() {
        assert_eq!(
            closed("see #3; prefix #4; fixing #5; closer #6"),
            Vec::<u64>::new()
        );
        assert_eq!(closed("fixes #99 (the PR itself)"), Vec::<u64>::new());
    }

    #[test]
    fn order_of_first_mention_across_texts_without_repeats() {
        let got = closed_issues(
            "acme",
            "widget",
            1,
            &["Fixes #20. Also closes #3", "fix #20\n\nresolved #11"],
        );
        assert_eq!(got, vec![20, 3, 11]);
    }
}
