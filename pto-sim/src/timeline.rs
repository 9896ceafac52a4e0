//! # The timeline
//!
//! An observer of the run ([`crate::interp::Observer`]) that schedules every executed op on its
//! pipe of its core with the cycle model (`pto_lower::cost`, docs/performance-model.md): each
//! pipe is an in-order queue; an op starts when its pipe is free and its sync edges hold —
//! `wait_flag` not before the matching `set_flag` has fired (when everything before it on its
//! pipe has completed; the pipe goes on meanwhile), `pipe_barrier` not before its pipe has
//! drained, `barrier <PIPE_ALL>` not before every pipe has drained (and no pipe goes on before
//! it). A program
//! without sync ops is timed as if each op waited for the last writer of what it reads (what
//! Perf-Sim does until sync insertion lands).
//!
//! The observer shares its [`State`] with whoever installed it ([`Timeline::install`]), who
//! reads the [`Summary`] after the run. On several cores each has its own state; the ops
//! between cores time their edges through [`crate::cores::clock`], and each state keeps the
//! edges it waited on ([`State::arrivals`]).

use crate::cores::clock::{CoreClock, EventRef, Released};
use crate::interp::{Observer, Sim};
use crate::sync::effects::{self, SyncOp};
use crate::sync::model::{Access, PIPES, Pipe};
use crate::value::Val;
use pto_ir::diag::Diagnostic;
use pto_ir::module::{Module, OpId, ValueId};
use pto_ir::ops::Opcode;
use pto_ir::types::{Loc, Type};
use pto_lower::TargetId;
use pto_lower::cost::{self, OpShape, Path, Shape, Work};
use pto_lower::cost_a2a3_fit;
use pto_lower::cost_a5;
use pto_lower::vector::{self, Placed, ir::Scalar};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// One scheduled op.
#[derive(Clone, Debug, PartialEq)]
pub struct OpEvent {
    /// The op.
    pub op: OpId,
    /// Its pipe.
    pub pipe: Pipe,
    /// First cycle.
    pub start: f64,
    /// Modelled cycles, from its start to its completion.
    pub cycles: f64,
    /// Cycles it held its pipe (a transfer's bytes; its latency is in flight after that:
    /// [`cost::Work::occupancy`]); the pipe's next op may start then.
    pub occupancy: f64,
    /// For a `wait_flag`: the event of the `set_flag` it waited for.
    pub after_set: Option<usize>,
    /// The event whose end made this one start when it did (the previous op of its pipe, the
    /// `set_flag` a wait waited for, the last writer of what it reads, the pipe a `PIPE_ALL`
    /// barrier drained); `None` for an op that started at cycle 0. Following it back from the
    /// last event gives the critical path ([`State::critical_path`]).
    pub cause: Option<usize>,
    /// What kind of work it is (the colour of its box in a picture).
    pub kind: Kind,
    /// Bytes moved ([`Work::bytes`]).
    pub bytes: u64,
    /// Iterations ([`Work::repeats`]).
    pub repeats: u64,
}

/// A pipe as pto-isa's Perf-Sim names its track (`Scalar`, `MTE2`, `MTE1`, `CUBE`, `FIXP`,
/// `VEC`, `MTE3`: include/pto/costmodel/perf_sim/reporter_core_impl.inl:28-33 at 3186c381),
/// and the order Perf-Sim lists them in.
pub fn perf_sim_track(p: Pipe) -> (&'static str, u32) {
    match p {
        Pipe::S => ("Scalar", 0),
        Pipe::Mte2 => ("MTE2", 1),
        Pipe::Mte1 => ("MTE1", 2),
        Pipe::M => ("CUBE", 3),
        Pipe::Fix => ("FIXP", 4),
        Pipe::V => ("VEC", 5),
        Pipe::Mte3 => ("MTE3", 6),
    }
}

/// The kind of work of an event.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A vector program or op-table `vop` repeats.
    Vector,
    /// A DMA transfer.
    Transfer,
    /// Cube fractals.
    Cube,
    /// A scalar-unit op.
    Scalar,
    /// `set_flag`, `pipe_barrier`, buffer ids.
    Sync,
    /// `wait_flag` and `barrier(PIPE_ALL)`: an op that waits for another pipe.
    Wait,
}

impl Kind {
    /// Its lower-case name (`vector`, `transfer`, …).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Vector => "vector",
            Kind::Transfer => "transfer",
            Kind::Cube => "cube",
            Kind::Scalar => "scalar",
            Kind::Sync => "sync",
            Kind::Wait => "wait",
        }
    }

    fn of(w: &Work) -> Kind {
        match w {
            Work::Vector(_) | Work::Repeats { .. } | Work::Fitted { .. } => Kind::Vector,
            Work::Transfer { .. } => Kind::Transfer,
            Work::Cube { .. } => Kind::Cube,
            Work::Scalar | Work::Free => Kind::Scalar,
            Work::Sync => Kind::Sync,
        }
    }
}

