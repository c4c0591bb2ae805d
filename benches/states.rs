//! Time and disk per FixedBench state on a real dataset: every state of a few instances,
//! Best states sharing one hardlinked history pack, against a full copy of the repository.
//!
//! Then `hunkgen checkout` of a Novel Best state the dataset holds against `git worktree
//! add` of the same commit in the source repository, with the ratio.
//!
//! Usage: `cargo bench --bench states -- <dataset> [instances]` or
//! `HUNKGEN_BENCH_STATES=<dataset>`; the dataset must come from a git-source recipe (its
//! card records the repository). With no dataset it prints a skip message and exits 0.

use hunkgen::model::{Scenario, StateKind};
use hunkgen::states::{self, PartialStrategy};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Bytes allocated under `dir`, each hardlinked inode counted once (across calls too).
fn allocated(dir: &Path, seen: &mut HashSet<(u64, u64)>) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let mut total = 0;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    for e in entries.flatten() {
        let Ok(m) = std::fs::symlink_metadata(e.path()) else {
            continue;
        };
        if m.is_dir() {
            total += allocated(&e.path(), seen);
        } else if seen.insert((m.dev(), m.ino())) {
            total += m.blocks() * 512;
        }
    }
    total
}

fn mb(b: u64) -> f64 {
    b as f64 / 1_048_576.0
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let Some(dataset) = args
        .first()
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HUNKGEN_BENCH_STATES").map(PathBuf::from))
    else {
        println!(
            "states: skipped (give a git-source dataset: cargo bench --bench states -- <dataset>)"
        );
        return;
    };
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(3);
    let instances = hunkgen::dataset::read_instances(&dataset).expect("instances.jsonl");
    let card = hunkgen::dataset::read_card(&dataset)
        .expect("dataset.yaml")
        .expect("a card");
    let out = tempfile::tempdir().expect("tempdir");
    let which: Vec<(StateKind, Scenario)> = StateKind::ALL
        .iter()
        .flat_map(|&s| [(s, Scenario::Best), (s, Scenario::Worst)])
        .collect();
    let mut seen = HashSet::new();
    let mut full_copy = 0;
    let mut made = 0;
    for inst in instances.iter().take(n) {
        let repo = PathBuf::from(
            card.repositories
                .get(&inst.repo)
                .expect("repository in card"),
        );
        if full_copy == 0 {
            full_copy = allocated(&repo, &mut HashSet::new());
        }
        let partial = match states::partial_change(
            inst,
            &repo,
            &PartialStrategy::HunkSubset {
                cap: states::SUBSET_CAP,
            },
            None,
        ) {
            Ok(p) => p,
            Err(e) => {
                println!("{}: skipped: {e}", inst.instance_id);
                continue;
            }
        };
        let start = Instant::now();
        let mut line = format!("{}:", inst.instance_id);
        let mut disk = Vec::new();
        for &(state, scenario) in &which {
            let t = Instant::now();
            let res = states::materialize_instance(
                out.path(),
                inst,
                &repo,
                &[(state, scenario)],
                false,
                Some(&partial),
            );
            // One call per state would repack the history each time; the instance call
            // below shares it. This loop times each state alone.
            if let Err(e) = res {
                line.push_str(&format!(
                    " {}-{} refused ({e})",
                    state.name(),
                    scenario.name()
                ));
                continue;
            }
            line.push_str(&format!(
                " {}-{} {:.2}s",
                state.name(),
                scenario.name(),
                t.elapsed().as_secs_f64()
            ));
            made += 1;
        }
        println!(
            "{line}  (each state packed alone: {:.2}s)",
            start.elapsed().as_secs_f64()
        );
        let _ = std::fs::remove_dir_all(out.path().join("states"));

        let t = Instant::now();
        states::materialize_instance(out.path(), inst, &repo, &which, false, Some(&partial))
            .expect("states");
        let shared = t.elapsed().as_secs_f64();
        for &(state, scenario) in &which {
            let dir = states::state_dir(out.path(), &inst.instance_id, state, scenario, false);
            disk.push(format!(
                "{}-{} {:.1} MB",
                state.name(),
                scenario.name(),
                mb(allocated(&dir, &mut seen))
            ));
        }
        println!(
            "  six states with one shared history pack: {shared:.2}s; new disk per state: {}",
            disk.join(", ")
        );
    }
    println!(
        "{made} states; a full copy of the repository is {:.1} MB",
        mb(full_copy)
    );
    layered(&instances, &card, out.path());
    checkout_vs_worktree(&dataset, &instances, &card);
}

/// Milliseconds `f` takes.
fn ms(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1000.0
}

