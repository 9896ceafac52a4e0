//! Interval shadow memory: for every byte run of a space, its last write and the reads and
//! atomic updates since (the latest of each actor). The [`super::model::Model`] keeps it for
//! the spaces many actors share (GM under a machine of several cores, blocks or ranks), where
//! its list shadow would grow with every access nobody orders: here the state is bounded by
//! the distinct byte runs, whatever the number of accesses, and nothing is forgotten.
//!
//! As in FastTrack, the last write stands for all earlier ones (an access unordered with an
//! earlier write is either unordered with the last one, or that last write was itself
//! reported), and an actor's latest read for its earlier ones (what another actor knows of an
//! actor is a prefix of its epochs). So a hazard exists exactly when one is reported.

use super::model::{Access, Actor, Finding, HazardKind, Side, Space};
use std::collections::BTreeMap;

/// One access remembered: who, its epoch, the op and the bytes it accessed in all.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Stamp<S> {
    actor: Actor,
    epoch: u32,
    site: S,
    start: u64,
    end: u64,
}

/// What is known of the bytes `[start, end)` (`start` is the key of the map).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seg<S> {
    end: u64,
    write: Option<Stamp<S>>,
    reads: Vec<Stamp<S>>,
    atomics: Vec<Stamp<S>>,
}

impl<S> Seg<S> {
    fn empty(end: u64) -> Seg<S> {
        Seg { end, write: None, reads: Vec::new(), atomics: Vec::new() }
    }
}

/// Who makes an access: the actor, its epoch, what it knows (its clock, per actor index) and
/// the op.
#[derive(Copy, Clone, Debug)]
pub struct By<'a, S> {
    /// The actor.
    pub actor: Actor,
    /// Its epoch for this op.
    pub epoch: u32,
    /// Its vector clock.
    pub clock: &'a [u32],
    /// The op.
    pub site: S,
}

/// The interval shadow memory of one space.
#[derive(Clone, Debug)]
pub struct Intervals<S> {
    map: BTreeMap<u64, Seg<S>>,
}

impl<S> Default for Intervals<S> {
    fn default() -> Self {
        Intervals { map: BTreeMap::new() }
    }
}

/// How an access that is `acc.write` (and `acc.atomic`) meets an earlier one: the hazard, if
/// the two conflict at all. Atomic updates of different actors commute, so two atomics never
/// conflict; an atomic conflicts with plain reads and writes as a write does.
fn conflict(earlier_write: bool, earlier_atomic: bool, acc: &Access) -> Option<HazardKind> {
    match (earlier_write || earlier_atomic, acc.write || acc.atomic) {
        (false, false) => None,
        _ if earlier_atomic && acc.atomic => None,
        (true, true) => Some(HazardKind::Waw),
        (true, false) => Some(HazardKind::Raw),
        (false, true) => Some(HazardKind::War),
    }
}

impl<S: Copy + PartialEq> Intervals<S> {
    /// Splits the run that contains `at` so that one starts at `at`.
    fn split_at(&mut self, at: u64) {
        let Some((_, seg)) = self.map.range_mut(..at).next_back() else { return };
        if seg.end > at {
            let tail = Seg { end: seg.end, write: seg.write, reads: seg.reads.clone(), atomics: seg.atomics.clone() };
            seg.end = at;
            self.map.insert(at, tail);
        }
    }

    /// Checks `acc` of `space` by `by` against what is recorded, pushes each hazard (once per
    /// earlier access) to `findings`, and records it.
    pub fn access(&mut self, space: Space, by: By<'_, S>, acc: &Access, findings: &mut Vec<Finding<S>>) {
        let By { actor, epoch, clock, site } = by;
        let (start, end) = (acc.start, acc.end);
        if start >= end {
            return;
        }
        let unordered = |s: &Stamp<S>| clock[s.actor.index()] < s.epoch && !(s.actor == actor && s.epoch == epoch);
        self.split_at(start);
        self.split_at(end);
        let mut at = start;
        let mut gaps = Vec::new();
        for (&s, seg) in self.map.range(start..end) {
            if s > at {
                gaps.push((at, s));
            }
            at = seg.end;
        }
        if at < end {
            gaps.push((at, end));
        }
        for (s, e) in gaps {
            self.map.insert(s, Seg::empty(e));
        }
        let me = Stamp { actor, epoch, site, start, end };
        let mut reported: Vec<(Actor, u32, HazardKind)> = Vec::new();
        for (&s, seg) in self.map.range_mut(start..end) {
            let earlier = seg.write.iter().map(|w| (w, true, false));
            let earlier = earlier.chain(seg.reads.iter().map(|r| (r, false, false)));
            for (e, write, atomic) in earlier.chain(seg.atomics.iter().map(|a| (a, false, true))) {
                let Some(kind) = conflict(write, atomic, acc) else { continue };
                if !unordered(e) || reported.contains(&(e.actor, e.epoch, kind)) {
                    continue;
                }
                reported.push((e.actor, e.epoch, kind));
                findings.push(Finding::Hazard {
                    kind,
                    space,
                    start: s,
                    end: seg.end,
                    earlier: Side { site: e.site, actor: e.actor, start: e.start, end: e.end },
                    later: Side { site, actor, start, end },
                });
            }
            if acc.atomic {
                seg.atomics.retain(|a| a.actor != actor);
                seg.atomics.push(me);
            } else if acc.write {
                seg.write = Some(me);
                seg.reads.clear();
                seg.atomics.clear();
            } else {
                seg.reads.retain(|r| r.actor != actor);
                seg.reads.push(me);
            }
        }
        self.merge(start, end);
    }

