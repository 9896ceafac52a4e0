//! Elementwise tile ops (tile-tile, tile-scalar, shifts, `texpands`): the dispatch policy of
//! `a2a3/TBinOp.hpp` (`BinaryInstr`), which `TBinSOp.hpp` and the fills share.
//!
//! * **Small tiles** (`Rows ≤ 255`, `Cols` under one iteration): one instruction, a continuous
//!   mask of `validCol` lanes, one iteration per row (repeat stride = row stride).
//! * **Continuous** tiles (static `ValidCol == Cols`, or one row; at run time also
//!   `validCol == Cols` or one valid row): the tile is one line of `validRow × validCol`
//!   elements — counter mode when the rows are not a whole number of iterations or more than
//!   255 iterations are needed, else full iterations plus one masked tail iteration.
//! * **Otherwise** per row in counter mode (tiny or short tiles), or "row-repeat": one
//!   instruction per column chunk of one iteration with `repeat = validRow` and the row stride
//!   as repeat stride, a masked tail chunk, rows beyond 255 chunked.

use super::ir::{BinKind, Mask, Op, REPEAT_MAX, Scalar, ScalarKind};
use super::{Emit, NotLowered, TileOp, VTile};
use pto_ir::ops::Opcode;
use pto_ir::types::ElemType;

/// One instruction of the policy: element offset (same for every operand), repeat, mask and
/// repeat stride (in blocks, same for every operand).
#[derive(Copy, Clone, Debug, PartialEq)]
struct Call {
    offset: u64,
    repeat: u32,
    mask: Mask,
    rep: u32,
}

/// The instructions `BinaryInstr` issues for a `rows × cols` tile with valid `vr × vc`.
fn calls(t: &VTile) -> Vec<Call> {
    let (rows, cols, vr, vc) = (t.rows as u64, t.cols as u64, t.vrows as u64, t.vcols as u64);
    let (epr, epb) = (t.epr() as u64, t.epb() as u64);
    let mut out = Vec::new();
    if vr == 0 || vc == 0 {
        return out;
    }
    let row_rep = (cols / epb) as u32;
    if rows <= REPEAT_MAX as u64 && cols < epr {
        out.push(Call { offset: 0, repeat: vr as u32, mask: Mask::first(vc as u32), rep: row_rep });
        return out;
    }
    let one_line = |out: &mut Vec<Call>, count_mode: bool| {
        let n = vr * vc;
        if count_mode {
            out.push(Call { offset: 0, repeat: 0, mask: Mask::Counter(n), rep: 8 });
            return;
        }
        let head = n / epr;
        if head > 0 {
            out.push(Call { offset: 0, repeat: head as u32, mask: Mask::FULL, rep: 8 });
        }
        if n % epr > 0 {
            out.push(Call { offset: head * epr, repeat: 1, mask: Mask::first((n % epr) as u32), rep: 8 });
        }
    };
    if t.static_full_cols || rows == 1 {
        let total = (rows * cols).div_ceil(epr);
        one_line(&mut out, (cols % epr != 0 && cols > epr) || total > REPEAT_MAX as u64);
        return out;
    }
    if cols == vc || vr == 1 {
        let total = (vr * vc).div_ceil(epr);
        one_line(&mut out, (vc > epr && vc % epr != 0) || total > REPEAT_MAX as u64);
        return out;
    }
    let per_row_count = |out: &mut Vec<Call>| {
        for i in 0..vr {
            out.push(Call { offset: i * cols, repeat: 0, mask: Mask::Counter(vc), rep: 8 });
        }
    };
    let norm_col_repeat = cols / epr;
    if norm_col_repeat > 1 && rows * norm_col_repeat < 4 {
        per_row_count(&mut out);
    } else if rows < norm_col_repeat + 1 {
        if vc % epr > 0 {
            per_row_count(&mut out);
        } else {
            for i in 0..vr {
                push_chunked(&mut out, i * cols, vc / epr, epr);
            }
        }
    } else {
        row_repeat(&mut out, t);
    }
    out
}

