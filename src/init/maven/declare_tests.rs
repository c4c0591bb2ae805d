//! Tests of the declare phase: reactors fed as text, and one read back from git.

use super::*;

const NS: &str = concat!(
    r#"xmlns="http://maven.apache.org/POM/4.0.0" "#,
    r#"xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" "#,
    r#"xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 "#,
    r#"http://maven.apache.org/xsd/maven-4.0.0.xsd""#
);

/// `declare` over a tree given as (path, text) pairs, at a fixed time.
fn declare_files(files: &[(&str, &str)]) -> Result<MavenDeclared, String> {
    let map: HashMap<String, String> = files
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    let mut paths: Vec<String> = map.keys().cloned().collect();
    paths.sort();
    let read = move |p: &str| map.get(p).cloned();
    declare(&read, &paths, 1_500_000_000)
}

fn dirs(d: &MavenDeclared) -> Vec<&str> {
    d.modules.iter().map(|m| m.dir.as_str()).collect()
}

fn module<'d>(d: &'d MavenDeclared, dir: &str) -> &'d MavenModule {
    d.modules
        .iter()
        .find(|m| m.dir == dir)
        .unwrap_or_else(|| panic!("no module {dir} in {:?}", dirs(d)))
}

fn parent_pom(ns: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<project {ns}>
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.acme</groupId>
  <artifactId>acme-parent</artifactId>
  <version>1.0</version>
  <packaging>pom</packaging>
  <properties>
    <java.version>1.8</java.version>
    <maven.compiler.source>${{java.version}}</maven.compiler.source>
    <maven.compiler.target>${{java.version}}</maven.compiler.target>
  </properties>
  <modules>
    <module>core</module>
    <module>app/</module>
  </modules>
</project>"#
    )
}

fn child_pom(ns: &str, artifact: &str, build: &str) -> String {
    format!(
        r#"<project {ns}>
  <parent>
    <groupId>org.acme</groupId>
    <artifactId>acme-parent</artifactId>
    <version>1.0</version>
  </parent>
  <artifactId>{artifact}</artifactId>
  <build>{build}</build>
</project>"#
    )
}

#[test]
fn a_reactor_inherits_the_level_its_parent_defines_through_a_property() {
    let root = parent_pom(NS);
    let core = child_pom(NS, "core", "");
    let app = child_pom(
        NS,
        "app",
        "<testSourceDirectory>${project.basedir}/src/it/java</testSourceDirectory>\
         <sourceDirectory>src/java</sourceDirectory>",
    );
    let d = declare_files(&[
        ("pom.xml", &root),
        ("core/pom.xml", &core),
        ("app/pom.xml", &app),
        ("core/src/main/java/A.java", "class A {}"),
    ])
    .expect("declares");
    assert_eq!(d.root, "pom.xml");
    assert_eq!(dirs(&d), [".", "core", "app"]);
    let core = module(&d, "core");
    assert_eq!(core.pom, "core/pom.xml");
    assert_eq!(core.source_roots, ["core/src/main/java"]);
    assert_eq!(core.test_source_roots, ["core/src/test/java"]);
    let level = core.java_level.as_ref().expect("core has a level");
    assert_eq!((level.level, level.written.as_str()), (8, "1.8"));
    assert_eq!(
        level.origin,
        "property maven.compiler.source ${java.version}"
    );
    let app = module(&d, "app");
    assert_eq!(app.source_roots, ["app/src/java"]);
    assert_eq!(app.test_source_roots, ["app/src/it/java"]);
    assert_eq!(d.java_level.as_ref().map(|l| l.level), Some(8));
    assert_eq!(d.commit_time, 1_500_000_000);
    assert_eq!(d.build_files, ["app/pom.xml", "core/pom.xml", "pom.xml"]);
}

