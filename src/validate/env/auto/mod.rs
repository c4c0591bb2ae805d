//! `python: auto`: each instance's Python environment inferred from its base commit.
//!
//! What the base tree declares (read by [`crate::init::python_project`]): the project's
//! dependencies and test dependencies, the runner (`pytest<8` for nose-era suites), the
//! src or flat layout (`PYTHONPATH`), `requires-python`/`python_requires`, trove
//! classifiers and tox's envlist. From that and the commit's date:
//!
//! - **Interpreter** ([`choose`]): among the interpreters found on the machine, those
//!   `requires-python` allows (Python 3; a project that declares only Python 2 gets a
//!   2.7 interpreter, whose environment virtualenv and pip build from the newest
//!   releases that support 2.7, unpinned: see [`super::python2`]); of them, those
//!   already released on the commit's date (a
//!   2017 commit never ran on 3.9); of them, the newest the project declares
//!   (classifiers, tox), else the newest. With none of the era, the oldest allowed one
//!   is taken, its dependencies pinned to its release date (the first day any ran on
//!   it), and the record says so. With none allowed at all, the instance is
//!   `unsupported_python`, naming what it needs.
//! - **Dependencies pinned to the commit's date** (the ladder, [`Step`]): resolved by uv
//!   for that interpreter with `--exclude-newer <committer date>`, setuptools among them
//!   as every virtualenv of the era had it (old pytest and old projects import
//!   `pkg_resources`). The exact pins install without the cut-off, so an sdist builds
//!   with today's build tools (an old setuptools cannot build today's sdists and vice
//!   versa). When the pinned set does not install, the package uv names as failing to
//!   build is exempt (its newest release, with wheels, is taken), up to [`MAX_EXEMPT`]
//!   times; then, as a last step, the dependencies are resolved unpinned. The step that
//!   worked is recorded in `validation.python`.
//!
//! The resolved requirements (exact versions) are what the environment is keyed by, so
//! commits that resolve alike share one environment: a history of hundreds of commits
//! builds a handful. Each commit's resolution is cached, so a warm rebuild runs no uv.
//!
//! `declare` reads the tree and chooses the interpreter (offline); `resolve` runs the
//! ladder and builds the venv (the only part that may use the network).

mod declare;
mod direct;
mod failures;
mod imports;
mod install;
pub(crate) use install::tag_version;
mod py2code;
mod resolve;

pub use declare::*;
pub use direct::direct_reference_name;
pub use failures::*;
pub use install::*;
pub use resolve::*;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::kind::{InstanceEnv, InstanceTree, Kind, KindRecord};
use super::{sh_quote, BuiltEnv, EnvCache, EnvError};
use crate::validate::runner::Runner;
use declare::{cmp_versions, parts};

/// `python: auto` as a spec: nothing is spelled out, everything is read per instance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AutoSpec;

impl Kind for AutoSpec {
    fn name(&self) -> &'static str {
        "python"
    }

    fn absolutize(&mut self, _resolve: &dyn Fn(&Path) -> PathBuf) -> Result<(), String> {
        Ok(())
    }

    /// What the base commit declares ([`declared_at`]), then the interpreter and the
    /// dependency ladder ([`EnvCache::ensure_auto`]).
    fn for_instance(
        &self,
        cache: &EnvCache,
        runner: &Runner,
        repo: &str,
        tree: &InstanceTree<'_>,
    ) -> Option<Result<InstanceEnv, EnvError>> {
        let memo = cache.commit_memo();
        let made = declared_at(tree.repo_path, tree.rev, tree.workdir, Some(&memo))
            .map_err(|why| EnvError::Auto {
                repo: repo.to_string(),
                why,
            })
            .and_then(|mut d| {
                imports::keep_added_imports(&mut d.droppable, tree.changes);
                let added = declare::added_by_changes(
                    tree.repo_path,
                    tree.rev,
                    tree.workdir,
                    tree.changes,
                    &d,
                );
                d.requirements.extend(added.iter().cloned());
                d.added_by_changes = added;
                // What the changes start importing that nothing declares, as the tree's
                // own undeclared imports.
                let more = imports::undeclared(
                    &imports::added_required_imports(tree.changes),
                    &d.requirements,
                    &d.local_modules,
                );
                for m in more {
                    d.requirements.push(m.clone());
                    d.droppable.push(m.clone());
                    d.undeclared.push(m);
                }
                cache.ensure_auto(runner, repo, &d)
            })
            .map(|a| InstanceEnv {
                prefix: a.command_prefix(),
                generated: a.generated.clone(),
                command: None,
                record: KindRecord::Python(a.record.clone()),
                env: a.env,
            });
        Some(made)
    }
}

