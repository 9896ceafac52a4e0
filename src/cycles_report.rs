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

/// The timelines of a run's cores in (rank, block, core) order, each with its process name
/// (`rank 0 block 1 aiv0`; the one core of a single-core run is `rank 0 block 0 core`).
pub fn ordered_cores<S: std::ops::Deref<Target = State>>(timelines: &[S]) -> Vec<(String, &State)> {
    let mut cores: Vec<(String, &State)> = timelines
        .iter()
        .map(|t| {
            let st: &State = t;
            let name = match st.actor {
                Some(a) => format!("rank {} block {} {}", a.rank, a.block, a.core.name()),
                None => "rank 0 block 0 core".to_string(),
            };
            (name, st)
        })
        .collect();
    let order = |k: pto_sim::cores::CoreKind| match k {
        pto_sim::cores::CoreKind::Aic | pto_sim::cores::CoreKind::Whole => 0,
        pto_sim::cores::CoreKind::Aiv(i) => 1 + u32::from(i),
    };
    // On a machine run the prototype simulation (which runs nothing) has a timeline too.
    if cores.iter().any(|(_, st)| st.actor.is_some()) {
        cores.retain(|(_, st)| st.actor.is_some());
    }
    cores.sort_by_key(|(_, st)| st.actor.map(|a| (a.rank, a.block, order(a.core))));
    cores
}

/// Each core's summary and critical path.
fn per_core(cores: &[(String, &State)], m: &Module, sources: &SourceMap) -> Vec<(String, Summary, Vec<PathOp>)> {
    cores.iter().map(|(name, st)| (name.clone(), st.summary(), critical_path(st, m, sources))).collect()
}

/// The `%cycles` JSON entry of a run (`pto run --cycles --json`, Python's `timeline=True`):
/// [`json`] of its one core, or [`json_cores`] of several.
pub fn cycles_json(cores: &[(String, &State)], m: &Module, sources: &SourceMap) -> serde_json::Value {
    match per_core(cores, m, sources).as_slice() {
        [(_, s, path)] => json(s, path),
        each => json_cores(each),
    }
}

/// The `--cycles` table of a run: [`table`] of its one core, or [`table_cores`] of several.
pub fn cycles_table(cores: &[(String, &State)], m: &Module, sources: &SourceMap) -> String {
    match per_core(cores, m, sources).as_slice() {
        [(_, s, path)] => table(s, path),
        each => table_cores(each),
    }
}

/// Under `--cost-model pto-isa`: a note naming the ops pto-isa's lightweight model has no
/// formula for, with how often each ran on all cores together (pto's model timed them);
/// `None` when it had one for every op.
pub fn unmodelled_note(cores: &[(String, &State)]) -> Option<String> {
    let mut runs: std::collections::BTreeMap<&str, u64> = std::collections::BTreeMap::new();
    for (_, st) in cores {
        for (&name, &n) in &st.unmodelled {
            *runs.entry(name).or_default() += n;
        }
    }
    if runs.is_empty() {
        return None;
    }
    let list: Vec<String> = runs.iter().map(|(name, n)| format!("{name} ({n} run{})", if *n == 1 { "" } else { "s" })).collect();
    let them = if runs.len() == 1 { "it" } else { "them" };
    Some(format!("note: pto-isa's lightweight model has no formula for {}; pto's model timed {them}\n", list.join(", ")))
}

/// The tables of a run of several cores: the run's total (the last core to finish), then each
/// core's table under its name.
pub fn table_cores(cores: &[(String, Summary, Vec<PathOp>)]) -> String {
    let total = cores.iter().map(|(_, s, _)| s.total).max().unwrap_or(0);
    let mut out = format!("cycles: {total} over {} cores (modelled, docs/performance-model.md)\n", cores.len());
    for (name, s, path) in cores {
        let _ = writeln!(out, "{name}:");
        for line in table(s, path).lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    out
}

/// `{"total": N, "cores": {"rank 0 block 0 aic": {... as [`json`]}, ...}}`: the run's total is
/// the last core's to finish.
pub fn json_cores(cores: &[(String, Summary, Vec<PathOp>)]) -> serde_json::Value {
    let total = cores.iter().map(|(_, s, _)| s.total).max().unwrap_or(0);
    let each: serde_json::Map<String, serde_json::Value> = cores.iter().map(|(name, s, path)| (name.clone(), json(s, path))).collect();
    serde_json::json!({ "total": total, "cores": each })
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
