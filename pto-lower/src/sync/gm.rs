//! GM byte ranges for `insert-sync`: the bytes a view of a GM array covers (the window a `tload`
//! or `tstore` touches; pto-sim's checker takes the same window), as an affine start
//! (in loop induction variables and other values) and a length, so that two accesses of one
//! array conflict only where their ranges can meet. A loop that loads or stores one row of an
//! array per iteration touches rows that never meet, in one iteration or across iterations:
//! no barrier or flag pair for them (the whole array was one range before, so every store
//! of a loop waited for the one before it).
//!
//! A view is a `partition_view` (or `subview`) chain over a `make_tensor_view` with constant
//! positive strides: its elements lie in `[start, start + 1 + Σ (size_d - 1) · stride_d)`
//! (elements of the tensor), `start = Σ offset_d · stride_d` over the chain. An offset is
//! affine when it is built from constants with `arith.addi`, `arith.subi`, `arith.muli` by a
//! constant and index casts; any other value in it is a symbol. Anything else (a dynamic size
//! or stride, a view the pass cannot trace) has no span: the whole array.

use pto_ir::module::{Module, Payload, ValueDef, ValueId};
use pto_ir::ops::Opcode;

/// How deep [`affine`] looks through an offset's arithmetic.
const MAX_DEPTH: u32 = 32;

/// `c + Σ k · v`: terms sorted by value, no zero coefficient.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Affine {
    /// The constant.
    pub c: i64,
    /// Each symbol and its coefficient.
    pub terms: Vec<(ValueId, i64)>,
}

impl Affine {
    fn constant(c: i64) -> Affine {
        Affine { c, terms: Vec::new() }
    }

    fn symbol(v: ValueId) -> Affine {
        Affine { c: 0, terms: vec![(v, 1)] }
    }

    fn add(&self, o: &Affine) -> Option<Affine> {
        let mut terms = self.terms.clone();
        for &(v, k) in &o.terms {
            match terms.iter_mut().find(|(w, _)| *w == v) {
                Some((_, j)) => *j = j.checked_add(k)?,
                None => terms.push((v, k)),
            }
        }
        terms.retain(|&(_, k)| k != 0);
        terms.sort_by_key(|&(v, _)| v.index());
        Some(Affine { c: self.c.checked_add(o.c)?, terms })
    }

    fn scale(&self, k: i64) -> Option<Affine> {
        let terms = self.terms.iter().map(|&(v, j)| j.checked_mul(k).map(|j| (v, j))).collect::<Option<Vec<_>>>()?;
        let mut a = Affine { c: self.c.checked_mul(k)?, terms };
        a.terms.retain(|&(_, j)| j != 0);
        Some(a)
    }

    /// The coefficient of `v` (0 when it has none).
    pub fn coefficient(&self, v: ValueId) -> i64 {
        self.terms.iter().find(|(w, _)| *w == v).map_or(0, |&(_, k)| k)
    }
}

/// `v` as an affine expression ([`Affine`]); `None` when its arithmetic overflows.
pub fn affine(m: &Module, v: ValueId) -> Option<Affine> {
    affine_at(m, v, 0)
}

fn affine_at(m: &Module, v: ValueId, depth: u32) -> Option<Affine> {
    if let Some(c) = m.int_constant(v) {
        return Some(Affine::constant(c));
    }
    let ValueDef::OpResult(def, 0) = m.values[v.index()].def else { return Some(Affine::symbol(v)) };
    if depth > MAX_DEPTH {
        return Some(Affine::symbol(v));
    }
    let d = m.op(def);
    let sub = |x: ValueId| affine_at(m, x, depth + 1);
    match (d.opcode, d.operands.as_slice()) {
        (Opcode::ArithIndexCast | Opcode::ArithIndexCastui | Opcode::ArithExtsi | Opcode::ArithExtui, [x]) => sub(*x),
        (Opcode::ArithAddi, [x, y]) => sub(*x)?.add(&sub(*y)?),
        (Opcode::ArithSubi, [x, y]) => sub(*x)?.add(&sub(*y)?.scale(-1)?),
        (Opcode::ArithMuli, [x, y]) => match (m.int_constant(*x), m.int_constant(*y)) {
            (Some(k), _) => sub(*y)?.scale(k),
            (_, Some(k)) => sub(*x)?.scale(k),
            _ => Some(Affine::symbol(v)),
        },
        _ => Some(Affine::symbol(v)),
    }
}

