//! Per-instance annotation: hunk places (method, package), divergence pairs, extras.
//!
//! Inputs are a forward patch and a way to read buggy-side files; outputs are plain
//! records. Proximity needs the dataset-wide λ, so it is classified afterwards by
//! [`classify_all`].

use super::bleu::{sentence_bleu4_ids, Interner};
use super::divergence::{self, Profile, Switches};
use super::proximity::{self, PackageRule};
use super::tokenize::Tokenizer;
use crate::diff::{FilePatch, Hunk, LineKind, Patch, Span};
use crate::extract::{self, CountRules};
use crate::model::{Divergence, Extra, HunkPlace, Instance, Note, NoteKind, PairRecord};
use crate::source::files::{buggy_files, BuggyFiles};
use crate::source::Candidate;
use crate::syntax::{self, AnchorRule, Lang, ParsedFile, TreeShape};
use std::collections::HashMap;

/// Files larger than this are not parsed (ARCHITECTURE §8: skip AST with a reason).
pub const MAX_PARSE_BYTES: usize = 5 * 1024 * 1024;

/// Per-instance annotation result (kept in the build memo, hence serde).
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Annotation {
    /// Divergence over the counted hunks.
    pub divergence: Option<Divergence>,
    /// Places of the counted hunks in hunk (annotation) order, each with its 0-based
    /// index among all `@@` hunks of the patch (the hunk record's `patch_index`).
    pub places: Vec<(usize, HunkPlace)>,
    /// Whether every counted hunk's method is known (sources parsed).
    pub methods_known: bool,
    /// Per-instance notes: why something is null or approximate.
    pub notes: Vec<Note>,
    /// Magic constants: string literals the test patch adds that the buggy files lack.
    pub magic_constants: Vec<String>,
}

/// Settings shared by all instances of a build.
pub struct Annotator {
    /// The profile.
    pub profile: Profile,
    /// Its switches.
    pub switches: Switches,
    /// Tokenizer for D_lex.
    pub tokenizer: Tokenizer,
    /// How hunk packages are found (`auto` decides by source).
    pub packages: PackageRule,
}

impl Annotator {
    /// An annotator for a profile with a tokenizer.
    pub fn new(profile: Profile, tokenizer: Tokenizer) -> Self {
        Annotator {
            profile,
            switches: profile.switches(),
            tokenizer,
            packages: PackageRule::Auto,
        }
    }

    fn tree_shape(&self) -> TreeShape {
        if self.switches.javaparser_tree {
            TreeShape::JavaParser
        } else {
            TreeShape::Named
        }
    }

    fn anchor_rule(&self) -> AnchorRule {
        if self.switches.covering_anchor {
            AnchorRule::Covering
        } else {
            AnchorRule::FirstStatement
        }
    }

    /// The buggy-file span a hunk's D_ast anchor covers: its changed-line span, or with
    /// `header_anchor_span` the span derived from its buggy-side `@@` numbers as written.
    pub fn anchor_span(&self, hunk: &Hunk) -> Span {
        if self.switches.header_anchor_span {
            let (c, d) = hunk.old_range_as_written();
            divergence::header_anchor_span(c, d)
        } else {
            hunk.old_span()
        }
    }

    /// The D_lex text of a hunk: its changed lines, in the profile's order.
    pub fn hunk_text(&self, hunk: &Hunk) -> String {
        let pick = |kind: LineKind| {
            hunk.lines
                .iter()
                .filter(move |l| l.kind == kind)
                .map(|l| String::from_utf8_lossy(l.text()).into_owned())
        };
        let lines: Vec<String> = if self.switches.added_first {
            pick(LineKind::Added)
                .chain(pick(LineKind::Removed))
                .collect()
        } else {
            pick(LineKind::Removed)
                .chain(pick(LineKind::Added))
                .collect()
        };
        lines.join("\n")
    }