/// Full iterations of one row, in instructions of at most 255 iterations.
fn push_chunked(out: &mut Vec<Call>, offset: u64, repeats: u64, epr: u64) {
    let mut done = 0;
    while done < repeats {
        let n = (repeats - done).min(REPEAT_MAX as u64);
        out.push(Call { offset: offset + done * epr, repeat: n as u32, mask: Mask::FULL, rep: 8 });
        done += n;
    }
}

/// `Bin2LNormModeRowRpt`: column chunks with `repeat = validRow`; rows or strides beyond 255
/// fall back to per-row head iterations and a row-chunked tail.
fn row_repeat(out: &mut Vec<Call>, t: &VTile) {
    let (rows, cols, vr, vc) = (t.rows as u64, t.cols as u64, t.vrows as u64, t.vcols as u64);
    let (epr, epb) = (t.epr() as u64, t.epb() as u64);
    let rep = cols / epb;
    if rows <= REPEAT_MAX as u64 && rep <= REPEAT_MAX as u64 {
        for i in 0..vc / epr {
            out.push(Call { offset: i * epr, repeat: vr as u32, mask: Mask::FULL, rep: rep as u32 });
        }
        if vc % epr > 0 {
            out.push(Call { offset: (vc / epr) * epr, repeat: vr as u32, mask: Mask::first((vc % epr) as u32), rep: rep as u32 });
        }
        return;
    }
    let (mut base, mut remain) = (0, vc);
    if rows > epr {
        for i in 0..vr {
            push_chunked(out, i * cols, vc / epr, epr);
        }
        base = (vc / epr) * epr;
        remain = vc % epr;
    }
    if remain == 0 {
        return;
    }
    // The implementation sets a continuous mask of `remain` lanes even when `remain` exceeds
    // one iteration (only reachable with rows ≤ epr and a row stride over 255 blocks): the
    // lanes beyond one iteration are then not computed — reproduced as is.
    let mask = Mask::first(remain.min(epr) as u32);
    let mut row = 0;
    while row < vr {
        let n = (vr - row).min(REPEAT_MAX as u64);
        if rep > REPEAT_MAX as u64 {
            for j in 0..n {
                out.push(Call { offset: base + (row + j) * cols, repeat: 1, mask, rep: 1 });
            }
        } else {
            out.push(Call { offset: base + row * cols, repeat: n as u32, mask, rep: rep as u32 });
        }
        row += n;
    }
}

/// Issues `op` over `tiles` (destination first) following the policy of `tiles[0]`'s shape.
fn issue(e: &mut Emit, op: Op, dtype: ElemType, tiles: &[&VTile]) -> Result<(), NotLowered> {
    let d = tiles[0];
    for t in tiles {
        if (t.rows, t.cols, t.vrows, t.vcols) != (d.rows, d.cols, d.vrows, d.vcols) || !t.row_major {
            return Err(NotLowered(format!(
                "elementwise operands of different shapes or layouts (`{}` {}x{} valid {}x{}, `{}` {}x{} valid {}x{}); the A2A3 policy assumes one shape",
                d.slot, d.rows, d.cols, d.vrows, d.vcols, t.slot, t.rows, t.cols, t.vrows, t.vcols
            )));
        }
    }
    for c in calls(d) {
        let operands = tiles.iter().map(|t| t.at(c.offset).strides(1, c.rep)).collect();
        e.push(op, dtype, c.repeat, c.mask, operands);
    }
    Ok(())
}

fn supported(t: &VTile) -> Result<(), NotLowered> {
    if t.dtype.size_bytes() == 1 || t.dtype.size_bytes() > 4 {
        return Err(NotLowered(format!("{} elements: A2A3 has no vector instruction for them", t.dtype.name())));
    }
    Ok(())
}

