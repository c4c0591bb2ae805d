//! The outcome-conditioned tables on five bugs and two systems, every number worked out by
//! hand (the rank-sum p-values by SciPy 1.17.1, `scipy.stats.ranksums` and
//! `mannwhitneyu(..., method='asymptotic')`).

use super::*;
use crate::model::{ApplyMethod, PredictionResult};
use std::path::PathBuf;

fn inst(id: &str, hunks: usize, div: Option<f64>, class: &str) -> Instance {
    let mut i: Instance = serde_json::from_value(serde_json::json!({
        "schema_version": 2, "instance_id": id, "repo": "r", "base_commit": "b",
        "patch": "", "test_patch": "", "problem_statement": "", "hints_text": "",
        "created_at": "", "version": "", "FAIL_TO_PASS": [], "PASS_TO_PASS": [],
        "environment_setup_commit": "", "source": "git", "fix_commit": "f",
        "project": "p", "hunks": [], "files": [], "stats": crate::model::Stats::default(),
        "divergence": {"value": div, "n": hunks, "profile": "hunk4j", "pairs": []},
        "proximity": {"class": class, "lambda": 3}
    }))
    .expect("instance");
    i.stats.hunks = hunks;
    i
}

fn row(system: &str, id: &str, state: &str, resolved: bool, localized: bool) -> PredictionResult {
    PredictionResult {
        schema_version: 1,
        instance_id: id.into(),
        model_name_or_path: system.into(),
        state: state.into(),
        scenario: "best".into(),
        instruction: None,
        attempt: None,
        applied: ApplyMethod::Exact,
        compiled: Some(true),
        resolution: None,
        resolved,
        abstained: false,
        abstention_correct: false,
        localized,
        localized_counted: localized,
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

fn system(name: &str, rows: Vec<PredictionResult>) -> SystemResults {
    SystemResults {
        name: name.into(),
        file: PathBuf::from(format!("{name}.jsonl")),
        rows,
        unknown: 0,
        trajectories: None,
        study: None,
        resolution_unavailable: false,
    }
}

fn fixture() -> (Vec<Instance>, Vec<SystemResults>) {
    let instances = vec![
        inst("b1", 2, Some(0.1), "Nucleus"),
        inst("b2", 3, Some(0.4), "Cluster"),
        inst("b3", 4, Some(0.7), "Cluster"),
        inst("b4", 2, None, "Fragment"),
        inst("b5", 5, Some(0.9), "Sprawl"),
    ];
    let mut a1 = row("A", "b1", "novel", true, true);
    a1.failing_before = Some(3);
    a1.failing_after = Some(0);
    let a = system(
        "A",
        vec![
            a1,
            row("A", "b1", "partial", true, true),
            row("A", "b2", "novel", true, true),
            row("A", "b3", "novel", false, true),
            // A second attempt on b3: still one bug, still unfixed.
            row("A", "b3", "novel", false, false),
            row("A", "b4", "novel", false, false),
            row("A", "b5", "novel", false, false),
            // Resolved rows are no task and no bug.
            row("A", "b5", "resolved", true, false),
        ],
    );
    let b = system(
        "B",
        vec![
            row("B", "b1", "novel", true, true),
            row("B", "b2", "novel", false, false),
            row("B", "b2", "partial", true, false),
            row("B", "b3", "novel", false, false),
            row("B", "b5", "novel", false, true),
        ],
    );
    (instances, vec![a, b])
}

/// Solver sets with their task counts.
type Sets = Vec<(Vec<bool>, usize)>;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn divergence_of_fixed_and_unfixed_bugs_per_system() {
    let (instances, systems) = fixture();
    let t = OutcomeTables::compute(&instances, &systems).expect("tables");
    let a = &t.divergence[0];
    assert_eq!(a.system, "A");
    assert_eq!(a.values, [vec![0.1, 0.4], vec![0.7, 0.9]]);
    assert_eq!(a.no_divergence, 1, "b4 has no Div(P)");
    assert_eq!((a.fixed.n, a.unfixed.n), (2, 2));
    assert!(close(a.fixed.median.expect("median"), 0.25));
    assert!(close(a.fixed.mean.expect("mean"), 0.25));
    assert_eq!(a.fixed.max, Some(0.4));
    // sqrt(((0.1 − 0.25)² + (0.4 − 0.25)²) / 1)
    assert!(close(a.fixed.std.expect("std"), 0.21213203435596428));
    assert!(close(a.unfixed.median.expect("median"), 0.8));
    assert!(close(a.unfixed.std.expect("std"), 0.14142135623730953));
    // Every fixed bug diverges less than every unfixed one.
    assert_eq!(a.cliffs_delta, Some(-1.0));
    assert_eq!(a.magnitude.as_deref(), Some("large"));
    assert!((a.rank_sum_p.expect("p") - 0.12133525035848211).abs() < 1e-9);
    assert!((a.mann_whitney_p.expect("p") - 0.2452781168067728).abs() < 1e-9);
    let b = &t.divergence[1];
    assert_eq!(b.values, [vec![0.1], vec![0.4, 0.7, 0.9]]);
    assert_eq!(b.fixed.std, None, "one value has no sample deviation");
    assert!(close(b.unfixed.std.expect("std"), 0.2516611478423583));
    assert!((b.rank_sum_p.expect("p") - 0.17971249487899976).abs() < 1e-9);
    assert!((b.mann_whitney_p.expect("p") - 0.37109336952269756).abs() < 1e-9);
    assert_eq!(b.cliffs_delta, Some(-1.0));
}

#[test]
fn bugs_no_system_fixed_with_each_systems_localization_and_deltas() {
    let (instances, systems) = fixture();
    let t = OutcomeTables::compute(&instances, &systems).expect("tables");
    let u = t.unfixed.as_ref().expect("unfixed");
    assert_eq!(u.bugs, 5);
    let ids: Vec<&str> = u.rows.iter().map(|r| r.instance_id.as_str()).collect();
    assert_eq!(ids, ["b3", "b4", "b5"]);
    assert_eq!(u.rows[0].localized, vec![Some(true), Some(false)]);
    assert_eq!(
        u.rows[1].localized,
        vec![Some(false), None],
        "B never ran b4"
    );
    assert_eq!(u.rows[2].localized, vec![Some(false), Some(true)]);
    assert_eq!((u.rows[0].hunks, u.rows[0].class.as_str()), (4, "Cluster"));
    assert_eq!(u.rows[1].divergence, None);
    let d: BTreeMap<&str, (f64, f64, f64)> = u
        .deltas
        .iter()
        .map(|d| (d.what.as_str(), (d.all, d.unfixed, d.delta)))
        .collect();
    let expect = [
        ("share Nucleus", 1.0 / 5.0, 0.0),
        ("share Cluster", 2.0 / 5.0, 1.0 / 3.0),
        ("share Sprawl", 1.0 / 5.0, 1.0 / 3.0),
        ("share Fragment", 1.0 / 5.0, 1.0 / 3.0),
        ("mean hunks", 16.0 / 5.0, 11.0 / 3.0),
        ("mean Div(P)", 2.1 / 4.0, 1.6 / 2.0),
        ("localization A", 3.0 / 5.0, 1.0 / 3.0),
        ("localization B", 2.0 / 4.0, 1.0 / 2.0),
    ];
    assert_eq!(d.len(), expect.len(), "{d:?}");
    for (what, all, unfixed) in expect {
        let (a, u, delta) = d[what];
        assert!(close(a, all) && close(u, unfixed), "{what}: {a} {u}");
        assert!(close(delta, unfixed - all), "{what}");
    }
    let md = t.to_markdown();
    assert!(md.contains("## Bugs no system fixed (3 of 5)"), "{md}");
    assert!(
        md.contains("| localization A | 0.6000 | 0.3333 | -0.2667 |"),
        "{md}"
    );
}

#[test]
fn solver_sets_split_by_class_add_up_to_the_tasks() {
    let (instances, systems) = fixture();
    let t = OutcomeTables::compute(&instances, &systems).expect("tables");
    let got: Vec<(&str, usize, Sets)> = t
        .sets_by_class
        .iter()
        .map(|c| (c.class.as_str(), c.tasks, c.combinations.clone()))
        .collect();
    let (tt, tf, ft, ff) = (
        vec![true, true],
        vec![true, false],
        vec![false, true],
        vec![false, false],
    );
    assert_eq!(
        got,
        vec![
            ("Nucleus", 2, vec![(tt, 1), (tf.clone(), 1)]),
            ("Cluster", 3, vec![(tf, 1), (ft, 1), (ff.clone(), 1)]),
            ("Sprawl", 1, vec![(ff.clone(), 1)]),
            ("Fragment", 1, vec![(ff, 1)]),
        ]
    );
    assert_eq!(set_label(&t.systems, &[true, true]), "A ∧ B");
    assert_eq!(set_label(&t.systems, &[false, true]), "B only");
    assert_eq!(set_label(&t.systems, &[false, false]), "nobody");
    // Regression reduction of compiled Novel rows with failing counts: A's b1 only.
    assert_eq!(t.regression, vec![("A".to_string(), vec![3.0])]);
}

#[test]
fn nothing_to_tabulate_without_novel_rows_or_a_second_system() {
    let (instances, _) = fixture();
    let only_resolved = system("A", vec![row("A", "b1", "resolved", false, false)]);
    assert_eq!(OutcomeTables::compute(&instances, &[only_resolved]), None);
    assert_eq!(Spread::of(&[]).median, None);
}
