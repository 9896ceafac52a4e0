//! `tcolargmax` / `tcolargmin` (`a2a3/TColReduceIdx.hpp`).
//!
//! Per column block of one iteration (`gap` elements; the tail under counter mode):
//! `tmp[0, gap)` is a row counter, `tmp[gap, 2·gap)` the running best values and — for 16-bit
//! sources in index-only mode — `tmp[2·gap, 3·gap)` the running index (otherwise the index lives
//! in the destination). Row 0 seeds the best values; for every further row the counter goes
//! up by one, `vcmp_ge` (argmin: `vcmp_le`) of best against the row sets CMPMASK, `vsel` keeps
//! the old index where the best is still at least as good (so ties keep the first row) and
//! takes the counter elsewhere, and `vmax`/`vmin` updates the best. 16-bit indices are widened
//! to 32 bits through f16 (`vconv`), exact while the row index is at most 2048.

use super::ir::{BinKind, CmpKind, Mask, Op, Operand, Program, Scalar, ScalarKind};
use super::{Emit, NotLowered, TileOp};
use pto_ir::ops::Opcode;
use pto_ir::types::ElemType;

/// The comparisons are typed as floats, whatever the source type (u16/u32 sources are
/// compared as f16/f32 bit patterns).
fn compare_type(t: ElemType) -> ElemType {
    if t.size_bytes() == 2 { ElemType::F16 } else { ElemType::F32 }
}

/// The integer type of the row counter and running index.
fn index_type(t: ElemType) -> ElemType {
    if t.size_bytes() == 2 { ElemType::I16 } else { ElemType::I32 }
}

/// `tcolargmax`, `tcolargmin`.
pub fn cols(op: &TileOp) -> Result<Program, NotLowered> {
    let max = op.opcode == Opcode::TColArgMax;
    let src = op.tile("src")?;
    let tmp = op.tile("tmp")?;
    let (idx, val) = match op.tile("idx") {
        Ok(i) => (i, Some(op.tile("val")?)),
        Err(_) => (op.tile("dst")?, None),
    };
    if !matches!(src.dtype.size_bytes(), 2 | 4) || !src.row_major {
        return Err(NotLowered(format!("{} sources have no A2A3 column arg-reduction", src.dtype.name())));
    }
    let (epr, epb) = (src.epr() as u64, src.epb() as u64);
    let (vr, vc) = (src.vrows as u64, src.vcols as u64);
    let full_blocks = vc / epr;
    let gap = if full_blocks > 0 { epr } else { vc.div_ceil(epb) * epb };
    let es = src.es();
    let sixteen = es == 2;
    let (cmp_t, idx_t) = (compare_type(src.dtype), index_type(src.dtype));
    let counter = tmp.at(0);
    let best = Operand::at(tmp.region(), gap * es);
    let running_in_tmp = sixteen && val.is_none();
    let mut e = Emit::default();
    let block = |e: &mut Emit, b: u64, mask: Mask, n: u64| {
        let col = b * epr;
        let repeat = 1;
        // Where the running index of this block lives.
        let index = if running_in_tmp { Operand::at(tmp.region(), 2 * gap * es) } else { Operand::at(idx.region(), col * idx.es()) };
        e.push(Op::Dup(Scalar::Int(0)), idx_t, repeat, mask, vec![counter]);
        e.push(Op::Dup(Scalar::Int(0)), idx_t, repeat, mask, vec![index]);
        let len = (n * es).div_ceil(32) as u32;
        e.push(Op::Copy { n_burst: 1, len_burst: len, src_gap: 0, dst_gap: 0 }, src.dtype, 0, Mask::FULL, vec![best, src.at(col)]);
        for r in 1..vr {
            let row = src.at(r * src.cols as u64 + col);
            e.push(Op::Scalar(ScalarKind::Add, Scalar::Int(1)), idx_t, repeat, mask, vec![counter, counter]);
            e.push(Op::Cmp(if max { CmpKind::Ge } else { CmpKind::Le }), cmp_t, repeat, mask, vec![best, row]);
            e.push(Op::Select { mode: 0 }, idx_t, repeat, mask, vec![index, index, counter]);
            e.push(Op::Bin(if max { BinKind::Max } else { BinKind::Min }), cmp_t, repeat, mask, vec![best, best, row]);
        }
        if running_in_tmp {
            // int16 → f16 in place, then f16 → int32 into the destination (two iterations).
            e.push(Op::Convert { to: ElemType::F16 }, ElemType::I16, repeat, mask, vec![index, index]);
            let wide = Operand::at(idx.region(), col * idx.es()).strides(1, 8);
            let conv_mask = match mask {
                Mask::Counter(c) => Mask::Counter(c),
                _ => Mask::Counter(n),
            };
            e.push(Op::Convert { to: idx.dtype }, ElemType::F16, 0, conv_mask, vec![wide, index.strides(1, 4)]);
        }
        if let Some(v) = val {
            e.push(Op::Copy { n_burst: 1, len_burst: len, src_gap: 0, dst_gap: 0 }, src.dtype, 0, Mask::FULL, vec![v.at(col), best]);
        }
    };
    for b in 0..full_blocks {
        block(&mut e, b, Mask::FULL, epr);
    }
    let tail = vc % epr;
    if tail > 0 {
        block(&mut e, full_blocks, Mask::Counter(tail), tail);
    }
    Ok(e.prog)
}
