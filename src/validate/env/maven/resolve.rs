//! `maven: auto`'s resolve phase, the only one with network: per instance the JDK and
//! the key (build files, JDK, Maven), then, once per key under a lock, one real test run
//! at the base tree (offline from the pool or a seed first) into the local repository
//! the clone's keys share (pool.rs), repairing unreachable snapshots and lifting literal levels on the way
//! (docs/design/maven-offline.md §1–§3).

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::super::kind::{InstanceEnv, InstanceTree, KindRecord};
use super::super::{
    fresh, hex8, prepend_paths, read_manifest, sh_quote, slug, BuiltEnv, EnvCache, EnvError,
    EnvSpec,
};
use super::compile::{compile_failure, refused_level};
use super::dist;
use super::kind::{
    changes_build, dropping_into, level_flags, lift_level, maven_err, mvn_args, resolve_classes,
    restore_dropped, settings_xml, surefire_paths, MavenAutoSpec, ARGS_FILE, LIFT_FILE,
    MAVEN_HOME_FILE, ROOT_FILE, SEED_VAR, TEST_FLAGS, UNRESOLVED,
};
use super::learned;
use super::pool::Pool;
use super::repair::{self, Attempt, Repair};
use super::{choose, declared_for, discover, toolchains_xml, JdkChoice, MavenDeclared};
use crate::validate::runner::Runner;

/// The file in an environment listing its build-file repairs, one per line.
const REPAIRS_FILE: &str = "repairs";

/// Removes every module's `target/` (a directory beside a `pom.xml`) before a resolve
/// attempt, so an attempt builds from the sources alone: after an offline attempt that
/// failed half-way, maven-compiler-plugin's incremental build (3.10.1, gson 2023)
/// recompiled 54 of 80 changed sources against the earlier output and failed with
/// "cannot find symbol" on code that compiles.
pub(super) const CLEAN_TARGETS: &str =
    "find . -type d -name target -prune -exec test -f {}/../pom.xml ';' -exec rm -rf {} + && ";

/// Where a resolve run keeps Maven's output of its latest round, in the exported tree.
const RESOLVE_LOG: &str = ".hunkgen-resolve.log";

/// In an environment: the clone, JDK version and Maven line it was resolved with (the
/// pool's identity, pool.rs).
const RESOLVED_WITH: &str = "resolved_with";

/// Where `maven: auto` keeps the Maven distributions it unpacked (dist.rs), in the
/// environment cache.
const DISTS_DIR: &str = ".maven";

/// The Maven an environment resolves and runs with: the installed `mvn`, or a
/// distribution the build needs (its wrapper's, or one a plugin takes).
#[derive(Debug, Clone)]
struct MavenUse {
    /// `mvn --version`'s first line; part of the key.
    line: String,
    /// The distribution's home; none for the installed `mvn`.
    home: Option<PathBuf>,
    /// Why not the installed one.
    why: Option<String>,
}

/// Feeds the changes the runs apply (each after a NUL) to `h`: part of a key whose
/// changed tree has build files, and of the tree a lesson of its code is kept for.
fn hash_changes(h: &mut Sha256, changes: &[&crate::diff::Patch]) {
    for p in changes {
        h.update(b"\0");
        h.update(p.to_bytes());
    }
}

/// Whether Maven's log at `log` says, on an error line, that an artifact could not be
/// resolved (an `[INFO]` line of buildnumber-maven-plugin also says "offline mode").
fn unresolved_in(log: &Path) -> bool {
    let text = fs::read(log)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    text.lines()
        .any(|l| l.contains("ERROR]") && UNRESOLVED.iter().any(|p| l.contains(p)))
}

/// Whether a resolve log says a dependency is the JDK's own `lib/tools.jar`
/// (`com.sun:tools` at `${java.home}/../lib/tools.jar`, through compile-testing's
/// poms of 2015-2017 in javapoet): no JDK after 8 has that file.
fn needs_tools_jar(log: &str) -> bool {
    log.lines().any(|l| {
        l.contains("ERROR]") && l.contains("com.sun:tools:jar") && l.contains("lib/tools.jar")
    })
}

