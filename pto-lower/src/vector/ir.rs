//! The vector-level IR: A2A3 vector instructions over the Unified Buffer.
//!
//! One [`Instr`] runs `repeat` iterations. Each iteration reads 8 datablocks of 32 bytes per
//! source operand and writes 8 datablocks of the destination. Every [`Operand`] has its own
//! block stride (distance between consecutive datablocks of one iteration, in blocks) and
//! repeat stride (distance between the starts of consecutive iterations, in blocks), and names
//! the tile [`Region`] it belongs to: the executor traps on any byte outside that region, which
//! is how a too-small scratch tile shows itself.
//!
//! The [`Mask`] is either *normal* (a 128-bit lane mask applied to every iteration; bit `i` =
//! lane `i`) or *counter* mode (exactly `N` elements across as many iterations as needed; the
//! repeat argument is 0 and the hardware derives it).

use pto_ir::types::ElemType;
use std::fmt;

/// Bytes of one iteration (8 datablocks).
pub const REPEAT_BYTES: u64 = 256;
/// Bytes of one datablock.
pub const BLOCK_BYTES: u64 = 32;
/// Largest repeat count of one instruction.
pub const REPEAT_MAX: u32 = 255;

/// A scalar operand of an instruction.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Scalar {
    /// An integer (or an address, for `vector_dup` of a mask address).
    Int(i64),
    /// A float.
    Float(f64),
    /// Not known statically (listings of programs whose scalars are computed at run time).
    Unknown,
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Int(i) => write!(f, "{i}"),
            Scalar::Float(x) => write!(f, "{x:?}"),
            Scalar::Unknown => write!(f, "?"),
        }
    }
}

/// The bytes of one tile an operand may touch.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The tile operand's slot (`src0`, `dst`, `tmp`...).
    pub name: &'static str,
    /// First byte (UB address).
    pub start: u64,
    /// Bytes.
    pub len: u64,
}

impl Region {
    /// True when `[addr, addr + len)` lies inside the region.
    pub fn contains(&self, addr: u64, len: u64) -> bool {
        addr >= self.start && addr.checked_add(len).is_some_and(|end| end <= self.start.saturating_add(self.len))
    }
}

/// One memory operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Operand {
    /// The tile it belongs to.
    pub region: Region,
    /// Byte address of its first datablock.
    pub addr: u64,
    /// Block stride (in 32-byte blocks).
    pub blk: u32,
    /// Repeat stride (in 32-byte blocks; in elements for the destination of `vcadd`/`vcmax`).
    pub rep: u32,
}

impl Operand {
    /// An operand at `offset` bytes into `region`, with contiguous strides (1, 8).
    pub fn at(region: Region, offset: u64) -> Operand {
        Operand { region, addr: region.start + offset, blk: 1, rep: 8 }
    }

    /// The same operand with other strides.
    pub fn strides(self, blk: u32, rep: u32) -> Operand {
        Operand { blk, rep, ..self }
    }
}

/// Which lanes take part.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mask {
    /// Normal mode: `hi:lo` 128-bit lane mask for every iteration.
    Normal {
        /// Lanes 64..128.
        hi: u64,
        /// Lanes 0..64.
        lo: u64,
    },
    /// Counter mode: exactly this many elements in total.
    Counter(u64),
}

impl Mask {
    /// Every lane.
    pub const FULL: Mask = Mask::Normal { hi: u64::MAX, lo: u64::MAX };

    /// The first `n` lanes (`SetContinuousMask`).
    pub fn first(n: u32) -> Mask {
        let lo = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        let hi = if n >= 128 {
            u64::MAX
        } else if n > 64 {
            (1u64 << (n - 64)) - 1
        } else {
            0
        };
        Mask::Normal { hi, lo }
    }
}

impl fmt::Display for Mask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Mask::Counter(n) => write!(f, "count({n})"),
            Mask::Normal { hi: u64::MAX, lo: u64::MAX } => write!(f, "full"),
            Mask::Normal { hi: 0, lo: u64::MAX } => write!(f, "full"),
            Mask::Normal { hi, lo } => {
                let n = lo.count_ones() + hi.count_ones();
                if Mask::first(n) == *self { write!(f, "first({n})") } else { write!(f, "bits({hi:#x}:{lo:#x})") }
            }
        }
    }
}

