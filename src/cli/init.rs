//! `hunkgen init`.

use crate::init;
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

/// `hunkgen init`'s arguments.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// The git repository (a clone or a mirror) to mine.
    repository: PathBuf,
    /// Where to write the recipe (default: <repository's name>.yaml here).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Replace an existing recipe file.
    #[arg(long)]
    force: bool,
    /// Print what was inferred as JSON instead of lines.
    #[arg(long)]
    json: bool,
}

/// Run `hunkgen init`.
pub fn run(args: InitArgs) -> anyhow::Result<()> {
    let inf = init::infer(&args.repository)?;
    let path = args
        .output
        .unwrap_or_else(|| PathBuf::from(format!("{}.yaml", inf.name)));
    let text = init::render(&inf, &init::repo_path_for(&path, &args.repository));
    // The recipe must load as `hunkgen build` will load it before it is written.
    crate::recipe::parse(&text, &path).context("the inferred recipe does not parse (a bug)")?;
    init::write(&path, &text, args.force)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let v = serde_json::json!({ "recipe": path, "inference": inf });
        writeln!(out, "{v}")?;
        return Ok(());
    }
    for l in &inf.inferred {
        writeln!(out, "inferred: {l}")?;
    }
    for l in &inf.not_inferred {
        writeln!(out, "not inferred: {l}")?;
    }
    writeln!(
        out,
        "wrote {}; next: hunkgen build {}",
        path.display(),
        path.display()
    )?;
    Ok(())
}
