//! The dataset report as one self-contained HTML page (`report/index.html`): inline CSS,
//! hand-written inline SVG charts and one small inline script for the search box; nothing
//! is fetched. Every string from data is escaped.

use super::page::{Funnel, Page};
use super::results::{Rate, ResultsTables};
use super::tables::Table2Row;
use super::{AnnotationTables, Histogram, Tables};
use crate::model::{Instance, ProximityClass};
use std::fmt::Write as _;

/// Escape text for HTML element content and quoted attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Colours of the proximity classes, nearest to farthest.
const CLASS_COLOURS: [&str; 5] = ["#1b7837", "#5aae61", "#2166ac", "#d6604d", "#b2182b"];
/// Colours of the systems given with `--results`, in order.
const SYSTEM_COLOURS: [&str; 6] = [
    "#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860",
];

fn class_colour(name: &str) -> &'static str {
    ProximityClass::ALL
        .iter()
        .position(|c| c.name() == name)
        .map(|k| CLASS_COLOURS[k])
        .unwrap_or("#888888")
}

fn system_colour(k: usize) -> &'static str {
    SYSTEM_COLOURS[k % SYSTEM_COLOURS.len()]
}

/// One bar of a horizontal bar chart.
#[derive(Debug, Clone)]
pub struct Bar {
    /// Label left of the bar (empty: the bar continues the group above).
    pub label: String,
    /// Length, in the chart's units.
    pub value: f64,
    /// Text right of the bar.
    pub text: String,
    /// Fill colour.
    pub colour: &'static str,
    /// An interval drawn over the bar (a 95% CI), in the chart's units.
    pub whisker: Option<(f64, f64)>,
}

/// A horizontal bar chart scaled to `max` (at least the largest value).
pub fn hbars(title: &str, bars: &[Bar], max: f64) -> String {
    let (label_w, bar_w, text_w, row_h) = (190.0, 360.0, 150.0, 22.0);
    let max = bars.iter().map(|b| b.value).fold(max, f64::max);
    let scale = if max > 0.0 { bar_w / max } else { 0.0 };
    let groups = bars.iter().filter(|b| !b.label.is_empty()).count();
    let gap = 6.0;
    let height = bars.len() as f64 * row_h + groups as f64 * gap + 8.0;
    let width = label_w + bar_w + text_w;
    let mut s = format!(
        r#"<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{}">"#,
        esc(title)
    );
    let mut y = 4.0;
    for b in bars {
        if !b.label.is_empty() {
            y += gap;
            let _ = write!(
                s,
                r#"<text x="{}" y="{}" text-anchor="end" class="lbl">{}</text>"#,
                label_w - 8.0,
                y + row_h * 0.68,
                esc(&b.label)
            );
        }
        let w = (b.value * scale).max(if b.value > 0.0 { 1.0 } else { 0.0 });
        let _ = write!(
            s,
            r#"<rect x="{label_w}" y="{:.1}" width="{w:.1}" height="{:.1}" fill="{}"><title>{}: {}</title></rect>"#,
            y + 2.0,
            row_h - 6.0,
            b.colour,
            esc(if b.label.is_empty() { title } else { &b.label }),
            esc(&b.text)
        );
        if let Some((lo, hi)) = b.whisker {
            let (x0, x1, ym) = (label_w + lo * scale, label_w + hi * scale, y + row_h / 2.0);
            let _ = write!(
                s,
                r##"<path d="M{x0:.1} {ym:.1}H{x1:.1}M{x0:.1} {:.1}V{:.1}M{x1:.1} {:.1}V{:.1}" stroke="#222" stroke-width="1.2" fill="none"/>"##,
                ym - 4.0,
                ym + 4.0,
                ym - 4.0,
                ym + 4.0
            );
        }
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" class="val">{}</text>"#,
            label_w + bar_w + 6.0,
            y + row_h * 0.68,
            esc(&b.text)
        );
        y += row_h;
    }
    let _ = write!(
        s,
        r##"<line x1="{label_w}" y1="2" x2="{label_w}" y2="{:.1}" stroke="#999"/></svg>"##,
        height - 2.0
    );
    s
}

