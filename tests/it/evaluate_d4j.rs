//! The pure evaluation metrics against every real Defects4J fix: a golden fix acts on
//! the code (does not abstain, with one known exception) and touches buggy-side lines
//! in every file it keeps.

use hunkgen::classify::Classifier;
use hunkgen::diff::{parse, FileChange};
use hunkgen::evaluate::{effective_patch, lines_touched};

#[test]
fn defects4j_fixes_act_on_code_and_touch_buggy_lines() {
    let root = crate::common::d4j_root();
    let classifier = Classifier::default();
    let (mut fixes, mut heuristic) = (0, 0);
    let mut abstaining = Vec::new();
    let mut total_created = 0;
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
            // Every kept file that exists in the buggy state has buggy-side lines the fix
            // touches, all ≥ 1 (created files, like Codec-13's, have none).
            let touched = lines_touched(&fix);
            let existing = fix
                .files
                .iter()
                .filter(|f| f.change != FileChange::Added)
                .map(|f| f.path().to_string());
            total_created += fix.files.len() - existing.clone().count();
            for f in existing.filter(|f| e.kept_files.contains(f)) {
                assert!(
                    touched.iter().any(|(p, l)| *p == f && *l >= 1),
                    "{}: {f}",
                    path.display()
                );
            }
            assert!(touched.iter().all(|(_, l)| *l >= 1), "{}", path.display());
            fixes += 1;
        }
    }
    eprintln!(
        "{fixes} Defects4J fixes ({total_created} created files), {heuristic} judged by the \
         heuristic; abstaining: {abstaining:#?}"
    );
    assert!(fixes > 800, "{fixes}");
    assert!(total_created > 0, "the created-file case is exercised");
    assert_eq!(
        heuristic, fixes,
        "without state files every fix uses the heuristic"
    );
}
