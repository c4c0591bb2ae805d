//! SWE-bench's own knowledge, asked of the official `swebench` package (issue #32): the
//! per-(repository, version) install specs, test commands and directives, and the
//! repositories' log parsers. hunkgen re-types none of it: [`Helper`] runs the embedded
//! `helper.py` in a Python that has the package installed, and that script answers with
//! what the package's own functions return. The package's downloads of requirement files
//! from GitHub are answered from the local repository, so asking needs no network.
//!
//! The kind itself ([`SwebenchSpec`], `env: swebench:`) declares each row's environment
//! from the answer, builds it ([`EnvCache::ensure_swebench`](crate::validate::env::EnvCache))
//! and runs the row's test command in a script ([`run_script`]) whose log the official
//! parser reads (docs/design/swebench-kind.md).

mod kind;
mod packages;
mod resolve;
pub use kind::{
    is_system_command, row_of, run_script, RunScript, SwebenchSpec, END_TEST_OUTPUT,
    START_TEST_OUTPUT,
};
pub use packages::{pip_plan, PipPlan, RENAMES};
pub use resolve::{ProjectAt, SwebenchEnv};

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use crate::validate::parse::{TestResults, TestStatus};

/// The helper script, written next to the Python that runs it.
pub const HELPER: &str = include_str!("helper.py");

/// The package release hunkgen asks: the last that carries the spec tables
/// (`MAP_REPO_VERSION_TO_SPECS`); 5.x moved the specs into the dataset rows.
pub const PACKAGE: &str = "swebench==4.1.0";

/// Why asking the package failed as a whole (a row's own failure is in its answer).
#[derive(Debug, thiserror::Error)]
pub enum HelperError {
    /// The Python could not be started or the script not written.
    #[error("swebench helper: {0}")]
    Io(#[from] std::io::Error),
    /// The script exited with an error (its stderr's last line).
    #[error("swebench helper failed: {0}")]
    Failed(String),
    /// The script's answer was not the JSON expected.
    #[error("swebench helper answered unreadable JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// The fields of a SWE-bench row the package's functions read.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct RowRef {
    /// `owner/name`.
    pub repo: String,
    /// The row's `version` (a key of the spec table).
    pub version: String,
    /// The row's id.
    pub instance_id: String,
    /// The commit the instance starts from.
    pub base_commit: String,
    /// The commit whose requirements the environment is built from (else the base).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment_setup_commit: Option<String>,
    /// The test patch (its files are the test directives).
    pub test_patch: String,
}

/// How the spec installs packages.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct Packages {
    /// `requirements.txt`, `environment.yml`, `conda` (a package list) or `none`.
    pub kind: String,
    /// The requirements text, environment.yml text, or the conda package list.
    pub text: String,
}

/// What the package says about one row.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
pub struct SpecAnswer {
    /// The row's id, echoed.
    pub instance_id: Option<String>,
    /// The row's repository, echoed.
    pub repo: String,
    /// The row's version, echoed.
    pub version: String,
    /// SHA-256 of the spec as the package holds it (sorted-key JSON), for the record.
    pub spec_hash: Option<String>,
    /// The installed package's version, for the record.
    pub package: Option<String>,
    /// The interpreter version the spec asks for (`3.9`).
    pub python: Option<String>,
    /// Packages installed with pip after the main set.
    #[serde(default)]
    pub pip_packages: Vec<String>,
    /// Commands run in the repository before its install.
    #[serde(default)]
    pub pre_install: Vec<String>,
    /// The repository's install command.
    pub install: Option<String>,
    /// The repository-wide install step, if the package has one.
    pub repo_install: Option<String>,
    /// Commands run before each evaluation.
    #[serde(default)]
    pub eval_commands: Vec<String>,
    /// The test command without directives.
    pub test_cmd: Option<String>,
    /// The log parser's function name (`parse_log_django`).
    pub parser: Option<String>,
    /// The test directives from the test patch.
    #[serde(default)]
    pub test_directives: Vec<String>,
    /// The test command with its directives, as the harness runs it.
    pub test_command: Option<String>,
    /// The main package set.
    pub packages: Option<Packages>,
    /// `<step>: <message>` when a step failed for this row.
    pub error: Option<String>,
    /// Where the harness's export of the row's environment came from (the package, or
    /// a directory of exports), when `packages` is one.
    pub export: Option<String>,
}

