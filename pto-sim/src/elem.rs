//! The element-access layer: one trait over every element type, so each instruction family is
//! written once as a generic function and dispatched on the dtype once per op
//! ([`crate::dispatch!`]), never per element.
//!
//! Arithmetic follows the pto-isa CPU simulator (the golden oracle): integers wrap, integer
//! division truncates toward zero, signed right shifts are arithmetic and unsigned ones logical,
//! f16/bf16 arithmetic is computed in f32 and rounded once (correctly rounded for + - * / and
//! sqrt), transcendental functions are computed in f64 and rounded once.

use half::{bf16, f16};

/// One element type as stored in a tile (little-endian bytes).
pub trait Elem: Copy + PartialOrd + std::fmt::Debug + bytemuck::Pod + 'static {
    /// Bytes per element.
    const SIZE: usize;
    /// True for floating-point types.
    const FLOAT: bool;
    /// Reads one element.
    fn load(b: &[u8]) -> Self;
    /// Writes one element.
    fn store(self, b: &mut [u8]);
    /// Exact for integers up to 2^53 and for every float type.
    fn to_f64(self) -> f64;
    /// `to_f64() as f32`, without the detour where a type has a direct conversion (16-bit
    /// floats: exact).
    #[inline]
    fn to_f32(self) -> f32 {
        self.to_f64() as f32
    }
    /// From f64 (float: rounded to nearest even; integer: truncated toward zero, wrapping).
    fn from_f64(v: f64) -> Self;
    /// From a 64-bit integer (wrapping for integers).
    fn from_i64(v: i64) -> Self;
    /// To a 64-bit integer (floats truncate).
    fn to_i64(self) -> i64;
    /// `a + b` (wrapping for integers).
    fn add(self, o: Self) -> Self;
    /// `a - b`.
    fn sub(self, o: Self) -> Self;
    /// `a * b`.
    fn mul(self, o: Self) -> Self;
    /// `a / b`; `None` for an integer division by zero (a program fault).
    fn div(self, o: Self) -> Option<Self>;
    /// `min(a, b)` (the first operand when equal).
    fn minimum(self, o: Self) -> Self {
        if o < self { o } else { self }
    }
    /// `max(a, b)` (the first operand when equal).
    fn maximum(self, o: Self) -> Self {
        if o > self { o } else { self }
    }
    /// `-a` (wrapping).
    fn neg(self) -> Self;
    /// `|a|` (wrapping).
    fn abs(self) -> Self;
    /// Applies an f64 function and rounds once (transcendental ops).
    fn via_f64(self, f: fn(f64) -> f64) -> Self {
        Self::from_f64(f(self.to_f64()))
    }
    /// The raw bits, zero-extended (bitwise ops, masks, JSON `bits`).
    fn raw_bits(self) -> u64;
    /// From raw bits (truncated to the element width).
    fn from_raw_bits(b: u64) -> Self;
    /// Width in bits.
    fn width() -> u32 {
        Self::SIZE as u32 * 8
    }
    /// True for signed integer types.
    fn signed() -> bool;
}

macro_rules! int_elem {
    ($t:ty, $signed:expr) => {
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            const FLOAT: bool = false;
            fn load(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..Self::SIZE]);
                <$t>::from_le_bytes(a)
            }
            fn store(self, b: &mut [u8]) {
                b[..Self::SIZE].copy_from_slice(&self.to_le_bytes());
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_f64(v: f64) -> Self {
                v as i128 as $t
            }
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            fn to_i64(self) -> i64 {
                self as i64
            }
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            fn sub(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
            fn mul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            fn div(self, o: Self) -> Option<Self> {
                if o == 0 { None } else { Some(self.wrapping_div(o)) }
            }
            fn neg(self) -> Self {
                (0 as $t).wrapping_sub(self)
            }
            fn abs(self) -> Self {
                if $signed && self.to_i64() < 0 { self.neg() } else { self }
            }
            fn raw_bits(self) -> u64 {
                (self as u64) & (u64::MAX >> (64 - Self::SIZE * 8))
            }
            fn from_raw_bits(b: u64) -> Self {
                b as $t
            }
            fn signed() -> bool {
                $signed
            }
        }
    };
}

int_elem!(i8, true);
int_elem!(i16, true);
int_elem!(i32, true);
int_elem!(i64, true);
int_elem!(u8, false);
int_elem!(u16, false);
int_elem!(u32, false);
int_elem!(u64, false);