    /// Neighbouring runs around `[start, end]` left in the same state become one again.
    fn merge(&mut self, start: u64, end: u64) {
        let keys: Vec<u64> = self.map.range(start..=end).map(|(k, _)| *k).collect();
        let mut prev: Option<u64> = self.map.range(..start).next_back().map(|(k, _)| *k);
        for k in keys {
            if let Some(p) = prev
                && let (Some(a), Some(b)) = (self.map.get(&p), self.map.get(&k))
                && a.end == k
                && a.write == b.write
                && a.reads == b.reads
                && a.atomics == b.atomics
            {
                let end = b.end;
                self.map.remove(&k);
                if let Some(a) = self.map.get_mut(&p) {
                    a.end = end;
                }
                continue;
            }
            prev = Some(k);
        }
    }

    /// Every access recorded on bytes of `[start, end)`: `(actor, epoch)` of each.
    pub fn stamps_within(&self, start: u64, end: u64) -> impl Iterator<Item = (Actor, u32)> + '_ {
        let first = self.map.range(..=start).next_back().map(|(k, _)| *k).unwrap_or(start);
        self.map
            .range(first..end)
            .filter(move |(_, seg)| seg.end > start)
            .flat_map(|(_, seg)| seg.write.iter().chain(&seg.reads).chain(&seg.atomics).map(|s| (s.actor, s.epoch)))
    }

    /// Every recorded access as `(run start, run end, op, actor, epoch, writes)`, runs in
    /// address order (the abstract state of [`super::model::Model::abstract_state`]).
    pub fn entries(&self) -> impl Iterator<Item = (u64, u64, S, Actor, u32, bool)> + '_ {
        self.map.iter().flat_map(|(&s, seg)| {
            let w = seg.write.iter().map(move |x| (s, seg.end, x.site, x.actor, x.epoch, true));
            let r = seg.reads.iter().chain(&seg.atomics).map(move |x| (s, seg.end, x.site, x.actor, x.epoch, false));
            w.chain(r)
        })
    }

    /// Runs recorded (a measure of the memory the shadow takes).
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::Pipe;
    use super::*;

    fn actor(core: u16) -> Actor {
        Actor { core, pipe: Pipe::S }
    }
    fn acc(start: u64, end: u64, write: bool, atomic: bool) -> Access {
        Access { space: Space(0), start, end, write, atomic }
    }
    /// Runs `acc` by core `core` at `epoch` knowing `clock` (per actor index); the hazards as
    /// `(kind, earlier site, overlap)`.
    /// The actor knows its own earlier epochs (a pipe in program order).
    fn run(iv: &mut Intervals<u32>, core: u16, epoch: u32, clock: &[u32], a: Access, site: u32) -> Vec<(HazardKind, u32, u64, u64)> {
        let mut f = Vec::new();
        let mut clock = clock.to_vec();
        clock[actor(core).index()] = epoch - 1;
        iv.access(Space(0), By { actor: actor(core), epoch, clock: &clock, site }, &a, &mut f);
        f.into_iter()
            .map(|f| match f {
                Finding::Hazard { kind, start, end, earlier, .. } => (kind, earlier.site, start, end),
                _ => unreachable!(),
            })
            .collect()
    }

    #[test]
    fn interleaved_column_halves_never_conflict_and_a_whole_row_meets_the_other_half() {
        let mut iv = Intervals::default();
        let none = vec![0; 14];
        for r in 0..16u64 {
            assert!(run(&mut iv, 0, 1, &none, acc(r * 64, r * 64 + 32, true, false), 1).is_empty());
            assert!(run(&mut iv, 1, 1, &none, acc(r * 64 + 32, r * 64 + 64, true, false), 2).is_empty());
        }
        assert_eq!(run(&mut iv, 1, 2, &none, acc(128, 192, false, false), 3), vec![(HazardKind::Raw, 1, 128, 160)]);
    }

    #[test]
    fn a_known_epoch_orders_and_atomics_commute() {
        let mut iv = Intervals::default();
        let mut clock = vec![0; 14];
        run(&mut iv, 0, 1, &clock, acc(0, 64, true, false), 1);
        clock[actor(0).index()] = 1;
        assert!(run(&mut iv, 1, 1, &clock, acc(0, 64, false, false), 2).is_empty());
        // Atomics of two cores commute; a plain read after them races both.
        let mut iv = Intervals::default();
        let none = vec![0; 21];
        assert!(run(&mut iv, 0, 1, &none, acc(0, 64, true, true), 1).is_empty());
        assert!(run(&mut iv, 1, 1, &none, acc(0, 64, true, true), 2).is_empty());
        assert_eq!(run(&mut iv, 2, 1, &none, acc(0, 8, false, false), 3), vec![(HazardKind::Raw, 1, 0, 8), (HazardKind::Raw, 2, 0, 8)]);
    }

    #[test]
    fn every_earlier_write_is_remembered_and_runs_stay_merged() {
        let mut iv = Intervals::default();
        let none = vec![0; 14];
        run(&mut iv, 0, 1, &none, acc(0, 4, true, false), 1);
        for i in 1..10_000u64 {
            run(&mut iv, 0, 1 + i as u32, &none, acc(i * 4, i * 4 + 4, true, false), 2);
        }
        assert_eq!(run(&mut iv, 1, 1, &none, acc(0, 4, true, false), 3), vec![(HazardKind::Waw, 1, 0, 4)]);
        // One access over many runs reports each earlier access once.
        let hz = run(&mut iv, 1, 2, &none, acc(0, 40_000, false, false), 4);
        assert_eq!(hz.len(), 9_999, "every run but the first, which core 1 wrote itself");
        assert!(hz.iter().all(|h| h.0 == HazardKind::Raw));
        // A whole-range write leaves one run.
        run(&mut iv, 1, 3, &none, acc(0, 40_000, true, false), 5);
        assert_eq!(iv.len(), 1);
    }
}
