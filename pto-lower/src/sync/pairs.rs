//! The flag pairs and barriers `insert-sync` decides on ([`Pairs`]), where each sits ([`Site`]),
//! and whether the pairs found so far already order a dependence through a chain of them
//! ([`Pairs::ordered`]).
//!
//! **Chains.** A `set_flag` on pipe `P` runs after every op issued to `P` before it, and its
//! `wait_flag` on `Q` holds back every op issued to `Q` after it, so pairs compose: MTE2 → V
//! set after a load and waited before an add, then V → MTE3 set after the add and waited
//! before a store, order the load before the store. A dependence `A` (on `P`, op `ia` of a
//! block) → `B` (on `Q`, op `ib`) is ordered when such a chain leads from `P` at `ia` to `Q` at
//! or before `ib`. Within a loop body, a loop-carried dependence (`A` in iteration `i`, `B` in
//! `i + 1`) is looked for on two copies of the body laid end to end: the body's forward pairs
//! and barriers in both, its loop-carried pairs from the first copy to the second. A barrier
//! `<P>` before op `w` orders `P`'s earlier ops before it. A rotating loop-carried pair (its
//! wait in `i + k`) is no link.
//!
//! **Through a loop** ([`Pairs::ordered_through_loop`]): from `A` inside an `scf.for` to `B`
//! after it, a chain in the body, then the loop's loop-carried pairs (each set is waited before
//! the ops after the loop: in a later iteration, or by its drain after the loop), then the
//! forward pairs after the loop.

use super::pipes;
use super::rotate::Rotation;
use pto_ir::module::{BlockId, OpId};
use pto_ir::ops::Pipe;
use std::collections::HashMap;

/// How a dependence is ordered.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Copy)]
pub enum Site {
    /// In one block: set after op index `.1`, wait before op index `.2`.
    Forward(BlockId, usize, usize),
    /// Around loop `.0` (whose body is `.1`): set after body index `.2`, wait before `.3`.
    Carried(OpId, BlockId, usize, usize),
    /// Inside an `scf.while`, whose regions the pass does not pair flags across: a barrier
    /// right before op index `.1` of block `.0` (`barrier <P>` on one pipe, else
    /// `barrier <PIPE_ALL>`), which orders everything issued before it.
    Fence(BlockId, usize),
    /// Waited as soon as set: set after op index `.1` of block `.0`, the wait right after it
    /// (a pair whose wait moved earlier to free its event id: it orders everything its
    /// forward or loop-carried form did, holding the id over no op).
    Tight(BlockId, usize),
}

/// A flag pair (or barrier) to insert, and why.
pub struct Pair {
    /// The pipe of the earlier ops.
    pub src: Pipe,
    /// The pipe of the later ops (`src` itself: a barrier).
    pub dst: Pipe,
    /// Where its set and wait go.
    pub site: Site,
    /// (earlier op, later op, bytes) of each dependence it orders.
    pub why: Vec<(OpId, OpId, String)>,
    /// A pair of a rotating loop: `k` ids `id..id + k`, the one of iteration `i` `id + i mod k`.
    pub rot: Option<Rotation>,
    /// Its event id (the first of `k` when it rotates).
    pub id: Option<u32>,
}

impl Pair {
    /// How many event ids it holds.
    pub fn ids(&self) -> u32 {
        self.rot.map_or(1, |r| r.k)
    }
}

/// Where pairs may merge: one block (forward pairs) or one loop (loop-carried ones).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Block(BlockId),
    Loop(OpId),
    Fence(BlockId, usize),
}

/// How many of the latest pairs of one pipe pair and key a new dependence tries to merge with,
/// and a chain looks at.
const MERGE_WINDOW: usize = 16;

/// One step of a chain: ops of `src` at position `<= s` are ordered before ops of `dst` at
/// position `>= w`.
#[derive(Copy, Clone)]
struct Link {
    src: Pipe,
    dst: Pipe,
    s: usize,
    w: usize,
}

/// How far a chain from `A` has come: for each pipe, the earliest position after which a set
/// on it follows `A` (`settable`), and from which its ops are ordered after `A` (`reached`).
struct Reach {
    settable: Vec<(Pipe, usize)>,
    reached: Vec<(Pipe, usize)>,
}

impl Reach {
    /// `A` on `src` at position `at`.
    fn from(src: Pipe, at: usize) -> Reach {
        Reach { settable: vec![(src, at)], reached: Vec::new() }
    }

    fn get(v: &[(Pipe, usize)], p: Pipe) -> Option<usize> {
        v.iter().find(|e| e.0 == p).map(|e| e.1)
    }

