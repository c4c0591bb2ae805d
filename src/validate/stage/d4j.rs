//! The validate stage for Defects4J bugs (`validate.defects4j` in the recipe): the
//! buggy version is "before", the fixed version "after", each built and tested by
//! Defects4J itself through [`crate::validate::defects4j`], `reruns` times, in the
//! sandbox. hunkgen keeps what Defects4J does not do: the cache by content, reruns and
//! golden labels. Tests Defects4J lists in `failing_tests` as broken on the fixed version
//! are left out of the labels, and the proven FAIL_TO_PASS is checked against
//! Defects4J's own `trigger_tests` (`validation.d4j_agrees`).
//!
//! A Defects4J work directory tags the fixed version (`D4J_<P>_<id>_FIXED_VERSION`), so
//! checkouts stay in the cache as build directories and are never shown to anyone.

mod eval;
mod partial;

pub use eval::{copy_checkout, D4jCheckout, D4jEvalError, D4jEvalRun, HIDDEN_FROM_AGENT};

use super::{infra_detail, Outcome, StageError, Validator};
use crate::cache::Key;
use crate::lock::WorkDir;
use crate::model::{Failure, RejectReason};
use crate::source::Candidate;
use crate::validate::defects4j::{BugVersion, Defects4j, TestOutcome, TestScope, Version};
use crate::validate::golden::{self, Label, Rejection};
use crate::validate::parse::{parse_defects4j_failing, InfraFailure, InfraKind, RunResult};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Which tests Defects4J runs on each version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum D4jTests {
    /// Only the bug's trigger tests.
    Trigger,
    /// The relevant tests (classes that load a class the fix modifies); they include
    /// the trigger tests.
    #[default]
    Relevant,
    /// The whole developer-written suite.
    All,
}

impl D4jTests {
    /// The name in the recipe and the validation record.
    pub fn name(self) -> &'static str {
        match self {
            D4jTests::Trigger => "trigger",
            D4jTests::Relevant => "relevant",
            D4jTests::All => "all",
        }
    }

    fn scope(self) -> TestScope {
        match self {
            D4jTests::Trigger => TestScope::Trigger,
            D4jTests::Relevant => TestScope::Relevant,
            D4jTests::All => TestScope::All,
        }
    }
}

/// `validate.defects4j`: validate Defects4J bugs by running Defects4J's own build.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct D4jValidate {
    /// The Defects4J home (holding `framework/` and `project_repos/`); default
    /// `HUNKGEN_D4J_HOME`.
    #[serde(default)]
    pub home: Option<PathBuf>,
    /// The JDK Defects4J runs with; default `HUNKGEN_D4J_JAVA_HOME`, else Debian's JDK 11.
    #[serde(default)]
    pub java_home: Option<PathBuf>,
    /// `trigger`, `relevant` (default) or `all`.
    #[serde(default)]
    pub tests: D4jTests,
}

impl D4jValidate {
    /// The home: the recipe's, else `HUNKGEN_D4J_HOME`.
    fn home(&self) -> Option<PathBuf> {
        self.home
            .clone()
            .or_else(|| std::env::var_os(crate::validate::defects4j::HOME_VAR).map(PathBuf::from))
    }

    /// The JDK: the recipe's, else `HUNKGEN_D4J_JAVA_HOME`, else Debian's JDK 11.
    fn java_home(&self) -> PathBuf {
        self.java_home
            .clone()
            .or_else(|| {
                std::env::var_os(crate::validate::defects4j::JAVA_HOME_VAR).map(PathBuf::from)
            })
            .unwrap_or_else(|| PathBuf::from(crate::validate::defects4j::DEFAULT_JAVA_HOME))
    }
}

/// A cached Defects4J test run.
#[derive(Serialize, Deserialize)]
struct CachedD4jRun {
    outcome: TestOutcome,
    seconds: f64,
    log: String,
}

/// One version's run: (answered from the cache, seconds, outcome).
type D4jRan = (bool, f64, TestOutcome);

