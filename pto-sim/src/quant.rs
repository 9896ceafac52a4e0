//! Quantization: `tquant` (INT8 with a per-row scale and offset; MX FP8 / FP4 with E8M0 group
//! exponents) and `tquant_dn` (MX with groups along the rows); and `tget_scale_addr`, which
//! places an MX scale tile beside its matmul operand.
//!
//! Semantics from TQUANT.md / TQUANT_DN.md and, where the pages are silent, pto-isa's
//! implementation (`cpu/TQuant.hpp`, `npu/a5/TQuant.hpp`, `npu/a2a3/TQuant.hpp`):
//!
//! - INT8: `q = clamp(rint(src * scale[r] [+ offset[r]]))`, computed in f32, `scale` and `offset`
//!   read at `(min(r, valid rows - 1), 0)`, i8 (`INT8_SYM`) or ui8 (`INT8_ASYM`) saturating.
//!   A2A3's chain (f32 → s32 → f16 → i8, each ties to even, the last saturating) gives the same
//!   values. A2A3's implementation also overwrites `src` and `tmp` as scratch; `pto` leaves them.
//! - MX: per group of 32 elements along columns (`grp_axis` 1, the default; ND) or rows
//!   (`grp_axis` 0, `tquant_dn`; DN), over the valid rows and the full capacity of columns (ND),
//!   or the full capacity of rows and the valid columns (DN): the group's largest magnitude goes
//!   to `max`, its shared E8M0 exponent to `exp` (at `(row, group)` / `(group, col)`), the
//!   power-of-two `scaling = 2^(127 - exp)` to `scaling` (`max` and `scaling` are written flat,
//!   one value per group in group order, as pto-isa does), and each element times the scaling,
//!   encoded as E4M3FN (saturating at ±448, ties to even; the page's stochastic rounding is not
//!   modelled) or E2M1 (saturating at ±6, two codes per byte, the low nibble first, in `dst`'s
//!   bytes in row-major order) to `dst`. OCP and NV exponent algorithms as `cpu/TQuant.hpp`.
//!   `interleave` (DN only) stores the exponents of row groups `2p`, `2p + 1` side by side
//!   (`exp[p][2c + δ]`, TQUANT_DN.md; rows and valid rows multiples of 64).

use crate::dispatch;
use crate::elem::Elem;
use crate::exec::{Args, Machine, Semantics};
use crate::family::{at, put, storage, unsupported};
use crate::memory::{Fault, Memory};
use crate::minifloat::{E2M1, E4M3FN, Rounding};
use crate::view::TileView;
use pto_ir::ops::Opcode;
use pto_ir::types::ElemType;

/// The MX group size.
const GROUP: usize = 32;

/// The INT8 forms.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Int8 {
    /// `INT8_SYM`: i8, no offset.
    Sym,
    /// `INT8_ASYM`: ui8, with a per-row offset.
    Asym,
}

/// `dst = clamp(rint(src * scale[r] [+ offset[r]]))` over `src`'s valid region.
pub fn quant_int8(
    mem: &mut Memory,
    kind: Int8,
    src: &TileView,
    scale: &TileView,
    offset: Option<&TileView>,
    dst: &TileView,
) -> Result<(), Fault> {
    let (rows, cols) = (src.vrows, src.vcols);
    dst.covers(rows, cols, "tquant's dst")?;
    let per_row = |mem: &Memory, v: &TileView, r: usize| -> Result<f32, Fault> {
        let row = r.min(v.vrows.max(1) - 1);
        Ok(read_f64(mem, v, row, 0)? as f32)
    };
    let mut out = Vec::with_capacity(rows * cols);
    for r in 0..rows {
        let s = per_row(mem, scale, r)?;
        let o = match offset {
            Some(t) => Some(per_row(mem, t, r)?),
            None => None,
        };
        for c in 0..cols {
            let x = read_f64(mem, src, r, c)? as f32;
            let v = match o {
                Some(o) => x * s + o,
                None => x * s,
            };
            out.push(v.round_ties_even());
        }
    }
    let (lo, hi) = match kind {
        Int8::Sym => (-128.0, 127.0),
        Int8::Asym => (0.0, 255.0),
    };
    dispatch!(dst.desc.dtype, U => {
        let d = mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
        for (k, v) in out.iter().enumerate() {
            let q = if v.is_nan() { 0.0 } else { f64::from(*v).clamp(lo, hi) };
            put(d, dst, k / cols, k % cols, U::from_f64(q))?;
        }
        Ok(())
    }, _ => Err(unsupported(dst)))
}

