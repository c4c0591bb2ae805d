//! Dataset report: tables computed once as typed values (Tables I–III, the divergence
//! distribution, uncounted hunks, notes), rendered to markdown, JSON and HTML from the
//! same values.

pub mod correlations;
pub mod d4j;
pub mod effort;
pub mod html;
pub mod judgements;
pub mod outcomes;
pub mod page;
pub mod results;
pub mod tables;

use crate::model::{Instance, NoteKind, ProximityClass, SkipReason};
use crate::stats::{mean, percentile, summary};
use crate::table::{Cell, Table};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use tables::Table2Row;

/// Every table of a dataset's report.
#[derive(Debug, Clone, Serialize)]
pub struct Tables {
    /// Instances kept.
    pub instances: usize,
    /// Counted hunks over the kept instances.
    pub hunks: usize,
    /// Table I: `[single, multi] × [2, 3, ≥4]`.
    pub table1: [[usize; 3]; 2],
    /// Kept instances with fewer than two counted hunks (outside Table I).
    #[serde(default)]
    pub below_table1: usize,
    /// Table II: per project, files = files with a counted hunk.
    pub table2: Vec<Table2Row>,
    /// Table II with files = every file of the patch.
    pub table2_all_files: Vec<Table2Row>,
    /// Examined items whose raw `@@` count differs from the counted one.
    pub not_counted: Vec<NotCounted>,
    /// Table III and the distribution, when the dataset is annotated.
    pub annotation: Option<AnnotationTables>,
    /// What produced the numbers: one line per source (with the Defects4J release the
    /// recipe states) and the annotation profile with every switch.
    pub inputs: Vec<String>,
    /// The git walk's funnel, when the source is a git history.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub funnel: Option<crate::model::MineFunnel>,
    /// What `select.sample` drew, when the recipe samples.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample: Option<tables::SampleLine>,
    /// Agreement with Defects4J's `trigger_tests` per project, when Defects4J validated
    /// the bugs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub d4j_agreement: Vec<d4j::AgreementRow>,
    /// Rejections per maintainer's question (not a fix, broken fix, environment, test
    /// infrastructure, timeout, …), with the number of candidates kept or rejected.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub yields: Vec<(crate::model::YieldClass, usize)>,
    /// Necessary against counted hunks, when the hunks were ablated by running.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub necessary: Option<NecessaryTable>,
}

/// Counted hunks against those the fix needs, by ablation (`hunks[].necessary`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NecessaryTable {
    /// Instances with at least one ablated hunk.
    pub instances: usize,
    /// Their counted hunks.
    pub counted: usize,
    /// Counted hunks whose removal leaves a FAIL_TO_PASS test failing.
    pub necessary: usize,
    /// Counted hunks whose removal still passes every FAIL_TO_PASS test.
    pub not_necessary: usize,
    /// Counted hunks whose ablation could not be decided.
    pub undecided: usize,
    /// Instances whose every counted hunk is necessary.
    pub all_necessary: usize,
    /// Instances with at least two necessary hunks (multi-hunk by execution).
    pub multi_necessary: usize,
}

impl NecessaryTable {
    /// The table over `kept`, `None` when no hunk was ablated.
    pub fn compute(kept: &[Instance]) -> Option<NecessaryTable> {
        let ablated: Vec<&Instance> = kept
            .iter()
            .filter(|i| i.hunks.iter().any(|h| h.necessary.is_some()))
            .collect();
        if ablated.is_empty() {
            return None;
        }
        let mut t = NecessaryTable {
            instances: ablated.len(),
            counted: 0,
            necessary: 0,
            not_necessary: 0,
            undecided: 0,
            all_necessary: 0,
            multi_necessary: 0,
        };
        for i in ablated {
            let counted: Vec<_> = i.hunks.iter().filter(|h| h.counted).collect();
            let needed = counted.iter().filter(|h| h.necessary == Some(true)).count();
            t.counted += counted.len();
            t.necessary += needed;
            t.not_necessary += counted
                .iter()
                .filter(|h| h.necessary == Some(false))
                .count();
            t.undecided += counted.iter().filter(|h| h.necessary.is_none()).count();
            t.all_necessary += usize::from(needed == counted.len());
            t.multi_necessary += usize::from(needed >= 2);
        }
        Some(t)
    }

