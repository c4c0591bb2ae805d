//! Tests of JDK discovery, javac's levels, enforcer ranges and the choice of a JDK.

use super::*;

fn jdk(feature: u32) -> Jdk {
    Jdk {
        home: PathBuf::from(format!("/opt/jdk-{feature}")),
        feature,
        version: format!("{feature}.0.1"),
    }
}

fn at(day: &str) -> i64 {
    let n = |r: std::ops::Range<usize>| day[r].parse::<i64>().expect("a date");
    unix_day(n(0..4), n(5..7), n(8..10))
}

/// A fake JDK home: a `release` file and a `bin/javac` with the given mode.
fn fake_home(home: &Path, release: Option<&str>, javac_mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::create_dir_all(home.join("bin")).expect("mkdir");
    let javac = home.join("bin/javac");
    fs::write(&javac, "#!/bin/sh\n").expect("write");
    fs::set_permissions(&javac, fs::Permissions::from_mode(javac_mode)).expect("chmod");
    if let Some(r) = release {
        fs::write(home.join("release"), r).expect("write");
    }
}

#[test]
fn discover_in_keeps_homes_with_an_executable_javac_and_a_version_once_each() {
    let tmp = tempfile::tempdir().expect("tmp");
    let jvm = tmp.path().join("jvm");
    fake_home(
        &jvm.join("java-8"),
        Some("IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"1.8.0_292\"\n"),
        0o755,
    );
    fake_home(
        &jvm.join("java-11"),
        Some("JAVA_VERSION=\"11.0.25\"\n"),
        0o755,
    );
    fake_home(
        &jvm.join("temurin-25"),
        Some("JAVA_VERSION=\"25\"\n"),
        0o755,
    );
    fake_home(
        &jvm.join("not-executable"),
        Some("JAVA_VERSION=\"21.0.1\"\n"),
        0o644,
    );
    fake_home(&jvm.join("no-release"), None, 0o755);
    fake_home(&jvm.join("no-version"), Some("IMPLEMENTOR=\"x\"\n"), 0o755);
    fs::create_dir_all(jvm.join("jre-only")).expect("mkdir");
    std::os::unix::fs::symlink(jvm.join("java-11"), jvm.join("java-1.11.0")).expect("link");
    let extra = tmp.path().join("elsewhere/jdk-17");
    fake_home(&extra, Some("JAVA_VERSION=\"17.0.13\"\n"), 0o755);
    let found = discover_in(
        &[jvm.clone(), tmp.path().join("missing")],
        &[extra.clone(), jvm.join("java-11")],
    );
    let summary: Vec<(u32, &str)> = found
        .iter()
        .map(|j| (j.feature, j.version.as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            (8, "1.8.0_292"),
            (11, "11.0.25"),
            (17, "17.0.13"),
            (25, "25")
        ]
    );
    let canonical = |p: &Path| fs::canonicalize(p).expect("canonical");
    assert_eq!(found[1].home, canonical(&jvm.join("java-11")));
    assert_eq!(found[2].home, canonical(&extra));
}

#[test]
fn discover_finds_real_jdks_whose_javac_reports_their_feature() {
    let found = discover();
    assert!(
        !found.is_empty(),
        "no JDK under /usr/lib/jvm, JAVA_HOME or HUNKGEN_JDKS"
    );
    for j in &found {
        let out = std::process::Command::new(j.home.join("bin/javac"))
            .arg("-version")
            .output()
            .expect("javac runs");
        assert!(
            out.status.success(),
            "{}: javac -version failed",
            j.home.display()
        );
        // JDK 8 and older print to stderr and name themselves 1.x.
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let expected = if j.feature <= 8 {
            format!("javac 1.{}", j.feature)
        } else {
            format!("javac {}", j.feature)
        };
        let next = text.get(expected.len()..).and_then(|r| r.chars().next());
        assert!(
            text.starts_with(&expected) && !next.is_some_and(|c| c.is_ascii_digit()),
            "{}: {text:?} does not start with {expected:?}",
            j.home.display()
        );
    }
    let mut homes: Vec<&PathBuf> = found.iter().map(|j| &j.home).collect();
    homes.dedup();
    assert_eq!(homes.len(), found.len(), "one entry per home");
}