macro_rules! float_elem {
    ($t:ty, $bits:ty, $wide:ty, $to_wide:expr, $from_wide:expr, $to64:expr, $from64:expr, $tobits:expr, $frombits:expr, $to_f32:expr) => {
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            const FLOAT: bool = true;
            fn load(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..Self::SIZE]);
                ($frombits)(<$bits>::from_le_bytes(a))
            }
            fn store(self, b: &mut [u8]) {
                b[..Self::SIZE].copy_from_slice(&($tobits)(self).to_le_bytes());
            }
            fn to_f64(self) -> f64 {
                ($to64)(self)
            }
            #[inline]
            fn to_f32(self) -> f32 {
                ($to_f32)(self)
            }
            fn from_f64(v: f64) -> Self {
                ($from64)(v)
            }
            fn from_i64(v: i64) -> Self {
                ($from64)(v as f64)
            }
            fn to_i64(self) -> i64 {
                ($to64)(self) as i64
            }
            #[inline]
            fn add(self, o: Self) -> Self {
                let (a, b): ($wide, $wide) = (($to_wide)(self), ($to_wide)(o));
                ($from_wide)(a + b)
            }
            #[inline]
            fn sub(self, o: Self) -> Self {
                let (a, b): ($wide, $wide) = (($to_wide)(self), ($to_wide)(o));
                ($from_wide)(a - b)
            }
            #[inline]
            fn mul(self, o: Self) -> Self {
                let (a, b): ($wide, $wide) = (($to_wide)(self), ($to_wide)(o));
                ($from_wide)(a * b)
            }
            fn div(self, o: Self) -> Option<Self> {
                let (a, b): ($wide, $wide) = (($to_wide)(self), ($to_wide)(o));
                Some(($from_wide)(a / b))
            }
            fn neg(self) -> Self {
                ($from_wide)(-($to_wide)(self))
            }
            fn abs(self) -> Self {
                let a: $wide = ($to_wide)(self);
                ($from_wide)(a.abs())
            }
            fn raw_bits(self) -> u64 {
                ($tobits)(self) as u64
            }
            fn from_raw_bits(b: u64) -> Self {
                ($frombits)(b as $bits)
            }
            fn signed() -> bool {
                true
            }
        }
    };
}

// f16/bf16: + - * / computed in f32 and rounded once — correctly rounded, since f32 carries
// more than 2p+2 bits for both. f32/f64 use native arithmetic.
float_elem!(
    f16,
    u16,
    f32,
    |x: f16| x.to_f32(),
    f16::from_f32,
    |x: f16| x.to_f64(),
    f16::from_f64,
    |x: f16| x.to_bits(),
    f16::from_bits,
    |x: f16| x.to_f32()
);
float_elem!(
    bf16,
    u16,
    f32,
    |x: bf16| x.to_f32(),
    bf16::from_f32,
    |x: bf16| x.to_f64(),
    bf16::from_f64,
    |x: bf16| x.to_bits(),
    bf16::from_bits,
    |x: bf16| x.to_f32()
);
float_elem!(f32, u32, f32, |x: f32| x, |v: f32| v, |x: f32| x as f64, |v: f64| v as f32, |x: f32| x.to_bits(), f32::from_bits, |x: f32| x);
float_elem!(f64, u64, f64, |x: f64| x, |v: f64| v, |x: f64| x, |v: f64| v, |x: f64| x.to_bits(), f64::from_bits, |x: f64| x as f32);

/// Calls `$body` with `$T` bound to the Rust type that the arm list gives for `$dtype`
/// (`ElemType` variants are in scope as `E::...`); `$other` handles every type not listed.
/// One match for [`dispatch!`] and the `.npy` reader's storage-type dispatch.
#[macro_export]
macro_rules! dispatch_over {
    ($dtype:expr, $T:ident => $body:expr, _ => $other:expr; $($variant:pat => $ty:ty),+ $(,)?) => {{
        #[allow(unused_imports)]
        use pto_ir::types::ElemType as E;
        match $dtype {
            $($variant => {
                type $T = $ty;
                $body
            })+
            _ => $other,
        }
    }};
}

/// Calls `$body` with `$T` bound to the Rust type of element type `$dtype`; `$other` handles
/// element types the simulator does not model (index, i1). The one-byte floats are the codecs
/// of [`crate::minifloat`].
#[macro_export]
macro_rules! dispatch {
    ($dtype:expr, $T:ident => $body:expr, _ => $other:expr) => {
        $crate::dispatch_over!($dtype, $T => $body, _ => $other;
            E::I8 => i8, E::I16 => i16, E::I32 => i32, E::I64 => i64,
            E::U8 => u8, E::U16 => u16, E::U32 => u32, E::U64 => u64,
            E::F16 => half::f16, E::BF16 => half::bf16, E::F32 => f32, E::F64 => f64,
            E::F8E4M3 => $crate::minifloat::F8E4M3, E::F8E5M2 => $crate::minifloat::F8E5M2,
            E::F8E8M0 => $crate::minifloat::F8E8M0, E::HiF8 => $crate::minifloat::HiF8)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_wrap_and_divide_toward_zero() {
        assert_eq!(i16::MAX.add(1), i16::MIN);
        assert_eq!((-7i32).div(2), Some(-3));
        assert_eq!(5u32.div(0), None);
        assert_eq!(Elem::abs(-5i8), 5);
        assert_eq!(Elem::abs(i8::MIN), i8::MIN);
    }

    #[test]
    fn half_rounds_once() {
        let a = f16::from_f32(1.0);
        let b = f16::from_f32(0.0004883); // about 2^-11: 1 + b rounds to even
        assert_eq!(a.add(b).to_f64(), 1.0);
        assert_eq!(f16::from_f64(3.0).via_f64(f64::sqrt).to_bits(), f16::from_f64(3f64.sqrt()).to_bits());
    }

    #[test]
    fn bits_round_trip() {
        for v in [0u64, 1, 0x7FFF, 0x8000, 0xFFFF] {
            assert_eq!(i16::from_raw_bits(v).raw_bits(), v);
        }
        assert_eq!((-1i32).raw_bits(), 0xFFFF_FFFF);
        assert_eq!(f32::from_bits(0x3F80_0000).to_f64(), 1.0);
    }
}
