//! The scalar unit's `arith` ops beyond the signed integer core the interpreter evaluates
//! inline: unsigned division and remainder, ceiling and floor division, shifts, unsigned
//! min/max, every float op, `cmpf` and the conversions, as MLIR's `arith` dialect defines them.
//!
//! Integers are held sign-extended from their width (`i32`: 32 bits; `index`: 64) in an `i64`;
//! an unsigned op reads its operands zero-extended from that width and writes its result back
//! sign-extended. Floats are held in an `f64` rounded to their type (`f32`, `f16`, `bf16`).

use pto_ir::ops::Opcode;
use pto_ir::types::ElemType;

/// A scalar value of the interpreter.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Scalar {
    /// An integer, sign-extended from its width.
    Int(i64),
    /// A float, rounded to its type.
    Float(f64),
}

/// The bit width of an integer type (`index` is 64 bits).
pub fn int_width(t: ElemType) -> u32 {
    match t {
        ElemType::I1 => 1,
        ElemType::Index => 64,
        other => (other.size_bytes() * 8).clamp(1, 64),
    }
}

/// `v` truncated to `width` bits and sign-extended back.
pub fn sext(v: i64, width: u32) -> i64 {
    if width >= 64 { v } else { (v << (64 - width)) >> (64 - width) }
}

/// `v` truncated to `width` bits, zero-extended.
fn zext(v: i64, width: u32) -> u64 {
    if width >= 64 { v as u64 } else { (v as u64) & ((1u64 << width) - 1) }
}

/// `x` rounded to float type `t` (f64 stays).
pub fn round_float(x: f64, t: ElemType) -> f64 {
    match t {
        ElemType::F32 => x as f32 as f64,
        ElemType::F16 => half::f16::from_f64(x).to_f64(),
        ElemType::BF16 => half::bf16::from_f64(x).to_f64(),
        _ => x,
    }
}

/// Evaluates binary op `op` on `a` and `b` of type `t`; `Err` for a division by zero or an op
/// this module does not evaluate.
pub fn binary(op: Opcode, a: Scalar, b: Scalar, t: ElemType) -> Result<Scalar, String> {
    use Scalar::{Float, Int};
    let w = int_width(t);
    Ok(match (a, b) {
        (Int(a), Int(b)) => {
            let (ua, ub) = (zext(a, w), zext(b, w));
            let nonzero = || if b == 0 { Err("integer division by zero".to_string()) } else { Ok(()) };
            let r = match op {
                Opcode::ArithDivui => {
                    nonzero()?;
                    (ua / ub) as i64
                }
                Opcode::ArithRemui => {
                    nonzero()?;
                    (ua % ub) as i64
                }
                Opcode::ArithCeildivui => {
                    nonzero()?;
                    ua.div_ceil(ub) as i64
                }
                Opcode::ArithCeildivsi => {
                    nonzero()?;
                    let (q, r) = (a.wrapping_div(b), a.wrapping_rem(b));
                    if r != 0 && (r > 0) == (b > 0) { q + 1 } else { q }
                }
                Opcode::ArithFloordivsi => {
                    nonzero()?;
                    let (q, r) = (a.wrapping_div(b), a.wrapping_rem(b));
                    if r != 0 && (r < 0) != (b < 0) { q - 1 } else { q }
                }
                // MLIR: a shift by the width or more is poison; the hardware's scalar unit
                // shifts by the amount modulo 64. pto takes the amount modulo the width.
                Opcode::ArithShli => a.wrapping_shl((ub % u64::from(w)) as u32),
                Opcode::ArithShrsi => sext(a, w) >> (ub % u64::from(w)),
                Opcode::ArithShrui => (ua >> (ub % u64::from(w))) as i64,
                Opcode::ArithMaxui => ua.max(ub) as i64,
                Opcode::ArithMinui => ua.min(ub) as i64,
                _ => return Err(format!("`{}` on integers", op.full_name())),
            };
            Int(sext(r, w))
        }
        (Float(a), Float(b)) => {
            let r = match op {
                Opcode::ArithAddf => a + b,
                Opcode::ArithSubf => a - b,
                Opcode::ArithMulf => a * b,
                Opcode::ArithDivf => a / b,
                Opcode::ArithRemf => a % b,
                Opcode::ArithMaximumf if a.is_nan() || b.is_nan() => f64::NAN,
                Opcode::ArithMinimumf if a.is_nan() || b.is_nan() => f64::NAN,
                Opcode::ArithMaximumf | Opcode::ArithMaxnumf => a.max(b),
                Opcode::ArithMinimumf | Opcode::ArithMinnumf => a.min(b),
                _ => return Err(format!("`{}` on floats", op.full_name())),
            };
            Float(round_float(r, t))
        }
        _ => return Err(format!("`{}` on operands of different kinds", op.full_name())),
    })
}

