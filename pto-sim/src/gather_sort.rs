//! Gather and sort families: `tgather` (index, mask-pattern and compare forms), `tgatherb` (one
//! byte offset per 32-byte block), `tsort32` and `tmrgsort` (descending value-index pairs).
//!
//! Semantics follow the pto-isa CPU simulator (the golden oracle, `include/pto/cpu/`):
//! * index gather: `dst[i,j] = src.flat[idx[i,j]]`, the flat index running over the source's
//!   *capacity* (`r*Cols + c`), not its valid region;
//! * mask gather: for every valid source row, the columns the pattern selects (`P0101`: even
//!   columns, `P1010`: odd, `P0001`/`P0010`/`P0100`/`P1000`: column ≡ 0/1/2/3 mod 4, `P1111`:
//!   all) are written as one compacted stream from `dst` storage element 0;
//! * compare gather (no CPU-sim model; the A2A3 implementation, `a2a3/TGather.hpp`): for every
//!   valid source row `i`, the indices `offset + i*Cols + j` (`Cols` = the source's capacity
//!   width, as the flat index of the index form) of the valid columns `j` whose element is GT /
//!   EQ the row's threshold, ascending, compacted from `dst[i, 0]`; their count is element `i`
//!   (storage order) of `cdst`. The threshold of row `i` is element `i` (storage order) of `k`,
//!   converted to the source type; the rest of each dst row is left as it was;
//! * block gather: dst row `r`, block `b` = the 32 bytes at byte offset `offsets[r,b]` from the
//!   source base. An offset whose block leaves the source tile is a trap here (the CPU sim
//!   silently leaves that block unwritten);
//! * sorts work on 8-byte (value, index) pairs: the value in the element type at byte 0 (f16
//!   values followed by a zero half), the u32 index at byte 4. `tsort32` sorts each
//!   32-element block of a row descending, ties by the smaller index value; `tmrgsort` merges
//!   descending lists, ties won by the lower-numbered list or block.

use crate::dispatch;
use crate::elem::Elem;
use crate::family::{Cmp, at, dst_elements, put, storage, unsupported};
use crate::memory::{Fault, Memory};
use crate::view::{TileView, element};
use pto_ir::types::{BLayout, SLayout};
use std::cmp::Ordering;

/// Bytes of one (value, index) pair.
const PAIR: usize = 8;
/// Elements per `tsort32` block.
const SORT_BLOCK: usize = 32;

/// Reads the `rows x cols` region of an integer tile as `i64` (indices, offsets), row-major;
/// `what` names the tile when it does not cover the region.
fn read_ints(mem: &Memory, v: &TileView, (rows, cols): (usize, usize), what: &str) -> Result<Vec<i64>, Fault> {
    v.covers(rows, cols, what)?;
    storage(mem, v)?;
    dispatch!(v.desc.dtype, T => {
        let s = storage(mem, v)?;
        let mut out = Vec::with_capacity(rows * cols);
        for r in 0..rows {
            for c in 0..cols {
                out.push(at::<T>(s, v, r, c)?.to_i64());
            }
        }
        Ok(out)
    }, _ => Err(unsupported(v)))
}

/// A copy of element `(r, c)` of `src` to element `(i, j)` of `dst` (storage bytes `s` and
/// `d`, same element size), both checked.
fn copy_element(
    s: &[u8],
    src: &TileView,
    (r, c): (usize, usize),
    d: &mut [u8],
    dst: &TileView,
    (i, j): (usize, usize),
) -> Result<(), Fault> {
    let from = element(s, src, r, c)?;
    let to = crate::view::element_mut(d, dst, i, j)?;
    if from.len() != to.len() {
        return Err(Fault(format!("source elements are {} bytes, destination elements {}", from.len(), to.len())));
    }
    to.copy_from_slice(from);
    Ok(())
}

/// Tiles whose rows are contiguous bytes (pairs and compacted streams are written by byte).
fn require_row_major(v: &TileView, what: &str) -> Result<(), Fault> {
    if v.desc.blayout == BLayout::RowMajor && v.desc.slayout == SLayout::NoneBox {
        Ok(())
    } else {
        Err(Fault(format!("{what} must be a row-major (ND) tile")))
    }
}

