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
