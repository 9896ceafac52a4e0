//! The state the cores of one block share besides GM: cross-core TPUSH/TPOP FIFOs and FFTS
//! flag counters. Nothing here waits: an operation that would wait on hardware returns a
//! [`Wait`] describing what it waits for, and the scheduler ([`super::sched`]) suspends the
//! core and retries the op once another core changed this state.
//!
//! **Slots.** A pipe has `slot_num` slots, used in order. A producer's push fills its part of
//! the next slot (the whole tile from the AIC; from each AIV its half under `TILE_UP_DOWN` /
//! `TILE_LEFT_RIGHT`, or the whole tile under `TILE_NO_SPLIT`); a slot is ready when every
//! producer pushed into it. Each consumer pops the slots in order (an AIV its half under a
//! split, the whole tile otherwise; the AIC the whole tile) and frees them in order; a slot is
//! reusable once every consumer freed it. A push into a pipe whose `slot_num` slots are all
//! pushed and not yet freed by every consumer waits (pto-isa `TPipe::Producer::allocate`).
//! Which cores take part: the AIC on the cube side, both AIVs on the vector side (only AIV0
//! under A5's no-split guard, [`super::topology`]).

use super::topology::{C2V, PipeSpec};
use crate::sync::graph::Edge;
use pto_ir::types::ElemType;
use std::collections::{HashMap, VecDeque};

/// What a suspended op waits for.
#[derive(Clone, Debug, PartialEq)]
pub struct Wait(pub String);

/// A tile's valid region in row-major order.
#[derive(Clone, Debug, PartialEq)]
pub struct Piece {
    /// Element type.
    pub dtype: ElemType,
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Row-major bytes.
    pub bytes: Vec<u8>,
}

/// How a tile is divided between the two vector subblocks (`split`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Split {
    /// `TILE_NO_SPLIT`: each AIV moves the whole tile.
    None,
    /// `TILE_UP_DOWN`: AIV i moves row half i.
    UpDown,
    /// `TILE_LEFT_RIGHT`: AIV i moves column half i.
    LeftRight,
}

impl Split {
    /// From the `split` attribute (0, 1, 2).
    pub fn from_attr(v: Option<i64>) -> Result<Split, String> {
        match v.unwrap_or(0) {
            0 => Ok(Split::None),
            1 => Ok(Split::UpDown),
            2 => Ok(Split::LeftRight),
            other => Err(format!("`split = {other}` is not a TileSplitAxis (0, 1 or 2)")),
        }
    }

    /// The whole tile's shape given part `(rows, cols)` (with `parts` vector subblocks).
    pub fn whole(self, rows: usize, cols: usize, parts: usize) -> (usize, usize) {
        match self {
            Split::None => (rows, cols),
            Split::UpDown => (rows * parts, cols),
            Split::LeftRight => (rows, cols * parts),
        }
    }

    /// Where part `i` of shape `(rows, cols)` starts in the whole tile: (row, col).
    pub fn origin(self, i: usize, rows: usize, cols: usize) -> (usize, usize) {
        match self {
            Split::None => (0, 0),
            Split::UpDown => (i * rows, 0),
            Split::LeftRight => (0, i * cols),
        }
    }
}

#[derive(Clone, Debug)]
struct Slot {
    image: Piece,
    pieces: usize,
    frees: usize,
}

/// One cross-core FIFO.
#[derive(Clone, Debug)]
pub struct XPipe {
    /// Its static description.
    pub spec: PipeSpec,
    /// Slots from index `head` on (`head` is the oldest slot not yet freed by every consumer).
    slots: VecDeque<Slot>,
    head: u64,
    push_next: Vec<u64>,
    /// Per producer, the slot after the last one `talloc` handed out.
    alloc_next: Vec<u64>,
    pop_next: Vec<u64>,
    free_next: Vec<u64>,
    /// The GM slot buffer: GM argument index. On A2A3 every completed slot is written there
    /// (the path through GM); on both targets the GM-slot forms (`talloc`, slot views) use it.
    pub gm_slots: Option<usize>,
}

impl XPipe {
    /// An empty pipe.
    pub fn new(spec: PipeSpec) -> XPipe {
        let (p, c) = if spec.dir == C2V { (1, spec.aivs) } else { (spec.aivs, 1) };
        XPipe {
            spec,
            slots: VecDeque::new(),
            head: 0,
            push_next: vec![0; p],
            alloc_next: vec![0; p],
            pop_next: vec![0; c],
            free_next: vec![0; c],
            gm_slots: None,
        }
    }

    fn producers(&self) -> usize {
        self.push_next.len()
    }

    fn consumers(&self) -> usize {
        self.pop_next.len()
    }

