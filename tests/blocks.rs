//! Many blocks on real programs (issue 16, acceptance 3): the quantized matmul seed with its K
//! range split across 1, 2 and 4 blocks gives partial sums that add up to the one-block result
//! and to a reference computed here; a row softmax over a 4x larger input, one 16-row band per
//! block, gives the reference softmax; results are the same for 1 and 2 threads and for random
//! schedules.

mod common;

use common::kernel::{input_args, number, scratch_dir};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

fn seed(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/seeds").join(name)
}

/// `pto run --json` with `args`: the outputs, or a panic with stderr.
fn run(program: &Path, args: &[String]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_pto")).args(["run", "--json", "--target", "a2a3"]).args(args).arg(program).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{}", stderr);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"))
}

fn data(v: &Value, name: &str) -> Vec<f64> {
    v[name]["data"].as_array().unwrap_or_else(|| panic!("no output `{name}` in {v}")).iter().map(number).collect()
}

fn inputs(dir: &Path, values: &[(&str, Value)]) -> Vec<String> {
    input_args(dir, values).into_iter().flat_map(|a| ["--input".to_string(), a]).collect()
}

/// A deterministic byte sequence (a linear congruential generator).
fn bytes(n: usize, seed: u64) -> Vec<i64> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 33) % 256) as i64
        })
        .collect()
}

#[test]
fn the_quantized_matmul_k_split_adds_up_on_1_2_and_4_blocks() {
    let dir = scratch_dir("blocks", "ksplit");
    let (m, k, n, m0, n0, a_off, b_off) = (64usize, 128usize, 64usize, 32usize, 12usize, 120i64, 133i64);
    let (a, b) = (bytes(m * k, 1), bytes(k * n, 2));
    let args = inputs(
        &dir,
        &[
            ("a", json!({"dtype": "ui8", "shape": [m, k], "data": a})),
            ("b", json!({"dtype": "ui8", "shape": [k, n], "data": b})),
            ("m", json!(m)),
            ("k", json!(k)),
            ("n", json!(n)),
            ("m0", json!(m0)),
            ("n0", json!(n0)),
            ("a_off", json!(a_off)),
            ("b_off", json!(b_off)),
        ],
    );
    // part[i, j] = sum over all of K of (A[m0+i, k] - a_off) (B[k, n0+j] - b_off).
    let want: Vec<f64> = (0..32 * 4)
        .map(|x| {
            let (i, j) = (x / 4, x % 4);
            (0..k).map(|p| (a[(m0 + i) * k + p] - a_off) * (b[p * n + n0 + j] - b_off)).sum::<i64>() as f64
        })
        .collect();
    for blocks in [1usize, 2, 4] {
        let mut results = Vec::new();
        for extra in [vec!["--threads", "1"], vec!["--threads", "2"], vec!["--schedule", "random", "--seed", "7"]] {
            let mut a = args.clone();
            a.extend(["--blocks".to_string(), blocks.to_string()]);
            a.extend(extra.iter().map(|s| s.to_string()));
            let part = data(&run(&seed("quant_matmul_ksplit.pto"), &a), "part");
            assert!(part.len() >= 32 * 4 * blocks, "{blocks} blocks: {} elements", part.len());
            // Block b wrote rows [32b, 32b + 32): the parts add up to the whole K.
            let sum: Vec<f64> = (0..32 * 4).map(|x| (0..blocks).map(|blk| part[blk * 128 + x]).sum()).collect();
            assert_eq!(sum, want, "{blocks} blocks, {extra:?}");
            if blocks > 1 {
                assert_ne!(part[..128], want[..], "{blocks} blocks: block 0 holds only its part of K");
            }
            results.push(part);
        }
        assert!(results.windows(2).all(|w| w[0] == w[1]), "{blocks} blocks: threads and schedules agree");
    }
}