#[test]
fn javac_levels_follow_the_retirement_schedule() {
    assert!(accepts(8, 3) && accepts(8, 5) && accepts(8, 8));
    assert!(!accepts(8, 2) && !accepts(8, 9));
    assert!(accepts(11, 6), "JDK 11 still takes 6");
    assert!(!accepts(11, 5) && !accepts(9, 5));
    assert!(accepts(17, 7), "JDK 17 takes 7");
    assert!(!accepts(17, 6), "JDK 17 refuses 6");
    assert!(!accepts(12, 6) && accepts(19, 7));
    assert!(!accepts(25, 7), "JDK 25 refuses 7");
    assert!(!accepts(20, 7) && accepts(20, 8) && accepts(25, 8) && accepts(25, 25));
    assert!(!accepts(17, 21), "no JDK compiles for a newer release");
}

#[test]
fn enforcer_ranges_read_as_maven_writes_them() {
    // A bare version is a minimum; 1.8 is 8.
    assert!(satisfies_range(8, "1.8") && satisfies_range(25, "1.8"));
    assert!(!satisfies_range(7, "1.8"));
    assert!(satisfies_range(11, "11") && !satisfies_range(8, "11"));
    // Open upper bound.
    assert!(satisfies_range(8, "[1.8,)") && satisfies_range(21, "[1.8,)"));
    assert!(!satisfies_range(7, "[1.8,)"));
    // Half-open interval.
    assert!(satisfies_range(11, "[11,17)") && satisfies_range(16, "[11,17)"));
    assert!(!satisfies_range(17, "[11,17)") && !satisfies_range(8, "[11,17)"));
    // Open lower bound, inclusive upper.
    assert!(satisfies_range(9, "(,9]") && satisfies_range(8, "(,9]"));
    assert!(!satisfies_range(10, "(,9]"));
    assert!(!satisfies_range(8, "(,1.8)"));
    // A union.
    let union = "[1.7,1.9),[11,)";
    assert!(satisfies_range(7, union) && satisfies_range(8, union));
    assert!(!satisfies_range(9, union) && !satisfies_range(10, union));
    assert!(satisfies_range(11, union) && satisfies_range(25, union));
    // Exclusive lower bound, an exact version, spaces.
    assert!(!satisfies_range(8, "(1.8,]") && satisfies_range(9, "(1.8,]"));
    assert!(satisfies_range(17, "[17]") && !satisfies_range(21, "[17]"));
    assert!(satisfies_range(17, " [ 11 , 21 ) "));
    // Unreadable: every JDK is allowed rather than none.
    assert!(satisfies_range(8, "[abc,)") && satisfies_range(8, "[11,17"));
    assert!(satisfies_range(8, ""));
}

#[test]
fn a_2016_commit_at_level_8_takes_the_oldest_when_none_is_of_its_era() {
    let found = [jdk(11), jdk(17), jdk(25)];
    let c = choose(Some(8), None, at("2016-06-01"), &found).expect("a JDK");
    assert_eq!(c.jdk.feature, 11);
    assert_eq!((c.level, c.lifted_from), (Some(8), None));
    assert!(c.why.contains("oldest"), "{}", c.why);
    assert!(c.why.contains("2016-06-01"), "{}", c.why);
}

#[test]
fn a_2022_commit_takes_the_newest_released_by_then() {
    let found = [jdk(11), jdk(17), jdk(25)];
    let c = choose(Some(8), None, at("2022-02-01"), &found).expect("a JDK");
    assert_eq!(c.jdk.feature, 17);
    assert!(c.why.contains("newest"), "{}", c.why);
    // On the release day itself the JDK counts as of the era; the day before not.
    assert_eq!(
        choose(Some(8), None, at("2021-09-14"), &found).map(|c| c.jdk.feature),
        Ok(17)
    );
    assert_eq!(
        choose(Some(8), None, at("2021-09-13"), &found).map(|c| c.jdk.feature),
        Ok(11)
    );
    // No level declared: only the era decides.
    assert_eq!(
        choose(None, None, at("2026-01-01"), &found).map(|c| c.jdk.feature),
        Ok(25)
    );
    // With JDK 8 found, a 2015 commit gets it.
    let with_8 = [jdk(8), jdk(11), jdk(17)];
    assert_eq!(
        choose(Some(7), None, at("2015-01-01"), &with_8).map(|c| c.jdk.feature),
        Ok(8)
    );
}

