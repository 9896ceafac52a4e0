//! Executes A2A3 vector-level programs ([`pto_lower::vector::ir`]) on the Vec buffer.
//!
//! Semantics, per instruction: iterations run in order; within one iteration every source lane
//! is read before any destination lane is written (so overlapping operands behave as the
//! iterations of the hardware do, one after the other). A lane whose mask bit is 0 leaves its
//! destination bytes untouched. Every byte an operand touches must lie inside the tile it
//! names ([`Region`]): an access outside it is a fault ("out-of-tile access"), which is how a
//! scratch tile that is too small shows itself.
//!
//! Lane `l` of iteration `k` of an operand with block stride `b` and repeat stride `r` lives at
//! `addr + 32·(k·r + (l / epb)·b) + (l % epb)·size`, `epb = 32 / size`. Reductions within an
//! iteration add lanes as a tree (upper half onto lower half; the hardware's exact adder order is
//! not documented); the pto-isa CPU simulator adds sequentially, so float sums may differ in
//! the last bits.
//!
//! Instructions whose operands are contiguous (block stride 1, repeat stride 8, whole
//! iterations or counter mode) and whose destination is identical to or disjoint from each
//! source run as one typed loop over the run — the same result as lane by lane, much faster.

use crate::elem::Elem;
use crate::family;
use crate::memory::{Fault, Memory};
use crate::view::TileView;
use pto_ir::types::{ElemType, Loc, TileDesc};
use pto_lower::vector::ir::{self, BinKind, Instr, Mask, Op, Operand, Program, RedKind, Scalar, ScalarKind};

/// The vector unit's special registers.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct VectorState {
    /// CMPMASK, low and high words (bits of `vcmp`, or the mask address for `vsel` mode 2).
    pub cmpmask: (u64, u64),
}

/// Runs every instruction of `prog`.
pub fn execute(mem: &mut Memory, prog: &Program, st: &mut VectorState) -> Result<(), Fault> {
    for (n, i) in prog.instrs.iter().enumerate() {
        exec(mem, i, st).map_err(|f| Fault(format!("vector instruction {n} `{i}`: {}", f.0)))?;
    }
    Ok(())
}

/// Runs one instruction.
pub fn exec(mem: &mut Memory, i: &Instr, st: &mut VectorState) -> Result<(), Fault> {
    ir::check_instr(i).map_err(Fault)?;
    match i.op {
        Op::Copy { n_burst, len_burst, src_gap, dst_gap } => copy(mem, i, n_burst, len_burst, src_gap, dst_gap),
        Op::SetCmpMask => {
            let b = read_bytes(mem, &i.operands[0], i.operands[0].addr, 16)?;
            let word = |k: usize| u64::from_le_bytes(b[k..k + 8].try_into().unwrap_or([0; 8]));
            st.cmpmask = (word(0), word(8));
            Ok(())
        }
        Op::ScalarReduce { .. } => scalar_reduce(mem, i),
        Op::Convert { to } => {
            crate::dispatch!(i.dtype, T => crate::dispatch!(to, U => convert::<T, U>(mem, i), _ => Err(bad_type(to))), _ => Err(bad_type(i.dtype)))
        }
        _ => crate::dispatch!(i.dtype, T => lanes::<T>(mem, i, st), _ => Err(bad_type(i.dtype))),
    }
}

fn bad_type(t: ElemType) -> Fault {
    Fault(format!("no vector instruction operates on {} elements", t.name()))
}

/// Byte address of lane `l` of iteration `k`.
fn lane_addr(o: &Operand, k: u64, l: u64, es: u64) -> u64 {
    let epb = 32 / es;
    o.addr + 32 * (k * o.rep as u64 + (l / epb) * o.blk as u64) + (l % epb) * es
}

fn check(o: &Operand, addr: u64, len: u64) -> Result<(), Fault> {
    if o.region.contains(addr, len) {
        return Ok(());
    }
    let r = o.region;
    Err(Fault(format!(
        "out-of-tile access: `{}` bytes [{addr}, {}) are outside its tile [{}, {})",
        r.name,
        addr + len,
        r.start,
        r.start + r.len
    )))
}

fn read_bytes<'m>(mem: &'m Memory, o: &Operand, addr: u64, len: u64) -> Result<&'m [u8], Fault> {
    check(o, addr, len)?;
    mem.slice(Loc::Vec, addr, len as usize)
}

fn load<T: Elem>(mem: &Memory, o: &Operand, addr: u64) -> Result<T, Fault> {
    Ok(T::load(read_bytes(mem, o, addr, T::SIZE as u64)?))
}

