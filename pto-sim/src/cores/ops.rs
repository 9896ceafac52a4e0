//! Semantics of the ops between cores, as a table ([`SEMANTICS`]) the interpreter looks up
//! once per op: the cube/vector pipe ops of PTOAS's TPUSH/TPOP design
//! (`docs/designs/ptoas-tpush-tpop-design.md`), `reserve_buffer` / `import_reserved_buffer`,
//! `memref.alloc`, and FFTS (`sync.set`, `sync.wait`, `set_ffts`).
//!
//! An entry returns [`Stop::Wait`] where the hardware would wait; the interpreter then asks the
//! scheduler to suspend the core and retries the op when it runs again. Without a scheduler
//! (a kernel that is not a mix kernel runs on one core) the FFTS ops order nothing (the other
//! side is not simulated) and the pipe ops are an error.
//!
//! **Frontend pipes.** Each function has at most one `aic/aiv_initialize_pipe` (PTOAS §3.5):
//! running it binds the core's C2V and V2C handles; `tpush_to_aiv`, `tpop_from_aic`, ... use
//! them. A popped tile lives in the consumer's reserved buffer, at slot
//! `index mod slot_num` (`local_addr + slot * slot_size`), in the popping core's memory, so the
//! kernel can read it there until it frees the slot. On A2A3 with a `gm_slot_buffer`, each
//! completed slot is also written to GM at `(index mod slot_num) * slot_size` bytes, row-major
//! (pto-isa `TPipe::Producer::pushAcc2GMFiFo` / `pushVec2GMFiFo`), so the slot buffer's
//! contents are an output like on hardware.
//!
//! **GM slots.** pto-isa's `GlobalData` interface on an internal pipe with a GM slot buffer
//! (both targets): `talloc` hands the producer its part of the next slot as a GM view, which it
//! writes with `tstore`; `tpush(%slot, %pipe)` commits the view's contents as the slot;
//! `tpop(%pipe) -> view` gives the consumer its part of the next ready slot in the buffer
//! (written there), read with `tload` until `tfree`. Each side may use either interface.
//!
//! **FFTS** (`sync.set <pipe>, id` / `sync.wait <pipe>, id`): counters per receiving core and
//! flag id. A2A3 (`ffts_cross_core_sync` mode 2, CV_CORES_SYNC): a set on the AIC counts for
//! each AIV; a set on an AIV counts for the AIC, whose wait needs one set from every AIV. A5
//! (`set_intra_block` / `wait_intra_block`): ids 0-15 address AIV0 and 16-31 AIV1; a set on
//! the AIC with `<PIPE_FIX>` also sets `id + 16` (PTOAS's `PTOSyncSetToEmitC` mirror); a set on
//! AIV `i` counts for the AIC's flag `id + 16 i`. A wait consumes what it waited for.

use super::sched::Link;
use super::topology::{C2V, Topology, V2C, split_of};
use super::xpipe::{Piece, Split, Wait};
use super::{ActorId, CoreKind};
use crate::gm::{GmArray, GmView};
use crate::memory::Memory;
use crate::sync::graph::Edge;
use crate::value::Val;
use pto_ir::module::{Module, OpId};
use pto_ir::ops::Opcode;
use pto_lower::{Target, TargetId};
use std::sync::{Arc, OnceLock};

/// Where the running core is and what it holds across ops.
pub struct CoreState {
    /// Which core.
    pub actor: ActorId,
    /// Its index in the block (AIC 0, AIV i at i + 1).
    pub index: usize,
    /// Its block's scheduler; `None` on a single core.
    pub link: Option<Link>,
    /// The module's static facts (computed on first use on a single core).
    pub topo: Option<Arc<Topology>>,
    /// The logical pipe and local consumer address of this core's C2V and V2C directions,
    /// bound by the last `*_initialize_pipe` it ran.
    pub handles: [Option<(usize, i64)>; 2],
    /// GM hazards with other cores found so far ([`gm_access`]), when sync checking.
    pub findings: Vec<pto_ir::Diagnostic>,
    /// What the other actors under this core's scheduler are.
    pub space: Space,
    /// The `syncall` round this core arrived at and waits to see completed.
    pub barrier: Option<u64>,
    /// Where this core's block starts in its scheduler's shared state: the index of its first
    /// core and of its first pipe (0 and 0 when a scheduler runs one block).
    pub group: (usize, usize),
    /// This core's timeline on a timed run ([`super::clock`]).
    pub clock: Option<super::clock::SharedClock>,
}

/// What the actors sharing a scheduler are, for naming them in diagnostics.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Space {
    /// The cores of one block (AIC, AIV0, AIV1).
    #[default]
    Cores,
    /// Whole blocks, one core each (a kernel with `syncall` on several blocks).
    Blocks,
    /// Ranks of blocks ([`crate::comm`]): actor `i` is core `i mod per_block` of block
    /// `(i / per_block) mod blocks` of rank `i / (per_block blocks)`.
    Ranks {
        /// Blocks per rank.
        blocks: u32,
        /// Cores per block (1, or 3 for a mix kernel).
        per_block: u32,
    },
}

impl Default for CoreState {
    fn default() -> CoreState {
        CoreState {
            actor: ActorId { rank: 0, block: 0, core: CoreKind::Whole },
            index: 0,
            link: None,
            topo: None,
            handles: [None; 2],
            findings: Vec::new(),
            space: Space::Cores,
            barrier: None,
            group: (0, 0),
            clock: None,
        }
    }
}

/// Why an op did not complete.
#[derive(Clone, Debug, PartialEq)]
pub enum Stop {
    /// It waits for another core.
    Wait(Wait),
    /// A program fault.
    Fault(String),
    /// Not an op between cores after all: a `tpush`/`tpop`/`tfree` on a kernel's `!pto.pipe`
    /// argument runs with the single-core FIFO semantics ([`crate::tpipe`]).
    Local,
}

/// The `!pto.pipe` value of an `initialize_l2l_pipe` / `initialize_l2g2l_pipe`: the pipe ops
/// on it use the core's pipe handles (one pipe per function, PTOAS §3.5).
pub const CROSS_PIPE: u32 = u32::MAX;

impl From<String> for Stop {
    fn from(s: String) -> Stop {
        Stop::Fault(s)
    }
}

impl From<crate::memory::Fault> for Stop {
    fn from(f: crate::memory::Fault) -> Stop {
        Stop::Fault(f.0)
    }
}

