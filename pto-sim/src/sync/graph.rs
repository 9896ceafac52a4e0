//! The one happens-before graph of a run: a [`Model`] whose actors are the pipes of every core
//! under one scheduler — the cores of a block, synced blocks, ranks — or of the one core of a
//! single-core run, fed by one event API whoever reports:
//!
//! * the sync checker of a core ([`super::check`]) reports each op's accesses on its pipe
//!   ([`Graph::exec`]: on-chip tiles, and GM windows as exact byte intervals) and the core's
//!   flags, barriers, fences and buffer ids ([`Graph::sync`]);
//! * the instructions between cores (`crate::cores::ops`, `crate::comm::ops`) release and
//!   acquire sync objects ([`Edge`]: pipe slots pushed and freed, FFTS flags, `syncall` rounds,
//!   signals) on the pipe that issues them or on every pipe of the core ([`Graph::release`],
//!   [`Graph::acquire`]), and report the GM accesses of cores whose pipes are not checked and
//!   of the comm instructions ([`Graph::access`]).
//!
//! A core whose pipes are not checked (`--sync-check=auto` on a program without sync ops) is
//! one actor, its scalar pipe: program order, which is what insertion would order. A core
//! whose pipes are checked ([`Graph::set_exact`]) is an actor per pipe.
//!
//! **Spaces.** Each core's on-chip buffers are spaces of its own (a list shadow swept by that
//! core's clocks alone); each GM array is one space every core shares, kept as byte intervals
//! ([`super::intervals`]). On a machine of several cores, an op's GM access that names no
//! bytes (an op taking a view other than `tload`/`tstore`: the whole array) is compared with
//! the same core's accesses only, in a mirror of the array private to the core, which also
//! holds that core's exact GM accesses: a whole-array access would otherwise race every other
//! core's access to the array.
//!
//! **Findings** are kept per core (the core of the later access, or of the blocked pipe) until
//! that core's checker takes them; what runs after a core ended (a queued event another core's
//! release let run) is taken by the checker that ends last, which also finishes the model.

use super::model::{Access, Actor, Event, Finding, HazardKind, Model, Pipe, SamePipe, Space};
use pto_ir::module::OpId;
use std::collections::HashMap;

/// Where an event comes from: the op, and the iteration of the innermost loop running it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// The op.
    pub op: OpId,
    /// `(loop op, iteration index from 0)` of the innermost loop, if any.
    pub iteration: Option<(OpId, u64)>,
}

impl Site {
    /// An op outside any loop the reporter tracks.
    pub fn op(op: OpId) -> Site {
        Site { op, iteration: None }
    }
}

/// A sync object between cores.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Edge {
    /// Slot `index` of logical pipe `pipe` was pushed (released by producers, acquired by the pop).
    Pushed(usize, u64),
    /// Slot `index` of logical pipe `pipe` was freed (acquired by the push that refills it).
    Freed(usize, u64),
    /// FFTS flag (receiving core, id).
    Flag(usize, i64),
    /// A `comm.tnotify` into signal GM array `arg` (released by the notify, acquired by a
    /// `twait` / true `ttest` on it): the edge between ranks.
    Signal(usize),
    /// Round `n` of rank `r`'s `syncall` barrier (released by every arrival, acquired on
    /// leaving): `(r, n)`.
    Barrier(u32, u64),
}

impl Edge {
    /// The name of the edge drawn as a flow between two cores' events in a trace.
    pub fn flow_name(self) -> &'static str {
        match self {
            Edge::Pushed(..) => "push→pop",
            Edge::Freed(..) => "free→push",
            Edge::Flag(..) => "ffts set→wait",
            Edge::Signal(..) => "notify→wait",
            Edge::Barrier(..) => "syncall",
        }
    }
}

/// What an access does to its bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A read (`tload`, a comm read).
    Read,
    /// A write (`tstore`, a comm store).
    Write,
    /// An atomic read-modify-write (`tput` with `atomic_add`): atomics of different cores
    /// commute, so they conflict only with plain reads and writes.
    Atomic,
}

