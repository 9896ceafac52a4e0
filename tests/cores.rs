//! Cube and vector cores (docs/cores.md): the shared TPushTPop samples against sequential
//! references computed here with real inputs, the scheduler's deadlock report, one test per
//! FIFO misuse, and blocks: the same result for 1 and 2 threads, any schedule, and 1, 2 or 4
//! blocks of a block-indexed kernel.

mod common;

use common::kernel::{input_args, number, scratch_dir};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

/// `pto run` with `args`; (exit code, stdout JSON or Null, stderr).
fn run(program: &Path, args: &[&str]) -> (i32, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pto")).arg("run").arg("--json").args(args).arg(program).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), json, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn data(v: &Value, name: &str) -> Vec<f64> {
    v[name]["data"].as_array().unwrap_or_else(|| panic!("no output `{name}` in {v}")).iter().map(number).collect()
}

/// Small values exact in bf16 and f32 with exact products and sums.
fn values(n: usize, k: usize) -> Vec<f64> {
    (0..n).map(|i| ((i * k + 3) % 9) as f64 / 2.0 - 2.0).collect()
}

fn tile(dtype: &str, rows: usize, cols: usize, d: &[f64]) -> Value {
    json!({"dtype": dtype, "shape": [rows, cols], "data": d})
}

/// `a (m x k) @ b (k x n)` in f64 (exact for [`values`]).
fn matmul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
        }
    }
    c
}

/// TPushTPop/test4: the cube multiplies `lhs` by four column blocks of `rhs` and pushes each
/// 16x128 product split up/down; each AIV adds its 8 rows to `gm_out` and stores them.
fn test4_inputs(dir: &Path) -> (Vec<String>, Vec<f64>) {
    let (lhs, rhs, init) = (values(16 * 64, 7), values(64 * 512, 5), values(16 * 512, 11));
    let args = input_args(
        dir,
        &[("gm_lhs", tile("bf16", 16, 64, &lhs)), ("gm_rhs", tile("bf16", 64, 512, &rhs)), ("gm_out", tile("f32", 16, 512, &init))],
    );
    let product = matmul(&lhs, &rhs, 16, 64, 512);
    (args, init.iter().zip(&product).map(|(a, b)| a + b).collect())
}

fn with_inputs<'a>(args: &'a [String], extra: &[&'a str]) -> Vec<&'a str> {
    let mut v: Vec<&str> = args.iter().flat_map(|a| ["--input", a.as_str()]).collect();
    v.extend_from_slice(extra);
    v
}

#[test]
fn test4_matches_the_sequential_reference_on_a5_and_every_schedule() {
    let Some(corpus) = common::corpus_dir() else { return };
    let dir = scratch_dir("cores", "test4");
    let (inputs, want) = test4_inputs(&dir);
    let program = corpus.join("TPushTPop/test4/kernel.pto");
    // On A2A3 the pipes pass through GM and the file gives no gm_slot_buffer: `pto run` rejects
    // it as `pto verify` and `ptoas` do (VERDICTS.tsv: PASS_FAIL on a3).
    let (code, _, err) = run(&program, &with_inputs(&inputs, &["--target", "a2a3"]));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("STRUCT_BAD_ATTRIBUTE") && err.contains("gm_slot_buffer"), "{err}");
    for target in ["a5"] {
        let (code, out, err) = run(&program, &with_inputs(&inputs, &["--target", target]));
        assert_eq!(code, 0, "{target}: {err}");
        assert_eq!(data(&out, "gm_out"), want, "{target}");
        for seed in 1..=5 {
            let s = seed.to_string();
            let (code, again, err) = run(&program, &with_inputs(&inputs, &["--target", target, "--schedule", "random", "--seed", &s]));
            assert_eq!(code, 0, "{target} seed {seed}: {err}");
            assert_eq!(again, out, "{target} seed {seed}");
        }
    }
}

