//! The significance tests and correlations of the multi-hunk papers (rank-sum with
//! Cliff's δ, Pearson and Spearman with their p-values), each computed as SciPy computes it.

use super::average_ranks;

// The agent study's analyses (Nashid et al.): it compares how far fixed and unfixed bugs'
// patches diverge with a rank-sum test and Cliff's δ, and correlates metrics with Pearson's
// r and Spearman's ρ. Reviewers check such numbers against SciPy, so each function below
// computes what the named `scipy.stats` call returns, well within the nine significant
// digits tests/it/stats_scipy.rs holds it to.

/// Largest number of continued-fraction terms tried before giving up: the beta fraction
/// needs O(√max(a, b)) terms, a few hundred for any sample this project sees, and the
/// erfc one a few dozen.
const MAX_FRACTION_TERMS: usize = 20_000;
/// Stop once a term changes the fraction's value by less than this (a few ulps).
const FRACTION_TOLERANCE: f64 = 4.0 * f64::EPSILON;
/// Stand-in for a zero denominator in Lentz's method, which would otherwise divide by it.
const LENTZ_TINY: f64 = 1e-300;

/// `v`, pushed away from zero when it is too close for Lentz's method to divide by.
fn lentz_guard(v: f64) -> f64 {
    if v.abs() < LENTZ_TINY {
        LENTZ_TINY
    } else {
        v
    }
}

/// ln Γ(x) for x > 0, for the incomplete beta function's normalizing constant.
///
/// Lanczos's series with g = 7 and nine coefficients (the set Godfrey published) is good to
/// about fifteen digits for x ≥ ½; below that the reflection Γ(x)Γ(1−x) = π / sin(πx)
/// brings the argument up. std's `ln_gamma` is not stable yet.
fn ln_gamma(x: f64) -> f64 {
    use std::f64::consts::PI;
    const G: f64 = 7.0;
    const COEF: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return (PI / (PI * x).sin()).abs().ln() - ln_gamma(1.0 - x);
    }
    let z = x - 1.0;
    let series = COEF
        .iter()
        .enumerate()
        .skip(1)
        .fold(COEF[0], |acc, (i, c)| acc + c / (z + i as f64));
    let t = z + G + 0.5;
    0.5 * (2.0 * PI).ln() + (z + 0.5) * t.ln() - t + series.ln()
}

/// ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a + b).
fn ln_beta(a: f64, b: f64) -> f64 {
    ln_gamma(a) + ln_gamma(b) - ln_gamma(a + b)
}

/// The continued fraction 1 / (1 + d₁ / (1 + d₂ / (1 + …))) of the incomplete beta
/// function (Numerical Recipes §6.4; Cephes `incbcf`), evaluated by Lentz's method; `None`
/// if it has not settled after [`MAX_FRACTION_TERMS`] terms.
///
/// With m = ⌊k/2⌋ the coefficients are d₂ₘ₊₁ = −(a+m)(a+b+m)x / ((a+2m)(a+2m+1)) and
/// d₂ₘ = m(b−m)x / ((a+2m−1)(a+2m)).
fn beta_fraction(a: f64, b: f64, x: f64) -> Option<f64> {
    // Lentz: the value so far is the product of the ratios c·d of successive convergents.
    let (mut value, mut c, mut d) = (1.0f64, 1.0f64, 0.0f64);
    for k in 1..=MAX_FRACTION_TERMS {
        let m = (k / 2) as f64;
        let coeff = if k % 2 == 1 {
            -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0))
        } else {
            m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m))
        };
        d = 1.0 / lentz_guard(1.0 + coeff * d);
        c = lentz_guard(1.0 + coeff / c);
        let ratio = c * d;
        value *= ratio;
        if (ratio - 1.0).abs() < FRACTION_TOLERANCE {
            return Some(1.0 / value);
        }
    }
    None
}

