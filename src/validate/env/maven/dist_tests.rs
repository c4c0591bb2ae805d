use super::*;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

#[test]
fn versions_compare_part_by_part() {
    assert_eq!(parts("3.9.16"), Some(vec![3, 9, 16]));
    assert_eq!(parts("4.0.0-rc-2"), Some(vec![4, 0, 0]));
    assert_eq!(parts("x"), None);
    assert!(at_least("3.9.16", "3.9"));
    assert!(at_least("3.9.0", "3.9"));
    assert!(!at_least("3.8.7", "3.9"));
    assert!(at_least("3.10.0", "3.9.16"));
    assert!(!at_least("3.9.15", "3.9.16"));
    assert_eq!(version_of("Apache Maven 3.8.7 (b89d59)"), Some("3.8.7"));
    assert_eq!(version_of("Maven 3"), None);
    // Runs on a read-only repository take no file lock where the resolver knows how.
    assert_eq!(
        run_lock_flags("Apache Maven 3.10.0 (c43a36b)"),
        " -Daether.syncContext.named.factory=noop"
    );
    assert_eq!(run_lock_flags("Apache Maven 3.8.7"), "");
}

#[test]
fn the_plugin_that_refuses_this_maven_is_read_from_the_log() {
    let log = "[INFO] x\n\u{1b}[1;31m[ERROR] Failed to execute goal org.apache.rat:apache-rat-plugin:0.18:check \
               (rat-check) on project commons-validator: The plugin org.apache.rat:apache-rat-plugin:0.18 \
               requires Maven version 3.9 -> [Help 1]\u{1b}[m\n";
    assert_eq!(
        required_by(log),
        Some((
            "org.apache.rat:apache-rat-plugin:0.18".to_string(),
            "3.9".to_string()
        ))
    );
    assert_eq!(
        required_by("The plugin g:a:1 requires Maven version [3.6.3,)").map(|r| r.1),
        Some("3.6.3".to_string())
    );
    assert_eq!(required_by("[ERROR] COMPILATION ERROR"), None);
}

/// A gzipped tarball holding `apache-maven-<v>/bin/mvn`: a script that answers
/// `--version` as Maven does (a stand-in for the real 9 MB distribution, which the
/// maven_auto integration test runs from the seed).
fn fake_dist(version: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = dir.path().join(format!("apache-maven-{version}/bin"));
    fs::create_dir_all(&bin).expect("mkdir");
    let mvn = bin.join("mvn");
    fs::write(
        &mvn,
        format!("#!/bin/sh\necho 'Apache Maven {version} (stand-in)'\necho 'Maven home: here'\n"),
    )
    .expect("write");
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&mvn, fs::Permissions::from_mode(0o755)).expect("chmod");
    let out = std::process::Command::new("tar")
        .arg("-czf")
        .arg("-")
        .arg("-C")
        .arg(dir.path())
        .arg(format!("apache-maven-{version}"))
        .output()
        .expect("tar");
    assert!(out.status.success());
    out.stdout
}

/// A loopback HTTP server answering GETs of the given paths (404 otherwise), and the
/// paths it was asked.
fn serve(files: HashMap<String, Vec<u8>>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).map(|n| n == 0).unwrap_or(true) || h == "\r\n" {
                    break;
                }
            }
            let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
            log.lock().expect("log").push(path.clone());
            let (status, body) = match files.get(&path) {
                Some(b) => ("200 OK", b.clone()),
                None => ("404 Not Found", Vec::new()),
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    (base, asked)
}

#[test]
fn a_distribution_is_downloaded_once_checked_and_reused() {
    let tarball = fake_dist("3.9.99");
    let sum = format!("{:x}", Sha512::digest(&tarball));
    let dir = format!("/{ARTIFACT_DIR}/3.9.99/apache-maven-3.9.99-bin.tar.gz");
    let metadata = "<metadata><versioning><versions><version>3.8.1</version>\
                    <version>3.9.98</version><version>3.9.99</version>\
                    <version>4.0.0-rc-2</version></versions></versioning></metadata>";
    let (base, asked) = serve(HashMap::from([
        (dir.clone(), tarball),
        (format!("{dir}.sha512"), format!("{sum}  x\n").into_bytes()),
        (
            format!("/{ARTIFACT_DIR}/maven-metadata.xml"),
            metadata.as_bytes().to_vec(),
        ),
    ]));
    let remote = Some(base.as_str());
    let cache = tempfile::tempdir().expect("tempdir");
    // Offline and nothing here: a plain refusal naming what is missing.
    let err = pick("3.9", cache.path(), None, None).expect_err("offline");
    assert!(err.contains("network is off"), "{err}");
    // Online: the newest 3.x release at least 3.9 that Central lists (no pre-release).
    let v = pick("3.9", cache.path(), None, remote).expect("picked");
    assert_eq!(v, "3.9.99");
    let d = ensure(&v, cache.path(), None, remote).expect("downloaded");
    assert_eq!(d.home, cache.path().join("3.9.99"));
    assert_eq!(d.line, "Apache Maven 3.9.99 (stand-in)");
    assert!(d.home.join("bin/mvn").is_file());
    let n = asked.lock().expect("log").len();
    assert_eq!(n, 3, "metadata, tarball, checksum");
    // Reused without a request, and now found offline by pick too.
    assert_eq!(ensure(&v, cache.path(), None, None).expect("reused"), d);
    assert_eq!(unpacked(cache.path(), &v), Some(d.clone()));
    assert_eq!(unpacked(cache.path(), "3.9.98"), None);
    assert_eq!(unpacked(cache.path(), "../3.9.99"), None);
    assert_eq!(
        pick("3.9", cache.path(), None, None).expect("local"),
        "3.9.99"
    );
    assert_eq!(asked.lock().expect("log").len(), n);
}

