//! The GitHub source against a loopback server that answers in GitHub's shapes (written
//! for these tests): pagination, issues and comments, ETag revalidation, rate limits,
//! server errors, bad JSON, bad token, missing repository; a scripted clone supplies
//! the commits. Nothing here reaches the internet.

use crate::common::{hunkgen, Script};
use crate::loopback::{Reply, Seen, Server};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const TOKEN: &str = "ghp_test_token_never_stored";

/// ISO-8601 of the fixture clone's clock (`tick` hours after its epoch).
fn at(tick: i64) -> String {
    hunkgen::dataset::rfc3339(1_700_000_000 + tick * 3600)
}

const LIST: &str = "/repos/acme/widget/pulls?state=closed&sort=updated&direction=desc&per_page=100";

fn calc(a: &str, d: &str) -> String {
    format!(
        "def add(a, b):\n    {a}\n\n\ndef sub(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n\n\ndef neg(a):\n    return -a\n\n\ndef div(a, b):\n    {d}\n"
    )
}

/// The fixture: a clone with a merged pull request branch, and the API's view of four
/// pull requests (1 fixes issues #10 and #11; 2 links nothing; 3 names a head commit the
/// clone lacks; 4 was closed unmerged).
struct Fixture {
    clone: Script,
    server: Server,
    /// The commit the pull request branched from (its merge-base).
    fork: String,
    /// main when the pull request was merged (GitHub's `base.sha`).
    base_tip: String,
    /// The pull request's last commit.
    head: String,
    /// Where the recipe, cache and dataset go.
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let mut clone = Script::new();
        // A package (`__init__.py`): file roles count its modules as code.
        clone.write("widget/__init__.py", "");
        clone.write("widget/calc.py", &calc("return a - b", "return a * b"));
        clone.write("tests/test_calc.py", "def test_sub():\n    pass\n");
        let fork = clone.commit("initial");
        clone.git(&["checkout", "-q", "-b", "fix-1"]);
        clone.write("widget/calc.py", &calc("return a + b", "return a * b"));
        let _first = clone.commit("add adds");
        clone.write("widget/calc.py", &calc("return a + b", "return a / b"));
        clone.write(
            "tests/test_calc.py",
            "def test_sub():\n    pass\n\n\ndef test_add():\n    assert True\n",
        );
        let head =
            clone.commit("div divides\n\nAlso resolves https://github.com/acme/widget/issues/11");
        clone.git(&["checkout", "-q", "main"]);
        clone.write("README.md", "widget\n");
        let base_tip = clone.commit("readme");
        clone.tick += 1;
        clone.git(&[
            "merge",
            "-q",
            "--no-ff",
            "fix-1",
            "-m",
            "Merge pull request #1",
        ]);
        let server = Server::start();
        let f = Fixture {
            clone,
            server,
            fork,
            base_tip,
            head,
            dir: tempfile::tempdir().expect("tempdir"),
        };
        f.serve_all();
        f
    }

    fn pull(&self, n: u64, body: &str, merged: bool, head: &str, updated: i64) -> Value {
        json!({
            "number": n,
            "title": format!("PR {n}"),
            "body": body,
            "state": "closed",
            "created_at": at(2),
            "updated_at": at(updated),
            "merged_at": if merged { Value::from(at(6)) } else { Value::Null },
            "labels": [{"name": "bug"}],
            "base": {"ref": "main", "sha": self.base_tip},
            "head": {"ref": format!("fix-{n}"), "sha": head},
        })
    }

    fn serve_all(&self) {
        let s = &self.server;
        s.route(
            "/repos/acme/widget",
            vec![Reply::json(
                &json!({"full_name": "acme/widget", "default_branch": "main"}),
            )],
        );
        let page2 = format!("{LIST}&page=2");
        s.route(
            LIST,
            vec![Reply::json(&json!([
                self.pull(4, "Fixes #10", false, &self.head, 40),
                self.pull(3, "Closes #12", true, &"d".repeat(40), 30),
            ]))
            .header(
                "link",
                &format!(
                    "<{}{page2}>; rel=\"next\", <{}{page2}>; rel=\"last\"",
                    s.base, s.base
                ),
            )],
        );
        s.route(
            &page2,
            vec![Reply::json(&json!([
                self.pull(2, "Tidy up; fixes #13", true, &self.head, 20),
                self.pull(1, "Fixes #10.", true, &self.head, 10),
            ]))],
        );
        let commits = |msgs: &[(&str, i64)]| {
            Reply::json(&Value::Array(
                msgs.iter()
                    .map(|(m, t)| json!({"sha": "0", "commit": {"message": m, "author": {"date": at(*t)}}}))
                    .collect(),
            ))
        };
        s.route(
            "/repos/acme/widget/pulls/1/commits?per_page=100",
            vec![commits(&[
                ("add adds", 2),
                (
                    "div divides\n\nAlso resolves https://github.com/acme/widget/issues/11",
                    3,
                ),
            ])],
        );
        s.route(
            "/repos/acme/widget/pulls/2/commits?per_page=100",
            vec![commits(&[("tidy", 2)])],
        );
        s.route(
            "/repos/acme/widget/pulls/3/commits?per_page=100",
            vec![commits(&[("fix", 2)])],
        );
        // #13 is a pull request, not an issue: a link to it closes nothing.
        s.route(
            "/repos/acme/widget/issues/13",
            vec![Reply::json(
                &json!({"number": 13, "title": "a PR", "body": "", "pull_request": {"url": "x"}}),
            )],
        );
        for (n, title, body) in [
            (10, "add subtracts", "add(1, 2) gives -1"),
            (11, "div multiplies", "div(4, 2) gives 8"),
            (12, "neg", "neg is wrong"),
        ] {
            s.route(
                &format!("/repos/acme/widget/issues/{n}"),
                vec![Reply::json(&json!({"number": n, "title": title, "body": body, "html_url": format!("https://github.com/acme/widget/issues/{n}")}))],
            );
            s.route(
                &format!("/repos/acme/widget/issues/{n}/comments?per_page=100"),
                vec![Reply::json(&json!([
                    {"body": format!("before {n}"), "created_at": at(1)},
                    {"body": format!("after {n}"), "created_at": at(5)},
                ]))],
            );
        }
    }

    /// A recipe for the clone and the server; `extra` lines go under `source.github`.
    fn recipe(&self, extra: &str) -> PathBuf {
        let path = self.dir.path().join("gh.yaml");
        let text = format!(
            "name: gh\nsource:\n  github:\n    repo: acme/widget\n    clone: {}\n    api: {}\n    cache: cache\n    max_wait: 30\n{extra}files:\n  code_extensions: [py]\nselect:\n  min_code_hunks: 1\nannotate:\n  enabled: false\n",
            self.clone.dir.display(),
            self.server.base
        );
        std::fs::write(&path, text).expect("recipe");
        path
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    fn build(&self, recipe: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
        hunkgen()
            .arg("build")
            .arg(recipe)
            .arg("-o")
            .arg(self.out())
            .args(["--quiet", "--force"])
            .args(args)
            .env("GITHUB_TOKEN", TOKEN)
            .env("HUNKGEN_CACHE_DIR", self.dir.path().join("unused-cache"))
            .assert()
    }

    fn rows(&self, file: &str) -> Vec<Value> {
        std::fs::read_to_string(self.out().join(file))
            .expect("jsonl")
            .lines()
            .map(|l| serde_json::from_str(l).expect("row"))
            .collect()
    }
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn merged_pull_requests_become_instances_with_issue_text_hints_and_merge_base() {
    let f = Fixture::new();
    let recipe = f.recipe("");
    let a = f.build(&recipe, &[]).success();
    let rows = f.rows("instances.jsonl");
    assert_eq!(rows.len(), 1, "{rows:?}");
    let i = &rows[0];
    assert_eq!(i["instance_id"], "acme__widget-1");
    assert_eq!(i["repo"], "acme/widget");
    assert_eq!(i["source"], "github");
    assert_eq!(
        i["problem_statement"],
        "add subtracts\nadd(1, 2) gives -1\ndiv multiplies\ndiv(4, 2) gives 8\n"
    );
    // Comments before the pull request's first commit only, issue by issue.
    assert_eq!(i["hints_text"], "before 10\nbefore 11");
    assert_eq!(i["created_at"], at(2));
    // The merge-base of the head with main as merged into, not main's tip.
    assert_eq!(i["base_commit"], f.fork.as_str());
    assert_ne!(f.fork, f.base_tip);
    assert_eq!(i["fix_commit"], f.head.as_str());
    // Patches are the clone's own `git diff fork head`, split into code and tests.
    let code = f.clone.git(&["diff", &f.fork, &f.head, "--", "widget"]);
    let tests = f.clone.git(&["diff", &f.fork, &f.head, "--", "tests"]);
    assert_eq!(i["patch"].as_str().map(str::trim), Some(code.as_str()));
    assert_eq!(
        i["test_patch"].as_str().map(str::trim),
        Some(tests.as_str())
    );
    assert_eq!(i["stats"]["hunks"], 2);
    assert_eq!(i["report"]["id"], "#10");
    // The rejections, each with its stable reason.
    let rejected = f.rows("rejected.jsonl");
    let by_id: BTreeMap<&str, &Value> = rejected
        .iter()
        .map(|r| (r["id"].as_str().expect("id"), r))
        .collect();
    assert_eq!(by_id.len(), 2, "{rejected:?}");
    assert_eq!(by_id["acme__widget-2"]["reason"], "no_linked_issue");
    assert_eq!(
        by_id["acme__widget-2"]["detail"],
        "pull request #2 links #13 but none is an issue of acme/widget"
    );
    let missing = &by_id["acme__widget-3"];
    assert_eq!(missing["reason"], "git_objects");
    let detail = missing["detail"].as_str().expect("detail");
    assert!(detail.contains(&"d".repeat(40)), "{detail}");
    assert!(
        detail.contains("git fetch origin '+refs/pull/*/head:refs/remotes/origin/pr/*'"),
        "{detail}"
    );
    assert!(stderr(&a).contains("2 item(s) rejected"), "{}", stderr(&a));
    // Both listing pages were read; the token was sent, and stored nowhere.
    let log = f.server.log();
    assert!(log.iter().any(|s| s.path.ends_with("&page=2")));
    assert!(log.iter().all(|s| s.if_none_match.is_none()), "{log:?}");
    assert!(log.iter().all(|s| s
        .authorization
        .as_deref()
        .is_some_and(|a| a.contains(TOKEN))));
    for file in files_under(f.dir.path()) {
        let bytes = std::fs::read(&file).expect("read");
        assert!(
            !String::from_utf8_lossy(&bytes).contains(TOKEN),
            "token leaked into {}",
            file.display()
        );
    }

    // A re-run revalidates every response: all 304, no quota spent, same dataset.
    let first = std::fs::read(f.out().join("instances.jsonl")).expect("instances");
    let charged = f.server.charged();
    let sent = log.len();
    assert!(
        stderr(&a).contains(&format!(
            "note: GitHub API: {sent} request(s) sent, 0 answered 304 Not Modified"
        )),
        "{}",
        stderr(&a)
    );
    let again = f.build(&recipe, &[]).success();
    // The traffic is told: every request revalidated, none charged.
    assert!(
        stderr(&again).contains(&format!(
            "note: GitHub API: {sent} request(s) sent, {sent} answered 304 Not Modified (no quota spent), 0 answered from the cache offline"
        )),
        "{}",
        stderr(&again)
    );
    let log = f.server.log();
    let rerun = &log[sent..];
    assert_eq!(rerun.len(), sent, "the same requests again");
    assert!(
        rerun
            .iter()
            .all(|s| s.status == 304 && s.if_none_match.is_some()),
        "{rerun:?}"
    );
    assert_eq!(f.server.charged(), charged, "a 304 costs no quota");
    assert_eq!(
        std::fs::read(f.out().join("instances.jsonl")).expect("instances"),
        first
    );

    // Offline: nothing is sent, the cache answers, the dataset is the same.
    let offline = f.build(&recipe, &["--offline"]).success();
    assert!(
        stderr(&offline).contains(&format!(
            "note: GitHub API: 0 request(s) sent, 0 answered 304 Not Modified (no quota spent), {sent} answered from the cache offline"
        )),
        "{}",
        stderr(&offline)
    );
    assert_eq!(f.server.log().len(), log.len(), "offline sends nothing");
    assert_eq!(
        std::fs::read(f.out().join("instances.jsonl")).expect("instances"),
        first
    );
}

#[test]
fn offline_without_a_cached_answer_is_a_clear_error() {
    let f = Fixture::new();
    let a = f.build(&f.recipe(""), &["--offline"]).failure();
    let err = stderr(&a);
    assert!(
        err.contains("/repos/acme/widget: not in the cache and --offline was given"),
        "{err}"
    );
    assert!(f.server.log().is_empty());
}

#[test]
fn filters_since_until_labels_and_unlinked_statement() {
    let f = Fixture::new();
    // Merged at tick 6: `until` before it keeps nothing; `since` after it stops the
    // listing on the first page (updated before `since`).
    f.build(&f.recipe(&format!("    until: {}\n", at(5))), &[])
        .success();
    assert!(f.rows("instances.jsonl").is_empty());
    f.build(&f.recipe(&format!("    since: {}\n", at(50))), &[])
        .success();
    assert!(f.rows("instances.jsonl").is_empty());
    assert!(!f
        .server
        .log()
        .iter()
        .any(|s| s.path.ends_with("&page=2") && s.if_none_match.is_some()));
    f.build(&f.recipe("    labels: [enhancement]\n"), &[])
        .success();
    assert!(f.rows("instances.jsonl").is_empty());
    // Unlinked pull requests allowed: #2 keeps its own title and body.
    f.build(
        &f.recipe("    labels: [Bug]\n    allow_unlinked: true\n"),
        &[],
    )
    .success();
    let rows = f.rows("instances.jsonl");
    let two = rows
        .iter()
        .find(|r| r["instance_id"] == "acme__widget-2")
        .expect("PR 2 kept");
    assert_eq!(two["problem_statement"], "PR 2\nTidy up; fixes #13\n");
    assert_eq!(two["hints_text"], "");
}

#[test]
fn bad_token_and_missing_repository_are_one_line_errors() {
    let f = Fixture::new();
    f.server.route(
        "/repos/acme/widget",
        vec![Reply::status(401, "Bad credentials")],
    );
    let a = f.build(&f.recipe(""), &[]).failure();
    let err = stderr(&a);
    assert!(err.contains("401 Bad credentials"), "{err}");
    assert!(err.contains("GITHUB_TOKEN was refused"), "{err}");
    assert!(!err.contains(TOKEN), "{err}");
    assert!(!f.out().join("instances.jsonl").exists());

    // Anonymous: no Authorization header, and the hint says how to authenticate.
    let sent = f.server.log().len();
    let a = hunkgen()
        .arg("build")
        .arg(f.recipe(""))
        .arg("-o")
        .arg(f.out())
        .env_remove("GITHUB_TOKEN")
        .assert()
        .failure();
    let err = stderr(&a);
    assert!(
        err.contains("this request needs authentication; set GITHUB_TOKEN"),
        "{err}"
    );
    assert!(f.server.log()[sent..]
        .iter()
        .all(|s| s.authorization.is_none()));

    f.server
        .route("/repos/acme/widget", vec![Reply::status(404, "Not Found")]);
    let a = f.build(&f.recipe(""), &[]).failure();
    let err = stderr(&a);
    assert!(
        err.contains("acme/widget: no such repository on GitHub"),
        "{err}"
    );
}

#[test]
fn exhausted_rate_limit_stops_keeps_what_was_built_and_resumes_from_the_cache() {
    let f = Fixture::new();
    let reset = 4_000_000_000i64; // far beyond the recipe's 30 s cap
    f.server.route(
        "/repos/acme/widget/issues/12",
        vec![
            Reply::status(403, "API rate limit exceeded")
                .header("x-ratelimit-remaining", "0")
                .header("x-ratelimit-reset", &reset.to_string()),
            Reply::json(&json!({"number": 12, "title": "neg", "body": "neg is wrong"})),
        ],
    );
    let recipe = f.recipe("");
    let a = f.build(&recipe, &[]).success();
    let err = stderr(&a);
    let reset_at = hunkgen::dataset::rfc3339(reset);
    assert!(
        err.contains(&format!(
            "rate limit exhausted after 2 of 3 pull requests; it resets at {reset_at}"
        )),
        "{err}"
    );
    // What was built before the stop is kept.
    let rows = f.rows("instances.jsonl");
    assert_eq!(rows.len(), 1);
    assert_eq!(
        f.rows("rejected.jsonl").len(),
        1,
        "PR 2; PR 3 was not reached"
    );
    // After the reset: the run goes on; what was fetched is revalidated for free.
    let sent = f.server.log().len();
    f.build(&recipe, &[]).success();
    let rerun: Vec<Seen> = f.server.log()[sent..].to_vec();
    assert_eq!(f.rows("rejected.jsonl").len(), 2);
    let fresh: Vec<&str> = rerun
        .iter()
        .filter(|s| s.status != 304)
        .map(|s| s.path.as_str())
        .collect();
    assert_eq!(
        fresh,
        vec![
            "/repos/acme/widget/issues/12",
            "/repos/acme/widget/issues/12/comments?per_page=100"
        ]
    );
}

#[test]
fn short_limits_and_server_errors_are_waited_out() {
    let f = Fixture::new();
    let soon = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs()
        + 1;
    f.server.route(
        "/repos/acme/widget/issues/10",
        vec![
            Reply::status(403, "API rate limit exceeded")
                .header("x-ratelimit-remaining", "0")
                .header("x-ratelimit-reset", &soon.to_string()),
            Reply::status(429, "secondary rate limit").header("retry-after", "1"),
            Reply::status(500, "boom"),
            Reply::json(
                &json!({"number": 10, "title": "add subtracts", "body": "add(1, 2) gives -1"}),
            ),
        ],
    );
    let started = std::time::Instant::now();
    f.build(&f.recipe(""), &[]).success();
    assert!(started.elapsed() >= std::time::Duration::from_secs(3));
    let rows = f.rows("instances.jsonl");
    assert_eq!(rows.len(), 1);
    assert!(rows[0]["problem_statement"]
        .as_str()
        .is_some_and(|s| s.starts_with("add subtracts\n")));
    let tries: Vec<u16> = f
        .server
        .log()
        .iter()
        .filter(|s| s.path == "/repos/acme/widget/issues/10")
        .map(|s| s.status)
        .collect();
    assert_eq!(tries, vec![403, 429, 500, 200]);
}

#[test]
fn malformed_json_rejects_one_pull_request_or_stops_a_listing() {
    let f = Fixture::new();
    f.server.route(
        "/repos/acme/widget/pulls/2/commits?per_page=100",
        vec![Reply {
            status: 200,
            headers: Vec::new(),
            body: "[{\"sha\": ".into(),
        }],
    );
    f.build(&f.recipe(""), &[]).success();
    let rejected = f.rows("rejected.jsonl");
    let two = rejected
        .iter()
        .find(|r| r["id"] == "acme__widget-2")
        .expect("PR 2 rejected");
    assert_eq!(two["reason"], "metadata");
    let detail = two["detail"].as_str().expect("detail");
    assert!(
        detail.contains("/pulls/2/commits?per_page=100: malformed JSON"),
        "{detail}"
    );
    assert_eq!(f.rows("instances.jsonl").len(), 1);

    f.server.route(
        LIST,
        vec![Reply {
            status: 200,
            headers: Vec::new(),
            body: "{\"oops\": 1}".into(),
        }],
    );
    let a = f.build(&f.recipe(""), &[]).failure();
    let err = stderr(&a);
    assert!(
        err.contains(&format!("{}{LIST}: malformed JSON", f.server.base)),
        "{err}"
    );
}

#[test]
fn recipe_errors_name_the_key() {
    let f = Fixture::new();
    for (extra, key, what) in [
        (
            "    since: last week\n",
            "source.github.since",
            "YYYY-MM-DD",
        ),
        (
            "    max_pulls: 0\n",
            "source.github.max_pulls",
            "at least 1",
        ),
    ] {
        let a = hunkgen()
            .arg("build")
            .arg(f.recipe(extra))
            .assert()
            .failure();
        let err = stderr(&a);
        assert!(
            err.contains(&format!("`{key}`")) && err.contains(what),
            "{err}"
        );
        assert!(err.contains("gh.yaml:"), "{err}");
    }
    let path = f.dir.path().join("bad.yaml");
    std::fs::write(
        &path,
        "name: gh\nsource:\n  github:\n    repo: widget\n    clone: nowhere\n",
    )
    .expect("recipe");
    let a = hunkgen().arg("build").arg(&path).assert().failure();
    let err = stderr(&a);
    assert!(
        err.contains("`source.github.repo`: expected `owner/name`"),
        "{err}"
    );
}

/// Serve one merged pull request `n` from `head` that closes issue `issue`.
fn serve_pull(f: &Fixture, n: u64, head: &str, issue: u64) -> Value {
    let s = &f.server;
    s.route(
        &format!("/repos/acme/widget/pulls/{n}/commits?per_page=100"),
        vec![Reply::json(
            &json!([{"sha": head, "commit": {"message": format!("fix {n}"), "author": {"date": at(3)}}}]),
        )],
    );
    s.route(
        &format!("/repos/acme/widget/issues/{issue}"),
        vec![Reply::json(
            &json!({"number": issue, "title": format!("issue {issue}"), "body": "broken", "html_url": "x"}),
        )],
    );
    s.route(
        &format!("/repos/acme/widget/issues/{issue}/comments?per_page=100"),
        vec![Reply::json(&json!([]))],
    );
    f.pull(n, &format!("Fixes #{issue}"), true, head, 100 - n as i64)
}

#[test]
fn pull_requests_count_hunks_with_the_git_sources_roles_and_hunk_rules() {
    let mut f = Fixture::new();
    // PR 5: two code hunks (add, div), a comment-only hunk (mul), a doc page, a module
    // with a generated header, and a test.
    f.clone.git(&["checkout", "-q", "-b", "fix-5", &f.fork]);
    let code = calc("return a + b", "return a / b")
        .replace("    return a * b\n", "    return a * b  # the product\n");
    f.clone.write("widget/calc.py", &code);
    f.clone.write("docs/guide.md", "# Guide\n\nadd adds.\n");
    f.clone.write(
        "widget/_table.py",
        "# @generated by tablegen; DO NOT EDIT\nTABLE = [1, 2]\n",
    );
    f.clone.write(
        "tests/test_calc.py",
        "def test_sub():\n    pass\n\n\ndef test_add():\n    assert True\n",
    );
    let head5 = f.clone.commit("fix add and div");
    // PR 6: the code changes only in layout and comments: formatting-only.
    f.clone.git(&["checkout", "-q", "-b", "fix-6", &f.fork]);
    let spaced = calc("return a - b", "return a * b")
        .replace("    return a * b\n", "    return a * b  # product\n")
        .replace("    return -a\n", "    return  -a\n");
    f.clone.write("widget/calc.py", &spaced);
    f.clone.write(
        "tests/test_calc.py",
        "def test_sub():\n    pass\n\n\ndef test_mul():\n    assert True\n",
    );
    let head6 = f.clone.commit("tidy");
    f.clone.git(&["checkout", "-q", "main"]);
    let five = serve_pull(&f, 5, &head5, 15);
    let six = serve_pull(&f, 6, &head6, 16);
    f.server.route(LIST, vec![Reply::json(&json!([five, six]))]);

    let built = f.build(&f.recipe(""), &[]).success();
    // Two pull requests listed, one rejected, one kept: every one accounted for.
    let said = String::from_utf8_lossy(&built.get_output().stdout).into_owned();
    assert!(
        said.contains("; 2 walked, 1 examined, 0 with fewer than 1 counted hunks, 1 rejected"),
        "{said}"
    );
    let rows = f.rows("instances.jsonl");
    assert_eq!(rows.len(), 1, "{rows:?}");
    let i = &rows[0];
    assert_eq!(i["instance_id"], "acme__widget-5");
    let patch = i["patch"].as_str().expect("patch");
    // Every non-test file is in `patch`, as for a commit of the history.
    for file in ["widget/calc.py", "docs/guide.md", "widget/_table.py"] {
        assert!(
            patch.contains(&format!("+++ b/{file}\n")),
            "{file} not in patch"
        );
    }
    let reasons: Vec<(String, Option<String>)> = i["hunks"]
        .as_array()
        .expect("hunks")
        .iter()
        .map(|h| {
            (
                h["file"].as_str().unwrap_or_default().to_string(),
                h["skip_reason"].as_str().map(String::from),
            )
        })
        .collect();
    let of = |file: &str| -> Vec<Option<&str>> {
        reasons
            .iter()
            .filter(|(f, _)| f == file)
            .map(|(_, r)| r.as_deref())
            .collect()
    };
    assert_eq!(of("widget/calc.py"), [None, Some("comment_only"), None]);
    assert_eq!(of("docs/guide.md"), [Some("not_code")]);
    assert_eq!(of("widget/_table.py"), [Some("generated")]);
    assert_eq!(i["stats"]["hunks"], 2);
    // patch + test_patch on the merge-base give the head's tree.
    let work = tempfile::tempdir().expect("tempdir");
    let wt = work.path().join("wt");
    f.clone.git(&[
        "worktree",
        "add",
        "-q",
        "--detach",
        wt.to_str().expect("utf-8"),
        &f.fork,
    ]);
    for (name, text) in [
        ("p.diff", patch),
        ("t.diff", i["test_patch"].as_str().expect("t")),
    ] {
        let file = work.path().join(name);
        std::fs::write(&file, text).expect("write patch");
        crate::common::git(&wt, &["apply", file.to_str().expect("utf-8")]);
    }
    crate::common::git(&wt, &["add", "-A"]);
    let tree = crate::common::git(&wt, &["write-tree"]);
    let head_tree = f.clone.git(&["rev-parse", &format!("{head5}^{{tree}}")]);
    assert_eq!(String::from_utf8_lossy(&tree).trim(), head_tree.trim());

    let rejected = f.rows("rejected.jsonl");
    let six = rejected
        .iter()
        .find(|r| r["id"] == "acme__widget-6")
        .expect("PR 6 rejected");
    assert_eq!(six["reason"], "formatting_only", "{six}");
    assert!(six["detail"].as_str().is_some_and(|d| d
        .starts_with("pull request #6: formatting-only")
        && d.contains("widget/calc.py")));

    // The same switches as the git source turn the rules off: PR 6 is then kept.
    let off = f.dir.path().join("off.yaml");
    let text = std::fs::read_to_string(f.recipe("")).expect("recipe").replace(
        "select:\n  min_code_hunks: 1\n",
        "select:\n  min_code_hunks: 1\n  skip_comment_only_hunks: false\n  skip_whitespace_only_hunks: false\n  reject_formatting_only: false\n",
    );
    std::fs::write(&off, text).expect("recipe");
    f.build(&off, &[]).success();
    let ids: Vec<String> = f
        .rows("instances.jsonl")
        .iter()
        .map(|r| r["instance_id"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(ids, ["acme__widget-5", "acme__widget-6"]);
}

#[test]
fn pull_requests_get_repository_states_from_the_clone() {
    let f = Fixture::new();
    let recipe = f.recipe("");
    // Annotated as the git source annotates (module packages), with states.
    let text = std::fs::read_to_string(&recipe)
        .expect("recipe")
        .replace("annotate:\n  enabled: false\n", "")
        + "states:\n  kinds: [novel, resolved]\n  scenarios: [best, worst]\n";
    std::fs::write(&recipe, text).expect("recipe");
    f.build(&recipe, &[]).success();
    let rows = f.rows("instances.jsonl");
    assert_eq!(rows.len(), 1, "{rows:?}");
    let d = &rows[0]["divergence"];
    assert!(d["value"].as_f64().is_some(), "annotated: {d}");
    assert_eq!(rows[0]["hunks"][0]["place"]["declared_package"], "widget");
    assert_eq!(rows[0]["proximity"]["class"], "Cluster");
    let written: Vec<&str> = rows[0]["states"]["written"]
        .as_array()
        .expect("states written")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        written,
        [
            "novel-best",
            "novel-worst",
            "resolved-best",
            "resolved-worst"
        ]
    );
    let state = |name: &str| {
        f.out()
            .join("states/acme__widget-1")
            .join(name)
            .join("repo")
    };
    let tree = |dir: &Path| {
        crate::common::git(dir, &["add", "-A"]);
        String::from_utf8_lossy(&crate::common::git(dir, &["write-tree"]))
            .trim()
            .to_string()
    };
    let tree_of = |rev: &str| f.clone.git(&["rev-parse", &format!("{rev}^{{tree}}")]);
    let show = |rev: &str, path: &str| {
        String::from_utf8_lossy(&f.clone.git_bytes(&["show", &format!("{rev}:{path}")]))
            .into_owned()
    };
    // Novel is the merge-base; its history ends there (the pull request's commits and
    // main's later commits are absent); Resolved is the pull request's head.
    let novel = state("novel-best");
    assert_eq!(tree(&novel), tree_of(&f.fork).trim());
    let log =
        String::from_utf8_lossy(&crate::common::git(&novel, &["log", "--format=%H"])).into_owned();
    assert_eq!(log.trim(), f.fork);
    // Resolved: the pull request's code, the tests as they were (states carry the test
    // patch only with `with_tests`).
    let resolved = state("resolved-best");
    let read = |p: &str| std::fs::read_to_string(resolved.join(p)).expect("state file");
    assert_eq!(read("widget/calc.py"), show(&f.head, "widget/calc.py"));
    assert_eq!(
        read("tests/test_calc.py"),
        show(&f.fork, "tests/test_calc.py")
    );
    let subject = crate::common::git(&state("resolved-best"), &["log", "-1", "--format=%s"]);
    assert_eq!(String::from_utf8_lossy(&subject).trim(), "div divides");
    // Worst: the files alone, no history.
    let worst = state("novel-worst");
    assert!(!worst.join(".git").exists());
    assert_eq!(
        std::fs::read_to_string(worst.join("widget/calc.py")).expect("state file"),
        show(&f.fork, "widget/calc.py")
    );
}

/// A git history whose fix commits reference GitHub issues, and the server's labels for
/// them: #20 `enhancement`, #21 `Type: Bug`, #22 gone (404), #24 `help wanted` (neither
/// list); `other/repo#20` is another repository's. Returns the clone and each commit's
/// id by subject.
fn labelled_history(server: &Server) -> (Script, BTreeMap<&'static str, String>) {
    let mut s = Script::new();
    s.write("widget/__init__.py", "");
    s.write("widget/calc.py", &calc("return a - b", "return a * b"));
    s.write("tests/test_calc.py", "def test_sub():\n    pass\n");
    s.commit("initial");
    let mut ids = BTreeMap::new();
    for (i, msg) in [
        "Fix add and div (#20)",
        "Fix add and div again\n\nFixes #21, see #20.",
        "Fix div and add, closes GH-22",
        "Fix add and div once more",
        "Fix add and div like other/repo#20",
        // Subjects whose fix word only closes an issue: the label decides.
        "Fix #21: Save the hash",
        "Fix #24: Add an option",
        "Fix #20: Support pickling",
    ]
    .into_iter()
    .enumerate()
    {
        s.write(
            "widget/calc.py",
            &calc(
                &format!("return a + b + {i}"),
                &format!("return a / b + {i}"),
            ),
        );
        s.write(
            &format!("tests/test_{i}.py"),
            "def test_it():\n    assert True\n",
        );
        let id = s.commit(msg);
        ids.insert(msg.lines().next().unwrap_or(""), id);
    }
    for (n, labels) in [
        (
            20,
            json!([{"name": "enhancement"}, {"name": "good first issue"}]),
        ),
        (21, json!([{"name": "Type: Bug"}])),
        (24, json!([{"name": "help wanted"}])),
    ] {
        server.route(
            &format!("/repos/acme/widget/issues/{n}"),
            vec![Reply::json(&json!({"number": n, "labels": labels}))],
        );
    }
    (s, ids)
}

fn label_recipe(dir: &Path, clone: &Path, url: &str, labels: &str) -> PathBuf {
    let path = dir.join("labels.yaml");
    let text = format!(
        "name: labels\nsource:\n  git:\n    repo: {}\n    url: {url}\n{labels}files:\n  code_extensions: [py]\nannotate:\n  enabled: false\n",
        clone.display()
    );
    std::fs::write(&path, text).expect("recipe");
    path
}

/// The label rule against `server` (its cache in `dir/cache`), for `acme/widget` on GitHub.
fn server_label_recipe(dir: &Path, clone: &Path, server: &Server, max_wait: u64) -> PathBuf {
    let rule = format!(
        "    issue_labels:\n      api: {}\n      cache: cache\n      max_wait: {max_wait}\n",
        server.base
    );
    label_recipe(dir, clone, "https://github.com/acme/widget", &rule)
}

/// `hunkgen build recipe -o dir/out` with a token, quietly, replacing what is there.
fn label_build(dir: &Path, recipe: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    hunkgen()
        .arg("build")
        .arg(recipe)
        .arg("-o")
        .arg(dir.join("out"))
        .args(["--quiet", "--force"])
        .args(args)
        .env("GITHUB_TOKEN", TOKEN)
        .env("HUNKGEN_CACHE_DIR", dir.join("unused-cache"))
        .assert()
}

#[test]
fn issue_labels_reject_a_commit_whose_issues_are_labelled_other_than_a_bug() {
    let server = Server::start();
    let (clone, ids) = labelled_history(&server);
    let dir = tempfile::tempdir().expect("tempdir");
    let recipe = server_label_recipe(dir.path(), &clone.dir, &server, 30);
    let out = dir.path().join("out");
    let build = |args: &[&str]| label_build(dir.path(), &recipe, args);
    let rows = |file: &str| -> Vec<Value> {
        std::fs::read_to_string(out.join(file))
            .expect("jsonl")
            .lines()
            .map(|l| serde_json::from_str(l).expect("row"))
            .collect()
    };
    let id = |subject: &str| format!("acme__widget-{}", &ids[subject][..12]);
    let a = build(&[]).success();
    let kept: Vec<String> = rows("instances.jsonl")
        .iter()
        .map(|r| r["instance_id"].as_str().expect("id").to_string())
        .collect();
    let mut want = vec![
        // #21 is a bug: kept although #20 beside it is not.
        id("Fix add and div again"),
        // #22 is gone: no evidence.
        id("Fix div and add, closes GH-22"),
        // No reference at all.
        id("Fix add and div once more"),
        // Another repository's #20 is not this one's.
        id("Fix add and div like other/repo#20"),
        // `Fix #21:` says no more than that #21 is closed; #21 is labelled a bug.
        id("Fix #21: Save the hash"),
    ];
    want.sort();
    let mut kept_sorted = kept.clone();
    kept_sorted.sort();
    assert_eq!(kept_sorted, want);
    let rejected: BTreeMap<String, (String, String)> = rows("rejected.jsonl")
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().expect("field").to_string();
            (s("id"), (s("reason"), s("detail")))
        })
        .collect();
    let enhancement = (
        "issue_label_not_fix".to_string(),
        "#20 is labelled `enhancement`, and no referenced issue is labelled a bug".to_string(),
    );
    assert_eq!(
        rejected,
        BTreeMap::from([
            (id("Fix add and div (#20)"), enhancement.clone()),
            (id("Fix #20: Support pickling"), enhancement),
            (
                id("Fix #24: Add an option"),
                (
                    "closing_keyword_only".to_string(),
                    "the subject's fix word only closes an issue (`Fix #24`), which may be a bug or a feature: `Fix #24: Add an option`; no referenced issue is labelled a bug or otherwise".to_string()
                )
            ),
        ])
    );
    // The rule has its own count in the funnel, and the kept count follows.
    let card: Value =
        serde_norway::from_str(&std::fs::read_to_string(out.join("dataset.yaml")).expect("card"))
            .expect("card yaml");
    let funnel = &card["counts"]["funnel"];
    assert_eq!(funnel["rejected"]["issue_label_not_fix"], 2, "{funnel}");
    assert_eq!(funnel["rejected"]["closing_keyword_only"], 1, "{funnel}");
    assert_eq!(funnel["kept"], 5, "{funnel}");
    // Each of this repository's issues asked once, another repository's never.
    let mut asked: Vec<String> = server.log().iter().map(|s| s.path.clone()).collect();
    asked.sort();
    assert_eq!(
        asked,
        [
            "/repos/acme/widget/issues/20",
            "/repos/acme/widget/issues/21",
            "/repos/acme/widget/issues/22",
            "/repos/acme/widget/issues/24"
        ]
    );
    assert!(
        stderr(&a).contains("note: GitHub API: 4 request(s) sent"),
        "{}",
        stderr(&a)
    );
    let first = std::fs::read(out.join("instances.jsonl")).expect("instances");
    let sent = server.log().len();
    // Offline, the cache answers (#22's 404 included) and the dataset is the same.
    let offline = build(&["--offline"]).success();
    assert!(
        stderr(&offline).contains("0 request(s) sent, 0 answered 304 Not Modified (no quota spent), 4 answered from the cache offline"),
        "{}",
        stderr(&offline)
    );
    assert_eq!(
        std::fs::read(out.join("instances.jsonl")).expect("instances"),
        first
    );
    assert_eq!(server.log().len(), sent, "offline sends nothing");
    // Online again, every answer revalidates (304s cost no quota); the same dataset.
    let charged = server.charged();
    build(&[]).success();
    assert_eq!(
        server.charged(),
        charged + 1,
        "only the uncached 404 is charged"
    );
    assert_eq!(
        std::fs::read(out.join("instances.jsonl")).expect("instances"),
        first
    );
}

