//! The page's results section: each system's rates by proximity class, divergence
//! quartile and state, agents' trajectories, and which systems solved which tasks.

use super::charts::{hbars, system_colour, Bar};
use super::{esc, pct};
use crate::model::ProximityClass;
use crate::report::results::{Rate, ResultsTables, SystemTables};
use std::fmt::Write as _;

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
            let split = match (x.mean_input_tokens, x.mean_output_tokens) {
                (None, None) => String::new(),
                _ => format!(
                    " (in {}, of it cache read {} / write {}; out {})",
                    f(x.mean_input_tokens, 0),
                    f(x.mean_cache_read_tokens, 0),
                    f(x.mean_cache_write_tokens, 0),
                    f(x.mean_output_tokens, 0)
                ),
            };
            format!(
                "({} runs) {}{split} / {} / {}",
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

/// The agent study's Table 2 for the systems Defects4J evaluated: localization,
/// compilation, mean regression reduction and repair accuracy, each count over all the
/// system's bugs, then the regression-reduction distribution.
fn study_section(out: &mut String, r: &ResultsTables) {
    let with: Vec<_> = r
        .systems
        .iter()
        .filter_map(|s| s.study.as_ref().map(|m| (s, m)))
        .collect();
    if with.is_empty() {
        return;
    }
    out.push_str("<h3 id=\"study\">Multi-hunk repair (the agent study's Table 2)</h3><p class=\"muted\">Predictions on the buggy version, evaluated by Defects4J. Every rate is over all of the system's bugs. Localization: non-empty, applied, compiled, every golden file patched; compilation: non-empty and compiled; repair accuracy: non-empty, the trigger tests pass and no test of the whole suite fails; regression reduction: failing tests before − after on the whole suite, over compiled patches only.</p>");
    out.push_str("<table><tr><th>system</th><th>bugs</th><th>localization</th><th>compilation</th><th>regression reduction (avg)</th><th>repair accuracy</th><th>RR defined</th><th>RR positive / zero / negative</th><th>RR σ, min, max</th></tr>");
    let cp = |k: usize, n: usize| {
        if n == 0 {
            format!("{k}")
        } else {
            format!("{k} ({:.2}%)", 100.0 * k as f64 / n as f64)
        }
    };
    for (s, m) in with {
        let (mean, defined, signs, spread) = match &m.regression {
            Some(rr) => (
                format!("{:.2}", rr.mean),
                rr.n.to_string(),
                format!("{} / {} / {}", rr.positive, rr.zero, rr.negative),
                format!("{:.2}, {}, {}", rr.sd, rr.min, rr.max),
            ),
            None => ("–".into(), "0".into(), "–".into(), "–".into()),
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            esc(&s.name),
            m.bugs,
            cp(m.localization.k, m.bugs),
            cp(m.compilation.k, m.bugs),
            mean,
            cp(m.repair.k, m.bugs),
            defined,
            signs,
            spread
        );
    }
    let n = crate::model::PUBLISHED_TABLE2_BUGS;
    for (agent, loc, comp, rr, rep) in crate::model::PUBLISHED_TABLE2 {
        let _ = write!(
            out,
            "<tr class=\"muted\"><td>{} (published)</td><td class=\"n\">{n}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{rr:.2}</td><td class=\"n\">{}</td><td></td><td></td><td></td></tr>",
            esc(agent),
            cp(loc, n),
            cp(comp, n),
            cp(rep, n)
        );
    }
    out.push_str("</table>");
}

/// Escape text whose `<br>` separators are kept.
fn esc_lines(s: &str) -> String {
    s.split("<br>").map(esc).collect::<Vec<_>>().join("<br>")
}

/// The results section of the page.
pub(super) fn section(
    out: &mut String,
    r: &ResultsTables,
    outcomes: Option<&crate::report::outcomes::OutcomeTables>,
) {
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
    let collect = |f: &dyn Fn(&SystemTables) -> Vec<(String, Rate)>| {
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
    study_section(out, r);
    trajectories_section(out, r);
    super::analytics::section(out, r);
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
    if let Some(t) = outcomes {
        super::outcomes::section(out, t);
    }
    if let Some(t) = &r.fixedbench {
        fixedbench_section(out, t);
        effort_section(out, t);
    }
    out.push_str("</section>");
}

/// FixedBench's table: abstention and resolution per task × scenario × instruction and
/// system, with the paper's ± (normal approximation) and the Partial control.
fn effort_section(out: &mut String, t: &crate::report::results::FixedBenchTable) {
    if t.effort.is_empty() {
        return;
    }
    out.push_str("<h3>Thinking effort and abstention (Spearman)</h3><table><tr><th>task</th><th>systems (effort)</th><th>predictions</th><th>ρ</th><th>p</th></tr>");
    for c in &t.effort {
        let cells = crate::report::effort::row(c);
        out.push_str("<tr>");
        for (i, cell) in cells.iter().enumerate() {
            let class = if i >= 2 { " class=\"n\"" } else { "" };
            let _ = write!(out, "<td{class}>{}</td>", esc(cell));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
}

fn fixedbench_section(out: &mut String, t: &crate::report::results::FixedBenchTable) {
    let cell = |r: &Rate| {
        format!(
            "{:.1} ± {:.1} <span class=\"muted\">({}/{})</span>",
            100.0 * r.rate,
            100.0 * r.normal_half_width,
            r.k,
            r.n
        )
    };
    out.push_str("<h3>FixedBench: abstention and resolution</h3><p class=\"muted\">Abs.: predictions that change no code (right on Resolved, wrong on Novel and Partial); Res.: predictions after which every golden test passes. Rates in percent with the 95% normal-approximation ±, as the FixedBench paper reports them.</p><table><tr><th>task</th><th>scenario</th><th>instruction</th>");
    for s in &t.systems {
        let _ = write!(out, "<th>{} Abs.</th><th>{} Res.</th>", esc(s), esc(s));
    }
    out.push_str("</tr>");
    for row in &t.rows {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td>",
            esc(&row.task),
            esc(&row.scenario),
            esc(&row.instruction)
        );
        for c in &row.cells {
            match c {
                Some(c) => {
                    let res = c
                        .resolution
                        .as_ref()
                        .map(cell)
                        .unwrap_or_else(|| "–".into());
                    let _ = write!(
                        out,
                        "<td class=\"n\">{}</td><td class=\"n\">{res}</td>",
                        cell(&c.abstention)
                    );
                }
                None => out.push_str("<td>–</td><td>–</td>"),
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
    if !t.partial_control.is_empty() {
        out.push_str("<h4>Partial control</h4><p class=\"muted\">Resolution on the Novel versions of the instances given as Partial.</p><table><tr><th>scenario</th><th>instruction</th>");
        for s in &t.systems {
            let _ = write!(out, "<th>{} Res. on Novel</th>", esc(s));
        }
        out.push_str("</tr>");
        for row in &t.partial_control {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td>",
                esc(&row.scenario),
                esc(&row.instruction)
            );
            for c in &row.cells {
                let _ = write!(
                    out,
                    "<td class=\"n\">{}</td>",
                    c.as_ref().map(cell).unwrap_or_else(|| "–".into())
                );
            }
            out.push_str("</tr>");
        }
        out.push_str("</table>");
    }
}