/// Binary vector operations (`dst = s0 op s1`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BinKind {
    /// `vadd`.
    Add,
    /// `vsub`.
    Sub,
    /// `vmul`.
    Mul,
    /// `vdiv`.
    Div,
    /// `vmax`.
    Max,
    /// `vmin`.
    Min,
    /// `vand`.
    And,
    /// `vor`.
    Or,
}

/// Vector-scalar operations (`dst = src op scalar`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ScalarKind {
    /// `vadds`.
    Add,
    /// `vmuls`.
    Mul,
    /// `vmaxs`.
    Max,
    /// `vmins`.
    Min,
    /// `vshl`.
    Shl,
    /// `vshr` (arithmetic for signed, logical for unsigned element types).
    Shr,
    /// `vshr` with rounding: adds the last bit shifted out (signed types).
    ShrRound,
}

/// Reductions within one iteration.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RedKind {
    /// `vcadd` / `vcgadd`.
    Sum,
    /// `vcmax` / `vcgmax`.
    Max,
    /// `vcmin` / `vcgmin`.
    Min,
}

/// Comparison modes of `vcmp` / `vcmpvs`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CmpKind {
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl CmpKind {
    /// From the `#pto<cmp ...>` spelling.
    pub fn parse(s: &str) -> Option<CmpKind> {
        Some(match s.to_ascii_uppercase().as_str() {
            "EQ" => CmpKind::Eq,
            "NE" => CmpKind::Ne,
            "LT" => CmpKind::Lt,
            "LE" => CmpKind::Le,
            "GT" => CmpKind::Gt,
            "GE" => CmpKind::Ge,
            _ => return None,
        })
    }

    /// `a cmp b` (IEEE comparisons for floats: every mode but NE is false with a NaN).
    pub fn test<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            CmpKind::Eq => a == b,
            CmpKind::Ne => a != b,
            CmpKind::Lt => a < b,
            CmpKind::Le => a <= b,
            CmpKind::Gt => a > b,
            CmpKind::Ge => a >= b,
        }
    }

    fn name(self) -> &'static str {
        match self {
            CmpKind::Eq => "eq",
            CmpKind::Ne => "ne",
            CmpKind::Lt => "lt",
            CmpKind::Le => "le",
            CmpKind::Gt => "gt",
            CmpKind::Ge => "ge",
        }
    }
}

/// What an instruction does. Operand order is fixed per kind (documented on each variant).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Op {
    /// `[dst, s0, s1]`: `dst = s0 op s1`.
    Bin(BinKind),
    /// `[dst, src]`: `dst = src op scalar`.
    Scalar(ScalarKind, Scalar),
    /// `[dst]`: `vector_dup`, every active lane = scalar.
    Dup(Scalar),
    /// `[dst, src]`: `vnot`.
    Not,
    /// `[dst, src]`: one result per iteration (`vcadd`/`vcmax`/`vcmin`, destination repeat
    /// stride in elements) or, `group`, one per datablock (`vcgadd`/`vcgmax`, destination
    /// repeat stride in blocks, 8 results per iteration).
    Reduce {
        /// Which reduction.
        kind: RedKind,
        /// Per datablock instead of per iteration.
        group: bool,
    },
    /// `[s0, s1]`: `vcmp_xx` — one bit per active lane of iteration 0 into the CMPMASK register.
    Cmp(CmpKind),
    /// `[dst, src]`: `vcmpvs_xx` — one bit per lane (LSB first) written to UB, `epr / 8`
    /// bytes per iteration, packed.
    CmpScalar(CmpKind, Scalar),
    /// `[dst, s0, s1]`: `vsel` — `dst = bit ? s0 : s1`. Mode 0 takes the bits from the CMPMASK
    /// register; mode 2 reads them from UB at the address held in CMPMASK, `epr / 8` bytes per
    /// iteration.
    Select {
        /// 0 (register) or 2 (tensor).
        mode: u8,
    },
    /// `[src]`: `set_cmpmask` — loads the 128-bit CMPMASK register from 16 bytes of UB.
    SetCmpMask,
    /// `[dst, src]`: `vconv` from the instruction's dtype to `to`. Iterations cover
    /// `256 / max(sizeof src, sizeof dst)` lanes.
    Convert {
        /// Destination element type.
        to: ElemType,
    },
    /// `[dst, offsets, src]`: `vgather` — `dst[l] = *(src + offsets[l])` with u32 byte offsets
    /// (counter mode; destination and offsets contiguous).
    Gather,
    /// `[dst, src]`: `copy_ubuf_to_ubuf` — `n_burst` bursts of `len_burst` blocks, gaps (in
    /// blocks) after each burst on either side. No mask, no repeat.
    Copy {
        /// Bursts.
        n_burst: u32,
        /// Blocks per burst.
        len_burst: u32,
        /// Blocks skipped after each source burst.
        src_gap: u32,
        /// Blocks skipped after each destination burst.
        dst_gap: u32,
    },
    /// `[dst, src]`: a scalar-pipe loop, `dst[0] = src[0] op ... op src[n-1]` (wrapping).
    ScalarReduce {
        /// Which reduction.
        kind: RedKind,
        /// Elements.
        n: u32,
    },
}

