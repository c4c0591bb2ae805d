//! Systems' evaluation results (`results.jsonl`, `summary.json`) read defensively and
//! tabulated once for the HTML report: accuracy by proximity class and divergence
//! quartile, abstention by state, and which systems solved which tasks.

use crate::model::{Card, EvaluationSummary, Instance, PredictionResult, StateKind};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// A results file that cannot be used for this dataset, with the file named.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    /// The file or directory cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A line or the summary is not what `hunkgen evaluate` writes.
    #[error("{path}:{line}: {what}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line (0 for a whole-file problem).
        line: usize,
        /// What was wrong.
        what: String,
    },
    /// The results belong to another dataset.
    #[error("{path}: {what}")]
    OtherDataset {
        /// The results file.
        path: PathBuf,
        /// How that was recognized.
        what: String,
    },
}

/// One system's results on the dataset.
#[derive(Debug, Clone)]
pub struct SystemResults {
    /// The system (`model_name_or_path`), made unique across the files given.
    pub name: String,
    /// The results file it came from.
    pub file: PathBuf,
    /// Its rows whose instance is in the dataset.
    pub rows: Vec<PredictionResult>,
    /// Rows naming an instance the dataset lacks (left out of every table).
    pub unknown: usize,
    /// The agent's trajectory metrics from `summary.json`, when it has them.
    pub trajectories: Option<crate::model::TrajectoryMetrics>,
    /// The agent study's Table 2 row from `summary.json`, when Defects4J evaluated it.
    pub study: Option<crate::model::StudyMetrics>,
}

/// Read one `--results` argument (a `results.jsonl` or a directory holding one, with
/// `summary.json` beside it if present) and check it belongs to this dataset: by the
/// summary's `dataset_sha256` against the card's checksum of `instances.jsonl` when both
/// exist, else by its instance ids. Rows are grouped per system.
pub fn read_results(
    arg: &Path,
    card: Option<&Card>,
    instances: &[Instance],
) -> Result<Vec<SystemResults>, ResultsError> {
    let file = if arg.is_dir() {
        arg.join("results.jsonl")
    } else {
        arg.to_path_buf()
    };
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ResultsError::Io { path, source }
    };
    let text = std::fs::read_to_string(&file).map_err(io(&file))?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let row: PredictionResult =
            serde_json::from_str(line).map_err(|e| ResultsError::Parse {
                path: file.clone(),
                line: i + 1,
                what: format!("not a results.jsonl row (hunkgen evaluate): {e}"),
            })?;
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(ResultsError::Parse {
            path: file,
            line: 0,
            what: "no result rows".into(),
        });
    }
    let summary_path = file.parent().unwrap_or(Path::new(".")).join("summary.json");
    let summary: Option<EvaluationSummary> = match std::fs::read_to_string(&summary_path) {
        Ok(t) => Some(serde_json::from_str(&t).map_err(|e| ResultsError::Parse {
            path: summary_path.clone(),
            line: e.line(),
            what: format!("not a summary.json (hunkgen evaluate): {e}"),
        })?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(&summary_path)(e)),
    };
    let ours = card.and_then(|c| {
        c.checksums
            .iter()
            .find(|(f, _)| f == "instances.jsonl")
            .map(|(_, sum)| (c.name.as_str(), sum.as_str()))
    });
    if let (Some(s), Some((name, sum))) = (&summary, ours) {
        if !s.dataset_sha256.is_empty() && s.dataset_sha256 != sum {
            return Err(ResultsError::OtherDataset {
                path: file,
                what: format!(
                    "results of dataset `{}` (instances.jsonl sha256 {}…), not of `{name}` ({}…); \
                     evaluate the system on this dataset",
                    s.dataset,
                    short(&s.dataset_sha256),
                    short(sum)
                ),
            });
        }
    }
    let ids: BTreeSet<&str> = instances.iter().map(|i| i.instance_id.as_str()).collect();
    let unknown: Vec<&str> = rows
        .iter()
        .map(|r| r.instance_id.as_str())
        .filter(|id| !ids.contains(id))
        .collect();
    if unknown.len() == rows.len() {
        return Err(ResultsError::OtherDataset {
            path: file,
            what: format!(
                "results of another dataset: none of its {} row(s) names an instance of this \
                 one (first: `{}`)",
                rows.len(),
                unknown[0]
            ),
        });
    }
    let mut by_system: BTreeMap<String, SystemResults> = BTreeMap::new();
    for row in rows {
        let sys = by_system
            .entry(row.model_name_or_path.clone())
            .or_insert_with(|| SystemResults {
                name: row.model_name_or_path.clone(),
                file: file.clone(),
                rows: Vec::new(),
                unknown: 0,
                trajectories: summary.as_ref().and_then(|s| s.trajectories.clone()),
                study: summary.as_ref().and_then(|s| s.study.clone()),
            });
        if ids.contains(row.instance_id.as_str()) {
            sys.rows.push(row);
        } else {
            sys.unknown += 1;
        }
    }
    Ok(by_system.into_values().collect())
}

