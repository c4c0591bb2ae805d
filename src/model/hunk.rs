//! Hunk-level contract types: where a counted hunk sits, why a hunk is not counted, and
//! the proximity classes (HUNK4J Definition 5).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What annotation adds to a counted hunk: its place in the code.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct HunkPlace {
    /// Position of the hunk in annotation order (pair indices refer to it).
    pub order: usize,
    /// Display label of the enclosing method(s), `Type.name(params)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Method identity: (min begin, max end) lines of the matched members.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method_lines: Option<(u32, u32)>,
    /// Package for proximity: the module path from the source root, or with HUNK4J's
    /// directory rule the directory segments without the first one.
    pub package: Vec<String>,
    /// Declared package (Java `package`, Python dotted package).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_package: Option<String>,
}

/// Why a hunk does not count toward the multi-hunk selection.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// The file is not a code file (resources, docs, tests).
    NotCode,
    /// The fix creates the file.
    CreatedFile,
    /// The hunk only deletes import lines (Defects4J: the text rule HUNK4J publishes;
    /// git sources: every changed line is an import, a comment or blank, per the parser).
    ImportOnly,
    /// A code-language file outside every detected source root (Python: not in a package;
    /// Java: not under `src/main/java` and its `package` does not match its directory).
    OutsideSourceRoot,
    /// `setup.py`, a build script rather than library code.
    SetupScript,
    /// `conftest.py`, pytest configuration.
    Conftest,
    /// Under a top-level `docs/` (`doc/`) directory.
    Docs,
    /// Under a top-level `examples/` directory (or `*-examples/`, `*_examples/`).
    Examples,
    /// Under a top-level `benchmarks/` (`benchmark/`, `bench/`) directory.
    Benchmarks,
    /// Under a top-level `scripts/` directory.
    Scripts,
    /// Under a vendored directory (`vendor/`, `_vendor/`, `vendored/`, `third_party/`).
    Vendored,
    /// A generated file (`@generated` or `DO NOT EDIT` in its first lines, or a recipe
    /// `files.generated` glob).
    Generated,
    /// Matched by a recipe `files.not_code` glob.
    RecipeNotCode,
    /// A submodule (gitlink) entry: a commit id of another repository, not text.
    Submodule,
    /// A Git LFS pointer file: the content lives outside the repository.
    LfsPointer,
    /// Only whitespace changed (layout, blank lines, indentation at the same depth).
    WhitespaceOnly,
    /// Only comments changed; the code tokens are equal.
    CommentOnly,
    /// Only Python docstrings changed.
    DocstringOnly,
}

impl SkipReason {
    /// Stable name used in JSON and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::NotCode => "not_code",
            SkipReason::CreatedFile => "created_file",
            SkipReason::ImportOnly => "import_only",
            SkipReason::OutsideSourceRoot => "outside_source_root",
            SkipReason::SetupScript => "setup_script",
            SkipReason::Conftest => "conftest",
            SkipReason::Docs => "docs",
            SkipReason::Examples => "examples",
            SkipReason::Benchmarks => "benchmarks",
            SkipReason::Scripts => "scripts",
            SkipReason::Vendored => "vendored",
            SkipReason::Generated => "generated",
            SkipReason::RecipeNotCode => "recipe_not_code",
            SkipReason::Submodule => "submodule",
            SkipReason::LfsPointer => "lfs_pointer",
            SkipReason::WhitespaceOnly => "whitespace_only",
            SkipReason::CommentOnly => "comment_only",
            SkipReason::DocstringOnly => "docstring_only",
        }
    }

    /// Whether the reason is about the whole file (its role), not the hunk's content;
    /// a file-level reason wins over every hunk rule.
    pub fn is_file_level(self) -> bool {
        !matches!(
            self,
            SkipReason::CreatedFile
                | SkipReason::ImportOnly
                | SkipReason::WhitespaceOnly
                | SkipReason::CommentOnly
                | SkipReason::DocstringOnly
        )
    }
}

/// Proximity class of a multi-hunk patch, from tightest to loosest.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub enum ProximityClass {
    /// All hunks in one method of one file.
    Nucleus,
    /// One file, more than one method (or code outside methods).
    Cluster,
    /// Several files of one package.
    Orbit,
    /// Several packages sharing a prefix longer than λ.
    Sprawl,
    /// Several packages sharing at most λ leading segments.
    Fragment,
}

impl ProximityClass {
    /// All classes in table order.
    pub const ALL: [ProximityClass; 5] = [
        ProximityClass::Nucleus,
        ProximityClass::Cluster,
        ProximityClass::Orbit,
        ProximityClass::Sprawl,
        ProximityClass::Fragment,
    ];

    /// Display name.
    pub fn name(self) -> &'static str {
        match self {
            ProximityClass::Nucleus => "Nucleus",
            ProximityClass::Cluster => "Cluster",
            ProximityClass::Orbit => "Orbit",
            ProximityClass::Sprawl => "Sprawl",
            ProximityClass::Fragment => "Fragment",
        }
    }
}