    /// Annotate one forward patch. `modified_classes` orders files (Defects4J); `test_patch`
    /// feeds magic constants; `packages` is the resolved package rule.
    pub fn annotate(
        &self,
        patch: &Patch,
        test_patch: &Patch,
        rules: &CountRules,
        modified_classes: &[String],
        files: &dyn BuggyFiles,
        packages: PackageRule,
    ) -> Annotation {
        let none = std::collections::BTreeMap::new();
        self.annotate_with(
            patch,
            test_patch,
            rules,
            &none,
            modified_classes,
            files,
            packages,
        )
    }

    /// [`Annotator::annotate`] with the source's hunk verdicts (`Candidate::skips`), so
    /// annotation counts exactly the hunks extraction counted.
    #[allow(clippy::too_many_arguments)] // The inputs of one annotation, each distinct.
    pub fn annotate_with(
        &self,
        patch: &Patch,
        test_patch: &Patch,
        rules: &CountRules,
        skips: &std::collections::BTreeMap<usize, crate::model::SkipReason>,
        modified_classes: &[String],
        files: &dyn BuggyFiles,
        packages: PackageRule,
    ) -> Annotation {
        let mut ann = Annotation::default();
        // All hunks (counted or not) with their counted flag, in annotation order.
        let mut all: Vec<(&FilePatch, &Hunk, bool, usize)> = Vec::new();
        let mut patch_index = 0;
        for fp in &patch.files {
            for h in &fp.hunks {
                let counted = extract::hunk_skip(fp, h, patch_index, rules, skips).is_none();
                all.push((fp, h, counted, patch_index));
                patch_index += 1;
            }
        }
        if self.switches.modified_classes_order && !modified_classes.is_empty() {
            let rank = |path: &str| {
                let stem = path.strip_suffix(".java").unwrap_or(path);
                modified_classes
                    .iter()
                    .position(|c| {
                        let rel = c.replace('.', "/");
                        stem == rel || stem.ends_with(&format!("/{rel}"))
                    })
                    .unwrap_or(usize::MAX)
            };
            // Stable: unmatched files keep patch order after the matched ones.
            all.sort_by_cached_key(|(fp, h, _, idx)| {
                (rank(fp.path()), file_pos(patch, fp), h.old_start, *idx)
            });
        }
        let counted: Vec<(&FilePatch, &Hunk, usize)> = all
            .iter()
            .filter(|(_, _, c, _)| *c)
            .map(|(f, h, _, i)| (*f, *h, *i))
            .collect();
        let n = counted.len();

        // Parse each distinct buggy file once.
        let mut parsed: HashMap<&str, Option<(ParsedFile, Vec<u8>)>> = HashMap::new();
        for (fp, _, _) in &counted {
            let path = buggy_path(fp);
            if parsed.contains_key(path) {
                continue;
            }
            let r = self.parse_buggy(path, files, &mut ann.notes);
            parsed.insert(path, r);
        }

        // Places: method ids and packages.
        let mut methods_known = true;
        let mut init_files: HashMap<String, bool> = HashMap::new();
        let mut is_package = |dir: &str| {
            *init_files
                .entry(dir.to_string())
                .or_insert_with(|| files.buggy(&format!("{dir}/__init__.py")).is_ok())
        };
        for (order, (fp, h, patch_index)) in counted.iter().enumerate() {
            let path = buggy_path(fp);
            let lang = Lang::from_path(path);
            let python_package = (lang == Some(Lang::Python))
                .then(|| proximity::python_package(path, &mut is_package));
            let parsed_file = match parsed.get(path) {
                Some(Some((pf, bytes))) => Some((pf, bytes)),
                _ => None,
            };
            let package = match (packages, lang) {
                (PackageRule::Modules, Some(Lang::Python)) => {
                    python_package.clone().unwrap_or_default()
                }
                (PackageRule::Modules, Some(Lang::Java)) => {
                    match parsed_file.and_then(|(pf, _)| pf.package()) {
                        Some(p) => p.split('.').map(str::to_string).collect(),
                        None => proximity::java_package_from_path(path),
                    }
                }
                (PackageRule::Modules, None) => syntax::python_module_path(path),
                _ => proximity::package_of(path),
            };
            let mut place = HunkPlace {
                order,
                package,
                ..Default::default()
            };
            match parsed_file {
                Some((pf, bytes)) => {
                    let span = h.old_span();
                    let tail = tail_function(pf, h, bytes);
                    place.method_lines = match (pf.method_for(span), tail) {
                        (Some((b, e)), Some(m)) => Some((b.min(m.begin), e.max(m.end))),
                        (None, Some(m)) => Some((m.begin, m.end)),
                        (found, None) => found,
                    };
                    place.method = place.method_lines.and_then(|(b, e)| {
                        let labels: Vec<&str> = pf
                            .members()
                            .iter()
                            .filter(|m| {
                                m.begin >= b
                                    && m.end <= e
                                    && ((m.begin <= span.end && m.end >= span.start)
                                        || tail.is_some_and(|t| std::ptr::eq(t, *m)))
                            })
                            .map(|m| m.label.as_str())
                            .collect();
                        (!labels.is_empty()).then(|| labels.join(" + "))
                    });
                    place.declared_package = match lang {
                        Some(Lang::Python) => python_package.map(|p| p.join(".")),
                        _ => pf.package().map(str::to_string),
                    };
                }
                None => methods_known = false,
            }
            ann.places.push((*patch_index, place));
        }
        ann.methods_known = methods_known && n > 0;

        // Lexical texts; the published defect gives hunk id i the text of the hunk at
        // position i of the patch file (every `@@`, textual order; reversal keeps it).
        let by_position: Vec<&Hunk> = patch.files.iter().flat_map(|f| &f.hunks).collect();
        let texts: Vec<String> = (0..n)
            .map(|i| {
                let hunk = if self.switches.misaligned_lex_text {
                    by_position.get(i).copied().unwrap_or(counted[i].1)
                } else {
                    counted[i].1
                };
                self.hunk_text(hunk)
            })
            .collect();
        let mut interner = Interner::default();
        let tokens: Vec<Vec<u32>> = texts
            .iter()
            .map(|t| interner.ids(&self.tokenizer.tokenize(t)))
            .collect();
        let anchors: Vec<Option<(syntax::NodeId, u32)>> = counted
            .iter()
            .map(|(fp, h, _)| match parsed.get(buggy_path(fp)) {
                Some(Some((pf, _))) => Some((
                    pf.anchor(self.anchor_span(h), self.anchor_rule()),
                    pf.diameter(),
                )),
                _ => None,
            })
            .collect();
        let reversed = if self.switches.reversed_key_defect {
            divergence::reversed_pairs(n)
        } else {
            Vec::new()
        };
        let mut pairs = Vec::with_capacity(n * n.saturating_sub(1) / 2);
        for i in 0..n {
            for j in i + 1..n {
                let (fi, fj) = (buggy_path(counted[i].0), buggy_path(counted[j].0));
                let same_file = fi == fj;
                let d_lex = 1.0 - sentence_bleu4_ids(&tokens[i], &tokens[j]);
                let d_file = if same_file {
                    0.0
                } else {
                    divergence::d_file(fi, fj, self.switches.lcp_starts_at_minus_one)
                };
                let gamma = if same_file {
                    self.switches.gamma_same_file
                } else {
                    self.switches.gamma_cross_file
                };
                let (mut d_ast, mut dist) = if same_file {
                    match (&anchors[i], &anchors[j], parsed.get(fi)) {
                        (Some((a, diam)), Some((b, _)), Some(Some((pf, _)))) => {
                            let d = pf.distance(*a, *b);
                            (Some(divergence::d_ast(d, *diam)), Some((d, *diam)))
                        }
                        _ => (None, None),
                    }
                } else {
                    (Some(1.0), None)
                };
                // The released pipeline looked up AST distances, which exist only for
                // same-file pairs; cross-file pairs take D_ast = 1 by rule.
                if same_file
                    && reversed
                        .get(i)
                        .and_then(|r| r.get(j))
                        .copied()
                        .unwrap_or(false)
                {
                    d_ast = Some(0.0);
                    dist = None;
                }
                let div = d_ast.map(|a| divergence::pair_divergence(d_lex, a, d_file, gamma));
                pairs.push(PairRecord {
                    i,
                    j,
                    d_lex,
                    d_ast,
                    d_file,
                    gamma,
                    div,
                    dist,
                });
            }
        }
        let value = if pairs.iter().all(|p| p.div.is_some()) {
            let divs: Vec<f64> = pairs.iter().filter_map(|p| p.div).collect();
            Some(divergence::patch_divergence(n, &divs))
        } else {
            None
        };
        ann.divergence = Some(Divergence {
            value,
            n,
            profile: self.profile.name().to_string(),
            pairs,
        });

        // Magic constants: string literals added by the test patch, absent from the
        // buggy files of the fix.
        let sources: Vec<&[u8]> = parsed
            .values()
            .filter_map(|r| r.as_ref().map(|(_, b)| b.as_slice()))
            .collect();
        ann.magic_constants = magic_constants(test_patch, &sources);
        ann
    }