/// `dst[i,j] = src.flat[idx[i,j]]`.
pub fn gather_index(mem: &mut Memory, src: &TileView, idx: &TileView, dst: &TileView) -> Result<(), Fault> {
    if src.desc.dtype != dst.desc.dtype {
        return Err(Fault(format!("source element type {} differs from destination {}", src.desc.dtype, dst.desc.dtype)));
    }
    dst_elements(mem, dst)?;
    let flat = read_ints(mem, idx, (dst.vrows, dst.vcols), "the index tile")?;
    let capacity = src.desc.rows as usize * src.desc.cols as usize;
    let cols = src.desc.cols as usize;
    let s = storage(mem, src)?.to_vec();
    let d = mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
    for (k, &f) in flat.iter().enumerate() {
        let (i, j) = (k / dst.vcols, k % dst.vcols);
        let f = match usize::try_from(f) {
            Ok(f) if f < capacity => f,
            _ => return Err(Fault(format!("index {f} at ({i}, {j}) is outside the source tile ({capacity} elements)"))),
        };
        copy_element(&s, src, (f / cols, f % cols), d, dst, (i, j))?;
    }
    Ok(())
}

/// `dst.flat[idx[i,j]] = src[i,j]` over `idx`'s valid region (pto-isa `cpu/TScatter.hpp`); a
/// later element overwrites an earlier one at the same index.
pub fn scatter_index(mem: &mut Memory, src: &TileView, idx: &TileView, dst: &TileView) -> Result<(), Fault> {
    if src.desc.dtype != dst.desc.dtype {
        return Err(Fault(format!("source element type {} differs from destination {}", src.desc.dtype, dst.desc.dtype)));
    }
    let flat = read_ints(mem, idx, (idx.vrows, idx.vcols), "the index tile")?;
    src.covers(idx.vrows, idx.vcols, "the source tile")?;
    let capacity = dst.desc.rows as usize * dst.desc.cols as usize;
    let cols = dst.desc.cols as usize;
    let s = storage(mem, src)?.to_vec();
    let d = mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
    for (k, &f) in flat.iter().enumerate() {
        let (i, j) = (k / idx.vcols, k % idx.vcols);
        let f = match usize::try_from(f) {
            Ok(f) if f < capacity => f,
            _ => return Err(Fault(format!("index {f} at ({i}, {j}) is outside the destination tile ({capacity} elements)"))),
        };
        copy_element(&s, src, (i, j), d, dst, (f / cols, f % cols))?;
    }
    Ok(())
}

/// Whether mask pattern `p` selects column `c`.
fn pattern_selects(p: &str, c: usize) -> Option<bool> {
    Some(match p {
        "P0101" => c.is_multiple_of(2),
        "P1010" => c % 2 == 1,
        "P0001" => c.is_multiple_of(4),
        "P0010" => c % 4 == 1,
        "P0100" => c % 4 == 2,
        "P1000" => c % 4 == 3,
        "P1111" => true,
        _ => return None,
    })
}

/// Mask-pattern gather: the selected columns of every valid row, compacted from `dst[0]`.
pub fn gather_mask(mem: &mut Memory, pattern: &str, src: &TileView, dst: &TileView) -> Result<(), Fault> {
    require_row_major(dst, "the mask-pattern gather destination")?;
    if src.desc.dtype != dst.desc.dtype {
        return Err(Fault(format!("source element type {} differs from destination {}", src.desc.dtype, dst.desc.dtype)));
    }
    pattern_selects(pattern, 0).ok_or_else(|| Fault(format!("unknown mask pattern {pattern}")))?;
    let es = src.elem_size();
    dst_elements(mem, src)?;
    let s = storage(mem, src)?.to_vec();
    let d = mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
    let mut k = 0usize;
    for r in 0..src.vrows {
        for c in (0..src.vcols).filter(|&c| pattern_selects(pattern, c) == Some(true)) {
            if (k + 1) * es > d.len() {
                return Err(Fault(format!("the selected elements do not fit the destination ({} elements)", d.len() / es)));
            }
            d[k * es..(k + 1) * es].copy_from_slice(element(&s, src, r, c)?);
            k += 1;
        }
    }
    Ok(())
}

