"""Bounded runs of ``scripts/fault_injection.py`` (kill -9 at random points of writes,
revisions, forgets, optimize, checkpoints and the open's index rebuild, then every promise
checked) and of ``scripts/soak.py`` (every operation at once under a watchdog), and a check that
their checker does catch a broken promise. The on-demand run is
``python scripts/fault_injection.py --iterations 1000``; its figures are in
docs/durability.md."""

from __future__ import annotations

import importlib.util
import random
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import hebbs

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
SCRIPT = SCRIPTS / "fault_injection.py"
#: Seconds of the CI soak (the on-demand run is ``python scripts/soak.py --seconds 600``).
SOAK_SECONDS = 5
#: Iterations CI runs; seed 7 kills in the open (after a deleted checkpoint) and at work.
ITERATIONS = 5
SEED = 7


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fault_injection", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_kills_lose_nothing(tmp_path: Path) -> None:
    run = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--iterations",
            str(ITERATIONS),
            "--seed",
            str(SEED),
            "--dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{ITERATIONS} kills in" in run.stdout
    assert "nothing lost" in run.stdout
    assert run.stdout.count("killed during") == ITERATIONS


def test_the_checker_catches_a_lost_memory_and_a_resurrection(tmp_path: Path) -> None:
    faults = load_script()
    model = faults.Model()
    with hebbs.Hebbs.open(tmp_path / "db") as mem:
        kept = mem.remember(faults.content(1), embedding=faults.vector(1), entity_id="e1")
        gone = mem.remember(faults.content(2), embedding=faults.vector(2), entity_id="e2")
        model.live = {kept.id.hex(): 1, gone.id.hex(): 2}
        faults.verify(model, mem, random.Random(0), 10)
        mem.forget(ids=[gone.id])
        with pytest.raises(faults.Broken, match="is lost"):
            faults.verify(model, mem, random.Random(0), 10)
        model.live.pop(gone.id.hex())
        model.forgotten = {gone.id.hex(): 2, kept.id.hex(): 1}
        model.live = {}
        with pytest.raises(faults.Broken, match="came back"):
            faults.verify(model, mem, random.Random(0), 10)


def test_a_short_soak_keeps_every_promise() -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPTS / "soak.py"), "--seconds", str(SOAK_SECONDS)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "nothing lost" in run.stdout
    assert "no stall" in run.stdout