/// How a reporter numbers spaces ([`super::effects`]): an on-chip buffer of its core by its
/// location, below this; GM array `arg` as `Space(GM_BASE + arg)`.
pub const GM_BASE: u32 = 16;
/// [`GM_BASE`] where the graph maps a reporter's numbering.
const WIRE_GM: u32 = GM_BASE;
/// On-chip spaces per core in the model.
const LOCAL: u32 = 16;
/// The first GM space in the model (every core's on-chip spaces come below it).
const GM: u32 = 1 << 24;
/// The first core-private GM mirror (`PRIVATE + core * ARGS + arg`).
const PRIVATE: u32 = 1 << 28;
/// GM arrays per core's mirror (a rank machine numbers every rank's arrays in one list). With
/// at most `MAX_ACTORS` (256) cores under a scheduler, every space fits a `u32`.
const ARGS: u32 = 1 << 20;

/// A GM hazard between two cores: its class, the earlier access's core and op.
#[derive(Clone, Debug, PartialEq)]
pub struct CrossHazard {
    /// RAW, WAR or WAW.
    pub kind: HazardKind,
    /// The core of the earlier access (its index under the scheduler).
    pub core: usize,
    /// Its op.
    pub op: OpId,
    /// Its pipe, when its core's pipes are actors of their own ([`Graph::set_exact`]).
    pub pipe: Option<Pipe>,
    /// The later access's op.
    pub later: Site,
    /// The GM array.
    pub arg: usize,
    /// The first bytes the two accesses share.
    pub bytes: (u64, u64),
}

/// The happens-before graph of the cores under one scheduler (or of one core).
pub struct Graph {
    model: Model<Site>,
    /// The model's number of each sync object.
    objects: HashMap<Edge, u64>,
    /// Reused for the accesses of one op.
    accesses: Vec<Access>,
    /// The cores whose pipes are actors of their own ([`Graph::set_exact`]).
    exact: Vec<bool>,
    /// Several cores share the graph: whole-array GM accesses stay core-private.
    machine: bool,
    /// Findings not taken yet, per core.
    found: Vec<Vec<Finding<Site>>>,
    /// Cores whose checkers ended ([`Graph::end`]).
    ended: Vec<bool>,
    /// The cores sharing the graph (1 on a single core).
    cores: usize,
}

impl Default for Graph {
    fn default() -> Self {
        Graph::new(SamePipe::in_order(&Pipe::ALL))
    }
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph").field("objects", &self.objects.len()).finish_non_exhaustive()
    }
}

impl Graph {
    /// A graph under `same_pipe` (a machine's graph learns its target's rule from the first
    /// core whose pipes are checked: [`Graph::set_exact`]).
    pub fn new(same_pipe: SamePipe) -> Graph {
        // One core: the reporter's numbering as it is (no copy of an op's accesses).
        let model = Model::new(1, same_pipe).with_interval_spaces(Space(WIRE_GM)).with_local_spaces(LOCAL);
        Graph {
            model,
            objects: HashMap::new(),
            accesses: Vec::new(),
            exact: Vec::new(),
            machine: false,
            found: Vec::new(),
            ended: Vec::new(),
            cores: 1,
        }
    }

    /// The graph of one core whose pipes are checked, same-pipe ordered by `same_pipe`.
    pub fn for_core(same_pipe: SamePipe) -> Graph {
        Graph { exact: vec![true], ..Graph::new(same_pipe) }
    }

    /// The graph of the `cores` cores under one scheduler.
    pub fn for_machine(cores: usize) -> Graph {
        let model = Model::new(1, SamePipe::in_order(&Pipe::ALL)).with_interval_spaces(Space(GM)).with_local_spaces(LOCAL);
        Graph { machine: true, cores: cores.max(1), model, ..Graph::default() }
    }

    fn object(&mut self, edge: Edge) -> u64 {
        let next = self.objects.len() as u64;
        *self.objects.entry(edge).or_insert(next)
    }

    fn is_exact(&self, core: usize) -> bool {
        self.exact.get(core).copied().unwrap_or(false)
    }

    /// The actor of `core` for what pipe `pipe` does: the pipe itself on an exact core, the
    /// core's one actor otherwise.
    fn actor(&self, core: usize, pipe: Pipe) -> Actor {
        Actor { core: core as u16, pipe: if self.is_exact(core) { pipe } else { Pipe::S } }
    }

    /// From now on `core`'s pipes are actors of their own, same-pipe ordered by `same_pipe`
    /// (its target's rule), and its checker reports its ops ([`Graph::exec`], [`Graph::sync`]).
    pub fn set_exact(&mut self, core: usize, same_pipe: SamePipe) {
        if self.exact.len() <= core {
            self.exact.resize(core + 1, false);
        }
        self.exact[core] = true;
        self.model.set_same_pipe(same_pipe);
    }

