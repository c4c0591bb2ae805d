//! `hunkgen mcp`.

use anyhow::Context;
use std::path::PathBuf;

/// `hunkgen mcp`'s arguments.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// The repository checkout the tools read (Java and Python files).
    #[arg(long, default_value = ".")]
    root: PathBuf,
}

/// Run `hunkgen mcp`.
pub fn run(args: McpArgs) -> anyhow::Result<()> {
    let McpArgs { root } = args;
    let mut repo = crate::mcp::tools::Repo::open(&root)
        .with_context(|| format!("{}: not a readable directory", root.display()))?;
    eprintln!("hunkgen mcp: serving {} on stdio", root.display());
    crate::mcp::serve(&mut repo, std::io::stdin().lock(), std::io::stdout().lock())?;
    Ok(())
}