#[test]
fn a3_test1_writes_the_product_into_the_gm_slot_buffer_and_both_aivs_pop_it() {
    let Some(corpus) = common::corpus_dir() else { return };
    let dir = scratch_dir("cores", "a3test1");
    let (a, b) = (values(256, 3), values(256, 5));
    let inputs = input_args(&dir, &[("gm_a", tile("f32", 16, 16, &a)), ("gm_b", tile("f32", 16, 16, &b))]);
    let program = corpus.join("TPushTPop/a3/test1/kernel.pto");
    let (code, out, err) = run(&program, &with_inputs(&inputs, &["--target", "a2a3"]));
    assert_eq!(code, 0, "{err}");
    // Slot 0 of the A2A3 GM FIFO holds the 16x16 accumulator, row-major (NZ2ND).
    assert_eq!(data(&out, "gm_slot_buffer")[..256], matmul(&a, &b, 16, 16, 16)[..]);
    // TILE_NO_SPLIT on A2A3: AIV0 and AIV1 both pop (and print) the whole tile.
    assert_eq!(err.matches("TPRINT 16x16").count(), 2, "{err}");
    // On A5 the vector function runs on AIV0 only (PTOAS's no-split guard).
    let (code, _, err) = run(&program, &with_inputs(&inputs, &["--target", "a5"]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.matches("TPRINT 16x16").count(), 1, "{err}");
}

/// The numbers of the `TPRINT` blocks in `stderr`, in order.
fn printed(stderr: &str) -> Vec<Vec<f64>> {
    let mut blocks: Vec<Vec<f64>> = Vec::new();
    for line in stderr.lines() {
        if line.starts_with("TPRINT") {
            blocks.push(Vec::new());
        } else if let (Some(b), Ok(nums)) =
            (blocks.last_mut(), line.split_whitespace().map(str::parse::<f64>).collect::<Result<Vec<_>, _>>())
            && !nums.is_empty()
        {
            b.extend(nums);
        }
    }
    blocks
}

#[test]
fn test1_up_down_split_gives_each_aiv_its_row_half() {
    let Some(corpus) = common::corpus_dir() else { return };
    let dir = scratch_dir("cores", "test1");
    let (a, b) = (values(256, 3), values(256, 5));
    let inputs = input_args(&dir, &[("gm_a", tile("f32", 16, 16, &a)), ("gm_b", tile("f32", 16, 16, &b))]);
    let (code, _, err) = run(&corpus.join("TPushTPop/test1/kernel.pto"), &with_inputs(&inputs, &["--target", "a5"]));
    assert_eq!(code, 0, "{err}");
    let c = matmul(&a, &b, 16, 16, 16);
    // AIV0 runs first (in-order schedule): rows 0-7, then AIV1: rows 8-15.
    assert_eq!(printed(&err), vec![c[..128].to_vec(), c[128..].to_vec()], "{err}");
}

#[test]
fn the_other_samples_run_and_the_round_trip_returns_its_input() {
    let Some(corpus) = common::corpus_dir() else { return };
    let dir = scratch_dir("cores", "test3");
    let src = values(256, 7);
    let identity: Vec<f64> = (0..256).map(|i| if i / 16 == i % 16 { 1.0 } else { 0.0 }).collect();
    let inputs = input_args(&dir, &[("gm_src", tile("f32", 16, 16, &src)), ("gm_identity", tile("f32", 16, 16, &identity))]);
    let (code, _, err) = run(&corpus.join("TPushTPop/test3/kernel.pto"), &with_inputs(&inputs, &["--target", "a5"]));
    assert_eq!(code, 0, "{err}");
    // vector -> cube (src @ identity) -> vector.
    assert_eq!(printed(&err), vec![src], "{err}");
    for (rel, targets) in [
        ("TPushTPop/a3/test2/kernel.pto", &["a2a3", "a5"][..]),
        ("TPushTPop/test2/kernel.pto", &["a5"][..]),
        ("Sync/test_inject_sync_intra_pipe_barrier.pto", &["a2a3", "a5"][..]),
    ] {
        for t in targets {
            let (code, _, err) = run(&corpus.join(rel), &["--target", t, "--default-inputs"]);
            assert_eq!(code, 0, "{rel} {t}: {err}");
        }
    }
}

#[test]
fn trace_and_stats_name_the_cores() {
    let Some(corpus) = common::corpus_dir() else { return };
    let out = Command::new(env!("CARGO_BIN_EXE_pto"))
        .args(["run", "--json", "--target", "a5", "--default-inputs", "--trace", "--stats"])
        .arg(corpus.join("TPushTPop/test1/kernel.pto"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.lines().any(|l| l.starts_with("b0.aic ") && l.contains("pto.tpush_to_aiv") && l.contains("pushed slot 0")), "{err}");
    assert!(err.lines().any(|l| l.starts_with("b0.aiv1 ") && l.contains("pto.tpop_from_aic") && l.contains("popped slot 0")), "{err}");
    assert!(err.contains("b0.aiv0  ") && err.contains("ops executed"), "{err}");
}

// ------------------------------------------------------------------ protocol errors

const ACC: &str =
    "!pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, slayout=row_major, fractal=1024, pad=0>";
const MAT: &str =
    "!pto.tile_buf<loc=mat, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, slayout=row_major, fractal=512, pad=0>";

fn vec_tile(rows: usize, cols: usize) -> String {
    format!(
        "!pto.tile_buf<loc=vec, dtype=f32, rows={rows}, cols={cols}, v_row={rows}, v_col={cols}, blayout=row_major, slayout=none_box, fractal=512, pad=0>"
    )
}

/// A C2V mix kernel for A5: the cube runs `cube` after initialising the pipe (an accumulator
/// tile `%acc` exists), the vector side `vector`.
fn c2v_kernel(cube: &str, vector: &str) -> String {
    format!(
        r#"module {{
  func.func @k() attributes {{pto.entry}} {{
    func.call @k_cube() : () -> ()
    func.call @k_vector() : () -> ()
    return
  }}
  func.func private @k_cube() attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    %c0_i32 = arith.constant 0 : i32
    %buf = pto.import_reserved_buffer {{name = "fifo", peer_func = @k_vector}} -> i32
    pto.aic_initialize_pipe {{dir_mask = 1, slot_size = 1024}} (c2v_consumer_buf = %buf : i32, v2c_consumer_buf = %c0_i32 : i32)
    %acc = pto.alloc_tile : {ACC}
{cube}
    return
  }}
  func.func private @k_vector() attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %c0_i32 = arith.constant 0 : i32
    %buf = pto.reserve_buffer {{name = "fifo", size = 8192, location = #pto.address_space<vec>, auto = true}} -> i32
    pto.aiv_initialize_pipe {{dir_mask = 1, slot_size = 1024}} (c2v_consumer_buf = %buf : i32, v2c_consumer_buf = %c0_i32 : i32)
{vector}
    return
  }}
}}
"#
    )
}