/// A histogram as vertical bars, with the range and the tallest count on the axes.
pub fn histogram(h: &Histogram, width: f64, height: f64, colour: &str) -> String {
    let (left, bottom, top) = (34.0, 20.0, 8.0);
    let plot_w = width - left - 8.0;
    let plot_h = height - bottom - top;
    let max = h.counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let n = h.counts.len().max(1) as f64;
    let bw = plot_w / n;
    let mut s = format!(
        r#"<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="histogram of {}">"#,
        esc(h.measure)
    );
    let step = (h.hi - h.lo) / n;
    for (k, &c) in h.counts.iter().enumerate() {
        let bh = c as f64 / max * plot_h;
        let _ = write!(
            s,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{bh:.1}" fill="{colour}"><title>[{:.3}, {:.3}{}: {c}</title></rect>"#,
            left + k as f64 * bw + 0.5,
            top + plot_h - bh,
            (bw - 1.0).max(0.5),
            h.lo + k as f64 * step,
            h.lo + (k + 1) as f64 * step,
            if k + 1 == h.counts.len() { "]" } else { ")" }
        );
    }
    let base = top + plot_h;
    let _ = write!(
        s,
        r##"<line x1="{left}" y1="{base}" x2="{:.1}" y2="{base}" stroke="#666"/><line x1="{left}" y1="{top}" x2="{left}" y2="{base}" stroke="#666"/>"##,
        left + plot_w
    );
    let _ = write!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="end" class="tick">{}</text><text x="{:.1}" y="{base:.1}" text-anchor="end" class="tick">0</text>"#,
        left - 4.0,
        top + 8.0,
        max as usize,
        left - 4.0
    );
    for (x, v, anchor) in [
        (left, h.lo, "start"),
        (left + plot_w / 2.0, (h.lo + h.hi) / 2.0, "middle"),
        (left + plot_w, h.hi, "end"),
    ] {
        let _ = write!(
            s,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="{anchor}" class="tick">{v:.2}</text>"#,
            height - 5.0
        );
    }
    s.push_str("</svg>");
    s
}

fn fmt_opt(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.4}")).unwrap_or_else(|| "–".into())
}

fn pct(r: &Rate) -> String {
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

fn snake<T: serde::Serialize>(t: &T) -> String {
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
    out.push_str("<a href=\"#instances-section\">Instances</a></nav><main>");
    card_section(&mut out, page);
    funnel_section(&mut out, &page.funnel);
    tables_section(&mut out, &page.tables);
    if let Some(a) = &page.tables.annotation {
        annotation_section(&mut out, a, page.tables.instances);
    }
    if let Some(r) = &page.results {
        results_section(&mut out, r);
    }
    instances_section(&mut out, page);
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
    for (label, v) in [
        ("walked", c.counts.walked),
        ("examined", c.counts.examined),
        ("multi-hunk", c.counts.multi_hunk),
        ("rejected", c.counts.rejected),
        ("validated", c.counts.validated),
        ("instances", c.counts.instances),
        ("hunks", c.counts.hunks),
    ] {
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
        out.push_str("<table><tr><th>stage</th><th>reason</th><th>items</th><th>example</th></tr>");
        for g in &f.rejected {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td>{}: {}</td></tr>",
                esc(&snake(&g.stage)),
                esc(&snake(&g.reason)),
                g.count,
                esc(&g.example.0),
                esc(&g.example.1)
            );
        }
        out.push_str("</table>");
    }
    out.push_str("</section>");
}

fn num(x: f64, decimals: bool) -> String {
    if decimals {
        format!("{x:.2}")
    } else {
        format!("{}", x.round() as i64)
    }
}

