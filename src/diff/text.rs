//! Byte-level pieces of diff text shared by the parser, the reverser and the model:
//! `@@` headers, line ends, `diff --git` name splitting and path swapping. A leaf module,
//! so the parser and the reverser need not import each other.

/// Parsed numbers and token positions of a `@@ -a,b +c,d @@` line, shared with `reverse`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HunkHeader {
    pub old_start: u32,
    pub old_lines: u32,
    pub new_start: u32,
    pub new_lines: u32,
    /// Byte range of `a[,b]` (after `-`).
    pub old_range: std::ops::Range<usize>,
    /// Byte range of `c[,d]` (after `+`).
    pub new_range: std::ops::Range<usize>,
}

/// Parse `@@ -a[,b] +c[,d] @@...`; `None` when the line is not a valid hunk header.
pub(crate) fn parse_hunk_header(line: &[u8]) -> Option<HunkHeader> {
    let rest = line.strip_prefix(b"@@ -")?;
    let mut i = 4;
    let (old_start, old_lines, n) = parse_range(rest)?;
    let old_range = i..i + n;
    i += n;
    if line.get(i..i + 2)? != b" +" {
        return None;
    }
    i += 2;
    let (new_start, new_lines, n) = parse_range(&line[i..])?;
    let new_range = i..i + n;
    i += n;
    if line.get(i..i + 3)? != b" @@" {
        return None;
    }
    Some(HunkHeader {
        old_start,
        old_lines,
        new_start,
        new_lines,
        old_range,
        new_range,
    })
}

/// Parse `start[,count]` at the front of `s`: (start, count, bytes used); count defaults to 1.
fn parse_range(s: &[u8]) -> Option<(u32, u32, usize)> {
    let (start, mut used) = parse_u32(s)?;
    let mut count = 1;
    if s.get(used) == Some(&b',') {
        let (c, n) = parse_u32(&s[used + 1..])?;
        count = c;
        used += 1 + n;
    }
    Some((start, count, used))
}

fn parse_u32(s: &[u8]) -> Option<(u32, usize)> {
    let n = s.iter().take_while(|b| b.is_ascii_digit()).count();
    if n == 0 {
        return None;
    }
    let mut v: u32 = 0;
    for &b in &s[..n] {
        v = v.checked_mul(10)?.checked_add(u32::from(b - b'0'))?;
    }
    Some((v, n))
}

/// A line without its `\n` / `\r\n` terminator.
pub(crate) fn trim_eol(l: &[u8]) -> &[u8] {
    let l = l.strip_suffix(b"\n").unwrap_or(l);
    l.strip_suffix(b"\r").unwrap_or(l)
}

/// Byte split of the two names on a `diff --git` line (after `diff --git `, before EOL):
/// (old token range, new token range). Symmetric, so reversing twice finds the same split.
pub(crate) fn git_line_split(rest: &[u8]) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
    // Quoted first name: it ends at its closing quote.
    if let Some((_, n)) = unquote(rest) {
        if rest.get(n) == Some(&b' ') {
            return (0..n, n + 1..rest.len());
        }
    }
    // Quoted second name only.
    if rest.last() == Some(&b'"') {
        for (i, w) in rest.windows(2).enumerate() {
            if w == b" \"" {
                if let Some((_, n)) = unquote(&rest[i + 1..]) {
                    if i + 1 + n == rest.len() {
                        return (0..i, i + 1..rest.len());
                    }
                }
            }
        }
    }
    // Same name on both sides, each with a one-component prefix: split in the middle.
    let len = rest.len();
    if len % 2 == 1 && rest[len / 2] == b' ' {
        let (a, b) = (&rest[..len / 2], &rest[len / 2 + 1..]);
        let strip = |s: &[u8]| -> Vec<u8> {
            match s.iter().position(|&c| c == b'/') {
                Some(p) => s[p + 1..].to_vec(),
                None => s.to_vec(),
            }
        };
        if a == b || strip(a) == strip(b) {
            return (0..len / 2, len / 2 + 1..len);
        }
    }
    // Different names: split before the space that precedes the second prefix, trying the
    // prefix the first name does not use, then any space.
    let first_prefix = rest.iter().position(|&c| c == b'/').map(|p| &rest[..=p]);
    let spaces: Vec<usize> = (0..len).filter(|&i| rest[i] == b' ').collect();
    for &i in &spaces {
        let tail = &rest[i + 1..];
        let other = [b"a/".as_slice(), b"b/".as_slice()]
            .into_iter()
            .any(|p| tail.starts_with(p) && Some(p) != first_prefix);
        if other {
            return (0..i, i + 1..len);
        }
    }
    match spaces.get(spaces.len() / 2) {
        Some(&i) => (0..i, i + 1..len),
        None => (0..len, len..len),
    }
}

