//! HUNK4J Tables I and II: computed from instances once, rendered with the published
//! figures alongside.

use crate::model::Instance;
use crate::stats::summary;
use crate::table::Table;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Table II row as published: bugs; hunks min/median/mean/max; files min/median/mean/max.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PublishedRow {
    /// Project name (`total` for the last row).
    pub project: &'static str,
    /// Number of multi-hunk bugs.
    pub bugs: usize,
    /// Hunks per bug: min, median, mean, max.
    pub hunks: [f64; 4],
    /// Files per bug: min, median, mean, max.
    pub files: [f64; 4],
}

/// HUNK4J Table II (reference/hunk4j.md), so reports show where a build differs.
pub const HUNK4J_TABLE2: [PublishedRow; 18] = [
    row("Chart", 10, [2.0, 2.5, 3.0, 6.0], [1.0, 1.0, 1.2, 2.0]),
    row("Cli", 17, [2.0, 2.0, 3.47, 10.0], [1.0, 1.0, 1.71, 4.0]),
    row("Closure", 82, [2.0, 3.0, 4.06, 21.0], [1.0, 1.0, 1.63, 6.0]),
    row("Codec", 7, [2.0, 3.0, 3.57, 7.0], [1.0, 2.0, 2.43, 6.0]),
    row("Collections", 1, [3.0, 3.0, 3.0, 3.0], [1.0, 1.0, 1.0, 1.0]),
    row(
        "Compress",
        18,
        [2.0, 3.0, 3.89, 14.0],
        [1.0, 1.0, 1.61, 7.0],
    ),
    row("Csv", 4, [2.0, 2.0, 2.5, 4.0], [1.0, 1.0, 1.25, 2.0]),
    row("Gson", 7, [2.0, 2.0, 4.0, 12.0], [1.0, 1.0, 1.43, 3.0]),
    row(
        "JacksonCore",
        12,
        [2.0, 3.5, 4.33, 8.0],
        [1.0, 2.0, 1.75, 3.0],
    ),
    row(
        "JacksonDatabind",
        55,
        [2.0, 3.0, 4.58, 26.0],
        [1.0, 1.0, 1.87, 16.0],
    ),
    row("JacksonXml", 3, [2.0, 2.0, 2.67, 4.0], [1.0, 1.0, 1.0, 1.0]),
    row("Jsoup", 37, [2.0, 3.0, 4.73, 47.0], [1.0, 1.0, 1.89, 5.0]),
    row("JxPath", 14, [2.0, 4.0, 4.5, 11.0], [1.0, 2.0, 1.93, 5.0]),
    row("Lang", 25, [2.0, 2.0, 2.72, 7.0], [1.0, 1.0, 1.0, 1.0]),
    row("Math", 50, [2.0, 2.0, 2.8, 12.0], [1.0, 1.0, 1.26, 7.0]),
    row("Mockito", 20, [2.0, 3.0, 4.0, 20.0], [1.0, 1.0, 1.4, 5.0]),
    row("Time", 10, [2.0, 3.0, 4.0, 10.0], [1.0, 1.0, 1.5, 3.0]),
    row("total", 372, [2.0, 3.0, 3.86, 47.0], [1.0, 1.0, 1.59, 16.0]),
];

const fn row(project: &'static str, bugs: usize, hunks: [f64; 4], files: [f64; 4]) -> PublishedRow {
    PublishedRow {
        project,
        bugs,
        hunks,
        files,
    }
}

/// HUNK4J Table III as published: bugs and mean Div(P) per proximity class, nearest
/// first (`ProximityClass::ALL` order).
pub const HUNK4J_TABLE3: [(usize, f64); 5] = [
    (59, 0.2548),
    (185, 0.4280),
    (67, 0.5628),
    (50, 0.6718),
    (11, 0.7372),
];

/// A published min, median, mean, p75 and max, each with its printed decimals.
pub type PublishedSummary = [Option<(f64, usize)>; 5];