/// The middle value.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// `hunkgen checkout --state novel --scenario best` of the first instance whose state the
/// dataset holds, against `git worktree add --detach` of its base commit in the source
/// repository (the target: at most 2×).
fn checkout_vs_worktree(
    dataset: &Path,
    instances: &[hunkgen::model::Instance],
    card: &hunkgen::model::Card,
) {
    let held = |i: &&hunkgen::model::Instance| {
        states::state_dir(
            dataset,
            &i.instance_id,
            StateKind::Novel,
            Scenario::Best,
            false,
        )
        .join("manifest.yaml")
        .is_file()
    };
    let Some(inst) = instances.iter().find(held) else {
        println!(
            "checkout: skipped (the dataset holds no Novel Best state; build it with `states:`)"
        );
        return;
    };
    let repo = PathBuf::from(
        card.repositories
            .get(&inst.repo)
            .expect("repository in card"),
    );
    let out = tempfile::tempdir().expect("tempdir");
    let runs = 11;
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(&repo)
            .args(args)
            .output()
            .expect("git runs")
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    // Interleaved, so a change of the machine's load hits both alike.
    let (mut worktree, mut checkout) = (Vec::new(), Vec::new());
    for i in 0..runs {
        let dir = out.path().join(format!("wt-{i}")).display().to_string();
        worktree.push(ms(|| {
            git(&["worktree", "add", "-q", "--detach", &dir, &inst.base_commit])
        }));
        git(&["worktree", "remove", "--force", &dir]);
        let target = out.path().join(format!("co-{i}"));
        checkout.push(ms(|| {
            let ok = std::process::Command::new(env!("CARGO_BIN_EXE_hunkgen"))
                .arg("checkout")
                .arg(dataset)
                .arg(&inst.instance_id)
                .args(["--state", "novel", "--scenario", "best"])
                .arg(&target)
                .output()
                .expect("hunkgen runs")
                .status
                .success();
            assert!(ok, "hunkgen checkout {}", inst.instance_id);
        }));
        let _ = std::fs::remove_dir_all(&target);
    }
    // The same state made from the source (a copy of the dataset without its states),
    // as every checkout was before it linked the dataset's packs.
    let bare = out.path().join("bare");
    std::fs::create_dir_all(&bare).expect("mkdir");
    for f in ["instances.jsonl", "dataset.yaml"] {
        std::fs::copy(dataset.join(f), bare.join(f)).expect("copy");
    }
    let fresh = median(
        (0..3)
            .map(|i| {
                ms(|| {
                    let ok = std::process::Command::new(env!("CARGO_BIN_EXE_hunkgen"))
                        .arg("checkout")
                        .arg(&bare)
                        .arg(&inst.instance_id)
                        .args(["--state", "novel", "--scenario", "best"])
                        .arg(out.path().join(format!("fresh-{i}")))
                        .output()
                        .expect("hunkgen runs")
                        .status
                        .success();
                    assert!(ok, "hunkgen checkout {} from the source", inst.instance_id);
                })
            })
            .collect(),
    );
    let (worktree, checkout) = (median(worktree), median(checkout));
    println!(
        "checkout: {} novel-best {checkout:.1} ms, git worktree add {worktree:.1} ms: {:.2}x (median of {runs}); made from the source {fresh:.1} ms: {:.2}x",
        inst.instance_id,
        checkout / worktree,
        fresh / worktree
    );
}

/// Novel Best states of every instance with layered history packs: time, disk of the
/// segments against one full history pack per state, packs linked per state.
fn layered(instances: &[hunkgen::model::Instance], card: &hunkgen::model::Card, out: &Path) {
    let Some(first) = instances.first() else {
        return;
    };
    let repo = PathBuf::from(
        card.repositories
            .get(&first.repo)
            .expect("repository in card"),
    );
    let mine: Vec<&hunkgen::model::Instance> =
        instances.iter().filter(|i| i.repo == first.repo).collect();
    let dir = out.join("layered");
    let t = Instant::now();
    let results = states::materialize_layered(
        &dir,
        &repo,
        &mine,
        &[(StateKind::Novel, Scenario::Best)],
        false,
        &|_| None,
    )
    .expect("layered states");
    let secs = t.elapsed().as_secs_f64();
    let ok = results.iter().filter(|(_, r)| r.is_ok()).count();
    let segments = allocated(&states::layers_dir(&dir, &first.repo), &mut HashSet::new());
    let mut max_packs = 0;
    let mut one_pack = 0;
    for inst in &mine {
        let repo_dir = states::state_dir(
            &dir,
            &inst.instance_id,
            StateKind::Novel,
            Scenario::Best,
            false,
        )
        .join("repo/.git/objects/pack");
        let packs = std::fs::read_dir(&repo_dir)
            .map(|d| {
                d.flatten()
                    .filter(|e| e.path().extension().is_some_and(|x| x == "pack"))
                    .count()
            })
            .unwrap_or(0);
        max_packs = max_packs.max(packs);
    }
    // One full history pack, for scale: the last instance's history alone.
    if let Some(last) = mine.last() {
        let tmp = out.join("one-pack");
        if hunkgen::git::pack_history(&repo, &last.base_commit, &tmp).is_ok() {
            one_pack = allocated(&tmp, &mut HashSet::new());
        }
    }
    println!(
        "layered: {ok}/{} Novel Best states in {secs:.1}s ({:.2}s each); segments {:.1} MB in all, at most {max_packs} packs per state; one full history pack is {:.1} MB ({:.1} MB for {} states without layers)",
        mine.len(),
        secs / mine.len().max(1) as f64,
        mb(segments),
        mb(one_pack),
        mb(one_pack) * mine.len() as f64,
        mine.len()
    );
}