/// I_x(a, b) with `y` = 1 − x passed in, so that a caller who knows 1 − x exactly (the t
/// tail does) loses no digits to the subtraction.
fn beta_inc(a: f64, b: f64, x: f64, y: f64) -> Option<f64> {
    if x <= 0.0 {
        return Some(0.0);
    }
    if y <= 0.0 {
        return Some(1.0);
    }
    // x^a·y^b / B(a, b), in logs: each factor alone can under- or overflow.
    let front = (a * x.ln() + b * y.ln() - ln_beta(a, b)).exp();
    // The fraction converges quickly only left of about the distribution's mean; right of
    // it, I_x(a, b) = 1 − I_y(b, a) puts the argument back on the quick side.
    let value = if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x)? / a
    } else {
        1.0 - front * beta_fraction(b, a, y)? / b
    };
    Some(value.clamp(0.0, 1.0))
}

/// The regularized incomplete beta function I_x(a, b), which the t distribution's tail
/// (and so the correlations' p-values) comes from; `None` unless a, b > 0 and 0 ≤ x ≤ 1.
pub fn incomplete_beta(a: f64, b: f64, x: f64) -> Option<f64> {
    let valid = a > 0.0 && b > 0.0 && a.is_finite() && b.is_finite() && (0.0..=1.0).contains(&x);
    if !valid {
        return None;
    }
    beta_inc(a, b, x, 1.0 - x)
}

/// Two-sided P(|T| ≥ |t|) for Student's t with `df` degrees of freedom, the correlations'
/// test: I_{df/(df+t²)}(df/2, ½). `None` for df ≤ 0 or t NaN.
fn student_t_two_sided(t: f64, df: f64) -> Option<f64> {
    if df.is_nan() || df <= 0.0 || t.is_nan() {
        return None;
    }
    let t2 = t * t;
    if t2.is_infinite() {
        return Some(0.0);
    }
    beta_inc(df / 2.0, 0.5, df / (df + t2), t2 / (df + t2))
}

/// The two-sided p of a correlation coefficient `r` over `n` pairs by the t test with n − 2
/// degrees of freedom, t = r·√((n−2) / (1 − r²)), as SciPy tests both Pearson's r and
/// Spearman's ρ. `None` for n < 3 (no degree of freedom), r NaN or outside [−1, 1] by more
/// than rounding; |r| = 1 gives 0.
fn correlation_p(r: f64, n: usize) -> Option<f64> {
    if n < 3 || r.is_nan() || r.abs() > 1.0 + 1e-12 {
        return None;
    }
    let r = r.clamp(-1.0, 1.0);
    let df = (n - 2) as f64;
    // (1 + r)(1 − r) rather than 1 − r², which cancels near |r| = 1; at |r| = 1 t is ±∞.
    let t = r * (df / ((1.0 + r) * (1.0 - r))).sqrt();
    student_t_two_sided(t, df)
}

/// Whether every value equals the first (a correlation with it is undefined).
fn constant(v: &[f64]) -> bool {
    v.iter().all(|&a| a == v[0])
}

/// Pearson's r with its two-sided t-test p (`scipy.stats.pearsonr`), for the agent study's
/// correlations between per-bug metrics.
///
/// `None` for unequal lengths, fewer than two pairs, a constant side (zero variance) or a
/// non-finite value. With two pairs r is ±1 and, as in SciPy, p is 1: no degree of
/// freedom is left to test it with.
pub fn pearson(x: &[f64], y: &[f64]) -> Option<(f64, f64)> {
    if x.len() != y.len() || x.len() < 2 || constant(x) || constant(y) {
        return None;
    }
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        let (da, db) = (a - mx, b - my);
        sxy += da * db;
        sxx += da * da;
        syy += db * db;
    }
    // Square roots taken apart so that sxx·syy cannot overflow; rounding can push |r| a
    // hair past 1, which SciPy clips too.
    let r = sxy / (sxx.sqrt() * syy.sqrt());
    if !r.is_finite() {
        return None;
    }
    let r = r.clamp(-1.0, 1.0);
    if x.len() == 2 {
        return Some((r.round(), 1.0));
    }
    Some((r, correlation_p(r, x.len())?))
}

