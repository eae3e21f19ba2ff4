"""Shared fixtures: a fresh store per test, on the bundled embedder (loaded once per session)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import hebbs
from hebbs.embedder import Embedder, default_embedder


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return default_embedder()


@pytest.fixture
def mem(tmp_path: Path, embedder: Embedder) -> Iterator[hebbs.Hebbs]:
    with hebbs.Hebbs.open(tmp_path / "db", embedder=embedder) as engine:
        yield engine