#[test]
fn a_compiler_release_overrides_the_properties_and_a_childs_source() {
    let root = format!(
        r#"<project {NS}>
  <artifactId>acme-parent</artifactId>
  <properties>
    <maven.compiler.source>1.7</maven.compiler.source>
    <maven.compiler.release>9</maven.compiler.release>
    <jdk.release>11</jdk.release>
  </properties>
  <modules><module>core</module></modules>
  <build><pluginManagement><plugins>
    <plugin>
      <groupId>org.apache.maven.plugins</groupId>
      <artifactId>maven-compiler-plugin</artifactId>
      <configuration><release>${{jdk.release}}</release></configuration>
    </plugin>
  </plugins></pluginManagement></build>
</project>"#
    );
    let core = child_pom(
        NS,
        "core",
        "<plugins><plugin><artifactId>maven-compiler-plugin</artifactId>\
         <configuration><source>1.6</source></configuration></plugin></plugins>",
    );
    let d = declare_files(&[("pom.xml", &root), ("core/pom.xml", &core)]).expect("declares");
    for m in &d.modules {
        let l = m.java_level.as_ref().expect("a level");
        assert_eq!(l.level, 11, "{}", m.dir);
        assert_eq!(l.written, "11");
        assert_eq!(
            l.origin,
            "pom.xml: maven-compiler-plugin <release> ${jdk.release}"
        );
    }
    // Without the <release>, the maven.compiler.release property still sets the
    // plugin's release, which wins over the child's own <source>.
    let root_no_release = root.replace("<release>${jdk.release}</release>", "");
    let d =
        declare_files(&[("pom.xml", &root_no_release), ("core/pom.xml", &core)]).expect("declares");
    let core_level = module(&d, "core").java_level.clone().expect("a level");
    assert_eq!(core_level.level, 9);
    assert_eq!(core_level.origin, "property maven.compiler.release");
    // With no release at all, the child's <source> wins over the source property.
    let root_no_release =
        root_no_release.replace("<maven.compiler.release>9</maven.compiler.release>", "");
    let d =
        declare_files(&[("pom.xml", &root_no_release), ("core/pom.xml", &core)]).expect("declares");
    let core_level = module(&d, "core").java_level.clone().expect("a level");
    assert_eq!((core_level.level, core_level.written.as_str()), (6, "1.6"));
    assert_eq!(
        core_level.origin,
        "core/pom.xml: maven-compiler-plugin <source>"
    );
    let root_level = module(&d, ".").java_level.clone().expect("a level");
    assert_eq!(root_level.level, 7, "the source property");
    // The tree's level is the highest of its modules.
    assert_eq!(d.java_level.map(|l| l.level), Some(7));
}

#[test]
fn namespaced_and_namespace_less_poms_read_alike() {
    let with = declare_files(&[
        ("pom.xml", &parent_pom(NS)),
        ("core/pom.xml", &child_pom(NS, "core", "")),
        ("app/pom.xml", &child_pom(NS, "app", "")),
    ])
    .expect("namespaced");
    let without = declare_files(&[
        ("pom.xml", &parent_pom("")),
        ("core/pom.xml", &child_pom("", "core", "")),
        ("app/pom.xml", &child_pom("", "app", "")),
    ])
    .expect("no namespace");
    assert_eq!(with, without);
    assert_eq!(dirs(&without), [".", "core", "app"]);
    assert_eq!(without.java_level.map(|l| l.level), Some(8));
    // A prefixed namespace too.
    let prefixed = r#"<p:project xmlns:p="http://maven.apache.org/POM/4.0.0">
      <p:properties><p:maven.compiler.release>17</p:maven.compiler.release></p:properties>
    </p:project>"#;
    let d = declare_files(&[("pom.xml", prefixed)]).expect("prefixed");
    assert_eq!(d.java_level.map(|l| l.level), Some(17));
}

