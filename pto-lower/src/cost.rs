//! # The cycle model
//!
//! How many cycles one tile op keeps its pipe busy, per instruction family and target, from
//! what the hardware does (docs/performance-model.md lists every constant with its source):
//!
//! - vector work is a sequence of intrinsics, each `slope` cycles per repeat, the sequence
//!   paying its first intrinsic's startup (`head`) and its last one's drain (`tail`): ops with
//!   a vector program ([`crate::vector::lower`]) are timed instruction by instruction, the
//!   others by the intrinsic their op-table `vop` column names, over their valid elements;
//! - transfers are bytes over the path's bandwidth plus the path's latency per DMA call
//!   ([`Path`]);
//! - cube work is `6 + fractals × (2 for f32 operands, else 1)`, a fractal being one
//!   16 × (32 bytes) × 16 block of the M × K × N product;
//! - scalar ops and sync ops take [`SCALAR_CYCLES`] / [`SYNC_CYCLES`];
//! - on A5, the vector ops pto-isa's A5 formula model has a curve for take it
//!   ([`crate::cost_a5`]); the others are timed as above.
//!
//! [`Work`] is what an op does, [`Work::cycles`] its time; [`work_of`] chooses the work from
//! the op's family (the op table's `family` and `vop` columns), never from a list of ops.

use crate::vector::ir::{Mask, Op, Program};
use pto_ir::ops::{Family, Opcode, Pipe};
use pto_ir::types::{ElemType, Loc};

/// One A2A3 vector intrinsic's timing: `head + slope × repeats + tail` when issued alone.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Intrinsic {
    /// Mnemonic (`vadd`).
    pub name: &'static str,
    /// Startup cycles, paid when the vector queue is empty.
    pub head: f64,
    /// Cycles per repeat (one 256-byte iteration).
    pub slope: f64,
    /// Drain cycles after the last repeat.
    pub tail: f64,
}

const fn vi(name: &'static str, head: f64, slope: f64, tail: f64) -> Intrinsic {
    Intrinsic { name, head, slope, tail }
}

/// The vector intrinsics (A2A3). Sources: pto-isa 3186c381
/// `include/pto/costmodel/a2a3/cce_costmodel/cce_costmodel_vector_compute.hpp` (head, slope,
/// tail of each `EstimateLinearCycles` call), except where docs/performance-model.md shows a
/// fit on `cycles-train.tsv` (`vexp`, `vadds`, `vconv`).
pub const INTRINSICS: &[Intrinsic] = &[
    vi("vabs", 13.0, 1.0, 16.0),
    vi("vadd", 10.0, 2.0, 14.0),
    vi("vsub", 10.0, 2.0, 14.0),
    vi("vmul", 10.0, 2.0, 15.0),
    vi("vdiv", 11.0, 4.0, 19.0),
    vi("vmax", 10.0, 2.0, 14.0),
    vi("vmin", 10.0, 2.0, 14.0),
    vi("vand", 8.0, 2.0, 12.0),
    vi("vor", 8.0, 2.0, 12.0),
    vi("vnot", 8.0, 2.0, 12.0),
    vi("vadds", 13.0, 1.0, 12.0),
    vi("vmuls", 11.0, 1.0, 15.0),
    vi("vmaxs", 10.0, 1.0, 13.0),
    vi("vmins", 14.0, 1.0, 16.0),
    vi("vshl", 6.0, 2.0, 0.0),
    vi("vshr", 6.0, 2.0, 0.0),
    vi("vshr.round", 6.0, 2.0, 0.0),
    vi("vector_dup", 11.0, 1.0, 13.0),
    vi("vcadd", 14.0, 7.0, 32.0),
    vi("vcmax", 6.0, 2.0, 0.0),
    vi("vcmin", 6.0, 2.0, 0.0),
    vi("vcgadd", 14.0, 1.0, 24.0),
    vi("vcgmax", 14.0, 1.0, 17.0),
    vi("vcgmin", 14.0, 1.0, 17.0),
    vi("vsel", 13.0, 2.0, 14.0),
    vi("vexp", 13.0, 2.03125, 16.0),
    vi("vln", 13.0, 2.0, 20.0),
    vi("vsqrt", 14.0, 2.0, 25.0),
    vi("vrsqrt", 10.0, 1.0, 14.0),
    vi("vrelu", 10.0, 1.0, 13.0),
    vi("vconv", 11.0, 2.0, 14.0),
    vi("vgather", 24.0, 2.0, 0.0),
    vi("vnchwconv", 6.0, 2.0, 0.0),
];

