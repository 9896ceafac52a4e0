//! Pass `insert-sync` (`pto lower --insert-sync`): orders the pipes of one core in a function
//! that has no explicit sync op (ptoas's rule: a function with one is left as written).
//!
//! 1. **Accesses.** Every memory op runs on the pipe [`pipes::pipe_of`] gives and reads/writes
//!    the bytes of its operands ([`pipes::operand_accesses`]): a tile is its `alloc_tile addr`
//!    range (a reshape or bitcast the bytes of its source), a tile whose address follows a
//!    loop's phase `(iv + c) mod k` one range per phase ([`rotate`]), a tile whose address is
//!    otherwise not a constant its whole buffer; a `memref.alloc` buffer bytes of its own (it
//!    is placed after every planned tile and never shares bytes with another alloc); a GM view
//!    the whole array its pointer argument names. A push reads the tile it sends, and on A2A3
//!    a pop writes the tile it receives on MTE2 ([`pipes::slot_tile`]).
//! 2. **Dependences.** Two ops conflict when they touch overlapping bytes, one writing. For
//!    each conflicting pair `A` (earlier) → `B`: a *forward* dependence at the deepest block
//!    holding both in different ops `A'` < `B'` (none when they sit in the two branches of one
//!    `scf.if`), and a *loop-carried* one in their innermost common `scf.for` when `A'` ≥ `B'`
//!    in its body (the back edge: `A` in iteration i, `B` in i + 1). For each `B`, the earlier
//!    ops of each pipe are visited nearest first, up to the first one a pair orders (which
//!    orders every earlier op of that pipe too). Loop-carried dependences come after every
//!    forward one, the tightest first. A dependence the pairs so far already order through a
//!    chain of pairs (across iterations too) gets none ([`Pairs::ordered`]).
//! 3. **Edges.** Different pipes: `set_flag` after `A'`, `wait_flag` before `B'`; pairs of
//!    one pipe pair in one block merge when their intervals intersect (set after the later
//!    `A'`, wait before the earlier `B'`). A loop-carried pair: a `set_flag` before the loop,
//!    `wait_flag` before `B'` in the body, `set_flag` after `A'`, `wait_flag` after the loop —
//!    balanced on every path, zero trips included; two of one loop and pipe pair merge only
//!    when their body intervals (wait to set) intersect, so each buffer a loop cycles through
//!    keeps its own. One pipe the target does not keep in order ([`pipes::needs_barrier`]):
//!    `barrier <P>` before `B'`.
//! 4. **Event ids** ([`ids`]): interval colouring per pipe pair, at most
//!    [`pipes::event_ids`]. A pair of a rotating buffer (all its conflicts in one phase) holds
//!    `k` ids and uses `base + iv mod k` (`set_flag_dyn` / `wait_flag_dyn`). Short of ids: the
//!    loop rotates no more, loop-carried pairs merge, a pair waits right after its set; only
//!    then a `barrier <PIPE_ALL>` before `B'`, with a warning when that is inside a loop.
//!
//! Cross-core orders (pipes between cube and vector cores, FFTS, `syncall`) are not this pass's
//! job. Each inserted pair and barrier is a `SYNC_INSERTED` note naming the two ops and the
//! bytes that force it (`--explain` shows them).

use super::gm;
use super::ids;
use super::pairs::{Pair, Pairs, Site};
use super::pipes;
use super::rotate::{self, Rotation};
use crate::pipeline::Changed;
use crate::target::{Target, TargetId};
use pto_ir::attr::{Attr, EnumAttr};
use pto_ir::diag::{DiagClass, Diagnostic, Diagnostics};
use pto_ir::module::{BlockId, Module, OpData, OpId, Payload, ValueDef, ValueId};
use pto_ir::ops::{Opcode, Pipe};
use pto_ir::types::Loc;
use std::collections::HashMap;

/// Where bytes live.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Space {
    /// An on-chip buffer.
    Local(Loc),
    /// The GM array a pointer value names.
    Gm(ValueId),
    /// Some GM array (the view's pointer could not be traced, a `memref` operand).
    AnyGm,
    /// Memory the pass cannot place (an operand of a type it does not know): anything.
    Unknown,
    /// The buffer of one `memref.alloc` in a buffer: placed after every tile with a constant
    /// address and after the other allocs (pto-sim's `cores::topology`, a bump allocator that
    /// never reuses bytes), so it overlaps only itself and accesses of the whole buffer.
    Alloc(Loc, OpId),
}

/// One access of one op.
#[derive(Clone, Debug)]
struct Access {
    space: Space,
    start: u64,
    end: u64,
    write: bool,
    /// For a rotating buffer ([`rotate`]): the rotation and the phase these bytes belong to.
    phase: Option<(Rotation, u32)>,
    /// For a view of a GM array: the bytes it covers, where the pass can bound them ([`gm`]).
    span: Option<gm::Span>,
}

/// Which executions of two ops a dependence relates.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Rel {
    /// The same iteration of every loop holding both: rotating buffers are in one phase.
    Same,
    /// Different iterations of this loop (the same of the loops around it).
    Across(OpId),
    /// Any executions (phases ignored).
    Any,
}

