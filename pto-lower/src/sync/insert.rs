//! Pass `insert-sync` (`pto lower --insert-sync`): orders the pipes of one core in a function
//! that has no explicit sync op (ptoas's rule: a function with one is left as written).
//!
//! 1. **Accesses.** Every memory op runs on the pipe [`pipes::pipe_of`] gives and reads/writes
//!    the bytes of its operands ([`pipes::operand_accesses`]): a tile is its `alloc_tile addr`
//!    range (a reshape or bitcast the bytes of its source), a tile whose address is not a
//!    constant its whole buffer; a GM view the whole array its pointer argument names.
//! 2. **Dependences.** Two ops conflict when they touch overlapping bytes, one writing. For
//!    each conflicting pair `A` (earlier) → `B`: a *forward* dependence at the deepest block
//!    holding both in different ops `A'` < `B'` (none when they sit in the two branches of one
//!    `scf.if`), and a *loop-carried* one in their innermost common `scf.for` when `A'` ≥ `B'`
//!    in its body (the back edge: `A` in iteration i, `B` in i + 1).
//! 3. **Edges.** Different pipes: `set_flag` after `A'`, `wait_flag` before `B'`; pairs of
//!    one pipe pair in one block merge when their intervals intersect (set after the later
//!    `A'`, wait before the earlier `B'`). A loop-carried pair is one per (loop, pipe pair): a
//!    `set_flag` before the loop, `wait_flag` before the first `B'` of the body, `set_flag`
//!    after the last `A'`, `wait_flag` after the loop — balanced on every path, zero trips
//!    included. One pipe the target does not keep in order ([`pipes::needs_barrier`]):
//!    `barrier <P>` before `B'`.
//! 4. **Event ids.** Each pair holds its id over the ops between its set and its wait (a
//!    loop-carried pair the whole loop); ids are given by interval colouring per pipe pair, at
//!    most [`pipes::event_ids`]. A pair left without an id becomes a `barrier <PIPE_ALL>`
//!    before `B'`, with a warning when that is inside a loop.
//!
//! Cross-core orders (pipes between cube and vector cores, FFTS, `syncall`) are not this pass's
//! job. Each inserted pair and barrier is a `SYNC_INSERTED` note naming the two ops and the
//! bytes that force it (`--explain` shows them).

use super::pipes;
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
}

/// One access of one op.
#[derive(Copy, Clone, Debug)]
struct Access {
    space: Space,
    start: u64,
    end: u64,
    write: bool,
}

impl Access {
    fn conflicts(&self, o: &Access) -> bool {
        let same = match (self.space, o.space) {
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
        }
    }
}

/// A memory op: its pipe and accesses.
struct MemOp {
    op: OpId,
    pipe: Pipe,
    accesses: Vec<Access>,
}

