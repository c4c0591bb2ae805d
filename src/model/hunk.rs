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
    /// The hunk only deletes import lines.
    ImportOnly,
}

impl SkipReason {
    /// Stable name used in JSON and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::NotCode => "not_code",
            SkipReason::CreatedFile => "created_file",
            SkipReason::ImportOnly => "import_only",
        }
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
