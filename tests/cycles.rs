//! `pto run --cycles` (docs/performance-model.md): the timeline's totals on real kernels —
//! the total is at least each pipe's busy cycles, the `%cycles` JSON entry agrees with the
//! table, and the result does not depend on `--threads`.

use pto::TargetName;
use pto::cmd::run::{RunOptions, run};
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The `%cycles` entry of `pto run --cycles --json` on `file` (A2A3).
fn cycles(file: &str, threads: Option<usize>) -> serde_json::Value {
    cycles_on(file, threads, TargetName::A2A3)
}

/// The `%cycles` entry of `pto run --cycles --json --target target` on `file`.
fn cycles_on(file: &str, threads: Option<usize>, target: TargetName) -> serde_json::Value {
    let out = run(&RunOptions {
        default_inputs: true,
        cycles: true,
        json_cycles: true,
        quiet: true,
        threads,
        ..RunOptions::new(root().join(file).display().to_string(), target)
    });
    assert_eq!(out.code, 0, "{file}: {}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON on stdout");
    v["%cycles"].clone()
}

const KERNELS: &[&str] = &["examples/vadd.pto", "examples/softmax.as.pto", "tests/sync/cube_path.pto", "tests/sync/ping_pong.pto"];

#[test]
fn the_total_is_at_least_each_pipes_busy_cycles() {
    for file in KERNELS {
        let c = cycles(file, None);
        let total = c["total"].as_u64().expect("a total");
        assert!(total > 0, "{file}: something ran");
        let pipes = c["pipes"].as_object().expect("pipes");
        assert!(!pipes.is_empty());
        for (pipe, p) in pipes {
            let busy = p["busy"].as_u64().unwrap();
            assert!(total >= busy, "{file}: {pipe} busy {busy} > total {total}");
            let u = p["utilisation"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&u), "{file}: {pipe} utilisation {u}");
        }
    }
}

#[test]
fn a_load_compute_store_kernel_without_sync_runs_its_stages_in_data_order() {
    // vadd: two loads on MTE2, the add on V waits for both to arrive, the store on MTE3 for the
    // add: the total is each pipe's busy cycles (a transfer holds its pipe for its bytes) plus
    // the latency in flight of the last load and of the store, one after another, less the
    // cycle of the inserted MTE2 -> V `set_flag`, which passes while the loads are in flight (it
    // fires when they complete).
    let c = cycles("examples/vadd.pto", None);
    let busy = |p: &str| c["pipes"][p]["busy"].as_u64().unwrap();
    let latency = |p: pto_lower::cost::Path| p.constants().1 as u64;
    let in_flight = latency(pto_lower::cost::Path::GmToUb) + latency(pto_lower::cost::Path::UbToGm);
    let set = pto_lower::cost::SYNC_CYCLES as u64;
    assert_eq!(c["total"].as_u64().unwrap(), busy("PIPE_MTE2") + busy("PIPE_V") + busy("PIPE_MTE3") + in_flight - set);
}

#[test]
fn the_result_is_the_same_for_any_thread_count() {
    for file in KERNELS {
        assert_eq!(cycles(file, Some(1)), cycles(file, Some(2)), "{file}");
    }
}

#[test]
fn the_table_goes_to_stderr_without_json() {
    let out = run(&RunOptions {
        default_inputs: true,
        cycles: true,
        quiet: true,
        output_dir: Some(std::env::temp_dir().join("pto-cycles-test").display().to_string()),
        ..RunOptions::new(root().join("examples/vadd.pto").display().to_string(), TargetName::A2A3)
    });
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.starts_with("cycles: "), "{}", out.stderr);
    assert!(out.stderr.contains("PIPE_MTE2"), "{}", out.stderr);
    assert!(out.stderr.contains("critical path: "), "{}", out.stderr);
}

#[test]
fn the_critical_path_adds_up_to_the_total() {
    for file in KERNELS {
        let c = cycles(file, None);
        let path = &c["critical_path"];
        let ops = path["ops"].as_array().expect("ops on the path");
        assert!(!ops.is_empty(), "{file}");
        let sum: f64 = ops.iter().map(|o| o["cycles"].as_f64().unwrap()).sum();
        assert_eq!(sum.round() as u64, c["total"].as_u64().unwrap(), "{file}: each op on the path starts when the one before ends");
        assert!(ops.iter().all(|o| o["line"].as_str().is_some_and(|l| l.contains(".pto:")) && o["count"].as_u64() >= Some(1)), "{file}");
    }
    // vadd without sync: load, add, store in data order are the path.
    let c = cycles("examples/vadd.pto", None);
    let names: Vec<&str> = c["critical_path"]["ops"].as_array().unwrap().iter().map(|o| o["op"].as_str().unwrap()).collect();
    let pos = |n: &str| names.iter().position(|x| *x == n).unwrap_or_else(|| panic!("{n} on {names:?}"));
    assert!(pos("tload") < pos("tadd") && pos("tadd") < pos("tstore"), "{names:?}");
}