    fn parse_buggy(
        &self,
        path: &str,
        files: &dyn BuggyFiles,
        notes: &mut Vec<Note>,
    ) -> Option<(ParsedFile, Vec<u8>)> {
        let Some(lang) = Lang::from_path(path) else {
            notes.push(Note::file(
                NoteKind::NoGrammar,
                path,
                "no grammar for this file type",
            ));
            return None;
        };
        let bytes = match files.buggy(path) {
            Ok(b) => b,
            Err(e) => {
                notes.push(Note::file(e.kind, path, e.detail));
                return None;
            }
        };
        if bytes.len() > MAX_PARSE_BYTES {
            notes.push(Note::file(
                NoteKind::TooLarge,
                path,
                format!("{} bytes, over the 5 MB parse limit", bytes.len()),
            ));
            return None;
        }
        if std::str::from_utf8(&bytes).is_err() {
            notes.push(Note::file(
                NoteKind::NotUtf8,
                path,
                "not UTF-8, decoded lossily",
            ));
        }
        let pf = syntax::parse_file(lang, &bytes, self.tree_shape());
        if pf.error_count() > 0 {
            notes.push(Note::file(
                NoteKind::SyntaxErrors,
                path,
                format!("{} syntax error node(s); tree kept", pf.error_count()),
            ));
        }
        Some((pf, bytes))
    }
}