/// What an entry may read and change.
pub struct CoreCx<'a> {
    /// The module.
    pub m: &'a Module,
    /// The op.
    pub op: OpId,
    /// Every IR value's run-time value (results are written here).
    pub vals: &'a mut [Val],
    /// The core's on-chip buffers.
    pub mem: &'a mut Memory,
    /// The GM arrays (held while the core has the turn).
    pub gm: &'a mut Vec<GmArray>,
    /// How far an unbound GM array may grow.
    pub gm_limit: usize,
    /// Trace notes of the op.
    pub notes: &'a mut Vec<String>,
    /// The core.
    pub core: &'a mut CoreState,
    /// The target.
    pub target: &'static Target,
    /// This rank and its peers ([`crate::comm`]).
    pub ranks: &'a crate::comm::Ranks,
    /// Whether sync checking is on (GM accesses go to the happens-before model, [`gm_access`]).
    pub check_gm: bool,
}

/// How one op between cores executes.
pub type CoreSemantics = fn(&mut CoreCx<'_>) -> Result<(), Stop>;

/// The ops between cores.
pub const SEMANTICS: &[(Opcode, CoreSemantics)] = &[
    (Opcode::ReserveBuffer, reserved),
    (Opcode::ImportReservedBuffer, reserved),
    (Opcode::MemrefAlloc, memref_alloc),
    (Opcode::DeclareTile, declare_tile),
    (Opcode::AicInitializePipe, initialize),
    (Opcode::AivInitializePipe, initialize),
    (Opcode::TPushToAiv, push),
    (Opcode::TPushToAic, push),
    (Opcode::TPopFromAic, pop),
    (Opcode::TPopFromAiv, pop),
    (Opcode::TFreeFromAic, free),
    (Opcode::TFreeFromAiv, free),
    (Opcode::InitializeL2lPipe, initialize),
    (Opcode::InitializeL2g2lPipe, initialize),
    (Opcode::TPush, internal_push),
    (Opcode::TPop, internal_pop),
    (Opcode::TFree, internal_free),
    (Opcode::TAlloc, internal_alloc),
    (Opcode::SyncAll, syncall),
    (Opcode::SyncSet, ffts_set),
    (Opcode::SyncWait, ffts_wait),
    (Opcode::SetFfts, set_ffts),
];

/// Whether `op` is in [`SEMANTICS`] (a comparison, for the interpreter's dispatch).
#[inline]
pub fn is_core_op(op: Opcode) -> bool {
    op.spec().family == pto_ir::ops::Family::Pipe
        || matches!(
            op,
            Opcode::SyncSet
                | Opcode::SyncWait
                | Opcode::SetFfts
                | Opcode::MemrefAlloc
                | Opcode::DeclareTile
                | Opcode::TPush
                | Opcode::TPop
                | Opcode::TFree
                | Opcode::TAlloc
                | Opcode::SyncAll
        )
}

/// The entry for `op`, if it is an op between cores.
pub fn semantics(op: Opcode) -> Option<CoreSemantics> {
    static INDEX: OnceLock<Vec<Option<CoreSemantics>>> = OnceLock::new();
    let index = INDEX.get_or_init(|| crate::exec::opcode_index(&[SEMANTICS]));
    index.get(op as usize).copied().flatten()
}

impl CoreCx<'_> {
    fn topo(&mut self) -> Arc<Topology> {
        let (m, target) = (self.m, self.target);
        self.core.topo.get_or_insert_with(|| Arc::new(Topology::new(m, target))).clone()
    }

    fn set_result(&mut self, v: Val) {
        if let Some(&r) = self.m.op(self.op).results.first() {
            self.vals[r.index()] = v;
        }
    }

    fn link(&self, what: &str) -> Result<&Link, Stop> {
        self.core
            .link
            .as_ref()
            .ok_or_else(|| Stop::Fault(format!("{what} needs the cube and vector cores of a mix kernel; this run simulates one core")))
    }

    /// The subblock index of a vector core.
    fn subblock(&self) -> usize {
        match self.core.actor.core {
            CoreKind::Aiv(i) => usize::from(i),
            _ => 0,
        }
    }

    fn split(&self) -> Result<Split, Stop> {
        Split::from_attr(split_of(self.m, self.op)).map_err(Stop::Fault)
    }

    /// The pipe bound to direction `dir` by this core's init.
    fn handle(&self, dir: usize) -> Result<(usize, i64), Stop> {
        let side = if dir == C2V { "C2V" } else { "V2C" };
        self.core.handles[dir].ok_or_else(|| {
            Stop::Fault(format!(
                "no {side} pipe: run `aic_initialize_pipe` / `aiv_initialize_pipe` with this direction in `dir_mask` first"
            ))
        })
    }
}

fn reserved(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    let topo = cx.topo();
    let addr = topo.reserved.get(&cx.op).cloned().unwrap_or_else(|| Err("unresolved reserved buffer".into()))?;
    cx.set_result(Val::Int(addr));
    Ok(())
}

fn memref_alloc(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    let topo = cx.topo();
    let (desc, addr) = topo.allocs.get(&cx.op).cloned().unwrap_or_else(|| Err("unplaced memref.alloc".into()))?;
    let view = crate::view::TileView { loc: desc.loc, addr, desc, vrows: desc.rows as usize, vcols: desc.cols as usize };
    cx.notes.push(format!("placed at {}+{addr} ({} B)", cx.target.buffer(desc.loc).name, desc.size_bytes()));
    cx.set_result(Val::Tile(view));
    Ok(())
}

/// `declare_tile`: a tile without storage, placed by the `tpop` that fills it.
fn declare_tile(_: &mut CoreCx<'_>) -> Result<(), Stop> {
    Ok(())
}

fn initialize(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    let topo = cx.topo();
    let pipe_base = cx.core.group.1;
    let ids = topo.inits.get(&cx.op).copied().unwrap_or([None, None]).map(|id| id.map(|i| i + pipe_base));
    let addrs = super::topology::init_addresses(cx.m, cx.op).unwrap_or([None, None]);
    let gm_slots = match super::topology::init_gm_slots(cx.m, cx.op).map(|v| cx.vals[v.index()]) {
        Some(Val::Ptr(i)) => Some(i),
        _ => None,
    };
    let link = cx.link("a cube/vector pipe")?.clone();
    for dir in [C2V, V2C] {
        let (Some(id), Some(v)) = (ids[dir], addrs[dir]) else { continue };
        let base = match cx.vals[v.index()] {
            Val::Int(a) => a,
            _ => return Err(Stop::Fault(format!("the consumer buffer `%{}` is not an address", cx.m.values[v.index()].name))),
        };
        cx.core.handles[dir] = Some((id, base));
        let name = link.with_block(|b| {
            if gm_slots.is_some() {
                b.pipes[id].gm_slots = gm_slots;
            }
            (b.pipes[id].name().to_string(), false)
        });
        cx.notes.push(format!("{name} (consumer buffer at {base})"));
    }
    cx.set_result(Val::Pipe(CROSS_PIPE));
    Ok(())
}

/// The direction a data op moves in.
fn direction(op: Opcode) -> usize {
    match op {
        Opcode::TPushToAiv | Opcode::TPopFromAic | Opcode::TFreeFromAic => C2V,
        _ => V2C,
    }
}

