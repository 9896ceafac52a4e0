//! The narrow floating-point formats of the MX instructions, in one place: the OCP 8-bit floats
//! (`f8E4M3FN`, `f8E5M2`), the MX scale format E8M0 (`f8E8M0FNU`), the 4-bit MX element formats
//! E2M1 and E1M2 (packed two per byte by `tquant`), and HiFloat8 (`hif8`).
//!
//! One table of parameters ([`Format`]: exponent bits, mantissa bits, bias, sign, special
//! values) drives one decoder and one encoder for the regular formats; HiFloat8, whose
//! exponent width varies with a prefix code, has its own decoder and a nearest-value encoder
//! over its 128 magnitudes. Each stored format is an [`Elem`] (a one-byte newtype), so every
//! instruction family reads and writes it like f16.
//!
//! Parameters and special values follow pto-isa: `include/pto/cpu/MXTypes.hpp` (E2M1 bias 1,
//! E1M2 bias 1, E8M0 bias 127, E4M3 bias 7, E5M2 bias 15), `cpu/TQuant.hpp` (`DecodeE4M3Fn`:
//! `S.1111.111` is NaN, no infinity, largest finite 448; `EncodeE2M1Magic`: E2M1 saturates at 6,
//! NaN encodes as `0x7`), `cpu/Hifloat8.hpp` (the HiFloat8 value table; `0x80` is NaN, `0x6F`
//! / `0xEF` are ±inf) and `npu/a5/TCvt.hpp` (f32 to hif8 rounds half away from zero, `ROUND_A`;
//! the other casts round with the instruction's mode, ties to even by default).
//!
//! Encoding rounds to nearest (ties to even unless told otherwise). Overflow: with saturation
//! the largest finite value of the sign; without, infinity where the format has one (E5M2,
//! HiFloat8) and NaN where it has only NaN (E4M3FN). Formats without NaN or infinity (E2M1,
//! E1M2) always saturate and encode NaN as the positive largest value, as pto-isa does. E8M0 is
//! unsigned and has no zero: NaN, negative values and zero's sign are NaN (`0xFF`) except zero
//! and underflow, which give the smallest scale `2^-127` (`0x00`).

use crate::elem::Elem;

/// What a format does with its all-ones codes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Special {
    /// IEEE-like: the largest exponent field holds infinity (mantissa 0) and NaN (`f8E5M2`).
    Ieee,
    /// Only the all-ones code (either sign) is NaN; no infinity (`f8E4M3FN`, E8M0).
    NanAllOnes,
    /// Every code is a finite number (E2M1, E1M2).
    Finite,
}

/// One regular narrow float format.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Format {
    /// Name for diagnostics.
    pub name: &'static str,
    /// Exponent field width.
    pub exp_bits: u32,
    /// Mantissa field width.
    pub man_bits: u32,
    /// Exponent bias.
    pub bias: i32,
    /// A sign bit above the exponent.
    pub signed: bool,
    /// Whether exponent field 0 holds subnormals (and zero); E8M0 has neither.
    pub subnormals: bool,
    /// Special values.
    pub special: Special,
}

/// OCP FP8 E4M3FN (`float8_e4m3_t`): max 448, min subnormal 2^-9.
pub const E4M3FN: Format =
    Format { name: "f8E4M3FN", exp_bits: 4, man_bits: 3, bias: 7, signed: true, subnormals: true, special: Special::NanAllOnes };
/// OCP FP8 E5M2 (`float8_e5m2_t`): max 57344, min subnormal 2^-16, infinities.
pub const E5M2: Format =
    Format { name: "f8E5M2", exp_bits: 5, man_bits: 2, bias: 15, signed: true, subnormals: true, special: Special::Ieee };
/// MX scale E8M0 (`float8_e8m0_t`): 2^(code - 127), `0xFF` NaN.
pub const E8M0: Format =
    Format { name: "f8E8M0FNU", exp_bits: 8, man_bits: 0, bias: 127, signed: false, subnormals: false, special: Special::NanAllOnes };
