//! Punkt sentence splitting (Kiss & Strunk 2006) as NLTK 3.9's `PunktSentenceTokenizer` does it.
//!
//! Only the *tokenization* side is here (no training): the word split of Punkt, the
//! first-pass (type-based) and second-pass (collocations, orthographic context, sentence
//! starters) annotation, NLTK's search for candidate sentence ends and its boundary
//! realignment. Offsets are byte offsets; every character NLTK slices on is ASCII, so
//! they line up with NLTK's code-point offsets. The learned parameters are data fetched
//! from a package registry, so they are loaded at run time ([`PunktParams::load_dir`]),
//! never compiled in.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Orthographic context flags, as in NLTK (`_ORTHO_*`).
const ORTHO_BEG_UC: u32 = 1 << 1;
const ORTHO_MID_UC: u32 = 1 << 2;
const ORTHO_UNK_UC: u32 = 1 << 3;
const ORTHO_BEG_LC: u32 = 1 << 4;
const ORTHO_MID_LC: u32 = 1 << 5;
const ORTHO_UNK_LC: u32 = 1 << 6;
const ORTHO_UC: u32 = ORTHO_BEG_UC + ORTHO_MID_UC + ORTHO_UNK_UC;
const ORTHO_LC: u32 = ORTHO_BEG_LC + ORTHO_MID_LC + ORTHO_UNK_LC;

/// The four files of an NLTK `punkt_tab` language directory.
const MODEL_FILES: [&str; 4] = [
    "abbrev_types.txt",
    "collocations.tab",
    "sent_starters.txt",
    "ortho_context.tab",
];

/// Why a `punkt_tab` directory could not be loaded; each variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum PunktError {
    /// A model file is missing or unreadable.
    #[error("cannot read Punkt model file {path}: {source}")]
    Read {
        /// The file that failed.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A line of a model file does not have the expected shape.
    #[error("{path}:{line}: {message}")]
    Malformed {
        /// The file holding the bad line.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
}

/// Learned Punkt parameters; kept as data so the English model can be supplied at run time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PunktParams {
    /// Abbreviation types (lower case, without the final period).
    pub abbrev_types: HashSet<String>,
    /// Type pairs around a period that is not a sentence break.
    pub collocations: HashSet<(String, String)>,
    /// Types that often start a sentence.
    pub sent_starters: HashSet<String>,
    /// Orthographic context flags per type.
    pub ortho_context: HashMap<String, u32>,
}

impl PunktParams {
    /// No learned data at all: NLTK's behaviour with an empty `PunktParameters`.
    pub fn empty() -> Self {
        Self::default()
    }

    /// A hash of every parameter in a fixed order, so results computed with this model
    /// can be keyed by it (`src/memo.rs`).
    pub fn fingerprint(&self) -> String {
        let mut abbrev: Vec<&String> = self.abbrev_types.iter().collect();
        abbrev.sort();
        let mut colloc: Vec<&(String, String)> = self.collocations.iter().collect();
        colloc.sort();
        let mut starters: Vec<&String> = self.sent_starters.iter().collect();
        starters.sort();
        let mut ortho: Vec<(&String, &u32)> = self.ortho_context.iter().collect();
        ortho.sort();
        let text = format!("{abbrev:?}\n{colloc:?}\n{starters:?}\n{ortho:?}");
        crate::cache::Key::of(&[text.as_bytes()])
            .as_str()
            .to_string()
    }

