//! Test environments, built once per content hash into a cache and reused.
//!
//! Each kind of `env:` is a module implementing [`Kind`] ([`kind`] names the phases):
//! `python` (a uv venv from a requirements file and/or an install command, with uv's
//! shared cache and hardlinks, offline first), `python: auto` (`auto`: inferred per
//! instance from its base commit), `java` (jars + `javac` and the JUnit console
//! launcher) and `command` (any setup command run in the new environment directory).
//! This module holds what every kind shares: the spec as written, the cache (key, build
//! into a temporary directory, rename), and the build step through [`Runner`], so builds
//! are sandboxed and logged too. A Python version is one of the interpreters found on
//! the machine (`pythons`), else reported as unsupported, never faked.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::runner::{find_in_path, ExitKind, RunError, RunSpec, Runner};

pub mod auto;
mod choice;
pub use choice::{EnvChoice, NotOneEnv, PythonEntry};
mod command;
pub mod gradle;
mod java;
pub mod kind;
pub mod maven;
mod python;
pub mod python2;
pub use auto::{AutoEnv, AutoSpec};
pub use gradle::GradleAutoSpec;
pub use kind::{InstanceEnv, InstanceTree, Kind, KindRecord, Selected};
pub use maven::MavenAutoSpec;
pub mod pythons;
pub mod swebench;
pub use java::java_test_command;
pub use pythons::python_matches;

/// A Python environment: interpreter version and what to install.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PythonSpec {
    /// Requested version (`3.11`): an interpreter of it found on the machine
    /// (`pythons`); None = the machine's `python3`.
    pub python: Option<String>,
    /// A requirements file installed with `uv pip install -r`.
    pub requirements: Option<PathBuf>,
    /// A shell command run after that with the venv active (`VIRTUAL_ENV`, `PATH`) and
    /// uv at `$HUNKGEN_UV` (e.g. `"$HUNKGEN_UV" pip install -e ./vendored`).
    pub install: Option<String>,
    /// Constraints on the tools that build source distributions (uv's
    /// `--build-constraints`): an old sdist may need an old setuptools to build at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_constraints: Option<PathBuf>,
}

/// A Java environment: the class path and where sources and tests live in a tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JavaSpec {
    /// Jars of the class path (one must be the JUnit console launcher to run tests).
    pub jars: Vec<PathBuf>,
    /// Source directories relative to the working copy.
    pub source_dirs: Vec<String>,
    /// Test directories relative to the working copy.
    pub test_dirs: Vec<String>,
}

/// What a repository's tests need.
///
/// Written as a map with one key (`python:`, `java:` or `command:`), in YAML recipes and
/// JSON manifests alike; `python: auto` infers each instance's environment (`auto`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "EnvChoice", into = "EnvChoice")]
pub enum EnvSpec {
    /// A uv venv.
    Python(PythonSpec),
    /// A uv venv per instance, inferred from its base commit: interpreter, dependencies
    /// pinned to the commit's date, layout (`auto`).
    PythonAuto(AutoSpec),
    /// javac + jars.
    Java(JavaSpec),
    /// A Maven build per instance, inferred from its base commit: JDK, a local
    /// repository resolved once per build files, `mvn -o` runs (`maven`).
    MavenAuto(MavenAutoSpec),
    /// A Gradle build per instance: found on the machine or `build_tool_unavailable`
    /// (`gradle`).
    GradleAuto(GradleAutoSpec),
    /// Any setup command, run in the environment directory (`HUNKGEN_ENV_DIR`); it
    /// should write relative paths, as the directory is renamed after the build.
    Command(CommandEnv),
    /// A SWE-bench row's environment and run, as the official `swebench` package
    /// specifies them (`swebench`).
    Swebench(swebench::SwebenchSpec),
}

impl EnvSpec {
    /// The kind behind this spec: the one place that knows every kind.
    pub fn kind(&self) -> &dyn Kind {
        match self {
            EnvSpec::Python(p) => p,
            EnvSpec::PythonAuto(a) => a,
            EnvSpec::Java(j) => j,
            EnvSpec::MavenAuto(m) => m,
            EnvSpec::GradleAuto(g) => g,
            EnvSpec::Command(c) => c,
            EnvSpec::Swebench(s) => s,
        }
    }

