//! Golden-test labels from before/after reruns, flaky detection, and SWE-bench grading.
//!
//! Pure functions. "Before" is base + test patch, "after" is base + test patch + golden
//! patch; each side is run k times. A test's outcome on one side is Pass (PASSED or
//! XFAIL, SWE-bench's `test_passed`), Fail (FAILED, ERROR), Skip or Absent; a test whose
//! outcome differs between reruns of the same side is flaky and gets no label. Grading
//! mirrors `swebench/harness/grading.py`: `test_passed`, `test_failed`,
//! `test_maintained`, `get_eval_tests_report`, `get_resolution_status`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use super::parse::{InfraFailure, RunResult, TestResults, TestStatus};

/// A test's outcome class on one tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// PASSED or XFAIL.
    Pass,
    /// FAILED or ERROR.
    Fail,
    /// SKIPPED.
    Skip,
    /// Not reported by the run (e.g. a test the test patch adds in a module that only
    /// exists after the fix).
    Absent,
}

impl Outcome {
    /// The class of a status (None = not reported).
    pub fn of(status: Option<TestStatus>) -> Outcome {
        match status {
            Some(TestStatus::Passed | TestStatus::Xfail) => Outcome::Pass,
            Some(TestStatus::Failed | TestStatus::Error) => Outcome::Fail,
            Some(TestStatus::Skipped) => Outcome::Skip,
            None => Outcome::Absent,
        }
    }

    /// The one-letter code used in labels: p, f, s, n.
    pub fn letter(self) -> char {
        match self {
            Outcome::Pass => 'p',
            Outcome::Fail => 'f',
            Outcome::Skip => 's',
            Outcome::Absent => 'n',
        }
    }
}

/// A test's transition from before to after, written `f2p`, `p2p`, `s2p`, `n2p`, ...
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Label {
    /// Outcome on base + test patch.
    pub before: Outcome,
    /// Outcome on base + test patch + golden patch.
    pub after: Outcome,
}

impl Label {
    /// Fail → pass.
    pub const F2P: Label = Label {
        before: Outcome::Fail,
        after: Outcome::Pass,
    };
    /// Pass → pass.
    pub const P2P: Label = Label {
        before: Outcome::Pass,
        after: Outcome::Pass,
    };
    /// Fail → fail.
    pub const F2F: Label = Label {
        before: Outcome::Fail,
        after: Outcome::Fail,
    };
    /// Pass → fail (the golden patch breaks it: the instance is rejected).
    pub const P2F: Label = Label {
        before: Outcome::Pass,
        after: Outcome::Fail,
    };
    /// Skipped → pass.
    pub const S2P: Label = Label {
        before: Outcome::Skip,
        after: Outcome::Pass,
    };
    /// Absent → pass.
    pub const N2P: Label = Label {
        before: Outcome::Absent,
        after: Outcome::Pass,
    };

    /// The short code, e.g. `f2p`.
    pub fn code(self) -> String {
        format!("{}2{}", self.before.letter(), self.after.letter())
    }

    /// True for the labels SWE-bench puts in FAIL_TO_PASS: not passing before
    /// (`test_failed`: failed, errored, skipped or missing) and passing after.
    pub fn is_fail_to_pass(self) -> bool {
        self.before != Outcome::Pass && self.after == Outcome::Pass
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.code())
    }
}

/// A test whose outcome changed between reruns of the same tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flaky {
    /// Outcomes of the before reruns, in run order.
    pub before: Vec<Outcome>,
    /// Outcomes of the after reruns, in run order.
    pub after: Vec<Outcome>,
}

/// Labels of every stable test and the flaky ones set aside.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Labels {
    /// Stable tests and their transition.
    pub tests: BTreeMap<String, Label>,
    /// Flaky tests, excluded from `tests`.
    pub flaky: BTreeMap<String, Flaky>,
}

impl Labels {
    /// Tests with exactly this label, sorted.
    pub fn with(&self, label: Label) -> Vec<String> {
        self.tests
            .iter()
            .filter(|(_, l)| **l == label)
            .map(|(t, _)| t.clone())
            .collect()
    }