impl SpecAnswer {
    /// The row's environment from the harness's export in `dir` (laid out as the
    /// official repository's `swebench/resources/swebench-og`:
    /// `<owner>__<name>/<number>/environment.yml`), where there is one and the package
    /// gave none: the package's own rule (`load_cached_environment_yml`) for a package
    /// installed from PyPI, which does not carry the exports.
    pub fn with_export_from(mut self, dir: &Path) -> SpecAnswer {
        if self.export.is_some() || self.error.is_some() {
            return self;
        }
        let Some((prefix, number)) = self.instance_id.as_deref().and_then(|i| i.rsplit_once('-'))
        else {
            return self;
        };
        let path = dir.join(prefix).join(number).join("environment.yml");
        if let Ok(text) = std::fs::read_to_string(&path) {
            self.packages = Some(Packages {
                kind: "export".into(),
                text,
            });
            self.pip_packages.clear();
            self.export = Some(path.display().to_string());
        }
        self
    }
}

impl SpecAnswer {
    /// The pip requirements of a `conda` package list, where every entry has a PyPI
    /// twin; `Err` names the first that does not (a conda channel, build string or a
    /// conda-only package).
    pub fn conda_as_pip(&self) -> Result<Vec<String>, String> {
        match &self.packages {
            Some(p) if p.kind == "conda" => conda_as_pip(&p.text),
            _ => Ok(Vec::new()),
        }
    }
}

/// Packages conda has and PyPI has not (compilers and system libraries): an environment
/// that needs one cannot be made with pip.
const CONDA_ONLY: &[&str] = &[
    "gcc",
    "gxx",
    "gxx_linux-64",
    "gcc_linux-64",
    "gfortran",
    "libgcc",
    "libgfortran",
    "libstdcxx-ng",
    "make",
    "cmake",
    "compilers",
    "mkl",
    "openblas",
];

/// A conda package list (`numpy scipy 'cython==3.0.10' setuptools=38.2.4`) as pip
/// requirements: quotes dropped, conda's single `=` pin written as `==`; `Err` names an
/// entry pip cannot install.
pub fn conda_as_pip(list: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for raw in list.split_whitespace() {
        let token = raw.trim_matches(|c| c == '\'' || c == '"');
        if token.contains("::") {
            return Err(format!("`{token}` names a conda channel"));
        }
        let name_end = token
            .find(|c: char| "=<>!~ ".contains(c))
            .unwrap_or(token.len());
        let (name, pin) = token.split_at(name_end);
        if CONDA_ONLY.contains(&name.to_ascii_lowercase().as_str()) {
            return Err(format!("`{name}` is a conda-only package"));
        }
        let pin = if pin.starts_with('=') && !pin.starts_with("==") {
            let rest = &pin[1..];
            if rest.contains('=') {
                return Err(format!("`{token}` pins a conda build string"));
            }
            format!("=={rest}")
        } else {
            pin.to_string()
        };
        out.push(format!("{name}{pin}"));
    }
    Ok(out)
}

/// A log to read with a repository's official parser.
#[derive(Debug, Clone, Serialize)]
pub struct LogRef<'a> {
    /// `owner/name` (selects the parser).
    pub repo: &'a str,
    /// The row's version.
    pub version: &'a str,
    /// The row's id.
    pub instance_id: &'a str,
    /// The test command's output.
    pub log: &'a str,
}

/// The official package, reached through one Python.
#[derive(Debug, Clone)]
pub struct Helper {
    python: PathBuf,
    script: PathBuf,
    /// Specs and parser choices the package lacks, sent with every request.
    extra: Option<serde_json::Value>,
}

