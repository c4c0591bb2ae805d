//! Reversing patches (Defects4J ships them fixed → buggy), byte-exact and an involution.
//!
//! What reversing does, line by line:
//! - `diff --git a/X b/Y` → `diff --git a/Y b/X`, and `--- a/X`/`+++ b/Y` → `--- a/Y`/
//!   `+++ b/X`: paths (with any tab, timestamp or SVN `(revision N)` suffix) change sides
//!   while the `a/`/`b/` prefixes stay where they are, as `git diff -R` prints them; a
//!   `/dev/null` side takes the mirrored prefix (`--- /dev/null`/`+++ b/n` →
//!   `--- a/n`/`+++ /dev/null`). Without such prefixes (SVN, plain) the texts swap whole;
//! - `index A..B mode` → `index B..A mode`; `new file mode` ↔ `deleted file mode`;
//!   `old mode`/`new mode`, `rename from`/`rename to`, `copy from`/`copy to` swap values
//!   (lines keep their order); `Binary files X and Y differ` → `... Y and X ...`;
//!   the two blocks of a `GIT binary patch` swap (git writes forward then reverse data);
//! - `@@ -a,b +c,d @@ rest` → `@@ -c,d +a,b @@ rest`, each range keeping its own form
//!   (an omitted count stays omitted) and `rest` unchanged;
//! - body lines swap `+`/`-`; a change run made of one `-` block and one `+` block is
//!   reordered so the new `-` block comes first (as git prints it); runs that interleave
//!   more blocks only swap markers. `\ No newline at end of file` stays with its line.
//! - preamble, trailers, `Index:`/`=====`/`similarity index` lines and plain `diff ...`
//!   command lines are kept as they are.
//!
//! A copy (`copy from A`/`copy to B`) reverses to `copy from B`/`copy to A` with reversed
//! hunks: the textual mirror, kept so that double reversal is the identity. Its meaning
//! ("make A from B") is not the true inverse (which would delete B); callers that need to
//! undo a copy should delete the copy target instead.

use super::model::{FileChange, FilePatch, Hunk, Line, LineKind, Patch};
use super::text::{git_line_swap, parse_hunk_header, swap_paths, trim_eol};

impl Patch {
    /// The inverse patch (new → old), so Defects4J's fixed → buggy patches become forward.
    pub fn reversed(&self) -> Patch {
        Patch {
            preamble: self.preamble.clone(),
            files: self.files.iter().map(FilePatch::reversed).collect(),
        }
    }
}

impl FilePatch {
    /// This file's inverse patch; see the module docs for the exact header rules.
    pub fn reversed(&self) -> FilePatch {
        FilePatch {
            header: reverse_header(&self.header),
            old_path: self.new_path.clone(),
            new_path: self.old_path.clone(),
            change: match self.change {
                FileChange::Added => FileChange::Deleted,
                FileChange::Deleted => FileChange::Added,
                c => c,
            },
            binary: self.binary,
            old_mode: self.new_mode,
            new_mode: self.old_mode,
            hunks: self.hunks.iter().map(Hunk::reversed).collect(),
            trailer: self.trailer.clone(),
        }
    }
}

impl Hunk {
    /// This hunk's inverse: ranges swapped in the header, `+`/`-` swapped in the body.
    pub fn reversed(&self) -> Hunk {
        Hunk {
            old_start: self.new_start,
            old_lines: self.new_lines,
            new_start: self.old_start,
            new_lines: self.old_lines,
            header: reverse_hunk_header(&self.header),
            lines: reverse_lines(&self.lines),
        }
    }
}

fn reverse_hunk_header(h: &[u8]) -> Vec<u8> {
    let Some(hh) = parse_hunk_header(h) else {
        return h.to_vec();
    };
    let mut out = Vec::with_capacity(h.len());
    out.extend_from_slice(b"@@ -");
    out.extend_from_slice(&h[hh.new_range.clone()]);
    out.extend_from_slice(b" +");
    out.extend_from_slice(&h[hh.old_range.clone()]);
    out.extend_from_slice(&h[hh.new_range.end..]);
    out
}

fn flip(kind: LineKind) -> LineKind {
    match kind {
        LineKind::Added => LineKind::Removed,
        LineKind::Removed => LineKind::Added,
        LineKind::Context => LineKind::Context,
    }
}