    /// The instance's golden lists (SWE-bench's FAIL_TO_PASS = f2p ∪ s2p ∪ n2p).
    pub fn golden(&self) -> GoldenTests {
        let pick = |f: &dyn Fn(Label) -> bool| -> Vec<String> {
            self.tests
                .iter()
                .filter(|(_, l)| f(**l))
                .map(|(t, _)| t.clone())
                .collect()
        };
        GoldenTests {
            fail_to_pass: pick(&|l| l.is_fail_to_pass()),
            pass_to_pass: pick(&|l| l == Label::P2P),
            fail_to_fail: pick(&|l| l == Label::F2F),
            pass_to_fail: pick(&|l| l == Label::P2F),
        }
    }
}

/// Labels tests from k before and k after runs (all of which produced results).
pub fn label(before: &[TestResults], after: &[TestResults]) -> Labels {
    let ids: BTreeSet<&String> = before.iter().chain(after).flat_map(|r| r.keys()).collect();
    let mut labels = Labels::default();
    for id in ids {
        let b: Vec<Outcome> = before
            .iter()
            .map(|r| Outcome::of(r.get(id).copied()))
            .collect();
        let a: Vec<Outcome> = after
            .iter()
            .map(|r| Outcome::of(r.get(id).copied()))
            .collect();
        match (stable(&b), stable(&a)) {
            (Some(before), Some(after)) => {
                labels.tests.insert(id.clone(), Label { before, after });
            }
            _ => {
                labels.flaky.insert(
                    id.clone(),
                    Flaky {
                        before: b,
                        after: a,
                    },
                );
            }
        }
    }
    labels
}

/// The single outcome (or status) of a side, or None when reruns disagree (or there
/// were none).
fn stable<T: Copy + PartialEq>(runs: &[T]) -> Option<T> {
    let first = *runs.first()?;
    runs.iter().all(|o| *o == first).then_some(first)
}

/// FAIL_TO_PASS and PASS_TO_PASS as SWE-bench's collection wrote its rows' lists
/// (`convert_log_to_ground_truth` in the package's `metrics/conversion.py`, removed in
/// 2.0), to compare with published rows: only a test reported PASSED after the fix is
/// listed (an XFAIL is not, though grading counts it as passing); PASS_TO_PASS when it
/// was PASSED before, FAIL_TO_PASS when FAILED, ERROR or not reported before (SKIPPED
/// or XFAIL before: neither). A test whose status differs between reruns of a side is
/// in neither.
pub fn as_collected(before: &[TestResults], after: &[TestResults]) -> GoldenTests {
    let one = |runs: &[TestResults], id: &str| -> Option<Option<TestStatus>> {
        stable(&runs.iter().map(|r| r.get(id).copied()).collect::<Vec<_>>())
    };
    let mut lists = GoldenTests::default();
    let ids: BTreeSet<&String> = after.iter().flat_map(|r| r.keys()).collect();
    for id in ids {
        if one(after, id) != Some(Some(TestStatus::Passed)) {
            continue;
        }
        match one(before, id) {
            Some(Some(TestStatus::Passed)) => lists.pass_to_pass.push(id.clone()),
            Some(None | Some(TestStatus::Failed | TestStatus::Error)) => {
                lists.fail_to_pass.push(id.clone())
            }
            // No before run at all: every test is absent there.
            None if before.is_empty() => lists.fail_to_pass.push(id.clone()),
            _ => {}
        }
    }
    lists
}

/// The golden test lists of an instance, in SWE-bench's terms.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct GoldenTests {
    /// Not passing before, passing after.
    pub fail_to_pass: Vec<String>,
    /// Passing before and after.
    pub pass_to_pass: Vec<String>,
    /// Failing before and after.
    pub fail_to_fail: Vec<String>,
    /// Passing before, failing after.
    pub pass_to_fail: Vec<String>,
}

/// Why an instance has no golden tests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum Rejection {
    /// A run of one side did not produce results.
    Infra {
        /// `before` or `after`.
        side: String,
        /// 0-based rerun index.
        run: usize,
        /// What went wrong.
        failure: InfraFailure,
    },
    /// No test goes from failing to passing.
    NoFailToPass,
    /// The golden patch breaks tests that passed before.
    PassToFail {
        /// The broken tests.
        tests: Vec<String>,
    },
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejection::Infra { side, run, failure } => {
                write!(
                    f,
                    "{side} run {run} did not run its tests ({:?}): {}",
                    failure.kind, failure.reason
                )
            }
            Rejection::NoFailToPass => f.write_str("no test fails before the fix and passes after"),
            Rejection::PassToFail { tests } => write!(f, "the fix breaks {}", tests.join(", ")),
        }
    }
}