impl Access {
    /// Whether the two accesses (`self` the earlier) may touch the same bytes, one writing, in
    /// executions `rel`; `scope` relates the symbols of two GM spans.
    fn conflicts(&self, o: &Access, rel: Rel, scope: &Scope) -> bool {
        if let (Some((r1, p)), Some((r2, q))) = (self.phase, o.phase)
            && r1 == r2
            && p != q
            && (rel == Rel::Same || matches!(rel, Rel::Across(l) if l != r1.lp))
        {
            return false;
        }
        if let (Some(a), Some(b)) = (&self.span, &o.span)
            && self.space == o.space
            && !scope.relations(rel).into_iter().any(|rel| gm::may_meet(a, b, |v| scope.symbol(v, rel)))
        {
            return false;
        }
        self.overlaps(o)
    }
    fn overlaps(&self, o: &Access) -> bool {
        let whole = |a: &Access| a.start == 0 && a.end == u64::MAX;
        let same = match (self.space, o.space) {
            (Space::Alloc(_, a), Space::Alloc(_, b)) => a == b,
            (Space::Alloc(l, _), Space::Local(k)) => l == k && whole(o),
            (Space::Local(k), Space::Alloc(l, _)) => l == k && whole(self),
            (Space::Local(a), Space::Local(b)) => a == b,
            (Space::Gm(a), Space::Gm(b)) => a == b,
            (Space::Gm(_) | Space::AnyGm, Space::Gm(_) | Space::AnyGm) => true,
            (Space::Unknown, _) | (_, Space::Unknown) => true,
            _ => false,
        };
        same && (self.write || o.write) && self.start < o.end && o.start < self.end
    }
    fn describe(&self, m: &Module) -> String {
        let range = if self.end == u64::MAX { String::new() } else { format!("[{}..{})", self.start, self.end) };
        match self.space {
            Space::Local(l) => format!("{}{range}", l.name()),
            Space::Gm(p) => format!("GM %{}", m.values[p.index()].name),
            Space::AnyGm => "GM".into(),
            Space::Unknown => "memory".into(),
            Space::Alloc(l, _) => format!("{} buffer of a memref.alloc", l.name()),
        }
    }
}

/// A memory op: its pipe and accesses.
struct MemOp {
    op: OpId,
    pipe: Pipe,
    accesses: Vec<Access>,
}

/// The bytes of a tile: one range, or one per phase of a rotating buffer.
enum Bytes {
    /// `[start, end)` (`end` `u64::MAX`: the whole buffer).
    Range(u64, u64),
    /// The start address in each phase of the rotation, and the size.
    Phased(Rotation, Vec<u64>, u64),
}

/// The bytes of a tile value: its `alloc_tile` address range, through reshapes and bitcasts; an
/// address chosen by a loop's phase ([`rotate::phased`]) one range per phase.
fn tile_bytes(m: &Module, v: ValueId) -> Option<(Loc, Bytes)> {
    let desc = *m.value_type(v).tile()?;
    let size = desc.size_bytes();
    let whole = Some((desc.loc, Bytes::Range(0, u64::MAX)));
    let ValueDef::OpResult(def, 0) = m.values[v.index()].def else { return whole };
    let data = m.op(def);
    match data.opcode {
        Opcode::AllocTile => {
            let addr = match &data.payload {
                Payload::Segments(segs) if segs.first() == Some(&1) => data.operands.first().copied(),
                _ => None,
            };
            let Some(addr) = addr else { return whole };
            if let Some(a) = m.int_constant(addr).and_then(|a| u64::try_from(a).ok()) {
                return Some((desc.loc, Bytes::Range(a, a + size)));
            }
            match rotate::phased(m, addr) {
                Some((rot, starts)) => match starts.into_iter().map(u64::try_from).collect::<Result<Vec<_>, _>>() {
                    Ok(starts) => Some((desc.loc, Bytes::Phased(rot, starts, size))),
                    Err(_) => whole,
                },
                None => whole,
            }
        }
        Opcode::TReshape | Opcode::Bitcast => match data.operands.first().and_then(|&s| tile_bytes(m, s)) {
            Some((loc, Bytes::Range(a, e))) if e != u64::MAX => Some((loc, Bytes::Range(a, a + size))),
            Some((loc, Bytes::Phased(rot, starts, _))) => Some((loc, Bytes::Phased(rot, starts, size))),
            _ => whole,
        },
        _ => whole,
    }
}

/// The GM array a view value comes from: the pointer `make_tensor_view` takes.
fn view_root(m: &Module, v: ValueId) -> Space {
    let ValueDef::OpResult(def, _) = m.values[v.index()].def else { return Space::AnyGm };
    let data = m.op(def);
    match (data.opcode, data.operands.first()) {
        (Opcode::PartitionView | Opcode::Subview, Some(&src)) => view_root(m, src),
        (Opcode::MakeTensorView, Some(&ptr)) if matches!(m.values[ptr.index()].def, ValueDef::BlockArg(..)) => Space::Gm(ptr),
        _ => Space::AnyGm,
    }
}

