//! Pure evaluation metrics (DESIGN §7): abstention, localization, binomial statistics,
//! per-group rates and paired comparisons of two summaries. Nothing here runs tests or
//! touches a repository; the evaluate orchestration calls these functions.

pub mod abstain;
pub mod compare;
pub mod localize;
pub mod rates;
pub mod stats;

pub use abstain::{abstains, effective_patch, DropReason, Effective};
pub use compare::{compare, read_summary, CompareError, Comparison, PairedMetric};
pub use localize::{
    file_scores, golden_hunks, golden_lines, hunks_touched, lines_touched, localized,
    parse_localizations, patched_files, read_localizations, scores, GoldenHunk, Localization,
    LocalizeError, Location,
};
pub use rates::rates;
pub use stats::{mcnemar_exact, wilson};
