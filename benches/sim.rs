//! Simulator throughput (issue "Simulator", item 5): ns per element for TADD / TMAX / TROWSUM
//! on 64x64 f32 tiles, each in a program of 100 identical ops (interpretation overhead
//! amortised), compared with the pto-isa CPU simulator's 0.13-0.17 ns/element (TADD/TMAX)
//! and 0.07-0.11 ns/element (TROWSUM). Run with `cargo bench --bench sim`.

use pto_lower::{Target, TargetId};
use pto_sim::Sim;

fn main() {
    divan::main();
}

const TB: &str = "!pto.tile_buf<vec, 64x64xf32>";
const DN: &str = "!pto.tile_buf<vec, 64x1xf32, blayout=col_major>";
/// The row reductions' scratch tile (PTOAS's DPS form writes it).
const TMP: &str = "!pto.tile_buf<vec, 1x8xf32>";

fn program(op: &str) -> String {
    let mut s = format!(".arg %a : {TB}\n.arg %b : {TB}\n.arg %c : {TB}\n.arg %r : {DN}\n.arg %t : {TMP}\n");
    for _ in 0..100 {
        s.push_str(&match op {
            "trowsum" => format!("pto.trowsum ins(%a, %t : {TB}, {TMP}) outs(%r : {DN})\n"),
            _ => format!("pto.{op} ins(%a, %b : {TB}, {TB}) outs(%c : {TB})\n"),
        });
    }
    s
}

#[divan::bench(args = ["tadd", "tmax", "trowsum"], sample_count = 20)]
fn ops_64x64_f32(bencher: divan::Bencher, op: &str) {
    let text = program(op);
    let (m, _) = pto_asm::parse(&text, pto_ir::FileId(0)).expect("parses");
    let target = Target::get(TargetId::A2A3);
    let mut sim = Sim::new(&m, target).expect("places");
    sim.use_default_inputs();
    sim.max_steps = u64::MAX;
    bencher.counter(divan::counter::ItemsCount::new(100usize * 64 * 64)).bench_local(|| sim.run().expect("runs"));
}

#[divan::bench(sample_count = 20)]
fn program_1000_ops_64x64_f32(bencher: divan::Bencher) {
    program_1000(bencher, false);
}

/// [`program_1000_ops_64x64_f32`] with the sync checker on (issue 15: within 1.5x). The program
/// has no sync op, so every dependent pair is a hazard: the checker's worst case (each op
/// checked against the shadow memory, each report deduplicated).
#[divan::bench(sample_count = 20)]
fn program_1000_ops_64x64_f32_sync_check(bencher: divan::Bencher) {
    program_1000(bencher, true);
}

/// [`program_1000_ops_64x64_f32`] with a `pto.barrier <PIPE_V>` after each op, without and
/// with the checker (a hazard-free program: the common case).
#[divan::bench(args = ["off", "on"], sample_count = 20)]
fn program_1000_ops_with_barriers(bencher: divan::Bencher, check: &str) {
    program_1000_with(bencher, check == "on", true);
}

fn program_1000(bencher: divan::Bencher, check_sync: bool) {
    program_1000_with(bencher, check_sync, false);
}

fn program_1000_with(bencher: divan::Bencher, check_sync: bool, barriers: bool) {
    let text = pto::workload::mixed_vec_program(1000, barriers);
    let (m, _) = pto_asm::parse(&text, pto_ir::FileId(0)).expect("parses");
    let target = Target::get(TargetId::A2A3);
    let mut sim = Sim::new(&m, target).expect("places");
    sim.use_default_inputs();
    sim.max_steps = u64::MAX;
    sim.run().expect("runs");
    bencher.counter(divan::counter::ItemsCount::new(1000usize * 64 * 64)).bench_local(|| {
        if check_sync {
            pto_sim::sync::check(&mut sim);
        }
        sim.run().expect("runs");
        if check_sync {
            assert_eq!(sim.sync_diagnostics().is_empty(), barriers, "hazards exactly without barriers");
        }
    });
}

