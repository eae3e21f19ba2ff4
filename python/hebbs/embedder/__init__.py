"""Text embedding for hebbs: the ``Embedder`` protocol and its implementations.

- :func:`default_embedder` -- all-MiniLM-L6-v2 (384-d, int8 ONNX) that the install brings;
  nothing is downloaded at run time.
- :class:`OnnxEmbedder` -- any BERT-style encoder exported to ONNX, with its ``tokenizer.json``.
- :class:`CallableEmbedder` -- wraps a user function ``list[str] -> [n, d] array``.
- :class:`BatchingEmbedder` -- wraps an embedder so that concurrent threads' texts are embedded
  in one call (micro-batching; the REST server wraps its model with it).
- :func:`as_embedder` -- maps ``None`` / an ``Embedder`` / a callable to an ``Embedder``.

Every embedder returns float32, C-contiguous arrays with unit-norm rows.
"""

from __future__ import annotations

from .batching import BatchingEmbedder
from .bundled import bundled_model_path, bundled_tokenizer_path, default_embedder
from .callable_embedder import CallableEmbedder, EmbedFunction
from .constants import (
    BUNDLED_DIMENSION,
    BUNDLED_MODEL_ID,
    BUNDLED_MODEL_NAME,
    DEFAULT_BATCH_SIZE,
    DEFAULT_MAX_LENGTH,
    DEFAULT_POOLING,
    DEFAULT_SPIN,
    MAX_BATCH,
    MAX_WAIT_S,
)
from .dispatch import EmbedderLike, as_embedder
from .onnx_embedder import OnnxEmbedder, Pooling
from .protocol import Embedder

__all__ = [
    "BUNDLED_DIMENSION",
    "BUNDLED_MODEL_ID",
    "BUNDLED_MODEL_NAME",
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_MAX_LENGTH",
    "DEFAULT_POOLING",
    "DEFAULT_SPIN",
    "MAX_BATCH",
    "MAX_WAIT_S",
    "BatchingEmbedder",
    "CallableEmbedder",
    "EmbedFunction",
    "Embedder",
    "EmbedderLike",
    "OnnxEmbedder",
    "Pooling",
    "as_embedder",
    "bundled_model_path",
    "bundled_tokenizer_path",
    "default_embedder",
]
