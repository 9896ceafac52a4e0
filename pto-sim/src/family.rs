//! One helper per instruction family, generic over the element type and dispatched once per
//! op. Every helper iterates the destination's valid region (the pto-isa convention for
//! elementwise ops) and reads sources at the same `(i, j)`.
//!
//! Every element access is checked against its tile ([`at`], [`put`]: the capacity and the
//! storage), and the row fast paths check once that every operand covers the region they
//! stream ([`fast_ok`]): a source smaller than what an op reads is a fault, never a panic and
//! never a read of a neighbouring tile. Buffers sized by a region are allocated only after the
//! region was checked against a tile inside its buffer ([`dst_elements`]).

use crate::data::TileData;
use crate::dispatch;
use crate::elem::Elem;
use crate::memory::{Fault, Memory};
use crate::view::{Piece, Pieces, TileView, element, element_mut};
use bytemuck::Zeroable;
use pto_ir::types::{BLayout, SLayout};
use std::ops::Range;
use std::rc::Rc;

pub use crate::value::Num;

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
    /// `a mod b` with the sign of `b` (`trem`, `trems`: C's `%` / `fmod`, then `+ b` when the
    /// signs differ and the remainder is not 0; pto-isa `cpu/ElementOp.h` `OP_REM`)
    Rem,
    /// `fmod(a, b)`, the sign of `a` (`tfmod`, `tfmods`; integers: C's `%`)
    FMod,
    /// `pow(a, b)` computed in f64 and rounded (integers: truncated) once (`tpow`, `tpows`)
    Pow,
    /// `a > 0 ? a : a * b` (`tprelu` with a slope tile, `tlrelu` with a scalar slope)
    Prelu,
    /// `max(a - b, 0)` (`tsubrelu`)
    SubRelu,
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

pub(crate) fn shift<T: Elem>(a: T, n: i64, op: BinOp) -> Result<T, Fault> {
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

pub(crate) fn apply<T: Elem>(op: BinOp, a: T, b: T) -> Result<T, Fault> {
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
        BinOp::Rem | BinOp::FMod => remainder(a, b, op == BinOp::Rem)?,
        BinOp::Pow => T::from_f64(a.to_f64().powf(b.to_f64())),
        BinOp::Prelu => {
            if a > T::from_i64(0) {
                a
            } else {
                a.mul(b)
            }
        }
        BinOp::SubRelu => a.sub(b).maximum(T::from_i64(0)),
    })
}

/// `fmod(a, b)` (integers: `%`, truncating); with `floored`, moved to the sign of `b` as pto-isa's
/// `OP_REM` does. An integer remainder by zero is a fault; a float one is NaN.
fn remainder<T: Elem>(a: T, b: T, floored: bool) -> Result<T, Fault> {
    let zero = T::from_i64(0);
    let r = if T::FLOAT {
        T::from_f64(a.to_f64() % b.to_f64())
    } else if b == zero {
        return Err(Fault("integer remainder by zero".into()));
    } else if T::signed() {
        // i64 covers every signed element type; `wrapping_rem` makes MIN % -1 = 0, as C's `%`
        // does on the targets (the CPU simulator would trap).
        T::from_i64(a.to_i64().wrapping_rem(b.to_i64()))
    } else {
        T::from_raw_bits(a.raw_bits() % b.raw_bits())
    };
    if floored && ((a >= zero) != (b >= zero)) && r != zero { Ok(r.add(b)) } else { Ok(r) }
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
pub(crate) fn storage<'a>(mem: &'a Memory, v: &TileView) -> Result<&'a [u8], Fault> {
    mem.slice(v.loc, v.addr, v.size_bytes() as usize)
}

/// Element `(r, c)` of `v` from its storage bytes `s`, checked ([`element`]).
pub(crate) fn at<T: Elem>(s: &[u8], v: &TileView, r: usize, c: usize) -> Result<T, Fault> {
    element(s, v, r, c).and_then(|b| if b.len() == T::SIZE { Ok(T::load(b)) } else { Err(width_mismatch::<T>(v)) })
}

/// Elements `(0..n, 0)` of `v` from its storage bytes `s`: one slice when the column is
/// contiguous (a `col_major` vector, or a one-column tile), else element by element ([`at`]).
fn column<T: Elem>(s: &[u8], v: &TileView, n: usize) -> Result<Vec<T>, Fault> {
    let contiguous = v.desc.slayout == SLayout::NoneBox && (v.desc.blayout == BLayout::ColMajor || v.desc.cols == 1);
    if contiguous && T::SIZE == v.elem_size() && n <= v.desc.rows as usize {
        let bytes = s.get(..n * T::SIZE).ok_or_else(|| Fault(format!("a {n}-element column outside a {}-byte tile", s.len())))?;
        return Ok(bytes.chunks_exact(T::SIZE).map(T::load).collect());
    }
    (0..n).map(|r| at::<T>(s, v, r, 0)).collect()
}

fn width_mismatch<T: Elem>(v: &TileView) -> Fault {
    Fault(format!("{} elements accessed as {}-byte values", v.desc.dtype, T::SIZE))
}

/// A fault unless `v` holds `dtype` (the helpers read every operand as the destination's type).
fn same_dtype(v: &TileView, dtype: pto_ir::types::ElemType, what: &str) -> Result<(), Fault> {
    if v.desc.dtype == dtype { Ok(()) } else { Err(Fault(format!("{what} element type {} differs from {dtype}", v.desc.dtype))) }
}

/// Writes element `(r, c)` of `v` into its storage bytes `s`, checked ([`element_mut`]).
pub(crate) fn put<T: Elem>(s: &mut [u8], v: &TileView, r: usize, c: usize, x: T) -> Result<(), Fault> {
    let b = element_mut(s, v, r, c)?;
    if b.len() != T::SIZE {
        return Err(width_mismatch::<T>(v));
    }
    x.store(b);
    Ok(())
}

/// The number of elements in the valid region of `v`, after checking that `v` lies in its
/// buffer and its valid region inside its capacity: what sizes a buffer of per-element
/// results (bounded by the buffer's size).
pub(crate) fn dst_elements(mem: &Memory, v: &TileView) -> Result<usize, Fault> {
    storage(mem, v)?;
    v.valid_inside()?;
    Ok(v.vrows * v.vcols)
}

/// Reads the valid region of `v` (row-major).
pub(crate) fn read<T: Elem>(mem: &Memory, v: &TileView) -> Result<Vec<T>, Fault> {
    dst_elements(mem, v)?;
    region(storage(mem, v)?, v, (0, 0), v.vrows, v.vcols)
}

/// The `rows x cols` window at `origin` of `v` in the pieces its storage (`len` bytes) holds
/// contiguously, along its longest runs ([`TileView::pieces`]: rows for ND, Nz and Zz tiles,
/// columns for DN, Zn and Nn ones). `None` when some element of the window has no valid bytes
/// of `T`'s width: then [`at`] / [`put`] go element by element and fault on it.
fn window_pieces<T: Elem>(v: &TileView, len: usize, origin: (usize, usize), rows: usize, cols: usize) -> Option<Rc<Pieces>> {
    if T::SIZE != v.elem_size() {
        return None;
    }
    v.pieces(origin, rows, cols, v.along_rows()).filter(|p| p.end <= len)
}

/// Elements `(0..rows, 0..cols)` of the window at `(r0, c0)` of `v` from its storage bytes `s`,
/// row-major: converted piece by piece as the storage holds them ([`window_pieces`]); exactly
/// what [`at`] reads element by element, with its fault.
pub(crate) fn region<T: Elem>(s: &[u8], v: &TileView, origin: (usize, usize), rows: usize, cols: usize) -> Result<Vec<T>, Fault> {
    region_with(s, v, origin, rows, cols, |x: T| x)
}

/// [`region`] with each element mapped by `f` as it is read (one pass: a matmul panel or a
/// conversion's source needs no buffer of the elements first).
pub(crate) fn region_with<T: Elem, P: Copy>(
    s: &[u8],
    v: &TileView,
    (r0, c0): (usize, usize),
    rows: usize,
    cols: usize,
    f: impl Fn(T) -> P,
) -> Result<Vec<P>, Fault> {
    let Some(pieces) = window_pieces::<T>(v, s.len(), (r0, c0), rows, cols) else {
        return (0..rows * cols).map(|x| at(s, v, r0 + x / cols, c0 + x % cols).map(&f)).collect();
    };
    let Some(&first) = pieces.list.first() else { return Ok(Vec::new()) };
    let mut out = vec![f(T::load(&s[first.start..])); rows * cols];
    // Typed slices where the storage is aligned for `T` (the same values: elements are stored
    // little-endian, as `Elem::load` reads them), bytes otherwise.
    let typed = cfg!(target_endian = "little") && bytemuck::try_cast_slice::<u8, T>(&s[..pieces.end]).is_ok();
    for &Piece { at: (r, c), count: n, start } in &pieces.list {
        let bytes = &s[start..start + n * T::SIZE];
        let at = r * cols + c;
        match (typed, pieces.along_row) {
            (true, true) => out[at..at + n].iter_mut().zip(bytemuck::cast_slice::<u8, T>(bytes)).for_each(|(o, &x)| *o = f(x)),
            (true, false) => out[at..].iter_mut().step_by(cols).zip(bytemuck::cast_slice::<u8, T>(bytes)).for_each(|(o, &x)| *o = f(x)),
            (false, true) => out[at..at + n].iter_mut().zip(bytes.chunks_exact(T::SIZE)).for_each(|(o, b)| *o = f(T::load(b))),
            (false, false) => out[at..].iter_mut().step_by(cols).zip(bytes.chunks_exact(T::SIZE)).for_each(|(o, b)| *o = f(T::load(b))),
        }
    }
    Ok(out)
}

/// Writes `vals` (row-major, `rows x cols`) into the window at `(r0, c0)` of `v` in its storage
/// bytes `s`, piece by piece as [`region`] reads them; exactly what [`put`] writes element by
/// element, with its fault.
pub(crate) fn put_region<T: Elem>(
    s: &mut [u8],
    v: &TileView,
    (r0, c0): (usize, usize),
    rows: usize,
    cols: usize,
    vals: &[T],
) -> Result<(), Fault> {
    let Some(pieces) = window_pieces::<T>(v, s.len(), (r0, c0), rows, cols) else {
        return (0..rows * cols).try_for_each(|x| put(s, v, r0 + x / cols, c0 + x % cols, vals[x]));
    };
    let typed = cfg!(target_endian = "little") && bytemuck::try_cast_slice_mut::<u8, T>(&mut s[..pieces.end]).is_ok();
    for &Piece { at: (r, c), count: n, start } in &pieces.list {
        let bytes = &mut s[start..start + n * T::SIZE];
        let at = r * cols + c;
        match (typed, pieces.along_row) {
            (true, true) => bytemuck::cast_slice_mut::<u8, T>(bytes).copy_from_slice(&vals[at..at + n]),
            (true, false) => {
                bytemuck::cast_slice_mut::<u8, T>(bytes).iter_mut().zip(vals[at..].iter().step_by(cols)).for_each(|(d, &x)| *d = x)
            }
            (false, true) => bytes.chunks_exact_mut(T::SIZE).zip(&vals[at..at + n]).for_each(|(d, x)| x.store(d)),
            (false, false) => bytes.chunks_exact_mut(T::SIZE).zip(vals[at..].iter().step_by(cols)).for_each(|(d, x)| x.store(d)),
        }
    }
    Ok(())
}

/// Writes `vals` (row-major, `v.vrows x v.vcols`) into the valid region of `v`.
pub(crate) fn write<T: Elem>(mem: &mut Memory, v: &TileView, vals: &[T]) -> Result<(), Fault> {
    if vals.len() != dst_elements(mem, v)? {
        return Err(Fault(format!("{} values for a {}x{} region", vals.len(), v.vrows, v.vcols)));
    }
    let s = mem.slice_mut(v.loc, v.addr, v.size_bytes() as usize)?;
    put_region(s, v, (0, 0), v.vrows, v.vcols, vals)
}

/// Reads a source at the destination's valid shape (sources must cover it).
fn read_as<T: Elem>(mem: &Memory, src: &TileView, dst: &TileView) -> Result<Vec<T>, Fault> {
    check_operand(src, dst)?;
    let view = TileView { vrows: dst.vrows, vcols: dst.vcols, ..*src };
    read(mem, &view)
}

