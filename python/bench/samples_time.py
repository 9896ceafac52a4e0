"""Issue 29, acceptance 1 (second half): every shared sample (`ptoas-samples/**/*.pto`) on
A2A3 and A5 with `pto run --default-inputs -q --json`, timed with the release binary (the
whole process, its JSON output read through a pipe); prints the slowest runs and how many
take 100 ms or more. With `--compare OTHER` the same runs are made with a second binary (say
main's), alternately, and every run's stdout, stderr and exit status must agree (exit 1 when
one differs). With `--null` the output goes to /dev/null instead (what is left is the
simulation: a run whose time drops is bound by its output). Only the fastest of `--rounds`
runs counts. With `--npy` the outputs are written as `.npy` files (`--output-dir`, a fresh
temporary directory per run, its files part of the digest) instead of JSON on stdout.

    python python/bench/samples_time.py [--binary target/release/pto] [--compare BIN]
        [--rounds R] [--top N] [--null | --npy]

Skips (exit 0, saying why on stderr) without the shared corpus or the binary.
"""

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(binary: Path, sample: Path, target: str, null: bool, npy: bool = False):
    """One run: (seconds, digest of stdout + stderr + status, and the .npy files with --npy)."""
    if npy:
        with tempfile.TemporaryDirectory(prefix="pto-samples-") as out_dir:
            cmd = [str(binary), "run", "-q", "--output-dir", out_dir, "--default-inputs", "--target", target, str(sample)]
            start = time.perf_counter()
            p = subprocess.run(cmd, capture_output=True)
            took = time.perf_counter() - start
            files = b"".join(f.name.encode() + b"\0" + f.read_bytes() for f in sorted(Path(out_dir).iterdir()))
        h = hashlib.sha256(files + b"\0" + p.stdout + b"\0" + p.stderr + b"\0" + str(p.returncode).encode()).hexdigest()
        return took, h
    cmd = [str(binary), "run", "-q", "--json", "--default-inputs", "--target", target, str(sample)]
    start = time.perf_counter()
    if null:
        with open(os.devnull, "wb") as sink:
            p = subprocess.run(cmd, stdout=sink, stderr=subprocess.PIPE)
        out = b""
    else:
        p = subprocess.run(cmd, capture_output=True)
        out = p.stdout
    took = time.perf_counter() - start
    h = hashlib.sha256(out + b"\0" + p.stderr + b"\0" + str(p.returncode).encode()).hexdigest()
    return took, h


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", type=Path, default=ROOT / "target/release/pto")
    ap.add_argument("--compare", type=Path)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--top", type=int, default=10)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--null", action="store_true")
    mode.add_argument("--npy", action="store_true")
    args = ap.parse_args()
    shared = Path(os.environ.get("PTO_SHARED") or ROOT / "../shared")
    corpus = shared / "corpus/ptoas-samples"
    if not corpus.is_dir():
        print(f"samples_time: SKIPPED: {corpus} is not there (set PTO_SHARED)", file=sys.stderr)
        sys.exit(0)
    for b in [args.binary] + ([args.compare] if args.compare else []):
        if not b.exists():
            print(f"samples_time: SKIPPED: {b} is not built", file=sys.stderr)
            sys.exit(0)
    rows, differ = [], []
    for sample in sorted(corpus.rglob("*.pto")):
        for target in ["a2a3", "a5"]:
            mine, theirs = [], []
            for _ in range(args.rounds):
                mine.append(run(args.binary, sample, target, args.null, args.npy))
                if args.compare:
                    theirs.append(run(args.compare, sample, target, args.null, args.npy))
            name = f"{sample.relative_to(corpus)} {target}"
            if args.compare and {h for _, h in mine} != {h for _, h in theirs}:
                differ.append(name)
            rows.append((min(t for t, _ in mine), min((t for t, _ in theirs), default=None), name))
    rows.sort(reverse=True)
    print(f"{len(rows)} runs; {sum(1 for t, _, _ in rows if t >= 0.1)} take 100 ms or more")
    for t, other, name in rows[: args.top]:
        before = f"  (compared: {other * 1e3:8.1f} ms)" if other is not None else ""
        print(f"{t * 1e3:8.1f} ms  {name}{before}")
    if differ:
        print(f"outputs differ in {len(differ)} runs: {differ}", file=sys.stderr)
        sys.exit(1)
    if args.compare:
        print("every output identical with the compared binary")


if __name__ == "__main__":
    main()