/// Issue "A2A3 vector level", item 5: the same lowered 100-op programs executed with tile
/// semantics and as A2A3 vector programs (`Sim::exec_vector`); target: vector ≤ 3× tile.
#[divan::bench(args = ["tadd/tile", "tadd/vector", "trowsum/tile", "trowsum/vector"], sample_count = 20)]
fn lowered_64x64_f32(bencher: divan::Bencher, case: &str) {
    let (op, exec) = case.split_once('/').expect("op/exec");
    let (m, _) = pto_asm::parse(&program(op), pto_ir::FileId(0)).expect("parses");
    let target = Target::get(TargetId::A2A3);
    let verified = pto_ir::verify::Verified::new(m).expect("verifies");
    let (lowered, _) = pto_lower::run(verified, target, Default::default()).expect("lowers");
    let mut sim = Sim::new(&lowered, target).expect("places");
    sim.use_default_inputs();
    sim.max_steps = u64::MAX;
    sim.exec_vector = exec == "vector";
    sim.run().expect("runs");
    assert!(sim.vector_log.iter().all(|r| r.cost.is_ok()), "every op ran as a vector program");
    bencher.counter(divan::counter::ItemsCount::new(100usize * 64 * 64)).bench_local(|| {
        sim.vector_log.clear();
        sim.run().expect("runs")
    });
}

/// Interpretation overhead per step: an `scf.for` of 100,000 iterations whose body is two
/// scalar ops (3 steps per iteration: the iteration and its two ops), in ns per step. The
/// cheapest steps the simulator executes, so per-step bookkeeping (the step budget, progress
/// reporting) shows here first.
const SCALAR_LOOP: &str = "func.func @k() {\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %n = arith.constant 100000 : index\n  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {\n    %x = arith.addi %acc, %i : index\n    %y = arith.xori %x, %c1 : index\n    scf.yield %y : index\n  }\n  return\n}\n";

#[divan::bench(sample_count = 20)]
fn scalar_loop_steps(bencher: divan::Bencher) {
    scalar_loop(bencher, false);
}

/// [`scalar_loop_steps`] with a progress callback (what `pto run` installs for its progress
/// bar), called every `PROGRESS_EVERY` steps.
#[divan::bench(sample_count = 20)]
fn scalar_loop_steps_with_progress(bencher: divan::Bencher) {
    scalar_loop(bencher, true);
}

fn scalar_loop(bencher: divan::Bencher, progress: bool) {
    let (m, _) = pto_asm::parse(SCALAR_LOOP, pto_ir::FileId(0)).expect("parses");
    let target = Target::get(TargetId::A2A3);
    let mut sim = Sim::new(&m, target).expect("places");
    sim.max_steps = u64::MAX;
    let reported = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    if progress {
        let r = reported.clone();
        sim.progress = Some(Box::new(move |steps, _| r.store(steps, std::sync::atomic::Ordering::Relaxed)));
    }
    bencher.counter(divan::counter::ItemsCount::new(300_000usize)).bench_local(|| sim.run().expect("runs"));
    assert_eq!(reported.load(std::sync::atomic::Ordering::Relaxed) > 0, progress);
}

/// Issue 16, item 5: the 1,000-op program on 1 and 4 blocks (`pto run --blocks N`) on 2 threads;
/// target: 4 blocks within 1.3x of 1 block (the blocks run in parallel).
#[divan::bench(args = [1, 4], sample_count = 20)]
fn program_1000_ops_blocks(bencher: divan::Bencher, blocks: u32) {
    let text = pto::workload::mixed_vec_program(1000, false);
    let (m, _) = pto_asm::parse(&text, pto_ir::FileId(0)).expect("parses");
    let target = Target::get(TargetId::A2A3);
    let proto = Sim::new(&m, target).expect("places");
    let gm = proto.gm_arrays();
    let setup = |sim: &mut Sim| {
        sim.use_default_inputs();
        sim.max_steps = u64::MAX;
        Ok(())
    };
    let launch = pto_sim::cores::Launch { blocks, schedule: Default::default(), threads: Some(2), trace: false, setup: &setup, tiles: &[] };
    bencher.counter(divan::counter::ItemsCount::new(blocks as usize * 1000 * 64 * 64)).bench_local(|| {
        pto_sim::cores::machine::run(&m, target, gm, &launch).expect("runs");
    });
}

/// What a run costs before its first op: preparing a simulation of the 1,000-op program
/// (memories, argument placement) and the module's core topology.
#[divan::bench(sample_count = 20)]
fn prepare_1000_ops(bencher: divan::Bencher) {
    let text = pto::workload::mixed_vec_program(1000, false);
    let (m, _) = pto_asm::parse(&text, pto_ir::FileId(0)).expect("parses");
    let target = Target::get(TargetId::A2A3);
    bencher.bench_local(|| {
        let sim = Sim::new(&m, target).expect("places");
        let topology = pto_sim::cores::Topology::new(&m, target);
        (sim.gm_arrays().len(), topology.mix)
    });
}

