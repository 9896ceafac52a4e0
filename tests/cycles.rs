//! `pto run --cycles` (docs/performance-model.md): the timeline's totals on real kernels —
//! the total is at least each pipe's busy cycles, the `%cycles` JSON entry agrees with the
//! table, and the result does not depend on `--threads`.

use pto::TargetName;
use pto::cmd::run::{RunOptions, run};
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The `%cycles` entry of `pto run --cycles --json` on `file`.
fn cycles(file: &str, threads: Option<usize>) -> serde_json::Value {
    let out = run(&RunOptions {
        default_inputs: true,
        cycles: true,
        json_cycles: true,
        quiet: true,
        threads,
        ..RunOptions::new(root().join(file).display().to_string(), TargetName::A2A3)
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
    // the latency in flight of the last load and of the store, one after another.
    let c = cycles("examples/vadd.pto", None);
    let busy = |p: &str| c["pipes"][p]["busy"].as_u64().unwrap();
    let latency = |p: pto_lower::cost::Path| p.constants().1 as u64;
    let in_flight = latency(pto_lower::cost::Path::GmToUb) + latency(pto_lower::cost::Path::UbToGm);
    assert_eq!(c["total"].as_u64().unwrap(), busy("PIPE_MTE2") + busy("PIPE_V") + busy("PIPE_MTE3") + in_flight);
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
fn timing_a_run_of_several_cores_is_a_usage_error_not_a_silent_omission() {
    let file = root().join("examples/vadd.pto").display().to_string();
    for timeline in [None, Some(std::env::temp_dir().join("pto-cycles-blocks.json").display().to_string())] {
        let cycles = timeline.is_none();
        let out = run(&RunOptions { default_inputs: true, cycles, timeline, blocks: 2, ..RunOptions::new(file.clone(), TargetName::A2A3) });
        assert_eq!(out.code, 2, "{}", out.stderr);
        assert!(out.stderr.contains("`--cycles` and `--timeline` time one core"), "{}", out.stderr);
        assert!(out.stdout.is_empty(), "nothing ran: {}", out.stdout);
    }
}
