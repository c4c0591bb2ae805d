//! What `hunkgen report` shows, gathered once from a dataset directory (card, instances,
//! rejections, test logs) and optional results, as typed values for the HTML renderer.

use super::results::{self, ResultsTables, SystemResults};
use super::Tables;
use crate::dataset::percent_encode as url_segment;
use crate::model::{Card, Instance, RejectReason, Rejected, Stage, YieldClass};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// The build funnel: items at each step, and rejections by stage and reason.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Funnel {
    /// Steps in order (`walked`, `examined`, `multi-hunk`, `validated`, `kept`); `None`
    /// when the dataset does not record the step (old cards, unvalidated datasets).
    pub steps: Vec<(&'static str, Option<usize>)>,
    /// Rejections per (stage, reason), with the first row's detail as an example.
    pub rejected: Vec<RejectedGroup>,
    /// Rejections per maintainer's question (not a fix, broken fix, environment, …).
    pub yields: Vec<(YieldClass, usize)>,
}

/// Rejections sharing a stage and a reason.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RejectedGroup {
    /// Where.
    pub stage: Stage,
    /// Why.
    pub reason: RejectReason,
    /// How many.
    pub count: usize,
    /// The first such item's id and detail.
    pub example: (String, String),
}

impl Funnel {
    /// The funnel from the card's counts (or the instances alone) and the rejections.
    pub fn compute(card: Option<&Card>, instances: &[Instance], rejected: &[Rejected]) -> Funnel {
        let validated = instances.iter().any(|i| i.validation.is_some());
        let steps = match card {
            Some(c) => {
                let mut steps = vec![
                    ("walked", (c.counts.walked > 0).then_some(c.counts.walked)),
                    ("examined", Some(c.counts.examined)),
                    ("multi-hunk", Some(c.counts.multi_hunk)),
                    ("validated", validated.then_some(c.counts.validated)),
                    ("kept", Some(c.counts.instances)),
                ];
                // `select.sample`: the instances drawn, between selection and validation.
                if let Some(n) = c.counts.sampled {
                    steps.insert(3, ("sampled", Some(n)));
                }
                steps
            }
            None => vec![
                ("walked", None),
                ("examined", None),
                ("multi-hunk", None),
                (
                    "validated",
                    validated.then(|| instances.iter().filter(|i| i.validation.is_some()).count()),
                ),
                ("kept", Some(instances.len())),
            ],
        };
        let mut groups: BTreeMap<(Stage, RejectReason), RejectedGroup> = BTreeMap::new();
        for r in rejected {
            groups
                .entry((r.stage, r.reason))
                .or_insert_with(|| RejectedGroup {
                    stage: r.stage,
                    reason: r.reason,
                    count: 0,
                    example: (r.id.clone(), r.detail.clone()),
                })
                .count += 1;
        }
        Funnel {
            steps,
            rejected: groups.into_values().collect(),
            yields: crate::model::yield_counts(rejected),
        }
    }
}

/// Everything one report page shows.
#[derive(Debug, Clone)]
pub struct Page {
    /// The dataset's card, when it has one.
    pub card: Option<Card>,
    /// The kept instances, in file order.
    pub instances: Vec<Instance>,
    /// Tables I–III and the distributions (the same values as `report/tables.md`).
    pub tables: Tables,
    /// The funnel.
    pub funnel: Funnel,
    /// Per instance id: its test logs as links relative to the page.
    pub logs: BTreeMap<String, Vec<String>>,
    /// The systems given with `--results`.
    pub systems: Vec<SystemResults>,
    /// Their tables (`None` without results).
    pub results: Option<ResultsTables>,
    /// The outcome-conditioned breakdowns of those results (the agent study's Tables 3
    /// and 4), when a system has Novel rows or there are several systems.
    pub outcomes: Option<super::outcomes::OutcomeTables>,
    /// The behaviour labels of agent runs (`hunkgen judge`), when a summary is given or
    /// found.
    pub judgements: Option<crate::model::JudgementSummary>,
}