/// One element as f64.
fn read_f64(mem: &Memory, v: &TileView, r: usize, c: usize) -> Result<f64, Fault> {
    dispatch!(v.desc.dtype, T => at::<T>(storage(mem, v)?, v, r, c).map(|x| x.to_f64()), _ => Err(unsupported(v)))
}

/// The MX algorithms (`#pto<mx_alg ...>`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MxAlg {
    /// FP8 E4M3, OCP shared exponent.
    OcpFp8,
    /// FP8 E4M3, NV shared exponent.
    NvFp8,
    /// FP4 E2M1, OCP shared exponent.
    OcpFp4,
    /// FP4 E2M1, NV shared exponent.
    NvFp4,
}

impl MxAlg {
    /// From the enum value name; `Hif4` (A6 only) is not executable.
    pub fn parse(s: &str) -> Result<MxAlg, Fault> {
        Ok(match s {
            "OcpMxFp8E4M3" => MxAlg::OcpFp8,
            "NvMxFp8E4M3" => MxAlg::NvFp8,
            "OcpMxFp4E2M1" => MxAlg::OcpFp4,
            "NvMxFp4E2M1" => MxAlg::NvFp4,
            other => return Err(Fault(format!("mx_alg {other} is not executable (HiFloat4 quantization is A6-only)"))),
        })
    }
    fn fp4(self) -> bool {
        matches!(self, MxAlg::OcpFp4 | MxAlg::NvFp4)
    }
    fn nv(self) -> bool {
        matches!(self, MxAlg::NvFp8 | MxAlg::NvFp4)
    }
}

/// The MX operands.
pub struct MxTiles {
    /// Source.
    pub src: TileView,
    /// Per-group largest magnitude (written).
    pub max: TileView,
    /// Per-group scaling (written).
    pub scaling: TileView,
    /// Quantized data.
    pub dst: TileView,
    /// E8M0 exponents.
    pub exp: TileView,
}

/// The group's largest magnitude (`ComputeMxGroupMax`): FP8 and NV FP4 ignore NaN (FP4 NV: a NaN
/// is the result), OCP FP4 compares the magnitudes truncated to bf16.
fn group_max(alg: MxAlg, xs: &[f32]) -> f32 {
    if alg.fp4() && !alg.nv() {
        let bits = xs.iter().map(|x| ((x.to_bits() >> 16) & 0x7FFF) as u16).max().unwrap_or(0);
        return f32::from_bits(u32::from(bits) << 16);
    }
    let mut m = 0f32;
    for &x in xs {
        if alg.fp4() && x.is_nan() {
            return x;
        }
        // std::max(m, |x|): a NaN never replaces m.
        if m < x.abs() {
            m = x.abs();
        }
    }
    m
}

/// The shared E8M0 exponent of a group (`ComputeSharedExponent`, `ComputeE2M1SharedExponent`,
/// `ComputeNvSharedExponent`).
fn shared_exponent(alg: MxAlg, max: f32) -> u8 {
    if alg.nv() {
        if max == 0.0 {
            return 0;
        }
        let descale = max * if alg.fp4() { 1.0f32 / 6.0 } else { 1.0f32 / 448.0 };
        let (e, m) = ((descale.to_bits() >> 23) & 0xFF, descale.to_bits() & 0x7F_FFFF);
        if e == 0xFF {
            return if m == 0 { 0xFE } else { 0xFF };
        }
        let up = m > 0 && e != 0xFE && !(e == 0 && m <= 0x40_0000);
        return (e + u32::from(up)) as u8;
    }
    let emax = if alg.fp4() { 2 } else { 8 };
    let (e, m) = ((max.to_bits() >> 23) & 0xFF, max.to_bits() & 0x7F_FFFF);
    if e == 0xFF && m != 0 {
        0xFF
    } else if e <= emax {
        0
    } else {
        (e - emax) as u8
    }
}