fn store<T: Elem>(mem: &mut Memory, o: &Operand, addr: u64, v: T) -> Result<(), Fault> {
    check(o, addr, T::SIZE as u64)?;
    v.store(mem.slice_mut(Loc::Vec, addr, T::SIZE)?);
    Ok(())
}

/// Active lanes of iteration `k` (of `lanes`).
fn active(mask: Mask, k: u64, l: u64, lanes: u64) -> bool {
    match mask {
        Mask::Normal { hi, lo } => {
            if l < 64 {
                (lo >> l) & 1 == 1
            } else {
                (hi >> (l - 64)) & 1 == 1
            }
        }
        Mask::Counter(n) => k * lanes + l < n,
    }
}

fn scalar<T: Elem>(s: Scalar) -> Result<T, Fault> {
    match s {
        Scalar::Int(i) => Ok(T::from_i64(i)),
        Scalar::Float(f) => Ok(T::from_f64(f)),
        Scalar::Unknown => Err(Fault("scalar operand not known".into())),
    }
}

fn bin_op(k: BinKind) -> family::BinOp {
    use family::BinOp as B;
    match k {
        BinKind::Add => B::Add,
        BinKind::Sub => B::Sub,
        BinKind::Mul => B::Mul,
        BinKind::Div => B::Div,
        BinKind::Max => B::Max,
        BinKind::Min => B::Min,
        BinKind::And => B::And,
        BinKind::Or => B::Or,
    }
}

fn scalar_op(k: ScalarKind) -> family::BinOp {
    use family::BinOp as B;
    match k {
        ScalarKind::Add => B::Add,
        ScalarKind::Mul => B::Mul,
        ScalarKind::Max => B::Max,
        ScalarKind::Min => B::Min,
        ScalarKind::Shl => B::Shl,
        ScalarKind::Shr => B::Shr,
        ScalarKind::ShrRound => B::ShrRound,
    }
}

fn num(s: Scalar) -> Result<family::Num, Fault> {
    match s {
        Scalar::Int(i) => Ok(family::Num::I(i)),
        Scalar::Float(f) => Ok(family::Num::F(f)),
        Scalar::Unknown => Err(Fault("scalar operand not known".into())),
    }
}

fn bin<T: Elem>(k: BinKind, a: T, b: T) -> Result<T, Fault> {
    family::apply(bin_op(k), a, b)
}

fn with_scalar<T: Elem>(k: ScalarKind, a: T, s: Scalar) -> Result<T, Fault> {
    let op = scalar_op(k);
    if matches!(k, ScalarKind::Shl | ScalarKind::Shr | ScalarKind::ShrRound) {
        let n = match s {
            Scalar::Int(n) => n,
            Scalar::Float(f) => f as i64,
            Scalar::Unknown => return Err(Fault("shift amount not known".into())),
        };
        return family::shift(a, n, op);
    }
    family::apply(op, a, scalar::<T>(s)?)
}

fn fold<T: Elem>(k: RedKind, mut v: Vec<T>) -> Option<T> {
    (!v.is_empty()).then(|| fold_in_place(k, &mut v))
}

