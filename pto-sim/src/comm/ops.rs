//! Semantics of the communication instructions, as a table ([`SEMANTICS`]) the interpreter
//! looks up once per op (like [`crate::cores::ops`], whose context [`CoreCx`] they share).
//!
//! Every entry moves data between GM arrays of the ranks' symmetric memory (see
//! [`crate::comm`] for which copy an operand names), element by element in the row-major order
//! of the views. The UB staging tiles (`ping`, `pong`, `acc`) are how hardware moves the data;
//! the result does not depend on them, so the model does not use them.
//!
//! * `tput` / `tput_async`: local `src` → remote `dst` (`atomicType = atomic_add` adds);
//!   `tget` / `tget_async`: remote `src` → local `dst`. The async forms complete at issue (a
//!   legal schedule: completion is only promised by `wait_async_event`), their event and
//!   `wait_async_event` / `test_async_event` report completion (`true`).
//! * `tnotify`: `Set` or `AtomicAdd` the value to every signal of the remote view;
//!   `twait`: wait until every signal of the local view satisfies `signal cmp value` (the rank
//!   is suspended until another rank changes GM); `ttest`: that condition now, as `i1`.
//! * Collectives (the calling rank is the root; group member `k` is rank `k`'s buffer):
//!   `tbroadcast` copies the local `src` to every member; `tgather` concatenates the members
//!   into the local `dst` (member `k` at element `k * member size`, i.e. along rows);
//!   `tscatter` splits the local `src` into equal row blocks, block `k` to member `k`;
//!   `treduce` combines the members element-wise (`Sum`, `Max`, `Min`) into the local `dst`,
//!   starting from the root's member, then the others in order (pto-isa `TREDUCE_IMPL`).

use crate::cores::ops::{CoreCx, CoreSemantics, Stop};
use crate::cores::xpipe::Wait;
use crate::gm::{GmArray, GmView};
use crate::value::Val;
use pto_ir::ops::Opcode;
use pto_ir::types::{ElemType, Type};
use std::sync::OnceLock;

/// The ops between ranks.
pub const SEMANTICS: &[(Opcode, CoreSemantics)] = &[
    (Opcode::CommPut, put),
    (Opcode::TPutAsync, put),
    (Opcode::CommGet, get),
    (Opcode::TGetAsync, get),
    (Opcode::CommNotify, notify),
    (Opcode::CommWait, wait),
    (Opcode::CommTest, test),
    (Opcode::CommBroadcast, broadcast),
    (Opcode::CommGather, gather),
    (Opcode::CommScatter, scatter),
    (Opcode::CommReduce, reduce),
    (Opcode::BuildAsyncSession, session),
    (Opcode::WaitAsyncEvent, completed),
    (Opcode::TestAsyncEvent, completed),
];

/// The entry for `op`, if it is a comm op.
pub fn semantics(op: Opcode) -> Option<CoreSemantics> {
    static INDEX: OnceLock<Vec<Option<CoreSemantics>>> = OnceLock::new();
    let index = INDEX.get_or_init(|| crate::exec::opcode_index(&[SEMANTICS]));
    index.get(op as usize).copied().flatten()
}

/// Whether `op` is in [`SEMANTICS`] (for the interpreter's dispatch).
#[inline]
pub fn is_comm_op(op: Opcode) -> bool {
    matches!(op.spec().family, pto_ir::ops::Family::Comm | pto_ir::ops::Family::AsyncDma) && semantics(op).is_some()
}

/// Whether module `m` has an op between ranks (such a kernel runs on the rank machine even
/// with one rank, so a `twait` that never holds is a deadlock, not a trap).
pub fn uses_comm(m: &pto_ir::module::Module) -> bool {
    m.ops.iter().any(|d| is_comm_op(d.opcode))
}

/// Most elements one comm op moves (a guard against a runaway view shape).
const MAX_ELEMENTS: usize = 1 << 26;

/// The value of operand `i`.
fn operand(cx: &CoreCx<'_>, i: usize) -> Result<Val, Stop> {
    let data = cx.m.op(cx.op);
    let v = data.operands.get(i).ok_or_else(|| Stop::Fault(format!("missing operand {i}")))?;
    Ok(cx.vals[v.index()])
}

