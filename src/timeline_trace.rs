//! `pto run --timeline OUT.json`: the timeline (`pto_sim::timeline::State`) as Chrome trace
//! JSON, which Perfetto (ui.perfetto.dev, its trace processor) and chrome://tracing load:
//!
//! - a process per core (named `rank R block B core C`), a thread per pipe named as pto-isa's
//!   Perf-Sim names its tracks (`Scalar`, `MTE2`, `MTE1`, `CUBE`, `FIXP`, `VEC`, `MTE3`) and
//!   sorted in its order;
//! - one complete event (`"ph": "X"`) per executed op: `name` the op, `cat` its kind, `ts` and
//!   `dur` in cycles (`dur`: how long it holds its pipe, so a pipe's events never overlap; a
//!   transfer's latency is in flight after it), `args` with `cycles` (its modelled cycles to
//!   completion, unrounded), `line` (its source
//!   location), `op` (its source text), `bytes` and `repeats`;
//! - a flow (`"ph": "s"` on the `set_flag`, `"ph": "f"` on its `wait_flag`, same `id`) per
//!   flag a wait waited for, and one per edge between cores a core waited on (`push→pop`,
//!   `free→push`, `ffts set→wait`, `notify→wait`, `syncall`: from the releasing op of one core
//!   to the acquiring op of the other);
//! - `otherData` states the unit (`"ts_unit": "cycle"`), the total and the model.

use pto_ir::diag::SourceMap;
use pto_ir::module::{Module, OpId};
use pto_sim::timeline::{OpEvent, State, perf_sim_track};
use std::collections::HashMap;
use std::fmt::Write;

/// What a picture or a trace shows of one op: its short name, source location and text.
#[derive(Clone, Debug, PartialEq)]
pub struct OpLabel {
    /// `tadd`, `set_flag`.
    pub name: String,
    /// `file:line:col`.
    pub line: String,
    /// The first line of its source text, trimmed.
    pub text: String,
}

/// The labels of the ops `events` ran (each op once, however often it ran).
pub fn labels(m: &Module, sources: &SourceMap, events: &[OpEvent]) -> HashMap<OpId, OpLabel> {
    let mut out = HashMap::new();
    for e in events {
        out.entry(e.op).or_insert_with(|| label(m, sources, e.op));
    }
    out
}

/// The label of `op`.
fn label(m: &Module, sources: &SourceMap, op: OpId) -> OpLabel {
    let parts = LabelParts::of(m, sources, op);
    let mut line = String::with_capacity(parts.file.len() + 16);
    parts.push_line(&mut line);
    OpLabel { name: parts.name.to_string(), line, text: parts.text.into_owned() }
}

/// The pieces of an op's label, borrowed from the module and its sources where they can be.
struct LabelParts<'a> {
    name: &'static str,
    /// The file and its 1-based line and column (`None`: an op without a source file).
    file: &'a str,
    at: Option<(usize, usize)>,
    /// `SourceMap::location` of an op without a source file.
    location: String,
    text: std::borrow::Cow<'a, str>,
}

impl<'a> LabelParts<'a> {
    fn of(m: &Module, sources: &'a SourceMap, op: OpId) -> LabelParts<'a> {
        let span = m.op_span(op);
        let spec = m.op(op).opcode.spec();
        let Some(f) = sources.get(span.file) else {
            return LabelParts { name: spec.name, file: "", at: None, location: sources.location(span), text: spec.full_name().into() };
        };
        let text = f.text.get(span.start as usize..span.end as usize).and_then(|t| t.lines().next()).map(str::trim);
        // At most 200 characters.
        let text = match text {
            Some(t) if t.len() <= 200 => t.into(),
            Some(t) => t.get(..t.char_indices().nth(200).map_or(t.len(), |(i, _)| i)).unwrap_or(t).into(),
            None => spec.full_name().into(),
        };
        LabelParts { name: spec.name, file: f.name.as_str(), at: Some(f.line_col(span.start)), location: String::new(), text }
    }

    /// Appends `file:line:col`, as `SourceMap::location` writes it, without `core::fmt`.
    fn push_line(&self, out: &mut String) {
        let Some((l, c)) = self.at else { return out.push_str(&self.location) };
        let mut digits = itoa::Buffer::new();
        for piece in [self.file, ":", digits.format(l), ":"] {
            out.push_str(piece);
        }
        out.push_str(digits.format(c));
    }
}

/// A JSON string literal (without `serde_json`'s allocation and escaping pass when nothing
/// needs escaping: op names, locations and most op texts).
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_quoted(&mut out, s);
    out
}

