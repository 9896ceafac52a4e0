//! Happens-before between the cores of a block, for GM: one vector clock per core, advanced
//! by every GM access the core makes while sync checking is on; pipe slots and FFTS flags
//! are the edges (a push releases the producer's clock into the slot and the pop acquires it;
//! a free releases the consumer's clock to the producer that next fills that slot; a flag set
//! releases into the flag and the wait acquires it). Two overlapping GM accesses of different
//! cores, at least one a write, where the later core does not know the earlier access, are a
//! hazard (`HAZARD_RAW` / `HAZARD_WAR` / `HAZARD_WAW`).
//!
//! This complements the per-core model of [`crate::sync`], which orders the pipes within one
//! core; a multi-core run keeps one [`CrossHb`] per block in its shared state. A multi-rank run
//! keeps one for all ranks (each rank one "core"): the comm instructions' reads and writes of
//! local and remote GM are accesses, and a signal (`tnotify` → `twait`) is the edge. Accesses are
//! exact byte sets ([`crate::byteset`]: a strided window is one range per row), and the shadow
//! memory keeps, for every byte, its last write and the reads since (per core).

use pto_ir::diag::DiagClass;
use pto_ir::module::OpId;
use std::collections::{BTreeMap, HashMap};

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

/// One access remembered in the shadow memory: which core, its epoch (clock value) then, and
/// the op.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Stamp {
    core: usize,
    epoch: u64,
    op: OpId,
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

/// What the shadow memory knows of a run of bytes: the last write, and the reads and atomic
/// updates since it (the latest of each core). As in FastTrack, a write that every later access is checked against
/// stands for all earlier ones: any access unordered with an earlier write is either unordered
/// with the last one, or that last write was itself reported.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Seg {
    end: u64,
    write: Option<Stamp>,
    reads: Vec<Stamp>,
    atomics: Vec<Stamp>,
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

/// The happens-before state of one block.
#[derive(Clone, Debug, Default)]
pub struct CrossHb {
    clocks: Vec<Vec<u64>>,
    objects: HashMap<Edge, Vec<u64>>,
    /// Per GM array, by first byte: the shadow memory of every byte ever accessed, exact (no
    /// hull, nothing forgotten).
    gm: HashMap<usize, BTreeMap<u64, Seg>>,
}

fn join(into: &mut Vec<u64>, from: &[u64]) {
    if into.len() < from.len() {
        into.resize(from.len(), 0);
    }
    for (a, b) in into.iter_mut().zip(from) {
        *a = (*a).max(*b);
    }
}

/// Splits the segment of `map` that contains `at` (if any) so that one starts at `at`.
fn split_at(map: &mut BTreeMap<u64, Seg>, at: u64) {
    let Some((&start, seg)) = map.range_mut(..at).next_back() else { return };
    if seg.end > at {
        let tail = Seg { end: seg.end, write: seg.write, reads: seg.reads.clone(), atomics: seg.atomics.clone() };
        seg.end = at;
        debug_assert!(start < at);
        map.insert(at, tail);
    }
}

impl CrossHb {
    /// State for `cores` cores.
    pub fn new(cores: usize) -> CrossHb {
        CrossHb { clocks: vec![vec![0; cores]; cores], ..Default::default() }
    }

    fn clock(&mut self, core: usize) -> &mut Vec<u64> {
        if self.clocks.len() <= core {
            let n = core + 1;
            self.clocks.resize(n, vec![0; n]);
        }
        &mut self.clocks[core]
    }

    /// `core` releases what it did so far into `edge`.
    pub fn release(&mut self, core: usize, edge: Edge) {
        let c = self.clock(core).clone();
        join(self.objects.entry(edge).or_default(), &c);
    }

    /// `core` acquires `edge`.
    pub fn acquire(&mut self, core: usize, edge: Edge) {
        if let Some(o) = self.objects.get(&edge).cloned() {
            join(self.clock(core), &o);
        }
    }

    /// `core` accesses the bytes `ranges` (sorted, disjoint: [`crate::byteset`]) of GM array
    /// `arg` at `op`; the first unordered conflicting access of another core, if any.
    pub fn access(&mut self, core: usize, arg: usize, ranges: &[(u64, u64)], kind: Kind, op: OpId) -> Option<CrossHazard> {
        let clock = self.clock(core);
        if clock.len() <= core {
            clock.resize(core + 1, 0);
        }
        clock[core] += 1;
        let me = Stamp { core, epoch: clock[core], op };
        let known = clock.clone();
        let unordered = |s: &Stamp| s.core != core && known.get(s.core).copied().unwrap_or(0) < s.epoch;
        let map = self.gm.entry(arg).or_default();
        let mut found = None;
        for &(start, end) in ranges {
            split_at(map, start);
            split_at(map, end);
            // Fill the gaps with fresh segments, so that [start, end) is covered.
            let mut at = start;
            let mut gaps = Vec::new();
            for (&s, seg) in map.range(start..end) {
                if s > at {
                    gaps.push((at, s));
                }
                at = seg.end;
            }
            if at < end {
                gaps.push((at, end));
            }
            for (s, e) in gaps {
                map.insert(s, Seg { end: e, ..Seg::default() });
            }
            for (&s, seg) in map.range_mut(start..end) {
                if found.is_none() {
                    let writes = kind != Kind::Read;
                    let earlier = match seg.write {
                        Some(w) if unordered(&w) => Some((w, if writes { DiagClass::HazardWaw } else { DiagClass::HazardRaw })),
                        _ => None,
                    }
                    .or_else(|| if writes { seg.reads.iter().find(|r| unordered(r)).map(|r| (*r, DiagClass::HazardWar)) } else { None })
                    .or_else(|| {
                        let class = if kind == Kind::Read { DiagClass::HazardRaw } else { DiagClass::HazardWaw };
                        if kind == Kind::Atomic { None } else { seg.atomics.iter().find(|a| unordered(a)).map(|a| (*a, class)) }
                    });
                    found = earlier.map(|(e, class)| CrossHazard { class, core: e.core, op: e.op, bytes: (s, seg.end) });
                }
                match kind {
                    Kind::Write => {
                        seg.write = Some(me);
                        seg.reads.clear();
                        seg.atomics.clear();
                    }
                    Kind::Read => {
                        seg.reads.retain(|r| r.core != core);
                        seg.reads.push(me);
                    }
                    Kind::Atomic => {
                        seg.atomics.retain(|a| a.core != core);
                        seg.atomics.push(me);
                    }
                }
            }
            // Neighbours left in the same state become one segment again.
            let keys: Vec<u64> = map.range(start..=end).map(|(k, _)| *k).collect();
            let mut prev: Option<u64> = map.range(..start).next_back().map(|(k, _)| *k);
            for k in keys {
                if let Some(p) = prev
                    && let (Some(a), Some(b)) = (map.get(&p), map.get(&k))
                    && a.end == k
                    && a.write == b.write
                    && a.reads == b.reads
                    && a.atomics == b.atomics
                {
                    let end = b.end;
                    map.remove(&k);
                    if let Some(a) = map.get_mut(&p) {
                        a.end = end;
                    }
                    continue;
                }
                prev = Some(k);
            }
        }
        found
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
