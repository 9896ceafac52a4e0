//! Vector-pipe ops that change the element type on the way: `tdequant`, `tadddeqrelu`,
//! `taddreluconv`. Each reads its sources at the destination's valid region.
//!
//! - `tdequant` (pto-isa `cpu/TDeQuant.hpp`): `dst = (f32(src) - offset) * scale`, with
//!   `scale` / `offset` taken at `(row, min(col, their valid cols - 1))`: one value per row
//!   for the `Rx1` parameter tiles of the TDEQUANT page, per element for full ones.
//! - `tadddeqrelu` (TAddDeqRelu page): i32 + i32 (wrapping), then in f32
//!   `((x * 2^-17) * deqScale) * 2^17`, ReLU, and a saturating round-to-nearest-even to f16
//!   (the A2A3 sequence the page gives; each step rounds to f32).
//! - `taddreluconv` (TADDReluConv page): the sum in the source type, ReLU, then a saturating
//!   conversion to the destination type: f32 → f16, f16 → i8, i16 → i8.
//!
//! Type pairs outside the pages' lists are a located error.

use crate::dispatch;
use crate::elem::Elem;
use crate::exec::{Args, Machine, Semantics};
use crate::family::{at, dst_elements, storage, unsupported, write};
use crate::memory::{Fault, Memory};
use crate::view::TileView;
use half::f16;
use pto_ir::ops::Opcode;
use pto_ir::types::ElemType;

/// The valid region of `src` read at `dst`'s valid shape, as f64 (sources must cover it).
fn values(mem: &Memory, src: &TileView, dst: &TileView, col_limit: Option<usize>) -> Result<Vec<f64>, Fault> {
    let n = dst_elements(mem, dst)?;
    let cols = col_limit.unwrap_or(dst.vcols);
    if src.vrows < dst.vrows || (col_limit.is_none() && src.vcols < dst.vcols) || cols == 0 {
        return Err(Fault(format!("a {}x{} source for a {}x{} destination", src.vrows, src.vcols, dst.vrows, dst.vcols)));
    }
    let s = storage(mem, src)?;
    dispatch!(src.desc.dtype, T => {
        (0..n).map(|k| at::<T>(s, src, k / dst.vcols, (k % dst.vcols).min(cols - 1)).map(|x| x.to_f64())).collect()
    }, _ => Err(unsupported(src)))
}

fn tdequant(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let (src, scale, offset, dst) = (a.tile("src")?, a.tile("scale")?, a.tile("offset")?, a.tile("dst")?);
    if dst.desc.dtype != ElemType::F32 {
        return Err(Fault(format!("tdequant writes f32, the destination is {}", dst.desc.dtype)));
    }
    let x = values(m.mem, &src, &dst, None)?;
    let s = values(m.mem, &scale, &dst, Some(scale.vcols))?;
    let o = values(m.mem, &offset, &dst, Some(scale.vcols.min(offset.vcols)))?;
    let out: Vec<f32> = (0..x.len()).map(|k| (x[k] as f32 - o[k] as f32) * s[k] as f32).collect();
    write(m.mem, &dst, &out)
}

/// The sum of the two sources in their element type `T`, as f64.
fn sums(m: &Machine<'_>, a: &Args<'_>, dst: &TileView) -> Result<(ElemType, Vec<f64>), Fault> {
    let (s0, s1) = (a.tile("src0")?, a.tile("src1")?);
    if s0.desc.dtype != s1.desc.dtype {
        return Err(Fault(format!("the sources hold {} and {}", s0.desc.dtype, s1.desc.dtype)));
    }
    let n = dst_elements(m.mem, dst)?;
    for s in [&s0, &s1] {
        if s.vrows < dst.vrows || s.vcols < dst.vcols {
            return Err(Fault(format!("a {}x{} source for a {}x{} destination", s.vrows, s.vcols, dst.vrows, dst.vcols)));
        }
    }
    let (b0, b1) = (storage(m.mem, &s0)?, storage(m.mem, &s1)?);
    let sum = dispatch!(s0.desc.dtype, T => {
        (0..n).map(|k| {
            let (r, c) = (k / dst.vcols, k % dst.vcols);
            Ok(at::<T>(b0, &s0, r, c)?.add(at::<T>(b1, &s1, r, c)?).to_f64())
        }).collect::<Result<Vec<f64>, Fault>>()?
    }, _ => return Err(unsupported(&s0)));
    Ok((s0.desc.dtype, sum))
}

/// Round to f16, saturating at ±65504 (NaN stays NaN).
fn saturating_f16(x: f32) -> f16 {
    f16::from_f32(if x.is_nan() { x } else { x.clamp(-65504.0, 65504.0) })
}

fn tadddeqrelu(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let dst = a.tile("dst")?;
    let (src, sum) = sums(m, a, &dst)?;
    if src != ElemType::I32 || dst.desc.dtype != ElemType::F16 {
        return Err(Fault(format!(
            "tadddeqrelu adds i32 sources into an f16 destination (TAddDeqRelu page), found {src} to {}",
            dst.desc.dtype
        )));
    }
    let scale = match a.num("scale")? {
        crate::family::Num::F(f) => f as f32,
        crate::family::Num::I(i) => i as f32,
    };
    let (down, up) = (2f32.powi(-17), 2f32.powi(17));
    let out: Vec<f16> = sum.iter().map(|&x| saturating_f16(((x as f32 * down) * scale * up).max(0.0))).collect();
    write(m.mem, &dst, &out)
}

fn taddreluconv(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let dst = a.tile("dst")?;
    let (src, sum) = sums(m, a, &dst)?;
    let relu = sum.iter().map(|&x| x.max(0.0));
    match (src, dst.desc.dtype) {
        (ElemType::F32, ElemType::F16) => write(m.mem, &dst, &relu.map(|x| saturating_f16(x as f32)).collect::<Vec<_>>()),
        (ElemType::F16 | ElemType::I16, ElemType::I8) => {
            write(m.mem, &dst, &relu.map(|x| x.round_ties_even().min(127.0) as i8).collect::<Vec<_>>())
        }
        (s, d) => Err(Fault(format!("taddreluconv converts f32 to f16, f16 to i8 or i16 to i8 (TADDReluConv page), found {s} to {d}"))),
    }
}

/// The fused converting ops.
pub const SEMANTICS: &[(Opcode, Semantics)] =
    &[(Opcode::TDequant, tdequant), (Opcode::TAddDeqRelu, tadddeqrelu), (Opcode::TAddReluConv, taddreluconv)];
