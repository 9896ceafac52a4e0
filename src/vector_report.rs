//! Text of the A2A3 vector level for `pto lower --emit vector` and the `--stats` cost table
//! of `pto lower` / `pto run --exec vector`.

use pto_ir::diag::{SourceMap, Span};
use pto_ir::module::{Module, OpId};
use pto_ir::ops::{Family, Opcode, Pipe};
use pto_lower::vector::TileOp;
use pto_lower::vector::ir::Stats;
use pto_lower::vector::listing::Listed;
use std::collections::HashMap;
use std::collections::hash_map::Entry;

/// `line:col` of a span (the file is the one being lowered).
fn line_col(sources: &SourceMap, span: Span) -> String {
    match sources.get(span.file) {
        Some(f) => {
            let (l, c) = f.line_col(span.start);
            format!("{l}:{c}")
        }
        None => "?".into(),
    }
}

/// One line per tile operand: slot, address, shape, valid shape, dtype.
fn operands(t: &TileOp) -> String {
    t.tiles
        .iter()
        .map(|v| format!("{} @{:#x} {}x{} valid {}x{} {}", v.slot, v.addr, v.rows, v.cols, v.vrows, v.vcols, v.dtype.name()))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// The vector program of every lowered op, with a header naming the op, its place in the
/// source, its operands and its cost.
pub fn listing(sources: &SourceMap, m: &Module, listed: &[Listed]) -> String {
    let mut out = String::new();
    for l in listed {
        let name = m.op(l.op).opcode.full_name();
        let at = line_col(sources, m.op_span(l.op));
        match (&l.tile_op, &l.program) {
            (Ok(t), Ok(p)) => {
                let s = p.stats();
                out.push_str(&format!("// {name} at {at}: {}\n//   {}\n", cost(&s), operands(t)));
                for i in &p.instrs {
                    out.push_str(&format!("{i}\n"));
                }
            }
            (Err(e), _) | (_, Err(e)) => out.push_str(&format!("// {name} at {at}: tile semantics ({})\n", e.0)),
        }
    }
    out
}

fn cost(s: &Stats) -> String {
    let scalar = if s.scalar_ops > 0 { format!(", {} scalar loops", s.scalar_ops) } else { String::new() };
    format!("{} vector instructions, {} repeats{scalar}", s.instructions, s.repeats)
}

/// Why `opcode` has no A2A3 vector program, from the pipe it runs on (the op table's
/// `pipe`): the row text of `--stats` for every op that is not a lowered vector op.
pub fn no_program_reason(opcode: Opcode) -> &'static str {
    let spec = opcode.spec();
    match spec.pipe {
        Pipe::V => "no A2A3 vector program for this instruction yet",
        Pipe::M => "runs on the cube pipe (M)",
        Pipe::Mte2 => "data movement (MTE2: GM to an on-chip buffer)",
        Pipe::Mte3 => "data movement (MTE3: an on-chip buffer to GM)",
        Pipe::Mte1 => "data movement (MTE1: L1 to L0A/L0B)",
        Pipe::Fix => "runs on the fixpipe (L0C out)",
        Pipe::S => "scalar op (scalar unit)",
        Pipe::None => match spec.family {
            Family::ControlFlow | Family::Func | Family::Section | Family::Builtin => "control flow",
            Family::Sync | Family::Pipe | Family::Comm | Family::AsyncDma => "control/sync op",
            _ => "declaration (no instruction: a tile, view or setting)",
        },
    }
}

/// The ops a cost table lists: every op of the module in program order that does work on a
/// pipe other than the scalar unit — not the module and functions, nor constants, declarations
/// (`alloc_tile`, views), scalar arithmetic or control flow, which would only be filler rows.
fn kernel_ops(m: &Module) -> Vec<OpId> {
    m.walk().into_iter().filter(|&op| !matches!(m.op(op).opcode.spec().pipe, Pipe::S | Pipe::None)).collect()
}

