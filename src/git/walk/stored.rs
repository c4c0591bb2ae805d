//! The walk's memo form of an examined commit ([`Stored`]) and the fix record built from
//! a commit and what its trees gave ([`Trees`], [`Head`], [`fix_commit`]), shared by a
//! fresh examination, one answered from the per-commit memo and a whole walk answered
//! from its memo (`whole.rs`).

use super::{empty_tree_id, FixCommit, Outcome};
use crate::diff::Patch;
use crate::model::SkipReason;
use std::collections::BTreeMap;

/// What a memo entry keeps of an examined commit: the outcome, with a fix's patches as
/// text (the commit's own fields are read again from the commit).
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) enum Stored<R> {
    NoCodeOrTests,
    FewHunks,
    Rejected(R, String),
    FormattingOnly(Vec<String>),
    Fix(Trees<String>),
}

impl<R: Clone> Stored<R> {
    /// The stored form of `outcome`; `None` when it is not kept (a patch that is not
    /// UTF-8 or does not parse back to itself is examined again each time).
    pub(super) fn of(outcome: &Outcome<R>) -> Option<Stored<R>> {
        Some(match outcome {
            Outcome::NoCodeOrTests => Stored::NoCodeOrTests,
            Outcome::FewHunks => Stored::FewHunks,
            Outcome::Rejected(r, why) => Stored::Rejected(r.clone(), why.clone()),
            Outcome::FormattingOnly(files) => Stored::FormattingOnly(files.clone()),
            Outcome::Fix(f) => Stored::Fix(Trees::text_of(f)?),
            Outcome::Merge | Outcome::NoMessage | Outcome::MissingParent(_) => return None,
        })
    }

    /// The outcome again, for `commit` with its decoded `message`; `None` when a stored
    /// patch no longer parses (examined afresh then).
    pub(super) fn into_outcome(
        self,
        commit: &git2::Commit<'_>,
        message: String,
    ) -> Result<Option<Outcome<R>>, git2::Error> {
        match self.settled() {
            Ok(outcome) => Ok(Some(outcome)),
            Err(f) => match f.parsed() {
                Some(trees) => Ok(Some(Outcome::Fix(Box::new(fix_commit(
                    commit, message, trees,
                )?)))),
                None => Ok(None),
            },
        }
    }

    /// The outcome of a commit that is no fix (nothing of the commit is needed); a fix's
    /// trees back as the error.
    pub(super) fn settled(self) -> Result<Outcome<R>, Box<Trees<String>>> {
        Ok(match self {
            Stored::NoCodeOrTests => Outcome::NoCodeOrTests,
            Stored::FewHunks => Outcome::FewHunks,
            Stored::Rejected(r, why) => Outcome::Rejected(r, why),
            Stored::FormattingOnly(files) => Outcome::FormattingOnly(files),
            Stored::Fix(f) => return Err(Box::new(f)),
        })
    }
}

/// What a fix's trees give ([`FixCommit`] less what the commit object says): its
/// patches (parsed, or as text in a memo entry), other files, hunk count, patch-id and
/// skips.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Trees<P = Patch> {
    pub(super) patch: P,
    pub(super) test_patch: P,
    pub(super) other_files: Vec<String>,
    pub(super) code_hunks: usize,
    pub(super) patch_id: Option<String>,
    pub(super) skips: BTreeMap<usize, SkipReason>,
}

impl Trees<String> {
    /// The memo form of what `f`'s trees gave: its patches as text; `None` when a patch
    /// is not UTF-8 or does not parse back to itself (examined again each time then).
    pub(super) fn text_of(f: &FixCommit) -> Option<Trees<String>> {
        let text = |p: &Patch| {
            let s = String::from_utf8(p.to_bytes()).ok()?;
            (crate::diff::parse(s.as_bytes()).ok()? == *p).then_some(s)
        };
        Some(Trees {
            patch: text(&f.patch)?,
            test_patch: text(&f.test_patch)?,
            other_files: f.other_files.clone(),
            code_hunks: f.code_hunks,
            patch_id: f.patch_id.clone(),
            skips: f.skips.clone(),
        })
    }

    /// The patches parsed again; `None` when a stored one no longer parses.
    pub(super) fn parsed(self) -> Option<Trees> {
        Some(Trees {
            patch: crate::diff::parse(self.patch.as_bytes()).ok()?,
            test_patch: crate::diff::parse(self.test_patch.as_bytes()).ok()?,
            other_files: self.other_files,
            code_hunks: self.code_hunks,
            patch_id: self.patch_id,
            skips: self.skips,
        })
    }
}

/// What a fix record takes from its commit object (the rest comes from its trees), kept
/// apart so a whole walk answered from the memo needs no object read.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Head {
    parent: String,
    message: String,
    author: String,
    time: i64,
    offset_minutes: i32,
}

impl Head {
    /// The commit's own fields, with its decoded `message`.
    fn of_commit(commit: &git2::Commit<'_>, message: String) -> Result<Head, git2::Error> {
        let parent = if commit.parent_count() == 1 {
            commit.parent_id(0)?.to_string()
        } else {
            empty_tree_id()
        };
        let author = commit.author();
        let time = commit.time();
        Ok(Head {
            parent,
            message,
            author: format!(
                "{} <{}>",
                String::from_utf8_lossy(author.name_bytes()),
                String::from_utf8_lossy(author.email_bytes())
            ),
            time: time.seconds(),
            offset_minutes: time.offset_minutes(),
        })
    }

    /// The head of an already built fix record.
    pub(super) fn of_fix(f: &FixCommit) -> Head {
        Head {
            parent: f.parent.clone(),
            message: f.message.clone(),
            author: f.author.clone(),
            time: f.time,
            offset_minutes: f.offset_minutes,
        }
    }

    /// The fix record of commit `id` with this head and what its trees gave.
    pub(super) fn into_fix(self, id: String, t: Trees) -> FixCommit {
        FixCommit {
            id,
            parent: self.parent,
            message: self.message,
            author: self.author,
            time: self.time,
            offset_minutes: self.offset_minutes,
            patch: t.patch,
            test_patch: t.test_patch,
            other_files: t.other_files,
            code_hunks: t.code_hunks,
            patch_id: t.patch_id,
            skips: t.skips,
        }
    }
}

/// The fix record of `commit`: its own fields and what its trees gave.
pub(super) fn fix_commit(
    commit: &git2::Commit<'_>,
    message: String,
    t: Trees,
) -> Result<FixCommit, git2::Error> {
    Ok(Head::of_commit(commit, message)?.into_fix(commit.id().to_string(), t))
}