fn mem_op(m: &Module, op: OpId, target: TargetId) -> Option<MemOp> {
    if !pipes::is_memory_op(m.op(op).opcode) {
        return None;
    }
    let tmp = pipes::tmp_of(m, op);
    let loc = |v: ValueId| m.value_type(v).tile().map(|t| t.loc).or_else(|| pipes::memref_loc(m.value_type(v)));
    let pipe = pipes::pipe_of(m, op, target, tmp.is_some(), &loc)?;
    let mut accesses = Vec::new();
    pipes::operand_accesses(m, op, target, tmp, |v, write| {
        let alloc = match m.values[v.index()].def {
            ValueDef::OpResult(def, 0) if m.op(def).opcode == Opcode::MemrefAlloc => Some(def),
            _ => None,
        };
        let loc = m.value_type(v).tile().map(|t| t.loc).or_else(|| pipes::memref_loc(m.value_type(v)));
        if let (Some(def), Some(loc)) = (alloc, loc) {
            accesses.push(Access { space: Space::Alloc(loc, def), start: 0, end: u64::MAX, write, phase: None, span: None });
        } else if let Some((loc, bytes)) = tile_bytes(m, v) {
            let space = Space::Local(loc);
            match bytes {
                Bytes::Range(start, end) => accesses.push(Access { space, start, end, write, phase: None, span: None }),
                Bytes::Phased(rot, starts, size) => accesses.extend((0u32..).zip(starts).map(|(r, start)| Access {
                    space,
                    start,
                    end: start + size,
                    write,
                    phase: Some((rot, r)),
                    span: None,
                })),
            }
        } else {
            use pto_ir::types::Type;
            let ty = m.value_type(v);
            let space = match ty {
                // A `memref.alloc` buffer: placed after plan-memory's tiles, its address unknown here.
                Type::Opaque(_) if pipes::memref_loc(ty).is_some() => pipes::memref_loc(ty).map_or(Space::Unknown, Space::Local),
                // A GM `memref` argument is its own array; one computed from it could be any.
                Type::Opaque(_) if pipes::is_gm_memref(ty) => match m.values[v.index()].def {
                    ValueDef::BlockArg(..) => Space::Gm(v),
                    _ => Space::AnyGm,
                },
                Type::TensorView(..) | Type::PartitionView(..) => view_root(m, v),
                Type::Memref(..) | Type::Global(..) | Type::Ptr(_) => Space::AnyGm,
                Type::Opaque(_) => Space::Unknown,
                _ => return,
            };
            // `tload`/`tstore` touch their view's window; another op taking a view (`mgather`,
            // `mscatter`, `tprint`) may touch any byte of the array (pto-sim's checker agrees).
            let windowed = matches!(m.op(op).opcode, Opcode::TLoad | Opcode::TStore);
            let span = (windowed && matches!(space, Space::Gm(_))).then(|| gm::view_span(m, v)).flatten();
            accesses.push(Access { space, start: 0, end: u64::MAX, write, phase: None, span });
        }
    });
    Some(MemOp { op, pipe, accesses })
}

/// Where an op sits: for each enclosing op, from the function body down, the (block, index)
/// of the ancestor at that level, and the op holding that block.
struct Tree {
    /// Parent op of each op (none at function level).
    parent: HashMap<OpId, OpId>,
    /// (block, index in block) of each op.
    slot: HashMap<OpId, (BlockId, usize)>,
    /// Which region of its parent each block is in.
    region_of: HashMap<BlockId, usize>,
    /// Walk position of each op and of its last descendant.
    span: HashMap<OpId, (usize, usize)>,
    /// The op each nested block belongs to (the function body has none).
    owner: HashMap<BlockId, OpId>,
}

impl Tree {
    fn new(m: &Module, body: BlockId) -> Tree {
        let mut t =
            Tree { parent: HashMap::new(), slot: HashMap::new(), region_of: HashMap::new(), span: HashMap::new(), owner: HashMap::new() };
        let mut pos = 0;
        t.visit(m, body, None, &mut pos);
        t
    }
    fn visit(&mut self, m: &Module, block: BlockId, parent: Option<OpId>, pos: &mut usize) {
        for (i, &op) in m.block(block).ops.iter().enumerate() {
            self.slot.insert(op, (block, i));
            if let Some(p) = parent {
                self.parent.insert(op, p);
            }
            let start = *pos;
            *pos += 1;
            for (ri, &r) in m.op(op).regions.iter().enumerate() {
                for &b in &m.region(r).blocks {
                    self.region_of.insert(b, ri);
                    self.owner.insert(b, op);
                    self.visit(m, b, Some(op), pos);
                }
            }
            self.span.insert(op, (start, *pos - 1));
        }
    }
    /// The ancestors of `op` from the outermost, `op` last.
    fn chain(&self, op: OpId) -> Vec<OpId> {
        let mut c = vec![op];
        while let Some(&p) = self.parent.get(c.last().unwrap_or(&op)) {
            c.push(p);
        }
        c.reverse();
        c
    }
}

/// Two ops of a dependence, `x` the earlier: how a symbol of their GM spans' starts relates
/// between `x`'s execution and `y`'s ([`gm::Symbol`]).
struct Scope<'a> {
    m: &'a Module,
    tree: &'a Tree,
    x: OpId,
    y: OpId,
}

