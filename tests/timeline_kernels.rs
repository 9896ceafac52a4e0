//! Whole kernels on the timeline (issue 25, acceptance 2; docs/performance-model.md): the #1569
//! workload (examples/rowadd_1569: y = (x + z) + 1 over 64 rows of 1024 f32, three UB slots) with
//! hand-written sync, with the two PIPE_ALL barriers a row ptoas fell back to, and without sync (timed with the sync the
//! insertion pass inserts); the #233-like dynamic kernel with inserted and hand-written sync; and
//! double-buffered load/compute kernels, whose MTE2 lane overlaps their V lane.

use pto::TargetName;
use pto::cmd::run::{RunOptions, run};
use serde_json::Value;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `pto run --cycles --json --timeline` on `file`: the `%cycles` entry and the trace.
fn timed(file: &str) -> (Value, Value, String) {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out_file = std::env::temp_dir().join(format!("pto-kernels-{}-{n}-{}.json", std::process::id(), file.replace('/', "_")));
    let out = run(&RunOptions {
        default_inputs: true,
        cycles: true,
        json_cycles: true,
        timeline: Some(out_file.display().to_string()),
        ..RunOptions::new(root().join(file).display().to_string(), TargetName::A2A3)
    });
    assert_eq!(out.code, 0, "{file}: {}", out.stderr);
    let trace = serde_json::from_str(&std::fs::read_to_string(&out_file).unwrap()).unwrap();
    let _ = std::fs::remove_file(&out_file);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    (v["%cycles"].clone(), trace, out.stderr)
}

fn total(c: &Value) -> u64 {
    c["total"].as_u64().unwrap()
}

