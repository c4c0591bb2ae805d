//! `env: java: {…}`: the jars of a class path (JUnit console launcher, JUnit 4,
//! hamcrest) linked into the environment, and the command that runs a tree's tests with
//! `javac`, then the JUnit console launcher writing JUnit XML.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use super::kind::{KeyInputs, Kind, Selected};
use super::{file_name, sh_quote, BuiltEnv, EnvCache, EnvError, EnvSpec, JavaSpec};
use crate::validate::runner::{find_in_path, Command, Runner};

impl Kind for JavaSpec {
    fn name(&self) -> &'static str {
        "java"
    }

    fn absolutize(&mut self, resolve: &dyn Fn(&Path) -> PathBuf) -> Result<(), String> {
        for jar in self.jars.iter_mut() {
            *jar = resolve(jar);
            if !jar.is_file() {
                return Err(format!(
                    "{}: no such jar (Debian: junit5, junit4, libhamcrest-java; `make deps` installs them)",
                    jar.display()
                ));
            }
        }
        Ok(())
    }

    fn key_inputs(&self, _repo: &str) -> Result<KeyInputs, EnvError> {
        Ok(KeyInputs {
            facts: Vec::new(),
            files: self.jars.clone(),
        })
    }

    fn build(
        &self,
        _cache: &EnvCache,
        _runner: &Runner,
        _repo: &str,
        _key: &str,
        tmp: &Path,
    ) -> Result<bool, EnvError> {
        if find_in_path("javac").is_none() {
            return Err(EnvError::MissingTool {
                tool: "javac".into(),
                hint: "install a JDK".into(),
            });
        }
        super::fresh(tmp)?;
        let lib = tmp.join("lib");
        fs::create_dir_all(&lib).map_err(|source| EnvError::Write {
            path: lib.clone(),
            source,
        })?;
        for jar in &self.jars {
            let to = lib.join(file_name(jar));
            if fs::hard_link(jar, &to).is_err() {
                fs::copy(jar, &to).map_err(|source| EnvError::Read {
                    path: jar.clone(),
                    source,
                })?;
            }
        }
        Ok(true)
    }

    fn vars(&self, dir: &Path) -> Vec<(OsString, OsString)> {
        let cp = std::env::join_paths(self.class_path(dir)).unwrap_or_default();
        vec![("CLASSPATH".into(), cp)]
    }

    fn class_path(&self, dir: &Path) -> Vec<PathBuf> {
        self.jars
            .iter()
            .map(|jar| dir.join("lib").join(file_name(jar)))
            .collect()
    }

    fn default_command(
        &self,
        env: &BuiltEnv,
        report_dir: &str,
        classes: &[String],
    ) -> Option<Result<Command, EnvError>> {
        Some(java_test_command(env, report_dir, classes))
    }

    fn default_command_runs_classes(&self) -> bool {
        true
    }

    /// A `.java` file under one of the test directories is its class; another `.java`
    /// file is no test; anything else goes to the command as a file.
    fn select(&self, rel: &str) -> Selected {
        if !rel.ends_with(".java") {
            return Selected::File;
        }
        let mut classes = Vec::new();
        for d in &self.test_dirs {
            let d = format!("{}/", d.trim_end_matches('/'));
            if let Some(class) = rel.strip_prefix(&d) {
                classes.push(class.trim_end_matches(".java").replace('/', "."));
            }
        }
        Selected::Classes(classes)
    }
}

/// The command that compiles a Java tree's sources and tests with `javac` and runs
/// them with the JUnit console launcher, writing JUnit XML into `reports_dir`
/// (relative to the working copy). A compile error exits non-zero with no reports,
/// which the verdict calls a build failure.
///
/// `classes` selects test classes (`org.acme.FooTest`); empty runs every test class.
pub fn java_test_command(
    env: &BuiltEnv,
    reports_dir: &str,
    classes: &[String],
) -> Result<Command, EnvError> {
    let EnvSpec::Java(spec) = &env.spec else {
        return Err(EnvError::MissingTool {
            tool: "Java environment".into(),
            hint: "use EnvSpec::Java".into(),
        });
    };
    let cp = env.class_path();
    let launcher = cp
        .iter()
        .find(|j| file_name(j).contains("console-standalone"))
        .ok_or_else(|| EnvError::MissingTool {
            tool: "JUnit console launcher".into(),
            hint: "add junit-platform-console-standalone.jar (Debian junit5) to the jars".into(),
        })?;
    let cp_str = cp
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(":");
    let dirs = |d: &[String]| d.iter().map(sh_quote).collect::<Vec<_>>().join(" ");
    let select = if classes.is_empty() {
        "--scan-class-path \"$B/test-classes\"".to_string()
    } else {
        classes
            .iter()
            .map(|c| format!("--select-class {}", sh_quote(c)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let script = format!(
        "set -e\n\
         B=.hunkgen-build; CP={cp}\n\
         rm -rf \"$B\" {reports}; mkdir -p \"$B/classes\" \"$B/test-classes\"\n\
         find {src} -name '*.java' > \"$B/src.txt\"\n\
         find {test} -name '*.java' > \"$B/test.txt\"\n\
         javac -nowarn -encoding UTF-8 -d \"$B/classes\" -cp \"$CP\" @\"$B/src.txt\"\n\
         javac -nowarn -encoding UTF-8 -d \"$B/test-classes\" -cp \"$B/classes:$CP\" @\"$B/test.txt\"\n\
         exec java -jar {launcher} --disable-banner --details=tree \
         --class-path \"$B/classes:$B/test-classes:$CP\" {select} \
         --reports-dir {reports}\n",
        cp = sh_quote(&cp_str),
        reports = sh_quote(reports_dir),
        src = dirs(&spec.source_dirs),
        test = dirs(&spec.test_dirs),
        launcher = sh_quote(launcher),
    );
    Ok(Command::Shell(script))
}
