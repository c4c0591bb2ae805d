//! The contract pinned: the checked-in JSON Schemas equal the ones generated from the
//! types, and golden rows of the demo and HUNK4J keep their fields, order and values.

use crate::common::{build_into, d4j_root, demo_recipe, manifest};
use std::fs;

/// Regenerate with `HUNKGEN_BLESS=1 cargo test schema` after a deliberate change (never
/// under CI: see [`crate::common::blessing`]).
fn check(file: &str, generated: &str) {
    let path = manifest().join(file);
    if crate::common::blessing() {
        fs::write(&path, generated).expect("write schema");
    }
    let checked_in = fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "{file} differs from the schema generated from src/model; \
         rerun with HUNKGEN_BLESS=1 and commit it (and bump SCHEMA_VERSION if the row changed)"
    );
}

#[test]
fn checked_in_schemas_match_the_types() {
    check(
        "docs/instance.schema.json",
        &hunkgen::model::instance_schema(),
    );
    check(
        "docs/rejected.schema.json",
        &hunkgen::model::rejected_schema(),
    );
    check(
        "docs/state-manifest.schema.json",
        &hunkgen::model::state_manifest_schema(),
    );
    check(
        "docs/trajectory-step.schema.json",
        &hunkgen::model::trajectory_step_schema(),
    );
    check(
        "docs/judgement.schema.json",
        &hunkgen::model::judgement_schema(),
    );
}

