#!/usr/bin/env python3
"""Runs the ISA pages' Level-1 examples (tests/isa-level1) with `pto run` on random inputs and
compares every result with a numpy reference of the instruction.

Usage: python3 tests/isa_level1_numpy.py PATH/TO/pto [--min-checked N]

For each example that lowers for its target (A5 unless the file says `// target: a2a3`), the
script generates seeded random inputs for its tile and scalar arguments, writes them as .npy,
runs `pto run FILE --target T -i name=file ... -o result --output-dir D` and checks the outputs
against `REFERENCES[op]`. Instructions without a reference are listed as unchecked. Exit status
1 when any checked example differs or fails to run, or fewer than --min-checked examples were
checked. The last line is `N passed, M failed`.
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(ROOT, "isa-level1")

DTYPES = {
    "f32": np.float32, "f16": np.float16, "i32": np.int32, "i16": np.int16, "i8": np.int8,
    "ui32": np.uint32, "ui16": np.uint16, "ui8": np.uint8, "u32": np.uint32, "u16": np.uint16,
    "u8": np.uint8, "i64": np.int64, "index": np.int64,
}

TILE = re.compile(r"!pto\.tile<(\d+)x(\d+)x(\w+)[^>]*>")


def tile_type(text):
    """(rows, cols, numpy dtype) of a `!pto.tile<RxCxT...>` spelling, or None."""
    m = TILE.match(text.strip())
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), DTYPES.get(m.group(3))


def split_top(text, sep=","):
    """Splits at `sep` outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def parse_example(text):
    """Arguments [(name, type text)], the op name, its operand names and result names."""
    args = []
    for m in re.finditer(r"^\.arg %(\w+) : (.+)$", text, re.M):
        args.append((m.group(1), m.group(2).strip()))
    fm = re.search(r"func\.func @\w+\((.*?)\)\s*(->|\{)", text)
    if fm:
        for part in split_top(fm.group(1)):
            name, ty = part.split(":", 1)
            args.append((name.strip().lstrip("%"), ty.strip()))
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("//") or line.startswith(".") or line.startswith("func.func") or line.startswith("return"):
            continue
        m = re.match(r"^(%[\w, %]+?)\s*=\s*(?:pto\.)?([a-z_0-9.]+)\s*(.*)$", line)
        if m:
            results = [r.strip().lstrip("%") for r in m.group(1).split(",")]
            operands = re.findall(r"%(\w+)", m.group(3).split(":")[0])
            attrs = m.group(3)
            return args, m.group(2), operands, results, attrs
    return args, None, [], [], ""


def random_input(rng, ty, op, name):
    """Seeded random data for one argument."""
    if ty in ("f32", "f16", "i32", "i16", "index"):
        scalar = DTYPES[ty]
        if ty in ("f32", "f16"):
            return float(np.round(rng.uniform(0.5, 2.0), 3))
        if op in ("tshls", "tshrs"):
            return 3
        return int(rng.integers(1, 5)) if ty != "index" else 0
    rows, cols, dt = tile_type(ty)
    shape = (rows, cols)
    if dt is None:
        return None
    if np.issubdtype(dt, np.floating):
        lo = 0.1 if op in ("tlog", "tsqrt", "trsqrt", "trecip", "tdiv", "tdivs", "trowexpanddiv", "tcolexpanddiv") else -2.0
        return rng.uniform(lo, 2.0, size=shape).astype(dt)
    if op in ("tshl", "tshr") and name in ("src1",):
        return rng.integers(0, 5, size=shape).astype(dt)
    if name in ("indices",):
        return rng.integers(0, rows * cols, size=shape).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(max(info.min, -100), min(info.max, 100), size=shape, endpoint=True).astype(dt)


def packed_cmp(a, b, mode, out_shape):
    """tcmp/tcmps: one bit per element, LSB first, row by row; unused bytes zero."""
    bits = CMP[mode](a, b)
    rows, cols = a.shape
    out = np.zeros(out_shape, dtype=np.uint8)
    packed = np.packbits(bits.astype(np.uint8), axis=1, bitorder="little")
    out[:rows, : packed.shape[1]] = packed
    return out, (slice(0, rows), slice(0, packed.shape[1]))


