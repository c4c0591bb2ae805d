//! A commit's own changelog entries, as the walk reads them: the lines it adds to a
//! changelog file (`CHANGES.rst`, `HISTORY.md`, `docs/changelog.rst`, `NEWS`) with the
//! heading they sit under in the new file, and the towncrier fragments it adds
//! (`changes/123.bugfix.rst`, `newsfragments/45.feature`) with their type. What an entry
//! means (a bug fix, a feature) is the mining policy's call (`source::rules`), not git's.

use git2::{DiffLineType, Patch};

/// One changelog entry a commit adds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangelogEntry {
    /// The changelog file or fragment.
    pub file: String,
    /// The heading the line sits under in the new file (changelog files), or the
    /// fragment's type (`bugfix`, `feature`).
    pub section: Option<String>,
    /// The entry's first added line, trimmed.
    pub line: String,
}

/// Towncrier's (and scriv's) fragment directories.
const FRAGMENT_DIRS: [&str; 6] = [
    "changes",
    "changelog.d",
    "newsfragments",
    "news",
    "changelog",
    "changes.d",
];

/// Base names (lowercase, up to the first `.`) of changelog files.
const CHANGELOG_NAMES: [&str; 8] = [
    "changes",
    "changelog",
    "history",
    "news",
    "release-notes",
    "release_notes",
    "releasenotes",
    "whatsnew",
];

/// Whether `path` is a changelog file or a changelog fragment, by name alone.
pub fn is_changelog(path: &str) -> bool {
    fragment_type(path).is_some() || changelog_file(path)
}

fn changelog_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let stem = name.split('.').next().unwrap_or_default();
    CHANGELOG_NAMES.contains(&stem)
}

/// A towncrier fragment's type: `changes/123.bugfix.rst` → `bugfix` (the name's second
/// dotted part, its first being the issue or an orphan `+…`).
fn fragment_type(path: &str) -> Option<String> {
    let (dir, name) = path.rsplit_once('/')?;
    let parent = dir.rsplit('/').next().unwrap_or(dir).to_ascii_lowercase();
    if !FRAGMENT_DIRS.contains(&parent.as_str()) {
        return None;
    }
    let mut parts = name.split('.');
    let _issue = parts.next()?;
    let kind = parts.next()?.to_ascii_lowercase();
    FRAGMENT_TYPES.contains(&kind.as_str()).then_some(kind)
}

/// Fragment types towncrier, scriv and their users name (towncrier's defaults first).
const FRAGMENT_TYPES: [&str; 25] = [
    "feature",
    "bugfix",
    "doc",
    "removal",
    "misc",
    "fix",
    "bug",
    "feat",
    "breaking",
    "deprecation",
    "deprecate",
    "change",
    "changed",
    "added",
    "fixed",
    "removed",
    "security",
    "trivial",
    "internal",
    "perf",
    "performance",
    "improvement",
    "enhancement",
    "packaging",
    "docs",
];

/// The entries a changelog file's patch adds (`new` is the file's new content): for a
/// fragment, one entry with its type; for a changelog file, one per run of added
/// lines, under the nearest heading above it in the new file.
pub fn entries(path: &str, patch: &Patch<'_>, new: &[u8]) -> Vec<ChangelogEntry> {
    let text = String::from_utf8_lossy(new);
    let lines: Vec<&str> = text.lines().collect();
    if let Some(kind) = fragment_type(path) {
        let line = lines
            .iter()
            .map(|l| l.trim())
            .find(|l| !l.is_empty())
            .unwrap_or_default()
            .to_string();
        return vec![ChangelogEntry {
            file: path.to_string(),
            section: Some(kind),
            line,
        }];
    }
    let mut out = Vec::new();
    let mut last_added: Option<u32> = None;
    for h in 0..patch.num_hunks() {
        let Ok(n) = patch.num_lines_in_hunk(h) else {
            continue;
        };
        for l in 0..n {
            let Ok(line) = patch.line_in_hunk(h, l) else {
                continue;
            };
            if line.origin_value() != DiffLineType::Addition {
                continue;
            }
            let Some(at) = line.new_lineno() else {
                continue;
            };
            let content = String::from_utf8_lossy(line.content()).trim().to_string();
            let follows = last_added == Some(at.saturating_sub(1));
            last_added = Some(at);
            if follows || content.is_empty() || is_underline(&content) || is_heading(&lines, at) {
                continue;
            }
            out.push(ChangelogEntry {
                file: path.to_string(),
                section: heading_above(&lines, at as usize),
                line: content,
            });
        }
    }
    out
}

