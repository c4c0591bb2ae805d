//! A hostile repository stays in its box: a generated history whose test suite reads
//! `$HOME`, `~/.ssh`, another dataset and hunkgen's cache, looks for tokens in its
//! environment, reaches for the network, fork-bombs, fills the disk, leaves a daemon
//! behind, writes through symbolic links and reports a test name with `..`; then a
//! SWE-bench file whose rows put `..` in ids, repositories, test names and patch paths.
//! Each act fails inside the sandbox (the test asserts that it failed, so the instance
//! is kept only when contained) or is refused by hunkgen with one line (the instance
//! is rejected with it); the build goes on; and the protected places, hashed before
//! and after, are unchanged.
//!
//! The protected places live under cargo's target directory, not under `/tmp`: the
//! sandbox's private `/tmp` would hide them whatever else it did.

use crate::common::{hunkgen, scratch_root, Script};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fs;
use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::{Path, PathBuf};

/// The secret planted in the protected places; it may show up nowhere in the dataset.
const SECRET: &str = "hunkgen-hostile-SECRET-4f1d";

/// The secret in the tokens and keys of hunkgen's environment. The hostile tests look
/// for it written backwards, so the dataset (which holds their code) never holds it.
const ENV_SECRET: &str = "hunkgen-hostile-TOKEN-9c2e";

/// The protected places: a fake home with `.ssh`, another dataset, the cache outside
/// the entries a run uses, and an `/etc`-like directory a symbolic link points to.
struct Protected {
    _root: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    dataset: PathBuf,
    cache: PathBuf,
    cache_outside: PathBuf,
    etc: PathBuf,
}

impl Protected {
    fn new() -> Protected {
        // Outside /tmp, or the sandbox's private /tmp would hide them and every check
        // would pass without the binds being tested: a checkout under /tmp puts them in
        // /var/tmp instead.
        let mut base = scratch_root();
        if base.starts_with("/tmp") {
            base = PathBuf::from("/var/tmp/hunkgen-hostile-tests");
        }
        fs::create_dir_all(&base).expect("scratch root");
        let tmp = tempfile::Builder::new()
            .prefix("hostile-")
            .tempdir_in(&base)
            .expect("tempdir");
        let root = tmp.path().to_path_buf();
        assert!(
            !root.starts_with("/tmp"),
            "the protected places must not be under /tmp (the sandbox hides it anyway)"
        );
        let home = root.join("home");
        let dataset = root.join("datasets/other");
        let cache = root.join("cache");
        let cache_outside = cache.join("github");
        let etc = root.join("etc-like");
        fs::create_dir_all(root.join("work")).expect("mkdir");
        for (file, text) in [
            (home.join(".ssh/id_rsa"), format!("PRIVATE KEY {SECRET}\n")),
            (
                home.join(".netrc"),
                format!("machine x password {SECRET}\n"),
            ),
            (
                dataset.join("instances.jsonl"),
                format!("{{\"s\":\"{SECRET}\"}}\n"),
            ),
            (
                cache_outside.join("etag.json"),
                format!("{{\"t\":\"{SECRET}\"}}\n"),
            ),
            (
                etc.join("passwd"),
                "root:x:0:0::/root:/bin/sh\n".to_string(),
            ),
        ] {
            fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
            fs::write(&file, text).expect("write");
        }
        Protected {
            _root: tmp,
            root,
            home,
            dataset,
            cache,
            cache_outside,
            etc,
        }
    }

    /// One hash over every protected place: paths, file types, modes and contents,
    /// links not followed.
    fn hash(&self) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        for dir in [&self.home, &self.dataset, &self.cache_outside, &self.etc] {
            hash_tree(dir, &self.root, &mut out);
        }
        // Nothing new next to them either (a file written through `..`).
        for e in fs::read_dir(&self.root).expect("root").flatten() {
            out.insert(
                format!("top:{}", e.file_name().to_string_lossy()),
                String::new(),
            );
        }
        out
    }
}

