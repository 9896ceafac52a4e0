//! The instructions added to the simulator for issue 14, each against a reference computed here
//! from pto-isa's semantics (`include/pto/cpu/ElementOp.h`, `TBinSOps.hpp`, `TSelS.hpp`): a
//! 3x5 valid region of 16x16 tiles (16x32 for one-byte types), every element type the target's
//! legality accepts (f32, f16, bf16, i8 .. i64, ui8 .. ui64), both targets. Each arithmetic step
//! rounds to the element type, as the CPU simulator's `CpuSimRoundElement` does; integers wrap.
//! The audit of which test checks which instruction is docs/isa-tests.md.

use pto::TargetName;
use pto::cmd::run::{RunOptions, run};
mod common;
use common::kernel::{input_args, legal, number};
use serde_json::Value;

const ROWS: usize = 3;
const COLS: usize = 5;

/// Operand pattern of a case.
#[derive(Copy, Clone)]
enum Pattern {
    /// `ins(%a, %b) outs(%d)`
    Tiles,
    /// `ins(%a, %s) outs(%d)`
    Scalar,
    /// `ins(%a, %s, %b) outs(%d)`
    ScalarTile,
    /// `ins(%mask, %a, %s) outs(%d)`
    Select,
}

/// `want(a, b_or_s, old_d, round) -> d`.
type Reference = fn(f64, f64, f64, &dyn Fn(f64) -> f64) -> f64;

fn rem(x: f64, y: f64, r: &dyn Fn(f64) -> f64, floored: bool) -> f64 {
    let m = r(x % y);
    if floored && (x >= 0.0) != (y >= 0.0) && m != 0.0 { r(m + y) } else { m }
}

const CASES: &[(&str, Pattern, Reference)] = &[
    ("trem", Pattern::Tiles, |a, b, _, r| rem(a, b, r, true)),
    ("tfmod", Pattern::Tiles, |a, b, _, r| rem(a, b, r, false)),
    ("tpow", Pattern::Tiles, |a, b, _, r| r(a.powf(b))),
    ("tprelu", Pattern::Tiles, |a, b, _, r| if a > 0.0 { a } else { r(a * b) }),
    ("tsubrelu", Pattern::Tiles, |a, b, _, r| r(a - b).max(0.0)),
    ("tmuladddst", Pattern::Tiles, |a, b, d, r| r(r(a * b) + d)),
    ("tfusedmuladd", Pattern::Tiles, |a, b, d, r| r(r(a * d) + b)),
    ("tfusedmuladdrelu", Pattern::Tiles, |a, b, d, r| r(r(a * d) + b).max(0.0)),
    ("trems", Pattern::Scalar, |a, s, _, r| rem(a, s, r, true)),
    ("tfmods", Pattern::Scalar, |a, s, _, r| rem(a, s, r, false)),
    ("tpows", Pattern::Scalar, |a, s, _, r| r(a.powf(s))),
    ("tlrelu", Pattern::Scalar, |a, s, _, r| if a > 0.0 { a } else { r(a * s) }),
    ("taxpy", Pattern::Scalar, |a, s, d, r| r(r(a * s) + d)),
    ("taddsc", Pattern::ScalarTile, |a, s, b, r| r(r(a + s) + b)),
    ("tsubsc", Pattern::ScalarTile, |a, s, b, r| r(r(a - s) + b)),
    // `b` here is the mask bit of the element.
    ("tsels", Pattern::Select, |a, bit, s, _| if bit == 1.0 { a } else { s }),
];

/// Every element type a tile may have; each case runs with those its target accepts.
const DTYPES: &[&str] = &["f32", "f16", "bf16", "i32", "i16", "i8", "ui32", "ui16", "ui8", "i64", "ui64"];

/// Rounds to element type `dtype` (integers truncate and wrap).
fn round_to(dtype: &str) -> impl Fn(f64) -> f64 {
    let dtype = dtype.to_string();
    move |x: f64| common::kernel::round_to_dtype(&dtype, x)
}

