//! What `pto run` and `pto lower` report: `--stats` lists every op of the kernel (with the
//! reason an op has no vector program), and the compact preview of outputs (`pto run`'s
//! default on a terminal, `--preview` elsewhere).

mod common;

use pto::TargetName;
use pto::cmd::lower::{Emit, LowerOptions};
use pto::cmd::run::{RunOptions, run};
use pto::preview::preview;
use pto_ir::types::ElemType;
use pto_sim::TileData;

/// Vector ops (`tadd`, twice in a loop) mixed with ops that have no A2A3 vector program.
const MIX: &str = "func.func @mix(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %xv = pto.make_tensor_view %x, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %yv = pto.make_tensor_view %y, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
  %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
  %a = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
  %b = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
  pto.tload ins(%xp : !pto.partition_tensor_view<16x16xf32>) outs(%a : !pto.tile_buf<vec, 16x16xf32>)
  scf.for %i = %c0 to %c2 step %c1 {
    pto.tadd ins(%a, %a : !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>) outs(%b : !pto.tile_buf<vec, 16x16xf32>)
    pto.texp ins(%b : !pto.tile_buf<vec, 16x16xf32>) outs(%a : !pto.tile_buf<vec, 16x16xf32>)
  }
  pto.barrier <PIPE_ALL>
  pto.tstore ins(%a : !pto.tile_buf<vec, 16x16xf32>) outs(%yp : !pto.partition_tensor_view<16x16xf32>)
  return
}
";

fn scratch_file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("pto-run-output-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// The rows of a `--stats` table: (op, line:col, runs, rest of the line).
fn rows(stats: &str) -> Vec<(String, String, u64, String)> {
    stats
        .lines()
        .filter_map(|l| l.strip_prefix("//   "))
        .filter(|l| !l.starts_with("total") && !l.starts_with("not in the total"))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[0].to_string(), w[1].to_string(), w[2].parse().unwrap(), w[3..].join(" "))
        })
        .collect()
}

fn row<'a>(rows: &'a [(String, String, u64, String)], op: &str, at: &str) -> &'a (String, String, u64, String) {
    rows.iter().find(|r| r.0 == op && r.1 == at).unwrap_or_else(|| panic!("no row for {op} at {at}: {rows:?}"))
}

#[test]
fn stats_list_every_pipe_op_with_the_reason_it_has_no_vector_program() {
    let file = scratch_file("mix.pto", MIX);
    // MIX orders nothing but its last store (a `pto.barrier`): not what this test is about.
    let ran = run(&RunOptions {
        default_inputs: true,
        exec_vector: true,
        stats: true,
        sync_check: pto::cmd::run::SyncCheck::Never,
        ..RunOptions::new(file.clone(), TargetName::A2A3)
    });
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let lowered = pto::cmd::lower::run(&LowerOptions { emit: Emit::Vector, stats: true, ..LowerOptions::new(file, TargetName::A2A3) });
    assert_eq!(lowered.code, 0, "{}", lowered.stderr);
    for (what, stats, loop_runs) in [("run", &ran.stderr, 2), ("lower", &lowered.stderr, 1)] {
        let rows = rows(stats);
        // The ops that work on a pipe other than the scalar unit: the load, the add, the exp and
        // the store; constants, views, tiles, the loop, the barrier and the return are no rows.
        assert_eq!(rows.len(), 4, "{what}: {stats}");
        let reason = |op: &str, at: &str| row(&rows, op, at).3.clone();
        assert_eq!(row(&rows, "pto.tadd", "14:5").2, loop_runs, "{what}");
        assert_eq!(reason("pto.tadd", "14:5"), format!("{} {} 0", loop_runs, 16 * loop_runs), "{what}: 1 instruction, 16 repeats a run");
        assert_eq!(row(&rows, "pto.texp", "15:5").2, loop_runs, "{what}");
        assert_eq!(reason("pto.texp", "15:5"), "no vector program: no A2A3 vector program for this instruction yet");
        assert_eq!(reason("pto.tload", "12:3"), "no vector program: data movement (MTE2: GM to an on-chip buffer)");
        assert_eq!(reason("pto.tstore", "18:3"), "no vector program: data movement (MTE3: an on-chip buffer to GM)");
        assert!(
            stats.contains("//   not in the total (no vector program): pto.tload (12:3), pto.texp (15:5), pto.tstore (18:3)\n"),
            "{what}: {stats}"
        );
        let total = stats.lines().find(|l| l.trim_start_matches('/').trim_start().starts_with("total")).expect("total row");
        assert_eq!(total.split_whitespace().skip(2).collect::<Vec<_>>(), [loop_runs.to_string(), (16 * loop_runs).to_string(), "0".into()]);
    }
}

