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
    /// The evaluation ran no tests (its dataset has no `validate:`): resolution is empty.
    pub resolution_unavailable: bool,
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
                resolution_unavailable: summary
                    .as_ref()
                    .is_some_and(|s| s.resolution_unavailable.is_some()),
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
    /// FixedBench's table of abstention and resolution (rows on FixedBench states).
    pub fixedbench: Option<FixedBenchTable>,
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
        let class = |i: &Instance| class_name(i);
        let class_order = class_order();
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
            fixedbench: FixedBenchTable::compute(systems),
        }
    }
}

/// An instance's proximity class by name, `undecided` when it has none.
pub(super) fn class_name(i: &Instance) -> String {
    i.proximity
        .as_ref()
        .and_then(|p| p.class)
        .map(|c| c.name().to_string())
        .unwrap_or_else(|| "undecided".into())
}

/// The classes nearest first, then `undecided`: the order every per-class table uses.
pub(super) fn class_order() -> Vec<String> {
    let mut v: Vec<String> = crate::model::ProximityClass::ALL
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    v.push("undecided".into());
    v
}

/// Task (instance, state that needs a fix) → which systems resolved it; a system counts
/// a task once, whatever scenario or attempt.
pub(super) fn solvers(systems: &[SystemResults]) -> BTreeMap<(&str, &str), Vec<bool>> {
    let mut tasks: BTreeMap<(&str, &str), Vec<bool>> = BTreeMap::new();
    for (s, sys) in systems.iter().enumerate() {
        for r in sys.rows.iter().filter(|r| needs_fix(&r.state)) {
            let solved = tasks
                .entry((r.instance_id.as_str(), r.state.as_str()))
                .or_insert_with(|| vec![false; systems.len()]);
            solved[s] |= r.resolved;
        }
    }
    tasks
}

/// Exact solver sets with their counts, the largest first (ties: more solvers first).
pub(super) fn ranked(combos: BTreeMap<Vec<bool>, usize>) -> Vec<(Vec<bool>, usize)> {
    let mut combinations: Vec<(Vec<bool>, usize)> = combos.into_iter().collect();
    let key = |(set, n): &(Vec<bool>, usize)| (*n, set.iter().filter(|&&x| x).count(), set.clone());
    combinations.sort_by_key(|c| std::cmp::Reverse(key(c)));
    combinations
}

fn overlap(systems: &[SystemResults]) -> Overlap {
    let tasks = solvers(systems);
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
    Overlap {
        systems: systems.iter().map(|s| s.name.clone()).collect(),
        tasks: tasks.len(),
        both,
        combinations: ranked(combos),
    }
}

/// FixedBench's Table 1 from any number of evaluations: one row per task (state) ×
/// scenario × instruction, one cell per system with its abstention and resolution rates,
/// and the Partial control (resolution on the Novel versions of the instances that have a
/// Partial task). Systems are the rows' `model_name_or_path`, so the evaluations of one
/// agent in several states, scenarios and instructions fill one column.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FixedBenchTable {
    /// The systems, in column order.
    pub systems: Vec<String>,
    /// Task × scenario × instruction rows, in the paper's order.
    pub rows: Vec<FixedBenchRow>,
    /// Per scenario × instruction with Partial tasks: resolution on the same instances'
    /// Novel versions.
    pub partial_control: Vec<FixedBenchControl>,
    /// Thinking effort against abstention per task, when efforts are given
    /// (`hunkgen report --effort`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub effort: Vec<super::effort::EffortCorrelation>,
}

/// One row of [`FixedBenchTable`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FixedBenchRow {
    /// The state the agent was given (`novel`, `partial`, `resolved`).
    pub task: String,
    /// `best` or `worst` (`unspecified` for predictions that do not say).
    pub scenario: String,
    /// The prompt's instruction (`issue`, `edit`, …; `unspecified` when not recorded).
    pub instruction: String,
    /// Per system (in [`FixedBenchTable::systems`] order); `None` where it has no rows.
    pub cells: Vec<Option<FixedBenchCell>>,
}

