//! The entry points every fuzz target drives, one function per input a user can hand
//! over. The fuzz targets (`fuzz_targets/*.rs`) and the regression test that replays the
//! committed corpus under `cargo test` (`tests/it/hostile_fuzz_corpus.rs`) both include
//! this file, so a corpus input runs the same code in both.
//!
//! Each function takes arbitrary bytes and must return without panicking: errors are
//! values, never aborts. Invariants that hold for every accepted input are asserted.

use std::path::Path;

/// One entry point: arbitrary bytes in, no panic out.
pub type Entry = fn(&[u8]);

/// The targets, by name: (name, entry point). `make fuzz` and the replay test use it.
pub const TARGETS: [(&str, Entry); 8] = [
    ("recipe", recipe),
    ("predictions", predictions),
    ("agents", agents),
    ("swebench", swebench),
    ("trajectory_claude", trajectory_claude),
    ("trajectory_codex", trajectory_codex),
    ("junit", junit),
    ("pytest", pytest),
];

/// Text of `data` when it is UTF-8 (every reader takes text; a file that is not UTF-8
/// is refused before parsing, which the targets need not repeat).
fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// A recipe file: parsed and checked against the schema (the plan step that follows
/// opens repositories and models named in it, which is not input parsing).
pub fn recipe(data: &[u8]) {
    if let Some(t) = text(data) {
        let _ = hunkgen::recipe::parse(t, Path::new("fuzz/recipe.yaml"));
    }
}

/// A predictions file in any of SWE-bench's forms (JSON Lines, a list, a map).
pub fn predictions(data: &[u8]) {
    if let Some(t) = text(data) {
        if let Ok(preds) = hunkgen::evaluate::predictions::parse(t, Path::new("fuzz.jsonl")) {
            assert!(!preds.is_empty(), "an accepted predictions file holds one");
        }
    }
}

/// An agents file (`hunkgen run --agents`).
pub fn agents(data: &[u8]) {
    if let Some(t) = text(data) {
        let _ = hunkgen::run::agents::parse(t, Path::new("fuzz/agents.yaml"));
    }
}

/// SWE-bench instance rows (JSON Lines or one list), imported with one known repository
/// whose clone does not exist: every row is read, checked, and rejected or kept
/// without touching a real clone.
pub fn swebench(data: &[u8]) {
    let Some(t) = text(data) else { return };
    let cfg = hunkgen::source::swebench::SwebenchConfig {
        instances: "fuzz.jsonl".into(),
        repos: [("o/r".to_string(), "/nonexistent/hunkgen-fuzz".into())]
            .into_iter()
            .collect(),
    };
    let progress = hunkgen::progress::Progress::hidden();
    if let Ok(out) = hunkgen::source::swebench::candidates_from_text(&cfg, t, &progress) {
        for c in &out.candidates {
            assert!(hunkgen::source::names::check_id(&c.id).is_ok(), "{}", c.id);
        }
    }
}

/// A Claude Code `stream-json` trajectory.
pub fn trajectory_claude(data: &[u8]) {
    use hunkgen::run::agents::TrajectoryFormat;
    if let Some(t) = text(data) {
        // A small output bound: cuts land inside multi-byte characters.
        let _ = hunkgen::run::trajectory::normalize(TrajectoryFormat::ClaudeStreamJson, t, "/w", 7);
        let _ = hunkgen::run::trajectory::normalize(TrajectoryFormat::Normalized, t, "/w", 7);
    }
}

/// A Codex `exec --json` trajectory.
pub fn trajectory_codex(data: &[u8]) {
    use hunkgen::run::agents::TrajectoryFormat;
    if let Some(t) = text(data) {
        let _ = hunkgen::run::trajectory::normalize(TrajectoryFormat::CodexJson, t, "/w", 7);
    }
}

/// A JUnit XML report, read as Java and as pytest ids.
pub fn junit(data: &[u8]) {
    use hunkgen::validate::parse::{parse_junit_xml, IdStyle};
    if let Some(t) = text(data) {
        let p = Path::new("fuzz/TEST-x.xml");
        let _ = parse_junit_xml(t, IdStyle::Java, p);
        let _ = parse_junit_xml(t, IdStyle::Pytest, p);
    }
}

/// A pytest run: its JUnit XML and its `-rA` log, split at the first NUL byte (no NUL:
/// the whole input is the log and there is no XML).
pub fn pytest(data: &[u8]) {
    let (xml, log) = match data.iter().position(|&b| b == 0) {
        Some(i) => (Some(&data[..i]), &data[i + 1..]),
        None => (None, data),
    };
    let Some(log) = text(log) else { return };
    let xml = match xml.map(text) {
        Some(None) => return,
        Some(Some(x)) => Some(x),
        None => None,
    };
    let _ = hunkgen::validate::parse::parse_pytest(xml, log, Path::new("fuzz/pytest.xml"));
}
