//! The fixpipe, quantization, convolution-configuration, placement and TPipe instructions in
//! the simulator, each against values computed here from pto-isa's semantics (the ISA pages,
//! and `include/pto/cpu` where a page is silent): partial valid regions, every element class
//! each accepts, on every target whose legality accepts it; the configuration instructions by
//! their effect on later ops and by their `--trace` lines.

use pto::TargetName;
use pto::cmd::run::{RunOptions, run};
mod common;
use common::kernel::{input_args, legal, number};
use serde_json::{Value, json};

const TARGETS: [(TargetName, &str); 2] = [(TargetName::A2A3, "a2a3"), (TargetName::A5, "a5")];

fn dir(name: &str) -> std::path::PathBuf {
    common::kernel::scratch_dir("fixpipe-conv", name)
}

/// Writes the kernel and its JSON inputs; `None` when `target`'s legality rejects the kernel.
fn prepare(name: &str, text: &str, inputs: &[(&str, Value)], target: &str) -> Option<RunOptions> {
    let d = dir(name);
    let program = d.join(format!("{target}.pto"));
    std::fs::write(&program, text).unwrap();
    if !legal(&program, target) {
        return None;
    }
    let inputs = input_args(&d, inputs);
    let t = if target == "a2a3" { TargetName::A2A3 } else { TargetName::A5 };
    Some(RunOptions { inputs, ..RunOptions::new(program.display().to_string(), t) })
}

/// Runs a kernel; returns each output's data and the `--trace` text, or `None` when the target
/// rejects the kernel.
fn run_on(name: &str, text: &str, inputs: &[(&str, Value)], outputs: &[&str], target: &str) -> Option<(Vec<Vec<f64>>, String)> {
    let opts = prepare(name, text, inputs, target)?;
    // GM arrays the kernel wrote are always output; `gm:NAME` reads one.
    let tiles = outputs.iter().filter(|o| !o.starts_with("gm:")).map(|s| s.to_string()).collect();
    let out = run(&RunOptions { outputs: tiles, trace: true, ..opts });
    assert_eq!(out.code, 0, "{name} on {target}: {}", out.stderr);
    let json: Value = serde_json::from_str(&out.stdout).unwrap();
    let data = |o: &str| {
        json[o.trim_start_matches("gm:")]["data"].as_array().unwrap_or_else(|| panic!("{name}: no output {o}")).iter().map(number).collect()
    };
    Some((outputs.iter().map(|o| data(o)).collect(), out.stderr))
}

/// Runs a kernel that must fail; returns its diagnostics.
fn run_fails(name: &str, text: &str, inputs: &[(&str, Value)], target: &str) -> String {
    let opts = prepare(name, text, inputs, target).expect("legal");
    let out = run(&opts);
    assert_ne!(out.code, 0, "{name} on {target} should fail");
    out.stderr
}

/// A `rows x cols` JSON array (integral values as JSON integers, which every element type reads).
fn grid(rows: usize, cols: usize, f: impl Fn(usize, usize) -> f64) -> Value {
    let value = |v: f64| if v.fract() == 0.0 && v.abs() < 9e15 { json!(v as i64) } else { json!(v) };
    json!((0..rows).map(|r| (0..cols).map(|c| value(f(r, c))).collect::<Vec<Value>>()).collect::<Vec<_>>())
}

fn f16_round(x: f64) -> f64 {
    half::f16::from_f64(x).to_f64()
}

// ------------------------------------------------------------------ fixpipe

/// Per-column scales, offsets and shift fields of the quant words (16 columns).
const SCALES: [f32; 8] = [0.5, 1.0, 3.0, 0.25, -1.0, 0.5, 4.0, 1.5];
const OFFSETS: [u64; 8] = [0, 3, 0, 1, 0, 2, 0, 0];

/// pto-isa's vector quant word: the scale's f32 bits (m1 is bits 13..31), the shift field in
/// bits 32..35, the offset in bits 37..45, the sign of an 8-bit output in bit 46.
fn word(j: usize, signed: bool) -> u64 {
    u64::from(SCALES[j % 8].to_bits()) | ((j as u64 % 4) << 32) | (OFFSETS[j % 8] << 37) | (u64::from(signed) << 46)
}

/// The converted value of `x` (type `s`) to `d` with the quant word of column `j`; `words`
/// says whether the quant tile holds words (else f32 scales: offset 0, shift field 0).
fn fixpipe_ref(x: f64, s: &str, d: &str, j: usize, words: bool) -> f64 {
    let scale = SCALES[j % 8];
    match (s, d) {
        // No quantization mode for a ui32 source (`GetVectorPreQuantMode`); the values fit.
        ("ui32", _) => x,
        (_, "i8" | "ui8") => {
            let offset = if words { OFFSETS[j % 8] as f32 } else { 0.0 };
            let r = ((x as f32) * scale + offset).round_ties_even() as f64;
            if d == "i8" { r.clamp(-128.0, 127.0) } else { r.clamp(0.0, 255.0) }
        }
        ("i32", "f16") => f16_round(((x as f32) * scale).clamp(-65504.0, 65504.0) as f64),
        ("i32", "i16") => {
            let shift = if words { j as u32 % 4 + 1 } else { 1 };
            f64::from(((x as i32) >> shift) as i16)
        }
        (_, "f16") => f16_round(x),
        (_, "bf16") => half::bf16::from_f64(x).to_f64(),
        // The 8-bit float destinations get values each holds exactly (`acc_value`).
        _ => x,
    }
}

/// Accumulator values: f32 halves and odd numbers around zero (ties for the 0.5 scales), i32
/// thousands (saturating the 8-bit outputs), ui32 small multiples of 3; for the 8-bit float
/// destinations, `±2^k` and `±1.5 * 2^k` up to 192, which E4M3FN, E5M2 and HiFloat8 all hold.
fn acc_value(s: &str, d: &str, r: usize, c: usize) -> f64 {
    let k = r * 8 + c;
    if d.starts_with("f8") || d == "hif8" {
        let v = [1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0, 96.0, 128.0, 192.0][k % 16];
        return if k.is_multiple_of(3) { -v } else { v };
    }
    let k = k as f64;
    match s {
        "f32" => 7.0 * k - 40.0,
        "ui32" => 3.0 * k,
        _ => 1000.0 * k - 7000.0 + 3.0,
    }
}

