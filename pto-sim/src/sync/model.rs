//! The happens-before model: pipes as actors with vector clocks, flags, barriers, buffer ids,
//! and shadow memory of byte ranges. It knows neither the IR nor the interpreter: a driver
//! ([`super::check`] for `pto run`) submits [`Event`]s in program (issue) order and collects
//! [`Finding`]s.
//!
//! * **Actors** are `(core, pipe)` pairs ([`Actor`]); each has a vector clock over all actors.
//!   An op on pipe `P` is epoch `issued[P]` of `P`.
//! * **Issue and queues.** The scalar unit issues every instruction in program order to its
//!   pipe's queue; each pipe runs its queue in order and stops at a `wait_flag` whose flag is
//!   not set (a `wait_flag` on `PIPE_S`, and `barrier(PIPE_ALL)`, stop the issuer itself, so
//!   nothing after them is issued). A blocked queue resumes when the flag is set, so a wait may
//!   be satisfied by a `set_flag` later in program order on another pipe, as on the hardware.
//!   What is still queued at the end is a deadlock.
//! * **Same-pipe order** is a per-target rule ([`SamePipe`]): on A2A3 only the scalar pipe
//!   completes its memory accesses in order, every other pipe needs `pipe_barrier(P)` between
//!   dependent ops; on A5 only MTE2 and MTE3 do. An op knows its own pipe's earlier ops only
//!   up to the pipe's last barrier (`clock[P][P]`), or all of them on an in-order pipe.
//! * **Edges**: `set_flag(P, Q, id)` releases `P`'s clock (with all of `P`'s issued ops: the
//!   flag fires when they complete) into the flag; `wait_flag` acquires it on `Q`.
//!   `pipe_barrier(P)` makes `P`'s ops complete before its next; `barrier(PIPE_ALL)` joins
//!   every pipe of the core. Buffer ids (`get_buf`/`rls_buf`) are locks that release and
//!   acquire clocks the same way. Cross-core edges (issue 16) will be flags between actors of
//!   different cores: nothing here assumes one core.
//! * **Shadow memory**: per [`Space`] (one on-chip buffer of one core, or one GM array), the
//!   recent accesses with their byte range and epoch. Two overlapping accesses from which at
//!   least one writes, where the earlier is not known to the later's clock, are a hazard
//!   (RAW, WAR or WAW) — also for two ops of one pipe that is not in-order.

pub use super::intervals::HazardKind;
use super::intervals::{By, Intervals, Touch};
use std::collections::{HashMap, VecDeque};

/// A hardware pipe of one core.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pipe {
    /// The scalar unit (also the issuer).
    S,
    /// The vector unit.
    V,
    /// The cube unit.
    M,
    /// L1 -> L0A/L0B/bias moves.
    Mte1,
    /// GM -> UB/L1 DMA.
    Mte2,
    /// UB/L1 -> GM DMA.
    Mte3,
    /// The fixpipe (L0C -> GM/L1/UB).
    Fix,
}

/// Pipes per core.
pub const PIPES: usize = 7;

impl Pipe {
    /// Every pipe, in index order.
    pub const ALL: [Pipe; PIPES] = [Pipe::S, Pipe::V, Pipe::M, Pipe::Mte1, Pipe::Mte2, Pipe::Mte3, Pipe::Fix];

    /// `PIPE_V`, as the sync ops spell it.
    pub fn name(self) -> &'static str {
        match self {
            Pipe::S => "PIPE_S",
            Pipe::V => "PIPE_V",
            Pipe::M => "PIPE_M",
            Pipe::Mte1 => "PIPE_MTE1",
            Pipe::Mte2 => "PIPE_MTE2",
            Pipe::Mte3 => "PIPE_MTE3",
            Pipe::Fix => "PIPE_FIX",
        }
    }

    /// The pipe a `PIPE_*` name denotes (`PIPE_ALL` and the virtual pipes are not one pipe).
    pub fn from_name(name: &str) -> Option<Pipe> {
        Pipe::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// One pipe of one core.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Actor {
    /// The core (0 for the single vector or cube core `pto run` simulates today).
    pub core: u16,
    /// The pipe.
    pub pipe: Pipe,
}

impl Actor {
    /// Its index among all actors (`core * PIPES + pipe`).
    pub fn index(self) -> usize {
        self.core as usize * PIPES + self.pipe as usize
    }
}

/// Which pipes complete their memory accesses in program order without a `pipe_barrier`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SamePipe {
    in_order: [bool; PIPES],
}

impl SamePipe {
    /// Only the listed pipes are in order.
    pub fn in_order(pipes: &[Pipe]) -> SamePipe {
        let mut in_order = [false; PIPES];
        for p in pipes {
            in_order[*p as usize] = true;
        }
        SamePipe { in_order }
    }

    /// Whether ops of `p` are ordered among themselves without a barrier.
    pub fn is_in_order(&self, p: Pipe) -> bool {
        self.in_order[p as usize]
    }
}

/// A memory space: one on-chip buffer of one core, or one GM array. Its numbering is the
/// driver's.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Space(pub u32);

/// One memory access of an op: bytes `start..end` of `space`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// Where.
    pub space: Space,
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// A write (else a read).
    pub write: bool,
    /// An atomic read-modify-write (`tput` with `atomic_add`; `write` is then also set):
    /// atomics of different actors commute, so they conflict only with plain accesses.
    pub atomic: bool,
}

