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
            other => return Err(format!("packages of an unknown form `{other}`")),
        },
    }
    plan.then = answer.pip_packages.clone();
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
