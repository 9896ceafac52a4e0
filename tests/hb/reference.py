"""numpy references for the correct kernels of tests/hb (see README.md and manifest.json).

Each `def <stem>(inputs: dict) -> dict` takes the kernel's GM arrays as numpy arrays of the shapes
in `SPECS[stem]` (on several ranks, per-rank arrays are named `NAME@RANK`; an array given without
`@` is bound to every rank) and returns the expected outputs, which `pto run` must reproduce
exactly. `make_inputs(stem, seed)` builds such inputs deterministically: f32 multiples of 1/4 in
[-2, 2], for which every sum and product the kernels compute (16-term dot products included) is
exact in f32, so the comparison can be exact. Signal arrays (`sig`) start at 0.

    python3 tests/hb/reference.py            # prints each stem with its input specs
"""

import numpy as np

F32, I32 = np.float32, np.int32

# stem -> {array name: (shape, dtype)}; names with "@r" are per-rank inputs.
SPECS = {
    "mix_ffts_handoff": {"a": ((16, 16), F32), "b": ((16, 16), F32), "y": ((16, 16), F32), "out": ((16, 16), F32)},
    "mix_c2v_split1": {"a": ((16, 16), F32), "b": ((16, 16), F32), "out": ((16, 16), F32)},
    "mix_blocks_c2v": {"a": ((64, 16), F32), "b": ((16, 16), F32), "out": ((64, 16), F32)},
    "mix_c2v_pop_a2a3": {"fifo": ((128, 16), F32), "a": ((16, 16), F32), "b": ((16, 16), F32), "out": ((16, 16), F32)},
    "mix_c2v_pop_noflag_a2a3": {"fifo": ((128, 16), F32), "a": ((16, 16), F32), "b": ((16, 16), F32), "out": ((16, 16), F32)},
    "mix_c2v_split2": {"a": ((16, 16), F32), "b": ((16, 16), F32), "out": ((16, 16), F32)},
    "mix_v2c_tpush": {"x": ((16, 16), F32), "b": ((16, 16), F32), "out": ((16, 16), F32)},
    "mix_syncall_exchange": {"a": ((2, 8), F32), "part": ((2, 8), F32), "out": ((2, 8), F32)},
    "mix_aiv_col_halves": {"a": ((4, 16), F32), "out": ((4, 16), F32)},
    "mix_ffts_mode1_exchange_a2a3": {"a": ((2, 8), F32), "part": ((2, 8), F32), "out": ((2, 8), F32)},
    "mix_ffts_mode0_exchange_a2a3": {"a": ((2, 8), F32), "part": ((2, 8), F32), "out": ((2, 8), F32)},
    "mix_ffts_mode1_one_side_a2a3": {"a": ((2, 8), F32), "part": ((2, 8), F32), "out": ((2, 8), F32)},
    "mix_ffts_id18_a2a3": {"a": ((2, 8), F32), "part": ((2, 8), F32), "out": ((2, 8), F32)},
    "mix_c2v_pop_nofree_a2a3": {"fifo": ((128, 16), F32), "a": ((16, 16), F32), "b": ((16, 16), F32), "out": ((16, 16), F32)},
    "mix_c2v_pop_free_twice_a2a3": {"fifo": ((128, 16), F32), "a": ((16, 16), F32), "b": ((16, 16), F32), "out": ((16, 16), F32)},
    "blocks_syncall_cols": {"a": ((4, 16), F32), "part": ((4, 16), F32), "out": ((4, 16), F32)},
    "single_core_flags": {"a": ((16, 16), F32), "b": ((16, 16), F32), "out": ((16, 16), F32)},
    "mix_v2c_ffts_handoff_a2a3": {"x": ((16, 16), F32), "y": ((16, 16), F32), "b": ((16, 16), F32), "out": ((16, 16), F32)},
    "mix_v2c_ffts_wrong_pipe_a2a3": {"x": ((16, 16), F32), "y": ((16, 16), F32), "b": ((16, 16), F32), "out": ((16, 16), F32)},
    "mix_v2c_ffts_handoff_a5": {"x": ((16, 16), F32), "y": ((16, 16), F32), "b": ((16, 16), F32), "out": ((16, 16), F32)},
    "mix_v2c_ffts_wrong_pipe_a5": {"x": ((16, 16), F32), "y": ((16, 16), F32), "b": ((16, 16), F32), "out": ((16, 16), F32)},
    "gm_slot_loop": {"fifo": ((32, 16), F32), "a": ((16, 16), F32), "b": ((64, 16), F32), "dst": ((64, 16), F32)},
    "mix_ffts_pingpong_a2a3": {"a": ((16, 16), F32), "b": ((64, 16), F32), "y": ((32, 16), F32), "out": ((64, 16), F32)},
    "ranks_put_cols": {"buf": ((4, 16), F32), "src@0": ((4, 8), F32), "src@1": ((4, 8), F32)},
    "ranks_put_read_wait": {"buf": ((4, 16), F32), "src@0": ((4, 16), F32), "src@1": ((4, 16), F32),
                            "sig": ((1, 1), I32), "out": ((4, 16), F32)},
    "ranks_blocks_put": {"dst": ((2, 16), F32), "src@0": ((2, 16), F32), "src@1": ((2, 16), F32),
                         "sig": ((2, 1), I32), "out": ((2, 16), F32)},
    "ranks_store_notify": {"buf": ((4, 16), F32), "src@0": ((4, 16), F32), "src@1": ((4, 16), F32),
                           "sig": ((1, 1), I32), "out": ((4, 16), F32)},
}


