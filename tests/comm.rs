//! Ranks and the communication instructions (docs/comm.md): every `comm.*` instruction and
//! the async DMA forms with `--ranks 1` and `--ranks 4`, against references computed here
//! (what numpy computes: copies, `sum`/`max`/`min` over the rank axis, `concatenate`,
//! `split`), signals with `tnotify` / `twait` / `ttest`, and a `twait` that never holds.

mod common;

use common::kernel::{input_args, number, scratch_dir};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Command;

fn kernel(name: &str) -> PathBuf {
    common::root().join("tests/comm").join(format!("{name}.pto"))
}

/// `pto run --json --ranks N` with `args`; (exit code, stdout JSON or Null, stderr).
fn run(name: &str, ranks: u32, args: &[String]) -> (i32, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pto"))
        .args(["run", "--json", "--target", "a2a3", "--ranks", &ranks.to_string()])
        .args(args)
        .arg(kernel(name))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), json, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Runs and expects success; the outputs.
fn ok(name: &str, ranks: u32, args: &[String]) -> Value {
    let (code, json, stderr) = run(name, ranks, args);
    assert_eq!(code, 0, "{name} --ranks {ranks}: {stderr}");
    json
}

fn data(v: &Value, name: &str) -> Vec<f64> {
    v[name]["data"].as_array().unwrap_or_else(|| panic!("no output `{name}` in {v}")).iter().map(number).collect()
}

/// Distinct small values per (rank, argument), exact in f32.
fn values(n: usize, rank: usize, salt: usize) -> Vec<f64> {
    (0..n).map(|i| ((i * 7 + rank * 5 + salt * 3) % 13) as f64 - 6.0 + rank as f64 / 4.0).collect()
}

fn f32s(rows: usize, cols: usize, d: &[f64]) -> Value {
    json!({"dtype": "f32", "shape": [rows, cols], "data": d})
}

/// `-i` arguments binding `inputs` (names may carry `@RANK`).
fn inputs(test: &str, inputs: &[(String, Value)]) -> Vec<String> {
    let dir = scratch_dir("comm", test);
    let named: Vec<(&str, Value)> = inputs.iter().map(|(n, v)| (n.as_str(), v.clone())).collect();
    input_args(&dir, &named).into_iter().flat_map(|a| ["-i".to_string(), a]).collect()
}

/// Rank `r`'s name of output `name` in a run of `ranks` ranks.
fn at(name: &str, r: usize, ranks: u32) -> String {
    if ranks == 1 { name.to_string() } else { format!("{name}@{r}") }
}

/// Per-rank `x@r` inputs of 2x8 values, and the values.
fn per_rank(arg: &str, ranks: u32, rows: usize, salt: usize) -> (Vec<(String, Value)>, Vec<Vec<f64>>) {
    let vals: Vec<Vec<f64>> = (0..ranks as usize).map(|r| values(rows * 8, r, salt)).collect();
    let ins = vals.iter().enumerate().map(|(r, v)| (format!("{arg}@{r}"), f32s(rows, 8, v))).collect();
    (ins, vals)
}

/// `rank@r=r` and `root=ROOT` for the collectives.
fn rank_args(ranks: u32, root: u32) -> Vec<(String, Value)> {
    let mut v: Vec<(String, Value)> = (0..ranks).map(|r| (format!("rank@{r}"), json!(r))).collect();
    v.push(("root".into(), json!(root)));
    v
}

#[test]
fn tput_moves_each_rank_src_to_its_peer_dst() {
    for ranks in [1u32, 4] {
        let (mut ins, src) = per_rank("src", ranks, 2, 1);
        let (dst_ins, _) = per_rank("dst", ranks, 2, 9);
        ins.extend(dst_ins);
        let mut args = inputs(&format!("put{ranks}"), &ins);
        args.extend(["--peer".into(), "dst=next".into()]);
        let out = ok("put", ranks, &args);
        for r in 0..ranks as usize {
            let from = (r + ranks as usize - 1) % ranks as usize;
            assert_eq!(data(&out, &at("dst", r, ranks)), src[from], "rank {r} of {ranks}");
        }
    }
}

