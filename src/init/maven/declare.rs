//! What a Maven tree declares about its build, read offline from a git revision.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::pom::{self, Pom};

/// What the tree of one commit declares about its Maven build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MavenDeclared {
    /// The reactor root pom (`pom.xml`), where every Maven command of the build starts.
    pub root: String,
    /// Every module of the reactor, root first, so tests and sources can be found in each.
    pub modules: Vec<MavenModule>,
    /// The highest level any module compiles at: the JDK must be at least that new.
    pub java_level: Option<JavaLevel>,
    /// The enforcer's `requireJavaVersion` range, as written: a JDK outside it fails the build.
    pub enforcer_java: Option<String>,
    /// The Maven version the wrapper names, so the run uses the Maven the project used.
    pub wrapper_maven: Option<String>,
    /// Every `pom.xml` and every file under `.mvn/`, sorted: what the resolved
    /// dependencies depend on, hence the key of their cache.
    pub build_files: Vec<String>,
    /// The commit's committer time (Unix seconds), to choose a JDK of its era.
    pub commit_time: i64,
}

/// One module of a reactor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MavenModule {
    /// The module's directory, repository-relative (`.` for the root), to run it alone.
    pub dir: String,
    /// The module's pom, repository-relative, since a `<module>` may name a file.
    pub pom: String,
    /// Directories of its main sources, repository-relative, where hunks are placed.
    pub source_roots: Vec<String>,
    /// Directories of its test sources, repository-relative, where golden tests live.
    pub test_source_roots: Vec<String>,
    /// The level this module compiles at, when it declares one.
    pub java_level: Option<JavaLevel>,
}

/// A `-source`/`--release` level and where it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JavaLevel {
    /// The Java feature level (`1.8` → 8), what a JDK is checked against.
    pub level: u32,
    /// The value as the build passes it to javac (`1.8`), properties resolved, for the record.
    pub written: String,
    /// Where it came from (`pom.xml: maven-compiler-plugin <release>`), for the record.
    pub origin: String,
}

impl MavenDeclared {
    /// The reactor root's directory, repository-relative: empty for the top of the tree.
    pub fn root_dir(&self) -> &str {
        super::pom::dir_of(&self.root)
    }
}

/// What the tree of `rev` in `repo` declares, read from git objects (no checkout).
pub fn declared_at(repo: &Path, rev: &str) -> Result<MavenDeclared, String> {
    declared_for(repo, rev, &[])
}

/// [`declared_at`] for a change to `changed` (repository paths): when the tree has no
/// pom at its top, the reactor root is the pom of the shallowest directory above every
/// changed file ([`project_dir`]).
pub fn declared_for(repo: &Path, rev: &str, changed: &[&str]) -> Result<MavenDeclared, String> {
    let paths = crate::git::tree_paths(repo, rev).map_err(|e| e.to_string())?;
    let read = |p: &str| -> Option<String> {
        crate::git::read_blob(repo, rev, p, &[])
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let commit_time = crate::git::commit_time(repo, rev).map_err(|e| e.to_string())?;
    let dir = project_dir(&paths, changed).map_err(|e| format!("{rev}: {e}"))?;
    declare_in(&read, &paths, commit_time, &dir).map_err(|e| format!("{rev}: {e}"))
}

/// Where a change's reactor starts: the top of the tree when it holds a `pom.xml`, else
/// the shallowest directory with a `pom.xml` above every changed file (a repository of
/// several projects side by side, as gson's was until 2015: `gson/pom.xml` beside
/// `proto/` and `wsclient/`).
pub fn project_dir(paths: &[String], changed: &[&str]) -> Result<String, String> {
    if paths.iter().any(|p| p == "pom.xml") {
        return Ok(String::new());
    }
    let none = "not a Maven tree: no pom.xml at the top of the tree";
    if changed.is_empty() {
        return Err(none.into());
    }
    let mut dirs: Vec<&str> = paths
        .iter()
        .filter_map(|p| p.strip_suffix("/pom.xml"))
        .filter(|d| {
            changed
                .iter()
                .all(|c| c.strip_prefix(d).is_some_and(|r| r.starts_with('/')))
        })
        .collect();
    dirs.sort_by_key(|d| (d.matches('/').count(), d.len()));
    dirs.first()
        .map(|d| d.to_string())
        .ok_or_else(|| format!("{none}, nor in a directory above every changed file"))
}

/// What a tree declares, given its files (`files` reads one by repository path) and
/// every path it holds: the pure half of [`declared_at`], so it can be tested on text.
pub fn declare(
    files: &dyn Fn(&str) -> Option<String>,
    paths: &[String],
    commit_time: i64,
) -> Result<MavenDeclared, String> {
    declare_in(files, paths, commit_time, "")
}

/// [`declare`] with the reactor root in `dir` (repository-relative; empty for the top).
fn declare_in(
    files: &dyn Fn(&str) -> Option<String>,
    paths: &[String],
    commit_time: i64,
    dir: &str,
) -> Result<MavenDeclared, String> {
    let under = |p: &str| match dir.is_empty() {
        true => p.to_string(),
        false => format!("{dir}/{p}"),
    };
    let root_pom = under("pom.xml");
    let mvn_dir = under(".mvn/");
    const ROOT: &str = "pom.xml";
    let root = root_pom.as_str();
    if !paths.iter().any(|p| p == root) {
        return Err(match dir.is_empty() {
            true => "not a Maven tree: no pom.xml at the top of the tree".into(),
            false => format!("not a Maven tree: no {root}"),
        });
    }
    let mut reactor = Reactor {
        files,
        poms: HashMap::new(),
    };
    // Modules in the order Maven lists them: depth first, each after its aggregator.
    let mut order: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut stack = vec![root.to_string()];
    while let Some(path) = stack.pop() {
        if !seen.insert(path.clone()) {
            continue;
        }
        let Some(pom) = reactor.pom(&path)? else {
            // A module the tree lacks: Maven would stop; the others are still read.
            continue;
        };
        let dir = pom::dir_of(&path).to_string();
        let subs: Vec<String> = pom
            .modules
            .iter()
            .filter_map(|m| pom::pom_at(&dir, m))
            .collect();
        order.push(path);
        stack.extend(subs.into_iter().rev());
    }
    let mut modules = Vec::with_capacity(order.len());
    for path in &order {
        modules.push(reactor.module(path)?);
    }
    let java_level = modules
        .iter()
        .filter_map(|m| m.java_level.clone())
        .max_by_key(|l| l.level);
    let mut enforcer_java = None;
    for path in &order {
        if let Some(v) = reactor.enforcer(path)? {
            enforcer_java = Some(v);
            break;
        }
    }
    let mut build_files: Vec<String> = paths
        .iter()
        .filter(|p| *p == ROOT || p.ends_with("/pom.xml") || p.starts_with(&mvn_dir))
        .cloned()
        .chain(order.iter().cloned())
        .collect();
    build_files.sort();
    build_files.dedup();
    Ok(MavenDeclared {
        root: root.into(),
        modules,
        java_level,
        enforcer_java,
        wrapper_maven: files(&under(".mvn/wrapper/maven-wrapper.properties"))
            .as_deref()
            .and_then(wrapper_version),
        build_files,
        commit_time,
    })
}

/// The poms of a tree, each parsed once, and their inheritance.
struct Reactor<'f> {
    files: &'f dyn Fn(&str) -> Option<String>,
    poms: HashMap<String, Option<Pom>>,
}

