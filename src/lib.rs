//! hunkgen: build program-repair benchmarks from real bug-fix histories.
#![warn(missing_docs)]

pub mod annotate;
pub mod classify;
pub mod diff;
pub mod progress;
pub mod source;
pub mod syntax;
