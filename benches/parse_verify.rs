//! Benchmark of the foundation issue: parse + verify the generated Level-2 `tadd`/`tmax`
//! kernel (`pto::workload`) at N = 1,000, 10,000 and 50,000 repetitions, in both `tile_buf`
//! spellings. ptoas needs 0.8 s at N = 1,000 and 24.8 s at N = 10,000 for this kernel shape.
//! Targets: N = 10,000 under 100 ms; N = 50,000 within 5.5x of N = 10,000.
//! Run with `cargo bench --bench parse_verify`; figures are reported in docs/design.md.

use pto::workload::{Spelling, tadd_tmax_kernel_spelled};
use pto_ir::diag::FileId;

fn main() {
    divan::main();
}

fn run(bencher: divan::Bencher, n: usize, spelling: Spelling) {
    let text = tadd_tmax_kernel_spelled(n, spelling);
    bencher.counter(divan::counter::BytesCount::new(text.len())).bench(|| {
        let (module, _) = pto_asm::parse(divan::black_box(&text), FileId(0)).expect("the generated kernel parses");
        let diags = pto_ir::verify::verify(&module);
        assert!(!diags.has_errors());
        module
    });
}

/// Legacy keyed `tile_buf` spelling (as in PTOAS's samples; 8.5 MB at N = 10,000).
#[divan::bench(args = [1_000, 10_000, 50_000], sample_count = 20)]
fn parse_verify_legacy(bencher: divan::Bencher, n: usize) {
    run(bencher, n, Spelling::Legacy);
}

/// Compact `tile_buf` spelling (what PTOAS's printer and `pto fmt` emit; 2.6 MB at N = 10,000).
#[divan::bench(args = [1_000, 10_000, 50_000], sample_count = 20)]
fn parse_verify_compact(bencher: divan::Bencher, n: usize) {
    run(bencher, n, Spelling::Compact);
}
