//! A recorded repair of surefire releases made before JDK 10 (2.20, 2.20.1, …): they
//! read the running JDK's version through a bundled commons-lang3 that knows no Java
//! after 9, and stop with a `NullPointerException` before running any test on JDK 10
//! and later (SUREFIRE-1439, fixed in 2.21.0). No JDK 8 is installed here, so a tree
//! that pins such a surefire (commons-parent 42-47 do, through
//! `${commons.surefire.version}`) runs its tests on [`TO`] instead: a build-file change
//! only, named in the environment's `repairs`, like the snapshot repairs.
//!
//! Where the version is set decides how: a property (in the tree or in a parent) is
//! overridden by `-D<property>=2.22.2` (on the command line a user property wins over a
//! pom's), a literal in the tree's poms is rewritten. A literal in a parent outside the
//! tree is not repaired.

use std::fs;
use std::path::Path;

use regex::Regex;

/// The surefire a repaired tree runs: the last 2.x, made for JDK 10 and later, with the
/// JUnit 4 and JUnit 5 providers.
pub const TO: &str = "2.22.2";

/// In an environment, the file holding [`TO`] when the run rewrites the poms' literal
/// surefire version ([`LITERAL_SED`]).
pub const FILE: &str = "surefire";

/// The run's rewrite of the surefire plugin's literal `<version>` (one that follows its
/// `<artifactId>`, a property left alone) to `VERSION`, over a whole file (`sed -z`);
/// the same as [`literal_pom`], in the shell.
pub const LITERAL_SED: &str = r"s#(<artifactId>[[:space:]]*maven-surefire-plugin[[:space:]]*</artifactId>[[:space:]]*<version>)[^<$]*(</version>)#\1VERSION\2#g";

/// Where the version of the surefire that failed is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum How {
    /// By a property (`${commons.surefire.version}`), overridden by `-D`.
    Property(String),
    /// Literally in the tree's poms, rewritten.
    Literal,
}

/// A surefire before 2.21 moved to [`TO`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upgrade {
    /// The version whose test goal failed (`2.20.1`).
    pub from: String,
    /// Where it is set.
    pub how: How,
}

impl Upgrade {
    /// How the record names it.
    pub fn describe(&self) -> String {
        let by = match &self.how {
            How::Property(p) => format!("-D{p}={TO}"),
            How::Literal => "the tree's poms rewritten".to_string(),
        };
        format!(
            "maven-surefire-plugin {} -> {TO} (before 2.21 surefire stops on JDK 10 and \
             later before running a test; {by})",
            self.from
        )
    }

    /// The argument the runs add (`-Dcommons.surefire.version=2.22.2`), for a property.
    pub fn arg(&self) -> Option<String> {
        match &self.how {
            How::Property(p) => Some(format!("-D{p}={TO}")),
            How::Literal => None,
        }
    }
}

/// Whether `v` (`2.20.1`, `2.19`) is a release before 2.21.
fn before_2_21(v: &str) -> bool {
    let mut parts = v.split(['.', '-']).map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(major), Some(minor)) => major < 2 || (major == 2 && minor < 21),
        _ => false,
    }
}

/// The version of a surefire before 2.21 whose test goal failed in Maven's `log` as an
/// execution (the plugin broke), not through the tests it ran.
pub fn failed_old(log: &str) -> Option<String> {
    static RE: std::sync::OnceLock<Option<Regex>> = std::sync::OnceLock::new();
    let re = RE
        .get_or_init(|| {
            Regex::new(
                r"maven-surefire-plugin:([0-9][^:\s]*):test \([^)]*\) on project [^:]+: Execution \S+ of goal \S+ failed",
            )
            .ok()
        })
        .as_ref()?;
    re.captures_iter(log)
        .map(|c| c[1].to_string())
        .find(|v| before_2_21(v))
}

