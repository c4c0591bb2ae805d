//! The diff engine against every real Defects4J patch: parse, print, reverse, apply.

use std::path::PathBuf;

use hunkgen::diff::{apply_file, parse, FileChange, FilePatch, LineKind};

/// Every `*.patch` under the Defects4J projects, sorted, with its bytes.
fn d4j_patches() -> Vec<(PathBuf, Vec<u8>)> {
    let root = crate::common::d4j_root();
    let mut out = Vec::new();
    for project in std::fs::read_dir(&root).expect("defects4j projects dir") {
        let dir = project.unwrap().path().join("patches");
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).unwrap() {
            let path = f.unwrap().path();
            if path.extension().is_some_and(|e| e == "patch") {
                let bytes = std::fs::read(&path).unwrap();
                out.push((path, bytes));
            }
        }
    }
    out.sort();
    out
}

/// Defects4J v2.0.1 has 864 bug ids with patches (835 active + 29 deprecated), each with
/// a src and a test patch, minus the ones without a test patch.
const EXPECTED_FILES: usize = 1714;

#[test]
fn every_d4j_patch_parses_prints_and_reverses_byte_exact() {
    let patches = d4j_patches();
    assert_eq!(patches.len(), EXPECTED_FILES);
    let (mut files, mut hunks, mut empty, mut non_utf8) = (0, 0, 0, 0);
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for (path, bytes) in &patches {
        let p = match parse(bytes) {
            Ok(p) => p,
            Err(e) => panic!("{}", e.with_file(path)),
        };
        assert_eq!(p.to_bytes(), *bytes, "{}: print∘parse", path.display());
        let r = p.reversed();
        let rb = r.to_bytes();
        assert_eq!(
            r.reversed().to_bytes(),
            *bytes,
            "{}: double reversal",
            path.display()
        );
        let reparsed = parse(&rb).unwrap_or_else(|e| panic!("{}", e.with_file(path)));
        assert_eq!(
            reparsed,
            r,
            "{}: reversed patch parses to itself",
            path.display()
        );
        for (f, g) in p.files.iter().zip(&r.files) {
            assert_eq!(f.old_path, g.new_path);
            assert_eq!(f.hunks.len(), g.hunks.len());
            for (h, k) in f.hunks.iter().zip(&g.hunks) {
                assert_eq!((h.old_start, h.old_lines), (k.new_start, k.new_lines));
                assert_eq!(h.added(), k.removed());
                assert_eq!(h.old_span(), k.new_span(), "{}", path.display());
            }
        }
        if bytes.is_empty() {
            empty += 1;
            assert!(p.files.is_empty());
        } else {
            assert!(!p.files.is_empty(), "{}: no files found", path.display());
        }
        if std::str::from_utf8(bytes).is_err() {
            non_utf8 += 1;
        }
        files += p.files.len();
        hunks += p.files.iter().map(|f| f.hunks.len()).sum::<usize>();
        for f in &p.files {
            *kinds.entry(format!("{:?}", f.change)).or_insert(0) += 1;
            let mut tag =
                |k: &str, on: bool| *kinds.entry(k.to_string()).or_insert(0) += usize::from(on);
            tag("mode change", f.old_mode.is_some() && f.new_mode.is_some());
            tag(
                "svn",
                f.header.first().is_some_and(|h| h.starts_with(b"Index: ")),
            );
            tag("no hunks", f.hunks.is_empty());
            tag("trailer", !f.trailer.is_empty());
            let lines = f.hunks.iter().flat_map(|h| &h.lines);
            tag("crlf", lines.clone().any(|l| l.content.ends_with(b"\r\n")));
            tag("no newline", lines.clone().any(|l| l.no_newline.is_some()));
        }
        *kinds.entry("preamble".into()).or_insert(0) += usize::from(!p.preamble.is_empty());
    }
    eprintln!("{kinds:?}");
    let expect = [
        ("Renamed", 29),
        ("Deleted", 105),
        ("Added", 9),
        ("mode change", 6),
        ("svn", 26),
        ("trailer", 2),
    ];
    for (k, n) in expect {
        assert_eq!(kinds.get(k).copied().unwrap_or(0), n, "{k}");
    }
    eprintln!(
        "{} patch files, {files} file patches, {hunks} hunks, {empty} empty, {non_utf8} non-UTF-8",
        patches.len()
    );
    assert_eq!(empty, 12);
    assert!(
        non_utf8 >= 2,
        "Lang 25 src and Compress 7 test are not UTF-8"
    );
    assert!(files > 1714 && hunks > files);
}

