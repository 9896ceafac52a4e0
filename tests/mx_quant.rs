//! The narrow float types and the MX / quantization instructions (issue 14): `tcvt` to and from
//! f8E4M3FN / f8E5M2 / hif8, `tquant` (INT8 and MX), `tquant_dn`, `tmatmul.mx` (+ `.acc`,
//! `.bias`), `tgemv.mx` (+ `.acc`, `.bias`), `tget_scale_addr`, and the two matmul
//! accumulation orders. Expected values are computed by hand from pto-isa's semantics
//! (`cpu/TQuant.hpp`, `cpu/TMatmul.hpp`, `npu/a5/TMatmul.hpp`, the OCP FP8 / HiFloat8 formats),
//! each on a partial valid region, on every target whose legality accepts the program.

use pto::TargetName;
use pto::cmd::run::{RunOptions, run};
use pto_sim::family::MatmulOrder;
mod common;
use common::kernel::{input_args, legal, number};
use serde_json::{Value, json};

const TARGETS: [(TargetName, &str); 2] = [(TargetName::A2A3, "a2a3"), (TargetName::A5, "a5")];

/// Runs a Level-2 kernel with JSON inputs on every target that accepts it; returns, per target
/// that ran, the outputs' data (valid regions, row-major).
fn run_kernel(
    name: &str,
    text: &str,
    inputs: &[(&str, Value)],
    outputs: &[&str],
    order: MatmulOrder,
) -> Vec<(&'static str, Vec<Vec<f64>>)> {
    let dir = common::kernel::scratch_dir("mx-quant", name);
    let program = dir.join("k.pto");
    std::fs::write(&program, text).unwrap();
    let inputs = input_args(&dir, inputs);
    let mut ran = Vec::new();
    for (target, tname) in TARGETS {
        if !legal(&program, tname) {
            continue;
        }
        let out = run(&RunOptions {
            inputs: inputs.clone(),
            outputs: outputs.iter().map(|s| s.to_string()).collect(),
            matmul_order: order,
            ..RunOptions::new(program.display().to_string(), target)
        });
        assert_eq!(out.code, 0, "{name} on {tname}: {}", out.stderr);
        let json: Value = serde_json::from_str(&out.stdout).unwrap();
        ran.push((tname, outputs.iter().map(|o| json[o]["data"].as_array().unwrap().iter().map(number).collect()).collect()));
    }
    ran
}

fn same(got: &[f64], want: &[f64]) -> bool {
    got.len() == want.len() && got.iter().zip(want).all(|(g, w)| g == w || (g.is_nan() && w.is_nan()))
}

fn tcvt_kernel(src: &str, dst: &str, attrs: &str) -> String {
    let (s, d) = (format!("!pto.tile_buf<vec, 4x32x{src}, valid=2x5>"), format!("!pto.tile_buf<vec, 4x32x{dst}, valid=2x5>"));
    format!("func.func @k(%s: {s}, %d: {d}) {{\n  pto.tcvt ins(%s : {s}) outs(%d : {d}){attrs}\n  return\n}}\n")
}

