//! Profiling driver (not a divan benchmark): `prof_main N [compact]` generates the N-repetition
//! kernel, then parses and verifies it ten times and prints the fastest parse and verify times, so
//! `perf record` or `valgrind --tool=callgrind` can look at one size at a time.

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let compact = std::env::args().nth(2).is_some();
    let text = pto::workload::tadd_tmax_kernel_spelled(
        n,
        if compact { pto::workload::Spelling::Compact } else { pto::workload::Spelling::Legacy },
    );
    let rounds: usize = std::env::var("PROF_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    let (mut parse, mut verify) = (std::time::Duration::MAX, std::time::Duration::MAX);
    for _ in 0..rounds {
        let t0 = std::time::Instant::now();
        let (module, _) = pto_asm::parse(&text, pto_ir::FileId(0)).expect("parses");
        let t1 = std::time::Instant::now();
        let diags = pto_ir::verify::verify(&module);
        let t2 = std::time::Instant::now();
        assert!(!diags.has_errors());
        parse = parse.min(t1 - t0);
        verify = verify.min(t2 - t1);
    }
    eprintln!("bytes={} fastest of {rounds}: parse={parse:?} verify={verify:?}", text.len());
}
