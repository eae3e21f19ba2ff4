"""Each remote operation spelled once: its parameters (those of :class:`hebbs.Hebbs`), its
request model check and the HTTP call it makes, as a :class:`Call`.

:class:`Operations` has one method per operation with the embedded method's exact signature; it
checks the arguments with the shared request models (so bad input raises the embedded API's
:class:`~hebbs.InvalidInputError` before anything is sent) and returns the :class:`Call` to make.
:class:`~hebbs.client.HebbsClient` sends it with ``httpx.Client``,
:class:`~hebbs.client.AsyncHebbsClient` with ``httpx.AsyncClient``; neither repeats a signature.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Callable, Generic, TypeVar
from urllib.parse import quote

from hebbs._convert import invalid
from hebbs._native import (
    DEFAULT_ANALOGICAL_ALPHA,
    DEFAULT_CAUSAL_DEPTH,
    DEFAULT_CONFIDENCE_THRESHOLD,
    DEFAULT_DIRECTION,
    DEFAULT_GRAPH_CONTEXT,
    DEFAULT_IMPORTANCE,
    DEFAULT_LIST_LIMIT,
    DEFAULT_LIST_PAGE,
    DEFAULT_PRIME_MAX_MEMORIES,
    DEFAULT_QUEUE_CAPACITY,
    DEFAULT_RERANK_TOP_N,
    DEFAULT_RRF_K,
    DEFAULT_TOMBSTONE_PAGE,
    DEFAULT_TOP_K,
    Edge,
    EdgeType,
    ForgetResult,
    HealthStatus,
    Memory,
    MemoryPage,
    PrimeOutput,
    RecallOutput,
    ScoringWeights,
    Tombstone,
)
from hebbs.api import (
    AddEdgesRequest,
    ChatContextRequest,
    CommitInsight,
    ConfirmContradictionRequest,
    FindContradictionsRequest,
    ForgetDecayedRequest,
    ForgetRequest,
    GetRequest,
    IdRequest,
    IdsRequest,
    InsightsRequest,
    ListMemoriesRequest,
    ListRequest,
    PrimeRequest,
    RecallRequest,
    ReflectCommitRequest,
    ReflectPrepareRequest,
    ReflectRequest,
    RememberManyRequest,
    RememberRequest,
    ReviseRequest,
    SubscribeRequest,
    TombstonesRequest,
    parse,
    to_scoring_weights,
)
from hebbs.client.encode import body, id_text, to_json
from hebbs.consolidate import ContradictionCandidate
from hebbs.consolidate.constants import (
    DEFAULT_CONTRADICTION_LIMIT,
    DEFAULT_CONTRADICTION_SIMILARITY,
    DEFAULT_DEDUP_THRESHOLD,
)
from hebbs.engine import KindLike, StrategyLike
from hebbs.errors import InvalidTypeError, RemoteUnsupportedError
from hebbs.index import IndexResult
from hebbs.jsonwire import dumps
from hebbs.reflect import CommitResult, Insight, ReflectResult, ReflectSession
from hebbs.reflect.constants import (
    DEFAULT_MIN_CLUSTER_SIZE,
    DEFAULT_MIN_CONFIDENCE,
    DEFAULT_REFLECT_MAX_MEMORIES,
    DEFAULT_SESSION_TTL_S,
)
from hebbs.types import MemoryIdLike, TimestampLike, TokenVectors, TokenVectorsItem

R = TypeVar("R")


@dataclass(frozen=True)
class Call(Generic[R]):
    """One HTTP request and how to read its answer."""

    method: str
    path: str
    decode: Callable[[Any], R]
    body: dict[str, Any] | None = None
    params: dict[str, str] = field(default_factory=dict)
    #: A 404 answer is the result None (``tombstone``), not a NotFoundError.
    none_if_not_found: bool = False


def _none(_body: object) -> None:
    return None


def _items(data: object, key: str) -> list[Any]:
    """The list of an answer: a bare JSON array, or the array under ``key``."""
    if isinstance(data, Mapping):
        data = data.get(key)
    if not isinstance(data, list):
        raise InvalidTypeError(f"expected a list of {key} from the server, got {data!r:.80}")
    return data


def _memories(data: object) -> list[Memory]:
    return [Memory.from_dict(item) for item in _items(data, "memories")]


def _optional_memories(data: object) -> list[Memory | None]:
    return [None if item is None else Memory.from_dict(item) for item in _items(data, "memories")]


def _memory_page(data: object) -> MemoryPage:
    return MemoryPage.from_dict(data)  # type: ignore[arg-type]


def _tombstones(data: object) -> list[Tombstone]:
    return [Tombstone.from_dict(item) for item in _items(data, "tombstones")]


def _tombstone(data: object) -> Tombstone | None:
    return None if data is None else Tombstone.from_dict(data)  # type: ignore[arg-type]


def _contradictions(data: object) -> list[ContradictionCandidate]:
    return [ContradictionCandidate.from_dict(item) for item in _items(data, "contradictions")]


def _insights(data: object) -> list[Insight]:
    return [Insight.from_dict(item) for item in _items(data, "insights")]


def _flag(value: object) -> str:
    return "true" if value else "false"


def _segment(text: str) -> str:
    """``text`` as one URL path segment."""
    return quote(text, safe="")


def _memory_path(memory_id: bytes | str, suffix: str = "") -> str:
    return f"/v1/memories/{_segment(id_text(memory_id, 'id'))}{suffix}"


def _check_cue(cue: str | None, embedding: object) -> None:
    """The embedded engine's own cue check: a given cue must not be blank."""
    if embedding is None and cue is not None and not cue.strip():
        raise invalid("cue", "must not be empty")