/// What every run of one bug shares.
struct BugRuns<'v> {
    spec: &'v D4jValidate,
    home: PathBuf,
    project: String,
    bug: u32,
    /// Content hash of `framework/projects/<P>` and the JDK's `release` file.
    fingerprint: String,
    logs: PathBuf,
}

impl Validator<'_> {
    /// Validate a Defects4J candidate with Defects4J's own build and tests.
    pub(super) fn validate_defects4j(
        &self,
        spec: &D4jValidate,
        c: &Candidate,
        logs: &Path,
        use_cache: bool,
        mut out: Outcome,
    ) -> Outcome {
        out.record.suites = vec!["defects4j".into()];
        out.record.scope = spec.tests.name().into();
        let Some(bug) =
            c.id.strip_prefix(&format!("{}_", c.project))
                .and_then(|b| b.parse::<u32>().ok())
        else {
            out.rejection = Some((
                RejectReason::Metadata,
                format!("`{}` is not a Defects4J bug id (<Project>_<number>)", c.id),
            ));
            return out;
        };
        let Some(home) = spec.home() else {
            out.rejection = Some((
                RejectReason::Infrastructure,
                "no Defects4J home: set `validate.defects4j.home` or HUNKGEN_D4J_HOME".into(),
            ));
            return out;
        };
        let fingerprint = match self.d4j_fingerprint(&home, &c.project, &spec.java_home()) {
            Ok(f) => f,
            Err(why) => {
                out.rejection = Some((RejectReason::Infrastructure, why.to_string()));
                return out;
            }
        };
        out.record.environments = vec![format!("defects4j-{}-{}", c.project, &fingerprint[..16])];
        let b = BugRuns {
            spec,
            home,
            project: c.project.clone(),
            bug,
            fingerprint,
            logs: logs.join(&c.id),
        };
        let reruns = self.plan.reruns.max(1);
        let mut outcomes: [Vec<TestOutcome>; 2] = Default::default();
        for (side, version) in [Version::Buggy, Version::Fixed].into_iter().enumerate() {
            for k in 0..reruns {
                let (cached, seconds, outcome) = self.d4j_run(&b, version, k, use_cache);
                if cached {
                    out.cached_runs += 1;
                } else {
                    out.executed_runs += 1;
                }
                match version {
                    Version::Buggy => out.record.seconds.before += seconds,
                    Version::Fixed => out.record.seconds.after += seconds,
                }
                if let TestOutcome::CompileError { first_errors } = &outcome {
                    let name = BugVersion {
                        project: b.project.clone(),
                        bug,
                        version,
                    }
                    .name();
                    out.rejection = Some((
                        RejectReason::CompileError,
                        format!(
                            "{name} does not compile with the JDK at {}: {}",
                            spec.java_home().display(),
                            first_errors.join(" | ").replace('\n', " ")
                        ),
                    ));
                    return out;
                }
                outcomes[side].push(outcome);
            }
        }
        out.record.runs.before = outcomes[0].len();
        out.record.runs.after = outcomes[1].len();
        let broken = broken_on_fixed(&b.home, &b.project, &c.fix_commit);
        let mut excluded = BTreeSet::new();
        let mut runs: [Vec<RunResult>; 2] = Default::default();
        for (side, list) in outcomes.iter().enumerate() {
            for (k, o) in list.iter().enumerate() {
                let log = b.logs.join(log_name(side_version(side), k));
                let mut r = o.run_result(&log);
                if let RunResult::Tests(t) = &mut r {
                    t.retain(|id, _| {
                        let keep = !broken.contains(id);
                        if !keep {
                            excluded.insert(id.clone());
                        }
                        keep
                    });
                }
                runs[side].push(r);
            }
        }
        out.record.d4j_excluded = excluded.into_iter().collect();
        let v = golden::validate(&runs[0], &runs[1]);
        for label in [Label::F2P, Label::P2P, Label::F2F, Label::P2F] {
            let n = v.labels.with(label).len();
            if n > 0 {
                out.record.labels.insert(label.code().to_string(), n);
            }
        }
        out.record.flaky = v.labels.flaky.keys().cloned().collect();
        out.fail_to_pass = v.golden.fail_to_pass.clone();
        out.pass_to_pass = v.golden.pass_to_pass.clone();
        if let Some(TestOutcome::Tests { failures, .. }) = outcomes[0].first() {
            out.failures = out
                .fail_to_pass
                .iter()
                .filter_map(|t| failures.get(t).map(|f| with_id(f, t)))
                .collect();
        }
        out.rejection = v.rejection.map(|r| match r {
            Rejection::Infra { side, run, failure } => (
                RejectReason::Infrastructure,
                infra_detail(&c.id, &side, run, &failure),
            ),
            Rejection::NoFailToPass => (
                RejectReason::NoFailToPass,
                "no test fails on the buggy version and passes on the fixed one".into(),
            ),
            Rejection::PassToFail { tests } => (
                RejectReason::PassToFail,
                format!(
                    "the fixed version fails test(s) that pass on the buggy one: {}",
                    tests.join(", ")
                ),
            ),
        });
        if out.rejection.is_none() {
            let proven: BTreeSet<&String> = out.fail_to_pass.iter().collect();
            let trigger: BTreeSet<&String> = c.fail_to_pass.iter().collect();
            let agrees = proven == trigger;
            out.record.d4j_agrees = Some(agrees);
            if !agrees {
                out.rejection = Some((RejectReason::D4jDisagrees, disagreement(&proven, &trigger)));
            }
        }
        out
    }

    /// One `defects4j test` of one version (from the cache when its key was seen): a
    /// fresh copy of the cached checkout, tested, and cached unless it timed out.
    fn d4j_run(&self, b: &BugRuns<'_>, version: Version, rerun: usize, use_cache: bool) -> D4jRan {
        let v = BugVersion {
            project: b.project.clone(),
            bug: b.bug,
            version,
        };
        let key = Key::of(&[
            b"hunkgen-d4j-run-v1",
            b.fingerprint.as_bytes(),
            b.project.as_bytes(),
            v.vid().as_bytes(),
            b.spec.tests.name().as_bytes(),
            &(rerun as u64).to_le_bytes(),
        ]);
        let log = b.logs.join(log_name(version, rerun));
        if let Some(dir) = log.parent() {
            let _ = fs::create_dir_all(dir);
        }
        if use_cache {
            if let Some(hit) = self
                .results
                .get(&key)
                .and_then(|bytes| serde_json::from_slice::<CachedD4jRun>(&bytes).ok())
            {
                let _ = fs::write(&log, hit.log.as_bytes());
                return (true, hit.seconds, hit.outcome);
            }
        }
        let infra = |reason: String| {
            TestOutcome::Infra(InfraFailure {
                kind: InfraKind::BuildFailure,
                reason,
                log_path: log.clone(),
            })
        };
        let outcome = match self.d4j_test(b, &v, &log) {
            Ok(run) => run,
            Err(why) => return (false, 0.0, infra(why.to_string())),
        };
        let text = fs::read(&log)
            .map(|t| String::from_utf8_lossy(&t).into_owned())
            .unwrap_or_default();
        let timed_out = matches!(&outcome.0, TestOutcome::Infra(f) if f.kind == InfraKind::Timeout);
        if !timed_out {
            let entry = CachedD4jRun {
                outcome: outcome.0.clone(),
                seconds: outcome.1,
                log: text,
            };
            if let Ok(bytes) = serde_json::to_vec(&entry) {
                let _ = self.results.put(&key, &bytes);
            }
        }
        (false, outcome.1, outcome.0)
    }

    /// The handle, the version's compiled build directory copied to a fresh run
    /// directory (without `.git`: Defects4J's compile and test never read it, and it is
    /// the part that leaks the fix), and the test.
    fn d4j_test(
        &self,
        b: &BugRuns<'_>,
        v: &BugVersion,
        log: &Path,
    ) -> Result<(TestOutcome, f64), StageError> {
        let d4j = self.d4j_handle(b)?;
        let root = self.plan.cache_dir.join("d4j");
        let mut full = false;
        loop {
            let base = self.d4j_compiled(&d4j, &root, b, v, full)?;
            let run = self.d4j_run_dir(&root, &format!("{}-", v.name()))?;
            let work = run.path().join("w");
            copy_tree(&base, &work, false).map_err(|source| StageError::Copy {
                from: base.clone(),
                to: work.clone(),
                source,
            })?;
            let t = d4j.test(&self.runner, &work, &b.spec.tests.scope(), log)?;
            // Classes kept from the fixed version's build that no longer link against the
            // buggy sources: build the buggy version from scratch and test again.
            if !full && v.version == Version::Buggy && links_stale_classes(&t.outcome) {
                full = true;
                continue;
            }
            return Ok((t.outcome, t.seconds));
        }
    }

    /// A version's build directory in the cache, compiled once: the fixed version is
    /// Defects4J's checkout compiled; the buggy one is a copy of the compiled fixed
    /// version switched to the buggy tag, so the compiler rebuilds only the files the
    /// source patch touches. When the patch changes a `static final` line (a constant
    /// other classes may have inlined), or `full` is asked, the buggy version is built
    /// from scratch instead.
    fn d4j_compiled(
        &self,
        d4j: &Defects4j,
        root: &Path,
        b: &BugRuns<'_>,
        v: &BugVersion,
        full: bool,
    ) -> Result<PathBuf, StageError> {
        let fixed = BugVersion::fixed(b.project.clone(), b.bug);
        let compiled = root.join("compiled");
        let scratch = full || (v.version == Version::Buggy && touches_constants(&b.home, v));
        let dir = compiled.join(format!(
            "{}-{}{}",
            v.project,
            v.vid(),
            if scratch && v.version == Version::Buggy {
                "-full"
            } else {
                ""
            }
        ));
        if dir.join(COMPILED_MARK).is_file() {
            return Ok(dir);
        }
        let from = match v.version {
            Version::Fixed => self.d4j_checkout(d4j, root, &fixed, &b.logs)?,
            Version::Buggy => self.d4j_compiled(d4j, root, b, &fixed, false)?,
        };
        // Locked while it is made, so the next build sweeps what a killed one left.
        let work = WorkDir::reserve(&compiled, &v.name()).map_err(|source| StageError::Io {
            path: compiled.clone(),
            source,
        })?;
        let tmp = work.path().to_path_buf();
        copy_tree(&from, &tmp, true).map_err(|source| StageError::Copy {
            from: from.clone(),
            to: tmp.clone(),
            source,
        })?;
        if v.version == Version::Buggy {
            let log = b.logs.join("switch-b.log");
            d4j.switch_version(&self.runner, &tmp, v, scratch, &log)?;
        }
        // A compile error shows again, with its messages, in the test run that follows.
        let log = b.logs.join(format!("compile-{}.log", v.vid()));
        d4j.compile(&self.runner, &tmp, &log)?;
        fs::write(tmp.join(COMPILED_MARK), b"").map_err(|source| StageError::Io {
            path: tmp.clone(),
            source,
        })?;
        if fs::rename(&tmp, &dir).is_err() {
            // Another build put it there first; ours is not needed.
            let _ = fs::remove_dir_all(&tmp);
        }
        if dir.join(COMPILED_MARK).is_file() {
            Ok(dir)
        } else {
            Err(StageError::NotCompiled {
                dir,
                version: v.name(),
            })
        }
    }

    /// The version's checkout in the cache, made once (into a temporary directory that
    /// is then renamed, so concurrent builds never see half a checkout).
    fn d4j_checkout(
        &self,
        d4j: &Defects4j,
        root: &Path,
        v: &BugVersion,
        logs: &Path,
    ) -> Result<PathBuf, StageError> {
        let checkouts = root.join("checkouts");
        let dir = checkouts.join(format!("{}-{}", v.project, v.vid()));
        if Defects4j::work_dir_version(&dir).is_ok_and(|got| &got == v) {
            return Ok(dir);
        }
        let work = WorkDir::reserve(&checkouts, &v.name()).map_err(|source| StageError::Io {
            path: checkouts.clone(),
            source,
        })?;
        let tmp = work.path().to_path_buf();
        let log = logs.join(format!("checkout-{}.log", v.vid()));
        d4j.checkout(&self.runner, v, &tmp, &log)?;
        if fs::rename(&tmp, &dir).is_err() {
            // Another build put it there first; ours is not needed.
            let _ = fs::remove_dir_all(&tmp);
        }
        match Defects4j::work_dir_version(&dir) {
            Ok(got) if &got == v => Ok(dir),
            _ => Err(StageError::NotACheckout {
                dir,
                version: v.name(),
            }),
        }
    }

    /// The content hash of `framework/projects/<P>` and the JDK's `release` file (what
    /// decides Defects4J's build and tests besides the bug), once per project.
    fn d4j_fingerprint(
        &self,
        home: &Path,
        project: &str,
        java: &Path,
    ) -> Result<String, StageError> {
        let id = format!("{}\0{project}\0{}", home.display(), java.display());
        if let Some(f) = self
            .d4j_fingerprints
            .lock()
            .ok()
            .and_then(|m| m.get(&id).cloned())
        {
            return Ok(f);
        }
        let dir = home.join("framework/projects").join(project);
        if !dir.is_dir() {
            return Err(StageError::D4jProjectMissing { path: dir });
        }
        let mut files = Vec::new();
        list_files(&dir, &mut files).map_err(|source| StageError::Io {
            path: dir.clone(),
            source,
        })?;
        files.sort();
        let mut parts: Vec<Vec<u8>> = Vec::with_capacity(files.len() * 2 + 1);
        for f in &files {
            let rel = f.strip_prefix(&dir).unwrap_or(f);
            parts.push(rel.to_string_lossy().as_bytes().to_vec());
            parts.push(fs::read(f).map_err(|source| StageError::Io {
                path: f.clone(),
                source,
            })?);
        }
        // The JDK by what it is, not where it is.
        parts.push(
            fs::read(java.join("release"))
                .unwrap_or_else(|_| java.to_string_lossy().as_bytes().to_vec()),
        );
        let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        let f = Key::of(&refs).as_str().to_string();
        if let Ok(mut m) = self.d4j_fingerprints.lock() {
            m.insert(id, f.clone());
        }
        Ok(f)
    }
}