/// The bytes a view covers: `[start, start + len)` bytes from the start of its array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// The first byte.
    pub start: Affine,
    /// Bytes from the first to one past the last.
    pub len: u64,
}

/// The span of the GM view `v` (module doc), if the pass can bound it.
pub fn view_span(m: &Module, v: ValueId) -> Option<Span> {
    let (start, strides, last) = elements(m, v, 0)?;
    let last = last?;
    let elem = i64::from(m.value_type(v).elem_type()?.size_bytes()).max(1);
    let len = u64::try_from(last.checked_add(1)?.checked_mul(elem)?).ok()?;
    Some(Span { start: start.scale(elem)?, len }).filter(|_| !strides.is_empty())
}

/// A view's first element (affine, in elements of its tensor), the tensor's strides, and the
/// offset of its last element from its first (`None`: not bounded, a tensor of dynamic shape).
fn elements(m: &Module, v: ValueId, depth: u32) -> Option<(Affine, Vec<i64>, Option<i64>)> {
    if depth > MAX_DEPTH {
        return None;
    }
    let ValueDef::OpResult(def, 0) = m.values[v.index()].def else { return None };
    let d = m.op(def);
    match (d.opcode, &d.payload) {
        (Opcode::MakeTensorView, Payload::Segments(segs)) => {
            let rank = *segs.get(1)? as usize;
            let shape = d.operands.get(1..rank.checked_add(1)?)?;
            let strides = d.operands.get(rank + 1..)?.iter().map(|&s| m.int_constant(s).filter(|&s| s > 0)).collect::<Option<Vec<_>>>()?;
            if strides.len() != rank {
                return None;
            }
            // The whole tensor: its last element from the shape, when constant.
            let last = shape.iter().zip(&strides).try_fold(0i64, |acc, (&n, &s)| {
                let n = m.int_constant(n).filter(|&n| n > 0)?;
                acc.checked_add(n.checked_sub(1)?.checked_mul(s)?)
            });
            Some((Affine::constant(0), strides, last))
        }
        (Opcode::PartitionView | Opcode::Subview, Payload::IndexLists(lists)) => {
            let (src, rest) = d.operands.split_first()?;
            let (base, strides, _) = elements(m, *src, depth + 1)?;
            let mut dynamic = rest.iter();
            let mut resolve = |e: &Option<i64>| match e {
                Some(c) => Some(Affine::constant(*c)),
                None => affine(m, *dynamic.next()?),
            };
            let offsets = lists.first()?.iter().map(&mut resolve).collect::<Option<Vec<_>>>()?;
            let sizes = lists.get(1)?.iter().map(&mut resolve).collect::<Option<Vec<_>>>()?;
            if offsets.len() != strides.len() || sizes.len() != strides.len() {
                return None;
            }
            let mut start = base;
            let mut last = 0i64;
            for ((o, n), &s) in offsets.iter().zip(&sizes).zip(&strides) {
                start = start.add(&o.scale(s)?)?;
                let n = Some(n.c).filter(|&c| c > 0 && n.terms.is_empty())?;
                last = last.checked_add(n.checked_sub(1)?.checked_mul(s)?)?;
            }
            Some((start, strides, Some(last)))
        }
        _ => None,
    }
}

/// How a symbol of two spans' starts relates between the earlier access and the later one.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Symbol {
    /// The same value in both.
    Same,
    /// The induction variable of the loop the dependence crosses: the later access is `δ`
    /// iterations on, `δ` from 1 to `max`.
    Advances {
        /// What the variable adds each iteration.
        step: i64,
        /// The most iterations apart two accesses can be (no bound: `None`).
        max: Option<u64>,
    },
    /// Any value in each.
    Free,
}

