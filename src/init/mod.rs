//! `hunkgen init`: a commented recipe that builds as is, inferred from what a repository
//! holds at `HEAD` — its languages, test directories, build and dependency files — on
//! top of the shipped precision presets (`recipes/python-preset.yaml`,
//! `recipes/java-preset.yaml`), with a `validate:` section whose suites run the tests.
//!
//! Every inference is said (`inferred`), and so is what could not be inferred
//! (`not_inferred`): the recipe's header repeats both, `hunkgen init` prints them.

pub mod gradle;
pub mod maven;
mod python;

use crate::git;
use serde::Serialize;
use std::path::{Path, PathBuf};

pub use python::PythonInference;
/// Requirement names as pip compares them, shared with `python: auto`.
pub(crate) use python::{normalize as normalize_distribution, requirement_name};

/// What `hunkgen init` found in a repository.
#[derive(Debug, Clone, Serialize)]
pub struct Inference {
    /// The repository, as given.
    pub repo: PathBuf,
    /// The dataset's name (the repository directory's name).
    pub name: String,
    /// The repository's forge address, from the `origin` remote.
    pub url: Option<String>,
    /// Non-test source files per language at `HEAD`: (`py` | `java`, count).
    pub languages: Vec<(String, usize)>,
    /// The Python suite, when the repository has Python code.
    pub python: Option<PythonInference>,
    /// The Java suite, when the repository has Java code.
    pub java: Option<JavaInference>,
    /// One line per thing inferred.
    pub inferred: Vec<String>,
    /// One line per thing that could not be inferred (the recipe may need an edit there).
    pub not_inferred: Vec<String>,
}

/// The Java suite: where sources and tests live, and the build file that was seen.
#[derive(Debug, Clone, Serialize)]
pub struct JavaInference {
    /// `pom.xml`, `build.gradle`, `build.gradle.kts` or `build.xml`, if any.
    pub build_file: Option<String>,
    /// Source directories.
    pub source_dirs: Vec<String>,
    /// Test directories.
    pub test_dirs: Vec<String>,
    /// A Maven build at the root (`pom.xml`): the suite is `env: maven: auto`, which
    /// resolves the project's dependencies itself.
    pub maven: bool,
    /// A Gradle build at the root and no pom: the suite is `env: gradle: auto`.
    pub gradle: bool,
}

/// Why a repository could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// Not a git repository, or no `HEAD`.
    #[error("{path}: {source}")]
    Git {
        /// The repository.
        path: PathBuf,
        /// git's error.
        #[source]
        source: git::GitError,
    },
    /// Neither Python nor Java code at `HEAD`.
    #[error("{0}: no Python or Java source file at HEAD; hunkgen mines those two languages")]
    NoCode(PathBuf),
    /// The recipe file exists and `--force` was not given.
    #[error("{0}: exists; pass --force to replace it")]
    Exists(PathBuf),
    /// The recipe file could not be written.
    #[error("{path}: cannot write: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// Whether a repository path is a test file or under a test directory, by the default
/// file roles the written recipe keeps (`files:` of the presets).
pub(crate) fn is_test_path(path: &str) -> bool {
    static ROLES: std::sync::LazyLock<crate::classify::Classifier> =
        std::sync::LazyLock::new(crate::classify::Classifier::default);
    ROLES.classify(path) == crate::classify::FileClass::Test
}

/// What a Python tree declares (layout, dependencies, runner, requires-python), from its
/// paths and a reader of its files: what `init` writes and `python: auto` installs.
pub fn python_project(paths: &[String], read: &dyn Fn(&str) -> Option<String>) -> PythonInference {
    python::infer(paths, read, true, &mut Vec::new(), &mut Vec::new())
}

