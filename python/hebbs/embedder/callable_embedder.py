"""``CallableEmbedder``: adapts a user function ``list[str] -> [n, d] array`` to ``Embedder``.

Owns validation of what the function returns (shape, dtype, finiteness) and its conversion to
the contract every hebbs embedder keeps: float32, C-contiguous, unit-norm rows.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Callable

import numpy as np
from numpy.typing import NDArray

from ._arrays import check_texts, empty_matrix, l2_normalize
from .constants import DIMENSION_PROBE_TEXT
from .protocol import Embedder

EmbedFunction = Callable[[list[str]], Any]

_MAX_LISTED_ROWS = 5
_MATRIX_RANK = 2


class CallableEmbedder(Embedder):
    """Wraps ``fn(texts: list[str]) -> array-like [len(texts), d]`` as an :class:`Embedder`.

    Every result is checked: it must be a 2-D array of real numbers with one row per text and
    ``dimension`` columns, all finite, no row all zeros; a breach raises ``ValueError`` naming
    it. Rows are then L2-normalised and returned as C-contiguous float32.

    If ``dimension`` is not given it is learned from the first call. Reading ``dimension``
    before any call makes one probe call with a single short text.
    """

    def __init__(self, fn: EmbedFunction, dimension: int | None = None) -> None:
        if not callable(fn):
            raise TypeError(f"fn must be callable, got {type(fn).__name__}")
        if dimension is not None and dimension < 1:
            raise ValueError(f"dimension must be at least 1, got {dimension}")
        self.fn = fn
        self._dimension = dimension
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        name = getattr(self.fn, "__qualname__", type(self.fn).__name__)
        return f"CallableEmbedder({name}, dimension={self._dimension})"

    # The protocol's plain ``dimension: int`` becomes a read-only property here, because it
    # may have to be learned first; mypy sees that as an override of a settable attribute.
    @property
    def dimension(self) -> int:  # type: ignore[override]
        """Vector dimension, given or learned from the first result."""
        dimension = self._dimension
        if dimension is None:
            dimension = int(self.embed([DIMENSION_PROBE_TEXT]).shape[1])
        return dimension

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Call ``fn`` on ``texts`` and return its checked, normalised result."""
        batch = check_texts(texts)
        if not batch:
            return empty_matrix(self.dimension)
        matrix = self._validate(self.fn(batch), len(batch))
        return l2_normalize(matrix)

    def _validate(self, result: object, count: int) -> NDArray[np.float64]:
        try:
            array = np.asarray(result)
        except ValueError as exc:
            raise ValueError(
                f"embedding function returned a ragged or invalid array: {exc}"
            ) from exc
        if array.dtype.kind not in "fiu":
            raise ValueError(
                f"embedding function must return real numbers, got dtype {array.dtype}"
            )
        if array.ndim != _MATRIX_RANK:
            raise ValueError(
                f"embedding function must return a 2-D array [texts, dimension], "
                f"got {array.ndim}-D shape {array.shape}"
            )
        rows, columns = array.shape
        if rows != count:
            raise ValueError(f"embedding function returned {rows} rows for {count} texts")
        if columns == 0:
            raise ValueError("embedding function returned vectors of dimension 0")
        with self._lock:
            if self._dimension is None:
                self._dimension = columns
        if columns != self._dimension:
            raise ValueError(
                f"embedding function returned dimension {columns}, expected {self._dimension}"
            )
        matrix = array.astype(np.float64)
        bad = np.flatnonzero(~np.isfinite(matrix).all(axis=1))
        if bad.size:
            raise ValueError(f"embedding function returned NaN or infinity in rows {_rows(bad)}")
        zero = np.flatnonzero(~matrix.any(axis=1))
        if zero.size:
            raise ValueError(f"embedding function returned all-zero vectors in rows {_rows(zero)}")
        return matrix


def _rows(indices: NDArray[np.intp]) -> str:
    listed = ", ".join(str(int(i)) for i in indices[:_MAX_LISTED_ROWS])
    more = indices.size - _MAX_LISTED_ROWS
    return f"{listed} (and {more} more)" if more > 0 else listed
