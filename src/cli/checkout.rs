//! `hunkgen checkout`.

use crate::model::{Scenario, StateKind};
use crate::states::{
    self,
    checkout::{self, Checkout},
};
use std::io::Write;
use std::path::PathBuf;

/// `hunkgen checkout`'s arguments.
#[derive(Debug, clap::Args)]
pub struct CheckoutArgs {
    /// The dataset directory (holding instances.jsonl and dataset.yaml).
    dataset: PathBuf,
    /// The instance id.
    id: String,
    /// Which state.
    #[arg(long, value_enum)]
    state: StateKind,
    /// Which scenario.
    #[arg(long, value_enum)]
    scenario: Scenario,
    /// Apply the golden test patch too (the "tests already present" variant).
    #[arg(long)]
    with_tests: bool,
    /// Partial states from DIR/<instance_id>.patch instead of a subset of the golden hunks.
    #[arg(long, value_name = "DIR")]
    partial_patches: Option<PathBuf>,
    /// The source repository (default: the one the dataset card records).
    #[arg(long, value_name = "PATH")]
    repo: Option<PathBuf>,
    /// Also write the manifest to this file.
    #[arg(long, value_name = "FILE")]
    manifest: Option<PathBuf>,
    /// Where the state goes; must not exist or be an empty directory.
    dir: PathBuf,
}

/// Run `hunkgen checkout`.
pub fn run(args: CheckoutArgs) -> anyhow::Result<()> {
    let CheckoutArgs {
        dataset,
        id,
        state,
        scenario,
        with_tests,
        partial_patches,
        repo,
        manifest,
        dir,
    } = args;
    let manifest = checkout::checkout(&Checkout {
        dataset,
        id,
        state,
        scenario,
        with_tests,
        partial_patches,
        repo,
        manifest,
        target: dir,
    })?;
    let mut out = std::io::stdout().lock();
    write!(out, "{}", states::manifest_yaml(&manifest))?;
    Ok(())
}
