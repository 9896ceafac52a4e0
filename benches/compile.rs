//! Benchmark of `pto compile` (issue 26): the N-repetition `tadd`/`tmax` kernel of the
//! foundation benchmark (N = 10,000: 20,000 tile ops) through the whole pipeline and the C++
//! emitter, in-process and as a whole `pto compile` process of the release binary.
//! Target: N = 10,000 under 0.5 s whole process (`ptoas`: 15.6 s on the same machine).
//! Run with `cargo bench --bench compile`.

use pto::workload::tadd_tmax_kernel;
use pto_ir::diag::FileId;
use pto_lower::{Target, TargetId};
use std::process::Command;

fn main() {
    divan::main();
}

#[divan::bench(args = [1_000, 10_000], sample_count = 10)]
fn compile_in_process(bencher: divan::Bencher, n: usize) {
    let text = tadd_tmax_kernel(n);
    let target = Target::get(TargetId::A2A3);
    bencher.bench(|| {
        let (module, _) = pto_asm::parse(divan::black_box(&text), FileId(0)).expect("parses");
        let verified = pto_ir::Verified::new(module).expect("verifies");
        let (lowered, _) = pto_lower::run(verified, target, Default::default()).expect("lowers");
        pto::compile::compile(&lowered, target).expect("compiles")
    });
}

/// The whole process: start-up, reading the file, lowering, emitting, writing the C++.
#[divan::bench(args = [10_000], sample_count = 10)]
fn compile_process(bencher: divan::Bencher, n: usize) {
    let dir = std::env::temp_dir().join(format!("pto-compile-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let input = dir.join(format!("tadd_tmax_{n}.pto"));
    std::fs::write(&input, tadd_tmax_kernel(n)).expect("writes the kernel");
    let output = dir.join("out.cpp");
    bencher.bench(|| {
        let status = Command::new(env!("CARGO_BIN_EXE_pto"))
            .args(["compile", "--pto-arch=a3", "-o"])
            .arg(&output)
            .arg(&input)
            .status()
            .expect("runs pto");
        assert!(status.success());
    });
}