impl Helper {
    /// A helper run by `python` (which must import `swebench`), its script written into
    /// `dir` (a temporary name renamed into place, so a reader never sees half of it).
    pub fn new(python: &Path, dir: &Path) -> Result<Helper, HelperError> {
        std::fs::create_dir_all(dir)?;
        let script = dir.join("swebench_helper.py");
        if std::fs::read_to_string(&script).ok().as_deref() != Some(HELPER) {
            // A temporary name of its own (threads of one process write it too).
            let mut tmp = tempfile::Builder::new()
                .prefix(".swebench_helper.py.")
                .tempfile_in(dir)?;
            tmp.write_all(HELPER.as_bytes())?;
            tmp.persist(&script).map_err(|e| e.error)?;
        }
        Ok(Helper {
            python: python.to_path_buf(),
            script,
            extra: None,
        })
    }

    /// The same helper, with specs (`{repo: {version: spec}}`) and parser choices
    /// (`{repo: parser name}`) added to the package's tables for every request: rows of
    /// repositories the package does not carry.
    pub fn with_extra(mut self, extra: serde_json::Value) -> Helper {
        self.extra = Some(extra);
        self
    }

    fn ask<T: serde::de::DeserializeOwned>(
        &self,
        request: &serde_json::Value,
    ) -> Result<T, HelperError> {
        let mut request = request.clone();
        if let (Some(extra), Some(map)) = (&self.extra, request.as_object_mut()) {
            map.insert("extra".into(), extra.clone());
        }
        let mut child = Command::new(&self.python)
            .arg(&self.script)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin.write_all(request.to_string().as_bytes())?;
        }
        let out = child.wait_with_output()?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let last = err
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            return Err(HelperError::Failed(format!(
                "{} ({})",
                last.trim(),
                out.status
            )));
        }
        Ok(serde_json::from_slice(&out.stdout)?)
    }

    /// The installed package's version.
    pub fn version(&self) -> Result<String, HelperError> {
        #[derive(Deserialize)]
        struct V {
            swebench: String,
        }
        let v: V = self.ask(&serde_json::json!({ "op": "version" }))?;
        Ok(v.swebench)
    }

    /// The installed package's metadata file (`swebench-*.dist-info/METADATA` in the
    /// Python's environment), whose text keys remembered answers; `None` when it cannot
    /// be found (nothing is remembered then).
    fn package_metadata(&self) -> Option<String> {
        let prefix = self.python.parent()?.parent()?;
        let lib = std::fs::read_dir(prefix.join("lib")).ok()?;
        for py in lib.flatten() {
            let site = py.path().join("site-packages");
            for entry in std::fs::read_dir(&site).into_iter().flatten().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with("swebench-") && name.ends_with(".dist-info") {
                    return std::fs::read_to_string(entry.path().join("METADATA")).ok();
                }
            }
        }
        None
    }

    /// What the package says about each row, in order; requirement files it would
    /// download are read from `git_dir` (None: every download is refused). Answers are
    /// remembered in the helper's directory, keyed by the rows, the extra specs, the
    /// script and the installed package's metadata (a row's commits name its files):
    /// importing the package takes seconds, and a warm rebuild asks again per row.
    pub fn specs(
        &self,
        rows: &[RowRef],
        git_dir: Option<&Path>,
    ) -> Result<Vec<SpecAnswer>, HelperError> {
        use sha2::Digest;
        let memo = self.package_metadata().map(|meta| {
            let mut h = sha2::Sha256::new();
            for part in [
                HELPER.to_string(),
                meta,
                serde_json::to_string(rows).unwrap_or_default(),
                self.extra
                    .as_ref()
                    .map(|e| e.to_string())
                    .unwrap_or_default(),
            ] {
                h.update(part.as_bytes());
                h.update([0]);
            }
            let dir = self
                .script
                .parent()
                .unwrap_or(Path::new("."))
                .join("answers");
            dir.join(format!("{:x}.json", h.finalize()))
        });
        if let Some(hit) = memo
            .as_ref()
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|b| serde_json::from_slice::<Vec<SpecAnswer>>(&b).ok())
            .filter(|a| a.len() == rows.len())
        {
            return Ok(hit);
        }
        let raw: serde_json::Value = self.ask(&serde_json::json!({
            "op": "specs",
            "rows": rows,
            "git_dir": git_dir.map(|p| p.to_string_lossy().into_owned()),
        }))?;
        let answers = Vec::<SpecAnswer>::deserialize(&raw)?;
        if let (Some(path), Some(dir)) = (&memo, memo.as_ref().and_then(|p| p.parent())) {
            let write = || -> std::io::Result<()> {
                std::fs::create_dir_all(dir)?;
                let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
                tmp.write_all(raw.to_string().as_bytes())?;
                tmp.persist(path).map_err(|e| e.error)?;
                Ok(())
            };
            // A memo that cannot be written is asked again next time.
            let _ = write();
        }
        if answers.len() != rows.len() {
            return Err(HelperError::Failed(format!(
                "{} answers for {} rows",
                answers.len(),
                rows.len()
            )));
        }
        Ok(answers)
    }

    /// Each log read by its repository's official parser: the statuses, or why the
    /// parser could not read it.
    pub fn parse(
        &self,
        logs: &[LogRef<'_>],
    ) -> Result<Vec<Result<TestResults, String>>, HelperError> {
        #[derive(Deserialize)]
        struct Parsed {
            statuses: Option<BTreeMap<String, String>>,
            error: Option<String>,
        }
        let answers: Vec<Parsed> = self.ask(&serde_json::json!({ "op": "parse", "rows": logs }))?;
        if answers.len() != logs.len() {
            return Err(HelperError::Failed(format!(
                "{} answers for {} logs",
                answers.len(),
                logs.len()
            )));
        }
        Ok(answers
            .into_iter()
            .map(|a| match (a.statuses, a.error) {
                // A word the harness does not grade (pytest's parser reads a line
                // `ERROR: Wrong …` of a test's own output as test `Wrong`, status
                // `ERROR:`) is neither a pass nor a failure to the harness: that entry
                // is left out, not the whole log.
                (Some(s), _) => Ok(s
                    .into_iter()
                    .filter_map(|(id, st)| status(&st).ok().map(|st| (id, st)))
                    .collect()),
                (None, e) => Err(e.unwrap_or_else(|| "no statuses".into())),
            })
            .collect())
    }
}

