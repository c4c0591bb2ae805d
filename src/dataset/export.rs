//! `hunkgen export`: a dataset's instances in another benchmark's schema, written
//! atomically; today SWE-bench's (the twelve fields of `swebench.types.SWEbenchInstance`,
//! in its order), read unchanged by its harness.

use super::{write_atomic, DatasetError};
use crate::model::{Instance, SwebenchRow};
use std::path::Path;

/// How FAIL_TO_PASS / PASS_TO_PASS are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ListStyle {
    /// A JSON-encoded string (`"[\"t1\", \"t2\"]"`), as the published datasets store them.
    #[default]
    JsonString,
    /// A plain JSON array.
    Array,
}

impl ListStyle {
    /// Both, the published datasets' first.
    pub const ALL: [ListStyle; 2] = [ListStyle::JsonString, ListStyle::Array];

    /// Name as given to `--lists`.
    pub fn name(self) -> &'static str {
        match self {
            ListStyle::JsonString => "json-string",
            ListStyle::Array => "array",
        }
    }
}

impl std::str::FromStr for ListStyle {
    type Err = crate::model::UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::model::parse_name(s, "list style", &Self::ALL, Self::name)
    }
}

/// How rows are put in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Container {
    /// One row per line (`.jsonl`).
    #[default]
    Jsonl,
    /// One JSON list of rows (`.json`).
    JsonList,
}

impl Container {
    /// A JSON list with `--json` or an output named `*.json` (the harness reads a `.json`
    /// file as one list), else JSON Lines.
    pub fn for_output(json: bool, out: &Path) -> Container {
        if json || out.extension().is_some_and(|e| e == "json") {
            Container::JsonList
        } else {
            Container::Jsonl
        }
    }

    /// `rows` in this container.
    pub fn bytes<T: serde::Serialize>(self, rows: &[T]) -> Vec<u8> {
        match self {
            Container::Jsonl => super::jsonl(rows),
            Container::JsonList => {
                // Plain data structs always serialize.
                let mut out = serde_json::to_vec_pretty(rows).unwrap_or_default();
                out.push(b'\n');
                out
            }
        }
    }
}

/// The instances as SWE-bench rows, in the dataset's order.
pub fn swebench_bytes(instances: &[Instance], lists: ListStyle, container: Container) -> Vec<u8> {
    let rows: Vec<SwebenchRow> = instances
        .iter()
        .map(|i| SwebenchRow::from_instance(i, lists == ListStyle::JsonString))
        .collect();
    container.bytes(&rows)
}

/// Write a dataset's instances as SWE-bench rows to `out` (temporary file + rename).
pub fn write_swebench(
    instances: &[Instance],
    out: &Path,
    lists: ListStyle,
    container: Container,
) -> Result<(), DatasetError> {
    write_atomic(out, &swebench_bytes(instances, lists, container))
}