    /// The model's space for `space` as reporter `core` numbers it, and its mirror: on-chip
    /// spaces per core, GM shared (and mirrored per core on a machine).
    fn map(&self, core: usize, space: Space) -> (Space, Option<Space>) {
        let c = core as u32;
        if space.0 < WIRE_GM {
            return (Space(c * LOCAL + space.0), None);
        }
        let arg = space.0 - WIRE_GM;
        let private = Space(PRIVATE + c * ARGS + arg);
        (Space(GM + arg), self.machine.then_some(private))
    }

    /// Model space `space` of a machine's graph as reporters number it: an on-chip buffer by its
    /// location, GM array `arg` (shared or a core's mirror) as `GM_BASE + arg`.
    fn wire(space: Space) -> Space {
        match space.0 {
            s if s >= PRIVATE => Space(WIRE_GM + (s - PRIVATE) % ARGS),
            s if s >= GM => Space(WIRE_GM + (s - GM)),
            s => Space(s % LOCAL),
        }
    }

    /// The accesses of `core` in the model's spaces.
    fn mapped(&mut self, core: usize, accesses: &[Access]) -> Vec<Access> {
        let mut out = std::mem::take(&mut self.accesses);
        out.clear();
        for a in accesses {
            let (space, mirror) = self.map(core, a.space);
            let whole = a.end == u64::MAX;
            if let Some(m) = mirror {
                out.push(Access { space: m, ..*a });
            }
            if !(whole && mirror.is_some()) {
                out.push(Access { space, ..*a });
            }
        }
        out
    }

    /// `core`'s pipe `pipe` runs an op with `accesses` (the reporter's spaces: on-chip buffers
    /// by location, GM arrays from [`super::effects::GM_BASE`]).
    pub fn exec(&mut self, core: usize, pipe: Pipe, accesses: &[Access], site: Site) {
        if !self.machine {
            self.model.exec(self.actor(core, pipe), accesses, site);
            return;
        }
        let accesses = self.mapped(core, accesses);
        self.model.exec(self.actor(core, pipe), &accesses, site);
        self.accesses = accesses;
        self.route(core);
    }

    /// `core`'s intra-core sync event `e` (a flag set or wait, a barrier, a fence, a buffer
    /// id), its actors and ranges as the core's checker numbers them (core 0).
    pub fn sync(&mut self, core: usize, e: Event<Site>) {
        let c = core as u16;
        let at = |a: Actor| Actor { core: c, pipe: a.pipe };
        let e = match e {
            Event::Set { src, dst, id, site, .. } => Event::Set { core: c, src, dst, id, site },
            Event::Wait { src, dst, id, site, .. } => Event::Wait { core: c, src, dst, id, site },
            Event::Barrier { pipe, site, .. } => Event::Barrier { core: c, pipe, site },
            Event::Fence { ranges, site, .. } if self.machine => Event::Fence { core: c, ranges: self.mapped(core, &ranges), site },
            Event::Fence { ranges, site, .. } => Event::Fence { core: c, ranges, site },
            Event::GetBuf { actor, id, site } => Event::GetBuf { actor: at(actor), id, site },
            Event::RlsBuf { actor, id, site } => Event::RlsBuf { actor: at(actor), id, site },
            other => other,
        };
        self.model.submit(e);
        self.route(core);
    }

    /// `core` releases what it did so far into `edge`: what pipe `pipe` did and what the
    /// core's flags ordered before it (an instruction of that pipe), or every pipe of it
    /// (`None`).
    pub fn release(&mut self, core: usize, pipe: Option<Pipe>, edge: Edge) {
        self.on_pipes(core, pipe, edge, Model::release);
    }

    /// `core` acquires `edge`: pipe `pipe` (A5's `wait_intra_block(pipe, ...)` holds that pipe
    /// only), or every pipe of it (`None`: everything it does after happens after the release).
    pub fn acquire(&mut self, core: usize, pipe: Option<Pipe>, edge: Edge) {
        self.on_pipes(core, pipe, edge, Model::acquire);
    }

    /// Applies `step` (a release or an acquire of `edge`) to pipe `pipe` of `core`, or to every
    /// pipe of it.
    fn on_pipes(&mut self, core: usize, pipe: Option<Pipe>, edge: Edge, step: fn(&mut Model<Site>, Actor, u64, Site)) {
        let o = self.object(edge);
        let site = Site::op(OpId(0));
        let actors = match pipe {
            Some(p) => vec![self.actor(core, p)],
            None => self.actors(core),
        };
        for a in actors {
            step(&mut self.model, a, o, site);
        }
        self.route(core);
    }

