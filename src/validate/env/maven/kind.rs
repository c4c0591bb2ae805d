//! `env: maven: auto` as a [`Kind`]: per instance, the base commit's poms are read
//! ([`super::declared_for`]), a JDK chosen ([`super::choose`]), and a local Maven
//! repository resolved once per key (build files, JDK, Maven) by one real test run —
//! the only step with network (docs/design/maven-offline.md §1; resolve.rs), into the
//! repository all keys of the clone, JDK and Maven share (pool.rs). Runs are `mvn -o`
//! against that repository, read-only, with hunkgen's own settings so the repository
//! ids match (§2), and the surefire reports copied into the suite's report directory.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use super::super::kind::{InstanceEnv, InstanceTree, Kind, Selected};
use super::super::{prepend_paths, sh_quote, BuiltEnv, EnvCache, EnvError};
use super::{abstracts, declared_for, JdkChoice, MavenDeclared};
use crate::validate::parse::MARK;
use crate::validate::runner::{Command, Runner};

/// `maven: auto` as a spec: nothing is spelled out, everything is read per instance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MavenAutoSpec;

/// Plugins that check rather than build, skipped in every resolve and run (§8): a
/// patch's formatting or licence header must not decide a test's outcome. The last
/// four are goals that need a git repository, which a working copy (a plain tree) is
/// not: git-build-hook's hook install (mybatis-3's poms since 2024), its `git init` and
/// config goals, and git-commit-id's properties file.
pub const SKIP: &[&str] = &[
    "-Drat.skip",
    "-Denforcer.skip",
    "-Dspotless.check.skip=true",
    "-Dcheckstyle.skip",
    "-Djacoco.skip",
    "-Danimal.sniffer.skip",
    "-Dspotbugs.skip",
    "-Djapicmp.skip",
    "-Dmaven.javadoc.skip",
    "-Dpmd.skip",
    "-Dcpd.skip",
    "-Dlicense.skip",
    "-Dgitbuildhook.install.skip=true",
    "-Dgitbuildhook.init.skip=true",
    "-Dgitbuildhook.gitconfig.skip=true",
    "-Dmaven.gitcommitid.skip=true",
];

/// Surefire's flags for a selection: a module without the selected classes is no error,
/// and failing tests do not stop the reactor — the verdict is read from the reports (§4, §6).
pub const TEST_FLAGS: &[&str] = &[
    "-Dsurefire.failIfNoSpecifiedTests=false",
    "-DfailIfNoTests=false",
    "-Dmaven.test.failure.ignore=true",
];

/// The seed repository variable: copied into a new environment's repository so it
/// resolves offline first (tests, air-gapped machines).
pub const SEED_VAR: &str = "HUNKGEN_MAVEN_SEED";

/// The file in an environment holding the arguments its instance's level needs (a
/// lifted `-source`/`-target`, or nothing), read by the run command.
pub(super) const ARGS_FILE: &str = "mvn.args";

