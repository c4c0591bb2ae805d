//! git-compatible diff rendering: libgit2's diffs turned into the crate's [`Patch`] model
//! byte-equal to what `git diff` prints (git's rename scores, hunk headers and `index`
//! abbreviations), and the delta listing that splits weak renames as git does.
//!
//! [`Patch`]: crate::diff::Patch

use crate::diff::{FileChange, FilePatch, Hunk, Line, LineKind};
use git2::{Delta, Diff, DiffOptions, Oid, Repository};
use std::path::Path;

/// git's `diff` defaults where libgit2's differ: indent heuristic on, 3 lines of context.
pub(crate) fn diff_options() -> DiffOptions {
    let mut o = DiffOptions::new();
    o.context_lines(3).indent_heuristic(true);
    o
}

/// The path that classifies a delta: the new path, or the old one for deletions.
pub(crate) fn delta_path(delta: &git2::DiffDelta<'_>) -> String {
    let file = if delta.status() == Delta::Deleted {
        delta.old_file()
    } else {
        delta.new_file()
    };
    file.path_bytes()
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .unwrap_or_default()
}

/// The deltas of a diff as `(from the plain diff, delta index, classifying path)`: the
/// rename-detected diff's deltas, except weak renames (`weak`), which are taken split
/// from `plain` (the diff without renames) as a deletion and an addition, as git does.
pub(crate) fn diff_entries(
    diff: &Diff<'_>,
    weak: &[usize],
    plain: Option<&Diff<'_>>,
) -> Vec<(bool, usize, String)> {
    let mut entries: Vec<(bool, usize, String)> = diff
        .deltas()
        .enumerate()
        .filter(|(i, _)| !weak.contains(i))
        .map(|(i, d)| (false, i, delta_path(&d)))
        .collect();
    if let Some(plain) = plain {
        let split: Vec<(Option<&Path>, Option<&Path>)> = weak
            .iter()
            .filter_map(|&i| diff.get_delta(i))
            .map(|d| (d.old_file().path(), d.new_file().path()))
            .collect();
        for (i, delta) in plain.deltas().enumerate() {
            let hit = match delta.status() {
                Delta::Deleted => split.iter().any(|s| s.0 == delta.old_file().path()),
                Delta::Added => split.iter().any(|s| s.1 == delta.new_file().path()),
                _ => false,
            };
            if hit {
                entries.push((true, i, delta_path(&delta)));
            }
        }
        entries.sort_by(|a, b| a.2.cmp(&b.2));
    }
    entries
}

/// Indices of renamed deltas that git's own score would not pair (below its default
/// 50% `-M` threshold); only renames cost blob reads here, and they are rare.
pub(crate) fn weak_renames(repo: &Repository, diff: &Diff<'_>) -> Result<Vec<usize>, git2::Error> {
    let mut weak = Vec::new();
    for (i, d) in diff.deltas().enumerate() {
        if d.status() != Delta::Renamed || d.old_file().id() == d.new_file().id() {
            continue;
        }
        let old = repo.find_blob(d.old_file().id())?;
        let new = repo.find_blob(d.new_file().id())?;
        if git_similarity(old.content(), new.content()) < 50 {
            weak.push(i);
        }
    }
    Ok(weak)
}