/// Issue 29: `tload` + `tstore` of a 64x256 f32 ND window, 200 times (one slice copy per row
/// where GM and the tile are both contiguous); ns per element moved.
#[divan::bench(sample_count = 20)]
fn tload_tstore_64x256_f32(bencher: divan::Bencher) {
    let text = "func.func @copy(%a: !pto.ptr<f32>, %o: !pto.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %c200 = arith.constant 200 : index
  %va = pto.make_tensor_view %a, shape = [%c64, %c256], strides = [%c256, %c1] : !pto.tensor_view<?x?xf32>
  %vo = pto.make_tensor_view %o, shape = [%c64, %c256], strides = [%c256, %c1] : !pto.tensor_view<?x?xf32>
  %pa = pto.partition_view %va, offsets = [%c0, %c0], sizes = [%c64, %c256] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<64x256xf32>
  %po = pto.partition_view %vo, offsets = [%c0, %c0], sizes = [%c64, %c256] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<64x256xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 64x256xf32>
  scf.for %i = %c0 to %c200 step %c1 {
    pto.tload ins(%pa : !pto.partition_tensor_view<64x256xf32>) outs(%t : !pto.tile_buf<vec, 64x256xf32>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 64x256xf32>) outs(%po : !pto.partition_tensor_view<64x256xf32>)
  }
  return
}
";
    let (m, _) = pto_asm::parse(text, pto_ir::FileId(0)).expect("parses");
    let target = Target::get(TargetId::A2A3);
    let verified = pto_ir::verify::Verified::new(m).expect("verifies");
    let (lowered, _) = pto_lower::run(verified, target, Default::default()).expect("lowers");
    bencher.counter(divan::counter::ItemsCount::new(200usize * 2 * 64 * 256)).bench_local(|| {
        let mut sim = Sim::new(&lowered, target).expect("places");
        sim.use_default_inputs();
        sim.run().expect("runs");
        sim
    });
}

/// A `tload` loop shaped like Qwen3's `w_gate` (issue 29): 64 blocks of 128x256 bf16, one per
/// 128 rows, from an unbound 8192x25600 bf16 array (419 MB if stored whole), on a fresh
/// simulation each time: GM is allocated by what is touched, so this costs the 4 MiB read,
/// not the array's extent. Built by `w_gate_program`, with the tile `tile`.
#[divan::bench(args = ["nd", "nz"], sample_count = 10)]
fn tload_w_gate_blocks_bf16(bencher: divan::Bencher, layout: &str) {
    let tile = match layout {
        "nd" => "!pto.tile_buf<vec, 128x256xbf16>",
        _ => {
            "!pto.tile_buf<loc=mat, dtype=bf16, rows=128, cols=256, v_row=128, v_col=256, blayout=col_major, slayout=row_major, fractal=512, pad=0>"
        }
    };
    let text = w_gate_program(tile);
    let (m, _) = pto_asm::parse(&text, pto_ir::FileId(0)).expect("parses");
    let target = Target::get(TargetId::A2A3);
    let verified = pto_ir::verify::Verified::new(m).expect("verifies");
    let (lowered, _) = pto_lower::run(verified, target, Default::default()).expect("lowers");
    bencher.counter(divan::counter::ItemsCount::new(64usize * 128 * 256)).bench_local(|| {
        let mut sim = Sim::new(&lowered, target).expect("places");
        sim.use_default_inputs();
        sim.run().expect("runs");
        sim
    });
}

/// 64 `tload`s of 128x256 bf16 windows at rows `128 k`, column 0, of an 8192x25600 array.
fn w_gate_program(tile: &str) -> String {
    format!(
        "func.func @w(%w: !pto.ptr<bf16>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c8192 = arith.constant 8192 : index
  %c25600 = arith.constant 25600 : index
  %v = pto.make_tensor_view %w, shape = [%c8192, %c25600], strides = [%c25600, %c1] : !pto.tensor_view<?x?xbf16>
  %t = pto.alloc_tile : {tile}
  scf.for %k = %c0 to %c64 step %c1 {{
    %r = arith.muli %k, %c128 : index
    %p = pto.partition_view %v, offsets = [%r, %c0], sizes = [%c128, %c256] : !pto.tensor_view<?x?xbf16> -> !pto.partition_tensor_view<128x256xbf16>
    pto.tload ins(%p : !pto.partition_tensor_view<128x256xbf16>) outs(%t : {tile})
  }}
  return
}}
"
    )
}