/// Cycles an intrinsic whose name has no entry is charged per repeat, with no head or tail
/// (pto-isa's `EstimateLinearCycles` defaults: head 6, slope 2).
pub const DEFAULT_INTRINSIC: Intrinsic = vi("?", 6.0, 2.0, 0.0);

/// pto-isa's count-mode dispatch floor: a binary ALU intrinsic under a counter mask pays it
/// once (`kCountModeFloorCycles`, cce_costmodel_core.hpp).
pub const COUNT_MODE_FLOOR: f64 = 16.0;
/// The scalar unit: cycles per element of a scalar-pipe loop and per scalar op (an assumption,
/// see docs/performance-model.md).
pub const SCALAR_CYCLES: f64 = 1.0;
/// A scalar read of the Unified Buffer feeding the vector pipe (`GetValue` then a vector
/// intrinsic on the value): fit on the `trowexpand` rows, see docs/performance-model.md.
pub const UB_SCALAR_READ: f64 = 13.2;
/// A sync op (`set_flag`, `wait_flag`, `pipe_barrier`) when its edge already holds
/// (pto-isa's `EstimateConstCycles()` for every sync intrinsic).
pub const SYNC_CYCLES: f64 = 1.0;
/// Cube: startup cycles of one `mad` (pto-isa `formula_backend_compute.hpp`, `kHeadCycles`).
pub const CUBE_HEAD: f64 = 6.0;

/// The intrinsic named `name`.
pub fn intrinsic(name: &str) -> &'static Intrinsic {
    INTRINSICS.iter().find(|i| i.name == name).unwrap_or(&DEFAULT_INTRINSIC)
}

/// A data path of the DMA engines.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Path {
    /// MTE2, GM to the Unified Buffer.
    GmToUb,
    /// MTE2, GM to L1.
    GmToL1,
    /// MTE3, UB to GM.
    UbToGm,
    /// MTE3, L1 to GM.
    L1ToGm,
    /// UB to UB (`copy_ubuf_to_ubuf`, vector pipe).
    UbToUb,
    /// FIX, L0C to GM.
    L0cToGm,
    /// FIX, L0C to L1.
    L0cToL1,
    /// MTE1, L1 to L0A.
    L1ToL0a,
    /// MTE1, L1 to L0B.
    L1ToL0b,
}

impl Path {
    /// The path from a `src` buffer to a `dst` buffer (`None`: GM), if a DMA path joins them.
    pub fn between(src: Option<Loc>, dst: Option<Loc>) -> Option<Path> {
        use Loc::*;
        Some(match (src, dst) {
            (None, Some(Vec)) => Path::GmToUb,
            (None, Some(_)) => Path::GmToL1,
            (Some(Vec), None) => Path::UbToGm,
            (Some(Acc), None) => Path::L0cToGm,
            (Some(_), None) => Path::L1ToGm,
            (Some(Vec), Some(Vec)) => Path::UbToUb,
            (Some(Acc), Some(_)) => Path::L0cToL1,
            (Some(Mat), Some(Right)) => Path::L1ToL0b,
            (Some(Mat), Some(_)) => Path::L1ToL0a,
            _ => return None,
        })
    }

