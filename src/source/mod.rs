//! Sources of bug fixes: each turns some history into forward fix patches.

pub mod defects4j;
pub mod files;
pub mod git_history;
