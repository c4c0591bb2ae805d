//! Classifies repository paths as code, test or other, per recipe rules.

use serde::{Deserialize, Serialize};

/// What a changed file is, because only code hunks count toward multi-hunk selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileClass {
    /// Source code in one of the recipe's code extensions, outside test directories.
    Code,
    /// A file under a test directory or named like a test.
    Test,
    /// Anything else (docs, resources, build files).
    Other,
}

/// Path classification rules, so every source splits patches the same way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Classifier {
    /// File extensions (without dot) that count as code, e.g. `java`, `py`.
    pub code_extensions: Vec<String>,
    /// Path segments that mark a test directory (`test`, `tests`, `testing`).
    pub test_dirs: Vec<String>,
    /// File-name markers of tests: a name starting with `test_` or ending in `Test.java`
    /// etc. Matched as prefixes (`test_`) or suffixes (`Test`, `_test`) of the stem.
    pub test_name_prefixes: Vec<String>,
    /// Suffixes of a file stem that mark a test file.
    pub test_name_suffixes: Vec<String>,
}

impl Default for Classifier {
    fn default() -> Self {
        Classifier {
            code_extensions: vec!["java".into(), "py".into()],
            test_dirs: vec!["test".into(), "tests".into(), "testing".into()],
            test_name_prefixes: vec!["test_".into()],
            test_name_suffixes: vec![
                "Test".into(),
                "Tests".into(),
                "_test".into(),
                "TestCase".into(),
            ],
        }
    }
}

impl Classifier {
    /// Classify a repository-relative path (forward slashes).
    pub fn classify(&self, path: &str) -> FileClass {
        let mut segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let file = segments.pop().unwrap_or("");
        let (stem, ext) = match file.rfind('.') {
            Some(i) if i > 0 => (&file[..i], &file[i + 1..]),
            _ => (file, ""),
        };
        let in_test_dir = segments
            .iter()
            .any(|s| self.test_dirs.iter().any(|t| t == s));
        let test_name = self
            .test_name_prefixes
            .iter()
            .any(|p| stem.starts_with(p.as_str()))
            || self
                .test_name_suffixes
                .iter()
                .any(|p| stem.ends_with(p.as_str()));
        if in_test_dir || (test_name && self.is_code_ext(ext)) {
            FileClass::Test
        } else if self.is_code_ext(ext) {
            FileClass::Code
        } else {
            FileClass::Other
        }
    }

    fn is_code_ext(&self, ext: &str) -> bool {
        self.code_extensions.iter().any(|e| e == ext)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_typical_layouts() {
        let c = Classifier::default();
        assert_eq!(c.classify("src/main/java/a/B.java"), FileClass::Code);
        assert_eq!(c.classify("src/test/java/a/BTest.java"), FileClass::Test);
        assert_eq!(c.classify("pkg/util.py"), FileClass::Code);
        assert_eq!(c.classify("pkg/test_util.py"), FileClass::Test);
        assert_eq!(c.classify("tests/helpers.py"), FileClass::Test);
        assert_eq!(c.classify("README.md"), FileClass::Other);
        assert_eq!(
            c.classify("src/main/resources/x.properties"),
            FileClass::Other
        );
        assert_eq!(c.classify("src/main/java/a/Testable.java"), FileClass::Code);
    }
}
