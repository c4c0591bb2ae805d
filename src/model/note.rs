//! Typed per-instance notes: why an annotation field is null or approximate.
//!
//! Notes used to be free text that reports sorted back into kinds by substring; the kind
//! is now part of the contract, so reports count by kind and readers can filter.

use serde::{Deserialize, Serialize};

/// What kind of problem a note records (serialized in snake_case).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum NoteKind {
    /// The project has no repository: AST fields are null.
    NoRepository,
    /// The file is missing at the base revision.
    PathMissing,
    /// The base revision is not in the repository.
    UnknownRevision,
    /// The repository cannot be opened or read.
    RepositoryError,
    /// The patch does not apply to the base file.
    PatchDoesNotApply,
    /// The file is not UTF-8 and was decoded lossily.
    NotUtf8,
    /// The file is over the parse size limit: AST skipped.
    TooLarge,
    /// The parser produced error nodes; the tree was kept.
    SyntaxErrors,
    /// No grammar for the file type.
    NoGrammar,
    /// The file could not be read from a directory.
    ReadError,
    /// Some counted hunk's method is unknown, so single-file proximity is undecided.
    MethodsUnknown,
}

impl NoteKind {
    /// Every kind, in report order.
    pub const ALL: [NoteKind; 11] = [
        NoteKind::NoRepository,
        NoteKind::PathMissing,
        NoteKind::UnknownRevision,
        NoteKind::RepositoryError,
        NoteKind::PatchDoesNotApply,
        NoteKind::NotUtf8,
        NoteKind::TooLarge,
        NoteKind::SyntaxErrors,
        NoteKind::NoGrammar,
        NoteKind::ReadError,
        NoteKind::MethodsUnknown,
    ];

    /// What the kind means, for report tables.
    pub fn describe(self) -> &'static str {
        match self {
            NoteKind::NoRepository => "no repository (AST fields null)",
            NoteKind::PathMissing => "path missing at the revision",
            NoteKind::UnknownRevision => "revision not in the repository",
            NoteKind::RepositoryError => "repository cannot be read",
            NoteKind::PatchDoesNotApply => "patch does not apply (e.g. hunk outside the file)",
            NoteKind::NotUtf8 => "file not UTF-8 (decoded lossily)",
            NoteKind::TooLarge => "file over 5 MB (AST skipped)",
            NoteKind::SyntaxErrors => "syntax errors (tree kept)",
            NoteKind::NoGrammar => "no grammar for the file type",
            NoteKind::ReadError => "file cannot be read",
            NoteKind::MethodsUnknown => "single-file proximity undecided",
        }
    }

    /// Whether the note leaves AST-dependent fields null (rather than approximate).
    pub fn nulls_ast(self) -> bool {
        !matches!(
            self,
            NoteKind::NotUtf8 | NoteKind::SyntaxErrors | NoteKind::MethodsUnknown
        )
    }
}

/// One note on an instance: `{kind, path?, detail}`.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct Note {
    /// What kind of problem.
    pub kind: NoteKind,
    /// The repository-relative file it concerns, when it concerns one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Human-readable detail (the project, the revision, the parser's count).
    pub detail: String,
}

impl Note {
    /// A note about one file.
    pub fn file(kind: NoteKind, path: &str, detail: impl Into<String>) -> Self {
        Note {
            kind,
            path: Some(path.to_string()),
            detail: detail.into(),
        }
    }

    /// A note about the whole instance.
    pub fn instance(kind: NoteKind, detail: impl Into<String>) -> Self {
        Note {
            kind,
            path: None,
            detail: detail.into(),
        }
    }
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{p}: {}", self.detail),
            None => write!(f, "{}", self.detail),
        }
    }
}
