//! Benchmark of the lowering issue: the whole pipeline (parse -> verify -> legalize ->
//! insert-scratch -> bufferize -> plan-memory, re-verifying after every pass) on the
//! N-repetition `tadd`/`tmax` kernel of the foundation benchmark. ptoas: 24.8 s at N = 10,000.
//! Target: N = 10,000 under 200 ms, linear in N. Run with `cargo bench --bench lower_pipeline`.

use pto::workload::{Spelling, softmax_chain, tadd_tmax_kernel_spelled};
use pto_ir::diag::FileId;
use pto_lower::{Target, TargetId};

fn main() {
    divan::main();
}

#[divan::bench(args = [1_000, 10_000, 50_000], sample_count = 20)]
fn pipeline_a2a3(bencher: divan::Bencher, n: usize) {
    let text = tadd_tmax_kernel_spelled(n, Spelling::Legacy);
    bencher.bench(|| {
        let (module, _) = pto_asm::parse(divan::black_box(&text), FileId(0)).expect("parses");
        let verified = pto_ir::Verified::new(module).expect("verifies");
        pto_lower::run(verified, Target::get(TargetId::A2A3), Default::default()).expect("lowers")
    });
}

/// A Level-1 program of N chained row softmaxes (5N ops, 2N scratch tiles on A2A3): every
/// pass has work proportional to N, so the cost must stay linear.
#[divan::bench(args = [1_000, 4_000, 16_000], sample_count = 10)]
fn softmax_chain_a2a3(bencher: divan::Bencher, n: usize) {
    let text = softmax_chain(n);
    bencher.bench(|| {
        let (module, _) = pto_asm::parse(divan::black_box(&text), FileId(0)).expect("parses");
        let verified = pto_ir::Verified::new(module).expect("verifies");
        pto_lower::run(verified, Target::get(TargetId::A2A3), Default::default()).expect("lowers")
    });
}
