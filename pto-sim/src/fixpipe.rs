//! The fixpipe: accumulator tiles leaving the cube through a per-element conversion, and the
//! quantization registers that configure it.
//!
//! `tmov.fp`, `textract_fp`, `tinsert_fp` and `tstore_fp` convert each element of an Acc tile
//! with the 64-bit quant word of its column, read from row 0 of a Scaling tile `fp`; the
//! conversion is pto-isa's `quantize_element` (`include/pto/cpu/common.hpp`), chosen by the
//! (source, destination) element types as `GetVectorPreQuantMode` chooses it:
//!
//! | source → destination | conversion |
//! |---|---|
//! | f32 → i8/ui8 (`VQF322B8_PRE`), i32 → i8/ui8 (`VREQ8`) | `clamp(rint(x · m1 + offset))` to the signed or unsigned 8-bit range (sign bit 46) |
//! | i32 → f16 (`VDEQF16`) | `x · m1`, clamped to ±65504, rounded to f16 |
//! | i32 → i16 (`VSHIFTS322S16`) | `x >> (bits 32..35 + 1)`, wrapped to i16 |
//! | anything else (f32 → f32/f16/bf16, i32 → bf16, ...) | a plain conversion (ties to even) |
//!
//! where `m1` is the 19-bit float in bits 13..31 of the word (sign, 8 exponent bits, 10
//! mantissa bits) and `offset` the unsigned 9-bit field in bits 37..45. A Scaling tile of
//! 64-bit integers holds those words as they are; a float Scaling tile holds one scale per
//! column, taken as the word of its f32 bits (offset 0, sign bit from the destination type as
//! `set_quant_scalar` sets it).
//!
//! `set_quant_scalar` / `set_quant_vector` write [`crate::config::Registers`] (shown by
//! `--trace`).

use crate::config::{QUANT_SIGN_BIT, Registers, quant_scalar_word};
use crate::dispatch;
use crate::elem::Elem;
use crate::exec::{Args, Machine, Semantics};
use crate::family::{at, storage, unsupported};
use crate::memory::{Fault, Memory};
use crate::view::{TileView, element_mut};
use pto_ir::ops::Opcode;
use pto_ir::types::ElemType;

/// How the fixpipe converts one element (pto-isa `QuantMode_t`, vector forms).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Mode {
    /// No quantization: a plain conversion.
    Plain,
    /// To 8 bits: scale, add the offset, round, clamp (`VQF322B8_PRE`, `VREQ8`).
    To8,
    /// i32 to f16: scale and clamp to the f16 range (`VDEQF16`).
    DeqF16,
    /// i32 to i16: arithmetic shift right (`VSHIFTS322S16`).
    Shift16,
}

fn mode(src: ElemType, dst: ElemType) -> Mode {
    match (src, dst) {
        (ElemType::F32 | ElemType::I32, ElemType::I8 | ElemType::U8) => Mode::To8,
        (ElemType::I32, ElemType::F16) => Mode::DeqF16,
        (ElemType::I32, ElemType::I16) => Mode::Shift16,
        _ => Mode::Plain,
    }
}

/// `m1`: the 19-bit float in bits 13..31 of a quant word (pto-isa `extract_m1_from_quant`).
fn m1(word: u64) -> f32 {
    let bits = (word >> 13) & 0x7FFFF;
    let (sign, exponent, mantissa) = ((bits >> 18) & 1, (bits >> 10) & 0xFF, bits & 0x3FF);
    if exponent == 0 && mantissa == 0 {
        return 0.0;
    }
    let magnitude = (1.0 + mantissa as f64 / 1024.0) * 2f64.powi(exponent as i32 - 127);
    (if sign == 1 { -magnitude } else { magnitude }) as f32
}

/// One converted element: a float or an integer value of the destination type.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Out {
    F(f64),
    I(i64),
}

/// Converts `(x as f64, x as i64)` of type `src` with quant word `word` ([`Mode`]).
fn quantize(mode: Mode, src_float: bool, (xf, xi): (f64, i64), word: u64) -> Out {
    let x32 = xf as f32;
    match mode {
        Mode::Plain => {
            if src_float {
                Out::F(xf)
            } else {
                Out::I(xi)
            }
        }
        Mode::To8 => {
            let offset = ((word >> 37) & 0x1FF) as f32;
            let signed = (word >> QUANT_SIGN_BIT) & 1 == 1;
            let (lo, hi) = if signed { (-128.0, 127.0) } else { (0.0, 255.0) };
            let r = (x32 * m1(word) + offset).round_ties_even();
            Out::I(if r.is_nan() { 0 } else { r.clamp(lo, hi) as i64 })
        }
        Mode::DeqF16 => Out::F(f64::from((x32 * m1(word)).clamp(-65504.0, 65504.0))),
        Mode::Shift16 => Out::I(i64::from((xi as i32 >> (((word >> 32) & 0xF) + 1)) as i16)),
    }
}

