//! src/stats/'s statistics for the agent study against SciPy, the reference
//! implementation the field's papers compute them with: Pearson's r and Spearman's ρ with
//! their t-test p-values, the Mann–Whitney U and rank-sum tests, Cliff's δ (from SciPy's
//! U) and the regularized incomplete beta function, on fixed samples that include ties,
//! unequal sizes, three and two pairs, a negative correlation, identical samples and
//! p-values far out in the tails; and the Wilson interval and exact McNemar test the
//! reports already used, against SciPy's binomial test. They must agree to 1e-9 relative
//! (1e-12 absolute near 0).
//! `make deps` installs the pinned SciPy into target/venv-scipy; without it the tests fail.

use crate::common::manifest;
use hunkgen::stats::{cliffs_delta, incomplete_beta, pearson, rank_sum, spearman, spearman_p_t};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// Reads the cases as JSON on stdin and prints SciPy's answers in the same order; NaN
/// (SciPy's word for undefined) becomes null, and the correlations are left out for
/// samples of unequal length, where SciPy refuses them.
const SCIPY_SCRIPT: &str = r#"
import json, sys, warnings
import numpy as np
from scipy import special, stats

warnings.simplefilter("ignore")

def num(v):
    v = float(v)
    return None if np.isnan(v) else v

def pair(x, y):
    out = {}
    if len(x) == len(y):
        r = stats.pearsonr(x, y)
        out["pearson"] = [num(r.statistic), num(r.pvalue)]
        s = stats.spearmanr(x, y)
        out["spearman"] = [num(s.statistic), num(s.pvalue)]
    u = stats.mannwhitneyu(x, y, alternative="two-sided", method="asymptotic",
                           use_continuity=True)
    out["mannwhitneyu"] = [num(u.statistic), num(u.pvalue)]
    w = stats.ranksums(x, y)
    out["ranksums"] = [num(w.statistic), num(w.pvalue)]
    # Cliff's delta is 2U/(n*m) - 1 with SciPy's U (ties count one half); the definition
    # itself, by numpy, must say the same.
    nm = len(x) * len(y)
    delta = 2.0 * float(u.statistic) / nm - 1.0
    direct = float(np.sign(np.subtract.outer(x, y)).sum()) / nm
    assert abs(delta - direct) < 1e-12, (delta, direct)
    out["cliffs_delta"] = delta
    return out

inp = json.load(sys.stdin)
json.dump({
    "pairs": [pair(c["x"], c["y"]) for c in inp["pairs"]],
    "betainc": [num(special.betainc(a, b, x)) for a, b, x in inp["betainc"]],
}, sys.stdout, allow_nan=False)
"#;

/// A named pair of samples: paired when the lengths agree, else two independent samples.
struct Case {
    name: &'static str,
    x: Vec<f64>,
    y: Vec<f64>,
}

fn case(name: &'static str, x: &[f64], y: &[f64]) -> Case {
    Case {
        name,
        x: x.to_vec(),
        y: y.to_vec(),
    }
}

fn cases() -> Vec<Case> {
    // Forty pairs on a line with a little deterministic wobble: r ≈ 0.993, p ≈ 1e-36.
    // Then thirty values wholly below twenty-five others: the rank-sum p's are ≈ 1e-10.
    let line: Vec<f64> = (0..40).map(|i| f64::from(i) / 40.0).collect();
    let wobble: Vec<f64> = (0..40)
        .map(|i| f64::from(i) / 40.0 + 0.05 * (7.0 * f64::from(i)).sin())
        .collect();
    let low: Vec<f64> = (0..30).map(|i| f64::from(i) * 0.01).collect();
    let high: Vec<f64> = (0..25).map(|i| 1.0 + f64::from(i % 7) * 0.1).collect();
    vec![
        case(
            "ties within and across samples",
            &[0.0, 0.1, 0.1, 0.25, 0.3, 0.3, 0.3, 0.6],
            &[0.1, 0.05, 0.3, 0.2, 0.6, 0.3, 0.75, 0.6],
        ),
        case(
            "unequal sizes",
            &[0.12, 0.5, 0.33, 0.9, 0.41, 0.07],
            &[
                0.2, 0.61, 0.75, 0.3, 0.88, 0.95, 0.44, 0.52, 0.67, 0.81, 0.29,
            ],
        ),
        case("three pairs", &[0.2, 0.9, 0.4], &[1.5, 2.0, 2.5]),
        case(
            "negative correlation",
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0],
            &[9.1, 8.7, 8.9, 7.2, 6.0, 6.3, 4.4, 3.9, 2.2, 2.5],
        ),
        case(
            "identical samples",
            &[0.42, 0.17, 0.9, 0.17, 0.33, 0.61, 0.05],
            &[0.42, 0.17, 0.9, 0.17, 0.33, 0.61, 0.05],
        ),
        case(
            "disjoint, unequal sizes",
            &[0.7, 0.8, 0.95, 0.9],
            &[0.1, 0.2, 0.15, 0.3, 0.05, 0.4, 0.35],
        ),
        case(
            "integer divergences, many ties",
            &[0.0, 0.0, 0.0, 1.0, 1.0, 2.0, 0.0, 0.0, 1.0, 3.0],
            &[0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 0.0, 4.0, 2.0, 3.0],
        ),
        case("forty pairs, far tail", &line, &wobble),
        case("disjoint, far tail", &low, &high),
        case("two pairs", &[1.0, 2.0], &[3.0, 1.0]),
    ]
}

