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

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use regex::Regex;

use super::super::{EnvCache, EnvError};
use super::{dist, surefire};
use crate::validate::runner::Runner;

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
    /// A surefire before 2.21, which stops on JDK 10 and later, moved to 2.22.2.
    Surefire(super::surefire::Upgrade),
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
            Repair::Surefire(u) => u.describe(),
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
/// its snapshot version moved to the release (a version given by a property of the same
/// pom, `${numbers.version}`, moves that property); whether anything changed.
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
    // Properties the named element takes its version from.
    let mut properties: Vec<String> = Vec::new();
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
            if squeezed.contains(&want_group) && squeezed.contains(&want_artifact) {
                if let Some(name) = squeezed
                    .split_once("<version>${")
                    .and_then(|(_, v)| v.split_once("}</version>"))
                    .map(|(name, _)| name.to_string())
                {
                    properties.push(name);
                }
            }
            out.push_str(element);
        }
        rest = &rest[start + len..];
    }
    for name in properties {
        let from = format!("<{name}>{}</{name}>", r.snapshot);
        if out.contains(&from) {
            out = out.replace(&from, &format!("<{name}>{to}</{name}>"));
            changed = true;
        }
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
            // A literal version; a property goes to the command line (surefire::configure).
            Repair::Surefire(_) => {
                let new = surefire::literal_pom(&text);
                let changed = new != text;
                (new, changed)
            }
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

/// The poms of the parents of `pom` (the tree's root pom, its text), nearest first, read
/// from the first of `repositories` holding each, up the chain (ten parents at most).
pub fn parent_chain(repositories: &[PathBuf], pom: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut text = pom.to_string();
    for _ in 0..10 {
        let Ok(doc) = roxmltree::Document::parse(&text) else {
            break;
        };
        let child = |n: roxmltree::Node<'_, '_>, name: &str| {
            n.children()
                .find(|c| c.has_tag_name(name))
                .and_then(|c| c.text())
                .map(|t| t.trim().to_string())
        };
        let Some(parent) = doc
            .root_element()
            .children()
            .find(|c| c.has_tag_name("parent"))
        else {
            break;
        };
        let (Some(g), Some(a), Some(v)) = (
            child(parent, "groupId"),
            child(parent, "artifactId"),
            child(parent, "version"),
        ) else {
            break;
        };
        let rel = Path::new(&g.replace('.', "/"))
            .join(&a)
            .join(&v)
            .join(format!("{a}-{v}.pom"));
        let Some(next) = repositories
            .iter()
            .find_map(|r| fs::read_to_string(r.join(&rel)).ok())
        else {
            break;
        };
        out.push(next.clone());
        text = next;
    }
    out
}

/// The properties the parents of `pom` (the tree's root pom, its text) pass to the
/// compiler as its level (`<source>${javac.src.version}</source>`), read up the chain
/// ([`parent_chain`]). A lifted level set by `-D` overrides them, where it cannot
/// override a literal.
pub fn parent_level_properties(repositories: &[PathBuf], pom: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for next in parent_chain(repositories, pom) {
        if let Ok(pdoc) = roxmltree::Document::parse(&next) {
            for n in pdoc
                .descendants()
                .filter(|n| n.has_tag_name("source") || n.has_tag_name("target"))
            {
                let t = n.text().unwrap_or_default().trim();
                if let Some(name) = t.strip_prefix("${").and_then(|r| r.strip_suffix('}')) {
                    if !name.is_empty() && !out.iter().any(|o| o == name) {
                        out.push(name.to_string());
                    }
                }
            }
        }
    }
    out
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
    rewrite_poms(tree, poms, |text| lift_pom(text, to))
}

/// A pom without error-prone as the compiler plugin's compiler (a check, not a test:
/// see [`super::kind::NO_ERRORPRONE_SED`], its twin in the run script): the compiler id,
/// and each `<dependency>` element (gathered line by line, as `sed` does) that brings
/// error-prone's javac onto the plugin's class path. A pom that names neither
/// `javac-with-errorprone` nor `error_prone_core` is left as it is.
pub fn without_errorprone(text: &str) -> String {
    static RES: std::sync::OnceLock<Option<(Regex, Regex)>> = std::sync::OnceLock::new();
    let Some((id, artifact)) = RES
        .get_or_init(|| {
            let id = Regex::new(r"<compilerId>\s*javac-with-errorprone\s*</compilerId>").ok()?;
            let artifact = Regex::new(
                r"<artifactId>\s*(error_prone_core|plexus-compiler-javac-errorprone|javac)\s*</artifactId>",
            )
            .ok()?;
            Some((id, artifact))
        })
        .as_ref()
    else {
        return text.to_string();
    };
    if !super::kind::ERRORPRONE_GREP
        .split('|')
        .any(|marker| text.contains(marker))
    {
        return text.to_string();
    }
    let text = id.replace_all(text, "");
    let mut out = String::with_capacity(text.len());
    let mut element: Option<String> = None;
    for line in text.split_inclusive('\n') {
        let gathered = match element.as_mut() {
            Some(e) => {
                e.push_str(line);
                e
            }
            None if line.contains("<dependency>") => element.insert(line.to_string()),
            None => {
                out.push_str(line);
                continue;
            }
        };
        if gathered.contains("</dependency>") {
            if !artifact.is_match(gathered) {
                out.push_str(gathered);
            }
            element = None;
        }
    }
    // An element the file never closes stays, as `sed`'s `N` prints it at the end.
    out.push_str(element.as_deref().unwrap_or_default());
    out
}

/// `rewrite` over every pom of the resolve run's exported `tree`; a pom it leaves
/// unchanged is not written.
pub fn rewrite_poms(
    tree: &Path,
    poms: &[String],
    rewrite: impl Fn(&str) -> String,
) -> std::io::Result<()> {
    for rel in poms.iter().filter(|p| p.ends_with("pom.xml")) {
        let path = tree.join(rel);
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let new = rewrite(&text);
        if new != text {
            fs::write(&path, new)?;
        }
    }
    Ok(())
}

/// How many times a resolve run is repaired and run again before it fails.
pub(super) const MAX_REPAIR_ROUNDS: usize = 3;

/// One resolve run's inputs, for [`EnvCache::resolve_repairing`].
pub(super) struct Attempt<'a> {
    pub(super) repo: &'a str,
    pub(super) runner: &'a Runner,
    pub(super) log: &'a str,
    pub(super) script: &'a str,
    pub(super) online: bool,
    pub(super) tmp: &'a Path,
    pub(super) trees: &'a [&'a str],
    pub(super) poms: &'a [String],
    /// The reactor root's directory in each tree (`""`: the top).
    pub(super) root: &'a str,
    /// The chosen JDK's feature release.
    pub(super) jdk: u32,
    pub(super) vars: &'a [(OsString, OsString)],
    pub(super) readable: &'a [PathBuf],
    /// The pool's repository, which the run fills.
    pub(super) writable: &'a [PathBuf],
}

