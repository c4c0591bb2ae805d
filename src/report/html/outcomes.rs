//! The outcome-conditioned part of the results section: divergence of fixed and unfixed
//! bugs (table and violins), the bugs no system fixed, solver sets by proximity class and
//! the regression-reduction violins.

use super::charts::{hbars, system_colour, violins, Bar, Violin};
use super::esc;
use crate::report::outcomes::{set_label, OutcomeTables};
use std::fmt::Write as _;

/// Append the outcome-conditioned tables and figures.
pub(super) fn section(out: &mut String, t: &OutcomeTables) {
    let colour = |name: &str| {
        let k = t.systems.iter().position(|s| s == name).unwrap_or(0);
        system_colour(k)
    };
    if !t.divergence.is_empty() {
        out.push_str("<h3 id=\"outcomes\">Divergence of fixed and unfixed bugs</h3><p class=\"muted\">Bugs: instances with a Novel row (the buggy version); fixed: a Novel row of the system is resolved. Div(P) of each side; std is the sample deviation (n − 1). The rank-sum p is Wilcoxon's (SciPy's <code>ranksums</code>), Cliff's δ compares fixed with unfixed (negative: the fixed bugs diverge less).</p>");
        out.push_str(&t.divergence_table().to_html());
        let rows: Vec<Violin> = t
            .divergence
            .iter()
            .flat_map(|d| {
                [("fixed", &d.values[0]), ("unfixed", &d.values[1])].map(|(side, v)| Violin {
                    label: format!("{} {side}", d.system),
                    colour: if side == "fixed" {
                        colour(&d.system)
                    } else {
                        "#999999"
                    },
                    values: v.clone(),
                })
            })
            .collect();
        out.push_str(&violins("Div(P) of fixed and unfixed bugs", &rows));
    }
    if let Some(u) = &t.unfixed {
        let _ = write!(
            out,
            "<h3>Bugs no system fixed ({} of {})</h3><p class=\"muted\">Each system's localization on the bug (every golden file patched; – : the system did not run it), then the same figures over all bugs and over these.</p>",
            u.rows.len(),
            u.bugs
        );
        out.push_str(&u.rows_table().to_html());
        out.push_str(&u.deltas_table().to_html());
    }
    if !t.sets_by_class.is_empty() {
        out.push_str("<h3>Exact solver sets by proximity class</h3><p class=\"muted\">Tasks (an instance in Novel or Partial state) of each class, by the set of systems that resolved them.</p>");
        for c in &t.sets_by_class {
            let bars: Vec<Bar> = c
                .combinations
                .iter()
                .map(|(set, count)| Bar {
                    label: set_label(&t.systems, set),
                    value: *count as f64,
                    text: count.to_string(),
                    colour: if set.iter().any(|s| *s) {
                        "#55a868"
                    } else {
                        "#999999"
                    },
                    whisker: None,
                })
                .collect();
            let _ = write!(out, "<h4>{} ({} tasks)</h4>", esc(&c.class), c.tasks);
            out.push_str(&hbars(&format!("solver sets, {}", c.class), &bars, 0.0));
        }
    }
    if !t.regression.is_empty() {
        out.push_str("<h3>Regression reduction</h3><p class=\"muted\">Failing tests before − after on the whole suite, per compiled Novel row (the study's RR).</p>");
        let rows: Vec<Violin> = t
            .regression
            .iter()
            .map(|(name, v)| Violin {
                label: name.clone(),
                colour: colour(name),
                values: v.clone(),
            })
            .collect();
        out.push_str(&violins("regression reduction", &rows));
    }
    if !t.correlations.is_empty() {
        out.push_str("<h3>Task metrics correlated across systems</h3><p class=\"muted\">RepoFixEval's pairwise correlations: each system's Novel rows give one point per metric (files localized, mean line F1, strict <code>git apply</code>, resolved); Pearson's r and Spearman's ρ with two-sided t-test p-values (SciPy's <code>pearsonr</code> and <code>spearmanr</code>). Few systems make weak evidence.</p>");
        out.push_str(&t.correlations_table().to_html());
    }
}
