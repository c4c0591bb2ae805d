//! `maven: auto` and parents from outside the tree. Online, against a Maven repository
//! served on loopback (`HUNKGEN_MAVEN_CENTRAL`): the seed `make deps` fills, served as a
//! remote repository, with the `maven-metadata.xml` of each artifact listing the versions
//! it holds, as a real repository's does; nothing here reaches the internet. Offline,
//! from the seed: a parent that hands the compiler a level of its own property.

use crate::maven_auto::{
    child_pom, history_with, proven_calc_test, proven_maven_record, recipe, seed, POM,
};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::{fs, thread};

/// A static Maven repository on 127.0.0.1: files under `root`, and for an artifact's
/// directory a `maven-metadata.xml` made from the versions it holds. Each request's path
/// and status is logged.
struct Repository {
    base: String,
    log: Arc<Mutex<Vec<(String, u16)>>>,
}

impl Repository {
    fn serve(root: PathBuf) -> Repository {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let log = Arc::new(Mutex::new(Vec::new()));
        let seen = log.clone();
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (root, seen) = (root.clone(), seen.clone());
                thread::spawn(move || answer(stream, &root, &seen));
            }
        });
        Repository { base, log }
    }

    fn asked(&self) -> Vec<(String, u16)> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

/// The versions under an artifact's directory (those holding a pom).
fn metadata(dir: &Path) -> Option<Vec<u8>> {
    let mut versions: Vec<String> = fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| {
            fs::read_dir(e.path()).is_ok_and(|d| {
                d.flatten()
                    .any(|f| f.file_name().to_string_lossy().ends_with(".pom"))
            })
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    if versions.is_empty() {
        return None;
    }
    versions.sort();
    let listed: String = versions
        .iter()
        .map(|v| format!("<version>{v}</version>"))
        .collect();
    Some(
        format!("<metadata><versioning><versions>{listed}</versions></versioning></metadata>")
            .into_bytes(),
    )
}

fn answer(stream: TcpStream, root: &Path, seen: &Mutex<Vec<(String, u16)>>) {
    let Ok(read) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read);
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    loop {
        let mut h = String::new();
        match reader.read_line(&mut h) {
            Ok(n) if n > 0 && h != "\r\n" && h != "\n" => {}
            _ => break,
        }
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("/").to_string();
    let rel = path.trim_start_matches('/');
    let file = root.join(rel);
    let body = match rel.split('/').any(|p| p == "..") {
        true => None,
        false => match (file.is_file(), rel.ends_with("/maven-metadata.xml")) {
            (true, _) => fs::read(&file).ok(),
            (false, true) => file.parent().and_then(metadata),
            (false, false) => None,
        },
    };
    let status = if body.is_some() { 200 } else { 404 };
    if let Ok(mut l) = seen.lock() {
        l.push((path.clone(), status));
    }
    let body = body.unwrap_or_default();
    let mut out = stream;
    let head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        if status == 200 { "OK" } else { "Not Found" },
        body.len()
    );
    let _ = out.write_all(head.as_bytes());
    if method != "HEAD" {
        let _ = out.write_all(&body);
    }
}