#[test]
fn ops_off_the_vector_pipe_say_where_they_run() {
    use pto::vector_report::no_program_reason;
    use pto_ir::ops::Opcode;
    assert_eq!(no_program_reason(Opcode::TMatmul), "runs on the cube pipe (M)");
    assert_eq!(no_program_reason(Opcode::TExtract), "data movement (MTE1: L1 to L0A/L0B)");
    assert_eq!(no_program_reason(Opcode::SetFlag), "control/sync op");
}

fn f32_tile(rows: usize, cols: usize) -> TileData {
    TileData { dtype: ElemType::F32, rows, cols, bytes: (0..rows * cols).flat_map(|i| (i as f32).to_le_bytes()).collect() }
}

#[test]
fn the_preview_of_a_100x100_tile_shows_its_corners() {
    let (text, elided) = preview("t", &f32_tile(100, 100));
    assert!(elided);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "t: f32 (100, 100)");
    assert_eq!(lines.len(), 1 + 7, "{text}");
    assert_eq!(lines[1], "[[   0.0    1.0    2.0 ...   97.0   98.0   99.0]");
    assert_eq!(lines[3], " [ 200.0  201.0  202.0 ...  297.0  298.0  299.0]");
    assert_eq!(lines[4], " ...");
    assert_eq!(lines[7], " [9900.0 9901.0 9902.0 ... 9997.0 9998.0 9999.0]]");
    // A small tile is shown whole; integers print exactly.
    let small = TileData {
        dtype: ElemType::I32,
        rows: 2,
        cols: 3,
        bytes: [1i32, -20, 3, 4, 5, 600].iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    assert_eq!(preview("s", &small), ("s: i32 (2, 3)\n[[  1 -20   3]\n [  4   5 600]]\n".to_string(), false));
}

#[test]
fn run_prints_a_preview_on_request_and_json_otherwise() {
    let pto = env!("CARGO_BIN_EXE_pto");
    let vadd = common::root().join("examples/vadd.pto");
    let base = ["run", vadd.to_str().unwrap(), "--target", "a5", "--default-inputs"];
    let preview = std::process::Command::new(pto).args(base).arg("--preview").output().expect("runs");
    assert_eq!(preview.status.code(), Some(0), "{}", String::from_utf8_lossy(&preview.stderr));
    let text = String::from_utf8_lossy(&preview.stdout);
    let lines: Vec<&str> = text.lines().collect();
    // `%c` was not passed in: its view's shape, 32x32.
    assert_eq!(lines[..2], ["c: f32 (32, 32)", "[[-2.5  1.0 -4.0 ... -3.0  0.5  4.0]"], "{text}");
    assert_eq!(lines[7], " [ 1.5 -3.5  0.0 ...  1.0 -4.0 -0.5]]", "{text}");
    assert!(lines[8].ends_with("--json or --output-dir DIR for all values)"), "{text}");
    // Not on a terminal (as here) and without --preview: JSON, as before.
    let json = std::process::Command::new(pto).args(base).output().expect("runs");
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON on stdout");
    let data = v["c"]["data"].as_array().expect("data");
    assert_eq!((data.len(), data[0].as_f64(), data[1023].as_f64()), (1024, Some(-2.5), Some(-0.5)), "the preview's corners");
    // --preview and --json contradict each other: a usage error.
    let both = std::process::Command::new(pto).args(base).args(["--preview", "--json"]).output().expect("runs");
    assert_eq!(both.status.code(), Some(2));
}

/// `--output` may name a GM argument: it is output when the kernel wrote it (GM arrays the
/// kernel wrote always are), with no tile argument added; one it never wrote is a usage error.
#[test]
fn output_may_name_a_gm_argument() {
    let pto = env!("CARGO_BIN_EXE_pto");
    let vadd = common::root().join("examples/vadd.pto");
    let base = ["run", vadd.to_str().unwrap(), "--target", "a5", "--default-inputs", "--json"];
    let out = std::process::Command::new(pto).args(base).args(["--output", "c"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let names: Vec<&String> = v.as_object().expect("an object").keys().collect();
    assert_eq!(names, ["c"], "{v}");
    let out = std::process::Command::new(pto).args(base).args(["--output", "%a"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--output a: the kernel never wrote GM argument `%a`"), "{err}");
}

/// `--json` (and JSON by default off a terminal) prints one row of a tile per line: the 16x64
/// softmax output is 20 lines, not over a thousand.
#[test]
fn json_output_has_one_row_per_line() {
    let softmax = common::root().join("examples/softmax.as.pto");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pto"))
        .args(["run", "--json", "--target", "a5", "--default-inputs", "-o", "y"])
        .arg(&softmax)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 16 + 4, "{text}");
    assert!(text.lines().nth(1).unwrap().contains("\"y\": {\"dtype\": \"f32\", \"shape\": [16, 64], \"data\": ["), "{text}");
    let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(v["y"]["data"].as_array().map(Vec::len), Some(1024));
}
