//! `run`: bytes → reader → verifier → lowering → the simulator with default inputs, a budget
//! of `pto_fuzz::MAX_STEPS` ops and GM arrays of at most `pto_fuzz::MAX_GM_BYTES` (tile level;
//! on A2A3 also `--exec vector`). Diagnostics and traps are fine. See `pto_fuzz::run`.
#![no_main]
libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    pto_fuzz::run(bytes);
});
