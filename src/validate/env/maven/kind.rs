//! `env: maven: auto` as a [`Kind`]: per instance, the base commit's poms are read
//! ([`super::declared_at`]), a JDK chosen ([`super::choose`]), and a local Maven
//! repository resolved once per key (build files, JDK, Maven) by one real test run —
//! the only step with network (docs/design/maven-offline.md §1). Runs are `mvn -o`
//! against that repository, read-only, with hunkgen's own settings so the repository
//! ids match (§2), and the surefire reports copied into the suite's report directory.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::super::kind::{InstanceEnv, InstanceTree, KeyInputs, Kind, KindRecord, Selected};
use super::super::{
    fresh, hex8, prepend_path, publish, read_manifest, sh_quote, slug, BuiltEnv, EnvCache,
    EnvError, EnvSpec,
};
use super::repair::{self, Repair};
use super::{choose, declared_at, discover, toolchains_xml, JdkChoice, MavenDeclared};
use crate::validate::parse::MARK;
use crate::validate::runner::{find_in_path, Command, RunSpec, Runner, SandboxPolicy};

/// `maven: auto` as a spec: nothing is spelled out, everything is read per instance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MavenAutoSpec;

/// Plugins that check rather than build, skipped in every resolve and run (§8): a
/// patch's formatting or licence header must not decide a test's outcome.
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

/// The file in an environment listing its build-file repairs, one per line.
const REPAIRS_FILE: &str = "repairs";

/// How many times a resolve run is repaired and run again before it fails.
const MAX_REPAIR_ROUNDS: usize = 3;

/// One resolve run's inputs, for [`EnvCache::resolve_repairing`].
struct Attempt<'a> {
    repo: &'a str,
    runner: &'a Runner,
    log: &'a str,
    script: &'a str,
    online: bool,
    tmp: &'a Path,
    trees: &'a [&'a str],
    poms: &'a [String],
    vars: &'a [(OsString, OsString)],
    readable: &'a [PathBuf],
}

/// The file in an environment holding the arguments its instance's level needs (a
/// lifted `-source`/`-target`, or nothing), read by the run command.
const ARGS_FILE: &str = "mvn.args";