/// What the driver reports, in program order. `S` identifies the op for reports.
#[derive(Clone, Debug, PartialEq)]
pub enum Event<S> {
    /// An op on `actor`'s pipe with its memory accesses.
    Exec {
        /// Which pipe runs it.
        actor: Actor,
        /// What it reads and writes.
        accesses: Vec<Access>,
        /// The op.
        site: S,
    },
    /// `set_flag(src, dst, id)`.
    Set {
        /// The core.
        core: u16,
        /// Source pipe (the one that sets).
        src: Pipe,
        /// Destination pipe (the one that waits).
        dst: Pipe,
        /// Event id.
        id: u32,
        /// The op.
        site: S,
    },
    /// `wait_flag(src, dst, id)`.
    Wait {
        /// The core.
        core: u16,
        /// Source pipe.
        src: Pipe,
        /// Destination pipe (the one that waits).
        dst: Pipe,
        /// Event id.
        id: u32,
        /// The op.
        site: S,
    },
    /// `pipe_barrier(pipe)`, or `barrier(PIPE_ALL)` when `pipe` is `None`.
    Barrier {
        /// The core.
        core: u16,
        /// The pipe, or every pipe.
        pipe: Option<Pipe>,
        /// The op.
        site: S,
    },
    /// `tsync`: the issuer waits until every pipe of the core ran what it was issued, then
    /// every earlier access to the bytes of `ranges` happens before every later op of the
    /// core (all earlier accesses when `ranges` is empty).
    Fence {
        /// The core.
        core: u16,
        /// The bytes waited for (their `write` is ignored).
        ranges: Vec<Access>,
        /// The op.
        site: S,
    },
    /// `get_buf(pipe, id)` (A5 buffer ids).
    GetBuf {
        /// Who acquires.
        actor: Actor,
        /// Buffer id.
        id: u32,
        /// The op.
        site: S,
    },
    /// `rls_buf(pipe, id)`.
    RlsBuf {
        /// Who releases.
        actor: Actor,
        /// Buffer id.
        id: u32,
        /// The op.
        site: S,
    },
    /// `actor` releases what it did so far (every op issued to it) into a sync object between
    /// cores, blocks or ranks (the driver's numbering: a pipe slot pushed or freed, an FFTS
    /// flag, a `syncall` round, a signal).
    Release {
        /// Who releases.
        actor: Actor,
        /// The object.
        object: u64,
        /// The op.
        site: S,
    },
    /// `actor` acquires the object once `after` of its releases have run (the releases the
    /// machine executed before this op: [`Model::acquire`] counts them), so it happens after
    /// them.
    Acquire {
        /// Who acquires.
        actor: Actor,
        /// The object.
        object: u64,
        /// Releases that must have run.
        after: u64,
        /// The op.
        site: S,
    },
}

impl<S: Copy> Event<S> {
    /// The actor whose queue runs the event.
    fn actor(&self) -> Actor {
        match *self {
            Event::Exec { actor, .. }
            | Event::GetBuf { actor, .. }
            | Event::RlsBuf { actor, .. }
            | Event::Release { actor, .. }
            | Event::Acquire { actor, .. } => actor,
            Event::Set { core, src, .. } => Actor { core, pipe: src },
            Event::Wait { core, dst, .. } => Actor { core, pipe: dst },
            Event::Barrier { core, pipe, .. } => Actor { core, pipe: pipe.unwrap_or(Pipe::S) },
            Event::Fence { core, .. } => Actor { core, pipe: Pipe::S },
        }
    }

    /// The op.
    pub fn site(&self) -> S {
        match *self {
            Event::Exec { site, .. }
            | Event::Set { site, .. }
            | Event::Wait { site, .. }
            | Event::Barrier { site, .. }
            | Event::Fence { site, .. }
            | Event::GetBuf { site, .. }
            | Event::RlsBuf { site, .. }
            | Event::Release { site, .. }
            | Event::Acquire { site, .. } => site,
        }
    }
}

/// One side of a hazard.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Side<S> {
    /// The op.
    pub site: S,
    /// Its pipe.
    pub actor: Actor,
    /// The bytes it accessed.
    pub start: u64,
    /// One past them.
    pub end: u64,
}

/// A problem the model found.
#[derive(Clone, Debug, PartialEq)]
pub enum Finding<S> {
    /// Two unordered accesses to overlapping bytes.
    Hazard {
        /// RAW, WAR or WAW.
        kind: HazardKind,
        /// Where.
        space: Space,
        /// The overlap.
        start: u64,
        /// One past it.
        end: u64,
        /// The access that happened first in program order.
        earlier: Side<S>,
        /// The later one.
        later: Side<S>,
    },
    /// `set_flag` of a flag that is still set (never waited since its last set).
    SetWhileSet {
        /// The second set.
        site: S,
        /// The set still pending.
        pending: S,
    },
    /// `rls_buf` of a buffer id the pipe does not hold.
    ReleaseUnheld {
        /// The release.
        site: S,
    },
    /// Pipes still blocked at the end of the kernel (or when too much work piled up behind
    /// them): each with the event it is blocked at and the flags set at that time.
    Deadlock {
        /// `(pipe, the op it is blocked at, ops queued behind it)`.
        blocked: Vec<(Actor, Event<S>, usize)>,
        /// Flags set and not waited: `(core, src, dst, id, set by)`.
        set_flags: Vec<(u16, Pipe, Pipe, u32, S)>,
    },
    /// A flag set and never waited by the end of the kernel.
    Unpaired {
        /// The flag.
        src: Pipe,
        /// The flag.
        dst: Pipe,
        /// The flag.
        id: u32,
        /// The set.
        site: S,
    },
}

/// A flag: `(core, source pipe, destination pipe, event id)`.
type FlagKey = (u16, Pipe, Pipe, u32);

/// A vector clock: for each actor, the last of its epochs known.
type Clock = Vec<u32>;

fn join(into: &mut Clock, other: &Clock) {
    for (a, b) in into.iter_mut().zip(other) {
        *a = (*a).max(*b);
    }
}

/// A recent access in the shadow memory.
#[derive(Clone, Debug)]
struct Entry<S> {
    start: u64,
    end: u64,
    actor: Actor,
    epoch: u32,
    write: bool,
    site: S,
}

/// How many queued events make a blocked pipe a deadlock before the end of the kernel.
pub const MAX_QUEUED: usize = 1 << 16;