    fn settable(&self, p: Pipe) -> Option<usize> {
        Self::get(&self.settable, p)
    }

    fn reached(&self, p: Pipe) -> Option<usize> {
        Self::get(&self.reached, p)
    }

    /// Lowers `p`'s position in `v` to `at`; whether it changed.
    fn lower(v: &mut Vec<(Pipe, usize)>, p: Pipe, at: usize) -> bool {
        match v.iter_mut().find(|e| e.0 == p) {
            Some(e) if e.1 <= at => false,
            Some(e) => {
                e.1 = at;
                true
            }
            None => {
                v.push((p, at));
                true
            }
        }
    }

    /// `p`'s ops from `at` on are ordered after `A`, and so is a set on it there.
    fn lower_both(&mut self, p: Pipe, at: usize) -> bool {
        Self::lower(&mut self.reached, p, at) | Self::lower(&mut self.settable, p, at)
    }

    /// Follows `links` until nothing changes.
    fn close(&mut self, links: &[Link]) {
        loop {
            let mut changed = false;
            for l in links {
                if self.settable(l.src).is_some_and(|at| at <= l.s) {
                    changed |= self.lower_both(l.dst, l.w);
                }
            }
            if !changed {
                return;
            }
        }
    }
}

/// The pairs found so far, indexed by (source pipe, destination pipe, block or loop).
#[derive(Default)]
pub struct Pairs {
    /// Every pair, in the order found.
    pub list: Vec<Pair>,
    index: HashMap<(&'static str, &'static str, Key), Vec<usize>>,
    /// The pipe pairs that have a pair under each key.
    keys: HashMap<Key, Vec<(&'static str, &'static str)>>,
}

impl Pairs {
    /// The latest pairs of each pipe pair under `key`.
    fn latest(&self, key: Key) -> impl Iterator<Item = &Pair> {
        self.keys
            .get(&key)
            .into_iter()
            .flatten()
            .flat_map(move |&(s, d)| self.index[&(s, d, key)].iter().rev().take(MERGE_WINDOW))
            .map(|&i| &self.list[i])
    }

    /// The links of the forward pairs and barriers of `block`, shifted by `shift` positions.
    fn forward_links(&self, block: BlockId, shift: usize, out: &mut Vec<Link>) {
        for p in self.latest(Key::Block(block)) {
            let Site::Forward(_, s, w) = p.site else { continue };
            // A barrier sits before op `w`, with the waits there: it orders ops before `w`.
            let s = if p.src == p.dst { w - 1 } else { s };
            out.push(Link { src: p.src, dst: p.dst, s: s + shift, w: w + shift });
        }
    }

    /// Whether the pairs found so far order the dependence of `src` → `dst` at `site` (`n`: the
    /// length of a loop-carried site's body), through a chain of pairs ([module docs](self)).
    /// A loop-carried dependence of a rotating buffer (`rot`, the site's loop's rotation) is
    /// `k` iterations long, from one use of a buffer to its next: the chain may run through
    /// the iterations between, and through the loop's rotating pairs of that rotation (a set
    /// in one iteration is waited `k` iterations on, when its id comes round again).
    pub fn ordered(&self, src: Pipe, dst: Pipe, site: Site, n: usize, rot: Option<Rotation>) -> bool {
        let mut links = Vec::new();
        let (from, to) = match site {
            Site::Forward(b, ia, ib) => {
                self.forward_links(b, 0, &mut links);
                (ia, ib)
            }
            Site::Carried(l, b, ia, ib) => {
                let k = rot.filter(|r| r.lp == l).map_or(1, |r| r.k as usize);
                for j in 0..=k {
                    self.forward_links(b, j * n, &mut links);
                }
                for p in self.latest(Key::Loop(l)) {
                    let Site::Carried(_, _, s, w) = p.site else { continue };
                    match p.rot {
                        // A barrier before op `w` of every iteration.
                        None if p.src == p.dst => links.extend(
                            (0..=k).filter_map(|j| (j * n + w).checked_sub(1).map(|s| Link { src: p.src, dst: p.dst, s, w: j * n + w })),
                        ),
                        // Set in each iteration, waited in the next.
                        None => links.extend((0..k).map(|j| Link { src: p.src, dst: p.dst, s: j * n + s, w: (j + 1) * n + w })),
                        // Set in an iteration, waited when its id comes round again.
                        Some(r) if Some(r) == rot && k > 1 && p.src != p.dst => {
                            links.push(Link { src: p.src, dst: p.dst, s, w: k * n + w })
                        }
                        Some(_) => {}
                    }
                }
                (ia, k * n + ib)
            }
            Site::Fence(..) | Site::Tight(..) => return false,
        };
        let mut reach = Reach::from(src, from);
        reach.close(&links);
        reach.reached(dst).is_some_and(|at| at <= to)
    }