/// The two-sided p of Spearman's ρ over `n` pairs by the t test with n − 2 degrees of
/// freedom (`scipy.stats.spearmanr`), for the agent study's rank correlations.
///
/// [`spearman_p`]'s normal approximation stays for the FixedBench report. `None` for
/// n < 3 (SciPy gives NaN there) or ρ NaN or outside [−1, 1]; |ρ| = 1 gives 0.
pub fn spearman_p_t(rho: f64, n: usize) -> Option<f64> {
    correlation_p(rho, n)
}

/// erfc(x) for x ≥ 0 to within a few ulps, for [`normal_sf`].
///
/// erfc(x) = Q(½, x²), the regularized upper incomplete gamma function: below x² = 1.5 from
/// the series of erf (all terms positive, so nothing cancels), above it from Legendre's
/// continued fraction for Γ(½, x²) in its even form, which converges fast there.
fn erfc(x: f64) -> f64 {
    use std::f64::consts::PI;
    let u = x * x;
    if u < 1.5 {
        // erf(x) = (2/√π)·e^(−x²)·Σₙ 2ⁿx^(2n+1) / (1·3·…·(2n+1)).
        let (mut term, mut sum) = (x, x);
        let mut k = 1.0;
        while term > sum * f64::EPSILON {
            k += 2.0;
            term *= 2.0 * u / k;
            sum += term;
        }
        return 1.0 - 2.0 / PI.sqrt() * (-u).exp() * sum;
    }
    if u > 746.0 {
        // Below the smallest subnormal.
        return 0.0;
    }
    // Γ(½, u) = e^(−u)·√u / (u + ½ − 1·½ / (u + 2½ − 2·1½ / (u + 4½ − …))), by Lentz.
    let mut b = u + 0.5;
    let mut c = 1.0 / LENTZ_TINY;
    let mut d = 1.0 / b;
    let mut value = d;
    for i in 1..=MAX_FRACTION_TERMS {
        let i = i as f64;
        let a = -i * (i - 0.5);
        b += 2.0;
        d = 1.0 / lentz_guard(a * d + b);
        c = lentz_guard(b + a / c);
        let ratio = c * d;
        value *= ratio;
        if (ratio - 1.0).abs() < FRACTION_TOLERANCE {
            break;
        }
    }
    (-u).exp() * x / PI.sqrt() * value
}

/// P(Z > z) for a standard normal Z to near full precision, for the rank-sum test's p,
/// which must match SciPy's; [`normal_upper_tail`] (seven digits) stays where it is used
/// so that the FixedBench report's numbers do not move.
fn normal_sf(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    if z >= 0.0 {
        erfc(x) / 2.0
    } else {
        1.0 - erfc(x) / 2.0
    }
}

/// The Wilcoxon rank-sum test of two independent samples, in the two forms SciPy offers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankSum {
    /// Mann–Whitney U of `x`: the (x, y) pairs with x > y, a tie counting ½
    /// (`mannwhitneyu(x, y).statistic`); U of `y` is n·m − U.
    pub u: f64,
    /// Two-sided p of U by the normal approximation with the tie correction of the
    /// variance and a continuity correction of ½ (`mannwhitneyu(x, y,
    /// alternative='two-sided', method='asymptotic', use_continuity=True).pvalue`).
    pub u_p: f64,
    /// z of `x`'s rank sum, with neither tie nor continuity correction
    /// (`ranksums(x, y).statistic`): positive when `x` tends to be the larger.
    pub z: f64,
    /// Two-sided p of `z` (`ranksums(x, y).pvalue`).
    pub z_p: f64,
}

