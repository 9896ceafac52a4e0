//! Happens-before between the cores of a block, for GM: one vector clock per core, advanced
//! by every GM access the core makes while sync checking is on; pipe slots and FFTS flags
//! are the edges (a push releases the producer's clock into the slot and the pop acquires it;
//! a free releases the consumer's clock to the producer that next fills that slot; a flag set
//! releases into the flag and the wait acquires it). Two overlapping GM accesses of different
//! cores, at least one a write, where the later core does not know the earlier access, are a
//! hazard (`HAZARD_RAW` / `HAZARD_WAR` / `HAZARD_WAW`).
//!
//! It is the happens-before model of [`crate::sync::model`] — the one that orders the pipes of
//! a core — with each core one actor (its scalar pipe, in program order) and the edges as
//! releases and acquires of sync objects. A multi-core run keeps one [`CrossHb`] per scheduler
//! in its shared state. A multi-rank run keeps one for all ranks (each rank one "core"): the
//! comm instructions' reads and writes of local and remote GM are accesses, and a signal
//! (`tnotify` → `twait`) is the edge. Accesses are exact byte sets ([`crate::byteset`]: a
//! strided window is one range per row), and the shadow memory
//! ([`crate::sync::intervals`]) keeps, for every byte, its last write and the reads since (per
//! core).

use crate::sync::model::{Access, Actor, Finding, HazardKind, Model, Pipe, SamePipe, Space};
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

/// Each core's one actor.
fn actor(core: usize) -> Actor {
    Actor { core: core as u16, pipe: Pipe::S }
}

impl CrossHb {
    /// State for `cores` cores (more are added as they appear).
    pub fn new(cores: usize) -> CrossHb {
        let model = Model::new(cores, SamePipe::in_order(&[Pipe::S])).with_interval_spaces(Space(0));
        CrossHb { model, objects: HashMap::new(), accesses: Vec::new() }
    }

    fn object(&mut self, edge: Edge) -> u64 {
        let next = self.objects.len() as u64;
        *self.objects.entry(edge).or_insert(next)
    }

    /// `core` releases what it did so far into `edge`.
    pub fn release(&mut self, core: usize, edge: Edge) {
        let o = self.object(edge);
        self.model.release(actor(core), o, OpId(0));
    }

    /// `core` acquires `edge`.
    pub fn acquire(&mut self, core: usize, edge: Edge) {
        let o = self.object(edge);
        self.model.acquire(actor(core), o, OpId(0));
    }

    /// `core` accesses the bytes `ranges` (sorted, disjoint: [`crate::byteset`]) of GM array
    /// `arg` at `op`; the first unordered conflicting access of another core, if any.
    pub fn access(&mut self, core: usize, arg: usize, ranges: &[(u64, u64)], kind: Kind, op: OpId) -> Option<CrossHazard> {
        let (write, atomic) = (kind != Kind::Read, kind == Kind::Atomic);
        let space = Space(arg as u32);
        self.accesses.clear();
        self.accesses.extend(ranges.iter().map(|&(start, end)| Access { space, start, end, write, atomic }));
        self.model.exec(actor(core), &self.accesses, op);
        if !self.model.has_findings() {
            return None;
        }
        self.model.take_findings().into_iter().find_map(|f| match f {
            Finding::Hazard { kind, start, end, earlier, .. } => Some(CrossHazard {
                class: match kind {
                    HazardKind::Raw => DiagClass::HazardRaw,
                    HazardKind::War => DiagClass::HazardWar,
                    HazardKind::Waw => DiagClass::HazardWaw,
                },
                core: earlier.actor.core as usize,
                op: earlier.site,
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
        assert_eq!(hb.access(0, 0, &[(0, 64)], Kind::Write, OpId(1)), None);
        let raw = hb.access(1, 0, &[(32, 96)], Kind::Read, OpId(2)).expect("unordered");
        assert_eq!((raw.class, raw.core, raw.op, raw.bytes), (DiagClass::HazardRaw, 0, OpId(1), (32, 64)));
        // With an edge: store, set, wait, load.
        let mut hb = CrossHb::new(2);
        hb.access(0, 0, &[(0, 64)], Kind::Write, OpId(1));
        hb.release(0, Edge::Flag(1, 0));
        hb.acquire(1, Edge::Flag(1, 0));
        assert_eq!(hb.access(1, 0, &[(0, 64)], Kind::Read, OpId(2)), None);
        // Disjoint bytes never conflict.
        assert_eq!(hb.access(0, 0, &[(64, 128)], Kind::Write, OpId(3)), None);
    }

    #[test]
    fn interleaved_column_halves_of_two_cores_never_conflict() {
        let mut hb = CrossHb::new(2);
        let half = |h: u64| -> Vec<(u64, u64)> { (0..16).map(|r| (r * 64 + h * 32, r * 64 + h * 32 + 32)).collect() };
        assert_eq!(hb.access(0, 0, &half(0), Kind::Write, OpId(1)), None);
        assert_eq!(hb.access(1, 0, &half(1), Kind::Write, OpId(2)), None);
        // A read of a whole row by core 1 meets core 0's half of it.
        let raw = hb.access(1, 0, &[(128, 192)], Kind::Read, OpId(3)).expect("unordered");
        assert_eq!((raw.class, raw.core, raw.bytes), (DiagClass::HazardRaw, 0, (128, 160)));
    }

    #[test]
    fn atomic_adds_of_two_cores_commute_but_a_plain_access_conflicts() {
        let mut hb = CrossHb::new(3);
        assert_eq!(hb.access(0, 0, &[(0, 64)], Kind::Atomic, OpId(1)), None);
        assert_eq!(hb.access(1, 0, &[(0, 64)], Kind::Atomic, OpId(2)), None);
        let raw = hb.access(2, 0, &[(0, 8)], Kind::Read, OpId(3)).expect("the read sees a partial sum");
        assert_eq!((raw.class, raw.op), (DiagClass::HazardRaw, OpId(1)));
        let waw = hb.access(2, 0, &[(32, 40)], Kind::Write, OpId(4)).expect("the store races the adds");
        assert_eq!(waw.class, DiagClass::HazardWaw);
    }

    #[test]
    fn every_earlier_access_is_remembered() {
        // Far more accesses than any bounded list keeps: the first write still conflicts.
        let mut hb = CrossHb::new(2);
        assert_eq!(hb.access(0, 0, &[(0, 4)], Kind::Write, OpId(1)), None);
        for i in 1..10_000u64 {
            assert_eq!(hb.access(0, 0, &[(i * 4, i * 4 + 4)], Kind::Write, OpId(2)), None);
        }
        let waw = hb.access(1, 0, &[(0, 4)], Kind::Write, OpId(3)).expect("unordered");
        assert_eq!((waw.class, waw.op), (DiagClass::HazardWaw, OpId(1)));
        // Reads of one core since the last write are all checked by a later write.
        let mut hb = CrossHb::new(3);
        hb.access(0, 0, &[(0, 8)], Kind::Read, OpId(1));
        hb.access(1, 0, &[(0, 8)], Kind::Read, OpId(2));
        hb.release(0, Edge::Flag(2, 0));
        hb.acquire(2, Edge::Flag(2, 0));
        let war = hb.access(2, 0, &[(0, 8)], Kind::Write, OpId(3)).expect("core 1's read is unordered");
        assert_eq!((war.class, war.core), (DiagClass::HazardWar, 1));
    }
}
