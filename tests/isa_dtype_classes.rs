//! Issue 14 acceptance 3 for the region-defined and layout instructions: each runs, on both
//! targets, with every element type its target's legality accepts, on a partial valid region,
//! against a reference computed here from pto-isa's semantics (`include/pto/cpu/TPartOp.hpp`,
//! `TPartArgCommon.hpp`, `TPairReduceSum.hpp`, `TTRI.hpp`, `TFillPad.hpp`, `TTrans.hpp`,
//! `TScatter.hpp`). One table per family; a case skips the (type, target) pairs the legality
//! tables reject and the test asserts how many ran, so a shrinking legality table shows.
//! docs/isa-tests.md lists which test checks which instruction.

use pto::TargetName;
use pto::cmd::run::{RunOptions, run};
mod common;
use common::kernel::{input_args, legal, number};
use serde_json::{Value, json};

/// Every element type a tile may have.
const DTYPES: &[&str] = &["f32", "f16", "bf16", "i32", "i16", "i8", "ui32", "ui16", "ui8", "i64", "ui64"];
const TARGETS: [(TargetName, &str); 2] = [(TargetName::A2A3, "a2a3"), (TargetName::A5, "a5")];

fn is_float(dtype: &str) -> bool {
    dtype.starts_with('f') || dtype == "bf16"
}

fn bytes(dtype: &str) -> usize {
    if dtype.starts_with("f8") || dtype == "hif8" {
        return 1;
    }
    match dtype.trim_start_matches(['u', 'i', 'f', 'b']) {
        "8" => 1,
        "16" => 2,
        "32" => 4,
        _ => 8,
    }
}

/// A 64-byte row: the tile's capacity columns for `dtype`.
fn cols(dtype: &str) -> usize {
    64 / bytes(dtype)
}

/// Rounds to `dtype` (floats to nearest, integers truncate and wrap).
fn round(dtype: &str, x: f64) -> f64 {
    common::kernel::round_to_dtype(dtype, x)
}

/// A deterministic `rows x cols` grid of small values of `dtype`: -8..=8 (halves for floats,
/// magnitudes for unsigned types).
fn grid(seed: u64, rows: usize, cols: usize, dtype: &str) -> Vec<Vec<f64>> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(7);
    (0..rows)
        .map(|_| {
            (0..cols)
                .map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let k = ((x >> 33) % 17) as f64 - 8.0;
                    let v = if is_float(dtype) { k / 2.0 } else { k };
                    if dtype.starts_with("ui") { v.abs() } else { v }
                })
                .collect()
        })
        .collect()
}

/// The grid as JSON (integers for integer types).
fn to_json(g: &[Vec<f64>], dtype: &str) -> Value {
    let float = is_float(dtype);
    json!(g.iter().map(|r| r.iter().map(|&v| if float { json!(v) } else { json!(v as i64) }).collect::<Vec<_>>()).collect::<Vec<_>>())
}

/// Runs `text` on `target` when its legality accepts it; the outputs' data (valid regions,
/// row-major; the whole capacity for a tile without a valid shape; `gm:NAME` a whole GM array).
fn run_on(name: &str, text: &str, inputs: &[(&str, Value)], outputs: &[&str], target: (TargetName, &str)) -> Option<Vec<Vec<f64>>> {
    let dir = common::kernel::scratch_dir("dtype-classes", &format!("{name}-{}", target.1));
    let program = dir.join("k.pto");
    std::fs::write(&program, text).unwrap();
    if !legal(&program, target.1) {
        return None;
    }
    // GM arrays the kernel wrote are always output; `gm:NAME` reads one.
    let out = run(&RunOptions {
        inputs: input_args(&dir, inputs),
        outputs: outputs.iter().filter(|o| !o.starts_with("gm:")).map(|s| s.to_string()).collect(),
        ..RunOptions::new(program.display().to_string(), target.0)
    });
    assert_eq!(out.code, 0, "{name} on {}: {}\n{text}", target.1, out.stderr);
    let json: Value = serde_json::from_str(&out.stdout).unwrap();
    Some(outputs.iter().map(|o| json[o.trim_start_matches("gm:")]["data"].as_array().unwrap().iter().map(number).collect()).collect())
}