/// The lane-wise instructions.
fn lanes<T: Elem>(mem: &mut Memory, i: &Instr, st: &mut VectorState) -> Result<(), Fault> {
    if fast::<T>(mem, i)? {
        return Ok(());
    }
    let es = T::SIZE as u64;
    let lanes = i.lanes();
    let o = &i.operands;
    let mut writes: Vec<(u64, T)> = Vec::with_capacity(lanes as usize);
    for k in 0..i.iterations() {
        writes.clear();
        let addr = |n: usize, l: u64| lane_addr(&o[n], k, l, es);
        match i.op {
            Op::Reduce { kind, group } => {
                let groups = if group { 8 } else { 1 };
                let per = lanes / groups;
                for g in 0..groups {
                    let mut vals = Vec::with_capacity(per as usize);
                    for l in g * per..(g + 1) * per {
                        if active(i.mask, k, l, lanes) {
                            vals.push(load::<T>(mem, &o[1], addr(1, l))?);
                        }
                    }
                    if let Some(v) = fold(kind, vals) {
                        let at = if group { o[0].addr + 32 * k * o[0].rep as u64 + g * es } else { o[0].addr + k * o[0].rep as u64 * es };
                        writes.push((at, v));
                    }
                }
            }
            Op::CmpScalar(kind, s) => {
                let s = scalar::<T>(s)?;
                let bytes = lanes / 8;
                let base = o[0].addr + k * bytes;
                let mut bits = vec![0u8; bytes as usize];
                for l in 0..lanes {
                    if active(i.mask, k, l, lanes) && kind.test(load::<T>(mem, &o[1], addr(1, l))?, s) {
                        bits[(l / 8) as usize] |= 1 << (l % 8);
                    }
                }
                check(&o[0], base, bytes)?;
                mem.slice_mut(Loc::Vec, base, bytes as usize)?.copy_from_slice(&bits);
            }
            Op::Cmp(kind) => {
                let (mut lo, mut hi) = (0u64, 0u64);
                for l in 0..lanes {
                    if active(i.mask, k, l, lanes) && kind.test(load::<T>(mem, &o[0], addr(0, l))?, load::<T>(mem, &o[1], addr(1, l))?) {
                        if l < 64 { lo |= 1 << l } else { hi |= 1 << (l - 64) }
                    }
                }
                st.cmpmask = (lo, hi);
            }
            Op::Gather => {
                for l in 0..lanes {
                    if active(i.mask, k, l, lanes) {
                        let lane = k * lanes + l;
                        let off: u32 = load(mem, &o[1], o[1].addr + 4 * lane)?;
                        let v = load::<T>(mem, &o[2], o[2].addr + off as u64)?;
                        writes.push((o[0].addr + es * lane, v));
                    }
                }
            }
            _ => {
                for l in 0..lanes {
                    if !active(i.mask, k, l, lanes) {
                        continue;
                    }
                    let v = match i.op {
                        Op::Bin(kind) => bin(kind, load::<T>(mem, &o[1], addr(1, l))?, load::<T>(mem, &o[2], addr(2, l))?)?,
                        Op::Scalar(kind, s) => with_scalar(kind, load::<T>(mem, &o[1], addr(1, l))?, s)?,
                        Op::Dup(s) => scalar::<T>(s)?,
                        Op::Not => T::from_raw_bits(!load::<T>(mem, &o[1], addr(1, l))?.raw_bits()),
                        Op::Select { mode } => {
                            let bit = if mode == 0 {
                                active(Mask::Normal { lo: st.cmpmask.0, hi: st.cmpmask.1 }, 0, l, lanes)
                            } else {
                                let at = (st.cmpmask.0 & 0xffff_ffff) + k * (lanes / 8) + l / 8;
                                mem.slice(Loc::Vec, at, 1)?[0] >> (l % 8) & 1 == 1
                            };
                            load::<T>(mem, &o[if bit { 1 } else { 2 }], addr(if bit { 1 } else { 2 }, l))?
                        }
                        _ => return Err(Fault("not a lane-wise instruction".into())),
                    };
                    writes.push((addr(0, l), v));
                }
            }
        }
        for &(at, v) in &writes {
            store(mem, &o[0], at, v)?;
        }
    }
    Ok(())
}