#[test]
fn fixpipe_moves_convert_each_column_with_its_quant_word() {
    // Every (source, destination) pair of the legality tables; the ones a target rejects are
    // skipped there (A5 adds bf16 and the 8-bit floats; ui32 sources convert plainly).
    let pairs = [
        ("f32", "i8"),
        ("f32", "ui8"),
        ("f32", "f16"),
        ("f32", "f32"),
        ("f32", "bf16"),
        ("f32", "f8E4M3FN"),
        ("f32", "f8E5M2"),
        ("f32", "hif8"),
        ("i32", "i8"),
        ("i32", "ui8"),
        ("i32", "f16"),
        ("i32", "i16"),
        ("i32", "bf16"),
        ("ui32", "i8"),
        ("ui32", "ui8"),
        ("ui32", "f16"),
        ("ui32", "i16"),
        ("ui32", "ui16"),
        ("ui32", "ui32"),
        ("ui32", "f32"),
    ];
    let mut ran = Vec::new();
    for op in ["tmov.fp", "textract_fp", "tinsert_fp", "tstore_fp"] {
        for (s, d) in pairs {
            for fp_dtype in ["ui64", "f32"] {
                let words = fp_dtype == "ui64";
                let (src_valid, dst_valid, at) = match op {
                    "textract_fp" => ((4, 8), (3, 5), (1, 2)),
                    "tinsert_fp" => ((3, 5), (5, 8), (1, 2)),
                    _ => ((3, 5), (3, 5), (0, 0)),
                };
                let a =
                    format!("!pto.tile_buf<acc, 16x16x{s}, blayout=col_major, slayout=row_major, valid={}x{}>", src_valid.0, src_valid.1);
                let f = format!("!pto.tile_buf<scaling, 1x16x{fp_dtype}>");
                let dt =
                    format!("!pto.tile_buf<mat, 16x32x{d}, blayout=col_major, slayout=row_major, valid={}x{}>", dst_valid.0, dst_valid.1);
                let v = format!("!pto.partition_tensor_view<3x5x{d}>");
                let body = match op {
                    "tmov.fp" => format!("  pto.tmov.fp ins(%a, %fp : {a}, {f}) outs(%d : {dt})\n"),
                    "tstore_fp" => format!(
                        "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %c3 = arith.constant 3 : index\n  %c5 = arith.constant 5 : index\n  %t = pto.make_tensor_view %d, shape = [%c3, %c5], strides = [%c5, %c1] : !pto.tensor_view<3x5x{d}>\n  %v = pto.partition_view %t, offsets = [%c0, %c0], sizes = [%c3, %c5] : !pto.tensor_view<3x5x{d}> -> {v}\n  pto.tstore_fp ins(%a, %fp : {a}, {f}) outs(%v : {v})\n"
                    ),
                    _ => format!(
                        "  %r = arith.constant {} : index\n  %c = arith.constant {} : index\n  pto.{op} ins(%a, %fp, %r, %c : {a}, {f}, index, index) outs(%d : {dt})\n",
                        at.0, at.1
                    ),
                };
                let d_param = if op == "tstore_fp" { format!("!pto.ptr<{d}>") } else { dt.clone() };
                let text = format!("func.func @k(%a: {a}, %fp: {f}, %d: {d_param}) {{\n{body}  return\n}}\n");
                let signed = d == "i8";
                let fp_row: Vec<Value> = (0..16).map(|j| if words { json!(word(j, signed)) } else { json!(SCALES[j % 8]) }).collect();
                let mut inputs = vec![("a", grid(src_valid.0, src_valid.1, |r, c| acc_value(s, d, r, c))), ("fp", json!([fp_row]))];
                if op == "tstore_fp" {
                    inputs.push(("d", grid(3, 5, |_, _| 0.0)));
                }
                for (_, target) in TARGETS {
                    let name = format!("{op}-{s}-{d}-{fp_dtype}");
                    let output = if op == "tstore_fp" { "gm:d" } else { "d" };
                    let Some((got, _)) = run_on(&name, &text, &inputs, &[output], target) else { continue };
                    let got = &got[0];
                    for i in 0..dst_valid.0 {
                        for j in 0..dst_valid.1 {
                            let want = match op {
                                "textract_fp" => fixpipe_ref(acc_value(s, d, at.0 + i, at.1 + j), s, d, at.1 + j, words),
                                "tinsert_fp" => {
                                    let (si, sj) = (i.wrapping_sub(at.0), j.wrapping_sub(at.1));
                                    if si < src_valid.0 && sj < src_valid.1 {
                                        fixpipe_ref(acc_value(s, d, si, sj), s, d, sj, words)
                                    } else {
                                        0.0
                                    }
                                }
                                _ => fixpipe_ref(acc_value(s, d, i, j), s, d, j, words),
                            };
                            assert_eq!(got[i * dst_valid.1 + j], want, "{name} on {target}: element ({i}, {j})");
                        }
                    }
                    ran.push(format!("{op}/{s}/{d}/{target}"));
                }
            }
        }
    }
    assert!(ran.len() >= 232, "{} combinations ran: {ran:?}", ran.len());
    // Each instruction ran from every source type on both targets (ui32: tmov.fp, tstore_fp).
    for op in ["tmov.fp", "textract_fp", "tinsert_fp", "tstore_fp"] {
        for s in ["f32", "i32", "ui32"] {
            if s == "ui32" && op.contains("_fp") && op != "tstore_fp" {
                continue;
            }
            for (_, target) in TARGETS {
                assert!(
                    ran.iter().any(|r| r.starts_with(&format!("{op}/{s}/")) && r.ends_with(target)),
                    "{op} from {s} never ran on {target}: {ran:?}"
                );
            }
        }
    }
}

#[test]
fn a_quant_tile_too_narrow_for_the_window_is_a_located_error() {
    let a = "!pto.tile_buf<acc, 16x16xf32, blayout=col_major, slayout=row_major, valid=3x5>";
    let f = "!pto.tile_buf<scaling, 1x16xf32, valid=1x4>";
    let d = "!pto.tile_buf<mat, 16x32xi8, blayout=col_major, slayout=row_major, valid=3x5>";
    let text = format!("func.func @k(%a: {a}, %fp: {f}, %d: {d}) {{\n  pto.tmov.fp ins(%a, %fp : {a}, {f}) outs(%d : {d})\n  return\n}}\n");
    let err = run_fails("narrow-fp", &text, &[("a", grid(3, 5, |_, _| 1.0)), ("fp", json!([[1.0, 1.0, 1.0, 1.0]]))], "a5");
    assert!(err.contains("no word for columns 0..5") && err.contains("pto.tmov.fp"), "{err}");
}

