//! Which Maven a build runs: the installed `mvn` (its version remembered per
//! installation), or a distribution besides it: the version a build needs (its
//! wrapper names a newer one, or a plugin's descriptor refuses the installed one:
//! apache-rat-plugin 0.18 requires Maven 3.9), found in the environment cache, in the
//! seed repository, or downloaded once from Maven Central (`apache-maven-<v>-bin.tar.gz`,
//! its published SHA-512 checked) and unpacked under `<envs>/.maven/<v>`. Only the
//! resolve phase comes here; runs use the unpacked home offline.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use sha2::{Digest, Sha256, Sha512};

use super::super::{hex8, EnvError};
use super::kind::strip_ansi;
use crate::validate::runner::find_in_path;

/// The remote repository distributions are downloaded from (a mirror or a loopback
/// stand-in in tests); Maven Central's address when unset.
pub const CENTRAL_VAR: &str = "HUNKGEN_MAVEN_CENTRAL";

/// Maven Central, where every Apache Maven release is published as an artifact.
const CENTRAL: &str = "https://repo.maven.apache.org/maven2";

/// The artifact's directory below a repository's root.
const ARTIFACT_DIR: &str = "org/apache/maven/apache-maven";

/// In an unpacked distribution's directory: `mvn --version`'s first line, written once
/// it ran, so a directory without it is never used.
const VERSION_FILE: &str = "hunkgen-version";

/// A distribution ready to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dist {
    /// Its Maven home (holding `bin/mvn`).
    pub home: PathBuf,
    /// `mvn --version`'s first line (`Apache Maven 3.9.16 (…)`).
    pub line: String,
}

/// A version's numeric parts (`3.9.16` → [3, 9, 16]; `4.0.0-rc-2` → [4, 0, 0]), none
/// when it starts with no number.
pub fn parts(version: &str) -> Option<Vec<u64>> {
    let core = version
        .trim()
        .split(|c: char| c == '-' || c.is_whitespace())
        .next()?;
    let v: Vec<u64> = core.split('.').map_while(|p| p.parse().ok()).collect();
    (!v.is_empty()).then_some(v)
}

/// Whether `v` is at least `min`, part by part (missing parts are 0).
pub fn at_least(v: &str, min: &str) -> bool {
    let (Some(a), Some(b)) = (parts(v), parts(min)) else {
        return false;
    };
    let n = a.len().max(b.len());
    let get = |x: &[u64], i: usize| x.get(i).copied().unwrap_or(0);
    (0..n)
        .map(|i| get(&a, i).cmp(&get(&b, i)))
        .find(|o| o.is_ne())
        .is_none_or(|o| o.is_gt())
}

/// The version in `mvn --version`'s first line (`Apache Maven 3.8.7 (…)` → `3.8.7`).
pub fn version_of(line: &str) -> Option<&str> {
    line.strip_prefix("Apache Maven ")?
        .split_whitespace()
        .next()
}

/// The runs' extra flag for a Maven whose resolver locks artifacts with files in the
/// local repository (Maven 3.10's resolver 2 does by default, and 3.9 can): the runs
/// bind the repository read-only and are one process each, so they take no lock
/// (`noop`, which resolver 1.9 and 2 name so). Empty for older Mavens, whose resolver
/// knows no such factory.
pub fn run_lock_flags(line: &str) -> &'static str {
    match version_of(line) {
        Some(v) if at_least(v, "3.9") => " -Daether.syncContext.named.factory=noop",
        _ => "",
    }
}

/// A pre-release (`-alpha-1`, `-beta-2`, `-rc-3`): never chosen unless named.
fn pre_release(v: &str) -> bool {
    v.contains('-')
}