fn push(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    let Some(&v) = cx.m.op(cx.op).operands.first() else { return Err(Stop::Fault("no tile to push".into())) };
    push_tile(cx, direction(cx.m.op(cx.op).opcode), v)
}

/// Pushes the tile `v` into this core's pipe of direction `dir`.
fn push_tile(cx: &mut CoreCx<'_>, dir: usize, v: pto_ir::module::ValueId) -> Result<(), Stop> {
    let Val::Tile(tile) = cx.vals[v.index()] else { return Err(Stop::Fault(format!("`%{}` is not a tile", cx.m.values[v.index()].name))) };
    let data = crate::family::read_region(cx.mem, &tile)?;
    push_piece(cx, dir, Piece { dtype: data.dtype, rows: data.rows, cols: data.cols, bytes: data.bytes })
}

/// The index of this core among the producers of direction `dir`.
fn producer_index(cx: &CoreCx<'_>, dir: usize) -> usize {
    if dir == C2V { 0 } else { cx.subblock() }
}

/// A step of a pipe between cores that is an edge of the happens-before model.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum SlotStep {
    /// The producer waits for a free slot (acquires it).
    Alloc,
    /// The producer signals a filled slot (releases it).
    Push,
    /// The consumer waits for a filled slot (acquires it).
    Pop,
    /// The consumer signals a freed slot (releases it).
    Free,
}

/// The pipe a slot edge is signalled or waited on, as pto-isa's TPipe does it (`None`: the
/// whole core). The producer's `record()` sets its flag on FIX (cube) or MTE3 (vector core),
/// after the slot's store, on both targets. A2A3 (`npu/a2a3/TPush.hpp`): `free()` sets on
/// MTE2, after the slot's load; the waits are `wait_flag_dev`, which holds the whole core. A5
/// (`npu/a5/TPush.hpp`, `set_intra_block` / `wait_intra_block` hold one pipe): `allocate()`
/// waits on FIX / MTE3; a vector consumer waits and frees on MTE2 with a GM FIFO, on V with
/// one in its UB; a cube consumer waits on MTE2 (GM FIFO) or MTE1 (L1) and frees on MTE1.
fn slot_pipe(target: TargetId, core: CoreKind, step: SlotStep, gm_fifo: bool) -> Option<crate::sync::model::Pipe> {
    use crate::sync::model::Pipe;
    let cube = core == CoreKind::Aic;
    match (target, step) {
        (_, SlotStep::Push) => Some(if cube { Pipe::Fix } else { Pipe::Mte3 }),
        (TargetId::A2A3, SlotStep::Free) => Some(Pipe::Mte2),
        (TargetId::A2A3, _) => None,
        (TargetId::A5, SlotStep::Alloc) => Some(if cube { Pipe::Fix } else { Pipe::Mte3 }),
        (TargetId::A5, SlotStep::Pop) if gm_fifo => Some(Pipe::Mte2),
        (TargetId::A5, SlotStep::Pop) => Some(if cube { Pipe::Mte1 } else { Pipe::V }),
        (TargetId::A5, SlotStep::Free) if cube => Some(Pipe::Mte1),
        (TargetId::A5, SlotStep::Free) => Some(if gm_fifo { Pipe::Mte2 } else { Pipe::V }),
    }
}

/// Pushes `piece` (this core's part of a slot) into this core's pipe of direction `dir`.
fn push_piece(cx: &mut CoreCx<'_>, dir: usize, piece: Piece) -> Result<(), Stop> {
    let (id, _) = cx.handle(dir)?;
    let split = cx.split()?;
    let producer = producer_index(cx, dir);
    let link = cx.link("a cube/vector pipe")?.clone();
    let me = cx.core.index;
    let clock = cx.core.clock.clone();
    let (target, kind) = (cx.target.id, cx.core.actor.core);
    let done = link.with_block(|b| {
        let r = b.pipes[id].push(producer, piece, split);
        let changed = matches!(r, Ok(Ok(_)));
        if let Ok(Ok((idx, _))) = &r {
            let gm = b.pipes[id].gm_slots.is_some();
            let (alloc, push) = (slot_pipe(target, kind, SlotStep::Alloc, gm), slot_pipe(target, kind, SlotStep::Push, gm));
            b.acquire(me, alloc, Edge::Freed(id, idx % b.pipes[id].spec.slot_num), clock.as_ref());
            b.release(me, push, Edge::Pushed(id, *idx), clock.as_ref());
        }
        let (slots, slot_size, gm) = (b.pipes[id].spec.slot_num, b.pipes[id].spec.slot_size, b.pipes[id].gm_slots);
        ((r, slots, slot_size, gm, b.pipes[id].describe()), changed)
    });
    let (r, slots, slot_size, gm, state) = done;
    let (idx, complete) = r?.map_err(Stop::Wait)?;
    // A2A3 moves every slot through GM; on A5 the FIFO is core to core.
    if let (Some(image), Some(g), TargetId::A2A3) = (complete, gm, cx.target.id) {
        write_gm_slot(cx, g, (idx % slots) * slot_size, &image)?;
    }
    cx.notes.push(format!("pushed slot {idx}; {state}"));
    Ok(())
}

/// Writes a completed slot image to the GM slot buffer at byte `offset`.
fn write_gm_slot(cx: &mut CoreCx<'_>, arg: usize, offset: u64, image: &Piece) -> Result<(), Stop> {
    let limit = cx.gm_limit;
    let a = cx.gm.get_mut(arg).ok_or_else(|| Stop::Fault("the GM slot buffer is not a kernel argument".into()))?;
    let size = image.dtype.size_bytes() as usize;
    if a.elem_size != size {
        return Err(Stop::Fault(format!("the GM slot buffer `%{}` has {}-byte elements, the tile {size}-byte ones", a.name, a.elem_size)));
    }
    let first = (offset as usize) / size;
    for (k, chunk) in image.bytes.chunks(size).enumerate() {
        a.element((first + k) as i64, limit)?.copy_from_slice(chunk);
    }
    a.written = true;
    Ok(())
}

fn pop(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    let Some(&res) = cx.m.op(cx.op).results.first() else { return Err(Stop::Fault("no result tile".into())) };
    pop_tile(cx, direction(cx.m.op(cx.op).opcode), res, 0)
}