def make_inputs(stem: str, seed: int = 0) -> dict:
    """Deterministic inputs for `stem`: f32 multiples of 1/4 in [-2, 2]; i32 signals 0."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, (shape, dtype) in SPECS[stem].items():
        if dtype == I32:
            out[name] = np.zeros(shape, I32)
        else:
            out[name] = (rng.integers(-8, 9, size=shape) / 4).astype(F32)
    return out


def _mm(a, b):
    # Exact for make_inputs' values: every partial sum is a multiple of 1/16 below 2^20.
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(F32)


def mix_ffts_handoff(inputs: dict) -> dict:
    p = _mm(inputs["a"], inputs["b"])
    return {"y": p, "out": p}


def mix_c2v_split1(inputs: dict) -> dict:
    return {"out": _mm(inputs["a"], inputs["b"])}


def mix_c2v_pop_a2a3(inputs: dict) -> dict:
    return {"out": _mm(inputs["a"], inputs["b"])}


def mix_blocks_c2v(inputs: dict) -> dict:
    return {"out": _mm(inputs["a"], inputs["b"])}


def mix_c2v_split2(inputs: dict) -> dict:
    return {"out": _mm(inputs["a"], inputs["b"])}


def mix_v2c_tpush(inputs: dict) -> dict:
    return {"out": _mm(inputs["x"], inputs["b"])}


def mix_syncall_exchange(inputs: dict) -> dict:
    a = inputs["a"]
    return {"part": a.copy(), "out": a[::-1].copy()}


def mix_ffts_mode1_exchange_a2a3(inputs: dict) -> dict:
    return mix_syncall_exchange(inputs)


def mix_ffts_mode0_exchange_a2a3(inputs: dict) -> dict:
    return mix_syncall_exchange(inputs)


def mix_c2v_pop_nofree_a2a3(inputs: dict) -> dict:
    return mix_c2v_pop_a2a3(inputs)


def mix_c2v_pop_free_twice_a2a3(inputs: dict) -> dict:
    return mix_c2v_pop_a2a3(inputs)


def mix_aiv_col_halves(inputs: dict) -> dict:
    return {"out": (inputs["a"] + F32(1)).astype(F32)}


def blocks_syncall_cols(inputs: dict) -> dict:
    part = (inputs["a"] * 2).astype(F32)
    out = np.concatenate([part[:, 8:16], part[:, 0:8]], axis=1)
    return {"part": part, "out": out}


def single_core_flags(inputs: dict) -> dict:
    return {"out": (inputs["a"] + inputs["b"]).astype(F32)}


def mix_v2c_ffts_handoff_a2a3(inputs: dict) -> dict:
    return {"y": inputs["x"].copy(), "out": _mm(inputs["x"], inputs["b"])}


def mix_v2c_ffts_handoff_a5(inputs: dict) -> dict:
    return mix_v2c_ffts_handoff_a2a3(inputs)


def _products(a, b_all):
    return [_mm(a, b_all[16 * i:16 * (i + 1)]) for i in range(4)]


def gm_slot_loop(inputs: dict) -> dict:
    p = _products(inputs["a"], inputs["b"])
    # slot_num = 2: slot i mod 2 last holds product 2 + (i mod 2).
    return {"dst": np.concatenate(p, axis=0), "fifo": np.concatenate(p[2:], axis=0)}


def mix_ffts_pingpong_a2a3(inputs: dict) -> dict:
    p = _products(inputs["a"], inputs["b"])
    return {"out": np.concatenate(p, axis=0), "y": np.concatenate(p[2:], axis=0)}


def ranks_put_cols(inputs: dict) -> dict:
    return {"buf@0": np.concatenate([inputs["src@0"], inputs["src@1"]], axis=1)}


def ranks_put_read_wait(inputs: dict) -> dict:
    out = {}
    for r in (0, 1):
        prev = inputs[f"src@{1 - r}"]
        out[f"buf@{r}"] = prev.copy()
        out[f"out@{r}"] = (prev + F32(1)).astype(F32)
        out[f"sig@{r}"] = np.full((1, 1), 7, I32)
    return out


def ranks_store_notify(inputs: dict) -> dict:
    return {"buf@0": inputs["src@0"].copy(), "out@1": inputs["src@0"].copy()}


def ranks_blocks_put(inputs: dict) -> dict:
    out = {}
    for r in (0, 1):
        prev = inputs[f"src@{1 - r}"]
        out[f"dst@{r}"] = prev.copy()
        out[f"out@{r}"] = prev.copy()
        out[f"sig@{r}"] = np.full((2, 1), 7, I32)
    return out


if __name__ == "__main__":
    for stem, spec in SPECS.items():
        print(stem, {k: (s, np.dtype(t).name) for k, (s, t) in spec.items()})
