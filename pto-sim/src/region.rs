//! Instructions defined by valid regions rather than element by element: the partial ops (two
//! sources with different valid regions), pad fills, pair sums and triangular masks. Semantics
//! from pto-isa's CPU simulator (`include/pto/cpu/TPartOp.hpp`, `TPartArgCommon.hpp`,
//! `TFillPad.hpp`, `TPairReduceSum.hpp`, `TTRI.hpp`).

use crate::dispatch;
use crate::elem::Elem;
use crate::exec::{Args, Machine, Semantics};
use crate::family::{BinOp, apply, dst_elements, read, unsupported, write};
use crate::memory::{Fault, Memory};
use crate::view::TileView;
use pto_ir::ops::Opcode;

/// The whole capacity of `v` as its valid region.
fn full(v: &TileView) -> TileView {
    TileView { vrows: v.desc.rows as usize, vcols: v.desc.cols as usize, ..*v }
}

/// `(i, j)` of `v`'s valid region, row-major, or `None` outside it.
fn valid_index(v: &TileView, i: usize, j: usize) -> Option<usize> {
    (i < v.vrows && j < v.vcols).then(|| i * v.vcols + j)
}

fn same_type(a: &TileView, b: &TileView) -> Result<(), Fault> {
    if a.desc.dtype != b.desc.dtype {
        return Err(Fault(format!("element types differ: {} and {}", a.desc.dtype, b.desc.dtype)));
    }
    Ok(())
}

/// `tpartadd`/`mul`/`max`/`min`: over dst's valid region, `a op b` where both sources are
/// valid, the one valid source where only one is, 0 where neither is.
pub fn partial(mem: &mut Memory, op: BinOp, a: &TileView, b: &TileView, dst: &TileView) -> Result<(), Fault> {
    same_type(a, dst)?;
    same_type(b, dst)?;
    let n = dst_elements(mem, dst)?;
    dispatch!(dst.desc.dtype, T => {
        let (x, y) = (read::<T>(mem, a)?, read::<T>(mem, b)?);
        let mut out = Vec::with_capacity(n);
        for i in 0..dst.vrows {
            for j in 0..dst.vcols {
                out.push(match (valid_index(a, i, j), valid_index(b, i, j)) {
                    (Some(p), Some(q)) => apply(op, x[p], y[q])?,
                    (Some(p), None) => x[p],
                    (None, Some(q)) => y[q],
                    (None, None) => T::from_i64(0),
                });
            }
        }
        write(mem, dst, &out)
    }, _ => Err(unsupported(dst)))
}

/// `tpartargmax`/`tpartargmin`: (value, index) pairs; where both sources are valid the first
/// wins only when strictly greater (smaller), so ties take the second.
#[allow(clippy::too_many_arguments)]
pub fn partial_arg(
    mem: &mut Memory,
    max: bool,
    (a, a_idx): (&TileView, &TileView),
    (b, b_idx): (&TileView, &TileView),
    (dst, dst_idx): (&TileView, &TileView),
) -> Result<(), Fault> {
    same_type(a, dst)?;
    same_type(b, dst)?;
    same_type(a_idx, dst_idx)?;
    same_type(b_idx, dst_idx)?;
    let n = dst_elements(mem, dst)?;
    let picks: Vec<Option<(bool, usize)>> = dispatch!(dst.desc.dtype, T => {
        let (x, y) = (read::<T>(mem, a)?, read::<T>(mem, b)?);
        let mut picks = Vec::with_capacity(n);
        for i in 0..dst.vrows {
            for j in 0..dst.vcols {
                picks.push(match (valid_index(a, i, j), valid_index(b, i, j)) {
                    (Some(p), Some(q)) => {
                        let first = if max { x[p] > y[q] } else { x[p] < y[q] };
                        Some(if first { (true, p) } else { (false, q) })
                    }
                    (Some(p), None) => Some((true, p)),
                    (None, Some(q)) => Some((false, q)),
                    (None, None) => None,
                });
            }
        }
        picks
    }, _ => return Err(unsupported(dst)));
    // The same picks for the values and for the indices.
    fn gather<T: Elem>(mem: &mut Memory, picks: &[Option<(bool, usize)>], a: &TileView, b: &TileView, dst: &TileView) -> Result<(), Fault> {
        let (x, y) = (read::<T>(mem, a)?, read::<T>(mem, b)?);
        let out: Vec<T> = picks.iter().map(|p| p.map_or(T::from_i64(0), |(first, k)| if first { x[k] } else { y[k] })).collect();
        write(mem, dst, &out)
    }
    let index_region = TileView { vrows: dst.vrows, vcols: dst.vcols, ..*dst_idx };
    dispatch!(dst.desc.dtype, T => gather::<T>(mem, &picks, a, b, dst), _ => Err(unsupported(dst)))?;
    dispatch!(dst_idx.desc.dtype, T => gather::<T>(mem, &picks, a_idx, b_idx, &index_region), _ => Err(unsupported(dst_idx)))
}