#[test]
fn quant_registers_are_written_and_traced() {
    let f = "!pto.tile_buf<scaling, 1x16xui64>";
    let text = format!(
        "func.func @k(%fp: {f}) {{\n  %s = arith.constant 0.5 : f32\n  pto.set_quant_scalar ins(%s : f32) {{out_dtype = i8}}\n  pto.set_quant_scalar ins(%s : f32) {{out_dtype = ui8}}\n  pto.set_quant_scalar ins(%s : f32) {{out_dtype = f16}}\n  pto.set_quant_vector ins(%fp : {f})\n  return\n}}\n"
    );
    for (_, target) in TARGETS {
        let (_, trace) = run_on("quant-regs", &text, &[("fp", json!([vec![1u64; 16]]))], &[], target).expect("legal");
        // 0.5 is 0x3F000000; bit 46 marks a signed 8-bit output (pto-isa SET_QUANT_SCALAR).
        assert!(trace.contains("QUANT_SCALAR = 0x000040003f000000 (scale 0.5, output i8, sign bit 1)"), "{trace}");
        assert!(trace.contains("QUANT_SCALAR = 0x000000003f000000 (scale 0.5, output ui8, sign bit 0)"), "{trace}");
        assert!(trace.contains("QUANT_SCALAR = 0x000000003f000000 (scale 0.5, output f16, sign bit 0)"), "{trace}");
        assert!(trace.contains("QUANT_VECTOR = scaling+0 (ui64 1x16 tile)"), "{trace}");
    }
    // The state itself, through the library.
    let (m, _) = pto_asm::parse(&text, pto_ir::FileId(0)).expect("parses");
    let target = pto_lower::Target::get(pto_lower::TargetId::A5);
    let (lowered, _) = pto_lower::run(pto_ir::verify::Verified::new(m).expect("verifies"), target, Default::default()).expect("lowers");
    let mut sim = pto_sim::Sim::new(&lowered, target).expect("places");
    sim.use_default_inputs();
    sim.run().unwrap();
    assert_eq!(sim.regs.quant_scalar, Some(0x3F00_0000));
    assert_eq!(sim.regs.quant_vector.map(|t| (t.vrows, t.vcols)), Some((1, 16)));
}

// ------------------------------------------------------------------ dequant and fused converts

#[test]
fn tdequant_subtracts_the_offset_and_scales_per_row() {
    for src in ["i8", "i16"] {
        for per_row in [true, false] {
            let s = format!("!pto.tile_buf<vec, 16x32x{src}, valid=3x5>");
            let pcols = if per_row { 1 } else { 5 };
            let p = format!("!pto.tile_buf<vec, 16x8xf32, valid=3x{pcols}>");
            let d = "!pto.tile_buf<vec, 16x8xf32, valid=3x5>";
            let text = format!(
                "func.func @k(%s: {s}, %scale: {p}, %offset: {p}, %d: {d}) {{\n  pto.tdequant ins(%s, %scale, %offset : {s}, {p}, {p}) outs(%d : {d})\n  return\n}}\n"
            );
            let x = |r: usize, c: usize| (r * 5 + c) as f64 * 9.0 - 60.0;
            let scale = |r: usize, c: usize| [0.5, 2.0, -0.25][r] + c as f64;
            let offset = |r: usize, c: usize| [1.0, -3.0, 10.0][r] * (c + 1) as f64;
            let inputs = [("s", grid(3, 5, x)), ("scale", grid(3, pcols, scale)), ("offset", grid(3, pcols, offset))];
            let mut ran = 0;
            for (_, target) in TARGETS {
                let Some((got, _)) = run_on(&format!("tdequant-{src}-{per_row}"), &text, &inputs, &["d"], target) else { continue };
                for r in 0..3 {
                    for c in 0..5 {
                        let pc = c.min(pcols - 1);
                        let want = ((x(r, c) as f32 - offset(r, pc) as f32) * scale(r, pc) as f32) as f64;
                        assert_eq!(got[0][r * 5 + c], want, "tdequant {src} per_row={per_row} {target} ({r}, {c})");
                    }
                }
                ran += 1;
            }
            assert_eq!(ran, 2, "tdequant {src} ran on both targets");
        }
    }
}

#[test]
fn tadddeqrelu_adds_scales_clamps_and_narrows_to_f16() {
    let i = "!pto.tile_buf<vec, 16x16xi32, valid=3x5>";
    let h = "!pto.tile_buf<vec, 16x16xf16, valid=3x5>";
    let text = format!(
        "func.func @k(%a: {i}, %b: {i}, %s: f32, %d: {h}) {{\n  pto.tadddeqrelu ins(%a, %b, %s : {i}, {i}, f32) outs(%d : {h})\n  return\n}}\n"
    );
    let a = |r: usize, c: usize| ((r * 5 + c) as f64 - 6.0) * 37.0;
    let b = |r: usize, c: usize| if (r, c) == (2, 4) { 2_000_000_000.0 } else { 5.0 * c as f64 };
    for (_, target) in TARGETS {
        let (got, _) =
            run_on("tadddeqrelu", &text, &[("a", grid(3, 5, a)), ("b", grid(3, 5, b)), ("s", json!(0.3))], &["d"], target).expect("legal");
        for r in 0..3 {
            for c in 0..5 {
                let x = (a(r, c) + b(r, c)) as i64 as i32;
                // ((x * 2^-17) * s) * 2^17 in f32, ReLU, saturating f16.
                let y = (((x as f32) * 2f32.powi(-17)) * 0.3f32 * 2f32.powi(17)).max(0.0);
                assert_eq!(got[0][r * 5 + c], f16_round(y.min(65504.0) as f64), "{target} ({r}, {c})");
            }
        }
        // The 2e9 element saturates at the f16 maximum.
        assert_eq!(got[0][14], 65504.0);
    }
    let f = "!pto.tile_buf<vec, 16x16xf32, valid=3x5>";
    let bad = format!(
        "func.func @k(%a: {f}, %b: {f}, %d: {f}) {{\n  %s = arith.constant 2.0 : f32\n  pto.tadddeqrelu ins(%a, %b, %s : {f}, {f}, f32) outs(%d : {f})\n  return\n}}\n"
    );
    let err = run_fails("tadddeqrelu-f32", &bad, &[("a", grid(3, 5, |_, _| 1.0)), ("b", grid(3, 5, |_, _| 1.0))], "a5");
    assert!(err.contains("i32 sources into an f16 destination"), "{err}");
}