pub(crate) fn unsupported(v: &TileView) -> Fault {
    Fault(format!("element type {} is not supported by the simulator", v.desc.dtype))
}

// ------------------------------------------------------------------ row fast paths
//
// When every operand is row-contiguous in one buffer and suitably aligned, rows are processed
// as typed slices (copied to scratch first, so a destination that aliases a source is safe);
// otherwise the generic element-by-element path runs. Both compute the same values.

/// Byte range of the first `n` elements of row `r`.
fn row_range(v: &TileView, r: usize, n: usize) -> std::ops::Range<usize> {
    let start = v.addr as usize + r * v.desc.cols as usize * v.elem_size();
    start..start + n * v.elem_size()
}

/// True when the fast path applies to these views, which stream the `rows x cols` region from
/// `(0, 0)` of each (checked before anything is written: each view lies in its buffer and
/// covers the region, else a fault).
fn fast_ok<T: Elem>(mem: &mut Memory, views: &[&TileView], (rows, cols): (usize, usize)) -> Result<bool, Fault> {
    for v in views {
        storage(mem, v)?;
        v.covers(rows, cols, "an operand")?;
        if !v.rows_contiguous() || v.loc != views[0].loc || v.desc.dtype.size_bytes() as usize != T::SIZE {
            return Ok(false);
        }
    }
    let base = mem.buffer_mut(views[0].loc).as_ptr() as usize;
    Ok(views.iter().all(|v| (base + v.addr as usize).is_multiple_of(std::mem::align_of::<T>())))
}

/// The second operand of the fast path: a tile, or a scalar per row (`scalar(r)`) — constant
/// for tile-scalar ops, the row's element of a column vector for row expands (`per_row`).
struct Second<'a, T> {
    tile: Option<&'a TileView>,
    scalar: &'a dyn Fn(usize) -> T,
    per_row: bool,
}

impl<'a, T: Elem> Second<'a, T> {
    fn tile(b: &'a TileView) -> Self {
        Second { tile: Some(b), scalar: &|_| T::zeroed(), per_row: false }
    }
    fn scalar(k: &'a dyn Fn(usize) -> T, per_row: bool) -> Self {
        Second { tile: None, scalar: k, per_row }
    }
}

fn fast_zip<T: Elem>(mem: &mut Memory, a: &TileView, second: &Second<T>, dst: &TileView, f: impl Fn(T, T) -> T) -> Result<bool, Fault> {
    let Second { tile: b, scalar: k, per_row } = *second;
    let views: Vec<&TileView> = [Some(a), b, Some(dst)].into_iter().flatten().collect();
    if !fast_ok::<T>(mem, &views, (dst.vrows, dst.vcols))? {
        return Ok(false);
    }
    // Whole tiles whose valid rows are full rows are one contiguous run; otherwise one run per row.
    let whole = !per_row && views.iter().all(|v| v.desc.cols as usize == dst.vcols);
    let (runs, n) = if whole { (1, dst.vrows * dst.vcols) } else { (dst.vrows, dst.vcols) };
    let buf = mem.buffer_mut(dst.loc);
    let mut xa = Vec::new();
    let mut xb = Vec::new();
    for r in 0..runs {
        let k = k(r);
        let (ra, rb, rd) = (row_range(a, r, n), b.map(|b| row_range(b, r, n)), row_range(dst, r, n));
        if zip_in_place::<T>(buf, &ra, rb.as_ref(), &rd, &f, k) {
            continue;
        }
        // Partial overlap between a source and dst: copy the sources first.
        xa.clear();
        xa.extend_from_slice(bytemuck::cast_slice::<u8, T>(&buf[ra]));
        xb.clear();
        match rb {
            Some(rb) => xb.extend_from_slice(bytemuck::cast_slice::<u8, T>(&buf[rb])),
            None => xb.resize(n, k),
        }
        let d: &mut [T] = bytemuck::cast_slice_mut(&mut buf[rd]);
        for ((o, &x), &y) in d.iter_mut().zip(&xa).zip(&xb) {
            *o = f(x, y);
        }
    }
    Ok(true)
}

/// `buf[d] = f(buf[a], buf[b])` elementwise without copying, when every source range is either
/// disjoint from `d` or exactly `d` (in place). Returns false for partial overlaps.
fn zip_in_place<T: Elem>(
    buf: &mut [u8],
    a: &Range<usize>,
    b: Option<&Range<usize>>,
    d: &Range<usize>,
    f: &impl Fn(T, T) -> T,
    k: T,
) -> bool {
    let disjoint = |r: &Range<usize>| r.end <= d.start || r.start >= d.end;
    let same = |r: &Range<usize>| r == d;
    if !(disjoint(a) || same(a)) || !b.is_none_or(|b| disjoint(b) || same(b)) {
        return false;
    }
    let (lo, rest) = buf.split_at_mut(d.start);
    let (dst, hi) = rest.split_at_mut(d.len());
    // A disjoint source lies wholly below or above `d`.
    let source = |r: &Range<usize>| -> Option<&[T]> {
        if same(r) {
            None
        } else if r.end <= d.start {
            Some(bytemuck::cast_slice(&lo[r.clone()]))
        } else {
            Some(bytemuck::cast_slice(&hi[r.start - d.end..r.end - d.end]))
        }
    };
    let (sa, sb) = (source(a), b.and_then(source));
    let dst: &mut [T] = bytemuck::cast_slice_mut(dst);
    for i in 0..dst.len() {
        let x = sa.map_or(dst[i], |s| s[i]);
        let y = match (b, sb) {
            (None, _) => k,
            (Some(_), Some(s)) => s[i],
            (Some(_), None) => dst[i],
        };
        dst[i] = f(x, y);
    }
    true
}

/// The infallible binary ops as a closure for the fast path; `None` for the others.
fn fast_op<T: Elem>(mem: &mut Memory, op: BinOp, a: &TileView, second: &Second<T>, swap: bool, dst: &TileView) -> Result<bool, Fault> {
    macro_rules! go {
        ($f:expr) => {
            if swap { fast_zip::<T>(mem, a, second, dst, |x, y| $f(y, x)) } else { fast_zip::<T>(mem, a, second, dst, $f) }
        };
    }
    match op {
        BinOp::Add => go!(|x: T, y: T| x.add(y)),
        BinOp::Sub => go!(|x: T, y: T| x.sub(y)),
        BinOp::Mul => go!(|x: T, y: T| x.mul(y)),
        BinOp::Min => go!(|x: T, y: T| x.minimum(y)),
        BinOp::Max => go!(|x: T, y: T| x.maximum(y)),
        BinOp::And => go!(|x: T, y: T| T::from_raw_bits(x.raw_bits() & y.raw_bits())),
        BinOp::Or => go!(|x: T, y: T| T::from_raw_bits(x.raw_bits() | y.raw_bits())),
        BinOp::Xor => go!(|x: T, y: T| T::from_raw_bits(x.raw_bits() ^ y.raw_bits())),
        BinOp::Div | BinOp::Shl | BinOp::Shr | BinOp::ShrRound | BinOp::Rem | BinOp::FMod | BinOp::Pow | BinOp::Prelu | BinOp::SubRelu => {
            Ok(false)
        }
    }
}

/// A source operand of an elementwise op: the destination's element type, and a capacity that
/// covers the destination's valid shape.
fn check_operand(src: &TileView, dst: &TileView) -> Result<(), Fault> {
    if src.desc.dtype != dst.desc.dtype {
        return Err(Fault(format!("source element type {} differs from destination {}", src.desc.dtype, dst.desc.dtype)));
    }
    if (src.desc.rows as usize) < dst.vrows || (src.desc.cols as usize) < dst.vcols {
        return Err(Fault(format!(
            "source capacity {}x{} is smaller than the destination's valid shape {}x{}",
            src.desc.rows, src.desc.cols, dst.vrows, dst.vcols
        )));
    }
    Ok(())
}

/// `dst = a op b` over dst's valid region.
pub fn binary(mem: &mut Memory, op: BinOp, a: &TileView, b: &TileView, dst: &TileView) -> Result<(), Fault> {
    check_operand(a, dst)?;
    check_operand(b, dst)?;
    dispatch!(dst.desc.dtype, T => {
        if fast_op::<T>(mem, op, a, &Second::tile(b), false, dst)? {
            return Ok(());
        }
        let (x, y) = (read_as::<T>(mem, a, dst)?, read_as::<T>(mem, b, dst)?);
        let out = x.iter().zip(&y).map(|(&p, &q)| apply(op, p, q)).collect::<Result<Vec<T>, _>>()?;
        write(mem, dst, &out)
    }, _ => Err(unsupported(dst)))
}

/// `dst = src op s` (or `s op src` when `scalar_first`).
pub fn binary_scalar(mem: &mut Memory, op: BinOp, src: &TileView, s: Num, scalar_first: bool, dst: &TileView) -> Result<(), Fault> {
    check_operand(src, dst)?;
    dispatch!(dst.desc.dtype, T => {
        let k: T = s.to();
        if fast_op::<T>(mem, op, src, &Second::scalar(&|_| k, false), scalar_first, dst)? {
            return Ok(());
        }
        let x = read_as::<T>(mem, src, dst)?;
        let out = x.iter().map(|&p| if scalar_first { apply(op, k, p) } else { apply(op, p, k) }).collect::<Result<Vec<T>, _>>()?;
        write(mem, dst, &out)
    }, _ => Err(unsupported(dst)))
}

/// `dst = f(src)`.
pub fn unary(mem: &mut Memory, op: UnOp, src: &TileView, dst: &TileView) -> Result<(), Fault> {
    check_operand(src, dst)?;
    dispatch!(dst.desc.dtype, T => {
        // One loop per cheap op (the match hoisted out, so the loop vectorises); the
        // transcendental ones call out per element anyway.
        macro_rules! go {
            ($f:expr) => {
                fast_zip::<T>(mem, src, &Second::scalar(&|_| T::zeroed(), false), dst, |x, _| $f(x))
            };
        }
        let fast = match op {
            UnOp::Abs => go!(|x: T| x.abs()),
            UnOp::Neg => go!(|x: T| x.neg()),
            UnOp::Relu => go!(|x: T| Elem::maximum(x, T::from_i64(0))),
            UnOp::Not => go!(|x: T| T::from_raw_bits(!x.raw_bits())),
            _ => go!(|x: T| unop(op, x)),
        };
        if fast? {
            return Ok(());
        }
        let x = read_as::<T>(mem, src, dst)?;
        let out: Vec<T> = x.iter().map(|&p| unop(op, p)).collect();
        write(mem, dst, &out)
    }, _ => Err(unsupported(dst)))
}

/// `dst = s` over dst's valid region.
pub fn fill(mem: &mut Memory, s: Num, dst: &TileView) -> Result<(), Fault> {
    dispatch!(dst.desc.dtype, T => {
        let k: T = s.to();
        write(mem, dst, &vec![k; dst_elements(mem, dst)?])
    }, _ => Err(unsupported(dst)))
}