/// The pad value of `v`'s type (`pad=`: 0 null and 1 zero give 0, 2 max gives +inf or the
/// largest value, 3 min gives -inf or the smallest).
fn pad_value<T: Elem>(v: &TileView) -> T {
    match v.desc.pad {
        2 if T::FLOAT => T::from_f64(f64::INFINITY),
        3 if T::FLOAT => T::from_f64(f64::NEG_INFINITY),
        2 => integer_limit(true),
        3 => integer_limit(false),
        _ => T::from_i64(0),
    }
}

/// The largest or smallest value of an integer type.
fn integer_limit<T: Elem>(max: bool) -> T {
    let width = T::width();
    match (T::signed(), max) {
        (true, true) => T::from_i64(i64::MAX >> (64 - width)),
        (true, false) => T::from_i64(i64::MIN >> (64 - width)),
        (false, true) => T::from_raw_bits(u64::MAX >> (64 - width)),
        (false, false) => T::from_i64(0),
    }
}

/// `tfillpad` (and `_inplace`, `_expand`): dst's whole capacity gets src inside src's valid
/// region and dst's pad value elsewhere.
pub fn fill_pad(mem: &mut Memory, src: &TileView, dst: &TileView) -> Result<(), Fault> {
    same_type(src, dst)?;
    let whole = full(dst);
    let n = dst_elements(mem, &whole)?;
    dispatch!(dst.desc.dtype, T => {
        let x = read::<T>(mem, src)?;
        let pad = pad_value::<T>(dst);
        let mut out = Vec::with_capacity(n);
        for i in 0..whole.vrows {
            for j in 0..whole.vcols {
                out.push(valid_index(src, i, j).map_or(pad, |k| x[k]));
            }
        }
        write(mem, &whole, &out)
    }, _ => Err(unsupported(dst)))
}

/// `tpairreducesum`: row `r` of dst holds `src[r, 2c] + src[r, 2c + 1]` in its first
/// `ceil(cols / 2)` columns (an odd last element alone); the rest of dst's capacity is 0.
pub fn pair_sum(mem: &mut Memory, src: &TileView, dst: &TileView) -> Result<(), Fault> {
    same_type(src, dst)?;
    if src.vrows != dst.vrows || src.vcols != dst.vcols {
        return Err(Fault(format!("valid shapes differ: src {}x{}, dst {}x{}", src.vrows, src.vcols, dst.vrows, dst.vcols)));
    }
    let whole = full(dst);
    let n = dst_elements(mem, &whole)?;
    dispatch!(dst.desc.dtype, T => {
        let x = read::<T>(mem, src)?;
        let mut out = vec![T::from_i64(0); n];
        for r in 0..src.vrows {
            for c in 0..src.vcols.div_ceil(2) {
                let second = if 2 * c + 1 < src.vcols { x[r * src.vcols + 2 * c + 1] } else { T::from_i64(0) };
                out[r * whole.vcols + c] = x[r * src.vcols + 2 * c].add(second);
            }
        }
        write(mem, &whole, &out)
    }, _ => Err(unsupported(dst)))
}