#[test]
fn an_active_by_default_profile_adds_its_modules_and_others_do_not() {
    let root = format!(
        r#"<project {NS}>
  <artifactId>p</artifactId>
  <modules><module>core</module></modules>
  <profiles>
    <profile>
      <id>all</id>
      <activation><activeByDefault>true</activeByDefault></activation>
      <modules><module>extras</module></modules>
      <properties><maven.compiler.source>1.5</maven.compiler.source></properties>
    </profile>
    <profile>
      <id>release</id>
      <activation><property><name>release</name></property></activation>
      <modules><module>dist</module></modules>
    </profile>
  </profiles>
</project>"#
    );
    let leaf = |a: &str| format!("<project><artifactId>{a}</artifactId></project>");
    let d = declare_files(&[
        ("pom.xml", &root),
        ("core/pom.xml", &leaf("core")),
        ("extras/pom.xml", &leaf("extras")),
        ("extras/deep/pom.xml", &leaf("deep")),
        ("dist/pom.xml", &leaf("dist")),
    ])
    .expect("declares");
    assert_eq!(dirs(&d), [".", "core", "extras"]);
    assert_eq!(d.java_level.map(|l| l.level), Some(5));
    // Every pom of the tree is a build file, module or not.
    assert!(d.build_files.contains(&"dist/pom.xml".to_string()));
    assert!(d.build_files.contains(&"extras/deep/pom.xml".to_string()));
}

#[test]
fn test_roots_build_helper_adds_count_unless_a_property_turns_the_profile_on() {
    // jsoup's shape: a profile that JDK 11 turns on adds `src/test/java11`; a release
    // profile (on by a property) adds one no test run sees; `add-source` is main code.
    let helper = |id: &str, goal: &str, source: &str| {
        format!(
            "<build><plugins><plugin><groupId>org.codehaus.mojo</groupId>\
             <artifactId>build-helper-maven-plugin</artifactId><executions><execution>\
             <id>{id}</id><goals><goal>{goal}</goal></goals><configuration><sources>\
             <source>{source}</source></sources></configuration></execution></executions>\
             </plugin></plugins></build>"
        )
    };
    let root = format!(
        "<project><artifactId>lib</artifactId>{}<profiles>\
         <profile><id>multi-release</id><activation><jdk>[11,2000)</jdk></activation>{}</profile>\
         <profile><id>release</id><activation><property><name>performRelease</name></property>\
         </activation>{}</profile></profiles></project>",
        helper("gen", "add-source", "src/gen/java"),
        helper(
            "java11",
            "add-test-source",
            "${project.basedir}/src/test/java11"
        ),
        helper("it", "add-test-source", "src/release-it/java"),
    );
    let d = declare_files(&[("pom.xml", &root)]).expect("declares");
    let lib = module(&d, ".");
    assert_eq!(lib.test_source_roots, ["src/test/java", "src/test/java11"]);
    assert_eq!(lib.source_roots, ["src/main/java"]);
}

#[test]
fn a_parent_outside_the_modules_is_found_by_its_relative_path_and_checked() {
    let parent = r#"<project><artifactId>build-parent</artifactId>
      <properties><maven.compiler.release>21</maven.compiler.release></properties>
      <build><testSourceDirectory>tests</testSourceDirectory></build></project>"#;
    let root = r#"<project><artifactId>agg</artifactId>
      <modules><module>lib</module><module>other/pom-other.xml</module></modules></project>"#;
    let lib = r#"<project><parent><artifactId>build-parent</artifactId>
      <relativePath>../parent</relativePath></parent><artifactId>lib</artifactId></project>"#;
    let other = r#"<project><parent><artifactId>someone-else</artifactId>
      <relativePath>../parent/pom.xml</relativePath></parent></project>"#;
    let d = declare_files(&[
        ("pom.xml", root),
        ("parent/pom.xml", parent),
        ("lib/pom.xml", lib),
        ("other/pom-other.xml", other),
    ])
    .expect("declares");
    assert_eq!(dirs(&d), [".", "lib", "other"]);
    let lib = module(&d, "lib");
    assert_eq!(lib.java_level.as_ref().map(|l| l.level), Some(21));
    assert_eq!(lib.test_source_roots, ["lib/tests"]);
    let other = module(&d, "other");
    assert_eq!(other.pom, "other/pom-other.xml");
    assert_eq!(
        other.java_level, None,
        "a parent of another artifactId is not used"
    );
    assert!(d.build_files.contains(&"other/pom-other.xml".to_string()));
}

