//! Golden tests proven by running them: the demo's Python instances with a real pytest
//! and its Java instances with a real JUnit, in the sandbox; `hunkgen validate` confirms
//! an unchanged dataset from the cache and reports a deliberately broken test.

use crate::common::{demo_recipe_validated, hunkgen, succeeds, validation_env};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One validated demo build shared by the tests here (it runs ~60 test processes).
pub(crate) fn demo() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, out) = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let recipe = demo_recipe_validated(dir.path());
        let out = dir.path().join("datasets/demo");
        succeeds(
            hunkgen()
                .args(["build", "-q"])
                .arg(&recipe)
                .envs(validation_env()),
        );
        (dir, out)
    });
    out
}

/// A dataset's instance rows.
pub(crate) fn rows(dataset: &Path) -> Vec<serde_json::Value> {
    fs::read_to_string(dataset.join("instances.jsonl"))
        .expect("instances")
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect()
}

/// A recipe for a git history `repo` validated by pytest (pinned by `make deps`' uv
/// cache): `name`, then `select` and `validate` lines given as YAML under their keys
/// (`min_code_hunks: 1\n`, `sandbox: required\n`), then `rest` (a `states:` section).
pub(crate) fn pytest_recipe(
    name: &str,
    repo: &Path,
    select: &str,
    validate: &str,
    rest: &str,
) -> String {
    let select = if select.is_empty() {
        String::new()
    } else {
        format!("select:\n  {select}")
    };
    format!(
        "name: {name}\noutput: out\nsource:\n  git:\n    repo: {}\nfiles:\n  code_extensions: [py]\n{select}validate:\n  cache: cache\n  {validate}suites:\n    - name: pytest\n      env:\n        python:\n          install: '\"$HUNKGEN_UV\" pip install --quiet pytest==9.2.0'\n      command: python -m pytest -rA -p no:cacheprovider -o junit_family=xunit1 --junitxml={{report_dir}}/pytest.xml {{tests}}\n      report: pytest\n{rest}",
        repo.display()
    )
}

/// A pytest recipe (as [`pytest_recipe`] writes it) built in a fresh directory: the
/// dataset is `out/` there.
fn built_pytest(
    name: &str,
    repo: &Path,
    select: &str,
    validate: &str,
    rest: &str,
) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let recipe = dir.path().join("r.yaml");
    fs::write(&recipe, pytest_recipe(name, repo, select, validate, rest)).expect("recipe");
    succeeds(
        hunkgen()
            .args(["build", "-q"])
            .arg(&recipe)
            .envs(validation_env()),
    );
    dir
}

#[test]
fn demo_instances_are_validated_by_real_pytest_and_junit() {
    let rows = rows(demo());
    assert_eq!(rows.len(), 6, "every demo fix is confirmed");
    let mut suites = std::collections::BTreeSet::new();
    for r in &rows {
        let id = r["instance_id"].as_str().expect("id");
        let f2p = r["FAIL_TO_PASS"].as_array().expect("f2p");
        assert!(!f2p.is_empty(), "{id}: no FAIL_TO_PASS");
        let v = &r["validation"];
        assert_eq!(v["sandboxed"], true, "{id}");
        assert_eq!(v["runs"]["before"], 2, "{id}");
        assert_eq!(v["runs"]["after"], 2, "{id}");
        assert_eq!(v["labels"]["f2p"].as_u64(), Some(f2p.len() as u64), "{id}");
        // What each FAIL_TO_PASS test says before the fix (RepoFixEval's statements).
        let failures = r["failures"].as_array().expect("failures");
        assert_eq!(failures.len(), f2p.len(), "{id}: {failures:?}");
        for (f, t) in failures.iter().zip(f2p) {
            assert_eq!(&f["test"], t, "{id}");
            assert!(
                !f["message"].as_str().unwrap_or("").is_empty()
                    || !f["trace"].as_str().unwrap_or("").is_empty(),
                "{id}: {f}"
            );
        }
        for s in v["suites"].as_array().expect("suites") {
            suites.insert(s.as_str().expect("suite").to_string());
        }
        // Both streams of every run are logged.
        let logs = demo().join("logs").join(id);
        assert!(fs::read_dir(&logs).expect("logs").count() >= 5, "{id}");
    }
    assert_eq!(
        suites.into_iter().collect::<Vec<_>>(),
        ["java", "python"],
        "both real runners ran"
    );
    // Java ids are Defects4J-style, Python ids pytest node ids.
    let all: Vec<String> = rows
        .iter()
        .flat_map(|r| r["FAIL_TO_PASS"].as_array().expect("f2p").clone())
        .map(|t| t.as_str().expect("id").to_string())
        .collect();
    assert!(all
        .iter()
        .any(|t| t.starts_with("org.acme.") && t.contains("::")));
    assert!(all
        .iter()
        .any(|t| t.starts_with("tests/test_") && t.contains(".py::")));
    assert!(all.contains(&"tests/test_stats.py::StatsTest::test_median_even".to_string()));
}