/// The quant words of columns `first..first + n` of row 0 of Scaling tile `fp`, for a
/// destination of type `out`.
fn words(mem: &Memory, fp: &TileView, out: ElemType, first: usize, n: usize) -> Result<Vec<u64>, Fault> {
    if first.checked_add(n).is_none_or(|end| end > fp.vcols) || fp.vrows == 0 {
        return Err(Fault(format!(
            "the quant tile's valid region 1x{} has no word for columns {first}..{}",
            fp.vcols,
            first.saturating_add(n)
        )));
    }
    let s = storage(mem, fp)?;
    dispatch!(fp.desc.dtype, T => {
        (first..first + n).map(|c| {
            let x = at::<T>(s, fp, 0, c)?;
            Ok(match fp.desc.dtype {
                ElemType::I64 | ElemType::U64 => x.raw_bits(),
                _ if <T as Elem>::FLOAT => quant_scalar_word(x.to_f64() as f32, out),
                other => return Err(Fault(format!("a quant tile holds 64-bit quant words or float scales, not {other}"))),
            })
        }).collect()
    }, _ => Err(unsupported(fp)))
}

/// The `rows x cols` window of Acc tile `src` at `(sr, sc)` converted to `out` ([`quantize`]),
/// row-major bytes; column `j` of the window uses `words[j]` (none needed for a plain
/// conversion).
fn convert_window(
    mem: &Memory,
    src: &TileView,
    (sr, sc): (usize, usize),
    (rows, cols): (usize, usize),
    out: ElemType,
    words: &[u64],
) -> Result<Vec<u8>, Fault> {
    let mode = mode(src.desc.dtype, out);
    let s = storage(mem, src)?;
    let vals: Vec<(f64, i64)> = dispatch!(src.desc.dtype, T => {
        (0..rows * cols).map(|k| at::<T>(s, src, sr + k / cols, sc + k % cols).map(|x| (x.to_f64(), x.to_i64()))).collect::<Result<_, _>>()?
    }, _ => return Err(unsupported(src)));
    let src_float = src.desc.dtype.is_float();
    dispatch!(out, U => {
        let mut bytes = vec![0u8; vals.len() * U::SIZE];
        for (k, &x) in vals.iter().enumerate() {
            let word = if mode == Mode::Plain { 0 } else { words[k % cols] };
            let y = match quantize(mode, src_float, x, word) {
                Out::F(f) => U::from_f64(f),
                Out::I(i) if <U as Elem>::FLOAT => U::from_f64(i as f64),
                Out::I(i) => U::from_i64(i),
            };
            y.store(&mut bytes[k * U::SIZE..]);
        }
        Ok(bytes)
    }, _ => Err(Fault(format!("the fixpipe conversion to {out} is not executable by the simulator yet"))))
}

/// Writes row-major `bytes` (a `rows x cols` window) into `dst` at `(dr, dc)`.
fn put_window(mem: &mut Memory, dst: &TileView, (dr, dc): (usize, usize), (rows, cols): (usize, usize), bytes: &[u8]) -> Result<(), Fault> {
    let size = dst.elem_size();
    let d = mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
    for k in 0..rows * cols {
        element_mut(d, dst, dr + k / cols, dc + k % cols)?.copy_from_slice(&bytes[k * size..(k + 1) * size]);
    }
    Ok(())
}

/// A fault unless a `rows x cols` window at `(r, c)` lies in `v`'s valid region.
fn inside(v: &TileView, (r, c): (usize, usize), (rows, cols): (usize, usize), what: &str) -> Result<(), Fault> {
    if r.checked_add(rows).is_none_or(|e| e > v.vrows) || c.checked_add(cols).is_none_or(|e| e > v.vcols) {
        return Err(Fault(format!("a {rows}x{cols} window at ({r}, {c}) is outside the {what}'s valid region {}x{}", v.vrows, v.vcols)));
    }
    v.valid_inside()
}

/// An index operand (`row`, `col`), which must not be negative.
fn index(a: &Args<'_>, slot: &str) -> Result<usize, Fault> {
    let i = a.int(slot)?;
    usize::try_from(i).map_err(|_| Fault(format!("`{slot}` is {i}: an index must not be negative")))
}

/// `textract_fp` / `tmov.fp`: `dst[i, j] = Q(src[row + i, col + j], word[col + j])` over
/// dst's valid region.
fn extract(m: &mut Machine<'_>, a: &Args<'_>, at: (usize, usize)) -> Result<(), Fault> {
    let (src, fp, dst) = (a.tile("src")?, a.tile("fp")?, a.tile("dst")?);
    let window = (dst.vrows, dst.vcols);
    inside(&src, at, window, "source")?;
    let w =
        if mode(src.desc.dtype, dst.desc.dtype) == Mode::Plain { Vec::new() } else { words(m.mem, &fp, dst.desc.dtype, at.1, window.1)? };
    let bytes = convert_window(m.mem, &src, at, window, dst.desc.dtype, &w)?;
    put_window(m.mem, &dst, (0, 0), window, &bytes)
}