    /// The kind behind this spec, to resolve its paths when the recipe is loaded.
    pub fn kind_mut(&mut self) -> &mut dyn Kind {
        match self {
            EnvSpec::Python(p) => p,
            EnvSpec::PythonAuto(a) => a,
            EnvSpec::Java(j) => j,
            EnvSpec::MavenAuto(m) => m,
            EnvSpec::GradleAuto(g) => g,
            EnvSpec::Command(c) => c,
            EnvSpec::Swebench(s) => s,
        }
    }
}

/// A setup-command environment as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandEnv {
    /// The shell command.
    pub setup: String,
    /// Files whose contents the environment depends on (hashed into its key).
    #[serde(default)]
    pub inputs: Vec<PathBuf>,
}

/// Why an environment could not be built.
#[derive(Debug, thiserror::Error)]
pub enum EnvError {
    /// No interpreter of the requested Python version was found on this machine.
    #[error("Python {requested} requested for {repo}, but no interpreter of that version was found (found: {available}); install one or name it in HUNKGEN_PYTHONS")]
    UnsupportedPython {
        /// The repository.
        repo: String,
        /// The requested version.
        requested: String,
        /// The versions found.
        available: String,
    },
    /// `python: auto` for a tree that declares Python 2 versions only, on a machine with
    /// no Python 2.7 interpreter (its environments are built by virtualenv and pip).
    #[error("{repo}: this commit's tree supports Python {versions} only, and no Python 2.7 interpreter was found (put python2.7 on PATH or name it in HUNKGEN_PYTHONS; `make deps` installs Debian bullseye's)")]
    Python2Only {
        /// The repository.
        repo: String,
        /// The versions the tree declares (`2.6 or 2.7`).
        versions: String,
    },
    /// A tool (uv, python3, javac) is missing.
    #[error("{tool} not found ({hint})")]
    MissingTool {
        /// The tool.
        tool: String,
        /// How to get it.
        hint: String,
    },
    /// A dependency file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// The cache directory could not be written.
    #[error("cannot write environment cache {path}: {source}")]
    Write {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// A build step failed; its log says why.
    #[error("environment step `{step}` for {repo} failed ({exit}); log {log} ends: {tail}")]
    Step {
        /// The repository.
        repo: String,
        /// The step's command.
        step: String,
        /// The exit status.
        exit: String,
        /// The step's log.
        log: PathBuf,
        /// The log's last lines (both streams).
        tail: String,
    },
    /// The runner could not run a step.
    #[error(transparent)]
    Run(#[from] RunError),
    /// No JDK found on this machine builds the tree (`maven: auto`).
    #[error("{repo}: no JDK found builds this commit: {why}; install one (under /usr/lib/jvm) or name its home in HUNKGEN_JDKS")]
    UnsupportedJdk {
        /// The repository.
        repo: String,
        /// What the tree needs and the JDKs found.
        why: String,
    },
    /// The build tool could not resolve the tree's dependencies: no network for the
    /// resolve step and no seed, or the repositories lack an artifact.
    #[error("{repo}: dependency_unresolvable: {why}")]
    Unresolvable {
        /// The repository.
        repo: String,
        /// The cause, in the build tool's words where it gave some.
        why: String,
    },
    /// The tree's code does not compile in the resolve step (`maven: auto`, whose
    /// resolve run compiles it with the JDK chosen).
    #[error("{repo}: {}: {why}", if *test { "test_compile_error" } else { "compile_error" })]
    Compile {
        /// The repository.
        repo: String,
        /// Test code (else main code).
        test: bool,
        /// Maven's failing goal and the compiler's first error.
        why: String,
    },
    /// A plugin of the build refuses the Maven it ran with (`maven: auto`'s resolve
    /// step); the kind then runs one that plugin takes, so this reaches a dataset only
    /// when none can be had.
    #[error("{repo}: build_tool_unavailable: {by} requires Maven {min}; {why}")]
    NeedsMaven {
        /// The repository.
        repo: String,
        /// The plugin, as Maven names it (`org.apache.rat:apache-rat-plugin:0.18`).
        by: String,
        /// The least Maven version it takes.
        min: String,
        /// What was tried.
        why: String,
    },
    /// The build tool a suite needs is not on this machine (`gradle: auto`).
    #[error("{repo}: build_tool_unavailable: {why}")]
    BuildToolUnavailable {
        /// The repository.
        repo: String,
        /// What was looked for, and where.
        why: String,
    },
    /// `maven: auto` could not read the tree.
    #[error("maven: auto for {repo}: {why}")]
    Maven {
        /// The repository.
        repo: String,
        /// Why.
        why: String,
    },
    /// `python: auto` could not read what the base commit declares, or was asked to
    /// build without an instance.
    #[error("python: auto for {repo}: {why}")]
    Auto {
        /// The repository.
        repo: String,
        /// Why.
        why: String,
    },
    /// A kind declared per instance asked for an environment shared by the repository.
    #[error("{repo}: `{kind}` environments are declared per instance from its base commit, never shared by the repository")]
    PerInstance {
        /// The repository.
        repo: String,
        /// The kind's name.
        kind: &'static str,
    },
    /// `env: swebench`: a step of a row's environment failed (the spec, the helper, the
    /// interpreter, the plan, the install).
    #[error("swebench environment for {repo}: {why}")]
    Swebench {
        /// The repository.
        repo: String,
        /// The step that failed and why.
        why: String,
    },
}

impl EnvError {
    /// The rejection reason of an instance whose environment failed this way: no
    /// interpreter for it is `unsupported_python`, no JDK `unsupported_jdk`, an artifact
    /// out of reach `dependency_unresolvable`, anything else `environment`.
    pub fn reject_reason(&self) -> crate::model::RejectReason {
        match self {
            EnvError::UnsupportedPython { .. } | EnvError::Python2Only { .. } => {
                crate::model::RejectReason::UnsupportedPython
            }
            EnvError::UnsupportedJdk { .. } => crate::model::RejectReason::UnsupportedJdk,
            EnvError::Unresolvable { .. } => crate::model::RejectReason::DependencyUnresolvable,
            EnvError::Compile { test: true, .. } => crate::model::RejectReason::TestCompileError,
            EnvError::Compile { test: false, .. } => crate::model::RejectReason::CompileError,
            EnvError::BuildToolUnavailable { .. } | EnvError::NeedsMaven { .. } => {
                crate::model::RejectReason::BuildToolUnavailable
            }
            _ => crate::model::RejectReason::Environment,
        }
    }
}

/// A ready environment in the cache.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuiltEnv {
    /// Its directory (`<cache>/<repo>-<hash>`).
    pub dir: PathBuf,
    /// The content hash key.
    pub key: String,
    /// What it is.
    pub spec: EnvSpec,
    /// Found in the cache rather than built now.
    pub reused: bool,
    /// Built without network (everything came from uv's cache).
    pub offline: bool,
}

/// The manifest written into each environment, read back on reuse.
const MANIFEST: &str = "hunkgen-env.json";

impl BuiltEnv {
    /// The environment's interpreter, for kinds that have one (a venv's `python`).
    pub fn python(&self) -> Option<PathBuf> {
        self.spec.kind().interpreter(&self.dir)
    }