#[test]
fn a_tarball_whose_checksum_differs_is_refused_and_nothing_is_kept() {
    let dir = format!("/{ARTIFACT_DIR}/3.9.98/apache-maven-3.9.98-bin.tar.gz");
    let (base, _) = serve(HashMap::from([
        (dir.clone(), fake_dist("3.9.98")),
        (format!("{dir}.sha512"), b"00ff".to_vec()),
    ]));
    let remote = Some(base.as_str());
    let cache = tempfile::tempdir().expect("tempdir");
    let err = ensure("3.9.98", cache.path(), None, remote).expect_err("refused");
    assert!(err.contains("SHA-512"), "{err}");
    assert!(!cache.path().join("3.9.98").exists());
    let err = ensure("../x", cache.path(), None, remote).expect_err("no version");
    assert!(err.contains("no Maven version"), "{err}");
}

#[test]
fn a_seeded_tarball_is_used_without_the_network() {
    let seed = tempfile::tempdir().expect("seed");
    let at = seed.path().join(ARTIFACT_DIR).join("3.9.97");
    fs::create_dir_all(&at).expect("mkdir");
    fs::write(
        at.join("apache-maven-3.9.97-bin.tar.gz"),
        fake_dist("3.9.97"),
    )
    .expect("write");
    let cache = tempfile::tempdir().expect("cache");
    assert_eq!(
        pick("3.9", cache.path(), Some(seed.path()), None).expect("seeded"),
        "3.9.97"
    );
    let d = ensure("3.9.97", cache.path(), Some(seed.path()), None).expect("unpacked");
    assert_eq!(d.line, "Apache Maven 3.9.97 (stand-in)");
    // A release of another major line never satisfies.
    assert!(pick("4.0", cache.path(), Some(seed.path()), None).is_err());
}

#[test]
fn the_minor_line_a_plugin_names_wins_over_a_newer_line_of_its_major() {
    let metadata = "<metadata><versioning><versions><version>3.8.8</version>\
                    <version>3.9.5</version><version>3.9.11</version>\
                    <version>3.10.2</version><version>4.0.1</version></versions>\
                    </versioning></metadata>";
    let (base, asked) = serve(HashMap::from([(
        format!("/{ARTIFACT_DIR}/maven-metadata.xml"),
        metadata.as_bytes().to_vec(),
    )]));
    let remote = Some(base.as_str());
    let cache = tempfile::tempdir().expect("cache");
    // 3.9 → the newest 3.9.x (compared by number: 3.9.11 over 3.9.5), not 3.10.2.
    assert_eq!(
        pick("3.9", cache.path(), None, remote).expect("3.9"),
        "3.9.11"
    );
    // No 3.9.x reaches 3.9.12: the newest of the major line that does.
    assert_eq!(
        pick("3.9.12", cache.path(), None, remote).expect("3.9.12"),
        "3.10.2"
    );
    // A major line alone: its newest.
    assert_eq!(pick("3", cache.path(), None, remote).expect("3"), "3.10.2");
    assert!(pick("x", cache.path(), None, remote).is_err());
    // A release of the minor line already unpacked is taken without asking.
    let seed = tempfile::tempdir().expect("seed");
    let at = seed.path().join(ARTIFACT_DIR).join("3.9.6");
    fs::create_dir_all(&at).expect("mkdir");
    fs::write(at.join("apache-maven-3.9.6-bin.tar.gz"), b"x").expect("write");
    let n = asked.lock().expect("log").len();
    assert_eq!(
        pick("3.9", cache.path(), Some(seed.path()), remote).expect("seeded"),
        "3.9.6"
    );
    assert_eq!(asked.lock().expect("log").len(), n, "no request");
}
