//! The fuzz corpus as a regression test: every input under `fuzz/seeds/<target>/` (the
//! handwritten starting points) and `fuzz/regression/<target>/` (the corpus the fuzzers
//! grew, minimised with `cargo fuzz cmin`, and any input that once crashed) goes
//! through the same entry point its fuzz target drives (`fuzz/entries.rs`), so `cargo
//! test` on stable Rust covers what `make fuzz` found, without libFuzzer.

#[path = "../../fuzz/entries.rs"]
mod entries;

use crate::common::manifest;
use std::fs;
use std::path::PathBuf;

/// The files of `dir`, sorted (none when it does not exist).
fn inputs(dir: PathBuf) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn every_fuzz_corpus_input_runs_through_its_reader_without_a_panic() {
    let fuzz = manifest().join("fuzz");
    for (name, entry) in entries::TARGETS {
        let seeds = inputs(fuzz.join("seeds").join(name));
        let corpus = inputs(fuzz.join("regression").join(name));
        assert!(!seeds.is_empty(), "{name}: no seed inputs");
        assert!(!corpus.is_empty(), "{name}: no minimised corpus");
        for file in seeds.iter().chain(&corpus) {
            let data = fs::read(file).expect("corpus file");
            // A panic names the input: the test harness prints it with the message.
            let run = std::panic::catch_unwind(|| entry(&data));
            assert!(run.is_ok(), "{name}: {} panics", file.display());
        }
    }
}