impl OpEvent {
    /// One past the last cycle.
    pub fn end(&self) -> f64 {
        self.start + self.cycles
    }
}

/// What the timeline has scheduled so far.
#[derive(Clone, Debug, Default)]
pub struct State {
    /// Every scheduled op, in program order.
    pub events: Vec<OpEvent>,
    /// When each pipe is next free (index: [`Pipe::ALL`] order).
    free: [f64; PIPES],
    /// The event each pipe ran last (what it waits for when it is busy).
    last: [Option<usize>; PIPES],
    /// The event of each pipe that completes last (a `set_flag` or a barrier waits for it).
    done: [Option<usize>; PIPES],
    /// Cycles each pipe is busy.
    busy: [f64; PIPES],
    /// Flags set and not yet waited for: `(src, dst, id)` → the setting events, oldest first.
    flags: HashMap<(Pipe, Pipe, i64), VecDeque<usize>>,
    /// The last write of each byte range (programs without sync ops), with its event.
    writes: Vec<(Access, usize)>,
    /// No op starts before this: the last time the core waited for another core
    /// ([`CoreClock::not_before`]).
    floor: f64,
    /// The core timed, on a run of several cores (`None`: the one core of a single-core run).
    pub actor: Option<crate::cores::ActorId>,
    /// The op observed last (the one an acquire between cores belongs to).
    observed: Option<OpId>,
    /// Edges from other cores this core waited on, each at the event that acquired it.
    pub arrivals: Vec<Arrival>,
    /// Edges acquired by an op with no event of its own (a `tpop` that is no pipe's work):
    /// they arrive at the core's next event.
    pending: Vec<(EventRef, &'static str)>,
    /// Under [`CostModel::PtoIsa`]: the ops pto-isa's model has no formula for, by name, with
    /// how often each ran (timed by pto's model instead).
    pub unmodelled: std::collections::BTreeMap<&'static str, u64>,
}

/// Which model gives an op its cycles (`pto run --cost-model`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum CostModel {
    /// pto's own (docs/performance-model.md): A2A3 ops from their vector programs and
    /// transfers, calibrated on measured counts; A5 vector ops by pto-isa's A5 formulas.
    #[default]
    Pto,
    /// pto-isa's lightweight model where it has a formula ([`pto_lower::cost_a2a3_fit`] on
    /// A2A3; on A5 its formulas are pto's already), pto's for the other ops.
    PtoIsa,
}

/// An edge from another core's event to one of this core's: a flow between cores in a trace
/// (push → pop, free → push, FFTS set → wait, notify → wait, `syncall`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Arrival {
    /// The releasing event, on its core.
    pub from: EventRef,
    /// The acquiring event, on this core.
    pub to: usize,
    /// The edge ([`crate::sync::graph::Edge::flow_name`]).
    pub what: &'static str,
}

impl CoreClock for State {
    fn released(&self) -> Released {
        let by = self.events.len().checked_sub(1).map(|event| EventRef { actor: self.actor, event });
        Released { at: self.events.last().map_or(0.0, OpEvent::end), by }
    }

    fn not_before(&mut self, from: Released, what: &'static str) {
        let t = from.at;
        self.floor = self.floor.max(t);
        // Only the acquiring op's own event moves (an op without one, such as a `tpop` that is
        // no pipe's work, holds only what comes after it, and its edge arrives there).
        let observed = self.observed;
        let own = self.events.len().checked_sub(1).filter(|&e| Some(self.events[e].op) == observed);
        if let Some(by) = from.by.filter(|b| b.actor != self.actor) {
            match own {
                Some(to) => self.arrivals.push(Arrival { from: by, to, what }),
                None => self.pending.push((by, what)),
            }
        }
        let Some(e) = own.map(|i| &mut self.events[i]) else { return };
        if e.start >= t {
            return;
        }
        // The acquiring op waited for another core: it starts when that core released.
        let i = e.pipe as usize;
        e.start = t;
        e.cause = None;
        self.free[i] = self.free[i].max(t + e.occupancy);
    }

    fn set_actor(&mut self, actor: crate::cores::ActorId) {
        self.actor = Some(actor);
    }
}

/// Per-pipe totals of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Cycles from the first op's start to the last op's end.
    pub total: u64,
    /// Each pipe that ran something: its busy cycles.
    pub pipes: Vec<(Pipe, u64)>,
}

impl Summary {
    /// `busy / total` of a pipe (0 for an empty run).
    pub fn utilisation(&self, busy: u64) -> f64 {
        if self.total == 0 { 0.0 } else { busy as f64 / self.total as f64 }
    }
}

impl State {
    /// The totals.
    pub fn summary(&self) -> Summary {
        let total = self.events.iter().map(OpEvent::end).fold(0.0, f64::max).round() as u64;
        let pipes = Pipe::ALL.iter().zip(&self.busy).filter(|(_, b)| **b > 0.0).map(|(p, b)| (*p, b.round() as u64)).collect();
        Summary { total, pipes }
    }