/// One vector (or scalar-pipe) instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    /// What it does.
    pub op: Op,
    /// Element type of the lanes (the source type for `Convert`).
    pub dtype: ElemType,
    /// Iterations (0 in counter mode).
    pub repeat: u32,
    /// Lane mask.
    pub mask: Mask,
    /// Memory operands, in the order documented on [`Op`].
    pub operands: Vec<Operand>,
}

impl Instr {
    /// Lanes of one iteration.
    pub fn lanes(&self) -> u64 {
        let es = match self.op {
            Op::Convert { to } => self.dtype.size_bytes().max(to.size_bytes()),
            Op::Gather => 4,
            _ => self.dtype.size_bytes(),
        };
        REPEAT_BYTES / es.max(1) as u64
    }

    /// Iterations this instruction really runs (counter mode: derived from the count).
    pub fn iterations(&self) -> u64 {
        match (self.op, self.mask) {
            (Op::Copy { n_burst, .. }, _) => n_burst as u64,
            (Op::ScalarReduce { .. }, _) => 0,
            (_, Mask::Counter(n)) => n.div_ceil(self.lanes()),
            _ => self.repeat as u64,
        }
    }

    /// True for instructions of the vector pipe (not the scalar loop).
    pub fn is_vector(&self) -> bool {
        !matches!(self.op, Op::ScalarReduce { .. })
    }

    /// The intrinsic's name (`vadd`, `vcgmax`, `copy_ubuf_to_ubuf`): what the cycle model keys on.
    pub fn mnemonic(&self) -> String {
        let cmp = |k: CmpKind| k.name();
        match self.op {
            Op::Bin(k) => format!("v{}", format!("{k:?}").to_lowercase()),
            Op::Scalar(ScalarKind::Shl, _) => "vshl".into(),
            Op::Scalar(ScalarKind::Shr, _) => "vshr".into(),
            Op::Scalar(ScalarKind::ShrRound, _) => "vshr.round".into(),
            Op::Scalar(k, _) => format!("v{}s", format!("{k:?}").to_lowercase()),
            Op::Dup(_) => "vector_dup".into(),
            Op::Not => "vnot".into(),
            Op::Reduce { kind, group } => {
                let k = match kind {
                    RedKind::Sum => "add",
                    RedKind::Max => "max",
                    RedKind::Min => "min",
                };
                format!("vc{}{k}", if group { "g" } else { "" })
            }
            Op::Cmp(k) => format!("vcmp_{}", cmp(k)),
            Op::CmpScalar(k, _) => format!("vcmpvs_{}", cmp(k)),
            Op::Select { mode } => format!("vsel.mode{mode}"),
            Op::SetCmpMask => "set_cmpmask".into(),
            Op::Convert { to } => format!("vconv.{}", to.name()),
            Op::Gather => "vgather".into(),
            Op::Copy { .. } => "copy_ubuf_to_ubuf".into(),
            Op::ScalarReduce { kind, .. } => format!("scalar.{}", format!("{kind:?}").to_lowercase()),
        }
    }
}

impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.mnemonic(), self.dtype.name())?;
        for (i, o) in self.operands.iter().enumerate() {
            let sep = if i == 0 { " " } else { ", " };
            write!(f, "{sep}{}+{}", o.region.name, o.addr - o.region.start)?;
            if !matches!(self.op, Op::Copy { .. } | Op::ScalarReduce { .. } | Op::SetCmpMask) {
                write!(f, " [{},{}]", o.blk, o.rep)?;
            }
        }
        match self.op {
            Op::Scalar(_, s) | Op::Dup(s) | Op::CmpScalar(_, s) => write!(f, ", scalar {s}")?,
            _ => {}
        }
        match self.op {
            Op::Copy { n_burst, len_burst, src_gap, dst_gap } => {
                write!(f, "  nburst={n_burst} len={len_burst} srcgap={src_gap} dstgap={dst_gap}")
            }
            Op::ScalarReduce { n, .. } => write!(f, "  n={n}"),
            Op::SetCmpMask => Ok(()),
            _ => write!(f, "  repeat={} mask={}", self.repeat, self.mask),
        }
    }
}

/// The vector program of one tile op.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Program {
    /// Instructions in order.
    pub instrs: Vec<Instr>,
}

/// First-order cost of a program.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Vector instructions.
    pub instructions: u64,
    /// Iterations over all vector instructions.
    pub repeats: u64,
    /// Scalar-pipe loops (reductions finished on the scalar unit).
    pub scalar_ops: u64,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.instructions += o.instructions;
        self.repeats += o.repeats;
        self.scalar_ops += o.scalar_ops;
    }
}

impl Program {
    /// Instruction and iteration counts.
    pub fn stats(&self) -> Stats {
        let mut s = Stats::default();
        for i in &self.instrs {
            if i.is_vector() {
                s.instructions += 1;
                s.repeats += i.iterations();
            } else {
                s.scalar_ops += 1;
            }
        }
        s
    }

    /// Checks that every byte each operand touches lies inside `ub` bytes of the Vec buffer and
    /// inside the operand's tile: the static counterpart of the executor's traps.
    pub fn verify_addresses(&self, ub: u64) -> Result<(), String> {
        for (n, i) in self.instrs.iter().enumerate() {
            for (k, o) in i.operands.iter().enumerate() {
                let Some((lo, hi)) = i.footprint(k) else { continue };
                if hi > ub {
                    return Err(format!("instruction {n} `{i}`: `{}` reaches byte {hi} of the {ub}-byte Vec buffer", o.region.name));
                }
                if !o.region.contains(lo, hi - lo) {
                    let r = o.region;
                    return Err(format!(
                        "instruction {n} `{i}`: `{}` touches bytes [{lo}, {hi}), outside its tile [{}, {})",
                        r.name,
                        r.start,
                        r.start + r.len
                    ));
                }
            }
        }
        Ok(())
    }

    /// Checks every instruction: repeat in 1..=255 (0 only in counter mode), a non-empty mask
    /// within the lanes of the element type, operand counts. Addresses are checked against
    /// their regions when the program runs (the executor knows every byte it touches).
    pub fn verify(&self) -> Result<(), String> {
        for (n, i) in self.instrs.iter().enumerate() {
            check_instr(i).map_err(|e| format!("instruction {n} `{i}`: {e}"))?;
        }
        Ok(())
    }
}

impl Instr {
    /// Element size of operand `n` (the destination of `vconv` has the target type; offsets of
    /// `vgather` are u32).
    fn operand_size(&self, n: usize) -> u64 {
        match (self.op, n) {
            (Op::Convert { to }, 0) => to.size_bytes() as u64,
            (Op::Gather, 1) => 4,
            _ => self.dtype.size_bytes().max(1) as u64,
        }
    }

