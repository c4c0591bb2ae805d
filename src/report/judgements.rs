//! The behaviour labels of agent runs (`hunkgen judge`'s `judgements-summary.json`) as
//! tables: each category's share of the judged runs by outcome, instruction, scenario
//! and state, and agent, and the judge against human labels; rendered to markdown (the
//! summary's `.md`, `hunkgen judge`'s output) and to the report page from the same rows.

use crate::model::{Agreement, Frequencies, JudgementSummary};
use crate::table::{esc, Table};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Instructions in FixedBench's order (others follow by name).
const INSTRUCTIONS: [&str; 4] = ["issue", "edit", "reproduce", "abstain-or-fix"];
/// Scenarios, then states, in the paper's order.
const SCENARIOS: [&str; 2] = ["best", "worst"];
const STATES: [&str; 3] = ["novel", "partial", "resolved"];
const OUTCOMES: [&str; 2] = ["abstained", "edited"];

/// The groups of `by` in `order` first, then the rest by name.
fn ordered<'a>(
    by: &'a BTreeMap<String, Frequencies>,
    order: &[&str],
) -> Vec<(&'a str, &'a Frequencies)> {
    let mut out: Vec<(&str, &Frequencies)> = order
        .iter()
        .filter_map(|k| by.get_key_value(*k).map(|(k, v)| (k.as_str(), v)))
        .collect();
    out.extend(
        by.iter()
            .filter(|(k, _)| !order.contains(&k.as_str()))
            .map(|(k, v)| (k.as_str(), v)),
    );
    out
}

/// One table: a row per category, a column per group, cells `share% (k/n)`.
fn shares(s: &JudgementSummary, groups: &[(&str, &Frequencies)]) -> Table {
    let mut head = vec!["behaviour".to_string()];
    head.extend(groups.iter().map(|(g, f)| format!("{g} (n={})", f.runs)));
    let mut t = Table::new(head).right(1..=groups.len()).with_row_headers();
    for c in &s.categories {
        let mut row = vec![c.id.clone()];
        for (_, f) in groups {
            row.push(match f.categories.get(&c.id) {
                Some(r) if r.n > 0 => format!("{:.1} ({}/{})", 100.0 * r.rate, r.k, r.n),
                _ => "–".into(),
            });
        }
        t.push(row);
    }
    t
}

/// The frequency tables, each with its title.
pub fn tables(s: &JudgementSummary) -> Vec<(String, Table)> {
    let mut out = Vec::new();
    let mut first = vec![("all", &s.overall)];
    first.extend(ordered(&s.by_outcome, &OUTCOMES));
    out.push(("By outcome".to_string(), shares(s, &first)));
    out.push((
        "By instruction".to_string(),
        shares(s, &ordered(&s.by_instruction, &INSTRUCTIONS)),
    ));
    let mut place = ordered(&s.by_scenario, &SCENARIOS);
    place.extend(ordered(&s.by_state, &STATES));
    out.push(("By scenario and state".to_string(), shares(s, &place)));
    if s.by_agent.len() > 1 {
        out.push((
            "By agent".to_string(),
            shares(s, &ordered(&s.by_agent, &[])),
        ));
    }
    out
}

fn ratio(x: Option<f64>) -> String {
    x.map(|v| format!("{:.1}", 100.0 * v))
        .unwrap_or_else(|| "–".into())
}

/// The judge against human labels: micro-averaged first, then per category.
pub fn agreement_table(s: &JudgementSummary) -> Option<Table> {
    let h = s.human.as_ref()?;
    let mut t = Table::new(["behaviour", "precision", "recall", "F1", "TP", "FP", "FN"])
        .right(1..=6)
        .with_row_headers();
    let row = |name: &str, a: &Agreement| {
        vec![
            name.to_string(),
            ratio(a.precision),
            ratio(a.recall),
            ratio(a.f1),
            a.true_positives.to_string(),
            a.false_positives.to_string(),
            a.false_negatives.to_string(),
        ]
    };
    t.push(row("all (micro)", &h.micro));
    for c in &s.categories {
        if let Some(a) = h.per_category.get(&c.id) {
            t.push(row(&c.id, a));
        }
    }
    Some(t)
}

