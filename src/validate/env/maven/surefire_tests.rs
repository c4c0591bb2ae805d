use super::*;

/// Maven's line when surefire 2.20.1 breaks on JDK 11 (commons-jexl 2019, as logged) and
/// on JDK 17 (a helpful NullPointerException message).
const ON_11: &str = "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:2.20.1:test \
(default-test) on project commons-jexl3: Execution default-test of goal \
org.apache.maven.plugins:maven-surefire-plugin:2.20.1:test failed. NullPointerException -> [Help 1]";
const ON_17: &str =
    "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:2.20.1:test \
(default-test) on project calc: Execution default-test of goal \
org.apache.maven.plugins:maven-surefire-plugin:2.20.1:test failed: Cannot invoke \
\"org.apache.maven.surefire.shade.org.apache.commons.lang3.JavaVersion.atLeast(...)\" because \
\"...SystemUtils.JAVA_SPECIFICATION_VERSION_AS_ENUM\" is null -> [Help 1]";

#[test]
fn an_old_surefire_that_broke_is_found_and_a_new_one_or_failing_tests_are_not() {
    assert_eq!(failed_old(ON_11).as_deref(), Some("2.20.1"));
    assert_eq!(failed_old(ON_17).as_deref(), Some("2.20.1"));
    // 2.21 and later are not moved; failing tests are no broken plugin.
    assert_eq!(failed_old(&ON_11.replace("2.20.1", "2.22.0")), None);
    assert_eq!(
        failed_old(
            "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:2.20:test \
             (default-test) on project x: There are test failures."
        ),
        None
    );
    assert!(before_2_21("2.19.1") && before_2_21("2.20") && before_2_21("1.9"));
    assert!(!before_2_21("2.21.0") && !before_2_21("3.0.0-M5") && !before_2_21("x"));
}

const PLUGIN: &str = "<project><build><pluginManagement><plugins><plugin>\n\
    <groupId>org.apache.maven.plugins</groupId>\n    <artifactId>maven-surefire-plugin</artifactId>\n    \
    <version>VERSION</version>\n  </plugin></plugins></pluginManagement></build></project>\n";

#[test]
fn where_the_version_is_set_decides_how_it_moves() {
    let with = |v: &str| PLUGIN.replace("VERSION", v);
    let plain = "<project><build><plugins><plugin><artifactId>maven-jar-plugin</artifactId>\
                 <version>3.0</version></plugin></plugins></build></project>"
        .to_string();
    // commons-parent's way: a property in a parent outside the tree.
    assert_eq!(
        version_source(
            std::slice::from_ref(&plain),
            &[with("${commons.surefire.version}")]
        ),
        Some(How::Property("commons.surefire.version".into()))
    );
    // In the tree: a literal is rewritten, a property overridden; the tree comes first.
    assert_eq!(
        version_source(&[plain.clone(), with("2.20.1")], &[with("${p}")]),
        Some(How::Literal)
    );
    assert_eq!(
        version_source(&[with("${surefire.version}")], &[]),
        Some(How::Property("surefire.version".into()))
    );
    // A literal in a parent cannot be moved from here; nothing declared, nothing to do.
    assert_eq!(
        version_source(std::slice::from_ref(&plain), &[with("2.20.1")]),
        None
    );
    assert_eq!(version_source(&[plain], &[]), None);
    let u = Upgrade {
        from: "2.20.1".into(),
        how: How::Property("commons.surefire.version".into()),
    };
    assert_eq!(
        u.arg().as_deref(),
        Some("-Dcommons.surefire.version=2.22.2")
    );
    assert!(u
        .describe()
        .starts_with("maven-surefire-plugin 2.20.1 -> 2.22.2"));
}

/// The literal moves in Rust and in the run's `sed -z` alike; a property and another
/// plugin's version stay.
#[test]
fn a_literal_version_is_rewritten_in_rust_and_in_the_shell() {
    let pom = format!(
        "{}<plugin><artifactId>maven-surefire-plugin</artifactId><version>${{v}}</version></plugin>\n\
         <plugin><artifactId>maven-jar-plugin</artifactId>\n<version>2.20.1</version></plugin>\n",
        PLUGIN.replace("VERSION", "2.20.1")
    );
    let want = pom.replacen("<version>2.20.1</version>", "<version>2.22.2</version>", 1);
    assert_eq!(literal_pom(&pom), want);
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("pom.xml");
    fs::write(&f, &pom).expect("pom");
    let ok = std::process::Command::new("sed")
        .args(["-z", "-i", "-E", &LITERAL_SED.replace("VERSION", TO)])
        .arg(&f)
        .status()
        .expect("sed runs");
    assert!(ok.success());
    assert_eq!(fs::read_to_string(&f).expect("read"), want);
}

/// A property goes to the reactor root's `.mvn/maven.config`, once, after what the tree
/// already had there.
#[test]
fn a_property_is_set_in_the_roots_maven_config() {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::create_dir_all(dir.path().join("gson/.mvn")).expect("dir");
    fs::write(dir.path().join("gson/.mvn/maven.config"), "-Dx=1").expect("config");
    let u = Upgrade {
        from: "2.20".into(),
        how: How::Property("surefire.version".into()),
    };
    let arg = u.arg().expect("a property's argument");
    let root = dir.path().join("gson");
    assert!(configure(&root, &arg).expect("configure"));
    assert!(!configure(&root, &arg).expect("again"));
    assert_eq!(
        fs::read_to_string(dir.path().join("gson/.mvn/maven.config")).expect("read"),
        "-Dx=1\n-Dsurefire.version=2.22.2\n"
    );
}
