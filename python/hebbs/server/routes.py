"""The REST routes, all under ``/v1/``: one handler per operation, its body the operation's
request model (:mod:`hebbs.api.requests`), its answer the JSON of the native result
(:mod:`hebbs.api.responses`). Each handler leases its caller's tenant store for the call; the
engine releases the GIL, so the handlers are plain functions run in the worker threads.

The reference server's shorter paths are aliases: ``POST /v1/recall``, ``/v1/prime``,
``/v1/forget`` and ``PUT /v1/revise/{id}``. ``POST /v1/subscribe`` is a stream of server-sent
events (see :func:`subscribe`). The routes that need a key are on :data:`router`, which declares
their failures in the OpenAPI document (:mod:`hebbs.server.openapi`); the probes on :data:`public`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any, Final, Optional, TypeVar

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from hebbs._inputs import invalid
from hebbs.api import (
    AddEdgesRequest,
    ChatContextRequest,
    ConfirmContradictionRequest,
    CountMemoriesRequest,
    EdgesRequest,
    FindContradictionsRequest,
    ForgetDecayedRequest,
    ForgetRequest,
    GetEdgesRequest,
    GetManyRequest,
    GetRequest,
    HealthRequest,
    InsightsRequest,
    LineageRequest,
    ListMemoriesRequest,
    OrphansRequest,
    PrimeRequest,
    RecallRequest,
    ReflectCommitRequest,
    ReflectPrepareRequest,
    ReflectRequest,
    ReinforceRequest,
    RememberManyRequest,
    RememberRequest,
    ReviseChanges,
    ReviseRequest,
    SubscribeRequest,
    TombstoneRequest,
    TombstonesRequest,
    parse,
)
from hebbs.api.model import Request as ApiRequest
from hebbs.api.responses import (
    CommitResultOut,
    ContradictionOut,
    CountOut,
    EdgeOut,
    ForgetResultOut,
    HealthStatusOut,
    InsightOut,
    JsonObject,
    MemoryOut,
    MemoryPageOut,
    PrimeOutputOut,
    RecallOutputOut,
    ReflectResultOut,
    ReflectSessionOut,
    TombstoneOut,
    wire,
)
from hebbs.engine import Hebbs
from hebbs.errors import NotFoundError
from hebbs.jsonwire import dumps, loads
from hebbs.server.json_route import JsonRoute, json_response
from hebbs.server.metrics import CONTENT_TYPE
from hebbs.server.openapi import (
    KEYED_ERRORS,
    LLM_FAILURE,
    NOT_FOUND,
    NOT_READY,
    REVISING,
    SUBSCRIBE_EVENT,
    stream,
)
from hebbs.service.auth import Caller, KeyWatch, require
from hebbs.service.errors import error_body, not_ready
from hebbs.service.organization import caller_recall
from hebbs.subscription import AsyncSubscription

#: Seconds a subscription stream waits for a push before it sends a keep-alive comment (which
#: is also how a vanished client is noticed).
SSE_KEEPALIVE_S: Final = 10.0
#: The media type of the subscription stream.
SSE_MEDIA_TYPE: Final = "text/event-stream"

R = TypeVar("R", bound=ApiRequest)

READ = Depends(require("read"))
WRITE = Depends(require("write"))
ADMIN = Depends(require("admin"))

#: The routes that need a key.
router = APIRouter(prefix="/v1", responses=KEYED_ERRORS, route_class=JsonRoute)
#: The routes that answer without one.
public = APIRouter(prefix="/v1", route_class=JsonRoute)


@contextmanager
def _store(request: Request, caller: Caller) -> Iterator[Hebbs]:
    with request.app.state.tenants.lease(caller.tenant) as engine:
        yield engine


def _query(model: type[R], **given: Any) -> R:
    """``model`` from a route's path and query parameters (those absent keep its defaults)."""
    return parse(model, {name: value for name, value in given.items() if value is not None})


def _with_id(model: type[R], id: str, body: ApiRequest) -> R:
    """``model`` of a route whose memory id is in the path and whose other fields are ``body``."""
    return parse(model, {"id": id, **{name: getattr(body, name) for name in body.model_fields_set}})


def _json(payload: Any, status: int = 200) -> Response:
    return json_response(payload, status)