/// The model's state.
pub struct Model<S> {
    cores: usize,
    same_pipe: SamePipe,
    /// Per actor: its clock.
    clocks: Vec<Clock>,
    /// Per actor: epochs issued.
    issued: Vec<u32>,
    /// Per actor: events issued and not run yet (blocked behind a wait).
    queues: Vec<VecDeque<Event<S>>>,
    /// Events not issued yet (the issuer of their core is blocked), per core.
    unissued: Vec<VecDeque<Event<S>>>,
    /// Flags that are set: `(core, src, dst, id)` -> (released clock, the set).
    flags: Vec<(FlagKey, Clock, S)>,
    /// Buffer ids: `(core, id)` -> (holder, released clock).
    bufs: Vec<((u16, u32), Option<Actor>, Clock)>,
    /// Shadow memory of the spaces below [`Self::interval_from`], indexed by space.
    shadow: Vec<Vec<Entry<S>>>,
    /// List spaces per core ([`Self::with_local_spaces`]): list space `s` belongs to core
    /// `s / local_per_core`, whose pipes alone access it (0: every actor may).
    local_per_core: u32,
    /// The first space kept as [`Intervals`] (the spaces many actors share).
    interval_from: u32,
    /// Shadow memory of the spaces from [`Self::interval_from`] on.
    intervals: HashMap<u32, Intervals<Actor, S>>,
    /// Sync objects between cores: the clock released into each and the releases run.
    objects: HashMap<u64, (Clock, u64)>,
    /// Releases of each object submitted (run or queued).
    released: HashMap<u64, u64>,
    /// When a space's list is next swept of entries every actor already knows.
    sweep_at: Vec<usize>,
    /// What was found since the driver last took it.
    findings: Vec<Finding<S>>,
    /// A deadlock was reported: no more events are taken.
    stuck: bool,
    /// Events queued on pipes or not issued yet (nothing to drain when 0).
    pending: usize,
}

impl<S: Copy + std::fmt::Debug + PartialEq> Model<S> {
    /// A model of `cores` cores under `same_pipe`.
    pub fn new(cores: usize, same_pipe: SamePipe) -> Model<S> {
        let actors = cores * PIPES;
        Model {
            cores,
            same_pipe,
            clocks: vec![vec![0; actors]; actors],
            issued: vec![0; actors],
            queues: (0..actors).map(|_| VecDeque::new()).collect(),
            unissued: (0..cores).map(|_| VecDeque::new()).collect(),
            flags: Vec::new(),
            bufs: Vec::new(),
            shadow: Vec::new(),
            local_per_core: 0,
            interval_from: u32::MAX,
            intervals: HashMap::new(),
            objects: HashMap::new(),
            released: HashMap::new(),
            sweep_at: Vec::new(),
            findings: Vec::new(),
            stuck: false,
            pending: 0,
        }
    }

    /// Keeps the shadow memory of the spaces from `from` on as byte intervals
    /// ([`Intervals`]): the spaces many actors share, where the list shadow would grow.
    pub fn with_interval_spaces(mut self, from: Space) -> Model<S> {
        self.interval_from = from.0;
        self
    }

    /// The list spaces are per core, `per_core` of them each (space `s` is core
    /// `s / per_core`'s): only that core's pipes access one, so only their clocks decide when
    /// an entry can race with nothing any more.
    pub fn with_local_spaces(mut self, per_core: u32) -> Model<S> {
        self.local_per_core = per_core;
        self
    }

    /// The same-pipe rule from now on (a machine's model learns its target from the first
    /// core that checks its pipes).
    pub fn set_same_pipe(&mut self, same_pipe: SamePipe) {
        self.same_pipe = same_pipe;
    }

    /// Makes room for the actors of core `core` (a machine names its cores as they start).
    fn ensure_core(&mut self, core: usize) {
        if core < self.cores {
            return;
        }
        let cores = core + 1;
        let actors = cores * PIPES;
        for c in &mut self.clocks {
            c.resize(actors, 0);
        }
        self.clocks.resize(actors, vec![0; actors]);
        for (c, _) in self.objects.values_mut() {
            c.resize(actors, 0);
        }
        for f in &mut self.flags {
            f.1.resize(actors, 0);
        }
        for b in &mut self.bufs {
            b.2.resize(actors, 0);
        }
        self.issued.resize(actors, 0);
        self.queues.resize_with(actors, VecDeque::new);
        self.unissued.resize_with(cores, VecDeque::new);
        self.cores = cores;
    }

    /// Submits `actor`'s release of `object`.
    pub fn release(&mut self, actor: Actor, object: u64, site: S) {
        *self.released.entry(object).or_default() += 1;
        self.submit(Event::Release { actor, object, site });
    }

    /// Submits `actor`'s acquire of `object`, after every release of it submitted so far (the
    /// machine ran them before this op: a pop after its push, a wait after its set).
    pub fn acquire(&mut self, actor: Actor, object: u64, site: S) {
        let after = self.released.get(&object).copied().unwrap_or(0);
        self.submit(Event::Acquire { actor, object, after, site });
    }

    /// Takes what was found so far.
    pub fn take_findings(&mut self) -> Vec<Finding<S>> {
        std::mem::take(&mut self.findings)
    }

    /// Whether anything was found since the last [`Self::take_findings`].
    pub fn has_findings(&self) -> bool {
        !self.findings.is_empty()
    }

    /// Submits the next event in program order and runs what can run.
    pub fn submit(&mut self, e: Event<S>) {
        if self.stuck {
            return;
        }
        let core = e.actor().core as usize;
        self.ensure_core(core);
        if !self.issuer_free(core) || !self.unissued[core].is_empty() {
            self.pending += 1;
            self.unissued[core].push_back(e);
            if self.unissued[core].len() > MAX_QUEUED {
                self.report_deadlock();
            }
            return;
        }
        self.issue(e);
        if self.pending > 0 {
            self.drain();
        }
    }

    /// [`Self::submit`] of an [`Event::Exec`] without building the event (no allocation) when
    /// the pipe can run it at once — the common case.
    pub fn exec(&mut self, actor: Actor, accesses: &[Access], site: S) {
        let core = actor.core as usize;
        if self.stuck || self.pending > 0 || core >= self.cores || !self.issuer_free(core) || !self.unissued[core].is_empty() {
            self.submit(Event::Exec { actor, accesses: accesses.to_vec(), site });
            return;
        }
        self.run_exec(actor, accesses, site);
    }

    fn run_exec(&mut self, actor: Actor, accesses: &[Access], site: S) {
        let a = actor.index();
        self.issued[a] += 1;
        let epoch = self.issued[a];
        for acc in accesses {
            self.access(actor, epoch, acc, site);
        }
        if self.same_pipe.is_in_order(actor.pipe) {
            self.clocks[a][a] = epoch;
        }
    }

    /// Puts `e` on its pipe's queue (runs it at once when the queue is empty).
    fn issue(&mut self, e: Event<S>) {
        let a = e.actor().index();
        if self.queues[a].is_empty() && self.try_run(&e) {
            return;
        }
        self.pending += 1;
        self.queues[a].push_back(e);
        if self.queues[a].len() > MAX_QUEUED {
            self.report_deadlock();
        }
    }

