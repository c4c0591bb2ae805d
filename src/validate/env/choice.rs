//! `env:` as a recipe writes it ([`EnvChoice`]: a map with exactly one kind's key) and
//! its conversion to and from [`EnvSpec`]; `Err` names what is wrong with the section.

use serde::{Deserialize, Serialize};

use super::{
    swebench, AutoSpec, CommandEnv, EnvSpec, GradleAutoSpec, JavaSpec, MavenAutoSpec, PythonSpec,
};

/// [`EnvSpec`] as written: a map with exactly one of its keys (YAML has no plain enum
/// syntax that serde_norway reads without tags).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvChoice {
    /// A uv venv, or `auto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<PythonEntry>,
    /// javac + jars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub java: Option<JavaSpec>,
    /// A setup command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandEnv>,
    /// A Maven build: only the word `auto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maven: Option<String>,
    /// A Gradle build: only the word `auto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gradle: Option<String>,
    /// SWE-bench rows, by the official package's specs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swebench: Option<swebench::SwebenchSpec>,
}

/// `python:` as written: `auto`, or the environment spelled out.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PythonEntry {
    /// A word: only `auto` is one.
    Word(String),
    /// Interpreter, requirements, install command.
    Spec(PythonSpec),
}

/// An `env:` section that names none, or more than one, of its kinds, or a `python:`
/// word other than `auto`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotOneEnv {
    /// None or several kinds.
    #[error("expected exactly one of `python`, `java`, `command`, `maven`, `gradle`, `swebench`")]
    Kinds,
    /// `python: <word>`.
    #[error("`python: {0}`: expected `auto` or a map (python, requirements, install)")]
    Word(String),
    /// `maven: <word>` other than `auto`.
    #[error("`maven: {0}`: expected `auto`")]
    MavenWord(String),
    /// `gradle: <word>` other than `auto`.
    #[error("`gradle: {0}`: expected `auto`")]
    GradleWord(String),
}

impl TryFrom<EnvChoice> for EnvSpec {
    type Error = NotOneEnv;
    fn try_from(c: EnvChoice) -> Result<Self, NotOneEnv> {
        let named = [
            c.python.is_some(),
            c.java.is_some(),
            c.command.is_some(),
            c.maven.is_some(),
            c.gradle.is_some(),
            c.swebench.is_some(),
        ];
        if named.iter().filter(|n| **n).count() != 1 {
            return Err(NotOneEnv::Kinds);
        }
        let auto = |w: &str| w == "auto";
        Ok(match c {
            EnvChoice {
                swebench: Some(s), ..
            } => EnvSpec::Swebench(s),
            EnvChoice {
                gradle: Some(w), ..
            } if auto(&w) => EnvSpec::GradleAuto(GradleAutoSpec),
            EnvChoice {
                gradle: Some(w), ..
            } => return Err(NotOneEnv::GradleWord(w)),
            EnvChoice { maven: Some(w), .. } if auto(&w) => EnvSpec::MavenAuto(MavenAutoSpec),
            EnvChoice { maven: Some(w), .. } => return Err(NotOneEnv::MavenWord(w)),
            EnvChoice {
                python: Some(PythonEntry::Word(w)),
                ..
            } if auto(&w) => EnvSpec::PythonAuto(AutoSpec),
            EnvChoice {
                python: Some(PythonEntry::Word(w)),
                ..
            } => return Err(NotOneEnv::Word(w)),
            EnvChoice {
                python: Some(PythonEntry::Spec(p)),
                ..
            } => EnvSpec::Python(p),
            EnvChoice { java: Some(j), .. } => EnvSpec::Java(j),
            EnvChoice {
                command: Some(c), ..
            } => EnvSpec::Command(c),
            _ => return Err(NotOneEnv::Kinds),
        })
    }
}

impl From<EnvSpec> for EnvChoice {
    fn from(s: EnvSpec) -> Self {
        match s {
            EnvSpec::Python(p) => EnvChoice {
                python: Some(PythonEntry::Spec(p)),
                ..Default::default()
            },
            EnvSpec::PythonAuto(AutoSpec) => EnvChoice {
                python: Some(PythonEntry::Word("auto".into())),
                ..Default::default()
            },
            EnvSpec::Java(j) => EnvChoice {
                java: Some(j),
                ..Default::default()
            },
            EnvSpec::MavenAuto(MavenAutoSpec) => EnvChoice {
                maven: Some("auto".into()),
                ..Default::default()
            },
            EnvSpec::GradleAuto(GradleAutoSpec) => EnvChoice {
                gradle: Some("auto".into()),
                ..Default::default()
            },
            EnvSpec::Command(c) => EnvChoice {
                command: Some(c),
                ..Default::default()
            },
            EnvSpec::Swebench(s) => EnvChoice {
                swebench: Some(s),
                ..Default::default()
            },
        }
    }
}
