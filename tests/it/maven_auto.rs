//! `env: maven: auto` end to end: a small Maven project (JUnit 4.13.2, surefire 2.22.2,
//! compiler 3.8.1, release 8) whose fix commit changes two places in main code and adds
//! the test that shows it. `hunkgen build` chooses a JDK from the pom, resolves a local
//! repository once (offline, from the seed `make deps` fills: no network for setup),
//! runs `mvn -o` in the sandbox, and proves FAIL_TO_PASS; a second build reuses the
//! environment and resolves nothing.

use crate::common::{hunkgen, manifest, validation_env, Script};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

/// The seed repository `make deps` fills; the test fails (never skips) without it.
pub(crate) fn seed() -> PathBuf {
    let p = std::env::var_os("HUNKGEN_MAVEN_SEED")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest().join("target/maven-seed"));
    assert!(
        p.join("junit/junit/4.13.2").is_dir()
            && p.join("org/junit/jupiter/junit-jupiter-api/5.10.2")
                .is_dir()
            && p.join("org/apache/maven/surefire/surefire-junit4/2.22.2")
                .is_dir(),
        "{} is not a seeded Maven repository: run `make deps` (or `make maven-seed`)",
        p.display()
    );
    p
}

/// The pom: the plugin and JUnit versions of tests/fixtures/maven/seed/pom.xml (shared
/// with benches/validate_maven.rs).
pub(crate) const POM: &str = include_str!("../fixtures/maven/calc/pom.xml");

/// `Calc.java` with two methods far apart (two hunks when both change); `fixed` makes
/// both right.
pub(crate) fn calc(fixed: bool) -> String {
    let (lo, hi) = if fixed {
        ("a + b", "a * b")
    } else {
        ("a - b", "a + b")
    };
    format!(
        "package org.acme;\n\npublic class Calc {{\n    public static int add(int a, int b) {{\n        \
         return {lo};\n    }}\n{pad}\n    public static int mul(int a, int b) {{\n        return {hi};\n    }}\n}}\n",
        pad = "\n    // padding\n".repeat(8)
    )
}

pub(crate) const OLD_TEST: &str =
    "package org.acme;\n\nimport static org.junit.Assert.assertEquals;\n\n\
import org.junit.Test;\n\npublic class ZeroTest {\n    @Test\n    public void zero() {\n        \
assertEquals(0, Calc.add(0, 0));\n    }\n}\n";

pub(crate) const NEW_TEST: &str = "package org.acme;\n\nimport static org.junit.Assert.assertEquals;\n\n\
import org.junit.Test;\n\npublic class CalcTest {\n    @Test\n    public void addsAndMultiplies() {\n        \
assertEquals(5, Calc.add(2, 3));\n        assertEquals(6, Calc.mul(2, 3));\n    }\n}\n";

fn history() -> Script {
    history_with(POM)
}

/// The calc history (an import, then the fix that adds `CalcTest`) under `pom`.
pub(crate) fn history_with(pom: &str) -> Script {
    history_files(pom, &[])
}

/// [`history_with`], with `extra` files (path, text) in the import.
fn history_files(pom: &str, extra: &[(&str, &str)]) -> Script {
    let mut s = Script::new();
    s.write("pom.xml", pom);
    for (path, text) in extra {
        s.write(path, text);
    }
    s.write("src/main/java/org/acme/Calc.java", &calc(false));
    s.write("src/test/java/org/acme/ZeroTest.java", OLD_TEST);
    s.commit("Initial import");
    s.write("src/main/java/org/acme/Calc.java", &calc(true));
    s.write("src/test/java/org/acme/CalcTest.java", NEW_TEST);
    s.commit("Fix add and mul");
    s
}

/// The Maven recipe of these tests. The necessary-hunks stage is off: it is kind-neutral
/// (tests/it/selection.rs), and its Maven runs would double each test's time; the first
/// test turns it back on and checks it once under Maven.
pub(crate) fn recipe(dir: &Path, repo: &Path) -> PathBuf {
    let path = dir.join("recipe.yaml");
    fs::write(
        &path,
        format!(
            "name: mvn\nsource:\n  git:\n    repo: {}\nfiles:\n  code_extensions: [java]\n\
             select:\n  min_code_hunks: 2\nvalidate:\n  reruns: 1\n  timeout: 600\n  \
             necessary_hunks: false\n  \
             network_for_setup: false\n  suites:\n    - name: maven\n      env:\n        \
             maven: auto\n      report: junit\n",
            repo.display()
        ),
    )
    .expect("recipe");
    path
}

/// `hunkgen build` as the validation tests run it, with the seed repository.
pub(crate) fn build(recipe: &Path, out: &Path, cache: &Path, seed: &Path) -> std::process::Output {
    hunkgen()
        .args(["build", "-q"])
        .arg(recipe)
        .arg("-o")
        .arg(out)
        .envs(validation_env())
        .env_remove("HUNKGEN_SHARD")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .env("HUNKGEN_CACHE_DIR", cache)
        .env("HUNKGEN_MAVEN_SEED", seed)
        .output()
        .expect("builds")
}

/// `s` built offline from `seed` with the Maven recipe, which must succeed: the work
/// directory (kept alive by the caller), the dataset and the cache.
fn built(s: &Script, seed: &Path) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let work = tempfile::tempdir().expect("tempdir");
    let recipe = recipe(work.path(), &s.dir);
    let cache = work.path().join("cache");
    let out = work.path().join("out");
    let o = build(&recipe, &out, &cache, seed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (work, out, cache)
}

