//! The git source's `issue_types` rule against a loopback server that answers in JIRA's
//! REST shapes (`/rest/api/2/issue/KEY?fields=issuetype`): Bug, Improvement, New
//! Feature, a type in neither list, 404s, a 429 with `Retry-After`, malformed JSON; a
//! scripted history supplies the commits. Nothing here reaches the internet.

use crate::common::{hunkgen, Script};
use crate::loopback::{Reply, Server};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const TOKEN: &str = "jira_test_token_never_stored";

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

/// Two functions far apart, so each change is two code hunks.
fn calc(a: &str, d: &str) -> String {
    format!(
        "def add(a, b):\n    {a}\n\n\ndef sub(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n\n\ndef neg(a):\n    return -a\n\n\ndef div(a, b):\n    {d}\n"
    )
}

fn issue(key: &str, kind: &str) -> Reply {
    Reply::json(&json!({
        "id": "10001",
        "self": format!("https://jira.example/rest/api/2/issue/{key}"),
        "key": key,
        "fields": {"issuetype": {"name": kind, "subtask": false, "id": "1"}}
    }))
}

fn not_found() -> Reply {
    Reply {
        status: 404,
        headers: Vec::new(),
        body: json!({"errorMessages": ["Issue Does Not Exist"], "errors": {}}).to_string(),
    }
}

fn path(key: &str) -> String {
    format!("/rest/api/2/issue/{key}?fields=issuetype")
}

