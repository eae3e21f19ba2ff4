"""Input checks and array helpers shared by the embedders (text lists, L2 normalisation)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import NDArray


def check_texts(texts: Sequence[str]) -> list[str]:
    """Return ``texts`` as a list, raising ``TypeError`` unless it is a sequence of ``str``.

    A bare ``str`` is refused: iterating it would embed one character per row.
    """
    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be a sequence of str, not a single string; wrap it in a list")
    out = list(texts)
    for i, text in enumerate(out):
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}] is {type(text).__name__}, expected str")
    return out


def l2_normalize(x: NDArray[np.floating], eps: float = 1e-12) -> NDArray[np.float32]:
    """Return the rows of 2-D ``x`` scaled to unit L2 norm, as C-contiguous float32.

    Rows whose norm is below ``eps`` are left (near) zero rather than divided by zero.
    """
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    out = x / np.maximum(norms, eps)
    return np.ascontiguousarray(out, dtype=np.float32)


def empty_matrix(dimension: int) -> NDArray[np.float32]:
    """A ``(0, dimension)`` float32 array, the result of embedding no text."""
    return np.zeros((0, dimension), dtype=np.float32)