#[test]
fn tcvt_encodes_and_decodes_the_8_bit_floats() {
    const SAT: &str = " {rmode = #pto<round_mode RINT>, sat_mode = #pto<saturation_mode ON>}";
    let t = 2f64.powi(-10);
    let m = 2f64.powi(-9);
    let cases: &[(&str, &str, Value, Vec<f64>)] = &[
        // Ties to even (1 + 1/16 -> 1, 1 + 3/16 -> 1.25), half the min subnormal -> 0, the min
        // subnormal, the max, and overflow: NaN (E4M3FN has no infinity).
        (
            "f8E4M3FN",
            "",
            json!([[1.0, -0.875, 1.0625, 1.1875, 500.0], [t, m, 448.0, -3.0, -465.0]]),
            vec![1.0, -0.875, 1.0, 1.25, f64::NAN, 0.0, m, 448.0, -3.0, f64::NAN],
        ),
        // With saturation, overflow clamps to +-448.
        (
            "f8E4M3FN",
            SAT,
            json!([[1.0, -0.875, 1.0625, 1.1875, 500.0], [t, m, 448.0, -3.0, -465.0]]),
            vec![1.0, -0.875, 1.0, 1.25, 448.0, 0.0, m, 448.0, -3.0, -448.0],
        ),
        // E5M2: ties to even, 61440 rounds to infinity, 61439 to the max 57344.
        (
            "f8E5M2",
            "",
            json!([[2.5, 1.125, 1.375, 61440.0, -5.0], [61439.0, 2f64.powi(-16), -0.0, 0.3, 1e6]]),
            vec![2.5, 1.0, 1.5, f64::INFINITY, -5.0, 57344.0, 2f64.powi(-16), 0.0, 0.3125, f64::INFINITY],
        ),
        // HiFloat8 rounds half away from zero: 1.0625 -> 1.125; 0.1 = 1.6 * 2^-4 with 2 mantissa
        // bits -> 1.5 * 2^-4; 40960 overflows to infinity.
        (
            "hif8",
            "",
            json!([[1.0625, -1.0625, 40960.0, 3.0, 0.1], [1.06, 32768.0, 2f64.powi(-22), 2f64.powi(-24), -7.0]]),
            vec![1.125, -1.125, f64::INFINITY, 3.0, 0.09375, 1.0, 32768.0, 2f64.powi(-22), 0.0, -7.0],
        ),
    ];
    for (dst, attrs, input, want) in cases {
        let ran = run_kernel(&format!("tcvt-{dst}"), &tcvt_kernel("f32", dst, attrs), &[("s", input.clone())], &["d"], MatmulOrder::Npu);
        assert_eq!(ran.iter().map(|r| r.0).collect::<Vec<_>>(), ["a5"], "f32 -> {dst} is A5-only");
        assert!(same(&ran[0].1[0], want), "f32 -> {dst}{attrs}: {:?}, expected {want:?}", ran[0].1[0]);
    }
    // Back to f32 from bit patterns (`"bits"` input).
    for (src, bits, want) in [
        ("f8E4M3FN", [0x01u64, 0x7E, 0xFE, 0x7F, 0x38], [m, 448.0, -448.0, f64::NAN, 1.0]),
        ("f8E5M2", [0x01, 0x7B, 0x7C, 0xFC, 0x41], [2f64.powi(-16), 57344.0, f64::INFINITY, f64::NEG_INFINITY, 2.5]),
        ("hif8", [0x01, 0x08, 0x09, 0x6E, 0xEF], [2f64.powi(-22), 1.0, 1.125, 32768.0, f64::NEG_INFINITY]),
    ] {
        let mut rows = vec![bits.to_vec(); 2];
        rows[1].reverse();
        let input = json!({"dtype": src, "shape": [2, 5], "bits": rows});
        let ran = run_kernel(&format!("tcvt-from-{src}"), &tcvt_kernel(src, "f32", ""), &[("s", input)], &["d"], MatmulOrder::Npu);
        let mut w = want.to_vec();
        w.extend(want.iter().rev());
        assert_eq!(ran.len(), 1);
        assert!(same(&ran[0].1[0], &w), "{src} -> f32: {:?}", ran[0].1[0]);
    }
}

#[test]
fn tquant_int8_scales_offsets_and_saturates_per_row() {
    // 3x5 valid of 8x32; scale and offset per row (column 0 of a 3x1 valid region).
    let src = json!([[1.0, 2.5, -2.5, 3.5, 100.0], [0.3, -0.3, 1.0, -1.0, 2.0], [1.25, -7.0, 0.0, 64.5, -64.5]]);
    let scale = json!([[2.0], [10.0], [4.0]]);
    let offset = json!([[0.0], [128.0], [1.5]]);
    // SYM: rint(x * s), ties to even, clamped to [-128, 127].
    let sym = [2.0, 5.0, -5.0, 7.0, 127.0, 3.0, -3.0, 10.0, -10.0, 20.0, 5.0, -28.0, 0.0, 127.0, -128.0];
    // ASYM: rint(x * s + o) clamped to [0, 255]: row 2 adds 1.5 (5 + 1.5 = 6.5 -> 6, 258 + 1.5
    // -> 255, -28 + 1.5 -> 0).
    let asym = [2.0, 5.0, 0.0, 7.0, 200.0, 131.0, 125.0, 138.0, 118.0, 148.0, 6.0, 0.0, 2.0, 255.0, 0.0];
    let t = |d: &str| format!("!pto.tile_buf<vec, 8x32x{d}, valid=3x5>");
    let p = "!pto.tile_buf<vec, 8x8xf32, valid=3x1>";
    for (kind, dst, with_offset, want) in [("INT8_SYM", "i8", false, &sym[..]), ("INT8_ASYM", "ui8", true, &asym[..])] {
        let (ins, types, params) = if with_offset {
            ("%s, %scale, %off".to_string(), format!("{}, {p}, {p}", t("f32")), format!("%s: {}, %scale: {p}, %off: {p}", t("f32")))
        } else {
            ("%s, %scale".to_string(), format!("{}, {p}", t("f32")), format!("%s: {}, %scale: {p}", t("f32")))
        };
        let text = format!(
            "func.func @k({params}, %d: {d}) {{\n  pto.tquant ins({ins} : {types}) outs(%d : {d}) {{quant_type = #pto<quant_type {kind}>}}\n  return\n}}\n",
            d = t(dst)
        );
        let mut inputs = vec![("s", src.clone()), ("scale", scale.clone())];
        if with_offset {
            inputs.push(("off", offset.clone()));
        }
        let ran = run_kernel(&format!("tquant-{kind}"), &text, &inputs, &["d"], MatmulOrder::Npu);
        assert_eq!(ran.iter().map(|r| r.0).collect::<Vec<_>>(), ["a2a3", "a5"], "{kind} runs on both targets");
        for (target, outs) in ran {
            assert_eq!(outs[0], want, "{kind} on {target}");
        }
    }
}