impl Annotator {
    /// The finishing step shared by `hunkgen build` and `hunkgen annotate`: annotate a
    /// candidate and write places, divergence, notes and extras into its instance.
    /// Proximity is left for [`super::proximity::classify_all`], which needs the
    /// dataset's λ.
    pub fn annotate_instance(&self, c: &Candidate, rules: &CountRules, inst: &mut Instance) {
        Self::apply(self.annotation(c, rules), inst);
    }

    /// A candidate's annotation, from its patches and its base tree's files.
    pub fn annotation(&self, c: &Candidate, rules: &CountRules) -> Annotation {
        let files = buggy_files(&c.base);
        self.annotate_with(
            &c.patch,
            &c.test_patch,
            rules,
            &c.skips,
            &c.modified_classes,
            files.as_ref(),
            self.packages.resolve(c.source),
        )
    }

    /// Everything an annotation's inputs decide besides the candidate, for the memo
    /// key of [`Annotator::annotation`] (profile, switches, packages rule, tokenizer model).
    pub fn fingerprint(&self) -> String {
        format!(
            "{:?}\n{:?}\n{:?}\n{}",
            self.profile,
            self.switches,
            self.packages,
            self.tokenizer.params().fingerprint()
        )
    }

    /// Write `ann` into `inst`: places, divergence, notes and extras.
    pub fn apply(ann: Annotation, inst: &mut Instance) {
        for (patch_index, place) in ann.places {
            if let Some(h) = inst.hunks.iter_mut().find(|h| h.patch_index == patch_index) {
                h.place = Some(place);
            }
        }
        inst.divergence = ann.divergence;
        inst.notes = ann.notes;
        if !ann.methods_known {
            inst.notes.push(Note::instance(
                NoteKind::MethodsUnknown,
                "methods unknown; single-file proximity undecided",
            ));
        }
        inst.notes.sort();
        inst.notes.dedup();
        inst.extra = Some(Extra {
            code_terms: code_terms(&inst.problem_statement),
            magic_constants: ann.magic_constants,
        });
    }
}

