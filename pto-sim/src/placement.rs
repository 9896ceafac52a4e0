//! Ops that place or alias tiles, or move GM data without computing: `tassign`, `tsubview`,
//! `tprefetch`, `tprefetch_async`, and `thistogram`'s byte counting.
//!
//! - `tassign %tile, %addr` (TASSIGN page): the result is a tile of `%tile`'s type at byte
//!   `addr` of its buffer — it aliases whatever lies there. The address must be aligned to the
//!   buffer's alignment and the tile must fit the buffer.
//! - `tsubview` (TSUBVIEW page, pto-isa `cpu/TSubView.hpp`): `dst` becomes an alias of `src`'s
//!   storage starting at element `(row, col)`, so `dst[i, j] = src[row + i, col + j]` and later
//!   writes through either are seen by both. The simulator checks that this identity holds for
//!   every element of `dst`'s valid region (the same row / column stride; the CPU simulator
//!   would silently read other elements when the strides differ).
//! - `tprefetch` (TPREFETCH page): GM → tile over the tile's valid region, like `tload` (the
//!   view must present the valid shape).
//! - `tprefetch_async` warms the L2 cache only: no simulated state changes (as in pto-isa's
//!   CPU simulator); the view must lie in its GM array.
//! - `thistogram` (THISTOGRAM page, `uint16` source): per valid row, 256 bins over one byte of
//!   each element — the high byte (`isMSB`), or the low byte of the elements whose high byte
//!   equals `idx[row, 0]`. The bins are cumulative (bin `b` counts the bytes `<= b`), as
//!   pto-isa's CPU simulator, the A5 `chistv2` kernel and its test goldens compute them; the
//!   page's formula shows plain counts (docs/design.md).

use crate::dispatch;
use crate::elem::Elem;
use crate::exec::{Args, Machine, Semantics};
use crate::family::{storage, unsupported, write};
use crate::memory::Fault;
use crate::value::Val;
use crate::view::{TileView, element, element_mut};
use pto_ir::ops::Opcode;

fn tassign(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let tile = a.tile("tile")?;
    let addr = a.int("addr")?;
    let buf = pto_lower::Target::get(a.target).buffer(tile.loc);
    let size = tile.size_bytes();
    let addr = u64::try_from(addr).map_err(|_| Fault(format!("tassign to negative address {addr}")))?;
    if !addr.is_multiple_of(buf.align) || addr.checked_add(size).is_none_or(|end| end > buf.capacity) {
        return Err(Fault(format!(
            "tassign places a {size} B tile at {}+{addr}: misaligned (alignment {}) or outside the buffer ({} bytes)",
            buf.name, buf.align, buf.capacity
        )));
    }
    let placed = TileView { addr, ..tile };
    storage(m.mem, &placed)?;
    m.rebind.push(("result", Val::Tile(placed)));
    m.notes.push(format!("placed at {}+{addr}", buf.name));
    Ok(())
}

fn tsubview(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let (src, dst) = (a.tile("src")?, a.tile("dst")?);
    let (row, col) = (a.int("row")?, a.int("col")?);
    let (Ok(row), Ok(col)) = (usize::try_from(row), usize::try_from(col)) else {
        return Err(Fault(format!("tsubview at ({row}, {col}): indices must not be negative")));
    };
    if src.loc != dst.loc || src.desc.dtype != dst.desc.dtype {
        return Err(Fault("tsubview needs the same buffer and element type on both sides".into()));
    }
    if row.checked_add(dst.vrows).is_none_or(|e| e > src.vrows) || col.checked_add(dst.vcols).is_none_or(|e| e > src.vcols) {
        return Err(Fault(format!(
            "a {}x{} subview at ({row}, {col}) is outside the source's valid region {}x{}",
            dst.vrows, dst.vcols, src.vrows, src.vcols
        )));
    }
    let base = src.offset(row, col);
    let aliased =
        TileView { loc: src.loc, addr: src.addr + (base * src.elem_size()) as u64, desc: dst.desc, vrows: dst.vrows, vcols: dst.vcols };
    for i in 0..dst.vrows {
        for j in 0..dst.vcols {
            if base + aliased.offset(i, j) != src.offset(row + i, col + j) {
                return Err(Fault(format!(
                    "the destination's layout ({}x{}) does not step through the source ({}x{}) element by element: element ({i}, {j}) would alias another source element",
                    dst.desc.rows, dst.desc.cols, src.desc.rows, src.desc.cols
                )));
            }
        }
    }
    storage(m.mem, &aliased)?;
    m.rebind.push(("dst", Val::Tile(aliased)));
    Ok(())
}