/// Deterministic operand values: small integers (halves for floats; magnitudes for unsigned
/// types), nonzero divisors, positive bases for the powers (at most 4 for one-byte types, so
/// `4^3` fits), ui64 minuends of at least 8 (no wrapped difference).
fn values(seed: u64, op: &str, slot: &str, dtype: &str) -> Vec<f64> {
    let float = dtype.starts_with('f') || dtype == "bf16";
    let unsigned = dtype.starts_with("ui");
    let byte = dtype.ends_with('8');
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..ROWS * COLS)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let k = ((x >> 33) % 17) as f64 - 8.0; // -8..=8
            let v = if float { k / 2.0 } else { k };
            let v = if unsigned { v.abs() } else { v };
            // A wrapped 64-bit difference has no exact f64: keep ui64 minuends above the rest.
            let v = if dtype == "ui64" && slot == "a" && op != "tpow" { v + 8.0 } else { v };
            match (op, slot) {
                ("tpow", "a") if byte => v.abs() % 4.0 + 1.0,
                ("tpow", "a") => v.abs() + 1.0,
                ("tpow", "b") => ((x >> 40) % 4) as f64,
                (_, "b") if v == 0.0 => 3.0,
                _ => v,
            }
        })
        .collect()
}

fn scalar_for(op: &str, float: bool, unsigned: bool) -> f64 {
    match op {
        "tpows" => 2.0,
        "trems" | "tfmods" if unsigned => 3.0,
        "trems" | "tfmods" => -3.0,
        _ if float => 1.5,
        _ => 3.0,
    }
}

