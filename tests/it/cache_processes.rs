//! The result cache shared by machines: several processes writing the same keys at once
//! never corrupt an entry, never block each other and leave no temporary file. The
//! writers are this test binary run again (src/ spawns processes only in src/validate/).
use hunkgen::cache::{Cache, Key};
use std::path::PathBuf;

/// The payload every writer stores under shared key `k` (large, so writes overlap).
fn shared_payload(k: u8) -> Vec<u8> {
    (0..300_000u32)
        .map(|i| (i.wrapping_mul(31) as u8) ^ k)
        .collect()
}

const WRITER_ENV: &str = "HUNKGEN_CACHE_TEST_WRITER_DIR";
const PROCESS_TEST: &str =
    "cache_processes::concurrent_processes_writing_the_same_keys_never_corrupt_them";

#[test]
fn concurrent_processes_writing_the_same_keys_never_corrupt_them() {
    // In a child (this test binary run again with the variable set): write and read
    // the shared keys as fast as possible.
    if let Some(dir) = std::env::var_os(WRITER_ENV) {
        let cache = Cache::new(PathBuf::from(dir));
        for _ in 0..15 {
            for k in 0..12u8 {
                let key = Key::of(&[b"shared", &[k]]);
                cache.put(&key, &shared_payload(k)).expect("put");
                if let Some(got) = cache.get(&key) {
                    assert!(got == shared_payload(k), "a reader saw a corrupt entry");
                }
            }
        }
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let exe = std::env::current_exe().expect("test binary");
    let started = std::time::Instant::now();
    let children: Vec<std::process::Child> = (0..6)
        .map(|_| {
            std::process::Command::new(&exe)
                .args([PROCESS_TEST, "--exact", "--test-threads=1"])
                .env(WRITER_ENV, dir.path())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn a writer process")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("wait");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("1 passed"),
            "a writer failed or did not run: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Nobody waits for anybody: 6 × 180 writes of 300 kB finish well within this.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(120),
        "writers blocked: {:?}",
        started.elapsed()
    );
    let cache = Cache::new(dir.path());
    for k in 0..12u8 {
        let key = Key::of(&[b"shared", &[k]]);
        assert!(cache.get(&key) == Some(shared_payload(k)), "entry {k}");
    }
    // No temporary files left behind: only the 12 entries.
    let mut files = 0;
    for sub in std::fs::read_dir(dir.path()).expect("ls").flatten() {
        for f in std::fs::read_dir(sub.path()).expect("ls").flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            assert!(!name.starts_with('.'), "leftover temporary file {name}");
            files += 1;
        }
    }
    assert_eq!(files, 12);
}