#[test]
fn non_utf8_patches_keep_their_bytes() {
    let root = crate::common::d4j_root();
    for rel in ["Lang/patches/25.src.patch", "Compress/patches/7.test.patch"] {
        let bytes = std::fs::read(root.join(rel)).unwrap();
        assert!(
            std::str::from_utf8(&bytes).is_err(),
            "{rel} is expected to be non-UTF-8"
        );
        let p = parse(&bytes).unwrap();
        let bad_line = p
            .files
            .iter()
            .flat_map(|f| &f.hunks)
            .flat_map(|h| &h.lines)
            .find(|l| std::str::from_utf8(&l.content).is_err());
        assert!(
            bad_line.is_some(),
            "{rel}: the non-UTF-8 bytes are in a hunk line"
        );
        assert_eq!(p.reversed().reversed().to_bytes(), bytes);
    }
}

/// A base file made of each hunk's old-side lines at their line numbers, filler between.
fn synthetic_base(fp: &FilePatch) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for h in &fp.hunks {
        let start = if h.old_lines == 0 {
            h.old_start
        } else {
            h.old_start - 1
        } as usize;
        while lines.len() < start {
            lines.push(format!("filler {}\n", lines.len() + 1).into_bytes());
        }
        for l in h.lines.iter().filter(|l| l.kind != LineKind::Added) {
            lines.push(l.content.clone());
        }
    }
    lines.concat()
}

/// Do the hunks' new-side starts follow from their old-side starts and the line-count
/// changes of the hunks before them? Hand-minimised Defects4J patches often do not.
fn consistent_starts(fp: &FilePatch) -> bool {
    let mut delta: i64 = 0;
    for h in &fp.hunks {
        let o = i64::from(h.old_start) + i64::from(h.old_lines == 0);
        let n = i64::from(h.new_start) + i64::from(h.new_lines == 0);
        if n - o != delta {
            return false;
        }
        delta += i64::from(h.new_lines) - i64::from(h.old_lines);
    }
    true
}

#[test]
fn d4j_patches_apply_and_unapply_on_synthetic_bases() {
    let (mut applied, mut binary, mut unapplied) = (0, 0, 0);
    let mut inconsistent = Vec::new();
    for (path, bytes) in d4j_patches() {
        let p = parse(&bytes).unwrap();
        for fp in &p.files {
            if fp.binary {
                binary += 1;
                continue;
            }
            let base = synthetic_base(fp);
            let new = apply_file(fp, &base).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            if fp.change == FileChange::Deleted {
                assert!(new.is_empty());
            }
            applied += 1;
            let name = format!("{} {}", path.display(), fp.path());
            if !consistent_starts(fp) {
                // The new-side line numbers are not where the new file has these lines,
                // so an exact reverse apply must refuse, naming the first hunk.
                let e = apply_file(&fp.reversed(), &new).unwrap_err();
                assert!(e.hunk.is_some(), "{name}: {e}");
                inconsistent.push(name);
                continue;
            }
            let back = apply_file(&fp.reversed(), &new)
                .unwrap_or_else(|e| panic!("{name}: reversed: {e}"));
            assert_eq!(back, base, "{name}");
            unapplied += 1;
        }
    }
    eprintln!(
        "{applied} file patches applied, {unapplied} un-applied, {binary} binary skipped, \
         {} with inconsistent new-side starts: {inconsistent:#?}",
        inconsistent.len()
    );
    assert!(applied > 1714);
    assert_eq!(applied, unapplied + inconsistent.len());
    assert_eq!(
        inconsistent.len(),
        5,
        "hand-minimised patches known to renumber badly"
    );
}

#[test]
fn gnu_epoch_timestamps_mark_deleted_files() {
    // Codec 14 deletes three resource files with `+++ b/x\t1969-12-31 16:00:00 -0800`
    // (GNU diff -N style) instead of /dev/null.
    let root = crate::common::d4j_root();
    let p = parse(&std::fs::read(root.join("Codec/patches/14.src.patch")).unwrap()).unwrap();
    let deleted: Vec<&str> = p
        .files
        .iter()
        .filter(|f| f.change == FileChange::Deleted)
        .map(|f| f.path())
        .collect();
    assert_eq!(deleted.len(), 3, "{deleted:?}");
    assert!(deleted
        .iter()
        .all(|d| d.ends_with("_lang.txt") && d.starts_with("src/main/")));
}
