//! NLTK-compatible word tokenization (`nltk.word_tokenize`, NLTK 3.9) for D_lex.
//!
//! `word_tokenize` = Punkt sentence split ([`super::punkt`]) + NLTK's improved Penn
//! Treebank word tokenizer (`NLTKWordTokenizer`, `convert_parentheses=False`) on each
//! sentence. The Treebank rules are the same regex substitutions in the same order;
//! NLTK's look-arounds, `\b` and Python's `$` (which also matches before a final
//! newline) are written out by hand, and `\s`/`\w`/`\d` follow Python's definitions.
//!
//! The Punkt model (NLTK's English `punkt_tab`) is fetched data, so it is not compiled
//! in: [`Tokenizer::from_env`] reads the directory named by `HUNKGEN_PUNKT_DIR`, and
//! without it the tokenizer falls back to empty parameters (no abbreviations etc.).

use std::path::Path;
use std::sync::{LazyLock, OnceLock};

use regex::{Captures, Regex};

use super::punkt::{py_is_word, py_isspace, PunktError, PunktParams, PunktSentenceTokenizer};

/// Environment variable naming the `punkt_tab` language directory (English model).
pub const PUNKT_DIR_ENV: &str = "HUNKGEN_PUNKT_DIR";

/// A word tokenizer bound to one set of Punkt parameters; cheap to share across threads.
#[derive(Debug, Clone, Default)]
pub struct Tokenizer {
    params: PunktParams,
}

impl Tokenizer {
    /// Tokenize with these Punkt parameters (use [`PunktParams::empty`] for no model).
    pub fn new(params: PunktParams) -> Self {
        Tokenizer { params }
    }

    /// Load the Punkt parameters from a `punkt_tab` language directory.
    pub fn from_dir(dir: &Path) -> Result<Self, PunktError> {
        Ok(Self::new(PunktParams::load_dir(dir)?))
    }

    /// The tokenizer `HUNKGEN_PUNKT_DIR` selects: `Ok(None)` when the variable is unset or
    /// empty, an error when it names a directory that cannot be loaded.
    pub fn from_env() -> Result<Option<Self>, PunktError> {
        match std::env::var_os(PUNKT_DIR_ENV) {
            Some(dir) if !dir.is_empty() => Self::from_dir(Path::new(&dir)).map(Some),
            _ => Ok(None),
        }
    }

    /// The parameters in use, so callers can record which model produced a dataset.
    pub fn params(&self) -> &PunktParams {
        &self.params
    }

    /// `nltk.word_tokenize(text)`: Punkt sentences, then Treebank words of each.
    pub fn tokenize(&self, text: &str) -> Vec<String> {
        let splitter = PunktSentenceTokenizer::new(&self.params);
        splitter
            .sentences(text)
            .into_iter()
            .flat_map(treebank_tokenize)
            .collect()
    }
}

static DEFAULT: OnceLock<Result<Tokenizer, PunktError>> = OnceLock::new();

/// The process-wide tokenizer: `HUNKGEN_PUNKT_DIR` if set, else empty parameters. The
/// error (a set variable naming a bad directory) is kept so every caller can report it.
pub fn default_tokenizer() -> Result<&'static Tokenizer, &'static PunktError> {
    DEFAULT
        .get_or_init(|| Tokenizer::from_env().map(Option::unwrap_or_default))
        .as_ref()
}

/// `nltk.word_tokenize(text)` with the default tokenizer. If `HUNKGEN_PUNKT_DIR` names
/// a directory that does not load, this warns once on stderr and uses empty parameters;
/// call [`default_tokenizer`] first to turn that into an error instead.
pub fn word_tokenize(text: &str) -> Vec<String> {
    static FALLBACK: LazyLock<Tokenizer> = LazyLock::new(|| {
        if let Err(e) = default_tokenizer() {
            eprintln!("warning: {e}; tokenizing without a Punkt model");
        }
        Tokenizer::default()
    });
    match default_tokenizer() {
        Ok(t) => t.tokenize(text),
        Err(_) => FALLBACK.tokenize(text),
    }
}

