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
    /// Where to write the recipe (default: <repository's name>.yaml here; `-`: standard
    /// output, what was inferred then goes to standard error).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Replace an existing recipe file.
    #[arg(long)]
    force: bool,
    /// Print what was inferred as JSON instead of lines.
    #[arg(long)]
    json: bool,
    /// Python environment: `auto` infers each commit's own (interpreter, dependencies
    /// pinned to its date, layout); `fixed` writes one install line of today's
    /// dependencies for every commit.
    #[arg(long, value_enum, default_value_t = EnvMode::Auto)]
    env: EnvMode,
}

/// How `init` writes a Python suite's environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EnvMode {
    /// `python: auto`.
    Auto,
    /// One install line.
    Fixed,
}

/// Run `hunkgen init`.
pub fn run(args: InitArgs) -> anyhow::Result<()> {
    let inf = init::infer(&args.repository, args.env == EnvMode::Auto)?;
    let path = args
        .output
        .unwrap_or_else(|| PathBuf::from(format!("{}.yaml", inf.name)));
    let text = init::render(&inf, &init::repo_path_for(&path, &args.repository));
    // The recipe must load as `hunkgen build` will load it before it is written.
    crate::recipe::parse(&text, &path).context("the inferred recipe does not parse (a bug)")?;
    if path.as_os_str() == "-" {
        std::io::stdout().lock().write_all(text.as_bytes())?;
        let mut err = std::io::stderr().lock();
        for l in &inf.inferred {
            writeln!(err, "inferred: {l}")?;
        }
        for l in &inf.not_inferred {
            writeln!(err, "not inferred: {l}")?;
        }
        return Ok(());
    }
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
