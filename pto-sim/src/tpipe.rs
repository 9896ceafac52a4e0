//! The TPipe instructions on one core (`tpush`, `tpop`, `tfree`, `talloc` on a `!pto.pipe`
//! value): their semantics table over the FIFO state of [`crate::fifo`].

pub use crate::fifo::{Blocked, Entry, Fifo, GmSlots, SlotState, slot_array};
use pto_ir::types::ElemType;

use crate::exec::{Args, Machine, Semantics};
use crate::gm::GmView;
use crate::memory::Fault;
use crate::value::Val;
use crate::view::{element, element_mut};
use pto_ir::ops::Opcode;

/// The FIFO of the pipe in slot `pipe`.
fn fifo<'a>(m: &'a mut Machine<'_>, a: &Args<'_>) -> Result<&'a mut Fifo, Fault> {
    let i = a.pipe("pipe")?;
    m.pipes.get_mut(i).ok_or_else(|| Fault("the pipe operand is not a kernel's `!pto.pipe` argument".into()))
}

/// The single-core model moves whole tiles: the split modes divide a tile between the two
/// vector subblocks of a core pair, which needs the multi-core scheduler.
fn no_split(a: &Args<'_>) -> Result<(), Fault> {
    match a.enum_attr("split", "tile_split") {
        None | Some("TILE_NO_SPLIT") => Ok(()),
        Some(other) => {
            Err(Fault(format!("split `{other}` divides the tile between two vector subblocks: not executable on one simulated core yet")))
        }
    }
}

/// The element type and static shape of the slot view in `slot` (`talloc`'s and `tpop`'s
/// result, `tpush`'s and `tfree`'s operand).
fn slot_type(a: &Args<'_>) -> Result<(ElemType, Vec<i64>), Fault> {
    slot_shape(a.type_of("slot").ok_or_else(|| Fault("missing the slot view".into()))?)
}

/// The element type and static shape of a FIFO slot view type: a slot holds it row-major.
pub(crate) fn slot_shape(ty: &pto_ir::types::Type) -> Result<(ElemType, Vec<i64>), Fault> {
    let (Some(dtype), Some(shape)) = (ty.elem_type(), ty.view_shape()) else {
        return Err(Fault("the slot is not a GM view with an element type and a shape".into()));
    };
    let dims: Option<Vec<i64>> = shape.iter().map(|d| d.and_then(|n| i64::try_from(n).ok())).collect();
    let dims = dims.ok_or_else(|| Fault("a FIFO slot view needs a static shape (the slot has a fixed size)".into()))?;
    if dims.is_empty() {
        return Err(Fault("a FIFO slot view needs at least one dimension".into()));
    }
    Ok((dtype, dims))
}

/// `(rows, cols)` of a row-major shape: the last dimension, and the product of the others.
pub(crate) fn rows_cols(dims: &[i64]) -> (usize, usize) {
    let cols = dims.last().copied().unwrap_or(1).max(0) as usize;
    let rows = dims[..dims.len().saturating_sub(1)].iter().map(|d| d.max(&0).unsigned_abs() as usize).product();
    (rows, cols)
}

/// Row-major strides of `dims` whose rows are `row_stride` elements apart (the row length
/// for a whole slot; the whole tile's for one vector core's half of it).
pub(crate) fn slot_strides(dims: &[i64], row_stride: i64) -> Vec<i64> {
    let n = dims.len();
    let mut strides = vec![1i64; n];
    for d in (0..n.saturating_sub(1)).rev() {
        strides[d] = if d == n - 2 { row_stride } else { strides[d + 1].saturating_mul(dims[d + 1].max(1)) };
    }
    strides
}

/// The row-major view of slot `k` with shape `dims`, after checking it fits the pipe's slots
/// (and fixing their size and element type on first use).
fn slot_view(m: &mut Machine<'_>, f: &mut Fifo, k: usize, dtype: ElemType, dims: &[i64]) -> Result<GmView, Fault> {
    let (rows, cols) = rows_cols(dims);
    let elems = rows.checked_mul(cols).filter(|n| *n > 0).ok_or_else(|| Fault("a FIFO slot view has no elements".into()))?;
    let array = m.gm.get_mut(f.slots.array).ok_or_else(|| Fault("the pipe has no slot memory".into()))?;
    if f.slots.size == 0 {
        f.slots.size = elems;
        array.elem_size = dtype.size_bytes() as usize;
        array.dtype = dtype;
    } else if array.elem_size != dtype.size_bytes() as usize || elems > f.slots.size {
        return Err(Fault(format!(
            "this {dtype} slot view of {elems} elements does not fit the pipe's slots of {} {} elements (the first slot view fixes a pipe's slot size, like pto-isa's `SlotSize`)",
            f.slots.size, array.dtype
        )));
    }
    let end = (k + 1).checked_mul(f.slots.size).and_then(|n| n.checked_mul(array.elem_size));
    if end.is_none_or(|end| end > m.gm_limit) {
        return Err(Fault(format!(
            "the pipe's GM slot {k} ends beyond {}, the most an unbound GM array grows to",
            crate::gm::bytes_text(m.gm_limit)
        )));
    }
    let mut view = GmView::new(f.slots.array, dims, &slot_strides(dims, cols as i64))?;
    view.offset = (k * f.slots.size) as i64;
    Ok(view)
}