/// Byte offset of element `i` of `v` in storage order (`i` < capacity).
fn storage_element(v: &TileView, i: usize, what: &str) -> Result<usize, Fault> {
    let capacity = v.desc.rows as usize * v.desc.cols as usize;
    if i >= capacity {
        return Err(Fault(format!("{what} holds {capacity} elements; element {i} is needed (one per source row)")));
    }
    Ok(i * v.elem_size())
}

/// Compare gather (see the module doc): `dst` row `i` = the indices of the columns of source
/// row `i` that compare `cmp` (GT or EQ) with `k`'s element `i`, `cdst`'s element `i` = their
/// count.
pub fn gather_compare(
    mem: &mut Memory,
    src: &TileView,
    k: &TileView,
    cmp: Cmp,
    offset: i64,
    dst: &TileView,
    cdst: &TileView,
) -> Result<(), Fault> {
    let keep_gt = match cmp {
        Cmp::Gt => true,
        Cmp::Eq => false,
        other => return Err(Fault(format!("the compare form of tgather takes cmpMode GT or EQ, not {other:?}"))),
    };
    require_row_major(dst, "the compare gather destination")?;
    if dst.desc.dtype.size_bytes() != 4 || dst.desc.dtype.is_float() {
        return Err(Fault(format!("the compare gather writes 32-bit integer indices, not {}", dst.desc.dtype)));
    }
    if (dst.desc.rows as usize) < src.vrows {
        return Err(Fault(format!("the destination has {} rows for {} source rows", dst.desc.rows, src.vrows)));
    }
    // The thresholds, as (integer, float) values of k's elements 0..rows in storage order.
    let ks = storage(mem, k)?;
    src.valid_inside()?;
    let thresholds: Vec<(i64, f64)> = dispatch!(k.desc.dtype, K => {
        (0..src.vrows)
            .map(|i| {
                let at = storage_element(k, i, "the threshold tile `k`")?;
                let x = ks.get(at..at + K::SIZE).map(K::load).ok_or_else(|| Fault(format!("threshold {i} outside `k`")))?;
                Ok((x.to_i64(), x.to_f64()))
            })
            .collect::<Result<_, Fault>>()?
    }, _ => return Err(unsupported(k)));
    let k_float = k.desc.dtype.is_float();
    let cols = src.desc.cols as i64;
    dst_elements(mem, src)?;
    let rows: Vec<Vec<i64>> = dispatch!(src.desc.dtype, T => {
        let s = storage(mem, src)?;
        thresholds.iter().enumerate().map(|(i, &(ki, kf))| {
            let t = if k_float { T::from_f64(kf) } else { T::from_i64(ki) };
            let mut kept = Vec::new();
            for j in 0..src.vcols {
                let x = at::<T>(s, src, i, j)?;
                if if keep_gt { x > t } else { x == t } {
                    kept.push(offset.wrapping_add(i as i64 * cols + j as i64));
                }
            }
            Ok(kept)
        }).collect::<Result<_, Fault>>()?
    }, _ => return Err(unsupported(src)));
    let width = dst.desc.cols as usize;
    if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.len() > width) {
        return Err(Fault(format!("row {i} has {} matching elements; a destination row holds {width}", r.len())));
    }
    let counts: Vec<usize> = (0..rows.len()).map(|i| storage_element(cdst, i, "the count tile `cdst`")).collect::<Result<_, _>>()?;
    dispatch!(dst.desc.dtype, U => {
        let d = mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
        for (i, r) in rows.iter().enumerate() {
            for (j, &index) in r.iter().enumerate() {
                put(d, dst, i, j, U::from_i64(index))?;
            }
        }
    }, _ => return Err(unsupported(dst)));
    dispatch!(cdst.desc.dtype, C => {
        let c = mem.slice_mut(cdst.loc, cdst.addr, cdst.size_bytes() as usize)?;
        for (r, &at) in rows.iter().zip(&counts) {
            let bytes = c.get_mut(at..at + C::SIZE).ok_or_else(|| Fault(format!("count element at byte {at} outside `cdst`")))?;
            C::from_i64(r.len() as i64).store(bytes);
        }
        Ok(())
    }, _ => Err(unsupported(cdst)))
}