CMP = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
}


def cmp_mode(attrs):
    m = re.search(r"cmp[ <]\s*(\w+)", attrs)
    return m.group(1).lower() if m else "eq"


def first_index(x, axis, fn):
    return fn(x, axis=axis).astype(np.uint32)


def rowwise(fn):
    return lambda a, out: [fn(a, axis=1, keepdims=True).astype(out[0][2])]


def colwise(fn):
    return lambda a, out: [fn(a, axis=0, keepdims=True).astype(out[0][2])]


def broadcast_rows(op):
    return lambda a, b, out: [op(a, np.broadcast_to(b, a.shape)).astype(out[0][2])]


def argreduce(fn, axis):
    def ref(a, out, *_):
        idx = fn(a, axis=axis).astype(np.uint32)
        idx = idx.reshape((-1, 1)) if axis == 1 else idx.reshape((1, -1))
        if len(out) == 2:
            val = np.take_along_axis(a, idx.astype(np.int64), axis=axis)
            return [val.astype(out[0][2]), idx.astype(out[1][2])]
        return [idx.astype(out[0][2])]
    return ref


def matmul(a, b, *rest, bias=False, acc=False):
    prod = a.astype(np.float32) @ b.astype(np.float32)
    return prod


# Reference of each instruction: fn(operand arrays or scalars..., out=[(name, shape, dtype)]) -> [arrays].
REFERENCES = {
    "tadd": lambda a, b, out: [a + b], "tsub": lambda a, b, out: [a - b], "tmul": lambda a, b, out: [a * b],
    "tdiv": lambda a, b, out: [a / b], "tmax": lambda a, b, out: [np.maximum(a, b)], "tmin": lambda a, b, out: [np.minimum(a, b)],
    "tand": lambda a, b, out: [a & b], "tor": lambda a, b, out: [a | b], "txor": lambda a, b, out: [a ^ b],
    "tshl": lambda a, b, out: [a << b], "tshr": lambda a, b, out: [a >> b],
    "taddc": lambda a, b, c, out: [a + b + c], "tsubc": lambda a, b, c, out: [a - b + c],
    "tabs": lambda a, out: [np.abs(a)], "tneg": lambda a, out: [-a], "texp": lambda a, out: [np.exp(a)],
    "tlog": lambda a, out: [np.log(a)], "tsqrt": lambda a, out: [np.sqrt(a)], "trsqrt": lambda a, out: [1 / np.sqrt(a)],
    "trecip": lambda a, out: [1 / a], "trelu": lambda a, out: [np.maximum(a, 0)], "tnot": lambda a, out: [~a],
    "tadds": lambda a, s, out: [a + s], "tsubs": lambda a, s, out: [a - s], "tmuls": lambda a, s, out: [a * s],
    "tdivs": lambda a, s, out: [a / s], "tmaxs": lambda a, s, out: [np.maximum(a, s)], "tmins": lambda a, s, out: [np.minimum(a, s)],
    "tands": lambda a, s, out: [a & s], "tors": lambda a, s, out: [a | s], "txors": lambda a, s, out: [a ^ s],
    "tshls": lambda a, s, out: [a << s], "tshrs": lambda a, s, out: [a >> s],
    "texpands": lambda s, out: [np.full(out[0][1], s, dtype=out[0][2])],
    "trowsum": rowwise(np.sum), "trowmax": rowwise(np.max), "trowmin": rowwise(np.min), "trowprod": rowwise(np.prod),
    "tcolsum": colwise(np.sum), "tcolmax": colwise(np.max), "tcolmin": colwise(np.min), "tcolprod": colwise(np.prod),
    "trowargmax": argreduce(np.argmax, 1), "trowargmin": argreduce(np.argmin, 1),
    "tcolargmax": argreduce(np.argmax, 0), "tcolargmin": argreduce(np.argmin, 0),
    "trowexpand": lambda a, out: [np.broadcast_to(a[:, :1], out[0][1]).astype(out[0][2])],
    "tcolexpand": lambda a, out: [np.broadcast_to(a, out[0][1]).astype(out[0][2])],
    "trowexpandadd": broadcast_rows(np.add), "trowexpandsub": broadcast_rows(np.subtract),
    "trowexpandmul": broadcast_rows(np.multiply), "trowexpanddiv": broadcast_rows(np.divide),
    "trowexpandmax": broadcast_rows(np.maximum), "trowexpandmin": broadcast_rows(np.minimum),
    "trowexpandexpdif": broadcast_rows(lambda a, b: np.exp(a - b)),
    "tcolexpandadd": broadcast_rows(np.add), "tcolexpandsub": broadcast_rows(np.subtract),
    "tcolexpandmul": broadcast_rows(np.multiply), "tcolexpanddiv": broadcast_rows(np.divide),
    "tcolexpandmax": broadcast_rows(np.maximum), "tcolexpandmin": broadcast_rows(np.minimum),
    "tcolexpandexpdif": broadcast_rows(lambda a, b: np.exp(a - b)),
    "tconcat": lambda a, b, out: [np.concatenate([a, b], axis=1)],
    "tcvt": lambda a, out: [a.astype(out[0][2])],
    "tci": lambda s, out: [(s + np.arange(out[0][1][1])).reshape(out[0][1]).astype(out[0][2])],
    "tmatmul": lambda a, b, out: [matmul(a, b)], "tgemv": lambda a, b, out: [matmul(a, b)],
    "tmatmul.acc": lambda c, a, b, out: [c + matmul(a, b)], "tgemv.acc": lambda c, a, b, out: [c + matmul(a, b)],
    "tmatmul.bias": lambda a, b, bias, out: [matmul(a, b) + bias], "tgemv.bias": lambda a, b, bias, out: [matmul(a, b) + bias],
    "treshape": lambda a, out: [a.reshape(out[0][1])],
    "tmov.v2v": lambda a, out: [a.astype(out[0][2])], "tmov.m2l": lambda a, out: [a], "tmov.m2r": lambda a, out: [a],
    "tmov.m2b": lambda a, out: [a], "tmov.m2s": lambda a, out: [a], "tmov.a2v": lambda a, out: [a.astype(out[0][2])],
    "textract": lambda a, r, c, out: [a[r : r + out[0][1][0], c : c + out[0][1][1]]],
    # pto-isa cpu/ElementOp.h: OP_REM moves fmod's result to the sign of the divisor.
    "trem": lambda a, b, out: [rem(a, b)], "trems": lambda a, s, out: [rem(a, s)],
    "tfmod": lambda a, b, out: [np.fmod(a, b)], "tfmods": lambda a, s, out: [np.fmod(a, s)],
    "tpow": lambda a, b, out: [np.power(a.astype(np.float64), b).astype(a.dtype)],
    "tpows": lambda a, s, out: [np.power(a.astype(np.float64), s).astype(a.dtype)],
    "tprelu": lambda a, b, out: [np.where(a > 0, a, a * b)], "tlrelu": lambda a, s, out: [np.where(a > 0, a, a * s)],
    "tsubrelu": lambda a, b, out: [np.maximum(a - b, 0)],
    "taddsc": lambda a, s, b, out: [a + s + b], "tsubsc": lambda a, s, b, out: [a - s + b],
}


