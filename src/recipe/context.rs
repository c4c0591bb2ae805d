//! What every part of the recipe plan shares: paths resolved against the recipe's
//! folder, errors placed at the key's line, and the default cache directory.

use super::schema::locate;
use super::RecipeError;
use std::path::{Path, PathBuf};

/// Resolves recipe paths and reports errors at the key's place in the text.
pub(super) struct Ctx<'a> {
    pub(super) file: &'a Path,
    pub(super) text: &'a str,
}

impl Ctx<'_> {
    pub(super) fn resolve(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            return p.to_path_buf();
        }
        self.file.parent().unwrap_or(Path::new(".")).join(p)
    }

    pub(super) fn err(&self, key: &str, message: impl Into<String>) -> RecipeError {
        RecipeError {
            file: self.file.to_path_buf(),
            location: locate(self.text, key),
            key: key.to_string(),
            message: message.into(),
        }
    }
}

/// `$HUNKGEN_CACHE_DIR`, else `$XDG_CACHE_HOME/hunkgen`, else `~/.cache/hunkgen`.
pub fn default_cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("HUNKGEN_CACHE_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("hunkgen");
    }
    std::env::var_os("HOME")
        .map(|h| PathBuf::from(h).join(".cache/hunkgen"))
        .unwrap_or_else(|| std::env::temp_dir().join("hunkgen-cache"))
}

/// An API root the recipe names at `key`, checked to be an http(s) URL (GitHub's and
/// JIRA's alike).
pub(super) fn api_url(cx: &Ctx<'_>, key: &str, api: &str) -> Result<(), RecipeError> {
    match api.parse::<http::Uri>() {
        Ok(u) if u.scheme().is_some() && u.host().is_some() => Ok(()),
        _ => Err(cx.err(key, format!("expected an http(s) URL, got `{api}`"))),
    }
}
