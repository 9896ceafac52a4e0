//! Benchmark of the foundation issue: parse + verify the generated Level-2 `tadd`/`tmax`
//! kernel (`pto::workload::tadd_tmax_kernel`) at N = 1,000, 10,000 and 50,000 repetitions.
//! ptoas needs 0.8 s at N = 1,000 and 24.8 s at N = 10,000 for the same kernel shape.
//! Run with `cargo bench --bench parse_verify`.

use pto_ir::diag::FileId;

fn main() {
    divan::main();
}

#[divan::bench(args = [1_000, 10_000, 50_000], sample_count = 10)]
fn parse_and_verify(bencher: divan::Bencher, n: usize) {
    let text = pto::workload::tadd_tmax_kernel(n);
    bencher.counter(divan::counter::BytesCount::new(text.len())).bench(|| {
        let (module, _) = pto_asm::parse(divan::black_box(&text), FileId(0)).expect("the generated kernel parses");
        let diags = pto_ir::verify::verify(&module);
        assert!(!diags.has_errors());
        module
    });
}

#[divan::bench(args = [10_000], sample_count = 10)]
fn parse_only(bencher: divan::Bencher, n: usize) {
    let text = pto::workload::tadd_tmax_kernel(n);
    bencher.bench(|| pto_asm::parse(divan::black_box(&text), FileId(0)).expect("parses"));
}
