//! What a key's resolve run taught, remembered: the Maven a plugin requires, or the
//! level an external parent sets that javac refused. Either makes `maven: auto` key
//! the instance again; remembered, a later build goes straight to the second key
//! instead of running (online) the resolve that is known to fail. Those two follow from
//! the build files alone, which is all a key hashes, so every tree of the key shares
//! them. Code that does not compile is the tree's own: that lesson is kept for the key
//! *and* the tree (base and changes), so a warm rebuild does not resolve it again and
//! another commit with the same poms is never refused for it.

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
    /// Main or test code did not compile ([`EnvError::Compile`]): javac's words, from
    /// which a refused level is read again.
    Compile {
        /// Maven's failing goal and the compiler's first error.
        why: String,
        /// Test code (absent in lessons written before it: main code).
        #[serde(default)]
        test: bool,
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
            EnvError::Compile { test, why, .. } => Some(Lesson::Compile {
                why: why.clone(),
                test: *test,
            }),
            _ => None,
        }
    }

    /// Whether the lesson follows from the key's build files alone (a Maven a plugin
    /// requires, a level javac refuses), so it holds for every tree of the key.
    pub fn shared(&self) -> bool {
        match self {
            Lesson::NeedsMaven { .. } => true,
            Lesson::Compile { why, test } => !*test && super::compile::refused_level(why).is_some(),
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
            Lesson::Compile { why, test } => EnvError::Compile {
                repo: repo.to_string(),
                test,
                why,
            },
        }
    }
}

fn path(root: &Path, key: &str, tree: Option<&str>) -> PathBuf {
    match tree {
        None => root.join(DIR).join(format!("{key}.json")),
        Some(tree) => root.join(DIR).join(format!("{key}@{tree}.json")),
    }
}

fn read(path: &Path) -> Option<Lesson> {
    serde_json::from_slice(&fs::read(path).ok()?).ok()
}

/// What `key`'s resolve run taught for `tree` (a digest of the base and its changes), if
/// it ran before and failed so: a lesson of the key's build files, else one of that
/// tree. A lesson of one tree under the key's name alone (written before trees were
/// told apart) is not taken for another tree.
pub fn recall(root: &Path, key: &str, tree: &str) -> Option<Lesson> {
    read(&path(root, key, None))
        .filter(Lesson::shared)
        .or_else(|| read(&path(root, key, Some(tree))))
}

/// Remembers `lesson` for `key`, or for `key` and `tree` when it is the tree's own
/// (written under a temporary name and renamed; a lesson that cannot be written is only
/// not remembered).
pub fn remember(root: &Path, key: &str, tree: &str, lesson: &Lesson) {
    let target = path(root, key, (!lesson.shared()).then_some(tree));
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
        assert_eq!(recall(root.path(), "k", "t1"), None);
        let e = EnvError::NeedsMaven {
            repo: "r".into(),
            by: "org.apache.rat:apache-rat-plugin:0.18".into(),
            min: "3.9".into(),
            why: "requires Maven version 3.9".into(),
        };
        let lesson = Lesson::of(&e).expect("a lesson");
        remember(root.path(), "k", "t1", &lesson);
        // The build files' lesson holds for another tree of the key too.
        let back = recall(root.path(), "k", "t2").expect("recalled");
        assert!(matches!(
            back.error("r"),
            EnvError::NeedsMaven { ref min, .. } if min == "3.9"
        ));
        let refused = Lesson::of(&EnvError::Compile {
            repo: "r".into(),
            test: false,
            why: "Source option 3 is no longer supported".into(),
        })
        .expect("a lesson");
        assert!(refused.shared());
    }

    /// Code that does not compile is its tree's: remembered for that tree (main or test
    /// code), never recalled for another commit whose poms are the same.
    #[test]
    fn a_compile_error_is_the_trees_own() {
        let root = tempfile::tempdir().expect("tempdir");
        for test in [false, true] {
            let key = format!("k-{test}");
            let e = EnvError::Compile {
                repo: "r".into(),
                test,
                why: "Foo.java:[3,5] cannot find symbol".into(),
            };
            let lesson = Lesson::of(&e).expect("a lesson");
            assert!(!lesson.shared());
            remember(root.path(), &key, "broken", &lesson);
            assert_eq!(recall(root.path(), &key, "sound"), None);
            let back = recall(root.path(), &key, "broken").expect("recalled");
            assert!(matches!(back.error("r"), EnvError::Compile { test: t, .. } if t == test));
        }
        // A lesson of one tree written under the key alone (before trees were told
        // apart) is not taken for any tree.
        let old = root.path().join(DIR).join("old.json");
        fs::write(
            &old,
            br#"{"compile":{"why":"Foo.java:[3,5] cannot find symbol"}}"#,
        )
        .expect("old lesson");
        assert_eq!(recall(root.path(), "old", "any"), None);
        let old_level = root.path().join(DIR).join("lvl.json");
        fs::write(
            &old_level,
            br#"{"compile":{"why":"Source option 3 is no longer supported"}}"#,
        )
        .expect("old lesson");
        assert!(recall(root.path(), "lvl", "any").is_some());
    }
}
