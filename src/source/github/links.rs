//! Which issues a pull request closes: GitHub's closing keywords followed by `#N`, or by
//! a link to an issue of the same repository, in the PR body and its commit messages.

use crate::source::refs::closing_refs;

/// Issue numbers of `owner/repo` that `texts` close, in order of first mention, without
/// repeats and without `own` (a PR's own number in its commits' messages). The keywords
/// are the commit messages' own parser ([`closing_refs`]); `GH-N`, which GitHub does not
/// close by, is left out.
pub fn closed_issues(owner: &str, repo: &str, own: u64, texts: &[&str]) -> Vec<u64> {
    let same = |r: &Option<String>| {
        r.as_deref().is_none_or(|r| {
            r.split_once('/')
                .is_some_and(|(o, n)| o.eq_ignore_ascii_case(owner) && n.eq_ignore_ascii_case(repo))
        })
    };
    let mut out = Vec::new();
    for text in texts {
        for c in closing_refs(text) {
            if !c.gh_style && same(&c.repo) && c.number != own && !out.contains(&c.number) {
                out.push(c.number);
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
        // GitHub links GH-N but does not close by it.
        assert_eq!(closed("fixes GH-8"), Vec::<u64>::new());
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
