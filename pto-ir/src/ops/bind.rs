//! Binding an op's operands to the slots of one of its operand forms: the one procedure the
//! structural verifier and the passes that reason about named operands (`legalize`,
//! `insert-scratch`) share, so that all of them see the same slot names.
//!
//! Ins are the op's `ins(...)` operands (every operand of the non-DPS formats); outs are its
//! `outs(...)` operands or, when it has none, its SSA results. Required slots take operands in
//! order; an optional slot named by a `present(slot, attr=value)` constraint is filled exactly
//! when the attribute has that value; the other optional slots are filled left to right with the
//! surplus, and a variadic last slot takes the rest. The first form whose arity fits and whose
//! slot kinds accept every operand wins; failing that, the first form whose arity fits.

use super::{Form, Presence, Slot};
use crate::module::{Module, OpData, OpId, ValueId};

/// An op's operands as its forms see them: `(ins, outs, name of the outs segment)`.
pub fn segments(data: &OpData) -> (&[ValueId], &[ValueId], &'static str) {
    if data.outs().is_empty() && !data.results.is_empty() {
        (data.ins(), &data.results, "results")
    } else {
        (data.ins(), data.outs(), "outs")
    }
}

/// A form whose arity fits an op.
#[derive(Clone, Debug, PartialEq)]
pub struct FormMatch {
    /// Index of the form in the op's pattern.
    pub form: usize,
    /// For each in operand, the index of its slot in the form's ins.
    pub ins: Vec<usize>,
    /// For each out operand, the index of its slot in the form's outs.
    pub outs: Vec<usize>,
    /// Every operand's type is one its slot accepts (kind and location).
    pub kinds_fit: bool,
}

impl FormMatch {
    /// `(slot name, value)` of every bound operand, ins first.
    pub fn bound<'a>(&self, forms: &'a [Form], ins: &[ValueId], outs: &[ValueId]) -> Vec<(&'a Slot, ValueId)> {
        let form = &forms[self.form];
        let i = ins.iter().zip(&self.ins).map(|(&v, &s)| (&form.ins[s], v));
        let o = outs.iter().zip(&self.outs).map(|(&v, &s)| (&form.outs[s], v));
        i.chain(o).collect()
    }
}

/// Why no form fits.
#[derive(Clone, Debug, PartialEq)]
pub enum Mismatch {
    /// No form has room for this many ins and outs.
    Arity,
    /// A form fits only if a `present` constraint is broken: the slot is given although the
    /// attribute does not call for it (`given`), or missing although it does.
    Presence {
        /// The broken constraint.
        presence: &'static Presence,
        /// True when the operand is given, false when it is missing.
        given: bool,
    },
}

/// Matches `op` against its operand forms (see the module docs).
pub fn match_form(m: &Module, op: OpId) -> Result<FormMatch, Mismatch> {
    let data = m.op(op);
    let parsed = data.opcode.parsed();
    let (ins, outs, _) = segments(data);
    let decide = |slot: &Slot| presence_of(data, slot).map(|p| wanted(data, p)).filter(|&w| !(w && slot.name == "tmp"));
    let mut arity_fit: Option<FormMatch> = None;
    for (form, f) in parsed.forms.iter().enumerate() {
        let (Some(a), Some(b)) = (assign(&f.ins, ins.len(), &decide), assign(&f.outs, outs.len(), &decide)) else { continue };
        let fits = |vals: &[ValueId], idx: &[usize], slots: &[Slot]| vals.iter().zip(idx).all(|(&v, &s)| slots[s].accepts(m.value_type(v)));
        let kinds_fit = fits(ins, &a, &f.ins) && fits(outs, &b, &f.outs);
        let found = FormMatch { form, ins: a, outs: b, kinds_fit };
        if kinds_fit {
            return Ok(found);
        }
        arity_fit.get_or_insert(found);
    }
    if let Some(found) = arity_fit {
        return Ok(found);
    }
    Err(broken_presence(data, ins.len(), outs.len()).unwrap_or(Mismatch::Arity))
}

/// Whether some form of `opcode` takes `ins` and `outs` by arity and slot kind (conditional
/// operands not considered): would these operands fit that op instead.
pub fn kinds_fit(m: &Module, opcode: crate::ops::Opcode, ins: &[ValueId], outs: &[ValueId]) -> bool {
    let free = |_: &Slot| None;
    let fits = |vals: &[ValueId], idx: &[usize], slots: &[Slot]| vals.iter().zip(idx).all(|(&v, &s)| slots[s].accepts(m.value_type(v)));
    opcode.parsed().forms.iter().any(|f| match (assign(&f.ins, ins.len(), &free), assign(&f.outs, outs.len(), &free)) {
        (Some(a), Some(b)) => fits(ins, &a, &f.ins) && fits(outs, &b, &f.outs),
        _ => false,
    })
}