fn rows(out: &Path, f: &str) -> Vec<Value> {
    fs::read_to_string(out.join(f))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

/// The one instance a calc history's build kept, its FAIL_TO_PASS the new `CalcTest`.
pub(crate) fn proven_calc_test(out: &Path) -> Vec<Value> {
    let kept = rows(out, "instances.jsonl");
    assert_eq!(
        kept.len(),
        1,
        "kept {kept:?}\nrejected {:?}",
        rows(out, "rejected.jsonl")
    );
    assert_eq!(
        kept[0]["FAIL_TO_PASS"],
        serde_json::json!(["org.acme.CalcTest::addsAndMultiplies"])
    );
    kept
}

/// The calc pom as the child of `org.hunkgen.fixture:<artifact>:<version>`, its plugin
/// versions from the parent alone (no `<build>`); `no_level` drops its own level too, so
/// only the parent can name one.
pub(crate) fn child_pom(artifact: &str, version: &str, no_level: bool) -> String {
    let mut child = POM.replace(
        "<groupId>org.acme</groupId>",
        &format!(
            "<parent>\n    <groupId>org.hunkgen.fixture</groupId>\n    \
             <artifactId>{artifact}</artifactId>\n    <version>{version}</version>\n  \
             </parent>\n  <groupId>org.acme</groupId>"
        ),
    );
    if no_level {
        child = child.replace(
            "    <maven.compiler.release>8</maven.compiler.release>\n",
            "",
        );
        assert!(!child.contains("maven.compiler"), "{child}");
    }
    let start = child.find("  <build>").expect("build");
    let end = child.find("</build>\n").expect("build end") + "</build>\n".len();
    format!("{}{}", &child[..start], &child[end..])
}

/// The calc history under `pom` built offline from the seed: the one instance's
/// `validation.maven` record, once its fix is proven.
pub(crate) fn proven_maven_record(pom: &str) -> Value {
    let s = history_with(pom);
    let work = tempfile::tempdir().expect("tempdir");
    let recipe = recipe(work.path(), &s.dir);
    let out = work.path().join("out");
    let o = build(&recipe, &out, &work.path().join("cache"), &seed());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    proven_calc_test(&out)[0]["validation"]["maven"].clone()
}

/// The resolve logs the environment cache holds (one per resolution).
pub(crate) fn resolve_logs(cache: &Path) -> Vec<String> {
    fs::read_dir(cache.join("envs/logs"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("maven-resolve-"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn maven_auto_proves_the_new_test_offline_and_reuses_its_environment() {
    let seed = seed();
    let repo = history();
    let work = tempfile::tempdir().expect("tempdir");
    let recipe = recipe(work.path(), &repo.dir);
    // This test also runs the necessary-hunks stage under Maven (the default, which
    // the other tests' recipe turns off).
    let text = fs::read_to_string(&recipe).expect("recipe");
    fs::write(&recipe, text.replace("  necessary_hunks: false\n", "")).expect("recipe");
    let cache = work.path().join("cache");
    let out = work.path().join("out");
    let o = build(&recipe, &out, &cache, &seed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let kept = rows(&out, "instances.jsonl");
    let rejected = rows(&out, "rejected.jsonl");
    assert_eq!(kept.len(), 1, "kept {kept:?}\nrejected {rejected:?}");
    let row = &kept[0];
    assert_eq!(
        row["FAIL_TO_PASS"],
        serde_json::json!(["org.acme.CalcTest::addsAndMultiplies"]),
        "{row}"
    );
    // Each of the two hunks is needed: without either, CalcTest still fails.
    let hunks = row["hunks"].as_array().expect("hunks");
    let counted: Vec<&Value> = hunks.iter().filter(|h| h["counted"] == true).collect();
    assert_eq!(counted.len(), 2, "{row}");
    for h in counted {
        assert_eq!(h["necessary"], true, "{h}");
    }
    let mvn = &row["validation"]["maven"];
    assert!(mvn["jdk"].as_str().is_some_and(|v| !v.is_empty()), "{mvn}");
    assert_eq!(mvn["level"], 8, "{mvn}");
    assert!(
        mvn["maven"]
            .as_str()
            .is_some_and(|v| v.starts_with("Apache Maven")),
        "{mvn}"
    );
    assert_eq!(mvn["modules"], serde_json::json!(["."]), "{mvn}");
    let logs = resolve_logs(&cache);
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert!(logs[0].ends_with("-offline.log"), "{logs:?}");

    // Warm: the same key, nothing resolved again (and the same rows).
    let out2 = work.path().join("out2");
    let o = build(&recipe, &out2, &cache, &seed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(resolve_logs(&cache), logs);
    let again = rows(&out2, "instances.jsonl");
    assert_eq!(again.len(), 1);
    assert_eq!(again[0]["FAIL_TO_PASS"], row["FAIL_TO_PASS"]);
    assert_eq!(again[0]["validation"]["maven"], *mvn);
    // `mvn --version` was asked once, and remembered for this Maven installation.
    let remembered: Vec<String> = fs::read_dir(cache.join("envs/.maven-version"))
        .expect("remembered Maven version")
        .flatten()
        .filter_map(|e| fs::read_to_string(e.path()).ok())
        .collect();
    assert_eq!(remembered.len(), 1, "{remembered:?}");
    assert_eq!(
        remembered[0].trim_end(),
        mvn["maven"].as_str().unwrap_or_default()
    );
}

/// `hunkgen init repo -o recipe`, which must succeed; what it printed.
fn init(repo: &Path, recipe: &Path) -> String {
    let o = hunkgen()
        .arg("init")
        .arg(repo)
        .arg("-o")
        .arg(recipe)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `hunkgen init` on a tree with a root `pom.xml` writes a `maven: auto` suite and says
/// what it read from the poms.
#[test]
fn init_writes_maven_auto_for_a_root_pom() {
    let repo = history();
    let work = tempfile::tempdir().expect("tempdir");
    let recipe = work.path().join("recipe.yaml");
    let said = init(&repo.dir, &recipe);
    assert!(said.contains("env `maven: auto`"), "{said}");
    assert!(said.contains("1 module(s) (.), Java level 8"), "{said}");
    let text = fs::read_to_string(&recipe).expect("recipe");
    assert!(
        text.contains("    - name: maven\n")
            && text.contains("        maven: auto\n      report: junit\n"),
        "{text}"
    );
    assert!(!text.contains("jars:"), "{text}");
}

/// `Calc.java` before (`add` wrong) and after a fix that rights `add` and adds `neg`
/// far below it (two hunks; a new test that calls `neg` does not compile before).
fn calc_neg(with_neg: bool) -> String {
    let neg = if with_neg {
        "\n    public static int neg(int a) {\n        return -a;\n    }\n"
    } else {
        ""
    };
    format!(
        "package org.acme;\n\npublic class Calc {{\n    public static int add(int a, int b) {{\n        \
         return {add};\n    }}\n{pad}\n    public static int mul(int a, int b) {{\n        return a * b;\n    }}\n{neg}}}\n",
        pad = "\n    // padding\n".repeat(8),
        add = if with_neg { "a + b" } else { "a - b" },
    )
}

const NEG_TEST: &str = "package org.acme;\n\nimport static org.junit.Assert.assertEquals;\n\n\
import org.junit.Test;\n\npublic class NegTest {\n    @Test\n    public void negates() {\n        \
assertEquals(-2, Calc.neg(2));\n    }\n}\n";

/// A fix whose test calls what the fix adds (absent before it: `before_unbuilt`), then a
/// commit that asks for Java 99, then a fix on top of it (`unsupported_jdk`).
#[test]
fn a_test_of_what_the_fix_adds_passes_and_a_level_no_jdk_takes_is_unsupported_jdk() {
    let seed = seed();
    let mut s = Script::new();
    s.write("pom.xml", POM);
    s.write("src/main/java/org/acme/Calc.java", &calc_neg(false));
    s.write("src/test/java/org/acme/ZeroTest.java", OLD_TEST);
    s.commit("Initial import");
    s.write("src/main/java/org/acme/Calc.java", &calc_neg(true));
    s.write("src/test/java/org/acme/NegTest.java", NEG_TEST);
    s.commit("Fix add and add neg");
    s.write(
        "pom.xml",
        &POM.replace("<maven.compiler.release>8<", "<maven.compiler.release>99<"),
    );
    s.commit("Require Java 99");
    let v3 = calc_neg(true)
        .replace("return a + b;", "return b + a;")
        .replace("return -a;", "return 0 - a;");
    s.write("src/main/java/org/acme/Calc.java", &v3);
    s.write("src/test/java/org/acme/CalcTest.java", NEW_TEST);
    s.commit("Fix add and neg");
    let work = tempfile::tempdir().expect("tempdir");
    let recipe = recipe(work.path(), &s.dir);
    let out = work.path().join("out");
    let o = build(&recipe, &out, &work.path().join("cache"), &seed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let kept = rows(&out, "instances.jsonl");
    let rejected = rows(&out, "rejected.jsonl");
    assert_eq!(kept.len(), 1, "kept {kept:?}\nrejected {rejected:?}");
    assert_eq!(
        kept[0]["FAIL_TO_PASS"],
        serde_json::json!(["org.acme.NegTest::negates"]),
        "{}",
        kept[0]
    );
    assert!(
        kept[0]["validation"]["before_unbuilt"].is_string(),
        "{}",
        kept[0]["validation"]
    );
    let jdk: Vec<&Value> = rejected
        .iter()
        .filter(|r| r["reason"] == "unsupported_jdk")
        .collect();
    assert_eq!(jdk.len(), 1, "{rejected:?}");
    assert!(
        jdk[0]["detail"].as_str().is_some_and(|d| d.contains("99")),
        "{}",
        jdk[0]
    );
}

/// Without network for setup and without a seed, the environment cannot be resolved:
/// the instance is rejected, saying `dependency_unresolvable` and why.
#[test]
fn without_network_or_seed_the_dependencies_are_unresolvable() {
    let repo = history();
    let work = tempfile::tempdir().expect("tempdir");
    let recipe = recipe(work.path(), &repo.dir);
    let out = work.path().join("out");
    let o = build(
        &recipe,
        &out,
        &work.path().join("cache"),
        &work.path().join("no-seed"),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(rows(&out, "instances.jsonl").is_empty());
    let rejected = rows(&out, "rejected.jsonl");
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert_eq!(
        rejected[0]["reason"], "dependency_unresolvable",
        "{}",
        rejected[0]
    );
    let detail = rejected[0]["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("network") && detail.contains("HUNKGEN_MAVEN_SEED"),
        "{detail}"
    );
}

/// A fix that also changes the pom (hamcrest named as a test dependency of its own,
/// as a fix that needs a new library would): the environment is resolved at the base and
/// again at the changed tree, and the runs find what the changed pom names.
#[test]
fn a_fix_that_changes_the_pom_is_resolved_at_the_changed_tree_too() {
    let seed = seed();
    let mut s = Script::new();
    s.write("pom.xml", POM);
    s.write("src/main/java/org/acme/Calc.java", &calc(false));
    s.write("src/test/java/org/acme/ZeroTest.java", OLD_TEST);
    s.commit("Initial import");
    s.write(
        "pom.xml",
        &POM.replace(
            "  </dependencies>",
            "    <dependency>\n      <groupId>org.hamcrest</groupId>\n      \
             <artifactId>hamcrest-core</artifactId>\n      <version>1.3</version>\n      \
             <scope>test</scope>\n    </dependency>\n  </dependencies>",
        ),
    );
    s.write("src/main/java/org/acme/Calc.java", &calc(true));
    s.write(
        "src/test/java/org/acme/CalcTest.java",
        &NEW_TEST.replace(
            "import org.junit.Test;",
            "import org.hamcrest.CoreMatchers;\nimport org.junit.Test;",
        ),
    );
    s.commit("Fix add and mul");
    let work = tempfile::tempdir().expect("tempdir");
    let recipe = recipe(work.path(), &s.dir);
    let cache = work.path().join("cache");
    let out = work.path().join("out");
    let o = build(&recipe, &out, &cache, &seed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    proven_calc_test(&out);
    let logs = resolve_logs(&cache);
    assert_eq!(logs.len(), 1, "{logs:?}");
    let log = fs::read_to_string(cache.join("envs/logs").join(&logs[0])).expect("log");
    assert_eq!(log.matches("BUILD SUCCESS").count(), 2, "{log}");
}

/// A reactor of three modules (`app` depends on `core`, `tools` on nothing): the resolve
/// run selects a test of each, the fix in `core` is proven by a new test in `app`, whose
/// report is copied out of `app/target/surefire-reports`; the runs build `app` and what it
/// needs, never `tools`.
#[test]
fn a_two_module_reactor_is_validated_from_its_root() {
    let seed = seed();
    let module = |name: &str, deps: &str| {
        POM.replace(
            "<artifactId>calc</artifactId>\n  <version>1.0</version>\n  <packaging>jar</packaging>",
            &format!(
                "<parent><groupId>org.acme</groupId><artifactId>parent</artifactId>\
                 <version>1.0</version></parent>\n  <artifactId>{name}</artifactId>"
            ),
        )
        .replace("  <dependencies>\n", &format!("  <dependencies>\n{deps}"))
    };
    let root = POM
        .replace(
            "<artifactId>calc</artifactId>",
            "<artifactId>parent</artifactId>",
        )
        .replace(
            "<packaging>jar</packaging>",
            "<packaging>pom</packaging>\n  <modules><module>core</module><module>app</module>\
             <module>tools</module></modules>",
        );
    let core_dep = "    <dependency><groupId>org.acme</groupId><artifactId>core</artifactId>\
                    <version>1.0</version></dependency>\n";
    let mut s = Script::new();
    s.write("pom.xml", &root);
    s.write("core/pom.xml", &module("core", ""));
    s.write("app/pom.xml", &module("app", core_dep));
    s.write("tools/pom.xml", &module("tools", ""));
    s.write(
        "tools/src/test/java/org/acme/ToolZeroTest.java",
        &OLD_TEST
            .replace("ZeroTest", "ToolZeroTest")
            .replace("Calc.add(0, 0)", "0"),
    );
    s.write("core/src/main/java/org/acme/Calc.java", &calc(false));
    s.write("core/src/test/java/org/acme/ZeroTest.java", OLD_TEST);
    s.write(
        "app/src/test/java/org/acme/AppZeroTest.java",
        &OLD_TEST.replace("ZeroTest", "AppZeroTest"),
    );
    s.commit("Initial import");
    s.write("core/src/main/java/org/acme/Calc.java", &calc(true));
    s.write("app/src/test/java/org/acme/CalcTest.java", NEW_TEST);
    s.commit("Fix add and mul");
    let (_work, out, cache) = built(&s, &seed);
    let kept = proven_calc_test(&out);
    assert_eq!(
        kept[0]["validation"]["maven"]["modules"],
        serde_json::json!([".", "core", "app", "tools"])
    );
    let logs = resolve_logs(&cache);
    let log = fs::read_to_string(cache.join("envs/logs").join(&logs[0])).expect("log");
    // One test of each module ran, so each forked surefire.
    for t in [
        "Running org.acme.ZeroTest",
        "Running org.acme.AppZeroTest",
        "Running org.acme.ToolZeroTest",
    ] {
        assert!(log.contains(t), "{t} in {log}");
    }
    // The validation runs of the new test built `app` with `core` and the parent, and
    // not `tools` (a run of a tree without the test has no module to pick: the reactor).
    let runs: Vec<String> = run_logs(&out)
        .into_iter()
        .filter(|r| r.contains("Running org.acme.CalcTest"))
        .collect();
    assert!(
        !runs.is_empty(),
        "no run of CalcTest under {}",
        out.display()
    );
    for run in &runs {
        assert!(run.contains("Building app 1.0"), "{run}");
        assert!(run.contains("Building core 1.0"), "{run}");
        assert!(!run.contains("Building tools 1.0"), "{run}");
    }
}

/// The text of every validation run's log under a dataset's `logs/`.
fn run_logs(out: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut dirs = vec![out.join("logs")];
    while let Some(d) = dirs.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if let Ok(text) = fs::read_to_string(&p) {
                if text.contains("Building ") {
                    found.push(text);
                }
            }
        }
    }
    found
}

/// The history behind [`each_way_a_run_fails_has_its_own_reason`]: `Calc.add` is
/// wrong; four commits each fix it and add a test, and each fails to prove it its own way.
fn failing_history() -> Script {
    let jupiter = POM.replace(
        "  </dependencies>",
        "    <dependency>\n      <groupId>org.junit.jupiter</groupId>\n      \
         <artifactId>junit-jupiter-api</artifactId>\n      <version>5.10.2</version>\n      \
         <scope>test</scope>\n    </dependency>\n  </dependencies>",
    );
    let mut s = Script::new();
    s.write("pom.xml", &jupiter);
    s.write("src/main/java/org/acme/Calc.java", &calc(false));
    s.write("src/test/java/org/acme/ZeroTest.java", OLD_TEST);
    s.commit("Initial import");
    // 1. The fixed main code does not compile.
    s.write(
        "src/main/java/org/acme/Calc.java",
        &calc(true).replace("return a * b;", "return a * b"),
    );
    s.write("src/test/java/org/acme/CalcTest.java", NEW_TEST);
    s.commit("Fix add and mul, not compiling");
    // 2. The new test is a JUnit 5 class: surefire 2.22.2 without the platform engine
    //    takes JUnit 4's provider, which runs none of its tests.
    s.write("src/main/java/org/acme/Calc.java", &calc(false));
    s.commit("Initial import again");
    s.write("src/main/java/org/acme/Calc.java", &calc(true));
    s.write(
        "src/test/java/org/acme/JupiterTest.java",
        "package org.acme;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\n\
         import org.junit.jupiter.api.Test;\n\npublic class JupiterTest {\n    @Test\n    \
         public void adds() {\n        assertEquals(5, Calc.add(2, 3));\n        \
         assertEquals(6, Calc.mul(2, 3));\n    }\n}\n",
    );
    s.commit("Fix add and mul, tested with JUnit 5");
    // 3. Broken again, then fixed with a test that needs the network: it fails in the
    //    sandbox on both sides, so nothing goes from failing to passing.
    s.write("src/main/java/org/acme/Calc.java", &calc(false));
    s.commit("Initial import once more");
    s.write("src/main/java/org/acme/Calc.java", &calc(true));
    s.write(
        "src/test/java/org/acme/NetTest.java",
        &NEW_TEST.replace("CalcTest", "NetTest").replace(
            "        assertEquals(5, Calc.add(2, 3));",
            "        new java.net.URL(\"https://repo.maven.apache.org/maven2/\").openStream().close();\n        \
             assertEquals(5, Calc.add(2, 3));",
        ).replace("addsAndMultiplies()", "addsAndMultiplies() throws Exception"),
    );
    s.commit("Fix add and mul, tested online");
    s
}

/// A fix whose main code does not compile is `compile_error`; one whose new test class
/// runs no test is `zero_tests` (never a pass); one whose test needs the network fails in
/// the sandbox on both sides (`no_fail_to_pass`, the run's log saying why): each with
/// its own reason, none an infrastructure failure.
#[test]
fn each_way_a_run_fails_has_its_own_reason() {
    let seed = seed();
    let s = failing_history();
    let work = tempfile::tempdir().expect("tempdir");
    let recipe = recipe(work.path(), &s.dir);
    let out = work.path().join("out");
    let o = build(&recipe, &out, &work.path().join("cache"), &seed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let kept = rows(&out, "instances.jsonl");
    let rejected = rows(&out, "rejected.jsonl");
    assert!(kept.is_empty(), "kept {kept:?}");
    // Rejections name no commit: each reason once, each detail in its own words.
    let mut reasons: Vec<&str> = rejected
        .iter()
        .map(|r| r["reason"].as_str().unwrap_or_default())
        .collect();
    reasons.sort_unstable();
    assert_eq!(
        reasons,
        ["compile_error", "no_fail_to_pass", "zero_tests"],
        "{rejected:?}"
    );
    let detail = |reason: &str| -> String {
        rejected
            .iter()
            .find(|r| r["reason"] == reason)
            .and_then(|r| r["detail"].as_str())
            .unwrap_or_default()
            .to_string()
    };
    let d = detail("compile_error");
    assert!(
        d.starts_with("after run 0: compile_error: the main sources"),
        "{d}"
    );
    let d = detail("zero_tests");
    assert!(d.contains("zero_tests: Maven finished"), "{d}");
    // The network test failed on both sides: nothing reached the network.
    let d = detail("no_fail_to_pass");
    assert!(d.contains("f2f 1"), "{d}");
}

/// A pom at source level 1.5, which no JDK here compiles: JDK 11 builds it lifted to
/// 1.6 (as Defects4J does), recorded in `validation.maven`, and the fix is proven —
/// whether the level is a property (`-D` overrides it) or written in the compiler
/// plugin's configuration (which no `-D` overrides: the run's copy of the pom is lifted).
#[test]
fn a_source_level_below_every_jdk_is_lifted_and_recorded() {
    let seed = seed();
    let property = POM.replace(
        "<maven.compiler.release>8</maven.compiler.release>",
        "<maven.compiler.source>1.5</maven.compiler.source>\n    \
         <maven.compiler.target>1.5</maven.compiler.target>",
    );
    let explicit = POM
        .replace("<maven.compiler.release>8</maven.compiler.release>", "")
        .replace(
            "<version>3.8.1</version>\n      </plugin>",
            "<version>3.8.1</version>\n        <configuration>\n          \
             <source>1.5</source>\n          <target>1.5</target>\n        \
             </configuration>\n      </plugin>",
        );
    assert!(explicit.contains("<source>1.5</source>"), "{explicit}");
    for old in [property, explicit] {
        let s = history_with(&old);
        let work = tempfile::tempdir().expect("tempdir");
        let recipe = recipe(work.path(), &s.dir);
        let out = work.path().join("out");
        let o = build(&recipe, &out, &work.path().join("cache"), &seed);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let kept = proven_calc_test(&out);
        let mvn = &kept[0]["validation"]["maven"];
        assert_eq!(mvn["level"], 6, "{mvn}");
        assert_eq!(mvn["lifted_from"], 5, "{mvn}");
        assert!(
            mvn["jdk"].as_str().is_some_and(|v| v.starts_with("11")),
            "{mvn}"
        );
    }
}

/// A pom whose parent is a snapshot no repository has (`1.0-SNAPSHOT`; the seed has the
/// release `1.0`): the resolve step moves its copy of the pom to the release, installs
/// the release under the snapshot's coordinates and records the repair; the runs use the
/// commit's own pom offline and prove the fix.
#[test]
fn an_unreachable_snapshot_parent_is_resolved_at_its_release_and_recorded() {
    let seed = seed();
    let child = child_pom("parent", "1.0-SNAPSHOT", false);
    let s = history_with(&child);
    let work = tempfile::tempdir().expect("tempdir");
    let recipe = recipe(work.path(), &s.dir);
    let cache = work.path().join("cache");
    let out = work.path().join("out");
    let o = build(&recipe, &out, &cache, &seed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let kept = proven_calc_test(&out);
    assert_eq!(
        kept[0]["validation"]["maven"]["repairs"],
        serde_json::json!([
            "org.hunkgen.fixture:parent 1.0-SNAPSHOT -> 1.0 (the snapshot is unreachable)"
        ])
    );
    let logs = resolve_logs(&cache);
    assert_eq!(logs.len(), 2, "{logs:?}");
    assert!(
        logs.iter().any(|l| l.ends_with("-offline-repair1.log")),
        "{logs:?}"
    );
}

/// A tree holding a test that does not compile with the JDK chosen (an old test today's
/// javac refuses) which is no test of the instance: the resolve step and every run drop
/// it from their copy of the tree, say so in the run's log, and the fix is proven. When
/// the instance's own test class is the one that does not compile, nothing is dropped:
/// `test_compile_error`, naming Maven's goal and the compiler's first error.
#[test]
fn a_test_that_does_not_compile_is_dropped_unless_it_is_the_instances_own() {
    let seed = seed();
    let broken = "package org.acme;\n\npublic class BrokenTest {\n    int x = \"not an int\";\n}\n";
    let mut s = Script::new();
    s.write("pom.xml", POM);
    s.write("src/main/java/org/acme/Calc.java", &calc(false));
    s.write("src/test/java/org/acme/ZeroTest.java", OLD_TEST);
    s.write("src/test/java/org/acme/BrokenTest.java", broken);
    s.commit("Initial import");
    s.write("src/main/java/org/acme/Calc.java", &calc(true));
    s.write("src/test/java/org/acme/CalcTest.java", NEW_TEST);
    s.commit("Fix add and mul");
    // Broken again; the fix's own new test does not compile.
    s.write("src/main/java/org/acme/Calc.java", &calc(false));
    s.commit("Initial import again");
    s.write("src/main/java/org/acme/Calc.java", &calc(true));
    s.write(
        "src/test/java/org/acme/Calc2Test.java",
        &NEW_TEST
            .replace("CalcTest", "Calc2Test")
            .replace("assertEquals(5,", "assertEquals(\"5\" - 1,"),
    );
    s.commit("Fix add and mul again");
    let work = tempfile::tempdir().expect("tempdir");
    let recipe = recipe(work.path(), &s.dir);
    let out = work.path().join("out");
    let o = build(&recipe, &out, &work.path().join("cache"), &seed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let kept = proven_calc_test(&out);
    let id = kept[0]["instance_id"].as_str().expect("id");
    // The run's log lists what it dropped.
    let logs: Vec<String> = fs::read_dir(out.join("logs").join(id))
        .map(|d| {
            d.flatten()
                .filter_map(|e| fs::read_to_string(e.path()).ok())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        logs.iter()
            .any(|l| l.contains("hunkgen-dropped: src/test/java/org/acme/BrokenTest.java")),
        "no run log of {id} lists the dropped BrokenTest ({} logs)",
        logs.len()
    );
    let rejected = rows(&out, "rejected.jsonl");
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert_eq!(
        rejected[0]["reason"], "test_compile_error",
        "{}",
        rejected[0]
    );
    // The compiler named the instance's own Calc2Test, so nothing was dropped.
    let id = rejected[0]["id"].as_str().expect("id");
    let log =
        fs::read_to_string(out.join("logs").join(id).join("after-maven-0.log")).expect("after log");
    assert!(log.contains("Calc2Test.java:["), "{log}");
    assert!(!log.contains("hunkgen-dropped"), "{log}");
}

/// A pom whose tests live under `src/test/` (`testSourceDirectory`, as Commons Codec's
/// early poms): the new test is selected as its class from the declared root and the fix
/// is proven.
#[test]
fn tests_under_a_declared_test_root_are_selected_as_classes() {
    let seed = seed();
    let pom = POM.replace(
        "  <build>\n",
        "  <build>\n    <testSourceDirectory>src/test</testSourceDirectory>\n",
    );
    let mut s = Script::new();
    s.write("pom.xml", &pom);
    s.write("src/main/java/org/acme/Calc.java", &calc(false));
    s.write("src/test/org/acme/ZeroTest.java", OLD_TEST);
    s.commit("Initial import");
    s.write("src/main/java/org/acme/Calc.java", &calc(true));
    s.write("src/test/org/acme/CalcTest.java", NEW_TEST);
    s.commit("Fix add and mul");
    let work = tempfile::tempdir().expect("tempdir");
    let recipe = recipe(work.path(), &s.dir);
    let out = work.path().join("out");
    let o = build(&recipe, &out, &work.path().join("cache"), &seed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    proven_calc_test(&out);
}

/// A JUnit 5 project (Jupiter with its engine, surefire 3.2.5, the versions of
/// tests/fixtures/maven/seed5/pom.xml): surefire takes the JUnit Platform provider, the
/// new Jupiter test fails before the fix and passes after, and FAIL_TO_PASS names it as a
/// JUnit 4 test would be named (`Class::method`).
#[test]
fn a_junit5_test_under_surefire_3_is_proven() {
    let seed = seed();
    assert!(
        seed.join("org/apache/maven/surefire/surefire-junit-platform/3.2.5")
            .is_dir(),
        "{} lacks surefire 3's JUnit Platform provider: run `make maven-seed`",
        seed.display()
    );
    let pom = POM
        .replace(
            "      <groupId>junit</groupId>\n      <artifactId>junit</artifactId>\n      \
             <version>4.13.2</version>",
            "      <groupId>org.junit.jupiter</groupId>\n      \
             <artifactId>junit-jupiter</artifactId>\n      <version>5.10.2</version>",
        )
        .replace("<version>2.22.2</version>", "<version>3.2.5</version>");
    assert!(pom.contains("junit-jupiter") && pom.contains("3.2.5"));
    let jupiter = |t: &str| {
        t.replace(
            "org.junit.Assert.assertEquals",
            "org.junit.jupiter.api.Assertions.assertEquals",
        )
        .replace(
            "import org.junit.Test;",
            "import org.junit.jupiter.api.Test;",
        )
    };
    let mut s = Script::new();
    s.write("pom.xml", &pom);
    s.write("src/main/java/org/acme/Calc.java", &calc(false));
    s.write("src/test/java/org/acme/ZeroTest.java", &jupiter(OLD_TEST));
    s.commit("Initial import");
    s.write("src/main/java/org/acme/Calc.java", &calc(true));
    s.write("src/test/java/org/acme/CalcTest.java", &jupiter(NEW_TEST));
    s.commit("Fix add and mul");
    let work = tempfile::tempdir().expect("tempdir");
    let recipe = recipe(work.path(), &s.dir);
    let cache = work.path().join("cache");
    let out = work.path().join("out");
    let o = build(&recipe, &out, &cache, &seed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let kept = proven_calc_test(&out);
    // Jupiter ran it: the failure before the fix is opentest4j's, not JUnit 4's.
    let failure = &kept[0]["failures"][0];
    assert_eq!(failure["test"], "org.acme.CalcTest::addsAndMultiplies");
    assert!(
        failure["trace"]
            .as_str()
            .is_some_and(|t| t.starts_with("org.opentest4j.AssertionFailedError")),
        "{failure}"
    );
}

/// A fix whose test patch changes only an abstract test class: surefire runs no
/// abstract class, so its concrete subclass in the tree is selected, and the new test
/// method is proven under the subclass's name (Defects4J's Codec_1 has this shape).
#[test]
fn an_abstract_test_class_is_run_through_its_concrete_subclass() {
    let seed = seed();
    let abstract_test = |with_new: bool| {
        let new = if with_new {
            "    @Test\n    public void addsAndMultiplies() {\n        \
             assertEquals(5, Calc.add(2, 3));\n        assertEquals(6, Calc.mul(2, 3));\n    }\n"
        } else {
            ""
        };
        format!(
            "package org.acme;\n\nimport static org.junit.Assert.assertEquals;\n\n\
             import org.junit.Test;\n\npublic abstract class CalcContractTest {{\n    \
             @Test\n    public void zero() {{\n        assertEquals(0, Calc.add(0, 0));\n    }}\n{new}}}\n"
        )
    };
    let mut s = Script::new();
    s.write("pom.xml", POM);
    s.write("src/main/java/org/acme/Calc.java", &calc(false));
    s.write(
        "src/test/java/org/acme/CalcContractTest.java",
        &abstract_test(false),
    );
    s.write(
        "src/test/java/org/acme/IntCalcTest.java",
        "package org.acme;\n\npublic class IntCalcTest extends CalcContractTest {\n}\n",
    );
    s.commit("Initial import");
    s.write("src/main/java/org/acme/Calc.java", &calc(true));
    s.write(
        "src/test/java/org/acme/CalcContractTest.java",
        &abstract_test(true),
    );
    s.commit("Fix add and mul");
    proves(
        &s,
        &seed,
        "org.acme.IntCalcTest::addsAndMultiplies",
        "org.acme.IntCalcTest::zero",
    );
}

/// The history `s` built offline from `seed` keeps one instance, whose FAIL_TO_PASS and
/// PASS_TO_PASS are the one test each named.
fn proves(s: &Script, seed: &Path, fail_to_pass: &str, pass_to_pass: &str) {
    let work = tempfile::tempdir().expect("tempdir");
    let recipe = recipe(work.path(), &s.dir);
    let out = work.path().join("out");
    let o = build(&recipe, &out, &work.path().join("cache"), seed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let kept = rows(&out, "instances.jsonl");
    assert_eq!(kept.len(), 1, "rejected {:?}", rows(&out, "rejected.jsonl"));
    assert_eq!(kept[0]["FAIL_TO_PASS"], serde_json::json!([fail_to_pass]));
    assert_eq!(kept[0]["PASS_TO_PASS"], serde_json::json!([pass_to_pass]));
}

/// A fix whose test patch changes only a helper of the test tree (a list of cases, no
/// test in it): surefire runs nothing for the helper, so the test classes that name it
/// are selected, and the case it adds is proven under their names; a test class that
/// does not name it stays out (commons-rng's RNG-96 fix has this shape).
#[test]
fn a_changed_test_helper_is_run_through_the_test_classes_that_use_it() {
    let seed = seed();
    let cases = |with_new: bool| {
        format!(
            "package org.acme;\n\nfinal class CalcCases {{\n    \
             static final int[][] CASES = {{\n        {{0, 0, 0, 0}},\n{}    }};\n}}\n",
            if with_new {
                "        {2, 3, 5, 6},\n"
            } else {
                ""
            }
        )
    };
    let mut s = Script::new();
    s.write("pom.xml", POM);
    s.write("src/main/java/org/acme/Calc.java", &calc(false));
    s.write("src/test/java/org/acme/CalcCases.java", &cases(false));
    s.write(
        "src/test/java/org/acme/CalcCasesTest.java",
        "package org.acme;\n\nimport static org.junit.Assert.assertEquals;\n\n\
         import org.junit.Test;\n\npublic class CalcCasesTest {\n    @Test\n    \
         public void cases() {\n        for (int[] c : CalcCases.CASES) {\n            \
         assertEquals(c[2], Calc.add(c[0], c[1]));\n            \
         assertEquals(c[3], Calc.mul(c[0], c[1]));\n        }\n    }\n\n    @Test\n    \
         public void zero() {\n        assertEquals(0, Calc.add(0, 0));\n    }\n}\n",
    );
    s.write("src/test/java/org/acme/ZeroTest.java", OLD_TEST);
    s.commit("Initial import");
    s.write("src/main/java/org/acme/Calc.java", &calc(true));
    s.write("src/test/java/org/acme/CalcCases.java", &cases(true));
    s.commit("Fix add and mul");
    proves(
        &s,
        &seed,
        "org.acme.CalcCasesTest::cases",
        "org.acme.CalcCasesTest::zero",
    );
}

/// A pom that names no level and inherits source 1.3 from an old released parent
/// (org.hunkgen.fixture:parent-old, in the seed): no pom of the tree says so, and javac
/// refuses it in the resolve step. The refused level is then taken as the tree's: JDK
/// 11 compiles it lifted to 1.6 (as a declared 1.3 would be), recorded with why, and
/// the fix is proven (Defects4J's Cli bugs inherit 1.3 from commons-parent this way).
#[test]
fn a_level_inherited_from_an_external_parent_is_lifted_when_javac_refuses_it() {
    let mvn = &proven_maven_record(&child_pom("parent-old", "1.0", true));
    assert_eq!(mvn["lifted_from"], 3, "{mvn}");
    assert_eq!(mvn["level"], 6, "{mvn}");
    assert!(
        mvn["jdk"].as_str().is_some_and(|v| v.starts_with("11")),
        "{mvn}"
    );
    assert!(
        mvn["chosen"]
            .as_str()
            .is_some_and(|w| w.contains("inherited from outside the tree")),
        "{mvn}"
    );
}

/// The calc build proven on the seed's Maven 3.9.16, its record saying `why`.
fn ran_on_seeded_maven(out: &Path, why: &str) {
    let kept = proven_calc_test(out);
    let mvn = &kept[0]["validation"]["maven"];
    assert!(
        mvn["maven"]
            .as_str()
            .is_some_and(|v| v.starts_with("Apache Maven 3.9.16")),
        "{mvn}"
    );
    assert!(
        mvn["maven_from"].as_str().is_some_and(|w| w.contains(why)),
        "{mvn}"
    );
}

/// `POM` with apache-rat-plugin 0.18 bound to `validate`, as commons-validator binds it
/// since 2025: its descriptor requires Maven 3.9 (tests/fixtures/maven/seed39).
fn rat_pom() -> String {
    POM.replace(
        "    </plugins>",
        "      <plugin>\n        <groupId>org.apache.rat</groupId>\n        \
         <artifactId>apache-rat-plugin</artifactId>\n        <version>0.18</version>\n        \
         <executions>\n          <execution>\n            <id>rat-check</id>\n            \
         <phase>validate</phase>\n            <goals><goal>check</goal></goals>\n          \
         </execution>\n        </executions>\n      </plugin>\n    </plugins>",
    )
}

#[test]
fn a_plugin_that_refuses_the_installed_maven_gets_a_maven_it_takes() {
    let seed = seed();
    assert!(
        seed.join("org/apache/maven/apache-maven/3.9.16/apache-maven-3.9.16-bin.tar.gz")
            .is_file(),
        "the seed lacks Maven 3.9.16's distribution: run `make maven-seed`"
    );
    let s = history_with(&rat_pom());
    let work = tempfile::tempdir().expect("tempdir");
    let recipe = recipe(work.path(), &s.dir);
    let out = work.path().join("out");
    let cache = work.path().join("cache");
    let o = build(&recipe, &out, &cache, &seed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    ran_on_seeded_maven(
        &out,
        "org.apache.rat:apache-rat-plugin:0.18 requires Maven 3.9",
    );
    // The installed Maven's resolve was refused; the second key resolved with 3.9.16,
    // unpacked once from the seed's tarball into the environment cache.
    assert_eq!(resolve_logs(&cache).len(), 2, "{:?}", resolve_logs(&cache));
    assert!(cache.join("envs/.maven/3.9.16/bin/mvn").is_file());
    // The runs went through it too: under Maven 3.8 the plugin refuses every run.
    // A warm build knows the refusal: it runs no resolve again (every log as it was),
    // and the instance is the same.
    let written = |cache: &Path| -> Vec<(String, std::time::SystemTime)> {
        let mut v: Vec<_> = resolve_logs(cache)
            .into_iter()
            .map(|n| {
                let at = fs::metadata(cache.join("envs/logs").join(&n))
                    .and_then(|m| m.modified())
                    .expect("mtime");
                (n, at)
            })
            .collect();
        v.sort();
        v
    };
    let before = written(&cache);
    let again = work.path().join("again");
    let o = build(&recipe, &again, &cache, &seed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(written(&cache), before);
    ran_on_seeded_maven(
        &again,
        "org.apache.rat:apache-rat-plugin:0.18 requires Maven 3.9",
    );
}

#[test]
fn a_wrapper_naming_a_newer_maven_is_run_with_that_maven() {
    let seed = seed();
    let s = history_files(
        POM,
        &[(
            ".mvn/wrapper/maven-wrapper.properties",
            "distributionUrl=https://repo.maven.apache.org/maven2/org/apache/maven/apache-maven/\
             3.9.16/apache-maven-3.9.16-bin.zip\n",
        )],
    );
    let work = tempfile::tempdir().expect("tempdir");
    let recipe = recipe(work.path(), &s.dir);
    let out = work.path().join("out");
    let cache = work.path().join("cache");
    let o = build(&recipe, &out, &cache, &seed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    ran_on_seeded_maven(&out, "the wrapper names Maven 3.9.16");
    // init says which Maven the wrapper names.
    let said = init(&s.dir, &work.path().join("init.yaml"));
    assert!(said.contains("the wrapper's Maven 3.9.16"), "{said}");
    assert_eq!(resolve_logs(&cache).len(), 1, "{:?}", resolve_logs(&cache));
}

#[test]
fn a_new_key_resolves_offline_into_the_repository_of_the_clone() {
    // Build 1 resolves the first fix's key from the seed. Then a commit adds a
    // description to the pom (a new key, the same artifacts) and a second fix follows:
    // build 2 has neither seed nor network, and still resolves that key offline, in
    // the local repository build 1 filled, which both keys share.
    let seed = seed();
    let mut s = history();
    let work = tempfile::tempdir().expect("tempdir");
    let recipe = recipe(work.path(), &s.dir);
    let cache = work.path().join("cache");
    let out = work.path().join("out");
    let o = build(&recipe, &out, &cache, &seed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    proven_calc_test(&out);
    let envs = |cache: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = fs::read_dir(cache.join("envs"))
            .expect("envs")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("hunkgen-env.json").is_file())
            .collect();
        v.sort();
        v
    };
    let first = envs(&cache);
    assert_eq!(first.len(), 1, "{first:?}");
    s.write(
        "pom.xml",
        &POM.replace(
            "  <packaging>jar</packaging>\n",
            "  <packaging>jar</packaging>\n  <description>Arithmetic.</description>\n",
        ),
    );
    s.write(
        "src/main/java/org/acme/Calc2.java",
        &calc(false).replace("class Calc", "class Calc2"),
    );
    s.commit("Describe the project; a second calculator");
    s.write(
        "src/main/java/org/acme/Calc2.java",
        &calc(true).replace("class Calc", "class Calc2"),
    );
    s.write(
        "src/test/java/org/acme/Calc2Test.java",
        &NEW_TEST
            .replace("CalcTest", "Calc2Test")
            .replace("Calc.", "Calc2."),
    );
    s.commit("Fix add and mul of the second calculator");
    let no_seed = work.path().join("no-seed");
    fs::create_dir_all(&no_seed).expect("mkdir");
    let out2 = work.path().join("out2");
    let o = build(&recipe, &out2, &cache, &no_seed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let kept = rows(&out2, "instances.jsonl");
    assert_eq!(
        kept.len(),
        2,
        "kept {kept:?}\nrejected {:?}",
        rows(&out2, "rejected.jsonl")
    );
    assert!(
        kept.iter()
            .any(|r| r["FAIL_TO_PASS"]
                == serde_json::json!(["org.acme.Calc2Test::addsAndMultiplies"]))
    );
    let all = envs(&cache);
    assert_eq!(all.len(), 2, "{all:?}");
    // One local repository, which both environments link to.
    let pools: Vec<PathBuf> = fs::read_dir(cache.join("envs/.pools"))
        .expect("pools")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(pools.len(), 1, "{pools:?}");
    for env in &all {
        let link = env.join("repository");
        assert!(
            fs::symlink_metadata(&link)
                .expect("repository")
                .file_type()
                .is_symlink(),
            "{link:?}"
        );
        assert_eq!(
            fs::canonicalize(&link).expect("target"),
            fs::canonicalize(pools[0].join("repository")).expect("pool")
        );
    }
    // Offline only: no online resolve log was written for it.
    assert!(
        resolve_logs(&cache).iter().all(|l| !l.contains("online")),
        "{:?}",
        resolve_logs(&cache)
    );
}

/// A history from before its pom.xml (a Maven 1 `project.xml` and an Ant `build.xml`,
/// tests under `src/test/`, as commons-cli and commons-codec were until 2007): the
/// candidate is rejected as `build_tool_unavailable`, its line naming the build the tree
/// has, and no Maven runs.
#[test]
fn a_maven_1_and_ant_tree_is_named_for_its_build() {
    let seed = seed();
    let mut s = Script::new();
    s.write(
        "project.xml",
        "<project><pomVersion>3</pomVersion></project>\n",
    );
    s.write("build.xml", "<project name=\"calc\" default=\"test\"/>\n");
    s.write("src/java/org/acme/Calc.java", &calc(false));
    s.write("src/test/org/acme/ZeroTest.java", OLD_TEST);
    s.commit("Initial import");
    s.write("src/java/org/acme/Calc.java", &calc(true));
    s.write("src/test/org/acme/CalcTest.java", NEW_TEST);
    s.commit("Fix add and mul");
    let (_work, out, cache) = built(&s, &seed);
    assert!(rows(&out, "instances.jsonl").is_empty());
    let rejected = rows(&out, "rejected.jsonl");
    let r = rejected
        .iter()
        .find(|r| r["stage"] == "validate")
        .unwrap_or_else(|| panic!("no validation rejection: {rejected:?}"));
    assert_eq!(r["reason"], "build_tool_unavailable", "{r}");
    let detail = r["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("Maven 1 (project.xml) and Ant (build.xml)"),
        "{detail}"
    );
    assert!(resolve_logs(&cache).is_empty(), "nothing is resolved");
}