/// Every entry under `dir`, relative to `root`, with a hash of what it is.
fn hash_tree(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let m = fs::symlink_metadata(&p).expect("metadata");
        let rel = p.strip_prefix(root).unwrap_or(&p).display().to_string();
        let mut h = Sha256::new();
        h.update(format!("{:o}", m.permissions().mode()));
        if m.file_type().is_symlink() {
            h.update(
                fs::read_link(&p)
                    .expect("link")
                    .as_os_str()
                    .as_encoded_bytes(),
            );
        } else if m.is_file() {
            h.update(fs::read(&p).expect("file"));
        }
        out.insert(rel, format!("{:x}", h.finalize()));
        if m.is_dir() {
            hash_tree(&p, root, out);
        }
    }
}

/// The test runner the repository ships: imports each test file, calls its `test_*`
/// functions, prints pytest's `-rA` summary (a module's `NODE_ID` overrides the id it
/// reports, which is how the hostile suite reports a name with `..`).
const RUNNER: &str = r#"import importlib.util, os, sys, traceback
sys.path.insert(0, os.getcwd())
results = []
for path in sys.argv[1:]:
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for fn in sorted(n for n in dir(mod) if n.startswith("test_")):
        node = getattr(mod, "NODE_ID", f"{path}::{fn}")
        try:
            getattr(mod, fn)()
            results.append(f"PASSED {node}")
        except BaseException as e:
            traceback.print_exc()
            results.append(f"FAILED {node} - {type(e).__name__}")
print("=========================== short test summary info ============================")
print("\n".join(results))
print("================================ done ================================")
"#;

/// What every hostile test file starts with: the verdict helper.
const PRELUDE: &str = r#"import os, socket, sys, time
from pkg import core

def verdict(case, contained, detail=""):
    print(f"HOSTILE {case}: {'contained' if contained else 'LEAKED'} {detail}", flush=True)
    assert contained, f"LEAKED: {detail}"

def unreadable(path):
    try:
        with open(path, "rb") as f:
            f.read()
        return False
    except OSError:
        return True
"#;