/// Convert one libgit2 file patch into the crate's model, byte-exact with `git diff`:
/// the file header comes as one chunk (split into lines), hunk headers verbatim, and the
/// end-of-file markers (origins `=`, `>`, `<`, content `\n\ No newline at end of file\n`)
/// attach to the line before them, whose content then lacks a terminator.
pub(crate) fn file_patch(
    repo: &Repository,
    p: &mut git2::Patch<'_>,
    abbrev: u16,
) -> Result<FilePatch, git2::Error> {
    let delta = p.delta();
    let rename_score = if delta.status() == Delta::Renamed {
        let old = repo.find_blob(delta.old_file().id())?;
        let new = repo.find_blob(delta.new_file().id())?;
        Some(git_similarity(old.content(), new.content()))
    } else {
        None
    };
    let path_of = |f: git2::DiffFile<'_>| {
        f.path_bytes()
            .map(|b| String::from_utf8_lossy(b).into_owned())
    };
    let status = delta.status();
    let ids = (delta.old_file().id(), delta.new_file().id());
    let change = match status {
        Delta::Added => FileChange::Added,
        Delta::Deleted => FileChange::Deleted,
        Delta::Renamed => FileChange::Renamed,
        Delta::Copied => FileChange::Copied,
        _ => FileChange::Modified,
    };
    let old_path = if status == Delta::Added {
        None
    } else {
        path_of(delta.old_file())
    };
    let new_path = if status == Delta::Deleted {
        None
    } else {
        path_of(delta.new_file())
    };
    let mut fp = FilePatch {
        trailer: Vec::new(),
        header: Vec::new(),
        old_path,
        new_path,
        change,
        binary: false,
        old_mode: None,
        new_mode: None,
        hunks: Vec::new(),
    };
    p.print(&mut |_, hunk, line| {
        let content = line.content();
        match line.origin() {
            'F' => fp
                .header
                .extend(content.split_inclusive(|&b| b == b'\n').map(|l| {
                    match rename_score {
                        // libgit2 scores similarity its own way; print git's score instead.
                        Some(score) if l.starts_with(b"similarity index ") => {
                            format!("similarity index {score}%\n").into_bytes()
                        }
                        _ if l.starts_with(b"index ") => index_line(repo, ids, l, abbrev),
                        _ => l.to_vec(),
                    }
                })),
            'B' => {
                fp.binary = true;
                fp.header.push(content.to_vec());
            }
            'H' => {
                if let Some(h) = hunk {
                    fp.hunks.push(Hunk {
                        old_start: h.old_start(),
                        old_lines: h.old_lines(),
                        new_start: h.new_start(),
                        new_lines: h.new_lines(),
                        header: hunk_header(content),
                        lines: Vec::new(),
                    });
                }
            }
            origin @ (' ' | '+' | '-') => {
                let kind = match origin {
                    '+' => LineKind::Added,
                    '-' => LineKind::Removed,
                    _ => LineKind::Context,
                };
                if let Some(h) = fp.hunks.last_mut() {
                    h.lines.push(Line {
                        kind,
                        content: content.to_vec(),
                        no_newline: None,
                    });
                }
            }
            '=' | '>' | '<' => {
                if let Some(l) = fp.hunks.last_mut().and_then(|h| h.lines.last_mut()) {
                    l.no_newline = Some(content.to_vec());
                }
            }
            _ => {}
        }
        true
    })?;
    for h in &fp.header {
        let text = String::from_utf8_lossy(h);
        let text = text.trim_end();
        let mode = |prefix: &str| {
            text.strip_prefix(prefix)
                .and_then(|m| u32::from_str_radix(m.trim(), 8).ok())
        };
        if let Some(m) = mode("old mode ").or_else(|| mode("deleted file mode ")) {
            fp.old_mode = Some(m);
        }
        if let Some(m) = mode("new mode ").or_else(|| mode("new file mode ")) {
            fp.new_mode = Some(m);
        }
    }
    Ok(fp)
}

/// A hunk header as git prints it: libgit2 cuts the function context at 80 bytes but,
/// unlike git's xdiff, keeps whitespace left at the cut, so trailing whitespace of the
/// context is trimmed here.
fn hunk_header(raw: &[u8]) -> Vec<u8> {
    let body = raw.strip_suffix(b"\n").unwrap_or(raw);
    // `@@ -a,b +c,d @@` ends at the second `@@`.
    let Some(end) = body
        .get(2..)
        .and_then(|b| b.windows(2).position(|w| w == b"@@"))
        .map(|i| i + 4)
    else {
        return raw.to_vec();
    };
    let (ranges, func) = body.split_at(end);
    let func = func.trim_ascii_end();
    let mut out = ranges.to_vec();
    if func.len() > 1 {
        out.extend_from_slice(func);
    }
    out.push(b'\n');
    out
}

/// The `index A..B[ mode]` line with git's abbreviations: at least `abbrev` digits, longer
/// where the prefix is ambiguous in this repository (git's `find_unique_abbrev`).
fn index_line(repo: &Repository, ids: (Oid, Oid), line: &[u8], abbrev: u16) -> Vec<u8> {
    let Ok(odb) = repo.odb() else {
        return line.to_vec();
    };
    let min = usize::from(abbrev);
    let short = |id: Oid| -> String {
        let hex = id.to_string();
        if id.is_zero() {
            return hex[..min.min(hex.len())].to_string();
        }
        for len in min..hex.len() {
            let unique = Oid::from_str(&hex[..len])
                .map(|prefix| odb.exists_prefix(prefix, len).is_ok())
                .unwrap_or(true);
            if unique {
                return hex[..len].to_string();
            }
        }
        hex
    };
    // Keep what follows the two ids (a space and the mode, and the line end).
    let rest_at = line[6..]
        .iter()
        .position(|&b| b == b' ' || b == b'\n')
        .map_or(line.len(), |i| i + 6);
    let mut out = format!("index {}..{}", short(ids.0), short(ids.1)).into_bytes();
    out.extend_from_slice(&line[rest_at..]);
    out
}