fn short(sum: &str) -> &str {
    sum.get(..12).unwrap_or(sum)
}

/// Rates are the evaluation's (one Wilson implementation for the whole tool).
pub use crate::model::Rate;

/// Abstention in one state: on Resolved abstaining is correct, on Novel and Partial not.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StateAbstention {
    /// The state (`novel`, `partial`, `resolved`, or another name the rows use).
    pub state: String,
    /// Whether abstaining is the expected behaviour there.
    pub abstain_expected: bool,
    /// Abstentions among the state's predictions.
    pub abstained: Rate,
}

/// One system's tables.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemTables {
    /// The system.
    pub name: String,
    /// The results file.
    pub file: String,
    /// Rows used.
    pub rows: usize,
    /// Rows left out (instance not in the dataset).
    pub unknown: usize,
    /// Resolution over the predictions on states with something to fix (Novel, Partial).
    pub resolution: Rate,
    /// The same by proximity class (class order, then `undecided`).
    pub by_class: Vec<(String, Rate)>,
    /// The same by Div(P) quartile of the dataset (`Q1`…`Q4`, `none`).
    pub by_quartile: Vec<(String, Rate)>,
    /// Abstention per state.
    pub abstention: Vec<StateAbstention>,
    /// Correct abstentions (on Resolved) and incorrect ones (on Novel/Partial).
    pub correct_abstentions: usize,
    /// Abstentions on a state that needed a fix.
    pub incorrect_abstentions: usize,
    /// Trajectory metrics (agent runs only).
    pub trajectories: Option<crate::model::TrajectoryMetrics>,
    /// The agent study's Table 2 row (Defects4J evaluations only).
    pub study: Option<crate::model::StudyMetrics>,
}

/// Which systems resolved which tasks (an instance in a state that needs a fix).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Overlap {
    /// The systems, in table order.
    pub systems: Vec<String>,
    /// Tasks any system attempted.
    pub tasks: usize,
    /// `both[a][b]`: tasks resolved by a and by b (the diagonal: by a).
    pub both: Vec<Vec<usize>>,
    /// Exact solver sets (UpSet-style): which systems resolved a task, and how many
    /// tasks have exactly that set; the empty set counts tasks nobody resolved.
    pub combinations: Vec<(Vec<bool>, usize)>,
}

/// Everything the report shows about results.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResultsTables {
    /// Div(P) quartile edges of the dataset (25th, 50th, 75th percentile).
    pub quartile_edges: Option<[f64; 3]>,
    /// Per system.
    pub systems: Vec<SystemTables>,
    /// With several systems, which solved what.
    pub overlap: Option<Overlap>,
}

fn needs_fix(state: &str) -> bool {
    state != StateKind::Resolved.name()
}

