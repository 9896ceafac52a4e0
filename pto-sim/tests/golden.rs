//! The golden vectors of `../shared/golden/cases` (pto-isa CPU simulator outputs) against the
//! simulator, on both targets, for every op the simulator executes today. Integers and masks
//! must match exactly, f16 bit-exactly, f32 within 1e-6 relative (1e-3 for transcendental ops).
//! Cases of ops not executable yet are counted and listed, never silently passed.

use pto_lower::{Target, TargetId};
use pto_sim::{Sim, TileData};
use serde_json::Value;
use std::path::Path;

const TRANSCENDENTAL: &[&str] = &["texp", "tlog", "tsqrt", "trsqrt", "trecip"];
/// Cases whose expected values depend on the oracle's summation order (README: needs a tolerance).
const ORDER_DEPENDENT: &[&str] = &["tmatmul_f16_16x32x16_random"];

fn tile_type(o: &Value) -> String {
    let s = |k: &str| o[k].as_str().unwrap_or("").to_string();
    let n = |k: &str| o[k].as_u64().unwrap_or(0);
    let dtype = match s("dtype").as_str() {
        "u8" => "ui8".to_string(),
        "u16" => "ui16".to_string(),
        "u32" => "ui32".to_string(),
        d => d.to_string(),
    };
    format!(
        "!pto.tile_buf<{}, {}x{}x{dtype}, valid={}x{}, blayout={}, slayout={}, fractal={}>",
        s("loc"),
        n("rows"),
        n("cols"),
        o["valid"][0],
        o["valid"][1],
        s("blayout"),
        s("slayout"),
        n("fractal")
    )
}

fn dtype_of(o: &Value) -> pto_ir::ElemType {
    pto_ir::ElemType::parse(o["dtype"].as_str().unwrap_or("")).expect("known dtype")
}

/// The case as a DPS program: every tile operand is a `.arg`, scalars are `.const`.
fn program(case: &Value) -> String {
    let op = case["op"].as_str().unwrap_or("");
    let operands = case["operands"].as_array().cloned().unwrap_or_default();
    let mut s = String::new();
    for o in &operands {
        s.push_str(&format!(".arg %{} : {}\n", o["name"].as_str().unwrap_or(""), tile_type(o)));
    }
    let mut ins = Vec::new();
    let mut ins_t = Vec::new();
    for o in operands.iter().filter(|o| o["role"] == "in") {
        ins.push(format!("%{}", o["name"].as_str().unwrap_or("")));
        ins_t.push(tile_type(o));
    }
    for sc in case["scalars"].as_array().into_iter().flatten() {
        let name = sc["name"].as_str().unwrap_or("s");
        let dt = sc["dtype"].as_str().unwrap_or("i32").replace('u', "ui");
        let v = &sc["value"];
        let lit = if dt.starts_with('f') && v.is_i64() { format!("{v}.0") } else { v.to_string() };
        s.push_str(&format!(".const %{name} = {lit} : {dt}\n"));
        ins.push(format!("%{name}"));
        ins_t.push(dt);
    }
    for o in operands.iter().filter(|o| o["role"] == "tmp") {
        ins.push(format!("%{}", o["name"].as_str().unwrap_or("")));
        ins_t.push(tile_type(o));
    }
    let mut attrs = Vec::new();
    for (k, v) in case["attrs"].as_object().into_iter().flatten() {
        let text = match k.as_str() {
            "cmpMode" => format!("#pto<cmp {}>", v.as_str().unwrap_or("")),
            "rmode" => format!("#pto<round_mode {}>", v.as_str().unwrap_or("")),
            "sat_mode" => format!("#pto<saturation_mode {}>", v.as_str().unwrap_or("")),
            "maskPattern" => format!("#pto.mask_pattern<{}>", v.as_str().unwrap_or("")),
            _ => v.to_string(),
        };
        attrs.push(format!("{k} = {text}"));
    }
    let attr_dict = if attrs.is_empty() { String::new() } else { format!(" {{{}}}", attrs.join(", ")) };
    if let Some(last) = ins.last_mut() {
        last.push_str(&attr_dict);
    }
    let out = operands.iter().find(|o| o["role"] == "out").expect("an output");
    let ins_part = if ins.is_empty() { String::new() } else { format!("{} : {}", ins.join(", "), ins_t.join(", ")) };
    s.push_str(&format!(
        "pto.{op} ins({ins_part}) outs(%{} : {})\n",
        out["name"].as_str().unwrap_or(""),
        tile_type(out)
    ));
    s
}

fn check_case(case: &Value, target: &'static Target) -> Result<(), String> {
    let text = program(case);
    let (m, _) = pto_asm::parse(&text, pto_ir::FileId(0)).map_err(|d| format!("parse: {:?}\n{text}", d.0))?;
    let diags = pto_ir::verify::verify(&m);
    if diags.has_errors() {
        return Err(format!("verify: {:?}\n{text}", diags.0));
    }
    let mut sim = Sim::new(&m, target).map_err(|d| format!("{d:?}"))?;
    let operands = case["operands"].as_array().cloned().unwrap_or_default();
    for o in operands.iter().filter(|o| o["role"] == "in") {
        let (rows, cols) = (o["rows"].as_u64().unwrap_or(0) as usize, o["cols"].as_u64().unwrap_or(0) as usize);
        let data = TileData::from_json(dtype_of(o), rows, cols, o["data"].as_array().map(|v| v.as_slice()).unwrap_or(&[]))?;
        sim.bind_tile(o["name"].as_str().unwrap_or(""), &data)?;
    }
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
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/golden/cases");
    let mut entries: Vec<_> = std::fs::read_dir(&dir).expect("golden cases").flatten().map(|e| e.path()).collect();
    entries.sort();
    let cases = entries.len();
    let mut passed = 0;
    let mut failures = Vec::new();
    for path in entries {
        let case: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("json");
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
