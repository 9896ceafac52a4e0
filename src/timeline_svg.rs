//! `pto run --timeline OUT.svg`: the timeline as a picture. A lane per pipe that ran something
//! (named and ordered as Perf-Sim's tracks), a box per executed op coloured by its kind, with a
//! tooltip (`<title>`: op, source line, cycles); the time a pipe stood waiting for another
//! pipe or for data (a gap before an op whose cause is not its pipe's previous op) is a
//! hatched band, and a line joins each `set_flag` to the `wait_flag` that waited for it. A run
//! of several cores has a group of lanes per core under its name, and a line per edge between
//! cores (push → pop, FFTS set → wait, `syncall`, notify → wait) titled with the edge. The
//! axis is in modelled cycles.

use crate::timeline_trace::labels;
use pto_ir::diag::SourceMap;
use pto_ir::module::Module;
use pto_sim::sync::model::{PIPES, Pipe};
use pto_sim::timeline::{Kind, State, perf_sim_track};
use std::collections::HashMap;
use std::fmt::Write;

const WIDTH: f64 = 1200.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 30.0;
const LANE: f64 = 26.0;
const GAP: f64 = 8.0;
/// The height of a core's name above its lanes (several cores).
const HEADER: f64 = 18.0;

/// A line from the middle of one lane at `from` to the middle of another at `to` (each `(x,
/// lane top)`); an edge between cores (`what` not empty) is dashed and titled with its name.
fn line(out: &mut String, from: (f64, f64), to: (f64, f64), stroke: &str, what: &str) {
    let (title, style) = match what {
        "" => (String::new(), r#"stroke-width="0.8""#),
        _ => (format!("<title>{}</title>", escape(what)), r#"stroke-width="1.5" stroke-dasharray="4 2""#),
    };
    let _ = writeln!(
        out,
        r##"<line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}" stroke="{stroke}" {style}>{title}</line>"##,
        from.0,
        from.1 + LANE / 2.0,
        to.0,
        to.1 + LANE / 2.0
    );
}

/// The fill of a kind of work.
fn colour(k: Kind) -> &'static str {
    match k {
        Kind::Vector => "#4e79a7",
        Kind::Transfer => "#f28e2b",
        Kind::Cube => "#59a14f",
        Kind::Scalar => "#9c9c9c",
        Kind::Sync => "#b07aa1",
        Kind::Wait => "#e15759",
    }
}

const KINDS: [Kind; 6] = [Kind::Vector, Kind::Transfer, Kind::Cube, Kind::Scalar, Kind::Sync, Kind::Wait];

/// `s` with XML's special characters escaped.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A round step for about ten axis ticks over `total` cycles.
fn tick_step(total: f64) -> f64 {
    let raw = (total / 10.0).max(1.0);
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * p).find(|s| *s >= raw).unwrap_or(10.0 * p)
}

/// One lane of the picture: a pipe of a core, at height `y`.
struct Lane {
    core: usize,
    pipe: usize,
    y: f64,
}

