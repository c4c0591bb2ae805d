//! Test fixtures: commits made in process with git2 (no `git` process, no work tree), for
//! the unit tests of modules that read revisions; the crate keeps git2 inside src/git.

use std::path::Path;

/// A commit holding exactly `files` (path, text), at `time`, on `parent` when given,
/// written to `update_ref` (`HEAD`) when given; its id.
pub(crate) fn commit(
    r: &git2::Repository,
    files: &[(&str, &str)],
    time: i64,
    parent: Option<git2::Oid>,
    update_ref: Option<&str>,
) -> git2::Oid {
    commit_saying(r, files, time, parent, update_ref, "m")
}

/// [`commit`] with its message.
fn commit_saying(
    r: &git2::Repository,
    files: &[(&str, &str)],
    time: i64,
    parent: Option<git2::Oid>,
    update_ref: Option<&str>,
    message: &str,
) -> git2::Oid {
    let sig = git2::Signature::new("T", "t@example.org", &git2::Time::new(time, 0)).expect("sig");
    let mut index = git2::Index::new().expect("index");
    for (path, text) in files {
        let id = r.blob(text.as_bytes()).expect("blob");
        let e = git2::IndexEntry {
            ctime: git2::IndexTime::new(0, 0),
            mtime: git2::IndexTime::new(0, 0),
            dev: 0,
            ino: 0,
            mode: 0o100644,
            uid: 0,
            gid: 0,
            file_size: text.len() as u32,
            id,
            flags: 0,
            flags_extended: 0,
            path: path.as_bytes().to_vec(),
        };
        index.add(&e).expect("add");
    }
    let tree = r
        .find_tree(index.write_tree_to(r).expect("tree"))
        .expect("tree");
    let parents: Vec<git2::Commit<'_>> = parent
        .map(|p| r.find_commit(p).expect("parent"))
        .into_iter()
        .collect();
    let refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
    r.commit(update_ref, &sig, &sig, message, &tree, &refs)
        .expect("commit")
}

/// A new repository in `dir` whose `HEAD` is one commit of `files` at `time`.
pub(crate) fn repository_with(dir: &Path, files: &[(&str, &str)], time: i64) {
    let r = git2::Repository::init(dir).expect("init");
    commit(&r, files, time, None, Some("HEAD"));
}

/// A commit holding exactly `files`, saying `message`, on `HEAD` of the repository at
/// `dir` (made first when there is none), for tests outside src/git; its id.
pub(crate) fn commit_on_head(dir: &Path, files: &[(&str, &str)], message: &str) -> String {
    let r = git2::Repository::open(dir)
        .or_else(|_| git2::Repository::init(dir))
        .expect("repository");
    let parent = r
        .head()
        .ok()
        .and_then(|h| h.peel_to_commit().ok())
        .map(|c| c.id());
    commit_saying(&r, files, 1_600_000_000, parent, Some("HEAD"), message).to_string()
}