/// Block gather: 32 bytes per destination block from `src + offsets[r, b]`.
pub fn gather_blocks(mem: &mut Memory, src: &TileView, offsets: &TileView, dst: &TileView) -> Result<(), Fault> {
    require_row_major(dst, "the block gather destination")?;
    dst_elements(mem, dst)?;
    let blocks = (dst.vcols * dst.elem_size()).div_ceil(32);
    if (offsets.desc.cols as usize) < blocks || (offsets.desc.rows as usize) < dst.vrows {
        return Err(Fault(format!("the offsets tile needs {}x{blocks} entries (one per 32-byte block)", dst.vrows)));
    }
    let offs = read_ints(mem, offsets, (dst.vrows, blocks), "the offsets tile")?;
    let s = storage(mem, src)?.to_vec();
    let row_bytes = dst.desc.cols as usize * dst.elem_size();
    let d = mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
    for r in 0..dst.vrows {
        for b in 0..blocks {
            let off = offs[r * blocks + b];
            let from = usize::try_from(off).ok().filter(|&o| o.checked_add(32).is_some_and(|e| e <= s.len()));
            let Some(from) = from else {
                return Err(Fault(format!("block ({r}, {b}): byte offset {off} + 32 leaves the source tile ({} bytes)", s.len())));
            };
            let to = r * row_bytes + b * 32;
            let n = 32.min(row_bytes.saturating_sub(b * 32));
            let out = d.get_mut(to..to + n).ok_or_else(|| Fault(format!("block ({r}, {b}) lies outside the destination")))?;
            out.copy_from_slice(&s[from..from + n]);
        }
    }
    Ok(())
}

/// One (value, index) pair.
#[derive(Copy, Clone)]
struct Pair<T> {
    value: T,
    index: u32,
}

fn load_pair<T: Elem>(b: &[u8]) -> Pair<T> {
    Pair { value: T::load(b), index: u32::from_le_bytes([b[4], b[5], b[6], b[7]]) }
}

fn store_pair<T: Elem>(p: Pair<T>, b: &mut [u8]) {
    b[..PAIR].fill(0);
    p.value.store(b);
    b[4..8].copy_from_slice(&p.index.to_le_bytes());
}

/// Descending by value; NaN sorts as the largest value.
fn descending<T: Elem>(a: &T, b: &T) -> Ordering {
    b.partial_cmp(a).unwrap_or_else(|| b.to_f64().is_nan().cmp(&a.to_f64().is_nan()))
}

fn pair_type_ok(v: &TileView) -> Result<(), Fault> {
    match v.elem_size() {
        2 | 4 if v.desc.dtype.is_float() => Ok(()),
        _ => Err(Fault(format!("sorts take f16 or f32 values, not {}", v.desc.dtype))),
    }
}

/// `tsort32`: each 32-element block of every valid row, sorted descending with its u32 index,
/// written as pairs from the start of the destination row. A partial last block (valid columns
/// not a multiple of 32) sorts its real elements only.
pub fn sort32(mem: &mut Memory, src: &TileView, idx: &TileView, dst: &TileView) -> Result<(), Fault> {
    pair_type_ok(src)?;
    require_row_major(dst, "the tsort32 destination")?;
    let row_bytes = dst.desc.cols as usize * dst.elem_size();
    if src.vcols * PAIR > row_bytes || (dst.desc.rows as usize) < src.vrows {
        return Err(Fault(format!(
            "the destination rows hold {} pairs; {} rows of {} pairs are needed",
            row_bytes / PAIR,
            src.vrows,
            src.vcols
        )));
    }
    dst_elements(mem, src)?;
    let indices = read_ints(mem, idx, (src.vrows, src.vcols), "the index tile")?;
    dispatch!(src.desc.dtype, T => {
        let s = storage(mem, src)?.to_vec();
        let d = mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
        for r in 0..src.vrows {
            for start in (0..src.vcols).step_by(SORT_BLOCK) {
                let end = (start + SORT_BLOCK).min(src.vcols);
                let mut block: Vec<Pair<T>> = (start..end)
                    .map(|c| Ok(Pair { value: at::<T>(&s, src, r, c)?, index: indices[r * src.vcols + c] as u32 }))
                    .collect::<Result<_, Fault>>()?;
                block.sort_by(|a, b| descending(&a.value, &b.value).then(a.index.cmp(&b.index)));
                for (k, p) in block.into_iter().enumerate() {
                    let at = r * row_bytes + (start + k) * PAIR;
                    let out = d.get_mut(at..at + PAIR).ok_or_else(|| Fault(format!("pair {k} of row {r} lies outside the destination")))?;
                    store_pair(p, out);
                }
            }
        }
        Ok(())
    }, _ => Err(unsupported(src)))
}

