//! What a key's resolve run taught, remembered: the Maven a plugin requires, or the
//! level an external parent sets that javac refused. Either makes `maven: auto` key
//! the instance again; remembered, a later build goes straight to the second key
//! instead of running (online) the resolve that is known to fail.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::super::EnvError;

/// Where the lessons live, below the environment cache's root.
const DIR: &str = ".learned";

/// A failure of a key's resolve run that changes the key, as remembered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lesson {
    /// A plugin refuses this Maven ([`EnvError::NeedsMaven`]).
    NeedsMaven {
        /// The plugin.
        by: String,
        /// The least version it takes.
        min: String,
        /// What Maven said.
        why: String,
    },
    /// Main code did not compile ([`EnvError::Compile`], `test: false`): javac's words,
    /// from which the refused level is read again.
    Compile {
        /// Maven's failing goal and the compiler's first error.
        why: String,
    },
}

impl Lesson {
    /// The lesson in `e`, when `e` is one that changes the key.
    pub fn of(e: &EnvError) -> Option<Lesson> {
        match e {
            EnvError::NeedsMaven { by, min, why, .. } => Some(Lesson::NeedsMaven {
                by: by.clone(),
                min: min.clone(),
                why: why.clone(),
            }),
            EnvError::Compile {
                test: false, why, ..
            } => Some(Lesson::Compile { why: why.clone() }),
            _ => None,
        }
    }

    /// The error the resolve run of `repo` gave.
    pub fn error(self, repo: &str) -> EnvError {
        match self {
            Lesson::NeedsMaven { by, min, why } => EnvError::NeedsMaven {
                repo: repo.to_string(),
                by,
                min,
                why,
            },
            Lesson::Compile { why } => EnvError::Compile {
                repo: repo.to_string(),
                test: false,
                why,
            },
        }
    }
}

fn path(root: &Path, key: &str) -> PathBuf {
    root.join(DIR).join(format!("{key}.json"))
}

/// What `key`'s resolve run taught, if it ran before and failed so.
pub fn recall(root: &Path, key: &str) -> Option<Lesson> {
    let text = fs::read(path(root, key)).ok()?;
    serde_json::from_slice(&text).ok()
}

/// Remembers `lesson` for `key` (written under a temporary name and renamed; a lesson
/// that cannot be written is only not remembered).
pub fn remember(root: &Path, key: &str, lesson: &Lesson) {
    let target = path(root, key);
    let Some(dir) = target.parent() else {
        return;
    };
    let Ok(bytes) = serde_json::to_vec(lesson) else {
        return;
    };
    if fs::create_dir_all(dir).is_err() {
        return;
    }
    if let Ok(tmp) = tempfile::NamedTempFile::new_in(dir) {
        if fs::write(tmp.path(), &bytes).is_ok() {
            let _ = tmp.persist(&target);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lesson_is_recalled_as_the_error_it_was() {
        let root = tempfile::tempdir().expect("tempdir");
        assert_eq!(recall(root.path(), "k"), None);
        let e = EnvError::NeedsMaven {
            repo: "r".into(),
            by: "org.apache.rat:apache-rat-plugin:0.18".into(),
            min: "3.9".into(),
            why: "requires Maven version 3.9".into(),
        };
        let lesson = Lesson::of(&e).expect("a lesson");
        remember(root.path(), "k", &lesson);
        let back = recall(root.path(), "k").expect("recalled");
        assert!(matches!(
            back.error("r"),
            EnvError::NeedsMaven { ref min, .. } if min == "3.9"
        ));
        // Test code that does not compile changes no key: nothing to learn.
        let test_code = EnvError::Compile {
            repo: "r".into(),
            test: true,
            why: "x".into(),
        };
        assert_eq!(Lesson::of(&test_code), None);
        assert!(Lesson::of(&EnvError::Compile {
            repo: "r".into(),
            test: false,
            why: "Source option 3 is no longer supported".into(),
        })
        .is_some());
    }
}