#[test]
fn every_instance_field_is_explained_in_the_readme() {
    let readme = fs::read_to_string(manifest().join("README.md")).expect("README");
    let schema: serde_json::Value =
        serde_json::from_str(&hunkgen::model::instance_schema()).expect("schema json");
    let mut missing = Vec::new();
    for field in schema["properties"].as_object().expect("properties").keys() {
        if !readme.contains(&format!("`{field}`")) {
            missing.push(field.clone());
        }
    }
    for (_, def) in schema["$defs"].as_object().expect("defs") {
        if let Some(props) = def["properties"].as_object() {
            for field in props.keys() {
                if !readme.contains(&format!("`{field}`")) {
                    missing.push(field.clone());
                }
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(missing.is_empty(), "README does not explain: {missing:?}");
}

/// The instances of a build, with the schema-v2 additions taken back out: no
/// `schema_version`, notes as the v1 strings (`ast: <path>: <detail>`, sorted), and no
/// field after them (`failures`, added later, comes after `notes`).
fn as_schema_v1(jsonl: &str) -> String {
    let mut out = String::new();
    for line in jsonl.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("row");
        assert_eq!(v["schema_version"], 2);
        let mut line = line.replacen("\"schema_version\":2,", "", 1);
        if let Some(at) = line.find(",\"notes\":[") {
            let mut old: Vec<String> = v["notes"]
                .as_array()
                .expect("notes")
                .iter()
                .map(|n| {
                    let detail = n["detail"].as_str().expect("detail");
                    match n["path"].as_str() {
                        Some(p) => format!("ast: {p}: {detail}"),
                        None => format!("ast: {detail}"),
                    }
                })
                .collect();
            old.sort();
            line.truncate(at);
            line.push_str(",\"notes\":");
            line.push_str(&serde_json::to_string(&old).expect("json"));
            line.push('}');
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn sha256(text: &str) -> String {
    hunkgen::dataset::sha256_hex(text.as_bytes())
}

/// The SHA-256 of each build's `instances.jsonl` before schema v2 (commit da51a57):
/// the new rows differ from those exactly by `schema_version` and the typed notes.
/// The demo's moved on purpose since (v1 was 023060a8…), each change checked field by
/// field against the v1 rows: issue #10's module packages (Java hunks `[org, acme, x]`
/// instead of `[src, main, java, org, acme, x]`, so λ 3 → 1 with every class unchanged;
/// Python `declared_package` `acme_x` instead of `python.acme_x`).
const DEMO_V1_SHA256: &str = "5056f9d65d4298ddb03372a8b3999b05b1b245bcf2c73373985148d00136c56d";
const HUNK4J_V1_SHA256: &str = "22351fe94797333bd67af84852e578dedc21119ccd069c19159e64790034ef34";

#[test]
fn hunk4j_rows_differ_from_v1_only_by_the_schema_additions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let recipe = dir.path().join("hunk4j.yaml");
    // recipes/hunk4j.yaml as of v1, read against Defects4J v2.0.1.
    let text = fs::read_to_string(manifest().join("recipes/hunk4j.yaml"))
        .expect("recipe")
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("path: ") && l.contains("framework/projects") {
                format!("    path: {}", d4j_root().display())
            } else if l.trim_start().starts_with("file: ") {
                let name = l.rsplit('/').next().unwrap_or_default();
                format!(
                    "          file: {}",
                    manifest()
                        .join("../shared/defects4j/upstream-maps")
                        .join(name)
                        .display()
                )
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    fs::write(&recipe, text).expect("write recipe");
    let out = dir.path().join("out");
    build_into(&recipe, &out);
    let jsonl = fs::read_to_string(out.join("instances.jsonl")).expect("instances");
    assert_eq!(sha256(&as_schema_v1(&jsonl)), HUNK4J_V1_SHA256);

    // Golden row, field by field: Lang_4, the first Lang bug in HUNK4J (Lang_1 has one
    // counted hunk once created files and import-only hunks are skipped).
    let lang1 = jsonl
        .lines()
        .find(|l| l.contains("\"instance_id\":\"Lang_4\""))
        .expect("Lang_4");
    let golden =
        fs::read_to_string(manifest().join("tests/data/golden/Lang_4.json")).unwrap_or_default();
    if crate::common::blessing() {
        fs::write(
            manifest().join("tests/data/golden/Lang_4.json"),
            format!("{lang1}\n"),
        )
        .expect("bless");
    }
    assert_eq!(format!("{lang1}\n"), golden, "Lang_4 row changed");
}

#[test]
fn demo_rows_differ_from_v1_only_by_the_schema_additions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    build_into(&demo_recipe(dir.path()), &out);
    let jsonl = fs::read_to_string(out.join("instances.jsonl")).expect("instances");
    // Commit #11 was appended to the demo history after v1 (its ids before it did not
    // move); v1 had the other six rows.
    let six: String = jsonl
        .lines()
        .filter(|l| !l.contains("\"instance_id\":\"acme-a1c687eb61e1\""))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(six.lines().count(), 6);
    assert_eq!(sha256(&as_schema_v1(&six)), DEMO_V1_SHA256);
    let first = jsonl.lines().next().expect("a row");
    let path = manifest().join("tests/data/golden/demo_first.json");
    if crate::common::blessing() {
        fs::write(&path, format!("{first}\n")).expect("bless");
    }
    assert_eq!(
        format!("{first}\n"),
        fs::read_to_string(&path).unwrap_or_default(),
        "first demo row changed"
    );
}

#[test]
fn bless_under_ci_fails_instead_of_writing() {
    let files = [
        "docs/instance.schema.json",
        "docs/rejected.schema.json",
        "docs/state-manifest.schema.json",
        "docs/trajectory-step.schema.json",
    ];
    let stamp = || -> Vec<(Vec<u8>, std::time::SystemTime)> {
        files
            .iter()
            .map(|f| {
                let p = manifest().join(f);
                let modified = fs::metadata(&p).and_then(|m| m.modified()).expect("mtime");
                (fs::read(&p).expect("schema"), modified)
            })
            .collect()
    };
    let before = stamp();
    // This test binary again, on the schema test, blessing under CI.
    let o = std::process::Command::new(std::env::current_exe().expect("the test binary"))
        .args(["schema::checked_in_schemas_match_the_types", "--exact"])
        .env("HUNKGEN_BLESS", "1")
        .env("CI", "true")
        .output()
        .expect("runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("1 failed"),
        "the blessing test did not fail: {out}"
    );
    assert!(out.contains("HUNKGEN_BLESS is set under CI"), "{out}");
    assert!(before == stamp(), "a schema file was written");
}