/// In a failed build's log, the plugin that refuses this Maven and the least version it
/// takes: `The plugin org.apache.rat:apache-rat-plugin:0.18 requires Maven version 3.9`
/// → (`org.apache.rat:apache-rat-plugin:0.18`, `3.9`). A range's lower bound is taken
/// (`[3.9,)` → `3.9`).
pub fn required_by(log: &str) -> Option<(String, String)> {
    log.lines().find_map(|l| {
        let l = strip_ansi(l);
        let (before, after) = l.split_once(" requires Maven version ")?;
        let plugin = before.rsplit("The plugin ").next()?.trim().to_string();
        let raw = after.split_whitespace().next()?;
        let min = raw
            .trim_start_matches(['[', '('])
            .split(',')
            .next()?
            .trim_end_matches([']', ')']);
        parts(min).map(|_| (plugin, min.to_string()))
    })
}

/// The remote repository's root, without a trailing slash (`HUNKGEN_MAVEN_CENTRAL`, else
/// Maven Central).
pub fn central() -> String {
    std::env::var(CENTRAL_VAR)
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| CENTRAL.to_string())
        .trim_end_matches('/')
        .to_string()
}

/// Versions unpacked in the cache or lying in the seed repository.
fn local_versions(cache: &Path, seed: Option<&Path>) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    if let Ok(rd) = fs::read_dir(cache) {
        found.extend(
            rd.flatten()
                .filter(|e| e.path().join(VERSION_FILE).is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned()),
        );
    }
    if let Some(rd) = seed.and_then(|s| fs::read_dir(s.join(ARTIFACT_DIR)).ok()) {
        found.extend(rd.flatten().filter_map(|e| {
            let v = e.file_name().to_string_lossy().into_owned();
            e.path()
                .join(format!("apache-maven-{v}-bin.tar.gz"))
                .is_file()
                .then_some(v)
        }));
    }
    found.sort();
    found.dedup();
    found
}

/// The release a plugin's prerequisite `min` gets: the newest of `min`'s own minor line
/// (`3.9` → the newest 3.9.x, the line the plugin was built against, closest to the
/// commit's era), else the newest of its major line, each at least `min`. Releases
/// already here (the cache, the seed) are asked first at each step, so a key stays what
/// it was; with network (`remote`, the repository's root), what the repository lists.
pub fn pick(
    min: &str,
    cache: &Path,
    seed: Option<&Path>,
    remote: Option<&str>,
) -> Result<String, String> {
    let Some(want) = parts(min) else {
        return Err(format!("`{min}` is no Maven version"));
    };
    // The release lines tried in turn: `min`'s minor line (when it names one), its major.
    let lines: Vec<usize> = if want.len() >= 2 { vec![2, 1] } else { vec![1] };
    let newest = |vs: &[String], line: usize| {
        vs.iter()
            .filter(|v| {
                !pre_release(v)
                    && at_least(v, min)
                    && parts(v).is_some_and(|p| p.len() >= line && p[..line] == want[..line])
            })
            .max_by(|a, b| parts(a).cmp(&parts(b)))
            .cloned()
    };
    let local = local_versions(cache, seed);
    let mut listed: Option<Vec<String>> = None;
    for line in lines {
        if let Some(v) = newest(&local, line) {
            return Ok(v);
        }
        let Some(remote) = remote else {
            continue;
        };
        if listed.is_none() {
            listed = Some(listed_versions(remote)?);
        }
        if let Some(v) = listed.as_deref().and_then(|l| newest(l, line)) {
            return Ok(v);
        }
    }
    Err(match remote {
        None => format!(
            "no Maven {min} or newer is unpacked in {} or lies in the seed repository, and \
             the network is off for setup",
            cache.display()
        ),
        Some(remote) => format!(
            "{remote}/{ARTIFACT_DIR}/maven-metadata.xml lists no release of Maven {min} or newer"
        ),
    })
}

/// The versions `remote`'s `maven-metadata.xml` lists for the distribution artifact.
fn listed_versions(remote: &str) -> Result<Vec<String>, String> {
    listed_at(remote, ARTIFACT_DIR)
}

