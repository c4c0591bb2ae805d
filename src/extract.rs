//! Hunk extraction: a candidate becomes an instance — which hunks of its forward patch
//! count, and the size statistics.

use crate::classify::{Classifier, FileClass};
use crate::diff::{FileChange, FilePatch, Hunk, LineKind, Patch};
use crate::model::{HunkRecord, Instance, Range, SkipReason, Stats, SCHEMA_VERSION};
use crate::source::Candidate;
use std::collections::BTreeMap;

/// Counting rules, so HUNK4J's published rules are recipe switches rather than code.
#[derive(Debug, Clone)]
pub struct CountRules {
    /// Code / test / other classification of paths.
    pub classifier: Classifier,
    /// Do not count hunks of files the fix creates.
    pub skip_created_files: bool,
    /// Do not count hunks whose only change, in the fix direction, deletes `import` lines.
    pub skip_import_only_hunks: bool,
}

/// Whether a hunk of `file` counts, and if not, the first rule that excluded it.
pub fn skip_reason(file: &FilePatch, hunk: &Hunk, rules: &CountRules) -> Option<SkipReason> {
    if rules.classifier.classify(file.path()) != FileClass::Code {
        return Some(SkipReason::NotCode);
    }
    let created = file.change == FileChange::Added || (hunk.old_start == 0 && hunk.old_lines == 0);
    if rules.skip_created_files && created {
        return Some(SkipReason::CreatedFile);
    }
    if rules.skip_import_only_hunks && is_import_only_deletion(hunk) {
        return Some(SkipReason::ImportOnly);
    }
    None
}

/// A forward hunk that adds nothing and removes only `import` lines.
fn is_import_only_deletion(hunk: &Hunk) -> bool {
    let mut removed_any = false;
    for line in &hunk.lines {
        match line.kind {
            LineKind::Added => return false,
            LineKind::Removed => {
                let text = String::from_utf8_lossy(line.text());
                if !text.trim_start().starts_with("import ") {
                    return false;
                }
                removed_any = true;
            }
            LineKind::Context => {}
        }
    }
    removed_any
}

/// Whether hunk `index` (over all hunks of the patch) counts, with the source's own
/// verdicts: a file-level reason from the source (its role) wins, then the path rules
/// of [`skip_reason`], then the source's hunk rules.
pub fn hunk_skip(
    file: &FilePatch,
    hunk: &Hunk,
    index: usize,
    rules: &CountRules,
    skips: &BTreeMap<usize, SkipReason>,
) -> Option<SkipReason> {
    let source = skips.get(&index).copied();
    match source {
        Some(r) if r.is_file_level() => Some(r),
        _ => skip_reason(file, hunk, rules).or(source),
    }
}

/// Records for every hunk of a forward patch, plus statistics over the counted ones.
pub fn hunk_records(patch: &Patch, rules: &CountRules) -> (Vec<HunkRecord>, Stats) {
    hunk_records_with(patch, rules, &BTreeMap::new())
}

/// [`hunk_records`] with the source's verdicts (see [`hunk_skip`]).
pub fn hunk_records_with(
    patch: &Patch,
    rules: &CountRules,
    skips: &BTreeMap<usize, SkipReason>,
) -> (Vec<HunkRecord>, Stats) {
    let mut records = Vec::new();
    let mut stats = Stats::default();
    let mut index = 0;
    for file in &patch.files {
        stats.raw_files += 1;
        let mut blocks: Vec<(u32, u32)> = Vec::new();
        for hunk in &file.hunks {
            let reason = hunk_skip(file, hunk, index, rules, skips);
            stats.raw_hunks += 1;
            let counted = reason.is_none();
            if counted {
                stats.hunks += 1;
                stats.lines_added += hunk.added();
                stats.lines_removed += hunk.removed();
                blocks.extend(changed_blocks(hunk));
            }
            records.push(HunkRecord {
                file: file.path().to_string(),
                patch_index: index,
                buggy: Range {
                    start: hunk.old_start,
                    lines: hunk.old_lines,
                },
                fixed: Range {
                    start: hunk.new_start,
                    lines: hunk.new_lines,
                },
                span: hunk.old_span(),
                added: hunk.added(),
                removed: hunk.removed(),
                counted,
                skip_reason: reason,
                place: None,
                necessary: None,
            });
            index += 1;
        }
        blocks.sort_unstable();
        stats.patch_spread += blocks
            .windows(2)
            .map(|w| u64::from(w[1].0.saturating_sub(w[0].1 + 1)))
            .sum::<u64>();
    }
    stats.files = counted_files(&records).len();
    (records, stats)
}

/// The instance a candidate becomes: its identity and metadata, patches, hunk records
/// and statistics; annotation fields are left empty for the annotate stage.
pub fn instance(c: &Candidate, rules: &CountRules) -> Instance {
    let (hunks, stats) = hunk_records_with(&c.patch, rules, &c.skips);
    Instance {
        schema_version: SCHEMA_VERSION,
        instance_id: c.id.clone(),
        repo: c.repo.clone(),
        base_commit: c.base_commit.clone(),
        patch: c.patch.to_text(),
        test_patch: c.test_patch.to_text(),
        problem_statement: c.problem_statement.clone(),
        hints_text: c.hints_text.clone(),
        created_at: c.created_at.clone(),
        version: c.version.clone(),
        FAIL_TO_PASS: c.fail_to_pass.clone(),
        PASS_TO_PASS: c.pass_to_pass.clone(),
        environment_setup_commit: c.environment_setup_commit.clone(),
        source: c.source,
        fix_commit: c.fix_commit.clone(),
        project: c.project.clone(),
        report: c.report.clone(),
        references: c.references.clone(),
        files: counted_files(&hunks),
        hunks,
        stats,
        divergence: None,
        proximity: None,
        extra: None,
        notes: Vec::new(),
        validation: None,
        repo_commits: c.repo_commits.clone(),
        failures: c.failures.clone(),
        states: None,
    }
}

/// Files with a counted hunk, in patch order.
pub fn counted_files(hunks: &[HunkRecord]) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for h in hunks.iter().filter(|h| h.counted) {
        if files.last() != Some(&h.file) {
            files.push(h.file.clone());
        }
    }
    files
}

/// Buggy-file (start, end) of each run of changed lines in a hunk (`end = start - 1` for
/// a run that only inserts).
fn changed_blocks(hunk: &Hunk) -> Vec<(u32, u32)> {
    let mut counter = if hunk.old_lines == 0 {
        hunk.old_start + 1
    } else {
        hunk.old_start
    };
    let mut blocks = Vec::new();
    let mut current: Option<u32> = None;
    for line in &hunk.lines {
        match line.kind {
            LineKind::Context => {
                if let Some(start) = current.take() {
                    blocks.push((start, counter - 1));
                }
                counter += 1;
            }
            LineKind::Removed => {
                current.get_or_insert(counter);
                counter += 1;
            }
            LineKind::Added => {
                current.get_or_insert(counter);
            }
        }
    }
    if let Some(start) = current {
        blocks.push((start, counter - 1));
    }
    blocks
}

/// Split a patch into (code, test, other) patches by file class, preserving order.
pub fn split_by_class(patch: &Patch, classifier: &Classifier) -> (Patch, Patch, Patch) {
    let mut parts = (Patch::default(), Patch::default(), Patch::default());
    parts.0.preamble = patch.preamble.clone();
    for f in &patch.files {
        let target = match classifier.classify(f.path()) {
            FileClass::Code => &mut parts.0,
            FileClass::Test => &mut parts.1,
            FileClass::Other => &mut parts.2,
        };
        target.files.push(f.clone());
    }
    parts
}