def _json_query(text: str | None, field: str) -> Any:
    """Query parameter ``field`` given as JSON text, decoded (None when absent)."""
    if text is None:
        return None
    try:
        return loads(text)
    except ValueError as error:
        raise invalid(field, f"is not JSON: {error}") from None


@router.post("/memories", status_code=201, response_model=MemoryOut, tags=["memories"])
def remember(body: RememberRequest, request: Request, caller: Caller = WRITE) -> Response:
    """Stores one memory (embedded with the store's embedder unless ``embedding`` is given)."""
    with _store(request, caller) as engine:
        return _json(wire(engine.run(body)), 201)


@router.get("/memories", response_model=MemoryPageOut, tags=["listings"])
def list_memories(
    request: Request,
    entity_id: Optional[str] = None,
    kind: Optional[str] = None,
    cursor: Optional[str] = None,
    limit: Optional[int] = None,
    include_superseded: bool = False,
    filter: Optional[str] = None,
    key_prefix: Optional[str] = None,
    caller: Caller = READ,
) -> Response:
    """A page of the caller's memories, oldest first (by id, or ``entity_id``'s timeline by
    ``created_at``); pass ``next_cursor`` as ``cursor`` for the next page, null at the end.
    ``filter`` is a filter (docs/filters.md) as JSON text; ``key_prefix`` keeps the memories
    whose caller key starts with it."""
    with _store(request, caller) as engine:
        given = _query(
            ListMemoriesRequest,
            entity_id=entity_id,
            kind=kind,
            cursor=cursor,
            include_superseded=include_superseded,
            limit=limit,
            filter=_json_query(filter, "filter"),
            key_prefix=key_prefix,
        )
        return _json(wire(engine.run(given)))


@router.get("/memories/count", response_model=CountOut, tags=["listings"])
def count_memories(
    request: Request,
    entity_id: Optional[str] = None,
    kind: Optional[str] = None,
    include_superseded: bool = False,
    filter: Optional[str] = None,
    key_prefix: Optional[str] = None,
    caller: Caller = READ,
) -> Response:
    """How many memories the listing with the same selection holds, over every page
    (``{"count": N}``); ``filter`` is a filter (docs/filters.md) as JSON text."""
    with _store(request, caller) as engine:
        given = _query(
            CountMemoriesRequest,
            entity_id=entity_id,
            kind=kind,
            include_superseded=include_superseded,
            filter=_json_query(filter, "filter"),
            key_prefix=key_prefix,
        )
        return _json({"count": engine.run(given)})


@router.post("/memories/bulk", status_code=201, response_model=list[MemoryOut], tags=["memories"])
def remember_many(body: RememberManyRequest, request: Request, caller: Caller = WRITE) -> Response:
    """Stores many memories in one embedding batch and one atomic write (all or nothing)."""
    with _store(request, caller) as engine:
        return _json(wire(engine.run(body)), 201)


@router.post("/memories/batch", response_model=list[Optional[MemoryOut]], tags=["memories"])
def get_many(body: GetManyRequest, request: Request, caller: Caller = READ) -> Response:
    """The memories with ``ids`` (or the memories caller ``keys`` name) in their order, null
    where one does not exist."""
    with _store(request, caller) as engine:
        return _json(wire(engine.run(body)))


def _recall(body: RecallRequest, request: Request, caller: Caller) -> Response:
    tenants = request.app.state.tenants
    with _store(request, caller) as engine:
        return _json(wire(caller_recall(tenants, caller, engine, body)))


@router.post("/memories/recall", response_model=RecallOutputOut, tags=["recall"])
def recall(body: RecallRequest, request: Request, caller: Caller = READ) -> Response:
    """Recalls memories with one or more strategies, ranked by the composite score."""
    return _recall(body, request, caller)


@router.post("/recall", response_model=RecallOutputOut, tags=["aliases"])
def recall_alias(body: RecallRequest, request: Request, caller: Caller = READ) -> Response:
    """The reference server's path of ``POST /v1/memories/recall``."""
    return _recall(body, request, caller)


def _prime(body: PrimeRequest, request: Request, caller: Caller) -> Response:
    with _store(request, caller) as engine:
        return _json(wire(engine.run(body)))


@router.post("/memories/prime", response_model=PrimeOutputOut, tags=["recall"])
def prime(body: PrimeRequest, request: Request, caller: Caller = READ) -> Response:
    """An entity's recent memories blended with those nearest the cue."""
    return _prime(body, request, caller)


