"""pto.run against numpy: the examples, every dtype mapping, a PTOAS-style golden flow."""

from typing import Any, Dict

import numpy as np
import pytest

import pto
from conftest import EXAMPLES, REPO, run_python

RNG = np.random.default_rng(17)
TARGETS = ["a2a3", "a5"]


@pytest.mark.parametrize("target", TARGETS)
def test_vadd(target: str) -> None:
    m = pto.parse(EXAMPLES / "vadd.pto")
    a = RNG.standard_normal((32, 32)).astype(np.float32)
    b = RNG.standard_normal((32, 32)).astype(np.float32)
    out = pto.run(m, target, {"a": a, "b": b, "c": np.zeros_like(a)})
    assert set(out) == {"c"}
    assert out["c"].shape == a.shape and out["c"].dtype == np.float32
    assert np.array_equal(out["c"], a + b)
    # The output owns the simulator's buffer (no copy) and is writable.
    assert out["c"].base is not None and out["c"].flags.writeable


def test_vadd_unbound_output_has_the_view_shape() -> None:
    m = pto.parse(EXAMPLES / "vadd.pto")
    a = np.arange(1024, dtype=np.float32).reshape(32, 32)
    out = pto.run(m, "a2a3", {"a": a, "b": a})
    assert out["c"].shape == (32, 32)
    assert np.array_equal(out["c"], 2 * a)
    # Both blocks write all of `c` (a hazard between blocks, unchecked here).
    assert pto.run(m, "a2a3", {"a": a, "b": a}, blocks=2, sync_check="never")["c"].shape == (32, 32)


def test_gm_input_keeps_its_nd_shape() -> None:
    m = pto.parse(EXAMPLES / "vadd.pto")
    a = RNG.standard_normal((2, 16, 32)).astype(np.float32)
    out = pto.run(m, "a2a3", {"a": a, "b": a, "c": np.zeros_like(a)})
    assert out["c"].shape == (2, 16, 32)
    assert np.array_equal(out["c"], a + a)


