//! TPipe FIFOs: the state behind `tpush`, `tpop` and `tfree`, one FIFO per `!pto.pipe` value.
//!
//! A FIFO holds the tiles pushed and not yet popped, in order, each as its element type, valid
//! shape and row-major bytes. Its operations never wait: where hardware would block — a pop
//! from an empty FIFO, a push into a full one, a free with no popped slot — they return
//! [`Blocked`], and the caller decides. The single-core interpreter reports it as a located
//! error (the other side of the pipe is not simulated, so the wait would never end); a
//! multi-core scheduler that owns one [`Fifo`] shared by a producer and a consumer core can
//! instead suspend the core and retry after the other one ran.
//!
//! `!pto.pipe` gives no depth, so a FIFO is unbounded unless its owner sets [`Fifo::depth`]
//! (slots popped and not yet freed count towards it, as on hardware).

use pto_ir::types::ElemType;
use std::collections::VecDeque;

/// One FIFO entry: a tile's valid region.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Element type.
    pub dtype: ElemType,
    /// Valid rows.
    pub rows: usize,
    /// Valid columns.
    pub cols: usize,
    /// The elements, row-major.
    pub bytes: Vec<u8>,
}

/// Why an operation would wait on hardware.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Blocked {
    /// `tpop` with no entry: waits for a producer's `tpush`.
    Empty,
    /// `tpush` with every slot taken: waits for a consumer's `tfree`.
    Full,
    /// `tfree` with no popped slot to release.
    NothingPopped,
}

impl Blocked {
    /// What the single-core interpreter reports.
    pub fn message(self) -> &'static str {
        match self {
            Blocked::Empty => {
                "pops from an empty FIFO: no tpush to this pipe came first (the other core is not simulated), so it would wait forever"
            }
            Blocked::Full => "pushes into a full FIFO: every slot is taken and no consumer frees one, so it would wait forever",
            Blocked::NothingPopped => "frees a FIFO slot, but no popped slot is held",
        }
    }
}

/// One FIFO.
#[derive(Clone, Debug, PartialEq)]
pub struct Fifo {
    /// Entries pushed and not yet popped, oldest first.
    pub entries: VecDeque<Entry>,
    /// Slots popped and not yet freed.
    pub held: usize,
    /// How many slots the FIFO has (entries plus held slots).
    pub depth: usize,
}

impl Default for Fifo {
    fn default() -> Fifo {
        Fifo { entries: VecDeque::new(), held: 0, depth: usize::MAX }
    }
}

impl Fifo {
    /// Appends `e` (`tpush`).
    pub fn push(&mut self, e: Entry) -> Result<(), Blocked> {
        if self.entries.len().saturating_add(self.held) >= self.depth {
            return Err(Blocked::Full);
        }
        self.entries.push_back(e);
        Ok(())
    }

    /// Takes the oldest entry; its slot stays held until [`Fifo::free`] (`tpop`).
    pub fn pop(&mut self) -> Result<Entry, Blocked> {
        let e = self.entries.pop_front().ok_or(Blocked::Empty)?;
        self.held += 1;
        Ok(e)
    }

    /// Releases the oldest held slot (`tfree`).
    pub fn free(&mut self) -> Result<(), Blocked> {
        self.held = self.held.checked_sub(1).ok_or(Blocked::NothingPopped)?;
        Ok(())
    }

    /// The trace text of the FIFO's state.
    pub fn describe(&self) -> String {
        format!(
            "{} entr{} queued, {} slot{} held",
            self.entries.len(),
            if self.entries.len() == 1 { "y" } else { "ies" },
            self.held,
            if self.held == 1 { "" } else { "s" }
        )
    }
}

// ------------------------------------------------------------------ single-core semantics

use crate::exec::{Args, Machine, Semantics};
use crate::memory::Fault;
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

/// The talloc'd GM-slot forms move data through a FIFO in GM.
fn tile_form(a: &Args<'_>, op: &str) -> Result<(), Fault> {
    if a.form == 0 {
        Ok(())
    } else {
        Err(Fault(format!("the GM-slot form of `{op}` (a talloc'd slot) is not executable by the simulator yet")))
    }
}

fn tpush(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    tile_form(a, "tpush")?;
    no_split(a)?;
    let tile = a.tile("tile")?;
    let s = crate::family::storage(m.mem, &tile)?;
    tile.valid_inside()?;
    let mut bytes = Vec::with_capacity(tile.vrows * tile.vcols * tile.elem_size());
    for r in 0..tile.vrows {
        for c in 0..tile.vcols {
            bytes.extend_from_slice(element(s, &tile, r, c)?);
        }
    }
    let entry = Entry { dtype: tile.desc.dtype, rows: tile.vrows, cols: tile.vcols, bytes };
    let f = fifo(m, a)?;
    f.push(entry).map_err(|b| Fault(b.message().into()))?;
    let note = format!("FIFO: pushed {} {}x{}; {}", tile.desc.dtype, tile.vrows, tile.vcols, f.describe());
    m.notes.push(note);
    Ok(())
}

fn tpop(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    tile_form(a, "tpop")?;
    no_split(a)?;
    let tile = a.tile("tile")?;
    let f = fifo(m, a)?;
    let front = f.entries.front().ok_or_else(|| Fault(Blocked::Empty.message().into()))?;
    if (front.dtype, front.rows, front.cols) != (tile.desc.dtype, tile.vrows, tile.vcols) {
        return Err(Fault(format!(
            "pops a {} {}x{} entry into a {} tile with valid region {}x{}",
            front.dtype, front.rows, front.cols, tile.desc.dtype, tile.vrows, tile.vcols
        )));
    }
    let entry = f.pop().map_err(|b| Fault(b.message().into()))?;
    let note = format!("FIFO: popped {} {}x{}; {}", entry.dtype, entry.rows, entry.cols, f.describe());
    let size = tile.elem_size();
    tile.valid_inside()?;
    let d = m.mem.slice_mut(tile.loc, tile.addr, tile.size_bytes() as usize)?;
    for k in 0..entry.rows * entry.cols {
        element_mut(d, &tile, k / entry.cols, k % entry.cols)?.copy_from_slice(&entry.bytes[k * size..(k + 1) * size]);
    }
    m.notes.push(note);
    // The tile now holds data (a kernel argument popped into counts as written).
    m.rebind.push(("tile", tile));
    Ok(())
}

fn tfree(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    tile_form(a, "tfree")?;
    no_split(a)?;
    let f = fifo(m, a)?;
    f.free().map_err(|b| Fault(b.message().into()))?;
    let note = format!("FIFO: freed a slot; {}", f.describe());
    m.notes.push(note);
    Ok(())
}

/// The TPipe instructions on one core.
pub const SEMANTICS: &[(Opcode, Semantics)] = &[(Opcode::TPush, tpush), (Opcode::TPop, tpop), (Opcode::TFree, tfree)];

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(x: u8) -> Entry {
        Entry { dtype: ElemType::U8, rows: 1, cols: 1, bytes: vec![x] }
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
