//! Exact patch application: every context and removed line must match at its stated line.
//!
//! No fuzz, and no offset search but where a patch's own tool allows it: hunkgen applies
//! golden patches to the very revision they were made from, so any mismatch means the
//! wrong base file and must be reported, never papered over. Defects4J applies its source
//! patches with `git apply`, which moves a hunk whose context matches exactly elsewhere
//! (Codec-12's, one line up); [`Placement::Offset`] does the same for trees derived from
//! such patches.

use std::fmt;

use super::model::{FileChange, FilePatch, LineKind, Patch};
use super::parse::quote;

/// A patch that does not apply, naming file, hunk, line and what differed, in one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {}{kind}", Place(self))]
pub struct ApplyError {
    /// The file patch's path (`FilePatch::path`).
    pub path: String,
    /// 1-based index of the hunk within the file patch, if the error is in a hunk.
    pub hunk: Option<usize>,
    /// That hunk's header, lossy, without terminator.
    pub header: Option<String>,
    /// 1-based line of the original file where the mismatch is, if any.
    pub line: Option<usize>,
    /// What went wrong (boxed to keep `Result`s small).
    pub kind: Box<ApplyErrorKind>,
}

/// The ways applying can fail, kept apart so callers can tell a wrong base from bad input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApplyErrorKind {
    /// A context or removed line differs from the file.
    #[error("expected {expected}, found {found}")]
    Mismatch {
        /// The patch's line, quoted (lossy, truncated).
        expected: String,
        /// The file's line, quoted, or `end of file`.
        found: String,
    },
    /// A hunk starts before the previous hunk ended, or past the end of the file.
    #[error("hunk starts at line {start} but {why}")]
    BadStart {
        /// Where the hunk wants to start (1-based, after the line for empty ranges).
        start: usize,
        /// Why that position is impossible.
        why: String,
    },
    /// A new-file patch was given a non-empty original.
    #[error("the patch creates the file but it already has {0} bytes")]
    NotNew(usize),
    /// A deletion patch left lines over: the file has more than the patch removes.
    #[error("the patch deletes the file but {0} lines are left after its hunks")]
    NotDeleted(usize),
    /// Binary patches carry no text hunks to apply, and no object store was given to
    /// take the new content from.
    #[error("binary patches cannot be applied")]
    Binary,
    /// A binary file whose new content (the blob its `index` line names) is not in the
    /// object store, as `git apply` refuses it.
    #[error("binary file: its new content (blob {0}) is not in the repository")]
    BinaryBlob(String),
    /// A binary file whose current content is not the blob the patch was made from.
    #[error("binary file: its content is not blob {0}, the one the patch changes")]
    BinaryBase(String),
    /// `apply_patch_to_files` could not get a file the patch modifies.
    #[error("the file does not exist")]
    Missing,
}

/// Formats the `hunk #i "@@ ... @@" line n: ` part of an [`ApplyError`].
struct Place<'a>(&'a ApplyError);

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(i) = self.0.hunk {
            write!(f, "hunk #{i}")?;
            if let Some(h) = &self.0.header {
                write!(f, " {h:?}")?;
            }
            f.write_str(": ")?;
        }
        if let Some(l) = self.0.line {
            write!(f, "line {l}: ")?;
        }
        Ok(())
    }
}

/// Split into lines, each keeping its `\n`; the last may lack one.
fn split_lines(data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::with_capacity(data.len() / 32 + 1);
    let mut start = 0;
    for (i, &b) in data.iter().enumerate() {
        if b == b'\n' {
            out.push(&data[start..=i]);
            start = i + 1;
        }
    }
    if start < data.len() {
        out.push(&data[start..]);
    }
    out
}

/// Where a hunk may apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// At its stated line only.
    Exact,
    /// As `git apply` does: at its stated line, else at the nearest line (after the
    /// previous hunk) where every context and removed line matches exactly; no fuzz.
    Offset,
}

/// Apply one file patch to `original` (empty for a new file) with exact context checks,
/// because hunkgen derives buggy files from fixed ones and must not guess.
pub fn apply_file(fp: &FilePatch, original: &[u8]) -> Result<Vec<u8>, ApplyError> {
    apply_file_placed(fp, original, Placement::Exact)
}

/// The lines a hunk expects in the original (context and removed), in order.
fn expected_lines(h: &super::model::Hunk) -> Vec<&[u8]> {
    h.lines
        .iter()
        .filter(|l| l.kind != LineKind::Added)
        .map(|l| l.content.as_slice())
        .collect()
}

