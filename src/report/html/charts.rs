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

/// One violin: a sample's density, drawn on a row of its own.
#[derive(Debug, Clone)]
pub struct Violin {
    /// Label left of the row.
    pub label: String,
    /// Fill colour.
    pub colour: &'static str,
    /// The sample.
    pub values: Vec<f64>,
}

/// Points at which a violin's outline is evaluated.
const VIOLIN_STEPS: usize = 48;

/// The Gaussian kernel density of `values` at `x` with bandwidth `h` (Scott's rule,
/// `h = σ·n^(−1/5)`, as `scipy.stats.gaussian_kde` takes it by default).
fn density(values: &[f64], h: f64, x: f64) -> f64 {
    let n = values.len() as f64;
    values
        .iter()
        .map(|v| (-0.5 * ((x - v) / h).powi(2)).exp())
        .sum::<f64>()
        / (n * h * (2.0 * std::f64::consts::PI).sqrt())
}

/// Horizontal violins on one shared value axis: each sample's kernel density mirrored
/// about its row, its median as a tick and every value as a dot. A sample of fewer than
/// two distinct values has no density and shows its dots only.
pub fn violins(title: &str, rows: &[Violin]) -> String {
    let (label_w, plot_w, text_w, row_h) = (190.0, 360.0, 150.0, 46.0);
    let all: Vec<f64> = rows.iter().flat_map(|r| r.values.iter().copied()).collect();
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if !lo.is_finite() {
        (0.0, 1.0)
    } else if hi > lo {
        (lo, hi)
    } else {
        (lo - 0.5, hi + 0.5)
    };
    let xs = |v: f64| label_w + (v - lo) / (hi - lo) * plot_w;
    let height = rows.len() as f64 * row_h + 24.0;
    let width = label_w + plot_w + text_w;
    let mut s = format!(
        r#"<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{}">"#,
        esc(title)
    );
    for (k, r) in rows.iter().enumerate() {
        let mid = 4.0 + k as f64 * row_h + row_h / 2.0;
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end" class="lbl">{}</text>"#,
            label_w - 8.0,
            mid + 4.0,
            esc(&r.label)
        );
        let n = r.values.len();
        let sd = if n >= 2 {
            let m = r.values.iter().sum::<f64>() / n as f64;
            (r.values.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        if sd > 0.0 {
            let h = sd * (n as f64).powf(-0.2);
            let (a, b) = (lo, hi);
            let pts: Vec<(f64, f64)> = (0..=VIOLIN_STEPS)
                .map(|i| {
                    let x = a + (b - a) * i as f64 / VIOLIN_STEPS as f64;
                    (x, density(&r.values, h, x))
                })
                .collect();
            let peak = pts.iter().map(|p| p.1).fold(0.0, f64::max);
            if peak > 0.0 {
                let half = row_h / 2.0 - 4.0;
                let mut d = String::new();
                for (i, (x, y)) in pts.iter().enumerate() {
                    let _ = write!(
                        d,
                        "{}{:.1} {:.1}",
                        if i == 0 { "M" } else { "L" },
                        xs(*x),
                        mid - y / peak * half
                    );
                }
                for (x, y) in pts.iter().rev() {
                    let _ = write!(d, "L{:.1} {:.1}", xs(*x), mid + y / peak * half);
                }
                let _ = write!(
                    s,
                    r#"<path d="{d}Z" fill="{}" fill-opacity="0.45" stroke="{}"/>"#,
                    r.colour, r.colour
                );
            }
        }
        for v in &r.values {
            let _ = write!(
                s,
                r#"<circle cx="{:.1}" cy="{mid:.1}" r="2" fill="{}"><title>{}: {v}</title></circle>"#,
                xs(*v),
                r.colour,
                esc(&r.label)
            );
        }
        let text = if n == 0 {
            "n = 0".to_string()
        } else {
            let median = crate::stats::summary(&r.values)[1];
            let x = xs(median);
            let _ = write!(
                s,
                r##"<path d="M{x:.1} {:.1}V{:.1}" stroke="#222" stroke-width="2"><title>median {median}</title></path>"##,
                mid - 8.0,
                mid + 8.0
            );
            format!("n = {n}, median {}", value(median))
        };
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" class="val">{}</text>"#,
            label_w + plot_w + 6.0,
            mid + 4.0,
            esc(&text)
        );
    }
    let base = height - 18.0;
    let _ = write!(
        s,
        r##"<line x1="{label_w}" y1="{base}" x2="{:.1}" y2="{base}" stroke="#666"/><text x="{label_w}" y="{:.1}" class="tick">{}</text><text x="{:.1}" y="{:.1}" text-anchor="end" class="tick">{}</text></svg>"##,
        label_w + plot_w,
        height - 4.0,
        value(lo),
        label_w + plot_w,
        height - 4.0,
        value(hi)
    );
    s
}

/// A value on a violin's axis or label: whole numbers and large ones (tokens) without
/// decimals, small fractions (Div(P)) to three.
fn value(v: f64) -> String {
    if v.abs() >= 100.0 || v == v.trunc() {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn violins_draw_a_density_where_there_is_spread_and_dots_always() {
        let rows = [
            Violin {
                label: "fixed".into(),
                colour: "#000",
                values: vec![0.1, 0.2, 0.4],
            },
            Violin {
                label: "unfixed".into(),
                colour: "#111",
                values: vec![0.7],
            },
            Violin {
                label: "none".into(),
                colour: "#222",
                values: vec![],
            },
        ];
        let svg = violins("divergence", &rows);
        assert_eq!(svg.matches("<circle").count(), 4);
        assert_eq!(
            svg.matches("fill-opacity").count(),
            1,
            "only the first has spread"
        );
        assert!(svg.contains("n = 3, median 0.200"), "{svg}");
        assert!(svg.contains("n = 0"));
        // Token counts and whole numbers without decimals, so the label fits its room.
        assert_eq!(value(11234.5), "11234");
        assert_eq!(value(-2.0), "-2");
        assert_eq!(value(0.2), "0.200");
        // The density integrates to about 1 (a check on the kernel's normalization).
        let v = [0.0, 1.0, 3.0];
        let h = 1.0;
        let area: f64 = (0..4000)
            .map(|i| density(&v, h, -10.0 + i as f64 * 0.006) * 0.006)
            .sum();
        assert!((area - 1.0).abs() < 1e-3, "{area}");
    }

    #[test]
    fn histogram_draws_one_bar_per_bin() {
        let h = Histogram::new("Div(P)", &[0.1, 0.2, 0.2], 0.0, 1.0, 10);
        let svg = histogram(&h, 300.0, 120.0, "#000");
        assert_eq!(svg.matches("<rect").count(), 10);
        assert!(svg.contains(">[0.200, 0.300): 2</title>"), "{svg}");
    }
}