    /// Every actor of `core`.
    fn actors(&self, core: usize) -> Vec<Actor> {
        let pipes: &[Pipe] = if self.is_exact(core) { &Pipe::ALL } else { &[Pipe::S] };
        pipes.iter().map(|&pipe| Actor { core: core as u16, pipe }).collect()
    }

    /// `core`'s pipe `pipe` accesses the bytes `ranges` (sorted, disjoint: [`crate::byteset`])
    /// of GM array `arg` at `op` (a core whose pipes are not checked, a comm instruction); the
    /// first unordered conflicting access of another core, if any.
    pub fn access(&mut self, core: usize, pipe: Pipe, arg: usize, ranges: &[(u64, u64)], kind: Kind, op: OpId) -> Option<CrossHazard> {
        let (write, atomic) = (kind != Kind::Read, kind == Kind::Atomic);
        let space = Space(WIRE_GM + arg as u32);
        let wire: Vec<Access> = ranges.iter().map(|&(start, end)| Access { space, start, end, write, atomic }).collect();
        self.exec(core, pipe, &wire, Site::op(op));
        let mut found = self.take(core);
        let hazard = found.iter().find_map(|f| self.cross(f));
        // What is not between cores is its checker's to report (a core without one has a
        // single in-order actor: nothing).
        found.retain(|f| self.cross(f).is_none());
        if self.is_exact(core)
            && let Some(slot) = self.found.get_mut(core)
        {
            slot.extend(found);
        }
        hazard
    }

    /// Finding `f` as a hazard between two cores in GM, if it is one.
    pub fn cross(&self, f: &Finding<Site>) -> Option<CrossHazard> {
        let Finding::Hazard { kind, space, start, end, earlier, later } = f else { return None };
        let arg = space.0.checked_sub(WIRE_GM)? as usize;
        (earlier.actor.core != later.actor.core).then(|| CrossHazard {
            kind: *kind,
            core: earlier.actor.core as usize,
            op: earlier.site.op,
            pipe: self.is_exact(earlier.actor.core as usize).then_some(earlier.actor.pipe),
            later: later.site,
            arg,
            bytes: (*start, *end),
        })
    }

    /// Moves the model's findings to the cores they belong to: a hazard to the later access's
    /// core, a deadlock to the blocked core, a flag finding to `core` (whose event it was).
    /// A single core's findings stay in the model until taken.
    fn route(&mut self, core: usize) {
        if !self.machine || !self.model.has_findings() {
            return;
        }
        for mut f in self.model.take_findings() {
            if let Finding::Hazard { space, .. } = &mut f {
                *space = Graph::wire(*space);
            }
            let to = match &f {
                Finding::Hazard { later, .. } => later.actor.core as usize,
                Finding::Deadlock { blocked, .. } => blocked.first().map_or(core, |b| b.0.core as usize),
                Finding::Unpaired { .. } | Finding::SetWhileSet { .. } | Finding::ReleaseUnheld { .. } => core,
            };
            if self.found.len() <= to {
                self.found.resize_with(to + 1, Vec::new);
            }
            self.found[to].push(f);
        }
    }

    /// Whether findings of `core` are waiting to be taken.
    pub fn has_findings(&self, core: usize) -> bool {
        match self.machine {
            false => self.model.has_findings(),
            true => self.found.get(core).is_some_and(|f| !f.is_empty()),
        }
    }

    /// Takes the findings of `core` (their spaces as reporters number them).
    pub fn take(&mut self, core: usize) -> Vec<Finding<Site>> {
        match self.machine {
            false => self.model.take_findings(),
            true => self.found.get_mut(core).map(std::mem::take).unwrap_or_default(),
        }
    }

    /// The checker of `core` ended: its findings, and, when it is the last of the cores sharing
    /// the graph (or the only one), every finding left once the model finished (deadlocks,
    /// unpaired flags, and what ran after other cores ended).
    pub fn end(&mut self, core: usize) -> Vec<Finding<Site>> {
        if self.ended.len() <= core {
            self.ended.resize(core + 1, false);
        }
        self.ended[core] = true;
        let mut out = self.take(core);
        if self.ended.iter().filter(|&&e| e).count() >= self.cores {
            self.model.finish();
            self.route(core);
            out.extend(self.model.take_findings());
            for f in &mut self.found {
                out.append(f);
            }
        }
        out
    }