/// `ttri`: over dst's valid region, 1 on and below diagonal `d` (lower: `c <= r + d`) or on and
/// above it (upper: `c >= r + d`), 0 elsewhere.
pub fn triangle(mem: &mut Memory, upper: bool, diagonal: i64, dst: &TileView) -> Result<(), Fault> {
    let n = dst_elements(mem, dst)?;
    dispatch!(dst.desc.dtype, T => {
        let out: Vec<T> = (0..n)
            .map(|k| {
                let (r, c) = ((k / dst.vcols) as i64, (k % dst.vcols) as i64);
                let one = if upper { c >= r.saturating_add(diagonal) } else { c <= r.saturating_add(diagonal) };
                T::from_i64(i64::from(one))
            })
            .collect();
        write(mem, dst, &out)
    }, _ => Err(unsupported(dst)))
}

/// `ttrans`: `dst[c, r] = src[r, c]` over src's valid region, bit for bit (the element types
/// must have one size); dst's valid shape must mirror src's.
pub fn transpose(mem: &mut Memory, src: &TileView, dst: &TileView) -> Result<(), Fault> {
    let es = src.elem_size();
    if dst.elem_size() != es {
        return Err(Fault(format!("element sizes differ: {} and {}", src.desc.dtype, dst.desc.dtype)));
    }
    if dst.vrows != src.vcols || dst.vcols != src.vrows {
        return Err(Fault(format!(
            "the destination's valid shape {}x{} does not mirror the source's {}x{}",
            dst.vrows, dst.vcols, src.vrows, src.vcols
        )));
    }
    let s = crate::family::storage(mem, src)?.to_vec();
    let d = mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
    for r in 0..src.vrows {
        for c in 0..src.vcols {
            crate::view::element_mut(d, dst, c, r)?.copy_from_slice(crate::view::element(&s, src, r, c)?);
        }
    }
    Ok(())
}

/// Copies element `(r, pick(k, c).1)` of source `pick(k, c).0` to `(r, c)` of destination `k`,
/// over the first destination's valid region (every destination has that valid shape).
fn shuffle(mem: &mut Memory, srcs: &[TileView], dsts: &[TileView], pick: impl Fn(usize, usize) -> (usize, usize)) -> Result<(), Fault> {
    let (rows, cols) = (dsts[0].vrows, dsts[0].vcols);
    for v in srcs.iter().chain(dsts) {
        if v.elem_size() != dsts[0].elem_size() {
            return Err(Fault(format!("element sizes differ: {} and {}", v.desc.dtype, dsts[0].desc.dtype)));
        }
    }
    let storage: Vec<Vec<u8>> = srcs.iter().map(|v| crate::family::storage(mem, v).map(<[u8]>::to_vec)).collect::<Result<_, _>>()?;
    for (k, dst) in dsts.iter().enumerate() {
        if (dst.vrows, dst.vcols) != (rows, cols) {
            return Err(Fault(format!("destination {k} has valid shape {}x{}, not {rows}x{cols}", dst.vrows, dst.vcols)));
        }
        let d = mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
        for r in 0..rows {
            for c in 0..cols {
                let (which, from) = pick(k, c);
                let bytes = crate::view::element(&storage[which], &srcs[which], r, from)?;
                crate::view::element_mut(d, dst, r, c)?.copy_from_slice(bytes);
            }
        }
    }
    Ok(())
}

/// `tinterleave` (pto-isa `cpu/TInterleave.hpp`): with `m` half the valid width, `dst0` holds
/// `src0[:, c], src1[:, c]` pairs for `c < m`, `dst1` those for `c >= m`.
fn tinterleave(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let dsts = [a.tile("dst0")?, a.tile("dst1")?];
    let half = dsts[0].vcols / 2;
    shuffle(m.mem, &[a.tile("src0")?, a.tile("src1")?], &dsts, |k, c| (c % 2, c / 2 + k * half))
}

/// `tdeinterleave` (pto-isa `cpu/TDeinterleave.hpp`): `dst0` gets the even and `dst1` the odd
/// elements of the stream `src0 ++ src1` (or of `src`), each half of the stream into each half
/// of the destination's valid width.
fn tdeinterleave(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let dsts = [a.tile("dst0")?, a.tile("dst1")?];
    if let Some(src) = a.opt_tile("src") {
        return shuffle(m.mem, &[src], &dsts, |k, c| (0, 2 * c + k));
    }
    let half = dsts[0].vcols / 2;
    shuffle(m.mem, &[a.tile("src0")?, a.tile("src1")?], &dsts, |k, c| if c < half { (0, 2 * c + k) } else { (1, 2 * (c - half) + k) })
}

