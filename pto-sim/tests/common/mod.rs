//! Shared by the golden-vector tests: a golden case (`$PTO_SHARED/golden/cases/*.json` or the
//! repository's `tests/golden/cases/*.json`, format in `tests/golden/README.md`) as a DPS
//! program, and a simulation of it with its inputs bound.

#![allow(dead_code)]

use pto_sim::{Sim, TileData};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Where the shared material is, and the skip line when it is not there: the workspace's one
/// helper (`tests/common/shared.rs`).
#[path = "../../../tests/common/shared.rs"]
pub mod shared;

/// Every case file of `$PTO_SHARED/golden/cases`, sorted; `None` when the golden vectors are not
/// there (the suite says so once: [`shared::dir`]).
pub fn case_files() -> Option<Vec<PathBuf>> {
    shared::golden().map(|dir| files_in(&dir))
}

/// Every case file of the repository's `tests/golden/<sub>` (`cases` or `oracle-deviations`), sorted.
pub fn oracle_case_files(sub: &str) -> Vec<PathBuf> {
    files_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden").join(sub))
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
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

/// Binds the case's inputs, and the `init` contents of outputs the op reads, into `sim`.
pub fn bind_inputs(case: &Value, sim: &mut Sim) -> Result<(), String> {
    let operands = case["operands"].as_array().cloned().unwrap_or_default();
    for o in &operands {
        let (key, bits) = if o["role"] == "in" { ("data", "bits") } else { ("init", "init_bits") };
        let Some(values) = o[key].as_array().filter(|_| o["role"] != "tmp") else { continue };
        let (rows, cols) = (o["rows"].as_u64().unwrap_or(0) as usize, o["cols"].as_u64().unwrap_or(0) as usize);
        let data = match o[bits].as_array() {
            // Bit patterns, when given, are the exact contents (f16, bf16, 8-bit floats, index slots).
            Some(bits) => from_bits(dtype_of(o), rows, cols, bits)?,
            None => TileData::from_json(dtype_of(o), rows, cols, values)?,
        };
        let name = o["name"].as_str().unwrap_or("");
        if is_gm(o) {
            // A GM operand is the whole row-major array behind the pointer argument.
            sim.bind_gm(name, &data)?;
        } else {
            // The golden files hold the full capacity in storage order (../shared/golden/README.md).
            sim.bind_tile_storage(name, &data)?;
        }
    }
    Ok(())
}

/// A tile from unsigned bit patterns, one per element, stored little-endian.
fn from_bits(dtype: pto_ir::ElemType, rows: usize, cols: usize, bits: &[Value]) -> Result<TileData, String> {
    if bits.len() != rows * cols {
        return Err(format!("expected {} bit patterns ({rows}x{cols}), found {}", rows * cols, bits.len()));
    }
    let size = dtype.size_bytes() as usize;
    let mut bytes = Vec::with_capacity(bits.len() * size);
    for b in bits {
        let b = b.as_u64().ok_or_else(|| format!("bit pattern `{b}` is not an unsigned integer"))?;
        bytes.extend_from_slice(&b.to_le_bytes()[..size]);
    }
    Ok(TileData { dtype, rows, cols, bytes })
}

/// Whether an operand is a GM array (`"loc": "gm"`): a pointer argument seen through a view.
pub fn is_gm(o: &Value) -> bool {
    o["loc"] == "gm"
}

/// What the simulator holds for output `o` after the run: a tile's valid region, or a GM array
/// (whole, row-major).
pub fn read_output(sim: &Sim, o: &Value) -> Result<TileData, String> {
    let name = o["name"].as_str().unwrap_or("");
    if is_gm(o) {
        return sim
            .gm_outputs()
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, d)| d)
            .ok_or_else(|| format!("GM array `{name}` was not written"));
    }
    sim.read_tile(name)
}

/// The name of the case's (first) output tile.
pub fn output_name(case: &Value) -> String {
    let operands = case["operands"].as_array().cloned().unwrap_or_default();
    operands.iter().find(|o| o["role"] == "out").and_then(|o| o["name"].as_str()).unwrap_or("").to_string()
}

