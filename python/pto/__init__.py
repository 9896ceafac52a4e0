"""pto: parse, verify, lower and simulate PTO tile-ISA kernels from Python, numpy in and numpy out.

The same toolchain as the ``pto`` command (docs/cli.md), as a library::

    import numpy as np, pto

    m = pto.parse("examples/vadd.pto")
    a = np.random.rand(32, 32).astype(np.float32)
    b = np.random.rand(32, 32).astype(np.float32)
    out = pto.run(m, "a2a3", {"a": a, "b": b, "c": np.zeros_like(a)})
    assert np.array_equal(out["c"], a + b)

Element types map to numpy dtypes (``dtype_of``): ``f16`` is ``float16``; ``bf16`` and the 8-bit
float types are ``ml_dtypes``' types when ``ml_dtypes`` is installed, else their bit patterns
(``uint16`` / ``uint8``). Problems in a kernel raise ``PtoError`` subclasses that carry the
located diagnostics and print like the CLI. docs/python.md has the whole API.
"""

from __future__ import annotations

import errno as _errno
import json as _json
import os as _os
import sys as _sys
import warnings as _warnings
from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Type, TypedDict, Union, overload

import numpy as np
import numpy.typing as npt

from . import _native

_ml_dtypes: Any
try:  # bf16 / fp8 as real numpy dtypes when available
    import ml_dtypes as _ml_dtypes  # type: ignore[import-not-found, no-redef, unused-ignore]
except ImportError:  # pragma: no cover - depends on the environment
    _ml_dtypes = None

__all__ = [
    "Module",
    "Diagnostic",
    "PtoError",
    "ParseError",
    "VerifyError",
    "LegalityError",
    "SimTrap",
    "HazardError",
    "DeadlockError",
    "SyncError",
    "parse",
    "verify",
    "lower",
    "run",
    "Timeline",
    "ops",
    "memory_map",
    "dtype_of",
    "HAS_ML_DTYPES",
]


class Module:
    """A parsed (or lowered) PTO module. ``level`` is 1 (tile values), 2 (tile buffers) or 3
    (buffers with addresses); ``ops`` the op names in program order; ``text()`` prints it."""

    __slots__ = ("_m",)

    def __init__(self, native: _native.Module) -> None:
        self._m = native

    @property
    def name(self) -> str:
        """The source's name: its path, or ``<string>``."""
        return self._m.name

    @property
    def source(self) -> str:
        """The text the module was read from."""
        return self._m.source

    @property
    def level(self) -> int:
        """1 (tile values, SSA), 2 (tile buffers) or 3 (tile buffers with addresses)."""
        return self._m.level

    @property
    def ops(self) -> List[str]:
        """Every op's full name (``pto.tadd``, ``func.func``...), in program order."""
        return self._m.ops

    @property
    def warnings(self) -> List["Diagnostic"]:
        """The reader's (or the lowering's) warnings and notes."""
        return self._m.warnings

    def text(self, form: Optional[Literal["as", "ssa"]] = None, *, generic: bool = False) -> str:
        """The module as text (``pto fmt``): in its own form, or a Level-1 program in PTO-AS
        short form (``"as"``) or SSA (``"ssa"``); ``generic`` prints MLIR's generic op form."""
        return self._m.text(form, generic)

    def __repr__(self) -> str:
        return f"<pto.Module {self.name!r}: Level {self.level}, {len(self.ops)} ops>"

    def _repr_html_(self) -> str:
        """Jupyter display: the module's text and, when it lowers for its target, its memory map."""
        import html

        parts = [f"<div class='pto-module'><b>{html.escape(self.name)}</b> (Level {self.level}, {len(self.ops)} ops)"]
        parts.append(f"<pre>{html.escape(self.text())}</pre>")
        try:
            parts.append(memory_map(self))
        except PtoError as e:
            parts.append(f"<pre class='pto-error'>{html.escape(str(e))}</pre>")
        parts.append("</div>")
        return "\n".join(parts)


#: One diagnostic, as the CLI's ``--error-format json`` has it. ``file``, ``line`` and ``col``
#: (1-based) locate its primary span; ``op`` names the op it is about, when it is about one.
Diagnostic = TypedDict(
    "Diagnostic",
    {
        "class": str,
        "severity": str,
        "message": str,
        "file": Optional[str],
        "line": Optional[int],
        "col": Optional[int],
        "op": Optional[str],
        "operand": Optional[str],
        "notes": List[str],
    },
)

