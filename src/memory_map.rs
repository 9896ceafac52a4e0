//! `pto lower --memory-map FILE.svg`: an SVG picture of a memory plan. One panel per used
//! on-chip buffer, program order to the right, byte offset downwards, one bar per tile buffer
//! over its live range: allocated tiles and the kernel's tile arguments (which the caller binds
//! at fixed addresses, by convention the bottom of their buffer in argument order: drawn
//! hatched and labelled `arg`).
//!
//! Invariants the tests check on the SVG's geometry:
//! * no two texts overlap. Every text is start-anchored in a monospace font, and its box is
//!   estimated as [`CHAR_WIDTH`] × font size per character, from 0.8 × font size above the
//!   baseline to 0.25 × below. A tile label is placed inside its bar when it fits there and
//!   hits no other text; otherwise the tile gets a number, drawn in or beside its bar when
//!   there is room, and a row in the legend under its panel.
//! * axis ticks sit at round values: byte offsets at multiples of a power of two (labelled
//!   `0`, `512 B`, `16 KiB`, `48 KiB`), program positions at multiples of 1, 2 or 5 × 10^k.

use pto_ir::module::Module;
use pto_ir::types::Loc;
use pto_lower::Target;
use pto_lower::liveness::Liveness;
use pto_lower::plan::{self, Placement};
use std::fmt::Write as _;

/// Advance of one character of the monospace font, in font sizes (DejaVu Sans Mono: 0.602).
pub const CHAR_WIDTH: f64 = 0.62;
/// Font size of tile labels, tick labels and the legend.
const FONT: f64 = 11.0;
/// Width and height of a panel's plot area.
const PLOT_W: f64 = 900.0;
const PLOT_H: f64 = 300.0;
/// Left margin (room for the byte-offset tick labels).
const LEFT: f64 = 86.0;
/// Height of one legend row.
const LEGEND_ROW: f64 = 15.0;
const COLORS: [&str; 10] = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];

/// Attributes of a tile label (a white halo keeps it readable on its bar).
const LABEL: &str = " class=\"label\" stroke=\"#fff\" stroke-width=\"3\" stroke-opacity=\"0.8\" paint-order=\"stroke\"";
/// Attributes of a tile's number (its row in the legend).
const MARKER: &str = " class=\"marker\" stroke=\"#fff\" stroke-width=\"3\" stroke-opacity=\"0.8\" paint-order=\"stroke\"";

/// An axis-aligned box.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Rect {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Rect {
    fn intersects(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }
    fn contains(&self, o: &Rect) -> bool {
        self.x0 <= o.x0 && o.x1 <= self.x1 && self.y0 <= o.y0 && o.y1 <= self.y1
    }
}

/// The box of `text` written from (`x`, baseline `y`) in font size `size`.
fn text_box(x: f64, y: f64, size: f64, text: &str) -> Rect {
    Rect { x0: x, y0: y - 0.8 * size, x1: x + text.chars().count() as f64 * CHAR_WIDTH * size, y1: y + 0.25 * size }
}

/// The SVG being written and the boxes of the texts written so far.
#[derive(Default)]
struct Canvas {
    body: String,
    texts: Vec<Rect>,
}

impl Canvas {
    /// Whether a text box is free (overlaps no text written so far).
    fn free(&self, r: &Rect) -> bool {
        !self.texts.iter().any(|t| t.intersects(r))
    }
    /// Writes a text (`attrs` go into the element, e.g. `class="tick" data-bytes="0"`).
    fn text(&mut self, x: f64, y: f64, size: f64, text: &str, attrs: &str) {
        self.texts.push(text_box(x, y, size, text));
        let size_attr = if size == FONT { String::new() } else { format!(" font-size=\"{size}\"") };
        let _ = writeln!(self.body, "<text x=\"{x:.1}\" y=\"{y:.1}\"{size_attr}{attrs}>{}</text>", xml(text));
    }
}

/// `0`, `96 B`, `16 KiB`, `1.5 KiB`, `2 MiB`.
pub fn bytes_label(v: u64) -> String {
    const KIB: u64 = 1024;
    match v {
        0 => "0".into(),
        v if v < KIB => format!("{v} B"),
        v if v.is_multiple_of(KIB * KIB) => format!("{} MiB", v / (KIB * KIB)),
        v if v.is_multiple_of(KIB) => format!("{} KiB", v / KIB),
        v => format!("{} KiB", trim_zeros(v as f64 / KIB as f64)),
    }
}

/// `16 KiB` when exact, else `14624 B`.
fn exact_size(v: u64) -> String {
    if v >= 1024 && v.is_multiple_of(1024) { bytes_label(v) } else { format!("{v} B") }
}