def softmax_ref(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("exec_", ["tile", "vector"])
def test_softmax(target: str, exec_: str) -> None:
    if exec_ == "vector" and target != "a2a3":
        pytest.skip("the vector level models A2A3")
    m = pto.parse(EXAMPLES / "softmax.as.pto")
    x = RNG.standard_normal((16, 64)).astype(np.float32)
    out = pto.run(m, target, {"x": x}, outputs=["y", "m", "s"], exec=exec_)  # type: ignore[arg-type]
    assert list(out) == ["y", "m", "s"]
    assert out["m"].shape == (16, 1) and np.array_equal(out["m"][:, 0], x.max(axis=1))
    np.testing.assert_allclose(out["y"], softmax_ref(x), rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(out["y"].sum(axis=1), np.ones(16), rtol=1e-5)


def test_colargmax_a5() -> None:
    m = pto.parse(EXAMPLES / "colargmax.dps.pto")
    src = RNG.standard_normal((16, 255)).astype(np.float32)
    out = pto.run(m, "a5", {"src": src})
    assert out["dst"].shape == (1, 255) and out["dst"].dtype == np.uint32
    assert np.array_equal(out["dst"][0], src.argmax(axis=0))
    assert np.array_equal(out["src"], src)


def test_scalar_inputs() -> None:
    m = pto.parse(".arg %a : !pto.tile<8x16xf32>\n.arg %k : f32\n%c = tadds %a, %k : !pto.tile<8x16xf32>\n")
    a = RNG.standard_normal((8, 16)).astype(np.float32)
    for k in (2.5, 3, np.float32(-1.25), np.array(0.5)):
        out = pto.run(m, "a2a3", {"a": a, "k": k}, outputs=["c"])
        assert np.array_equal(out["c"], a + np.float32(k))
    with pytest.raises(TypeError, match="give a number"):
        pto.run(m, "a2a3", {"a": a, "k": "2"})


def test_nested_lists_are_converted_when_exact() -> None:
    m = pto.parse(".arg %a : !pto.tile<2x8xi32>\n%c = tadd %a, %a : !pto.tile<2x8xi32>\n")
    out = pto.run(m, "a2a3", {"a": [list(range(8)), list(range(8, 16))]}, outputs=["c"])
    assert out["c"].dtype == np.int32 and np.array_equal(out["c"], 2 * np.arange(16, dtype=np.int32).reshape(2, 8))
    with pytest.raises(ValueError, match="do not fit i32"):
        pto.run(m, "a2a3", {"a": [[2**40] * 8] * 2})


def test_valid_region_and_full() -> None:
    m = pto.parse(".arg %a : !pto.tile<4x16xf32, valid=3x10>\n")
    a = RNG.standard_normal((3, 10)).astype(np.float32)
    out = pto.run(m, "a2a3", {"a": a})
    assert np.array_equal(out["a"], a)
    full = pto.run(m, "a2a3", {"a": a}, full=True)["a"]
    assert full.shape == (4, 16) and np.array_equal(full[:3, :10], a)


# Every element type: its numpy dtype, a round trip through a tile, and arithmetic where the
# simulator computes with it (tadd against numpy in the same dtype).
ELEMS = [n for n, _ in pto._native.element_types()]
NUMPY: Dict[str, Any] = {
    "i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64, "hif8": np.uint8, "index": np.int64,
}
ML = {"bf16": ("bfloat16", np.uint16), "f8E4M3FN": ("float8_e4m3fn", np.uint8), "f8E5M2": ("float8_e5m2", np.uint8),
      "f8E8M0FNU": ("float8_e8m0fnu", np.uint8)}


def test_every_element_type_is_mapped() -> None:
    assert set(ELEMS) == set(NUMPY) | set(ML)
    for name in ELEMS:
        dt = pto.dtype_of(name)
        if name in NUMPY:
            assert dt == np.dtype(NUMPY[name]), name
        else:
            ml_name, bits = ML[name]
            assert dt == (np.dtype(getattr(__import__("ml_dtypes"), ml_name)) if pto.HAS_ML_DTYPES else np.dtype(bits)), name
    with pytest.raises(ValueError, match="unknown element type"):
        pto.dtype_of("f7")


@pytest.mark.parametrize("elem", ELEMS)
def test_element_type_round_trip(elem: str) -> None:
    dt = pto.dtype_of(elem)
    cols = 64 // dt.itemsize
    raw = RNG.integers(0, 256, 2 * cols * dt.itemsize, dtype=np.uint8)
    if elem == "i1":
        raw = raw % 2
    a = raw.view(dt).reshape(2, cols)
    m = pto.parse(f".arg %a : !pto.tile<2x{cols}x{elem}>\n")
    for target in TARGETS:
        out = pto.run(m, target, {"a": a})["a"]
        assert out.dtype == dt and out.shape == (2, cols)
        assert np.array_equal(out.view(np.uint8), a.view(np.uint8))


@pytest.mark.parametrize("elem", ["i8", "i16", "i32", "ui8", "ui16", "ui32", "f16", "bf16", "f32"])
def test_element_type_arithmetic(elem: str) -> None:
    dt = pto.dtype_of(elem)
    cols = 32 // dt.itemsize
    if elem == "bf16":
        if not pto.HAS_ML_DTYPES:
            pytest.skip("bf16 arithmetic in numpy needs ml_dtypes")
        a = RNG.standard_normal((4, cols)).astype(dt)
        b = RNG.standard_normal((4, cols)).astype(dt)
    elif dt.kind == "f":
        a = RNG.standard_normal((4, cols)).astype(dt)
        b = RNG.standard_normal((4, cols)).astype(dt)
    else:
        info = np.iinfo(dt)
        a = RNG.integers(info.min, info.max, (4, cols), dtype=dt, endpoint=True)
        b = RNG.integers(info.min, info.max, (4, cols), dtype=dt, endpoint=True)
    m = pto.parse(f".arg %a : !pto.tile<4x{cols}x{elem}>\n.arg %b : !pto.tile<4x{cols}x{elem}>\n%c = tadd %a, %b : !pto.tile<4x{cols}x{elem}>\n")
    out = pto.run(m, "a5", {"a": a, "b": b}, outputs=["c"])["c"]
    with np.errstate(over="ignore"):
        assert np.array_equal(out, a + b)  # integers wrap, floats round once, as numpy does


def test_bf16_without_ml_dtypes_is_uint16_bits() -> None:
    """Without ml_dtypes, bf16 is its uint16 bit pattern both ways."""
    code = r"""
import sys
sys.modules["ml_dtypes"] = None  # import fails
import numpy as np, pto
assert not pto.HAS_ML_DTYPES and pto.dtype_of("bf16") == np.uint16 and pto.dtype_of("f8E4M3FN") == np.uint8
m = pto.parse(".arg %a : !pto.tile<2x16xbf16>\n.arg %b : !pto.tile<2x16xbf16>\n%c = tadd %a, %b : !pto.tile<2x16xbf16>\n")
one, two = 0x3F80, 0x4000  # 1.0, 2.0
a = np.full((2, 16), one, np.uint16); b = np.full((2, 16), two, np.uint16)
c = pto.run(m, "a5", {"a": a, "b": b}, outputs=["c"])["c"]
assert c.dtype == np.uint16 and (c == 0x4040).all(), c  # 3.0
print("ok")
"""
    r = run_python("-c", code)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_bf16_bits_accepted_with_ml_dtypes() -> None:
    if not pto.HAS_ML_DTYPES:
        pytest.skip("needs ml_dtypes")
    m = pto.parse(".arg %a : !pto.tile<2x16xbf16>\n")
    bits = np.full((2, 16), 0x3F80, np.uint16)
    out = pto.run(m, "a2a3", {"a": bits})["a"]
    assert out.dtype == pto.dtype_of("bf16") and (out.astype(np.float32) == 1.0).all()


def test_tprint_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    m = pto.parse(".arg %a : !pto.tile<2x8xf32>\npto.tprint ins(%a : !pto.tile<2x8xf32>)\n")
    try:
        pto.run(m, "a2a3", {"a": np.ones((2, 8), np.float32)})
    except pto.PtoError as e:  # the form differs between levels: fall back to the documented DPS form
        pytest.skip(f"tprint form: {e.classes}")
    assert "TPRINT" in capsys.readouterr().err


# A PTOAS-style golden flow: random numpy inputs -> pto.run -> compare with a numpy reference,
# as the samples' golden.py / compare.py scripts do with .bin files.
GOLDEN_KERNEL = """
func.func @fused(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %out: !pto.ptr<f32>) attributes {pto.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %vx = pto.make_tensor_view %x, shape = [%c16, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
  %vy = pto.make_tensor_view %y, shape = [%c16, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
  %vo = pto.make_tensor_view %out, shape = [%c16, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
  %px = pto.partition_view %vx, offsets = [%c0, %c0], sizes = [%c16, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x64xf32>
  %py = pto.partition_view %vy, offsets = [%c0, %c0], sizes = [%c16, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x64xf32>
  %po = pto.partition_view %vo, offsets = [%c0, %c0], sizes = [%c16, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x64xf32>
  %tx = pto.alloc_tile : !pto.tile_buf<vec, 16x64xf32>
  %ty = pto.alloc_tile : !pto.tile_buf<vec, 16x64xf32>
  %tm = pto.alloc_tile : !pto.tile_buf<vec, 16x64xf32>
  %to = pto.alloc_tile : !pto.tile_buf<vec, 16x64xf32>
  pto.tload ins(%px : !pto.partition_tensor_view<16x64xf32>) outs(%tx : !pto.tile_buf<vec, 16x64xf32>)
  pto.tload ins(%py : !pto.partition_tensor_view<16x64xf32>) outs(%ty : !pto.tile_buf<vec, 16x64xf32>)
  pto.tmul ins(%tx, %ty : !pto.tile_buf<vec, 16x64xf32>, !pto.tile_buf<vec, 16x64xf32>) outs(%tm : !pto.tile_buf<vec, 16x64xf32>)
  pto.tmax ins(%tm, %tx : !pto.tile_buf<vec, 16x64xf32>, !pto.tile_buf<vec, 16x64xf32>) outs(%to : !pto.tile_buf<vec, 16x64xf32>)
  pto.tstore ins(%to : !pto.tile_buf<vec, 16x64xf32>) outs(%po : !pto.partition_tensor_view<16x64xf32>)
  return
}
"""


@pytest.mark.parametrize("target", TARGETS)
def test_golden_flow(target: str) -> None:
    kernel = pto.parse(GOLDEN_KERNEL, name="fused.pto")
    pto.verify(kernel, target)
    for seed in range(3):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-1, 1, (16, 64)).astype(np.float32)
        y = rng.uniform(-1, 1, (16, 64)).astype(np.float32)
        golden = np.maximum(x * y, x)
        out = pto.run(kernel, target, {"x": x, "y": y, "out": np.zeros((16, 64), np.float32)})["out"]
        np.testing.assert_allclose(out, golden, rtol=0, atol=0)


# Each block adds its own 8 rows (rows 8*get_block_idx ...) of two 32x32 arrays.
BLOCK_KERNEL = """
func.func @vadd_rows(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %c: !pto.ptr<f32>) attributes {pto.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %bid = pto.get_block_idx
  %blk = arith.index_cast %bid : i64 to index
  %row = arith.muli %blk, %c8 : index
  %va = pto.make_tensor_view %a, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
  %vb = pto.make_tensor_view %b, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
  %vc = pto.make_tensor_view %c, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
  %pa = pto.partition_view %va, offsets = [%row, %c0], sizes = [%c8, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x32xf32>
  %pb = pto.partition_view %vb, offsets = [%row, %c0], sizes = [%c8, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x32xf32>
  %pc = pto.partition_view %vc, offsets = [%row, %c0], sizes = [%c8, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x32xf32>
  %ta = pto.alloc_tile : !pto.tile_buf<vec, 8x32xf32>
  %tb = pto.alloc_tile : !pto.tile_buf<vec, 8x32xf32>
  %tc = pto.alloc_tile : !pto.tile_buf<vec, 8x32xf32>
  pto.tload ins(%pa : !pto.partition_tensor_view<8x32xf32>) outs(%ta : !pto.tile_buf<vec, 8x32xf32>)
  pto.tload ins(%pb : !pto.partition_tensor_view<8x32xf32>) outs(%tb : !pto.tile_buf<vec, 8x32xf32>)
  pto.tadd ins(%ta, %tb : !pto.tile_buf<vec, 8x32xf32>, !pto.tile_buf<vec, 8x32xf32>) outs(%tc : !pto.tile_buf<vec, 8x32xf32>)
  pto.tstore ins(%tc : !pto.tile_buf<vec, 8x32xf32>) outs(%pc : !pto.partition_tensor_view<8x32xf32>)
  return
}
"""


@pytest.mark.parametrize("blocks", [1, 2, 4])
def test_blocks(blocks: int) -> None:
    m = pto.parse(BLOCK_KERNEL, name="vadd_rows.pto")
    a = RNG.standard_normal((32, 32)).astype(np.float32)
    b = RNG.standard_normal((32, 32)).astype(np.float32)
    c = pto.run(m, "a2a3", {"a": a, "b": b, "c": np.zeros_like(a)}, blocks=blocks)["c"]
    rows = 8 * blocks
    assert np.array_equal(c[:rows], (a + b)[:rows]), "each block wrote its rows"
    assert not c[rows:].any(), "rows of blocks that were not launched stay zero"


def test_trap_names_its_block() -> None:
    m = pto.parse(BLOCK_KERNEL, name="vadd_rows.pto")
    a = np.ones((32, 32), np.float32)
    with pytest.raises(pto.SimTrap) as e:  # block 4 reads rows 32..40 of a 32-row view
        pto.run(m, "a2a3", {"a": a, "b": a, "c": np.zeros_like(a)}, blocks=5)
    assert "on core b4.core" in e.value.diagnostics[0]["notes"]


def test_blocks_do_not_depend_on_the_thread_count() -> None:
    m = pto.parse(BLOCK_KERNEL, name="vadd_rows.pto")
    a = RNG.standard_normal((32, 32)).astype(np.float32)
    runs = [pto.run(m, "a2a3", {"a": a, "b": a, "c": np.zeros_like(a)}, blocks=4, threads=t)["c"] for t in (1, 2)]
    assert np.array_equal(runs[0], runs[1]) and np.array_equal(runs[0], a + a)
    with pytest.raises(ValueError, match="threads must be an integer from 1"):
        pto.run(m, "a2a3", {"a": a, "b": a, "c": np.zeros_like(a)}, blocks=2, threads=0)


def test_blocks_writing_the_same_bytes_raise_as_the_cli_reports() -> None:
    m = pto.parse(BLOCK_KERNEL.replace("%pc = pto.partition_view %vc, offsets = [%row, %c0]", "%pc = pto.partition_view %vc, offsets = [%c0, %c0]"), name="same_rows.pto")
    a = RNG.standard_normal((32, 32)).astype(np.float32)
    b = RNG.standard_normal((32, 32)).astype(np.float32)
    with pytest.raises(pto.HazardError, match="HAZARD_WAW") as raised:
        pto.run(m, "a2a3", {"a": a, "b": b, "c": np.zeros_like(a)}, blocks=2)
    assert isinstance(raised.value, pto.SyncError) and raised.value.classes[0] == "HAZARD_WAW"
    # Unchecked, the run returns the merged result (the later block's rows).
    out = pto.run(m, "a2a3", {"a": a, "b": b, "c": np.zeros_like(a)}, blocks=2, sync_check="never")
    assert out["c"].shape == (32, 32)


# A mix kernel: the cube multiplies a by b, `talloc`s a slot of the GM FIFO, stores the product
# there and commits it; each vector core pops its 8-row half and stores it to its rows of dst.
MIX_KERNEL = """module {
  func.func @k(%fifo: !pto.ptr<f32>, %a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %dst: !pto.ptr<f32>) attributes {pto.entry} {
    func.call @k_cube(%fifo, %a, %b) : (!pto.ptr<f32>, !pto.ptr<f32>, !pto.ptr<f32>) -> ()
    func.call @k_vector(%fifo, %dst) : (!pto.ptr<f32>, !pto.ptr<f32>) -> ()
    return
  }
  func.func private @k_cube(%fifo: !pto.ptr<f32>, %a: !pto.ptr<f32>, %b: !pto.ptr<f32>) attributes {pto.kernel_kind = #pto.kernel_kind<cube>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %buf = pto.import_reserved_buffer {name = "fifo", peer_func = @k_vector} -> i32
    %p = pto.initialize_l2g2l_pipe {dir_mask = 1, slot_size = 1024, slot_num = 2} (%fifo : !pto.ptr<f32>, %buf : i32) -> !pto.pipe
    %va_t = pto.make_tensor_view %a, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %va = pto.partition_view %va_t, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
    %vb_t = pto.make_tensor_view %b, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %vb = pto.partition_view %vb_t, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
    %ma = pto.alloc_tile : !pto.tile_buf<loc=mat, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, slayout=row_major, fractal=512, pad=0>
    %mb = pto.alloc_tile : !pto.tile_buf<loc=mat, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, slayout=row_major, fractal=512, pad=0>
    %l = pto.alloc_tile : !pto.tile_buf<loc=left, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=row_major, fractal=512, pad=0>
    %r = pto.alloc_tile : !pto.tile_buf<loc=right, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=col_major, fractal=512, pad=0>
    %acc = pto.alloc_tile : !pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, slayout=row_major, fractal=1024, pad=0>
    pto.tload ins(%va : !pto.partition_tensor_view<16x16xf32>) outs(%ma : !pto.tile_buf<loc=mat, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, slayout=row_major, fractal=512, pad=0>)
    pto.tload ins(%vb : !pto.partition_tensor_view<16x16xf32>) outs(%mb : !pto.tile_buf<loc=mat, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, slayout=row_major, fractal=512, pad=0>)
    pto.tmov ins(%ma : !pto.tile_buf<loc=mat, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, slayout=row_major, fractal=512, pad=0>) outs(%l : !pto.tile_buf<loc=left, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=row_major, fractal=512, pad=0>)
    pto.tmov ins(%mb : !pto.tile_buf<loc=mat, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, slayout=row_major, fractal=512, pad=0>) outs(%r : !pto.tile_buf<loc=right, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=col_major, fractal=512, pad=0>)
    pto.tmatmul ins(%l, %r : !pto.tile_buf<loc=left, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=row_major, fractal=512, pad=0>, !pto.tile_buf<loc=right, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=col_major, fractal=512, pad=0>) outs(%acc : !pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, slayout=row_major, fractal=1024, pad=0>)
    %s = pto.talloc(%p : !pto.pipe) {split = 1} -> !pto.partition_tensor_view<16x16xf32>
    pto.tstore ins(%acc : !pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, slayout=row_major, fractal=1024, pad=0>) outs(%s : !pto.partition_tensor_view<16x16xf32>)
    pto.tpush(%s, %p : !pto.partition_tensor_view<16x16xf32>, !pto.pipe) {split = 1}
    return
  }
  func.func private @k_vector(%fifo: !pto.ptr<f32>, %dst: !pto.ptr<f32>) attributes {pto.kernel_kind = #pto.kernel_kind<vector>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %buf = pto.reserve_buffer {name = "fifo", size = 2048, location = #pto.address_space<vec>, auto = true} -> i32
    %p = pto.initialize_l2g2l_pipe {dir_mask = 1, slot_size = 1024, slot_num = 2} (%fifo : !pto.ptr<f32>, %buf : i32) -> !pto.pipe
    %sub = pto.get_subblock_idx
    %sub_i = arith.index_cast %sub : i64 to index
    %row = arith.muli %sub_i, %c8 : index
    %vd_t = pto.make_tensor_view %dst, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %vd = pto.partition_view %vd_t, offsets = [%row, %c0], sizes = [%c8, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x16xf32>
    %x = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=16, v_row=8, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %t = pto.declare_tile -> !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=16, v_row=8, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.tpop(%t, %p : !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=16, v_row=8, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>, !pto.pipe) {split = 1}
    pto.tmov ins(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=16, v_row=8, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%x : !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=16, v_row=8, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.tfree(%p : !pto.pipe) {split = 1}
    pto.tstore ins(%x : !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=16, v_row=8, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%vd : !pto.partition_tensor_view<8x16xf32>)
    return
  }
}
"""


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_mix_kernel_runs_on_the_cube_and_vector_cores(target: str) -> None:
    m = pto.parse(MIX_KERNEL, name="mix.pto")
    a = np.round(RNG.standard_normal((16, 16)) * 4).astype(np.float32) / 4
    b = np.round(RNG.standard_normal((16, 16)) * 4).astype(np.float32) / 4
    out = pto.run(m, target, {"a": a, "b": b, "dst": np.zeros((16, 16), np.float32)})
    assert np.allclose(out["dst"], a @ b, rtol=1e-6, atol=1e-5)
    assert np.allclose(out["fifo"][0, :256].reshape(16, 16), a @ b, rtol=1e-6, atol=1e-5), "slot 0 of the GM FIFO"
    with pytest.raises(ValueError, match="full=True reads one core"):
        pto.run(m, target, {"a": a, "b": b, "dst": np.zeros((16, 16), np.float32)}, full=True)


def test_ranks_put_moves_each_rank_src_to_its_peer_dst() -> None:
    m = pto.parse((REPO / "tests/comm/put.pto").read_text(), name="put.pto")
    srcs = [np.full((2, 8), r + 0.5, np.float32) for r in range(4)]
    inputs: Dict[str, Any] = {f"src@{r}": s for r, s in enumerate(srcs)}
    inputs["dst"] = np.zeros((2, 8), np.float32)
    out = pto.run(m, "a2a3", inputs, ranks=4, peers={"dst": "next"})
    for r in range(4):
        assert np.array_equal(out[f"dst@{(r + 1) % 4}"], srcs[r]), f"rank {r} put into rank {(r + 1) % 4}"
    # One rank: the put acts on the local device.
    one = pto.run(m, "a2a3", {"src": srcs[1], "dst": np.zeros((2, 8), np.float32)})
    assert np.array_equal(one["dst"], srcs[1])


def test_ranks_reduce_sums_every_rank_buffer_on_the_root() -> None:
    m = pto.parse((REPO / "tests/comm/reduce_sum.pto").read_text(), name="reduce_sum.pto")
    bufs = [RNG.integers(-8, 8, (2, 8)).astype(np.float32) for _ in range(4)]
    inputs: Dict[str, Any] = {f"buf@{r}": b for r, b in enumerate(bufs)}
    inputs.update({f"rank@{r}": r for r in range(4)})
    inputs.update({"root": 2, "dst": np.zeros((2, 8), np.float32)})
    out = pto.run(m, "a2a3", inputs, ranks=4)
    assert np.array_equal(out["dst@2"], np.sum(bufs, axis=0))
    assert not out.get("dst@0", np.zeros(1)).any(), "only the root reduces"


def test_bad_rank_arguments_are_value_errors() -> None:
    m = pto.parse((REPO / "tests/comm/put.pto").read_text(), name="put.pto")
    z = np.zeros((2, 8), np.float32)
    with pytest.raises(ValueError, match="rank 5 does not exist"):
        pto.run(m, "a2a3", {"src": z, "dst": z}, ranks=2, peers={"dst": 5})
    with pytest.raises(ValueError, match="the kernel has no argument `%nothere`"):
        pto.run(m, "a2a3", {"src": z, "dst": z}, ranks=2, peers={"nothere": "next"})
    with pytest.raises(ValueError, match="rank 3 does not exist"):
        pto.run(m, "a2a3", {"src@3": z, "dst": z}, ranks=2)
    with pytest.raises(ValueError, match="ranks must be an integer from 1"):
        pto.run(m, "a2a3", {"src": z, "dst": z}, ranks=0)


def test_ranks_of_several_blocks_share_their_rank_gm() -> None:
    m = pto.parse((REPO / "tests/comm/put_blocks.pto").read_text(), name="put_blocks.pto")
    srcs = [RNG.integers(-8, 8, (2, 8)).astype(np.float32) for _ in range(2)]
    inputs: Dict[str, Any] = {f"src@{r}": s for r, s in enumerate(srcs)}
    inputs["dst"] = np.zeros((2, 8), np.float32)
    out = pto.run(m, "a2a3", inputs, ranks=2, blocks=2, peers={"dst": "next"})
    assert np.array_equal(out["dst@1"], srcs[0]) and np.array_equal(out["dst@0"], srcs[1]), "block b put row b"


def test_mix_kernel_on_two_ranks_computes_on_each() -> None:
    m = pto.parse(MIX_KERNEL, name="mix.pto")
    a = np.round(RNG.standard_normal((16, 16)) * 4).astype(np.float32) / 4
    b = np.round(RNG.standard_normal((16, 16)) * 4).astype(np.float32) / 4
    out = pto.run(m, "a5", {"a": a, "b": b, "dst": np.zeros((16, 16), np.float32)}, ranks=2)
    for r in range(2):
        assert np.allclose(out[f"dst@{r}"], a @ b, rtol=1e-6, atol=1e-5), f"rank {r}"


def test_insert_sync_runs_a_kernel_without_sync_ops_as_ptoas_compiles_it() -> None:
    m = pto.parse(EXAMPLES / "vadd.pto")
    a = RNG.standard_normal((32, 32)).astype(np.float32)
    b = RNG.standard_normal((32, 32)).astype(np.float32)
    inputs = {"a": a, "b": b, "c": np.zeros_like(a)}
    # As written, its pipes are unordered: `always` raises, and says how to run it with insertion.
    with pytest.raises(pto.HazardError, match="HAZARD_RAW") as raised:
        pto.run(m, "a2a3", inputs, sync_check="always")
    assert any("`insert_sync=True` runs it" in n for n in raised.value.diagnostics[0]["notes"])
    # With the sync pto inserts, the same check passes and the result is the same.
    out = pto.run(m, "a2a3", inputs, sync_check="always", insert_sync=True)
    assert np.array_equal(out["c"], a + b)


def test_timeline_returns_the_summary_and_the_trace() -> None:
    m = pto.parse(REPO / "tests" / "sync" / "ping_pong.pto")
    out, timeline = pto.run(m, "a2a3", default_inputs=True, timeline=True)
    assert out and isinstance(timeline, pto.Timeline)
    summary = timeline.summary
    assert timeline.total == summary["total"] > 0
    assert all(summary["total"] >= p["busy"] for p in summary["pipes"].values())
    path = summary["critical_path"]
    assert round(sum(o["cycles"] for o in path["ops"])) == summary["total"]
    events = timeline.trace["traceEvents"]
    xs = [e for e in events if e["ph"] == "X"]
    assert xs and all({"ts", "dur", "pid", "tid"} <= set(e) for e in xs)
    starts = sorted(e["id"] for e in events if e["ph"] == "s")
    assert starts and starts == sorted(e["id"] for e in events if e["ph"] == "f")
    assert timeline.trace["otherData"]["ts_unit"] == "cycle"
    # The same numbers as `pto run --cycles` (docs/performance-model.md's example).
    assert timeline.total == 1294 and summary["pipes"]["PIPE_MTE2"]["busy"] == 82
    # Without timeline=True: the outputs alone.
    assert isinstance(pto.run(m, "a2a3", default_inputs=True), dict)


def test_timeline_with_pto_isas_cost_model_takes_its_formulas() -> None:
    # vadd's loads under pto-isa's lightweight model: 4,096 bytes over its GM->UB figure as
    # pto-isa divides by it (docs/performance-model.md); its tadd has no formula there, and
    # a RuntimeWarning says pto's model timed it, as the CLI's note does.
    m = pto.parse(EXAMPLES / "vadd.pto")
    with pytest.warns(RuntimeWarning, match=r"no formula for tadd \(1 run\); pto's model timed it"):
        _, isa = pto.run(m, "a2a3", default_inputs=True, timeline=True, cost_model="pto-isa")
    _, own = pto.run(m, "a2a3", default_inputs=True, timeline=True)

    def cycles(t: pto.Timeline, name: str) -> float:
        return float(next(e["args"]["cycles"] for e in t.trace["traceEvents"] if e["ph"] == "X" and e["name"] == name))

    assert cycles(isa, "tload") == pytest.approx(4096 / 100.9 * 1850, abs=1)
    assert cycles(own, "tload") < cycles(isa, "tload") / 10
    assert cycles(isa, "tadd") == cycles(own, "tadd")
    with pytest.raises(ValueError, match="cost_model"):
        pto.run(m, "a2a3", default_inputs=True, timeline=True, cost_model="cce")  # type: ignore[call-overload]


def test_timeline_of_a_program_without_sync_is_timed_as_the_cli_times_it() -> None:
    # No sync op: pto run --cycles times it with the sync the insertion pass inserts (16,337
    # cycles, docs/performance-model.md's #1569 table); pto.run lowers it the same way.
    m = pto.parse(REPO / "examples" / "rowadd_1569" / "nosync.pto")
    _, timeline = pto.run(m, "a2a3", default_inputs=True, timeline=True)
    _, inserted = pto.run(m, "a2a3", default_inputs=True, timeline=True, insert_sync=True)
    assert timeline.total == inserted.total == 16337
    assert any(e["name"] == "wait_flag" for e in timeline.trace["traceEvents"] if e["ph"] == "X")


def test_timeline_times_every_core_of_a_mix_kernel() -> None:
    m = pto.parse(REPO / "tests" / "hb" / "mix_ffts_handoff.pto")
    out, timeline = pto.run(m, "a2a3", default_inputs=True, timeline=True)
    cores = timeline.summary["cores"]
    assert list(cores) == ["rank 0 block 0 aic", "rank 0 block 0 aiv0", "rank 0 block 0 aiv1"]
    assert timeline.total == max(c["total"] for c in cores.values())
    names = [e["args"]["name"] for e in timeline.trace["traceEvents"] if e["name"] == "process_name"]
    assert names == list(cores)
    # Each AIV loads only once the cube's store (which its FFTS flag waits for) has completed.
    xs = [e for e in timeline.trace["traceEvents"] if e["ph"] == "X"]
    stored = max(e["ts"] + e["args"]["cycles"] for e in xs if e["pid"] == 0 and e["name"] == "tstore")
    loads = [e["ts"] for e in xs if e["pid"] in (1, 2) and e["name"] == "tload"]
    assert len(loads) == 2 and min(loads) >= stored
    assert "out" in out