/// Pops this core's pipe of direction `dir` into the tile value `res` (placed in the consumer
/// buffer); with `dynamic_at == 0` the op's first two operands, if any, are a dynamic valid
/// shape (`tpop_from_aic(%rows, %cols)`).
fn pop_tile(cx: &mut CoreCx<'_>, dir: usize, res: pto_ir::module::ValueId, dynamic_at: usize) -> Result<(), Stop> {
    let (_, base) = cx.handle(dir)?;
    let data = cx.m.op(cx.op);
    let Some(desc) = cx.m.value_type(res).tile().copied() else { return Err(Stop::Fault("the result is not a tile".into())) };
    // Optional dynamic valid shape operands `(rows, cols)`.
    let dynamic = |i: usize| match data.operands.get(i).filter(|_| dynamic_at == 0).map(|v| cx.vals[v.index()]) {
        Some(Val::Int(n)) => Some(n.max(0) as usize),
        _ => None,
    };
    let static_or = |d: pto_ir::types::Dim, dynamic: Option<usize>, cap: u32| match d {
        pto_ir::types::Dim::Static(n) => n as usize,
        pto_ir::types::Dim::Dynamic => dynamic.unwrap_or(cap as usize),
    };
    let (vr, vc) = (static_or(desc.valid_rows, dynamic(0), desc.rows), static_or(desc.valid_cols, dynamic(1), desc.cols));
    let (idx, piece, slots, slot_size, state) = pop_piece(cx, dir, desc.dtype, vr, vc)?;
    let addr = base.max(0) as u64 + (idx % slots) * slot_size;
    let view = crate::view::TileView { loc: desc.loc, addr, desc, vrows: vr, vcols: vc };
    view.valid_inside()?;
    let size = view.elem_size();
    let storage = cx.mem.slice_mut(view.loc, view.addr, view.size_bytes() as usize)?;
    for k in 0..vr * vc {
        crate::view::element_mut(storage, &view, k / vc, k % vc)?.copy_from_slice(&piece.bytes[k * size..(k + 1) * size]);
    }
    cx.notes.push(format!("popped slot {idx} at {}+{addr}; {state}", cx.target.buffer(desc.loc).name));
    cx.vals[res.index()] = Val::Tile(view);
    // A2A3's TPOP of a tile frees the slot itself once it copied it out
    // (`npu/a2a3/TPop.hpp:32-37`); its TFREE is then a no-op ([`tile_free_is_a_no_op`]).
    if cx.target.id == TargetId::A2A3 {
        release_slot(cx, dir)?;
    }
    Ok(())
}

/// Whether a `tfree` of a popped tile does nothing on this target: on A2A3 TPOP freed the
/// slot and `TFREE(pipe)` is a no-op (`npu/a2a3/TFree.hpp:20-24`, `docs/isa/TFREE.md`); a slot
/// popped as a GM view (`tpop` returning the slot) is still freed by its `tfree`, on every
/// target.
fn tile_free_is_a_no_op(cx: &mut CoreCx<'_>) -> bool {
    if cx.target.id != TargetId::A2A3 {
        return false;
    }
    cx.notes.push("TFREE of a popped tile is a no-op on A2A3: its TPOP freed the slot (npu/a2a3/TFree.hpp:20-24)".into());
    true
}

/// A popped slot part: its index, its bytes, the pipe's `slot_num` and `slot_size`, and the
/// pipe's state for the trace.
type Popped = (u64, Piece, u64, u64, String);

/// Pops this core's part (`dtype`, `rows x cols`) of the next ready slot of direction `dir`.
fn pop_piece(cx: &mut CoreCx<'_>, dir: usize, dtype: pto_ir::types::ElemType, rows: usize, cols: usize) -> Result<Popped, Stop> {
    let (id, _) = cx.handle(dir)?;
    let split = cx.split()?;
    let consumer = if dir == C2V { cx.subblock() } else { 0 };
    let link = cx.link("a cube/vector pipe")?.clone();
    let me = cx.core.index;
    let clock = cx.core.clock.clone();
    let (target, kind) = (cx.target.id, cx.core.actor.core);
    let (r, slots, slot_size, state) = link.with_block(|b| {
        let r = b.pipes[id].pop(consumer, dtype, rows, cols, split);
        let changed = matches!(r, Ok(Ok(_)));
        if let Ok(Ok((idx, _))) = &r {
            let on = slot_pipe(target, kind, SlotStep::Pop, b.pipes[id].gm_slots.is_some());
            b.acquire(me, on, Edge::Pushed(id, *idx), clock.as_ref());
        }
        ((r, b.pipes[id].spec.slot_num, b.pipes[id].spec.slot_size, b.pipes[id].describe()), changed)
    });
    let (idx, piece) = r?.map_err(Stop::Wait)?;
    Ok((idx, piece, slots, slot_size, state))
}

/// This core's part of slot `idx` of pipe `id` in the pipe's GM slot buffer, as a view of
/// shape `dims` (the GM-slot forms): the whole slot on the cube core or without a split, a
/// vector core's half under one. Returns the view and its row stride.
fn slot_view(cx: &mut CoreCx<'_>, id: usize, idx: u64, dtype: pto_ir::types::ElemType, dims: &[i64]) -> Result<(GmView, usize), Stop> {
    let (part, split) = match cx.core.actor.core {
        CoreKind::Aiv(i) => (usize::from(i), cx.split()?),
        _ => (0, Split::None),
    };
    let link = cx.link("a cube/vector pipe")?.clone();
    let (gm, slot_num, slot_size, parts, name) = link.with_block(|b| {
        let p = &b.pipes[id];
        ((p.gm_slots, p.spec.slot_num, p.spec.slot_size, p.parts(split), p.name().to_string()), false)
    });
    let g = gm.ok_or_else(|| {
        Stop::Fault(format!(
            "the GM-slot forms (`talloc`, a slot view) need a FIFO in GM, and the {name} has no GM slot buffer (`initialize_l2g2l_pipe` or `*_initialize_pipe` with a `gm_slot_buffer`)"
        ))
    })?;
    let size = dtype.size_bytes() as usize;
    let array = cx.gm.get(g).ok_or_else(|| Stop::Fault("the GM slot buffer is not a kernel argument".into()))?;
    if array.elem_size != size {
        return Err(Stop::Fault(format!(
            "the GM slot buffer `%{}` has {}-byte elements, the slot view {size}-byte ones",
            array.name, array.elem_size
        )));
    }
    let (rows, cols) = crate::tpipe::rows_cols(dims);
    let (wr, wc) = split.whole(rows, cols, parts);
    let slot_size = slot_size as usize;
    if wr * wc * size > slot_size || !slot_size.is_multiple_of(size) {
        return Err(Stop::Fault(format!("a {wr}x{wc} {dtype} slot does not fit the {name}'s slot_size of {slot_size} bytes")));
    }
    let (r0, c0) = split.origin(part, rows, cols);
    let mut view = GmView::new(g, dims, &crate::tpipe::slot_strides(dims, wc as i64))?;
    view.offset = ((idx % slot_num) as usize * (slot_size / size) + r0 * wc + c0) as i64;
    Ok((view, wc))
}

