//! The integration tests, in one binary so the suite links once.

mod common;

mod annotate_bleu;
mod annotate_build;
mod annotate_cli;
mod cache_processes;
mod cli;
mod commit_rules;
mod compare;
mod demo_dataset;
mod demo_repo;
mod deploy;
mod diff_d4j;
mod diff_errors;
mod diff_oracle;
mod diff_prop;
mod evaluate;
mod evaluate_d4j;
mod git_history;
mod github;
mod golden;
mod hunk4j;
mod mcp;
mod report;
mod roles;
mod rough_edges;
mod run;
mod schema;
mod shard;
mod shard_tasks;
mod states;
mod swebench_grader;
mod swebench_io;
mod syntax_dast;
mod syntax_oracle;
mod validate;