@router.post("/prime", response_model=PrimeOutputOut, tags=["aliases"])
def prime_alias(body: PrimeRequest, request: Request, caller: Caller = READ) -> Response:
    """The reference server's path of ``POST /v1/memories/prime``."""
    return _prime(body, request, caller)


def _forget(body: ForgetRequest, request: Request, caller: Caller) -> Response:
    with _store(request, caller) as engine:
        return _json(wire(engine.run(body)))


@router.post("/memories/forget", response_model=ForgetResultOut, tags=["memories"])
def forget(body: ForgetRequest, request: Request, caller: Caller = WRITE) -> Response:
    """Forgets the memories the AND-combined selectors pick, leaving tombstones."""
    return _forget(body, request, caller)


@router.post("/forget", response_model=ForgetResultOut, tags=["aliases"])
def forget_alias(body: ForgetRequest, request: Request, caller: Caller = WRITE) -> Response:
    """The reference server's path of ``POST /v1/memories/forget``."""
    return _forget(body, request, caller)


@router.post("/memories/forget_decayed", response_model=ForgetResultOut, tags=["memories"])
def forget_decayed(
    body: ForgetDecayedRequest, request: Request, caller: Caller = WRITE
) -> Response:
    """Forgets up to ``limit`` memories whose decay score is below ``floor``."""
    with _store(request, caller) as engine:
        return _json(wire(engine.run(body)))


@router.get("/memories/{id}", response_model=MemoryOut, tags=["memories"], responses=NOT_FOUND)
def get(
    id: str, request: Request, include_embedding: bool = False, caller: Caller = READ
) -> Response:
    """One memory; 404 if it does not exist."""
    with _store(request, caller) as engine:
        given = _query(GetRequest, id=id, include_embedding=include_embedding)
        return _json(wire(engine.run(given)))


def _revise(id: str, body: ReviseChanges, request: Request, caller: Caller) -> Response:
    with _store(request, caller) as engine:
        return _json(wire(engine.run(_with_id(ReviseRequest, id, body))))


@router.put("/memories/{id}", response_model=MemoryOut, tags=["memories"], responses=REVISING)
def revise(id: str, body: ReviseChanges, request: Request, caller: Caller = WRITE) -> Response:
    """Stores a revision that supersedes memory ``id`` and returns it."""
    return _revise(id, body, request, caller)


@router.put("/revise/{id}", response_model=MemoryOut, tags=["aliases"], responses=REVISING)
def revise_alias(
    id: str, body: ReviseChanges, request: Request, caller: Caller = WRITE
) -> Response:
    """The reference server's path of ``PUT /v1/memories/{id}``."""
    return _revise(id, body, request, caller)


@router.get(
    "/memories/{id}/lineage",
    response_model=list[MemoryOut],
    tags=["memories"],
    responses=NOT_FOUND,
)
def lineage(id: str, request: Request, caller: Caller = READ) -> Response:
    """The revision chain through ``id``, oldest first."""
    with _store(request, caller) as engine:
        return _json(wire(engine.run(_query(LineageRequest, id=id))))


@router.get(
    "/memories/{id}/edges",
    response_model=list[EdgeOut],
    tags=["memories"],
    responses=NOT_FOUND,
)
def get_edges(
    id: str, request: Request, direction: Optional[str] = None, caller: Caller = READ
) -> Response:
    """The edges memory ``id`` holds (``direction=out``, the default) or that point at it
    (``direction=in``, each ``target`` the memory holding the edge); 404 when not stored."""
    with _store(request, caller) as engine:
        return _json(wire(engine.run(_query(GetEdgesRequest, id=id, direction=direction))))


@router.post("/memories/{id}/edges", status_code=204, tags=["memories"], responses=NOT_FOUND)
def add_edges(id: str, body: EdgesRequest, request: Request, caller: Caller = WRITE) -> Response:
    """Adds edges from memory ``id`` (all or nothing); 204 with no body."""
    with _store(request, caller) as engine:
        engine.run(_with_id(AddEdgesRequest, id, body))
    return Response(status_code=204)


@router.post("/memories/reinforce", status_code=204, tags=["memories"])
def reinforce(body: ReinforceRequest, request: Request, caller: Caller = WRITE) -> Response:
    """Counts a use of each of the memories ``ids`` (missing ones skipped); 204 with no body."""
    with _store(request, caller) as engine:
        engine.run(body)
    return Response(status_code=204)


