//! Sentence BLEU-4 with Chen & Cherry smoothing method 4, bit-for-bit NLTK's code path.
//!
//! D_lex = 1 − BLEU(reference = hunk i, candidate = hunk j). This mirrors
//! `nltk.translate.bleu_score.sentence_bleu([ref], cand,
//! smoothing_function=SmoothingFunction().method4)` with uniform weights and
//! `auto_reweigh=False`: unnormalised modified precisions, 0 when no unigram matches,
//! method 4's `1 / (2^k · 5 / ln(len(cand)))` for empty orders (nothing when the
//! candidate has one token), `math.fsum` of the weighted logs and the brevity penalty.

use std::collections::HashMap;

/// NLTK's `SmoothingFunction(k=5)` default.
const K: f64 = 5.0;
/// Uniform BLEU-4 weight.
const WEIGHT: f64 = 0.25;

/// Clipped n-gram matches and the candidate's n-gram count (at least 1), as NLTK's
/// `modified_precision` returns them (an unnormalised fraction).
fn modified_precision(reference: &[u32], candidate: &[u32], n: usize) -> (u64, u64) {
    if candidate.len() < n {
        return (0, 1);
    }
    // An n-gram of ids (n ≤ 4) packs into a u128; sorting and merging the two lists
    // counts clipped matches without hashing.
    let pack = |g: &[u32]| g.iter().fold(0u128, |acc, &t| (acc << 32) | u128::from(t));
    let mut cand: Vec<u128> = candidate.windows(n).map(pack).collect();
    let mut refs: Vec<u128> = if reference.len() >= n {
        reference.windows(n).map(pack).collect()
    } else {
        Vec::new()
    };
    cand.sort_unstable();
    refs.sort_unstable();
    let (mut i, mut j, mut matched) = (0, 0, 0u64);
    while i < cand.len() {
        let g = cand[i];
        let ci = cand[i..].iter().take_while(|&&x| x == g).count();
        while j < refs.len() && refs[j] < g {
            j += 1;
        }
        let rj = refs[j..].iter().take_while(|&&x| x == g).count();
        matched += ci.min(rj) as u64;
        i += ci;
        j += rj;
    }
    let total = (candidate.len() + 1 - n) as u64;
    (matched, total.max(1))
}

/// Map tokens to small integer ids (shared across calls with the same interner), so
/// many pairs of one instance compare ids instead of strings.
#[derive(Debug, Default)]
pub struct Interner {
    ids: HashMap<String, u32>,
}

impl Interner {
    /// Ids of `tokens`, allocating new ids for unseen tokens.
    pub fn ids(&mut self, tokens: &[String]) -> Vec<u32> {
        tokens
            .iter()
            .map(|t| {
                let next = self.ids.len() as u32;
                *self.ids.entry(t.clone()).or_insert(next)
            })
            .collect()
    }
}

fn fsum(values: &[f64]) -> f64 {
    let mut partials: Vec<f64> = Vec::new();
    for &v in values {
        let mut x = v;
        let mut i = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        partials.truncate(i);
        partials.push(x);
    }
    let mut n = partials.len();
    if n == 0 {
        return 0.0;
    }
    n -= 1;
    let mut hi = partials[n];
    let mut lo = 0.0;
    while n > 0 {
        let x = hi;
        n -= 1;
        let y = partials[n];
        hi = x + y;
        let yr = hi - x;
        lo = y - yr;
        if lo != 0.0 {
            break;
        }
    }
    if n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0)) {
        let y = lo * 2.0;
        let x = hi + y;
        let yr = x - hi;
        if y == yr {
            hi = x;
        }
    }
    hi
}

/// NLTK `sentence_bleu([reference], candidate, smoothing_function=method4)`; in [0, 1].
pub fn sentence_bleu4(reference: &[String], candidate: &[String]) -> f64 {
    let mut interner = Interner::default();
    let r = interner.ids(reference);
    let c = interner.ids(candidate);
    sentence_bleu4_ids(&r, &c)
}

/// [`sentence_bleu4`] on interned token ids (see [`Interner`]); identical results.
pub fn sentence_bleu4_ids(reference: &[u32], candidate: &[u32]) -> f64 {
    let precisions: Vec<(u64, u64)> = (1..=4)
        .map(|n| modified_precision(reference, candidate, n))
        .collect();
    if precisions[0].0 == 0 {
        return 0.0;
    }
    let hyp_len = candidate.len();
    let ref_len = reference.len();
    let mut incvnt = 0i32;
    let mut logs = Vec::with_capacity(4);
    for &(num, den) in &precisions {
        let p = if num != 0 {
            num as f64 / den as f64
        } else if hyp_len > 1 {
            incvnt += 1;
            let numerator = 1.0 / (2f64.powi(incvnt) * K / (hyp_len as f64).ln());
            numerator / den as f64
        } else {
            0.0
        };
        if p > 0.0 {
            logs.push(WEIGHT * p.ln());
        }
    }
    let bp = if hyp_len > ref_len {
        1.0
    } else {
        (1.0 - ref_len as f64 / hyp_len as f64).exp()
    };
    bp * fsum(&logs).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn identical_is_one() {
        let a = toks("if ( x == null ) return y ;");
        assert!((sentence_bleu4(&a, &a) - 1.0).abs() < 1e-15);
    }

    #[test]
    fn disjoint_and_empty_are_zero() {
        assert_eq!(sentence_bleu4(&toks("a b c d"), &toks("e f g h")), 0.0);
        assert_eq!(sentence_bleu4(&toks("a b c d"), &[]), 0.0);
        assert_eq!(sentence_bleu4(&[], &toks("a b")), 0.0);
        assert_eq!(sentence_bleu4(&[], &[]), 0.0);
    }

    #[test]
    fn single_token_candidate_skips_higher_orders() {
        // p1 = 1/1, higher orders have no n-grams and are skipped (hyp_len = 1);
        // bp = exp(1 - 3/1).
        let v = sentence_bleu4(&toks("a b c"), &toks("a"));
        assert!((v - (-2.0f64).exp()).abs() < 1e-15, "{v}");
    }

    #[test]
    fn method4_smooths_missing_orders() {
        // cand "a b x y": p1 = 2/4, p2 = 1/3, p3 = 0/2, p4 = 0/1, ref len 4 = hyp len.
        let r = toks("a b c d");
        let c = toks("a b x y");
        let l = 4f64.ln();
        let p3 = (1.0 / (2.0 * 5.0 / l)) / 2.0;
        let p4 = (1.0 / (4.0 * 5.0 / l)) / 1.0;
        let want = (0.25 * ((0.5f64).ln() + (1.0f64 / 3.0).ln() + p3.ln() + p4.ln())).exp();
        let got = sentence_bleu4(&r, &c);
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    }

    #[test]
    fn brevity_penalty_applies_to_short_candidates() {
        let r = toks("a b c d e f");
        let c = toks("a b c");
        let full = sentence_bleu4(&toks("a b c"), &c);
        let v = sentence_bleu4(&r, &c);
        assert!((v - full * (1.0f64 - 2.0).exp()).abs() < 1e-12);
        assert!(v > 0.0 && v < 1.0);
    }

    #[test]
    fn not_symmetric() {
        let a = toks("a b c d e");
        let b = toks("a b c");
        assert!(sentence_bleu4(&a, &b) != sentence_bleu4(&b, &a));
    }

    #[test]
    fn fsum_is_exact() {
        assert_eq!(fsum(&[1e100, 1.0, -1e100]), 1.0);
        assert_eq!(fsum(&[0.1; 10]), 1.0);
        assert_eq!(fsum(&[]), 0.0);
    }
}