    /// The critical path: from the event that ends last back through each event's
    /// [`OpEvent::cause`] to one that started at cycle 0, in time order, each with the cycles
    /// it adds to the path: up to the next event's start (the next starts when its cause ends,
    /// or, after an op that holds its pipe for less than its cycles, when the pipe is free),
    /// the last event all of its cycles. They add up to the total.
    pub fn critical_path(&self) -> Vec<(usize, f64)> {
        let last = (0..self.events.len()).max_by(|&a, &b| self.events[a].end().total_cmp(&self.events[b].end()));
        let mut path: Vec<usize> = std::iter::successors(last, |&e| self.events[e].cause).collect();
        path.reverse();
        let starts: Vec<f64> = path.iter().skip(1).map(|&e| self.events[e].start).collect();
        path.iter()
            .enumerate()
            .map(|(k, &e)| (e, starts.get(k).map_or(self.events[e].cycles, |next| next - self.events[e].start)))
            .collect()
    }

    /// Schedules `op` on `pipe` for `cycles`, holding the pipe as long, not before event
    /// `after` has ended (and not before the pipe is free).
    fn push(&mut self, op: OpId, pipe: Pipe, after: Option<usize>, cycles: f64, kind: Kind) -> usize {
        self.push_held(op, pipe, after, cycles, cycles, kind)
    }

    /// [`Self::push`] of an op that holds its pipe for `occupancy` of its `cycles`.
    fn push_held(&mut self, op: OpId, pipe: Pipe, after: Option<usize>, cycles: f64, occupancy: f64, kind: Kind) -> usize {
        let i = pipe as usize;
        let ready = after.map_or(0.0, |e| self.events[e].end());
        let (start, cause) = if after.is_some() && ready >= self.free[i] { (ready, after) } else { (self.free[i], self.last[i]) };
        let (start, cause) = if self.floor > start { (self.floor, None) } else { (start, cause) };
        let cause = if start > 0.0 { cause } else { None };
        self.free[i] = start + occupancy;
        self.busy[i] += occupancy;
        let e = self.events.len();
        self.last[i] = Some(e);
        if self.done[i].is_none_or(|d| start + cycles >= self.events[d].end()) {
            self.done[i] = Some(e);
        }
        self.events.push(OpEvent { op, pipe, start, cycles, occupancy, after_set: None, cause, kind, bytes: 0, repeats: 0 });
        for (from, what) in self.pending.drain(..) {
            self.arrivals.push(Arrival { from, to: e, what });
        }
        e
    }

    fn sync(&mut self, op: OpId, s: SyncOp, pipe_of_op: Option<Pipe>) {
        match s {
            SyncOp::Flag { set, src, dst, id } => {
                let (Some(src), Some(dst)) = (Pipe::from_name(&src), Pipe::from_name(&dst)) else { return };
                if set {
                    let e = self.push_flag(op, src);
                    self.flags.entry((src, dst, id)).or_default().push_back(e);
                } else {
                    let set = self.flags.get_mut(&(src, dst, id)).and_then(VecDeque::pop_front);
                    let e = self.push(op, dst, set, cost::SYNC_CYCLES, Kind::Wait);
                    self.events[e].after_set = set;
                }
            }
            SyncOp::Barrier(name) if name == "PIPE_ALL" => {
                let e = self.push(op, Pipe::S, self.drained(), cost::SYNC_CYCLES, Kind::Wait);
                self.free = [self.events[e].end(); PIPES];
                self.last = [Some(e); PIPES];
                self.done = [Some(e); PIPES];
            }
            SyncOp::Barrier(name) => {
                if let Some(p) = Pipe::from_name(&name).or(pipe_of_op) {
                    // The pipe's next op waits for the completion of everything before.
                    let e = self.push(op, p, self.done[p as usize], cost::SYNC_CYCLES, Kind::Sync);
                    self.free[p as usize] = self.events[e].end();
                }
            }
            SyncOp::Buf { pipe, .. } => {
                if let Some(p) = Pipe::from_name(&pipe).or(pipe_of_op) {
                    self.push(op, p, None, cost::SYNC_CYCLES, Kind::Sync);
                }
            }
        }
    }

    /// Schedules a `set_flag` on `pipe`: it holds the pipe for [`cost::SYNC_CYCLES`] when the
    /// pipe reaches it, and fires (its end, what the matching `wait_flag` waits for) when
    /// everything issued before it on the pipe has completed. The pipe's next op does not wait
    /// for that: "set_flag只是设置位，不会阻塞同一流水中的下一个指令。当set_flag之前的所有指令已完成
    /// 提交，则会触发相应的wait_flag" (CANN CCE intrinsic API, `set_flag & wait_flag`,
    /// cceapi_0106). A `pipe_barrier` of the pipe, by contrast, holds it until then.
    fn push_flag(&mut self, op: OpId, pipe: Pipe) -> usize {
        let issued = self.free[pipe as usize].max(self.floor);
        let completed = self.done[pipe as usize].map_or(0.0, |d| self.events[d].end());
        let fires = completed.max(issued + cost::SYNC_CYCLES);
        self.push_held(op, pipe, None, fires - issued, cost::SYNC_CYCLES, Kind::Sync)
    }

