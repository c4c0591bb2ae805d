//! SWE-bench import (`source: swebench`) and export (`hunkgen export --format swebench`):
//! the fixture files under tests/data/swebench (every bad-input case, test lists as
//! strings and as arrays, JSON Lines and a JSON list) against a scripted clone; the round
//! trip demo → export → import through recipes/fixedbench-from-swebench.yaml with states;
//! and the official `swebench` package (target/venv-swebench) reading an export of the
//! validated demo and building every instance's test specification.

use crate::common::{build_into, hunkgen, manifest, succeeds, venv_python, Script};
use hunkgen::model::{Instance, RejectReason, Rejected, SourceKind, Stage};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The fixtures' base tree: `sub` and `div` use the wrong operator.
const CALC: &str = "\"\"\"Small arithmetic helpers.\"\"\"\n\n\ndef add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n\n\ndef square(a):\n    return mul(a, a)\n\n\ndef cube(a):\n    return mul(a, square(a))\n\n\ndef div(a, b):\n    return a * b\n";
const CALC_TEST: &str =
    "from pkg.calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n";
/// A commit id no clone has.
const ABSENT: &str = "0123456789abcdef0123456789abcdef01234567";

/// A scripted clone of `calc/calc` (its one commit is the fixtures' base) and a copy of
/// the fixture file `name` with `@BASE@` replaced, beside a recipe that imports it.
struct Fixture {
    _tmp: tempfile::TempDir,
    _clone: Script,
    base: String,
    recipe: PathBuf,
    out: PathBuf,
    /// The fixture as imported (base filled in), one JSON value per row.
    file: PathBuf,
}

fn fixture(name: &str) -> Fixture {
    let mut clone = Script::new();
    clone.write("pkg/__init__.py", "");
    clone.write("pkg/calc.py", CALC);
    clone.write("tests/test_calc.py", CALC_TEST);
    let base = clone.commit("calc: first version");
    let tmp = tempfile::tempdir().expect("tempdir");
    let text = fs::read_to_string(manifest().join("tests/data/swebench").join(name))
        .expect("fixture")
        .replace("@BASE@", &base);
    let file = tmp.path().join(name);
    fs::write(&file, text).expect("write fixture");
    let recipe = tmp.path().join("calc.yaml");
    fs::write(
        &recipe,
        format!(
            "name: calc\nsource:\n  swebench:\n    instances: {name}\n    repos:\n      calc/calc: {}\nfiles:\n  code_extensions: [py]\n",
            clone.dir.display()
        ),
    )
    .expect("recipe");
    let out = tmp.path().join("datasets/calc");
    Fixture {
        _tmp: tmp,
        _clone: clone,
        base,
        recipe,
        out,
        file,
    }
}

fn by_id<'a>(instances: &'a [Instance], id: &str) -> &'a Instance {
    instances
        .iter()
        .find(|i| i.instance_id == id)
        .unwrap_or_else(|| panic!("no instance {id}"))
}

/// The one rejection whose detail names `place` (`instances.jsonl:3`).
fn rejection<'a>(rejected: &'a [Rejected], place: &str) -> &'a Rejected {
    let hits: Vec<&Rejected> = rejected
        .iter()
        .filter(|r| r.detail.contains(&format!("{place}: ")))
        .collect();
    assert_eq!(hits.len(), 1, "{place}: {rejected:#?}");
    hits[0]
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The SWE-bench fields of every good fixture row reach the instance unchanged, and the
/// instance has hunks, counting and annotation like any other.
fn assert_imported(f: &Fixture, inst: &Instance, row: &serde_json::Value) {
    let s = |k: &str| row[k].as_str().unwrap_or("").to_string();
    assert_eq!(inst.repo, "calc/calc");
    assert_eq!(inst.base_commit, f.base);
    assert_eq!(inst.patch, s("patch"), "patch byte-for-byte");
    assert_eq!(inst.test_patch, s("test_patch"), "test_patch byte-for-byte");
    assert_eq!(inst.problem_statement, s("problem_statement"));
    assert_eq!(inst.hints_text, s("hints_text"));
    assert_eq!(inst.created_at, s("created_at"));
    assert_eq!(inst.version, s("version"));
    assert_eq!(
        inst.FAIL_TO_PASS,
        strings(&[
            "tests/test_calc.py::test_sub",
            "tests/test_calc.py::test_div"
        ])
    );
    assert_eq!(
        inst.PASS_TO_PASS,
        strings(&["tests/test_calc.py::test_add"])
    );
    // Absent in row 2: the base commit, as the git source has it.
    assert_eq!(inst.environment_setup_commit, f.base);
    assert_eq!(inst.source, SourceKind::Swebench);
    assert_eq!(inst.project, "calc");
    assert_eq!(inst.fix_commit, "");
    assert_eq!(inst.hunks.len(), 2);
    assert!(inst
        .hunks
        .iter()
        .all(|h| h.counted && h.file == "pkg/calc.py"));
    assert_eq!((inst.stats.hunks, inst.stats.files), (2, 1));
    let div = inst.divergence.as_ref().expect("annotated");
    assert!(div.value.is_some(), "D_ast from the clone: {div:?}");
    assert!(inst
        .hunks
        .iter()
        .all(|h| h.place.as_ref().is_some_and(|p| p.method.is_some())));
    assert!(inst.notes.is_empty(), "{:?}", inst.notes);
}