/// Whether the earlier access's span `a` and the later one's `b` may share a byte, each
/// symbol of their starts related as `class` says.
pub fn may_meet(a: &Span, b: &Span, class: impl Fn(ValueId) -> Symbol) -> bool {
    let d = i128::from(b.start.c) - i128::from(a.start.c);
    let mut advance: Option<(i128, Option<u64>)> = None;
    let mut symbols: Vec<ValueId> = a.start.terms.iter().chain(&b.start.terms).map(|&(v, _)| v).collect();
    symbols.sort_by_key(|v| v.index());
    symbols.dedup();
    for v in symbols {
        let (ka, kb) = (a.start.coefficient(v), b.start.coefficient(v));
        match class(v) {
            Symbol::Free if ka != 0 || kb != 0 => return true,
            Symbol::Free => {}
            _ if ka != kb => return true,
            Symbol::Same => {}
            Symbol::Advances { step, max } => {
                let g = i128::from(ka) * i128::from(step);
                match advance {
                    None => advance = Some((g, max)),
                    Some(_) => return true,
                }
            }
        }
    }
    let (la, lb) = (i128::from(a.len), i128::from(b.len));
    // Bytes meet at distance `d`: -lb < d < la.
    let meets = |d: i128| -lb < d && d < la;
    match advance {
        None => meets(d),
        Some((g, max)) => {
            let max = max.map_or(i128::MAX, i128::from);
            if max < 1 {
                return false;
            }
            if g == 0 {
                return meets(d);
            }
            // The smallest δ >= 1 with d + g·δ > -lb (g > 0; mirrored for g < 0).
            let (d, g, la, lb) = if g > 0 { (d, g, la, lb) } else { (-d, -g, lb, la) };
            let first = ((-lb - d).div_euclid(g) + 1).max(1);
            first <= max && d + g * first < la
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(c: i64, terms: &[(usize, i64)], len: u64) -> Span {
        Span { start: Affine { c, terms: terms.iter().map(|&(v, k)| (ValueId(v as u32), k)).collect() }, len }
    }

    #[test]
    fn rows_of_one_iteration_do_not_meet_and_the_same_row_does() {
        let same = |_| Symbol::Same;
        assert!(!may_meet(&span(0, &[(0, 4096)], 4096), &span(4096, &[(0, 4096)], 4096), same));
        assert!(may_meet(&span(0, &[(0, 4096)], 4096), &span(4095, &[(0, 4096)], 4096), same));
        // Different coefficients: the distance depends on the symbol.
        assert!(may_meet(&span(0, &[(0, 4096)], 4096), &span(8192, &[(0, 8192)], 4096), same));
    }

    #[test]
    fn a_later_iteration_meets_only_the_rows_it_reaches() {
        // Row 3k + 2 in iteration k, row 3k' in a later iteration k' (12,288 B a step of k).
        let across = |_| Symbol::Advances { step: 1, max: None };
        assert!(!may_meet(&span(8192, &[(0, 12288)], 4096), &span(0, &[(0, 12288)], 4096), across));
        // Row k + 1 read in iteration k, row k' written later: iteration k + 1 writes it.
        assert!(may_meet(&span(4096, &[(0, 4096)], 4096), &span(0, &[(0, 4096)], 4096), across));
        // Row k written in iteration k, row k' - 1 read later: iteration k + 1 reads it.
        assert!(may_meet(&span(0, &[(0, 4096)], 4096), &span(-4096, &[(0, 4096)], 4096), across));
        // Row k + 2 read, but the loop has two iterations only.
        let two = |_| Symbol::Advances { step: 1, max: Some(1) };
        assert!(!may_meet(&span(8192, &[(0, 4096)], 4096), &span(0, &[(0, 4096)], 4096), two));
        // A free symbol with a coefficient: anything.
        assert!(may_meet(&span(0, &[(1, 64)], 4), &span(4096, &[], 4), |_| Symbol::Free));
    }
}
