"""Shared paths for the pto package's tests."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


@pytest.fixture
def examples() -> Path:
    return EXAMPLES