Target = Literal["a2a3", "a3", "a2", "a5"]

#: True when ``ml_dtypes`` was importable: bf16 and fp8 data are its dtypes, not bit patterns.
HAS_ML_DTYPES = _ml_dtypes is not None


# --- errors -------------------------------------------------------------------------------------


class PtoError(Exception):
    """Diagnostics with errors. ``diagnostics`` lists them (dicts: class, severity, message, file,
    line, col, op, operand, notes); ``str()`` renders them like the CLI (source line and caret)."""

    def __init__(self, rendered: str, diagnostics: List[Diagnostic]) -> None:
        super().__init__(rendered)
        self.rendered = rendered
        self.diagnostics = diagnostics

    def __str__(self) -> str:
        return self.rendered.rstrip("\n")

    @property
    def classes(self) -> List[str]:
        """The diagnostic classes (``PARSE_UNKNOWN_OP``, ``SIM_TRAP``...), in order."""
        return [d["class"] for d in self.diagnostics]


class ParseError(PtoError):
    """The text does not read (``PARSE_*``)."""


class VerifyError(PtoError):
    """Structural errors, target independent (``STRUCT_*``, ``ORDER_*``)."""


class LegalityError(PtoError):
    """Not legal for the target, or does not fit its memories (``LEGAL_*``)."""


class SimTrap(PtoError):
    """The simulation stopped: a program fault, an op not executable yet, the step budget
    (``SIM_*``)."""


class SyncError(PtoError):
    """A synchronization error (``SYNC_*``: unpaired flags, flag misuse) and the base of
    ``HazardError`` and ``DeadlockError``."""


class HazardError(SyncError):
    """Two unordered accesses to the same bytes, between pipes, cores, blocks or ranks
    (``HAZARD_*``)."""


class DeadlockError(SyncError):
    """Pipes or cores that would wait forever (``SYNC_DEADLOCK``)."""


_FAMILIES: Sequence[Tuple[str, Type[PtoError]]] = (
    ("PARSE_", ParseError),
    ("STRUCT_", VerifyError),
    ("ORDER_", VerifyError),
    ("LEGAL_", LegalityError),
    ("SIM_", SimTrap),
    ("HAZARD_", HazardError),
    ("SYNC_DEADLOCK", DeadlockError),
    ("SYNC_", SyncError),
)


def _error(e: _native.DiagnosticsError) -> PtoError:
    """The exception for a run's findings, by one precedence whatever their order: the first
    family of ``_FAMILIES`` (parse, verify, legality, trap, hazard, deadlock, other sync) that
    any error belongs to, so two kernels with the same findings raise the same class."""
    rendered, diagnostics = e.args
    errors = [d for d in diagnostics if d["severity"] == "error"] or diagnostics
    classes = [d["class"] for d in errors]
    cls: Type[PtoError] = next(
        (c for prefix, c in _FAMILIES if any(k.startswith(prefix) for k in classes)), PtoError
    )
    return cls(rendered, diagnostics)


# --- dtypes -------------------------------------------------------------------------------------

_ELEM_SIZES = dict(_native.element_types())


def _ml(name: str, bits: Any) -> np.dtype[Any]:
    t = getattr(_ml_dtypes, name, None) if _ml_dtypes is not None else None
    dtype: np.dtype[Any] = np.dtype(t if t is not None else bits)
    return dtype


