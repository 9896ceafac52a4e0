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

use std::collections::BTreeMap;

/// The three hazard kinds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum HazardKind {
    /// The later op reads what the earlier wrote.
    Raw,
    /// The later op overwrites what the earlier read.
    War,
    /// Both write.
    Waw,
}

/// One access: bytes `[start, end)`, a write or a read, or an atomic update.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Touch {
    /// First byte.
    pub start: u64,
    /// One past the last.
    pub end: u64,
    /// A write (also set for an atomic update).
    pub write: bool,
    /// An atomic read-modify-write: atomics of different actors commute.
    pub atomic: bool,
}

/// A conflict with an earlier access: its kind, the bytes the two share in one run, and the
/// earlier access (actor, op, its bytes in all).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Hit<A, S> {
    /// RAW, WAR or WAW.
    pub kind: HazardKind,
    /// First shared byte.
    pub start: u64,
    /// One past the last.
    pub end: u64,
    /// The earlier access's actor.
    pub actor: A,
    /// Its op.
    pub site: S,
    /// Its bytes in all.
    pub bytes: (u64, u64),
}

/// One access remembered: who (and its index in a clock), its epoch, the op and the bytes it
/// accessed in all.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Stamp<A, S> {
    actor: A,
    index: usize,
    epoch: u32,
    site: S,
    start: u64,
    end: u64,
}

/// What is known of the bytes `[start, end)` (`start` is the key of the map).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seg<A, S> {
    end: u64,
    write: Option<Stamp<A, S>>,
    reads: Vec<Stamp<A, S>>,
    atomics: Vec<Stamp<A, S>>,
}

impl<A, S> Seg<A, S> {
    fn empty(end: u64) -> Seg<A, S> {
        Seg { end, write: None, reads: Vec::new(), atomics: Vec::new() }
    }
}

/// Who makes an access: the actor, its epoch, what it knows (its clock, per actor index) and
/// the op.
#[derive(Copy, Clone, Debug)]
pub struct By<'a, A, S> {
    /// The actor.
    pub actor: A,
    /// Its index in a clock.
    pub index: usize,
    /// Its epoch for this op.
    pub epoch: u32,
    /// Its vector clock.
    pub clock: &'a [u32],
    /// The op.
    pub site: S,
}

/// The interval shadow memory of one space.
#[derive(Clone, Debug)]
pub struct Intervals<A, S> {
    map: BTreeMap<u64, Seg<A, S>>,
}

impl<A, S> Default for Intervals<A, S> {
    fn default() -> Self {
        Intervals { map: BTreeMap::new() }
    }
}

/// How an access that is `acc.write` (and `acc.atomic`) meets an earlier one: the hazard, if
/// the two conflict at all. Atomic updates of different actors commute, so two atomics never
/// conflict; an atomic conflicts with plain reads and writes as a write does.
fn conflict(earlier_write: bool, earlier_atomic: bool, acc: &Touch) -> Option<HazardKind> {
    match (earlier_write || earlier_atomic, acc.write || acc.atomic) {
        (false, false) => None,
        _ if earlier_atomic && acc.atomic => None,
        (true, true) => Some(HazardKind::Waw),
        (true, false) => Some(HazardKind::Raw),
        (false, true) => Some(HazardKind::War),
    }
}

/// Checks `acc` (stamped `me`, by `by`) against what the run starting at `s` records, pushes
/// each conflict with an access `by` does not know and not yet `reported` to `hits`, and records
/// the access in the run.
fn meet<A: Copy, S: Copy>(
    s: u64,
    seg: &mut Seg<A, S>,
    acc: &Touch,
    by: By<'_, A, S>,
    me: Stamp<A, S>,
    reported: &mut Vec<(usize, u32, HazardKind)>,
    hits: &mut Vec<Hit<A, S>>,
) {
    let unordered = |e: &Stamp<A, S>| by.clock[e.index] < e.epoch && !(e.index == by.index && e.epoch == by.epoch);
    let earlier = seg.write.iter().map(|w| (w, true, false));
    let earlier = earlier.chain(seg.reads.iter().map(|r| (r, false, false)));
    for (e, write, atomic) in earlier.chain(seg.atomics.iter().map(|a| (a, false, true))) {
        let Some(kind) = conflict(write, atomic, acc) else { continue };
        if !unordered(e) || reported.contains(&(e.index, e.epoch, kind)) {
            continue;
        }
        reported.push((e.index, e.epoch, kind));
        hits.push(Hit { kind, start: s, end: seg.end, actor: e.actor, site: e.site, bytes: (e.start, e.end) });
    }
    record(seg, acc, me);
}

/// Records access `acc`, stamped `me`, in `seg`: a write replaces everything, a read or atomic
/// replaces the same actor's earlier one.
fn record<A: Copy, S: Copy>(seg: &mut Seg<A, S>, acc: &Touch, me: Stamp<A, S>) {
    if acc.atomic {
        seg.atomics.retain(|a| a.index != me.index);
        seg.atomics.push(me);
    } else if acc.write {
        seg.write = Some(me);
        seg.reads.clear();
        seg.atomics.clear();
    } else {
        seg.reads.retain(|r| r.index != me.index);
        seg.reads.push(me);
    }
}

