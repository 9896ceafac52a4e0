"""Each diagnostic family raises its PtoError subclass, located, rendered like the CLI."""

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pto
from conftest import EXAMPLES, REPO, run_python


def test_parse_error_is_located() -> None:
    with pytest.raises(pto.ParseError) as e:
        pto.parse(".arg %a : !pto.tile<16x16xf32>\n%c = tfoo %a : !pto.tile<16x16xf32>\n", name="k.pto")
    (d,) = e.value.diagnostics
    assert (d["class"], d["file"], d["line"], d["col"]) == ("PARSE_UNKNOWN_OP", "k.pto", 2, 6)
    assert d["message"] == "unknown op `tfoo`"
    text = str(e.value)
    assert text.startswith("error[PARSE_UNKNOWN_OP]: unknown op `tfoo`")
    assert "┌─ k.pto:2:6" in text and "%c = tfoo %a" in text
    assert isinstance(e.value, pto.PtoError)


def test_verify_error() -> None:
    m = pto.parse(".arg %a : !pto.tile<16x16xf32>\n.arg %b : !pto.tile<16x32xf32>\n%c = tadd %a, %b : !pto.tile<16x16xf32>\n")
    with pytest.raises(pto.VerifyError) as e:
        pto.verify(m)
    d = e.value.diagnostics[0]
    assert (d["class"], d["line"], d["col"], d["op"], d["operand"]) == ("STRUCT_VALID_SHAPE_MISMATCH", 3, 1, "pto.tadd", "src1")
    assert "expected 16x16 (as `src0`), found 16x32" in str(e.value)
    with pytest.raises(pto.VerifyError):
        pto.run(m, "a2a3", default_inputs=True)


def test_legality_error() -> None:
    m = pto.parse(EXAMPLES / "colargmax.dps.pto")
    with pytest.raises(pto.LegalityError) as e:
        pto.lower(m, "a2a3")
    d = e.value.diagnostics[0]
    assert (d["class"], d["line"], d["op"]) == ("LEGAL_TMP_TOO_SMALL", 5, "pto.tcolargmax")
    assert d["file"].endswith("colargmax.dps.pto")


def test_sim_trap() -> None:
    m = pto.parse(".arg %a : !pto.tile<16x16xf32>\n%c = tadd %a, %a : !pto.tile<16x16xf32>\n")
    with pytest.raises(pto.SimTrap) as e:
        pto.run(m, "a2a3")
    d = e.value.diagnostics[0]
    assert (d["class"], d["line"], d["col"], d["op"]) == ("SIM_TRAP", 2, 1, "pto.tadd")
    assert "reads tile argument `%a`" in d["message"]
    ok = pto.run(m, "a2a3", default_inputs=True, outputs=["c"])
    assert np.array_equal(ok["c"], np.zeros((16, 16), np.float32))


def test_step_budget_is_a_sim_trap() -> None:
    m = pto.parse(EXAMPLES / "softmax.as.pto")
    with pytest.raises(pto.SimTrap) as e:
        pto.run(m, "a2a3", {"x": np.ones((16, 64), np.float32)}, max_steps=2)
    assert e.value.classes == ["SIM_BUDGET"]


def test_hazard_error_family() -> None:
    err = pto._error(pto._native.DiagnosticsError("r", [{"class": "HAZARD_RAW", "severity": "error"}]))
    assert type(err) is pto.HazardError and str(err) == "r"


def test_exception_class_does_not_depend_on_the_order_of_findings() -> None:
    """One precedence (docs/python.md): the same two findings raise the same class in either
    order, the earlier family of the table winning."""
    findings = [{"class": "SYNC_UNPAIRED", "severity": "error"}, {"class": "HAZARD_RAW", "severity": "error"}]
    for order in (findings, findings[::-1]):
        assert type(pto._error(pto._native.DiagnosticsError("r", order))) is pto.HazardError
    trap_first = [{"class": "HAZARD_WAW", "severity": "error"}, {"class": "SIM_TRAP", "severity": "error"}]
    assert type(pto._error(pto._native.DiagnosticsError("r", trap_first))) is pto.SimTrap


def test_input_errors_name_the_argument() -> None:
    m = pto.parse(EXAMPLES / "vadd.pto")
    a = np.ones((32, 32), np.float32)
    with pytest.raises(ValueError, match=r"input z: the kernel has no argument `%z`; its arguments: %a \(!pto.ptr<f32>\)"):
        pto.run(m, "a2a3", {"z": a})
    with pytest.raises(TypeError, match=r"input a: `%a` holds f32 \(numpy float32\), the array is float64"):
        pto.run(m, "a2a3", {"a": a.astype(np.float64)})
    with pytest.raises(TypeError, match="give an array, not float"):
        pto.run(m, "a2a3", {"a": 1.0})
    tile = pto.parse(".arg %a : !pto.tile<16x16xf32>\n")
    with pytest.raises(ValueError, match=r"`%a` is 16x16 \(valid 16x16\), the data is 4x4"):
        pto.run(tile, "a2a3", {"a": np.ones((4, 4), np.float32)})
    with pytest.raises(ValueError, match="1-D or 2-D"):
        pto.run(tile, "a2a3", {"a": np.ones((2, 2, 64), np.float32)})
    with pytest.raises(ValueError, match="blocks must be an integer from 1"):
        pto.run(tile, "a2a3", {"a": np.ones((16, 16), np.float32)}, blocks=0)
    with pytest.raises(ValueError, match="exec"):
        pto.run(tile, "a2a3", exec="simd")  # type: ignore[arg-type]


def test_python_39_syntax_compiles() -> None:
    """The package source must stay importable by the oldest CPython the abi3 wheel serves."""
    src = (REPO / "python" / "pto" / "__init__.py").read_text()
    ast.parse(src, feature_version=(3, 9))
    assert sys.version_info >= (3, 9)
    r = run_python("-c", "import pto")
    assert r.returncode == 0, r.stderr


def test_the_suite_runs_from_the_python_directory() -> None:
    """``pytest`` started in python/ (the README's package directory) passes too."""
    pytest_bin = Path(sys.executable).with_name("pytest")
    if not pytest_bin.exists():
        pytest.skip("no pytest script beside this Python")
    test = "tests/test_errors.py::test_python_39_syntax_compiles"
    r = subprocess.run([str(pytest_bin), "-q", "-p", "no:cacheprovider", test], capture_output=True, text=True, cwd=REPO / "python")
    assert r.returncode == 0, r.stdout + r.stderr


def test_typed_usage_runs() -> None:
    r = run_python(str(REPO / "python" / "tests" / "typed_usage.py"))
    assert r.returncode == 0 and r.stdout.strip() == "typed usage ok", r.stderr


def test_a_missing_input_is_advised_in_python_terms() -> None:
    m = pto.parse(EXAMPLES / "vadd.pto")
    with pytest.raises(pto.SimTrap) as e:
        pto.run(m, "a2a3", {"b": np.ones((32, 32), np.float32)})
    text = str(e.value)
    assert 'pass `inputs={"a": array}`, or `default_inputs=True`' in text, text
    assert "--input" not in text and "--default-inputs" not in text, text
    with pytest.raises(pto.SimTrap, match=r'inputs=\{"a": array\}'):
        pto.run(m, "a2a3", {"b": np.ones((32, 32), np.float32)}, blocks=2)
