//! `hunkgen annotate`: divergence and proximity of one patch against one tree, through
//! the same extract and finishing steps as `hunkgen build`.

use super::divergence::Profile;
use super::engine::Annotator;
use super::proximity::{self, PackageRule};
use super::tokenize::Tokenizer;
use crate::classify::Classifier;
use crate::diff::{self, apply_file};
use crate::extract::{self, CountRules};
use crate::model::{HunkPlace, Note, PairRecord, ProximityClass, SourceKind};
use crate::source::files::buggy_files;
use crate::source::{Base, Candidate, Tree};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// Why a single-patch annotation could not run, as one line.
#[derive(Debug, thiserror::Error)]
pub enum SingleError {
    /// The patch file cannot be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The patch file.
        path: String,
        /// OS error.
        source: std::io::Error,
    },
    /// The patch does not parse.
    #[error(transparent)]
    Parse(#[from] diff::PatchFileError),
    /// The file parses but holds no hunk (plain text, an empty file).
    #[error("{0}: no diff hunks found (expected a unified diff with `@@` hunks)")]
    NoHunks(String),
    /// The patch does not apply to the given tree.
    #[error("{patch}: does not apply: {why}")]
    Apply {
        /// The patch file.
        patch: String,
        /// What did not match.
        why: String,
    },
    /// The tokenizer model could not be loaded.
    #[error("{0}")]
    Tokenizer(String),
}

/// One hunk in the report.
#[derive(Debug, Clone, Serialize)]
pub struct HunkRow {
    /// File path (buggy side).
    pub file: String,
    /// Changed-line span in the buggy file.
    pub span: diff::Span,
    /// Where the hunk sits.
    pub place: HunkPlace,
}

/// The whole single-patch report (`--json` prints it as is).
#[derive(Debug, Clone, Serialize)]
pub struct SingleReport {
    /// Profile used.
    pub profile: String,
    /// Number of counted code hunks.
    pub n: usize,
    /// Div(P), `null` when a same-file tree was unavailable.
    pub divergence: Option<f64>,
    /// Proximity class.
    pub proximity: Option<ProximityClass>,
    /// λ used.
    pub lambda: u32,
    /// Hunks in annotation order (pair indices refer to it).
    pub hunks: Vec<HunkRow>,
    /// Every pair i < j with its components.
    pub pairs: Vec<PairRecord>,
    /// Why anything is null or approximate.
    pub notes: Vec<Note>,
}

/// What `hunkgen annotate` is told when no tree is given.
pub const NO_TREE: &str =
    "no --root or --repo given: D_ast, methods and proximity need the buggy sources";