/// Read the repository at `HEAD` and infer a recipe's parts; `python_auto` writes
/// `python: auto` (each commit's own environment) rather than one install line.
pub fn infer(repo: &Path, python_auto: bool) -> Result<Inference, InitError> {
    let git_err = |source| InitError::Git {
        path: repo.to_path_buf(),
        source,
    };
    let paths = git::tree_paths(repo, "HEAD").map_err(git_err)?;
    let read = |p: &str| -> Option<String> {
        git::read_blob(repo, "HEAD", p, &[])
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let count = |ext: &str| {
        paths
            .iter()
            .filter(|p| p.ends_with(ext) && !is_test_path(p))
            .count()
    };
    let mut languages: Vec<(String, usize)> = [("py", count(".py")), ("java", count(".java"))]
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(l, n)| (l.to_string(), n))
        .collect();
    languages.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    if languages.is_empty() {
        return Err(InitError::NoCode(repo.to_path_buf()));
    }
    let abs = std::path::absolute(repo).unwrap_or_else(|_| repo.to_path_buf());
    let name = abs
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".git").to_string())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "dataset".into());
    let url = git::origin_url(repo).and_then(|u| forge_url(&u));
    let mut inf = Inference {
        repo: repo.to_path_buf(),
        name: slug(&name),
        url,
        languages: languages.clone(),
        python: None,
        java: None,
        inferred: Vec::new(),
        not_inferred: Vec::new(),
    };
    let langs: Vec<String> = languages
        .iter()
        .map(|(l, n)| format!("{l} ({n} source files)"))
        .collect();
    inf.inferred
        .push(format!("languages at HEAD: {}", langs.join(", ")));
    match &inf.url {
        Some(u) => {
            inf.inferred.push(format!("forge address from origin: {u}"));
            if u.starts_with("https://github.com/") {
                inf.not_inferred.push(
                    "whether its GitHub issue labels tell bugs from features: uncomment `issue_labels: {}` to reject commits whose issues are labelled enhancement/feature and none bug (it asks GitHub's API)"
                        .into(),
                );
            }
        }
        None => inf.not_inferred.push(
            "the forge address (no https origin remote): set `source.git.url` for issue links"
                .into(),
        ),
    }
    if languages.iter().any(|(l, _)| l == "py") {
        inf.python = Some(python::infer(
            &paths,
            &read,
            python_auto,
            &mut inf.inferred,
            &mut inf.not_inferred,
        ));
    }
    if languages.iter().any(|(l, _)| l == "java") {
        inf.java = Some(java(
            &paths,
            &read,
            &mut inf.inferred,
            &mut inf.not_inferred,
        ));
    }
    Ok(inf)
}

fn java(
    paths: &[String],
    read: &dyn Fn(&str) -> Option<String>,
    inferred: &mut Vec<String>,
    not_inferred: &mut Vec<String>,
) -> JavaInference {
    // Maven/Gradle modules at any depth: every directory ending in src/main/java (or
    // src/test/java) that holds a .java file; else src/ and test/ at the root.
    let dirs_ending = |suffix: &str| -> Vec<String> {
        let mut d: Vec<String> = paths
            .iter()
            .filter(|p| p.ends_with(".java"))
            .filter_map(|p| {
                let at = p.find(&format!("{suffix}/"))?;
                (at == 0 || p[..at].ends_with('/')).then(|| p[..at + suffix.len()].to_string())
            })
            .collect();
        d.sort();
        d.dedup();
        d
    };
    let has_dir = |d: &str| paths.iter().any(|p| p.starts_with(&format!("{d}/")));
    let build_file = ["pom.xml", "build.gradle", "build.gradle.kts", "build.xml"]
        .into_iter()
        .find(|f| {
            paths
                .iter()
                .any(|p| p == f || p.ends_with(&format!("/{f}")))
        })
        .and_then(|f| {
            paths
                .iter()
                .filter(|p| *p == f || p.ends_with(&format!("/{f}")))
                .min_by_key(|p| p.len())
        })
        .cloned();
    let mut source_dirs = dirs_ending("src/main/java");
    if source_dirs.is_empty() {
        source_dirs = ["src/java", "src"]
            .iter()
            .find(|d| has_dir(d))
            .map(|d| vec![d.to_string()])
            .unwrap_or_default();
    }
    let mut test_dirs = dirs_ending("src/test/java");
    if test_dirs.is_empty() {
        test_dirs = ["src/test", "test", "tests"]
            .iter()
            .find(|d| has_dir(d))
            .map(|d| vec![d.to_string()])
            .unwrap_or_default();
    }
    let list = |d: &[String]| {
        if d.is_empty() {
            "(none found)".to_string()
        } else {
            d.join(", ")
        }
    };
    inferred.push(format!(
        "Java: sources in {}, tests in {}{}",
        list(&source_dirs),
        list(&test_dirs),
        build_file
            .as_ref()
            .map(|b| format!(", build file {b}"))
            .unwrap_or_default()
    ));
    if paths.iter().any(|p| p == "pom.xml") {
        inferred.push(maven_line(paths, read));
        return JavaInference {
            build_file,
            source_dirs,
            test_dirs,
            maven: true,
            gradle: false,
        };
    }
    if let Some(b) = ["build.gradle", "build.gradle.kts"]
        .into_iter()
        .find(|b| paths.iter().any(|p| p == b))
    {
        inferred.push(gradle_line(b, read));
        return JavaInference {
            build_file,
            source_dirs,
            test_dirs,
            maven: false,
            gradle: true,
        };
    }
    let deps = build_file
        .as_deref()
        .filter(|b| b.ends_with("pom.xml"))
        .and_then(read)
        .map(|pom| pom.matches("<dependency>").count())
        .unwrap_or(0);
    not_inferred.push(format!(
        "Java class path: the suite compiles with javac and JUnit only{}; add the jars of \
         the project's dependencies to `jars:` if its tests need them",
        if deps > 0 {
            format!(
                " ({} declares {deps} dependencies)",
                build_file.as_deref().unwrap_or("pom.xml")
            )
        } else {
            String::new()
        }
    ));
    JavaInference {
        build_file,
        source_dirs,
        test_dirs,
        maven: false,
        gradle: false,
    }
}