impl Kind for MavenAutoSpec {
    fn name(&self) -> &'static str {
        "maven"
    }

    fn absolutize(&mut self, _resolve: &dyn Fn(&Path) -> PathBuf) -> Result<(), String> {
        Ok(())
    }

    fn vars(&self, dir: &Path) -> Vec<(OsString, OsString)> {
        match java_home(dir) {
            Some(home) => {
                let mut bins = vec![home.join("bin")];
                bins.extend(maven_home(dir).map(|m| m.join("bin")));
                vec![
                    ("JAVA_HOME".into(), home.clone().into_os_string()),
                    ("PATH".into(), prepend_paths(&bins)),
                ]
            }
            None => Vec::new(),
        }
    }

    /// The JDK, the Maven distribution and the local repository the environment's
    /// `repository` links to (its pool, shared with the clone's other keys).
    fn binds(&self, dir: &Path) -> Vec<PathBuf> {
        java_home(dir)
            .into_iter()
            .chain(maven_home(dir))
            .chain(super::pool::of_env(dir))
            .collect()
    }

    fn default_command(
        &self,
        _env: &BuiltEnv,
        report_dir: &str,
        classes: &[String],
    ) -> Option<Result<Command, EnvError>> {
        Some(Ok(Command::Shell(run_script(report_dir, classes))))
    }

    fn default_command_runs_classes(&self) -> bool {
        true
    }

    /// A tree with no `pom.xml` anywhere is no Maven 2+ build: before 2008 many Apache
    /// projects built with Maven 1 (`project.xml`) or Ant (`build.xml`), which
    /// `maven: auto` does not run; the line names which one the tree has.
    fn unbuildable(&self, name: &str, repo: &Path, rev: &str) -> Option<EnvError> {
        let paths = crate::git::tree_paths(repo, rev).ok()?;
        if paths
            .iter()
            .any(|p| is_build_file(p) && p.ends_with("pom.xml"))
        {
            return None;
        }
        let has = |f: &str| paths.iter().any(|p| p == f);
        let found: Vec<&str> = [
            ("project.xml", "Maven 1 (project.xml)"),
            ("build.xml", "Ant (build.xml)"),
        ]
        .into_iter()
        .filter(|(f, _)| has(f))
        .map(|(_, what)| what)
        .collect();
        let builds = match found.is_empty() {
            true => "no build file hunkgen knows".to_string(),
            false => found.join(" and "),
        };
        Some(EnvError::BuildToolUnavailable {
            repo: name.to_string(),
            why: format!(
                "no pom.xml in the base commit's tree; it has {builds}, and maven: auto runs \
                 Maven 2 and later builds only"
            ),
        })
    }

    /// A `.java` file under a `src/test/java/` directory is its class; another `.java`
    /// file is no test; anything else goes to a suite's own command as a file.
    fn select(&self, rel: &str) -> Selected {
        if !rel.ends_with(".java") {
            return Selected::File;
        }
        Selected::Classes(test_class(rel).into_iter().collect())
    }

    /// A `.java` file under a test source root a module's pom declares (the base
    /// tree's, read once; `src/test/java/` unless `testSourceDirectory` says otherwise) is
    /// its class, or when that class is abstract (surefire runs none) its concrete
    /// subclasses in the tree; when every such class of the patch is a helper (no test
    /// in it), the test classes that name it; without readable poms, as
    /// [`Kind::select`].
    fn select_at(&self, rels: &[&str], repo: &Path, rev: &str) -> Vec<Selected> {
        let Ok(d) = declared_for(repo, rev, rels) else {
            return rels.iter().map(|rel| self.select(rel)).collect();
        };
        let roots: Vec<String> = d
            .modules
            .iter()
            .flat_map(|m| m.test_source_roots.iter())
            .map(|root| format!("{}/", root.trim_end_matches('/')))
            .collect();
        let class_of = |rel: &str| {
            roots
                .iter()
                .filter_map(|root| rel.strip_prefix(root.as_str()))
                .filter_map(|after| after.strip_suffix(".java"))
                .find(|c| !c.is_empty() && !c.contains(".."))
                .map(|c| c.replace('/', "."))
        };
        let read = |rel: &str| {
            crate::git::read_blob(repo, rev, rel, &[])
                .ok()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        };
        // Every test source of the tree, read only when a selected class is abstract or
        // every selected class is a helper.
        let all_sources = || -> Vec<(String, String)> {
            crate::git::tree_paths(repo, rev)
                .unwrap_or_default()
                .iter()
                .filter(|p| p.ends_with(".java"))
                .filter_map(|p| Some((class_of(p)?, read(p)?)))
                .collect()
        };
        let mut sources: Option<Vec<(String, String)>> = None;
        // Per test source: its class, and its text where the tree holds it.
        let found: Vec<Option<(String, Option<String>)>> = rels
            .iter()
            .map(|rel| Some((class_of(rel).filter(|_| rel.ends_with(".java"))?, read(rel))))
            .collect();
        // A helper: a class whose source is read and holds no test, abstract or not.
        let helper = |class: &str, text: &Option<String>| {
            let simple = class.rsplit('.').next().unwrap_or(class);
            text.as_deref()
                .is_some_and(|t| !abstracts::has_tests(t) && !abstracts::is_abstract(t, simple))
        };
        // Only helpers changed (no class of the patch holds a test): the test classes
        // that use them run, as a change to a test package's shared code runs what it
        // reaches in Python.
        let only_helpers = found
            .iter()
            .flatten()
            .all(|(class, text)| helper(class, text));
        let mut one = |rel: &str, found: &Option<(String, Option<String>)>| {
            if !rel.ends_with(".java") {
                return Selected::File;
            }
            let Some((class, text)) = found else {
                return Selected::Classes(Vec::new());
            };
            let simple = class.rsplit('.').next().unwrap_or(class);
            if text
                .as_deref()
                .is_some_and(|t| abstracts::is_abstract(t, simple))
            {
                let all = sources.get_or_insert_with(all_sources);
                return match abstracts::concrete_subclasses(class, all) {
                    subs if subs.is_empty() => Selected::Classes(vec![class.clone()]),
                    subs => Selected::Classes(subs),
                };
            }
            match only_helpers && helper(class, text) {
                true => match abstracts::users(class, sources.get_or_insert_with(all_sources)) {
                    users if users.is_empty() => Selected::Classes(vec![class.clone()]),
                    users => Selected::Classes(users),
                },
                false => Selected::Classes(vec![class.clone()]),
            }
        };
        rels.iter()
            .zip(&found)
            .map(|(rel, f)| one(rel, f))
            .collect()
    }

    fn for_instance(
        &self,
        cache: &EnvCache,
        runner: &Runner,
        repo: &str,
        tree: &InstanceTree<'_>,
    ) -> Option<Result<InstanceEnv, EnvError>> {
        Some(cache.ensure_maven(runner, repo, tree))
    }
}