/// A dataset or results file the report cannot use, with the file named.
#[derive(Debug, thiserror::Error)]
pub enum PageError {
    /// Reading the dataset failed.
    #[error(transparent)]
    Dataset(#[from] crate::dataset::DatasetError),
    /// A `--results` file cannot be used.
    #[error(transparent)]
    Results(#[from] results::ResultsError),
    /// The judgements summary cannot be used.
    #[error(transparent)]
    Judgements(#[from] super::judgements::SummaryError),
}

impl Page {
    /// Gather the page for `dataset`, written to `out` (log links are relative to it),
    /// with the given `--results` files or directories and a `hunkgen judge` summary.
    pub fn load(
        dataset: &Path,
        out: &Path,
        results_args: &[PathBuf],
        judgements: Option<&Path>,
    ) -> Result<Page, PageError> {
        let instances = crate::dataset::read_instances(dataset)?;
        let card = crate::dataset::read_card(dataset)?;
        let rejected = crate::dataset::read_rejected(dataset)?;
        let annotated = instances.iter().any(|i| i.divergence.is_some());
        let mut tables = Tables::compute(&instances, &instances, annotated);
        let profile = instances
            .iter()
            .find_map(|i| i.divergence.as_ref())
            .and_then(|d| {
                d.profile
                    .parse::<crate::annotate::divergence::Profile>()
                    .ok()
            });
        let sources = card.as_ref().map(|c| c.sources.clone()).unwrap_or_default();
        tables.inputs = super::inputs(&sources, profile);
        let funnel = Funnel::compute(card.as_ref(), &instances, &rejected);
        let prefix = relative_prefix(out, dataset);
        let logs = instances
            .iter()
            .filter_map(|i| {
                let dir = dataset.join("logs").join(&i.instance_id);
                let mut files = Vec::new();
                list_files(&dir, "", &mut files);
                files.sort();
                (!files.is_empty()).then(|| {
                    let links = files
                        .iter()
                        .map(|f| {
                            format!(
                                "{prefix}logs/{}/{}",
                                url_segment(&i.instance_id),
                                f.split('/').map(url_segment).collect::<Vec<_>>().join("/")
                            )
                        })
                        .collect();
                    (i.instance_id.clone(), links)
                })
            })
            .collect();
        let mut systems: Vec<SystemResults> = Vec::new();
        for arg in results_args {
            for mut s in results::read_results(arg, card.as_ref(), &instances)? {
                if systems.iter().any(|o| o.name == s.name) {
                    s.name = format!("{} ({})", s.name, arg.display());
                }
                systems.push(s);
            }
        }
        let results = (!systems.is_empty()).then(|| ResultsTables::compute(&instances, &systems));
        let outcomes = super::outcomes::OutcomeTables::compute(&instances, &systems);
        let judgements = match judgements {
            Some(p) => Some(super::judgements::read_summary(p)?),
            None => None,
        };
        Ok(Page {
            card,
            instances,
            tables,
            funnel,
            logs,
            systems,
            results,
            outcomes,
            judgements,
        })
    }
}

/// Files under `dir`, recursively, as `/`-joined paths relative to it.
fn list_files(dir: &Path, rel: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        match e.file_type() {
            Ok(t) if t.is_dir() => list_files(&e.path(), &path, out),
            Ok(t) if t.is_file() => out.push(path),
            _ => {}
        }
    }
}

/// The dataset directory as seen from the page's directory, as an href prefix ending in
/// `/` (`../` for the default `<dataset>/report/index.html`).
pub fn relative_prefix(out: &Path, dataset: &Path) -> String {
    let abs = |p: &Path| p.canonicalize().or_else(|_| std::path::absolute(p));
    let from = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let (Ok(from), Ok(to)) = (abs(from), abs(dataset)) else {
        return String::new();
    };
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut prefix = "../".repeat(from.len() - common);
    for c in &to[common..] {
        prefix.push_str(&url_segment(&c.as_os_str().to_string_lossy()));
        prefix.push('/');
    }
    prefix
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_links_are_relative_to_the_page() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let ds = tmp.path().join("my data");
        std::fs::create_dir_all(ds.join("report")).expect("mkdir");
        std::fs::create_dir_all(tmp.path().join("elsewhere")).expect("mkdir");
        assert_eq!(relative_prefix(&ds.join("report/index.html"), &ds), "../");
        assert_eq!(relative_prefix(&ds.join("index.html"), &ds), "");
        assert_eq!(
            relative_prefix(&tmp.path().join("elsewhere/r.html"), &ds),
            "../my%20data/"
        );
    }
}
