//! Pass `bufferize`: Level-1 tile values (`!pto.tile`) to Level-2 tile buffers
//! (`!pto.tile_buf`, `pto.alloc_tile`, `ins(...) outs(...)`).
//!
//! * every SSA tile op `%d = pto.op %a, %b` becomes `pto.op ins(%a, %b) outs(%buf)`;
//! * `%buf` is the buffer of a dead input when the op may run in place (elementwise families;
//!   same tile type; the input is not a function argument — arguments belong to the caller —
//!   and not used again later; the input is neither the op's scratch `tmp`, which the
//!   implementation writes while it reads the sources and writes `dst`, nor a slot the target's
//!   legality table keeps apart from `dst` with a `Distinct` check, e.g. A2A3 `txor`'s
//!   sources, npu/a2a3/TXor.hpp:43-46), otherwise a new `pto.alloc_tile` inserted right before
//!   the op;
//! * uses of `%d` after the op read `%buf`;
//! * every remaining `!pto.tile` type (arguments, scratch allocations, loop-carried values,
//!   function results) becomes the `!pto.tile_buf` with the same description.
//!
//! Modules that are already Level 2/3 are left unchanged.

use crate::binding::bind;
use crate::legality::{CheckKind, table};
use crate::liveness::Liveness;
use crate::pipeline::Changed;
use crate::target::{Target, TargetId};
use pto_ir::diag::Diagnostics;
use pto_ir::module::{BlockId, Module, OpData, OpId, Payload, TextForm, ValueDef, ValueId};
use pto_ir::ops::{Family, Opcode, Syntax};
use pto_ir::types::{Type, TypeId};
use std::collections::HashSet;

/// Families whose ops read and write each element independently, so `dst` may alias `src`.
fn in_place_family(f: Family) -> bool {
    matches!(f, Family::ElemBinary | Family::Bitwise | Family::Unary | Family::TileScalar | Family::Ternary | Family::Expand)
}

/// Runs the pass.
pub fn run(m: &mut Module, target: &Target, _notes: &mut Diagnostics) -> Result<Changed, Diagnostics> {
    let has_tiles = m.values.iter().any(|v| matches!(m.types.get(v.ty), Type::Tile(_)));
    if !has_tiles {
        return Ok(Changed::No);
    }
    let live = Liveness::compute(m);
    let n_orig = m.values.len();
    // The buffer each original value lives in (identity for values that stay as they are).
    let mut subst: Vec<ValueId> = (0..n_orig as u32).map(ValueId).collect();
    let used_names: HashSet<String> = m.values.iter().map(|v| v.name.clone()).collect();
    let blocks: Vec<BlockId> = (0..m.blocks.len() as u32).map(BlockId).collect();
    for b in blocks {
        let old = std::mem::take(&mut m.blocks[b.index()].ops);
        let mut new_ops = Vec::with_capacity(old.len());
        for op in old {
            let orig_ins: Vec<ValueId> = m.op(op).ins().to_vec();
            let apart = kept_apart_from_dst(m, op, target.id);
            let data = m.op_mut(op);
            for v in data.operands.iter_mut().chain(data.waits.iter_mut()) {
                *v = subst.get(v.index()).copied().unwrap_or(*v);
            }
            let data = m.op(op);
            let spec = data.opcode.spec();
            let is_ssa_tile_op = spec.syntax == Syntax::Tile
                && data.outs().is_empty()
                && !data.results.is_empty()
                && data.results.iter().all(|r| matches!(m.value_type(*r), Type::Tile(_)));
            if !is_ssa_tile_op {
                new_ops.push(op);
                continue;
            }
            let p = live.pos[op.index()];
            let results = data.results.clone();
            let mut outs: Vec<ValueId> = Vec::with_capacity(results.len());
            for &r in &results {
                let want = m.values[r.index()].ty;
                // In place: an input whose value dies here, of the same type, not a caller's argument.
                let reuse = if in_place_family(spec.family) {
                    orig_ins.iter().enumerate().filter(|(i, _)| !apart.contains(i)).find_map(|(_, &o)| {
                        let buf = subst[o.index()];
                        let ok = m.values[buf.index()].ty == want
                            && !matches!(m.values[buf.index()].def, ValueDef::BlockArg(..))
                            && live.dead_after(o, p)
                            && !outs.contains(&buf);
                        ok.then_some(buf)
                    })
                } else {
                    None
                };
                let buf = match reuse {
                    Some(v) => v,
                    None => {
                        let name = fresh_name(&used_names, &m.values[r.index()].name, m.values.len());
                        let (alloc, buf) = new_alloc(m, want, name, m.op_span(op));
                        new_ops.push(alloc);
                        buf
                    }
                };
                subst[r.index()] = buf;
                outs.push(buf);
            }
            let data = m.op_mut(op);
            data.results.clear();
            data.operands.truncate(data.num_ins as usize);
            data.operands.extend(outs);
            new_ops.push(op);
        }
        m.blocks[b.index()].ops = new_ops;
    }
    // Uses in blocks processed before the definition's block (e.g. an enclosing block's later
    // ops) are rewritten here; the substitution is idempotent.
    for data in &mut m.ops {
        for v in data.operands.iter_mut().chain(data.waits.iter_mut()) {
            *v = subst.get(v.index()).copied().unwrap_or(*v);
        }
    }
    retype_tiles(m);
    m.form = Some(TextForm::Dps);
    Ok(Changed::Yes)
}

