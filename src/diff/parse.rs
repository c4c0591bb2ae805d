//! Parser for git, plain and SVN unified diffs that keeps every input byte for exact printing.
//!
//! Hunk bodies are delimited by their header counts, exactly like `git apply` reads them, so
//! a hunk that ends early, has more lines than it counts, or a garbled `@@` line is an error
//! naming the 1-based input line. Bytes that belong to no file (mail preamble, format-patch
//! signatures) are kept in `Patch::preamble` and `FilePatch::trailer`.

use std::fmt;
use std::path::{Path, PathBuf};

use super::model::{FileChange, FilePatch, Hunk, Line, LineKind, Patch};
use super::text::{git_line_split, git_line_swap, parse_hunk_header, trim_eol, unquote};

/// A malformed diff, with the 1-based input line so a user can find the spot at once.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {kind}")]
pub struct ParseError {
    /// 1-based line of the input where the problem was seen (one past the end for EOF).
    pub line: usize,
    /// What was wrong and what was expected there.
    pub kind: ParseErrorKind,
}

/// The ways a diff can be malformed, kept apart so callers can match on them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseErrorKind {
    /// The hunk body stopped before its header counts were reached.
    #[error(
        "hunk \"{header}\" ends after {old_seen} of {old_total} old lines and {new_seen} of \
         {new_total} new lines (expected ' ', '-' or '+' line, found {found})"
    )]
    TruncatedHunk {
        /// The hunk header, lossy and without its terminator.
        header: String,
        /// Old-side lines read so far.
        old_seen: u32,
        /// Old-side count from the header.
        old_total: u32,
        /// New-side lines read so far.
        new_seen: u32,
        /// New-side count from the header.
        new_total: u32,
        /// The offending line, quoted, or `end of input`.
        found: String,
    },
    /// A body line belongs to a side whose count is already used up, or a body line
    /// follows a complete hunk: the header counts are wrong.
    #[error(
        "hunk \"{header}\" has more {side} lines than its header counts ({total}) (found {found})"
    )]
    TooManyLines {
        /// The hunk header, lossy and without its terminator.
        header: String,
        /// `old` or `new`.
        side: &'static str,
        /// That side's count from the header.
        total: u32,
        /// The offending line, quoted.
        found: String,
    },
    /// A line starting with `@@` that is not `@@ -a[,b] +c[,d] @@`.
    #[error("bad hunk header {found} (expected \"@@ -start[,count] +start[,count] @@\")")]
    BadHunkHeader {
        /// The offending line, quoted.
        found: String,
    },
    /// A hunk header with no `---`/`+++` file header before it.
    #[error(
        "hunk header {found} without a file header (expected \"---\" and \"+++\" lines before it)"
    )]
    HunkWithoutFile {
        /// The offending line, quoted.
        found: String,
    },
    /// A `---` line in a git file header not followed by `+++`.
    #[error("expected a \"+++\" line after the \"---\" line, found {found}")]
    MissingNewPath {
        /// The offending line, quoted, or `end of input`.
        found: String,
    },
    /// A `---`/`+++` pair not followed by a hunk.
    #[error("expected a hunk header \"@@ -a,b +c,d @@\" after the \"+++\" line, found {found}")]
    MissingHunk {
        /// The offending line, quoted, or `end of input`.
        found: String,
    },
    /// A `\ No newline at end of file` marker with no body line before it.
    #[error("\"\\ No newline at end of file\" marker {found} does not follow a hunk line")]
    StrayNoNewline {
        /// The offending line, quoted.
        found: String,
    },
}

impl ParseError {
    /// Attach the patch file's path so the message reads `path:line: ...`.
    pub fn with_file(self, path: impl Into<PathBuf>) -> PatchFileError {
        PatchFileError {
            path: path.into(),
            error: self,
        }
    }
}

/// A parse error in a named patch file, printed `path:line: what`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
///
/// The parse error is part of the message, not a separate cause, so the one-line report
/// does not print it twice.
#[error("{}:{}: {}", path.display(), error.line, error.kind)]
pub struct PatchFileError {
    /// The patch file.
    pub path: PathBuf,
    /// What went wrong inside it.
    pub error: ParseError,
}