impl EnvCache {
    /// The environment `maven: auto` infers for an instance's base tree: the JDK chosen
    /// from its poms, and a local repository keyed by the build files' contents, the
    /// JDK and Maven, resolved once per key (offline from a seed first, then online
    /// when the network is allowed).
    pub fn ensure_maven(
        &self,
        runner: &Runner,
        repo: &str,
        tree: &InstanceTree<'_>,
    ) -> Result<InstanceEnv, EnvError> {
        if !tree.workdir.is_empty() {
            return Err(maven_err(
                repo,
                "runs from the reactor's root pom: give the suite no workdir",
            ));
        }
        let changed: Vec<&str> = tree
            .changes
            .iter()
            .flat_map(|p| p.files.iter().map(|f| f.path()))
            .collect();
        let d =
            declared_for(tree.repo_path, tree.rev, &changed).map_err(|why| maven_err(repo, why))?;
        let found = discover();
        let choice = choose(
            d.java_level.as_ref().map(|l| l.level),
            d.enforcer_java.as_deref(),
            d.commit_time,
            &found,
        )
        .map_err(|n| EnvError::UnsupportedJdk {
            repo: repo.to_string(),
            why: n.to_string(),
        })?;
        let installed = dist::installed_version(&self.root)?;
        let mut maven = self.wrapper_maven(&installed, d.wrapper_maven.as_deref());
        // The build files are read and hashed once; a second JDK choice (an inherited
        // level javac refused) or Maven (one a plugin takes) only changes its own part
        // of the key.
        let mut files = Sha256::new();
        files.update(b"hunkgen-maven-v1\0");
        files.update(repo.as_bytes());
        let mut since: Vec<&[u8]> = Vec::new();
        for f in &d.build_files {
            let bytes = crate::git::read_blob(tree.repo_path, tree.rev, f, &[])
                .map_err(|e| maven_err(repo, format!("{f}: {e}")))?;
            files.update(b"\0");
            files.update(f.as_bytes());
            files.update((bytes.len() as u64).to_le_bytes());
            files.update(&bytes);
            super::kind::key_marks(&bytes, &mut since);
        }
        for part in since {
            files.update(part);
        }
        let key_for = |choice: &JdkChoice, maven: &MavenUse| -> String {
            let mut h = files.clone();
            h.update(b"\0");
            h.update(choice.jdk.version.as_bytes());
            h.update(b"\0");
            h.update(maven.line.as_bytes());
            if choice.lifted_from.is_some() && d.java_level.is_none() {
                // Lifted from a level only javac named (an external parent's).
                h.update(b"\0inherited-lift");
            }
            if !dist::run_lock_flags(&maven.line).is_empty() {
                // Its runs take the flag below (environments made before it lack it).
                h.update(b"\0noop-locks");
            }
            if !choice.also.is_empty() {
                // The lift sets an external parent's own level properties too.
                h.update(b"\0also");
                for p in &choice.also {
                    h.update(b"\0");
                    h.update(p.as_bytes());
                }
            }
            if !d.root_dir().is_empty() {
                // A reactor below the top of the tree (several projects side by side).
                h.update(b"\0root\0");
                h.update(d.root_dir().as_bytes());
            }
            if changes_build(tree.changes) {
                // The changed tree's build files follow from the base's and the changes.
                h.update(b"\0changes");
                hash_changes(&mut h, tree.changes);
            }
            format!("{}-maven-{}", slug(repo), hex8(h))
        };
        // The tree a lesson of its own code is kept for: the base and the changes.
        let tree_id = {
            let mut h = Sha256::new();
            h.update(tree.rev.as_bytes());
            hash_changes(&mut h, tree.changes);
            hex8(h)
        };
        let mut choice = choice;
        // Each retry learns one thing the first run could not know, so each happens
        // once: the level an external parent sets, the Maven a plugin needs.
        let (mut relevelled, mut remavened, mut reproped) = (false, false, false);
        let env = loop {
            let key = key_for(&choice, &maven);
            // A key whose resolve run failed in a way that changes the key is not run
            // again: what it taught is recalled (a warm build stays offline).
            let built = match learned::recall(&self.root, &key, &tree_id) {
                Some(lesson) => Err(lesson.error(repo)),
                None => self
                    .build_maven(runner, repo, tree, &d, &choice, &found, &maven, key.clone())
                    .inspect_err(|e| {
                        if let Some(lesson) = learned::Lesson::of(e) {
                            learned::remember(&self.root, &key, &tree_id, &lesson);
                        }
                    }),
            };
            match built {
                Ok(env) => break env,
                // No pom of the tree names a level, and javac refuses the one the build
                // inherits (an old external parent's `1.3`): that level is now known, so
                // the JDK is chosen again for it (lifted as a declared one would be).
                Err(EnvError::Compile {
                    test: false, why, ..
                }) if d.java_level.is_none() && choice.lifted_from.is_none() && !relevelled => {
                    let Some(level) = refused_level(&why) else {
                        return Err(EnvError::Compile {
                            repo: repo.to_string(),
                            test: false,
                            why,
                        });
                    };
                    relevelled = true;
                    choice = choose(
                        Some(level),
                        d.enforcer_java.as_deref(),
                        d.commit_time,
                        &found,
                    )
                    .map_err(|n| EnvError::UnsupportedJdk {
                        repo: repo.to_string(),
                        why: format!("the build inherits level {level} (javac refused it): {n}"),
                    })?;
                    choice.why = format!(
                        "{} (level {level} inherited from outside the tree: javac refused it)",
                        choice.why
                    );
                }
                // Lifted, and javac still refused the old level: an external parent
                // hands the compiler its own property (`${javac.src.version}`), which the
                // lift's `-D` flags did not set. The parent's pom, in a local repository
                // by now, names it: the lift sets it too, once.
                Err(EnvError::Compile {
                    test: false, why, ..
                }) if choice.lifted_from.is_some()
                    && choice.also.is_empty()
                    && !reproped
                    && refused_level(&why).is_some() =>
                {
                    reproped = true;
                    let also = self.parent_level_properties(tree);
                    if also.is_empty() {
                        return Err(EnvError::Compile {
                            repo: repo.to_string(),
                            test: false,
                            why,
                        });
                    }
                    choice.why = format!(
                        "{} (the lift also sets {}, which the parent's compiler configuration names)",
                        choice.why,
                        also.join(", ")
                    );
                    choice.also = also;
                }
                // A plugin's descriptor refuses this Maven (apache-rat-plugin 0.18 wants
                // 3.9): the newest release of the line it names is fetched (dist::pick).
                Err(EnvError::NeedsMaven { by, min, why, .. }) if !remavened => {
                    remavened = true;
                    let dist = self
                        .maven_dist(&min, None)
                        .map_err(|e| EnvError::NeedsMaven {
                            repo: repo.to_string(),
                            by: by.clone(),
                            min: min.clone(),
                            why: format!("{why}; no such Maven can be had: {e}"),
                        })?;
                    maven = MavenUse {
                        line: dist.line,
                        home: Some(dist.home),
                        why: Some(format!("{by} requires Maven {min} ({installed} refused)")),
                    };
                }
                Err(e) => return Err(e),
            }
        };
        let record = crate::model::MavenRecord {
            jdk: choice.jdk.version.clone(),
            chosen: choice.why.clone(),
            level: choice.level,
            lifted_from: choice.lifted_from,
            maven: maven.line,
            maven_from: maven.why,
            modules: d.modules.iter().map(|m| m.dir.clone()).collect(),
            repairs: fs::read_to_string(env.dir.join(REPAIRS_FILE))
                .unwrap_or_default()
                .lines()
                .map(str::to_string)
                .collect(),
        };
        Ok(InstanceEnv {
            env,
            prefix: String::new(),
            generated: Vec::new(),
            command: None,
            record: KindRecord::Maven(record),
        })
    }