/// The valid region of a tile as [`TileData`].
pub fn read_region(mem: &Memory, v: &TileView) -> Result<TileData, Fault> {
    let size = v.elem_size();
    let mut bytes = Vec::with_capacity(dst_elements(mem, v)? * size);
    let s = storage(mem, v)?;
    for r in 0..v.vrows {
        for c in 0..v.vcols {
            bytes.extend_from_slice(element(s, v, r, c)?);
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

/// Reductions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reduce {
    /// Sum (16-bit floats accumulate in f64 and round once for row sums, as the CPU simulator's
    /// f32 accumulator does for the exactly representable inputs it is tested with).
    Sum,
    /// Maximum.
    Max,
    /// Minimum.
    Min,
    /// Product.
    Prod,
}

/// Lanes of [`fold_slice`]: one per element of a 32-byte datablock of f32.
const LANES: usize = 8;

/// Bytes one A2A3 vector instruction iteration covers (a row this short is one `vcadd`).
const VECTOR_BYTES: usize = 256;

/// `halving_tree` of exactly `2H` elements: `xs[j] + xs[j + H]`, then the tree of that.
macro_rules! fixed_tree {
    ($name:ident, $half:literal, $next:ident) => {
        #[inline(always)]
        fn $name<T: Elem>(xs: &[T]) -> T {
            let (lo, hi) = xs.split_at($half);
            let halves: [T; $half] = std::array::from_fn(|j| lo[j].add(hi[j]));
            $next(&halves)
        }
    };
}
fixed_tree!(tree_128, 64, tree_64);
fixed_tree!(tree_64, 32, tree_32);
fixed_tree!(tree_32, 16, tree_16);
fixed_tree!(tree_16, 8, tree_8);
fixed_tree!(tree_8, 4, tree_4);
fixed_tree!(tree_4, 2, tree_2);
fixed_tree!(tree_2, 1, tree_1);

fn tree_1<T: Elem>(xs: &[T]) -> T {
    xs[0]
}

/// The sum of a row that fits one vector iteration, in the order A2A3's `vcadd` is modelled
/// (`pto-sim/src/vector.rs`, docs/vector.md): the upper half of the lanes is added onto the lower
/// half until one is left. Float sums of such rows must round as the vector level does, so that
/// `--exec vector` and the tile semantics give the same bytes. `scratch` is reused across rows.
fn halving_tree<T: Elem>(xs: &[T], scratch: &mut Vec<T>) -> T {
    // Whole iterations (64 f32, 128 f16 lanes) in fixed-size steps, which vectorise.
    match xs.len() {
        128 => return tree_128(xs),
        64 => return tree_64(xs),
        _ => {}
    }
    let upper = xs.len().div_ceil(2);
    scratch.clear();
    scratch.extend_from_slice(&xs[..upper]);
    for (a, &b) in scratch.iter_mut().zip(&xs[upper..]) {
        *a = a.add(b);
    }
    let mut len = upper;
    while len > 1 {
        let up = len.div_ceil(2);
        let (lo, hi) = scratch.split_at_mut(up);
        for (a, &b) in lo.iter_mut().zip(&hi[..len - up]) {
            *a = a.add(b);
        }
        len = up;
    }
    scratch.first().copied().unwrap_or(T::from_i64(0))
}

/// The row fast path's reduction: element `j` goes to lane `j mod 8`, the lanes are combined
/// pairwise (0+4, 1+5, 2+6, 3+7, then 0+2, 1+3, then 0+1) — the order of one A2A3 datablock
/// reduction, and eight independent chains instead of one. Max, min and integer sums are
/// exact in any order; float sums round in this order (documented in `docs/design.md`).
/// 16-bit float sums (`wide`) accumulate in f64 and round once, as in [`fold`].
fn fold_slice<T: Elem>(r: Reduce, xs: &[T], wide: bool, scratch: &mut Vec<T>) -> Option<T> {
    if xs.is_empty() {
        return None;
    }
    if r == Reduce::Sum && wide {
        return Some(T::from_f64(xs.iter().map(|x| x.to_f64()).sum()));
    }
    if r == Reduce::Sum && <T as Elem>::FLOAT && xs.len() <= VECTOR_BYTES / T::SIZE {
        return Some(halving_tree(xs, scratch));
    }
    // Inlined into each arm so the closure's arithmetic is vectorized in place (it was not
    // once the crate grew: trowsum ran 45 % slower with the same code).
    #[inline(always)]
    fn lanes<T: Elem>(xs: &[T], f: impl Fn(T, T) -> T) -> T {
        const HALF: usize = LANES / 2;
        if xs.len() < 2 * LANES {
            return xs[1..].iter().fold(xs[0], |acc, &x| f(acc, x));
        }
        // Lanes 0..4 and 4..8 as two arrays: LLVM keeps each in one packed register (one
        // eight-lane array gets split after the shape of the pairwise tree at the end).
        let mut lo: [T; HALF] = std::array::from_fn(|j| xs[j]);
        let mut hi: [T; HALF] = std::array::from_fn(|j| xs[HALF + j]);
        let mut chunks = xs[LANES..].chunks_exact(LANES);
        for c in &mut chunks {
            for j in 0..HALF {
                lo[j] = f(lo[j], c[j]);
                hi[j] = f(hi[j], c[HALF + j]);
            }
        }
        for (j, &x) in chunks.remainder().iter().enumerate() {
            if j < HALF { lo[j] = f(lo[j], x) } else { hi[j - HALF] = f(hi[j - HALF], x) }
        }
        let pairs: [T; HALF] = std::array::from_fn(|j| f(lo[j], hi[j]));
        let quads: [T; 2] = std::array::from_fn(|j| f(pairs[j], pairs[j + 2]));
        f(quads[0], quads[1])
    }
    Some(match r {
        Reduce::Sum => lanes(xs, |a, x| a.add(x)),
        Reduce::Prod => xs[1..].iter().fold(xs[0], |acc, &x| acc.mul(x)),
        Reduce::Max => lanes(xs, |a, x| a.maximum(x)),
        Reduce::Min => lanes(xs, |a, x| a.minimum(x)),
    })
}

fn fold<T: Elem>(r: Reduce, xs: impl Iterator<Item = T>, wide: bool) -> Option<T> {
    let mut it = xs.peekable();
    let first = *it.peek()?;
    if r == Reduce::Sum && wide {
        return Some(T::from_f64(it.map(|x| x.to_f64()).sum()));
    }
    it.next();
    Some(it.fold(first, |acc, x| match r {
        Reduce::Sum => acc.add(x),
        Reduce::Prod => acc.mul(x),
        Reduce::Max => acc.maximum(x),
        Reduce::Min => acc.minimum(x),
    }))
}

fn check_dst(dst: &TileView, rows: usize, cols: usize) -> Result<(), Fault> {
    if (dst.desc.rows as usize) < rows || (dst.desc.cols as usize) < cols {
        return Err(Fault(format!("destination {}x{} cannot hold a {rows}x{cols} result", dst.desc.rows, dst.desc.cols)));
    }
    Ok(())
}

/// `dst[i,0] = reduce_j src[i,j]` (rows) or `dst[0,j] = reduce_i src[i,j]` (columns), over
/// the source's valid region.
pub fn reduce(mem: &mut Memory, r: Reduce, along_rows: bool, src: &TileView, dst: &TileView) -> Result<(), Fault> {
    let (n_out, n_in) = if along_rows { (src.vrows, src.vcols) } else { (src.vcols, src.vrows) };
    if along_rows {
        check_dst(dst, n_out, 1)?
    } else {
        check_dst(dst, 1, n_out)?
    }
    dispatch!(src.desc.dtype, T => {
        let wide = along_rows && <T as Elem>::FLOAT && T::SIZE == 2;
        same_dtype(dst, src.desc.dtype, "the destination")?;
        if along_rows && fast_ok::<T>(mem, &[src], (src.vrows, src.vcols))? {
            // Same fold (same order) as the generic path below, over typed row slices.
            let buf = mem.buffer_mut(src.loc);
            let mut scratch = Vec::with_capacity(VECTOR_BYTES);
            let out: Vec<T> = (0..n_out)
                .map(|k| fold_slice(r, bytemuck::cast_slice::<u8, T>(&buf[row_range(src, k, n_in)]), wide, &mut scratch).unwrap_or(T::from_i64(0)))
                .collect();
            // `check_dst` proved the column fits dst's capacity: one range check per element.
            let d = mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
            for (k, &x) in out.iter().enumerate() {
                let at = dst.offset(k, 0) * T::SIZE;
                x.store(d.get_mut(at..at + T::SIZE).ok_or_else(|| Fault(format!("row {k} outside the destination")))?);
            }
            return Ok(());
        }
        dst_elements(mem, src)?;
        let s = storage(mem, src)?.to_vec();
        let out: Vec<T> = (0..n_out)
            .map(|k| {
                let xs = (0..n_in)
                    .map(|x| if along_rows { at::<T>(&s, src, k, x) } else { at::<T>(&s, src, x, k) })
                    .collect::<Result<Vec<T>, _>>()?;
                // Rows in the fast path's order whatever the layout; columns row after row.
                let folded = if along_rows { fold_slice(r, &xs, wide, &mut Vec::new()) } else { fold(r, xs.into_iter(), wide) };
                Ok(folded.unwrap_or(T::from_i64(0)))
            })
            .collect::<Result<_, Fault>>()?;
        let d = mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
        for (k, &x) in out.iter().enumerate() {
            if along_rows { put(d, dst, k, 0, x)? } else { put(d, dst, 0, k, x)? }
        }
        Ok(())
    }, _ => Err(unsupported(src)))
}

/// How an arg-reduction compares, which decides what a NaN (or, on A2A3, an integer whose
/// bits spell one) does to the index.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ArgRule {
    /// pto-isa's CPU simulator and A5 (`a5/TColReduceIdx.hpp`: `vcmp_gt(new, old)` then `vsel`):
    /// an element wins only when strictly better than the best so far, so a NaN never wins, and
    /// a NaN first element keeps index 0.
    Strict,
    /// A2A3 `tcolargmax`/`tcolargmin` (`a2a3/TColReduceIdx.hpp`): `vcmp_ge(best, cur)` (argmin
    /// `vcmp_le`) keeps the old index, anything else takes the new row, then `vmax`/`vmin`
    /// updates the best. Elements are compared as `half`/`float` bit patterns whatever their
    /// type (u16/u32 sources too). So a NaN row takes the index, and a NaN best (row 0) makes
    /// every later row take it: the index of a column holding a NaN is that of its last row.
    A2A3Column,
}

/// The compare key of an element under [`ArgRule::A2A3Column`]: its bits read as `half` (2-byte
/// types) or `float` (4-byte types), as the A2A3 vector compare reads them.
fn a2a3_compare_key<T: Elem>(v: T) -> f32 {
    let bytes = bytemuck::bytes_of(&v);
    match bytes.len() {
        2 => half::f16::from_le_bytes([bytes[0], bytes[1]]).to_f32(),
        4 => f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
        _ => v.to_f64() as f32,
    }
}

/// The index of the best element of `n` elements (`get(0..n)`) under `rule`.
fn arg_best<T: Elem>(max: bool, rule: ArgRule, n: usize, get: impl Fn(usize) -> T) -> usize {
    let mut best = 0usize;
    match rule {
        ArgRule::Strict => {
            let mut best_v = get(0);
            for x in 1..n {
                let cur = get(x);
                if (max && cur > best_v) || (!max && cur < best_v) {
                    best = x;
                    best_v = cur;
                }
            }
        }
        ArgRule::A2A3Column => {
            let mut best_v = a2a3_compare_key(get(0));
            for x in 1..n {
                let cur = a2a3_compare_key(get(x));
                let keep = if max { best_v >= cur } else { best_v <= cur };
                if !keep {
                    best = x;
                }
                best_v = if max { Elem::maximum(best_v, cur) } else { Elem::minimum(best_v, cur) };
            }
        }
    }
    best
}

/// Arg-reduction: the index of the max/min of each row (`along_rows`) or column, into `dst`
/// (`n x 1` or `1 x n`), compared by `rule`.
pub fn arg_reduce(mem: &mut Memory, max: bool, rule: ArgRule, along_rows: bool, src: &TileView, dst: &TileView) -> Result<(), Fault> {
    let (n_out, n_in) = if along_rows { (src.vrows, src.vcols) } else { (src.vcols, src.vrows) };
    if along_rows {
        check_dst(dst, n_out, 1)?
    } else {
        check_dst(dst, 1, n_out)?
    }
    dst_elements(mem, src)?;
    let idx: Vec<i64> = dispatch!(src.desc.dtype, T => {
        let s = storage(mem, src)?;
        (0..n_out).map(|k| {
            let get = |x: usize| if along_rows { at::<T>(s, src, k, x) } else { at::<T>(s, src, x, k) };
            let vals = (0..n_in).map(get).collect::<Result<Vec<T>, _>>()?;
            Ok(if vals.is_empty() { 0 } else { arg_best(max, rule, n_in, |x| vals[x]) as i64 })
        }).collect::<Result<_, Fault>>()?
    }, _ => return Err(unsupported(src)));
    dispatch!(dst.desc.dtype, U => {
        let d = mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
        for (k, &i) in idx.iter().enumerate() {
            if along_rows { put(d, dst, k, 0, U::from_i64(i))? } else { put(d, dst, 0, k, U::from_i64(i))? }
        }
        Ok(())
    }, _ => Err(unsupported(dst)))
}

/// Broadcast: `dst[i,j] = src[i,0]` (rows) or `src[0,j]` (columns).
pub fn expand(mem: &mut Memory, along_rows: bool, src: &TileView, dst: &TileView) -> Result<(), Fault> {
    same_dtype(src, dst.desc.dtype, "the source")?;
    let n = dst_elements(mem, dst)?;
    dispatch!(dst.desc.dtype, T => {
        let s = storage(mem, src)?.to_vec();
        let out: Vec<T> = (0..n)
            .map(|k| {
                let (i, j) = (k / dst.vcols, k % dst.vcols);
                if along_rows { at::<T>(&s, src, i, 0) } else { at::<T>(&s, src, 0, j) }
            })
            .collect::<Result<_, _>>()?;
        write(mem, dst, &out)
    }, _ => Err(unsupported(dst)))
}

/// Expand-op: `dst[i,j] = full[i,j] op vec[i]` (rows) or `op vec[j]` (columns). The expanded
/// operand is the one narrower than `dst`; operand order is kept (`src0` may be the vector).
/// A row vector wider than one column (`R x 32/size` row-major) is read at `j mod width`.
pub fn expand_op(mem: &mut Memory, op: ExpandOp, along_rows: bool, a: &TileView, b: &TileView, dst: &TileView) -> Result<(), Fault> {
    let narrow = |v: &TileView| if along_rows { v.vcols < dst.vcols } else { v.vrows < dst.vrows };
    let a_is_vec = narrow(a) && !narrow(b);
    same_dtype(a, dst.desc.dtype, "src0")?;
    same_dtype(b, dst.desc.dtype, "src1")?;
    let n = dst_elements(mem, dst)?;
    dispatch!(dst.desc.dtype, T => {
        // Fast path: a column vector (one value per row) against a row-major full tile.
        let (full, vec) = if a_is_vec { (b, a) } else { (a, b) };
        if let (ExpandOp::Bin(o), true, 1) = (op, along_rows, vec.vcols)
            && vec.vrows >= dst.vrows {
                let per_row = column::<T>(storage(mem, vec)?, vec, dst.vrows)?;
                let k = |r: usize| per_row[r];
                if fast_op::<T>(mem, o, full, &Second::scalar(&k, true), a_is_vec, dst)? {
                    return Ok(());
                }
            }
        let sa = storage(mem, a)?.to_vec();
        let sb = storage(mem, b)?.to_vec();
        let value = |v: &TileView, s: &[u8], i: usize, j: usize, is_vec: bool| -> Result<T, Fault> {
            if !is_vec {
                at::<T>(s, v, i, j)
            } else if along_rows {
                at::<T>(s, v, i, j % v.vcols.max(1))
            } else {
                at::<T>(s, v, i % v.vrows.max(1), j)
            }
        };
        let out = (0..n)
            .map(|k| {
                let (i, j) = (k / dst.vcols, k % dst.vcols);
                let (x, y) = (value(a, &sa, i, j, a_is_vec)?, value(b, &sb, i, j, !a_is_vec)?);
                match op {
                    ExpandOp::Bin(o) => apply(o, x, y),
                    ExpandOp::ExpDif => Ok(T::from_f64((x.to_f64() - y.to_f64()).exp())),
                }
            })
            .collect::<Result<Vec<T>, _>>()?;
        write(mem, dst, &out)
    }, _ => Err(unsupported(dst)))
}

/// The operation of an expand-op.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ExpandOp {
    /// A binary element op.
    Bin(BinOp),
    /// `exp(a - b)`.
    ExpDif,
}