/// The GM view in operand `i`.
fn view(cx: &CoreCx<'_>, i: usize) -> Result<GmView, Stop> {
    match operand(cx, i)? {
        Val::View(v) => Ok(v),
        _ => Err(Stop::Fault(format!("operand {i} is not a GM view (`make_tensor_view` / `partition_view` of a pointer argument)"))),
    }
}

/// The integer in operand `i`.
fn int(cx: &CoreCx<'_>, i: usize) -> Result<i64, Stop> {
    match operand(cx, i)? {
        Val::Int(n) => Ok(n),
        Val::Float(f) => Ok(f as i64),
        _ => Err(Stop::Fault(format!("operand {i} is not a scalar"))),
    }
}

/// The value name of enum attribute `name` of kind `kind`, lower-cased.
fn enum_attr(cx: &CoreCx<'_>, name: &str, kind: &str) -> Option<String> {
    cx.m.op(cx.op).attrs.iter().find(|(k, _)| k == name).and_then(|(_, a)| a.enum_value(kind)).map(str::to_ascii_lowercase)
}

fn set_result(cx: &mut CoreCx<'_>, v: Val) {
    if let Some(&r) = cx.m.op(cx.op).results.first() {
        cx.vals[r.index()] = v;
    }
}

/// The element indices of `v` in row-major order of its shape.
fn indices(v: &GmView) -> Result<Vec<i64>, Stop> {
    let shape = &v.shape[..v.rank];
    let total = shape.iter().try_fold(1usize, |acc, &d| usize::try_from(d).ok().and_then(|d| acc.checked_mul(d)));
    let total = total.filter(|&t| t <= MAX_ELEMENTS).ok_or_else(|| Stop::Fault(format!("the view {shape:?} is too large to move")))?;
    let mut out = Vec::with_capacity(total);
    let mut at = vec![0i64; v.rank];
    for _ in 0..total {
        let off = at.iter().zip(&v.strides[..v.rank]).try_fold(v.offset, |acc, (&i, &s)| i.checked_mul(s).and_then(|x| acc.checked_add(x)));
        out.push(off.ok_or_else(|| Stop::Fault("a GM address overflows".into()))?);
        for d in (0..v.rank).rev() {
            at[d] += 1;
            if at[d] < shape[d] {
                break;
            }
            at[d] = 0;
        }
    }
    Ok(out)
}

/// What a comm instruction's GM access is for the happens-before model between ranks.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Use {
    /// Data: an access that conflicts with unordered accesses of other ranks.
    Data,
    /// A signal (`tnotify`, `twait`, `ttest`): a synchronisation object, never a hazard.
    Signal,
}

/// Reports a data access of elements `idx` of array `arg` (exactly those bytes) to the
/// happens-before model when sync checking is on ([`crate::sync::graph`]).
fn record(cx: &mut CoreCx<'_>, arg: usize, idx: &[i64], kind: crate::sync::graph::Kind) {
    if idx.is_empty() || !cx.check_gm {
        return;
    }
    let size = cx.gm.get(arg).map_or(1, |a| a.elem_size.max(1)) as u64;
    let bytes = crate::byteset::normalize(idx.iter().map(|&i| (i.max(0) as u64 * size, (i.max(0) as u64 + 1) * size)).collect());
    let name = name(cx, arg);
    // A transfer is the DMA pair it is (pto-isa `comm/a2a3/TPut.hpp`, `TGet.hpp`, the
    // collectives): a TLOAD of the source into a UB staging tile on MTE2, a TSTORE to the
    // destination on MTE3. A notify on the scalar pipe does not order them: pto-isa's kernels put
    // `pipe_barrier(PIPE_ALL)` between a put and its `tnotify` (on a core whose pipes are not
    // checked every pipe is the core's one actor, as before).
    let pipe = if kind == crate::sync::graph::Kind::Read { crate::sync::model::Pipe::Mte2 } else { crate::sync::model::Pipe::Mte3 };
    crate::cores::ops::gm_access(cx.m, cx.core, cx.op, pipe, arg, &bytes, kind, name.trim_start_matches('%'));
}

