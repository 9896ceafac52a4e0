//! Default values of integer kernel arguments (`pto run --default-inputs`).
//!
//! Most integer arguments default to 0. An argument that sizes something gets the size the
//! program declares instead, so a kernel whose valid shapes come from its arguments runs on
//! whole tiles rather than on empty ones (which pto-isa's `tload` rejects against a static view):
//!
//! * it reaches (through integer casts) a `valid_row` / `valid_col` operand of `alloc_tile`:
//!   that tile's row / column capacity (the smallest, when it sizes several tiles);
//! * it reaches a `shape` operand of `make_tensor_view`: the furthest extent (offset plus constant
//!   size) that the view's `partition_view`s take along that dimension (the largest, when it
//!   shapes several views). An offset counts at its largest over the blocks of the launch: a
//!   constant, `get_block_idx` (the last block), `get_block_num`, and sums and products of those
//!   through integer casts — so a block-indexed kernel's view covers every block's band; any other
//!   dynamic offset counts as 0.
//!
//! A valid-shape use wins over a view-shape use.
//!
//! A GM array that is the signal of `tnotify`, `twait` or `ttest` ([`signal_pointers`]) starts
//! at 0, as the host clears a signal buffer before a launch: with the pattern, a rank adding 1
//! to its peer's signal and waiting for at least 1 would wait forever.

use pto_ir::attr::Attr;
use pto_ir::module::{Module, Payload, ValueDef, ValueId};
use pto_ir::ops::Opcode;
use std::collections::HashMap;

/// The block argument `v` is, looking through integer casts (`index_cast`, `extsi`, ...).
fn argument_behind(m: &Module, mut v: ValueId) -> Option<ValueId> {
    for _ in 0..16 {
        match m.values[v.index()].def {
            ValueDef::BlockArg(..) => return Some(v),
            ValueDef::OpResult(op, _) => {
                let data = m.op(op);
                let cast = matches!(
                    data.opcode,
                    Opcode::ArithIndexCast | Opcode::ArithIndexCastui | Opcode::ArithExtsi | Opcode::ArithExtui | Opcode::ArithTrunci
                );
                v = *data.operands.first().filter(|_| cast)?;
            }
        }
    }
    None
}

/// The default of each integer argument that sizes a tile's valid shape or a tensor view
/// (see the module documentation) when the kernel runs on `blocks` blocks; arguments not in the
/// map default to 0.
pub fn size_defaults(m: &Module, blocks: i64) -> HashMap<ValueId, i64> {
    let mut valid: HashMap<ValueId, i64> = HashMap::new();
    let mut shape: HashMap<ValueId, i64> = HashMap::new();
    for data in &m.ops {
        match (data.opcode, &data.payload) {
            (Opcode::AllocTile, Payload::Segments(segs)) if segs.len() >= 3 => {
                let Some(t) = data.results.first().and_then(|&r| m.value_type(r).tile()) else { continue };
                let mut it = data.operands.iter();
                let mut next = |present: u32| if present == 1 { it.next().copied() } else { None };
                let (_addr, vr, vc) = (next(segs[0]), next(segs[1]), next(segs[2]));
                for (v, cap) in [(vr, t.rows), (vc, t.cols)] {
                    if let Some(arg) = v.and_then(|v| argument_behind(m, v)) {
                        let e = valid.entry(arg).or_insert(i64::from(cap));
                        *e = (*e).min(i64::from(cap));
                    }
                }
            }
            (Opcode::MakeTensorView, Payload::Segments(segs)) => {
                let rank = segs.get(1).copied().unwrap_or(0) as usize;
                let Some(&view) = data.results.first() else { continue };
                let extents = partition_extents(m, view, rank, blocks);
                for (d, &v) in data.operands.iter().skip(1).take(rank).enumerate() {
                    if let (Some(arg), Some(&extent)) = (argument_behind(m, v), extents.get(d))
                        && extent > 0
                    {
                        let e = shape.entry(arg).or_insert(extent);
                        *e = (*e).max(extent);
                    }
                }
            }
            _ => {}
        }
    }
    for (arg, extent) in shape {
        valid.entry(arg).or_insert(extent);
    }
    valid
}

