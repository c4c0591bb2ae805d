//! The only module that uses git2: one repository cache, blob and tree reading, history
//! mining that prints like `git diff`, object verification, and typed errors.
//!
//! Everything git-shaped that other stages need goes through here, so libgit2's
//! process-wide settings and its non-`Sync` handles stay in one place. Besides
//! `validate`, this is the one module that starts processes: `command` runs the `git`
//! program itself, where libgit2 is slow or lacks the operation (packing with delta
//! reuse, `fsck`, `merge-file`, work-tree snapshots).

mod change;
mod command;
mod error;
pub mod gate;
pub mod history;
pub mod pull;
mod repo;
pub mod write;

pub(crate) use repo::open;

pub use change::formatting_detail;
pub use command::{diff_worktree, merge_file, snapshot_worktree, WorktreeDiff};
pub use error::{GitError, Libgit2};
pub use gate::{check_state, GateCheck, GateError, GateReport, GateSpec};
pub use history::{
    diff_all, mine, CommitRule, FixCommit, GitSourceConfig, MessageRules, MineRejection, Mined,
    WalkTotals,
};
pub use pull::{pull_diff, PullDiff};
pub use repo::{blob_by_prefix, dir_at_head, is_repository, read_blob, tree_id};
pub use write::{
    build_state_repo, commit_meta, commit_time, export_tree, is_ancestor, pack_history,
    pack_segment, patched_tree_files, tree_contains, CommitMeta, HistoryPack, Person, StateRepo,
};