/// The range of the first `n` bytes of GM slot `k` in the slot array (grown to hold them).
fn slot_bytes(m: &mut Machine<'_>, slots: &GmSlots, k: usize, n: usize) -> Result<std::ops::Range<usize>, Fault> {
    let array = &mut m.gm[slots.array];
    let size = array.elem_size.max(1);
    let start = k * slots.size * size;
    let end = start + n;
    if array.len_bytes() < end {
        array.touch((end / size) as i64 - 1, m.gm_limit)?;
    }
    Ok(start..end)
}

/// The slot a view operand is, and that it is in `state`.
fn slot_of(f: &Fifo, view: GmView, state: SlotState, what: &str) -> Result<usize, Fault> {
    let k = f.slot_at(view.arg, view.offset).ok_or_else(|| Fault(format!("{what} a view that is not a slot of this pipe")))?;
    if f.slots.state[k] != state {
        let now = match f.slots.state[k] {
            SlotState::Free => "free",
            SlotState::Allocated => "allocated and not pushed",
            SlotState::Queued => "pushed and not popped",
            SlotState::Popped => "popped",
        };
        return Err(Fault(format!("{what} slot {k}, which is {now}")));
    }
    Ok(k)
}

fn talloc(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    no_split(a)?;
    let (dtype, dims) = slot_type(a)?;
    let i = a.pipe("pipe")?;
    let mut f = std::mem::take(m.pipes.get_mut(i).ok_or_else(|| Fault("the pipe operand is not a kernel's `!pto.pipe` argument".into()))?);
    let result = f.allocate().map_err(|b| Fault(b.message().into())).and_then(|k| {
        let view = slot_view(m, &mut f, k, dtype, &dims).inspect_err(|_| f.slots.state[k] = SlotState::Free)?;
        m.notes.push(format!("FIFO: allocated GM slot {k}; {}", f.describe()));
        m.rebind.push(("slot", Val::View(view)));
        Ok(())
    });
    m.pipes[i] = f;
    result
}

fn tpush(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    no_split(a)?;
    let entry = if a.form == 0 {
        let tile = a.tile("tile")?;
        let s = crate::family::storage(m.mem, &tile)?;
        tile.valid_inside()?;
        let mut bytes = Vec::with_capacity(tile.vrows * tile.vcols * tile.elem_size());
        for r in 0..tile.vrows {
            for c in 0..tile.vcols {
                bytes.extend_from_slice(element(s, &tile, r, c)?);
            }
        }
        Entry::inline(tile.desc.dtype, tile.vrows, tile.vcols, bytes)
    } else {
        let (dtype, dims) = slot_type(a)?;
        let (rows, cols) = rows_cols(&dims);
        let k = slot_of(fifo(m, a)?, a.view("slot")?, SlotState::Allocated, "pushes")?;
        Entry { dtype, rows, cols, bytes: Vec::new(), slot: Some(k) }
    };
    let what = match entry.slot {
        Some(k) => format!("GM slot {k}"),
        None => String::new(),
    };
    let (dtype, rows, cols) = (entry.dtype, entry.rows, entry.cols);
    let f = fifo(m, a)?;
    f.push(entry).map_err(|b| Fault(b.message().into()))?;
    let note = format!("FIFO: pushed {dtype} {rows}x{cols}{}{what}; {}", if what.is_empty() { "" } else { " in " }, f.describe());
    m.notes.push(note);
    Ok(())
}

/// Checks that the FIFO's oldest entry has `dtype` and `rows x cols` elements (`tpop`): the
/// same shape for a tile, the same number of elements for a slot view (`into` describes it).
fn check_front(f: &Fifo, dtype: ElemType, (rows, cols): (usize, usize), same_shape: bool, into: &str) -> Result<(), Fault> {
    let front = f.entries.front().ok_or_else(|| Fault(Blocked::Empty.message().into()))?;
    let shape_ok = if same_shape { (front.rows, front.cols) == (rows, cols) } else { front.rows * front.cols == rows * cols };
    if front.dtype != dtype || !shape_ok {
        return Err(Fault(format!("pops a {} {}x{} entry into {into} {rows}x{cols}", front.dtype, front.rows, front.cols)));
    }
    Ok(())
}