    /// Bytes per cycle and cycles of latency per DMA call (docs/performance-model.md).
    pub fn constants(self) -> (f64, f64) {
        // pto-isa's arch_config.hpp bandwidths are GiB/s at 1.85 GHz: bytes/cycle = bw × 2^30 / 1.85e9.
        const GIB_PER_S: f64 = 1_073_741_824.0 / 1.85e9;
        match self {
            // Fit on the tload rows: (776 - 392) / (65536 - 16256) cycles per byte.
            Path::GmToUb => (128.0, 265.0),
            // Fit on the one TLoadConv row (1 KiB in 28 cycles) at the GM→UB bandwidth.
            Path::GmToL1 => (128.0, 20.0),
            Path::UbToGm => (188.46 * GIB_PER_S, 265.0),
            Path::L1ToGm => (32.0 * GIB_PER_S, 265.0),
            // Fit on the tmov rows: 32 KiB in 1029 cycles, one 32-byte block per cycle.
            Path::UbToUb => (32.0, 5.0),
            Path::L0cToGm => (70.0 * GIB_PER_S, 20.0),
            Path::L0cToL1 => (128.0 * GIB_PER_S, 20.0),
            Path::L1ToL0a => (441.0 * GIB_PER_S, 20.0),
            Path::L1ToL0b => (220.5 * GIB_PER_S, 20.0),
        }
    }
}

/// What an op does, as far as time goes.
#[derive(Clone, Debug, PartialEq)]
pub enum Work {
    /// A vector program.
    Vector(Program),
    /// The intrinsics of an op-table `vop` entry over `repeats` 256-byte iterations each:
    /// `vector_dup+vdiv` is two intrinsics back to back; `row:vector_dup` a loop over the
    /// `rows` valid rows, each reading one scalar from the Unified Buffer first.
    Repeats {
        /// The `vop` entry.
        vop: &'static str,
        /// Iterations of each intrinsic.
        repeats: u64,
        /// Valid rows.
        rows: u64,
    },
    /// DMA: `bytes` over `path` in `calls` separate calls.
    Transfer {
        /// The path.
        path: Path,
        /// Bytes moved.
        bytes: u64,
        /// DMA calls (each pays the path's latency).
        calls: u64,
    },
    /// Cube fractals.
    Cube {
        /// 16 × 32 B × 16 blocks.
        fractals: u64,
        /// Cycles per fractal (2 for f32 operands, else 1).
        per_fractal: f64,
    },
    /// Vector work timed by a fitted curve (A5's formula model, [`crate::cost_a5`]): its
    /// cycles and repeats.
    Fitted {
        /// Modelled cycles.
        cycles: f64,
        /// Repeats of the vector function.
        repeats: u64,
    },
    /// A scalar-unit op.
    Scalar,
    /// A sync op.
    Sync,
    /// Nothing the machine spends time on (structure, views, allocation).
    Free,
}

impl Work {
    /// Modelled cycles.
    pub fn cycles(&self) -> f64 {
        match self {
            Work::Vector(p) => program_cycles(p),
            Work::Repeats { vop, repeats, rows } => {
                let (per_row, seq) = match vop.strip_prefix("row:") {
                    Some(seq) => (UB_SCALAR_READ, seq),
                    None => (0.0, *vop),
                };
                let seq: Vec<_> = seq.split('+').map(intrinsic).collect();
                let slope: f64 = seq.iter().map(|i| i.slope).sum();
                let (first, last) = (seq[0], seq[seq.len() - 1]);
                first.head + slope * *repeats as f64 + last.tail + per_row * *rows as f64
            }
            Work::Transfer { path, bytes, calls } => {
                let (bw, lat) = path.constants();
                *bytes as f64 / bw + lat * (*calls).max(1) as f64
            }
            Work::Cube { fractals, per_fractal } => CUBE_HEAD + per_fractal * *fractals as f64,
            Work::Fitted { cycles, .. } => *cycles,
            Work::Scalar => SCALAR_CYCLES,
            Work::Sync => SYNC_CYCLES,
            Work::Free => 0.0,
        }
    }