/// The hostile cases: name and the body of its test function (Python, four-space
/// indented; `{home}` and friends are filled in). Each ends in `verdict(...)`, so the
/// test passes (and, once the fix is in, the instance is kept) only when contained.
fn cases(p: &Protected, port: u16, marker: &str) -> Vec<(&'static str, String)> {
    let fill = |s: &str| {
        s.replace("{home}", &p.home.display().to_string())
            .replace("{dataset}", &p.dataset.display().to_string())
            .replace("{cache}", &p.cache.display().to_string())
            .replace("{etc}", &p.etc.display().to_string())
            .replace("{port}", &port.to_string())
            .replace("{marker}", marker)
            .replace(
                "{env_secret_reversed}",
                &ENV_SECRET.chars().rev().collect::<String>(),
            )
    };
    [
        (
            "read_home",
            r#"home = os.environ.get("HOME", "")
    seen = []
    for d in (home, "{home}", "/root", "/home"):
        try:
            seen += [os.path.join(d, n) for n in os.listdir(d)]
        except OSError:
            pass
    verdict("read_home", not any(".netrc" in s or ".ssh" in s for s in seen), repr(seen))"#,
        ),
        (
            "read_ssh",
            r#"paths = [os.path.expanduser("~/.ssh/id_rsa"), "{home}/.ssh/id_rsa", "/root/.ssh/id_rsa", "/etc/shadow"]
    verdict("read_ssh", all(unreadable(x) or open(x, "rb").read() == b"" for x in paths), repr(paths))"#,
        ),
        (
            "read_dataset",
            r#"verdict("read_dataset", unreadable("{dataset}/instances.jsonl"))"#,
        ),
        (
            "read_cache",
            r#"verdict("read_cache", unreadable("{cache}/github/etag.json"))"#,
        ),
        (
            "env_tokens",
            r#"names = ["GITHUB_TOKEN", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY"]
    leaked = [n for n in names if n in os.environ]
    secret = "{env_secret_reversed}"[::-1]
    leaked += [k for k, v in os.environ.items() if secret in v]
    for pid in os.listdir("/proc"):
        try:
            if secret.encode() in open(f"/proc/{pid}/environ", "rb").read():
                leaked.append(pid)
        except OSError:
            pass
    verdict("env_tokens", not leaked, repr(leaked))"#,
        ),
        (
            "loopback",
            r#"try:
        socket.create_connection(("127.0.0.1", {port}), timeout=3).close()
        ok = False
    except OSError:
        ok = True
    verdict("loopback", ok)"#,
        ),
        (
            "dns",
            r#"try:
        socket.getaddrinfo("example.com", 443)
        ok = False
    except OSError:
        ok = True
    verdict("dns", ok)"#,
        ),
        (
            "fork_bomb",
            // Bounded (400 children at most), so a missing limit cannot take the machine
            // down: the limit must stop it well before.
            r#"kids, stopped = [], False
    for _ in range(400):
        try:
            pid = os.fork()
        except OSError:
            stopped = True
            break
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        kids.append(pid)
    for k in kids:
        os.kill(k, 9)
        os.waitpid(k, 0)
    verdict("fork_bomb", stopped, f"{len(kids)} children")"#,
        ),
        (
            "disk_fill",
            r#"written, stopped = 0, False
    try:
        with open("fill.bin", "wb") as f:
            for _ in range(64):
                f.write(b"\0" * (1 << 20))
                f.flush()
                written += 1
    except OSError:
        stopped = True
    os.remove("fill.bin")
    verdict("disk_fill", stopped, f"{written} MiB")"#,
        ),
        (
            "daemon",
            // Detached into its own session; must not outlive the run.
            r#"if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execvp("sh", ["sh", "-c", "sleep 300; :", "{marker}"])
        os._exit(0)
    time.sleep(0.2)
    verdict("daemon", True)"#,
        ),
        (
            "symlink_write",
            // `ln -s /etc x; echo > x/y`, at /etc and at the /etc-like directory.
            r#"hits = []
    for target, link in (("/etc", "x"), ("{etc}", "x2")):
        os.symlink(target, link)
        try:
            with open(os.path.join(link, "pwned"), "w") as f:
                f.write("pwned")
            hits.append(target)
        except OSError:
            pass
    verdict("symlink_write", not hits, repr(hits))"#,
        ),
        (
            "symlink_in_history",
            // `link` is a symbolic link committed in the repository's history.
            r#"try:
        with open("link/pwned", "w") as f:
            f.write("pwned")
        ok = False
    except OSError:
        ok = True
    verdict("symlink_in_history", ok)"#,
        ),
        (
            "report_link",
            // The reports directory turned into a link to the home's keys: hunkgen must
            // not read through it.
            r#"import shutil
    shutil.rmtree(".hunkgen-reports", ignore_errors=True)
    os.symlink("{home}/.ssh", ".hunkgen-reports")
    verdict("report_link", True)"#,
        ),
        (
            "test_name_dotdot",
            r#"verdict("test_name_dotdot", True)"#,
        ),
    ]
    .into_iter()
    .map(|(n, body)| (n, fill(body)))
    .collect()
}