/// What `init` says of a root Gradle build: the suite it writes, the wrapper's version,
/// and whether that distribution is on this machine (it is never downloaded).
fn gradle_line(build: &str, read: &dyn Fn(&str) -> Option<String>) -> String {
    use crate::init::gradle;
    let version = read(gradle::WRAPPER_PROPERTIES)
        .as_deref()
        .and_then(gradle::wrapper_version);
    let here = match gradle::Places::from_env().find(version.as_deref()) {
        Ok(f) => format!("found in {} ({})", f.origin, f.launcher.display()),
        Err(_) => "not on this machine, so every instance is build_tool_unavailable                    until it is (Gradle is published only on services.gradle.org)"
            .to_string(),
    };
    format!(
        "Gradle build ({build}): env `gradle: auto`; at HEAD the wrapper asks for {}: {here}",
        version
            .map(|v| format!("Gradle {v}"))
            .unwrap_or_else(|| "no version (no wrapper)".into())
    )
}

/// What `init` says of a root `pom.xml`: the suite it writes and what the poms declare
/// at `HEAD` (each commit's own are read again when it is validated).
fn maven_line(paths: &[String], read: &dyn Fn(&str) -> Option<String>) -> String {
    let what = match maven::declare(read, paths, 0) {
        Ok(d) => {
            format!(
                "{} module(s) ({}), Java level {}",
                d.modules.len(),
                d.modules
                    .iter()
                    .map(|m| m.dir.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                d.java_level
                    .map(|l| format!("{} ({})", l.written, l.origin))
                    .unwrap_or_else(|| "not declared".into())
            ) + &d
                .wrapper_maven
                .map(|v| {
                    format!(
                        ", the wrapper's Maven {v} (run when it is newer than the installed mvn, \
                     fetched from Maven Central once)"
                    )
                })
                .unwrap_or_default()
        }
        Err(e) => format!("the poms do not read at HEAD: {e}"),
    };
    format!(
        "Maven build (pom.xml): env `maven: auto`: each commit's JDK chosen from its poms, \
         its dependencies resolved once per build files, tests run with `mvn -o`; at HEAD: {what}"
    )
}

/// `https://host/owner/repo` from a remote URL (`https://…(.git)`, `git@host:owner/repo`).
fn forge_url(remote: &str) -> Option<String> {
    let r = remote.trim().trim_end_matches('/').trim_end_matches(".git");
    let (host, path) = if let Some(rest) = r.strip_prefix("https://") {
        rest.split_once('/')?
    } else if let Some(rest) = r.strip_prefix("git@") {
        rest.split_once(':')?
    } else {
        return None;
    };
    let host = host.rsplit('@').next().unwrap_or(host);
    let parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    (parts.len() >= 2 && !host.is_empty()).then(|| format!("https://{host}/{}", parts.join("/")))
}

/// A dataset name: letters, digits, `-`, `_` and `.`.
fn slug(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

const PYTHON_PRESET: &str = include_str!("../../recipes/python-preset.yaml");
const JAVA_PRESET: &str = include_str!("../../recipes/java-preset.yaml");

/// Single-quoted for YAML.
fn yq(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The recipe's text: a header saying what was and was not inferred, the preset of the
/// main language with this repository filled in, and the `validate:` section.
/// `repo_in_recipe` is the repository's path as the recipe names it (relative to the
/// recipe's directory, or absolute).
pub fn render(inf: &Inference, repo_in_recipe: &str) -> String {
    let main = inf
        .languages
        .first()
        .map(|(l, _)| l.as_str())
        .unwrap_or("py");
    let preset = if main == "java" {
        JAVA_PRESET
    } else {
        PYTHON_PRESET
    };
    let mut out = String::new();
    out.push_str(&format!(
        "# Written by `hunkgen init` for {} from what it holds at HEAD, on top of\n\
         # recipes/{}-preset.yaml (its rules tuned for precision). `hunkgen build` this file.\n#\n",
        inf.repo.display(),
        if main == "java" { "java" } else { "python" }
    ));
    out.push_str("# Inferred:\n");
    for l in &inf.inferred {
        out.push_str(&format!("#   - {l}\n"));
    }
    if !inf.not_inferred.is_empty() {
        out.push_str("# Not inferred (check these):\n");
        for l in &inf.not_inferred {
            out.push_str(&format!("#   - {l}\n"));
        }
    }
    let exts: Vec<&str> = inf.languages.iter().map(|(l, _)| l.as_str()).collect();
    let mut body = String::new();
    for line in preset.lines().skip_while(|l| l.starts_with('#')) {
        let t = line.trim_start();
        let indent = &line[..line.len() - t.len()];
        let replaced = if t.starts_with("name: ") && indent.is_empty() {
            format!("name: {}", inf.name)
        } else if t.starts_with("repo: ") {
            format!("{indent}repo: {}", yq(repo_in_recipe))
        } else if t.starts_with("url: ") {
            match &inf.url {
                Some(u) => format!("{indent}url: {u}"),
                None => format!("{indent}# url: https://github.com/owner/repo"),
            }
        } else if t.starts_with("issue_regex: ") || t.starts_with("issue_url: ") {
            format!("{indent}# {t}")
        } else if t.starts_with("code_extensions: ") {
            format!(
                "{indent}code_extensions: [{}]           # code files; tests are found by directory and file name",
                exts.join(", ")
            )
        } else {
            line.to_string()
        };
        body.push_str(&replaced);
        body.push('\n');
        // A rule the validation below makes possible: a preset alone has no failures.
        if t.starts_with("skip_import_only_hunks:") && inf.python.is_some() {
            body.push_str(&format!(
                "{indent}reject_new_api_only: true     # its tests fail only on a name it adds: a feature\n"
            ));
            body.push_str(&format!(
                "{indent}min_necessary_hunks: 2        # each hunk left out in turn: at least two must be needed to pass\n"
            ));
        }
    }
    out.push_str(&body);
    out.push_str(&validate_section(inf));
    out
}

fn validate_section(inf: &Inference) -> String {
    let mut s = String::from(
        "# Golden tests, proven by running them in the sandbox (docs/validate.md): each\n\
         # instance runs the test files its test patch touches, before and after the fix.\n\
         validate:\n  reruns: 2\n  timeout: 600\n",
    );
    if inf.java.is_none() {
        // A JVM reserves more address space than it uses: no limit for Java suites.
        s.push_str(
            "  memory_mb: 8192           # address space per run: a runaway test fails, the machine stays up\n",
        );
    }
    s.push_str("  suites:\n");
    let both = inf.python.is_some() && inf.java.is_some();
    if let Some(p) = &inf.python {
        s.push_str(&p.suite(both));
    }
    if let Some(j) = inf.java.as_ref().filter(|j| j.maven) {
        s.push_str("    - name: maven\n");
        if both && !j.test_dirs.is_empty() {
            let dirs: Vec<String> = j.test_dirs.iter().map(|t| yq(&format!("{t}/"))).collect();
            s.push_str(&format!("      paths: [{}]\n", dirs.join(", ")));
        }
        s.push_str(
            "      # JDK, local repository and `mvn -o` per commit (docs/validate.md).\n      \
             env:\n        maven: auto\n      report: junit\n",
        );
    } else if let Some(j) = inf.java.as_ref().filter(|j| j.gradle) {
        s.push_str("    - name: gradle\n");
        if both && !j.test_dirs.is_empty() {
            let dirs: Vec<String> = j.test_dirs.iter().map(|t| yq(&format!("{t}/"))).collect();
            s.push_str(&format!("      paths: [{}]\n", dirs.join(", ")));
        }
        s.push_str(
            "      # The wrapper's Gradle where it is installed, else build_tool_unavailable (docs/validate.md).\n      \
             env:\n        gradle: auto\n      report: junit\n",
        );
    } else if let Some(j) = &inf.java {
        s.push_str("    - name: java\n");
        if both && !j.test_dirs.is_empty() {
            let dirs: Vec<String> = j.test_dirs.iter().map(|t| yq(&format!("{t}/"))).collect();
            s.push_str(&format!("      paths: [{}]\n", dirs.join(", ")));
        }
        s.push_str(&format!(
            "      workdir: .\n      env:\n        java:\n          # JUnit 4 and 5 with the console launcher (Debian: junit4 junit5 libhamcrest-java).\n          jars: [/usr/share/java/junit-platform-console-standalone.jar]\n          source_dirs: [{}]\n          test_dirs: [{}]\n      report: junit\n",
            j.source_dirs.iter().map(|d| yq(d)).collect::<Vec<_>>().join(", "),
            j.test_dirs.iter().map(|d| yq(d)).collect::<Vec<_>>().join(", ")
        ));
    }
    s.push_str(
        "# Repository states (FixedBench): Novel, Partial and Resolved, with and without history.\n\
         states:\n  kinds: [novel, partial, resolved]\n  scenarios: [best, worst]\n",
    );
    s
}

/// Write `text` to `path` (a temporary name, then a rename), refusing to replace an
/// existing file unless `force`.
pub fn write(path: &Path, text: &str, force: bool) -> Result<(), InitError> {
    if path.exists() && !force {
        return Err(InitError::Exists(path.to_path_buf()));
    }
    let err = |source| InitError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(err)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".hunkgen-init-")
        .tempfile_in(dir)
        .map_err(err)?;
    std::io::Write::write_all(&mut tmp, text.as_bytes()).map_err(err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

/// The repository's path as a recipe at `recipe` should name it: relative to the
/// recipe's directory when both are below one directory, else absolute.
pub fn repo_path_for(recipe: &Path, repo: &Path) -> String {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let repo = abs(repo);
    let dir = abs(recipe)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let r: Vec<_> = repo.components().collect();
    let d: Vec<_> = dir.components().collect();
    let common = r.iter().zip(&d).take_while(|(a, b)| a == b).count();
    if common <= 1 {
        return repo.display().to_string();
    }
    let mut rel = PathBuf::new();
    for _ in common..d.len() {
        rel.push("..");
    }
    for c in &r[common..] {
        rel.push(c);
    }
    if rel.as_os_str().is_empty() {
        ".".into()
    } else {
        rel.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forge_urls_from_remotes() {
        assert_eq!(
            forge_url("https://github.com/pallets/click.git").as_deref(),
            Some("https://github.com/pallets/click")
        );
        assert_eq!(
            forge_url("git@github.com:pallets/click.git").as_deref(),
            Some("https://github.com/pallets/click")
        );
        assert_eq!(forge_url("/srv/mirrors/click.git"), None);
    }

    #[test]
    fn repo_paths_are_relative_to_the_recipe() {
        assert_eq!(
            repo_path_for(Path::new("/w/recipes/r.yaml"), Path::new("/w/src/click")),
            "../src/click"
        );
        assert_eq!(
            repo_path_for(Path::new("/w/r.yaml"), Path::new("/w/click")),
            "click"
        );
        assert_eq!(
            repo_path_for(Path::new("/a/r.yaml"), Path::new("/b/click")),
            "/b/click"
        );
    }

    #[test]
    fn test_paths() {
        assert!(is_test_path("tests/test_a.py"));
        assert!(is_test_path("src/test/java/org/ATest.java"));
        assert!(is_test_path("pkg/a_test.py"));
        assert!(!is_test_path("src/pkg/core.py"));
        assert!(!is_test_path("src/main/java/org/A.java"));
    }
}
