//! Cost of the timeline (issue 25, acceptance 5): `pto run --timeline OUT.json` (the cycle model
//! scheduling every op, then the Chrome trace written) against the same run without it, on the
//! 1,000-op program of `benches/sim.rs` (`pto::workload::mixed_vec_program`) and on the largest
//! shared sample that runs to the end (`Qwen3DecodeA3/qwen3_decode_incore_4.pto`); target within
//! 1.3x. Both runs use `--sync-check=never`, so the figure is the timeline's own cost (with
//! `--timeline` a program without sync ops is lowered with the insert-sync pass too, which is
//! part of it). Run with `cargo bench --bench timeline`; figures in docs/performance-model.md.

use pto::TargetName;
use pto::cmd::run::{RunOptions, SyncCheck, run};

fn main() {
    divan::main();
}

/// `NAME.pto` in the temp directory holding `text`.
fn write_temp(name: &str, text: &str) -> String {
    let path = std::env::temp_dir().join(format!("pto-bench-timeline-{}-{name}.pto", std::process::id()));
    std::fs::write(&path, text).expect("temp file");
    path.display().to_string()
}

#[divan::bench(args = ["1000ops/off", "1000ops/cycles", "1000ops/on", "qwen3_4/off", "qwen3_4/on"], sample_count = 20)]
fn run_with_timeline(bencher: divan::Bencher, case: &str) {
    let (sample, timeline) = case.split_once('/').unwrap();
    let path = match sample {
        "1000ops" => write_temp("1000ops", &pto::workload::mixed_vec_program(1000, true)),
        _ => std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/corpus/ptoas-samples/Qwen3DecodeA3/qwen3_decode_incore_4.pto")
            .display()
            .to_string(),
    };
    let trace = std::env::temp_dir().join(format!("pto-bench-timeline-{}.json", std::process::id()));
    let opts = RunOptions {
        default_inputs: true,
        sync_check: SyncCheck::Never,
        timeline: (timeline == "on").then(|| trace.display().to_string()),
        // The model without the trace: what the timeline observer costs alone.
        cycles: timeline == "cycles",
        ..RunOptions::new(path, TargetName::A2A3)
    };
    bencher.bench(|| {
        let out = run(&opts);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out
    });
}