/// The MX operand types of `tquant` (ND, groups of 32 columns) on A5.
fn mx_kernel(op: &str, src: &str, rows: usize, valid: &str, dst: &str, exp_shape: &str, alg: &str) -> String {
    let s = format!("!pto.tile_buf<vec, {rows}x64x{src}, valid={valid}>");
    let d = format!("!pto.tile_buf<vec, {rows}x64x{dst}, valid={valid}>");
    // 32-byte rows: 16x32 for the per-group tiles (exp at (row, group)).
    let aux = format!("!pto.tile_buf<vec, {exp_shape}x{src}>");
    let e = format!("!pto.tile_buf<vec, {exp_shape}xui8>");
    format!(
        "func.func @k(%s: {s}, %mx: {aux}, %sc: {aux}, %d: {d}, %e: {e}) {{\n  pto.{op} ins(%s, %mx, %sc : {s}, {aux}, {aux}) outs(%d, %e : {d}, {e}) {{mx_alg = #pto<mx_alg {alg}>}}\n  return\n}}\n"
    )
}

/// One row of 64 values: group 0 has max |x| = 3 (exponent 128), group 1 max 448 (exponent 135).
fn mx_rows(rows: usize) -> Value {
    let mut g0: Vec<f64> = (0..32).map(|i| (i as f64 - 16.0) / 8.0).collect(); // -2 ..= 1.875
    g0[5] = -3.0;
    g0[6] = 0.1;
    let mut g1: Vec<f64> = (0..32).map(|i| i as f64 * 10.0).collect(); // 0 ..= 310
    g1[3] = 448.0;
    g1[4] = -449.0;
    let row: Vec<f64> = g0.into_iter().chain(g1).collect();
    json!(vec![row; rows])
}

#[test]
fn tquant_mx_fp8_writes_exponents_scalings_and_e4m3_codes() {
    // Group 0: max 3 = 1.5 * 2^1, biased exponent 128; OCP exponent 128 - 8 = 120, scaling
    // 2^(127 - 120) = 128. Group 1: max 449 (biased 135): exponent 127, scaling 1.
    // Elements: x * scaling encoded as E4M3FN, saturating: -3 * 128 = -384 (exact), 0.1 * 128 =
    // 12.8 -> 13 (steps of 1 between 8 and 16), 448 -> 448, -449 -> -448. bf16 holds 449 as 448.
    for src in ["f32", "f16", "bf16"] {
        let text = mx_kernel("tquant", src, 16, "2x64", "f8E4M3FN", "16x32", "OcpMxFp8E4M3");
        let ran = run_kernel(&format!("tquant-mx-fp8-{src}"), &text, &[("s", mx_rows(2))], &["d", "e", "mx", "sc"], MatmulOrder::Npu);
        assert_eq!(ran.iter().map(|r| r.0).collect::<Vec<_>>(), ["a5"], "MX quantization is A5-only");
        let outs = &ran[0].1;
        let (d, e) = (&outs[0], &outs[1]);
        // exp is 16x32 (fully valid): rows 0 and 1 hold the two groups at columns 0 and 1, the
        // rest is untouched (0).
        assert_eq!([e[0], e[1], e[32], e[33]], [120.0, 127.0, 120.0, 127.0], "{src}");
        assert_eq!(e.iter().filter(|&&x| x != 0.0).count(), 4, "{src}: no other groups");
        // max and scaling are written flat: group order (row 0 g0, row 0 g1, row 1 g0, ...).
        let top = if src == "bf16" { 448.0 } else { 449.0 };
        assert_eq!(outs[2][..4], [3.0, top, 3.0, top], "{src} max");
        assert_eq!(outs[3][..4], [128.0, 1.0, 128.0, 1.0], "{src} scaling");
        let x0 = if src == "f32" {
            0.1f32 as f64
        } else if src == "f16" {
            half::f16::from_f64(0.1).to_f64()
        } else {
            half::bf16::from_f64(0.1).to_f64()
        };
        // 0.1 * 128 = 12.8: E4M3 between 8 and 16 steps by 1 -> 13.
        assert_eq!((x0 * 128.0).round(), 13.0);
        assert_eq!(d[5], -384.0, "{src}");
        assert_eq!(d[6], 13.0, "{src}");
        assert_eq!(d[0], -256.0, "{src}: -2 * 128");
        assert_eq!(d[17], 16.0, "{src}: 0.125 * 128");
        assert_eq!(d[32 + 3], 448.0, "{src}");
        assert_eq!(d[32 + 4], -448.0, "{src}: saturated");
        assert_eq!(d[32 + 31], 320.0, "{src}: 310 rounds to 320 (steps of 32 above 256)");
        assert_eq!(d[64..], d[..64], "{src}: row 1 like row 0");
    }
}