/// Indices among `op`'s ins whose buffer must not become its `dst`: the scratch slot `tmp`
/// (written while the op reads its sources and writes `dst`, so it is a third buffer in every
/// implementation) and every slot the target's effective legality rule keeps apart from `dst`
/// (`CheckKind::Distinct`). An op no form matches keeps every input eligible (legalize has
/// already reported it).
fn kept_apart_from_dst(m: &Module, op: OpId, target: TargetId) -> Vec<usize> {
    let Some((form, bound)) = bind(m, op) else { return Vec::new() };
    let eff = table(target).effective(m.op(op).opcode, Some(form));
    let distinct_from_dst = |slot: &str| {
        eff.as_ref().is_some_and(|e| {
            e.checks.iter().any(|c| matches!(c.kind, CheckKind::Distinct(a, b) if (a, b) == (slot, "dst") || (a, b) == ("dst", slot)))
        })
    };
    bound
        .iter()
        .filter(|b| b.position.segment == "ins" && (b.slot == "tmp" || distinct_from_dst(b.slot)))
        .map(|b| b.position.index)
        .collect()
}

/// A name for the buffer of value `base`, unused in `used`. A member of a result group (`d#0`)
/// gives `d_0_buf`: `%d#0_buf` would not parse back (`#N` ends a value reference).
fn fresh_name(used: &HashSet<String>, base: &str, salt: usize) -> String {
    let base = if base.is_empty() { "buf".to_string() } else { base.replace('#', "_") };
    let candidate = format!("{base}_buf");
    if !used.contains(&candidate) { candidate } else { format!("{base}_buf{salt}") }
}

/// `%name = pto.alloc_tile : ty` (not yet placed in a block).
fn new_alloc(m: &mut Module, ty: TypeId, name: String, span: pto_ir::diag::Span) -> (OpId, ValueId) {
    let mut data = OpData::new(Opcode::AllocTile);
    data.payload = Payload::Segments(vec![0, 0, 0]);
    let op = m.add_op(data, span);
    let v = m.add_result(op, ty, name, span);
    (op, v)
}

/// Every `!pto.tile<D>` type becomes `!pto.tile_buf<D>` (values and function signatures).
fn retype_tiles(m: &mut Module) {
    m.retype(|t| match t {
        Type::Tile(d) => Some(Type::TileBuf(*d)),
        _ => None,
    });
}
