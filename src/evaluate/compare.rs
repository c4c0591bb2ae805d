//! Paired comparison of two evaluation summaries of the same dataset: resolution and
//! abstention rates on the outcomes both have, with McNemar's exact test.
//!
//! Outcomes are paired by their `outcomes` key (`<instance_id>/<state>`); keys only one
//! summary has are counted and left out. For each metric, McNemar's `b` counts pairs
//! where A has it and B does not, `c` the reverse.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::model::{EvaluationSummary, Paired, Rate};

use crate::stats::{mcnemar_exact, wilson};
use crate::table::Table;

/// Why two summaries cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// A summary file cannot be read.
    #[error("{}: cannot read the summary: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A summary file is not a `summary.json`.
    #[error("{}:{line}:{column}: not an evaluation summary: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What serde found (names the field).
        message: String,
    },
    /// The summaries score different datasets.
    #[error(
        "the summaries score different datasets (A: `{a}` sha256 {a_sha}, B: `{b}` sha256 {b_sha}); paired tests need the same instances"
    )]
    DifferentDatasets {
        /// A's dataset name.
        a: String,
        /// A's `dataset_sha256`.
        a_sha: String,
        /// B's dataset name.
        b: String,
        /// B's `dataset_sha256`.
        b_sha: String,
    },
    /// No outcome key is in both summaries.
    #[error("the summaries share no outcome (A has {a}, B has {b}); nothing to pair")]
    NothingPaired {
        /// A's outcome count.
        a: usize,
        /// B's outcome count.
        b: usize,
    },
}

/// One metric compared on the paired outcomes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PairedMetric {
    /// A's rate on the paired outcomes.
    pub a: Rate,
    /// B's rate on the paired outcomes.
    pub b: Rate,
    /// McNemar's b: pairs where A has the outcome and B does not.
    pub a_only: usize,
    /// McNemar's c: pairs where B has it and A does not.
    pub b_only: usize,
    /// Two-sided exact McNemar p-value.
    pub p_value: f64,
}

/// The comparison of two summaries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Dataset name (A's).
    pub dataset: String,
    /// The common `dataset_sha256`.
    pub dataset_sha256: String,
    /// A's system.
    pub a_model: String,
    /// B's system.
    pub b_model: String,
    /// Outcome keys in both summaries.
    pub paired: usize,
    /// Keys only A has (left out).
    pub only_in_a: usize,
    /// Keys only B has (left out).
    pub only_in_b: usize,
    /// Resolution (FULL).
    pub resolution: PairedMetric,
    /// Abstention.
    pub abstention: PairedMetric,
}

/// Read a `summary.json`, naming file, line and column when it is not one.
pub fn read_summary(path: &Path) -> Result<EvaluationSummary, CompareError> {
    let text = std::fs::read_to_string(path).map_err(|source| CompareError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|e| CompareError::Parse {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: e.to_string().split(" at line ").next().unwrap_or("").into(),
    })
}

/// Compare A with B on the outcomes both have; refuses different datasets and
/// summaries without a common outcome.
pub fn compare(a: &EvaluationSummary, b: &EvaluationSummary) -> Result<Comparison, CompareError> {
    if a.dataset_sha256 != b.dataset_sha256 {
        return Err(CompareError::DifferentDatasets {
            a: a.dataset.clone(),
            a_sha: a.dataset_sha256.clone(),
            b: b.dataset.clone(),
            b_sha: b.dataset_sha256.clone(),
        });
    }
    let pairs: Vec<(&Paired, &Paired)> = a
        .outcomes
        .iter()
        .filter_map(|(k, pa)| b.outcomes.get(k).map(|pb| (pa, pb)))
        .collect();
    if pairs.is_empty() {
        return Err(CompareError::NothingPaired {
            a: a.outcomes.len(),
            b: b.outcomes.len(),
        });
    }
    let metric = |f: fn(&Paired) -> bool| {
        let n = pairs.len();
        let ka = pairs.iter().filter(|(x, _)| f(x)).count();
        let kb = pairs.iter().filter(|(_, y)| f(y)).count();
        let a_only = pairs.iter().filter(|(x, y)| f(x) && !f(y)).count();
        let b_only = pairs.iter().filter(|(x, y)| !f(x) && f(y)).count();
        PairedMetric {
            a: wilson(ka, n),
            b: wilson(kb, n),
            a_only,
            b_only,
            p_value: mcnemar_exact(a_only, b_only),
        }
    };
    Ok(Comparison {
        dataset: a.dataset.clone(),
        dataset_sha256: a.dataset_sha256.clone(),
        a_model: a.model_name_or_path.clone(),
        b_model: b.model_name_or_path.clone(),
        paired: pairs.len(),
        only_in_a: a.outcomes.len() - pairs.len(),
        only_in_b: b.outcomes.len() - pairs.len(),
        resolution: metric(|p| p.resolved),
        abstention: metric(|p| p.abstained),
    })
}

