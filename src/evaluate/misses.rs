//! What an evaluation left out and what the gold baseline missed: per bug, the tests
//! excluded from "failing after" and why, and every golden-patch prediction that did not
//! resolve with its cause, so a gold rate below 100% explains itself in one table.

use crate::model::{EvaluationSummary, Exclusion, GoldMiss, PredictionResult};

/// The name `--baseline gold` gives its predictions.
const GOLD: &str = "baseline-gold";

/// Every excluded test of every row, once per instance and test, in row order.
pub fn exclusions(results: &[&PredictionResult]) -> Vec<Exclusion> {
    let mut out: Vec<Exclusion> = Vec::new();
    for r in results {
        let Some(d) = &r.defects4j else { continue };
        for test in &d.excluded {
            if out
                .iter()
                .any(|e| e.instance_id == r.instance_id && &e.test == test)
            {
                continue;
            }
            out.push(Exclusion {
                instance_id: r.instance_id.clone(),
                test: test.clone(),
                why: d
                    .excluded_why
                    .get(test)
                    .cloned()
                    .unwrap_or_else(|| super::d4j::DEFECTS4J_LISTED.to_string()),
            });
        }
    }
    out
}

/// The gold baseline's unresolved rows with their cause; empty for any other system.
pub fn gold_misses(model: &str, results: &[&PredictionResult]) -> Vec<GoldMiss> {
    if model != GOLD {
        return Vec::new();
    }
    results
        .iter()
        .filter(|r| !r.resolved)
        .map(|r| GoldMiss {
            instance_id: r.instance_id.clone(),
            state: r.state.clone(),
            cause: cause(r),
        })
        .collect()
}

/// One line saying why a row did not resolve.
fn cause(r: &PredictionResult) -> String {
    let list = |v: &[String]| {
        let shown: Vec<&str> = v.iter().take(5).map(String::as_str).collect();
        let more = v.len().saturating_sub(shown.len());
        match more {
            0 => shown.join(", "),
            n => format!("{} and {n} more", shown.join(", ")),
        }
    };
    if let Some(i) = &r.infra {
        return format!("infrastructure: {i}");
    }
    if let Some(p) = r.problems.first() {
        return format!("problem: {p}");
    }
    if let Some(d) = &r.defects4j {
        if !d.golden_failing_on_fixed.is_empty() {
            return format!(
                "golden test(s) fail on the fixed version here: {}",
                list(&d.golden_failing_on_fixed)
            );
        }
        if !d.compile_errors.is_empty() || r.compiled == Some(false) {
            return format!("does not compile: {}", list(&d.compile_errors));
        }
        if let Some(t) = d.trigger_failing.as_ref().filter(|t| !t.is_empty()) {
            return format!("trigger test(s) still fail: {}", list(t));
        }
        if let Some(t) = d.suite_failing.as_ref().filter(|t| !t.is_empty()) {
            return format!("suite test(s) fail after the patch: {}", list(t));
        }
    }
    if r.compiled == Some(false) {
        return "does not compile".into();
    }
    match r.resolution {
        Some(s) => format!("golden tests: resolution {s:?}").to_lowercase(),
        None => "not scored".into(),
    }
}

/// The two tables, in markdown; empty when there is nothing to say.
pub fn markdown(s: &EvaluationSummary) -> String {
    let mut out = String::new();
    if !s.gold_misses.is_empty() {
        let mut t = crate::table::Table::new(["instance", "state", "cause"]);
        for m in &s.gold_misses {
            t.push([m.instance_id.clone(), m.state.clone(), m.cause.clone()]);
        }
        out.push_str(&format!(
            "\nThe gold baseline did not resolve {} prediction(s):\n\n",
            s.gold_misses.len()
        ));
        out.push_str(&t.to_markdown());
    }
    if !s.exclusions.is_empty() {
        let mut t = crate::table::Table::new(["instance", "test left out", "why"]);
        for e in &s.exclusions {
            t.push([e.instance_id.clone(), e.test.clone(), e.why.clone()]);
        }
        out.push_str(&format!(
            "\nTests left out of \"failing after\" ({}):\n\n",
            s.exclusions.len()
        ));
        out.push_str(&t.to_markdown());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::D4jResult;

    fn row(id: &str, resolved: bool, d: Option<D4jResult>) -> PredictionResult {
        let mut r: PredictionResult = serde_json::from_value(serde_json::json!({
            "schema_version": 1, "instance_id": id, "model_name_or_path": GOLD,
            "state": "novel", "scenario": "unspecified", "applied": "exact",
            "resolved": resolved, "abstained": false, "abstention_correct": true,
            "localized": true, "hunks_touched": [], "hunks_total": 2
        }))
        .expect("row");
        r.defects4j = d;
        r
    }

    fn d4j(excluded: &[(&str, &str)], suite_failing: &[&str], golden: &[&str]) -> D4jResult {
        D4jResult {
            compile: "compiled".into(),
            compile_errors: Vec::new(),
            trigger_failing: Some(Vec::new()),
            suite_tests: Some(10),
            suite_failing: Some(suite_failing.iter().map(|s| s.to_string()).collect()),
            excluded: excluded.iter().map(|(t, _)| t.to_string()).collect(),
            excluded_why: excluded
                .iter()
                .map(|(t, w)| (t.to_string(), w.to_string()))
                .collect(),
            golden_failing_on_fixed: golden.iter().map(|s| s.to_string()).collect(),
            timed_out: None,
            seconds: 1.0,
            cached: false,
        }
    }

    #[test]
    fn gold_misses_name_their_cause_and_exclusions_their_reason() {
        let a = row("A_1", true, Some(d4j(&[("T::home", "here")], &[], &[])));
        let b = row("B_2", false, Some(d4j(&[], &["T::net"], &[])));
        let c = row("C_3", false, Some(d4j(&[], &[], &["T::trigger"])));
        let rows = [&a, &b, &c];
        let misses = gold_misses(GOLD, &rows);
        assert_eq!(misses.len(), 2);
        assert_eq!(
            misses[0].cause,
            "suite test(s) fail after the patch: T::net"
        );
        assert_eq!(
            misses[1].cause,
            "golden test(s) fail on the fixed version here: T::trigger"
        );
        assert!(gold_misses("some-agent", &rows).is_empty());
        let ex = exclusions(&[&a, &a, &b]);
        assert_eq!(ex.len(), 1, "{ex:?}");
        assert_eq!(
            (ex[0].test.as_str(), ex[0].why.as_str()),
            ("T::home", "here")
        );
    }
}