/// The abbreviation length git uses for this repository: `core.abbrev` if set to a
/// number, otherwise "auto" = half the bit length of the packed-object count, rounded up,
/// at least 7 (git's `repo_approximate_object_count` counts packed objects only).
pub(crate) fn git_abbrev_len(repo: &Repository) -> u16 {
    if let Ok(v) = repo.config().and_then(|c| c.get_string("core.abbrev")) {
        if let Ok(n) = v.trim().parse::<u16>() {
            return n.clamp(4, 40);
        }
        if v.trim().eq_ignore_ascii_case("no") {
            return 40;
        }
    }
    let objects = repo.path().join("objects");
    let mut dirs = vec![objects.join("pack")];
    if let Ok(alt) = std::fs::read_to_string(objects.join("info/alternates")) {
        dirs.extend(
            alt.lines()
                .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
                .map(|l| objects.join(l.trim()).join("pack")),
        );
    }
    let mut count: u64 = 0;
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            if e.path().extension().is_some_and(|x| x == "idx") {
                count += pack_idx_count(&e.path()).unwrap_or(0);
            }
        }
    }
    let bits = 64 - count.leading_zeros();
    (bits.div_ceil(2) as u16).max(7)
}

/// Object count of a pack index (v2: magic, version, then 256 fan-out entries whose last
/// is the total; v1: the fan-out table comes first).
fn pack_idx_count(path: &Path) -> Option<u64> {
    use std::io::Read;
    let mut head = [0u8; 8 + 256 * 4];
    std::fs::File::open(path).ok()?.read_exact(&mut head).ok()?;
    let fanout_end = if head[..4] == [0xff, b't', b'O', b'c'] {
        8 + 256 * 4
    } else {
        256 * 4
    };
    let last = &head[fanout_end - 4..fanout_end];
    Some(u64::from(u32::from_be_bytes([
        last[0], last[1], last[2], last[3],
    ])))
}

/// git's rename score in percent (`diffcore-rename.c` `estimate_similarity` over
/// `diffcore-delta.c` span hashes), so `similarity index` lines match `git diff -M`.
fn git_similarity(old: &[u8], new: &[u8]) -> u32 {
    const MAX_SCORE: u64 = 60_000;
    let max_size = old.len().max(new.len()) as u64;
    if new.is_empty() || max_size == 0 {
        return 0;
    }
    if old == new {
        return 100;
    }
    let src = span_hashes(old);
    let dst = span_hashes(new);
    let copied: u64 = src
        .iter()
        .map(|(h, &n)| n.min(dst.get(h).copied().unwrap_or(0)))
        .sum();
    let score = copied * MAX_SCORE / max_size;
    (score * 100 / MAX_SCORE) as u32
}

/// Byte counts per span hash: spans end at a newline or after 64 bytes; a CR before LF is
/// ignored in text (git's `hash_chars`).
fn span_hashes(buf: &[u8]) -> std::collections::HashMap<u32, u64> {
    const HASHBASE: u32 = 107_927;
    let text = !buf[..buf.len().min(8000)].contains(&0);
    let mut map = std::collections::HashMap::new();
    let (mut a1, mut a2, mut n) = (0u32, 0u32, 0u64);
    for (i, &c) in buf.iter().enumerate() {
        if text && c == b'\r' && buf.get(i + 1) == Some(&b'\n') {
            continue;
        }
        let old1 = a1;
        a1 = (a1 << 7) ^ (a2 >> 25);
        a2 = (a2 << 7) ^ (old1 >> 25);
        a1 = a1.wrapping_add(u32::from(c));
        n += 1;
        if n < 64 && c != b'\n' {
            continue;
        }
        let h = a1.wrapping_add(a2.wrapping_mul(0x61)) % HASHBASE;
        *map.entry(h).or_insert(0) += n;
        n = 0;
        a1 = 0;
        a2 = 0;
    }
    if n > 0 {
        let h = a1.wrapping_add(a2.wrapping_mul(0x61)) % HASHBASE;
        *map.entry(h).or_insert(0) += n;
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunk_header_trims_like_git() {
        assert_eq!(
            hunk_header(b"@@ -1,2 +1,3 @@ class A {   \n"),
            b"@@ -1,2 +1,3 @@ class A {\n"
        );
        assert_eq!(hunk_header(b"@@ -1 +1 @@\n"), b"@@ -1 +1 @@\n");
        assert_eq!(hunk_header(b"@@ -1 +1 @@ \n"), b"@@ -1 +1 @@\n");
    }

    #[test]
    fn git_similarity_matches_git_scores() {
        // Identical content is 100; git scores the CRLF-insensitive span overlap.
        assert_eq!(git_similarity(b"a\nb\n", b"a\nb\n"), 100);
        assert_eq!(git_similarity(b"a\r\nb\r\n", b"a\nb\n"), 66); // checked with git 2.47
        assert_eq!(git_similarity(b"x\n", b""), 0);
    }
}