/// MX FP4 E2M1 (`float4_e2m1x2_t`, two per byte): 0, 0.5, 1, 1.5, 2, 3, 4, 6.
pub const E2M1: Format =
    Format { name: "e2m1", exp_bits: 2, man_bits: 1, bias: 1, signed: true, subnormals: true, special: Special::Finite };
/// MX FP4 E1M2 (`float4_e1m2x2_t`, two per byte): 0, 0.25, ..., 1.75.
pub const E1M2: Format =
    Format { name: "e1m2", exp_bits: 1, man_bits: 2, bias: 1, signed: true, subnormals: true, special: Special::Finite };

/// How an encoder rounds a value that falls between two codes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// To nearest, ties to even (the default of every cast but hif8).
    NearestEven,
    /// To nearest, ties away from zero (`ROUND_A`).
    NearestAway,
    /// Toward -inf.
    Floor,
    /// Toward +inf.
    Ceil,
    /// Toward zero.
    Trunc,
}

impl Rounding {
    fn apply(self, v: f64) -> f64 {
        match self {
            Rounding::NearestEven => v.round_ties_even(),
            Rounding::NearestAway => v.round(),
            Rounding::Floor => v.floor(),
            Rounding::Ceil => v.ceil(),
            Rounding::Trunc => v.trunc(),
        }
    }
}

/// `2^e` for any exponent an 8-bit format needs (exact).
fn pow2(e: i32) -> f64 {
    2f64.powi(e)
}

impl Format {
    fn sign_bit(&self) -> u8 {
        if self.signed { 1 << (self.exp_bits + self.man_bits) } else { 0 }
    }
    fn max_exp_field(&self) -> u32 {
        (1 << self.exp_bits) - 1
    }
    fn man_mask(&self) -> u32 {
        (1 << self.man_bits) - 1
    }
    /// The smallest normal exponent (unbiased).
    fn emin(&self) -> i32 {
        if self.subnormals { 1 - self.bias } else { -self.bias }
    }

    /// The largest finite magnitude's code (no sign).
    pub fn max_code(&self) -> u8 {
        let top = self.max_exp_field();
        (match self.special {
            Special::Ieee => ((top - 1) << self.man_bits) | self.man_mask(),
            Special::NanAllOnes if self.man_bits == 0 => (top - 1) << self.man_bits,
            Special::NanAllOnes => (top << self.man_bits) | (self.man_mask() - 1),
            Special::Finite => (top << self.man_bits) | self.man_mask(),
        }) as u8
    }

    /// The largest finite value.
    pub fn max_finite(&self) -> f64 {
        self.decode(self.max_code())
    }

    /// The value of `code` (the low `1 + exp + man` bits; higher bits are ignored).
    pub fn decode(&self, code: u8) -> f64 {
        let width = self.exp_bits + self.man_bits + u32::from(self.signed);
        let code = u32::from(code) & ((1u32 << width) - 1);
        let neg = self.signed && code & u32::from(self.sign_bit()) != 0;
        let e = (code >> self.man_bits) & self.max_exp_field();
        let m = code & self.man_mask();
        let top = self.max_exp_field();
        let mag = match self.special {
            Special::Ieee if e == top => {
                if m == 0 {
                    f64::INFINITY
                } else {
                    return f64::NAN;
                }
            }
            Special::NanAllOnes if e == top && m == self.man_mask() => return f64::NAN,
            _ if e == 0 && self.subnormals => f64::from(m) * pow2(self.emin() - self.man_bits as i32),
            _ => (1.0 + f64::from(m) / f64::from(1u32 << self.man_bits)) * pow2(e as i32 - self.bias),
        };
        if neg { -mag } else { mag }
    }

