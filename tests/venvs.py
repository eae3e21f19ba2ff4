"""Virtual environments of their own for packages a test runs but hebbs does not import (the
reference HEBBS SDK, whose import name is ours; chromadb, too large for the test extra; AutoGen,
which pins a protobuf older than ours):
created from PyPI by the test when missing, kept between runs under ``~/.cache``."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

#: Seconds creating an environment and installing its package may take.
INSTALL_TIMEOUT_S = 900


def cached_venv(path: Path, requirement: str | Sequence[str], probe: str) -> Path:
    """The interpreter of the environment at ``path``, where the code ``probe`` runs; created
    (``python -m venv``, then ``pip install`` of the requirement or requirements) when it is
    missing or the probe fails."""
    requirements = [requirement] if isinstance(requirement, str) else list(requirement)
    python = path / "bin" / "python"
    check = [str(python), "-c", probe]
    if python.exists() and subprocess.run(check, capture_output=True, check=False).returncode == 0:
        return python
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(path)], check=True)
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", *requirements],
        check=True,
        timeout=INSTALL_TIMEOUT_S,
    )
    subprocess.run(check, check=True, capture_output=True)
    return python