/// The bytes of elements `idx` of array `arg`.
fn read(cx: &mut CoreCx<'_>, arg: usize, idx: impl IntoIterator<Item = i64>, what: Use) -> Result<(ElemType, Vec<u8>), Stop> {
    let idx: Vec<i64> = idx.into_iter().collect();
    if what == Use::Data {
        record(cx, arg, &idx, crate::sync::graph::Kind::Read);
    }
    let (limit, rank) = (cx.gm_limit, cx.ranks.owner(arg));
    let a = array(cx.gm, arg)?;
    let mut out = Vec::new();
    for i in idx {
        out.extend_from_slice(a.element(i, limit).map_err(|f| on_rank(f, rank))?);
    }
    Ok((a.dtype, out))
}

/// How a write combines with what is there.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Combine {
    Store,
    Add,
    Max,
    Min,
}

/// Writes `bytes` (elements of `dtype`) to elements `idx` of array `arg`.
fn write(cx: &mut CoreCx<'_>, arg: usize, idx: &[i64], dtype: ElemType, bytes: &[u8], how: Combine, what: Use) -> Result<(), Stop> {
    if what == Use::Data {
        // An adding store of several ranks commutes: an atomic update, not a plain write.
        let kind = if how == Combine::Store { crate::sync::graph::Kind::Write } else { crate::sync::graph::Kind::Atomic };
        record(cx, arg, idx, kind);
    }
    let (limit, rank) = (cx.gm_limit, cx.ranks.owner(arg));
    let a = array(cx.gm, arg)?;
    if a.dtype != dtype {
        return Err(Stop::Fault(format!("`%{}` holds {}, the data is {dtype}", a.name, a.dtype)));
    }
    let size = a.elem_size;
    for (k, &i) in idx.iter().enumerate() {
        let src = &bytes[k * size..(k + 1) * size];
        let dst = a.element(i, limit).map_err(|f| on_rank(f, rank))?;
        combine(dtype, how, dst, src)?;
    }
    a.written = true;
    Ok(())
}

/// A GM fault, saying whose copy of the array it hit.
fn on_rank(f: crate::memory::Fault, rank: u32) -> Stop {
    Stop::Fault(format!("{} (rank {rank}'s copy)", f.0))
}

fn array(gm: &mut [GmArray], arg: usize) -> Result<&mut GmArray, Stop> {
    gm.get_mut(arg).ok_or_else(|| Stop::Fault(format!("GM array {arg} does not exist")))
}

/// `dst = dst (how) src` for one element.
fn combine(dtype: ElemType, how: Combine, dst: &mut [u8], src: &[u8]) -> Result<(), Stop> {
    if how == Combine::Store {
        dst.copy_from_slice(src);
        return Ok(());
    }
    crate::dispatch!(dtype, T => {
        use crate::elem::Elem;
        let (a, b) = (T::load(dst), T::load(src));
        let r = match how {
            Combine::Add => a.add(b),
            Combine::Max => Elem::maximum(a, b),
            Combine::Min => Elem::minimum(a, b),
            Combine::Store => b,
        };
        r.store(dst);
        Ok(())
    }, _ => Err(Stop::Fault(format!("{dtype} elements cannot be combined"))))
}

/// Another rank may be waiting for GM to change: wake the ranks (a version bump).
fn touched(cx: &CoreCx<'_>) {
    if let Some(link) = &cx.core.link {
        link.with_block(|_| ((), true));
    }
}

/// `%name@rank` of array `arg`.
fn name(cx: &CoreCx<'_>, arg: usize) -> String {
    let n = cx.gm.get(arg).map_or("?", |a| a.name.as_str());
    format!("%{n}@{}", cx.ranks.owner(arg))
}

/// `tput` / `tput_async` (remote `dst`) and `tget` / `tget_async` (remote `src`).
fn copy(cx: &mut CoreCx<'_>, remote_dst: bool) -> Result<(), Stop> {
    let (dst, src) = (view(cx, 0)?, view(cx, 1)?);
    let dst_arg = if remote_dst { cx.ranks.remote(dst.arg).0 } else { dst.arg };
    let src_arg = if remote_dst { src.arg } else { cx.ranks.remote(src.arg).0 };
    let (di, si) = (indices(&dst)?, indices(&src)?);
    if di.len() != si.len() {
        return Err(Stop::Fault(format!("`dst` has {} elements, `src` {}", di.len(), si.len())));
    }
    let how = if enum_attr(cx, "atomicType", "atomic_type").as_deref() == Some("atomic_add") { Combine::Add } else { Combine::Store };
    let (dtype, bytes) = read(cx, src_arg, si, Use::Data)?;
    write(cx, dst_arg, &di, dtype, &bytes, how, Use::Data)?;
    let verb = if how == Combine::Add { "added" } else { "copied" };
    let note = format!("{verb} {} element(s) of {} to {}", di.len(), name(cx, src_arg), name(cx, dst_arg));
    cx.notes.push(note);
    touched(cx);
    // The async forms' event: complete.
    set_result(cx, Val::Int(1));
    Ok(())
}