/// The group's scaling factor `2^(127 - exp)` (`ComputeMxScalingFromExponent`): at least
/// 2^-127; NaN exponents pass the group max through; NV maps `0xFE` to 2^-127.
fn group_scaling(alg: MxAlg, max: f32, e: u8) -> f32 {
    if e == 0xFF {
        return max;
    }
    if alg.nv() && e == 0xFE {
        return 2f32.powi(-127);
    }
    let s = f32::from_bits((254 - u32::from(e)) << 23);
    if s == 0.0 { 2f32.powi(-127) } else { s }
}

/// bf16 rounding of an f32 (`FloatToBf16BitsRound`).
fn round_to_bf16(x: f32) -> f32 {
    let b = x.to_bits();
    f32::from_bits((b.wrapping_add(0x7FFF + ((b >> 16) & 1)) >> 16) << 16)
}

/// The code of one element (`StoreMxEncodedValue`).
fn encode(alg: MxAlg, src: ElemType, x: f32, scaling: f32) -> u8 {
    if !alg.fp4() {
        let v = x * scaling;
        if alg.nv() && v.abs() < 2f32.powi(-10) {
            return if v.is_sign_negative() { 0x80 } else { 0x00 };
        }
        return E4M3FN.encode(f64::from(v), Rounding::NearestEven, true);
    }
    if scaling.is_infinite() {
        return if scaling > 0.0 { 0x7 } else { 0xF };
    }
    if scaling.is_nan() {
        return 0x7;
    }
    let v = x * scaling;
    let v = if src == ElemType::BF16 { round_to_bf16(v) } else { v };
    E2M1.encode(f64::from(v), Rounding::NearestEven, true)
}

/// MX quantization with groups along columns (`grp_axis` 1) or rows (0). With `interleave`
/// (DN only, TQUANT_DN.md), the exponents of row groups `2p` and `2p + 1` are stored side by
/// side: `exp[p][2c + δ] = E_DN[2p + δ][c]`, an `(M/64) x 2N` tile; the source's rows and valid
/// rows must be multiples of 64 (`npu/a5/TQuant.hpp` asserts both).
pub fn quant_mx(mem: &mut Memory, alg: MxAlg, grp_axis: i64, interleave: bool, t: &MxTiles) -> Result<(), Fault> {
    let src = &t.src;
    let along_cols = match grp_axis {
        1 => true,
        0 => false,
        other => return Err(Fault(format!("grp_axis must be 0 or 1, found {other}"))),
    };
    if interleave {
        if along_cols {
            return Err(Fault("`interleave` applies to DN quantization only (grp_axis 0, tquant_dn)".into()));
        }
        let pair_rows = 2 * GROUP;
        if !(src.desc.rows as usize).is_multiple_of(pair_rows) || !src.vrows.is_multiple_of(pair_rows) {
            return Err(Fault(format!(
                "DN `interleave` needs rows and valid rows that are multiples of {pair_rows}, found {} and {}",
                src.desc.rows, src.vrows
            )));
        }
    }
    // ND: valid rows x capacity columns; DN: capacity rows x valid columns.
    let (rows, cols) = if along_cols { (src.vrows, src.desc.cols as usize) } else { (src.desc.rows as usize, src.vcols) };
    let along = if along_cols { cols } else { rows };
    if !along.is_multiple_of(GROUP) {
        return Err(Fault(format!(
            "MX quantization needs a multiple of {GROUP} {}, found {along}",
            if along_cols { "columns" } else { "rows" }
        )));
    }
    let (lanes, groups) = if along_cols { (rows, cols / GROUP) } else { (cols, rows / GROUP) };
    let at_group = |lane: usize, g: usize, inner: usize| if along_cols { (lane, g * GROUP + inner) } else { (g * GROUP + inner, lane) };
    if along_cols {
        t.exp.covers(rows, groups, "tquant's exp")?
    } else if interleave {
        t.exp.covers(groups / 2, 2 * cols, "tquant's interleaved exp")?
    } else {
        t.exp.covers(groups, cols, "tquant's exp")?
    }
    t.dst.covers(rows, cols, "tquant's dst")?;
    let flat_cap = |v: &TileView| v.desc.rows as usize * v.desc.cols as usize;
    for v in [&t.max, &t.scaling] {
        if flat_cap(v) < lanes * groups {
            return Err(Fault(format!(
                "tquant's max / scaling tile holds {} values, the source has {} groups",
                flat_cap(v),
                lanes * groups
            )));
        }
    }
    let fp4 = alg.fp4();
    if fp4 {
        mem.slice_mut(t.dst.loc, t.dst.addr, t.dst.size_bytes() as usize)?.fill(0);
    }
    let src_dtype = src.desc.dtype;
    let mut xs = vec![0f32; GROUP];
    for lane in 0..lanes {
        for g in 0..groups {
            for (inner, x) in xs.iter_mut().enumerate() {
                let (r, c) = at_group(lane, g, inner);
                *x = read_f64(mem, src, r, c)? as f32;
            }
            let max = group_max(alg, &xs);
            let e = shared_exponent(alg, max);
            let scaling = group_scaling(alg, max, e);
            let flat = if along_cols { lane * groups + g } else { g * lanes + lane };
            write_flat(mem, &t.max, flat, f64::from(max))?;
            write_flat(mem, &t.scaling, flat, f64::from(scaling))?;
            let (er, ec) = match (along_cols, interleave) {
                (true, _) => (lane, g),
                (false, false) => (g, lane),
                (false, true) => (g / 2, 2 * lane + g % 2),
            };
            write_byte(mem, &t.exp, er, ec, e)?;
            for (inner, &x) in xs.iter().enumerate() {
                let (r, c) = at_group(lane, g, inner);
                let code = encode(alg, src_dtype, x, scaling);
                if fp4 {
                    let k = r * t.dst.desc.cols as usize + c;
                    let byte = &mut mem.slice_mut(t.dst.loc, t.dst.addr + (k / 2) as u64, 1)?[0];
                    *byte = if k.is_multiple_of(2) { (*byte & 0xF0) | code } else { (*byte & 0x0F) | (code << 4) };
                } else {
                    write_byte(mem, &t.dst, r, c, code)?;
                }
            }
        }
    }
    Ok(())
}