fn push() -> String {
    format!("    pto.tpush_to_aiv(%acc : {ACC}) {{split = 0}}")
}

fn pop(name: &str, rows: usize, cols: usize) -> String {
    format!("    %{name} = pto.tpop_from_aic {{split = 0}} -> {}", vec_tile(rows, cols))
}

const FREE: &str = "    pto.tfree_from_aic {split = 0}";

fn run_text(name: &str, text: &str) -> (i32, String) {
    let dir = scratch_dir("cores", name);
    let path = dir.join("kernel.pto");
    std::fs::write(&path, text).unwrap();
    let (code, _, err) = run(&path, &["--target", "a5"]);
    (code, err)
}

#[test]
fn two_cores_waiting_on_each_other_are_a_deadlock_naming_both_ops() {
    let text = format!(
        r#"module {{
  func.func @k() attributes {{pto.entry}} {{
    func.call @k_cube() : () -> ()
    func.call @k_vector() : () -> ()
    return
  }}
  func.func private @k_cube() attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    %c2v = pto.import_reserved_buffer {{name = "c2v", peer_func = @k_vector}} -> i32
    %v2c = pto.reserve_buffer {{name = "v2c", size = 4096, location = #pto.address_space<mat>, auto = true}} -> i32
    pto.aic_initialize_pipe {{dir_mask = 3, slot_size = 1024}} (c2v_consumer_buf = %c2v : i32, v2c_consumer_buf = %v2c : i32)
    %acc = pto.alloc_tile : {ACC}
    %m = pto.tpop_from_aiv {{split = 0}} -> {MAT}
    pto.tpush_to_aiv(%acc : {ACC}) {{split = 0}}
    return
  }}
  func.func private @k_vector() attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %c2v = pto.reserve_buffer {{name = "c2v", size = 4096, location = #pto.address_space<vec>, auto = true}} -> i32
    %v2c = pto.import_reserved_buffer {{name = "v2c", peer_func = @k_cube}} -> i32
    pto.aiv_initialize_pipe {{dir_mask = 3, slot_size = 1024}} (c2v_consumer_buf = %c2v : i32, v2c_consumer_buf = %v2c : i32)
    %v = pto.tpop_from_aic {{split = 0}} -> {vt}
    pto.tpush_to_aic(%v : {vt}) {{split = 0}}
    return
  }}
}}
"#,
        vt = vec_tile(16, 16)
    );
    let (code, err) = run_text("deadlock", &text);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[SYNC_DEADLOCK]"), "{err}");
    assert!(err.contains("b0.aic waits here for slot 0 of the v2c pipe"), "{err}");
    assert!(err.contains("b0.aiv0 waits here for slot 0 of the c2v pipe"), "{err}");
    // Both ops are shown at their lines.
    assert!(err.contains("12 │     %m = pto.tpop_from_aiv") && err.contains("20 │     %v = pto.tpop_from_aic"), "{err}");
}

#[test]
fn pushing_into_a_full_pipe_forever_is_an_error_at_the_push() {
    // Eight slots; the ninth push waits for a free that never comes.
    let cube: Vec<String> = (0..9).map(|_| push()).collect();
    let (code, err) = run_text("full", &c2v_kernel(&cube.join("\n"), ""));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[SYNC_DEADLOCK]") && err.contains("b0.aic waits here for a free slot"), "{err}");
    assert!(err.contains("all 8 slots are pushed and not yet freed"), "{err}");
    assert!(err.contains("already ended: b0.aiv0, b0.aiv1"), "{err}");
}

