//! The page's trajectory analytics in the papers' terms, one row per system and outcome:
//! the agent study's step categories and top category bigrams, Passerine's smells, and
//! how far unresolved runs' edits lay from the golden files.

use super::charts::{system_colour, violins, Violin};
use super::esc;
use crate::model::{Analytics, StudyCategory};
use crate::report::results::ResultsTables;
use std::fmt::Write as _;

/// The section, when some system's runs have analytics.
pub(super) fn section(out: &mut String, r: &ResultsTables) {
    let with: Vec<(&str, &Analytics)> = r
        .systems
        .iter()
        .filter_map(|s| {
            let a = s.trajectories.as_ref()?.analytics.as_ref()?;
            Some((s.name.as_str(), a))
        })
        .collect();
    if with.is_empty() {
        return;
    }
    out.push_str("<h3 id=\"analytics\">Trajectory analytics</h3><p class=\"muted\">Steps in the agent study's seven categories as shares of the outcome's steps (OTHER: none of them), its most frequent category bigrams, and Passerine's smells as shares of the outcome's trajectories: NO_TEST (no test run), NO_OP_CAT (a file read again without an edit since), CONSECUTIVE_SEARCH (three searches in a row), CONSECUTIVE_EDIT (three edits of one file in a row). Tree distance: for unresolved runs that edited files, the mean edges from each edited file to the nearest golden file in the directory tree.</p>");
    out.push_str(
        "<div class=\"wide\"><table><tr><th>system</th><th>outcome</th><th>trajectories</th>",
    );
    for c in StudyCategory::ALL {
        let _ = write!(out, "<th>{}</th>", c.name());
    }
    out.push_str("<th>top bigrams</th><th>NO_TEST</th><th>NO_OP_CAT</th><th>CONSECUTIVE_SEARCH</th><th>CONSECUTIVE_EDIT</th><th>tree distance (runs, mean, median)</th></tr>");
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    for (name, a) in with {
        for outcome in ["success", "failure"] {
            let Some(smells) = a.smells.get(outcome) else {
                continue;
            };
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{outcome}</td><td class=\"n\">{}</td>",
                esc(name),
                smells.trajectories
            );
            let cats = a.categories.get(outcome);
            for c in StudyCategory::ALL {
                let cell = cats
                    .and_then(|m| m.get(c.name()))
                    .map(|s| pct(s.share))
                    .unwrap_or_else(|| "–".into());
                let _ = write!(out, "<td class=\"n\">{cell}</td>");
            }
            let grams: Vec<String> = a
                .ngrams
                .get("2")
                .and_then(|m| m.get(outcome))
                .map(|g| {
                    g.iter()
                        .take(3)
                        .map(|g| {
                            let c: Vec<&str> = g.categories.iter().map(|c| c.name()).collect();
                            format!("{} {}", c.join(" → "), pct(g.share))
                        })
                        .collect()
                })
                .unwrap_or_default();
            let share = |n: usize| pct(n as f64 / smells.trajectories.max(1) as f64);
            let t = &a.tree_distance;
            let tree = match (outcome, t.runs) {
                ("failure", n) if n > 0 => format!(
                    "{n}, {:.2}, {:.2}",
                    t.mean.unwrap_or(0.0),
                    t.median.unwrap_or(0.0)
                ),
                _ => "–".into(),
            };
            let _ = write!(
                out,
                "<td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
                grams.iter().map(|g| esc(g)).collect::<Vec<_>>().join("<br>"),
                share(smells.no_test),
                share(smells.no_op_cat),
                share(smells.consecutive_search),
                share(smells.consecutive_edit),
                tree
            );
        }
    }
    out.push_str("</table></div>");
    // The study's Table 7: each category's steps through the agent's own tools and
    // through the shell.
    out.push_str("<table><tr><th>system</th><th>steps by native tools / shell commands</th></tr>");
    for (name, a) in r.systems.iter().filter_map(|s| {
        let a = s.trajectories.as_ref()?.analytics.as_ref()?;
        Some((s.name.as_str(), a))
    }) {
        let cells: Vec<String> = StudyCategory::ALL
            .iter()
            .filter_map(|c| a.via.get(c.name()).map(|v| (c, v)))
            .map(|(c, v)| format!("{} {} / {}", c.name(), v.native, v.shell))
            .collect();
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td></tr>",
            esc(name),
            esc(&cells.join(", "))
        );
    }
    out.push_str("</table>");
    tokens(out, r);
}

/// Tokens per run as violins, each system's successful and failed runs on a row each
/// (the study's token figure), when some system's runs report tokens.
fn tokens(out: &mut String, r: &ResultsTables) {
    let mut rows: Vec<Violin> = Vec::new();
    for (k, s) in r.systems.iter().enumerate() {
        let Some(t) = s.trajectories.as_ref() else {
            continue;
        };
        for outcome in ["success", "failure"] {
            if let Some(v) = t.tokens_per_run.get(outcome) {
                rows.push(Violin {
                    label: format!("{} {outcome}", s.name),
                    colour: if outcome == "success" {
                        system_colour(k)
                    } else {
                        "#999999"
                    },
                    values: v.clone(),
                });
            }
        }
    }
    if rows.is_empty() {
        return;
    }
    out.push_str("<h4>Tokens per run</h4><p class=\"muted\">Input + output tokens of each run that reports them, by outcome (resolved; on Resolved states, abstaining rightly).</p>");
    out.push_str(&violins("tokens per run", &rows));
}
