//! The patch data model shared by every stage: a patch is files, a file is hunks.
//!
//! All content is kept as raw bytes (patches need not be UTF-8) with each line's own
//! terminator, so printing a parsed patch gives back the exact input bytes.

/// How a file patch changes the file's existence, so stages can skip created/deleted files.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum FileChange {
    /// The file exists on both sides.
    #[default]
    Modified,
    /// The file is created by the patch (old side is /dev/null or `new file mode`).
    Added,
    /// The file is removed by the patch (new side is /dev/null or `deleted file mode`).
    Deleted,
    /// The file is renamed (`rename from`/`rename to`), possibly with edits.
    Renamed,
    /// The file is copied (`copy from`/`copy to`), possibly with edits.
    Copied,
}

/// Marker of one hunk body line, because context/add/delete drive apply and reverse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineKind {
    /// ` ` line present on both sides.
    Context,
    /// `+` line present only on the new side.
    Added,
    /// `-` line present only on the old side.
    Removed,
}

/// One body line of a hunk, kept byte-exact for printing and applying.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Line {
    /// Which side(s) the line belongs to.
    pub kind: LineKind,
    /// The line's content after the marker, including its terminator (`\n`, `\r\n`) if any.
    pub content: Vec<u8>,
    /// The raw `\ No newline at end of file` line that followed it, if any (printed back
    /// verbatim); when present, `content` has its final `\n` stripped and this field starts
    /// with that `\n` (so `content` is exactly the file's unterminated last line).
    pub no_newline: Option<Vec<u8>>,
}

impl Line {
    /// The content without its line terminator, for tokenizing and comparison.
    pub fn text(&self) -> &[u8] {
        let c = &self.content[..];
        let c = c.strip_suffix(b"\n").unwrap_or(c);
        c.strip_suffix(b"\r").unwrap_or(c)
    }
}

/// One `@@` hunk; line numbers are 1-based as in the header.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Hunk {
    /// Start line on the old side (0 when the range is empty at file start).
    pub old_start: u32,
    /// Number of old-side lines (context + removed).
    pub old_lines: u32,
    /// Start line on the new side.
    pub new_start: u32,
    /// Number of new-side lines (context + added).
    pub new_lines: u32,
    /// The raw header line, from `@@` through its terminator (kept for byte-exact print).
    pub header: Vec<u8>,
    /// The body lines.
    pub lines: Vec<Line>,
}

/// Changed-line span of a hunk in one side's file (ARCHITECTURE §4): `end = start - 1` for a
/// hunk that changes no line on that side (a pure insertion from that side's view).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
pub struct Span {
    /// First changed line (1-based).
    pub start: u32,
    /// Last changed line, or `start - 1` when no line on this side is changed.
    pub end: u32,
}

impl Hunk {
    /// Changed-line span on the old side: a counter of old-side lines starting at
    /// `old_start` advances on context and removed lines (ARCHITECTURE §4 "Hunk span").
    pub fn old_span(&self) -> Span {
        self.side_span(true)
    }

    /// Old-side `(start, lines)` as written in the header bytes, which realignment and
    /// reversal keep verbatim (the numeric fields when the header does not parse).
    pub fn old_range_as_written(&self) -> (u32, u32) {
        super::text::parse_hunk_header(&self.header).map_or((self.old_start, self.old_lines), |h| {
            (h.old_start, h.old_lines)
        })
    }

    /// Changed-line span on the new side (same rule with added lines).
    pub fn new_span(&self) -> Span {
        self.side_span(false)
    }

    fn side_span(&self, old: bool) -> Span {
        let mut counter = if old { self.old_start } else { self.new_start };
        // An empty range `-a,0` names the line *after which* lines go, so the next line is a+1.
        if (old && self.old_lines == 0) || (!old && self.new_lines == 0) {
            counter += 1;
        }
        let mut start: Option<u32> = None;
        let mut end_counter = counter;
        for line in &self.lines {
            let (on_side, changed) = match (line.kind, old) {
                (LineKind::Context, _) => (true, false),
                (LineKind::Removed, true) | (LineKind::Added, false) => (true, true),
                (LineKind::Added, true) | (LineKind::Removed, false) => (false, true),
            };
            if changed && start.is_none() {
                start = Some(counter);
            }
            if on_side {
                counter += 1;
            }
            if changed {
                end_counter = counter;
            }
        }
        let start = start.unwrap_or(counter);
        Span {
            start,
            end: end_counter.saturating_sub(1).max(start.saturating_sub(1)),
        }
    }

    /// Number of `+` lines.
    pub fn added(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| l.kind == LineKind::Added)
            .count()
    }

    /// Number of `-` lines.
    pub fn removed(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| l.kind == LineKind::Removed)
            .count()
    }
}

