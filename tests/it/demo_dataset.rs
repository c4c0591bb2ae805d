//! The demo recipe end to end (what `make demo` runs): every instance annotated and every
//! proximity class present, the dataset byte-reproducible.

use hunkgen::annotate::proximity::ProximityClass;
use hunkgen::pipeline::{build, BuildOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Build the demo repository where recipes/demo.yaml expects it, but under `root`, and
/// return a copy of the recipe placed so that its relative paths resolve there.
fn demo_recipe(root: &Path) -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let status = Command::new("sh")
        .arg(manifest.join("demo/build-repo.sh"))
        .arg(root.join("target/demo-repo"))
        .output()
        .expect("build-repo.sh runs");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    std::fs::create_dir_all(root.join("recipes")).expect("mkdir");
    let recipe = root.join("recipes/demo.yaml");
    std::fs::copy(manifest.join("recipes/demo.yaml"), &recipe).expect("copy recipe");
    recipe
}

#[test]
fn demo_dataset_has_every_proximity_class_and_full_annotations() {
    let dir = tempfile::tempdir().expect("tempdir");
    let recipe = hunkgen::recipe::load(&demo_recipe(dir.path())).expect("demo recipe loads");
    let summary = build(&recipe, &BuildOptions::default()).expect("demo builds");
    assert_eq!(summary.output, dir.path().join("recipes/../datasets/demo"));
    assert_eq!(summary.instances.len(), 6);
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

    let out = &summary.output;
    let report = std::fs::read_to_string(out.join("report/tables.md")).expect("report");
    for row in [
        "| Nucleus | 1 |",
        "| Cluster | 2 |",
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
