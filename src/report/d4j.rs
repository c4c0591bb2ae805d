//! Agreement with Defects4J per project: how many bugs validated by Defects4J itself
//! proved exactly Defects4J's `trigger_tests` as FAIL_TO_PASS, how many did not, and
//! how many were kept out for another reason (a version that does not compile with the
//! JDK in use, an infrastructure failure), so no bug leaves the count silently.

use crate::model::{Instance, RejectReason, Rejected, Stage};
use crate::table::Table;
use serde::Serialize;
use std::collections::BTreeMap;

/// One project's row.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AgreementRow {
    /// Defects4J's project id (`Cli`).
    pub project: String,
    /// Kept: FAIL_TO_PASS equals `trigger_tests`.
    pub agree: usize,
    /// Rejected `d4j_disagrees`.
    pub disagree: usize,
    /// Rejected `compile_error` (buggy or fixed version does not build on this JDK).
    pub compile_error: usize,
    /// Rejected by the validate stage for any other reason (infrastructure, no
    /// FAIL_TO_PASS, a test broken by the fix).
    pub other: usize,
}

/// The rows, one per project in name order; empty unless the dataset was validated by
/// Defects4J (some instance records `d4j_agrees`, or some bug was rejected as
/// `d4j_disagrees` or `compile_error`).
pub fn agreement(kept: &[Instance], rejected: &[Rejected]) -> Vec<AgreementRow> {
    let by_d4j = kept.iter().any(|i| {
        i.validation
            .as_ref()
            .is_some_and(|v| v.d4j_agrees.is_some())
    }) || rejected.iter().any(|r| {
        matches!(
            r.reason,
            RejectReason::D4jDisagrees | RejectReason::CompileError
        )
    });
    if !by_d4j {
        return Vec::new();
    }
    let mut rows: BTreeMap<String, AgreementRow> = BTreeMap::new();
    for i in kept {
        if i.validation
            .as_ref()
            .is_some_and(|v| v.d4j_agrees == Some(true))
        {
            row(&mut rows, &i.instance_id).agree += 1;
        }
    }
    for r in rejected.iter().filter(|r| r.stage == Stage::Validate) {
        let row = row(&mut rows, &r.id);
        match r.reason {
            RejectReason::D4jDisagrees => row.disagree += 1,
            RejectReason::CompileError => row.compile_error += 1,
            _ => row.other += 1,
        }
    }
    rows.into_values().collect()
}

/// The row of the project an id names (`Cli_5` → `Cli`), made on first use.
fn row<'r>(rows: &'r mut BTreeMap<String, AgreementRow>, id: &str) -> &'r mut AgreementRow {
    let p = id.split('_').next().unwrap_or(id).to_string();
    rows.entry(p.clone()).or_insert_with(|| AgreementRow {
        project: p,
        ..Default::default()
    })
}

/// The rows as a table with the agreement rate over the bugs compared.
pub fn agreement_table(rows: &[AgreementRow]) -> Table {
    let mut t = Table::new([
        "project",
        "agree",
        "disagree",
        "agreement",
        "compile_error",
        "other rejections",
    ])
    .right([1, 2, 3, 4, 5]);
    for r in rows {
        let compared = r.agree + r.disagree;
        let rate = if compared == 0 {
            "–".to_string()
        } else {
            format!("{:.1}%", 100.0 * r.agree as f64 / compared as f64)
        };
        t.push([
            r.project.clone(),
            r.agree.to_string(),
            r.disagree.to_string(),
            rate,
            r.compile_error.to_string(),
            r.other.to_string(),
        ]);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(id: &str, reason: RejectReason) -> Rejected {
        Rejected::new(id, Stage::Validate, reason, String::new())
    }

    #[test]
    fn rows_count_every_validated_bug_per_project() {
        let rows = agreement(
            &[],
            &[
                rejected("Cli_2", RejectReason::D4jDisagrees),
                rejected("Cli_3", RejectReason::CompileError),
                rejected("Codec_4", RejectReason::Infrastructure),
            ],
        );
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].disagree, rows[0].compile_error), (1, 1));
        assert_eq!((rows[1].project.as_str(), rows[1].other), ("Codec", 1));
        let md = agreement_table(&rows).to_markdown();
        assert!(md.contains("| Cli | 0 | 1 | 0.0% | 1 | 0 |"), "{md}");
        assert!(md.contains("| Codec | 0 | 0 | – | 0 | 1 |"), "{md}");
    }

    #[test]
    fn no_rows_without_defects4j_validation() {
        assert!(agreement(&[], &[rejected("x_1", RejectReason::NoFailToPass)]).is_empty());
    }
}