/// `arith.cmpf` with predicate `pred` (MLIR's names: `oeq`, `ult`, ...).
pub fn cmpf_holds(pred: &str, a: f64, b: f64) -> Option<bool> {
    let unordered = a.is_nan() || b.is_nan();
    let ordered = |f: bool| !unordered && f;
    let or_unordered = |f: bool| unordered || f;
    Some(match pred {
        "false" => false,
        "true" => true,
        "oeq" => ordered(a == b),
        "ogt" => ordered(a > b),
        "oge" => ordered(a >= b),
        "olt" => ordered(a < b),
        "ole" => ordered(a <= b),
        "one" => ordered(a != b),
        "ord" => !unordered,
        "ueq" => or_unordered(a == b),
        "ugt" => or_unordered(a > b),
        "uge" => or_unordered(a >= b),
        "ult" => or_unordered(a < b),
        "ule" => or_unordered(a <= b),
        "une" => or_unordered(a != b),
        "uno" => unordered,
        _ => return None,
    })
}

/// Evaluates conversion `op` of `v` (type `from`) to type `to`.
pub fn convert(op: Opcode, v: Scalar, from: ElemType, to: ElemType) -> Result<Scalar, String> {
    use Scalar::{Float, Int};
    let (wf, wt) = (int_width(from), int_width(to));
    Ok(match (op, v) {
        (Opcode::ArithIndexCast | Opcode::ArithExtsi | Opcode::ArithTrunci, Int(i)) => Int(sext(sext(i, wf), wt)),
        (Opcode::ArithIndexCastui | Opcode::ArithExtui, Int(i)) => Int(sext(zext(i, wf) as i64, wt)),
        (Opcode::ArithSitofp, Int(i)) => Float(round_float(sext(i, wf) as f64, to)),
        (Opcode::ArithUitofp, Int(i)) => Float(round_float(zext(i, wf) as f64, to)),
        // Rust's float-to-int casts saturate (and take NaN to 0), where MLIR leaves an
        // out-of-range result undefined.
        (Opcode::ArithFptosi, Float(f)) => Int(sext(f as i64, wt)),
        (Opcode::ArithFptoui, Float(f)) => Int(sext(f as u64 as i64, wt)),
        (Opcode::ArithExtf | Opcode::ArithTruncf, Float(f)) => Float(round_float(f, to)),
        (Opcode::ArithNegf, Float(f)) => Float(-f),
        (Opcode::ArithBitcast, Int(i)) if to.is_float() => Float(bits_to_float(zext(i, wf), to)?),
        (Opcode::ArithBitcast, Float(f)) if !to.is_float() => Int(sext(float_to_bits(f, from)? as i64, wt)),
        (Opcode::ArithBitcast, same) => same,
        _ => return Err(format!("`{}` from {from:?} to {to:?}", op.full_name())),
    })
}

fn bits_to_float(bits: u64, t: ElemType) -> Result<f64, String> {
    Ok(match t {
        ElemType::F32 => f32::from_bits(bits as u32) as f64,
        ElemType::F64 => f64::from_bits(bits),
        ElemType::F16 => half::f16::from_bits(bits as u16).to_f64(),
        ElemType::BF16 => half::bf16::from_bits(bits as u16).to_f64(),
        other => return Err(format!("a bitcast to {other:?}")),
    })
}

