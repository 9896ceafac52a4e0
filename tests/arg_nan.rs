//! Arg-reductions with NaN, as pto-isa's implementations decide (docs/design.md, "NaN in
//! arg-reductions"): on A5 and in the CPU simulator an element wins only when strictly better,
//! so a NaN never wins and a NaN first element keeps index 0; A2A3's `tcolargmax`/`tcolargmin`
//! keep the old index only where `best >= cur` (`<=`), so a NaN row takes the index, and a NaN
//! best makes every later row take it. The tile level and the A2A3 vector level agree.

use pto::TargetName;
use pto::cmd::run::{RunOptions, run};
use pto_ir::types::ElemType;
use pto_sim::TileData;
use serde_json::Value;

const ROWS: usize = 16;
const COLS: usize = 64;

/// `src[r][c] = (7 r) mod 16` (largest at row 9, smallest at row 0), with NaNs at
/// (0, 0), (12, 1) (after the largest) and (3, 2) (before it); column 3 has none.
fn source() -> TileData {
    let value = |r: usize, c: usize| match (r, c) {
        (0, 0) | (12, 1) | (3, 2) => f32::NAN,
        _ => ((7 * r) % 16) as f32,
    };
    let bytes = (0..ROWS * COLS).flat_map(|i| value(i / COLS, i % COLS).to_le_bytes()).collect();
    TileData { dtype: ElemType::F32, rows: ROWS, cols: COLS, bytes }
}

/// The first four indices `op` computes for [`source`] on `target`.
fn first_indices(op: &str, target: TargetName, exec_vector: bool) -> Vec<i64> {
    let dir = std::env::temp_dir().join(format!("pto-arg-nan-{}-{op}-{exec_vector}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join("k.pto");
    std::fs::write(
        &program,
        format!(".arg %src : !pto.tile<{ROWS}x{COLS}xf32>\n%idx = {op} %src : !pto.tile<{ROWS}x{COLS}xf32> -> !pto.tile<1x{COLS}xui32>\n"),
    )
    .unwrap();
    let input = dir.join("src.npy");
    std::fs::write(&input, pto_sim::npy::write(&source()).unwrap()).unwrap();
    let out = run(&RunOptions {
        inputs: vec![format!("src={}", input.display())],
        outputs: vec!["idx".into()],
        exec_vector,
        ..RunOptions::new(program.display().to_string(), target)
    });
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json: Value = serde_json::from_str(&out.stdout).unwrap();
    let data = json["idx"]["data"].as_array().unwrap_or_else(|| panic!("{}", out.stdout));
    data.iter().flat_map(|row| row.as_array().cloned().unwrap_or_else(|| vec![row.clone()])).take(4).map(|v| v.as_i64().unwrap()).collect()
}

#[test]
fn a5_never_lets_a_nan_win() {
    assert_eq!(first_indices("tcolargmax", TargetName::A5, false), [0, 9, 9, 9]);
    assert_eq!(first_indices("tcolargmin", TargetName::A5, false), [0, 0, 0, 0]);
}

#[test]
fn a2a3_column_arg_reductions_take_the_index_of_a_nan_at_both_levels() {
    for exec_vector in [false, true] {
        assert_eq!(first_indices("tcolargmax", TargetName::A2A3, exec_vector), [15, 12, 9, 9], "vector level: {exec_vector}");
        // argmin: column 0's NaN best hands the index to every later row; a later NaN takes it
        // from row 0 (the smallest), and nothing smaller follows.
        assert_eq!(first_indices("tcolargmin", TargetName::A2A3, exec_vector), [15, 12, 3, 0], "vector level: {exec_vector}");
    }
}