fn tprefetch(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let (view, dst) = (a.view("src")?, a.tile("dst")?);
    view.check_window(&dst, None)?;
    dst.valid_inside()?;
    let gm = m.gm.get_mut(view.arg).ok_or_else(|| Fault("the view's GM argument does not exist".into()))?;
    if gm.elem_size != dst.elem_size() {
        return Err(Fault(format!("GM elements are {} bytes, tile elements {}", gm.elem_size, dst.elem_size())));
    }
    if !gm.bound && !gm.written && !gm.pattern {
        return Err(Fault(format!(
            "prefetches from GM argument `%{}`, which has no input and nothing stored to ({})",
            gm.name,
            m.front_end.give(&gm.name, crate::advice::Missing::Data)
        )));
    }
    let fold = pto_ir::tile_rules::ViewFold::of(&dst.desc);
    let d = m.mem.slice_mut(dst.loc, dst.addr, dst.size_bytes() as usize)?;
    for r in 0..dst.vrows {
        for c in 0..dst.vcols {
            let g = gm.element(view.index(r, c, fold)?, m.gm_limit)?;
            element_mut(d, &dst, r, c)?.copy_from_slice(g);
        }
    }
    Ok(())
}

fn tprefetch_async(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let view = a.view("src")?;
    let gm = m.gm.get(view.arg).ok_or_else(|| Fault("the view's GM argument does not exist".into()))?;
    if gm.bound {
        let n = gm.elements() as i64;
        let last = (0..view.rank).try_fold(view.offset, |acc, d| {
            let extent = view.shape[d].checked_sub(1)?.max(0);
            acc.checked_add(extent.checked_mul(view.strides[d])?)
        });
        if view.offset < 0 || last.is_none_or(|l| l >= n) {
            return Err(Fault(format!("the prefetched view reaches past the {n} elements of `%{}`", gm.name)));
        }
    }
    Ok(())
}

fn thistogram(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let (src, idx, dst) = (a.tile("src")?, a.tile("idx")?, a.tile("dst")?);
    let msb = a.flag("isMSB");
    if src.desc.dtype.size_bytes() != 2 || idx.desc.dtype.size_bytes() != 1 {
        return Err(Fault(format!(
            "thistogram counts the bytes of 16-bit elements with 8-bit indices, found {} and {}",
            src.desc.dtype, idx.desc.dtype
        )));
    }
    if dst.vcols < 256 || dst.vrows < src.vrows {
        return Err(Fault(format!(
            "the destination needs {} rows of 256 bins, its valid region is {}x{}",
            src.vrows, dst.vrows, dst.vcols
        )));
    }
    if !msb && idx.vrows < src.vrows {
        return Err(Fault(format!("the low-byte pass needs one index per source row: {} rows, {} indices", src.vrows, idx.vrows)));
    }
    let (s, ix) = (storage(m.mem, &src)?, storage(m.mem, &idx)?);
    let mut bins = vec![0u64; src.vrows * 256];
    for r in 0..src.vrows {
        let want = if msb { 0 } else { element(ix, &idx, r, 0)?[0] };
        for c in 0..src.vcols {
            let v = u16::load(element(s, &src, r, c)?);
            let (hi, lo) = ((v >> 8) as usize, (v & 0xFF) as usize);
            if msb {
                bins[r * 256 + hi] += 1;
            } else if hi == usize::from(want) {
                bins[r * 256 + lo] += 1;
            }
        }
        for b in 1..256 {
            bins[r * 256 + b] += bins[r * 256 + b - 1];
        }
    }
    let region = TileView { vrows: src.vrows, vcols: 256, ..dst };
    dispatch!(dst.desc.dtype, T => {
        if <T as Elem>::FLOAT {
            return Err(Fault(format!("thistogram counts into an integer tile, not {}", dst.desc.dtype)));
        }
        write(m.mem, &region, &bins.iter().map(|&n| T::from_i64(n as i64)).collect::<Vec<T>>())
    }, _ => Err(unsupported(&dst)))
}

/// The placement ops.
pub const SEMANTICS: &[(Opcode, Semantics)] = &[
    (Opcode::TAssign, tassign),
    (Opcode::TSubview, tsubview),
    (Opcode::TPrefetch, tprefetch),
    (Opcode::TPrefetchAsync, tprefetch_async),
    (Opcode::THistogram, thistogram),
];
