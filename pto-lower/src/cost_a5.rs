//! # A5 vector cycles: pto-isa's A5 formula model
//!
//! On A5 the vector work of an op runs as a vector function (VF) of repeats; pto-isa's
//! lightweight A5 model (`include/pto/costmodel/a5/vf_costmodel.hpp`,
//! `formula_costmodel/formula_backend_vf.hpp` at 3186c381) times it with a curve fitted per
//! (op, source and destination type, shape path, VF implementation, tail, op parameters),
//! listed in its `formula_params.csv` (kept as `pto-lower/data/a5_vf_formula.csv`). This module
//! is that model: the curve is chosen from the op's shape exactly as pto-isa chooses it, and
//! evaluated over its loop counts:
//!
//! - the **shape path** is 1D (the valid region as one line) when the valid columns fill the
//!   rows, or the tile is one row (not for the scalar ops, which are 2D whenever the columns
//!   are not full), else 2D (row by row);
//! - **repeats** hold 256 bytes of the source type (64 f32, 128 f16/bf16, 256 8-bit; 64 for
//!   the f8 / hif8 sources, and for casts as pto-isa's `TryGetA5CvtElementsPerRepeat` says);
//! - `loop_count` repeats in all, `outer` rows (1 on the 1D path), `inner` repeats a row,
//!   `tail` elements in the last repeat;
//! - the curve is `linear` `p0·loop + p1`, `linear_rows` `p0·loop + p1·outer + p2`,
//!   `linear_tail` `p0·loop + p1·tail + p2` or `nested_loop` `(p0·inner + p1)·outer + p2`,
//!   rounded to whole cycles.
//!
//! An op without a curve (anything but the ops the table lists) has no A5 formula: the caller
//! falls back to the A2A3 model ([`crate::cost`]).

use pto_ir::ops::Opcode;
use std::sync::OnceLock;

/// How the VF is implemented (pto-isa's `VFImplKind`); `Default` lets the model choose.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum VfImpl {
    /// The model's default for the op and shape path.
    #[default]
    Default,
    /// `VFIMPL_1D_NO_POST_UPDATE` / `VFIMPL_2D_NO_POST_UPDATE`.
    NoPostUpdate,
    /// `VFIMPL_1D_POST_UPDATE` / `VFIMPL_2D_POST_UPDATE`.
    PostUpdate,
}

impl VfImpl {
    /// `DEFAULT`, `1D_NO_POST_UPDATE`, `2D_POST_UPDATE`, ... (the spelling of pto-isa's enum
    /// without its `VFIMPL_` prefix).
    pub fn parse(text: &str) -> Option<VfImpl> {
        let t = text.trim_start_matches("VFIMPL_");
        let t = t.strip_prefix("1D_").or_else(|| t.strip_prefix("2D_")).unwrap_or(t);
        match t {
            "DEFAULT" => Some(VfImpl::Default),
            "NO_POST_UPDATE" => Some(VfImpl::NoPostUpdate),
            "POST_UPDATE" => Some(VfImpl::PostUpdate),
            _ => None,
        }
    }
}

/// One op as the A5 formula model sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct VfQuery<'a> {
    /// The op.
    pub opcode: Opcode,
    /// Source element type, as pto spells it (`f32`, `bf16`, `f8e4m3`, `f4e2m1`).
    pub src: &'a str,
    /// Destination element type (a cast's; anything for other ops).
    pub dst: &'a str,
    /// Tile capacity.
    pub rows: u64,
    /// Tile capacity.
    pub cols: u64,
    /// Valid rows (0: all).
    pub valid_rows: u64,
    /// Valid columns (0: all).
    pub valid_cols: u64,
    /// The VF implementation.
    pub vf_impl: VfImpl,
    /// The op's curve parameter where it has one (`high_precision` for `trecip`; a cast's
    /// rounding and saturation as `CAST_RINT_SAT_ON_normal`); `None`: the model's default.
    pub op_params: Option<&'a str>,
}

/// pto-isa's key of an element type (`fp32`, `fp8_e4m3`, `int8`).
fn dtype_key(spelling: &str) -> Option<&'static str> {
    Some(match spelling.to_ascii_lowercase().as_str() {
        "f32" => "fp32",
        "f16" => "fp16",
        "bf16" => "bf16",
        "f8e4m3" | "f8e4m3fn" => "fp8_e4m3",
        "f8e5m2" => "fp8_e5m2",
        "hif8" => "hif8",
        "f4e1m2" => "fp4_e1m2",
        "f4e2m1" => "fp4_e2m1",
        "i8" => "int8",
        "i16" => "int16",
        "i32" => "int32",
        "u8" | "ui8" => "uint8",
        "u16" | "ui16" => "uint16",
        "u32" | "ui32" => "uint32",
        _ => return None,
    })
}