/// A parent named at `1.0.1-SNAPSHOT`, whose release `1.0.1` was never published: the
/// repository holds only `1.0`. Online, with no seed, the resolve step moves the copy of
/// the pom to the snapshot's release, is answered that `1.0.1` does not exist either,
/// reads the versions the repository lists and takes the nearest release of the line
/// (`1.0`); both repairs are recorded and the runs prove the fix offline with the
/// commit's own pom. A parent whose line has no release stays `dependency_unresolvable`.
#[test]
fn a_parent_never_published_is_resolved_at_the_nearest_release_of_its_line() {
    let remote = Repository::serve(seed());
    let work = tempfile::tempdir().expect("tempdir");
    let no_seed = work.path().join("no-seed");
    fs::create_dir_all(&no_seed).expect("mkdir");
    let online = |name: &str, version: &str| {
        let s = history_with(&child_pom("parent", version, false));
        let dir = work.path().join(name);
        fs::create_dir_all(&dir).expect("mkdir");
        let recipe = recipe(&dir, &s.dir);
        let text = fs::read_to_string(&recipe).expect("recipe");
        fs::write(
            &recipe,
            text.replace("network_for_setup: false", "network_for_setup: true"),
        )
        .expect("recipe");
        let out = dir.join("out");
        let o = crate::common::hunkgen()
            .args(["build", "-q"])
            .arg(&recipe)
            .arg("-o")
            .arg(&out)
            .envs(crate::common::validation_env())
            .env("HUNKGEN_CACHE_DIR", dir.join("cache"))
            .env("HUNKGEN_MAVEN_SEED", &no_seed)
            .env("HUNKGEN_MAVEN_CENTRAL", &remote.base)
            .output()
            .expect("builds");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (out, s)
    };
    let (out, _s) = online("unpublished", "1.0.1-SNAPSHOT");
    let kept = proven_calc_test(&out);
    assert_eq!(
        kept[0]["validation"]["maven"]["repairs"],
        serde_json::json!([
            "org.hunkgen.fixture:parent 1.0.1-SNAPSHOT -> 1.0.1 (the snapshot is unreachable)",
            "org.hunkgen.fixture:parent 1.0.1 -> 1.0 (1.0.1 was never published; the nearest \
             release of its line)"
        ])
    );
    let asked = remote.asked();
    for want in [
        ("/org/hunkgen/fixture/parent/1.0.1/parent-1.0.1.pom", 404),
        ("/org/hunkgen/fixture/parent/maven-metadata.xml", 200),
        ("/org/hunkgen/fixture/parent/1.0/parent-1.0.pom", 200),
    ] {
        assert!(
            asked.iter().any(|(p, s)| (p.as_str(), *s) == want),
            "{want:?} not in {asked:?}"
        );
    }
    // No release of the 2.0 line: nothing stands in, and the reason says what is missing.
    let (out, _s) = online("no-line", "2.0.1");
    let rejected = fs::read_to_string(out.join("rejected.jsonl")).expect("rejected");
    assert!(
        rejected.contains("\"reason\":\"dependency_unresolvable\"")
            && rejected.contains("parent:pom:2.0.1"),
        "{rejected}"
    );
}

/// A child naming no level under a released parent that passes its own properties to the
/// compiler (`<source>${javac.src.version}</source>`, 1.5, as jackson's oss-parent:4 does).
/// javac refuses 5; the level is lifted to 6 on JDK 11, whose `-Dmaven.compiler.source`
/// does not reach that property, and javac refuses 5 again; the parent's pom, in the local
/// repository, names `javac.src.version` and `javac.target.version`, which the lift then
/// sets too: the fix is proven and the record says so.
#[test]
fn a_lift_sets_the_level_properties_an_external_parent_names() {
    let mvn = &proven_maven_record(&child_pom("parent-prop", "1.0", true));
    assert_eq!(
        (&mvn["lifted_from"], &mvn["level"]),
        (&5.into(), &6.into()),
        "{mvn}"
    );
    assert!(
        mvn["jdk"].as_str().is_some_and(|v| v.starts_with("11")),
        "{mvn}"
    );
    assert!(
        mvn["chosen"].as_str().is_some_and(
            |w| w.contains("the lift also sets javac.src.version, javac.target.version")
        ),
        "{mvn}"
    );
}

/// Surefire 2.20.1 stops before running a test on JDK 10 and later, and no JDK 8 is
/// here: where a parent outside the tree sets its version by a property
/// (commons-parent's `commons.surefire.version`), the runs override it with `-D`; where
/// the tree's pom names it literally, the runs rewrite the pom. Both prove the fix on
/// surefire 2.22.2, and the record names the repair.
#[test]
fn a_surefire_that_stops_on_new_jdks_is_moved_to_2_22_2() {
    let by_parent = proven_maven_record(&child_pom("parent-surefire", "1.0", false));
    assert_eq!(
        by_parent["repairs"],
        serde_json::json!([
            "maven-surefire-plugin 2.20.1 -> 2.22.2 (before 2.21 surefire stops on JDK 10 and \
             later before running a test; -Dold.surefire.version=2.22.2)"
        ]),
        "{by_parent}"
    );
    let literal = proven_maven_record(&POM.replace(
        "<artifactId>maven-surefire-plugin</artifactId>\n        <version>2.22.2</version>",
        "<artifactId>maven-surefire-plugin</artifactId>\n        <version>2.20.1</version>",
    ));
    assert_eq!(
        literal["repairs"],
        serde_json::json!([
            "maven-surefire-plugin 2.20.1 -> 2.22.2 (before 2.21 surefire stops on JDK 10 and \
             later before running a test; the tree's poms rewritten)"
        ]),
        "{literal}"
    );
}