impl Kind for MavenAutoSpec {
    fn name(&self) -> &'static str {
        "maven"
    }

    fn absolutize(&mut self, _resolve: &dyn Fn(&Path) -> PathBuf) -> Result<(), String> {
        Ok(())
    }

    fn key_inputs(&self, repo: &str) -> Result<KeyInputs, EnvError> {
        Err(per_instance(repo))
    }

    fn build(
        &self,
        _cache: &EnvCache,
        _runner: &Runner,
        repo: &str,
        _key: &str,
        _tmp: &Path,
    ) -> Result<bool, EnvError> {
        Err(per_instance(repo))
    }

    fn vars(&self, dir: &Path) -> Vec<(OsString, OsString)> {
        match java_home(dir) {
            Some(home) => vec![
                ("JAVA_HOME".into(), home.clone().into_os_string()),
                ("PATH".into(), prepend_path(&home.join("bin"))),
            ],
            None => Vec::new(),
        }
    }

    fn binds(&self, dir: &Path) -> Vec<PathBuf> {
        java_home(dir).into_iter().collect()
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

    /// A `.java` file under a `src/test/java/` directory is its class; another `.java`
    /// file is no test; anything else goes to a suite's own command as a file.
    fn select(&self, rel: &str) -> Selected {
        if !rel.ends_with(".java") {
            return Selected::File;
        }
        Selected::Classes(test_class(rel).into_iter().collect())
    }

    /// A `.java` file under a test source root a module's pom declares (the base
    /// tree's; `src/test/java/` unless `testSourceDirectory` says otherwise) is its class;
    /// without readable poms, as [`Kind::select`].
    fn select_at(&self, rel: &str, repo: &Path, rev: &str) -> Selected {
        let Ok(d) = declared_at(repo, rev) else {
            return self.select(rel);
        };
        if !rel.ends_with(".java") {
            return Selected::File;
        }
        let roots = d.modules.iter().flat_map(|m| m.test_source_roots.iter());
        let class = roots
            .filter_map(|root| rel.strip_prefix(&format!("{}/", root.trim_end_matches('/'))))
            .filter_map(|after| after.strip_suffix(".java"))
            .find(|c| !c.is_empty() && !c.contains(".."))
            .map(|c| c.replace('/', "."));
        Selected::Classes(class.into_iter().collect())
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

/// `maven: auto` asked of [`EnvCache::ensure`], which builds what is spelled out.
fn per_instance(repo: &str) -> EnvError {
    maven_err(
        repo,
        "resolved per instance from its base commit (EnvCache::ensure_maven)",
    )
}

fn maven_err(repo: &str, why: impl Into<String>) -> EnvError {
    EnvError::Maven {
        repo: repo.to_string(),
        why: why.into(),
    }
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
fn changes_build(changes: &[&crate::diff::Patch]) -> bool {
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
pub fn level_flags(choice: &JdkChoice) -> Vec<String> {
    match (choice.lifted_from, choice.level) {
        (Some(_), Some(l)) => vec![
            format!("-Dmaven.compiler.source={l}"),
            format!("-Dmaven.compiler.target={l}"),
            format!("-Dmaven.compile.source={l}"),
            format!("-Dmaven.compile.target={l}"),
        ],
        _ => Vec::new(),
    }
}

/// The file in a lifted environment holding the level (`1.6`) that the run writes over
/// a compiler `<source>`/`<target>` below 6 in its working copy's poms.
const LIFT_FILE: &str = "lift";

/// The run's rewrite of levels below 6 written literally in the poms (a compiler
/// plugin's `<source>1.5</source>`, which no `-D` overrides) to the lifted level; the
/// same as [`repair::lift_pom`], in the shell.
const LIFT_SED: &str = r"s#<(source|target)>(1\.)?[1-5]</(source|target)>#<\1>LEVEL</\3>#g";

/// The run's `sed` expression for level `to`, for the test that holds it to
/// [`repair::lift_pom`].
#[cfg(test)]
pub fn lift_sed_for_test(to: &str) -> String {
    LIFT_SED.replace("LEVEL", to)
}

/// The level a lifted choice writes over the poms' literal levels (`1.6`), if lifted.
fn lift_level(choice: &JdkChoice) -> Option<String> {
    match (choice.lifted_from, choice.level) {
        (Some(_), Some(l)) if l < 9 => Some(format!("1.{l}")),
        (Some(_), Some(l)) => Some(l.to_string()),
        _ => None,
    }
}

/// Where the run keeps mvn's output to look for resolution errors in it.
const LOG: &str = ".hunkgen-mvn.log";

/// What Maven says offline when the repository lacks an artifact (§3): the run's tree
/// needs what the resolve step did not fetch, an environment problem, not the tests'.
pub const UNRESOLVED: &[&str] = &[
    "has not been downloaded from it before",
    "in offline mode",
    "Could not resolve dependencies",
];

/// A failed resolve step whose log says the compiler plugin failed: the tree's main or
/// test code does not compile with the JDK chosen (the resolve run compiles every test,
/// whichever it selects), a compile error rather than an environment failure.
fn compile_failure(repo: &str, e: EnvError) -> EnvError {
    let EnvError::Step { log, .. } = &e else {
        return e;
    };
    let text = fs::read(log)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let failed = |goal: &str| {
        text.lines()
            .find(|l| l.contains("Failed to execute goal") && l.contains(goal))
            .map(|l| l.trim_start_matches("[ERROR] ").to_string())
    };
    let (test, line) = match (failed(":testCompile ("), failed(":compile (")) {
        (Some(l), _) => (true, l),
        (None, Some(l)) => (false, l),
        (None, None) => return e,
    };
    let first = text
        .lines()
        .find(|l| l.starts_with("[ERROR] /") && l.contains(".java:"))
        .map(|l| l.trim_start_matches("[ERROR] ").to_string())
        .unwrap_or_default();
    EnvError::Compile {
        repo: repo.to_string(),
        test,
        why: format!("{line}; first error: {first}; see {}", log.display()),
    }
}

/// Whether Maven's log at `log` says an artifact could not be resolved.
fn unresolved_in(log: &Path) -> bool {
    let text = fs::read(log)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    UNRESOLVED.iter().any(|p| text.contains(p))
}

/// The line the run adds after such an error, so the run's log ends saying so.
const UNRESOLVED_WHY: &str =
    "the environment's repository lacks an artifact this tree needs (Maven ran offline)";

/// The run's shell script: stale reports removed, `mvn -o` on the selected classes with
/// the environment's arguments (a resolution error named on a line of its own), then
/// every surefire report copied into `report_dir`; it exits with mvn's status.
pub fn run_script(report_dir: &str, classes: &[String]) -> String {
    let test = match classes.is_empty() {
        true => String::new(),
        false => format!(" {}", sh_quote(format!("-Dtest={}", classes.join(",")))),
    };
    let reports = sh_quote(report_dir);
    let lift = LIFT_SED.replace("LEVEL", "'\"$lift\"'");
    format!(
        "find . -type d -path '*/target/surefire-reports' -prune -exec rm -rf {{}} +\n\
         if [ -s \"$HUNKGEN_ENV_DIR/{LIFT_FILE}\" ]; then lift=$(cat \"$HUNKGEN_ENV_DIR/{LIFT_FILE}\"); \
         find . -name pom.xml -type f -exec sed -i -E '{lift}' {{}} +; fi\n\
         mvn -o {args} $(cat \"$HUNKGEN_ENV_DIR/{ARGS_FILE}\"){test} {flags} test > {LOG} 2>&1\n\
         rc=$?\n\
         cat {LOG}\n\
         mkdir -p {reports}\n\
         find . -path '*/target/surefire-reports/TEST-*.xml' -type f -exec cp {{}} {reports}/ \\;\n\
         echo\n\
         if [ $rc -ne 0 ]; then\n\
         if grep -q {unresolved} {LOG}; then echo {why}\n\
         elif grep -q -E {test_compile} {LOG}; then echo {test_compile_why}\n\
         elif grep -q -E {compile} {LOG}; then echo {compile_why}\n\
         fi\n\
         elif ! grep -q -l '<testcase' {reports}/TEST-*.xml 2>/dev/null; then echo {zero_why}\n\
         fi\n\
         exit $rc\n",
        args = mvn_args("\"$HUNKGEN_ENV_DIR\""),
        flags = TEST_FLAGS.join(" "),
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
        unresolved = UNRESOLVED
            .iter()
            .map(|p| format!("-e {}", sh_quote(p)))
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The settings both steps use: Maven Central under its usual id `central` and no
/// mirrors, so what the resolve step recorded is found again offline (§2).
pub fn settings_xml() -> String {
    let repo = |tag: &str| {
        format!(
            "        <{tag}>\n          <id>central</id>\n          \
             <url>https://repo.maven.apache.org/maven2</url>\n          \
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

/// `mvn --version`'s first line, asked once per process (the Maven version keys the
/// repository: its default plugin versions differ, §1).
fn maven_version() -> Result<String, EnvError> {
    static VERSION: OnceLock<Option<String>> = OnceLock::new();
    let missing = || EnvError::MissingTool {
        tool: "mvn".into(),
        hint: "install Maven (Debian: maven) and put mvn on PATH".into(),
    };
    VERSION
        .get_or_init(|| {
            let mvn = find_in_path("mvn")?;
            let runner = Runner::new(SandboxPolicy::Off).ok()?;
            let dir = tempfile::Builder::new()
                .prefix("hunkgen-mvn-")
                .tempdir()
                .ok()?;
            let stdout = dir.path().join("stdout");
            let mut spec = RunSpec::new(
                Command::Exec {
                    program: mvn,
                    args: vec!["-B".into(), "--version".into()],
                },
                dir.path(),
                &stdout,
            )
            .with_timeout(Duration::from_secs(120), Duration::from_secs(5));
            spec.stderr_path = Some(dir.path().join("stderr"));
            let out = runner.run(&spec).ok()?;
            let text = fs::read_to_string(&stdout).ok()?;
            let first = strip_ansi(text.lines().next()?).trim().to_string();
            (out.exit.success() && first.starts_with("Apache Maven")).then_some(first)
        })
        .clone()
        .ok_or_else(missing)
}

/// `text` without its ANSI colour sequences (Maven 3.8 writes some even in batch mode).
fn strip_ansi(text: &str) -> String {
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
        let d = declared_at(tree.repo_path, tree.rev).map_err(|why| maven_err(repo, why))?;
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
        let maven = maven_version()?;
        let mut h = Sha256::new();
        h.update(b"hunkgen-maven-v1\0");
        h.update(repo.as_bytes());
        for f in &d.build_files {
            let bytes = crate::git::read_blob(tree.repo_path, tree.rev, f, &[])
                .map_err(|e| maven_err(repo, format!("{f}: {e}")))?;
            h.update(b"\0");
            h.update(f.as_bytes());
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(&bytes);
        }
        h.update(b"\0");
        h.update(choice.jdk.version.as_bytes());
        h.update(b"\0");
        h.update(maven.as_bytes());
        if changes_build(tree.changes) {
            // The changed tree's build files follow from the base's and the changes.
            h.update(b"\0changes");
            for p in tree.changes {
                h.update(b"\0");
                h.update(p.to_bytes());
            }
        }
        let key = format!("{}-maven-{}", slug(repo), hex8(h));
        let record = crate::model::MavenRecord {
            jdk: choice.jdk.version.clone(),
            chosen: choice.why.clone(),
            level: choice.level,
            lifted_from: choice.lifted_from,
            maven,
            modules: d.modules.iter().map(|m| m.dir.clone()).collect(),
            repairs: Vec::new(),
        };
        let env = self.build_maven(runner, repo, tree, &d, &choice, &found, key)?;
        let mut record = record;
        record.repairs = fs::read_to_string(env.dir.join(REPAIRS_FILE))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect();
        Ok(InstanceEnv {
            env,
            prefix: String::new(),
            generated: Vec::new(),
            record: KindRecord::Maven(record),
        })
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
        let work =
            crate::lock::WorkDir::reserve(&self.root, &key).map_err(write_err(&self.root))?;
        let tmp = work.path().to_path_buf();
        let made = self.resolve_maven(runner, repo, tree, d, choice, found, &key, &tmp);
        let offline = match made {
            Ok(offline) => offline,
            Err(e) => {
                let _ = fs::remove_dir_all(&tmp);
                return Err(e);
            }
        };
        publish(
            &tmp,
            BuiltEnv {
                dir,
                key,
                spec: EnvSpec::MavenAuto(MavenAutoSpec),
                reused: false,
                offline,
            },
        )
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
        if seed.is_none() && !self.allow_network {
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
            ("settings.xml", settings_xml()),
            ("toolchains.xml", toolchains_xml(found)),
            ("java_home", format!("{home}\n")),
            (ARGS_FILE, format!("{level}\n")),
            (LIFT_FILE, lift_level(choice).unwrap_or_default()),
        ];
        for (name, text) in files {
            let p = tmp.join(name);
            fs::write(&p, text).map_err(write_err(&p))?;
        }
        let repository = tmp.join("repository");
        fs::create_dir_all(&repository).map_err(write_err(&repository))?;
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
                crate::validate::apply::apply_to_dir(p, &after).map_err(|e| {
                    maven_err(repo, format!("applying the changes to resolve them: {e}"))
                })?;
            }
            trees.push("after");
        }
        if let Some(to) = lift_level(choice) {
            for t in &trees {
                let dir = tmp.join(t);
                repair::lift_tree(&dir, &d.build_files, &to).map_err(write_err(&dir))?;
            }
        }
        let mvn = |offline: bool| {
            // The temporary directory's paths: the environment is renamed only after.
            let args = mvn_args(&sh_quote(tmp));
            let test = match classes.is_empty() {
                true => String::new(),
                false => format!(" {}", sh_quote(format!("-Dtest={}", classes.join(",")))),
            };
            trees
                .iter()
                .map(|t| {
                    format!(
                        "(cd {t} && mvn{} {args} {level}{test} {} test)",
                        if offline { " -o" } else { "" },
                        TEST_FLAGS.join(" ")
                    )
                })
                .collect::<Vec<_>>()
                .join(" && ")
        };
        let vars: Vec<(OsString, OsString)> = vec![
            ("JAVA_HOME".into(), home.clone().into()),
            ("PATH".into(), prepend_path(&choice.jdk.home.join("bin"))),
        ];
        let mut readable = vec![choice.jdk.home.clone()];
        let tag = key.rsplit('-').next().unwrap_or(key);
        let mut repairs: Vec<Repair> = Vec::new();
        let mut offline_failure = None;
        if let Some(seed) = &seed {
            readable.push(seed.clone());
            let script = format!("cp -R {}/. repository/ && {}", sh_quote(seed), mvn(true));
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
                vars: &vars,
                readable: &readable,
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
                    "resolving offline from the seed repository ({SEED_VAR}) failed and \
                     the network is off for setup: {why}"
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
            vars: &vars,
            readable: &readable,
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
                return Err(EnvError::Unresolvable {
                    repo: repo.to_string(),
                    why: format!(
                        "the online resolve run ({exit}) ended: {tail}; see {}",
                        log.display()
                    ),
                });
            }
            Err(e) => return Err(e),
        }
        self.finish_maven(tmp, &src, &after, &repairs)?;
        Ok(false)
    }

    /// One resolve run; when Maven says a parent or BOM snapshot is unreachable, the
    /// exported trees' poms move to its release and the run goes again (a few rounds at
    /// most), each repair kept in `repairs`.
    fn resolve_repairing(
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
            let mut applied = false;
            for r in repair::unreachable_snapshots(&text) {
                if repairs.contains(&r) {
                    continue;
                }
                for t in a.trees {
                    let dir = a.tmp.join(t);
                    applied |= repair::rewrite_tree(&dir, a.poms, &r).map_err(|source| {
                        EnvError::Write {
                            path: dir.clone(),
                            source,
                        }
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
        let mut listed = String::new();
        for r in repairs {
            if repair::install_alias(&repository, r).map_err(write_err(&repository))? {
                listed.push_str(&r.describe());
                listed.push('\n');
            }
        }
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
#[path = "kind_tests.rs"]
mod tests;