/// The tests Defects4J lists as failing on the fixed version
/// (`projects/<P>/failing_tests/<fixed revision>`); none when the file is absent.
pub fn broken_on_fixed(home: &Path, project: &str, fixed_rev: &str) -> BTreeSet<String> {
    let path = home
        .join("framework/projects")
        .join(project)
        .join("failing_tests")
        .join(fixed_rev);
    match fs::read(&path) {
        Ok(b) => parse_defects4j_failing(&String::from_utf8_lossy(&b))
            .into_iter()
            .map(|f| f.id)
            .collect(),
        Err(_) => BTreeSet::new(),
    }
}

/// The rejection detail of a disagreement: both sets and what differs.
fn disagreement(proven: &BTreeSet<&String>, trigger: &BTreeSet<&String>) -> String {
    let list = |s: &BTreeSet<&String>| s.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ");
    format!(
        "FAIL_TO_PASS {{{}}} differs from Defects4J's trigger_tests {{{}}}",
        list(proven),
        list(trigger)
    )
}

fn side_version(side: usize) -> Version {
    if side == 0 {
        Version::Buggy
    } else {
        Version::Fixed
    }
}

/// `before-defects4j-0.log` (buggy) or `after-defects4j-0.log` (fixed), as the git
/// stage names its logs.
fn log_name(version: Version, rerun: usize) -> String {
    let side = match version {
        Version::Buggy => "before",
        Version::Fixed => "after",
    };
    format!("{side}-defects4j-{rerun}.log")
}