/// `B A` for the names `A B` of a `diff --git` line (without EOL), when that split is
/// unambiguous: swapping back must give `rest` again. `None` leaves the line as it is.
pub(crate) fn git_line_swap(rest: &[u8]) -> Option<Vec<u8>> {
    let swap = |s: &[u8]| -> Option<Vec<u8>> {
        let (a, b) = git_line_split(s);
        (!b.is_empty()).then(|| {
            let (x, y) = swap_paths(&s[a.clone()], &s[b.clone()]);
            [&x[..], b" ", &y[..]].concat()
        })
    };
    let t = swap(rest)?;
    // A CR moved to the end would be read back as part of the line terminator.
    (t.last() != Some(&b'\r') && swap(&t)? == rest).then_some(t)
}

/// The `a/`/`b/` prefix of a path token (inside an opening quote), if any.
fn git_prefix(tok: &[u8]) -> Option<&'static [u8]> {
    let q = usize::from(tok.first() == Some(&b'"'));
    match tok.get(q..q + 2) {
        Some(b"a/") => Some(b"a/"),
        Some(b"b/") => Some(b"b/"),
        _ => None,
    }
}

/// Swap two path tokens between the old and the new side, keeping each side's `a/`/`b/`
/// prefix in place (a `/dev/null` side lends the mirror of the other's prefix). An
/// involution: swapping the result again gives the input back.
pub(crate) fn swap_paths(x: &[u8], y: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let null = |t: &[u8]| t.starts_with(b"/dev/null");
    let mirror = |p: &'static [u8]| -> &'static [u8] {
        if p == b"a/" {
            b"b/"
        } else {
            b"a/"
        }
    };
    let (px, py) = (git_prefix(x), git_prefix(y));
    let recognised = |t: &[u8], p: Option<&[u8]>| p.is_some() || null(t);
    if !(recognised(x, px) && recognised(y, py)) || (px.is_none() && py.is_none()) {
        return (y.to_vec(), x.to_vec());
    }
    // The prefix each position keeps (or lends, when it holds /dev/null).
    let p1 = px.unwrap_or_else(|| mirror(py.unwrap_or(b"b/")));
    let p2 = py.unwrap_or_else(|| mirror(px.unwrap_or(b"a/")));
    let with = |t: &[u8], p: &[u8]| -> Vec<u8> {
        if null(t) {
            return t.to_vec();
        }
        let q = usize::from(t.first() == Some(&b'"'));
        [&t[..q], p, &t[q + 2..]].concat()
    };
    (with(y, p1), with(x, p2))
}

/// Decode a git C-quoted string at the start of `v`: (bytes, length consumed).
pub(crate) fn unquote(v: &[u8]) -> Option<(Vec<u8>, usize)> {
    if v.first() != Some(&b'"') {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 1;
    while i < v.len() {
        match v[i] {
            b'"' => return Some((out, i + 1)),
            b'\\' => {
                let c = *v.get(i + 1)?;
                i += 2;
                match c {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'r' => out.push(b'\r'),
                    b'a' => out.push(7),
                    b'b' => out.push(8),
                    b'f' => out.push(12),
                    b'v' => out.push(11),
                    b'0'..=b'7' => {
                        let d = v.get(i - 1..i + 2)?;
                        if !d.iter().all(|b| (b'0'..=b'7').contains(b)) {
                            return None;
                        }
                        let n = u32::from(d[0] - b'0') * 64
                            + u32::from(d[1] - b'0') * 8
                            + u32::from(d[2] - b'0');
                        out.push(u8::try_from(n).ok()?);
                        i += 2;
                    }
                    other => out.push(other),
                }
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    None
}
