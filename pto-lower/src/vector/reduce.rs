//! Row and column reductions, every path of the A2A3 implementation.
//!
//! Rows (`a2a3/TRowReduceOps.hpp`, `TRowSum.hpp`):
//! * integers: per row, a one-block accumulator in `tmp` (`vector_dup` of the identity, one
//!   `vadd`/`vmax`/`vmin` per 32-byte block in counter mode), finished on the scalar pipe;
//! * floats, fully static `64×128`, `32×256`, `16×512`, `8×1024` f32 with a DN `Cols == 1`
//!   destination: the `vcgadd`/`vcgmax` fast paths through 4 KiB of `tmp`;
//! * floats, `validCol ≤ one iteration`: one `vcadd`/`vcmax` per row (255 rows per instruction);
//! * floats, wider: fold the row's iterations into `tmp` rows (a UB-to-UB copy when there is
//!   only one full iteration — skipped entirely, as the implementation does, when `tmp` or `src`
//!   rows are narrower than 256 bytes), add the masked tail, fold (sum: a pairwise tree;
//!   max/min: left to right), and reduce `tmp` with one counter-mode `vcadd`/`vcmax`.
//!
//! Columns (`a2a3/TColReduceOps.hpp`, `TColSum.hpp`): copy row 0 to `dst`, then fold every
//! further row into it (counter mode for whole iterations, a masked tail); `tcolsum` with
//! `isBinary` sums row pairs into `tmp` and halves until one row is left.

use super::ir::{BinKind, Mask, Op, Operand, Program, REPEAT_MAX, RedKind, Scalar};
use super::{Emit, NotLowered, TileOp, VTile};
use pto_ir::ops::Opcode;
use pto_ir::types::ElemType;

fn kinds(opcode: Opcode) -> (RedKind, BinKind) {
    match opcode {
        Opcode::TRowSum | Opcode::TColSum => (RedKind::Sum, BinKind::Add),
        Opcode::TRowMax | Opcode::TColMax => (RedKind::Max, BinKind::Max),
        _ => (RedKind::Min, BinKind::Min),
    }
}

/// The identity of a reduction in `dtype` (0, the lowest or the highest value).
fn identity(kind: RedKind, dtype: ElemType) -> Scalar {
    let bits = dtype.size_bytes() * 8;
    match kind {
        RedKind::Sum => Scalar::Int(0),
        RedKind::Max => Scalar::Int(-(1i64 << (bits - 1))),
        RedKind::Min => Scalar::Int((1i64 << (bits - 1)) - 1),
    }
}

/// `trowsum`, `trowmax`, `trowmin`.
pub fn rows(op: &TileOp) -> Result<Program, NotLowered> {
    let (dst, src, tmp) = (op.tile("dst")?, op.tile("src")?, op.tile("tmp")?);
    let (kind, bin) = kinds(op.opcode);
    let mut e = Emit::default();
    if !src.row_major {
        return Err(NotLowered("row reductions read ND sources only".into()));
    }
    match src.dtype {
        ElemType::I16 | ElemType::I32 => integer_rows(&mut e, kind, bin, dst, src, tmp),
        ElemType::F16 | ElemType::F32 => {
            if !fast_path(&mut e, kind, bin, dst, src, tmp) {
                float_rows(&mut e, kind, bin, dst, src, tmp);
            }
        }
        other => return Err(NotLowered(format!("row reductions of {} have no A2A3 path", other.name()))),
    }
    Ok(e.prog)
}

/// Element offset of row `i` of a destination column (`dst[i, 0]`).
fn dst_row(dst: &VTile, i: u64) -> u64 {
    if dst.row_major { i * dst.cols as u64 } else { i }
}

