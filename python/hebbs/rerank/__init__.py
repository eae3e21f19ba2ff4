"""Re-ranking of recall results: read the query and each candidate together, re-order the top.

- :class:`Reranker` -- the protocol: ``rerank(query, documents) -> scores`` (higher is better).
- :class:`LateInteractionReranker` -- token-level MaxSim over the bundled embedder's token
  vectors; offline, no extra model. With a :class:`TokenVectorCache` (int8, float16 or float32,
  keyed by memory id, int8 optionally persisted in the engine: ``store=hebbs``) candidates are
  not re-encoded at query time, also after a reopen.
- :class:`CrossEncoderReranker` -- an ONNX cross-encoder from files the user points to.
- :class:`HttpReranker` -- a client for hosted ``/rerank`` services.
- :func:`rerank_recall` -- applies any of them to the fused top-N of a ``RecallOutput``.
- :func:`contextual_rerank` -- the same, plus graph neighbours, the entity and the time the cue
  names (:class:`ContextSignals`).
"""

from __future__ import annotations

from .apply import RerankedRecall, RerankedResult, rerank_recall
from .constants import (
    DEFAULT_CACHE_DTYPE,
    DEFAULT_CROSS_ENCODER_BATCH_SIZE,
    DEFAULT_CROSS_ENCODER_MAX_LENGTH,
    DEFAULT_HTTP_TIMEOUT_S,
    DEFAULT_QUERY_WEIGHTING,
    DEFAULT_RERANK_TOP_N,
    IDF_MATCH_THRESHOLD,
    MAX_RERANK_TOP_N,
    CacheDtype,
    QueryWeighting,
)
from .contextual import ContextSignals, contextual_rerank
from .cross_encoder import CrossEncoderReranker
from .http_reranker import HttpReranker
from .late_interaction import LateInteractionReranker, maxsim_scores
from .protocol import MemoryReranker, Reranker
from .token_cache import TokenVectorCache, TokenVectorStore

__all__ = [
    "DEFAULT_CACHE_DTYPE",
    "DEFAULT_CROSS_ENCODER_BATCH_SIZE",
    "DEFAULT_CROSS_ENCODER_MAX_LENGTH",
    "DEFAULT_HTTP_TIMEOUT_S",
    "DEFAULT_QUERY_WEIGHTING",
    "DEFAULT_RERANK_TOP_N",
    "IDF_MATCH_THRESHOLD",
    "MAX_RERANK_TOP_N",
    "CacheDtype",
    "ContextSignals",
    "CrossEncoderReranker",
    "HttpReranker",
    "LateInteractionReranker",
    "MemoryReranker",
    "QueryWeighting",
    "RerankedRecall",
    "RerankedResult",
    "Reranker",
    "TokenVectorCache",
    "TokenVectorStore",
    "contextual_rerank",
    "maxsim_scores",
    "rerank_recall",
]