fn put(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    copy(cx, true)
}

fn get(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    copy(cx, false)
}

/// Writes `value` (`Set`) or adds it (`AtomicAdd`) to every signal of the remote view.
fn notify(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    let signal = view(cx, 0)?;
    let value = int(cx, 1)?;
    let arg = cx.ranks.remote(signal.arg).0;
    let how = match enum_attr(cx, "op", "notify_op").as_deref() {
        Some("atomicadd") => Combine::Add,
        Some("set") => Combine::Store,
        other => return Err(Stop::Fault(format!("`op` must be AtomicAdd or Set, found {other:?}"))),
    };
    let idx = indices(&signal)?;
    let dtype = array(cx.gm, arg)?.dtype;
    let one = crate::dispatch!(dtype, T => {
        use crate::elem::Elem;
        let mut b = vec![0u8; T::SIZE];
        T::from_i64(value).store(&mut b);
        b
    }, _ => return Err(Stop::Fault(format!("a signal of {dtype}"))));
    write(cx, arg, &idx, dtype, &one.repeat(idx.len()), how, Use::Signal)?;
    let verb = if how == Combine::Add { "added" } else { "set" };
    let note = format!("{verb} {value} to {} signal(s) of {}", idx.len(), name(cx, arg));
    cx.notes.push(note);
    // What this rank did so far happens before whatever its peer does after seeing the signal.
    signal_edge(cx, arg, true);
    touched(cx);
    Ok(())
}

/// Whether every signal of the local view in operand 0 satisfies `signal cmp operand 1`, and
/// a description of the condition.
fn condition(cx: &mut CoreCx<'_>) -> Result<(bool, String), Stop> {
    let signal = view(cx, 0)?;
    let value = int(cx, 1)?;
    let cmp = enum_attr(cx, "cmp", "cmp").ok_or_else(|| Stop::Fault("missing `cmp` attribute".into()))?;
    let idx = indices(&signal)?;
    let (dtype, bytes) = read(cx, signal.arg, idx, Use::Signal)?;
    let values: Vec<i64> = crate::dispatch!(dtype, T => {
        use crate::elem::Elem;
        bytes.chunks(T::SIZE).map(|c| T::load(c).to_i64()).collect()
    }, _ => return Err(Stop::Fault(format!("a signal of {dtype}"))));
    let holds = |s: i64| match cmp.as_str() {
        "eq" => Ok(s == value),
        "ne" => Ok(s != value),
        "lt" => Ok(s < value),
        "le" => Ok(s <= value),
        "gt" => Ok(s > value),
        "ge" => Ok(s >= value),
        other => Err(Stop::Fault(format!("unknown comparison `{other}`"))),
    };
    let mut all = true;
    for &s in &values {
        all &= holds(s)?;
    }
    let shown: Vec<String> = values.iter().take(4).map(i64::to_string).collect();
    let more = if values.len() > 4 { ", ..." } else { "" };
    let what = format!("{} {cmp} {value} (now [{}{more}])", name(cx, signal.arg), shown.join(", "));
    Ok((all, what))
}

