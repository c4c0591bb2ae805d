//! The command that runs a Java environment's tests: `javac`, then the JUnit console
//! launcher writing JUnit XML.

use super::{file_name, sh_quote, BuiltEnv, EnvError, EnvSpec};
use crate::validate::runner::Command;

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