#[test]
fn a_softmax_over_four_blocks_gives_the_reference_softmax() {
    let dir = scratch_dir("blocks", "softmax");
    let (rows, cols) = (64usize, 64usize);
    let x: Vec<f64> = (0..rows * cols).map(|i| ((i * 37 + 11) % 101) as f64 / 25.0 - 2.0).collect();
    let args = inputs(&dir, &[("x", json!({"dtype": "f32", "shape": [rows, cols], "data": x})), ("rows", json!(rows))]);
    let mut runs = Vec::new();
    for extra in [["--threads", "1"], ["--threads", "2"]] {
        let mut a = args.clone();
        a.extend(["--blocks", "4"].map(String::from));
        a.extend(extra.map(String::from));
        runs.push(data(&run(&seed("softmax_blocks.pto"), &a), "y"));
    }
    assert_eq!(runs[0], runs[1], "1 and 2 threads");
    let y = &runs[0];
    assert_eq!(y.len(), rows * cols);
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let max = row.iter().cloned().fold(f64::MIN, f64::max);
        let sum: f64 = row.iter().map(|v| (v - max).exp()).sum();
        for c in 0..cols {
            let want = (row[c] - max).exp() / sum;
            let got = y[r * cols + c];
            assert!((got - want).abs() <= 1e-6 * want.abs().max(1e-3), "y[{r}, {c}] = {got}, want {want}");
        }
    }
}

// ------------------------------------------------------------------ syncall between blocks

fn syncall_kernel(name: &str, edit: impl Fn(&str) -> String) -> std::path::PathBuf {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/blocks/syncall_exchange.pto")).unwrap();
    let path = scratch_dir("blocks", name).join("kernel.pto");
    std::fs::write(&path, edit(&text)).unwrap();
    path
}

/// `pto run --blocks N` that must fail: (exit code, stderr).
fn run_fails(program: &Path, args: &[String]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_pto")).args(["run", "--json", "--target", "a2a3"]).args(args).arg(program).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    stderr
}

