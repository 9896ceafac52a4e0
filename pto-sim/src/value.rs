//! The run-time value of an IR value: what the interpreter keeps per SSA value and what the
//! semantics tables read their operands as. A value knows nothing of how it was computed.

use crate::gm::GmView;
use crate::view::TileView;

/// The run-time value of an IR value.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Val {
    /// Not computed (yet).
    Unset,
    /// A tile in memory.
    Tile(TileView),
    /// An integer or index scalar.
    Int(i64),
    /// A float scalar.
    Float(f64),
    /// A GM pointer argument (index into the GM arrays).
    Ptr(usize),
    /// A tensor or partition view of GM.
    View(GmView),
    /// An IMG2COL configuration argument (index into the simulation's configurations).
    Conv(u32),
    /// A `!pto.pipe` argument (index into the simulation's FIFOs).
    Pipe(u32),
    /// An `!pto.eventid_array<N>` (index into the simulation's event-id arrays).
    EventIds(u32),
}

/// A scalar operand.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Num {
    /// Integer.
    I(i64),
    /// Float.
    F(f64),
}