/// A history of JIRA-keyed commits, each changing two code hunks and a test; returns
/// the clone and each commit's id by subject.
fn keyed_history() -> (Script, BTreeMap<&'static str, String>) {
    let mut s = Script::new();
    s.write("widget/__init__.py", "");
    s.write("widget/calc.py", &calc("return a - b", "return a * b"));
    s.write("tests/test_calc.py", "def test_sub():\n    pass\n");
    s.commit("initial");
    let mut ids = BTreeMap::new();
    for (i, msg) in [
        // No fix word: selected for its key; LANG-1 is a Bug.
        "LANG-1: Correct add and div",
        // No fix word; LANG-2 is an Improvement.
        "LANG-2: Add a rounding option",
        // Fix words of its own; LANG-3 does not exist.
        "[LANG-3] Fix add and div",
        // The fix word only names LANG-4, a Bug behind a 429.
        "Fix LANG-4: Support negative zero",
        // Fix words of its own; LANG-5 is a New Feature.
        "Fix add and div (LANG-5)",
        // The fix word only names LANG-6, of a type in neither list.
        "Fix LANG-6: Save the hash",
        // No fix word; LANG-7 does not exist.
        "LANG-7: Tweak add and div",
        // Another project's key and no fix word: never a candidate.
        "TEXT-9: Tidy add and div",
        // No key at all.
        "Fix add and div once more",
        // A key in JIRA's issue URL counts, one in another URL does not.
        "Fix add and div again\n\nSee https://issues.apache.org/jira/browse/LANG-2 and https://example.org/LANG-1.txt",
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
    (s, ids)
}

/// The server's view of the keys: LANG-4 answers 429 with `Retry-After: 1` once.
fn serve_types(server: &Server) {
    for (key, kind) in [
        ("LANG-1", "Bug"),
        ("LANG-2", "Improvement"),
        ("LANG-5", "New Feature"),
        ("LANG-6", "Question"),
    ] {
        server.route(&path(key), vec![issue(key, kind)]);
    }
    for key in ["LANG-3", "LANG-7"] {
        server.route(&path(key), vec![not_found()]);
    }
    server.route(
        &path("LANG-4"),
        vec![
            Reply {
                status: 429,
                headers: vec![("retry-after".into(), "1".into())],
                body: json!({"errorMessages": ["Rate limit exceeded."]}).to_string(),
            },
            issue("LANG-4", "bug"),
        ],
    );
}

/// A recipe with `rule` under `source.git` (indented four spaces).
fn recipe(dir: &Path, clone: &Path, rule: &str) -> PathBuf {
    let path = dir.join("jira.yaml");
    let text = format!(
        "name: jira\nsource:\n  git:\n    repo: {}\n    name: widget\n{rule}files:\n  code_extensions: [py]\nannotate:\n  enabled: false\n",
        clone.display()
    );
    std::fs::write(&path, text).expect("recipe");
    path
}

/// The rule against `base`, its cache in `dir/cache`, LANG's keys only.
fn server_recipe(dir: &Path, clone: &Path, base: &str) -> PathBuf {
    waiting_recipe(dir, clone, base, 30)
}

/// [`server_recipe`] with its own `max_wait`.
fn waiting_recipe(dir: &Path, clone: &Path, base: &str, max_wait: u64) -> PathBuf {
    let rule = format!(
        "    issue_types:\n      url: {base}\n      projects: [LANG]\n      cache: cache\n      max_wait: {max_wait}\n"
    );
    recipe(dir, clone, &rule)
}

/// `hunkgen build recipe -o dir/out` with a token, quietly, replacing what is there.
fn build(dir: &Path, recipe: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    hunkgen()
        .arg("build")
        .arg(recipe)
        .arg("-o")
        .arg(dir.join("out"))
        .args(["--quiet", "--force"])
        .args(args)
        .env("JIRA_TOKEN", TOKEN)
        .env("HUNKGEN_CACHE_DIR", dir.join("unused-cache"))
        .assert()
}

fn rows(out: &Path, file: &str) -> Vec<Value> {
    std::fs::read_to_string(out.join(file))
        .expect("jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect()
}

#[test]
fn issue_types_keep_bugs_reject_other_types_and_answer_offline_from_the_cache() {
    let server = Server::start();
    serve_types(&server);
    let (clone, ids) = keyed_history();
    let dir = tempfile::tempdir().expect("tempdir");
    let recipe = server_recipe(dir.path(), &clone.dir, &server.base);
    let out = dir.path().join("out");
    let id = |subject: &str| format!("widget-{}", &ids[subject][..12]);
    let a = build(dir.path(), &recipe, &[]).success();
    let mut kept: Vec<String> = rows(&out, "instances.jsonl")
        .iter()
        .map(|r| r["instance_id"].as_str().expect("id").to_string())
        .collect();
    kept.sort();
    let mut want = vec![
        // A Bug, though the message says no fix word.
        id("LANG-1: Correct add and div"),
        // Its own fix words; LANG-3 is gone: no evidence.
        id("[LANG-3] Fix add and div"),
        // `Fix LANG-4:` names a Bug (after one 429).
        id("Fix LANG-4: Support negative zero"),
        // No key.
        id("Fix add and div once more"),
    ];
    want.sort();
    assert_eq!(kept, want);
    let rejected: BTreeMap<String, (String, String)> = rows(&out, "rejected.jsonl")
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().expect("field").to_string();
            (s("id"), (s("reason"), s("detail")))
        })
        .collect();
    let not_fix = |detail: &str| ("issue_type_not_fix".to_string(), detail.to_string());
    assert_eq!(
        rejected,
        BTreeMap::from([
            (
                id("LANG-2: Add a rounding option"),
                not_fix("LANG-2 is of type `Improvement`; no referenced JIRA issue is of a fix type (`Bug`)")
            ),
            (
                id("Fix add and div (LANG-5)"),
                not_fix("LANG-5 is of type `New Feature`; no referenced JIRA issue is of a fix type (`Bug`)")
            ),
            (
                id("Fix add and div again"),
                not_fix("LANG-2 is of type `Improvement`; no referenced JIRA issue is of a fix type (`Bug`)")
            ),
            (
                id("LANG-7: Tweak add and div"),
                not_fix("its message has no fix word and no referenced JIRA issue is of a fix type (`Bug`): LANG-7 was not found")
            ),
            (
                id("Fix LANG-6: Save the hash"),
                (
                    "closing_keyword_only".to_string(),
                    "the subject's fix word only names a JIRA issue (`Fix LANG-6`), which may be a bug or not: `Fix LANG-6: Save the hash`; no referenced JIRA issue is of a fix or not-fix type: LANG-6 is of type `Question`".to_string()
                )
            ),
        ])
    );
    // The rule has its own count in the funnel; TEXT-9's commit was never selected.
    let card: Value =
        serde_norway::from_str(&std::fs::read_to_string(out.join("dataset.yaml")).expect("card"))
            .expect("card yaml");
    let funnel = &card["counts"]["funnel"];
    assert_eq!(funnel["rejected"]["issue_type_not_fix"], 4, "{funnel}");
    assert_eq!(funnel["rejected"]["closing_keyword_only"], 1, "{funnel}");
    assert_eq!(funnel["kept"], 4, "{funnel}");
    assert_eq!(funnel["message_matched"], 9, "{funnel}");
    // Each key asked once (LANG-4 again after its 429), TEXT-9 and URL lookalikes never;
    // the token goes as a Bearer token.
    let log = server.log();
    let mut asked: Vec<String> = log.iter().map(|s| s.path.clone()).collect();
    asked.sort();
    let mut want: Vec<String> = ["LANG-1", "LANG-2", "LANG-3", "LANG-4", "LANG-4", "LANG-5"]
        .into_iter()
        .chain(["LANG-6", "LANG-7"])
        .map(path)
        .collect();
    want.sort();
    assert_eq!(asked, want);
    assert!(log
        .iter()
        .all(|s| s.authorization.as_deref() == Some(&format!("Bearer {TOKEN}") as &str)));
    assert!(
        stderr(&a).contains(
            "note: JIRA API: 8 request(s) sent, 0 answered from the cache; 1 s waited for Retry-After"
        ),
        "{}",
        stderr(&a)
    );
    // The cache holds answers only, never the token.
    for f in files_under(&dir.path().join("cache")) {
        let text = String::from_utf8_lossy(&std::fs::read(&f).expect("entry")).into_owned();
        assert!(!text.contains(TOKEN), "{}", f.display());
    }
    let instances = std::fs::read(out.join("instances.jsonl")).expect("instances");
    let rejections = std::fs::read(out.join("rejected.jsonl")).expect("rejected");
    // A rebuild online asks nothing again: every answer (the 404s too) is cached.
    let again = build(dir.path(), &recipe, &[]).success();
    assert!(
        stderr(&again).contains("note: JIRA API: 0 request(s) sent, 7 answered from the cache;"),
        "{}",
        stderr(&again)
    );
    assert_eq!(server.log().len(), log.len());
    // With the server gone, --offline answers from the cache and the dataset is the same.
    drop(server);
    let offline = build(dir.path(), &recipe, &["--offline"]).success();
    assert!(
        stderr(&offline).contains("note: JIRA API: 0 request(s) sent, 7 answered from the cache;"),
        "{}",
        stderr(&offline)
    );
    assert_eq!(
        std::fs::read(out.join("instances.jsonl")).expect("instances"),
        instances
    );
    assert_eq!(
        std::fs::read(out.join("rejected.jsonl")).expect("rejected"),
        rejections
    );
}