#[test]
fn a_fix_whose_tests_pass_before_is_rejected_with_its_reason() {
    let rejected = fs::read_to_string(demo().join("rejected.jsonl")).expect("rejected");
    let rows: Vec<serde_json::Value> = rejected
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    assert_eq!(rows.len(), 1, "{rejected}");
    assert_eq!(rows[0]["id"], "acme-a1c687eb61e1");
    assert_eq!(rows[0]["stage"], "validate");
    assert_eq!(rows[0]["reason"], "no_fail_to_pass");
    let card = fs::read_to_string(demo().join("dataset.yaml")).expect("card");
    assert!(
        card.contains("rejected: 1") && card.contains("validated: 6"),
        "{card}"
    );
}

#[test]
fn validate_confirms_an_unchanged_dataset_from_the_cache() {
    let out = succeeds(
        hunkgen()
            .args(["validate", "-q", "--json"])
            .arg(demo())
            .envs(validation_env()),
    );
    let rows: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(rows.len(), 6);
    for r in &rows {
        assert_eq!(r["status"], "confirmed", "{r}");
        assert_eq!(r["executed_runs"], 0, "answered from the cache: {r}");
    }
}

#[test]
fn validate_reports_a_deliberately_broken_test_as_changed() {
    let copy = tempfile::tempdir().expect("tempdir");
    let dataset = copy.path().join("demo");
    fs::create_dir_all(&dataset).expect("mkdir");
    for f in ["dataset.yaml", "instances.jsonl"] {
        fs::copy(demo().join(f), dataset.join(f)).expect("copy");
    }
    // Break the median test: it now expects a wrong value, so it fails after the fix too.
    let text = fs::read_to_string(dataset.join("instances.jsonl")).expect("rows");
    let mut broken = 0;
    let text: String = text
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("row");
            let tp = v["test_patch"].as_str().unwrap_or("").to_string();
            let needle = "median([4, 1, 3, 2]), 2.5)";
            if tp.contains(needle) {
                broken += 1;
                v["test_patch"] = tp.replace(needle, "median([4, 1, 3, 2]), 3.5)").into();
            }
            format!("{v}\n")
        })
        .collect();
    assert_eq!(broken, 1, "the median test is in one instance's test patch");
    fs::write(dataset.join("instances.jsonl"), text).expect("write");
    let out = hunkgen()
        .args(["validate", "-q"])
        .arg(&dataset)
        .envs(validation_env())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let changed: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("| changed |"))
        .collect();
    assert_eq!(changed.len(), 1, "{stdout}");
    assert!(changed[0].contains("test_median_even"), "{stdout}");
    assert!(stdout.contains("5 confirmed, 1 changed"), "{stdout}");
}