    /// `c2v pipe into reserve_buffer "x" of @f`.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// Why slot `idx` is not free yet, if it is not (all `slot_num` slots are pushed and not
    /// yet freed by every consumer).
    fn full(&self, idx: u64) -> Option<Wait> {
        (idx >= self.head + self.spec.slot_num).then(|| {
            Wait(format!(
                "a free slot of the {}: all {} slots are pushed and not yet freed by every consumer (slot {} next)",
                self.name(),
                self.spec.slot_num,
                idx
            ))
        })
    }

    /// Producer `p` takes the next slot it has not taken yet, once it is free, to write it in
    /// GM before pushing it (`talloc`).
    pub fn allocate(&mut self, p: usize) -> Result<Result<u64, Wait>, String> {
        let (Some(&pushed), Some(&allocated)) = (self.push_next.get(p), self.alloc_next.get(p)) else {
            return Err(format!("core is not a producer of the {} ({} producer(s))", self.name(), self.producers()));
        };
        let idx = pushed.max(allocated);
        if let Some(w) = self.full(idx) {
            return Ok(Err(w));
        }
        self.alloc_next[p] = idx + 1;
        Ok(Ok(idx))
    }

    /// The slot producer `p` pushes next.
    pub fn next_push(&self, p: usize) -> Option<u64> {
        self.push_next.get(p).copied()
    }

    /// How many parts a tile moved in direction of this pipe has (2 when the vector cores
    /// split it, else 1), given the op's `split`.
    pub fn parts(&self, split: Split) -> usize {
        let vector_side = if self.spec.dir == C2V { self.consumers() } else { self.producers() };
        if split == Split::None { 1 } else { vector_side.max(1) }
    }

    /// Producer `p` pushes `piece`; returns the slot index it went to and, when the slot is
    /// now complete, the whole slot image (for the GM slot buffer).
    pub fn push(&mut self, p: usize, piece: Piece, split: Split) -> Result<Result<(u64, Option<Piece>), Wait>, String> {
        let n = self.producers();
        let Some(&idx) = self.push_next.get(p) else {
            return Err(format!("core is not a producer of the {} ({} producer(s))", self.name(), n));
        };
        if let Some(w) = self.full(idx) {
            return Ok(Err(w));
        }
        let at = (idx - self.head) as usize;
        let parts = if n > 1 { n } else { 1 };
        let split = if self.spec.dir == C2V { Split::None } else { split };
        let (rows, cols) = split.whole(piece.rows, piece.cols, parts);
        let size = piece.dtype.size_bytes() as usize;
        if at == self.slots.len() {
            let image = Piece { dtype: piece.dtype, rows, cols, bytes: vec![0; rows * cols * size] };
            self.slots.push_back(Slot { image, pieces: 0, frees: 0 });
        }
        let name = self.spec.name.clone();
        let slot = &mut self.slots[at];
        if (slot.image.dtype, slot.image.rows, slot.image.cols) != (piece.dtype, rows, cols) {
            return Err(format!(
                "pushes a {} {}x{} part into slot {idx} of the {}, which another producer filled as {} {}x{}",
                piece.dtype, piece.rows, piece.cols, name, slot.image.dtype, slot.image.rows, slot.image.cols
            ));
        }
        let (r0, c0) = split.origin(p, piece.rows, piece.cols);
        for r in 0..piece.rows {
            let dst = ((r0 + r) * cols + c0) * size;
            slot.image.bytes[dst..dst + piece.cols * size]
                .copy_from_slice(&piece.bytes[r * piece.cols * size..(r + 1) * piece.cols * size]);
        }
        slot.pieces += 1;
        self.push_next[p] += 1;
        let complete = (slot.pieces == n).then(|| slot.image.clone());
        Ok(Ok((idx, complete)))
    }

