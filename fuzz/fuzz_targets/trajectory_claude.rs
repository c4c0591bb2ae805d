//! Fuzz target `trajectory_claude`: arbitrary bytes through [`entries::trajectory_claude`] never panic.
#![no_main]

#[path = "../entries.rs"]
#[allow(dead_code)]
mod entries;

libfuzzer_sys::fuzz_target!(|data: &[u8]| entries::trajectory_claude(data));