/// The element type's spelling in PTO-AS (`u8` -> `ui8`).
fn elem_spelling(o: &Value) -> String {
    match o["dtype"].as_str().unwrap_or("") {
        "u8" => "ui8".to_string(),
        "u16" => "ui16".to_string(),
        "u32" => "ui32".to_string(),
        d => d.to_string(),
    }
}

/// The type the op sees for operand `o`: a tile buffer, or for a GM operand the partition view.
pub fn tile_type(o: &Value) -> String {
    let s = |k: &str| o[k].as_str().unwrap_or("").to_string();
    let n = |k: &str| o[k].as_u64().unwrap_or(0);
    let dtype = elem_spelling(o);
    if is_gm(o) {
        let sizes = &o["view"]["sizes"];
        return format!("!pto.partition_tensor_view<{}x{}x{dtype}>", sizes[0], sizes[1]);
    }
    // `pad` (tfillpad's destination): 1 zero, 2 max, 3 min.
    let pad = o["pad"].as_u64().map(|p| format!(", pad={p}")).unwrap_or_default();
    format!(
        "!pto.tile_buf<{}, {}x{}x{dtype}, valid={}x{}, blayout={}, slayout={}, fractal={}{pad}>",
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

/// The case as a DPS program: every tile operand is a `.arg`, scalars are `.const`. The `ins`
/// are the input tiles, then the scalars, then `tmp`, unless the case lists their order in `ins`
/// (`taddsc`: `src0, scalar, src1`).
pub fn program(case: &Value) -> String {
    let op = case["op"].as_str().unwrap_or("");
    let operands = case["operands"].as_array().cloned().unwrap_or_default();
    let mut s = String::new();
    // A `Cast`-syntax op (`treshape`) defines its result: `%dst = pto.treshape %src : T -> U`.
    let cast = pto_ir::ops::lookup(op).is_some_and(|o| o.spec().syntax == pto_ir::ops::Syntax::Cast);
    for o in &operands {
        let name = o["name"].as_str().unwrap_or("");
        if cast && o["role"] == "out" {
            continue;
        }
        if is_gm(o) {
            s.push_str(&format!(".arg %{name} : !pto.ptr<{}>\n", elem_spelling(o)));
        } else {
            s.push_str(&format!(".arg %{name} : {}\n", tile_type(o)));
        }
    }
    for o in operands.iter().filter(|o| is_gm(o)) {
        s.push_str(&gm_view(o));
    }
    // The value an operand is passed as: GM operands through their partition view.
    let value = |o: &Value| {
        let name = o["name"].as_str().unwrap_or("");
        if is_gm(o) { format!("{name}_view") } else { name.to_string() }
    };
    // (name, type) of every `ins` operand, in the default order.
    let mut ins: Vec<(String, String)> = Vec::new();
    for o in operands.iter().filter(|o| o["role"] == "in") {
        ins.push((value(o), tile_type(o)));
    }
    for sc in case["scalars"].as_array().into_iter().flatten() {
        let name = sc["name"].as_str().unwrap_or("s");
        let dt = sc["dtype"].as_str().unwrap_or("i32").replace('u', "ui");
        let v = &sc["value"];
        let lit = if dt.starts_with('f') && v.is_i64() { format!("{v}.0") } else { v.to_string() };
        s.push_str(&format!(".const %{name} = {lit} : {dt}\n"));
        ins.push((name.to_string(), dt));
    }
    for o in operands.iter().filter(|o| o["role"] == "tmp") {
        ins.push((o["name"].as_str().unwrap_or("").to_string(), tile_type(o)));
    }
    if let Some(order) = case["ins"].as_array() {
        let pos = |n: &str| order.iter().position(|x| x.as_str().is_some_and(|x| n == x || n == format!("{x}_view"))).unwrap_or(usize::MAX);
        ins.sort_by_key(|(n, _)| pos(n));
    }
    let mut attrs = Vec::new();
    for (k, v) in case["attrs"].as_object().into_iter().flatten() {
        let text = match (ENUM_ATTRS.iter().find(|(a, _)| a == k), v.as_str()) {
            (Some((_, "mask_pattern")), Some(v)) => format!("#pto.mask_pattern<{v}>"),
            (Some((_, kind)), Some(v)) => format!("#pto<{kind} {v}>"),
            // ODS's `I32Attr` (the op table's `i32` kind) is written typed: MLIR reads `7` as i64.
            _ if i32_attr(op, k) => format!("{v} : i32"),
            _ => v.to_string(),
        };
        attrs.push(format!("{k} = {text}"));
    }
    let attr_dict = if attrs.is_empty() { String::new() } else { format!(" {{{}}}", attrs.join(", ")) };
    let names: Vec<String> = ins.iter().map(|(n, _)| format!("%{n}")).collect();
    let types: Vec<String> = ins.iter().map(|(_, t)| t.clone()).collect();
    let ins_part = if ins.is_empty() { String::new() } else { format!("{}{attr_dict} : {}", names.join(", "), types.join(", ")) };
    let outs: Vec<&Value> = operands.iter().filter(|o| o["role"] == "out").collect();
    if cast {
        let (src, dst) = (ins.first().cloned().unwrap_or_default(), outs.first().copied().unwrap_or(&Value::Null));
        s.push_str(&format!("%{} = pto.{op} %{} : {} -> {}\n", value(dst), src.0, src.1, tile_type(dst)));
        return s;
    }
    let out_names: Vec<String> = outs.iter().map(|o| format!("%{}", value(o))).collect();
    let out_types: Vec<String> = outs.iter().map(|o| tile_type(o)).collect();
    s.push_str(&format!("pto.{op} ins({ins_part}) outs({} : {})\n", out_names.join(", "), out_types.join(", ")));
    s
}

/// Enum-valued attributes of the golden files and their PTO enum kind (`cmpMode = "eq"` is
/// `#pto<cmp eq>`); any other attribute is written as its JSON value (`true`, `3`).
const ENUM_ATTRS: &[(&str, &str)] = &[
    ("cmpMode", "cmp"),
    ("rmode", "round_mode"),
    ("sat_mode", "saturation_mode"),
    ("maskPattern", "mask_pattern"),
    ("quant_type", "quant_type"),
    ("coalesce", "coalesce"),
    ("gatherOob", "gather_oob"),
    ("scatterAtomicOp", "scatter_atomic_op"),
    ("scatterOob", "scatter_oob"),
];

/// The tensor view and partition view (`%<name>_view`) of GM operand `o`: the whole array
/// (`rows x cols`, row-major) and the window `view` of it that the op sees.
fn gm_view(o: &Value) -> String {
    let name = o["name"].as_str().unwrap_or("");
    let dt = elem_spelling(o);
    let (rows, cols) = (o["rows"].as_u64().unwrap_or(0), o["cols"].as_u64().unwrap_or(0));
    let (off, size) = (&o["view"]["offsets"], &o["view"]["sizes"]);
    let c = |k: &str, v: &Value| format!("%{name}_{k} = arith.constant {v} : index\n");
    let mut s = String::new();
    for (k, v) in [
        ("rows", Value::from(rows)),
        ("cols", Value::from(cols)),
        ("one", Value::from(1)),
        ("r0", off[0].clone()),
        ("c0", off[1].clone()),
        ("vr", size[0].clone()),
        ("vc", size[1].clone()),
    ] {
        s.push_str(&c(k, &v));
    }
    s.push_str(&format!(
        "%{name}_tv = pto.make_tensor_view %{name}, shape = [%{name}_rows, %{name}_cols], strides = [%{name}_cols, %{name}_one] : !pto.tensor_view<?x?x{dt}>\n"
    ));
    s.push_str(&format!(
        "%{name}_view = pto.partition_view %{name}_tv, offsets = [%{name}_r0, %{name}_c0], sizes = [%{name}_vr, %{name}_vc] : !pto.tensor_view<?x?x{dt}> -> {}\n",
        tile_type(o)
    ));
    s
}

/// Whether attribute `name` of op `op` is of the op table's `i32` kind.
fn i32_attr(op: &str, name: &str) -> bool {
    pto_ir::ops::lookup(op).is_some_and(|o| o.parsed().attrs.iter().any(|a| a.name == name && a.kind == "i32"))
}