/// The repository: `pkg/core.py` with one function per case (returning 1), the runner,
/// a committed symbolic link to the `/etc`-like directory, then one fix commit per case
/// (the function returns 2; its test does the hostile act, then checks the fix).
fn hostile_repo(p: &Protected, port: u16, marker: &str) -> (Script, Vec<(String, String)>) {
    let mut s = Script::new();
    let cases = cases(p, port, marker);
    let core = |fixed: &[&str]| {
        let mut t = String::new();
        for (n, _) in &cases {
            let v = if fixed.contains(n) { 2 } else { 1 };
            t.push_str(&format!("def {n}():\n    return {v}\n\n\n"));
        }
        t
    };
    s.write("pkg/__init__.py", "");
    s.write("pkg/core.py", &core(&[]));
    s.write("run_tests.py", RUNNER);
    s.commit("Initial import");
    std::os::unix::fs::symlink(&p.etc, s.dir.join("link")).expect("symlink");
    s.commit("Add a link to the configuration");
    let mut fixes = Vec::new();
    let mut fixed: Vec<&str> = Vec::new();
    for (name, body) in &cases {
        fixed.push(name);
        let node = match *name {
            "test_name_dotdot" => "NODE_ID = \"../../escape.py::test_name_dotdot\"\n",
            _ => "",
        };
        s.write("pkg/core.py", &core(&fixed));
        s.write(
            &format!("tests/test_{name}.py"),
            &format!(
                "{PRELUDE}{node}\n\ndef test_{name}():\n    {body}\n    assert core.{name}() == 2\n"
            ),
        );
        let id = s.commit(&format!("Fix {name} returning the wrong value"));
        fixes.push((name.to_string(), id));
    }
    (s, fixes)
}

/// The recipe's `validate:` section: the runner in a setup-command environment (the
/// machine's python3), small limits so the fork bomb and the disk fill meet them fast.
const VALIDATE: &str = r#"validate:
  reruns: 1
  timeout: 60
  cache: ../cache
  max_processes: 64
  max_file_mb: 8
  suites:
    - name: python
      paths: [tests/]
      env:
        command:
          setup: 'true'
      command: python3 run_tests.py {tests}
      report: pytest
"#;

/// Live processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<String> {
    fs::read_dir("/proc")
        .expect("/proc")
        .flatten()
        .filter_map(|e| fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(marker))
        .collect()
}

/// The build's rows: instance id → status line, from instances.jsonl and rejected.jsonl.
fn rows(out: &Path) -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
    let read = |f: &str| -> Vec<serde_json::Value> {
        fs::read_to_string(out.join(f))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("row"))
            .collect()
    };
    (read("instances.jsonl"), read("rejected.jsonl"))
}

/// Runs `hunkgen build` with the hostile environment: a fake HOME, tokens and keys set.
fn build(p: &Protected, recipe: &Path, out: &Path) -> std::process::Output {
    hunkgen()
        .args(["build", "-q"])
        .arg(recipe)
        .arg("-o")
        .arg(out)
        .env("HOME", &p.home)
        .env("GITHUB_TOKEN", format!("ghp_{ENV_SECRET}"))
        .env("ANTHROPIC_API_KEY", format!("sk-ant-{ENV_SECRET}"))
        .env("OPENAI_API_KEY", format!("sk-{ENV_SECRET}"))
        .env("AWS_SECRET_ACCESS_KEY", ENV_SECRET)
        .env_remove("HUNKGEN_CACHE_DIR")
        .env_remove("HUNKGEN_SHARD")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .output()
        .expect("hunkgen runs")
}

/// Every file under `dir` whose content holds the secret.
fn files_with_secret(dir: &Path) -> Vec<PathBuf> {
    let mut hits = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return hits;
    };
    for e in entries.flatten() {
        let path = e.path();
        let Ok(m) = fs::symlink_metadata(&path) else {
            continue;
        };
        if m.is_dir() {
            hits.extend(files_with_secret(&path));
        } else if m.is_file()
            && fs::read(&path).is_ok_and(|b| {
                let t = String::from_utf8_lossy(&b);
                t.contains(SECRET) || t.contains(ENV_SECRET)
            })
        {
            hits.push(path);
        }
    }
    hits
}