/// Elements one repeat holds for a source type (`TryGetA5ElementsPerRepeatByDTypeKey`).
fn per_repeat(key: &str) -> Option<u64> {
    Some(match key {
        "fp16" | "bf16" | "int16" | "uint16" => 128,
        "fp32" | "int32" | "uint32" | "fp8_e4m3" | "fp8_e5m2" | "hif8" => 64,
        "fp4_e1m2" | "fp4_e2m1" | "int8" | "uint8" => 256,
        _ => return None,
    })
}

/// A cast's elements per repeat (`TryGetA5CvtElementsPerRepeat`): widening 16-bit floats to
/// f32 repeats over the f32 result; on the 2D path narrowing casts repeat over 16-bit lanes.
fn cast_per_repeat(src: &str, dst: &str, two_d: bool) -> Option<u64> {
    let half = matches!(src, "fp16" | "bf16");
    if half && dst == "fp32" {
        return Some(64);
    }
    let narrowing = (src == "fp32" && matches!(dst, "fp16" | "bf16" | "fp8_e4m3" | "fp8_e5m2" | "hif8"))
        || (half && matches!(dst, "fp16" | "fp4_e1m2" | "fp4_e2m1" | "hif8"));
    if two_d && narrowing {
        return Some(128);
    }
    per_repeat(src)
}

/// The ops whose shape path is 2D whenever the valid columns are not full, even on one row
/// (`IsA5ScalarVfOp`: the tile-scalar ops, and `tneg`, a multiply by -1).
const SCALAR_VF_OPS: &[Opcode] = &[Opcode::TAdds, Opcode::TSubs, Opcode::TMuls, Opcode::TDivs, Opcode::TMins, Opcode::TMaxs, Opcode::TNeg];

/// One fitted curve.
#[derive(Clone, Debug, PartialEq)]
struct Curve {
    op: String,
    src: String,
    dst: String,
    two_d: bool,
    /// `NO_POST_UPDATE`, `POST_UPDATE` or `DEFAULT` (tsel's own 2D curve).
    vf_impl: String,
    tail: bool,
    op_params: String,
    kind: String,
    p: [f64; 4],
}

/// The curves of `data/a5_vf_formula.csv`.
fn curves() -> &'static [Curve] {
    static CURVES: OnceLock<Vec<Curve>> = OnceLock::new();
    CURVES.get_or_init(|| {
        crate::cost::table_rows(include_str!("../data/a5_vf_formula.csv"))
            .filter_map(|f| {
                let num = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok());
                Some(Curve {
                    op: f.first()?.to_string(),
                    src: f.get(1)?.to_string(),
                    dst: f.get(2)?.to_string(),
                    two_d: *f.get(3)? == "2D",
                    vf_impl: f.get(4)?.to_string(),
                    tail: *f.get(5)? == "tail",
                    op_params: f.get(6)?.to_string(),
                    kind: f.get(7)?.to_string(),
                    p: [num(8)?, num(9)?, num(10)?, num(11)?],
                })
            })
            .collect()
    })
}

/// The op's VF cycles on A5, or `None` when the formula model has no curve for it.
pub fn vf_cycles(q: &VfQuery<'_>) -> Option<f64> {
    vf_time(q).map(|t| t.cycles)
}

/// What the A5 formula model says of an op.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct VfTime {
    /// Modelled cycles, rounded as pto-isa rounds them.
    pub cycles: f64,
    /// Repeats of the vector function in all (its loop count).
    pub repeats: u64,
}

