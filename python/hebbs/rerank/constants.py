"""Named defaults of the re-ranking package, defined once and imported everywhere else.

Nothing here imports onnxruntime or tokenizers: reading a constant stays cheap.
"""

from __future__ import annotations

from typing import Final, Literal

#: How many of the fused results a re-ranker re-orders when not told otherwise. Results past
#: this keep their fused order behind the re-ranked ones.
DEFAULT_RERANK_TOP_N: Final = 50
#: Largest ``top_n`` accepted: re-ranking is per-candidate work at query time.
MAX_RERANK_TOP_N: Final = 1000

#: How a late-interaction score weighs the query tokens: all alike (the mean of their best
#: matches), or by an inverse document frequency among the documents of the call, so that a
#: token most candidates match well (a name every turn carries, "did") counts less than a rare
#: one. IDF needs no corpus statistics: a document "contains" a query token when its best
#: match reaches IDF_MATCH_THRESHOLD.
QueryWeighting = Literal["uniform", "idf"]
QUERY_WEIGHTINGS: Final[tuple[QueryWeighting, ...]] = ("uniform", "idf")
DEFAULT_QUERY_WEIGHTING: Final[QueryWeighting] = "uniform"
#: Cosine at which a document token counts as the same word as a query token, for IDF. On
#: LoCoMo 0.8 / 0.85 / 0.9 gave recall@10 0.701 / 0.708 / 0.706 (re-ranking the RRF top-150).
IDF_MATCH_THRESHOLD: Final = 0.9

#: Storage of cached per-token vectors: int8 with one float32 scale per token (about a quarter
#: of float32), float16 (half), or float32 (exact).
CacheDtype = Literal["int8", "float16", "float32"]
CACHE_DTYPES: Final[tuple[CacheDtype, ...]] = ("int8", "float16", "float32")
DEFAULT_CACHE_DTYPE: Final[CacheDtype] = "int8"

#: Pair budget of a cross-encoder (query + document + special tokens), the usual BERT limit.
DEFAULT_CROSS_ENCODER_MAX_LENGTH: Final = 512
#: Query-document pairs per ONNX run of a cross-encoder.
DEFAULT_CROSS_ENCODER_BATCH_SIZE: Final = 16

#: Seconds an HTTP re-rank request may take before it fails with RerankError.
DEFAULT_HTTP_TIMEOUT_S: Final = 30.0
#: Characters of an error response body quoted in the exception message.
HTTP_ERROR_BODY_PREVIEW: Final = 300

#: Length of a memory id in bytes (a UUIDv7), the key of the token-vector cache.
MEMORY_ID_BYTES: Final = 16