fn integer_rows(e: &mut Emit, kind: RedKind, bin: BinKind, dst: &VTile, src: &VTile, tmp: &VTile) {
    let epb = src.epb() as u64;
    let (vc, dt) = (src.vcols as u64, src.dtype);
    for row in 0..src.vrows as u64 {
        let s = row * src.cols as u64;
        e.push(Op::Dup(identity(kind, dt)), dt, 0, Mask::Counter(epb), vec![tmp.at(0).strides(1, 0)]);
        for block in 0..vc / epb {
            let operands = vec![tmp.at(0).strides(0, 0), tmp.at(0).strides(0, 0), src.at(s + block * epb).strides(1, 1)];
            e.push(Op::Bin(bin), dt, 0, Mask::Counter(epb), operands);
        }
        if vc % epb > 0 {
            let operands = vec![tmp.at(0).strides(0, 0), tmp.at(0).strides(0, 0), src.at(s + (vc / epb) * epb).strides(1, 1)];
            e.push(Op::Bin(bin), dt, 0, Mask::Counter(vc % epb), operands);
        }
        e.push(Op::ScalarReduce { kind, n: epb as u32 }, dt, 0, Mask::FULL, vec![dst.at(dst_row(dst, row)), tmp.at(0)]);
    }
}

/// The f32 fast paths (fully static shapes, DN destination with one valid column).
fn fast_path(e: &mut Emit, kind: RedKind, bin: BinKind, dst: &VTile, src: &VTile, tmp: &VTile) -> bool {
    let shape = (src.rows, src.cols);
    let full = src.static_valid && (src.vrows, src.vcols) == shape;
    if src.dtype != ElemType::F32 || dst.row_major || dst.cols != 1 || !full {
        return false;
    }
    let vr = src.vrows;
    let dt = src.dtype;
    let group = |e: &mut Emit, d: Operand, s: Operand, repeat: u32| {
        e.push(Op::Reduce { kind, group: true }, dt, repeat, Mask::FULL, vec![d.strides(1, 1), s.strides(1, 8)]);
    };
    // tmp[r, 0:8] op= tmp[r, 8:16] for every row r of a [rows, 16] scratch, 8 rows per iteration.
    let halve = |e: &mut Emit, repeat: u32| {
        let operands = vec![tmp.at(0).strides(1, 8), tmp.at(0).strides(2, 16), tmp.at(8).strides(2, 16)];
        e.push(Op::Bin(bin), dt, repeat, Mask::FULL, operands);
    };
    match shape {
        (64, 128) => {
            group(e, tmp.at(0), src.at(0), vr * 2);
            halve(e, vr / 8);
            group(e, dst.at(0), tmp.at(0), vr / 8);
        }
        (32, 256) => {
            group(e, tmp.at(0), src.at(0), vr * 4);
            halve(e, vr / 4);
            halve(e, vr / 8);
            group(e, dst.at(0), tmp.at(0), vr / 8);
        }
        (16, 512) => {
            group(e, tmp.at(0), src.at(0), vr * 8);
            group(e, tmp.at(0), tmp.at(0), vr);
            group(e, dst.at(0), tmp.at(0), vr / 8);
        }
        (8, 1024) => {
            group(e, tmp.at(0), src.at(0), vr * 16);
            group(e, tmp.at(0), tmp.at(0), vr * 2);
            halve(e, vr / 8);
            group(e, dst.at(0), tmp.at(0), vr / 8);
        }
        _ => return false,
    }
    true
}

/// `BinInstrByMode`: one row per iteration, `rows` iterations (counter mode when `count`,
/// else normal mode under `mask`); per-row instructions when a stride exceeds 255 blocks.
fn bin_rows(e: &mut Emit, bin: BinKind, dt: ElemType, ops: [(Operand, u64); 3], rows: u64, count: Option<u64>, mask: Mask) {
    let epr = 256 / dt.size_bytes() as u64;
    if ops.iter().any(|(o, _)| o.rep > REPEAT_MAX) {
        for i in 0..rows {
            let operands =
                ops.iter().map(|(o, cols)| Operand { addr: o.addr + i * cols * dt.size_bytes() as u64, ..*o }.strides(1, 0)).collect();
            e.push(Op::Bin(bin), dt, 1, if count.is_some() { Mask::FULL } else { mask }, operands);
        }
    } else if count.is_some() {
        e.push(Op::Bin(bin), dt, 0, Mask::Counter(rows * epr), ops.iter().map(|(o, _)| *o).collect());
    } else {
        e.push(Op::Bin(bin), dt, rows as u32, mask, ops.iter().map(|(o, _)| *o).collect());
    }
}

