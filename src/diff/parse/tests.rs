//! Unit tests of the diff parser: round trips, file modes and renames, SVN and plain
//! diffs, and errors naming their input line.

use super::*;

fn roundtrip(s: &[u8]) -> Patch {
    let p = parse(s).unwrap();
    assert_eq!(p.to_bytes(), s, "print∘parse identity");
    p
}

#[test]
fn git_modify_with_heading_and_omitted_counts() {
    let s = b"diff --git a/x.txt b/x.txt\nindex 1..2 100644\n--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@ fn main\n-a\n+b\n@@ -5,0 +6,2 @@\n+c\n+d\n";
    let p = roundtrip(s);
    assert_eq!(p.files.len(), 1);
    let f = &p.files[0];
    assert_eq!(f.old_path.as_deref(), Some("x.txt"));
    assert_eq!(f.new_path.as_deref(), Some("x.txt"));
    assert_eq!(f.change, FileChange::Modified);
    assert_eq!(f.hunks.len(), 2);
    assert_eq!(
        (
            f.hunks[0].old_start,
            f.hunks[0].old_lines,
            f.hunks[0].new_lines
        ),
        (1, 1, 1)
    );
    assert_eq!(
        (
            f.hunks[1].old_start,
            f.hunks[1].old_lines,
            f.hunks[1].new_start,
            f.hunks[1].new_lines
        ),
        (5, 0, 6, 2)
    );
}

#[test]
fn new_deleted_rename_mode_binary() {
    let s = b"From abc Mon Sep 17 00:00:00 2001\nSubject: x\n\n---\n a | 1 +\n\n\
diff --git a/n.txt b/n.txt\nnew file mode 100644\nindex 0000000..e69de29\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n\
diff --git a/d.txt b/d.txt\ndeleted file mode 100755\nindex e69de29..0000000\n\
diff --git a/old name.txt b/new name.txt\nsimilarity index 90%\nrename from old name.txt\nrename to new name.txt\n\
diff --git a/m.sh b/m.sh\nold mode 100644\nnew mode 100755\n\
diff --git a/i.png b/i.png\nindex 1..2 100644\nBinary files a/i.png and b/i.png differ\n\
diff --git a/j.bin b/j.bin\nindex 1..2 100644\nGIT binary patch\nliteral 5\nMcmZ?wbYf-z00Ev\n\nliteral 3\nKcmZ?w00002\n\n\
diff --git \"a/q\\303\\251 x\" \"b/q\\303\\251 x\"\nindex 1..2 100644\n--- \"a/q\\303\\251 x\"\n+++ \"b/q\\303\\251 x\"\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n-- \n2.39.0\n\n";
    let p = roundtrip(s);
    let f = &p.files;
    assert_eq!(f.len(), 7);
    assert!(p.preamble.starts_with(b"From abc"));
    assert_eq!(
        (f[0].change, f[0].old_path.as_deref(), f[0].new_mode),
        (FileChange::Added, None, Some(0o100644))
    );
    assert_eq!(f[0].new_path.as_deref(), Some("n.txt"));
    assert_eq!(
        (f[1].change, f[1].new_path.as_deref(), f[1].old_mode),
        (FileChange::Deleted, None, Some(0o100755))
    );
    assert_eq!(f[1].old_path.as_deref(), Some("d.txt"));
    assert_eq!(f[2].change, FileChange::Renamed);
    assert_eq!(f[2].old_path.as_deref(), Some("old name.txt"));
    assert_eq!(f[2].new_path.as_deref(), Some("new name.txt"));
    assert_eq!(
        (f[3].old_mode, f[3].new_mode),
        (Some(0o100644), Some(0o100755))
    );
    assert_eq!(f[3].path(), "m.sh");
    assert!(f[4].binary && f[5].binary);
    assert_eq!(f[5].header.len(), 9);
    assert_eq!(f[6].path(), "qé x");
    let l = &f[6].hunks[0].lines;
    assert_eq!(l[0].content, b"a");
    assert_eq!(
        l[0].no_newline.as_deref(),
        Some(&b"\n\\ No newline at end of file\n"[..])
    );
    assert_eq!(f[6].trailer, b"-- \n2.39.0\n\n");
}

