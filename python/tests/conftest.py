"""Shared paths for the pto package's tests, and a way to start Python as a user would."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def run_python(*args: str) -> "subprocess.CompletedProcess[str]":
    """``python ARGS`` in the repository root: never in python/, where ``./pto`` (the source
    package, without its compiled ``_native``) would shadow the installed package and fail with
    a partial-import error, as it did when ``pytest`` ran from python/."""
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=REPO)


@pytest.fixture
def examples() -> Path:
    return EXAMPLES