/// The Wilcoxon rank-sum / Mann–Whitney U test, for the agent study's comparison of the
/// divergence of fixed and unfixed bugs.
///
/// `None` when a sample is empty, a value is NaN, or every value is tied (the
/// tie-corrected variance is zero, so U's z is undefined; SciPy returns p = 1 there).
pub fn rank_sum(x: &[f64], y: &[f64]) -> Option<RankSum> {
    if x.is_empty() || y.is_empty() || x.iter().chain(y).any(|v| v.is_nan()) {
        return None;
    }
    let mut all: Vec<f64> = x.iter().chain(y).copied().collect();
    let r1: f64 = average_ranks(&all)[..x.len()].iter().sum();
    let (n1, n2) = (x.len() as f64, y.len() as f64);
    let n = n1 + n2;
    let u1 = r1 - n1 * (n1 + 1.0) / 2.0;
    // Σ(t³ − t) over the groups of t tied values.
    all.sort_by(f64::total_cmp);
    let ties: f64 = all
        .chunk_by(|a, b| a == b)
        .map(|group| {
            let t = group.len() as f64;
            t * t * t - t
        })
        .sum();
    let var = n1 * n2 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
    if var <= 0.0 {
        return None;
    }
    // Two-sided as SciPy does it: the larger U, less ½, doubled upper tail, capped at 1.
    let u = u1.max(n1 * n2 - u1);
    let u_z = (u - n1 * n2 / 2.0 - 0.5) / var.sqrt();
    let u_p = (2.0 * normal_sf(u_z)).min(1.0);
    let z = (r1 - n1 * (n + 1.0) / 2.0) / (n1 * n2 * (n + 1.0) / 12.0).sqrt();
    let z_p = (2.0 * normal_sf(z.abs())).min(1.0);
    Some(RankSum { u: u1, u_p, z, z_p })
}

/// Cliff's δ = (#(x > y) − #(x < y)) / (n·m) over all pairs, the effect size the agent
/// study reports beside the rank-sum test; `None` when a sample is empty or a value is NaN.
pub fn cliffs_delta(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.is_empty() || y.is_empty() || x.iter().chain(y).any(|v| v.is_nan()) {
        return None;
    }
    // Counted exactly in O((n + m) log m): for each x, the y below it and the y above it.
    let mut ys = y.to_vec();
    ys.sort_by(f64::total_cmp);
    let (mut above, mut below) = (0usize, 0usize);
    for &v in x {
        above += ys.partition_point(|&w| w < v);
        below += ys.len() - ys.partition_point(|&w| w <= v);
    }
    Some((above as f64 - below as f64) / (x.len() as f64 * y.len() as f64))
}

/// The usual words for |δ|, so the study's tables can name an effect's size; "undefined"
/// for NaN.
pub fn cliffs_magnitude(d: f64) -> &'static str {
    // Romano, Kromrey, Coraggio and Skowronek (2006), "Appropriate statistics for ordinal
    // level data: Should we really be using t-test and Cohen's d for evaluating group
    // differences on the NSSE and other surveys?" (annual meeting of the Florida
    // Association of Institutional Research): their thresholds 0.147, 0.33 and 0.474.
    let d = d.abs();
    if d.is_nan() {
        "undefined"
    } else if d < 0.147 {
        "negligible"
    } else if d < 0.33 {
        "small"
    } else if d < 0.474 {
        "medium"
    } else {
        "large"
    }
}

#[cfg(test)]
mod study_tests {
    use super::*;
    use crate::stats::{normal_upper_tail, spearman, spearman_p, Z95};
    use std::f64::consts::PI;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn ln_gamma_at_known_points() {
        assert!(close(ln_gamma(1.0), 0.0, 1e-15));
        assert!(close(ln_gamma(2.0), 0.0, 1e-15));
        // Γ(½) = √π.
        assert!(close(ln_gamma(0.5), 0.5 * PI.ln(), 1e-15));
        // Γ(10) = 9! = 362880; Γ(0.1) = 9.513507698668732 (reflection branch).
        assert!(close(ln_gamma(10.0), 362_880f64.ln(), 1e-13));
        assert!(close(ln_gamma(0.1), 9.513_507_698_668_732f64.ln(), 1e-14));
        // ln 100! − ln 100 = ln 99!, summed directly.
        let ln99: f64 = (2..100).map(|k| (k as f64).ln()).sum();
        assert!(close(ln_gamma(100.0), ln99, 1e-11));
    }

