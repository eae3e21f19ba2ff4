"""``as_embedder``: turns what a hebbs caller passes as ``embedder=`` into an ``Embedder``."""

from __future__ import annotations

from typing import Union

from .bundled import default_embedder
from .callable_embedder import CallableEmbedder, EmbedFunction
from .onnx_embedder import OnnxEmbedder
from .protocol import Embedder

EmbedderLike = Union[Embedder, EmbedFunction, None]


def as_embedder(obj: EmbedderLike) -> Embedder:
    """Return the :class:`Embedder` for ``obj``.

    ``None`` gives :func:`default_embedder`; an ``Embedder`` is returned as is; any other
    callable is wrapped in :class:`CallableEmbedder` (dimension learned from its first call).
    """
    if obj is None:
        return default_embedder()
    if isinstance(obj, (OnnxEmbedder, CallableEmbedder)):
        return obj
    if isinstance(obj, Embedder):
        return obj
    if callable(obj):
        return CallableEmbedder(obj)
    raise TypeError(
        f"expected None, an Embedder (dimension, embed, embed_query) or a callable "
        f"list[str] -> [n, d] array, got {type(obj).__name__}"
    )