#[test]
fn tquant_mx_nv_and_fp4_and_dn() {
    // NV FP8: exponent of max / 448 rounded up when inexact: group 1 max 449 -> 449/448 has a
    // mantissa -> biased 127 + 1 = 128, scaling 2^-1; group 0 max 3 -> 3/448 = 1.714 * 2^-8 ->
    // 119 + 1 = 120, scaling 2^7.
    let text = mx_kernel("tquant", "f32", 16, "1x64", "f8E4M3FN", "16x32", "NvMxFp8E4M3");
    let ran = run_kernel("tquant-mx-nv", &text, &[("s", mx_rows(1))], &["d", "e", "sc"], MatmulOrder::Npu);
    let outs = &ran[0].1;
    assert_eq!(outs[1][..2], [120.0, 128.0]);
    assert_eq!(outs[2][..2], [128.0, 0.5]);
    assert_eq!(outs[0][32 + 4], -224.0, "-449 * 0.5 = -224.5 -> -224 (steps of 16 above 128)");

    // OCP FP4 (f16 source): group max (bf16-truncated) 3 -> biased 128 - 2 = 126, scaling 2;
    // group 1: 449 -> 135 - 2 = 133, scaling 2^-6. E2M1 codes, two per byte (low nibble first).
    let text = mx_kernel("tquant", "f16", 16, "1x64", "i8", "16x32", "OcpMxFp4E2M1");
    let ran = run_kernel("tquant-mx-fp4", &text, &[("s", mx_rows(1))], &["d", "e"], MatmulOrder::Npu);
    let outs = &ran[0].1;
    assert_eq!(outs[1][..2], [126.0, 133.0]);
    let d = &outs[0];
    // Element 0 = -2 * 2 = -4 (code 0xE), element 1 = -1.875 * 2 = -3.75 -> -4 (0xE): byte 0xEE = -18.
    assert_eq!(d[0], -18.0);
    // Elements 4, 5: -1.5 * 2 = -3 (0xD); -3 * 2 = -6 (0xF): byte 0xFD = -3.
    assert_eq!(d[2], -3.0);
    // Elements 32 + 2, 32 + 3: 20 / 64 = 0.3125 -> 0.5 (0x1); 448 / 64 = 7 -> 6 (saturated,
    // 0x7): byte 0x71 = 113.
    assert_eq!(d[17], 113.0);
    // The 64 codes of row 0 fill 32 bytes; the rest of dst stays zero.
    assert!(d[32..].iter().all(|&x| x == 0.0));

    // tquant_dn: groups of 32 rows. A 32x64 source with valid 32x3: column j holds j + 1 in
    // every row but row 7, which holds 448 * (j + 1): maxima 448, 896, 1344.
    let s = "!pto.tile_buf<vec, 32x64xf32, valid=32x3>";
    let aux = "!pto.tile_buf<vec, 1x64xf32>";
    let e = "!pto.tile_buf<vec, 1x64xui8>";
    let d = "!pto.tile_buf<vec, 32x64xf8E4M3FN, valid=32x3>";
    let text = format!(
        "func.func @k(%s: {s}, %mx: {aux}, %sc: {aux}, %d: {d}, %e: {e}) {{\n  pto.tquant_dn ins(%s, %mx, %sc : {s}, {aux}, {aux}) outs(%d, %e : {d}, {e}) {{mx_alg = #pto<mx_alg OcpMxFp8E4M3>}}\n  return\n}}\n"
    );
    let rows: Vec<Vec<f64>> =
        (0..32).map(|r| (0..3).map(|j| if r == 7 { 448.0 * (j + 1) as f64 } else { (j + 1) as f64 }).collect()).collect();
    let ran = run_kernel("tquant-dn", &text, &[("s", json!(rows))], &["d", "e", "mx"], MatmulOrder::Npu);
    assert_eq!(ran.iter().map(|r| r.0).collect::<Vec<_>>(), ["a5"]);
    let outs = &ran[0].1;
    // 448 = 1.75 * 2^8 -> 127 (scaling 1); 896 -> 128 (2^-1); 1344 = 1.3125 * 2^10 -> 129 (2^-2).
    assert_eq!(outs[1][..3], [127.0, 128.0, 129.0]);
    assert_eq!(outs[2][..3], [448.0, 896.0, 1344.0]);
    let d = &outs[0];
    assert_eq!(d[..3], [1.0, 1.0, 0.75], "row 0: 1 * 1, 2 * 0.5, 3 * 0.25");
    // 1344 / 4 = 336 ties between 320 and 352 (steps of 32): even mantissa, 320.
    assert_eq!(d[7 * 3..7 * 3 + 3], [448.0, 448.0, 320.0]);
}