#[test]
fn svn_and_plain_and_crlf_and_non_utf8() {
    let s = b"Index: source/A.java\n===================================================================\n--- source/A.java\t(revision 1087)\n+++ source/A.java\t(working copy)\n@@ -2,2 +2,2 @@\n x\r\n-\xff\xfe\r\n+y\r\n\
--- a/b c.txt\t2020-01-01 00:00:00\n+++ b/b c.txt\t2020-01-02 00:00:00\n@@ -1 +0,0 @@\n-z\n";
    let p = roundtrip(s);
    assert_eq!(p.files[0].path(), "source/A.java");
    assert_eq!(p.files[0].hunks[0].lines[1].content, b"\xff\xfe\r\n");
    assert_eq!(p.files[1].path(), "b c.txt");
    assert_eq!(p.files[1].change, FileChange::Modified);
}

#[test]
fn epoch_timestamp_means_no_file() {
    let p = roundtrip(b"--- a/x.txt\t2020-01-24 12:25:47.065255433 -0800\n+++ b/x.txt\t1969-12-31 16:00:00.000000000 -0800\n@@ -1 +0,0 @@\n-a\n");
    assert_eq!(p.files[0].change, FileChange::Deleted);
    assert_eq!(p.files[0].old_path.as_deref(), Some("x.txt"));
    let p = roundtrip(
        b"--- x\t1970-01-01 01:00:00 +0100\n+++ x\t2001-01-01 01:00:00 +0100\n@@ -0,0 +1 @@\n+a\n",
    );
    assert_eq!(p.files[0].change, FileChange::Added);
    assert_eq!(
        (
            p.files[0].old_path.as_deref(),
            p.files[0].new_path.as_deref()
        ),
        (None, Some("x"))
    );
    let p = roundtrip(b"--- x\t1970-01-01 00:00:01\n+++ x\n@@ -1 +1 @@\n-a\n+b\n");
    assert_eq!(p.files[0].change, FileChange::Modified);
}

#[test]
fn empty_and_text_only_inputs() {
    assert!(roundtrip(b"").files.is_empty());
    assert!(roundtrip(b"just words\n-- \n").files.is_empty());
}

#[test]
fn errors_name_the_line() {
    let e = parse(b"--- a/x\n+++ b/x\n@@ -3,4 +3,5 @@\n a\n-b\n+c\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "line 7: hunk \"@@ -3,4 +3,5 @@\" ends after 2 of 4 old lines and 2 of 5 new lines \
         (expected ' ', '-' or '+' line, found end of input)"
    );
    let e = parse(b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n").unwrap_err();
    assert_eq!(e.line, 6);
    assert!(
        matches!(e.kind, ParseErrorKind::TooManyLines { side: "new", .. }),
        "{e}"
    );
    let e = parse(b"--- a/x\n+++ b/x\n@@ -1,x +1 @@\n").unwrap_err();
    assert_eq!(e.to_string(), "line 3: bad hunk header \"@@ -1,x +1 @@\" (expected \"@@ -start[,count] +start[,count] @@\")");
    let e = parse(b"hello\n@@ -1 +1 @@\n-a\n+b\n").unwrap_err();
    assert_eq!(e.line, 2);
    let e = parse(b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n")
        .unwrap_err()
        .with_file("p/1.patch");
    assert_eq!(
        e.to_string().split(':').take(2).collect::<Vec<_>>(),
        ["p/1.patch", "5"]
    );
}

#[test]
fn hunk_header_forms() {
    let h = parse_hunk_header(b"@@ -0,0 +1,3 @@\n").unwrap();
    assert_eq!(
        (h.old_start, h.old_lines, h.new_start, h.new_lines),
        (0, 0, 1, 3)
    );
    assert_eq!(h.old_range, 4..7);
    assert!(parse_hunk_header(b"@@ -1 +1@@\n").is_none());
    assert!(parse_hunk_header(b"@@ -99999999999 +1 @@\n").is_none());
}

#[test]
fn git_line_split_is_symmetric() {
    for s in [&b"a/x y b/x y"[..], b"a/p b/q", b"\"a/x\" b/x", b"b/x a/x"] {
        let (a, b) = git_line_split(s);
        let mut swapped = s[b.clone()].to_vec();
        swapped.push(b' ');
        swapped.extend_from_slice(&s[a.clone()]);
        let (c, d) = git_line_split(&swapped);
        assert_eq!(&swapped[c], &s[b], "{}", String::from_utf8_lossy(s));
        assert_eq!(&swapped[d], &s[a]);
    }
}