/// The validation of one instance: its labels and golden lists, or why it is rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Validation {
    /// Labels (empty when a run failed to produce results).
    pub labels: Labels,
    /// The golden lists.
    pub golden: GoldenTests,
    /// None when the instance is accepted.
    pub rejection: Option<Rejection>,
}

/// Validates an instance from its before and after reruns (ARCHITECTURE §5): an infra failure
/// on any run, no F2P test, or a P2F test rejects it with the reason.
pub fn validate(before: &[RunResult], after: &[RunResult]) -> Validation {
    let mut tests = [Vec::new(), Vec::new()];
    for (side, (name, runs)) in [("before", before), ("after", after)]
        .into_iter()
        .enumerate()
    {
        for (i, r) in runs.iter().enumerate() {
            match r {
                RunResult::Tests(t) => tests[side].push(t.clone()),
                RunResult::Infra(failure) => {
                    return Validation {
                        labels: Labels::default(),
                        golden: GoldenTests::default(),
                        rejection: Some(Rejection::Infra {
                            side: name.to_string(),
                            run: i,
                            failure: failure.clone(),
                        }),
                    }
                }
            }
        }
    }
    let labels = label(&tests[0], &tests[1]);
    let golden = labels.golden();
    let rejection = if !golden.pass_to_fail.is_empty() {
        Some(Rejection::PassToFail {
            tests: golden.pass_to_fail.clone(),
        })
    } else if golden.fail_to_pass.is_empty() {
        Some(Rejection::NoFailToPass)
    } else {
        None
    };
    Validation {
        labels,
        golden,
        rejection,
    }
}

/// SWE-bench `test_passed`: reported PASSED or XFAIL.
pub fn test_passed(id: &str, results: &TestResults) -> bool {
    matches!(
        results.get(id),
        Some(TestStatus::Passed | TestStatus::Xfail)
    )
}

/// SWE-bench `test_failed`: missing, FAILED, ERROR or SKIPPED.
pub fn test_failed(id: &str, results: &TestResults) -> bool {
    matches!(
        results.get(id),
        None | Some(TestStatus::Failed | TestStatus::Error | TestStatus::Skipped)
    )
}

/// SWE-bench `test_maintained` (for P2P): passed, or SKIPPED.
pub fn test_maintained(id: &str, results: &TestResults) -> bool {
    test_passed(id, results) || results.get(id) == Some(&TestStatus::Skipped)
}

/// SWE-bench's evaluation types: most repositories are graded on passes and fails;
/// `FAIL_ONLY_REPOS` count only an explicit FAILED as failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvalType {
    /// `EvalType.PASS_AND_FAIL`.
    PassAndFail,
    /// `EvalType.FAIL_ONLY`.
    FailOnly,
}

/// Successes and failures of one golden list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuccessFailure {
    /// Tests that met the list's expectation.
    pub success: Vec<String>,
    /// Tests that did not.
    pub failure: Vec<String>,
}

/// SWE-bench's tests report (`get_eval_tests_report`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct EvalReport {
    /// FAIL_TO_PASS results.
    pub fail_to_pass: SuccessFailure,
    /// PASS_TO_PASS results.
    pub pass_to_pass: SuccessFailure,
    /// FAIL_TO_FAIL results (only with `calculate_to_fail`).
    pub fail_to_fail: SuccessFailure,
    /// PASS_TO_FAIL results (only with `calculate_to_fail`).
    pub pass_to_fail: SuccessFailure,
}

