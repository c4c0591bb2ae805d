//! Sources of bug fixes: each turns some history into forward fix patches.

pub mod git_history;
