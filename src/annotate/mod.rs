//! Annotation of hunks: tokenizer and BLEU for D_lex, divergence, proximity, extras.

pub mod bleu;
pub mod divergence;
pub mod engine;
pub mod proximity;
pub mod punkt;
pub mod single;
pub mod tokenize;