def rem(a, b):
    r = np.fmod(a, b)
    return np.where(((a >= 0) != (np.asarray(b) >= 0)) & (r != 0), r + b, r)


def tolerance(dtype, op):
    if dtype == np.float16:
        return 2e-3, 2e-3
    if dtype == np.float32:
        if op.startswith(("tmatmul", "tgemv")):
            return 1e-4, 1e-4
        if op in ("trowprod", "tcolprod", "trowsum", "tcolsum"):
            return 1e-5, 1e-5
        return 2e-6, 1e-6
    return 0, 0


def check(pto, path, rng):
    """(status, message): status is 'pass', 'fail' or 'skip'."""
    text = open(path).read()
    target = "a5"
    m = re.search(r"^// target: (\w+)", text, re.M)
    if m:
        target = m.group(1)
    args, op, operands, results, attrs = parse_example(text)
    if op is None:
        return "skip", "no op line"
    if op not in REFERENCES and op not in ("tcmp", "tcmps", "tsel"):
        return "skip", f"no numpy reference for {op}"
    lowered = subprocess.run([pto, "lower", path, "--target", target], capture_output=True, text=True)
    if lowered.returncode != 0:
        return "skip", f"does not lower for {target} yet"
    types = dict(args)
    result_types = re.findall(r"!pto\.tile<[^>]*>", text.split(" = ", 1)[1] if " = " in text else "")
    with tempfile.TemporaryDirectory() as tmp:
        values, cmd = {}, [pto, "run", path, "--target", target, "--output-dir", tmp]
        for name, ty in args:
            v = random_input(rng, ty, op, name)
            if v is None:
                return "skip", f"argument %{name} of type {ty}"
            values[name] = v
            if isinstance(v, np.ndarray):
                file = os.path.join(tmp, f"in_{name}.npy")
                np.save(file, v)
                cmd += ["-i", f"{name}={file}"]
            else:
                cmd += ["-i", f"{name}={v}"]
        for r in results:
            cmd += ["-o", r]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        if run.returncode != 0:
            return "fail", f"pto run failed: {run.stderr.strip().splitlines()[0] if run.stderr.strip() else run.returncode}"
        got = [np.load(os.path.join(tmp, f"{r}.npy")) for r in results]
    outs = [(r, g.shape, g.dtype.type) for r, g in zip(results, got)]
    # Scratch tiles (`%tmp`) take no part in the result.
    ins = [values[o] for o in operands if o in values and o != "tmp"]
    if op in ("tcmp", "tcmps"):
        want, region = packed_cmp(ins[0], ins[1], cmp_mode(attrs), got[0].shape)
        ok = np.array_equal(got[0][region], want[region])
        return ("pass", "") if ok else ("fail", f"packed compare differs:\n{got[0][region]}\n{want[region]}")
    if op == "tsel":
        mask, a, b = ins
        bits = np.unpackbits(mask, axis=1, bitorder="little")[:, : a.shape[1]].astype(bool)
        want = [np.where(bits, a, b)]
    else:
        try:
            want = REFERENCES[op](*ins, out=outs)
        except Exception as e:  # a reference that does not fit the example's operands
            return "fail", f"numpy reference raised {e!r}"
    for (name, shape, dtype), g, w in zip(outs, got, want):
        w = np.asarray(w).astype(dtype)
        if g.shape != w.shape:
            return "fail", f"%{name}: shape {g.shape}, numpy {w.shape}"
        rtol, atol = tolerance(dtype, op)
        if np.issubdtype(dtype, np.floating):
            ok = np.allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
        else:
            ok = np.array_equal(g, w)
        if not ok:
            bad = np.argwhere(~np.isclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol))[:3]
            detail = ", ".join(f"{tuple(i)}: pto {g[tuple(i)]} numpy {w[tuple(i)]}" for i in bad)
            return "fail", f"%{name} differs from numpy at {detail}"
    return "pass", ""


def main():
    pto = sys.argv[1]
    min_checked = int(sys.argv[sys.argv.index("--min-checked") + 1]) if "--min-checked" in sys.argv else 0
    passed, failed, skipped = [], [], []
    for file in sorted(os.listdir(EXAMPLES)):
        if not file.endswith(".pto"):
            continue
        rng = np.random.default_rng(sum(map(ord, file)))
        status, msg = check(pto, os.path.join(EXAMPLES, file), rng)
        {"pass": passed, "fail": failed, "skip": skipped}[status].append((file, msg))
    for file, msg in failed:
        print(f"FAIL {file}: {msg}")
    for file, msg in skipped:
        print(f"unchecked {file}: {msg}")
    print(f"{len(passed)} examples match numpy, {len(failed)} differ, {len(skipped)} unchecked")
    ok = not failed and len(passed) >= min_checked
    if len(passed) < min_checked:
        print(f"only {len(passed)} examples checked, expected at least {min_checked}")
    print(f"{len(passed)} passed, {len(failed)} failed")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