fn trim_zeros(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Byte ticks for a buffer filled up to `used`: the smallest power-of-two step (at least
/// 32 B) that covers `used` in at most 8 intervals, and the axis end (a multiple of it).
fn byte_ticks(used: u64) -> (u64, u64) {
    let mut step = 32u64;
    while used.div_ceil(step) > 8 {
        step *= 2;
    }
    (step, used.div_ceil(step).max(1) * step)
}

/// The smallest step of 1, 2 or 5 × 10^k that covers `span` in at most `intervals` steps.
fn decimal_step(span: u64, intervals: u64) -> u64 {
    let mut power = 1u64;
    loop {
        for m in [1, 2, 5] {
            if span.div_ceil(m * power) <= intervals {
                return m * power;
            }
        }
        power *= 10;
    }
}

/// One tile buffer of a panel and where its bar is.
struct Bar<'a> {
    tile: &'a Placement,
    arg: bool,
    color: &'static str,
    rect: Rect,
}

/// An SVG picture of the memory plan of `m` (a lowered module) on `target`; see the module
/// documentation.
pub fn svg(m: &Module, target: &Target) -> String {
    let live = Liveness::compute(m);
    // Placed as the simulator places them: written addresses kept, tile arguments at the
    // bottom of their buffer.
    let tiles = plan::assign(m, target).unwrap_or_else(|_| plan::collect(m, &live));
    let args: Vec<_> =
        m.values.iter().enumerate().filter(|(_, v)| matches!(v.def, pto_ir::ValueDef::BlockArg(..))).map(|(i, _)| i).collect();
    let positions = live.pos.iter().copied().filter(|&p| p != u32::MAX).max().unwrap_or(0) as u64 + 1;
    let mut locs: Vec<Loc> = tiles.iter().filter(|t| t.addr.is_some()).map(|t| t.loc).collect();
    locs.sort_by_key(|l| Loc::ALL.iter().position(|(x, _)| x == l));
    locs.dedup();
    let mut c = Canvas::default();
    c.text(LEFT, 20.0, 14.0, &format!("pto memory plan — target {}", target.name), "");
    let mut y = 52.0;
    for loc in locs {
        let panel: Vec<&Placement> = tiles.iter().filter(|t| t.loc == loc && t.addr.is_some()).collect();
        let is_arg = |t: &Placement| args.contains(&t.value.index());
        y = draw_panel(&mut c, target, loc, &panel, &is_arg, positions, y);
    }
    let height = y.ceil();
    let defs = "<defs><pattern id=\"arg\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">\
                <rect width=\"6\" height=\"6\" fill=\"#d9d9d9\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#777\" stroke-width=\"2\"/></pattern></defs>\n";
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height}\" font-family=\"monospace\" font-size=\"{FONT}\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n{defs}{}</svg>\n",
        LEFT + PLOT_W + 50.0,
        c.body
    )
}