    /// Consumer `c` pops the next slot into a tile of `dtype` with valid shape `(rows, cols)`;
    /// returns the slot index and the part for this consumer.
    pub fn pop(&mut self, c: usize, dtype: ElemType, rows: usize, cols: usize, split: Split) -> Result<Result<(u64, Piece), Wait>, String> {
        let Some(&idx) = self.pop_next.get(c) else {
            return Err(format!("core is not a consumer of the {} ({} consumer(s))", self.name(), self.consumers()));
        };
        let ready = idx.checked_sub(self.head).and_then(|at| self.slots.get(at as usize)).filter(|s| s.pieces == self.producers());
        let Some(slot) = ready else {
            return Ok(Err(Wait(format!(
                "slot {idx} of the {}: {} pushed so far",
                self.name(),
                self.push_next.iter().copied().min().unwrap_or(0)
            ))));
        };
        let img = &slot.image;
        let split = if self.spec.dir == C2V { split } else { Split::None };
        let parts = if self.consumers() > 1 { self.consumers() } else { 1 };
        let (wr, wc) = split.whole(rows, cols, parts);
        if (img.dtype, img.rows, img.cols) != (dtype, wr, wc) {
            let part = if split == Split::None { String::new() } else { format!(" (its part is {}x{} of a {wr}x{wc} tile)", rows, cols) };
            return Err(format!(
                "pops a {} {}x{} tile{part}, but slot {idx} of the {} holds a {} {}x{} tile",
                dtype,
                rows,
                cols,
                self.name(),
                img.dtype,
                img.rows,
                img.cols
            ));
        }
        let size = dtype.size_bytes() as usize;
        let (r0, c0) = split.origin(c, rows, cols);
        let mut bytes = Vec::with_capacity(rows * cols * size);
        for r in 0..rows {
            let src = ((r0 + r) * img.cols + c0) * size;
            bytes.extend_from_slice(&img.bytes[src..src + cols * size]);
        }
        self.pop_next[c] += 1;
        Ok(Ok((idx, Piece { dtype, rows, cols, bytes })))
    }

    /// Consumer `c` frees its oldest popped slot.
    pub fn free(&mut self, c: usize) -> Result<u64, String> {
        let (Some(&next), Some(&popped)) = (self.free_next.get(c), self.pop_next.get(c)) else {
            return Err(format!("core is not a consumer of the {}", self.name()));
        };
        if next >= popped {
            return Err(format!(
                "frees a slot of the {} it does not hold: {popped} popped, {next} already freed (a slot freed twice, or freed before its tpop)",
                self.name()
            ));
        }
        let at = (next - self.head) as usize;
        self.slots[at].frees += 1;
        self.free_next[c] += 1;
        let all = self.consumers();
        while self.slots.front().is_some_and(|s| s.frees == all) {
            self.slots.pop_front();
            self.head += 1;
        }
        Ok(next)
    }

    /// `3 pushed, 2 popped, 1 freed` per side, for trace notes.
    pub fn describe(&self) -> String {
        let list = |v: &[u64]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("/");
        format!("{}: pushed {}, popped {}, freed {}", self.name(), list(&self.push_next), list(&self.pop_next), list(&self.free_next))
    }

    /// What is left at the end of a run: slots pushed and never popped or freed.
    pub fn leftover(&self) -> Option<String> {
        let pushed = self.push_next.iter().copied().min().unwrap_or(0);
        let freed = self.free_next.iter().copied().min().unwrap_or(0);
        (pushed > freed).then(|| format!("{} slot(s) of the {} were pushed and never freed by every consumer", pushed - freed, self.name()))
    }
}

/// Everything the cores of one block share besides GM.
#[derive(Debug, Default)]
pub struct BlockState {
    /// The logical pipes ([`super::Topology::pipes`] order).
    pub pipes: Vec<XPipe>,
    /// FFTS flag counters: (receiving core index, flag id, sender slot) → count. The sender
    /// slot is 0, except for an A2A3 AIV's set of the AIC's flag: `1 + subblock`, since the
    /// AIC's wait needs a set from each AIV (mode 2).
    pub flags: HashMap<(usize, i64, usize), u64>,
    /// The last `sync.set` of each flag counter (where a set never waited is reported).
    pub flag_set_at: HashMap<(usize, i64, usize), pto_ir::module::OpId>,
    /// The happens-before graph of the cores: their pipes when checked, pipe slots, FFTS flags,
    /// `syncall` rounds and signals as edges, GM shadowed by interval.
    pub hb: crate::sync::graph::Graph,
    /// When each sync object between cores was last released, in the releasing core's
    /// modelled cycles, and by which event (timed runs: [`super::clock`]); of several
    /// releases, the latest (of equal times, the first core's: the same on any schedule).
    pub times: HashMap<Edge, super::clock::Released>,
    /// The `syncall` barrier of the cores sharing this state.
    pub barrier: Barrier,
    /// A2A3 FFTS modes 0 and 1 (a barrier of cores: every participant's flag counts once all
    /// have set it): (mode, group, flag id) → sets so far per participant core.
    pub ffts_rounds: HashMap<(i64, u32, i64), Vec<(usize, u64)>>,
}

/// The `syncall` barriers of the cores under one scheduler: one per rank (a device's cores
/// synchronise among themselves).
#[derive(Clone, Debug, Default)]
pub struct Barrier {
    /// The cores under this scheduler, by index: their rank and kind.
    pub cores: Vec<(u32, super::CoreKind)>,
    /// Per rank: cores that arrived in the current round, and rounds completed so far.
    pub rounds: HashMap<u32, (usize, u64)>,
}