fn rows(path: &Path) -> Vec<serde_json::Value> {
    let text = fs::read_to_string(path).expect("rows");
    if text.trim_start().starts_with('[') {
        serde_json::from_str(&text).expect("list")
    } else {
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap_or(serde_json::Value::Null))
            .collect()
    }
}

#[test]
fn jsonl_fixture_imports_good_rows_and_rejects_each_bad_one_by_line() {
    let f = fixture("instances.jsonl");
    let built = build_into(&f.recipe, &f.out);
    let input = rows(&f.file);
    let ids: Vec<&str> = built
        .instances
        .iter()
        .map(|i| i.instance_id.as_str())
        .collect();
    assert_eq!(ids, ["calc__calc-1", "calc__calc-2"]);
    // Row 1: lists as JSON-encoded strings; row 2: as arrays, hints null, no
    // environment_setup_commit, extra columns.
    assert_imported(&f, by_id(&built.instances, "calc__calc-1"), &input[0]);
    assert_imported(&f, by_id(&built.instances, "calc__calc-2"), &input[1]);

    let r = &built.rejected;
    assert_eq!(r.len(), 7, "{r:#?}");
    assert!(r.iter().all(|r| r.stage == Stage::Mine));
    let file = f.file.display().to_string();
    let cases: [(&str, &str, RejectReason, &str); 7] = [
        (
            "instances.jsonl:3",
            "calc__calc-3",
            RejectReason::Metadata,
            "missing required field `base_commit`",
        ),
        (
            "instances.jsonl:4",
            "calc__calc-4",
            RejectReason::BaseTree,
            "field `patch` does not apply at base_commit",
        ),
        (
            "instances.jsonl:5",
            "calc__calc-5",
            RejectReason::GitObjects,
            "base_commit 0123456789abcdef0123456789abcdef01234567 is not a commit of",
        ),
        (
            "instances.jsonl:6",
            "instances.jsonl:6",
            RejectReason::Metadata,
            "not JSON",
        ),
        (
            "instances.jsonl:7",
            "calc__calc-7",
            RejectReason::Metadata,
            "repo `other/repo` has no clone in `source.swebench.repos` (known: calc/calc)",
        ),
        (
            "instances.jsonl:8",
            "calc__calc-1",
            RejectReason::Metadata,
            "duplicate instance_id `calc__calc-1` (first at line 1)",
        ),
        (
            "instances.jsonl:9",
            "calc__calc-9",
            RejectReason::Metadata,
            "field `FAIL_TO_PASS`: expected a JSON array of test names or a string holding one, found a string that is not JSON",
        ),
    ];
    for (place, id, reason, what) in cases {
        let row = rejection(r, place);
        assert_eq!((row.id.as_str(), row.reason), (id, reason), "{row:?}");
        assert!(
            row.detail
                .starts_with(&format!("{file}:{}: {what}", &place[16..])),
            "{place}: {}",
            row.detail
        );
    }
    // The reasons say where and why: the mismatching line, the commit to fetch.
    let apply = &rejection(r, "instances.jsonl:4").detail;
    assert!(
        apply.contains(&f.base) && apply.contains("pkg/calc.py: hunk #1"),
        "{apply}"
    );
    assert!(apply.contains("return a + c"), "{apply}");
    let fetch = &rejection(r, "instances.jsonl:5").detail;
    assert!(fetch.contains(&format!("fetch origin {ABSENT}")), "{fetch}");

    // The card counts every row and names the ignored extra columns.
    let card = hunkgen::dataset::read_card(&f.out)
        .expect("card")
        .expect("a dataset");
    assert_eq!(
        (
            card.counts.walked,
            card.counts.rejected,
            card.counts.instances
        ),
        (9, 7, 2)
    );
    assert!(
        card.sources[0].ends_with("extra fields ignored: difficulty, image"),
        "{:?}",
        card.sources
    );
    assert_eq!(
        card.repositories.keys().collect::<Vec<_>>(),
        ["calc/calc"],
        "states and validation find the clone from the card"
    );
}