/// Draws one buffer's panel from `top` (its header line); returns where the next one starts.
fn draw_panel(
    c: &mut Canvas,
    target: &Target,
    loc: Loc,
    tiles: &[&Placement],
    is_arg: &dyn Fn(&Placement) -> bool,
    positions: u64,
    top: f64,
) -> f64 {
    let buf = target.buffer(loc);
    let used = tiles.iter().filter_map(|t| Some(t.addr? + t.size)).max().unwrap_or(0);
    let (step, axis_end) = byte_ticks(used);
    let header = format!(
        "{} ({}): capacity {}, high-water mark {}, {} tiles",
        buf.name,
        loc.name(),
        exact_size(buf.capacity),
        exact_size(used),
        tiles.len()
    );
    c.text(LEFT, top, 12.0, &header, "");
    let y0 = top + 12.0;
    let _ = writeln!(c.body, "<rect x=\"{LEFT}\" y=\"{y0}\" width=\"{PLOT_W}\" height=\"{PLOT_H}\" fill=\"none\" stroke=\"#999\"/>");
    let y_of = |bytes: u64| y0 + PLOT_H * bytes as f64 / axis_end as f64;
    let x_of = |pos: u64| LEFT + PLOT_W * pos as f64 / positions as f64;
    // Byte-offset ticks: grid line and label left of the axis.
    for k in 0..=axis_end / step {
        let v = k * step;
        let ty = y_of(v);
        let label = bytes_label(v);
        let _ = writeln!(c.body, "<line x1=\"{}\" y1=\"{ty:.1}\" x2=\"{}\" y2=\"{ty:.1}\" stroke=\"#ddd\"/>", LEFT - 4.0, LEFT + PLOT_W);
        let x = LEFT - 6.0 - label.chars().count() as f64 * CHAR_WIDTH * 10.0;
        c.text(x, ty + 3.5, 10.0, &label, &format!(" class=\"tick-bytes\" data-value=\"{v}\""));
    }
    // Program-position ticks under the axis.
    let pstep = decimal_step(positions, 10);
    for k in 0..=positions / pstep {
        let v = k * pstep;
        let tx = x_of(v);
        let _ =
            writeln!(c.body, "<line x1=\"{tx:.1}\" y1=\"{}\" x2=\"{tx:.1}\" y2=\"{}\" stroke=\"#999\"/>", y0 + PLOT_H, y0 + PLOT_H + 4.0);
        c.text(tx + 2.0, y0 + PLOT_H + 14.0, 10.0, &v.to_string(), &format!(" class=\"tick-position\" data-value=\"{v}\""));
    }
    c.text(LEFT, y0 + PLOT_H + 28.0, FONT, "program order (op position) →; byte offset ↓", "");
    // Bars, largest first so the big ones get their labels inside.
    let mut bars: Vec<Bar> = tiles
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let (x, y) = (x_of(t.start as u64), y_of(t.addr.unwrap_or(0)));
            let w = (x_of(t.end as u64 + 1) - x).max(2.0);
            let h = (y_of(t.addr.unwrap_or(0) + t.size) - y).max(2.0);
            Bar { tile: t, arg: is_arg(t), color: COLORS[i % COLORS.len()], rect: Rect { x0: x, y0: y, x1: x + w, y1: y + h } }
        })
        .collect();
    bars.sort_by_key(|b| (std::cmp::Reverse(b.tile.size), b.tile.addr, b.tile.start));
    for b in &bars {
        let (r, t) = (b.rect, b.tile);
        let fill = if b.arg { "url(#arg)".to_string() } else { format!("{}\" fill-opacity=\"0.75", b.color) };
        let what = if b.arg { "tile argument" } else { "tile" };
        let _ = writeln!(
            c.body,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\" stroke=\"#333\" stroke-width=\"0.6\"><title>{what} %{} : {} B at {} (ops {}..{})</title></rect>",
            r.x0,
            r.y0,
            r.x1 - r.x0,
            r.y1 - r.y0,
            xml(&t.name),
            t.size,
            t.addr.unwrap_or(0),
            t.start,
            t.end
        );
    }
    let mut legend: Vec<(usize, &Bar)> = Vec::new();
    for b in &bars {
        let t = b.tile;
        let name = if b.arg { format!("arg %{}", t.name) } else { format!("%{}", t.name) };
        let long = format!("{name} {} @{}", bytes_label(t.size), t.addr.unwrap_or(0));
        if place_inside(c, &b.rect, &long, LABEL).or_else(|| place_inside(c, &b.rect, &name, LABEL)).is_some() {
            continue;
        }
        let n = legend.len() + 1;
        let marker = n.to_string();
        // The number in the bar, else right of it, else left of it, where it hits no text.
        if place_inside(c, &b.rect, &marker, MARKER).is_none() {
            let mid = (b.rect.y0 + b.rect.y1) / 2.0 + 0.3 * FONT;
            let width = marker.len() as f64 * CHAR_WIDTH * FONT;
            for x in [b.rect.x1 + 2.0, b.rect.x0 - 2.0 - width] {
                let bx = text_box(x, mid, FONT, &marker);
                if c.free(&bx) && bx.x0 >= LEFT && bx.x1 <= LEFT + PLOT_W && bx.y0 >= y0 && bx.y1 <= y0 + PLOT_H {
                    c.text(x, mid, FONT, &marker, MARKER);
                    break;
                }
            }
        }
        legend.push((n, b));
    }
    // The legend: numbered rows in columns under the panel.
    let mut y = y0 + PLOT_H + 48.0;
    if !legend.is_empty() {
        let entries: Vec<(String, &Bar)> = legend
            .iter()
            .map(|(n, b)| {
                let t = b.tile;
                let kind = if b.arg { "arg " } else { "" };
                (format!("{n:>2} {kind}%{} {} @{} ops {}..{}", t.name, bytes_label(t.size), t.addr.unwrap_or(0), t.start, t.end), *b)
            })
            .collect();
        let widest = entries.iter().map(|(s, _)| s.chars().count()).max().unwrap_or(0) as f64 * CHAR_WIDTH * FONT;
        let col_w = widest + 30.0;
        let cols = ((PLOT_W / col_w).floor() as usize).max(1);
        let rows = entries.len().div_ceil(cols);
        for (i, (text, b)) in entries.iter().enumerate() {
            let (col, row) = (i / rows, i % rows);
            let (x, ty) = (LEFT + col as f64 * col_w, y + row as f64 * LEGEND_ROW);
            let fill = if b.arg { "url(#arg)".to_string() } else { b.color.to_string() };
            let _ = writeln!(
                c.body,
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"10\" height=\"9\" fill=\"{fill}\" stroke=\"#333\" stroke-width=\"0.6\"/>",
                ty - 8.0
            );
            c.text(x + 14.0, ty, FONT, text, " class=\"legend\"");
        }
        y += rows as f64 * LEGEND_ROW;
    }
    y + 24.0
}

/// Writes `text` inside `bar` at the first free line from its top (3 px in from the left
/// edge); `None` when it does not fit or every line is taken.
fn place_inside(c: &mut Canvas, bar: &Rect, text: &str, attrs: &str) -> Option<()> {
    let x = bar.x0 + 3.0;
    let mut y = bar.y0 + 0.8 * FONT + 1.0;
    while y + 0.25 * FONT <= bar.y1 {
        let b = text_box(x, y, FONT, text);
        if b.x1 + 2.0 > bar.x1 {
            return None;
        }
        if bar.contains(&b) && c.free(&b) {
            c.text(x, y, FONT, text, attrs);
            return Some(());
        }
        y += FONT + 1.0;
    }
    None
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
