//! The pure evaluation metrics against every real Defects4J fix: a golden fix acts on
//! the code (does not abstain, with one known exception) and, as its own prediction,
//! localizes perfectly.

use std::collections::BTreeSet;

use hunkgen::classify::Classifier;
use hunkgen::diff::parse;
use hunkgen::evaluate::{effective_patch, lines_touched, localized, patched_files, scores};

#[test]
fn no_defects4j_fix_abstains_and_each_scores_itself_perfectly() {
    let root = crate::common::d4j_root();
    let classifier = Classifier::default();
    let (mut fixes, mut heuristic) = (0, 0);
    let mut abstaining = Vec::new();
    for project in std::fs::read_dir(&root).expect("defects4j projects dir") {
        let dir = project.expect("entry").path().join("patches");
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).expect("patches dir") {
            let path = f.expect("entry").path();
            if !path.to_string_lossy().ends_with(".src.patch") {
                continue;
            }
            let bytes = std::fs::read(&path).expect("read");
            // Defects4J stores fixed → buggy; the fix is the reverse.
            let fix = parse(&bytes).expect("parses").reversed();
            // No state files here: every code file goes through the text heuristic.
            let e = effective_patch(&fix, &classifier, |_| None);
            if e.is_empty() {
                let name = path.strip_prefix(&root).unwrap_or(&path);
                abstaining.push(format!("{} {:?}", name.display(), e.dropped));
                continue;
            }
            assert!(e.code_lines_changed > 0, "{}", path.display());
            heuristic += usize::from(e.heuristic);
            let files: Vec<String> = e.kept_files.clone();
            assert!(
                localized(&files, &patched_files(&fix)),
                "{}",
                path.display()
            );
            let touched = lines_touched(&fix);
            let golden: BTreeSet<(String, u32)> = touched.clone();
            if let Some(s) = scores(&touched, &golden) {
                assert_eq!(s.f1, 1.0, "{}", path.display());
            }
            fixes += 1;
        }
    }
    eprintln!(
        "{fixes} Defects4J fixes, {heuristic} judged by the heuristic; abstaining: {abstaining:#?}"
    );
    assert!(fixes > 800, "{fixes}");
    assert_eq!(
        heuristic, fixes,
        "without state files every fix uses the heuristic"
    );
}
