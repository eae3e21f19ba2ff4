"""The exception hierarchy: every hebbs error derives from :class:`HebbsError`.

The engine's errors are defined by the native module, one class per core error variant;
:class:`EmbeddingError` is raised by the Python layer when an embedder fails.
"""

from __future__ import annotations

from hebbs._native import (
    ClosedError,
    CorruptionError,
    HebbsError,
    HebbsIOError,
    IndexError,
    InvalidInputError,
    NotFoundError,
    StorageError,
    TextIndexError,
)


class EmbeddingError(HebbsError):
    """The embedder failed or returned vectors of the wrong shape."""


__all__ = [
    "ClosedError",
    "CorruptionError",
    "EmbeddingError",
    "HebbsError",
    "HebbsIOError",
    "IndexError",
    "InvalidInputError",
    "NotFoundError",
    "StorageError",
    "TextIndexError",
]