_DTYPES: Dict[str, np.dtype[Any]] = {
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "ui8": np.dtype(np.uint8),
    "ui16": np.dtype(np.uint16),
    "ui32": np.dtype(np.uint32),
    "ui64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16),
    "bf16": _ml("bfloat16", np.uint16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "f8E4M3FN": _ml("float8_e4m3fn", np.uint8),
    "f8E5M2": _ml("float8_e5m2", np.uint8),
    "hif8": np.dtype(np.uint8),
    "f8E8M0FNU": _ml("float8_e8m0fnu", np.uint8),
    "index": np.dtype(np.int64),
}
for _name, _size in _ELEM_SIZES.items():  # every element type is mapped, at its size
    assert _DTYPES[_name].itemsize == _size, (_name, _DTYPES[_name], _size)

#: Float types numpy lacks: their ``ml_dtypes`` type, or their bits; inputs may always be bits.
_FLOAT_BITS = ("bf16", "f8E4M3FN", "f8E5M2", "hif8", "f8E8M0FNU")


def dtype_of(element_type: str) -> np.dtype[Any]:
    """The numpy dtype of a PTO element type (``"f32"`` -> ``float32``, ``"bf16"`` ->
    ``ml_dtypes.bfloat16`` or ``uint16`` bits without ml_dtypes)."""
    try:
        return _DTYPES[element_type]
    except KeyError:
        raise ValueError(f"unknown element type `{element_type}` (known: {', '.join(_DTYPES)})") from None


def _bits_dtype(size: int) -> np.dtype[Any]:
    return np.dtype({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size])


def _convert(name: str, value: Any, kind: str, elem: str) -> Any:
    """One input for ``_native.run``: a float for a scalar argument, ``(uint8 bytes, rows, cols)``
    for a tile or GM argument."""
    want = _DTYPES[elem]
    if kind == "scalar":
        if isinstance(value, np.ndarray):
            if value.size != 1:
                raise ValueError(f"input {name}: `%{name}` is a scalar ({elem}), the array has shape {value.shape}")
            value = value.reshape(()).item()
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, (bool, int, float)):
            return float(value)
        raise TypeError(f"input {name}: `%{name}` is a scalar ({elem}): give a number, not {type(value).__name__}")
    if isinstance(value, np.ndarray):
        arr = value
        if arr.dtype != want:
            if elem in _FLOAT_BITS and arr.dtype.kind == "u" and arr.dtype.itemsize == want.itemsize:
                pass  # bit patterns of a bf16 / fp8 type (as the CLI's .npy reader accepts)
            else:
                raise TypeError(
                    f"input {name}: `%{name}` holds {elem} (numpy {want}), the array is {arr.dtype}; "
                    f"convert it with .astype(pto.dtype_of({elem!r}))"
                )
    elif isinstance(value, (bool, int, float, np.generic)) or not hasattr(value, "__len__"):
        raise TypeError(f"input {name}: `%{name}` is a {kind} argument ({elem}): give an array, not {type(value).__name__}")
    else:
        # Nested lists: converted, but only when every value survives the conversion.
        raw = np.asarray(value)
        arr = raw.astype(want)
        if want.kind in "iub" and raw.dtype.kind in "iufb" and not np.array_equal(arr.astype(raw.dtype), raw):
            raise ValueError(f"input {name}: some values do not fit {elem}")
    if arr.ndim == 0:
        rows, cols = 1, 1
    elif arr.ndim == 1:
        rows, cols = 1, arr.shape[0]
    elif arr.ndim == 2:
        rows, cols = arr.shape
    elif kind == "gm":
        cols = arr.shape[-1]
        rows = arr.size // cols if cols else 0
    else:
        raise ValueError(f"input {name}: a tile takes a 1-D or 2-D array, the array has shape {arr.shape}")
    if arr.dtype.byteorder == ">":
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    flat = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
    return flat, rows, cols


# --- the API ------------------------------------------------------------------------------------


def _looks_like_a_path(s: str) -> bool:
    """One word with a path separator or a PTO file suffix (``examples/nope.pto``): never program
    text, which has spaces between its tokens."""
    word = s.strip()
    if not word or any(c.isspace() for c in word):
        return False
    return "/" in word or _os.sep in word or word.endswith((".pto", ".mlir", ".mlirbc"))


def parse(text_or_path: Union[str, "_os.PathLike[str]"], *, name: Optional[str] = None) -> Module:
    """Reads a PTO module: a path to a ``.pto`` file, or the text itself (any form the CLI
    reads: PTO-AS, Level-1 SSA, Level-2/3 DPS, PTOAS's MLIR files). Raises ``ParseError``, and
    ``FileNotFoundError`` for a path-like string (one word with a ``/`` or a ``.pto`` suffix)
    that names no file."""
    if isinstance(text_or_path, str) and _looks_like_a_path(text_or_path) and not _os.path.isfile(text_or_path):
        raise FileNotFoundError(
            _errno.ENOENT, "no such file (pto.parse takes a path to a .pto file, or the program text itself)", text_or_path
        )
    if isinstance(text_or_path, _os.PathLike) or ("\n" not in text_or_path and _os.path.isfile(text_or_path)):
        path = _os.fspath(text_or_path)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        source_name = name or path
    else:
        text = str(text_or_path)
        source_name = name or "<string>"
    try:
        return Module(_native.parse(text, source_name))
    except _native.DiagnosticsError as e:
        raise _error(e) from None


