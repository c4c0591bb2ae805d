//! Fuzz target `recipe`: arbitrary bytes through [`entries::recipe`] never panic.
#![no_main]

#[path = "../entries.rs"]
#[allow(dead_code)]
mod entries;

libfuzzer_sys::fuzz_target!(|data: &[u8]| entries::recipe(data));