    /// Schedules a synchronous comm copy ([`cost::Staged`]) chunk by chunk (step by step for a
    /// copy of more than [`cost::Staged::MAX_STEPS`] chunks): a chunk's loads on
    /// MTE2 once its staging tile is free (the stores of the chunk that used it last have
    /// completed: the previous chunk's, or the one before with a second tile), its stores on
    /// MTE3 once every pipe has drained (pto-isa TPut.hpp:49-52: the load's MTE2 → MTE3 flag,
    /// then `pipe_barrier(PIPE_ALL)`). The copy is synchronous on the scalar unit, as the
    /// happens-before graph records its GM accesses (on `PIPE_S`): the core's next scalar op
    /// waits for its last store, and so does its next MTE2 op (the MTE3 → MTE2 flag it ends
    /// with, TPut.hpp:54-55).
    fn push_staged(&mut self, op: OpId, plan: &cost::Staged) {
        let reuse_after = if plan.double_buffered { 2 } else { 1 };
        let mut last_stores: VecDeque<Option<usize>> = VecDeque::new();
        for chunks in plan.steps() {
            let (load, store) = (plan.load(chunks), plan.store(chunks));
            let free = if last_stores.len() >= reuse_after { last_stores.pop_front().flatten() } else { None };
            for _ in 0..plan.loads {
                self.push_work(op, Pipe::Mte2, free, &load);
            }
            let mut stored = None;
            for _ in 0..plan.stores {
                let drained = self.drained();
                stored = Some(self.push_work(op, Pipe::Mte3, drained, &store));
            }
            last_stores.push_back(stored);
        }
        if let Some(last) = last_stores.back().copied().flatten() {
            for p in [Pipe::S, Pipe::Mte2] {
                let i = p as usize;
                self.free[i] = self.free[i].max(self.events[last].end());
            }
        }
    }

    /// The event that completes last of those each pipe completes last: when every pipe has
    /// drained.
    fn drained(&self) -> Option<usize> {
        self.done.iter().flatten().copied().max_by(|&a, &b| self.events[a].end().total_cmp(&self.events[b].end()))
    }

    /// [`Self::push_held`] of `w` (a transfer), with its bytes and repeats.
    fn push_work(&mut self, op: OpId, pipe: Pipe, after: Option<usize>, w: &Work) -> usize {
        let e = self.push_held(op, pipe, after, w.cycles(), w.occupancy(), Kind::of(w));
        (self.events[e].bytes, self.events[e].repeats) = (w.bytes(), w.repeats());
        e
    }

    /// The last writer of what `accesses` read that ends last.
    fn reads_ready(&self, accesses: &[Access]) -> Option<usize> {
        let overlaps = |a: &Access, b: &Access| a.space == b.space && a.start < b.end && b.start < a.end;
        let mut ready: Option<usize> = None;
        for r in accesses.iter().filter(|a| !a.write) {
            for &(w, e) in &self.writes {
                if overlaps(r, &w) && ready.is_none_or(|best| self.events[e].end() > self.events[best].end()) {
                    ready = Some(e);
                }
            }
        }
        ready
    }

    fn record_writes(&mut self, accesses: &[Access], event: usize) {
        for w in accesses.iter().filter(|a| a.write) {
            self.writes.retain(|(old, _)| !(old.space == w.space && w.start <= old.start && old.end <= w.end));
            self.writes.push((*w, event));
        }
    }
}

/// The timeline observer.
pub struct Timeline {
    state: Arc<Mutex<State>>,
    /// Whether the program orders its pipes itself (else each op waits for its data).
    explicit_sync: bool,
    target: TargetId,
    accesses: Vec<Access>,
    /// The vector programs lowered last, by the placed op they came from.
    recent: Recent,
    model: CostModel,
}

/// What the timeline keeps of an op's [`Work`].
#[derive(Copy, Clone, Debug)]
struct Cost {
    cycles: f64,
    occupancy: f64,
    kind: Kind,
    bytes: u64,
    repeats: u64,
    /// Scalar work (runs on the scalar pipe when the op has no pipe of its own).
    scalar: bool,
}

impl Cost {
    fn of(w: &Work) -> Cost {
        Cost {
            cycles: w.cycles(),
            occupancy: w.occupancy(),
            kind: Kind::of(w),
            bytes: w.bytes(),
            repeats: w.repeats(),
            scalar: matches!(w, Work::Scalar),
        }
    }
}

