//! The `validation{}` record of an instance: how its golden tests were proven by running
//! them, so a reader can judge (and `hunkgen validate` can re-check) the labels.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How an instance's FAIL_TO_PASS / PASS_TO_PASS were obtained.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ValidationRecord {
    /// Test suites run (recipe `validate.suites[].name`).
    pub suites: Vec<String>,
    /// Scope: `touched` (the test files the test patch touches) or `full`.
    pub scope: String,
    /// Runs per tree: base, base + test patch, base + test patch + patch.
    pub runs: TreeRuns,
    /// Wall seconds of the test processes per tree (all reruns summed).
    pub seconds: TreeSeconds,
    /// Tests per label: `f2p`, `p2p`, `f2f`, `p2f`, `s2p`, `n2p`.
    pub labels: BTreeMap<String, usize>,
    /// Tests whose outcome differed between reruns of one tree (excluded from labels).
    pub flaky: Vec<String>,
    /// Environment keys (hash of repository, spec and dependency files), one per suite.
    pub environments: Vec<String>,
    /// Whether the runs were sandboxed (bubblewrap).
    pub sandboxed: bool,
    /// Why the tests could not be collected or compiled on base + test patch (they use
    /// what the fix adds), so they count as absent before, as SWE-bench grades them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_unbuilt: Option<String>,
    /// Defects4J instances: whether the proven FAIL_TO_PASS equals Defects4J's own
    /// `trigger_tests` (the instance is rejected when it does not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d4j_agrees: Option<bool>,
    /// Defects4J instances: the tests Defects4J lists in `failing_tests` as broken on
    /// the fixed version, left out of the labels.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub d4j_excluded: Vec<String>,
    /// `python: auto`: the interpreter and dependency pin chosen for this instance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<PythonRecord>,
    /// `maven: auto`: the JDK, level and Maven chosen for this instance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maven: Option<MavenRecord>,
    /// `env: swebench`: the row's spec and what its environment was made of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swebench: Option<SwebenchRecord>,
    /// SWE-bench rows: whether the proven FAIL_TO_PASS and PASS_TO_PASS equal the row's
    /// published lists, as sets (the instance is rejected when they do not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_agrees: Option<bool>,
}

/// What `env: swebench` made for a row, so a reader can see where it differs from the
/// official harness's container.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SwebenchRecord {
    /// The row's version (the key of the package's spec table).
    pub version: String,
    /// SHA-256 of the spec as the package holds it.
    pub spec_hash: String,
    /// The `swebench` package's version the spec came from.
    pub package: String,
    /// The interpreter's version (`3.9.18`).
    pub interpreter: String,
    /// The official log parser that read the runs (`parse_log_pytest`).
    pub parser: String,
    /// The test command with its directives, as the harness runs it.
    pub test_command: String,
    /// Installers added to the environment as conda creates them (`pip`, `setuptools`,
    /// `wheel`) where the spec names none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added: Vec<String>,
    /// conda packages installed under their PyPI names (`matplotlib-base -> matplotlib`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub renamed: Vec<String>,
    /// conda-only packages of the spec that pip cannot install, left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conda_only: Vec<String>,
    /// Where the harness's export of the row's environment came from, when the
    /// environment was pinned from one (`the swebench package`, or the file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub export: Option<String>,
    /// Pins of that export pip could not install (no such release on PyPI, a build
    /// that fails), left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
    /// Constraints put on old sdist builds (an older setuptools).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub build_constraints: Vec<String>,
    /// System commands of the spec a rootless run does not do (package managers,
    /// locales), not run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
}

/// What `maven: auto` chose for an instance, so a reader can rebuild its environment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MavenRecord {
    /// The JDK's version (`17.0.15`).
    pub jdk: String,
    /// Why that JDK (the tree's level, the enforcer's range, the commit's era).
    pub chosen: String,
    /// The Java level compiled at, when the tree declares one (after any lift).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u32>,
    /// The level the tree declares when no JDK found takes it and it was lifted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifted_from: Option<u32>,
    /// `mvn --version`'s first line (`Apache Maven 3.8.7`).
    pub maven: String,
    /// Why that Maven rather than the installed one (the wrapper names a newer release,
    /// or a plugin requires one); none when it is the installed `mvn`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maven_from: Option<String>,
    /// The reactor's module directories, root (`.`) first.
    pub modules: Vec<String>,
    /// Build-file repairs the resolve step made (an unreachable parent or BOM snapshot
    /// resolved at its release), one line each; none is the usual case.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<String>,
}

/// What `python: auto` chose for an instance, and the rung of its dependency ladder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PythonRecord {
    /// The interpreter's version (`3.6.15`).
    pub version: String,
    /// Why that interpreter (requires-python, declared versions, the commit's era).
    pub chosen: String,
    /// `pinned` (dependencies of the commit's date), `exempt` (pinned, with `exempt`
    /// at their newest) or `unpinned` (today's).
    pub step: String,
    /// The cut-off of the pin (the commit's committer date), unless unpinned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned_to: Option<String>,
    /// Packages taken at their newest because their release of the date did not build.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exempt: Vec<String>,
    /// Requirements declared only for development (a `dev` extra, a requirements file
    /// named for development) that no file the tests load imports, left out because
    /// they did not resolve or build.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
    /// The libraries only the tests use, taken as of the commit's date when the
    /// interpreter is newer than the commit (the rest are pinned to its release).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_era: Option<String>,
    /// Where the dependencies were read, for a project with a build backend to ask
    /// (`setup.py`, dynamic `pyproject.toml`): its backend, with the extras asked and
    /// what it named beyond the static reading; or the static reading, with why the
    /// backend could not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<String>,
    /// Constraints put on the tools that build sdists because a package of the
    /// resolution builds only with them (`setuptools<58` for a `setup.py` that uses
    /// `use_2to3`, which setuptools 58 removed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub build_constraints: Vec<String>,
    /// The rungs that failed before this one (`pinned failed on zope-interface`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tried: Vec<String>,
    /// Requirements the instance's changes add to the build files, installed with the
    /// base's (a fix that starts using a library).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added_by_changes: Vec<String>,
    /// Distributions installed though the tree declares them nowhere: its test files
    /// import them (`import simplejson` in a suite that never listed it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undeclared: Vec<String>,
}

/// A count per tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct TreeRuns {
    /// The buggy base.
    pub base: usize,
    /// Base + test patch.
    pub before: usize,
    /// Base + test patch + patch.
    pub after: usize,
}

/// Seconds per tree.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct TreeSeconds {
    /// The buggy base.
    pub base: f64,
    /// Base + test patch.
    pub before: f64,
    /// Base + test patch + patch.
    pub after: f64,
}

/// What a failing golden test says on base + test patch: the execution-failure statement
/// of RepoFixEval's issue-discovery setting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Failure {
    /// The test id (as in FAIL_TO_PASS).
    pub test: String,
    /// Its failure message (first line).
    pub message: String,
    /// Its stack trace, trimmed to the first lines.
    pub trace: String,
}