/// The nearest start at or after `cur` where `want` matches `lines` exactly, searching
/// outward from `at` (the smaller offset first, then the earlier line), as `git apply`.
fn nearest_match(lines: &[&[u8]], want: &[&[u8]], at: usize, cur: usize) -> Option<usize> {
    let fits = |pos: usize| {
        pos >= cur && pos + want.len() <= lines.len() && lines[pos..pos + want.len()] == *want
    };
    (0..=lines.len()).find_map(|d| {
        if at >= d && fits(at - d) {
            Some(at - d)
        } else if fits(at + d) {
            Some(at + d)
        } else {
            None
        }
    })
}

/// [`apply_file`] with a choice of [`Placement`].
pub fn apply_file_placed(
    fp: &FilePatch,
    original: &[u8],
    placement: Placement,
) -> Result<Vec<u8>, ApplyError> {
    apply_file_at(fp, original, placement).map(|(out, _)| out)
}

/// Per hunk, the 0-based line it was applied at and the line its header states (the two
/// differ where [`Placement::Offset`] moved it).
type HunkStarts = Vec<(usize, usize)>;

/// [`apply_file_placed`], also giving each hunk's [`HunkStarts`].
fn apply_file_at(
    fp: &FilePatch,
    original: &[u8],
    placement: Placement,
) -> Result<(Vec<u8>, HunkStarts), ApplyError> {
    let err = |hunk: Option<usize>, line: Option<usize>, kind| ApplyError {
        kind: Box::new(kind),
        path: fp.path().to_string(),
        hunk,
        header: hunk.and_then(|i| {
            fp.hunks
                .get(i - 1)
                .map(|h| String::from_utf8_lossy(super::text::trim_eol(&h.header)).into_owned())
        }),
        line,
    };
    if fp.binary {
        return Err(err(None, None, ApplyErrorKind::Binary));
    }
    if fp.change == FileChange::Added && !original.is_empty() {
        return Err(err(None, None, ApplyErrorKind::NotNew(original.len())));
    }
    let lines = split_lines(original);
    let mut out = Vec::with_capacity(original.len() + 256);
    let mut cur = 0usize; // index of the next unconsumed original line
    let mut starts = Vec::with_capacity(fp.hunks.len());
    for (hi, h) in fp.hunks.iter().enumerate() {
        let hn = Some(hi + 1);
        // An empty old range `-a,0` inserts after line a; otherwise the hunk starts at a.
        let stated = if h.old_lines == 0 {
            h.old_start as usize
        } else {
            (h.old_start as usize).saturating_sub(1)
        };
        let mut at = stated;
        if placement == Placement::Offset && h.old_lines > 0 {
            if let Some(pos) = nearest_match(&lines, &expected_lines(h), at, cur) {
                at = pos;
            }
        }
        if h.old_lines > 0 && h.old_start == 0 {
            let why = "a non-empty range cannot start at line 0".to_string();
            return Err(err(hn, None, ApplyErrorKind::BadStart { start: 0, why }));
        }
        if at < cur {
            let why = format!("the previous hunk ended at line {cur}");
            return Err(err(
                hn,
                None,
                ApplyErrorKind::BadStart { start: at + 1, why },
            ));
        }
        if at > lines.len() {
            let why = format!("the file has only {} lines", lines.len());
            return Err(err(
                hn,
                None,
                ApplyErrorKind::BadStart { start: at + 1, why },
            ));
        }
        for l in &lines[cur..at] {
            out.extend_from_slice(l);
        }
        starts.push((at, stated));
        cur = at;
        for line in &h.lines {
            match line.kind {
                LineKind::Added => out.extend_from_slice(&line.content),
                LineKind::Context | LineKind::Removed => {
                    let found = lines.get(cur).copied();
                    if found != Some(line.content.as_slice()) {
                        let kind = ApplyErrorKind::Mismatch {
                            expected: quote_exact(&line.content),
                            found: found.map_or_else(|| "end of file".into(), quote_exact),
                        };
                        return Err(err(hn, Some(cur + 1), kind));
                    }
                    if line.kind == LineKind::Context {
                        out.extend_from_slice(&line.content);
                    }
                    cur += 1;
                }
            }
        }
    }
    if fp.change == FileChange::Deleted && cur < lines.len() {
        return Err(err(
            None,
            Some(cur + 1),
            ApplyErrorKind::NotDeleted(lines.len() - cur),
        ));
    }
    for l in &lines[cur..] {
        out.extend_from_slice(l);
    }
    Ok((out, starts))
}