/// What `python: auto` chose for one instance (`validation.python`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutoEnv {
    /// The environment.
    pub env: BuiltEnv,
    /// The record: interpreter, why, the ladder's step.
    pub record: crate::model::PythonRecord,
    /// `PYTHONPATH` for the runs (`src` in a src layout), relative to the workdir.
    pub pythonpath: Option<String>,
    /// The pinned pytest's version, when the requirements hold one.
    pub pytest: Option<String>,
    /// Files written into the working copy before each run, where absent
    /// ([`build_outputs`]).
    #[serde(default)]
    pub generated: Vec<(String, String)>,
}

impl AutoEnv {
    /// The variables set in front of a suite's command: `PYTHONPATH` for the layout, and
    /// `PYTEST_ADDOPTS='-o junit_family=xunit1'` for a pytest that has the option
    /// (5.1 on; xunit2, the default from 6.0, drops the file of each test case). Older
    /// pytest writes xunit1 only and refuses `-o` before 3.0, so the option is not in
    /// the command `init` writes.
    ///
    /// `PYTHONPATH` is absolute (`$PWD`, the workdir the command starts in), and names the
    /// workdir itself in a flat layout: an installed project is importable, with its
    /// metadata and entry points, from any directory, and tests that start Python or
    /// pytest in a temporary directory (pytester's `runpytest_subprocess`) rely on that.
    pub fn command_prefix(&self) -> String {
        let mut out = String::new();
        match &self.pythonpath {
            Some(p) => out.push_str(&format!("PYTHONPATH=\"$PWD\"/{} ", sh_quote(p))),
            None => out.push_str("PYTHONPATH=\"$PWD\" "),
        }
        let has_junit_family = self
            .pytest
            .as_deref()
            .is_none_or(|v| cmp_versions(&parts(v), &[5, 1]) != std::cmp::Ordering::Less);
        if has_junit_family {
            out.push_str("PYTEST_ADDOPTS='-o junit_family=xunit1' ");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::pythons::{self, Interpreter};
    use super::super::EnvSpec;
    use super::declare::*;
    use super::install::*;
    use super::*;
    use std::path::PathBuf;

    fn i(v: &str) -> Interpreter {
        pythons::made_up(v)
    }

    fn at(day: &str) -> i64 {
        // Days since the epoch by the civil calendar, midnight UTC.
        let y: i64 = day[..4].parse().expect("y");
        let m: i64 = day[5..7].parse().expect("m");
        let d: i64 = day[8..10].parse().expect("d");
        let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let doy = (153 * m + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        (era * 146_097 + doe - 719_468) * 86_400
    }

    #[test]
    fn specifiers_are_read_as_pep_440_says() {
        assert!(satisfies("3.6.15", ">=3.6"));
        assert!(!satisfies("3.5.9", ">=3.6"));
        assert!(satisfies("3.9.18", ">=3.6, <4"));
        assert!(!satisfies("3.0.1", ">=2.7, !=3.0.*, !=3.1.*"));
        assert!(satisfies("2.7.18", ">=2.7, !=3.0.*, !=3.1.*"));
        assert!(satisfies("3.7.16", "~=3.7"));
        assert!(!satisfies("4.0.0", "~=3.7"));
        assert!(satisfies("3.10.13", ">3.9"));
        assert!(!satisfies("3.9.0", ">3.9"));
        assert!(satisfies("3.9.18", ">3.9"));
        assert!(satisfies("3.9.18", "==3.9.*"));
        assert!(satisfies("3.11.7", "garbage"));
    }

    #[test]
    fn the_newest_declared_interpreter_of_the_commits_era_is_chosen() {
        let found = [
            i("3.11.7"),
            i("3.9.18"),
            i("3.6.15"),
            i("3.12.1"),
            i("2.7.18"),
        ];
        let mut d = Declared {
            date: at("2017-12-13"),
            ..Default::default()
        };
        // Nothing declared: the newest released by the date.
        assert_eq!(
            choose(&d, &found).expect("choice").interpreter.version,
            "3.6.15"
        );
        // Declared versions within the era win over newer ones.
        d.date = at("2021-03-01");
        assert_eq!(choose(&d, &found).expect("c").interpreter.version, "3.9.18");
        d.versions = vec!["3.6".into(), "3.7".into()];
        assert_eq!(choose(&d, &found).expect("c").interpreter.version, "3.6.15");
        // requires-python rules out what it excludes.
        d.requires_python = Some(">=3.7".into());
        assert_eq!(choose(&d, &found).expect("c").interpreter.version, "3.9.18");
        // None of the era found: the oldest allowed, said so.
        let c = choose(
            &Declared {
                date: at("2015-01-01"),
                ..Default::default()
            },
            &found,
        )
        .expect("c");
        assert_eq!(c.interpreter.version, "3.6.15");
        assert!(c.why.contains("oldest"), "{}", c.why);
        // Its dependencies are those of its release: none of 2015 ran on 3.6.
        assert_eq!(c.pin_date, at("2016-12-23"));
        assert_eq!(
            choose(&d, &found).expect("c").pin_date,
            d.date,
            "an interpreter of the era pins to the commit's date"
        );
        // A project that declares only Python 2 gets the 2.7 found (virtualenv and pip
        // build it), and is unsupported where none is.
        let py2 = Declared {
            date: at("2015-01-01"),
            versions: vec!["2.6".into(), "2.7".into()],
            ..Default::default()
        };
        let c = choose(&py2, &found).expect("2.7");
        assert_eq!(c.interpreter.version, "2.7.18");
        assert!(c.why.contains("declares Python 2.6, 2.7 only"), "{}", c.why);
        assert!(c.why.contains("not pinned"), "{}", c.why);
        let no2: Vec<Interpreter> = found
            .iter()
            .filter(|i| !i.version.starts_with('2'))
            .cloned()
            .collect();
        assert_eq!(
            choose(&py2, &no2),
            Err(NoInterpreter {
                needs: "2.6 or 2.7".into(),
                python2_only: true
            })
        );
        // A tree that declares nothing never gets Python 2, even where only 2.7 is,
        // unless its code is Python 2; one that declares Python 3 only never does.
        assert!(choose(&Declared::default(), &[i("2.7.18")]).is_err());
        let code = Declared {
            date: at("2012-01-01"),
            python2_code: Some("pkg/core.py:3: print x".into()),
            ..Default::default()
        };
        let c = choose(&code, &found).expect("2.7");
        assert_eq!(c.interpreter.version, "2.7.18");
        assert!(
            c.why
                .contains("declares no version and is Python 2 code (pkg/core.py:3: print x)"),
            "{}",
            c.why
        );
        assert_eq!(
            choose(&code, &no2),
            Err(NoInterpreter {
                needs: "2.7".into(),
                python2_only: true
            })
        );
        // Python 2 code under a declaration of 2 beside 3 cannot run on 3: 2.7.
        let two_and_three = Declared {
            versions: vec!["2.7".into(), "3.3".into()],
            ..code.clone()
        };
        let c = choose(&two_and_three, &found).expect("2.7");
        assert_eq!(c.interpreter.version, "2.7.18");
        assert!(
            c.why
                .contains("declares Python 2.7, 3.3 but is Python 2 code")
                && c.why.contains("(pkg/core.py:3: print x)"),
            "{}",
            c.why
        );
        assert_eq!(
            choose(&two_and_three, &no2),
            Err(NoInterpreter {
                needs: "2.7".into(),
                python2_only: true
            })
        );
        // Without such a line, a tree that declares 2 and 3 runs on 3.
        let plain = Declared {
            python2_code: None,
            ..two_and_three
        };
        assert!(choose(&plain, &found)
            .expect("3")
            .interpreter
            .version
            .starts_with("3."));
        let both = Declared {
            versions: vec!["3.6".into()],
            ..code
        };
        assert_eq!(
            choose(&both, &found).expect("3").interpreter.version,
            "3.6.15"
        );
        // Nothing allowed: what it needs.
        let new = Declared {
            requires_python: Some(">=3.14".into()),
            date: at("2026-01-01"),
            ..Default::default()
        };
        assert_eq!(
            choose(&new, &found),
            Err(NoInterpreter {
                needs: ">=3.14".into(),
                python2_only: false
            })
        );
    }

    /// The entry points each build file declares (pytest-xdist's `pytest11` in a
    /// setup.py dict of 2018, a setup.cfg section of 2021, a pyproject table of 2024, an
    /// ini string of older trees) are written beside the metadata; none, no file.
    #[test]
    fn the_entry_points_a_build_declares_are_written_beside_its_metadata() {
        let setup_py = "setup(\n    name=\"pytest-xdist\",\n    entry_points={\n        \"pytest11\": [\n            \"xdist = xdist.plugin\",\n            'xdist.looponfail = xdist.looponfail',\n        ],\n        'console_scripts': ['xd=xdist.main:run'],\n    },\n)\n";
        let want = vec![
            (
                "pytest11".to_string(),
                vec![
                    "xdist = xdist.plugin".to_string(),
                    "xdist.looponfail = xdist.looponfail".to_string(),
                ],
            ),
            (
                "console_scripts".to_string(),
                vec!["xd=xdist.main:run".to_string()],
            ),
        ];
        assert_eq!(entry_points(None, None, Some(setup_py)), want);
        let ini =
            "setup(name='p', entry_points=\"\"\"\n[pytest11]\nxdist = xdist.plugin\n\"\"\")\n";
        assert_eq!(
            entry_points(None, None, Some(ini)),
            vec![(
                "pytest11".to_string(),
                vec!["xdist = xdist.plugin".to_string()]
            )]
        );
        let cfg = "[metadata]\nname = pytest-xdist\n[options.entry_points]\npytest11 =\n    xdist.plugin = xdist.plugin\n    xdist.looponfail = xdist.looponfail\n[options]\nzip_safe = no\n";
        assert_eq!(
            entry_points(None, Some(cfg), None),
            vec![(
                "pytest11".to_string(),
                vec![
                    "xdist.plugin = xdist.plugin".to_string(),
                    "xdist.looponfail = xdist.looponfail".to_string()
                ]
            )]
        );
        let pyproject: toml::Table = "[project]\nname = \"pytest-xdist\"\n[project.entry-points.pytest11]\nxdist = \"xdist.plugin\"\n[project.scripts]\nxd = \"xdist.main:run\"\n"
            .parse()
            .expect("toml");
        assert_eq!(
            entry_points(Some(&pyproject), None, None),
            vec![
                (
                    "pytest11".to_string(),
                    vec!["xdist = xdist.plugin".to_string()]
                ),
                (
                    "console_scripts".to_string(),
                    vec!["xd = xdist.main:run".to_string()]
                ),
            ]
        );
        assert!(entry_points(
            None,
            Some("[metadata]\nname = a\n"),
            Some("setup(name='a')\n")
        )
        .is_empty());
        let out = build_outputs(Some("pytest-xdist"), "1.23.2", "", &[], &want);
        assert_eq!(out[0].0, "pytest_xdist-1.23.2.dist-info/entry_points.txt");
        assert_eq!(
            out[0].1,
            "[pytest11]\nxdist = xdist.plugin\nxdist.looponfail = xdist.looponfail\n\n\
             [console_scripts]\nxd=xdist.main:run\n\n"
        );
        assert_eq!(out[1].0, "pytest_xdist-1.23.2.dist-info/METADATA");
        let out = build_outputs(Some("pytest-xdist"), "1", "src", &[], &want);
        assert_eq!(out[0].0, "src/pytest_xdist-1.dist-info/entry_points.txt");
        assert_eq!(build_outputs(Some("a"), "1", "", &[], &[]).len(), 1);
    }

    #[test]
    fn what_an_install_would_add_is_named_from_the_build_config() {
        // humanize, 2024: hatch-vcs writes src/humanize/_version.py; the package on
        // PYTHONPATH=src also needs its metadata (2020's __init__ asks pkg_resources).
        let pyproject = "[project]\nname = \"humanize\"\n[tool.hatch.build.hooks.vcs]\nversion-file = \"src/humanize/_version.py\"\n";
        let pyproject: toml::Table = pyproject.parse().expect("toml");
        assert_eq!(
            project_name(Some(&pyproject), None, None).as_deref(),
            Some("humanize")
        );
        assert_eq!(
            version_files(Some(&pyproject), None),
            vec!["src/humanize/_version.py"]
        );
        let setup_py = "setup(\n    name='humanize',\n    use_scm_version={'write_to': 'src/humanize/_v.py'},\n)\n";
        assert_eq!(
            project_name(None, None, Some(setup_py)).as_deref(),
            Some("humanize")
        );
        assert_eq!(
            version_files(None, Some(setup_py)),
            vec!["src/humanize/_v.py"]
        );
        // jsonschema, 2018: vcversioner writes jsonschema/_version.py, which __init__
        // imports.
        let setup_py = "setup(\n    name=\"jsonschema\",\n    setup_requires=[\"vcversioner>=2.16.0.0\"],\n    \
                        vcversioner={\"version_module_paths\": [\"jsonschema/_version.py\"]},\n)\n";
        assert_eq!(
            version_files(None, Some(setup_py)),
            vec!["jsonschema/_version.py"]
        );
        let cfg = "[metadata]\nversion = 1\nname = my.pkg\n[options]\nname = no\n";
        assert_eq!(
            project_name(None, Some(cfg), None).as_deref(),
            Some("my.pkg")
        );
        assert_eq!(release_of("v4.12.0").as_deref(), Some("4.12.0"));
        assert_eq!(release_of("release-2.0").as_deref(), Some("2.0"));
        assert_eq!(release_of("nightly"), None);
        let out = build_outputs(
            Some("my.pkg"),
            "4.12.0",
            "src",
            &[
                "src/pkg/_version.py".into(),
                "../outside.py".into(),
                "/etc/x".into(),
            ],
            &[],
        );
        assert_eq!(out.len(), 2, "{out:?}");
        assert_eq!(out[0].0, "src/my_pkg-4.12.0.dist-info/METADATA");
        assert!(out[0].1.contains("Name: my.pkg\nVersion: 4.12.0\n"));
        assert_eq!(out[1].0, "src/pkg/_version.py");
        assert!(out[1].1.contains("__version__ = version = '4.12.0'"));
        assert!(out[1].1.contains("version_tuple = (4, 12, 0,)"));
        assert_eq!(
            build_outputs(Some("a"), "1", "", &[], &[])[0].0,
            "a-1.dist-info/METADATA"
        );
    }

    #[test]
    fn classifiers_tox_and_python_requires_are_read() {
        let setup = r#"setup(
    python_requires=">=3.5",
    classifiers=[
        "Programming Language :: Python :: 3.5",
        "Programming Language :: Python :: 3.6",
        "Programming Language :: Python :: 3",
    ])"#;
        let tox = "[tox]\nenvlist = py27,py36, pypy3\n  py37\n";
        assert_eq!(
            declared_versions(&[setup.to_string()], Some(tox)),
            vec!["2.7", "3.5", "3.6", "3.7"]
        );
        assert_eq!(python_requires(Some(setup), None).as_deref(), Some(">=3.5"));
        let cfg = "[options]\npython_requires = >=3.7\n";
        assert_eq!(python_requires(None, Some(cfg)).as_deref(), Some(">=3.7"));
        assert_eq!(python_requires(None, None), None);
    }

    #[test]
    fn the_command_prefix_follows_the_layout_and_the_pinned_pytest() {
        let pins = "attrs==20.3.0\npytest==2.9.2 ; python_version >= \"3\"\nsix==1.15.0\n";
        assert_eq!(pinned_version(pins, "pytest").as_deref(), Some("2.9.2"));
        assert_eq!(pinned_version(pins, "py"), None);
        let env = |pytest: Option<&str>, pythonpath: Option<&str>| AutoEnv {
            env: BuiltEnv {
                dir: PathBuf::from("/e"),
                key: "k".into(),
                spec: EnvSpec::PythonAuto(AutoSpec),
                reused: false,
                offline: true,
            },
            record: crate::model::PythonRecord {
                version: "3.6.15".into(),
                chosen: String::new(),
                step: "pinned".into(),
                pinned_to: None,
                exempt: Vec::new(),
                dropped: Vec::new(),
                test_era: None,
                metadata: None,
                build_constraints: Vec::new(),
                tried: Vec::new(),
                added_by_changes: Vec::new(),
                undeclared: Vec::new(),
            },
            pythonpath: pythonpath.map(str::to_string),
            pytest: pytest.map(str::to_string),
            generated: Vec::new(),
        };
        assert_eq!(
            env(Some("2.9.2"), Some("src")).command_prefix(),
            "PYTHONPATH=\"$PWD\"/'src' "
        );
        assert_eq!(
            env(Some("5.0.1"), None).command_prefix(),
            "PYTHONPATH=\"$PWD\" "
        );
        assert_eq!(
            env(Some("6.1.2"), None).command_prefix(),
            "PYTHONPATH=\"$PWD\" PYTEST_ADDOPTS='-o junit_family=xunit1' "
        );
    }

    #[test]
    fn the_ladder_exempts_what_fails_then_goes_unpinned() {
        let log = "  × Failed to build `zope.interface==4.4.3`\n  ├─▶ The build backend returned an error\n";
        let failing = failing_packages(log);
        assert_eq!(failing, vec!["zope-interface"]);
        let (s, e) = next_rung(Step::Pinned, &[], &failing).expect("rung");
        assert_eq!(
            (s, e.clone()),
            (Step::Exempt, vec!["zope-interface".to_string()])
        );
        // Each failure names the next package of a chain (cryptography → cffi →
        // pycparser on a 2015 tree); each is exempt in turn, up to the bound.
        let (mut s, mut e) = (s, e);
        for next in ["cffi", "pycparser", "six"].iter().take(MAX_EXEMPT - 1) {
            (s, e) = next_rung(s, &e, &[next.to_string()]).expect("rung");
            assert_eq!(s, Step::Exempt);
        }
        assert_eq!(e.len(), MAX_EXEMPT);
        assert_eq!(
            next_rung(s, &e, &["lxml".into()]).map(|r| r.0),
            Some(Step::Unpinned)
        );
        // A failure that names nothing new goes straight to unpinned.
        assert_eq!(
            next_rung(Step::Pinned, &[], &[]).map(|r| r.0),
            Some(Step::Unpinned)
        );
        assert_eq!(next_rung(Step::Unpinned, &[], &failing), None);
        assert_eq!(
            failing_packages("error: Failed to download and build `PyYAML==3.12`"),
            vec!["pyyaml"]
        ); // A project that deleted its old releases (uv's words, 0.9).
        let gone = "error: No solution found when resolving dependencies\n  cause: Because there are no versions of atomicwrites and pytest>=3.6.2 depends on atomicwrites>=1.0, we can conclude that pytest>=3.6.2 cannot be used.\n\nhint: `atomicwrites` was filtered by `exclude-newer` to only include packages uploaded before 2018-07-01T21:39:51Z.";
        assert_eq!(failing_packages(gone), vec!["atomicwrites"]);
        // A package no index has (online) or the cache lacks (offline).
        let absent = "  cause: Because zest.releaser was not found in the package registry and you require zest.releaser, we can conclude that your requirements are unsatisfiable.";
        assert_eq!(failing_packages(absent), vec!["zest-releaser"]);
        assert_eq!(
            failing_packages("Because foo_bar was not found in the cache and you require foo_bar"),
            vec!["foo-bar"]
        );
        // What pulled a failing package in: every name after `because`.
        let help = "  × Failed to build `pyyaml==3.12`\n  help: `pyyaml` (v3.12) was included because `Sphinx` (v1.7.5) depends on `docutils` (v0.14) which depends on `pyyaml`\n";
        assert_eq!(failing_packages(help), vec!["pyyaml"]);
        assert_eq!(
            including_packages(help),
            vec!["sphinx", "docutils", "pyyaml"]
        );
        assert!(including_packages(gone).is_empty());
    }

    #[test]
    fn a_full_disk_is_the_hosts_failure_not_the_trees() {
        assert!(host_failure(
            "error: failed to write to `/c/x`: No space left on device (os error 28)"
        ));
        assert!(host_failure("cp: error writing 'a': Disk quota exceeded"));
        assert!(!host_failure("  × Failed to build `zope.interface==4.4.3`"));
    }

    #[test]
    fn an_sdist_that_uses_2to3_asks_for_setuptools_before_58() {
        // uv's words for demjson 2.2.4 built by today's setuptools (jsonpickle's tox
        // environments of 2016-2019 ask for it).
        let log = "error: Failed to build `demjson==2.2.4`
  cause: The build backend returned an error
  cause: Call to `setuptools.build_meta:__legacy__.get_requires_for_build_wheel` failed (exit status: 1)
         [stderr]
         error in demjson setup command: use_2to3 is invalid.
";
        assert_eq!(failing_packages(log), vec!["demjson"]);
        assert_eq!(build_era_constraint(log), Some("setuptools>=40.8.0,<58"));
        assert_eq!(
            build_era_constraint("  × Failed to build `zope.interface==4.4.3`"),
            None
        );
        // MarkupSafe 1.0 (astropy 1.3's SWE-bench environment): `setuptools.Feature`
        // went in 46.
        let feature = "  File \"setup.py\", line 6, in <module>\n    from setuptools import setup, Extension, Feature\nImportError: cannot import name 'Feature'\n";
        assert_eq!(
            build_era_constraint(feature),
            Some("setuptools>=40.8.0,<46")
        );
    }
}
