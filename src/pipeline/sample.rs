//! `select.sample`, between annotate and validate: a reproducible sample of the selected
//! instances, so validation and states are spent on N of them only.
//!
//! Which instances are drawn depends on the seed and the instance ids alone: each id is
//! ranked by `stable_hash("{seed}\0{id}")` (ties by id) and the lowest are taken, so the
//! same recipe draws the same instances on any machine, whatever order the source mined
//! them in, and every shard of a sharded build draws over all instances before keeping
//! its own. Stratified, N is first shared among the strata in proportion to their sizes
//! (largest remainder, ties by stratum name), then each stratum is drawn the same way.

use super::Item;
use crate::model::Instance;
use crate::recipe::{SampleSpec, Stratify};
use crate::shard::stable_hash;
use std::collections::{BTreeMap, BTreeSet};

/// The stratum of an instance without a proximity class (no annotation reached it).
const UNCLASSIFIED: &str = "unclassified";

/// Keep the sampled items and return how many of the selected instances were not
/// sampled. `rows` are every selected instance (all shards'); with `stratify_by: class`
/// `items` are too, annotated, since the class comes from annotation.
pub(super) fn sample(spec: &SampleSpec, rows: &[&Instance], items: &mut Vec<Item>) -> usize {
    let members: Vec<(&str, &str)> = match spec.stratify_by {
        Stratify::None => rows.iter().map(|r| (r.instance_id.as_str(), "")).collect(),
        Stratify::Project => rows
            .iter()
            .map(|r| (r.instance_id.as_str(), r.project.as_str()))
            .collect(),
        Stratify::Class => items
            .iter()
            .map(|it| (it.instance.instance_id.as_str(), class_of(&it.instance)))
            .collect(),
    };
    let population: BTreeSet<&str> = members.iter().map(|(id, _)| *id).collect();
    let chosen: BTreeSet<String> = choose(&members, spec.n, spec.seed)
        .into_iter()
        .map(str::to_string)
        .collect();
    let not_sampled = population.len() - chosen.len();
    items.retain(|it| chosen.contains(&it.instance.instance_id));
    not_sampled
}

/// The proximity class's name, the stratum of `stratify_by: class`.
fn class_of(instance: &Instance) -> &'static str {
    instance
        .proximity
        .as_ref()
        .and_then(|p| p.class)
        .map_or(UNCLASSIFIED, |c| c.name())
}

/// The ids drawn from `members` (id, stratum): min(n, distinct ids) of them, each
/// stratum's share by [`allocate`], the lowest ranks within it. A function of the set of
/// members, never of their order.
pub(crate) fn choose<'a>(members: &[(&'a str, &'a str)], n: usize, seed: u64) -> Vec<&'a str> {
    // An id seen twice counts once (its first stratum), whatever the order.
    let mut by_id: BTreeMap<&str, &str> = BTreeMap::new();
    for &(id, stratum) in members {
        by_id
            .entry(id)
            .and_modify(|s| *s = (*s).min(stratum))
            .or_insert(stratum);
    }
    let mut strata: BTreeMap<&str, Vec<(u64, &str)>> = BTreeMap::new();
    for (id, stratum) in by_id {
        strata
            .entry(stratum)
            .or_default()
            .push((stable_hash(&format!("{seed}\0{id}")), id));
    }
    let sizes: Vec<(&str, usize)> = strata.iter().map(|(s, ids)| (*s, ids.len())).collect();
    let shares = allocate(&sizes, n);
    let mut chosen = Vec::new();
    for ((_, mut ranked), share) in strata.into_iter().zip(shares) {
        ranked.sort_unstable();
        chosen.extend(ranked.into_iter().take(share).map(|(_, id)| id));
    }
    chosen.sort_unstable();
    chosen
}