/// A substitution rule: pattern and Rust replacement template.
type Rule = (Regex, &'static str);

fn rule(pattern: &str, replacement: &'static str) -> Rule {
    #[allow(clippy::unwrap_used)] // constant patterns, all compiled by the unit tests
    (Regex::new(pattern).unwrap(), replacement)
}

struct Rules {
    starting: Vec<Rule>,
    colon_comma: Rule,
    colon_comma_end: Rule,
    ellipsis: Rule,
    quote_space: Rule,
    double_dash: Rule,
    ending: Vec<Rule>,
    ending_clitics: Vec<Rule>,
    contractions2: Vec<(Regex, Follow)>,
    contractions3: Vec<Regex>,
}

/// What must follow a contraction match: `\b` after a word character, or `(?=\s)`.
#[derive(Clone, Copy)]
enum Follow {
    WordBoundary,
    Space,
}

static RULES: LazyLock<Rules> = LazyLock::new(|| Rules {
    starting: vec![
        rule("([«“‘„]|[`]+)", " $1 "),
        rule("^\"", "``"),
        rule("(``)", " $1 "),
        rule(r#"([ (\[{<])("|'{2})"#, "$1 `` "),
    ],
    colon_comma: rule(r"([:,])([^\d])", " $1 $2"),
    // Python's `$` also matches before a final newline.
    colon_comma_end: rule(r"([:,])(\n?)\z", " $1 $2"),
    ellipsis: rule(r"\.{2,}", " $0 "),
    quote_space: rule(r"([^'])' ", "$1 ' "),
    double_dash: rule(r"--", " -- "),
    ending: vec![rule("''", " '' "), rule("\"", " '' ")],
    ending_clitics: vec![
        rule(r"([^' ])('[sS]|'[mM]|'[dD]|') ", "$1 $2 "),
        rule(r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", "$1 $2 "),
    ],
    contractions2: [
        ("(?i)(can)(not)", Follow::WordBoundary),
        ("(?i)(d)('ye)", Follow::WordBoundary),
        ("(?i)(gim)(me)", Follow::WordBoundary),
        ("(?i)(gon)(na)", Follow::WordBoundary),
        ("(?i)(got)(ta)", Follow::WordBoundary),
        ("(?i)(lem)(me)", Follow::WordBoundary),
        ("(?i)(more)('n)", Follow::WordBoundary),
        ("(?i)(wan)(na)", Follow::Space),
    ]
    .into_iter()
    .map(|(p, f)| (rule(p, "").0, f))
    .collect(),
    contractions3: ["(?i) ('t)(is)", "(?i) ('t)(was)"]
        .into_iter()
        .map(|p| rule(p, "").0)
        .collect(),
});

fn apply(rules: &[Rule], mut text: String) -> String {
    for (re, rep) in rules {
        text = apply_one(re, rep, text);
    }
    text
}

fn apply_one(re: &Regex, rep: &str, text: String) -> String {
    match re.replace_all(&text, rep) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(s) => s,
    }
}

fn prev_char(s: &str, i: usize) -> Option<char> {
    s[..i].chars().next_back()
}

fn next_char(s: &str, i: usize) -> Option<char> {
    s[i..].chars().next()
}

/// `re.sub` of a fixed-literal pattern whose surrounding look-arounds are checked by
/// `accept`; a rejected candidate is retried one character later, as the regex engine
/// would.
fn sub_checked(
    re: &Regex,
    text: String,
    accept: impl Fn(&str, usize, usize) -> bool,
    replace: impl Fn(&Captures) -> String,
) -> String {
    let mut out = String::new();
    let mut last = 0;
    let mut pos = 0;
    let mut changed = false;
    while let Some(caps) = re.captures_at(&text, pos) {
        let Some(m) = caps.get(0) else { break };
        if accept(&text, m.start(), m.end()) {
            out.push_str(&text[last..m.start()]);
            out.push_str(&replace(&caps));
            last = m.end();
            pos = m.end();
            changed = true;
        } else {
            pos = m.start() + next_char(&text, m.start()).map_or(1, char::len_utf8);
        }
        if pos > text.len() {
            break;
        }
    }
    if !changed {
        return text;
    }
    out.push_str(&text[last..]);
    out
}

/// NLTK 3.9's `(?i)(\')(?!re|ve|ll|m|t|s|d|n)(\w)\b` → `\1 \2`: split a quote from a
/// one-character word (`'x'` → `' x'`), except the clitics `'m 't 's 'd 'n`.
fn split_quote_before_single_char(text: String) -> String {
    if !text.contains('\'') {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut last = 0;
    let mut resume = 0;
    for (p, c) in text.char_indices() {
        if c != '\'' || p < resume {
            continue;
        }
        let Some(w) = next_char(&text, p + 1) else {
            continue;
        };
        if !py_is_word(w) {
            continue;
        }
        let after = p + 1 + w.len_utf8();
        if next_char(&text, after).is_some_and(py_is_word) {
            continue;
        }
        let clitic = matches!(
            w,
            'm' | 'M' | 't' | 'T' | 's' | 'S' | 'd' | 'D' | 'n' | 'N' | 'ſ'
        );
        if clitic {
            continue;
        }
        out.push_str(&text[last..=p]);
        out.push(' ');
        last = p + 1;
        resume = after;
    }
    if last == 0 {
        return text;
    }
    out.push_str(&text[last..]);
    out
}

/// The two "final period" rules: `([^\.])(\.)([CLASS]*)\s*$`. At most one match exists
/// (the tail after the period holds no period), so it is the last period of the text.
fn final_period(text: String, class: &[char], spaced: bool) -> String {
    let Some(q) = text.rfind('.') else {
        return text;
    };
    if q == 0 || prev_char(&text, q) == Some('.') {
        return text;
    }
    let tail = &text[q + 1..];
    let run = tail.find(|c| !class.contains(&c)).unwrap_or(tail.len());
    if !tail[run..].chars().all(py_isspace) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 4);
    out.push_str(&text[..q]);
    out.push_str(if spaced { " . " } else { " ." });
    out.push_str(&tail[..run]);
    out.push(' ');
    out
}

/// `re.sub("[SET]", r" \g<0> ", text)` for a character predicate, in one pass.
fn pad_chars(text: String, pad: impl Fn(char) -> bool) -> String {
    let Some(first) = text.find(&pad) else {
        return text;
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if pad(c) {
            out.push(' ');
            out.push(c);
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// `re.sub(r"\s+", " ", text)` with Python's `\s`.
fn collapse_space(text: String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_space = false;
    for c in text.chars() {
        if py_isspace(c) {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(c);
            in_space = false;
        }
    }
    out
}

const FINAL_PERIOD_CLASS_1: &[char] = &[']', ')', '}', '>', '"', '\'', '»', '”', '’', ' '];
const FINAL_PERIOD_CLASS_2: &[char] = &[']', ')', '}', '>', '"', '\''];

/// `NLTKWordTokenizer().tokenize(sentence)` (convert_parentheses=False).
pub fn treebank_tokenize(sentence: &str) -> Vec<String> {
    let r = &*RULES;
    let mut text = apply(&r.starting, sentence.to_string());
    text = split_quote_before_single_char(text);

    text = final_period(text, FINAL_PERIOD_CLASS_1, true);
    text = apply_one(&r.colon_comma.0, r.colon_comma.1, text);
    text = apply_one(&r.colon_comma_end.0, r.colon_comma_end.1, text);
    text = apply_one(&r.ellipsis.0, r.ellipsis.1, text);
    // `[;@#$%&]` then `[\u2012-\u2015]` → " \g<0> " (padding different characters commutes).
    text = pad_chars(text, |c| {
        matches!(
            c,
            ';' | '@' | '#' | '$' | '%' | '&' | '\u{2012}'..='\u{2015}'
        )
    });
    text = final_period(text, FINAL_PERIOD_CLASS_2, false);
    text = pad_chars(text, |c| matches!(c, '?' | '!'));
    text = apply_one(&r.quote_space.0, r.quote_space.1, text);
    // `[*]` then the parentheses/brackets rule.
    text = pad_chars(text, |c| {
        matches!(c, '*' | '[' | ']' | '(' | ')' | '{' | '}' | '<' | '>')
    });
    text = apply_one(&r.double_dash.0, r.double_dash.1, text);

    let mut padded = String::with_capacity(text.len() + 2);
    padded.push(' ');
    padded.push_str(&text);
    padded.push(' ');
    text = pad_chars(padded, |c| matches!(c, '»' | '”' | '’'));
    text = apply(&r.ending, text);
    text = collapse_space(text);
    text = apply(&r.ending_clitics, text);

    for (re, follow) in &r.contractions2 {
        let follow = *follow;
        text = sub_checked(
            re,
            text,
            |t, s, e| {
                let left = !prev_char(t, s).is_some_and(py_is_word);
                let right = match follow {
                    Follow::WordBoundary => !next_char(t, e).is_some_and(py_is_word),
                    Follow::Space => next_char(t, e).is_some_and(py_isspace),
                };
                left && right
            },
            |c| format!(" {} {} ", &c[1], &c[2]),
        );
    }
    for re in &r.contractions3 {
        text = sub_checked(
            re,
            text,
            |t, _, e| !next_char(t, e).is_some_and(py_is_word),
            |c| format!(" {} {} ", &c[1], &c[2]),
        );
    }
    text.split(py_isspace)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tb(s: &str) -> Vec<String> {
        treebank_tokenize(s)
    }

    #[test]
    fn nltk_doc_example() {
        let s = "Good muffins cost $3.88\nin New York.  Please buy me\ntwo of them.\nThanks.";
        assert_eq!(
            Tokenizer::default().tokenize(s),
            vec![
                "Good", "muffins", "cost", "$", "3.88", "in", "New", "York", ".", "Please", "buy",
                "me", "two", "of", "them", ".", "Thanks", "."
            ]
        );
    }

    #[test]
    fn quotes_and_contractions() {
        assert_eq!(
            tb("\"I can't,\" she said."),
            vec!["``", "I", "ca", "n't", ",", "''", "she", "said", "."]
        );
        assert_eq!(tb("I cannot gonna"), vec!["I", "can", "not", "gon", "na"]);
        assert_eq!(tb("'tis fine"), vec!["'t", "is", "fine"]);
        assert_eq!(tb("c = 'x';"), vec!["c", "=", "'", "x", "'", ";"]);
        assert_eq!(tb("wanna"), vec!["wan", "na"]);
        assert_eq!(tb("wanna go"), vec!["wan", "na", "go"]);
    }

    #[test]
    fn code_like_text() {
        assert_eq!(
            tb("a.b(c, d[0]);"),
            vec!["a.b", "(", "c", ",", "d", "[", "0", "]", ")", ";"]
        );
        assert_eq!(tb("x -- y"), vec!["x", "--", "y"]);
        assert_eq!(tb("end."), vec!["end", "."]);
        assert_eq!(tb("1,5 a,b"), vec!["1,5", "a", ",", "b"]);
    }

    #[test]
    fn trailing_colon_before_final_newline() {
        assert_eq!(tb("case 1:\n"), vec!["case", "1", ":"]);
    }

    #[test]
    fn empty_and_blank() {
        assert!(Tokenizer::default().tokenize("").is_empty());
        assert!(Tokenizer::default().tokenize(" \n\t ").is_empty());
    }
}