/// HUNK4J's divergence summary as published, per measure of the report's distribution
/// (min, median, mean, p75, max; `None` where the paper gives none), each with the
/// decimals it was printed with. D_ast's published median and mean are taken as over
/// all pairs (a cross-file pair counting 1), the reading of its definition.
pub const HUNK4J_DISTRIBUTION: [(&str, PublishedSummary); 4] = [
    (
        "Div(P)",
        [
            Some((0.0, 2)),
            Some((0.42, 2)),
            Some((0.47, 2)),
            Some((0.624, 3)),
            Some((1.60, 2)),
        ],
    ),
    (
        "D_lex (pairs)",
        [None, Some((0.94, 2)), Some((0.82, 2)), None, None],
    ),
    (
        "D_ast (all pairs; cross-file = 1)",
        [None, Some((0.6, 1)), Some((0.62, 2)), None, None],
    ),
    (
        "D_file (cross-file pairs)",
        [None, Some((0.250, 3)), Some((0.251, 3)), None, None],
    ),
];

/// `computed` to four decimals, with ` (pub. X)` when it differs from the published
/// figure at the precision the paper printed it with.
pub fn with_published(computed: f64, published: Option<(f64, usize)>) -> String {
    let c = format!("{computed:.4}");
    match published {
        Some((p, d)) if format!("{computed:.d$}") != format!("{p:.d$}") => {
            format!("{c} (pub. {p:.d$})")
        }
        _ => c,
    }
}

/// HUNK4J Table I as published: rows single-file / multi-file, columns 2 / 3 / ≥4 hunks.
pub const HUNK4J_TABLE1: [[usize; 3]; 2] = [[140, 55, 49], [37, 23, 68]];

/// Computed Table I: `[single, multi] × [2, 3, ≥4]` counts over counted hunks and files.
/// Instances with fewer than two counted hunks (a FixedBench recipe keeps single-hunk
/// fixes) are outside its columns, never counted as two-hunk ones; [`below_table1`]
/// counts them.
pub fn table1(instances: &[Instance]) -> [[usize; 3]; 2] {
    let mut t = [[0usize; 3]; 2];
    for inst in instances {
        let r = usize::from(inst.stats.files > 1);
        let c = match inst.stats.hunks {
            0 | 1 => continue,
            2 => 0,
            3 => 1,
            _ => 2,
        };
        t[r][c] += 1;
    }
    t
}

/// Instances with fewer than two counted hunks, which Table I's columns leave out.
pub fn below_table1(instances: &[Instance]) -> usize {
    instances.iter().filter(|i| i.stats.hunks < 2).count()
}

/// The line said under Table I when some instances are outside it.
pub fn below_table1_note(n: usize) -> Option<String> {
    (n > 0).then(|| {
        format!(
            "{n} instance(s) with fewer than two counted hunks are outside Table I's columns (HUNK4J's start at two)."
        )
    })
}

/// One Table II row.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Table2Row {
    /// Project (`total` for the last row).
    pub project: String,
    /// Bugs of the project.
    pub bugs: usize,
    /// Hunks per bug: min, median, mean, max.
    pub hunks: [f64; 4],
    /// Files per bug: min, median, mean, max.
    pub files: [f64; 4],
}

/// Computed Table II rows per project plus a `total` row.
pub fn table2(instances: &[Instance], raw_files: bool) -> Vec<Table2Row> {
    let mut by: BTreeMap<&str, Vec<&Instance>> = BTreeMap::new();
    for i in instances {
        by.entry(i.project.as_str()).or_default().push(i);
    }
    let files_of = |i: &Instance| {
        if raw_files {
            i.stats.raw_files as f64
        } else {
            i.stats.files as f64
        }
    };
    let mut rows: Vec<_> = by
        .iter()
        .map(|(p, v)| {
            let h: Vec<f64> = v.iter().map(|i| i.stats.hunks as f64).collect();
            let f: Vec<f64> = v.iter().map(|i| files_of(i)).collect();
            Table2Row {
                project: p.to_string(),
                bugs: v.len(),
                hunks: summary(&h),
                files: summary(&f),
            }
        })
        .collect();
    let h: Vec<f64> = instances.iter().map(|i| i.stats.hunks as f64).collect();
    let f: Vec<f64> = instances.iter().map(files_of).collect();
    rows.push(Table2Row {
        project: "total".into(),
        bugs: instances.len(),
        hunks: summary(&h),
        files: summary(&f),
    });
    rows
}

