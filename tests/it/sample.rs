//! `select.sample` on a scripted history of six two-hunk fixes (and one single-hunk fix):
//! exactly N instances, the ones the seed's hashes rank lowest; the same on a rebuild and
//! in a two-shard build merged; another seed draws others; the rest are counted as
//! `not_sampled`, never rejected, and cost no test run and no state; a stratified sample
//! is the same across shards too; a bad `sample` is one line naming its place.

use crate::common::{hunkgen, Script};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Two-hunk fixes in the history (the single-hunk one comes after them).
const FIXES: usize = 6;

/// The golden-test runner the repository carries: a test file's `# expect NAME FILE WORD`
/// lines are JUnit cases, each passing when FILE contains WORD.
const RUNNER: &str = r#"#!/bin/sh
out="$1"; shift; mkdir -p "$out"
for t in "$@"; do
  n=$(basename "$t" .py)
  {
    echo "<testsuite name=\"tests.$n\">"
    grep '^# expect ' "$t" | while read -r _ _ name file word; do
      if grep -q "$word" "$file"; then
        echo "<testcase classname=\"tests.$n\" name=\"$name\"/>"
      else
        echo "<testcase classname=\"tests.$n\" name=\"$name\"><failure message=\"no $word\"/></testcase>"
      fi
    done
    echo "</testsuite>"
  } > "$out/TEST-$n.xml"
done
"#;

/// `pkg/core.py` with `first_i` and `second_i` (far apart) fixed for the `fixed` ones.
fn core(fixed: &BTreeSet<String>) -> String {
    let word = |key: String| {
        if fixed.contains(&key) {
            format!("FIXED_{key}")
        } else {
            format!("BUG_{key}")
        }
    };
    let mut text = String::new();
    for i in 0..=FIXES {
        text.push_str(&format!(
            "def first_{i}(x):\n    return \"{}\"\n\n\n",
            word(format!("{i}_A"))
        ));
    }
    text.push_str("def middle():\n");
    for n in 0..12 {
        text.push_str(&format!("    y{n} = {n}\n"));
    }
    text.push_str("    return 0\n");
    for i in 0..=FIXES {
        text.push_str(&format!(
            "\n\ndef second_{i}(x):\n    return \"{}\"\n",
            word(format!("{i}_B"))
        ));
    }
    text
}

/// `pkg/extra.py` with `other_i` fixed for the `fixed` ones.
fn extra(fixed: &BTreeSet<String>) -> String {
    (0..=FIXES)
        .map(|i| {
            let key = format!("{i}_C");
            let state = if fixed.contains(&key) { "FIXED" } else { "BUG" };
            format!("def other_{i}(x):\n    return \"{state}_{key}\"\n\n\n")
        })
        .collect()
}

/// The history: six fixes of two hunks each (even ones in one file, odd ones across two
/// files of one package, so more than one proximity class), then a single-hunk fix, each
/// with a test file whose cases fail before it and pass after.
fn history() -> Script {
    let mut s = Script::new();
    let mut fixed = BTreeSet::new();
    s.write("run-tests.sh", RUNNER);
    s.write("pkg/__init__.py", "");
    s.write("pkg/core.py", &core(&fixed));
    s.write("pkg/extra.py", &extra(&fixed));
    s.commit("Initial import");
    for i in 0..FIXES {
        let (second, file, subject) = if i % 2 == 0 {
            ("B", "pkg/core.py", format!("Fix first_{i} and second_{i}"))
        } else {
            ("C", "pkg/extra.py", format!("Fix first_{i} and other_{i}"))
        };
        fixed.insert(format!("{i}_A"));
        fixed.insert(format!("{i}_{second}"));
        s.write("pkg/core.py", &core(&fixed));
        s.write("pkg/extra.py", &extra(&fixed));
        s.write(
            &format!("tests/test_fix{i}.py"),
            &format!(
                "# expect a{i} pkg/core.py FIXED_{i}_A\n# expect z{i} {file} FIXED_{i}_{second}\n"
            ),
        );
        s.commit(&subject);
    }
    fixed.insert(format!("{FIXES}_A"));
    s.write("pkg/core.py", &core(&fixed));
    s.write(
        &format!("tests/test_fix{FIXES}.py"),
        &format!("# expect a{FIXES} pkg/core.py FIXED_{FIXES}_A\n"),
    );
    s.commit(&format!("Fix first_{FIXES} alone"));
    s
}

/// A recipe over `repo` in `dir` with `select` lines added: golden tests by the runner
/// (no sandbox, a cache beside the recipe) and Novel states without history.
fn recipe(dir: &Path, repo: &Path, file: &str, select: &str) -> PathBuf {
    let path = dir.join(file);
    fs::write(
        &path,
        format!(
            "name: smp\nsource:\n  git:\n    repo: {}\n    subject_regex: '^Fix '\n\
             files:\n  code_extensions: [py]\nselect:\n  min_code_hunks: 2\n{select}\
             validate:\n  reruns: 1\n  timeout: 60\n  sandbox: off\n  cache: cache\n  suites:\n    \
             - name: sh\n      paths: [tests/]\n      env:\n        command:\n          setup: 'true'\n      \
             command: sh run-tests.sh {{report_dir}} {{tests}}\n      report: junit\n\
             states:\n  kinds: [novel]\n  scenarios: [worst]\n",
            repo.display()
        ),
    )
    .expect("recipe");
    path
}