/// A failure under the test id FAIL_TO_PASS uses.
fn with_id(f: &Failure, id: &str) -> Failure {
    Failure {
        test: id.to_string(),
        ..f.clone()
    }
}

/// Every file under `dir` (not following symbolic links).
fn list_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for e in fs::read_dir(dir)? {
        let e = e?;
        let t = e.file_type()?;
        if t.is_dir() {
            list_files(&e.path(), out)?;
        } else {
            out.push(e.path());
        }
    }
    Ok(())
}

/// Copies a directory tree, keeping symbolic links as links and file permissions.
/// Marks a build directory whose compile has run (written last, before the rename).
const COMPILED_MARK: &str = ".hunkgen-compiled";

/// Copy a build directory, keeping every file's modification time (the compiler decides
/// what to rebuild by it); `.git` only when `with_git`.
fn copy_tree(from: &Path, to: &Path, with_git: bool) -> std::io::Result<()> {
    fs::create_dir_all(to)?;
    for e in fs::read_dir(from)? {
        let e = e?;
        let t = e.file_type()?;
        let name = e.file_name();
        if !with_git && name == ".git" {
            continue;
        }
        let dest = to.join(&name);
        if t.is_dir() {
            copy_tree(&e.path(), &dest, true)?;
        } else if t.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(e.path())?, &dest)?;
        } else {
            fs::copy(e.path(), &dest)?;
            let modified = e.metadata()?.modified()?;
            fs::File::options()
                .write(true)
                .open(&dest)?
                .set_modified(modified)?;
        }
    }
    Ok(())
}