#[test]
fn a_hostile_repository_stays_in_its_box() {
    let p = Protected::new();
    let before = p.hash();
    let listener = TcpListener::bind("127.0.0.1:0").expect("loopback listener");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port();
    let marker = format!("hunkgen-daemon-{}", std::process::id());
    let (repo, fixes) = hostile_repo(&p, port, &marker);
    let work = p.root.join("work");
    fs::create_dir_all(&work).expect("mkdir");
    // A copy of the repository next to the recipe (the script's lives under /tmp).
    let clone = work.join("repo");
    crate::common::git(
        &work,
        &["clone", "-q", &repo.dir.display().to_string(), "repo"],
    );
    let recipe = work.join("hostile.yaml");
    fs::write(
        &recipe,
        format!(
            "name: hostile\nsource:\n  git:\n    repo: repo\n    name: evil\n    \
             subject_regex: '^Fix '\nfiles:\n  code_extensions: [py]\nselect:\n  \
             min_code_hunks: 1\n{}",
            VALIDATE.replace("../cache", &p.cache.display().to_string())
        ),
    )
    .expect("recipe");
    let out = work.join("out");
    let o = build(&p, &recipe, &out);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "the build goes on: {stderr}");
    let (kept, rejected) = rows(&out);
    let by_fix: BTreeMap<&str, &str> = fixes
        .iter()
        .map(|(n, c)| (c.as_str(), n.as_str()))
        .collect();
    // Ids are `evil-<12 hex of the fix commit>` (`instance_id`, or `id` when rejected).
    let case_of = |row: &serde_json::Value| -> String {
        let id = row["instance_id"].as_str().or(row["id"].as_str());
        by_fix
            .iter()
            .find(|(c, _)| id.is_some_and(|id| id.ends_with(&c[..12])))
            .map(|(_, n)| n.to_string())
            .unwrap_or_else(|| format!("unknown row {row}"))
    };
    let kept: BTreeMap<String, &serde_json::Value> = kept.iter().map(|r| (case_of(r), r)).collect();
    let rejected: BTreeMap<String, &serde_json::Value> =
        rejected.iter().map(|r| (case_of(r), r)).collect();
    // Acts that fail inside the sandbox: the test passed after the fix, so each is kept
    // with its f2p test (an act that worked would have failed it: no f2p, rejected).
    for case in [
        "read_home",
        "read_ssh",
        "read_dataset",
        "read_cache",
        "env_tokens",
        "loopback",
        "dns",
        "fork_bomb",
        "disk_fill",
        "daemon",
        "symlink_write",
        "symlink_in_history",
    ] {
        let row = kept.get(case).unwrap_or_else(|| {
            panic!(
                "{case} was not contained: {}",
                rejected
                    .get(case)
                    .map(|r| r.to_string())
                    .unwrap_or_else(|| "no row".into())
            )
        });
        let f2p = row["FAIL_TO_PASS"].to_string();
        assert!(f2p.contains(&format!("test_{case}")), "{case}: {row}");
    }
    // What hunkgen itself refuses: the instance is rejected with one line saying why.
    for (case, why) in [
        (
            "test_name_dotdot",
            "refused: test name `../../escape.py::test_name_dotdot` leaves its directory",
        ),
        (
            "report_link",
            "refused: a symbolic link on the way to the reports",
        ),
    ] {
        let row = rejected
            .get(case)
            .unwrap_or_else(|| panic!("{case} is not rejected: {:?}", kept.get(case)));
        assert_eq!(row["reason"], "infrastructure", "{case}: {row}");
        let detail = row["detail"].as_str().unwrap_or_default();
        assert!(detail.contains(why), "{case}: {detail}");
    }
    assert_eq!(kept.len() + rejected.len(), fixes.len());
    // Nothing got out: no connection, no daemon, no secret in the dataset or its logs,
    // the protected places unchanged, and nothing written where `..` would lead.
    match listener.accept() {
        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
        other => panic!("the loopback listener was reached: {other:?}"),
    }
    assert_eq!(processes_with(&marker), Vec::<String>::new(), "a daemon");
    assert_eq!(files_with_secret(&out), Vec::<PathBuf>::new());
    assert!(!work.join("escape.py").exists() && !p.root.join("escape.py").exists());
    assert!(clone.join("link").is_symlink());
    assert_eq!(p.hash(), before, "a protected place changed");
}

/// A row of a SWE-bench file.
fn row(id: &str, base: &str, patch: &str, test_patch: &str, f2p: &[&str]) -> String {
    serde_json::json!({
        "instance_id": id,
        "repo": "evil/repo",
        "base_commit": base,
        "patch": patch,
        "test_patch": test_patch,
        "problem_statement": "p",
        "FAIL_TO_PASS": f2p,
        "PASS_TO_PASS": [],
    })
    .to_string()
}