    /// Read an NLTK `punkt_tab` language directory (the one holding `abbrev_types.txt`,
    /// `collocations.tab`, `sent_starters.txt`, `ortho_context.tab`), parsed as NLTK's
    /// `load_punkt_params` does. A `punkt_tab` root holding `english/` is accepted too.
    pub fn load_dir(path: &Path) -> Result<Self, PunktError> {
        let dir = if !path.join(MODEL_FILES[0]).exists() && path.join("english").is_dir() {
            path.join("english")
        } else {
            path.to_path_buf()
        };
        let mut params = Self::empty();
        for (_, line) in read_lines(&dir.join("abbrev_types.txt"))? {
            params.abbrev_types.insert(line);
        }
        for (_, line) in read_lines(&dir.join("sent_starters.txt"))? {
            params.sent_starters.insert(line);
        }
        let colloc_path = dir.join("collocations.tab");
        for (line_no, line) in read_lines(&colloc_path)? {
            let mut parts = line.split('\t');
            match (parts.next(), parts.next(), parts.next()) {
                (Some(a), Some(b), None) => {
                    params.collocations.insert((a.to_string(), b.to_string()));
                }
                _ => {
                    return Err(PunktError::Malformed {
                        path: colloc_path,
                        line: line_no,
                        message: format!("expected two tab-separated types, got {line:?}"),
                    })
                }
            }
        }
        let ortho_path = dir.join("ortho_context.tab");
        for (line_no, line) in read_lines(&ortho_path)? {
            let parsed = line
                .split_once('\t')
                .and_then(|(typ, flags)| flags.trim().parse::<u32>().ok().map(|f| (typ, f)));
            match parsed {
                Some((typ, flags)) => {
                    params.ortho_context.insert(typ.to_string(), flags);
                }
                None => {
                    return Err(PunktError::Malformed {
                        path: ortho_path,
                        line: line_no,
                        message: format!("expected `type<TAB>integer`, got {line:?}"),
                    })
                }
            }
        }
        Ok(params)
    }

    fn ortho(&self, typ: &str) -> u32 {
        self.ortho_context.get(typ).copied().unwrap_or(0)
    }
}

/// Lines of a model file as Python's text-mode iteration gives them: universal newlines,
/// each line without its final `\n`, no line for an empty file.
fn read_lines(path: &Path) -> Result<Vec<(usize, String)>, PunktError> {
    let raw = std::fs::read_to_string(path).map_err(|source| PunktError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let text = raw.replace("\r\n", "\n").replace('\r', "\n");
    Ok(text
        .split_inclusive('\n')
        .map(|l| l.strip_suffix('\n').unwrap_or(l).to_string())
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .collect())
}

/// Python's `str.isspace` for one character (Unicode White_Space plus U+001C..U+001F).
pub(crate) fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python `re`'s `\w` for one character: `str.isalnum()` or `_`.
pub(crate) fn py_is_word(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    // Letters (L*) and numbers (N*); Rust's is_alphabetic would also take marks.
    use std::sync::LazyLock;
    static LN: LazyLock<regex::Regex> = LazyLock::new(|| {
        #[allow(clippy::unwrap_used)] // a constant pattern; covered by tests
        regex::Regex::new(r"^[\p{L}\p{N}]$").unwrap()
    });
    let mut buf = [0u8; 4];
    LN.is_match(c.encode_utf8(&mut buf))
}

/// Python `re`'s `\d`: a decimal digit (general category Nd).
fn py_is_digit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    use std::sync::LazyLock;
    static ND: LazyLock<regex::Regex> = LazyLock::new(|| {
        #[allow(clippy::unwrap_used)] // a constant pattern; covered by tests
        regex::Regex::new(r"^\p{Nd}$").unwrap()
    });
    let mut buf = [0u8; 4];
    ND.is_match(c.encode_utf8(&mut buf))
}

/// `string.whitespace`, used by NLTK's `_get_last_whitespace_index`.
fn is_ascii_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// `_re_non_word_chars`: characters that cannot appear within words.
fn is_non_word(c: char) -> bool {
    matches!(
        c,
        ')' | '"' | ';' | '}' | ']' | '*' | ':' | '@' | '\'' | '(' | '{' | '[' | '?' | '!'
    )
}

/// Complement of `_re_word_start`: characters that cannot start a word token.
fn is_not_word_start(c: char) -> bool {
    matches!(
        c,
        '(' | '"'
            | '`'
            | '{'
            | '['
            | ':'
            | ';'
            | '&'
            | '#'
            | '*'
            | '@'
            | ')'
            | '}'
            | ']'
            | '-'
            | ','
    )
}

fn char_at(s: &str, i: usize) -> Option<char> {
    s.get(i..).and_then(|r| r.chars().next())
}