/// `tquant_dn` with OCP FP4 (E2M1 codes, two per byte, low nibble first, packed in `dst`'s bytes
/// in row-major order of the `M x N` elements): a 32x128 source (f16, bf16) with 64 valid
/// columns, into i8 and ui8. Column `c` holds `[-1, 0.5, 1, 2][r % 4] * 2^(c % 3)`: its max
/// `2^(1 + c % 3)` gives exponent `126 + c % 3` and scaling `2^(1 - c % 3)`, so row `r`'s codes
/// are those of `[-2, 1, 2, 4][r % 4]`: 0xC, 0x2, 0x4, 0x6.
#[test]
fn tquant_dn_fp4_packs_e2m1_codes() {
    let rows: Vec<Vec<f64>> = (0..32).map(|r| (0..64i32).map(|c| [-1.0, 0.5, 1.0, 2.0][r % 4] * 2f64.powi(c % 3)).collect()).collect();
    let code = [0xCu8, 0x2, 0x4, 0x6];
    for src in ["f16", "bf16"] {
        for dst in ["i8", "ui8"] {
            let s = format!("!pto.tile_buf<vec, 32x128x{src}, valid=32x64>");
            let aux = format!("!pto.tile_buf<vec, 1x128x{src}>");
            let e = "!pto.tile_buf<vec, 1x128xui8>";
            let d = format!("!pto.tile_buf<vec, 32x128x{dst}, valid=32x64>");
            let text = format!(
                "func.func @k(%s: {s}, %mx: {aux}, %sc: {aux}, %d: {d}, %e: {e}) {{\n  pto.tquant_dn ins(%s, %mx, %sc : {s}, {aux}, {aux}) outs(%d, %e : {d}, {e}) {{mx_alg = #pto<mx_alg OcpMxFp4E2M1>}}\n  return\n}}\n"
            );
            let ran = run_kernel(&format!("tquant-dn-fp4-{src}-{dst}"), &text, &[("s", json!(rows))], &["d", "e"], MatmulOrder::Npu);
            assert_eq!(ran.iter().map(|r| r.0).collect::<Vec<_>>(), ["a5"], "{src} -> {dst}");
            let outs = &ran[0].1;
            let want_e: Vec<f64> = (0..128).map(|c| if c < 64 { 126.0 + (c % 3) as f64 } else { 0.0 }).collect();
            assert_eq!(outs[1], want_e, "{src} -> {dst}: exp");
            // Element (r, c) is code k = 128 r + c, in byte k / 2 = 64 r + c / 2: row r's 64
            // codes fill bytes 64 r .. 64 r + 32, i.e. byte row r / 2, columns (r % 2) * 64 ..
            // The output shows byte rows 0..32, columns 0..64: rows r = 2 r' for r' < 16.
            let byte = |b: u8| if dst == "i8" { f64::from(b as i8) } else { f64::from(b) };
            let want_d: Vec<f64> = (0..32)
                .flat_map(|rr: usize| (0..64).map(move |cc: usize| (rr, cc)))
                .map(|(rr, cc)| if rr < 16 && cc < 32 { byte(code[(2 * rr) % 4] * 0x11) } else { 0.0 })
                .collect();
            assert_eq!(outs[0], want_d, "{src} -> {dst}: codes");
        }
    }
}