impl PatchFileError {
    /// The patch file the error is about.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Parse a unified diff (git, plain `---`/`+++`, or SVN `Index:` style) into a [`Patch`]
/// whose [`Patch::to_bytes`] gives back `input` exactly.
pub fn parse(input: &[u8]) -> Result<Patch, ParseError> {
    let mut p = Parser::new(input);
    let mut patch = Patch::default();
    let first = p.skip_to_file_start()?;
    patch.preamble = p.bytes(0, first).to_vec();
    p.pos = first;
    while p.pos < p.lines.len() {
        patch.files.push(p.file()?);
    }
    Ok(patch)
}

/// Which header style starts a file patch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    /// `diff --git a/x b/x`.
    Git,
    /// `Index: x` + `=====`.
    Svn,
    /// `--- x` + `+++ x`, optionally after a `diff ...` command line.
    Plain,
}

struct Parser<'a> {
    input: &'a [u8],
    /// (start, end) byte offsets of each line, `end` past its `\n` if any.
    lines: Vec<(usize, usize)>,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn new(input: &'a [u8]) -> Self {
        let mut lines = Vec::with_capacity(input.len() / 32 + 1);
        let mut start = 0;
        for (i, &b) in input.iter().enumerate() {
            if b == b'\n' {
                lines.push((start, i + 1));
                start = i + 1;
            }
        }
        if start < input.len() {
            lines.push((start, input.len()));
        }
        Parser {
            input,
            lines,
            pos: 0,
        }
    }

    fn line(&self, i: usize) -> &'a [u8] {
        match self.lines.get(i) {
            Some(&(s, e)) => &self.input[s..e],
            None => b"",
        }
    }

    /// Bytes of lines `from..to`.
    fn bytes(&self, from: usize, to: usize) -> &'a [u8] {
        if from >= to {
            return b"";
        }
        let s = self.lines[from].0;
        let e = self.lines[to - 1].1;
        &self.input[s..e]
    }

    fn found(&self, i: usize) -> String {
        if i >= self.lines.len() {
            "end of input".to_string()
        } else {
            quote(self.line(i))
        }
    }

    fn err(&self, i: usize, kind: ParseErrorKind) -> ParseError {
        ParseError { line: i + 1, kind }
    }

    /// Does a file patch start at line `i`, and in which style?
    fn file_start(&self, i: usize) -> Option<Style> {
        let l = self.line(i);
        if l.starts_with(b"diff --git ") {
            return Some(Style::Git);
        }
        let pair_at =
            |j: usize| self.line(j).starts_with(b"--- ") && self.line(j + 1).starts_with(b"+++ ");
        if l.starts_with(b"Index: ") && self.line(i + 1).starts_with(b"====") {
            return Some(Style::Svn);
        }
        if pair_at(i) || (l.starts_with(b"diff ") && pair_at(i + 1)) {
            return Some(Style::Plain);
        }
        None
    }

    /// From `self.pos`, find the next file start (or the end), rejecting orphan hunks.
    fn skip_to_file_start(&self) -> Result<usize, ParseError> {
        let mut i = self.pos;
        while i < self.lines.len() {
            if self.file_start(i).is_some() {
                return Ok(i);
            }
            let l = self.line(i);
            if l.starts_with(b"@@ -") && parse_hunk_header(l).is_some() {
                return Err(self.err(i, ParseErrorKind::HunkWithoutFile { found: quote(l) }));
            }
            i += 1;
        }
        Ok(i)
    }

    /// Parse one file patch starting at `self.pos` (a file start).
    fn file(&mut self) -> Result<FilePatch, ParseError> {
        let style = self.file_start(self.pos).unwrap_or(Style::Plain);
        let mut fp = FilePatch {
            header: Vec::new(),
            old_path: None,
            new_path: None,
            change: FileChange::Modified,
            binary: false,
            old_mode: None,
            new_mode: None,
            hunks: Vec::new(),
            trailer: Vec::new(),
        };
        let mut h = HeaderInfo::default();
        let mut has_pair = false;
        match style {
            Style::Git => {
                h.git_line = Some(self.take_header(&mut fp));
                loop {
                    let l = self.line(self.pos);
                    if self.pos >= self.lines.len() {
                        break;
                    }
                    if l.starts_with(b"--- ") {
                        self.pair(&mut fp, &mut h)?;
                        has_pair = true;
                        break;
                    }
                    if l.starts_with(b"GIT binary patch") {
                        fp.binary = true;
                        self.take_header(&mut fp);
                        self.binary_blocks(&mut fp);
                        continue;
                    }
                    if !h.extended(l, &mut fp) {
                        break;
                    }
                    self.take_header(&mut fp);
                }
            }
            Style::Svn => {
                self.take_header(&mut fp);
                self.take_header(&mut fp);
                if self.line(self.pos).starts_with(b"--- ") {
                    self.pair(&mut fp, &mut h)?;
                    has_pair = true;
                }
            }
            Style::Plain => {
                if !self.line(self.pos).starts_with(b"--- ") {
                    self.take_header(&mut fp);
                }
                self.pair(&mut fp, &mut h)?;
                has_pair = true;
            }
        }
        if has_pair {
            let l = self.line(self.pos);
            if self.pos >= self.lines.len() || !l.starts_with(b"@@") {
                return Err(self.err(
                    self.pos,
                    ParseErrorKind::MissingHunk {
                        found: self.found(self.pos),
                    },
                ));
            }
            while self.line(self.pos).starts_with(b"@@") && self.pos < self.lines.len() {
                let hunk = self.hunk()?;
                fp.hunks.push(hunk);
                let next = self.line(self.pos);
                if self.pos < self.lines.len()
                    && self.file_start(self.pos).is_none()
                    && matches!(next.first(), Some(b' ' | b'+' | b'-' | b'\\'))
                    && !is_signature(next)
                {
                    let last = fp.hunks.last().map(|h| h.header.as_slice()).unwrap_or(b"");
                    let (side, total) = match next[0] {
                        b'+' => ("new", count_of(last, false)),
                        _ => ("old", count_of(last, true)),
                    };
                    let kind = if next[0] == b'\\' {
                        ParseErrorKind::StrayNoNewline { found: quote(next) }
                    } else {
                        ParseErrorKind::TooManyLines {
                            header: header_text(last),
                            side,
                            total,
                            found: quote(next),
                        }
                    };
                    return Err(self.err(self.pos, kind));
                }
            }
        }
        let end = self.skip_to_file_start()?;
        fp.trailer = self.bytes(self.pos, end).to_vec();
        self.pos = end;
        h.finish(&mut fp, style);
        Ok(fp)
    }

    /// Move the current line into the file header and return it.
    fn take_header(&mut self, fp: &mut FilePatch) -> &'a [u8] {
        let l = self.line(self.pos);
        fp.header.push(l.to_vec());
        self.pos += 1;
        l
    }

    /// Consume a `---` line and the `+++` line that must follow it.
    fn pair(&mut self, fp: &mut FilePatch, h: &mut HeaderInfo<'a>) -> Result<(), ParseError> {
        h.minus = Some(self.take_header(fp));
        if !self.line(self.pos).starts_with(b"+++ ") || self.pos >= self.lines.len() {
            return Err(self.err(
                self.pos,
                ParseErrorKind::MissingNewPath {
                    found: self.found(self.pos),
                },
            ));
        }
        h.plus = Some(self.take_header(fp));
        Ok(())
    }

    /// Consume the `literal N`/`delta N` blocks of a `GIT binary patch` as header lines.
    fn binary_blocks(&mut self, fp: &mut FilePatch) {
        while self.pos < self.lines.len() {
            let l = self.line(self.pos);
            let body = trim_eol(l);
            let ok = body.starts_with(b"literal ")
                || body.starts_with(b"delta ")
                || body.is_empty()
                || (body[0].is_ascii_alphabetic()
                    && body[1..].iter().all(|&b| is_base85(b))
                    && self.file_start(self.pos).is_none());
            if !ok {
                break;
            }
            self.take_header(fp);
        }
    }

    /// Parse one hunk at `self.pos`, whose line starts with `@@`.
    fn hunk(&mut self) -> Result<Hunk, ParseError> {
        let header_line = self.line(self.pos);
        let Some(hh) = parse_hunk_header(header_line) else {
            return Err(self.err(
                self.pos,
                ParseErrorKind::BadHunkHeader {
                    found: quote(header_line),
                },
            ));
        };
        self.pos += 1;
        let mut hunk = Hunk {
            old_start: hh.old_start,
            old_lines: hh.old_lines,
            new_start: hh.new_start,
            new_lines: hh.new_lines,
            header: header_line.to_vec(),
            lines: Vec::with_capacity((hh.old_lines.max(hh.new_lines)) as usize + 1),
        };
        let (mut old_seen, mut new_seen) = (0u32, 0u32);
        let too_many = |side: &'static str, total: u32, l: &[u8]| ParseErrorKind::TooManyLines {
            header: header_text(header_line),
            side,
            total,
            found: quote(l),
        };
        while old_seen < hh.old_lines || new_seen < hh.new_lines {
            let i = self.pos;
            let l = self.line(i);
            let kind = match (i < self.lines.len()).then(|| l[0]) {
                Some(b' ') => {
                    if old_seen == hh.old_lines {
                        return Err(self.err(i, too_many("old", hh.old_lines, l)));
                    }
                    if new_seen == hh.new_lines {
                        return Err(self.err(i, too_many("new", hh.new_lines, l)));
                    }
                    old_seen += 1;
                    new_seen += 1;
                    LineKind::Context
                }
                Some(b'-') => {
                    if old_seen == hh.old_lines {
                        return Err(self.err(i, too_many("old", hh.old_lines, l)));
                    }
                    old_seen += 1;
                    LineKind::Removed
                }
                Some(b'+') => {
                    if new_seen == hh.new_lines {
                        return Err(self.err(i, too_many("new", hh.new_lines, l)));
                    }
                    new_seen += 1;
                    LineKind::Added
                }
                Some(b'\\') => {
                    self.no_newline(&mut hunk)?;
                    continue;
                }
                _ => {
                    return Err(self.err(
                        i,
                        ParseErrorKind::TruncatedHunk {
                            header: header_text(header_line),
                            old_seen,
                            old_total: hh.old_lines,
                            new_seen,
                            new_total: hh.new_lines,
                            found: self.found(i),
                        },
                    ))
                }
            };
            hunk.lines.push(Line {
                kind,
                content: l[1..].to_vec(),
                no_newline: None,
            });
            self.pos += 1;
        }
        if self.pos < self.lines.len() && self.line(self.pos).starts_with(b"\\") {
            self.no_newline(&mut hunk)?;
        }
        Ok(hunk)
    }

    /// Attach the `\ No newline at end of file` line at `self.pos` to the hunk's last line.
    fn no_newline(&mut self, hunk: &mut Hunk) -> Result<(), ParseError> {
        let l = self.line(self.pos);
        let stray = || ParseErrorKind::StrayNoNewline { found: quote(l) };
        let Some(last) = hunk.lines.last_mut() else {
            return Err(self.err(self.pos, stray()));
        };
        if last.no_newline.is_some() || last.content.last() != Some(&b'\n') {
            return Err(self.err(self.pos, stray()));
        }
        last.content.pop();
        let mut marker = Vec::with_capacity(l.len() + 1);
        marker.push(b'\n');
        marker.extend_from_slice(l);
        last.no_newline = Some(marker);
        self.pos += 1;
        Ok(())
    }
}

