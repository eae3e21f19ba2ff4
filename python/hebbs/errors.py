"""The exception hierarchy: every hebbs error derives from :class:`HebbsError`.

The engine's errors are defined by the native module, one class per core error variant; an
invalid input is an :class:`InvalidValueError` (also a ``ValueError``) or, for a value of the
wrong type, an :class:`InvalidTypeError` (also a ``TypeError``), both ``InvalidInputError``s;
:class:`EmbeddingError` is raised by the Python layer when an embedder fails, :class:`RerankError`
when a re-ranker (ONNX cross-encoder, HTTP service) fails or answers with something unusable.
"""

from __future__ import annotations

from hebbs._native import (
    ClosedError,
    CorruptionError,
    HebbsError,
    HebbsIOError,
    IndexError,
    InvalidInputError,
    InvalidTypeError,
    InvalidValueError,
    NotFoundError,
    StorageError,
    TextIndexError,
)


class EmbeddingError(HebbsError):
    """The embedder failed or returned vectors of the wrong shape."""


class RerankError(HebbsError):
    """A re-ranker failed: its model could not be loaded or run, or a re-rank service answered
    with an HTTP error, timed out, or sent a body that is not the expected shape.

    ``status`` is the HTTP status when the service answered with one, else None.
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


__all__ = [
    "ClosedError",
    "CorruptionError",
    "EmbeddingError",
    "HebbsError",
    "HebbsIOError",
    "IndexError",
    "InvalidInputError",
    "InvalidTypeError",
    "InvalidValueError",
    "NotFoundError",
    "RerankError",
    "StorageError",
    "TextIndexError",
]
