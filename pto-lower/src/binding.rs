//! Binding an op's operands to the slots of its op-table operand pattern.
//!
//! Shared by the passes that reason about named operands (`legalize`, `insert-scratch`): the
//! first operand form whose arity and operand kinds fit wins, exactly as the structural
//! verifier chooses it.

use pto_ir::module::{Module, OpId, ValueId};
use pto_ir::types::Type;

/// One bound operand: its slot, its position text (`ins[0] (src0)`) and its value.
pub struct Bound {
    /// Slot name (`src0`, `tmp`...).
    pub slot: &'static str,
    /// Position text for diagnostics: `ins[0] (src0)`.
    pub position: String,
    /// The operand or result.
    pub value: ValueId,
}

/// Picks the first operand form of the op whose arity and operand kinds fit; returns its index
/// and the bound operands.
pub fn bind(m: &Module, op: OpId) -> Option<(usize, Vec<Bound>)> {
    let data = m.op(op);
    let parsed = data.opcode.parsed();
    let ins = data.ins();
    let ssa = data.outs().is_empty() && !data.results.is_empty();
    let (outs, out_seg) = if ssa { (&data.results[..], "results") } else { (data.outs(), "outs") };
    let types = |vs: &[ValueId]| -> Vec<&Type> { vs.iter().map(|&v| m.value_type(v)).collect() };
    let (in_types, out_types) = (types(ins), types(outs));
    for (fi, form) in parsed.forms.iter().enumerate() {
        let Some((a, b)) = form.fit(&in_types, &out_types) else { continue };
        let mut bound = Vec::with_capacity(ins.len() + outs.len());
        for (seg, values, idx, slots) in [("ins", ins, &a, &form.ins), (out_seg, outs, &b, &form.outs)] {
            for (i, (&v, &s)) in values.iter().zip(idx.iter()).enumerate() {
                let slot = slots[s].name.as_str();
                bound.push(Bound { slot, position: format!("{seg}[{i}] ({slot})"), value: v });
            }
        }
        return Some((fi, bound));
    }
    None
}
