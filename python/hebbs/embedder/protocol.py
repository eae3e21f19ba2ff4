"""The :class:`Embedder` protocol: what hebbs asks of anything that turns text into vectors.

Its annotations are importable at run time, so ``typing.get_type_hints`` works on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors of a fixed dimension.

    ``embed`` is used for the texts that are stored, ``embed_query`` for the texts that are
    searched with; they differ only for models trained with query/document prefixes. A class
    that subclasses ``Embedder`` explicitly inherits ``embed_query = embed``; a class matched
    structurally must define all three members.
    """

    dimension: int

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Return a C-contiguous float32 array of shape ``[len(texts), dimension]`` whose rows
        have L2 norm 1, row ``i`` being the vector of ``texts[i]``."""
        ...

    def embed_query(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Like :meth:`embed`, for texts used as search queries."""
        return self.embed(texts)