/// Path-related header facts collected while reading one file's header.
#[derive(Default)]
struct HeaderInfo<'a> {
    git_line: Option<&'a [u8]>,
    minus: Option<&'a [u8]>,
    plus: Option<&'a [u8]>,
    rename_from: Option<String>,
    rename_to: Option<String>,
    copy_from: Option<String>,
    copy_to: Option<String>,
    new_file: bool,
    deleted_file: bool,
}

impl<'a> HeaderInfo<'a> {
    /// Record a git extended header line; false when `l` is not one (the header ends).
    fn extended(&mut self, l: &[u8], fp: &mut FilePatch) -> bool {
        let body = trim_eol(l);
        let value = |p: &[u8]| body.strip_prefix(p);
        if let Some(v) = value(b"old mode ") {
            fp.old_mode = parse_mode(v);
        } else if let Some(v) = value(b"new mode ") {
            fp.new_mode = parse_mode(v);
        } else if let Some(v) = value(b"new file mode ") {
            fp.new_mode = parse_mode(v);
            self.new_file = true;
        } else if let Some(v) = value(b"deleted file mode ") {
            fp.old_mode = parse_mode(v);
            self.deleted_file = true;
        } else if let Some(v) = value(b"rename from ").or_else(|| value(b"rename old ")) {
            self.rename_from = Some(decode_path(v));
        } else if let Some(v) = value(b"rename to ").or_else(|| value(b"rename new ")) {
            self.rename_to = Some(decode_path(v));
        } else if let Some(v) = value(b"copy from ") {
            self.copy_from = Some(decode_path(v));
        } else if let Some(v) = value(b"copy to ") {
            self.copy_to = Some(decode_path(v));
        } else if body.starts_with(b"Binary files ") {
            fp.binary = true;
        } else if !(body.starts_with(b"index ")
            || body.starts_with(b"similarity index ")
            || body.starts_with(b"dissimilarity index "))
        {
            return false;
        }
        true
    }