fn same(got: &[f64], want: &[f64]) -> bool {
    got.len() == want.len() && got.iter().zip(want).all(|(g, w)| g == w || (g.is_nan() && w.is_nan()))
}

/// `tpartadd` / `tpartmul` / `tpartmax` / `tpartmin`: over dst's valid region (3x4), `a op b`
/// where both sources are valid (a 2x3, b 3x2), the one valid source where only one is, 0 where
/// neither is.
#[test]
fn partial_ops_every_element_type() {
    type Op = (&'static str, fn(f64, f64) -> f64);
    let ops: [Op; 4] = [("tpartadd", |a, b| a + b), ("tpartmul", |a, b| a * b), ("tpartmax", f64::max), ("tpartmin", f64::min)];
    let mut ran = Vec::new();
    for (op, f) in ops {
        for &dt in DTYPES {
            let t = |v: &str| format!("!pto.tile_buf<vec, 8x{}x{dt}, valid={v}>", cols(dt));
            let (ta, tb, td) = (t("2x3"), t("3x2"), t("3x4"));
            let text = format!(
                "func.func @k(%a: {ta}, %b: {tb}, %d: {td}) {{\n  pto.{op} ins(%a, %b : {ta}, {tb}) outs(%d : {td})\n  return\n}}\n"
            );
            let (a, b) = (grid(1, 2, 3, dt), grid(2, 3, 2, dt));
            let mut want = Vec::new();
            for r in 0..3 {
                for c in 0..4 {
                    let (va, vb) = ((r < 2 && c < 3).then(|| a[r][c]), (c < 2).then(|| b[r][c]));
                    want.push(match (va, vb) {
                        (Some(x), Some(y)) => round(dt, f(x, y)),
                        (Some(x), None) | (None, Some(x)) => x,
                        (None, None) => 0.0,
                    });
                }
            }
            for target in TARGETS {
                let inputs = [("a", to_json(&a, dt)), ("b", to_json(&b, dt))];
                let Some(got) = run_on(&format!("{op}-{dt}"), &text, &inputs, &["d"], target) else { continue };
                assert!(same(&got[0], &want), "{op} {dt} {}: {:?}, expected {want:?}", target.1, got[0]);
                ran.push(format!("{op}/{dt}/{}", target.1));
            }
        }
    }
    // A2A3: f32 f16 i32 i16; A5 adds bf16 i8 ui32 ui16 ui8 (4 ops x 13).
    assert_eq!(ran.len(), 52, "{ran:?}");
}

/// `tpartargmax` / `tpartargmin`: (value, index) pairs, the valid-region rules of the partial
/// ops; where both are valid the first pair wins only when strictly greater (smaller), so a
/// tie takes the second. Every (value, index) type pair the targets accept.
#[test]
fn partial_arg_ops_every_value_and_index_type() {
    let mut ran = Vec::new();
    for (op, max) in [("tpartargmax", true), ("tpartargmin", false)] {
        for vt in ["f32", "f16"] {
            for it in ["i32", "ui32", "i16", "ui16"] {
                let t = |dt: &str, v: &str| format!("!pto.tile_buf<vec, 8x{}x{dt}, valid={v}>", cols(dt));
                let (a, b, d) = (t(vt, "2x3"), t(vt, "3x2"), t(vt, "3x3"));
                let (ia, ib, id) = (t(it, "2x3"), t(it, "3x2"), t(it, "3x3"));
                let text = format!(
                    "func.func @k(%a: {a}, %b: {b}, %ai: {ia}, %bi: {ib}, %d: {d}, %di: {id}) {{\n  pto.{op} ins(%a, %b, %ai, %bi : {a}, {b}, {ia}, {ib}) outs(%d, %di : {d}, {id})\n  return\n}}\n"
                );
                let av = [[5.0, 1.0, 7.0], [2.0, 9.5, -4.0]];
                let bv = [[5.0, 3.0], [1.0, 9.5], [8.0, -6.0]];
                let inputs = [
                    ("a", json!(av)),
                    ("b", json!(bv)),
                    ("ai", json!([[100, 101, 102], [103, 104, 105]])),
                    ("bi", json!([[200, 201], [202, 203], [204, 205]])),
                ];
                // Both valid at (0,0), (0,1), (1,0), (1,1); (0,0) and (1,1) tie.
                let pick = |x: f64, y: f64| if max { x > y } else { x < y };
                let mut want_v = Vec::new();
                let mut want_i = Vec::new();
                for r in 0..3 {
                    for c in 0..3 {
                        let (va, vb) = (
                            (r < 2).then(|| (av[r][c], 100.0 + (3 * r + c) as f64)),
                            (c < 2).then(|| (bv[r][c], 200.0 + (2 * r + c) as f64)),
                        );
                        let (v, i) = match (va, vb) {
                            (Some(x), Some(y)) => {
                                if pick(x.0, y.0) {
                                    x
                                } else {
                                    y
                                }
                            }
                            (Some(x), None) | (None, Some(x)) => x,
                            (None, None) => (0.0, 0.0),
                        };
                        want_v.push(v);
                        want_i.push(i);
                    }
                }
                for target in TARGETS {
                    let Some(got) = run_on(&format!("{op}-{vt}-{it}"), &text, &inputs, &["d", "di"], target) else { continue };
                    assert!(same(&got[0], &want_v), "{op} {vt}/{it} {}: values {:?}, expected {want_v:?}", target.1, got[0]);
                    assert!(same(&got[1], &want_i), "{op} {vt}/{it} {}: indices {:?}, expected {want_i:?}", target.1, got[1]);
                    ran.push(format!("{op}/{vt}/{it}/{}", target.1));
                }
            }
        }
    }
    // f16 with 4 index types, f32 with 2 (i32, ui32); 2 ops, 2 targets.
    assert_eq!(ran.len(), 24, "{ran:?}");
}

/// `tpairreducesum`: row `r` of dst holds `src[r, 2c] + src[r, 2c + 1]` in its first
/// `ceil(5 / 2)` columns (the odd last element alone), 0 after, over a 3x5 valid region.
#[test]
fn pair_reduce_sum_every_element_type() {
    let mut ran = Vec::new();
    for &dt in DTYPES {
        let t = format!("!pto.tile_buf<vec, 8x{}x{dt}, valid=3x5>", cols(dt));
        let text = format!("func.func @k(%s: {t}, %d: {t}) {{\n  pto.tpairreducesum ins(%s : {t}) outs(%d : {t})\n  return\n}}\n");
        let s = grid(3, 3, 5, dt);
        let want: Vec<f64> = s.iter().flat_map(|r| [round(dt, r[0] + r[1]), round(dt, r[2] + r[3]), r[4], 0.0, 0.0]).collect();
        for target in TARGETS {
            let Some(got) = run_on(&format!("tpairreducesum-{dt}"), &text, &[("s", to_json(&s, dt))], &["d"], target) else { continue };
            assert!(same(&got[0], &want), "tpairreducesum {dt} {}: {:?}, expected {want:?}", target.1, got[0]);
            ran.push(format!("{dt}/{}", target.1));
        }
    }
    // A2A3: 4 types; A5: all 11.
    assert_eq!(ran.len(), 15, "{ran:?}");
}

/// `ttri`: over dst's 3x5 valid region, 1 on and below diagonal `d` (lower: `c <= r + d`) or on
/// and above it (upper: `c >= r + d`), 0 elsewhere.
#[test]
fn ttri_every_element_type() {
    let mut ran = Vec::new();
    for &dt in DTYPES {
        for (upper, diag) in [(0, 0), (1, 1), (0, -1), (1, -2)] {
            let t = format!("!pto.tile_buf<vec, 8x{}x{dt}, valid=3x5>", cols(dt));
            let text = format!(
                "func.func @k(%n: i32, %d: {t}) {{\n  pto.ttri ins(%n : i32) outs(%d : {t}) {{isUpperOrLower = {upper}}}\n  return\n}}\n"
            );
            let want: Vec<f64> = (0..3i64)
                .flat_map(|r| {
                    (0..5i64).map(move |c| if (upper == 1 && c >= r + diag) || (upper == 0 && c <= r + diag) { 1.0 } else { 0.0 })
                })
                .collect();
            for target in TARGETS {
                let Some(got) = run_on(&format!("ttri-{dt}-{upper}{diag}"), &text, &[("n", json!(diag))], &["d"], target) else { continue };
                assert!(same(&got[0], &want), "ttri {dt} upper={upper} d={diag} {}: {:?}, expected {want:?}", target.1, got[0]);
                ran.push(format!("{dt}/{}", target.1));
            }
        }
    }
    // A2A3: f32 f16 i32 i16 ui32 ui16; A5: f32 f16 bf16 i32 i16 i8 ui32 ui16 ui8; 4 cases each.
    assert_eq!(ran.len(), 4 * 15, "{ran:?}");
}

/// The pad value of `dtype` for `pad=` 1 (zero), 2 (max: +inf or the largest value), 3 (min:
/// -inf or the smallest), as `cpu/TFillPad.hpp` picks it.
fn pad_value(dtype: &str, pad: u8) -> f64 {
    let (lo, hi) = match dtype {
        "i32" => (i32::MIN as f64, i32::MAX as f64),
        "i16" => (i16::MIN as f64, i16::MAX as f64),
        "i8" => (i8::MIN as f64, i8::MAX as f64),
        "ui32" => (0.0, u32::MAX as f64),
        "ui16" => (0.0, u16::MAX as f64),
        "ui8" => (0.0, u8::MAX as f64),
        _ => (f64::NEG_INFINITY, f64::INFINITY),
    };
    match pad {
        2 => hi,
        3 => lo,
        _ => 0.0,
    }
}

/// `tfillpad`, `tfillpad_inplace`, `tfillpad_expand`: dst's whole capacity gets src inside
/// src's 3x5 valid region and dst's pad value elsewhere; `_expand` into a larger destination.
#[test]
fn fill_pad_every_element_type_and_pad_value() {
    let mut ran = Vec::new();
    for op in ["tfillpad", "tfillpad_inplace", "tfillpad_expand"] {
        for &dt in DTYPES {
            for pad in [1u8, 2, 3] {
                let c = cols(dt);
                let (drows, dcols) = if op == "tfillpad_expand" { (16, 2 * c) } else { (8, c) };
                let s = format!("!pto.tile_buf<vec, 8x{c}x{dt}, valid=3x5>");
                let d = format!("!pto.tile_buf<vec, {drows}x{dcols}x{dt}, pad={pad}>");
                let text = format!("func.func @k(%s: {s}, %d: {d}) {{\n  pto.{op} ins(%s : {s}) outs(%d : {d})\n  return\n}}\n");
                let src = grid(4, 3, 5, dt);
                let want: Vec<f64> = (0..drows)
                    .flat_map(|r| (0..dcols).map(move |c| (r, c)))
                    .map(|(r, c)| if r < 3 && c < 5 { src[r][c] } else { pad_value(dt, pad) })
                    .collect();
                for target in TARGETS {
                    let Some(got) = run_on(&format!("{op}-{dt}-{pad}"), &text, &[("s", to_json(&src, dt))], &["d"], target) else {
                        continue;
                    };
                    assert!(same(&got[0], &want), "{op} {dt} pad={pad} {}: {:?}, expected {want:?}", target.1, got[0]);
                    ran.push(format!("{op}/{dt}/{pad}/{}", target.1));
                }
            }
        }
    }
    // 9 types (no 64-bit) x 3 pads x 3 ops x 2 targets.
    assert_eq!(ran.len(), 9 * 3 * 3 * 2, "{ran:?}");
}

/// `ttrans`: `dst[c, r] = src[r, c]` over src's 3x5 valid region (dst valid 5x3).
#[test]
fn ttrans_every_element_type() {
    let mut ran = Vec::new();
    for &dt in DTYPES {
        let c = cols(dt);
        let s = format!("!pto.tile_buf<vec, 8x{c}x{dt}, valid=3x5>");
        let d = format!("!pto.tile_buf<vec, 8x{c}x{dt}, valid=5x3>");
        // The scratch tile PTOAS's DPS form requires, shaped like dst (A2A3: docs/scratch.md).
        let t = format!("!pto.tile_buf<vec, 8x{c}x{dt}>");
        let text =
            format!("func.func @k(%s: {s}, %t: {t}, %d: {d}) {{\n  pto.ttrans ins(%s, %t : {s}, {t}) outs(%d : {d})\n  return\n}}\n");
        let src = grid(5, 3, 5, dt);
        let want: Vec<f64> = (0..5).flat_map(|r| (0..3).map(move |c| (r, c))).map(|(r, c)| src[c][r]).collect();
        for target in TARGETS {
            let Some(got) = run_on(&format!("ttrans-{dt}"), &text, &[("s", to_json(&src, dt))], &["d"], target) else { continue };
            assert!(same(&got[0], &want), "ttrans {dt} {}: {:?}, expected {want:?}", target.1, got[0]);
            ran.push(format!("{dt}/{}", target.1));
        }
    }
    // 9 types (no 64-bit) on both targets.
    assert_eq!(ran.len(), 18, "{ran:?}");
}

/// `tscatter`: `dst.flat[idx[i, j]] = src[i, j]` over the indices' 2x3 valid region; untouched
/// elements keep their value, a repeated index keeps the last write. Every (data, index) type
/// pair the targets accept (16-bit indices for 1- and 2-byte data, 32-bit for 4-byte data).
#[test]
fn tscatter_every_data_and_index_type() {
    let mut ran = Vec::new();
    for &dt in DTYPES {
        for it in ["i16", "ui16", "i32", "ui32"] {
            let (s, i) = (
                format!("!pto.tile_buf<vec, 2x{}x{dt}, valid=2x3>", cols(dt)),
                format!("!pto.tile_buf<vec, 2x{}x{it}, valid=2x3>", cols(it)),
            );
            let d = format!("!pto.tile_buf<vec, 4x{}x{dt}>", cols(dt));
            let text =
                format!("func.func @k(%s: {s}, %i: {i}, %d: {d}) {{\n  pto.tscatter ins(%s, %i : {s}, {i}) outs(%d : {d})\n  return\n}}\n");
            let n = 4 * cols(dt);
            let src = grid(6, 2, 3, dt);
            let old = grid(7, 4, cols(dt), dt);
            let idx = [[n - 1, 0, 9], [9, 16, 1]];
            let mut want: Vec<f64> = old.concat();
            for r in 0..2 {
                for c in 0..3 {
                    want[idx[r][c]] = src[r][c];
                }
            }
            let inputs = [("s", to_json(&src, dt)), ("i", json!(idx)), ("d", to_json(&old, dt))];
            for target in TARGETS {
                let Some(got) = run_on(&format!("tscatter-{dt}-{it}"), &text, &inputs, &["d"], target) else { continue };
                assert!(same(&got[0], &want), "tscatter {dt}/{it} {}: {:?}, expected {want:?}", target.1, got[0]);
                ran.push(format!("{dt}/{it}/{}", target.1));
            }
        }
    }
    // 6 one- and two-byte types x 2 index types + 3 four-byte types x 2, on both targets.
    assert_eq!(ran.len(), (6 * 2 + 3 * 2) * 2, "{ran:?}");
}

/// `mgather` / `mscatter` with `coalesce = elem` (the default): `dst[i, j] = table.flat[idx[i,
/// j]]` and `table.flat[idx[i, j]] = src[i, j]` over the tile's 3x5 valid region (pto-isa
/// `cpu/MGather.hpp`, `MScatter.hpp`); the rest of the table keeps its values. Every element
/// type the targets accept, the 8-bit floats of A5 included, with i32 indices (and ui32 on
/// A2A3).
#[test]
fn gather_scatter_every_element_type() {
    let mut ran = Vec::new();
    let types: Vec<&str> = DTYPES.iter().copied().chain(["f8E4M3FN", "f8E5M2"]).collect();
    for op in ["mgather", "mscatter"] {
        for &dt in &types {
            for it in ["i32", "ui32"] {
                let tile = format!("!pto.tile_buf<vec, 4x{}x{dt}, valid=3x5>", cols(dt));
                let idx_t = format!("!pto.tile_buf<vec, 4x16x{it}, valid=3x5>");
                let (view, tv) = (format!("!pto.partition_tensor_view<4x8x{dt}>"), format!("!pto.tensor_view<4x8x{dt}>"));
                let (params, body) = if op == "mgather" {
                    (
                        format!("%p: !pto.ptr<{dt}>, %i: {idx_t}, %d: {tile}"),
                        format!("pto.mgather ins(%v, %i : {view}, {idx_t}) outs(%d : {tile})"),
                    )
                } else {
                    (
                        format!("%s: {tile}, %i: {idx_t}, %p: !pto.ptr<{dt}>"),
                        format!("pto.mscatter ins(%s, %i : {tile}, {idx_t}) outs(%v : {view})"),
                    )
                };
                let text = format!(
                    "func.func @k({params}) {{\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %c4 = arith.constant 4 : index\n  %c8 = arith.constant 8 : index\n  %tv = pto.make_tensor_view %p, shape = [%c4, %c8], strides = [%c8, %c1] : {tv}\n  %v = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c4, %c8] : {tv} -> {view}\n  {body}\n  return\n}}\n"
                );
                // Table and tile values: halves -2..1.5 for the 8-bit floats (exact in both).
                let value = |seed: u64, rows: usize, cols: usize| -> Vec<Vec<f64>> {
                    if dt.starts_with("f8") {
                        (0..rows).map(|r| (0..cols).map(|c| ((r * cols + c + seed as usize) % 8) as f64 / 2.0 - 2.0).collect()).collect()
                    } else {
                        grid(seed, rows, cols, dt)
                    }
                };
                let table = value(8, 4, 8);
                let src = value(9, 3, 5);
                // 7 is prime to 32: 15 distinct positions.
                let idx: Vec<Vec<usize>> = (0..3).map(|r| (0..5).map(|c| (r * 5 + c) * 7 % 32).collect()).collect();
                let (inputs, output, want) = if op == "mgather" {
                    let want: Vec<f64> = idx.concat().iter().map(|&k| table[k / 8][k % 8]).collect();
                    (vec![("p", to_json(&table, dt)), ("i", json!(idx))], "d", want)
                } else {
                    let mut want = table.concat();
                    for r in 0..3 {
                        for c in 0..5 {
                            want[idx[r][c]] = src[r][c];
                        }
                    }
                    (vec![("s", to_json(&src, dt)), ("i", json!(idx)), ("p", to_json(&table, dt))], "gm:p", want)
                };
                for target in TARGETS {
                    let Some(got) = run_on(&format!("{op}-{dt}-{it}"), &text, &inputs, &[output], target) else { continue };
                    assert!(same(&got[0], &want), "{op} {dt}/{it} {}: {:?}, expected {want:?}", target.1, got[0]);
                    ran.push(format!("{op}/{dt}/{it}/{}", target.1));
                }
            }
        }
    }
    // Per op: A2A3 9 types x (i32, ui32); A5 the 9 and the two 8-bit floats, i32 only.
    assert_eq!(ran.len(), 2 * (9 * 2 + 11), "{ran:?}");
}

/// `tinterleave` / `tdeinterleave` (pto-isa `cpu/TInterleave.hpp`, `TDeinterleave.hpp`) over a
/// 3x6 valid region, `m` = 3 the half width: `tinterleave` writes `src0[r, c], src1[r, c]` pairs
/// at `dst0[r, 2c..]` for `c < m` and those of `c + m` to `dst1`; `tdeinterleave` is its
/// inverse, from two sources or (single-source form) from one 3x12 source. Every element type
/// A5 accepts (A2A3 has neither instruction).
#[test]
fn interleave_and_deinterleave_every_element_type() {
    let mut ran = Vec::new();
    for &dt in DTYPES {
        let t = |v: &str| format!("!pto.tile_buf<vec, 8x{}x{dt}, valid={v}>", cols(dt));
        let (t6, t12) = (t("3x6"), t("3x12"));
        let (a, b, wide) = (grid(10, 3, 6, dt), grid(11, 3, 6, dt), grid(12, 3, 12, dt));
        let kernels = [
            ("tinterleave", format!("pto.tinterleave ins(%a, %b : {t6}, {t6}) outs(%d0, %d1 : {t6}, {t6})"), t6.clone()),
            ("tdeinterleave", format!("pto.tdeinterleave ins(%a, %b : {t6}, {t6}) outs(%d0, %d1 : {t6}, {t6})"), t6.clone()),
            ("tdeinterleave1", format!("pto.tdeinterleave ins(%a : {t12}) outs(%d0, %d1 : {t6}, {t6})"), t12.clone()),
        ];
        for (name, body, src_t) in kernels {
            let (text, inputs) = if name == "tdeinterleave1" {
                (format!("func.func @k(%a: {src_t}, %d0: {t6}, %d1: {t6}) {{\n  {body}\n  return\n}}\n"), vec![("a", to_json(&wide, dt))])
            } else {
                (
                    format!("func.func @k(%a: {t6}, %b: {t6}, %d0: {t6}, %d1: {t6}) {{\n  {body}\n  return\n}}\n"),
                    vec![("a", to_json(&a, dt)), ("b", to_json(&b, dt))],
                )
            };
            let (mut w0, mut w1) = (vec![0.0; 18], vec![0.0; 18]);
            for r in 0..3 {
                for c in 0..3 {
                    let at = |k: usize| r * 6 + k;
                    match name {
                        "tinterleave" => {
                            (w0[at(2 * c)], w0[at(2 * c + 1)]) = (a[r][c], b[r][c]);
                            (w1[at(2 * c)], w1[at(2 * c + 1)]) = (a[r][c + 3], b[r][c + 3]);
                        }
                        "tdeinterleave" => {
                            (w0[at(c)], w1[at(c)]) = (a[r][2 * c], a[r][2 * c + 1]);
                            (w0[at(c + 3)], w1[at(c + 3)]) = (b[r][2 * c], b[r][2 * c + 1]);
                        }
                        _ => {
                            for k in [c, c + 3] {
                                (w0[at(k)], w1[at(k)]) = (wide[r][2 * k], wide[r][2 * k + 1]);
                            }
                        }
                    }
                }
            }
            for target in TARGETS {
                let Some(got) = run_on(&format!("{name}-{dt}"), &text, &inputs, &["d0", "d1"], target) else { continue };
                assert!(same(&got[0], &w0) && same(&got[1], &w1), "{name} {dt} {}: {got:?}, expected {w0:?} {w1:?}", target.1);
                ran.push(format!("{name}/{dt}/{}", target.1));
            }
        }
    }
    // A5: the nine element types npu/a5/TInterleave.hpp and TDeInterleave.hpp static_assert (no
    // 64-bit ones: the legality table rejects those) x 3 kernels.
    assert_eq!(ran.len(), 27, "{ran:?}");
}