/// Length of `_re_multi_char_punct` (`-{2,}|\.{2,}|(?:\.\s){2,}\.`) matched at `i`.
fn multi_char_at(s: &str, i: usize) -> Option<usize> {
    let b = s.as_bytes();
    let run = |ch: u8| b[i..].iter().take_while(|&&x| x == ch).count();
    if b.get(i) == Some(&b'-') {
        let n = run(b'-');
        if n >= 2 {
            return Some(n);
        }
    }
    if b.get(i) != Some(&b'.') {
        return None;
    }
    let n = run(b'.');
    if n >= 2 {
        return Some(n);
    }
    // (?:\.\s){2,}\. — greedy pairs, backtracking one pair if no period follows.
    let mut pair_starts = Vec::new();
    let mut pos = i;
    while b.get(pos) == Some(&b'.') {
        match char_at(s, pos + 1) {
            Some(c) if py_isspace(c) => {
                pair_starts.push(pos);
                pos += 1 + c.len_utf8();
            }
            _ => break,
        }
    }
    let k = pair_starts.len();
    if k >= 2 && b.get(pos) == Some(&b'.') {
        return Some(pos + 1 - i);
    }
    if k >= 3 {
        return Some(pair_starts[k - 1] + 1 - i);
    }
    None
}

/// `PunktLanguageVars.word_tokenize`: Punkt's own word split (periods stay attached).
fn punkt_words(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut i = 0;
    let len = line.len();
    while i < len {
        let Some(c) = char_at(line, i) else { break };
        if py_isspace(c) {
            i += c.len_utf8();
            continue;
        }
        if let Some(n) = multi_char_at(line, i) {
            out.push(&line[i..i + n]);
            i += n;
            continue;
        }
        if is_not_word_start(c) {
            out.push(&line[i..i + c.len_utf8()]);
            i += c.len_utf8();
            continue;
        }
        // (?=WordStart)\S+? up to the first position where a word end is seen.
        let mut j = i + c.len_utf8();
        while let Some(d) = char_at(line, j) {
            if py_isspace(d) || is_non_word(d) || multi_char_at(line, j).is_some() {
                break;
            }
            if d == ',' {
                let k = j + 1;
                let ends = match char_at(line, k) {
                    None => true,
                    Some(e) => py_isspace(e) || is_non_word(e) || multi_char_at(line, k).is_some(),
                };
                if ends {
                    break;
                }
            }
            j += d.len_utf8();
        }
        out.push(&line[i..j]);
        i = j;
    }
    out
}

/// A Punkt token with the annotations that decide sentence breaks.
struct PunktToken<'a> {
    tok: &'a str,
    typ: String,
    period_final: bool,
    sentbreak: bool,
    abbr: bool,
    ellipsis: bool,
}

/// `_RE_NUMERIC` (`^-?[\.,]?\d[\d,\.-]*\.?$`) as a whole-string test.
fn is_numeric(s: &str) -> bool {
    let mut chars = s.chars().peekable();
    if chars.peek() == Some(&'-') {
        chars.next();
    }
    if matches!(chars.peek(), Some('.') | Some(',')) {
        chars.next();
    }
    match chars.next() {
        Some(c) if py_is_digit(c) => {}
        _ => return false,
    }
    chars.all(|c| py_is_digit(c) || matches!(c, ',' | '.' | '-'))
}

impl<'a> PunktToken<'a> {
    fn new(tok: &'a str) -> Self {
        let lower = tok.to_lowercase();
        let typ = if is_numeric(&lower) {
            "##number##".to_string()
        } else {
            lower
        };
        PunktToken {
            tok,
            typ,
            period_final: tok.ends_with('.'),
            sentbreak: false,
            abbr: false,
            ellipsis: false,
        }
    }

    fn type_no_period(&self) -> &str {
        if self.typ.chars().count() > 1 && self.typ.ends_with('.') {
            &self.typ[..self.typ.len() - 1]
        } else {
            &self.typ
        }
    }

    fn type_no_sentperiod(&self) -> &str {
        if self.sentbreak {
            self.type_no_period()
        } else {
            &self.typ
        }
    }

    fn first_upper(&self) -> bool {
        self.tok.chars().next().is_some_and(char::is_uppercase)
    }

    fn first_lower(&self) -> bool {
        self.tok.chars().next().is_some_and(char::is_lowercase)
    }

    /// `_RE_ELLIPSIS` (`\.\.+$`), anchored at the start by `match`.
    fn is_ellipsis(&self) -> bool {
        self.tok.len() >= 2 && self.tok.bytes().all(|b| b == b'.')
    }