pub(super) fn maven_err(repo: &str, why: impl Into<String>) -> EnvError {
    EnvError::Maven {
        repo: repo.to_string(),
        why: why.into(),
    }
}

/// In an environment, the file naming the Maven home it runs with when that is not the
/// installed `mvn` (a distribution under `<envs>/.maven`, dist.rs).
pub(super) const MAVEN_HOME_FILE: &str = "maven_home";

/// The Maven home an environment at `dir` runs with, when it is not the installed one.
fn maven_home(dir: &Path) -> Option<PathBuf> {
    let text = fs::read_to_string(dir.join(MAVEN_HOME_FILE)).ok()?;
    let p = PathBuf::from(text.trim_end());
    p.join("bin/mvn").is_file().then_some(p)
}

/// The JDK home an environment at `dir` runs with (its `java_home` file).
fn java_home(dir: &Path) -> Option<PathBuf> {
    let text = fs::read_to_string(dir.join("java_home")).ok()?;
    let home = text.trim();
    (!home.is_empty()).then(|| PathBuf::from(home))
}

/// The fully qualified class of a test source under a `src/test/java/` directory.
pub fn test_class(rel: &str) -> Option<String> {
    const ROOT: &str = "src/test/java/";
    let after = match rel.strip_prefix(ROOT) {
        Some(a) => a,
        None => rel.split_once(&format!("/{ROOT}"))?.1,
    };
    let class = after.strip_suffix(".java")?;
    (!class.is_empty() && !class.contains("..")).then(|| class.replace('/', "."))
}

/// Whether a change to this path can change what Maven resolves (a pom, `.mvn/`).
pub fn is_build_file(path: &str) -> bool {
    path == "pom.xml" || path.ends_with("/pom.xml") || path.starts_with(".mvn/")
}

/// Whether any of `changes` touches a build file: then the environment is resolved at
/// the changed tree too (its poms may name what the base's do not).
pub(super) fn changes_build(changes: &[&crate::diff::Patch]) -> bool {
    changes
        .iter()
        .any(|p| p.files.iter().any(|f| is_build_file(f.path())))
}

