"""Type stubs of the Rust extension module (python/src/lib.rs). Use the package ``pto``."""

from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

class DiagnosticsError(Exception):
    """``args``: (the diagnostics rendered like the CLI, the diagnostics as dicts)."""

class Module:
    @property
    def name(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def level(self) -> int: ...
    @property
    def ops(self) -> List[str]: ...
    @property
    def warnings(self) -> List[Any]: ...
    def render_warnings(self) -> str: ...
    def text(self, form: Optional[str] = None, generic: bool = False) -> str: ...

def parse(text: str, name: str) -> Module: ...
def verify(module: Module, target: Optional[str] = None, explain: bool = False) -> List[Any]: ...
def lower(module: Module, target: Optional[str] = None, stop_after: Optional[str] = None, emit: str = "dps") -> Any: ...
def memory_map(module: Module, target: Optional[str] = None) -> str: ...
def ops_json() -> str: ...
def element_types() -> List[Tuple[str, int]]: ...
def run(
    module: Module,
    target: Optional[str],
    inputs: Sequence[Tuple[str, Any]],
    convert: Callable[[str, Any, str, str], Any],
    outputs: Optional[Sequence[str]] = None,
    exec_vector: bool = False,
    default_inputs: bool = False,
    max_steps: Optional[int] = None,
    full: bool = False,
    blocks: int = 1,
    threads: Optional[int] = None,
    ranks: int = 1,
    peers: Sequence[Tuple[str, str]] = (),
    sync_check: str = "auto",
    seed: Optional[int] = None,
    insert_sync: bool = False,
    timeline: bool = False,
    cost_model: str = "pto",
) -> Tuple[List[Tuple[str, str, int, int, npt.NDArray[np.uint8]]], str, List[str], Optional[Tuple[str, str]]]: ...
def rust_api_run_seconds(module: Module, target: str, inputs: Sequence[Tuple[str, bytes, int, int]], iterations: int) -> float: ...