impl BlockState {
    /// Fresh state for the pipes of a topology, shared by `cores` (rank, kind).
    pub fn new(specs: &[PipeSpec], cores: Vec<(u32, super::CoreKind)>) -> BlockState {
        BlockState {
            pipes: specs.iter().cloned().map(XPipe::new).collect(),
            flags: HashMap::new(),
            flag_set_at: HashMap::new(),
            hb: crate::sync::graph::Graph::for_machine(cores.len()),
            times: HashMap::new(),
            barrier: Barrier { cores, ..Default::default() },
            ffts_rounds: HashMap::new(),
        }
    }
}

impl BlockState {
    /// Core `me` releases `edge` — what pipe `on` did (the whole core when `None`) — into the
    /// happens-before model, and, on a timed run, at the time its `clock` says its releasing op
    /// completes.
    pub fn release(&mut self, me: usize, on: Option<crate::sync::model::Pipe>, edge: Edge, clock: Option<&super::clock::SharedClock>) {
        self.hb.release(me, on, edge);
        if let Some(c) = clock {
            let r = super::clock::with(c, |c| c.released());
            let latest = self.times.entry(edge).or_insert(r);
            let key = |r: &super::clock::Released| (r.at, std::cmp::Reverse(r.by.and_then(|b| b.actor)));
            if key(&r).partial_cmp(&key(latest)) == Some(std::cmp::Ordering::Greater) {
                *latest = r;
            }
        }
    }

    /// Core `me` acquires `edge` — for pipe `on` (the whole core when `None`: everything it
    /// does after) — from the happens-before model, and, on a timed run, its acquiring op waits
    /// until the edge's release.
    pub fn acquire(&mut self, me: usize, on: Option<crate::sync::model::Pipe>, edge: Edge, clock: Option<&super::clock::SharedClock>) {
        self.hb.acquire(me, on, edge);
        if let (Some(c), Some(&r)) = (clock, self.times.get(&edge)) {
            super::clock::with(c, |c| c.not_before(r, edge.flow_name()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(dir: usize, slots: u64) -> PipeSpec {
        PipeSpec { dir, slot_size: 64, slot_num: slots, name: "test pipe".into(), aivs: 2 }
    }

    fn piece(rows: usize, cols: usize, first: u8) -> Piece {
        Piece { dtype: ElemType::U8, rows, cols, bytes: (0..(rows * cols) as u8).map(|x| x + first).collect() }
    }

    #[test]
    fn c2v_up_down_gives_each_aiv_its_row_half() {
        let mut p = XPipe::new(spec(C2V, 2));
        assert!(p.pop(0, ElemType::U8, 1, 2, Split::UpDown).unwrap().is_err(), "empty pipe waits");
        p.push(0, piece(2, 2, 0), Split::UpDown).unwrap().unwrap();
        let (_, top) = p.pop(0, ElemType::U8, 1, 2, Split::UpDown).unwrap().unwrap();
        let (_, bottom) = p.pop(1, ElemType::U8, 1, 2, Split::UpDown).unwrap().unwrap();
        assert_eq!((top.bytes, bottom.bytes), (vec![0, 1], vec![2, 3]));
    }

    #[test]
    fn v2c_left_right_assembles_the_halves_and_slots_recycle_after_every_free() {
        let mut p = XPipe::new(spec(super::super::topology::V2C, 1));
        p.push(1, piece(2, 1, 10), Split::LeftRight).unwrap().unwrap();
        assert!(p.pop(0, ElemType::U8, 2, 2, Split::LeftRight).unwrap().is_err(), "half a slot is not ready");
        let (_, img) = p.push(0, piece(2, 1, 0), Split::LeftRight).unwrap().unwrap();
        assert_eq!(img.unwrap().bytes, vec![0, 10, 1, 11]);
        assert!(p.push(0, piece(2, 1, 0), Split::LeftRight).unwrap().is_err(), "the only slot is taken");
        p.pop(0, ElemType::U8, 2, 2, Split::LeftRight).unwrap().unwrap();
        p.free(0).unwrap();
        assert!(p.free(0).unwrap_err().contains("freed twice"));
        assert!(p.push(0, piece(2, 1, 0), Split::LeftRight).unwrap().is_ok());
    }

    #[test]
    fn a_wrong_shape_is_an_error() {
        let mut p = XPipe::new(spec(C2V, 8));
        p.push(0, piece(2, 2, 0), Split::None).unwrap().unwrap();
        assert!(p.pop(0, ElemType::U8, 2, 2, Split::UpDown).unwrap_err().contains("of a 4x2 tile), but slot 0 of the test pipe holds a"));
    }
}
