//! Binding an op's operands to the slots of its op-table operand pattern.
//!
//! Shared by the passes that reason about named operands (`legalize`, `insert-scratch`); the
//! form is chosen by [`pto_ir::ops::bind::match_form`], the procedure the structural verifier
//! uses, so both see the same slot names.

use pto_ir::module::{Module, OpId, ValueId};
use pto_ir::ops::bind::{match_form, segments};

/// One bound operand: its slot, its position text (`ins[0] (src0)`) and its value.
pub struct Bound {
    /// Slot name (`src0`, `tmp`...).
    pub slot: &'static str,
    /// Where the operand is, shown in diagnostics as `ins[0] (src0)`.
    pub position: Position,
    /// The operand or result.
    pub value: ValueId,
}

/// Where a bound operand is: its segment (`ins`, `outs` or `results`), its index there and its
/// slot. Displayed as `ins[0] (src0)`; kept unformatted because binding runs on every executed op
/// and the text is only needed for a diagnostic.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// `ins`, `outs` or `results`.
    pub segment: &'static str,
    /// Index within the segment.
    pub index: usize,
    /// Slot name.
    pub slot: &'static str,
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}[{}] ({})", self.segment, self.index, self.slot)
    }
}

/// True for `memref<...>` types (the lowered form, not checked).
pub use pto_ir::ops::is_mlir_memref as is_memref;

/// The first operand form of the op whose arity and operand kinds fit: its index and the bound
/// operands. `None` when no form fits (the verifier reports that).
pub fn bind(m: &Module, op: OpId) -> Option<(usize, Vec<Bound>)> {
    let found = match_form(m, op).ok().filter(|f| f.kinds_fit)?;
    let data = m.op(op);
    let form = &data.opcode.parsed().forms[found.form];
    let (ins, outs, out_seg) = segments(data);
    let mut bound = Vec::with_capacity(ins.len() + outs.len());
    for (seg, values, idx, slots) in [("ins", ins, &found.ins, &form.ins), (out_seg, outs, &found.outs, &form.outs)] {
        for (i, (&v, &s)) in values.iter().zip(idx).enumerate() {
            let slot = slots[s].name.as_str();
            bound.push(Bound { slot, position: Position { segment: seg, index: i, slot }, value: v });
        }
    }
    Some((found.form, bound))
}

/// [`bind`] as legality reads the op: where the op table says two slots come in either order
/// (`either(src0,src1,dst)`, `trowexpand*`: pto-isa `npu/a2a3/TRowExpandSub.hpp:66-89`,
/// `npu/a5/TRowExpandSub.hpp:88-108`, PTOAS `PTO.cpp:7856-7870`), the first names the operand
/// with the deciding slot's valid shape: when only the second has it, the two are exchanged.
/// The semantics keep the written order (the simulator reads which operand is the narrow one).
pub fn bind_oriented(m: &Module, op: OpId) -> Option<(usize, Vec<Bound>)> {
    let (form, mut bound) = bind(m, op)?;
    if let Some([a, b, d]) = &m.op(op).opcode.parsed().either {
        let valid = |slot: &str| {
            let t = bound.iter().find(|x| x.slot == slot).and_then(|x| m.value_type(x.value).tile().copied())?;
            Some((t.valid_rows, t.valid_cols))
        };
        let (va, vb, vd) = (valid(a), valid(b), valid(d));
        if vd.is_some() && va != vd && vb == vd {
            let (a, b): (&'static str, &'static str) = (a.as_str(), b.as_str());
            for x in bound.iter_mut() {
                x.slot = if x.slot == a {
                    b
                } else if x.slot == b {
                    a
                } else {
                    x.slot
                };
            }
        }
    }
    Some((form, bound))
}