/// `hunkgen build` (`--shard` when given) into `out`; its stdout.
fn build(recipe: &Path, out: &Path, shard: Option<&str>) -> String {
    let mut cmd = hunkgen();
    cmd.args(["build", "-q", "--force", "-o"])
        .arg(out)
        .arg(recipe);
    if let Some(k) = shard {
        cmd.args(["--shard", k]);
    }
    let o = cmd
        .env_remove("HUNKGEN_SHARD")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .output()
        .expect("hunkgen runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Two shards of `recipe` built and merged into `out`.
fn sharded(recipe: &Path, work: &Path, out: &Path) {
    let shards: Vec<PathBuf> = (0..2).map(|k| work.join(format!("shard-{k}"))).collect();
    for (k, dir) in shards.iter().enumerate() {
        build(recipe, dir, Some(&format!("{k}/2")));
    }
    let o = hunkgen()
        .arg("merge")
        .arg(out)
        .args(&shards)
        .output()
        .expect("merge runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The ids of a dataset's instances.
fn ids(out: &Path) -> BTreeSet<String> {
    hunkgen::dataset::read_instances(out)
        .expect("instances")
        .into_iter()
        .map(|i| i.instance_id)
        .collect()
}

/// The entries of a dataset subdirectory (`logs`, `states`), hidden ones left out.
fn entries(out: &Path, dir: &str) -> BTreeSet<String> {
    fs::read_dir(out.join(dir))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default()
}

/// What the seed's hashes draw: the `n` ids whose `stable_hash("{seed}\0{id}")` is lowest.
fn predicted(all: &BTreeSet<String>, n: usize, seed: u64) -> BTreeSet<String> {
    let mut ranked: Vec<(u64, &String)> = all
        .iter()
        .map(|id| (hunkgen::shard::stable_hash(&format!("{seed}\0{id}")), id))
        .collect();
    ranked.sort();
    ranked
        .into_iter()
        .take(n)
        .map(|(_, id)| id.clone())
        .collect()
}

/// The files a merge must reproduce: rows, card (without its build time) and tables.
fn dataset_files(out: &Path) -> Vec<(String, Vec<u8>)> {
    let tree = crate::shard::tree(out);
    [
        "instances.jsonl",
        "rejected.jsonl",
        "dataset.yaml",
        "report/tables.md",
    ]
    .iter()
    .map(|f| (f.to_string(), tree.get(*f).cloned().unwrap_or_default()))
    .collect()
}

#[test]
fn a_sample_keeps_n_instances_the_same_on_a_rebuild_and_across_shards() {
    let s = history();
    let work = tempfile::tempdir().expect("tempdir");
    let w = work.path();

    // Without a sample: the six two-hunk fixes, the population the sample draws from.
    let all_out = w.join("all");
    build(&recipe(w, &s.dir, "all.yaml", ""), &all_out, None);
    let all = ids(&all_out);
    assert_eq!(all.len(), FIXES, "{all:?}");

    let sample = "  sample: {n: 2, seed: 7}\n";
    let r7 = recipe(w, &s.dir, "seed7.yaml", sample);
    let one = w.join("one");
    let stdout = build(&r7, &one, None);
    let picked = ids(&one);
    assert_eq!(picked.len(), 2, "{picked:?}");
    assert_eq!(
        picked,
        predicted(&all, 2, 7),
        "the lowest hashes of seed and id"
    );
    // The build's summary says N of M, and the rest are no rejection.
    assert!(
        stdout.contains("2 of 6 sampled (select.sample, seed 7), 4 not_sampled"),
        "{stdout}"
    );
    assert!(hunkgen::dataset::read_rejected(&one)
        .expect("rejected")
        .is_empty());
    let card = hunkgen::dataset::read_card(&one)
        .expect("card")
        .expect("a dataset");
    assert_eq!(
        (
            card.counts.multi_hunk,
            card.counts.sampled,
            card.counts.not_sampled,
            card.counts.instances,
            card.counts.rejected
        ),
        (6, Some(2), Some(4), 2, 0)
    );
    let funnel = card.counts.funnel.as_ref().expect("a git funnel");
    assert_eq!(
        (funnel.multi_hunk, funnel.kept, funnel.not_sampled),
        (6, 6, 4),
        "the single-hunk fix stops at the walk's multi-hunk step"
    );
    let tables = fs::read_to_string(one.join("report/tables.md")).expect("tables");
    assert!(
        tables.contains("## Sample") && tables.contains("drew 2 of the 6 candidates"),
        "{tables}"
    );
    assert!(
        tables.contains("| not sampled (`select.sample`) | 4 |"),
        "{tables}"
    );
    // `hunkgen stats` of the dataset says it is a sample, in markdown and JSON.
    let stats = crate::common::succeeds(hunkgen().arg("stats").arg(&one));
    let stats = String::from_utf8_lossy(&stats.stdout);
    assert!(stats.contains("drew 2 of the 6 candidates"), "{stats}");
    let json = crate::common::succeeds(hunkgen().args(["stats", "--json"]).arg(&one));
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(
        (&json["sample"]["sampled"], &json["sample"]["not_sampled"]),
        (&serde_json::json!(2), &serde_json::json!(4))
    );
    // Nothing was spent on the others: no test log, no state.
    assert_eq!(entries(&one, "states"), picked);
    assert_eq!(entries(&one, "logs"), picked);

    // A rebuild draws the same, byte for byte.
    let again = w.join("again");
    build(&r7, &again, None);
    assert_eq!(
        fs::read(again.join("instances.jsonl")).expect("rows"),
        fs::read(one.join("instances.jsonl")).expect("rows")
    );

    // Two shards, merged: the one-machine dataset, counts and report included.
    let merged = w.join("merged");
    sharded(&r7, &w.join("shards7"), &merged);
    assert_eq!(ids(&merged), picked);
    assert_eq!(dataset_files(&merged), dataset_files(&one));
    assert_eq!(entries(&merged, "states"), picked);

    // Another seed can draw others: the first seed after 7 whose hashes rank another
    // pair lowest does, in the build as predicted.
    let seed = (8..200)
        .find(|&seed| predicted(&all, 2, seed) != picked)
        .expect("a seed that draws another pair");
    let other = w.join("other");
    build(
        &recipe(
            w,
            &s.dir,
            "other.yaml",
            &format!("  sample: {{n: 2, seed: {seed}}}\n"),
        ),
        &other,
        None,
    );
    assert_eq!(ids(&other), predicted(&all, 2, seed));
    assert_ne!(ids(&other), picked);

    // N above the population keeps every instance, none not sampled.
    let big = w.join("big");
    let stdout = build(
        &recipe(w, &s.dir, "big.yaml", "  sample: {n: 50}\n"),
        &big,
        None,
    );
    assert_eq!(ids(&big), all);
    assert!(stdout.contains("6 of 6 sampled"), "{stdout}");
}

#[test]
fn a_sample_stratified_by_class_is_the_same_across_shards() {
    let s = history();
    let work = tempfile::tempdir().expect("tempdir");
    let w = work.path();
    let all_out = w.join("all");
    build(&recipe(w, &s.dir, "all.yaml", ""), &all_out, None);
    let rows = hunkgen::dataset::read_instances(&all_out).expect("rows");
    let classes: BTreeSet<String> = rows
        .iter()
        .map(|i| format!("{:?}", i.proximity.as_ref().and_then(|p| p.class)))
        .collect();
    assert!(classes.len() >= 2, "more than one stratum: {classes:?}");

    for by in ["class", "project"] {
        let r = recipe(
            w,
            &s.dir,
            &format!("{by}.yaml"),
            &format!("  sample:\n    n: 3\n    seed: 11\n    stratify_by: {by}\n"),
        );
        let one = w.join(format!("one-{by}"));
        let stdout = build(&r, &one, None);
        assert_eq!(ids(&one).len(), 3, "{by}");
        assert!(stdout.contains(&format!("seed 11, by {by}")), "{stdout}");
        let merged = w.join(format!("merged-{by}"));
        sharded(&r, &w.join(format!("shards-{by}")), &merged);
        assert_eq!(ids(&merged), ids(&one), "{by}");
        assert_eq!(dataset_files(&merged), dataset_files(&one), "{by}");
    }
    // One project: drawn by project, the sample is the unstratified one.
    let plain = w.join("plain");
    build(
        &recipe(w, &s.dir, "plain.yaml", "  sample: {n: 3, seed: 11}\n"),
        &plain,
        None,
    );
    assert_eq!(ids(&plain), ids(&w.join("one-project")));
}

#[test]
fn a_bad_sample_is_one_line_naming_its_place() {
    let s = history();
    let work = tempfile::tempdir().expect("tempdir");
    let w = work.path();
    for (file, select, says) in [
        (
            "zero.yaml",
            "  sample:\n    n: 0\n",
            "zero.yaml:11:5: `select.sample.n`: expected at least 1",
        ),
        (
            "flow.yaml",
            "  sample: {n: 0, seed: 3}\n",
            "flow.yaml:10:3: `select.sample.n`: expected at least 1",
        ),
        (
            "strata.yaml",
            "  sample:\n    n: 2\n    stratify_by: family\n",
            "strata.yaml:12:18: `select.sample.stratify_by`: unknown value `family`",
        ),
    ] {
        let r = recipe(w, &s.dir, file, select);
        let o = hunkgen()
            .args(["build", "-q", "-o"])
            .arg(w.join("never"))
            .arg(&r)
            .output()
            .expect("hunkgen runs");
        assert_eq!(o.status.code(), Some(1), "{file}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(says), "`{says}` not in: {err}");
    }
    assert!(!w.join("never").exists());
}