    /// Cycles the op holds its pipe: a DMA pipe takes its next transfer once this one's bytes
    /// have gone out (bytes over bandwidth), while the path's latency is still in flight, so
    /// back-to-back transfers overlap their latencies; every other op holds its pipe for all of
    /// its [`Self::cycles`]. (The single-instruction counts [`Self::cycles`] is fitted on are
    /// unchanged; the #1569 workload, hand-synchronised, needs it: ptoas's report measures
    /// 18,831 cycles for 64 iterations of two 4 KiB loads and a store, about one latency in all
    /// per iteration.)
    pub fn occupancy(&self) -> f64 {
        match self {
            Work::Transfer { path, bytes, .. } => (*bytes as f64 / path.constants().0).max(1.0),
            _ => self.cycles(),
        }
    }

    /// Bytes a transfer moves (a vector program's `copy_ubuf_to_ubuf` bursts too); 0 for
    /// other work.
    pub fn bytes(&self) -> u64 {
        match self {
            Work::Transfer { bytes, .. } => *bytes,
            Work::Vector(p) => p
                .instrs
                .iter()
                .map(|i| match i.op {
                    Op::Copy { n_burst, len_burst, .. } => n_burst as u64 * len_burst as u64 * crate::vector::ir::BLOCK_BYTES,
                    _ => 0,
                })
                .sum(),
            _ => 0,
        }
    }

    /// Iterations: a vector program's over all its vector instructions, an op-table `vop`'s
    /// repeats, a matmul's fractals; 0 for other work.
    pub fn repeats(&self) -> u64 {
        match self {
            Work::Vector(p) => p.instrs.iter().filter(|i| i.is_vector()).map(|i| i.iterations()).sum(),
            Work::Repeats { repeats, .. } => *repeats,
            Work::Cube { fractals, .. } => *fractals,
            Work::Fitted { repeats, .. } => *repeats,
            _ => 0,
        }
    }
}

/// The data lines of one of pto-lower's formula tables (`data/*.csv`: a `#` line naming its
/// source, a header starting `op,`), each split at its commas.
pub(crate) fn table_rows(text: &'static str) -> impl Iterator<Item = Vec<&'static str>> {
    text.lines().filter(|l| !l.starts_with('#') && !l.starts_with("op,") && !l.trim().is_empty()).map(|l| l.split(',').collect())
}

/// Cycles of a vector program: the intrinsics queue back to back on the vector pipe, so only
/// the first pays its startup and only the last its drain; a scalar-pipe loop costs
/// [`SCALAR_CYCLES`] per element.
pub fn program_cycles(p: &Program) -> f64 {
    let vector: Vec<_> = p.instrs.iter().filter(|i| i.is_vector()).collect();
    let mut cycles = 0.0;
    let mut counter = false;
    for i in &vector {
        if let Op::Copy { n_burst, len_burst, .. } = i.op {
            let bytes = n_burst as u64 * len_burst as u64 * crate::vector::ir::BLOCK_BYTES;
            cycles += Work::Transfer { path: Path::UbToUb, bytes, calls: 1 }.cycles();
            continue;
        }
        let t = intrinsic(&i.mnemonic());
        cycles += t.slope * i.iterations() as f64;
        counter |= matches!(i.mask, Mask::Counter(_)) && matches!(i.op, Op::Bin(_));
    }
    let alu: Vec<_> = vector.iter().filter(|i| !matches!(i.op, Op::Copy { .. })).collect();
    if let (Some(first), Some(last)) = (alu.first(), alu.last()) {
        cycles += intrinsic(&first.mnemonic()).head + intrinsic(&last.mnemonic()).tail;
    }
    if counter {
        cycles += COUNT_MODE_FLOOR;
    }
    for i in &p.instrs {
        if let Op::ScalarReduce { n, .. } = i.op {
            cycles += SCALAR_CYCLES * n as f64;
        }
    }
    cycles
}

/// A tile as the cycle model sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Element type.
    pub dtype: ElemType,
    /// Valid rows.
    pub rows: u64,
    /// Valid columns.
    pub cols: u64,
}

