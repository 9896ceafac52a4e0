//! TPipe FIFOs: the state behind `tpush`, `tpop`, `tfree` and `talloc`, one FIFO per
//! `!pto.pipe` value.
//!
//! A FIFO holds the entries pushed and not yet popped, in order. An entry is a tile's valid
//! region: its element type, valid shape and row-major bytes, kept inline when a tile was
//! pushed (`tpush(%tile, %pipe)`), or in one of the pipe's **GM slots** when the producer used
//! pto-isa's `GlobalData` interface: `talloc` hands out a free slot as a GM view, the producer
//! writes it with ordinary stores, and `tpush(%slot, %pipe)` commits it; `tpop(%pipe)` returns
//! the oldest committed slot as a view, which the consumer reads with loads and releases with
//! `tfree(%pipe, %slot)`. The two interfaces share one order, so either side may use either
//! (a slot popped into a tile reads the slot's bytes; a tile popped as a view is first written
//! to a slot), as on A2A3 where every TPipe slot lives in GM.
//!
//! The slots are one GM array per pipe ([`slot_array`]), slot `k` at elements
//! `[k * size, (k + 1) * size)`: like pto-isa's `SlotSize`, a pipe's slot size is fixed — by
//! its first slot view. A slot is reused once freed; the array grows (up to the limit of an
//! unbound GM array) only while every slot is taken.
//!
//! Operations never wait: where hardware would block — a pop from an empty FIFO, a push into
//! a full one, a free with no popped slot — they return [`Blocked`], and the caller decides.
//! The single-core interpreter reports it as a located error (the other side of the pipe is
//! not simulated, so the wait would never end); a multi-core scheduler that owns one [`Fifo`]
//! shared by a producer and a consumer core can instead suspend the core and retry after the
//! other one ran.
//!
//! `!pto.pipe` gives no depth, so a FIFO is unbounded unless its owner sets [`Fifo::depth`]
//! (slots allocated, or popped and not yet freed, count towards it, as on hardware).

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
    /// The elements, row-major (empty when they are in GM slot [`Entry::slot`]).
    pub bytes: Vec<u8>,
    /// The GM slot holding the elements (a `talloc`'d slot committed by `tpush`).
    pub slot: Option<usize>,
}

impl Entry {
    /// An entry whose elements are `bytes`.
    pub fn inline(dtype: ElemType, rows: usize, cols: usize, bytes: Vec<u8>) -> Entry {
        Entry { dtype, rows, cols, bytes, slot: None }
    }
}

/// Why an operation would wait on hardware.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Blocked {
    /// `tpop` with no entry: waits for a producer's `tpush`.
    Empty,
    /// `tpush` or `talloc` with every slot taken: waits for a consumer's `tfree`.
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

/// Where a GM slot is in its cycle.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SlotState {
    /// Free to `talloc` (or to hold a tile popped as a view).
    Free,
    /// Handed out by `talloc`, not yet committed by `tpush`.
    Allocated,
    /// Committed, waiting in the FIFO.
    Queued,
    /// Popped, not yet freed.
    Popped,
}

/// A pipe's GM slots.
#[derive(Clone, Debug, PartialEq)]
pub struct GmSlots {
    /// The GM array holding them (an index into the run's GM arrays).
    pub array: usize,
    /// Elements per slot; 0 until the first slot view fixes it.
    pub size: usize,
    /// Each slot's state, by number.
    pub state: Vec<SlotState>,
}

/// One FIFO.
#[derive(Clone, Debug, PartialEq)]
pub struct Fifo {
    /// Entries pushed and not yet popped, oldest first.
    pub entries: VecDeque<Entry>,
    /// Slots popped and not yet freed, oldest first (the GM slot, for one that has one).
    pub held: VecDeque<Option<usize>>,
    /// How many slots the FIFO has (entries, held and allocated slots).
    pub depth: usize,
    /// The GM slots.
    pub slots: GmSlots,
}

impl Default for Fifo {
    fn default() -> Fifo {
        Fifo { entries: VecDeque::new(), held: VecDeque::new(), depth: usize::MAX, slots: GmSlots { array: 0, size: 0, state: Vec::new() } }
    }
}

impl Fifo {
    /// Slots taken: entries queued, slots held or handed out by `talloc`.
    fn taken(&self) -> usize {
        let allocated = self.slots.state.iter().filter(|s| **s == SlotState::Allocated).count();
        self.entries.len() + self.held.len() + allocated
    }

    /// Appends `e` (`tpush`; a committed GM slot was already counted by its `talloc`).
    pub fn push(&mut self, e: Entry) -> Result<(), Blocked> {
        match e.slot {
            Some(k) => self.slots.state[k] = SlotState::Queued,
            None if self.taken() >= self.depth => return Err(Blocked::Full),
            None => {}
        }
        self.entries.push_back(e);
        Ok(())
    }

    /// Takes the oldest entry; its slot stays held until [`Fifo::free`] (`tpop`).
    pub fn pop(&mut self) -> Result<Entry, Blocked> {
        let e = self.entries.pop_front().ok_or(Blocked::Empty)?;
        if let Some(k) = e.slot {
            self.slots.state[k] = SlotState::Popped;
        }
        self.held.push_back(e.slot);
        Ok(e)
    }

    /// Releases the oldest held slot (`tfree`).
    pub fn free(&mut self) -> Result<(), Blocked> {
        let slot = self.held.pop_front().ok_or(Blocked::NothingPopped)?;
        if let Some(k) = slot {
            self.slots.state[k] = SlotState::Free;
        }
        Ok(())
    }

    /// Hands out a free GM slot (`talloc`; a tile popped as a view takes one too): the lowest
    /// free one, else a new one.
    pub fn allocate(&mut self) -> Result<usize, Blocked> {
        if self.taken() >= self.depth {
            return Err(Blocked::Full);
        }
        let k = match self.slots.state.iter().position(|s| *s == SlotState::Free) {
            Some(k) => k,
            None => {
                self.slots.state.push(SlotState::Free);
                self.slots.state.len() - 1
            }
        };
        self.slots.state[k] = SlotState::Allocated;
        Ok(k)
    }

    /// The GM slot a view at element `offset` of `array` is, if it is one of this pipe's.
    pub fn slot_at(&self, array: usize, offset: i64) -> Option<usize> {
        let size = self.slots.size as i64;
        if array != self.slots.array || size == 0 || offset < 0 || offset % size != 0 {
            return None;
        }
        usize::try_from(offset / size).ok().filter(|k| *k < self.slots.state.len())
    }

    /// The trace text of the FIFO's state.
    pub fn describe(&self) -> String {
        let (n, h) = (self.entries.len(), self.held.len());
        format!("{n} entr{} queued, {h} slot{} held", if n == 1 { "y" } else { "ies" }, if h == 1 { "" } else { "s" })
    }
}

/// The GM array of pipe `name`'s slots (`%name.fifo` in diagnostics): its element type is set
/// by the first slot view ([`GmSlots::size`]).
pub fn slot_array(name: &str) -> crate::gm::GmArray {
    let mut array = crate::gm::GmArray::new(format!("{name}.fifo"), ElemType::U8);
    array.internal = true;
    array
}
