//! `python: auto`, what installing the project would add to a run from its working copy:
//! the distribution's metadata with its name (`project_name`) and version (`tag_version`),
//! the entry points the build declares, and the version files it writes from the history.

/// The version a build of `rev` would give itself from its history (setuptools_scm):
/// the nearest tag's release, `0.0.0` without one. `python: auto` writes it into the
/// files an install would generate; `env: swebench` gives it as
/// `SETUPTOOLS_SCM_PRETEND_VERSION` (its trees have no `.git`).
pub(crate) fn tag_version(
    repo: &std::path::Path,
    rev: &str,
    memo: Option<&crate::cache::Cache>,
) -> String {
    match memo {
        Some(m) => crate::git::nearest_tag_memo(repo, rev, m),
        None => crate::git::nearest_tag(repo, rev),
    }
    .ok()
    .flatten()
    .and_then(|t| release_of(&t))
    .unwrap_or_else(|| "0.0.0".into())
}

/// The release a tag names (`v4.12.0` → `4.12.0`), if it names one.
pub(super) fn release_of(tag: &str) -> Option<String> {
    static RELEASE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^\D{0,12}?(\d+(?:\.\d+)*)").expect("fixed regex")
    });
    let name = tag.rsplit('/').next().unwrap_or(tag);
    RELEASE.captures(name).map(|c| c[1].to_string())
}

/// The distribution's name: `[project] name`, setup.cfg's `[metadata] name`, or a
/// literal `name=` in setup.py.
pub(super) fn project_name(
    pyproject: Option<&toml::Table>,
    setup_cfg: Option<&str>,
    setup_py: Option<&str>,
) -> Option<String> {
    static CFG: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?m)^\[metadata\][^\[]*?^name\s*=\s*([A-Za-z0-9._-]+)\s*$")
            .expect("fixed regex")
    });
    static PY: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"(?:^|[^\w.])name\s*=\s*["']([A-Za-z0-9._-]+)["']"#)
            .expect("fixed regex")
    });
    let from_toml = pyproject
        .and_then(|doc| doc.get("project"))
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
        .map(str::to_string);
    let from_cfg = || Some(CFG.captures(setup_cfg?)?[1].to_string());
    let from_py = || Some(PY.captures(setup_py?)?[1].to_string());
    from_toml.or_else(from_cfg).or_else(from_py)
}

/// The entry points a build would register, as (group, `name = object reference` lines):
/// `[project.entry-points.*]` and `[project.scripts]` of `pyproject.toml`,
/// `[options.entry_points]` of `setup.cfg`, and `entry_points=` of `setup.py` (a dict of
/// string lists, or an ini-style string). An installed project announces itself through
/// them (a pytest plugin through `pytest11`); a run from the working copy has none
/// unless they are written beside its metadata.
pub(super) fn entry_points(
    pyproject: Option<&toml::Table>,
    setup_cfg: Option<&str>,
    setup_py: Option<&str>,
) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut add = |group: &str, line: String| {
        let line = line.trim().to_string();
        let valid = line
            .split_once('=')
            .is_some_and(|(n, v)| !n.trim().is_empty() && !v.trim().is_empty());
        if group.is_empty() || !valid {
            return;
        }
        match out.iter_mut().find(|(g, _)| g == group) {
            Some((_, lines)) if !lines.contains(&line) => lines.push(line),
            Some(_) => {}
            None => out.push((group.to_string(), vec![line])),
        }
    };
    if let Some(project) = pyproject.and_then(|d| d.get("project")) {
        let mut groups: Vec<(String, toml::Table)> = Vec::new();
        if let Some(eps) = project.get("entry-points").and_then(|t| t.as_table()) {
            for (g, t) in eps {
                if let Some(t) = t.as_table() {
                    groups.push((g.clone(), t.clone()));
                }
            }
        }
        for (key, group) in [
            ("scripts", "console_scripts"),
            ("gui-scripts", "gui_scripts"),
        ] {
            if let Some(t) = project.get(key).and_then(|t| t.as_table()) {
                groups.push((group.to_string(), t.clone()));
            }
        }
        for (g, t) in groups {
            for (name, v) in t {
                if let Some(v) = v.as_str() {
                    add(&g, format!("{name} = {v}"));
                }
            }
        }
    }
    if let Some(cfg) = setup_cfg {
        // `group =` keys with indented `name = ref` lines.
        let mut in_section = false;
        let mut group = String::new();
        for line in cfg.lines() {
            let t = line.trim();
            if t.starts_with('[') && t.ends_with(']') {
                in_section = t == "[options.entry_points]";
                continue;
            }
            if !in_section || t.is_empty() || t.starts_with('#') || t.starts_with(';') {
                continue;
            }
            if line.starts_with(' ') || line.starts_with('\t') {
                add(&group, t.to_string());
            } else if let Some((k, v)) = t.split_once('=') {
                group = k.trim().to_string();
                if !v.trim().is_empty() {
                    add(&group, v.to_string());
                }
            }
        }
    }
    if let Some(py) = setup_py {
        static START: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r#"\bentry_points\s*=\s*([{]|[rRuU]?(?:"""|'''|"|'))"#)
                .expect("fixed regex")
        });
        static GROUP: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r#"["']([\w.\-]+)["']\s*:\s*[\[(]([^\])]*)[\])]"#)
                .expect("fixed regex")
        });
        static QUOTED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r#""([^"\n]*)"|'([^'\n]*)'"#).expect("fixed regex")
        });
        for c in START.captures_iter(py) {
            let (Some(all), Some(open)) = (c.get(0), c.get(1)) else {
                continue;
            };
            let rest = &py[all.end()..];
            if open.as_str() == "{" {
                // The dict up to its closing brace (such a dict nests no braces).
                let body = rest.split('}').next().unwrap_or_default();
                for g in GROUP.captures_iter(body) {
                    for q in QUOTED.captures_iter(&g[2]) {
                        if let Some(m) = q.get(1).or(q.get(2)) {
                            add(&g[1], m.as_str().to_string());
                        }
                    }
                }
            } else {
                // An ini text of `[group]` sections.
                let quote = open.as_str().trim_start_matches(['r', 'R', 'u', 'U']);
                let text = rest.split(quote).next().unwrap_or_default();
                let mut group = String::new();
                for l in text.lines().map(str::trim) {
                    if let Some(g) = l.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                        group = g.trim().to_string();
                    } else if !l.is_empty() && !l.starts_with('#') {
                        add(&group, l.to_string());
                    }
                }
            }
        }
    }
    out
}