/// Blocks that exchange data through GM across `syncall` see each other's writes: they run
/// under one scheduler on one GM (docs/cores.md), whatever the thread count and schedule.
#[test]
fn blocks_exchange_data_through_gm_across_syncall() {
    let path = syncall_kernel("exchange", str::to_string);
    let dir = scratch_dir("blocks", "exchange-inputs");
    let a: Vec<f64> = (0..32).map(|i| (i / 8 * 10 + i % 8) as f64).collect();
    let zeros = json!({"dtype": "f32", "shape": [4, 8], "data": vec![0.0; 32]});
    let args = inputs(&dir, &[("a", json!({"dtype": "f32", "shape": [4, 8], "data": a})), ("part", zeros.clone()), ("out", zeros)]);
    for blocks in [1usize, 2, 4] {
        // Block b doubles row b; after the barrier it copies row (b + 1) mod blocks.
        let expect: Vec<f64> = (0..32).map(|i| if i / 8 < blocks { 2.0 * a[((i / 8 + 1) % blocks) * 8 + i % 8] } else { 0.0 }).collect();
        for extra in [&["--threads", "1"][..], &["--threads", "2"], &["--schedule", "random", "--seed", "7"]] {
            let mut args = args.clone();
            args.extend(["--blocks".to_string(), blocks.to_string()]);
            args.extend(extra.iter().map(|s| s.to_string()));
            assert_eq!(data(&run(&path, &args), "out"), expect, "{blocks} blocks {extra:?}");
        }
    }
    // The barrier after the exchange: each block's load of its neighbour's row is unordered
    // with the neighbour's store.
    let late = syncall_kernel("late", |t| t.replace("  pto.syncall\n", "").replace("  return\n", "  pto.syncall\n  return\n"));
    let mut four = args.clone();
    four.extend(["--blocks".to_string(), "4".to_string()]);
    let err = run_fails(&late, &four);
    assert!(
        err.contains("error[HAZARD_WAR]: block 1 overwrites bytes another block read in `%part` ([32, 64)), with no syncall ordering them"),
        "{err}"
    );
    assert!(err.contains("block 0 accessed them here"), "{err}");
    // Only block 0 arrives: the others end, and block 0 waits forever.
    let dead = syncall_kernel("dead", |t| {
        t.replace("  pto.syncall\n", "  %is0 = arith.cmpi eq, %b, %c0 : index\n  scf.if %is0 {\n    pto.syncall\n  }\n")
    });
    let err = run_fails(&dead, &four);
    assert!(
        err.contains(
            "error[SYNC_DEADLOCK]: every block that has not ended waits forever: b0.core waits for syncall round 0: 1 of 4 cores arrived"
        ),
        "{err}"
    );
    assert!(err.contains("already ended: b1.core, b2.core, b3.core"), "{err}");
    // Without the barrier the blocks run apart, each on its GM copy: each load of a neighbour's
    // row sees the row before any block ran; on hardware it is a race, an error at the later
    // block's access (one per block, array and kind: blocks 1, 2 and 3 overwrite the row the
    // block before reads, block 3 also reads the row block 0 writes).
    let apart = syncall_kernel("apart", |t| t.replace("  pto.syncall\n", ""));
    let out = Command::new(env!("CARGO_BIN_EXE_pto")).args(["run", "--json", "--target", "a2a3"]).args(&four).arg(&apart).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.matches("error[HAZARD_WAR]").count(), 3, "{err}");
    assert_eq!(err.matches("error[HAZARD_RAW]").count(), 1, "{err}");
    assert!(
        err.contains("error[HAZARD_WAR]: block 1 overwrites bytes [32, 64) of `%part` that block 0 reads, with no `syncall` between them"),
        "{err}"
    );
    assert!(
        err.contains("error[HAZARD_RAW]: block 3 reads bytes [0, 32) of `%part` that block 0 writes, with no `syncall` between them"),
        "{err}"
    );
    // Without checking, the same run is silent.
    let quiet = Command::new(env!("CARGO_BIN_EXE_pto"))
        .args(["run", "--json", "--target", "a2a3", "--sync-check=never"])
        .args(&four)
        .arg(&apart)
        .output()
        .unwrap();
    assert_eq!((quiet.status.code(), quiet.stderr.len()), (Some(0), 0), "{}", String::from_utf8_lossy(&quiet.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(data(&v, "out"), vec![0.0; 32], "each block loaded its neighbour's row as it was before the run");
    // More blocks than the scheduler runs together: a located error, not thousands of threads.
    let mut many = args.clone();
    many.extend(["--blocks".to_string(), "257".to_string()]);
    let err = run_fails(&path, &many);
    assert!(err.contains("at most 256 cores, not 257 block(s) of 1") && err.contains("pto.syncall"), "{err}");
}

/// A mix kernel on several blocks with `syncall`: the blocks run together, each with its own
/// pipes and flags, and the vector cores of all blocks meet at the barrier.
#[test]
fn the_vector_cores_of_several_mix_blocks_meet_at_syncall() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/blocks/syncall_mix.pto");
    let dir = scratch_dir("blocks", "syncall-mix");
    let a: Vec<f64> = (0..32).map(|i| (i / 8 * 10 + i % 8) as f64).collect();
    let zeros = json!({"dtype": "f32", "shape": [4, 8], "data": vec![0.0; 32]});
    let args = inputs(&dir, &[("a", json!({"dtype": "f32", "shape": [4, 8], "data": a})), ("part", zeros.clone()), ("out", zeros)]);
    for (blocks, target) in [(1usize, "a2a3"), (2, "a2a3"), (2, "a5")] {
        let rows = 2 * blocks;
        let expect: Vec<f64> = (0..32).map(|i| if i / 8 < rows { a[((i / 8 + 1) % rows) * 8 + i % 8] } else { 0.0 }).collect();
        for seed in ["1", "2", "3"] {
            let mut args = args.clone();
            args.extend(["--blocks", &blocks.to_string(), "--schedule", "random", "--seed", seed].map(String::from));
            let out = Command::new(env!("CARGO_BIN_EXE_pto"))
                .args(["run", "--json", "--target", target])
                .args(&args)
                .arg(&path)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{stderr}");
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(data(&v, "out"), expect, "{blocks} block(s) on {target}, seed {seed}");
        }
    }
}

/// `--default-inputs` sizes a block-indexed view for every block: softmax_blocks' `%rows` is
/// 16 per block (on 4 blocks, the last block's offset `3 * 16` plus its 16 rows), so every block's
/// band is in the view and every row of `%y` sums to 1.
#[test]
fn default_inputs_cover_every_block_of_a_block_indexed_kernel() {
    for blocks in ["1", "2", "4"] {
        let out = Command::new(env!("CARGO_BIN_EXE_pto"))
            .args(["run", "--json", "-q", "--target", "a5", "--default-inputs", "--blocks", blocks])
            .arg(seed("softmax_blocks.pto"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{blocks} blocks: {}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let rows = 16 * blocks.parse::<usize>().unwrap();
        assert_eq!(v["y"]["shape"], json!([rows, 64]), "{blocks} blocks");
        let y = data(&v, "y");
        for r in 0..rows {
            let sum: f64 = y[r * 64..(r + 1) * 64].iter().sum();
            assert!((sum - 1.0).abs() < 1e-5, "{blocks} blocks, row {r}: {sum}");
        }
    }
}