/// `tquant_dn {interleave = true}` (TQUANT_DN.md): the E8M0 exponents of row groups `2p` and
/// `2p + 1` side by side, `exp[p][2c + δ] = E_DN[2p + δ][c]` in an `(M/64) x 2N` tile; data, max
/// and scaling as without it. On the ND form, or with rows that are not a multiple of 64, it is
/// a located error.
#[test]
fn tquant_dn_interleave_pairs_the_row_group_exponents() {
    // 64x64 source, valid 64x3 (f32, f16, bf16: every value below is exact in each). Column j: rows 0..32 hold j + 1 except row 7,
    // 448 (j + 1); rows 32..64 hold j + 1 except row 40, 2 (j + 1).
    let rows: Vec<Vec<f64>> = (0..64)
        .map(|r| {
            (0..3)
                .map(|j| {
                    let k = (j + 1) as f64;
                    match r {
                        7 => 448.0 * k,
                        40 => 2.0 * k,
                        _ => k,
                    }
                })
                .collect()
        })
        .collect();
    for src in ["f32", "f16", "bf16"] {
        let s = format!("!pto.tile_buf<vec, 64x64x{src}, valid=64x3>");
        let aux = format!("!pto.tile_buf<vec, 2x64x{src}>");
        let e = "!pto.tile_buf<vec, 1x128xui8, valid=1x6>";
        let d = "!pto.tile_buf<vec, 64x64xf8E4M3FN, valid=64x3>";
        let text = format!(
            "func.func @k(%s: {s}, %mx: {aux}, %sc: {aux}, %d: {d}, %e: {e}) {{\n  pto.tquant_dn ins(%s, %mx, %sc : {s}, {aux}, {aux}) outs(%d, %e : {d}, {e}) {{mx_alg = #pto<mx_alg OcpMxFp8E4M3>, interleave = true}}\n  return\n}}\n"
        );
        let ran = run_kernel(&format!("tquant-dn-interleave-{src}"), &text, &[("s", json!(rows))], &["d", "e", "mx"], MatmulOrder::Npu);
        assert_eq!(ran.iter().map(|r| r.0).collect::<Vec<_>>(), ["a5"], "{src}");
        let outs = &ran[0].1;
        // Group 0 maxima 448, 896, 1344 -> 127, 128, 129; group 1 maxima 2, 4, 6 -> biased
        // exponents 128, 129, 129 minus 8 = 120, 121, 121. Interleaved per column: (g0, g1).
        assert_eq!(outs[1], [127.0, 120.0, 128.0, 121.0, 129.0, 121.0], "{src}: exp");
        // max is written flat in group order, as without interleave.
        assert_eq!(outs[2][..6], [448.0, 896.0, 1344.0, 2.0, 4.0, 6.0], "{src}: max");
        let d = &outs[0];
        assert_eq!(d[..3], [1.0, 1.0, 0.75], "{src}: row 0: 1 * 1, 2 * 0.5, 3 * 0.25");
        // Row 32: scalings 2^7, 2^6, 2^6: 128, 128, 192.
        assert_eq!(d[32 * 3..32 * 3 + 3], [128.0, 128.0, 192.0], "{src}: row 32");
        assert_eq!(d[40 * 3..40 * 3 + 3], [256.0, 256.0, 384.0], "{src}: row 40");
    }
    // Rows not a multiple of 64, and the ND form: located errors.
    for (op, s, e, want) in [
        ("tquant_dn", "32x64xf32, valid=32x3", "1x128xui8", "multiples of 64"),
        ("tquant", "16x64xf32, valid=1x64", "16x32xui8", "DN quantization only"),
    ] {
        let s = format!("!pto.tile_buf<vec, {s}>");
        let aux = "!pto.tile_buf<vec, 16x64xf32>";
        let e = format!("!pto.tile_buf<vec, {e}>");
        let d = s.replace("xf32", "xf8E4M3FN");
        let text = format!(
            "func.func @k(%s: {s}, %mx: {aux}, %sc: {aux}, %d: {d}, %e: {e}) {{\n  pto.{op} ins(%s, %mx, %sc : {s}, {aux}, {aux}) outs(%d, %e : {d}, {e}) {{mx_alg = #pto<mx_alg OcpMxFp8E4M3>, interleave = true}}\n  return\n}}\n"
        );
        let dir = common::kernel::scratch_dir("mx-quant", &format!("interleave-bad-{op}"));
        let program = dir.join("k.pto");
        std::fs::write(&program, &text).unwrap();
        assert!(legal(&program, "a5"), "{op}: {text}");
        let out = run(&RunOptions { default_inputs: true, ..RunOptions::new(program.display().to_string(), TargetName::A5) });
        assert_eq!(out.code, 1, "{op}: {}", out.stderr);
        assert!(out.stderr.contains(want) && out.stderr.contains("k.pto:2"), "{op}: {}", out.stderr);
    }
}

