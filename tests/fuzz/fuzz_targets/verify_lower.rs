//! `verify_lower`: bytes → reader → verifier → `verify --target` and the lowering pipeline
//! (legalize, insert-scratch, bufferize, plan-memory) for A2A3 and A5 → printed Level-3 text
//! parses again; A2A3 vector listing. Diagnostics are fine. See `pto_fuzz::verify_lower`.
#![no_main]
libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    pto_fuzz::verify_lower(bytes);
});