fn tpop(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    no_split(a)?;
    if a.form == 1 {
        return tpop_slot(m, a);
    }
    let tile = a.tile("tile")?;
    let into = format!("a {} tile with valid region", tile.desc.dtype);
    check_front(fifo(m, a)?, tile.desc.dtype, (tile.vrows, tile.vcols), true, &into)?;
    let i = a.pipe("pipe")?;
    let entry = m.pipes[i].pop().map_err(|b| Fault(b.message().into()))?;
    let note = format!("FIFO: popped {} {}x{}; {}", entry.dtype, entry.rows, entry.cols, m.pipes[i].describe());
    let size = tile.elem_size();
    let n = entry.rows * entry.cols * size;
    let bytes = match entry.slot {
        Some(k) => {
            let slots = GmSlots { state: Vec::new(), ..m.pipes[i].slots };
            let at = slot_bytes(m, &slots, k, n)?;
            let mut bytes = vec![0; at.len()];
            m.gm[slots.array].read_bytes(at.start, &mut bytes);
            bytes
        }
        None => entry.bytes,
    };
    tile.valid_inside()?;
    let d = m.mem.slice_mut(tile.loc, tile.addr, tile.size_bytes() as usize)?;
    for k in 0..entry.rows * entry.cols {
        element_mut(d, &tile, k / entry.cols, k % entry.cols)?.copy_from_slice(&bytes[k * size..(k + 1) * size]);
    }
    m.notes.push(note);
    // The tile now holds data (a kernel argument popped into counts as written).
    m.rebind.push(("tile", Val::Tile(tile)));
    Ok(())
}

/// `tpop(%pipe) -> slot view`: the oldest entry's GM slot (a tile pushed inline is first
/// written to a free slot).
fn tpop_slot(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let (dtype, dims) = slot_type(a)?;
    let (rows, cols) = rows_cols(&dims);
    let i = a.pipe("pipe")?;
    check_front(fifo(m, a)?, dtype, (rows, cols), false, &format!("a {dtype} slot view of"))?;
    let mut f = std::mem::take(&mut m.pipes[i]);
    let result = (|| {
        let entry = f.pop().map_err(|b| Fault(b.message().into()))?;
        let k = match entry.slot {
            Some(k) => k,
            None => {
                // A tile pushed inline: it takes a slot of its own, held from now on.
                let k = f.allocate().map_err(|b| Fault(b.message().into()))?;
                f.slots.state[k] = SlotState::Popped;
                if let Some(held) = f.held.back_mut() {
                    *held = Some(k);
                }
                k
            }
        };
        let view = slot_view(m, &mut f, k, dtype, &dims)?;
        if entry.slot.is_none() {
            let at = slot_bytes(m, &f.slots, k, entry.bytes.len())?;
            m.gm[f.slots.array].write_bytes(at.start, &entry.bytes);
            m.gm[f.slots.array].written = true;
        }
        m.notes.push(format!("FIFO: popped {dtype} {rows}x{cols} from GM slot {k}; {}", f.describe()));
        m.rebind.push(("slot", Val::View(view)));
        Ok(())
    })();
    m.pipes[i] = f;
    result
}

fn tfree(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    no_split(a)?;
    let f = fifo(m, a)?;
    if a.form == 1 {
        // The GM-slot form frees the slot it names.
        let k = slot_of(f, a.view("slot")?, SlotState::Popped, "frees")?;
        let at = f.held.iter().position(|h| *h == Some(k)).ok_or_else(|| Fault(format!("frees slot {k}, which is not held")))?;
        f.held.remove(at);
        f.slots.state[k] = SlotState::Free;
        let note = format!("FIFO: freed GM slot {k}; {}", f.describe());
        m.notes.push(note);
        return Ok(());
    }
    f.free().map_err(|b| Fault(b.message().into()))?;
    let note = format!("FIFO: freed a slot; {}", f.describe());
    m.notes.push(note);
    Ok(())
}

/// The TPipe instructions on one core.
pub const SEMANTICS: &[(Opcode, Semantics)] =
    &[(Opcode::TAlloc, talloc), (Opcode::TPush, tpush), (Opcode::TPop, tpop), (Opcode::TFree, tfree)];

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(x: u8) -> Entry {
        Entry::inline(ElemType::U8, 1, 1, vec![x])
    }

    #[test]
    fn first_in_first_out_and_blocking() {
        let mut f = Fifo { depth: 2, ..Fifo::default() };
        assert_eq!(f.pop(), Err(Blocked::Empty));
        f.push(entry(1)).unwrap();
        f.push(entry(2)).unwrap();
        assert_eq!(f.push(entry(3)), Err(Blocked::Full));
        assert_eq!(f.pop().unwrap().bytes, [1]);
        // The popped slot is held until freed.
        assert_eq!(f.push(entry(3)), Err(Blocked::Full));
        f.free().unwrap();
        f.push(entry(3)).unwrap();
        assert_eq!(f.pop().unwrap().bytes, [2]);
        assert_eq!(f.free(), Ok(()));
        assert_eq!(f.free(), Err(Blocked::NothingPopped));
    }
}
