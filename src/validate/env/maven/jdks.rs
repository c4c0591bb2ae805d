//! The JDKs installed on this machine, and the one a Maven tree of a given era builds on.
//!
//! A JDK is only ever one found here (`bin/javac` and a `release` file); none is
//! downloaded or faked. Which source levels a JDK's javac takes is a table
//! ([`accepts`]), the policy of JEP 182 as the JDK releases applied it.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

/// A JDK found on the machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Jdk {
    /// Its home (canonical), what `JAVA_HOME` and a toolchain name.
    pub home: PathBuf,
    /// Its feature release (`11.0.25` → 11), what levels and ranges are checked against.
    pub feature: u32,
    /// `JAVA_VERSION` of its `release` file, for the record.
    pub version: String,
}

/// The JDK a tree builds on, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JdkChoice {
    /// The JDK.
    pub jdk: Jdk,
    /// The level to compile at: the tree's, or 6 when lifted; `None` when the tree
    /// declares none (the build's own default applies).
    pub level: Option<u32>,
    /// The level the tree declares when no JDK found takes it and it was lifted to 6.
    pub lifted_from: Option<u32>,
    /// Properties an external parent hands the compiler as its level
    /// (`${javac.src.version}`), which a lift sets too (empty unless a lifted build
    /// was refused again at its old level).
    pub also: Vec<String>,
    /// One line: what decided it.
    pub why: String,
}

/// No JDK found builds the tree: what it needs and what there is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoJdk {
    /// The level the tree compiles at, if declared.
    pub level: Option<u32>,
    /// The enforcer's range, if declared.
    pub range: Option<String>,
    /// The features of the JDKs found.
    pub found: Vec<u32>,
}

impl fmt::Display for NoJdk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut needs = Vec::new();
        match self.level {
            Some(l) if (1..=5).contains(&l) => needs.push(format!(
                "a javac that takes level {l} (or a JDK 6-11 to lift it to 6)"
            )),
            Some(l) => needs.push(format!("a javac that takes level {l}")),
            None => {}
        }
        if let Some(r) = &self.range {
            needs.push(format!("a Java version in {r}"));
        }
        if needs.is_empty() {
            needs.push("any JDK".into());
        }
        let found = if self.found.is_empty() {
            "no JDK was found".to_string()
        } else {
            let list: Vec<String> = self.found.iter().map(u32::to_string).collect();
            format!("found JDK {}", list.join(", "))
        };
        write!(
            f,
            "no JDK found fits: needs {}; {found}",
            needs.join(" and ")
        )
    }
}

impl std::error::Error for NoJdk {}

/// The JDKs on this machine: each home under `/usr/lib/jvm`, `JAVA_HOME`, and the
/// colon-separated homes of `HUNKGEN_JDKS`.
pub fn discover() -> Vec<Jdk> {
    let mut homes: Vec<PathBuf> = Vec::new();
    if let Some(h) = std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
        homes.push(h.into());
    }
    if let Some(list) = std::env::var_os("HUNKGEN_JDKS") {
        homes.extend(std::env::split_paths(&list).filter(|p| !p.as_os_str().is_empty()));
    }
    discover_in(&[PathBuf::from("/usr/lib/jvm")], &homes)
}

/// The JDKs among the entries of `dirs` and the `homes` themselves, one per canonical
/// home, sorted by feature: the testable half of [`discover`].
pub fn discover_in(dirs: &[PathBuf], homes: &[PathBuf]) -> Vec<Jdk> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    for dir in dirs {
        let Ok(entries) = fs::read_dir(dir) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        found.sort();
        candidates.extend(found);
    }
    candidates.extend(homes.iter().cloned());
    let mut jdks: Vec<Jdk> = Vec::new();
    for home in candidates {
        let Ok(home) = fs::canonicalize(&home) else {
            continue;
        };
        if jdks.iter().any(|j| j.home == home) {
            continue;
        }
        if let Some(jdk) = jdk_at(&home) {
            jdks.push(jdk);
        }
    }
    jdks.sort_by(|a, b| {
        (a.feature, version_key(&a.version), &a.home).cmp(&(
            b.feature,
            version_key(&b.version),
            &b.home,
        ))
    });
    jdks
}

/// The JDK at `home`, if it has an executable `bin/javac` and a `JAVA_VERSION`.
fn jdk_at(home: &Path) -> Option<Jdk> {
    use std::os::unix::fs::PermissionsExt;
    let javac = fs::metadata(home.join("bin/javac")).ok()?;
    if !javac.is_file() || javac.permissions().mode() & 0o111 == 0 {
        return None;
    }
    let release = fs::read_to_string(home.join("release")).ok()?;
    let version = release.lines().find_map(|l| {
        let v = l.trim().strip_prefix("JAVA_VERSION=")?;
        Some(v.trim().trim_matches('"').to_string())
    })?;
    Some(Jdk {
        home: home.to_path_buf(),
        feature: super::declare::feature_level(&version)?,
        version,
    })
}