/// `talloc` on a pipe between cores: this core's part of the next slot it produces, once the
/// slot is free.
fn internal_alloc(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    cross_pipe(cx)?;
    let dir = own_direction(cx, false);
    let (id, _) = cx.handle(dir)?;
    let Some(&res) = cx.m.op(cx.op).results.first() else { return Err(Stop::Fault("talloc has no result".into())) };
    let (dtype, dims) = crate::tpipe::slot_shape(cx.m.value_type(res))?;
    let producer = producer_index(cx, dir);
    let link = cx.link("a cube/vector pipe")?.clone();
    let me = cx.core.index;
    let clock = cx.core.clock.clone();
    let (target, kind) = (cx.target.id, cx.core.actor.core);
    let (r, state) = link.with_block(|b| {
        let r = b.pipes[id].allocate(producer);
        if let Ok(Ok(idx)) = &r {
            // The producer writes the slot from now on: after every consumer freed it.
            let on = slot_pipe(target, kind, SlotStep::Alloc, b.pipes[id].gm_slots.is_some());
            b.acquire(me, on, Edge::Freed(id, idx % b.pipes[id].spec.slot_num), clock.as_ref());
        }
        ((r, b.pipes[id].describe()), false)
    });
    let idx = r?.map_err(Stop::Wait)?;
    let (view, _) = slot_view(cx, id, idx, dtype, &dims)?;
    cx.notes.push(format!("allocated slot {idx}; {state}"));
    cx.set_result(Val::View(view));
    Ok(())
}

/// `tpush(%slot, %pipe)` on a pipe between cores: commits the slot this core pushes next,
/// which must be the view `v`, with the contents the kernel wrote there.
fn push_slot(cx: &mut CoreCx<'_>, dir: usize, v: pto_ir::module::ValueId) -> Result<(), Stop> {
    let (id, _) = cx.handle(dir)?;
    let Val::View(given) = cx.vals[v.index()] else { return Err(Stop::Fault("the slot is not a GM view".into())) };
    let (dtype, dims) = crate::tpipe::slot_shape(cx.m.value_type(v))?;
    let producer = producer_index(cx, dir);
    let link = cx.link("a cube/vector pipe")?.clone();
    let next = link.with_block(|b| (b.pipes[id].next_push(producer), false)).unwrap_or(0);
    let (view, stride) = slot_view(cx, id, next, dtype, &dims)?;
    if (given.arg, given.offset) != (view.arg, view.offset) {
        return Err(Stop::Fault(format!(
            "commits a view that is not this core's part of slot {next}, the slot it pushes next (`talloc` hands slots out in order)"
        )));
    }
    let (rows, cols) = crate::tpipe::rows_cols(&dims);
    let size = dtype.size_bytes() as usize;
    let limit = cx.gm_limit;
    let array = &mut cx.gm[view.arg];
    let mut bytes = Vec::with_capacity(rows * cols * size);
    for r in 0..rows {
        for c in 0..cols {
            bytes.extend_from_slice(array.element(view.offset + (r * stride + c) as i64, limit)?);
        }
    }
    push_piece(cx, dir, Piece { dtype, rows, cols, bytes })
}

/// `tpop(%pipe) -> slot view` on a pipe between cores: this core's part of the next ready
/// slot, in the GM slot buffer.
fn pop_slot(cx: &mut CoreCx<'_>, dir: usize, res: pto_ir::module::ValueId) -> Result<(), Stop> {
    let (id, _) = cx.handle(dir)?;
    let (dtype, dims) = crate::tpipe::slot_shape(cx.m.value_type(res))?;
    let (rows, cols) = crate::tpipe::rows_cols(&dims);
    let (idx, piece, _, _, state) = pop_piece(cx, dir, dtype, rows, cols)?;
    let (view, stride) = slot_view(cx, id, idx, dtype, &dims)?;
    let size = dtype.size_bytes() as usize;
    let limit = cx.gm_limit;
    let array = &mut cx.gm[view.arg];
    for (k, chunk) in piece.bytes.chunks(size).enumerate() {
        array.element(view.offset + ((k / cols) * stride + k % cols) as i64, limit)?.copy_from_slice(chunk);
    }
    array.written = true;
    cx.notes.push(format!("popped slot {idx} in GM; {state}"));
    cx.vals[res.index()] = Val::View(view);
    Ok(())
}

fn free(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    if tile_free_is_a_no_op(cx) {
        return Ok(());
    }
    release_slot(cx, direction(cx.m.op(cx.op).opcode))
}

/// Frees this core's oldest popped slot of direction `dir`.
fn release_slot(cx: &mut CoreCx<'_>, dir: usize) -> Result<(), Stop> {
    let (id, _) = cx.handle(dir)?;
    let consumer = if dir == C2V { cx.subblock() } else { 0 };
    let link = cx.link("a cube/vector pipe")?.clone();
    let me = cx.core.index;
    let clock = cx.core.clock.clone();
    let (target, kind) = (cx.target.id, cx.core.actor.core);
    let (r, state) = link.with_block(|b| {
        let r = b.pipes[id].free(consumer);
        let ok = r.is_ok();
        if let Ok(idx) = &r {
            let on = slot_pipe(target, kind, SlotStep::Free, b.pipes[id].gm_slots.is_some());
            b.release(me, on, Edge::Freed(id, idx % b.pipes[id].spec.slot_num), clock.as_ref());
        }
        ((r, b.pipes[id].describe()), ok)
    });
    let idx = r?;
    cx.notes.push(format!("freed slot {idx}; {state}"));
    Ok(())
}

/// Records a GM access of bytes `bytes` of array `arg` by `op` on pipe `pipe` of this core in
/// the machine's happens-before graph (a core whose pipes are not checked, a comm
/// instruction); a hazard with another core becomes a finding.
#[allow(clippy::too_many_arguments)]
pub fn gm_access(
    m: &Module,
    core: &mut CoreState,
    op: OpId,
    pipe: crate::sync::model::Pipe,
    arg: usize,
    bytes: &[(u64, u64)],
    kind: crate::sync::graph::Kind,
    gm_name: &str,
) {
    let Some(link) = core.link.clone() else { return };
    let me = core.index;
    let Some(h) = link.with_block(|b| (b.hb.access(me, pipe, arg, bytes, kind, op), false)) else { return };
    let d = cross_hazard(m, core.actor, core.space, &h, gm_name);
    if !core.findings.iter().any(|f| f.span == d.span && f.class == d.class) {
        core.findings.push(d);
    }
}