fn table2(out: &mut String, rows: &[Table2Row], hunks: bool) {
    out.push_str("<table><tr><th>project</th><th>bugs</th>");
    if hunks {
        out.push_str("<th>h min</th><th>h med</th><th>h mean</th><th>h max</th>");
    }
    out.push_str("<th>f min</th><th>f med</th><th>f mean</th><th>f max</th></tr>");
    for r in rows {
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td>",
            esc(&r.project),
            r.bugs
        );
        let mut cols: Vec<f64> = Vec::new();
        if hunks {
            cols.extend(r.hunks);
        }
        cols.extend(r.files);
        for (j, v) in cols.iter().enumerate() {
            let _ = write!(
                out,
                "<td class=\"n\">{}</td>",
                num(*v, j % 4 == 1 || j % 4 == 2)
            );
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
}

fn tables_section(out: &mut String, t: &Tables) {
    out.push_str(
        "<section id=\"tables\"><h2>Tables</h2><h3>Table I — file scope × hunk count</h3>",
    );
    out.push_str("<table><tr><th>scope</th><th>2 hunks</th><th>3 hunks</th><th>≥4 hunks</th><th>total</th></tr>");
    for (r, name) in ["single-file", "multi-file", "total"].iter().enumerate() {
        let row: Vec<usize> = if r < 2 {
            t.table1[r].to_vec()
        } else {
            (0..3).map(|c| t.table1[0][c] + t.table1[1][c]).collect()
        };
        let _ = write!(out, "<tr><th>{name}</th>");
        for v in &row {
            let _ = write!(out, "<td class=\"n\">{v}</td>");
        }
        let _ = write!(
            out,
            "<td class=\"n\">{}</td></tr>",
            row.iter().sum::<usize>()
        );
    }
    out.push_str("</table><h3>Table II — per project</h3><p class=\"muted\">Hunks: counted code hunks per bug. Files: files with a counted hunk per bug.</p>");
    table2(out, &t.table2, true);
    out.push_str("<h3>Files per bug, counting every file of the patch</h3>");
    table2(out, &t.table2_all_files, false);
    out.push_str("<h3>Hunks not counted</h3>");
    if t.not_counted.is_empty() {
        out.push_str("<p>Every <code>@@</code> hunk of every instance is counted.</p>");
    } else {
        out.push_str("<table><tr><th>instance</th><th>raw @@</th><th>counted</th><th>kept</th><th>rule: hunks</th></tr>");
        for r in &t.not_counted {
            let why: Vec<String> = r
                .by_rule
                .iter()
                .map(|(k, n)| format!("{}: {n}", k.as_str()))
                .collect();
            let _ = write!(
                out,
                "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td></tr>",
                esc(&r.instance_id),
                r.raw,
                r.counted,
                if r.kept { "yes" } else { "no" },
                esc(&why.join(", "))
            );
        }
        out.push_str("</table>");
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
    out.push_str("<table><tr><th>class</th><th>bugs</th><th>mean divergence</th></tr>");
    for r in &a.table3 {
        let mean = match r.mean_divergence {
            None => "–".to_string(),
            Some(m) if r.with_divergence < r.bugs => {
                format!("{m:.4} (Div for {})", r.with_divergence)
            }
            Some(m) => format!("{m:.4}"),
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{mean}</td></tr>",
            r.class.name(),
            r.bugs
        );
    }
    if a.undecided > 0 {
        let _ = write!(
            out,
            "<tr><td>(undecided: no sources)</td><td class=\"n\">{}</td><td></td></tr>",
            a.undecided
        );
    }
    out.push_str("</table><h3>Proximity classes</h3>");
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
    out.push_str("</div><table><tr><th>measure</th><th>n</th><th>min</th><th>median</th><th>mean</th><th>p75</th><th>max</th></tr>");
    for r in &a.distribution {
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td>",
            esc(r.measure),
            r.n
        );
        for j in 0..5 {
            let _ = write!(
                out,
                "<td class=\"n\">{}</td>",
                fmt_opt(r.stats.map(|s| s[j]))
            );
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
    if !a.notes.is_empty() {
        out.push_str("<h3>Instances with annotation notes</h3><table><tr><th>note</th><th>instances</th></tr>");
        for (kind, n) in &a.notes {
            let _ = write!(
                out,
                "<tr><td>{}</td><td class=\"n\">{n}</td></tr>",
                esc(kind.describe())
            );
        }
        out.push_str("</table>");
    }
    out.push_str("</section>");
}

fn legend(out: &mut String, names: &[&str]) {
    out.push_str("<p class=\"legend\">");
    for (k, n) in names.iter().enumerate() {
        let _ = write!(
            out,
            "<span><i style=\"background:{}\"></i>{}</span>",
            system_colour(k),
            esc(n)
        );
    }
    out.push_str("</p>");
}

/// Grouped bars: one group per category, one bar per system, rates with their CI.
fn rate_groups(title: &str, categories: &[String], per_system: &[Vec<(String, Rate)>]) -> String {
    let mut bars = Vec::new();
    for cat in categories {
        for (k, rows) in per_system.iter().enumerate() {
            let rate = rows.iter().find(|(c, _)| c == cat).map(|(_, r)| *r);
            let first = k == 0;
            bars.push(match rate {
                Some(r) => Bar {
                    label: if first { cat.clone() } else { String::new() },
                    value: r.rate,
                    text: format!("{:.0}% ({}/{})", r.rate * 100.0, r.k, r.n),
                    colour: system_colour(k),
                    whisker: (r.n > 0).then_some((r.low, r.high)),
                },
                None => Bar {
                    label: if first { cat.clone() } else { String::new() },
                    value: 0.0,
                    text: "no predictions".into(),
                    colour: system_colour(k),
                    whisker: None,
                },
            });
        }
    }
    hbars(title, &bars, 1.0)
}

/// Agents' trajectory metrics (the multi-hunk agent study), one row per system that
/// has them: cost by success and failure, tool use, first touch, n-grams, fail fast.
fn trajectories_section(out: &mut String, r: &ResultsTables) {
    let with: Vec<_> = r
        .systems
        .iter()
        .filter_map(|s| s.trajectories.as_ref().map(|t| (s, t)))
        .collect();
    if with.is_empty() {
        return;
    }
    let f = |x: Option<f64>, d: usize| x.map(|v| format!("{v:.d$}")).unwrap_or_else(|| "–".into());
    out.push_str("<h3 id=\"trajectories\">Agent trajectories</h3><p class=\"muted\">From <code>hunkgen run</code>: mean tokens, seconds and steps of successful runs (resolved on Novel and Partial, abstained on Resolved) and failed ones; fail fast = failed ÷ successful (below 1: failures stop sooner); tool use U<sub>a</sub> = calls(a) ÷ all calls; first touch = the step at which the agent first read or edited each golden file.</p>");
    out.push_str("<table><tr><th>system</th><th>runs</th><th>outcomes</th><th>successful: tokens / s / steps</th><th>failed: tokens / s / steps</th><th>fail fast (tokens, time, steps)</th><th>tool use</th><th>golden files touched, mean first step</th><th>top bigrams</th><th>top trigrams</th></tr>");
    for (s, t) in with {
        let res = |x: &crate::model::Resources| {
            format!(
                "({} runs) {} / {} / {}",
                x.runs,
                f(x.mean_tokens, 0),
                f(x.mean_seconds, 1),
                f(x.mean_steps, 1)
            )
        };
        let uses: Vec<String> = t
            .tool_use
            .iter()
            .map(|(k, u)| format!("{k} {:.0}%", 100.0 * u.share))
            .collect();
        let grams = |g: &[crate::model::NGram]| {
            g.iter()
                .map(|g| {
                    let k: Vec<&str> = g.kinds.iter().map(|k| k.name()).collect();
                    format!("{} ×{}", k.join(" → "), g.count)
                })
                .collect::<Vec<_>>()
                .join("<br>")
        };
        let outcomes: Vec<String> = t.outcomes.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}, {}, {}</td><td>{}</td><td>{}/{}, {}</td><td>{}</td><td>{}</td></tr>",
            esc(&s.name),
            t.runs,
            esc(&outcomes.join(", ")),
            esc(&res(&t.success)),
            esc(&res(&t.failure)),
            f(t.fail_fast.tokens, 2),
            f(t.fail_fast.seconds, 2),
            f(t.fail_fast.steps, 2),
            esc(&uses.join(", ")),
            t.first_touch.touched,
            t.first_touch.golden_files,
            f(t.first_touch.mean_step, 1),
            esc_lines(&grams(&t.bigrams)),
            esc_lines(&grams(&t.trigrams)),
        );
    }
    out.push_str("</table>");
}

/// Escape text whose `<br>` separators are kept.
fn esc_lines(s: &str) -> String {
    s.split("<br>").map(esc).collect::<Vec<_>>().join("<br>")
}

fn results_section(out: &mut String, r: &ResultsTables) {
    out.push_str("<section id=\"results\"><h2>Results</h2>");
    let names: Vec<&str> = r.systems.iter().map(|s| s.name.as_str()).collect();
    legend(out, &names);
    out.push_str("<table><tr><th>system</th><th>results file</th><th>rows</th><th>resolution (Novel + Partial)</th><th>correct abstentions (Resolved)</th><th>incorrect abstentions (Novel, Partial)</th></tr>");
    for s in &r.systems {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{}{}</td><td>{}</td><td class=\"n ok\">{}</td><td class=\"n bad\">{}</td></tr>",
            esc(&s.name),
            esc(&s.file),
            s.rows,
            if s.unknown > 0 {
                format!(" (+{} of unknown instances, left out)", s.unknown)
            } else {
                String::new()
            },
            pct(&s.resolution),
            s.correct_abstentions,
            s.incorrect_abstentions
        );
    }
    out.push_str("</table><p class=\"muted\">Resolution counts predictions on the states with something to fix (Novel, Partial); bars show the rate and its 95% Wilson interval.</p>");
    let collect = |f: &dyn Fn(&super::results::SystemTables) -> Vec<(String, Rate)>| {
        let per: Vec<Vec<(String, Rate)>> = r.systems.iter().map(f).collect();
        let mut cats: Vec<String> = Vec::new();
        for rows in &per {
            for (c, _) in rows {
                if !cats.contains(c) {
                    cats.push(c.clone());
                }
            }
        }
        (cats, per)
    };
    let (mut cats, per) = collect(&|s| s.by_class.clone());
    let rank = |c: &String| {
        ProximityClass::ALL
            .iter()
            .position(|p| p.name() == c)
            .unwrap_or(ProximityClass::ALL.len())
    };
    cats.sort_by_key(rank);
    out.push_str("<h3>Resolution by proximity class</h3>");
    out.push_str(&rate_groups("resolution by proximity class", &cats, &per));
    let (mut cats, per) = collect(&|s| s.by_quartile.clone());
    cats.sort();
    out.push_str("<h3>Resolution by divergence quartile</h3>");
    if let Some(e) = r.quartile_edges {
        let _ = write!(
            out,
            "<p class=\"muted\">Quartiles of the dataset's Div(P): Q1 ≤ {:.4} &lt; Q2 ≤ {:.4} &lt; Q3 ≤ {:.4} &lt; Q4; <i>none</i>: no Div(P).</p>",
            e[0], e[1], e[2]
        );
    }
    out.push_str(&rate_groups(
        "resolution by divergence quartile",
        &cats,
        &per,
    ));
    trajectories_section(out, r);
    out.push_str("<h3>Abstention by state</h3><p class=\"muted\">Abstaining is correct on Resolved and incorrect on Novel and Partial.</p>");
    let (cats, per) = collect(&|s| {
        s.abstention
            .iter()
            .map(|a| (a.state.clone(), a.abstained))
            .collect()
    });
    out.push_str(&rate_groups("abstention by state", &cats, &per));
    out.push_str("<table><tr><th>system</th><th>state</th><th>expected</th><th>abstained</th><th>verdict</th></tr>");
    for s in &r.systems {
        for a in &s.abstention {
            let (exp, verdict) = if a.abstain_expected {
                (
                    "abstain",
                    format!("<span class=\"ok\">{} correct</span>", a.abstained.k),
                )
            } else {
                (
                    "fix",
                    format!("<span class=\"bad\">{} incorrect</span>", a.abstained.k),
                )
            };
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{exp}</td><td>{}</td><td>{verdict}</td></tr>",
                esc(&s.name),
                esc(&a.state),
                pct(&a.abstained)
            );
        }
    }
    out.push_str("</table>");
    if let Some(o) = &r.overlap {
        let _ = write!(
            out,
            "<h3>Which systems solved which tasks</h3><p class=\"muted\">{} tasks (an instance in Novel or Partial state). Cell: tasks resolved by both the row's and the column's system; diagonal: by that system.</p><table><tr><th></th>",
            o.tasks
        );
        for n in &o.systems {
            let _ = write!(out, "<th>{}</th>", esc(n));
        }
        out.push_str("</tr>");
        for (a, n) in o.systems.iter().enumerate() {
            let _ = write!(out, "<tr><th>{}</th>", esc(n));
            for b in 0..o.systems.len() {
                let _ = write!(out, "<td class=\"n\">{}</td>", o.both[a][b]);
            }
            out.push_str("</tr>");
        }
        out.push_str("</table><h4>Exact solver sets</h4>");
        let bars: Vec<Bar> = o
            .combinations
            .iter()
            .map(|(set, count)| {
                let members: Vec<&str> = o
                    .systems
                    .iter()
                    .zip(set)
                    .filter(|(_, s)| **s)
                    .map(|(n, _)| n.as_str())
                    .collect();
                let label = match members.len() {
                    0 => "nobody".to_string(),
                    1 => format!("{} only", members[0]),
                    _ => members.join(" ∧ "),
                };
                Bar {
                    label,
                    value: *count as f64,
                    text: count.to_string(),
                    colour: if members.is_empty() {
                        "#999999"
                    } else {
                        "#55a868"
                    },
                    whisker: None,
                }
            })
            .collect();
        out.push_str(&hbars("exact solver sets", &bars, 0.0));
    }
    out.push_str("</section>");
}