/// Annotate the patch at `path` against `tree` (`None`: what needs no sources only).
pub fn annotate_patch_file(
    path: &Path,
    tree: Option<Tree>,
    reversed: bool,
    profile: Profile,
    lambda: Option<u32>,
    packages: PackageRule,
) -> Result<SingleReport, SingleError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| SingleError::Read {
        path: shown.clone(),
        source,
    })?;
    let parsed = diff::parse(&bytes).map_err(|e| e.with_file(path))?;
    if parsed.files.iter().all(|f| f.hunks.is_empty()) {
        return Err(SingleError::NoHunks(shown));
    }
    let forward = if reversed {
        parsed.reversed()
    } else {
        parsed.clone()
    };
    let base = match tree {
        Some(tree) if reversed => Base::Fixed {
            tree,
            to_buggy: parsed,
        },
        Some(tree) => Base::Buggy(tree),
        None => Base::Missing {
            reason: NO_TREE.into(),
        },
    };
    // The forward patch must apply to the buggy files: a mismatch means the wrong tree.
    if !matches!(base, Base::Missing { .. }) {
        let files = buggy_files(&base);
        for fp in forward.files.iter().filter(|f| !f.hunks.is_empty()) {
            let Some(old) = fp.old_path.as_deref() else {
                continue;
            };
            let buggy = files.buggy(old).map_err(|why| SingleError::Apply {
                patch: shown.clone(),
                why: format!("{old}: {why}"),
            })?;
            apply_file(fp, &buggy).map_err(|e| SingleError::Apply {
                patch: shown.clone(),
                why: e.to_string(),
            })?;
        }
    }
    let tokenizer = Tokenizer::from_env()
        .map_err(|e| SingleError::Tokenizer(e.to_string()))?
        .unwrap_or_default();
    let mut annotator = Annotator::new(profile, tokenizer);
    // A reversed patch is Defects4J's: `auto` keeps HUNK4J's directory packages for it.
    annotator.packages = match packages {
        PackageRule::Auto if reversed => PackageRule::Directories,
        rule => rule,
    };
    let rules = CountRules {
        classifier: Classifier::default(),
        skip_created_files: false,
        skip_import_only_hunks: false,
    };
    let candidate = Candidate {
        id: shown.clone(),
        source: SourceKind::Git,
        repo: String::new(),
        project: String::new(),
        base_commit: String::new(),
        fix_commit: String::new(),
        environment_setup_commit: String::new(),
        problem_statement: String::new(),
        hints_text: String::new(),
        created_at: String::new(),
        version: String::new(),
        fail_to_pass: Vec::new(),
        pass_to_pass: Vec::new(),
        failures: Vec::new(),
        report: None,
        references: Vec::new(),
        patch: forward,
        test_patch: Default::default(),
        modified_classes: Vec::new(),
        base,
        skips: Default::default(),
        repo_commits: None,
    };
    let mut inst = [extract::instance(&candidate, &rules)];
    annotator.annotate_instance(&candidate, &rules, &mut inst[0]);
    let lambda = proximity::classify_all(&mut inst, lambda);
    let [inst] = inst;
    let mut hunks: Vec<HunkRow> = inst
        .hunks
        .into_iter()
        .filter_map(|h| {
            h.place.map(|place| HunkRow {
                file: h.file,
                span: h.span,
                place,
            })
        })
        .collect();
    hunks.sort_by_key(|h| h.place.order);
    let div = inst.divergence;
    Ok(SingleReport {
        profile: profile.name().into(),
        n: div.as_ref().map(|d| d.n).unwrap_or(0),
        divergence: div.as_ref().and_then(|d| d.value),
        proximity: inst.proximity.and_then(|p| p.class),
        lambda,
        hunks,
        pairs: div.map(|d| d.pairs).unwrap_or_default(),
        notes: inst.notes,
    })
}

impl SingleReport {
    /// Human-readable tables.
    pub fn to_table(&self) -> String {
        let mut out = String::new();
        let div = self
            .divergence
            .map(|d| format!("{d:.4}"))
            .unwrap_or_else(|| "n/a".into());
        let class = self.proximity.map(|c| c.name()).unwrap_or("undecided");
        let _ = writeln!(
            out,
            "profile {}: {} hunks, divergence {div} (max ln n = {:.4}), proximity {class} (λ = {})\n",
            self.profile,
            self.n,
            (self.n.max(1) as f64).ln(),
            self.lambda
        );
        let _ = writeln!(out, "| # | file | lines | method |");
        let _ = writeln!(out, "|---|---|---|---|");
        for (k, h) in self.hunks.iter().enumerate() {
            let _ = writeln!(
                out,
                "| {k} | {} | {}-{} | {} |",
                h.file,
                h.span.start,
                h.span.end,
                h.place.method.as_deref().unwrap_or("(outside methods)")
            );
        }
        let _ = writeln!(out, "\n| i | j | D_lex | D_ast | D_file | γ | Div |");
        let _ = writeln!(out, "|---|---|---|---|---|---|---|");
        let f = |v: Option<f64>| v.map(|x| format!("{x:.4}")).unwrap_or_else(|| "n/a".into());
        for p in &self.pairs {
            let _ = writeln!(
                out,
                "| {} | {} | {:.4} | {} | {:.4} | {} | {} |",
                p.i,
                p.j,
                p.d_lex,
                f(p.d_ast),
                p.d_file,
                p.gamma,
                f(p.div)
            );
        }
        for n in &self.notes {
            let _ = writeln!(out, "note: {n}");
        }
        out
    }
}
