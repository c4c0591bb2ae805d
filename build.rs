//! Computes `HUNKGEN_BUILD_ID`, a hash of the sources this binary is compiled from, so
//! results memoized on disk by one build (`src/memo.rs`) are never read by a build of
//! other code: any change under `src/` or to the locked dependencies gives a new id.

use std::path::{Path, PathBuf};

/// FNV-1a over 64 bits, twice with different offsets: no dependency, stable across
/// compilers, and enough to tell source trees apart.
struct Fnv([u64; 2]);

impl Fnv {
    fn new() -> Fnv {
        Fnv([0xcbf2_9ce4_8422_2325, 0x6c62_272e_07bb_0142])
    }
    fn update(&mut self, bytes: &[u8]) {
        for h in &mut self.0 {
            for &b in bytes {
                *h ^= u64::from(b);
                *h = h.wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-changed=Cargo.toml");
    let mut all = Vec::new();
    files(Path::new("src"), &mut all);
    all.push(PathBuf::from("Cargo.lock"));
    all.push(PathBuf::from("Cargo.toml"));
    all.sort();
    let mut h = Fnv::new();
    for p in &all {
        let bytes = std::fs::read(p).unwrap_or_default();
        h.update(p.to_string_lossy().as_bytes());
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    println!(
        "cargo:rustc-env=HUNKGEN_BUILD_ID={:016x}{:016x}",
        h.0[0], h.0[1]
    );
}
