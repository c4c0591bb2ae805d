//! Why a shard could not be chosen, read or joined: one line naming the setting, the
//! shard directory or the file, as `hunkgen merge` and the sharded commands print it.

use super::{Kind, Shard};
use std::path::PathBuf;

/// A `K/N` that is not one (`0 <= K < N`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}`: expected K/N with 0 <= K < N, e.g. 0/4")]
pub struct BadShard {
    /// The text given.
    pub text: String,
}

/// Why the shard a command runs could not be chosen, naming the flag or variable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardChoiceError {
    /// `--shard` is not `K/N`.
    #[error("--shard {source}")]
    Flag {
        /// What is wrong with it.
        source: BadShard,
    },
    /// A variable holding `K/N` does not.
    #[error("{var}={source}")]
    Var {
        /// The variable (`HUNKGEN_SHARD`).
        var: &'static str,
        /// What is wrong with its value.
        source: BadShard,
    },
    /// An index variable and a count variable do not make `K/N`.
    #[error("{index_var}/{count_var}: {source}")]
    Pair {
        /// The index variable (`SLURM_ARRAY_TASK_ID`).
        index_var: &'static str,
        /// The count variable (`SLURM_ARRAY_TASK_COUNT`).
        count_var: &'static str,
        /// What is wrong with the pair.
        source: BadShard,
    },
    /// The index variable is set without its count.
    #[error("{index_var} is set but {count_var} is not: set {count_var} to the number of shards")]
    NoCount {
        /// The index variable that is set.
        index_var: &'static str,
        /// The count variable that is missing.
        count_var: &'static str,
    },
}

/// Why shard directories are not one complete set, or a shard's file cannot be read or
/// written; each names the directory or file.
#[derive(Debug, thiserror::Error)]
pub enum ShardSetError {
    /// No shard directory was given.
    #[error("no shard directories given")]
    NoShards,
    /// The manifest cannot be read: the shard did not finish.
    #[error("{}: not a complete shard ({}: {source}); run the shard again", dir.display(), super::MANIFEST)]
    NoManifest {
        /// The shard directory.
        dir: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The manifest is not YAML of the expected shape.
    #[error("{}: not a complete shard manifest ({source}); run the shard again", path.display())]
    BadManifest {
        /// The manifest file.
        path: PathBuf,
        /// The parse error.
        source: serde_norway::Error,
    },
    /// The manifest is of another format version.
    #[error("{}: manifest format {format} (this hunkgen reads {})", path.display(), super::FORMAT)]
    Format {
        /// The manifest file.
        path: PathBuf,
        /// Its format.
        format: u32,
    },
    /// A file the manifest lists cannot be read.
    #[error("{}: not a complete shard ({source}); run the shard again", path.display())]
    Incomplete {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A file the manifest lists does not have its checksum.
    #[error("{}: does not match its manifest's checksum (a partial or edited shard); run the shard again", path.display())]
    Checksum {
        /// The file.
        path: PathBuf,
    },
    /// Shards of two different commands.
    #[error(
        "{} is a shard of `hunkgen {}` but {} is one of `hunkgen {}`: merge shards of one command",
        dir.display(),
        kind.command(),
        first_dir.display(),
        first_kind.command()
    )]
    Kinds {
        /// The shard that differs.
        dir: PathBuf,
        /// Its kind.
        kind: Kind,
        /// The first shard.
        first_dir: PathBuf,
        /// The first shard's kind.
        first_kind: Kind,
    },
    /// A value every shard must share differs (boxed: it is the largest).
    #[error(transparent)]
    Differs(Box<Differs>),
    /// Some K in `0..N` was not given.
    #[error("shard(s) {} missing (given {given} of {count})", missing.iter().map(|k| format!("{k}/{count}")).collect::<Vec<_>>().join(", "))]
    Missing {
        /// The missing K.
        missing: Vec<u64>,
        /// How many distinct shards were given.
        given: usize,
        /// N.
        count: u64,
    },
    /// One K given twice.
    #[error("shard {shard} given twice: {}", dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", "))]
    Twice {
        /// The shard.
        shard: Shard,
        /// The directories claiming it.
        dirs: Vec<PathBuf>,
    },
    /// An id in a shard its hash does not name.
    #[error("{}: `{id}` belongs to shard {owner}/{}, not {shard}", dir.display(), shard.count)]
    NotOwned {
        /// The shard directory.
        dir: PathBuf,
        /// The id.
        id: String,
        /// The K its hash names.
        owner: u64,
        /// The shard it is in.
        shard: Shard,
    },
    /// An instance in two shards.
    #[error("instance `{id}` is in two shards: {} and {}", first.display(), second.display())]
    InTwo {
        /// The instance.
        id: String,
        /// The first shard holding it.
        first: PathBuf,
        /// The second.
        second: PathBuf,
    },
    /// The shards do not cover every instance.
    #[error("the shards cover {covered} instance(s) but the {} has {total}", kind.name())]
    Coverage {
        /// Instances the shards hold.
        covered: usize,
        /// Instances there are.
        total: usize,
        /// The kind of shards.
        kind: Kind,
    },
    /// A file cannot be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A row file's line is not JSON.
    #[error("{}:{line}: not a row: {source}", path.display())]
    NotARow {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The parse error.
        source: serde_json::Error,
    },
    /// A row without `instance_id`.
    #[error("{}:{line}: no instance_id", path.display())]
    NoInstanceId {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
    },
    /// A row naming no instance of the dataset.
    #[error("{}:{line}: `{id}` is not an instance of the dataset", path.display())]
    UnknownInstance {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The id it names.
        id: String,
    },
    /// The dataset the shards worked on cannot be read where they read it.
    #[error("{}: {source} (merge reads the dataset where the shards read it)", path.display())]
    DatasetGone {
        /// Its instances.jsonl.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The dataset changed since the shards ran.
    #[error("{}: changed since the shards ran (its SHA-256 is not the manifests' dataset_sha256)", path.display())]
    DatasetChanged {
        /// Its instances.jsonl.
        path: PathBuf,
    },
    /// The manifest cannot be serialized.
    #[error("{0}")]
    Serialize(#[source] serde_norway::Error),
    /// The manifest cannot be written.
    #[error("{0}")]
    Write(#[source] crate::dataset::DatasetError),
}

/// Two shards of one set with different values of what they must share.
#[derive(Debug, thiserror::Error)]
#[error("{} has {what} `{shown}` but {} has `{first_shown}`: shards of one {of_one} only", dir.display(), first_dir.display())]
pub struct Differs {
    /// The shard that differs.
    pub dir: PathBuf,
    /// What the value is.
    pub what: &'static str,
    /// Its value there.
    pub shown: String,
    /// The first shard.
    pub first_dir: PathBuf,
    /// The value in the first shard.
    pub first_shown: String,
    /// What the shards are of ("build").
    pub of_one: String,
}