/// The `<version>` text of every surefire plugin `text` (a pom) declares.
fn declared_versions(text: &str) -> Vec<String> {
    let Ok(doc) = roxmltree::Document::parse(text) else {
        return Vec::new();
    };
    let child = |n: roxmltree::Node<'_, '_>, name: &str| {
        n.children()
            .find(|c| c.has_tag_name(name))
            .and_then(|c| c.text())
            .map(|t| t.trim().to_string())
    };
    doc.descendants()
        .filter(|n| n.has_tag_name("plugin"))
        .filter(|n| child(*n, "artifactId").as_deref() == Some("maven-surefire-plugin"))
        .filter_map(|n| child(n, "version"))
        .collect()
}

/// The property a `${name}` version names.
fn property(version: &str) -> Option<String> {
    version
        .strip_prefix("${")
        .and_then(|r| r.strip_suffix('}'))
        .filter(|p| !p.is_empty() && !p.contains(['$', '{', '}']))
        .map(str::to_string)
}

/// Where the surefire version is set: the tree's poms (`tree`, their texts) first, then
/// its parents outside the tree (`parents`, nearest first). A property anywhere is
/// overridden; a literal only in the tree is rewritten; a literal in a parent is `None`.
pub fn version_source(tree: &[String], parents: &[String]) -> Option<How> {
    for text in tree {
        if let Some(v) = declared_versions(text).into_iter().next() {
            return Some(property(&v).map_or(How::Literal, How::Property));
        }
    }
    for text in parents {
        if let Some(v) = declared_versions(text).into_iter().next() {
            return property(&v).map(How::Property);
        }
    }
    None
}

/// `text` with the surefire plugin's literal version moved to [`TO`] (see
/// [`LITERAL_SED`], its twin in the run script).
pub fn literal_pom(text: &str) -> String {
    static RE: std::sync::OnceLock<Option<Regex>> = std::sync::OnceLock::new();
    match RE
        .get_or_init(|| {
            Regex::new(
                r"(<artifactId>\s*maven-surefire-plugin\s*</artifactId>\s*<version>)[^<$]*(</version>)",
            )
            .ok()
        })
        .as_ref()
    {
        Some(re) => re
            .replace_all(text, |c: &regex::Captures<'_>| format!("{}{TO}{}", &c[1], &c[2]))
            .into_owned(),
        None => text.to_string(),
    }
}

/// The run's shell line: with [`FILE`] in the environment, every pom's literal surefire
/// version moved to it.
pub fn run_line() -> String {
    let sed = LITERAL_SED.replace("VERSION", "'\"$surefire\"'");
    format!(
        "if [ -s \"$HUNKGEN_ENV_DIR/{FILE}\" ]; then surefire=$(cat \"$HUNKGEN_ENV_DIR/{FILE}\"); \
         find . -name pom.xml -type f -exec sed -z -i -E '{sed}' {{}} +; fi\n"
    )
}

/// Adds `arg` (a property's `-D`) to the `.mvn/maven.config` of the reactor root at
/// `root` in the resolve run's exported tree, which Maven reads as command-line
/// arguments; whether it was not there yet. A literal version is rewritten in the poms
/// instead (`repair::rewrite_tree`, with [`literal_pom`]).
pub fn configure(root: &Path, arg: &str) -> std::io::Result<bool> {
    let dir = root.join(".mvn");
    fs::create_dir_all(&dir)?;
    let path = dir.join("maven.config");
    let old = fs::read_to_string(&path).unwrap_or_default();
    if old.split_whitespace().any(|a| a == arg) {
        return Ok(false);
    }
    let sep = if old.is_empty() || old.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    fs::write(&path, format!("{old}{sep}{arg}\n"))?;
    Ok(true)
}

/// Writes `u` into the environment at `env` for its runs: a property's `-D` appended to
/// the arguments file `args` (one line), a literal's version to [`FILE`].
pub fn record(env: &Path, args: &str, u: &Upgrade) -> std::io::Result<()> {
    match u.arg() {
        Some(arg) => {
            let path = env.join(args);
            let old = fs::read_to_string(&path).unwrap_or_default();
            let line = format!("{} {arg}", old.trim_end());
            fs::write(&path, format!("{}\n", line.trim_start()))
        }
        None => fs::write(env.join(FILE), TO),
    }
}

#[cfg(test)]
#[path = "surefire_tests.rs"]
mod tests;
