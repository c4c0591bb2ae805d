//! Predictions in SWE-bench's forms: JSON Lines, a JSON list, or a JSON object keyed by
//! `instance_id`; each with `instance_id`, `model_name_or_path`, `model_patch` and an
//! optional `state` and `scenario` (`hunkgen run` writes both).

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One system's patch for one instance (and state).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Prediction {
    /// The instance.
    pub instance_id: String,
    /// The system.
    #[serde(default)]
    pub model_name_or_path: String,
    /// Its patch (a unified diff; empty = no change).
    #[serde(default)]
    pub model_patch: Option<String>,
    /// The state it was made on (`novel`, `partial`, `resolved`); `--state` otherwise.
    #[serde(default)]
    pub state: Option<String>,
    /// The scenario it was made in (`best`, `worst`); `--scenario` otherwise.
    #[serde(default)]
    pub scenario: Option<String>,
    /// The prompt's instruction it was made under (`issue`, `edit`, `reproduce`,
    /// `abstain-or-fix`, …; `hunkgen run` writes it): a row of FixedBench's table.
    #[serde(default, alias = "instruction")]
    pub prompt_variant: Option<String>,
    /// Which attempt it is (`hunkgen run --attempts K`; 1-based): several per instance
    /// and state give pass@k.
    #[serde(default)]
    pub attempt: Option<u32>,
}

/// A predictions file that cannot be read, with the file and the place.
#[derive(Debug, thiserror::Error)]
pub enum PredictionsError {
    /// The file cannot be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file holds no prediction.
    #[error("{}: no predictions (expected JSON Lines, a JSON list, or an object keyed by instance_id)", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// A row is not a prediction.
    #[error("{}:{line}: {what}", path.display())]
    Row {
        /// The file.
        path: PathBuf,
        /// 1-based line (JSON Lines) or 1-based item (list / object).
        line: usize,
        /// What was expected.
        what: String,
    },
}

/// Read predictions in any of SWE-bench's forms.
pub fn read(path: &Path) -> Result<Vec<Prediction>, PredictionsError> {
    let text = std::fs::read_to_string(path).map_err(|source| PredictionsError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text, path)
}

/// Predictions in any of SWE-bench's forms from `text`, as if read from `path` (which
/// only names the file in errors): the fuzz targets and [`read`] share it.
pub fn parse(text: &str, path: &Path) -> Result<Vec<Prediction>, PredictionsError> {
    let row_err = |line: usize, e: serde_json::Error| {
        PredictionsError::Row {
        path: path.to_path_buf(),
        line,
        what: format!(
            "not a prediction ({e}); expected {{\"instance_id\", \"model_name_or_path\", \"model_patch\"}}"
        ),
    }
    };
    let trimmed = text.trim_start();
    let preds: Vec<Prediction> = if trimmed.starts_with('[') {
        let items: Vec<serde_json::Value> =
            serde_json::from_str(text).map_err(|e| row_err(e.line(), e))?;
        items
            .into_iter()
            .enumerate()
            .map(|(i, v)| serde_json::from_value(v).map_err(|e| row_err(i + 1, e)))
            .collect::<Result<_, _>>()?
    } else if trimmed.starts_with('{') && serde_json::from_str::<serde_json::Value>(text).is_ok() {
        let map: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(text).map_err(|e| row_err(e.line(), e))?;
        if map.contains_key("instance_id") {
            // One prediction as a single JSON object (a one-line JSONL file).
            vec![serde_json::from_value(serde_json::Value::Object(map))
                .map_err(|e| row_err(1, e))?]
        } else {
            map.into_iter()
                .enumerate()
                .map(|(i, (id, mut v))| {
                    if let Some(o) = v.as_object_mut() {
                        o.entry("instance_id").or_insert(id.into());
                    }
                    serde_json::from_value(v).map_err(|e| row_err(i + 1, e))
                })
                .collect::<Result<_, _>>()?
        }
    } else {
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| serde_json::from_str(l).map_err(|e| row_err(i + 1, e)))
            .collect::<Result<_, _>>()?
    };
    if preds.is_empty() {
        return Err(PredictionsError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(preds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &str) -> Result<Vec<Prediction>, PredictionsError> {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("preds");
        std::fs::write(&p, text).expect("write");
        read(&p)
    }

    #[test]
    fn all_three_forms_read_the_same() {
        let jsonl = "{\"instance_id\":\"a\",\"model_name_or_path\":\"m\",\"model_patch\":\"\"}\n{\"instance_id\":\"b\",\"model_name_or_path\":\"m\",\"model_patch\":null,\"state\":\"resolved\"}\n";
        let list = "[{\"instance_id\":\"a\",\"model_name_or_path\":\"m\",\"model_patch\":\"\"},{\"instance_id\":\"b\",\"model_name_or_path\":\"m\",\"model_patch\":null,\"state\":\"resolved\"}]";
        let dict = "{\"a\":{\"model_name_or_path\":\"m\",\"model_patch\":\"\"},\"b\":{\"model_name_or_path\":\"m\",\"model_patch\":null,\"state\":\"resolved\"}}";
        let a = read_text(jsonl).expect("jsonl");
        assert_eq!(a.len(), 2);
        assert_eq!(a, read_text(list).expect("list"));
        assert_eq!(a, read_text(dict).expect("dict"));
        assert_eq!(a[1].state.as_deref(), Some("resolved"));
        assert_eq!(a[1].scenario, None);
        let b = read_text("{\"instance_id\":\"a\",\"model_patch\":\"\",\"scenario\":\"best\"}\n")
            .expect("scenario");
        assert_eq!(b[0].scenario.as_deref(), Some("best"));
    }

    #[test]
    fn bad_files_say_where() {
        let e = read_text("").expect_err("empty").to_string();
        assert!(e.contains("no predictions"), "{e}");
        let e = read_text("{\"instance_id\":\"a\"}\nnot json\n")
            .expect_err("bad")
            .to_string();
        assert!(e.contains("preds:2: not a prediction"), "{e}");
        let e = read_text("[{\"model_patch\":\"x\"}]")
            .expect_err("no id")
            .to_string();
        assert!(e.contains(":1:") && e.contains("instance_id"), "{e}");
    }
}

/// Built-in prediction sets that every dataset can be scored with, as sanity baselines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Baseline {
    /// The golden patch, on Novel: must resolve every instance.
    Gold,
    /// No change, on Novel, Partial and Resolved: resolves nothing; abstains everywhere.
    /// A Defects4J instance without a Partial state gets Novel and Resolved only.
    Empty,
    /// The Partial state's hunks, on Novel: still buggy, resolves nothing. A Defects4J
    /// instance without a Partial state gets the largest proper subset of its counted
    /// hunks (with its uncounted ones), the first one the Partial state would try; not
    /// checked to fail, so it may resolve.
    Partial,
}