    /// The class path jars as linked into the environment (Java environments).
    pub fn class_path(&self) -> Vec<PathBuf> {
        self.spec.kind().class_path(&self.dir)
    }

    /// What a run in this environment reads, to be bound read-only into its sandbox
    /// wherever it lives: the environment's directory and what its kind links to
    /// outside it (both may be under `/tmp`).
    pub fn binds(&self) -> Vec<PathBuf> {
        let mut v = vec![self.dir.clone()];
        v.extend(self.spec.kind().binds(&self.dir));
        v
    }

    /// Makes `spec` a run in this environment: its [`vars`](Self::vars) set and its
    /// [`binds`](Self::binds) readable in the sandbox.
    pub fn enter(&self, spec: &mut RunSpec) {
        spec.env.extend(self.vars());
        spec.readable.extend(self.binds());
    }

    /// Variables a run in this environment needs: `HUNKGEN_ENV_DIR` and its kind's (a
    /// venv on `PATH` with `VIRTUAL_ENV`, or `CLASSPATH`).
    pub fn vars(&self) -> Vec<(OsString, OsString)> {
        let mut v: Vec<(OsString, OsString)> =
            vec![("HUNKGEN_ENV_DIR".into(), self.dir.clone().into())];
        v.extend(self.spec.kind().vars(&self.dir));
        v
    }
}

/// `dir` in front of the current `PATH`.
fn prepend_path(dir: &Path) -> OsString {
    prepend_paths(&[dir.to_path_buf()])
}

/// `PATH` with `dirs` before it, in order.
fn prepend_paths(dirs: &[PathBuf]) -> OsString {
    let mut parts = dirs.to_vec();
    if let Some(p) = std::env::var_os("PATH") {
        parts.extend(std::env::split_paths(&p));
    }
    std::env::join_paths(parts).unwrap_or_default()
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// uv: `HUNKGEN_UV`, else `uv` on `PATH`.
pub fn find_uv() -> Option<PathBuf> {
    std::env::var_os("HUNKGEN_UV")
        .map(PathBuf::from)
        .filter(|p| p.is_file())
        .or_else(|| find_in_path("uv"))
}

/// virtualenv, which builds Python 2.7 environments (uv builds Python 3 ones only):
/// `HUNKGEN_VIRTUALENV`, else the one installed beside uv (`make deps` puts both in one
/// venv), else `virtualenv` on `PATH`.
pub fn find_virtualenv(uv: Option<&Path>) -> Option<PathBuf> {
    std::env::var_os("HUNKGEN_VIRTUALENV")
        .map(PathBuf::from)
        .filter(|p| p.is_file())
        .or_else(|| {
            uv.and_then(Path::parent)
                .map(|d| d.join("virtualenv"))
                .filter(|p| p.is_file())
        })
        .or_else(|| find_in_path("virtualenv"))
}

/// The machine's `python3`: its real executable and its version (`3.11.7`).
///
/// Asked through a [`Runner`] like every process hunkgen starts, but outside the sandbox:
/// the answer is the host's interpreter, whose path the environment build then uses.
pub fn machine_python() -> Result<(PathBuf, String), EnvError> {
    pythons::for_request("", None).map(|i| (i.exe, i.version))
}

/// The environment cache: a directory of built environments and uv's package cache.
#[derive(Debug, Clone)]
pub struct EnvCache {
    root: PathBuf,
    uv_cache: PathBuf,
    uv: Option<PathBuf>,
    virtualenv: Option<PathBuf>,
    allow_network: bool,
    timeout: Duration,
}

impl EnvCache {
    /// A cache at `root` using uv's cache at `uv_cache` (share it between builds and
    /// keep it on the same filesystem so hardlinks work). Network allowed by default.
    pub fn new(root: impl Into<PathBuf>, uv_cache: impl Into<PathBuf>) -> Self {
        let uv = find_uv();
        EnvCache {
            root: root.into(),
            uv_cache: uv_cache.into(),
            virtualenv: find_virtualenv(uv.as_deref()),
            uv,
            allow_network: true,
            timeout: Duration::from_secs(20 * 60),
        }
    }

    /// Facts about commits that `python: auto` remembers between builds (their nearest
    /// tag), beside the environments.
    pub fn commit_memo(&self) -> crate::cache::Cache {
        crate::cache::Cache::new(self.root.join("commits"))
    }

    /// Uses this uv binary.
    pub fn with_uv(mut self, uv: impl Into<PathBuf>) -> Self {
        let uv = uv.into();
        if std::env::var_os("HUNKGEN_VIRTUALENV").is_none() {
            self.virtualenv = find_virtualenv(Some(&uv)).or(self.virtualenv.take());
        }
        self.uv = Some(uv);
        self
    }

    /// Runs a build step offline first (from the caches) and, when that fails and the
    /// network is allowed, once more online, with `prepare` making the directory fresh
    /// before each; whether it stayed offline.
    fn offline_first(
        &self,
        prepare: impl Fn() -> Result<(), EnvError>,
        step: impl Fn(bool) -> Result<(), EnvError>,
    ) -> Result<bool, EnvError> {
        prepare()?;
        match step(false) {
            Ok(()) => Ok(true),
            Err(e) if !self.allow_network => Err(e),
            Err(_) => {
                prepare()?;
                step(true).map(|()| false)
            }
        }
    }

    /// virtualenv, or the error every Python 2.7 environment gives without it.
    fn require_virtualenv(&self) -> Result<PathBuf, EnvError> {
        self.virtualenv
            .clone()
            .ok_or_else(|| EnvError::MissingTool {
                tool: "virtualenv".into(),
                hint: "Python 2.7 environments are built by virtualenv 20.21 or older: set \
                   HUNKGEN_VIRTUALENV or put it on PATH (`pip install 'virtualenv<20.22'`; \
                   `make deps`)"
                    .into(),
            })
    }

    /// The wheels Python 2.7 environments install from, beside uv's cache (pip 20.3,
    /// the last for Python 2, has no cut-off and no offline cache of its own): filled
    /// by the online step, read alone (`--no-index`) offline.
    pub fn py2_wheels(&self) -> PathBuf {
        self.uv_cache.join("hunkgen-py27-wheels")
    }

    /// uv, or the error every uv-built environment gives without it.
    fn require_uv(&self) -> Result<PathBuf, EnvError> {
        self.uv.clone().ok_or_else(|| EnvError::MissingTool {
            tool: "uv".into(),
            hint: "set HUNKGEN_UV or put uv on PATH (`pip install uv`; `make deps`)".into(),
        })
    }

    /// uv's package cache, which built venvs hardlink their files from.
    pub fn uv_cache(&self) -> &Path {
        &self.uv_cache
    }

    /// Where `env: swebench` writes its helper script and the files it keys by content.
    pub fn swebench_dir(&self) -> PathBuf {
        self.root.join("swebench")
    }

    /// Forbids (false) or allows network access for builds the cache cannot satisfy.
    pub fn with_network(mut self, allow: bool) -> Self {
        self.allow_network = allow;
        self
    }

    /// The content key of an environment: repository, spec, dependency file contents
    /// and (Python) the interpreter version.
    pub fn key(&self, repo: &str, spec: &EnvSpec) -> Result<String, EnvError> {
        let mut h = Sha256::new();
        h.update(b"hunkgen-env-v1\0");
        h.update(repo.as_bytes());
        h.update(b"\0");
        h.update(serde_json::to_vec(spec).unwrap_or_default());
        let inputs = spec.kind().key_inputs(repo)?;
        for fact in &inputs.facts {
            h.update(fact.as_bytes());
        }
        let files = &inputs.files;
        for f in files {
            let bytes = fs::read(f).map_err(|source| EnvError::Read {
                path: f.clone(),
                source,
            })?;
            h.update(b"\0");
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(&bytes);
        }
        Ok(format!("{}-{}", slug(repo), hex8(h)))
    }

    /// The environment for `repo` and `spec`: reused from the cache, or built into a
    /// temporary directory and renamed into place (a concurrent builder's result wins).
    pub fn ensure(
        &self,
        runner: &Runner,
        repo: &str,
        spec: &EnvSpec,
    ) -> Result<BuiltEnv, EnvError> {
        let key = self.key(repo, spec)?;
        let dir = self.root.join(&key);
        if let Some(env) = read_manifest(&dir) {
            return Ok(BuiltEnv {
                reused: true,
                ..env
            });
        }
        let built = |tmp: &Path| spec.kind().build(self, runner, repo, &key, tmp);
        self.make(&key, spec.clone(), built)
    }

    /// Builds the environment `key` in a reserved temporary directory (locked while it
    /// is built, so the next build sweeps what a killed one left), then publishes it;
    /// `build` fills the directory and says whether it stayed offline.
    pub(super) fn make(
        &self,
        key: &str,
        spec: EnvSpec,
        build: impl FnOnce(&Path) -> Result<bool, EnvError>,
    ) -> Result<BuiltEnv, EnvError> {
        let work =
            crate::lock::WorkDir::reserve(&self.root, key).map_err(|source| EnvError::Write {
                path: self.root.clone(),
                source,
            })?;
        let tmp = work.path().to_path_buf();
        let offline = match build(&tmp) {
            Ok(offline) => offline,
            Err(e) => {
                let _ = fs::remove_dir_all(&tmp);
                return Err(e);
            }
        };
        publish(
            &tmp,
            BuiltEnv {
                dir: self.root.join(key),
                key: key.to_string(),
                spec,
                reused: false,
                offline,
            },
        )
    }

    /// Runs one build step (`script` in `dir`) through the runner, logged as
    /// `logs/<log>.log`: the environment cache and uv's cache writable (and `writable`:
    /// a repository shared outside the environment), `readable` readable, the network
    /// only when `network`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn step(
        &self,
        runner: &Runner,
        repo: &str,
        log: &str,
        script: String,
        dir: &Path,
        network: bool,
        extra: &[(OsString, OsString)],
        readable: &[PathBuf],
        writable: &[PathBuf],
    ) -> Result<(), EnvError> {
        let log = self.root.join("logs").join(format!("{log}.log"));
        let mut rs = RunSpec::shell(script.clone(), dir, &log)
            .with_timeout(self.timeout, Duration::from_secs(10));
        // One writable mount holding both the environment and uv's cache, when they
        // share a directory below `/`: link(2) fails across mounts, and uv's
        // hardlinks would silently become copies.
        rs.writable = match common_ancestor(&self.root, &self.uv_cache) {
            Some(dir) => vec![dir],
            None => vec![self.uv_cache.clone()],
        };
        rs.writable.extend(writable.iter().cloned());
        rs.readable = readable.to_vec();
        rs.network = network;
        rs.env.extend(extra.iter().cloned());
        let o = runner.run(&rs)?;
        match o.exit {
            ExitKind::Code(0) if !o.timed_out => Ok(()),
            exit => Err(EnvError::Step {
                repo: repo.to_string(),
                step: script,
                exit: if o.timed_out {
                    "timed out".into()
                } else {
                    format!("{exit:?}")
                },
                tail: super::parse::log_tail(&log, 5),
                log,
            }),
        }
    }
}

/// A repository's name as the start of a cache directory's name.
fn slug(repo: &str) -> String {
    repo.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Empties `tmp` for a build (what a failed attempt left goes).
fn fresh(tmp: &Path) -> Result<(), EnvError> {
    let _ = fs::remove_dir_all(tmp);
    fs::create_dir_all(tmp).map_err(|source| EnvError::Write {
        path: tmp.to_path_buf(),
        source,
    })
}

/// The deepest directory containing both paths, unless it is `/`, `/tmp` or anything
/// holding `/tmp` (bound writable, it would expose the host's `/tmp` in the sandbox).
fn common_ancestor(a: &Path, b: &Path) -> Option<PathBuf> {
    let a = fs::canonicalize(a).ok()?;
    let b = fs::canonicalize(b).ok()?;
    let common: PathBuf = a
        .components()
        .zip(b.components())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect();
    (!Path::new("/tmp").starts_with(&common)).then_some(common)
}

/// Writes `bytes` to `path` through a temporary sibling unique to this process and
/// call, renamed into place: a concurrent writer of the same content-addressed file
/// never sees it half-written.
pub(super) fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}-{n}",
        file_name(path),
        std::process::id()
    ));
    let r = fs::write(&tmp, bytes).and_then(|()| fs::rename(&tmp, path));
    if r.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    r
}