impl Scope<'_> {
    /// The relations `rel` stands for between two GM spans: across iterations of loop `l`, `y`
    /// may also come in a later iteration of any loop holding `l` and both ops (where `l` starts
    /// again: a row one pass of `l` writes, the next pass may read at another iteration).
    fn relations(&self, rel: Rel) -> Vec<Rel> {
        let Rel::Across(l) = rel else { return vec![rel] };
        let cy = self.tree.chain(self.y);
        let mut loops: Vec<Rel> = self
            .tree
            .chain(l)
            .into_iter()
            .filter(|op| cy.contains(op) && matches!(self.m.op(*op).opcode, Opcode::ScfFor | Opcode::ScfWhile))
            .map(Rel::Across)
            .collect();
        loops.reverse();
        loops
    }

    /// `v` is the same in both executions when it is defined where both ops are and, across
    /// iterations of loop `l`, outside `l`; `l`'s induction variable advances by its step;
    /// anything else is free. With `Rel::Any` only values of the function's top level are the
    /// same.
    fn symbol(&self, v: ValueId, rel: Rel) -> gm::Symbol {
        use gm::Symbol;
        let (m, tree) = (self.m, self.tree);
        let owner = match m.values[v.index()].def {
            ValueDef::BlockArg(block, _) => tree.owner.get(&block).copied(),
            ValueDef::OpResult(def, _) => tree.parent.get(&def).copied(),
        };
        let encloses = |op: OpId| owner.is_none_or(|o| tree.chain(op).contains(&o));
        if !encloses(self.x) || !encloses(self.y) {
            return Symbol::Free;
        }
        match rel {
            Rel::Same => Symbol::Same,
            Rel::Any => {
                if owner.is_none() {
                    Symbol::Same
                } else {
                    Symbol::Free
                }
            }
            Rel::Across(l) => {
                let body = m.op(l).regions.first().and_then(|&r| m.region(r).blocks.first().copied());
                if matches!(m.values[v.index()].def, ValueDef::BlockArg(b, 0) if Some(b) == body) && m.op(l).opcode == Opcode::ScfFor {
                    let [lb, ub, step] = [0, 1, 2].map(|i| m.op(l).operands.get(i).and_then(|&c| m.int_constant(c)));
                    let Some(step) = step.filter(|&s| s > 0) else { return Symbol::Free };
                    let max = lb.zip(ub).and_then(|(lb, ub)| u64::try_from(ub.checked_sub(lb)?.checked_add(step - 1)? / step).ok());
                    Symbol::Advances { step, max: max.map(|trips| trips.saturating_sub(1)) }
                } else if owner.is_some_and(|o| tree.chain(o).contains(&l)) {
                    Symbol::Free
                } else {
                    Symbol::Same
                }
            }
        }
    }
}

/// Finds where the dependence `a` → `b` (`a` earlier in iteration order) is ordered, and in
/// which executions the two conflict: `None` when it cannot happen (two branches of one
/// `scf.if`, or `a` == `b` outside any loop). A loop-carried dependence (`carried`: `a` in an
/// iteration, `b` in a later one of their innermost common loop) whose `a` comes first in the
/// body is ordered by a forward pair in that iteration (`b`'s later executions come after its
/// wait on its pipe), which exists only if this finds it: the two may touch different bytes
/// in one iteration (the next row, the other buffer) and the same ones across iterations.
fn site_of(m: &Module, tree: &Tree, a: OpId, b: OpId, carried: bool) -> Option<(Site, Rel)> {
    let (ca, cb) = (tree.chain(a), tree.chain(b));
    let mut level = 0;
    let mut innermost_loop: Option<usize> = None;
    loop {
        let (pa, pb) = (*ca.get(level)?, *cb.get(level)?);
        let (block, ia) = tree.slot[&pa];
        let (_, ib) = tree.slot[&pb];
        if pa != pb {
            if ia < ib {
                let rel = if carried { Rel::Across(ca[innermost_loop?]) } else { Rel::Same };
                return Some((Site::Forward(block, ia, ib), rel));
            }
            break;
        }
        if m.op(pa).opcode == Opcode::ScfWhile {
            let (block, ib) = tree.slot[&b];
            return Some((Site::Fence(block, ib), Rel::Any));
        }
        // Same op at this level: descend into the region holding both, if it is one.
        let (Some(&na), Some(&nb)) = (ca.get(level + 1), cb.get(level + 1)) else { break };
        let (ba, _) = tree.slot[&na];
        let (bb, _) = tree.slot[&nb];
        if tree.region_of.get(&ba) != tree.region_of.get(&bb) {
            break;
        }
        if m.op(pa).opcode == Opcode::ScfFor {
            innermost_loop = Some(level);
        }
        level += 1;
    }
    if !carried {
        return None;
    }
    // Loop-carried: in the innermost common loop's body, `a`'s ancestor at or after `b`'s.
    let l = innermost_loop?;
    let (loop_op, na, nb) = (ca[l], ca[l + 1], cb[l + 1]);
    let (body, ia) = tree.slot[&na];
    let (_, ib) = tree.slot[&nb];
    (ia >= ib).then_some((Site::Carried(loop_op, body, ia, ib), Rel::Across(loop_op)))
}

/// The pass: for each function without an explicit sync op.
pub fn run(m: &mut Module, target: &Target, notes: &mut Diagnostics) -> Result<Changed, Diagnostics> {
    let funcs: Vec<OpId> = m.walk().into_iter().filter(|&op| m.op(op).opcode == Opcode::FuncFunc && !m.op(op).regions.is_empty()).collect();
    let mut changed = Changed::No;
    for f in funcs {
        let Some(&body) = m.region(m.op(f).regions[0]).blocks.first() else { continue };
        let tree = Tree::new(m, body);
        if tree.slot.keys().any(|&op| pipes::is_explicit_sync(m.op(op).opcode)) {
            continue;
        }
        if insert_in(m, target, body, &tree, notes) {
            changed = Changed::Yes;
        }
    }
    Ok(changed)
}

