//! Shared statistics, below both `evaluate` and `report`: Wilson score intervals,
//! McNemar's exact test, Spearman's ρ, means, percentiles and the min/median/mean/max summary;
//! for the agent study's analyses, Pearson's r and Spearman's ρ with SciPy's t-test
//! p-values, the Wilcoxon rank-sum (Mann–Whitney U) test and Cliff's δ, on top of the
//! regularized incomplete beta function and a full-precision normal tail.

mod study;
pub use study::*;

use crate::model::Rate;

/// z for a two-sided 95% interval (the 0.975 quantile of the standard normal).
pub const Z95: f64 = 1.959963984540054;

/// `k / n` with its 95% Wilson score interval, clamped to [0, 1].
///
/// `n = 0` carries no information: rate 0 and the whole interval [0, 1]. The bounds are
/// exactly 0 when `k = 0` and exactly 1 when `k = n`. `k > n` is clamped to `n`.
pub fn wilson(k: usize, n: usize) -> Rate {
    let k = k.min(n);
    if n == 0 {
        return Rate {
            k,
            n,
            rate: 0.0,
            low: 0.0,
            high: 1.0,
            normal_half_width: 0.0,
        };
    }
    let nf = n as f64;
    let p = k as f64 / nf;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / nf;
    let center = (p + z2 / (2.0 * nf)) / denom;
    let half = Z95 / denom * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt();
    let low = if k == 0 {
        0.0
    } else {
        (center - half).max(0.0)
    };
    let high = if k == n {
        1.0
    } else {
        (center + half).min(1.0)
    };
    Rate {
        k,
        n,
        rate: p,
        low,
        high,
        normal_half_width: Z95 * (p * (1.0 - p) / nf).sqrt(),
    }
}

/// Two-sided exact McNemar p-value for discordant counts `b` and `c`:
/// `min(1, 2 · Σ_{i ≤ min(b, c)} C(b + c, i) / 2^(b + c))`; `b = c = 0` gives 1.
///
/// The terms are summed in log space (each `ln C(n, i)` built from the previous one),
/// so `b + c` of many thousands neither overflows nor underflows.
pub fn mcnemar_exact(b: usize, c: usize) -> f64 {
    let n = b + c;
    let m = b.min(c);
    if n == 0 {
        return 1.0;
    }
    let nf = n as f64;
    let ln2n = nf * std::f64::consts::LN_2;
    // ln(C(n, i) / 2^n) for i = 0..=m; increasing in i because m ≤ n/2.
    let mut logs = Vec::with_capacity(m + 1);
    let mut ln_c = 0.0f64;
    logs.push(-ln2n);
    for i in 1..=m {
        ln_c += ((n - i + 1) as f64).ln() - (i as f64).ln();
        logs.push(ln_c - ln2n);
    }
    let max = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = logs.iter().map(|l| (l - max).exp()).sum();
    let tail = (max + sum.ln()).exp();
    (2.0 * tail).min(1.0)
}