#[test]
fn a_patch_a_line_off_its_base_is_placed_as_git_apply_places_it_and_the_card_says_so() {
    let f = fixture("instances.jsonl");
    let row = rows(&f.file)[0].clone();
    let good = row["patch"].as_str().expect("patch").to_string();
    // Both hunks said one line lower than their lines are, as sympy 15809's test patch
    // is in SWE-bench Verified; `git apply` takes it, with offsets.
    let off = good
        .replace("@@ -6,7 +6,7 @@", "@@ -7,7 +7,7 @@")
        .replace("@@ -22,4 +22,4 @@", "@@ -23,4 +23,4 @@");
    assert_ne!(off, good);
    let mut moved = row.clone();
    moved["patch"] = serde_json::Value::String(off);
    fs::write(&f.file, format!("{moved}\n")).expect("rows");
    let built = build_into(&f.recipe, &f.out);
    assert!(built.rejected.is_empty(), "{:#?}", built.rejected);
    let inst = by_id(&built.instances, "calc__calc-1");
    assert_eq!(inst.patch, good, "placed where its lines are");
    let card = hunkgen::dataset::read_card(&f.out)
        .expect("card")
        .expect("a dataset");
    assert!(
        card.sources
            .iter()
            .any(|s| s.ends_with("calc__calc-1: `patch` (pkg/calc.py: -1, -1)")),
        "{:?}",
        card.sources
    );
}

#[test]
fn json_list_fixture_names_the_line_where_each_element_starts() {
    let f = fixture("instances.json");
    let built = build_into(&f.recipe, &f.out);
    let input = rows(&f.file);
    // Element 1 has arrays, element 2 JSON-encoded strings: the same lists.
    assert_imported(&f, by_id(&built.instances, "calc__calc-1"), &input[0]);
    assert_imported(&f, by_id(&built.instances, "calc__calc-2"), &input[1]);
    assert_eq!(built.rejected.len(), 1);
    let text = fs::read_to_string(&f.file).expect("fixture");
    let third = 1 + text
        .lines()
        .position(|l| l.contains("\"calc__calc-3\""))
        .expect("third element");
    // The element's `{` is two lines above its instance_id (after `repo`).
    let row = rejection(&built.rejected, &format!("instances.json:{}", third - 2));
    assert_eq!(
        (row.id.as_str(), row.reason),
        ("calc__calc-3", RejectReason::Metadata)
    );
    assert!(
        row.detail.ends_with("missing required field `patch`"),
        "{}",
        row.detail
    );
}