/// The versions `remote`'s `maven-metadata.xml` lists for `group:artifact` (the resolve
/// step's repair of a parent never published asks it, online only).
pub fn listed_for(remote: &str, group: &str, artifact: &str) -> Result<Vec<String>, String> {
    listed_at(remote, &format!("{}/{artifact}", group.replace('.', "/")))
}

/// The versions listed by the `maven-metadata.xml` in `dir` below `remote`.
fn listed_at(remote: &str, dir: &str) -> Result<Vec<String>, String> {
    let url = format!("{remote}/{dir}/maven-metadata.xml");
    let text = get(&url).and_then(|b| String::from_utf8(b).map_err(|e| format!("{url}: {e}")))?;
    let doc = roxmltree::Document::parse(&text).map_err(|e| format!("{url}: {e}"))?;
    Ok(doc
        .descendants()
        .filter(|n| n.has_tag_name("version"))
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .collect())
}

/// One HTTP GET's body, up to 200 MiB (a plain error line otherwise).
fn get(url: &str) -> Result<Vec<u8>, String> {
    let agent: ureq::Agent = crate::http::config(Duration::from_secs(600)).build().into();
    let mut resp = agent.get(url).call().map_err(|e| format!("{url}: {e}"))?;
    resp.body_mut()
        .with_config()
        .limit(200 * 1024 * 1024)
        .read_to_vec()
        .map_err(|e| format!("{url}: {e}"))
}

/// Maven `version`'s distribution, unpacked under `cache/<version>`: reused when it is
/// there, else from the seed repository's tarball, else downloaded (with network, from
/// `remote`, the repository's root) and checked against the SHA-512 published beside
/// it. Unpacked into a temporary directory and renamed, so a crash leaves nothing
/// half-made; callers hold the cache's lock.
pub fn ensure(
    version: &str,
    cache: &Path,
    seed: Option<&Path>,
    remote: Option<&str>,
) -> Result<Dist, String> {
    if version.contains(['/', '\\']) || version.starts_with('.') || parts(version).is_none() {
        return Err(format!("`{version}` is no Maven version"));
    }
    let dir = cache.join(version);
    if let Some(d) = ready(&dir, version) {
        return Ok(d);
    }
    let name = format!("apache-maven-{version}-bin.tar.gz");
    let seeded = seed.map(|s| s.join(ARTIFACT_DIR).join(version).join(&name));
    let tarball = match (seeded.filter(|p| p.is_file()), remote) {
        (Some(p), _) => fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?,
        (None, Some(remote)) => {
            let url = format!("{remote}/{ARTIFACT_DIR}/{version}/{name}");
            let body = get(&url)?;
            let sum = get(&format!("{url}.sha512"))?;
            let want = String::from_utf8_lossy(&sum)
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase();
            let have = format!("{:x}", Sha512::digest(&body));
            if want != have {
                return Err(format!(
                    "{url}: its SHA-512 is {have}, but {url}.sha512 says {want}"
                ));
            }
            body
        }
        (None, None) => {
            return Err(format!(
                "Maven {version} is not unpacked in {}, the seed repository lacks {name}, \
                 and the network is off for setup",
                cache.display()
            ))
        }
    };
    fs::create_dir_all(cache).map_err(|e| format!("{}: {e}", cache.display()))?;
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".tmp-{version}-"))
        .tempdir_in(cache)
        .map_err(|e| format!("{}: {e}", cache.display()))?;
    let archive = tmp.path().join(&name);
    fs::write(&archive, &tarball).map_err(|e| format!("{}: {e}", archive.display()))?;
    let out = std::process::Command::new("tar")
        .arg("-xzf")
        .arg(&archive)
        .arg("-C")
        .arg(tmp.path())
        .output()
        .map_err(|e| format!("tar: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "unpacking {name}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let home = tmp.path().join(format!("apache-maven-{version}"));
    let line = ask_version(&home.join("bin/mvn"))
        .ok_or_else(|| format!("Maven {version} unpacked from {name} does not run"))?;
    if version_of(&line) != Some(version) {
        return Err(format!("{name} holds `{line}`, not Maven {version}"));
    }
    fs::write(home.join(VERSION_FILE), format!("{line}\n"))
        .map_err(|e| format!("{}: {e}", home.display()))?;
    fs::rename(&home, &dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    ready(&dir, version).ok_or_else(|| format!("{} vanished", dir.display()))
}

/// Maven `version` unpacked under `cache`, when it is complete: read without the
/// cache's lock (a directory appears complete, by rename), so a warm run takes none.
pub fn unpacked(cache: &Path, version: &str) -> Option<Dist> {
    parts(version)?;
    if version.contains(['/', '\\']) || version.starts_with('.') {
        return None;
    }
    ready(&cache.join(version), version)
}

/// The distribution unpacked at `dir`, when it is complete.
fn ready(dir: &Path, version: &str) -> Option<Dist> {
    let line = fs::read_to_string(dir.join(VERSION_FILE)).ok()?;
    let line = line.trim_end().to_string();
    (dir.join("bin/mvn").is_file() && version_of(&line) == Some(version)).then(|| Dist {
        home: dir.to_path_buf(),
        line,
    })
}

/// A fingerprint of the Maven installation `mvn` starts: its canonical path and the
/// names, sizes and times of its home's `lib/` jars (an upgrade changes them).
fn maven_fingerprint(mvn: &Path) -> Option<String> {
    let real = fs::canonicalize(mvn).ok()?;
    let lib = real.parent()?.parent()?.join("lib");
    let mut entries: Vec<(String, u64, i64)> = fs::read_dir(&lib)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let m = e.metadata().ok()?;
            let t = m
                .modified()
                .ok()?
                .duration_since(std::time::UNIX_EPOCH)
                .ok()?
                .as_secs() as i64;
            Some((e.file_name().to_string_lossy().into_owned(), m.len(), t))
        })
        .collect();
    entries.sort();
    let mut h = Sha256::new();
    h.update(real.to_string_lossy().as_bytes());
    for (name, len, time) in entries {
        h.update(format!("\0{name}\0{len}\0{time}").as_bytes());
    }
    Some(hex8(h))
}