/// Merges descending lists; on equal values the earlier list wins. With `stop_at_exhausted`,
/// merging stops as soon as one list runs out.
fn merge<T: Elem>(lists: &[Vec<Pair<T>>], stop_at_exhausted: bool) -> Vec<Pair<T>> {
    let mut heads = vec![0usize; lists.len()];
    let mut out = Vec::with_capacity(lists.iter().map(Vec::len).sum());
    loop {
        if stop_at_exhausted && heads.iter().zip(lists).any(|(&h, l)| h == l.len()) {
            break;
        }
        let mut best: Option<usize> = None;
        for (k, l) in lists.iter().enumerate() {
            let Some(p) = l.get(heads[k]) else { continue };
            let better = match best {
                None => true,
                Some(b) => descending(&p.value, &lists[b][heads[b]].value) == Ordering::Less,
            };
            if better {
                best = Some(k);
            }
        }
        let Some(b) = best else { break };
        out.push(lists[b][heads[b]]);
        heads[b] += 1;
    }
    out
}

/// `n` pairs from byte `start` of `s`; a fault when they run past `s`.
fn load_pairs<T: Elem>(s: &[u8], start: usize, n: usize) -> Result<Vec<Pair<T>>, Fault> {
    let bytes = n.checked_mul(PAIR).and_then(|len| s.get(start..start.checked_add(len)?));
    let bytes = bytes.ok_or_else(|| Fault(format!("{n} pairs from byte {start} run past the {}-byte tile", s.len())))?;
    Ok(bytes.chunks_exact(PAIR).map(load_pair::<T>).collect())
}

/// `tmrgsort` single-list form: every group of four consecutive blocks of `block_len` elements
/// (of the value type) is merged in place of the group.
pub fn merge_sort_blocks(mem: &mut Memory, src: &TileView, block_len: i64, dst: &TileView) -> Result<(), Fault> {
    pair_type_ok(src)?;
    require_row_major(src, "the tmrgsort source")?;
    require_row_major(dst, "the tmrgsort destination")?;
    let es = src.elem_size();
    let block_bytes = usize::try_from(block_len).ok().and_then(|b| b.checked_mul(es)).filter(|&b| b > 0 && b.is_multiple_of(PAIR));
    let Some(block_bytes) = block_bytes else {
        return Err(Fault(format!("blockLen {block_len} is not a positive whole number of (value, index) pairs")));
    };
    dst_elements(mem, src)?;
    let total = src.vcols * es / PAIR;
    // A block longer than the row is the whole row.
    let block_pairs = (block_bytes / PAIR).min(total.max(1));
    if dst.desc.cols as usize * dst.elem_size() < total * PAIR {
        return Err(Fault(format!("the destination row holds fewer than {total} pairs")));
    }
    dispatch!(src.desc.dtype, T => {
        let s = storage(mem, src)?.to_vec();
        let mut out = Vec::with_capacity(total);
        for group in (0..total).step_by(4 * block_pairs) {
            let lists: Vec<Vec<Pair<T>>> = (0..4)
                .map(|b| group + b * block_pairs)
                .filter(|&start| start < total)
                .map(|start| load_pairs::<T>(&s, start * PAIR, block_pairs.min(total - start)))
                .collect::<Result<_, _>>()?;
            out.extend(merge(&lists, false));
        }
        let d = mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
        for (k, p) in out.into_iter().enumerate() {
            store_pair(p, &mut d[k * PAIR..(k + 1) * PAIR]);
        }
        Ok(())
    }, _ => Err(unsupported(src)))
}