#[test]
fn every_confirmed_demo_instance_has_three_states_in_two_scenarios() {
    for r in rows(demo()) {
        let id = r["instance_id"].as_str().expect("id");
        let written: Vec<&str> = r["states"]["written"]
            .as_array()
            .expect("states")
            .iter()
            .map(|w| w.as_str().expect("name"))
            .collect();
        assert_eq!(
            written,
            [
                "novel-best",
                "novel-worst",
                "partial-best",
                "partial-worst",
                "resolved-best",
                "resolved-worst"
            ],
            "{id}"
        );
        for name in &written {
            let dir = demo().join("states").join(id).join(name);
            let manifest = fs::read_to_string(dir.join("manifest.yaml")).expect("manifest");
            let m: serde_norway::Value = serde_norway::from_str(&manifest).expect("yaml");
            let best = name.ends_with("-best");
            assert_eq!(dir.join("repo/.git").is_dir(), best, "{id} {name}");
            if best {
                assert!(
                    m["gate"].as_sequence().is_some_and(|g| g.len() >= 10),
                    "{id} {name}: gated"
                );
            }
            // Golden tests fail on Novel and Partial, pass on Resolved: verified by runs.
            let expect = if name.starts_with("resolved") {
                "pass"
            } else {
                "fail"
            };
            assert_eq!(
                m["verification"]["golden_tests"].as_str(),
                Some(expect),
                "{id} {name}: {manifest}"
            );
        }
        // A Partial state applies a proper, non-empty subset of the golden hunks.
        let partial: serde_norway::Value = serde_norway::from_str(
            &fs::read_to_string(
                demo()
                    .join("states")
                    .join(id)
                    .join("partial-worst/manifest.yaml"),
            )
            .expect("manifest"),
        )
        .expect("yaml");
        let applied = partial["hunks_applied"]
            .as_sequence()
            .expect("applied")
            .len();
        let counted = r["stats"]["hunks"].as_u64().expect("hunks") as usize;
        assert!(
            applied >= 1 && applied < counted,
            "{id}: {applied} of {counted}"
        );
    }
    // The instances of one repository share their history: one layered store for the
    // repository, whose bases (one linear history) form one chain with one root segment;
    // every other segment holds only what lies between two bases.
    let packs = demo().join("states/.packs");
    let repos: Vec<_> = fs::read_dir(&packs)
        .expect("states/.packs")
        .flatten()
        .collect();
    assert_eq!(repos.len(), 1, "{repos:?}");
    let segments: Vec<String> = fs::read_dir(repos[0].path())
        .expect("segments")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let roots = segments.iter().filter(|s| s.ends_with("-root")).count();
    assert_eq!(roots, 1, "{segments:?}");
    assert_eq!(segments.len(), rows(demo()).len(), "{segments:?}");
}

