//! Unified-diff model, parser, printer, reverser and exact applier.
//!
//! hunkgen owns its parser because general crates drop git's extended headers
//! (renames, modes, binary markers) and SVN-style headers that Defects4J uses.

mod model;

pub use model::{FileChange, FilePatch, Hunk, Line, LineKind, Patch, Span};
