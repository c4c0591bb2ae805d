//! Build-file repairs of `maven: auto`'s resolve step, each recorded: a parent or an
//! imported BOM at a `-SNAPSHOT` version no repository serves any more (snapshots are
//! deleted once released) is resolved at its release instead; one at a version that was
//! never published (a line ended before its next release: `2.17.4`; a pre-release only
//! ever built locally: `2.9-rc1`) at the nearest release of its line, which the remote
//! repository's `maven-metadata.xml` lists; repositories a pom names
//! by `http://`, which Maven Central and most hosts now refuse (`501 HTTPS Required`),
//! are asked by `https://`. The resolve run's copy of
//! the poms is rewritten; the runs keep the commit's own poms and find the snapshot in
//! the environment's repository, where the release's pom is installed under the
//! snapshot's coordinates. Nothing but build files and the private repository changes.

use std::fs;
use std::path::Path;

use regex::Regex;

/// One repair of the resolve run's copy of the poms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repair {
    /// An unreachable snapshot parent or BOM, resolved at its release.
    Snapshot(Snapshot),
    /// A parent or BOM at a version the remote repository never published, resolved
    /// at the nearest release of its line.
    Unpublished(Unpublished),
    /// `<repository>`/`<pluginRepository>` URLs moved from `http://` to `https://`; the
    /// hosts Maven was refused by.
    Https(Vec<String>),
}

impl Repair {
    /// How the record names it.
    pub fn describe(&self) -> String {
        match self {
            Repair::Snapshot(s) => s.describe(),
            Repair::Unpublished(u) => format!(
                "{}:{} {} -> {} ({} was never published; the nearest release of its line)",
                u.group, u.artifact, u.named, u.nearest, u.named
            ),
            Repair::Https(hosts) => format!(
                "repositories http:// -> https:// ({} refused plain HTTP)",
                hosts.join(", ")
            ),
        }
    }
}

/// One unreachable snapshot pom and the release that stands in for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// `groupId`.
    pub group: String,
    /// `artifactId`.
    pub artifact: String,
    /// The version the poms name (`52-SNAPSHOT`).
    pub snapshot: String,
}

impl Snapshot {
    /// The release the snapshot was cut for (`52-SNAPSHOT` → `52`).
    pub fn release(&self) -> &str {
        self.snapshot.trim_end_matches("-SNAPSHOT")
    }

    /// How the record names it.
    pub fn describe(&self) -> String {
        format!(
            "{}:{} {} -> {} (the snapshot is unreachable)",
            self.group,
            self.artifact,
            self.snapshot,
            self.release()
        )
    }
}

/// A parent or BOM at a version the remote repository does not list, and the release of
/// its line that stands in for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unpublished {
    /// `groupId`.
    pub group: String,
    /// `artifactId`.
    pub artifact: String,
    /// The version the poms name (`2.17.4`).
    pub named: String,
    /// The release chosen ([`nearest_release`]: `2.17.3`).
    pub nearest: String,
}

impl Unpublished {
    /// The same coordinates as a [`Snapshot`] pair, so the poms are rewritten and the
    /// alias installed by one code path.
    fn as_pair(&self) -> Snapshot {
        Snapshot {
            group: self.group.clone(),
            artifact: self.artifact.clone(),
            snapshot: self.named.clone(),
        }
    }
}

/// A pom Maven's log says it could not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// `groupId`.
    pub group: String,
    /// `artifactId`.
    pub artifact: String,
    /// The version named.
    pub version: String,
    /// The remote repository answered that it has no such file (not a transfer error,
    /// nor offline mode, where nothing was asked).
    pub absent: bool,
}