/// The numbers of a version string, for ordering (`11.0.25` → [11, 0, 25]).
fn version_key(v: &str) -> Vec<u64> {
    v.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect()
}

/// Whether the javac of JDK `feature` compiles at source/release `level` (`8` for
/// `1.8`). The lowest level each JDK takes:
///
/// | JDK | levels | source |
/// |---|---|---|
/// | ≤ 8 | 1.3 … itself | JDK 8 javac reference (oldest `-source` listed: 1.3) |
/// | 9 – 11 | 6 … itself | JEP 182 (5 and older gone in 9); 6 kept through 11 |
/// | 12 – 19 | 7 … itself | CSR JDK-8206877 (6 dropped in 12) |
/// | 20 + | 8 … itself | CSR JDK-8293047 (7 dropped in 20; 8 to 20 listed) |
///
/// JEP 182 set the policy: JDK 8 warns on 1.5 and older, JDK 9 stops accepting them
/// and keeps a few levels back from then on. Dropping 6 was proposed for 11 and moved
/// to 12 after discussion on jdk-dev; 7 followed in 20 (javac 25 still takes 8).
/// Checked on this machine as well: javac 11 takes 6 and refuses 5, javac 17 takes 7
/// and refuses 6, javac 25 takes 8 and refuses 7.
pub fn accepts(feature: u32, level: u32) -> bool {
    let lowest = match feature {
        0..=8 => 3,
        9..=11 => 6,
        12..=19 => 7,
        _ => 8,
    };
    (lowest..=feature).contains(&level)
}

/// Whether JDK `feature` is inside a Maven version range as the enforcer's
/// `requireJavaVersion` writes it: `[1.8,)`, `[11,17)`, `(,9]`, `[1.7,1.9),[11,)`, or a
/// bare version meaning "at least". `1.8` is 8; a bound is compared at its feature
/// (`11.0.2` as 11), the only precision a JDK choice has. A range it cannot read
/// allows every JDK, so a typo never hides the JDKs.
pub fn satisfies_range(feature: u32, range: &str) -> bool {
    let range = range.trim();
    if range.is_empty() {
        return true;
    }
    if !range.starts_with(['[', '(']) {
        return super::declare::feature_level(range).is_none_or(|low| feature >= low);
    }
    match intervals(range) {
        Some(list) => list.iter().any(|i| i.contains(feature)),
        None => true,
    }
}

/// One interval of a Maven version range, bounds at their feature.
struct Interval {
    low: Option<(u32, bool)>,
    high: Option<(u32, bool)>,
}

impl Interval {
    fn contains(&self, feature: u32) -> bool {
        let above = self
            .low
            .is_none_or(|(l, inclusive)| feature > l || (inclusive && feature == l));
        let below = self
            .high
            .is_none_or(|(h, inclusive)| feature < h || (inclusive && feature == h));
        above && below
    }
}

/// The intervals of `[a,b),[c,)`-style text, `None` if any part is unreadable.
fn intervals(range: &str) -> Option<Vec<Interval>> {
    let bound = |s: &str| -> Option<Option<u32>> {
        match s.trim() {
            "" => Some(None),
            s => super::declare::feature_level(s).map(Some),
        }
    };
    let mut out = Vec::new();
    let mut rest = range;
    loop {
        rest = rest.trim_start_matches(|c: char| c == ',' || c.is_whitespace());
        let Some(open) = rest.chars().next() else {
            break;
        };
        let end = rest.find([']', ')'])?;
        let low_inclusive = match open {
            '[' => true,
            '(' => false,
            _ => return None,
        };
        let high_inclusive = rest[end..].starts_with(']');
        let body = &rest[1..end];
        rest = &rest[end + 1..];
        out.push(match body.split_once(',') {
            // `[11]`: exactly that version.
            None => {
                let v = bound(body)??;
                Interval {
                    low: Some((v, true)),
                    high: Some((v, true)),
                }
            }
            Some((low, high)) => Interval {
                low: bound(low)?.map(|l| (l, low_inclusive)),
                high: bound(high)?.map(|h| (h, high_inclusive)),
            },
        });
    }
    (!out.is_empty()).then_some(out)
}

/// General-availability dates of JDK feature releases (UTC), for "of the commit's
/// era". Releases since JDK 10 come every six months (March and September); those not
/// listed are placed by that cadence ([`released`]).
const GA: [(u32, (i64, i64, i64)); 9] = [
    (6, (2006, 12, 11)),
    (7, (2011, 7, 28)),
    (8, (2014, 3, 18)),
    (9, (2017, 9, 21)),
    (10, (2018, 3, 20)),
    (11, (2018, 9, 25)),
    (17, (2021, 9, 14)),
    (21, (2023, 9, 19)),
    (25, (2025, 9, 16)),
];

/// When JDK `feature` was released (Unix seconds); JDKs before 6 count as always.
fn released(feature: u32) -> i64 {
    if let Some((_, (y, m, d))) = GA.iter().find(|(f, _)| *f == feature) {
        return unix_day(*y, *m, *d);
    }
    if feature < 10 {
        return i64::MIN;
    }
    // Six months a release after JDK 10 (2018-03-20).
    let months = 2 + 6 * i64::from(feature - 10);
    unix_day(2018 + months / 12, months % 12 + 1, 20)
}

