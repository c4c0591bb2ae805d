//! The page's charts, drawn as inline SVG: horizontal bars (with confidence whiskers)
//! and histograms.

use super::esc;
use crate::model::ProximityClass;
use crate::report::Histogram;
use std::fmt::Write as _;

/// Colours of the proximity classes, nearest to farthest.
const CLASS_COLOURS: [&str; 5] = ["#1b7837", "#5aae61", "#2166ac", "#d6604d", "#b2182b"];
/// Colours of the systems given with `--results`, in order.
const SYSTEM_COLOURS: [&str; 6] = [
    "#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860",
];

pub(super) fn class_colour(name: &str) -> &'static str {
    ProximityClass::ALL
        .iter()
        .position(|c| c.name() == name)
        .map(|k| CLASS_COLOURS[k])
        .unwrap_or("#888888")
}

pub(super) fn system_colour(k: usize) -> &'static str {
    SYSTEM_COLOURS[k % SYSTEM_COLOURS.len()]
}

/// One bar of a horizontal bar chart.
#[derive(Debug, Clone)]
pub struct Bar {
    /// Label left of the bar (empty: the bar continues the group above).
    pub label: String,
    /// Length, in the chart's units.
    pub value: f64,
    /// Text right of the bar.
    pub text: String,
    /// Fill colour.
    pub colour: &'static str,
    /// An interval drawn over the bar (a 95% CI), in the chart's units.
    pub whisker: Option<(f64, f64)>,
}

/// A horizontal bar chart scaled to `max` (at least the largest value).
pub fn hbars(title: &str, bars: &[Bar], max: f64) -> String {
    let (label_w, bar_w, text_w, row_h) = (190.0, 360.0, 150.0, 22.0);
    let max = bars.iter().map(|b| b.value).fold(max, f64::max);
    let scale = if max > 0.0 { bar_w / max } else { 0.0 };
    let groups = bars.iter().filter(|b| !b.label.is_empty()).count();
    let gap = 6.0;
    let height = bars.len() as f64 * row_h + groups as f64 * gap + 8.0;
    let width = label_w + bar_w + text_w;
    let mut s = format!(
        r#"<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{}">"#,
        esc(title)
    );
    let mut y = 4.0;
    for b in bars {
        if !b.label.is_empty() {
            y += gap;
            let _ = write!(
                s,
                r#"<text x="{}" y="{}" text-anchor="end" class="lbl">{}</text>"#,
                label_w - 8.0,
                y + row_h * 0.68,
                esc(&b.label)
            );
        }
        let w = (b.value * scale).max(if b.value > 0.0 { 1.0 } else { 0.0 });
        let _ = write!(
            s,
            r#"<rect x="{label_w}" y="{:.1}" width="{w:.1}" height="{:.1}" fill="{}"><title>{}: {}</title></rect>"#,
            y + 2.0,
            row_h - 6.0,
            b.colour,
            esc(if b.label.is_empty() { title } else { &b.label }),
            esc(&b.text)
        );
        if let Some((lo, hi)) = b.whisker {
            let (x0, x1, ym) = (label_w + lo * scale, label_w + hi * scale, y + row_h / 2.0);
            let _ = write!(
                s,
                r##"<path d="M{x0:.1} {ym:.1}H{x1:.1}M{x0:.1} {:.1}V{:.1}M{x1:.1} {:.1}V{:.1}" stroke="#222" stroke-width="1.2" fill="none"/>"##,
                ym - 4.0,
                ym + 4.0,
                ym - 4.0,
                ym + 4.0
            );
        }
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" class="val">{}</text>"#,
            label_w + bar_w + 6.0,
            y + row_h * 0.68,
            esc(&b.text)
        );
        y += row_h;
    }
    let _ = write!(
        s,
        r##"<line x1="{label_w}" y1="2" x2="{label_w}" y2="{:.1}" stroke="#999"/></svg>"##,
        height - 2.0
    );
    s
}

/// A histogram as vertical bars, with the range and the tallest count on the axes.
pub fn histogram(h: &Histogram, width: f64, height: f64, colour: &str) -> String {
    let (left, bottom, top) = (34.0, 20.0, 8.0);
    let plot_w = width - left - 8.0;
    let plot_h = height - bottom - top;
    let max = h.counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let n = h.counts.len().max(1) as f64;
    let bw = plot_w / n;
    let mut s = format!(
        r#"<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="histogram of {}">"#,
        esc(h.measure)
    );
    let step = (h.hi - h.lo) / n;
    for (k, &c) in h.counts.iter().enumerate() {
        let bh = c as f64 / max * plot_h;
        let _ = write!(
            s,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{bh:.1}" fill="{colour}"><title>[{:.3}, {:.3}{}: {c}</title></rect>"#,
            left + k as f64 * bw + 0.5,
            top + plot_h - bh,
            (bw - 1.0).max(0.5),
            h.lo + k as f64 * step,
            h.lo + (k + 1) as f64 * step,
            if k + 1 == h.counts.len() { "]" } else { ")" }
        );
    }
    let base = top + plot_h;
    let _ = write!(
        s,
        r##"<line x1="{left}" y1="{base}" x2="{:.1}" y2="{base}" stroke="#666"/><line x1="{left}" y1="{top}" x2="{left}" y2="{base}" stroke="#666"/>"##,
        left + plot_w
    );
    let _ = write!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="end" class="tick">{}</text><text x="{:.1}" y="{base:.1}" text-anchor="end" class="tick">0</text>"#,
        left - 4.0,
        top + 8.0,
        max as usize,
        left - 4.0
    );
    for (x, v, anchor) in [
        (left, h.lo, "start"),
        (left + plot_w / 2.0, (h.lo + h.hi) / 2.0, "middle"),
        (left + plot_w, h.hi, "end"),
    ] {
        let _ = write!(
            s,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="{anchor}" class="tick">{v:.2}</text>"#,
            height - 5.0
        );
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_draws_one_bar_per_bin() {
        let h = Histogram::new("Div(P)", &[0.1, 0.2, 0.2], 0.0, 1.0, 10);
        let svg = histogram(&h, 300.0, 120.0, "#000");
        assert_eq!(svg.matches("<rect").count(), 10);
        assert!(svg.contains(">[0.200, 0.300): 2</title>"), "{svg}");
    }
}
