//! The Partial-state check for Defects4J bugs (ARCHITECTURE §6): a copy of the buggy
//! version's cached build directory (Defects4J's buggy version, golden tests present,
//! without `.git`) with the Partial change applied, compiled whole and tested by
//! Defects4J over the tests validation runs (`validate.defects4j.tests`), in the
//! sandbox, `reruns` times. The change is kept when it compiles and a FAIL_TO_PASS
//! test still fails on every run, as for git instances. Each run is cached by the
//! change's content.

use super::{copy_tree, BugRuns, D4jValidate};
use crate::cache::Key;
use crate::diff::Patch;
use crate::source::Candidate;
use crate::validate::apply::apply_to_dir;
use crate::validate::defects4j::{BugVersion, TestOutcome};
use crate::validate::golden;
use crate::validate::parse::{InfraKind, RunResult};
use crate::validate::stage::{StageError, Validator};
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::Path;

/// A cached Partial-check run.
#[derive(Serialize, Deserialize)]
struct CachedPartialRun {
    outcome: TestOutcome,
    log: String,
}

impl Validator<'_> {
    /// Whether `change` keeps a Defects4J bug buggy: Defects4J's buggy version plus the
    /// change must compile, and at least one of `fail_to_pass` must still not pass on
    /// every rerun. Returns the verdict and the manifest's record.
    pub(in crate::validate::stage) fn d4j_partial_still_fails(
        &self,
        spec: &D4jValidate,
        c: &Candidate,
        change: &Patch,
        fail_to_pass: &[String],
        logs: &Path,
    ) -> (bool, serde_json::Value) {
        let refuse = |why: String| (false, serde_json::json!({ "error": why }));
        let Some(bug) =
            c.id.strip_prefix(&format!("{}_", c.project))
                .and_then(|b| b.parse::<u32>().ok())
        else {
            return refuse(format!(
                "`{}` is not a Defects4J bug id (<Project>_<number>)",
                c.id
            ));
        };
        let Some(home) = spec.home() else {
            return refuse(
                "no Defects4J home: set `validate.defects4j.home` or HUNKGEN_D4J_HOME".into(),
            );
        };
        let fingerprint = match self.d4j_fingerprint(&home, &c.project, &spec.java_home()) {
            Ok(f) => f,
            Err(why) => return refuse(why.to_string()),
        };
        let b = BugRuns {
            spec,
            home,
            project: c.project.clone(),
            bug,
            fingerprint,
            logs: logs.join(&c.id),
        };
        let patch = change.to_bytes();
        let mut still_failing_each_run = Vec::new();
        let mut failing_every_run: Option<Vec<String>> = None;
        for k in 0..self.plan.reruns.max(1) {
            let log = b.logs.join(format!("partial-defects4j-{k}.log"));
            let outcome = match self.d4j_partial_run(&b, &patch, change, k, &log) {
                Ok(o) => o,
                Err(why) => return refuse(why.to_string()),
            };
            match outcome.run_result(&log) {
                RunResult::Tests(t) => {
                    let failing: Vec<String> = fail_to_pass
                        .iter()
                        .filter(|id| !golden::test_passed(id, &t))
                        .cloned()
                        .collect();
                    if failing.is_empty() {
                        return (
                            false,
                            serde_json::json!({"golden_tests": "pass", "rerun": k}),
                        );
                    }
                    still_failing_each_run.push(failing.len());
                    failing_every_run = Some(crate::validate::stage::still_failing(
                        failing_every_run.take(),
                        failing,
                    ));
                }
                RunResult::Infra(f) => {
                    return (
                        false,
                        serde_json::json!({"error": f.reason, "kind": format!("{:?}", f.kind)}),
                    )
                }
            }
        }
        (
            true,
            serde_json::json!({
                "golden_tests": "fail",
                "runs": still_failing_each_run.len(),
                "failing_per_run": still_failing_each_run,
                "of": fail_to_pass.len(),
                "failing_tests": failing_every_run.unwrap_or_default(),
                "suite": "defects4j",
                "tests": spec.tests.name(),
            }),
        )
    }

    /// One test run of the buggy version plus the change (from the cache when this
    /// change, bug, framework and JDK were run before), its log at `log`.
    fn d4j_partial_run(
        &self,
        b: &BugRuns<'_>,
        patch_bytes: &[u8],
        change: &Patch,
        rerun: usize,
        log: &Path,
    ) -> Result<TestOutcome, StageError> {
        let v = BugVersion::buggy(b.project.clone(), b.bug);
        let key = Key::of(&[
            b"hunkgen-d4j-partial-v1",
            b.fingerprint.as_bytes(),
            b.project.as_bytes(),
            v.vid().as_bytes(),
            b.spec.tests.name().as_bytes(),
            patch_bytes,
            &(rerun as u64).to_le_bytes(),
        ]);
        if let Some(dir) = log.parent() {
            fs::create_dir_all(dir).map_err(|source| StageError::Io {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        if let Some(hit) = self
            .results
            .get(&key)
            .and_then(|bytes| serde_json::from_slice::<CachedPartialRun>(&bytes).ok())
        {
            let _ = fs::write(log, hit.log.as_bytes());
            return Ok(hit.outcome);
        }
        let d4j = self.d4j_handle(b)?;
        let root = self.plan.cache_dir.join("d4j");
        let base = self.d4j_compiled(&d4j, &root, b, &v, false)?;
        let run = self.d4j_run_dir(&root, &format!("{}-partial-", v.name()))?;
        let work = run.path().join("w");
        copy_tree(&base, &work, false).map_err(|source| StageError::Copy {
            from: base.clone(),
            to: work.clone(),
            source,
        })?;
        apply_to_dir(change, &work).map_err(|source| StageError::Patch {
            name: "the Partial change",
            source,
        })?;
        // Every source newer than its class: the whole version is compiled again, so a
        // change that breaks another file (a method the subset removes and another file
        // calls) is a compile error, not a class kept from the complete build.
        touch_java(&work).map_err(|source| StageError::Io {
            path: work.clone(),
            source,
        })?;
        let t = d4j.test(&self.runner, &work, &b.spec.tests.scope(), log)?;
        let timed_out = matches!(&t.outcome, TestOutcome::Infra(f) if f.kind == InfraKind::Timeout);
        if !timed_out {
            let text = fs::read(log)
                .map(|t| String::from_utf8_lossy(&t).into_owned())
                .unwrap_or_default();
            let entry = CachedPartialRun {
                outcome: t.outcome.clone(),
                log: text,
            };
            if let Ok(bytes) = serde_json::to_vec(&entry) {
                let _ = self.results.put(&key, &bytes);
            }
        }
        Ok(t.outcome)
    }
}

/// Set the modification time of every `.java` file under `dir` to now.
fn touch_java(dir: &Path) -> std::io::Result<()> {
    let now = std::time::SystemTime::now();
    for e in fs::read_dir(dir)? {
        let e = e?;
        let t = e.file_type()?;
        if t.is_dir() {
            touch_java(&e.path())?;
        } else if t.is_file() && e.file_name().to_string_lossy().ends_with(".java") {
            fs::File::options()
                .write(true)
                .open(e.path())?
                .set_modified(now)?;
        }
    }
    Ok(())
}
