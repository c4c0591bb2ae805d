//! `env: swebench:` — the environment kind of SWE-bench rows (issue #32;
//! docs/design/swebench-kind.md). Declared per instance: the official package's answer
//! for the row ([`Helper::specs`]), its environment built once per interpreter and pip
//! plan ([`EnvCache::ensure_swebench`]), and a run script that does in the working copy
//! what the harness's instance image and evaluation script do: `pre_install`, the
//! install, `eval_commands`, then the test command with its directives between the
//! harness's output markers, read by the repository's official parser
//! (`report: swebench`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::resolve::BUILD_REQUIRES;
use super::{Helper, ProjectAt, RowRef, SpecAnswer};
use crate::model::SwebenchRecord;
use crate::validate::env::auto::tag_version;
use crate::validate::env::kind::{InstanceEnv, InstanceTree, Kind, KindRecord};
use crate::validate::env::{sh_quote, EnvCache, EnvError};
use crate::validate::runner::Runner;

/// `env: swebench:` as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwebenchSpec {
    /// A Python that imports the official `swebench` package (a 4.x release, which
    /// carries the spec tables): the specs and parsers are asked of it.
    pub python: PathBuf,
    /// A JSON file of specs the package lacks, for rows of other repositories or
    /// versions: `{"specs": {repo: {version: spec}}, "parsers": {repo: parser name}}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<PathBuf>,
    /// A directory of the harness's per-row environment exports, laid out as the
    /// official repository's `swebench/resources/swebench-og` (which the package on
    /// PyPI leaves out): a row with one gets that environment, pinned exactly, instead
    /// of the spec's packages, as the harness does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environments: Option<PathBuf>,
}

impl SwebenchSpec {
    /// The helper this spec names, with its extra specs; `Err` says what is wrong.
    pub fn helper(&self, dir: &Path) -> Result<Helper, String> {
        let helper = Helper::new(&self.python, dir).map_err(|e| e.to_string())?;
        let Some(path) = &self.extra else {
            return Ok(helper);
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        let extra: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
        Ok(helper.with_extra(extra))
    }
}

/// The harness's marker lines around the test command's output.
pub const START_TEST_OUTPUT: &str = ">>>>> Start Test Output";
/// See [`START_TEST_OUTPUT`].
pub const END_TEST_OUTPUT: &str = ">>>>> End Test Output";

impl Kind for SwebenchSpec {
    fn name(&self) -> &'static str {
        "swebench"
    }

    fn absolutize(&mut self, resolve: &dyn Fn(&Path) -> PathBuf) -> Result<(), String> {
        // A bare name (`python3`) is looked up on PATH when run; a path is resolved.
        if self.python.components().count() > 1 {
            self.python = resolve(&self.python);
            if !self.python.exists() {
                return Err(format!(
                    "{}: no such Python (it must import the swebench package)",
                    self.python.display()
                ));
            }
        }
        if let Some(e) = &self.extra {
            let e = resolve(e);
            if !e.is_file() {
                return Err(format!("{}: no such extra specs file", e.display()));
            }
            self.extra = Some(e);
        }
        if let Some(d) = &self.environments {
            let d = resolve(d);
            if !d.is_dir() {
                return Err(format!(
                    "{}: no such directory of environment exports",
                    d.display()
                ));
            }
            self.environments = Some(d);
        }
        Ok(())
    }

    fn for_instance(
        &self,
        cache: &EnvCache,
        runner: &Runner,
        repo: &str,
        tree: &InstanceTree<'_>,
    ) -> Option<Result<InstanceEnv, EnvError>> {
        let failed = |why: String| EnvError::Swebench {
            repo: repo.to_string(),
            why,
        };
        let Some(row) = tree.row else {
            return Some(Err(failed(
                "env: swebench runs SWE-bench rows (source: swebench) only".into(),
            )));
        };
        let made = self
            .helper(&cache.swebench_dir())
            .and_then(|h| {
                h.specs(std::slice::from_ref(row), Some(tree.repo_path))
                    .map_err(|e| e.to_string())
            })
            .map_err(|e| failed(format!("the swebench helper: {e}")))
            .and_then(|mut answers| {
                let mut answer = answers.pop().unwrap_or_default();
                if let Some(dir) = &self.environments {
                    answer = answer.with_export_from(dir);
                }
                let project = ProjectAt {
                    repo_path: tree.repo_path,
                    commit: row
                        .environment_setup_commit
                        .as_deref()
                        .unwrap_or(&row.base_commit),
                };
                let made = cache.ensure_swebench(runner, repo, &answer, Some(project))?;
                let script = run_script(&answer, &tag_version(tree.repo_path, tree.rev, None));
                let record = SwebenchRecord {
                    version: answer.version.clone(),
                    spec_hash: answer.spec_hash.clone().unwrap_or_default(),
                    package: answer.package.clone().unwrap_or_default(),
                    interpreter: made.interpreter.clone(),
                    parser: answer.parser.clone().unwrap_or_default(),
                    test_command: answer.test_command.clone().unwrap_or_default(),
                    added: made.added.clone(),
                    renamed: made.plan.renamed.clone(),
                    conda_only: made.plan.conda_only.clone(),
                    export: answer.export.clone(),
                    left_out: made.left_out.clone(),
                    build_constraints: made.build_constraints.clone(),
                    skipped: script.skipped,
                };
                Ok(InstanceEnv {
                    env: made.env,
                    prefix: String::new(),
                    generated: Vec::new(),
                    command: Some(script.text),
                    record: KindRecord::Swebench(record),
                })
            });
        Some(made)
    }
}

