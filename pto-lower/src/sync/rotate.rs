//! Rotating buffers for `insert-sync`: a tile whose `alloc_tile addr` is chosen by the phase of
//! an `scf.for` — `(iv + c) mod k` (`arith.remsi` / `arith.remui` by a constant, or `arith.andi`
//! with the mask `k - 1`), through any integer arithmetic on that phase — is, in iteration `i`,
//! the tile at the address the expression gives for phase `i mod k`. The pass gives accesses of
//! such a tile one byte range per phase, so that the loads of one buffer and the compute on
//! another do not conflict within an iteration, and orders the loop with event ids
//! `base + iv mod k` (`set_flag_dyn` / `wait_flag_dyn`).
//!
//! Only a loop whose lower bound is a constant `>= 0` rotates (its `iv mod k` then equals the
//! phase the address uses, `c >= 0` too); anything else is not a rotation and the tile is
//! its whole buffer, as before.

use pto_ir::attr::Attr;
use pto_ir::module::{Module, OpId, ValueDef, ValueId};
use pto_ir::ops::Opcode;

/// A loop that rotates buffers: its `scf.for` and its period `k` (at least 2).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rotation {
    /// The `scf.for`.
    pub lp: OpId,
    /// Buffers it cycles through.
    pub k: u32,
}

/// How deep the pass looks through an address's arithmetic.
const MAX_DEPTH: u32 = 32;

/// The `scf.for` whose induction variable `v` is, if it is one with a constant lower bound
/// `>= 0`.
fn loop_of_iv(m: &Module, v: ValueId) -> Option<OpId> {
    let ValueDef::BlockArg(block, 0) = m.values[v.index()].def else { return None };
    // The op owning `block`: the scf.for whose first region's first block it is.
    let lp = m.walk().into_iter().find(|&op| {
        let d = m.op(op);
        d.opcode == Opcode::ScfFor && d.regions.first().is_some_and(|&r| m.region(r).blocks.first() == Some(&block))
    })?;
    (m.int_constant(*m.op(lp).operands.first()?)? >= 0).then_some(lp)
}

/// `v` as `iv + c` (`c >= 0` a constant) of some `scf.for`'s induction variable.
fn iv_plus(m: &Module, v: ValueId, depth: u32) -> Option<(ValueId, i64)> {
    if depth > MAX_DEPTH {
        return None;
    }
    match m.values[v.index()].def {
        ValueDef::BlockArg(..) => loop_of_iv(m, v).map(|_| (v, 0)),
        ValueDef::OpResult(def, _) => {
            let d = m.op(def);
            match (d.opcode, d.operands.as_slice()) {
                (Opcode::ArithIndexCast | Opcode::ArithIndexCastui | Opcode::ArithExtui | Opcode::ArithExtsi, [x]) => {
                    iv_plus(m, *x, depth + 1)
                }
                (Opcode::ArithAddi, [x, y]) => {
                    let (var, c) = match (m.int_constant(*x), m.int_constant(*y)) {
                        (None, Some(c)) => (*x, c),
                        (Some(c), None) => (*y, c),
                        _ => return None,
                    };
                    let (iv, c0) = iv_plus(m, var, depth + 1)?;
                    let c = c0.checked_add(c)?;
                    (c >= 0).then_some((iv, c))
                }
                _ => None,
            }
        }
    }
}

/// `v` as a phase op: `(iv + c) mod k` — its induction variable, `c` and `k`.
fn phase_op(m: &Module, v: ValueId) -> Option<(ValueId, i64, i64)> {
    let ValueDef::OpResult(def, _) = m.values[v.index()].def else { return None };
    let d = m.op(def);
    let (&x, &y) = (d.operands.first()?, d.operands.get(1)?);
    let k = match d.opcode {
        Opcode::ArithRemsi | Opcode::ArithRemui => m.int_constant(y)?,
        Opcode::ArithAndi => m.int_constant(y)?.checked_add(1).filter(|k| *k > 0 && k & (k - 1) == 0)?,
        _ => return None,
    };
    let (iv, c) = iv_plus(m, x, 0)?;
    (k >= 1).then_some((iv, c, k))
}

/// Every phase op (`(iv, k)`) in the arithmetic defining `v`; `false` when `v` uses an
/// induction variable other than through one (then it is not a rotation).
fn phases(m: &Module, v: ValueId, depth: u32, out: &mut Vec<(ValueId, i64)>) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    if let Some((iv, _, k)) = phase_op(m, v) {
        if !out.contains(&(iv, k)) {
            out.push((iv, k));
        }
        return true;
    }
    match m.values[v.index()].def {
        // An induction variable used other than through a phase op, or an argument.
        ValueDef::BlockArg(..) => false,
        ValueDef::OpResult(def, _) => {
            let d = m.op(def);
            if d.opcode == Opcode::ArithConstant {
                return true;
            }
            arith(d.opcode) && d.operands.iter().all(|&o| phases(m, o, depth + 1, out))
        }
    }
}

