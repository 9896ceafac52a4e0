//! Cube and vector cores: a block of one AIC and its AIVs, the cross-core TPUSH/TPOP pipes and
//! FFTS flags between them, and many blocks (docs/cores.md).
//!
//! * [`topology`] — what the module says statically: whether it is a mix kernel, which
//!   functions run on which core kind, the addresses of `reserve_buffer` /
//!   `import_reserved_buffer` and `memref.alloc`, and which pipe-init ops pair up.
//! * [`sched`] — the scheduler: each core of a block runs on its own thread, but only the core
//!   holding the turn executes; a core runs until it blocks (a `tpop` on an empty pipe, a
//!   `sync.wait` on an unset flag), then the next runnable one takes over. All cores blocked
//!   is `SYNC_DEADLOCK`.
//! * [`xpipe`] — the state the cores of a block share besides GM: cross-core FIFOs with their
//!   slots, split modes and consumer buffers, and FFTS flag counters.
//! * [`ops`] — the semantics of the pipe and inter-core sync ops, as a table the interpreter
//!   looks up (no per-instruction arm in the interpreter).
//!   Their releases and acquires of pipe slots, FFTS flags and `syncall` rounds are the edges of
//!   the machine's happens-before graph ([`crate::sync::graph`], kept in [`xpipe::BlockState`]);
//!   unordered conflicting GM accesses of two cores are hazards.
//! * [`machine`] — running a kernel on N blocks (in parallel with rayon, each block on its own
//!   copy of GM, merged in block order).
//!
//! Actor identity is `(rank, block, core)` ([`ActorId`]) so that a device dimension can be added
//! without changing the scheduler.

pub mod clock;
pub mod machine;
pub mod ops;
pub mod sched;
pub mod split;
pub mod topology;
pub mod xpipe;

pub use machine::{Launch, MachineRun, Schedule};
pub use topology::Topology;

/// Vector cores (AIVs) per cube core (AIC) in one block: 1:2 on A2A3 and A5 (pto-isa
/// docs/isa/TPUSH.md: `TILE_UP_DOWN` / `TILE_LEFT_RIGHT` map the two vector subblocks AIV0 and
/// AIV1 to halves of a tile; `get_subblockid()` is 0 or 1).
pub const AIVS_PER_BLOCK: usize = 2;

/// The kind of a core.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CoreKind {
    /// The cube core (L1, L0A/B/C, MTE1, M, FIX).
    Aic,
    /// A vector core with its subblock index (UB, V).
    Aiv(u8),
    /// The one core of a kernel that is not a mix kernel: it runs everything, with every
    /// buffer (the single-core model of `pto run` before cores existed).
    Whole,
}

impl CoreKind {
    /// `aic`, `aiv0`, `aiv1`, `core`.
    pub fn name(self) -> String {
        match self {
            CoreKind::Aic => "aic".into(),
            CoreKind::Aiv(i) => format!("aiv{i}"),
            CoreKind::Whole => "core".into(),
        }
    }

    /// Whether code of side `side` runs on this core.
    pub fn runs(self, side: Side) -> bool {
        matches!((self, side), (CoreKind::Whole, _) | (CoreKind::Aic, Side::Cube) | (CoreKind::Aiv(_), Side::Vector))
    }

    /// `get_subblock_idx` / `get_subblock_num` on this core.
    pub fn subblock(self) -> (i64, i64) {
        match self {
            CoreKind::Aiv(i) => (i64::from(i), AIVS_PER_BLOCK as i64),
            _ => (0, 1),
        }
    }
}

/// Which side of a mix kernel code belongs to.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// `kernel_kind<cube>`, `func_core_type<AIC>`, `section.cube`.
    Cube,
    /// `kernel_kind<vector>`, `func_core_type<AIV>`, `section.vector`.
    Vector,
}

/// One simulated core: `(rank, block, core)`. Ranks are always 0 today (one device).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ActorId {
    /// The device.
    pub rank: u32,
    /// The block (`get_block_idx`).
    pub block: u32,
    /// The core within the block.
    pub core: CoreKind,
}

impl ActorId {
    /// `b0.aic`, `b1.aiv0` (with `r2.` in front once ranks exist and the rank is not 0).
    pub fn name(&self) -> String {
        let rank = if self.rank == 0 { String::new() } else { format!("r{}.", self.rank) };
        format!("{rank}b{}.{}", self.block, self.core.name())
    }
}

/// The cores of one block of a kernel: AIC then AIV0, AIV1 for a mix kernel, else the one
/// core that runs everything.
pub fn block_cores(mix: bool) -> Vec<CoreKind> {
    if mix { std::iter::once(CoreKind::Aic).chain((0..AIVS_PER_BLOCK as u8).map(CoreKind::Aiv)).collect() } else { vec![CoreKind::Whole] }
}
