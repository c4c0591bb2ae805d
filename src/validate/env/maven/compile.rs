//! What a failed compile says: whether Maven's compiler plugin failed on main or test
//! code, javac's first error with the file named by its path in the tree, and the level
//! javac refused, which re-chooses the JDK (resolve.rs) and is remembered per key
//! (learned.rs).

use std::fs;

use super::super::EnvError;

/// A failed resolve step whose log says the compiler plugin failed: the tree's main or
/// test code does not compile with the JDK chosen (the resolve run compiles every test,
/// whichever it selects), a compile error rather than an environment failure.
pub(super) fn compile_failure(repo: &str, e: EnvError) -> EnvError {
    let EnvError::Step { log, .. } = &e else {
        return e;
    };
    let text = fs::read(log)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let failed = |goal: &str| {
        text.lines()
            .find(|l| l.contains("Failed to execute goal") && l.contains(goal))
            .map(|l| l.trim_start_matches("[ERROR] ").to_string())
    };
    let (test, line) = match (failed(":testCompile ("), failed(":compile (")) {
        (Some(l), _) => (true, l),
        (None, Some(l)) => (false, l),
        (None, None) => return e,
    };
    let first = text
        .lines()
        .find(|l| {
            l.starts_with("[ERROR] ")
                && ((l.starts_with("[ERROR] /") && l.contains(".java:"))
                    || l.contains("error: ")
                    || l.contains(" is no longer supported"))
        })
        .map(|l| in_tree(l.trim_start_matches("[ERROR] ")))
        .unwrap_or_default();
    EnvError::Compile {
        repo: repo.to_string(),
        test,
        why: format!("{line}; first error: {first}; see {}", log.display()),
    }
}

/// javac's line with the resolve's temporary directory taken off its path (`<envs>/.tmp-
/// <key>-<pid>-…/src/a/B.java` → `a/B.java`): the path in the tree, the same line in
/// every build.
fn in_tree(line: &str) -> String {
    let Some(at) = line.find("/.tmp-") else {
        return line.to_string();
    };
    // javac's line starts with the path (which may hold spaces); another names it later.
    let start = match line.starts_with('/') {
        true => 0,
        false => line[..at].rfind(' ').map_or(0, |i| i + 1),
    };
    let rest = &line[at + 1..];
    // Past the temporary directory and the tree's own directory below it.
    let mut cut = rest.splitn(3, '/');
    match (cut.next(), cut.next(), cut.next()) {
        (Some(_), Some(_), Some(path)) => format!("{}{path}", &line[..start]),
        _ => line.to_string(),
    }
}

/// The level javac refused in a compile failure's words (`Source option 1.3 is no
/// longer supported` → 3; `Target option 5 …` → 5).
pub(super) fn refused_level(why: &str) -> Option<u32> {
    ["Source option ", "Target option "].iter().find_map(|p| {
        let (_, after) = why.split_once(p)?;
        let (level, rest) = after.split_once(' ')?;
        if !rest.starts_with("is no longer supported") {
            return None;
        }
        level.strip_prefix("1.").unwrap_or(level).parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_level_javac_refuses_is_read_from_its_words() {
        assert_eq!(
            refused_level(
                "first error: error: Source option 1.3 is no longer supported. Use 6 or later.; see x"
            ),
            Some(3)
        );
        assert_eq!(
            refused_level("error: Target option 5 is no longer supported. Use 7 or later."),
            Some(5)
        );
        assert_eq!(refused_level("cannot find symbol"), None);
        assert_eq!(refused_level("Source option 1.3 is fine"), None);
    }

    /// A compile failure names the file by its path in the tree, not in the resolve's
    /// temporary directory (whose name holds a process id): a rebuild writes the same line.
    #[test]
    fn a_compile_error_names_the_file_in_the_tree() {
        let line = "/c/envs/.tmp-numbers-maven-d608-12298-5-a06c/src/arrays/src/test/java/A.java:[39,29] incompatible types";
        assert_eq!(
            in_tree(line),
            "arrays/src/test/java/A.java:[39,29] incompatible types"
        );
        assert_eq!(
            in_tree("error: Source option 1.3"),
            "error: Source option 1.3"
        );
        assert_eq!(
            in_tree("/my envs/.tmp-k-1-2-3/src/A.java:[1,2] x"),
            "A.java:[1,2] x"
        );
        assert_eq!(
            in_tree("see /c/.tmp-k-1-2-3/src/A.java:[1,2] x"),
            "see A.java:[1,2] x"
        );
        let dir = tempfile::tempdir().expect("tempdir");
        let log = dir.path().join("resolve.log");
        for pid in ["12298-5-a06c", "19447-1-b0a7"] {
            fs::write(
                &log,
                format!(
                    "[ERROR] /c/envs/.tmp-k-{pid}/src/m/src/main/java/B.java:[3,5] cannot find symbol\n\
                     [ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.8.1:compile (default-compile) on project m: Compilation failure\n"
                ),
            )
            .expect("log");
            let e = compile_failure(
                "r",
                EnvError::Step {
                    repo: "r".into(),
                    step: "resolve".into(),
                    exit: "exit status 1".into(),
                    tail: String::new(),
                    log: log.clone(),
                },
            );
            let EnvError::Compile { test, why, .. } = e else {
                panic!("not a compile error: {e}");
            };
            assert!(!test);
            assert!(
                why.contains("first error: m/src/main/java/B.java:[3,5] cannot find symbol;"),
                "{why}"
            );
            assert!(!why.contains(".tmp-"), "{why}");
        }
    }
}
