//! Happens-before between the cores of a block, for GM: one vector clock per core, advanced
//! by every GM access the core makes while sync checking is on; pipe slots and FFTS flags
//! are the edges (a push releases the producer's clock into the slot and the pop acquires it;
//! a free releases the consumer's clock to the producer that next fills that slot; a flag set
//! releases into the flag and the wait acquires it). Two overlapping GM accesses of different
//! cores, at least one a write, where the later core does not know the earlier access, are a
//! hazard (`HAZARD_RAW` / `HAZARD_WAR` / `HAZARD_WAW`).
//!
//! It is the happens-before model of [`crate::sync::model`] — the one that orders the pipes of
//! a core — with the edges as releases and acquires of sync objects. A core is one actor (its
//! program order) unless its pipes are checked ([`CrossHb::set_exact`]): then each of its pipes
//! is an actor, its own flags and barriers are forwarded here ([`CrossHb::intra`]), each GM
//! access is on the pipe that makes it, and an FFTS `sync.set <P>` releases only what pipe `P`
//! has done and what the core's flags ordered before it (pto-isa `ffts_cross_core_sync(pipe,
//! ...)`, A5 `set_intra_block(pipe, ...)`: the set is an instruction of that pipe), so a set on
//! the wrong pipe is a hazard. The other edges (slots, `syncall`, signals) release and acquire
//! every pipe of the core, as program order did; a hazard between two pipes of one core is the
//! pipe checker's to report, not this model's. A multi-core run keeps one [`CrossHb`] per scheduler
//! in its shared state. A multi-rank run keeps one for all ranks (each rank one "core"): the
//! comm instructions' reads and writes of local and remote GM are accesses, and a signal
//! (`tnotify` → `twait`) is the edge. Accesses are exact byte sets ([`crate::byteset`]: a
//! strided window is one range per row), and the shadow memory
//! ([`crate::sync::intervals`]) keeps, for every byte, its last write and the reads since (per
//! core).

use crate::sync::model::{Access, Actor, Event, Finding, HazardKind, Model, Pipe, SamePipe, Space};
use pto_ir::diag::DiagClass;
use pto_ir::module::OpId;
use std::collections::HashMap;

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

/// A GM hazard between two cores: its class, the earlier access's core and op.
#[derive(Clone, Debug, PartialEq)]
pub struct CrossHazard {
    /// `HAZARD_RAW`, `HAZARD_WAR` or `HAZARD_WAW`.
    pub class: DiagClass,
    /// The core of the earlier access.
    pub core: usize,
    /// Its op.
    pub op: OpId,
    /// Its pipe, when its core's pipes are actors of their own ([`CrossHb::set_exact`]).
    pub pipe: Option<Pipe>,
    /// The first bytes the two accesses share.
    pub bytes: (u64, u64),
}

/// The happens-before state of the cores under one scheduler.
pub struct CrossHb {
    model: Model<OpId>,
    /// The model's number of each sync object.
    objects: HashMap<Edge, u64>,
    /// Reused for the accesses of one op.
    accesses: Vec<Access>,
    /// The cores whose pipes are actors of their own ([`CrossHb::set_exact`]).
    exact: Vec<bool>,
}

impl Default for CrossHb {
    fn default() -> Self {
        CrossHb::new(0)
    }
}

impl std::fmt::Debug for CrossHb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CrossHb").field("objects", &self.objects.len()).finish_non_exhaustive()
    }
}