    #[test]
    fn incomplete_beta_at_closed_forms() {
        for x in [0.0, 1e-6, 0.1, 0.3, 0.5, 0.77, 0.999, 1.0] {
            let at = |a, b| incomplete_beta(a, b, x).expect("defined");
            // I_x(1, 1) = x; I_x(3, 1) = x³; I_x(1, 4) = 1 − (1−x)⁴; I_x(2, 2) = 3x² − 2x³.
            assert!(close(at(1.0, 1.0), x, 1e-15), "{x}");
            assert!(close(at(3.0, 1.0), x.powi(3), 1e-15), "{x}");
            assert!(close(at(1.0, 4.0), 1.0 - (1.0 - x).powi(4), 1e-15), "{x}");
            assert!(
                close(at(2.0, 2.0), 3.0 * x * x - 2.0 * x.powi(3), 1e-15),
                "{x}"
            );
            // The arcsine law: I_x(½, ½) = (2/π)·asin(√x).
            assert!(
                close(at(0.5, 0.5), 2.0 / PI * x.sqrt().asin(), 1e-14),
                "{x}"
            );
        }
        // Symmetric shapes put half the mass below ½, however large.
        for a in [0.3, 2.5, 40.0, 1000.0] {
            let half = incomplete_beta(a, a, 0.5).expect("defined");
            assert!(close(half, 0.5, 1e-13), "{a}: {half}");
        }
        assert_eq!(incomplete_beta(0.0, 1.0, 0.5), None);
        assert_eq!(incomplete_beta(1.0, -1.0, 0.5), None);
        assert_eq!(incomplete_beta(1.0, 1.0, 1.5), None);
        assert_eq!(incomplete_beta(1.0, 1.0, f64::NAN), None);
    }

    #[test]
    fn the_t_tail_matches_cauchy_and_two_df() {
        for t in [0.0, 0.3, 1.0, 4.0, -12.0, 1e4] {
            // df = 1 is Cauchy: p = 1 − (2/π)·atan|t|; df = 2: p = 1 − |t| / √(2 + t²).
            let p1 = student_t_two_sided(t, 1.0).expect("p");
            assert!(close(p1, 1.0 - 2.0 / PI * t.abs().atan(), 1e-14), "{t}");
            let p2 = student_t_two_sided(t, 2.0).expect("p");
            assert!(
                close(p2, 1.0 - t.abs() / (2.0 + t * t).sqrt(), 1e-14),
                "{t}"
            );
        }
        assert_eq!(student_t_two_sided(f64::INFINITY, 5.0), Some(0.0));
        assert_eq!(student_t_two_sided(1.0, 0.0), None);
        assert_eq!(student_t_two_sided(f64::NAN, 3.0), None);
    }

    #[test]
    fn the_precise_normal_tail() {
        assert_eq!(normal_sf(0.0), 0.5);
        assert!(close(normal_sf(Z95), 0.025, 1e-15));
        assert!(close(normal_sf(-Z95), 0.975, 1e-15));
        // erfc on both sides of the series/fraction switch at x² = 1.5 (x ≈ 1.22), to a
        // few ulps: 1 − erf costs a digit as erfc shrinks towards the switch.
        for (x, want) in [
            (0.5, 0.479_500_122_186_953_5),
            (1.0, 0.157_299_207_050_285_13),
            (1.2, 0.089_686_021_770_364_62),
            (1.3, 0.065_992_055_059_347_58),
            (3.0, 2.209_049_699_858_544e-5),
            (10.0, 2.088_487_583_762_545e-45),
        ] {
            assert!(close(erfc(x) / want, 1.0, 4e-15), "{x}: {}", erfc(x));
        }
        assert_eq!(erfc(30.0), 0.0);
        // Within the old approximation's stated error everywhere.
        for z in [-3.0, -0.4, 0.2, 1.0, 2.5, 5.0] {
            assert!(close(normal_sf(z), normal_upper_tail(z), 1.5e-7), "{z}");
        }
    }

