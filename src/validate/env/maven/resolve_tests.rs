//! Unit tests of resolve.rs.
use super::*;

#[test]
fn a_parent_no_repository_serves_is_unresolvable_and_a_compile_error_is_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("resolve.log");
    // Maven 3.8's words for commons-io's 2006 pom (hunkgen's zero-config run).
    fs::write(&log, "[ERROR] [ERROR] Some problems were encountered while processing the POMs:\n[ERROR]     Non-resolvable parent POM for org.apache.commons:commons-io:1.3-SNAPSHOT: Could not find artifact org.apache.commons:commons:pom:1 in central (https://repo.maven.apache.org/maven2) and 'parent.relativePath' points at wrong local POM @ line 22, column 11 -> [Help 2]\n").expect("write");
    assert!(unresolved_in(&log));
    fs::write(
        &log,
        "[ERROR] COMPILATION ERROR :\n[ERROR] /src/A.java:[3,1] cannot find symbol\n",
    )
    .expect("write");
    assert!(!unresolved_in(&log));
    // A non-error line quoting the words is not Maven failing.
    fs::write(
        &log,
        "[INFO] Non-resolvable parent POM mentioned in a test name\n",
    )
    .expect("write");
    assert!(!unresolved_in(&log));
}

/// Run by `/bin/sh` in a tree, the clean removes the root's and a module's `target/`
/// and keeps a directory named `target` that is no module's output (no pom beside it).
#[test]
fn a_resolve_attempt_starts_without_earlier_build_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    for f in [
        "pom.xml",
        "target/classes/A.class",
        "core/pom.xml",
        "core/target/classes/B.class",
        "core/src/main/java/org/target/C.java",
    ] {
        let p = d.join(f);
        fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        fs::write(&p, "x").expect("write");
    }
    let o = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("{CLEAN_TARGETS}echo done"))
        .current_dir(d)
        .output()
        .expect("sh");
    assert_eq!(String::from_utf8_lossy(&o.stdout), "done\n", "{o:?}");
    assert!(!d.join("target").exists());
    assert!(!d.join("core/target").exists());
    assert!(d.join("core/src/main/java/org/target/C.java").exists());
    assert!(d.join("core/pom.xml").exists());
}

/// A plugin whose own dependency is served nowhere is a dependency no repository
/// serves, not an unnamed environment failure.
#[test]
fn a_plugin_dependency_served_nowhere_is_unresolvable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("resolve.log");
    // Maven 3.8's words for gson's 2026 pom (hunkgen's zero-config run).
    fs::write(&log, "[ERROR] Failed to execute goal com.github.wvengen:proguard-maven-plugin:2.7.0:proguard (obfuscate-test-class) on project gson: Execution obfuscate-test-class of goal com.github.wvengen:proguard-maven-plugin:2.7.0:proguard failed: Plugin com.github.wvengen:proguard-maven-plugin:2.7.0 or one of its dependencies could not be resolved: com.guardsquare:proguard-core:jar:9.3.0 was not found in https://repo.maven.apache.org/maven2 during a previous attempt. -> [Help 1]\n").expect("write");
    assert!(unresolved_in(&log));
}

/// Maven's words when a dependency is JDK 8's `tools.jar` (javapoet 2016 under JDK
/// 11), and an unrelated missing artifact.
#[test]
fn a_dependency_on_the_jdks_tools_jar_is_read_from_the_log() {
    assert!(needs_tools_jar("[ERROR] Failed to execute goal on project javapoet: Could not resolve dependencies for project com.squareup:javapoet:jar:1.8.0-SNAPSHOT: Could not find artifact com.sun:tools:jar:11.0.24 at specified path /usr/lib/jvm/java-11-openjdk-amd64/../lib/tools.jar -> [Help 1]"));
    assert!(!needs_tools_jar("[ERROR] Failed to execute goal on project javapoet: Could not resolve dependencies for project com.squareup:javapoet:jar:1.7.0-SNAPSHOT: Could not find artifact com.google.testing.compile:compile-testing:jar:1.0 in central"));
}
