//! Unified-diff model, parser, printer, reverser and exact applier.
//!
//! hunkgen owns its parser because general crates drop git's extended headers
//! (renames, modes, binary markers) and SVN-style headers that Defects4J uses.

mod apply;
mod model;
mod parse;
mod reverse;
mod text;

pub use apply::{
    apply_file, apply_file_placed, apply_patch_to_files, apply_patch_to_files_in,
    apply_patch_to_files_placed, index_ids, place_file, place_patch, AppliedFile, ApplyError,
    ApplyErrorKind, Placement,
};
pub use model::{FileChange, FilePatch, Hunk, Line, LineKind, Patch, Span};
pub use parse::{parse, ParseError, ParseErrorKind, PatchFileError};