/// A number as the paper prints it: integers plain, others with two decimals.
fn fmt_num(x: f64, decimals: bool) -> String {
    if decimals {
        format!("{x:.2}")
    } else {
        format!("{}", x.round() as i64)
    }
}

/// `computed` or `computed (pub. X)` when the published figure differs at print precision.
fn cell(computed: f64, published: Option<f64>, decimals: bool) -> String {
    let c = fmt_num(computed, decimals);
    match published {
        Some(p) if fmt_num(p, decimals) != c => format!("{c} (pub. {})", fmt_num(p, decimals)),
        _ => c,
    }
}

/// Which columns of Table II a rendering shows besides the project and the file figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table2Columns {
    /// The number of bugs.
    pub bugs: bool,
    /// The hunk figures.
    pub hunks: bool,
}

/// Table I as a [`Table`]: scope rows (single-file, multi-file, total) × 2 / 3 / ≥4
/// hunks and a total; with `compare`, published HUNK4J figures beside differing ones.
pub fn table1_table(t1: &[[usize; 3]; 2], compare: bool) -> Table {
    let mut table = Table::new(["scope", "2 hunks", "3 hunks", "≥4 hunks", "total"])
        .right(1..5)
        .with_row_headers();
    let published_col = |c: usize| HUNK4J_TABLE1[0][c] + HUNK4J_TABLE1[1][c];
    for (r, name) in ["single-file", "multi-file", "total"].iter().enumerate() {
        let (computed, published): (Vec<usize>, Vec<usize>) = if r < 2 {
            (t1[r].to_vec(), HUNK4J_TABLE1[r].to_vec())
        } else {
            (
                (0..3).map(|c| t1[0][c] + t1[1][c]).collect(),
                (0..3).map(published_col).collect(),
            )
        };
        let mut cells: Vec<String> = vec![name.to_string()];
        cells.extend((0..3).map(|c| {
            cell(
                computed[c] as f64,
                compare.then(|| published[c] as f64),
                false,
            )
        }));
        cells.push(cell(
            computed.iter().sum::<usize>() as f64,
            compare.then(|| published.iter().sum::<usize>() as f64),
            false,
        ));
        table.push(cells);
    }
    table
}

/// Table II as a [`Table`] with the given columns; with `compare`, published HUNK4J
/// figures beside differing ones.
pub fn table2_table(rows: &[Table2Row], compare: bool, columns: Table2Columns) -> Table {
    let mut headers = vec!["project"];
    if columns.bugs {
        headers.push("bugs");
    }
    if columns.hunks {
        headers.extend(["h min", "h med", "h mean", "h max"]);
    }
    headers.extend(["f min", "f med", "f mean", "f max"]);
    let mut table = Table::new(headers.iter().copied());
    table = table.right(1..headers.len());
    for Table2Row {
        project,
        bugs,
        hunks: h,
        files: f,
    } in rows
    {
        let published = published_row(project, compare);
        let mut cells = vec![project.clone()];
        if columns.bugs {
            cells.push(cell(*bugs as f64, published.map(|p| p.bugs as f64), false));
        }
        let mut groups = Vec::new();
        if columns.hunks {
            groups.push((h, published.map(|p| p.hunks)));
        }
        groups.push((f, published.map(|p| p.files)));
        for (vals, pubs) in groups {
            for j in 0..4 {
                let decimals = j == 1 || j == 2;
                cells.push(cell(vals[j], pubs.map(|p| p[j]), decimals));
            }
        }
        table.push(cells);
    }
    table
}

