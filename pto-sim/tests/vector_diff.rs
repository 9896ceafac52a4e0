//! Differential test of the A2A3 vector level: every golden case (`../shared/golden/cases`) of
//! an op with a vector lowering runs twice on A2A3 — tile semantics, and the vector program of
//! `pto_lower::vector` on the byte model — and the two outputs must be identical bytes, except
//! where a documented A2A3 behaviour makes them differ (listed in [`QUIRKS`] and checked).

use pto_lower::{Target, TargetId, vector};
use pto_sim::{Sim, TileData};
use serde_json::Value;

mod common;
use common::{bind_inputs, case_files, load, output_name, parse_case};

/// Runs `case` on A2A3; returns the output's valid region and the vector log.
fn run(case: &Value, exec_vector: bool) -> Result<(TileData, Vec<pto_sim::interp::VectorRecord>), String> {
    let (m, _) = parse_case(case)?;
    let mut sim = Sim::new(&m, Target::get(TargetId::A2A3)).map_err(|d| format!("{d:?}"))?;
    sim.exec_vector = exec_vector;
    bind_inputs(case, &mut sim)?;
    sim.run().map_err(|d| format!("run: {} {}", d.class, d.message))?;
    Ok((sim.read_tile(&output_name(case))?, sim.vector_log.clone()))
}

/// Float sums: the vector unit adds the lanes of one iteration pairwise and folds iterations
/// through `tmp`, the tile semantics (the CPU simulator's order) add sequentially; the results
/// agree to rounding.
/// f16 sums also round every partial sum to f16 on the vector unit (the tile semantics
/// accumulate f16 in f32): a relative 2e-3 (two f16 ulps) for f16, 1e-5 for f32.
fn sums_agree(a: &TileData, b: &TileData) -> bool {
    let tol = if a.dtype == pto_ir::ElemType::F16 { 2e-3 } else { 1e-5 };
    a.as_f64().iter().zip(b.as_f64()).all(|(x, y)| (x - y).abs() <= tol * x.abs().max(1.0))
}

/// Documented reasons for a byte difference, and the check that applies instead.
const QUIRKS: &[(&str, &str)] = &[
    ("trowsum", "float sums in tree order (vcadd) vs sequential: equal to 1e-5 (f32), 2e-3 (f16)"),
    ("tcolsum", "float sums: equal to 1e-5 (f32), 2e-3 (f16)"),
    ("tcmps", "16-bit integers compared as f16 bit patterns, 32-bit integers only for equality"),
];

#[test]
fn vector_level_matches_tile_semantics_on_every_golden_case_of_a_lowered_op() {
    let Some(cases) = case_files() else { return };
    let mut compared = Vec::new();
    let mut failures = Vec::new();
    for path in cases {
        let case = load(&path);
        let name = case["case"].as_str().unwrap_or("").to_string();
        let op = case["op"].as_str().unwrap_or("");
        let Some(opcode) = pto_ir::ops::lookup(op) else { continue };
        if !vector::is_lowered(opcode) {
            continue;
        }
        // A2A3 compares 32-bit integers only for equality: every other mode is EQ (NE stays NE).
        let i32_cmp = op == "tcmps"
            && case["operands"][0]["dtype"] == "i32"
            && !matches!(case["attrs"]["cmpMode"].as_str().map(str::to_ascii_uppercase).as_deref(), Some("EQ" | "NE"));
        let mut reference = case.clone();
        if i32_cmp {
            reference["attrs"]["cmpMode"] = Value::from("EQ");
        }
        let (tile, _) = run(&reference, false).unwrap_or_else(|e| panic!("{name}: tile semantics: {e}"));
        let (vec, log) = match run(&case, true) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{name}: vector level: {e}"));
                continue;
            }
        };
        let lowered = log.iter().any(|r| r.cost.is_ok());
        if !lowered {
            let why: Vec<_> = log.iter().filter_map(|r| r.cost.as_ref().err()).collect();
            compared.push(format!("{name}: tile semantics ({why:?})"));
            continue;
        }
        if tile.bytes == vec.bytes {
            compared.push(format!(
                "{name}: {}",
                if i32_cmp { "identical to EQ (A2A3: 32-bit integer compares are EQ only)" } else { "identical" }
            ));
        } else if tile.dtype.is_float() && matches!(op, "trowsum" | "tcolsum") && sums_agree(&tile, &vec) {
            compared.push(format!("{name}: float sum order (within tolerance)"));
        } else {
            failures.push(format!("{name}: bytes differ\n  tile   {:?}\n  vector {:?}", tile.to_json_values(), vec.to_json_values()));
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}\n\ncompared:\n{}", failures.len(), failures.join("\n"), compared.join("\n"));
    insta::assert_snapshot!(compared.join("\n"));
    let _ = QUIRKS;
}
