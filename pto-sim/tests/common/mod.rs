//! Shared by the golden-vector tests: a golden case (`../shared/golden/cases/*.json`) as a DPS
//! program, and a simulation of it with its inputs bound.

#![allow(dead_code)]

use pto_sim::{Sim, TileData};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Every case file, sorted.
pub fn case_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/golden/cases");
    let mut entries: Vec<_> = std::fs::read_dir(&dir).expect("golden cases").flatten().map(|e| e.path()).collect();
    entries.sort();
    entries
}

/// One case, parsed.
pub fn load(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("readable")).expect("json")
}

/// Parses and verifies the case's program; returns it with its text.
pub fn parse_case(case: &Value) -> Result<(pto_ir::module::Module, String), String> {
    let text = program(case);
    let (m, _) = pto_asm::parse(&text, pto_ir::FileId(0)).map_err(|d| format!("parse: {:?}\n{text}", d.0))?;
    let diags = pto_ir::verify::verify(&m);
    if diags.has_errors() {
        return Err(format!("verify: {:?}\n{text}", diags.0));
    }
    Ok((m, text))
}

/// Binds the case's inputs into `sim`.
pub fn bind_inputs(case: &Value, sim: &mut Sim) -> Result<(), String> {
    let operands = case["operands"].as_array().cloned().unwrap_or_default();
    for o in operands.iter().filter(|o| o["role"] == "in") {
        let (rows, cols) = (o["rows"].as_u64().unwrap_or(0) as usize, o["cols"].as_u64().unwrap_or(0) as usize);
        let data = TileData::from_json(dtype_of(o), rows, cols, o["data"].as_array().map(|v| v.as_slice()).unwrap_or(&[]))?;
        // The golden files hold the full capacity in storage order (../shared/golden/README.md).
        sim.bind_tile_storage(o["name"].as_str().unwrap_or(""), &data)?;
    }
    Ok(())
}

/// The name of the case's output tile.
pub fn output_name(case: &Value) -> String {
    let operands = case["operands"].as_array().cloned().unwrap_or_default();
    operands.iter().find(|o| o["role"] == "out").and_then(|o| o["name"].as_str()).unwrap_or("").to_string()
}

pub fn tile_type(o: &Value) -> String {
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

pub fn dtype_of(o: &Value) -> pto_ir::ElemType {
    pto_ir::ElemType::parse(o["dtype"].as_str().unwrap_or("")).expect("known dtype")
}

/// The case as a DPS program: every tile operand is a `.arg`, scalars are `.const`.
pub fn program(case: &Value) -> String {
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
    s.push_str(&format!("pto.{op} ins({ins_part}) outs(%{} : {})\n", out["name"].as_str().unwrap_or(""), tile_type(out)));
    s
}