/// Appends `s` as a JSON string literal ([`quoted`]).
fn push_quoted(out: &mut String, s: &str) {
    if needs_escape(s) {
        out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()));
        return;
    }
    out.push('"');
    out.push_str(s);
    out.push('"');
}

/// Whether `s` has a character a JSON string literal escapes (a fold without an early exit,
/// which the compiler vectorises: most labels need no escape and are scanned to the end).
fn needs_escape(s: &str) -> bool {
    s.bytes().fold(false, |found, b| found | (b == b'"') | (b == b'\\') | (b < 0x20))
}

/// Appends a cycle count: an integral value as an integer (the common case, without
/// `core::fmt`), any other as Rust writes an `f64`.
fn push_number(out: &mut String, x: f64, digits: &mut itoa::Buffer) {
    if x.fract() == 0.0 && (0.0..9.0e15).contains(&x) {
        out.push_str(digits.format(x as u64));
    } else {
        let _ = write!(out, "{x}");
    }
}

/// The quoted `name`, `line` and `op` of an op, in one string (`[..cuts[0]]`,
/// `[cuts[0]..cuts[1]]`, `[cuts[1]..]`): one allocation per op.
struct QuotedLabel {
    text: String,
    cuts: [usize; 2],
}

impl QuotedLabel {
    fn of(m: &Module, sources: &SourceMap, op: OpId) -> QuotedLabel {
        let parts = LabelParts::of(m, sources, op);
        let mut text = String::with_capacity(parts.name.len() + parts.file.len() + parts.text.len() + 24);
        push_quoted(&mut text, parts.name);
        let name_end = text.len();
        text.push('"');
        parts.push_line(&mut text);
        // A location never needs escaping unless its file name does.
        if needs_escape(&text[name_end + 1..]) {
            let line = text.split_off(name_end);
            push_quoted(&mut text, &line[1..]);
        } else {
            text.push('"');
        }
        let line_end = text.len();
        push_quoted(&mut text, &parts.text);
        QuotedLabel { text, cuts: [name_end, line_end] }
    }

    fn pieces(&self) -> [&str; 3] {
        let [a, b] = self.cuts;
        [&self.text[..a], &self.text[a..b], &self.text[b..]]
    }
}

/// The quoted labels ([`QuotedLabel`]) of each op of `events`, by op index (each op's label
/// made once, however often it ran).
fn quoted_labels(m: &Module, sources: &SourceMap, events: &[OpEvent]) -> Vec<Option<QuotedLabel>> {
    let mut out: Vec<Option<QuotedLabel>> = Vec::new();
    out.resize_with(m.ops.len(), || None);
    for e in events {
        let slot = &mut out[e.op.index()];
        if slot.is_none() {
            *slot = Some(QuotedLabel::of(m, sources, e.op));
        }
    }
    out
}