/// The poms (parents, imported BOMs) Maven's log says it could not have, in the order it
/// names them: online (`Could not find artifact`, `Failure to find`, Maven 3.9's cached
/// `… was not found in … during a previous attempt`, `Could not transfer artifact`) and
/// offline (`… has not been downloaded from it before`).
pub fn missing_poms(log: &str) -> Vec<Missing> {
    static RE: std::sync::OnceLock<Option<Regex>> = std::sync::OnceLock::new();
    let Some(re) = RE
        .get_or_init(|| {
            Regex::new(
                r"(?:(Could not find artifact|Failure to find|Could not transfer artifact|the artifact) ([\w.\-]+):([\w.\-]+):pom:([\w.\-]+)|([\w.\-]+):([\w.\-]+):pom:([\w.\-]+) was not found in )",
            )
            .ok()
        })
        .as_ref()
    else {
        return Vec::new();
    };
    let mut out: Vec<Missing> = Vec::new();
    for c in re.captures_iter(log) {
        let (phrase, g, a, v) = match c.get(1) {
            Some(p) => (p.as_str(), &c[2], &c[3], &c[4]),
            None => ("was not found", &c[5], &c[6], &c[7]),
        };
        let m = Missing {
            group: g.to_string(),
            artifact: a.to_string(),
            version: v.to_string(),
            absent: matches!(
                phrase,
                "Could not find artifact" | "Failure to find" | "was not found"
            ),
        };
        match out
            .iter_mut()
            .find(|o| (&o.group, &o.artifact, &o.version) == (&m.group, &m.artifact, &m.version))
        {
            Some(o) => o.absent |= m.absent,
            None => out.push(m),
        }
    }
    out
}

/// The snapshot poms Maven's log says it could not have (a parent, an imported BOM),
/// online or offline, in the order it names them.
pub fn unreachable_snapshots(log: &str) -> Vec<Snapshot> {
    missing_poms(log)
        .into_iter()
        .filter(|m| m.version.ends_with("-SNAPSHOT"))
        .map(|m| Snapshot {
            group: m.group,
            artifact: m.artifact,
            snapshot: m.version,
        })
        .filter(|s| !s.release().is_empty())
        .collect()
}

/// A version's numeric parts and what follows them (`2.9-rc1` → ([2, 9], `rc1`);
/// `2.9.pr1` → ([2, 9], `pr1`); `2.17.3` → ([2, 17, 3], ``)).
fn split_version(v: &str) -> (Vec<u64>, String) {
    let mut nums = Vec::new();
    let mut rest = v;
    loop {
        let end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        match rest[..end].parse::<u64>() {
            Ok(n) if end > 0 => nums.push(n),
            _ => break,
        }
        rest = &rest[end..];
        match rest.strip_prefix('.') {
            Some(r) if r.starts_with(|c: char| c.is_ascii_digit()) => rest = r,
            _ => break,
        }
    }
    let qualifier = rest
        .trim_start_matches(['.', '-', '_'])
        .to_ascii_lowercase();
    (nums, qualifier)
}

/// Whether a qualifier marks a pre-release (`alpha`, `beta`, `m2`, `rc1`, `cr1`, `pr1`,
/// `ea`, `SNAPSHOT`), which Maven orders before the release it leads to.
fn pre_release(qualifier: &str) -> bool {
    const PRE: [&str; 9] = [
        "alpha",
        "beta",
        "milestone",
        "rc",
        "cr",
        "pr",
        "snapshot",
        "preview",
        "ea",
    ];
    let short = |p: &str| {
        qualifier
            .strip_prefix(p)
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    };
    PRE.iter().any(|p| qualifier.starts_with(p)) || ["a", "b", "m"].into_iter().any(short)
}

/// Maven's order on two versions, simplified: numeric parts (missing ones are 0), then a
/// pre-release before the release before any other qualifier (`sp1`, `ga`, …).
fn version_order(a: &str, b: &str) -> std::cmp::Ordering {
    let ((na, qa), (nb, qb)) = (split_version(a), split_version(b));
    let n = na.len().max(nb.len());
    let get = |x: &[u64], i: usize| x.get(i).copied().unwrap_or(0);
    let rank = |q: &str| match (q.is_empty(), pre_release(q)) {
        (true, _) => 1,
        (false, true) => 0,
        (false, false) => 2,
    };
    (0..n)
        .map(|i| get(&na, i).cmp(&get(&nb, i)))
        .find(|o| o.is_ne())
        .unwrap_or_else(|| rank(&qa).cmp(&rank(&qb)).then_with(|| qa.cmp(&qb)))
}