fn div_value(i: &Instance) -> Option<f64> {
    i.divergence.as_ref().and_then(|d| d.value)
}

fn class_name(i: &Instance) -> &'static str {
    i.proximity
        .as_ref()
        .and_then(|p| p.class)
        .map(|c| c.name())
        .unwrap_or("–")
}

fn states_text(i: &Instance) -> String {
    match &i.states {
        None => "–".to_string(),
        Some(s) if s.missing.is_empty() => s.written.len().to_string(),
        Some(s) => format!("{} ({} missing)", s.written.len(), s.missing.len()),
    }
}

fn instances_section(out: &mut String, page: &Page) {
    let _ = write!(
        out,
        "<section id=\"instances-section\"><h2>Instances</h2><p><input type=\"search\" id=\"q\" placeholder=\"filter: id, project, class…\" aria-label=\"filter instances\"> <span id=\"qn\">{}</span> shown</p>",
        page.instances.len()
    );
    out.push_str("<table id=\"instances\"><thead><tr><th>instance</th><th>project</th><th>hunks</th><th>files</th><th>divergence</th><th>class</th><th>#f2p</th><th>#p2p</th><th>states</th>");
    for s in &page.systems {
        let _ = write!(out, "<th>{}</th>", esc(&s.name));
    }
    out.push_str("</tr></thead><tbody>");
    for (k, i) in page.instances.iter().enumerate() {
        let _ = write!(
            out,
            "<tr><td><a href=\"#inst-{k}\">{}</a></td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td>",
            esc(&i.instance_id),
            esc(&i.project),
            i.stats.hunks,
            i.stats.files,
            fmt_opt(div_value(i)),
            class_name(i),
            i.FAIL_TO_PASS.len(),
            i.PASS_TO_PASS.len(),
            esc(&states_text(i))
        );
        for s in &page.systems {
            let rows: Vec<_> = s
                .rows
                .iter()
                .filter(|r| r.instance_id == i.instance_id && r.state != "resolved")
                .collect();
            let solved = rows.iter().filter(|r| r.resolved).count();
            let _ = write!(
                out,
                "<td class=\"n\">{}</td>",
                if rows.is_empty() {
                    "–".to_string()
                } else {
                    format!("{solved}/{}", rows.len())
                }
            );
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
    if !page.systems.is_empty() {
        out.push_str("<p class=\"muted\">System columns: resolved / predictions on Novel and Partial states.</p>");
    }
    for (k, i) in page.instances.iter().enumerate() {
        instance_details(out, page, k, i);
    }
    out.push_str("</section>");
}

fn instance_details(out: &mut String, page: &Page, k: usize, i: &Instance) {
    let _ = write!(
        out,
        "<div class=\"inst\" id=\"inst-{k}\"><h3>{}</h3><table>",
        esc(&i.instance_id)
    );
    let mut row = |key: &str, value: String| {
        let _ = write!(out, "<tr><th>{key}</th><td>{value}</td></tr>");
    };
    row(
        "project / repo",
        format!("{} / {}", esc(&i.project), esc(&i.repo)),
    );
    row(
        "base → fix commit",
        format!("{} → {}", esc(&i.base_commit), esc(&i.fix_commit)),
    );
    if !i.created_at.is_empty() {
        row("created at", esc(&i.created_at));
    }
    if let Some(r) = &i.report {
        // Shown as text, not a link: the page makes no request of its own.
        row("issue", format!("{} ({})", esc(&r.id), esc(&r.url)));
    }
    row(
        "size",
        format!(
            "{} counted hunks in {} file(s) ({} raw hunks, {} file(s)); +{} −{} lines; spread {}",
            i.stats.hunks,
            i.stats.files,
            i.stats.raw_hunks,
            i.stats.raw_files,
            i.stats.lines_added,
            i.stats.lines_removed,
            i.stats.patch_spread
        ),
    );
    if let Some(d) = &i.divergence {
        row(
            "divergence",
            format!(
                "{} (profile {}, n = {})",
                fmt_opt(d.value),
                esc(&d.profile),
                d.n
            ),
        );
    }
    if let Some(p) = &i.proximity {
        row("proximity", format!("{} (λ = {})", class_name(i), p.lambda));
    }
    row(
        "FAIL_TO_PASS",
        i.FAIL_TO_PASS
            .iter()
            .map(|t| esc(t))
            .collect::<Vec<_>>()
            .join("<br>"),
    );
    row("PASS_TO_PASS", format!("{} tests", i.PASS_TO_PASS.len()));
    if let Some(v) = &i.validation {
        row(
            "validation",
            format!(
                "suites {}; scope {}; runs base/before/after {}/{}/{}; {} flaky; {}",
                esc(&v.suites.join(", ")),
                esc(&v.scope),
                v.runs.base,
                v.runs.before,
                v.runs.after,
                v.flaky.len(),
                if v.sandboxed {
                    "sandboxed"
                } else {
                    "not sandboxed"
                }
            ),
        );
    }
    if let Some(s) = &i.states {
        let mut text = esc(&s.written.join(", "));
        for m in &s.missing {
            let _ = write!(text, "<br>missing: {}", esc(m));
        }
        row("states", text);
    }
    for n in &i.notes {
        row("note", esc(&format!("{}: {}", n.kind.describe(), n.detail)));
    }
    out.push_str("</table>");
    out.push_str("<table><tr><th>#</th><th>file</th><th>buggy span</th><th>+/−</th><th>counted</th><th>method</th></tr>");
    for h in &i.hunks {
        let span = if h.span.end < h.span.start {
            format!("insert at {}", h.span.start)
        } else {
            format!("{}–{}", h.span.start, h.span.end)
        };
        let counted = if h.counted {
            "yes".to_string()
        } else {
            format!("no ({})", h.skip_reason.map(|r| r.as_str()).unwrap_or("?"))
        };
        let method = h
            .place
            .as_ref()
            .and_then(|p| p.method.as_deref())
            .unwrap_or("–");
        let _ = write!(
            out,
            "<tr><td class=\"n\">{}</td><td>{}</td><td>{span}</td><td>+{} −{}</td><td>{counted}</td><td>{}</td></tr>",
            h.patch_index,
            esc(&h.file),
            h.added,
            h.removed,
            esc(method)
        );
    }
    out.push_str("</table>");
    if let Some(d) = &i.divergence {
        if !d.pairs.is_empty() {
            out.push_str("<details><summary>hunk pairs</summary><table><tr><th>i</th><th>j</th><th>D_lex</th><th>D_ast</th><th>D_file</th><th>γ</th><th>Div</th></tr>");
            for p in &d.pairs {
                let _ = write!(
                    out,
                    "<tr><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.4}</td><td class=\"n\">{}</td><td class=\"n\">{:.4}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                    p.i,
                    p.j,
                    p.d_lex,
                    fmt_opt(p.d_ast),
                    p.d_file,
                    p.gamma,
                    fmt_opt(p.div)
                );
            }
            out.push_str("</table></details>");
        }
    }
    if let Some(logs) = page.logs.get(&i.instance_id) {
        out.push_str("<p>Test logs: ");
        let links: Vec<String> = logs
            .iter()
            .map(|href| {
                let text = href.rsplit("/logs/").next().unwrap_or(href);
                let text = text.split_once('/').map(|(_, t)| t).unwrap_or(text);
                format!("<a href=\"{}\">{}</a>", esc(href), esc(text))
            })
            .collect();
        out.push_str(&links.join(" · "));
        out.push_str("</p>");
    }
    let results: Vec<(&str, &crate::model::PredictionResult)> = page
        .systems
        .iter()
        .flat_map(|s| {
            s.rows
                .iter()
                .filter(|r| r.instance_id == i.instance_id)
                .map(move |r| (s.name.as_str(), r))
        })
        .collect();
    if !results.is_empty() {
        out.push_str("<details><summary>predictions</summary><table><tr><th>system</th><th>state</th><th>scenario</th><th>applied</th><th>resolved</th><th>abstained</th><th>localized</th></tr>");
        for (name, r) in results {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(name),
                esc(&r.state),
                esc(&r.scenario),
                esc(&snake(&r.applied)),
                if r.resolved { "yes" } else { "no" },
                if r.abstained {
                    if r.abstention_correct { "yes (correct)" } else { "yes (incorrect)" }
                } else {
                    "no"
                },
                if r.localized { "yes" } else { "no" }
            );
        }
        out.push_str("</table></details>");
    }
    let _ = write!(
        out,
        "<details><summary>patch ({} lines)</summary><pre>{}</pre></details>",
        i.patch.lines().count(),
        esc(&i.patch)
    );
    if !i.test_patch.is_empty() {
        let _ = write!(
            out,
            "<details><summary>test patch ({} lines)</summary><pre>{}</pre></details>",
            i.test_patch.lines().count(),
            esc(&i.test_patch)
        );
    }
    if !i.problem_statement.is_empty() {
        let _ = write!(
            out,
            "<details><summary>problem statement</summary><pre>{}</pre></details>",
            esc(&i.problem_statement)
        );
    }
    out.push_str("</div>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_in_text_and_attributes() {
        assert_eq!(
            esc("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
    }

    #[test]
    fn histogram_draws_one_bar_per_bin() {
        let h = Histogram::new("Div(P)", &[0.1, 0.2, 0.2], 0.0, 1.0, 10);
        let svg = histogram(&h, 300.0, 120.0, "#000");
        assert_eq!(svg.matches("<rect").count(), 10);
        assert!(svg.contains(">[0.200, 0.300): 2</title>"), "{svg}");
    }
}