#[test]
fn tput_atomic_add_sums_every_rank_into_one() {
    for ranks in [1u32, 4] {
        let (mut ins, src) = per_rank("src", ranks, 2, 2);
        let init = values(16, 7, 7);
        ins.push(("dst".into(), f32s(2, 8, &init)));
        let mut args = inputs(&format!("put_add{ranks}"), &ins);
        args.extend(["--peer".into(), "dst=0".into()]);
        let out = ok("put_add", ranks, &args);
        // numpy: init + src.sum(axis=0) on rank 0; the others keep their init.
        let expect: Vec<f64> = (0..16).map(|i| init[i] + src.iter().map(|s| s[i]).sum::<f64>()).collect();
        assert_eq!(data(&out, &at("dst", 0, ranks)), expect, "--ranks {ranks}");
        if ranks == 4 {
            assert!(out.get("dst@1").is_none(), "rank 1's dst was not written: {out}");
        }
    }
}

#[test]
fn tget_reads_the_peer_src() {
    for ranks in [1u32, 4] {
        let (ins, src) = per_rank("src", ranks, 2, 3);
        let mut args = inputs(&format!("get{ranks}"), &ins);
        args.extend(["--peer".into(), "src=prev".into()]);
        let out = ok("get", ranks, &args);
        for r in 0..ranks as usize {
            let from = (r + ranks as usize - 1) % ranks as usize;
            assert_eq!(data(&out, &at("dst", r, ranks)), src[from], "rank {r} of {ranks}");
        }
    }
}

#[test]
fn async_put_and_get_complete_and_move_the_data() {
    for ranks in [1u32, 4] {
        let vals: Vec<Vec<f64>> = (0..ranks as usize).map(|r| values(16, r, 4)).collect();
        let ins: Vec<(String, Value)> = vals.iter().enumerate().map(|(r, v)| (format!("src@{r}"), f32s(1, 16, v))).collect();
        let mut args = inputs(&format!("async{ranks}"), &ins);
        args.extend(["--peer", "dst=next", "--peer", "src=next"].map(String::from));
        let out = ok("async", ranks, &args);
        let n = ranks as usize;
        for r in 0..n {
            assert_eq!(data(&out, &at("dst", r, ranks)), vals[(r + n - 1) % n], "dst rank {r} of {ranks}");
            assert_eq!(data(&out, &at("back", r, ranks)), vals[(r + 1) % n], "back rank {r} of {ranks}");
        }
    }
}

#[test]
fn tbroadcast_writes_the_root_src_to_every_member() {
    // One rank: every member is the local buffer.
    let src = values(16, 0, 5);
    let mut ins = rank_args(1, 0);
    ins.push(("src".into(), f32s(2, 8, &src)));
    let out = ok("broadcast", 1, &inputs("broadcast1", &ins));
    assert_eq!(data(&out, "buf"), src);
    // Four ranks, root 2.
    let (mut ins, srcs) = per_rank("src", 4, 2, 5);
    ins.extend(rank_args(4, 2));
    let out = ok("broadcast", 4, &inputs("broadcast4", &ins));
    for r in 0..4 {
        assert_eq!(data(&out, &format!("buf@{r}")), srcs[2], "rank {r}");
    }
}