/// The arithmetic mean, or `None` for an empty sample (nothing to average).
pub fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Linear-interpolation percentile (numpy's default), as the paper's p75; 0 for an
/// empty sample.
pub fn percentile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let pos = q * (v.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

/// Min, median, mean, max of a sample, as HUNK4J's Table II prints them (zeros when
/// empty). The mean sums the sorted values.
pub fn summary(values: &[f64]) -> [f64; 4] {
    if values.is_empty() {
        return [0.0; 4];
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    let mean = v.iter().sum::<f64>() / n as f64;
    [v[0], median, mean, v[n - 1]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_interval_is_the_fixedbench_plus_minus() {
        // FixedBench reports 65.0 ± 6.6 at n = 200: 1.96·sqrt(0.65·0.35/200) = 0.0661.
        let r = wilson(130, 200);
        assert!((r.normal_half_width - 0.066105).abs() < 1e-5, "{r:?}");
        assert_eq!(wilson(0, 10).normal_half_width, 0.0);
        assert_eq!(wilson(10, 10).normal_half_width, 0.0);
        assert_eq!(wilson(0, 0).normal_half_width, 0.0);
        // Wilson's bounds are unchanged beside it.
        assert!(r.low < 0.65 && r.high > 0.65);
    }

    #[test]
    fn mean_percentile_and_summary() {
        assert_eq!(mean(&[]), None);
        assert_eq!(mean(&[1.0, 2.0, 6.0]), Some(3.0));
        assert_eq!(percentile(&[], 0.75), 0.0);
        // numpy.percentile([1, 2, 3, 4], 75) = 3.25.
        assert_eq!(percentile(&[4.0, 1.0, 3.0, 2.0], 0.75), 3.25);
        assert_eq!(summary(&[]), [0.0; 4]);
        assert_eq!(summary(&[3.0, 1.0, 2.0, 10.0]), [1.0, 2.5, 4.0, 10.0]);
    }

    fn round6(x: f64) -> f64 {
        (x * 1e6).round() / 1e6
    }

    #[test]
    fn wilson_reference_values() {
        // (k, n, low, high) to 6 decimals, from the issue.
        let cases = [
            (45, 200, 0.172624, 0.287741),
            (0, 50, 0.0, 0.071348),
            (130, 200, 0.581635, 0.712712),
        ];
        for (k, n, low, high) in cases {
            let r = wilson(k, n);
            assert_eq!((r.k, r.n), (k, n));
            assert_eq!(round6(r.low), low, "{k}/{n} low");
            assert_eq!(round6(r.high), high, "{k}/{n} high");
            assert!((r.rate - k as f64 / n as f64).abs() < 1e-15);
        }
    }

    #[test]
    fn wilson_edges() {
        let r = wilson(0, 0);
        assert_eq!((r.rate, r.low, r.high), (0.0, 0.0, 1.0));
        let r = wilson(50, 50);
        assert_eq!(r.high, 1.0);
        // Mirror of 0/50.
        assert_eq!(round6(r.low), round6(1.0 - 0.071348));
        assert_eq!(wilson(7, 5).k, 5, "k is clamped to n");
    }

    #[test]
    fn mcnemar_reference_values() {
        // b=12, c=3: 2·(1 + 15 + 105 + 455)/2^15 = 1152/32768 = 0.03515625.
        assert_eq!(round6(mcnemar_exact(12, 3)), 0.035156);
        assert!((mcnemar_exact(12, 3) - 0.03515625).abs() < 1e-12);
        assert_eq!(mcnemar_exact(3, 12), mcnemar_exact(12, 3), "symmetric");
        // b=7, c=1: 2·(1 + 8)/2^8 = 0.0703125 (the 0.070312, truncated).
        assert!((mcnemar_exact(7, 1) - 0.0703125).abs() < 1e-12);
        assert_eq!(mcnemar_exact(20, 20), 1.0);
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        // b=5, c=0: 2/32 = 0.0625 (exactly representable).
        assert!((mcnemar_exact(5, 0) - 0.0625).abs() < 1e-12);
    }

    #[test]
    fn mcnemar_large_counts_stay_finite() {
        // 2^3000 overflows f64; the log-space sum does not.
        let p = mcnemar_exact(1500, 1500);
        assert_eq!(p, 1.0);
        let p = mcnemar_exact(1600, 1400);
        assert!(p > 0.0 && p < 1e-3, "{p}");
        // Normal approximation: z = (1600−1400)/√3000 ≈ 3.651 → p ≈ 2.6e-4.
        assert!((p - 2.6e-4).abs() < 0.5e-4, "{p}");
        assert_eq!(mcnemar_exact(3000, 0), 0.0, "underflows to 0, not NaN");
    }
}

/// Ranks of `v` (1-based), ties given their average rank, as Spearman's ρ needs.
fn average_ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut ranks = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            ranks[k] = avg;
        }
        i = j + 1;
    }
    ranks
}

/// Spearman's rank correlation ρ of paired samples: Pearson's correlation of their
/// average ranks (ties handled). `None` for fewer than two pairs, unequal lengths, or a
/// side without variation (every value tied).
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 {
        return None;
    }
    let (rx, ry) = (average_ranks(x), average_ranks(y));
    let n = x.len() as f64;
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in rx.iter().zip(&ry) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// Two-sided p-value of ρ against no correlation by the large-sample normal
/// approximation, z = ρ·√(n − 1).
pub fn spearman_p(rho: f64, n: usize) -> f64 {
    if n < 2 {
        return 1.0;
    }
    let z = rho.abs() * ((n - 1) as f64).sqrt();
    if z == 0.0 {
        return 1.0;
    }
    (2.0 * normal_upper_tail(z)).min(1.0)
}

/// P(Z > z) for a standard normal Z, by the complementary error function (Abramowitz and
/// Stegun 7.1.26, absolute error below 1.5e-7).
pub fn normal_upper_tail(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erfc = poly * (-x * x).exp();
    if z >= 0.0 {
        erfc / 2.0
    } else {
        1.0 - erfc / 2.0
    }
}

#[cfg(test)]
mod spearman_tests {
    use super::*;

    #[test]
    fn spearman_matches_hand_computed_values() {
        // Monotone: ρ = 1 whatever the spacing.
        assert_eq!(
            spearman(&[1.0, 2.0, 3.0, 4.0], &[1.0, 10.0, 100.0, 1000.0]),
            Some(1.0)
        );
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), Some(-1.0));
        // No ties: 1 − 6Σd²/(n(n²−1)); ranks y = 2,1,4,3,5, Σd² = 4 → 1 − 24/120 = 0.8.
        let r = spearman(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 1.0, 4.0, 3.0, 5.0]).expect("rho");
        assert!((r - 0.8).abs() < 1e-12, "{r}");
        // Ties take average ranks: x = 1,1,2,2 → 1.5,1.5,3.5,3.5; y = 0,1,0,1 →
        // 1.5,3.5,1.5,3.5: uncorrelated.
        let r = spearman(&[1.0, 1.0, 2.0, 2.0], &[0.0, 1.0, 0.0, 1.0]).expect("rho");
        assert!(r.abs() < 1e-12, "{r}");
        assert_eq!(spearman(&[1.0, 1.0], &[0.0, 1.0]), None);
        assert_eq!(spearman(&[1.0], &[1.0]), None);
    }

    #[test]
    fn the_normal_tail_and_p_values_are_right() {
        assert!((normal_upper_tail(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_upper_tail(Z95) - 0.025).abs() < 1e-6);
        assert!((normal_upper_tail(-Z95) - 0.975).abs() < 1e-6);
        // ρ = 0.5 with n = 17: z = 2, p = 0.0455.
        assert!((spearman_p(0.5, 17) - 0.045_500_3).abs() < 1e-5);
        assert!((spearman_p(0.0, 10) - 1.0).abs() < 1e-6);
    }
}
