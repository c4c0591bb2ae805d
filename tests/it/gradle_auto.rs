//! `env: gradle: auto` where no Gradle distribution is installed (these machines cannot
//! download one: Gradle is published only on services.gradle.org). `hunkgen init` on a
//! Gradle tree writes the suite and says the distribution is missing; `hunkgen build`
//! rejects each instance as `build_tool_unavailable` in one line naming the wrapper's
//! version and every place looked at, and downloads nothing.

use crate::common::{hunkgen, validation_env, Script};
use serde_json::Value;
use std::fs;

const BUILD: &str = "plugins { id 'java' }\nrepositories { mavenCentral() }\n\
dependencies { testImplementation 'junit:junit:4.13.2' }\n";

const WRAPPER: &str = "distributionBase=GRADLE_USER_HOME\ndistributionPath=wrapper/dists\n\
distributionUrl=https\\://services.gradle.org/distributions/gradle-8.5-bin.zip\n";

fn calc(op: &str) -> String {
    format!(
        "package org.acme;\n\npublic class Calc {{\n    public static int add(int a, int b) {{\n        \
         return a {op} b;\n    }}\n{pad}\n    public static int sub(int a, int b) {{\n        return a {op} b;\n    }}\n}}\n",
        pad = "\n    // padding\n".repeat(8)
    )
}

#[test]
fn without_a_gradle_distribution_each_instance_is_build_tool_unavailable() {
    let mut s = Script::new();
    s.write("build.gradle", BUILD);
    s.write("settings.gradle", "rootProject.name = 'calc'\n");
    s.write("gradle/wrapper/gradle-wrapper.properties", WRAPPER);
    s.write("src/main/java/org/acme/Calc.java", &calc("*"));
    s.commit("Initial import");
    s.write(
        "src/main/java/org/acme/Calc.java",
        &calc("-").replacen("a - b", "a + b", 1),
    );
    s.write(
        "src/test/java/org/acme/CalcTest.java",
        "package org.acme;\n\nimport static org.junit.Assert.assertEquals;\n\nimport org.junit.Test;\n\n\
         public class CalcTest {\n    @Test\n    public void adds() {\n        assertEquals(5, Calc.add(2, 3));\n    }\n}\n",
    );
    s.commit("Fix add and sub");
    let work = tempfile::tempdir().expect("tempdir");
    let gradle_home = work.path().join("gradle-user-home");
    fs::create_dir_all(&gradle_home).expect("dir");
    // No distribution anywhere: an empty wrapper cache, no GRADLE_HOME, and this PATH
    // without any directory that holds a gradle.
    let path: String = std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .filter(|d| !std::path::Path::new(d).join("gradle").exists())
        .collect::<Vec<_>>()
        .join(":");
    let recipe = work.path().join("recipe.yaml");
    let o = hunkgen()
        .arg("init")
        .arg(&s.dir)
        .arg("-o")
        .arg(&recipe)
        .env("GRADLE_USER_HOME", &gradle_home)
        .env_remove("GRADLE_HOME")
        .env("PATH", &path)
        .output()
        .expect("init");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        said.contains("Gradle build (build.gradle): env `gradle: auto`; at HEAD the wrapper asks for Gradle 8.5: not on this machine"),
        "{said}"
    );
    let text = fs::read_to_string(&recipe).expect("recipe");
    assert!(
        text.contains("        gradle: auto\n      report: junit\n"),
        "{text}"
    );
    // The recipe as init wrote it.
    let out = work.path().join("out");
    let o = hunkgen()
        .args(["build", "-q"])
        .arg(&recipe)
        .arg("-o")
        .arg(&out)
        .envs(validation_env())
        .env("HUNKGEN_CACHE_DIR", work.path().join("cache"))
        .env("GRADLE_USER_HOME", &gradle_home)
        .env_remove("GRADLE_HOME")
        .env("PATH", &path)
        .output()
        .expect("build");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rejected: Vec<Value> = fs::read_to_string(out.join("rejected.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let tool: Vec<&Value> = rejected
        .iter()
        .filter(|r| r["reason"] == "build_tool_unavailable")
        .collect();
    assert_eq!(tool.len(), 1, "{rejected:?}");
    let detail = tool[0]["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("the tree builds with Gradle 8.5 (its wrapper's distributionUrl), which is not on this machine")
            && detail.contains("wrapper/dists/gradle-8.5-bin")
            && !detail.contains('\n'),
        "{detail}"
    );
    // Nothing was downloaded into the wrapper's cache.
    assert_eq!(fs::read_dir(&gradle_home).expect("dir").count(), 0);
    assert_eq!(
        fs::read_to_string(out.join("instances.jsonl")).unwrap_or_default(),
        ""
    );
}
