//! Aggregate rates of a group of prediction results (one `Rates` per summary group).

use crate::model::{ApplyMethod, PredictionResult, Rates};

use crate::stats::{mean, wilson};

/// The rates of a group of results, each a Wilson 95% interval over its denominator:
/// resolution, abstention, correct abstention, localization (the study's golden files
/// and the counted-hunk variant) and applying (strict and lenient) over every row;
/// compilation over rows whose `compiled` is known; mean line F1 over rows with line
/// scores; mean regression reduction (`failing_before − failing_after`) over rows with
/// both counts. An empty group gives all `None`; so does a figure with no row to
/// average or count.
pub fn rates(results: &[&PredictionResult]) -> Rates {
    if results.is_empty() {
        return Rates::default();
    }
    let n = results.len();
    let count = |f: &dyn Fn(&PredictionResult) -> bool| results.iter().filter(|r| f(r)).count();
    let compiled: Vec<bool> = results.iter().filter_map(|r| r.compiled).collect();
    let f1: Vec<f64> = results
        .iter()
        .filter_map(|r| r.line_scores.map(|s| s.f1))
        .collect();
    let function_f1: Vec<f64> = results
        .iter()
        .filter_map(|r| r.function_scores.map(|s| s.f1))
        .collect();
    let rr: Vec<f64> = results
        .iter()
        .filter_map(|r| Some(r.failing_before? as f64 - r.failing_after? as f64))
        .collect();
    Rates {
        resolution: Some(wilson(count(&|r| r.resolved), n)),
        abstention: Some(wilson(count(&|r| r.abstained), n)),
        correct_abstention: Some(wilson(count(&|r| r.abstention_correct), n)),
        localization: Some(wilson(count(&|r| r.localized), n)),
        localization_counted: Some(wilson(count(&|r| r.localized_counted), n)),
        applied_strict: Some(wilson(count(&|r| r.applied == ApplyMethod::Exact), n)),
        applied_lenient: Some(wilson(
            count(&|r| {
                matches!(
                    r.applied,
                    ApplyMethod::Exact | ApplyMethod::ThreeWay | ApplyMethod::Fuzz
                )
            }),
            n,
        )),
        compilation: (!compiled.is_empty())
            .then(|| wilson(compiled.iter().filter(|c| **c).count(), compiled.len())),
        mean_line_f1: mean(&f1),
        mean_function_f1: mean(&function_f1),
        mean_regression_reduction: mean(&rr),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Scores;

    fn row(resolved: bool, abstained: bool, state: &str) -> PredictionResult {
        PredictionResult {
            schema_version: 1,
            instance_id: "x".into(),
            model_name_or_path: "m".into(),
            state: state.into(),
            scenario: "best".into(),
            instruction: None,
            attempt: None,
            applied: ApplyMethod::Exact,
            compiled: None,
            resolution: None,
            resolved,
            abstained,
            abstention_correct: abstained == (state == "resolved"),
            localized: false,
            localized_counted: false,
            hunks_touched: vec![],
            hunks_total: 2,
            line_scores: None,
            function_scores: None,
            failing_before: None,
            failing_after: None,
            infra: None,
            problems: vec![],
            defects4j: None,
        }
    }

    #[test]
    fn rates_by_hand() {
        let mut rows = [
            row(true, false, "novel"),
            row(false, true, "resolved"),
            row(false, true, "novel"),
            row(false, false, "partial"),
        ];
        rows[0].localized = true;
        (rows[0].localized_counted, rows[2].localized_counted) = (true, true);
        // Exact, exact, 3-way, failed: strict 2 of 4, lenient 3 of 4.
        (rows[2].applied, rows[3].applied) = (ApplyMethod::ThreeWay, ApplyMethod::Failed);
        rows[0].compiled = Some(true);
        rows[3].compiled = Some(false);
        rows[0].line_scores = Some(Scores {
            precision: 1.0,
            recall: 0.5,
            f1: 2.0 / 3.0,
        });
        rows[3].line_scores = Some(Scores {
            precision: 0.0,
            recall: 0.0,
            f1: 0.0,
        });
        (rows[0].failing_before, rows[0].failing_after) = (Some(3), Some(0));
        (rows[3].failing_before, rows[3].failing_after) = (Some(2), Some(4));
        rows[2].failing_before = Some(9); // no `after`: not averaged
        let refs: Vec<&PredictionResult> = rows.iter().collect();
        let r = rates(&refs);
        let kn = |x: Option<crate::model::Rate>| x.map(|x| (x.k, x.n));
        assert_eq!(kn(r.resolution), Some((1, 4)));
        assert_eq!(kn(r.abstention), Some((2, 4)));
        // Correct: row 0 acted on novel, row 1 abstained on resolved, row 3 acted on
        // partial; row 2 abstained on novel.
        assert_eq!(kn(r.correct_abstention), Some((3, 4)));
        assert_eq!(kn(r.localization), Some((1, 4)));
        assert_eq!(kn(r.localization_counted), Some((2, 4)));
        assert_eq!(kn(r.applied_strict), Some((2, 4)));
        assert_eq!(kn(r.applied_lenient), Some((3, 4)));
        assert_eq!(kn(r.compilation), Some((1, 2)));
        // (2/3 + 0) / 2 = 1/3.
        assert!((r.mean_line_f1.expect("some") - 1.0 / 3.0).abs() < 1e-12);
        // ((3 − 0) + (2 − 4)) / 2 = 0.5.
        assert_eq!(r.mean_regression_reduction, Some(0.5));
        let res = r.resolution.expect("some");
        assert_eq!((res.low, res.high), (wilson(1, 4).low, wilson(1, 4).high));

        let none = rates(&refs[1..3]);
        assert_eq!(none.compilation, None);
        assert_eq!(none.mean_line_f1, None);
        assert_eq!(none.mean_regression_reduction, None);
        assert_eq!(rates(&[]), Rates::default());
    }
}