#[test]
fn popping_a_slot_never_pushed_is_an_error_at_the_pop() {
    let vector = [pop("a", 16, 16), FREE.into(), pop("b", 16, 16)].join("\n");
    let (code, err) = run_text("never-pushed", &c2v_kernel(&push(), &vector));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("b0.aiv0 waits here for slot 1 of the c2v pipe") && err.contains("1 pushed so far"), "{err}");
    assert!(err.contains("already ended: b0.aic, b0.aiv1"), "{err}");
}

#[test]
fn freeing_twice_is_an_error_at_the_second_free() {
    let vector = [pop("a", 16, 16), FREE.into(), FREE.into()].join("\n");
    let (code, err) = run_text("free-twice", &c2v_kernel(&push(), &vector));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[SIM_TRAP]") && err.contains("freed twice"), "{err}");
    assert!(err.contains("on core b0.aiv0"), "{err}");
}

#[test]
fn popping_with_the_wrong_shape_is_an_error() {
    let (code, err) = run_text("shape", &c2v_kernel(&push(), &pop("a", 16, 8)));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("pops a f32 16x8 tile, but slot 0 of the c2v pipe") && err.contains("holds a f32 16x16 tile"), "{err}");
}

// ------------------------------------------------------------------ blocks

/// Block `b` of `n` scales its 16-row chunk of `x` by 2 and adds `b` (`get_block_idx`), and
/// writes its block count into column 0 of its chunk.
const BLOCKED: &str = r#"module {
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %b = pto.get_block_idx
    %bi = arith.index_cast %b : i64 to index
    %row = arith.muli %bi, %c16 : index
    %bf = arith.sitofp %b : i64 to f32
    %xv = pto.make_tensor_view %x, shape = [%c64, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %yv = pto.make_tensor_view %y, shape = [%c64, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%row, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
    %yp = pto.partition_view %yv, offsets = [%row, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
    %t = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.tload ins(%xp : !pto.partition_tensor_view<16x16xf32>) outs(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.tadd ins(%t, %t : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>, !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.tadds ins(%t, %bf : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>, f32) outs(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.tstore ins(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%yp : !pto.partition_tensor_view<16x16xf32>)
    return
  }
}
"#;

#[test]
fn blocks_give_the_sequential_result_whatever_the_thread_count() {
    let dir = scratch_dir("cores", "blocks");
    let path = dir.join("kernel.pto");
    std::fs::write(&path, BLOCKED).unwrap();
    let x = values(64 * 16, 13);
    let inputs = input_args(&dir, &[("x", tile("f32", 64, 16, &x)), ("y", tile("f32", 64, 16, &vec![0.0; 64 * 16]))]);
    for blocks in [1usize, 2, 4] {
        // Sequential reference: block b covers rows 16b..16b+16.
        let want: Vec<f64> = (0..64 * 16).map(|i| if i / 256 < blocks { 2.0 * x[i] + (i / 256) as f64 } else { 0.0 }).collect();
        let n = blocks.to_string();
        let mut seen = Vec::new();
        for threads in ["1", "2"] {
            let (code, out, err) = run(&path, &with_inputs(&inputs, &["--target", "a2a3", "--blocks", &n, "--threads", threads]));
            assert_eq!(code, 0, "{blocks} blocks, {threads} threads: {err}");
            assert_eq!(data(&out, "y"), want, "{blocks} blocks, {threads} threads");
            seen.push(out);
        }
        assert_eq!(seen[0], seen[1]);
    }
}

#[test]
fn a_mix_kernel_runs_on_several_blocks() {
    let Some(corpus) = common::corpus_dir() else { return };
    let dir = scratch_dir("cores", "mixblocks");
    let (inputs, want) = test4_inputs(&dir);
    // Every block computes the same result into the same bytes (the sample is written for one
    // block): the values are the one block's, and the blocks' unordered accesses to `gm_out`
    // (each loads, adds and stores it) are a hazard whatever the values.
    let test4 = corpus.join("TPushTPop/test4/kernel.pto");
    let (code, out, err) = run(&test4, &with_inputs(&inputs, &["--target", "a5", "--blocks", "2"]));
    assert_eq!(code, 1, "{err}");
    assert_eq!(data(&out, "gm_out"), want);
    assert!(err.contains("of `%gm_out` that block 0 writes, with no `syncall` between them"), "{err}");
    let (code, out, err) = run(&test4, &with_inputs(&inputs, &["--target", "a5", "--blocks", "2", "--sync-check=never"]));
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(data(&out, "gm_out"), want);
}

#[test]
fn the_internal_pipe_ops_move_tiles_between_cores() {
    // PTOAS's lowered form: `initialize_l2l_pipe` gives a `!pto.pipe`; `declare_tile` + `tpop`.
    let text = format!(
        r#"module {{
  func.func @k() attributes {{pto.entry}} {{
    func.call @k_cube() : () -> ()
    func.call @k_vector() : () -> ()
    return
  }}
  func.func private @k_cube() attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    %buf = pto.import_reserved_buffer {{name = "fifo", peer_func = @k_vector}} -> i32
    %p = pto.initialize_l2l_pipe {{dir_mask = 1, slot_size = 1024, slot_num = 8}} (%buf : i32) -> !pto.pipe
    %acc = pto.alloc_tile : {ACC}
    pto.tpush(%acc, %p : {ACC}, !pto.pipe) {{split = 1}}
    return
  }}
  func.func private @k_vector() attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %buf = pto.reserve_buffer {{name = "fifo", size = 8192, location = #pto.address_space<vec>, auto = true}} -> i32
    %p = pto.initialize_l2l_pipe {{dir_mask = 1, slot_size = 1024, slot_num = 8}} (%buf : i32) -> !pto.pipe
    %t = pto.declare_tile -> {half}
    pto.tpop(%t, %p : {half}, !pto.pipe) {{split = 1}}
    pto.tprint ins(%t : {half})
    pto.tfree(%p : !pto.pipe) {{split = 1}}
    return
  }}
}}
"#,
        half = vec_tile(8, 16)
    );
    let (code, err) = run_text("internal", &text);
    assert_eq!(code, 0, "{err}");
    // Both AIVs pop their 8-row half of the (zero) accumulator.
    assert_eq!(printed(&err), vec![vec![0.0; 128], vec![0.0; 128]], "{err}");
}

