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
//!   flag a wait waited for;
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
        out.entry(e.op).or_insert_with(|| {
            let span = m.op_span(e.op);
            let full = m.op(e.op).opcode.full_name();
            let name = full.rsplit('.').next().unwrap_or(&full).to_string();
            let text = sources
                .get(span.file)
                .and_then(|f| f.text.get(span.start as usize..span.end as usize))
                .and_then(|t| t.lines().next())
                .map(|t| t.trim().chars().take(200).collect())
                .unwrap_or_else(|| full.clone());
            OpLabel { name, line: sources.location(span), text }
        });
    }
    out
}

/// A JSON string literal.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
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
        let labels = labels(m, sources, &st.events);
        let quoted_labels: HashMap<OpId, (String, String, String)> =
            labels.iter().map(|(op, l)| (*op, (quoted(&l.name), quoted(&l.line), quoted(&l.text)))).collect();
        let tid = |e: &OpEvent| perf_sim_track(e.pipe).1 + 1;
        for e in &st.events {
            let (name, at, text) = &quoted_labels[&e.op];
            line(
                &mut out,
                format_args!(
                    "{{\"ph\":\"X\",\"name\":{name},\"cat\":\"{}\",\"ts\":{},\"dur\":{},\"pid\":{pid},\"tid\":{},\"args\":{{\"cycles\":{},\"line\":{at},\"op\":{text},\"bytes\":{},\"repeats\":{}}}}}",
                    e.kind.name(),
                    e.start,
                    e.occupancy,
                    tid(e),
                    e.cycles,
                    e.bytes,
                    e.repeats
                ),
            );
            if let Some(set) = e.after_set {
                let s = &st.events[set];
                flow += 1;
                line(
                    &mut out,
                    format_args!(
                        "{{\"ph\":\"s\",\"name\":\"set→wait\",\"cat\":\"flow\",\"id\":{flow},\"ts\":{},\"pid\":{pid},\"tid\":{}}}",
                        s.start,
                        tid(s)
                    ),
                );
                line(
                    &mut out,
                    format_args!(
                        "{{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"set→wait\",\"cat\":\"flow\",\"id\":{flow},\"ts\":{},\"pid\":{pid},\"tid\":{}}}",
                        e.start,
                        tid(e)
                    ),
                );
            }
        }
    }
    let _ = write!(
        out,
        "\n],\n\"displayTimeUnit\": \"ns\",\n\"otherData\": {{\"ts_unit\": \"cycle\", \"note\": \"ts and dur are modelled cycles (docs/performance-model.md), not microseconds\", \"total_cycles\": {total}}}\n}}\n"
    );
    out
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
        Format::Svg => match cores {
            [(name, st)] => crate::timeline_svg::svg(m, sources, st, &format!("{name}: {} cycles (modelled)", st.summary().total)),
            _ => return Err("a picture shows one core".into()),
        },
    };
    std::fs::write(path, text).map_err(|e| e.to_string())
}
