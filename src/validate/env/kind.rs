//! The one interface every environment kind answers (ARCHITECTURE §5, "environment
//! kinds"): the cache and the validate stage call these methods and never match on a
//! kind, so a new kind is one module implementing [`Kind`] and one arm in
//! [`super::EnvSpec::kind`].
//!
//! A kind has up to five phases:
//! 1. **declare** (offline): what it reads from an instance's base tree
//!    ([`Kind::for_instance`]; kinds shared by every instance of a repository read nothing);
//! 2. **key**: what its environment is keyed by ([`Kind::key_inputs`]);
//! 3. **resolve**: building the environment into the cache, once per key — the only
//!    step that may use the network ([`Kind::build`]);
//! 4. **run**: the variables and paths a run needs ([`Kind::vars`], [`Kind::binds`]),
//!    its command when the suite gives none ([`Kind::default_command`]) and how a test
//!    file is selected ([`Kind::select`]); reports are read by the suite's `report:`;
//! 5. **record**: what it writes into the instance's `validation{}` ([`KindRecord`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::{BuiltEnv, EnvCache, EnvError};
use crate::model::ValidationRecord;
use crate::validate::runner::{Command, Runner};

/// What keys a shared environment besides its repository and its spec as written.
#[derive(Debug, Default)]
pub struct KeyInputs {
    /// Facts of the machine the build depends on (an interpreter's exact version).
    pub facts: Vec<String>,
    /// Files whose contents the build depends on (requirements, jars, setup inputs).
    pub files: Vec<PathBuf>,
}

/// How a suite's default command takes one selected test file.
#[derive(Debug, PartialEq, Eq)]
pub enum Selected {
    /// As a file, in the suite command's `{tests}`.
    File,
    /// As test classes (none: the file is not a test of this kind's layout).
    Classes(Vec<String>),
}

/// Where an instance's base tree is, for a kind that declares its environment per
/// instance.
pub struct InstanceTree<'a> {
    /// The git repository.
    pub repo_path: &'a Path,
    /// The base revision.
    pub rev: &'a str,
    /// The suite's working directory in the tree (empty: the root).
    pub workdir: &'a str,
    /// The changes the runs apply over the base, in order (test patch, then patch): a
    /// kind whose environment follows build files resolves the changed ones too.
    pub changes: &'a [&'a crate::diff::Patch],
    /// The SWE-bench row the instance came from (`source: swebench`), for a kind that
    /// asks the official package about it.
    pub row: Option<&'a super::swebench::RowRef>,
}

/// An environment made for one instance from its base tree, with what its runs need.
#[derive(Debug, Clone)]
pub struct InstanceEnv {
    /// The environment (shared by every instance that resolves alike).
    pub env: BuiltEnv,
    /// Variables set in front of the suite's command.
    pub prefix: String,
    /// Files written into the working copy before each run, where absent.
    pub generated: Vec<(String, String)>,
    /// The instance's own command, run when the suite gives none (`swebench`: the row's
    /// install and test command).
    pub command: Option<String>,
    /// What the kind records in `validation{}`.
    pub record: KindRecord,
}

/// What a kind writes into an instance's `validation{}`, under its own key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KindRecord {
    /// `validation.python`: what `python: auto` chose.
    Python(crate::model::PythonRecord),
    /// `validation.maven`: what `maven: auto` chose.
    Maven(crate::model::MavenRecord),
    /// `validation.swebench`: the row's spec and what its environment is made of.
    Swebench(crate::model::SwebenchRecord),
}

impl KindRecord {
    /// Puts the record under its key in `v` (a dataset reads the same field back).
    pub fn write(&self, v: &mut ValidationRecord) {
        match self {
            KindRecord::Python(p) => v.python = Some(p.clone()),
            KindRecord::Maven(m) => v.maven = Some(m.clone()),
            KindRecord::Swebench(s) => v.swebench = Some(s.clone()),
        }
    }
}

