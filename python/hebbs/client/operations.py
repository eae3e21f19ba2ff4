"""Each request model as the HTTP call that runs it on a server (:data:`ROUTES`), and
:data:`OPERATIONS`, the :class:`~hebbs.api.operations.Operations` whose methods give that call.

:class:`~hebbs.client.HebbsClient` sends the call of each request it runs with
``httpx.Client``, :class:`~hebbs.client.AsyncHebbsClient` with ``httpx.AsyncClient``; the
methods, their parameters and their checks are the embedded ones (:mod:`hebbs.api.operations`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Final, Generic, TypeVar, cast
from urllib.parse import quote

from hebbs._inputs import invalid
from hebbs._native import (
    Edge,
    ForgetResult,
    HealthStatus,
    Memory,
    MemoryPage,
    PrimeOutput,
    RecallOutput,
    Tombstone,
)
from hebbs.api import (
    AddEdgesRequest,
    ChatContextRequest,
    CheckpointRequest,
    ConfirmContradictionRequest,
    CountMemoriesRequest,
    FindContradictionsRequest,
    ForgetDecayedRequest,
    ForgetRequest,
    GetEdgesRequest,
    GetManyRequest,
    GetRequest,
    GetTokenVectorsRequest,
    HealthRequest,
    IndexDocumentsRequest,
    InsightsRequest,
    LineageRequest,
    ListMemoriesRequest,
    OptimizeRequest,
    OrphansRequest,
    PrimeRequest,
    PutTokenVectorsRequest,
    RecallRequest,
    ReflectCommitRequest,
    ReflectPrepareRequest,
    ReflectRequest,
    ReinforceRequest,
    RememberManyRequest,
    RememberRequest,
    Returns,
    ReviseRequest,
    SubscribeRequest,
    TombstoneRequest,
    TombstonesRequest,
    to_scoring_weights,
)
from hebbs.api.operations import Operations
from hebbs.client.encode import body, id_text, to_json
from hebbs.consolidate import ContradictionCandidate
from hebbs.errors import InvalidTypeError, RemoteUnsupportedError
from hebbs.jsonwire import dumps
from hebbs.reflect import CommitResult, Insight, ReflectResult, ReflectSession

R = TypeVar("R")
T = TypeVar("T")


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


def _edges(data: object) -> list[Edge]:
    return [Edge.from_dict(item) for item in _items(data, "edges")]


def _optional_memories(data: object) -> list[Memory | None]:
    return [None if item is None else Memory.from_dict(item) for item in _items(data, "memories")]


def _memory_page(data: object) -> MemoryPage:
    return MemoryPage.from_dict(data)  # type: ignore[arg-type]


def _tombstones(data: object) -> list[Tombstone]:
    return [Tombstone.from_dict(item) for item in _items(data, "tombstones")]


def _tombstone_or_none(data: object) -> Tombstone | None:
    return None if data is None else Tombstone.from_dict(data)  # type: ignore[arg-type]


def _count(data: object) -> int:
    count = data.get("count") if isinstance(data, Mapping) else None
    if not isinstance(count, int) or isinstance(count, bool):
        raise InvalidTypeError(f'expected {{"count": N}} from the server, got {data!r:.80}')
    return count


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


def _remember(request: RememberRequest) -> Call[Memory]:
    return Call("POST", "/v1/memories", Memory.from_dict, body(request))


def _remember_many(request: RememberManyRequest) -> Call[list[Memory]]:
    payload = {"items": [body(item) for item in request.items]}
    return Call("POST", "/v1/memories/bulk", _memories, payload)


def _get(request: GetRequest) -> Call[Memory]:
    params = {"include_embedding": _flag(request.include_embedding)}
    return Call("GET", _memory_path(request.id), Memory.from_dict, params=params)


def _get_many(request: GetManyRequest) -> Call[list[Memory | None]]:
    return Call("POST", "/v1/memories/batch", _optional_memories, body(request))


def _recall(request: RecallRequest) -> Call[RecallOutput]:
    _check_ranking(request)
    return Call("POST", "/v1/memories/recall", RecallOutput.from_dict, body(request))


def _prime(request: PrimeRequest) -> Call[PrimeOutput]:
    _check_ranking(request)
    return Call("POST", "/v1/memories/prime", PrimeOutput.from_dict, body(request))


def _revise(request: ReviseRequest) -> Call[Memory]:
    payload = body(request, exclude=("id",))
    return Call("PUT", _memory_path(request.id), Memory.from_dict, payload)


def _lineage(request: LineageRequest) -> Call[list[Memory]]:
    return Call("GET", _memory_path(request.id, "/lineage"), _memories)


def _add_edges(request: AddEdgesRequest) -> Call[None]:
    payload = body(request, exclude=("id",))
    return Call("POST", _memory_path(request.id, "/edges"), _none, payload)


def _get_edges(request: GetEdgesRequest) -> Call[list[Edge]]:
    params = {"direction": str(request.direction)}
    return Call("GET", _memory_path(request.id, "/edges"), _edges, params=params)


def _reinforce(request: ReinforceRequest) -> Call[None]:
    return Call("POST", "/v1/memories/reinforce", _none, body(request))


def _forget(request: ForgetRequest) -> Call[ForgetResult]:
    return Call("POST", "/v1/memories/forget", ForgetResult.from_dict, body(request))


def _forget_decayed(request: ForgetDecayedRequest) -> Call[ForgetResult]:
    payload = {"floor": request.floor, "limit": request.limit}
    return Call("POST", "/v1/memories/forget_decayed", ForgetResult.from_dict, payload)


def _tombstone(request: TombstoneRequest) -> Call[Tombstone | None]:
    path = f"/v1/tombstones/{_segment(id_text(request.id, 'id'))}"
    return Call("GET", path, _tombstone_or_none, none_if_not_found=True)


def _tombstones_page(request: TombstonesRequest) -> Call[list[Tombstone]]:
    params = {"limit": str(request.limit)}
    if request.after is not None:
        params["after"] = id_text(request.after, "after")
    return Call("GET", "/v1/tombstones", _tombstones, params=params)


def _chat_context(request: ChatContextRequest) -> Call[list[Memory]]:
    path = f"/v1/sessions/{_segment(request.session_id)}/context"
    return Call("GET", path, _memories, params={"limit": str(request.limit)})


def _orphans(request: OrphansRequest) -> Call[list[Memory]]:
    return Call("GET", "/v1/orphans", _memories, params={"limit": str(request.limit)})


def _list_memories(request: ListMemoriesRequest) -> Call[MemoryPage]:
    params = {"limit": str(request.limit), **_selection(request)}
    if request.cursor is not None:
        params["cursor"] = id_text(request.cursor, "cursor")
    return Call("GET", "/v1/memories", _memory_page, params=params)


def _count_memories(request: CountMemoriesRequest) -> Call[int]:
    return Call("GET", "/v1/memories/count", _count, params=_selection(request))


def _selection(request: ListMemoriesRequest | CountMemoriesRequest) -> dict[str, str]:
    """The query parameters of a listing's (or a count's) selection."""
    params = {}
    if request.entity_id is not None:
        params["entity_id"] = request.entity_id
    if request.kind is not None:
        params["kind"] = to_json(request.kind, "kind")
    if request.include_superseded:
        params["include_superseded"] = "true"
    if request.filter is not None:
        params["filter"] = dumps(request.filter).decode()
    if request.key_prefix is not None:
        params["key_prefix"] = request.key_prefix
    return params


def subscribe_call(request: SubscribeRequest) -> Call[None]:
    """The call that opens a standing query (``POST /v1/subscribe``, a server-sent event
    stream), after the embedded engine's own checks of the cue."""
    if request.embedding is not None and request.cue is not None:
        raise invalid("embedding", "give a cue or an embedding, not both")
    if request.embedding is None and request.cue is None:
        raise invalid("cue", "a cue or an embedding is required")
    _check_cue(request.cue, request.embedding)
    return Call("POST", "/v1/subscribe", _none, body(request))


