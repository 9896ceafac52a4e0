"""Issue 29, acceptance 1: Qwen3DecodeA3/qwen3_decode_incore_12 on pto (the release binary,
`--sync-check=never` and the default) against numpy doing the same work, side by side in one
run; prints each time and the ratio (target: within 25x).

The kernel (64 trips) loads a 16x128 bf16 slice of `post_norm` and a 128x256 bf16 block of
`w_gate` (column `arg3` = 0 on default inputs), moves both into the cube's operand tiles and
accumulates their product in a 16x256 f32 tile, then stores it. numpy does the same: per
trip, copies of the two slices (the loads) and `acc += a @ b` in f32, on the same inputs (the
deterministic GM pattern `((7 i + 3) mod 17) / 4 - 2` of each array's element index, built
before timing, as pto builds its own lazily). pto's time is the whole process: start, parse,
verify, lower, simulate and print its JSON output. Build first: `cargo build --release`.

    python python/bench/qwen3_ratio.py [--rounds R] [--max-ratio 25] [--binary PATH]

`--binary` times another build (say main's) the same way.

Skips (exit 0, saying why on stderr) without the shared corpus or numpy; exits 1 when the
ratio of the default run exceeds --max-ratio.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = "corpus/ptoas-samples/Qwen3DecodeA3/qwen3_decode_incore_12.pto"


def skip(why: str) -> None:
    print(f"qwen3_ratio: SKIPPED: {why}", file=sys.stderr)
    sys.exit(0)


def pattern(index):
    """The default GM input pattern of element `index` (pto_sim::gm::pattern_value)."""
    return ((index * 7 + 3) % 17) / 4.0 - 2.0


def best_of(rounds: int, f) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--max-ratio", type=float, default=25.0)
    ap.add_argument("--binary", type=Path, default=ROOT / "target/release/pto")
    args = ap.parse_args()
    try:
        import numpy as np
    except ImportError:
        skip("numpy is not installed")
    shared = Path(os.environ.get("PTO_SHARED") or ROOT / "../shared")
    if not shared.is_absolute():
        shared = ROOT / shared
    sample = shared / SAMPLE
    if not sample.exists():
        skip(f"{sample} is not there (the shared corpus; set PTO_SHARED)")
    binary = args.binary
    if not binary.exists():
        skip(f"{binary} is not built: run `cargo build --release`")

    # The inputs, as pto's default inputs make them: x is 16x8192, w_gate 8192x25600 (only
    # its 256 columns from arg3 = 0 are read, so only those are built).
    m, k, n, cols, trips, step = 16, 8192, 256, 25600, 64, 128
    x = pattern(np.arange(m * k, dtype=np.int64)).reshape(m, k).astype(np.float32)
    rows = np.arange(k, dtype=np.int64)[:, None] * cols + np.arange(n, dtype=np.int64)[None, :]
    w = pattern(rows).astype(np.float32)

    def numpy_work():
        acc = np.zeros((m, n), dtype=np.float32)
        for t in range(trips):
            a = np.ascontiguousarray(x[:, t * step : (t + 1) * step])
            b = np.ascontiguousarray(w[t * step : (t + 1) * step, :])
            acc += a @ b
        return acc

    def pto(extra):
        cmd = [str(binary), "run", "-q", "--json", "--default-inputs", *extra, str(sample)]
        out = subprocess.run(cmd, capture_output=True, check=True)
        return json.loads(out.stdout)

    # Both compute the same result (exact: the inputs are multiples of 1/4, the sums small).
    got = np.array(pto([])["arg2"]["data"], dtype=np.float32).reshape(m, n)
    want = numpy_work()
    if not np.array_equal(got, want):
        print("qwen3_ratio: pto and numpy disagree", file=sys.stderr)
        sys.exit(1)

    t_np = best_of(args.rounds, numpy_work)
    print(f"numpy                        {t_np * 1e3:8.2f} ms")
    ratio = None
    for label, extra in [("pto --sync-check=never", ["--sync-check=never"]), ("pto (default)", [])]:
        t = best_of(args.rounds, lambda: pto(extra))
        ratio = t / t_np
        print(f"{label:28} {t * 1e3:8.2f} ms   ratio {ratio:6.1f}x")
    if ratio > args.max_ratio:
        print(f"qwen3_ratio: the default run is {ratio:.1f}x numpy, over {args.max_ratio}x", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
