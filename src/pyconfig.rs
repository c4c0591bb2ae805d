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
