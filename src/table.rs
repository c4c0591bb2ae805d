//! A table as one value — headers, rows, column alignment — rendered to markdown and to
//! HTML, so a report's markdown and HTML tables come from the same rows and cannot drift.

use std::fmt::Write as _;

/// Escape text for HTML element content and quoted attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// How a column's cells sit; numbers are right-aligned so their digits line up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Align {
    /// Text.
    #[default]
    Left,
    /// Numbers (`class="n"` in HTML: right-aligned, tabular figures).
    Right,
}

/// One cell: text (escaped in HTML), or nothing at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// Text, shown as is in markdown and escaped in HTML.
    Text(String),
    /// An empty cell that is not a value (`| |` in markdown, a bare `<td></td>` in HTML),
    /// unlike an empty text, which is one.
    Blank,
}

impl From<String> for Cell {
    fn from(s: String) -> Self {
        Cell::Text(s)
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Self {
        Cell::Text(s.to_string())
    }
}

/// A table: a header row, then rows of cells, with one alignment per column.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Table {
    /// Column headings.
    pub headers: Vec<String>,
    /// Alignment per column (columns past its end are left-aligned).
    pub align: Vec<Align>,
    /// The first cell of each row names the row (`<th>` in HTML).
    pub row_headers: bool,
    /// The rows.
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// A table with these headings, every column left-aligned and no rows yet.
    pub fn new<S: Into<String>>(headers: impl IntoIterator<Item = S>) -> Self {
        Table {
            headers: headers.into_iter().map(Into::into).collect(),
            ..Table::default()
        }
    }

    /// Right-align the given columns (builder style).
    pub fn right(mut self, columns: impl IntoIterator<Item = usize>) -> Self {
        self.align.resize(self.headers.len(), Align::Left);
        for c in columns {
            if let Some(a) = self.align.get_mut(c) {
                *a = Align::Right;
            }
        }
        self
    }

    /// Make each row's first cell its heading (builder style).
    pub fn with_row_headers(mut self) -> Self {
        self.row_headers = true;
        self
    }

    /// Append a row.
    pub fn push<C: Into<Cell>>(&mut self, cells: impl IntoIterator<Item = C>) {
        self.rows.push(cells.into_iter().map(Into::into).collect());
    }

    fn align_of(&self, column: usize) -> Align {
        self.align.get(column).copied().unwrap_or_default()
    }

    /// GitHub-flavoured markdown: `| a | b |`, a `|---|---|` rule, one line per row,
    /// each line ending in a newline.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "| {} |", self.headers.join(" | "));
        let _ = writeln!(out, "|{}", "---|".repeat(self.headers.len()));
        for row in &self.rows {
            out.push('|');
            for cell in row {
                match cell {
                    Cell::Text(t) => {
                        let _ = write!(out, " {t} |");
                    }
                    Cell::Blank => out.push_str(" |"),
                }
            }
            out.push('\n');
        }
        out
    }

    /// An HTML `<table>` with the headings in its first row (none when there are no
    /// headings) and right-aligned cells marked `class="n"`; every text is escaped.
    pub fn to_html(&self) -> String {
        let mut out = String::from("<table>");
        if !self.headers.is_empty() {
            out.push_str("<tr>");
            for h in &self.headers {
                let _ = write!(out, "<th>{}</th>", esc(h));
            }
            out.push_str("</tr>");
        }
        for row in &self.rows {
            out.push_str("<tr>");
            for (c, cell) in row.iter().enumerate() {
                let text = match cell {
                    Cell::Text(t) => esc(t),
                    Cell::Blank => {
                        out.push_str("<td></td>");
                        continue;
                    }
                };
                if c == 0 && self.row_headers {
                    let _ = write!(out, "<th>{text}</th>");
                } else if self.align_of(c) == Align::Right {
                    let _ = write!(out, "<td class=\"n\">{text}</td>");
                } else {
                    let _ = write!(out, "<td>{text}</td>");
                }
            }
            out.push_str("</tr>");
        }
        out.push_str("</table>");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::new(["name", "n"]).right([1]);
        t.push(["a<b", "1"]);
        t.rows.push(vec![Cell::from("blank"), Cell::Blank]);
        t.push(["empty", ""]);
        t
    }

    #[test]
    fn markdown_rows_and_blank_cells() {
        assert_eq!(
            sample().to_markdown(),
            "| name | n |\n|---|---|\n| a<b | 1 |\n| blank | |\n| empty |  |\n"
        );
    }

    #[test]
    fn html_escapes_aligns_and_leaves_blank_cells_bare() {
        assert_eq!(
            sample().to_html(),
            "<table><tr><th>name</th><th>n</th></tr><tr><td>a&lt;b</td><td class=\"n\">1</td></tr>\
             <tr><td>blank</td><td></td></tr><tr><td>empty</td><td class=\"n\"></td></tr></table>"
        );
        let mut t = Table::new(["scope", "2"]).right([1]).with_row_headers();
        t.push(["single", "3"]);
        assert_eq!(
            t.to_html(),
            "<table><tr><th>scope</th><th>2</th></tr><tr><th>single</th><td class=\"n\">3</td></tr></table>"
        );
    }

    #[test]
    fn escapes_markup_in_text_and_attributes() {
        assert_eq!(
            esc("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
    }
}