/// `get_eval_tests_report`: grades an evaluation run against the golden lists.
pub fn eval_tests_report(
    eval: &TestResults,
    gold: &GoldenTests,
    calculate_to_fail: bool,
    eval_type: EvalType,
) -> EvalReport {
    let check = |ids: &[String], out: &mut SuccessFailure| {
        for id in ids {
            match eval_type {
                EvalType::PassAndFail => {
                    if test_passed(id, eval) {
                        out.success.push(id.clone());
                    } else if test_failed(id, eval) {
                        out.failure.push(id.clone());
                    }
                }
                EvalType::FailOnly => {
                    if eval.get(id) == Some(&TestStatus::Failed) {
                        out.failure.push(id.clone());
                    } else {
                        out.success.push(id.clone());
                    }
                }
            }
        }
    };
    let mut report = EvalReport::default();
    check(&gold.fail_to_pass, &mut report.fail_to_pass);
    match eval_type {
        EvalType::PassAndFail => {
            for id in &gold.pass_to_pass {
                if test_maintained(id, eval) {
                    report.pass_to_pass.success.push(id.clone());
                } else if test_failed(id, eval) {
                    report.pass_to_pass.failure.push(id.clone());
                }
            }
        }
        EvalType::FailOnly => check(&gold.pass_to_pass, &mut report.pass_to_pass),
    }
    if calculate_to_fail {
        check(&gold.fail_to_fail, &mut report.fail_to_fail);
        check(&gold.pass_to_fail, &mut report.pass_to_fail);
    }
    report
}

/// SWE-bench's `ResolvedStatus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Resolution {
    /// Every F2P passes and every P2P is kept.
    Full,
    /// Some but not all F2P pass, every P2P kept.
    Partial,
    /// Anything else.
    No,
}

/// Share of successes (1 for an empty list, as SWE-bench's `compute_*` do).
fn rate(sf: &SuccessFailure) -> f64 {
    let total = sf.success.len() + sf.failure.len();
    if total == 0 {
        1.0
    } else {
        sf.success.len() as f64 / total as f64
    }
}

/// `get_resolution_status`: FULL / PARTIAL / NO from a tests report.
pub fn resolution_status(report: &EvalReport) -> Resolution {
    let f2p = rate(&report.fail_to_pass);
    let p2p = rate(&report.pass_to_pass);
    if f2p == 1.0 && p2p == 1.0 {
        Resolution::Full
    } else if f2p > 0.0 && f2p < 1.0 && p2p == 1.0 {
        Resolution::Partial
    } else {
        Resolution::No
    }
}