#[test]
fn the_enforcer_range_narrows_the_choice() {
    let found = [jdk(11), jdk(17), jdk(25)];
    let c = choose(Some(8), Some("[1.8,12)"), at("2024-01-01"), &found).expect("a JDK");
    assert_eq!(c.jdk.feature, 11);
    assert!(c.why.contains("enforcer [1.8,12)"), "{}", c.why);
    let none = choose(
        Some(8),
        Some("[21,)"),
        at("2024-01-01"),
        &[jdk(11), jdk(17)],
    );
    let e = none.expect_err("no JDK in range");
    assert_eq!(e.range.as_deref(), Some("[21,)"));
    assert_eq!(e.found, [11, 17]);
}

#[test]
fn level_5_is_lifted_to_6_only_on_a_jdk_of_11_or_older() {
    let e = choose(Some(5), None, at("2010-01-01"), &[jdk(17), jdk(25)]).expect_err("none");
    assert_eq!(e.level, Some(5));
    assert_eq!(e.found, [17, 25]);
    let line = e.to_string();
    assert_eq!(
        line,
        "no JDK found fits: needs a javac that takes level 5 (or a JDK 6-11 to lift it \
         to 6); found JDK 17, 25"
    );
    let e = choose(Some(8), Some("[21,)"), 0, &[]).expect_err("none");
    assert_eq!(
        e.to_string(),
        "no JDK found fits: needs a javac that takes level 8 and a Java version in [21,); \
         no JDK was found"
    );
    let c = choose(
        Some(5),
        None,
        at("2010-01-01"),
        &[jdk(11), jdk(17), jdk(25)],
    )
    .expect("lifted");
    assert_eq!(c.jdk.feature, 11);
    assert_eq!((c.level, c.lifted_from), (Some(6), Some(5)));
    assert!(c.why.contains("lifted to 6"), "{}", c.why);
    // JDK 8 still takes 5 itself: nothing is lifted.
    let c = choose(Some(5), None, at("2010-01-01"), &[jdk(8), jdk(11)]).expect("JDK 8");
    assert_eq!((c.jdk.feature, c.level, c.lifted_from), (8, Some(5), None));
    // A level newer than every JDK is not lifted.
    let e = choose(Some(21), None, at("2024-01-01"), &[jdk(11), jdk(17)]).expect_err("none");
    assert_eq!(e.level, Some(21));
    assert!(choose(Some(8), None, 0, &[]).is_err());
}

#[test]
fn release_dates_follow_the_table_and_the_cadence() {
    assert_eq!(day(released(8)), "2014-03-18");
    assert_eq!(day(released(11)), "2018-09-25");
    assert_eq!(day(released(25)), "2025-09-16");
    assert_eq!(day(released(12)), "2019-03-20");
    assert_eq!(day(released(23)), "2024-09-20");
    assert_eq!(day(released(26)), "2026-03-20");
    assert!(released(5) < released(6));
}

#[test]
fn toolchains_list_every_jdk_found_the_one_the_build_runs_on_first() {
    let mut odd = jdk(17);
    odd.home = PathBuf::from("/opt/a&b/jdk");
    let entries = |xml: &str| -> Vec<(String, String, String)> {
        let doc = roxmltree::Document::parse(xml).expect("well-formed");
        doc.descendants()
            .filter(|n| n.tag_name().name() == "toolchain")
            .map(|t| {
                let text = |name: &str| {
                    t.descendants()
                        .find(|n| n.tag_name().name() == name)
                        .and_then(|n| n.text())
                        .unwrap_or_default()
                        .to_string()
                };
                (text("type"), text("version"), text("jdkHome"))
            })
            .collect()
    };
    // Running on 17: a request for [11,) takes the first match, 17.
    assert_eq!(
        entries(&toolchains_xml(&[jdk(11), odd.clone(), jdk(25)], &odd)),
        [
            ("jdk".into(), "17".into(), "/opt/a&b/jdk".into()),
            ("jdk".into(), "11".into(), "/opt/jdk-11".into()),
            ("jdk".into(), "25".into(), "/opt/jdk-25".into()),
        ]
    );
    let xml = toolchains_xml(&[jdk(11), odd], &jdk(11));
    assert_eq!(
        entries(&xml),
        [
            ("jdk".into(), "11".into(), "/opt/jdk-11".into()),
            ("jdk".into(), "17".into(), "/opt/a&b/jdk".into()),
        ]
    );
}