#[test]
fn the_wrapper_names_the_maven_version_and_mvn_files_are_build_files() {
    let props = concat!(
        "# generated\n",
        "distributionUrl=https\\://repo.maven.apache.org/maven2/org/apache/maven/",
        "apache-maven/3.6.3/apache-maven-3.6.3-bin.zip\n",
        "wrapperUrl=https\\://repo.maven.apache.org/maven2/io/takari/maven-wrapper/",
        "0.5.6/maven-wrapper-0.5.6.jar\n",
    );
    let d = declare_files(&[
        ("pom.xml", "<project/>"),
        (".mvn/wrapper/maven-wrapper.properties", props),
        (".mvn/jvm.config", "-Xmx1g"),
        ("README.md", "hi"),
    ])
    .expect("declares");
    assert_eq!(d.wrapper_maven.as_deref(), Some("3.6.3"));
    assert_eq!(
        d.build_files,
        [
            ".mvn/jvm.config",
            ".mvn/wrapper/maven-wrapper.properties",
            "pom.xml"
        ]
    );
    assert_eq!(d.java_level, None);
    assert_eq!(
        wrapper_version("distributionUrl = https://h/apache-maven/4.0.0-rc-2/x.zip").as_deref(),
        Some("4.0.0-rc-2")
    );
    assert_eq!(wrapper_version("wrapperVersion=3.3.2"), None);
}

#[test]
fn the_enforcer_range_is_read_from_an_execution_and_resolved() {
    let root = r#"<project><artifactId>p</artifactId>
      <properties><min.java>[1.8,)</min.java></properties>
      <build><plugins><plugin><artifactId>maven-enforcer-plugin</artifactId>
        <executions><execution><id>enforce</id><goals><goal>enforce</goal></goals>
          <configuration><rules>
            <requireMavenVersion><version>3.0</version></requireMavenVersion>
            <requireJavaVersion><version>${min.java}</version></requireJavaVersion>
          </rules></configuration>
        </execution></executions>
      </plugin></plugins></build></project>"#;
    let d = declare_files(&[("pom.xml", root)]).expect("declares");
    assert_eq!(d.enforcer_java.as_deref(), Some("[1.8,)"));
}

#[test]
fn bad_xml_is_one_line_naming_the_file_and_the_position() {
    let e = declare_files(&[
        (
            "pom.xml",
            "<project><modules><module>core</module></modules></project>",
        ),
        (
            "core/pom.xml",
            "<project>\n  <artifactId>core</artifactId>\n</projec>",
        ),
    ])
    .expect_err("bad XML");
    assert!(e.starts_with("core/pom.xml: not well-formed XML: "), "{e}");
    assert!(e.contains("3:"), "the position is named: {e}");
    assert!(!e.contains('\n'), "one line: {e}");
}

#[test]
fn a_tree_without_a_top_pom_is_not_maven() {
    let e = declare_files(&[("sub/pom.xml", "<project/>")]).expect_err("no root pom");
    assert_eq!(e, "not a Maven tree: no pom.xml at the top of the tree");
}

#[test]
fn java_versions_normalise_to_features() {
    assert_eq!(feature_level("1.8"), Some(8));
    assert_eq!(feature_level("1.5"), Some(5));
    assert_eq!(feature_level(" 11 "), Some(11));
    assert_eq!(feature_level("1.8.0_292"), Some(8));
    assert_eq!(feature_level("${x}"), None);
}

/// A repository in `dir` with one commit at a fixed time holding `files`, made in
/// process (crate::git::fixture), its work tree untouched.
fn commit_files(dir: &Path, files: &[(&str, &str)]) {
    crate::git::fixture::repository_with(dir, files, 1_600_000_000);
}

#[test]
fn declared_at_reads_the_poms_of_a_revision_from_git() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path();
    commit_files(
        dir,
        &[
            ("pom.xml", &parent_pom(NS)),
            ("core/pom.xml", &child_pom(NS, "core", "")),
        ],
    );
    // The working copy moves on; the revision is what is read.
    std::fs::write(dir.join("pom.xml"), "<not xml").expect("write");
    let d = declared_at(dir, "HEAD").expect("declares");
    assert_eq!(d.commit_time, 1_600_000_000);
    // `app` is listed but was never committed: skipped, the rest read.
    assert_eq!(dirs(&d), [".", "core"]);
    assert_eq!(d.build_files, ["core/pom.xml", "pom.xml"]);
    assert_eq!(d.java_level.map(|l| l.level), Some(8));
    let e = declared_at(dir, "no-such-rev").expect_err("unknown revision");
    assert!(!e.contains('\n'), "{e}");
}