/// pto-isa's counter-based generator (`cpu/TRandom.hpp`, Philox 4x32 with 7 or 10 rounds).
mod philox {
    const MUL: [u64; 2] = [0xD251_1F53, 0xCD9E_8D57];
    const KEY_ADD: [u32; 2] = [0x9E37_79B9, 0xBB67_AE85];

    /// Adds `value` to the 128-bit little-endian counter.
    pub fn increment(counter: &mut [u32; 4], value: u32) {
        let mut carry = u64::from(value);
        for word in counter.iter_mut() {
            carry += u64::from(*word);
            *word = carry as u32;
            carry >>= 32;
            if carry == 0 {
                break;
            }
        }
    }

    /// The four output words of one counter.
    pub fn rounds(mut c: [u32; 4], mut key: [u32; 2], n: u32) -> [u32; 4] {
        for _ in 0..n {
            let (m0, m1) = (u64::from(c[0]) * MUL[0], u64::from(c[2]) * MUL[1]);
            c = [(m1 >> 32) as u32 ^ c[1] ^ key[0], m1 as u32, (m0 >> 32) as u32 ^ c[3] ^ key[1], m0 as u32];
            key[0] = key[0].wrapping_add(KEY_ADD[0]);
            key[1] = key[1].wrapping_add(KEY_ADD[1]);
        }
        c
    }
}

/// `trandom`: dst's valid region from `key` (2 words) and `counter` (4 words) as pto-isa fills
/// it: per row, in chunks of four 256-byte repeats, lane `l` of a chunk takes the counter plus
/// `l` through the rounds and its four words go to the four repeats; the row's counter then
/// advances by a quarter of the row stride.
pub fn random(mem: &mut Memory, key: [u32; 2], counter: [u32; 4], rounds: u32, dst: &TileView) -> Result<(), Fault> {
    if dst.elem_size() != 4 || !dst.rows_contiguous() {
        return Err(Fault(format!("trandom writes row-major 32-bit tiles, found {}", dst.desc.dtype)));
    }
    let lanes = 256 / 4;
    let chunk = 4 * lanes;
    let stride_chunks = dst.desc.cols / 4;
    let mut out = vec![0u32; dst.vrows * dst.vcols];
    let mut row_counter = counter;
    for r in 0..dst.vrows {
        for l in 0..dst.vcols.div_ceil(chunk) {
            for lane in 0..lanes {
                let mut c = row_counter;
                philox::increment(&mut c, lane as u32);
                let words = philox::rounds(c, key, rounds);
                for (repeat, &w) in words.iter().enumerate() {
                    let col = l * chunk + repeat * lanes + lane;
                    if col < dst.vcols {
                        out[r * dst.vcols + col] = w;
                    }
                }
            }
            philox::increment(&mut row_counter, stride_chunks);
        }
    }
    dispatch!(dst.desc.dtype, T => {
        let vals: Vec<T> = out.iter().map(|&w| T::from_raw_bits(u64::from(w))).collect();
        write(mem, dst, &vals)
    }, _ => Err(unsupported(dst)))
}

/// The words of `trandom`'s key and counter: tiles (the page's form) or six scalars (PTOAS's).
fn trandom(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let words = |tile: &str, scalars: &[&str]| -> Result<Vec<u32>, Fault> {
        if let Some(t) = a.opt_tile(tile) {
            let v = TileView { vrows: 1, vcols: scalars.len(), ..t };
            return dispatch!(t.desc.dtype, T => Ok(read::<T>(m.mem, &v)?.iter().map(|x| x.raw_bits() as u32).collect()), _ => Err(unsupported(&t)));
        }
        scalars.iter().map(|s| a.int(s).map(|i| i as u32)).collect()
    };
    let key = words("key", &["key0", "key1"])?;
    let counter = words("counter", &["counter0", "counter1", "counter2", "counter3"])?;
    let rounds = match a.int_attr("rounds")?.unwrap_or(10) {
        r @ (7 | 10) => r as u32,
        r => return Err(Fault(format!("trandom rounds must be 7 or 10, found {r}"))),
    };
    random(m.mem, [key[0], key[1]], [counter[0], counter[1], counter[2], counter[3]], rounds, &a.tile("dst")?)
}