#[test]
fn taddreluconv_adds_clamps_at_zero_and_converts() {
    for (s, d) in [("f32", "f16"), ("f16", "i8"), ("i16", "i8")] {
        let st = format!("!pto.tile_buf<vec, 16x32x{s}, valid=3x5>");
        let dt = format!("!pto.tile_buf<vec, 16x32x{d}, valid=3x5>");
        let text = format!(
            "func.func @k(%a: {st}, %b: {st}, %d: {dt}) {{\n  pto.taddreluconv ins(%a, %b : {st}, {st}) outs(%d : {dt})\n  return\n}}\n"
        );
        let float = s != "i16";
        let a = move |r: usize, c: usize| {
            let k = (r * 5 + c) as f64;
            if float { k * 13.25 - 50.0 } else { k * 13.0 - 50.0 }
        };
        let b = |_: usize, c: usize| c as f64 * 0.5 * if s == "i16" { 2.0 } else { 1.0 };
        for (_, target) in TARGETS {
            let (got, _) =
                run_on(&format!("taddreluconv-{s}"), &text, &[("a", grid(3, 5, a)), ("b", grid(3, 5, b))], &["d"], target).expect("legal");
            assert_eq!(got[0].len(), 15, "{s}->{d} {target}: the 3x5 valid region");
            for (k, &got) in got[0].iter().enumerate() {
                let (r, c) = (k / 5, k % 5);
                let sum = match s {
                    "f16" => f16_round(f16_round(a(r, c)) + f16_round(b(r, c))),
                    "f32" => ((a(r, c) as f32) + (b(r, c) as f32)) as f64,
                    _ => a(r, c) + b(r, c),
                };
                let relu = sum.max(0.0);
                let want = if d == "f16" { f16_round(relu) } else { relu.round_ties_even().min(127.0) };
                assert_eq!(got, want, "{s}->{d} {target} element {k}");
            }
        }
    }
}

// ------------------------------------------------------------------ placement

#[test]
fn tassign_places_a_tile_that_aliases_its_address() {
    for dtype in ["f32", "i16"] {
        let v = format!("!pto.tile_buf<vec, 16x16x{dtype}, valid=3x5>");
        // %t is placed on %a's storage (the first tile argument sits at UB+0): writing %t
        // overwrites %a.
        let text = format!(
            "func.func @k(%a: {v}, %b: {v}, %o: {v}) {{\n  %addr = arith.constant 0 : i64\n  %t = pto.tassign %b, %addr : {v} -> {v}\n  pto.tadd ins(%b, %b : {v}, {v}) outs(%t : {v})\n  pto.tadd ins(%a, %b : {v}, {v}) outs(%o : {v})\n  return\n}}\n"
        );
        let b = |r: usize, c: usize| (r * 5 + c) as f64;
        for (_, target) in TARGETS {
            let (got, trace) =
                run_on(&format!("tassign-{dtype}"), &text, &[("a", grid(3, 5, |_, _| 100.0)), ("b", grid(3, 5, b))], &["o"], target)
                    .expect("legal");
            // %a now holds 2b, so o = 2b + b.
            assert_eq!(got[0], (0..15).map(|k| 3.0 * k as f64).collect::<Vec<_>>(), "{dtype} {target}");
            assert!(trace.contains("pto.tassign") && trace.contains("placed at UB+0"), "{trace}");
        }
    }
    let v = "!pto.tile_buf<vec, 16x16xf32>";
    let bad =
        format!("func.func @k(%a: {v}) {{\n  %addr = arith.constant 3 : i64\n  %t = pto.tassign %a, %addr : {v} -> {v}\n  return\n}}\n");
    let err = run_fails("tassign-misaligned", &bad, &[], "a5");
    assert!(err.contains("misaligned"), "{err}");
}

#[test]
fn tsubview_aliases_the_source_window() {
    for dtype in ["f32", "i32", "f16"] {
        let s = format!("!pto.tile_buf<vec, 4x16x{dtype}, valid=4x9>");
        let d = format!("!pto.tile_buf<vec, 2x16x{dtype}, valid=2x3>");
        // Write through the alias with a tile op, then read the source.
        let text = format!(
            "func.func @k(%s: {s}, %d: {d}, %o: {d}) {{\n  %r = arith.constant 1 : index\n  %c = arith.constant 2 : index\n  pto.tsubview ins(%s, %r, %c : {s}, index, index) outs(%d : {d})\n  pto.tadd ins(%d, %d : {d}, {d}) outs(%o : {d})\n  pto.tadd ins(%d, %d : {d}, {d}) outs(%d : {d})\n  return\n}}\n"
        );
        let src = |r: usize, c: usize| (r * 9 + c) as f64;
        for (_, target) in TARGETS {
            let (got, _) = run_on(&format!("tsubview-{dtype}"), &text, &[("s", grid(4, 9, src))], &["o", "s"], target).expect("legal");
            // o = 2 * s[1 + i, 2 + j]
            assert_eq!(got[0], vec![22.0, 24.0, 26.0, 40.0, 42.0, 44.0], "{dtype} {target}");
            // Doubling %d doubled that window of %s, and nothing else.
            for r in 0..4 {
                for c in 0..9 {
                    let inside = (1..3).contains(&r) && (2..5).contains(&c);
                    assert_eq!(got[1][r * 9 + c], src(r, c) * if inside { 2.0 } else { 1.0 }, "{dtype} {target} s({r}, {c})");
                }
            }
        }
    }
    // A destination whose rows are laid out with another stride cannot alias the window.
    let (s, d) = ("!pto.tile_buf<vec, 4x16xf32>", "!pto.tile_buf<vec, 2x8xf32, valid=2x3>");
    let bad = format!(
        "func.func @k(%s: {s}, %d: {d}) {{\n  %r = arith.constant 1 : index\n  pto.tsubview ins(%s, %r, %r : {s}, index, index) outs(%d : {d})\n  return\n}}\n"
    );
    let err = run_fails("tsubview-stride", &bad, &[("s", grid(4, 16, |_, _| 0.0))], "a5");
    assert!(err.contains("does not step through the source"), "{err}");
}