@router.get("/sessions/{id}/context", response_model=list[MemoryOut], tags=["listings"])
def chat_context(
    id: str, request: Request, limit: Optional[int] = None, caller: Caller = READ
) -> Response:
    """The memories conversation ``id`` touched, in the order of their first touch."""
    with _store(request, caller) as engine:
        given = _query(ChatContextRequest, session_id=id, limit=limit)
        return _json(wire(engine.run(given)))


@router.get("/orphans", response_model=list[MemoryOut], tags=["listings"])
def orphans(request: Request, limit: Optional[int] = None, caller: Caller = READ) -> Response:
    """Memories with no edge in either direction, newest first."""
    with _store(request, caller) as engine:
        return _json(wire(engine.run(_query(OrphansRequest, limit=limit))))


@router.get("/tombstones", response_model=list[TombstoneOut], tags=["listings"])
def tombstones(
    request: Request,
    after: Optional[str] = None,
    limit: Optional[int] = None,
    caller: Caller = READ,
) -> Response:
    """A page of tombstones in id order; pass the last id as ``after`` for the next."""
    with _store(request, caller) as engine:
        found = engine.run(_query(TombstonesRequest, after=after, limit=limit))
        return _json(wire(found))


@router.get("/tombstones/{id}", response_model=TombstoneOut, tags=["listings"], responses=NOT_FOUND)
def tombstone(id: str, request: Request, caller: Caller = READ) -> Response:
    """The tombstone of forgotten memory ``id``; 404 if there is none."""
    with _store(request, caller) as engine:
        found = engine.run(_query(TombstoneRequest, id=id))
    if found is None:
        raise NotFoundError(f"no tombstone for {id}")
    return _json(wire(found))


@router.get("/contradictions", response_model=list[ContradictionOut], tags=["consolidate"])
def find_contradictions(
    request: Request,
    entity_id: Optional[str] = None,
    threshold: Optional[float] = None,
    limit: Optional[int] = None,
    caller: Caller = READ,
) -> Response:
    """Candidate contradictions: similar memories of one entity whose texts look opposed."""
    with _store(request, caller) as engine:
        given = _query(
            FindContradictionsRequest, entity_id=entity_id, threshold=threshold, limit=limit
        )
        found = engine.run(given)
        return _json(wire(found))


@router.post(
    "/contradictions/confirm", response_model=MemoryOut, tags=["consolidate"], responses=REVISING
)
def confirm_contradiction(
    body: ConfirmContradictionRequest, request: Request, caller: Caller = WRITE
) -> Response:
    """Records a confirmed contradiction: a ``contradicts`` edge (``link``) or a revision of the
    older memory that replaces the newer (``revise``)."""
    with _store(request, caller) as engine:
        return _json(wire(engine.run(body)))


@router.post("/reflect", response_model=ReflectResultOut, tags=["reflect"], responses=LLM_FAILURE)
def reflect(body: ReflectRequest, request: Request, caller: Caller = WRITE) -> Response:
    """Consolidates the scope's new memories into insights with the server's LLM provider
    (offline unless the server's environment configures one); 502 if the provider fails."""
    with _store(request, caller) as engine:
        return _json(wire(engine.run(body)))


@router.get("/insights", response_model=list[InsightOut], tags=["reflect"])
def insights(
    request: Request,
    entity_id: Optional[str] = None,
    min_confidence: Optional[float] = None,
    include_stale: bool = False,
    caller: Caller = READ,
) -> Response:
    """The scope's insights with their confidence, sources and staleness, oldest first."""
    with _store(request, caller) as engine:
        given = _query(
            InsightsRequest,
            entity_id=entity_id,
            include_stale=include_stale,
            min_confidence=min_confidence,
        )
        found = engine.run(given)
        return _json(wire(found))


@router.post("/reflect/prepare", response_model=ReflectSessionOut, tags=["reflect"])
def reflect_prepare(
    body: ReflectPrepareRequest, request: Request, caller: Caller = WRITE
) -> Response:
    """Agent-driven reflection: the clusters, their memories and the exact prompts, in a
    session that expires."""
    with _store(request, caller) as engine:
        return _json(wire(engine.run(body)))