/// The picture of the timelines of `cores` (each: its name and timeline; `title` above it):
/// a group of lanes per core, headed by its name when there are several, and a line per edge
/// between cores from the releasing op to the acquiring one.
pub fn svg(m: &Module, sources: &SourceMap, cores: &[(String, &State)], title: &str) -> String {
    let total = cores.iter().flat_map(|(_, st)| &st.events).map(|e| e.end()).fold(0.0, f64::max).max(1.0);
    let several = cores.len() > 1;
    let mut lanes = Vec::new();
    let mut headers = Vec::new();
    let mut next_y = TOP;
    for (c, (name, st)) in cores.iter().enumerate() {
        let mut pipes: Vec<_> = st.events.iter().map(|e| e.pipe).collect();
        pipes.sort_by_key(|p| perf_sim_track(*p).1);
        pipes.dedup();
        if several {
            headers.push((next_y + 12.0, name.as_str()));
            next_y += HEADER;
        }
        for p in pipes {
            lanes.push(Lane { core: c, pipe: p as usize, y: next_y });
            next_y += LANE + GAP;
        }
    }
    let lane_y = |core: usize, pipe: pto_sim::sync::model::Pipe| {
        lanes.iter().find(|l| l.core == core && l.pipe == pipe as usize).map_or(TOP, |l| l.y)
    };
    let scale = (WIDTH - LEFT - RIGHT) / total;
    let x = |c: f64| LEFT + c * scale;
    let axis_y = next_y + 4.0;
    let height = axis_y + 60.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="11">
<defs><pattern id="waiting" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fbe3e3"/><line x1="0" y1="0" x2="0" y2="6" stroke="#e15759" stroke-width="2"/></pattern></defs>
<rect width="{WIDTH}" height="{height}" fill="white"/>
<text x="{LEFT}" y="18" font-size="13">{}</text>"##,
        escape(title)
    );
    for (y, name) in &headers {
        let _ = writeln!(out, r##"<text x="6" y="{y}" font-weight="bold">{}</text>"##, escape(name));
    }
    for l in &lanes {
        let _ = writeln!(
            out,
            r##"<rect x="{LEFT}" y="{}" width="{}" height="{LANE}" fill="#f4f4f4"/><text x="6" y="{}">{}</text>"##,
            l.y,
            WIDTH - LEFT - RIGHT,
            l.y + LANE / 2.0 + 4.0,
            perf_sim_track(Pipe::ALL[l.pipe]).0
        );
    }
    for (c, (_, st)) in cores.iter().enumerate() {
        // Waits: the gap a pipe stood idle before an op held back by another pipe or by data.
        let mut last_end = [0.0f64; PIPES];
        let mut last_event = [None; PIPES];
        for (i, e) in st.events.iter().enumerate() {
            let p = e.pipe as usize;
            if e.start > last_end[p] && e.cause.is_some() && e.cause != last_event[p] {
                let _ = writeln!(
                    out,
                    r##"<rect x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="url(#waiting)"><title>waiting {:.0} cycles</title></rect>"##,
                    x(last_end[p]),
                    lane_y(c, e.pipe) + LANE * 0.3,
                    (e.start - last_end[p]) * scale,
                    LANE * 0.4,
                    e.start - last_end[p]
                );
            }
            last_end[p] = e.start + e.occupancy;
            last_event[p] = Some(i);
        }
        let labels = labels(m, sources, &st.events);
        for e in &st.events {
            let l = &labels[&e.op];
            let _ = writeln!(
                out,
                r##"<rect x="{:.2}" y="{:.2}" width="{:.2}" height="{LANE}" fill="{}" stroke="white" stroke-width="0.3"><title>{} ({}): {:.0} cycles at {:.0}</title></rect>"##,
                x(e.start),
                lane_y(c, e.pipe),
                (e.occupancy * scale).max(0.5),
                colour(e.kind),
                escape(&l.name),
                escape(&l.line),
                e.cycles,
                e.start
            );
        }
        for e in st.events.iter().filter(|e| e.after_set.is_some()) {
            let s = &st.events[e.after_set.unwrap_or_default()];
            line(&mut out, (x(s.end()), lane_y(c, s.pipe)), (x(e.start), lane_y(c, e.pipe)), "#e15759", "");
        }
    }
    // The edges between cores.
    let core_of: HashMap<_, usize> = cores.iter().enumerate().map(|(c, (_, st))| (st.actor, c)).collect();
    for (c, (_, st)) in cores.iter().enumerate() {
        for a in &st.arrivals {
            let Some(&from_core) = core_of.get(&a.from.actor) else { continue };
            let Some(from) = cores[from_core].1.events.get(a.from.event) else { continue };
            let to = &st.events[a.to];
            line(&mut out, (x(from.end()), lane_y(from_core, from.pipe)), (x(to.start), lane_y(c, to.pipe)), "#76b7b2", a.what);
        }
    }
    // The cycle axis and the legend.
    let step = tick_step(total);
    let _ = writeln!(out, r##"<line x1="{LEFT}" y1="{axis_y}" x2="{}" y2="{axis_y}" stroke="black"/>"##, x(total));
    let mut t = 0.0;
    while t <= total {
        let _ = writeln!(
            out,
            r##"<line x1="{0:.2}" y1="{axis_y}" x2="{0:.2}" y2="{1}" stroke="black"/><text x="{0:.2}" y="{2}" text-anchor="middle">{3}</text>"##,
            x(t),
            axis_y + 4.0,
            axis_y + 16.0,
            t
        );
        t += step;
    }
    let _ = writeln!(out, r##"<text x="{}" y="{}" text-anchor="end">cycles</text>"##, WIDTH - RIGHT, axis_y + 30.0);
    let legend_y = axis_y + 40.0;
    for (i, k) in KINDS.iter().enumerate() {
        let lx = LEFT + i as f64 * 95.0;
        let _ = writeln!(
            out,
            r##"<rect x="{lx}" y="{legend_y}" width="12" height="12" fill="{}"/><text x="{}" y="{}">{}</text>"##,
            colour(*k),
            lx + 16.0,
            legend_y + 10.0,
            k.name()
        );
    }
    let lx = LEFT + KINDS.len() as f64 * 95.0;
    let _ = writeln!(
        out,
        r##"<rect x="{lx}" y="{legend_y}" width="12" height="12" fill="url(#waiting)"/><text x="{}" y="{}">waiting</text>"##,
        lx + 16.0,
        legend_y + 10.0
    );
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round() {
        assert_eq!(tick_step(1000.0), 100.0);
        assert_eq!(tick_step(1500.0), 200.0);
        assert_eq!(tick_step(3.0), 1.0);
        assert_eq!(escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
    }
}