/// The costs of the last [`Recent::SIZE`] vector programs lowered, by the placed op each came
/// from ([`vector::TileOp`]: opcode, tiles with their placement, scalar, modes): a loop, or a
/// program repeating a few ops over the same tiles, lowers each placed op once.
#[derive(Default)]
struct Recent {
    entries: Vec<(vector::TileOp, Cost)>,
    next: usize,
}

impl Recent {
    const SIZE: usize = 32;

    fn get(&self, t: &vector::TileOp) -> Option<Cost> {
        self.entries.iter().find(|(k, _)| k == t).map(|(_, c)| *c)
    }

    fn put(&mut self, t: vector::TileOp, c: Cost) {
        if self.entries.len() < Self::SIZE {
            self.entries.push((t, c));
        } else {
            self.entries[self.next] = (t, c);
            self.next = (self.next + 1) % Self::SIZE;
        }
    }
}

impl Timeline {
    /// Installs a timeline on `sim` timing ops with `model`; the returned state fills as it
    /// runs.
    pub fn install(sim: &mut Sim<'_>, model: CostModel) -> Arc<Mutex<State>> {
        let state = Arc::new(Mutex::new(State::default()));
        let explicit_sync = effects::has_explicit_sync(sim.module());
        let target = sim.target().id;
        let t = Timeline { state: state.clone(), explicit_sync, target, accesses: Vec::new(), recent: Recent::default(), model };
        sim.observe_with(Box::new(t));
        sim.core.clock = Some(state.clone());
        state
    }
}

fn tile(vals: &[Val], v: ValueId) -> Option<crate::view::TileView> {
    match vals.get(v.index()) {
        Some(Val::Tile(t)) => Some(*t),
        _ => None,
    }
}

fn loc(vals: &[Val], v: ValueId) -> Option<Loc> {
    tile(vals, v).map(|t| t.loc)
}

impl Recent {
    /// The cost of tile op `op` on `target`: its vector program's when it has one on these
    /// operands (each placed op lowered once while it stays here), else its family's
    /// ([`family_work`]); on A5 the formula model's where it has a curve.
    fn cost(&mut self, target: TargetId, m: &Module, op: OpId, vals: &[Val]) -> Cost {
        let data = m.op(op);
        if target == TargetId::A5
            && let Some(w) = a5_formula(m, op, vals)
        {
            return Cost::of(&w);
        }
        if vector::is_lowered(data.opcode) {
            let place = |v: ValueId| tile(vals, v).map(|t| Placed { addr: t.addr, vrows: t.vrows as u32, vcols: t.vcols as u32 });
            let value = |v: ValueId| match vals.get(v.index()) {
                Some(Val::Int(i)) => Some(Scalar::Int(*i)),
                Some(Val::Float(f)) => Some(Scalar::Float(*f)),
                _ => None,
            };
            if let Ok(t) = vector::tile_op(m, op, place, value) {
                if let Some(c) = self.get(&t) {
                    return c;
                }
                if let Ok(prog) = vector::lower(&t) {
                    let c = Cost::of(&Work::Vector(prog));
                    self.put(t, c);
                    return c;
                }
            }
        }
        Cost::of(&family_work(m, op, vals))
    }
}

/// What tile op `op`'s family does ([`cost::work_of`]) on these operands.
fn family_work(m: &Module, op: OpId, vals: &[Val]) -> Work {
    let data = m.op(op);
    // What the op writes: its `outs`, or the tile it returns (`tpop_from_aic`).
    let (ins, outs) = (data.ins(), if data.outs().is_empty() { &data.results[..] } else { data.outs() });
    // A result not bound yet (a pop binds its tile as it runs) is the tile its type declares.
    let tile = |v: ValueId| tile(vals, v).or_else(|| m.value_type(v).tile().map(|t| crate::interp::view_of(t, t.loc, 0, None, None)));
    let main = ins.iter().chain(outs.iter()).find_map(|&v| tile(v));
    let dst = outs.iter().find_map(|&v| tile(v));
    let src = match main {
        Some(t) => Shape { dtype: t.desc.dtype, rows: t.vrows as u64, cols: t.vcols as u64 },
        None => Shape { dtype: pto_ir::types::ElemType::U8, rows: 0, cols: 0 },
    };
    let first_loc = |vs: &[ValueId]| vs.first().and_then(|&v| tile(v)).map(|t| t.loc);
    let path = Path::between(first_loc(ins), first_loc(outs));
    let mkn = match (ins.first().and_then(|&v| tile(v)), ins.get(1).and_then(|&v| tile(v))) {
        (Some(a), Some(b)) if data.opcode.spec().family == pto_ir::ops::Family::Matmul => {
            Some((a.vrows as u64, a.vcols as u64, b.vcols as u64))
        }
        _ => None,
    };
    let dst_dtype = dst.map_or(src.dtype, |t| t.desc.dtype);
    cost::work_of(&OpShape { opcode: data.opcode, src, dst_dtype, path, calls: 1, mkn })
}

