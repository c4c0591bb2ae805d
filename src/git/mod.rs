//! The git adapter, and the only module that uses git2: one repository cache, blob and
//! tree reading, the history walk that prints like `git diff`, object verification, and
//! typed errors. It reads git and decides nothing about what a fix is: the mining policy
//! lives in `source::rules` and reaches the walk as a [`walk::Policy`].
//!
//! Everything git-shaped that other stages need goes through here, so libgit2's
//! process-wide settings and its non-`Sync` handles stay in one place. Besides
//! `validate`, this is the one module that starts processes: `command` runs the `git`
//! program itself, where libgit2 is slow or lacks the operation (packing with delta
//! reuse, `fsck`, `merge-file`, work-tree snapshots).
//!
//! Files by job, each importing only those listed before it: `error` (typed errors),
//! `repo` (the handle cache and plain reads), `command` (the `git` program), `render`
//! (libgit2 diffs rendered byte-equal to `git diff`), `decode` (commit messages),
//! `verify` (object hashes), `change` (one change split by file class), `changelog`
//! (the changelog entries a commit adds), `walk` (the
//! history walk), `pull` (a pull request's change), `gate`, `write` and `edits` (states).

mod change;
pub mod changelog;
mod command;
mod decode;
pub mod edits;
mod error;
#[cfg(test)]
pub(crate) mod fixture;
pub mod gate;
mod pack;
pub mod pull;
mod render;
mod repo;
mod verify;
pub mod walk;
pub mod write;

pub use change::{formatting_detail, HunkRules};
pub use command::{diff_worktree, merge_file, snapshot_worktree, WorktreeDiff};
pub use edits::{export_edits, tree_edits, BaseTree};
pub use error::{GitError, Libgit2};
pub use gate::{check_state, history_touches, GateCheck, GateError, GateReport, GateSpec};
pub use pack::{pack_history, pack_segment, HistoryPack};
pub use pull::{pull_diff, PullDiff};
pub use repo::{
    blob_by_prefix, dir_at_head, is_repository, origin_url, read_blob, tree_id, tree_paths,
};
pub use walk::{FixCommit, WalkTotals};
pub use write::{
    build_state_repo, commit_id, commit_meta, commit_time, export_tree, is_ancestor,
    link_state_repo, nearest_tag, nearest_tag_memo, patched_tree_files, placed_patch,
    tree_contains, CommitMeta, FileEdit, Person, StateRepo,
};
