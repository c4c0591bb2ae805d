//! Unit tests of the report's tables (split from mod.rs to keep it under 800 lines).

#[test]
fn a_sampled_yield_is_over_the_sampled_and_leaves_the_commit_rules_to_the_funnel() {
    use crate::model::YieldClass;
    let yields = [
        (YieldClass::NotAFix, 1),
        (YieldClass::Environment, 2),
        (YieldClass::CommitRule, 2),
    ];
    let md = yield_markdown(5, &yields, Some(8));
    assert!(md.contains("| kept | 5 | 62.5% |"), "{md}");
    assert!(
        md.contains("| environment could not be built | 2 | 25.0% |"),
        "{md}"
    );
    assert!(!md.contains("| commit rules |"), "{md}");
    assert!(
        md.contains("the 2 rejected by the commit rules before the draw"),
        "{md}"
    );
    // Without a sample, every candidate kept or rejected.
    let md = yield_markdown(5, &yields, None);
    assert!(md.contains("| kept | 5 | 50.0% |"), "{md}");
    assert!(md.contains("| commit rules | 2 | 20.0% |"), "{md}");
}

use super::*;

#[test]
fn a_mean_over_fewer_instances_than_the_class_says_so() {
    let row = |class, bugs, with, mean| Table3Row {
        class,
        bugs,
        with_divergence: with,
        mean_divergence: mean,
    };
    let t = AnnotationTables {
        lambda: Some(3),
        table3: vec![
            row(ProximityClass::Nucleus, 2, 2, Some(0.25)),
            row(ProximityClass::Orbit, 67, 26, Some(0.29)),
            row(ProximityClass::Sprawl, 3, 0, None),
        ],
        undecided: 0,
        with_divergence: 28,
        distribution: Vec::new(),
        histograms: Vec::new(),
        notes: Vec::new(),
    };
    let md = table3_markdown(&t);
    assert!(md.contains("| Nucleus | 2 | 0.2500 |"), "{md}");
    assert!(md.contains("| Orbit | 67 | 0.2900 (Div for 26) |"), "{md}");
    assert!(md.contains("| Sprawl | 3 | – |"), "{md}");
    // Against HUNK4J's published Table III: Nucleus 59 bugs, 0.2548; Orbit 67, 0.5628.
    let md = table3_markdown_compared(&t, true);
    assert!(
        md.contains("| Nucleus | 2 (pub. 59) | 0.2500 (pub. 0.2548) |"),
        "{md}"
    );
    assert!(
        md.contains("| Orbit | 67 | 0.2900 (pub. 0.5628) (Div for 26) |"),
        "{md}"
    );
}

#[test]
fn published_figures_show_only_where_they_differ_at_the_printed_precision() {
    assert_eq!(tables::with_published(0.4213, Some((0.42, 2))), "0.4213");
    assert_eq!(
        tables::with_published(0.4263, Some((0.42, 2))),
        "0.4263 (pub. 0.42)"
    );
    assert_eq!(tables::with_published(0.6241, Some((0.624, 3))), "0.6241");
    assert_eq!(tables::with_published(1.0, None), "1.0000");
    let rows = [DistributionRow {
        measure: "Div(P)",
        n: 3,
        stats: Some([0.0, 0.42, 0.5, 0.624, 1.6]),
    }];
    let md = distribution_table_compared(&rows, false, true).to_markdown();
    assert!(
        md.contains("| Div(P) | 0.0000 | 0.4200 | 0.5000 (pub. 0.47) | 0.6240 | 1.6000 |"),
        "{md}"
    );
    let plain = distribution_table(&rows, false).to_markdown();
    assert!(!plain.contains("pub."), "{plain}");
}

#[test]
fn histogram_bins_include_both_edges() {
    let h = Histogram::new("x", &[0.0, 0.05, 0.1, 0.99, 1.0, 1.5, -1.0], 0.0, 1.0, 10);
    assert_eq!(h.counts, vec![3, 1, 0, 0, 0, 0, 0, 0, 0, 3]);
    assert_eq!(h.counts.iter().sum::<usize>(), 7);
    let flat = Histogram::new("y", &[0.5, 0.5], 0.5, 0.5, 4);
    assert_eq!(flat.counts, vec![2, 0, 0, 0]);
}