/// The trace of `cores` (each: its process name and its timeline) as Chrome trace JSON.
pub fn chrome_json(m: &Module, sources: &SourceMap, cores: &[(String, &State)]) -> String {
    // About 250 bytes per event: sized once, so the text is not copied as it grows.
    let events: usize = cores.iter().map(|(_, st)| st.events.len()).sum();
    let mut out = String::with_capacity(256 * events + 1024);
    out.push_str("{\"traceEvents\": [\n");
    let mut first = true;
    // Each line is formatted straight into `out` (no string per event).
    let mut line = |out: &mut String, s: std::fmt::Arguments<'_>| {
        if !first {
            out.push_str(",\n");
        }
        first = false;
        let _ = out.write_fmt(s);
    };
    let mut flow = 0u64;
    let mut total = 0u64;
    for (pid, (name, st)) in cores.iter().enumerate() {
        total = total.max(st.summary().total);
        line(
            &mut out,
            format_args!("{{\"ph\":\"M\",\"pid\":{pid},\"tid\":0,\"name\":\"process_name\",\"args\":{{\"name\":{}}}}}", quoted(name)),
        );
        line(
            &mut out,
            format_args!("{{\"ph\":\"M\",\"pid\":{pid},\"tid\":0,\"name\":\"process_sort_index\",\"args\":{{\"sort_index\":{pid}}}}}"),
        );
        let mut pipes: Vec<_> = st.events.iter().map(|e| e.pipe).collect();
        pipes.sort_by_key(|p| perf_sim_track(*p).1);
        pipes.dedup();
        for p in pipes {
            let (track, order) = perf_sim_track(p);
            let tid = order + 1;
            line(
                &mut out,
                format_args!("{{\"ph\":\"M\",\"pid\":{pid},\"tid\":{tid},\"name\":\"thread_name\",\"args\":{{\"name\":\"{track}\"}}}}"),
            );
            line(
                &mut out,
                format_args!(
                    "{{\"ph\":\"M\",\"pid\":{pid},\"tid\":{tid},\"name\":\"thread_sort_index\",\"args\":{{\"sort_index\":{order}}}}}"
                ),
            );
        }
        let labels = quoted_labels(m, sources, &st.events);
        let tid = |e: &OpEvent| perf_sim_track(e.pipe).1 + 1;
        let mut digits = itoa::Buffer::new();
        for e in &st.events {
            let Some(label) = &labels[e.op.index()] else { continue };
            let [name, at, text] = label.pieces();
            // Written piece by piece: `core::fmt` was most of the trace's cost.
            line(&mut out, format_args!("{{\"ph\":\"X\",\"name\":{name},\"cat\":\"{}\",\"ts\":", e.kind.name()));
            push_number(&mut out, e.start, &mut digits);
            out.push_str(",\"dur\":");
            push_number(&mut out, e.occupancy, &mut digits);
            out.push_str(",\"pid\":");
            out.push_str(digits.format(pid));
            out.push_str(",\"tid\":");
            out.push_str(digits.format(tid(e)));
            out.push_str(",\"args\":{\"cycles\":");
            push_number(&mut out, e.cycles, &mut digits);
            out.push_str(",\"line\":");
            out.push_str(at);
            out.push_str(",\"op\":");
            out.push_str(text);
            out.push_str(",\"bytes\":");
            out.push_str(digits.format(e.bytes));
            out.push_str(",\"repeats\":");
            out.push_str(digits.format(e.repeats));
            out.push_str("}}");
            if let Some(set) = e.after_set {
                flow += 1;
                for (ph, pid, at) in [("s", pid, &st.events[set]), ("f", pid, e)] {
                    flow_end(&mut out, &mut line, ph, "set→wait", flow, pid, at);
                }
            }
        }
    }
    // The edges between cores, each from the releasing core's event to the acquiring one's.
    let pid_of: HashMap<_, usize> = cores.iter().enumerate().map(|(pid, (_, st))| (st.actor, pid)).collect();
    for (pid, (_, st)) in cores.iter().enumerate() {
        for a in &st.arrivals {
            let Some(&from_pid) = pid_of.get(&a.from.actor) else { continue };
            let Some(from) = cores[from_pid].1.events.get(a.from.event) else { continue };
            flow += 1;
            for (ph, pid, at) in [("s", from_pid, from), ("f", pid, &st.events[a.to])] {
                flow_end(&mut out, &mut line, ph, a.what, flow, pid, at);
            }
        }
    }
    let _ = write!(
        out,
        "\n],\n\"displayTimeUnit\": \"ns\",\n\"otherData\": {{\"ts_unit\": \"cycle\", \"note\": \"ts and dur are modelled cycles (docs/performance-model.md), not microseconds\", \"total_cycles\": {total}}}\n}}\n"
    );
    out
}

