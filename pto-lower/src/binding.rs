//! Binding an op's operands to the slots of its op-table operand pattern.
//!
//! Shared by the passes that reason about named operands (`legalize`, `insert-scratch`): the
//! first operand form whose arity and operand kinds fit wins, exactly as the structural
//! verifier chooses it.

use pto_ir::module::{Module, OpId, ValueId};
use pto_ir::ops::{Slot, SlotKind};
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

/// Assigns `n` values to a slot list (optional slots filled left to right, the variadic last
/// slot takes the rest), as the structural verifier does.
fn assign(slots: &[Slot], n: usize) -> Option<Vec<usize>> {
    let required = slots.iter().filter(|s| !s.optional).count();
    let variadic = slots.last().is_some_and(|s| s.variadic);
    if n < required || (!variadic && n > slots.len()) {
        return None;
    }
    let mut surplus = n - required;
    let mut out = Vec::with_capacity(n);
    for (i, s) in slots.iter().enumerate() {
        if s.variadic {
            out.extend(std::iter::repeat_n(i, surplus));
            surplus = 0;
        } else if s.optional {
            if surplus > 0 {
                out.push(i);
                surplus -= 1;
            }
        } else {
            out.push(i);
        }
    }
    Some(out)
}

fn kind_fits(kind: SlotKind, ty: &Type) -> bool {
    match kind {
        SlotKind::Tile => matches!(ty, Type::Tile(_) | Type::TileBuf(_)) || is_memref(ty),
        SlotKind::Scalar => matches!(ty, Type::Scalar(_)),
        SlotKind::View => {
            matches!(ty, Type::PartitionView(..) | Type::TensorView(..) | Type::Ptr(_) | Type::Opaque(_))
        }
        SlotKind::Event => matches!(ty, Type::Event),
        SlotKind::Any => true,
    }
}

/// True for `memref<...>` types (the lowered form, not checked).
pub fn is_memref(ty: &Type) -> bool {
    matches!(ty, Type::Opaque(s) if s.starts_with("memref<"))
}

/// Picks the first operand form of the op whose arity and operand kinds fit; returns its index
/// and the bound operands.
pub fn bind(m: &Module, op: OpId) -> Option<(usize, Vec<Bound>)> {
    let data = m.op(op);
    let parsed = data.opcode.parsed();
    let ins = data.ins();
    let ssa = data.outs().is_empty() && !data.results.is_empty();
    let (outs, out_seg) = if ssa { (&data.results[..], "results") } else { (data.outs(), "outs") };
    for (fi, form) in parsed.forms.iter().enumerate() {
        let (Some(a), Some(b)) = (assign(&form.ins, ins.len()), assign(&form.outs, outs.len())) else { continue };
        let fits = ins.iter().zip(&a).all(|(v, &s)| kind_fits(form.ins[s].kind, m.value_type(*v)))
            && outs.iter().zip(&b).all(|(v, &s)| kind_fits(form.outs[s].kind, m.value_type(*v)));
        if !fits {
            continue;
        }
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
