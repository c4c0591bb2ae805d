//! `hunkgen annotate`: divergence and proximity of one patch against one tree.

use super::divergence::Profile;
use super::engine::{Annotator, BuggyFiles, HunkPlaceRecord};
use super::proximity::{self, HunkPlace, ProximityClass};
use super::tokenize::Tokenizer;
use crate::classify::Classifier;
use crate::diff::{self, apply_file, Patch};
use crate::extract::CountRules;
use crate::model::PairRecord;
use crate::source::files::{Tree, TreeFiles};
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
    pub place: HunkPlaceRecord,
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
    pub notes: Vec<String>,
}

/// Annotate the patch at `path` against `tree`.
pub fn annotate_patch_file(
    path: &Path,
    tree: Tree,
    reversed: bool,
    profile: Profile,
    lambda: Option<u32>,
) -> Result<SingleReport, SingleError> {
    let bytes = std::fs::read(path).map_err(|source| SingleError::Read {
        path: path.display().to_string(),
        source,
    })?;
    let parsed = diff::parse(&bytes).map_err(|e| e.with_file(path))?;
    let (forward, to_buggy): (Patch, Option<&Patch>) = if reversed {
        (parsed.reversed(), Some(&parsed))
    } else {
        (parsed.clone(), None)
    };
    let files = TreeFiles { tree, to_buggy };
    // The forward patch must apply to the buggy files: a mismatch means the wrong tree.
    for fp in forward.files.iter().filter(|f| !f.hunks.is_empty()) {
        let Some(old) = fp.old_path.as_deref() else {
            continue;
        };
        let base = files.buggy(old).map_err(|why| SingleError::Apply {
            patch: path.display().to_string(),
            why: format!("{old}: {why}"),
        })?;
        apply_file(fp, &base).map_err(|e| SingleError::Apply {
            patch: path.display().to_string(),
            why: e.to_string(),
        })?;
    }
    let tokenizer = Tokenizer::from_env()
        .map_err(|e| SingleError::Tokenizer(e.to_string()))?
        .unwrap_or_default();
    let annotator = Annotator::new(profile, tokenizer);
    let rules = CountRules {
        classifier: Classifier::default(),
        skip_created_files: false,
        skip_import_only_hunks: false,
    };
    let ann = annotator.annotate(&forward, &Patch::default(), &rules, &[], &files);
    let mut hunks: Vec<HunkRow> = Vec::new();
    let mut index = 0;
    let mut by_index = std::collections::HashMap::new();
    for fp in &forward.files {
        for h in &fp.hunks {
            by_index.insert(
                index,
                (super::engine::buggy_path(fp).to_string(), h.old_span()),
            );
            index += 1;
        }
    }
    let mut places = ann.places.clone();
    places.sort_by_key(|(_, p)| p.order);
    for (patch_index, place) in places {
        if let Some((file, span)) = by_index.get(&patch_index) {
            hunks.push(HunkRow {
                file: file.clone(),
                span: *span,
                place,
            });
        }
    }
    let depths: Vec<usize> = hunks.iter().map(|h| h.place.package.len()).collect();
    let lambda = lambda.unwrap_or_else(|| proximity::lambda_from_depths(&depths));
    let hp: Vec<HunkPlace> = hunks
        .iter()
        .map(|h| HunkPlace {
            file: h.file.clone(),
            method: h.place.method_lines,
        })
        .collect();
    let class = proximity::classify(&hp, lambda, ann.methods_known);
    let div = ann.divergence.unwrap_or(crate::model::Divergence {
        value: None,
        n: 0,
        profile: profile.name().into(),
        pairs: Vec::new(),
    });
    Ok(SingleReport {
        profile: profile.name().into(),
        n: div.n,
        divergence: div.value,
        proximity: class,
        lambda,
        hunks,
        pairs: div.pairs,
        notes: ann.notes,
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
