//! `hunkgen reports` against a loopback server that answers in each tracker's shape:
//! Apache JIRA's REST API (`/rest/api/2/issue/KEY`), GitHub's issues API, SourceForge's
//! Allura REST API (`/rest/p/<project>/bugs/<n>`) and Google Code's issue archive (JSON
//! files). The dataset's report URLs are Defects4J's own forms, read at the loopback
//! server through `--tracker-url` and `--github-api`; a dead server costs its reports
//! with one warning line; `--offline` writes the same file from the cache. Nothing here
//! reaches the internet.

use crate::common::hunkgen;
use crate::loopback::{Reply, Server};
use serde_json::{json, Value};
use std::fs;
use std::path::Path;

/// A dataset directory whose instances name these report URLs.
fn dataset(dir: &Path, reports: &[(&str, &str)]) {
    let rows: Vec<String> = reports
        .iter()
        .map(|(id, url)| {
            json!({
                "schema_version": 1, "instance_id": id, "repo": "acme",
                "base_commit": "b", "patch": "", "test_patch": "",
                "problem_statement": "", "hints_text": "", "created_at": "", "version": "",
                "FAIL_TO_PASS": [], "PASS_TO_PASS": [],
                "environment_setup_commit": "b", "source": "defects4j", "fix_commit": "f",
                "project": "acme", "hunks": [], "files": [], "stats": {
                    "hunks": 0, "files": 0, "raw_hunks": 0, "raw_files": 0,
                    "lines_added": 0, "lines_removed": 0, "patch_spread": 0
                },
                "report": {"id": "x", "url": url}
            })
            .to_string()
        })
        .collect();
    fs::create_dir_all(dir).expect("dataset dir");
    fs::write(dir.join("instances.jsonl"), rows.join("\n") + "\n").expect("instances");
}