    /// As a table: one row of hunk counts, one of instance counts.
    pub fn table(&self) -> Table {
        let mut table = Table::new(["", "counted", "necessary", "not necessary", "undecided"])
            .right([1, 2, 3, 4]);
        table.push([
            "hunks".to_string(),
            self.counted.to_string(),
            self.necessary.to_string(),
            self.not_necessary.to_string(),
            self.undecided.to_string(),
        ]);
        table
    }

    /// The section's prose line.
    pub fn summary(&self) -> String {
        format!(
            "{} instances ablated: {} with every counted hunk necessary, {} with at least two necessary hunks (multi-hunk by execution).",
            self.instances, self.all_necessary, self.multi_necessary
        )
    }
}

/// An examined item with uncounted hunks.
#[derive(Debug, Clone, Serialize)]
pub struct NotCounted {
    /// Instance id.
    pub instance_id: String,
    /// Raw `@@` hunks.
    pub raw: usize,
    /// Counted hunks.
    pub counted: usize,
    /// Whether the item was kept.
    pub kept: bool,
    /// Uncounted hunks per rule.
    pub by_rule: BTreeMap<SkipReason, usize>,
}

/// Table III and the divergence distribution.
#[derive(Debug, Clone, Serialize)]
pub struct AnnotationTables {
    /// λ used for proximity.
    pub lambda: Option<u32>,
    /// Table III rows, in class order.
    pub table3: Vec<Table3Row>,
    /// Instances whose class could not be decided (no sources).
    pub undecided: usize,
    /// Instances with a Div(P) value.
    pub with_divergence: usize,
    /// Distribution rows: Div(P) and the components.
    pub distribution: Vec<DistributionRow>,
    /// Histograms of the same samples as `distribution`, in the same order.
    pub histograms: Vec<Histogram>,
    /// Instances per note kind.
    pub notes: Vec<(NoteKind, usize)>,
}

/// One Table III row.
#[derive(Debug, Clone, Serialize)]
pub struct Table3Row {
    /// The class.
    pub class: ProximityClass,
    /// Instances of the class.
    pub bugs: usize,
    /// Of those, how many have Div(P) (the mean is over these).
    pub with_divergence: usize,
    /// Mean Div(P) over those; `None` when none has one.
    pub mean_divergence: Option<f64>,
}

/// Summary statistics of one measure.
#[derive(Debug, Clone, Serialize)]
pub struct DistributionRow {
    /// What is measured.
    pub measure: &'static str,
    /// Sample size.
    pub n: usize,
    /// min, median, mean, p75, max (`None` for an empty sample).
    pub stats: Option<[f64; 5]>,
}

/// Equal-width bins over `[lo, hi]`; a value equal to `hi` falls into the last bin.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Histogram {
    /// What is measured (a [`DistributionRow::measure`]).
    pub measure: &'static str,
    /// Lower edge of the first bin.
    pub lo: f64,
    /// Upper edge of the last bin.
    pub hi: f64,
    /// Values per bin.
    pub counts: Vec<usize>,
}

impl Histogram {
    /// Bin `values` into `bins` equal bins over `[lo, hi]` (values outside are clamped).
    pub fn new(measure: &'static str, values: &[f64], lo: f64, hi: f64, bins: usize) -> Self {
        let bins = bins.max(1);
        let mut counts = vec![0; bins];
        let width = hi - lo;
        for v in values {
            let k = if width > 0.0 {
                (((v - lo) / width) * bins as f64).floor()
            } else {
                0.0
            };
            counts[(k.max(0.0) as usize).min(bins - 1)] += 1;
        }
        Histogram {
            measure,
            lo,
            hi,
            counts,
        }
    }
}