/// The diagnostic of GM hazard `h` between core `me` (the later access's, in a scheduler whose
/// actors are `space`) and another core, in array `gm_name`.
pub fn cross_hazard(m: &Module, me: ActorId, space: Space, h: &crate::sync::graph::CrossHazard, gm_name: &str) -> pto_ir::Diagnostic {
    use crate::sync::model::HazardKind;
    let (me_name, other, peer, edges) = match space {
        // On the rank machine each rank is one whole core, and signals order them.
        Space::Ranks { blocks, per_block } => {
            let (b, per) = (blocks.max(1) as usize, per_block.max(1) as usize);
            let kind = if per == 1 { CoreKind::Whole } else { super::block_cores(true)[h.core % per] };
            let other = ActorId { rank: (h.core / per / b) as u32, block: (h.core / per % b) as u32, core: kind };
            let name = |a| crate::comm::actor_name(a, blocks);
            let edges = if blocks > 1 { "signal or syncall" } else { "signal" };
            (name(me), name(other), if blocks > 1 { "rank or block" } else { "rank" }, edges)
        }
        Space::Blocks => (format!("block {}", me.block), format!("block {}", h.core), "block", "syncall"),
        Space::Cores => (me.name(), format!("b{}.{}", me.block, core_name(h.core)), "core", "pipe slot, FFTS flag or syncall"),
    };
    let (class, what) = match h.kind {
        HazardKind::Raw => (pto_ir::DiagClass::HazardRaw, format!("reads bytes another {peer} wrote")),
        HazardKind::War => (pto_ir::DiagClass::HazardWar, format!("overwrites bytes another {peer} read")),
        HazardKind::Waw => (pto_ir::DiagClass::HazardWaw, format!("overwrites bytes another {peer} wrote")),
    };
    let op = h.later.op;
    let d = pto_ir::Diagnostic::error(
        class,
        m.op_span(op),
        format!("{me_name} {what} in `%{gm_name}` ([{}, {})), with no {edges} ordering them", h.bytes.0, h.bytes.1),
    )
    .with_op(m.op(op).opcode.full_name())
    .with_label(m.op_span(h.op), format!("{other} accessed them here"));
    // An FFTS set orders only what its own pipe did: say which pipe the earlier access ran on.
    match h.pipe {
        Some(p) if space == Space::Cores => d.with_note(format!(
            "{other}'s access ran on {}: an FFTS `sync.set <P>` orders only what pipe P did and what flags ordered before it",
            p.name()
        )),
        // A signal orders only what the scalar pipe did (`tnotify` is a scalar store).
        Some(p) if matches!(space, Space::Ranks { .. }) && p != crate::sync::model::Pipe::S => d.with_note(format!(
            "{other}'s access ran on {}: a `tnotify` is a scalar store and orders only what PIPE_S did and what flags ordered before it (add `pto.set_flag[<{p}>, <PIPE_S>, <EVENT_IDn>]` and its wait before the notify)",
            p.name(),
            p = p.name()
        )),
        _ => d,
    }
}

/// The direction this core produces into (cube: C2V, vector: V2C) or, `consume`, takes from.
fn own_direction(cx: &CoreCx<'_>, consume: bool) -> usize {
    let cube = cx.core.actor.core == CoreKind::Aic;
    if cube != consume { C2V } else { V2C }
}

/// Whether the op's `!pto.pipe` operand is an `initialize_*_pipe` result (else a kernel's pipe
/// argument: [`Stop::Local`]).
fn cross_pipe(cx: &CoreCx<'_>) -> Result<(), Stop> {
    let data = cx.m.op(cx.op);
    let pipe = data.operands.iter().find(|v| matches!(cx.m.value_type(**v), pto_ir::types::Type::Pipe));
    match pipe.map(|v| cx.vals[v.index()]) {
        Some(Val::Pipe(CROSS_PIPE)) => Ok(()),
        _ => Err(Stop::Local),
    }
}

/// The GM view form of the internal ops (a `talloc`'d slot) is recognised by a view operand or
/// result.
fn is_view(cx: &CoreCx<'_>, v: pto_ir::module::ValueId) -> bool {
    cx.m.value_type(v).is_gm()
}

fn internal_push(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    cross_pipe(cx)?;
    let Some(&v) = cx.m.op(cx.op).operands.first() else { return Err(Stop::Fault("no tile to push".into())) };
    if is_view(cx, v) {
        return push_slot(cx, own_direction(cx, false), v);
    }
    push_tile(cx, own_direction(cx, false), v)
}

fn internal_pop(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    cross_pipe(cx)?;
    let data = cx.m.op(cx.op);
    if let Some(&r) = data.results.first().filter(|&&r| is_view(cx, r)) {
        return pop_slot(cx, own_direction(cx, true), r);
    }
    let Some(&tile) = data.operands.first() else { return Err(Stop::Fault("no tile to pop into".into())) };
    pop_tile(cx, own_direction(cx, true), tile, usize::MAX)
}

fn internal_free(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    cross_pipe(cx)?;
    let slot_view = cx.m.op(cx.op).operands.iter().any(|&v| is_view(cx, v));
    if !slot_view && tile_free_is_a_no_op(cx) {
        return Ok(());
    }
    release_slot(cx, own_direction(cx, true))
}

/// A `sync.set`/`sync.wait`'s pipe, flag id and FFTS mode ([`pto_ir::ops::cross_core::ffts_args`]),
/// the id checked against the target's range: A2A3's FFTS message keeps 4 bits of it
/// (`npu/a2a3/TSync.hpp:17-22`: id 18 would signal flag 2), A5's ids address two AIVs (0..32).
fn ffts_args(cx: &CoreCx<'_>) -> Result<(String, i64, Option<i64>), Stop> {
    let args = pto_ir::ops::cross_core::ffts_args(cx.m.op(cx.op));
    let dynamic = args.id_value.and_then(|v| if let Val::Int(i) = cx.vals[v.index()] { Some(i) } else { None });
    let id = dynamic.or(args.id).ok_or_else(|| Stop::Fault("no flag id".into()))?;
    let ids = if cx.target.id == TargetId::A2A3 { 16 } else { 32 };
    if !(0..ids).contains(&id) {
        let why = if cx.target.id == TargetId::A2A3 {
            format!(
                "FFTS flag id {id} is outside 0..16: A2A3's FFTS message keeps 4 bits of the id (npu/a2a3/TSync.hpp:17-22), so it would signal flag {}",
                id & 15
            )
        } else {
            format!("FFTS flag id {id} is outside 0..32")
        };
        return Err(Stop::Fault(why));
    }
    Ok((args.pipe.unwrap_or_default(), id, args.mode))
}

fn set_targets(cx: &CoreCx<'_>, pipe: &str, id: i64) -> Vec<(usize, i64)> {
    let first = cx.core.group.0;
    block_targets(cx, pipe, id).into_iter().map(|(k, i)| (first + k, i)).collect()
}

