//! The agent study's metrics on HUNK4J (Nashid et al., "Beyond Accuracy: Behavioral
//! Dynamics of Agentic Multi-Hunk Repair"), per system over its predictions on the buggy
//! version, and its Table 2 layout. Per bug b:
//!
//! - localization LS = 1 iff the patch is non-empty, valid (it applied) and compiles, and
//!   the files it modifies include every file of the developer patch;
//! - compilation = 1 iff the patch is non-empty and compiles;
//! - repair accuracy = 1 iff the patch is non-empty and no test fails after it (the
//!   trigger tests in their own runs, and the whole suite);
//! - regression reduction RR = failing before − failing after (whole suite), undefined
//!   and left out when compilation is 0; reported as its mean, σ, min, max and the
//!   shares of positive, zero and negative values.
//!
//! Every rate is over all the system's bugs (the study's denominators: 155/372 =
//! 41.67%), and the table states it.

use crate::model::{PredictionResult, RegressionStats, StudyMetrics};
use crate::stats::wilson;

/// The Table 2 row of a system's rows (its predictions on the buggy version); `None`
/// for no rows.
pub fn metrics(rows: &[&PredictionResult]) -> Option<StudyMetrics> {
    if rows.is_empty() {
        return None;
    }
    let n = rows.len();
    let count = |f: &dyn Fn(&PredictionResult) -> bool| rows.iter().filter(|r| f(r)).count();
    let rr: Vec<i64> = rows
        .iter()
        .filter_map(|r| r.regression_reduction())
        .collect();
    Some(StudyMetrics {
        bugs: n,
        localization: wilson(count(&|r| r.study_compiles() && r.localized), n),
        compilation: wilson(count(&PredictionResult::study_compiles), n),
        repair: wilson(count(&|r| r.study_non_empty() && r.resolved), n),
        regression: regression_stats(&rr),
    })
}

/// Mean, population σ, min, max and signs of the regression reductions.
pub fn regression_stats(values: &[i64]) -> Option<RegressionStats> {
    let (&min, &max) = (values.iter().min()?, values.iter().max()?);
    let n = values.len();
    let mean = values.iter().sum::<i64>() as f64 / n as f64;
    let var = values
        .iter()
        .map(|v| (*v as f64 - mean).powi(2))
        .sum::<f64>()
        / n as f64;
    Some(RegressionStats {
        n,
        mean,
        sd: var.sqrt(),
        min,
        max,
        positive: values.iter().filter(|v| **v > 0).count(),
        zero: values.iter().filter(|v| **v == 0).count(),
        negative: values.iter().filter(|v| **v < 0).count(),
    })
}

/// `k (p%)`, as the study writes its counts.
fn count_pct(k: usize, n: usize) -> String {
    if n == 0 {
        return format!("{k} (–)");
    }
    format!("{k} ({:.2}%)", 100.0 * k as f64 / n as f64)
}