/// The intervals a thread (by its Perf-Sim name) is at work, merged: each op from its start
/// to its completion (a transfer is at work while in flight, after it has left its pipe free:
/// its box's `dur` is its occupancy, `args.cycles` its time to completion), of the ops `keep`
/// selects.
fn lane_of(trace: &Value, track: &str, keep: impl Fn(&Value) -> bool) -> Vec<(f64, f64)> {
    let events = trace["traceEvents"].as_array().unwrap();
    let tid = events.iter().find(|e| e["name"] == "thread_name" && e["args"]["name"] == track).map(|e| e["tid"].clone());
    let mut spans: Vec<(f64, f64)> = events
        .iter()
        .filter(|e| e["ph"] == "X" && Some(&e["tid"]) == tid.as_ref() && keep(e))
        .map(|e| {
            let ts = e["ts"].as_f64().unwrap();
            (ts, ts + e["dur"].as_f64().unwrap().max(e["args"]["cycles"].as_f64().unwrap()))
        })
        .collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut merged: Vec<(f64, f64)> = Vec::new();
    for (s, e) in spans {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged
}

fn lane(trace: &Value, track: &str) -> Vec<(f64, f64)> {
    lane_of(trace, track, |_| true)
}

fn length(spans: &[(f64, f64)]) -> f64 {
    spans.iter().map(|(s, e)| e - s).sum()
}

/// Cycles both lanes are busy.
fn overlap(a: &[(f64, f64)], b: &[(f64, f64)]) -> f64 {
    let mut sum = 0.0;
    for &(s1, e1) in a {
        for &(s2, e2) in b {
            sum += (e1.min(e2) - s1.max(s2)).max(0.0);
        }
    }
    sum
}

const HAND: &str = "examples/rowadd_1569/hand.pto";
const PIPE_ALL: &str = "examples/rowadd_1569/pipe_all.pto";
const NOSYNC: &str = "examples/rowadd_1569/nosync.pto";

#[test]
fn the_1569_workload_is_slower_with_pipe_all_barriers_than_with_hand_sync() {
    let (hand, _, _) = timed(HAND);
    let (pipe_all, _, _) = timed(PIPE_ALL);
    let (inserted, inserted_trace, stderr) = timed(NOSYNC);
    let ratio = total(&pipe_all) as f64 / total(&hand) as f64;
    eprintln!(
        "#1569: hand {} cycles, PIPE_ALL {} ({ratio:.2}x), inserted sync {} (ptoas's report: 18,831 vs 74,909, 3.98x)",
        total(&hand),
        total(&pipe_all),
        total(&inserted)
    );
    assert!(!stderr.contains("insert-sync pass failed"), "{stderr}");
    // What the model gives (docs/performance-model.md, "Whole kernels"): the barriers serialise
    // each row's x load, z load and store, each with its DMA latency, and the adds between them;
    // the hand version overlaps them, within 20 % of the 18,831 cycles ptoas's report measured
    // for it (acceptance 2, >= 3x: the test below).
    assert!(ratio > 1.2, "PIPE_ALL {ratio:.2}x the hand version");
    let measured = 18_831.0;
    assert!((total(&hand) as f64 - measured).abs() / measured < 0.2, "hand {} vs 18,831 measured", total(&hand));
    // Without sync ops the run is timed with the inserted sync: its waits are on the timeline.
    let waits = inserted_trace["traceEvents"].as_array().unwrap().iter().filter(|e| e["name"] == "wait_flag").count();
    assert!(waits > 64, "{waits} inserted waits timed");
}

/// Issue 24, acceptance 3: the #1569 workload without sync, timed with the sync the insertion
/// pass inserts (a loop-carried MTE3 -> MTE2 pair per slot, so the next loads of a slot wait
/// only for its own store), within 5 % of the hand-synchronised version's cycles.
#[test]
fn the_1569_workload_with_inserted_sync_is_within_five_percent_of_the_hand_version() {
    let (hand, _, _) = timed(HAND);
    let (inserted, _, stderr) = timed(NOSYNC);
    assert!(!stderr.contains("insert-sync pass failed"), "{stderr}");
    let over = total(&inserted) as f64 / total(&hand) as f64 - 1.0;
    eprintln!("#1569: inserted sync {} cycles, hand {} ({:+.1} %)", total(&inserted), total(&hand), 100.0 * over);
    assert!(over <= 0.05, "inserted {} vs hand {}: {:+.1} %", total(&inserted), total(&hand), 100.0 * over);
}

/// Issue 25, acceptance 2: with ptoas's two PIPE_ALL barriers a row the workload takes at
/// least three times the cycles of its hand-synchronised version (ptoas's report: 74,909 vs
/// 18,831, 3.98x).
#[test]
fn the_1569_workload_with_pipe_all_takes_three_times_the_hand_version() {
    let (hand, _, _) = timed(HAND);
    let (pipe_all, _, _) = timed(PIPE_ALL);
    assert!(total(&pipe_all) >= 3 * total(&hand), "PIPE_ALL {} vs hand {}", total(&pipe_all), total(&hand));
}

#[test]
fn double_buffered_loads_overlap_the_vector_unit() {
    for file in [HAND, "tests/sync/ping_pong.pto"] {
        let (_, trace, _) = timed(file);
        let (mte2, v) = (lane(&trace, "MTE2"), lane(&trace, "VEC"));
        let shorter = length(&mte2).min(length(&v));
        let both = overlap(&mte2, &v);
        assert!(shorter > 0.0, "{file}");
        assert!(both > 0.5 * shorter, "{file}: MTE2 and V overlap {both:.0} of the shorter lane's {shorter:.0} cycles");
    }
    // With ptoas's PIPE_ALL barriers the vector unit never works while a row's x load is in
    // flight (the barrier before the z load waits for it); only the `tadd` runs beside the z
    // load, after that barrier.
    let (_, trace, _) = timed(PIPE_ALL);
    let x_loads = lane_of(&trace, "MTE2", |e| e["args"]["op"].as_str().is_some_and(|op| op.contains("ins(%px")));
    assert!(!x_loads.is_empty());
    assert_eq!(overlap(&x_loads, &lane(&trace, "VEC")), 0.0);
}

/// Issue 24, acceptance 3 for the #233-like kernel (examples/insert_sync/dyn_vector.pto, a
/// double-buffered loop with a dynamic trip count): timed with the sync the insertion pass
/// inserts, within 5 % of its hand-synchronised twin's cycles on both targets (8 trips).
#[test]
fn the_dynamic_double_buffered_kernel_with_inserted_sync_is_within_five_percent_of_the_hand_version() {
    let cycles = |file: &str, target: TargetName| {
        let out = run(&RunOptions {
            default_inputs: true,
            inputs: vec!["n=8".into()],
            cycles: true,
            json_cycles: true,
            ..RunOptions::new(root().join(file).display().to_string(), target)
        });
        assert_eq!(out.code, 0, "{file}: {}", out.stderr);
        let v: Value = serde_json::from_str(&out.stdout).unwrap();
        total(&v["%cycles"])
    };
    for target in [TargetName::A2A3, TargetName::A5] {
        let hand = cycles("examples/insert_sync/dyn_vector_hand.pto", target);
        let inserted = cycles("examples/insert_sync/dyn_vector.pto", target);
        let over = inserted as f64 / hand as f64 - 1.0;
        eprintln!("#233-like on {target:?}: inserted sync {inserted} cycles, hand {hand} ({:+.1} %)", 100.0 * over);
        // Eight trips of a 16x64 exp/mul/add: far more than the 10-cycle run of zero trips.
        assert!(hand > 1000, "{target:?}: the hand version takes {hand} cycles");
        assert!(over <= 0.05, "{target:?}: inserted {inserted} vs hand {hand}: {:+.1} %", 100.0 * over);
    }
}