    #[test]
    fn pearson_on_hand_checkable_vectors() {
        // Deviations ±1 against ±3 and ∓2: every sum is exact, so r is exactly ±1 and t
        // infinite.
        let x = [0.0, 0.0, 2.0, 2.0];
        assert_eq!(pearson(&x, &[1.0, 1.0, 7.0, 7.0]), Some((1.0, 0.0)));
        assert_eq!(pearson(&x, &[5.0, 5.0, 1.0, 1.0]), Some((-1.0, 0.0)));
        // Elsewhere a perfect line can round to r = 1 − 2⁻⁵², whose p is tiny, not 0.
        let x = [1.0, 2.0, 3.0, 4.0, 5.0];
        let (r, p) = pearson(&x, &[0.5, 0.0, -0.5, -1.0, -1.5]).expect("defined");
        assert!(close(r, -1.0, 1e-15) && p < 1e-20, "{r} {p}");
        // r = ½ over 3 pairs: t = 1/√3 with one df, so p = 1 − (2/π)·(π/6) = ⅔.
        let (r, p) = pearson(&[1.0, 2.0, 3.0], &[1.0, 3.0, 2.0]).expect("defined");
        assert!(
            close(r, 0.5, 1e-15) && close(p, 2.0 / 3.0, 1e-14),
            "{r} {p}"
        );
        // Uncorrelated: r = 0, p = 1.
        let (r, p) = pearson(&[1.0, 2.0, 3.0, 4.0], &[1.0, -1.0, -1.0, 1.0]).expect("defined");
        assert!(close(r, 0.0, 1e-15) && close(p, 1.0, 1e-15), "{r} {p}");
        // Two pairs: ±1 and p = 1, as SciPy.
        assert_eq!(pearson(&[1.0, 2.0], &[5.0, 3.0]), Some((-1.0, 1.0)));
        assert_eq!(pearson(&[1.0], &[1.0]), None);
        assert_eq!(pearson(&[1.0, 2.0], &[1.0, 2.0, 3.0]), None);
        assert_eq!(
            pearson(&[0.1, 0.1, 0.1], &[1.0, 2.0, 3.0]),
            None,
            "constant"
        );
        assert_eq!(pearson(&[1.0, f64::NAN, 3.0], &[1.0, 2.0, 3.0]), None);
        assert_eq!(pearson(&[1.0, f64::INFINITY, 3.0], &[1.0, 2.0, 3.0]), None);
    }

    #[test]
    fn spearman_t_p_values() {
        // ρ = −½ over 3 pairs (SciPy's spearmanr([1, 2, 3], [3, 1, 2]) gives p = ⅔).
        let rho = spearman(&[1.0, 2.0, 3.0], &[3.0, 1.0, 2.0]).expect("rho");
        assert!(close(spearman_p_t(rho, 3).expect("p"), 2.0 / 3.0, 1e-14));
        assert_eq!(spearman_p_t(1.0, 10), Some(0.0));
        assert_eq!(spearman_p_t(-1.0, 10), Some(0.0));
        assert_eq!(spearman_p_t(0.0, 10), Some(1.0));
        // Rounding past ±1 is ±1; farther is not a correlation.
        assert_eq!(spearman_p_t(1.0 + 1e-15, 10), Some(0.0));
        assert_eq!(spearman_p_t(1.1, 10), None);
        assert_eq!(spearman_p_t(f64::NAN, 10), None);
        assert_eq!(spearman_p_t(0.5, 2), None, "no degree of freedom");
        // The t test and the normal approximation agree roughly on a large sample.
        let (t, z) = (spearman_p_t(0.2, 400).expect("p"), spearman_p(0.2, 400));
        assert!((t - z).abs() < 1e-4, "{t} {z}");
    }