fn float_rows(e: &mut Emit, kind: RedKind, bin: BinKind, dst: &VTile, src: &VTile, tmp: &VTile) {
    let dt = src.dtype;
    let epr = src.epr() as u64;
    let (vr, vc) = (src.vrows as u64, src.vcols as u64);
    let dst_stride = if dst.row_major { dst.cols } else { 1 };
    let src_rep = src.cols / src.epb();
    let tmp_rep = tmp.cols / tmp.epb();
    let reps = vc / epr;
    let remain = vc % epr;
    let reduce = |e: &mut Emit, from: &VTile, rep: u32, repeat: u32, mask: Mask, d_off: u64, s_off: u64| {
        let operands = vec![dst.at(d_off).strides(1, dst_stride), from.at(s_off).strides(1, rep)];
        e.push(Op::Reduce { kind, group: false }, dt, repeat, mask, operands);
    };
    if vc <= epr {
        if vc == epr {
            reduce(e, src, src_rep, 0, Mask::Counter(vr * epr), 0, 0);
            return;
        }
        let mut row = 0;
        while row < vr {
            let n = (vr - row).min(REPEAT_MAX as u64);
            reduce(e, src, src_rep, n as u32, Mask::first(remain as u32), dst_row(dst, row), row * src.cols as u64);
            row += n;
        }
        return;
    }
    if vc < 2 * epr {
        if src_rep < 8 || tmp_rep < 8 {
            // The implementation's compile-time guard: nothing is computed.
            return;
        }
        let copy = Op::Copy { n_burst: vr as u32, len_burst: 8, src_gap: src_rep - 8, dst_gap: tmp_rep - 8 };
        e.push(copy, dt, 0, Mask::FULL, vec![tmp.at(0), src.at(0)]);
    }
    let t = |off: u64| (tmp.at(off).strides(1, tmp_rep), tmp.cols as u64);
    let s = |off: u64| (src.at(off).strides(1, src_rep), src.cols as u64);
    let full = Some(vr);
    if kind == RedKind::Sum {
        for i in 0..reps / 2 {
            bin_rows(e, bin, dt, [t(i * epr), s(2 * i * epr), s((2 * i + 1) * epr)], vr, full, Mask::FULL);
        }
        if reps != 1 && reps % 2 == 1 {
            bin_rows(e, bin, dt, [t(0), t(0), s((reps - 1) * epr)], vr, full, Mask::FULL);
        }
    } else if vc >= 2 * epr {
        bin_rows(e, bin, dt, [t(0), s(0), s(epr)], vr, full, Mask::FULL);
    }
    if remain > 0 {
        let mut row = 0;
        while row < vr {
            let n = (vr - row).min(REPEAT_MAX as u64);
            let (tr, sr) = (row * tmp.cols as u64, row * src.cols as u64);
            bin_rows(e, bin, dt, [t(tr), t(tr), s(sr + reps * epr)], n, None, Mask::first(remain as u32));
            row += n;
        }
    }
    if kind == RedKind::Sum {
        let mut len = reps / 2;
        while len > 1 {
            for i in 0..len / 2 {
                bin_rows(e, bin, dt, [t(i * epr), t(2 * i * epr), t((2 * i + 1) * epr)], vr, full, Mask::FULL);
            }
            let odd = len % 2;
            len /= 2;
            if odd > 0 {
                bin_rows(e, bin, dt, [t((len - 1) * epr), t((len - 1) * epr), t(len * 2 * epr)], vr, full, Mask::FULL);
            }
        }
    } else {
        for i in 2..reps {
            bin_rows(e, bin, dt, [t(0), t(0), s(i * epr)], vr, full, Mask::FULL);
        }
    }
    reduce(e, tmp, tmp_rep, 0, Mask::Counter(vr * epr), 0, 0);
}