/// A package with one fix that adds two helpers and a new test module importing them.
fn calc_history() -> crate::common::Script {
    let mut s = crate::common::Script::new();
    s.write("pkg/__init__.py", "");
    let filler = "\n\ndef one():\n    return 1\n\n\ndef two():\n    return 2\n\n\ndef three():\n    return 3\n";
    s.write(
        "pkg/calc.py",
        &format!(
            "def add(a, b):\n    return a + b\n{filler}\n\ndef sub(a, b):\n    return a - b\n"
        ),
    );
    s.write(
        "tests/test_calc.py",
        "from pkg.calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    );
    s.commit("Initial calc");
    s.write(
        "pkg/calc.py",
        &format!("def add(a, b):\n    return a + b\n\n\ndef twice(a):\n    return add(a, a)\n{filler}\n\ndef sub(a, b):\n    return a - b\n\n\ndef neg(a):\n    return sub(0, a)\n"),
    );
    s.write(
        "tests/test_more.py",
        "from pkg.calc import neg, twice\n\n\ndef test_twice():\n    assert twice(2) == 4\n\n\ndef test_neg():\n    assert neg(2) == -2\n",
    );
    s.commit("Fix missing twice and neg helpers");
    s
}

/// A fix that adds a function, and a new test module that imports it: on base + test
/// patch the module cannot even be collected. The tests count as absent before (n2p, as
/// SWE-bench grades them), so the instance is confirmed, not an infrastructure failure.
#[test]
fn a_new_test_that_cannot_import_before_the_fix_counts_as_absent() {
    let s = calc_history();
    let dir = built_pytest("calc", &s.dir, "", "", "");
    let rows = rows(&dir.path().join("out"));
    assert_eq!(
        rows.len(),
        1,
        "{}",
        fs::read_to_string(dir.path().join("out/rejected.jsonl")).unwrap_or_default()
    );
    let r = &rows[0];
    assert_eq!(
        r["FAIL_TO_PASS"],
        serde_json::json!([
            "tests/test_more.py::test_neg",
            "tests/test_more.py::test_twice"
        ])
    );
    assert_eq!(r["validation"]["labels"]["n2p"], 2);
    assert!(r["validation"]["before_unbuilt"]
        .as_str()
        .is_some_and(|s| s.contains("collection")));
}

/// A fix whose golden test reads the home directory as the system gives it (the passwd
/// entry of the run's uid, as Java's `user.home` is read) is validated in the sandbox and
/// the gold baseline resolves it: the sandbox's identity is coherent (that home exists,
/// is writable and is `HOME`). With the host's passwd entry inside the sandbox the home
/// named there does not exist (or the uid has no entry) and the fix is rejected.
#[test]
fn a_golden_test_that_reads_the_home_directory_passes_on_the_fixed_version() {
    let mut s = crate::common::Script::new();
    s.write("cfg/__init__.py", "");
    s.write(
        "cfg/store.py",
        "import os\nimport pwd\n\n\ndef home():\n    return pwd.getpwuid(os.getuid()).pw_dir\n\n\ndef save(name, text):\n    return None\n",
    );
    s.write(
        "tests/test_home.py",
        "from cfg.store import home\n\n\ndef test_home_is_a_string():\n    assert isinstance(home(), str)\n",
    );
    s.commit("Initial store");
    s.write(
        "cfg/store.py",
        "import os\nimport pwd\n\n\ndef home():\n    return pwd.getpwuid(os.getuid()).pw_dir\n\n\ndef save(name, text):\n    path = os.path.join(home(), name)\n    with open(path, 'w') as f:\n        f.write(text)\n    return path\n",
    );
    s.write(
        "tests/test_save.py",
        "import os\n\nfrom cfg.store import home, save\n\n\ndef test_save_writes_into_the_home_directory():\n    assert os.path.isdir(home())\n    assert home() == os.path.expanduser('~')\n    path = save('.cfgrc', 'x = 1')\n    assert open(path).read() == 'x = 1'\n",
    );
    s.commit("Fix save to write the file into the home directory");
    let dir = built_pytest(
        "home",
        &s.dir,
        "min_code_hunks: 1\n",
        "sandbox: required\n  ",
        "",
    );
    let out = dir.path().join("out");
    let rows = rows(&out);
    assert_eq!(
        rows.len(),
        1,
        "{}",
        fs::read_to_string(out.join("rejected.jsonl")).unwrap_or_default()
    );
    assert_eq!(
        rows[0]["FAIL_TO_PASS"],
        serde_json::json!(["tests/test_save.py::test_save_writes_into_the_home_directory"])
    );
    let gold =
        crate::evaluate::evaluate_dataset(&out, &["--baseline", "gold"], &dir.path().join("gold"));
    assert_eq!(
        crate::evaluate::rate(&gold["overall"]["resolution"]),
        (1, 1),
        "{gold:#}"
    );
}

/// Every log file of a dataset, by its path in `logs/`.
fn logs_of(dataset: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, d: &Path, out: &mut std::collections::BTreeMap<PathBuf, Vec<u8>>) {
        for e in fs::read_dir(d).expect("logs").flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).expect("inside").to_path_buf();
                out.insert(rel, fs::read(&p).expect("log"));
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(&dataset.join("logs"), &dataset.join("logs"), &mut out);
    out
}