/// The bytes of a tile value: its `alloc_tile` address range, through reshapes and bitcasts.
fn tile_bytes(m: &Module, v: ValueId) -> Option<(Loc, u64, u64)> {
    let desc = *m.value_type(v).tile()?;
    let whole = Some((desc.loc, 0, u64::MAX));
    let ValueDef::OpResult(def, 0) = m.values[v.index()].def else { return whole };
    let data = m.op(def);
    match data.opcode {
        Opcode::AllocTile => {
            let addr = match &data.payload {
                Payload::Segments(segs) if segs.first() == Some(&1) => data.operands.first().and_then(|&a| m.int_constant(a)),
                _ => None,
            };
            match addr.and_then(|a| u64::try_from(a).ok()) {
                Some(a) => Some((desc.loc, a, a + desc.size_bytes())),
                None => whole,
            }
        }
        Opcode::TReshape | Opcode::Bitcast => match data.operands.first().and_then(|&s| tile_bytes(m, s)) {
            Some((loc, a, e)) if e != u64::MAX => Some((loc, a, a + desc.size_bytes())),
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
    pipes::operand_accesses(m, op, tmp, |v, write| {
        if let Some((loc, start, end)) = tile_bytes(m, v) {
            accesses.push(Access { space: Space::Local(loc), start, end, write });
        } else {
            use pto_ir::types::Type;
            let ty = m.value_type(v);
            let space = match ty {
                // A `memref.alloc` buffer: placed after plan-memory's tiles, its address unknown here.
                Type::Opaque(_) if pipes::memref_loc(ty).is_some() => pipes::memref_loc(ty).map_or(Space::Unknown, Space::Local),
                Type::TensorView(..) | Type::PartitionView(..) => view_root(m, v),
                Type::Memref(..) | Type::Global(..) | Type::Ptr(_) => Space::AnyGm,
                Type::Opaque(_) => Space::Unknown,
                _ => return,
            };
            accesses.push(Access { space, start: 0, end: u64::MAX, write });
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
}

impl Tree {
    fn new(m: &Module, body: BlockId) -> Tree {
        let mut t = Tree { parent: HashMap::new(), slot: HashMap::new(), region_of: HashMap::new(), span: HashMap::new() };
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

/// How a dependence is ordered.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Copy)]
enum Site {
    /// In one block: set after op index `.1`, wait before op index `.2`.
    Forward(BlockId, usize, usize),
    /// Around loop `.0` (whose body is `.1`): set after body index `.2`, wait before `.3`.
    Carried(OpId, BlockId, usize, usize),
    /// Inside an `scf.while`, whose regions the pass does not pair flags across: a barrier
    /// right before op index `.1` of block `.0` (`barrier <P>` on one pipe, else
    /// `barrier <PIPE_ALL>`), which orders everything issued before it.
    Fence(BlockId, usize),
}

/// A flag pair (or barrier) to insert, and why.
struct Pair {
    src: Pipe,
    dst: Pipe,
    site: Site,
    /// (earlier op, later op, bytes) of each dependence it orders.
    why: Vec<(OpId, OpId, String)>,
    id: Option<u32>,
}

/// Finds where the dependence `a` → `b` (`a` earlier in iteration order) is ordered: `None`
/// when it cannot happen (two branches of one `scf.if`, or `a` == `b` outside any loop).
fn site_of(m: &Module, tree: &Tree, a: OpId, b: OpId, carried: bool) -> Option<Site> {
    let (ca, cb) = (tree.chain(a), tree.chain(b));
    let mut level = 0;
    let mut innermost_loop: Option<usize> = None;
    loop {
        let (pa, pb) = (*ca.get(level)?, *cb.get(level)?);
        let (block, ia) = tree.slot[&pa];
        let (_, ib) = tree.slot[&pb];
        if pa != pb {
            if ia < ib {
                // Across iterations too, the forward pair orders it: its wait precedes `b`'s
                // later executions on `b`'s pipe.
                return (!carried).then_some(Site::Forward(block, ia, ib));
            }
            break;
        }
        if m.op(pa).opcode == Opcode::ScfWhile {
            let (block, ib) = tree.slot[&b];
            return Some(Site::Fence(block, ib));
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
    (ia >= ib).then_some(Site::Carried(loop_op, body, ia, ib))
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
    let mut pairs: Vec<Pair> = Vec::new();
    for (j, b) in mems.iter().enumerate() {
        for a in &mems[..=j] {
            let Some(why) = a.accesses.iter().find_map(|x| b.accesses.iter().find(|y| x.conflicts(y)).map(|y| (x, y))) else { continue };
            let bytes = format!(
                "{} {} {}",
                why.1.describe(m),
                if why.1.write { "written after" } else { "read after" },
                if why.0.write { "a write" } else { "a read" }
            );
            // a → b in one iteration (a before b), b → a and a → b across iterations.
            let mut deps = vec![(a, b, true)];
            if a.op != b.op {
                deps.push((a, b, false));
                deps.push((b, a, true));
            }
            for (x, y, carried) in deps {
                if x.pipe == y.pipe && !pipes::needs_barrier(target.id, x.pipe) {
                    continue;
                }
                let Some(site) = site_of(m, tree, x.op, y.op, carried) else { continue };
                add(&mut pairs, x.pipe, y.pipe, site, (x.op, y.op, bytes.clone()));
            }
        }
    }
    if pairs.is_empty() {
        return false;
    }
    allocate(m, target, tree, &mut pairs);
    materialise(m, target, body, &pairs, notes);
    true
}

/// Adds a dependence, merging it into a pair of the same pipes and block when their intervals
/// intersect.
fn add(pairs: &mut Vec<Pair>, src: Pipe, dst: Pipe, site: Site, why: (OpId, OpId, String)) {
    for p in pairs.iter_mut().filter(|p| p.src == src && p.dst == dst) {
        let merged = match (p.site, site) {
            (Site::Forward(b1, s1, w1), Site::Forward(b2, s2, w2)) if b1 == b2 && s1.max(s2) < w1.min(w2) => {
                Site::Forward(b1, s1.max(s2), w1.min(w2))
            }
            (Site::Carried(l1, b, s1, w1), Site::Carried(l2, _, s2, w2)) if l1 == l2 => Site::Carried(l1, b, s1.max(s2), w1.min(w2)),
            _ => continue,
        };
        p.site = merged;
        p.why.push(why);
        return;
    }
    pairs.push(Pair { src, dst, site, why: vec![why], id: None });
}

/// The walk positions a pair holds its event id over, doubled and shifted (op `k` is `2k + 2`,
/// the point before it `2k + 1`): from its first set to its last wait.
fn lifetime(m: &Module, tree: &Tree, site: Site) -> (usize, usize) {
    match site {
        Site::Forward(b, s, w) => {
            let ops = &m.block(b).ops;
            (2 * tree.span[&ops[s]].1 + 3, 2 * tree.span[&ops[w]].0 + 1)
        }
        Site::Carried(l, ..) => {
            let (s, e) = tree.span[&l];
            (2 * s + 1, 2 * e + 3)
        }
        Site::Fence(..) => (0, 0),
    }
}

/// Gives each flag pair an event id by interval colouring per pipe pair; pairs left without
/// one stay `None` (a `barrier <PIPE_ALL>`).
fn allocate(m: &Module, target: &Target, tree: &Tree, pairs: &mut [Pair]) {
    let mut idx: Vec<usize> =
        (0..pairs.len()).filter(|&i| pairs[i].src != pairs[i].dst && !matches!(pairs[i].site, Site::Fence(..))).collect();
    idx.sort_by_key(|&i| lifetime(m, tree, pairs[i].site).0);
    let mut busy: HashMap<(&str, &str), Vec<Option<usize>>> = HashMap::new();
    for i in idx {
        let (start, end) = lifetime(m, tree, pairs[i].site);
        let key = (pipes::pipe_name(pairs[i].src), pipes::pipe_name(pairs[i].dst));
        let n = pipes::event_ids(target.id, pairs[i].src, pairs[i].dst) as usize;
        let ends = busy.entry(key).or_insert_with(|| vec![None; n]);
        if let Some(id) = (0..n).find(|&k| ends[k].is_none_or(|e| e < start)) {
            ends[id] = Some(end);
            pairs[i].id = Some(id as u32);
        }
    }
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
}

fn materialise(m: &mut Module, target: &Target, body: BlockId, pairs: &[Pair], notes: &mut Diagnostics) {
    let mut around: HashMap<OpId, Around> = HashMap::new();
    let mut barriers: std::collections::HashSet<(OpId, &'static str)> = Default::default();
    for p in pairs {
        let (block, set_after, wait_before, lp) = match p.site {
            Site::Forward(b, s, w) => (b, s, w, None),
            Site::Carried(l, b, s, w) => (b, s, w, Some(l)),
            Site::Fence(b, w) => (b, w, w, None),
        };
        let in_loop = lp.is_some() || matches!(p.site, Site::Fence(..));
        let ops = m.block(block).ops.clone();
        let (a_at, b_at) = (ops[set_after], ops[wait_before]);
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
                let w = flag_op(m, false, p.src, p.dst, id, b_at);
                around.entry(b_at).or_default().before.push(w);
                let s = flag_op(m, true, p.src, p.dst, id, a_at);
                around.entry(a_at).or_default().after_sets.push(s);
                if let Some(l) = lp {
                    let pre = flag_op(m, true, p.src, p.dst, id, l);
                    around.entry(l).or_default().before_sets.push(pre);
                    let post = flag_op(m, false, p.src, p.dst, id, l);
                    around.entry(l).or_default().after_waits.push(post);
                }
                format!("set_flag/wait_flag[{}, {}, EVENT_ID{id}]", pipes::pipe_name(p.src), pipes::pipe_name(p.dst))
            }
            (false, None) => {
                if barriers.insert((b_at, "PIPE_ALL")) {
                    let op = barrier_op(m, "PIPE_ALL", b_at);
                    around.entry(b_at).or_default().before.push(op);
                }
                if let Site::Fence(..) = p.site {
                    notes.0.push(Diagnostic::warning(
                        DiagClass::SyncInserted,
                        m.op_span(b_at),
                        "insert-sync: `barrier <PIPE_ALL>` inside this `scf.while`: the pass does not pair flags across the regions of a while loop",
                    ));
                } else if lp.is_some() {
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
    rebuild(m, body, &mut around);
}

/// Rewrites every block under `block` with the inserted ops in place.
fn rebuild(m: &mut Module, block: BlockId, around: &mut HashMap<OpId, Around>) {
    let old = std::mem::take(&mut m.blocks[block.index()].ops);
    let mut new = Vec::with_capacity(old.len());
    for op in old {
        if let Some(a) = around.remove(&op) {
            new.extend(a.before);
            new.extend(a.before_sets);
            new.push(op);
            new.extend(a.after_waits);
            new.extend(a.after_sets);
        } else {
            new.push(op);
        }
        let regions = m.op(op).regions.clone();
        for r in regions {
            for b in m.region(r).blocks.clone() {
                rebuild(m, b, around);
            }
        }
    }
    m.blocks[block.index()].ops = new;
}