def verify(module: Module, target: Optional[Target] = None, *, explain: bool = False) -> List[Diagnostic]:
    """``pto verify``: structural checks and, with a target (or the module's
    ``pto.target_arch``), the target's legality. Raises ``VerifyError`` / ``LegalityError``;
    returns the warnings and notes."""
    try:
        return _native.verify(module._m, target, explain)
    except _native.DiagnosticsError as e:
        raise _error(e) from None


def lower(
    module: Module,
    target: Optional[Target] = None,
    stop_after: Optional[str] = None,
    emit: Literal["dps", "json", "vector"] = "dps",
) -> Any:
    """``pto lower``: legalize, insert scratch, bufferize and plan memory for ``target``
    (stopping after the pass ``stop_after``). Returns the lowered ``Module`` (``emit="dps"``;
    ``.text()`` prints it), the plan as a dict (``"json"``: ops and memory) or the A2A3 vector
    programs as text (``"vector"``)."""
    try:
        out = _native.lower(module._m, target, stop_after, emit)
    except _native.DiagnosticsError as e:
        raise _error(e) from None
    if emit == "json":
        return _json.loads(out)
    return Module(out) if emit == "dps" else out


def memory_map(module: Module, target: Optional[Target] = None) -> str:
    """The SVG memory map of ``module`` lowered for ``target`` (``pto lower --memory-map``)."""
    try:
        return _native.memory_map(module._m, target)
    except _native.DiagnosticsError as e:
        raise _error(e) from None


_OPS: Optional[List[Dict[str, Any]]] = None


def ops() -> List[Dict[str, Any]]:
    """The op table (``pto ops --json``): one dict per op, with its name, family, operand
    pattern, attributes, scratch rules and whether the simulator executes it per target."""
    global _OPS
    if _OPS is None:
        table: Any = _json.loads(_native.ops_json())
        _OPS = table["ops"] if isinstance(table, dict) and "ops" in table else table
    return [dict(o) for o in _OPS]


ArrayLike = Union[npt.NDArray[Any], Sequence[Any], float, int, bool]


class Timeline:
    """The cycle model's timing of a run (``run(..., timeline=True)``, docs/performance-model.md).

    ``summary`` is what ``pto run --cycles --json`` puts in its ``%cycles`` entry: ``total``
    cycles, ``pipes`` (each pipe's ``busy`` cycles and ``utilisation``) and ``critical_path``
    (``cycles`` and ``ops``: ``op``, ``line``, ``pipe``, ``count``, ``cycles``). ``trace`` is the
    Chrome trace ``pto run --timeline OUT.json`` writes (``traceEvents``; ``ts``/``dur`` in
    cycles): ``json.dump`` it to a file to open it in Perfetto. A run of several cores (a mix
    kernel, ``blocks``, ``ranks``) has one process per core in the trace, and its ``summary`` is
    ``{"total": ..., "cores": {"rank 0 block 0 aic": {...one core's summary...}, ...}}``."""

    __slots__ = ("summary", "trace")

    def __init__(self, summary: Dict[str, Any], trace: Dict[str, Any]) -> None:
        self.summary = summary
        self.trace = trace

    @property
    def total(self) -> int:
        """Total modelled cycles."""
        return int(self.summary["total"])

    def __repr__(self) -> str:
        if "cores" in self.summary:
            return f"Timeline(total={self.total}, cores: {len(self.summary['cores'])})"
        pipes = ", ".join(f"{p} {v['busy']}" for p, v in self.summary["pipes"].items())
        return f"Timeline(total={self.total}, busy: {pipes})"