    /// True when lane `l` of iteration `k` takes part.
    fn lane_active(&self, k: u64, l: u64) -> bool {
        match self.mask {
            Mask::Normal { hi, lo } => {
                if l < 64 {
                    (lo >> l) & 1 == 1
                } else {
                    (hi >> (l - 64)) & 1 == 1
                }
            }
            Mask::Counter(n) => k * self.lanes() + l < n,
        }
    }

    /// The bytes operand `n` touches, as the smallest enclosing range `[lo, hi)`; `None` when
    /// it touches nothing or its addresses depend on data (the source of `vgather`, the mask
    /// bytes `vsel` mode 2 reads through CMPMASK).
    pub fn footprint(&self, n: usize) -> Option<(u64, u64)> {
        let o = self.operands.get(n)?;
        let es = self.operand_size(n);
        let lanes = self.lanes();
        match self.op {
            Op::Copy { n_burst, len_burst, src_gap, dst_gap } => {
                let gap = if n == 0 { dst_gap } else { src_gap } as u64;
                let last = (n_burst as u64).checked_sub(1)?;
                return Some((o.addr, o.addr + (last * (len_burst as u64 + gap) + len_burst as u64) * 32));
            }
            Op::ScalarReduce { n: count, .. } => return Some((o.addr, o.addr + if n == 0 { es } else { count as u64 * es })),
            Op::SetCmpMask => return Some((o.addr, o.addr + 16)),
            Op::Gather if n == 2 => return None,
            Op::Gather | Op::CmpScalar(..) if n == 0 => {
                let total = match self.mask {
                    Mask::Counter(c) => c,
                    _ => self.repeat as u64 * lanes,
                };
                let bytes = if matches!(self.op, Op::Gather) { total * es } else { total.div_ceil(8) };
                return Some((o.addr, o.addr + bytes));
            }
            Op::Gather => {
                let total = match self.mask {
                    Mask::Counter(c) => c,
                    _ => self.repeat as u64 * lanes,
                };
                return Some((o.addr, o.addr + total * 4));
            }
            _ => {}
        }
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        for k in 0..self.iterations() {
            if let (Op::Reduce { group, .. }, 0) = (self.op, n) {
                let at = if group { o.addr + 32 * k * o.rep as u64 } else { o.addr + k * o.rep as u64 * es };
                let len = if group { 8 * es } else { es };
                lo = lo.min(at);
                hi = hi.max(at + len);
                continue;
            }
            let epb = 32 / es;
            for l in (0..lanes).filter(|&l| self.lane_active(k, l)) {
                let at = o.addr + 32 * (k * o.rep as u64 + (l / epb) * o.blk as u64) + (l % epb) * es;
                lo = lo.min(at);
                hi = hi.max(at + es);
            }
        }
        (lo < hi).then_some((lo, hi))
    }
}

/// The structural checks of one instruction.
pub fn check_instr(i: &Instr) -> Result<(), String> {
    let want = match i.op {
        Op::Bin(_) | Op::Select { .. } | Op::Gather => 3,
        Op::Dup(_) | Op::SetCmpMask => 1,
        _ => 2,
    };
    if i.operands.len() != want {
        return Err(format!("{} operands, expected {want}", i.operands.len()));
    }
    if matches!(i.op, Op::Copy { .. } | Op::ScalarReduce { .. } | Op::SetCmpMask) {
        return Ok(());
    }
    match i.mask {
        Mask::Counter(0) => Err("counter mode with a count of 0".into()),
        Mask::Counter(_) if i.repeat != 0 => Err(format!("repeat {} in counter mode (must be 0: derived from the count)", i.repeat)),
        Mask::Counter(_) => Ok(()),
        Mask::Normal { hi, lo } => {
            if i.repeat == 0 || i.repeat > REPEAT_MAX {
                return Err(format!("repeat {} outside 1..={REPEAT_MAX}", i.repeat));
            }
            if hi == 0 && lo == 0 {
                return Err("mask is all zero".into());
            }
            if i.lanes() <= 64 && hi != 0 {
                return Err(format!("mask high word {hi:#x} must be 0 for {}-bit elements", 2048 / i.lanes()));
            }
            Ok(())
        }
    }
}
