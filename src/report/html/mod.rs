//! The dataset report as one self-contained HTML page (`report/index.html`): inline CSS,
//! hand-written inline SVG charts and one small inline script for the search box; nothing
//! is fetched. Every string from data is escaped.

mod analytics;
mod charts;
mod instances;
mod outcomes;
mod results;

pub use charts::{hbars, histogram, violins, Bar, Violin};

use super::page::{Funnel, Page};
use super::results::Rate;
use super::tables::{table1_table, table2_table, Table2Columns};
use super::{
    distribution_table, not_counted_table, notes_table, table3_table, AnnotationTables, Tables,
};
use crate::table::{esc, Table};
use charts::class_colour;
use std::fmt::Write as _;

/// Four decimals, or a dash for no value.
pub(super) fn fmt_opt(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.4}")).unwrap_or_else(|| "–".into())
}

/// A rate with its counts and 95% interval, or a dash when nothing was counted.
pub(super) fn pct(r: &Rate) -> String {
    if r.n == 0 {
        "–".into()
    } else {
        format!(
            "{:.1}% ({}/{}; 95% CI {:.0}–{:.0}%)",
            r.rate * 100.0,
            r.k,
            r.n,
            r.low * 100.0,
            r.high * 100.0
        )
    }
}

/// A serde enum's snake_case name (`patch_parse`), as the JSONL rows spell it.
pub(super) fn snake<T: serde::Serialize>(t: &T) -> String {
    serde_json::to_value(t)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

const STYLE: &str = r#"
:root{--fg:#1d232a;--muted:#5b6570;--line:#d7dce1;--bg:#ffffff;--band:#f4f6f8;--accent:#2f5d8a}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
header{background:#24384d;color:#fff;padding:18px 28px}
header h1{margin:0 0 4px;font-size:22px}
header p{margin:0;color:#c9d6e3}
nav{position:sticky;top:0;background:#fff;border-bottom:1px solid var(--line);padding:6px 28px;z-index:2}
nav a{margin-right:14px;color:var(--accent);text-decoration:none;font-weight:600}
main{padding:8px 28px 40px;max-width:1240px}
section{margin-top:22px}
[id]{scroll-margin-top:44px}
h2{font-size:18px;border-bottom:2px solid var(--line);padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;margin:6px 0 12px}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:var(--band)}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.muted{color:var(--muted)}
.grid{display:flex;flex-wrap:wrap;gap:10px 26px}
.grid figure{margin:0}
figcaption{font-size:12px;color:var(--muted)}
svg.chart text{font:12px system-ui,sans-serif;fill:#1d232a}
svg.chart text.tick{font-size:10px;fill:#5b6570}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:10px 0}
.card{border:1px solid var(--line);border-radius:6px;padding:8px 14px;min-width:120px;background:var(--band)}
.card b{display:block;font-size:20px}
pre{background:#f6f8fa;border:1px solid var(--line);padding:8px;overflow:auto;max-height:480px;font:12px/1.35 ui-monospace,Menlo,Consolas,monospace}
.inst{border-top:1px solid var(--line);padding-top:4px}
.wide{overflow-x:auto;max-width:100%}
input[type=search]{font:inherit;padding:4px 8px;width:320px;border:1px solid var(--line);border-radius:4px}
.legend span{display:inline-block;margin-right:14px}
.legend i{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px}
.ok{color:#1b7837;font-weight:600}.bad{color:#b2182b;font-weight:600}
"#;

/// Filters the instance table as the user types; writes nothing to the console.
const SCRIPT: &str = r#"
(function(){var q=document.getElementById('q'),c=document.getElementById('qn');
if(!q)return;q.addEventListener('input',function(){var t=q.value.toLowerCase(),n=0;
var rows=document.querySelectorAll('#instances tbody tr');
for(var i=0;i<rows.length;i++){var m=rows[i].textContent.toLowerCase().indexOf(t)>=0;
rows[i].hidden=!m;if(m)n++;}c.textContent=n;});})();
"#;

/// The whole page.
pub fn render(page: &Page) -> String {
    let name = page
        .card
        .as_ref()
        .map(|c| c.name.as_str())
        .unwrap_or("dataset");
    let mut out = String::with_capacity(64 * 1024 + page.instances.len() * 8 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}: hunkgen report</title><style>{STYLE}</style></head><body>",
        esc(name)
    );
    let _ = write!(
        out,
        "<header><h1>{}: dataset report</h1><p>{} instances, {} counted hunks{}</p></header>",
        esc(name),
        page.tables.instances,
        page.tables.hunks,
        page.card
            .as_ref()
            .map(|c| format!(
                " · built {} by hunkgen {}",
                esc(&c.built_at),
                esc(&c.tool_version)
            ))
            .unwrap_or_default()
    );
    out.push_str("<nav><a href=\"#card\">Card</a><a href=\"#funnel\">Funnel</a><a href=\"#tables\">Tables</a>");
    if page.tables.annotation.is_some() {
        out.push_str("<a href=\"#annotation\">Divergence &amp; proximity</a>");
    }
    if page.results.is_some() {
        out.push_str("<a href=\"#results\">Results</a>");
    }
    if page.judgements.is_some() {
        out.push_str("<a href=\"#behaviours\">Behaviours</a>");
    }
    out.push_str("<a href=\"#instances-section\">Instances</a></nav><main>");
    card_section(&mut out, page);
    funnel_section(&mut out, &page.funnel);
    tables_section(&mut out, &page.tables);
    if let Some(a) = &page.tables.annotation {
        annotation_section(&mut out, a, page.tables.instances);
    }
    if let Some(r) = &page.results {
        results::section(&mut out, r, page.outcomes.as_ref());
    }
    if let Some(j) = &page.judgements {
        out.push_str(&crate::report::judgements::html(j));
    }
    instances::section(&mut out, page);
    let _ = writeln!(out, "</main><script>{SCRIPT}</script></body></html>");
    out
}

fn card_section(out: &mut String, page: &Page) {
    out.push_str("<section id=\"card\"><h2>Dataset card</h2>");
    let Some(c) = &page.card else {
        out.push_str("<p class=\"muted\">No dataset.yaml: counts below come from instances.jsonl alone.</p></section>");
        return;
    };
    out.push_str("<div class=\"cards\">");
    let not_sampled = c.counts.not_sampled.map(|n| ("not sampled", n));
    for (label, v) in [
        ("walked", c.counts.walked),
        ("examined", c.counts.examined),
        ("multi-hunk", c.counts.multi_hunk),
    ]
    .into_iter()
    .chain(not_sampled)
    .chain([
        ("rejected", c.counts.rejected),
        ("validated", c.counts.validated),
        ("instances", c.counts.instances),
        ("hunks", c.counts.hunks),
    ]) {
        // Cards written before `walked` was recorded hold 0 there.
        let v = if label == "walked" && v == 0 {
            "–".to_string()
        } else {
            v.to_string()
        };
        let _ = write!(out, "<div class=\"card\"><b>{v}</b>{label}</div>");
    }
    out.push_str("</div><table>");
    let checksum = c
        .checksums
        .iter()
        .find(|(f, _)| f == "instances.jsonl")
        .map(|(_, s)| s.as_str())
        .unwrap_or("–");
    for (k, v) in [
        ("name", c.name.as_str()),
        ("tool version", c.tool_version.as_str()),
        ("built at", c.built_at.as_str()),
        ("recipe file", c.recipe_file.as_str()),
        ("recipe SHA-256", c.recipe_sha256.as_str()),
        ("instances.jsonl SHA-256", checksum),
    ] {
        let _ = write!(out, "<tr><th>{k}</th><td>{}</td></tr>", esc(v));
    }
    let _ = write!(
        out,
        "<tr><th>schema version</th><td>{}</td></tr><tr><th>sources</th><td>{}</td></tr></table>",
        c.schema_version,
        c.sources
            .iter()
            .map(|s| esc(s))
            .collect::<Vec<_>>()
            .join("<br>")
    );
    let _ = write!(
        out,
        "<details><summary>recipe</summary><pre>{}</pre></details></section>",
        esc(&c.recipe)
    );
}

fn funnel_section(out: &mut String, f: &Funnel) {
    out.push_str("<section id=\"funnel\"><h2>Funnel</h2>");
    let max = f.steps.iter().filter_map(|(_, v)| *v).max().unwrap_or(0) as f64;
    let bars: Vec<Bar> = f
        .steps
        .iter()
        .map(|(label, v)| Bar {
            label: label.to_string(),
            value: v.unwrap_or(0) as f64,
            text: v
                .map(|n| n.to_string())
                .unwrap_or_else(|| "not recorded".into()),
            colour: "#2f5d8a",
            whisker: None,
        })
        .collect();
    out.push_str(&hbars("funnel", &bars, max));
    if f.rejected.is_empty() {
        out.push_str("<p>No item was rejected.</p>");
    } else {
        let total: usize = f.rejected.iter().map(|g| g.count).sum();
        let kept = f
            .steps
            .iter()
            .find(|(s, _)| *s == "kept")
            .and_then(|(_, v)| *v)
            .unwrap_or(0);
        let sampled = f
            .steps
            .iter()
            .find(|(s, _)| *s == "sampled")
            .and_then(|(_, v)| *v);
        let (lead, table) = super::yield_table(kept, &f.yields, sampled);
        let _ = write!(
            out,
            "<h3>Yield: why candidates were not kept</h3><p class=\"muted\">{}</p>",
            esc(&lead)
        );
        out.push_str(&table.to_html());
        let _ = write!(
            out,
            "<h3>Rejected by reason ({total}, from rejected.jsonl)</h3>"
        );
        let bars: Vec<Bar> = f
            .rejected
            .iter()
            .map(|g| Bar {
                label: format!("{}: {}", snake(&g.stage), snake(&g.reason)),
                value: g.count as f64,
                text: g.count.to_string(),
                colour: "#b2182b",
                whisker: None,
            })
            .collect();
        out.push_str(&hbars("rejected by reason", &bars, 0.0));
        let mut table = Table::new(["stage", "reason", "items", "example"]).right([2]);
        for g in &f.rejected {
            table.push([
                snake(&g.stage),
                snake(&g.reason),
                g.count.to_string(),
                format!("{}: {}", g.example.0, g.example.1),
            ]);
        }
        out.push_str(&table.to_html());
    }
    out.push_str("</section>");
}

fn tables_section(out: &mut String, t: &Tables) {
    out.push_str(
        "<section id=\"tables\"><h2>Tables</h2><h3>Table I — file scope × hunk count</h3>",
    );
    out.push_str(&table1_table(&t.table1, false).to_html());
    if let Some(note) = super::tables::below_table1_note(t.below_table1) {
        out.push_str(&format!(
            "<p class=\"muted\">{}</p>",
            super::html::esc(&note)
        ));
    }
    out.push_str("<h3>Table II — per project</h3><p class=\"muted\">Hunks: counted code hunks per bug. Files: files with a counted hunk per bug.</p>");
    let columns = |hunks| Table2Columns { bugs: true, hunks };
    out.push_str(&table2_table(&t.table2, false, columns(true)).to_html());
    out.push_str("<h3>Files per bug, counting every file of the patch</h3>");
    out.push_str(&table2_table(&t.table2_all_files, false, columns(false)).to_html());
    if let Some(n) = &t.necessary {
        let _ = write!(
            out,
            "<h3>Necessary hunks (by ablation)</h3><p class=\"muted\">{}</p>",
            esc(&n.summary())
        );
        out.push_str(&n.table().to_html());
    }
    out.push_str("<h3>Hunks not counted</h3>");
    if t.not_counted.is_empty() {
        out.push_str("<p>Every <code>@@</code> hunk of every instance is counted.</p>");
    } else {
        let mut table = not_counted_table(&t.not_counted);
        // The page's heading has no markdown code span.
        table.headers[1] = "raw @@".into();
        out.push_str(&table.to_html());
    }
    if !t.inputs.is_empty() {
        out.push_str("<h3>Inputs</h3><ul>");
        for line in &t.inputs {
            let _ = write!(out, "<li>{}</li>", esc(line));
        }
        out.push_str("</ul>");
    }
    out.push_str("</section>");
}

fn annotation_section(out: &mut String, a: &AnnotationTables, instances: usize) {
    out.push_str("<section id=\"annotation\"><h2>Divergence and proximity</h2><h3>Table III — proximity class × mean hunk divergence</h3>");
    if let Some(l) = a.lambda {
        let _ = write!(out, "<p>λ = {l}.</p>");
    }
    out.push_str(&table3_table(a).to_html());
    out.push_str("<h3>Proximity classes</h3>");
    let mut bars: Vec<Bar> = a
        .table3
        .iter()
        .map(|r| Bar {
            label: r.class.name().to_string(),
            value: r.bugs as f64,
            text: r.bugs.to_string(),
            colour: class_colour(r.class.name()),
            whisker: None,
        })
        .collect();
    if a.undecided > 0 {
        bars.push(Bar {
            label: "undecided".into(),
            value: a.undecided as f64,
            text: a.undecided.to_string(),
            colour: "#888888",
            whisker: None,
        });
    }
    out.push_str(&hbars("instances per proximity class", &bars, 0.0));
    let _ = write!(
        out,
        "<h3>Divergence distribution</h3><p>{} of {instances} instances have Div(P) (the rest lack a same-file D_ast).</p>",
        a.with_divergence
    );
    out.push_str("<div class=\"grid\">");
    for (k, h) in a.histograms.iter().enumerate() {
        let n: usize = h.counts.iter().sum();
        let (w, ht) = if k == 0 {
            (560.0, 220.0)
        } else {
            (270.0, 130.0)
        };
        let _ = write!(
            out,
            "<figure>{}<figcaption>{} — n = {n}, {} bins over [{:.2}, {:.2}]</figcaption></figure>",
            histogram(h, w, ht, if k == 0 { "#2f5d8a" } else { "#6a8caf" }),
            esc(h.measure),
            h.counts.len(),
            h.lo,
            h.hi
        );
    }
    out.push_str("</div>");
    out.push_str(&distribution_table(&a.distribution, true).to_html());
    if !a.notes.is_empty() {
        out.push_str("<h3>Instances with annotation notes</h3>");
        out.push_str(&notes_table(&a.notes).to_html());
    }
    out.push_str("</section>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{RejectReason, Rejected, Stage};

    #[test]
    fn the_yield_table_has_the_kept_and_each_question_with_its_share() {
        let rejected = [
            Rejected::new("a", Stage::Validate, RejectReason::NoFailToPass, "x".into()),
            Rejected::new("b", Stage::Validate, RejectReason::Timeout, "y".into()),
        ];
        let f = Funnel::compute(None, &[], &rejected);
        let mut out = String::new();
        funnel_section(&mut out, &f);
        assert!(out.contains("Yield: why candidates were not kept"), "{out}");
        // No instance kept: 0 of 2, each rejection half of the candidates.
        assert!(out.contains("0 kept of 2 candidates"), "{out}");
        for row in [
            "kept",
            "not a fix (no fail-to-pass test, or only new API)",
            "timeout",
        ] {
            assert!(
                out.contains(&format!("<td>{}</td>", esc(row))),
                "{row}: {out}"
            );
        }
        assert_eq!(out.matches("50.0%").count(), 2, "{out}");
    }
}