/// Whether surefire's default includes take this file name (`Test*`, `*Test`,
/// `*Tests`, `*TestCase`): a class the resolve run can select to fork a test.
fn surefire_default(file: &str) -> bool {
    let Some(stem) = file.strip_suffix(".java") else {
        return false;
    };
    stem.starts_with("Test")
        || stem.ends_with("Test")
        || stem.ends_with("Tests")
        || stem.ends_with("TestCase")
}

/// One test class per module that has one (the first in path order under the module's
/// declared test roots), so the resolve run forks surefire in each module and fetches
/// its provider (§1).
pub fn resolve_classes(d: &MavenDeclared, paths: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for m in &d.modules {
        let found = m.test_source_roots.iter().find_map(|root| {
            let prefix = format!("{}/", root.trim_end_matches('/'));
            paths.iter().find_map(|p| {
                let rel = p.strip_prefix(&prefix)?;
                let file = p.rsplit('/').next()?;
                // A nested module's tests are its own: their roots are under its dir.
                let nested = d.modules.iter().any(|o| {
                    o.dir != m.dir
                        && o.dir != "."
                        && p.starts_with(&format!("{}/", o.dir))
                        && (m.dir == "." || o.dir.starts_with(&format!("{}/", m.dir)))
                });
                (surefire_default(file) && !nested)
                    .then(|| rel.strip_suffix(".java").map(|c| c.replace('/', ".")))
                    .flatten()
            })
        });
        if let Some(class) = found.filter(|c| !c.is_empty() && !c.contains("..")) {
            if !out.contains(&class) {
                out.push(class);
            }
        }
    }
    out
}

/// The arguments every `mvn` of an environment takes, `env_dir` being its directory as
/// a shell word: batch mode, hunkgen's settings (user and global, so no host mirror
/// renames `central`), the toolchains, the private repository and the skip set.
pub fn mvn_args(env_dir: &str) -> String {
    let mut v = vec![
        "-B".to_string(),
        format!("-s {env_dir}/settings.xml"),
        format!("-gs {env_dir}/settings.xml"),
        format!("-t {env_dir}/toolchains.xml"),
        format!("-Dmaven.repo.local={env_dir}/repository"),
    ];
    v.extend(SKIP.iter().map(|s| s.to_string()));
    v.join(" ")
}

/// The level a JDK choice compiles at when it was lifted (§7: the command line
/// overrides the pom's properties and the compiler's defaults); nothing otherwise.
/// Commons' older parents name the level `maven.compile.source` and pass it to the
/// compiler through `${…}`: the command line overrides that property too.
/// A parent that names its own property (`${javac.src.version}`) has it set too, when
/// the lift found it ([`JdkChoice::also`]).
pub fn level_flags(choice: &JdkChoice) -> Vec<String> {
    match (choice.lifted_from, choice.level) {
        (Some(_), Some(l)) => {
            let mut v = vec![
                format!("-Dmaven.compiler.source={l}"),
                format!("-Dmaven.compiler.target={l}"),
                format!("-Dmaven.compile.source={l}"),
                format!("-Dmaven.compile.target={l}"),
            ];
            for p in &choice.also {
                let flag = format!("-D{p}={l}");
                if !v.contains(&flag) {
                    v.push(flag);
                }
            }
            v
        }
        _ => Vec::new(),
    }
}

/// The file in a lifted environment holding the level (`1.6`) that the run writes over
/// a compiler `<source>`/`<target>` below 6 in its working copy's poms.
pub(super) const LIFT_FILE: &str = "lift";

/// The file in an environment naming the directory its reactor root is in, when that is
/// not the top of the tree (`gson`); the run starts Maven there.
pub(super) const ROOT_FILE: &str = "reactor-root";

/// The run's rewrite of levels below 6 written literally in the poms (a compiler
/// plugin's `<source>1.5</source>`, which no `-D` overrides) to the lifted level; the
/// same as [`super::repair::lift_pom`], in the shell.
const LIFT_SED: &str = r"s#<(source|target)>(1\.)?[1-5]</(source|target)>#<\1>LEVEL</\3>#g";