def _find_contradictions(request: FindContradictionsRequest) -> Call[list[ContradictionCandidate]]:
    params = {"threshold": repr(request.threshold), "limit": str(request.limit)}
    if request.entity_id is not None:
        params["entity_id"] = request.entity_id
    return Call("GET", "/v1/contradictions", _contradictions, params=params)


def _confirm_contradiction(request: ConfirmContradictionRequest) -> Call[Memory]:
    payload = {
        "older_id": id_text(request.older_id, "older_id"),
        "newer_id": id_text(request.newer_id, "newer_id"),
        "resolution": request.resolution,
    }
    return Call("POST", "/v1/contradictions/confirm", Memory.from_dict, payload)


def _reflect(request: ReflectRequest) -> Call[ReflectResult]:
    return Call("POST", "/v1/reflect", ReflectResult.from_dict, body(request))


def _insights_list(request: InsightsRequest) -> Call[list[Insight]]:
    params = {"min_confidence": repr(request.min_confidence)}
    if request.entity_id is not None:
        params["entity_id"] = request.entity_id
    if request.include_stale:
        params["include_stale"] = "true"
    return Call("GET", "/v1/insights", _insights, params=params)


def _reflect_prepare(request: ReflectPrepareRequest) -> Call[ReflectSession]:
    return Call("POST", "/v1/reflect/prepare", ReflectSession.from_dict, body(request))