/// Writes `v` (converted) at flat position `k` of `t`'s row-major capacity.
fn write_flat(mem: &mut Memory, t: &TileView, k: usize, v: f64) -> Result<(), Fault> {
    let cols = t.desc.cols as usize;
    dispatch!(t.desc.dtype, U => {
        let d = mem.slice_mut(t.loc, t.addr, t.size_bytes() as usize)?;
        put(d, t, k / cols, k % cols, U::from_f64(v))
    }, _ => Err(unsupported(t)))
}

/// Stores the byte `code` as element `(r, c)` of a one-byte tile (i8, ui8, f8E4M3FN, E8M0).
fn write_byte(mem: &mut Memory, t: &TileView, r: usize, c: usize, code: u8) -> Result<(), Fault> {
    if t.elem_size() != 1 {
        return Err(Fault(format!("{} elements cannot hold 8-bit codes", t.desc.dtype)));
    }
    let d = mem.slice_mut(t.loc, t.addr, t.size_bytes() as usize)?;
    put(d, t, r, c, code)
}

fn mx_op(m: &mut Machine<'_>, a: &Args<'_>, grp_axis: i64) -> Result<(), Fault> {
    // Without `mx_alg`, pto-isa's legacy overload: MXFP8 with the OCP exponent.
    let alg = MxAlg::parse(a.attr("mx_alg").and_then(|x| x.enum_value("mx_alg")).unwrap_or("OcpMxFp8E4M3"))?;
    let grp_axis = a.int_attr("grp_axis")?.unwrap_or(grp_axis);
    let tiles = MxTiles { src: a.tile("src")?, max: a.tile("max")?, scaling: a.tile("scaling")?, dst: a.tile("dst")?, exp: a.tile("exp")? };
    quant_mx(m.mem, alg, grp_axis, a.flag("interleave"), &tiles)
}