#[test]
fn unreadable_input_is_one_line_naming_the_file_and_place() {
    let f = fixture("instances.json");
    // A JSON list that never closes: no element can be told from the next.
    let text = fs::read_to_string(&f.file).expect("fixture");
    let cut = text.trim_end().trim_end_matches(']');
    fs::write(&f.file, cut).expect("truncate");
    let res = hunkgen()
        .args(["build", "-q"])
        .arg(&f.recipe)
        .arg("-o")
        .arg(&f.out)
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&res.stderr);
    assert_eq!(res.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "{}:{}: a JSON list that does not end (expected `]`)",
            f.file.display(),
            cut.lines().count()
        )),
        "{err}"
    );
    assert!(!f.out.exists(), "nothing is written");

    // A missing file and a clone that is not a repository: recipe errors at their key.
    let recipe = fs::read_to_string(&f.recipe).expect("recipe");
    let clone = f._clone.dir.display().to_string();
    for (from, to, key, what) in [
        (
            "instances: instances.json",
            "instances: nowhere.jsonl",
            "`source.swebench.instances`",
            "nowhere.jsonl: cannot read",
        ),
        (
            clone.as_str(),
            "/tmp",
            "`source.swebench.repos.calc/calc`",
            "/tmp: not a git repository (expected a local clone of calc/calc)",
        ),
    ] {
        let bad = f.recipe.with_file_name("bad.yaml");
        fs::write(&bad, recipe.replace(from, to)).expect("bad recipe");
        let res = hunkgen().arg("build").arg(&bad).output().expect("runs");
        let err = String::from_utf8_lossy(&res.stderr);
        assert_eq!(res.status.code(), Some(1), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        let line = if key.contains("instances") { 4 } else { 6 };
        assert!(
            err.starts_with(&format!("error: {}:{line}:", bad.display())) && err.contains(key),
            "{err}"
        );
        assert!(err.contains(what), "{err}");
    }
    // `--repo owner/name=PATH` overrides the recipe's clone.
    fs::write(&f.file, &text).expect("restore");
    let bad = f.recipe.with_file_name("bad.yaml");
    let out = f.out.with_file_name("override");
    succeeds(
        hunkgen()
            .args(["build", "-q"])
            .arg(&bad)
            .arg("--repo")
            .arg(format!("calc/calc={clone}"))
            .arg("-o")
            .arg(&out),
    );
    assert!(out.join("instances.jsonl").is_file());
}

#[test]
fn export_cli_writes_swebench_fields_in_order_atomically() {
    let f = fixture("instances.jsonl");
    build_into(&f.recipe, &f.out);
    let fields = [
        "repo",
        "instance_id",
        "base_commit",
        "patch",
        "test_patch",
        "problem_statement",
        "hints_text",
        "created_at",
        "version",
        "FAIL_TO_PASS",
        "PASS_TO_PASS",
        "environment_setup_commit",
    ];
    // Default: <dataset>/export/swebench.jsonl, lists as JSON-encoded strings.
    let res = succeeds(
        hunkgen()
            .arg("export")
            .arg(&f.out)
            .args(["--format", "swebench"]),
    );
    let path = f.out.join("export/swebench.jsonl");
    assert_eq!(
        String::from_utf8_lossy(&res.stdout).trim(),
        path.display().to_string()
    );
    let text = fs::read_to_string(&path).expect("export");
    let input = rows(&f.file);
    for (line, want) in text.lines().zip([&input[0], &input[1]]) {
        let row: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(line).expect("row");
        assert_eq!(row.keys().cloned().collect::<Vec<_>>().len(), 12);
        let mut at = 0;
        for k in fields {
            let i = line[at..]
                .find(&format!("\"{k}\":"))
                .unwrap_or_else(|| panic!("{k} out of order in {line}"))
                + at;
            at = i;
        }
        for k in ["repo", "instance_id", "patch", "test_patch", "created_at"] {
            assert_eq!(row[k], want[k], "{k}");
        }
        assert_eq!(
            row["FAIL_TO_PASS"],
            "[\"tests/test_calc.py::test_sub\",\"tests/test_calc.py::test_div\"]"
        );
        assert_eq!(row["PASS_TO_PASS"], "[\"tests/test_calc.py::test_add\"]");
    }
    // --lists array, a JSON list by extension, to a named file; `-` is stdout.
    let list = f.out.with_file_name("calc.json");
    hunkgen()
        .arg("export")
        .arg(&f.out)
        .args(["--format", "swebench", "--lists", "array", "--out"])
        .arg(&list)
        .assert()
        .success();
    let rows_list = rows(&list);
    assert_eq!(rows_list.len(), 2);
    assert_eq!(
        rows_list[0]["FAIL_TO_PASS"],
        serde_json::json!([
            "tests/test_calc.py::test_sub",
            "tests/test_calc.py::test_div"
        ])
    );
    let stdout = hunkgen()
        .arg("export")
        .arg(&f.out)
        .args(["--format", "swebench", "--out", "-"])
        .output()
        .expect("runs");
    assert_eq!(stdout.stdout, text.as_bytes());
    let leftovers: Vec<_> = fs::read_dir(f.out.join("export"))
        .expect("dir")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // Not a dataset: one line, exit 1.
    let res = hunkgen()
        .arg("export")
        .arg(f.out.join("export"))
        .args(["--format", "swebench"])
        .output()
        .expect("runs");
    assert_eq!(res.status.code(), Some(1));
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(err.contains("not a hunkgen dataset"), "{err}");
}