/// N shared among strata (name, size) in proportion to their sizes, by the largest
/// remainder method: each stratum gets the whole part of its quota n·size/total, and the
/// seats left go one each to the largest remainders, ties to the smaller name. N above
/// the total takes every member.
pub(crate) fn allocate(strata: &[(&str, usize)], n: usize) -> Vec<usize> {
    let total: usize = strata.iter().map(|(_, size)| size).sum();
    let n = n.min(total);
    if total == 0 {
        return vec![0; strata.len()];
    }
    // Exact integer quotas (no float rounding): n·size = whole·total + remainder.
    let (t, n) = (total as u128, n as u128);
    let mut shares: Vec<usize> = Vec::with_capacity(strata.len());
    let mut remainders: Vec<(u128, &str, usize)> = Vec::with_capacity(strata.len());
    for (i, &(name, size)) in strata.iter().enumerate() {
        let quota = n * size as u128;
        shares.push((quota / t) as usize);
        remainders.push((quota % t, name, i));
    }
    let left = n as usize - shares.iter().sum::<usize>();
    // Largest remainder first, then the smaller name. The remainders add up to
    // left·total and each is below total, so the `left` seats go to strata whose quota
    // had a fraction: none gets more than its size.
    remainders.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    for &(_, _, i) in remainders.iter().take(left) {
        shares[i] += 1;
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("acme__demo-{i:04}")).collect()
    }

    #[test]
    fn allocation_is_proportional_by_largest_remainder() {
        // 10 of 7 + 2 + 1: quotas 7.0, 2.0, 1.0.
        assert_eq!(allocate(&[("a", 7), ("b", 2), ("c", 1)], 10), [7, 2, 1]);
        // 5 of 6 + 3 + 1 (total 10): quotas 3.0, 1.5, 0.5; one seat left, remainders
        // tie at 0.5: the smaller name, `b`, gets it.
        assert_eq!(allocate(&[("a", 6), ("b", 3), ("c", 1)], 5), [3, 2, 0]);
        // The same with the names swapped: `b` (now size 1) still wins the tie.
        assert_eq!(allocate(&[("a", 6), ("b", 1), ("c", 3)], 5), [3, 1, 1]);
        // 4 of 5 + 3 + 2: quotas 2.0, 1.2, 0.8 → 2, 1, 0 and the seat to 0.8.
        assert_eq!(allocate(&[("a", 5), ("b", 3), ("c", 2)], 4), [2, 1, 1]);
        // Three equal strata, two seats: the two smaller names.
        assert_eq!(allocate(&[("x", 3), ("y", 3), ("z", 3)], 2), [1, 1, 0]);
        // More seats than members: everyone.
        assert_eq!(allocate(&[("a", 2), ("b", 1)], 50), [2, 1]);
        assert_eq!(allocate(&[], 3), Vec::<usize>::new());
        assert_eq!(allocate(&[("a", 0)], 3), [0]);
    }

    #[test]
    fn allocation_sums_to_n_and_never_exceeds_a_stratum() {
        let sizes = [1usize, 2, 3, 5, 8, 13, 21];
        let strata: Vec<(String, usize)> = sizes
            .iter()
            .enumerate()
            .map(|(i, s)| (format!("s{i}"), *s))
            .collect();
        let named: Vec<(&str, usize)> = strata.iter().map(|(n, s)| (n.as_str(), *s)).collect();
        let total: usize = sizes.iter().sum();
        for n in 0..=total + 3 {
            let shares = allocate(&named, n);
            assert_eq!(shares.iter().sum::<usize>(), n.min(total), "n = {n}");
            for (share, (_, size)) in shares.iter().zip(&named) {
                assert!(share <= size, "n = {n}: {shares:?}");
            }
        }
    }

    #[test]
    fn a_shuffled_input_draws_the_same_ids() {
        let all = ids(40);
        let members: Vec<(&str, &str)> = all
            .iter()
            .enumerate()
            .map(|(i, id)| (id.as_str(), ["p", "q", "r"][i % 3]))
            .collect();
        let want = choose(&members, 9, 7);
        assert_eq!(want.len(), 9);
        let mut shuffled = members.clone();
        for round in 0..20u64 {
            // A deterministic shuffle of its own (Fisher–Yates on the stable hash).
            for i in (1..shuffled.len()).rev() {
                let j = (stable_hash(&format!("{round}/{i}")) % (i as u64 + 1)) as usize;
                shuffled.swap(i, j);
            }
            assert_eq!(choose(&shuffled, 9, 7), want, "round {round}");
        }
        let mut reversed = members.clone();
        reversed.reverse();
        assert_eq!(choose(&reversed, 9, 7), want);
    }

    #[test]
    fn the_draw_is_the_lowest_hashes_of_seed_and_id() {
        let all = ids(12);
        let members: Vec<(&str, &str)> = all.iter().map(|id| (id.as_str(), "")).collect();
        let mut ranked: Vec<(u64, &str)> = all
            .iter()
            .map(|id| (stable_hash(&format!("3\0{id}")), id.as_str()))
            .collect();
        ranked.sort();
        let mut want: Vec<&str> = ranked.iter().take(4).map(|(_, id)| *id).collect();
        want.sort();
        assert_eq!(choose(&members, 4, 3), want);
        // Another seed draws another set (for these ids and seeds).
        assert_ne!(choose(&members, 4, 4), want);
        // N at or above the population takes everyone.
        assert_eq!(choose(&members, 12, 3).len(), 12);
        assert_eq!(choose(&members, 99, 3).len(), 12);
    }

    #[test]
    fn stratified_draws_take_each_strata_share() {
        let all = ids(10);
        // Strata of 6, 3 and 1: five seats are 3, 2 (the tie at .5 to `b`) and 0.
        let members: Vec<(&str, &str)> = all
            .iter()
            .enumerate()
            .map(|(i, id)| {
                let s = match i {
                    0..=5 => "a",
                    6..=8 => "b",
                    _ => "c",
                };
                (id.as_str(), s)
            })
            .collect();
        let got = choose(&members, 5, 0);
        let count = |s: &str| {
            members
                .iter()
                .filter(|(id, st)| *st == s && got.contains(id))
                .count()
        };
        assert_eq!((count("a"), count("b"), count("c")), (3, 2, 0));
    }

    #[test]
    fn an_id_listed_twice_counts_once() {
        let members = [("x", "p"), ("y", "p"), ("x", "q")];
        assert_eq!(choose(&members, 5, 0), ["x", "y"]);
    }
}
