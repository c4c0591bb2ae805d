//! Fuzz target: `parse` never panics, and what it accepts prints back byte-exact and
//! reverses as an involution.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = hunkgen::diff::parse(data) {
        assert_eq!(p.to_bytes(), data, "print∘parse identity");
        let r = p.reversed();
        assert_eq!(r.reversed().to_bytes(), data, "double reversal");
        let again = hunkgen::diff::parse(&r.to_bytes()).expect("a reversed patch parses");
        assert_eq!(again.to_bytes(), r.to_bytes());
    }
});
