//! The page's instance section: a searchable table of every instance, then each one's
//! details — hunks, divergence pairs, test logs, predictions, patches.

use super::{esc, fmt_opt, snake};
use crate::model::Instance;
use crate::report::page::Page;
use crate::table::Table;
use std::fmt::Write as _;

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

/// The instances section of the page.
pub(super) fn section(out: &mut String, page: &Page) {
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
    let mut hunks = Table::new(["#", "file", "buggy span", "+/−", "counted", "method"]).right([0]);
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
        hunks.push([
            h.patch_index.to_string(),
            h.file.clone(),
            span,
            format!("+{} −{}", h.added, h.removed),
            counted,
            method.to_string(),
        ]);
    }
    out.push_str(&hunks.to_html());
    if let Some(d) = &i.divergence {
        if !d.pairs.is_empty() {
            let mut pairs =
                Table::new(["i", "j", "D_lex", "D_ast", "D_file", "γ", "Div"]).right(0..7);
            for p in &d.pairs {
                pairs.push([
                    p.i.to_string(),
                    p.j.to_string(),
                    format!("{:.4}", p.d_lex),
                    fmt_opt(p.d_ast),
                    format!("{:.4}", p.d_file),
                    p.gamma.to_string(),
                    fmt_opt(p.div),
                ]);
            }
            let _ = write!(
                out,
                "<details><summary>hunk pairs</summary>{}</details>",
                pairs.to_html()
            );
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
        let mut table = Table::new([
            "system",
            "state",
            "scenario",
            "applied",
            "resolved",
            "abstained",
            "localized",
        ]);
        let yes = |b: bool| if b { "yes" } else { "no" };
        for (name, r) in results {
            let abstained = match (r.abstained, r.abstention_correct) {
                (false, _) => "no",
                (true, true) => "yes (correct)",
                (true, false) => "yes (incorrect)",
            };
            table.push([
                name,
                &r.state,
                &r.scenario,
                &snake(&r.applied),
                yes(r.resolved),
                abstained,
                yes(r.localized),
            ]);
        }
        let _ = write!(
            out,
            "<details><summary>predictions</summary>{}</details>",
            table.to_html()
        );
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
