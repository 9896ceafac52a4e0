//! `pto run --cycles`: the timeline's totals (`pto_sim::timeline::Summary`) as a table on
//! stderr or, with `--json`, as a `%cycles` entry of the JSON on stdout (outputs are named
//! without `%`, so the key never collides with one), with the ops on the critical path.

use crate::timeline_trace::labels;
use pto_ir::diag::SourceMap;
use pto_ir::module::{Module, OpId};
use pto_sim::sync::model::Pipe;
use pto_sim::timeline::{State, Summary};
use std::fmt::Write;

/// One op of the program on the critical path, with every time it ran there.
#[derive(Clone, Debug, PartialEq)]
pub struct PathOp {
    /// Its short name (`tload`).
    pub name: String,
    /// Its source location.
    pub line: String,
    /// Its pipe.
    pub pipe: Pipe,
    /// How often it ran on the path.
    pub count: u64,
    /// The cycles its runs add to the path, all runs together ([`State::critical_path`]).
    pub cycles: f64,
}

/// The critical path of a timeline (`State::critical_path`) grouped by op, in the order each
/// op first appears on it.
pub fn critical_path(st: &State, m: &Module, sources: &SourceMap) -> Vec<PathOp> {
    let path = st.critical_path();
    let events: Vec<_> = path.iter().map(|&(e, _)| st.events[e].clone()).collect();
    let labels = labels(m, sources, &events);
    let mut out: Vec<PathOp> = Vec::new();
    let mut index: std::collections::HashMap<OpId, usize> = std::collections::HashMap::new();
    for (e, &(_, cycles)) in events.iter().zip(&path) {
        let i = *index.entry(e.op).or_insert_with(|| {
            let l = &labels[&e.op];
            out.push(PathOp { name: l.name.clone(), line: l.line.clone(), pipe: e.pipe, count: 0, cycles: 0.0 });
            out.len() - 1
        });
        out[i].count += 1;
        out[i].cycles += cycles;
    }
    out
}

/// Lines of the critical path a table shows.
const PATH_LINES: usize = 20;

/// `cycles: N`, one line per pipe that ran something (busy cycles and utilisation), then the
/// ops on the critical path (the first [`PATH_LINES`]).
pub fn table(s: &Summary, path: &[PathOp]) -> String {
    let mut out = format!("cycles: {} (modelled, docs/performance-model.md)\n", s.total);
    for &(pipe, busy) in &s.pipes {
        let _ = writeln!(out, "  {:<10} busy {busy:>10}  {:>5.1} %", pipe.name(), 100.0 * s.utilisation(busy));
    }
    let runs: u64 = path.iter().map(|p| p.count).sum();
    let cycles: f64 = path.iter().map(|p| p.cycles).sum();
    let _ = writeln!(out, "critical path: {runs} op runs, {} cycles", cycles.round());
    for p in path.iter().take(PATH_LINES) {
        let _ = writeln!(out, "  {:<10} {:<12} {:>5}x {:>10.0}  {}", p.pipe.name(), p.name, p.count, p.cycles, p.line);
    }
    if path.len() > PATH_LINES {
        let _ = writeln!(out, "  … {} more ops (--json lists them all)", path.len() - PATH_LINES);
    }
    out
}

/// `{"total": N, "pipes": {"PIPE_V": {"busy": B, "utilisation": U}, ...}, "critical_path":
/// {"cycles": C, "ops": [{"op", "line", "pipe", "count", "cycles"}, ...]}}`.
pub fn json(s: &Summary, path: &[PathOp]) -> serde_json::Value {
    let pipes: serde_json::Map<String, serde_json::Value> = s
        .pipes
        .iter()
        .map(|&(p, busy)| (p.name().to_string(), serde_json::json!({ "busy": busy, "utilisation": s.utilisation(busy) })))
        .collect();
    let ops: Vec<_> = path
        .iter()
        .map(|p| serde_json::json!({ "op": p.name, "line": p.line, "pipe": p.pipe.name(), "count": p.count, "cycles": p.cycles }))
        .collect();
    let cycles: f64 = path.iter().map(|p| p.cycles).sum();
    serde_json::json!({ "total": s.total, "pipes": pipes, "critical_path": { "cycles": cycles, "ops": ops } })
}

/// The outputs' JSON object `stdout` with a `%cycles` entry added last (unchanged when there
/// is no JSON object, as with `--output-dir`).
pub fn with_json(stdout: &str, cycles: &serde_json::Value) -> String {
    let Some(close) = stdout.rfind('}') else { return stdout.to_string() };
    let body = stdout[..close].trim_end();
    let sep = if body == "{" { "" } else { "," };
    format!("{body}{sep}\n  \"%cycles\": {cycles}\n}}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_goes_last_in_the_object() {
        let c = serde_json::json!({ "total": 3 });
        assert_eq!(with_json("{}\n", &c), "{\n  \"%cycles\": {\"total\":3}\n}\n");
        let out = with_json("{\n  \"x\": 1\n}\n", &c);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["x"], 1);
        assert_eq!(v["%cycles"]["total"], 3);
        assert_eq!(with_json("", &c), "");
    }
}
