//! Defects4J-style build with a repository: AST annotations end to end, and per-instance
//! reasons (not failures) for non-UTF-8 files, missing paths and hunks outside the file.

use hunkgen::model::NoteKind;
use hunkgen::pipeline::{build, BuildOptions};
use std::fs;
use std::path::Path;

/// The fixed version of a small Java file.
const FIXED: &str = "package demo;

class Calc {
    int add(int a, int b) {
        return a + b;
    }

    int twice(int a) {
        return a * 2;
    }
}
";

/// Defects4J direction (fixed → buggy) patch for `path`, two hunks in two methods.
fn d4j_patch(path: &str) -> String {
    format!(
        "diff --git a/{path} b/{path}
--- a/{path}
+++ b/{path}
@@ -4,3 +4,3 @@ class Calc {{
     int add(int a, int b) {{
-        return a + b;
+        return a - b;
     }}
@@ -8,3 +8,3 @@ class Calc {{
     int twice(int a) {{
-        return a * 2;
+        return a + 1;
     }}
"
    )
}

/// Commit `files` (path → bytes) as the only commit of a new repository; returns its id.
fn repo_with(dir: &Path, files: &[(&str, Vec<u8>)]) -> String {
    let repo = git2::Repository::init(dir).expect("init");
    let mut index = repo.index().expect("index");
    for (path, bytes) in files {
        let full = dir.join(path);
        fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        fs::write(&full, bytes).expect("write");
        index.add_path(Path::new(path)).expect("add");
    }
    let tree_id = index.write_tree().expect("tree");
    let tree = repo.find_tree(tree_id).expect("tree");
    let sig = git2::Signature::new("t", "t@example.invalid", &git2::Time::new(0, 0)).expect("sig");
    repo.commit(Some("HEAD"), &sig, &sig, "fixed", &tree, &[])
        .expect("commit")
        .to_string()
}

#[test]
fn build_annotates_from_repository_and_records_reasons() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let good = "src/demo/Calc.java";
    let latin1 = "src/demo/Latin.java";
    let short = "src/demo/Short.java";
    let mut latin_bytes = FIXED.replace("class Calc", "class Latin").into_bytes();
    latin_bytes.extend_from_slice(b"// caf\xe9\n");
    let fixed = repo_with(
        &root.join("repo"),
        &[
            (good, FIXED.as_bytes().to_vec()),
            (latin1, latin_bytes),
            // Three lines only: the patch's hunks fall outside it.
            (short, b"package demo;\nclass Short {\n}\n".to_vec()),
        ],
    );
    let project = root.join("projects/Demo");
    fs::create_dir_all(project.join("patches")).expect("mkdir");
    let mut csv = String::from("bug.id,revision.id.buggy,revision.id.fixed,report.id,report.url\n");
    for (id, path) in [
        (1, good),
        (2, latin1),
        (3, short),
        (4, "src/demo/Gone.java"),
    ] {
        csv.push_str(&format!("{id},parent,{fixed},D-{id},u\n"));
        fs::write(
            project.join(format!("patches/{id}.src.patch")),
            d4j_patch(path),
        )
        .expect("patch");
    }
    fs::write(project.join("active-bugs.csv"), csv).expect("csv");
    let recipe_path = root.join("r.yaml");
    fs::write(
        &recipe_path,
        "name: t\nsource:\n  defects4j:\n    path: projects\n    repos:\n      Demo:\n        path: repo\nfiles:\n  code_extensions: [java]\n",
    )
    .expect("recipe");
    let recipe = hunkgen::recipe::load(&recipe_path).expect("recipe loads");
    let out = root.join("out");
    let summary = build(
        &recipe,
        &BuildOptions {
            output: Some(out.clone()),
            ..Default::default()
        },
    )
    .expect("build continues past per-instance problems");
    let by_id = |id: &str| {
        summary
            .instances
            .iter()
            .find(|i| i.instance_id == id)
            .unwrap_or_else(|| panic!("{id} kept"))
    };

    // Demo_1: both hunks parsed in the buggy file; two methods → Cluster.
    let one = by_id("Demo_1");
    assert!(one.notes.is_empty(), "{:?}", one.notes);
    let div = one.divergence.as_ref().expect("divergence");
    let pair = &div.pairs[0];
    assert!(pair.d_ast.is_some_and(|a| a > 0.0 && a < 1.0));
    assert!(div.value.is_some_and(|v| v > 0.0 && v <= 2f64.ln()));
    assert_eq!(
        one.proximity.as_ref().and_then(|p| p.class),
        Some(hunkgen::annotate::proximity::ProximityClass::Cluster)
    );
    let methods: Vec<&str> = one
        .hunks
        .iter()
        .filter_map(|h| h.place.as_ref()?.method.as_deref())
        .collect();
    assert_eq!(methods, ["Calc.add(int,int)", "Calc.twice(int)"]);

    // Demo_2: not UTF-8 → decoded lossily, annotated anyway.
    let two = by_id("Demo_2");
    assert!(
        two.notes
            .iter()
            .any(|n| n.kind == NoteKind::NotUtf8 && n.detail.contains("not UTF-8")),
        "{:?}",
        two.notes
    );
    assert!(two.divergence.as_ref().and_then(|d| d.value).is_some());

    // Demo_3: hunks outside the file → reason, AST null, divergence null.
    let three = by_id("Demo_3");
    assert!(
        three
            .notes
            .iter()
            .any(|n| n.kind == NoteKind::PatchDoesNotApply
                && n.detail.contains("patch does not apply")),
        "{:?}",
        three.notes
    );
    assert_eq!(three.divergence.as_ref().and_then(|d| d.value), None);
    assert_eq!(three.proximity.as_ref().and_then(|p| p.class), None);

    // Demo_4: path missing at the revision.
    let four = by_id("Demo_4");
    assert!(
        four.notes
            .iter()
            .any(|n| n.kind == NoteKind::PathMissing
                && n.detail.contains("path missing at revision")),
        "{:?}",
        four.notes
    );

    // The report counts them.
    let report = fs::read_to_string(out.join("report/tables.md")).expect("report");
    assert!(
        report.contains("| file not UTF-8 (decoded lossily) | 1 |"),
        "{report}"
    );
    assert!(
        report.contains("| patch does not apply (e.g. hunk outside the file) | 1 |"),
        "{report}"
    );
    assert!(
        report.contains("| path missing at the revision | 1 |"),
        "{report}"
    );
    assert!(report.contains("| Cluster | 2 |"), "{report}");
    let pairs = fs::read_to_string(out.join("pairs.csv")).expect("pairs.csv");
    assert_eq!(
        pairs.lines().count(),
        1 + 4,
        "header + one pair per instance"
    );
    assert!(pairs
        .lines()
        .nth(1)
        .expect("row")
        .starts_with("Demo_1,hunk4j,0,1,src/demo/Calc.java,"));
}

#[test]
fn missing_repository_keeps_instances_and_warns_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let project = root.join("projects/Demo");
    fs::create_dir_all(project.join("patches")).expect("mkdir");
    let mut csv = String::from("bug.id,revision.id.buggy,revision.id.fixed,report.id,report.url\n");
    for id in 1..=3 {
        csv.push_str(&format!("{id},a,b,UNKNOWN,UNKNOWN\n"));
        fs::write(
            project.join(format!("patches/{id}.src.patch")),
            d4j_patch("src/demo/Calc.java"),
        )
        .expect("patch");
    }
    fs::write(project.join("active-bugs.csv"), csv).expect("csv");
    let recipe_path = root.join("r.yaml");
    fs::write(
        &recipe_path,
        "name: t\nsource:\n  defects4j:\n    path: projects\n",
    )
    .expect("recipe");
    let recipe = hunkgen::recipe::load(&recipe_path).expect("loads");
    let summary = build(
        &recipe,
        &BuildOptions {
            output: Some(root.join("out")),
            ..Default::default()
        },
    )
    .expect("builds");
    assert_eq!(summary.instances.len(), 3);
    assert_eq!(
        summary.warnings,
        ["no repository for project Demo: 3 instance(s) without AST fields"]
    );
    for inst in &summary.instances {
        let div = inst.divergence.as_ref().expect("D_lex still computed");
        assert!(div.pairs[0].d_lex >= 0.0);
        assert_eq!(div.pairs[0].d_ast, None);
        assert!(inst.report.is_none());
    }
}
