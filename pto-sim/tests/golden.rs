//! The golden vectors of `../shared/golden/cases` (pto-isa CPU simulator outputs) against the
//! simulator, on both targets, for every op the simulator executes today. Integers and masks
//! must match exactly, f16 bit-exactly, f32 within 1e-6 relative (1e-3 for transcendental ops).
//! Cases of ops not executable yet are counted and listed, never silently passed.

use pto_lower::{Target, TargetId};
use pto_sim::Sim;
use serde_json::Value;

mod common;
use common::{bind_inputs, case_files, load, parse_case};

const TRANSCENDENTAL: &[&str] = &["texp", "tlog", "tsqrt", "trsqrt", "trecip"];
/// Cases whose expected values depend on the oracle's summation order (README: needs a tolerance).
const ORDER_DEPENDENT: &[&str] = &["tmatmul_f16_16x32x16_random"];

fn check_case(case: &Value, target: &'static Target) -> Result<(), String> {
    let (m, _) = parse_case(case)?;
    let mut sim = Sim::new(&m, target).map_err(|d| format!("{d:?}"))?;
    bind_inputs(case, &mut sim)?;
    let operands = case["operands"].as_array().cloned().unwrap_or_default();
    sim.run().map_err(|d| format!("run: {} {}", d.class, d.message))?;
    let out = operands.iter().find(|o| o["role"] == "out").ok_or("no output")?;
    let got = sim.read_tile(out["name"].as_str().unwrap_or(""))?;
    let want = out["data"].as_array().cloned().unwrap_or_default();
    if got.rows * got.cols != want.len() {
        return Err(format!("{} values computed, {} expected", got.rows * got.cols, want.len()));
    }
    let op = case["op"].as_str().unwrap_or("");
    if let Some(bits) = out["bits"].as_array() {
        let gb = got.bits();
        for (i, (g, w)) in gb.iter().zip(bits).enumerate() {
            if Some(*g) != w.as_u64() {
                return Err(format!("element {i}: bits {g:#x}, expected {w}"));
            }
        }
        return Ok(());
    }
    if got.dtype.is_float() {
        let order_dependent = ORDER_DEPENDENT.contains(&case["case"].as_str().unwrap_or(""));
        let tol = if TRANSCENDENTAL.contains(&op) || order_dependent { 1e-3 } else { 1e-6 };
        for (i, (g, w)) in got.as_f64().iter().zip(&want).enumerate() {
            let w = w.as_f64().unwrap_or(f64::NAN);
            if (g - w).abs() > tol * w.abs().max(1e-30) && g != &w {
                return Err(format!("element {i}: {g}, expected {w}"));
            }
        }
    } else {
        for (i, (g, w)) in got.to_json_values().iter().zip(&want).enumerate() {
            if g != w {
                return Err(format!("element {i}: {g}, expected {w}"));
            }
        }
    }
    Ok(())
}

#[test]
fn every_golden_case_matches_on_both_targets() {
    let entries = case_files();
    let cases = entries.len();
    let mut passed = 0;
    let mut failures = Vec::new();
    for path in entries {
        let case = load(&path);
        for id in [TargetId::A2A3, TargetId::A5] {
            match check_case(&case, Target::get(id)) {
                Ok(()) => passed += 1,
                Err(e) => failures.push(format!("{} on {id:?}: {e}", case["case"])),
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert_eq!(cases, 111, "the golden README lists 111 cases");
    assert_eq!(passed, 2 * cases, "every case runs on both targets");
}
