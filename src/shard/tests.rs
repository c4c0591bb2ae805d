//! Tests of shard choice, the stable hash and the checks of a shard set.

use super::*;

#[test]
fn the_hash_is_documented_sha256_prefix() {
    // SHA-256("abc") = ba7816bf 8f01cfea ...
    assert_eq!(stable_hash("abc"), 0xba78_16bf_8f01_cfea);
    assert_eq!(Shard::of("abc", 4), 0xba78_16bf_8f01_cfea % 4);
}

#[test]
fn every_id_has_exactly_one_shard_and_adding_ids_moves_none() {
    let ids: Vec<String> = (0..200).map(|i| format!("acme-{i:04}")).collect();
    for id in &ids {
        let owners: Vec<u64> = (0..4)
            .filter(|&k| Shard { index: k, count: 4 }.owns(id))
            .collect();
        assert_eq!(owners.len(), 1, "{id}");
    }
    let before: Vec<u64> = ids.iter().map(|i| Shard::of(i, 4)).collect();
    // Not by position: the same id lands in the same shard whatever else exists.
    let after: Vec<u64> = ids.iter().rev().map(|i| Shard::of(i, 4)).collect();
    assert_eq!(before, after.into_iter().rev().collect::<Vec<_>>());
    let used: std::collections::BTreeSet<u64> = before.into_iter().collect();
    assert_eq!(used.len(), 4, "200 ids spread over all four shards");
}

#[test]
fn a_set_is_checked_for_values_gaps_doubles_and_owners() {
    let ids: Vec<String> = (0..40).map(|i| format!("acme-{i:04}")).collect();
    let owned = |k: u64| -> Vec<&str> {
        ids.iter()
            .map(String::as_str)
            .filter(|id| Shard::of(id, 3) == k)
            .collect()
    };
    let dirs: Vec<PathBuf> = (0..3).map(|k| PathBuf::from(format!("s{k}"))).collect();
    let part = |k: u64, v: &str| Part {
        dir: &dirs[k as usize],
        shard: k,
        count: 3,
        same: vec![Same::new("dataset sha256", v)],
        owned: owned(k),
        unique: owned(k),
    };
    let good: Vec<Part> = (0..3).map(|k| part(k, "a")).collect();
    assert_eq!(check_set(&good, "run").map_err(|e| e.to_string()), Ok(()));
    let e = check_set(&[part(0, "a"), part(1, "b"), part(2, "a")], "run")
        .expect_err("value")
        .to_string();
    assert_eq!(
        e,
        "s1 has dataset sha256 `b` but s0 has `a`: shards of one run only"
    );
    let e = check_set(&good[..2], "run").expect_err("gap").to_string();
    assert!(e.starts_with("shard(s) 2/3 missing"), "{e}");
    let e = check_set(
        &[part(0, "a"), part(1, "a"), part(2, "a"), part(1, "a")],
        "run",
    )
    .expect_err("double")
    .to_string();
    assert!(e.starts_with("shard 1/3 given twice"), "{e}");
    let mut wrong = part(2, "a");
    wrong.owned.push(owned(0)[0]);
    let e = check_set(&[part(0, "a"), part(1, "a"), wrong], "run")
        .expect_err("owner")
        .to_string();
    assert!(e.contains("belongs to shard 0/3, not 2/3"), "{e}");
}

#[test]
fn parse_and_environment() {
    assert_eq!(Shard::parse("1/4"), Ok(Shard { index: 1, count: 4 }));
    for bad in ["4/4", "1", "a/4", "0/0", "-1/4"] {
        assert!(Shard::parse(bad).is_err(), "{bad}");
    }
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    };
    let s = |k, n| Ok(Some(Shard { index: k, count: n }));
    assert_eq!(Shard::resolve_with(None, env(&[])), Ok(None));
    assert_eq!(
        Shard::resolve_with(Some("2/3"), env(&[("HUNKGEN_SHARD", "0/2")])),
        s(2, 3)
    );
    assert_eq!(
        Shard::resolve_with(
            None,
            env(&[("HUNKGEN_SHARD", "0/2"), ("SLURM_ARRAY_TASK_ID", "1")])
        ),
        s(0, 2)
    );
    assert_eq!(
        Shard::resolve_with(
            None,
            env(&[
                ("SLURM_ARRAY_TASK_ID", "3"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
                ("JOB_COMPLETION_INDEX", "1")
            ])
        ),
        s(3, 4)
    );
    assert_eq!(
        Shard::resolve_with(
            None,
            env(&[
                ("SLURM_ARRAY_TASK_ID", "4"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
                ("SLURM_ARRAY_TASK_MIN", "1")
            ])
        ),
        s(3, 4)
    );
    assert_eq!(
        Shard::resolve_with(
            None,
            env(&[("JOB_COMPLETION_INDEX", "1"), ("HUNKGEN_SHARD_COUNT", "4")])
        ),
        s(1, 4)
    );
    let e = Shard::resolve_with(None, env(&[("JOB_COMPLETION_INDEX", "1")])).expect_err("no count");
    let e = e.to_string();
    assert!(e.contains("HUNKGEN_SHARD_COUNT"), "{e}");
    assert!(Shard::resolve_with(None, env(&[("HUNKGEN_SHARD", "5/4")])).is_err());
}
