//! A SWE-bench spec's packages as one pip install plan: the input of the kind's resolve
//! step (docs/design/swebench-kind.md). The harness builds a conda environment; hunkgen
//! builds a uv venv, so each of the spec's three package forms becomes pip requirements:
//! a requirements file as written, a conda package list through [`super::conda_as_pip`],
//! and an `environment.yml` whose conda entries are renamed to their PyPI twins through a
//! small named table ([`RENAMES`]). Entries PyPI does not carry are named in the plan,
//! never dropped silently: a row whose tests need one fails, and its record says why.

use serde_norway::Value;

use super::{SpecAnswer, CONDA_ONLY};

/// conda-forge names whose PyPI package is called otherwise, each seen in a SWE-bench
/// repository's `environment.yml`.
pub const RENAMES: &[(&str, &str)] = &[
    // conda-forge splits matplotlib's GUI backends out; PyPI has one package.
    ("matplotlib-base", "matplotlib"),
    // conda-forge's dask without the distributed extras.
    ("dask-core", "dask"),
    // The Met Office's Iris is `scitools-iris` on PyPI.
    ("iris", "scitools-iris"),
    // PyTables' PyPI name.
    ("pytables", "tables"),
    // msgpack's old conda name.
    ("msgpack-python", "msgpack"),
];

/// Entries of an `environment.yml` that only conda carries (system libraries and
/// conda-only Python packages), beyond the compilers of [`CONDA_ONLY`].
const CONDA_ONLY_YML: &[&str] = &["hdf5", "cdms2", "libnetcdf", "netcdf-c", "proj", "geos"];

/// The pip form of a spec's packages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PipPlan {
    /// Requirements for `uv pip install`, in the spec's order (the main set).
    pub requirements: Vec<String>,
    /// The spec's `pip_packages`, installed after the main set in a second step, as the
    /// harness does (a pin there replaces one of the main set: flask 2.3's requirements
    /// file pins markupsafe 2.1.2, its `pip_packages` 2.1.1).
    pub then: Vec<String>,
    /// conda entries with no PyPI twin, left out (recorded with the row).
    pub conda_only: Vec<String>,
    /// `conda-name -> pypi-name` for each entry renamed.
    pub renamed: Vec<String>,
    /// Made from the harness's export of the environment: every requirement is an
    /// exact pin of a closed set, installed one by one without dependencies (a pin
    /// PyPI cannot give is left out and recorded, not a failure).
    pub exact: bool,
    /// The export's system libraries (conda builds that are not Python packages),
    /// left out: PyPI's wheels carry their own.
    pub native: usize,
}

/// conda names of Python packages in the harness's exports whose PyPI name differs,
/// beyond [`RENAMES`].
const EXPORT_RENAMES: &[(&str, &str)] = &[
    // defaults' split of numpy (its metapackage `numpy` is pinned beside it).
    ("numpy-base", "numpy"),
    ("brotli-python", "brotli"),
    // conda-forge's `python-` prefix for packages named like a system library.
    ("python-tzdata", "tzdata"),
    ("python-fastjsonschema", "fastjsonschema"),
    ("python-xxhash", "xxhash"),
    ("python-eccodes", "eccodes"),
    // conda-forge's splits of one PyPI package (the optional parts left out).
    ("seaborn-base", "seaborn"),
    ("nbconvert-core", "nbconvert"),
    ("pyarrow-core", "pyarrow"),
    ("antlr-python-runtime", "antlr4-python3-runtime"),
];