/// The validated demo exported to `dir` (JSON Lines and a JSON list).
fn demo_exports(dir: &Path) -> (PathBuf, PathBuf) {
    let demo = crate::golden::demo();
    let jsonl = dir.join("demo.swebench.jsonl");
    let json = dir.join("demo.swebench.json");
    for out in [&jsonl, &json] {
        hunkgen()
            .arg("export")
            .arg(demo)
            .args(["--format", "swebench", "--out"])
            .arg(out)
            .assert()
            .success();
    }
    (jsonl, json)
}

#[test]
fn official_swebench_package_reads_the_demo_export_and_builds_every_test_spec() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (jsonl, json) = demo_exports(tmp.path());
    let demo = hunkgen::dataset::read_instances(crate::golden::demo()).expect("demo");
    assert!(demo.len() >= 6);
    let out = Command::new(venv_python("venv-swebench"))
        .arg(manifest().join("scripts/swebench_check_export.py"))
        .arg(&jsonl)
        .arg(&json)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reports: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("report"))
        .collect();
    assert_eq!(reports.len(), 2);
    let ids: Vec<&str> = demo.iter().map(|i| i.instance_id.as_str()).collect();
    let f2p: usize = demo.iter().map(|i| i.FAIL_TO_PASS.len()).sum();
    let p2p: usize = demo.iter().map(|i| i.PASS_TO_PASS.len()).sum();
    assert!(f2p > 0 && p2p > 0, "the validated demo has both lists");
    for r in &reports {
        let got: Vec<&str> = r["ids"]
            .as_array()
            .expect("ids")
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        assert_eq!(got, ids, "{}: every instance, in order", r["file"]);
        let n = ids.len() as u64;
        assert_eq!(r["specs"], n, "a test spec per instance");
        assert_eq!(r["full"], n, "all tests passing grades FULL");
        assert_eq!(r["no"], n, "failing FAIL_TO_PASS grades NO");
        assert_eq!(
            (r["f2p"].as_u64(), r["p2p"].as_u64()),
            (Some(f2p as u64), Some(p2p as u64))
        );
    }
}

