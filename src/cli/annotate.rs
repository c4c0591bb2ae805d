//! `hunkgen annotate`.

use crate::annotate::divergence::Profile;
use crate::annotate::proximity::PackageRule;
use crate::source::Tree;
use std::io::Write;
use std::path::PathBuf;

/// `hunkgen annotate`'s arguments.
#[derive(Debug, clap::Args)]
pub struct AnnotateArgs {
    /// The patch file (git or plain unified diff).
    patch: PathBuf,
    /// Directory holding the tree the patch applies to.
    #[arg(long, conflicts_with_all = ["repo", "rev"])]
    root: Option<PathBuf>,
    /// Git repository holding the tree (read from the object database, no checkout).
    #[arg(long, requires = "rev")]
    repo: Option<PathBuf>,
    /// Revision of --repo the patch applies to.
    #[arg(long, requires = "repo")]
    rev: Option<String>,
    /// The patch goes fixed → buggy (Defects4J); the tree is the fixed one.
    #[arg(long)]
    reversed: bool,
    /// Annotation profile (ARCHITECTURE §4).
    #[arg(long, value_enum, default_value_t = Profile::Hunk4j)]
    profile: Profile,
    /// λ for proximity (default ⌊median package depth of the patch's hunks / 2⌋).
    #[arg(long)]
    lambda: Option<u32>,
    /// How hunk packages are found: `modules` (Java `package`, Python dotted
    /// package), `directories` (HUNK4J: directories minus the first), or `auto`
    /// (directories with --reversed, i.e. Defects4J patches; else modules).
    #[arg(long, value_enum, default_value_t = PackageRule::Auto)]
    packages: PackageRule,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

/// Run `hunkgen annotate`.
pub fn run(args: AnnotateArgs) -> anyhow::Result<()> {
    let AnnotateArgs {
        patch,
        root,
        repo,
        rev,
        reversed,
        profile,
        lambda,
        packages,
        json,
    } = args;
    let tree = match (root, repo, rev) {
        (Some(root), _, _) => Some(Tree::Dir(root)),
        (None, Some(repo), Some(rev)) => Some(Tree::Git {
            repo,
            rev,
            prefixes: Vec::new(),
        }),
        _ => None,
    };
    let report = crate::annotate::single::annotate_patch_file(
        &patch, tree, reversed, profile, lambda, packages,
    )?;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        write!(out, "{}", report.to_table())?;
    }
    Ok(())
}
