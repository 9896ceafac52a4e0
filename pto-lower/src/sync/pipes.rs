//! The pipe of each op and the operands it reads and writes, shared by the `insert-sync` pass
//! and pto-sim's sync checker (`pto-sim/src/sync/effects.rs`, which cites the source of each
//! refinement of the op table's `pipe` column).

use crate::target::TargetId;
use pto_ir::module::{Module, OpId, ValueId};
use pto_ir::ops::{Opcode, Pipe, PipeFacts, Syntax, TmpRule};
use pto_ir::types::Loc;

/// Whether the op reads its destination too (the op table's `reads_dst` effect).
pub fn reads_dst(op: Opcode) -> bool {
    op.parsed().effects.reads_dst
}

/// Whether `op` accesses memory on a pipe: tile ops, `tgetval` / `tsetval`, `tprint`, and the
/// pushes and pops of a cube/vector pipe ([`slot_tile`]).
pub fn is_memory_op(op: Opcode) -> bool {
    op.spec().syntax == Syntax::Tile || op.parsed().effects.memory || is_slot_op(op)
}

/// The pushes and pops of a pipe between cores that move a tile ([`slot_tile`]).
pub fn is_slot_op(op: Opcode) -> bool {
    let e = op.parsed().effects;
    e.push || e.pop
}

/// Whether op `op` places the tile it writes only as it executes: a pop binds its tile to the
/// slot it pops, so a dynamic checker sees that tile's bytes after the op, not before.
pub fn places_its_tile(op: Opcode) -> bool {
    op.parsed().effects.pop
}

/// The local tile a push reads or a pop writes (`write`), for the pushes and pops that move a
/// tile:
///
/// - a push (`tpush_to_aiv`, `tpush_to_aic`, `tpush(%tile, %pipe)`) reads its tile: pto-isa's
///   TPUSH stores it into the slot (A2A3 `TSTORE` to the GM FIFO, `npu/a2a3/TPush.hpp`
///   `pushAcc2GMFiFo` / `pushVec2GMFiFo`; A5 `TMOV` acc -> vec and `TINSERT` vec -> mat,
///   `npu/a5/TPush.hpp:214-264`);
/// - a pop (`tpop_from_aic`, `tpop_from_aiv`, `tpop(%tile, %pipe)`) writes its tile: on A2A3
///   pto-isa's TPOP loads the slot from the GM FIFO into the consumer's buffer with `TLOAD`
///   and no trailing sync (`npu/a2a3/TPush.hpp` `popVecTileFromGMFiFo` /
///   `popMatTileFromGMFiFo`), so what reads the popped tile waits for MTE2 (PTOAS
///   `TPopOp::getPipe`: `PIPE_MTE2` on A2A3). On A5 the producer writes the consumer's buffer
///   and the pop only waits for it: no access of the consumer's.
///
/// The GM-slot forms (a push of a slot view, a pop returning one) move no tile: `None`.
pub fn slot_tile(m: &Module, op: OpId, target: TargetId) -> Option<(ValueId, bool)> {
    let data = m.op(op);
    let effects = data.opcode.parsed().effects;
    let tile = |v: Option<&ValueId>| v.copied().filter(|&v| m.value_type(v).tile().is_some());
    if effects.push {
        return tile(data.operands.first()).map(|v| (v, false));
    }
    if !effects.pop || target != TargetId::A2A3 {
        return None;
    }
    // `tpop(%tile, %pipe)` names its tile; `%t = tpop_from_aic` returns it.
    let popped = if data.results.is_empty() { data.operands.first() } else { data.results.first() };
    tile(popped).map(|v| (v, true))
}

/// The value bound to the op's scratch (`tmp`) slot, if it has one.
pub fn tmp_of(m: &Module, op: OpId) -> Option<ValueId> {
    let spec = m.op(op).opcode.spec();
    if spec.tmp.a2a3 == TmpRule::Forbidden && spec.tmp.a5 == TmpRule::Forbidden {
        return None;
    }
    crate::binding::bind(m, op).and_then(|(_, b)| b.iter().find(|b| b.slot == "tmp").map(|b| b.value))
}