/// The happens-before edge of a signal GM array: a notify releases into it, a wait (or a true
/// test) that sees it acquires it.
///
/// The notify is a scalar store (pto-isa `comm/a2a3/TNotify.hpp` `TNOTIFY_IMPL`: `st_atomic` to
/// the signal, its `pipe_barrier(PIPE_ALL)` only after it), so it releases what the scalar pipe
/// did and what flags ordered before it: a `tstore` (MTE3) before a notify needs an MTE3 -> S
/// flag (`TPUT_ASYNC` puts `pipe_barrier(PIPE_ALL)` before its `TNOTIFY_IMPL` for that reason).
/// The wait spins on the scalar unit (`TWAIT_IMPL`: a load loop with `pipe_barrier(PIPE_ALL)`),
/// which stops the issuer: everything after it is ordered after the notify, the whole core.
fn signal_edge(cx: &mut CoreCx<'_>, arg: usize, release: bool) {
    let (Some(link), me) = (cx.core.link.clone(), cx.core.index) else { return };
    let clock = cx.core.clock.clone();
    let edge = crate::sync::graph::Edge::Signal(arg);
    link.with_block(|b| {
        if release {
            b.release(me, Some(crate::sync::model::Pipe::S), edge, clock.as_ref());
        } else {
            b.acquire(me, None, edge, clock.as_ref());
        }
        ((), false)
    });
}

fn wait(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    let (ok, what) = condition(cx)?;
    if ok {
        cx.notes.push(format!("{what}: holds"));
        signal_edge(cx, view(cx, 0)?.arg, false);
        Ok(())
    } else {
        Err(Stop::Wait(Wait(format!("signal {what}"))))
    }
}

fn test(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    let (ok, what) = condition(cx)?;
    cx.notes.push(format!("{what}: {ok}"));
    if ok {
        signal_edge(cx, view(cx, 0)?.arg, false);
    }
    set_result(cx, Val::Int(i64::from(ok)));
    Ok(())
}

/// `(G, element count of one member, its 2-D shape)` of the group argument in operand 0, and
/// its GM array.
fn group(cx: &mut CoreCx<'_>) -> Result<(usize, usize, usize), Stop> {
    let data = cx.m.op(cx.op);
    let g = *data.operands.first().ok_or_else(|| Stop::Fault("missing group".into()))?;
    let Val::Ptr(arg) = cx.vals[g.index()] else {
        return Err(Stop::Fault("the group must be a kernel's `!pto.group<...>` argument".into()));
    };
    let Type::Opaque(text) = cx.m.value_type(g) else { return Err(Stop::Fault("the group is not a `!pto.group<...>`".into())) };
    let (n, rows, cols) = group_shape(text)
        .ok_or_else(|| Stop::Fault(format!("`{text}`: expected `!pto.group<Nx!pto.memref<SHAPExT>>` with static sizes")))?;
    // Every rank's buffer has the member's shape (its outputs keep it).
    for k in 0..n {
        let member = cx.ranks.member(arg, k).0;
        if let Some(a) = cx.gm.get_mut(member) {
            a.shape.get_or_insert((rows, cols));
        }
    }
    Ok((n, rows * cols, arg))
}

/// Members and the 2-D shape of a member (leading dimensions folded into rows) of
/// `!pto.group<4x!pto.memref<16x16xf32>>`.
pub fn group_shape(text: &str) -> Option<(usize, usize, usize)> {
    let rest = text.strip_prefix("!pto.group<")?.strip_suffix('>')?;
    let (n, member) = rest.split_once('x')?;
    let n: usize = n.trim().parse().ok()?;
    let shape = Type::Opaque(member.trim().to_string()).view_shape()?;
    let dims: Vec<usize> = shape.iter().map(|d| d.and_then(|d| usize::try_from(d).ok())).collect::<Option<_>>()?;
    let cols = dims.last().copied().unwrap_or(1);
    let rows = dims[..dims.len().saturating_sub(1)].iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))?;
    (n > 0 && rows.checked_mul(cols).is_some_and(|e| e <= MAX_ELEMENTS)).then_some((n, rows, cols))
}

fn broadcast(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    let (n, elems, arg) = group(cx)?;
    let src = view(cx, 1)?;
    let si = indices(&src)?;
    if si.len() != elems {
        return Err(Stop::Fault(format!("`src` has {} elements, a group member {elems}", si.len())));
    }
    let (dtype, bytes) = read(cx, src.arg, si, Use::Data)?;
    let all: Vec<i64> = (0..elems as i64).collect();
    for k in 0..n {
        let member = cx.ranks.member(arg, k).0;
        write(cx, member, &all, dtype, &bytes, Combine::Store, Use::Data)?;
    }
    cx.notes.push(format!("{} element(s) of {} to {n} member(s)", elems, name(cx, src.arg)));
    touched(cx);
    Ok(())
}