/// The harness's `conda env export` of a row's environment (`name=version=build`
/// entries and a `pip:` list) as exact pins: a conda entry is a Python package when
/// its build is one (`py39h06a4308_0`, `pyhd8ed1ab_0`, `py_0`); the interpreter and
/// system libraries are left out (counted), the `pip:` list is kept as is but for an
/// editable install.
fn export(text: &str, plan: &mut PipPlan) -> Result<(), String> {
    plan.exact = true;
    let doc: Value = serde_norway::from_str(text)
        .map_err(|e| format!("the environment export: not YAML: {e}"))?;
    let Some(deps) = doc.get("dependencies").and_then(Value::as_sequence) else {
        return Ok(());
    };
    for dep in deps {
        match dep {
            Value::String(entry) => {
                let mut parts = entry.trim().splitn(3, '=');
                let (name, version, build) = (
                    parts.next().unwrap_or_default().to_ascii_lowercase(),
                    parts.next().unwrap_or_default(),
                    parts.next().unwrap_or_default(),
                );
                if name == "python" || version.is_empty() || !build.starts_with("py") {
                    plan.native += 1;
                    continue;
                }
                let renamed = RENAMES
                    .iter()
                    .chain(EXPORT_RENAMES)
                    .find(|(from, _)| *from == name);
                let pypi = renamed.map_or(name.as_str(), |(_, to)| to);
                if let Some((from, to)) = renamed {
                    plan.renamed.push(format!("{from} -> {to}"));
                }
                plan.requirements.push(format!("{pypi}=={version}"));
            }
            Value::Mapping(m) => {
                let pip = m.get("pip").and_then(Value::as_sequence);
                for line in pip.into_iter().flatten().filter_map(Value::as_str) {
                    if !line.trim_start().starts_with('-') {
                        plan.requirements.push(line.trim().to_string());
                    }
                }
            }
            other => return Err(format!("the environment export: a dependency `{other:?}`")),
        }
    }
    Ok(())
}

/// The spec's packages (`requirements.txt`, a conda list, `environment.yml` or none)
/// and its `pip_packages` as pip requirements, in two steps; `Err` is one line naming what cannot be
/// read or installed with pip (a conda channel pin, a build string).
pub fn pip_plan(answer: &SpecAnswer) -> Result<PipPlan, String> {
    let mut plan = PipPlan::default();
    match &answer.packages {
        None => {}
        Some(p) => match p.kind.as_str() {
            "none" => {}
            "requirements.txt" => plan.requirements.extend(
                p.text
                    .lines()
                    .map(|l| l.split(" #").next().unwrap_or(l).trim())
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(str::to_string),
            ),
            "conda" => plan.requirements.extend(super::conda_as_pip(&p.text)?),
            "environment.yml" => environment_yml(&p.text, &mut plan)?,
            "export" => export(&p.text, &mut plan)?,
            other => return Err(format!("packages of an unknown form `{other}`")),
        },
    }
    // The harness installs an export alone (make_env_script_list_py_from_conda).
    if !plan.exact {
        plan.then = answer.pip_packages.clone();
    }
    Ok(plan)
}

/// An `environment.yml`'s `dependencies`: conda entries renamed or set aside, the
/// interpreter and pip themselves skipped (the venv has them), the `pip:` list as is.
fn environment_yml(text: &str, plan: &mut PipPlan) -> Result<(), String> {
    let doc: Value =
        serde_norway::from_str(text).map_err(|e| format!("environment.yml: not YAML: {e}"))?;
    let Some(deps) = doc.get("dependencies").and_then(Value::as_sequence) else {
        return Ok(());
    };
    for dep in deps {
        match dep {
            Value::String(spec) => conda_entry(spec, plan)?,
            Value::Mapping(m) => {
                let pip = m.get("pip").and_then(Value::as_sequence);
                for line in pip.into_iter().flatten().filter_map(Value::as_str) {
                    plan.requirements.push(line.trim().to_string());
                }
            }
            other => return Err(format!("environment.yml: a dependency `{other:?}`")),
        }
    }
    Ok(())
}