/// `tadd`, `tsub`, `tmul`, `tdiv`, `tmax`, `tmin`, `tand`, `tor`.
pub fn binary(op: &TileOp) -> Result<super::ir::Program, NotLowered> {
    let kind = match op.opcode {
        Opcode::TAdd => BinKind::Add,
        Opcode::TSub => BinKind::Sub,
        Opcode::TMul => BinKind::Mul,
        Opcode::TDiv => BinKind::Div,
        Opcode::TMax => BinKind::Max,
        Opcode::TMin => BinKind::Min,
        Opcode::TAnd => BinKind::And,
        _ => BinKind::Or,
    };
    let (dst, s0, s1) = (op.tile("dst")?, op.tile("src0")?, op.tile("src1")?);
    supported(dst)?;
    let mut e = Emit::default();
    issue(&mut e, Op::Bin(kind), dst.dtype, &[dst, s0, s1])?;
    Ok(e.prog)
}

/// `tadds`, `tsubs` (as `vadds` of the negated scalar), `tmuls`, `tmaxs`, `tmins`, `tshls`,
/// `tshrs` (with `round`: the rounding shift).
pub fn with_scalar(op: &TileOp) -> Result<super::ir::Program, NotLowered> {
    let (dst, src) = (op.tile("dst")?, op.tile("src")?);
    supported(dst)?;
    let s = op.scalar()?;
    let (kind, s) = match op.opcode {
        Opcode::TAdds => (ScalarKind::Add, s),
        Opcode::TSubs => (
            ScalarKind::Add,
            match s {
                Scalar::Int(i) => Scalar::Int(i.wrapping_neg()),
                Scalar::Float(f) => Scalar::Float(-f),
                Scalar::Unknown => Scalar::Unknown,
            },
        ),
        Opcode::TMuls => (ScalarKind::Mul, s),
        Opcode::TMaxs => (ScalarKind::Max, s),
        Opcode::TMins => (ScalarKind::Min, s),
        Opcode::TShls => (ScalarKind::Shl, s),
        _ if op.flag => (ScalarKind::ShrRound, s),
        _ => (ScalarKind::Shr, s),
    };
    let mut e = Emit::default();
    issue(&mut e, Op::Scalar(kind, s), dst.dtype, &[dst, src])?;
    Ok(e.prog)
}

/// `texpands`: `vector_dup` over the valid region.
pub fn fill(op: &TileOp) -> Result<super::ir::Program, NotLowered> {
    let dst = op.tile("dst")?;
    supported(dst)?;
    let mut e = Emit::default();
    issue(&mut e, Op::Dup(op.scalar()?), dst.dtype, &[dst])?;
    Ok(e.prog)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tile(dtype: ElemType, rows: u32, cols: u32, vr: u32, vc: u32) -> VTile {
        VTile {
            slot: "dst",
            addr: 0,
            bytes: (rows * cols * dtype.size_bytes()) as u64,
            dtype,
            rows,
            cols,
            vrows: vr,
            vcols: vc,
            static_full_cols: vc == cols,
            static_valid: true,
            row_major: true,
        }
    }

    #[test]
    fn continuous_64x64_f32_is_64_full_iterations() {
        let c = calls(&tile(ElemType::F32, 64, 64, 64, 64));
        assert_eq!(c, vec![Call { offset: 0, repeat: 64, mask: Mask::FULL, rep: 8 }]);
    }

    #[test]
    fn small_tile_masks_valid_columns_and_strides_by_row() {
        let c = calls(&tile(ElemType::F32, 16, 32, 10, 20));
        assert_eq!(c, vec![Call { offset: 0, repeat: 10, mask: Mask::first(20), rep: 4 }]);
    }

    #[test]
    fn partial_columns_use_row_repeat_with_a_masked_tail() {
        let mut t = tile(ElemType::F32, 16, 256, 16, 200);
        t.static_full_cols = false;
        let c = calls(&t);
        assert_eq!(c.len(), 4);
        assert_eq!(c[3], Call { offset: 192, repeat: 16, mask: Mask::first(8), rep: 32 });
    }

    #[test]
    fn more_than_255_iterations_switch_to_counter_mode() {
        let c = calls(&tile(ElemType::F32, 256, 128, 256, 128));
        assert_eq!(c, vec![Call { offset: 0, repeat: 0, mask: Mask::Counter(256 * 128), rep: 8 }]);
    }
}