@router.post(
    "/reflect/commit",
    status_code=201,
    response_model=CommitResultOut,
    tags=["reflect"],
    responses=NOT_FOUND,
)
def reflect_commit(
    body: ReflectCommitRequest, request: Request, caller: Caller = WRITE
) -> Response:
    """Stores an agent host's insights for a prepared session (all or nothing)."""
    with _store(request, caller) as engine:
        result = engine.run(body)
        return _json(wire(result), 201)


@router.get("/health", response_model=HealthStatusOut, tags=["health"])
def health(request: Request, caller: Caller = READ) -> Response:
    """The caller's store: serving state, version, memory count and uptime."""
    with _store(request, caller) as engine:
        return _json(wire(engine.run(HealthRequest())))


@public.get("/health/live", tags=["health"])
def live() -> JsonObject:
    """200 while the process answers (no key needed)."""
    return {"live": True}


@public.get("/health/ready", tags=["health"], responses=NOT_READY)
def ready(request: Request) -> JsonObject:
    """200 once the server has started and until it shuts down, else 503 (no key needed)."""
    if not request.app.state.ready:
        raise not_ready("the server is starting or shutting down")
    return {"ready": True}


@router.get(
    "/metrics",
    tags=["health"],
    response_class=Response,
    responses=stream(CONTENT_TYPE, {"type": "string"}),
)
def metrics(request: Request, caller: Caller = ADMIN) -> Response:
    """Prometheus metrics in the text format (an admin key when auth is on)."""
    return Response(request.app.state.metrics.render(), media_type=CONTENT_TYPE)


def _event(name: str, data: JsonObject, event_id: int | None = None) -> bytes:
    head = f"event: {name}\n" + ("" if event_id is None else f"id: {event_id}\n")
    return head.encode() + b"data: " + dumps(data) + b"\n\n"


@router.post(
    "/subscribe",
    tags=["subscribe"],
    response_class=StreamingResponse,
    responses=stream(SSE_MEDIA_TYPE, SUBSCRIBE_EVENT),
)
async def subscribe(
    body: SubscribeRequest, request: Request, caller: Caller = READ
) -> StreamingResponse:
    """A standing query as server-sent events: first ``event: subscribed`` with
    ``{"subscription_id": N}``, then one ``event: push`` (``id:`` its sequence number, data the
    SubscribePush) per new matching memory, a ``: keepalive`` comment every
    :data:`SSE_KEEPALIVE_S` seconds without one, and ``event: end`` if the store closes. Once the
    key is revoked or expires the stream ends with ``event: error`` (the 401's error body)
    within :data:`~hebbs.service.auth.KEY_RECHECK_S` seconds. The native subscription is closed
    when the client disconnects."""
    stack = ExitStack()
    try:
        engine = stack.enter_context(_store(request, caller))
        native = await run_in_threadpool(engine.open_subscription, body)
    except BaseException:
        stack.close()
        raise
    subscription = AsyncSubscription(native)

    async def watch_disconnect() -> None:
        """Ends the subscription as soon as the client goes away (not at the next write)."""
        while (await request.receive())["type"] != "http.disconnect":
            pass
        subscription.sync.close()

    key = KeyWatch(request.app.state.auth, caller)

    async def events() -> AsyncIterator[bytes]:
        watcher = asyncio.ensure_future(watch_disconnect())
        try:
            yield _event("subscribed", {"subscription_id": subscription.id})
            keepalive_at = time.monotonic() + SSE_KEEPALIVE_S
            while True:
                refused = key.refusal()
                if refused is not None:
                    yield _event("error", error_body(refused.error_code, refused.message))
                    return
                wait = min(keepalive_at - time.monotonic(), key.wait_s())
                push = await subscription.next(timeout=max(wait, 0.0))
                if push is not None:
                    yield _event("push", wire(push), push.sequence_number)
                    keepalive_at = time.monotonic() + SSE_KEEPALIVE_S
                elif subscription.closed:
                    yield _event("end", {"subscription_id": subscription.id})
                    return
                elif time.monotonic() >= keepalive_at:
                    yield b": keepalive\n\n"
                    keepalive_at = time.monotonic() + SSE_KEEPALIVE_S
        finally:
            # Synchronous on purpose: a cancelled stream may not await.
            watcher.cancel()
            subscription.sync.close()
            stack.close()

    return StreamingResponse(
        events(),
        media_type=SSE_MEDIA_TYPE,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