/// Commons' older poms name their level `maven.compile.source` (commons-parent handed
/// it to the compiler): it is the level when Maven's own names are absent.
#[test]
fn commons_older_level_property_is_a_level() {
    let root = format!(
        r#"<project {NS}>
  <artifactId>commons-codec</artifactId>
  <properties>
    <maven.compile.source>1.4</maven.compile.source>
    <maven.compile.target>1.4</maven.compile.target>
  </properties>
</project>"#
    );
    let d = declare_files(&[("pom.xml", &root)]).expect("declares");
    let l = d.java_level.expect("a level");
    assert_eq!(l.level, 4);
    assert_eq!(l.origin, "property maven.compile.source");
}

/// A pom at the top wins; without one, the shallowest pom above every changed file is
/// the reactor; a change no single pom is above, or no change at all, is no Maven tree.
#[test]
fn project_dir_is_the_shallowest_pom_above_the_change() {
    let paths: Vec<String> = [
        "README",
        "gson/pom.xml",
        "gson/src/main/java/A.java",
        "gson/sub/pom.xml",
        "gson/sub/src/main/java/B.java",
        "proto/pom.xml",
        "proto/src/C.java",
    ]
    .iter()
    .map(|p| p.to_string())
    .collect();
    assert_eq!(
        project_dir(&paths, &["gson/src/main/java/A.java"]),
        Ok("gson".into())
    );
    // The nested module is under gson's reactor: the shallowest pom above it is gson's.
    assert_eq!(
        project_dir(&paths, &["gson/sub/src/main/java/B.java"]),
        Ok("gson".into())
    );
    assert_eq!(
        project_dir(&paths, &["proto/src/C.java"]),
        Ok("proto".into())
    );
    // `gsonx/` is not under `gson/`.
    assert!(project_dir(&paths, &["gsonx/A.java"]).is_err());
    let both = project_dir(&paths, &["gson/src/main/java/A.java", "proto/src/C.java"]);
    assert!(both
        .expect_err("two projects")
        .contains("above every changed file"));
    assert!(project_dir(&paths, &[]).is_err());
    let mut top = paths.clone();
    top.push("pom.xml".into());
    assert_eq!(project_dir(&top, &["proto/src/C.java"]), Ok(String::new()));
}

/// A reactor declared below the top: its root, modules and test roots are repository
/// paths, and its wrapper is the one beside its pom.
#[test]
fn a_reactor_below_the_top_reads_its_own_directory() {
    let root = format!(
        r#"<project {NS}>
  <artifactId>gson</artifactId>
  <properties><maven.compiler.source>1.6</maven.compiler.source></properties>
</project>"#
    );
    let files: HashMap<String, String> = [
        ("gson/pom.xml", root.as_str()),
        (
            "gson/.mvn/wrapper/maven-wrapper.properties",
            "distributionUrl=https://repo.maven.apache.org/maven2/org/apache/maven/apache-maven/3.6.3/apache-maven-3.6.3-bin.zip\n",
        ),
        ("proto/pom.xml", "<project/>"),
    ]
    .iter()
    .map(|(p, t)| (p.to_string(), t.to_string()))
    .collect();
    let mut paths: Vec<String> = files.keys().cloned().collect();
    paths.sort();
    let read = move |p: &str| files.get(p).cloned();
    let d = declare_in(&read, &paths, 1_500_000_000, "gson").expect("declares");
    assert_eq!(d.root, "gson/pom.xml");
    assert_eq!(d.root_dir(), "gson");
    assert_eq!(dirs(&d), ["gson"]);
    assert_eq!(module(&d, "gson").test_source_roots, ["gson/src/test/java"]);
    assert_eq!(d.wrapper_maven.as_deref(), Some("3.6.3"));
    assert_eq!(d.java_level.map(|l| l.level), Some(6));
    let e = declare_in(&read_none, &paths, 0, "wsclient").expect_err("no pom there");
    assert_eq!(e, "not a Maven tree: no wsclient/pom.xml");
}

fn read_none(_: &str) -> Option<String> {
    None
}