/// `===`, `---`, `~~~`, `^^^`, `***`: a reStructuredText heading's underline.
fn is_underline(l: &str) -> bool {
    let t = l.trim();
    t.len() >= 3 && t.chars().all(|c| "=-~^*+#".contains(c))
}

/// Whether (1-based) line `at` of `lines` is a heading itself.
fn is_heading(lines: &[&str], at: u32) -> bool {
    let i = at as usize - 1;
    heading_at(lines, i).is_some()
}

/// The heading text of (0-based) line `i`: a Markdown `#` heading, a reStructuredText
/// title (the next line underlines it), or a line that is all bold (`**Bug fixes**`)
/// or ends with a colon and is no list item (`Bug fixes:`).
fn heading_at(lines: &[&str], i: usize) -> Option<String> {
    let l = lines.get(i)?.trim();
    if l.is_empty() || is_underline(l) {
        return None;
    }
    if let Some(h) = l.strip_prefix('#') {
        return Some(h.trim_start_matches('#').trim().to_string());
    }
    if lines
        .get(i + 1)
        .is_some_and(|n| is_underline(n) && n.trim().len() + 2 >= l.len())
    {
        return Some(l.to_string());
    }
    if l.len() > 4 && l.starts_with("**") && l.ends_with("**") {
        return Some(l.trim_matches('*').trim().to_string());
    }
    let list_item =
        l.starts_with(['-', '*', '+']) || l.chars().next().is_some_and(|c| c.is_ascii_digit());
    if !list_item && l.ends_with(':') && l.len() < 60 {
        return Some(l.trim_end_matches(':').trim().to_string());
    }
    None
}

/// The nearest heading above (1-based) line `at`.
fn heading_above(lines: &[&str], at: usize) -> Option<String> {
    (0..at.saturating_sub(1))
        .rev()
        .find_map(|i| heading_at(lines, i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changelog_paths_and_fragment_types() {
        assert!(is_changelog("CHANGES.rst"));
        assert!(is_changelog("docs/changelog.rst"));
        assert!(is_changelog("HISTORY.md"));
        assert!(is_changelog("NEWS"));
        assert!(!is_changelog("src/news_feed.py"));
        assert!(!is_changelog("README.md"));
        assert_eq!(
            fragment_type("changes/123.bugfix.rst").as_deref(),
            Some("bugfix")
        );
        assert_eq!(
            fragment_type("newsfragments/+orphan.feature").as_deref(),
            Some("feature")
        );
        assert_eq!(
            fragment_type("docs/changelog.d/45.removal.md").as_deref(),
            Some("removal")
        );
        assert_eq!(fragment_type("changes/README.rst"), None);
        // A module in a package named `changes` is no fragment.
        assert_eq!(fragment_type("src/pkg/changes/x.py"), None);
    }

    #[test]
    fn headings_of_markdown_rst_bold_and_colon_styles() {
        let text = "Changelog\n=========\n\n2.0 (unreleased)\n----------------\n\nBug fixes\n~~~~~~~~~\n\n- Fix the thing\n\n## Added\n- New option\n**Features**\n- More\nImprovements:\n- Faster\n";
        let lines: Vec<&str> = text.lines().collect();
        // "- Fix the thing" is line 10.
        assert_eq!(heading_above(&lines, 10).as_deref(), Some("Bug fixes"));
        assert_eq!(heading_above(&lines, 13).as_deref(), Some("Added"));
        assert_eq!(heading_above(&lines, 15).as_deref(), Some("Features"));
        assert_eq!(heading_above(&lines, 17).as_deref(), Some("Improvements"));
        assert!(is_heading(&lines, 7));
        assert!(!is_heading(&lines, 10));
    }
}