#[test]
fn dotdot_in_swebench_rows_and_patches_is_refused_with_one_line() {
    let p = Protected::new();
    let mut s = Script::new();
    s.write("pkg/__init__.py", "");
    s.write(
        "pkg/core.py",
        "def f():\n    return 1\n\n\ndef g():\n    return 1\n",
    );
    s.write("run_tests.py", RUNNER);
    std::os::unix::fs::symlink(&p.etc, s.dir.join("link")).expect("symlink");
    let base = s.commit("Initial import");
    s.write(
        "pkg/core.py",
        "def f():\n    return 2\n\n\ndef g():\n    return 1\n",
    );
    s.write(
        "tests/test_f.py",
        "from pkg import core\n\n\ndef test_f():\n    assert core.f() == 2\n",
    );
    let fix = s.commit("Fix f");
    let diff = |paths: &str| s.git(&["diff", &base, &fix, "--", paths]) + "\n";
    let (patch, test_patch) = (diff("pkg"), diff("tests"));
    let escape = "diff --git a/../escape.py b/../escape.py\nnew file mode 100644\n\
                  --- /dev/null\n+++ b/../escape.py\n@@ -0,0 +1 @@\n+pwned\n";
    let through_link = "diff --git a/link/pwned b/link/pwned\nnew file mode 100644\n\
                        --- /dev/null\n+++ b/link/pwned\n@@ -0,0 +1 @@\n+pwned\n";
    let f2p = ["tests/test_f.py::test_f"];
    let lines = [
        row("evil__repo-1", &base, &patch, &test_patch, &f2p),
        row("../../escape", &base, &patch, &test_patch, &f2p),
        row(
            "evil__repo-3",
            &base,
            &patch,
            &test_patch,
            &["../../escape.py::test_f"],
        ),
        row("evil__repo-4", &base, escape, &test_patch, &f2p),
        row(
            "evil__repo-5",
            &base,
            &patch,
            &(test_patch.clone() + through_link),
            &f2p,
        ),
    ];
    let mut bad_repo: serde_json::Value =
        serde_json::from_str(&row("evil__repo-6", &base, &patch, &test_patch, &f2p)).expect("row");
    bad_repo["repo"] = "evil/../../x".into();
    let work = p.root.join("work");
    let file = work.join("rows.jsonl");
    fs::write(
        &file,
        lines.join("\n") + "\n" + &bad_repo.to_string() + "\n",
    )
    .expect("rows");
    let recipe = work.join("import.yaml");
    fs::write(
        &recipe,
        format!(
            "name: imported\nsource:\n  swebench:\n    instances: rows.jsonl\n    repos:\n      \
             evil/repo: {}\nfiles:\n  code_extensions: [py]\nselect:\n  min_code_hunks: 1\n{}",
            s.dir.display(),
            VALIDATE.replace("../cache", &p.cache.display().to_string())
        ),
    )
    .expect("recipe");
    let before = p.hash();
    let out = work.join("out");
    let o = build(&p, &recipe, &out);
    assert!(
        o.status.success(),
        "the build goes on: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let (kept, rejected) = rows(&out);
    let ids: Vec<&str> = kept
        .iter()
        .filter_map(|r| r["instance_id"].as_str())
        .collect();
    assert_eq!(ids, ["evil__repo-1"], "{rejected:?}");
    let detail = |id: &str| -> String {
        let r = rejected
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id} not rejected: {rejected:?}"));
        r["detail"].as_str().unwrap_or_default().to_string()
    };
    for (id, line) in [
        (
            "rows.jsonl:2",
            "rows.jsonl:2: instance_id `../../escape` leaves its directory (a path separator in an id)",
        ),
        (
            "evil__repo-3",
            "field `FAIL_TO_PASS`: test name `../../escape.py::test_f` leaves its directory (a `..` component)",
        ),
        (
            "evil__repo-4",
            "field `patch`: path `../escape.py` leaves its directory (a `..` component)",
        ),
        (
            "evil__repo-6",
            "field `repo`: repo `evil/../../x` leaves its directory (a `..` component)",
        ),
    ] {
        let d = detail(id);
        assert!(d.ends_with(line) || d.contains(line), "{id}: {d}");
        assert!(!d.contains('\n'), "one line: {d}");
    }
    // The link in the base tree: hunkgen's own write of `link/pwned` into the working
    // copy (before any sandbox) is refused, not made through the link.
    let d = detail("evil__repo-5");
    assert!(
        d.ends_with(
            "test_patch does not apply: link/pwned: refused: `link` is a symbolic link; \
             writing through it would leave the working copy"
        ),
        "{d}"
    );
    assert_eq!(p.hash(), before, "a protected place changed");
    assert!(!work.join("escape.py").exists() && !p.root.join("escape.py").exists());
    assert!(!p.etc.join("pwned").exists());
}