    /// The code nearest to `v` (see the module doc for overflow, NaN and `saturate`).
    pub fn encode(&self, v: f64, rounding: Rounding, saturate: bool) -> u8 {
        let nan_code = match self.special {
            Special::Finite => return self.encode_finite(if v.is_nan() { f64::INFINITY } else { v }, rounding),
            _ => ((self.max_exp_field() << self.man_bits) | self.man_mask()) as u8,
        };
        if v.is_nan() || (!self.signed && v < 0.0) {
            return nan_code;
        }
        let sign = if v.is_sign_negative() { self.sign_bit() } else { 0 };
        let (mag, overflow) = self.round_magnitude(v.abs(), rounding, v.is_sign_negative());
        if !overflow {
            return sign | mag;
        }
        if saturate {
            sign | self.max_code()
        } else if self.special == Special::Ieee {
            sign | (self.max_exp_field() << self.man_bits) as u8
        } else {
            sign | nan_code
        }
    }

    /// E2M1 / E1M2: every overflow saturates (infinity too).
    fn encode_finite(&self, v: f64, rounding: Rounding) -> u8 {
        let sign = if v.is_sign_negative() { self.sign_bit() } else { 0 };
        let (mag, overflow) = self.round_magnitude(v.abs(), rounding, v.is_sign_negative());
        sign | if overflow { self.max_code() } else { mag }
    }

    /// The magnitude code of `a >= 0` rounded to the format's precision, or `overflow` when
    /// the rounded value exceeds the largest finite value.
    fn round_magnitude(&self, a: f64, rounding: Rounding, negative: bool) -> (u8, bool) {
        if a.is_infinite() {
            return (0, true);
        }
        // Floor/Ceil act on the signed value: on a magnitude they swap for negative numbers.
        let rounding = match (rounding, negative) {
            (Rounding::Floor, true) => Rounding::Ceil,
            (Rounding::Ceil, true) => Rounding::Floor,
            (r, _) => r,
        };
        let emin = self.emin();
        if a == 0.0 {
            return (0, false);
        }
        // Exponent of a's leading bit (a is a normal f64 here: 8-bit formats stay far inside).
        let e = ((a.to_bits() >> 52) & 0x7FF) as i32 - 1023;
        let e = if e < -1022 { -1023 } else { e };
        let q = e.max(emin) - self.man_bits as i32;
        let m = rounding.apply(a / pow2(q));
        let value = m * pow2(q);
        if value > self.max_finite() {
            return (0, true);
        }
        if !self.subnormals && value < pow2(emin) {
            // E8M0 below 2^-127: the smallest scale.
            return (0, false);
        }
        (self.magnitude_code(value), false)
    }

    /// The code of a representable magnitude.
    fn magnitude_code(&self, value: f64) -> u8 {
        if value == 0.0 {
            return 0;
        }
        let emin = self.emin();
        let e = ((value.to_bits() >> 52) & 0x7FF) as i32 - 1023;
        if self.subnormals && e < emin {
            return (value / pow2(emin - self.man_bits as i32)) as u8;
        }
        let m = ((value / pow2(e) - 1.0) * f64::from(1u32 << self.man_bits)) as u32;
        ((((e + self.bias) as u32) << self.man_bits) | m) as u8
    }
}

/// HiFloat8: the value of `code`: a sign, then a prefix (`11`, `10`, `01`, `001`, `0001`) giving
/// the exponent width D (4, 3, 2, 1, 0), a sign-magnitude exponent with an implicit leading 1,
/// and the remaining bits of mantissa (1, 2, 3, 3, 3); `0000xxxx` is zero / NaN (`0x80`) /
/// denormals 2^(M-23). pto-isa's CPU simulator (`cpu/Hifloat8.hpp`) gives D = 0 and D = 1
/// codes 5 and 4 mantissa bits, more than the payload holds (so its D = 1 codes all get
/// exponent +1 and its D = 0 codes steps of 1/32); this follows the format's field widths.
pub fn hif8_decode(code: u8) -> f64 {
    let neg = code & 0x80 != 0;
    let p = code & 0x7F;
    let sign = if neg { -1.0 } else { 1.0 };
    if p >> 3 == 0 {
        let m = p & 7;
        if m == 0 {
            return if neg { f64::NAN } else { 0.0 };
        }
        return sign * pow2(i32::from(m) - 23);
    }
    let (d, rest) = match p >> 5 {
        3 => (4, p & 0x1F),
        2 => (3, p & 0x1F),
        1 => (2, p & 0x1F),
        _ if p >> 4 == 1 => (1, p & 0x0F),
        _ => (0, p & 0x07),
    };
    // Mantissa bits: 3 for D <= 2 (the prefix and exponent leave 3), 2 for D = 3, 1 for D = 4.
    let mbits = if d >= 3 { 5 - d } else { 3 };
    let (raw_e, raw_m) = (i32::from(rest >> mbits), i32::from(rest) & ((1 << mbits) - 1));
    let exp = if d > 0 {
        let sbit = raw_e & (1 << (d - 1));
        let mag = (1 << (d - 1)) | (raw_e - sbit);
        if sbit != 0 { -mag } else { mag }
    } else {
        0
    };
    if d == 4 && exp == 15 && raw_m == 1 {
        return sign * f64::INFINITY;
    }
    sign * pow2(exp) * (1.0 + f64::from(raw_m) / f64::from(1 << mbits))
}

