//! Evaluation (ARCHITECTURE §7): pure metrics — abstention, localization, per-group rates and paired comparisons of two summaries — and the orchestration
//! (`score`) that applies predictions, runs the golden tests and writes the results.

pub mod abstain;
pub mod analytics;
pub mod attempts;
pub mod compare;
mod d4j;
mod error;
mod grading;
pub mod harness;
pub mod judge;
pub mod localize;
mod metrics;
pub mod misses;
pub mod predictions;
pub mod rates;
pub mod score;
pub mod study;
mod summary;
pub mod trajectory;

pub use abstain::{abstains, effective_patch, DropReason, Effective};
pub use compare::{compare, read_summary, CompareError, Comparison, PairedMetric};
pub use localize::{
    counts, file_scores, golden_hunks, golden_lines, golden_source_files, hunks_touched,
    lines_touched, localized, parse_localizations, patched_files, pooled_scores,
    read_localizations, scores, study_golden_files, GoldenHunk, Localization, LocalizeError,
    Location, RowError,
};
pub use metrics::AbstentionRule;
pub use rates::rates;