    /// The properties the root pom's external parents pass to the compiler as its level,
    /// read from the pools of this cache and the seed (a parent release is the same
    /// file wherever it was resolved).
    fn parent_level_properties(&self, tree: &InstanceTree<'_>) -> Vec<String> {
        let Ok(pom) = crate::git::read_blob(tree.repo_path, tree.rev, "pom.xml", &[]) else {
            return Vec::new();
        };
        let mut roots: Vec<PathBuf> = fs::read_dir(self.root.join(super::pool::POOLS_DIR))
            .map(|d| d.flatten().map(|e| e.path().join("repository")).collect())
            .unwrap_or_default();
        roots.sort();
        roots.extend(std::env::var_os(SEED_VAR).map(PathBuf::from));
        repair::parent_level_properties(&roots, &String::from_utf8_lossy(&pom))
    }

    /// The Maven to start with: the installed one, unless the tree's wrapper names a
    /// newer release (an older wrapper's build runs on the installed Maven 3, which
    /// still runs on today's JDKs); a wrapper's Maven that cannot be had is said in the
    /// record, and the installed one is tried.
    fn wrapper_maven(&self, installed: &str, wrapper: Option<&str>) -> MavenUse {
        let plain = MavenUse {
            line: installed.to_string(),
            home: None,
            why: None,
        };
        let (Some(w), Some(have)) = (wrapper, dist::version_of(installed)) else {
            return plain;
        };
        if dist::at_least(have, w) {
            return plain;
        }
        match self.maven_dist(w, Some(w)) {
            Ok(d) => MavenUse {
                line: d.line,
                home: Some(d.home),
                why: Some(format!("the wrapper names Maven {w} (installed: {have})")),
            },
            Err(e) => MavenUse {
                why: Some(format!(
                    "the wrapper names Maven {w}, which cannot be had ({e}): the installed {have} is used"
                )),
                ..plain
            },
        }
    }