/// `tinsert_fp`: `dst[row + i, col + j] = Q(src[i, j], word[j])` over src's valid region.
fn insert(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let (src, fp, dst) = (a.tile("src")?, a.tile("fp")?, a.tile("dst")?);
    let at = (index(a, "row")?, index(a, "col")?);
    let window = (src.vrows, src.vcols);
    inside(&src, (0, 0), window, "source")?;
    inside(&dst, at, window, "destination")?;
    let w = if mode(src.desc.dtype, dst.desc.dtype) == Mode::Plain { Vec::new() } else { words(m.mem, &fp, dst.desc.dtype, 0, window.1)? };
    let bytes = convert_window(m.mem, &src, (0, 0), window, dst.desc.dtype, &w)?;
    put_window(m.mem, &dst, at, window, &bytes)
}

/// `tstore_fp`: the valid region of `src` through the fixpipe into the GM view, converted to
/// the GM element type, at `[r, c]` of the view when offsets are given.
fn store(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let (src, fp) = (a.tile("src")?, a.tile("fp")?);
    let view = a.view("dst")?;
    let offsets = a.ints("offsets")?;
    let at = match offsets.as_slice() {
        [] => None,
        &[r, c] => Some((
            usize::try_from(r).map_err(|_| Fault(format!("negative offset [{r}, {c}]")))?,
            usize::try_from(c).map_err(|_| Fault(format!("negative offset [{r}, {c}]")))?,
        )),
        _ => return Err(Fault(format!("only two-dimensional offsets `[row, col]` are simulated, found {}", offsets.len()))),
    };
    view.check_window(&src, at)?;
    let out = m.gm.get(view.arg).ok_or_else(|| Fault("the view's GM argument does not exist".into()))?.dtype;
    let window = (src.vrows, src.vcols);
    inside(&src, (0, 0), window, "source")?;
    let w = if mode(src.desc.dtype, out) == Mode::Plain { Vec::new() } else { words(m.mem, &fp, out, 0, window.1)? };
    let bytes = convert_window(m.mem, &src, (0, 0), window, out, &w)?;
    let (r0, c0) = at.unwrap_or((0, 0));
    let fold = pto_ir::tile_rules::ViewFold::of(&src.desc);
    let gm = &mut m.gm[view.arg];
    let size = gm.elem_size;
    gm.written = true;
    for k in 0..window.0 * window.1 {
        let (r, c) = (k / window.1, k % window.1);
        let i = view.index(r0 + r, c0 + c, fold)?;
        gm.element(i, m.gm_limit)?.copy_from_slice(&bytes[k * size..(k + 1) * size]);
    }
    Ok(())
}

/// `set_quant_scalar`: the scalar register gets the quant word of `scale` for `out_dtype`.
fn set_quant_scalar(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let out = a.elem_attr("out_dtype")?;
    let scale = match a.num("scale")? {
        crate::family::Num::F(f) => f as f32,
        crate::family::Num::I(i) => i as f32,
    };
    let word = quant_scalar_word(scale, out);
    m.regs.quant_scalar = Some(word);
    m.notes.push(Registers::describe_quant_scalar(word, out));
    Ok(())
}

/// `set_quant_vector`: the vector register points at Scaling tile `fp`.
fn set_quant_vector(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let fp = a.tile("fp")?;
    storage(m.mem, &fp)?;
    m.regs.quant_vector = Some(fp);
    m.notes.push(Registers::describe_quant_vector(&fp));
    Ok(())
}

/// The fixpipe instructions.
pub const SEMANTICS: &[(Opcode, Semantics)] = &[
    (Opcode::TMovFp, |m, a| extract(m, a, (0, 0))),
    (Opcode::TExtractFp, |m, a| extract(m, a, (index(a, "row")?, index(a, "col")?))),
    (Opcode::TInsertFp, insert),
    (Opcode::TStoreFp, store),
    (Opcode::SetQuantScalar, set_quant_scalar),
    (Opcode::SetQuantVector, set_quant_vector),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn m1_is_the_top_19_bits_of_an_f32() {
        assert_eq!(m1(u64::from(0.5f32.to_bits())), 0.5);
        assert_eq!(m1(u64::from((-3.0f32).to_bits())), -3.0);
        assert_eq!(m1(0), 0.0);
        // The low 13 mantissa bits are dropped.
        assert_eq!(m1(u64::from(1.0001f32.to_bits())), 1.0);
    }

    #[test]
    fn eight_bit_outputs_round_add_the_offset_and_clamp() {
        let w = u64::from(0.5f32.to_bits()) | (1 << QUANT_SIGN_BIT) | (3 << 37);
        assert_eq!(quantize(Mode::To8, true, (5.0, 5), w), Out::I(6)); // 2.5 + 3 = 5.5 -> 6 (ties to even)
        assert_eq!(quantize(Mode::To8, true, (1000.0, 1000), w), Out::I(127));
        assert_eq!(quantize(Mode::To8, true, (-1000.0, -1000), w), Out::I(-128));
        let unsigned = u64::from(0.5f32.to_bits());
        assert_eq!(quantize(Mode::To8, true, (-10.0, -10), unsigned), Out::I(0));
        assert_eq!(quantize(Mode::Shift16, false, (-1024.0, -1024), 2 << 32), Out::I(-128));
    }
}
