//! The agent runs under a runs root: every directory holding a `result.json` of
//! `hunkgen run` (`<agent>/<state>-<scenario>[-tests]/[attempt-<k>/]<instance>/`), with
//! what a judge reads from it.

use crate::model::{AgentRunRecord, RunId, TrajectoryStep};
use std::path::{Path, PathBuf};

/// How deep below the root a run directory may be: agent, state-scenario, attempt,
/// instance.
const MAX_DEPTH: usize = 4;

/// Directories under a runs root that never hold runs: `hunkgen run`'s working copies,
/// snapshots and private files (all hidden) and the judge's own logs.
pub(super) const LOGS_DIR: &str = "judge-logs";

/// One run found under the root.
#[derive(Debug, Clone)]
pub struct FoundRun {
    /// Its directory.
    pub dir: PathBuf,
    /// Its `result.json`.
    pub record: AgentRunRecord,
    /// Which run it is.
    pub id: RunId,
}

impl FoundRun {
    /// The key of its verdict ([`RunId::key`]).
    pub fn key(&self) -> String {
        self.id.key()
    }

    /// Its normalized steps, or why there are none (a raw log, an unreadable line).
    pub fn steps(&self) -> Result<Vec<TrajectoryStep>, String> {
        let path = self.dir.join("trajectory.jsonl");
        let text = std::fs::read_to_string(&path).map_err(|_| {
            format!(
                "no normalized trajectory (trajectory_format {})",
                self.record.trajectory_format
            )
        })?;
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(n, l)| {
                serde_json::from_str(l)
                    .map_err(|e| format!("trajectory.jsonl line {}: not a step: {e}", n + 1))
            })
            .collect()
    }

    /// A text file of the run directory (`model.patch`, `prompt.md`); empty when absent.
    pub fn text(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap_or_default()
    }
}

/// Why the runs under a root cannot be listed.
#[derive(Debug, thiserror::Error)]
pub enum FindError {
    /// The root is not a readable directory.
    #[error("{}: not a directory of `hunkgen run` output: {source}", root.display())]
    Root {
        /// The root.
        root: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Two run directories are the same run (two roots of one agent below one directory).
    #[error("{} and {} are both the run `{key}`: give a directory that holds one of them", first.display(), second.display())]
    Twice {
        /// The run's key.
        key: String,
        /// One directory.
        first: PathBuf,
        /// The other.
        second: PathBuf,
    },
}

/// Every run under `root` (the root of `hunkgen run --out`, one agent's directory, or
/// one run directory), sorted by key.
pub fn find(root: &Path) -> Result<Vec<FoundRun>, FindError> {
    std::fs::read_dir(root).map_err(|source| FindError::Root {
        root: root.to_path_buf(),
        source,
    })?;
    let mut found = Vec::new();
    walk(root, 0, &mut found);
    found.sort_by_key(FoundRun::key);
    for w in found.windows(2) {
        if w[0].key() == w[1].key() {
            return Err(FindError::Twice {
                key: w[0].key(),
                first: w[0].dir.clone(),
                second: w[1].dir.clone(),
            });
        }
    }
    Ok(found)
}

fn walk(dir: &Path, depth: usize, found: &mut Vec<FoundRun>) {
    if let Some(record) = std::fs::read_to_string(dir.join("result.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<AgentRunRecord>(&t).ok())
    {
        let id = RunId {
            instance_id: record.instance_id.clone(),
            agent: record.agent.clone(),
            state: record.state.clone(),
            scenario: record.scenario.clone(),
            tests_present: record.tests_present,
            attempt: record.attempt,
        };
        found.push(FoundRun {
            dir: dir.to_path_buf(),
            record,
            id,
        });
        return;
    }
    if depth >= MAX_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            !name.starts_with('.') && name != LOGS_DIR
        })
        .map(|e| e.path())
        .collect();
    dirs.sort();
    for d in dirs {
        walk(&d, depth + 1, found);
    }
}
