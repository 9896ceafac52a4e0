//! Generated workloads for benchmarks and scaling tests.

use std::fmt::Write;

/// How the generated kernel spells its `tile_buf` types.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Spelling {
    /// `!pto.tile_buf<loc=vec, dtype=f32, rows=32, ...>` (what PTOAS's samples use).
    Legacy,
    /// `!pto.tile_buf<vec, 32x32xf32>` (what the PTOAS printer and `pto fmt` emit).
    Compact,
}

/// The PTOAS-style Level-2 kernel of the foundation benchmark: three `32x32xf32` Vec tiles
/// loaded from GM, then `n` repetitions of a `tadd` and a `tmax` on them, then a store.
pub fn tadd_tmax_kernel(n: usize) -> String {
    tadd_tmax_kernel_spelled(n, Spelling::Legacy)
}

/// [`tadd_tmax_kernel`] with a chosen `tile_buf` spelling.
pub fn tadd_tmax_kernel_spelled(n: usize, spelling: Spelling) -> String {
    let legacy =
        "!pto.tile_buf<loc=vec, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
    #[allow(non_snake_case)]
    let TB = if spelling == Spelling::Legacy { legacy } else { "!pto.tile_buf<vec, 32x32xf32>" };
    let mut s = String::with_capacity(400 * n + 4096);
    s.push_str("module {\n  func.func @tadd_tmax(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>, %arg2: !pto.ptr<f32>) {\n");
    s.push_str("    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n    %c32 = arith.constant 32 : index\n");
    for (i, arg) in ["%arg0", "%arg1", "%arg2"].iter().enumerate() {
        let _ =
            writeln!(s, "    %v{i} = pto.make_tensor_view {arg}, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>");
        let _ = writeln!(
            s,
            "    %p{i} = pto.partition_view %v{i}, offsets = [%c0, %c0], sizes = [%c32, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<32x32xf32>"
        );
    }
    for t in ["a", "b", "c"] {
        let _ = writeln!(s, "    %{t} = pto.alloc_tile : {TB}");
    }
    let _ = writeln!(s, "    pto.tload ins(%p0 : !pto.partition_tensor_view<32x32xf32>) outs(%a : {TB})");
    let _ = writeln!(s, "    pto.tload ins(%p1 : !pto.partition_tensor_view<32x32xf32>) outs(%b : {TB})");
    for _ in 0..n {
        let _ = writeln!(s, "    pto.tadd ins(%a, %b : {TB}, {TB}) outs(%c : {TB})");
        let _ = writeln!(s, "    pto.tmax ins(%c, %b : {TB}, {TB}) outs(%a : {TB})");
    }
    let _ = writeln!(s, "    pto.tstore ins(%a : {TB}) outs(%p2 : !pto.partition_tensor_view<32x32xf32>)");
    s.push_str("    return\n  }\n}\n");
    s
}

/// A Level-1 PTO-AS program of `n` chained row softmaxes on a 16x64 f32 tile (`trowmax`,
/// `trowexpandsub`, `texp`, `trowsum`, `trowexpanddiv`, each step reading the previous result):
/// every pass has work to do — bufferization of 5n values, 2n scratch tiles on A2A3, planning
/// of short live ranges.
pub fn softmax_chain(n: usize) -> String {
    let mut s = String::with_capacity(300 * n + 64);
    s.push_str(".arg %y0 : !pto.tile<16x64xf32>\n");
    for i in 0..n {
        let (x, y) = (format!("%y{i}"), format!("%y{}", i + 1));
        let _ = writeln!(s, "%m{i} = trowmax {x} : !pto.tile<16x1xf32, blayout=col_major>");
        let _ = writeln!(s, "%d{i} = trowexpandsub {x}, %m{i} : !pto.tile<16x64xf32>");
        let _ = writeln!(s, "%e{i} = texp %d{i} : !pto.tile<16x64xf32>");
        let _ = writeln!(s, "%s{i} = trowsum %e{i} : !pto.tile<16x1xf32, blayout=col_major>");
        let _ = writeln!(s, "{y} = trowexpanddiv %e{i}, %s{i} : !pto.tile<16x64xf32>");
    }
    s
}

/// An `n`-op program (the simulator benchmarks use 1,000) cycling through ten common Vec ops on 64x64 f32 tiles (elementwise,
/// unary, tile-scalar, row reduction and row expand), reported as ns per destination element;
/// with `pto.barrier <PIPE_V>` after each op when `barriers` (what A2A3 needs between dependent
/// vector ops: the program is then free of hazards).
pub fn mixed_vec_program(n: usize, barriers: bool) -> String {
    const TB: &str = "!pto.tile_buf<vec, 64x64xf32>";
    const DN: &str = "!pto.tile_buf<vec, 64x1xf32, blayout=col_major>";
    /// The row reductions' scratch tile (PTOAS's DPS form writes it).
    const TMP: &str = "!pto.tile_buf<vec, 1x8xf32>";
    let mut s = format!(".arg %a : {TB}\n.arg %b : {TB}\n.arg %c : {TB}\n.arg %r : {DN}\n.arg %t : {TMP}\n.const %k = 0.5 : f32\n");
    let cycle = [
        format!("pto.tadd ins(%a, %b : {TB}, {TB}) outs(%c : {TB})"),
        format!("pto.tmul ins(%c, %b : {TB}, {TB}) outs(%c : {TB})"),
        format!("pto.tmax ins(%c, %a : {TB}, {TB}) outs(%c : {TB})"),
        format!("pto.tmuls ins(%c, %k : {TB}, f32) outs(%c : {TB})"),
        format!("pto.tadds ins(%c, %k : {TB}, f32) outs(%c : {TB})"),
        format!("pto.tsub ins(%c, %a : {TB}, {TB}) outs(%c : {TB})"),
        format!("pto.trowmax ins(%c, %t : {TB}, {TMP}) outs(%r : {DN})"),
        format!("pto.trowexpandsub ins(%c, %r : {TB}, {DN}) outs(%c : {TB})"),
        format!("pto.tabs ins(%c : {TB}) outs(%c : {TB})"),
        format!("pto.trowsum ins(%c, %t : {TB}, {TMP}) outs(%r : {DN})"),
    ];
    for i in 0..n {
        s.push_str(&cycle[i % cycle.len()]);
        s.push('\n');
        if barriers {
            s.push_str("pto.barrier <PIPE_V>\n");
        }
    }
    s
}