def _check_ranking(request: RecallRequest | PrimeRequest) -> None:
    """The checks the embedded engine makes past the model: the cue, the weights dict."""
    _check_cue(request.cue, request.cue_embedding)
    to_scoring_weights(request.scoring_weights)


def _in_process_only(name: str) -> RemoteUnsupportedError:
    return RemoteUnsupportedError(f"{name} only runs in-process: open the store with hebbs.Hebbs")


class Operations:
    """The remote operations as :class:`Call` builders, with :class:`hebbs.Hebbs`' signatures."""

    def remember(
        self,
        content: str,
        importance: float = DEFAULT_IMPORTANCE,
        context: Mapping[str, Any] | None = None,
        entity_id: str | None = None,
        edges: Sequence[Edge] = (),
        created_at: TimestampLike | None = None,
        embedding: Any = None,
        session_id: str | None = None,
        kind: KindLike | None = None,
        dedup: bool = False,
        dedup_threshold: float = DEFAULT_DEDUP_THRESHOLD,
    ) -> Call[Memory]:
        """Stores one memory (``POST /v1/memories``); the server embeds ``content`` unless
        ``embedding`` is given. See :meth:`hebbs.Hebbs.remember`."""
        request = parse(RememberRequest, locals())
        return Call("POST", "/v1/memories", Memory.from_dict, body(request))

    def remember_many(self, items: Iterable[Mapping[str, Any]]) -> Call[list[Memory]]:
        """Stores many memories in one atomic write (``POST /v1/memories/bulk``). See
        :meth:`hebbs.Hebbs.remember_many`."""
        request = parse(RememberManyRequest, locals())
        payload = {"items": [body(item) for item in request.items]}
        return Call("POST", "/v1/memories/bulk", _memories, payload)

    def get(self, id: MemoryIdLike, include_embedding: bool = False) -> Call[Memory]:
        """The memory with ``id`` (``GET /v1/memories/{id}``); raises NotFoundError."""
        request = parse(GetRequest, locals())
        params = {"include_embedding": _flag(request.include_embedding)}
        return Call("GET", _memory_path(request.id), Memory.from_dict, params=params)

    def get_many(
        self, ids: Sequence[MemoryIdLike], include_embedding: bool = False
    ) -> Call[list[Memory | None]]:
        """The memories with ``ids`` in one read (``POST /v1/memories/batch``), None where a
        memory does not exist."""
        request = parse(IdsRequest, {"ids": ids})
        if not isinstance(include_embedding, bool):
            raise invalid("include_embedding", "expected a bool", InvalidTypeError)
        payload: dict[str, Any] = body(request)
        if include_embedding:
            payload["include_embedding"] = True
        return Call("POST", "/v1/memories/batch", _optional_memories, payload)

    def recall(
        self,
        cue: str | None = None,
        strategies: Sequence[StrategyLike] | None = None,
        top_k: int = DEFAULT_TOP_K,
        entity_id: str | None = None,
        time_range: tuple[TimestampLike | None, TimestampLike | None] | None = None,
        ef_search: int | None = None,
        scoring_weights: ScoringWeights | Mapping[str, float] | None = None,
        cue_embedding: Any = None,
        include_embedding: bool = False,
        *,
        seed_memory_id: MemoryIdLike | None = None,
        edge_types: Sequence[EdgeType | str] | None = None,
        max_depth: int = DEFAULT_CAUSAL_DEPTH,
        direction: str = DEFAULT_DIRECTION,
        analogical_alpha: float = DEFAULT_ANALOGICAL_ALPHA,
        cue_context: Mapping[str, Any] | None = None,
        rrf_k: int = DEFAULT_RRF_K,
        min_relevance: float | None = None,
        graph_context: int = DEFAULT_GRAPH_CONTEXT,
        session_id: str | None = None,
        force_regex: bool = False,
        include_superseded: bool = False,
        include_organization: bool = False,
        rerank: str | None = None,
        rerank_top_n: int = DEFAULT_RERANK_TOP_N,
        cue_token_vectors: Any = None,
        quality: str | None = None,
        filter: Mapping[str, Any] | None = None,
    ) -> Call[RecallOutput]:
        """Recalls memories (``POST /v1/memories/recall``); the server embeds the cue. See
        :meth:`hebbs.Hebbs.recall` for every parameter."""
        request = parse(RecallRequest, locals())
        _check_ranking(request)
        return Call("POST", "/v1/memories/recall", RecallOutput.from_dict, body(request))

    def prime(
        self,
        entity_id: str,
        cue: str | None = None,
        max_memories: int = DEFAULT_PRIME_MAX_MEMORIES,
        time_range: tuple[TimestampLike | None, TimestampLike | None] | None = None,
        ef_search: int | None = None,
        scoring_weights: ScoringWeights | Mapping[str, float] | None = None,
        cue_embedding: Any = None,
        include_embedding: bool = False,
        filter: Mapping[str, Any] | None = None,
    ) -> Call[PrimeOutput]:
        """Warms an agent's context for ``entity_id`` (``POST /v1/memories/prime``). See
        :meth:`hebbs.Hebbs.prime`."""
        request = parse(PrimeRequest, locals())
        _check_ranking(request)
        return Call("POST", "/v1/memories/prime", PrimeOutput.from_dict, body(request))

    def revise(
        self,
        id: MemoryIdLike,
        content: str | None = None,
        importance: float | None = None,
        context: Mapping[str, Any] | None = None,
        embedding: Any = None,
        entity_id: str | None = None,
    ) -> Call[Memory]:
        """Stores a revision of memory ``id`` (``PUT /v1/memories/{id}``). See
        :meth:`hebbs.Hebbs.revise`."""
        request = parse(ReviseRequest, locals())
        payload = body(request, exclude=("id",))
        return Call("PUT", _memory_path(request.id), Memory.from_dict, payload)

    def lineage(self, id: MemoryIdLike) -> Call[list[Memory]]:
        """The revision chain through ``id``, oldest first (``GET /v1/memories/{id}/lineage``)."""
        request = parse(IdRequest, locals())
        return Call("GET", _memory_path(request.id, "/lineage"), _memories)

    def add_edges(self, id: MemoryIdLike, edges: Sequence[Edge]) -> Call[None]:
        """Adds edges from memory ``id`` (``POST /v1/memories/{id}/edges``). See
        :meth:`hebbs.Hebbs.add_edges`."""
        request = parse(AddEdgesRequest, locals())
        payload = body(request, exclude=("id",))
        return Call("POST", _memory_path(request.id, "/edges"), _none, payload)

    def put_token_vectors(self, items: Iterable[TokenVectorsItem]) -> Call[None]:
        """In-process only: raises :class:`~hebbs.RemoteUnsupportedError` (the server keeps
        the late-interaction token vectors of its own re-ranker)."""
        raise _in_process_only("put_token_vectors")

    def get_token_vectors(self, ids: Sequence[MemoryIdLike]) -> Call[list[TokenVectors | None]]:
        """In-process only: raises :class:`~hebbs.RemoteUnsupportedError`."""
        raise _in_process_only("get_token_vectors")

    def forget(
        self,
        ids: Sequence[MemoryIdLike] | None = None,
        entity_id: str | None = None,
        older_than: TimestampLike | None = None,
        importance_below: float | None = None,
        kind: KindLike | None = None,
        purge: bool = False,
        limit: int | None = None,
        filter: Mapping[str, Any] | None = None,
    ) -> Call[ForgetResult]:
        """Forgets memories and what derives from them (``POST /v1/memories/forget``). See
        :meth:`hebbs.Hebbs.forget`."""
        request = parse(ForgetRequest, locals())
        return Call("POST", "/v1/memories/forget", ForgetResult.from_dict, body(request))

    def forget_decayed(self, floor: float, limit: int | None = None) -> Call[ForgetResult]:
        """Forgets up to ``limit`` memories whose decay score is below ``floor``
        (``POST /v1/memories/forget_decayed``)."""
        request = parse(ForgetDecayedRequest, locals())
        payload = {"floor": request.floor, "limit": request.limit}
        return Call("POST", "/v1/memories/forget_decayed", ForgetResult.from_dict, payload)

    def tombstone(self, id: MemoryIdLike) -> Call[Tombstone | None]:
        """The tombstone of forgotten memory ``id``, or None (``GET /v1/tombstones/{id}``)."""
        request = parse(IdRequest, locals())
        path = f"/v1/tombstones/{_segment(id_text(request.id, 'id'))}"
        return Call("GET", path, _tombstone, none_if_not_found=True)

    def tombstones(
        self, after: MemoryIdLike | None = None, limit: int = DEFAULT_TOMBSTONE_PAGE
    ) -> Call[list[Tombstone]]:
        """A page of tombstones in id order (``GET /v1/tombstones``)."""
        request = parse(TombstonesRequest, locals())
        params = {"limit": str(request.limit)}
        if request.after is not None:
            params["after"] = id_text(request.after, "after")
        return Call("GET", "/v1/tombstones", _tombstones, params=params)

    def get_chat_context(
        self, session_id: str, limit: int = DEFAULT_LIST_LIMIT
    ) -> Call[list[Memory]]:
        """The memories conversation ``session_id`` touched
        (``GET /v1/sessions/{id}/context``)."""
        request = parse(ChatContextRequest, locals())
        path = f"/v1/sessions/{_segment(request.session_id)}/context"
        return Call("GET", path, _memories, params={"limit": str(request.limit)})

    def list_orphans(self, limit: int = DEFAULT_LIST_LIMIT) -> Call[list[Memory]]:
        """Memories with no edge, newest first (``GET /v1/orphans``)."""
        request = parse(ListRequest, locals())
        return Call("GET", "/v1/orphans", _memories, params={"limit": str(request.limit)})

    def list_memories(
        self,
        entity_id: str | None = None,
        kind: KindLike | None = None,
        cursor: MemoryIdLike | None = None,
        limit: int = DEFAULT_LIST_PAGE,
        include_superseded: bool = False,
        filter: Mapping[str, Any] | None = None,
    ) -> Call[MemoryPage]:
        """A page of the memories, oldest first (``GET /v1/memories``). See
        :meth:`hebbs.Hebbs.list_memories`."""
        request = parse(ListMemoriesRequest, locals())
        params = {"limit": str(request.limit)}
        if request.entity_id is not None:
            params["entity_id"] = request.entity_id
        if request.kind is not None:
            params["kind"] = to_json(request.kind, "kind")
        if request.cursor is not None:
            params["cursor"] = id_text(request.cursor, "cursor")
        if request.include_superseded:
            params["include_superseded"] = "true"
        if request.filter is not None:
            params["filter"] = dumps(request.filter).decode()
        return Call("GET", "/v1/memories", _memory_page, params=params)

    def subscribe(
        self,
        cue: str | None = None,
        *,
        embedding: Any = None,
        entity_id: str | None = None,
        confidence_threshold: float = DEFAULT_CONFIDENCE_THRESHOLD,
        queue_capacity: int = DEFAULT_QUEUE_CAPACITY,
        filter: Mapping[str, Any] | None = None,
    ) -> Call[None]:
        """Opens a standing query (``POST /v1/subscribe``, a server-sent event stream). See
        :meth:`hebbs.Hebbs.subscribe`."""
        request = parse(SubscribeRequest, locals())
        if request.embedding is not None and request.cue is not None:
            raise invalid("embedding", "give a cue or an embedding, not both")
        if request.embedding is None and request.cue is None:
            raise invalid("cue", "a cue or an embedding is required")
        _check_cue(request.cue, request.embedding)
        return Call("POST", "/v1/subscribe", _none, body(request))

    def find_contradictions(
        self,
        entity_id: str | None = None,
        threshold: float = DEFAULT_CONTRADICTION_SIMILARITY,
        limit: int = DEFAULT_CONTRADICTION_LIMIT,
    ) -> Call[list[ContradictionCandidate]]:
        """Candidate contradictions (``GET /v1/contradictions``). See
        :meth:`hebbs.Hebbs.find_contradictions`."""
        request = parse(FindContradictionsRequest, locals())
        params = {"threshold": repr(request.threshold), "limit": str(request.limit)}
        if request.entity_id is not None:
            params["entity_id"] = request.entity_id
        return Call("GET", "/v1/contradictions", _contradictions, params=params)

    def confirm_contradiction(
        self, older_id: MemoryIdLike, newer_id: MemoryIdLike, resolution: str = "link"
    ) -> Call[Memory]:
        """Records a confirmed contradiction (``POST /v1/contradictions/confirm``). See
        :meth:`hebbs.Hebbs.confirm_contradiction`."""
        request = parse(ConfirmContradictionRequest, locals())
        payload = {
            "older_id": id_text(request.older_id, "older_id"),
            "newer_id": id_text(request.newer_id, "newer_id"),
            "resolution": request.resolution,
        }
        return Call("POST", "/v1/contradictions/confirm", Memory.from_dict, payload)

    def reflect(
        self,
        entity_id: str | None = None,
        since: TimestampLike | None = None,
        max_memories: int = DEFAULT_REFLECT_MAX_MEMORIES,
        min_cluster_size: int = DEFAULT_MIN_CLUSTER_SIZE,
        min_confidence: float = DEFAULT_MIN_CONFIDENCE,
    ) -> Call[ReflectResult]:
        """Consolidates new memories into insights with the server's provider
        (``POST /v1/reflect``). See :meth:`hebbs.Hebbs.reflect`."""
        request = parse(ReflectRequest, locals())
        return Call("POST", "/v1/reflect", ReflectResult.from_dict, body(request))

    def insights(
        self,
        entity_id: str | None = None,
        min_confidence: float = 0.0,
        include_stale: bool = False,
    ) -> Call[list[Insight]]:
        """The scope's insights (``GET /v1/insights``). See :meth:`hebbs.Hebbs.insights`."""
        request = parse(InsightsRequest, locals())
        params = {"min_confidence": repr(request.min_confidence)}
        if request.entity_id is not None:
            params["entity_id"] = request.entity_id
        if request.include_stale:
            params["include_stale"] = "true"
        return Call("GET", "/v1/insights", _insights, params=params)

    def reflect_prepare(
        self,
        entity_id: str | None = None,
        max_memories: int = DEFAULT_REFLECT_MAX_MEMORIES,
        min_cluster_size: int = DEFAULT_MIN_CLUSTER_SIZE,
        ttl: float | timedelta = DEFAULT_SESSION_TTL_S,
    ) -> Call[ReflectSession]:
        """Agent-driven reflection, step one (``POST /v1/reflect/prepare``). See
        :meth:`hebbs.Hebbs.reflect_prepare`."""
        request = parse(ReflectPrepareRequest, locals())
        return Call("POST", "/v1/reflect/prepare", ReflectSession.from_dict, body(request))

    def reflect_commit(
        self, session_id: str, insights: Sequence[CommitInsight | Mapping[str, Any]]
    ) -> Call[CommitResult]:
        """Agent-driven reflection, step two (``POST /v1/reflect/commit``). See
        :meth:`hebbs.Hebbs.reflect_commit`."""
        request = parse(ReflectCommitRequest, locals())
        payload = {
            "session_id": request.session_id,
            "insights": [
                {**body(item), "sources": [id_text(s, "sources") for s in item.sources]}
                for item in request.insights
            ],
        }
        return Call("POST", "/v1/reflect/commit", CommitResult.from_dict, payload)

    def health(self) -> Call[HealthStatus]:
        """The server's store: serving state, version, memory count, uptime
        (``GET /v1/health``)."""
        return Call("GET", "/v1/health", HealthStatus.from_dict)

    def index_documents(
        self, paths: Sequence[str | os.PathLike[str]], progress: bool | None = None
    ) -> Call[IndexResult]:
        """In-process only: raises :class:`~hebbs.RemoteUnsupportedError` (indexing reads files
        of this machine; run it where the store is, or ``hebbs index`` with ``--db``)."""
        raise _in_process_only("index_documents")

    def optimize(self) -> Call[None]:
        """In-process only: raises :class:`~hebbs.RemoteUnsupportedError` (the server runs the
        index work in the background itself)."""
        raise _in_process_only("optimize")

    def checkpoint(self) -> Call[None]:
        """In-process only: raises :class:`~hebbs.RemoteUnsupportedError` (the server
        checkpoints its indexes when it closes a store)."""
        raise _in_process_only("checkpoint")


#: The one instance the clients build their calls with.
OPERATIONS = Operations()
