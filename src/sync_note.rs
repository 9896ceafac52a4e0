//! The `SYNC_NOT_CHECKED` note of `pto run --sync-check=auto` for a program without sync ops
//! (docs/sync.md, "Programs without sync ops").
//!
//! The note is only worth its lines where sync matters: when the kernel's ops run on two or
//! more pipes (a `tload` on MTE2 feeding a `tadd` on V...), whose order automatic sync insertion
//! would have to provide. A program on one pipe — a PTO-AS snippet of vector ops on tile
//! arguments — gets none. The note points at the entry function's first line (or, in a file
//! without functions, at the first op on a second pipe), never at the top of the file.

use pto_ir::diag::{DiagClass, Diagnostic, SourceMap, Span};
use pto_ir::module::{Module, OpId};
use pto_ir::ops::Opcode;
use pto_lower::TargetId;
use pto_sim::sync::effects::pipe_of;
use pto_sim::sync::model::Pipe;

/// The note for lowered module `m` run on `target`, or `None` when its ops use one pipe.
pub fn not_checked(sources: &SourceMap, m: &Module, target: TargetId) -> Option<Diagnostic> {
    let loc = |v: pto_ir::ValueId| m.value_type(v).tile().map(|t| t.loc);
    // Every pipe in order of first use, and the first op on the second one.
    let (mut pipes, mut second): (Vec<Pipe>, Option<OpId>) = (Vec::new(), None);
    for op in m.walk() {
        // The scalar pipe orders itself against the others: only the hazard-checked pipes count.
        let Some(pipe) = pipe_of(m, op, target, false, &loc).filter(|&p| p != Pipe::S) else { continue };
        if !pipes.contains(&pipe) {
            pipes.push(pipe);
            second = second.or((pipes.len() == 2).then_some(op));
        }
    }
    let op = second?;
    let names: Vec<&str> = pipes.iter().map(|p| p.name()).collect();
    let (last, rest) = names.split_last()?;
    let span = entry_function(m).map_or_else(|| m.op_span(op), |f| header(sources, m.op_span(f)));
    Some(
        Diagnostic::note(
            DiagClass::SyncNotChecked,
            span,
            format!(
                "pipe sync not checked: the kernel's ops run on {} and {last} with no sync op, so it relies on automatic sync \
                 insertion (as `ptoas --enable-insert-sync`)",
                rest.join(", ")
            ),
        )
        .with_note("orders between cores, blocks and ranks are checked all the same (insertion never adds them)")
        .with_note(
            "`--insert-sync` runs it with the sync `pto lower --insert-sync` inserts, and checks that; `--sync-check=always` checks \
             the pipes as written; `-q` leaves this note out",
        ),
    )
}

/// Where a note about the whole program points: the entry function's header, else the first
/// op (a PTO-AS file), never the top of the file.
pub fn program_span(sources: &SourceMap, m: &Module) -> Span {
    match entry_function(m) {
        Some(f) => header(sources, m.op_span(f)),
        None => m.walk().first().map(|&op| m.op_span(op)).unwrap_or_default(),
    }
}

/// The function `pto run` executes: the one marked `pto.entry`, else the first with a body.
fn entry_function(m: &Module) -> Option<OpId> {
    let funcs: Vec<OpId> = m.walk().into_iter().filter(|&op| m.op(op).opcode == Opcode::FuncFunc && !m.op(op).regions.is_empty()).collect();
    funcs.iter().copied().find(|&f| m.op(f).attr("pto.entry").is_some()).or(funcs.first().copied())
}

/// A function's span cut to its header: `func.func @name`, up to its argument list (or the end
/// of its first line).
fn header(sources: &SourceMap, span: Span) -> Span {
    let Some(f) = sources.get(span.file) else { return span };
    let from = (span.start as usize).min(f.text.len());
    let len = f.text[from..].find(['(', '\n']).unwrap_or(f.text.len() - from);
    Span { end: span.end.min(span.start + len as u32), ..span }
}