/// `<dir>/<stem>-<short hash of text>.txt`, written once: the requirement and
/// constraint files environments are built from, named for their content.
pub(super) fn content_file(dir: &Path, stem: &str, text: &str) -> Result<PathBuf, EnvError> {
    let mut h = Sha256::new();
    h.update(text.as_bytes());
    let file = dir.join(format!("{stem}-{}.txt", hex8(h)));
    if !file.is_file() {
        write_new(&file, text.as_bytes()).map_err(|source| EnvError::Write {
            path: file.clone(),
            source,
        })?;
    }
    Ok(file)
}

/// The first 8 bytes of a digest, in hex: the short content keys of the cache.
pub(super) fn hex8(h: Sha256) -> String {
    h.finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Reads a finished environment's manifest (None when absent or unreadable).
/// Writes `env`'s manifest into the finished temporary directory `tmp` and renames it
/// to `env.dir`; when another builder got there first, its environment is used.
fn publish(tmp: &Path, env: BuiltEnv) -> Result<BuiltEnv, EnvError> {
    let manifest = serde_json::to_vec_pretty(&env).unwrap_or_default();
    fs::write(tmp.join(MANIFEST), manifest).map_err(|source| EnvError::Write {
        path: tmp.to_path_buf(),
        source,
    })?;
    if let Err(e) = fs::rename(tmp, &env.dir) {
        let _ = fs::remove_dir_all(tmp);
        return read_manifest(&env.dir)
            .map(|env| BuiltEnv {
                reused: true,
                ..env
            })
            .ok_or(EnvError::Write {
                path: env.dir,
                source: e,
            });
    }
    Ok(env)
}

fn read_manifest(dir: &Path) -> Option<BuiltEnv> {
    let bytes = fs::read(dir.join(MANIFEST)).ok()?;
    let mut env: BuiltEnv = serde_json::from_slice(&bytes).ok()?;
    env.dir = dir.to_path_buf();
    Some(env)
}

/// Single-quotes a path for `/bin/sh`.
pub fn sh_quote(p: impl AsRef<std::ffi::OsStr>) -> String {
    let s = p.as_ref().to_string_lossy();
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machine_python_names_the_interpreter_and_its_version() {
        let (exe, version) = machine_python().expect("python3 on PATH");
        assert!(exe.is_absolute() && exe.exists(), "{}", exe.display());
        assert!(version.starts_with("3."), "{version}");
        assert_eq!(version.split('.').count(), 3, "{version}");
    }

    #[test]
    fn keys_follow_repo_spec_and_file_contents() {
        let dir = tempfile::tempdir().unwrap();
        let setup = dir.path().join("setup.txt");
        fs::write(&setup, "a").unwrap();
        let cache = EnvCache::new(dir.path().join("envs"), dir.path().join("uv"));
        let spec = EnvSpec::Command(CommandEnv {
            setup: "true".into(),
            inputs: vec![setup.clone()],
        });
        let k1 = cache.key("org/repo", &spec).unwrap();
        assert!(k1.starts_with("org_repo-"), "{k1}");
        assert_eq!(k1, cache.key("org/repo", &spec).unwrap());
        assert_ne!(k1, cache.key("org/other", &spec).unwrap());
        fs::write(&setup, "b").unwrap();
        assert_ne!(k1, cache.key("org/repo", &spec).unwrap());
        let missing = EnvSpec::Command(CommandEnv {
            setup: "true".into(),
            inputs: vec![dir.path().join("nope")],
        });
        assert!(matches!(
            cache.key("r", &missing),
            Err(EnvError::Read { .. })
        ));
    }

    #[test]
    fn build_constraints_are_part_of_a_python_key_and_absent_ones_keep_it() {
        let dir = tempfile::tempdir().unwrap();
        let (req, cons) = (dir.path().join("r.txt"), dir.path().join("c.txt"));
        fs::write(&req, "pytest==9.2.0\n").unwrap();
        fs::write(&cons, "setuptools<58\n").unwrap();
        let cache = EnvCache::new(dir.path().join("envs"), dir.path().join("uv"));
        let spec = |c: Option<&Path>| {
            EnvSpec::Python(PythonSpec {
                python: None,
                requirements: Some(req.clone()),
                install: None,
                build_constraints: c.map(Path::to_path_buf),
            })
        };
        let plain = cache.key("r", &spec(None)).unwrap();
        let constrained = cache.key("r", &spec(Some(&cons))).unwrap();
        assert_ne!(plain, constrained);
        fs::write(&cons, "setuptools<50\n").unwrap();
        assert_ne!(constrained, cache.key("r", &spec(Some(&cons))).unwrap());
        // The same bytes as requirements and as constraints are two environments.
        let only = EnvSpec::Python(PythonSpec {
            python: None,
            requirements: None,
            install: None,
            build_constraints: Some(req.clone()),
        });
        assert_ne!(plain, cache.key("r", &only).unwrap());
        // The recipe form reads it.
        let y: EnvSpec =
            serde_norway::from_str("python:\n  requirements: r.txt\n  build_constraints: c.txt\n")
                .unwrap();
        assert!(matches!(
            y,
            EnvSpec::Python(PythonSpec {
                build_constraints: Some(_),
                ..
            })
        ));
    }

    #[test]
    fn shell_quoting() {
        assert_eq!(sh_quote("a b"), "'a b'");
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
    }
}