/// A patch (a prediction, a golden patch) applied to a working copy: `..`, absolute
/// paths and symbolic links are refused before anything is read or written, and a link
/// the patch replaces is replaced, not written through.
#[test]
fn a_patch_never_writes_outside_its_working_copy() {
    use hunkgen::validate::apply::{apply_fuzzy, apply_to_dir, DirApplyError};
    let p = Protected::new();
    let before = p.hash();
    let wc = p.root.join("work/copy");
    fs::create_dir_all(&wc).expect("mkdir");
    std::os::unix::fs::symlink(&p.etc, wc.join("dir_link")).expect("symlink");
    std::os::unix::fs::symlink(p.etc.join("passwd"), wc.join("file_link")).expect("symlink");
    let add = |path: &str| {
        format!(
            "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n\
             @@ -0,0 +1 @@\n+pwned\n"
        )
    };
    let refused = |text: &str, why: &str| {
        let patch = hunkgen::diff::parse(text.as_bytes()).expect("parses");
        for result in [
            apply_to_dir(&patch, &wc).map(|_| ()),
            apply_fuzzy(&patch, &wc, None).map(|_| ()),
        ] {
            match result {
                Err(DirApplyError::Unsafe { reason, .. }) => {
                    assert!(reason.contains(why), "{reason}")
                }
                other => panic!("{text}: not refused: {other:?}"),
            }
        }
    };
    refused(&add("../escape.py"), "a `..` component");
    refused(&add("a/../../escape.py"), "a `..` component");
    refused(&add("dir_link/pwned"), "`dir_link` is a symbolic link");
    // Modifying the link `file_link` reads the link's text, never /etc-like/passwd: the
    // hunk's context (the file's first line) is not found.
    let modify = "diff --git a/file_link b/file_link\n--- a/file_link\n+++ b/file_link\n\
                  @@ -1 +1 @@\n-root:x:0:0::/root:/bin/sh\n+pwned\n";
    let patch = hunkgen::diff::parse(modify.as_bytes()).expect("parses");
    assert!(apply_to_dir(&patch, &wc).is_err());
    assert!(apply_fuzzy(&patch, &wc, None).is_err());
    // Replacing the link's text makes a plain file in the working copy.
    let target = p.etc.join("passwd").display().to_string();
    let replace = format!(
        "diff --git a/file_link b/file_link\n--- a/file_link\n+++ b/file_link\n\
         @@ -1 +1 @@\n-{target}\n\\ No newline at end of file\n+pwned\n"
    );
    let patch = hunkgen::diff::parse(replace.as_bytes()).expect("parses");
    apply_to_dir(&patch, &wc).expect("applies to the link's text");
    assert!(!wc.join("file_link").is_symlink());
    assert_eq!(
        fs::read_to_string(wc.join("file_link")).expect("file"),
        "pwned\n"
    );
    assert_eq!(p.hash(), before, "a protected place changed");
    assert!(!p.root.join("escape.py").exists() && !p.root.join("work/escape.py").exists());
}