/// All changes to one file in a patch.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct FilePatch {
    /// Raw header lines before the first hunk (`diff --git`, `index`, `---`, `+++`, SVN
    /// `Index:`/`====` lines, mode lines, `Binary files ... differ`), each with its
    /// terminator, printed back verbatim.
    pub header: Vec<Vec<u8>>,
    /// Old-side path with any `a/` prefix removed; `None` for /dev/null.
    pub old_path: Option<String>,
    /// New-side path with any `b/` prefix removed; `None` for /dev/null.
    pub new_path: Option<String>,
    /// What the patch does to the file's existence.
    pub change: FileChange,
    /// True for `Binary files ... differ` / `GIT binary patch` entries (no hunks).
    pub binary: bool,
    /// Old and new modes from `old mode`/`new mode`/`new file mode`/`deleted file mode`.
    pub old_mode: Option<u32>,
    /// See `old_mode`.
    pub new_mode: Option<u32>,
    /// The hunks, in patch order.
    pub hunks: Vec<Hunk>,
    /// Bytes after the last hunk (or header line) that start no new file, e.g. a
    /// format-patch signature `-- \n2.39.0\n`; printed back verbatim after the hunks.
    pub trailer: Vec<u8>,
}

impl FilePatch {
    /// Set each hunk's numeric `new_start` to where the hunk really lands when the patch
    /// is applied by its old side (old start plus the net lines of earlier hunks); the
    /// header bytes are left as written. Hand-edited patches (five in Defects4J) state
    /// new-side numbers that disagree with their old side. Returns how many hunks moved.
    pub fn realign_new_starts(&mut self) -> usize {
        let mut offset: i64 = 0;
        let mut moved = 0;
        for h in &mut self.hunks {
            // An empty range names the line before it, so the first line is start + 1.
            let old_first = i64::from(h.old_start) + i64::from(h.old_lines == 0);
            let new_first = old_first + offset;
            let new_start = if h.new_lines == 0 {
                new_first - 1
            } else {
                new_first
            };
            if let Ok(n) = u32::try_from(new_start) {
                if n != h.new_start {
                    h.new_start = n;
                    moved += 1;
                }
            }
            offset += i64::from(h.new_lines) - i64::from(h.old_lines);
        }
        moved
    }

    /// The path that names this file: the new path, or the old one for deletions.
    pub fn path(&self) -> &str {
        self.new_path
            .as_deref()
            .or(self.old_path.as_deref())
            .unwrap_or("")
    }
}

/// A whole patch: any leading bytes (commit message, `From` lines) plus file patches.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Patch {
    /// Bytes before the first file header, printed back verbatim.
    pub preamble: Vec<u8>,
    /// The file patches in order.
    pub files: Vec<FilePatch>,
}

impl Hunk {
    /// Append the hunk's exact bytes (header and body) to `out`.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.header);
        for line in &self.lines {
            out.push(match line.kind {
                LineKind::Context => b' ',
                LineKind::Added => b'+',
                LineKind::Removed => b'-',
            });
            out.extend_from_slice(&line.content);
            if let Some(marker) = &line.no_newline {
                out.extend_from_slice(marker);
            }
        }
    }
}

impl FilePatch {
    /// Append the file patch's exact bytes (header lines, then hunks) to `out`.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        for h in &self.header {
            out.extend_from_slice(h);
        }
        for hunk in &self.hunks {
            hunk.write_to(out);
        }
        out.extend_from_slice(&self.trailer);
    }
}

impl Patch {
    /// The patch as bytes; for a parsed patch this is exactly the parsed input.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.preamble.clone();
        for f in &self.files {
            f.write_to(&mut out);
        }
        out
    }

    /// The patch text for JSON output (lossy only where the patch is not UTF-8).
    pub fn to_text(&self) -> String {
        String::from_utf8_lossy(&self.to_bytes()).into_owned()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn realign_new_starts_follows_the_old_side() {
        // Second hunk states +20 but lands at 9 + (3 - 2) = 10; the first is consistent.
        let text = b"--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n a\n+b\n c\n@@ -9,1 +20,1 @@\n-d\n+e\n";
        let mut p = crate::diff::parse(text).expect("parses");
        assert_eq!(p.files[0].realign_new_starts(), 1);
        assert_eq!(p.files[0].hunks[1].new_start, 10);
        assert_eq!(p.to_bytes(), text, "header bytes are kept");
        assert_eq!(p.files[0].realign_new_starts(), 0, "idempotent");
        // Empty ranges name the line before: -5,0 +7,2 after a +2 hunk is consistent.
        let text = b"--- a/x\n+++ b/x\n@@ -1,1 +1,3 @@\n a\n+b\n+c\n@@ -5,0 +8,2 @@\n+d\n+e\n";
        let mut p = crate::diff::parse(text).expect("parses");
        assert_eq!(p.files[0].realign_new_starts(), 0);
    }
}