/// The integer ops the evaluator knows.
fn arith(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::ArithAddi
            | Opcode::ArithSubi
            | Opcode::ArithMuli
            | Opcode::ArithDivui
            | Opcode::ArithDivsi
            | Opcode::ArithRemsi
            | Opcode::ArithRemui
            | Opcode::ArithAndi
            | Opcode::ArithOri
            | Opcode::ArithShli
            | Opcode::ArithShrui
            | Opcode::ArithMaxsi
            | Opcode::ArithMinsi
            | Opcode::ArithSelect
            | Opcode::ArithCmpi
            | Opcode::ArithIndexCast
            | Opcode::ArithIndexCastui
            | Opcode::ArithExtui
            | Opcode::ArithExtsi
    )
}

/// The value of `v` in phase `r` of the rotation of induction variable `iv` with period `k`.
fn eval(m: &Module, v: ValueId, iv: ValueId, k: i64, r: i64, depth: u32) -> Option<i64> {
    if depth > MAX_DEPTH {
        return None;
    }
    if let Some(c) = m.int_constant(v) {
        return Some(c);
    }
    if let Some((piv, c, pk)) = phase_op(m, v) {
        return (piv == iv && pk == k).then(|| (r + c).rem_euclid(k));
    }
    let ValueDef::OpResult(def, _) = m.values[v.index()].def else { return None };
    let d = m.op(def);
    let mut x = Vec::with_capacity(d.operands.len());
    for &o in &d.operands {
        x.push(eval(m, o, iv, k, r, depth + 1)?);
    }
    let bin = |f: fn(i64, i64) -> Option<i64>| f(*x.first()?, *x.get(1)?);
    match d.opcode {
        Opcode::ArithAddi => bin(i64::checked_add),
        Opcode::ArithSubi => bin(i64::checked_sub),
        Opcode::ArithMuli => bin(i64::checked_mul),
        Opcode::ArithDivsi => bin(i64::checked_div),
        Opcode::ArithDivui => bin(|a, b| if a >= 0 && b > 0 { Some(a / b) } else { None }),
        Opcode::ArithRemsi => bin(i64::checked_rem),
        Opcode::ArithRemui => bin(|a, b| if a >= 0 && b > 0 { Some(a % b) } else { None }),
        Opcode::ArithAndi => bin(|a, b| Some(a & b)),
        Opcode::ArithOri => bin(|a, b| Some(a | b)),
        Opcode::ArithShli => bin(|a, b| u32::try_from(b).ok().and_then(|b| a.checked_shl(b))),
        Opcode::ArithShrui => bin(|a, b| if a >= 0 { u32::try_from(b).ok().and_then(|b| a.checked_shr(b)) } else { None }),
        Opcode::ArithMaxsi => bin(|a, b| Some(a.max(b))),
        Opcode::ArithMinsi => bin(|a, b| Some(a.min(b))),
        Opcode::ArithSelect => Some(if *x.first()? != 0 { *x.get(1)? } else { *x.get(2)? }),
        Opcode::ArithCmpi => {
            let (a, b) = (*x.first()?, *x.get(1)?);
            let Some(Attr::Opaque(p)) = d.attr("predicate") else { return None };
            Some(pto_ir::ops::cmpi_holds(p, a, b)? as i64)
        }
        Opcode::ArithIndexCast | Opcode::ArithIndexCastui | Opcode::ArithExtui | Opcode::ArithExtsi => x.first().copied(),
        _ => None,
    }
}

/// The rotation an address follows and its value in each phase `0..k` of it: `None` when the
/// address is not a function of exactly one loop's `(iv + c) mod k` (one `k`).
pub fn phased(m: &Module, addr: ValueId) -> Option<(Rotation, Vec<i64>)> {
    let mut found = Vec::new();
    if !phases(m, addr, 0, &mut found) {
        return None;
    }
    let [(iv, k)] = found.as_slice() else { return None };
    let lp = loop_of_iv(m, *iv)?;
    let k32 = u32::try_from(*k).ok().filter(|&k| (2..=8).contains(&k))?;
    let values = (0..*k).map(|r| eval(m, addr, *iv, *k, r, 0)).collect::<Option<Vec<_>>>()?;
    Some((Rotation { lp, k: k32 }, values))
}