impl Reactor<'_> {
    /// The pom at `path`, `None` when the tree has no such file.
    fn pom(&mut self, path: &str) -> Result<Option<Pom>, String> {
        if let Some(p) = self.poms.get(path) {
            return Ok(p.clone());
        }
        let parsed = match (self.files)(path) {
            Some(text) => Some(pom::parse(path, &text)?),
            None => None,
        };
        self.poms.insert(path.to_string(), parsed.clone());
        Ok(parsed)
    }

    /// `path` and its parents found in the tree, nearest first: a parent counts when
    /// its `<relativePath>` (default `../pom.xml`) leads to a pom of the artifactId
    /// named, as Maven checks before it looks in a repository.
    fn chain(&mut self, path: &str) -> Result<Vec<(String, Pom)>, String> {
        let mut out: Vec<(String, Pom)> = Vec::new();
        let mut next = Some(path.to_string());
        while let Some(p) = next.take() {
            if out.iter().any(|(q, _)| *q == p) {
                break;
            }
            let Some(pom) = self.pom(&p)? else {
                break;
            };
            if let Some((artifact, Some(rel))) = &pom.parent {
                if let Some(parent_path) = pom::pom_at(pom::dir_of(&p), rel) {
                    let matches = match self.pom(&parent_path)? {
                        Some(parent) => artifact.is_none() || parent.artifact_id == *artifact,
                        None => false,
                    };
                    if matches {
                        next = Some(parent_path);
                    }
                }
            }
            out.push((p, pom));
        }
        Ok(out)
    }

    /// One module: its source roots and level, inherited through its parents.
    fn module(&mut self, path: &str) -> Result<MavenModule, String> {
        let chain = self.chain(path)?;
        let props = chain_properties(&chain);
        let dir = pom::dir_of(path).to_string();
        let root_of = |get: fn(&Pom) -> &Option<String>, default: &str| -> Vec<String> {
            let written = chain
                .iter()
                .find_map(|(_, p)| get(p).clone())
                .unwrap_or_else(|| default.to_string());
            source_dir(&dir, &written, &props).into_iter().collect()
        };
        Ok(MavenModule {
            dir: if dir.is_empty() {
                ".".into()
            } else {
                dir.clone()
            },
            pom: path.to_string(),
            source_roots: root_of(|p| &p.source_dir, "src/main/java"),
            test_source_roots: {
                // The declared root, then those build-helper adds (inherited plugins
                // included), each once.
                let mut roots = root_of(|p| &p.test_source_dir, "src/test/java");
                let added = chain.iter().flat_map(|(_, p)| &p.added_test_sources);
                for root in added.filter_map(|w| source_dir(&dir, w, &props)) {
                    if !roots.contains(&root) {
                        roots.push(root);
                    }
                }
                roots
            },
            java_level: java_level(&chain, &props),
        })
    }

    /// The enforcer's Java range declared for the module at `path` (or its parents).
    fn enforcer(&mut self, path: &str) -> Result<Option<String>, String> {
        let chain = self.chain(path)?;
        let props = chain_properties(&chain);
        Ok(chain
            .iter()
            .find_map(|(_, p)| p.enforcer_java.as_deref())
            .map(|v| pom::resolve(v, &props)))
    }
}