/// The resolve step's rounds of repairs (resolve.rs runs the first).
impl EnvCache {
    /// One resolve run; when Maven says a parent or BOM snapshot is unreachable, or a
    /// plain-HTTP repository refused it, the exported trees' poms move to the release
    /// or to https and the run goes again (a few rounds at
    /// most), each repair kept in `repairs`.
    pub(super) fn resolve_repairing(
        &self,
        a: &Attempt<'_>,
        repairs: &mut Vec<Repair>,
    ) -> Result<(), EnvError> {
        let mut round = 0;
        loop {
            let log = match round {
                0 => a.log.to_string(),
                n => format!("{}-repair{n}", a.log),
            };
            let err = match self.step(
                a.runner,
                a.repo,
                &log,
                a.script.to_string(),
                a.tmp,
                a.online,
                a.vars,
                a.readable,
                a.writable,
            ) {
                Ok(()) => return Ok(()),
                Err(e) => e,
            };
            let EnvError::Step { log: path, .. } = &err else {
                return Err(err);
            };
            if round == MAX_REPAIR_ROUNDS {
                return Err(err);
            }
            let text = fs::read(path)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            if let Some((by, min)) = dist::required_by(&text) {
                return Err(EnvError::NeedsMaven {
                    repo: a.repo.to_string(),
                    by,
                    min,
                    why: format!("see {}", path.display()),
                });
            }
            let mut applied = false;
            let https = refused_http(&text);
            let https = (!https.is_empty()
                && !repairs.iter().any(|r| matches!(r, Repair::Https(_))))
            .then_some(Repair::Https(https));
            let snapshots = unreachable_snapshots(&text)
                .into_iter()
                .map(Repair::Snapshot);
            // A parent or BOM the remote answered it does not have, at a version that is
            // no snapshot (or a snapshot's release, already tried): the nearest release
            // of its line, from the remote's own list. Online only: offline Maven asked
            // nobody, so nothing is known to be missing.
            let unpublished: Vec<Repair> = match a.online {
                false => Vec::new(),
                true => missing_poms(&text)
                    .iter()
                    .filter(|m| m.absent && !m.version.ends_with("-SNAPSHOT"))
                    .filter_map(|m| {
                        let listed =
                            dist::listed_for(&dist::central(), &m.group, &m.artifact).ok()?;
                        unpublished(m, &listed)
                    })
                    .map(Repair::Unpublished)
                    .collect(),
            };
            let surefire = match repairs.iter().any(|r| matches!(r, Repair::Surefire(_))) {
                true => None,
                false => self.surefire_upgrade(a, &text).map(Repair::Surefire),
            };
            for r in https
                .into_iter()
                .chain(snapshots)
                .chain(unpublished)
                .chain(surefire)
            {
                if repairs.contains(&r) {
                    continue;
                }
                for t in a.trees {
                    let dir = a.tmp.join(t);
                    let done = match &r {
                        Repair::Surefire(u) => match u.arg() {
                            Some(arg) => surefire::configure(&dir.join(a.root), &arg),
                            None => rewrite_tree(&dir, a.poms, &r),
                        },
                        r => rewrite_tree(&dir, a.poms, r),
                    };
                    applied |= done.map_err(|source| EnvError::Write {
                        path: dir.clone(),
                        source,
                    })?;
                }
                repairs.push(r);
            }
            if !applied {
                return Err(err);
            }
            round += 1;
        }
    }