impl Tables {
    /// Compute every table from the kept instances and all examined ones.
    pub fn compute(kept: &[Instance], examined: &[Instance], annotated: bool) -> Tables {
        let ids: std::collections::HashSet<&str> =
            kept.iter().map(|i| i.instance_id.as_str()).collect();
        let not_counted = examined
            .iter()
            .filter(|i| i.hunks.iter().any(|h| !h.counted))
            .map(|i| {
                let mut by_rule = BTreeMap::new();
                for h in i.hunks.iter().filter(|h| !h.counted) {
                    if let Some(r) = h.skip_reason {
                        *by_rule.entry(r).or_default() += 1;
                    }
                }
                NotCounted {
                    instance_id: i.instance_id.clone(),
                    raw: i.hunks.len(),
                    counted: i.stats.hunks,
                    kept: ids.contains(i.instance_id.as_str()),
                    by_rule,
                }
            })
            .collect();
        Tables {
            instances: kept.len(),
            hunks: kept.iter().map(|i| i.stats.hunks).sum(),
            table1: tables::table1(kept),
            below_table1: tables::below_table1(kept),
            table2: tables::table2(kept, false),
            table2_all_files: tables::table2(kept, true),
            not_counted,
            annotation: annotated.then(|| annotation_tables(kept)),
            inputs: Vec::new(),
            funnel: None,
            sample: None,
            d4j_agreement: Vec::new(),
            yields: Vec::new(),
            necessary: NecessaryTable::compute(kept),
        }
    }
}

/// The git walk's funnel as a markdown table: each step with its count, then the
/// rejections per commit rule.
pub fn funnel_markdown(f: &crate::model::MineFunnel) -> String {
    let mut table = Table::new(["step", "commits"]).right([1]);
    let mut row = |step: &str, n: usize| table.push([step.to_string(), n.to_string()]);
    if f.unshipped > 0 {
        row(
            "only on branches that never shipped, not walked",
            f.unshipped,
        );
    }
    row("walked", f.walked);
    row("non-merge", f.non_merge);
    row("message matched", f.message_matched);
    if f.missing_parent > 0 {
        row(
            "parent missing (shallow clone), not examined",
            f.missing_parent,
        );
    }
    row("touching code and tests", f.code_and_tests);
    row("enough hunks (`select.min_code_hunks`)", f.multi_hunk);
    for (rule, n) in &f.rejected {
        row(&format!("rejected: {rule}"), *n);
    }
    row("past the commit rules", f.kept);
    if f.few_counted_hunks > 0 {
        row(
            "fewer counted hunks than the minimum once non-code hunks are skipped",
            f.few_counted_hunks,
        );
        row("instances", f.kept - f.few_counted_hunks.min(f.kept));
    }
    if f.not_sampled > 0 {
        let instances = f.kept - f.few_counted_hunks.min(f.kept);
        row("not sampled (`select.sample`)", f.not_sampled);
        row("sampled", instances - f.not_sampled.min(instances));
    }
    if f.unreadable > 0 {
        row("unreadable (`git_objects` rows)", f.unreadable);
    }
    table.to_markdown()
}

