//! Event ids for `insert-sync`'s flag pairs: interval colouring per pipe pair over the walk
//! positions each pair holds its id ([`lifetime`]), at most [`pipes::event_ids`] per pipe pair
//! (8; A2A3 `PIPE_M` → `PIPE_FIX` 3).
//!
//! When a pair finds no free id, in this order ([`allocate`]):
//!
//! 1. a rotating pair's loop rotates no more (its pairs take one id each);
//! 2. a loop-carried pair merges with another of its loop and pipe pair that has an id (set
//!    after the later of their sets, waited before the earlier of their waits: the loop
//!    overlaps fewer buffers);
//! 3. **wait earlier**: of the starving pair and the pairs of its pipe pair whose ids it
//!    overlaps, the one held longest is waited right after its set ([`Site::Tight`]), which
//!    orders all it did and holds its id over no op (a loop-carried pair then orders each
//!    iteration before the next);
//! 4. only when none of them can wait earlier, the pair is a `barrier <PIPE_ALL>`.

use super::pairs::{Pair, Site};
use super::pipes;
use crate::target::Target;
use pto_ir::module::{Module, OpId};
use std::collections::{HashMap, HashSet};

/// The walk position of each op and of its last descendant.
pub type Spans = HashMap<OpId, (usize, usize)>;

/// The walk positions a pair holds its event id over, doubled and shifted (op `k` is `2k + 2`,
/// the point before it `2k + 1`): from its first set to its last wait.
pub fn lifetime(m: &Module, span: &Spans, site: Site) -> (usize, usize) {
    match site {
        Site::Forward(b, s, w) => {
            let ops = &m.block(b).ops;
            (2 * span[&ops[s]].1 + 3, 2 * span[&ops[w]].0 + 1)
        }
        Site::Carried(l, ..) => {
            let (s, e) = span[&l];
            (2 * s + 1, 2 * e + 3)
        }
        Site::Tight(b, s) => {
            let at = 2 * span[&m.block(b).ops[s]].1 + 3;
            (at, at)
        }
        Site::Fence(..) => (0, 0),
    }
}

/// Whether a pair takes an event id (a flag pair, not a barrier).
fn flagged(p: &Pair) -> bool {
    p.src != p.dst && !matches!(p.site, Site::Fence(..))
}

/// One round of interval colouring: every pair's id, or the first pair left without one.
/// `given_up` pairs (a `barrier <PIPE_ALL>`) take none.
fn colour(m: &Module, target: &Target, span: &Spans, pairs: &mut [Pair], given_up: &HashSet<(Site, usize)>) -> Result<(), usize> {
    let mut idx: Vec<usize> = (0..pairs.len()).filter(|&i| flagged(&pairs[i])).collect();
    idx.sort_by_key(|&i| lifetime(m, span, pairs[i].site).0);
    for p in pairs.iter_mut() {
        p.id = None;
    }
    let mut busy: HashMap<(&str, &str), Vec<Option<usize>>> = HashMap::new();
    for i in idx {
        if given_up.contains(&(pairs[i].site, i)) {
            continue;
        }
        let (start, end) = lifetime(m, span, pairs[i].site);
        let key = (pipes::pipe_name(pairs[i].src), pipes::pipe_name(pairs[i].dst));
        let n = pipes::event_ids(target.id, pairs[i].src, pairs[i].dst) as usize;
        let k = pairs[i].ids() as usize;
        let ends = busy.entry(key).or_insert_with(|| vec![None; n]);
        let free = |id: usize| ends[id].is_none_or(|e| e < start);
        match (0..(n + 1).saturating_sub(k)).find(|&b| (b..b + k).all(free)) {
            Some(id) => {
                ends[id..id + k].fill(Some(end));
                pairs[i].id = Some(id as u32);
            }
            None => return Err(i),
        }
    }
    Ok(())
}

/// Gives each flag pair an event id; a pair left without one stays `None` (a
/// `barrier <PIPE_ALL>`). See the [module docs](self) for what happens first.
pub fn allocate(m: &Module, target: &Target, span: &Spans, pairs: &mut Vec<Pair>) {
    let mut given_up: HashSet<(Site, usize)> = HashSet::new();
    loop {
        let Err(i) = colour(m, target, span, pairs, &given_up) else { return };
        if let Some(r) = pairs[i].rot {
            for p in pairs.iter_mut().filter(|p| p.rot == Some(r)) {
                p.rot = None;
            }
            continue;
        }
        if let Site::Carried(l, b, s, w) = pairs[i].site
            && let Some(j) = (0..pairs.len()).find(|&j| {
                j != i
                    && pairs[j].id.is_some()
                    && pairs[j].rot.is_none()
                    && (pairs[j].src, pairs[j].dst) == (pairs[i].src, pairs[i].dst)
                    && matches!(pairs[j].site, Site::Carried(l2, ..) if l2 == l)
            })
        {
            let Site::Carried(_, _, s2, w2) = pairs[j].site else { unreachable!("matched above") };
            pairs[j].site = Site::Carried(l, b, s.max(s2), w.min(w2));
            let p = pairs.remove(i);
            let j = if j > i { j - 1 } else { j };
            pairs[j].why.extend(p.why);
            given_up = given_up.into_iter().map(|(site, k)| (site, if k > i { k - 1 } else { k })).collect();
            continue;
        }
        match longest_holder(m, span, pairs, i) {
            Some(j) => {
                pairs[j].site = match pairs[j].site {
                    Site::Forward(b, s, _) | Site::Carried(_, b, s, _) => Site::Tight(b, s),
                    other => other,
                }
            }
            None => {
                given_up.insert((pairs[i].site, i));
            }
        }
    }
}

/// Of pair `i` and the pairs of its pipe pair holding an id over part of its lifetime, the one
/// held longest that can wait earlier (a forward pair with an op between its set and its wait,
/// or a loop-carried one; not rotating).
fn longest_holder(m: &Module, span: &Spans, pairs: &[Pair], i: usize) -> Option<usize> {
    let (start, end) = lifetime(m, span, pairs[i].site);
    let can_shrink = |p: &Pair| {
        p.rot.is_none()
            && match p.site {
                Site::Forward(_, s, w) => w > s + 1,
                Site::Carried(..) => true,
                _ => false,
            }
    };
    (0..pairs.len())
        .filter(|&j| {
            let p = &pairs[j];
            (j == i
                || (p.id.is_some() && (p.src, p.dst) == (pairs[i].src, pairs[i].dst) && {
                    let (s, e) = lifetime(m, span, p.site);
                    s <= end && start <= e
                }))
                && can_shrink(p)
        })
        .max_by_key(|&j| {
            let (s, e) = lifetime(m, span, pairs[j].site);
            (e - s, std::cmp::Reverse(s))
        })
}