/// AIV `i` copies rows 16i..16i+16 of `%x` to `%y`; the cube loads rows 0..16 of `%y`. `set` /
/// `wait` are the FFTS ops that order them (or nothing).
fn handoff(set: &str, wait: &str) -> String {
    let vt = vec_tile(16, 16);
    format!(
        r#"module {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {{pto.entry}} {{
    func.call @k_vector(%x, %y) : (!pto.ptr<f32>, !pto.ptr<f32>) -> ()
    func.call @k_cube(%y) : (!pto.ptr<f32>) -> ()
    return
  }}
  func.func private @k_vector(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %sb = pto.get_subblock_idx
    %sbi = arith.index_cast %sb : i64 to index
    %row = arith.muli %sbi, %c16 : index
    %xv = pto.make_tensor_view %x, shape = [%c32, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %yv = pto.make_tensor_view %y, shape = [%c32, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%row, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
    %yp = pto.partition_view %yv, offsets = [%row, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
    %t = pto.alloc_tile : {vt}
    pto.tload ins(%xp : !pto.partition_tensor_view<16x16xf32>) outs(%t : {vt})
    pto.set_flag[<PIPE_MTE2>, <PIPE_MTE3>, <EVENT_ID0>]
    pto.wait_flag[<PIPE_MTE2>, <PIPE_MTE3>, <EVENT_ID0>]
    pto.tstore ins(%t : {vt}) outs(%yp : !pto.partition_tensor_view<16x16xf32>)
{set}
    return
  }}
  func.func private @k_cube(%y: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
{wait}
    %yv = pto.make_tensor_view %y, shape = [%c32, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
    %m = pto.alloc_tile : {MAT}
    pto.tload ins(%yp : !pto.partition_tensor_view<16x16xf32>) outs(%m : {MAT})
    return
  }}
}}
"#
    )
}

#[test]
fn gm_accesses_of_two_cores_need_a_flag_or_a_pipe_between_them() {
    let dir = scratch_dir("cores", "handoff");
    let path = dir.join("kernel.pto");
    let inputs = input_args(&dir, &[("x", tile("f32", 32, 16, &values(512, 3)))]);
    let args = with_inputs(&inputs, &["--target", "a2a3", "--sync-check", "always", "--default-inputs"]);
    // FFTS: each AIV sets flag 0 after its store; the cube waits for both (mode 2).
    std::fs::write(&path, handoff("    pto.sync.set <PIPE_MTE3>, 0", "    pto.sync.wait <PIPE_MTE2>, 0")).unwrap();
    let (code, out, err) = run(&path, &args);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("HAZARD"), "{err}");
    assert_eq!(data(&out, "y"), values(512, 3));
    // Without them the cube's load and AIV0's store are unordered.
    std::fs::write(&path, handoff("", "")).unwrap();
    let (code, _, err) = run(&path, &args);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[HAZARD_WAR]: b0.aiv0 overwrites bytes another core read in `%y` ([0, 1024))"), "{err}");
    assert!(err.contains("b0.aic accessed them here"), "{err}");
}

const LEFT: &str =
    "!pto.tile_buf<loc=left, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=row_major, fractal=512, pad=0>";
const RIGHT: &str =
    "!pto.tile_buf<loc=right, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=col_major, fractal=512, pad=0>";

