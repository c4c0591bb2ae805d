//! The `swebench` kind's resolve step on the measurement sample (issue #32): for each
//! row of `rows.jsonl` (`sample.py`'s output), the official package's spec (swebench
//! 4.1.0 through hunkgen's helper, requirement files read from the local mirror at
//! `environment_setup_commit`), then `EnvCache::ensure_swebench` with the network on:
//! the spec's interpreter found here and its pip plan installed by uv. One JSON line per
//! row on stdout, a tally on stderr.
//!
//! cargo run --release --example swebench_resolve -- ROWS.jsonl MIRRORS_DIR CACHE_DIR SWEBENCH_PYTHON
//! (MIRRORS_DIR/<owner>+<name>/repo is each repository's git directory, as `fetch` makes it.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hunkgen::validate::env::swebench::{Helper, RowRef};
use hunkgen::validate::env::{find_uv, EnvCache};
use hunkgen::validate::runner::{Runner, SandboxPolicy};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [rows, mirrors, cache, python] = args.as_slice() else {
        return Err(
            "usage: swebench_resolve ROWS.jsonl MIRRORS_DIR CACHE_DIR SWEBENCH_PYTHON".into(),
        );
    };
    let cache_dir = PathBuf::from(cache);
    let helper = Helper::new(Path::new(python), &cache_dir.join("helper"))?;
    let uv = find_uv().ok_or("uv not found (HUNKGEN_UV or PATH)")?;
    let uv_cache = std::env::var_os("HUNKGEN_UV_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| cache_dir.join("uv"));
    let envs = EnvCache::new(cache_dir.join("envs"), uv_cache)
        .with_uv(uv)
        .with_network(true);
    let runner = Runner::new(SandboxPolicy::Required)?;
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    for line in std::fs::read_to_string(rows)?
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        let row: serde_json::Value = serde_json::from_str(line)?;
        let text = |k: &str| row[k].as_str().unwrap_or_default().to_string();
        let r = RowRef {
            repo: text("repo"),
            version: text("version"),
            instance_id: text("instance_id"),
            base_commit: text("base_commit"),
            environment_setup_commit: Some(text("environment_setup_commit")),
            test_patch: text("test_patch"),
        };
        let git = Path::new(mirrors)
            .join(r.repo.replace('/', "+"))
            .join("repo");
        let started = std::time::Instant::now();
        let answer = helper
            .specs(std::slice::from_ref(&r), Some(&git))?
            .remove(0);
        let outcome = match envs.ensure_swebench(&runner, &r.repo, &answer, None) {
            Ok(made) => serde_json::json!({
                "outcome": "built",
                "interpreter": made.interpreter,
                "reused": made.env.reused,
                "key": made.env.key,
                "requirements": made.plan.requirements.len(),
                "renamed": made.plan.renamed,
                "conda_only": made.plan.conda_only,
                "build_constraints": made.build_constraints,
            }),
            Err(e) => serde_json::json!({
                "outcome": format!("{:?}", e.reject_reason()),
                // The failing command is long; what it said is at the end.
                "error": e.to_string().rsplit_once(" ends: ").map_or_else(
                    || e.to_string(),
                    |(_, tail)| tail.to_string()
                ),
            }),
        };
        let name = outcome["outcome"].as_str().unwrap_or_default().to_string();
        *tally.entry(format!("{} {name}", r.repo)).or_default() += 1;
        println!(
            "{}",
            serde_json::json!({
                "instance_id": r.instance_id,
                "repo": r.repo,
                "version": r.version,
                "seconds": started.elapsed().as_secs(),
                "result": outcome,
            })
        );
    }
    for (k, n) in &tally {
        eprintln!("{k}: {n}");
    }
    Ok(())
}