/// Swap markers; a run `-A +B` becomes `-B +A` (old side first), other runs keep order.
fn reverse_lines(lines: &[Line]) -> Vec<Line> {
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        if lines[i].kind == LineKind::Context {
            out.push(lines[i].clone());
            i += 1;
            continue;
        }
        let start = i;
        while i < lines.len() && lines[i].kind != LineKind::Context {
            i += 1;
        }
        let run = &lines[start..i];
        let split = run
            .iter()
            .position(|l| l.kind != run[0].kind)
            .unwrap_or(run.len());
        // A last line without terminator (input cut mid-line) must stay last.
        let cut = run
            .last()
            .is_some_and(|l| l.no_newline.is_none() && !l.content.ends_with(b"\n"));
        let two_blocks = !cut && run[split..].iter().all(|l| l.kind != run[0].kind);
        let flipped = |l: &Line| Line {
            kind: flip(l.kind),
            content: l.content.clone(),
            no_newline: l.no_newline.clone(),
        };
        if two_blocks {
            out.extend(run[split..].iter().map(flipped));
            out.extend(run[..split].iter().map(flipped));
        } else {
            out.extend(run.iter().map(flipped));
        }
    }
    out
}

/// Keys whose values swap between a pair of header lines.
const PAIRS: [(&[u8], &[u8]); 5] = [
    (b"--- ", b"+++ "),
    (b"old mode ", b"new mode "),
    (b"rename from ", b"rename to "),
    (b"rename old ", b"rename new "),
    (b"copy from ", b"copy to "),
];

/// `f(x)` if `f` maps that back to `x`, else `x` unchanged. Splitting names out of
/// `diff --git A B` or `Binary files A and B differ` is ambiguous when names contain the
/// separator; this keeps every rewrite an involution, so double reversal is the identity
/// for any input (an ambiguous line is left as it is rather than split wrongly).
fn involutive<T: PartialEq + Clone>(x: &T, f: impl Fn(&T) -> T) -> T {
    let y = f(x);
    if f(&y) == *x {
        y
    } else {
        x.clone()
    }
}

fn reverse_header(header: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = header.to_vec();
    for (a, b) in PAIRS {
        let ia: Vec<usize> = (0..header.len())
            .filter(|&i| header[i].starts_with(a))
            .collect();
        let ib: Vec<usize> = (0..header.len())
            .filter(|&i| header[i].starts_with(b))
            .collect();
        if let ([ia], [ib]) = (ia.as_slice(), ib.as_slice()) {
            // The usual pair: swap values, keep the lines' order (`from` before `to`).
            // Each line keeps its own `\n` (the last input line may have none); a CR
            // travels with the value, so the split is never ambiguous.
            let (la, lb) = (&header[*ia], &header[*ib]);
            let value = |l: &[u8], key: &[u8]| {
                let v = &l[key.len()..];
                v.strip_suffix(b"\n").unwrap_or(v).to_vec()
            };
            let nl = |l: &[u8]| if l.ends_with(b"\n") { &b"\n"[..] } else { b"" };
            let (va, vb) = if a == b"--- " {
                swap_paths(&value(la, a), &value(lb, b))
            } else {
                (value(lb, b), value(la, a))
            };
            out[*ia] = [a, &va, nl(la)].concat();
            out[*ib] = [b, &vb, nl(lb)].concat();
        } else {
            // Odd headers (one side missing or repeated): swap the keys in place.
            for &i in &ia {
                out[i] = [b, &header[i][a.len()..]].concat();
            }
            for &i in &ib {
                out[i] = [a, &header[i][b.len()..]].concat();
            }
        }
    }
    let mut binary_at = None;
    for (i, l) in header.iter().enumerate() {
        if let Some(v) = l.strip_prefix(b"new file mode ") {
            out[i] = [b"deleted file mode ", v].concat();
        } else if let Some(v) = l.strip_prefix(b"deleted file mode ") {
            out[i] = [b"new file mode ", v].concat();
        } else if l.starts_with(b"diff --git ") {
            out[i] = reverse_git_line(l);
        } else if l.starts_with(b"index ") {
            out[i] = involutive(l, |l| reverse_index(l));
        } else if l.starts_with(b"Binary files ") {
            out[i] = involutive(l, |l| reverse_binary_files(l));
        } else if l.starts_with(b"GIT binary patch") {
            binary_at = Some(i + 1);
        }
    }
    if let Some(from) = binary_at {
        let blocks = involutive(&out[from..].to_vec(), |b| {
            let mut b = b.clone();
            swap_binary_blocks(&mut b);
            b
        });
        out.truncate(from);
        out.extend(blocks);
    }
    out
}

fn eol_of(l: &[u8]) -> &[u8] {
    &l[trim_eol(l).len()..]
}

