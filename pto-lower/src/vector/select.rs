//! Compare, select and gather (`a2a3/TCmps.hpp`, `TSel.hpp`, `TGather.hpp`).
//!
//! * `tcmps`: per row, one `vcmpvs` over `⌈validCol / epr⌉` full iterations writing one bit per
//!   lane (LSB first) at `dst + row × dst.Cols` bytes. 16-bit integers are compared as f16 bit
//!   patterns and 32-bit integers only for equality (every other mode becomes EQ), as the A2A3
//!   instructions do; NE is EQ followed by `vnot` of the written bytes.
//! * `tsel`: per row, the mask row's address is duplicated into `tmp`, loaded into CMPMASK with
//!   `set_cmpmask`, and `vsel` mode 2 reads the row's bits from UB (counter mode, `validCol`).
//! * `tgather` (index form): `vmuls` turns element indices into byte offsets (into `dst` for
//!   32-bit data, into `tmp` for 16-bit data), then `vgather` loads every element.

use super::ir::{CmpKind, Mask, Op, Operand, Program, Scalar, ScalarKind};
use super::{Emit, NotLowered, TileOp};
use pto_ir::types::ElemType;

/// `tcmps`.
pub fn compare_scalar(op: &TileOp) -> Result<Program, NotLowered> {
    let (dst, src) = (op.tile("dst")?, op.tile("src")?);
    let cmp = op.cmp.ok_or_else(|| NotLowered("no cmpMode".into()))?;
    let scalar = op.scalar()?;
    let (dtype, cmp) = match src.dtype {
        ElemType::F32 | ElemType::F16 => (src.dtype, cmp),
        ElemType::I16 | ElemType::U16 => (ElemType::F16, cmp),
        ElemType::I32 => (ElemType::I32, if cmp == CmpKind::Ne { CmpKind::Ne } else { CmpKind::Eq }),
        other => return Err(NotLowered(format!("tcmps of {} has no A2A3 path", other.name()))),
    };
    // 16-bit integers: the scalar's bits, read as f16.
    let scalar = match (src.dtype, scalar) {
        (ElemType::I16 | ElemType::U16, Scalar::Int(i)) => Scalar::Float(half::f16::from_bits(i as u16).to_f64()),
        (_, s) => s,
    };
    let epr = src.epr() as u64;
    let repeats = (src.vcols as u64).div_ceil(epr);
    let bytes_per_row = repeats * epr / 8;
    // `vcmpvs` reads whole iterations: past the valid columns, and past the tile when a row
    // is narrower than one iteration. The hardware reads those UB bytes (their bits are
    // don't-cares); the operand's region says so, so that only reads beyond them trap.
    let mut src_region = src.region();
    let last_row_end = (src.vrows.max(1) as u64 - 1) * src.cols as u64 * src.es() + repeats * 256;
    src_region.len = src_region.len.max(last_row_end);
    src_region.name = "src (whole iterations)";
    let mut e = Emit::default();
    for row in 0..src.vrows as u64 {
        let d = Operand::at(dst.region(), row * dst.cols as u64 * dst.es());
        let s = Operand::at(src_region, row * src.cols as u64 * src.es());
        let first = if cmp == CmpKind::Ne { CmpKind::Eq } else { cmp };
        e.push(Op::CmpScalar(first, scalar), dtype, repeats as u32, Mask::FULL, vec![d, s]);
        if cmp == CmpKind::Ne {
            e.push(Op::Not, ElemType::U16, 0, Mask::Counter(bytes_per_row / 2), vec![d, d]);
        }
    }
    Ok(e.prog)
}

/// `tsel`.
pub fn select(op: &TileOp) -> Result<Program, NotLowered> {
    let (dst, mask, s0, s1) = (op.tile("dst")?, op.tile("mask")?, op.tile("src0")?, op.tile("src1")?);
    let tmp = op.tile("tmp")?;
    if !matches!(dst.dtype.size_bytes(), 2 | 4) {
        return Err(NotLowered(format!("tsel of {} has no A2A3 path", dst.dtype.name())));
    }
    let words = if dst.es() == 2 { 4 } else { 2 };
    let mut e = Emit::default();
    for row in 0..dst.vrows as u64 {
        let mask_row = mask.addr + row * mask.cols as u64 * mask.es();
        e.push(Op::Dup(Scalar::Int(mask_row as i64)), ElemType::U32, 0, Mask::Counter(words), vec![tmp.at(0)]);
        e.push(Op::SetCmpMask, ElemType::U32, 0, Mask::FULL, vec![tmp.at(0)]);
        let at = |t: &super::VTile| t.at(row * t.cols as u64);
        e.push(Op::Select { mode: 2 }, dst.dtype, 0, Mask::Counter(dst.vcols as u64), vec![at(dst), at(s0), at(s1)]);
    }
    Ok(e.prog)
}

/// `tgather`, index form.
pub fn gather(op: &TileOp) -> Result<Program, NotLowered> {
    if op.has("k") || !op.has("indices") {
        return Err(NotLowered("only the index form of tgather has a vector lowering".into()));
    }
    let (dst, src, idx) = (op.tile("dst")?, op.tile("src")?, op.tile("indices")?);
    if !matches!(dst.dtype.size_bytes(), 2 | 4) || idx.dtype.size_bytes() != 4 {
        return Err(NotLowered(format!("tgather of {} with {} indices has no A2A3 path", dst.dtype.name(), idx.dtype.name())));
    }
    let n = (dst.vrows * dst.vcols) as u64;
    let offsets = if dst.es() == 4 { dst.at(0) } else { op.tile("tmp")?.at(0) };
    let mut e = Emit::default();
    e.push(Op::Scalar(ScalarKind::Mul, Scalar::Int(dst.es() as i64)), idx.dtype, 0, Mask::Counter(n), vec![offsets, idx.at(0)]);
    e.push(Op::Gather, dst.dtype, 0, Mask::Counter(n), vec![dst.at(0), offsets, src.at(0)]);
    Ok(e.prog)
}
