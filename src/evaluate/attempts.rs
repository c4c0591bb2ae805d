//! Repeated attempts (`hunkgen run --attempts K`): the unbiased pass@k estimator, the
//! resolved-within-k curve and the per-attempt mean ± sd, per state × scenario ×
//! instruction.

use crate::model::{AttemptMetrics, PredictionResult};
use std::collections::BTreeMap;

/// The unbiased pass@k estimator for one instance with `n` attempts of which `c`
/// resolved: 1 − C(n − c, k) / C(n, k), computed as a product so large n stay exact
/// enough; `None` when k > n.
pub fn pass_at_k(n: usize, c: usize, k: usize) -> Option<f64> {
    if k == 0 || k > n {
        return None;
    }
    if n - c.min(n) < k {
        return Some(1.0);
    }
    // C(n−c, k)/C(n, k) = Π_{i = n−c+1}^{n} (1 − k/i).
    let ratio: f64 = (n - c + 1..=n).map(|i| 1.0 - k as f64 / i as f64).product();
    Some(1.0 - ratio)
}

/// The attempt metrics of every group whose rows carry an attempt number; empty when
/// none does.
pub fn metrics(rows: &[&PredictionResult]) -> Vec<AttemptMetrics> {
    type Group = (String, String, String);
    // group → instance → attempt → resolved
    let mut groups: BTreeMap<Group, BTreeMap<&str, BTreeMap<u32, bool>>> = BTreeMap::new();
    for r in rows {
        let Some(a) = r.attempt else { continue };
        groups
            .entry((
                r.state.clone(),
                r.scenario.clone(),
                r.instruction
                    .clone()
                    .unwrap_or_else(|| "unspecified".into()),
            ))
            .or_default()
            .entry(r.instance_id.as_str())
            .or_default()
            .insert(a, r.resolved);
    }
    groups
        .into_iter()
        .map(|((state, scenario, instruction), by_instance)| {
            let most = by_instance.values().map(BTreeMap::len).max().unwrap_or(0);
            let max_attempt = by_instance
                .values()
                .filter_map(|a| a.keys().next_back().copied())
                .max()
                .unwrap_or(0);
            let mean_of = |v: &[f64]| {
                if v.is_empty() {
                    0.0
                } else {
                    v.iter().sum::<f64>() / v.len() as f64
                }
            };
            let pass_at_k = (1..=most)
                .map(|k| {
                    let v: Vec<f64> = by_instance
                        .values()
                        .filter_map(|a| pass_at_k(a.len(), a.values().filter(|r| **r).count(), k))
                        .collect();
                    mean_of(&v)
                })
                .collect();
            let resolved_within = (1..=max_attempt)
                .map(|k| {
                    let hit = by_instance
                        .values()
                        .filter(|a| a.range(..=k).any(|(_, r)| *r))
                        .count();
                    hit as f64 / by_instance.len() as f64
                })
                .collect();
            let per_attempt: Vec<f64> = (1..=max_attempt)
                .filter_map(|k| {
                    let had: Vec<bool> = by_instance
                        .values()
                        .filter_map(|a| a.get(&k).copied())
                        .collect();
                    (!had.is_empty())
                        .then(|| had.iter().filter(|r| **r).count() as f64 / had.len() as f64)
                })
                .collect();
            let mean = mean_of(&per_attempt);
            let sd = if per_attempt.len() < 2 {
                0.0
            } else {
                let var = per_attempt.iter().map(|x| (x - mean).powi(2)).sum::<f64>()
                    / (per_attempt.len() - 1) as f64;
                var.sqrt()
            };
            AttemptMetrics {
                state,
                scenario,
                instruction,
                instances: by_instance.len(),
                attempts: most,
                pass_at_k,
                resolved_within,
                per_attempt,
                mean,
                sd,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_at_k_by_hand() {
        // n = 3, c = 1: pass@1 = 1/3, pass@2 = 1 − C(2,2)/C(3,2) = 2/3, pass@3 = 1.
        let close = |a: Option<f64>, b: f64| (a.expect("defined") - b).abs() < 1e-12;
        assert!(close(pass_at_k(3, 1, 1), 1.0 / 3.0));
        assert!(close(pass_at_k(3, 1, 2), 2.0 / 3.0));
        assert!(close(pass_at_k(3, 1, 3), 1.0));
        // n = 10, c = 3, k = 5: 1 − C(7,5)/C(10,5) = 1 − 21/252.
        assert!(close(pass_at_k(10, 3, 5), 1.0 - 21.0 / 252.0));
        assert!(close(pass_at_k(4, 0, 2), 0.0));
        assert!(close(pass_at_k(4, 4, 1), 1.0));
        assert_eq!(pass_at_k(2, 1, 3), None);
    }
}
