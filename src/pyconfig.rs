//! Reading what a Python project declares in its configuration files (setup.cfg,
//! tox.ini, pytest.ini): one ini reader shared by test selection (pytest's
//! `python_files`) and by `hunkgen init` and `python: auto` (dependency lists).

/// `key` of an ini-style file's `[section]` (pytest.ini, tox.ini, setup.cfg): `None`
/// when the section is absent; else the value's first line (after `=` or `:`, may be
/// empty) and its indented continuation lines, trimmed; `("", [])` when the section
/// does not set the key.
pub fn ini_value(text: &str, section: &str, key: &str) -> Option<(String, Vec<String>)> {
    let mut in_section = false;
    let mut seen = false;
    let mut value: Option<(String, Vec<String>)> = None;
    let mut continuing = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') && trimmed.ends_with(']') {
            in_section = trimmed[1..trimmed.len() - 1].trim() == section;
            seen |= in_section;
            continuing = false;
            continue;
        }
        if !in_section || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        let indented = line.starts_with(' ') || line.starts_with('\t');
        if continuing && indented && !trimmed.is_empty() {
            if let Some((_, rest)) = value.as_mut() {
                rest.push(trimmed.to_string());
            }
            continue;
        }
        continuing = false;
        if let Some((k, v)) = trimmed.split_once('=').or_else(|| trimmed.split_once(':')) {
            if k.trim() == key {
                value = Some((v.trim().to_string(), Vec::new()));
                continuing = true;
            }
        }
    }
    seen.then(|| value.unwrap_or_default())
}

/// The tox configuration a tree keeps, as the file it is in and `tox.ini` text: `tox.ini` itself, else the
/// `legacy_tox_ini` string of `pyproject.toml`'s `[tool.tox]`, else `setup.cfg` when it
/// has a `[tox:tox]` section (read as `[tox]`), the order tox looks in. `{[section]key}`
/// references in values are replaced by what they name (`deps = {[core]deps}`), so the
/// readers of `[testenv]` see the lists tox installs. `read` gives a file's text by its
/// path relative to the project.
pub fn tox_config(read: &dyn Fn(&str) -> Option<String>) -> Option<(&'static str, String)> {
    let (file, text) = read("tox.ini")
        .map(|t| ("tox.ini", t))
        .or_else(|| {
            let doc: toml::Table = read("pyproject.toml")?.parse().ok()?;
            let legacy = doc.get("tool")?.get("tox")?.get("legacy_tox_ini")?;
            legacy.as_str().map(|t| ("pyproject.toml", t.to_string()))
        })
        .or_else(|| {
            let cfg = read("setup.cfg")?;
            cfg.lines()
                .any(|l| l.trim() == "[tox:tox]")
                .then(|| ("setup.cfg", cfg.replace("[tox:tox]", "[tox]")))
        })?;
    Some((file, expand_references(&text)))
}

/// `text` (ini) with each `{[section]key}` reference replaced by that key's value: a
/// reference alone on its line becomes the value's lines (at the line's indentation),
/// one inside a line its first line; references inside what a reference gives are
/// followed three levels deep, and one that names nothing is left as it is.
fn expand_references(text: &str) -> String {
    static REF: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\{\[([^\]\s]+)\]([\w-]+)\}").ok());
    let Some(re) = REF.as_ref() else {
        return text.to_string();
    };
    let mut current = text.to_string();
    for _ in 0..3 {
        if !re.is_match(&current) {
            break;
        }
        let mut out = String::with_capacity(current.len());
        for line in current.lines() {
            let trimmed = line.trim();
            let whole = re
                .captures(trimmed)
                .filter(|c| c.get(0).is_some_and(|m| m.as_str().len() == trimmed.len()));
            let value = |c: &regex::Captures| {
                ini_value(&current, &c[1], &c[2]).filter(|(first, rest)| {
                    let empty = first.is_empty() && rest.is_empty();
                    !empty && !first.contains(&c[0])
                })
            };
            match whole.as_ref().and_then(value) {
                Some((first, rest)) => {
                    let indent = &line[..line.len() - line.trim_start().len()];
                    for item in std::iter::once(first).chain(rest).filter(|s| !s.is_empty()) {
                        out.push_str(indent);
                        out.push_str(&item);
                        out.push('\n');
                    }
                }
                None => {
                    let replaced = re.replace_all(line, |c: &regex::Captures| match value(c) {
                        Some((first, rest)) if first.is_empty() => {
                            rest.first().cloned().unwrap_or_default()
                        }
                        Some((first, _)) => first,
                        None => c[0].to_string(),
                    });
                    out.push_str(&replaced);
                    out.push('\n');
                }
            }
        }
        if out == current {
            break;
        }
        current = out;
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |p: &str| {
            pairs
                .iter()
                .find(|(n, _)| *n == p)
                .map(|(_, t)| t.to_string())
        }
    }

    #[test]
    fn tox_configuration_is_found_where_tox_looks_for_it() {
        let ini = "[tox]\nenvlist = py39\n";
        let text = |f: &[(&str, &str)]| tox_config(&files(f)).map(|(_, t)| t);
        assert_eq!(
            tox_config(&files(&[("tox.ini", ini)])),
            Some(("tox.ini", ini.into()))
        );
        let pyproject = "[tool.tox]\nlegacy_tox_ini = \"\"\"\n[tox]\nenvlist = py311\n\
                         [core]\ndeps =\n    pytest-asyncio\n    pytest-timeout\n\
                         [testenv]\ndeps =\n    {[core]deps}\n    coverage\n\"\"\"\n";
        let got = text(&[("pyproject.toml", pyproject)]).unwrap_or_default();
        let (first, rest) = ini_value(&got, "testenv", "deps").unwrap_or_default();
        assert_eq!(first, "");
        assert_eq!(rest, ["pytest-asyncio", "pytest-timeout", "coverage"]);
        let cfg = "[metadata]\nname = x\n[tox:tox]\nenvlist = py27\n[testenv]\ndeps = nose\n";
        let got = text(&[("setup.cfg", cfg)]).unwrap_or_default();
        assert_eq!(
            ini_value(&got, "tox", "envlist").unwrap_or_default().0,
            "py27"
        );
        // tox.ini wins; a setup.cfg without tox sections is no tox configuration.
        assert_eq!(
            text(&[("tox.ini", ini), ("pyproject.toml", pyproject)]).as_deref(),
            Some(ini)
        );
        assert_eq!(text(&[("setup.cfg", "[metadata]\nname = x\n")]), None);
    }

    #[test]
    fn references_are_replaced_inline_and_unknown_ones_are_kept() {
        let ini = "[base]\nv = 1.0\n[testenv]\ndeps = six=={[base]v}\n    {[nowhere]deps}\n\
                   commands = {[self]commands}\n[self]\ncommands = {[self]commands}\n";
        let got = expand_references(ini);
        let (first, rest) = ini_value(&got, "testenv", "deps").unwrap_or_default();
        assert_eq!(first, "six==1.0");
        assert_eq!(rest, ["{[nowhere]deps}"]);
        // A value that names itself is not followed.
        assert_eq!(
            ini_value(&got, "testenv", "commands").unwrap_or_default().0,
            "{[self]commands}"
        );
    }
}
