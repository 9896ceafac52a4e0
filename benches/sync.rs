//! Cost of sync checking (issue 15, acceptance 4): `pto verify --sync` on the N = 10,000
//! `tadd`/`tmax` benchmark kernel (`pto::workload`) must stay under 200 ms; `pto run` with
//! checking on must be within 1.5x of `--no-sync-check` on the largest shared sample (the
//! 1,000-op program is in `benches/sim.rs`). Run with `cargo bench --bench sync`; figures are
//! in docs/design.md (Performance) and docs/sync.md (Cost). `insert_sync_10000`: issue 24, insertion
//! plus its proof on the same kernel, target 300 ms.

use pto::ErrorFormat;
use pto::TargetName;
use pto::cmd::run::{RunOptions, SyncCheck, run};
use pto::cmd::verify::{VerifyOptions, run_with_sync};
use pto::workload::{Spelling, tadd_tmax_kernel_spelled};

fn main() {
    divan::main();
}

/// The benchmark kernel; `with_sync` orders it explicitly (a MTE2 -> V flag after the loads,
/// `barrier <PIPE_V>` after every vector op, a V -> MTE3 flag before the store), so that the
/// static check runs over all of it instead of stopping at "no sync op".
fn kernel(n: usize, with_sync: bool) -> String {
    let text = tadd_tmax_kernel_spelled(n, Spelling::Compact);
    if !with_sync {
        return text;
    }
    let mut out = String::with_capacity(text.len() * 2);
    let mut loads = 0;
    for line in text.lines() {
        if line.contains("pto.tstore") {
            out.push_str("    pto.set_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID0>]\n    pto.wait_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID0>]\n");
        }
        out.push_str(line);
        out.push('\n');
        if line.contains("pto.tload") {
            loads += 1;
            if loads == 2 {
                out.push_str(
                    "    pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]\n    pto.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]\n",
                );
            }
        }
        if line.contains("pto.tadd") || line.contains("pto.tmax") {
            out.push_str("    pto.barrier <PIPE_V>\n");
        }
    }
    out
}

fn write_temp(name: &str, text: &str) -> String {
    let path = std::env::temp_dir().join(format!("pto-bench-sync-{}-{name}.pto", std::process::id()));
    std::fs::write(&path, text).expect("temp file");
    path.display().to_string()
}

/// `pto verify --target a2a3 --sync` of the N = 10,000 kernel as generated (no sync op: the
/// check stops after lowering with a note) and with explicit sync (one path, checked).
#[divan::bench(args = ["as-generated", "with-sync"], sample_count = 10)]
fn verify_sync_10000(bencher: divan::Bencher, case: &str) {
    let path = write_temp(case, &kernel(10_000, case == "with-sync"));
    let opts = VerifyOptions {
        input: path.clone(),
        target: Some(TargetName::A2A3),
        explain: false,
        error_format: ErrorFormat::Human,
        ..Default::default()
    };
    bencher.bench(|| {
        let out = run_with_sync(&opts);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out
    });
    let _ = std::fs::remove_file(path);
}

/// The shared sample `pto run` timings use: the largest that runs to the end
/// (`Qwen3DecodeA3/qwen3_decode_incore_4.pto`, no sync op: checked with `--sync-check=always`,
/// which reports the 50 first hazards an insertion pass must order), and the largest with
/// explicit sync (`Sync/rmsnorm_incore_0.pto`, checked by default, no report).
#[divan::bench(args = ["qwen3_4/off", "qwen3_4/on", "rmsnorm/off", "rmsnorm/on"], sample_count = 20)]
fn run_largest_sample(bencher: divan::Bencher, case: &str) {
    let (sample, check) = case.split_once('/').unwrap();
    let file = match sample {
        "qwen3_4" => "Qwen3DecodeA3/qwen3_decode_incore_4.pto",
        _ => "Sync/rmsnorm_incore_0.pto",
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/ptoas-samples");
    let path = root.join(file).display().to_string();
    let sync_check = if check == "on" { SyncCheck::Always } else { SyncCheck::Never };
    let opts = RunOptions { default_inputs: true, sync_check, ..RunOptions::new(path, TargetName::A2A3) };
    bencher.bench(|| {
        let out = run(&opts);
        assert!(out.stdout.starts_with('{'), "{}", out.stderr);
        out
    });
}

/// Issue 23, acceptance 4: checking a 4-block mix kernel (`pto run --blocks 4`: the orders
/// between its cores and blocks under `auto`, the pipes too under `always`) against
/// `--sync-check=never`; target within 1.5x. `mix_blocks` is tests/hb/mix_blocks_c2v.pto (A5), a
/// cube -> vector pipe in each block on its own rows: a correct 4-block kernel, so the checked
/// runs time checking, not the rendering of findings. `test4` (the shared TPushTPop sample, A5,
/// run with the sync `--insert-sync` gives it) and `gm_slot_loop` (the looping GM-slot pipe
/// kernel of tests/hb, A2A3) are written for one block: on 4 their blocks write the same bytes,
/// and the checked runs also render those hazards.
#[divan::bench(
    args = ["mix_blocks/never", "mix_blocks/auto", "mix_blocks/always", "test4/never", "test4/auto", "test4/always", "gm_slot_loop/never", "gm_slot_loop/auto", "gm_slot_loop/always"],
    sample_count = 20
)]
fn run_mix_kernel_on_4_blocks(bencher: divan::Bencher, case: &str) {
    let (kernel, check) = case.split_once('/').unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let (path, target) = match kernel {
        "test4" => (root.join("../shared/corpus/ptoas-samples/TPushTPop/test4/kernel.pto"), TargetName::A5),
        "mix_blocks" => (root.join("tests/hb/mix_blocks_c2v.pto"), TargetName::A5),
        _ => (root.join("tests/hb/gm_slot_loop.pto"), TargetName::A2A3),
    };
    let sync_check = match check {
        "never" => SyncCheck::Never,
        "auto" => SyncCheck::Auto,
        _ => SyncCheck::Always,
    };
    let opts = RunOptions {
        default_inputs: true,
        sync_check,
        blocks: 4,
        insert_sync: kernel == "test4",
        ..RunOptions::new(path.display().to_string(), target)
    };
    bencher.bench(|| {
        let out = run(&opts);
        assert!(out.stdout.starts_with('{'), "{}", out.stderr);
        assert!(kernel != "mix_blocks" || !out.stderr.contains("error["), "{}", out.stderr);
        out
    });
}

/// Issue 24, acceptance 5: `pto lower --target a2a3 --insert-sync` of the N = 10,000 kernel
/// as generated (no sync op): insertion (20,000 vector ops, a per-pipe barrier between each
/// dependent pair, two flag pairs) plus its proof (`pto verify --sync` on the output). Target:
/// under 300 ms for the whole process with the release binary (docs/sync.md gives both).
#[divan::bench(sample_count = 10)]
fn insert_sync_10000(bencher: divan::Bencher) {
    use pto::cmd::lower::LowerOptions;
    let path = write_temp("insert", &kernel(10_000, false));
    let opts = LowerOptions { insert_sync: true, ..LowerOptions::new(path.clone(), TargetName::A2A3) };
    bencher.bench(|| {
        let out = pto::cmd::lower::run(&opts);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out
    });
    let _ = std::fs::remove_file(path);
}