/// `tmrgsort` multi-list form: two to four one-row lists (their valid columns) merged into
/// `dst`.
pub fn merge_sort_lists(mem: &mut Memory, lists: &[TileView], stop_at_exhausted: bool, dst: &TileView) -> Result<(), Fault> {
    let first = lists.first().ok_or_else(|| Fault("tmrgsort needs at least two lists".into()))?;
    pair_type_ok(first)?;
    require_row_major(dst, "the tmrgsort destination")?;
    for l in lists {
        require_row_major(l, "a tmrgsort list")?;
        if l.desc.dtype != first.desc.dtype {
            return Err(Fault(format!("list element types differ ({} and {})", first.desc.dtype, l.desc.dtype)));
        }
    }
    dispatch!(first.desc.dtype, T => {
        let loaded: Vec<Vec<Pair<T>>> = lists
            .iter()
            .map(|l| {
                l.valid_inside()?;
                load_pairs::<T>(storage(mem, l)?, 0, l.vcols * T::SIZE / PAIR)
            })
            .collect::<Result<_, _>>()?;
        let out = merge(&loaded, stop_at_exhausted);
        if out.len() * PAIR > dst.size_bytes() as usize {
            return Err(Fault(format!("the merged list ({} pairs) does not fit the destination", out.len())));
        }
        let d = mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
        for (k, p) in out.into_iter().enumerate() {
            store_pair(p, &mut d[k * PAIR..(k + 1) * PAIR]);
        }
        Ok(())
    }, _ => Err(unsupported(first)))
}

// ------------------------------------------------------------------ the semantics table

use crate::exec::{Args, Machine, Semantics};
use pto_ir::ops::Opcode;

fn tgather(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let (src, dst) = (a.tile("src")?, a.tile("dst")?);
    if let Some(k) = a.opt_tile("k") {
        let cmp = match a.enum_attr("cmpMode", "cmp") {
            Some(c) => crate::family::Cmp::parse(c).ok_or_else(|| Fault(format!("unknown cmpMode `{c}`")))?,
            None => crate::family::Cmp::Eq,
        };
        return gather_compare(m.mem, &src, &k, cmp, a.int_attr("offset")?.unwrap_or(0), &dst, &a.tile("cdst")?);
    }
    match a.enum_attr("maskPattern", "mask_pattern") {
        Some(p) => gather_mask(m.mem, p, &src, &dst),
        None => gather_index(m.mem, &src, &a.tile("indices")?, &dst),
    }
}

fn tmrgsort(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let dst = a.tile("dst")?;
    if let Some(src) = a.opt_tile("src") {
        let block_len = match a.num("blockLen")? {
            crate::family::Num::I(i) => i,
            crate::family::Num::F(_) => return Err(Fault("blockLen must be an integer".into())),
        };
        return merge_sort_blocks(m.mem, &src, block_len, &dst);
    }
    let lists: Vec<TileView> = ["src0", "src1", "src2", "src3"].iter().filter_map(|s| a.opt_tile(s)).collect();
    merge_sort_lists(m.mem, &lists, a.flag("exhausted"), &dst)
}

/// Every instruction of this module, by the op table's slot names.
pub const SEMANTICS: &[(Opcode, Semantics)] = &[
    (Opcode::TGather, tgather),
    (Opcode::TScatter, |m, a| scatter_index(m.mem, &a.tile("src")?, &a.tile("indices")?, &a.tile("dst")?)),
    (Opcode::TGatherB, |m, a| gather_blocks(m.mem, &a.tile("src")?, &a.tile("offsets")?, &a.tile("dst")?)),
    (Opcode::TSort32, |m, a| sort32(m.mem, &a.tile("src")?, &a.tile("idx")?, &a.tile("dst")?)),
    (Opcode::TMrgSort, tmrgsort),
];

#[cfg(test)]
mod tests {
    use super::*;
    use pto_ir::types::{Dim, ElemType, TileDesc};

    /// A row-major Vec tile at `addr` with `valid` columns.
    fn tile(dtype: ElemType, rows: u32, cols: u32, valid_cols: usize, addr: u64) -> TileView {
        let desc = TileDesc { valid_cols: Dim::Static(valid_cols as u32), ..TileDesc::vec(dtype, rows, cols) };
        TileView { loc: desc.loc, addr, desc, vrows: rows as usize, vcols: valid_cols }
    }

    fn put<T: Elem>(mem: &mut Memory, v: &TileView, vals: &[T]) {
        let s = mem.slice_mut(v.loc, v.addr, v.size_bytes() as usize).unwrap();
        for (k, x) in vals.iter().enumerate() {
            x.store(&mut s[k * T::SIZE..]);
        }
    }