/// The categories and their definitions.
fn definitions(s: &JudgementSummary) -> Table {
    let mut t = Table::new(["behaviour", "definition"]).with_row_headers();
    for c in &s.categories {
        t.push([c.id.clone(), c.definition.clone()]);
    }
    t
}

/// The sentence under the heading: who judged, how many runs.
fn lead(s: &JudgementSummary) -> String {
    let judges = match s.judges.as_slice() {
        [] => "no judge".to_string(),
        [one] => format!("judge `{one}`"),
        many => format!(
            "judges {}",
            many.iter()
                .map(|j| format!("`{j}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    format!(
        "{} of {} run(s) have a verdict ({judges}); {} failed, {} have no trajectory. Each \
         cell: the share of the runs with a verdict labelled with the behaviour, in percent \
         (k/n); behaviours are not exclusive.",
        s.judged, s.runs, s.errors, s.skipped
    )
}

/// The agreement paragraph: the headline figures, and the runs not counted.
fn agreement_lead(s: &JudgementSummary) -> Option<String> {
    let h = s.human.as_ref()?;
    let mut text = format!(
        "Against the human labels of {} over the {} run(s) both labelled, micro-averaged \
         over (run, behaviour) pairs: precision {}, recall {}, F1 {}.",
        h.file,
        h.runs,
        ratio(h.micro.precision),
        ratio(h.micro.recall),
        ratio(h.micro.f1)
    );
    if !h.not_judged.is_empty() {
        let _ = write!(
            text,
            " Not counted, the judge has no verdict: {}.",
            h.not_judged.join("; ")
        );
    }
    Some(text)
}

/// The whole summary as markdown.
pub fn markdown(s: &JudgementSummary) -> String {
    let mut out = String::from("## Agent behaviours\n\n");
    let _ = writeln!(out, "{}\n", lead(s));
    for (title, t) in tables(s) {
        let _ = writeln!(out, "### {title}\n\n{}", t.to_markdown());
    }
    if let (Some(lead), Some(t)) = (agreement_lead(s), agreement_table(s)) {
        let _ = writeln!(
            out,
            "### The judge against human labels\n\n{lead}\n\n{}",
            t.to_markdown()
        );
    }
    let _ = write!(out, "### Behaviours\n\n{}", definitions(s).to_markdown());
    out
}

/// The report page's section.
pub fn html(s: &JudgementSummary) -> String {
    let mut out = String::from("<section id=\"behaviours\"><h2>Agent behaviours</h2>");
    let _ = write!(out, "<p class=\"muted\">{}</p>", esc(&lead(s)));
    for (title, t) in tables(s) {
        let _ = write!(out, "<h3>{}</h3>{}", esc(&title), t.to_html());
    }
    if let (Some(lead), Some(t)) = (agreement_lead(s), agreement_table(s)) {
        let _ = write!(
            out,
            "<h3>The judge against human labels</h3><p class=\"muted\">{}</p>{}",
            esc(&lead),
            t.to_html()
        );
    }
    let _ = write!(
        out,
        "<h3>Behaviours</h3>{}</section>",
        definitions(s).to_html()
    );
    out
}

/// Why a judgements summary cannot be shown.
#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    /// It cannot be read.
    #[error("{}: cannot read the judgements summary: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// It is not one.
    #[error("{}: not a judgements summary of `hunkgen judge`: {source}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// The JSON error.
        source: serde_json::Error,
    },
}

/// The summary file `arg` names: `judgements-summary.json` itself, the directory holding
/// it (a runs root), or `judgements.jsonl` beside it.
pub fn summary_path(arg: &Path) -> PathBuf {
    const SUMMARY: &str = "judgements-summary.json";
    if arg.is_dir() {
        arg.join(SUMMARY)
    } else if arg.extension().is_some_and(|e| e == "jsonl") {
        arg.with_file_name(SUMMARY)
    } else {
        arg.to_path_buf()
    }
}

/// Read a judgements summary.
pub fn read_summary(path: &Path) -> Result<JudgementSummary, SummaryError> {
    let text = std::fs::read_to_string(path).map_err(|source| SummaryError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| SummaryError::Parse {
        path: path.to_path_buf(),
        source,
    })
}
