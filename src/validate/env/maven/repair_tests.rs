//! Unit tests of repair.rs.
use super::*;

fn repair() -> Snapshot {
    Snapshot {
        group: "org.apache.commons".into(),
        artifact: "commons-parent".into(),
        snapshot: "52-SNAPSHOT".into(),
    }
}

#[test]
fn maven_names_the_unreachable_snapshots_online_and_offline() {
    let log = "[ERROR] Non-resolvable parent POM for org.x:y:1.0: Could not find artifact \
               org.apache.commons:commons-parent:pom:52-SNAPSHOT and 'parent.relativePath' \
               points at wrong local POM @ line 4\n\
               [ERROR] Non-resolvable import POM: Failure to find org.x:bom:pom:2.1-SNAPSHOT in \
               https://repo.maven.apache.org/maven2 was cached\n\
               Could not find artifact org.x:lib:jar:1.0-SNAPSHOT\n";
    let found = unreachable_snapshots(log);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0], repair());
    assert_eq!(found[1].artifact, "bom");
    assert_eq!(found[1].release(), "2.1");
}

#[test]
fn missing_poms_are_read_online_from_the_cache_note_and_offline() {
    let log = "[ERROR] Non-resolvable parent POM for x:y:1: Could not find artifact \
               com.fasterxml.jackson:jackson-base:pom:2.17.4 in central (https://r/m2)\n\
               [ERROR] Non-resolvable parent POM for x:y:1: com.fasterxml.jackson:jackson-parent:pom:2.9-rc1 \
               was not found in https://r/m2 during a previous attempt.\n\
               [ERROR] Cannot access central (https://r/m2) in offline mode and the artifact \
               com.fasterxml.jackson:jackson-base:pom:2.18.0-SNAPSHOT has not been downloaded from it before.\n\
               [ERROR] Could not transfer artifact org.x:bom:pom:1.0 from/to central: timeout\n";
    let found = missing_poms(log);
    let seen: Vec<(&str, bool)> = found
        .iter()
        .map(|m| (m.version.as_str(), m.absent))
        .collect();
    assert_eq!(
        seen,
        [
            ("2.17.4", true),
            ("2.9-rc1", true),
            ("2.18.0-SNAPSHOT", false),
            ("1.0", false)
        ]
    );
    assert_eq!(found[1].artifact, "jackson-parent");
    // The offline note names a snapshot that the release may stand in for.
    let snaps = unreachable_snapshots(log);
    assert_eq!(snaps.len(), 1, "{snaps:?}");
    assert_eq!(snaps[0].release(), "2.18.0");
}

