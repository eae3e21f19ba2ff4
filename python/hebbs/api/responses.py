"""The JSON form of every result type: what the server sends and the client reads.

Each result type has one encoder, its own ``to_dict`` (the binding's for the native types,
:mod:`hebbs.reflect.results`' and :mod:`hebbs.consolidate.contradictions`' for theirs): an object
with every public property by its name, ids as 32 lowercase hex digits, :class:`EdgeType` and
:class:`MemoryKind` as their ``.value``, numpy arrays as lists of floats (or null), nested types
recursively. :func:`wire` applies it to an operation's result; the client reads it back with
the types' ``from_dict``. One pydantic model per type (``MemoryOut``, ...) describes it for the
OpenAPI document and lets a test or a client check a body (``extra="forbid"``: a field an
encoder adds must be added to its model too). ``ErrorOut`` is the body of every failure.
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict

#: A JSON object as the encoders build it.
JsonObject = dict[str, Any]


class Out(BaseModel):
    """The base of the response models: every field is required, unknown fields refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class MemoryOut(Out):
    id: str
    id_hex: str
    content: str
    importance: float
    context: dict[str, Any]
    entity_id: Optional[str]
    created_at: int
    updated_at: int
    last_accessed_at: int
    access_count: int
    decay_score: float
    kind: str
    superseded: bool
    key: Optional[str] = None
    embedding: Optional[list[float]]


class StrategyDetailOut(Out):
    strategy: str
    relevance: float
    distance: Optional[float]
    timestamp: Optional[int]
    rank: Optional[int]
    depth: Optional[int]
    embedding_similarity: Optional[float]
    structural_similarity: Optional[float]
    dense_score: Optional[float]
    bm25_score: Optional[float]
    rrf_score: Optional[float]
    late_interaction_score: Optional[float] = None
    rerank_score: Optional[float] = None


class EdgeOut(Out):
    target: str
    edge_type: str
    confidence: float


class ExpansionEdgeOut(Out):
    edge_type: str
    direction: str
    confidence: float
    preview: str
    neighbor_id: str


class RecallResultOut(Out):
    memory: MemoryOut
    score: float
    strategy_details: list[StrategyDetailOut]
    expansion_context: list[ExpansionEdgeOut]
    scores: dict[str, float]


class StrategyErrorOut(Out):
    strategy: str
    message: str
    field: Optional[str]


class RecallOutputOut(Out):
    results: list[RecallResultOut]
    strategy_errors: list[StrategyErrorOut]
    below_threshold: int
    organization_memory: Optional[RecallOutputOut]


class CountOut(Out):
    count: int


class MemoryPageOut(Out):
    memories: list[MemoryOut]
    next_cursor: Optional[str]


class PrimeOutputOut(Out):
    results: list[RecallResultOut]
    temporal_count: int
    similarity_count: int


class ForgetResultOut(Out):
    forgotten_count: int
    cascade_count: int
    tombstone_count: int
    truncated: bool


class TombstoneOut(Out):
    id: str
    id_hex: str
    entity_id: Optional[str]
    kind: str
    created_at: int
    forgotten_at: int
    content_sha256: str


class HealthStatusOut(Out):
    serving: bool
    version: str
    memory_count: int
    uptime_seconds: int


class ErrorOut(Out):
    """Every failure's body: the snake_case kind, a message, and the input it names (or null)."""

    error_code: str
    message: str
    field: Optional[str]


class SubscribePushOut(Out):
    subscription_id: int
    memory: MemoryOut
    confidence: float
    push_timestamp_us: int
    sequence_number: int


class ContradictionOut(Out):
    older: MemoryOut
    newer: MemoryOut
    similarity: float
    reason: str


class ReflectResultOut(Out):
    insights_created: int
    clusters_found: int
    clusters_processed: int
    memories_processed: int


class InsightOut(Out):
    memory: MemoryOut
    confidence: float
    source_ids: list[str]
    stale: bool


class PreparedClusterOut(Out):
    index: int
    memories: list[MemoryOut]
    system: str
    prompt: str


class ReflectSessionOut(Out):
    session_id: str
    expires_at: int
    entity_id: Optional[str]
    clusters: list[PreparedClusterOut]
    memories_processed: int


class CommitResultOut(Out):
    insights_created: int
    insights: list[MemoryOut]


def wire(result: Any) -> Any:
    """The JSON form of an operation's result: its type's ``to_dict``, a list item by item,
    None as null."""
    if result is None:
        return None
    if isinstance(result, list):
        return [wire(item) for item in result]
    return result.to_dict()


__all__ = [
    "CountOut",
    "EdgeOut",
    "ErrorOut",
    "ExpansionEdgeOut",
    "ForgetResultOut",
    "HealthStatusOut",
    "JsonObject",
    "MemoryOut",
    "MemoryPageOut",
    "PrimeOutputOut",
    "RecallOutputOut",
    "RecallResultOut",
    "StrategyDetailOut",
    "StrategyErrorOut",
    "SubscribePushOut",
    "TombstoneOut",
    "wire",
]