/// The version files a build writes from the history, relative to the project root:
/// setuptools_scm's `write_to`/`version_file` (pyproject or setup.py's
/// `use_scm_version`), hatch-vcs's `version-file` and vcversioner's
/// `version_module_paths`.
pub(super) fn version_files(
    pyproject: Option<&toml::Table>,
    setup_py: Option<&str>,
) -> Vec<String> {
    static WRITE_TO: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"["']?write_to["']?\s*[:=]\s*["']([^"']+)["']"#).expect("fixed regex")
    });
    let mut out = Vec::new();
    if let Some(doc) = pyproject {
        let tool = doc.get("tool");
        let scm = tool.and_then(|t| t.get("setuptools_scm"));
        for key in ["write_to", "version_file"] {
            if let Some(f) = scm.and_then(|s| s.get(key)).and_then(|v| v.as_str()) {
                out.push(f.to_string());
            }
        }
        let vcs = tool
            .and_then(|t| t.get("hatch"))
            .and_then(|h| h.get("build"))
            .and_then(|b| b.get("hooks"))
            .and_then(|h| h.get("vcs"))
            .and_then(|v| v.get("version-file"))
            .and_then(|v| v.as_str());
        out.extend(vcs.map(str::to_string));
    }
    // vcversioner's `version_module_paths` (jsonschema until 2019: `__init__` imports
    // `jsonschema._version`, which only the build writes).
    static VCVERSIONER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"["']?version_module_paths["']?\s*[:=]\s*[\[(]([^\])]*)[\])]"#)
            .expect("fixed regex")
    });
    static QUOTED: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r#"["']([^"']+)["']"#).expect("fixed regex"));
    if let Some(text) = setup_py {
        out.extend(WRITE_TO.captures_iter(text).map(|c| c[1].to_string()));
        for list in VCVERSIONER.captures_iter(text) {
            out.extend(QUOTED.captures_iter(&list[1]).map(|c| c[1].to_string()));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// What installing the project (as `pip install -e .` does) would add that a run from
/// the working copy on `PYTHONPATH` lacks, as (path relative to the workdir, contents):
/// the distribution's metadata in `site` (the `PYTHONPATH` directory, or the workdir),
/// which `importlib.metadata.version(…)` and `pkg_resources.get_distribution(…)` read
/// (humanize's `__init__`), and the version files its build writes from the history
/// (setuptools_scm's template), which the package imports, and the entry points it
/// declares (`entry_points.txt` beside the metadata: a pytest plugin is loaded through
/// them). `version` is the nearest tag's. A path leaving the working copy (absolute,
/// `..`) is never written.
pub fn build_outputs(
    name: Option<&str>,
    version: &str,
    site: &str,
    version_files: &[String],
    entry_points: &[(String, Vec<String>)],
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let inside = |p: &str| {
        let path = std::path::Path::new(p);
        !p.is_empty()
            && path
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
    };
    if let Some(name) = name {
        let dir = format!("{}-{version}.dist-info", name.replace(['-', '.'], "_"));
        let dist_info = match site.trim_matches('/') {
            "" => dir,
            s => format!("{s}/{dir}"),
        };
        let path = format!("{dist_info}/METADATA");
        if inside(&path) {
            if !entry_points.is_empty() {
                let mut text = String::new();
                for (group, lines) in entry_points {
                    text.push_str(&format!("[{group}]\n"));
                    for l in lines {
                        text.push_str(l);
                        text.push('\n');
                    }
                    text.push('\n');
                }
                out.push((format!("{dist_info}/entry_points.txt"), text));
            }
            out.push((
                path,
                format!("Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"),
            ));
        }
    }
    let parts: Vec<&str> = version.split('.').collect();
    let tuple = if parts.iter().all(|p| p.parse::<u64>().is_ok()) {
        parts.join(", ")
    } else {
        format!("{version:?}")
    };
    for f in version_files.iter().filter(|f| inside(f)) {
        out.push((
            f.clone(),
            format!(
                "# file generated by setuptools_scm (written by hunkgen: the build is not run)\n\
                 __version__ = version = '{version}'\n\
                 __version_tuple__ = version_tuple = ({tuple},)\n"
            ),
        ));
    }
    out
}