    /// `_RE_INITIAL` (`[^\W\d]\.$`): one non-digit word character and a period.
    fn is_initial(&self) -> bool {
        let mut chars = self.tok.chars();
        matches!(
            (chars.next(), chars.next(), chars.next()),
            (Some(c), Some('.'), None) if py_is_word(c) && !py_is_digit(c)
        )
    }
}

/// What `_ortho_heuristic` answers: NLTK's `True`, `False` or `"unknown"`.
#[derive(PartialEq, Eq)]
enum Ortho {
    Starter,
    NotStarter,
    Unknown,
}

/// A candidate sentence end found by `period_context_re`.
struct EndMatch {
    /// Byte offset of the `.`, `?` or `!`.
    start: usize,
    /// End of the `after_tok` lookahead group.
    after_end: usize,
    /// Start of the `next_tok` group, if the lookahead took whitespace and a token.
    next_tok: Option<usize>,
}

/// `period_context_re().finditer(text)`.
fn period_contexts(text: &str) -> Vec<EndMatch> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    for (p, &ch) in b.iter().enumerate() {
        if !matches!(ch, b'.' | b'?' | b'!') {
            continue;
        }
        let q = p + 1;
        let Some(c) = char_at(text, q) else { continue };
        if is_non_word(c) {
            out.push(EndMatch {
                start: p,
                after_end: q + c.len_utf8(),
                next_tok: None,
            });
            continue;
        }
        let ws_end = q + text[q..]
            .char_indices()
            .find(|&(_, c)| !py_isspace(c))
            .map_or(text.len() - q, |(k, _)| k);
        if ws_end == q || ws_end == text.len() {
            continue;
        }
        let tok_end = ws_end
            + text[ws_end..]
                .char_indices()
                .find(|&(_, c)| py_isspace(c))
                .map_or(text.len() - ws_end, |(k, _)| k);
        out.push(EndMatch {
            start: p,
            after_end: tok_end,
            next_tok: Some(ws_end),
        });
    }
    out
}

/// A sentence splitter over one set of [`PunktParams`].
pub struct PunktSentenceTokenizer<'p> {
    params: &'p PunktParams,
}

impl<'p> PunktSentenceTokenizer<'p> {
    /// Borrow the parameters; the tokenizer itself holds no state.
    pub fn new(params: &'p PunktParams) -> Self {
        PunktSentenceTokenizer { params }
    }