/// Comparison modes (`#pto<cmp ...>`): the vector level's, so both levels compare alike.
pub use pto_lower::vector::ir::CmpKind as Cmp;

/// Packed comparison mask: bit `j % 8` of byte `(i, j / 8)` of `dst` is `a[i,j] cmp b` (LSB
/// first); the whole valid region of `dst` is zeroed first, columns beyond `a`'s valid width
/// give 0 bits. `b` is a tile (`tcmp`) or a scalar (`tcmps`).
pub fn compare(mem: &mut Memory, cmp: Cmp, a: &TileView, b: Result<&TileView, Num>, dst: &TileView) -> Result<(), Fault> {
    if dst.desc.dtype.size_bytes() != 1 {
        return Err(Fault(format!("a compare mask must have 8-bit elements, found {}", dst.desc.dtype)));
    }
    if let Ok(t) = b {
        same_dtype(t, a.desc.dtype, "src1")?;
    }
    dst_elements(mem, a)?;
    dst_elements(mem, dst)?;
    let bits: Vec<(usize, usize)> = dispatch!(a.desc.dtype, T => {
        let sa = storage(mem, a)?.to_vec();
        let sb = match b { Ok(t) => Some((storage(mem, t)?.to_vec(), *t)), Err(_) => None };
        let k: Option<T> = match b { Err(n) => Some(n.to()), Ok(_) => None };
        let mut set = Vec::new();
        for i in 0..a.vrows {
            for j in 0..a.vcols {
                let x = at::<T>(&sa, a, i, j)?;
                let y = match (&sb, k) { (Some((s, t)), _) => at::<T>(s, t, i, j)?, (None, Some(k)) => k, _ => x };
                if cmp.test(x, y) {
                    set.push((i, j));
                }
            }
        }
        set
    }, _ => return Err(unsupported(a)));
    let d = mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
    for i in 0..dst.vrows {
        for c in 0..dst.vcols {
            element_mut(d, dst, i, c)?[0] = 0;
        }
    }
    for (i, j) in bits {
        if i < dst.desc.rows as usize && j / 8 < dst.desc.cols as usize {
            element_mut(d, dst, i, j / 8)?[0] |= 1 << (j % 8);
        }
    }
    Ok(())
}

/// `dst[i,j] = bit (i, j) of mask ? a[i,j] : b[i,j]` (one mask row per data row, LSB first).
pub fn select(mem: &mut Memory, mask: &TileView, a: &TileView, b: &TileView, dst: &TileView) -> Result<(), Fault> {
    let m = storage(mem, mask)?.to_vec();
    let n = dst_elements(mem, dst)?;
    dispatch!(dst.desc.dtype, T => {
        let (x, y) = (read_as::<T>(mem, a, dst)?, read_as::<T>(mem, b, dst)?);
        let out: Vec<T> = (0..n)
            .map(|k| {
                let (i, j) = (k / dst.vcols, k % dst.vcols);
                // Bit j of mask row i, LSB first, in the low byte of the mask element.
                let byte = element(&m, mask, i, j / 8)?[0];
                Ok(if byte >> (j % 8) & 1 == 1 { x[k] } else { y[k] })
            })
            .collect::<Result<_, Fault>>()?;
        write(mem, dst, &out)
    }, _ => Err(unsupported(dst)))
}

/// `tsels`: `dst[i,j] = bit j of mask row i ? src[i,j] : scalar`, the bits counted in the
/// mask's element type (element `(i, j / bits)`, bit `j % bits`; pto-isa `cpu/TSelS.hpp`).
pub fn select_scalar(mem: &mut Memory, mask: &TileView, src: &TileView, scalar: Num, dst: &TileView) -> Result<(), Fault> {
    let bits = mask.elem_size() * 8;
    let m = storage(mem, mask)?.to_vec();
    if dst.vcols.div_ceil(bits) > mask.desc.cols as usize || dst.vrows > mask.desc.rows as usize {
        return Err(Fault(format!(
            "the {}x{} mask has too few bits for the {}x{} destination",
            mask.desc.rows, mask.desc.cols, dst.vrows, dst.vcols
        )));
    }
    let word = |i: usize, j: usize| -> Result<u64, Fault> {
        Ok(element(&m, mask, i, j / bits)?.iter().rev().fold(0u64, |w, &b| w << 8 | u64::from(b)))
    };
    let n = dst_elements(mem, dst)?;
    dispatch!(dst.desc.dtype, T => {
        let x = read_as::<T>(mem, src, dst)?;
        let k: T = scalar.to();
        let out: Vec<T> = (0..n)
            .map(|n| {
                let (i, j) = (n / dst.vcols, n % dst.vcols);
                Ok(if word(i, j)? >> (j % bits) & 1 == 1 { x[n] } else { k })
            })
            .collect::<Result<_, Fault>>()?;
        write(mem, dst, &out)
    }, _ => Err(unsupported(dst)))
}

/// The `(row, col)` of flat element `index` (row-major over the capacity, `r*Cols + c`).
fn flat_position(v: &TileView, index: i64) -> Result<(usize, usize), Fault> {
    let (rows, cols) = (v.desc.rows as usize, v.desc.cols as usize);
    match usize::try_from(index) {
        Ok(i) if i < rows * cols => Ok((i / cols, i % cols)),
        _ => Err(Fault(format!("element index {index} outside the {rows}x{cols} tile"))),
    }
}

/// `tgetval`: element `index` (flat, row-major over the capacity).
pub fn get_element(mem: &Memory, v: &TileView, index: i64) -> Result<Num, Fault> {
    let (r, c) = flat_position(v, index)?;
    dispatch!(v.desc.dtype, T => {
        let x: T = at(storage(mem, v)?, v, r, c)?;
        Ok(if <T as Elem>::FLOAT { Num::F(x.to_f64()) } else { Num::I(x.to_i64()) })
    }, _ => Err(unsupported(v)))
}

/// `tsetval`: writes element `index` (flat, row-major over the capacity).
pub fn set_element(mem: &mut Memory, v: &TileView, index: i64, value: Num) -> Result<(), Fault> {
    let (r, c) = flat_position(v, index)?;
    dispatch!(v.desc.dtype, T => {
        let s = mem.slice_mut(v.loc, v.addr, v.size_bytes() as usize)?;
        put(s, v, r, c, value.to::<T>())
    }, _ => Err(unsupported(v)))
}

/// `dst[i, k] = start + k` (or `start - k`) along each valid row (wrapping).
pub fn ci(mem: &mut Memory, start: i64, descending: bool, dst: &TileView) -> Result<(), Fault> {
    let n = dst_elements(mem, dst)?;
    dispatch!(dst.desc.dtype, T => {
        let out: Vec<T> = (0..n)
            .map(|k| {
                let j = (k % dst.vcols) as i64;
                T::from_i64(if descending { start.wrapping_sub(j) } else { start.wrapping_add(j) })
            })
            .collect();
        write(mem, dst, &out)
    }, _ => Err(unsupported(dst)))
}

/// Rounding modes of `tcvt`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Round {
    /// Ties to even.
    Rint,
    /// Ties away from zero.
    Round,
    /// Toward -inf.
    Floor,
    /// Toward +inf.
    Ceil,
    /// Toward zero.
    Trunc,
}

impl Round {
    /// From the `#pto<round_mode ...>` value name (`NONE`, `CAST_RINT`, `ODD` map to ties-to-even).
    pub fn parse(s: &str) -> Round {
        match s {
            "ROUND" => Round::Round,
            "FLOOR" => Round::Floor,
            "CEIL" => Round::Ceil,
            "TRUNC" => Round::Trunc,
            _ => Round::Rint,
        }
    }
    /// The same mode for the narrow-float encoders.
    pub fn rounding(self) -> crate::minifloat::Rounding {
        use crate::minifloat::Rounding as R;
        match self {
            Round::Rint => R::NearestEven,
            Round::Round => R::NearestAway,
            Round::Floor => R::Floor,
            Round::Ceil => R::Ceil,
            Round::Trunc => R::Trunc,
        }
    }
    fn apply(self, v: f64) -> f64 {
        match self {
            Round::Rint => v.round_ties_even(),
            Round::Round => v.round(),
            Round::Floor => v.floor(),
            Round::Ceil => v.ceil(),
            Round::Trunc => v.trunc(),
        }
    }
}