/// `mvn --version`'s first line (the Maven version keys the repository: its default
/// plugin versions differ, §1), asked once per process, and kept in the environment
/// cache under the installation's fingerprint, so a warm rebuild starts no JVM for it.
pub(super) fn installed_version(cache_root: &Path) -> Result<String, EnvError> {
    static VERSION: OnceLock<Option<String>> = OnceLock::new();
    let missing = || EnvError::MissingTool {
        tool: "mvn".into(),
        hint: "install Maven (Debian: maven) and put mvn on PATH".into(),
    };
    VERSION
        .get_or_init(|| {
            let mvn = find_in_path("mvn")?;
            let remembered =
                maven_fingerprint(&mvn).map(|f| cache_root.join(".maven-version").join(f));
            if let Some(line) = remembered
                .as_ref()
                .and_then(|p| fs::read_to_string(p).ok())
                .filter(|l| l.starts_with("Apache Maven"))
            {
                return Some(line.trim_end().to_string());
            }
            let first = ask_version(&mvn)?;
            if let Some(p) = &remembered {
                // Best effort: written under a temporary name, then renamed.
                let _ = crate::dataset::write_atomic(p, format!("{first}\n").as_bytes());
            }
            Some(first)
        })
        .clone()
        .ok_or_else(missing)
}

/// Runs `mvn -B --version` and returns its first line when it names Apache Maven.
pub(super) fn ask_version(mvn: &Path) -> Option<String> {
    let text =
        crate::validate::runner::host_answer(mvn, &["-B", "--version"], Duration::from_secs(120))?;
    let first = strip_ansi(text.lines().next()?).trim().to_string();
    first.starts_with("Apache Maven").then_some(first)
}

#[cfg(test)]
#[path = "dist_tests.rs"]
mod tests;