impl Shape {
    /// Valid bytes.
    pub fn bytes(&self) -> u64 {
        self.rows * self.cols * self.dtype.size_bytes() as u64
    }
}

/// How a synchronous comm op moves its data (pto-isa `include/pto/comm/a2a3/`): in chunks of its
/// UB staging tile, each loaded from GM on MTE2 and stored to GM on MTE3 once loaded. `tput` /
/// `tget` load and store each chunk once (TPut.hpp:45-55, TGet.hpp:45-55: `TLOAD`, flag,
/// `TSTORE`, flag); `tbroadcast` loads a chunk once and stores it to every member
/// (TBroadCast.hpp:34-47); `tgather` / `tscatter` copy each member's block chunk by chunk
/// (TGather.hpp:53-59, TScatter.hpp:53-59); `treduce` loads the chunk of every member and stores
/// the reduction once (TReduce.hpp:69-86; the adds on the vector pipe are not timed).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Staged {
    /// Bytes of one chunk (the staging tile's valid bytes; the whole buffer without a tile).
    pub chunk_bytes: u64,
    /// Chunks.
    pub chunks: u64,
    /// Loads of a chunk (GM → UB).
    pub loads: u64,
    /// Stores of a chunk (UB → GM).
    pub stores: u64,
    /// With a second staging tile (`pong`), a chunk loads while the previous one stores.
    pub double_buffered: bool,
}

impl Staged {
    /// The plan of comm op `opcode` moving `bytes` (one member's buffer) among `members` ranks
    /// through a staging tile of `staging` bytes (`None`: the whole buffer at once); `None` for
    /// an op that is not a synchronous comm copy.
    pub fn plan(opcode: Opcode, bytes: u64, members: u64, staging: Option<u64>, double_buffered: bool) -> Option<Staged> {
        let members = members.max(1);
        let (per_member, loads, stores) = match opcode {
            Opcode::CommPut | Opcode::CommGet => (false, 1, 1),
            Opcode::CommBroadcast => (false, 1, members),
            Opcode::CommGather | Opcode::CommScatter => (true, 1, 1),
            Opcode::CommReduce => (false, members, 1),
            _ => return None,
        };
        let chunk_bytes = staging.filter(|&s| s > 0).map_or(bytes, |s| s.min(bytes)).max(1);
        let chunks = bytes.div_ceil(chunk_bytes).saturating_mul(if per_member { members } else { 1 });
        Some(Staged { chunk_bytes, chunks, loads, stores, double_buffered })
    }

    /// Steps a timeline schedules at most per copy: beyond it, each step moves several chunks
    /// (as many DMA calls), so a copy of many small chunks stays a bounded number of events.
    pub const MAX_STEPS: u64 = 64;

    /// The chunks each step moves, step by step (one each up to [`Self::MAX_STEPS`] chunks).
    pub fn steps(&self) -> impl Iterator<Item = u64> {
        let per = self.chunks.div_ceil(Self::MAX_STEPS).max(1);
        let chunks = self.chunks;
        (0..chunks.div_ceil(per)).map(move |i| per.min(chunks - i * per))
    }

    /// The load of `chunks` chunks.
    pub fn load(&self, chunks: u64) -> Work {
        Work::Transfer { path: Path::GmToUb, bytes: self.chunk_bytes.saturating_mul(chunks), calls: chunks }
    }

    /// The store of `chunks` chunks.
    pub fn store(&self, chunks: u64) -> Work {
        Work::Transfer { path: Path::UbToGm, bytes: self.chunk_bytes.saturating_mul(chunks), calls: chunks }
    }
}