#[test]
fn reports_come_from_jira_github_sourceforge_and_google_code_and_again_offline() {
    let server = Server::start();
    let base = &server.base;
    server.route(
        "/jira/rest/api/2/issue/CLI-13?fields=summary,description",
        vec![Reply::json(&json!({
            "key": "CLI-13",
            "fields": {"summary": "Options are parsed twice", "description": "When a long option …"}
        }))],
    );
    server.route(
        "/jira/rest/api/2/issue/CLI-99?fields=summary,description",
        vec![Reply {
            status: 404,
            headers: Vec::new(),
            body: json!({"errorMessages": ["Issue Does Not Exist"]}).to_string(),
        }],
    );
    server.route(
        "/api/repos/google/gson/issues/7",
        vec![Reply::json(&json!({
            "number": 7, "title": "Dates lose their zone", "body": "Serializing a Date …",
            "labels": [], "state": "closed"
        }))],
    );
    server.route(
        "/rest/p/jfreechart/bugs/983",
        vec![Reply::json(&json!({
            "ticket": {"ticket_num": 983, "summary": "Legend drops the last item",
                       "description": "With five series …", "status": "closed-fixed"}
        }))],
    );
    server.route(
        "/gcs/google-code-archive/v2/code.google.com/closure-compiler/issues/issue-253.json",
        vec![Reply::json(&json!({
            "id": 253, "summary": "Inlining breaks getters",
            "comments": [{"id": 0, "content": "What steps will reproduce the problem?"},
                         {"id": 1, "content": "Fixed in r500."}]
        }))],
    );
    let work = tempfile::tempdir().expect("tempdir");
    let ds = work.path().join("ds");
    dataset(
        &ds,
        &[
            ("Cli_1", "https://issues.apache.org/jira/browse/CLI-13"),
            ("Cli_2", "https://issues.apache.org/jira/browse/CLI-99"),
            ("Gson_1", "https://github.com/google/gson/issues/7"),
            ("Chart_1", "https://sourceforge.net/p/jfreechart/bugs/983"),
            ("Chart_2", "UNKNOWN"),
            (
                "Closure_1",
                "https://storage.googleapis.com/google-code-archive/v2/code.google.com/closure-compiler/issues/issue-253.json",
            ),
            ("Dead_1", "https://dead.example/jira/browse/DEAD-1"),
            ("Dead_2", "https://dead.example/jira/browse/DEAD-2"),
        ],
    );
    let run = |offline: bool| {
        let mut cmd = hunkgen();
        cmd.arg("reports")
            .arg(&ds)
            .args(["--json", "--github-api", &format!("{base}/api")])
            .args([
                "--tracker-url",
                &format!("https://issues.apache.org/jira={base}/jira"),
            ])
            .args(["--tracker-url", &format!("https://sourceforge.net={base}")])
            .args([
                "--tracker-url",
                &format!("https://storage.googleapis.com={base}/gcs"),
            ])
            // Nothing listens on port 1: the connection is refused.
            .args(["--tracker-url", "https://dead.example=http://127.0.0.1:1"])
            .env("HUNKGEN_CACHE_DIR", work.path().join("cache"))
            .env("JIRA_TOKEN", "jira-secret")
            .env("GITHUB_TOKEN", "gh-secret");
        if offline {
            cmd.arg("--offline");
        }
        let o = cmd.output().expect("runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let summary: Value = serde_json::from_slice(&o.stdout).expect("--json");
        (
            summary,
            String::from_utf8_lossy(&o.stderr).into_owned(),
            fs::read_to_string(ds.join("reports.jsonl")).expect("reports.jsonl"),
        )
    };
    let (summary, stderr, file) = run(false);
    let rows: Vec<Value> = file
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    let by_id = |id: &str| rows.iter().find(|r| r["id"] == id).cloned();
    assert_eq!(rows.len(), 4, "{file}");
    let cli = by_id("Cli_1").expect("Cli_1");
    assert_eq!(
        (&cli["title"], &cli["description"], &cli["tracker"]),
        (
            &json!("Options are parsed twice"),
            &json!("When a long option …"),
            &json!("jira")
        )
    );
    assert_eq!(cli["url"], "https://issues.apache.org/jira/browse/CLI-13");
    let gson = by_id("Gson_1").expect("Gson_1");
    assert_eq!(
        (&gson["title"], &gson["tracker"]),
        (&json!("Dates lose their zone"), &json!("github"))
    );
    let chart = by_id("Chart_1").expect("Chart_1");
    assert_eq!(
        (&chart["title"], &chart["description"]),
        (
            &json!("Legend drops the last item"),
            &json!("With five series …")
        )
    );
    // Google Code: the first comment is the description.
    let closure = by_id("Closure_1").expect("Closure_1");
    assert_eq!(
        (
            &closure["title"],
            &closure["description"],
            &closure["tracker"]
        ),
        (
            &json!("Inlining breaks getters"),
            &json!("What steps will reproduce the problem?"),
            &json!("google-code")
        )
    );
    assert_eq!(summary["fetched"], 4);
    assert_eq!(summary["not_found"], json!(["Cli_2"]));
    assert_eq!(summary["no_tracker"][0]["id"], "Chart_2");
    assert_eq!(
        summary["by_tracker"],
        json!({"github": 1, "google-code": 1, "jira": 1, "sourceforge": 1})
    );
    // The dead server: one line, both of its reports, asked only until it failed once.
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains("http://127.0.0.1:1/jira")
            && warnings[0].contains("2 report(s)")
            && warnings[0].contains("Dead_1, Dead_2"),
        "{stderr}"
    );
    // Each token goes to its own server only.
    let log = server.log();
    for seen in &log {
        let auth = seen.authorization.as_deref().unwrap_or("");
        match seen.path.as_str() {
            p if p.starts_with("/jira/") => assert_eq!(auth, "Bearer jira-secret", "{p}"),
            p if p.starts_with("/api/") => assert!(auth.contains("gh-secret"), "{p}: {auth}"),
            p => assert!(!auth.contains("secret"), "{p} got {auth}"),
        }
    }
    let asked = log.len();
    // Offline: the same file from the cache, nothing sent.
    let (again, _, file2) = run(true);
    assert_eq!(file2, file);
    assert_eq!(again["not_found"], json!(["Cli_2"]));
    assert_eq!(server.log().len(), asked, "offline sent requests");
}