/// `SHIFT_MX_ADDR` (`npu/a5/utils.hpp`): an operand's scales live at its L0A / L0B address
/// shifted right by 4 in the scale memory beside it.
pub const SHIFT_MX_ADDR: u32 = 4;

/// `tget_scale_addr`: `dst` (its type kept) placed at `src`'s address >> [`SHIFT_MX_ADDR`], in
/// the scale memory of `src`'s location (a `left` tile's scales in `scale_left`, a `right`
/// tile's in `scale_right`; any other source: `dst`'s own memory).
pub fn scale_addr(src: &TileView, dst: &TileView) -> TileView {
    use pto_ir::types::Loc;
    let loc = match src.loc {
        Loc::Left => Loc::ScaleLeft,
        Loc::Right => Loc::ScaleRight,
        _ => dst.loc,
    };
    TileView { loc, addr: src.addr >> SHIFT_MX_ADDR, ..*dst }
}

/// This module's instructions.
pub const SEMANTICS: &[(Opcode, Semantics)] = &[
    (Opcode::TQuant, |m, a| {
        if a.opt_tile("exp").is_some() {
            return mx_op(m, a, 1);
        }
        let kind = match a.attr("quant_type").and_then(|x| x.enum_value("quant_type")) {
            Some("INT8_ASYM") => Int8::Asym,
            Some(_) => Int8::Sym,
            // Without the attribute, the destination type says which (i8 SYM, ui8 ASYM).
            None if a.tile("dst")?.desc.dtype == ElemType::U8 => Int8::Asym,
            None => Int8::Sym,
        };
        let offset = a.opt_tile("offset");
        if kind == Int8::Asym && offset.is_none() {
            return Err(Fault("INT8_ASYM quantization needs an offset tile".into()));
        }
        let offset = if kind == Int8::Asym { offset } else { None };
        quant_int8(m.mem, kind, &a.tile("src")?, &a.tile("scale")?, offset.as_ref(), &a.tile("dst")?)
    }),
    (Opcode::TQuantDn, |m, a| mx_op(m, a, 0)),
    (Opcode::TGetScaleAddr, |m, a| {
        m.rebind.push(("dst", crate::value::Val::Tile(scale_addr(&a.tile("src")?, &a.tile("dst")?))));
        Ok(())
    }),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_exponents_follow_pto_isa() {
        // OCP FP8: biased exponent - 8; 448 = 1.75 * 2^8 has biased exponent 135 -> 127 (scale 1).
        assert_eq!(shared_exponent(MxAlg::OcpFp8, 448.0), 127);
        assert_eq!(group_scaling(MxAlg::OcpFp8, 448.0, 127), 1.0);
        assert_eq!(shared_exponent(MxAlg::OcpFp8, 1.0), 119);
        assert_eq!(group_scaling(MxAlg::OcpFp8, 1.0, 119), 256.0);
        assert_eq!(shared_exponent(MxAlg::OcpFp8, 0.0), 0);
        assert_eq!(shared_exponent(MxAlg::OcpFp8, f32::NAN), 0xFF);
        // OCP FP4: biased exponent - 2; 6 = 1.5 * 2^2 -> 127.
        assert_eq!(shared_exponent(MxAlg::OcpFp4, 6.0), 127);
        // NV FP8: exponent of max / 448 rounded up when it has a mantissa.
        assert_eq!(shared_exponent(MxAlg::NvFp8, 448.0), 127);
        assert_eq!(shared_exponent(MxAlg::NvFp8, 449.0), 128);
        // Exponent 254 gives 2^0 bits 0: the smallest scaling 2^-127.
        assert_eq!(group_scaling(MxAlg::OcpFp8, 1.0, 254), 2f32.powi(-127));
    }

    #[test]
    fn group_max_ignores_or_propagates_nan() {
        assert_eq!(group_max(MxAlg::OcpFp8, &[1.0, f32::NAN, -3.0]), 3.0);
        assert!(group_max(MxAlg::NvFp4, &[1.0, f32::NAN]).is_nan());
        // OCP FP4 truncates to bf16: 3.0078125 (0x40408000) -> 3.0.
        assert_eq!(group_max(MxAlg::OcpFp4, &[3.0078125, -1.0]), 3.0);
    }
}