/// A C2V kernel through a GM slot buffer (`initialize_l2g2l_pipe`) with the GM-slot forms on
/// both sides: the cube multiplies `a` by `b`, `talloc`s a slot, stores the product there and
/// commits it; each vector core pops its 8-row half as a view (`split = 1`), loads it, stores
/// it to its rows of `dst` and frees the slot. `producer` / `consumer` pick the interface of
/// each side (`gm` or `tile`).
fn gm_slot_kernel(producer: &str, consumer: &str) -> String {
    let view = |rows: usize| format!("!pto.partition_tensor_view<{rows}x16xf32>");
    let gm_view = |name: &str, ptr: &str, row: &str, rows: usize| {
        format!(
            "    %{name}_t = pto.make_tensor_view %{ptr}, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %{name} = pto.partition_view %{name}_t, offsets = [{row}, %c0], sizes = [%c{rows}, %c16] : !pto.tensor_view<?x?xf32> -> {}",
            view(rows)
        )
    };
    let produce = match producer {
        "gm" => format!(
            "    %s = pto.talloc(%p : !pto.pipe) {{split = 1}} -> {v}
    pto.tstore ins(%acc : {ACC}) outs(%s : {v})
    pto.tpush(%s, %p : {v}, !pto.pipe) {{split = 1}}",
            v = view(16)
        ),
        _ => format!("    pto.tpush(%acc, %p : {ACC}, !pto.pipe) {{split = 1}}"),
    };
    let half = vec_tile(8, 16);
    let consume = match consumer {
        "gm" => format!(
            "    %r = pto.tpop(%p : !pto.pipe) {{split = 1}} -> {v}
    pto.tload ins(%r : {v}) outs(%x : {half})
    pto.tfree(%p, %r : !pto.pipe, {v}) {{split = 1}}",
            v = view(8)
        ),
        _ => format!(
            "    %t = pto.declare_tile -> {half}
    pto.tpop(%t, %p : {half}, !pto.pipe) {{split = 1}}
    pto.tmov ins(%t : {half}) outs(%x : {half})
    pto.tfree(%p : !pto.pipe) {{split = 1}}"
        ),
    };
    format!(
        r#"module {{
  func.func @k(%fifo: !pto.ptr<f32>, %a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %dst: !pto.ptr<f32>) attributes {{pto.entry}} {{
    func.call @k_cube(%fifo, %a, %b) : (!pto.ptr<f32>, !pto.ptr<f32>, !pto.ptr<f32>) -> ()
    func.call @k_vector(%fifo, %dst) : (!pto.ptr<f32>, !pto.ptr<f32>) -> ()
    return
  }}
  func.func private @k_cube(%fifo: !pto.ptr<f32>, %a: !pto.ptr<f32>, %b: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %buf = pto.import_reserved_buffer {{name = "fifo", peer_func = @k_vector}} -> i32
    %p = pto.initialize_l2g2l_pipe {{dir_mask = 1, slot_size = 1024, slot_num = 2}} (%fifo : !pto.ptr<f32>, %buf : i32) -> !pto.pipe
{ga}
{gb}
    %ma = pto.alloc_tile : {MAT}
    %mb = pto.alloc_tile : {MAT}
    %l = pto.alloc_tile : {LEFT}
    %r = pto.alloc_tile : {RIGHT}
    %acc = pto.alloc_tile : {ACC}
    pto.tload ins(%va : {v16}) outs(%ma : {MAT})
    pto.tload ins(%vb : {v16}) outs(%mb : {MAT})
    pto.tmov ins(%ma : {MAT}) outs(%l : {LEFT})
    pto.tmov ins(%mb : {MAT}) outs(%r : {RIGHT})
    pto.tmatmul ins(%l, %r : {LEFT}, {RIGHT}) outs(%acc : {ACC})
{produce}
    return
  }}
  func.func private @k_vector(%fifo: !pto.ptr<f32>, %dst: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %buf = pto.reserve_buffer {{name = "fifo", size = 2048, location = #pto.address_space<vec>, auto = true}} -> i32
    %p = pto.initialize_l2g2l_pipe {{dir_mask = 1, slot_size = 1024, slot_num = 2}} (%fifo : !pto.ptr<f32>, %buf : i32) -> !pto.pipe
    %sub = pto.get_subblock_idx
    %sub_i = arith.index_cast %sub : i64 to index
    %row = arith.muli %sub_i, %c8 : index
{gd}
    %x = pto.alloc_tile : {half}
{consume}
    pto.tstore ins(%x : {half}) outs(%vd : {v8})
    return
  }}
}}
"#,
        ga = gm_view("va", "a", "%c0", 16),
        gb = gm_view("vb", "b", "%c0", 16),
        gd = gm_view("vd", "dst", "%row", 8),
        v16 = view(16),
        v8 = view(8),
    )
}

