"""A small program typed against the package's annotations and stubs: CI runs
`mypy --strict python/tests/typed_usage.py` on it (and test_typed_usage runs it)."""

from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import numpy.typing as npt

import pto

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def add(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    kernel: pto.Module = pto.parse(EXAMPLES / "vadd.pto")
    level: int = kernel.level
    names: List[str] = kernel.ops
    assert level == 2 and "pto.tadd" in names
    out: Dict[str, npt.NDArray[Any]] = pto.run(kernel, "a2a3", {"a": a, "b": b, "c": np.zeros_like(a)})
    return out["c"].astype(np.float32)


def timed(a: npt.NDArray[np.float32]) -> int:
    kernel = pto.parse(EXAMPLES / "vadd.pto")
    out, timeline = pto.run(kernel, "a2a3", {"a": a, "b": a, "c": np.zeros_like(a)}, timeline=True)
    assert out["c"].shape == a.shape
    trace: Dict[str, Any] = timeline.trace
    assert trace["traceEvents"]
    return timeline.total


def diagnose(text: str) -> List[str]:
    try:
        pto.verify(pto.parse(text), target="a5")
    except pto.PtoError as e:
        where: List[str] = [f"{d['file']}:{d['line']}:{d['col']} {d['class']}" for d in e.diagnostics]
        return where
    return []


def main() -> None:
    a = np.ones((32, 32), np.float32)
    assert np.array_equal(add(a, a), 2 * a)
    assert timed(a) > 0
    assert diagnose("%c = tfoo %a : !pto.tile<16x16xf32>\n") == ["<string>:1:6 PARSE_UNKNOWN_OP"]
    svg: str = pto.memory_map(pto.parse(EXAMPLES / "vadd.pto"), "a5")
    table: List[Dict[str, object]] = pto.ops()
    dt: np.dtype[Any] = pto.dtype_of("f16")
    warnings: List[pto.Diagnostic] = pto.verify(pto.parse(EXAMPLES / "vadd.pto"))
    assert svg.startswith("<svg") and len(table) > 0 and dt == np.float16 and warnings == []


if __name__ == "__main__":
    main()
    print("typed usage ok")
