//! The demo recipe end to end (what `make demo` runs): every instance annotated and every
//! proximity class present, the dataset byte-reproducible.

use crate::common::demo_recipe;
use hunkgen::annotate::proximity::ProximityClass;
use hunkgen::pipeline::{build, BuildOptions};

#[test]
fn demo_dataset_has_every_proximity_class_and_full_annotations() {
    let dir = tempfile::tempdir().expect("tempdir");
    let recipe = hunkgen::recipe::load(&demo_recipe(dir.path())).expect("demo recipe loads");
    let summary = build(&recipe, &BuildOptions::default()).expect("demo builds");
    assert_eq!(summary.output, dir.path().join("recipes/../datasets/demo"));
    assert_eq!(
        summary.instances.len(),
        7,
        "six fixes and the one validation rejects"
    );
    // `hunkgen checkout --help` uses this id in its examples.
    assert!(
        summary
            .instances
            .iter()
            .any(|i| i.instance_id == "acme-14c2831b2f4c"),
        "the checkout example's instance exists"
    );
    for inst in &summary.instances {
        let div = inst.divergence.as_ref().expect("annotated");
        assert!(div.value.is_some(), "{} has Div(P)", inst.instance_id);
        assert!(
            inst.proximity.as_ref().and_then(|p| p.class).is_some(),
            "{}",
            inst.instance_id
        );
        assert!(
            inst.notes.is_empty(),
            "{}: {:?}",
            inst.instance_id,
            inst.notes
        );
        assert!(inst
            .hunks
            .iter()
            .filter(|h| h.counted)
            .all(|h| h.place.as_ref().is_some_and(|p| p.method.is_some())));
    }
    let class = |subject: &str| {
        summary
            .instances
            .iter()
            .find(|i| i.problem_statement.starts_with(subject))
            .and_then(|i| i.proximity.as_ref()?.class)
    };
    use ProximityClass::*;
    assert_eq!(class("Fix word wrapping"), Some(Nucleus));
    assert_eq!(class("Fix lost sign of negative amounts"), Some(Cluster));
    assert_eq!(class("Fix sign normalisation of fractions"), Some(Orbit));
    assert_eq!(class("Fix zero-padded money columns"), Some(Sprawl));
    assert_eq!(class("Fix round trip of backslashes"), Some(Fragment));
    assert_eq!(class("Fix median of even-sized samples"), Some(Cluster));
    // #11, mined without validation (which would reject it), is a Cluster too.
    assert_eq!(class("Fix empty-data check of mean"), Some(Cluster));

    let out = &summary.output;
    let report = std::fs::read_to_string(out.join("report/tables.md")).expect("report");
    for row in [
        "| Nucleus | 1 |",
        "| Cluster | 3 |",
        "| Orbit | 1 |",
        "| Sprawl | 1 |",
        "| Fragment | 1 |",
    ] {
        assert!(report.contains(row), "{row} in {report}");
    }
    let first = std::fs::read(out.join("instances.jsonl")).expect("jsonl");
    build(&recipe, &BuildOptions::default()).expect("rebuild");
    assert_eq!(
        first,
        std::fs::read(out.join("instances.jsonl")).expect("jsonl")
    );
}
