//! SWE-bench's instance row, exactly as its published datasets and its harness
//! (`swebench.types.SWEbenchInstance`) have it: the twelve fields, in that order.

use serde::Serialize;

/// SWE-bench's fields in its order (the `SWEbenchInstance` TypedDict of `swebench` 5.0.2),
/// so import can tell SWE-bench fields from extra columns and export writes exactly these.
pub const SWEBENCH_FIELDS: [&str; 12] = [
    "repo",
    "instance_id",
    "base_commit",
    "patch",
    "test_patch",
    "problem_statement",
    "hints_text",
    "created_at",
    "version",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
    "environment_setup_commit",
];

/// A test list as SWE-bench rows carry it: a JSON-encoded string (as the published
/// datasets store it) or a plain JSON array.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum TestList {
    /// `"[\"a\", \"b\"]"`.
    Encoded(String),
    /// `["a", "b"]`.
    Array(Vec<String>),
}

/// One row of a SWE-bench-format file, fields in SWE-bench's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[allow(non_snake_case)] // FAIL_TO_PASS / PASS_TO_PASS are SWE-bench's field names.
pub struct SwebenchRow {
    /// `owner/name` (or the local repository's name).
    pub repo: String,
    /// Unique id.
    pub instance_id: String,
    /// The buggy revision both patches apply to.
    pub base_commit: String,
    /// Forward code patch (the golden fix).
    pub patch: String,
    /// Forward test patch.
    pub test_patch: String,
    /// Issue text.
    pub problem_statement: String,
    /// Hints (issue comments before the fix).
    pub hints_text: String,
    /// Creation time.
    pub created_at: String,
    /// Version label the harness keys its environment on.
    pub version: String,
    /// Tests that fail before and pass after the fix.
    pub FAIL_TO_PASS: TestList,
    /// Tests that pass before and after.
    pub PASS_TO_PASS: TestList,
    /// Revision whose environment runs the tests.
    pub environment_setup_commit: String,
}

impl SwebenchRow {
    /// An instance as a SWE-bench row; test lists JSON-encoded when `encoded` (the
    /// published datasets' form), else arrays. Every SWE-bench field is copied unchanged.
    pub fn from_instance(inst: &super::Instance, encoded: bool) -> Self {
        let list = |tests: &[String]| {
            if encoded {
                // A list of strings always serializes.
                TestList::Encoded(serde_json::to_string(tests).unwrap_or_else(|_| "[]".into()))
            } else {
                TestList::Array(tests.to_vec())
            }
        };
        SwebenchRow {
            repo: inst.repo.clone(),
            instance_id: inst.instance_id.clone(),
            base_commit: inst.base_commit.clone(),
            patch: inst.patch.clone(),
            test_patch: inst.test_patch.clone(),
            problem_statement: inst.problem_statement.clone(),
            hints_text: inst.hints_text.clone(),
            created_at: inst.created_at.clone(),
            version: inst.version.clone(),
            FAIL_TO_PASS: list(&inst.FAIL_TO_PASS),
            PASS_TO_PASS: list(&inst.PASS_TO_PASS),
            environment_setup_commit: inst.environment_setup_commit.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_serializes_in_swebench_order() {
        let row = SwebenchRow {
            repo: "o/r".into(),
            instance_id: "o__r-1".into(),
            base_commit: "b".into(),
            patch: "p".into(),
            test_patch: "t".into(),
            problem_statement: "s".into(),
            hints_text: String::new(),
            created_at: "c".into(),
            version: "1.0".into(),
            FAIL_TO_PASS: TestList::Encoded("[\"a\"]".into()),
            PASS_TO_PASS: TestList::Array(vec!["b".into()]),
            environment_setup_commit: "e".into(),
        };
        let v: serde_json::Value = serde_json::to_value(&row).expect("json");
        let text = serde_json::to_string(&row).expect("json");
        let mut at = 0;
        for f in SWEBENCH_FIELDS {
            let i = text[at..].find(&format!("\"{f}\":")).expect(f) + at;
            at = i;
        }
        assert_eq!(v["FAIL_TO_PASS"], "[\"a\"]");
        assert_eq!(v["PASS_TO_PASS"], serde_json::json!(["b"]));
    }
}