/// Grades one evaluation run: a run that did not produce results resolves nothing.
pub fn resolve(eval: &RunResult, gold: &GoldenTests, eval_type: EvalType) -> Resolution {
    match eval {
        RunResult::Tests(t) => resolution_status(&eval_tests_report(t, gold, false, eval_type)),
        RunResult::Infra(_) => Resolution::No,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::parse::InfraKind;
    use std::path::PathBuf;
    use TestStatus::*;

    fn results(pairs: &[(&str, TestStatus)]) -> TestResults {
        pairs.iter().map(|(t, s)| (t.to_string(), *s)).collect()
    }

    #[test]
    fn label_table() {
        // (before status, after status, expected code); None = absent.
        let table: &[(Option<TestStatus>, Option<TestStatus>, &str)] = &[
            (Some(Failed), Some(Passed), "f2p"),
            (Some(Error), Some(Passed), "f2p"),
            (Some(Failed), Some(Xfail), "f2p"),
            (Some(Passed), Some(Passed), "p2p"),
            (Some(Xfail), Some(Passed), "p2p"),
            (Some(Failed), Some(Failed), "f2f"),
            (Some(Error), Some(Failed), "f2f"),
            (Some(Passed), Some(Failed), "p2f"),
            (Some(Passed), Some(Error), "p2f"),
            (Some(Skipped), Some(Passed), "s2p"),
            (None, Some(Passed), "n2p"),
            (Some(Passed), Some(Skipped), "p2s"),
            (Some(Passed), None, "p2n"),
            (None, Some(Failed), "n2f"),
            (Some(Skipped), Some(Skipped), "s2s"),
        ];
        for (i, (b, a, code)) in table.iter().enumerate() {
            let id = format!("t{i}");
            let before: TestResults = b.iter().map(|s| (id.clone(), *s)).collect();
            let after: TestResults = a.iter().map(|s| (id.clone(), *s)).collect();
            // Two reruns each, identical: stable.
            let l = label(&[before.clone(), before], &[after.clone(), after]);
            assert_eq!(
                l.tests.get(&id).map(|l| l.code()).as_deref(),
                Some(*code),
                "row {i}"
            );
            assert!(l.flaky.is_empty());
        }
        assert_eq!(Label::F2P.code(), "f2p");
        assert_eq!(Label::N2P.to_string(), "n2p");
        assert!(
            Label::S2P.is_fail_to_pass()
                && Label::N2P.is_fail_to_pass()
                && Label::F2P.is_fail_to_pass()
        );
        assert!(!Label::P2P.is_fail_to_pass() && !Label::F2F.is_fail_to_pass());
    }

    #[test]
    fn flaky_tests_are_listed_and_excluded() {
        let before = [
            results(&[("a", Failed), ("flip", Passed), ("gone", Passed)]),
            results(&[("a", Failed), ("flip", Failed)]),
        ];
        let after = [
            results(&[("a", Passed), ("flip", Passed)]),
            results(&[("a", Passed), ("flip", Passed)]),
        ];
        let l = label(&before, &after);
        assert_eq!(l.with(Label::F2P), vec!["a"]);
        assert_eq!(l.flaky.keys().collect::<Vec<_>>(), vec!["flip", "gone"]);
        assert_eq!(l.flaky["flip"].before, vec![Outcome::Pass, Outcome::Fail]);
        assert_eq!(l.flaky["gone"].before, vec![Outcome::Pass, Outcome::Absent]);
        assert!(!l.tests.contains_key("flip"));
    }

    #[test]
    fn validation_rejects_with_reasons() {
        let ok = validate(
            &[RunResult::Tests(results(&[("a", Failed), ("b", Passed)]))],
            &[RunResult::Tests(results(&[
                ("a", Passed),
                ("b", Passed),
                ("c", Passed),
            ]))],
        );
        assert_eq!(ok.rejection, None);
        assert_eq!(ok.golden.fail_to_pass, vec!["a", "c"]);
        assert_eq!(ok.golden.pass_to_pass, vec!["b"]);

        let p2f = validate(
            &[RunResult::Tests(results(&[("a", Failed), ("b", Passed)]))],
            &[RunResult::Tests(results(&[("a", Passed), ("b", Failed)]))],
        );
        assert_eq!(
            p2f.rejection,
            Some(Rejection::PassToFail {
                tests: vec!["b".into()]
            })
        );

        let none = validate(
            &[RunResult::Tests(results(&[("a", Passed)]))],
            &[RunResult::Tests(results(&[("a", Passed)]))],
        );
        assert_eq!(none.rejection, Some(Rejection::NoFailToPass));

        let infra = InfraFailure {
            kind: InfraKind::BuildFailure,
            reason: "javac".into(),
            log_path: PathBuf::from("l"),
        };
        let v = validate(
            &[
                RunResult::Tests(results(&[("a", Failed)])),
                RunResult::Infra(infra.clone()),
            ],
            &[RunResult::Tests(results(&[("a", Passed)]))],
        );
        assert_eq!(
            v.rejection,
            Some(Rejection::Infra {
                side: "before".into(),
                run: 1,
                failure: infra
            })
        );
        assert!(v.rejection.unwrap().to_string().contains("before run 1"));
    }

    #[test]
    fn swebench_status_predicates() {
        let r = results(&[
            ("p", Passed),
            ("x", Xfail),
            ("f", Failed),
            ("e", Error),
            ("s", Skipped),
        ]);
        let passed: Vec<&str> = ["p", "x", "f", "e", "s", "missing"]
            .into_iter()
            .filter(|t| test_passed(t, &r))
            .collect();
        assert_eq!(passed, ["p", "x"]);
        let failed: Vec<&str> = ["p", "x", "f", "e", "s", "missing"]
            .into_iter()
            .filter(|t| test_failed(t, &r))
            .collect();
        assert_eq!(failed, ["f", "e", "s", "missing"]);
        assert!(
            test_maintained("s", &r) && test_maintained("x", &r) && !test_maintained("missing", &r)
        );
    }

    #[test]
    fn grading_follows_swebench() {
        let gold = GoldenTests {
            fail_to_pass: vec!["f1".into(), "f2".into()],
            pass_to_pass: vec!["p1".into(), "p2".into()],
            fail_to_fail: vec!["ff".into()],
            pass_to_fail: vec![],
        };
        let g = |pairs: &[(&str, TestStatus)]| {
            resolve(
                &RunResult::Tests(results(pairs)),
                &gold,
                EvalType::PassAndFail,
            )
        };
        // F2P via XFAIL counts; a skipped P2P is kept.
        assert_eq!(
            g(&[
                ("f1", Passed),
                ("f2", Xfail),
                ("p1", Passed),
                ("p2", Skipped)
            ]),
            Resolution::Full
        );
        assert_eq!(
            g(&[
                ("f1", Passed),
                ("f2", Failed),
                ("p1", Passed),
                ("p2", Passed)
            ]),
            Resolution::Partial
        );
        // A skipped F2P is a failure; none passing → NO.
        assert_eq!(
            g(&[
                ("f1", Skipped),
                ("f2", Failed),
                ("p1", Passed),
                ("p2", Passed)
            ]),
            Resolution::No
        );
        // A broken (or missing) P2P → NO even with all F2P passing.
        assert_eq!(
            g(&[("f1", Passed), ("f2", Passed), ("p1", Passed)]),
            Resolution::No
        );
        assert_eq!(
            g(&[
                ("f1", Passed),
                ("f2", Passed),
                ("p1", Error),
                ("p2", Passed)
            ]),
            Resolution::No
        );
        let infra = InfraFailure {
            kind: InfraKind::Timeout,
            reason: "t".into(),
            log_path: PathBuf::from("l"),
        };
        assert_eq!(
            resolve(&RunResult::Infra(infra), &gold, EvalType::PassAndFail),
            Resolution::No
        );

        let r = eval_tests_report(
            &results(&[("f1", Passed), ("ff", Passed)]),
            &gold,
            true,
            EvalType::PassAndFail,
        );
        assert_eq!(r.fail_to_pass.success, vec!["f1"]);
        assert_eq!(r.fail_to_pass.failure, vec!["f2"]);
        assert_eq!(r.pass_to_pass.failure, vec!["p1", "p2"]);
        assert_eq!(r.fail_to_fail.success, vec!["ff"]);
        // FAIL_ONLY: only an explicit FAILED fails.
        let fo = eval_tests_report(
            &results(&[("f1", Passed), ("p1", Failed)]),
            &gold,
            false,
            EvalType::FailOnly,
        );
        assert_eq!(fo.fail_to_pass.success, vec!["f1", "f2"]);
        assert_eq!(fo.pass_to_pass.failure, vec!["p1"]);
        assert_eq!(resolution_status(&fo), Resolution::No);
        // Empty golden lists resolve fully, as in SWE-bench.
        assert_eq!(resolution_status(&EvalReport::default()), Resolution::Full);
    }

    #[test]
    fn the_collected_lists_hold_only_tests_passed_after_and_not_xfail() {
        use TestStatus::*;
        let run = |v: &[(&str, TestStatus)]| -> TestResults {
            v.iter().map(|(k, s)| (k.to_string(), *s)).collect()
        };
        let before = run(&[
            ("p2p", Passed),
            ("f2p", Failed),
            ("e2p", Error),
            ("x2p", Xfail),
            ("s2p", Skipped),
            ("p2x", Passed),
            ("flaky", Passed),
        ]);
        let after = run(&[
            ("p2p", Passed),
            ("f2p", Passed),
            ("e2p", Passed),
            ("n2p", Passed),
            ("x2p", Passed),
            ("s2p", Passed),
            ("p2x", Xfail),
            ("flaky", Passed),
        ]);
        let mut before2 = before.clone();
        before2.insert("flaky".into(), Failed);
        let lists = as_collected(&[before, before2], &[after.clone(), after]);
        assert_eq!(lists.fail_to_pass, ["e2p", "f2p", "n2p"]);
        assert_eq!(lists.pass_to_pass, ["p2p"]);
        // Grading's labels count XFAIL as passing: these lists differ from them.
        let no_before = as_collected(&[], &[run(&[("t", Passed), ("u", Xfail)])]);
        assert_eq!(no_before.fail_to_pass, ["t"]);
    }
}