    /// Runs queued events until none can run.
    fn drain(&mut self) {
        loop {
            let mut progress = false;
            for a in 0..self.queues.len() {
                while let Some(e) = self.queues[a].front().cloned() {
                    if !self.try_run(&e) {
                        break;
                    }
                    self.queues[a].pop_front();
                    self.pending -= 1;
                    progress = true;
                }
            }
            for core in 0..self.cores {
                while self.issuer_free(core) {
                    let Some(e) = self.unissued[core].pop_front() else { break };
                    self.pending -= 1;
                    self.issue(e);
                    progress = true;
                }
            }
            if !progress || self.stuck {
                return;
            }
        }
    }

    /// The issuer of `core` runs: its scalar queue is empty.
    fn issuer_free(&self, core: usize) -> bool {
        self.queues[core * PIPES + Pipe::S as usize].is_empty()
    }

    /// Runs `e` if it is not blocked; false when it is.
    fn try_run(&mut self, e: &Event<S>) -> bool {
        match e {
            Event::Exec { actor, accesses, site } => self.run_exec(*actor, accesses, *site),
            Event::Set { core, src, dst, id, site } => {
                let key = (*core, *src, *dst, *id);
                let a = Actor { core: *core, pipe: *src }.index();
                let mut clock = self.clocks[a].clone();
                clock[a] = self.issued[a];
                if let Some(f) = self.flags.iter_mut().find(|f| f.0 == key) {
                    self.findings.push(Finding::SetWhileSet { site: *site, pending: f.2 });
                    join(&mut f.1, &clock);
                } else {
                    self.flags.push((key, clock, *site));
                }
            }
            Event::Wait { core, src, dst, id, .. } => {
                let key = (*core, *src, *dst, *id);
                let Some(i) = self.flags.iter().position(|f| f.0 == key) else { return false };
                let (_, clock, _) = self.flags.swap_remove(i);
                join(&mut self.clocks[Actor { core: *core, pipe: *dst }.index()], &clock);
            }
            Event::Barrier { core, pipe: Some(p), .. } => {
                let a = Actor { core: *core, pipe: *p }.index();
                self.clocks[a][a] = self.issued[a];
            }
            Event::Barrier { core, pipe: None, .. } => {
                let range = *core as usize * PIPES..(*core as usize + 1) * PIPES;
                let s = *core as usize * PIPES + Pipe::S as usize;
                // Every other pipe of the core must have run its queue.
                if range.clone().any(|a| a != s && !self.queues[a].is_empty()) {
                    return false;
                }
                let mut all = vec![0; self.clocks.len()];
                for a in range.clone() {
                    join(&mut all, &self.clocks[a]);
                    all[a] = all[a].max(self.issued[a]);
                }
                for a in range {
                    self.clocks[a].clone_from(&all);
                }
            }
            Event::Fence { core, ranges, .. } => {
                let range = *core as usize * PIPES..(*core as usize + 1) * PIPES;
                let s = *core as usize * PIPES + Pipe::S as usize;
                if range.clone().any(|a| a != s && !self.queues[a].is_empty()) {
                    return false;
                }
                // What the core's clocks learn: each actor's last epoch that accessed the bytes.
                let mut known = vec![0; self.clocks.len()];
                if ranges.is_empty() {
                    for a in range.clone() {
                        known[a] = self.issued[a];
                    }
                }
                for r in ranges {
                    let listed = self.shadow.get(r.space.0 as usize).into_iter().flatten();
                    let listed = listed.filter(|e| e.start < r.end && r.start < e.end).map(|e| (e.actor, e.epoch));
                    let intervals = self.intervals.get(&r.space.0).into_iter().flat_map(|iv| iv.stamps_within(r.start, r.end));
                    for (actor, epoch) in listed.chain(intervals) {
                        if range.contains(&actor.index()) {
                            let k = &mut known[actor.index()];
                            *k = (*k).max(epoch);
                        }
                    }
                }
                for a in range {
                    join(&mut self.clocks[a], &known);
                }
            }
            Event::GetBuf { actor, id, .. } => {
                let key = (actor.core, *id);
                let a = actor.index();
                match self.bufs.iter_mut().find(|b| b.0 == key) {
                    Some(b) if b.1.is_some_and(|h| h != *actor) => return false,
                    Some(b) => {
                        b.1 = Some(*actor);
                        let released = b.2.clone();
                        join(&mut self.clocks[a], &released);
                    }
                    None => self.bufs.push((key, Some(*actor), vec![0; self.clocks.len()])),
                }
            }
            Event::Release { actor, object, .. } => {
                let a = actor.index();
                let mut clock = self.clocks[a].clone();
                clock[a] = self.issued[a];
                let o = self.objects.entry(*object).or_insert_with(|| (vec![0; clock.len()], 0));
                join(&mut o.0, &clock);
                o.1 += 1;
            }
            Event::Acquire { actor, object, after, .. } => {
                let runs = self.objects.get(object).map_or(0, |o| o.1);
                if runs < *after {
                    return false;
                }
                if let Some((clock, _)) = self.objects.get(object) {
                    join(&mut self.clocks[actor.index()], clock);
                }
            }
            Event::RlsBuf { actor, id, site } => {
                let key = (actor.core, *id);
                let a = actor.index();
                let mut clock = self.clocks[a].clone();
                clock[a] = self.issued[a];
                match self.bufs.iter_mut().find(|b| b.0 == key && b.1 == Some(*actor)) {
                    Some(b) => {
                        b.1 = None;
                        b.2 = clock;
                    }
                    None => self.findings.push(Finding::ReleaseUnheld { site: *site }),
                }
            }
        }
        true
    }

