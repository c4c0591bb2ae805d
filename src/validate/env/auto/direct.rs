//! Direct references in old requirement files (`git+https://…#egg=name`,
//! `name @ https://…`): the name an index serves each under, and whether a failed
//! resolve was one of them failing to fetch, so the ladder can take the package from
//! the index instead.

use crate::init::requirement_name;

/// The name an index serves a direct reference under (`git+https://…#egg=name`,
/// `name @ git+https://…`), so a reference that cannot be fetched (a repository gone, or
/// no network but the registries) can be taken from the index instead; `None` for a
/// requirement the index answers already.
pub fn direct_reference_name(req: &str) -> Option<String> {
    let req = req.trim();
    if !req.contains("://") {
        return None;
    }
    let named = match req.split_once('@') {
        Some((left, _)) if !left.contains("://") && !left.contains('+') => left.trim(),
        _ => req
            .split_once("#egg=")
            .map(|(_, egg)| egg.split(['&', ' ', ';']).next().unwrap_or(egg))?,
    };
    let base = named.split('[').next().unwrap_or(named);
    (!base.is_empty() && requirement_name(base) == base).then(|| named.to_string())
}

/// Whether a failed resolve is a direct reference's fetch failing: git could not fetch,
/// or the log names the reference's address.
pub(super) fn direct_fetch_failed(log: &str, req: &str) -> bool {
    let url = req.trim();
    let url = url.split_once(" @ ").map_or(url, |(_, u)| u.trim());
    let url = url.split(['#', ' ', ';']).next().unwrap_or(url);
    let url = url
        .split_once('+')
        .filter(|(vcs, _)| !vcs.contains(':'))
        .map_or(url, |(_, u)| u);
    log.contains("Git operation failed") || log.contains(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The forms old requirement files write a direct reference in, and what is none.
    #[test]
    fn a_direct_reference_names_its_index_package() {
        let n = |r: &str| direct_reference_name(r);
        assert_eq!(
            n("git+https://github.com/Julian/betterpath#egg=betterpath").as_deref(),
            Some("betterpath")
        );
        assert_eq!(
            n("mock @ git+https://127.0.0.1:9/testing-cabal/mock").as_deref(),
            Some("mock")
        );
        assert_eq!(
            n("https://example.org/x-1.0.tar.gz#egg=x[extra]&subdirectory=y").as_deref(),
            Some("x[extra]")
        );
        assert_eq!(n("git+https://example.org/repo.git"), None, "no name given");
        assert_eq!(n("attrs>=19"), None);
        assert_eq!(n("pytest @ file:///tmp/x"), Some("pytest".into()));
    }

    /// A git failure, or a log naming the address, is the reference's fetch failing.
    #[test]
    fn a_fetch_failure_is_read_from_the_log() {
        let req = "git+https://github.com/Julian/betterpath#egg=betterpath";
        let git = "error: Git operation failed\n  cause: failed to fetch into: …";
        assert!(direct_fetch_failed(git, req));
        let named = "Failed to download `x @ https://example.org/x-1.0.tar.gz`";
        assert!(direct_fetch_failed(
            named,
            "x @ https://example.org/x-1.0.tar.gz"
        ));
        assert!(!direct_fetch_failed(
            "Because attrs was not found in the package registry",
            req
        ));
    }
}