@overload
def run(
    module: Module,
    target: Optional[Target] = None,
    inputs: Optional[Mapping[str, ArrayLike]] = None,
    outputs: Optional[Sequence[str]] = None,
    exec: Literal["tile", "vector"] = "tile",
    default_inputs: bool = False,
    blocks: int = 1,
    *,
    max_steps: Optional[int] = None,
    full: bool = False,
    threads: Optional[int] = None,
    ranks: int = 1,
    peers: Optional[Mapping[str, Union[str, int]]] = None,
    sync_check: Literal["auto", "always", "never"] = "auto",
    seed: Optional[int] = None,
    insert_sync: bool = False,
    timeline: Literal[False] = False,
    cost_model: Literal["pto", "pto-isa"] = "pto",
) -> Dict[str, npt.NDArray[Any]]: ...


@overload
def run(
    module: Module,
    target: Optional[Target] = None,
    inputs: Optional[Mapping[str, ArrayLike]] = None,
    outputs: Optional[Sequence[str]] = None,
    exec: Literal["tile", "vector"] = "tile",
    default_inputs: bool = False,
    blocks: int = 1,
    *,
    max_steps: Optional[int] = None,
    full: bool = False,
    threads: Optional[int] = None,
    ranks: int = 1,
    peers: Optional[Mapping[str, Union[str, int]]] = None,
    sync_check: Literal["auto", "always", "never"] = "auto",
    seed: Optional[int] = None,
    insert_sync: bool = False,
    timeline: Literal[True],
    cost_model: Literal["pto", "pto-isa"] = "pto",
) -> Tuple[Dict[str, npt.NDArray[Any]], Timeline]: ...