/// The `present` constraint naming `slot`, if any. A scratch slot (`tmp`) it calls for may still
/// be absent: the `insert-scratch` pass adds it (TCOLSUM's page writes `tcolsum %src {isBinary =
/// false}` without one); one it does not call for is an error.
fn presence_of(data: &OpData, slot: &Slot) -> Option<&'static Presence> {
    data.opcode.parsed().present.iter().find(|p| p.slot == slot.name)
}

/// True when the op's attributes call for the constraint's slot.
fn wanted(data: &OpData, p: &Presence) -> bool {
    if p.value.is_empty() {
        return data.attr(&p.attr).is_some();
    }
    let kind = data.opcode.parsed().attr_kind(&p.attr).unwrap_or("");
    data.attr(&p.attr).and_then(|a| a.enum_value(kind)).is_some_and(|v| v.eq_ignore_ascii_case(&p.value))
}

/// When a form fits with the `present` constraints ignored, the constraint that stops it.
fn broken_presence(data: &OpData, n_ins: usize, n_outs: usize) -> Option<Mismatch> {
    let free = |_: &Slot| None;
    for f in &data.opcode.parsed().forms {
        let (Some(a), Some(b)) = (assign(&f.ins, n_ins, &free), assign(&f.outs, n_outs, &free)) else { continue };
        for (slots, idx) in [(&f.ins, &a), (&f.outs, &b)] {
            for (i, slot) in slots.iter().enumerate() {
                let Some(p) = presence_of(data, slot) else { continue };
                let given = idx.contains(&i);
                if given != wanted(data, p) && (given || slot.name != "tmp") {
                    return Some(Mismatch::Presence { presence: p, given });
                }
            }
        }
    }
    None
}

/// Assigns `n` values to a slot list; `decide` says whether an optional slot must be filled
/// (`Some(true)`), must stay empty (`Some(false)`) or takes surplus (`None`). `None` when the
/// count cannot fit.
pub(crate) fn assign(slots: &[Slot], n: usize, decide: &dyn Fn(&Slot) -> Option<bool>) -> Option<Vec<usize>> {
    let decided = |s: &Slot| if s.optional && !s.variadic { decide(s) } else { None };
    let required = slots.iter().filter(|s| !s.optional || decided(s) == Some(true)).count();
    let variadic = slots.last().is_some_and(|s| s.variadic);
    let room = slots.iter().filter(|s| decided(s) != Some(false)).count();
    if n < required || (!variadic && n > room) {
        return None;
    }
    let mut surplus = n - required;
    let mut out = Vec::with_capacity(n);
    for (i, s) in slots.iter().enumerate() {
        match (s.variadic, s.optional, decided(s)) {
            (true, _, _) => {
                out.extend(std::iter::repeat_n(i, surplus));
                surplus = 0;
            }
            (_, false, _) | (_, _, Some(true)) => out.push(i),
            (_, _, Some(false)) => {}
            (_, _, None) if surplus > 0 => {
                out.push(i);
                surplus -= 1;
            }
            _ => {}
        }
    }
    Some(out)
}

/// Text for diagnostics: `2 to 4` ins, `at least 1`...
pub fn arity_text(slots: &[Slot]) -> String {
    let required = slots.iter().filter(|s| !s.optional).count();
    if slots.last().is_some_and(|s| s.variadic) {
        format!("at least {required}")
    } else if required == slots.len() {
        format!("{required}")
    } else {
        format!("{required} to {}", slots.len())
    }
}

/// The PTOAS `.td` location (`PTOOps.td:4887`) of the required `tmp` operand `op` leaves out,
/// when `op` is written in the DPS form (it has `outs`) and its op-table entry says PTOAS's
/// assembly format requires `tmp` ([`super::OpSpec::ptoas_tmp`]); `None` otherwise, and when no
/// form fits (the verifier reports that). Level-1 ops (SSA results, no `outs`) may omit `tmp`.
pub fn missing_ptoas_tmp(m: &Module, op: OpId) -> Option<&'static str> {
    let data = m.op(op);
    let at = data.opcode.spec().ptoas_tmp;
    if at.is_empty() || data.outs().is_empty() {
        return None;
    }
    let found = match_form(m, op).ok()?;
    let form = &data.opcode.parsed().forms[found.form];
    let tmp = form.ins.iter().position(|s| s.name == "tmp")?;
    (!found.ins.contains(&tmp)).then_some(at)
}
