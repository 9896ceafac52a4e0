//! Target profiles as data: buffer capacities and alignments, and the per-op legality table.
//!
//! Sources: pto-isa `include/pto/common/buffer_limits.hpp` (capacities, ISA notes §2.5) and
//! PTOAS PlanMemory (alignment of L0A/L0B/L0C to 512 bytes). The legality table itself lives
//! in [`crate::legalize`] (one table per target, read by one legalizer).

use pto_ir::types::Loc;
use serde::Serialize;

/// Which NPU generation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum TargetId {
    /// Ascend A2/A3 (910B/910C class).
    A2A3,
    /// Ascend A5.
    A5,
}

/// One on-chip buffer.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Buffer {
    /// The tile location it backs.
    pub loc: Loc,
    /// Hardware name.
    pub name: &'static str,
    /// Capacity in bytes.
    pub capacity: u64,
    /// Required alignment of a tile's start address, in bytes.
    pub align: u64,
}

/// A target profile.
#[derive(Debug, Serialize)]
pub struct Target {
    /// Which target.
    pub id: TargetId,
    /// Name used on the command line (`a2a3`, `a5`).
    pub name: &'static str,
    /// On-chip buffers.
    pub buffers: [Buffer; 7],
    /// Bytes in one vector repeat (A2A3 vector model).
    pub repeat_bytes: u32,
    /// Bytes in one datablock.
    pub block_bytes: u32,
    /// Largest repeat count of one vector instruction.
    pub max_repeat: u32,
}

const KIB: u64 = 1024;

/// Ascend A2/A3.
pub static A2A3: Target = Target {
    id: TargetId::A2A3,
    name: "a2a3",
    buffers: [
        Buffer { loc: Loc::Vec, name: "UB", capacity: 192 * KIB, align: 32 },
        Buffer { loc: Loc::Mat, name: "L1", capacity: 512 * KIB, align: 32 },
        Buffer { loc: Loc::Left, name: "L0A", capacity: 64 * KIB, align: 512 },
        Buffer { loc: Loc::Right, name: "L0B", capacity: 64 * KIB, align: 512 },
        Buffer { loc: Loc::Acc, name: "L0C", capacity: 128 * KIB, align: 512 },
        Buffer { loc: Loc::Bias, name: "BT", capacity: KIB, align: 32 },
        Buffer { loc: Loc::Scaling, name: "FB", capacity: 2 * KIB, align: 32 },
    ],
    repeat_bytes: 256,
    block_bytes: 32,
    max_repeat: 255,
};

/// Ascend A5.
pub static A5: Target = Target {
    id: TargetId::A5,
    name: "a5",
    buffers: [
        Buffer { loc: Loc::Vec, name: "UB", capacity: 256 * KIB, align: 32 },
        Buffer { loc: Loc::Mat, name: "L1", capacity: 512 * KIB, align: 32 },
        Buffer { loc: Loc::Left, name: "L0A", capacity: 64 * KIB, align: 512 },
        Buffer { loc: Loc::Right, name: "L0B", capacity: 64 * KIB, align: 512 },
        Buffer { loc: Loc::Acc, name: "L0C", capacity: 256 * KIB, align: 512 },
        Buffer { loc: Loc::Bias, name: "BT", capacity: 4 * KIB, align: 32 },
        Buffer { loc: Loc::Scaling, name: "FB", capacity: 4 * KIB, align: 32 },
    ],
    repeat_bytes: 256,
    block_bytes: 32,
    max_repeat: 255,
};

impl Target {
    /// The profile for an id.
    pub fn get(id: TargetId) -> &'static Target {
        match id {
            TargetId::A2A3 => &A2A3,
            TargetId::A5 => &A5,
        }
    }
    /// The buffer backing a location.
    pub fn buffer(&self, loc: Loc) -> &Buffer {
        // Every Loc has exactly one entry (checked by a unit test).
        self.buffers.iter().find(|b| b.loc == loc).unwrap_or(&self.buffers[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_location_has_one_buffer() {
        for t in [&A2A3, &A5] {
            for (loc, _) in Loc::ALL {
                assert_eq!(t.buffers.iter().filter(|b| b.loc == *loc).count(), 1, "{} {loc:?}", t.name);
            }
        }
        assert_eq!(A2A3.buffer(Loc::Vec).capacity, 196_608);
        assert_eq!(A5.buffer(Loc::Vec).capacity, 262_144);
        assert_eq!(A5.buffer(Loc::Acc).capacity, 2 * A2A3.buffer(Loc::Acc).capacity);
    }
}