def run(
    module: Module,
    target: Optional[Target] = None,
    inputs: Optional[Mapping[str, ArrayLike]] = None,
    outputs: Optional[Sequence[str]] = None,
    exec: Literal["tile", "vector"] = "tile",
    default_inputs: bool = False,
    blocks: int = 1,
    *,
    max_steps: Optional[int] = None,
    full: bool = False,
    threads: Optional[int] = None,
    ranks: int = 1,
    peers: Optional[Mapping[str, Union[str, int]]] = None,
    sync_check: Literal["auto", "always", "never"] = "auto",
    seed: Optional[int] = None,
    insert_sync: bool = False,
    timeline: bool = False,
    cost_model: Literal["pto", "pto-isa"] = "pto",
) -> Union[Dict[str, npt.NDArray[Any]], Tuple[Dict[str, npt.NDArray[Any]], Timeline]]:
    """``pto run``: lower ``module`` for ``target`` and execute it on the simulator.

    ``inputs`` maps kernel argument names (without ``%``) to numpy arrays (tile and GM
    pointer arguments: the argument's exact dtype, see ``dtype_of``; tiles 1-D or 2-D, of their
    capacity or valid shape, in logical row/column order whatever the layout) or numbers
    (scalar arguments). ``default_inputs`` gives unbound arguments deterministic values.

    Returns every GM array the kernel wrote (in the bound array's shape; when it was not bound,
    in the shape of its tensor view: ``(rows, cols)`` of a row-major ``make_tensor_view``) and the tiles ``outputs`` names (default: every tile argument) as 2-D arrays of
    their valid region (``full=True``: whole capacity). The arrays own the simulator's buffers:
    no copy. ``exec="vector"`` runs the A2A3 vector programs (a2a3 only). ``blocks`` launches
    the kernel on that many blocks (``get_block_idx`` 0, 1, ..., ``get_block_num`` =
    ``blocks``), each on its own copy of the GM arrays, merged in block order, in parallel on
    ``threads`` threads (default: one per CPU; the result does not depend on it). A mix kernel
    (cube and vector functions, TPUSH/TPOP pipes) runs on the cube and vector cores of each
    block, as ``pto run`` does (docs/cores.md); ``full=True`` needs one core. Blocks
    accessing the same GM bytes without ``syncall`` (one of them writing) raise
    ``HazardError``, as below. ``ranks`` simulates that
    many devices for the ``comm.*`` instructions (``pto run --ranks``, docs/comm.md): every rank
    runs the kernel on its own GM arrays; an input named ``"x@2"`` binds rank 2 only (and wins
    over ``"x"``), outputs are named ``"x@RANK"`` when ``ranks > 1``, and ``peers`` maps a
    pointer argument to the rank its remote operand lives on (``"next"``, ``"prev"``,
    ``"local"`` or a rank number; default ``"local"``). What the kernel prints
    (``tprint``) goes to ``sys.stderr``. Raises ``SimTrap`` (and the lowering's errors).

    Synchronisation is checked as ``pto run --sync-check`` does (docs/sync.md), with the same
    verdicts: ``sync_check="auto"`` checks the orders between cores, blocks and ranks always
    and each core's pipes when the program has sync ops, ``"always"`` the pipes of every
    program, ``"never"`` nothing. A finding the CLI reports as an error raises
    ``HazardError`` (``HAZARD_*``), ``DeadlockError`` (``SYNC_DEADLOCK``) or ``SyncError``
    (other ``SYNC_*``); its warnings are ``RuntimeWarning``s. ``seed`` interleaves the cores
    at random from that seed (``--schedule random --seed``); default: in order.
    ``insert_sync=True`` runs the kernel as ``ptoas --enable-insert-sync`` compiles it
    (``pto run --insert-sync``): each function without a sync op gets the sync that
    ``pto lower --insert-sync`` inserts, so ``sync_check="always"`` checks that sync.

    ``timeline=True`` also times the run with the cycle model (``pto run --cycles --timeline``)
    and returns ``(outputs, Timeline)``: the summary and the Chrome trace, of every core of the
    run (a core waiting for another one's flag, slot or ``syncall`` waits in time too).
    ``cost_model="pto-isa"`` times it with pto-isa's lightweight A2A3 formulas where they have
    one (``pto run --cost-model pto-isa``, docs/performance-model.md); a ``RuntimeWarning``
    names the ops they have none for, which pto's model timed.
    """
    if exec not in ("tile", "vector"):
        raise ValueError(f'exec must be "tile" or "vector", not {exec!r}')
    if sync_check not in ("auto", "always", "never"):
        raise ValueError(f'sync_check must be "auto", "always" or "never", not {sync_check!r}')
    if cost_model not in ("pto", "pto-isa"):
        raise ValueError(f'cost_model must be "pto" or "pto-isa", not {cost_model!r}')
    if seed is not None and (not isinstance(seed, int) or not 0 <= seed < 2**64):
        raise ValueError(f"seed must be an integer from 0 to 2**64 - 1, not {seed!r}")
    if not isinstance(blocks, int) or not 1 <= blocks <= 65535:
        raise ValueError(f"blocks must be an integer from 1 to 65535, not {blocks!r}")
    if threads is not None and (not isinstance(threads, int) or not 1 <= threads <= 1024):
        raise ValueError(f"threads must be an integer from 1 to 1024, not {threads!r}")
    if not isinstance(ranks, int) or not 1 <= ranks <= 1024:
        raise ValueError(f"ranks must be an integer from 1 to 1024, not {ranks!r}")
    given = dict(inputs or {})
    shapes = {n.lstrip("%"): np.shape(v) for n, v in given.items() if isinstance(v, np.ndarray)}
    try:
        produced, printed, warned, timed = _native.run(
            module._m,
            target,
            list(given.items()),
            _convert,
            None if outputs is None else list(outputs),
            exec == "vector",
            default_inputs,
            max_steps,
            full,
            blocks,
            threads,
            ranks,
            [(arg, str(peer)) for arg, peer in (peers or {}).items()],
            sync_check,
            seed,
            bool(insert_sync),
            timeline,
            cost_model,
        )
    except _native.DiagnosticsError as e:
        raise _error(e) from None
    if printed:
        _sys.stderr.write(printed)
    for message in warned:
        _warnings.warn(message, RuntimeWarning, stacklevel=2)
    result: Dict[str, npt.NDArray[Any]] = {}
    for name, elem, rows, cols, raw in produced:
        arr = raw.view(_DTYPES[elem])
        shape = shapes.get(name, shapes.get(name.split("@", 1)[0]))
        if shape is not None and len(shape) != 2 and int(np.prod(shape)) == rows * cols and name not in result:
            result[name] = arr.reshape(shape)
        else:
            result[name] = arr.reshape(rows, cols)
    if timeline:
        if timed is None:
            raise RuntimeError("the run was not timed")
        summary, trace = timed
        return result, Timeline(_json.loads(summary), _json.loads(trace))
    return result


def __dir__() -> List[str]:
    """``dir(pto)``: the public API (``__all__``), not the modules and typing names it imports."""
    return sorted(__all__)
