//! hunkgen: build program-repair benchmarks from real bug-fix histories.
#![warn(missing_docs)]

pub mod annotate;
pub mod bugreports;
pub mod cache;
pub mod classify;
pub mod cli;
pub mod dataset;
pub mod diff;
pub mod evaluate;
pub mod extract;
pub mod git;
pub mod http;
pub mod init;
pub mod lock;
pub mod mcp;
pub mod memo;
pub mod model;
pub mod pipeline;
pub mod progress;
pub mod pyconfig;
pub mod recipe;
pub mod report;
pub mod run;
pub mod scratch;
pub mod shard;
pub mod source;
pub mod states;
pub mod stats;
pub mod syntax;
pub mod table;
pub mod validate;