/// One system's figures in one row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FixedBenchCell {
    /// Predictions that abstained (correct on Resolved, incorrect elsewhere).
    pub abstention: Rate,
    /// Predictions that resolved the task; `None` when the evaluation ran no tests.
    pub resolution: Option<Rate>,
}

/// One row of the Partial control.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FixedBenchControl {
    /// The scenario.
    pub scenario: String,
    /// The instruction.
    pub instruction: String,
    /// Per system: resolution on Novel, over the instances it was given as Partial.
    pub cells: Vec<Option<Rate>>,
}

/// The order of a name among `known` ones (unknown ones after them).
fn rank_of(known: &[&str], name: &str) -> usize {
    known.iter().position(|k| *k == name).unwrap_or(known.len())
}

impl FixedBenchTable {
    /// The instructions in the paper's order.
    pub const INSTRUCTIONS: [&'static str; 4] = ["issue", "edit", "reproduce", "abstain-or-fix"];

    /// Tabulate the systems' rows; `None` when no row is on a FixedBench state.
    pub fn compute(systems: &[SystemResults]) -> Option<FixedBenchTable> {
        type Key = (String, String, String);
        // (task, scenario, instruction) → system → rows.
        let mut cells: BTreeMap<Key, BTreeMap<String, Vec<&PredictionResult>>> = BTreeMap::new();
        let mut names: BTreeSet<String> = BTreeSet::new();
        let mut no_tests: BTreeSet<String> = BTreeSet::new();
        for s in systems {
            for r in &s.rows {
                if r.problems.iter().any(|p| p.starts_with("duplicate")) {
                    continue;
                }
                let key = (
                    r.state.clone(),
                    r.scenario.clone(),
                    r.instruction
                        .clone()
                        .unwrap_or_else(|| "unspecified".into()),
                );
                names.insert(r.model_name_or_path.clone());
                if s.resolution_unavailable {
                    no_tests.insert(r.model_name_or_path.clone());
                }
                cells
                    .entry(key)
                    .or_default()
                    .entry(r.model_name_or_path.clone())
                    .or_default()
                    .push(r);
            }
        }
        // Only results with an abstention task (a Resolved or Partial state, or one of
        // FixedBench's instructions) make the table; a repair study's Novel rows do not.
        let fixedbench = cells.keys().any(|(t, _, i)| {
            t != StateKind::Novel.name() || Self::INSTRUCTIONS.contains(&i.as_str())
        });
        if !fixedbench {
            return None;
        }
        let systems: Vec<String> = names.into_iter().collect();
        let states: Vec<&str> = StateKind::ALL.iter().map(|k| k.name()).collect();
        let mut keys: Vec<Key> = cells.keys().cloned().collect();
        keys.sort_by_key(|(t, sc, i)| {
            (
                rank_of(&states, t),
                t.clone(),
                rank_of(&["best", "worst"], sc),
                sc.clone(),
                rank_of(&Self::INSTRUCTIONS, i),
                i.clone(),
            )
        });
        let rate = |rows: &[&PredictionResult], f: &dyn Fn(&PredictionResult) -> bool| {
            crate::stats::wilson(rows.iter().filter(|r| f(r)).count(), rows.len())
        };
        let rows = keys
            .iter()
            .map(|key| {
                let by_system = &cells[key];
                FixedBenchRow {
                    task: key.0.clone(),
                    scenario: key.1.clone(),
                    instruction: key.2.clone(),
                    cells: systems
                        .iter()
                        .map(|name| {
                            by_system.get(name).map(|rows| FixedBenchCell {
                                abstention: rate(rows, &|r| r.abstained),
                                resolution: (!no_tests.contains(name))
                                    .then(|| rate(rows, &|r| r.resolved)),
                            })
                        })
                        .collect(),
                }
            })
            .collect();
        let partial = StateKind::Partial.name();
        let novel = StateKind::Novel.name();
        let partial_control = keys
            .iter()
            .filter(|(t, _, _)| t == partial)
            .map(|(_, sc, i)| FixedBenchControl {
                scenario: sc.clone(),
                instruction: i.clone(),
                cells: systems
                    .iter()
                    .map(|name| {
                        let given: BTreeSet<&str> = cells
                            .get(&(partial.to_string(), sc.clone(), i.clone()))
                            .and_then(|m| m.get(name))
                            .map(|rows| rows.iter().map(|r| r.instance_id.as_str()).collect())
                            .unwrap_or_default();
                        let on_novel: Vec<&PredictionResult> = cells
                            .get(&(novel.to_string(), sc.clone(), i.clone()))
                            .and_then(|m| m.get(name))
                            .map(|rows| {
                                rows.iter()
                                    .filter(|r| given.contains(r.instance_id.as_str()))
                                    .copied()
                                    .collect()
                            })
                            .unwrap_or_default();
                        (!on_novel.is_empty() && !no_tests.contains(name))
                            .then(|| rate(&on_novel, &|r| r.resolved))
                    })
                    .collect(),
            })
            .collect();
        Some(FixedBenchTable {
            systems,
            rows,
            partial_control,
            effort: Vec::new(),
        })
    }

    /// The table as markdown: `Abs.` and `Res.` per system as percentages with the
    /// paper's normal-approximation ± (k/n beside them).
    pub fn to_markdown(&self) -> String {
        let pm = |r: &Rate| {
            format!(
                "{:.1} ± {:.1} ({}/{})",
                100.0 * r.rate,
                100.0 * r.normal_half_width,
                r.k,
                r.n
            )
        };
        let mut head = vec!["task".to_string(), "scenario".into(), "instruction".into()];
        for s in &self.systems {
            head.push(format!("{s} Abs."));
            head.push(format!("{s} Res."));
        }
        let mut t = crate::table::Table::new(head);
        for row in &self.rows {
            let mut line = vec![
                row.task.clone(),
                row.scenario.clone(),
                row.instruction.clone(),
            ];
            for c in &row.cells {
                match c {
                    Some(c) => {
                        line.push(pm(&c.abstention));
                        line.push(c.resolution.as_ref().map(pm).unwrap_or_else(|| "–".into()));
                    }
                    None => line.extend(["–".to_string(), "–".to_string()]),
                }
            }
            t.push(line);
        }
        let mut out = String::from("## FixedBench: abstention and resolution\n\n");
        out.push_str(&t.to_markdown());
        if !self.partial_control.is_empty() {
            let mut head = vec!["scenario".to_string(), "instruction".into()];
            head.extend(self.systems.iter().map(|s| format!("{s} Res. on Novel")));
            let mut c = crate::table::Table::new(head);
            for row in &self.partial_control {
                let mut line = vec![row.scenario.clone(), row.instruction.clone()];
                line.extend(
                    row.cells
                        .iter()
                        .map(|r| r.as_ref().map(pm).unwrap_or_else(|| "–".into())),
                );
                c.push(line);
            }
            out.push_str("\n### Partial control: the same instances' Novel versions\n\n");
            out.push_str(&c.to_markdown());
        }
        out.push_str(&super::effort::markdown(&self.effort));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ApplyMethod;

    fn row(
        model: &str,
        id: &str,
        state: &str,
        sc: &str,
        instr: &str,
        res: bool,
        abs: bool,
    ) -> PredictionResult {
        PredictionResult {
            schema_version: 1,
            instance_id: id.into(),
            model_name_or_path: model.into(),
            state: state.into(),
            scenario: sc.into(),
            instruction: Some(instr.into()),
            attempt: None,
            applied: ApplyMethod::Exact,
            compiled: None,
            resolution: None,
            resolved: res,
            abstained: abs,
            abstention_correct: abs == (state == "resolved"),
            localized: false,
            localized_counted: false,
            hunks_touched: vec![],
            hunks_total: 2,
            line_scores: None,
            function_scores: None,
            failing_before: None,
            failing_after: None,
            infra: None,
            problems: vec![],
            defects4j: None,
        }
    }

    fn system(name: &str, rows: Vec<PredictionResult>, no_tests: bool) -> SystemResults {
        SystemResults {
            name: name.into(),
            file: PathBuf::from(format!("{name}.jsonl")),
            rows,
            unknown: 0,
            trajectories: None,
            study: None,
            resolution_unavailable: no_tests,
        }
    }

    #[test]
    fn fixedbench_cells_and_the_partial_control_by_hand() {
        // Agent `a` in two evaluations (one file per state) fills one column.
        let a1 = system(
            "a",
            vec![
                row("a", "x", "resolved", "best", "issue", true, true),
                row("a", "y", "resolved", "best", "issue", false, false),
                row("a", "z", "resolved", "best", "issue", true, true),
            ],
            false,
        );
        let a2 = system(
            "a (2)",
            vec![
                row("a", "x", "novel", "best", "issue", true, false),
                row("a", "y", "novel", "best", "issue", false, false),
                row("a", "z", "novel", "best", "issue", false, true),
                row("a", "x", "partial", "best", "issue", false, false),
                row("a", "z", "partial", "best", "issue", true, false),
            ],
            false,
        );
        let b = system(
            "b",
            vec![row(
                "b",
                "x",
                "resolved",
                "worst",
                "abstain-or-fix",
                false,
                true,
            )],
            true,
        );
        let t = FixedBenchTable::compute(&[a1, a2, b]).expect("a table");
        assert_eq!(t.systems, ["a", "b"]);
        let keys: Vec<(&str, &str, &str)> = t
            .rows
            .iter()
            .map(|r| (r.task.as_str(), r.scenario.as_str(), r.instruction.as_str()))
            .collect();
        assert_eq!(
            keys,
            [
                ("novel", "best", "issue"),
                ("partial", "best", "issue"),
                ("resolved", "best", "issue"),
                ("resolved", "worst", "abstain-or-fix"),
            ]
        );
        let kn = |r: &Rate| (r.k, r.n);
        let a_resolved = t.rows[2].cells[0].as_ref().expect("a on resolved");
        assert_eq!(kn(&a_resolved.abstention), (2, 3));
        assert_eq!(a_resolved.resolution.as_ref().map(kn), Some((2, 3)));
        assert!(t.rows[2].cells[1].is_none(), "b has no such row");
        let a_novel = t.rows[0].cells[0].as_ref().expect("a on novel");
        assert_eq!(kn(&a_novel.abstention), (1, 3));
        assert_eq!(a_novel.resolution.as_ref().map(kn), Some((1, 3)));
        // b's evaluation ran no tests: abstention only.
        let b_cell = t.rows[3].cells[1].as_ref().expect("b");
        assert_eq!(kn(&b_cell.abstention), (1, 1));
        assert!(b_cell.resolution.is_none());
        // Partial control: a's Novel resolution over x and z (its Partial instances).
        assert_eq!(t.partial_control.len(), 1);
        assert_eq!(t.partial_control[0].cells[0].as_ref().map(kn), Some((1, 2)));
        assert_eq!(t.partial_control[0].cells[1], None);
        // ± is the normal approximation: 2/3 at n = 3 → 1.96·sqrt(2/9/3) = 0.5334.
        assert!((a_resolved.abstention.normal_half_width - 0.533_43).abs() < 1e-4);
        let md = t.to_markdown();
        assert!(
            md.contains(
                "| resolved | best | issue | 66.7 ± 53.3 (2/3) | 66.7 ± 53.3 (2/3) | – | – |"
            ),
            "{md}"
        );
        // A repair study's Novel-only results make no FixedBench table.
        let repair = system(
            "r",
            vec![row("r", "x", "novel", "best", "plain", true, false)],
            false,
        );
        assert!(FixedBenchTable::compute(&[repair]).is_none());
    }
}