/// A row's run as one shell script, and the system commands it leaves out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunScript {
    /// The script.
    pub text: String,
    /// Commands of `pre_install` and `eval_commands` that change the system (a package
    /// manager, locales, `/etc`), which a rootless run cannot do: not run, recorded.
    pub skipped: Vec<String>,
}

/// Words of a command that changes the machine rather than the working copy.
const SYSTEM: &[&str] = &[
    "apt-get",
    "apt ",
    "dpkg",
    "locale-gen",
    "update-locale",
    "/etc/",
    "sudo ",
    "yum ",
    "apk ",
    "conda ",
];

/// Whether `cmd` changes the system (see [`SYSTEM`]).
pub fn is_system_command(cmd: &str) -> bool {
    SYSTEM.iter().any(|w| cmd.contains(w))
}

/// `pip install …` with `--no-index --no-deps --no-build-isolation`: the run installs
/// the working copy only, from what the environment already has, with no network.
fn offline_pip(cmd: &str) -> String {
    cmd.replace(
        "pip install",
        "pip install --no-index --no-deps --no-build-isolation",
    )
}

/// Makes the per-run overlay, run by the environment's own interpreter: a prefix laid
/// out as an installed Python (its binary copied, the standard library linked), whose
/// site-packages reach the environment's through a `.pth` file, and a wrapper for each
/// of the environment's Python scripts so `pytest` runs on the overlay's interpreter
/// (and sees the editable install). Not a venv: a venv's interpreter started through a
/// symlink elsewhere (tox-current-env's `.tox/py39/bin/python`) finds no `pyvenv.cfg`
/// and runs bare, while a prefix is found from the binary itself, as a conda
/// environment's is.
const OVERLAY_PY: &str = r##"import os, shutil, sys, sysconfig
key, ov = sys.argv[1], sys.argv[2]
ver = "python%d.%d" % sys.version_info[:2]
paths = sysconfig.get_paths()
site = os.path.join(ov, "lib", ver, "site-packages")
os.makedirs(os.path.join(ov, "bin"))
os.makedirs(site)
shutil.copy2(os.path.realpath(sys.executable), os.path.join(ov, "bin", ver))
for alias in ("python", "python%d" % sys.version_info[0]):
    os.symlink(ver, os.path.join(ov, "bin", alias))
for name in os.listdir(paths["stdlib"]):
    if name != "site-packages":
        os.symlink(os.path.join(paths["stdlib"], name), os.path.join(ov, "lib", ver, name))
inc = paths.get("include")
if inc and os.path.isdir(inc):
    os.makedirs(os.path.join(ov, "include"))
    os.symlink(inc, os.path.join(ov, "include", os.path.basename(inc)))
with open(os.path.join(site, "_hunkgen_env.pth"), "w") as f:
    f.write("import site; site.addsitedir(%r)\n" % paths["purelib"])
for name in sorted(os.listdir(os.path.join(key, "bin"))):
    src, dst = os.path.join(key, "bin", name), os.path.join(ov, "bin", name)
    if os.path.lexists(dst) or not os.path.isfile(src):
        continue
    with open(src, "rb") as f:
        head = f.read(256)
    if not head.startswith(b"#!") or b"python" not in head:
        continue
    with open(dst, "w") as f:
        f.write('#!/bin/sh\nexec "%s/bin/python" "%s" "$@"\n' % (ov, src))
    os.chmod(dst, 0o755)
"##;