/// `fp` with each hunk moved to where `git apply` places it in `original` (the nearest
/// exact match, [`Placement::Offset`]): its header's start lines shifted, its body
/// unchanged, so the rest of hunkgen can apply it exactly. Also the offset of each hunk
/// (0 where it was already in place). `Err` when it does not apply even so.
pub fn place_file(fp: &FilePatch, original: &[u8]) -> Result<(FilePatch, Vec<i64>), ApplyError> {
    let (_, starts) = apply_file_at(fp, original, Placement::Offset)?;
    let mut placed = fp.clone();
    let mut offsets = Vec::with_capacity(starts.len());
    for (h, (at, stated)) in placed.hunks.iter_mut().zip(starts) {
        let delta = at as i64 - stated as i64;
        offsets.push(delta);
        if delta != 0 {
            let shift = |n: u32| (i64::from(n) + delta).max(0) as u32;
            let (old, new) = (h.old_start, h.new_start);
            h.old_start = shift(old);
            h.new_start = shift(new);
            h.header = shifted_header(&h.header, old, h.old_start, new, h.new_start);
        }
    }
    Ok((placed, offsets))
}

/// A hunk header `@@ -a[,b] +c[,d] @@…` with `a` and `c` replaced, the rest as it was.
fn shifted_header(header: &[u8], old: u32, new_old: u32, new: u32, new_new: u32) -> Vec<u8> {
    let text = String::from_utf8_lossy(header);
    let Some(rest) = text.strip_prefix("@@ -") else {
        return header.to_vec();
    };
    let old_tail = rest.strip_prefix(&old.to_string()).unwrap_or(rest);
    let Some(plus) = old_tail.find(" +") else {
        return header.to_vec();
    };
    let (old_count, after) = old_tail.split_at(plus);
    let new_tail = after[2..]
        .strip_prefix(&new.to_string())
        .unwrap_or(&after[2..]);
    format!("@@ -{new_old}{old_count} +{new_new}{new_tail}").into_bytes()
}

/// Quote a line for messages, showing a missing final newline or a CR, which are the
/// differences that are otherwise invisible.
fn quote_exact(l: &[u8]) -> String {
    let mut q = quote(l);
    if l.ends_with(b"\r\n") {
        q.push_str(" (CRLF)");
    } else if !l.ends_with(b"\n") {
        q.push_str(" (no newline at end)");
    }
    q
}

/// Whether a file patch changes a submodule (gitlink, mode 160000) entry.
pub fn is_submodule(fp: &FilePatch) -> bool {
    fp.old_mode == Some(0o160000)
        || fp.new_mode == Some(0o160000)
        || fp
            .header
            .iter()
            .any(|l| l.starts_with(b"index ") && l.trim_ascii_end().ends_with(b" 160000"))
}

/// One file after [`apply_patch_to_files`]: its path and new content (`None`: deleted).
pub type AppliedFile = (String, Option<Vec<u8>>);

/// [`place_file`] over a whole patch, files fetched by `get(path)`: the patch as
/// `git apply` would place it, and per file the offsets of its hunks that moved
/// (`path: -1, +2`), empty when every hunk was in place.
pub fn place_patch(
    p: &Patch,
    get: impl Fn(&str) -> Option<Vec<u8>>,
) -> Result<(Patch, Vec<String>), ApplyError> {
    let mut placed = p.clone();
    let mut moved = Vec::new();
    for fp in &mut placed.files {
        if is_submodule(fp) || fp.change == FileChange::Added {
            continue;
        }
        let Some(original) = fp.old_path.as_deref().and_then(&get) else {
            continue;
        };
        let (file, offsets) = place_file(fp, &original)?;
        if offsets.iter().any(|&d| d != 0) {
            let list: Vec<String> = offsets.iter().map(|d| format!("{d:+}")).collect();
            moved.push(format!("{}: {}", fp.path(), list.join(", ")));
        }
        *fp = file;
    }
    Ok((placed, moved))
}

