//! The configuration registers of one core: state that config instructions write and later
//! instructions read, kept apart from the memories.
//!
//! - The fixpipe's pre-quantization registers (`set_quant_scalar`, `set_quant_vector`), read
//!   by a `tpush` from an accumulator tile. The scalar register holds pto-isa's 64-bit quant
//!   word (`include/pto/cpu/SetQuantScalar.hpp`: the f32 scale's bits in bits 0..31, the sign
//!   of an 8-bit output in bit 46); the vector register holds the address of a Scaling tile,
//!   kept here as the tile itself.
//!
//! - The img2col registers FMATRIX, IMG2COL_RPT and IMG2COL_PADDING of sides A and B
//!   ([`crate::conv`]).
//!
//! Each write is shown in `pto run --trace` ([`Registers::describe_quant_scalar`], ...).

use crate::view::TileView;
use pto_ir::types::ElemType;

/// Bit 46 of a quant word: the 8-bit output is signed.
pub const QUANT_SIGN_BIT: u32 = 46;

/// The configuration registers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Registers {
    /// The fixpipe's scalar quant word (`set_quant_scalar`), if set.
    pub quant_scalar: Option<u64>,
    /// The Scaling tile the vector quant register points at (`set_quant_vector`), if set.
    pub quant_vector: Option<TileView>,
    /// The img2col registers of sides A and B ([`crate::conv`]).
    pub img2col: [crate::fmatrix::Side; 2],
}

/// pto-isa's scalar quant word for `scale` and output type `out` (`SET_QUANT_SCALAR_IMPL`):
/// the f32 bits, with bit 46 set for an `i8` output and cleared for `ui8`.
pub fn quant_scalar_word(scale: f32, out: ElemType) -> u64 {
    let word = u64::from(scale.to_bits());
    if out.size_bytes() == 1 {
        let sign = u64::from(out == ElemType::I8) << QUANT_SIGN_BIT;
        (word & !(1 << QUANT_SIGN_BIT)) | sign
    } else {
        word
    }
}

impl Registers {
    /// The trace line of a scalar-register write.
    pub fn describe_quant_scalar(word: u64, out: ElemType) -> String {
        let scale = f32::from_bits(word as u32);
        let sign = (word >> QUANT_SIGN_BIT) & 1;
        format!("QUANT_SCALAR = {word:#018x} (scale {scale}, output {out}, sign bit {sign})")
    }

    /// The trace line of a vector-register write.
    pub fn describe_quant_vector(fp: &TileView) -> String {
        format!("QUANT_VECTOR = scaling+{} ({} {}x{} tile)", fp.addr, fp.desc.dtype, fp.vrows, fp.vcols)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sign_bit_follows_an_8_bit_output() {
        assert_eq!(quant_scalar_word(0.5, ElemType::I8), 0x3F00_0000 | (1 << 46));
        assert_eq!(quant_scalar_word(0.5, ElemType::U8), 0x3F00_0000);
        assert_eq!(quant_scalar_word(2.0, ElemType::F16), 0x4000_0000);
    }
}