/// One end of flow `id` (`ph` `s` or `f`) named `name`, at the start of event `at` of
/// process `pid` (a finish binds to the slice it starts: `"bp": "e"`).
fn flow_end(
    out: &mut String,
    line: &mut impl FnMut(&mut String, std::fmt::Arguments<'_>),
    ph: &str,
    name: &str,
    id: u64,
    pid: usize,
    at: &OpEvent,
) {
    let bp = if ph == "f" { ",\"bp\":\"e\"" } else { "" };
    let tid = perf_sim_track(at.pipe).1 + 1;
    line(
        out,
        format_args!(
            "{{\"ph\":\"{ph}\"{bp},\"name\":\"{name}\",\"cat\":\"flow\",\"id\":{id},\"ts\":{},\"pid\":{pid},\"tid\":{tid}}}",
            at.start
        ),
    );
}

/// What `--timeline` writes, by the file's extension.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// `.json`: Chrome trace JSON.
    Chrome,
    /// `.svg`: a picture.
    Svg,
}

impl Format {
    /// The format a path's extension asks for.
    pub fn of(path: &str) -> Result<Format, String> {
        match std::path::Path::new(path).extension().and_then(|e| e.to_str()) {
            Some("json") => Ok(Format::Chrome),
            Some("svg") => Ok(Format::Svg),
            _ => Err("expected a file name ending in .json (Chrome trace JSON) or .svg (a picture)".into()),
        }
    }
}

/// Writes the timeline of `cores` to `path` in the format its extension names.
pub fn write(path: &str, m: &Module, sources: &SourceMap, cores: &[(String, &State)]) -> Result<(), String> {
    let text = match Format::of(path)? {
        Format::Chrome => chrome_json(m, sources, cores),
        Format::Svg => {
            let total = cores.iter().map(|(_, st)| st.summary().total).max().unwrap_or(0);
            let title = match cores {
                [(name, _)] => format!("{name}: {total} cycles (modelled)"),
                _ => format!("{} cores: {total} cycles (modelled)", cores.len()),
            };
            crate::timeline_svg::svg(m, sources, cores, &title)
        }
    };
    std::fs::write(path, text).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_json_strings_escaped_only_where_needed() {
        assert_eq!(quoted("pto.tadd ins(%a)"), "\"pto.tadd ins(%a)\"");
        assert_eq!(quoted("name = \"c2v\" \\ x"), "\"name = \\\"c2v\\\" \\\\ x\"");
        assert_eq!(quoted("tab\there"), "\"tab\\there\"");
        for s in ["plain", "q\"uote", "back\\slash", "ctl\u{1}", "ünï"] {
            assert_eq!(serde_json::from_str::<String>(&quoted(s)).unwrap(), s);
        }
    }

    #[test]
    fn a_quoted_label_is_the_label_quoted_piece_by_piece() {
        for file in ["k.pto", "dir \"q\"\\k.pto"] {
            let mut sources = SourceMap::default();
            let text = ".arg %a : !pto.tile_buf<vec, 16x16xf32>\npto.tabs ins(%a : !pto.tile_buf<vec, 16x16xf32>) outs(%a : !pto.tile_buf<vec, 16x16xf32>)\n";
            let id = sources.add(file, text);
            let (m, _) = pto_asm::parse(text, id).expect("parses");
            assert!(m.ops.iter().any(|o| o.opcode == pto_ir::ops::Opcode::TAbs));
            for (i, _) in m.ops.iter().enumerate() {
                let op = OpId(i as u32);
                let l = label(&m, &sources, op);
                let q = QuotedLabel::of(&m, &sources, op);
                assert_eq!(q.pieces(), [quoted(&l.name).as_str(), quoted(&l.line).as_str(), quoted(&l.text).as_str()], "{file}");
            }
        }
    }

    #[test]
    fn cycle_counts_are_integers_when_integral_and_exact_otherwise() {
        let mut digits = itoa::Buffer::new();
        let mut out = String::new();
        for x in [0.0, 152.0, 12.5, 1e17, 0.1] {
            push_number(&mut out, x, &mut digits);
            out.push(' ');
        }
        assert_eq!(out, "0 152 12.5 100000000000000000 0.1 ");
    }
}