    /// Fill the file's paths and change kind from what the header said.
    fn finish(self, fp: &mut FilePatch, style: Style) {
        let mut old = self.minus.map(side_path);
        let mut new = self.plus.map(side_path);
        if style != Style::Svn {
            let prefixed = |p: &Option<Option<String>>| match p {
                Some(Some(s)) => s.starts_with("a/") || s.starts_with("b/"),
                _ => true,
            };
            if prefixed(&old) && prefixed(&new) {
                for p in [&mut old, &mut new].into_iter().flatten().flatten() {
                    p.drain(..2);
                }
            }
        }
        if let (None, None, Some(g)) = (&old, &new, self.git_line) {
            let (a, b) = git_line_paths(g);
            old = Some((!self.new_file).then_some(a));
            new = Some((!self.deleted_file).then_some(b));
        }
        if style == Style::Svn && old.is_none() && new.is_none() {
            if let Some(name) = fp.header.first().and_then(|l| l.strip_prefix(b"Index: ")) {
                let name = String::from_utf8_lossy(trim_eol(name)).into_owned();
                old = Some(Some(name.clone()));
                new = Some(Some(name));
            }
        }
        fp.old_path = self
            .rename_from
            .clone()
            .or(self.copy_from.clone())
            .or(old.flatten());
        fp.new_path = self
            .rename_to
            .clone()
            .or(self.copy_to.clone())
            .or(new.flatten());
        if self.new_file {
            fp.old_path = None;
        }
        if self.deleted_file {
            fp.new_path = None;
        }
        fp.change = if self.copy_from.is_some() || self.copy_to.is_some() {
            FileChange::Copied
        } else if self.rename_from.is_some() || self.rename_to.is_some() {
            FileChange::Renamed
        } else if fp.old_path.is_none() && fp.new_path.is_some() {
            FileChange::Added
        } else if fp.new_path.is_none() && fp.old_path.is_some() {
            FileChange::Deleted
        } else {
            FileChange::Modified
        };
    }
}