/// One conda entry (`numpy>=2.2`, `matplotlib-base`, `python=3.10`) into the plan.
fn conda_entry(spec: &str, plan: &mut PipPlan) -> Result<(), String> {
    let spec = spec.trim();
    let name_end = spec
        .find(|c: char| "=<>!~ ".contains(c))
        .unwrap_or(spec.len());
    let name = spec[..name_end].to_ascii_lowercase();
    if name == "python" || name == "pip" {
        return Ok(());
    }
    if CONDA_ONLY.contains(&name.as_str()) || CONDA_ONLY_YML.contains(&name.as_str()) {
        plan.conda_only.push(spec.to_string());
        return Ok(());
    }
    let mut pip = super::conda_as_pip(spec)?;
    if let Some((from, to)) = RENAMES.iter().find(|(from, _)| *from == name) {
        for r in &mut pip {
            *r = format!("{to}{}", &r[from.len()..]);
        }
        plan.renamed.push(format!("{from} -> {to}"));
    }
    plan.requirements.extend(pip);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::env::swebench::Packages;

    fn answer(kind: &str, text: &str, pip: &[&str]) -> SpecAnswer {
        SpecAnswer {
            repo: "o/r".into(),
            version: "1.0".into(),
            python: Some("3.10".into()),
            pip_packages: pip.iter().map(|s| s.to_string()).collect(),
            packages: Some(Packages {
                kind: kind.into(),
                text: text.into(),
            }),
            ..SpecAnswer::default()
        }
    }

    #[test]
    fn an_environment_yml_is_renamed_and_its_conda_only_entries_named() {
        // The shape of xarray's CI environment: conda-forge names, a system library,
        // a conda-only package, the interpreter, pip and a pip section.
        let yml = "name: testbed\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.10\n  \
                   - numpy>=1.23  # comment\n  - matplotlib-base\n  - dask-core=2023.1.0\n  \
                   - hdf5\n  - cdms2\n  - iris\n  - pip\n  - pip:\n      - numbagg==0.2.1\n";
        let plan = pip_plan(&answer("environment.yml", yml, &["pytest==7.4.0"])).unwrap();
        assert_eq!(
            plan.requirements,
            [
                "numpy>=1.23",
                "matplotlib",
                "dask==2023.1.0",
                "scitools-iris",
                "numbagg==0.2.1",
            ]
        );
        assert_eq!(plan.then, ["pytest==7.4.0"]);
        assert_eq!(plan.conda_only, ["hdf5", "cdms2"]);
        assert_eq!(
            plan.renamed,
            [
                "matplotlib-base -> matplotlib",
                "dask-core -> dask",
                "iris -> scitools-iris"
            ]
        );
    }

    #[test]
    fn an_export_is_exact_pins_of_its_python_packages() {
        // The shape of the harness's exports (swebench-og): conda builds, a pip list.
        let yml = "name: testbed\nchannels:\n  - defaults\ndependencies:\n  \
                   - _libgcc_mutex=0.1=main\n  - openssl=3.0.15=h5eee18b_0\n  \
                   - pip=24.2=py39h06a4308_0\n  - python=3.9.20=he870216_1\n  \
                   - setuptools=75.1.0=py39h06a4308_0\n  - attrs=24.2.0=pyh71513ae_0\n  \
                   - matplotlib-base=3.9.2=py310hf02ac8c_1\n  - tzdata=2024b=h04d1e81_0\n  \
                   - python-tzdata=2025.1=pyhd8ed1ab_0\n  \
                   - pip:\n      - importlib-metadata==8.5.0\n      - -e /testbed\n\
                   prefix: /opt/miniconda3/envs/testbed\n";
        let plan = pip_plan(&answer("export", yml, &[])).unwrap();
        assert!(plan.exact);
        assert_eq!(
            plan.requirements,
            [
                "pip==24.2",
                "setuptools==75.1.0",
                "attrs==24.2.0",
                "matplotlib==3.9.2",
                "tzdata==2025.1",
                "importlib-metadata==8.5.0"
            ]
        );
        assert_eq!(plan.native, 4);
        assert_eq!(
            plan.renamed,
            ["matplotlib-base -> matplotlib", "python-tzdata -> tzdata"]
        );
        assert!(plan.then.is_empty());
    }

    #[test]
    fn requirements_and_conda_lists_become_pip_requirements() {
        let req = "# pinned for the tests\nastroid==2.15.5\n\npytest  # runner\n";
        let plan = pip_plan(&answer("requirements.txt", req, &["toml"])).unwrap();
        assert_eq!(plan.requirements, ["astroid==2.15.5", "pytest"]);
        assert_eq!(plan.then, ["toml"]);
        let plan = pip_plan(&answer("conda", "mpmath flake8 setuptools=38.2.4", &[])).unwrap();
        assert_eq!(
            plan.requirements,
            ["mpmath", "flake8", "setuptools==38.2.4"]
        );
        assert!(pip_plan(&answer("conda", "conda-forge::numpy", &[]))
            .unwrap_err()
            .contains("conda channel"));
        assert!(pip_plan(&answer("environment.yml", "dependencies: [", &[]))
            .unwrap_err()
            .starts_with("environment.yml: not YAML"));
        assert!(pip_plan(&answer("wheel", "", &[]))
            .unwrap_err()
            .contains("unknown form"));
    }
}