/// `tpart<op>`.
macro_rules! part {
    ($op:ident) => {
        |m: &mut Machine<'_>, a: &Args<'_>| partial(m.mem, BinOp::$op, &a.tile("src0")?, &a.tile("src1")?, &a.tile("dst")?)
    };
}

fn part_arg(m: &mut Machine<'_>, a: &Args<'_>, max: bool) -> Result<(), Fault> {
    partial_arg(
        m.mem,
        max,
        (&a.tile("src0")?, &a.tile("src0_idx")?),
        (&a.tile("src1")?, &a.tile("src1_idx")?),
        (&a.tile("dst")?, &a.tile("dst_idx")?),
    )
}

fn ttri(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let mode = match a.int_attr("isUpperOrLower")? {
        Some(v) => Some(v),
        None => a.int_attr("upperOrLower")?,
    };
    let upper = match mode.unwrap_or(0) {
        0 => false,
        1 => true,
        v => return Err(Fault(format!("isUpperOrLower must be 0 (lower) or 1 (upper), found {v}"))),
    };
    let diagonal = match a.opt_num("diagonal") {
        Some(_) => a.int("diagonal")?,
        None => 0,
    };
    triangle(m.mem, upper, diagonal, &a.tile("dst")?)
}

/// Every instruction of this module, by the op table's slot names.
pub const SEMANTICS: &[(Opcode, Semantics)] = &[
    (Opcode::TPartAdd, part!(Add)),
    (Opcode::TPartMul, part!(Mul)),
    (Opcode::TPartMax, part!(Max)),
    (Opcode::TPartMin, part!(Min)),
    (Opcode::TPartArgMax, |m, a| part_arg(m, a, true)),
    (Opcode::TPartArgMin, |m, a| part_arg(m, a, false)),
    (Opcode::TFillPad, |m, a| fill_pad(m.mem, &a.tile("src")?, &a.tile("dst")?)),
    (Opcode::TFillPadInplace, |m, a| fill_pad(m.mem, &a.tile("src")?, &a.tile("dst")?)),
    (Opcode::TFillPadExpand, |m, a| fill_pad(m.mem, &a.tile("src")?, &a.tile("dst")?)),
    (Opcode::TPairReduceSum, |m, a| pair_sum(m.mem, &a.tile("src")?, &a.tile("dst")?)),
    (Opcode::TTri, ttri),
    (Opcode::TInterleave, tinterleave),
    (Opcode::TRandom, trandom),
    (Opcode::TDeinterleave, tdeinterleave),
    (Opcode::TTrans, |m, a| transpose(m.mem, &a.tile("src")?, &a.tile("dst")?)),
];

/// `tprint` of a tile as pto-isa's CPU simulator prints it (`cpu/TPrint.hpp`, default format):
/// `TPRINT RxC`, then one line per valid row, elements separated by a space, each right-aligned
/// in 8 columns, floats with 4 decimals.
pub fn print_tile(mem: &Memory, src: &TileView, out: &mut String) -> Result<(), Fault> {
    use std::fmt::Write;
    let _ = writeln!(out, "TPRINT {}x{}", src.vrows, src.vcols);
    dispatch!(src.desc.dtype, T => {
        let vals = read::<T>(mem, src)?;
        for row in vals.chunks(src.vcols.max(1)).take(src.vrows) {
            let cells: Vec<String> = row
                .iter()
                .map(|v| if T::FLOAT { format!("{:>8.4}", v.to_f64()) } else { format!("{:>8}", v.to_i64()) })
                .collect();
            let _ = writeln!(out, "{}", cells.join(" "));
        }
        Ok(())
    }, _ => Err(unsupported(src)))
}

/// Debug instructions.
pub const DEBUG_SEMANTICS: &[(Opcode, Semantics)] = &[(Opcode::TPrint, |m, a| print_tile(m.mem, &a.tile("src")?, m.printed))];
