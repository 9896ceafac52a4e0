//! One helper per instruction family, generic over the element type and dispatched once per
//! op. Every helper iterates the destination's valid region (the pto-isa convention for
//! elementwise ops) and reads sources at the same `(i, j)`.

use crate::data::TileData;
use crate::dispatch;
use crate::elem::Elem;
use crate::memory::{Fault, Memory};
use crate::view::TileView;

/// A scalar operand.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Num {
    /// Integer.
    I(i64),
    /// Float.
    F(f64),
}

impl Num {
    fn to<T: Elem>(self) -> T {
        match self {
            Num::I(i) => T::from_i64(i),
            Num::F(f) => T::from_f64(f),
        }
    }
}

/// Binary element operations (tile-tile and tile-scalar).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b`
    Div,
    /// `min(a, b)`
    Min,
    /// `max(a, b)`
    Max,
    /// `a & b`
    And,
    /// `a | b`
    Or,
    /// `a ^ b`
    Xor,
    /// `a << b`
    Shl,
    /// `a >> b` (arithmetic for signed, logical for unsigned)
    Shr,
    /// `a >> b` plus the last bit shifted out (signed rounding shift; `tshrs {round}`)
    ShrRound,
}

/// Unary element operations.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `|a|`
    Abs,
    /// `-a`
    Neg,
    /// `exp(a)`
    Exp,
    /// `ln(a)`
    Log,
    /// `sqrt(a)`
    Sqrt,
    /// `1/sqrt(a)`
    Rsqrt,
    /// `1/a`
    Recip,
    /// `max(a, 0)`
    Relu,
    /// `!a` (bitwise)
    Not,
}

fn shift<T: Elem>(a: T, n: i64, op: BinOp) -> Result<T, Fault> {
    let w = T::width() as i64;
    if !(0..=w).contains(&n) {
        return Err(Fault(format!("shift amount {n} outside [0, {w}] for {w}-bit elements")));
    }
    let mask = u64::MAX >> (64 - w);
    Ok(match op {
        BinOp::Shl => T::from_raw_bits(if n >= 64 { 0 } else { (a.raw_bits() << n) & mask }),
        _ if T::signed() && !T::FLOAT => {
            let v = a.to_i64();
            let shifted = v >> std::cmp::min(n, 63);
            let round = if op == BinOp::ShrRound && n > 0 { (v >> std::cmp::min(n - 1, 63)) & 1 } else { 0 };
            T::from_i64(shifted + round)
        }
        _ => {
            let v = a.raw_bits();
            let shifted = if n >= 64 { 0 } else { v >> n };
            let round = if op == BinOp::ShrRound && n > 0 { (v >> (n - 1)) & 1 } else { 0 };
            T::from_raw_bits(shifted + round)
        }
    })
}

fn apply<T: Elem>(op: BinOp, a: T, b: T) -> Result<T, Fault> {
    Ok(match op {
        BinOp::Add => a.add(b),
        BinOp::Sub => a.sub(b),
        BinOp::Mul => a.mul(b),
        BinOp::Div => a.div(b).ok_or_else(|| Fault("integer division by zero".into()))?,
        BinOp::Min => a.minimum(b),
        BinOp::Max => a.maximum(b),
        BinOp::And => T::from_raw_bits(a.raw_bits() & b.raw_bits()),
        BinOp::Or => T::from_raw_bits(a.raw_bits() | b.raw_bits()),
        BinOp::Xor => T::from_raw_bits(a.raw_bits() ^ b.raw_bits()),
        BinOp::Shl | BinOp::Shr | BinOp::ShrRound => shift(a, b.to_i64(), op)?,
    })
}

fn unop<T: Elem>(op: UnOp, a: T) -> T {
    match op {
        UnOp::Abs => a.abs(),
        UnOp::Neg => a.neg(),
        UnOp::Exp => a.via_f64(f64::exp),
        UnOp::Log => a.via_f64(f64::ln),
        UnOp::Sqrt => a.via_f64(f64::sqrt),
        UnOp::Rsqrt => a.via_f64(|x| 1.0 / x.sqrt()),
        UnOp::Recip => {
            if T::FLOAT {
                a.via_f64(|x| 1.0 / x)
            } else {
                T::from_i64(1).div(a).unwrap_or(a)
            }
        }
        UnOp::Relu => a.maximum(T::from_i64(0)),
        UnOp::Not => T::from_raw_bits(!a.raw_bits()),
    }
}

/// Storage bytes of a tile.
fn storage<'a>(mem: &'a Memory, v: &TileView) -> Result<&'a [u8], Fault> {
    mem.slice(v.loc, v.addr, v.size_bytes() as usize)
}

/// Reads the valid region of `v` (row-major).
fn read<T: Elem>(mem: &Memory, v: &TileView) -> Result<Vec<T>, Fault> {
    let s = storage(mem, v)?;
    let mut out = Vec::with_capacity(v.vrows * v.vcols);
    for r in 0..v.vrows {
        for c in 0..v.vcols {
            let o = v.offset(r, c) * T::SIZE;
            out.push(T::load(&s[o..]));
        }
    }
    Ok(out)
}