impl<A: Copy + PartialEq, S: Copy + PartialEq> Intervals<A, S> {
    /// Splits the run that contains `at` so that one starts at `at`.
    fn split_at(&mut self, at: u64) {
        let Some((_, seg)) = self.map.range_mut(..at).next_back() else { return };
        if seg.end > at {
            let tail = Seg { end: seg.end, write: seg.write, reads: seg.reads.clone(), atomics: seg.atomics.clone() };
            seg.end = at;
            self.map.insert(at, tail);
        }
    }

    /// Checks `acc` by `by` against what is recorded, pushes each conflict with an access `by`
    /// does not know (once per earlier access) to `hits`, and records it.
    pub fn access(&mut self, by: By<'_, A, S>, acc: &Touch, hits: &mut Vec<Hit<A, S>>) {
        let By { actor, index, epoch, site, .. } = by;
        let (start, end) = (acc.start, acc.end);
        if start >= end {
            return;
        }
        let me = Stamp { actor, index, epoch, site, start, end };
        let mut reported: Vec<(usize, u32, HazardKind)> = Vec::new();
        // Two fast paths, for most accesses (the rows of a window): no recorded run touches the
        // bytes, or they are exactly one recorded run. Neither leaves runs to merge: the new
        // stamp (its bytes included) is in no other run.
        if self.map.range(..end).next_back().is_none_or(|(_, seg)| seg.end <= start) {
            let mut seg = Seg::empty(end);
            record(&mut seg, acc, me);
            self.map.insert(start, seg);
            return;
        }
        if let Some(seg) = self.map.get_mut(&start)
            && seg.end == end
        {
            meet(start, seg, acc, by, me, &mut reported, hits);
            return;
        }
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
        for (&s, seg) in self.map.range_mut(start..end) {
            meet(s, seg, acc, by, me, &mut reported, hits);
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
    pub fn stamps_within(&self, start: u64, end: u64) -> impl Iterator<Item = (A, u32)> + '_ {
        let first = self.map.range(..=start).next_back().map(|(k, _)| *k).unwrap_or(start);
        self.map
            .range(first..end)
            .filter(move |(_, seg)| seg.end > start)
            .flat_map(|(_, seg)| seg.write.iter().chain(&seg.reads).chain(&seg.atomics).map(|s| (s.actor, s.epoch)))
    }

    /// Every recorded access as `(run start, run end, op, actor, epoch, writes)`, runs in
    /// address order (the abstract state of [`super::model::Model::abstract_state`]).
    pub fn entries(&self) -> impl Iterator<Item = (u64, u64, S, A, u32, bool)> + '_ {
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
    use super::*;

    fn acc(start: u64, end: u64, write: bool, atomic: bool) -> Touch {
        Touch { start, end, write, atomic }
    }
    /// Runs `acc` by actor `core` at `epoch` knowing `clock` (per actor); the actor knows its
    /// own earlier epochs (in program order). The hits as `(kind, earlier site, overlap)`.
    fn run(
        iv: &mut Intervals<usize, u32>,
        core: usize,
        epoch: u32,
        clock: &[u32],
        a: Touch,
        site: u32,
    ) -> Vec<(HazardKind, u32, u64, u64)> {
        let mut hits = Vec::new();
        let mut clock = clock.to_vec();
        clock[core] = epoch - 1;
        iv.access(By { actor: core, index: core, epoch, clock: &clock, site }, &a, &mut hits);
        hits.into_iter().map(|h| (h.kind, h.site, h.start, h.end)).collect()
    }

    #[test]
    fn interleaved_column_halves_never_conflict_and_a_whole_row_meets_the_other_half() {
        let mut iv = Intervals::default();
        let none = vec![0; 3];
        for r in 0..16u64 {
            assert!(run(&mut iv, 0, 1, &none, acc(r * 64, r * 64 + 32, true, false), 1).is_empty());
            assert!(run(&mut iv, 1, 1, &none, acc(r * 64 + 32, r * 64 + 64, true, false), 2).is_empty());
        }
        assert_eq!(run(&mut iv, 1, 2, &none, acc(128, 192, false, false), 3), vec![(HazardKind::Raw, 1, 128, 160)]);
    }

    #[test]
    fn a_known_epoch_orders_and_atomics_commute() {
        let mut iv = Intervals::default();
        let mut clock = vec![0; 3];
        run(&mut iv, 0, 1, &clock, acc(0, 64, true, false), 1);
        clock[0] = 1;
        assert!(run(&mut iv, 1, 1, &clock, acc(0, 64, false, false), 2).is_empty());
        // The same run again, by a core that knows neither: the write and the read both race it.
        let mut again = iv.clone();
        assert_eq!(
            run(&mut again, 2, 1, &[0, 0, 0], acc(0, 64, true, false), 9),
            vec![(HazardKind::Waw, 1, 0, 64), (HazardKind::War, 2, 0, 64)]
        );
        // Atomics of two cores commute; a plain read after them races both.
        let mut iv = Intervals::default();
        let none = vec![0; 3];
        assert!(run(&mut iv, 0, 1, &none, acc(0, 64, true, true), 1).is_empty());
        assert!(run(&mut iv, 1, 1, &none, acc(0, 64, true, true), 2).is_empty());
        assert_eq!(run(&mut iv, 2, 1, &none, acc(0, 8, false, false), 3), vec![(HazardKind::Raw, 1, 0, 8), (HazardKind::Raw, 2, 0, 8)]);
    }

    #[test]
    fn every_earlier_write_is_remembered_and_runs_stay_merged() {
        let mut iv = Intervals::default();
        let none = vec![0; 2];
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
