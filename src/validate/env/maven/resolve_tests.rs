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
