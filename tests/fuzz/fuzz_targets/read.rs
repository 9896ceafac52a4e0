//! `read`: bytes → the pto-asm reader → the printer (own and generic form) → the reader again.
//! Parse errors are fine; a printed module that does not parse again, or prints differently
//! the second time, is a crash. See `pto_fuzz::read`.
#![no_main]
libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    pto_fuzz::read(bytes);
});