fn listed(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn an_unpublished_version_stands_in_by_the_nearest_release_of_its_line() {
    let base = listed(&[
        "2.16.2",
        "2.17.0-rc1",
        "2.17.0",
        "2.17.1",
        "2.17.2",
        "2.17.3",
        "2.18.0-rc1",
        "2.18.0",
    ]);
    assert_eq!(nearest_release("2.17.4", &base).as_deref(), Some("2.17.3"));
    // A pre-release nobody published: the release it led to.
    let parent = listed(&["2.8.2", "2.9.pr1", "2.9", "2.9.0", "2.9.1", "2.10"]);
    assert_eq!(nearest_release("2.9-rc1", &parent).as_deref(), Some("2.9"));
    // No release of the line, or the version is there: nothing stands in.
    assert_eq!(nearest_release("3.0.0", &base), None);
    assert_eq!(nearest_release("2.17.2", &base), None);
    assert_eq!(nearest_release("7", &listed(&["6", "8"])), None);
    let m = Missing {
        group: "com.fasterxml.jackson".into(),
        artifact: "jackson-base".into(),
        version: "2.17.4".into(),
        absent: true,
    };
    let u = unpublished(&m, &base).expect("repaired");
    assert_eq!(
        Repair::Unpublished(u).describe(),
        "com.fasterxml.jackson:jackson-base 2.17.4 -> 2.17.3 (2.17.4 was never \
         published; the nearest release of its line)"
    );
    // Not answered absent (a transfer error, offline): nothing is known missing.
    let unsure = Missing {
        absent: false,
        ..m.clone()
    };
    assert_eq!(unpublished(&unsure, &base), None);
    assert_eq!(
        version_order("2.9-rc1", "2.9"),
        std::cmp::Ordering::Less,
        "a pre-release comes first"
    );
    assert_eq!(version_order("2.9.1", "2.10"), std::cmp::Ordering::Less);
}

#[test]
fn a_snapshot_whose_release_was_never_published_is_aliased_through_the_nearest() {
    let repo = tempfile::tempdir().expect("tempdir");
    let rel = repo.path().join("org/x/base/2.17.3");
    fs::create_dir_all(&rel).expect("dir");
    fs::write(
        rel.join("base-2.17.3.pom"),
        "<project><groupId>org.x</groupId><artifactId>base</artifactId>\
         <version>2.17.3</version></project>",
    )
    .expect("pom");
    let snap = Snapshot {
        group: "org.x".into(),
        artifact: "base".into(),
        snapshot: "2.17.4-SNAPSHOT".into(),
    };
    let u = Unpublished {
        group: "org.x".into(),
        artifact: "base".into(),
        named: "2.17.4".into(),
        nearest: "2.17.3".into(),
    };
    // The poms move 2.17.4 → 2.17.3 once the snapshot moved to 2.17.4.
    let pom = "<parent><groupId>org.x</groupId><artifactId>base</artifactId>\
               <version>2.17.4-SNAPSHOT</version></parent>";
    let (pom, _) = rewrite_pom(pom, &snap);
    let (pom, changed) = rewrite_to(&pom, &u.as_pair(), &u.nearest);
    assert!(
        changed && pom.contains("<version>2.17.3</version>"),
        "{pom}"
    );
    // The snapshot's alias needs the release's, which the nearest one gives.
    assert!(!install_alias(repo.path(), &snap).expect("no release yet"));
    assert!(install_unpublished(repo.path(), &u).expect("nearest"));
    assert!(install_alias(repo.path(), &snap).expect("through the alias"));
    let alias = fs::read_to_string(
        repo.path()
            .join("org/x/base/2.17.4-SNAPSHOT/base-2.17.4-SNAPSHOT.pom"),
    )
    .expect("alias");
    assert!(
        alias.contains("<version>2.17.4-SNAPSHOT</version>"),
        "{alias}"
    );
}

#[test]
fn the_level_properties_are_read_up_the_parent_chain() {
    let (a, b) = (
        tempfile::tempdir().expect("tempdir"),
        tempfile::tempdir().expect("tempdir"),
    );
    let put = |root: &Path, g: &str, art: &str, v: &str, body: &str| {
        let dir = root.join(g.replace('.', "/")).join(art).join(v);
        fs::create_dir_all(&dir).expect("dir");
        fs::write(dir.join(format!("{art}-{v}.pom")), body).expect("pom");
    };
    // The direct parent sets a literal and inherits from one naming its properties,
    // which lives in the second repository only.
    put(
        a.path(),
        "org.x",
        "mid",
        "2",
        "<project><parent><groupId>com.y</groupId><artifactId>top</artifactId>\
         <version>4</version></parent><build><plugins><plugin><configuration>\
         <source>1.5</source></configuration></plugin></plugins></build></project>",
    );
    put(
        b.path(),
        "com.y",
        "top",
        "4",
        "<project><build><plugins><plugin><configuration><source>${javac.src.version}</source>\
         <target>${javac.target.version}</target></configuration></plugin></plugins>\
         </build></project>",
    );
    let pom = "<project><parent><groupId>org.x</groupId><artifactId>mid</artifactId>\
               <version>2</version></parent></project>";
    let roots = [a.path().to_path_buf(), b.path().to_path_buf()];
    assert_eq!(
        parent_level_properties(&roots, pom),
        ["javac.src.version", "javac.target.version"]
    );
    // Not resolved anywhere yet, or no parent: nothing is known.
    assert!(parent_level_properties(&roots[..1], pom).is_empty());
    assert!(parent_level_properties(&roots, "<project/>").is_empty());
}

#[test]
fn only_the_named_parent_or_bom_moves_to_its_release() {
    let pom = "<project>\n  <parent>\n    <groupId>org.apache.commons</groupId>\n    \
               <artifactId>commons-parent</artifactId>\n    <version>52-SNAPSHOT</version>\n  \
               </parent>\n  <version>52-SNAPSHOT</version>\n  <dependencies>\n    \
               <dependency><groupId>org.apache.commons</groupId><artifactId>other</artifactId>\
               <version>52-SNAPSHOT</version></dependency>\n  </dependencies>\n</project>\n";
    let (new, changed) = rewrite_pom(pom, &repair());
    assert!(changed);
    assert_eq!(new.matches("<version>52</version>").count(), 1, "{new}");
    assert_eq!(
        new.matches("<version>52-SNAPSHOT</version>").count(),
        2,
        "{new}"
    );
    let (same, changed) = rewrite_pom(&new, &repair());
    assert!(!changed);
    assert_eq!(same, new);
}

#[test]
fn the_alias_is_the_release_pom_at_the_snapshot_version() {
    let repo = tempfile::tempdir().expect("tempdir");
    let rel = repo.path().join("org/apache/commons/commons-parent/52");
    fs::create_dir_all(&rel).expect("dir");
    fs::write(
        rel.join("commons-parent-52.pom"),
        "<project><parent><groupId>org.apache</groupId><artifactId>apache</artifactId>\
         <version>52</version></parent><artifactId>commons-parent</artifactId>\
         <version>52</version></project>",
    )
    .expect("pom");
    assert!(install_alias(repo.path(), &repair()).expect("install"));
    let alias = fs::read_to_string(
        repo.path()
            .join("org/apache/commons/commons-parent/52-SNAPSHOT/commons-parent-52-SNAPSHOT.pom"),
    )
    .expect("alias");
    assert!(
        alias.contains("<artifactId>apache</artifactId><version>52</version></parent>")
            && alias.ends_with("<version>52-SNAPSHOT</version></project>"),
        "{alias}"
    );
    let none = Snapshot {
        snapshot: "9-SNAPSHOT".into(),
        ..repair()
    };
    assert!(!install_alias(repo.path(), &none).expect("no release"));
}

#[test]
fn repositories_refusing_plain_http_move_to_https() {
    let log = "[ERROR] Failed to collect dependencies at x:y:jar:1: Failed to read artifact \
               descriptor for x:y:jar:1: Could not transfer artifact x:y:pom:1 from/to old \
               (http://repository.example.org/m2): status code: 501, reason phrase: \
               HTTPS Required (501)\n\
               [WARNING] Could not transfer metadata from http://other.org/x\n\
               [ERROR] Blocked mirror for repositories: [codehaus (http://repository.codehaus.org, default, releases)]\n";
    assert_eq!(
        refused_http(log),
        ["repository.example.org", "repository.codehaus.org"]
    );
    assert!(refused_http("[INFO] see http://maven.apache.org").is_empty());
    let pom =
        "<project>\n<url>http://commons.apache.org/x</url>\n<repositories>\n  <repository>\n    \
               <id>old</id>\n    <url>http://repository.example.org/m2</url>\n  </repository>\n\
               </repositories>\n<pluginRepositories><pluginRepository><id>p</id>\
               <url>http://plugins.example.org</url></pluginRepository></pluginRepositories>\n\
               <scm><url>http://svn.apache.org/x</url></scm>\n</project>\n";
    let (new, changed) = https_pom(pom);
    assert!(changed);
    assert!(
        new.contains("<url>https://repository.example.org/m2</url>"),
        "{new}"
    );
    assert!(
        new.contains("<url>https://plugins.example.org</url>"),
        "{new}"
    );
    // The project's site and SCM links stay as written.
    assert!(
        new.contains("<url>http://commons.apache.org/x</url>"),
        "{new}"
    );
    assert!(new.contains("<url>http://svn.apache.org/x</url>"), "{new}");
    assert_eq!(https_pom(&new), (new.clone(), false));
    assert_eq!(
        Repair::Https(vec!["a.org".into()]).describe(),
        "repositories http:// -> https:// (a.org refused plain HTTP)"
    );
}

/// The Rust lift and the run's `sed` agree on every pom line they may meet.
#[test]
fn the_lift_moves_only_literal_levels_below_six_and_the_sed_agrees() {
    let pom = "<configuration>\n  <source>1.5</source>\n  <target>1.5</target>\n</configuration>\n\
               <source>1.4</source><target>5</target>\n<source>1.6</source><source>1.8</source>\n\
               <source>${maven.compile.source}</source><source>11</source>\n";
    let lifted = lift_pom(pom, "1.6");
    assert_eq!(
        lifted,
        "<configuration>\n  <source>1.6</source>\n  <target>1.6</target>\n</configuration>\n\
         <source>1.6</source><target>1.6</target>\n<source>1.6</source><source>1.8</source>\n\
         <source>${maven.compile.source}</source><source>11</source>\n"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("pom.xml");
    fs::write(&f, pom).expect("pom");
    let script = super::super::kind::lift_sed_for_test("1.6");
    let ok = std::process::Command::new("sed")
        .args(["-i", "-E", &script])
        .arg(&f)
        .status()
        .expect("sed runs");
    assert!(ok.success());
    assert_eq!(fs::read_to_string(&f).expect("read"), lifted);
}

/// error-prone's compiler goes from the compiler plugin's configuration, with the
/// dependencies that put its javac on the plugin's class path (one element on one line,
/// one over several); the rest of the pom stays, error-prone's annotations included;
/// the run script's `sed` does the same, byte for byte. A pom without error-prone's
/// compiler is not touched.
#[test]
fn errorprone_is_taken_out_of_the_compiler_plugin_in_rust_and_in_the_shell() {
    let pom = "<configuration>\n  <compilerId>javac-with-errorprone</compilerId>\n  \
               <forceJavacCompilerUse>true</forceJavacCompilerUse>\n  <source>1.8</source>\n\
               </configuration>\n<dependencies>\n  <dependency>\n    \
               <groupId>org.codehaus.plexus</groupId>\n    \
               <artifactId>plexus-compiler-javac-errorprone</artifactId>\n  </dependency>\n  \
               <dependency><groupId>com.google.errorprone</groupId>\
               <artifactId>error_prone_core</artifactId></dependency>\n  \
               <dependency>\n    <groupId>com.google.errorprone</groupId>\n    \
               <artifactId> javac </artifactId>\n  </dependency>\n  <dependency>\n    \
               <groupId>com.google.errorprone</groupId>\n    \
               <artifactId>error_prone_annotations</artifactId>\n  </dependency>\n\
               </dependencies>\n<compilerId>eclipse</compilerId>\n";
    let want = "<configuration>\n  \n  <forceJavacCompilerUse>true</forceJavacCompilerUse>\n  \
                <source>1.8</source>\n</configuration>\n<dependencies>\n  <dependency>\n    \
                <groupId>com.google.errorprone</groupId>\n    \
                <artifactId>error_prone_annotations</artifactId>\n  </dependency>\n\
                </dependencies>\n<compilerId>eclipse</compilerId>\n";
    assert_eq!(without_errorprone(pom), want);
    let untouched = "<dependency><artifactId>javac</artifactId></dependency>\n";
    assert_eq!(without_errorprone(untouched), untouched);
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("pom.xml");
    fs::write(&f, pom).expect("pom");
    let ok = std::process::Command::new("sed")
        .args(["-i", "-E", super::super::kind::NO_ERRORPRONE_SED])
        .arg(&f)
        .status()
        .expect("sed runs");
    assert!(ok.success());
    assert_eq!(fs::read_to_string(&f).expect("read"), want);
    let grep = |text: &str| {
        fs::write(&f, text).expect("pom");
        std::process::Command::new("grep")
            .args(["-q", "-E", super::super::kind::ERRORPRONE_GREP])
            .arg(&f)
            .status()
            .expect("grep runs")
            .success()
    };
    assert!(grep(pom) && !grep(untouched));
}

/// A BOM whose version is a property of the same pom (commons-statistics in 2021:
/// `${statistics.commons.numbers.version}` = `1.2-SNAPSHOT`, which only Apache's
/// snapshot repository served): the property moves to the release, nothing else does.
#[test]
fn a_snapshot_named_through_a_property_moves_the_property() {
    let r = Snapshot {
        group: "org.apache.commons".into(),
        artifact: "commons-numbers-bom".into(),
        snapshot: "1.2-SNAPSHOT".into(),
    };
    let pom = "<project>\n  <properties>\n    <numbers.version>1.2-SNAPSHOT</numbers.version>\n    \
               <other.version>1.2-SNAPSHOT</other.version>\n  </properties>\n  <dependencyManagement>\n    \
               <dependencies>\n      <dependency>\n        <groupId>org.apache.commons</groupId>\n        \
               <artifactId>commons-numbers-bom</artifactId>\n        <version>${numbers.version}</version>\n        \
               <type>pom</type>\n        <scope>import</scope>\n      </dependency>\n    </dependencies>\n  \
               </dependencyManagement>\n</project>\n";
    let (new, changed) = rewrite_pom(pom, &r);
    assert!(changed);
    assert!(
        new.contains("<numbers.version>1.2</numbers.version>"),
        "{new}"
    );
    assert!(
        new.contains("<other.version>1.2-SNAPSHOT</other.version>"),
        "{new}"
    );
    assert!(
        new.contains("<version>${numbers.version}</version>"),
        "{new}"
    );
    let (same, changed) = rewrite_pom(&new, &r);
    assert!(!changed);
    assert_eq!(same, new);
}