/// Apply a whole patch to files fetched by `get(path)`, so callers holding files in
/// memory (a git tree, a map) need no temp directory. Returns each touched path with
/// its new content, or `None` when the patch deletes it (a rename yields both).
pub fn apply_patch_to_files(
    p: &Patch,
    get: impl Fn(&str) -> Option<Vec<u8>>,
) -> Result<Vec<AppliedFile>, ApplyError> {
    apply_patch_to_files_placed(p, get, Placement::Exact)
}

/// [`apply_patch_to_files`] with a choice of [`Placement`].
pub fn apply_patch_to_files_placed(
    p: &Patch,
    get: impl Fn(&str) -> Option<Vec<u8>>,
    placement: Placement,
) -> Result<Vec<AppliedFile>, ApplyError> {
    apply_patch_to_files_in(p, get, placement, &|_: &str| None)
}

/// A file patch's `index` line: its blob ids before and after, abbreviated or full.
pub fn index_ids(fp: &FilePatch) -> Option<(String, String)> {
    fp.header.iter().find_map(|l| {
        let rest = std::str::from_utf8(l.strip_prefix(b"index ")?).ok()?;
        let ids = rest.split_whitespace().next()?;
        let (old, new) = ids.split_once("..")?;
        Some((old.to_string(), new.to_string()))
    })
}