/// Midnight UTC of a civil date, in Unix seconds (days-from-civil).
fn unix_day(y: i64, m: i64, d: i64) -> i64 {
    let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe - 719_468) * 86_400
}

fn day(secs: i64) -> String {
    let t = crate::dataset::rfc3339(secs);
    t.get(..10).unwrap_or(&t).to_string()
}

/// The JDK a tree that compiles at `d_level` (with the enforcer's `enforcer` range)
/// builds on, among `found`: of those whose javac takes the level and that satisfy the
/// range, the newest released by the commit's date (`commit_time`), else the oldest.
/// A level of 5 or lower that no JDK found takes is lifted to 6 on a JDK of 11 or
/// older, as Defects4J builds its oldest projects.
pub fn choose(
    d_level: Option<u32>,
    enforcer: Option<&str>,
    commit_time: i64,
    found: &[Jdk],
) -> Result<JdkChoice, NoJdk> {
    let in_range = |j: &Jdk| enforcer.is_none_or(|r| satisfies_range(j.feature, r));
    let range = enforcer
        .map(|r| format!(", enforcer {r}"))
        .unwrap_or_default();
    let direct: Vec<&Jdk> = found
        .iter()
        .filter(|j| in_range(j) && d_level.is_none_or(|l| accepts(j.feature, l)))
        .collect();
    let what = match d_level {
        Some(l) => format!("level {l}{range}"),
        None => format!("no level declared{range}"),
    };
    if let Some((jdk, era)) = pick(&direct, commit_time, &what) {
        return Ok(JdkChoice {
            jdk,
            level: d_level,
            lifted_from: None,
            also: Vec::new(),
            why: era,
        });
    }
    if let Some(l) = d_level.filter(|l| (1..=5).contains(l)) {
        let lifted: Vec<&Jdk> = found
            .iter()
            .filter(|j| j.feature <= 11 && in_range(j) && accepts(j.feature, 6))
            .collect();
        let what = format!("level {l} lifted to 6 (no JDK found takes {l}){range}");
        if let Some((jdk, why)) = pick(&lifted, commit_time, &what) {
            return Ok(JdkChoice {
                jdk,
                level: Some(6),
                lifted_from: Some(l),
                also: Vec::new(),
                why,
            });
        }
    }
    Err(NoJdk {
        level: d_level,
        range: enforcer.map(str::to_string),
        found: found.iter().map(|j| j.feature).collect(),
    })
}

/// Of `qualifying`, the newest released by `commit_time`, else the oldest; with the
/// one line saying so.
fn pick(qualifying: &[&Jdk], commit_time: i64, what: &str) -> Option<(Jdk, String)> {
    let order = |a: &&&Jdk, b: &&&Jdk| {
        (a.feature, version_key(&a.version)).cmp(&(b.feature, version_key(&b.version)))
    };
    let of_era = qualifying
        .iter()
        .filter(|j| released(j.feature) <= commit_time)
        .max_by(order);
    if let Some(j) = of_era {
        let why = format!(
            "{what}: JDK {} is the newest found that qualifies and was released by the commit ({})",
            j.feature,
            day(commit_time)
        );
        return Some(((*j).clone(), why));
    }
    let oldest = qualifying.iter().min_by(order)?;
    let why = format!(
        "{what}: no JDK found that qualifies was released by the commit ({}), \
         JDK {} is the oldest that does",
        day(commit_time),
        oldest.feature
    );
    Some(((*oldest).clone(), why))
}

/// A Maven `toolchains.xml` offering every JDK found, so a build that asks the
/// toolchains plugin for a JDK gets one of these and no other. The JDK the build runs
/// on comes first: a request it satisfies (`<jdkToolchain>[11,)`) takes the first match,
/// and gets the JDK that profile activation (`<jdk>[17,)</jdk>`) also saw, not an older
/// one that refuses what such a profile sets (gson's `testRelease` 17 under JDK 11).
pub fn toolchains_xml(found: &[Jdk], runs_on: &Jdk) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <toolchains xmlns=\"http://maven.apache.org/TOOLCHAINS/1.1.0\">\n",
    );
    let first = found.iter().filter(|j| j.home == runs_on.home);
    let rest = found.iter().filter(|j| j.home != runs_on.home);
    for j in first.chain(rest) {
        out.push_str(&format!(
            "  <toolchain>\n    <type>jdk</type>\n    <provides>\n      <version>{}</version>\n    \
             </provides>\n    <configuration>\n      <jdkHome>{}</jdkHome>\n    \
             </configuration>\n  </toolchain>\n",
            j.feature,
            xml_escape(&j.home.to_string_lossy())
        ));
    }
    out.push_str("</toolchains>\n");
    out
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
#[path = "jdks_tests.rs"]
mod tests;