/// The run's removal of error-prone from the compiler plugin (`<compilerId>
/// javac-with-errorprone</compilerId>`: a static analysis that runs inside javac, no
/// test; its bundled javac of 2015-2019 refuses the class files of any JDK after 8,
/// which javapoet's poms met with "class file has wrong version 61.0, should be 53.0").
/// The compiler id goes, and so does each `<dependency>` element that brings that
/// compiler onto the plugin's class path (`error_prone_core`, error-prone's `javac`,
/// `plexus-compiler-javac-errorprone`): left there, its javac still shadows the JDK's.
/// The same as [`super::repair::without_errorprone`], in the shell (GNU sed, one
/// element gathered line by line until its end tag).
pub(super) const NO_ERRORPRONE_SED: &str = concat!(
    r"s#<compilerId>[[:space:]]*javac-with-errorprone[[:space:]]*</compilerId>##g;",
    r"\#<dependency>#{:a;\#</dependency>#!{N;ba};",
    r"\#<artifactId>[[:space:]]*(error_prone_core|plexus-compiler-javac-errorprone|javac)[[:space:]]*</artifactId>#d}"
);

/// What marks a pom [`NO_ERRORPRONE_SED`] may change (`grep -E`; literal alternatives,
/// which [`super::repair::without_errorprone`] reads as its own test).
pub(super) const ERRORPRONE_GREP: &str = "javac-with-errorprone|error_prone_core";

/// The key parts of a build file naming what a later hunkgen treats otherwise
/// (error-prone's compiler dependencies, goals that need a git repository), added to
/// `since` once each: such trees get environment keys of their own, so no environment
/// or failure made before is reused for them, and other trees keep their keys.
pub(super) fn key_marks(bytes: &[u8], since: &mut Vec<&'static [u8]>) {
    for (marker, part) in [
        (&b"error_prone_core"[..], &b"\0errorprone-deps"[..]),
        (b"git-build-hook-maven-plugin", b"\0git-goals-skipped"),
        (b"git-commit-id", b"\0git-goals-skipped"),
    ] {
        if !since.contains(&part) && bytes.windows(marker.len()).any(|w| w == marker) {
            since.push(part);
        }
    }
}

/// The run's `sed` expression for level `to`, for the test that holds it to
/// [`super::repair::lift_pom`].
#[cfg(test)]
pub fn lift_sed_for_test(to: &str) -> String {
    LIFT_SED.replace("LEVEL", to)
}

/// The level a lifted choice writes over the poms' literal levels (`1.6`), if lifted.
pub(super) fn lift_level(choice: &JdkChoice) -> Option<String> {
    match (choice.lifted_from, choice.level) {
        (Some(_), Some(l)) if l < 9 => Some(format!("1.{l}")),
        (Some(_), Some(l)) => Some(l.to_string()),
        _ => None,
    }
}

/// Where the run keeps mvn's output to look for resolution errors in it.
const LOG: &str = ".hunkgen-mvn.log";

/// What Maven says when an artifact is out of reach: offline, the repository lacks one
/// the run's tree needs (§3), an environment problem, not the tests'; online (the
/// resolve step), no repository serves it (`dependency_unresolvable`).
pub const UNRESOLVED: &[&str] = &[
    "has not been downloaded from it before",
    "in offline mode",
    "Could not resolve dependencies",
    // A parent or imported BOM no repository serves (commons-io's 2006 poms name
    // `org.apache.commons:commons:1`, which Central never had).
    "Non-resolvable parent POM",
    "Non-resolvable import POM",
    // A plugin's own dependency no repository serves (gson 2026: proguard-maven-plugin
    // needs com.guardsquare:proguard-core:9.3.0, which this machine's Central lacks).
    "or one of its dependencies could not be resolved",
];

/// The line the run adds after such an error, so the run's log ends saying so.
const UNRESOLVED_WHY: &str =
    "the environment's repository lacks an artifact this tree needs (Maven ran offline)";

/// Where a run lists the test sources it dropped (one `hunkgen-dropped: <path>` line
/// each), printed after Maven's log.
const DROPPED: &str = ".hunkgen-dropped";