#[test]
fn a_run_of_several_blocks_is_timed_core_by_core() {
    // vadd on 2 blocks: each block's core has its own timeline; both compute the same, so
    // their totals are equal, and the run's total is theirs. (Both blocks store the same `c`,
    // a hazard between blocks: not checked here.)
    let out = run(&RunOptions {
        default_inputs: true,
        sync_check: pto::cmd::run::SyncCheck::Never,
        cycles: true,
        json_cycles: true,
        quiet: true,
        blocks: 2,
        ..RunOptions::new(root().join("examples/vadd.pto").display().to_string(), TargetName::A2A3)
    });
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let c = &v["%cycles"];
    let cores = c["cores"].as_object().expect("one entry per core");
    let names: Vec<&String> = cores.keys().collect();
    assert_eq!(names, ["rank 0 block 0 core", "rank 0 block 1 core"]);
    let one = cycles("examples/vadd.pto", None)["total"].as_u64().unwrap();
    assert!(cores.values().all(|b| b["total"].as_u64() == Some(one)), "{c}");
    assert_eq!(c["total"].as_u64(), Some(one));
}

#[test]
fn a5_times_its_vector_ops_with_pto_isas_a5_formulas() {
    // vadd's one tadd (32 x 32 f32, the valid region one line of 16 repeats) is the vector
    // pipe's only work: on A5 its busy cycles are the A5 formula's curve for it, on A2A3 the
    // A2A3 model's.
    let q = pto_lower::cost_a5::VfQuery {
        opcode: pto_ir::Opcode::TAdd,
        src: "f32",
        dst: "f32",
        rows: 32,
        cols: 32,
        valid_rows: 32,
        valid_cols: 32,
        vf_impl: Default::default(),
        op_params: None,
    };
    let formula = pto_lower::cost_a5::vf_cycles(&q).expect("tadd has an A5 curve");
    assert_eq!(formula, (1.2469671f64 * 16.0 + 55.073657).round(), "the 1D post-update curve of TADD fp32");
    // The tadd's complete event in the trace carries its modelled cycles.
    let tadd_cycles = |target: TargetName| {
        let file = std::env::temp_dir().join(format!("pto-cycles-a5-{}-{target:?}.json", std::process::id()));
        let out = run(&RunOptions {
            default_inputs: true,
            quiet: true,
            timeline: Some(file.display().to_string()),
            ..RunOptions::new(root().join("examples/vadd.pto").display().to_string(), target)
        });
        assert_eq!(out.code, 0, "{}", out.stderr);
        let trace: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let _ = std::fs::remove_file(&file);
        let events = trace["traceEvents"].as_array().unwrap().clone();
        let tadd = events.iter().find(|e| e["ph"] == "X" && e["name"] == "tadd").expect("the tadd ran").clone();
        tadd["args"]["cycles"].as_f64().unwrap()
    };
    let v = |target| tadd_cycles(target) as u64;
    assert_eq!(v(TargetName::A5), formula as u64);
    assert_ne!(v(TargetName::A2A3), formula as u64, "A2A3 keeps its own model");
}

#[test]
fn the_pto_isa_cost_model_takes_its_lightweight_formulas_on_a2a3() {
    // vadd with its tadd a tmul: the formula table has a line for TMUL f32 at 32 columns
    // (0.0625 · 32 · 32 + 43 = 107), and the transfers go at the table's bandwidth figures
    // as pto-isa divides by them (4,096 bytes / 100.9 · 1,850 for the loads).
    let text = std::fs::read_to_string(root().join("examples/vadd.pto")).unwrap();
    let dir = std::env::temp_dir().join(format!("pto-cost-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (vmul, trace_file) = (dir.join("vmul.pto"), dir.join("trace.json"));
    std::fs::write(&vmul, text.replace("pto.tadd ins", "pto.tmul ins")).unwrap();
    let event_cycles = |file: &Path, model| {
        let out = run(&RunOptions {
            default_inputs: true,
            quiet: true,
            cycles: true,
            timeline: Some(trace_file.display().to_string()),
            cost_model: model,
            ..RunOptions::new(file.display().to_string(), TargetName::A2A3)
        });
        assert_eq!(out.code, 0, "{}", out.stderr);
        let trace: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&trace_file).unwrap()).unwrap();
        let cycles = |name: &str| {
            let events = trace["traceEvents"].as_array().unwrap();
            events.iter().find(|e| e["ph"] == "X" && e["name"] == name).map(|e| e["args"]["cycles"].as_f64().unwrap())
        };
        (cycles("tmul").or(cycles("tadd")).unwrap(), cycles("tload").unwrap(), out.stderr)
    };
    use pto_sim::timeline::CostModel;
    let (mul, load, stderr) = event_cycles(&vmul, CostModel::PtoIsa);
    assert_eq!(mul, 107.0);
    assert!((load - 4096.0 / 100.9 * 1850.0).abs() < 1.0, "tload {load}");
    assert!(!stderr.contains("no formula"), "every op of it has one: {stderr}");
    let (pto_mul, pto_load, _) = event_cycles(&vmul, CostModel::Pto);
    assert!(pto_mul != mul && pto_load < load / 10.0, "pto's own model differs: {pto_mul}, {pto_load}");
    // tadd has no line in the table: pto's model times it, and the run says so.
    let (add, _, stderr) = event_cycles(&root().join("examples/vadd.pto"), CostModel::PtoIsa);
    let (pto_add, _, _) = event_cycles(&root().join("examples/vadd.pto"), CostModel::Pto);
    assert_eq!(add, pto_add);
    assert!(stderr.contains("note: pto-isa's lightweight model has no formula for tadd (1 run); pto's model timed it"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