/// A source directory as written (`${project.basedir}/src/it/java`), repository-relative.
fn source_dir(module_dir: &str, written: &str, props: &[(String, String)]) -> Option<String> {
    let resolved = pom::resolve(written, props);
    let mut rel = resolved.as_str();
    for base in ["${project.basedir}", "${basedir}", "${pom.basedir}"] {
        if let Some(r) = rel.strip_prefix(base) {
            rel = r.trim_start_matches('/');
        }
    }
    if rel.starts_with('/') {
        // Absolute: outside the working copy, kept as written.
        return Some(rel.to_string());
    }
    pom::join(module_dir, rel)
}

/// The level a module compiles at, by the precedence the compiler plugin applies: a
/// release (its `<release>`, else the `maven.compiler.release` property) wins over any
/// source or target, then `<source>`/`<target>` of its configuration (nearest pom
/// first), then the `maven.compiler.source`/`target` properties, then Commons' older
/// `maven.compile.source`/`target` (what commons-parent passed to the compiler before
/// Maven's own names). A value that does not resolve to a level (an unknown property)
/// is passed over.
fn java_level(chain: &[(String, Pom)], props: &[(String, String)]) -> Option<JavaLevel> {
    type Get = fn(&Pom) -> &Option<String>;
    let configured = |name: &str, get: Get| {
        let (path, raw) = chain
            .iter()
            .find_map(|(path, p)| get(p).as_ref().map(|v| (path, v)))?;
        level_of(raw, props, || {
            format!("{path}: maven-compiler-plugin <{name}>")
        })
    };
    let property = |key: &str| {
        let (_, raw) = props.iter().rev().find(|(k, _)| k == key)?;
        level_of(raw, props, || format!("property {key}"))
    };
    configured("release", |p| &p.release)
        .or_else(|| property("maven.compiler.release"))
        .or_else(|| configured("source", |p| &p.source))
        .or_else(|| configured("target", |p| &p.target))
        .or_else(|| property("maven.compiler.source"))
        .or_else(|| property("maven.compiler.target"))
        .or_else(|| property("maven.compile.source"))
        .or_else(|| property("maven.compile.target"))
}

fn level_of(
    raw: &str,
    props: &[(String, String)],
    origin: impl FnOnce() -> String,
) -> Option<JavaLevel> {
    let written = pom::resolve(raw, props);
    let level = feature_level(&written)?;
    let mut origin = origin();
    if written != raw {
        origin.push_str(&format!(" {raw}"));
    }
    Some(JavaLevel {
        level,
        written,
        origin,
    })
}

/// The feature number of a Java version as builds write it: `1.8` → 8, `1.5` → 5,
/// `11` → 11, `1.8.0_292` → 8; `None` when it does not start with a number.
pub fn feature_level(text: &str) -> Option<u32> {
    let number = |s: &str| -> Option<u32> {
        let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    let text = text.trim();
    match text.strip_prefix("1.") {
        Some(rest) => number(rest),
        None => number(text),
    }
}

/// The properties a pom sees through its chain (the pom first, then its parents):
/// parents' first, so a child's property overrides its parent's.
fn chain_properties(chain: &[(String, Pom)]) -> Vec<(String, String)> {
    chain
        .iter()
        .rev()
        .flat_map(|(_, p)| p.properties.iter().cloned())
        .collect()
}

/// The Maven version a wrapper's `distributionUrl` downloads
/// (`…/apache-maven/3.6.3/apache-maven-3.6.3-bin.zip` → `3.6.3`).
fn wrapper_version(properties: &str) -> Option<String> {
    let url = properties.lines().find_map(|l| {
        let l = l.trim();
        let rest = l.strip_prefix("distributionUrl")?;
        let rest = rest.trim_start();
        Some(rest.strip_prefix(['=', ':'])?.trim().replace("\\:", ":"))
    })?;
    let file = url.rsplit('/').next()?;
    let from_file = file
        .strip_prefix("apache-maven-")
        .and_then(|f| f.split_once("-bin."))
        .map(|(v, _)| v.to_string());
    from_file.or_else(|| {
        let mut segments = url.split('/');
        segments.find(|s| *s == "apache-maven")?;
        segments.next().map(str::to_string)
    })
}

#[cfg(test)]
#[path = "declare_tests.rs"]
mod tests;