/// Rounds of dropping test sources that do not compile, at most.
const DROP_ROUNDS: u32 = 3;

/// The shell that runs `mvn` (its output printed as it comes, so a run the timeout kills
/// still shows how far it got, and kept in `log`; its status in `rc`) and, while it
/// fails in `testCompile` only on test sources that are none of `keep`'s classes,
/// deletes those sources from the working tree and runs again (a few rounds at most),
/// listing each in [`DROPPED`]. Old histories hold tests that today's javac rejects
/// (commons-lang's `TypeUtilsTest` under JDK 11: Defects4J patches it for the same
/// reason); they are no test of the instance, and the tree's own code still compiles
/// as committed. An error in a kept class stops the dropping: that is the instance's
/// `test_compile_error`.
pub(super) fn dropping(mvn: &str, log: &str, keep: &[String]) -> String {
    dropping_into(mvn, log, keep, false)
}

/// Where a resolve attempt moves the test sources it drops, so the next attempt (online
/// after offline, or after a repair) starts from the tree as committed again
/// ([`restore_dropped`]) and says what a first attempt would.
const STASH: &str = ".hunkgen-stash";

/// The shell that puts back what an earlier attempt in the same tree dropped, and
/// forgets its list.
pub(super) fn restore_dropped() -> String {
    format!("if [ -d {STASH} ]; then cp -R {STASH}/. . && rm -rf {STASH}; fi; rm -f {DROPPED}; ")
}

/// [`dropping`], moving the dropped sources into [`STASH`] when `stash` (a resolve
/// attempt) instead of deleting them (a run's working copy is its own).
pub(super) fn dropping_into(mvn: &str, log: &str, keep: &[String], stash: bool) -> String {
    let put_away = match stash {
        true => format!(
            "rel=${{f#\"$here\"/}}; mkdir -p \"{STASH}/$(dirname -- \"$rel\")\" && \
             mv -- \"$f\" \"{STASH}/$rel\""
        ),
        false => "rm -f -- \"$f\"".to_string(),
    };
    let kept: Vec<String> = keep
        .iter()
        .map(|c| format!("*/{}.java", c.replace('.', "/")))
        .collect();
    let keep_case = match kept.is_empty() {
        true => String::new(),
        false => format!(" case \"$f\" in {}) keep=1 ;; esac;", kept.join("|")),
    };
    format!(
        "round=0\n\
         while :; do\n\
         {{ {mvn} 2>&1; echo $? > {log}.rc; }} | tee {log}\n\
         rc=$(cat {log}.rc)\n\
         if [ $rc -eq 0 ] || [ $round -ge {DROP_ROUNDS} ] || ! grep -q -E {test_compile} {log}; then break; fi\n\
         drop=$(grep -o -E '/[^ :]+[.]java:[[][0-9]+,[0-9]+[]]' {log} | sed -E 's#:[[][0-9]+,[0-9]+[]]$##' | sort -u)\n\
         [ -n \"$drop\" ] || break\n\
         keep=0\n\
         here=$(pwd -P)\n\
         for f in $drop; do case \"$f\" in \"$here\"/*) ;; *) keep=1 ;; esac;{keep_case} done\n\
         [ $keep -eq 0 ] || break\n\
         for f in $drop; do {put_away}; echo \"hunkgen-dropped: ${{f#\"$here\"/}}\" >> {DROPPED}; done\n\
         round=$((round + 1))\n\
         done\n",
        test_compile = sh_quote(":testCompile \\(.*\\) on project"),
    )
}