#[test]
fn tprefetch_loads_the_valid_region_and_tprefetch_async_changes_nothing() {
    let mut ran = 0;
    for dtype in ["f32", "f16", "bf16", "i32", "i16", "i8", "ui32", "ui16", "ui8", "i64", "ui64"] {
        let t = format!("!pto.tile_buf<vec, 8x32x{dtype}, valid=3x5>");
        let v = format!("!pto.partition_tensor_view<3x5x{dtype}>");
        let text = format!(
            "func.func @k(%p: !pto.ptr<{dtype}>, %d: {t}) {{\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %c3 = arith.constant 3 : index\n  %c5 = arith.constant 5 : index\n  %c7 = arith.constant 7 : index\n  %tv = pto.make_tensor_view %p, shape = [%c3, %c7], strides = [%c7, %c1] : !pto.tensor_view<3x7x{dtype}>\n  %v = pto.partition_view %tv, offsets = [%c0, %c1], sizes = [%c3, %c5] : !pto.tensor_view<3x7x{dtype}> -> {v}\n  pto.tprefetch ins(%v : {v}) outs(%d : {t})\n  return\n}}\n"
        );
        for (_, target) in TARGETS {
            let Some((got, _)) =
                run_on(&format!("tprefetch-{dtype}"), &text, &[("p", grid(3, 7, |r, c| (r * 7 + c) as f64))], &["d"], target)
            else {
                continue;
            };
            // Columns 1..6 of each 7-wide row.
            let want: Vec<f64> = (0..3).flat_map(|r| (1..6).map(move |c| (r * 7 + c) as f64)).collect();
            assert_eq!(got[0], want, "{dtype} {target}");
            ran += 1;
        }
    }
    // Every type on both targets.
    assert_eq!(ran, 22, "tprefetch (type, target) pairs");
    let v = "!pto.partition_tensor_view<1x256xf32>";
    let text = |n: usize| {
        format!(
            "func.func @k(%p: !pto.ptr<f32>, %session: !pto.async_session) {{\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %n = arith.constant {n} : index\n  %tv = pto.make_tensor_view %p, shape = [%c1, %n], strides = [%n, %c1] : !pto.tensor_view<1x{n}xf32>\n  %v = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c1, %n] : !pto.tensor_view<1x{n}xf32> -> {v}\n  %e = pto.tprefetch_async(%v, %session : {v}, !pto.async_session) -> !pto.async_event\n  return\n}}\n"
        )
    };
    for (_, target) in TARGETS {
        let (_, trace) = run_on("tprefetch-async", &text(256), &[("p", grid(1, 256, |_, c| c as f64))], &[], target).expect("legal");
        assert!(trace.contains("pto.tprefetch_async"), "{trace}");
    }
    // The view must lie in the bound array.
    let err = run_fails("tprefetch-async-past", &text(256), &[("p", grid(1, 100, |_, c| c as f64))], "a5");
    assert!(err.contains("reaches past the 100 elements"), "{err}");
}

#[test]
fn thistogram_counts_bytes_cumulatively_per_row() {
    let src_vals = [[0x0102u16, 0x0105, 0x0201, 0x01FF, 0x0002], [0x0300, 0x0300, 0x0301, 0x0003, 0xFF00], [0, 0, 0, 0, 0]];
    // pto-isa's THISTOGRAM static_asserts uint16 data and uint32 counts (npu/a5/THistogram.hpp:243-247):
    // the signless forms PTOAS's verifier also takes are rejected.
    for (src, dst) in [("i16", "i32"), ("ui16", "i32"), ("i16", "ui32")] {
        let s = format!("!pto.tile_buf<vec, 8x16x{src}, valid=2x5>");
        let ix = "!pto.tile_buf<vec, 32x1xui8, blayout=col_major, valid=2x1>";
        let d = format!("!pto.tile_buf<vec, 8x256x{dst}, valid=2x256>");
        let text = format!(
            "func.func @k(%s: {s}, %idx: {ix}, %d: {d}) {{\n  pto.thistogram ins(%s, %idx : {s}, {ix}) outs(%d : {d})\n  return\n}}\n"
        );
        assert!(prepare("thistogram-signless", &text, &[], "a5").is_none(), "{src} -> {dst} is rejected on a5");
    }
    {
        let (src, dst) = ("ui16", "ui32");
        for msb in [true, false] {
            let s = format!("!pto.tile_buf<vec, 8x16x{src}, valid=2x5>");
            let ix = "!pto.tile_buf<vec, 32x1xui8, blayout=col_major, valid=2x1>";
            let d = format!("!pto.tile_buf<vec, 8x256x{dst}, valid=2x256>");
            let text = format!(
                "func.func @k(%s: {s}, %idx: {ix}, %d: {d}) {{\n  pto.thistogram ins(%s, %idx : {s}, {ix}) outs(%d : {d}) {{isMSB = {msb}}}\n  return\n}}\n"
            );
            let s_in = json!(
                src_vals[..2]
                    .iter()
                    .map(|row| row.iter().map(|&v| if src == "i16" { v as i16 as i64 } else { v as i64 }).collect::<Vec<_>>())
                    .collect::<Vec<_>>()
            );
            let inputs = [("s", s_in), ("idx", json!([[1], [3]]))];
            assert!(prepare("thistogram-a2a3", &text, &inputs, "a2a3").is_none(), "a2a3 rejects thistogram");
            let (got, _) = run_on(&format!("thistogram-{src}-{dst}-{msb}"), &text, &inputs, &["d"], "a5").expect("legal on a5");
            let want_row = |r: usize, idx: u16| -> Vec<f64> {
                let mut counts = [0u32; 256];
                for &v in &src_vals[r] {
                    if msb {
                        counts[(v >> 8) as usize] += 1;
                    } else if v >> 8 == idx {
                        counts[(v & 0xFF) as usize] += 1;
                    }
                }
                counts
                    .iter()
                    .scan(0u32, |acc, &n| {
                        *acc += n;
                        Some(*acc as f64)
                    })
                    .collect()
            };
            assert_eq!(got[0][..256], want_row(0, 1)[..], "{src} msb={msb} row 0");
            assert_eq!(got[0][256..], want_row(1, 3)[..], "{src} msb={msb} row 1");
        }
    }
}

// ------------------------------------------------------------------ convolution configuration

fn conv_config(pad: [u32; 4], pad_value: f64, dtype: &str) -> String {
    format!(
        "!pto.fmatrix_config<fmap = [1, 2, 3, 3, 2], filter = [2, 2], stride = [1, 1], dilation = [1, 1], pad = [{}, {}, {}, {}], pad_value = {pad_value:?}, dtype = {dtype}, repeat = [1, 2, 0, 4, 0]>",
        pad[0], pad[1], pad[2], pad[3]
    )
}