/// One kind of test environment (see the module doc for the phases).
pub trait Kind: std::fmt::Debug + Send + Sync {
    /// The kind's key under `env:` in a recipe.
    fn name(&self) -> &'static str;

    /// Recipe loading: the spec's paths made absolute with `resolve` and checked;
    /// `Err` is the one-line complaint about the `env:` entry.
    fn absolutize(&mut self, resolve: &dyn Fn(&Path) -> PathBuf) -> Result<(), String>;

    /// Why the kind has no environment shared by a repository (a kind declared per
    /// instance answers [`Kind::key_inputs`] and [`Kind::build`] with this).
    fn not_shared(&self, repo: &str) -> EnvError {
        EnvError::PerInstance {
            repo: repo.to_string(),
            kind: self.name(),
        }
    }

    /// What keys a shared environment (`Err` for a kind made per instance).
    fn key_inputs(&self, repo: &str) -> Result<KeyInputs, EnvError> {
        Err(self.not_shared(repo))
    }

    /// The resolution step: builds the environment into `tmp` (fresh, empty), through
    /// `cache`'s steps and network policy; whether it was built offline.
    fn build(
        &self,
        _cache: &EnvCache,
        _runner: &Runner,
        repo: &str,
        _key: &str,
        _tmp: &Path,
    ) -> Result<bool, EnvError> {
        Err(self.not_shared(repo))
    }

    /// Variables a run in the environment built at `dir` needs, besides
    /// `HUNKGEN_ENV_DIR`.
    fn vars(&self, _dir: &Path) -> Vec<(OsString, OsString)> {
        Vec::new()
    }

    /// What a run reads outside `dir` (bound read-only into its sandbox).
    fn binds(&self, _dir: &Path) -> Vec<PathBuf> {
        Vec::new()
    }

    /// The interpreter of the environment at `dir`, for kinds that have one (an agent's
    /// Best-scenario environment names it).
    fn interpreter(&self, _dir: &Path) -> Option<PathBuf> {
        None
    }

    /// The class path of the environment at `dir`, for kinds that have one.
    fn class_path(&self, _dir: &Path) -> Vec<PathBuf> {
        Vec::new()
    }

    /// The command when a suite gives none, over the selected test classes (`None`:
    /// the suite must give one).
    fn default_command(
        &self,
        _env: &BuiltEnv,
        _report_dir: &str,
        _classes: &[String],
    ) -> Option<Result<Command, EnvError>> {
        None
    }

    /// Whether the default command runs only the selected test classes (none selected:
    /// it has nothing to run, never the whole suite).
    fn default_command_runs_classes(&self) -> bool {
        false
    }

    /// How a selected test file (relative to the suite's workdir) is run.
    fn select(&self, _rel: &str) -> Selected {
        Selected::File
    }

    /// Why this kind cannot build the base tree (`repo` at `rev`) at all, asked when it
    /// selects no test there: a build file it needs is absent (`None`: nothing to say
    /// beyond "nothing selected").
    fn unbuildable(&self, _name: &str, _repo: &Path, _rev: &str) -> Option<EnvError> {
        None
    }

    /// [`Kind::select`] of a selection's files at once, knowing the base tree (`repo` at
    /// `rev`), for a kind whose test roots the tree declares (a pom's
    /// `testSourceDirectory`, read once for all of them).
    fn select_at(&self, rels: &[&str], _repo: &Path, _rev: &str) -> Vec<Selected> {
        rels.iter().map(|rel| self.select(rel)).collect()
    }

    /// Declared per instance from its base tree: the declare and resolve phases for
    /// `tree`. `None` for a kind whose environment every instance of a repository
    /// shares (built by [`EnvCache::ensure`]).
    fn for_instance(
        &self,
        _cache: &EnvCache,
        _runner: &Runner,
        _repo: &str,
        _tree: &InstanceTree<'_>,
    ) -> Option<Result<InstanceEnv, EnvError>> {
        None
    }
}