    /// A Maven distribution of at least `min` (exactly `exact` when given): an exact one
    /// already unpacked is taken as it is; else, under the environment cache's lock for
    /// distributions, from the cache, the seed, or (with network for setup) Maven Central.
    fn maven_dist(&self, min: &str, exact: Option<&str>) -> Result<dist::Dist, String> {
        let cache = self.root.join(DISTS_DIR);
        if let Some(d) = exact.and_then(|v| dist::unpacked(&cache, v)) {
            return Ok(d);
        }
        let locks = self.root.join(".locks");
        fs::create_dir_all(&locks).map_err(|e| format!("{}: {e}", locks.display()))?;
        let lock = locks.join("maven-dist.lock");
        let _held =
            crate::lock::wait_exclusive(&lock).map_err(|e| format!("{}: {e}", lock.display()))?;
        let seed = std::env::var_os(SEED_VAR)
            .map(PathBuf::from)
            .filter(|p| p.is_dir());
        let remote = self.allow_network.then(dist::central);
        let version = match exact {
            Some(v) => v.to_string(),
            None => dist::pick(min, &cache, seed.as_deref(), remote.as_deref())?,
        };
        dist::ensure(&version, &cache, seed.as_deref(), remote.as_deref())
    }

    /// The environment at `key`: reused, or made in a reserved temporary directory
    /// (settings, toolchains, JDK, repository resolved at the base tree) and renamed.
    #[allow(clippy::too_many_arguments)]
    fn build_maven(
        &self,
        runner: &Runner,
        repo: &str,
        tree: &InstanceTree<'_>,
        d: &MavenDeclared,
        choice: &JdkChoice,
        found: &[super::Jdk],
        maven: &MavenUse,
        key: String,
    ) -> Result<BuiltEnv, EnvError> {
        let dir = self.root.join(&key);
        if let Some(env) = read_manifest(&dir) {
            return Ok(BuiltEnv {
                reused: true,
                ..env
            });
        }
        let write_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| EnvError::Write { path, source }
        };
        // One resolve per key: a second worker (or process) on the same build files
        // waits for the first and reuses what it made instead of downloading it again.
        let locks = self.root.join(".locks");
        fs::create_dir_all(&locks).map_err(write_err(&locks))?;
        let lock = locks.join(format!("{key}.lock"));
        let _held = crate::lock::wait_exclusive(&lock).map_err(write_err(&lock))?;
        if let Some(env) = read_manifest(&dir) {
            return Ok(BuiltEnv {
                reused: true,
                ..env
            });
        }
        let resolve =
            |tmp: &Path| self.resolve_maven(runner, repo, tree, d, choice, found, maven, &key, tmp);
        self.make(&key, EnvSpec::MavenAuto(MavenAutoSpec), resolve)
    }

    /// Writes the environment's files into `tmp` and fills `tmp/repository` by one test
    /// run at the base tree: offline from the seed when there is one, online when that
    /// fails or there is none and the network is allowed. Whether it stayed offline.
    #[allow(clippy::too_many_arguments)]
    fn resolve_maven(
        &self,
        runner: &Runner,
        repo: &str,
        tree: &InstanceTree<'_>,
        d: &MavenDeclared,
        choice: &JdkChoice,
        found: &[super::Jdk],
        maven: &MavenUse,
        key: &str,
        tmp: &Path,
    ) -> Result<bool, EnvError> {
        let write_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| EnvError::Write { path, source }
        };
        let seed = std::env::var_os(SEED_VAR)
            .map(PathBuf::from)
            .filter(|p| p.is_dir());
        // A key is new whenever a pom changes at all, while the artifacts it needs
        // mostly do not: every key of one clone, JDK and Maven resolves into one local
        // repository (pool.rs), so the network is asked only for what that one lacks.
        // The clone's path is part of it: two histories may share a name (mirrors all
        // called `repo`), and one project's repository is no start for another's.
        let clone = fs::canonicalize(tree.repo_path).unwrap_or_else(|_| tree.repo_path.into());
        let with = format!(
            "{}\n{}\n{}\n",
            clone.display(),
            choice.jdk.version,
            maven.line
        );
        let pool = Pool::hold(&self.root, repo, &with).map_err(write_err(&self.root))?;
        let filled = pool.filled();
        if !filled && seed.is_none() && !self.allow_network {
            return Err(EnvError::Unresolvable {
                repo: repo.to_string(),
                why: format!(
                    "the network is off for setup (validate.network_for_setup: false) \
                     and no seed repository is given ({SEED_VAR})"
                ),
            });
        }
        fresh(tmp)?;
        // Every step binds uv's cache: it must exist, though Maven never reads it.
        fs::create_dir_all(&self.uv_cache).map_err(write_err(&self.uv_cache))?;
        let home = choice.jdk.home.to_string_lossy().into_owned();
        let level = level_flags(choice).join(" ");
        let files = [
            ("settings.xml", settings_xml(&dist::central())),
            ("toolchains.xml", toolchains_xml(found, &choice.jdk)),
            ("java_home", format!("{home}\n")),
            (
                ARGS_FILE,
                format!("{level}{}\n", dist::run_lock_flags(&maven.line)),
            ),
            (LIFT_FILE, lift_level(choice).unwrap_or_default()),
            (RESOLVED_WITH, with.clone()),
            (ROOT_FILE, d.root_dir().to_string()),
        ];
        let maven_home = maven
            .home
            .as_ref()
            .map(|h| (MAVEN_HOME_FILE, format!("{}\n", h.display())));
        for (name, text) in files.into_iter().chain(maven_home) {
            let p = tmp.join(name);
            fs::write(&p, text).map_err(write_err(&p))?;
        }
        let repository = tmp.join("repository");
        std::os::unix::fs::symlink(&pool.repository, &repository)
            .map_err(write_err(&repository))?;
        let src = tmp.join("src");
        crate::git::export_tree(tree.repo_path, tree.rev, None, &src)
            .map_err(|e| maven_err(repo, format!("exporting {}: {e}", tree.rev)))?;
        let paths = crate::git::tree_paths(tree.repo_path, tree.rev)
            .map_err(|e| maven_err(repo, e.to_string()))?;
        let classes = resolve_classes(d, &paths);
        // The tree the runs end at, when the changes touch a build file: resolved too.
        let after = tmp.join("after");
        let mut trees = vec!["src"];
        if changes_build(tree.changes) {
            crate::git::export_tree(tree.repo_path, tree.rev, None, &after)
                .map_err(|e| maven_err(repo, format!("exporting {}: {e}", tree.rev)))?;
            for p in tree.changes {
                crate::validate::apply::apply_to_dir_in(p, &after, Some(tree.repo_path)).map_err(
                    |e| maven_err(repo, format!("applying the changes to resolve them: {e}")),
                )?;
            }
            trees.push("after");
        }
        for t in &trees {
            let dir = tmp.join(t);
            if let Some(to) = lift_level(choice) {
                repair::lift_tree(&dir, &d.build_files, &to).map_err(write_err(&dir))?;
            }
            repair::rewrite_poms(&dir, &d.build_files, repair::without_errorprone)
                .map_err(write_err(&dir))?;
        }
        let mvn = |offline: bool| {
            // The temporary directory's paths: the environment is renamed only after.
            let args = mvn_args(&sh_quote(tmp));
            // Each class by name and as a path: surefire before 2.19 takes the path
            // only (kind::run_script), newer ones either, and a test must run for
            // surefire to fetch its provider.
            let test = match classes.is_empty() {
                true => String::new(),
                false => format!(
                    " {}",
                    sh_quote(format!(
                        "-Dtest={},{}",
                        classes.join(","),
                        surefire_paths(&classes)
                    ))
                ),
            };
            // Test sources that do not compile here are dropped as in the runs
            // (kind::dropping), so the tree still resolves; none is kept, as a resolve
            // class is only some test of its module (one that is dropped leaves that
            // module's provider unfetched, and its runs say dependency_unresolvable).
            trees
                .iter()
                .map(|t| {
                    let mvn = format!(
                        "mvn{} {args} {level}{test} {} test",
                        if offline { " -o" } else { "" },
                        TEST_FLAGS.join(" ")
                    );
                    format!(
                        "(cd {} && {}{CLEAN_TARGETS}{}cat .hunkgen-dropped 2>/dev/null; exit $rc)",
                        match d.root_dir() {
                            "" => t.to_string(),
                            dir => format!("{t}/{}", sh_quote(dir)),
                        },
                        restore_dropped(),
                        dropping_into(&mvn, RESOLVE_LOG, &[], true)
                    )
                })
                .collect::<Vec<_>>()
                .join(" && ")
        };
        let mut bins = vec![choice.jdk.home.join("bin")];
        bins.extend(maven.home.as_ref().map(|h| h.join("bin")));
        let vars: Vec<(OsString, OsString)> = vec![
            ("JAVA_HOME".into(), home.clone().into()),
            ("PATH".into(), prepend_paths(&bins)),
        ];
        let writable = [pool.repository.clone()];
        let mut readable = vec![choice.jdk.home.clone()];
        readable.extend(maven.home.clone());
        let tag = key.rsplit('-').next().unwrap_or(key);
        let mut repairs: Vec<Repair> = Vec::new();
        let mut offline_failure = None;
        // Offline first: from the pool when a resolve filled it, else from the seed
        // copied in.
        let start = match (filled, &seed) {
            (true, _) => Some(mvn(true)),
            (false, Some(seed)) => {
                readable.push(seed.clone());
                Some(format!(
                    "cp -R {}/. repository/ && {}",
                    sh_quote(seed),
                    mvn(true)
                ))
            }
            (false, None) => None,
        };
        if let Some(script) = start {
            let log = format!("maven-resolve-{tag}-offline");
            let attempt = Attempt {
                repo,
                runner,
                log: &log,
                script: &script,
                online: false,
                tmp,
                trees: &trees,
                poms: &d.build_files,
                root: d.root_dir(),
                jdk: choice.jdk.feature,
                vars: &vars,
                readable: &readable,
                writable: &writable,
            };
            match self.resolve_repairing(&attempt, &mut repairs) {
                Ok(()) => {
                    self.finish_maven(tmp, &src, &after, &repairs)?;
                    return Ok(true);
                }
                Err(e @ EnvError::Step { .. }) => offline_failure = Some(e),
                Err(e) => return Err(e),
            }
        }
        if !self.allow_network {
            // A compile error is the tree's, whatever the network: say so.
            if let Some(e) = offline_failure.take().map(|e| compile_failure(repo, e)) {
                if matches!(e, EnvError::Compile { .. }) {
                    return Err(e);
                }
                offline_failure = Some(e);
            }
            let why = offline_failure.map(|e| e.to_string()).unwrap_or_default();
            return Err(EnvError::Unresolvable {
                repo: repo.to_string(),
                why: format!(
                    "resolving offline from {} failed and the network is off for setup: {why}",
                    match filled {
                        true => format!("the local repository {}", pool.repository.display()),
                        false => format!("the seed repository ({SEED_VAR})"),
                    }
                ),
            });
        }
        let log = format!("maven-resolve-{tag}-online");
        let script = mvn(false);
        let attempt = Attempt {
            repo,
            runner,
            log: &log,
            script: &script,
            online: true,
            tmp,
            trees: &trees,
            poms: &d.build_files,
            root: d.root_dir(),
            jdk: choice.jdk.feature,
            vars: &vars,
            readable: &readable,
            writable: &writable,
        };
        match self
            .resolve_repairing(&attempt, &mut repairs)
            .map_err(|e| compile_failure(repo, e))
        {
            Ok(()) => {}
            // Maven said an artifact is out of reach (a removed SNAPSHOT, a dead
            // repository): the dependencies, not the step, are the cause.
            Err(EnvError::Step {
                exit, tail, log, ..
            }) if unresolved_in(&log) => {
                // Name what could not be had (a parent, a BOM) before Maven's last lines,
                // which are mostly its help links.
                let text = fs::read(&log)
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default();
                let missing: Vec<String> = repair::missing_poms(&text)
                    .iter()
                    .map(|m| {
                        let how = if m.absent { "absent" } else { "unreachable" };
                        format!("{}:{}:pom:{} ({how})", m.group, m.artifact, m.version)
                    })
                    .collect();
                if needs_tools_jar(&text) && found.iter().all(|j| j.feature > 8) {
                    let have: Vec<String> = found.iter().map(|j| j.feature.to_string()).collect();
                    return Err(EnvError::UnsupportedJdk {
                        repo: repo.to_string(),
                        why: format!(
                            "a dependency is the JDK's own lib/tools.jar (com.sun:tools, system \
                             scope), which only JDK 8 and older have; JDKs found: {}",
                            have.join(", ")
                        ),
                    });
                }
                let named = match missing.is_empty() {
                    true => String::new(),
                    false => format!("could not have {}; ", missing.join(", ")),
                };
                return Err(EnvError::Unresolvable {
                    repo: repo.to_string(),
                    why: format!(
                        "{named}the online resolve run ({exit}) ended: {tail}; see {}",
                        log.display()
                    ),
                });
            }
            Err(e) => return Err(e),
        }
        self.finish_maven(tmp, &src, &after, &repairs)?;
        Ok(false)
    }

    /// After a resolve the repairs' releases are installed under their snapshots'
    /// coordinates and listed in the environment (`repairs`), and the exported trees go:
    /// the environment keeps its files and the repository only.
    fn finish_maven(
        &self,
        tmp: &Path,
        src: &Path,
        after: &Path,
        repairs: &[Repair],
    ) -> Result<(), EnvError> {
        let write_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| EnvError::Write { path, source }
        };
        let repository = tmp.join("repository");
        let mut listed = Vec::new();
        // Last first: a snapshot whose release was never published is aliased to the
        // alias its release gets from the nearest one.
        for r in repairs.iter().rev() {
            let keep = match r {
                Repair::Snapshot(s) => {
                    repair::install_alias(&repository, s).map_err(write_err(&repository))?
                }
                Repair::Unpublished(u) => {
                    repair::install_unpublished(&repository, u).map_err(write_err(&repository))?
                }
                // The runs are offline: what came by https is in the repository under
                // the same repository ids.
                Repair::Https(_) => true,
                // The runs move surefire as the resolve run did: by `-D`, or by
                // rewriting the poms' literal (kind::run_script).
                Repair::Surefire(u) => {
                    super::surefire::record(tmp, ARGS_FILE, u).map_err(write_err(tmp))?;
                    true
                }
            };
            if keep {
                listed.push(r.describe());
            }
        }
        let listed: String = listed.iter().rev().map(|d| format!("{d}\n")).collect();
        let list = tmp.join(REPAIRS_FILE);
        fs::write(&list, listed).map_err(write_err(&list))?;
        for t in [src, after].into_iter().filter(|t| t.exists()) {
            fs::remove_dir_all(t).map_err(|source| EnvError::Write {
                path: t.to_path_buf(),
                source,
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "resolve_tests.rs"]
mod tests;