/// Among `listed` (the remote repository's versions of the artifact), the release that
/// stands in for `named`, which it does not list: one of the same major and minor
/// version, the newest not after `named` (`2.17.4` → `2.17.3`), else the oldest after it
/// (`2.9-rc1` → `2.9`); none when the line has no release (`3.0.0` of a group that
/// published no 3.0).
pub fn nearest_release(named: &str, listed: &[String]) -> Option<String> {
    let (nums, _) = split_version(named);
    if nums.len() < 2 || listed.iter().any(|l| l == named) {
        return None;
    }
    let line = |v: &str| {
        let (n, q) = split_version(v);
        n.len() >= 2 && n[..2] == nums[..2] && (q.is_empty() || !pre_release(&q))
    };
    let mut same: Vec<&String> = listed.iter().filter(|v| line(v)).collect();
    same.sort_by(|a, b| version_order(a, b));
    let before = same.iter().rev().find(|v| version_order(v, named).is_le());
    before
        .or_else(|| same.iter().find(|v| version_order(v, named).is_gt()))
        .map(|v| v.to_string())
}

/// The `Unpublished` repair of `m`, from the versions the remote lists; none when `m`
/// was not answered absent or its line has no release.
pub fn unpublished(m: &Missing, listed: &[String]) -> Option<Unpublished> {
    if !m.absent || m.version.ends_with("-SNAPSHOT") {
        return None;
    }
    nearest_release(&m.version, listed).map(|nearest| Unpublished {
        group: m.group.clone(),
        artifact: m.artifact.clone(),
        named: m.version.clone(),
        nearest,
    })
}

/// `text` with every `<parent>` or `<dependency>` element naming `r`'s coordinates at
/// its snapshot version moved to the release; whether anything changed.
pub fn rewrite_pom(text: &str, r: &Snapshot) -> (String, bool) {
    rewrite_to(text, r, r.release())
}

/// [`rewrite_pom`] to any version `to`.
fn rewrite_to(text: &str, r: &Snapshot, to: &str) -> (String, bool) {
    let open_close = [("<parent>", "</parent>"), ("<dependency>", "</dependency>")];
    let want_group = format!("<groupId>{}</groupId>", r.group);
    let want_artifact = format!("<artifactId>{}</artifactId>", r.artifact);
    let snapshot = format!("<version>{}</version>", r.snapshot);
    let release = format!("<version>{to}</version>");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    loop {
        let next = open_close
            .iter()
            .filter_map(|(o, c)| rest.find(o).map(|i| (i, *c)))
            .min_by_key(|(i, _)| *i);
        let Some((start, close)) = next else {
            out.push_str(rest);
            break;
        };
        let Some(len) = rest[start..].find(close).map(|e| e + close.len()) else {
            out.push_str(rest);
            break;
        };
        out.push_str(&rest[..start]);
        let element = &rest[start..start + len];
        let squeezed: String = element.split_whitespace().collect();
        if squeezed.contains(&want_group)
            && squeezed.contains(&want_artifact)
            && squeezed.contains(&snapshot)
        {
            out.push_str(&element.replace(&snapshot, &release));
            changed = true;
        } else {
            out.push_str(element);
        }
        rest = &rest[start + len..];
    }
    (out, changed)
}

/// The hosts of plain-HTTP repositories Maven's log says refused it (`501 HTTPS
/// Required`, or Maven's own blocker of HTTP mirrors), in the order it names them.
pub fn refused_http(log: &str) -> Vec<String> {
    let mut hosts: Vec<String> = Vec::new();
    for line in log.lines() {
        let refused = line.contains("HTTPS Required")
            || line.contains("Blocked mirror for repositories")
            || line.contains("maven-default-http-blocker");
        if !refused {
            continue;
        }
        for (i, _) in line.match_indices("http://") {
            let host: String = line[i + "http://".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | ':'))
                .collect();
            if !host.is_empty() && host != "0.0.0.0" && !hosts.contains(&host) {
                hosts.push(host);
            }
        }
    }
    hosts
}

/// `text` with the `<url>` of every `<repository>`, `<pluginRepository>` and
/// `<snapshotRepository>` moved from `http://` to `https://`; whether anything changed.
pub fn https_pom(text: &str) -> (String, bool) {
    static RE: std::sync::OnceLock<Option<Regex>> = std::sync::OnceLock::new();
    let Some(re) = RE
        .get_or_init(|| {
            Regex::new(r"(?s)(<(repository|pluginRepository|snapshotRepository)>.*?</(?:repository|pluginRepository|snapshotRepository)>)").ok()
        })
        .as_ref()
    else {
        return (text.to_string(), false);
    };
    let out = re.replace_all(text, |c: &regex::Captures<'_>| {
        c[1].replace("<url>http://", "<url>https://")
            .replace("<url> http://", "<url> https://")
    });
    let changed = out != text;
    (out.into_owned(), changed)
}