#[test]
fn a_rebuild_from_the_cache_writes_every_log_and_an_unchanged_one_writes_none() {
    use std::os::unix::fs::MetadataExt;
    let demo = demo();
    let expected = logs_of(demo);
    assert!(expected.len() >= 30, "{} logs", expected.len());
    // The demo's recipe, copied beside it: the same cache answers every run.
    let recipes = demo
        .parent()
        .and_then(Path::parent)
        .expect("the demo's root")
        .join("recipes");
    let recipe = recipes.join("demo-logs.yaml");
    fs::copy(recipes.join("demo.yaml"), &recipe).expect("copy");
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("d");
    let build = || -> String {
        let o = succeeds(
            hunkgen()
                .args(["build", "-q", "--timings", "-o"])
                .arg(&out)
                .arg(&recipe)
                .envs(validation_env()),
        );
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let err = build();
    assert!(
        err.contains("timings: mine ") && err.contains(" s, validate ") && err.contains(", total "),
        "{err}"
    );
    assert_eq!(logs_of(&out), expected, "a cached run's log is written");
    let inode = |p: &Path| fs::metadata(p).expect("stat").ino();
    let logs = inode(&out.join("logs"));

    let err = build();
    assert!(err.contains("nothing changed"), "{err}");
    assert_eq!(inode(&out.join("logs")), logs, "kept as it was");

    // A change to the dataset (the recipe's bytes): a new dataset, every log written.
    let body = fs::read_to_string(&recipe).expect("recipe");
    fs::write(&recipe, format!("{body}# changed\n")).expect("recipe");
    let err = build();
    assert!(!err.contains("nothing changed"), "{err}");
    assert_ne!(inode(&out.join("logs")), logs, "replaced");
    assert_eq!(logs_of(&out), expected, "every log of the replaced dataset");
}

/// A fix whose every hunk alone already makes its golden test pass has no Partial
/// state, and the missing state says how many candidates were refused for what.
#[test]
fn a_partial_refused_for_every_subset_says_why_each_was_refused() {
    let mut s = crate::common::Script::new();
    s.write("pkg/__init__.py", "");
    let filler: String = (0..12)
        .map(|i| format!("\n\ndef filler_{i}():\n    return {i}\n"))
        .collect();
    let calc = |a: u32, b: u32| {
        format!("def a():\n    return {a}\n{filler}\n\ndef b():\n    return {b}\n\n\ndef value():\n    return max(a(), b())\n")
    };
    s.write("pkg/calc.py", &calc(0, 0));
    s.write(
        "tests/test_calc.py",
        "from pkg.calc import a\n\n\ndef test_a():\n    assert a() >= 0\n",
    );
    s.commit("Initial calc");
    s.write("pkg/calc.py", &calc(1, 1));
    s.write(
        "tests/test_value.py",
        "from pkg.calc import value\n\n\ndef test_value():\n    assert value() == 1\n",
    );
    s.commit("Fix value to be one");
    let dir = built_pytest(
        "refused",
        &s.dir,
        "min_code_hunks: 2\n",
        "",
        "states:\n  kinds: [novel, partial]\n  scenarios: [worst]\n",
    );
    let rows = rows(&dir.path().join("out"));
    assert_eq!(rows.len(), 1, "the fix is confirmed");
    let missing = rows[0]["states"]["missing"].as_array().expect("missing");
    assert_eq!(missing.len(), 1, "{missing:?}");
    let why = missing[0].as_str().expect("a line");
    assert!(
        why.starts_with("partial: ")
            && why.ends_with(
                "none of 2 hunk subset(s) was accepted by the verifier: 2 let every golden test pass"
            ),
        "{why}"
    );
}

/// A cache entry's bytes as `hunkgen::cache` writes them: header with the payload's
/// SHA-256, then the payload.
fn cache_entry(payload: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    let sum: String = sha2::Sha256::digest(payload)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    [
        b"hunkgen-cache 1 ".as_slice(),
        sum.as_bytes(),
        b"\n",
        payload,
    ]
    .concat()
}

/// The payload of a cache entry file.
fn cache_payload(path: &Path) -> Vec<u8> {
    fs::read(path).expect("entry")[81..].to_vec()
}

/// Every entry file under `dir` with its inode (a rewritten entry gets a new one).
fn entries(dir: &Path) -> std::collections::BTreeMap<PathBuf, u64> {
    use std::os::unix::fs::MetadataExt;
    let mut out = std::collections::BTreeMap::new();
    for sub in fs::read_dir(dir).expect("cache dir").flatten() {
        for f in fs::read_dir(sub.path()).into_iter().flatten().flatten() {
            if !f.file_name().to_string_lossy().starts_with('.') {
                out.insert(f.path(), f.metadata().expect("stat").ino());
            }
        }
    }
    out
}

/// Two datasets' rows are equal; a difference is named by instance and field.
fn same_rows(left: &[serde_json::Value], right: &[serde_json::Value]) {
    assert_eq!(left.len(), right.len(), "instance counts");
    for (l, r) in left.iter().zip(right) {
        let (Some(lo), Some(ro)) = (l.as_object(), r.as_object()) else {
            panic!("rows are no objects");
        };
        for key in lo.keys().chain(ro.keys()) {
            assert_eq!(lo.get(key), ro.get(key), "{}: {key}", l["instance_id"]);
        }
    }
}

/// A warm rebuild answers every examined commit, annotation and verdict from the memo
/// (no entry is written again); the verdict it answers is the memo's, until a run entry
/// that verdict was read from changes.
#[test]
fn a_warm_rebuild_answers_from_the_memo_until_a_run_it_read_changes() {
    // A private history and cache: the entries planted here reach no other test.
    let history = calc_history();
    let tmp = built_pytest("calc", &history.dir, "", "", "");
    let recipe = tmp.path().join("r.yaml");
    let cache = tmp.path().join("cache");
    let cold = tmp.path().join("out");
    let build = |name: &str| -> PathBuf {
        let out = tmp.path().join(name);
        succeeds(
            hunkgen()
                .args(["build", "-q", "-o"])
                .arg(&out)
                .arg(&recipe)
                .envs(validation_env()),
        );
        out
    };
    let f2p = |dataset: &Path| -> Vec<serde_json::Value> {
        rows(dataset)
            .into_iter()
            .map(|r| r["FAIL_TO_PASS"].clone())
            .collect()
    };

    let memo = cache.join("memo");
    let before = entries(&memo);
    let verdicts = before
        .keys()
        .filter(|p| String::from_utf8_lossy(&cache_payload(p)).starts_with("{\"outcome\""))
        .count();
    assert_eq!(verdicts, 1, "one verdict memoized among {before:?}");
    let warm = build("warm");
    same_rows(&rows(&warm), &rows(&cold));
    assert_eq!(entries(&memo), before, "no memo entry made again");

    // Plant a FAIL_TO_PASS in every memoized verdict of a confirmed instance.
    let mut planted = Vec::new();
    for path in before.keys() {
        let mut v: serde_json::Value =
            serde_json::from_slice(&cache_payload(path)).expect("memo json");
        let Some(outcome) = v.get_mut("outcome") else {
            continue;
        };
        if !outcome["rejection"].is_null() {
            continue;
        }
        let real = outcome["fail_to_pass"].clone();
        outcome["fail_to_pass"] = serde_json::json!(["planted::test"]);
        let last_run = v["sums"]
            .as_array()
            .and_then(|s| s.last())
            .and_then(|s| s.as_str())
            .expect("sums")
            .to_string();
        let payload = serde_json::to_vec(&v).expect("json");
        fs::write(path, cache_entry(&payload)).expect("plant");
        planted.push((real, last_run));
    }
    assert!(!planted.is_empty(), "no verdict of a confirmed instance");
    let with_plants = f2p(&build("planted"));
    let count = |rows: &[serde_json::Value]| {
        rows.iter()
            .filter(|f| **f == serde_json::json!(["planted::test"]))
            .count()
    };
    assert_eq!(count(&with_plants), planted.len(), "{with_plants:?}");

    // One run entry a planted verdict was read from changes: that verdict is made again.
    let (real, sum) = &planted[0];
    let run = entries(&cache.join("runs"))
        .into_keys()
        .find(|p| fs::read(p).expect("entry")[16..80] == *sum.as_bytes())
        .expect("the run entry the verdict was read from");
    let mut entry: serde_json::Value =
        serde_json::from_slice(&cache_payload(&run)).expect("run json");
    entry["seconds"] = serde_json::json!(entry["seconds"].as_f64().expect("seconds") + 1.0);
    fs::write(
        &run,
        cache_entry(&serde_json::to_vec(&entry).expect("json")),
    )
    .expect("write");
    let after = f2p(&build("changed"));
    assert_eq!(count(&after), planted.len() - 1, "{after:?}");
    assert!(
        after.contains(real),
        "{real} made again from the runs: {after:?}"
    );
}
