"""The JSON form of every result type: what the server sends and the client reads.

Each native type (``Memory``, ``RecallOutput``, ...) becomes an object with every public
property by its name: ids (``bytes``) as 32 lowercase hex digits, :class:`EdgeType` and
:class:`MemoryKind` as their ``.value``, numpy arrays as lists of floats (or null), nested types
recursively and lists as lists. One encoder per type (``encode_memory``, ...) builds the
JSON-ready dict; one pydantic model per type (``MemoryOut``, ...) describes it for the OpenAPI
document and lets a test or a client check a body (``extra="forbid"``: a field the encoder
adds must be added to the model too). ``ErrorOut`` is the body of every failure.
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict

from hebbs._native import (
    ExpansionEdge,
    ForgetResult,
    HealthStatus,
    Memory,
    MemoryPage,
    PrimeOutput,
    RecallOutput,
    RecallResult,
    StrategyDetail,
    StrategyError,
    SubscribePush,
    Tombstone,
)
from hebbs.consolidate.contradictions import ContradictionCandidate
from hebbs.reflect.results import CommitResult, Insight, ReflectSession

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


def encode_contradiction(candidate: ContradictionCandidate) -> JsonObject:
    older, newer = encode_memory(candidate.older), encode_memory(candidate.newer)
    return {**candidate.to_dict(), "older": older, "newer": newer}


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


def encode_insight(insight: Insight) -> JsonObject:
    return {**insight.to_dict(), "memory": encode_memory(insight.memory)}


def encode_reflect_session(session: ReflectSession) -> JsonObject:
    clusters = [
        {**cluster.to_dict(), "memories": encode_memories(cluster.memories)}
        for cluster in session.clusters
    ]
    return {**session.to_dict(), "clusters": clusters}


def encode_commit_result(result: CommitResult) -> JsonObject:
    return {**result.to_dict(), "insights": encode_memories(result.insights)}


def encode_memory(memory: Memory) -> JsonObject:
    embedding = memory.embedding
    return {
        "id": memory.id.hex(),
        "id_hex": memory.id_hex,
        "content": memory.content,
        "importance": memory.importance,
        "context": memory.context,
        "entity_id": memory.entity_id,
        "created_at": memory.created_at,
        "updated_at": memory.updated_at,
        "last_accessed_at": memory.last_accessed_at,
        "access_count": memory.access_count,
        "decay_score": memory.decay_score,
        "kind": memory.kind.value,
        "superseded": memory.superseded,
        "embedding": None if embedding is None else [float(x) for x in embedding.tolist()],
    }


def encode_memories(memories: list[Memory]) -> list[JsonObject]:
    return [encode_memory(memory) for memory in memories]


def encode_optional_memories(memories: list[Memory | None]) -> list[JsonObject | None]:
    return [None if memory is None else encode_memory(memory) for memory in memories]


def encode_memory_page(page: MemoryPage) -> JsonObject:
    cursor = page.next_cursor
    return {
        "memories": encode_memories(page.memories),
        "next_cursor": None if cursor is None else cursor.hex(),
    }


def encode_strategy_detail(detail: StrategyDetail) -> JsonObject:
    return {
        "strategy": detail.strategy,
        "relevance": detail.relevance,
        "distance": detail.distance,
        "timestamp": detail.timestamp,
        "rank": detail.rank,
        "depth": detail.depth,
        "embedding_similarity": detail.embedding_similarity,
        "structural_similarity": detail.structural_similarity,
        "dense_score": detail.dense_score,
        "bm25_score": detail.bm25_score,
        "rrf_score": detail.rrf_score,
        "late_interaction_score": detail.late_interaction_score,
        "rerank_score": detail.rerank_score,
    }


def encode_expansion_edge(edge: ExpansionEdge) -> JsonObject:
    return {
        "edge_type": edge.edge_type.value,
        "direction": edge.direction,
        "confidence": edge.confidence,
        "preview": edge.preview,
        "neighbor_id": edge.neighbor_id.hex(),
    }


def encode_recall_result(result: RecallResult) -> JsonObject:
    return {
        "memory": encode_memory(result.memory),
        "score": result.score,
        "strategy_details": [encode_strategy_detail(d) for d in result.strategy_details],
        "expansion_context": [encode_expansion_edge(e) for e in result.expansion_context],
        "scores": dict(result.scores),
    }


def encode_strategy_error(error: StrategyError) -> JsonObject:
    return {"strategy": error.strategy, "message": error.message, "field": error.field}


def encode_recall_output(output: RecallOutput) -> JsonObject:
    organization = output.organization_memory
    return {
        "results": [encode_recall_result(result) for result in output.results],
        "strategy_errors": [encode_strategy_error(error) for error in output.strategy_errors],
        "below_threshold": output.below_threshold,
        "organization_memory": None if organization is None else encode_recall_output(organization),
    }


def encode_prime_output(output: PrimeOutput) -> JsonObject:
    return {
        "results": [encode_recall_result(result) for result in output.results],
        "temporal_count": output.temporal_count,
        "similarity_count": output.similarity_count,
    }


def encode_forget_result(result: ForgetResult) -> JsonObject:
    return {
        "forgotten_count": result.forgotten_count,
        "cascade_count": result.cascade_count,
        "tombstone_count": result.tombstone_count,
        "truncated": result.truncated,
    }


def encode_tombstone(tombstone: Tombstone) -> JsonObject:
    return {
        "id": tombstone.id.hex(),
        "id_hex": tombstone.id_hex,
        "entity_id": tombstone.entity_id,
        "kind": tombstone.kind.value,
        "created_at": tombstone.created_at,
        "forgotten_at": tombstone.forgotten_at,
        "content_sha256": tombstone.content_sha256,
    }


def encode_health_status(status: HealthStatus) -> JsonObject:
    return {
        "serving": status.serving,
        "version": status.version,
        "memory_count": status.memory_count,
        "uptime_seconds": status.uptime_seconds,
    }


def encode_subscribe_push(push: SubscribePush) -> JsonObject:
    return {
        "subscription_id": push.subscription_id,
        "memory": encode_memory(push.memory),
        "confidence": push.confidence,
        "push_timestamp_us": push.push_timestamp_us,
        "sequence_number": push.sequence_number,
    }


__all__ = [
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
    "encode_expansion_edge",
    "encode_forget_result",
    "encode_health_status",
    "encode_memories",
    "encode_memory",
    "encode_memory_page",
    "encode_optional_memories",
    "encode_prime_output",
    "encode_recall_output",
    "encode_recall_result",
    "encode_strategy_detail",
    "encode_strategy_error",
    "encode_subscribe_push",
    "encode_tombstone",
]
