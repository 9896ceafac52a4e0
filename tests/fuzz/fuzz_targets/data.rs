//! `data`: a dtype name on the first line, then bytes → the `.npy` reader and the JSON tile
//! reader for a tile of that type; what reads must round-trip through `.npy` and JSON output.
//! Errors are fine. See `pto_fuzz::data`.
#![no_main]
libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    pto_fuzz::data(bytes);
});