/// The run script of a row (see the module doc): each step that fails ends the run
/// with a `hunkgen: environment:` line naming it, which makes the run an environment
/// failure rather than a test result.
pub fn run_script(a: &SpecAnswer, scm_version: &str) -> RunScript {
    let mut skipped = Vec::new();
    let mut s = String::from(
        "hunkgen_fail() { echo; echo \"hunkgen: environment: $1\"; exit 1; }\n\
         HUNKGEN_KEY=\"$VIRTUAL_ENV\"\n\
         HUNKGEN_OV=\"${TMPDIR:-/tmp}/hunkgen-swebench-venv\"\n\
         rm -rf \"$HUNKGEN_OV\"\n",
    );
    s.push_str(&format!(
        "\"$HUNKGEN_KEY/bin/python\" -c {} \"$HUNKGEN_KEY\" \"$HUNKGEN_OV\" \
         || hunkgen_fail 'the run prefix over the environment could not be made'\n",
        sh_quote(OVERLAY_PY)
    ));
    s.push_str(
        "export VIRTUAL_ENV=\"$HUNKGEN_OV\" PATH=\"$HUNKGEN_OV/bin:$PATH\" PIP_NO_INDEX=1 \
         PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONNOUSERSITE=1\n\
         pip() { python -m pip \"$@\"; }\n",
    );
    // The working copy has no `.git` to read a version from (see `scm_version`).
    s.push_str(&format!(
        "export SETUPTOOLS_SCM_PRETEND_VERSION={}\n",
        sh_quote(scm_version)
    ));
    for cmd in &a.pre_install {
        if is_system_command(cmd) {
            skipped.push(cmd.clone());
            continue;
        }
        s.push_str(&format!(
            "( {} ) || hunkgen_fail {}\n",
            offline_pip(cmd),
            sh_quote(format!("pre_install failed: {cmd}"))
        ));
    }
    if let Some(install) = a.install.as_deref().filter(|i| !i.trim().is_empty()) {
        // The setup tree's build requirements first on the path, as in an isolated
        // build (EnvCache::ensure_swebench put them beside the venv).
        s.push_str(&format!(
            "( if [ -d \"$HUNKGEN_ENV_DIR/{BUILD_REQUIRES}\" ]; then \
             export PYTHONPATH=\"$HUNKGEN_ENV_DIR/{BUILD_REQUIRES}${{PYTHONPATH:+:$PYTHONPATH}}\"; fi; {} ) \
             || hunkgen_fail {}\n",
            offline_pip(install),
            sh_quote(format!("install failed: {install}"))
        ));
    }
    // The evaluation script runs these without stopping at a failure.
    for cmd in &a.eval_commands {
        if is_system_command(cmd) {
            skipped.push(cmd.clone());
            continue;
        }
        s.push_str(cmd);
        s.push('\n');
    }
    s.push_str(&format!("echo {}\n", sh_quote(START_TEST_OUTPUT)));
    s.push_str(a.test_command.as_deref().unwrap_or("false"));
    s.push('\n');
    s.push_str("hunkgen_status=$?\n");
    s.push_str(&format!("echo {}\n", sh_quote(END_TEST_OUTPUT)));
    s.push_str("exit $hunkgen_status\n");
    RunScript { text: s, skipped }
}

/// A SWE-bench row's facts as the helper reads them, from a candidate of `source:
/// swebench` (`None` for any other source).
pub fn row_of(c: &crate::source::Candidate) -> Option<RowRef> {
    (c.source == crate::model::SourceKind::Swebench).then(|| RowRef {
        repo: c.repo.clone(),
        version: c.version.clone(),
        instance_id: c.id.clone(),
        base_commit: c.base_commit.clone(),
        environment_setup_commit: Some(c.environment_setup_commit.clone()),
        test_patch: String::from_utf8_lossy(&c.test_patch.to_bytes()).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_commands_are_skipped_and_tree_edits_and_installs_run_offline() {
        let a = SpecAnswer {
            pre_install: vec![
                "apt-get update && apt-get install -y locales".into(),
                "sed -i 's/pytest/pytest -rA/' tox.ini".into(),
            ],
            install: Some("python -m pip install -e .".into()),
            eval_commands: vec![
                "export LANG=en_US.UTF-8".into(),
                "sed -i '/en_US.UTF-8/s/^# //g' /etc/locale.gen && locale-gen".into(),
            ],
            test_command: Some("pytest -rA tests/test_a.py".into()),
            ..Default::default()
        };
        let s = run_script(&a, "1.2.0");
        assert_eq!(
            s.skipped,
            vec![
                "apt-get update && apt-get install -y locales".to_string(),
                "sed -i '/en_US.UTF-8/s/^# //g' /etc/locale.gen && locale-gen".into()
            ]
        );
        assert!(s
            .text
            .contains("( sed -i 's/pytest/pytest -rA/' tox.ini ) ||"));
        assert!(s
            .text
            .contains("python -m pip install --no-index --no-deps --no-build-isolation -e ."));
        assert!(s.text.contains("\nexport LANG=en_US.UTF-8\n"));
        let start = s.text.find(START_TEST_OUTPUT).expect("start marker");
        let test = s.text.find("pytest -rA tests/test_a.py").expect("test");
        let end = s.text.find(END_TEST_OUTPUT).expect("end marker");
        assert!(start < test && test < end);
        assert!(!s.text.contains("apt-get"));
    }
}