/// What the model needs to know of an op without a vector program.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OpShape {
    /// The op.
    pub opcode: Opcode,
    /// Its main source (the destination tile for a load).
    pub src: Shape,
    /// Its destination's element type.
    pub dst_dtype: ElemType,
    /// The transfer path of a memory or move op.
    pub path: Option<Path>,
    /// DMA calls of a transfer (a GM view of more than two dimensions is one call per outer index).
    pub calls: u64,
    /// M, K, N of a matmul.
    pub mkn: Option<(u64, u64, u64)>,
}

/// Repeats of one intrinsic over `s`'s valid region as one contiguous line; `by_row`: row
/// by row, `ceil(cols × es / 256)` iterations a row.
fn repeats(s: &Shape, es: u64, by_row: bool) -> u64 {
    match by_row {
        true => s.rows * (s.cols * es).div_ceil(256),
        false => (s.rows * s.cols * es).div_ceil(256),
    }
}

/// The work of an op without a vector program, chosen by its family and the op table's `vop`.
pub fn work_of(op: &OpShape) -> Work {
    let spec = op.opcode.spec();
    if !spec.vop.is_empty() {
        let es = op.src.dtype.size_bytes().max(op.dst_dtype.size_bytes()) as u64;
        let by_row = spec.vop.starts_with("row:");
        return Work::Repeats { vop: spec.vop, repeats: repeats(&op.src, es, by_row), rows: op.src.rows };
    }
    match spec.family {
        Family::Matmul => {
            let (m, k, n) = op.mkn.unwrap_or((op.src.rows, op.src.cols, op.src.cols));
            let kb = (32 / op.src.dtype.size_bytes().max(1)) as u64;
            let fractals = m.div_ceil(16) * k.div_ceil(kb) * n.div_ceil(16);
            let per_fractal = if op.src.dtype.size_bytes() == 4 { 2.0 } else { 1.0 };
            Work::Cube { fractals, per_fractal }
        }
        // The signal ops (`tnotify`, `twait`, `ttest`) are scalar loads and stores of GM (pto-isa
        // comm/a2a3/TNotify.hpp `TNOTIFY_IMPL`, TWait.hpp `TWAIT_IMPL`).
        Family::Comm if spec.pipe == Pipe::S => Work::Scalar,
        Family::Memory | Family::Move | Family::AsyncDma | Family::Comm => match op.path {
            Some(path) => Work::Transfer { path, bytes: op.src.bytes(), calls: op.calls },
            None => Work::Free,
        },
        // A tile pipe's push and pop move the tile between the cores (`sync::pipes::slot_tile`:
        // on A2A3 through the GM slot buffer, FIX or MTE3 out, MTE2 in; on A5 the push writes
        // the consumer's buffer); freeing or allocating a slot is a handshake; the other
        // settings are scalar register writes, the pipes' declarations no work.
        _ if crate::sync::pipes::is_slot_op(op.opcode) => match op.path {
            Some(path) => Work::Transfer { path, bytes: op.src.bytes(), calls: op.calls },
            None => Work::Free,
        },
        Family::AssignConfig | Family::Pipe => match op.opcode {
            Opcode::TAlloc | Opcode::TFree | Opcode::TFreeFromAic | Opcode::TFreeFromAiv => Work::Sync,
            _ if spec.family == Family::AssignConfig => Work::Scalar,
            _ => Work::Free,
        },
        Family::Sync => Work::Sync,
        Family::Arith | Family::ElementAccess | Family::Query => Work::Scalar,
        Family::View | Family::Alloc | Family::Section | Family::ControlFlow | Family::Func | Family::Builtin => Work::Free,
        _ => {
            let es = op.src.dtype.size_bytes().max(op.dst_dtype.size_bytes()) as u64;
            Work::Repeats { vop: DEFAULT_INTRINSIC.name, repeats: repeats(&op.src, es, false), rows: op.src.rows }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(dtype: ElemType, rows: u64, cols: u64) -> Shape {
        Shape { dtype, rows, cols }
    }

    fn op(opcode: Opcode, src: Shape) -> OpShape {
        OpShape { opcode, src, dst_dtype: src.dtype, path: None, calls: 1, mkn: None }
    }

    #[test]
    fn the_signal_ops_are_scalar_work_and_the_other_comm_ops_need_a_path() {
        for sig in [Opcode::CommNotify, Opcode::CommWait, Opcode::CommTest] {
            assert_eq!(work_of(&op(sig, shape(ElemType::I32, 1, 1))), Work::Scalar, "{sig:?}");
        }
        // The copies are timed chunk by chunk ([`Staged`]), not as one op's work.
        assert_eq!(work_of(&op(Opcode::CommGet, shape(ElemType::F32, 4, 16))), Work::Free);
    }

    #[test]
    fn a_comm_copy_moves_its_buffer_in_staging_tile_chunks() {
        let put = Staged::plan(Opcode::CommPut, 4096, 1, Some(1024), false).unwrap();
        assert_eq!((put.chunk_bytes, put.chunks, put.loads, put.stores), (1024, 4, 1, 1));
        let whole = Staged::plan(Opcode::CommGet, 4096, 1, None, false).unwrap();
        assert_eq!((whole.chunk_bytes, whole.chunks), (4096, 1));
        let bcast = Staged::plan(Opcode::CommBroadcast, 4096, 4, Some(4096), false).unwrap();
        assert_eq!((bcast.chunks, bcast.loads, bcast.stores), (1, 1, 4));
        let gather = Staged::plan(Opcode::CommGather, 4096, 4, Some(2048), true).unwrap();
        assert_eq!((gather.chunks, gather.loads, gather.stores, gather.double_buffered), (8, 1, 1, true));
        let reduce = Staged::plan(Opcode::CommReduce, 100, 3, Some(4096), false).unwrap();
        assert_eq!((reduce.chunk_bytes, reduce.chunks, reduce.loads, reduce.stores), (100, 1, 3, 1));
        assert_eq!(Staged::plan(Opcode::CommNotify, 4, 1, None, false), None);
        assert_eq!(put.load(1), Work::Transfer { path: Path::GmToUb, bytes: 1024, calls: 1 });
        assert_eq!(put.steps().collect::<Vec<_>>(), [1, 1, 1, 1]);
        // 1,000 chunks: 62 steps of 16 and one of 8, each step as many DMA calls.
        let many = Staged::plan(Opcode::CommPut, 32 * 1000, 1, Some(32), false).unwrap();
        let steps: Vec<u64> = many.steps().collect();
        assert_eq!((steps.len(), steps[0], steps[62], steps.iter().sum::<u64>()), (63, 16, 8, 1000));
        assert_eq!(many.store(16), Work::Transfer { path: Path::UbToGm, bytes: 512, calls: 16 });
        // A huge view through a tiny tile saturates instead of overflowing.
        let huge = Staged::plan(Opcode::CommGather, u64::MAX, 8, Some(1), false).unwrap();
        assert_eq!(huge.chunks, u64::MAX);
        assert!(huge.steps().count() as u64 <= Staged::MAX_STEPS);
    }

    #[test]
    fn a_tile_pipe_moves_its_tile_and_the_settings_are_scalar() {
        let tile = shape(ElemType::F32, 16, 16);
        let push = OpShape { path: Some(Path::L0cToGm), ..op(Opcode::TPush, tile) };
        assert_eq!(work_of(&push), Work::Transfer { path: Path::L0cToGm, bytes: 1024, calls: 1 });
        let pop = OpShape { path: Some(Path::GmToUb), ..op(Opcode::TPop, tile) };
        assert_eq!(work_of(&pop), Work::Transfer { path: Path::GmToUb, bytes: 1024, calls: 1 });
        let pop = OpShape { path: Some(Path::GmToUb), ..op(Opcode::TPopFromAic, shape(ElemType::F32, 8, 16)) };
        assert_eq!(work_of(&pop), Work::Transfer { path: Path::GmToUb, bytes: 512, calls: 1 });
        assert_eq!(work_of(&op(Opcode::TFree, tile)), Work::Sync);
        assert_eq!(work_of(&op(Opcode::TFreeFromAic, tile)), Work::Sync);
        assert_eq!(work_of(&op(Opcode::TAssign, tile)), Work::Scalar);
        assert_eq!(work_of(&op(Opcode::AicInitializePipe, tile)), Work::Free);
    }

    #[test]
    fn unary_ops_run_their_vop_over_the_valid_bytes() {
        // vexp: 64 repeats of f32, 32 of f16.
        let f32 = work_of(&op(Opcode::TExp, shape(ElemType::F32, 64, 64)));
        let f16 = work_of(&op(Opcode::TExp, shape(ElemType::F16, 64, 64)));
        assert_eq!(f32, Work::Repeats { vop: "vexp", repeats: 64, rows: 64 });
        assert_eq!(f32.cycles().round(), 159.0);
        assert_eq!(f16.cycles().round(), 94.0);
    }

    #[test]
    fn row_loops_do_not_depend_on_the_dtype_below_one_repeat_a_row() {
        let a = work_of(&op(Opcode::TRowExpand, shape(ElemType::F32, 64, 64))).cycles();
        let b = work_of(&op(Opcode::TRowExpand, shape(ElemType::F16, 64, 64))).cycles();
        assert_eq!(a, b);
        let wide = work_of(&op(Opcode::TRowExpand, shape(ElemType::F32, 64, 128))).cycles();
        assert_eq!(wide - a, 64.0, "one more vector_dup repeat a row");
    }

    #[test]
    fn transfers_are_bytes_over_bandwidth_plus_latency_per_call() {
        let mut load = op(Opcode::TLoad, shape(ElemType::F32, 128, 128));
        load.path = Some(Path::GmToUb);
        assert_eq!(work_of(&load).cycles(), 65536.0 / 128.0 + 265.0);
        load.calls = 4;
        assert_eq!(work_of(&load).cycles(), 65536.0 / 128.0 + 4.0 * 265.0);
        load.path = None;
        assert_eq!(work_of(&load), Work::Free);
    }

    #[test]
    fn a_transfer_holds_its_pipe_for_its_bytes_only() {
        let t = Work::Transfer { path: Path::GmToUb, bytes: 4096, calls: 1 };
        let (bw, lat) = Path::GmToUb.constants();
        assert_eq!(t.occupancy(), 4096.0 / bw);
        assert_eq!(t.cycles(), 4096.0 / bw + lat);
        assert_eq!(Work::Scalar.occupancy(), Work::Scalar.cycles());
    }

    #[test]
    fn cube_work_counts_fractals() {
        let mut mm = op(Opcode::TMatmul, shape(ElemType::F32, 120, 112));
        mm.mkn = Some((120, 110, 50));
        assert_eq!(work_of(&mm), Work::Cube { fractals: 8 * 14 * 4, per_fractal: 2.0 });
        assert_eq!(work_of(&mm).cycles(), 902.0);
    }

    #[test]
    fn a_program_pays_one_head_and_one_tail() {
        use crate::vector::ir::{BinKind, Instr, Operand, Region};
        let r = Region { name: "t", start: 0, len: 1 << 16 };
        let add = |repeat| Instr {
            op: Op::Bin(BinKind::Add),
            dtype: ElemType::F32,
            repeat,
            mask: Mask::FULL,
            operands: vec![Operand::at(r, 0); 3],
        };
        let one = program_cycles(&Program { instrs: vec![add(8)] });
        let two = program_cycles(&Program { instrs: vec![add(8), add(8)] });
        assert_eq!(one, 10.0 + 16.0 + 14.0);
        assert_eq!(two - one, 16.0, "the second instruction adds only its repeats");
    }
}