    /// Checks one access against the shadow memory of its space and records it.
    fn access(&mut self, actor: Actor, epoch: u32, acc: &Access, site: S) {
        if acc.space.0 >= self.interval_from {
            let clock = &self.clocks[actor.index()];
            let iv = self.intervals.entry(acc.space.0).or_default();
            let mut hits = Vec::new();
            let touch = Touch { start: acc.start, end: acc.end, write: acc.write, atomic: acc.atomic };
            iv.access(By { actor, index: actor.index(), epoch, clock, site }, &touch, &mut hits);
            self.findings.extend(hits.into_iter().map(|h| Finding::Hazard {
                kind: h.kind,
                space: acc.space,
                start: h.start,
                end: h.end,
                earlier: Side { site: h.site, actor: h.actor, start: h.bytes.0, end: h.bytes.1 },
                later: Side { site, actor, start: acc.start, end: acc.end },
            }));
            return;
        }
        let sp = acc.space.0 as usize;
        if sp >= self.shadow.len() {
            self.shadow.resize_with(sp + 1, Vec::new);
            self.sweep_at.resize(sp + 1, 64);
        }
        let clock = &self.clocks[actor.index()];
        let list = &mut self.shadow[sp];
        for e in list.iter() {
            if e.start >= acc.end || acc.start >= e.end || !(e.write || acc.write) {
                continue;
            }
            let ordered = clock[e.actor.index()] >= e.epoch;
            if ordered || (e.actor == actor && e.epoch == epoch) {
                continue;
            }
            let kind = match (e.write, acc.write) {
                (true, true) => HazardKind::Waw,
                (true, false) => HazardKind::Raw,
                _ => HazardKind::War,
            };
            self.findings.push(Finding::Hazard {
                kind,
                space: acc.space,
                start: e.start.max(acc.start),
                end: e.end.min(acc.end),
                earlier: Side { site: e.site, actor: e.actor, start: e.start, end: e.end },
                later: Side { site, actor, start: acc.start, end: acc.end },
            });
        }
        // Entries this access supersedes: a write covering them (any race with them is a race
        // with this write too, or was just reported), or an older read of the same pipe.
        list.retain(|e| {
            let covered = e.start >= acc.start && e.end <= acc.end;
            !(covered && (acc.write || (!e.write && e.actor == actor)))
        });
        list.push(Entry { start: acc.start, end: acc.end, actor, epoch, write: acc.write, site });
        if list.len() >= self.sweep_at[sp] {
            // Entries every actor that may access the space knows can race with nothing any
            // more.
            let clocks = match self.local_per_core {
                0 => &self.clocks[..],
                n => {
                    let core = sp / n as usize;
                    &self.clocks[core * PIPES..(core + 1) * PIPES]
                }
            };
            list.retain(|e| clocks.iter().any(|c| c[e.actor.index()] < e.epoch));
            self.sweep_at[sp] = (list.len() * 2).max(64);
        }
    }

    /// Reports what blocks the stuck pipes, one deadlock per core with blocked pipes, and stops
    /// taking events.
    fn report_deadlock(&mut self) {
        for core in 0..self.cores {
            let mut blocked = Vec::new();
            for a in core * PIPES..(core + 1) * PIPES {
                if let Some(front) = self.queues[a].front() {
                    let actor = Actor { core: core as u16, pipe: Pipe::ALL[a % PIPES] };
                    blocked.push((actor, front.clone(), self.queues[a].len() - 1));
                }
            }
            if blocked.is_empty() {
                continue;
            }
            let set_flags =
                self.flags.iter().filter(|f| f.0.0 as usize == core).map(|((c, s, d, i), _, site)| (*c, *s, *d, *i, *site)).collect();
            self.findings.push(Finding::Deadlock { blocked, set_flags });
        }
        self.stuck = true;
    }

    /// The end of the kernel: a deadlock if anything is still queued, else every flag still
    /// set is unpaired.
    pub fn finish(&mut self) {
        if self.stuck {
            return;
        }
        self.drain();
        let stuck: Vec<bool> = (0..self.cores)
            .map(|c| !self.unissued[c].is_empty() || self.queues[c * PIPES..(c + 1) * PIPES].iter().any(|q| !q.is_empty()))
            .collect();
        if stuck.contains(&true) {
            self.report_deadlock();
        }
        // The flags of a core that ended are unpaired (a deadlocked core's are named by its
        // deadlock).
        for ((core, src, dst, id), _, site) in std::mem::take(&mut self.flags) {
            if !stuck[core as usize] {
                self.findings.push(Finding::Unpaired { src, dst, id, site });
            }
        }
    }