/// `dst = convert(src)`: float to integer rounds with `mode` and saturates to the destination
/// range (NaN gives 0); to a one-byte float (`f8E4M3FN`, `f8E5M2`, `hif8`) rounds with `mode`
/// (hif8: always half away from zero) and overflows to inf/NaN unless `saturate`
/// ([`crate::minifloat`]); everything else converts to the nearest value (ties to even),
/// integers narrowing with wrap-around unless `saturate`.
pub fn convert(mem: &mut Memory, mode: Round, saturate: bool, src: &TileView, dst: &TileView) -> Result<(), Fault> {
    let n = dst_elements(mem, dst)?;
    let vals: Vec<(f64, i64)> = dispatch!(src.desc.dtype, T => {
        let s = storage(mem, src)?;
        (0..n).map(|k| {
            let x = at::<T>(s, src, k / dst.vcols, k % dst.vcols)?;
            Ok((x.to_f64(), x.to_i64()))
        }).collect::<Result<_, Fault>>()?
    }, _ => return Err(unsupported(src)));
    let from_float = src.desc.dtype.is_float();
    dispatch!(dst.desc.dtype, U => {
        let w = U::width();
        let (lo, hi) = if U::signed() { (-(2f64.powi(w as i32 - 1)), 2f64.powi(w as i32 - 1) - 1.0) } else { (0.0, 2f64.powi(w as i32) - 1.0) };
        let out: Vec<U> = vals.iter().map(|&(f, i)| {
            let value = if from_float { f } else { i as f64 };
            if let Some(code) = crate::minifloat::encode_byte(dst.desc.dtype, value, mode.rounding(), saturate) {
                U::from_raw_bits(u64::from(code))
            } else if <U as Elem>::FLOAT {
                U::from_f64(f)
            } else if from_float {
                let r = mode.apply(f);
                if r.is_nan() { U::from_i64(0) } else { U::from_f64(r.clamp(lo, hi)) }
            } else if saturate {
                U::from_f64((i as f64).clamp(lo, hi))
            } else {
                U::from_i64(i)
            }
        }).collect();
        write(mem, dst, &out)
    }, _ => Err(unsupported(dst)))
}

/// Copies the `rows x cols` window at `(sr, sc)` of `src` to `(dr, dc)` of `dst`, converting
/// element types if they differ (ties to even). Any layout and location on either side.
#[allow(clippy::too_many_arguments)]
pub fn copy_window(
    mem: &mut Memory,
    src: &TileView,
    (sr, sc): (usize, usize),
    dst: &TileView,
    (dr, dc): (usize, usize),
    rows: usize,
    cols: usize,
) -> Result<(), Fault> {
    let fits = |v: &TileView, r: usize, c: usize| {
        r.checked_add(rows).is_some_and(|e| e <= v.desc.rows as usize) && c.checked_add(cols).is_some_and(|e| e <= v.desc.cols as usize)
    };
    if !fits(src, sr, sc) || !fits(dst, dr, dc) {
        return Err(Fault(format!(
            "a {rows}x{cols} window at ({sr}, {sc}) of a {}x{} tile to ({dr}, {dc}) of a {}x{} tile is out of bounds",
            src.desc.rows, src.desc.cols, dst.desc.rows, dst.desc.cols
        )));
    }
    storage(mem, dst)?;
    if src.desc.dtype == dst.desc.dtype {
        // One element type on both sides: the elements' bytes move as they are.
        return match dispatch!(src.desc.dtype, T => T::SIZE, _ => return Err(unsupported(src))) {
            1 => copy_bits::<u8>(mem, src, (sr, sc), dst, (dr, dc), rows, cols),
            2 => copy_bits::<u16>(mem, src, (sr, sc), dst, (dr, dc), rows, cols),
            4 => copy_bits::<u32>(mem, src, (sr, sc), dst, (dr, dc), rows, cols),
            _ => copy_bits::<u64>(mem, src, (sr, sc), dst, (dr, dc), rows, cols),
        };
    }
    let vals: Vec<f64> = dispatch!(src.desc.dtype, T => {
        region_with(storage(mem, src)?, src, (sr, sc), rows, cols, T::to_f64)?
    }, _ => return Err(unsupported(src)));
    dispatch!(dst.desc.dtype, U => {
        let d = mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
        put_region(d, dst, (dr, dc), rows, cols, &vals.into_iter().map(U::from_f64).collect::<Vec<U>>())
    }, _ => Err(unsupported(dst)))
}

/// [`copy_window`] between tiles of one element type, `T` an unsigned integer of its width:
/// the window read into a row-major buffer and written out, both piece by piece ([`region`],
/// [`put_region`]; the buffer makes a destination overlapping the source safe).
#[allow(clippy::too_many_arguments)]
fn copy_bits<T: Elem>(
    mem: &mut Memory,
    src: &TileView,
    from: (usize, usize),
    dst: &TileView,
    to: (usize, usize),
    rows: usize,
    cols: usize,
) -> Result<(), Fault> {
    let vals = region::<T>(storage(mem, src)?, src, from, rows, cols)?;
    let d = mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
    put_region(d, dst, to, rows, cols, &vals)
}

pub use crate::exec::MatmulOrder;

impl MatmulOrder {
    /// From `npu` / `cpu-sim` (`pto run --matmul-order`).
    pub fn parse(s: &str) -> Option<MatmulOrder> {
        match s {
            "npu" => Some(MatmulOrder::Npu),
            "cpu-sim" => Some(MatmulOrder::CpuSim),
            _ => None,
        }
    }
}

/// The MX scales of a matrix product: `a_scale` is `M x ceil(K/32)`, `b_scale` `ceil(K/32) x N`
/// (E8M0, or any element type), and `a[i][k] * b[k][j]` is scaled by
/// `a_scale[i][k/32] * b_scale[k/32][j]` (`TMATMUL_MX`).
#[derive(Copy, Clone, Debug)]
pub struct MxScales<'a> {
    /// Scales of `a`'s 32-element row groups.
    pub a: &'a TileView,
    /// Scales of `b`'s 32-element column groups.
    pub b: &'a TileView,
}

/// The MX group size.
const MX_GROUP: usize = 32;

/// `c = [c_in +] a x b [+ bias]`, scaled per 32-element group when `scales` are given: M, K, N
/// from `a`'s valid rows and columns and `b`'s valid columns; accumulated as `order` says
/// (integers wrap).
///
/// The model: each product `a[i][x] * b[x][j]` is exact (computed in f64, which holds every
/// product of two values of up to 26 significant bits), scaled in f64 when MX scales are
/// given, then rounded as `order` says. `a` and `b` are converted once into row-major panels
/// of a [`Panel`] type that computes these products exactly and rounds them the same way:
/// f32 for f16 / bf16 / f32 operands into an f32 accumulator (a product of two f32 values is
/// exact in f64, so f32's correctly rounded product is the f64 product rounded to f32), i64
/// for 8- and 16-bit integer operands (products below 2^32: exact in both), f64 otherwise.
#[allow(clippy::too_many_arguments)]
pub fn matmul(
    mem: &mut Memory,
    a: &TileView,
    b: &TileView,
    scales: Option<MxScales<'_>>,
    c_in: Option<&TileView>,
    bias: Option<&TileView>,
    c: &TileView,
    order: MatmulOrder,
) -> Result<(), Fault> {
    use pto_ir::types::ElemType as E;
    let floats = |v: &TileView| matches!(v.desc.dtype, E::F16 | E::BF16 | E::F32);
    let ints = |v: &TileView| matches!(v.desc.dtype, E::I8 | E::U8 | E::I16 | E::U16);
    let operands = Operands { a, b, scales, c_in, bias, c };
    if scales.is_none() && c.desc.dtype == E::F32 && floats(a) && floats(b) {
        matmul_in::<f32>(mem, operands, order)
    } else if scales.is_none() && ints(a) && ints(b) {
        matmul_in::<i64>(mem, operands, order)
    } else {
        matmul_in::<f64>(mem, operands, order)
    }
}

/// The tiles of one [`matmul`].
#[derive(Copy, Clone)]
struct Operands<'a> {
    a: &'a TileView,
    b: &'a TileView,
    scales: Option<MxScales<'a>>,
    c_in: Option<&'a TileView>,
    bias: Option<&'a TileView>,
    c: &'a TileView,
}

/// The number type of a matmul's operand panels ([`matmul`]: chosen so that every operand
/// value and every product of two is exact in it).
trait Panel: Copy + std::ops::Mul<Output = Self> + 'static {
    /// `x` (exact).
    fn of<T: Elem>(x: T) -> Self;
    /// As f64 (exact).
    fn wide(self) -> f64;
    /// An exact product rounded to the accumulator type `U`, as `U::from_f64` rounds it.
    fn rounded_to<U: Elem>(self) -> U;
}

impl Panel for f64 {
    fn of<T: Elem>(x: T) -> f64 {
        x.to_f64()
    }
    fn wide(self) -> f64 {
        self
    }
    fn rounded_to<U: Elem>(self) -> U {
        U::from_f64(self)
    }
}

impl Panel for f32 {
    fn of<T: Elem>(x: T) -> f32 {
        x.to_f32()
    }
    fn wide(self) -> f64 {
        f64::from(self)
    }
    /// Only ever an f32 accumulator ([`matmul`]): the product is already rounded to it.
    #[inline]
    fn rounded_to<U: Elem>(self) -> U {
        if std::any::TypeId::of::<U>() == std::any::TypeId::of::<f32>() { bytemuck::cast(self) } else { U::from_f64(f64::from(self)) }
    }
}

impl Panel for i64 {
    fn of<T: Elem>(x: T) -> i64 {
        x.to_i64()
    }
    fn wide(self) -> f64 {
        self as f64
    }
    /// Below 2^53, so `U::from_f64` of it is `U::from_i64` (both truncate and wrap).
    fn rounded_to<U: Elem>(self) -> U {
        U::from_i64(self)
    }
}

