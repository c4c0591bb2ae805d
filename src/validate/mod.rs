//! Golden-test validation: run test suites in sandboxes, parse their reports, label tests.
//!
//! `apply` puts patches into working copies (exactly, or for predictions with a 3-way
//! merge, offset and fuzz); `runner` starts this module's processes (with `git/command.rs`
//! for git, the only places in hunkgen that spawn them); `env` builds cached Python (uv)
//! and Java (javac + jars) environments through it; `defects4j` checks out, compiles and
//! tests Defects4J bugs through Defects4J itself, in the sandbox; `parse` turns JUnit XML,
//! pytest and Defects4J outputs into per-test statuses or an infrastructure failure;
//! `select` picks the test files a suite runs (never an empty selection as "everything");
//! `golden` labels tests (f2p, p2p, ...) across before/after reruns and grades
//! predictions with SWE-bench's rules. ARCHITECTURE §5.

pub mod apply;
pub mod defects4j;
pub mod env;
pub mod golden;
pub mod new_api;
pub mod parse;
pub mod runner;
pub mod select;
pub mod stage;

pub use golden::{Label, Outcome, Resolution};
pub use parse::{InfraFailure, InfraKind, RunResult, TestResults, TestStatus};
pub use runner::{
    Command, ExitKind, RunError, RunOutcome, RunSpec, Runner, Sandbox, SandboxPolicy,
};