/// [`set_targets`] within the block: core 0 is the AIC, `1 + i` AIV `i`.
fn block_targets(cx: &CoreCx<'_>, pipe: &str, id: i64) -> Vec<(usize, i64)> {
    let aivs = super::AIVS_PER_BLOCK;
    match (cx.target.id, cx.core.actor.core) {
        (TargetId::A2A3, CoreKind::Aic) => (1..=aivs).map(|k| (k, id)).collect(),
        (TargetId::A2A3, _) => vec![(0, id)],
        (TargetId::A5, CoreKind::Aic) => {
            let mut ids = vec![id];
            if pipe == "PIPE_FIX" {
                ids.push(id + 16);
            }
            ids.into_iter().filter(|&i| (i / 16) < aivs as i64).map(|i| (1 + (i / 16) as usize, i % 16)).collect()
        }
        (TargetId::A5, _) => vec![(0, id + 16 * cx.subblock() as i64)],
    }
}

/// The most sets an A2A3 FFTS flag counter holds before a wait takes one: its counter is 4 bits
/// wide (pto-isa `docs/isa/.../set-cross-core.md:64`; Ascend C allows 15 outstanding sets).
const FFTS_COUNTER_MAX: u64 = 15;

fn ffts_set(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    let Some(link) = cx.core.link.clone() else { return Ok(()) };
    let (pipe, id, mode) = ffts_args(cx)?;
    if cx.target.id == TargetId::A2A3 && matches!(mode, Some(0 | 1)) {
        return ffts_barrier_set(cx, &link, &pipe, id, mode.unwrap_or(2));
    }
    let targets = set_targets(cx, &pipe, id);
    // The set is an instruction of its pipe: it releases what that pipe did.
    let on = crate::sync::model::Pipe::from_name(&pipe);
    let me = cx.core.index;
    let clock = cx.core.clock.clone();
    // A2A3 mode 2: the AIC's flag counts each AIV's sets apart (its wait needs one of each).
    let from = if cx.target.id == TargetId::A2A3 && cx.core.actor.core != CoreKind::Aic { 1 + cx.subblock() } else { 0 };
    let a2a3 = cx.target.id == TargetId::A2A3;
    let overflow = link.with_block(|b| {
        let mut overflow = None;
        for &(core, id) in &targets {
            let count = b.flags.entry((core, id, from)).or_insert(0);
            *count += 1;
            if a2a3 && *count > FFTS_COUNTER_MAX {
                overflow = Some((core, id));
            }
            b.flag_set_at.insert((core, id, from), cx.op);
            b.release(me, on, Edge::Flag(core, id), clock.as_ref());
        }
        (overflow, true)
    });
    let (block, first) = (cx.core.actor.block, cx.core.group.0);
    if let Some((core, id)) = overflow {
        return Err(Stop::Fault(format!(
            "FFTS flag {id} of b{block}.{} would hold {} sets no wait has taken: its counter is 4 bits wide and holds {FFTS_COUNTER_MAX} (A2A3)",
            core_name(core - first),
            FFTS_COUNTER_MAX + 1
        )));
    }
    let names: Vec<String> = targets.iter().map(|&(k, i)| format!("b{block}.{} flag {i}", core_name(k - first))).collect();
    cx.notes.push(format!("FFTS set {}", names.join(", ")));
    Ok(())
}

/// An A2A3 set in FFTS mode 0 (every core of the caller's kind in the launch: pto-isa's
/// `SYNCALL_IMPL<AIVOnly>`, `npu/a2a3/SyncAll.hpp:24-35`) or mode 1 (the two AIVs of the
/// caller's block): a barrier. Each participant's flag `id` counts one once every participant
/// has set it; every set releases into each participant's flag, so a wait that takes the count
/// is ordered after every set of the round.
fn ffts_barrier_set(cx: &mut CoreCx<'_>, link: &Link, pipe: &str, id: i64, mode: i64) -> Result<(), Stop> {
    let me = cx.core.index;
    let kind = cx.core.actor.core;
    let (rank, first) = (cx.core.actor.rank, cx.core.group.0);
    if mode == 1 && kind == CoreKind::Aic {
        return Err(Stop::Fault("FFTS mode 1 is a barrier of the two AIVs of a block: the AIC takes no part in it".into()));
    }
    let on = crate::sync::model::Pipe::from_name(pipe);
    let clock = cx.core.clock.clone();
    let block = cx.core.actor.block;
    let op = cx.op;
    let completed = link.with_block(|b| {
        let same_kind = |k: &CoreKind| matches!((k, kind), (CoreKind::Aic, CoreKind::Aic) | (CoreKind::Aiv(_), CoreKind::Aiv(_)));
        let participants: Vec<usize> = match mode {
            0 => b.barrier.cores.iter().enumerate().filter(|(_, (r, k))| *r == rank && same_kind(k)).map(|(i, _)| i).collect(),
            _ => (first + 1..=first + super::AIVS_PER_BLOCK).collect(),
        };
        let group = if mode == 0 { rank } else { block };
        for &p in &participants {
            b.release(me, on, Edge::Flag(p, id), clock.as_ref());
        }
        let round = b.ffts_rounds.entry((mode, group, id)).or_insert_with(|| participants.iter().map(|&p| (p, 0)).collect());
        if let Some(entry) = round.iter_mut().find(|(p, _)| *p == me) {
            entry.1 += 1;
        }
        let done = round.iter().all(|&(_, n)| n > 0);
        if done {
            round.iter_mut().for_each(|(_, n)| *n -= 1);
            for &p in &participants {
                *b.flags.entry((p, id, 0)).or_insert(0) += 1;
                b.flag_set_at.insert((p, id, 0), op);
            }
        }
        (done, true)
    });
    let scope = if mode == 0 { "every core of its kind" } else { "the block's two AIVs" };
    cx.notes.push(format!("FFTS mode {mode} set of flag {id} ({scope}){}", if completed { ": the round is complete" } else { "" }));
    Ok(())
}

/// The name of core index `k` of a mix block.
fn core_name(k: usize) -> String {
    super::block_cores(true).get(k).map_or_else(|| format!("core{k}"), |c| c.name())
}