fn float_to_bits(f: f64, t: ElemType) -> Result<u64, String> {
    Ok(match t {
        ElemType::F32 => (f as f32).to_bits() as u64,
        ElemType::F64 => f.to_bits(),
        ElemType::F16 => half::f16::from_f64(f).to_bits() as u64,
        ElemType::BF16 => half::bf16::from_f64(f).to_bits() as u64,
        other => return Err(format!("a bitcast from {other:?}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Scalar::{Float, Int};

    #[test]
    fn unsigned_ops_read_their_width() {
        // -1 : i32 is 0xFFFF_FFFF unsigned.
        assert_eq!(binary(Opcode::ArithDivui, Int(-1), Int(2), ElemType::I32), Ok(Int(0x7FFF_FFFF)));
        assert_eq!(binary(Opcode::ArithRemui, Int(7), Int(3), ElemType::Index), Ok(Int(1)));
        assert_eq!(binary(Opcode::ArithRemui, Int(-1), Int(10), ElemType::I8), Ok(Int(5)));
        assert_eq!(binary(Opcode::ArithShrui, Int(-1), Int(28), ElemType::I32), Ok(Int(15)));
        assert_eq!(binary(Opcode::ArithShrsi, Int(-16), Int(2), ElemType::I32), Ok(Int(-4)));
        assert_eq!(binary(Opcode::ArithShli, Int(1), Int(31), ElemType::I32), Ok(Int(i32::MIN as i64)));
        assert_eq!(binary(Opcode::ArithMaxui, Int(-1), Int(3), ElemType::I16), Ok(Int(-1)));
        assert!(binary(Opcode::ArithRemui, Int(1), Int(0), ElemType::I32).is_err());
    }

    #[test]
    fn ceiling_and_floor_division_round_their_way() {
        assert_eq!(binary(Opcode::ArithCeildivsi, Int(7), Int(2), ElemType::I32), Ok(Int(4)));
        assert_eq!(binary(Opcode::ArithCeildivsi, Int(-7), Int(2), ElemType::I32), Ok(Int(-3)));
        assert_eq!(binary(Opcode::ArithFloordivsi, Int(-7), Int(2), ElemType::I32), Ok(Int(-4)));
        assert_eq!(binary(Opcode::ArithFloordivsi, Int(7), Int(-2), ElemType::I32), Ok(Int(-4)));
        assert_eq!(binary(Opcode::ArithCeildivui, Int(7), Int(2), ElemType::Index), Ok(Int(4)));
    }

    #[test]
    fn floats_round_to_their_type_and_compare_with_nan() {
        assert_eq!(binary(Opcode::ArithAddf, Float(1.0), Float(1e-9), ElemType::F32), Ok(Float(1.0)));
        assert_eq!(binary(Opcode::ArithMaxnumf, Float(f64::NAN), Float(2.0), ElemType::F32), Ok(Float(2.0)));
        assert!(matches!(binary(Opcode::ArithMaximumf, Float(f64::NAN), Float(2.0), ElemType::F32), Ok(Float(x)) if x.is_nan()));
        assert_eq!(cmpf_holds("olt", f64::NAN, 1.0), Some(false));
        assert_eq!(cmpf_holds("ult", f64::NAN, 1.0), Some(true));
        assert_eq!(cmpf_holds("oge", 2.0, 2.0), Some(true));
    }

    #[test]
    fn conversions_extend_and_truncate() {
        assert_eq!(convert(Opcode::ArithExtui, Int(-1), ElemType::I8, ElemType::I32), Ok(Int(255)));
        assert_eq!(convert(Opcode::ArithTrunci, Int(300), ElemType::I32, ElemType::I8), Ok(Int(44)));
        assert_eq!(convert(Opcode::ArithUitofp, Int(-1), ElemType::I8, ElemType::F32), Ok(Float(255.0)));
        assert_eq!(convert(Opcode::ArithFptosi, Float(-2.7), ElemType::F32, ElemType::I32), Ok(Int(-2)));
        assert_eq!(convert(Opcode::ArithBitcast, Float(1.0), ElemType::F32, ElemType::I32), Ok(Int(0x3F80_0000)));
        assert_eq!(convert(Opcode::ArithTruncf, Float(1.0 + 1e-9), ElemType::F64, ElemType::F32), Ok(Float(1.0)));
    }
}