/// The contiguous fast path; `false` when the instruction does not qualify.
fn fast<T: Elem>(mem: &mut Memory, i: &Instr) -> Result<bool, Fault> {
    let n = match i.mask {
        Mask::Counter(n) => n,
        Mask::Normal { hi, lo } if lo == u64::MAX && (i.lanes() <= 64 || hi == u64::MAX) => i.repeat as u64 * i.lanes(),
        _ => return Ok(false),
    };
    let contiguous = |o: &Operand| o.blk == 1 && o.rep == 8;
    let es = T::SIZE as u64;
    let o = &i.operands;
    let (dst_contig, src_range) = match i.op {
        Op::Bin(_) => (true, 1..3),
        Op::Scalar(..) | Op::Not => (true, 1..2),
        Op::Dup(_) => (true, 1..1),
        Op::Reduce { group: false, .. } => (false, 1..2),
        _ => return Ok(false),
    };
    if (dst_contig && !contiguous(&o[0])) || !o[src_range.clone()].iter().all(contiguous) {
        return Ok(false);
    }
    let span = |x: &Operand| x.addr..x.addr + n * es;
    for x in &o[src_range.clone()] {
        check(x, x.addr, n * es)?;
        let (d, s) = (span(&o[0]), span(x));
        if dst_contig && d != s && d.start < s.end && s.start < d.end {
            return Ok(false);
        }
    }
    if !o.iter().all(|x| x.addr as usize + n as usize * es as usize <= mem.buffer_mut(Loc::Vec).len()) {
        return Ok(false);
    }
    if dst_contig {
        check(&o[0], o[0].addr, n * es)?;
    }
    // A contiguous run is a 1 x n tile: the tile-level elementwise kernels do the work.
    let view =
        |x: &Operand| TileView { loc: Loc::Vec, addr: x.addr, desc: TileDesc::vec(i.dtype, 1, n as u32), vrows: 1, vcols: n as usize };
    match i.op {
        Op::Bin(kind) => family::binary(mem, bin_op(kind), &view(&o[1]), &view(&o[2]), &view(&o[0]))?,
        Op::Scalar(kind, s) => family::binary_scalar(mem, scalar_op(kind), &view(&o[1]), num(s)?, false, &view(&o[0]))?,
        Op::Not => family::unary(mem, family::UnOp::Not, &view(&o[1]), &view(&o[0]))?,
        Op::Dup(s) => family::fill(mem, num(s)?, &view(&o[0]))?,
        Op::Reduce { kind, .. } => {
            let lanes = i.lanes() as usize;
            let mut acc = [T::from_i64(0); 128];
            for (k, start) in (0..n as usize).step_by(lanes).enumerate() {
                let len = lanes.min(n as usize - start);
                let src = mem.slice(Loc::Vec, o[1].addr + (start as u64) * es, len * es as usize)?;
                match bytemuck::try_cast_slice::<u8, T>(src) {
                    Ok(typed) => acc[..len].copy_from_slice(typed),
                    Err(_) => {
                        for (j, a) in acc.iter_mut().take(len).enumerate() {
                            *a = T::load(&src[j * es as usize..]);
                        }
                    }
                }
                let v = fold_in_place(kind, &mut acc[..len]);
                let at = o[0].addr + k as u64 * o[0].rep as u64 * es;
                store(mem, &o[0], at, v)?;
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// [`fold`] over a scratch slice, without allocating. Sums add the upper half of the lanes onto
/// the lower half until one is left (a tree; the order of the hardware's adder tree is not
/// documented — this is the assumption, stated in `docs/vector.md`).
fn fold_in_place<T: Elem>(k: RedKind, v: &mut [T]) -> T {
    if k != RedKind::Sum {
        let f = if k == RedKind::Max { T::maximum } else { T::minimum };
        return v.iter().copied().reduce(f).unwrap_or(T::from_i64(0));
    }
    // A tree: the upper half is added onto the lower half until one lane is left.
    let mut len = v.len();
    while len > 1 {
        let upper = len.div_ceil(2);
        let (lo, hi) = v.split_at_mut(upper);
        for (a, b) in lo.iter_mut().zip(&hi[..len - upper]) {
            *a = a.add(*b);
        }
        len = upper;
    }
    v.first().copied().unwrap_or(T::from_i64(0))
}

/// `vconv`: element type `T` to `U` (floats to integers round half away from zero and
/// saturate).
fn convert<T: Elem, U: Elem>(mem: &mut Memory, i: &Instr) -> Result<(), Fault> {
    let lanes = i.lanes();
    let o = &i.operands;
    for k in 0..i.iterations() {
        let mut writes = Vec::with_capacity(lanes as usize);
        for l in 0..lanes {
            if active(i.mask, k, l, lanes) {
                let x = load::<T>(mem, &o[1], lane_addr(&o[1], k, l, T::SIZE as u64))?;
                let y = if T::FLOAT && !U::FLOAT {
                    U::from_f64(x.to_f64().round())
                } else if T::FLOAT {
                    U::from_f64(x.to_f64())
                } else {
                    U::from_i64(x.to_i64())
                };
                writes.push((lane_addr(&o[0], k, l, U::SIZE as u64), y));
            }
        }
        for (at, y) in writes {
            store(mem, &o[0], at, y)?;
        }
    }
    Ok(())
}

/// `copy_ubuf_to_ubuf`.
fn copy(mem: &mut Memory, i: &Instr, n_burst: u32, len: u32, src_gap: u32, dst_gap: u32) -> Result<(), Fault> {
    let (d, s) = (&i.operands[0], &i.operands[1]);
    let bytes = len as u64 * 32;
    for b in 0..n_burst as u64 {
        let from = s.addr + b * (len + src_gap) as u64 * 32;
        let to = d.addr + b * (len + dst_gap) as u64 * 32;
        let data = read_bytes(mem, s, from, bytes)?.to_vec();
        check(d, to, bytes)?;
        mem.slice_mut(Loc::Vec, to, bytes as usize)?.copy_from_slice(&data);
    }
    Ok(())
}

/// The scalar-pipe loop `dst[0] = src[0] op ... op src[n-1]` (wrapping integers).
pub fn scalar_reduce(mem: &mut Memory, i: &Instr) -> Result<(), Fault> {
    let Op::ScalarReduce { kind, n } = i.op else { return Err(Fault("not a scalar reduction".into())) };
    crate::dispatch!(i.dtype, T => {
        let (d, s) = (&i.operands[0], &i.operands[1]);
        let vals = (0..n as u64).map(|j| load::<T>(mem, s, s.addr + j * T::SIZE as u64)).collect::<Result<Vec<T>, _>>()?;
        let v = if kind == RedKind::Sum { vals.into_iter().reduce(|a, b| a.add(b)) } else { fold(kind, vals) };
        store(mem, d, d.addr, v.unwrap_or(T::from_i64(0)))
    }, _ => Err(bad_type(i.dtype)))
}