fn ffts_wait(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    let Some(link) = cx.core.link.clone() else { return Ok(()) };
    let (pipe, id, _) = ffts_args(cx)?;
    let me = cx.core.index;
    let clock = cx.core.clock.clone();
    // A5's `wait_intra_block(pipe, id)` holds its pipe; A2A3's `wait_flag_dev` the whole core.
    let on = crate::sync::model::Pipe::from_name(&pipe).filter(|_| cx.target.id == TargetId::A5);
    // A2A3 mode 2 (`ffts_cross_core_sync`, CV_CORES_SYNC): the AIC's wait needs a set from
    // each AIV — two sets from one AIV do not pass it.
    let senders: Vec<usize> =
        if cx.target.id == TargetId::A2A3 && cx.core.actor.core == CoreKind::Aic { (1..=super::AIVS_PER_BLOCK).collect() } else { vec![0] };
    let (got, round) = link.with_block(|b| {
        // A mode-0/1 round this core takes part in that is still open: who has not set the flag.
        let round = b.ffts_rounds.iter().find_map(|(&(mode, _, rid), parts)| {
            (rid == id && parts.iter().any(|&(p, _)| p == me) && parts.iter().any(|&(_, n)| n > 0))
                .then(|| (mode, parts.iter().filter(|&&(_, n)| n == 0).map(|&(p, _)| p).collect::<Vec<_>>()))
        });
        let (got, changed) = take_flag(b, me, id, &senders, on, clock.as_ref());
        ((got, round), changed)
    });
    if got {
        cx.notes.push(format!("FFTS flag {id} consumed"));
        return Ok(());
    }
    if let Some((mode, missing)) = round {
        let first = cx.core.group.0;
        let names: Vec<String> = missing.iter().map(|&p| core_name(p.saturating_sub(first))).collect();
        return Err(Stop::Wait(Wait(format!("FFTS flag {id} (a mode-{mode} barrier round that {} has not set)", names.join(" and ")))));
    }
    let from = if senders.len() > 1 {
        "each AIV"
    } else if cx.core.actor.core == CoreKind::Aic {
        "an AIV"
    } else {
        "the AIC"
    };
    Err(Stop::Wait(Wait(format!("FFTS flag {id} (needs a set from {from})"))))
}

/// Takes one count of flag `id` for core `me` if it has one (from each of `senders`, or from a
/// completed mode-0/1 round); `(taken, changed)`.
fn take_flag(
    b: &mut super::xpipe::BlockState,
    me: usize,
    id: i64,
    senders: &[usize],
    on: Option<crate::sync::model::Pipe>,
    clock: Option<&super::clock::SharedClock>,
) -> (bool, bool) {
    // A completed mode-0 round (every AIC of the launch set the flag) counts at slot 0.
    if senders.len() > 1
        && let Some(c) = b.flags.get_mut(&(me, id, 0)).filter(|c| **c > 0)
    {
        *c -= 1;
        b.acquire(me, on, Edge::Flag(me, id), clock);
        return (true, true);
    }
    if !senders.iter().all(|&s| b.flags.get(&(me, id, s)).is_some_and(|&c| c > 0)) {
        return (false, false);
    }
    for &s in senders {
        if let Some(c) = b.flags.get_mut(&(me, id, s)) {
            *c -= 1;
        }
    }
    b.acquire(me, on, Edge::Flag(me, id), clock);
    (true, true)
}

/// `syncall`: a barrier of the cores under this scheduler that its `core_type` names (AIV-only
/// by default; a core that runs everything always counts), or of `used_cores` of them. Every
/// arrival releases the core's GM accesses into the round; leaving acquires them all. In Soft
/// mode the arrival also adds 1 to the workspace's first i32, as pto-isa's counter does.
///
/// Both sides are the whole core, as pto-isa implements it: `SYNCALL_IMPL` starts with
/// `pipe_barrier(PIPE_ALL)` before its FFTS set (`npu/a2a3/SyncAll.hpp:71`, `npu/a5/SyncAll.hpp`
/// likewise), so every pipe's earlier work is released, and waits with `wait_flag_dev` (A2A3,
/// `SyncAll.hpp:75, 87-93`) or `wait_flag_dev(PIPE_S, ...)` / `wait_intra_block(PIPE_S, ...)`
/// (A5), which stop the scalar issuer; the soft forms poll with `pipe_barrier(PIPE_ALL)` around
/// every round.
fn syncall(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    let Some(link) = cx.core.link.clone() else { return Ok(()) };
    let data = cx.m.op(cx.op);
    let mut used = None;
    let mut workspace = None;
    for &v in &data.operands {
        match cx.vals[v.index()] {
            Val::View(view) => workspace = Some(view),
            Val::Int(n) => used = Some(n),
            _ => {}
        }
    }
    let kind = data.attrs.iter().find(|(n, _)| n == "core_type").and_then(|(_, a)| a.enum_value("sync_core_type"));
    let counts = |k: &CoreKind| match kind {
        Some("AICOnly") => !matches!(k, CoreKind::Aiv(_)),
        Some("Mix") => true,
        _ => !matches!(k, CoreKind::Aic),
    };
    let me = cx.core.index;
    let clock = cx.core.clock.clone();
    let rank = cx.core.actor.rank;
    let pending = cx.core.barrier;
    let (state, arrived_now) = link.with_block(|b| {
        let n = match used {
            Some(u) if u > 0 => u as usize,
            _ => b.barrier.cores.iter().filter(|(r, k)| *r == rank && counts(k)).count(),
        };
        let (arrived, round) = *b.barrier.rounds.entry(rank).or_default();
        let now = round;
        let state = match pending {
            _ if n <= 1 => Ok(()),
            None => {
                b.release(me, None, Edge::Barrier(rank, now), clock.as_ref());
                let complete = arrived + 1 >= n;
                let entry = b.barrier.rounds.entry(rank).or_default();
                *entry = if complete { (0, round + 1) } else { (arrived + 1, round) };
                if complete {
                    b.acquire(me, None, Edge::Barrier(rank, now), clock.as_ref());
                    Ok(())
                } else {
                    Err((now, arrived + 1, n))
                }
            }
            Some(r) if now > r => {
                b.acquire(me, None, Edge::Barrier(rank, r), clock.as_ref());
                Ok(())
            }
            Some(r) => Err((r, arrived, n)),
        };
        let arrived_now = pending.is_none() && n > 1;
        ((state, arrived_now), arrived_now)
    });
    if arrived_now && let Some(ws) = workspace {
        let limit = cx.gm_limit;
        let a = cx.gm.get_mut(ws.arg).ok_or_else(|| Stop::Fault("the syncall workspace is not a GM argument".into()))?;
        if a.dtype != pto_ir::types::ElemType::I32 {
            return Err(Stop::Fault(format!("the syncall workspace `%{}` holds {}, not i32", a.name, a.dtype)));
        }
        let e = a.element(ws.offset, limit)?;
        let count = i32::from_le_bytes([e[0], e[1], e[2], e[3]]).wrapping_add(1);
        e.copy_from_slice(&count.to_le_bytes());
        a.written = true;
    }
    match state {
        Ok(()) => {
            cx.core.barrier = None;
            cx.notes.push("syncall: every core arrived".into());
            Ok(())
        }
        Err((round, arrived, n)) => {
            cx.core.barrier = Some(round);
            Err(Stop::Wait(Wait(format!("syncall round {round}: {arrived} of {n} cores arrived"))))
        }
    }
}

fn set_ffts(cx: &mut CoreCx<'_>) -> Result<(), Stop> {
    cx.notes.push("FFTS base address set (the model needs none)".into());
    Ok(())
}
