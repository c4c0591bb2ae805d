//! Recipe parsing: unknown keys, wrong types and the places errors point at.

use super::*;

fn err(text: &str) -> RecipeError {
    parse(text, Path::new("r.yaml")).expect_err("recipe should be rejected")
}

#[test]
fn accepts_minimal_defects4j_recipe() {
    let r = parse(
        "name: x\nsource:\n  defects4j:\n    path: d4j\n",
        Path::new("r.yaml"),
    )
    .expect("valid");
    assert_eq!(r.select.min_code_hunks, 2);
    assert!(matches!(r.source.kind(), Some(Source::Defects4j(_))));
}

#[test]
fn unknown_key_names_file_place_and_closest_key() {
    let e = err("name: x\nsource:\n  defects4j:\n    path: d4j\n    projcts: [Lang]\n");
    let s = e.to_string();
    assert!(s.starts_with("r.yaml:5:"), "{s}");
    assert!(s.contains("`source.defects4j`"), "{s}");
    assert!(
        s.contains("unknown key `projcts`, did you mean `projects`?"),
        "{s}"
    );
}

#[test]
fn unknown_source_kind_suggests_closest() {
    let s = err("name: x\nsource:\n  defect4j:\n    path: d\n").to_string();
    assert!(s.contains("did you mean `defects4j`?"), "{s}");
}

#[test]
fn two_sources_rejected() {
    let s = err("name: x\nsource:\n  defects4j:\n    path: d\n  git:\n    repo: r\n").to_string();
    assert_eq!(
        s,
        "r.yaml: `source`: expected exactly one of `defects4j`, `git`, `github`, `swebench`"
    );
}

#[test]
fn wrong_type_names_key() {
    let s = err("name: x\nsource:\n  defects4j:\n    path: d\nselect:\n  min_code_hunks: two\n")
        .to_string();
    assert!(s.contains("`select.min_code_hunks`"), "{s}");
    assert!(s.contains("invalid type"), "{s}");
    assert!(s.starts_with("r.yaml:6:"), "{s}");
}

#[test]
fn locate_follows_nesting() {
    let text = "name: x\nsource:\n  git:\n    repo: r\n    message_regex: '('\nselect:\n  min_code_hunks: 2\n";
    assert_eq!(locate(text, "source.git.message_regex"), Some((5, 5)));
    assert_eq!(locate(text, "select.min_code_hunks"), Some((7, 3)));
    assert_eq!(locate(text, "source.defects4j"), None);
}

#[test]
fn sample_defaults_to_seed_zero_and_no_strata() {
    let r = parse(
        "name: x\nsource:\n  defects4j:\n    path: d4j\nselect:\n  sample: {n: 3}\n",
        Path::new("r.yaml"),
    )
    .expect("valid");
    assert_eq!(
        r.select.sample,
        Some(SampleSpec {
            n: 3,
            seed: 0,
            stratify_by: Stratify::None
        })
    );
    let r = parse(
        "name: x\nsource:\n  defects4j:\n    path: d4j\nselect:\n  sample:\n    n: 5\n    seed: 9\n    stratify_by: project\n",
        Path::new("r.yaml"),
    )
    .expect("valid");
    let s = r.select.sample.expect("sample");
    assert_eq!((s.n, s.seed, s.stratify_by), (5, 9, Stratify::Project));
}

#[test]
fn unknown_stratify_by_names_file_place_and_key() {
    let s = err(
        "name: x\nsource:\n  defects4j:\n    path: d\nselect:\n  sample:\n    n: 2\n    stratify_by: projects\n",
    )
    .to_string();
    assert!(s.starts_with("r.yaml:8:"), "{s}");
    assert!(s.contains("`select.sample.stratify_by`"), "{s}");
    assert!(
        s.contains("unknown value `projects`, did you mean `project`?"),
        "{s}"
    );
    assert_eq!(s.lines().count(), 1, "{s}");
    // A sample without its size, and a key of its own it does not have.
    let s = err("name: x\nsource:\n  defects4j:\n    path: d\nselect:\n  sample: {seed: 1}\n")
        .to_string();
    assert!(
        s.contains("`select.sample`") && s.contains("missing field `n`"),
        "{s}"
    );
    let s = err("name: x\nsource:\n  defects4j:\n    path: d\nselect:\n  sample: {n: 1, sed: 1}\n")
        .to_string();
    assert!(s.contains("did you mean `seed`?"), "{s}");
}

#[test]
fn every_shipped_recipe_parses() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("recipes/") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let text = std::fs::read_to_string(&path).expect("read");
            parse(&text, &path).unwrap_or_else(|e| panic!("{e}"));
            seen += 1;
        }
    }
    assert!(seen >= 5, "{seen} recipes");
    let text = std::fs::read_to_string(dir.join("fixedbench-from-swebench.yaml")).expect("read");
    let r = parse(&text, Path::new("fixedbench-from-swebench.yaml")).expect("valid");
    assert_eq!(
        r.select.min_code_hunks, 1,
        "SWE-bench Verified rows are mostly single-hunk"
    );
}