    /// Sentences of `text`, as NLTK's `tokenize(text)` (realign_boundaries=True) returns them.
    pub fn sentences<'t>(&self, text: &'t str) -> Vec<&'t str> {
        self.span_tokenize(text)
            .into_iter()
            .map(|(s, e)| text.get(s..e).unwrap_or(""))
            .collect()
    }

    /// Byte spans of the sentences (`span_tokenize` with realignment).
    pub fn span_tokenize(&self, text: &str) -> Vec<(usize, usize)> {
        let slices = self.slices_from_text(text);
        realign_boundaries(text, &slices)
    }

    /// `_match_potential_end_contexts`: each candidate end with the text Punkt judges it on.
    fn potential_end_contexts(&self, text: &str) -> Vec<(EndMatch, String)> {
        let mut out = Vec::new();
        let mut prev_slice = (0usize, 0usize);
        let mut prev_match: Option<EndMatch> = None;
        let context = |slice: (usize, usize), m: &EndMatch| -> String {
            let mut s = String::new();
            s.push_str(text.get(slice.0..slice.1).unwrap_or(""));
            s.push_str(&text[m.start..m.after_end]);
            s
        };
        for m in period_contexts(text) {
            let before = &text.as_bytes()[prev_slice.1..m.start];
            let last_ws = before.iter().rposition(|&b| is_ascii_ws(b)).unwrap_or(0);
            let word_start = if last_ws != 0 {
                last_ws + prev_slice.1 + 1
            } else {
                prev_slice.0
            };
            let prev_word = (word_start, m.start);
            if let Some(pm) = prev_match.take() {
                if prev_slice.1 <= prev_word.0 {
                    let ctx = context(prev_slice, &pm);
                    out.push((pm, ctx));
                }
            }
            prev_match = Some(m);
            prev_slice = prev_word;
        }
        if let Some(pm) = prev_match {
            let ctx = context(prev_slice, &pm);
            out.push((pm, ctx));
        }
        out
    }

    /// `_slices_from_text`: sentence spans before realignment.
    fn slices_from_text(&self, text: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut last_break = 0;
        for (m, ctx) in self.potential_end_contexts(text) {
            if self.text_contains_sentbreak(&ctx) {
                out.push((last_break, m.start + 1));
                last_break = m.next_tok.unwrap_or(m.start + 1);
            }
        }
        out.push((last_break, text.trim_end_matches(py_isspace).len()));
        out
    }

    /// `text_contains_sentbreak`: is any token but the last one a sentence break?
    fn text_contains_sentbreak(&self, text: &str) -> bool {
        let mut tokens: Vec<PunktToken> = Vec::new();
        for line in text.split('\n') {
            if line.trim_matches(py_isspace).is_empty() {
                continue;
            }
            tokens.extend(punkt_words(line).into_iter().map(PunktToken::new));
        }
        for t in tokens.iter_mut() {
            self.first_pass(t);
        }
        let mut found = false;
        for k in 0..tokens.len() {
            if k + 1 < tokens.len() {
                let (head, tail) = tokens.split_at_mut(k + 1);
                self.second_pass(&mut head[k], &tail[0]);
            }
            if found {
                return true;
            }
            if tokens[k].sentbreak {
                found = true;
            }
        }
        false
    }

    /// `_first_pass_annotation`: decisions from the token's own type.
    fn first_pass(&self, t: &mut PunktToken) {
        let tok = t.tok;
        if matches!(tok, "." | "?" | "!") {
            t.sentbreak = true;
        } else if t.is_ellipsis() {
            t.ellipsis = true;
        } else if t.period_final && !tok.ends_with("..") {
            let stem = tok[..tok.len() - 1].to_lowercase();
            let last_part = stem.rsplit('-').next().unwrap_or("");
            if self.params.abbrev_types.contains(&stem)
                || self.params.abbrev_types.contains(last_part)
            {
                t.abbr = true;
            } else {
                t.sentbreak = true;
            }
        }
    }

    /// `_second_pass_annotation`: decisions that look at the next token.
    fn second_pass(&self, t1: &mut PunktToken, t2: &PunktToken) {
        if !t1.period_final {
            return;
        }
        let typ = t1.type_no_period().to_string();
        let next_typ = t2.type_no_sentperiod();
        let is_initial = t1.is_initial();

        if self
            .params
            .collocations
            .contains(&(typ.clone(), next_typ.to_string()))
        {
            t1.sentbreak = false;
            t1.abbr = true;
            return;
        }
        if (t1.abbr || t1.ellipsis) && !is_initial {
            if self.ortho_heuristic(t2) == Ortho::Starter {
                t1.sentbreak = true;
                return;
            }
            if t2.first_upper() && self.params.sent_starters.contains(next_typ) {
                t1.sentbreak = true;
                return;
            }
        }
        if is_initial || typ == "##number##" {
            let starter = self.ortho_heuristic(t2);
            if starter == Ortho::NotStarter {
                t1.sentbreak = false;
                t1.abbr = true;
                return;
            }
            if starter == Ortho::Unknown
                && is_initial
                && t2.first_upper()
                && self.params.ortho(next_typ) & ORTHO_LC == 0
            {
                t1.sentbreak = false;
                t1.abbr = true;
            }
        }
    }

    /// `_ortho_heuristic`: does the token's case suggest it starts a sentence?
    fn ortho_heuristic(&self, t: &PunktToken) -> Ortho {
        if matches!(t.tok, ";" | ":" | "," | "." | "!" | "?") {
            return Ortho::NotStarter;
        }
        let ctx = self.params.ortho(t.type_no_sentperiod());
        if t.first_upper() && ctx & ORTHO_LC != 0 && ctx & ORTHO_MID_UC == 0 {
            return Ortho::Starter;
        }
        if t.first_lower() && (ctx & ORTHO_UC != 0 || ctx & ORTHO_BEG_LC == 0) {
            return Ortho::NotStarter;
        }
        Ortho::Unknown
    }
}

