//! Shared test helpers: a hermetic git runner with fixed identities and dates, the
//! hunkgen command, and the Defects4J metadata root.

#![allow(dead_code)] // Each test module uses a different subset.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root (for recipes/, demo/, scripts/).
pub fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The file `make deps` writes into uv's cache once it seeded it (the Makefile's
/// `UV_SEEDED`, read from there so a new seed step and the tests cannot disagree).
pub fn uv_seeded_marker() -> String {
    let makefile = std::fs::read_to_string(manifest().join("Makefile")).expect("Makefile");
    makefile
        .lines()
        .find_map(|l| l.strip_prefix("UV_SEEDED := "))
        .and_then(|v| v.rsplit('/').next())
        .map(str::to_string)
        .expect("the Makefile names UV_SEEDED")
}

/// Where tests put the scratch directories they keep between runs: cargo's target/tmp,
/// or `HUNKGEN_TEST_TMPDIR` when set (the check that reruns tests under `/tmp`, in a path
/// with spaces, sets it).
pub fn scratch_root() -> PathBuf {
    std::env::var_os("HUNKGEN_TEST_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")))
}

/// Whether golden files are rewritten from what the code makes (`HUNKGEN_BLESS` set).
/// Under CI (`CI` set and not `false`/`0`, as CI systems set it) blessing fails the test
/// instead of writing: CI checks the checked-in files, it never regenerates them.
pub fn blessing() -> bool {
    let bless = std::env::var_os("HUNKGEN_BLESS").is_some();
    let ci = std::env::var("CI").unwrap_or_default();
    let under_ci = !ci.is_empty() && ci != "false" && ci != "0";
    assert!(
        !(bless && under_ci),
        "HUNKGEN_BLESS is set under CI (CI={ci}): golden files are checked there, never \
         written; bless on a developer machine and commit the result"
    );
    bless
}

/// Defects4J's `framework/projects`: `HUNKGEN_D4J_ROOT`, else v2.0.1 in `../shared`.
pub fn d4j_root() -> PathBuf {
    std::env::var_os("HUNKGEN_D4J_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest().join("../shared/defects4j/framework/projects"))
}

/// The hunkgen binary under test.
/// Run a command and assert it succeeded (its stderr is the failure message).
pub fn succeeds(cmd: &mut assert_cmd::Command) -> std::process::Output {
    let out = cmd.output().expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

pub fn hunkgen() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("hunkgen").expect("binary built")
}

/// Run git hermetically (no user or system config) in `dir`; panics with git's stderr
/// on failure.
pub fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
    git_at(dir, args, 0)
}

/// Like [`git`], with author and committer dates `tick` hours after a fixed epoch.
pub fn git_at(dir: &Path, args: &[&str], tick: i64) -> Vec<u8> {
    let date = format!("{} +0100", 1_700_000_000 + tick * 3600);
    let out = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Ada Tester")
        .env("GIT_AUTHOR_EMAIL", "ada@example.org")
        .env("GIT_COMMITTER_NAME", "Ada Tester")
        .env("GIT_COMMITTER_EMAIL", "ada@example.org")
        .env("GIT_AUTHOR_DATE", &date)
        .env("GIT_COMMITTER_DATE", &date)
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// A repository built by git commands with fixed identities and dates.
pub struct Script {
    _tmp: tempfile::TempDir,
    /// The work tree.
    pub dir: PathBuf,
    /// Hours after the fixed epoch of the next git command's dates.
    pub tick: i64,
}

impl Script {
    /// An empty repository on branch `main`.
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("repo");
        std::fs::create_dir(&dir).expect("mkdir");
        let s = Script {
            _tmp: tmp,
            dir,
            tick: 0,
        };
        s.git(&["init", "-q", "-b", "main"]);
        s
    }

    /// Raw output of a git command.
    pub fn git_bytes(&self, args: &[&str]) -> Vec<u8> {
        git_at(&self.dir, args, self.tick)
    }

    /// Trimmed text output of a git command.
    pub fn git(&self, args: &[&str]) -> String {
        String::from_utf8(self.git_bytes(args))
            .expect("utf-8")
            .trim()
            .to_string()
    }

    /// Write a file of the work tree.
    pub fn write(&self, path: &str, content: &str) {
        let p = self.dir.join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, content).expect("write");
    }

    /// Commit everything, one hour after the previous commit; returns the id.
    pub fn commit(&mut self, msg: &str) -> String {
        self.tick += 1;
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", msg]);
        self.git(&["rev-parse", "HEAD"])
    }
}