/// (a, b, x) points for I_x(a, b): the t tails' shapes (df/2, ½), small and large
/// parameters, both sides of the mean, and the ends.
const BETA_POINTS: [[f64; 3]; 14] = [
    [0.5, 0.5, 0.2],
    [0.5, 0.5, 0.97],
    [1.5, 0.5, 0.3],
    [4.0, 0.5, 0.999],
    [19.0, 0.5, 0.05],
    [19.0, 0.5, 0.9],
    [250.0, 0.5, 0.8],
    [2.0, 3.0, 0.4],
    [0.1, 10.0, 0.01],
    [10.0, 0.1, 0.99],
    [50.0, 60.0, 0.45],
    [50.0, 60.0, 0.6],
    [3.0, 7.0, 0.0],
    [3.0, 7.0, 1.0],
];

/// The interpreter of target/venv-scipy; the tests fail, never skip, without it.
pub(crate) fn scipy_python() -> PathBuf {
    let p = manifest().join("target/venv-scipy/bin/python");
    assert!(
        p.exists(),
        "{} is missing: run `make deps` (it installs the pinned SciPy there)",
        p.display()
    );
    p
}

/// SciPy's answers for [`cases`] and [`BETA_POINTS`], computed once for all the tests.
fn scipy() -> &'static Value {
    static ANSWERS: OnceLock<Value> = OnceLock::new();
    ANSWERS.get_or_init(|| {
        let input = json!({
            "pairs": cases()
                .iter()
                .map(|c| json!({"x": c.x, "y": c.y}))
                .collect::<Vec<_>>(),
            "betainc": BETA_POINTS,
        });
        let mut child = Command::new(scipy_python())
            .args(["-c", SCIPY_SCRIPT])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("python runs");
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().expect("stdin");
            stdin
                .write_all(input.to_string().as_bytes())
                .expect("write");
        }
        let out = child.wait_with_output().expect("python output");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("json")
    })
}

/// Whether ours agrees with SciPy's to 1e-9 relative, or 1e-12 absolute near 0.
fn agree(ours: f64, theirs: f64) -> bool {
    let d = (ours - theirs).abs();
    d <= 1e-12 || d <= 1e-9 * ours.abs().max(theirs.abs())
}

/// A p-value must agree to 1e-9 relative however small it is: the tail is where a
/// careless t or normal tail goes wrong, and 1e-12 absolute would hide it.
fn agree_p(ours: f64, theirs: f64) -> bool {
    (ours - theirs).abs() <= 1e-9 * ours.abs().max(theirs.abs())
}

/// `ours` against SciPy's `theirs` (null where SciPy says undefined), labelled for the
/// failure message.
fn check(label: &str, ours: Option<f64>, theirs: &Value, p_value: bool) {
    match (ours, theirs.as_f64()) {
        (None, None) => {}
        (Some(a), Some(b)) => {
            let ok = if p_value { agree_p(a, b) } else { agree(a, b) };
            assert!(ok, "{label}: ours {a:e}, SciPy {b:e}");
        }
        (a, _) => panic!("{label}: ours {a:?}, SciPy {theirs}"),
    }
}