/// pto-isa's CPU-simulator img2col of an NC1HWC0 feature map `x` (flat), for output rows
/// `pos_m..` and columns `pos_k..`.
#[allow(clippy::too_many_arguments)]
fn img2col_ref(
    x: &[f64],
    [n, c1, h, w, c0]: [i64; 5],
    [kh, kw]: [i64; 2],
    pad: [i64; 4],
    pad_value: f64,
    (pos_m, pos_k): (i64, i64),
    (rows, cols): (i64, i64),
) -> Vec<f64> {
    let [left, right, top, bottom] = pad;
    let oh = h + top + bottom - (kh - 1);
    let ow = w + left + right - (kw - 1);
    let mut out = Vec::new();
    for r in 0..rows {
        let m = pos_m + r;
        let (b, rest) = (m / (oh * ow), m % (oh * ow));
        let (y, xo) = (rest / ow, rest % ow);
        for c in 0..cols {
            let k = pos_k + c;
            let (cb, ch) = (k / (kh * kw * c0), k % c0);
            let tap = (k % (kh * kw * c0)) / c0;
            let (ih, iw) = (y + tap / kw - top, xo + tap % kw - left);
            out.push(if b < n && cb < c1 && (0..h).contains(&ih) && (0..w).contains(&iw) {
                x[((((b * c1 + cb) * h + ih) * w + iw) * c0 + ch) as usize]
            } else {
                pad_value
            });
        }
    }
    out
}

#[test]
fn timg2col_reads_the_registers_the_config_ops_wrote() {
    let mut ran = 0;
    // Every source type of the legality tables: A2A3 f32 f16 bf16 i8, A5 also the other integers.
    for dtype in ["f32", "f16", "bf16", "i8", "ui8", "i16", "ui16", "i32", "ui32"] {
        // Unsigned types: feature-map values 0..36 and pad value 3.
        let unsigned = dtype.starts_with("ui");
        let (base, pv) = if unsigned { (0.0, 3.0) } else { (-10.0, -3.0) };
        let cfg_a = conv_config([0, 0, 0, 0], 0.0, dtype);
        let cfg_b = conv_config([1, 0, 1, 1], pv, dtype);
        let s = format!("!pto.tile_buf<mat, 16x32x{dtype}>");
        let d = format!("!pto.tile_buf<left, 16x32x{dtype}, slayout=row_major, valid=7x12>");
        // FMATRIX from the unpadded config, then padding from the padded one; a second
        // setfmatrix makes the padded geometry current for the last timg2col.
        let text = format!(
            "func.func @k(%a: {cfg_a}, %b: {cfg_b}, %s: {s}, %d: {d}, %e: {d}) {{\n  %pm = arith.constant 1 : index\n  %pk = arith.constant 3 : index\n  pto.setfmatrix ins(%a : {cfg_a})\n  pto.set_img2col_rpt ins(%a : {cfg_a})\n  pto.set_img2col_padding ins(%b : {cfg_b})\n  pto.timg2col ins(%s, %pm, %pk : {s}, index, index) outs(%d : {d})\n  pto.setfmatrix ins(%b : {cfg_b})\n  pto.timg2col ins(%s : {s}) outs(%e : {d})\n  return\n}}\n"
        );
        let x: Vec<f64> = (0..36).map(|k| (k as f64) + base).collect();
        let s_in = grid(16, 32, |r, c| x.get(r * 32 + c).copied().unwrap_or(0.0));
        for (_, target) in TARGETS {
            let Some((got, trace)) = run_on(&format!("timg2col-{dtype}"), &text, &[("s", s_in.clone())], &["d", "e"], target) else {
                continue;
            };
            let shape = [1, 2, 3, 3, 2];
            // Unpadded: a 2x2 output map (4 rows of M), K = 2 * 2 * 2 * 2 = 16; rows past M
            // and the padded positions give the pad value the padding register holds.
            assert_eq!(got[0], img2col_ref(&x, shape, [2, 2], [0; 4], pv, (1, 3), (7, 12)), "{dtype} {target} d");
            assert_eq!(got[1], img2col_ref(&x, shape, [2, 2], [1, 0, 1, 1], pv, (0, 0), (7, 12)), "{dtype} {target} e");
            assert!(trace.contains("FMATRIX_A = 0x0000000000030003 (fmap 3x3, pad l0 r0 t0 b0; N 1, C1 2, C0 2, filter 2x2"), "{trace}");
            assert!(trace.contains("FMATRIX_A = 0x0101000100030003 (fmap 3x3, pad l1 r0 t1 b1;"), "{trace}");
            assert!(
                trace.contains("IMG2COL_RPT_A = 0x0000000400020001 (repeat stride 1, time 2, mode 0, dst stride 4, dst m-position 0)"),
                "{trace}"
            );
            assert!(trace.contains("IMG2COL_PADDING_A = ") && trace.contains(&format!("(pad value {pv})")), "{trace}");
            ran += 1;
        }
    }
    assert_eq!(ran, 4 + 9, "timg2col (type, target) pairs");
}

#[test]
fn timg2col_without_setfmatrix_and_a_bad_config_are_located_errors() {
    let s = "!pto.tile_buf<mat, 16x16xf32>";
    let d = "!pto.tile_buf<left, 16x16xf32, slayout=row_major, valid=4x8>";
    let text = format!("func.func @k(%s: {s}, %d: {d}) {{\n  pto.timg2col ins(%s : {s}) outs(%d : {d})\n  return\n}}\n");
    let err = run_fails("timg2col-unset", &text, &[("s", grid(16, 16, |_, _| 1.0))], "a5");
    assert!(err.contains("FMATRIX_A, which no setfmatrix wrote"), "{err}");
    let cfg = "!pto.fmatrix_config<fmap = [1, 2, 3]>";
    let text = format!("func.func @k(%c: {cfg}) {{\n  pto.setfmatrix ins(%c : {cfg})\n  return\n}}\n");
    let err = run_fails("setfmatrix-bad", &text, &[], "a2a3");
    assert!(err.contains("`fmap` takes 5 values") && err.contains("pto.setfmatrix"), "{err}");
    // Side B is separate from side A.
    let cfg = conv_config([0; 4], 0.0, "f32");
    let text = format!(
        "func.func @k(%c: {cfg}, %s: {s}, %d: {d}) {{\n  pto.setfmatrix ins(%c : {cfg}) {{fmatrix_mode = #pto<fmatrix_mode FMATRIX_B_MANUAL>}}\n  pto.timg2col ins(%s : {s}) outs(%d : {d})\n  return\n}}\n"
    );
    let err = run_fails("timg2col-side", &text, &[("s", grid(16, 16, |_, _| 1.0))], "a5");
    assert!(err.contains("FMATRIX_A, which no setfmatrix wrote"), "{err}");
}