#[test]
fn demo_round_trips_through_export_and_import_with_states() {
    let demo_dir = crate::golden::demo();
    let demo = hunkgen::dataset::read_instances(demo_dir).expect("demo");
    let card = hunkgen::dataset::read_card(demo_dir)
        .expect("card")
        .expect("a dataset");
    // The shipped recipe, laid out as in the repository: recipes/, datasets/demo/export/
    // and target/demo-repo (the demo's own clone).
    let root = tempfile::tempdir().expect("tempdir");
    let recipe = root.path().join("recipes/fixedbench-from-swebench.yaml");
    fs::create_dir_all(recipe.parent().expect("dir")).expect("mkdir");
    fs::copy(
        manifest().join("recipes/fixedbench-from-swebench.yaml"),
        &recipe,
    )
    .expect("recipe");
    fs::create_dir_all(root.path().join("target")).expect("mkdir");
    std::os::unix::fs::symlink(
        &card.repositories["acme"],
        root.path().join("target/demo-repo"),
    )
    .expect("link clone");
    hunkgen()
        .arg("export")
        .arg(demo_dir)
        .args(["--format", "swebench", "--out"])
        .arg(root.path().join("datasets/demo/export/swebench.jsonl"))
        .assert()
        .success();
    let out = root.path().join("datasets/fixedbench-from-swebench");
    let built = build_into(&recipe, &out);
    assert!(built.rejected.is_empty(), "{:#?}", built.rejected);
    assert_eq!(built.instances.len(), demo.len());
    for (a, b) in demo.iter().zip(&built.instances) {
        let id = &a.instance_id;
        assert_eq!(&b.instance_id, id);
        assert_eq!(b.source, SourceKind::Swebench, "{id}");
        assert_eq!(
            (&b.repo, &b.base_commit, &b.patch, &b.test_patch),
            (&a.repo, &a.base_commit, &a.patch, &a.test_patch),
            "{id}"
        );
        assert_eq!(
            (
                &b.problem_statement,
                &b.hints_text,
                &b.created_at,
                &b.version
            ),
            (
                &a.problem_statement,
                &a.hints_text,
                &a.created_at,
                &a.version
            ),
            "{id}"
        );
        assert_eq!(
            (
                &b.FAIL_TO_PASS,
                &b.PASS_TO_PASS,
                &b.environment_setup_commit
            ),
            (
                &a.FAIL_TO_PASS,
                &a.PASS_TO_PASS,
                &a.environment_setup_commit
            ),
            "{id}: the given lists are kept (no validate: in the recipe)"
        );
        // `necessary` comes from ablation by running, which this recipe does not do.
        let mut hunks = a.hunks.clone();
        hunks.iter_mut().for_each(|h| h.necessary = None);
        assert_eq!(
            (&b.hunks, &b.files, &b.stats),
            (&hunks, &a.files, &a.stats),
            "{id}"
        );
        assert_eq!(
            (&b.divergence, &b.proximity, &b.extra, &b.notes),
            (&a.divergence, &a.proximity, &a.extra, &a.notes),
            "{id}"
        );
        assert_eq!(b.project, a.project, "{id}");
        // States from the clone, as for the git source.
        let states = b.states.as_ref().expect("states");
        assert!(
            states.written.contains(&"novel-best".to_string())
                && states.written.contains(&"resolved-worst".to_string()),
            "{id}: {states:?}"
        );
        let resolved = out.join("states").join(id).join("resolved-best/repo");
        let log = crate::common::git(&resolved, &["log", "-1", "--format=%s"]);
        assert_eq!(String::from_utf8_lossy(&log).trim(), format!("Fix {id}"));
    }
}

#[test]
fn with_validate_the_proven_lists_replace_the_given_ones() {
    let f = fixture("instances.jsonl");
    // Row 1 with wrong lists: test_add named as failing, nothing as passing.
    let mut row = rows(&f.file)[0].clone();
    row["FAIL_TO_PASS"] = serde_json::json!(["tests/test_calc.py::test_add"]);
    row["PASS_TO_PASS"] = serde_json::json!([]);
    fs::write(&f.file, format!("{row}\n")).expect("one row");
    let recipe = fs::read_to_string(&f.recipe).expect("recipe");
    let cache = f.recipe.with_file_name("cache");
    fs::write(
        &f.recipe,
        format!(
            "{recipe}validate:\n  reruns: 1\n  timeout: 300\n  cache: {}\n  suites:\n    - name: python\n      paths: [tests/]\n      workdir: .\n      env:\n        python:\n          install: '\"$HUNKGEN_UV\" pip install --quiet pytest==9.2.0'\n      command: python -m pytest -rA -p no:cacheprovider -o junit_family=xunit1 --junitxml={{report_dir}}/pytest.xml {{tests}}\n      report: pytest\n",
            cache.display()
        ),
    )
    .expect("recipe");
    let res = succeeds(
        hunkgen()
            .args(["build", "-q"])
            .arg(&f.recipe)
            .arg("-o")
            .arg(&f.out)
            .envs(crate::common::validation_env()),
    );
    let inst = hunkgen::dataset::read_instances(&f.out).expect("instances");
    assert_eq!(inst.len(), 1, "{}", String::from_utf8_lossy(&res.stderr));
    let mut f2p = inst[0].FAIL_TO_PASS.clone();
    f2p.sort();
    assert_eq!(
        f2p,
        strings(&[
            "tests/test_calc.py::test_div",
            "tests/test_calc.py::test_sub"
        ]),
        "validation wins over the file's FAIL_TO_PASS"
    );
    assert_eq!(
        inst[0].PASS_TO_PASS,
        strings(&["tests/test_calc.py::test_add"])
    );
    assert!(inst[0].validation.is_some());
    // Every other SWE-bench field is still the file's.
    assert_eq!(inst[0].patch, row["patch"].as_str().unwrap_or_default());
    assert_eq!(
        inst[0].hints_text,
        row["hints_text"].as_str().unwrap_or_default()
    );
}