fn reverse_git_line(l: &[u8]) -> Vec<u8> {
    match git_line_swap(trim_eol(&l[11..])) {
        Some(t) => [&l[..11], &t, eol_of(l)].concat(),
        None => l.to_vec(),
    }
}

/// `index A..B[ mode]` → `index B..A[ mode]`.
fn reverse_index(l: &[u8]) -> Vec<u8> {
    let body = trim_eol(&l[6..]);
    let end = body.iter().position(|&c| c == b' ').unwrap_or(body.len());
    let ids = &body[..end];
    let Some(dots) = ids.windows(2).position(|w| w == b"..") else {
        return l.to_vec();
    };
    [
        &l[..6],
        &ids[dots + 2..],
        b"..",
        &ids[..dots],
        &body[end..],
        eol_of(l),
    ]
    .concat()
}

/// `Binary files X and Y differ` → `Binary files Y and X differ`.
fn reverse_binary_files(l: &[u8]) -> Vec<u8> {
    let body = trim_eol(&l[13..]);
    let Some(names) = body.strip_suffix(b" differ") else {
        return l.to_vec();
    };
    let seps: Vec<usize> = names
        .windows(5)
        .enumerate()
        .filter(|(_, w)| *w == b" and ")
        .map(|(i, _)| i)
        .collect();
    let strip = |s: &[u8]| -> Vec<u8> {
        s.strip_prefix(b"a/")
            .or_else(|| s.strip_prefix(b"b/"))
            .unwrap_or(s)
            .to_vec()
    };
    let pick = seps
        .iter()
        .copied()
        .find(|&i| strip(&names[..i]) == strip(&names[i + 5..]))
        .or_else(|| {
            seps.iter().copied().find(|&i| {
                let t = &names[i + 5..];
                t.starts_with(b"a/") || t.starts_with(b"b/") || t == b"/dev/null"
            })
        })
        .or_else(|| seps.first().copied());
    let Some(i) = pick else {
        return l.to_vec();
    };
    [
        &l[..13],
        &names[i + 5..],
        b" and ",
        &names[..i],
        b" differ",
        eol_of(l),
    ]
    .concat()
}