    /// A hash of the model's state abstracted for the static check's loop fixpoint
    /// ([`super::paths`]): everything that decides what later events find, without the
    /// absolute epochs (which grow with every iteration). It covers
    ///
    /// * the flags that are set (key and setting op), the buffer ids held (key, holder), and
    ///   what is queued: per pipe and per core's issuer, the blocking event and the set of ops
    ///   queued behind it (not their count: a wait that never passes piles up one more copy
    ///   of the loop body per iteration, which finds nothing new);
    /// * each shadow-memory entry some pipe's clock does not cover yet (those that every pipe
    ///   covers can race with nothing any more): its op (`key`), pipe, read/write, byte range
    ///   (a GM range — `gm(space)` — relative to the lowest live GM entry of its array, so a
    ///   window that moves by a constant stride per iteration repeats), and which clocks cover
    ///   it — each pipe's, each set flag's, each free buffer id's. Whether a later op races with
    ///   an entry depends only on these: a later op's clock is its pipe's joined with flags
    ///   and buffer clocks released later, which cover every entry of the releasing pipe.
    ///
    /// Two states with the same hash (up to collisions) run any further events alike.
    pub fn abstract_state(&self, key: impl Fn(&S) -> u64, gm: impl Fn(Space) -> bool) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        let event = |h: &mut std::collections::hash_map::DefaultHasher, e: &Event<S>| {
            key(&e.site()).hash(h);
            std::mem::discriminant(e).hash(h);
        };
        let mut flags: Vec<(FlagKey, u64)> = self.flags.iter().map(|(k, _, s)| (*k, key(s))).collect();
        flags.sort_unstable();
        flags.hash(&mut h);
        let mut bufs: Vec<((u16, u32), Option<usize>)> = self.bufs.iter().map(|(k, a, _)| (*k, a.map(|a| a.index()))).collect();
        bufs.sort_unstable();
        bufs.hash(&mut h);
        self.stuck.hash(&mut h);
        for q in self.queues.iter().chain(&self.unissued) {
            q.len().min(1).hash(&mut h);
            if let Some(front) = q.front() {
                event(&mut h, front);
                let mut behind: Vec<u64> = q.iter().skip(1).map(|e| key(&e.site())).collect();
                behind.sort_unstable();
                behind.dedup();
                behind.hash(&mut h);
            }
        }
        // The clocks whose coverage matters, in a fixed order.
        let mut clocks: Vec<&Clock> = self.clocks.iter().collect();
        let mut flag_order: Vec<usize> = (0..self.flags.len()).collect();
        flag_order.sort_unstable_by_key(|&i| self.flags[i].0);
        clocks.extend(flag_order.iter().map(|&i| &self.flags[i].1));
        let mut buf_order: Vec<usize> = (0..self.bufs.len()).filter(|&i| self.bufs[i].1.is_none()).collect();
        buf_order.sort_unstable_by_key(|&i| self.bufs[i].0);
        clocks.extend(buf_order.iter().map(|&i| &self.bufs[i].2));
        let mut objects: Vec<&u64> = self.objects.keys().collect();
        objects.sort_unstable();
        clocks.extend(objects.into_iter().map(|o| &self.objects[o].0));
        let pipes = self.clocks.len();
        /// A live access: (space, start, end, op, actor, write, which clocks cover it).
        type Live = (u32, u64, u64, u64, usize, bool, Vec<bool>);
        let mut live: Vec<Live> = Vec::new();
        let listed = self.shadow.iter().enumerate().map(|(sp, list)| {
            let entries: Box<dyn Iterator<Item = (u64, u64, S, Actor, u32, bool)>> =
                Box::new(list.iter().map(|e| (e.start, e.end, e.site, e.actor, e.epoch, e.write)));
            (sp as u32, entries)
        });
        let mut interval_spaces: Vec<u32> = self.intervals.keys().copied().collect();
        interval_spaces.sort_unstable();
        let intervals = interval_spaces.into_iter().map(|sp| {
            let entries: Box<dyn Iterator<Item = (u64, u64, S, Actor, u32, bool)>> = Box::new(self.intervals[&sp].entries());
            (sp, entries)
        });
        for (sp, entries) in listed.chain(intervals) {
            let first = live.len();
            for (start, end, site, actor, epoch, write) in entries {
                let a = actor.index();
                let covered: Vec<bool> = clocks.iter().map(|c| c[a] >= epoch).collect();
                if covered[..pipes].iter().all(|&c| c) {
                    continue;
                }
                live.push((sp, start, end, key(&site), a, write, covered));
            }
            if gm(Space(sp))
                && let Some(base) = live[first..].iter().map(|l| l.1).min()
            {
                for l in &mut live[first..] {
                    l.1 -= base;
                    l.2 = l.2.saturating_sub(base);
                }
            }
        }
        live.sort_unstable();
        live.dedup();
        live.hash(&mut h);
        h.finish()
    }

    /// Whether the pipe `actor` is blocked now (its queue is not empty).
    pub fn is_blocked(&self, actor: Actor) -> bool {
        !self.queues[actor.index()].is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A2A3: &[Pipe] = &[Pipe::S];
    const UB: Space = Space(0);

    fn at(pipe: Pipe) -> Actor {
        Actor { core: 0, pipe }
    }
    fn exec(pipe: Pipe, site: u32, accesses: &[(u64, u64, bool)]) -> Event<u32> {
        let accesses = accesses.iter().map(|&(start, end, write)| Access { space: UB, start, end, write, atomic: false }).collect();
        Event::Exec { actor: at(pipe), accesses, site }
    }
    fn set(src: Pipe, dst: Pipe, id: u32, site: u32) -> Event<u32> {
        Event::Set { core: 0, src, dst, id, site }
    }
    fn wait(src: Pipe, dst: Pipe, id: u32, site: u32) -> Event<u32> {
        Event::Wait { core: 0, src, dst, id, site }
    }
    fn model(in_order: &[Pipe]) -> Model<u32> {
        Model::new(1, SamePipe::in_order(in_order))
    }
    /// `(kind, earlier site, later site, overlap)` of every hazard.
    fn hazards(m: &mut Model<u32>) -> Vec<(HazardKind, u32, u32, u64, u64)> {
        m.take_findings()
            .into_iter()
            .filter_map(|f| match f {
                Finding::Hazard { kind, start, end, earlier, later, .. } => Some((kind, earlier.site, later.site, start, end)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn unordered_pipes_race_and_a_flag_orders_them() {
        let mut m = model(A2A3);
        m.submit(exec(Pipe::Mte2, 1, &[(0, 1024, true)]));
        m.submit(exec(Pipe::V, 2, &[(512, 2048, false)]));
        assert_eq!(hazards(&mut m), vec![(HazardKind::Raw, 1, 2, 512, 1024)]);

        let mut m = model(A2A3);
        m.submit(exec(Pipe::Mte2, 1, &[(0, 1024, true)]));
        m.submit(set(Pipe::Mte2, Pipe::V, 0, 2));
        m.submit(wait(Pipe::Mte2, Pipe::V, 0, 3));
        m.submit(exec(Pipe::V, 4, &[(0, 1024, false), (4096, 8192, true)]));
        m.submit(exec(Pipe::Mte3, 5, &[(4096, 8192, false)]));
        m.submit(exec(Pipe::Mte2, 6, &[(0, 1024, true)]));
        // MTE3 reads what V wrote (no V -> MTE3 flag); MTE2 overwrites what V read, and what
        // it wrote itself before (A2A3: no pipe_barrier(PIPE_MTE2), and no flag back from V).
        assert_eq!(
            hazards(&mut m),
            vec![(HazardKind::Raw, 4, 5, 4096, 8192), (HazardKind::Waw, 1, 6, 0, 1024), (HazardKind::War, 4, 6, 0, 1024)]
        );
        m.finish();
        assert!(m.take_findings().is_empty());
    }

    #[test]
    fn disjoint_bytes_and_two_reads_never_race() {
        let mut m = model(A2A3);
        m.submit(exec(Pipe::Mte2, 1, &[(0, 1024, true)]));
        m.submit(exec(Pipe::V, 2, &[(1024, 2048, true)]));
        m.submit(exec(Pipe::Mte3, 3, &[(1024, 2048, false)]));
        m.submit(exec(Pipe::M, 4, &[(1024, 2048, false)]));
        assert_eq!(hazards(&mut m), vec![(HazardKind::Raw, 2, 3, 1024, 2048), (HazardKind::Raw, 2, 4, 1024, 2048)]);
        let mut m = model(A2A3);
        m.submit(exec(Pipe::V, 1, &[(0, 64, false)]));
        m.submit(exec(Pipe::Mte3, 2, &[(0, 64, false)]));
        assert!(hazards(&mut m).is_empty());
    }

    #[test]
    fn the_same_pipe_needs_a_barrier_unless_the_target_orders_it() {
        // A2A3: V -> V needs pipe_barrier(PIPE_V).
        let mut m = model(A2A3);
        m.submit(exec(Pipe::V, 1, &[(0, 64, true)]));
        m.submit(exec(Pipe::V, 2, &[(0, 64, false)]));
        assert_eq!(hazards(&mut m), vec![(HazardKind::Raw, 1, 2, 0, 64)]);
        let mut m = model(A2A3);
        m.submit(exec(Pipe::V, 1, &[(0, 64, true)]));
        m.submit(Event::Barrier { core: 0, pipe: Some(Pipe::V), site: 2 });
        m.submit(exec(Pipe::V, 3, &[(0, 64, false)]));
        assert!(hazards(&mut m).is_empty());
        // A5: V is in order; MTE2 is not.
        let a5 = [Pipe::S, Pipe::V, Pipe::M, Pipe::Mte1, Pipe::Fix];
        let mut m = model(&a5);
        m.submit(exec(Pipe::V, 1, &[(0, 64, true)]));
        m.submit(exec(Pipe::V, 2, &[(0, 64, false)]));
        m.submit(exec(Pipe::Mte2, 3, &[(128, 192, true)]));
        m.submit(exec(Pipe::Mte2, 4, &[(128, 192, true)]));
        assert_eq!(hazards(&mut m), vec![(HazardKind::Waw, 3, 4, 128, 192)]);
        // The scalar pipe is in order on both.
        let mut m = model(A2A3);
        m.submit(exec(Pipe::S, 1, &[(0, 4, true)]));
        m.submit(exec(Pipe::S, 2, &[(0, 4, false)]));
        assert!(hazards(&mut m).is_empty());
    }

    #[test]
    fn ordering_is_transitive_through_flags() {
        // MTE2 -> V -> MTE3: MTE3 knows MTE2's write without its own flag.
        let mut m = model(A2A3);
        m.submit(exec(Pipe::Mte2, 1, &[(0, 64, true)]));
        m.submit(set(Pipe::Mte2, Pipe::V, 0, 2));
        m.submit(wait(Pipe::Mte2, Pipe::V, 0, 3));
        m.submit(exec(Pipe::V, 4, &[(0, 64, false)]));
        m.submit(set(Pipe::V, Pipe::Mte3, 0, 5));
        m.submit(wait(Pipe::V, Pipe::Mte3, 0, 6));
        m.submit(exec(Pipe::Mte3, 7, &[(0, 64, false)]));
        m.submit(exec(Pipe::Mte2, 8, &[(64, 128, false)]));
        m.finish();
        assert!(m.take_findings().is_empty());
    }

    #[test]
    fn barrier_all_orders_everything_before_it() {
        let mut m = model(A2A3);
        m.submit(exec(Pipe::Mte2, 1, &[(0, 64, true)]));
        m.submit(exec(Pipe::V, 2, &[(64, 128, true)]));
        m.submit(Event::Barrier { core: 0, pipe: None, site: 3 });
        m.submit(exec(Pipe::V, 4, &[(0, 128, false)]));
        m.submit(exec(Pipe::Mte3, 5, &[(0, 128, false)]));
        m.finish();
        assert!(m.take_findings().is_empty());
    }

    #[test]
    fn a_wait_before_its_set_in_program_order_is_satisfied_later() {
        // MTE3 waits; V sets afterwards in program order: MTE3's queue resumes then.
        let mut m = model(A2A3);
        m.submit(wait(Pipe::V, Pipe::Mte3, 0, 1));
        m.submit(exec(Pipe::Mte3, 2, &[(0, 64, false)]));
        assert!(m.is_blocked(at(Pipe::Mte3)));
        m.submit(exec(Pipe::V, 3, &[(0, 64, true)]));
        m.submit(set(Pipe::V, Pipe::Mte3, 0, 4));
        assert!(!m.is_blocked(at(Pipe::Mte3)));
        m.finish();
        // The read ran after the write (it waited for the flag set after the write).
        assert!(m.take_findings().is_empty());
    }

    #[test]
    fn a_wait_that_is_never_set_is_a_deadlock_naming_every_blocked_pipe() {
        let mut m = model(A2A3);
        m.submit(wait(Pipe::V, Pipe::Mte2, 0, 1));
        m.submit(exec(Pipe::Mte2, 2, &[(0, 64, true)]));
        m.submit(set(Pipe::Mte2, Pipe::V, 1, 3));
        m.submit(wait(Pipe::Mte2, Pipe::V, 1, 4));
        m.submit(exec(Pipe::V, 5, &[(0, 64, false)]));
        m.submit(set(Pipe::V, Pipe::Mte2, 0, 6));
        m.finish();
        let f = m.take_findings();
        let [Finding::Deadlock { blocked, set_flags }] = &f[..] else { panic!("{f:?}") };
        let fronts: Vec<(Pipe, u32, usize)> = blocked.iter().map(|(a, e, n)| (a.pipe, e.site(), *n)).collect();
        // MTE2 waits for V (site 1) with 2 events behind; V waits for MTE2 (site 4) with 2 behind.
        assert_eq!(fronts, vec![(Pipe::V, 4, 2), (Pipe::Mte2, 1, 2)]);
        assert!(set_flags.is_empty());
    }

    #[test]
    fn a_scalar_wait_stops_the_issuer() {
        // wait_flag(V, S) before the V op that would set it: nothing after is issued.
        let mut m = model(A2A3);
        m.submit(wait(Pipe::V, Pipe::S, 0, 1));
        m.submit(exec(Pipe::V, 2, &[(0, 64, true)]));
        m.submit(set(Pipe::V, Pipe::S, 0, 3));
        m.finish();
        assert!(matches!(&m.take_findings()[..], [Finding::Deadlock { .. }]));
        // Set first: fine, and S then knows V's write.
        let mut m = model(A2A3);
        m.submit(exec(Pipe::V, 1, &[(0, 64, true)]));
        m.submit(set(Pipe::V, Pipe::S, 0, 2));
        m.submit(wait(Pipe::V, Pipe::S, 0, 3));
        m.submit(exec(Pipe::S, 4, &[(0, 4, false)]));
        m.finish();
        assert!(m.take_findings().is_empty());
    }

    #[test]
    fn flag_protocol_misuse_and_unpaired_flags() {
        let mut m = model(A2A3);
        m.submit(set(Pipe::Mte2, Pipe::V, 0, 1));
        m.submit(set(Pipe::Mte2, Pipe::V, 0, 2));
        m.submit(set(Pipe::Mte2, Pipe::V, 1, 3));
        m.submit(wait(Pipe::Mte2, Pipe::V, 0, 4));
        m.finish();
        let f = m.take_findings();
        assert_eq!(
            f,
            vec![Finding::SetWhileSet { site: 2, pending: 1 }, Finding::Unpaired { src: Pipe::Mte2, dst: Pipe::V, id: 1, site: 3 }]
        );
    }

    #[test]
    fn buffer_ids_order_like_locks() {
        let mut m = model(A2A3);
        let get = |pipe, site| Event::GetBuf { actor: at(pipe), id: 0, site };
        let rls = |pipe, site| Event::RlsBuf { actor: at(pipe), id: 0, site };
        m.submit(get(Pipe::Mte2, 1));
        m.submit(exec(Pipe::Mte2, 2, &[(0, 64, true)]));
        m.submit(rls(Pipe::Mte2, 3));
        m.submit(get(Pipe::V, 4));
        m.submit(exec(Pipe::V, 5, &[(0, 64, false)]));
        m.submit(rls(Pipe::V, 6));
        m.submit(rls(Pipe::V, 7));
        m.finish();
        assert_eq!(m.take_findings(), vec![Finding::ReleaseUnheld { site: 7 }]);
    }

    #[test]
    fn a_loop_carried_hazard_is_found_in_the_second_iteration() {
        // for i: tload buf (MTE2); flag MTE2->V; tadd reads buf (V) — no V->MTE2 flag back.
        let mut m = model(A2A3);
        for i in 0..2 {
            m.submit(exec(Pipe::Mte2, 10 + i, &[(0, 64, true)]));
            m.submit(set(Pipe::Mte2, Pipe::V, 0, 20 + i));
            m.submit(wait(Pipe::Mte2, Pipe::V, 0, 30 + i));
            m.submit(exec(Pipe::V, 40 + i, &[(0, 64, false)]));
        }
        assert_eq!(hazards(&mut m), vec![(HazardKind::Waw, 10, 11, 0, 64), (HazardKind::War, 40, 11, 0, 64)]);
        // With the flag back (V -> MTE2, waited before the next load), nothing.
        let mut m = model(A2A3);
        m.submit(set(Pipe::V, Pipe::Mte2, 0, 1));
        for i in 0..3 {
            m.submit(wait(Pipe::V, Pipe::Mte2, 0, 2));
            m.submit(exec(Pipe::Mte2, 10 + i, &[(0, 64, true)]));
            m.submit(set(Pipe::Mte2, Pipe::V, 0, 20 + i));
            m.submit(wait(Pipe::Mte2, Pipe::V, 0, 30 + i));
            m.submit(exec(Pipe::V, 40 + i, &[(0, 64, false)]));
            m.submit(set(Pipe::V, Pipe::Mte2, 0, 50 + i));
        }
        m.submit(wait(Pipe::V, Pipe::Mte2, 0, 60));
        m.finish();
        assert!(m.take_findings().is_empty());
    }

    #[test]
    fn the_shadow_memory_stays_small_when_everything_is_ordered() {
        let mut m = model(A2A3);
        for i in 0..10_000u32 {
            let at = i as u64 * 64;
            m.submit(exec(Pipe::Mte2, i, &[(at, at + 64, true)]));
            m.submit(Event::Barrier { core: 0, pipe: None, site: i });
        }
        assert!(m.shadow[0].len() <= 128, "{}", m.shadow[0].len());
        assert!(m.take_findings().is_empty());
    }

    /// The loop head state of [`Model::abstract_state`]: one iteration of a correctly
    /// double-flagged loop body, on fresh sites each time (as the loop's ops are the same
    /// sites), leaves the same state; a body that leaves a flag set, or an access no flag
    /// orders, changes it.
    #[test]
    fn the_abstract_state_repeats_exactly_when_an_iteration_changes_nothing_that_matters() {
        let state = |m: &Model<u32>| m.abstract_state(|s| *s as u64, |_| false);
        let body = |m: &mut Model<u32>, at: u64| {
            m.submit(exec(Pipe::Mte2, 1, &[(at, at + 64, true)]));
            m.submit(set(Pipe::Mte2, Pipe::V, 0, 2));
            m.submit(wait(Pipe::Mte2, Pipe::V, 0, 3));
            m.submit(exec(Pipe::V, 4, &[(at, at + 64, false)]));
            m.submit(set(Pipe::V, Pipe::Mte2, 1, 5));
            m.submit(wait(Pipe::V, Pipe::Mte2, 1, 6));
        };
        let mut m = model(A2A3);
        let s0 = state(&m);
        body(&mut m, 0);
        let s1 = state(&m);
        body(&mut m, 0);
        let s2 = state(&m);
        // Epochs grew, the state did not: after one iteration it is steady.
        assert_eq!(s1, s2);
        // The first iteration left an access some pipe has not ordered (V's read, which the
        // scalar pipe does not know), so the state after it differs from the initial one.
        assert_ne!(s0, s1);
        // A flag left set is part of the state.
        m.submit(set(Pipe::Mte2, Pipe::V, 3, 7));
        assert_ne!(state(&m), s2);
        // So is the byte range of an unordered access (on-chip ranges are exact).
        let mut other = model(A2A3);
        body(&mut other, 0);
        body(&mut other, 64);
        assert_ne!(state(&other), s2);
        // A GM range counts relative to the lowest one of its array: a window moving by a
        // stride repeats.
        let gm = |m: &Model<u32>| m.abstract_state(|s| *s as u64, |_| true);
        let (mut a, mut b) = (model(A2A3), model(A2A3));
        body(&mut a, 0);
        body(&mut b, 640);
        assert_eq!(gm(&a), gm(&b));
        assert_ne!(state(&a), state(&b));
    }
}
