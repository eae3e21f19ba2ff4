"""The systems and their workers: which interpreter runs each (hebbs and hnswlib this one;
chromadb and lancedb their own virtual environments under ``~/.cache``, created from PyPI when
missing, since both are too heavy for the project's extras), and running one phase of one
worker at one size. Each phase's figures are kept as JSON in the work directory, so a run that
stopped (or a rerun with more sizes) repeats only what is missing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.venvs import cached_venv

WORKERS = Path(__file__).resolve().parent / "workers"
#: The chromadb the peer runs (the one tests/test_chroma.py installs, in the same environment).
CHROMADB = "chromadb>=1.5,<2"
CHROMA_VENV = Path(
    os.environ.get("HEBBS_CHROMA_VENV", Path.home() / ".cache" / "hebbs-chroma-venv")
)
LANCEDB = "lancedb==0.40.0"
LANCEDB_VENV = Path(
    os.environ.get("HEBBS_LANCEDB_VENV", Path.home() / ".cache" / "hebbs-lancedb-venv")
)
#: A worker's phases in order: ingest, the timed queries, then the fresh-process probe.
PHASES = ("build", "search", "probe")


@dataclass(frozen=True)
class System:
    """One system under test: its name in the report, its worker, its interpreter, and whether
    its build goes on from a partial store (else a partial store is removed first)."""

    name: str
    worker: str
    interpreter: Callable[[], str]
    resumable: bool = False


def this_python() -> str:
    return sys.executable


SYSTEMS = {
    "hebbs": System("hebbs", "hebbs_worker.py", this_python, resumable=True),
    "hnswlib": System("hnswlib", "hnswlib_worker.py", this_python),
    "chroma": System(
        "chroma",
        "chroma_worker.py",
        lambda: str(cached_venv(CHROMA_VENV, CHROMADB, "import chromadb")),
    ),
    "lancedb": System(
        "lancedb",
        "lancedb_worker.py",
        lambda: str(cached_venv(LANCEDB_VENV, LANCEDB, "import lancedb")),
    ),
}
#: The peers ``--peers`` may name (hebbs always runs).
PEERS = tuple(name for name in SYSTEMS if name != "hebbs")


def run_system(
    system: System,
    size_dir: Path,
    dataset: dict[str, str],
    batch: int,
    redo: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Every phase of ``system`` at one size (those whose figures are not kept yet, and those
    named in ``redo``), and the figures of all three."""
    folder = size_dir / system.name
    folder.mkdir(parents=True, exist_ok=True)
    for phase in redo:
        (folder / f"{phase}.json").unlink(missing_ok=True)
    if "build" in redo:
        shutil.rmtree(folder / "store", ignore_errors=True)
    store = folder / "store"
    job = folder / "job.json"
    job.write_text(json.dumps({**dataset, "store": str(store), "batch": batch}), encoding="utf-8")
    figures: dict[str, Any] = {}
    python: str | None = None
    for phase in PHASES:
        out = folder / f"{phase}.json"
        if not out.exists():
            if phase == "build":
                if not system.resumable:
                    shutil.rmtree(store, ignore_errors=True)
                for later in PHASES[1:]:
                    (folder / f"{later}.json").unlink(missing_ok=True)
            python = python or system.interpreter()
            env = {**os.environ, "PYTHONUNBUFFERED": "1", "LANCE_LOG": "error"}
            command = [python, str(WORKERS / system.worker), phase, str(job), str(out) + ".part"]
            subprocess.run(command, check=True, env=env)
            Path(str(out) + ".part").rename(out)
        figures[phase] = json.loads(out.read_text(encoding="utf-8"))
    return figures