    /// The surefire repair a failed resolve run's `log` calls for: a surefire before
    /// 2.21 whose test goal broke on JDK 10 or later, with where its version is set (the
    /// exported tree's poms, then the root pom's parents in the repositories the run
    /// sees); `None` otherwise or when nothing here can move it.
    fn surefire_upgrade(&self, a: &Attempt<'_>, log: &str) -> Option<surefire::Upgrade> {
        if a.jdk < 10 {
            return None;
        }
        let from = surefire::failed_old(log)?;
        let tree = a.tmp.join(a.trees.first()?);
        let read = |rel: &str| fs::read_to_string(tree.join(rel)).ok();
        let root_pom = match a.root {
            "" => "pom.xml".to_string(),
            dir => format!("{dir}/pom.xml"),
        };
        // The root pom first, then the modules'.
        let texts: Vec<String> = std::iter::once(root_pom.as_str())
            .chain(
                a.poms
                    .iter()
                    .map(String::as_str)
                    .filter(|p| p.ends_with("pom.xml") && *p != root_pom),
            )
            .filter_map(read)
            .collect();
        let repositories: Vec<PathBuf> = a.writable.iter().chain(a.readable).cloned().collect();
        let parents = parent_chain(&repositories, &read(&root_pom).unwrap_or_default());
        let how = surefire::version_source(&texts, &parents)?;
        Some(surefire::Upgrade { from, how })
    }
}

#[cfg(test)]
#[path = "repair_tests.rs"]
mod tests;