/// The pipe op `op` runs on, given its operands' locations and whether it has a `tmp`: the op
/// table's `pipe`, or the first of its `pipes` rules that holds for the target, the location of
/// the first source and destination (for a push or pop, of the tile it moves: [`slot_tile`])
/// and the scratch tile (`None` for an op on no pipe).
pub fn pipe_of(m: &Module, op: OpId, target: TargetId, has_tmp: bool, loc: &dyn Fn(ValueId) -> Option<Loc>) -> Option<Pipe> {
    let data = m.op(op);
    let mut facts = PipeFacts { a5: target == TargetId::A5, has_tmp, src: None, dst: None };
    if is_slot_op(data.opcode) {
        let (tile, write) = slot_tile(m, op, target)?;
        let tile_loc = m.value_type(tile).tile().map(|t| t.loc);
        if write { facts.dst = tile_loc } else { facts.src = tile_loc }
    } else {
        facts.src = data.ins().first().and_then(|&v| loc(v));
        facts.dst = data.outs().first().and_then(|&v| loc(v));
    }
    let pipe = data.opcode.pipe_for(&facts);
    (pipe != Pipe::None).then_some(pipe)
}

/// Calls `f(value, write)` for each tile or view operand access of memory op `op`, in operand
/// order: `ins` read, `outs` written, the `tmp` read and written, a destination the op also
/// reads (`tmuladddst`...) written then read; `tsetval` writes its tile; a push or pop the
/// tile [`slot_tile`] gives (its result, for `tpop_from_aic` / `tpop_from_aiv`).
pub fn operand_accesses(m: &Module, op: OpId, target: TargetId, tmp: Option<ValueId>, mut f: impl FnMut(ValueId, bool)) {
    let data = m.op(op);
    if is_slot_op(data.opcode) {
        if let Some((tile, write)) = slot_tile(m, op, target) {
            f(tile, write);
        }
        return;
    }
    if data.opcode == Opcode::TSetVal {
        // `ins(%dst, %index, %value)` or PTOAS's `ins(%index, %value) outs(%dst)`.
        if let Some(&t) = data.outs().first().or(data.operands.first()) {
            f(t, true);
        }
        return;
    }
    for (&v, write) in data.ins().iter().map(|v| (v, false)).chain(data.outs().iter().map(|v| (v, true))) {
        let rmw = Some(v) == tmp || (write && reads_dst(data.opcode));
        f(v, write || rmw);
        if rmw {
            f(v, false);
        }
    }
}

/// Whether `ty` is a `memref<..., #pto.address_space<gm>>` (PTOAS's GM operands).
pub fn is_gm_memref(ty: &pto_ir::types::Type) -> bool {
    let pto_ir::types::Type::Opaque(text) = ty else { return false };
    text.starts_with("memref<") && text.trim_end_matches('>').ends_with("#pto.address_space<gm")
}

/// The on-chip buffer a `memref<..., #pto.address_space<vec>>` type lives in (PTOAS's
/// `memref.alloc` buffers keep that type through pto's pipeline); `None` for any other type or
/// an address space that is not on-chip (`gm`).
pub fn memref_loc(ty: &pto_ir::types::Type) -> Option<Loc> {
    let pto_ir::types::Type::Opaque(text) = ty else { return None };
    let inner = text.strip_prefix("memref<")?.strip_suffix('>')?;
    let space = inner.rsplit_once(',')?.1.trim();
    let name = space.strip_prefix("#pto.address_space<")?.strip_suffix('>')?;
    Loc::ALL.iter().find(|(_, n)| *n == name).map(|(l, _)| *l)
}

/// Whether `target` needs `pipe_barrier(P)` between two dependent ops of pipe `p` (the pipes
/// it does not keep in order; pto-sim's `sync/rules.rs` gives the sources): A2A3 every pipe but
/// the scalar one, A5 only MTE2 and MTE3.
pub fn needs_barrier(target: TargetId, p: Pipe) -> bool {
    match target {
        TargetId::A2A3 => p != Pipe::S,
        TargetId::A5 => matches!(p, Pipe::Mte2 | Pipe::Mte3),
    }
}

/// The event ids a (source, destination) pipe pair may use: 8 (`EVENT_ID0..7`, pto-isa
/// `EVENT_ID_MAX 8`), except A2A3's `PIPE_M` -> `PIPE_FIX`, which keeps to `EVENT_ID0..2`
/// (ptoas#112/#118).
pub fn event_ids(target: TargetId, src: Pipe, dst: Pipe) -> u32 {
    if target == TargetId::A2A3 && src == Pipe::M && dst == Pipe::Fix { 3 } else { 8 }
}

/// The `PIPE_x` name of a pipe ([`Pipe::cpp_name`]; `PIPE_NONE` for none).
pub fn pipe_name(p: Pipe) -> &'static str {
    p.cpp_name().unwrap_or("PIPE_NONE")
}

/// Whether op `op` is an explicit intra-core sync op (the op table's `orders` effect: flags,
/// events, barriers, buffer ids, `tsync`).
pub fn is_explicit_sync(op: Opcode) -> bool {
    op.parsed().effects.orders
}