// ------------------------------------------------------------------ TPipe FIFOs

#[test]
fn tpush_then_tpop_moves_tiles_in_order() {
    for dtype in ["f32", "i16"] {
        let v = format!("!pto.tile_buf<vec, 16x16x{dtype}, valid=3x5>");
        let split = "{split = #pto<tile_split TILE_NO_SPLIT>}";
        let text = format!(
            "func.func @k(%p: !pto.pipe, %a: {v}, %b: {v}, %x: {v}, %y: {v}) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{\n  pto.tpush(%a, %p : {v}, !pto.pipe) {split}\n  pto.tpush(%b, %p : {v}, !pto.pipe) {split}\n  pto.tpop(%x, %p : {v}, !pto.pipe) {split}\n  pto.tfree(%p : !pto.pipe) {split}\n  pto.tpop(%y, %p : {v}, !pto.pipe) {split}\n  pto.tfree(%p : !pto.pipe) {split}\n  return\n}}\n"
        );
        let a = |r: usize, c: usize| (r * 5 + c) as f64;
        let b = |r: usize, c: usize| 100.0 - (r * 5 + c) as f64;
        for (_, target) in TARGETS {
            let (got, trace) = run_on(&format!("tpipe-{dtype}"), &text, &[("a", grid(3, 5, a)), ("b", grid(3, 5, b))], &["x", "y"], target)
                .expect("legal");
            assert_eq!(got[0], (0..15).map(|k| k as f64).collect::<Vec<_>>(), "{dtype} {target}: first in, first out");
            assert_eq!(got[1], (0..15).map(|k| 100.0 - k as f64).collect::<Vec<_>>(), "{dtype} {target}");
            assert!(trace.contains(&format!("FIFO: pushed {dtype} 3x5; 2 entries queued, 0 slots held")), "{trace}");
            assert!(trace.contains(&format!("FIFO: popped {dtype} 3x5; 1 entry queued, 1 slot held")), "{trace}");
            assert!(trace.contains("FIFO: freed a slot; 0 entries queued, 0 slots held"), "{trace}");
        }
    }
    // An accumulator tile pushed from the cube side pops into a vector tile.
    let acc = "!pto.tile_buf<acc, 16x16xf32, blayout=col_major, slayout=row_major, valid=2x3>";
    let vec = "!pto.tile_buf<vec, 16x16xf32, valid=2x3>";
    let split = "{split = #pto<tile_split TILE_NO_SPLIT>}";
    let text = format!(
        "func.func @k(%p: !pto.pipe, %a: {acc}, %x: {vec}) attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{\n  pto.tpush(%a, %p : {acc}, !pto.pipe) {split}\n  pto.tpop(%x, %p : {vec}, !pto.pipe) {split}\n  return\n}}\n"
    );
    for (_, target) in TARGETS {
        let (got, _) = run_on("tpipe-acc", &text, &[("a", grid(2, 3, |r, c| (r * 3 + c) as f64 + 0.5))], &["x"], target).expect("legal");
        assert_eq!(got[0], vec![0.5, 1.5, 2.5, 3.5, 4.5, 5.5], "{target}");
    }
}

#[test]
fn fifo_misuse_is_a_located_error_not_a_hang() {
    let v = "!pto.tile_buf<vec, 16x16xf32, valid=3x5>";
    let split = "{split = #pto<tile_split TILE_NO_SPLIT>}";
    let pop_empty = format!(
        "func.func @k(%p: !pto.pipe, %x: {v}) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{\n  pto.tpop(%x, %p : {v}, !pto.pipe) {split}\n  return\n}}\n"
    );
    let err = run_fails("pop-empty", &pop_empty, &[], "a2a3");
    assert!(err.contains("pops from an empty FIFO") && err.contains("pto.tpop"), "{err}");
    let free_none = format!(
        "func.func @k(%p: !pto.pipe) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{\n  pto.tfree(%p : !pto.pipe) {split}\n  return\n}}\n"
    );
    let err = run_fails("free-none", &free_none, &[], "a5");
    assert!(err.contains("no popped slot is held"), "{err}");
    let w = "!pto.tile_buf<vec, 16x16xf32, valid=2x5>";
    let mismatch = format!(
        "func.func @k(%p: !pto.pipe, %a: {v}, %x: {w}) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{\n  pto.tpush(%a, %p : {v}, !pto.pipe) {split}\n  pto.tpop(%x, %p : {w}, !pto.pipe) {split}\n  return\n}}\n"
    );
    let err = run_fails("pop-shape", &mismatch, &[("a", grid(3, 5, |_, _| 1.0))], "a5");
    assert!(err.contains("pops a f32 3x5 entry into a f32 tile with valid region 2x5"), "{err}");
}