#[test]
fn issue_labels_need_the_repository_on_github_and_say_so_in_one_line() {
    let server = Server::start();
    let (clone, _) = labelled_history(&server);
    let dir = tempfile::tempdir().expect("tempdir");
    for (url, labels, want) in [
        (
            "https://gitlab.com/acme/widget",
            "    issue_labels: {}\n",
            "`source.git.issue_labels`: `https://gitlab.com/acme/widget` is not on GitHub",
        ),
        (
            "https://github.com/acme/widget",
            "    issue_labels:\n      fix: [bug]\n      not_fix: [Bug, enhancement]\n",
            "`source.git.issue_labels`: `bug` is in both `fix` and `not_fix`",
        ),
        (
            "https://github.com/acme/widget",
            "    issue_labels:\n      api: not a url\n",
            "`source.git.issue_labels.api`: expected an http(s) URL, got `not a url`",
        ),
    ] {
        let recipe = label_recipe(dir.path(), &clone.dir, url, labels);
        let a = hunkgen()
            .arg("build")
            .arg(&recipe)
            .arg("-o")
            .arg(dir.path().join("out"))
            .arg("--quiet")
            .assert()
            .failure();
        let err = stderr(&a);
        assert!(err.contains(want), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    // Offline with nothing cached: the rule says which request it could not answer.
    let recipe = server_label_recipe(dir.path(), &clone.dir, &server, 30);
    let a = label_build(dir.path(), &recipe, &["--offline"]).failure();
    let err = stderr(&a);
    assert!(
        err.contains("source.git.issue_labels: ")
            && err.contains("/repos/acme/widget/issues/2")
            && err.contains("not in the cache and --offline was given"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(server.log().is_empty(), "a bad recipe asks nothing");
}

#[test]
fn issue_labels_past_the_rate_limit_keep_the_rest_unchecked_and_say_so() {
    let server = Server::start();
    let (clone, ids) = labelled_history(&server);
    let reset = 4_000_000_000i64; // far beyond the recipe's cap
    server.route(
        "/repos/acme/widget/issues/20",
        vec![
            Reply::status(403, "API rate limit exceeded")
                .header("x-ratelimit-remaining", "0")
                .header("x-ratelimit-reset", &reset.to_string()),
            Reply::json(&json!({"number": 20, "labels": [{"name": "enhancement"}]})),
        ],
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let recipe = server_label_recipe(dir.path(), &clone.dir, &server, 0);
    let out = dir.path().join("out");
    let build = || label_build(dir.path(), &recipe, &[]).success();
    let a = build();
    let err = stderr(&a);
    let reset_at = hunkgen::dataset::rfc3339(reset);
    assert!(
        err.contains("GitHub rate limit exhausted after looking up the issue labels of")
            && err.contains(&format!("of 8 candidates; it resets at {reset_at}"))
            && err.contains("are kept unchecked"),
        "{err}"
    );
    let count = |file: &str| {
        std::fs::read_to_string(out.join(file))
            .expect("jsonl")
            .lines()
            .count()
    };
    // Unchecked, nothing is rejected for its labels; the closing-keyword rule stands
    // as it does without labels.
    assert_eq!(count("instances.jsonl"), 5);
    let rejected = std::fs::read_to_string(out.join("rejected.jsonl")).expect("rejected");
    assert_eq!(
        rejected.matches("\"closing_keyword_only\"").count(),
        3,
        "{rejected}"
    );
    assert!(!rejected.contains("issue_label_not_fix"), "{rejected}");
    // After the reset, the lookups go on and the rule applies.
    build();
    assert_eq!(count("instances.jsonl"), 5);
    let rejected = std::fs::read_to_string(out.join("rejected.jsonl")).expect("rejected");
    assert!(
        rejected.contains(&format!(
            "acme__widget-{}",
            &ids["Fix add and div (#20)"][..12]
        )) && rejected.contains("issue_label_not_fix"),
        "{rejected}"
    );
}