fn annotation_tables(instances: &[Instance]) -> AnnotationTables {
    let class_of = |i: &Instance| i.proximity.as_ref().and_then(|p| p.class);
    let div_of = |i: &Instance| i.divergence.as_ref().and_then(|d| d.value);
    let table3 = ProximityClass::ALL
        .iter()
        .map(|&class| {
            let of: Vec<&Instance> = instances
                .iter()
                .filter(|i| class_of(i) == Some(class))
                .collect();
            let divs: Vec<f64> = of.iter().filter_map(|i| div_of(i)).collect();
            Table3Row {
                class,
                bugs: of.len(),
                with_divergence: divs.len(),
                mean_divergence: mean(&divs),
            }
        })
        .collect();
    let divs: Vec<f64> = instances.iter().filter_map(div_of).collect();
    let pairs: Vec<&crate::model::PairRecord> = instances
        .iter()
        .filter_map(|i| i.divergence.as_ref())
        .flat_map(|d| d.pairs.iter())
        .collect();
    let lex: Vec<f64> = pairs.iter().map(|p| p.d_lex).collect();
    let ast: Vec<f64> = pairs.iter().filter_map(|p| p.d_ast).collect();
    let same_file_ast: Vec<f64> = pairs
        .iter()
        .filter(|p| p.d_file == 0.0)
        .filter_map(|p| p.d_ast)
        .collect();
    let cross_file: Vec<f64> = pairs
        .iter()
        .map(|p| p.d_file)
        .filter(|d| *d > 0.0)
        .collect();
    // Div(P) lies in [0, ln n]: bin it over [0, ln of the largest n].
    let div_hi = instances
        .iter()
        .filter_map(|i| i.divergence.as_ref())
        .map(|d| (d.n.max(2) as f64).ln())
        .fold(2f64.ln(), f64::max);
    let histograms = vec![
        Histogram::new("Div(P)", &divs, 0.0, div_hi, 20),
        Histogram::new("D_lex (pairs)", &lex, 0.0, 1.0, 10),
        Histogram::new("D_ast (all pairs; cross-file = 1)", &ast, 0.0, 1.0, 10),
        Histogram::new("D_ast (same-file pairs)", &same_file_ast, 0.0, 1.0, 10),
        Histogram::new("D_file (cross-file pairs)", &cross_file, 0.0, 1.0, 10),
    ];
    let row = |measure, v: &[f64]| DistributionRow {
        measure,
        n: v.len(),
        stats: (!v.is_empty()).then(|| {
            let s = summary(v);
            [s[0], s[1], s[2], percentile(v, 0.75), s[3]]
        }),
    };
    let notes = NoteKind::ALL
        .iter()
        .map(|&k| {
            let n = instances
                .iter()
                .filter(|i| i.notes.iter().any(|n| n.kind == k))
                .count();
            (k, n)
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    AnnotationTables {
        lambda: instances
            .iter()
            .find_map(|i| i.proximity.as_ref().map(|p| p.lambda)),
        table3,
        undecided: instances.iter().filter(|i| class_of(i).is_none()).count(),
        with_divergence: divs.len(),
        distribution: vec![
            row("Div(P)", &divs),
            row("D_lex (pairs)", &lex),
            row("D_ast (all pairs; cross-file = 1)", &ast),
            row("D_ast (same-file pairs)", &same_file_ast),
            row("D_file (cross-file pairs)", &cross_file),
        ],
        histograms,
        notes,
    }
}

/// The report's record of what produced its numbers: the sources and, when annotated,
/// the profile with every switch.
pub fn inputs(
    sources: &[String],
    profile: Option<crate::annotate::divergence::Profile>,
) -> Vec<String> {
    let mut out: Vec<String> = sources.iter().map(|s| format!("source: {s}")).collect();
    if let Some(p) = profile {
        let switches = serde_json::to_string(&p.switches())
            .unwrap_or_default()
            .replace(['{', '}', '"'], "")
            .replace(':', " = ")
            .replace(',', ", ");
        out.push(format!("annotation profile `{}`: {switches}", p.name()));
    }
    out
}

/// Table III: class, bugs, mean divergence; a mean over fewer instances than the class
/// holds says so in the row.
pub fn table3_table(t: &AnnotationTables) -> Table {
    table3_table_compared(t, false)
}

/// Table III; with `compare`, HUNK4J's published bugs and mean beside differing ones.
pub fn table3_table_compared(t: &AnnotationTables, compare: bool) -> Table {
    let mut table = Table::new(["class", "bugs", "mean divergence"]).right([1, 2]);
    for r in &t.table3 {
        let published = compare
            .then(|| ProximityClass::ALL.iter().position(|c| *c == r.class))
            .flatten()
            .map(|k| tables::HUNK4J_TABLE3[k]);
        let mean = match r.mean_divergence {
            None => "–".to_string(),
            Some(m) if r.with_divergence < r.bugs => {
                format!(
                    "{} (Div for {})",
                    tables::with_published(m, published.map(|p| (p.1, 4))),
                    r.with_divergence
                )
            }
            Some(m) => tables::with_published(m, published.map(|p| (p.1, 4))),
        };
        let bugs = match published {
            Some((b, _)) if b != r.bugs => format!("{} (pub. {b})", r.bugs),
            _ => r.bugs.to_string(),
        };
        table.push([r.class.name().to_string(), bugs, mean]);
    }
    if t.undecided > 0 {
        table.rows.push(vec![
            Cell::from("(undecided: no sources)"),
            Cell::Text(t.undecided.to_string()),
            Cell::Blank,
        ]);
    }
    table
}

/// Table III in markdown under its heading (see [`table3_table`]).
pub fn table3_markdown(t: &AnnotationTables) -> String {
    table3_markdown_compared(t, false)
}

/// Table III in markdown; with `compare`, HUNK4J's published figures beside differing
/// ones.
pub fn table3_markdown_compared(t: &AnnotationTables, compare: bool) -> String {
    let mut out = String::from("\n## Table III — proximity class × mean hunk divergence\n\n");
    if let Some(l) = t.lambda {
        let _ = writeln!(out, "λ = {l}.\n");
    }
    out.push_str(&table3_table_compared(t, compare).to_markdown());
    out
}

/// Examined items whose raw `@@` count differs from the counted one, with the rule that
/// excluded each hunk.
pub fn not_counted_table(rows: &[NotCounted]) -> Table {
    let mut table =
        Table::new(["instance", "raw `@@`", "counted", "kept", "rule: hunks"]).right([1, 2]);
    for r in rows {
        let why: Vec<String> = r
            .by_rule
            .iter()
            .map(|(k, n)| format!("{}: {n}", k.as_str()))
            .collect();
        table.push([
            r.instance_id.clone(),
            r.raw.to_string(),
            r.counted.to_string(),
            if r.kept { "yes" } else { "no" }.to_string(),
            why.join(", "),
        ]);
    }
    table
}

/// The divergence distribution: min, median, mean, p75, max per measure, with the
/// sample size when `with_n`; `–` for an empty sample.
pub fn distribution_table(rows: &[DistributionRow], with_n: bool) -> Table {
    distribution_table_compared(rows, with_n, false)
}

/// The divergence distribution; with `compare`, HUNK4J's published summary beside the
/// figures that differ at the precision it was printed with.
pub fn distribution_table_compared(rows: &[DistributionRow], with_n: bool, compare: bool) -> Table {
    let mut headers = vec!["measure"];
    if with_n {
        headers.push("n");
    }
    headers.extend(["min", "median", "mean", "p75", "max"]);
    let mut table = Table::new(headers.iter().copied()).right(1..headers.len());
    for r in rows {
        let mut cells = vec![r.measure.to_string()];
        if with_n {
            cells.push(r.n.to_string());
        }
        let published = compare
            .then(|| {
                tables::HUNK4J_DISTRIBUTION
                    .iter()
                    .find(|(m, _)| *m == r.measure)
                    .map(|(_, p)| *p)
            })
            .flatten();
        cells.extend((0..5).map(|j| {
            r.stats
                .map(|s| tables::with_published(s[j], published.and_then(|p| p[j])))
                .unwrap_or_else(|| "–".into())
        }));
        table.push(cells);
    }
    table
}

/// Instances per annotation note kind.
pub fn notes_table(notes: &[(NoteKind, usize)]) -> Table {
    let mut table = Table::new(["note", "instances"]).right([1]);
    for (kind, n) in notes {
        table.push([kind.describe().to_string(), n.to_string()]);
    }
    table
}

/// One row per instance: hunks, divergence, class, golden tests (the build summary of a
/// validated dataset).
pub fn instances_markdown(instances: &[Instance]) -> String {
    let mut table = Table::new([
        "instance",
        "hunks",
        "divergence",
        "class",
        "f2p",
        "p2p",
        "flaky",
        "states",
    ]);
    for i in instances {
        let div = i
            .divergence
            .as_ref()
            .and_then(|d| d.value)
            .map(|v| format!("{v:.4}"))
            .unwrap_or_else(|| "–".into());
        let class = i
            .proximity
            .as_ref()
            .and_then(|p| p.class)
            .map(|c| c.name())
            .unwrap_or("–");
        let flaky = i.validation.as_ref().map(|v| v.flaky.len()).unwrap_or(0);
        let states = match &i.states {
            None => "–".to_string(),
            Some(s) if s.missing.is_empty() => s.written.len().to_string(),
            Some(s) => format!(
                "{} ({} missing: {})",
                s.written.len(),
                s.missing.len(),
                s.missing.join("; ")
            ),
        };
        table.push([
            i.instance_id.clone(),
            i.stats.hunks.to_string(),
            div,
            class.to_string(),
            i.FAIL_TO_PASS.len().to_string(),
            i.PASS_TO_PASS.len().to_string(),
            flaky.to_string(),
            states,
        ]);
    }
    format!("\n## Instances\n\n{}", table.to_markdown())
}

/// Tables I and II in markdown (the part `hunkgen stats` and the build summary print).
pub fn tables12_markdown(t: &Tables, compare: bool) -> String {
    tables::render(&t.table1, t.below_table1, &t.table2, compare)
}

/// The yield table: why candidates were not kept, one row per maintainer's question,
/// with its share of the candidates kept or rejected.
pub fn yield_markdown(
    kept: usize,
    yields: &[(crate::model::YieldClass, usize)],
    sampled: Option<usize>,
) -> String {
    let (lead, table) = yield_table(kept, yields, sampled);
    format!("## Yield\n\n{lead}\n\n{}\n", table.to_markdown())
}

/// The yield table and the sentence that says what its shares are of. With a sample
/// (`sampled`: how many were drawn), the shares are of the sampled candidates: the
/// commit rules' rejections came before the draw, from the whole history, and are left
/// to the Funnel.
pub fn yield_table(
    kept: usize,
    yields: &[(crate::model::YieldClass, usize)],
    sampled: Option<usize>,
) -> (String, Table) {
    let before_sample = |c: &crate::model::YieldClass| {
        sampled.is_some() && matches!(c, crate::model::YieldClass::CommitRule)
    };
    let rows: Vec<&(crate::model::YieldClass, usize)> =
        yields.iter().filter(|(c, _)| !before_sample(c)).collect();
    let rejected: usize = rows.iter().map(|(_, n)| n).sum();
    let all = (kept + rejected).max(1);
    let share = match sampled {
        Some(_) => "share of the sampled",
        None => "share of candidates",
    };
    let mut table = Table::new(["question", "items", share]).right([1, 2]);
    table.push(["kept".to_string(), kept.to_string(), pct(kept, all)]);
    for (class, n) in rows {
        table.push([class.label().to_string(), n.to_string(), pct(*n, all)]);
    }
    let lead = match sampled {
        Some(n) => {
            let before: usize = yields
                .iter()
                .filter(|(c, _)| before_sample(c))
                .map(|(_, n)| n)
                .sum();
            format!("{kept} kept of the {n} sampled candidates, every rejection by the question it answers (each a `rejected.jsonl` row); the {before} rejected by the commit rules before the draw are in the Funnel.")
        }
        None => format!("{kept} kept of {all} candidates that were kept or rejected, every rejection by the question it answers (each a `rejected.jsonl` row)."),
    };
    (lead, table)
}

fn pct(n: usize, of: usize) -> String {
    format!("{:.1}%", 100.0 * n as f64 / of as f64)
}

/// The whole `report/tables.md`.
pub fn markdown(name: &str, t: &Tables, warnings: &[String], compare: bool) -> String {
    let mut out = format!("# {name}: dataset report\n\n");
    let _ = writeln!(
        out,
        "{} instances, {} counted hunks (schema v{}).\n",
        t.instances,
        t.hunks,
        crate::model::SCHEMA_VERSION
    );
    if let Some(f) = &t.funnel {
        let _ = writeln!(out, "## Funnel\n\nCommits at each step of the walk (merges are skipped, not rejected; each rejection is a `rejected.jsonl` row).\n");
        out.push_str(&funnel_markdown(f));
        out.push('\n');
    }
    if let Some(s) = &t.sample {
        out.push_str(&s.markdown());
    }
    if !t.yields.is_empty() {
        out.push_str(&yield_markdown(
            t.instances,
            &t.yields,
            t.sample.as_ref().map(|s| s.sampled),
        ));
    }
    out.push_str(&tables12_markdown(t, compare));
    out.push_str(&tables::render_all_files_variant(
        &t.table2_all_files,
        compare,
    ));
    if let Some(n) = &t.necessary {
        let _ = writeln!(
            out,
            "\n## Necessary hunks\n\nEach counted hunk removed from the golden patch and the FAIL_TO_PASS tests run: necessary when one of them then fails (or the tests do not run).\n\n{}\n",
            n.summary()
        );
        out.push_str(&n.table().to_markdown());
    }
    let _ = writeln!(out, "\n## Hunks not counted\n");
    if t.not_counted.is_empty() {
        let _ = writeln!(out, "Every `@@` hunk of every instance is counted.");
    } else {
        let _ = writeln!(
            out,
            "Raw `@@` hunks of the patch against counted hunks, for every examined bug \
             where they differ, with the rule that excluded each hunk.\n"
        );
        out.push_str(&not_counted_table(&t.not_counted).to_markdown());
    }
    if !t.d4j_agreement.is_empty() {
        let _ = writeln!(
            out,
            "\n## Agreement with Defects4J\n\nBugs whose proven FAIL_TO_PASS equals Defects4J's `trigger_tests`, per project; every bug kept out is a `rejected.jsonl` row with its reason.\n"
        );
        out.push_str(&d4j::agreement_table(&t.d4j_agreement).to_markdown());
    }
    if !t.inputs.is_empty() {
        let _ = writeln!(out, "\n## Inputs\n");
        for line in &t.inputs {
            let _ = writeln!(out, "- {line}");
        }
    }
    if let Some(a) = &t.annotation {
        out.push_str(&table3_markdown_compared(a, compare));
        let _ = writeln!(out, "\n## Divergence distribution\n");
        let _ = writeln!(
            out,
            "{} of {} instances have Div(P) (the rest lack a same-file D_ast).\n",
            a.with_divergence, t.instances
        );
        out.push_str(&distribution_table_compared(&a.distribution, false, compare).to_markdown());
        if !warnings.is_empty() {
            let _ = writeln!(out, "\n## Annotation warnings\n");
            for w in warnings {
                let _ = writeln!(out, "- {w}");
            }
        }
        if !a.notes.is_empty() {
            let _ = writeln!(out, "\n## Instances with annotation notes\n");
            out.push_str(&notes_table(&a.notes).to_markdown());
        }
    }
    out
}

/// The same tables as JSON (`report/tables.json`, `hunkgen stats --json`).
pub fn json(t: &Tables) -> String {
    serde_json::to_string_pretty(t).unwrap_or_default()
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