#[test]
fn new_instructions_match_their_reference_on_a_partial_valid_region() {
    let dir = std::env::temp_dir().join(format!("pto-new-instructions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut checked = Vec::new();
    for &(op, pattern, want) in CASES {
        for &dtype in DTYPES {
            let float = dtype.starts_with('f') || dtype == "bf16";
            let unsigned = dtype.starts_with("ui");
            let cols = if dtype.ends_with('8') { 32 } else { 16 };
            let t = format!("!pto.tile_buf<vec, 16x{cols}x{dtype}, valid={ROWS}x{COLS}>");
            let mask_t = "!pto.tile_buf<vec, 16x32xui8, valid=3x1>";
            let scalar_t = dtype;
            let (params, ins, types) = match pattern {
                Pattern::Tiles => (format!("%a: {t}, %b: {t}"), "%a, %b", format!("{t}, {t}")),
                Pattern::Scalar => (format!("%a: {t}, %s: {scalar_t}"), "%a, %s", format!("{t}, {scalar_t}")),
                Pattern::ScalarTile => (format!("%a: {t}, %s: {scalar_t}, %b: {t}"), "%a, %s, %b", format!("{t}, {scalar_t}, {t}")),
                Pattern::Select => {
                    (format!("%mask: {mask_t}, %a: {t}, %s: {scalar_t}"), "%mask, %a, %s", format!("{mask_t}, {t}, {scalar_t}"))
                }
            };
            // The scratch tile PTOAS's DPS form requires (the op table's `ptoas_tmp`), where
            // PTOAS writes it: last, or before the scalar of `tsels`; large enough for every
            // A2A3 path (docs/scratch.md: at most 6·C elements per row, u8 mask rows for tprelu).
            let (params, ins, types) = if pto_ir::ops::lookup(op).expect("an op").spec().ptoas_tmp.is_empty() {
                (params, ins.to_string(), types)
            } else {
                let tmp_t = if op == "tprelu" {
                    "!pto.tile_buf<vec, 16x32xui8>".to_string()
                } else {
                    format!("!pto.tile_buf<vec, 16x{}x{dtype}>", 8 * cols)
                };
                let (ins, types) = match pattern {
                    Pattern::Select => ("%mask, %a, %tmp, %s".to_string(), format!("{mask_t}, {t}, {tmp_t}, {scalar_t}")),
                    _ => (format!("{ins}, %tmp"), format!("{types}, {tmp_t}")),
                };
                (format!("{params}, %tmp: {tmp_t}"), ins, types)
            };
            let program = dir.join(format!("{op}_{dtype}.pto"));
            std::fs::write(
                &program,
                format!("func.func @k({params}, %d: {t}) {{\n  pto.{op} ins({ins} : {types}) outs(%d : {t})\n  return\n}}\n"),
            )
            .unwrap();
            let a = values(1, op, "a", dtype);
            let b = values(2, op, "b", dtype);
            let d = values(3, op, "d", dtype);
            let mask: Vec<u8> = vec![0b1_0110, 0b0_1001, 0b1_1111];
            let s = scalar_for(op, float, unsigned);
            let write = |name: &str, data: &[f64]| {
                let number = |v: f64| if float { serde_json::json!(v) } else { serde_json::json!(v as i64) };
                let rows: Vec<Vec<Value>> = data.chunks(COLS).map(|row| row.iter().map(|&v| number(v)).collect()).collect();
                let path = dir.join(format!("{op}_{dtype}_{name}.json"));
                std::fs::write(&path, serde_json::to_string(&rows).unwrap()).unwrap();
                format!("{name}={}", path.display())
            };
            let mut inputs = vec![write("a", &a), write("d", &d)];
            match pattern {
                Pattern::Tiles => inputs.push(write("b", &b)),
                Pattern::Scalar => inputs.push(format!("s={s}")),
                Pattern::ScalarTile => inputs.extend([write("b", &b), format!("s={s}")]),
                Pattern::Select => {
                    let path = dir.join(format!("{op}_{dtype}_mask.json"));
                    std::fs::write(&path, serde_json::to_string(&mask.iter().map(|&m| vec![m]).collect::<Vec<_>>()).unwrap()).unwrap();
                    inputs.extend([format!("mask={}", path.display()), format!("s={s}")]);
                }
            }
            for target in [TargetName::A2A3, TargetName::A5] {
                let name = if target == TargetName::A2A3 { "a2a3" } else { "a5" };
                if !legal(&program, name) {
                    continue;
                }
                let out = run(&RunOptions {
                    inputs: inputs.clone(),
                    outputs: vec!["d".into()],
                    ..RunOptions::new(program.display().to_string(), target)
                });
                assert_eq!(out.code, 0, "{op} {dtype} {name}: {}", out.stderr);
                let json: Value = serde_json::from_str(&out.stdout).unwrap();
                let got: Vec<f64> = json["d"]["data"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
                let round = round_to(dtype);
                for i in 0..ROWS * COLS {
                    let (x, y, z) = match pattern {
                        Pattern::Tiles => (a[i], b[i], d[i]),
                        Pattern::Scalar => (a[i], round(s), d[i]),
                        Pattern::ScalarTile => (a[i], round(s), b[i]),
                        Pattern::Select => (a[i], f64::from((mask[i / COLS] >> (i % COLS)) & 1), round(s)),
                    };
                    let expected = want(x, y, z, &round);
                    let same = got[i] == expected || (got[i].is_nan() && expected.is_nan());
                    assert!(same, "{op} {dtype} {name}: element {i} ({x}, {y}, {z}) = {}, expected {expected}", got[i]);
                }
                checked.push(format!("{op}/{dtype}/{name}"));
            }
        }
    }
    // Every instruction ran on both targets in at least one float type; 174 (instruction,
    // type, target) combinations are legal today.
    for &(op, ..) in CASES {
        for target in ["a2a3", "a5"] {
            assert!(checked.iter().any(|c| c.starts_with(&format!("{op}/f")) && c.ends_with(target)), "{op} never ran on {target} (float)");
        }
    }
    assert!(checked.len() >= 174, "{} combinations: {checked:?}", checked.len());
}

/// Runs a Level-2 kernel with JSON inputs; returns the outputs' data.
fn run_kernel(name: &str, text: &str, inputs: &[(&str, Value)], outputs: &[&str], target: TargetName) -> Vec<Vec<f64>> {
    let dir = common::kernel::scratch_dir("new-instructions", name);
    let program = dir.join("k.pto");
    std::fs::write(&program, text).unwrap();
    let inputs = input_args(&dir, inputs);
    let out = run(&RunOptions {
        inputs,
        outputs: outputs.iter().map(|s| s.to_string()).collect(),
        ..RunOptions::new(program.display().to_string(), target)
    });
    assert_eq!(out.code, 0, "{name}: {}", out.stderr);
    let json: Value = serde_json::from_str(&out.stdout).unwrap();
    outputs.iter().map(|o| json[o]["data"].as_array().unwrap().iter().map(number).collect()).collect()
}

/// The partial ops where the two sources' valid regions differ: both valid → op, one valid →
/// that one, neither → 0 (pto-isa `cpu/TPartOp.hpp`); ties in `tpartargmax` take the second pair.
#[test]
fn partial_ops_follow_the_valid_regions() {
    let t = |v: &str| format!("!pto.tile_buf<vec, 8x8xf32, valid={v}>");
    let i = |v: &str| format!("!pto.tile_buf<vec, 8x8xi32, valid={v}>");
    let (a, b, d) = (t("2x3"), t("3x2"), t("3x3"));
    for (op, both) in [("tpartadd", [11.0, 22.0]), ("tpartmul", [10.0, 40.0]), ("tpartmax", [10.0, 20.0]), ("tpartmin", [1.0, 2.0])] {
        let text = format!("func.func @k(%a: {a}, %b: {b}, %d: {d}) {{\n  pto.{op} ins(%a, %b : {a}, {b}) outs(%d : {d})\n  return\n}}\n");
        let a_in = serde_json::json!([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
        let b_in = serde_json::json!([[10.0, 20.0], [30.0, 40.0], [50.0, 60.0]]);
        for target in [TargetName::A2A3, TargetName::A5] {
            let got = &run_kernel(op, &text, &[("a", a_in.clone()), ("b", b_in.clone())], &["d"], target)[0];
            // Row 0: (0,0), (0,1) both valid; (0,2) only a. Row 2: (2,0), (2,1) only b; (2,2) neither.
            assert_eq!(got[..3], [both[0], both[1], 3.0], "{op}");
            assert_eq!(got[6..], [50.0, 60.0, 0.0], "{op}");
        }
    }
    let text = format!(
        "func.func @k(%a: {a}, %b: {b}, %ai: {ia}, %bi: {ib}, %d: {d}, %di: {id}) {{\n  pto.tpartargmax ins(%a, %b, %ai, %bi : {a}, {b}, {ia}, {ib}) outs(%d, %di : {d}, {id})\n  return\n}}\n",
        ia = i("2x3"),
        ib = i("3x2"),
        id = i("3x3")
    );
    let inputs = [
        ("a", serde_json::json!([[5.0, 1.0, 7.0], [2.0, 9.0, 4.0]])),
        ("b", serde_json::json!([[5.0, 3.0], [1.0, 9.0], [8.0, 6.0]])),
        ("ai", serde_json::json!([[100, 101, 102], [103, 104, 105]])),
        ("bi", serde_json::json!([[200, 201], [202, 203], [204, 205]])),
    ];
    let got = run_kernel("tpartargmax", &text, &inputs, &["d", "di"], TargetName::A5);
    assert_eq!(got[0], [5.0, 3.0, 7.0, 2.0, 9.0, 4.0, 8.0, 6.0, 0.0]);
    // (0,0) and (1,1) tie: the second pair's index.
    assert_eq!(got[1], [200.0, 201.0, 102.0, 103.0, 203.0, 105.0, 204.0, 205.0, 0.0]);
}

#[test]
fn fill_pad_pair_sum_and_triangles() {
    // tfillpad: the whole 4x4 capacity, src's 2x3 valid region kept, -inf (pad=3, min) elsewhere.
    let (s, d) = ("!pto.tile_buf<vec, 4x8xf32, valid=2x3>", "!pto.tile_buf<vec, 4x8xf32, pad=3>");
    let text = format!("func.func @k(%s: {s}, %d: {d}) {{\n  pto.tfillpad ins(%s : {s}) outs(%d : {d})\n  return\n}}\n");
    let got = &run_kernel("tfillpad", &text, &[("s", serde_json::json!([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))], &["d"], TargetName::A5)[0];
    assert_eq!(got.len(), 32);
    assert_eq!(got[..4], [1.0, 2.0, 3.0, f64::NEG_INFINITY]);
    assert_eq!(got[8..11], [4.0, 5.0, 6.0]);
    assert!(got[16..].iter().all(|&v| v == f64::NEG_INFINITY));
    // tpairreducesum over 5 valid columns: 3 sums per row (the last one alone), zeros after.
    let t = "!pto.tile_buf<vec, 2x8xi32, valid=2x5>";
    let text = format!("func.func @k(%s: {t}, %d: {t}) {{\n  pto.tpairreducesum ins(%s : {t}) outs(%d : {t})\n  return\n}}\n");
    let got =
        &run_kernel("tpairreducesum", &text, &[("s", serde_json::json!([[1, 2, 3, 4, 5], [10, 20, 30, 40, 50]]))], &["d"], TargetName::A5)
            [0];
    assert_eq!(got, &[3.0, 7.0, 5.0, 0.0, 0.0, 30.0, 70.0, 50.0, 0.0, 0.0]);
    // ttri upper with diagonal 1 over a 3x4 valid region.
    let t = "!pto.tile_buf<vec, 8x16xi16, valid=3x4>";
    let text = format!("func.func @k(%n: i32, %d: {t}) {{\n  pto.ttri ins(%n : i32) outs(%d : {t}) {{isUpperOrLower = 1}}\n  return\n}}\n");
    let dir = std::env::temp_dir().join(format!("pto-ttri-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.pto"), &text).unwrap();
    let out = run(&RunOptions {
        inputs: vec!["n=1".into()],
        outputs: vec!["d".into()],
        ..RunOptions::new(dir.join("k.pto").display().to_string(), TargetName::A2A3)
    });
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json: Value = serde_json::from_str(&out.stdout).unwrap();
    let got: Vec<i64> = json["d"]["data"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
    assert_eq!(got, [0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1]);
}

/// `tscatter`: `dst.flat[idx[i,j]] = src[i,j]` over the indices' valid region; untouched
/// elements keep their value, a repeated index keeps the last write, an index past the tile traps.
#[test]
fn scatter_writes_each_index() {
    let (s, i, d) = ("!pto.tile_buf<vec, 2x8xf32, valid=2x3>", "!pto.tile_buf<vec, 2x8xi32, valid=2x3>", "!pto.tile_buf<vec, 4x8xf32>");
    let text = format!("func.func @k(%s: {s}, %i: {i}, %d: {d}) {{\n  pto.tscatter ins(%s, %i : {s}, {i}) outs(%d : {d})\n  return\n}}\n");
    let zeros = serde_json::json!(vec![vec![0.0; 8]; 4]);
    let inputs = [
        ("s", serde_json::json!([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])),
        ("i", serde_json::json!([[31, 0, 9], [9, 16, 1]])),
        ("d", zeros.clone()),
    ];
    let got = &run_kernel("tscatter", &text, &inputs, &["d"], TargetName::A5)[0];
    let mut want = vec![0.0; 32];
    // Index 9 comes twice (3.0, then 4.0): the later element wins.
    for (k, v) in [(31, 1.0), (0, 2.0), (9, 4.0), (16, 5.0), (1, 6.0)] {
        want[k] = v;
    }
    assert_eq!(got, &want);
    // An index outside the 32-element destination is a located trap.
    let dir = std::env::temp_dir().join(format!("pto-new-instructions-{}-tscatter-bad", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.pto"), &text).unwrap();
    for (name, v) in [("s", inputs[0].1.clone()), ("i", serde_json::json!([[32, 0, 1], [2, 3, 4]])), ("d", zeros)] {
        std::fs::write(dir.join(format!("{name}.json")), v.to_string()).unwrap();
    }
    let out = run(&RunOptions {
        inputs: ["s", "i", "d"].iter().map(|n| format!("{n}={}", dir.join(format!("{n}.json")).display())).collect(),
        ..RunOptions::new(dir.join("k.pto").display().to_string(), TargetName::A5)
    });
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("index 32 at (0, 0) is outside the destination tile (32 elements)"), "{}", out.stderr);
}

/// `tprint` prints as pto-isa's CPU simulator does (`cpu/TPrint.hpp`: `TPRINT RxC`, then the
/// valid rows, each element right-aligned in 8 columns, floats fixed with 4 decimals, 8-bit
/// integers as numbers), to stderr so stdout stays the outputs' JSON. Every element type
/// `tprint` accepts, on both targets.
#[test]
fn tprint_prints_the_valid_region_to_stderr() {
    let floats = "[[1.5, -2.25, 100], [0, 3.125, -7]]";
    let float_text = "TPRINT 2x3\n  1.5000  -2.2500 100.0000\n  0.0000   3.1250  -7.0000\n";
    let signed = "[[-128, 7, 100], [0, -1, 127]]";
    let signed_text = "TPRINT 2x3\n    -128        7      100\n       0       -1      127\n";
    let unsigned = "[[255, 7, 100], [0, 1, 40]]";
    let unsigned_text = "TPRINT 2x3\n     255        7      100\n       0        1       40\n";
    let cases = [
        ("f32", floats, float_text),
        ("f16", floats, float_text),
        ("i32", signed, signed_text),
        ("i16", signed, signed_text),
        ("i8", signed, signed_text),
        ("ui32", unsigned, unsigned_text),
        ("ui16", unsigned, unsigned_text),
        ("ui8", unsigned, unsigned_text),
    ];
    for (dtype, input, want) in cases {
        let t = format!("!pto.tile_buf<vec, 4x32x{dtype}, valid=2x3>");
        let dir = common::kernel::scratch_dir("new-instructions", &format!("tprint-{dtype}"));
        std::fs::write(dir.join("k.pto"), format!("func.func @k(%a: {t}) {{\n  pto.tprint ins(%a : {t})\n  return\n}}\n")).unwrap();
        std::fs::write(dir.join("a.json"), input).unwrap();
        for target in [TargetName::A2A3, TargetName::A5] {
            let out = run(&RunOptions {
                inputs: vec![format!("a={}", dir.join("a.json").display())],
                outputs: vec!["a".into()],
                sync_check: pto::cmd::run::SyncCheck::Never,
                ..RunOptions::new(dir.join("k.pto").display().to_string(), target)
            });
            assert_eq!(out.code, 0, "{dtype}: {}", out.stderr);
            assert_eq!(out.stderr, want, "{dtype} {target:?}");
            assert!(serde_json::from_str::<Value>(&out.stdout).is_ok(), "{}", out.stdout);
        }
    }
}