impl Comparison {
    /// A markdown table: one row per metric with both rates (95% Wilson CI), b, c, p.
    pub fn to_table(&self) -> String {
        let short: String = self.dataset_sha256.chars().take(12).collect();
        let mut out = format!(
            "A: {}\nB: {}\ndataset {} (sha256 {short}…): {} paired outcomes ({} only in A, {} only in B, left out)\n\n",
            self.a_model, self.b_model, self.dataset, self.paired, self.only_in_a, self.only_in_b
        );
        let mut table = Table::new([
            "metric",
            "A",
            "B",
            "A not B (b)",
            "B not A (c)",
            "McNemar p (exact)",
        ])
        .right(1..6);
        for (name, m) in [
            ("resolution", &self.resolution),
            ("abstention", &self.abstention),
        ] {
            table.push([
                name.to_string(),
                rate(&m.a),
                rate(&m.b),
                m.a_only.to_string(),
                m.b_only.to_string(),
                p_value(m.p_value),
            ]);
        }
        out.push_str(&table.to_markdown());
        out
    }
}

/// `45/200 = 22.5% [17.3%, 28.8%]`.
fn rate(r: &Rate) -> String {
    format!(
        "{}/{} = {:.1}% [{:.1}%, {:.1}%]",
        r.k,
        r.n,
        100.0 * r.rate,
        100.0 * r.low,
        100.0 * r.high
    )
}

/// Four decimals, or scientific notation below 0.0001.
fn p_value(p: f64) -> String {
    if p > 0.0 && p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Rates;
    use std::collections::BTreeMap;

    fn summary(sha: &str, outcomes: &[(&str, bool, bool)]) -> EvaluationSummary {
        EvaluationSummary {
            schema_version: 1,
            dataset: "demo".into(),
            dataset_sha256: sha.into(),
            model_name_or_path: format!("model-{sha}"),
            predictions: outcomes.len(),
            infra: 0,
            problems: 0,
            resolution_unavailable: None,
            attempts: Vec::new(),
            overall: Rates::default(),
            by_class: BTreeMap::new(),
            by_divergence_quartile: BTreeMap::new(),
            by_state: BTreeMap::new(),
            by_project: BTreeMap::new(),
            outcomes: outcomes
                .iter()
                .map(|(k, resolved, abstained)| {
                    (
                        k.to_string(),
                        Paired {
                            resolved: *resolved,
                            abstained: *abstained,
                        },
                    )
                })
                .collect(),
            trajectories: None,
            study: None,
            exclusions: Vec::new(),
            gold_misses: Vec::new(),
        }
    }

    #[test]
    fn pairs_on_common_keys() {
        let a = summary(
            "s",
            &[
                ("x/novel", true, false),
                ("y/novel", true, false),
                ("z/novel", false, true),
                ("only-a/novel", true, false),
            ],
        );
        let mut b = summary(
            "s",
            &[
                ("x/novel", false, false),
                ("y/novel", true, true),
                ("z/novel", false, false),
            ],
        );
        b.model_name_or_path = "other".into();
        let c = compare(&a, &b).expect("same dataset");
        assert_eq!((c.paired, c.only_in_a, c.only_in_b), (3, 1, 0));
        // Resolution: A {x, y}, B {y}; b = 1 (x), c = 0 → p = 2·(1/2) = 1.
        assert_eq!((c.resolution.a.k, c.resolution.b.k), (2, 1));
        assert_eq!((c.resolution.a_only, c.resolution.b_only), (1, 0));
        assert_eq!(c.resolution.p_value, 1.0);
        // Abstention: A {z}, B {y}; b = 1, c = 1.
        assert_eq!((c.abstention.a_only, c.abstention.b_only), (1, 1));
        assert_eq!(c.abstention.a.n, 3);
        let t = c.to_table();
        assert!(t.contains("| resolution | 2/3 = 66.7% ["), "{t}");
        assert!(t.contains("| 1 | 0 | 1.0000 |"), "{t}");
    }

    #[test]
    fn refuses_other_datasets_and_nothing_in_common() {
        let a = summary("aaa", &[("x/novel", true, false)]);
        let b = summary("bbb", &[("x/novel", true, false)]);
        let e = compare(&a, &b).expect_err("different");
        assert!(e.to_string().contains("sha256 aaa") && e.to_string().contains("sha256 bbb"));
        let b = summary("aaa", &[("y/novel", true, false)]);
        let e = compare(&a, &b).expect_err("disjoint");
        assert!(e.to_string().contains("share no outcome"), "{e}");
    }
}