/// `tcolsum`, `tcolmax`, `tcolmin`.
pub fn cols(op: &TileOp) -> Result<Program, NotLowered> {
    let (dst, src) = (op.tile("dst")?, op.tile("src")?);
    let (_, bin) = kinds(op.opcode);
    if !matches!(src.dtype, ElemType::F16 | ElemType::F32 | ElemType::I16 | ElemType::I32) || !src.row_major || !dst.row_major {
        return Err(NotLowered(format!("column reductions of {} (or non-ND tiles) have no A2A3 path", src.dtype.name())));
    }
    let mut e = Emit::default();
    let dt = src.dtype;
    let (vr, vc) = (src.vrows as u64, src.vcols as u64);
    let blocks = |n: u64| ((n * dt.size_bytes() as u64).div_ceil(32)) as u32;
    let copy_row = |e: &mut Emit, to: Operand, from: Operand| {
        e.push(Op::Copy { n_burst: 1, len_burst: blocks(vc), src_gap: 0, dst_gap: 0 }, dt, 0, Mask::FULL, vec![to, from]);
    };
    if vr == 0 || vc == 0 {
        return Ok(e.prog);
    }
    if op.opcode == Opcode::TColSum && op.flag && op.has("tmp") {
        let tmp = op.tile("tmp")?;
        binary_col_sum(&mut e, dst, src, tmp, copy_row);
        return Ok(e.prog);
    }
    copy_row(&mut e, dst.at(0), src.at(0));
    let row_stride = blocks(src.cols as u64) as u64 * src.epb() as u64;
    if op.opcode == Opcode::TColSum {
        for i in 1..vr {
            e.push(Op::Bin(bin), dt, 0, Mask::Counter(vc), vec![dst.at(0), dst.at(0), src.at(i * row_stride)]);
        }
        return Ok(e.prog);
    }
    let epr = src.epr() as u64;
    let line = (vc / epr) * epr;
    if line > 0 {
        for i in 1..vr {
            e.push(Op::Bin(bin), dt, 0, Mask::Counter(line), vec![dst.at(0), dst.at(0), src.at(i * row_stride)]);
        }
    }
    if vc % epr > 0 {
        for i in 1..vr {
            e.push(Op::Bin(bin), dt, 1, Mask::first((vc % epr) as u32), vec![dst.at(line), dst.at(line), src.at(line + i * row_stride)]);
        }
    }
    Ok(e.prog)
}

/// `tcolsum` with `isBinary`: `tmp[i] = row 2i + row 2i+1` (an odd last row added into
/// `tmp[0]`), halved until one row is left, copied to `dst`.
fn binary_col_sum(e: &mut Emit, dst: &VTile, src: &VTile, tmp: &VTile, copy_row: impl Fn(&mut Emit, Operand, Operand)) {
    let dt = src.dtype;
    let (vr, vc) = (src.vrows as u64, src.vcols as u64);
    if vr == 1 {
        copy_row(e, dst.at(0), src.at(0));
        return;
    }
    let (sc, tc) = (src.cols as u64, tmp.cols as u64);
    let add = |e: &mut Emit, d: Operand, a: Operand, b: Operand| e.push(Op::Bin(BinKind::Add), dt, 0, Mask::Counter(vc), vec![d, a, b]);
    for i in 0..vr / 2 {
        add(e, tmp.at(i * tc), src.at(2 * i * sc), src.at((2 * i + 1) * sc));
    }
    if vr % 2 == 1 {
        add(e, tmp.at(0), tmp.at(0), src.at((vr - 1) * sc));
    }
    let mut n = vr / 2;
    while n > 1 {
        for i in 0..n / 2 {
            add(e, tmp.at(i * tc), tmp.at(2 * i * tc), tmp.at((2 * i + 1) * tc));
        }
        if n % 2 == 1 {
            add(e, tmp.at(0), tmp.at(0), tmp.at((n - 1) * tc));
        }
        n /= 2;
    }
    copy_row(e, dst.at(0), tmp.at(0));
}