/// The HiFloat8 magnitudes (codes `0x00..=0x7F` but the infinity `0x6F`), ascending, with
/// their codes; built once.
fn hif8_magnitudes() -> &'static [(f64, u8)] {
    static TABLE: std::sync::OnceLock<Vec<(f64, u8)>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t: Vec<(f64, u8)> = (0u8..0x80).map(|c| (hif8_decode(c), c)).filter(|(v, _)| v.is_finite()).collect();
        t.sort_by(|a, b| a.0.total_cmp(&b.0));
        t
    })
}

/// HiFloat8: the code nearest to `v`, ties away from zero (`ROUND_A`, the only rounding the
/// A5 cast to hif8 uses). A magnitude beyond the largest finite value (2^15) by at least half
/// the next binade step rounds to infinity, or to the largest value when `saturate`; NaN is
/// `0x80`, -0 encodes as +0 (`0x80` is NaN).
pub fn hif8_encode(v: f64, saturate: bool) -> u8 {
    if v.is_nan() {
        return 0x80;
    }
    let sign = if v < 0.0 { 0x80 } else { 0 };
    let a = v.abs();
    let t = hif8_magnitudes();
    let &(max, max_code) = t.last().expect("hif8 table");
    // The next value above the largest finite one would be 1.5 * 2^15 (the infinity code's slot).
    if a >= (max + max * 1.5) / 2.0 {
        return if saturate { sign | max_code } else { sign | 0x6F };
    }
    let i = t.partition_point(|&(x, _)| x < a);
    let code = match (t.get(i.wrapping_sub(1)), t.get(i)) {
        (_, Some(&(x, c))) if x == a => c,
        (Some(&(lo, lc)), Some(&(hi, hc))) => {
            if a - lo < hi - a {
                lc
            } else {
                hc
            }
        }
        (None, Some(&(_, c))) => c,
        (Some(&(_, c)), None) => c,
        (None, None) => 0,
    };
    if code == 0 { 0 } else { sign | code }
}

