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
//! tracked as the byte hull of each `tload` / `tstore` window.

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

#[derive(Clone, Debug)]
struct Access {
    start: u64,
    end: u64,
    write: bool,
    core: usize,
    epoch: u64,
    op: OpId,
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
}

/// Most accesses remembered per GM array (the oldest are forgotten first).
const MAX_ACCESSES: usize = 4096;

/// The happens-before state of one block.
#[derive(Clone, Debug, Default)]
pub struct CrossHb {
    clocks: Vec<Vec<u64>>,
    objects: HashMap<Edge, Vec<u64>>,
    gm: HashMap<usize, Vec<Access>>,
}

fn join(into: &mut Vec<u64>, from: &[u64]) {
    if into.len() < from.len() {
        into.resize(from.len(), 0);
    }
    for (a, b) in into.iter_mut().zip(from) {
        *a = (*a).max(*b);
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

    /// `core` accesses bytes `start..end` of GM array `arg` at `op`; the first unordered
    /// conflicting access of another core, if any.
    pub fn access(&mut self, core: usize, arg: usize, (start, end): (u64, u64), write: bool, op: OpId) -> Option<CrossHazard> {
        let clock = self.clock(core);
        if clock.len() <= core {
            clock.resize(core + 1, 0);
        }
        clock[core] += 1;
        let (epoch, known) = (clock[core], clock.clone());
        let list = self.gm.entry(arg).or_default();
        let found = list
            .iter()
            .rev()
            .find(|a| {
                a.core != core && a.start < end && start < a.end && (a.write || write) && known.get(a.core).copied().unwrap_or(0) < a.epoch
            })
            .map(|a| CrossHazard {
                class: match (a.write, write) {
                    (true, false) => DiagClass::HazardRaw,
                    (false, true) => DiagClass::HazardWar,
                    _ => DiagClass::HazardWaw,
                },
                core: a.core,
                op: a.op,
            });
        if list.len() >= MAX_ACCESSES {
            list.remove(0);
        }
        list.push(Access { start, end, write, core, epoch, op });
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_orders_a_store_before_a_load_on_another_core() {
        let mut hb = CrossHb::new(2);
        assert_eq!(hb.access(0, 0, (0, 64), true, OpId(1)), None);
        let raw = hb.access(1, 0, (32, 96), false, OpId(2)).expect("unordered");
        assert_eq!((raw.class, raw.core, raw.op), (DiagClass::HazardRaw, 0, OpId(1)));
        // With an edge: store, set, wait, load.
        let mut hb = CrossHb::new(2);
        hb.access(0, 0, (0, 64), true, OpId(1));
        hb.release(0, Edge::Flag(1, 0));
        hb.acquire(1, Edge::Flag(1, 0));
        assert_eq!(hb.access(1, 0, (0, 64), false, OpId(2)), None);
        // Disjoint bytes never conflict.
        assert_eq!(hb.access(0, 0, (64, 128), true, OpId(3)), None);
    }
}
