use super::*;
use crate::model::Via;

fn step(kind: StepKind, command: &str, files: &[&str]) -> TrajectoryStep {
    let mut s = TrajectoryStep::new(kind);
    if !command.is_empty() {
        s.command = Some(command.to_string());
    }
    s.files = files.iter().map(|f| f.to_string()).collect();
    s
}

#[test]
fn every_step_kind_falls_in_one_of_the_studys_categories() {
    use StepKind::*;
    let c = |k, cmd| category(&step(k, cmd, &[]));
    assert_eq!(c(Edit, "Edit {\"file_path\":\"a\"}"), StudyCategory::Write);
    assert_eq!(c(Read, "cat a.java"), StudyCategory::Read);
    assert_eq!(c(RunTest, "mvn test"), StudyCategory::Test);
    assert_eq!(c(RunBuild, "defects4j compile"), StudyCategory::Build);
    assert_eq!(c(Search, "grep -rn foo src"), StudyCategory::SearchContent);
    assert_eq!(c(Search, "LC_ALL=C rg foo"), StudyCategory::SearchContent);
    assert_eq!(c(Search, "git grep -n foo"), StudyCategory::SearchContent);
    assert_eq!(
        c(Search, "Grep {\"pattern\":\"x\"}"),
        StudyCategory::SearchContent
    );
    assert_eq!(
        c(Search, "mcp__hunkgen__find_method {}"),
        StudyCategory::SearchContent
    );
    assert_eq!(
        c(Search, "find . -name '*.java'"),
        StudyCategory::SearchFiles
    );
    assert_eq!(
        c(Search, "Glob {\"pattern\":\"**/*.java\"}"),
        StudyCategory::SearchFiles
    );
    assert_eq!(c(Search, "git ls-files"), StudyCategory::SearchFiles);
    assert_eq!(c(Search, "ls -la src"), StudyCategory::Navigate);
    assert_eq!(c(Search, "LS {\"path\":\"/w\"}"), StudyCategory::Navigate);
    assert_eq!(c(Other, "cd src"), StudyCategory::Navigate);
    assert_eq!(c(Other, "/usr/bin/tree -L 2"), StudyCategory::Navigate);
    assert_eq!(c(Other, "TodoWrite {}"), StudyCategory::Other);
    assert_eq!(c(Other, ""), StudyCategory::Other);
}

#[test]
fn the_smells_are_passerines() {
    use StepKind::*;
    let s = |steps: Vec<TrajectoryStep>| smells_of(&steps);
    // No test at all; a.java read twice with no edit between: NO_OP_CAT.
    assert_eq!(
        s(vec![
            step(Read, "cat a.java", &["a.java"]),
            step(Read, "cat ./a.java", &["./a.java"]),
        ]),
        [true, true, false, false]
    );
    // Read, edit, read again: no smell; a test ran.
    assert_eq!(
        s(vec![
            step(Read, "", &["a.java"]),
            step(Edit, "", &["a.java"]),
            step(Read, "", &["a.java"]),
            step(RunTest, "", &[]),
        ]),
        [false, false, false, false]
    );
    // Three searches in a row; three edits of one file in a row.
    assert_eq!(
        s(vec![
            step(Search, "grep a", &[]),
            step(Search, "find .", &[]),
            step(Search, "ls", &[]),
            step(Edit, "", &["b.java"]),
            step(Edit, "", &["b.java"]),
            step(Edit, "", &["b.java"]),
        ]),
        [true, false, true, true]
    );
    // Two searches, a read, a search; edits of two files alternating: neither.
    assert_eq!(
        s(vec![
            step(Search, "grep a", &[]),
            step(Search, "grep b", &[]),
            step(Read, "", &["x"]),
            step(Search, "grep c", &[]),
            step(Edit, "", &["b.java"]),
            step(Edit, "", &["c.java"]),
            step(Edit, "", &["b.java"]),
        ]),
        [true, false, false, false]
    );
}

#[test]
fn tree_distance_counts_edges_between_leaves() {
    assert_eq!(tree_distance("src/a/X.java", "src/a/X.java"), 0);
    assert_eq!(tree_distance("src/a/X.java", "./src/a/Y.java"), 2);
    assert_eq!(tree_distance("src/a/X.java", "src/b/Y.java"), 4);
    assert_eq!(tree_distance("src/a/b/X.java", "src/Y.java"), 4);
    assert_eq!(tree_distance("X.java", "test/XTest.java"), 3);
}

