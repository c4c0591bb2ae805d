//! `maven: auto` on a repository of several projects side by side with no pom at its
//! top, as gson's was until 2015 (`gson/pom.xml` beside `proto/` and `wsclient/`): the
//! reactor of a fix is the shallowest directory with a pom above every file it changes.

use crate::common::{jsonl, Script};
use crate::maven_auto::{build, calc, recipe, seed, NEW_TEST, OLD_TEST, POM};

/// The calc project in `lib/`, a second project without a build beside it: the fix in
/// `lib/` is proven from `lib/pom.xml` (its module `lib`) and its reports are found in
/// the working copy's report directory. (Which directory a change's reactor is in, and
/// a change no single pom is above, are unit tests of `declare::project_dir`.)
#[test]
fn a_project_below_the_top_of_the_tree_is_built_from_its_own_pom() {
    let mut s = Script::new();
    s.write("lib/pom.xml", POM);
    s.write("lib/src/main/java/org/acme/Calc.java", &calc(false));
    s.write("lib/src/test/java/org/acme/ZeroTest.java", OLD_TEST);
    s.write("other/README", "another project\n");
    s.commit("Initial import");
    s.write("lib/src/main/java/org/acme/Calc.java", &calc(true));
    s.write("lib/src/test/java/org/acme/CalcTest.java", NEW_TEST);
    s.commit("Fix add and mul");
    let work = tempfile::tempdir().expect("tempdir");
    let recipe = recipe(work.path(), &s.dir);
    let out = work.path().join("out");
    let o = build(&recipe, &out, &work.path().join("cache"), &seed());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = |f: &str| jsonl(&out.join(f));
    let kept = rows("instances.jsonl");
    assert_eq!(
        kept.len(),
        1,
        "kept {kept:?}\nrejected {:?}",
        rows("rejected.jsonl")
    );
    assert_eq!(
        kept[0]["FAIL_TO_PASS"],
        serde_json::json!(["org.acme.CalcTest::addsAndMultiplies"])
    );
    assert_eq!(
        kept[0]["validation"]["maven"]["modules"],
        serde_json::json!(["lib"])
    );
}