/// [`matmul`] with `a` and `b` in panels of `P`.
fn matmul_in<P: Panel>(mem: &mut Memory, ops: Operands<'_>, order: MatmulOrder) -> Result<(), Fault> {
    let Operands { a, b, scales, c_in, bias, c } = ops;
    let (m, k, n) = (a.vrows, a.vcols, b.vcols);
    if b.vrows < k || (c.desc.rows as usize) < m || (c.desc.cols as usize) < n {
        return Err(Fault(format!("matmul shapes do not fit: a {m}x{k}, b {}x{n}, c {}x{}", b.vrows, c.desc.rows, c.desc.cols)));
    }
    storage(mem, c)?;
    // Every operand converted once into a row-major panel: `a` and `b` of `P`, the rest f64.
    fn panel<P: Panel>(mem: &Memory, v: &TileView, rows: usize, cols: usize) -> Result<Vec<P>, Fault> {
        v.covers(rows, cols, "a matmul operand")?;
        dispatch!(v.desc.dtype, T => {
            region_with(storage(mem, v)?, v, (0, 0), rows, cols, P::of::<T>)
        }, _ => Err(unsupported(v)))
    }
    let read_all = panel::<f64>;
    let (av, bv) = (panel::<P>(mem, a, m, k)?, panel::<P>(mem, b, k, n)?);
    let groups = k.div_ceil(MX_GROUP);
    let sv = match scales {
        Some(s) => Some((read_all(mem, s.a, m, groups)?, read_all(mem, s.b, groups, n)?)),
        None => None,
    };
    let init = match c_in {
        Some(ci) => Some(read_all(mem, ci, m, n)?),
        None => None,
    };
    let bias_row = match bias {
        Some(bt) => Some(read_all(mem, bt, 1, n)?),
        None => None,
    };
    let f32_acc = c.desc.dtype == pto_ir::types::ElemType::F32;
    dispatch!(c.desc.dtype, U => {
        let mut out: Vec<U> = Vec::with_capacity(m * n);
        // Row i of c, all its columns at once: for each x in order, the products
        // `a[i][x] * b[x][j]` (row x of b's panel) enter each column's own sum, so every sum
        // takes its products in the order of x, rounded step by step as `order` says.
        let mut products = vec![0f64; n];
        let mut sums32 = vec![0f32; n];
        for i in 0..m {
            let products_of = |x: usize, products: &mut [f64]| {
                let (ax, bx) = (av[i * k + x], &bv[x * n..(x + 1) * n]);
                match &sv {
                    None => products.iter_mut().zip(bx).for_each(|(p, &b)| *p = (ax * b).wide()),
                    Some((sa, sb)) => {
                        let (sa, sb) = (sa[i * groups + x / MX_GROUP], &sb[(x / MX_GROUP) * n..(x / MX_GROUP + 1) * n]);
                        products.iter_mut().zip(bx).zip(sb).for_each(|((p, &b), &s)| *p = (ax * b).wide() * (sa * s));
                    }
                }
            };
            let start = out.len();
            match order {
                MatmulOrder::Npu => {
                    out.extend((0..n).map(|j| U::from_f64(init.as_ref().map(|v| v[i * n + j]).or(bias_row.as_ref().map(|b| b[j])).unwrap_or(0.0))));
                    for x in 0..k {
                        if sv.is_none() {
                            // The same products, without a pass through `products`.
                            let (ax, bx) = (av[i * k + x], &bv[x * n..(x + 1) * n]);
                            out[start..].iter_mut().zip(bx).for_each(|(acc, &b)| *acc = acc.add((ax * b).rounded_to::<U>()));
                            continue;
                        }
                        products_of(x, &mut products);
                        out[start..].iter_mut().zip(&products).for_each(|(acc, &p)| *acc = acc.add(U::from_f64(p)));
                    }
                }
                MatmulOrder::CpuSim => {
                    if f32_acc && sv.is_none() {
                        // `std::fma` on f32 operands: one rounding per step.
                        sums32.fill(0.0);
                        for x in 0..k {
                            let ax = av[i * k + x].wide() as f32;
                            sums32.iter_mut().zip(&bv[x * n..(x + 1) * n]).for_each(|(acc, &b)| *acc = ax.mul_add(b.wide() as f32, *acc));
                        }
                        out.extend(sums32.iter().map(|&s| U::from_f64(f64::from(s))));
                    } else if f32_acc {
                        // `float += double`: the f64 product added to the sum, rounded.
                        sums32.fill(0.0);
                        for x in 0..k {
                            products_of(x, &mut products);
                            sums32.iter_mut().zip(&products).for_each(|(acc, &p)| *acc = (f64::from(*acc) + p) as f32);
                        }
                        out.extend(sums32.iter().map(|&s| U::from_f64(f64::from(s))));
                    } else {
                        out.extend((0..n).map(|_| U::from_f64(0.0)));
                        for x in 0..k {
                            products_of(x, &mut products);
                            out[start..].iter_mut().zip(&products).for_each(|(acc, &p)| *acc = acc.add(U::from_f64(p)));
                        }
                    }
                    for (j, acc) in out[start..].iter_mut().enumerate() {
                        if let Some(v) = &init {
                            *acc = U::from_f64(v[i * n + j]).add(*acc);
                        }
                        if let Some(b) = &bias_row {
                            *acc = acc.add(U::from_f64(b[j]));
                        }
                    }
                }
            }
        }
        let d = mem.slice_mut(c.loc, c.addr, c.size_bytes() as usize)?;
        put_region(d, c, (0, 0), m, n, &out)
    }, _ => Err(unsupported(c)))
}

/// The three-input elementwise ops, `x ∘ y ∘ z` in this order, each step rounded to the element
/// type (pto-isa `cpu/ElementOp.h`: `OP_ADDC`, `OP_SUBC`, `OP_ADDCS`, `OP_SUBCS`, `OP_MULADDDST`,
/// `OP_FUSEDMULADD(RELU)`, `TAXPY`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fused {
    /// `x + y + z`
    AddAdd,
    /// `x - y + z`
    SubAdd,
    /// `x * y + z`
    MulAdd,
    /// `max(x * y + z, 0)`
    MulAddRelu,
}

/// One input of [`fused`].
#[derive(Copy, Clone, Debug)]
pub enum Input {
    /// A source tile.
    Tile(TileView),
    /// A scalar, converted to the element type.
    Scalar(Num),
    /// The destination's value before the op (`tmuladddst`, `tfusedmuladd`, `taxpy`).
    Dst,
}

/// `dst = x ∘ y ∘ z` over dst's valid region ([`Fused`]).
pub fn fused(mem: &mut Memory, kind: Fused, inputs: [Input; 3], dst: &TileView) -> Result<(), Fault> {
    let n = dst_elements(mem, dst)?;
    dispatch!(dst.desc.dtype, T => {
        let mut vals: Vec<Vec<T>> = Vec::with_capacity(3);
        for input in inputs {
            vals.push(match input {
                Input::Tile(t) => read_as::<T>(mem, &t, dst)?,
                Input::Scalar(s) => vec![s.to::<T>(); n],
                Input::Dst => read::<T>(mem, dst)?,
            });
        }
        let zero = T::from_i64(0);
        let out: Vec<T> = (0..n)
            .map(|i| {
                let (x, y, z) = (vals[0][i], vals[1][i], vals[2][i]);
                match kind {
                    Fused::AddAdd => x.add(y).add(z),
                    Fused::SubAdd => x.sub(y).add(z),
                    Fused::MulAdd => x.mul(y).add(z),
                    Fused::MulAddRelu => Elem::maximum(x.mul(y).add(z), zero),
                }
            })
            .collect();
        write(mem, dst, &out)
    }, _ => Err(unsupported(dst)))
}

/// `taxpy`: `dst += src * scalar`, also from an f16 `src` into an f32 `dst` (pto-isa's
/// `npu/a2a3/TAxpy.hpp:131-133` allows exactly that mix; `cpu/TBinSOps.hpp:281-300`). The mixed
/// form multiplies the f16 element by the f16 scalar exactly (11-bit significands: the product
/// fits an f32) and adds it to dst rounding once in f32, as the vector unit's `vaxpy` widens its
/// half source.
fn axpy(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let (src, dst) = (a.tile("src")?, a.tile("dst")?);
    let scalar = a.num("scalar")?;
    if src.desc.dtype != pto_ir::types::ElemType::F16 || dst.desc.dtype != pto_ir::types::ElemType::F32 {
        return fused(m.mem, Fused::MulAdd, [Input::Tile(src), Input::Scalar(scalar), Input::Dst], &dst);
    }
    if (src.desc.rows as usize) < dst.vrows || (src.desc.cols as usize) < dst.vcols {
        return Err(Fault(format!(
            "source capacity {}x{} is smaller than the destination's valid shape {}x{}",
            src.desc.rows, src.desc.cols, dst.vrows, dst.vcols
        )));
    }
    let x: Vec<half::f16> = read(m.mem, &TileView { vrows: dst.vrows, vcols: dst.vcols, ..src })?;
    let y: Vec<f32> = read(m.mem, &dst)?;
    let k = scalar.to::<half::f16>().to_f32();
    let out: Vec<f32> = x.iter().zip(&y).map(|(&x, &y)| y + x.to_f32() * k).collect();
    write(m.mem, &dst, &out)
}

// ------------------------------------------------------------------ the semantics table

use crate::exec::{Args, Machine, Semantics};
use pto_ir::ops::Opcode;

/// `dst = src0 op src1`.
macro_rules! bin {
    ($op:ident) => {
        |m: &mut Machine<'_>, a: &Args<'_>| binary(m.mem, BinOp::$op, &a.tile("src0")?, &a.tile("src1")?, &a.tile("dst")?)
    };
}

/// `dst = src op scalar` (`scalar op src` in the scalar-first form).
macro_rules! bin_scalar {
    ($op:ident) => {
        |m: &mut Machine<'_>, a: &Args<'_>| {
            binary_scalar(m.mem, BinOp::$op, &a.tile("src")?, a.num("scalar")?, a.form == 1, &a.tile("dst")?)
        }
    };
}

/// `dst = op(src)`.
macro_rules! un {
    ($op:ident) => {
        |m: &mut Machine<'_>, a: &Args<'_>| unary(m.mem, UnOp::$op, &a.tile("src")?, &a.tile("dst")?)
    };
}

/// A [`Fused`] op over three [`Input`]s named by slot (`dst` is the destination's old value).
macro_rules! fused {
    ($kind:ident, $x:tt, $y:tt, $z:tt) => {
        |m: &mut Machine<'_>, a: &Args<'_>| {
            let (x, y, z) = (fused!(@in a, $x), fused!(@in a, $y), fused!(@in a, $z));
            let input = |v: Result<Option<TileView>, Num>| match v {
                Ok(Some(t)) => Input::Tile(t),
                Ok(None) => Input::Dst,
                Err(n) => Input::Scalar(n),
            };
            fused(m.mem, Fused::$kind, [input(x), input(y), input(z)], &a.tile("dst")?)
        }
    };
    (@in $a:ident, dst) => { Ok::<Option<TileView>, Num>(None) };
    (@in $a:ident, scalar) => { Err::<Option<TileView>, Num>($a.num("scalar")?) };
    (@in $a:ident, $slot:literal) => { Ok::<Option<TileView>, Num>(Some($a.tile($slot)?)) };
}

/// A row (`true`) or column reduction.
macro_rules! reduction {
    ($kind:ident, $rows:literal) => {
        |m: &mut Machine<'_>, a: &Args<'_>| reduce(m.mem, Reduce::$kind, $rows, &a.tile("src")?, &a.tile("dst")?)
    };
}

/// `trowexpand<op>` (`true`) / `tcolexpand<op>`.
macro_rules! expand_with {
    ($op:expr, $rows:literal) => {
        |m: &mut Machine<'_>, a: &Args<'_>| expand_op(m.mem, $op, $rows, &a.tile("src0")?, &a.tile("src1")?, &a.tile("dst")?)
    };
}

/// An arg-reduction: the index only (`dst`), or values and indices (`val`, `idx`). A2A3's
/// column arg-reductions compare as [`ArgRule::A2A3Column`].
fn arg_reduction(m: &mut Machine<'_>, a: &Args<'_>, max: bool, along_rows: bool) -> Result<(), Fault> {
    let src = a.tile("src")?;
    if let Some(val) = a.opt_tile("val") {
        reduce(m.mem, if max { Reduce::Max } else { Reduce::Min }, along_rows, &src, &val)?;
    }
    let idx = a.opt_tile("idx").map_or_else(|| a.tile("dst"), Ok)?;
    let rule = if !along_rows && a.target == pto_lower::TargetId::A2A3 { ArgRule::A2A3Column } else { ArgRule::Strict };
    arg_reduce(m.mem, max, rule, along_rows, &src, &idx)
}

fn compare_op(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let mode = a.enum_attr("cmpMode", "cmp").ok_or_else(|| Fault("missing cmpMode".into()))?;
    let cmp = Cmp::parse(mode).ok_or_else(|| Fault(format!("unknown cmpMode `{mode}`")))?;
    let rhs = match a.opt_tile("src1") {
        Some(t) => Ok(t),
        None => Err(a.num("scalar")?),
    };
    let lhs = a.opt_tile("src0").map_or_else(|| a.tile("src"), Ok)?;
    compare(m.mem, cmp, &lhs, rhs.as_ref().map_err(|n| *n), &a.tile("dst")?)
}

/// Every matmul and gemv form, plain or MX (`a_scale`, `b_scale`), with `c_in` or `bias`.
fn matmul_op(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let (sa, sb) = (a.opt_tile("a_scale"), a.opt_tile("b_scale"));
    let scales = match (&sa, &sb) {
        (Some(x), Some(y)) => Some(MxScales { a: x, b: y }),
        _ => None,
    };
    let (c_in, bias) = (a.opt_tile("c_in"), a.opt_tile("bias"));
    matmul(m.mem, &a.tile("a")?, &a.tile("b")?, scales, c_in.as_ref(), bias.as_ref(), &a.tile("c")?, m.matmul_order)
}

fn unsigned(a: &Args<'_>, slot: &str) -> Result<usize, Fault> {
    let v = a.int(slot)?;
    usize::try_from(v).map_err(|_| Fault(format!("index {v} is negative")))
}

