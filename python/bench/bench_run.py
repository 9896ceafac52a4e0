"""Issue 17, acceptance 3: `pto.run` on the 1,000-op benchmark program against the same run
through the Rust API, inputs and outputs included; target: at most 10 % overhead.

The program is benches/sim.rs's `mixed_program` (ten common Vec ops on 64x64 f32 tiles,
cycled to 1,000 ops). One run, both ways, is: verify + lower the parsed module for A2A3, place
it on a fresh simulator, bind `%a` and `%b` (64x64 f32), execute, read every output (the five
tile arguments). The Rust side is `_native.rust_api_run_seconds`: the same library calls
(pto_lower::run, Sim, pto_sim::kernel_io) in a Rust loop, inputs as owned byte vectors; the
Python side is `pto.run` with numpy arrays in and out. Build the package in release mode
(`pip install ./python`, the default) before measuring.

    python python/bench/bench_run.py [--iterations N] [--rounds R] [--max-ratio 1.10]
"""

import argparse
import statistics
import sys
import time

import numpy as np

import pto

TB = "!pto.tile_buf<vec, 64x64xf32>"
DN = "!pto.tile_buf<vec, 64x1xf32, blayout=col_major>"
TMP = "!pto.tile_buf<vec, 1x8xf32>"  # the row reductions' scratch (PTOAS's DPS form writes it)


def mixed_program() -> str:
    """benches/sim.rs `mixed_program`, the same text."""
    s = f".arg %a : {TB}\n.arg %b : {TB}\n.arg %c : {TB}\n.arg %r : {DN}\n.arg %t : {TMP}\n.const %k = 0.5 : f32\n"
    cycle = [
        f"pto.tadd ins(%a, %b : {TB}, {TB}) outs(%c : {TB})",
        f"pto.tmul ins(%c, %b : {TB}, {TB}) outs(%c : {TB})",
        f"pto.tmax ins(%c, %a : {TB}, {TB}) outs(%c : {TB})",
        f"pto.tmuls ins(%c, %k : {TB}, f32) outs(%c : {TB})",
        f"pto.tadds ins(%c, %k : {TB}, f32) outs(%c : {TB})",
        f"pto.tsub ins(%c, %a : {TB}, {TB}) outs(%c : {TB})",
        f"pto.trowmax ins(%c, %t : {TB}, {TMP}) outs(%r : {DN})",
        f"pto.trowexpandsub ins(%c, %r : {TB}, {DN}) outs(%c : {TB})",
        f"pto.tabs ins(%c : {TB}) outs(%c : {TB})",
        f"pto.trowsum ins(%c, %t : {TB}, {TMP}) outs(%r : {DN})",
    ]
    return s + "".join(cycle[i % len(cycle)] + "\n" for i in range(1000))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=3, help="runs per timing")
    ap.add_argument("--rounds", type=int, default=40, help="timings per side, alternating (short ones: less drift on a busy machine); medians compared")
    ap.add_argument("--max-ratio", type=float, default=None, help="exit 1 when python/rust exceeds this")
    args = ap.parse_args()

    m = pto.parse(mixed_program(), name="mixed_1000.pto")
    assert len([o for o in m.ops if o.startswith("pto.")]) == 1000
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 64)).astype(np.float32)
    b = rng.standard_normal((64, 64)).astype(np.float32)
    rust_inputs = [("a", a.tobytes(), 64, 64), ("b", b.tobytes(), 64, 64)]

    out = pto.run(m, "a2a3", {"a": a, "b": b})
    assert list(out) == ["a", "b", "c", "r", "t"] and out["c"].shape == (64, 64) and out["r"].shape == (64, 1)
    # The last op is trowsum of c into r.
    np.testing.assert_allclose(out["r"][:, 0], out["c"].sum(axis=1), rtol=1e-5)

    def python_side(n: int) -> float:
        start = time.perf_counter()
        for _ in range(n):
            pto.run(m, "a2a3", {"a": a, "b": b})
        return time.perf_counter() - start

    def rust_side(n: int) -> float:
        return pto._native.rust_api_run_seconds(m._m, "a2a3", rust_inputs, n)

    python_side(2), rust_side(2)  # warm up
    py_t, rs_t = [], []
    for _ in range(args.rounds):
        rs_t.append(rust_side(args.iterations) / args.iterations)
        py_t.append(python_side(args.iterations) / args.iterations)
    py_med, rs_med = statistics.median(py_t), statistics.median(rs_t)
    ratio = py_med / rs_med
    print(f"1,000-op program, a2a3, {args.rounds} rounds x {args.iterations} runs")
    print(f"  Rust API : {rs_med * 1e3:8.3f} ms per run (median; min {min(rs_t) * 1e3:.3f})")
    print(f"  pto.run  : {py_med * 1e3:8.3f} ms per run (median; min {min(py_t) * 1e3:.3f})")
    print(f"  ratio    : {ratio:.3f} (overhead {100 * (ratio - 1):+.1f} %)")
    if args.max_ratio is not None and ratio > args.max_ratio:
        print(f"error: ratio {ratio:.3f} exceeds {args.max_ratio}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