    fn get<T: Elem>(mem: &Memory, v: &TileView) -> Vec<T> {
        let s = storage(mem, v).unwrap();
        (0..v.desc.rows as usize * v.desc.cols as usize).map(|k| T::load(&s[k * T::SIZE..])).collect()
    }

    /// f16 scores 2x16 (12 valid columns, 99 beyond), u32 thresholds 2 and 1.
    fn setup(mem: &mut Memory) -> (TileView, TileView, TileView, TileView) {
        let (src, k) = (tile(ElemType::F16, 2, 16, 12, 0), tile(ElemType::U32, 1, 8, 8, 64));
        let (dst, cdst) = (tile(ElemType::U32, 2, 16, 16, 128), tile(ElemType::U32, 1, 8, 8, 256));
        // ((5j + i) mod 7) / 2: row 0 = 0 2.5 1.5 .5 3 2 1 0 2.5 1.5 .5 3, row 1 = .5 3 2 1 0 2.5 1.5 .5 3 2 1 0.
        let row = |i: usize| (0..16).map(move |j| half::f16::from_f32(if j >= 12 { 99.0 } else { ((j * 5 + i) % 7) as f32 * 0.5 }));
        put(mem, &src, &row(0).chain(row(1)).collect::<Vec<_>>());
        put(mem, &k, &[2u32, 1, 0, 0, 0, 0, 0, 0]);
        put(mem, &dst, &[7u32; 32]);
        (src, k, dst, cdst)
    }

    #[test]
    fn compare_gather_keeps_ascending_indices_and_counts() {
        let mut mem = Memory::new(pto_lower::Target::get(pto_lower::TargetId::A2A3));
        let (src, k, dst, cdst) = setup(&mut mem);
        gather_compare(&mut mem, &src, &k, Cmp::Gt, 100, &dst, &cdst).unwrap();
        // > 2 in row 0 at j = 1, 4, 8, 11 (not the 2.0 at j = 5); > 1 in row 1 at j = 1, 2, 5, 6,
        // 8, 9; index = 100 + 16 i + j; the rest of each row keeps its 7s.
        let d = get::<u32>(&mem, &dst);
        assert_eq!(&d[..5], &[101, 104, 108, 111, 7]);
        assert_eq!(&d[16..23], &[117, 118, 121, 122, 124, 125, 7]);
        assert_eq!(&get::<u32>(&mem, &cdst)[..2], &[4, 6]);
        // EQ: 2.0 in row 0 at j = 5, 1.0 in row 1 at j = 3, 10.
        gather_compare(&mut mem, &src, &k, Cmp::Eq, 0, &dst, &cdst).unwrap();
        let d = get::<u32>(&mem, &dst);
        assert_eq!((&d[..2], &d[16..19]), (&[5u32, 104][..], &[19u32, 26, 121][..]));
        assert_eq!(&get::<u32>(&mem, &cdst)[..2], &[1, 2]);
    }

    #[test]
    fn compare_gather_faults_instead_of_overflowing() {
        let mut mem = Memory::new(pto_lower::Target::get(pto_lower::TargetId::A2A3));
        let (src, k, dst, cdst) = setup(&mut mem);
        let err = |r: Result<(), Fault>| r.unwrap_err().0;
        assert!(err(gather_compare(&mut mem, &src, &k, Cmp::Lt, 0, &dst, &cdst)).contains("GT or EQ"));
        let narrow = tile(ElemType::U32, 2, 4, 4, 128);
        assert_eq!(
            err(gather_compare(&mut mem, &src, &k, Cmp::Gt, 0, &narrow, &cdst)),
            "row 1 has 6 matching elements; a destination row holds 4"
        );
        let one = tile(ElemType::U32, 1, 1, 1, 256);
        assert!(err(gather_compare(&mut mem, &src, &one, Cmp::Gt, 0, &dst, &cdst)).contains("element 1 is needed"));
        assert!(err(gather_compare(&mut mem, &src, &k, Cmp::Gt, 0, &dst, &one)).contains("the count tile `cdst` holds 1 elements"));
        let floats = tile(ElemType::F32, 2, 16, 16, 128);
        assert!(err(gather_compare(&mut mem, &src, &k, Cmp::Gt, 0, &floats, &cdst)).contains("32-bit integer indices"));
    }
}
