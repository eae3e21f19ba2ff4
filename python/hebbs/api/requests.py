"""The request of each operation, spelled once: its parameters, their types and their defaults
(read from the native module's constants). ``Hebbs`` and ``AsyncHebbs`` build one per call with
:func:`parse`, and so do the CLI (from its parsed flags), the server and the client. Recall's
and prime's live with their keyword methods in :mod:`hebbs.api.recall`; :mod:`hebbs.api` names
every model.

pydantic v2 is the model library: FastAPI (the server) takes its models as they are, so one
definition gives the embedded API's checks, the JSON codec and the OpenAPI schema. Each field's
type (``hebbs.api.fields``) does the checks Python must do; the engine checks ranges, lengths
and dimensions and names the field the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, Literal, Optional

from pydantic import Field

from hebbs._native import (
    DEFAULT_CONFIDENCE_THRESHOLD,
    DEFAULT_IMPORTANCE,
    DEFAULT_LIST_LIMIT,
    DEFAULT_LIST_PAGE,
    DEFAULT_QUEUE_CAPACITY,
    DEFAULT_TOMBSTONE_PAGE,
    ForgetResult,
    HealthStatus,
    Memory,
    MemoryPage,
    Tombstone,
)
from hebbs.api.fields import (
    Content,
    Count,
    EdgeList,
    FilterObject,
    Flag,
    Fraction,
    IdList,
    JsonObject,
    Key,
    KeyList,
    KeyPrefix,
    KindField,
    MemoryIdField,
    Micros,
    Number,
    PathField,
    Positive,
    Seconds,
    Text,
    Vector,
)
from hebbs.api.model import Request, Returns
from hebbs.consolidate.constants import (
    DEFAULT_CONTRADICTION_LIMIT,
    DEFAULT_CONTRADICTION_SIMILARITY,
    DEFAULT_DEDUP_THRESHOLD,
)
from hebbs.reflect.constants import (
    DEFAULT_MIN_CLUSTER_SIZE,
    DEFAULT_MIN_CONFIDENCE,
    DEFAULT_REFLECT_MAX_MEMORIES,
    DEFAULT_SESSION_TTL_S,
)

if TYPE_CHECKING:
    # Results named in string form by the models' ``Returns`` (their modules import this one).
    from hebbs._native import Edge  # noqa: F401
    from hebbs.consolidate import ContradictionCandidate  # noqa: F401
    from hebbs.ingest import IndexResult  # noqa: F401
    from hebbs.reflect import CommitResult, Insight, ReflectResult, ReflectSession  # noqa: F401
    from hebbs.types import TokenVectors  # noqa: F401

#: What ``hebbs.api`` re-exports: every request model (a new one is listed here too).
__all__ = [
    "DEFAULT_EDGE_DIRECTION",
    "DEFAULT_TOKEN_POOL_FACTOR",
    "DEFAULT_TOKEN_VECTORS",
    "AddEdgesRequest",
    "ChatContextRequest",
    "CheckpointRequest",
    "CommitInsight",
    "ConfirmContradictionRequest",
    "CountMemoriesRequest",
    "EdgesRequest",
    "FindContradictionsRequest",
    "ForgetDecayedRequest",
    "ForgetRequest",
    "GetEdgesRequest",
    "GetManyRequest",
    "GetRequest",
    "GetTokenVectorsRequest",
    "HealthRequest",
    "IdRequest",
    "IndexDocumentsRequest",
    "InsightsRequest",
    "LineageRequest",
    "ListMemoriesRequest",
    "OpenRequest",
    "OptimizeRequest",
    "OrphansRequest",
    "PutTokenVectorsRequest",
    "ReflectCommitRequest",
    "ReflectPrepareRequest",
    "ReflectRequest",
    "ReinforceRequest",
    "RememberManyRequest",
    "RememberRequest",
    "ReviseChanges",
    "ReviseRequest",
    "SubscribeRequest",
    "TombstoneRequest",
    "TombstonesRequest",
]

#: Whether a store keeps each memory's token vectors (from the embedding pass ``remember``
#: runs anyway) for the late-interaction re-rank stage. On: measured in docs/hybrid.md, it
#: costs about 11 KB a memory and a few percent of ``remember_many``'s time, and it is what
#: the default recall re-ranks with.
DEFAULT_TOKEN_VECTORS: Final = True
#: Kept tokens a stored token vector stands for: 1 stores one a token, 2 pools them into
#: half as many (``hebbs.embedder.token_vectors.pool_tokens``).
DEFAULT_TOKEN_POOL_FACTOR: Final = 1
#: How the vector index holds the vectors in memory (docs/scale.md, "int8 vectors").
VectorFormatName = Literal["f32", "int8"]


class OpenRequest(Request):
    path: PathField
    dimension: Optional[Count] = None
    m: Optional[Count] = None
    ef_construction: Optional[Count] = None
    ef_search: Optional[Count] = None
    sync_writes: Flag = False
    auto_forget_floor: Optional[Number] = None
    auto_forget_interval: Optional[Seconds] = None
    auto_forget_limit: Optional[Count] = None
    organization: Optional[PathField] = None
    reflect_after_memories: Optional[Positive] = None
    reflect_interval: Optional[Seconds] = None
    token_vectors: Flag = DEFAULT_TOKEN_VECTORS
    token_pool_factor: Positive = DEFAULT_TOKEN_POOL_FACTOR
    vector_format: Optional[VectorFormatName] = None


class RememberRequest(Request, Returns[Memory]):
    content: Content
    importance: Number = DEFAULT_IMPORTANCE
    context: Optional[JsonObject] = None
    entity_id: Optional[Text] = None
    edges: EdgeList = []  # noqa: RUF012 (a pydantic field: each model gets its own copy)
    created_at: Optional[Micros] = None
    embedding: Optional[Vector] = None
    session_id: Optional[Text] = None
    kind: Optional[KindField] = None
    dedup: Flag = False
    dedup_threshold: Fraction = DEFAULT_DEDUP_THRESHOLD
    key: Optional[Key] = Field(
        None, description="your name for the memory: storing under it again replaces the memory"
    )


class RememberManyRequest(Request, Returns["list[Memory]"]):
    items: list[RememberRequest]


class GetRequest(Request, Returns[Memory]):
    id: MemoryIdField
    include_embedding: Flag = False


class IdRequest(Request):
    id: MemoryIdField


class LineageRequest(IdRequest, Returns["list[Memory]"]):
    """``lineage``: the revision chain through ``id``."""


#: Which edges ``get_edges`` gives by default: the ones the memory holds.
DEFAULT_EDGE_DIRECTION: Final = "out"


class GetEdgesRequest(IdRequest, Returns["list[Edge]"]):
    """``get_edges``: the edges memory ``id`` holds (``"out"``) or that point at it (``"in"``,
    each edge's ``target`` then being the memory that holds it)."""

    direction: Literal["out", "in"] = DEFAULT_EDGE_DIRECTION


class TombstoneRequest(IdRequest, Returns[Optional[Tombstone]]):
    """``tombstone``: the tombstone of forgotten memory ``id``."""


class GetTokenVectorsRequest(Request, Returns["list[TokenVectors | None]"]):
    ids: IdList


class PutTokenVectorsRequest(Request, Returns[None]):
    """``put_token_vectors``: the native call checks each ``(id, codes, scales)`` item."""

    items: list[Any]


class HealthRequest(Request, Returns[HealthStatus]):
    """``health``: no parameters."""


class OptimizeRequest(Request, Returns[None]):
    """``optimize``: no parameters."""


class CheckpointRequest(Request, Returns[None]):
    """``checkpoint``: no parameters."""


class GetManyRequest(Request, Returns["list[Memory | None]"]):
    ids: Optional[IdList] = None
    keys: Optional[KeyList] = Field(None, description="the memories these keys name")
    include_embedding: Flag = False


class ReviseChanges(Request):
    """What a revision changes (the body of the server's ``PUT /v1/memories/{id}``)."""

    content: Optional[Content] = None
    importance: Optional[Number] = None
    context: Optional[JsonObject] = None
    embedding: Optional[Vector] = None
    entity_id: Optional[Text] = None


class ReviseRequest(ReviseChanges, Returns[Memory]):
    id: MemoryIdField


class EdgesRequest(Request):
    """The edges to add (the body of the server's ``POST /v1/memories/{id}/edges``)."""

    edges: EdgeList


class AddEdgesRequest(EdgesRequest, Returns[None]):
    id: MemoryIdField


class ReinforceRequest(Request, Returns[None]):
    """``reinforce``: a use of each of ``ids``, counted as a recall returning it counts it."""

    ids: IdList


class ForgetRequest(Request, Returns[ForgetResult]):
    ids: Optional[IdList] = None
    keys: Optional[KeyList] = Field(
        None, description="the memories these keys name, every version of each"
    )
    entity_id: Optional[Text] = None
    older_than: Optional[Micros] = None
    importance_below: Optional[Number] = None
    kind: Optional[KindField] = None
    filter: Optional[FilterObject] = None
    purge: Flag = False
    limit: Optional[Positive] = None


class ForgetDecayedRequest(Request, Returns[ForgetResult]):
    floor: Number
    limit: Optional[Positive] = None


class TombstonesRequest(Request, Returns["list[Tombstone]"]):
    after: Optional[MemoryIdField] = None
    limit: Positive = DEFAULT_TOMBSTONE_PAGE


class ChatContextRequest(Request, Returns["list[Memory]"]):
    session_id: Text
    limit: Count = DEFAULT_LIST_LIMIT


class OrphansRequest(Request, Returns["list[Memory]"]):
    limit: Count = DEFAULT_LIST_LIMIT


class ListMemoriesRequest(Request, Returns[MemoryPage]):
    entity_id: Optional[Text] = None
    kind: Optional[KindField] = None
    cursor: Optional[MemoryIdField] = None
    limit: Count = DEFAULT_LIST_PAGE
    include_superseded: Flag = False
    filter: Optional[FilterObject] = None
    key_prefix: Optional[KeyPrefix] = Field(
        None, description="only memories whose key starts with this"
    )


class CountMemoriesRequest(Request, Returns[int]):
    entity_id: Optional[Text] = None
    kind: Optional[KindField] = None
    include_superseded: Flag = False
    filter: Optional[FilterObject] = None
    key_prefix: Optional[KeyPrefix] = Field(
        None, description="only memories whose key starts with this"
    )


class SubscribeRequest(Request):
    cue: Optional[Text] = None
    embedding: Optional[Vector] = None
    entity_id: Optional[Text] = None
    confidence_threshold: Number = DEFAULT_CONFIDENCE_THRESHOLD
    queue_capacity: Count = DEFAULT_QUEUE_CAPACITY
    filter: Optional[FilterObject] = None


class ReflectRequest(Request, Returns["ReflectResult"]):
    entity_id: Optional[Text] = None
    since: Optional[Micros] = None
    max_memories: Positive = DEFAULT_REFLECT_MAX_MEMORIES
    min_cluster_size: Positive = DEFAULT_MIN_CLUSTER_SIZE
    min_confidence: Fraction = DEFAULT_MIN_CONFIDENCE


class InsightsRequest(Request, Returns["list[Insight]"]):
    entity_id: Optional[Text] = None
    min_confidence: Fraction = 0.0
    include_stale: Flag = False


class ReflectPrepareRequest(Request, Returns["ReflectSession"]):
    entity_id: Optional[Text] = None
    max_memories: Positive = DEFAULT_REFLECT_MAX_MEMORIES
    min_cluster_size: Positive = DEFAULT_MIN_CLUSTER_SIZE
    ttl: Seconds = DEFAULT_SESSION_TTL_S


class CommitInsight(Request):
    """One insight an agent host commits: its content, the ids of its sources (memories of the
    session) and its confidence."""

    content: Content
    sources: IdList
    confidence: Fraction = 1.0


class ReflectCommitRequest(Request, Returns["CommitResult"]):
    session_id: Text
    insights: list[CommitInsight]


class IndexDocumentsRequest(Request, Returns["IndexResult"]):
    paths: list[PathField]
    progress: Optional[Flag] = None


class FindContradictionsRequest(Request, Returns["list[ContradictionCandidate]"]):
    entity_id: Optional[Text] = None
    threshold: Fraction = DEFAULT_CONTRADICTION_SIMILARITY
    limit: Positive = DEFAULT_CONTRADICTION_LIMIT


class ConfirmContradictionRequest(Request, Returns[Memory]):
    older_id: MemoryIdField
    newer_id: MemoryIdField
    resolution: Text = "link"