/// Every instruction of this module, by the op table's slot names.
pub const SEMANTICS: &[(Opcode, Semantics)] = &[
    // Elementwise binary, bitwise and shifts.
    (Opcode::TAdd, bin!(Add)),
    (Opcode::TSub, bin!(Sub)),
    (Opcode::TMul, bin!(Mul)),
    (Opcode::TDiv, bin!(Div)),
    (Opcode::TMin, bin!(Min)),
    (Opcode::TMax, bin!(Max)),
    (Opcode::TAnd, bin!(And)),
    (Opcode::TOr, bin!(Or)),
    (Opcode::TXor, bin!(Xor)),
    (Opcode::TShl, bin!(Shl)),
    (Opcode::TShr, bin!(Shr)),
    (Opcode::TRem, bin!(Rem)),
    (Opcode::TFmod, bin!(FMod)),
    (Opcode::TPow, bin!(Pow)),
    (Opcode::TPrelu, bin!(Prelu)),
    (Opcode::TSubRelu, bin!(SubRelu)),
    // Unary.
    (Opcode::TAbs, un!(Abs)),
    (Opcode::TNeg, un!(Neg)),
    (Opcode::TExp, un!(Exp)),
    (Opcode::TLog, un!(Log)),
    (Opcode::TSqrt, un!(Sqrt)),
    (Opcode::TRsqrt, un!(Rsqrt)),
    (Opcode::TRecip, un!(Recip)),
    (Opcode::TRelu, un!(Relu)),
    (Opcode::TNot, un!(Not)),
    // Tile-scalar.
    (Opcode::TAdds, bin_scalar!(Add)),
    (Opcode::TSubs, bin_scalar!(Sub)),
    (Opcode::TMuls, bin_scalar!(Mul)),
    (Opcode::TDivs, bin_scalar!(Div)),
    (Opcode::TMins, bin_scalar!(Min)),
    (Opcode::TMaxs, bin_scalar!(Max)),
    (Opcode::TAnds, bin_scalar!(And)),
    (Opcode::TOrs, bin_scalar!(Or)),
    (Opcode::TXors, bin_scalar!(Xor)),
    (Opcode::TShls, bin_scalar!(Shl)),
    (Opcode::TShrs, |m, a| {
        let op = if a.flag("round") { BinOp::ShrRound } else { BinOp::Shr };
        binary_scalar(m.mem, op, &a.tile("src")?, a.num("scalar")?, false, &a.tile("dst")?)
    }),
    (Opcode::TRems, bin_scalar!(Rem)),
    (Opcode::TFmods, bin_scalar!(FMod)),
    (Opcode::TPows, bin_scalar!(Pow)),
    (Opcode::TLrelu, bin_scalar!(Prelu)),
    (Opcode::TExpands, |m, a| fill(m.mem, a.num("scalar")?, &a.tile("dst")?)),
    // Ternary / fused.
    (Opcode::TAddc, fused!(AddAdd, "src0", "src1", "src2")),
    (Opcode::TSubc, fused!(SubAdd, "src0", "src1", "src2")),
    (Opcode::TAddsc, fused!(AddAdd, "src0", scalar, "src1")),
    (Opcode::TSubsc, fused!(SubAdd, "src0", scalar, "src1")),
    (Opcode::TMulAddDst, fused!(MulAdd, "src0", "src1", dst)),
    (Opcode::TFusedMulAdd, fused!(MulAdd, "src0", dst, "src1")),
    (Opcode::TFusedMulAddRelu, fused!(MulAddRelu, "src0", dst, "src1")),
    (Opcode::TAxpy, axpy),
    // Reductions and arg-reductions.
    (Opcode::TRowSum, reduction!(Sum, true)),
    (Opcode::TRowMax, reduction!(Max, true)),
    (Opcode::TRowMin, reduction!(Min, true)),
    (Opcode::TRowProd, reduction!(Prod, true)),
    (Opcode::TColSum, reduction!(Sum, false)),
    (Opcode::TColMax, reduction!(Max, false)),
    (Opcode::TColMin, reduction!(Min, false)),
    (Opcode::TColProd, reduction!(Prod, false)),
    (Opcode::TRowArgMax, |m, a| arg_reduction(m, a, true, true)),
    (Opcode::TRowArgMin, |m, a| arg_reduction(m, a, false, true)),
    (Opcode::TColArgMax, |m, a| arg_reduction(m, a, true, false)),
    (Opcode::TColArgMin, |m, a| arg_reduction(m, a, false, false)),
    // Expands.
    (Opcode::TRowExpand, |m, a| expand(m.mem, true, &a.tile("src")?, &a.tile("dst")?)),
    (Opcode::TColExpand, |m, a| expand(m.mem, false, &a.tile("src")?, &a.tile("dst")?)),
    (Opcode::TRowExpandAdd, expand_with!(ExpandOp::Bin(BinOp::Add), true)),
    (Opcode::TRowExpandSub, expand_with!(ExpandOp::Bin(BinOp::Sub), true)),
    (Opcode::TRowExpandMul, expand_with!(ExpandOp::Bin(BinOp::Mul), true)),
    (Opcode::TRowExpandDiv, expand_with!(ExpandOp::Bin(BinOp::Div), true)),
    (Opcode::TRowExpandMax, expand_with!(ExpandOp::Bin(BinOp::Max), true)),
    (Opcode::TRowExpandMin, expand_with!(ExpandOp::Bin(BinOp::Min), true)),
    (Opcode::TRowExpandExpdif, expand_with!(ExpandOp::ExpDif, true)),
    (Opcode::TColExpandAdd, expand_with!(ExpandOp::Bin(BinOp::Add), false)),
    (Opcode::TColExpandSub, expand_with!(ExpandOp::Bin(BinOp::Sub), false)),
    (Opcode::TColExpandMul, expand_with!(ExpandOp::Bin(BinOp::Mul), false)),
    (Opcode::TColExpandDiv, expand_with!(ExpandOp::Bin(BinOp::Div), false)),
    (Opcode::TColExpandMax, expand_with!(ExpandOp::Bin(BinOp::Max), false)),
    (Opcode::TColExpandMin, expand_with!(ExpandOp::Bin(BinOp::Min), false)),
    (Opcode::TColExpandExpdif, expand_with!(ExpandOp::ExpDif, false)),
    // Compare and select.
    (Opcode::TCmp, compare_op),
    (Opcode::TCmps, compare_op),
    (Opcode::TSel, |m, a| select(m.mem, &a.tile("mask")?, &a.tile("src0")?, &a.tile("src1")?, &a.tile("dst")?)),
    (Opcode::TSels, |m, a| select_scalar(m.mem, &a.tile("mask")?, &a.tile("src")?, a.num("scalar")?, &a.tile("dst")?)),
    // Generation and conversion.
    (Opcode::TCi, |m, a| ci(m.mem, a.int("start")?, a.flag("descending"), &a.tile("dst")?)),
    (Opcode::TCvt, |m, a| {
        let mode = Round::parse(a.enum_attr("rmode", "round_mode").unwrap_or("RINT"));
        let saturate = a.enum_attr("sat_mode", "saturation_mode") == Some("ON");
        convert(m.mem, mode, saturate, &a.tile("src")?, &a.tile("dst")?)
    }),
    // Moves between tiles and matrix products.
    (Opcode::TMov, |m, a| {
        let (s, d) = (a.tile("src")?, a.tile("dst")?);
        if let Some(mode) = a.enum_attr("accToVecMode", "acc_to_vec_mode") {
            return Err(Fault(format!("tmov's accToVecMode `{mode}` (which vector core receives which half) is not simulated")));
        }
        copy_window(m.mem, &s, (0, 0), &d, (0, 0), d.vrows.min(s.vrows), d.vcols.min(s.vcols))?;
        // The fixpipe's relu before the write (`npu/a5/TMov.hpp` `ReluPreMode`): on what was moved.
        match a.enum_attr("reluPreMode", "relu_pre_mode") {
            Some("normal_relu") => unary(m.mem, UnOp::Relu, &d, &d),
            _ => Ok(()),
        }
    }),
    (Opcode::TExtract, |m, a| {
        let d = a.tile("dst")?;
        copy_window(m.mem, &a.tile("src")?, (unsigned(a, "row")?, unsigned(a, "col")?), &d, (0, 0), d.vrows, d.vcols)
    }),
    (Opcode::TInsert, |m, a| {
        let s = a.tile("src")?;
        copy_window(m.mem, &s, (0, 0), &a.tile("dst")?, (unsigned(a, "row")?, unsigned(a, "col")?), s.vrows, s.vcols)
    }),
    (Opcode::TConcat, |m, a| {
        let (x, y, d) = (a.tile("src0")?, a.tile("src1")?, a.tile("dst")?);
        copy_window(m.mem, &x, (0, 0), &d, (0, 0), x.vrows, x.vcols)?;
        copy_window(m.mem, &y, (0, 0), &d, (0, x.vcols), y.vrows, y.vcols)
    }),
    (Opcode::TMatmul, matmul_op),
    (Opcode::TMatmulAcc, matmul_op),
    (Opcode::TMatmulBias, matmul_op),
    (Opcode::TGemv, matmul_op),
    (Opcode::TGemvAcc, matmul_op),
    (Opcode::TGemvBias, matmul_op),
    (Opcode::TMatmulMx, matmul_op),
    (Opcode::TMatmulMxAcc, matmul_op),
    (Opcode::TMatmulMxBias, matmul_op),
    (Opcode::TGemvMx, matmul_op),
    (Opcode::TGemvMxAcc, matmul_op),
    (Opcode::TGemvMxBias, matmul_op),
];

#[cfg(test)]
mod checked_access {
    //! Operands that do not cover what an op reads are faults, whatever reached the simulator:
    //! the shape relations the helpers rely on are checked where they rely on them (no panic,
    //! no read of a neighbouring tile, no silent read of another column of a col-major tile).
    use super::*;
    use pto_ir::types::{BLayout, ElemType, TileDesc};

    fn mem() -> Memory {
        Memory::new(pto_lower::Target::get(pto_lower::TargetId::A2A3))
    }

    /// A Vec f32 tile at `addr`, its whole capacity valid.
    fn tile(rows: u32, cols: u32, addr: u64) -> TileView {
        let desc = TileDesc::vec(ElemType::F32, rows, cols);
        TileView { loc: desc.loc, addr, desc, vrows: rows as usize, vcols: cols as usize }
    }

    fn col_major(rows: u32, cols: u32, addr: u64) -> TileView {
        let mut t = tile(rows, cols, addr);
        t.desc.blayout = BLayout::ColMajor;
        t
    }

    fn fault(r: Result<(), Fault>) -> String {
        r.expect_err("a fault").0
    }

    #[test]
    fn expand_ops_with_a_destination_larger_than_an_operand_fault() {
        let mut m = mem();
        let (full, vec) = (tile(16, 32, 0), col_major(16, 1, 4096));
        let div = ExpandOp::Bin(BinOp::Div);
        // Wider: the row fast path (sub) would stream 64 columns of a 32-column tile, the
        // generic path (div) reads column 32.
        let wide = tile(16, 64, 8192);
        let sub = ExpandOp::Bin(BinOp::Sub);
        assert_eq!(fault(expand_op(&mut m, sub, true, &full, &vec, &wide)), "an operand (16x32 tile) is read or written as 16x64");
        assert_eq!(fault(expand_op(&mut m, div, true, &full, &vec, &wide)), "access to element (0, 32) of a 16x32 tile");
        // Taller: 32 rows against 16-row operands (the generic path).
        let tall = tile(32, 32, 16384);
        assert_eq!(fault(expand_op(&mut m, div, true, &full, &vec, &tall)), "access to element (16, 0) of a 16x32 tile");
        let exp = ExpandOp::ExpDif;
        assert!(fault(expand_op(&mut m, exp, false, &full, &tile(1, 32, 4096), &tall)).contains("of a 16x32 tile"));
        // An operand of another element type is not read as the destination's.
        let mut ints = vec;
        ints.desc.dtype = ElemType::I16;
        assert!(fault(expand_op(&mut m, div, true, &full, &ints, &tile(16, 32, 8192))).contains("src1 element type i16 differs"));
    }

    #[test]
    fn a_col_major_source_is_never_read_past_its_rows() {
        // Row 8 of an 8x2 col-major tile would be element (0, 1) in storage.
        let mut m = mem();
        let (src, dst) = (col_major(8, 2, 0), tile(16, 8, 4096));
        assert_eq!(fault(expand(&mut m, true, &src, &dst)), "access to element (8, 0) of a 8x2 tile");
        assert_eq!(fault(convert(&mut m, Round::Rint, false, &src, &tile(16, 2, 8192))), "access to element (8, 0) of a 8x2 tile");
    }