/// Inserts the sync of one function body; whether it inserted anything.
fn insert_in(m: &mut Module, target: &Target, body: BlockId, tree: &Tree, notes: &mut Diagnostics) -> bool {
    let mut order: Vec<(usize, OpId)> = tree.span.iter().map(|(&op, &(s, _))| (s, op)).collect();
    order.sort();
    let mems: Vec<MemOp> = order.iter().filter_map(|&(_, op)| mem_op(m, op, target.id)).collect();
    let walk_pos: Vec<usize> = mems.iter().map(|x| tree.span[&x.op].0).collect();
    let mut pairs = Pairs::default();
    let mut carried: Vec<(Site, Rel, usize, usize)> = Vec::new();
    // Earlier memory ops of each pipe, in program order.
    let mut by_pipe: Vec<(Pipe, Vec<usize>)> = Vec::new();
    // Loop-carried dependences after every forward one in their loop, the tightest first (the
    // fewest ops from `A` around the back edge to `B`): a pair for those orders the looser
    // ones through the forward pairs (a store's slot freed for the next load orders the
    // compute before it too), and their chains are found. They are decided as the walk leaves
    // their loop, so that the forward dependences from inside it to after it find the chains
    // through its pairs ([`Pairs::ordered_through_loop`]); a dependence of no loop (a while
    // loop's fence) at the end.
    let distance = |site: &Site| match *site {
        Site::Carried(_, body, ia, ib) => m.block(body).ops.len() - (ia - ib),
        // `A` before `B` in the body: a whole iteration and more apart, after every other.
        Site::Forward(block, ia, ib) => m.block(block).ops.len() + (ib - ia),
        _ => 0,
    };
    let loop_end = |site: &Site, rel: &Rel| match (site, rel) {
        (Site::Carried(l, ..), _) | (_, Rel::Across(l)) => tree.span[l].1,
        _ => usize::MAX,
    };
    let decide = |due: &mut Vec<(Site, Rel, usize, usize)>, pairs: &mut Pairs| {
        due.sort_by_key(|(site, ..)| distance(site));
        for (site, rel, x, y) in due.drain(..) {
            consider_at(m, tree, &mems[x], &mems[y], site, rel, pairs);
        }
    };
    let mut first_end = usize::MAX;
    for (j, b) in mems.iter().enumerate() {
        if walk_pos[j] > first_end {
            let (mut due, rest): (Vec<_>, Vec<_>) = carried.drain(..).partition(|(site, rel, ..)| walk_pos[j] > loop_end(site, rel));
            carried = rest;
            first_end = carried.iter().map(|(site, rel, ..)| loop_end(site, rel)).min().unwrap_or(usize::MAX);
            decide(&mut due, &mut pairs);
        }
        // Within one iteration: per pipe, back to the nearest earlier op the pass orders before
        // `b` (a flag pair or barrier waits before `b`'s op and is set after that one, so it
        // orders every earlier op of that pipe too; an in-order pipe orders its own ops). The
        // nearest pipe first, so that a dependence ordered through another pipe's pairs (A -> B
        // and B -> C order A -> C) finds them.
        let mut heads: Vec<(usize, usize)> = by_pipe
            .iter()
            .filter(|(pipe, _)| *pipe != b.pipe || pipes::needs_barrier(target.id, b.pipe))
            .map(|(_, list)| (list.len(), 0))
            .collect();
        let lists: Vec<&Vec<usize>> =
            by_pipe.iter().filter(|(pipe, _)| *pipe != b.pipe || pipes::needs_barrier(target.id, b.pipe)).map(|(_, l)| l).collect();
        // (next index into its list, counted from the end) per pipe; take the latest op first.
        while let Some(k) = (0..lists.len()).filter(|&k| heads[k].0 > 0).max_by_key(|&k| lists[k][heads[k].0 - 1]) {
            heads[k].0 -= 1;
            if consider(m, target, tree, &mems[lists[k][heads[k].0]], b, &mut pairs) {
                heads[k].0 = 0;
            }
        }
        // Across iterations: every op of `b`'s outermost loop up to `b`, ordered below.
        if let Some(&lp) = tree.chain(b.op).iter().find(|&&op| matches!(m.op(op).opcode, Opcode::ScfFor | Opcode::ScfWhile)) {
            let first = walk_pos.partition_point(|&p| p < tree.span[&lp].0);
            for i in first..=j {
                for (x, y) in [(i, j), (j, i)].into_iter().take(if i == j { 1 } else { 2 }) {
                    if let Some((site, rel)) =
                        may_conflict(m, tree, target, &mems[x], &mems[y]).then(|| site_of(m, tree, mems[x].op, mems[y].op, true)).flatten()
                    {
                        first_end = first_end.min(loop_end(&site, &rel));
                        carried.push((site, rel, x, y));
                    }
                }
            }
        }
        match by_pipe.iter_mut().find(|(p, _)| *p == b.pipe) {
            Some((_, list)) => list.push(j),
            None => by_pipe.push((b.pipe, vec![j])),
        }
    }
    decide(&mut carried, &mut pairs);
    let mut pairs = pairs.list;
    if pairs.is_empty() {
        return false;
    }
    ids::allocate(m, target, &tree.span, &mut pairs);
    materialise(m, target, body, tree, &pairs, notes);
    true
}