    #[test]
    fn rank_sum_by_hand() {
        // x = {1, 2} below y = {3, 4}: ranks 1, 2, so R = 3 and U = 3 − 3 = 0. No ties:
        // var(U) = 2·2·5/12; U's z = (max(U, 4 − U) − 2 − ½)/√var = 1.5/√(5/3); the rank
        // sum's z = (3 − 2·5/2)/√(5/3).
        let r = rank_sum(&[1.0, 2.0], &[3.0, 4.0]).expect("defined");
        let sd = (5.0f64 / 3.0).sqrt();
        assert_eq!(r.u, 0.0);
        assert!(close(r.z, -2.0 / sd, 1e-15), "{r:?}");
        assert!(
            close(r.u_p, 2.0 * normal_upper_tail(1.5 / sd), 3e-7),
            "{r:?}"
        );
        assert!(
            close(r.z_p, 2.0 * normal_upper_tail(2.0 / sd), 3e-7),
            "{r:?}"
        );
        // Mirrored samples mirror U and z, and keep the p-values.
        let m = rank_sum(&[3.0, 4.0], &[1.0, 2.0]).expect("defined");
        assert_eq!((m.u, m.z, m.u_p, m.z_p), (4.0, -r.z, r.u_p, r.z_p));
        // Identical samples: U = n·m/2, z = 0, both p = 1.
        let same = [3.0, 1.0, 4.0, 1.0, 5.0];
        let r = rank_sum(&same, &same).expect("defined");
        assert_eq!((r.u, r.z, r.u_p, r.z_p), (12.5, 0.0, 1.0, 1.0));
        // Ties shrink U's variance: Σ(t³ − t) = 6 for one pair of 2s among 4 values, so
        // var = 2·2/12·(5 − 6/12) = 1.5 (x = {1, 2}, y = {2, 3}: R = 1 + 2.5, U = 0.5).
        let r = rank_sum(&[1.0, 2.0], &[2.0, 3.0]).expect("defined");
        assert_eq!(r.u, 0.5);
        let u_z = (3.5 - 2.0 - 0.5) / 1.5f64.sqrt();
        assert!(close(r.u_p, 2.0 * normal_upper_tail(u_z), 3e-7), "{r:?}");
        assert_eq!(rank_sum(&[2.0, 2.0], &[2.0]), None, "all tied");
        assert_eq!(rank_sum(&[], &[1.0, 2.0]), None);
        assert_eq!(rank_sum(&[1.0, f64::NAN], &[1.0, 2.0]), None);
    }

    #[test]
    fn cliffs_delta_and_its_words() {
        assert_eq!(cliffs_delta(&[1.0, 2.0], &[3.0, 4.0, 5.0]), Some(-1.0));
        assert_eq!(cliffs_delta(&[9.0, 7.0, 8.0], &[1.0]), Some(1.0));
        assert_eq!(cliffs_delta(&[1.0, 2.0, 2.0], &[1.0, 2.0, 2.0]), Some(0.0));
        // x = {3, 4, 5}, y = {1, 2, 3, 4}: 3 beats 2 and loses to 1, 4 beats 3, 5 beats 4:
        // (9 − 1)/12 = ⅔.
        let d = cliffs_delta(&[3.0, 4.0, 5.0], &[1.0, 2.0, 3.0, 4.0]).expect("defined");
        assert!(close(d, 2.0 / 3.0, 1e-15), "{d}");
        // δ = 2U/(n·m) − 1, U counting ties as halves.
        let u = rank_sum(&[3.0, 4.0, 5.0], &[1.0, 2.0, 3.0, 4.0])
            .expect("defined")
            .u;
        assert!(close(d, 2.0 * u / 12.0 - 1.0, 1e-15), "{u}");
        assert_eq!(cliffs_delta(&[], &[1.0]), None);
        assert_eq!(cliffs_delta(&[1.0], &[f64::NAN]), None);

        assert_eq!(cliffs_magnitude(0.0), "negligible");
        assert_eq!(cliffs_magnitude(-0.146), "negligible");
        assert_eq!(cliffs_magnitude(0.147), "small");
        assert_eq!(cliffs_magnitude(-0.329), "small");
        assert_eq!(cliffs_magnitude(0.33), "medium");
        assert_eq!(cliffs_magnitude(0.473), "medium");
        assert_eq!(cliffs_magnitude(-0.474), "large");
        assert_eq!(cliffs_magnitude(1.0), "large");
        assert_eq!(cliffs_magnitude(f64::NAN), "undefined");
    }
}