/// Per dimension of `view`, the furthest extent (offset at its largest over `blocks` blocks,
/// [`largest`], plus a constant size) its `partition_view`s take (0 where no size is constant).
fn partition_extents(m: &Module, view: ValueId, rank: usize, blocks: i64) -> Vec<i64> {
    let mut extents = vec![0i64; rank];
    for data in m.ops.iter().filter(|d| matches!(d.opcode, Opcode::PartitionView) && d.operands.first() == Some(&view)) {
        let Payload::IndexLists(lists) = &data.payload else { continue };
        let mut dynamic = data.operands.iter().skip(1);
        let resolved: Vec<Vec<Option<i64>>> = lists
            .iter()
            .map(|list| list.iter().map(|e| e.or_else(|| dynamic.next().and_then(|&v| largest(m, v, blocks, 8)))).collect())
            .collect();
        let (Some(offsets), Some(sizes)) = (resolved.first(), resolved.get(1)) else { continue };
        for (d, extent) in extents.iter_mut().enumerate() {
            // A dynamic offset counts as 0: the view holds at least one partition.
            if let Some(Some(size)) = sizes.get(d) {
                let offset = offsets.get(d).copied().flatten().unwrap_or(0);
                *extent = (*extent).max(offset.saturating_add(*size));
            }
        }
    }
    extents
}

/// The largest value `v` takes over the blocks `0..blocks` when it is built from constants,
/// `get_block_idx`, `get_block_num`, integer casts, `addi` and `muli` of non-negative values
/// (`depth` bounds the walk); `None` otherwise.
fn largest(m: &Module, v: ValueId, blocks: i64, depth: u32) -> Option<i64> {
    if let Some(c) = constant(m, v) {
        return Some(c);
    }
    let ValueDef::OpResult(op, _) = m.values[v.index()].def else { return None };
    let data = m.op(op);
    let operand = |i: usize| data.operands.get(i).and_then(|&x| largest(m, x, blocks, depth.checked_sub(1)?)).filter(|&x| x >= 0);
    match data.opcode {
        Opcode::GetBlockIdx => Some(blocks.max(1) - 1),
        Opcode::GetBlockNum => Some(blocks.max(1)),
        Opcode::ArithIndexCast | Opcode::ArithIndexCastui | Opcode::ArithExtsi | Opcode::ArithExtui => operand(0),
        Opcode::ArithAddi => operand(0)?.checked_add(operand(1)?),
        Opcode::ArithMuli => operand(0)?.checked_mul(operand(1)?),
        _ => None,
    }
}

/// The value of `v` when an `arith.constant` defines it.
fn constant(m: &Module, v: ValueId) -> Option<i64> {
    let ValueDef::OpResult(op, _) = m.values[v.index()].def else { return None };
    let data = m.op(op);
    match (data.opcode, data.attr("value")) {
        (Opcode::ArithConstant, Some(Attr::Int(i, _))) => Some(*i),
        _ => None,
    }
}

/// The pointer arguments whose GM array is the signal view of a `tnotify`, `twait` or `ttest`
/// (through `partition_view`, `make_tensor_view` and other views of it).
pub fn signal_pointers(m: &Module) -> Vec<ValueId> {
    let mut out = Vec::new();
    for data in &m.ops {
        if !matches!(data.opcode, Opcode::CommNotify | Opcode::CommWait | Opcode::CommTest) {
            continue;
        }
        let Some(&first) = data.operands.first() else { continue };
        let mut v = first;
        for _ in 0..16 {
            match m.values[v.index()].def {
                ValueDef::BlockArg(..) => {
                    if !out.contains(&v) {
                        out.push(v);
                    }
                    break;
                }
                ValueDef::OpResult(op, _) => {
                    let d = m.op(op);
                    let view = matches!(
                        d.opcode,
                        Opcode::PartitionView | Opcode::MakeTensorView | Opcode::Subview | Opcode::MemrefReinterpretCast
                    );
                    match (view, d.operands.first()) {
                        (true, Some(&src)) => v = src,
                        _ => break,
                    }
                }
            }
        }
    }
    out
}