#[test]
fn gm_slot_forms_move_a_product_through_the_gm_fifo_in_either_interface() {
    let (a, b) = (values(256, 7), values(256, 5));
    let product = matmul(&a, &b, 16, 16, 16);
    for (producer, consumer) in [("gm", "gm"), ("gm", "tile"), ("tile", "gm")] {
        let dir = scratch_dir("cores", &format!("gm-slots-{producer}-{consumer}"));
        let path = dir.join("kernel.pto");
        std::fs::write(&path, gm_slot_kernel(producer, consumer)).unwrap();
        let inputs = input_args(&dir, &[("a", tile("f32", 16, 16, &a)), ("b", tile("f32", 16, 16, &b))]);
        for target in ["a2a3", "a5"] {
            for schedule in [&["--schedule", "in-order"][..], &["--schedule", "random", "--seed", "3"]] {
                let mut args = with_inputs(&inputs, &["--target", target, "--trace"]);
                args.extend_from_slice(schedule);
                let (code, out, err) = run(&path, &args);
                assert_eq!(code, 0, "{producer}/{consumer} on {target}: {err}");
                assert_eq!(data(&out, "dst"), product, "{producer}/{consumer} on {target} {schedule:?}");
                // The slot buffer holds the product in slot 0 (written by the cube's tstore,
                // A2A3's pass through GM, or the consumers' pops).
                assert_eq!(data(&out, "fifo")[..256], product[..], "{producer}/{consumer} on {target}");
                if producer == "gm" {
                    assert!(err.contains("b0.aic") && err.contains("pto.talloc") && err.contains("allocated slot 0"), "{err}");
                }
                if consumer == "gm" {
                    assert!(err.contains("b0.aiv1") && err.contains("popped slot 0 in GM"), "{err}");
                }
            }
        }
    }
}

#[test]
fn gm_slot_forms_on_a_pipe_without_a_gm_buffer_are_located_errors() {
    let text = gm_slot_kernel("gm", "gm").replace(
        "%p = pto.initialize_l2g2l_pipe {dir_mask = 1, slot_size = 1024, slot_num = 2} (%fifo : !pto.ptr<f32>, %buf : i32)",
        "%p = pto.initialize_l2l_pipe {dir_mask = 1, slot_size = 1024, slot_num = 2} (%buf : i32)",
    );
    assert!(!text.contains("l2g2l"), "both inits replaced");
    let run_defaults = |name: &str, text: &str| {
        let path = scratch_dir("cores", name).join("kernel.pto");
        std::fs::write(&path, text).unwrap();
        let (code, _, err) = run(&path, &["--target", "a5", "--default-inputs"]);
        (code, err)
    };
    let (code, err) = run_defaults("gm-slots-no-buffer", &text);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("need a FIFO in GM, and the c2v pipe") && err.contains("pto.talloc") && err.contains("b0.aic"), "{err}");
    // A commit of a view that is not the next slot.
    let text = gm_slot_kernel("gm", "gm").replace("pto.tpush(%s, %p", "pto.tpush(%va, %p");
    let (code, err) = run_defaults("gm-slots-wrong-view", &text);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("commits a view that is not this core's part of slot 0"), "{err}");
}

/// TPushTPop/test2 and a3/test2: the cube multiplies `a` by four 16-row blocks of `b_all` in a
/// loop and pushes each product; the vector side pops and prints each (its row half under
/// test2's `split = 1`, the whole tile under a3/test2's `split = 0`, where A2A3 also passes
/// every slot through the GM slot buffer).
#[test]
fn the_loop_samples_print_each_product_in_order_on_every_schedule() {
    let Some(corpus) = common::corpus_dir() else { return };
    let dir = scratch_dir("cores", "loop4");
    let (a, b_all) = (values(256, 3), values(1024, 5));
    let products: Vec<Vec<f64>> = (0..4).map(|i| matmul(&a, &b_all[i * 256..(i + 1) * 256], 16, 16, 16)).collect();
    let inputs = input_args(&dir, &[("gm_a", tile("f32", 16, 16, &a)), ("gm_b_all", tile("f32", 64, 16, &b_all))]);
    let schedules: Vec<Vec<&str>> = std::iter::once(vec!["--schedule", "in-order"])
        .chain(["1", "2", "3", "4", "5"].map(|s| vec!["--schedule", "random", "--seed", s]))
        .collect();
    let halves = |h: usize| products.iter().map(|p| p[h * 128..(h + 1) * 128].to_vec()).collect::<Vec<_>>();
    for schedule in &schedules {
        let mut args = with_inputs(&inputs, &["--target", "a5"]);
        args.extend_from_slice(schedule);
        let (code, _, err) = run(&corpus.join("TPushTPop/test2/kernel.pto"), &args);
        assert_eq!(code, 0, "{err}");
        // Each core's prints in its program order, the cores in block order (docs/cores.md).
        assert_eq!(printed(&err), [halves(0), halves(1)].concat(), "test2 {schedule:?}");
    }
    let gm_inputs = inputs;
    for schedule in &schedules {
        let mut args = with_inputs(&gm_inputs, &["--target", "a2a3"]);
        args.extend_from_slice(schedule);
        let (code, out, err) = run(&corpus.join("TPushTPop/a3/test2/kernel.pto"), &args);
        assert_eq!(code, 0, "{err}");
        // TILE_NO_SPLIT on A2A3: both AIVs pop every whole product.
        assert_eq!(printed(&err), [products.clone(), products.clone()].concat(), "a3/test2 {schedule:?}");
        // The four slots of the GM slot buffer hold the four products, row-major.
        assert_eq!(data(&out, "gm_slot_buffer")[..1024], products.concat()[..], "a3/test2 {schedule:?}");
        // On A5 only AIV0 runs the vector function (PTOAS's no-split guard).
        let mut args = with_inputs(&gm_inputs, &["--target", "a5"]);
        args.extend_from_slice(schedule);
        let (code, _, err) = run(&corpus.join("TPushTPop/a3/test2/kernel.pto"), &args);
        assert_eq!(code, 0, "{err}");
        assert_eq!(printed(&err), products, "a3/test2 on A5 {schedule:?}");
    }
}