/// Whether `x` and `y` may need ordering: they touch common bytes, one writing, on different
/// pipes or on one the target does not keep in order.
fn may_conflict(m: &Module, tree: &Tree, target: &Target, x: &MemOp, y: &MemOp) -> bool {
    let scope = Scope { m, tree, x: x.op, y: y.op };
    (x.pipe != y.pipe || pipes::needs_barrier(target.id, x.pipe))
        && x.accesses.iter().any(|a| y.accesses.iter().any(|b| a.conflicts(b, Rel::Any, &scope)))
}

/// The dependence `x` → `y` in one iteration: adds the pair or barrier that orders it;
/// whether one does (a flag pair or barrier in the block holding both: every earlier op of
/// `x`'s pipe is then ordered too).
fn consider(m: &Module, target: &Target, tree: &Tree, x: &MemOp, y: &MemOp, pairs: &mut Pairs) -> bool {
    if !may_conflict(m, tree, target, x, y) {
        return false;
    }
    let Some((site, rel)) = site_of(m, tree, x.op, y.op, false) else { return false };
    consider_at(m, tree, x, y, site, rel, pairs) && !matches!(site, Site::Carried(..))
}

/// The dependence `x` → `y` in executions `rel`, ordered at `site`: nothing when it cannot
/// happen or the pairs so far order it through a chain ([`Pairs::ordered`]), else the pair
/// that orders it; whether it is ordered.
fn consider_at(m: &Module, tree: &Tree, x: &MemOp, y: &MemOp, site: Site, rel: Rel, pairs: &mut Pairs) -> bool {
    let Some((rot, bytes)) = dependence(m, tree, x, y, rel) else { return false };
    let ordered = match (site, rel) {
        (Site::Carried(_, body, ..), _) => pairs.ordered(x.pipe, y.pipe, site, m.block(body).ops.len(), rot),
        // Across iterations, in the loop's body: a chain around the back edge orders it too.
        (Site::Forward(block, ia, ib), Rel::Across(l))
            if m.op(l).regions.first().and_then(|&r| m.region(r).blocks.first()) == Some(&block) =>
        {
            pairs.ordered(x.pipe, y.pipe, site, 0, rot)
                || pairs.ordered(x.pipe, y.pipe, Site::Carried(l, block, ia, ib), m.block(block).ops.len(), rot)
                || ordered_through_loop(m, tree, x, y, site, pairs)
        }
        _ => pairs.ordered(x.pipe, y.pipe, site, 0, rot) || ordered_through_loop(m, tree, x, y, site, pairs),
    };
    if !ordered {
        pairs.add(x.pipe, y.pipe, site, rot, (x.op, y.op, bytes));
    }
    true
}

/// Whether the dependence `x` → `y` at a forward site whose `A` end is an `scf.for` holding `x`
/// is ordered through that loop's pairs ([`Pairs::ordered_through_loop`]).
fn ordered_through_loop(m: &Module, tree: &Tree, x: &MemOp, y: &MemOp, site: Site, pairs: &Pairs) -> bool {
    let Site::Forward(block, ia, ib) = site else { return false };
    let lp = m.block(block).ops[ia];
    if m.op(lp).opcode != Opcode::ScfFor {
        return false;
    }
    let Some(&body) = m.op(lp).regions.first().and_then(|&r| m.region(r).blocks.first()) else { return false };
    let Some(a) = tree.chain(x.op).iter().find_map(|op| tree.slot.get(op).filter(|(b, _)| *b == body).map(|&(_, i)| i)) else {
        return false;
    };
    pairs.ordered_through_loop(x.pipe, y.pipe, lp, body, a, block, ia, ib)
}

/// Whether `x` (earlier) and `y` conflict in executions `rel`, and if so whether the dependence
/// rotates (every conflicting pair of bytes is one phase of one rotating buffer, and a
/// loop-carried dependence is carried by that rotation's loop) and the bytes that force it.
fn dependence(m: &Module, tree: &Tree, x: &MemOp, y: &MemOp, rel: Rel) -> Option<(Option<Rotation>, String)> {
    let (mut why, mut rot, mut fixed) = (None, None, false);
    let scope = Scope { m, tree, x: x.op, y: y.op };
    for xa in &x.accesses {
        for ya in y.accesses.iter().filter(|ya| xa.conflicts(ya, rel, &scope)) {
            why.get_or_insert((xa, ya));
            match (xa.phase, ya.phase) {
                (Some((r1, p)), Some((r2, q))) if r1 == r2 && p == q && rot.is_none_or(|r| r == r1) => rot = Some(r1),
                _ => fixed = true,
            }
        }
    }
    let (xa, ya) = why?;
    let rot = match rel {
        _ if fixed => None,
        Rel::Same => rot,
        Rel::Across(l) => rot.filter(|r| r.lp == l),
        Rel::Any => None,
    };
    let bytes = format!(
        "{} {} {}",
        ya.describe(m),
        if ya.write { "written after" } else { "read after" },
        if xa.write { "a write" } else { "a read" }
    );
    Some((rot, bytes))
}

fn pipe_attr(p: &str) -> Attr {
    Attr::Enum(EnumAttr::new("pipe", p).expect("a pipe name of the `pipe` enum"))
}

