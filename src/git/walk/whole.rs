//! A whole walk kept in the memo. Commits are named by the hash of their content, so the
//! refs a walk starts from pin every commit it visits: while they point where they did
//! (and the rules, classifier, id length, verification and shallow boundary are the
//! same), the walk's answer is the same, and a warm rebuild reads it back without
//! opening a commit. What is stored was read (and verified, when asked) the first time.

use super::stored::{Head, Stored, Trees};
use super::{Examined, Outcome, ALL_BRANCHES};
use crate::cache::Key;
use crate::memo::Memo;
use git2::Repository;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// One commit of a stored walk: what examining it found, with a fix's commit fields.
#[derive(Serialize, Deserialize)]
enum Entry<R> {
    Merge,
    NoMessage,
    MissingParent(String),
    Examined(Stored<R>),
    Fix(Head, Trees<String>),
}

/// The memo key of a walk of `revs` in `r`: where the refs it starts from point, the
/// shallow boundary, and `fingerprint` (everything else that decides each commit);
/// `None` when a ref does not resolve (the walk itself then says why, and is not kept).
pub(super) fn key(r: &Repository, revs: Option<&str>, fingerprint: &str) -> Option<Key> {
    let glob = |pattern: &str, tips: &mut Vec<String>| -> Option<()> {
        for rf in r.references_glob(pattern).ok()? {
            let rf = rf.ok()?;
            let target = rf.resolve().ok()?.target()?;
            tips.push(format!("{} {target}", rf.name().ok()?));
        }
        Some(())
    };
    let mut tips = Vec::new();
    match revs {
        None => {
            if let Some(head) = r.head().ok().and_then(|h| h.target()) {
                tips.push(format!("HEAD {head}"));
            }
            glob("refs/tags/*", &mut tips)?;
        }
        Some(ALL_BRANCHES) => {
            glob("refs/heads/*", &mut tips)?;
            glob("refs/remotes/*", &mut tips)?;
        }
        Some(rev) => {
            let spec = r.revparse(rev).ok()?;
            let id = |o: Option<&git2::Object<'_>>| o.map(|o| o.id().to_string());
            tips.push(format!(
                "{rev} {:?} {:?} {}",
                id(spec.from()),
                id(spec.to()),
                spec.mode().bits()
            ));
        }
    }
    tips.sort();
    let shallow = std::fs::read(r.path().join("shallow")).unwrap_or_default();
    let tips = tips.join("\n");
    Some(Memo::key(
        "walk-whole-v1",
        &[tips.as_bytes(), &shallow, fingerprint.as_bytes()],
    ))
}

/// Keep a finished walk under `key`; a walk with an unreadable commit (read again next
/// time) or a patch the memo cannot hold is not kept.
pub(super) fn store<R: Clone + Serialize>(memo: &Memo, key: &Key, examined: &[Examined<R>]) {
    let mut entries = Vec::with_capacity(examined.len());
    for (id, outcome) in examined {
        let Ok(outcome) = outcome else {
            return;
        };
        let entry = match outcome {
            Outcome::Merge => Entry::Merge,
            Outcome::NoMessage => Entry::NoMessage,
            Outcome::MissingParent(why) => Entry::MissingParent(why.clone()),
            Outcome::Fix(f) => match Trees::text_of(f) {
                Some(trees) => Entry::Fix(Head::of_fix(f), trees),
                None => return,
            },
            other => match Stored::of(other) {
                Some(stored) => Entry::Examined(stored),
                None => return,
            },
        };
        entries.push((id, entry));
    }
    memo.put(key, &entries);
}

/// The walk kept under `key`, in its order; `None` for a miss or a stored patch that no
/// longer parses.
pub(super) fn load<R: Clone + DeserializeOwned>(
    memo: &Memo,
    key: &Key,
) -> Option<Vec<Examined<R>>> {
    let entries: Vec<(String, Entry<R>)> = memo.get(key)?;
    entries
        .into_iter()
        .map(|(id, entry)| {
            let outcome = match entry {
                Entry::Merge => Outcome::Merge,
                Entry::NoMessage => Outcome::NoMessage,
                Entry::MissingParent(why) => Outcome::MissingParent(why),
                Entry::Examined(stored) => stored.settled().ok()?,
                Entry::Fix(head, trees) => {
                    Outcome::Fix(Box::new(head.into_fix(id.clone(), trees.parsed()?)))
                }
            };
            Some((id, Ok(outcome)))
        })
        .collect()
}
