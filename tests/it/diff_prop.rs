//! Property tests: libgit2 makes real diffs of random texts; we parse, print, apply, reverse.

use std::path::Path;

use hunkgen::diff::{apply_file, parse};
use proptest::prelude::*;

/// A text from a small alphabet (so diffs keep context), some lines CRLF, maybe no final EOL.
fn render(lines: &[(u8, bool)], final_eol: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for &(c, crlf) in lines {
        out.push(b'a' + c);
        out.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
    }
    if !final_eol && !out.is_empty() {
        out.pop();
    }
    out
}

#[derive(Debug, Clone)]
enum Edit {
    Delete(usize),
    Insert(usize, (u8, bool)),
    Replace(usize, (u8, bool)),
}

fn line() -> impl Strategy<Value = (u8, bool)> {
    (0u8..6, prop::bool::weighted(0.2))
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), line()).prop_map(|(i, l)| Edit::Insert(i, l)),
        (any::<usize>(), line()).prop_map(|(i, l)| Edit::Replace(i, l)),
    ]
}

fn apply_edits(old: &[(u8, bool)], edits: &[Edit]) -> Vec<(u8, bool)> {
    let mut new = old.to_vec();
    for e in edits {
        match *e {
            Edit::Delete(i) if !new.is_empty() => {
                let i = i % new.len();
                new.remove(i);
            }
            Edit::Insert(i, l) => {
                let i = i % (new.len() + 1);
                new.insert(i, l);
            }
            Edit::Replace(i, l) if !new.is_empty() => {
                let i = i % new.len();
                new[i] = l;
            }
            _ => {}
        }
    }
    new
}

fn git_diff(old: &[u8], new: &[u8], context: u32) -> Vec<u8> {
    let mut opts = git2::DiffOptions::new();
    opts.context_lines(context);
    let f = Path::new("dir/f.txt");
    let mut patch = git2::Patch::from_buffers(old, Some(f), new, Some(f), Some(&mut opts)).unwrap();
    patch.to_buf().unwrap().to_vec()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn libgit2_diffs_parse_print_apply_and_reverse(
        old_lines in prop::collection::vec(line(), 0..25),
        edits in prop::collection::vec(edit(), 0..8),
        old_eol in prop::bool::weighted(0.8),
        new_eol in prop::bool::weighted(0.8),
        context in 0u32..4,
    ) {
        let old = render(&old_lines, old_eol);
        let new = render(&apply_edits(&old_lines, &edits), new_eol);
        let text = git_diff(&old, &new, context);
        let p = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{}", String::from_utf8_lossy(&text))))?;
        prop_assert_eq!(p.to_bytes(), text.clone());
        if old == new {
            prop_assert!(p.files.is_empty());
            return Ok(());
        }
        prop_assert_eq!(p.files.len(), 1);
        let fp = &p.files[0];
        prop_assert_eq!(fp.path(), "dir/f.txt");
        let got = apply_file(fp, &old).map_err(|e| TestCaseError::fail(format!("{e}\n{}", String::from_utf8_lossy(&text))))?;
        prop_assert_eq!(&got, &new);
        let r = p.reversed();
        let back = apply_file(&r.files[0], &new).map_err(|e| TestCaseError::fail(format!("{e}\n{}", String::from_utf8_lossy(&r.to_bytes()))))?;
        prop_assert_eq!(&back, &old);
        prop_assert_eq!(r.reversed().to_bytes(), text);
        let rp = parse(&r.to_bytes()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(rp, r);
    }

    #[test]
    fn libgit2_agrees_on_hunk_ranges_of_reversed_diffs(
        old_lines in prop::collection::vec(line(), 0..25),
        edits in prop::collection::vec(edit(), 1..8),
        context in 0u32..4,
    ) {
        let old = render(&old_lines, true);
        let new = render(&apply_edits(&old_lines, &edits), true);
        let text = git_diff(&old, &new, context);
        let r = parse(&text).unwrap().reversed().to_bytes();
        // Our reversed patch must read the same in libgit2 as git's own diff new → old.
        let theirs = git2::Diff::from_buffer(&r).unwrap();
        let ours = parse(&r).unwrap();
        prop_assert_eq!(theirs.deltas().len(), ours.files.len());
        for (i, fp) in ours.files.iter().enumerate() {
            let gp = git2::Patch::from_diff(&theirs, i).unwrap().unwrap();
            prop_assert_eq!(gp.num_hunks(), fp.hunks.len());
            for (j, h) in fp.hunks.iter().enumerate() {
                let (gh, _) = gp.hunk(j).unwrap();
                prop_assert_eq!(
                    (gh.old_start(), gh.old_lines(), gh.new_start(), gh.new_lines()),
                    (h.old_start, h.old_lines, h.new_start, h.new_lines)
                );
            }
        }
    }
}

#[test]
fn generator_reaches_crlf_and_missing_final_newline() {
    let old = render(&[(0, true), (1, false), (2, false)], false);
    let new = render(&[(0, true), (3, false), (2, true)], true);
    assert_eq!(old, b"a\r\nb\nc");
    let text = git_diff(&old, &new, 3);
    let p = parse(&text).unwrap();
    let marker = p.files[0].hunks[0]
        .lines
        .iter()
        .filter(|l| l.no_newline.is_some())
        .count();
    assert_eq!(marker, 1, "{}", String::from_utf8_lossy(&text));
    assert_eq!(apply_file(&p.files[0], &old).unwrap(), new);
    assert_eq!(apply_file(&p.reversed().files[0], &new).unwrap(), old);
}