/// Length of `re_boundary_realignment` (`["')\]}]+?(?:\s+|(?=--)|$)`, MULTILINE) at the
/// start of `s`. The lazy run can only stop after the last closing character, because a
/// closing character is neither whitespace, `-` nor a line end.
fn boundary_realignment(s: &str) -> Option<usize> {
    let run = s
        .bytes()
        .take_while(|b| matches!(b, b'"' | b'\'' | b')' | b']' | b'}'))
        .count();
    if run == 0 {
        return None;
    }
    let rest = &s[run..];
    let ws = rest
        .char_indices()
        .find(|&(_, c)| !py_isspace(c))
        .map_or(rest.len(), |(k, _)| k);
    if ws > 0 {
        return Some(run + ws);
    }
    if rest.is_empty() || rest.starts_with("--") {
        return Some(run);
    }
    None
}

/// `_realign_boundaries`: move closing quotes and brackets after a break into the sentence.
fn realign_boundaries(text: &str, slices: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let slice_text = |(s, e): (usize, usize)| text.get(s..e).unwrap_or("");
    let mut out = Vec::new();
    let mut realign = 0;
    for (k, &(s1, e1)) in slices.iter().enumerate() {
        let sentence1 = (s1 + realign, e1);
        let Some(&sentence2) = slices.get(k + 1) else {
            if !slice_text(sentence1).is_empty() {
                out.push(sentence1);
            }
            continue;
        };
        match boundary_realignment(slice_text(sentence2)) {
            Some(m_end) => {
                let matched = &slice_text(sentence2)[..m_end];
                let kept = matched.trim_end_matches(py_isspace).len();
                out.push((sentence1.0, sentence2.0 + kept));
                realign = m_end;
            }
            None => {
                realign = 0;
                if !slice_text(sentence1).is_empty() {
                    out.push(sentence1);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn english_like() -> PunktParams {
        let mut p = PunktParams::empty();
        for a in ["dr", "mr", "e.g", "u.s", "i.e"] {
            p.abbrev_types.insert(a.to_string());
        }
        p
    }

    #[test]
    fn words_keep_periods_and_split_punctuation() {
        assert_eq!(
            punkt_words("Hello, world. (a.b) -- x... y"),
            vec!["Hello", ",", "world.", "(", "a.b", ")", "--", "x", "...", "y"]
        );
        assert_eq!(punkt_words(". . . x"), vec![". . .", "x"]);
        assert_eq!(punkt_words("a. . . . b"), vec!["a", ". . . .", "b"]);
    }

    #[test]
    fn splits_on_periods_but_not_abbreviations() {
        let params = english_like();
        let t = PunktSentenceTokenizer::new(&params);
        assert_eq!(
            t.sentences("Dr. Smith went home. He slept."),
            vec!["Dr. Smith went home.", "He slept."]
        );
        let empty = PunktParams::empty();
        let t = PunktSentenceTokenizer::new(&empty);
        assert_eq!(
            t.sentences("Dr. Smith went home. He slept."),
            vec!["Dr.", "Smith went home.", "He slept."]
        );
    }

    #[test]
    fn realigns_closing_quotes() {
        let params = PunktParams::empty();
        let t = PunktSentenceTokenizer::new(&params);
        assert_eq!(
            t.sentences("\"He said so.\" Then he left."),
            vec!["\"He said so.\"", "Then he left."]
        );
    }

    #[test]
    fn loads_a_punkt_tab_dir() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("abbrev_types.txt"), "dr\ne.g\n").unwrap();
        std::fs::write(dir.path().join("collocations.tab"), "s\tbach").unwrap();
        std::fs::write(dir.path().join("sent_starters.txt"), "however").unwrap();
        std::fs::write(dir.path().join("ortho_context.tab"), "the\t50\r\nhe\t2").unwrap();
        let p = PunktParams::load_dir(dir.path()).unwrap();
        assert_eq!(p.abbrev_types.len(), 2);
        assert!(p.collocations.contains(&("s".into(), "bach".into())));
        assert_eq!(p.ortho("the"), 50);
        assert_eq!(p.ortho("he"), 2);
        std::fs::write(dir.path().join("ortho_context.tab"), "the\tx").unwrap();
        let err = PunktParams::load_dir(dir.path()).unwrap_err().to_string();
        assert!(err.contains("ortho_context.tab:1"), "{err}");
        let missing = PunktParams::load_dir(&dir.path().join("nope")).unwrap_err();
        assert!(missing.to_string().contains("abbrev_types.txt"));
    }
}