#[test]
fn treduce_sum_max_min_over_the_ranks() {
    type Fold = fn(f64, f64) -> f64;
    let folds: [(&str, Fold); 3] = [("sum", |a, b| a + b), ("max", f64::max), ("min", f64::min)];
    for (op, fold) in folds {
        // One rank: the four members are the local buffer.
        let buf = values(16, 0, 6);
        let mut ins = rank_args(1, 0);
        ins.push(("buf".into(), f32s(2, 8, &buf)));
        let out = ok(&format!("reduce_{op}"), 1, &inputs(&format!("reduce_{op}1"), &ins));
        let expect: Vec<f64> = buf.iter().map(|&x| (1..4).fold(x, |acc, _| fold(acc, x))).collect();
        assert_eq!(data(&out, "dst"), expect, "{op} --ranks 1");
        // Four ranks, root 1: numpy `bufs.{op}(axis=0)`.
        let (mut ins, bufs) = per_rank("buf", 4, 2, 6);
        ins.extend(rank_args(4, 1));
        let out = ok(&format!("reduce_{op}"), 4, &inputs(&format!("reduce_{op}4"), &ins));
        let expect: Vec<f64> = (0..16).map(|i| bufs[1..].iter().fold(bufs[0][i], |acc, b| fold(acc, b[i]))).collect();
        assert_eq!(data(&out, "dst@1"), expect, "{op} --ranks 4");
        assert!(out.get("dst@0").is_none(), "only the root writes dst: {out}");
    }
}

#[test]
fn tgather_concatenates_the_members_along_rows() {
    let buf = values(16, 0, 8);
    let mut ins = rank_args(1, 0);
    ins.push(("buf".into(), f32s(2, 8, &buf)));
    let out = ok("gather", 1, &inputs("gather1", &ins));
    assert_eq!(data(&out, "dst"), buf.repeat(4));
    let (mut ins, bufs) = per_rank("buf", 4, 2, 8);
    ins.extend(rank_args(4, 3));
    // A bound `dst` keeps its 8x8 shape (an unbound one grows 1-D).
    ins.push(("dst".into(), f32s(8, 8, &[0.0; 64])));
    let out = ok("gather", 4, &inputs("gather4", &ins));
    // numpy: np.concatenate(bufs, axis=0) on the root.
    assert_eq!(data(&out, "dst@3"), bufs.concat());
    assert_eq!(out["dst@3"]["shape"], json!([8, 8]));
}

#[test]
fn tscatter_splits_the_root_src_into_row_blocks() {
    let src = values(64, 0, 10);
    let mut ins = rank_args(1, 0);
    ins.push(("src".into(), f32s(8, 8, &src)));
    let out = ok("scatter", 1, &inputs("scatter1", &ins));
    // One rank: every block lands in the same buffer, the last one stays.
    assert_eq!(data(&out, "buf"), src[48..].to_vec());
    let mut ins = rank_args(4, 0);
    ins.push(("src@0".into(), f32s(8, 8, &src)));
    let out = ok("scatter", 4, &inputs("scatter4", &ins));
    // numpy: np.split(src, 4, axis=0)[k] to rank k.
    for k in 0..4 {
        assert_eq!(data(&out, &format!("buf@{k}")), src[k * 16..(k + 1) * 16].to_vec(), "rank {k}");
    }
}

#[test]
fn tnotify_twait_ttest_synchronise_a_ring() {
    for ranks in [1u32, 4] {
        let (code, out, stderr) = run("signal", ranks, &["--peer".into(), "sig=next".into()]);
        assert_eq!(code, 0, "{stderr}");
        for r in 0..ranks as usize {
            // Each rank's signal was incremented once by its predecessor; its test saw 1.
            assert_eq!(data(&out, &at("sig", r, ranks)), [1.0], "rank {r} of {ranks}");
            assert_eq!(data(&out, &at("done", r, ranks)), [7.0], "rank {r} of {ranks}");
        }
    }
    // Random schedules give the same result.
    for seed in 0..3 {
        let args: Vec<String> = ["--peer", "sig=next", "--schedule", "random", "--seed", &seed.to_string()].map(String::from).to_vec();
        let (code, out, stderr) = run("signal", 4, &args);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(data(&out, "done@3"), [7.0], "seed {seed}");
    }
}