fn flag_op(m: &mut Module, set: bool, src: Pipe, dst: Pipe, id: u32, at: OpId) -> OpId {
    let mut d = OpData::new(if set { Opcode::SetFlag } else { Opcode::WaitFlag });
    let event = Attr::Enum(EnumAttr::new("event", &format!("EVENT_ID{id}")).expect("an event id of the `event` enum"));
    d.attrs.push(("args".into(), Attr::Array(vec![pipe_attr(pipes::pipe_name(src)), pipe_attr(pipes::pipe_name(dst)), event])));
    let span = m.op_span(at);
    m.add_op(d, span)
}

/// `set_flag_dyn` / `wait_flag_dyn` with the event id `id` (an `index` value).
fn flag_dyn_op(m: &mut Module, set: bool, src: Pipe, dst: Pipe, id: ValueId, at: OpId) -> OpId {
    use pto_ir::module::Piece;
    let mut d = OpData::new(if set { Opcode::SetFlagDyn } else { Opcode::WaitFlagDyn });
    let pipe = |p: Pipe| Piece::Group('<', vec![Piece::Literal(pipes::pipe_name(p).to_string())]);
    d.payload =
        Payload::Generic(vec![Piece::Group('[', vec![pipe(src), Piece::Punct(","), pipe(dst), Piece::Punct(","), Piece::Value(id)])]);
    d.operands.push(id);
    d.num_ins = 1;
    let span = m.op_span(at);
    m.add_op(d, span)
}

/// The event-id values of rotating pairs, `base + iv mod k`, computed at the start of their
/// loop's body (`prologue`), once per (loop, base).
#[derive(Default)]
struct Phases {
    ids: HashMap<(OpId, u32), ValueId>,
    phase: HashMap<OpId, ValueId>,
    prologue: HashMap<BlockId, Vec<OpId>>,
}

impl Phases {
    fn id_value(&mut self, m: &mut Module, r: Rotation, base: u32) -> ValueId {
        if let Some(&v) = self.ids.get(&(r.lp, base)) {
            return v;
        }
        let body = m.region(m.op(r.lp).regions[0]).blocks[0];
        let iv = m.block(body).args[0];
        let span = m.op_span(r.lp);
        let index = m.intern(pto_ir::types::Type::Scalar(pto_ir::types::ElemType::Index));
        let mut emit = |m: &mut Module, d: OpData| {
            let op = m.add_op(d, span);
            self.prologue.entry(body).or_default().push(op);
            m.add_result(op, index, String::new(), span)
        };
        let constant = |n: u32| {
            let mut d = OpData::new(Opcode::ArithConstant);
            d.attrs.push(("value".into(), Attr::Int(n.into(), Some(index))));
            d
        };
        let binary = |opcode, a, b| {
            let mut d = OpData::new(opcode);
            d.operands = vec![a, b];
            d.num_ins = 2;
            d
        };
        let phase = match self.phase.get(&r.lp) {
            Some(&v) => v,
            None => {
                let k = emit(m, constant(r.k));
                let v = emit(m, binary(Opcode::ArithRemsi, iv, k));
                self.phase.insert(r.lp, v);
                v
            }
        };
        let v = if base == 0 {
            phase
        } else {
            let b = emit(m, constant(base));
            emit(m, binary(Opcode::ArithAddi, phase, b))
        };
        self.ids.insert((r.lp, base), v);
        v
    }
}

fn barrier_op(m: &mut Module, pipe: &str, at: OpId) -> OpId {
    let mut d = OpData::new(Opcode::Barrier);
    d.attrs.push(("pipe".into(), pipe_attr(pipe)));
    let span = m.op_span(at);
    m.add_op(d, span)
}

/// Ops to insert around one op: waits and barriers before it (`before`), sets after it (`after`;
/// waits after a loop first).
#[derive(Default)]
struct Around {
    before: Vec<OpId>,
    after_waits: Vec<OpId>,
    after_sets: Vec<OpId>,
    before_sets: Vec<OpId>,
    /// Waits right after the sets (a tight pair's).
    after_tail: Vec<OpId>,
}