def _reflect_commit(request: ReflectCommitRequest) -> Call[CommitResult]:
    payload = {
        "session_id": request.session_id,
        "insights": [
            {**body(item), "sources": [id_text(s, "sources") for s in item.sources]}
            for item in request.insights
        ],
    }
    return Call("POST", "/v1/reflect/commit", CommitResult.from_dict, payload)


def _health(_request: HealthRequest) -> Call[HealthStatus]:
    return Call("GET", "/v1/health", HealthStatus.from_dict)


#: The HTTP call of each request a server runs.
ROUTES: Final[dict[type[Any], Callable[[Any], Call[Any]]]] = {
    RememberRequest: _remember,
    RememberManyRequest: _remember_many,
    GetRequest: _get,
    GetManyRequest: _get_many,
    RecallRequest: _recall,
    PrimeRequest: _prime,
    ReviseRequest: _revise,
    LineageRequest: _lineage,
    AddEdgesRequest: _add_edges,
    ReinforceRequest: _reinforce,
    GetEdgesRequest: _get_edges,
    ForgetRequest: _forget,
    ForgetDecayedRequest: _forget_decayed,
    TombstoneRequest: _tombstone,
    TombstonesRequest: _tombstones_page,
    ChatContextRequest: _chat_context,
    OrphansRequest: _orphans,
    ListMemoriesRequest: _list_memories,
    CountMemoriesRequest: _count_memories,
    FindContradictionsRequest: _find_contradictions,
    ConfirmContradictionRequest: _confirm_contradiction,
    ReflectRequest: _reflect,
    InsightsRequest: _insights_list,
    ReflectPrepareRequest: _reflect_prepare,
    ReflectCommitRequest: _reflect_commit,
    HealthRequest: _health,
}

_TOKEN_VECTORS = "the server keeps the token vectors of its own re-ranker"
#: The operations that run only in-process: their method and why.
IN_PROCESS_ONLY: Final[dict[type[Any], tuple[str, str]]] = {
    PutTokenVectorsRequest: ("put_token_vectors", _TOKEN_VECTORS),
    GetTokenVectorsRequest: ("get_token_vectors", _TOKEN_VECTORS),
    IndexDocumentsRequest: (
        "index_documents",
        "indexing reads files of this machine; run it where the store is, or `hebbs index`",
    ),
    OptimizeRequest: ("optimize", "the server runs the index work in the background itself"),
    CheckpointRequest: ("checkpoint", "the server checkpoints its indexes when it closes a store"),
}


def call_for(request: Returns[R]) -> Call[R]:
    """The HTTP call that runs ``request`` on a server; :class:`~hebbs.RemoteUnsupportedError`
    for an operation that runs only in-process."""
    route = ROUTES.get(type(request))
    if route is None:
        name, reason = IN_PROCESS_ONLY.get(type(request), (type(request).__name__, "no route"))
        raise RemoteUnsupportedError(
            f"{name} only runs in-process: open the store with hebbs.Hebbs ({reason})"
        )
    return cast(Call[R], route(request))


class CallBuilder(Operations[Call[None]]):
    """The operations whose answer is the :class:`Call` that runs them (typed as the result
    the call decodes): how the asyncio client builds its calls with the embedded methods."""

    def run(self, request: Returns[T]) -> T:
        return cast(T, call_for(request))

    def open_subscription(self, request: SubscribeRequest) -> Call[None]:
        return subscribe_call(request)


#: The one instance the clients build their calls with.
OPERATIONS = CallBuilder()