/// One row of the cost table: op, `line:col`, how many times it ran, and its total cost (or
/// why it has no vector program).
pub type CostRow = (String, String, u64, Result<Stats, String>);

/// The cost table: one row per op (`op at line:col`, executions, vector instructions,
/// repeats, scalar-pipe loops, or the reason the op has no vector program), and the total.
pub fn stats_table(rows: &[CostRow]) -> String {
    let op_w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0).max(5);
    let at_w = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
    let mut out =
        String::from("// vector cost (A2A3): op, at, runs, instructions, repeats, scalar loops (or why the op has no vector program)\n");
    let mut total = Stats::default();
    for (op, at, runs, cost) in rows {
        match cost {
            Ok(s) => {
                total += *s;
                out.push_str(&format!(
                    "//   {op:<op_w$} {at:<at_w$} {runs:>5} {:>8} {:>9} {:>5}\n",
                    s.instructions, s.repeats, s.scalar_ops
                ));
            }
            Err(e) => out.push_str(&format!("//   {op:<op_w$} {at:<at_w$} {runs:>5} no vector program: {e}\n")),
        }
    }
    let label_w = op_w + at_w + 7;
    out.push_str(&format!("//   {:<label_w$} {:>8} {:>9} {:>5}\n", "total", total.instructions, total.repeats, total.scalar_ops));
    // The total counts vector programs only: say which ops it leaves out.
    let left_out: Vec<String> = rows.iter().filter(|r| r.3.is_err()).map(|(op, at, _, _)| format!("{op} ({at})")).collect();
    if !left_out.is_empty() {
        out.push_str(&format!("//   not in the total (no vector program): {}\n", left_out.join(", ")));
    }
    out
}

/// Rows of [`stats_table`] for a static listing: every op of `m`, with the cost of its
/// vector program when [`Listed`] has one.
pub fn listed_rows(sources: &SourceMap, m: &Module, listed: &[Listed]) -> Vec<CostRow> {
    let by_op: HashMap<OpId, &Listed> = listed.iter().map(|l| (l.op, l)).collect();
    kernel_ops(m)
        .into_iter()
        .map(|op| {
            let opcode = m.op(op).opcode;
            let cost = match by_op.get(&op) {
                Some(l) => l.program.as_ref().map(|p| p.stats()).map_err(|e| e.0.clone()),
                None => Err(no_program_reason(opcode).to_string()),
            };
            (opcode.full_name().to_string(), line_col(sources, m.op_span(op)), 1, cost)
        })
        .collect()
}

/// Rows of [`stats_table`] for a run under `--exec vector`: every op of `m` in program order,
/// how many times it ran (`counts`, indexed by op) and the summed cost of the executions that
/// ran as vector programs (the reason of the first that did not, when none did).
pub fn run_rows(sources: &SourceMap, m: &Module, counts: &[u64], log: &[pto_sim::interp::VectorRecord]) -> Vec<CostRow> {
    let mut costs: HashMap<OpId, Result<Stats, String>> = HashMap::new();
    for r in log {
        match costs.entry(r.id) {
            Entry::Vacant(e) => {
                e.insert(r.cost.clone());
            }
            Entry::Occupied(mut e) => match (e.get_mut(), &r.cost) {
                (Ok(total), Ok(s)) => *total += *s,
                (cost @ Err(_), Ok(s)) => *cost = Ok(*s),
                _ => {}
            },
        }
    }
    kernel_ops(m)
        .into_iter()
        .map(|op| {
            let opcode = m.op(op).opcode;
            let runs = counts.get(op.index()).copied().unwrap_or(0);
            let cost = costs.remove(&op).unwrap_or_else(|| {
                if pto_lower::vector::is_lowered(opcode) { Ok(Stats::default()) } else { Err(no_program_reason(opcode).to_string()) }
            });
            (opcode.full_name().to_string(), line_col(sources, m.op_span(op)), runs, cost)
        })
        .collect()
}