/// Group members a comm copy is timed for at most ([`comm_plan`]).
const MAX_TIMED_MEMBERS: usize = 4096;

/// The chunks of a synchronous comm copy (`tput`, `tget`, the collectives: [`cost::Staged`]):
/// the bytes of one member's buffer (`tput`/`tget`: of the view copied; a collective: of its
/// `!pto.group`'s member), the group's members, the first staging tile's valid bytes as the
/// chunk, double-buffered with a second staging tile (a third for `treduce`, whose first is
/// its accumulator).
fn comm_plan(m: &Module, op: OpId, vals: &[Val]) -> Option<cost::Staged> {
    let data = m.op(op);
    let opcode = data.opcode;
    if !matches!(
        opcode,
        Opcode::CommPut | Opcode::CommGet | Opcode::CommBroadcast | Opcode::CommGather | Opcode::CommScatter | Opcode::CommReduce
    ) {
        return None;
    }
    let elem_bytes = |v: ValueId| m.value_type(v).elem_type().map_or(1, |e| e.size_bytes() as u64);
    let first = *data.operands.first()?;
    let (bytes, members) = match vals.get(first.index()) {
        Some(Val::View(view)) => {
            let elements = view.shape[..view.rank].iter().fold(1u64, |n, &d| n.saturating_mul(d.max(0) as u64));
            (elements.saturating_mul(elem_bytes(first)), 1)
        }
        _ => {
            let Type::Opaque(text) = m.value_type(first) else { return None };
            let (n, rows, cols) = crate::comm::ops::group_shape(text)?;
            // A group larger than any machine runs faults when the op executes; its plan would
            // be that many events per chunk before it does.
            if n > MAX_TIMED_MEMBERS {
                return None;
            }
            ((rows as u64).saturating_mul(cols as u64).saturating_mul(elem_bytes(first)), n as u64)
        }
    };
    let tiles: Vec<_> = data.operands.iter().filter_map(|&v| tile(vals, v)).collect();
    let staging = tiles.first().map(|t| (t.vrows * t.vcols) as u64 * u64::from(t.desc.dtype.size_bytes()));
    let double_buffered = tiles.len() >= if opcode == Opcode::CommReduce { 3 } else { 2 };
    cost::Staged::plan(opcode, bytes, members, staging, double_buffered)
}

/// The A5 formula model's time for a vector op it has a curve for ([`cost_a5`]), on its
/// first source tile (the destination's type for a cast).
fn a5_formula(m: &Module, op: OpId, vals: &[Val]) -> Option<Work> {
    let data = m.op(op);
    let src = data.ins().iter().find_map(|&v| tile(vals, v))?;
    let dst = data.outs().iter().find_map(|&v| tile(vals, v)).unwrap_or(src);
    let q = cost_a5::VfQuery {
        opcode: data.opcode,
        src: src.desc.dtype.name(),
        dst: dst.desc.dtype.name(),
        rows: src.desc.rows as u64,
        cols: src.desc.cols as u64,
        valid_rows: src.vrows as u64,
        valid_cols: src.vcols as u64,
        vf_impl: cost_a5::VfImpl::Default,
        op_params: None,
    };
    let t = cost_a5::vf_time(&q)?;
    Some(Work::Fitted { cycles: t.cycles, repeats: t.repeats })
}

/// pto-isa's lightweight A2A3 model's cycles for a tile op ([`cost_a2a3_fit`]): on its main
/// source's valid shape (a matmul's m, k and n; a transfer's tile kind and element count).
fn pto_isa_a2a3(m: &Module, op: OpId, vals: &[Val]) -> Option<f64> {
    let data = m.op(op);
    let ins: Vec<_> = data.ins().iter().filter_map(|&v| tile(vals, v)).collect();
    let outs: Vec<_> = data.outs().iter().filter_map(|&v| tile(vals, v)).collect();
    let main = ins.first().or(outs.first())?;
    // A load's and a move's path is the destination's kind, a store's the source's.
    let moved = match data.opcode {
        Opcode::TLoad | Opcode::TMov => outs.first(),
        _ => ins.first(),
    };
    let k = match (data.opcode, ins.as_slice()) {
        (Opcode::TMatmul, [a, _, ..]) => a.vcols as u64,
        _ => 0,
    };
    let cols = match (data.opcode, ins.as_slice()) {
        (Opcode::TMatmul, [_, b, ..]) => b.vcols as u64,
        _ => main.vcols as u64,
    };
    cost_a2a3_fit::cycles(&cost_a2a3_fit::FitQuery {
        opcode: data.opcode,
        dtype: main.desc.dtype,
        rows: main.vrows as u64,
        cols,
        k,
        tile: moved.map(|t| t.loc),
        elements: moved.map_or(0, |t| t.vrows as u64 * t.vcols as u64),
    })
}