#[test]
fn a_malformed_jira_answer_is_one_line_naming_the_key() {
    let server = Server::start();
    serve_types(&server);
    server.route(
        &path("LANG-2"),
        vec![Reply::json(
            &json!({"key": "LANG-2", "fields": {"issuetype": {}}}),
        )],
    );
    let (clone, _) = keyed_history();
    let dir = tempfile::tempdir().expect("tempdir");
    let recipe = server_recipe(dir.path(), &clone.dir, &server.base);
    let err = stderr(&build(dir.path(), &recipe, &[]).failure());
    assert!(
        err.contains(&format!(
            "source.git.issue_types: LANG-2: {}{}: malformed JSON: at `fields.issuetype`: missing field `name`",
            server.base,
            path("LANG-2")
        )),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // Not JSON at all.
    server.route(
        &path("LANG-2"),
        vec![Reply {
            status: 200,
            headers: Vec::new(),
            body: "<html>maintenance</html>".into(),
        }],
    );
    let err = stderr(&build(dir.path(), &recipe, &[]).failure());
    assert!(
        err.contains("source.git.issue_types: LANG-2: ") && err.contains(": malformed JSON: "),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // A refused token says which variable to fix (a cache of its own: LANG-1's answer
    // above is cached, and a cached answer is never asked again).
    server.route(
        &path("LANG-1"),
        vec![Reply {
            status: 401,
            headers: Vec::new(),
            body: String::new(),
        }],
    );
    let refused = tempfile::tempdir().expect("tempdir");
    let recipe401 = server_recipe(refused.path(), &clone.dir, &server.base);
    let err = stderr(&build(refused.path(), &recipe401, &[]).failure());
    assert!(
        err.contains("source.git.issue_types: LANG-1: ")
            && err.contains("401 Unauthorized: JIRA_TOKEN was refused"),
        "{err}"
    );
    assert!(!err.contains(TOKEN), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // Offline with an empty cache: the key and the request that could not be answered.
    let fresh = tempfile::tempdir().expect("tempdir");
    let recipe = server_recipe(fresh.path(), &clone.dir, &server.base);
    let err = stderr(&build(fresh.path(), &recipe, &["--offline"]).failure());
    assert!(
        err.contains("source.git.issue_types: LANG-1: ")
            && err.contains("not in the cache and --offline was given"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn a_retry_after_past_max_wait_judges_the_rest_without_their_types() {
    let server = Server::start();
    serve_types(&server);
    server.route(
        &path("LANG-1"),
        vec![Reply {
            status: 429,
            headers: vec![("retry-after".into(), "5".into())],
            body: String::new(),
        }],
    );
    let (clone, ids) = keyed_history();
    let dir = tempfile::tempdir().expect("tempdir");
    let recipe = waiting_recipe(dir.path(), &clone.dir, &server.base, 0);
    let out = dir.path().join("out");
    let err = stderr(&build(dir.path(), &recipe, &[]).success());
    assert!(
        err.contains("JIRA asked to wait 5 s (Retry-After), past issue_types.max_wait, after the issue types of 0 of 9 candidates were looked up; the other 9 are judged without their types"),
        "{err}"
    );
    assert_eq!(
        server.log().len(),
        1,
        "the lookups stop at the first refusal"
    );
    let id = |subject: &str| format!("widget-{}", &ids[subject][..12]);
    let mut kept: Vec<String> = rows(&out, "instances.jsonl")
        .iter()
        .map(|r| r["instance_id"].as_str().expect("id").to_string())
        .collect();
    kept.sort();
    // What its own words select is kept, as without the rule.
    let mut want = vec![
        id("[LANG-3] Fix add and div"),
        id("Fix add and div (LANG-5)"),
        id("Fix add and div once more"),
        id("Fix add and div again"),
    ];
    want.sort();
    assert_eq!(kept, want);
    let rejected: BTreeMap<String, (String, String)> = rows(&out, "rejected.jsonl")
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().expect("field").to_string();
            (s("id"), (s("reason"), s("detail")))
        })
        .collect();
    let unchecked = (
        "issue_type_not_fix".to_string(),
        "its message has no fix word and its JIRA issues were not looked up (Retry-After past max_wait)".to_string(),
    );
    let closing = |subject: &str, said: &str| {
        (
            "closing_keyword_only".to_string(),
            format!("the subject's fix word only names a JIRA issue (`{said}`), which may be a bug or not: `{subject}`; its JIRA issues were not looked up (Retry-After past max_wait)"),
        )
    };
    assert_eq!(
        rejected,
        BTreeMap::from([
            (id("LANG-1: Correct add and div"), unchecked.clone()),
            (id("LANG-2: Add a rounding option"), unchecked.clone()),
            (id("LANG-7: Tweak add and div"), unchecked),
            (
                id("Fix LANG-4: Support negative zero"),
                closing("Fix LANG-4: Support negative zero", "Fix LANG-4")
            ),
            (
                id("Fix LANG-6: Save the hash"),
                closing("Fix LANG-6: Save the hash", "Fix LANG-6")
            ),
        ])
    );
}

#[test]
fn issue_types_recipe_errors_are_one_line_naming_the_key() {
    let (clone, _) = keyed_history();
    let dir = tempfile::tempdir().expect("tempdir");
    for (rule, want) in [
        (
            "    issue_types: {}\n",
            "`source.git.issue_types.url`: missing: the JIRA server whose issue types are read, e.g. `url: https://issues.apache.org/jira`",
        ),
        (
            "    issue_url: 'https://jira.example.org/jira/browse/{id}'\n    issue_regex: 'LANG-\\d+'\n    issue_types: {}\n",
            "e.g. `url: https://jira.example.org/jira`",
        ),
        (
            "    issue_types:\n      url: not a url\n",
            "`source.git.issue_types.url`: expected an http(s) URL, got `not a url`",
        ),
        (
            "    issue_types:\n      url: https://jira.example.org\n      projects: [lang-1]\n",
            "`source.git.issue_types.projects`: `lang-1`: expected a JIRA project key",
        ),
        (
            "    issue_types:\n      url: https://jira.example.org\n      fix: [Bug]\n      not_fix: [bug, Task]\n",
            "`source.git.issue_types`: `Bug` is in both `fix` and `not_fix`",
        ),
    ] {
        let recipe = recipe(dir.path(), &clone.dir, rule);
        let a = hunkgen()
            .arg("build")
            .arg(&recipe)
            .arg("-o")
            .arg(dir.path().join("out"))
            .arg("--quiet")
            .assert()
            .failure();
        let err = stderr(&a);
        assert!(err.contains(want), "{rule}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
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