fn materialise(m: &mut Module, target: &Target, body: BlockId, tree: &Tree, pairs: &[Pair], notes: &mut Diagnostics) {
    let mut around: HashMap<OpId, Around> = HashMap::new();
    let mut phases = Phases::default();
    let mut barriers: std::collections::HashSet<(OpId, &'static str)> = Default::default();
    for p in pairs {
        let (block, set_after, wait_before, lp) = match p.site {
            Site::Forward(b, s, w) => (b, s, w, None),
            Site::Carried(l, b, s, w) => (b, s, w, Some(l)),
            Site::Fence(b, w) => (b, w, w, None),
            Site::Tight(b, s) => (b, s, s, None),
        };
        let in_loop = lp.is_some() || matches!(p.site, Site::Fence(..));
        let tight = matches!(p.site, Site::Tight(..));
        let (a_at, b_at) = {
            let ops = &m.block(block).ops;
            (ops[set_after], ops[wait_before])
        };
        // Where the wait (or a barrier in its place) goes: before `b_at`, or right after the
        // set for a tight pair.
        let wait_at = |around: &mut HashMap<OpId, Around>, op: OpId| {
            let a = around.entry(b_at).or_default();
            if tight { a.after_tail.push(op) } else { a.before.push(op) }
        };
        let what = match (p.src == p.dst, p.id) {
            (true, _) => {
                let name = pipes::pipe_name(p.src);
                if barriers.insert((b_at, name)) {
                    let op = barrier_op(m, name, b_at);
                    around.entry(b_at).or_default().before.push(op);
                }
                format!("barrier <{name}>")
            }
            (false, Some(id)) => {
                let (w, s) = match p.rot {
                    Some(r) => {
                        let v = phases.id_value(m, r, id);
                        (flag_dyn_op(m, false, p.src, p.dst, v, b_at), flag_dyn_op(m, true, p.src, p.dst, v, a_at))
                    }
                    None => (flag_op(m, false, p.src, p.dst, id, b_at), flag_op(m, true, p.src, p.dst, id, a_at)),
                };
                wait_at(&mut around, w);
                around.entry(a_at).or_default().after_sets.push(s);
                if let Some(l) = lp {
                    for e in id..id + p.ids() {
                        let pre = flag_op(m, true, p.src, p.dst, e, l);
                        around.entry(l).or_default().before_sets.push(pre);
                        let post = flag_op(m, false, p.src, p.dst, e, l);
                        around.entry(l).or_default().after_waits.push(post);
                    }
                }
                let (src, dst) = (pipes::pipe_name(p.src), pipes::pipe_name(p.dst));
                match p.rot {
                    Some(r) => format!("set_flag_dyn/wait_flag_dyn[{src}, {dst}, EVENT_ID{id} + iv mod {}]", r.k),
                    None if tight => format!(
                        "set_flag/wait_flag[{src}, {dst}, EVENT_ID{id}] waited right after its set (the {} event ids of {src} -> {dst} are all in use over the ops between)",
                        pipes::event_ids(target.id, p.src, p.dst)
                    ),
                    None => format!("set_flag/wait_flag[{src}, {dst}, EVENT_ID{id}]"),
                }
            }
            (false, None) => {
                if barriers.insert((b_at, if tight { "PIPE_ALL after" } else { "PIPE_ALL" })) {
                    let op = barrier_op(m, "PIPE_ALL", b_at);
                    wait_at(&mut around, op);
                }
                // A loop-carried pair drains after its loop (what a chain through the loop
                // counts on: `Pairs::ordered_through_loop`); without an id, a barrier there.
                if let Some(l) = lp
                    && barriers.insert((l, "PIPE_ALL after the loop"))
                {
                    let op = barrier_op(m, "PIPE_ALL", l);
                    around.entry(l).or_default().after_waits.push(op);
                }
                if let Site::Fence(..) = p.site {
                    notes.0.push(Diagnostic::warning(
                        DiagClass::SyncInserted,
                        m.op_span(b_at),
                        "insert-sync: `barrier <PIPE_ALL>` inside this `scf.while`: the pass does not pair flags across the regions of a while loop",
                    ));
                } else if tree.chain(b_at).iter().any(|&op| op != b_at && matches!(m.op(op).opcode, Opcode::ScfFor | Opcode::ScfWhile)) {
                    notes.0.push(Diagnostic::warning(
                        DiagClass::SyncInserted,
                        m.op_span(b_at),
                        format!(
                            "insert-sync: the {} event ids of {} -> {} are all in use here: `barrier <PIPE_ALL>` inside this loop instead",
                            pipes::event_ids(target.id, p.src, p.dst),
                            pipes::pipe_name(p.src),
                            pipes::pipe_name(p.dst)
                        ),
                    ));
                }
                if in_loop && lp.is_none() { "barrier <PIPE_ALL>".to_string() } else { "barrier <PIPE_ALL> (no event id left)".to_string() }
            }
        };
        let (first, second, bytes) = &p.why[0];
        let mut d = Diagnostic::note(
            DiagClass::SyncInserted,
            m.op_span(*second),
            format!(
                "insert-sync: {what}{} orders `{}` on {} after `{}` on {}: {bytes}",
                if lp.is_some() { " across iterations" } else { "" },
                m.op(*second).opcode.full_name(),
                pipes::pipe_name(p.dst),
                m.op(*first).opcode.full_name(),
                pipes::pipe_name(p.src),
            ),
        )
        .with_label(m.op_span(*first), "the earlier op");
        if p.why.len() > 1 {
            d = d.with_note(format!("and {} more dependence(s) between these pipes", p.why.len() - 1));
        }
        notes.0.push(d);
    }
    rebuild(m, body, &mut around, &mut phases.prologue);
}

/// Rewrites every block under `block` with the inserted ops in place (a loop body's phase
/// arithmetic first).
fn rebuild(m: &mut Module, block: BlockId, around: &mut HashMap<OpId, Around>, prologue: &mut HashMap<BlockId, Vec<OpId>>) {
    let old = std::mem::take(&mut m.blocks[block.index()].ops);
    let mut new = prologue.remove(&block).unwrap_or_default();
    new.reserve(old.len());
    for op in old {
        if let Some(a) = around.remove(&op) {
            new.extend(a.before);
            new.extend(a.before_sets);
            new.push(op);
            new.extend(a.after_waits);
            new.extend(a.after_sets);
            new.extend(a.after_tail);
        } else {
            new.push(op);
        }
        let regions = m.op(op).regions.clone();
        for r in regions {
            for b in m.region(r).blocks.clone() {
                rebuild(m, b, around, prologue);
            }
        }
    }
    m.blocks[block.index()].ops = new;
}