/// The op's VF cycles and repeats on A5, or `None` when the formula model has no curve for it.
pub fn vf_time(q: &VfQuery<'_>) -> Option<VfTime> {
    let op_key = q.opcode.spec().name.to_ascii_uppercase();
    let valid_rows = if q.valid_rows > 0 { q.valid_rows } else { q.rows };
    let valid_cols = if q.valid_cols > 0 { q.valid_cols } else { q.cols };
    if valid_rows == 0 || valid_cols == 0 {
        return None;
    }
    let full_cols = valid_cols == q.cols;
    let two_d = if SCALAR_VF_OPS.contains(&q.opcode) { !full_cols } else { !(q.rows == 1 || full_cols) };
    let src = dtype_key(q.src)?;
    let cast = q.opcode == Opcode::TCvt;
    let dst = if cast { dtype_key(q.dst)? } else { "none" };
    let per = if cast { cast_per_repeat(src, dst, two_d)? } else { per_repeat(src)? };
    let (loop_count, outer, inner, tail) = if two_d {
        let inner = valid_cols.div_ceil(per);
        (valid_rows * inner, valid_rows, inner, valid_cols % per)
    } else {
        let inner = (valid_rows * valid_cols).div_ceil(per);
        (inner, 1, inner, (valid_rows * valid_cols) % per)
    };
    let op_params = match q.op_params {
        Some(p) => p.to_string(),
        None if cast => "CAST_RINT_SAT_ON_normal".into(),
        None if q.opcode == Opcode::TRecip => "default".into(),
        None if q.opcode == Opcode::TSel => match src {
            "fp32" if two_d => "TSel_b32".into(),
            "fp32" if inner % 2 == 0 => "TSel_b32_even".into(),
            "fp32" => "TSel_b32_odd".into(),
            "fp16" | "int8" => "TSel_b16_8".into(),
            _ => return None,
        },
        None => String::new(),
    };
    // ResolveVfImplKind / ResolveDefaultVfImplKind: casts post-update on the 2D path, tsel
    // its own `DEFAULT` curve there, the others post-update on the 1D path.
    let vf_impl = match q.vf_impl {
        VfImpl::NoPostUpdate => "NO_POST_UPDATE",
        VfImpl::PostUpdate => "POST_UPDATE",
        VfImpl::Default if cast => ["NO_POST_UPDATE", "POST_UPDATE"][two_d as usize],
        VfImpl::Default if q.opcode == Opcode::TSel => ["NO_POST_UPDATE", "DEFAULT"][two_d as usize],
        VfImpl::Default => ["POST_UPDATE", "NO_POST_UPDATE"][two_d as usize],
    };
    let c = curves().iter().find(|c| {
        c.op == op_key
            && c.src == src
            && c.dst == dst
            && c.two_d == two_d
            && c.vf_impl == vf_impl
            && c.tail == (tail != 0)
            && c.op_params == op_params
    })?;
    let (l, o, i, t) = (loop_count as f64, outer as f64, inner as f64, tail as f64);
    let value = match c.kind.as_str() {
        "linear" => c.p[0] * l + c.p[1],
        "linear_rows" => c.p[0] * l + c.p[1] * o + c.p[2],
        "linear_tail" => c.p[0] * l + c.p[1] * t + c.p[2],
        "nested_loop" => (c.p[0] * i + c.p[1]) * o + c.p[2],
        _ => return None,
    };
    Some(VfTime { cycles: if value <= 0.0 { 0.0 } else { value.round() }, repeats: loop_count })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(opcode: Opcode, src: &'static str, rows: u64, cols: u64, valid_cols: u64) -> VfQuery<'static> {
        VfQuery { opcode, src, dst: src, rows, cols, valid_rows: rows, valid_cols, vf_impl: VfImpl::Default, op_params: None }
    }

    #[test]
    fn a_full_row_is_a_line_of_repeats_on_the_linear_curve() {
        // tadd f32, 1 x 192: 3 repeats of 64 on the 1D post-update curve 1.2469671·3 + 55.073657.
        assert_eq!(vf_cycles(&q(Opcode::TAdd, "f32", 1, 192, 192)), Some((1.2469671f64 * 3.0 + 55.073657).round()));
    }

    #[test]
    fn partial_columns_of_several_rows_take_the_nested_loop_curve() {
        // tadd f32, 2 x 224 with 192 valid columns: 2D, 3 repeats a row over 2 rows,
        // (1.8749443·3 + 2.8762808)·2 + 44.344619.
        let expected = ((1.8749443f64 * 3.0 + 2.8762808) * 2.0 + 44.344619).round();
        assert_eq!(vf_cycles(&q(Opcode::TAdd, "f32", 2, 224, 192)), Some(expected));
        // The scalar ops go 2D on one row too.
        let one_row = vf_cycles(&q(Opcode::TMins, "f32", 1, 224, 192)).unwrap();
        let line = vf_cycles(&q(Opcode::TMins, "f32", 1, 192, 192)).unwrap();
        assert_ne!(one_row, line);
    }

    #[test]
    fn every_row_of_the_table_is_a_curve() {
        let rows = crate::cost::table_rows(include_str!("../data/a5_vf_formula.csv"));
        assert_eq!(curves().len(), rows.count());
        assert!(curves().iter().all(|c| ["linear", "linear_rows", "linear_tail", "nested_loop"].contains(&c.kind.as_str())));
    }

    #[test]
    fn ops_without_a_curve_have_no_formula() {
        assert_eq!(vf_cycles(&q(Opcode::TRowSum, "f32", 16, 64, 64)), None);
        assert_eq!(vf_cycles(&q(Opcode::TAdd, "i64", 16, 64, 64)), None);
        assert!(VfImpl::parse("1D_POST_UPDATE") == Some(VfImpl::PostUpdate) && VfImpl::parse("x").is_none());
    }
}
