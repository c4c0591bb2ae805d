//! Golden-test validation: run test suites in sandboxes, parse their reports, label tests.
//!
//! `runner` is the only module of hunkgen that spawns processes; `env` builds cached
//! Python (uv) and Java (javac + jars) environments through it; `parse` turns JUnit XML,
//! pytest and Defects4J outputs into per-test statuses or an infrastructure failure;
//! `golden` labels tests (f2p, p2p, ...) across before/after reruns and grades
//! predictions with SWE-bench's rules. DESIGN §5.

pub mod dataset;
pub mod env;
pub mod golden;
pub mod parse;
pub mod revalidate;
pub mod runner;
pub mod stage;

pub use golden::{Label, Outcome, Resolution};
pub use parse::{InfraFailure, InfraKind, RunResult, TestResults, TestStatus};
pub use runner::{
    Command, ExitKind, RunError, RunOutcome, RunSpec, Runner, Sandbox, SandboxPolicy,
};