/// The harness's status word as hunkgen's; `Err` for a word it does not use.
pub fn status(word: &str) -> Result<TestStatus, String> {
    Ok(match word {
        "PASSED" | "XPASS" => TestStatus::Passed,
        "FAILED" => TestStatus::Failed,
        "ERROR" => TestStatus::Error,
        "SKIPPED" => TestStatus::Skipped,
        "XFAIL" => TestStatus::Xfail,
        other => return Err(format!("unknown test status `{other}`")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conda_lists_become_pip_requirements_or_name_what_cannot() {
        assert_eq!(
            conda_as_pip("numpy scipy 'cython==3.0.10' setuptools=38.2.4 'matplotlib<3.9.0'")
                .as_deref(),
            Ok(&[
                "numpy".to_string(),
                "scipy".into(),
                "cython==3.0.10".into(),
                "setuptools==38.2.4".into(),
                "matplotlib<3.9.0".into()
            ][..])
        );
        assert_eq!(
            conda_as_pip("numpy gxx_linux-64"),
            Err("`gxx_linux-64` is a conda-only package".into())
        );
        assert_eq!(
            conda_as_pip("conda-forge::numpy"),
            Err("`conda-forge::numpy` names a conda channel".into())
        );
        assert_eq!(
            conda_as_pip("numpy=1.19=py38h"),
            Err("`numpy=1.19=py38h` pins a conda build string".into())
        );
    }

    #[test]
    fn status_words_are_the_harness_spelling() {
        for s in [
            TestStatus::Passed,
            TestStatus::Failed,
            TestStatus::Error,
            TestStatus::Skipped,
            TestStatus::Xfail,
        ] {
            assert_eq!(status(s.as_str()), Ok(s));
        }
        assert_eq!(status("XPASS"), Ok(TestStatus::Passed));
        assert!(status("MAYBE").is_err());
    }
}