/// Writes `vals` (row-major, `v.vrows x v.vcols`) into the valid region of `v`.
fn write<T: Elem>(mem: &mut Memory, v: &TileView, vals: &[T]) -> Result<(), Fault> {
    let s = mem.slice_mut(v.loc, v.addr, v.size_bytes() as usize)?;
    for r in 0..v.vrows {
        for c in 0..v.vcols {
            let o = v.offset(r, c) * T::SIZE;
            vals[r * v.vcols + c].store(&mut s[o..]);
        }
    }
    Ok(())
}

/// Reads a source at the destination's valid shape (sources must cover it).
fn read_as<T: Elem>(mem: &Memory, src: &TileView, dst: &TileView) -> Result<Vec<T>, Fault> {
    if src.desc.dtype != dst.desc.dtype {
        return Err(Fault(format!("source element type {} differs from destination {}", src.desc.dtype, dst.desc.dtype)));
    }
    if (src.desc.rows as usize) < dst.vrows || (src.desc.cols as usize) < dst.vcols {
        return Err(Fault(format!(
            "source capacity {}x{} is smaller than the destination's valid shape {}x{}",
            src.desc.rows, src.desc.cols, dst.vrows, dst.vcols
        )));
    }
    let view = TileView { vrows: dst.vrows, vcols: dst.vcols, ..*src };
    read(mem, &view)
}

fn unsupported(v: &TileView) -> Fault {
    Fault(format!("element type {} is not supported by the simulator", v.desc.dtype))
}

/// `dst = a op b` over dst's valid region.
pub fn binary(mem: &mut Memory, op: BinOp, a: &TileView, b: &TileView, dst: &TileView) -> Result<(), Fault> {
    dispatch!(dst.desc.dtype, T => {
        let (x, y) = (read_as::<T>(mem, a, dst)?, read_as::<T>(mem, b, dst)?);
        let out = x.iter().zip(&y).map(|(&p, &q)| apply(op, p, q)).collect::<Result<Vec<T>, _>>()?;
        write(mem, dst, &out)
    }, _ => Err(unsupported(dst)))
}

/// `dst = src op s` (or `s op src` when `scalar_first`).
pub fn binary_scalar(mem: &mut Memory, op: BinOp, src: &TileView, s: Num, scalar_first: bool, dst: &TileView) -> Result<(), Fault> {
    dispatch!(dst.desc.dtype, T => {
        let k: T = s.to();
        let x = read_as::<T>(mem, src, dst)?;
        let out = x.iter().map(|&p| if scalar_first { apply(op, k, p) } else { apply(op, p, k) }).collect::<Result<Vec<T>, _>>()?;
        write(mem, dst, &out)
    }, _ => Err(unsupported(dst)))
}

/// `dst = f(src)`.
pub fn unary(mem: &mut Memory, op: UnOp, src: &TileView, dst: &TileView) -> Result<(), Fault> {
    dispatch!(dst.desc.dtype, T => {
        let x = read_as::<T>(mem, src, dst)?;
        let out: Vec<T> = x.iter().map(|&p| unop(op, p)).collect();
        write(mem, dst, &out)
    }, _ => Err(unsupported(dst)))
}

/// `dst = s` over dst's valid region.
pub fn fill(mem: &mut Memory, s: Num, dst: &TileView) -> Result<(), Fault> {
    dispatch!(dst.desc.dtype, T => {
        let k: T = s.to();
        write(mem, dst, &vec![k; dst.vrows * dst.vcols])
    }, _ => Err(unsupported(dst)))
}

/// The valid region of a tile as [`TileData`].
pub fn read_region(mem: &Memory, v: &TileView) -> Result<TileData, Fault> {
    let s = storage(mem, v)?;
    let size = v.elem_size();
    let mut bytes = Vec::with_capacity(v.vrows * v.vcols * size);
    for r in 0..v.vrows {
        for c in 0..v.vcols {
            let o = v.offset(r, c) * size;
            bytes.extend_from_slice(&s[o..o + size]);
        }
    }
    Ok(TileData { dtype: v.desc.dtype, rows: v.vrows, cols: v.vcols, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_follow_the_vector_isa() {
        // u16 0b1010101010101010 >> 1 (logical), i16 same bits >> 1 and >> 3 (arithmetic).
        assert_eq!(shift(0b1010_1010_1010_1010u16, 1, BinOp::Shr).unwrap(), 0b0101_0101_0101_0101);
        assert_eq!(shift(0b1010_1010_1010_1010u16 as i16, 1, BinOp::Shr).unwrap() as u16, 0b1101_0101_0101_0101);
        assert_eq!(shift(0b1010_1010_1010_1010u16 as i16, 3, BinOp::Shr).unwrap() as u16, 0b1111_0101_0101_0101);
        assert_eq!(shift(17i32, 5, BinOp::ShrRound).unwrap(), 1);
        assert_eq!(shift(17i32, 5, BinOp::Shr).unwrap(), 0);
        assert_eq!(shift(-21846i16, 3, BinOp::Shr).unwrap(), -2731);
        assert!(shift(1i16, 17, BinOp::Shr).is_err());
        assert_eq!(shift(1u32, 32, BinOp::Shl).unwrap(), 0);
    }
}