/// Is `l` a format-patch signature separator (`-- `), which may follow the last hunk?
fn is_signature(l: &[u8]) -> bool {
    matches!(trim_eol(l), b"-- " | b"--")
}

/// The count of one side of a hunk header, for error messages.
fn count_of(header: &[u8], old: bool) -> u32 {
    parse_hunk_header(header)
        .map(|h| if old { h.old_lines } else { h.new_lines })
        .unwrap_or(0)
}

fn parse_mode(v: &[u8]) -> Option<u32> {
    u32::from_str_radix(std::str::from_utf8(v).ok()?.trim(), 8).ok()
}

fn is_base85(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&()*+-;<=>?@^_`{|}~".contains(&b)
}

/// The hunk header as text for messages: lossy, without terminator.
fn header_text(h: &[u8]) -> String {
    String::from_utf8_lossy(trim_eol(h)).into_owned()
}

/// A line quoted for an error message: lossy, without terminator, at most 60 chars.
pub(crate) fn quote(l: &[u8]) -> String {
    let s = String::from_utf8_lossy(trim_eol(l));
    let mut out: String = s.chars().take(60).collect();
    if s.chars().count() > 60 {
        out.push('…');
    }
    format!("{out:?}")
}

/// The path of a `--- x` / `+++ x` line: `None` for /dev/null; text before a tab.
fn side_path(l: &[u8]) -> Option<String> {
    let v = trim_eol(&l[4..]);
    let path = if v.first() == Some(&b'"') {
        match unquote(v) {
            Some((p, _)) => p,
            None => v.to_vec(),
        }
    } else {
        v.split(|&b| b == b'\t').next().unwrap_or(v).to_vec()
    };
    if path == b"/dev/null" || (v.first() != Some(&b'"') && is_epoch_stamp(v)) {
        None
    } else {
        Some(String::from_utf8_lossy(&path).into_owned())
    }
}

/// Does the `path<TAB>timestamp` value carry the Unix epoch, GNU `diff -N`'s mark of a
/// file that does not exist on that side (e.g. `1969-12-31 16:00:00.000000000 -0800`)?
fn is_epoch_stamp(v: &[u8]) -> bool {
    let Some(tab) = v.iter().position(|&b| b == b'\t') else {
        return false;
    };
    let Ok(stamp) = std::str::from_utf8(&v[tab + 1..]) else {
        return false;
    };
    let mut parts = stamp.split_whitespace();
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    let day: i64 = match date {
        "1970-01-01" => 0,
        "1969-12-31" => -1,
        _ => return false,
    };
    let (hms, frac) = time.split_once('.').unwrap_or((time, "0"));
    let hms: Vec<i64> = hms.split(':').filter_map(|x| x.parse().ok()).collect();
    if hms.len() != 3 || !frac.bytes().all(|b| b == b'0') {
        return false;
    }
    let offset = match parts.next() {
        None => 0,
        Some(z) => {
            let (sign, digits) = match z.as_bytes().first() {
                Some(b'-') => (-1, &z[1..]),
                Some(b'+') => (1, &z[1..]),
                _ => return false,
            };
            match (digits.len(), digits.parse::<i64>()) {
                (4, Ok(n)) => sign * ((n / 100) * 3600 + (n % 100) * 60),
                _ => return false,
            }
        }
    };
    day * 86400 + hms[0] * 3600 + hms[1] * 60 + hms[2] - offset == 0
}

/// A path from `rename from`/`copy to` lines: C-quoted or raw.
fn decode_path(v: &[u8]) -> String {
    let raw = if v.first() == Some(&b'"') {
        unquote(v).map(|(p, _)| p).unwrap_or_else(|| v.to_vec())
    } else {
        v.to_vec()
    };
    String::from_utf8_lossy(&raw).into_owned()
}

/// The two paths named on a `diff --git` line, prefixes (`a/`, `b/`) removed.
fn git_line_paths(line: &[u8]) -> (String, String) {
    let rest = trim_eol(line.get(11..).unwrap_or(b""));
    if git_line_swap(rest).is_none() {
        // Ambiguous names: one name for both sides, so reversal (which keeps the line)
        // and parsing agree.
        let all = String::from_utf8_lossy(rest).into_owned();
        return (all.clone(), all);
    }
    let (a, b) = git_line_split(rest);
    let name = |t: &[u8]| -> String {
        let raw = if t.first() == Some(&b'"') {
            unquote(t).map(|(p, _)| p).unwrap_or_else(|| t.to_vec())
        } else {
            t.to_vec()
        };
        let raw = raw
            .strip_prefix(b"a/")
            .or_else(|| raw.strip_prefix(b"b/"))
            .unwrap_or(&raw);
        String::from_utf8_lossy(raw).into_owned()
    };
    (name(&rest[a]), name(&rest[b]))
}

impl fmt::Display for Style {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Style::Git => "git",
            Style::Svn => "svn",
            Style::Plain => "plain",
        })
    }
}

#[cfg(test)]
mod tests;