/// Markdown for Tables I and II; with `compare`, published HUNK4J figures are shown
/// beside every computed figure that differs.
pub fn render(t1: &[[usize; 3]; 2], below: usize, t2: &[Table2Row], compare: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## Table I — file scope × hunk count\n");
    out.push_str(&table1_table(t1, compare).to_markdown());
    if let Some(note) = below_table1_note(below) {
        let _ = writeln!(out, "\n{note}");
    }
    let _ = writeln!(out);

    let _ = writeln!(out, "## Table II — per project\n");
    let _ = writeln!(
        out,
        "Hunks: counted code hunks per bug. Files: files with a counted hunk per bug.\n"
    );
    let all = Table2Columns {
        bugs: true,
        hunks: true,
    };
    out.push_str(&table2_table(t2, compare, all).to_markdown());
    out
}

fn published_row(project: &str, compare: bool) -> Option<&'static PublishedRow> {
    compare
        .then(|| HUNK4J_TABLE2.iter().find(|r| r.project == project))
        .flatten()
}

/// Table II's file columns under the other counting rule: every file of the patch,
/// whatever its kind and whether its hunks count.
pub fn render_all_files_variant(t2_all: &[Table2Row], compare: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n### Files per bug, counting every file of the patch\n\n\
         The published file columns follow no single rule exactly (reference/hunk4j.md); \
         this variant counts every file of the patch, whatever its kind and whether its \
         hunks count.\n"
    );
    let files = Table2Columns {
        bugs: false,
        hunks: false,
    };
    out.push_str(&table2_table(t2_all, compare, files).to_markdown());
    out
}

/// `select.sample` as the report states it: how many instances were drawn, of how many,
/// and how.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SampleLine {
    /// The recipe's `n`.
    pub n: usize,
    /// The recipe's `seed`.
    pub seed: u64,
    /// The recipe's `stratify_by`.
    pub stratify_by: &'static str,
    /// Candidates with enough counted hunks: what the sample was drawn from.
    pub population: usize,
    /// Those drawn (validated, kept or rejected after).
    pub sampled: usize,
    /// Those left out (`not_sampled`).
    pub not_sampled: usize,
}

impl SampleLine {
    /// The report's `## Sample` section.
    pub fn markdown(&self) -> String {
        let strata = match self.stratify_by {
            "none" => String::new(),
            by => format!(", stratified by {by}"),
        };
        format!(
            "## Sample\n\n`select.sample` drew {} of the {} candidates with enough counted hunks \
             (n {}, seed {}{strata}); the other {} are `not_sampled`: not rejections, never \
             validated, in no file of the dataset.\n\n",
            self.sampled, self.population, self.n, self.seed, self.not_sampled
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(hunks: usize, files: usize) -> Instance {
        let mut i: Instance = serde_json::from_value(serde_json::json!({
            "schema_version": 2, "instance_id": "x", "repo": "r", "base_commit": "b",
            "patch": "", "test_patch": "", "problem_statement": "", "hints_text": "",
            "created_at": "", "version": "", "FAIL_TO_PASS": [], "PASS_TO_PASS": [],
            "environment_setup_commit": "", "source": "git", "fix_commit": "f",
            "project": "p", "hunks": [], "files": [], "stats": crate::model::Stats::default()
        }))
        .expect("instance");
        i.stats.hunks = hunks;
        i.stats.files = files;
        i
    }

    #[test]
    fn single_hunk_instances_are_outside_table1_not_in_its_two_hunk_column() {
        let kept = [with(1, 1), with(2, 1), with(3, 2), with(5, 2), with(1, 1)];
        assert_eq!(table1(&kept), [[1, 0, 0], [0, 1, 1]]);
        assert_eq!(below_table1(&kept), 2);
        assert!(below_table1_note(2).is_some_and(|n| n.starts_with("2 instance(s)")));
        assert_eq!(below_table1_note(0), None);
    }
}