    /// The state abstracted for the static check's loop fixpoint ([`Model::abstract_state`]:
    /// ops by index, GM arrays by stride).
    pub fn loop_state(&self) -> u64 {
        let gm = if self.machine { GM } else { WIRE_GM };
        self.model.abstract_state(|s| s.op.index() as u64, |sp| sp.0 >= gm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(i: u32) -> OpId {
        OpId(i)
    }

    /// `(kind, earlier core, earlier op, shared bytes)` of a hazard between cores.
    fn seen(h: Option<CrossHazard>) -> Option<(HazardKind, usize, OpId, (u64, u64))> {
        h.map(|h| (h.kind, h.core, h.op, h.bytes))
    }

    #[test]
    fn a_flag_orders_a_store_before_a_load_on_another_core() {
        let mut g = Graph::for_machine(2);
        assert_eq!(g.access(0, Pipe::S, 0, &[(0, 64)], Kind::Write, op(1)), None);
        let raw = g.access(1, Pipe::S, 0, &[(32, 96)], Kind::Read, op(2));
        assert_eq!(seen(raw), Some((HazardKind::Raw, 0, op(1), (32, 64))));
        // With an edge: store, set, wait, load.
        let mut g = Graph::for_machine(2);
        g.access(0, Pipe::S, 0, &[(0, 64)], Kind::Write, op(1));
        g.release(0, None, Edge::Flag(1, 0));
        g.acquire(1, None, Edge::Flag(1, 0));
        assert_eq!(g.access(1, Pipe::S, 0, &[(0, 64)], Kind::Read, op(2)), None);
        // Disjoint bytes never conflict.
        assert_eq!(g.access(0, Pipe::S, 0, &[(64, 128)], Kind::Write, op(3)), None);
    }

    #[test]
    fn a_release_on_one_pipe_carries_what_the_cores_flags_ordered_before_it() {
        // Core 0 reads x on MTE2, then releases on MTE3; core 1 acquires and overwrites x.
        let all = SamePipe::in_order(&Pipe::ALL);
        let run = |flag: bool| {
            let mut g = Graph::for_machine(2);
            g.set_exact(0, all);
            g.set_exact(1, all);
            assert_eq!(g.access(0, Pipe::Mte2, 0, &[(0, 64)], Kind::Read, op(1)), None);
            if flag {
                let (src, dst, id, site) = (Pipe::Mte2, Pipe::Mte3, 0, Site::op(op(2)));
                g.sync(0, Event::Set { core: 0, src, dst, id, site });
                g.sync(0, Event::Wait { core: 0, src, dst, id, site });
            }
            g.release(0, Some(Pipe::Mte3), Edge::Flag(1, 0));
            g.acquire(1, None, Edge::Flag(1, 0));
            g.access(1, Pipe::Mte3, 0, &[(0, 64)], Kind::Write, op(3))
        };
        // Without an MTE2 -> MTE3 flag the release does not cover the read: a WAR hazard.
        let war = run(false).expect("the MTE3 release does not cover the MTE2 read");
        assert_eq!((war.kind, war.core, war.op, war.pipe), (HazardKind::War, 0, op(1), Some(Pipe::Mte2)));
        // With it, the read is ordered before the release.
        assert_eq!(run(true), None);
    }

    #[test]
    fn two_pipes_of_one_core_are_its_checkers_finding_not_a_hazard_between_cores() {
        let mut g = Graph::for_machine(1);
        g.set_exact(0, SamePipe::in_order(&[Pipe::S]));
        assert_eq!(g.access(0, Pipe::Mte2, 0, &[(0, 64)], Kind::Read, op(1)), None);
        assert_eq!(g.access(0, Pipe::Mte3, 0, &[(0, 64)], Kind::Write, op(2)), None);
        let found = g.end(0);
        assert!(
            matches!(&found[..], [Finding::Hazard { kind: HazardKind::War, .. }, ..]),
            "the core's checker gets the pipe pair: {found:?}"
        );
        assert!(found.iter().all(|f| g.cross(f).is_none()));
    }

    #[test]
    fn interleaved_column_halves_of_two_cores_never_conflict() {
        let mut g = Graph::for_machine(2);
        let half = |h: u64| -> Vec<(u64, u64)> { (0..16).map(|r| (r * 64 + h * 32, r * 64 + h * 32 + 32)).collect() };
        assert_eq!(g.access(0, Pipe::S, 0, &half(0), Kind::Write, op(1)), None);
        assert_eq!(g.access(1, Pipe::S, 0, &half(1), Kind::Write, op(2)), None);
        // A read of a whole row by core 1 meets core 0's half of it.
        let raw = g.access(1, Pipe::S, 0, &[(128, 192)], Kind::Read, op(3));
        assert_eq!(seen(raw), Some((HazardKind::Raw, 0, op(1), (128, 160))));
    }

    #[test]
    fn atomic_adds_of_two_cores_commute_but_a_plain_access_conflicts() {
        let mut g = Graph::for_machine(3);
        assert_eq!(g.access(0, Pipe::S, 0, &[(0, 64)], Kind::Atomic, op(1)), None);
        assert_eq!(g.access(1, Pipe::S, 0, &[(0, 64)], Kind::Atomic, op(2)), None);
        let raw = g.access(2, Pipe::S, 0, &[(0, 8)], Kind::Read, op(3)).expect("the read sees a partial sum");
        assert_eq!((raw.kind, raw.op), (HazardKind::Raw, op(1)));
        let waw = g.access(2, Pipe::S, 0, &[(32, 40)], Kind::Write, op(4)).expect("the store races the adds");
        assert_eq!(waw.kind, HazardKind::Waw);
    }

    #[test]
    fn every_earlier_access_is_remembered() {
        // Far more accesses than any bounded list keeps: the first write still conflicts.
        let mut g = Graph::for_machine(2);
        assert_eq!(g.access(0, Pipe::S, 0, &[(0, 4)], Kind::Write, op(1)), None);
        for i in 1..10_000u64 {
            assert_eq!(g.access(0, Pipe::S, 0, &[(i * 4, i * 4 + 4)], Kind::Write, op(2)), None);
        }
        let waw = g.access(1, Pipe::S, 0, &[(0, 4)], Kind::Write, op(3)).expect("unordered");
        assert_eq!((waw.kind, waw.op), (HazardKind::Waw, op(1)));
        // Reads of one core since the last write are all checked by a later write.
        let mut g = Graph::for_machine(3);
        g.access(0, Pipe::S, 0, &[(0, 8)], Kind::Read, op(1));
        g.access(1, Pipe::S, 0, &[(0, 8)], Kind::Read, op(2));
        g.release(0, None, Edge::Flag(2, 0));
        g.acquire(2, None, Edge::Flag(2, 0));
        let war = g.access(2, Pipe::S, 0, &[(0, 8)], Kind::Write, op(3)).expect("core 1's read is unordered");
        assert_eq!((war.kind, war.core), (HazardKind::War, 1));
    }

    #[test]
    fn on_chip_buffers_are_per_core_and_whole_array_accesses_stay_with_their_core() {
        let mut g = Graph::for_machine(2);
        let all = SamePipe::in_order(&[Pipe::S]);
        g.set_exact(0, all);
        g.set_exact(1, all);
        let ub = |write| Access { space: Space(0), start: 0, end: 64, write, atomic: false };
        let whole = |write| Access { space: Space(GM_BASE), start: 0, end: u64::MAX, write, atomic: false };
        // Both cores write their own UB at the same address, and the whole of GM array 0.
        g.exec(0, Pipe::V, &[ub(true), whole(true)], Site::op(op(1)));
        g.exec(1, Pipe::V, &[ub(true), whole(true)], Site::op(op(2)));
        assert!(!g.has_findings(0) && !g.has_findings(1));
        // Core 1 reads its UB on another pipe with no flag: its own pipe pair, in its UB.
        g.exec(1, Pipe::Mte3, &[ub(false)], Site::op(op(3)));
        let found = g.take(1);
        let [Finding::Hazard { kind: HazardKind::Raw, space, earlier, .. }] = &found[..] else { panic!("{found:?}") };
        assert_eq!((*space, earlier.site.op), (Space(0), op(2)));
    }

    #[test]
    fn the_last_core_to_end_finishes_the_graph() {
        let mut g = Graph::for_machine(2);
        g.set_exact(0, SamePipe::in_order(&[Pipe::S]));
        g.set_exact(1, SamePipe::in_order(&[Pipe::S]));
        let site = Site::op(op(1));
        // Core 1 sets a flag it never waits for.
        g.sync(1, Event::Set { core: 0, src: Pipe::Mte2, dst: Pipe::V, id: 0, site });
        assert!(g.end(1).is_empty(), "core 0 has not ended: the graph is not finished");
        let found = g.end(0);
        assert!(matches!(&found[..], [Finding::Unpaired { src: Pipe::Mte2, dst: Pipe::V, .. }]), "{found:?}");
    }
}
