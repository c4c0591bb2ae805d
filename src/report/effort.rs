//! FixedBench's thinking effort against abstention: Spearman's rank correlation between
//! the effort each system was run with (given by the user, `hunkgen report --effort
//! SYSTEM=VALUE`: a reasoning budget, or 1/2/3 for low/medium/high) and whether each of
//! its predictions abstained, per task (state), over every prediction of the systems
//! with an effort.

use crate::model::PredictionResult;
use serde::Serialize;
use std::collections::BTreeMap;

/// ρ between effort and abstention on one task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EffortCorrelation {
    /// The task (state): `novel`, `partial`, `resolved`.
    pub task: String,
    /// The systems counted, with their effort.
    pub systems: Vec<(String, f64)>,
    /// Predictions counted.
    pub n: usize,
    /// Spearman's ρ (ties averaged); `None` when effort or abstention does not vary.
    pub rho: Option<f64>,
    /// Two-sided p-value (normal approximation, z = ρ√(n − 1)).
    pub p: Option<f64>,
}

/// One task's predictions: efforts, abstentions (0/1) and the systems with their effort.
type TaskPairs = (Vec<f64>, Vec<f64>, BTreeMap<String, f64>);

/// Why `--effort` cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum EffortError {
    /// Not `SYSTEM=NUMBER`.
    #[error("--effort {0}: expected SYSTEM=NUMBER (e.g. model-high=3)")]
    Syntax(String),
    /// No system of the results has that name.
    #[error("--effort {name}: no system of the --results is named so (systems: {known})")]
    Unknown {
        /// The name given.
        name: String,
        /// The systems there are.
        known: String,
    },
}

/// Parse `SYSTEM=NUMBER` arguments.
pub fn parse(args: &[String]) -> Result<BTreeMap<String, f64>, EffortError> {
    args.iter()
        .map(|a| {
            let (name, v) = a
                .rsplit_once('=')
                .ok_or_else(|| EffortError::Syntax(a.clone()))?;
            let v: f64 = v
                .trim()
                .parse()
                .map_err(|_| EffortError::Syntax(a.clone()))?;
            Ok((name.trim().to_string(), v))
        })
        .collect()
}

/// The correlation per task, over the predictions of the systems `efforts` names (a
/// system's name is its `model_name_or_path`); empty when fewer than two systems have
/// an effort.
pub fn compute(
    rows: &[&PredictionResult],
    efforts: &BTreeMap<String, f64>,
) -> Result<Vec<EffortCorrelation>, EffortError> {
    let names: Vec<&str> = rows.iter().map(|r| r.model_name_or_path.as_str()).collect();
    for name in efforts.keys() {
        if !names.contains(&name.as_str()) {
            let mut known: Vec<&str> = names.clone();
            known.sort_unstable();
            known.dedup();
            return Err(EffortError::Unknown {
                name: name.clone(),
                known: known.join(", "),
            });
        }
    }
    if efforts.len() < 2 {
        return Ok(Vec::new());
    }
    // task → (effort, abstained) per prediction, and the systems seen.
    let mut by_task: BTreeMap<String, TaskPairs> = BTreeMap::new();
    for r in rows {
        let Some(&e) = efforts.get(&r.model_name_or_path) else {
            continue;
        };
        if r.problems.iter().any(|p| p.starts_with("duplicate")) {
            continue;
        }
        let slot = by_task.entry(r.state.clone()).or_default();
        slot.0.push(e);
        slot.1.push(f64::from(u8::from(r.abstained)));
        slot.2.insert(r.model_name_or_path.clone(), e);
    }
    let order = |t: &str| {
        crate::model::StateKind::ALL
            .iter()
            .position(|k| k.name() == t)
            .unwrap_or(usize::MAX)
    };
    let mut out: Vec<EffortCorrelation> = by_task
        .into_iter()
        .map(|(task, (x, y, systems))| {
            let rho = crate::stats::spearman(&x, &y);
            EffortCorrelation {
                task,
                systems: systems.into_iter().collect(),
                n: x.len(),
                p: rho.map(|r| crate::stats::spearman_p(r, x.len())),
                rho,
            }
        })
        .collect();
    out.sort_by_key(|c| (order(&c.task), c.task.clone()));
    Ok(out)
}

/// The correlations as markdown (empty when there are none).
pub fn markdown(rows: &[EffortCorrelation]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut t = crate::table::Table::new(["task", "systems (effort)", "predictions", "ρ", "p"])
        .right([2, 3, 4]);
    for c in rows {
        t.push(row(c));
    }
    format!(
        "\n### Thinking effort and abstention (Spearman)\n\n{}",
        t.to_markdown()
    )
}

/// One row's cells.
pub fn row(c: &EffortCorrelation) -> [String; 5] {
    [
        c.task.clone(),
        c.systems
            .iter()
            .map(|(s, e)| format!("{s} ({e})"))
            .collect::<Vec<_>>()
            .join(", "),
        c.n.to_string(),
        c.rho.map_or("–".into(), |r| format!("{r:.3}")),
        c.p.map_or("–".into(), |p| format!("{p:.3}")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn system(name: &str, state: &str, abstained: &[bool]) -> Vec<PredictionResult> {
        abstained
            .iter()
            .enumerate()
            .map(|(i, a)| {
                serde_json::from_value(serde_json::json!({
                    "schema_version": 1, "instance_id": format!("i{i}"),
                    "model_name_or_path": name, "state": state, "scenario": "best",
                    "applied": "empty", "resolved": false, "abstained": a,
                    "abstention_correct": a, "localized": false, "hunks_touched": [],
                    "hunks_total": 1
                }))
                .expect("row")
            })
            .collect()
    }

    #[test]
    fn effort_and_abstention_correlate_by_hand() {
        // Resolved: low effort abstains 1 of 2, high 2 of 2. Pairs (1,1) (1,0) (3,1) (3,1):
        // ranks x 1.5 1.5 3.5 3.5, y 3 1 3 3; Σdxdy = 2, Σdx² = 4, Σdy² = 3 → ρ = 2/√12.
        let (low, high) = (
            system("low", "resolved", &[true, false]),
            system("high", "resolved", &[true, true]),
        );
        let systems: Vec<&PredictionResult> = low.iter().chain(&high).collect();
        let efforts = parse(&["low=1".into(), "high=3".into()]).expect("parse");
        let c = compute(&systems, &efforts).expect("compute");
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].n, 4);
        let rho = c[0].rho.expect("rho");
        assert!((rho - 2.0 / 12f64.sqrt()).abs() < 1e-12, "{rho}");
        assert!(markdown(&c).contains("| resolved |"), "{}", markdown(&c));
        // A name no result has, and a malformed argument, are refused in one line.
        let bad = parse(&["nobody=2".into(), "low=1".into()]).expect("parse");
        let e = compute(&systems, &bad).expect_err("unknown").to_string();
        assert!(e.contains("nobody") && e.contains("high, low"), "{e}");
        assert!(parse(&["low".into()]).is_err());
        assert!(parse(&["low=high".into()]).is_err());
        // One system with an effort is no correlation.
        let one = parse(&["low=1".into()]).expect("parse");
        assert!(compute(&systems, &one).expect("compute").is_empty());
    }
}
