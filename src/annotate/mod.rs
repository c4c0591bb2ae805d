//! Annotation of hunks: divergence terms (D_lex here; D_ast and D_file join later).

pub mod bleu;
pub mod punkt;
pub mod tokenize;