/// Build the demo repository where recipes/demo.yaml expects it, but under `root`, and
/// return a copy of the recipe placed so that its relative paths resolve there, without
/// its `validate:` section (mining and annotation only).
pub fn demo_recipe(root: &Path) -> PathBuf {
    let recipe = demo_recipe_validated(root);
    let text = std::fs::read_to_string(&recipe).expect("recipe");
    let cut = text
        .find("\n# Golden tests")
        .or_else(|| text.find("\nvalidate:"));
    std::fs::write(&recipe, &text[..cut.unwrap_or(text.len())]).expect("recipe");
    recipe
}

/// The demo recipe as shipped, golden-test validation included (see [`demo_recipe`]).
pub fn demo_recipe_validated(root: &Path) -> PathBuf {
    let status = Command::new("sh")
        .arg(manifest().join("demo/build-repo.sh"))
        .arg(root.join("target/demo-repo"))
        .output()
        .expect("build-repo.sh runs");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    std::fs::create_dir_all(root.join("recipes")).expect("mkdir");
    let recipe = root.join("recipes/demo.yaml");
    std::fs::copy(manifest().join("recipes/demo.yaml"), &recipe).expect("copy recipe");
    recipe
}

/// The python of a venv `make deps` installs under target/ (`venv-swebench` holds the
/// official `swebench` package, `venv-validate` pytest); fails, never skips, when absent.
pub fn venv_python(venv: &str) -> PathBuf {
    let p = manifest().join("target").join(venv).join("bin/python");
    assert!(
        p.exists(),
        "{} is missing: `make deps` installs it",
        p.display()
    );
    p
}

/// Load a recipe and build it into `out`.
pub fn build_into(recipe: &Path, out: &Path) -> hunkgen::pipeline::BuildSummary {
    let plan = hunkgen::recipe::load(recipe).expect("plan");
    hunkgen::pipeline::build(
        &plan,
        &hunkgen::pipeline::BuildOptions {
            output: Some(out.to_path_buf()),
            ..Default::default()
        },
    )
    .expect("build")
}

/// Environment variables that point validation at the uv and package cache `make deps`
/// installed under target/ (the Makefile exports the same).
pub fn validation_env() -> Vec<(&'static str, PathBuf)> {
    let target = manifest().join("target");
    vec![
        (
            "HUNKGEN_UV",
            std::env::var_os("HUNKGEN_UV")
                .map(PathBuf::from)
                .unwrap_or_else(|| target.join("venv-validate/bin/uv")),
        ),
        (
            "HUNKGEN_UV_CACHE",
            std::env::var_os("HUNKGEN_UV_CACHE")
                .map(PathBuf::from)
                .unwrap_or_else(|| target.join("uv-cache")),
        ),
    ]
}

/// `hunkgen build -q RECIPE -o OUT` as the validation tests run it: uv and its seeded
/// cache from `make deps`, hunkgen's cache at `cache`, no shard from the environment.
pub fn build_validated(recipe: &Path, out: &Path, cache: &Path) -> std::process::Output {
    hunkgen()
        .args(["build", "-q"])
        .arg(recipe)
        .arg("-o")
        .arg(out)
        .envs(validation_env())
        .env_remove("HUNKGEN_SHARD")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .env("HUNKGEN_CACHE_DIR", cache)
        .output()
        .expect("builds")
}

/// The rows of a JSON Lines file of a build (`instances.jsonl`, `rejected.jsonl`); none
/// when it is absent.
pub fn jsonl(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

/// A copy of `from` made at the new path `to` (`cp -a`: hardlinks are not wanted, files
/// get changed). Tests running beside it can write in what it copies (the shared uv
/// cache), whose temporary files may vanish mid-copy: a failed copy is removed and made
/// again (three tries).
pub fn cp_a(from: &Path, to: &Path) {
    assert!(!to.exists(), "{} exists", to.display());
    let mut why = String::new();
    for _ in 0..3 {
        let o = Command::new("cp")
            .arg("-a")
            .arg(from)
            .arg(to)
            .output()
            .expect("cp");
        if o.status.success() {
            return;
        }
        why = String::from_utf8_lossy(&o.stderr).into_owned();
        let _ = std::fs::remove_dir_all(to);
    }
    panic!("{why}");
}