impl ResultsTables {
    /// Tabulate the systems' rows against the dataset's instances.
    pub fn compute(instances: &[Instance], systems: &[SystemResults]) -> ResultsTables {
        let by_id: HashMap<&str, &Instance> = instances
            .iter()
            .map(|i| (i.instance_id.as_str(), i))
            .collect();
        let divs: Vec<f64> = instances
            .iter()
            .filter_map(|i| i.divergence.as_ref().and_then(|d| d.value))
            .collect();
        let quartile_edges = (!divs.is_empty()).then(|| {
            [
                crate::stats::percentile(&divs, 0.25),
                crate::stats::percentile(&divs, 0.5),
                crate::stats::percentile(&divs, 0.75),
            ]
        });
        let quartile = |i: &Instance| -> String {
            match (i.divergence.as_ref().and_then(|d| d.value), quartile_edges) {
                (Some(v), Some(e)) => {
                    let q = e.iter().filter(|edge| v > **edge).count() + 1;
                    format!("Q{q}")
                }
                _ => "none".into(),
            }
        };
        let class = |i: &Instance| -> String {
            i.proximity
                .as_ref()
                .and_then(|p| p.class)
                .map(|c| c.name().to_string())
                .unwrap_or_else(|| "undecided".into())
        };
        let mut class_order: Vec<String> = crate::model::ProximityClass::ALL
            .iter()
            .map(|c| c.name().to_string())
            .collect();
        class_order.push("undecided".into());
        let quartile_order: Vec<String> = ["Q1", "Q2", "Q3", "Q4", "none"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let grouped =
            |rows: &[&PredictionResult], key: &dyn Fn(&Instance) -> String, order: &[String]| {
                let mut acc: BTreeMap<String, (usize, usize)> = BTreeMap::new();
                for r in rows {
                    if let Some(inst) = by_id.get(r.instance_id.as_str()) {
                        let e = acc.entry(key(inst)).or_default();
                        e.0 += usize::from(r.resolved);
                        e.1 += 1;
                    }
                }
                order
                    .iter()
                    .filter_map(|k| {
                        acc.get(k)
                            .map(|(k2, n)| (k.clone(), crate::stats::wilson(*k2, *n)))
                    })
                    .collect::<Vec<_>>()
            };
        let tables: Vec<SystemTables> = systems
            .iter()
            .map(|s| {
                let fix: Vec<&PredictionResult> =
                    s.rows.iter().filter(|r| needs_fix(&r.state)).collect();
                let resolved = fix.iter().filter(|r| r.resolved).count();
                let mut states: BTreeMap<String, (usize, usize)> = BTreeMap::new();
                for r in &s.rows {
                    let e = states.entry(r.state.clone()).or_default();
                    e.0 += usize::from(r.abstained);
                    e.1 += 1;
                }
                let rank = |st: &str| {
                    StateKind::ALL
                        .iter()
                        .position(|k| k.name() == st)
                        .unwrap_or(StateKind::ALL.len())
                };
                let mut abstention: Vec<StateAbstention> = states
                    .iter()
                    .map(|(st, (k, n))| StateAbstention {
                        state: st.clone(),
                        abstain_expected: !needs_fix(st),
                        abstained: crate::stats::wilson(*k, *n),
                    })
                    .collect();
                abstention.sort_by_key(|a| (rank(&a.state), a.state.clone()));
                SystemTables {
                    name: s.name.clone(),
                    file: s.file.display().to_string(),
                    rows: s.rows.len(),
                    unknown: s.unknown,
                    resolution: crate::stats::wilson(resolved, fix.len()),
                    by_class: grouped(&fix, &class, &class_order),
                    by_quartile: grouped(&fix, &quartile, &quartile_order),
                    correct_abstentions: s
                        .rows
                        .iter()
                        .filter(|r| r.abstained && !needs_fix(&r.state))
                        .count(),
                    incorrect_abstentions: s
                        .rows
                        .iter()
                        .filter(|r| r.abstained && needs_fix(&r.state))
                        .count(),
                    abstention,
                    trajectories: s.trajectories.clone(),
                    study: s.study.clone(),
                }
            })
            .collect();
        let overlap = (systems.len() > 1).then(|| overlap(systems));
        ResultsTables {
            quartile_edges,
            systems: tables,
            overlap,
        }
    }
}

fn overlap(systems: &[SystemResults]) -> Overlap {
    // Task → which systems resolved it (a system counts a task once, whatever scenario).
    let mut tasks: BTreeMap<(String, String), Vec<bool>> = BTreeMap::new();
    for (s, sys) in systems.iter().enumerate() {
        for r in sys.rows.iter().filter(|r| needs_fix(&r.state)) {
            let solved = tasks
                .entry((r.instance_id.clone(), r.state.clone()))
                .or_insert_with(|| vec![false; systems.len()]);
            solved[s] |= r.resolved;
        }
    }
    let n = systems.len();
    let mut both = vec![vec![0; n]; n];
    let mut combos: BTreeMap<Vec<bool>, usize> = BTreeMap::new();
    for solved in tasks.values() {
        for a in 0..n {
            for b in 0..n {
                both[a][b] += usize::from(solved[a] && solved[b]);
            }
        }
        *combos.entry(solved.clone()).or_default() += 1;
    }
    let mut combinations: Vec<(Vec<bool>, usize)> = combos.into_iter().collect();
    combinations.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| b.0.cmp(&a.0)));
    Overlap {
        systems: systems.iter().map(|s| s.name.clone()).collect(),
        tasks: tasks.len(),
        both,
        combinations,
    }
}