/// A one-byte element type with its codec: the [`Elem`] implementations below.
macro_rules! byte_float {
    ($(#[$doc:meta])* $t:ident, $decode:expr, $encode:expr) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
        pub struct $t(pub u8);

        // SAFETY: a transparent wrapper of one `u8`: every bit pattern is valid, no padding.
        unsafe impl bytemuck::Zeroable for $t {}
        // SAFETY: as above.
        unsafe impl bytemuck::Pod for $t {}

        impl PartialOrd for $t {
            fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
                self.to_f64().partial_cmp(&o.to_f64())
            }
        }

        impl $t {
            /// The value.
            pub fn value(self) -> f64 {
                ($decode)(self.0)
            }
            /// The nearest code, non-saturating, with the format's default rounding.
            pub fn from_value(v: f64) -> Self {
                $t(($encode)(v))
            }
        }

        impl Elem for $t {
            const SIZE: usize = 1;
            const FLOAT: bool = true;
            fn load(b: &[u8]) -> Self {
                $t(b[0])
            }
            fn store(self, b: &mut [u8]) {
                b[0] = self.0;
            }
            fn to_f64(self) -> f64 {
                self.value()
            }
            fn from_f64(v: f64) -> Self {
                Self::from_value(v)
            }
            fn from_i64(v: i64) -> Self {
                Self::from_value(v as f64)
            }
            fn to_i64(self) -> i64 {
                self.value() as i64
            }
            fn add(self, o: Self) -> Self {
                Self::from_value(self.value() + o.value())
            }
            fn sub(self, o: Self) -> Self {
                Self::from_value(self.value() - o.value())
            }
            fn mul(self, o: Self) -> Self {
                Self::from_value(self.value() * o.value())
            }
            fn div(self, o: Self) -> Option<Self> {
                Some(Self::from_value(self.value() / o.value()))
            }
            fn neg(self) -> Self {
                Self::from_value(-self.value())
            }
            fn abs(self) -> Self {
                Self::from_value(self.value().abs())
            }
            fn raw_bits(self) -> u64 {
                u64::from(self.0)
            }
            fn from_raw_bits(b: u64) -> Self {
                $t(b as u8)
            }
            fn signed() -> bool {
                true
            }
        }
    };
}

byte_float!(
    /// `f8E4M3FN`.
    F8E4M3,
    |c| E4M3FN.decode(c),
    |v| E4M3FN.encode(v, Rounding::NearestEven, false)
);
byte_float!(
    /// `f8E5M2`.
    F8E5M2,
    |c| E5M2.decode(c),
    |v| E5M2.encode(v, Rounding::NearestEven, false)
);
byte_float!(
    /// `f8E8M0FNU`, the MX scale.
    F8E8M0,
    |c| E8M0.decode(c),
    |v| E8M0.encode(v, Rounding::NearestEven, false)
);
byte_float!(
    /// `hif8`.
    HiF8,
    hif8_decode,
    |v| hif8_encode(v, false)
);

