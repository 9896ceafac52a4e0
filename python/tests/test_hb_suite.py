"""The cross-core, cross-block and cross-rank hazard suite (tests/hb) through ``pto.run``: every
kernel gets the verdict the CLI gives (tests/hb_suite.rs asserts it for ``pto run`` and
``pto verify --sync``), and every correct kernel computes its numpy reference exactly under
several schedules."""

import importlib.util
import json
from typing import Any, Dict, List, Tuple, Type

import numpy as np
import pytest

import pto
from conftest import REPO

SUITE = REPO / "tests" / "hb"
MANIFEST: List[Dict[str, Any]] = json.loads((SUITE / "manifest.json").read_text())

_spec = importlib.util.spec_from_file_location("hb_reference", SUITE / "reference.py")
assert _spec is not None and _spec.loader is not None
reference: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)

CASES = [(e, t) for e in MANIFEST for t in e["targets"]]


def _ids(case: Tuple[Dict[str, Any], str]) -> str:
    return f"{case[0]['file'][:-4]}-{case[1]}"


def _launch(args: List[str]) -> Tuple[Dict[str, Any], Dict[str, float]]:
    """``pto run`` flags of the manifest as ``pto.run`` keywords, and its scalar inputs."""
    kwargs: Dict[str, Any] = {}
    scalars: Dict[str, float] = {}
    peers: Dict[str, str] = {}
    it = iter(args)
    for flag in it:
        value = next(it)
        if flag == "--blocks":
            kwargs["blocks"] = int(value)
        elif flag == "--ranks":
            kwargs["ranks"] = int(value)
        elif flag == "--peer":
            arg, peer = value.split("=", 1)
            peers[arg] = peer
        elif flag in ("-i", "--input"):
            name, number = value.split("=", 1)
            scalars[name] = float(number)
        else:
            raise AssertionError(f"unexpected flag {flag}")
    if peers:
        kwargs["peers"] = peers
    return kwargs, scalars


def _expected_error(entry: Dict[str, Any]) -> Type[pto.PtoError]:
    expect = entry["expect"].removeprefix("error:")
    if expect.startswith("HAZARD_"):
        return pto.HazardError
    if expect == "SYNC_DEADLOCK":
        return pto.DeadlockError
    if expect.startswith("SYNC_"):
        return pto.SyncError
    if expect.startswith("SIM_"):
        return pto.SimTrap
    if expect.startswith("LEGAL_"):
        return pto.LegalityError
    return pto.VerifyError


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_pto_run_gives_the_suites_verdict(case: Tuple[Dict[str, Any], str]) -> None:
    entry, target = case
    module = pto.parse(SUITE / entry["file"])
    kwargs, scalars = _launch(entry["args"])
    accepted = {entry["expect"].removeprefix("error:"), *entry.get("accept", [])}
    if entry["expect"] == "ok":
        stem = entry["file"][:-4]
        inputs: Dict[str, Any] = dict(reference.make_inputs(stem, 0))
        inputs.update(scalars)
        want = reference.__dict__[stem](dict(inputs))
        for seed in (None, 1, 2):
            out = pto.run(module, target, inputs, sync_check="always", seed=seed, **kwargs)
            for name, expected in want.items():
                got = out[name].reshape(np.shape(expected))
                assert np.array_equal(got, expected), f"{name} (seed {seed})"
    else:
        with pytest.raises(_expected_error(entry)) as raised:
            pto.run(module, target, dict(scalars), default_inputs=True, sync_check="always", **kwargs)
        assert raised.value.classes[0] in accepted, raised.value.classes


def test_auto_checks_across_cores_but_never_checks_nothing() -> None:
    """The default ``sync_check="auto"`` finds a race between cores in a kernel without pipe
    sync ops; ``"never"`` runs it without a report, as ``--sync-check=never`` does."""
    module = pto.parse(SUITE / "blocks_same_value_waw.pto")
    with pytest.raises(pto.HazardError):
        pto.run(module, "a2a3", default_inputs=True, blocks=2)
    out = pto.run(module, "a2a3", default_inputs=True, blocks=2, sync_check="never")
    assert out
    with pytest.raises(ValueError, match="sync_check"):
        pto.run(module, "a2a3", default_inputs=True, sync_check="sometimes")  # type: ignore[arg-type]
