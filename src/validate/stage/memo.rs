//! The verdict memo of the stage: a verdict whose runs are all cached is answered from
//! `<cache>/memo` while every run entry it was read from still has its checksum
//! (`src/memo.rs` holds the keys; this file names the runs and checks them).

use super::run::{self, RunArgs};
use super::{setup, Outcome, TreeKind, Validator};
use crate::source::Candidate;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A memoized verdict, the SHA-256 of each run entry it was read from and each run's
/// log, in run order (so a hit reads no run entry).
#[derive(Serialize, Deserialize)]
struct MemoOutcome {
    outcome: Outcome,
    sums: Vec<String>,
    logs: Vec<String>,
}

/// The runs of one pass over a tree (`rerun`), one per suite in setup order.
pub(super) fn pass_runs<'r>(
    c: &'r Candidate,
    setup: &'r setup::Setup<'_, '_>,
    kind: TreeKind,
    rerun: usize,
    logs: &'r Path,
    use_cache: bool,
) -> impl Iterator<Item = RunArgs<'r>> {
    setup
        .suites
        .iter()
        .map(move |(suite, env, selected)| RunArgs {
            c,
            base: &setup.base,
            kind,
            rerun,
            suite,
            env,
            selected,
            logs,
            use_cache,
            model: None,
            label: None,
        })
}

impl Validator<'_> {
    /// The name of every run [`Validator::validate_runs`] makes, in its order; `None`
    /// when one cannot be named (the runs then say why).
    pub(super) fn run_names(
        &self,
        c: &Candidate,
        setup: &setup::Setup<'_, '_>,
        logs: &Path,
        use_cache: bool,
    ) -> Option<Vec<run::RunName>> {
        let mut names = Vec::new();
        for (kind, reruns) in self.tree_runs() {
            for k in 0..reruns {
                for args in pass_runs(c, setup, kind, k, logs, use_cache) {
                    names.push(self.run_name(&args).ok()?);
                }
            }
        }
        Some(names)
    }

    /// The trees in the order they run, each with how many times it runs.
    pub(super) fn tree_runs(&self) -> [(TreeKind, usize); 3] {
        let reruns = self.plan.reruns.max(1);
        [
            (TreeKind::Base, 1),
            (TreeKind::Before, reruns),
            (TreeKind::After, reruns),
        ]
    }

    /// The memo key of a verdict: the plan, what of the candidate and its setup the
    /// verdict reads besides its runs, and the runs' keys.
    pub(super) fn outcome_key(
        &self,
        c: &Candidate,
        names: &[run::RunName],
        fresh: &Outcome,
    ) -> crate::cache::Key {
        let plan = format!(
            "{:?} {:?} {:?} {}",
            self.plan.reruns,
            self.plan.timeout,
            self.plan.scope,
            fresh.record.swebench.is_some()
        );
        let candidate = format!("{:?}\n{:?}\n{:?}", c.id, c.fail_to_pass, c.pass_to_pass);
        let runs: String = names.iter().map(|n| n.key.as_str()).collect();
        crate::memo::Memo::key(
            "validate-outcome-v1",
            &[plan.as_bytes(), candidate.as_bytes(), runs.as_bytes()],
        )
    }

    /// The memoized verdict when every run's entry is still the one it was made from;
    /// the runs' logs are written as a cached run's are. The record's setup fields come
    /// from `fresh` (this build's setup).
    pub(super) fn memo_hit(
        &self,
        key: &crate::cache::Key,
        names: &[run::RunName],
        fresh: &Outcome,
    ) -> Option<Outcome> {
        let stored: MemoOutcome = self.memo.get(key)?;
        if stored.sums.len() != names.len() || stored.logs.len() != names.len() {
            return None;
        }
        for (n, sum) in names.iter().zip(&stored.sums) {
            if self.results.sum(&n.key).as_ref() != Some(sum) {
                return None;
            }
        }
        for (n, text) in names.iter().zip(stored.logs) {
            self.cached_log(&n.log, text);
        }
        let mut out = stored.outcome;
        let r = &mut out.record;
        r.suites = fresh.record.suites.clone();
        r.environments = fresh.record.environments.clone();
        r.scope = fresh.record.scope.clone();
        r.sandboxed = fresh.record.sandboxed;
        r.python = fresh.record.python.clone();
        r.maven = fresh.record.maven.clone();
        r.swebench = fresh.record.swebench.clone();
        out.cached_runs = names.len();
        out.executed_runs = 0;
        Some(out)
    }

    /// Keep a verdict with the checksums and logs of the run entries it was made from
    /// (nothing is kept when one is missing or unreadable).
    pub(super) fn memo_put(&self, key: &crate::cache::Key, names: &[run::RunName], out: &Outcome) {
        let mut sums = Vec::with_capacity(names.len());
        let mut logs = Vec::with_capacity(names.len());
        for n in names {
            let Some((bytes, sum)) = self.results.get_with_sum(&n.key) else {
                return;
            };
            let Ok(entry) = serde_json::from_slice::<run::CachedLog>(&bytes) else {
                return;
            };
            sums.push(sum);
            logs.push(entry.log);
        }
        self.memo.put(
            key,
            &MemoOutcome {
                outcome: out.clone(),
                sums,
                logs,
            },
        );
    }
}