    #[test]
    fn compare_select_and_matmul_operands_must_cover_the_region() {
        let mut m = mem();
        let (a, short) = (tile(16, 16, 0), tile(8, 16, 1024));
        let mut mask = tile(16, 8, 2048);
        mask.desc.dtype = ElemType::U8;
        assert_eq!(fault(compare(&mut m, Cmp::Gt, &a, Ok(&short), &mask)), "access to element (8, 0) of a 8x16 tile");
        let mut small_mask = tile(8, 32, 2048);
        small_mask.desc.dtype = ElemType::U8;
        assert_eq!(fault(select(&mut m, &small_mask, &a, &a, &tile(16, 16, 4096))), "access to element (8, 0) of a 8x32 tile");
        let (lhs, rhs, c) = (tile(16, 16, 0), tile(16, 16, 1024), tile(16, 16, 4096));
        let bias = tile(1, 8, 8192);
        assert_eq!(
            fault(matmul(&mut m, &lhs, &rhs, None, None, Some(&bias), &c, MatmulOrder::Npu)),
            "a matmul operand (1x8 tile) is read or written as 1x16"
        );
    }

    #[test]
    fn the_simulator_is_tested_with_overflow_checks() {
        // `[profile.dev.package.pto-sim]` optimises but keeps overflow checks (Cargo.toml).
        let wrapped = std::panic::catch_unwind(|| std::hint::black_box(usize::MAX) + std::hint::black_box(1));
        assert!(wrapped.is_err(), "usize::MAX + 1 did not panic: overflow checks are off in pto-sim");
    }

    #[test]
    fn indices_and_windows_far_out_of_range_fault_without_overflow() {
        let mut m = mem();
        let (src, dst) = (tile(16, 16, 0), tile(16, 16, 1024));
        assert!(fault(copy_window(&mut m, &src, (usize::MAX, 0), &dst, (0, 0), 2, 2)).contains("out of bounds"));
        assert!(fault(copy_window(&mut m, &src, (0, 0), &dst, (0, usize::MAX - 1), 2, 2)).contains("out of bounds"));
        assert_eq!(fault(set_element(&mut m, &src, i64::MIN, Num::I(1))), "element index -9223372036854775808 outside the 16x16 tile");
        assert!(get_element(&m, &src, 256).is_err());
        // A view whose valid region exceeds its capacity (never built by the interpreter).
        let broken = TileView { vrows: 17, ..src };
        assert_eq!(read_region(&m, &broken).unwrap_err().0, "the tile's valid region (16x16 tile) is read or written as 17x16");
        // A tile placed past the end of its buffer.
        assert!(fault(fill(&mut m, Num::F(1.0), &tile(16, 16, u64::MAX - 8))).contains("is outside its 196608 bytes"));
    }
}

#[cfg(test)]
mod regions {
    //! [`region`] / [`put_region`] (piece by piece) against [`at`] / [`put`] (element by
    //! element) on every layout, element sizes 1 to 8, windows inside, at the edge of and past
    //! a tile, partial boxes and a width that is not the tile's.
    use super::*;
    use pto_ir::types::{Dim, ElemType, Loc, TileDesc};

    fn tile(dtype: ElemType, (rows, cols): (u32, u32), b: BLayout, s: SLayout, fractal: u32) -> TileView {
        let mut d = TileDesc::vec(dtype, rows, cols);
        (d.blayout, d.slayout, d.fractal, d.valid_rows) = (b, s, fractal, Dim::Static(rows));
        TileView { loc: Loc::Vec, addr: 0, desc: d, vrows: rows as usize, vcols: cols as usize }
    }

    fn compare<T: Elem + PartialEq + std::fmt::Debug>(v: &TileView) {
        let storage: Vec<u8> = (0..v.size_bytes() as usize).map(|i| (i * 13 % 251) as u8).collect();
        let (rows, cols) = (v.desc.rows as usize, v.desc.cols as usize);
        for (at0, shape) in
            [((0, 0), (rows, cols)), ((1, 3), (rows - 1, cols - 5)), ((rows / 2, 0), (rows - rows / 2, 2)), ((0, 1), (rows, cols))]
        {
            let what = format!("{v:?}, {} bytes, window {shape:?} at {at0:?}", T::SIZE);
            let want: Result<Vec<T>, Fault> =
                (0..shape.0 * shape.1).map(|x| at(&storage, v, at0.0 + x / shape.1, at0.1 + x % shape.1)).collect();
            assert_eq!(region::<T>(&storage, v, at0, shape.0, shape.1), want, "{what}");
            // Storage not aligned for `T` (byte by byte instead of typed slices).
            let mut shifted = vec![0u8; storage.len() + 1];
            shifted[1..].copy_from_slice(&storage);
            assert_eq!(region::<T>(&shifted[1..], v, at0, shape.0, shape.1), want, "{what}, unaligned");
            let vals: Vec<T> = (0..shape.0 * shape.1).map(|x| T::from_i64((x % 97) as i64 + 1)).collect();
            let (mut a, mut b) = (storage.clone(), storage.clone());
            let want = (0..shape.0 * shape.1).try_for_each(|x| put(&mut a, v, at0.0 + x / shape.1, at0.1 + x % shape.1, vals[x]));
            assert_eq!(put_region(&mut b, v, at0, shape.0, shape.1, &vals), want, "{what}");
            assert!(a == b, "{what}");
            assert_eq!(put_region(&mut shifted[1..], v, at0, shape.0, shape.1, &vals), want, "{what}, unaligned");
            assert!(shifted[1..] == a[..], "{what}, unaligned");
        }
    }

    #[test]
    fn pieces_equal_elements() {
        use BLayout::{ColMajor as Col, RowMajor as Row};
        use SLayout::{ColMajor as C, NoneBox as N, RowMajor as R};
        let layouts = [
            (Row, N, 512, (32, 64)),
            (Col, N, 512, (32, 64)),
            (Col, R, 512, (32, 64)),
            (Row, R, 512, (32, 64)),
            (Row, C, 512, (32, 64)),
            (Col, C, 512, (32, 64)),
            (Col, R, 32, (32, 64)),
            (Row, C, 32, (32, 64)),
            (Col, R, 512, (1, 64)),
            (Row, R, 512, (20, 64)),
            (Col, C, 512, (32, 40)),
        ];
        for dtype in [ElemType::U8, ElemType::U16, ElemType::U32, ElemType::U64] {
            for (b, s, fractal, shape) in layouts {
                let v = tile(dtype, shape, b, s, fractal);
                compare::<u8>(&v);
                compare::<u16>(&v);
                compare::<u32>(&v);
                compare::<u64>(&v);
            }
        }
        let acc = tile(ElemType::F32, (32, 64), Col, R, 1024);
        compare::<f32>(&acc);
    }
}

#[cfg(test)]
mod exact_fast_paths {
    //! The fast paths that change how a result is computed, not what it is: same-type moves as
    //! byte copies, and matmul panels of f32 or i64 against the f64 model ([`matmul_in`]).
    use super::*;
    use pto_ir::types::{ElemType, TileDesc};

    fn mem() -> Memory {
        Memory::new(pto_lower::Target::get(pto_lower::TargetId::A2A3))
    }

    fn tile(dtype: ElemType, rows: u32, cols: u32, addr: u64) -> TileView {
        let desc = TileDesc::vec(dtype, rows, cols);
        TileView { loc: desc.loc, addr, desc, vrows: rows as usize, vcols: cols as usize }
    }

    /// Fills `v`'s storage with pseudo-random bytes (every float class: NaNs, infinities,
    /// subnormals, zeros of both signs).
    fn scramble(mem: &mut Memory, v: &TileView, seed: &mut u64) {
        for b in mem.slice_mut(v.loc, v.addr, v.size_bytes() as usize).expect("inside") {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *b = (*seed >> 24) as u8;
        }
    }

    /// Fills `v` with finite values of every magnitude from 2^-30 to 2^30 (and zeros), so
    /// sums stay finite and the products' rounding shows.
    fn tame(mem: &mut Memory, v: &TileView, seed: &mut u64) {
        let mut next = || {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed
        };
        dispatch!(v.desc.dtype, T => {
            let vals: Vec<T> = (0..v.vrows * v.vcols)
                .map(|_| {
                    let r = next();
                    let mantissa = (r & 0xff_ffff) as f64 - (1 << 23) as f64;
                    T::from_f64(mantissa * 2f64.powi((r >> 32) as i32 % 31 - 23))
                })
                .collect();
            write(mem, v, &vals).expect("writes")
        }, _ => unreachable!())
    }

    fn bytes(mem: &Memory, v: &TileView) -> Vec<u8> {
        storage(mem, v).expect("inside").to_vec()
    }

    #[test]
    fn same_type_moves_keep_every_bit() {
        // Integers past 2^53 and signalling NaNs did not survive a pass through f64.
        let mut m = mem();
        let (src, mut dst) = (tile(ElemType::I64, 4, 8, 0), tile(ElemType::I64, 4, 8, 4096));
        let vals: Vec<i64> = (0..32).map(|x| (1i64 << 53) + 1 + x * 7 - if x % 5 == 0 { i64::MAX } else { 0 }).collect();
        write(&mut m, &src, &vals).expect("writes");
        dst.desc.blayout = BLayout::ColMajor;
        copy_window(&mut m, &src, (0, 0), &dst, (0, 0), 4, 8).expect("moves");
        assert_eq!(read::<i64>(&m, &dst).expect("reads"), vals);
        let (f, g) = (tile(ElemType::F32, 2, 8, 8192), tile(ElemType::F32, 2, 8, 12288));
        let nans: Vec<u32> = (0..16).map(|x| 0x7f80_0001 + x).collect();
        write(&mut m, &f, &nans).expect("writes");
        copy_window(&mut m, &f, (0, 0), &g, (0, 0), 2, 8).expect("moves");
        assert_eq!(read::<u32>(&m, &TileView { desc: TileDesc { dtype: ElemType::U32, ..g.desc }, ..g }).expect("reads"), nans);
    }

    #[test]
    fn panels_compute_the_f64_model() {
        use ElemType::*;
        let (m_, k, n) = (4u32, 40u32, 24u32);
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let cases = [
            (BF16, BF16, F32),
            (F16, F16, F32),
            (F32, F32, F32),
            (BF16, F32, F32),
            (I8, I8, I32),
            (U8, I8, I32),
            (I16, U16, I32),
            (U16, U16, I32),
        ];
        for (ta, tb, tc) in cases {
            for order in [MatmulOrder::Npu, MatmulOrder::CpuSim] {
                for (with, wild) in (0..3).flat_map(|w| [(w, false), (w, true)]) {
                    let mut mem = mem();
                    let (a, b) = (tile(ta, m_, k, 0), tile(tb, k, n, 8192));
                    let (c_in, bias, c) = (tile(tc, m_, n, 16384), tile(tc, 1, n, 20480), tile(tc, m_, n, 24576));
                    for v in [&a, &b, &c_in, &bias] {
                        if wild { scramble(&mut mem, v, &mut seed) } else { tame(&mut mem, v, &mut seed) }
                    }
                    let (ci, bi) = (Some(&c_in).filter(|_| with == 1), Some(&bias).filter(|_| with == 2));
                    let ops = Operands { a: &a, b: &b, scales: None, c_in: ci, bias: bi, c: &c };
                    matmul_in::<f64>(&mut mem, ops, order).expect("runs");
                    let want = bytes(&mem, &c);
                    scramble(&mut mem, &c, &mut seed);
                    matmul(&mut mem, &a, &b, None, ci, bi, &c, order).expect("runs");
                    // Bit for bit, but any NaN equals any NaN: Rust leaves NaN payloads to
                    // the code generator (operands of `*` and `+` may be swapped), so no
                    // path fixes which NaN propagates.
                    let word = |b: &[u8], i: usize| u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
                    let nan = |w: u32| tc == F32 && f32::from_bits(w).is_nan();
                    let got = bytes(&mem, &c);
                    let diff =
                        (0..got.len() / 4).map(|i| (i, word(&got, i), word(&want, i))).find(|&(_, g, w)| g != w && !(nan(g) && nan(w)));
                    assert!(diff.is_none(), "{ta} x {tb} -> {tc}, {order:?}, operand set {with}, wild {wild}: {diff:x?}");
                }
            }
        }
    }
}