/// Classes as the paths every surefire's `-Dtest` takes (`a.b.C,d.E` → `a/b/C,d/E`).
pub fn surefire_paths(classes: &[String]) -> String {
    classes
        .iter()
        .map(|c| c.replace('.', "/"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The run's shell script: stale reports removed, `mvn -o` on the selected classes with
/// the environment's arguments (a resolution error named on a line of its own), then
/// every surefire report copied into `report_dir`; it exits with mvn's status.
pub fn run_script(report_dir: &str, classes: &[String]) -> String {
    let test = match classes.is_empty() {
        true => String::new(),
        false => format!(" {}", sh_quote(format!("-Dtest={}", classes.join(",")))),
    };
    let mvn_with = |test: &str| {
        dropping(
            &format!(
                "mvn -o {} $(cat \"$HUNKGEN_ENV_DIR/{ARGS_FILE}\") $pl{test} {} test",
                mvn_args("\"$HUNKGEN_ENV_DIR\""),
                TEST_FLAGS.join(" ")
            ),
            LOG,
            classes,
        )
    };
    // Surefire before 2.19 matches `-Dtest=X` as the file pattern `**/X.java`, so a
    // class's dotted name selects nothing there; when no report holds a test case, the
    // run goes once more with the classes as paths (`a/b/C`), which every version takes.
    let as_paths = match classes.is_empty() {
        true => String::new(),
        false => format!(
            "if [ $rc -eq 0 ] && [ \"$(find . -path '*/target/surefire-reports/TEST-*.xml' -type f \
             -exec grep -l '<testcase' {{}} + 2>/dev/null | head -n 1)\" = \"\" ]; then\n\
             echo {said}\n\
             {again}\
             fi\n",
            said = sh_quote(format!(
                "hunkgen: no test ran for -Dtest=<classes>; again with {} (surefire before 2.19 \
                 matches **/<test>.java)",
                surefire_paths(classes)
            )),
            again = mvn_with(&format!(
                " {}",
                sh_quote(format!("-Dtest={}", surefire_paths(classes)))
            )),
        ),
    };
    // The suite's report directory is the working copy's, wherever the reactor starts.
    let reports = format!("\"$top\"/{}", sh_quote(report_dir));
    let lift = LIFT_SED.replace("LEVEL", "'\"$lift\"'");
    format!(
        "top=$(pwd)\n\
         if [ -s \"$HUNKGEN_ENV_DIR/{ROOT_FILE}\" ]; then cd \"$(cat \"$HUNKGEN_ENV_DIR/{ROOT_FILE}\")\" || exit 1; fi\n\
         find . -type d -path '*/target/surefire-reports' -prune -exec rm -rf {{}} +\n\
         if [ -s \"$HUNKGEN_ENV_DIR/{LIFT_FILE}\" ]; then lift=$(cat \"$HUNKGEN_ENV_DIR/{LIFT_FILE}\"); \
         find . -name pom.xml -type f -exec sed -i -E '{lift}' {{}} +; fi\n\
         find . -name pom.xml -type f -exec grep -q -E '{ERRORPRONE_GREP}' {{}} ';' -exec sed -i -E '{NO_ERRORPRONE_SED}' {{}} ';'\n\
         {surefire}\
         {modules}\
         {mvn}\
         if [ $rc -ne 0 ] && [ -n \"$pl\" ] && grep -q {not_in_reactor} {LOG}; then\n\
         echo {whole_said}\n\
         pl=\n\
         {mvn}\
         fi\n\
         {as_paths}\
         cat {DROPPED} 2>/dev/null\n\
         mkdir -p {reports}\n\
         find . -path '*/target/surefire-reports/TEST-*.xml' -type f -exec cp {{}} {reports}/ \\;\n\
         echo\n\
         if [ $rc -ne 0 ]; then\n\
         if grep -q -E {unresolved} {LOG}; then echo {why}\n\
         elif grep -q -E {test_compile} {LOG}; then echo {test_compile_why}\n\
         elif grep -q -E {compile} {LOG}; then echo {compile_why}\n\
         fi\n\
         elif ! grep -q -l '<testcase' {reports}/TEST-*.xml 2>/dev/null; then echo {zero_why}\n\
         fi\n\
         exit $rc\n",
        mvn = mvn_with(&test),
        modules = modules_script(classes),
        surefire = super::surefire::run_line(),
        not_in_reactor = sh_quote(NOT_IN_REACTOR),
        whole_said = sh_quote(
            "hunkgen: a selected module is not in the reactor; again on the whole reactor"
        ),
        why = sh_quote(format!("{MARK}dependency_unresolvable: {UNRESOLVED_WHY}")),
        test_compile = sh_quote(":testCompile \\(.*\\) on project"),
        compile = sh_quote(":compile \\(.*\\) on project"),
        test_compile_why = sh_quote(format!(
            "{MARK}test_compile_error: the test sources do not compile (the compiler's errors are above)"
        )),
        compile_why = sh_quote(format!(
            "{MARK}compile_error: the main sources do not compile (the compiler's errors are above)"
        )),
        zero_why = sh_quote(format!(
            "{MARK}zero_tests: Maven finished but the selected classes ran no test \
             (a JUnit 5 class under a surefire without its provider, or no test class)"
        )),
        unresolved = sh_quote(format!("ERROR\\].*({})", UNRESOLVED.join("|"))),
    )
}

/// What Maven says when `-pl` names a directory its reactor does not build (a module
/// only a profile lists, a pom no aggregator names).
const NOT_IN_REACTOR: &str = "Could not find the selected project in the reactor";

/// The shell that sets `pl` to `-pl <modules> -am` for the modules holding the selected
/// classes' sources, so a run builds them and what they depend on, not the whole
/// reactor (a module the tests do not need neither costs time nor breaks the run).
/// Each class's source is found in the working copy (outside `target/`) and its module
/// is the nearest directory above it with a `pom.xml`. `pl` stays empty, the whole
/// reactor, when a class is not found, lives in the root module, or a module's path has
/// a space or a comma.
fn modules_script(classes: &[String]) -> String {
    if classes.is_empty() {
        return "pl=\n".to_string();
    }
    let paths: Vec<String> = classes
        .iter()
        .map(|c| sh_quote(format!("*/{}.java", c.replace('.', "/"))))
        .collect();
    format!(
        "pl=; mods=; whole=\n\
         for p in {paths}; do\n\
         f=$(find . -path '*/target' -prune -o -path \"$p\" -type f -print 2>/dev/null | head -n 1)\n\
         if [ -z \"$f\" ]; then whole=1; break; fi\n\
         d=$(dirname \"$f\")\n\
         while [ \"$d\" != . ] && [ ! -f \"$d/pom.xml\" ]; do d=$(dirname \"$d\"); done\n\
         d=${{d#./}}\n\
         case \"$d\" in .|*' '*|*,*) whole=1; break ;; esac\n\
         case \",$mods,\" in *\",$d,\"*) ;; *) mods=\"${{mods:+$mods,}}$d\" ;; esac\n\
         done\n\
         if [ -z \"$whole\" ] && [ -n \"$mods\" ]; then pl=\"-pl $mods -am\"; fi\n",
        paths = paths.join(" "),
    )
}

/// The settings both steps use: the remote repository `central` (Maven Central, or the
/// mirror `HUNKGEN_MAVEN_CENTRAL` names: `dist::central`) under its usual id `central`
/// and no mirrors, so what the resolve step recorded is found again offline (§2).
pub fn settings_xml(central: &str) -> String {
    let repo = |tag: &str| {
        format!(
            "        <{tag}>\n          <id>central</id>\n          \
             <url>{central}</url>\n          \
             <snapshots><enabled>false</enabled></snapshots>\n        </{tag}>\n"
        )
    };
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <settings xmlns=\"http://maven.apache.org/SETTINGS/1.0.0\">\n  <profiles>\n    \
         <profile>\n      <id>hunkgen</id>\n      <repositories>\n{}      </repositories>\n      \
         <pluginRepositories>\n{}      </pluginRepositories>\n    </profile>\n  </profiles>\n  \
         <activeProfiles>\n    <activeProfile>hunkgen</activeProfile>\n  </activeProfiles>\n\
         </settings>\n",
        repo("repository"),
        repo("pluginRepository")
    )
}

/// `text` without its ANSI colour sequences (Maven 3.8 writes some even in batch mode).
pub(super) fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // ESC [ parameters, ended by a letter.
            for e in chars.by_ref() {
                if e.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
#[path = "kind_tests.rs"]
mod tests;
