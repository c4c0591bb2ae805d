//! `hunkgen d4j-tool`: the agent's Defects4J build and test commands under `hunkgen run`
//! (the scripts `hunkgen run` writes call it; not for direct use).

use std::io::Write;
use std::path::PathBuf;

/// `hunkgen d4j-tool`'s arguments.
#[derive(Debug, clap::Args)]
pub struct D4jToolArgs {
    /// `compile`, `test` (the bug-exposing tests) or `test-all` (the whole suite).
    action: crate::run::d4j::ToolAction,
    /// The configuration `hunkgen run` wrote next to the scripts.
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
}

/// Run `hunkgen d4j-tool`: exits 0 when nothing failed, 1 when tests or the compilation
/// failed, 2 when the run timed out or gave no results.
pub fn run(args: D4jToolArgs) -> anyhow::Result<()> {
    let D4jToolArgs { action, config } = args;
    let mut out = std::io::stdout().lock();
    let code = crate::run::d4j::tool(&config, action, &mut out)?;
    out.flush()?;
    if code != 0 {
        std::process::exit(code);
    }
    Ok(())
}