/// Encodes `v` as the one-byte float type `dtype` with `rounding` and `saturate` (`tcvt`);
/// `None` for other types.
pub fn encode_byte(dtype: pto_ir::types::ElemType, v: f64, rounding: Rounding, saturate: bool) -> Option<u8> {
    use pto_ir::types::ElemType as E;
    Some(match dtype {
        E::F8E4M3 => E4M3FN.encode(v, rounding, saturate),
        E::F8E5M2 => E5M2.encode(v, rounding, saturate),
        E::F8E8M0 => E8M0.encode(v, rounding, saturate),
        // The A5 cast to hif8 always rounds half away from zero (`npu/a5/TCvt.hpp`).
        E::HiF8 => hif8_encode(v, saturate),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    const RNE: Rounding = Rounding::NearestEven;

    #[test]
    fn e4m3fn_bit_patterns() {
        let f = E4M3FN;
        assert_eq!(f.decode(0x01), 2f64.powi(-9), "min subnormal");
        assert_eq!(f.decode(0x08), 2f64.powi(-6), "min normal");
        assert_eq!(f.decode(0x7E), 448.0, "max finite");
        assert_eq!(f.decode(0xFE), -448.0);
        assert!(f.decode(0x7F).is_nan() && f.decode(0xFF).is_nan());
        assert_eq!(f.decode(0x38), 1.0);
        assert_eq!(f.encode(1.0, RNE, false), 0x38);
        assert_eq!(f.encode(-0.875, RNE, false), 0xB6);
        assert_eq!(f.encode(2f64.powi(-9), RNE, false), 0x01);
        // Ties: 1 + 1/16 is halfway between 1 (0x38) and 1.125 (0x39): even 0x38; 1 + 3/16
        // between 0x39 and 0x3A: even 0x3A.
        assert_eq!(f.encode(1.0625, RNE, false), 0x38);
        assert_eq!(f.encode(1.1875, RNE, false), 0x3A);
        assert_eq!(f.encode(1.0625, Rounding::NearestAway, false), 0x39);
        // Half the min subnormal ties to 0; a bit more rounds up.
        assert_eq!(f.encode(2f64.powi(-10), RNE, false), 0x00);
        assert_eq!(f.encode(2f64.powi(-10) * 1.01, RNE, false), 0x01);
        assert_eq!(f.encode(-2f64.powi(-12), RNE, false), 0x80, "sign kept");
        // 464 is halfway between 448 (mantissa 110) and the NaN slot 480 (111): ties to even
        // 448; anything above rounds to 480 and overflows.
        assert_eq!(f.encode(464.0, RNE, false), 0x7E);
        assert_eq!(f.encode(465.0, RNE, false), 0x7F, "overflow without saturation is NaN");
        assert_eq!(f.encode(1e9, RNE, true), 0x7E, "saturates");
        assert_eq!(f.encode(-1e9, RNE, true), 0xFE);
        assert_eq!(f.encode(f64::INFINITY, RNE, true), 0x7E);
        assert_eq!(f.encode(f64::NAN, RNE, true), 0x7F);
        assert_eq!(f.encode(1.1, Rounding::Trunc, false), 0x38);
        assert_eq!(f.encode(1.1, Rounding::Ceil, false), 0x39);
        assert_eq!(f.encode(-1.1, Rounding::Floor, false), 0xB9);
    }

    #[test]
    fn e5m2_bit_patterns() {
        let f = E5M2;
        assert_eq!(f.decode(0x01), 2f64.powi(-16), "min subnormal");
        assert_eq!(f.decode(0x7B), 57344.0, "max finite");
        assert_eq!(f.decode(0x7C), f64::INFINITY);
        assert_eq!(f.decode(0xFC), f64::NEG_INFINITY);
        assert!(f.decode(0x7D).is_nan());
        assert_eq!(f.decode(0x41), 2.5);
        assert_eq!(f.encode(2.5, RNE, false), 0x41);
        assert_eq!(f.encode(-5.0, RNE, false), 0xC5);
        // 1.125 is halfway between 1 (0x3C) and 1.25 (0x3D): even 0x3C; 1.375: even 0x3E.
        assert_eq!(f.encode(1.125, RNE, false), 0x3C);
        assert_eq!(f.encode(1.375, RNE, false), 0x3E);
        // 61440 is halfway between 57344 and 65536 (inf slot): to infinity.
        assert_eq!(f.encode(61439.0, RNE, false), 0x7B);
        assert_eq!(f.encode(61440.0, RNE, false), 0x7C);
        assert_eq!(f.encode(61440.0, RNE, true), 0x7B);
        assert_eq!(f.encode(f64::NEG_INFINITY, RNE, false), 0xFC);
        assert_eq!(f.encode(f64::NAN, RNE, false), 0x7F);
    }

    #[test]
    fn e8m0_bit_patterns() {
        let f = E8M0;
        assert_eq!(f.decode(0x00), 2f64.powi(-127), "smallest scale");
        assert_eq!(f.decode(0x7F), 1.0);
        assert_eq!(f.decode(0x80), 2.0);
        assert_eq!(f.decode(0xFE), 2f64.powi(127), "max finite");
        assert!(f.decode(0xFF).is_nan());
        assert_eq!(f.encode(0.25, RNE, false), 0x7D);
        // 1.5 is halfway between 1 and 2 (mantissa 1 vs 2): ties to the even significand, 2.
        assert_eq!(f.encode(1.5, RNE, false), 0x80);
        assert_eq!(f.encode(1.4, RNE, false), 0x7F);
        assert_eq!(f.encode(-1.0, RNE, false), 0xFF, "no negative scales");
        assert_eq!(f.encode(0.0, RNE, false), 0x00);
        assert_eq!(f.encode(f64::NAN, RNE, false), 0xFF);
        assert_eq!(f.encode(2f64.powi(128), RNE, false), 0xFF, "overflow is NaN");
        assert_eq!(f.encode(2f64.powi(128), RNE, true), 0xFE);
    }

    #[test]
    fn fp4_bit_patterns() {
        let vals: Vec<f64> = (0..8).map(|c| E2M1.decode(c)).collect();
        assert_eq!(vals, [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]);
        assert_eq!(E2M1.decode(0xF), -6.0);
        assert_eq!(E2M1.encode(5.0, RNE, false), 0x6, "5 ties to even 4");
        assert_eq!(E2M1.encode(2.5, RNE, false), 0x4, "2.5 ties to even 2");
        assert_eq!(E2M1.encode(0.25, RNE, false), 0x0, "half the min subnormal ties to 0");
        assert_eq!(E2M1.encode(100.0, RNE, false), 0x7, "always saturates");
        assert_eq!(E2M1.encode(-100.0, RNE, false), 0xF);
        assert_eq!(E2M1.encode(f64::NAN, RNE, false), 0x7, "NaN as pto-isa encodes it");
        let vals: Vec<f64> = (0..8).map(|c| E1M2.decode(c)).collect();
        assert_eq!(vals, [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75]);
        assert_eq!(E1M2.encode(0.375, RNE, false), 0x2);
        assert_eq!(E1M2.encode(9.0, RNE, false), 0x7);
    }

    #[test]
    fn hif8_bit_patterns() {
        assert_eq!(hif8_decode(0x00), 0.0);
        assert!(hif8_decode(0x80).is_nan());
        assert_eq!(hif8_decode(0x01), 2f64.powi(-22), "smallest denormal");
        assert_eq!(hif8_decode(0x07), 2f64.powi(-16));
        assert_eq!(hif8_decode(0x08), 1.0, "D=0: 1.M with 3 mantissa bits");
        assert_eq!(hif8_decode(0x09), 1.125);
        assert_eq!(hif8_decode(0x6F), f64::INFINITY);
        assert_eq!(hif8_decode(0xEF), f64::NEG_INFINITY);
        assert_eq!(hif8_decode(0x6E), 32768.0, "max finite 2^15");
        assert_eq!(hif8_encode(1.0, false), 0x08);
        assert_eq!(hif8_encode(-1.0, false), 0x88);
        // 1.0625 is halfway between 1 and 1.125: away from zero.
        assert_eq!(hif8_encode(1.0625, false), 0x09);
        assert_eq!(hif8_encode(-1.0625, false), 0x89);
        assert_eq!(hif8_encode(1.06, false), 0x08);
        assert_eq!(hif8_encode(40959.0, false), 0x6E);
        assert_eq!(hif8_encode(40960.0, false), 0x6F, "overflow to inf");
        assert_eq!(hif8_encode(1e9, true), 0x6E, "saturates");
        assert_eq!(hif8_encode(f64::NAN, false), 0x80);
        assert_eq!(hif8_encode(-0.0, false), 0x00);
        assert_eq!(hif8_encode(2f64.powi(-24), false), 0x00);
        // Every finite code decodes and encodes back to itself.
        for c in 0u8..=255 {
            let v = hif8_decode(c);
            if v.is_finite() && c != 0x80 {
                assert_eq!(hif8_encode(v, false), c, "{c:#x}");
            }
        }
    }

    #[test]
    fn every_regular_code_round_trips() {
        for f in [E4M3FN, E5M2, E8M0, E2M1, E1M2] {
            let width = f.exp_bits + f.man_bits + u32::from(f.signed);
            for c in 0..(1u32 << width) {
                let v = f.decode(c as u8);
                if v.is_nan() {
                    continue;
                }
                assert_eq!(u32::from(f.encode(v, RNE, false)), c, "{} {c:#x} = {v}", f.name);
            }
        }
    }

    #[test]
    fn byte_floats_are_elements() {
        assert_eq!(F8E4M3::from_f64(3.0).0, 0x44);
        assert_eq!(F8E4M3(0x44).add(F8E4M3(0x38)).to_f64(), 4.0);
        assert_eq!(F8E8M0(0x80).to_f64(), 2.0);
        assert!(F8E5M2(0x41) > F8E5M2(0x3C));
    }
}