impl CrossHb {
    /// State for `cores` cores (more are added as they appear).
    pub fn new(cores: usize) -> CrossHb {
        let model = Model::new(cores, SamePipe::in_order(&Pipe::ALL)).with_interval_spaces(Space(0));
        CrossHb { model, objects: HashMap::new(), accesses: Vec::new(), exact: Vec::new() }
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

    /// Every actor of `core`.
    fn actors(&self, core: usize) -> Vec<Actor> {
        let pipes: &[Pipe] = if self.is_exact(core) { &Pipe::ALL } else { &[Pipe::S] };
        pipes.iter().map(|&pipe| Actor { core: core as u16, pipe }).collect()
    }

    /// From now on `core`'s pipes are actors of their own, ordered by its flags and barriers,
    /// which its pipe checker forwards ([`Self::intra`]).
    pub fn set_exact(&mut self, core: usize) {
        if self.exact.len() <= core {
            self.exact.resize(core + 1, false);
        }
        self.exact[core] = true;
    }

    /// An intra-core sync event of exact `core` (a flag set or wait, a barrier, a buffer id):
    /// it orders the core's pipes here as in the core's own checker. A fence (`tsync`) orders
    /// every pipe here (its byte ranges are the core's checker's).
    pub fn intra(&mut self, core: usize, e: &Event<OpId>) {
        if !self.is_exact(core) {
            return;
        }
        let c = core as u16;
        let at = |a: &Actor| Actor { core: c, pipe: a.pipe };
        let e = match e {
            &Event::Set { src, dst, id, site, .. } => Event::Set { core: c, src, dst, id, site },
            &Event::Wait { src, dst, id, site, .. } => Event::Wait { core: c, src, dst, id, site },
            &Event::Barrier { pipe, site, .. } => Event::Barrier { core: c, pipe, site },
            &Event::Fence { site, .. } => Event::Barrier { core: c, pipe: None, site },
            Event::GetBuf { actor, id, site } => Event::GetBuf { actor: at(actor), id: *id, site: *site },
            Event::RlsBuf { actor, id, site } => Event::RlsBuf { actor: at(actor), id: *id, site: *site },
            _ => return,
        };
        self.model.submit(e);
        // Deadlocks and misuse are the core's checker's to report.
        if self.model.has_findings() {
            self.model.take_findings();
        }
    }

    /// `core` releases what it did so far into `edge`: every pipe of it.
    pub fn release(&mut self, core: usize, edge: Edge) {
        let o = self.object(edge);
        for a in self.actors(core) {
            self.model.release(a, o, OpId(0));
        }
    }

    /// `core`'s pipe `pipe` releases what it did so far, and what the core's flags ordered
    /// before it, into `edge` (an FFTS set on that pipe).
    pub fn release_on(&mut self, core: usize, pipe: Pipe, edge: Edge) {
        let o = self.object(edge);
        self.model.release(self.actor(core, pipe), o, OpId(0));
    }

    /// `core` acquires `edge`: everything it does after happens after the release.
    pub fn acquire(&mut self, core: usize, edge: Edge) {
        let o = self.object(edge);
        for a in self.actors(core) {
            self.model.acquire(a, o, OpId(0));
        }
    }

    /// `core`'s pipe `pipe` acquires `edge` (A5's `wait_intra_block(pipe, ...)` holds that
    /// pipe only).
    pub fn acquire_on(&mut self, core: usize, pipe: Pipe, edge: Edge) {
        let o = self.object(edge);
        self.model.acquire(self.actor(core, pipe), o, OpId(0));
    }

    /// `core`'s pipe `pipe` accesses the bytes `ranges` (sorted, disjoint: [`crate::byteset`])
    /// of GM array `arg` at `op`; the first unordered conflicting access of another core, if
    /// any.
    pub fn access(&mut self, core: usize, pipe: Pipe, arg: usize, ranges: &[(u64, u64)], kind: Kind, op: OpId) -> Option<CrossHazard> {
        let (write, atomic) = (kind != Kind::Read, kind == Kind::Atomic);
        let space = Space(arg as u32);
        self.accesses.clear();
        self.accesses.extend(ranges.iter().map(|&(start, end)| Access { space, start, end, write, atomic }));
        self.model.exec(self.actor(core, pipe), &self.accesses, op);
        if !self.model.has_findings() {
            return None;
        }
        let me = core as u16;
        self.model.take_findings().into_iter().find_map(|f| match f {
            // Two pipes of one core: the pipe checker's.
            Finding::Hazard { earlier, .. } if earlier.actor.core == me => None,
            Finding::Hazard { kind, start, end, earlier, .. } => Some(CrossHazard {
                class: match kind {
                    HazardKind::Raw => DiagClass::HazardRaw,
                    HazardKind::War => DiagClass::HazardWar,
                    HazardKind::Waw => DiagClass::HazardWaw,
                },
                core: earlier.actor.core as usize,
                op: earlier.site,
                pipe: self.is_exact(earlier.actor.core as usize).then_some(earlier.actor.pipe),
                bytes: (start, end),
            }),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_orders_a_store_before_a_load_on_another_core() {
        let mut hb = CrossHb::new(2);
        assert_eq!(hb.access(0, Pipe::S, 0, &[(0, 64)], Kind::Write, OpId(1)), None);
        let raw = hb.access(1, Pipe::S, 0, &[(32, 96)], Kind::Read, OpId(2)).expect("unordered");
        assert_eq!((raw.class, raw.core, raw.op, raw.bytes), (DiagClass::HazardRaw, 0, OpId(1), (32, 64)));
        // With an edge: store, set, wait, load.
        let mut hb = CrossHb::new(2);
        hb.access(0, Pipe::S, 0, &[(0, 64)], Kind::Write, OpId(1));
        hb.release(0, Edge::Flag(1, 0));
        hb.acquire(1, Edge::Flag(1, 0));
        assert_eq!(hb.access(1, Pipe::S, 0, &[(0, 64)], Kind::Read, OpId(2)), None);
        // Disjoint bytes never conflict.
        assert_eq!(hb.access(0, Pipe::S, 0, &[(64, 128)], Kind::Write, OpId(3)), None);
    }

    #[test]
    fn a_release_on_one_pipe_carries_what_the_cores_flags_ordered_before_it() {
        // Core 0 reads x on MTE2, then releases on MTE3; core 1 acquires and overwrites x.
        let run = |flag: bool| {
            let mut hb = CrossHb::new(2);
            hb.set_exact(0);
            hb.set_exact(1);
            assert_eq!(hb.access(0, Pipe::Mte2, 0, &[(0, 64)], Kind::Read, OpId(1)), None);
            if flag {
                let (src, dst, id, site) = (Pipe::Mte2, Pipe::Mte3, 0, OpId(2));
                hb.intra(0, &Event::Set { core: 0, src, dst, id, site });
                hb.intra(0, &Event::Wait { core: 0, src, dst, id, site });
            }
            hb.release_on(0, Pipe::Mte3, Edge::Flag(1, 0));
            hb.acquire(1, Edge::Flag(1, 0));
            hb.access(1, Pipe::Mte3, 0, &[(0, 64)], Kind::Write, OpId(3))
        };
        // Without an MTE2 -> MTE3 flag the release does not cover the read: a WAR hazard.
        let war = run(false).expect("the MTE3 release does not cover the MTE2 read");
        assert_eq!((war.class, war.core, war.op, war.pipe), (DiagClass::HazardWar, 0, OpId(1), Some(Pipe::Mte2)));
        // With it, the read is ordered before the release.
        assert_eq!(run(true), None);
        // Two pipes of one core never conflict here (the core's own checker reports them).
        let mut hb = CrossHb::new(1);
        hb.set_exact(0);
        hb.access(0, Pipe::Mte2, 0, &[(0, 64)], Kind::Read, OpId(1));
        assert_eq!(hb.access(0, Pipe::Mte3, 0, &[(0, 64)], Kind::Write, OpId(2)), None);
    }

    #[test]
    fn interleaved_column_halves_of_two_cores_never_conflict() {
        let mut hb = CrossHb::new(2);
        let half = |h: u64| -> Vec<(u64, u64)> { (0..16).map(|r| (r * 64 + h * 32, r * 64 + h * 32 + 32)).collect() };
        assert_eq!(hb.access(0, Pipe::S, 0, &half(0), Kind::Write, OpId(1)), None);
        assert_eq!(hb.access(1, Pipe::S, 0, &half(1), Kind::Write, OpId(2)), None);
        // A read of a whole row by core 1 meets core 0's half of it.
        let raw = hb.access(1, Pipe::S, 0, &[(128, 192)], Kind::Read, OpId(3)).expect("unordered");
        assert_eq!((raw.class, raw.core, raw.bytes), (DiagClass::HazardRaw, 0, (128, 160)));
    }

    #[test]
    fn atomic_adds_of_two_cores_commute_but_a_plain_access_conflicts() {
        let mut hb = CrossHb::new(3);
        assert_eq!(hb.access(0, Pipe::S, 0, &[(0, 64)], Kind::Atomic, OpId(1)), None);
        assert_eq!(hb.access(1, Pipe::S, 0, &[(0, 64)], Kind::Atomic, OpId(2)), None);
        let raw = hb.access(2, Pipe::S, 0, &[(0, 8)], Kind::Read, OpId(3)).expect("the read sees a partial sum");
        assert_eq!((raw.class, raw.op), (DiagClass::HazardRaw, OpId(1)));
        let waw = hb.access(2, Pipe::S, 0, &[(32, 40)], Kind::Write, OpId(4)).expect("the store races the adds");
        assert_eq!(waw.class, DiagClass::HazardWaw);
    }

    #[test]
    fn every_earlier_access_is_remembered() {
        // Far more accesses than any bounded list keeps: the first write still conflicts.
        let mut hb = CrossHb::new(2);
        assert_eq!(hb.access(0, Pipe::S, 0, &[(0, 4)], Kind::Write, OpId(1)), None);
        for i in 1..10_000u64 {
            assert_eq!(hb.access(0, Pipe::S, 0, &[(i * 4, i * 4 + 4)], Kind::Write, OpId(2)), None);
        }
        let waw = hb.access(1, Pipe::S, 0, &[(0, 4)], Kind::Write, OpId(3)).expect("unordered");
        assert_eq!((waw.class, waw.op), (DiagClass::HazardWaw, OpId(1)));
        // Reads of one core since the last write are all checked by a later write.
        let mut hb = CrossHb::new(3);
        hb.access(0, Pipe::S, 0, &[(0, 8)], Kind::Read, OpId(1));
        hb.access(1, Pipe::S, 0, &[(0, 8)], Kind::Read, OpId(2));
        hb.release(0, Edge::Flag(2, 0));
        hb.acquire(2, Edge::Flag(2, 0));
        let war = hb.access(2, Pipe::S, 0, &[(0, 8)], Kind::Write, OpId(3)).expect("core 1's read is unordered");
        assert_eq!((war.class, war.core), (DiagClass::HazardWar, 1));
    }
}