/// The Python function a pure insertion extends at its end ([`ParsedFile::function_extended_by`]):
/// the insertion goes after buggy line `span.start - 1`; trailing blank lines before it
/// are skipped, and its indent is that of its first non-blank added line.
fn tail_function<'p>(pf: &'p ParsedFile, h: &Hunk, buggy: &[u8]) -> Option<&'p syntax::Member> {
    if h.lines.iter().any(|l| l.kind == LineKind::Removed) {
        return None;
    }
    let indent = h
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Added)
        .map(|l| l.text())
        .find(|t| t.iter().any(|b| !b.is_ascii_whitespace()))
        .map(|t| t.iter().take_while(|b| **b == b' ' || **b == b'\t').count())?;
    let lines: Vec<&[u8]> = buggy.split(|b| *b == b'\n').collect();
    let mut last = h.old_span().start.checked_sub(1)?;
    while last > 0
        && lines
            .get(last as usize - 1)
            .is_some_and(|l| l.iter().all(|b| b.is_ascii_whitespace()))
    {
        last -= 1;
    }
    pf.function_extended_by(last, u32::try_from(indent).ok()?)
}

fn file_pos(patch: &Patch, fp: &FilePatch) -> usize {
    patch
        .files
        .iter()
        .position(|f| std::ptr::eq(f, fp))
        .unwrap_or(usize::MAX)
}

/// The buggy-side path of a forward file patch (old path; new path for created files).
pub fn buggy_path(fp: &FilePatch) -> &str {
    fp.old_path.as_deref().unwrap_or_else(|| fp.path())
}

/// String literals on added lines of the test patch that occur in none of `sources`.
pub fn magic_constants(test_patch: &Patch, sources: &[&[u8]]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for fp in &test_patch.files {
        for h in &fp.hunks {
            for l in h.lines.iter().filter(|l| l.kind == LineKind::Added) {
                let text = String::from_utf8_lossy(l.text());
                for lit in string_literals(&text) {
                    if lit.len() < 2 || found.contains(&lit) {
                        continue;
                    }
                    let finder = memchr::memmem::Finder::new(lit.as_bytes());
                    let present = sources.iter().any(|s| finder.find(s).is_some());
                    if !present {
                        found.push(lit);
                    }
                }
            }
        }
    }
    found
}

/// Contents of double-quoted string literals on a line (escapes kept verbatim).
fn string_literals(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '"' {
            continue;
        }
        let start = i + 1;
        let mut escaped = false;
        let mut end = None;
        for (k, d) in chars.by_ref() {
            if escaped {
                escaped = false;
            } else if d == '\\' {
                escaped = true;
            } else if d == '"' {
                end = Some(k);
                break;
            }
        }
        match end {
            Some(e) => out.push(line[start..e].to_string()),
            None => break,
        }
    }
    out
}

/// Code terms in a problem statement: snake_case, camelCase / CamelCase and dotted
/// (`Money.parse`) identifiers, each once, in order of appearance.
pub fn code_terms(text: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for raw in text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')) {
        let word = raw.trim_matches('.');
        if word.is_empty() || word.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            continue;
        }
        let ident = |p: &str| {
            !p.is_empty()
                && p.chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
                && p.chars().all(|c| c.is_alphanumeric() || c == '_')
        };
        let parts: Vec<&str> = word.split('.').collect();
        if !parts.iter().all(|p| ident(p)) {
            continue;
        }
        let snake = word.contains('_') && word.chars().any(|c| c.is_alphabetic());
        let camel = parts.iter().any(|p| {
            p.chars().skip(1).any(|c| c.is_uppercase()) && p.chars().any(|c| c.is_lowercase())
        });
        // `e.g`, `i.e` are prose, not member accesses.
        let dotted = parts.len() > 1 && parts.iter().any(|p| p.len() >= 3);
        if (snake || camel || dotted) && !terms.iter().any(|t| t == word) {
            terms.push(word.to_string());
        }
    }
    terms
}

#[cfg(test)]
mod tests;