/// The GM-slot interface (`talloc`, `tpush(%slot, %pipe)`, `tpop(%pipe) -> view`,
/// `tfree(%pipe, %slot)`) shares the FIFO order with the tile interface: a slot committed by
/// `tpush` pops into a tile, a pushed tile pops as a slot view, and a freed slot is reused.
#[test]
fn talloc_slots_carry_stored_data_through_the_fifo_in_order() {
    let split = "{split = #pto<tile_split TILE_NO_SPLIT>}";
    for dtype in ["f32", "f16", "i16", "i8"] {
        let v = format!("!pto.tile_buf<vec, 16x32x{dtype}, valid=3x5>");
        let s = format!("!pto.partition_tensor_view<3x5x{dtype}>");
        let text = format!(
            "func.func @k(%p: !pto.pipe, %a: {v}, %b: {v}, %x: {v}, %y: {v}) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  %s = pto.talloc(%p : !pto.pipe) {split} -> {s}
  pto.tstore ins(%a : {v}) outs(%s : {s})
  pto.tpush(%s, %p : {s}, !pto.pipe) {split}
  pto.tpush(%b, %p : {v}, !pto.pipe) {split}
  pto.tpop(%x, %p : {v}, !pto.pipe) {split}
  pto.tfree(%p : !pto.pipe) {split}
  %r = pto.tpop(%p : !pto.pipe) {split} -> {s}
  pto.tload ins(%r : {s}) outs(%y : {v})
  pto.tfree(%p, %r : !pto.pipe, {s}) {split}
  %t = pto.talloc(%p : !pto.pipe) {split} -> {s}
  return
}}
"
        );
        let a = |r: usize, c: usize| (r * 5 + c) as f64 - 7.0;
        let b = |r: usize, c: usize| 60.0 - (r * 5 + c) as f64 * 2.0;
        let mut ran = 0;
        for (_, target) in TARGETS {
            let inputs = [("a", grid(3, 5, a)), ("b", grid(3, 5, b))];
            let Some((got, trace)) = run_on(&format!("talloc-{dtype}"), &text, &inputs, &["x", "y"], target) else { continue };
            ran += 1;
            assert_eq!(got[0], (0..15).map(|k| k as f64 - 7.0).collect::<Vec<_>>(), "{dtype} {target}: the committed slot pops first");
            assert_eq!(got[1], (0..15).map(|k| 60.0 - 2.0 * k as f64).collect::<Vec<_>>(), "{dtype} {target}: then the pushed tile");
            for line in [
                "%s = view of %p.fifo at 0, shape [3, 5], strides [5, 1]; FIFO: allocated GM slot 0".to_string(),
                format!("FIFO: pushed {dtype} 3x5 in GM slot 0; 1 entry queued, 0 slots held"),
                format!("FIFO: pushed {dtype} 3x5; 2 entries queued, 0 slots held"),
                format!("FIFO: popped {dtype} 3x5; 1 entry queued, 1 slot held"),
                // The tile pushed inline is written to the free slot 0 when it pops as a view.
                format!("%r = view of %p.fifo at 0, shape [3, 5], strides [5, 1]; FIFO: popped {dtype} 3x5 from GM slot 0"),
                "FIFO: freed GM slot 0; 0 entries queued, 0 slots held".to_string(),
                "%t = view of %p.fifo at 0, shape [3, 5], strides [5, 1]; FIFO: allocated GM slot 0".to_string(),
            ] {
                assert!(trace.contains(&line), "{dtype} {target}: no `{line}` in\n{trace}");
            }
        }
        assert!(ran > 0, "{dtype}: no target accepts the kernel");
    }
}

#[test]
fn two_slots_in_flight_use_two_slots_and_misuse_is_located() {
    let split = "{split = #pto<tile_split TILE_NO_SPLIT>}";
    let v = "!pto.tile_buf<vec, 16x16xf32, valid=2x8>";
    let s = "!pto.partition_tensor_view<2x8xf32>";
    let head = format!(
        "func.func @k(%p: !pto.pipe, %a: {v}, %b: {v}, %x: {v}, %y: {v}) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{\n"
    );
    let alloc = |n: &str, ty: &str| format!("  %{n} = pto.talloc(%p : !pto.pipe) {split} -> {ty}\n");
    let store = |t: &str, n: &str| format!("  pto.tstore ins(%{t} : {v}) outs(%{n} : {s})\n");
    let push = |n: &str| format!("  pto.tpush(%{n}, %p : {s}, !pto.pipe) {split}\n");
    let pop = |n: &str| format!("  %{n} = pto.tpop(%p : !pto.pipe) {split} -> {s}\n");
    let load = |n: &str, t: &str| format!("  pto.tload ins(%{n} : {s}) outs(%{t} : {v})\n");
    let free = |n: &str| format!("  pto.tfree(%p, %{n} : !pto.pipe, {s}) {split}\n");
    let end = "  return\n}\n";
    let inputs = [("a", grid(2, 8, |r, c| (r * 8 + c) as f64)), ("b", grid(2, 8, |r, c| -((r * 8 + c) as f64)))];
    // Both slots allocated before either is pushed: slots 0 and 1 (elements 0 and 16).
    let two = [head.clone(), alloc("s", s), alloc("t", s), store("a", "s"), store("b", "t"), push("t"), push("s")].concat()
        + &[pop("r"), load("r", "x"), pop("q"), load("q", "y"), free("q"), free("r"), end.into()].concat();
    for (_, target) in TARGETS {
        let (got, trace) = run_on("talloc-two", &two, &inputs, &["x", "y"], target).expect("legal");
        assert_eq!(got[0], (0..16).map(|k| -(k as f64)).collect::<Vec<_>>(), "{target}: slot 1 was pushed first");
        assert_eq!(got[1], (0..16).map(|k| k as f64).collect::<Vec<_>>(), "{target}");
        assert!(trace.contains("%t = view of %p.fifo at 16, shape [2, 8]") && trace.contains("FIFO: freed GM slot 0"), "{trace}");
    }
    let cases: [(&str, String, &str); 6] = [
        (
            "push-twice",
            [head.clone(), alloc("s", s), push("s"), push("s"), end.into()].concat(),
            "pushes slot 0, which is pushed and not popped",
        ),
        (
            "free-twice",
            [head.clone(), alloc("s", s), push("s"), pop("r"), free("r"), free("r"), end.into()].concat(),
            "frees slot 0, which is free",
        ),
        (
            "free-unpopped",
            [head.clone(), alloc("s", s), push("s"), free("s"), end.into()].concat(),
            "frees slot 0, which is pushed and not popped",
        ),
        ("pop-empty", [head.clone(), pop("r"), end.into()].concat(), "pops from an empty FIFO"),
        (
            "slot-size",
            [head.clone(), alloc("s", s), alloc("t", "!pto.partition_tensor_view<4x8xf32>"), end.into()].concat(),
            "this f32 slot view of 32 elements does not fit the pipe's slots of 16 f32 elements",
        ),
        (
            "pop-type",
            [
                head.clone(),
                alloc("s", s),
                push("s"),
                "  %r = pto.tpop(%p : !pto.pipe) ".into(),
                split.into(),
                " -> !pto.partition_tensor_view<2x8xi32>\n".into(),
                end.into(),
            ]
            .concat(),
            "pops a f32 2x8 entry into a i32 slot view of 2x8",
        ),
    ];
    for (name, text, expect) in cases {
        for (_, target) in TARGETS {
            let err = run_fails(&format!("talloc-{name}"), &text, &inputs, target);
            assert!(err.contains(expect) && err.contains(".pto:"), "{name} on {target}: expected `{expect}` with a location in\n{err}");
        }
    }
}