impl Observer for Timeline {
    fn observe(&mut self, m: &Module, op: OpId, vals: &[Val]) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.observed = Some(op);
        let loc = |v: ValueId| loc(vals, v);
        let pipe = effects::pipe_of(m, op, self.target, false, &loc);
        if let Some(s) = effects::sync_op(m, op, vals) {
            st.sync(op, s, pipe);
            return;
        }
        if let Some(plan) = comm_plan(m, op, vals) {
            st.push_staged(op, &plan);
            return;
        }
        let mut w = self.recent.cost(self.target, m, op, vals);
        if self.model == CostModel::PtoIsa && self.target == TargetId::A2A3 && !w.scalar && w.cycles > 0.0 {
            match pto_isa_a2a3(m, op, vals) {
                Some(cycles) => w = Cost { cycles, occupancy: cycles, ..w },
                None => *st.unmodelled.entry(m.op(op).opcode.spec().name).or_default() += 1,
            }
        }
        let cycles = w.cycles;
        let pipe = match (pipe, &w) {
            (Some(p), _) => p,
            (None, Cost { scalar: true, .. }) => Pipe::S,
            _ => return,
        };
        if cycles <= 0.0 || m.op(op).opcode == Opcode::Module {
            return;
        }
        self.accesses.clear();
        let ready = if self.explicit_sync {
            None
        } else {
            effects::accesses(m, op, self.target, vals, None, &mut self.accesses);
            st.reads_ready(&self.accesses)
        };
        let e = st.push_held(op, pipe, ready, cycles, w.occupancy, w.kind);
        let ev = &mut st.events[e];
        (ev.bytes, ev.repeats) = (w.bytes, w.repeats);
        if !self.explicit_sync {
            st.record_writes(&self.accesses, e);
        }
    }
    fn iteration(&mut self, _op: OpId, _index: u64) {}
    fn loop_done(&mut self, _op: OpId) {}
    fn loop_state(&self) -> u64 {
        0
    }
    fn finish(&mut self, _m: &Module) -> Vec<Diagnostic> {
        Vec::new()
    }
    fn restart(&mut self, target: TargetId) {
        self.target = target;
        *self.state.lock().unwrap_or_else(|e| e.into_inner()) = State::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(i: usize) -> OpId {
        OpId(i as u32)
    }

    fn flag(set: bool, src: Pipe, dst: Pipe) -> SyncOp {
        SyncOp::Flag { set, src: src.name().into(), dst: dst.name().into(), id: 0 }
    }

    #[test]
    fn a_wait_never_starts_before_its_set() {
        let mut st = State::default();
        st.push(op(0), Pipe::Mte2, None, 300.0, Kind::Vector);
        st.sync(op(1), flag(true, Pipe::Mte2, Pipe::V), None);
        st.sync(op(2), flag(false, Pipe::Mte2, Pipe::V), None);
        st.push(op(3), Pipe::V, None, 50.0, Kind::Vector);
        let (set, wait, add) = (&st.events[1], &st.events[2], &st.events[3]);
        assert_eq!(wait.after_set, Some(1));
        assert!(wait.start >= set.end() && set.start >= 300.0);
        assert!(add.start >= wait.end());
        let s = st.summary();
        assert!(s.pipes.iter().all(|&(_, busy)| s.total >= busy));
        assert_eq!(s.total, 302 + 50);
    }

    #[test]
    fn pipe_all_serialises_every_pipe() {
        let mut st = State::default();
        st.push(op(0), Pipe::Mte2, None, 300.0, Kind::Vector);
        st.push(op(1), Pipe::V, None, 100.0, Kind::Vector);
        st.sync(op(2), SyncOp::Barrier("PIPE_ALL".into()), None);
        st.push(op(3), Pipe::Mte3, None, 10.0, Kind::Vector);
        st.push(op(4), Pipe::V, None, 10.0, Kind::Vector);
        let barrier = &st.events[2];
        assert!(barrier.start >= 300.0);
        assert!(st.events[3..].iter().all(|e| e.start >= barrier.end()));
        // Without the barrier the two pipes overlap.
        let mut free = State::default();
        free.push(op(0), Pipe::Mte2, None, 300.0, Kind::Vector);
        free.push(op(1), Pipe::V, None, 100.0, Kind::Vector);
        assert_eq!(free.summary().total, 300);
    }

    #[test]
    fn without_sync_ops_a_reader_waits_for_the_last_writer() {
        let mut st = State::default();
        let ub = |start, end, write| Access { space: crate::sync::model::Space(0), start, end, write, atomic: false };
        let e = st.push(op(0), Pipe::Mte2, None, 300.0, Kind::Transfer);
        st.record_writes(&[ub(0, 256, true)], e);
        assert_eq!(st.reads_ready(&[ub(128, 512, false)]), Some(e));
        assert_eq!(st.reads_ready(&[ub(256, 512, false)]), None, "no overlap, no wait");
    }

    #[test]
    fn the_critical_path_adds_up_to_the_total() {
        // MTE2 300 -> set -> wait -> V 50, while MTE3 runs 100 unrelated cycles.
        let mut st = State::default();
        st.push(op(0), Pipe::Mte2, None, 300.0, Kind::Transfer);
        st.push(op(1), Pipe::Mte3, None, 100.0, Kind::Transfer);
        st.sync(op(2), flag(true, Pipe::Mte2, Pipe::V), None);
        st.sync(op(3), flag(false, Pipe::Mte2, Pipe::V), None);
        st.push(op(4), Pipe::V, None, 50.0, Kind::Vector);
        let path = st.critical_path();
        assert_eq!(path.iter().map(|p| p.0).collect::<Vec<_>>(), vec![0, 2, 3, 4], "the MTE3 op is off the path");
        let cycles: f64 = path.iter().map(|p| p.1).sum();
        assert_eq!(cycles as u64, st.summary().total);
        assert!(State::default().critical_path().is_empty());
    }

    #[test]
    fn a_comm_copy_stores_each_chunk_after_its_load_and_reloads_a_tile_once_it_is_stored() {
        let starts_ends = |st: &State| st.events.iter().map(|e| (e.pipe, e.start, e.end())).collect::<Vec<_>>();
        let single = cost::Staged::plan(Opcode::CommPut, 3 * 1024, 1, Some(1024), false).unwrap();
        let mut st = State::default();
        st.push_staged(op(0), &single);
        let ev = starts_ends(&st);
        assert_eq!(ev.iter().map(|e| e.0).collect::<Vec<_>>(), [Pipe::Mte2, Pipe::Mte3].repeat(3));
        for c in 0..3 {
            assert!(ev[2 * c + 1].1 >= ev[2 * c].2, "chunk {c}'s store waits for its load");
            if c > 0 {
                assert!(ev[2 * c].1 >= ev[2 * c - 1].2, "one tile: chunk {c} loads once chunk {} is stored", c - 1);
            }
        }
        let serial = st.summary().total;
        assert_eq!(serial, ev[5].2.round() as u64);
        // The scalar unit and MTE2 go on after the last store.
        st.push(op(1), Pipe::S, None, 1.0, Kind::Scalar);
        assert!(st.events[6].start >= ev[5].2);
        // With a second tile, chunk 1 loads while chunk 0 stores.
        let double = cost::Staged { double_buffered: true, ..single };
        let mut st = State::default();
        st.push_staged(op(0), &double);
        let ev = starts_ends(&st);
        assert!(ev[2].1 < ev[1].2, "chunk 1's load overlaps chunk 0's store");
        assert!(ev[4].1 >= ev[1].2, "chunk 2 reuses chunk 0's tile once it is stored");
        assert!(st.summary().total < serial, "{} vs {serial}", st.summary().total);
    }

    #[test]
    fn transfers_overlap_their_latencies_but_a_flag_waits_for_completion() {
        // Two loads of 32 + 265 cycles each hold MTE2 for 32: the second starts at 32 and both
        // are in flight together; the set after them fires when the second completes, and the
        // load after the set starts at once (a set does not block its pipe).
        let mut st = State::default();
        st.push_held(op(0), Pipe::Mte2, None, 297.0, 32.0, Kind::Transfer);
        st.push_held(op(1), Pipe::Mte2, None, 297.0, 32.0, Kind::Transfer);
        st.sync(op(2), flag(true, Pipe::Mte2, Pipe::V), None);
        st.sync(op(3), flag(false, Pipe::Mte2, Pipe::V), None);
        st.push(op(4), Pipe::V, None, 50.0, Kind::Vector);
        st.push_held(op(5), Pipe::Mte2, None, 297.0, 32.0, Kind::Transfer);
        assert_eq!(st.events[1].start, 32.0);
        assert_eq!(st.events[2].end(), 32.0 + 297.0, "the set fires when the second load's data is in");
        assert_eq!(st.events[3].start, 32.0 + 297.0, "the wait waits for the set to fire");
        assert_eq!(st.events[5].start, 64.0 + cost::SYNC_CYCLES, "the third load does not wait for the set");
        let s = st.summary();
        assert_eq!(s.total, 329 + cost::SYNC_CYCLES as u64 + 50, "the set's own cycle passed while the loads were in flight");
        assert_eq!(s.pipes.iter().find(|p| p.0 == Pipe::Mte2).map(|p| p.1), Some(96 + cost::SYNC_CYCLES as u64));
        let path = st.critical_path();
        assert_eq!(path.iter().map(|p| p.1).sum::<f64>() as u64, s.total);
        // A barrier on the pipe waits for completion too.
        let mut b = State::default();
        b.push_held(op(0), Pipe::Mte2, None, 297.0, 32.0, Kind::Transfer);
        b.sync(op(1), SyncOp::Barrier("PIPE_MTE2".into()), None);
        b.push_held(op(2), Pipe::Mte2, None, 297.0, 32.0, Kind::Transfer);
        assert!(b.events[2].start >= 297.0 + cost::SYNC_CYCLES);
    }
}
