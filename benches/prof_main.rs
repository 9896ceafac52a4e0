fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let compact = std::env::args().nth(2).is_some();
    let text = pto::workload::tadd_tmax_kernel_spelled(
        n,
        if compact { pto::workload::Spelling::Compact } else { pto::workload::Spelling::Legacy },
    );
    let g0 = std::time::Instant::now();
    assert!(pto_asm::check_syntax(&text).is_ok());
    eprintln!("reader only: {:?}", g0.elapsed());
    let t0 = std::time::Instant::now();
    let tree = pto_asm::parse(&text, pto_ir::FileId(0)).expect("parses");
    let t1 = std::time::Instant::now();
    let d = pto_ir::verify::verify(&tree.0);
    let t2 = std::time::Instant::now();
    eprintln!("bytes={} parse={:?} verify={:?} errors={}", text.len(), t1 - t0, t2 - t1, d.has_errors());
}