#[test]
fn twait_that_never_holds_is_a_deadlock_naming_every_rank() {
    for ranks in [1u32, 4] {
        let (code, _, stderr) = run("wait_forever", ranks, &[]);
        assert_eq!(code, 1, "{stderr}");
        assert!(stderr.contains("error[SYNC_DEADLOCK]"), "{stderr}");
        for r in 0..ranks {
            assert!(stderr.contains(&format!("rank {r} waits here for signal %sig@{r} eq 5 (now [0])")), "{stderr}");
        }
    }
}

#[test]
fn bad_rank_arguments_are_usage_errors() {
    let (code, _, stderr) = run("put", 2, &["--peer".into(), "dst=5".into()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("rank 5 does not exist"), "{stderr}");
    let (code, _, stderr) = run("put", 2, &["--peer".into(), "nothere=next".into()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("the kernel has no argument `%nothere`"), "{stderr}");
    let (code, _, stderr) = run("put", 2, &["-i".into(), "src@3=1.0".into()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("rank 3 does not exist"), "{stderr}");
}

#[test]
fn trace_and_stats_name_the_rank_and_output_dir_writes_name_at_rank() {
    let args: Vec<String> = ["--peer", "sig=next", "--trace", "--stats"].map(String::from).to_vec();
    let (code, _, stderr) = run("signal", 4, &args);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.lines().any(|l| l.starts_with("r2 ") && l.contains("pto.comm.tnotify") && l.contains("added 1 to 1 signal(s) of %sig@3")),
        "{stderr}"
    );
    // Rank 0 waits first (its predecessor, rank 3, has not run yet); the others find their signal set.
    assert!(stderr.contains("r0       13 ops executed, waited 1 time(s) for another rank"), "{stderr}");
    assert!(stderr.contains("r3       13 ops executed, waited 0 time(s) for another rank"), "{stderr}");
    let dir = scratch_dir("comm", "outdir");
    let out = Command::new(env!("CARGO_BIN_EXE_pto"))
        .args(["run", "--ranks", "2", "--peer", "sig=next", "--output-dir"])
        .arg(&dir)
        .arg(kernel("signal"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for f in ["sig@0.npy", "sig@1.npy", "done@0.npy", "done@1.npy"] {
        assert!(dir.join(f).exists(), "{f}");
    }
}

#[test]
fn a_fault_on_a_peer_buffer_names_the_rank_and_its_copy() {
    let dir = scratch_dir("comm", "fault");
    let small = dir.join("small.json");
    std::fs::write(&small, f32s(1, 4, &[1.0, 2.0, 3.0, 4.0]).to_string()).unwrap();
    let args = ["--peer".to_string(), "dst=next".into(), "-i".into(), format!("dst@0={}", small.display())];
    let (code, _, stderr) = run("put", 2, &args);
    assert_eq!(code, 1, "{stderr}");
    // Rank 1 puts 16 elements into rank 0's 4-element `dst`.
    assert!(stderr.contains("error[SIM_TRAP]: GM access to element 4 of `%dst`, which has 4 elements (rank 0's copy)"), "{stderr}");
    assert!(stderr.contains("= on rank 1"), "{stderr}");
}

#[test]
fn a_deadlock_with_some_ranks_ended_names_the_waiting_and_the_ended() {
    // Every rank notifies rank 0: rank 0 sees 4 (its test fails, it ends), the others wait for 1 forever.
    let (code, out, stderr) = run("signal", 4, &["--peer".into(), "sig=0".into()]);
    assert_eq!((code, out), (1, Value::Null), "{stderr}");
    assert!(stderr.contains("every rank that has not ended waits forever: rank 1 waits for signal %sig@1 ge 1 (now [0])"), "{stderr}");
    assert!(stderr.contains("rank 3 waits here for signal %sig@3 ge 1 (now [0])"), "{stderr}");
    assert!(stderr.contains("already ended: rank 0"), "{stderr}");
}

/// A mix kernel on several ranks: each rank runs its cube and vector cores (with their own
/// pipes) on its own GM, so every rank computes what a single run computes.
#[test]
fn a_mix_kernel_runs_on_every_rank() {
    let Some(corpus) = common::corpus_dir() else { return };
    let mix = corpus.join("TPushTPop/test4/kernel.pto");
    let run_mix = |ranks: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_pto"))
            .args(["run", "--json", "--target", "a5", "--default-inputs", "--trace", "--ranks", ranks])
            .arg(&mix)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        (serde_json::from_slice::<Value>(&out.stdout).unwrap(), stderr)
    };
    let (one, _) = run_mix("1");
    let (two, trace) = run_mix("2");
    let single = data(&one, "gm_out");
    assert!(single.iter().any(|&x| x != 0.0), "the product is not all zeros");
    assert_eq!(data(&two, "gm_out@0"), single);
    assert_eq!(data(&two, "gm_out@1"), single);
    assert!(trace.lines().any(|l| l.starts_with("r1.aic ") && l.contains("pto.tpush_to_aiv")), "{trace}");
    assert!(trace.lines().any(|l| l.starts_with("r1.aiv1 ") && l.contains("pto.tpop_from_aic")), "{trace}");
}

#[test]
fn one_rank_on_several_blocks_runs_comm_ops_on_the_local_device() {
    let src = values(16, 0, 12);
    let ins = vec![("rank".to_string(), json!(0)), ("root".into(), json!(0)), ("src".into(), f32s(2, 8, &src))];
    let mut args = inputs("blocks", &ins);
    args.extend(["--blocks".into(), "2".into()]);
    // Both blocks broadcast the same data into the one device's buffer: the values are right,
    // and the two unordered writes of the same bytes are a hazard all the same.
    let (code, out, err) = run("broadcast", 1, &args);
    assert_eq!(data(&out, "buf"), src);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[HAZARD_WAW]: rank 0 block 1 overwrites bytes another rank or block wrote in `%buf@0` ([0, 64))"), "{err}");
}

/// Hazards between ranks: a `tput` into a peer's buffer and the peer's load of it are ordered
/// only by a signal (`tnotify` → `twait`); without the wait they are `HAZARD_RAW` / `HAZARD_WAR`
/// between the two ranks, found when sync checking is on (the kernel has explicit sync).
#[test]
fn a_put_and_the_peers_load_need_a_signal_between_them() {
    for ranks in [2u32, 4] {
        let (src, vals) = per_rank("src", ranks, 2, 3);
        let mut ins = src;
        ins.push(("sig".into(), json!([[0]])));
        ins.push(("buf".into(), f32s(2, 8, &[0.0; 16])));
        let mut args = inputs(&format!("put-signal-{ranks}"), &ins);
        args.extend(["--peer", "buf=next", "--peer", "sig=next"].map(String::from));
        let out = ok("put_signal", ranks, &args);
        for r in 0..ranks as usize {
            let from = (r + ranks as usize - 1) % ranks as usize;
            assert_eq!(data(&out, &format!("out@{r}")), vals[from], "rank {r} copied what rank {from} put");
        }
        // The same kernel without the wait: rank 1 loads `buf@1` with nothing ordering rank 0's put.
        let text = std::fs::read_to_string(kernel("put_signal")).unwrap();
        let racy: String = text.lines().filter(|l| !l.contains("pto.comm.twait")).map(|l| format!("{l}\n")).collect();
        let path = scratch_dir("comm", &format!("racy-{ranks}")).join("racy.pto");
        std::fs::write(&path, racy).unwrap();
        let run = Command::new(env!("CARGO_BIN_EXE_pto"))
            .args(["run", "--json", "--target", "a2a3", "--ranks", &ranks.to_string()])
            .args(&args)
            .arg(&path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_ne!(run.status.code(), Some(0), "{stderr}");
        assert!(stderr.contains("error[HAZARD_RAW]") && stderr.contains("rank 1 reads bytes another rank wrote in `%buf@1`"), "{stderr}");
        assert!(stderr.contains("with no signal ordering them") && stderr.contains("rank 0 accessed them here"), "{stderr}");
        assert!(stderr.contains("error[HAZARD_WAR]"), "rank 0 loaded buf@0 before its writer put into it: {stderr}");
    }
}

/// Ranks of several blocks: every block of a rank shares the rank's GM; block `b` of each rank
/// puts row `b`, so two blocks move the whole array. The trace names rank and block.
#[test]
fn ranks_of_several_blocks_share_their_rank_gm() {
    for ranks in [1u32, 2, 4] {
        let (ins, vals) = per_rank("src", ranks, 2, 5);
        let mut args = inputs(&format!("put-blocks-{ranks}"), &ins);
        args.extend(["--peer", "dst=next", "--blocks", "2", "--trace"].map(String::from));
        let (code, out, stderr) = run("put_blocks", ranks, &args);
        assert_eq!(code, 0, "{stderr}");
        for (r, v) in vals.iter().enumerate() {
            let to = (r + 1) % ranks as usize;
            assert_eq!(&data(&out, &at("dst", to, ranks)), v, "{ranks} ranks: rank {r}'s src in rank {to}'s dst");
        }
        assert!(stderr.lines().any(|l| l.starts_with("r0.b1 ") && l.contains("pto.comm.tput")), "{stderr}");
    }
    // More ranks x blocks than one scheduler runs: a clear error.
    let (code, _, stderr) = run("put_blocks", 16, &["--blocks".into(), "17".into()]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("16 rank(s) of 17 block(s)") && stderr.contains("at most 256"), "{stderr}");
}

/// A `tnotify` is a scalar store (pto-isa `comm/a2a3/TNotify.hpp`): it orders only what the
/// scalar pipe did and what flags ordered before it. Rank 0 `tstore`s its `buf` on MTE3 and
/// notifies rank 1, which `tget`s it: without an MTE3 -> S flag between the store and the notify
/// the read is a hazard naming the store's pipe; with it, the run is clean.
#[test]
fn a_notify_orders_what_the_scalar_pipe_did_not_a_store_still_on_mte3() {
    let hb = common::root().join("tests/hb");
    let run = |file: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_pto"))
            .args(["run", "--json", "--default-inputs", "--target", "a2a3", "--ranks", "2"])
            .args(["--peer", "buf=0", "--peer", "sig=1", "-i", "rank@0=0", "-i", "rank@1=1"])
            .arg(hb.join(file))
            .output()
            .unwrap();
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, stderr) = run("ranks_store_notify_noflag.pto");
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("error[HAZARD_RAW]: rank 1 reads bytes another rank wrote in `%buf@0` ([0, 256))"), "{stderr}");
    assert!(stderr.contains("rank 0's access ran on PIPE_MTE3: a `tnotify` is a scalar store and orders only what PIPE_S did"), "{stderr}");
    let (code, stderr) = run("ranks_store_notify.pto");
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("error["), "{stderr}");
}

/// `--default-inputs` starts a signal at 0 (pto_sim::defaults::signal_pointers), as the host
/// clears a signal buffer before a launch: each rank adds 1 to its peer's signal and waits for
/// at least 1, which the input pattern (its first i32 is -1) would turn into a deadlock. The
/// other arrays keep the pattern: every rank puts the same pattern, so `out` is it.
#[test]
fn default_inputs_start_a_signal_at_zero() {
    let args: Vec<String> = ["--default-inputs", "--peer", "buf=next", "--peer", "sig=next"].map(String::from).to_vec();
    let out = ok("put_signal", 2, &args);
    let pattern: Vec<f64> = (0..16).map(pto_sim::gm::pattern_value).collect();
    for r in 0..2 {
        assert_eq!(data(&out, &format!("out@{r}")), pattern, "rank {r}");
        assert_eq!(data(&out, &format!("sig@{r}")), [1.0], "rank {r}: 0 + the peer's 1");
    }
}
