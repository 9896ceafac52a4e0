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
    let span = m.op_span(op);
    let full = m.op(op).opcode.full_name();
    let name = full.rsplit('.').next().unwrap_or(&full).to_string();
    let Some(f) = sources.get(span.file) else { return OpLabel { name, line: sources.location(span), text: full } };
    let text = f.text.get(span.start as usize..span.end as usize).and_then(|t| t.lines().next()).map(str::trim);
    // At most 200 characters.
    let text = text.map_or(full, |t| t.get(..t.char_indices().nth(200).map_or(t.len(), |(i, _)| i)).unwrap_or(t).to_string());
    // `file:line:col`, as `SourceMap::location` writes it, without `core::fmt`.
    let (l, c) = f.line_col(span.start);
    let mut digits = itoa::Buffer::new();
    let mut line = String::with_capacity(f.name.len() + 16);
    for piece in [f.name.as_str(), ":", digits.format(l), ":"] {
        line.push_str(piece);
    }
    line.push_str(digits.format(c));
    OpLabel { name, line, text }
}

/// A JSON string literal (without `serde_json`'s allocation and escaping pass when nothing
/// needs escaping: op names, locations and most op texts).
fn quoted(s: &str) -> String {
    if s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        return serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    out.push_str(s);
    out.push('"');
    out
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

/// The quoted `name`, `line` and `op` of each op of `events`, by op index (each op's label
/// made once, however often it ran).
fn quoted_labels(m: &Module, sources: &SourceMap, events: &[OpEvent]) -> Vec<Option<[String; 3]>> {
    let mut out: Vec<Option<[String; 3]>> = vec![None; m.ops.len()];
    for e in events {
        let slot = &mut out[e.op.index()];
        if slot.is_none() {
            let l = label(m, sources, e.op);
            *slot = Some([quoted(&l.name), quoted(&l.line), quoted(&l.text)]);
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
            let Some([name, at, text]) = &labels[e.op.index()] else { continue };
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