/// Two successful runs and two failed ones, every number by hand.
#[test]
fn the_analytics_of_four_runs_by_hand() {
    use StepKind::*;
    let golden = vec!["src/a/X.java".to_string()];
    let ok1 = vec![
        step(Search, "grep -rn x", &[]),
        step(Read, "cat src/a/X.java", &["src/a/X.java"]),
        step(Edit, "", &["src/a/X.java"]),
        step(RunTest, "mvn test", &[]),
    ];
    let ok2 = vec![
        step(Read, "", &["src/a/X.java"]),
        step(Edit, "", &["src/a/X.java"]),
        step(RunTest, "", &[]),
    ];
    // Failed: edits a sibling (distance 2) and a file two levels away (src/b/c/Z: 5).
    let bad1 = vec![
        step(Search, "find . -name X.java", &[]),
        step(Search, "ls src", &[]),
        step(Search, "grep y", &[]),
        step(Edit, "", &["src/a/Y.java"]),
        step(Edit, "", &["src/b/c/Z.java"]),
    ];
    // Failed, no edit: no tree distance; reads X twice (NO_OP_CAT).
    let bad2 = vec![
        step(Read, "", &["src/a/X.java"]),
        step(Other, "TodoWrite {}", &[]),
        step(Read, "", &["src/a/X.java"]),
    ];
    let runs = [
        RunSteps {
            success: true,
            steps: &ok1,
            golden: &golden,
        },
        RunSteps {
            success: true,
            steps: &ok2,
            golden: &golden,
        },
        RunSteps {
            success: false,
            steps: &bad1,
            golden: &golden,
        },
        RunSteps {
            success: false,
            steps: &bad2,
            golden: &golden,
        },
    ];
    let a = compute(&runs, &[]);
    // Success: 7 steps: WRITE 2, READ 2, TEST 2, SEARCH_CONTENT 1.
    let ok = &a.categories["success"];
    assert_eq!(ok["WRITE"].steps, 2);
    assert!((ok["WRITE"].share - 2.0 / 7.0).abs() < 1e-12);
    assert_eq!(ok["SEARCH_CONTENT"].steps, 1);
    assert!(!ok.contains_key("NAVIGATE"));
    // Failure: 8 steps: SEARCH_FILES 1, NAVIGATE 1, SEARCH_CONTENT 1, WRITE 2, READ 2, OTHER 1.
    let bad = &a.categories["failure"];
    assert_eq!(
        [
            "SEARCH_FILES",
            "NAVIGATE",
            "SEARCH_CONTENT",
            "WRITE",
            "READ",
            "OTHER"
        ]
        .map(|c| bad[c].steps),
        [1, 1, 1, 2, 2, 1]
    );
    assert!((bad["OTHER"].share - 1.0 / 8.0).abs() < 1e-12);
    // Bigrams of success: 3 + 2 = 5 windows; READ→WRITE twice, WRITE→TEST twice.
    let g2 = &a.ngrams["2"]["success"];
    assert_eq!(
        (g2[0].categories.clone(), g2[0].count),
        (vec![StudyCategory::Write, StudyCategory::Test], 2)
    );
    assert_eq!(
        g2[1].categories,
        vec![StudyCategory::Read, StudyCategory::Write]
    );
    assert!((g2[0].share - 0.4).abs() < 1e-12);
    assert_eq!(g2.len(), 3);
    // Trigrams of failure: 3 + 1 = 4 windows, each once.
    let g3 = &a.ngrams["3"]["failure"];
    assert_eq!(g3.len(), 4);
    assert!(g3
        .iter()
        .all(|g| g.count == 1 && (g.share - 0.25).abs() < 1e-12));
    // Windows of 5: only bad1 is that long; no successful run is.
    let g5 = &a.ngrams["5"];
    assert!(!g5.contains_key("success"));
    assert_eq!((g5["failure"].len(), g5["failure"][0].share), (1, 1.0));
    assert_eq!(a.ngrams.len(), 4);
    // Smells: both successful runs ran tests and read X once each.
    assert_eq!(
        a.smells["success"],
        Smells {
            trajectories: 2,
            no_test: 0,
            no_op_cat: 0,
            consecutive_search: 0,
            consecutive_edit: 0
        }
    );
    assert_eq!(
        a.smells["failure"],
        Smells {
            trajectories: 2,
            no_test: 2,
            no_op_cat: 1,
            consecutive_search: 1,
            consecutive_edit: 0
        }
    );
    // By step index: 5 indexes (the longest run); index 0: SEARCH_CONTENT 1, READ 2,
    // SEARCH_FILES 1; index 4: WRITE 1.
    assert_eq!(a.by_step.len(), 5);
    assert_eq!(a.by_step[0]["READ"], 2);
    assert_eq!(a.by_step[0]["SEARCH_CONTENT"], 1);
    assert_eq!(a.by_step[0]["SEARCH_FILES"], 1);
    assert_eq!(a.by_step[4], BTreeMap::from([("WRITE".to_string(), 1)]));
    // Tree distance: only bad1 edited: (2 + 5) / 2 = 3.5.
    assert_eq!(a.tree_distance.runs, 1);
    assert_eq!(a.tree_distance.per_run, vec![3.5]);
    assert_eq!(
        (a.tree_distance.mean, a.tree_distance.median),
        (Some(3.5), Some(3.5))
    );
    // Native or shell: the runs' commands are shell commands except `TodoWrite {}`
    // (a tool) and the steps with no command (tools of their own): READ 1 shell
    // (`cat …`) of 4; WRITE all 4 native; SEARCH_CONTENT 2 shell; TEST 1 and 1.
    assert_eq!(
        a.via["READ"],
        Via {
            native: 3,
            shell: 1
        }
    );
    assert_eq!(
        a.via["WRITE"],
        Via {
            native: 4,
            shell: 0
        }
    );
    assert_eq!(
        a.via["SEARCH_CONTENT"],
        Via {
            native: 0,
            shell: 2
        }
    );
    assert_eq!(
        a.via["TEST"],
        Via {
            native: 1,
            shell: 1
        }
    );
    assert_eq!(
        a.via["OTHER"],
        Via {
            native: 1,
            shell: 0
        }
    );
    assert!(native(&step(Search, "Grep {\"pattern\":\"x\"}", &[])));
    assert!(native(&step(Search, "mcp__hunkgen__find_class {}", &[])));
    assert!(!native(&step(Search, "ls", &[])) && !native(&step(Read, "cat a", &[])));
    let md = markdown(&a);
    assert!(
        md.contains("smells, failure (2 trajectories): NO_TEST 100.0%, NO_OP_CAT 50.0%"),
        "{md}"
    );
}
