"""The Python examples of README.md and docs/python.md run as written (from the repository root)."""

import os
import re
from pathlib import Path
from typing import List

import pytest

from conftest import REPO


def python_blocks(path: Path) -> List[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


@pytest.mark.parametrize("doc", ["README.md", "docs/python.md"])
def test_doc_examples_run(doc: str, capsys: pytest.CaptureFixture[str]) -> None:
    blocks = python_blocks(REPO / doc)
    assert blocks, f"{doc} has a python example"
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        for code in blocks:
            exec(compile(code, doc, "exec"), {})
    finally:
        os.chdir(cwd)
    if doc == "README.md":
        assert "pto.alloc_tile addr = " in capsys.readouterr().out