impl Baseline {
    /// All three, in the order `--baseline` lists them.
    pub const ALL: [Baseline; 3] = [Baseline::Gold, Baseline::Empty, Baseline::Partial];

    /// The short name, as given to `--baseline`.
    pub fn key(self) -> &'static str {
        match self {
            Baseline::Gold => "gold",
            Baseline::Empty => "empty",
            Baseline::Partial => "partial",
        }
    }

    /// The baseline's name, as `model_name_or_path`.
    pub fn name(self) -> &'static str {
        match self {
            Baseline::Gold => "baseline-gold",
            Baseline::Empty => "baseline-empty",
            Baseline::Partial => "baseline-partial",
        }
    }
}

impl std::str::FromStr for Baseline {
    type Err = crate::model::UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::model::parse_name(s, "baseline", &Self::ALL, Self::key)
    }
}

/// The predictions of a baseline for a dataset's instances (`dataset` is where its
/// Partial states are).
pub fn baseline(
    which: Baseline,
    instances: &[crate::model::Instance],
    dataset: &Path,
) -> Vec<Prediction> {
    let pred = |id: &str, patch: String, state: &str| Prediction {
        instance_id: id.to_string(),
        model_name_or_path: which.name().into(),
        model_patch: Some(patch),
        state: Some(state.into()),
        scenario: None,
        prompt_variant: None,
        attempt: None,
    };
    let mut out = Vec::new();
    for inst in instances {
        // The change the dataset's Partial state holds (a hunk subset or a weak patch).
        let partial = crate::states::stored_partial(dataset, inst).ok().flatten();
        let d4j = inst.source == crate::model::SourceKind::Defects4j;
        match which {
            Baseline::Gold => out.push(pred(&inst.instance_id, inst.patch.clone(), "novel")),
            Baseline::Empty => {
                for s in ["novel", "partial", "resolved"] {
                    if s == "partial" && d4j && partial.is_none() {
                        continue;
                    }
                    out.push(pred(&inst.instance_id, String::new(), s));
                }
            }
            Baseline::Partial => {
                let change = match partial {
                    Some(p) => p.patch,
                    None if d4j => match (
                        crate::states::hunk_subsets(inst, 1).pop(),
                        crate::states::golden_patch(inst),
                    ) {
                        (Some(h), Ok(golden)) => crate::states::subset_patch(&golden, &h),
                        _ => continue,
                    },
                    None => continue,
                };
                out.push(pred(&inst.instance_id, change.to_text(), "novel"));
            }
        }
    }
    out
}
