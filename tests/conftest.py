"""Shared fixtures: a fresh store per test, on the bundled embedder (loaded once per session):
``mem`` (embedded only) and ``store`` (embedded, then remote: see ``remote.py``), and
:func:`word_hash_embed`, a small deterministic embedder for the server tests."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

import hebbs
from cluster_support import test_cluster
from grpc_calls import grpc_caller, grpc_server
from hebbs.embedder import Embedder, default_embedder
from remote import EMBEDDED_ONLY, hebbs_server, register_marker, remote_key, store

#: The fixtures of ``remote.py``, ``grpc_calls.py`` and ``cluster_support.py``, found by pytest
#: as names of this module.
__all__ = ["grpc_caller", "grpc_server", "hebbs_server", "remote_key", "store", "test_cluster"]


def pytest_configure(config: pytest.Config) -> None:
    register_marker(config)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test marked embedded-only that takes ``store`` would run remotely all the same."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if item.get_closest_marker(EMBEDDED_ONLY) is not None and "store" in fixtures:
            raise pytest.UsageError(f"{item.nodeid} is {EMBEDDED_ONLY} but takes `store`")


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return default_embedder()


@pytest.fixture
def mem(tmp_path: Path, embedder: Embedder) -> Iterator[hebbs.Hebbs]:
    with hebbs.Hebbs.open(tmp_path / "db", embedder=embedder) as engine:
        yield engine


#: Dimension of :func:`word_hash_embed`.
HASH_DIM = 64


def word_hash_embed(texts: list[str], dim: int = HASH_DIM) -> np.ndarray:
    """A small deterministic embedder: each word adds 1 at a position its hash picks, rows
    normalised. Texts that share words are similar; no model is loaded. ``dim`` is its
    dimension (a suite that hands in vectors of its own needs the store at theirs)."""
    out = np.zeros((len(texts), dim), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in text.lower().split():
            digest = hashlib.blake2b(word.strip(".,?!").encode(), digest_size=4).digest()
            out[row, int.from_bytes(digest, "little") % dim] += 1.0
        norm = float(np.linalg.norm(out[row]))
        if norm == 0.0:
            out[row, 0] = 1.0
        else:
            out[row] /= norm
    return out


@pytest.fixture(scope="session")
def hash_embed() -> Callable[[list[str]], np.ndarray]:
    return word_hash_embed
