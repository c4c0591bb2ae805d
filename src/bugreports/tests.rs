use super::*;

#[test]
fn defects4j_report_urls_name_their_trackers() {
    assert_eq!(
        classify("https://issues.apache.org/jira/browse/LANG-747"),
        Some(Tracker::Jira {
            base: "https://issues.apache.org/jira".into(),
            key: "LANG-747".into()
        })
    );
    assert_eq!(
        classify("https://github.com/google/gson/issues/1"),
        Some(Tracker::GitHub {
            repo: "google/gson".into(),
            number: 1
        })
    );
    assert_eq!(
        classify("https://sourceforge.net/p/jfreechart/bugs/983"),
        Some(Tracker::SourceForge {
            api: "https://sourceforge.net/rest/p/jfreechart/bugs/983".into()
        })
    );
    let closure = "https://storage.googleapis.com/google-code-archive/v2/code.google.com/closure-compiler/issues/issue-253.json";
    assert_eq!(
        classify(closure),
        Some(Tracker::GoogleCode {
            json: closure.into()
        })
    );
    assert_eq!(
        classify("https://code.google.com/p/mockito/issues/detail?id=188"),
        Some(Tracker::GoogleCode {
            json: "https://storage.googleapis.com/google-code-archive/v2/code.google.com/mockito/issues/issue-188.json".into()
        })
    );
    // Chart's reports Defects4J does not know, and other shapes: no tracker.
    for u in [
        "UNKNOWN",
        "",
        "https://example.org/bugs",
        "https://x/browse/NOPE",
    ] {
        assert_eq!(classify(u), None, "{u}");
    }
}

#[test]
fn a_rewritten_url_is_read_by_its_shape_on_any_host() {
    let rw = vec![
        (
            "https://issues.apache.org/jira".to_string(),
            "http://127.0.0.1:9/j".to_string(),
        ),
        (
            "https://sourceforge.net".to_string(),
            "http://127.0.0.1:9".to_string(),
        ),
    ];
    let u = rewrite("https://issues.apache.org/jira/browse/CLI-13", &rw);
    assert_eq!(u, "http://127.0.0.1:9/j/browse/CLI-13");
    assert_eq!(
        classify(&u),
        Some(Tracker::Jira {
            base: "http://127.0.0.1:9/j".into(),
            key: "CLI-13".into()
        })
    );
    assert_eq!(
        classify(&rewrite("https://sourceforge.net/p/jfreechart/bugs/7", &rw)).map(|t| t.server()),
        Some("127.0.0.1:9".to_string())
    );
    assert_eq!(
        rewrite("https://github.com/a/b/issues/1", &rw),
        "https://github.com/a/b/issues/1"
    );
}