/// Swap the forward and reverse `literal`/`delta` blocks that follow `GIT binary patch`.
fn swap_binary_blocks(lines: &mut [Vec<u8>]) {
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with(b"literal ") || l.starts_with(b"delta "))
        .map(|(i, _)| i)
        .collect();
    if starts.len() != 2 || starts[0] != 0 {
        return;
    }
    let second = starts[1];
    let tail_end = lines[second..]
        .iter()
        .position(|l| trim_eol(l).is_empty())
        .map(|p| second + p + 1)
        .unwrap_or(lines.len());
    if lines[..tail_end].iter().any(|l| !l.ends_with(b"\n")) {
        return; // cut input: an unterminated line must stay last
    }
    // Rotate [block1][block2] into [block2][block1] within 0..tail_end.
    lines[..tail_end].rotate_left(second);
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;

    fn rev(s: &[u8]) -> Vec<u8> {
        let p = parse(s).unwrap();
        let r = p.reversed();
        assert_eq!(r.reversed().to_bytes(), s, "double reversal");
        let again = parse(&r.to_bytes()).unwrap();
        assert_eq!(again, r, "reversed output parses back to the same patch");
        r.to_bytes()
    }

    #[test]
    fn git_headers_and_hunks() {
        let s = b"diff --git a/x b/y\nold mode 100644\nnew mode 100755\nsimilarity index 90%\nrename from x\nrename to y\nindex 1234567..89abcde 100644\n--- a/x\n+++ b/y\n@@ -1,3 +1 @@ fn f\n a\n-b\n-c\n@@ -10 +8,2 @@\n-d\n+e\n+f\n";
        let r = rev(s);
        assert_eq!(
            String::from_utf8_lossy(&r),
            "diff --git a/y b/x\nold mode 100755\nnew mode 100644\nsimilarity index 90%\nrename from y\nrename to x\nindex 89abcde..1234567 100644\n--- a/y\n+++ b/x\n@@ -1 +1,3 @@ fn f\n a\n+b\n+c\n@@ -8,2 +10 @@\n-e\n-f\n+d\n"
        );
    }

    #[test]
    fn prefixes_stay_positional_and_swapping_is_an_involution() {
        type Case<'a> = (&'a [u8], &'a [u8], &'a [u8], &'a [u8]);
        let cases: [Case; 5] = [
            (b"a/x", b"b/y", b"a/y", b"b/x"),
            (b"/dev/null", b"b/n", b"a/n", b"/dev/null"),
            (
                b"a/n\t2020-01-01",
                b"/dev/null",
                b"/dev/null",
                b"b/n\t2020-01-01",
            ),
            (
                b"s/A.java\t(revision 1)",
                b"s/A.java\t(working copy)",
                b"s/A.java\t(working copy)",
                b"s/A.java\t(revision 1)",
            ),
            (b"b/x", b"a/y", b"b/y", b"a/x"),
        ];
        for (x, y, wx, wy) in cases {
            let (rx, ry) = crate::diff::text::swap_paths(x, y);
            assert_eq!((&rx[..], &ry[..]), (wx, wy));
            let (bx, by) = crate::diff::text::swap_paths(&rx, &ry);
            assert_eq!((&bx[..], &by[..]), (x, y), "involution");
        }
    }

    #[test]
    fn copy_reverses_to_the_mirrored_copy() {
        let r = rev(b"diff --git a/x b/\"y z\"\nsimilarity index 80%\ncopy from x\ncopy to \"y z\"\n--- a/x\n+++ \"b/y z\"\n@@ -1 +1 @@\n-1\n+2\n");
        let p = parse(&r).unwrap();
        let f = &p.files[0];
        assert_eq!(f.change, super::FileChange::Copied);
        assert_eq!(
            (f.old_path.as_deref(), f.new_path.as_deref()),
            (Some("y z"), Some("x"))
        );
        assert!(String::from_utf8_lossy(&r)
            .contains("copy from \"y z\"\ncopy to x\n--- \"a/y z\"\n+++ b/x\n"));
    }

    #[test]
    fn new_file_svn_binary_no_newline() {
        let r = rev(b"diff --git a/n b/n\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n");
        assert_eq!(
            String::from_utf8_lossy(&r),
            "diff --git a/n b/n\ndeleted file mode 100644\nindex 1111111..0000000\n--- a/n\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n\\ No newline at end of file\n"
        );
        let r = rev(b"Index: s/A.java\n====\n--- s/A.java\t(revision 1087)\n+++ s/A.java\t(working copy)\n@@ -1,2 +1,2 @@\n-a\r\n+b\r\n c\r\n");
        assert_eq!(
            String::from_utf8_lossy(&r),
            "Index: s/A.java\n====\n--- s/A.java\t(working copy)\n+++ s/A.java\t(revision 1087)\n@@ -1,2 +1,2 @@\n-b\r\n+a\r\n c\r\n"
        );
        let r = rev(b"diff --git a/i b/i\nindex 1..2\nGIT binary patch\nliteral 5\nMcmZ?wbYf\n\ndelta 3\nKcmZ?w\n\n");
        assert_eq!(
            String::from_utf8_lossy(&r),
            "diff --git a/i b/i\nindex 2..1\nGIT binary patch\ndelta 3\nKcmZ?w\n\nliteral 5\nMcmZ?wbYf\n\n"
        );
        let r = rev(b"diff --git a/i b/i\nindex 1..2 100644\nBinary files a/i and b/i differ\n");
        assert!(r.ends_with(b"Binary files b/i and a/i differ\n"));
        let r = rev(b"--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n+b\n-c\n+d\n e\n");
        assert!(
            r.ends_with(b"+a\n-b\n+c\n-d\n e\n"),
            "interleaved run keeps order"
        );
    }
}

#[cfg(test)]
mod fuzz_regressions {
    use super::super::parse::parse;

    /// cargo-fuzz crash-4a8cdd50: a `diff --git` line with a CR inside a name.
    #[test]
    fn git_line_with_inner_cr_reverses_twice_to_itself() {
        let s: &[u8] = b"diff --git perfect match return the sinf\x94le-       \0\0\0\0\0\0\0\r     retur.singletonList(opt);  for (Striindex 4a9cng longOpt : l())\n         {\n";
        let p = parse(s).unwrap();
        let r = p.reversed();
        eprintln!("{:?}", String::from_utf8_lossy(&r.to_bytes()));
        assert_eq!(
            String::from_utf8_lossy(&r.reversed().to_bytes()),
            String::from_utf8_lossy(s)
        );
    }

    /// Found while fixing the above: a CR before the `\n` of a `---` line.
    #[test]
    fn cr_in_minus_plus_values_stays_with_the_value() {
        let s: &[u8] = b"--- x\r\r\n+++ y\n@@ -1 +1 @@\n-a\n+b\n";
        let p = parse(s).unwrap();
        assert_eq!(p.reversed().reversed().to_bytes(), s);
        assert!(p.reversed().to_bytes().starts_with(b"--- y\n+++ x\r\r\n"));
    }
}
