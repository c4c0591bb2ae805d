//! Fuzz target `junit`: arbitrary bytes through [`entries::junit`] never panic.
#![no_main]

#[path = "../entries.rs"]
#[allow(dead_code)]
mod entries;

libfuzzer_sys::fuzz_target!(|data: &[u8]| entries::junit(data));