/// Whether Defects4J's source patch of the bug changes a line declaring a constant
/// (`static final`): another class compiled against the fixed version may have inlined
/// it, so the buggy version cannot reuse the fixed version's classes.
fn touches_constants(home: &Path, v: &BugVersion) -> bool {
    let patch = home
        .join("framework/projects")
        .join(&v.project)
        .join("patches")
        .join(format!("{}.src.patch", v.bug));
    let Ok(text) = fs::read(&patch) else {
        return true;
    };
    String::from_utf8_lossy(&text).lines().any(|l| {
        (l.starts_with('+') || l.starts_with('-'))
            && !l.starts_with("+++")
            && !l.starts_with("---")
            && l.contains("static")
            && l.contains("final")
    })
}

/// Whether a test run failed with a linkage error (a class kept from another build that
/// no longer matches the sources), which an incremental build can cause.
fn links_stale_classes(outcome: &TestOutcome) -> bool {
    const LINKAGE: [&str; 5] = [
        "java.lang.NoSuchMethodError",
        "java.lang.NoSuchFieldError",
        "java.lang.IncompatibleClassChangeError",
        "java.lang.AbstractMethodError",
        "java.lang.NoClassDefFoundError",
    ];
    match outcome {
        TestOutcome::Tests { failures, .. } => failures.values().any(|f| {
            LINKAGE
                .iter()
                .any(|l| f.message.contains(l) || f.trace.contains(l))
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_changing_a_constant_forces_a_build_from_scratch() {
        let home = tempfile::tempdir().expect("tempdir");
        let dir = home.path().join("framework/projects/Cli/patches");
        fs::create_dir_all(&dir).expect("mkdir");
        fs::write(
            dir.join("1.src.patch"),
            "--- a/A.java\n+++ b/A.java\n@@ -1,1 +1,1 @@\n-    int x = 1;\n+    int x = 2;\n",
        )
        .expect("write");
        fs::write(
            dir.join("2.src.patch"),
            "--- a/A.java\n+++ b/A.java\n@@ -1,1 +1,1 @@\n-    public static final int X = 1;\n+    public static final int X = 2;\n",
        )
        .expect("write");
        assert!(!touches_constants(
            home.path(),
            &BugVersion::buggy("Cli", 1)
        ));
        assert!(touches_constants(home.path(), &BugVersion::buggy("Cli", 2)));
        assert!(
            touches_constants(home.path(), &BugVersion::buggy("Cli", 3)),
            "no patch: be safe"
        );
    }

    #[test]
    fn linkage_errors_mark_stale_classes() {
        let failure = |message: &str| crate::model::Failure {
            test: "a.B::c".into(),
            message: message.into(),
            trace: String::new(),
        };
        let run = |message: &str| TestOutcome::Tests {
            results: Default::default(),
            failures: [("a.B::c".to_string(), failure(message))]
                .into_iter()
                .collect(),
        };
        assert!(links_stale_classes(&run(
            "java.lang.NoSuchMethodError: a.B.c()I"
        )));
        assert!(!links_stale_classes(&run(
            "junit.framework.AssertionFailedError: expected 1"
        )));
    }

    #[test]
    fn build_directories_are_copied_with_their_times_and_without_git() {
        let from = tempfile::tempdir().expect("tempdir");
        fs::create_dir_all(from.path().join(".git")).expect("mkdir");
        fs::create_dir_all(from.path().join("src/a")).expect("mkdir");
        fs::write(from.path().join("src/a/B.java"), "class B {}").expect("write");
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        fs::File::options()
            .write(true)
            .open(from.path().join("src/a/B.java"))
            .and_then(|f| f.set_modified(old))
            .expect("set time");
        let to = tempfile::tempdir().expect("tempdir");
        copy_tree(from.path(), &to.path().join("w"), false).expect("copy");
        let copied = to.path().join("w/src/a/B.java");
        assert_eq!(
            fs::metadata(&copied).and_then(|m| m.modified()).ok(),
            Some(old)
        );
        assert!(!to.path().join("w/.git").exists());
        copy_tree(from.path(), &to.path().join("g"), true).expect("copy");
        assert!(to.path().join("g/.git").is_dir());
    }

    #[test]
    fn tests_broken_on_the_fixed_version_are_read_by_revision() {
        let home = tempfile::tempdir().expect("tempdir");
        let dir = home.path().join("framework/projects/Cli/failing_tests");
        fs::create_dir_all(&dir).expect("mkdir");
        fs::write(
            dir.join("abc123"),
            "## commons-cli: 1f (abc123) ##\n--- org.a.BugsTest::test19383\njunit.framework.ComparisonFailure: x\n\tat a.b(C.java:1)\n",
        )
        .expect("write");
        let got = broken_on_fixed(home.path(), "Cli", "abc123");
        assert_eq!(
            got.into_iter().collect::<Vec<_>>(),
            ["org.a.BugsTest::test19383"]
        );
        assert!(broken_on_fixed(home.path(), "Cli", "other").is_empty());
    }

    #[test]
    fn a_disagreement_names_both_sets() {
        let (a, b, c) = (
            "p.T::a".to_string(),
            "p.T::b".to_string(),
            "p.T::c".to_string(),
        );
        let proven: BTreeSet<&String> = [&a, &b].into();
        let trigger: BTreeSet<&String> = [&a, &c].into();
        assert_eq!(
            disagreement(&proven, &trigger),
            "FAIL_TO_PASS {p.T::a, p.T::b} differs from Defects4J's trigger_tests {p.T::a, p.T::c}"
        );
    }

    #[test]
    fn the_recipe_block_defaults_to_the_relevant_tests() {
        let d: D4jValidate = serde_json::from_str("{}").expect("parse");
        assert_eq!(d.tests, D4jTests::Relevant);
        assert!(serde_json::from_str::<D4jValidate>(r#"{"test": "all"}"#).is_err());
        let d: D4jValidate = serde_json::from_str(r#"{"tests": "trigger"}"#).expect("parse");
        assert_eq!(d.tests.scope(), TestScope::Trigger);
    }
}
