//! Text of the A2A3 vector level for `pto lower --emit vector` and the `--stats` cost table
//! of `pto lower` / `pto run --exec vector`.

use pto_ir::diag::{SourceMap, Span};
use pto_ir::module::Module;
use pto_lower::vector::TileOp;
use pto_lower::vector::ir::Stats;
use pto_lower::vector::listing::Listed;

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

/// One row of the cost table: op, `line:col`, how many times it ran, and its total cost (or
/// why it ran with tile semantics).
pub type CostRow = (String, String, u64, Result<Stats, String>);

/// The cost table: one row per tile op (`op at line:col`, executions, vector instructions,
/// repeats, scalar-pipe loops), and the total.
pub fn stats_table(rows: &[CostRow]) -> String {
    let mut out = String::from("// vector cost (A2A3): op, at, runs, instructions, repeats, scalar loops\n");
    let mut total = Stats::default();
    for (op, at, runs, cost) in rows {
        match cost {
            Ok(s) => {
                total += *s;
                out.push_str(&format!("//   {op:<18} {at:<8} {runs:>5} {:>8} {:>9} {:>5}\n", s.instructions, s.repeats, s.scalar_ops));
            }
            Err(e) => out.push_str(&format!("//   {op:<18} {at:<8} {runs:>5} tile semantics: {e}\n")),
        }
    }
    out.push_str(&format!("//   {:<33} {:>8} {:>9} {:>5}\n", "total", total.instructions, total.repeats, total.scalar_ops));
    out
}

/// Rows of [`stats_table`] for a static listing.
pub fn listed_rows(sources: &SourceMap, m: &Module, listed: &[Listed]) -> Vec<CostRow> {
    listed
        .iter()
        .map(|l| {
            let op = m.op(l.op).opcode.full_name().to_string();
            (op, line_col(sources, m.op_span(l.op)), 1, l.program.as_ref().map(|p| p.stats()).map_err(|e| e.0.clone()))
        })
        .collect()
}

/// Rows of [`stats_table`] for a run under `--exec vector`: one per op in source order, its
/// executions summed.
pub fn run_rows(sources: &SourceMap, log: &[pto_sim::interp::VectorRecord]) -> Vec<CostRow> {
    let mut rows: Vec<(u32, CostRow)> =
        log.iter().map(|r| (r.span.start, (r.op.clone(), line_col(sources, r.span), r.runs, r.cost.clone()))).collect();
    rows.sort_by_key(|(start, _)| *start);
    rows.into_iter().map(|(_, row)| row).collect()
}