/// `a` (left, f8) M x 64 with valid rows `m`, scales 2 groups.
fn mx_matmul_kernel(op: &str, m: usize, ta: &str, tb: &str, with: &str) -> String {
    let a = format!("!pto.tile_buf<left, 16x64x{ta}, valid={m}x64, blayout=col_major, slayout=row_major>");
    let sa = format!("!pto.tile_buf<scale_left, 16x2xf8E8M0FNU, valid={m}x2, blayout=row_major, slayout=row_major, fractal=32>");
    let b = format!("!pto.tile_buf<right, 64x16x{tb}, valid=64x3, blayout=row_major, slayout=col_major>");
    let sb = "!pto.tile_buf<scale_right, 2x16xf8E8M0FNU, valid=2x3, blayout=col_major, slayout=col_major, fractal=32>".to_string();
    let c = format!("!pto.tile_buf<acc, 16x16xf32, valid={m}x3, blayout=col_major, slayout=row_major, fractal=1024>");
    let bias = "!pto.tile_buf<bias, 1x16xf32, valid=1x3>".to_string();
    let (params, ins, types) = match with {
        "acc" => {
            (format!("%ci: {c}, %a: {a}, %sa: {sa}, %b: {b}, %sb: {sb}"), "%ci, %a, %sa, %b, %sb", format!("{c}, {a}, {sa}, {b}, {sb}"))
        }
        "bias" => (
            format!("%a: {a}, %sa: {sa}, %b: {b}, %sb: {sb}, %bias: {bias}"),
            "%a, %sa, %b, %sb, %bias",
            format!("{a}, {sa}, {b}, {sb}, {bias}"),
        ),
        _ => (format!("%a: {a}, %sa: {sa}, %b: {b}, %sb: {sb}"), "%a, %sa, %b, %sb", format!("{a}, {sa}, {b}, {sb}")),
    };
    format!("func.func @k({params}, %c: {c}) {{\n  pto.{op} ins({ins} : {types}) outs(%c : {c})\n  return\n}}\n")
}

#[test]
fn mx_matmul_and_gemv_scale_each_32_element_group() {
    // a[i][k] = 1 for k < 32 and 2 for k >= 32 (every row); b[k][j] = j + 1 for k < 32 and -1
    // for k >= 32; scales: a row i group 0 2^i, group 1 2^-1; b group 0 column j 2^j, group 1 4.
    // c[i][j] = 32 * (j + 1) * 2^i * 2^j + 32 * 2 * (-1) * 2^-1 * 4 = 32 (j + 1) 2^(i + j) - 128.
    // Every (a, b) type pair the A5 legality accepts; HiFloat8 holds 1, 2, 3 and -1 exactly.
    for (ta, tb) in [("f8E4M3FN", "f8E4M3FN"), ("f8E4M3FN", "f8E5M2"), ("f8E5M2", "f8E4M3FN"), ("f8E5M2", "f8E5M2"), ("hif8", "hif8")] {
        for (op, m) in [
            ("tmatmul.mx", 3usize),
            ("tmatmul.mx.acc", 2),
            ("tmatmul.mx.bias", 3),
            ("tgemv.mx", 1),
            ("tgemv.mx.acc", 1),
            ("tgemv.mx.bias", 1),
        ] {
            let with = op.rsplit('.').next().unwrap();
            let a: Vec<Vec<f64>> = (0..m).map(|_| (0..64).map(|k| if k < 32 { 1.0 } else { 2.0 }).collect()).collect();
            let b: Vec<Vec<f64>> = (0..64).map(|k| (0..3).map(|j| if k < 32 { (j + 1) as f64 } else { -1.0 }).collect()).collect();
            // E8M0 bit patterns: 127 + e.
            let sa: Vec<Vec<u64>> = (0..m).map(|i| vec![127 + i as u64, 126]).collect();
            let sb = vec![vec![127u64, 128, 129], vec![129, 129, 129]];
            let mut inputs = vec![
                ("a", json!(a)),
                ("b", json!(b)),
                ("sa", json!({"dtype": "f8E8M0FNU", "shape": [m, 2], "bits": sa})),
                ("sb", json!({"dtype": "f8E8M0FNU", "shape": [2, 3], "bits": sb})),
            ];
            let extra = |i: usize, j: usize| match with {
                "acc" => (10 * i + j) as f64,
                "bias" => [0.5, -1.0, 100.0][j],
                _ => 0.0,
            };
            if with == "acc" {
                inputs.push(("ci", json!((0..m).map(|i| (0..3).map(|j| extra(i, j)).collect::<Vec<_>>()).collect::<Vec<_>>())));
            }
            if with == "bias" {
                inputs.push(("bias", json!([[0.5, -1.0, 100.0]])));
            }
            let text = mx_matmul_kernel(op, m, ta, tb, with);
            let ran = run_kernel(&format!("{op}-{ta}-{tb}"), &text, &inputs, &["c"], MatmulOrder::Npu);
            assert_eq!(ran.iter().map(|r| r.0).collect::<Vec<_>>(), ["a5"], "{op} is A5-only");
            let want: Vec<f64> =
                (0..m).flat_map(|i| (0..3).map(move |j| 32.0 * (j + 1) as f64 * 2f64.powi((i + j) as i32) - 128.0 + extra(i, j))).collect();
            assert_eq!(ran[0].1[0], want, "{op} {ta} x {tb}");
        }
    }
}