/// Table 2's layout: one row per system — localization, compilation, regression
/// reduction (mean), repair accuracy — each rate with its count over all the system's
/// bugs; then the regression-reduction distribution per system.
pub fn table2(systems: &[(String, StudyMetrics)]) -> String {
    let mut t = crate::table::Table::new([
        "system",
        "bugs",
        "localization",
        "compilation",
        "regression reduction (avg)",
        "repair accuracy",
    ])
    .right(1..6);
    let mut dist = crate::table::Table::new([
        "system",
        "RR defined",
        "positive",
        "zero",
        "negative",
        "σ",
        "min",
        "max",
    ])
    .right(1..8);
    for (name, m) in systems {
        t.push([
            name.clone(),
            m.bugs.to_string(),
            count_pct(m.localization.k, m.bugs),
            count_pct(m.compilation.k, m.bugs),
            m.regression
                .as_ref()
                .map_or("–".into(), |r| format!("{:.2}", r.mean)),
            count_pct(m.repair.k, m.bugs),
        ]);
        let share = |k: usize, n: usize| format!("{:.1}% ({k})", 100.0 * k as f64 / n as f64);
        match &m.regression {
            Some(r) => dist.push([
                name.clone(),
                format!("{} of {}", r.n, m.bugs),
                share(r.positive, r.n),
                share(r.zero, r.n),
                share(r.negative, r.n),
                format!("{:.2}", r.sd),
                r.min.to_string(),
                r.max.to_string(),
            ]),
            None => dist.push([
                name.clone(),
                format!("0 of {}", m.bugs),
                "–".into(),
                "–".into(),
                "–".into(),
                "–".into(),
                "–".into(),
                "–".into(),
            ]),
        }
    }
    let n = crate::model::PUBLISHED_TABLE2_BUGS;
    for (agent, loc, comp, rr, rep) in crate::model::PUBLISHED_TABLE2 {
        t.push([
            format!("{agent} (published)"),
            n.to_string(),
            count_pct(loc, n),
            count_pct(comp, n),
            format!("{rr:.2}"),
            count_pct(rep, n),
        ]);
    }
    format!(
        "\n## Multi-hunk repair (the agent study's Table 2)\n\n\
         Every rate is over all of the system's bugs (its predictions on the buggy \
         version). Localization: non-empty, applied, compiled, and every golden file \
         patched; compilation: non-empty and compiled; repair accuracy: non-empty, the \
         trigger tests pass and no test of the whole suite fails; regression reduction: \
         failing tests before − after on the whole suite, over compiled patches only. \
         The rows marked published are the study's own, on HUNK4J's 372 bugs.\n\n{}\n\
         Regression reduction over the compiled patches:\n\n{}",
        t.to_markdown(),
        dist.to_markdown()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ApplyMethod;

    fn row(applied: ApplyMethod, compiled: Option<bool>, resolved: bool) -> PredictionResult {
        PredictionResult {
            schema_version: 1,
            instance_id: "Cli_1".into(),
            model_name_or_path: "m".into(),
            state: "novel".into(),
            scenario: "worst".into(),
            instruction: None,
            attempt: None,
            applied,
            compiled,
            resolution: None,
            resolved,
            abstained: false,
            abstention_correct: true,
            localized: true,
            localized_counted: true,
            hunks_touched: vec![],
            hunks_total: 2,
            line_scores: None,
            function_scores: None,
            failing_before: Some(3),
            failing_after: None,
            infra: None,
            problems: vec![],
            defects4j: None,
        }
    }

    #[test]
    fn the_study_definitions_by_hand() {
        let mut good = row(ApplyMethod::Exact, Some(true), true);
        good.failing_after = Some(0);
        let mut worse = row(ApplyMethod::Fuzz, Some(true), false);
        worse.failing_after = Some(5);
        worse.localized = false;
        let broken = row(ApplyMethod::Exact, Some(false), false);
        // An empty patch compiles (nothing changed) but counts for nothing, and its
        // regression reduction is undefined.
        let mut empty = row(ApplyMethod::Empty, Some(true), true);
        empty.failing_after = Some(3);
        let failed = row(ApplyMethod::Failed, None, false);
        let rows = [&good, &worse, &broken, &empty, &failed];
        let m = metrics(&rows).expect("rows");
        assert_eq!(m.bugs, 5);
        assert_eq!((m.localization.k, m.localization.n), (1, 5));
        assert_eq!(m.compilation.k, 2);
        assert_eq!(m.repair.k, 1);
        let r = m.regression.clone().expect("two compiled");
        assert_eq!((r.n, r.min, r.max), (2, -2, 3));
        assert_eq!((r.positive, r.zero, r.negative), (1, 0, 1));
        assert!((r.mean - 0.5).abs() < 1e-12);
        assert!((r.sd - 2.5).abs() < 1e-12);
        assert_eq!(broken.regression_reduction(), None);
        assert_eq!(empty.regression_reduction(), None);
        assert!(metrics(&[]).is_none());

        let md = table2(&[("agent".into(), m)]);
        assert!(
            md.contains("| agent | 5 | 1 (20.00%) | 2 (40.00%) | 0.50 | 1 (20.00%) |"),
            "{md}"
        );
        assert!(
            md.contains("| agent | 2 of 5 | 50.0% (1) | 0.0% (0) | 50.0% (1) | 2.50 | -2 | 3 |"),
            "{md}"
        );
    }

    #[test]
    fn the_published_rates_use_all_bugs_as_denominator() {
        // Gemini CLI: 155 of 372 repaired is 41.67%; Qwen Code 96 is 25.81%.
        assert_eq!(count_pct(155, 372), "155 (41.67%)");
        assert_eq!(count_pct(96, 372), "96 (25.81%)");
        // The published rows sit under the computed ones, each as the paper prints it
        // (reference/agent-study.md, Table 2).
        let md = table2(&[]);
        for row in [
            "| Qwen Code (published) | 372 | 142 (38.17%) | 364 (97.85%) | -1.34 | 96 (25.81%) |",
            "| Gemini CLI (published) | 372 | 173 (46.51%) | 347 (93.28%) | -1.92 | 155 (41.67%) |",
            "| Codex (published) | 372 | 279 (75.00%) | 367 (98.66%) | 2.25 | 324 (87.10%) |",
            "| Claude Code (published) | 372 | 238 (63.98%) | 372 (100.00%) | 2.47 | 347 (93.28%) |",
        ] {
            assert!(md.contains(row), "{row}\n{md}");
        }
    }
}