fn gather(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    let (n, elems, arg) = group(cx)?;
    let dst = view(cx, 1)?;
    let di = indices(&dst)?;
    if di.len() < n * elems {
        return Err(Stop::Fault(format!("`dst` has {} elements, the {n} members {}", di.len(), n * elems)));
    }
    for k in 0..n {
        let member = cx.ranks.member(arg, k).0;
        let (dtype, bytes) = read(cx, member, 0..elems as i64, Use::Data)?;
        write(cx, dst.arg, &di[k * elems..(k + 1) * elems], dtype, &bytes, Combine::Store, Use::Data)?;
    }
    cx.notes.push(format!("{n} member(s) of {elems} element(s) into {}", name(cx, dst.arg)));
    touched(cx);
    Ok(())
}

fn scatter(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    let (n, elems, arg) = group(cx)?;
    let src = view(cx, 1)?;
    let si = indices(&src)?;
    if si.len() < n * elems {
        return Err(Stop::Fault(format!("`src` has {} elements, the {n} members {}", si.len(), n * elems)));
    }
    let all: Vec<i64> = (0..elems as i64).collect();
    for k in 0..n {
        let (dtype, bytes) = read(cx, src.arg, si[k * elems..(k + 1) * elems].iter().copied(), Use::Data)?;
        let member = cx.ranks.member(arg, k).0;
        write(cx, member, &all, dtype, &bytes, Combine::Store, Use::Data)?;
    }
    cx.notes.push(format!("{} split into {n} member(s) of {elems} element(s)", name(cx, src.arg)));
    touched(cx);
    Ok(())
}

fn reduce(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    let (n, elems, arg) = group(cx)?;
    let dst = view(cx, 1)?;
    let di = indices(&dst)?;
    if di.len() != elems {
        return Err(Stop::Fault(format!("`dst` has {} elements, a group member {elems}", di.len())));
    }
    let how = match enum_attr(cx, "op", "reduce_op").as_deref() {
        Some("sum") => Combine::Add,
        Some("max") => Combine::Max,
        Some("min") => Combine::Min,
        other => return Err(Stop::Fault(format!("`op` must be Sum, Max or Min, found {other:?}"))),
    };
    // pto-isa `TREDUCE_IMPL`: the root's member first, then the others in order.
    let root = cx.ranks.me as usize;
    if root >= n {
        return Err(Stop::Fault(format!("the root (rank {root}) is not one of the group's {n} members")));
    }
    let (dtype, mut acc) = read(cx, cx.ranks.member(arg, root).0, 0..elems as i64, Use::Data)?;
    let size = dtype.size_bytes() as usize;
    for k in (0..n).filter(|&k| k != root) {
        let (_, next) = read(cx, cx.ranks.member(arg, k).0, 0..elems as i64, Use::Data)?;
        for (a, b) in acc.chunks_mut(size).zip(next.chunks(size)) {
            combine(dtype, how, a, b)?;
        }
    }
    write(cx, dst.arg, &di, dtype, &acc, Combine::Store, Use::Data)?;
    cx.notes.push(format!("{how:?} of {n} member(s) into {}", name(cx, dst.arg)));
    touched(cx);
    Ok(())
}

/// `build_async_session`: the session is a token; copies complete at issue.
fn session(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    set_result(cx, Val::Int(0));
    Ok(())
}

/// `wait_async_event` / `test_async_event`: every async copy completed at issue.
fn completed(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    set_result(cx, Val::Int(1));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_types_give_members_and_their_size() {
        assert_eq!(group_shape("!pto.group<4x!pto.memref<16x16xf32>>"), Some((4, 16, 16)));
        assert_eq!(group_shape("!pto.group<2x!pto.memref<f16, 2x8x4>>"), Some((2, 16, 4)));
        assert_eq!(group_shape("!pto.group<4x!pto.memref<?x16xf32>>"), None);
    }

    #[test]
    fn views_enumerate_row_major_with_strides() {
        let v = GmView::new(0, &[2, 3], &[10, 1]).unwrap();
        assert_eq!(indices(&v).unwrap(), [0, 1, 2, 10, 11, 12]);
    }
}