#[test]
fn matmul_orders_differ_in_the_last_bit() {
    // f32, K = 2: a = [-1, 1 + 2^-12], b = [1, 1 + 2^-12]; the second product is exactly
    // 1 + 2^-11 + 2^-24, half an f32 ulp above 1 + 2^-11.
    // npu: each product rounded (ties to even: 1 + 2^-11), then -1 + 1 + 2^-11 = 2^-11.
    // cpu-sim: fma(-1, 1, 0) = -1; fma(1 + 2^-12, 1 + 2^-12, -1) = 2^-11 + 2^-24, exact.
    let e = 1.0 + 2f64.powi(-12);
    let a = "!pto.tile_buf<left, 16x16xf32, valid=1x2, blayout=col_major, slayout=row_major>";
    let b = "!pto.tile_buf<right, 16x16xf32, valid=2x1, blayout=row_major, slayout=col_major>";
    let c = "!pto.tile_buf<acc, 16x16xf32, valid=1x1, blayout=col_major, slayout=row_major, fractal=1024>";
    let text = format!("func.func @k(%a: {a}, %b: {b}, %c: {c}) {{\n  pto.tmatmul ins(%a, %b : {a}, {b}) outs(%c : {c})\n  return\n}}\n");
    let inputs = [("a", json!([[-1.0, e]])), ("b", json!([[1.0], [e]]))];
    let npu = run_kernel("order-npu", &text, &inputs, &["c"], MatmulOrder::Npu);
    let cpu = run_kernel("order-cpu", &text, &inputs, &["c"], MatmulOrder::CpuSim);
    assert_eq!(npu.len(), 2, "tmatmul f32 runs on both targets");
    for ((t, n), (_, c)) in npu.iter().zip(&cpu) {
        assert_eq!(n[0], [2f64.powi(-11)], "npu order on {t}");
        assert_eq!(c[0], [2f64.powi(-11) + 2f64.powi(-24)], "cpu-sim order on {t}");
    }
    // The bias: the NPU starts from it, the CPU simulator adds it last. Products 1 and 1 with
    // bias 2^24: npu 2^24 + 1 ties to 2^24 (f32 spacing 2 there), twice; cpu-sim 1 + 1 = 2, then
    // 2^24 + 2 exactly.
    let bias = "!pto.tile_buf<bias, 1x16xf32, valid=1x1>";
    let text = format!(
        "func.func @k(%a: {a}, %b: {b}, %bias: {bias}, %c: {c}) {{\n  pto.tmatmul.bias ins(%a, %b, %bias : {a}, {b}, {bias}) outs(%c : {c})\n  return\n}}\n"
    );
    let inputs = [("a", json!([[1.0, 1.0]])), ("b", json!([[1.0], [1.0]])), ("bias", json!([[16777216.0]]))];
    let npu = run_kernel("bias-npu", &text, &inputs, &["c"], MatmulOrder::Npu);
    let cpu = run_kernel("bias-cpu", &text, &inputs, &["c"], MatmulOrder::CpuSim);
    assert!(!npu.is_empty());
    for ((t, n), (_, c)) in npu.iter().zip(&cpu) {
        assert_eq!(n[0], [16777216.0], "npu order on {t}");
        assert_eq!(c[0], [16777218.0], "cpu-sim order on {t}");
    }
}

#[test]
fn tget_scale_addr_places_the_scales_beside_the_operand() {
    // The left tile sits at L0A offset 0 (the only tile there): its scales at 0 >> 4 = 0 in the
    // scale memory. `%sa` starts with the bound input; after tget_scale_addr it is the scale
    // memory's contents (zero), so the output shows the re-placement.
    let a = "!pto.tile_buf<left, 16x64xf8E4M3FN, blayout=col_major, slayout=row_major>";
    let sa = "!pto.tile_buf<scaling, 16x64xf8E8M0FNU>";
    let text = format!("func.func @k(%a: {a}, %sa: {sa}) {{\n  pto.tget_scale_addr ins(%a : {a}) outs(%sa : {sa})\n  return\n}}\n");
    let bits = vec![vec![127u64; 64]; 16];
    let a_bits = vec![vec![0x38u64; 64]; 16];
    let inputs = [
        ("a", json!({"dtype": "f8E4M3FN", "shape": [16, 64], "bits": a_bits})),
        ("sa", json!({"dtype": "f8E8M0FNU", "shape": [16, 64], "bits": bits})),
    ];
    let ran = run_kernel("tget-scale-addr", &text, &inputs, &["sa"], MatmulOrder::Npu);
    assert_eq!(ran.iter().map(|r| r.0).collect::<Vec<_>>(), ["a5"], "A5-only");
    // E8M0 code 0 is 2^-127: the scale memory was never written.
    assert!(ran[0].1[0].iter().all(|&x| x == 2f64.powi(-127)), "{:?}", ran[0].1[0]);
    assert_eq!(pto_sim::quant::SHIFT_MX_ADDR, 4);
}