/// `syncall` among the cores of a block: the two vector cores (AIV-only, the default) swap
/// rows through GM across the barrier; the cube core does not take part.
#[test]
fn syncall_orders_the_vector_cores_of_a_block() {
    let row = "!pto.partition_tensor_view<1x8xf32>";
    let t = "!pto.tile_buf<vec, 1x8xf32>";
    let text = |barrier: &str| {
        format!(
            r#"module {{
  func.func @k(%a: !pto.ptr<f32>, %part: !pto.ptr<f32>, %out: !pto.ptr<f32>) attributes {{pto.entry}} {{
    func.call @k_cube() : () -> ()
    func.call @k_vector(%a, %part, %out) : (!pto.ptr<f32>, !pto.ptr<f32>, !pto.ptr<f32>) -> ()
    return
  }}
  func.func private @k_cube() attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    return
  }}
  func.func private @k_vector(%a: !pto.ptr<f32>, %part: !pto.ptr<f32>, %out: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %sb = pto.get_subblock_idx
    %i = arith.index_cast %sb : i64 to index
    %j = arith.subi %c1, %i : index
    %va = pto.make_tensor_view %a, shape = [%c2, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %vp = pto.make_tensor_view %part, shape = [%c2, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %vo = pto.make_tensor_view %out, shape = [%c2, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %ra = pto.partition_view %va, offsets = [%i, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> {row}
    %rp = pto.partition_view %vp, offsets = [%i, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> {row}
    %rq = pto.partition_view %vp, offsets = [%j, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> {row}
    %ro = pto.partition_view %vo, offsets = [%i, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> {row}
    %x = pto.alloc_tile : {t}
    %z = pto.alloc_tile : {t}
    pto.tload ins(%ra : {row}) outs(%x : {t})
    pto.tstore ins(%x : {t}) outs(%rp : {row})
{barrier}
    pto.tload ins(%rq : {row}) outs(%z : {t})
    pto.tstore ins(%z : {t}) outs(%ro : {row})
    return
  }}
}}
"#
        )
    };
    let dir = scratch_dir("cores", "syncall-aivs");
    let a: Vec<f64> = (0..16).map(|k| k as f64 + 0.5).collect();
    let zeros = tile("f32", 2, 8, &[0.0; 16]);
    let inputs = input_args(&dir, &[("a", tile("f32", 2, 8, &a)), ("part", zeros.clone()), ("out", zeros)]);
    let swapped: Vec<f64> = a[8..].iter().chain(&a[..8]).copied().collect();
    let path = dir.join("kernel.pto");
    std::fs::write(&path, text("    pto.syncall")).unwrap();
    for target in ["a2a3", "a5"] {
        for seed in ["1", "2", "3"] {
            let (code, out, err) = run(&path, &with_inputs(&inputs, &["--target", target, "--schedule", "random", "--seed", seed]));
            assert_eq!(code, 0, "{err}");
            assert_eq!(data(&out, "out"), swapped, "{target} seed {seed}");
        }
    }
    // Without the barrier the in-order schedule runs AIV0 to its end first: it reads AIV1's row
    // before AIV1 wrote it, and checking the sync (`--sync-check=always`) says so.
    std::fs::write(&path, text("")).unwrap();
    let (code, _, err) = run(&path, &with_inputs(&inputs, &["--target", "a2a3", "--sync-check=always"]));
    assert_ne!(code, 0, "{err}");
    assert!(
        err.contains("error[HAZARD_WAR]: b0.aiv1 overwrites bytes another core read in `%part` ([32, 64)), with no pipe slot, FFTS flag or syncall ordering them"),
        "{err}"
    );
    assert!(err.contains("error[HAZARD_RAW]: b0.aiv1 reads bytes another core wrote in `%part` ([0, 32))"), "{err}");
}