/// Qwen3's gate matmul (issue 29): 8 accumulating `tmatmul.acc` of a 16x128 bf16 left tile by
/// a 128x256 bf16 right tile into a 16x256 f32 accumulator (262,144 multiply-accumulates each),
/// on default inputs: the matmul family's cost per product, in either accumulation order.
#[divan::bench(args = ["npu", "cpu-sim"], sample_count = 10)]
fn tmatmul_qwen3_16x128x256_bf16(bencher: divan::Bencher, order: &str) {
    let left = "!pto.tile_buf<loc=left, dtype=bf16, rows=16, cols=128, v_row=16, v_col=128, blayout=col_major, slayout=row_major, fractal=512, pad=0>";
    let right = "!pto.tile_buf<loc=right, dtype=bf16, rows=128, cols=256, v_row=128, v_col=256, blayout=row_major, slayout=col_major, fractal=512, pad=0>";
    let acc = "!pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=256, v_row=16, v_col=256, blayout=col_major, slayout=row_major, fractal=1024, pad=0>";
    let text = format!(
        "func.func @m() {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = pto.alloc_tile : {left}
  %b = pto.alloc_tile : {right}
  %c = pto.alloc_tile : {acc}
  pto.tmatmul ins(%a, %b : {left}, {right}) outs(%c : {acc})
  scf.for %k = %c1 to %c8 step %c1 {{
    pto.tmatmul.acc ins(%c, %a, %b : {acc}, {left}, {right}) outs(%c : {acc})
  }}
  return
}}
"
    );
    let (m, _) = pto_asm::parse(&text, pto_ir::FileId(0)).expect("parses");
    let target = Target::get(TargetId::A2A3);
    let verified = pto_ir::verify::Verified::new(m).expect("verifies");
    let (lowered, _) = pto_lower::run(verified, target, Default::default()).expect("lowers");
    let order = pto_sim::family::MatmulOrder::parse(order).expect("an order");
    bencher.counter(divan::counter::ItemsCount::new(8usize * 16 * 128 * 256)).bench_local(|| {
        let mut sim = Sim::new(&lowered, target).expect("places");
        sim.use_default_inputs();
        sim.matmul_order = order;
        sim.run().expect("runs");
        sim
    });
}

/// Qwen3's operand moves (issue 29): 64 `tmov`s each of a 16x128 bf16 Nz mat tile to the Nz left
/// tile (`left`: the same layout) or of a 128x256 bf16 Nz mat tile to the Zn right tile (`right`:
/// a layout change), on default inputs: a same-type move is a byte copy either way.
#[divan::bench(args = ["left", "right"], sample_count = 10)]
fn tmov_qwen3_operands_bf16(bencher: divan::Bencher, to: &str) {
    let (rows, cols, dst) = match to {
        "left" => (16, 128, "loc=left, dtype=bf16, rows=16, cols=128, v_row=16, v_col=128, blayout=col_major, slayout=row_major"),
        _ => (128, 256, "loc=right, dtype=bf16, rows=128, cols=256, v_row=128, v_col=256, blayout=row_major, slayout=col_major"),
    };
    let src = format!(
        "!pto.tile_buf<loc=mat, dtype=bf16, rows={rows}, cols={cols}, v_row={rows}, v_col={cols}, blayout=col_major, slayout=row_major, fractal=512, pad=0>"
    );
    let dst = format!("!pto.tile_buf<{dst}, fractal=512, pad=0>");
    let text = format!(
        "func.func @m() {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a = pto.alloc_tile : {src}
  %b = pto.alloc_tile : {dst}
  scf.for %k = %c0 to %c64 step %c1 {{
    pto.tmov ins(%a : {src}) outs(%b : {dst})
  }}
  return
}}
"
    );
    let (m, _) = pto_asm::parse(&text, pto_ir::FileId(0)).expect("parses");
    let target = Target::get(TargetId::A2A3);
    let verified = pto_ir::verify::Verified::new(m).expect("verifies");
    let (lowered, _) = pto_lower::run(verified, target, Default::default()).expect("lowers");
    bencher.counter(divan::counter::ItemsCount::new(64usize * rows * cols)).bench_local(|| {
        let mut sim = Sim::new(&lowered, target).expect("places");
        sim.use_default_inputs();
        sim.run().expect("runs");
        sim
    });
}