    /// Whether the pairs found so far order the dependence of `src` → `dst` where `A` is inside
    /// loop `lp` (at position `a` of its body `body`, in any iteration) and `B` after it (op
    /// `ib` of the block holding the loop as op `ia`). A chain in the body from `A` orders a
    /// pipe's ops after its wait, those after the loop too; and a set of the loop's
    /// loop-carried pairs that follows `A` is waited before every op of its destination pipe
    /// after the loop: in a later iteration, or by the wait that drains it after the loop. From
    /// there, the forward pairs of `block` after the loop.
    #[allow(clippy::too_many_arguments)]
    pub fn ordered_through_loop(
        &self,
        src: Pipe,
        dst: Pipe,
        lp: OpId,
        body: BlockId,
        a: usize,
        block: BlockId,
        ia: usize,
        ib: usize,
    ) -> bool {
        let mut links = Vec::new();
        self.forward_links(body, 0, &mut links);
        let carried: Vec<&Pair> = self.latest(Key::Loop(lp)).collect();
        // A loop-carried barrier is one before its op `w` in every iteration.
        for p in carried.iter().filter(|p| p.src == p.dst) {
            if let Site::Carried(_, _, _, w) = p.site
                && w > 0
            {
                links.push(Link { src: p.src, dst: p.dst, s: w - 1, w });
            }
        }
        let mut inner = Reach::from(src, a);
        inner.close(&links);
        let after = ia + 1;
        let mut outer = Reach::from(src, ia);
        for &(pipe, _) in &inner.reached {
            outer.lower_both(pipe, after);
        }
        for &(pipe, _) in &inner.settable {
            Reach::lower(&mut outer.settable, pipe, ia);
        }
        for p in carried.iter().filter(|p| p.src != p.dst) {
            if let Site::Carried(_, _, s, _) = p.site
                && inner.settable(p.src).is_some_and(|at| at <= s)
            {
                outer.lower_both(p.dst, after);
            }
        }
        links.clear();
        self.forward_links(block, 0, &mut links);
        outer.close(&links);
        outer.reached(dst).is_some_and(|at| at <= ib)
    }

    /// Adds a dependence, merging it into a pair of the same pipes and block when their
    /// intervals intersect. A forward pair rotates when one of its dependences does (its ids
    /// then follow the iteration, as the loop-carried pair back does). A loop-carried pair
    /// merges with one whose body interval (from its wait to its set) intersects its own, so
    /// that the pairs of buffers a loop cycles through in turn (load one, compute and store
    /// it, then the next) stay apart, each with its own id; it rotates only when all its
    /// dependences do.
    pub fn add(&mut self, src: Pipe, dst: Pipe, site: Site, rot: Option<Rotation>, why: (OpId, OpId, String)) {
        let key = match site {
            Site::Forward(b, ..) | Site::Tight(b, _) => Key::Block(b),
            Site::Carried(l, ..) => Key::Loop(l),
            Site::Fence(b, w) => Key::Fence(b, w),
        };
        let names = (pipes::pipe_name(src), pipes::pipe_name(dst));
        let slot = self.index.entry((names.0, names.1, key)).or_default();
        if slot.is_empty() {
            self.keys.entry(key).or_default().push(names);
        }
        for &i in slot.iter().rev().take(MERGE_WINDOW) {
            let p = &mut self.list[i];
            let merged = match (p.site, site) {
                (Site::Forward(b1, s1, w1), Site::Forward(_, s2, w2))
                    if s1.max(s2) < w1.min(w2) && (p.rot.is_none() || rot.is_none() || p.rot == rot) =>
                {
                    (Site::Forward(b1, s1.max(s2), w1.min(w2)), p.rot.or(rot))
                }
                (Site::Carried(l1, b, s1, w1), Site::Carried(_, _, s2, w2)) if w1.max(w2) <= s1.min(s2) => {
                    (Site::Carried(l1, b, s1.max(s2), w1.min(w2)), if p.rot == rot { rot } else { None })
                }
                (Site::Fence(..), Site::Fence(..)) => (p.site, None),
                _ => continue,
            };
            (p.site, p.rot) = merged;
            p.why.push(why);
            return;
        }
        slot.push(self.list.len());
        self.list.push(Pair { src, dst, site, why: vec![why], rot, id: None });
    }
}
