//! Fuzz target `trajectory_codex`: arbitrary bytes through [`entries::trajectory_codex`] never panic.
#![no_main]

#[path = "../entries.rs"]
#[allow(dead_code)]
mod entries;

libfuzzer_sys::fuzz_target!(|data: &[u8]| entries::trajectory_codex(data));