#[test]
fn correlations_agree_with_scipy() {
    let answers = &scipy()["pairs"];
    let mut paired = 0;
    for (c, want) in cases().iter().zip(answers.as_array().expect("pairs")) {
        if c.x.len() != c.y.len() {
            assert_eq!(pearson(&c.x, &c.y), None, "{}", c.name);
            assert_eq!(spearman(&c.x, &c.y), None, "{}", c.name);
            continue;
        }
        paired += 1;
        let r = pearson(&c.x, &c.y);
        check(
            &format!("{}: pearson r", c.name),
            r.map(|r| r.0),
            &want["pearson"][0],
            false,
        );
        check(
            &format!("{}: pearson p", c.name),
            r.map(|r| r.1),
            &want["pearson"][1],
            true,
        );
        let rho = spearman(&c.x, &c.y);
        check(
            &format!("{}: spearman rho", c.name),
            rho,
            &want["spearman"][0],
            false,
        );
        check(
            &format!("{}: spearman p", c.name),
            rho.and_then(|rho| spearman_p_t(rho, c.x.len())),
            &want["spearman"][1],
            true,
        );
    }
    assert_eq!(paired, 7);
}

#[test]
fn rank_sum_and_cliffs_delta_agree_with_scipy() {
    let answers = &scipy()["pairs"];
    for (c, want) in cases().iter().zip(answers.as_array().expect("pairs")) {
        let r = rank_sum(&c.x, &c.y);
        let field = |f: fn(&hunkgen::stats::RankSum) -> f64| r.as_ref().map(f);
        let name = c.name;
        check(
            &format!("{name}: U"),
            field(|r| r.u),
            &want["mannwhitneyu"][0],
            false,
        );
        check(
            &format!("{name}: U's p"),
            field(|r| r.u_p),
            &want["mannwhitneyu"][1],
            true,
        );
        check(
            &format!("{name}: z"),
            field(|r| r.z),
            &want["ranksums"][0],
            false,
        );
        check(
            &format!("{name}: z's p"),
            field(|r| r.z_p),
            &want["ranksums"][1],
            true,
        );
        check(
            &format!("{name}: Cliff's delta"),
            cliffs_delta(&c.x, &c.y),
            &want["cliffs_delta"],
            false,
        );
    }
}

#[test]
fn incomplete_beta_agrees_with_scipy() {
    let answers = scipy()["betainc"].as_array().expect("betainc");
    for ([a, b, x], want) in BETA_POINTS.iter().zip(answers) {
        check(
            &format!("I_{x}({a}, {b})"),
            incomplete_beta(*a, *b, *x),
            want,
            true,
        );
    }
}

/// SciPy's Wilson interval (`binomtest(k, n).proportion_ci(method="wilson")`) and exact
/// McNemar p (`binomtest(b, b + c, 0.5)`, two-sided) for each (k, n) given.
const SCIPY_BINOMIAL: &str = r#"
import json, sys
from scipy import stats
out = []
for k, n in json.load(sys.stdin):
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    out.append([ci.low, ci.high, stats.binomtest(k, n, 0.5).pvalue])
json.dump(out, sys.stdout)
"#;

#[test]
fn wilson_intervals_and_exact_mcnemar_equal_scipys_binomial_test() {
    // (k, n): the extremes k = 0 and k = n, small and large n, a lopsided split.
    let points: [(usize, usize); 9] = [
        (0, 1),
        (1, 1),
        (0, 10),
        (10, 10),
        (3, 10),
        (7, 40),
        (1, 372),
        (186, 372),
        (2_500, 6_000),
    ];
    let mut child = Command::new(scipy_python())
        .args(["-c", SCIPY_BINOMIAL])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python runs");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(json!(points).to_string().as_bytes())
            .expect("write");
    }
    let out = child.wait_with_output().expect("python output");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Vec<[f64; 3]> = serde_json::from_slice(&out.stdout).expect("json");
    for ((k, n), [low, high, p]) in points.iter().zip(theirs) {
        let ours = hunkgen::stats::wilson(*k, *n);
        assert!(
            agree(ours.low, low) && agree(ours.high, high),
            "wilson({k}, {n}): ours [{}, {}], SciPy [{low}, {high}]",
            ours.low,
            ours.high
        );
        // McNemar's discordant counts b = k, c = n − k: the binomial test of k in n at ½.
        let mc = hunkgen::stats::mcnemar_exact(*k, n - k);
        assert!(
            agree_p(mc, p),
            "mcnemar({k}, {}): ours {mc}, SciPy {p}",
            n - k
        );
    }
}