/// git's object id of a blob holding `content` (`git hash-object`).
pub fn blob_id(content: &[u8]) -> String {
    use sha1::Digest;
    let mut h = sha1::Sha1::new();
    h.update(format!("blob {}\0", content.len()).as_bytes());
    h.update(content);
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// A binary file's new content, as `git apply` finds it for a patch without binary data:
/// the blob its `index` line names, from `objects` (a repository), after checking that
/// the file is the blob the patch was made from.
fn binary_file(
    fp: &FilePatch,
    original: &[u8],
    objects: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> Result<Vec<u8>, ApplyErrorKind> {
    let Some((old, new)) = index_ids(fp) else {
        return Err(ApplyErrorKind::Binary);
    };
    let zero = |id: &str| id.bytes().all(|b| b == b'0');
    if fp.change != FileChange::Added && !zero(&old) && !blob_id(original).starts_with(&old) {
        return Err(ApplyErrorKind::BinaryBase(old));
    }
    if zero(&new) {
        return Ok(Vec::new());
    }
    objects(&new)
        .filter(|c| blob_id(c).starts_with(&new))
        .ok_or(ApplyErrorKind::BinaryBlob(new))
}

/// [`apply_patch_to_files_placed`], taking binary files' new content from `objects`
/// (blob id prefix → content), so a repository's own history can carry them.
pub fn apply_patch_to_files_in(
    p: &Patch,
    get: impl Fn(&str) -> Option<Vec<u8>>,
    placement: Placement,
    objects: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> Result<Vec<AppliedFile>, ApplyError> {
    let mut out: Vec<AppliedFile> = Vec::new();
    for fp in &p.files {
        if is_submodule(fp) {
            // A gitlink names a commit of another repository: no file content to write.
            continue;
        }
        let current = |path: &str| -> Option<Vec<u8>> {
            match out.iter().rev().find(|(p, _)| p == path) {
                Some((_, content)) => content.clone(),
                None => get(path),
            }
        };
        let missing = || ApplyError {
            path: fp.path().to_string(),
            hunk: None,
            header: None,
            line: None,
            kind: Box::new(ApplyErrorKind::Missing),
        };
        let original = match (fp.change, fp.old_path.as_deref()) {
            (FileChange::Added, _) | (_, None) => Vec::new(),
            (_, Some(old)) => current(old).ok_or_else(missing)?,
        };
        let result = match fp.binary {
            true => binary_file(fp, &original, objects).map_err(|kind| ApplyError {
                path: fp.path().to_string(),
                hunk: None,
                header: None,
                line: None,
                kind: Box::new(kind),
            })?,
            false => apply_file_placed(fp, &original, placement)?,
        };
        if fp.change == FileChange::Renamed {
            if let Some(old) = &fp.old_path {
                out.push((old.clone(), None));
            }
        }
        match (fp.change, &fp.new_path, &fp.old_path) {
            (FileChange::Deleted, _, Some(old)) | (_, None, Some(old)) => {
                out.push((old.clone(), None))
            }
            (_, Some(new), _) => out.push((new.clone(), Some(result))),
            (_, None, None) => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::*;

    fn one(p: &[u8]) -> FilePatch {
        parse(p).unwrap().files.remove(0)
    }

    #[test]
    fn offset_placement_moves_a_hunk_as_git_apply_does_and_exact_does_not() {
        // The hunk says line 3, but its lines are at line 2 (one line up).
        let fp = one(b"--- a/f\n+++ b/f\n@@ -3,2 +3,2 @@\n b\n-c\n+C\n");
        let original = b"a\nb\nc\nd\n";
        assert!(apply_file(&fp, original).is_err());
        assert_eq!(
            apply_file_placed(&fp, original, Placement::Offset).unwrap(),
            b"a\nb\nC\nd\n"
        );
        // No fuzz: a context line that matches nowhere still fails.
        let bad = one(b"--- a/f\n+++ b/f\n@@ -3,2 +3,2 @@\n x\n-c\n+C\n");
        assert!(apply_file_placed(&bad, original, Placement::Offset).is_err());
        // The nearest match wins: two places hold `b c`, the hunk says line 5.
        let twice = b"b\nc\nz\nb\nc\n";
        let near = one(b"--- a/f\n+++ b/f\n@@ -5,2 +5,2 @@\n b\n-c\n+C\n");
        assert_eq!(
            apply_file_placed(&near, twice, Placement::Offset).unwrap(),
            b"b\nc\nz\nb\nC\n"
        );
    }

    #[test]
    fn placing_rewrites_the_moved_hunks_headers_so_exact_application_agrees() {
        // Hunk 1 is one line up from where it says, hunk 2 (with a section name and
        // `,1`-less counts) where it says, in the offset's wake.
        let fp = one(
            b"--- a/f\n+++ b/f\n@@ -3,2 +3,3 @@ def f():\n b\n-c\n+C\n+C2\n@@ -6 +7 @@ tail\n-f\n+F\n",
        );
        let original = b"a\nb\nc\nd\ne\nf\n";
        assert!(apply_file(&fp, original).is_err());
        let (placed, offsets) = place_file(&fp, original).unwrap();
        assert_eq!(offsets, [-1, 0]);
        assert_eq!(placed.hunks[0].header, b"@@ -2,2 +2,3 @@ def f():\n");
        assert_eq!(placed.hunks[1].header, b"@@ -6 +7 @@ tail\n");
        assert_eq!(
            apply_file(&placed, original).unwrap(),
            apply_file_placed(&fp, original, Placement::Offset).unwrap()
        );
        // What does not apply even with offsets is still refused.
        let bad = one(b"--- a/f\n+++ b/f\n@@ -3,2 +3,2 @@\n x\n-c\n+C\n");
        assert!(place_file(&bad, original).is_err());
    }

    #[test]
    fn a_binary_file_takes_the_blob_its_index_line_names_and_checks_its_base() {
        let (old, new) = (b"\x00\x01old".as_slice(), b"\x89PNG\x00new".as_slice());
        let (oid, nid) = (blob_id(old), blob_id(new));
        // `git hash-object` of "hello\n", a fixed point of the id itself.
        assert_eq!(
            blob_id(b"hello\n"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        let store = |id: &str| (nid.starts_with(id)).then(|| new.to_vec());
        let modified = format!(
            "diff --git a/t.bin b/t.bin\nindex {}..{} 100644\nBinary files a/t.bin and b/t.bin differ\n",
            &oid[..7],
            &nid[..7]
        );
        let p = parse(modified.as_bytes()).unwrap();
        assert!(p.files[0].binary);
        let get = |path: &str| (path == "t.bin").then(|| old.to_vec());
        let got = apply_patch_to_files_in(&p, get, Placement::Exact, &store).unwrap();
        assert_eq!(got, vec![("t.bin".to_string(), Some(new.to_vec()))]);
        // Without an object store it is refused as before; a wrong base is named.
        let e = apply_patch_to_files(&p, get).unwrap_err();
        assert_eq!(*e.kind, ApplyErrorKind::BinaryBlob(nid[..7].to_string()));
        let other = |_: &str| Some(b"not the base".to_vec());
        let e = apply_patch_to_files_in(&p, other, Placement::Exact, &store).unwrap_err();
        assert_eq!(*e.kind, ApplyErrorKind::BinaryBase(oid[..7].to_string()));
        // A new file, and a deletion, which needs no store.
        let added = format!(
            "diff --git a/n.bin b/n.bin\nnew file mode 100644\nindex 0000000..{}\nBinary files /dev/null and b/n.bin differ\n",
            &nid[..7]
        );
        let p = parse(added.as_bytes()).unwrap();
        let got = apply_patch_to_files_in(&p, |_| None, Placement::Exact, &store).unwrap();
        assert_eq!(got, vec![("n.bin".to_string(), Some(new.to_vec()))]);
        let deleted = format!(
            "diff --git a/t.bin b/t.bin\ndeleted file mode 100644\nindex {}..0000000\nBinary files a/t.bin and /dev/null differ\n",
            &oid[..7]
        );
        let p = parse(deleted.as_bytes()).unwrap();
        let got = apply_patch_to_files_in(&p, get, Placement::Exact, &|_| None).unwrap();
        assert_eq!(got, vec![("t.bin".to_string(), None)]);
        // A store that answers a prefix with other content is not believed.
        let liar = |_: &str| Some(b"something else".to_vec());
        let e = apply_patch_to_files_in(
            &parse(added.as_bytes()).unwrap(),
            |_| None,
            Placement::Exact,
            &liar,
        )
        .unwrap_err();
        assert!(matches!(*e.kind, ApplyErrorKind::BinaryBlob(_)));
    }

    #[test]
    fn applies_modify_insert_and_no_newline() {
        let fp = one(b"--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+top\n@@ -2,2 +3,2 @@\n b\n-c\n\\ No newline at end of file\n+C\n");
        assert_eq!(apply_file(&fp, b"a\nb\nc").unwrap(), b"top\na\nb\nC\n");
        let back = apply_file(&fp.reversed(), b"top\na\nb\nC\n").unwrap();
        assert_eq!(back, b"a\nb\nc");
    }

    #[test]
    fn new_and_deleted_files() {
        let fp = one(b"diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+x\r\n+y\r\n");
        assert_eq!(apply_file(&fp, b"").unwrap(), b"x\r\ny\r\n");
        let e = apply_file(&fp, b"q").unwrap_err();
        assert_eq!(
            e.to_string(),
            "n: the patch creates the file but it already has 1 bytes"
        );
        let del = fp.reversed();
        assert_eq!(apply_file(&del, b"x\r\ny\r\n").unwrap(), b"");
        let e = apply_file(&del, b"x\r\ny\r\nz\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "n: line 3: the patch deletes the file but 1 lines are left after its hunks"
        );
    }

    #[test]
    fn mismatch_names_file_hunk_and_line() {
        let fp = one(
            b"--- a/src/F.java\n+++ b/src/F.java\n@@ -2,2 +2,2 @@ class F\n keep\n-old\n+new\n",
        );
        let e = apply_file(&fp, b"1\nkeep\nOLD\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "src/F.java: hunk #1 \"@@ -2,2 +2,2 @@ class F\": line 3: expected \"old\", found \"OLD\""
        );
        let e = apply_file(&fp, b"1\nkeep\r\nold\n").unwrap_err();
        assert!(
            e.to_string()
                .ends_with("expected \"keep\", found \"keep\" (CRLF)"),
            "{e}"
        );
        let e = apply_file(&fp, b"1\n").unwrap_err();
        assert!(
            e.to_string()
                .ends_with("line 2: expected \"keep\", found end of file"),
            "{e}"
        );
        let e = apply_file(&fp, b"").unwrap_err();
        assert!(
            e.to_string()
                .ends_with("hunk starts at line 2 but the file has only 0 lines"),
            "{e}"
        );
    }

    #[test]
    fn patch_to_files_with_rename_and_delete() {
        let p = parse(b"diff --git a/x b/y\nsimilarity index 50%\nrename from x\nrename to y\n--- a/x\n+++ b/y\n@@ -1 +1 @@\n-1\n+2\ndiff --git a/z b/z\ndeleted file mode 100644\n--- a/z\n+++ /dev/null\n@@ -1 +0,0 @@\n-z\n").unwrap();
        let got = apply_patch_to_files(&p, |path| match path {
            "x" => Some(b"1\n".to_vec()),
            "z" => Some(b"z\n".to_vec()),
            _ => None,
        })
        .unwrap();
        assert_eq!(
            got,
            vec![
                ("x".to_string(), None),
                ("y".to_string(), Some(b"2\n".to_vec())),
                ("z".to_string(), None)
            ]
        );
        let e = apply_patch_to_files(&p, |_| None).unwrap_err();
        assert_eq!(e.to_string(), "y: the file does not exist");
    }
}
