//! Pure evaluation metrics (DESIGN §7): abstention, localization, binomial statistics,
//! per-group rates and paired comparisons of two summaries. Nothing here runs tests or
//! touches a repository; the evaluate orchestration calls these functions.

pub mod abstain;
pub mod rates;
pub mod stats;

pub use abstain::{abstains, effective_patch, DropReason, Effective};
pub use rates::rates;
pub use stats::{mcnemar_exact, wilson};
