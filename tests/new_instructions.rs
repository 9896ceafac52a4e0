//! The instructions added to the simulator for issue 14, each against a reference computed here
//! from pto-isa's semantics (`include/pto/cpu/ElementOp.h`, `TBinSOps.hpp`, `TSelS.hpp`): a
//! 3x5 valid region of 16x16 tiles, every element class the target accepts (f32, f16, i32,
//! i16), both targets. Each arithmetic step rounds to the element type, as the CPU simulator's
//! `CpuSimRoundElement` does.

use pto::TargetName;
use pto::cmd::run::{RunOptions, run};
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

/// Rounds to element type `dtype` (integers truncate and wrap).
fn round_to(dtype: &str) -> impl Fn(f64) -> f64 {
    let dtype = dtype.to_string();
    move |x: f64| match dtype.as_str() {
        "f32" => x as f32 as f64,
        "f16" => half::f16::from_f64(x).to_f64(),
        "i32" => (x.trunc() as i64 as i32) as f64,
        _ => (x.trunc() as i64 as i16) as f64,
    }
}

/// Deterministic operand values: small integers (halves for floats), nonzero divisors, positive
/// bases for the powers.
fn values(seed: u64, op: &str, slot: &str, float: bool) -> Vec<f64> {
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..ROWS * COLS)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let k = ((x >> 33) % 17) as f64 - 8.0; // -8..=8
            let v = if float { k / 2.0 } else { k };
            match (op, slot) {
                ("tpow", "a") => v.abs() + 1.0,
                ("tpow", "b") => ((x >> 40) % 4) as f64,
                (_, "b") if v == 0.0 => 3.0,
                _ => v,
            }
        })
        .collect()
}

fn scalar_for(op: &str, float: bool) -> f64 {
    match op {
        "tpows" => 2.0,
        "trems" | "tfmods" => -3.0,
        _ if float => 1.5,
        _ => 3.0,
    }
}

fn legal(program: &std::path::Path, target: &str) -> bool {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pto")).args(["verify", "--target", target]).arg(program).output().unwrap();
    out.status.success()
}

#[test]
fn new_instructions_match_their_reference_on_a_partial_valid_region() {
    let dir = std::env::temp_dir().join(format!("pto-new-instructions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut checked = Vec::new();
    for &(op, pattern, want) in CASES {
        for dtype in ["f32", "f16", "i32", "i16"] {
            let float = dtype.starts_with('f');
            let t = format!("!pto.tile_buf<vec, 16x16x{dtype}, valid={ROWS}x{COLS}>");
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
            let program = dir.join(format!("{op}_{dtype}.pto"));
            std::fs::write(
                &program,
                format!("func.func @k({params}, %d: {t}) {{\n  pto.{op} ins({ins} : {types}) outs(%d : {t})\n  return\n}}\n"),
            )
            .unwrap();
            let a = values(1, op, "a", float);
            let b = values(2, op, "b", float);
            let d = values(3, op, "d", float);
            let mask: Vec<u8> = vec![0b1_0110, 0b0_1001, 0b1_1111];
            let s = scalar_for(op, float);
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
    // Every instruction ran on both targets in at least one float and, where accepted, one
    // integer type.
    for &(op, ..) in CASES {
        for target in ["a2a3", "a5"] {
            assert!(checked.iter().any(|c| c.starts_with(&format!("{op}/f")) && c.ends_with(target)), "{op} never ran on {target} (float)");
        }
    }
    assert!(checked.len() >= 80, "{} combinations: {checked:?}", checked.len());
}