/// Applies `r` to every `pom.xml` under `tree` (the resolve run's exported copy);
/// whether any pom changed.
pub fn rewrite_tree(tree: &Path, poms: &[String], r: &Repair) -> std::io::Result<bool> {
    let mut any = false;
    for rel in poms.iter().filter(|p| p.ends_with("pom.xml")) {
        let path = tree.join(rel);
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let (new, changed) = match r {
            Repair::Snapshot(s) => rewrite_pom(&text, s),
            Repair::Unpublished(u) => rewrite_to(&text, &u.as_pair(), &u.nearest),
            Repair::Https(_) => https_pom(&text),
        };
        if changed {
            fs::write(&path, new)?;
            any = true;
        }
    }
    Ok(any)
}

/// Installs the release's pom, resolved into `repository`, under the snapshot's
/// coordinates (its own `<version>` moved to the snapshot), so an offline run of the
/// commit's unchanged poms finds it; whether the release's pom was there to copy.
pub fn install_alias(repository: &Path, r: &Snapshot) -> std::io::Result<bool> {
    install_alias_of(repository, r, r.release())
}

/// The nearest release's pom installed under the unpublished version's coordinates, as
/// [`install_alias`] does for a snapshot.
pub fn install_unpublished(repository: &Path, u: &Unpublished) -> std::io::Result<bool> {
    install_alias_of(repository, &u.as_pair(), &u.nearest)
}

/// The pom of `release` installed as `r.snapshot` (the version the poms name).
fn install_alias_of(repository: &Path, r: &Snapshot, release: &str) -> std::io::Result<bool> {
    let dir = |v: &str| {
        let mut p = repository.to_path_buf();
        for part in r.group.split('.') {
            p.push(part);
        }
        p.push(&r.artifact);
        p.push(v);
        p
    };
    let from = dir(release).join(format!("{}-{}.pom", r.artifact, release));
    let Ok(text) = fs::read_to_string(&from) else {
        return Ok(false);
    };
    let own = format!("<version>{}</version>", release);
    // The project's own version is the first `<version>` outside its `<parent>`.
    let text = match (text.find("</parent>"), text.find("<parent>")) {
        (Some(end), Some(_)) => {
            let (head, tail) = text.split_at(end);
            format!(
                "{head}{}",
                tail.replacen(&own, &format!("<version>{}</version>", r.snapshot), 1)
            )
        }
        _ => text.replacen(&own, &format!("<version>{}</version>", r.snapshot), 1),
    };
    let to_dir = dir(&r.snapshot);
    fs::create_dir_all(&to_dir)?;
    fs::write(
        to_dir.join(format!("{}-{}.pom", r.artifact, r.snapshot)),
        text,
    )?;
    Ok(true)
}

/// `text` with every `<source>`/`<target>` below 6 written literally (`1.5`, `5`,
/// `1.4`) moved to `to`: the lift of a level no JDK here compiles, where the poms name it
/// in the compiler plugin's configuration and no `-D` can override it.
pub fn lift_pom(text: &str, to: &str) -> String {
    static RE: std::sync::OnceLock<Option<Regex>> = std::sync::OnceLock::new();
    let Some(re) = RE
        .get_or_init(|| Regex::new(r"<(source|target)>(?:1\.)?[1-5]</(?:source|target)>").ok())
        .as_ref()
    else {
        return text.to_string();
    };
    re.replace_all(text, |c: &regex::Captures<'_>| {
        format!("<{0}>{to}</{0}>", &c[1])
    })
    .into_owned()
}

/// [`lift_pom`] over every pom of the resolve run's exported `tree`.
pub fn lift_tree(tree: &Path, poms: &[String], to: &str) -> std::io::Result<()> {
    for rel in poms.iter().filter(|p| p.ends_with("pom.xml")) {
        let path = tree.join(rel);
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let lifted = lift_pom(&text, to);
        if lifted != text {
            fs::write(&path, lifted)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
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
        let alias =
            fs::read_to_string(repo.path().join(
                "org/apache/commons/commons-parent/52-SNAPSHOT/commons-parent-52-SNAPSHOT.pom",
            ))
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
        let pom = "<project>\n<url>http://commons.apache.org/x</url>\n<repositories>\n  <repository>\n    \
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
}
